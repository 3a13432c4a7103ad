#include "framework/process/log_tail.h"

#include <deque>
#include <fstream>

namespace aftershock::process {

std::string TailOfFile(const std::string& path, int max_lines) {
  std::ifstream in(path);
  std::deque<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    lines.push_back(line);
    if (static_cast<int>(lines.size()) > max_lines) lines.pop_front();
  }
  std::string out;
  for (const std::string& kept : lines) out += kept + "\n";
  return out;
}

}  // namespace aftershock::process
