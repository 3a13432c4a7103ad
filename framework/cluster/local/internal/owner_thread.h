// OwnerThread: the one long-lived thread that forks every child of the local cluster and runs its
// supervision tick (reconcile replicas, probe readiness, rejoin a killed database member). Every
// child is forked here because the kernel's parent-death signal (die_with_parent) follows the
// forking thread, not the process.
//
//   OwnerThread owner([&] { replicas.Tick(); database.Tick(); }, std::chrono::milliseconds(100));
//   owner.Run([&] { database.Start(); });   // on the owner thread; rethrows what it throws
//   owner.Wake();                            // tick now rather than at the next period
//   owner.Stop();                            // runs what is queued, then joins
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_INTERNAL_OWNER_THREAD_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_INTERNAL_OWNER_THREAD_H_

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>

namespace aftershock::cluster::internal {

class OwnerThread {
 public:
  OwnerThread(std::function<void()> tick, std::chrono::milliseconds period);
  ~OwnerThread() { Stop(); }
  OwnerThread(const OwnerThread&) = delete;
  OwnerThread& operator=(const OwnerThread&) = delete;

  // Runs `task` on the owner thread and waits for it; rethrows what it throws. Throws
  // std::runtime_error once Stop() was called.
  void Run(std::function<void()> task);
  void Wake();
  // Idempotent.
  void Stop();

 private:
  void Loop();

  std::function<void()> tick_;
  std::chrono::milliseconds period_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::packaged_task<void()>> tasks_;
  bool woken_ = false;
  bool exit_ = false;
  std::thread thread_;
};

}  // namespace aftershock::cluster::internal

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_INTERNAL_OWNER_THREAD_H_
