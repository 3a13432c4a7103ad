#include "framework/cluster/kubernetes/kubernetes_cluster_driver.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "framework/process/child_process.h"

namespace aftershock::cluster {
namespace {

using nlohmann::json;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

std::string Join(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& a : args) out += (out.empty() ? "" : " ") + a;
  return out;
}

std::string Seconds(std::chrono::milliseconds ms) {
  return std::to_string(std::max<long long>(1, (ms.count() + 999) / 1000)) + "s";
}

// "k=v,k2=v2" (kubectl -l) as a YAML flow map of quoted keys and values.
std::string LabelsYaml(const std::string& selector) {
  std::string out = "{";
  std::istringstream in(selector);
  std::string pair;
  while (std::getline(in, pair, ',')) {
    const auto eq = pair.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("label selector '" + selector + "' is not k=v[,k=v]");
    out += (out.size() > 1 ? ", " : "") + json(pair.substr(0, eq)).dump() + ": " + json(pair.substr(eq + 1)).dump();
  }
  return out + "}";
}

json Parse(const std::string& text, const std::string& what) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw std::runtime_error(what + ": not JSON (" + e.what() + ")");
  }
}

const json& Items(const json& list) {
  static const json kEmpty = json::array();
  return list.contains("items") && list["items"].is_array() ? list["items"] : kEmpty;
}

std::string Str(const json& j, std::initializer_list<const char*> path) {
  const json* at = &j;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return "";
    at = &(*at)[key];
  }
  return at->is_string() ? at->get<std::string>() : "";
}

bool PodReady(const json& pod) {
  if (pod.contains("metadata") && pod["metadata"].contains("deletionTimestamp")) return false;
  if (!pod.contains("status") || !pod["status"].contains("conditions")) return false;
  for (const json& c : pod["status"]["conditions"]) {
    if (Str(c, {"type"}) == "Ready") return Str(c, {"status"}) == "True";
  }
  return false;
}

// A pod's instance: "pod <metadata.uid>" (a replaced pod, even under the same name, has another).
std::string PodInstance(const json& pod) {
  const std::string uid = Str(pod, {"metadata", "uid"});
  return uid.empty() ? "" : "pod " + uid;
}

// Still running: not being deleted and not finished.
bool PodRunning(const json& pod) {
  if (pod.contains("metadata") && pod["metadata"].contains("deletionTimestamp")) return false;
  const std::string phase = Str(pod, {"status", "phase"});
  return phase != "Succeeded" && phase != "Failed";
}

std::string Label(const json& object, const std::string& key) {
  if (!object.contains("metadata") || !object["metadata"].contains("labels")) return "";
  const json& labels = object["metadata"]["labels"];
  return labels.contains(key) && labels[key].is_string() ? labels[key].get<std::string>() : "";
}

}  // namespace

KubernetesClusterDriver::KubernetesClusterDriver(KubernetesDriverOptions options)
    : options_(std::move(options)), scratch_(process::ScratchDir::Create("aftershock-k8s")) {
  if (options_.run_id.empty()) {
    char id[8];
    std::snprintf(id, sizeof id, "%06x", static_cast<unsigned>(std::random_device{}() & 0xffffffu));
    options_.run_id = id;
  }
}

KubernetesClusterDriver::~KubernetesClusterDriver() {
  try {
    for (const std::string& problem : Cleanup()) std::cerr << "KubernetesClusterDriver: left behind: " << problem << "\n";
  } catch (const std::exception& e) {
    std::cerr << "KubernetesClusterDriver: cleanup failed: " << e.what() << "\n";
  }
}

