#include "tools/verify/verify_command.h"

#include <chrono>
#include <cmath>
#include <optional>

#include "framework/config/scalar_text.h"
#include "framework/gates/gates.h"
#include "framework/ledger/ledger_file.h"

namespace aftershock::verify {
namespace {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  std::string ledger;
  std::string target;
  std::vector<std::pair<std::string, std::string>> target_args;
  int concurrency = 16;
  double call_deadline_seconds = 5;
  double deadline_seconds = 300;
  double max_undecided_ratio = 0;
};

std::optional<std::string> Value(const std::string& arg, std::string_view flag) {
  if (arg.size() <= flag.size() || arg.compare(0, flag.size(), flag) != 0 || arg[flag.size()] != '=') {
    return std::nullopt;
  }
  return arg.substr(flag.size() + 1);
}

double Duration(const std::string& flag, const std::string& text) {
  const std::optional<double> v = config::ParseDuration(text);
  if (!v || *v <= 0) {
    throw UsageError(flag + "='" + text + "': not a positive duration (" + std::string(config::kDurationExpectation) + ")");
  }
  return *v;
}

Options Parse(const std::vector<std::string>& args) {
  Options o;
  for (const std::string& arg : args) {
    if (auto v = Value(arg, "--ledger")) {
      o.ledger = *v;
    } else if (auto v = Value(arg, "--target")) {
      o.target = *v;
    } else if (auto v = Value(arg, "--target-arg")) {
      const std::size_t eq = v->find('=');
      if (eq == std::string::npos || eq == 0) throw UsageError("--target-arg='" + *v + "': expected name=value");
      o.target_args.emplace_back(v->substr(0, eq), v->substr(eq + 1));
    } else if (auto v = Value(arg, "--concurrency")) {
      const std::optional<long long> n = config::ParseInteger(*v);
      if (!n || *n < 1 || *n > 256) throw UsageError("--concurrency='" + *v + "': expected an integer 1..256");
      o.concurrency = static_cast<int>(*n);
    } else if (auto v = Value(arg, "--call-deadline")) {
      o.call_deadline_seconds = Duration("--call-deadline", *v);
    } else if (auto v = Value(arg, "--deadline")) {
      o.deadline_seconds = Duration("--deadline", *v);
    } else if (auto v = Value(arg, "--max-undecided-ratio")) {
      const std::optional<double> r = config::ParseNumber(*v);
      if (!r || *r < 0 || *r > 1) throw UsageError("--max-undecided-ratio='" + *v + "': expected a number 0..1");
      o.max_undecided_ratio = *r;
    } else {
      throw UsageError("unknown argument '" + arg + "'");
    }
  }
  if (o.ledger.empty()) throw UsageError("--ledger=FILE is required");
  return o;
}

std::chrono::milliseconds Ms(double seconds) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(seconds * 1000)));
}

}  // namespace

std::string TargetArgs::Get(std::string_view name) const {
  for (const auto& [n, v] : values_) {
    if (n == name) return v;
  }
  throw std::invalid_argument("the ledger header has no '" + std::string(name) + "' (give it with --target-arg=" +
                              std::string(name) + "=VALUE)");
}

std::string TargetArgs::GetOr(std::string_view name, std::string fallback) const {
  for (const auto& [n, v] : values_) {
    if (n == name) return v;
  }
  return fallback;
}

std::string VerifyUsage() {
  return "usage: aftershock-verify --ledger=FILE [--target=KIND] [--target-arg=NAME=VALUE ...]\n"
         "                         [--concurrency=16] [--call-deadline=5s] [--deadline=300s]\n"
         "                         [--max-undecided-ratio=0]\n"
         "Re-verifies every promise of a ledger file against the live target named in its header\n"
         "(target.kind, target.addresses, ...; --target-arg overrides a header value) and prints the\n"
         "promise gates. Exit: 0 all green, 1 a gate is red, 2 bad arguments or an unreadable ledger.\n";
}

int RunVerifyCommand(const std::vector<std::string>& args, const std::vector<VerifierFactory>& factories,
                     std::ostream& out, std::ostream& err) {
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      out << VerifyUsage();
      return 0;
    }
  }
  Options o;
  ledger::LedgerFile file;
  std::unique_ptr<ledger::PromiseVerifier> verifier;
  try {
    o = Parse(args);
    file = ledger::ReadLedgerFile(o.ledger);
    std::vector<std::pair<std::string, std::string>> values = file.header;
    for (const auto& [name, value] : o.target_args) {
      bool replaced = false;
      for (auto& [n, v] : values) {
        if (n == name) {
          v = value;
          replaced = true;
        }
      }
      if (!replaced) values.emplace_back(name, value);
    }
    const TargetArgs target(values);
    const std::string kind = o.target.empty() ? target.GetOr("target.kind", "") : o.target;
    if (kind.empty()) throw UsageError(o.ledger + ": the header names no target.kind; give --target=KIND");
    const VerifierFactory* factory = nullptr;
    std::string known;
    for (const VerifierFactory& f : factories) {
      if (f.kind == kind) factory = &f;
      known += (known.empty() ? "" : ", ") + f.kind;
    }
    if (factory == nullptr) throw UsageError("no verifier for target kind '" + kind + "' (known: " + known + ")");
    verifier = factory->make(target);
    if (!verifier) throw UsageError("target kind '" + kind + "' made no verifier");
  } catch (const std::exception& e) {
    err << "aftershock-verify: " << e.what() << "\n";
    if (dynamic_cast<const UsageError*>(&e) != nullptr) err << VerifyUsage();
    return 2;
  }

  out << "aftershock-verify: " << o.ledger << ": " << file.promises.size() << " promises, "
      << file.indeterminate.size() << " indeterminate"
      << (file.complete ? " (complete)" : " (no end line: the run that wrote it was cut off; every line before the cut is verified)")
      << "\n";
  ledger::VerifyOptions vo;
  vo.concurrency = o.concurrency;
  vo.call_deadline = Ms(o.call_deadline_seconds);
  vo.overall_deadline = Ms(o.deadline_seconds);
  const ledger::VerificationReport report = ledger::VerifyLedger(file.promises, file.indeterminate, *verifier, vo);
  if (report.superseded > 0) {
    out << "aftershock-verify: " << report.superseded
        << " promises superseded by a later acknowledged write of the same key; the last value of each key is "
           "verified ("
        << report.sample_size << " keys)\n";
  }

  gates::GateInputs in;
  in.verification = &report;
  in.ledger_acknowledged = file.acknowledged;
  in.max_undecided_ratio = o.max_undecided_ratio;
  in.require_promises = true;
  const std::vector<gates::GateResult> results = gates::EvaluatePromiseGates(in);
  out << gates::FormatGateReport(results);
  return gates::AllPassed(results) ? 0 : 1;
}

}  // namespace aftershock::verify
