#include "framework/gates/gate.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace aftershock::gates {
namespace {

class FunctionGate : public Gate {
 public:
  FunctionGate(std::string name, GateFunction evaluate) : name_(std::move(name)), evaluate_(std::move(evaluate)) {}
  std::string_view name() const override { return name_; }
  GateResult Evaluate(const GateInputs& inputs) const override { return evaluate_(inputs); }

 private:
  std::string name_;
  GateFunction evaluate_;
};

}  // namespace

Gate::~Gate() = default;

std::unique_ptr<Gate> MakeGate(std::string name, GateFunction evaluate) {
  if (!evaluate) throw std::invalid_argument("gate '" + name + "' has no evaluation function");
  return std::make_unique<FunctionGate>(std::move(name), std::move(evaluate));
}

GateSet& GateSet::Add(std::unique_ptr<Gate> gate) {
  if (gate == nullptr) throw std::invalid_argument("GateSet::Add: null gate");
  const std::string name(gate->name());
  if (name.empty()) throw std::invalid_argument("GateSet::Add: a gate has an empty name");
  const bool taken = std::any_of(gates_.begin(), gates_.end(), [&](const auto& g) { return g->name() == name; });
  if (taken) throw std::invalid_argument("GateSet::Add: gate '" + name + "' is already in the set");
  gates_.push_back(std::move(gate));
  return *this;
}

GateSet& GateSet::Add(std::string name, GateFunction evaluate) {
  return Add(MakeGate(std::move(name), std::move(evaluate)));
}

std::vector<GateResult> GateSet::Evaluate(const GateInputs& inputs) const {
  std::vector<GateResult> results;
  results.reserve(gates_.size());
  for (const auto& gate : gates_) {
    GateResult r;
    try {
      r = gate->Evaluate(inputs);
    } catch (const std::exception& e) {
      r = GateResult{};
      r.passed = false;
      r.message = std::string("the gate's evaluation threw: ") + e.what();
    }
    r.name = std::string(gate->name());
    if (!r.passed) r.not_applicable = false;  // a red gate is red, whatever else it says
    results.push_back(std::move(r));
  }
  return results;
}

std::vector<std::string> GateSet::names() const {
  std::vector<std::string> out;
  for (const auto& gate : gates_) out.emplace_back(gate->name());
  return out;
}

}  // namespace aftershock::gates
