# aftershock_component(<target>): the one call every aftershock library and program makes after
# add_library / add_executable. For a library it
#  - states the include paths users of the target need (the repository root and the build tree for
#    generated .pb.h in the build; <prefix>/include/aftershock once installed), so an include reads
#    #include "framework/load/open_model_runner.h" everywhere;
#  - adds the alias aftershock::<name> (<name> is the target without its "aftershock_" prefix:
#    aftershock_load -> aftershock::load, pseudonym_proto -> aftershock::pseudonym_proto), the name
#    consumers use both through add_subdirectory and through find_package(aftershock);
#  - registers it for `cmake --install` and the exported package (cmake/aftershock_install.cmake).
# For a program (aftershock-cluster, aftershock-verify, ...) it adds aftershock::<program> and
# installs it to bin/.
#
#   add_library(aftershock_load rate_profile.cc ...)
#   aftershock_component(aftershock_load)
#   target_link_libraries(aftershock_load PUBLIC aftershock_metrics ...)
include_guard(GLOBAL)
include(GNUInstallDirs)

function(aftershock_component target)
  if(ARGN)
    message(FATAL_ERROR "aftershock_component(${target}): unexpected arguments '${ARGN}'")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "aftershock_component(${target}): no such target (call it after add_library)")
  endif()
  get_target_property(type ${target} TYPE)
  string(REGEX REPLACE "^aftershock_" "" name "${target}")
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  if(type STREQUAL "EXECUTABLE")
    add_executable(aftershock::${name} ALIAS ${target})
  else()
    if(type STREQUAL "INTERFACE_LIBRARY")
      set(scope INTERFACE)
    else()
      set(scope PUBLIC)
    endif()
    target_include_directories(${target} ${scope}
      $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
      $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}>
      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/aftershock>)
    add_library(aftershock::${name} ALIAS ${target})
  endif()
  set_property(GLOBAL APPEND PROPERTY AFTERSHOCK_COMPONENTS ${target})
endfunction()
