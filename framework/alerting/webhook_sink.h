// An Alertmanager webhook receiver standing in for the on-call tool: a loopback HTTP server that
// records every notification and keeps the incidents they would open (incident_book.h).
//
//   WebhookSink sink({.name = "test", .title_prefix = "[LOAD-TEST] "});
//   std::string url = sink.url();           // http://127.0.0.1:<port>/webhook, for alertmanager.yaml
//   ...
//   for (const Incident& i : sink.Incidents()) ...
//   std::vector<std::string> bodies = sink.RawEvents();
//
// A body that does not parse is still recorded (RawEvents, Events with parse_error) and answered
// with 400, so a format drift shows up instead of vanishing.
#ifndef AFTERSHOCK_FRAMEWORK_ALERTING_WEBHOOK_SINK_H_
#define AFTERSHOCK_FRAMEWORK_ALERTING_WEBHOOK_SINK_H_

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "framework/alerting/incident_book.h"
#include "framework/alerting/internal/loopback_http_server.h"
#include "framework/alerting/wall_time.h"
#include "framework/alerting/webhook_payload.h"

namespace aftershock::alerting {

struct WebhookSinkOptions {
  std::string name{};        // for messages: "test", "production"
  std::string title_prefix{};  // "[LOAD-TEST] " for the test receiver
};

struct WebhookEvent {
  WallTime received_at{};
  std::string body;
  std::optional<WebhookPayload> payload;  // nullopt when the body did not parse
  std::string parse_error;
};

class WebhookSink {
 public:
  explicit WebhookSink(WebhookSinkOptions options);
  WebhookSink(const WebhookSink&) = delete;
  WebhookSink& operator=(const WebhookSink&) = delete;

  const std::string& name() const { return options_.name; }
  int port() const { return server_.port(); }
  std::string url() const;

  std::vector<Incident> Incidents() const;
  std::vector<std::string> RawEvents() const;
  std::vector<WebhookEvent> Events() const;

  // Stops serving (the destructor does too); recorded data stays readable.
  void Stop() { server_.Stop(); }

 private:
  internal::ServerResponse Handle(const internal::ServerRequest& request);

  WebhookSinkOptions options_;
  mutable std::mutex mutex_;
  IncidentBook book_;
  std::vector<WebhookEvent> events_;
  internal::LoopbackHttpServer server_;  // last: it stops before the state it writes to goes away
};

}  // namespace aftershock::alerting

#endif  // AFTERSHOCK_FRAMEWORK_ALERTING_WEBHOOK_SINK_H_