KubernetesClusterDriver::Result KubernetesClusterDriver::Kubectl(const std::vector<std::string>& args,
                                                                 std::chrono::milliseconds timeout, bool check) {
  const std::string call = scratch_.path() + "/kubectl-" + std::to_string(++calls_);
  const std::string out_path = call + ".out";
  const std::string err_path = call + ".err";
  process::ChildOptions child;
  child.program = "/bin/sh";
  // stdout (the JSON) and stderr apart: the child's log file takes stdout, the shell sends stderr
  // to its own file.
  child.args = {"-c", "err=$1; shift; exec \"$@\" 2>\"$err\"", "sh", err_path, options_.kubectl};
  child.args.insert(child.args.end(), args.begin(), args.end());
  child.log_path = out_path;
  process::ChildProcess kubectl = process::ChildProcess::Start(child);
  Result result;
  try {
    result.code = kubectl.Wait(timeout);
  } catch (const std::exception&) {
    kubectl.Stop(std::chrono::seconds(2));
    throw std::runtime_error("kubectl " + Join(args) + ": no answer within " + Seconds(timeout));
  }
  result.out = ReadAll(out_path);
  result.err = Trim(ReadAll(err_path));
  std::remove(out_path.c_str());
  std::remove(err_path.c_str());
  if (check && result.code != 0) {
    throw std::runtime_error("kubectl " + Join(args) + ": exit " + std::to_string(result.code) +
                             (result.err.empty() ? "" : ": " + result.err));
  }
  return result;
}

std::string KubernetesClusterDriver::Apply(const std::string& kind, const std::string& prefix,
                                           const std::string& spec_yaml, const std::string& group) {
  std::unique_lock lock(mu_);
  const std::string name = "aftershock-" + prefix + "-" + options_.run_id + "-" + std::to_string(++sequence_);
  const std::string path = scratch_.path() + "/" + name + ".yaml";
  {
    std::ofstream out(path);
    out << "apiVersion: chaos-mesh.org/v1alpha1\n"
        << "kind: " << kind << "\n"
        << "metadata:\n"
        << "  name: " << name << "\n"
        << "  namespace: " << options_.ns << "\n"
        << "  labels: {app.kubernetes.io/managed-by: aftershock}\n"
        << "spec:\n"
        << spec_yaml;
    if (!out) throw std::runtime_error("cannot write " + path);
  }
  std::string lower = kind;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  // Remembered before the apply: an apply that times out may still have created it.
  held_.push_back({lower, name, group});
  lock.unlock();
  Kubectl({"apply", "-f", path}, options_.command_timeout);
  return lower + "/" + name;
}

std::vector<std::string> KubernetesClusterDriver::HeldObjects() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const Held& h : held_) out.push_back(h.kind + "/" + h.name);
  return out;
}

std::vector<std::string> KubernetesClusterDriver::Cleanup() {
  std::lock_guard lock(mu_);
  std::vector<std::string> problems;
  std::vector<Held> kept;
  for (const Held& h : held_) {
    try {
      const Result r = Kubectl({"-n", options_.ns, "delete", h.kind, h.name, "--ignore-not-found", "--wait=false"},
                               options_.command_timeout, false);
      if (r.code == 0) continue;
      problems.push_back(h.kind + "/" + h.name + ": delete exit " + std::to_string(r.code) + ": " + r.err);
    } catch (const std::exception& e) {
      problems.push_back(h.kind + "/" + h.name + ": " + e.what());
    }
    kept.push_back(h);
  }
  held_ = kept;
  for (auto it = cordoned_.begin(); it != cordoned_.end();) {
    try {
      const Result r = Kubectl({"uncordon", it->second}, options_.command_timeout, false);
      if (r.code == 0) {
        it = cordoned_.erase(it);
        continue;
      }
      problems.push_back("node " + it->first + " (" + it->second + ") still cordoned: " + r.err);
    } catch (const std::exception& e) {
      problems.push_back("node " + it->first + " (" + it->second + ") still cordoned: " + e.what());
    }
    ++it;
  }
  return problems;
}

std::vector<std::string> KubernetesClusterDriver::LeftoverChaosObjects() {
  const Result r = Kubectl({"-n", options_.ns, "get", "podchaos,networkchaos", "-l", "app.kubernetes.io/managed-by=aftershock",
                            "-o", "name"},
                           options_.command_timeout);
  const std::vector<std::string> held = HeldObjects();
  std::vector<std::string> out;
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line)) {
    line = Trim(line);
    if (line.empty()) continue;
    // kubectl names them "<resource>.<group>/<name>": podchaos.chaos-mesh.org/aftershock-...
    const auto slash = line.find('/');
    const std::string kind = line.substr(0, std::min(line.find('.'), slash));
    const std::string object = slash == std::string::npos ? line : kind + "/" + line.substr(slash + 1);
    if (std::find(held.begin(), held.end(), object) == held.end()) out.push_back(object);
  }
  return out;
}

