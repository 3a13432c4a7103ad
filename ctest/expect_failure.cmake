# cmake -D COMMAND="prog;arg..." -D EXPECT_OUTPUT=<regex> -P expect_failure.cmake
# Passes only when COMMAND exits non-zero *and* its output matches EXPECT_OUTPUT (WILL_FAIL alone
# would also pass on a crash for an unrelated reason).
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "expected a non-zero exit, got 0")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT_OUTPUT}")
  message(FATAL_ERROR "exit ${rc}, but the output does not match '${EXPECT_OUTPUT}'")
endif()
message("ok: exit ${rc} and the expected message")
