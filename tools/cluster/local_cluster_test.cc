// The local cluster end to end: database, proxies and replicas, driven through the control API.
//
// One cluster serves every case: under ctest it is the one ctest/with_local_cluster.cmake brought up for
// this one test (AFTERSHOCK_CLUSTER_STATE names it); run directly, SetUpTestSuite starts one in-process and serves
// it on a temporary socket. Each case starts from steady state.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include "fixtures/targets/pseudonym/pseudonym.grpc.pb.h"
#include "fixtures/targets/pseudonym/replica_spec.h"
#include "fixtures/targets/pseudonym/test_control_client.h"
#include "framework/cluster/control/cluster_client.h"
#include "framework/cluster/control/cluster_control_service.h"
#include "framework/cluster/local/local_cluster.h"

namespace aftershock::cluster {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

std::int64_t NowUnixMs() {
  return std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

const v1::Replica& ReplicaNamed(const v1::ClusterStatus& status, const std::string& name) {
  for (const v1::Replica& r : status.replicas()) {
    if (r.name() == name) return r;
  }
  throw std::runtime_error("no replica " + name + " in status");
}

const v1::DatabaseMember& MemberNamed(const v1::ClusterStatus& status, const std::string& name) {
  for (const v1::DatabaseMember& m : status.members()) {
    if (m.name() == name) return m;
  }
  throw std::runtime_error("no member " + name + " in status");
}

int ReadyCount(const v1::ClusterStatus& status) {
  int ready = 0;
  for (const v1::Replica& r : status.replicas()) ready += r.ready() ? 1 : 0;
  return ready;
}

class LocalClusterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    try {
      const char* env = std::getenv("AFTERSHOCK_CLUSTER_STATE");
      if (env != nullptr && *env != '\0' && fs::exists(env)) {
        client_ = std::make_unique<ClusterClient>(ClusterClient::Attach(env));
        std::cerr << "[test] attached to the cluster of " << env << "\n";
        return;
      }
      const auto t0 = Clock::now();
      LocalClusterOptions options;
      options.replicas = pseudonym::PseudonymReplicaSpec({});
      cluster_ = LocalCluster::Start(options).release();
      socket_ = fs::temp_directory_path() / ("local-cluster-test-" + std::to_string(::getpid()) + ".sock");
      server_ = ClusterControlServer::Start(*cluster_, socket_, [] {}).release();
      client_ = std::make_unique<ClusterClient>(ClusterClient::Connect(socket_));
      std::cerr << "[test] in-process cluster steady after "
                << std::chrono::duration<double>(Clock::now() - t0).count() << " s (store "
                << cluster_->ReplicaStore() << ")\n";
    } catch (const std::exception& e) {
      setup_error_ = new std::string(e.what());
    }
  }

  static void TearDownTestSuite() {
    client_.reset();
    delete server_;
    server_ = nullptr;
    delete cluster_;
    cluster_ = nullptr;
    delete setup_error_;
    setup_error_ = nullptr;
  }

  void SetUp() override {
    ASSERT_EQ(setup_error_, nullptr) << *setup_error_;
    ASSERT_NE(client_, nullptr);
    const v1::ClusterStatus status = client_->WaitSteady(seconds(120));
    ASSERT_TRUE(status.steady()) << status.not_steady_reason();
  }

  ClusterClient& client() { return *client_; }

  // Polls Status() until pred holds or `timeout` passes; returns the last status.
  template <typename Pred>
  v1::ClusterStatus PollUntil(milliseconds timeout, Pred pred) {
    const auto deadline = Clock::now() + timeout;
    v1::ClusterStatus status = client().Status();
    while (!pred(status) && Clock::now() < deadline) {
      std::this_thread::sleep_for(milliseconds(100));
      status = client().Status();
    }
    return status;
  }

  static inline LocalCluster* cluster_ = nullptr;
  static inline ClusterControlServer* server_ = nullptr;
  static inline std::unique_ptr<ClusterClient> client_;
  static inline std::string socket_;
  static inline std::string* setup_error_ = nullptr;
};

