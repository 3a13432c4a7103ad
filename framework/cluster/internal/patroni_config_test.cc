#include "framework/cluster/internal/patroni_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace aftershock::cluster::internal {
namespace {

PatroniClusterConfig SampleCluster() {
  PatroniClusterConfig cluster;
  cluster.scope = "aftershock";
  cluster.host = "127.0.0.1";
  cluster.etcd_client_port = 23790;
  cluster.ttl = 10;
  cluster.loop_wait = 2;
  cluster.retry_timeout = 3;
  cluster.post_bootstrap_script = "/tmp/db/post_bootstrap.sh";
  cluster.superuser_password = "su";
  cluster.replication_password = "repl";
  cluster.rewind_password = "rew";
  return cluster;
}

TEST(PatroniConfigTest, YamlCarriesStrictSynchronousBootstrapAndMemberAddresses) {
  const PatroniMemberConfig member{"b", "/tmp/db/b", 25433, 28009};
  const YAML::Node root = YAML::Load(RenderPatroniYaml(SampleCluster(), member));
  EXPECT_EQ(root["scope"].as<std::string>(), "aftershock");
  EXPECT_EQ(root["name"].as<std::string>(), "b");
  EXPECT_EQ(root["etcd3"]["hosts"].as<std::string>(), "127.0.0.1:23790");
  EXPECT_EQ(root["restapi"]["listen"].as<std::string>(), "127.0.0.1:28009");
  const YAML::Node dcs = root["bootstrap"]["dcs"];
  EXPECT_EQ(dcs["ttl"].as<int>(), 10);
  EXPECT_EQ(dcs["loop_wait"].as<int>(), 2);
  EXPECT_EQ(dcs["retry_timeout"].as<int>(), 3);
  EXPECT_TRUE(dcs["synchronous_mode"].as<bool>());
  EXPECT_TRUE(dcs["synchronous_mode_strict"].as<bool>());
  EXPECT_EQ(dcs["synchronous_node_count"].as<int>(), 1);
  EXPECT_TRUE(dcs["postgresql"]["use_pg_rewind"].as<bool>());
  EXPECT_EQ(dcs["postgresql"]["parameters"]["wal_retrieve_retry_interval"].as<std::string>(), "1s");
  EXPECT_EQ(root["bootstrap"]["post_bootstrap"].as<std::string>(), "/tmp/db/post_bootstrap.sh");
  const YAML::Node pg = root["postgresql"];
  EXPECT_EQ(pg["listen"].as<std::string>(), "127.0.0.1:25433");
  EXPECT_EQ(pg["connect_address"].as<std::string>(), "127.0.0.1:25433");
  EXPECT_EQ(pg["data_dir"].as<std::string>(), "/tmp/db/b/data");
  EXPECT_EQ(pg["bin_dir"].as<std::string>(), "/usr/lib/postgresql/15/bin");
  EXPECT_EQ(pg["authentication"]["replication"]["username"].as<std::string>(), "replicator");
  EXPECT_EQ(pg["authentication"]["replication"]["password"].as<std::string>(), "repl");
  const auto hba = pg["pg_hba"].as<std::vector<std::string>>();
  EXPECT_NE(std::find(hba.begin(), hba.end(), "host replication replicator 127.0.0.1/32 scram-sha-256"),
            hba.end());
  EXPECT_NE(std::find(hba.begin(), hba.end(), "host all all 127.0.0.1/32 scram-sha-256"), hba.end());
}

TEST(PatroniConfigTest, ConnectPortPutsTheReplicationPathThroughAnotherPort) {
  const PatroniMemberConfig member{"c", "/tmp/db/c", 25434, 28010, 31555};
  const YAML::Node root = YAML::Load(RenderPatroniYaml(SampleCluster(), member));
  EXPECT_EQ(root["postgresql"]["listen"].as<std::string>(), "127.0.0.1:25434");
  EXPECT_EQ(root["postgresql"]["connect_address"].as<std::string>(), "127.0.0.1:31555");
  EXPECT_EQ(root["restapi"]["connect_address"].as<std::string>(), "127.0.0.1:28010");
}

TEST(PatroniConfigTest, AsynchronousModeTurnsBothSynchronousFlagsOff) {
  PatroniClusterConfig cluster = SampleCluster();
  cluster.synchronous = false;
  const YAML::Node root = YAML::Load(RenderPatroniYaml(cluster, {"a", "/tmp/db/a", 1, 2}));
  EXPECT_FALSE(root["bootstrap"]["dcs"]["synchronous_mode"].as<bool>());
  EXPECT_FALSE(root["bootstrap"]["dcs"]["synchronous_mode_strict"].as<bool>());
}

TEST(PatroniConfigTest, AppSqlCreatesNonSuperuserOwnerWithQuotedNames) {
  EXPECT_EQ(RenderAppSql("app", "pa'ss", "my\"db"),
            "CREATE ROLE \"app\" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD 'pa''ss';\n"
            "CREATE DATABASE \"my\"\"db\" OWNER \"app\";\n");
}

TEST(PatroniConfigTest, PostBootstrapScriptPassesPatronisConnectionString) {
  EXPECT_EQ(RenderPostBootstrapScript("/usr/bin/psql", "/tmp/db/app.sql"),
            "#!/bin/sh\nset -e\nexec '/usr/bin/psql' \"$1\" -v ON_ERROR_STOP=1 -q -f "
            "'/tmp/db/app.sql'\n");
}

TEST(PatroniConfigTest, ConnectionStringListsEveryHostAndTargetsReadWrite) {
  EXPECT_EQ(BuildConnectionString({{"127.0.0.1", 5432}, {"127.0.0.1", 5433}, {"127.0.0.1", 5434}},
                                  "aftershock", "aftershock", "p'w\\x"),
            "host=127.0.0.1,127.0.0.1,127.0.0.1 port=5432,5433,5434 dbname='aftershock' "
            "user='aftershock' password='p\\'w\\\\x' target_session_attrs=read-write "
            "connect_timeout=2");
}

}  // namespace
}  // namespace aftershock::cluster::internal