std::string KubernetesClusterDriver::ServiceTarget() const {
  return "dns:///" + options_.headless_service + "." + options_.ns + ".svc.cluster.local:" +
         std::to_string(options_.service_port);
}

chaos::ClusterState KubernetesClusterDriver::Observe() {
  const auto get = [&](const std::vector<std::string>& args) {
    return Parse(Kubectl(args, options_.command_timeout).out, "kubectl " + Join(args));
  };
  const json replicas = get({"-n", options_.ns, "get", "pods", "-l", options_.replica_selector, "-o", "json"});
  const json database = get({"-n", options_.ns, "get", "clusters.postgresql.cnpg.io", options_.database, "-o", "json"});
  const json members = get({"-n", options_.ns, "get", "pods", "-l", "cnpg.io/cluster=" + options_.database, "-o", "json"});
  const json nodes = get({"get", "nodes", "-o", "json"});

  std::map<std::string, std::pair<std::string, bool>> node_of;  // Kubernetes name -> (scenario name, cordoned)
  for (const json& n : Items(nodes)) {
    const std::string name = Str(n, {"metadata", "name"});
    const std::string label = Label(n, options_.node_label);
    const bool cordoned = n.contains("spec") && n["spec"].value("unschedulable", false);
    node_of[name] = {label.empty() ? name : label, cordoned};
  }

  chaos::ClusterState state;
  for (const auto& [name, node] : node_of) {
    if (node.second) state.cordoned_nodes.push_back(node.first);
  }
  for (const json& pod : Items(replicas)) {
    chaos::ReplicaState r;
    r.name = Str(pod, {"metadata", "name"});
    const std::string node = Str(pod, {"spec", "nodeName"});
    const auto it = node_of.find(node);
    r.node = it == node_of.end() ? node : it->second.first;
    r.node_cordoned = it != node_of.end() && it->second.second;
    const std::string ip = Str(pod, {"status", "podIP"});
    r.address = ip.empty() ? "" : ip + ":" + std::to_string(options_.service_port);
    r.ready = PodReady(pod);
    r.instance = PodInstance(pod);
    state.replicas.push_back(r);
  }
  std::vector<std::string> labelled_primary;
  for (const json& pod : Items(members)) {
    chaos::DatabaseMemberState m;
    m.name = Str(pod, {"metadata", "name"});
    const std::string role = Label(pod, "cnpg.io/instanceRole");
    m.role = role == "primary" ? "leader" : role;
    m.state = PodReady(pod) ? "running" : "stopped";
    if (role == "primary") labelled_primary.push_back(m.name);
    state.members.push_back(m);
  }
  const int instances = database.contains("status") ? database["status"].value("instances", 0) : 0;
  const int ready_instances = database.contains("status") ? database["status"].value("readyInstances", 0) : 0;
  const std::string current_primary = Str(database, {"status", "currentPrimary"});
  state.primary = labelled_primary.size() == 1 ? labelled_primary[0] : "";
  const bool synchronous = database.contains("spec") && database["spec"].contains("postgresql") &&
                           database["spec"]["postgresql"].contains("synchronous");
  state.replication = synchronous ? "synchronous" : "asynchronous";

  std::string reason;
  if (state.replicas.empty()) reason = "no pod matches " + options_.replica_selector;
  for (const chaos::ReplicaState& r : state.replicas) {
    if (reason.empty() && !r.ready) reason = "replica " + r.name + " not ready";
    if (reason.empty() && r.node_cordoned) reason = "replica " + r.name + " on cordoned node " + r.node;
  }
  if (reason.empty() && (instances == 0 || ready_instances != instances)) {
    reason = "database " + options_.database + ": " + std::to_string(ready_instances) + " of " +
             std::to_string(instances) + " instances ready";
  }
  if (reason.empty() && labelled_primary.size() != 1) {
    reason = "database " + options_.database + ": " + std::to_string(labelled_primary.size()) +
             " pods carry cnpg.io/instanceRole=primary";
  }
  if (reason.empty() && current_primary != state.primary) {
    reason = "database " + options_.database + ": currentPrimary is '" + current_primary + "', the primary label is on " +
             state.primary;
  }
  state.steady = reason.empty();
  state.not_steady_reason = reason;
  return state;
}

