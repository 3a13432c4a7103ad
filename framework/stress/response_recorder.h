// ResponseRecorder: what every call of a stress run got back, cheaply and thread-safely, for the
// stress gates (stress_gates.h), the recovery clock (recovery_clock.h) and their examples.
//
// Fed from the workload's final outcome (HttpWorkload's on_final, or Record(CallObservation) for any
// other transport). Per call it keeps one 40-byte CallRecord: when it was intended, completed and
// written (so latency from the intended time and from the actual send), its final code and HTTP
// status, whether it succeeded, and whether it was a *shed* response (status in the contract's set,
// default {429, 503}) carrying the required header fields (default `Retry-After`, optionally with a
// required value) and the required diagnostic in its body (off unless set, e.g.
// "ERR_GATEWAY_OVERLOAD_SHEDDING"). The checks run before the lock; the lock only appends.
//
//   ResponseRecorder recorder(clock, {.contract = {.required_body = "ERR_GATEWAY_OVERLOAD_SHEDDING"}});
//   HttpWorkload workload({.target = gateway, .path = "/pay", .keep_headers = recorder.HeaderNames(),
//                          .on_final = [&](const HttpCallResult& c, const FinalOutcome& o) { recorder.Record(c, o); }});
//   ... run ...
//   CallLog log = recorder.Log();   // the records, for the gates
//
// Memory is bounded: at most max_records records (default 2,000,000: 80 MB; 11 minutes at 3,000/s),
// kept in completion order. Past the bound calls are counted (CallLog::dropped) with the earliest
// intended and completed time among them, so a gate can tell whether its window is complete
// (CallLog::CompleteBefore) instead of judging a part as the whole. The largest latency is kept over
// every call, dropped or not.
#ifndef AFTERSHOCK_FRAMEWORK_STRESS_RESPONSE_RECORDER_H_
#define AFTERSHOCK_FRAMEWORK_STRESS_RESPONSE_RECORDER_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "framework/common/call_code.h"
#include "framework/common/run_clock.h"
#include "framework/load/http_workload.h"

namespace aftershock::stress {

struct RequiredHeader {
  std::string name{};    // matched ASCII case-insensitively
  std::string value{};  // empty: any value; otherwise the value must equal it (surrounding spaces ignored)
};

// What a shed response must look like.
struct ShedContract {
  std::set<int> shed_statuses = {429, 503};
  std::vector<RequiredHeader> required_headers = {{"Retry-After"}};
  std::string required_body{};  // a substring every shed body must contain; empty: the body is not checked
};

struct ResponseRecorderOptions {
  ShedContract contract{};
  std::size_t max_records = 2'000'000;  // >= 1
};

struct CallRecord {
  std::int64_t intended_ns = 0;   // since the run's start
  std::int64_t completed_ns = 0;
  std::int64_t sent_ns = -1;      // when the (last attempt's) request was written; -1: never written
  CallCode code = kCodeOk;        // the final call code
  std::int16_t status = 0;        // HTTP status; 0: no response
  bool ok = false;
  bool shed = false;              // a response with a status in the contract's set
  bool headers_ok = false;        // shed only: every required header present (with its value)
  bool body_ok = false;           // shed only: the body has the diagnostic (true when not checked)

  std::int64_t latency_ns() const { return completed_ns - intended_ns; }
  // From the actual send; -1 when the request was never written.
  std::int64_t sent_latency_ns() const { return sent_ns < 0 ? -1 : completed_ns - sent_ns; }
};

// A snapshot of a recorder: its records and what it had to leave out.
struct CallLog {
  std::vector<CallRecord> records{};  // completion order
  ShedContract contract{};
  std::size_t max_records = 0;
  std::uint64_t dropped = 0;        // calls past max_records, not in `records`
  std::int64_t first_dropped_intended_ns = std::numeric_limits<std::int64_t>::max();
  std::int64_t first_dropped_completed_ns = std::numeric_limits<std::int64_t>::max();
  std::int64_t max_latency_ns = 0;  // over every call, dropped included

  // True when every call intended (by_completion: completed) before `end_ns` is in `records`.
  bool CompleteBefore(std::int64_t end_ns, bool by_completion = false) const {
    return dropped == 0 || end_ns <= (by_completion ? first_dropped_completed_ns : first_dropped_intended_ns);
  }
  // "" when complete before end_ns, else why not (for a gate's message).
  std::string IncompleteReason(std::int64_t end_ns, bool by_completion = false) const;
};

// One call's outcome for Record, from any transport.
struct CallObservation {
  Clock::time_point intended;
  Clock::time_point completed;
  std::optional<Clock::time_point> sent_at{};
  CallCode code = kCodeOk;
  bool ok = false;
  int status = 0;  // 0: no response (or not an HTTP transport)
  std::span<const std::pair<std::string, std::string>> headers{};
  std::string_view body{};
};

class ResponseRecorder {
 public:
  // Throws std::invalid_argument for max_records 0, an empty header name or an empty shed status set.
  ResponseRecorder(RunClock clock, ResponseRecorderOptions options = {});

  void Record(const CallObservation& call);
  void Record(const load::HttpCallResult& call, const load::FinalOutcome& outcome);

  // The contract's header names, for HttpWorkloadOptions::keep_headers.
  std::vector<std::string> HeaderNames() const;
  // A copy of everything recorded so far (call it after the run).
  CallLog Log() const;
  std::uint64_t calls() const;  // recorded + dropped

 private:
  const RunClock clock_;
  const ResponseRecorderOptions options_;
  mutable std::mutex mu_;
  std::deque<CallRecord> records_{};  // a deque: growing never copies what is already kept
  std::uint64_t dropped_ = 0;
  std::int64_t first_dropped_intended_ns_ = std::numeric_limits<std::int64_t>::max();
  std::int64_t first_dropped_completed_ns_ = std::numeric_limits<std::int64_t>::max();
  std::int64_t max_latency_ns_ = 0;
};

}  // namespace aftershock::stress

#endif  // AFTERSHOCK_FRAMEWORK_STRESS_RESPONSE_RECORDER_H_
