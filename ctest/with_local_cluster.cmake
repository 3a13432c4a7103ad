# Runs a test binary against a private embedded local cluster that lives exactly as long as this one
# CTest test: up, the binary, down (also when the binary fails). A CTest fixture would keep the
# cluster up between its tests, and `ctest -j2` could then run another cluster test (holding the same
# RESOURCE_LOCK only for itself) beside it: two clusters side by side. Inside one test the lock covers
# the cluster's whole life.
#
#   cmake -D CLI=<aftershock-cluster> -D STATE=<state file> -D TEST=<binary> [-D "ARGS=a;b"]
#         -P with_local_cluster.cmake
foreach(v CLI STATE TEST)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "with_local_cluster.cmake: -D ${v}=... is required")
  endif()
endforeach()
set(ENV{AFTERSHOCK_CLUSTER_STATE} "${STATE}")
# This script's parent is ctest: field 4 of /proc/self/stat is the parent's pid. Watching it, the
# supervisor stops by itself when the ctest run goes away (a timeout kill of this script included).
file(READ "/proc/self/stat" stat)
string(REGEX REPLACE "^[0-9]+ \\([^)]*\\) . ([0-9]+) .*" "\\1" ctest_pid "${stat}")
execute_process(COMMAND "${CLI}" up "--state=${STATE}" --lease-minutes=15 "--watch-pid=${ctest_pid}" RESULT_VARIABLE up_rc)
if(NOT up_rc EQUAL 0)
  execute_process(COMMAND "${CLI}" down "--state=${STATE}")
  message(FATAL_ERROR "aftershock-cluster up failed (exit ${up_rc})")
endif()
execute_process(COMMAND "${TEST}" ${ARGS} RESULT_VARIABLE test_rc)
execute_process(COMMAND "${CLI}" down "--state=${STATE}" RESULT_VARIABLE down_rc)
if(NOT test_rc EQUAL 0)
  message(FATAL_ERROR "${TEST} failed (exit ${test_rc})")
endif()
if(NOT down_rc EQUAL 0)
  message(FATAL_ERROR "aftershock-cluster down failed (exit ${down_rc})")
endif()
