#include "framework/alerting/webhook_sink.h"

#include <stdexcept>

namespace aftershock::alerting {

WebhookSink::WebhookSink(WebhookSinkOptions options)
    : options_(std::move(options)),
      book_(options_.title_prefix),
      server_([this](const internal::ServerRequest& request) { return Handle(request); }) {}

std::string WebhookSink::url() const {
  return "http://127.0.0.1:" + std::to_string(port()) + "/webhook";
}

internal::ServerResponse WebhookSink::Handle(const internal::ServerRequest& request) {
  if (request.method != "POST") return {405, "text/plain; charset=utf-8", "POST only\n"};
  WebhookEvent event;
  event.received_at = WallClock::now();
  event.body = request.body;
  try {
    event.payload = ParseWebhookPayload(request.body);
  } catch (const std::invalid_argument& e) {
    event.parse_error = e.what();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (event.payload) book_.Apply(*event.payload, event.received_at);
  const bool parsed = event.payload.has_value();
  const std::string error = event.parse_error;
  events_.push_back(std::move(event));
  if (!parsed) return {400, "text/plain; charset=utf-8", error + "\n"};
  return {200, "text/plain; charset=utf-8", "ok\n"};
}

std::vector<Incident> WebhookSink::Incidents() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return book_.incidents();
}

std::vector<std::string> WebhookSink::RawEvents() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> bodies;
  bodies.reserve(events_.size());
  for (const WebhookEvent& event : events_) bodies.push_back(event.body);
  return bodies;
}

std::vector<WebhookEvent> WebhookSink::Events() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return events_;
}

}  // namespace aftershock::alerting
