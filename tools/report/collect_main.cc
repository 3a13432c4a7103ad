// aftershock-collect: the marked timelines of any log into <out>/<set>/<scenario>/<file>
// (tools/report/collect.h, docs/report.md).
#include <iostream>
#include <string>
#include <vector>

#include "tools/report/collect.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return aftershock::report_tools::RunCollect(args, std::cout, std::cerr);
}
