// Gate and GateSet: the open set of gates. A gate is a name and an evaluation over GateInputs; the
// built-in gates (availability_gates.h, promise_gates.h, guard_gates.h) are added to a GateSet the
// same way a suite adds its own, and every result goes through the same report functions
// (gate_result.h).
//
//   GateSet set = BuiltInGates();                       // gates.h: the fifteen, in report order
//   set.Add("queue-drained", [&](const GateInputs&) {   // a suite's own gate, capturing its data
//     GateResult r{.name = "queue-drained", .passed = queue.empty(), .message = ...};
//     return r;
//   });
//   std::vector<GateResult> results = set.Evaluate(inputs);
//
// A gate that throws is reported as FAIL with the exception's text, so the other gates still run.
#ifndef AFTERSHOCK_FRAMEWORK_GATES_GATE_H_
#define AFTERSHOCK_FRAMEWORK_GATES_GATE_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "framework/gates/gate_inputs.h"
#include "framework/gates/gate_result.h"

namespace aftershock::gates {

class Gate {
 public:
  virtual ~Gate();
  // Stable, kebab-case ("p1-longest-outage"): the verdict line, failures.txt and gate_<name>.
  virtual std::string_view name() const = 0;
  // The result's name is set to name() by GateSet::Evaluate.
  virtual GateResult Evaluate(const GateInputs& inputs) const = 0;
};

using GateFunction = std::function<GateResult(const GateInputs&)>;

// A gate made of a name and a function.
std::unique_ptr<Gate> MakeGate(std::string name, GateFunction evaluate);

// Gates in the order they were added (the order of the report).
class GateSet {
 public:
  // Throws std::invalid_argument for a null gate, an empty name or a name already in the set.
  GateSet& Add(std::unique_ptr<Gate> gate);
  GateSet& Add(std::string name, GateFunction evaluate);

  std::vector<GateResult> Evaluate(const GateInputs& inputs) const;
  std::vector<std::string> names() const;
  std::size_t size() const { return gates_.size(); }

 private:
  std::vector<std::shared_ptr<const Gate>> gates_;  // shared: a copied set shares its gates
};

}  // namespace aftershock::gates

#endif  // AFTERSHOCK_FRAMEWORK_GATES_GATE_H_
