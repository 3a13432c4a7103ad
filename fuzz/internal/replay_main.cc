// The replay driver: main() for a fuzz target outside the `fuzz` preset. It feeds every file of the
// given corpus folders (and any single files given) through LLVMFuzzerTestOneInput once, in name
// order, so the committed corpus is a plain regression test in the gcc build (ctest label `fuzz`).
//
//   set_manifest_fuzz_replay fuzz/corpus/set_manifest
//
// A crash, an uncaught exception or a broken invariant (fuzz_target.h aborts) ends the process with
// a failure; the file being replayed is printed first so the failing input is named. Exit 2 when an
// argument cannot be read or the corpus holds no file (a test that replays nothing cannot fail).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

#include "fuzz/internal/fuzz_target.h"

namespace {

namespace fs = std::filesystem;

bool ReadFile(const fs::path& path, std::string& bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
    return 2;
  }
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg = argv[i];
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      for (const fs::directory_entry& entry : fs::directory_iterator(arg, ec)) {
        if (entry.is_regular_file()) inputs.push_back(entry.path());
      }
      if (ec) {
        std::fprintf(stderr, "replay: cannot list '%s': %s\n", arg.c_str(), ec.message().c_str());
        return 2;
      }
    } else if (fs::is_regular_file(arg, ec)) {
      inputs.push_back(arg);
    } else {
      std::fprintf(stderr, "replay: '%s' is neither a corpus folder nor a file\n", arg.c_str());
      return 2;
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "replay: no input files in the given corpus\n");
    return 2;
  }
  std::sort(inputs.begin(), inputs.end());
  std::string bytes;
  for (const fs::path& input : inputs) {
    if (!ReadFile(input, bytes)) {
      std::fprintf(stderr, "replay: cannot read '%s'\n", input.c_str());
      return 2;
    }
    // Named before the call: if it crashes, this is the last line.
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", input.c_str(), bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("replay: %zu inputs, no failure\n", inputs.size());
  return 0;
}