TEST_F(LocalClusterTest, ReachesSteadyState) {
  const v1::ClusterStatus status = client().Status();
  EXPECT_TRUE(status.steady());
  EXPECT_EQ(status.not_steady_reason(), "");
  ASSERT_EQ(status.replicas_size(), 3);
  std::set<int> pids;
  const char* names[] = {"a", "b", "c"};
  for (int i = 0; i < 3; ++i) {
    const v1::Replica& r = status.replicas(i);
    EXPECT_EQ(r.name(), names[i]);
    EXPECT_EQ(r.node(), std::string("node-") + names[i]);
    EXPECT_EQ(r.zone(), std::string("zone-") + names[i]);
    EXPECT_EQ(r.address().rfind("127.0.0.1:", 0), 0u) << r.address();
    EXPECT_TRUE(r.ready());
    EXPECT_FALSE(r.node_cordoned());
    EXPECT_GT(r.pid(), 0);
    pids.insert(r.pid());
  }
  EXPECT_EQ(pids.size(), 3u);
  ASSERT_EQ(status.members_size(), 3);
  int leaders = 0;
  int sync = 0;
  for (const v1::DatabaseMember& m : status.members()) {
    EXPECT_EQ(m.state(), "running") << m.name();
    leaders += m.role() == "leader" ? 1 : 0;
    sync += m.role() == "sync_standby" ? 1 : 0;
    EXPECT_GT(m.proxy_port(), 0);
    EXPECT_NE(m.proxy_port(), m.pg_port());
    EXPECT_EQ(m.node(), "node-" + m.name().substr(3));
  }
  EXPECT_EQ(leaders, 1);
  EXPECT_EQ(sync, 1);
  EXPECT_EQ(status.primary().rfind("pg-", 0), 0u) << status.primary();
  EXPECT_TRUE(status.replica_store() == "memory" || status.replica_store() == "postgres") << status.replica_store();
  EXPECT_GT(status.lease_expires_unix_ms(), NowUnixMs());
  EXPECT_EQ(client().ReplicaAddresses().size(), 3u);
  EXPECT_EQ(client().ReplicaAddresses()[1], status.replicas(1).address());
}

TEST_F(LocalClusterTest, KilledReplicaIsRestartedWithTheSameAddress) {
  const v1::Replica before = ReplicaNamed(client().Status(), "b");
  const v1::ActionResult result = client().KillReplica("b");
  EXPECT_EQ(result.target(), "b");
  EXPECT_EQ(result.summary(), "killed replica b (pid " + std::to_string(before.pid()) + ")");
  const v1::ClusterStatus after = PollUntil(seconds(30), [&](const v1::ClusterStatus& s) {
    const v1::Replica& b = ReplicaNamed(s, "b");
    return b.pid() > 0 && b.pid() != before.pid() && b.ready();
  });
  const v1::Replica& b = ReplicaNamed(after, "b");
  EXPECT_TRUE(b.ready());
  EXPECT_NE(b.pid(), before.pid());
  EXPECT_GT(b.pid(), 0);
  EXPECT_EQ(b.restarts(), before.restarts() + 1);
  EXPECT_EQ(b.address(), before.address());
  EXPECT_THROW(client().KillReplica("z"), ClusterClientError);
}

TEST_F(LocalClusterTest, KilledPrimaryFailsOverAndRejoins) {
  const std::string old_primary = client().Status().primary();
  ASSERT_FALSE(old_primary.empty());
  const v1::ActionResult result = client().KillDatabasePrimary();
  EXPECT_EQ(result.target(), old_primary);
  EXPECT_EQ(result.summary().rfind("killed primary " + old_primary, 0), 0u) << result.summary();
  // Never two instances down: a second kill is refused while the first has not healed.
  try {
    client().KillDatabasePrimary();
    ADD_FAILURE() << "a second primary kill was not refused";
  } catch (const ClusterClientError& e) {
    EXPECT_EQ(e.code(), grpc::StatusCode::FAILED_PRECONDITION) << e.what();
  }
  const v1::ClusterStatus failed_over = PollUntil(seconds(60), [&](const v1::ClusterStatus& s) {
    return !s.primary().empty() && s.primary() != old_primary;
  });
  EXPECT_NE(failed_over.primary(), old_primary);
  EXPECT_FALSE(failed_over.primary().empty());
  const v1::ClusterStatus healed = client().WaitSteady(seconds(120));
  EXPECT_TRUE(healed.steady()) << healed.not_steady_reason();
  EXPECT_EQ(MemberNamed(healed, old_primary).state(), "running");
  EXPECT_NE(MemberNamed(healed, old_primary).role(), "leader");
}

