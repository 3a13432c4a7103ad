# check_cluster_lock.cmake test data: a scenario, a cluster test and an alert-stack test without the
# lock, and a scenario on one lane only (all four must be named), beside tests that are fine (among
# them a cluster test on the second lane).
add_test(pr.no-lock /bin/true)
set_tests_properties(pr.no-lock PROPERTIES LABELS "resilience;pr")
add_test(pr.locked /bin/true)
set_tests_properties(pr.locked PROPERTIES LABELS "resilience;pr" RESOURCE_LOCK "aftershock-cluster;aftershock-cluster-2")
add_test(pr.one-lane /bin/true)
set_tests_properties(pr.one-lane PROPERTIES LABELS "resilience;pr" RESOURCE_LOCK aftershock-cluster)
add_test(second_lane_cluster_test /bin/true)
set_tests_properties(second_lane_cluster_test PROPERTIES LABELS cluster RESOURCE_LOCK aftershock-cluster-2)
add_test(other_cluster_test /bin/true)
set_tests_properties(other_cluster_test PROPERTIES LABELS cluster RESOURCE_LOCK aftershock_local_cluster)
add_test(alerting.AlertingStackIntegration.Chain /bin/true)
set_tests_properties(alerting.AlertingStackIntegration.Chain PROPERTIES LABELS integration)
add_test(plain_unit_test /bin/true)
set_tests_properties(plain_unit_test PROPERTIES LABELS unit)
