# aftershock_install(): `cmake --install` and the CMake package find_package(aftershock CONFIG) reads.
# Called once, at the end of the top-level CMakeLists.txt, after every component registered itself
# with aftershock_component() (cmake/aftershock_component.cmake). Installs
#   bin/                              the programs (aftershock-cluster, aftershock-fault-proxy, ...)
#   include/aftershock/framework/**.h the framework headers (includes read "framework/...")
#   include/aftershock/fixtures/**.h  the fixtures a suite derives from, the reference targets' headers
#                                     and their generated .pb.h (aftershock_proto_library)
#   lib/<arch>/aftershock/            the static libraries (a folder of their own: libpseudonym_proto.a
#                                     and friends never collide with another package's files)
#   lib/<arch>/cmake/aftershock/      aftershockConfig.cmake, the exported targets, and the ctest glue
#                                     (aftershock_add_suite, the cluster fixture and lock, expect_failure)
include_guard(GLOBAL)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(AFTERSHOCK_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/aftershock")

function(aftershock_install)
  get_property(components GLOBAL PROPERTY AFTERSHOCK_COMPONENTS)
  install(TARGETS ${components} EXPORT aftershockTargets
    ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}/aftershock"
    LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}/aftershock"
    RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
  install(EXPORT aftershockTargets NAMESPACE aftershock:: DESTINATION "${AFTERSHOCK_INSTALL_CMAKEDIR}")

  foreach(target IN LISTS components)
    get_target_property(generated ${target} AFTERSHOCK_GENERATED_HEADERS)
    if(generated)
      get_target_property(generated_dir ${target} AFTERSHOCK_GENERATED_HEADERS_DIR)
      install(FILES ${generated} DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/aftershock/${generated_dir}")
    endif()
  endforeach()
  foreach(dir framework fixtures)
    install(DIRECTORY "${PROJECT_SOURCE_DIR}/${dir}" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/aftershock"
            FILES_MATCHING PATTERN "*.h" PATTERN "testdata" EXCLUDE)
  endforeach()

  configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/aftershockConfig.cmake.in"
    "${PROJECT_BINARY_DIR}/aftershockConfig.cmake" INSTALL_DESTINATION "${AFTERSHOCK_INSTALL_CMAKEDIR}")
  write_basic_package_version_file("${PROJECT_BINARY_DIR}/aftershockConfigVersion.cmake"
    COMPATIBILITY SameMinorVersion)
  install(FILES "${PROJECT_BINARY_DIR}/aftershockConfig.cmake" "${PROJECT_BINARY_DIR}/aftershockConfigVersion.cmake"
    "${PROJECT_SOURCE_DIR}/ctest/aftershock_suite.cmake"
    "${PROJECT_SOURCE_DIR}/ctest/cluster_fixture.cmake"
    "${PROJECT_SOURCE_DIR}/ctest/cluster_lock.cmake"
    "${PROJECT_SOURCE_DIR}/ctest/check_cluster_lock.cmake"
    "${PROJECT_SOURCE_DIR}/ctest/expect_failure.cmake"
    "${PROJECT_SOURCE_DIR}/ctest/proto.cmake"
    DESTINATION "${AFTERSHOCK_INSTALL_CMAKEDIR}")
endfunction()
