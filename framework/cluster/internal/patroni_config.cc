#include "framework/cluster/internal/patroni_config.h"

#include <yaml-cpp/yaml.h>

namespace aftershock::cluster::internal {
namespace {

std::string HostPort(const std::string& host, int port) {
  return host + ":" + std::to_string(port);
}

YAML::Node Credentials(const std::string& user, const std::string& password) {
  YAML::Node node;
  node["username"] = user;
  node["password"] = password;
  return node;
}

}  // namespace

std::string RenderPatroniYaml(const PatroniClusterConfig& cluster,
                              const PatroniMemberConfig& member) {
  YAML::Node root;
  root["scope"] = cluster.scope;
  root["name"] = member.name;
  root["log"]["level"] = "INFO";
  root["restapi"]["listen"] = HostPort(cluster.host, member.rest_port);
  root["restapi"]["connect_address"] = HostPort(cluster.host, member.rest_port);
  // etcd v3 API: Patroni 3.0 talks to etcd's gRPC gateway itself (python3-etcd supplies only the
  // base client), so etcd needs no --enable-v2.
  root["etcd3"]["hosts"] = HostPort(cluster.host, cluster.etcd_client_port);
  root["etcd3"]["protocol"] = "http";

  YAML::Node dcs;
  dcs["ttl"] = cluster.ttl;
  dcs["loop_wait"] = cluster.loop_wait;
  dcs["retry_timeout"] = cluster.retry_timeout;
  dcs["maximum_lag_on_failover"] = 1048576;
  // Patroni 3.0 names exactly synchronous_node_count standbys in synchronous_standby_names
  // ("FIRST 1 (b)"); it has no quorum ("ANY 1") commit, unlike CloudNativePG's method: any.
  // Strict mode keeps the primary from ever committing without a standby acknowledging, so a
  // promoted standby cannot lose an acknowledged write (seed 000, section 3).
  dcs["synchronous_mode"] = cluster.synchronous;
  dcs["synchronous_mode_strict"] = cluster.synchronous;
  dcs["synchronous_node_count"] = 1;
  dcs["postgresql"]["use_pg_rewind"] = true;
  dcs["postgresql"]["use_slots"] = true;
  YAML::Node parameters;
  parameters["max_connections"] = 200;
  parameters["shared_buffers"] = "64MB";
  parameters["wal_level"] = "replica";
  parameters["hot_standby"] = "on";
  parameters["max_wal_senders"] = 10;
  parameters["max_replication_slots"] = 10;
  parameters["wal_keep_size"] = "128MB";
  // After a failover the surviving replica's first connection to the new primary fails (its
  // replication slot is not created yet) and the walreceiver retries only after this interval;
  // with strict synchronous mode no write commits until it streams again. The default 5s added
  // ~4-5 s to every failover's write outage.
  parameters["wal_retrieve_retry_interval"] = "1s";
  dcs["postgresql"]["parameters"] = parameters;
  root["bootstrap"]["dcs"] = dcs;

  YAML::Node initdb;
  initdb.push_back(YAML::Node(std::map<std::string, std::string>{{"encoding", "UTF8"}}));
  initdb.push_back(YAML::Node(std::map<std::string, std::string>{{"locale", "C"}}));
  initdb.push_back("data-checksums");
  initdb.push_back(YAML::Node(std::map<std::string, std::string>{{"auth-host", "scram-sha-256"}}));
  initdb.push_back(YAML::Node(std::map<std::string, std::string>{{"auth-local", "trust"}}));
  root["bootstrap"]["initdb"] = initdb;
  // bootstrap.users can create roles but not databases; the script does both.
  root["bootstrap"]["post_bootstrap"] = cluster.post_bootstrap_script;

  YAML::Node pg;
  pg["listen"] = HostPort(cluster.host, member.pg_port);
  pg["connect_address"] = HostPort(cluster.host, member.connect_port != 0 ? member.connect_port : member.pg_port);
  pg["data_dir"] = member.member_dir + "/data";
  pg["bin_dir"] = cluster.bin_dir;
  pg["pgpass"] = member.member_dir + "/pgpass";
  pg["authentication"]["superuser"] = Credentials("postgres", cluster.superuser_password);
  pg["authentication"]["replication"] = Credentials("replicator", cluster.replication_password);
  pg["authentication"]["rewind"] = Credentials("rewinder", cluster.rewind_password);
  pg["parameters"]["unix_socket_directories"] = member.member_dir;
  // A fast checkpoint: the default spread one makes each replica clone wait minutes.
  YAML::Node basebackup;
  basebackup.push_back(YAML::Node(std::map<std::string, std::string>{{"checkpoint", "fast"}}));
  pg["basebackup"] = basebackup;
  YAML::Node hba;
  hba.push_back("local all all trust");
  for (const std::string& network : {std::string("127.0.0.1/32"), std::string("::1/128")}) {
    hba.push_back("host replication replicator " + network + " scram-sha-256");
    hba.push_back("host all all " + network + " scram-sha-256");
  }
  if (cluster.host != "127.0.0.1") {
    hba.push_back("host replication replicator " + cluster.host + "/32 scram-sha-256");
    hba.push_back("host all all " + cluster.host + "/32 scram-sha-256");
  }
  pg["pg_hba"] = hba;
  root["postgresql"] = pg;

  root["watchdog"]["mode"] = "off";
  root["tags"]["nofailover"] = false;
  root["tags"]["noloadbalance"] = false;
  root["tags"]["clonefrom"] = false;
  root["tags"]["nosync"] = false;

  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

std::string QuoteSqlIdentifier(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string QuoteSqlLiteral(const std::string& value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

std::string QuoteConnValue(const std::string& value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

std::string RenderAppSql(const std::string& user, const std::string& password,
                         const std::string& database) {
  return "CREATE ROLE " + QuoteSqlIdentifier(user) + " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE" +
         " PASSWORD " + QuoteSqlLiteral(password) + ";\n" + "CREATE DATABASE " +
         QuoteSqlIdentifier(database) + " OWNER " + QuoteSqlIdentifier(user) + ";\n";
}

std::string RenderPostBootstrapScript(const std::string& psql_path, const std::string& sql_path) {
  // Patroni appends the superuser connection string as the last argument.
  return "#!/bin/sh\nset -e\nexec '" + psql_path + "' \"$1\" -v ON_ERROR_STOP=1 -q -f '" +
         sql_path + "'\n";
}

std::string BuildConnectionString(const std::vector<std::pair<std::string, int>>& endpoints,
                                  const std::string& database, const std::string& user,
                                  const std::string& password) {
  std::string hosts;
  std::string ports;
  for (const auto& [host, port] : endpoints) {
    if (!hosts.empty()) {
      hosts += ",";
      ports += ",";
    }
    hosts += host;
    ports += std::to_string(port);
  }
  return "host=" + hosts + " port=" + ports + " dbname=" + QuoteConnValue(database) +
         " user=" + QuoteConnValue(user) + " password=" + QuoteConnValue(password) +
         " target_session_attrs=read-write connect_timeout=2";
}

}  // namespace aftershock::cluster::internal
