// GreetingService: the consumer example's own system under test, a tiny HTTP/1.1 service on loopback.
//
// It stands for "your service": GET /greeting answers 200 and its greeting ("hello" by default); while in maintenance every request
// answers 503. It runs in the scenario's process (one thread per connection, keep-alive), so the
// example needs no cluster and no binary of aftershock's own. Plain POSIX sockets on purpose: the
// example shows aftershock driving something it knows nothing about.
//
//   GreetingService service;                 // listens on 127.0.0.1:<free port>
//   std::string target = service.address();  // "127.0.0.1:40123"
//   service.SetMaintenance(true);            // every request now answers 503
#ifndef CONSUMER_SERVICE_GREETING_SERVICE_H_
#define CONSUMER_SERVICE_GREETING_SERVICE_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace consumer {

class GreetingService {
 public:
  // Answers `greeting` (plus a newline). Throws std::runtime_error when it cannot listen.
  explicit GreetingService(std::string greeting = "hello");
  ~GreetingService();
  GreetingService(const GreetingService&) = delete;
  GreetingService& operator=(const GreetingService&) = delete;

  std::string address() const;  // "127.0.0.1:<port>"
  void SetMaintenance(bool on) { maintenance_.store(on); }
  bool maintenance() const { return maintenance_.load(); }
  std::uint64_t requests_served() const { return served_.load(); }

 private:
  void AcceptLoop();
  void Serve(int fd);

  std::string greeting_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<bool> maintenance_{false};
  std::atomic<std::uint64_t> served_{0};
  std::mutex mu_;
  std::vector<std::thread> connections_;
  std::thread acceptor_;
};

}  // namespace consumer

#endif  // CONSUMER_SERVICE_GREETING_SERVICE_H_