TEST_F(LocalClusterTest, ReplicationGoesThroughItsOwnProxiesWhoseFaultsAreSetAndCleared) {
  v1::ClusterStatus status = client().Status();
  EXPECT_EQ(status.replication(), "synchronous");
  std::set<int> ports;
  for (const v1::DatabaseMember& m : status.members()) {
    EXPECT_GT(m.replication_proxy_port(), 0) << m.name();
    EXPECT_NE(m.replication_proxy_port(), m.pg_port()) << m.name();
    EXPECT_NE(m.replication_proxy_port(), m.proxy_port()) << m.name();
    ports.insert(m.replication_proxy_port());
  }
  EXPECT_EQ(ports.size(), 3u);

  v1::LinkFaults slow;
  slow.set_latency_ms(20);
  const v1::ActionResult set = client().SetReplicationLinkFaults("", slow);
  EXPECT_EQ(set.target(), "pg-a,pg-b,pg-c");
  status = client().Status();
  for (const v1::DatabaseMember& m : status.members()) {
    EXPECT_EQ(m.replication_link_faults().latency_ms(), 20u) << m.name();
    EXPECT_EQ(m.link_faults().latency_ms(), 0u) << m.name() << ": the service links are untouched";
  }
  // 20 ms more per hop: synchronous commits slow down but replication keeps streaming.
  EXPECT_NO_THROW(client().WaitSteady(seconds(30)));
  client().ClearReplicationLinkFaults();
  status = client().Status();
  for (const v1::DatabaseMember& m : status.members()) {
    EXPECT_EQ(m.replication_link_faults().latency_ms(), 0u) << m.name();
  }
  try {
    client().SetReplicationLinkFaults("pg-q", slow);
    ADD_FAILURE() << "an unknown member was accepted";
  } catch (const ClusterClientError& e) {
    EXPECT_EQ(e.code(), grpc::StatusCode::INVALID_ARGUMENT);
  }
}

TEST_F(LocalClusterTest, ReplicationModeSwitchesToAsynchronousAndBack) {
  const v1::ActionResult async = client().SetReplicationMode(false, 64 << 20);
  EXPECT_EQ(async.summary(), "replication is asynchronous (maximum_lag_on_failover 67108864 bytes)");
  v1::ClusterStatus status = client().Status();
  EXPECT_EQ(status.replication(), "asynchronous");
  for (const v1::DatabaseMember& m : status.members()) EXPECT_NE(m.role(), "sync_standby") << m.name();
  // Steady without a sync standby while asynchronous.
  EXPECT_NO_THROW(client().WaitSteady(seconds(30)));

  const v1::ActionResult sync = client().SetReplicationMode(true);
  EXPECT_EQ(sync.summary(), "replication is synchronous (strict, one named standby)");
  status = client().WaitSteady(seconds(30));
  EXPECT_EQ(status.replication(), "synchronous");
  int sync_standbys = 0;
  for (const v1::DatabaseMember& m : status.members()) sync_standbys += m.role() == "sync_standby" ? 1 : 0;
  EXPECT_EQ(sync_standbys, 1);
}

