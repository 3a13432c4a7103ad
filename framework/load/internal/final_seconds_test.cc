#include "framework/load/internal/final_seconds.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace aftershock::load::internal {
namespace {

// Collects the seconds reported final, in order.
struct Finals {
  std::vector<std::int64_t> seconds;
  auto Sink() {
    return [this](std::int64_t s) { seconds.push_back(s); };
  }
};

using Seconds = std::vector<std::int64_t>;

TEST(FinalSecondsTest, ASecondWithNothingInFlightIsFinalOnceTheDispatcherPassesIt) {
  FinalSeconds f;
  Finals finals;
  f.ArrivalHandled(0, finals.Sink());
  f.CallIssued(0);
  f.CallFinished(0, finals.Sink());
  EXPECT_EQ(finals.seconds, Seconds{}) << "the dispatcher may still handle arrivals of second 0";
  f.ArrivalHandled(0, finals.Sink());  // another (shed) arrival of second 0
  EXPECT_EQ(finals.seconds, Seconds{});
  f.ArrivalHandled(1, finals.Sink());
  EXPECT_EQ(finals.seconds, Seconds{0});
  f.DispatchEnded(finals.Sink());
  EXPECT_EQ(finals.seconds, (Seconds{0, 1}));
  f.DispatchEnded(finals.Sink());  // idempotent
  EXPECT_EQ(finals.seconds, (Seconds{0, 1}));
}

TEST(FinalSecondsTest, ASecondIsNeverFinalWhileOneOfItsCallsIsInFlight) {
  FinalSeconds f;
  Finals finals;
  f.ArrivalHandled(0, finals.Sink());
  f.CallIssued(0);
  f.CallIssued(0);
  f.ArrivalHandled(1, finals.Sink());
  f.CallIssued(1);
  f.ArrivalHandled(5, finals.Sink());  // a gap: seconds 2-4 had no arrivals
  f.CallIssued(5);
  f.DispatchEnded(finals.Sink());
  EXPECT_EQ(finals.seconds, Seconds{}) << "every second still has a call in flight";
  f.CallFinished(0, finals.Sink());
  EXPECT_EQ(finals.seconds, Seconds{}) << "second 0 has a second call in flight (e.g. a straggler long past its deadline)";
  f.CallFinished(5, finals.Sink());
  f.CallFinished(1, finals.Sink());
  EXPECT_EQ(finals.seconds, (Seconds{5, 1}));
  f.CallFinished(0, finals.Sink());
  EXPECT_EQ(finals.seconds, (Seconds{5, 1, 0}));
  EXPECT_EQ(f.seconds_in_flight(), 0u);
}

TEST(FinalSecondsTest, AnOutOfOrderArrivalMakesItsSecondFinalAgainOnceQuiet) {
  FinalSeconds f;
  Finals finals;
  f.ArrivalHandled(0, finals.Sink());
  f.ArrivalHandled(1, finals.Sink());
  ASSERT_EQ(finals.seconds, Seconds{0});
  f.ArrivalHandled(0, finals.Sink());  // not in schedule order: second 0 is written again
  f.CallIssued(0);
  f.CallFinished(0, finals.Sink());
  EXPECT_EQ(finals.seconds, (Seconds{0, 0}));
}

TEST(FinalSecondsTest, NothingHandledNothingFinal) {
  FinalSeconds f;
  Finals finals;
  f.DispatchEnded(finals.Sink());
  EXPECT_EQ(finals.seconds, Seconds{});
}

TEST(FinalSecondsTest, AFinishWithoutAnIssueIsALogicError) {
  FinalSeconds f;
  Finals finals;
  EXPECT_THROW(f.CallFinished(3, finals.Sink()), std::logic_error);
}

}  // namespace
}  // namespace aftershock::load::internal
