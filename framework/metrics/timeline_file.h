// Timeline files: a LoadTimeline written to text exactly (every count, every histogram bucket), so
// the load generator's worker processes can hand their per-second results to a coordinator that
// merges them bucket by bucket. Percentiles are never averaged: the merged histogram of a second is
// the one a single generator that saw every call would have built.
//
// A file ends with an `end` line; a worker that died while writing (or before) leaves a file
// without it, and ReadTimelineFile refuses it, so a merged run can never be silently lighter.
//
//   std::ofstream out(path);
//   WriteTimelineFile(timeline, {.worker = 0, .workers = 2}, out);
//   TimelineFile read = ReadTimelineFile(in, path);    // throws TimelineFileError "<path>:<line>: ..."
//   merged.Merge(read.timeline);
#ifndef AFTERSHOCK_FRAMEWORK_METRICS_TIMELINE_FILE_H_
#define AFTERSHOCK_FRAMEWORK_METRICS_TIMELINE_FILE_H_

#include <cstdint>
#include <istream>
#include <ostream>
#include <stdexcept>
#include <string>

#include "framework/metrics/load_timeline.h"

namespace aftershock::metrics {

// Who wrote the file: worker `worker` of `workers` (0-based), sharing one schedule.
struct TimelineFileHeader {
  int worker = 0;
  int workers = 1;
  std::int64_t start_unix_ms = 0;  // the run clock's start, the same for every worker of a run
  friend bool operator==(const TimelineFileHeader&, const TimelineFileHeader&) = default;
};

struct TimelineFile {
  TimelineFileHeader header;
  LoadTimeline timeline;  // its clock: start_unix_ms from the file (no steady-clock start)
};

class TimelineFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes `timeline` (header.start_unix_ms is taken from the timeline's clock) and flushes.
void WriteTimelineFile(const LoadTimeline& timeline, TimelineFileHeader header, std::ostream& out);

// Reads a file WriteTimelineFile wrote. `name` prefixes every error ("<name>:<line>: ...").
TimelineFile ReadTimelineFile(std::istream& in, const std::string& name);

}  // namespace aftershock::metrics

#endif  // AFTERSHOCK_FRAMEWORK_METRICS_TIMELINE_FILE_H_
