// One-shot HTTP/1.1 requests and the pre-flight health wait, for fixtures and test set-up.
//
// HttpFetch opens a connection, sends one request, reads the reply and closes, all within one
// timeout: for control calls (admin endpoints, /metrics, health), not for load (see
// framework/load/http_workload.h). Targets must be on loopback unless explicitly allowed.
//
//   HttpReply r = HttpFetch("127.0.0.1:8080", {.method = "POST", .target = "/admin/failure-rate", .body = "0.5"},
//                           std::chrono::seconds(2));
//   if (r.status != 200) FAIL() << r.error;
//   const std::string* retry_after = FindHttpHeader(r.headers, "retry-after");  // case-insensitive
//   std::string why;
//   if (!WaitForHealthy("127.0.0.1:8080", "/healthz", std::chrono::seconds(60), &why)) FAIL() << why;
#ifndef AFTERSHOCK_FRAMEWORK_LOAD_HTTP_CLIENT_H_
#define AFTERSHOCK_FRAMEWORK_LOAD_HTTP_CLIENT_H_

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "framework/common/call_code.h"

namespace aftershock::load {

// Header fields as (name, value) pairs, in the order sent or received; a name may repeat.
using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

// The value of the first field named `name` (ASCII case-insensitive, as HTTP field names are), or
// nullptr when there is none.
const std::string* FindHttpHeader(std::span<const std::pair<std::string, std::string>> headers,
                                  std::string_view name);
// ASCII case-insensitive equality (HTTP field names).
bool HttpFieldNameEquals(std::string_view a, std::string_view b);

struct HttpRequest {
  std::string method = "GET";
  std::string target = "/";  // path and query, e.g. "/work?x=1"
  HttpHeaders headers{};
  std::string body{};
};

struct HttpReply {
  int status = 0;     // 0: no response arrived (see error)
  HttpHeaders headers{};  // every response header field, as received (empty with no response)
  std::string body{};
  std::string error{};  // why there is no response; empty when status != 0
  bool sent = false;       // no response: the request had (maybe partly) been written (write/read failed)
  bool timed_out = false;  // no response: the timeout expired
};

// The call code of a reply for a workload or verifier (docs/call-codes.md): its HTTP status; with
// no response kCodeNotSent when resolve/connect failed or timed out (certainly not applied),
// kCodeDeadlineExceeded when it timed out after sending, kCodeTransportError when the connection
// failed after sending (both may have been applied).
CallCode HttpReplyCode(const HttpReply& reply);

struct HttpHostPort {
  std::string host{};  // without brackets for IPv6
  std::uint16_t port = 0;
};

// Splits "127.0.0.1:8080" or "[::1]:8080". Throws std::invalid_argument for a malformed address or,
// unless allowed, a host outside 127.0.0.0/8 and ::1 (names are accepted only when allowed).
HttpHostPort ParseHttpHostPort(const std::string& host_port, bool allow_non_loopback = false);

// Never throws for transport problems: they come back in HttpReply::error (status 0).
// Throws std::invalid_argument for a bad or non-loopback address.
HttpReply HttpFetch(const std::string& host_port, const HttpRequest& request, std::chrono::milliseconds timeout,
                    bool allow_non_loopback = false);

// Pre-flight: polls GET `path` until it answers 200 or `bound` has passed (the seed waits up to 60 s).
// On false, *last_error (if given) says what the last attempt saw and how long it waited.
bool WaitForHealthy(const std::string& host_port, const std::string& path, std::chrono::seconds bound,
                    std::string* last_error, bool allow_non_loopback = false);

}  // namespace aftershock::load

#endif  // AFTERSHOCK_FRAMEWORK_LOAD_HTTP_CLIENT_H_