TEST_F(LocalClusterTest, LinkFaultsAreSetOnTheProxiesAndCleared) {
  v1::LinkFaults slow;
  slow.set_latency_ms(50);
  slow.set_jitter_ms(5);
  client().SetDatabaseLinkFaults("pg-b", slow);
  v1::ClusterStatus status = client().Status();
  EXPECT_EQ(MemberNamed(status, "pg-b").link_faults().latency_ms(), 50u);
  EXPECT_EQ(MemberNamed(status, "pg-b").link_faults().jitter_ms(), 5u);
  EXPECT_EQ(MemberNamed(status, "pg-a").link_faults().latency_ms(), 0u);

  v1::LinkFaults blackhole;
  blackhole.set_blackhole(true);
  const v1::ActionResult all = client().SetDatabaseLinkFaults("", blackhole);
  EXPECT_EQ(all.target(), "pg-a,pg-b,pg-c");
  status = client().Status();
  for (const v1::DatabaseMember& m : status.members()) {
    EXPECT_TRUE(m.link_faults().blackhole()) << m.name();
    EXPECT_EQ(m.link_faults().latency_ms(), 0u) << m.name();
  }
  client().ClearDatabaseLinkFaults();
  status = client().Status();
  for (const v1::DatabaseMember& m : status.members()) {
    EXPECT_FALSE(m.link_faults().blackhole()) << m.name();
    EXPECT_EQ(m.link_faults().latency_ms(), 0u) << m.name();
  }
  try {
    client().SetDatabaseLinkFaults("pg-q", blackhole);
    ADD_FAILURE() << "an unknown member was accepted";
  } catch (const ClusterClientError& e) {
    EXPECT_EQ(e.code(), grpc::StatusCode::INVALID_ARGUMENT);
  }
}

grpc::StatusCode CreateThrough(const std::string& address, const std::string& original, milliseconds deadline) {
  auto stub = pseudonym::v1::PseudonymService::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + deadline);
    pseudonym::v1::CreateNamespaceRequest request;
    request.set_name("cluster-link-test");
    pseudonym::v1::Namespace ns;
    const grpc::Status status = stub->CreateNamespace(&context, request, &ns);
    if (!status.ok() && status.error_code() != grpc::StatusCode::ALREADY_EXISTS) return status.error_code();
  }
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + deadline);
  pseudonym::v1::CreatePseudonymRequest request;
  request.set_namespace_name("cluster-link-test");
  request.set_original_value(original);
  pseudonym::v1::Pseudonym out;
  return stub->Create(&context, request, &out).error_code();
}

TEST_F(LocalClusterTest, BlackholedDatabaseLinksMakeReplicaCallsTimeOut) {
  const v1::ClusterStatus status = client().Status();
  if (status.replica_store() != "postgres") GTEST_SKIP() << "replicas use the " << status.replica_store() << " store";
  const std::string address = ReplicaNamed(status, "a").address();
  ASSERT_EQ(CreateThrough(address, "before-" + std::to_string(NowUnixMs()), seconds(10)), grpc::StatusCode::OK);
  v1::LinkFaults blackhole;
  blackhole.set_blackhole(true);
  client().SetDatabaseLinkFaults("", blackhole);
  const grpc::StatusCode during = CreateThrough(address, "during-" + std::to_string(NowUnixMs()), milliseconds(1500));
  client().ClearDatabaseLinkFaults();
  EXPECT_TRUE(during == grpc::StatusCode::DEADLINE_EXCEEDED || during == grpc::StatusCode::UNAVAILABLE)
      << "code " << static_cast<int>(during);
  // Healed: calls succeed again (bounded).
  grpc::StatusCode after = grpc::StatusCode::UNKNOWN;
  const auto deadline = Clock::now() + seconds(40);
  while (after != grpc::StatusCode::OK && Clock::now() < deadline) {
    after = CreateThrough(address, "after-" + std::to_string(NowUnixMs()), seconds(5));
    if (after != grpc::StatusCode::OK) std::this_thread::sleep_for(milliseconds(500));
  }
  EXPECT_EQ(after, grpc::StatusCode::OK);
}