void KubernetesClusterDriver::WaitSteady(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string reason = "not observed";
  while (true) {
    try {
      const chaos::ClusterState s = Observe();
      if (s.steady) return;
      reason = s.not_steady_reason;
    } catch (const std::exception& e) {
      reason = e.what();
    }
    if (std::chrono::steady_clock::now() + options_.poll_period > deadline) break;
    std::this_thread::sleep_for(options_.poll_period);
  }
  throw std::runtime_error("cluster not steady within " + Seconds(timeout) + ": " + reason);
}

bool KubernetesClusterDriver::InstanceRunning(const std::string& instance) {
  if (instance.rfind("pod ", 0) != 0 || instance.size() == 4) {
    throw std::invalid_argument("KubernetesClusterDriver: '" + instance + "' is not an instance of this driver (pod UID)");
  }
  const std::string uid = instance.substr(4);
  const std::vector<std::string> args = {"-n", options_.ns, "get", "pods", "-l", options_.replica_selector, "-o", "json"};
  const json pods = Parse(Kubectl(args, options_.command_timeout).out, "kubectl " + Join(args));
  for (const json& pod : Items(pods)) {
    if (Str(pod, {"metadata", "uid"}) == uid) return PodRunning(pod);
  }
  return false;  // deleted
}

chaos::ActionOutcome KubernetesClusterDriver::KillReplica(const std::string& name) {
  std::vector<std::pair<std::string, std::string>> candidates;  // pod, instance
  for (const chaos::ReplicaState& r : Observe().replicas) {
    if (name.empty() ? r.ready : r.name == name) candidates.emplace_back(r.name, r.instance);
  }
  if (candidates.empty()) {
    throw std::runtime_error(name.empty() ? "KillReplica: no ready replica (" + options_.replica_selector + ")"
                                          : "KillReplica: no pod " + name + " (" + options_.replica_selector + ")");
  }
  std::mt19937 rng(std::random_device{}());
  const auto& [pod, instance] = candidates[std::uniform_int_distribution<std::size_t>(0, candidates.size() - 1)(rng)];
  if (instance.empty()) throw std::runtime_error("KillReplica: pod " + pod + " has no metadata.uid");
  const std::string object = Apply("PodChaos", "replica-kill",
                                   "  action: pod-kill\n  mode: one\n  gracePeriod: 0\n  selector:\n    pods:\n      " +
                                       options_.ns + ": [" + pod + "]\n",
                                   "");
  return {"killed replica " + pod + " (" + instance + ", " + object + ")", pod, instance};
}

chaos::ActionOutcome KubernetesClusterDriver::KillDatabasePrimary() {
  const std::string selector = "cnpg.io/cluster=" + options_.database + ",cnpg.io/instanceRole=primary";
  const std::vector<std::string> args = {"-n", options_.ns, "get", "pods", "-l", selector, "-o", "json"};
  const json pods = Parse(Kubectl(args, options_.command_timeout).out, "kubectl " + Join(args));
  std::vector<std::string> names;
  for (const json& p : Items(pods)) names.push_back(Str(p, {"metadata", "name"}));
  if (names.size() != 1) {
    throw std::runtime_error("KillDatabasePrimary: " + std::to_string(names.size()) + " pods carry " + selector +
                             " (wants exactly one: the operator or its labels changed?); nothing killed");
  }
  const std::string object = Apply("PodChaos", "primary-kill",
                                   "  action: pod-kill\n  mode: one\n  gracePeriod: 0\n  selector:\n    pods:\n      " +
                                       options_.ns + ": [" + names[0] + "]\n",
                                   "");
  return {"killed database primary " + names[0] + " (" + object + ")", names[0]};
}

