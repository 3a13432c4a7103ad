#include "framework/cluster/fault_proxy/internal/connection.h"

#include <algorithm>
#include <utility>

#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/write.hpp>

namespace aftershock::cluster::internal {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using SteadyClock = std::chrono::steady_clock;

Connection::Direction::Direction(tcp::socket& source, tcp::socket& destination,
                                 std::atomic<std::uint64_t>& forwarded_bytes, asio::io_context& io)
    : src(source), dst(destination), forwarded(forwarded_bytes), timer(io), bucket(0, SteadyClock::now()) {}

Connection::Connection(ProxyCore& core, tcp::socket client)
    : core_(core),
      client_(std::move(client)),
      upstream_(core.io),
      up_(client_, upstream_, core.bytes_up, core.io),
      down_(upstream_, client_, core.bytes_down, core.io) {
  core_.active.fetch_add(1);
}

void Connection::Start() {
  boost::system::error_code ignored;
  client_.set_option(tcp::no_delay(true), ignored);
  Read(up_);
  ConnectUpstream();
}

void Connection::ConnectUpstream() {
  // A blackholed proxy accepts but does not reach the upstream, as a partition would not.
  if (closed_ || connecting_ || upstream_connected_ || core_.faults.blackhole) return;
  connecting_ = true;
  upstream_.async_connect(core_.Upstream(), [self = shared_from_this()](const boost::system::error_code& ec) {
    self->connecting_ = false;
    if (self->closed_) return;
    if (ec) {  // The database is unreachable: the client must not hang on a half-open proxy.
      self->Close();
      return;
    }
    self->upstream_connected_ = true;
    boost::system::error_code ignored;
    self->upstream_.set_option(tcp::no_delay(true), ignored);
    self->Read(self->down_);
    self->Pump(self->up_);
  });
}

bool Connection::SourceReady(const Direction& d) const { return &d.src != &upstream_ || upstream_connected_; }
bool Connection::DestinationReady(const Direction& d) const { return &d.dst != &upstream_ || upstream_connected_; }

void Connection::Read(Direction& d) {
  if (closed_ || d.reading || d.src_eof || d.queued_bytes >= kMaxQueuedBytes || !SourceReady(d)) return;
  d.reading = true;
  d.src.async_read_some(
      asio::buffer(d.buffer), [self = shared_from_this(), &d](const boost::system::error_code& ec, std::size_t n) {
        d.reading = false;
        if (self->closed_) return;
        if (n > 0) {
          const auto now = SteadyClock::now();
          Chunk chunk;
          chunk.data.assign(d.buffer.begin(), d.buffer.begin() + static_cast<std::ptrdiff_t>(n));
          chunk.release = self->core_.ReleaseTime(now, d.last_release);
          d.last_release = chunk.release;
          d.queued_bytes += n;
          d.queue.push_back(std::move(chunk));
        }
        if (ec == asio::error::eof) {
          d.src_eof = true;
        } else if (ec) {
          self->Close();
          return;
        }
        self->Pump(d);
        self->Read(d);
      });
}

void Connection::ArmTimer(Direction& d, SteadyClock::time_point at) {
  d.timer_armed = true;
  d.timer.expires_at(at);
  d.timer.async_wait([self = shared_from_this(), &d](const boost::system::error_code&) {
    // Also runs when cancelled by OnFaultsChanged: re-evaluate with the new faults either way.
    d.timer_armed = false;
    if (self->closed_) return;
    self->Pump(d);
  });
}

void Connection::Pump(Direction& d) {
  if (closed_ || d.writing || d.timer_armed) return;
  if (d.queue.empty()) {
    if (d.src_eof && !d.dst_shut && DestinationReady(d)) {
      // Propagate the half-close only after every held byte went out.
      boost::system::error_code ignored;
      d.dst.shutdown(tcp::socket::shutdown_send, ignored);
      d.dst_shut = true;
      MaybeFinish();
    }
    return;
  }
  if (!DestinationReady(d) || core_.faults.blackhole) return;

  const auto now = SteadyClock::now();
  Chunk& head = d.queue.front();
  if (now < head.release) {
    ArmTimer(d, head.release);
    return;
  }
  if (d.bucket.rate() != core_.faults.bandwidth_bytes_per_second) {
    d.bucket.SetRate(core_.faults.bandwidth_bytes_per_second, now);
  }
  const std::size_t want = head.data.size() - head.offset;
  const std::size_t n = d.bucket.Take(now, want);
  if (n == 0) {
    ArmTimer(d, d.bucket.ReadyAt(now, want));
    return;
  }
  d.writing = true;
  // A deque keeps references to its elements valid across push_back, so `head` outlives the write.
  asio::async_write(d.dst, asio::buffer(head.data.data() + head.offset, n),
                    [self = shared_from_this(), &d](const boost::system::error_code& ec, std::size_t written) {
                      d.writing = false;
                      if (self->closed_) return;
                      if (ec) {
                        self->Close();
                        return;
                      }
                      d.forwarded.fetch_add(written);
                      Chunk& front = d.queue.front();
                      front.offset += written;
                      d.queued_bytes -= written;
                      if (front.offset == front.data.size()) d.queue.pop_front();
                      self->Read(d);  // resumes a read paused by back-pressure
                      self->Pump(d);
                    });
}

void Connection::MaybeFinish() {
  if (up_.dst_shut && down_.dst_shut) Close();
}

void Connection::OnFaultsChanged() {
  if (closed_) return;
  if (core_.faults.reset) {
    Reset();
    return;
  }
  ConnectUpstream();
  for (Direction* d : {&up_, &down_}) {
    if (d->timer_armed) {
      d->timer.cancel();  // its handler pumps with the new faults
    } else {
      Pump(*d);
    }
  }
}

void Connection::Reset() {
  if (closed_) return;
  boost::system::error_code ignored;
  for (tcp::socket* s : {&client_, &upstream_}) {
    if (s->is_open()) s->set_option(asio::socket_base::linger(true, 0), ignored);
  }
  core_.resets.fetch_add(1);
  Close();
}

void Connection::Close() {
  if (closed_) return;
  closed_ = true;
  boost::system::error_code ignored;
  client_.close(ignored);
  upstream_.close(ignored);
  up_.timer.cancel();
  down_.timer.cancel();
  core_.active.fetch_sub(1);
  // Callers hold a shared_ptr to this connection, so erasing the table's reference is safe here.
  core_.connections.erase(this);
}

}  // namespace aftershock::cluster::internal
