// The stdout marker format of a timeline (docs/formats.md): one line before, the CSV, one line after,
// so a CI log or tools/collect can cut the timelines out of a test's output.
//
//   WriteMarkedTimeline(std::cout, "load-timeline.csv", "pr", "primary-kill", csv, 42);
//   // ##aftershock BEGIN load-timeline.csv set=pr scenario=primary-kill
//   // <csv>
//   // ##aftershock END load-timeline.csv rows=42
#ifndef AFTERSHOCK_FRAMEWORK_REPORT_MARKERS_H_
#define AFTERSHOCK_FRAMEWORK_REPORT_MARKERS_H_

#include <cstddef>
#include <ostream>
#include <string_view>

namespace aftershock::report {

// `csv` must end with a newline (or be empty). Flushes `out`.
void WriteMarkedTimeline(std::ostream& out, std::string_view file_name, std::string_view set,
                         std::string_view scenario, std::string_view csv, std::size_t rows);

}  // namespace aftershock::report

#endif  // AFTERSHOCK_FRAMEWORK_REPORT_MARKERS_H_
