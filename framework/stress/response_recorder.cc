#include "framework/stress/response_recorder.h"

#include <algorithm>
#include <stdexcept>

#include "framework/load/http_client.h"
#include "framework/stress/internal/format.h"

namespace aftershock::stress {
namespace {

static_assert(sizeof(CallRecord) <= 40, "the recorder's memory bound is documented as 40 bytes a call");

std::string_view Trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string CallLog::IncompleteReason(std::int64_t end_ns, bool by_completion) const {
  if (CompleteBefore(end_ns, by_completion)) return "";
  return "the recorder kept " + std::to_string(records.size()) + " calls (max_records " + std::to_string(max_records) +
         ") and dropped " + std::to_string(dropped) + " from " +
         internal::SecondsText(by_completion ? first_dropped_completed_ns : first_dropped_intended_ns) +
         " on, inside the window judged; raise max_records";
}

ResponseRecorder::ResponseRecorder(RunClock clock, ResponseRecorderOptions options)
    : clock_(clock), options_(std::move(options)) {
  if (options_.max_records < 1) throw std::invalid_argument("ResponseRecorder: max_records must be >= 1");
  if (options_.contract.shed_statuses.empty()) {
    throw std::invalid_argument("ResponseRecorder: the shed contract has no shed status");
  }
  for (int status : options_.contract.shed_statuses) {
    if (status < 100 || status > 599) {
      throw std::invalid_argument("ResponseRecorder: shed status " + std::to_string(status) + " is not an HTTP status");
    }
  }
  for (const RequiredHeader& header : options_.contract.required_headers) {
    if (header.name.empty()) throw std::invalid_argument("ResponseRecorder: a required header has no name");
  }
}

void ResponseRecorder::Record(const CallObservation& call) {
  CallRecord r;
  r.intended_ns = clock_.Since(call.intended).count();
  r.completed_ns = clock_.Since(call.completed).count();
  r.sent_ns = call.sent_at ? clock_.Since(*call.sent_at).count() : -1;
  r.code = call.code;
  r.status = static_cast<std::int16_t>(std::clamp(call.status, 0, 999));
  r.ok = call.ok;
  const ShedContract& contract = options_.contract;
  r.shed = call.status != 0 && contract.shed_statuses.count(call.status) > 0;
  if (r.shed) {
    r.headers_ok = std::all_of(contract.required_headers.begin(), contract.required_headers.end(),
                               [&](const RequiredHeader& h) {
                                 const std::string* value = load::FindHttpHeader(call.headers, h.name);
                                 return value != nullptr && (h.value.empty() || Trimmed(*value) == Trimmed(h.value));
                               });
    r.body_ok = contract.required_body.empty() || call.body.find(contract.required_body) != std::string_view::npos;
  }
  std::lock_guard<std::mutex> lock(mu_);
  max_latency_ns_ = std::max(max_latency_ns_, r.latency_ns());
  if (records_.size() >= options_.max_records) {
    ++dropped_;
    first_dropped_intended_ns_ = std::min(first_dropped_intended_ns_, r.intended_ns);
    first_dropped_completed_ns_ = std::min(first_dropped_completed_ns_, r.completed_ns);
    return;
  }
  records_.push_back(r);
}

void ResponseRecorder::Record(const load::HttpCallResult& call, const load::FinalOutcome& outcome) {
  Record(CallObservation{.intended = outcome.intended,
                         .completed = outcome.completed,
                         .sent_at = call.sent_at,
                         .code = outcome.code,
                         .ok = outcome.ok,
                         .status = call.status,
                         .headers = call.headers,
                         .body = call.body});
}

std::vector<std::string> ResponseRecorder::HeaderNames() const {
  std::vector<std::string> names;
  for (const RequiredHeader& h : options_.contract.required_headers) names.push_back(h.name);
  return names;
}

CallLog ResponseRecorder::Log() const {
  CallLog log;
  log.contract = options_.contract;
  log.max_records = options_.max_records;
  std::lock_guard<std::mutex> lock(mu_);
  log.records.assign(records_.begin(), records_.end());
  log.dropped = dropped_;
  log.first_dropped_intended_ns = first_dropped_intended_ns_;
  log.first_dropped_completed_ns = first_dropped_completed_ns_;
  log.max_latency_ns = max_latency_ns_;
  return log;
}

std::uint64_t ResponseRecorder::calls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return records_.size() + dropped_;
}

}  // namespace aftershock::stress
