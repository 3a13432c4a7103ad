#include "framework/upstream_faults/fault_middleware.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <boost/beast/http.hpp>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "framework/upstream_faults/fault_middleware_beast.h"

namespace aftershock::upstream_faults {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

// Sets (or unsets) the enable variable for one test and restores what was there.
class ScopedEnableVariable {
 public:
  explicit ScopedEnableVariable(const char* value) {
    if (const char* old = std::getenv(kChaosEnableVariable)) old_ = old;
    if (value) {
      ::setenv(kChaosEnableVariable, value, 1);
    } else {
      ::unsetenv(kChaosEnableVariable);
    }
  }
  ~ScopedEnableVariable() {
    if (old_) {
      ::setenv(kChaosEnableVariable, old_->c_str(), 1);
    } else {
      ::unsetenv(kChaosEnableVariable);
    }
  }

 private:
  std::optional<std::string> old_;
};

TEST(FaultMiddlewareTest, FromEnvironmentIsOffWithoutTheVariableOrWithZero) {
  {
    ScopedEnableVariable unset(nullptr);
    EXPECT_FALSE(FaultMiddleware::FromEnvironment(FaultMiddleware::SeededRng(1)).enabled());
  }
  {
    ScopedEnableVariable zero("0");
    EXPECT_FALSE(FaultMiddleware::FromEnvironment(FaultMiddleware::SeededRng(1)).enabled());
  }
  ScopedEnableVariable one("1");
  EXPECT_TRUE(FaultMiddleware::FromEnvironment(FaultMiddleware::SeededRng(1)).enabled());
}

TEST(FaultMiddlewareTest, FromEnvironmentRejectsAnyOtherValueNamingTheVariable) {
  for (const char* bad : {"true", "yes", "on", "", "2", " 1"}) {
    ScopedEnableVariable v(bad);
    try {
      FaultMiddleware::FromEnvironment(FaultMiddleware::SeededRng(1));
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_THAT(e.what(), HasSubstr("AFTERSHOCK_CHAOS_ENABLED must be unset, \"0\" or \"1\""));
    }
  }
}

TEST(FaultMiddlewareTest, TheVariableIsReadOnceAtConstruction) {
  ScopedEnableVariable off(nullptr);
  const auto middleware = FaultMiddleware::FromEnvironment(FaultMiddleware::SeededRng(1));
  ::setenv(kChaosEnableVariable, "1", 1);  // switched on later: the running service does not follow
  EXPECT_FALSE(middleware.enabled());
  EXPECT_TRUE(middleware.Decide("fault=upstream_error;code=503").empty());
}

TEST(FaultMiddlewareTest, InertWithoutTheVariableEvenWhenTheHeaderIsPresent) {
  ScopedEnableVariable unset(nullptr);
  const auto middleware = FaultMiddleware::FromEnvironment(FaultMiddleware::SeededRng(7));
  int calls = 0;
  for (const char* header : {"fault=upstream_error;code=503", "fault=upstream_latency;ms=5000",
                             "fault=db_lock;ms=100,fault=cache_poison", "not a spec at all"}) {
    const auto decision = middleware.Decide(header);
    EXPECT_TRUE(decision.empty()) << header;
    EXPECT_FALSE(decision.error) << header;
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(middleware.ApplyUpstream(decision, [&] { return ++calls; }), calls);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  }
  EXPECT_EQ(calls, 4);
}

TEST(FaultMiddlewareTest, ANoHeaderRequestIsUntouchedWhenOn) {
  const FaultMiddleware middleware(true, FaultMiddleware::SeededRng(7));
  EXPECT_TRUE(middleware.Decide("").empty());
}

TEST(FaultMiddlewareTest, AMalformedHeaderIsAnErrorAndFiresNothing) {
  const FaultMiddleware middleware(true, FaultMiddleware::SeededRng(7));
  const auto decision = middleware.Decide("fault=upstream_error;code=200");
  ASSERT_TRUE(decision.error);
  EXPECT_THAT(*decision.error, HasSubstr("X-Chaos-Spec: fault 1: 'code' must be"));
  EXPECT_TRUE(decision.fired.empty());
}

std::vector<std::vector<FaultKind>> Decisions(const FaultMiddleware& m, std::string_view header, int n) {
  std::vector<std::vector<FaultKind>> out;
  for (int i = 0; i < n; ++i) {
    std::vector<FaultKind> kinds;
    for (const auto& f : m.Decide(header).fired) kinds.push_back(f.kind);
    out.push_back(kinds);
  }
  return out;
}

TEST(FaultMiddlewareTest, TheSameSeedGivesTheSameDecisions) {
  constexpr std::string_view kHeader = "fault=upstream_error;code=503;rate=0.5,fault=cache_poison;rate=0.2";
  const FaultMiddleware a(true, FaultMiddleware::SeededRng(42));
  const FaultMiddleware b(true, FaultMiddleware::SeededRng(42));
  const FaultMiddleware c(true, FaultMiddleware::SeededRng(43));
  const auto da = Decisions(a, kHeader, 1000);
  EXPECT_EQ(da, Decisions(b, kHeader, 1000));
  EXPECT_NE(da, Decisions(c, kHeader, 1000));
}

TEST(FaultMiddlewareTest, TheRateIsHonouredWithinTwoPercentagePointsOverTenThousandRequests) {
  const FaultMiddleware middleware(true, FaultMiddleware::SeededRng(2026));
  int fired = 0;
  constexpr int kRequests = 10'000;
  for (int i = 0; i < kRequests; ++i) fired += middleware.Decide("fault=upstream_error;code=503;rate=0.3").empty() ? 0 : 1;
  EXPECT_NEAR(static_cast<double>(fired) / kRequests, 0.3, 0.02);
  EXPECT_EQ(Decisions(middleware, "fault=cache_poison;rate=0", 100), std::vector<std::vector<FaultKind>>(100));
  for (const auto& d : Decisions(middleware, "fault=cache_poison;rate=1", 100)) EXPECT_EQ(d.size(), 1u);
}

TEST(FaultMiddlewareTest, EachFaultIsDrawnIndependently) {
  // Two faults at 0.5: all four combinations appear at about a quarter each.
  const FaultMiddleware middleware(true, FaultMiddleware::SeededRng(5));
  int both = 0, first = 0, second = 0, none = 0;
  constexpr int kRequests = 8'000;
  for (int i = 0; i < kRequests; ++i) {
    const auto d = middleware.Decide("fault=db_lock;ms=5;rate=0.5,fault=cache_poison;rate=0.5");
    const bool a = d.Find(FaultKind::kDbLock) != nullptr;
    const bool b = d.Find(FaultKind::kCachePoison) != nullptr;
    (a && b ? both : a ? first : b ? second : none)++;
  }
  for (const int n : {both, first, second, none}) EXPECT_NEAR(static_cast<double>(n) / kRequests, 0.25, 0.03);
}

TEST(FaultMiddlewareTest, JitterStaysWithinItsBoundsAndVaries) {
  const FaultMiddleware middleware(true, FaultMiddleware::SeededRng(9));
  std::chrono::milliseconds lo{1'000'000}, hi{0};
  for (int i = 0; i < 500; ++i) {
    const auto d = middleware.Decide("fault=upstream_latency;ms=100;jitter_ms=20");
    lo = std::min(lo, d.upstream_delay);
    hi = std::max(hi, d.upstream_delay);
  }
  EXPECT_GE(lo, 80ms);
  EXPECT_LE(hi, 120ms);
  EXPECT_LT(lo, 90ms);
  EXPECT_GT(hi, 110ms);
}

TEST(FaultMiddlewareTest, ApplyUpstreamWaitsTheLatencyThenCalls) {
  const FaultMiddleware middleware(true, FaultMiddleware::SeededRng(1));
  const auto decision = middleware.Decide("fault=upstream_latency;ms=60");
  EXPECT_EQ(decision.upstream_delay, 60ms);
  int calls = 0;
  const auto start = std::chrono::steady_clock::now();
  middleware.ApplyUpstream(decision, [&] { ++calls; });
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(calls, 1);
  EXPECT_GE(took, 60ms);
  EXPECT_LT(took, 5s);  // generous: the machine is shared
}

TEST(FaultMiddlewareTest, ApplyUpstreamThrowsTheErrorWithoutCalling) {
  const FaultMiddleware middleware(true, FaultMiddleware::SeededRng(1));
  int calls = 0;
  try {
    middleware.ApplyUpstream(middleware.Decide("fault=upstream_error;code=503"), [&] { return ++calls; });
    ADD_FAILURE() << "no throw";
  } catch (const UpstreamFaultError& e) {
    EXPECT_EQ(e.code(), 503);
  }
  EXPECT_EQ(calls, 0);
}

TEST(FaultMiddlewareTest, TheServicesOwnFaultsPassThroughApplyUpstream) {
  const FaultMiddleware middleware(true, FaultMiddleware::SeededRng(1));
  const auto decision = middleware.Decide("fault=db_lock;ms=100,fault=upstream_partial;keep=2,fault=clock_skew;skew_s=60");
  EXPECT_EQ(middleware.ApplyUpstream(decision, [] { return 7; }), 7);
  ASSERT_NE(decision.Find(FaultKind::kUpstreamPartial), nullptr);
  EXPECT_EQ(decision.Find(FaultKind::kUpstreamPartial)->keep, 2);
  EXPECT_EQ(decision.Find(FaultKind::kClockSkew)->skew, 60s);
  EXPECT_EQ(decision.Find(FaultKind::kCachePoison), nullptr);
}

TEST(FaultMiddlewareTest, WithoutLatencyDropsOnlyTheLatency) {
  const FaultMiddleware middleware(true, FaultMiddleware::SeededRng(1));
  const auto d = FaultMiddleware::WithoutLatency(middleware.Decide("fault=upstream_latency;ms=5000,fault=cache_poison"));
  EXPECT_EQ(d.upstream_delay, 0ms);
  EXPECT_EQ(d.Find(FaultKind::kUpstreamLatency), nullptr);
  EXPECT_NE(d.Find(FaultKind::kCachePoison), nullptr);
}

TEST(FaultMiddlewareTest, DecideIsSafeFromSeveralThreads) {
  const FaultMiddleware middleware(true, FaultMiddleware::SeededRng(11));
  std::atomic<int> fired{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2'500; ++i) fired += middleware.Decide("fault=cache_poison;rate=0.5").empty() ? 0 : 1;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_NEAR(fired.load() / 10'000.0, 0.5, 0.03);
}

TEST(FaultMiddlewareTest, AnEmptyRngIsRejected) {
  EXPECT_THROW(FaultMiddleware(true, FaultMiddleware::Rng{}), std::invalid_argument);
}

TEST(FaultMiddlewareBeastTest, ReadsTheHeaderFromABeastRequestAndJoinsRepeatedOnes) {
  namespace http = boost::beast::http;
  const FaultMiddleware middleware(true, FaultMiddleware::SeededRng(1));
  http::request<http::string_body> req{http::verb::get, "/search?q=news", 11};
  EXPECT_TRUE(DecideFor(middleware, req).empty());
  req.insert("X-Chaos-Spec", "fault=db_lock;ms=5");
  req.insert("x-chaos-spec", "fault=cache_poison");
  EXPECT_EQ(ChaosHeaderOf(req), "fault=db_lock;ms=5,fault=cache_poison");
  const auto d = DecideFor(middleware, req);
  EXPECT_NE(d.Find(FaultKind::kDbLock), nullptr);
  EXPECT_NE(d.Find(FaultKind::kCachePoison), nullptr);

  const FaultMiddleware off(false, FaultMiddleware::SeededRng(1));
  EXPECT_TRUE(DecideFor(off, req).empty());
}

}  // namespace
}  // namespace aftershock::upstream_faults
