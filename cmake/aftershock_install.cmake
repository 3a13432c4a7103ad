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

# Every library of the tree is a component (installed, exported, with its usage requirements) unless
# it is marked test-only: a library someone adds without aftershock_component() fails the configure
# here, naming it, instead of going missing from the package.
#   set_property(TARGET my_test_helpers PROPERTY AFTERSHOCK_TEST_ONLY ON)
function(aftershock_check_components components)
  set(dirs "${PROJECT_SOURCE_DIR}")
  set(missing "")
  while(dirs)
    list(POP_FRONT dirs dir)
    get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
    list(APPEND dirs ${subdirs})
    get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target IN LISTS targets)
      get_target_property(type ${target} TYPE)
      get_target_property(test_only ${target} AFTERSHOCK_TEST_ONLY)
      if(type MATCHES "^(STATIC|SHARED|OBJECT|INTERFACE)_LIBRARY$" AND NOT test_only AND NOT target IN_LIST components)
        file(RELATIVE_PATH rel "${PROJECT_SOURCE_DIR}" "${dir}")
        list(APPEND missing "${target} (${rel}/CMakeLists.txt)")
      endif()
    endforeach()
  endwhile()
  if(missing)
    list(JOIN missing ", " missing)
    message(FATAL_ERROR "libraries without aftershock_component(): ${missing}. Add aftershock_component(<target>) "
                        "after their add_library (cmake/aftershock_component.cmake), or mark a test-only one with "
                        "set_property(TARGET <target> PROPERTY AFTERSHOCK_TEST_ONLY ON)")
  endif()
endfunction()

function(aftershock_install)
  get_property(components GLOBAL PROPERTY AFTERSHOCK_COMPONENTS)
  aftershock_check_components("${components}")
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
    "${PROJECT_SOURCE_DIR}/ctest/check_set_claims.cmake"
    "${PROJECT_SOURCE_DIR}/ctest/expect_failure.cmake"
    "${PROJECT_SOURCE_DIR}/ctest/proto.cmake"
    DESTINATION "${AFTERSHOCK_INSTALL_CMAKEDIR}")
endfunction()
