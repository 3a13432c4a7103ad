#include "framework/alerting/rule_rendering.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "framework/alerting/prom_duration.h"

namespace aftershock::alerting {
namespace {

using std::chrono::milliseconds;

constexpr const char* kDuration = "(?:[0-9]+(?:ms|y|w|d|h|m|s))+";

const std::regex& RangeRegex() {
  // [<range>] or [<range>:<resolution>] or [<range>:]
  static const std::regex regex(std::string("\\[(") + kDuration + ")(:(" + kDuration + ")?)?\\]");
  return regex;
}

const std::regex& ForLineRegex() {
  // A `for:` key on its own line (optionally as a list item), the value possibly quoted.
  static const std::regex regex(R"(^(\s*(?:-\s+)?for:\s*)(["']?)([^"'\s#]+)\2(\s*(?:#.*)?)$)");
  return regex;
}

void CheckScale(double time_scale) {
  if (!std::isfinite(time_scale) || time_scale <= 0) {
    throw std::invalid_argument("time_scale must be a positive finite number, got " +
                                std::to_string(time_scale));
  }
}

milliseconds Scale(milliseconds duration, double time_scale) {
  return milliseconds(std::llround(static_cast<double>(duration.count()) * time_scale));
}

std::string ScaleRange(const std::string& text, double time_scale) {
  const milliseconds original = ParsePromDuration(text);
  const milliseconds scaled = Scale(original, time_scale);
  if (scaled.count() <= 0) {
    throw std::invalid_argument("range window [" + text + "] scaled by " +
                                std::to_string(time_scale) + " rounds to zero");
  }
  return FormatPromDuration(scaled);
}

// Applies `rewrite` to every regex match in `text`, copying the rest unchanged.
template <typename Rewrite>
std::string ReplaceAll(const std::string& text, const std::regex& regex, Rewrite rewrite) {
  std::string out;
  auto last = text.cbegin();
  for (auto it = std::sregex_iterator(text.begin(), text.end(), regex); it != std::sregex_iterator();
       ++it) {
    out.append(last, text.cbegin() + it->position(0));
    out += rewrite(*it);
    last = text.cbegin() + it->position(0) + it->length(0);
  }
  out.append(last, text.cend());
  return out;
}

std::string ScaleRanges(const std::string& line, double time_scale) {
  return ReplaceAll(line, RangeRegex(), [time_scale](const std::smatch& m) {
    std::string out = "[" + ScaleRange(m[1].str(), time_scale);
    if (m[2].matched) {
      out += ":";
      if (m[3].matched) out += ScaleRange(m[3].str(), time_scale);
    }
    return out + "]";
  });
}

std::string ScaleRouteTiming(const std::string& text, double time_scale) {
  const milliseconds scaled = std::max<milliseconds>(
      Scale(ParsePromDuration(text), time_scale), std::chrono::seconds(1));
  return FormatPromDuration(scaled);
}

void ScaleRouteTimings(YAML::Node route, double time_scale) {
  for (const char* key : {"group_wait", "group_interval", "repeat_interval"}) {
    if (route[key]) route[key] = ScaleRouteTiming(route[key].as<std::string>(), time_scale);
  }
  if (route["routes"]) {
    for (YAML::Node child : route["routes"]) ScaleRouteTimings(child, time_scale);
  }
}

bool MatchesLoadTest(const YAML::Node& route) {
  if (route["matchers"]) {
    for (const YAML::Node& matcher : route["matchers"]) {
      std::string text = matcher.as<std::string>();
      text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
      if (text == "source=\"load-test\"" || text == "source=load-test") return true;
    }
  }
  return route["match"] && route["match"]["source"] &&
         route["match"]["source"].as<std::string>() == "load-test";
}

}  // namespace

std::string RenderRules(const std::string& rules_yaml, double time_scale) {
  CheckScale(time_scale);
  std::istringstream in(rules_yaml);
  std::string out;
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    std::smatch m;
    if (std::regex_match(line, m, ForLineRegex())) {
      try {
        const milliseconds scaled = Scale(ParsePromDuration(m[3].str()), time_scale);
        line = m[1].str() + m[2].str() + FormatPromDuration(scaled) + m[2].str() + m[4].str();
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("rules line " + std::to_string(line_number) + ": " + e.what());
      }
    } else {
      try {
        line = ScaleRanges(line, time_scale);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("rules line " + std::to_string(line_number) + ": " + e.what());
      }
    }
    out += line;
    if (!in.eof()) out += '\n';
  }
  return out;
}

milliseconds ShortestRangeWindow(const std::string& rules_yaml) {
  std::optional<milliseconds> shortest;
  for (auto it = std::sregex_iterator(rules_yaml.begin(), rules_yaml.end(), RangeRegex());
       it != std::sregex_iterator(); ++it) {
    const milliseconds window = ParsePromDuration((*it)[1].str());
    if (!shortest || window < *shortest) shortest = window;
  }
  if (!shortest) throw std::invalid_argument("the rules contain no range window");
  return *shortest;
}

EvaluationIntervals ChooseIntervals(milliseconds shortest_window) {
  const auto quarter = shortest_window / kMinSamplesPerWindow;
  auto scrape = std::chrono::duration_cast<std::chrono::seconds>(quarter);
  scrape = std::clamp<std::chrono::seconds>(scrape, std::chrono::seconds(1),
                                            std::chrono::seconds(15));
  return EvaluationIntervals{scrape, scrape};
}

void CheckWindows(milliseconds shortest_window, const EvaluationIntervals& intervals) {
  if (shortest_window < intervals.scrape * kMinSamplesPerWindow) {
    throw std::invalid_argument(
        "the shortest rate window (" + FormatPromDuration(shortest_window) + ") holds fewer than " +
        std::to_string(kMinSamplesPerWindow) + " scrapes at " +
        FormatPromDuration(intervals.scrape) + ": raise time_scale");
  }
}

std::string RenderTemplate(const std::string& text,
                           const std::map<std::string, std::string>& values) {
  static const std::regex placeholder(R"(\$\{([A-Za-z0-9_]+)\})");
  return ReplaceAll(text, placeholder, [&values](const std::smatch& m) {
    const auto it = values.find(m[1].str());
    if (it == values.end()) {
      throw std::invalid_argument("template placeholder ${" + m[1].str() + "} has no value");
    }
    return it->second;
  });
}

std::string YamlQuote(const std::string& value) {
  std::string out = "'";
  for (const char c : value) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

std::string RenderPrometheusConfig(const std::string& template_yaml,
                                   const PrometheusConfigValues& values) {
  if (values.scrape_targets.empty()) throw std::invalid_argument("no scrape targets");
  std::string targets;
  for (const std::string& target : values.scrape_targets) {
    if (!targets.empty()) targets += ", ";
    targets += YamlQuote(target);
  }
  return RenderTemplate(template_yaml,
                        {{"SCRAPE_TARGETS", targets},
                         {"RULE_FILE", YamlQuote(values.rule_file)},
                         {"ALERTMANAGER_ADDRESS", YamlQuote(values.alertmanager_address)},
                         {"SCRAPE_INTERVAL", FormatPromDuration(values.intervals.scrape)},
                         {"EVALUATION_INTERVAL", FormatPromDuration(values.intervals.evaluation)}});
}

std::string RenderAlertmanagerConfig(const std::string& template_yaml,
                                     const AlertmanagerConfigValues& values) {
  CheckScale(values.time_scale);
  const std::string filled =
      RenderTemplate(template_yaml, {{"TEST_WEBHOOK_URL", YamlQuote(values.test_webhook_url)},
                                     {"PRODUCTION_WEBHOOK_URL",
                                      YamlQuote(values.production_webhook_url)}});
  if (values.time_scale == 1.0 && !values.misroute_test_alerts) return filled;

  YAML::Node config = YAML::Load(filled);
  YAML::Node route = config["route"];
  if (!route) throw std::invalid_argument("alertmanager config has no route");
  if (values.time_scale != 1.0) ScaleRouteTimings(route, values.time_scale);
  if (values.misroute_test_alerts) {
    bool misrouted = false;
    if (route["routes"]) {
      for (YAML::Node child : route["routes"]) {
        if (MatchesLoadTest(child)) {
          child["receiver"] = "production";
          misrouted = true;
        }
      }
    }
    if (!misrouted) {
      throw std::invalid_argument("misroute_test_alerts: no route matches source=\"load-test\"");
    }
  }
  YAML::Emitter emitter;
  emitter << config;
  return std::string("# Rendered by aftershock::alerting (scaled and/or seeded misroute)\n") +
         emitter.c_str() + "\n";
}

}  // namespace aftershock::alerting
