#include "framework/cluster/fault_proxy/fault_proxy.h"

#include <future>
#include <mutex>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>

#include "framework/cluster/fault_proxy/internal/connection.h"
#include "framework/cluster/fault_proxy/internal/loopback.h"
#include "framework/cluster/fault_proxy/internal/proxy_core.h"

namespace aftershock::cluster {
namespace internal {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// How long SetFaults and the destructor wait for the io thread before giving up on it.
constexpr auto kIoThreadWait = std::chrono::seconds(3);

class ProxyImpl {
 public:
  ProxyImpl(std::string name, const tcp::endpoint& listen, const tcp::endpoint& upstream)
      : name_(std::move(name)),
        work_(asio::make_work_guard(io_)),
        core_(io_, std::random_device{}()),
        acceptor_(io_) {
    core_.upstream = upstream;
    acceptor_.open(listen.protocol());
    acceptor_.set_option(tcp::acceptor::reuse_address(true));
    acceptor_.bind(listen);
    acceptor_.listen();
    port_ = acceptor_.local_endpoint().port();
    Accept();
    thread_ = std::thread([this, done = std::move(done_promise_)]() mutable {
      io_.run();
      done.set_value();
    });
  }

  ~ProxyImpl() {
    asio::post(io_, [this] {
      core_.stopping = true;
      boost::system::error_code ignored;
      acceptor_.close(ignored);
      for (auto& c : Snapshot()) c->Close();
      core_.connections.clear();
      work_.reset();  // io_.run() returns once the aborted handlers have run
    });
    if (done_.wait_for(kIoThreadWait) != std::future_status::ready) io_.stop();
    thread_.join();
    // Handlers left behind by io_.stop() are destroyed with io_, after the connections table.
  }

  std::uint16_t port() const { return port_; }
  const std::string& name() const { return name_; }

  void SetFaults(const ProxyFaults& faults) {
    {
      std::lock_guard lock(faults_mu_);
      faults_ = faults;
    }
    auto applied = std::make_shared<std::promise<void>>();
    auto done = applied->get_future();
    asio::post(io_, [this, faults, applied] {
      core_.faults = faults;
      for (auto& c : Snapshot()) c->OnFaultsChanged();
      applied->set_value();
    });
    if (io_.get_executor().running_in_this_thread()) return;  // cannot wait for ourselves
    done.wait_for(kIoThreadWait);
  }

  ProxyFaults faults() const {
    std::lock_guard lock(faults_mu_);
    return faults_;
  }

  void SetUpstream(const tcp::endpoint& upstream) {
    std::lock_guard lock(core_.upstream_mu);
    core_.upstream = upstream;
  }

  FaultProxy::Stats stats() const {
    FaultProxy::Stats s;
    s.accepted = core_.accepted.load();
    s.active = core_.active.load();
    s.bytes_up = core_.bytes_up.load();
    s.bytes_down = core_.bytes_down.load();
    s.resets = core_.resets.load();
    return s;
  }

 private:
  std::vector<std::shared_ptr<Connection>> Snapshot() const {
    std::vector<std::shared_ptr<Connection>> out;
    out.reserve(core_.connections.size());
    for (const auto& [ptr, c] : core_.connections) out.push_back(c);
    return out;
  }

  void Accept() {
    acceptor_.async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
      if (core_.stopping || !acceptor_.is_open()) return;
      if (!ec) {
        core_.accepted.fetch_add(1);
        if (core_.faults.reset) {
          boost::system::error_code ignored;
          socket.set_option(asio::socket_base::linger(true, 0), ignored);
          socket.close(ignored);
          core_.resets.fetch_add(1);
        } else {
          auto c = std::make_shared<Connection>(core_, std::move(socket));
          core_.connections.emplace(c.get(), c);
          c->Start();
        }
      }
      Accept();
    });
  }

  // Declared first so that it is destroyed last: every socket and timer below belongs to it.
  asio::io_context io_;
  std::string name_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  ProxyCore core_;
  tcp::acceptor acceptor_;
  std::uint16_t port_ = 0;
  mutable std::mutex faults_mu_;
  ProxyFaults faults_;
  std::promise<void> done_promise_;
  std::future<void> done_ = done_promise_.get_future();
  std::thread thread_;
};

}  // namespace internal

std::unique_ptr<FaultProxy> FaultProxy::Start(std::string name, std::string listen_host, std::uint16_t listen_port,
                                              std::string upstream_host, std::uint16_t upstream_port) {
  using boost::asio::ip::tcp;
  const tcp::endpoint listen(internal::ParseLoopbackHost(listen_host), listen_port);
  const tcp::endpoint upstream(internal::ParseLoopbackHost(upstream_host), upstream_port);
  return std::unique_ptr<FaultProxy>(
      new FaultProxy(std::make_unique<internal::ProxyImpl>(std::move(name), listen, upstream)));
}

FaultProxy::FaultProxy(std::unique_ptr<internal::ProxyImpl> impl) : impl_(std::move(impl)) {}
FaultProxy::~FaultProxy() = default;

std::uint16_t FaultProxy::port() const { return impl_->port(); }
const std::string& FaultProxy::name() const { return impl_->name(); }
void FaultProxy::SetFaults(const ProxyFaults& faults) { impl_->SetFaults(faults); }
ProxyFaults FaultProxy::faults() const { return impl_->faults(); }
void FaultProxy::ClearFaults() { impl_->SetFaults(ProxyFaults{}); }

void FaultProxy::SetUpstream(std::string host, std::uint16_t port) {
  impl_->SetUpstream(boost::asio::ip::tcp::endpoint(internal::ParseLoopbackHost(host), port));
}

FaultProxy::Stats FaultProxy::stats() const { return impl_->stats(); }

ScopedProxyFault::ScopedProxyFault(FaultProxy& proxy, ProxyFaults faults)
    : proxy_(&proxy), previous_(proxy.faults()) {
  proxy_->SetFaults(faults);
}

ScopedProxyFault::~ScopedProxyFault() { Revert(); }

void ScopedProxyFault::Revert() {
  if (reverted_) return;
  reverted_ = true;
  proxy_->SetFaults(previous_);
}

}  // namespace aftershock::cluster
