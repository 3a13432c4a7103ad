#include "tools/verify/verify_command.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "framework/ledger/ledger_file.h"
#include "gtest/gtest.h"

namespace aftershock::verify {
namespace {

// A service as a map value -> key; a key missing from it is a lost promise.
class MapVerifier : public ledger::PromiseVerifier {
 public:
  explicit MapVerifier(std::map<std::string, std::string> reverse) : reverse_(std::move(reverse)) {}
  ledger::PromiseCheck Check(const ledger::Promise& p, std::chrono::system_clock::time_point) override {
    ledger::PromiseCheck c;
    auto it = reverse_.find(p.value);
    c.lookup = it == reverse_.end() ? ledger::PromiseCheck::Lookup::kNotFound
               : it->second == p.key ? ledger::PromiseCheck::Lookup::kHeld
                                     : ledger::PromiseCheck::Lookup::kWrongKey;
    c.stability = ledger::PromiseCheck::Stability::kHeld;
    return c;
  }

 private:
  std::map<std::string, std::string> reverse_;
};

std::string WriteLedger(const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::path(testing::TempDir()) / ("verify_command_test_" + name)).string();
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  return path;
}

const std::string kLedger =
    "# aftershock-ledger v2\n# target.kind=map\n# target.addresses=127.0.0.1:1\n"
    "kind\tunix_ms\tkey\tvalue\tcode\npromise\t1\talice\tp-1\t\npromise\t2\tbob\tp-2\t\n";

struct CommandRun {
  int code = 0;
  std::string out, err;
};

CommandRun Verify(const std::vector<std::string>& args, std::map<std::string, std::string> service,
           std::string* seen_address = nullptr) {
  VerifierFactory map{"map", [service, seen_address](const TargetArgs& t) {
    if (seen_address != nullptr) *seen_address = t.Get("target.addresses");
    return std::make_unique<MapVerifier>(service);
  }};
  std::ostringstream out, err;
  CommandRun r;
  r.code = RunVerifyCommand(args, {map}, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

TEST(VerifyCommandTest, AHealthyServiceKeepsEveryPromiseOfACutOffLedger) {
  const std::string path = WriteLedger("healthy.tsv", kLedger);  // no end line: a killed run's file
  std::string address;
  const CommandRun r = Verify({"--ledger=" + path}, {{"p-1", "alice"}, {"p-2", "bob"}}, &address);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(address, "127.0.0.1:1");
  EXPECT_NE(r.out.find(": 2 promises, 0 indeterminate (no end line: the run that wrote it was cut off"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("PASS verification-decided: exhaustive: 2 of 2 acknowledged promises verified"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("PASS p3-reverse-lookup: 0 lost of 2 checked"), std::string::npos) << r.out;
}

TEST(VerifyCommandTest, ALostPromiseIsRedAndNamed) {
  const std::string path = WriteLedger("lost.tsv", kLedger + "# end acknowledged=2 indeterminate=0\n");
  const CommandRun r = Verify({"--ledger=" + path}, {{"p-1", "alice"}});
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("(complete)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAIL p3-reverse-lookup: 1 promises lost (1 NotFound, 0 wrong key; of 2 checked): 'bob' -> "
                       "'p-2' NotFound"),
            std::string::npos)
      << r.out;
}

TEST(VerifyCommandTest, TargetArgOverridesTheHeader) {
  const std::string path = WriteLedger("override.tsv", kLedger);
  std::string address;
  const CommandRun r = Verify({"--ledger=" + path, "--target-arg=target.addresses=127.0.0.9:9"},
                       {{"p-1", "alice"}, {"p-2", "bob"}}, &address);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(address, "127.0.0.9:9");
}

TEST(VerifyCommandTest, BadInputExitsTwoNamingTheProblem) {
  EXPECT_EQ(Verify({}, {}).code, 2);
  EXPECT_NE(Verify({}, {}).err.find("--ledger=FILE is required"), std::string::npos);
  const CommandRun unknown = Verify({"--ledgr=x"}, {});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("unknown argument '--ledgr=x'"), std::string::npos) << unknown.err;
  const CommandRun missing = Verify({"--ledger=/no/such/ledger.tsv"}, {});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("/no/such/ledger.tsv:0: cannot open for reading"), std::string::npos) << missing.err;
  const std::string path = WriteLedger("kind.tsv", kLedger);
  const CommandRun kind = Verify({"--ledger=" + path, "--target=nope"}, {});
  EXPECT_EQ(kind.code, 2);
  EXPECT_NE(kind.err.find("no verifier for target kind 'nope' (known: map)"), std::string::npos) << kind.err;
  EXPECT_EQ(Verify({"--ledger=" + path, "--deadline=0"}, {}).code, 2);
  EXPECT_EQ(Verify({"--help"}, {}).code, 0);
}

}  // namespace
}  // namespace aftershock::verify