chaos::ActionOutcome KubernetesClusterDriver::LinkFault(const std::string& group, const std::string& selector_yaml,
                                                        const std::string& target_yaml, const chaos::LinkFault& fault) {
  if (fault.reset) {
    throw std::runtime_error("link fault: reset is not supported by the Kubernetes driver (Chaos Mesh's NetworkChaos "
                             "has no TCP reset; a blackhole is a partition)");
  }
  const std::string selectors = "  mode: all\n  selector: " + selector_yaml + "\n  target:\n    mode: all\n    selector: " +
                                target_yaml + "\n";
  // One NetworkChaos holds one action: a delay with a bandwidth limit is two objects of the group.
  std::vector<std::pair<std::string, std::string>> objects;  // spec, what
  if (fault.blackhole) {
    objects.emplace_back("  action: partition\n  direction: both\n" + selectors, "partition");
  } else if (fault.latency.count() > 0 || fault.jitter.count() > 0) {
    objects.emplace_back("  action: delay\n  direction: to\n" + selectors + "  delay:\n    latency: \"" +
                             std::to_string(fault.latency.count()) + "ms\"\n    jitter: \"" +
                             std::to_string(fault.jitter.count()) + "ms\"\n    correlation: \"0\"\n",
                         "delay " + std::to_string(fault.latency.count()) + " ms +- " + std::to_string(fault.jitter.count()) +
                             " ms");
  }
  if (fault.bandwidth_bytes_per_second != 0 && !fault.blackhole) {
    // tc's token bucket in Chaos Mesh's units: the rate in bits per second, a queue (limit) and a
    // burst (buffer) in bytes; the burst at least a tenth of a second's worth.
    const std::uint64_t rate_bits = fault.bandwidth_bytes_per_second * 8;
    const std::uint64_t buffer = std::max<std::uint64_t>(10000, fault.bandwidth_bytes_per_second / 10);
    objects.emplace_back("  action: bandwidth\n  direction: to\n" + selectors + "  bandwidth:\n    rate: \"" +
                             std::to_string(rate_bits) + "bps\"\n    limit: 20971520\n    buffer: " + std::to_string(buffer) +
                             "\n",
                         "bandwidth " + std::to_string(fault.bandwidth_bytes_per_second) + " B/s");
  }
  if (objects.empty()) throw std::runtime_error("link fault: nothing to apply (no blackhole, latency, jitter or bandwidth)");
  std::string what, applied;
  for (const auto& [spec, description] : objects) {
    const std::string object = Apply("NetworkChaos", group, spec, group);
    what += (what.empty() ? "" : ", ") + description;
    applied += (applied.empty() ? "" : " ") + object;
  }
  return {what + " (" + applied + ")", applied};
}

chaos::ActionOutcome KubernetesClusterDriver::SetDatabaseLinkFaults(const std::string& member,
                                                                    const chaos::LinkFault& fault) {
  const std::string service = "{namespaces: [" + options_.ns + "], labelSelectors: " + LabelsYaml(options_.replica_selector) + "}";
  const std::string database = member.empty() ? "{namespaces: [" + options_.ns + "], labelSelectors: " +
                                                    LabelsYaml("cnpg.io/cluster=" + options_.database) + "}"
                                              : "{pods: {" + options_.ns + ": [" + member + "]}}";
  chaos::ActionOutcome outcome = LinkFault("db-link", service, database, fault);
  outcome.summary = "service -> " + (member.empty() ? "every instance" : member) + ": " + outcome.summary;
  return outcome;
}

chaos::ActionOutcome KubernetesClusterDriver::SetReplicationLinkFaults(const std::string& member,
                                                                       const chaos::LinkFault& fault) {
  const std::string all = "{namespaces: [" + options_.ns + "], labelSelectors: " +
                          LabelsYaml("cnpg.io/cluster=" + options_.database) + "}";
  const std::string one = member.empty() ? all : "{pods: {" + options_.ns + ": [" + member + "]}}";
  chaos::ActionOutcome outcome = LinkFault("replication-link", one, all, fault);
  outcome.summary = "replication " + (member.empty() ? "between every instance" : member + " <-> the others") + ": " +
                    outcome.summary;
  return outcome;
}

chaos::ActionOutcome KubernetesClusterDriver::DeleteGroup(const std::string& group, const std::string& what) {
  std::lock_guard lock(mu_);
  std::vector<Held> kept;
  std::vector<std::string> deleted;
  std::vector<std::string> failed;
  for (const Held& h : held_) {
    if (h.group != group) {
      kept.push_back(h);
      continue;
    }
    const Result r = Kubectl({"-n", options_.ns, "delete", h.kind, h.name, "--ignore-not-found", "--wait=false"},
                             options_.command_timeout, false);
    if (r.code != 0) {
      kept.push_back(h);  // still held: Cleanup retries it
      failed.push_back(h.kind + "/" + h.name + " (exit " + std::to_string(r.code) + ": " + r.err + ")");
      continue;
    }
    deleted.push_back(h.kind + "/" + h.name);
  }
  held_ = kept;
  if (!failed.empty()) throw std::runtime_error("clearing " + what + ": cannot delete " + Join(failed));
  return {"cleared " + what + (deleted.empty() ? " (none held)" : ": deleted " + Join(deleted)), ""};
}

