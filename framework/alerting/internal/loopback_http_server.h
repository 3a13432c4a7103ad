// A small HTTP/1.1 server on 127.0.0.1 with an OS-chosen port, running on its own thread.
//
// Used by the webhook sinks (Alertmanager posts to them) and by tests that need a fake scrape
// target. The handler runs on the server thread, one request at a time; keep-alive connections are
// served until the peer closes them or the server stops.
//
//   LoopbackHttpServer server([](const ServerRequest& r) {
//     return ServerResponse{.status = 200, .body = "ok"};
//   });
//   int port = server.port();
//   ...
//   server.Stop();  // also done by the destructor
#ifndef AFTERSHOCK_FRAMEWORK_ALERTING_INTERNAL_LOOPBACK_HTTP_SERVER_H_
#define AFTERSHOCK_FRAMEWORK_ALERTING_INTERNAL_LOOPBACK_HTTP_SERVER_H_

#include <functional>
#include <memory>
#include <string>

namespace aftershock::alerting::internal {

struct ServerRequest {
  std::string method;  // "GET", "POST", ...
  std::string target;  // path and query
  std::string body;
};

struct ServerResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

class LoopbackHttpServer {
 public:
  using Handler = std::function<ServerResponse(const ServerRequest&)>;

  // Binds 127.0.0.1:0 and starts serving; throws std::runtime_error when it cannot bind.
  explicit LoopbackHttpServer(Handler handler);
  ~LoopbackHttpServer();
  LoopbackHttpServer(const LoopbackHttpServer&) = delete;
  LoopbackHttpServer& operator=(const LoopbackHttpServer&) = delete;

  int port() const { return port_; }
  // Closes the listener and every connection and joins the thread. Idempotent.
  void Stop();

 private:
  struct State;
  std::unique_ptr<State> state_;
  int port_ = 0;
};

}  // namespace aftershock::alerting::internal

#endif  // AFTERSHOCK_FRAMEWORK_ALERTING_INTERNAL_LOOPBACK_HTTP_SERVER_H_