TEST_F(LocalClusterTest, RollingRestartReplacesOneReplicaAtATime) {
  const v1::ClusterStatus before = client().Status();
  std::atomic<bool> done{false};
  std::string error;
  v1::ActionResult result;
  std::thread restart([&] {
    try {
      v1::RollingRestartRequest request;
      request.set_grace_ms(5000);
      request.set_min_ready_ms(1000);
      request.set_timeout_ms(90000);
      result = client().RollingRestart(request);
    } catch (const std::exception& e) {
      error = e.what();
    }
    done = true;
  });
  int min_ready = 3;
  int samples = 0;
  const auto deadline = Clock::now() + seconds(150);
  while (!done && Clock::now() < deadline) {
    min_ready = std::min(min_ready, ReadyCount(client().Status()));
    ++samples;
    std::this_thread::sleep_for(milliseconds(50));
  }
  restart.join();
  ASSERT_EQ(error, "");
  EXPECT_GT(samples, 5);
  EXPECT_GE(min_ready, 2) << "more than one replica was unavailable during the rolling restart";
  const v1::ClusterStatus after = client().Status();
  for (int i = 0; i < 3; ++i) {
    EXPECT_NE(after.replicas(i).pid(), before.replicas(i).pid()) << after.replicas(i).name();
    EXPECT_TRUE(after.replicas(i).ready()) << after.replicas(i).name();
    EXPECT_EQ(after.replicas(i).restarts(), before.replicas(i).restarts()) << "a rollout is not a crash";
  }
  EXPECT_NE(result.summary().find("a pid " + std::to_string(before.replicas(0).pid()) + " -> "), std::string::npos)
      << result.summary();
}

TEST_F(LocalClusterTest, DrainedNodeKeepsItsReplicaStoppedUntilUncordoned) {
  const v1::ActionResult drained = client().Drain("node-b", seconds(60), seconds(5));
  EXPECT_EQ(drained.target(), "node-b");
  EXPECT_NE(drained.summary().find("evicted replica b"), std::string::npos) << drained.summary();
  EXPECT_NE(drained.summary().find("exit 0"), std::string::npos) << "graceful: " << drained.summary();
  // Longer than the longest restart back-off: a cordoned node gets nothing back.
  std::this_thread::sleep_for(seconds(6));
  v1::ClusterStatus status = client().Status();
  EXPECT_EQ(ReplicaNamed(status, "b").pid(), 0);
  EXPECT_FALSE(ReplicaNamed(status, "b").ready());
  EXPECT_TRUE(ReplicaNamed(status, "b").node_cordoned());
  EXPECT_TRUE(status.steady()) << "a cordoned-away replica does not count: " << status.not_steady_reason();

  const v1::ActionResult uncordoned = client().Uncordon("node-b");
  EXPECT_EQ(uncordoned.target(), "node-b");
  status = client().Status();
  EXPECT_GT(ReplicaNamed(status, "b").pid(), 0);
  EXPECT_TRUE(ReplicaNamed(status, "b").ready());
  EXPECT_FALSE(ReplicaNamed(status, "b").node_cordoned());
}

TEST_F(LocalClusterTest, DrainTimesOutWhenTheDisruptionBudgetIsSpent) {
  const v1::Replica c_before = ReplicaNamed(client().Status(), "c");
  client().KillReplica("a");  // a is unavailable for at least its restart back-off
  try {
    client().Drain("node-c", milliseconds(200), seconds(5));
    ADD_FAILURE() << "the drain did not time out";
  } catch (const ClusterClientError& e) {
    EXPECT_EQ(e.code(), grpc::StatusCode::DEADLINE_EXCEEDED) << e.what();
    EXPECT_NE(std::string(e.what()).find("replica a"), std::string::npos) << e.what();
  }
  v1::ClusterStatus status = client().Status();
  EXPECT_EQ(ReplicaNamed(status, "c").pid(), c_before.pid()) << "nothing was evicted";
  EXPECT_TRUE(ReplicaNamed(status, "c").node_cordoned());
  client().Uncordon("node-c");
  status = client().WaitSteady(seconds(60));
  EXPECT_FALSE(ReplicaNamed(status, "c").node_cordoned());
  EXPECT_EQ(ReplicaNamed(status, "c").pid(), c_before.pid());
}

