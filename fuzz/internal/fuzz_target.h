// What every fuzz target in fuzz/ shares: the libFuzzer entry point's declaration and the check that
// turns a broken invariant (a round trip that does not hold) into a crash libFuzzer reports and
// saves, with a message saying which invariant.
//
//   extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
//     const std::string_view text = aftershock::fuzz::AsText(data, size);
//     ...
//     aftershock::fuzz::Require(again == parsed, "ParseFaultSpec(FormatFaultSpec(x)) == x");
//     return 0;
//   }
//
// The same entry point links either against libFuzzer (the `fuzz` preset, clang) or against
// internal/replay_main.cc (every other build), which feeds it the committed seed corpus as a test.
#ifndef AFTERSHOCK_FUZZ_INTERNAL_FUZZ_TARGET_H_
#define AFTERSHOCK_FUZZ_INTERNAL_FUZZ_TARGET_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace aftershock::fuzz {

inline std::string_view AsText(const std::uint8_t* data, std::size_t size) {
  return size == 0 ? std::string_view() : std::string_view(reinterpret_cast<const char*>(data), size);
}

// Prints "fuzz invariant broken: <invariant>" (and `detail` when given) to stderr and aborts when
// `holds` is false. An abort is what libFuzzer and the replay test both report as a failure.
void Require(bool holds, std::string_view invariant, std::string_view detail = {});

}  // namespace aftershock::fuzz

#endif  // AFTERSHOCK_FUZZ_INTERNAL_FUZZ_TARGET_H_
