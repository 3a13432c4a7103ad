// Strict parsing of the scalar texts that configuration values are written in (manifest scalars and
// environment values share these rules, so a value means the same thing in both places).
//
//   ParseNumber("200")     -> 200        ParseNumber("1e3") -> 1000     ParseNumber("ten") -> nullopt
//   ParseInteger("2000")   -> 2000       ParseInteger("2.5") -> nullopt
//   ParseDuration("12")    -> 12 (plain numbers are seconds)
//   ParseDuration("500ms") -> 0.5        ParseDuration("1.5m") -> 90     ParseDuration("1h") -> 3600
//   ParseDuration("10x")   -> nullopt    ParseDuration("-3s") -> -3 (a duration; bounds are checked by
//                                                                    the caller, with a clearer message)
// No leading/trailing blanks, no "inf"/"nan", no hex, no unit without a number.
#ifndef AFTERSHOCK_FRAMEWORK_CONFIG_SCALAR_TEXT_H_
#define AFTERSHOCK_FRAMEWORK_CONFIG_SCALAR_TEXT_H_

#include <optional>
#include <string_view>

namespace aftershock::config {

// What a duration must look like; appended to "not a duration" messages.
inline constexpr std::string_view kDurationExpectation =
    "expected a number of seconds or a value like 90s, 2m, 500ms";

// A finite decimal number ("12", "0.5", "-3", "1e3"); nullopt for anything else.
std::optional<double> ParseNumber(std::string_view text);

// A decimal integer ("2000", "-1"); nullopt for "2.5", "2e3", "" or out of range of long long.
std::optional<long long> ParseInteger(std::string_view text);

// Seconds from "<number>" or "<number><unit>" with unit ms, s, m or h; nullopt for anything else.
std::optional<double> ParseDuration(std::string_view text);

}  // namespace aftershock::config

#endif  // AFTERSHOCK_FRAMEWORK_CONFIG_SCALAR_TEXT_H_
