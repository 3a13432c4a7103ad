#include "framework/stress/prometheus_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace aftershock::stress {
namespace {

TEST(PrometheusTextTest, ParsesSamplesLabelsEscapesAndSpecialValues) {
  const PromText text = ParsePrometheusText(
      "# HELP pool_in_use Connections in use.\n"
      "# TYPE pool_in_use gauge\n"
      "pool_in_use{pool=\"db\",zone=\"a\"} 7\n"
      "pool_size{zone=\"a\", pool=\"db\",} 10 1700000000000\r\n"
      "\n"
      "up 1\n"
      "weird{path=\"C:\\\\x \\\"q\\\"\\n\"} +Inf\n"
      "  latency_seconds_bucket{le=\"0.005\"} 1.5e3\n"
      "nothing NaN\n");
  EXPECT_TRUE(text.errors.empty()) << text.errors.front();
  ASSERT_EQ(text.samples.size(), 6u);
  EXPECT_EQ(text.samples[0].name, "pool_in_use");
  EXPECT_EQ(text.samples[0].labels, (PromLabels{{"pool", "db"}, {"zone", "a"}}));
  EXPECT_EQ(text.samples[0].value, 7);
  EXPECT_EQ(text.samples[1].labels, (PromLabels{{"pool", "db"}, {"zone", "a"}}));  // sorted, trailing comma
  EXPECT_EQ(text.samples[1].value, 10);
  EXPECT_TRUE(text.samples[2].labels.empty());
  EXPECT_EQ(text.samples[3].labels, (PromLabels{{"path", "C:\\x \"q\"\n"}}));
  EXPECT_TRUE(std::isinf(text.samples[3].value));
  EXPECT_EQ(text.samples[4].value, 1500);
  EXPECT_TRUE(std::isnan(text.samples[5].value));
}

TEST(PrometheusTextTest, AMalformedLineIsReportedWithItsNumberAndTheRestIsRead) {
  const PromText text = ParsePrometheusText(
      "good 1\n"
      "bad{x=\"unterminated} 2\n"
      "also_bad one\n"
      "9starts_with_digit 3\n"
      "twice{a=\"1\",a=\"2\"} 4\n"
      "trailing 5 123 extra\n"
      "good2 6\n");
  ASSERT_EQ(text.samples.size(), 2u);
  EXPECT_EQ(text.samples[1].name, "good2");
  ASSERT_EQ(text.errors.size(), 5u);
  EXPECT_EQ(text.errors[0].rfind("line 2: ", 0), 0u) << text.errors[0];
  EXPECT_NE(text.errors[1].find("bad value 'one'"), std::string::npos) << text.errors[1];
  EXPECT_EQ(text.errors[2].rfind("line 4: ", 0), 0u) << text.errors[2];
  EXPECT_NE(text.errors[3].find("given twice"), std::string::npos) << text.errors[3];
  EXPECT_NE(text.errors[4].find("unexpected text"), std::string::npos) << text.errors[4];
}

TEST(PrometheusTextTest, ASelectorMatchesTheExactLabelSetOnly) {
  const PromText text = ParsePrometheusText(
      "pool_in_use 1\n"
      "pool_in_use{pool=\"db\"} 2\n"
      "pool_in_use{pool=\"db\",shard=\"1\"} 3\n");
  EXPECT_EQ(ParseMetricSelector("pool_in_use").Find(text.samples), 1);
  EXPECT_EQ(ParseMetricSelector("pool_in_use{pool=\"db\"}").Find(text.samples), 2);
  EXPECT_EQ(ParseMetricSelector("pool_in_use{shard=\"1\", pool=\"db\"}").Find(text.samples), 3);
  EXPECT_EQ(ParseMetricSelector("pool_in_use{pool=\"other\"}").Find(text.samples), std::nullopt);
  EXPECT_EQ(ParseMetricSelector("pool_size").Find(text.samples), std::nullopt);
  EXPECT_EQ(ParseMetricSelector(" a{z=\"1\",b=\"q\\\"\"} ").text, "a{b=\"q\\\"\",z=\"1\"}");
}

TEST(PrometheusTextTest, ABadSelectorIsAnErrorNamingIt) {
  for (const char* bad : {"", "1abc", "a{", "a{b}", "a{b=\"1\"", "a{b=\"1\",b=\"2\"}", "a b", "a{b=1}"}) {
    try {
      ParseMetricSelector(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace aftershock::stress
