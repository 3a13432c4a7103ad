// Renders the files the embedded database cluster runs from: one Patroni YAML per member, the
// post-bootstrap script that creates the application role and database, and libpq strings.
//
//   PatroniMemberConfig member{.name = "a", .member_dir = "/tmp/db/a", .pg_port = 5432, ...};
//   std::string yaml = RenderPatroniYaml(cluster_config, member);
//
// Kept apart from PatroniCluster so the exact settings (synchronous_mode_strict, pg_hba, ...) are
// unit-testable without starting anything.
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_INTERNAL_PATRONI_CONFIG_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_INTERNAL_PATRONI_CONFIG_H_

#include <string>
#include <utility>
#include <vector>

namespace aftershock::cluster::internal {

struct PatroniClusterConfig {
  std::string scope;
  std::string host;
  int etcd_client_port = 0;
  int ttl = 10;
  int loop_wait = 2;
  int retry_timeout = 3;
  bool synchronous = true;
  std::string bin_dir = "/usr/lib/postgresql/15/bin";
  std::string post_bootstrap_script;  // Absolute path of the script RenderPostBootstrapScript wrote.
  std::string superuser_password;
  std::string replication_password;
  std::string rewind_password;
};

struct PatroniMemberConfig {
  std::string name;        // "a", "b", "c"
  std::string member_dir;  // Holds data/, the socket, pgpass; the YAML and log sit beside it.
  int pg_port = 0;
  int rest_port = 0;
  // Where the other members reach this one for replication, pg_rewind and base backups
  // (Patroni's postgresql.connect_address); 0 = pg_port. A fault proxy's port puts the
  // replication path through that proxy.
  int connect_port = 0;
};

std::string RenderPatroniYaml(const PatroniClusterConfig& cluster, const PatroniMemberConfig& member);

// SQL creating a LOGIN, non-superuser role that owns a new database (one statement per line, so
// psql runs CREATE DATABASE outside a transaction block).
std::string RenderAppSql(const std::string& user, const std::string& password,
                         const std::string& database);

// /bin/sh script Patroni calls as `script <connstring>` after initdb; runs psql -f sql_path.
std::string RenderPostBootstrapScript(const std::string& psql_path, const std::string& sql_path);

// libpq keyword/value string with every endpoint as a multi-host list, read-write target.
std::string BuildConnectionString(const std::vector<std::pair<std::string, int>>& endpoints,
                                  const std::string& database, const std::string& user,
                                  const std::string& password);

// 'value' quoting for libpq keyword/value strings (backslash and single quote escaped).
std::string QuoteConnValue(const std::string& value);
// SQL identifier and literal quoting.
std::string QuoteSqlIdentifier(const std::string& name);
std::string QuoteSqlLiteral(const std::string& value);

}  // namespace aftershock::cluster::internal

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_INTERNAL_PATRONI_CONFIG_H_
