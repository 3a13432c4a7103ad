// ProgressLine: a live progress line while a long scenario runs, so a CI log or a terminal
// shows the run is alive and where it is.
//
// Every period it prints one line "[aftershock] <render()>" to the stream (stderr by default),
// flushed; no carriage-return animation, so logs stay readable. The first line comes after one
// period, so short scenarios print nothing. The destructor stops and joins the thread at once.
//
//   ProgressLine progress(std::chrono::seconds(CurrentFlags().progress_seconds), [&] {
//     return "stage ramp: second 12/60, offered 480, ok 478";
//   });
#ifndef AFTERSHOCK_FRAMEWORK_SCENARIO_PROGRESS_LINE_H_
#define AFTERSHOCK_FRAMEWORK_SCENARIO_PROGRESS_LINE_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <iostream>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

namespace aftershock::scenario {

class ProgressLine {
 public:
  // A zero or negative period turns the reporter off (no thread). `render` runs on the
  // reporter's thread and must be safe to call concurrently with the scenario; an exception it
  // throws is printed instead of a progress line.
  ProgressLine(std::chrono::milliseconds period, std::function<std::string()> render,
                   std::ostream& out = std::cerr);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Lines printed so far.
  int lines_printed() const;

 private:
  void Run();

  const std::chrono::milliseconds period_;
  const std::function<std::string()> render_;
  std::ostream& out_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  int lines_ = 0;
  std::thread thread_;  // last: started after everything it uses
};

}  // namespace aftershock::scenario

#endif  // AFTERSHOCK_FRAMEWORK_SCENARIO_PROGRESS_LINE_H_
