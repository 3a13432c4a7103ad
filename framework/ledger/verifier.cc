#include "framework/ledger/verifier.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <optional>
#include <system_error>
#include <thread>

namespace aftershock::ledger {
namespace {

constexpr std::size_t kMaxErrorSamples = 10;
constexpr int kMaxTries = 20;
// The verifier threw: not a call code of any transport.
constexpr CallCode kCodeException = -1000;
// The verifier's check decided no property at all (every one kNotChecked).
constexpr CallCode kCodeNothingChecked = -1001;

bool NothingChecked(const PromiseCheck& c) {
  return c.lookup == PromiseCheck::Lookup::kNotChecked && c.stability == PromiseCheck::Stability::kNotChecked &&
         c.read_back == PromiseCheck::ReadBack::kNotChecked;
}

bool Undecided(const PromiseCheck& c) {
  return c.lookup == PromiseCheck::Lookup::kError || c.stability == PromiseCheck::Stability::kError ||
         c.read_back == PromiseCheck::ReadBack::kError || NothingChecked(c);
}

bool Retryable(const PromiseCheck& c, const VerifyOptions& options) {
  return std::find(options.retry_codes.begin(), options.retry_codes.end(), c.error_code) != options.retry_codes.end();
}

PromiseCheck CheckOnce(PromiseVerifier& verifier, const Promise& promise,
                       std::chrono::system_clock::time_point deadline) {
  try {
    return verifier.Check(promise, deadline);
  } catch (const std::exception& e) {
    PromiseCheck check;
    check.error = std::string("exception: ") + e.what();
    check.error_code = kCodeException;
    return check;
  } catch (...) {
    PromiseCheck check;
    check.error = "unknown exception";
    check.error_code = kCodeException;
    return check;
  }
}

std::string UndecidedCodeName(CallCode code) {
  if (code == kCodeException) return "exception";
  if (code == kCodeNothingChecked) return "nothing checked";
  return CallCodeName(code);
}

struct CheckOutcome {
  bool started = false;
  PromiseCheck check;
};

struct ProbeOutcome {
  bool started = false;
  IndeterminateCheck::Result result = IndeterminateCheck::kUnknown;
};

}  // namespace

PromiseVerifier::~PromiseVerifier() = default;

IndeterminateCheck PromiseVerifier::Probe(const IndeterminatePromise&, std::chrono::system_clock::time_point) {
  return {IndeterminateCheck::kUnknown};
}

std::string_view PropertyName(Violation::Property property) {
  return property == Violation::Property::kP2Stability ? "P2" : "P3";
}

std::string_view KindName(Violation::Kind kind) {
  switch (kind) {
    case Violation::Kind::kChanged: return "changed";
    case Violation::Kind::kNotFound: return "NotFound";
    case Violation::Kind::kWrongKey: return "wrong key";
    case Violation::Kind::kWrongValue: return "wrong value";
  }
  return "?";
}

namespace {

// " (shard=2, node=a)" or "".
std::string AttributesSuffix(const PromiseAttributes& attributes) {
  if (attributes.empty()) return "";
  std::string out = " (";
  for (const auto& [name, value] : attributes) out += (out.size() > 2 ? ", " : "") + name + "=" + value;
  return out + ")";
}

std::string DescribeWithoutAttributes(const Violation& v) {
  if (v.promise_kind == PromiseKind::kWritten && v.property == Violation::Property::kP3ReverseLookup) {
    if (v.kind == Violation::Kind::kNotFound) return "P3 read-back NotFound: key '" + v.key + "' expected '" + v.expected + "'";
    return "P3 read-back: key '" + v.key + "' expected '" + v.expected + "' observed '" + v.observed + "'";
  }
  std::string out = std::string(PropertyName(v.property)) + " " + std::string(KindName(v.kind)) + ": key '" + v.key +
                    "' value '" + v.value + "'";
  if (v.kind != Violation::Kind::kNotFound) out += " expected '" + v.expected + "' observed '" + v.observed + "'";
  return out;
}

}  // namespace

std::string DescribeViolation(const Violation& v) { return DescribeWithoutAttributes(v) + AttributesSuffix(v.attributes); }

VerificationReport VerifyLedger(const std::vector<Promise>& recorded,
                                const std::vector<IndeterminatePromise>& indeterminate,
                                PromiseVerifier& verifier, VerifyOptions options) {
  // A key's last acknowledged value is its promise; the values it replaced are superseded.
  const LatestPromises latest = LatestPerKey(recorded);
  const std::vector<Promise>& sample = latest.promises;
  const std::size_t n = sample.size();
  const std::size_t total = n + indeterminate.size();
  std::vector<CheckOutcome> checks(n);
  std::vector<ProbeOutcome> probes(indeterminate.size());
  const auto overall_end = std::chrono::steady_clock::now() + options.overall_deadline;
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> retries{0};

  auto work = [&] {
    // Bounded: each pass claims one of `total` items or leaves.
    while (std::chrono::steady_clock::now() < overall_end) {
      const std::size_t i = next.fetch_add(1);
      if (i >= total) return;
      const auto deadline = std::chrono::system_clock::now() + options.call_deadline;
      if (i < n) {
        CheckOutcome& out = checks[i];
        out.started = true;
        auto backoff = options.retry_backoff_initial;
        // Bounded: each try either decides, fails for good, or waits a growing back-off that must end
        // before the overall deadline; at most kMaxTries tries.
        for (int attempt = 0; attempt < kMaxTries; ++attempt) {
          const auto call_deadline =
              attempt == 0 ? deadline : std::chrono::system_clock::now() + options.call_deadline;
          out.check = CheckOnce(verifier, sample[i], call_deadline);
          if (!Undecided(out.check) || !Retryable(out.check, options)) break;
          if (std::chrono::steady_clock::now() + backoff >= overall_end) break;
          std::this_thread::sleep_for(backoff);
          backoff = std::min(backoff * 2, options.retry_backoff_max);
          retries.fetch_add(1);
        }
      } else {
        ProbeOutcome& out = probes[i - n];
        out.started = true;
        try {
          out.result = verifier.Probe(indeterminate[i - n], deadline).result;
        } catch (...) {
          out.result = IndeterminateCheck::kUnknown;
        }
      }
    }
  };

  const std::size_t wanted = std::min<std::size_t>(static_cast<std::size_t>(std::max(options.concurrency, 1)), total);
  {
    std::vector<std::jthread> pool;
    pool.reserve(wanted);
    for (std::size_t t = 0; t < wanted; ++t) {
      try {
        pool.emplace_back(work);
      } catch (const std::system_error&) {
        break;  // run with the threads we could get
      }
    }
    if (pool.empty() && total > 0) work();
  }  // jthreads join here

  VerificationReport report;
  report.sample_size = n;
  report.superseded = latest.superseded;
  for (std::size_t i = 0; i < n; ++i) {
    const CheckOutcome& out = checks[i];
    if (!out.started) {
      ++report.unverified;
      ++report.undecided_by_code["not started"];
      continue;
    }
    const Promise& p = sample[i];
    PromiseCheck c = out.check;
    // P2 is decided by a re-issue only: its answer, compared here, not a verdict the verifier set.
    if (c.reissued) {
      c.stability = *c.reissued == p.value ? PromiseCheck::Stability::kHeld : PromiseCheck::Stability::kChanged;
      c.observed_value = *c.reissued;
    } else if (c.stability == PromiseCheck::Stability::kHeld || c.stability == PromiseCheck::Stability::kChanged) {
      c.stability = PromiseCheck::Stability::kNotChecked;
      ++report.stability_without_reissue;
    }
    if (NothingChecked(c)) {
      c.error_code = kCodeNothingChecked;
      if (c.error.empty()) c.error = "the verifier checked no property of this promise";
    }
    bool undecided = NothingChecked(c);
    const bool p3_reverse = c.lookup == PromiseCheck::Lookup::kHeld || c.lookup == PromiseCheck::Lookup::kNotFound ||
                            c.lookup == PromiseCheck::Lookup::kWrongKey;
    const bool p3_read = c.read_back == PromiseCheck::ReadBack::kHeld ||
                         c.read_back == PromiseCheck::ReadBack::kNotFound ||
                         c.read_back == PromiseCheck::ReadBack::kWrongValue;
    if (p3_reverse || p3_read) ++report.p3_decided;
    if (c.stability == PromiseCheck::Stability::kHeld || c.stability == PromiseCheck::Stability::kChanged) {
      ++report.p2_decided;
    }
    const std::size_t violations_before = report.violations.size();
    switch (c.read_back) {
      case PromiseCheck::ReadBack::kNotChecked:
      case PromiseCheck::ReadBack::kHeld: break;
      case PromiseCheck::ReadBack::kNotFound:
        ++report.p3_violations;
        report.violations.push_back(Violation{p.key, p.value, "", p.value, p.unix_ms, Violation::Property::kP3ReverseLookup,
                                              Violation::Kind::kNotFound, PromiseKind::kWritten});
        break;
      case PromiseCheck::ReadBack::kWrongValue:
        ++report.p3_violations;
        report.violations.push_back(Violation{p.key, p.value, c.observed_read, p.value, p.unix_ms,
                                              Violation::Property::kP3ReverseLookup, Violation::Kind::kWrongValue,
                                              PromiseKind::kWritten});
        break;
      case PromiseCheck::ReadBack::kError: undecided = true; break;
    }
    switch (c.lookup) {
      case PromiseCheck::Lookup::kNotChecked:
      case PromiseCheck::Lookup::kHeld: break;
      case PromiseCheck::Lookup::kNotFound:
        ++report.p3_violations;
        report.violations.push_back(Violation{p.key, p.key, "", p.value, p.unix_ms,
                                              Violation::Property::kP3ReverseLookup, Violation::Kind::kNotFound});
        break;
      case PromiseCheck::Lookup::kWrongKey:
        ++report.p3_violations;
        report.violations.push_back(Violation{p.key, p.key, c.observed_key, p.value, p.unix_ms,
                                              Violation::Property::kP3ReverseLookup, Violation::Kind::kWrongKey});
        break;
      case PromiseCheck::Lookup::kError: undecided = true; break;
    }
    switch (c.stability) {
      case PromiseCheck::Stability::kNotChecked:
      case PromiseCheck::Stability::kHeld: break;
      case PromiseCheck::Stability::kChanged:
        ++report.p2_violations;
        report.violations.push_back(Violation{p.key, p.value, c.observed_value, p.value, p.unix_ms,
                                              Violation::Property::kP2Stability, Violation::Kind::kChanged});
        break;
      case PromiseCheck::Stability::kError: undecided = true; break;
    }
    for (std::size_t v = violations_before; v < report.violations.size(); ++v) report.violations[v].attributes = p.attributes;
    if (undecided) {
      ++report.errors;
      ++report.undecided_by_code[UndecidedCodeName(c.error_code)];
      if (report.error_samples.size() < kMaxErrorSamples) {
        report.error_samples.push_back("key '" + p.key + "': " + (c.error.empty() ? "error" : c.error));
      }
    } else {
      ++report.checked;
    }
  }
  report.retries = retries.load();
  report.indeterminate_total = probes.size();
  for (const ProbeOutcome& out : probes) {
    const auto result = out.started ? out.result : IndeterminateCheck::kUnknown;
    switch (result) {
      case IndeterminateCheck::kCommitted: ++report.indeterminate_committed; break;
      case IndeterminateCheck::kNotCommitted: ++report.indeterminate_not_committed; break;
      case IndeterminateCheck::kUnknown: ++report.indeterminate_unknown; break;
    }
  }
  return report;
}

}  // namespace aftershock::ledger