TEST_F(LocalClusterTest, ReplicaDefectsReachTheReplicas) {
  v1::ReplicaDefectsRequest request;
  request.set_replica("c");
  (*request.mutable_defects())["unavailable-rate"] = "0.25";
  EXPECT_EQ(client().SetReplicaDefects(request).target(), "c");
  const std::string address_c = ReplicaNamed(client().Status(), "c").address();
  const std::string address_a = ReplicaNamed(client().Status(), "a").address();
  EXPECT_DOUBLE_EQ(pseudonym::TestControlClient(address_c).GetDefects().unavailable_rate(), 0.25);
  EXPECT_DOUBLE_EQ(pseudonym::TestControlClient(address_a).GetDefects().unavailable_rate(), 0.0);
  EXPECT_EQ(client().SetReplicaDefects(v1::ReplicaDefectsRequest{}).target(), "a,b,c");
  EXPECT_DOUBLE_EQ(pseudonym::TestControlClient(address_c).GetDefects().unavailable_rate(), 0.0);
}

TEST_F(LocalClusterTest, CollectArtifactsWritesLogsAndStatus) {
  const fs::path dir = fs::temp_directory_path() / ("local-cluster-artifacts-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const v1::ActionResult result = client().CollectArtifacts(dir.string());
  EXPECT_EQ(result.target(), dir.string());
  for (const char* file : {"status.txt", "replica-a.log", "replica-b.log", "replica-c.log", "database/etcd.log",
                           "database/a.log", "database/b.log", "database/c.log"}) {
    EXPECT_TRUE(fs::exists(dir / file)) << file;
  }
  std::ifstream in(dir / "status.txt");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("steady: true"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("role: \"leader\""), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("name: \"c\""), std::string::npos) << text.str();
  fs::remove_all(dir);
}

// The dead-man's switch: a holder applies every kind of fault the supervisor holds, then stops
// renewing (as a SIGKILLed scenario does); the supervisor reverts all of them by itself.
TEST_F(LocalClusterTest, FaultsUnderALeaseThatIsNotRenewedAreRevertedBySupervisor) {
  const std::string holder = "local_cluster_test (pid " + std::to_string(::getpid()) + ")";
  const milliseconds ttl(3000);
  const std::uint32_t expiries_before = client().Status().fault_lease_expiries();
  // Renewed before each step (the slow ones first), as a live scenario would.
  client().RenewFaultLease(holder, seconds(60));
  client().Drain("node-b", seconds(60), seconds(5));
  client().SetReplicationMode(false, 0);
  client().RenewFaultLease(holder, ttl);
  v1::LinkFaults slow;
  slow.set_latency_ms(30);
  client().SetDatabaseLinkFaults("pg-a", slow);
  client().SetReplicationLinkFaults("pg-c", slow);
  v1::ReplicaDefectsRequest defects;
  defects.set_replica("c");
  (*defects.mutable_defects())["internal-rate"] = "0.1";
  client().SetReplicaDefects(defects);
  client().RenewFaultLease(holder, ttl);
  v1::ClusterStatus status = client().Status();
  const std::vector<std::string> applied = FaultsInForce(status);
  ASSERT_EQ(applied.size(), 5u) << ::testing::PrintToString(applied);
  ASSERT_EQ(status.fault_lease_holders_size(), 1);
  EXPECT_EQ(status.fault_lease_holders(0).holder(), holder);

  // Not renewed any more: gone within the TTL plus the revert (strict synchronous replication and
  // the uncordoned replica's readiness are the slow parts); the bound is generous on purpose.
  const auto stopped_renewing = Clock::now();
  // (The record comes once the revert is done: the uncordoned replica ready again.)
  status = PollUntil(seconds(90), [&](const v1::ClusterStatus& s) {
    return FaultsInForce(s).empty() && s.fault_lease_expiries() > expiries_before;
  });
  const double took = std::chrono::duration<double>(Clock::now() - stopped_renewing).count();
  std::cerr << "[test] every fault reverted " << took << " s after the last renewal\n";
  EXPECT_TRUE(FaultsInForce(status).empty()) << ::testing::PrintToString(FaultsInForce(status));
  EXPECT_EQ(status.fault_lease_holders_size(), 0);
  EXPECT_EQ(status.fault_lease_expiries(), expiries_before + 1);
  const v1::FaultLeaseExpiry& expiry = status.last_fault_lease_expiry();
  EXPECT_NE(expiry.reason().find("'" + holder + "' not renewed within its TTL of 3000 ms"), std::string::npos)
      << expiry.reason();
  for (const char* what : {"database link faults on pg-a", "replication link faults on pg-c", "defects on replica c",
                           "asynchronous replication", "cordon of node-b"}) {
    EXPECT_NE(expiry.reverted().find(what), std::string::npos) << what << " not in: " << expiry.reverted();
  }
  EXPECT_DOUBLE_EQ(pseudonym::TestControlClient(ReplicaNamed(status, "c").address()).GetDefects().internal_rate(), 0.0);
  status = client().WaitSteady(seconds(60));
  EXPECT_EQ(status.replication(), "synchronous");
  EXPECT_TRUE(ReplicaNamed(status, "b").ready());
}

TEST_F(LocalClusterTest, AFaultLeaseHolderKeepsFaultsPastItsTtlAndItsReleaseRevertsThem) {
  v1::LinkFaults slow;
  slow.set_latency_ms(20);
  std::string holder;
  {
    FaultLeaseHolder lease(client(), {.holder = "local_cluster_test holder", .ttl = milliseconds(1500),
                                      .renew_every = milliseconds(300)});
    holder = lease.holder();
    client().SetDatabaseLinkFaults("pg-c", slow);
    std::this_thread::sleep_for(seconds(5));  // more than three TTLs
    const v1::ClusterStatus status = client().Status();
    EXPECT_EQ(MemberNamed(status, "pg-c").link_faults().latency_ms(), 20u) << "reverted while renewed";
    ASSERT_EQ(status.fault_lease_holders_size(), 1);
    EXPECT_EQ(status.fault_lease_holders(0).holder(), holder);
    EXPECT_EQ(lease.last_error(), "");
  }
  const v1::ClusterStatus status = PollUntil(seconds(30), [&](const v1::ClusterStatus& s) {
    return FaultsInForce(s).empty() && s.last_fault_lease_expiry().reason().find(holder) != std::string::npos;
  });
  EXPECT_TRUE(FaultsInForce(status).empty()) << ::testing::PrintToString(FaultsInForce(status));
  EXPECT_EQ(status.last_fault_lease_expiry().reason(), "fault lease of '" + holder + "' released");
  EXPECT_NE(status.last_fault_lease_expiry().reverted().find("database link faults on pg-c"), std::string::npos)
      << status.last_fault_lease_expiry().reverted();
}

TEST_F(LocalClusterTest, AFaultAppliedWithoutALeaseIsHeldByTheImplicitHolder) {
  v1::LinkFaults slow;
  slow.set_latency_ms(10);
  client().SetDatabaseLinkFaults("pg-b", slow);
  v1::ClusterStatus status = client().Status();
  ASSERT_EQ(status.fault_lease_holders_size(), 1);
  EXPECT_EQ(status.fault_lease_holders(0).holder(), "faults applied without a fault lease");
  EXPECT_GT(status.fault_lease_holders(0).expires_unix_ms(), NowUnixMs() + 60000) << "held for the unheld time (2 min)";
  client().ClearDatabaseLinkFaults();
  EXPECT_TRUE(FaultsInForce(client().Status()).empty());
}

TEST_F(LocalClusterTest, RenewLeaseMovesTheExpiry) {
  client().RenewLease(std::chrono::minutes(20));
  const std::int64_t expires = client().Status().lease_expires_unix_ms();
  EXPECT_GT(expires, NowUnixMs() + 19 * 60 * 1000);
  EXPECT_LT(expires, NowUnixMs() + 21 * 60 * 1000);
}

}  // namespace
}  // namespace aftershock::cluster