chaos::ActionOutcome KubernetesClusterDriver::ClearDatabaseLinkFaults() { return DeleteGroup("db-link", "database link faults"); }

chaos::ActionOutcome KubernetesClusterDriver::ClearReplicationLinkFaults() {
  return DeleteGroup("replication-link", "replication link faults");
}

chaos::ActionOutcome KubernetesClusterDriver::SetReplicationMode(bool, std::int64_t) {
  throw std::runtime_error("SetReplicationMode: not supported by the Kubernetes driver (postgresql.synchronous is the "
                           "CloudNativePG Cluster's, manifests/kubernetes/cnpg-cluster.yaml)");
}

chaos::ActionOutcome KubernetesClusterDriver::RollingRestart(std::chrono::milliseconds, std::chrono::milliseconds) {
  const std::string deployment = "deployment/" + options_.deployment;
  Kubectl({"-n", options_.ns, "rollout", "restart", deployment}, options_.command_timeout);
  Kubectl({"-n", options_.ns, "rollout", "status", deployment, "--timeout=" + Seconds(options_.rollout_timeout)},
          options_.rollout_timeout + std::chrono::seconds(30));
  return {"restarted " + deployment + " and waited for its rollout (grace and minReady are the Deployment's own)",
          options_.deployment};
}

std::string KubernetesClusterDriver::ResolveNode(const std::string& node) {
  const std::vector<std::string> args = {"get", "nodes", "-l", options_.node_label + "=" + node, "-o", "json"};
  const json nodes = Parse(Kubectl(args, options_.command_timeout).out, "kubectl " + Join(args));
  std::vector<std::string> names;
  for (const json& n : Items(nodes)) names.push_back(Str(n, {"metadata", "name"}));
  if (names.size() != 1) {
    throw std::runtime_error("node '" + node + "': " + std::to_string(names.size()) + " nodes are labelled " +
                             options_.node_label + "=" + node + " (wants exactly one)");
  }
  return names[0];
}

chaos::ActionOutcome KubernetesClusterDriver::Drain(const std::string& node, std::chrono::milliseconds timeout) {
  if (timeout.count() == 0) timeout = options_.drain_timeout;
  const std::string name = ResolveNode(node);
  {
    std::lock_guard lock(mu_);
    cordoned_[node] = name;  // drain cordons first: from here on, uncordon always
  }
  const Result r = Kubectl({"drain", name, "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=" + Seconds(timeout)},
                           timeout + std::chrono::seconds(30), false);
  if (r.code != 0) {
    const Result u = Kubectl({"uncordon", name}, options_.command_timeout, false);
    if (u.code == 0) {
      std::lock_guard lock(mu_);
      cordoned_.erase(node);
    }
    throw std::runtime_error("drain of node " + node + " (" + name + ") failed (exit " + std::to_string(r.code) + ": " +
                             r.err + "); " + (u.code == 0 ? "uncordoned" : "uncordon failed too (" + u.err + "), retried on cleanup"));
  }
  return {"drained node " + node + " (" + name + ")", node};
}

chaos::ActionOutcome KubernetesClusterDriver::Uncordon(const std::string& node) {
  std::string name;
  {
    std::lock_guard lock(mu_);
    const auto it = cordoned_.find(node);
    if (it != cordoned_.end()) name = it->second;
  }
  if (name.empty()) name = ResolveNode(node);
  Kubectl({"uncordon", name}, options_.command_timeout);
  std::lock_guard lock(mu_);
  cordoned_.erase(node);
  return {"uncordoned node " + node + " (" + name + ")", node};
}

chaos::ActionOutcome KubernetesClusterDriver::SetReplicaDefects(const std::string&, const std::map<std::string, std::string>&) {
  throw std::runtime_error("SetReplicaDefects: not supported by the Kubernetes driver (the image has no defects switch)");
}

}  // namespace aftershock::cluster
