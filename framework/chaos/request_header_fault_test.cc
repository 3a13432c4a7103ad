// RequestHeaderFault: the header is on the driver's requests exactly while the fault is applied,
// through the scheduler as through RAII, and the fault says honestly what it can prove.
#include "framework/chaos/request_header_fault.h"

#include <gtest/gtest.h>

#include <chrono>

namespace aftershock::chaos {
namespace {

TEST(RequestHeaderFaultTest, TheHeaderIsSetExactlyWhileApplied) {
  auto header = std::make_shared<RequestHeader>("X-Chaos-Spec");
  RequestHeaderFault fault("upstream-dead", header, "fault=upstream_error;code=503");
  EXPECT_EQ(fault.detail(), "X-Chaos-Spec: fault=upstream_error;code=503");
  EXPECT_FALSE(header->Value());
  {
    ScopedFault applied(fault);
    EXPECT_EQ(header->Value(), "fault=upstream_error;code=503");
  }
  EXPECT_FALSE(header->Value());
  EXPECT_EQ(fault.ConfirmReverted(Clock::now()).status, Confirmation::Status::kConfirmed);
}

TEST(RequestHeaderFaultTest, WithoutAConfirmItSaysWhyItCannotProveTheEffect) {
  auto header = std::make_shared<RequestHeader>("X-Chaos-Spec");
  RequestHeaderFault fault("f", header, "fault=db_lock;ms=100");
  fault.Apply();
  const Confirmation c = fault.ConfirmApplied(Clock::now());
  EXPECT_EQ(c.status, Confirmation::Status::kNotConfirmable);
  EXPECT_NE(c.detail.find("only the service can tell"), std::string::npos);
  EXPECT_EQ(fault.ConfirmReverted(Clock::now()).status, Confirmation::Status::kNotConfirmed);  // still applied
  fault.Revert();
}

TEST(RequestHeaderFaultTest, AGivenConfirmIsAsked) {
  auto header = std::make_shared<RequestHeader>("X-Chaos-Spec");
  RequestHeaderFault fault("f", header, "fault=db_lock;ms=100",
                           {.confirm = [](Clock::time_point) { return Confirmation::NotConfirmed("never fired"); }});
  EXPECT_EQ(fault.ConfirmApplied(Clock::now()).detail, "never fired");
}

TEST(RequestHeaderFaultTest, BadArgumentsAreRefused) {
  auto header = std::make_shared<RequestHeader>("X-Chaos-Spec");
  EXPECT_THROW(RequestHeader(""), std::invalid_argument);
  EXPECT_THROW(RequestHeaderFault("", header, "v"), std::invalid_argument);
  EXPECT_THROW(RequestHeaderFault("f", nullptr, "v"), std::invalid_argument);
  EXPECT_THROW(RequestHeaderFault("f", header, ""), std::invalid_argument);
}

}  // namespace
}  // namespace aftershock::chaos
