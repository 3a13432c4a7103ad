#include "framework/safety/operator_halt.h"

#include <sys/stat.h>

#include <stdexcept>

namespace aftershock::safety {

OperatorHalt::OperatorHalt(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw std::invalid_argument("operator halt: the halt file path is empty");
  if (path_.front() != '/') {
    throw std::invalid_argument("operator halt: the halt file '" + path_ +
                                "' is not an absolute path (every test must look at the same file)");
  }
}

bool OperatorHalt::Present() const {
  struct stat st {};
  return ::stat(path_.c_str(), &st) == 0;
}

std::optional<std::string> OperatorHalt::Check() const {
  if (!Present()) return std::nullopt;
  return "operator halt: " + path_ + " exists (remove it to run scenarios again)";
}

StopCondition OperatorHalt::AsCondition() const {
  StopCondition c;
  c.name = "operator-halt";
  c.what = "the halt file " + path_;
  c.comparator = Comparator::kAbove;
  c.threshold = 0.5;
  c.hold = std::chrono::milliseconds(0);
  c.breach_on_failure = false;
  c.evaluate = [path = path_] {
    struct stat st {};
    return Reading::Of(::stat(path.c_str(), &st) == 0 ? 1.0 : 0.0);
  };
  c.describe_breach = [path = path_](const Reading&) { return path + " exists (remove it to run scenarios again)"; };
  return c;
}

}  // namespace aftershock::safety
