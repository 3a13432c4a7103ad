# aftershock_add_suite(<target> SETS <set>... [CLUSTER] [ARTIFACTS_DIR <dir>])
#
# Registers a suite binary (linked with aftershock_gtest_main) with CTest:
#  - plainly, through gtest_discover_tests: the scenarios show as disabled to IDEs and `ctest -N`,
#    and a plain test run skips them;
#  - once per label set: after every build the binary writes a CTest include file with one test
#    per (set, scenario) it contains, run with --gtest_also_run_disabled_tests, labelled
#    "resilience;<set>", with the scenario's timeout, the set's environment and gtest XML output
#    (see framework/gtest/manifest_ctest_writer.h); the include file below adds the cluster resource lock
#    (AFTERSHOCK_CLUSTER_LOCK, ctest/cluster_lock.cmake). A test-include file is used because
#    gtest_discover_tests(... PROPERTIES LABELS "a;b") silently drops list values.
#  - a guard check per set (label unit): a selection that executes no scenario must exit non-zero.
#  - CLUSTER: every scenario requires the CTest fixture that brings the embedded local cluster up
#    once per ctest run (or attaches to one a developer keeps up) and down at the end.
function(aftershock_add_suite target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "CLUSTER" "ARTIFACTS_DIR" "SETS")
  if(ARG_CLUSTER)
    aftershock_add_cluster_fixture()
  endif()
  if(NOT ARG_ARTIFACTS_DIR)
    set(ARG_ARTIFACTS_DIR "${PROJECT_BINARY_DIR}/artifacts")
  endif()
  gtest_discover_tests(${target} TEST_PREFIX "${target}." DISCOVERY_TIMEOUT 60 PROPERTIES LABELS unit)

  foreach(set IN LISTS ARG_SETS)
    set(manifest "${PROJECT_SOURCE_DIR}/manifests/sets/${set}.yaml")
    set(generated "${CMAKE_CURRENT_BINARY_DIR}/${target}.${set}.ctest.cmake")
    add_custom_command(
      OUTPUT "${generated}"
      COMMAND $<TARGET_FILE:${target}> "--aftershock_list_ctest=${generated}" "--aftershock_set=${set}"
              "--aftershock_manifest=${manifest}" "--aftershock_artifacts_dir=${ARG_ARTIFACTS_DIR}"
      DEPENDS ${target} "${manifest}"
      COMMENT "Registering ${target} scenarios of set ${set}")
    add_custom_target(${target}_${set}_ctest ALL DEPENDS "${generated}")
    set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}.${set}.include.cmake")
    set(requires "FIXTURES_REQUIRED aftershock_cluster ")
    if(NOT ARG_CLUSTER)
      set(requires "")
    endif()
    set(requires "  if(AFTERSHOCK_SCENARIO_TESTS)\n    set_tests_properties(\${AFTERSHOCK_SCENARIO_TESTS} PROPERTIES ${requires}RESOURCE_LOCK ${AFTERSHOCK_CLUSTER_LOCK})\n  endif()\n")
    file(WRITE "${include_file}"
      "set(AFTERSHOCK_SCENARIO_TESTS)\nif(EXISTS \"${generated}\")\n  include(\"${generated}\")\n${requires}else()\n"
      "  add_test(${set}.${target}_NOT_BUILT ${CMAKE_COMMAND} -E echo \"build ${target} first\")\n"
      "  set_tests_properties(${set}.${target}_NOT_BUILT PROPERTIES LABELS \"resilience;${set}\" WILL_FAIL TRUE RESOURCE_LOCK ${AFTERSHOCK_CLUSTER_LOCK})\n"
      "endif()\n")
    set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")

    # The empty-run guard through the same flags as the label-gated registration, minus the
    # also-run flag: the selection matches only disabled scenarios, so nothing executes.
    add_test(NAME ${target}.${set}.empty-selection-fails
             COMMAND ${CMAKE_COMMAND} -D "COMMAND=$<TARGET_FILE:${target}>;--aftershock_set=${set};--aftershock_manifest=${manifest};--gtest_filter=*DISABLED_*"
                     -D "EXPECT_OUTPUT=executed no scenario" -P "${PROJECT_SOURCE_DIR}/ctest/expect_failure.cmake")
    set_tests_properties(${target}.${set}.empty-selection-fails PROPERTIES LABELS unit TIMEOUT 60)
  endforeach()
endfunction()

# The CTest fixture of the embedded local cluster (ctest/cluster_fixture.cmake), registered once.
function(aftershock_add_cluster_fixture)
  get_property(done GLOBAL PROPERTY AFTERSHOCK_CLUSTER_FIXTURE)
  if(done)
    return()
  endif()
  set_property(GLOBAL PROPERTY AFTERSHOCK_CLUSTER_FIXTURE ON)
  set(marker "${PROJECT_BINARY_DIR}/aftershock-cluster.ctest-marker")
  foreach(action up down)
    add_test(NAME aftershock_cluster.${action}
             COMMAND ${CMAKE_COMMAND} -D "CLI=$<TARGET_FILE:aftershock-cluster>" -D ACTION=${action}
                     -D "MARKER=${marker}" -P "${PROJECT_SOURCE_DIR}/ctest/cluster_fixture.cmake")
  endforeach()
  set_tests_properties(aftershock_cluster.up PROPERTIES FIXTURES_SETUP aftershock_cluster LABELS resilience
                       TIMEOUT 300 RESOURCE_LOCK ${AFTERSHOCK_CLUSTER_LOCK})
  set_tests_properties(aftershock_cluster.down PROPERTIES FIXTURES_CLEANUP aftershock_cluster LABELS resilience
                       TIMEOUT 120 RESOURCE_LOCK ${AFTERSHOCK_CLUSTER_LOCK})
endfunction()
