// GreetingService: the consumer example's own system under test, a tiny HTTP/1.1 service on loopback.
//
// It stands for "your service": GET /greeting answers 200 and its greeting ("hello" by default);
// PUT /notes/<key> stores the body as the key's note and answers 204 once stored, GET /notes/<key>
// answers 200 and the note, or 404; while in maintenance every request answers 503. It runs in the
// scenario's process (one thread per connection, keep-alive), so the example needs no cluster and no
// binary of aftershock's own. Plain POSIX sockets on purpose: the example shows aftershock driving
// something it knows nothing about.
//
//   GreetingService service;                 // listens on 127.0.0.1:<free port>
//   std::string target = service.address();  // "127.0.0.1:40123"
//   service.SetMaintenance(true);            // every request now answers 503
//   service.SetLoseEvery(50);                // SEEDED DEFECT: every 50th note is acknowledged, then lost
#ifndef CONSUMER_SERVICE_GREETING_SERVICE_H_
#define CONSUMER_SERVICE_GREETING_SERVICE_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>

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
  // SEEDED DEFECT for the verdict scenario: every nth PUT /notes is acknowledged but not stored
  // (0: none lost, the default).
  void SetLoseEvery(std::uint64_t n) { lose_every_.store(n); }
  std::uint64_t notes_lost() const { return notes_lost_.load(); }

 private:
  void AcceptLoop();
  void Serve(int fd);
  // The response to one request (`body`: the request's body, empty for a GET).
  std::string Answer(const std::string& method, const std::string& path, const std::string& body);

  std::string greeting_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<bool> maintenance_{false};
  std::atomic<std::uint64_t> served_{0};
  std::atomic<std::uint64_t> lose_every_{0};
  std::atomic<std::uint64_t> notes_put_{0};
  std::atomic<std::uint64_t> notes_lost_{0};
  std::mutex notes_mu_;
  std::map<std::string, std::string> notes_;
  // Connections being served, one detached thread each; the destructor waits for them to end (each
  // looks at stop_ every 100 ms), so a finished connection frees its slot at once.
  std::mutex mu_;
  std::condition_variable connection_ended_;
  std::size_t active_connections_ = 0;
  std::thread acceptor_;
};

}  // namespace consumer

#endif  // CONSUMER_SERVICE_GREETING_SERVICE_H_
