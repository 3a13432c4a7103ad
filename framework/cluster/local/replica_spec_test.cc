#include "framework/cluster/local/replica_spec.h"

#include <gtest/gtest.h>

namespace aftershock::cluster {
namespace {

ReplicaSpec Valid() {
  ReplicaSpec spec;
  spec.binary = "/bin/true";
  spec.args = {"--listen={address}", "--db={conninfo}", "--name={name}"};
  return spec;
}

TEST(ReplicaSpecTest, AValidSpecHasNoError) { EXPECT_EQ(ValidateReplicaSpec(Valid()), ""); }

TEST(ReplicaSpecTest, CountOutOfRangeIsNamed) {
  ReplicaSpec spec = Valid();
  spec.count = 0;
  EXPECT_NE(ValidateReplicaSpec(spec).find("count 0 is out of range (1..26"), std::string::npos);
  spec.count = 27;
  EXPECT_NE(ValidateReplicaSpec(spec).find("count 27"), std::string::npos);
  spec.count = 26;
  EXPECT_EQ(ValidateReplicaSpec(spec), "");
}

TEST(ReplicaSpecTest, NoBinaryIsAnError) {
  ReplicaSpec spec = Valid();
  spec.binary.clear();
  EXPECT_EQ(ValidateReplicaSpec(spec), "replica spec: no binary given");
}

TEST(ReplicaSpecTest, AnUnknownPlaceholderIsNamed) {
  ReplicaSpec spec = Valid();
  spec.args.push_back("--host={hostname}");
  const std::string error = ValidateReplicaSpec(spec);
  EXPECT_NE(error.find("--host={hostname}"), std::string::npos) << error;
  EXPECT_NE(error.find("unknown placeholder {hostname}"), std::string::npos) << error;
  spec.args.back() = "--broken={port";
  EXPECT_NE(ValidateReplicaSpec(spec).find("without '}'"), std::string::npos);
}

TEST(ReplicaSpecTest, AnHttpProbeNeedsAnAbsolutePath) {
  ReplicaSpec spec = Valid();
  spec.probe = {.kind = ReadinessProbe::Kind::kHttp, .http_path = "healthz"};
  EXPECT_NE(ValidateReplicaSpec(spec).find("must start with '/'"), std::string::npos);
}

TEST(ReplicaSpecTest, EveryPlaceholderIsReplacedWhereverItStands) {
  const std::vector<std::string> args = {"--listen={address}", "--port={port}", "x{name}-{node}-{zone}y",
                                         "--grace-seconds={grace_seconds}", "--db={conninfo}", "plain"};
  const auto out = ExpandReplicaArgs(args, {.port = 24001,
                                            .conninfo = "host=127.0.0.1 port=5432",
                                            .name = "b",
                                            .node = "node-b",
                                            .zone = "zone-b",
                                            .grace = std::chrono::milliseconds(2500)});
  const std::vector<std::string> expected = {"--listen=127.0.0.1:24001", "--port=24001", "xb-node-b-zone-by",
                                             "--grace-seconds=2.5", "--db=host=127.0.0.1 port=5432", "plain"};
  EXPECT_EQ(out, expected);
}

TEST(ReplicaSpecTest, NamesAreOneLetterEach) {
  EXPECT_EQ(ReplicaName(0), "a");
  EXPECT_EQ(ReplicaName(4), "e");
  EXPECT_EQ(ReplicaName(25), "z");
}

}  // namespace
}  // namespace aftershock::cluster
