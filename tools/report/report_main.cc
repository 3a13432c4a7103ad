// aftershock-report: commands over artifact folders: `compare A B` (tools/report/compare.h) and
// `history DIR...` (tools/report/history.h); docs/report.md.
#include <iostream>
#include <string>
#include <vector>

#include "tools/report/compare.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return aftershock::report_tools::RunReportCommand(args, std::cout, std::cerr);
}
