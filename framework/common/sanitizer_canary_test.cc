// Sanitizer canaries: each sanitizer preset (asan, ubsan, tsan: docs/sanitizers.md) must still
// report the kind of defect it exists for, with the options and suppressions its test preset sets.
// A preset whose options or suppression file hid such a report would pass every test and prove
// nothing; these tests turn red then. Each runs one seeded defect in a death-test child and expects
// the sanitizer's report and a non-zero exit. In a build without that sanitizer it is skipped.
#include <sys/wait.h>

#include <cstdlib>
#include <memory>
#include <thread>

#include <gtest/gtest.h>

#if defined(__SANITIZE_ADDRESS__)
#define AFTERSHOCK_TEST_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#define AFTERSHOCK_TEST_TSAN 1
#endif

// GCC defines no macro for -fsanitize=undefined; its runtime's handlers are linked only then.
extern "C" void __ubsan_handle_add_overflow_abort(void*, void*, void*) __attribute__((weak));

namespace {

// A status that is not a clean exit: the sanitizer ended the child (exit code or signal).
bool NotACleanExit(int status) { return !(WIFEXITED(status) && WEXITSTATUS(status) == 0); }

class SanitizerCanaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The parent may run threads; the child re-executes the binary instead of forking it.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
  }
};

#if defined(AFTERSHOCK_TEST_TSAN)
// Two threads write one plain int with nothing ordering them: ThreadSanitizer reports it whatever
// the threads' actual timing (it judges happens-before, not overlap).
[[noreturn]] void SeededDataRace() {
  auto counter = std::make_unique<int>(0);
  int* shared = counter.get();
  std::thread a([shared] { for (int i = 0; i < 1000; ++i) *shared = *shared + 1; });
  std::thread b([shared] { for (int i = 0; i < 1000; ++i) *shared = *shared + 1; });
  a.join();
  b.join();
  std::exit(0);  // ThreadSanitizer's exit code (66) replaces 0 once it reported
}
#endif

TEST_F(SanitizerCanaryTest, ThreadSanitizerReportsADataRaceInOurOwnCode) {
#if !defined(AFTERSHOCK_TEST_TSAN)
  GTEST_SKIP() << "not a -fsanitize=thread build";
#else
  EXPECT_EXIT(SeededDataRace(), NotACleanExit, "WARNING: ThreadSanitizer: data race");
#endif
}

#if defined(AFTERSHOCK_TEST_ASAN)
[[noreturn]] void SeededUseAfterFree() {
  int* volatile block = new int[4]{1, 2, 3, 4};
  delete[] block;
  volatile int read = block[2];
  (void)read;
  std::exit(0);
}

[[noreturn]] void SeededLeak() {
  void* volatile lost = std::malloc(4096);
  lost = nullptr;
  (void)lost;
  std::exit(0);  // LeakSanitizer runs at exit and turns the code into 23
}
#endif

TEST_F(SanitizerCanaryTest, AddressSanitizerReportsAUseAfterFree) {
#if !defined(AFTERSHOCK_TEST_ASAN)
  GTEST_SKIP() << "not a -fsanitize=address build";
#else
  EXPECT_EXIT(SeededUseAfterFree(), NotACleanExit, "ERROR: AddressSanitizer: heap-use-after-free");
#endif
}

TEST_F(SanitizerCanaryTest, LeakSanitizerReportsALeakOfOurOwn) {
#if !defined(AFTERSHOCK_TEST_ASAN)
  GTEST_SKIP() << "not a -fsanitize=address build";
#else
  EXPECT_EXIT(SeededLeak(), NotACleanExit, "ERROR: LeakSanitizer: detected memory leaks");
#endif
}

[[noreturn]] void SeededSignedOverflow() {
  volatile int big = 2147483647;
  volatile int sum = big + 1;
  (void)sum;
  std::exit(0);
}

TEST_F(SanitizerCanaryTest, UndefinedBehaviorSanitizerReportsASignedOverflow) {
  if (__ubsan_handle_add_overflow_abort == nullptr) GTEST_SKIP() << "not a -fsanitize=undefined build";
  EXPECT_EXIT(SeededSignedOverflow(), NotACleanExit, "runtime error: signed integer overflow");
}

}  // namespace
