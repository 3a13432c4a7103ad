// The client side of the fault lease without a cluster: FaultLeaseHolder against a fake control
// service on a unix socket, and the clean check (FaultsInForce, WaitUntilClean) on made-up statuses.
#include "framework/cluster/control/cluster_client.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>

namespace aftershock::cluster {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

class FakeControl final : public v1::ClusterControl::Service {
 public:
  grpc::Status RenewFaultLease(grpc::ServerContext*, const v1::FaultLeaseRequest* request,
                               v1::ActionResult*) override {
    std::lock_guard<std::mutex> lock(mu);
    ++renewals;
    last_holder = request->holder();
    last_ttl_ms = request->ttl_ms();
    return fail_renewals ? grpc::Status(grpc::StatusCode::UNAVAILABLE, "supervisor busy") : grpc::Status::OK;
  }
  grpc::Status ReleaseFaultLease(grpc::ServerContext*, const v1::FaultLeaseRequest* request,
                                 v1::ActionResult*) override {
    std::lock_guard<std::mutex> lock(mu);
    released.push_back(request->holder());
    return grpc::Status::OK;
  }
  grpc::Status Status(grpc::ServerContext*, const v1::StatusRequest*, v1::ClusterStatus* out) override {
    std::lock_guard<std::mutex> lock(mu);
    ++status_calls;
    *out = status_calls > dirty_for_calls ? clean : dirty;
    return grpc::Status::OK;
  }

  std::mutex mu;
  int renewals = 0;
  std::string last_holder;
  std::uint32_t last_ttl_ms = 0;
  bool fail_renewals = false;
  std::vector<std::string> released;
  int status_calls = 0;
  int dirty_for_calls = 1 << 30;
  v1::ClusterStatus dirty;
  v1::ClusterStatus clean;
};

v1::ClusterStatus CleanStatus() {
  v1::ClusterStatus status;
  status.set_replication("synchronous");
  for (const char* name : {"a", "b", "c"}) {
    v1::Replica* r = status.add_replicas();
    r->set_name(name);
    r->set_node(std::string("node-") + name);
    v1::DatabaseMember* m = status.add_members();
    m->set_name(std::string("pg-") + name);
  }
  return status;
}

class ClusterClientFakeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    socket_ = (std::filesystem::temp_directory_path() /
               ("cluster-client-test-" + std::to_string(::getpid()) + ".sock"))
                  .string();
    grpc::ServerBuilder builder;
    builder.AddListeningPort("unix:" + socket_, grpc::InsecureServerCredentials());
    builder.RegisterService(&fake_);
    server_ = builder.BuildAndStart();
    ASSERT_TRUE(server_);
    fake_.clean = CleanStatus();
    fake_.dirty = CleanStatus();
  }
  void TearDown() override {
    if (server_) {  // null when SetUp's ASSERT_TRUE(server_) failed
      server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
      server_->Wait();
    }
    std::error_code ignored;
    std::filesystem::remove(socket_, ignored);
  }
  int Renewals() {
    std::lock_guard<std::mutex> lock(fake_.mu);
    return fake_.renewals;
  }

  std::string socket_;
  FakeControl fake_;
  std::unique_ptr<grpc::Server> server_;
};

TEST_F(ClusterClientFakeTest, FaultLeaseHolderRenewsWhileItLivesAndReleasesWhenDestroyed) {
  ClusterClient client = ClusterClient::Connect(socket_);
  std::string holder;
  {
    FaultLeaseHolder lease(client, {.holder = "scenario x", .ttl = milliseconds(2000), .renew_every = milliseconds(50)});
    holder = lease.holder();
    EXPECT_EQ(holder, "scenario x (pid " + std::to_string(::getpid()) + ")");
    EXPECT_GE(Renewals(), 1) << "the first renewal is synchronous";
    const auto deadline = Clock::now() + std::chrono::seconds(20);
    while (Renewals() < 4 && Clock::now() < deadline) std::this_thread::sleep_for(milliseconds(20));
    EXPECT_GE(Renewals(), 4) << "the renewer thread did not renew";
    std::lock_guard<std::mutex> lock(fake_.mu);
    EXPECT_EQ(fake_.last_holder, holder);
    EXPECT_EQ(fake_.last_ttl_ms, 2000u);
    EXPECT_TRUE(fake_.released.empty()) << "released while still held";
  }
  const int after = Renewals();
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_EQ(Renewals(), after) << "still renewing after destruction";
  std::lock_guard<std::mutex> lock(fake_.mu);
  ASSERT_EQ(fake_.released.size(), 1u);
  EXPECT_EQ(fake_.released[0], holder);
}

