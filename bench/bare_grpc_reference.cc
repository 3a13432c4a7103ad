#include "bench/bare_grpc_reference.h"

#include <sys/resource.h>
#include <unistd.h>

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "fixtures/targets/pseudonym/pseudonym.grpc.pb.h"
#include "framework/load/grpc_channel.h"

namespace aftershock::bench {
namespace {

namespace v1 = pseudonym::v1;
using SteadyClock = std::chrono::steady_clock;

double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto secs = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + tv.tv_usec / 1e6; };
  return secs(usage.ru_utime) + secs(usage.ru_stime);
}

// The shared state of one closed-loop run; lanes restart themselves from their callbacks.
struct Loop {
  std::vector<std::unique_ptr<v1::PseudonymService::Stub>> stubs;
  std::string namespace_name;
  std::string prefix;
  SteadyClock::time_point stop_at;
  std::atomic<std::uint64_t> next{0}, ok{0}, failed{0};
  std::mutex mu;
  std::condition_variable idle;
  int running = 0;
  SteadyClock::time_point last_completion;
};

struct Lane {
  Loop* loop = nullptr;
  std::unique_ptr<grpc::ClientContext> context;
  v1::CreatePseudonymRequest request;
  v1::Pseudonym response;

  void Start() {
    const std::uint64_t n = loop->next.fetch_add(1, std::memory_order_relaxed);
    context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
    request.set_namespace_name(loop->namespace_name);
    request.set_original_value(loop->prefix + std::to_string(n));
    response.Clear();
    loop->stubs[n % loop->stubs.size()]->async()->Create(context.get(), &request, &response,
                                                         [this](grpc::Status status) { Done(status); });
  }

  void Done(const grpc::Status& status) {
    (status.ok() && !response.pseudonym_value().empty() ? loop->ok : loop->failed)
        .fetch_add(1, std::memory_order_relaxed);
    const auto now = SteadyClock::now();
    if (now < loop->stop_at) return Start();
    std::lock_guard<std::mutex> lock(loop->mu);
    loop->last_completion = std::max(loop->last_completion, now);
    if (--loop->running == 0) loop->idle.notify_all();
  }
};

}  // namespace

BareGrpcRow RunBareGrpcClosedLoop(const std::string& address, const std::string& namespace_name, int channels,
                                  int concurrency, double seconds) {
  Loop loop;
  for (int i = 0; i < channels; ++i) {
    loop.stubs.push_back(v1::PseudonymService::NewStub(load::MakeRoundRobinChannel({address})));
  }
  loop.namespace_name = namespace_name;
  loop.prefix = "bare-" + std::to_string(getpid()) + "-" + std::to_string(concurrency) + "-";
  std::vector<Lane> lanes(static_cast<std::size_t>(concurrency));
  const double cpu_before = ProcessCpuSeconds();
  const auto start = SteadyClock::now();
  loop.stop_at = start + std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(seconds));
  loop.running = concurrency;
  loop.last_completion = start;
  for (Lane& lane : lanes) {
    lane.loop = &loop;
    lane.Start();
  }
  {
    std::unique_lock<std::mutex> lock(loop.mu);
    const auto limit = loop.stop_at + std::chrono::seconds(10);
    if (!loop.idle.wait_until(lock, limit, [&] { return loop.running == 0; })) {
      // The lanes still refer to `loop`: returning would free it under them.
      std::fprintf(stderr, "bare gRPC reference: %d lanes did not finish; aborting\n", loop.running);
      std::abort();
    }
  }
  BareGrpcRow row;
  row.cpu_seconds = ProcessCpuSeconds() - cpu_before;
  row.concurrency = concurrency;
  row.seconds = std::chrono::duration<double>(loop.last_completion - start).count();
  row.ok = loop.ok.load();
  row.failed = loop.failed.load();
  row.calls = row.ok + row.failed;
  return row;
}

BareGrpcRow RunBareGrpcPaced(const std::string& address, const std::string& namespace_name, int channels,
                             double rate, double seconds) {
  Loop loop;
  for (int i = 0; i < channels; ++i) {
    loop.stubs.push_back(v1::PseudonymService::NewStub(load::MakeRoundRobinChannel({address})));
  }
  loop.namespace_name = namespace_name;
  loop.prefix = "bare-paced-" + std::to_string(getpid()) + "-";
  // One lane per call, kept until the end (the calls' state must outlive them; 16 bytes of
  // bookkeeping a call is not what is measured here, and a 5 s run at 20k/s is 100k lanes).
  const auto total = static_cast<std::size_t>(rate * seconds);
  std::vector<Lane> lanes(total);
  const double cpu_before = ProcessCpuSeconds();
  const auto start = SteadyClock::now();
  loop.stop_at = start;  // every lane ends after its one call
  loop.running = static_cast<int>(total);
  loop.last_completion = start;
  const double interval_ns = 1e9 / rate;
  for (std::size_t i = 0; i < total; ++i) {
    std::this_thread::sleep_until(start + std::chrono::nanoseconds(static_cast<std::int64_t>(i * interval_ns)));
    lanes[i].loop = &loop;
    lanes[i].Start();
  }
  {
    std::unique_lock<std::mutex> lock(loop.mu);
    const auto limit = SteadyClock::now() + std::chrono::seconds(10);
    if (!loop.idle.wait_until(lock, limit, [&] { return loop.running == 0; })) {
      std::fprintf(stderr, "bare gRPC reference: %d paced calls did not finish; aborting\n", loop.running);
      std::abort();
    }
  }
  BareGrpcRow row;
  row.cpu_seconds = ProcessCpuSeconds() - cpu_before;
  row.seconds = std::chrono::duration<double>(loop.last_completion - start).count();
  row.ok = loop.ok.load();
  row.failed = loop.failed.load();
  row.calls = row.ok + row.failed;
  return row;
}

}  // namespace aftershock::bench
