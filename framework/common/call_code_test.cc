#include "framework/common/call_code.h"

#include <gtest/gtest.h>

namespace aftershock {
namespace {

TEST(CallCodeTest, NamesRoundTrip) {
  for (CallCode code : {kCodeOk, kCodeUnavailable, kCodeShed, kCodeTransportError, kCodeContractViolation,
                        kCodeGeneratorPoolTimeout, kCodeGeneratorPoolWaitDeadline, kCodeNotSent, CallCode{503}}) {
    EXPECT_EQ(ParseCallCode(CallCodeName(code)), code) << CallCodeName(code);
  }
  EXPECT_EQ(CallCodeName(kCodeNotSent), "NOT_SENT");
  EXPECT_EQ(ParseCallCode("HTTP_700"), std::nullopt);
}

// fuzz/corpus/ledger_file/crash-code-55: a ledger row with code "55" parsed, but its formatted form
// ("CODE_55") did not.
TEST(CallCodeTest, CodesWithoutANameRoundTrip) {
  for (CallCode code : {CallCode{55}, CallCode{17}, CallCode{600}, CallCode{-7}}) {
    EXPECT_EQ(ParseCallCode(CallCodeName(code)), code) << CallCodeName(code);
  }
  EXPECT_EQ(ParseCallCode("CODE_"), std::nullopt);
  EXPECT_EQ(ParseCallCode("CODE_x"), std::nullopt);
}

TEST(CallCodeTest, ClientFailuresSayWhetherTheRequestLeft) {
  EXPECT_EQ(ClientFailureCode(ClientFailure::kBeforeSend), kCodeNotSent);
  EXPECT_EQ(ClientFailureCode(ClientFailure::kAfterSend), kCodeTransportError);
  EXPECT_EQ(ClientFailureCode(ClientFailure::kTimedOut), kCodeDeadlineExceeded);
}

TEST(CallCodeTest, PostgresErrorsMapByWhetherTheStatementMayHaveRun) {
  EXPECT_EQ(PostgresErrorCode("40001", true), 10);  // serialization failure: rolled back
  EXPECT_EQ(PostgresErrorCode("40P01", true), 10);
  EXPECT_EQ(PostgresErrorCode("57014", true), kCodeDeadlineExceeded);
  EXPECT_EQ(PostgresErrorCode("25006", true), 9);
  EXPECT_EQ(PostgresErrorCode("53300", false), 8);
  EXPECT_EQ(PostgresErrorCode("23505", true), 6);
  EXPECT_EQ(PostgresErrorCode("08006", false), kCodeNotSent);
  EXPECT_EQ(PostgresErrorCode("08006", true), kCodeTransportError);  // a lost COMMIT answer
  EXPECT_EQ(PostgresErrorCode("57P01", true), kCodeTransportError);
  EXPECT_EQ(PostgresErrorCode("22P02", true), kCodeInternal);
}

}  // namespace
}  // namespace aftershock