TEST_F(ClusterClientFakeTest, FaultLeaseHolderThrowsWhenTheFirstRenewalFailsAndRefusesBadTimes) {
  ClusterClient client = ClusterClient::Connect(socket_);
  {
    std::lock_guard<std::mutex> lock(fake_.mu);
    fake_.fail_renewals = true;
  }
  EXPECT_THROW(FaultLeaseHolder(client, {.holder = "x"}), ClusterClientError);
  EXPECT_THROW(FaultLeaseHolder(client, {.holder = "x", .ttl = milliseconds(1000), .renew_every = milliseconds(1000)}),
               std::invalid_argument);
}

TEST_F(ClusterClientFakeTest, FaultLeaseHolderReportsAFailedRenewal) {
  ClusterClient client = ClusterClient::Connect(socket_);
  FaultLeaseHolder lease(client, {.holder = "x", .ttl = milliseconds(2000), .renew_every = milliseconds(50)});
  {
    std::lock_guard<std::mutex> lock(fake_.mu);
    fake_.fail_renewals = true;
  }
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  while (lease.last_error().empty() && Clock::now() < deadline) std::this_thread::sleep_for(milliseconds(20));
  EXPECT_NE(lease.last_error().find("supervisor busy"), std::string::npos) << lease.last_error();
}

TEST(FaultsInForceTest, ACleanClusterHasNone) { EXPECT_TRUE(FaultsInForce(CleanStatus()).empty()); }

TEST(FaultsInForceTest, NamesEveryKindOfFault) {
  v1::ClusterStatus status = CleanStatus();
  status.mutable_members(0)->mutable_link_faults()->set_blackhole(true);
  status.mutable_members(1)->mutable_replication_link_faults()->set_latency_ms(20000);
  status.mutable_replicas(1)->set_defects("internal_rate: 0.5");
  status.mutable_replicas(2)->set_node_cordoned(true);
  status.set_replication("asynchronous");
  const std::vector<std::string> found = FaultsInForce(status);
  ASSERT_EQ(found.size(), 5u);
  EXPECT_EQ(found[0], "database link fault on pg-a {blackhole: true}");
  EXPECT_EQ(found[1], "replication link fault on pg-b {latency_ms: 20000}");
  EXPECT_EQ(found[2], "defects on replica b {internal_rate: 0.5}");
  EXPECT_EQ(found[3], "replication is asynchronous, not strict synchronous");
  EXPECT_EQ(found[4], "node node-c is cordoned");
}

TEST_F(ClusterClientFakeTest, WaitUntilCleanRefusesAtOnceWhatALiveLeaseHolds) {
  fake_.dirty.mutable_replicas(1)->set_defects("internal_rate: 0.5");
  v1::FaultLeaseHold* hold = fake_.dirty.add_fault_lease_holders();
  hold->set_holder("aftershock-cli");
  hold->set_expires_unix_ms(
      std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count() + 600000);
  ClusterClient client = ClusterClient::Connect(socket_);
  const std::string dirty = WaitUntilClean(client, std::chrono::seconds(30));
  EXPECT_NE(dirty.find("defects on replica b {internal_rate: 0.5}"), std::string::npos) << dirty;
  EXPECT_NE(dirty.find("'aftershock-cli' (expires in 59"), std::string::npos) << dirty;
  std::lock_guard<std::mutex> lock(fake_.mu);
  EXPECT_EQ(fake_.status_calls, 1) << "it waited although a live lease holds the fault";
}

TEST_F(ClusterClientFakeTest, WaitUntilCleanWaitsForTheSupervisorToRevertUnheldFaults) {
  fake_.dirty.mutable_members(2)->mutable_link_faults()->set_blackhole(true);
  fake_.dirty_for_calls = 3;
  ClusterClient client = ClusterClient::Connect(socket_);
  EXPECT_EQ(WaitUntilClean(client, std::chrono::seconds(30)), "");
  std::lock_guard<std::mutex> lock(fake_.mu);
  EXPECT_EQ(fake_.status_calls, 4);
}

TEST_F(ClusterClientFakeTest, WaitUntilCleanGivesUpOnUnheldFaultsThatStay) {
  fake_.dirty.mutable_members(2)->mutable_link_faults()->set_blackhole(true);
  ClusterClient client = ClusterClient::Connect(socket_);
  const std::string dirty = WaitUntilClean(client, milliseconds(600));
  EXPECT_NE(dirty.find("database link fault on pg-c {blackhole: true}"), std::string::npos) << dirty;
  EXPECT_NE(dirty.find("no fault lease holds it"), std::string::npos) << dirty;
}

}  // namespace
}  // namespace aftershock::cluster
