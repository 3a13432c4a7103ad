# CTest fixture for scenario sets that run on the embedded local cluster.
#   cmake -D CLI=<aftershock-cluster> -D ACTION=up|down -D MARKER=<file> [-D STATE=<state file>]
#         -P cluster_fixture.cmake
#
# The cluster's state: $AFTERSHOCK_CLUSTER_STATE when set (a developer attaching explicitly), else
# STATE (the build tree's own: two build trees never share a cluster), else the CLI's default.
# up:   attaches to a cluster that is already up on that state (one a developer keeps up with
#       `aftershock-cluster up --state=...`) or brings one up, watching the ctest process so an
#       interrupted run leaves nothing behind; the marker file records which, so `down` only stops
#       what this run started. A second `up` on a locked state fails, naming the lock's holder.
# down: stops the cluster when this run started it.
set(state_args "")
if(DEFINED ENV{AFTERSHOCK_CLUSTER_STATE} AND NOT "$ENV{AFTERSHOCK_CLUSTER_STATE}" STREQUAL "")
  set(state_args "--state=$ENV{AFTERSHOCK_CLUSTER_STATE}")
elseif(DEFINED STATE AND NOT STATE STREQUAL "")
  set(state_args "--state=${STATE}")
endif()
if(ACTION STREQUAL "up")
  execute_process(COMMAND "${CLI}" status ${state_args} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    file(WRITE "${MARKER}" "attached\n")
    message("aftershock-cluster: attached to the running cluster (${state_args})")
    return()
  endif()
  # This script's parent is ctest: field 4 of /proc/self/stat is the parent's pid.
  file(READ "/proc/self/stat" stat)
  string(REGEX REPLACE "^[0-9]+ \\([^)]*\\) . ([0-9]+) .*" "\\1" ctest_pid "${stat}")
  execute_process(COMMAND "${CLI}" up ${state_args} --lease-minutes=120 "--watch-pid=${ctest_pid}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "aftershock-cluster up failed (exit ${rc})")
  endif()
  file(WRITE "${MARKER}" "started\n")
elseif(ACTION STREQUAL "down")
  if(NOT EXISTS "${MARKER}")
    return()
  endif()
  file(READ "${MARKER}" how)
  file(REMOVE "${MARKER}")
  if(how MATCHES "started")
    execute_process(COMMAND "${CLI}" down ${state_args} RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "aftershock-cluster down failed (exit ${rc})")
    endif()
  endif()
else()
  message(FATAL_ERROR "ACTION must be up or down")
endif()
