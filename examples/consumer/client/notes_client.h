// NotesClient: the consumer example's own synchronous client of the greeting service's notes
// (PUT /notes/<key>, GET /notes/<key>): one blocking HTTP/1.1 exchange per call on a fresh
// connection, within a timeout. It stands for "the client your team already has" (a vendor SDK, a
// libpq wrapper): aftershock drives it through load::BlockingWorkload and never sees its insides.
//
//   consumer::NotesClient client("127.0.0.1:40123");
//   consumer::NotesReply put = client.Put("k1", "v1", std::chrono::milliseconds(500));  // status 204
//   consumer::NotesReply got = client.Get("k1", std::chrono::milliseconds(500));        // 200, body "v1"
//   if (got.status == 0) std::cerr << got.error << (got.sent ? " (after sending)" : " (nothing sent)");
#ifndef CONSUMER_CLIENT_NOTES_CLIENT_H_
#define CONSUMER_CLIENT_NOTES_CLIENT_H_

#include <chrono>
#include <cstdint>
#include <string>

namespace consumer {

struct NotesReply {
  int status = 0;          // 0: no complete response (see error)
  std::string body;
  std::string error;       // why there is no response
  bool sent = false;       // no response: the request had (maybe partly) been written
  bool timed_out = false;  // no response: the timeout expired
};

class NotesClient {
 public:
  // "127.0.0.1:port" (IPv4 only, as the service). Throws std::invalid_argument otherwise.
  explicit NotesClient(const std::string& address);

  NotesReply Put(const std::string& key, const std::string& value, std::chrono::milliseconds timeout) const;
  NotesReply Get(const std::string& key, std::chrono::milliseconds timeout) const;

 private:
  NotesReply Exchange(const std::string& request, std::chrono::milliseconds timeout) const;

  std::string host_;
  std::uint16_t port_ = 0;
};

}  // namespace consumer

#endif  // CONSUMER_CLIENT_NOTES_CLIENT_H_
