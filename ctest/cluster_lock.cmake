# The one CTest resource lock of everything that starts the embedded local cluster (aftershock-cluster,
# PatroniCluster) or a Prometheus + Alertmanager stack: scenario tests, the cluster fixtures, cluster
# integration tests. `ctest -j2` then never runs two of them side by side (ports, CPU, the shared state).
#
#   set_tests_properties(my_cluster_test PROPERTIES LABELS cluster RESOURCE_LOCK ${AFTERSHOCK_CLUSTER_LOCK})
#   gtest_discover_tests(x PROPERTIES LABELS cluster RESOURCE_LOCK ${AFTERSHOCK_CLUSTER_LOCK})
#
# aftershock_add_cluster_lock_check() registers the test that fails when a test labelled cluster or
# resilience, or one named by AFTERSHOCK_CLUSTER_LOCK_NAMES, holds neither lane's lock, or a scenario
# (label resilience) does not hold both (ctest/check_cluster_lock.cmake).
# Cache entries, so a project that add_subdirectory()s aftershock sees them too.
set(AFTERSHOCK_CLUSTER_LOCK aftershock-cluster CACHE INTERNAL "the CTest resource lock of cluster tests")
# Two lanes: a test that only brings up a cluster (or stack) of its own to check what it does, and
# judges no timing against a budget, may hold the second lane's lock instead, so two of those run side
# by side (each on its own ports and state; a cluster is mostly waiting). Scenarios, the cluster
# fixture and anything that judges timing hold both (AFTERSHOCK_CLUSTER_EXCLUSIVE_LOCKS): nothing of
# the cluster kind runs beside them.
#
#   set_tests_properties(my_cli_test PROPERTIES LABELS cluster RESOURCE_LOCK ${AFTERSHOCK_CLUSTER_SECOND_LOCK})
#   set_tests_properties(my_timed_test PROPERTIES RESOURCE_LOCK "${AFTERSHOCK_CLUSTER_EXCLUSIVE_LOCKS}")
set(AFTERSHOCK_CLUSTER_SECOND_LOCK aftershock-cluster-2 CACHE INTERNAL "the second lane of cluster tests")
set(AFTERSHOCK_CLUSTER_EXCLUSIVE_LOCKS "aftershock-cluster;aftershock-cluster-2" CACHE INTERNAL
    "both lanes: scenarios and the cluster fixture")
# Tests that start a Prometheus + Alertmanager stack without the cluster label (a regex on test names).
set(AFTERSHOCK_CLUSTER_LOCK_NAMES "^alerting\\.AlertingStackIntegration\\." CACHE INTERNAL "")

# Under a sanitizer every process runs several times slower. A test that starts processes of its own
# (a gRPC server, load workers) and bounds a time then misses its bound beside a cluster bring-up on a
# 2-core machine (docs/sanitizers.md), so in a sanitizer build it takes the cluster's lock too; a plain
# build runs it beside everything, as before. Empty, or `RESOURCE_LOCK <lock>` for a PROPERTIES list:
#
#   gtest_discover_tests(x PROPERTIES LABELS integration ${AFTERSHOCK_TIMED_TEST_LOCK})
set(AFTERSHOCK_TIMED_TEST_LOCK "")
if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=")
  set(AFTERSHOCK_TIMED_TEST_LOCK RESOURCE_LOCK ${AFTERSHOCK_CLUSTER_LOCK})
endif()

function(aftershock_add_cluster_lock_check)
  set(check "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/check_cluster_lock.cmake")
  add_test(NAME ctest.cluster-lock-on-every-cluster-test
    COMMAND ${CMAKE_COMMAND} -D "BUILD_DIR=${PROJECT_BINARY_DIR}" -D "LOCK=${AFTERSHOCK_CLUSTER_LOCK}"
            -D "SECOND_LOCK=${AFTERSHOCK_CLUSTER_SECOND_LOCK}"
            -D "NAMES=${AFTERSHOCK_CLUSTER_LOCK_NAMES}" -D REQUIRE_SCENARIOS=ON -P "${check}")
  # The check itself goes red on a test tree where a cluster test, a scenario and a named test lack it
  # (copied into the build tree: ctest writes Testing/ beside the CTestTestfile it reads).
  set(testdata "${PROJECT_BINARY_DIR}/ctest-testdata/missing-lock")
  configure_file("${PROJECT_SOURCE_DIR}/ctest/testdata/missing-lock/CTestTestfile.cmake" "${testdata}/CTestTestfile.cmake"
                 COPYONLY)
  add_test(NAME ctest.cluster-lock-check-rejects-a-missing-lock
    COMMAND ${CMAKE_COMMAND}
      -D "COMMAND=${CMAKE_COMMAND};-D;BUILD_DIR=${testdata};-D;LOCK=${AFTERSHOCK_CLUSTER_LOCK};-D;SECOND_LOCK=${AFTERSHOCK_CLUSTER_SECOND_LOCK};-D;NAMES=${AFTERSHOCK_CLUSTER_LOCK_NAMES};-P;${check}"
      -D "EXPECT_OUTPUT=4 test\\(s\\) lack RESOURCE_LOCK aftershock-cluster:.*pr\\.no-lock .*pr\\.one-lane .*other_cluster_test .*alerting\\.AlertingStackIntegration\\.Chain "
      -P "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/expect_failure.cmake")
  set_tests_properties(ctest.cluster-lock-on-every-cluster-test ctest.cluster-lock-check-rejects-a-missing-lock
    PROPERTIES LABELS unit TIMEOUT 120)
endfunction()
