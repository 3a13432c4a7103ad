// Number and text formatting shared by the metrics writers (CSV, text, Markdown, JSON).
//
//   FormatFixed(1.5, 3)        -> "1.500"
//   NsToMsText(1'234'567)      -> "1.235"
//   ShortestDouble(0.25)       -> "0.25"
//   JsonQuoted("a\"b")         -> "\"a\\\"b\""
//   CsvField("a,b")            -> "\"a,b\""
#ifndef AFTERSHOCK_FRAMEWORK_METRICS_INTERNAL_FORMAT_H_
#define AFTERSHOCK_FRAMEWORK_METRICS_INTERNAL_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace aftershock::metrics::internal {

// `value` with exactly `decimals` decimals (printf %.Nf); non-finite values print as 0.
std::string FormatFixed(double value, int decimals);
// Nanoseconds as milliseconds with 3 decimals.
std::string NsToMsText(std::int64_t ns);
// Shortest text that reads back as the same double (std::to_chars); "null" for NaN/inf, since the
// only user is JSON.
std::string ShortestDouble(double value);
// A JSON string literal, with quotes, backslashes and control characters escaped.
std::string JsonQuoted(std::string_view text);
// A CSV field per RFC 4180: quoted (with doubled quotes) only when it holds , " CR or LF.
std::string CsvField(std::string_view text);

}  // namespace aftershock::metrics::internal

#endif  // AFTERSHOCK_FRAMEWORK_METRICS_INTERNAL_FORMAT_H_
