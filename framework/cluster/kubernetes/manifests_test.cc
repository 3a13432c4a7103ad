// The Kubernetes manifests (manifests/kubernetes/, docs/kubernetes.md) checked structurally, since no
// cluster exists where the tests run: every YAML document of every file is loaded, and each check
// below says what it guards. Each check runs on the real files (no problem) and on mutated in-memory
// copies (the problem it exists for, naming the object): a check that cannot fail is worth nothing.
//
// What the cluster would add is modelled, not guessed at run time: the CloudNativePG operator's
// instance pods and their labels, the Job controller's pod labels, the namespace name label, the
// control plane's taint, and cluster DNS (kube-system, k8s-app=kube-dns).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace aftershock::k8s_manifests {
namespace {

namespace fs = std::filesystem;
using Labels = std::map<std::string, std::string>;
using Problems = std::vector<std::string>;

const fs::path kSourceDir = AFTERSHOCK_SOURCE_DIR;
const fs::path kManifestsDir = kSourceDir / "manifests" / "kubernetes";
const fs::path kSetsDir = kSourceDir / "manifests" / "sets";

constexpr char kZoneLabel[] = "topology.kubernetes.io/zone";
constexpr char kHostnameLabel[] = "kubernetes.io/hostname";
constexpr char kNodeNameLabel[] = "aftershock.dev/node";  // a scenario's name for a node (kind-config.yaml)
constexpr char kControlPlaneTaint[] = "node-role.kubernetes.io/control-plane";
constexpr char kCompletionIndexAnnotation[] = "batch.kubernetes.io/job-completion-index";
// CloudNativePG's own connections (instance manager, status and monitoring queries), budgeted in
// cnpg-cluster.yaml's comment.
constexpr long kCnpgOwnConnections = 10;
constexpr long kDefaultSuperuserReserved = 3;  // PostgreSQL's default superuser_reserved_connections

struct Doc {
  std::string file;  // relative to manifests/kubernetes
  int index = 0;     // the document's place in its file
  YAML::Node node;

  std::string Str(const char* key) const {
    const YAML::Node& n = node;
    return n[key] && n[key].IsScalar() ? n[key].as<std::string>() : "";
  }
  std::string Kind() const { return Str("kind"); }
  std::string ApiVersion() const { return Str("apiVersion"); }
  std::string Name() const {
    const YAML::Node& n = node;
    if (n["metadata"] && n["metadata"]["name"]) return n["metadata"]["name"].as<std::string>();
    return Str("name");  // the kind config
  }
  std::string Namespace() const {
    const YAML::Node& n = node;
    return n["metadata"] && n["metadata"]["namespace"] ? n["metadata"]["namespace"].as<std::string>() : "";
  }
  // "Service aftershock/aftershock-pseudonym-headless (pseudonym.yaml)": how every problem names it.
  std::string Id() const {
    const std::string ns = Namespace();
    return Kind() + " " + (ns.empty() ? "" : ns + "/") + Name() + " (" + file + ")";
  }
  bool IsKindConfig() const { return ApiVersion().rfind("kind.x-k8s.io/", 0) == 0; }
};

struct Manifests {
  std::vector<Doc> docs;
  std::map<std::string, YAML::Node> sets;  // manifests/sets/<name>.yaml
  std::string grpc_service;                // from pseudonym.proto: package + "." + service
};

// ---------------------------------------------------------------- loading

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Manifests LoadAll() {
  Manifests m;
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(kManifestsDir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& path : files) {
    std::vector<YAML::Node> nodes;
    try {
      nodes = YAML::LoadAllFromFile(path.string());
    } catch (const YAML::Exception& e) {
      throw std::runtime_error(path.string() + ": " + e.what());
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      m.docs.push_back({fs::relative(path, kManifestsDir).string(), static_cast<int>(i), nodes[i]});
    }
  }
  for (const auto& entry : fs::directory_iterator(kSetsDir)) {
    if (entry.path().extension() != ".yaml") continue;
    try {
      m.sets[entry.path().stem().string()] = YAML::LoadFile(entry.path().string());
    } catch (const YAML::Exception& e) {
      throw std::runtime_error(entry.path().string() + ": " + e.what());
    }
  }
  const std::string proto = ReadFile(kSourceDir / "fixtures/targets/pseudonym/pseudonym.proto");
  const auto word_after = [&](const std::string& keyword) {
    const std::size_t at = proto.find("\n" + keyword + " ");
    if (at == std::string::npos) return std::string();
    const std::size_t begin = at + keyword.size() + 2;
    return proto.substr(begin, proto.find_first_of(" ;{", begin) - begin);
  };
  m.grpc_service = word_after("package") + "." + word_after("service");
  return m;
}

Manifests Clone(const Manifests& m) {
  Manifests copy = m;
  // reset(), not assignment: assigning to a YAML::Node writes through to the node it refers to,
  // which here is the original's.
  for (Doc& d : copy.docs) d.node.reset(YAML::Clone(d.node));
  for (auto& [name, set] : copy.sets) set.reset(YAML::Clone(set));
  return copy;
}

// ---------------------------------------------------------------- small readers

// The node at a path of map keys; an undefined node when any step is missing.
YAML::Node At(const YAML::Node& root, std::initializer_list<const char*> path) {
  if (!root) return YAML::Node(YAML::NodeType::Undefined);
  YAML::Node current;  // rebound with reset(), never assigned: assignment would write into root
  current.reset(root);
  for (const char* key : path) {
    if (!current || !current.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    const YAML::Node& c = current;
    YAML::Node next = c[key];
    if (!next) return YAML::Node(YAML::NodeType::Undefined);
    current.reset(next);
  }
  return current;
}

std::string Text(const YAML::Node& n) { return n && n.IsScalar() ? n.as<std::string>() : ""; }

std::optional<long> Int(const YAML::Node& n) {
  if (!n || !n.IsScalar()) return std::nullopt;
  try {
    std::size_t used = 0;
    const std::string s = n.as<std::string>();
    const long v = std::stol(s, &used);
    if (used != s.size()) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

Labels LabelMap(const YAML::Node& n) {
  Labels labels;
  if (n && n.IsMap()) {
    for (const auto& kv : n) labels[kv.first.as<std::string>()] = kv.second.IsNull() ? "" : kv.second.as<std::string>();
  }
  return labels;
}

std::string Describe(const Labels& labels) {
  std::string out = "{";
  for (const auto& [k, v] : labels) out += (out.size() > 1 ? "," : "") + k + "=" + v;
  return out + "}";
}

std::vector<std::string> Strings(const YAML::Node& n) {
  std::vector<std::string> out;
  if (n && n.IsSequence()) {
    for (const auto& item : n) out.push_back(item.as<std::string>());
  }
  return out;
}

// "--name=value" in a container's args.
std::optional<std::string> Flag(const std::vector<std::string>& args, const std::string& name) {
  for (const std::string& a : args) {
    if (a.rfind(name + "=", 0) == 0) return a.substr(name.size() + 1);
  }
  return std::nullopt;
}

// `key=value` in a libpq conninfo.
std::string ConninfoValue(const std::string& conninfo, const std::string& key) {
  std::istringstream in(conninfo);
  std::string word;
  while (in >> word) {
    if (word.rfind(key + "=", 0) == 0) return word.substr(key.size() + 1);
  }
  return "";
}

// ---------------------------------------------------------------- selectors

// A plain map (Service, Chaos Mesh labelSelectors) or a LabelSelector (matchLabels/matchExpressions).
bool MatchesMap(const Labels& wanted, const Labels& labels) {
  for (const auto& [k, v] : wanted) {
    const auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  return true;
}

bool MatchesSelector(const YAML::Node& selector, const Labels& labels) {
  if (!MatchesMap(LabelMap(At(selector, {"matchLabels"})), labels)) return false;
  const YAML::Node expressions = At(selector, {"matchExpressions"});
  if (expressions && expressions.IsSequence()) {
    for (const auto& e : expressions) {
      const std::string key = Text(e["key"]);
      const std::string op = Text(e["operator"]);
      const std::vector<std::string> values = Strings(e["values"]);
      const auto it = labels.find(key);
      const bool has = it != labels.end();
      const bool in = has && std::find(values.begin(), values.end(), it->second) != values.end();
      if ((op == "In" && !in) || (op == "NotIn" && in) || (op == "Exists" && !has) || (op == "DoesNotExist" && has)) {
        return false;
      }
    }
  }
  return true;
}

bool SelectorIsEmpty(const YAML::Node& selector) {
  return LabelMap(At(selector, {"matchLabels"})).empty() && !(At(selector, {"matchExpressions"}).IsSequence() &&
                                                              At(selector, {"matchExpressions"}).size() > 0);
}

// ---------------------------------------------------------------- the modelled cluster

struct Pod {
  std::string ns;
  Labels labels;
  std::string owner;          // the Id() of what makes it, or "<cluster DNS>"
  const Doc* doc = nullptr;   // the workload, when it is one of ours
  YAML::Node spec;            // its pod spec (undefined for modelled pods)
  std::string kind;           // Deployment | Job | ... | Cluster (a database instance) | DNS
  std::string db_role;        // primary | replica, for a database instance
};

bool IsWorkload(const std::string& kind) {
  return kind == "Deployment" || kind == "StatefulSet" || kind == "DaemonSet" || kind == "Job";
}

std::vector<Pod> Pods(const Manifests& m) {
  std::vector<Pod> pods;
  for (const Doc& d : m.docs) {
    if (IsWorkload(d.Kind())) {
      Pod pod{d.Namespace(), LabelMap(At(d.node, {"spec", "template", "metadata", "labels"})), d.Id(), &d,
              At(d.node, {"spec", "template", "spec"}), d.Kind(), ""};
      if (d.Kind() == "Job") {
        // The Job controller's labels on every pod it makes.
        pod.labels["job-name"] = d.Name();
        pod.labels["batch.kubernetes.io/job-name"] = d.Name();
        if (Text(At(d.node, {"spec", "completionMode"})) == "Indexed") pod.labels[kCompletionIndexAnnotation] = "0";
      }
      pods.push_back(pod);
    } else if (d.Kind() == "Cluster" && d.ApiVersion().rfind("postgresql.cnpg.io/", 0) == 0) {
      // CloudNativePG's instance pods: one primary, the others replicas.
      for (const char* role : {"primary", "replica"}) {
        pods.push_back({d.Namespace(),
                        {{"cnpg.io/cluster", d.Name()}, {"cnpg.io/podRole", "instance"}, {"cnpg.io/instanceRole", role}},
                        d.Id() + " " + role,
                        nullptr,
                        YAML::Node(YAML::NodeType::Undefined),
                        "Cluster",
                        role});
      }
    }
  }
  pods.push_back(
      {"kube-system", {{"k8s-app", "kube-dns"}}, "<cluster DNS>", nullptr, YAML::Node(YAML::NodeType::Undefined), "DNS", ""});
  return pods;
}

// Namespace name -> labels (Kubernetes adds kubernetes.io/metadata.name to every namespace).
std::map<std::string, Labels> Namespaces(const Manifests& m) {
  std::map<std::string, Labels> out = {{"kube-system", {}}, {"default", {}}};
  for (const Doc& d : m.docs) {
    if (d.Kind() == "Namespace") out[d.Name()] = LabelMap(At(d.node, {"metadata", "labels"}));
  }
  for (auto& [name, labels] : out) labels["kubernetes.io/metadata.name"] = name;
  return out;
}

struct Node {
  std::string role;  // control-plane | worker
  Labels labels;
  std::vector<std::string> taints;  // keys, all NoSchedule
};

std::vector<Node> KindNodes(const Manifests& m, Problems* problems) {
  std::vector<Node> nodes;
  for (const Doc& d : m.docs) {
    if (!d.IsKindConfig()) continue;
    const YAML::Node list = At(d.node, {"nodes"});
    for (std::size_t i = 0; list.IsSequence() && i < list.size(); ++i) {
      Node node{Text(list[i]["role"]), LabelMap(list[i]["labels"]), {}};
      node.labels[kHostnameLabel] = "node-" + std::to_string(i);
      if (node.role == "control-plane") {
        node.labels[kControlPlaneTaint] = "";
        node.taints.push_back(kControlPlaneTaint);
      }
      nodes.push_back(node);
    }
  }
  if (nodes.empty() && problems) problems->push_back("no kind config (kind.x-k8s.io Cluster) with nodes");
  return nodes;
}

// "node 'node-b' (worker)": its aftershock.dev/node name and its role.
std::string NodeName(const Node& n) {
  const auto it = n.labels.find(kNodeNameLabel);
  return "node '" + (it == n.labels.end() ? std::string("?") : it->second) + "' (" + n.role + ")";
}

const Doc* Find(const Manifests& m, const std::string& kind, const std::string& name) {
  for (const Doc& d : m.docs) {
    if (d.Kind() == kind && d.Name() == name) return &d;
  }
  return nullptr;
}

std::vector<const Doc*> OfKind(const Manifests& m, const std::string& kind) {
  std::vector<const Doc*> out;
  for (const Doc& d : m.docs) {
    if (d.Kind() == kind) out.push_back(&d);
  }
  return out;
}

// The first container of a workload's pod template.
const YAML::Node Container(const Doc& d) {
  const YAML::Node containers = At(d.node, {"spec", "template", "spec", "containers"});
  return containers.IsSequence() && containers.size() > 0 ? containers[0] : YAML::Node(YAML::NodeType::Undefined);
}
std::vector<std::string> Args(const Doc& d) { return Strings(Container(d)["args"]); }

std::vector<const Pod*> Selected(const std::vector<Pod>& pods, const std::string& ns,
                                 const std::function<bool(const Labels&)>& matches) {
  std::vector<const Pod*> out;
  for (const Pod& p : pods) {
    if (p.ns == ns && matches(p.labels)) out.push_back(&p);
  }
  return out;
}

// ---------------------------------------------------------------- the checks

// Every document has an apiVersion, a kind and a name; a namespaced one names a namespace that
// exists; no two objects share kind, namespace and name.
Problems CheckWellFormed(const Manifests& m) {
  Problems problems;
  const std::set<std::string> cluster_scoped = {"Namespace", "ClusterRole", "ClusterRoleBinding"};
  const auto namespaces = Namespaces(m);
  std::set<std::string> seen;
  for (const Doc& d : m.docs) {
    const std::string where = d.file + " document " + std::to_string(d.index + 1);
    if (d.ApiVersion().empty() || d.Kind().empty() || d.Name().empty()) {
      problems.push_back(where + ": needs apiVersion, kind and a name");
      continue;
    }
    if (!d.IsKindConfig() && !cluster_scoped.count(d.Kind())) {
      if (d.Namespace().empty()) problems.push_back(d.Id() + ": no metadata.namespace");
      else if (!namespaces.count(d.Namespace())) problems.push_back(d.Id() + ": namespace '" + d.Namespace() + "' is not defined");
    }
    if (!seen.insert(d.Kind() + "/" + d.Namespace() + "/" + d.Name()).second) problems.push_back(d.Id() + ": defined twice");
  }
  return problems;
}

// Every Service, PodDisruptionBudget, Deployment, NetworkPolicy (and its peers), spread constraint
// and anti-affinity term selects the pods it is for; Jobs leave their selector to Kubernetes; every
// ServiceAccount a pod or binding names exists.
Problems CheckSelectors(const Manifests& m) {
  Problems problems;
  const std::vector<Pod> pods = Pods(m);
  const auto namespaces = Namespaces(m);
  const auto workload_pods = [&](const std::string& ns, const std::function<bool(const Labels&)>& matches) {
    std::vector<const Pod*> out;
    for (const Pod* p : Selected(pods, ns, matches)) {
      if (p->doc != nullptr && p->doc->Kind() != "Job") out.push_back(p);
    }
    return out;
  };
  for (const Doc& d : m.docs) {
    const std::string kind = d.Kind();
    if (kind == "Service") {
      const Labels selector = LabelMap(At(d.node, {"spec", "selector"}));
      if (selector.empty()) {
        problems.push_back(d.Id() + ": no selector");
        continue;
      }
      const auto selected = workload_pods(d.Namespace(), [&](const Labels& l) { return MatchesMap(selector, l); });
      if (selected.empty()) {
        problems.push_back(d.Id() + ": selector " + Describe(selector) + " selects no pod in namespace " + d.Namespace());
      }
      // A named targetPort must be a port name of the selected pods' containers.
      const YAML::Node ports = At(d.node, {"spec", "ports"});
      for (std::size_t i = 0; ports.IsSequence() && i < ports.size(); ++i) {
        const std::string target = Text(ports[i]["targetPort"]);
        if (target.empty() || std::isdigit(static_cast<unsigned char>(target[0]))) continue;
        for (const Pod* p : selected) {
          bool found = false;
          for (const auto& c : p->spec["containers"]) {
            for (const auto& port : c["ports"]) found = found || Text(port["name"]) == target;
          }
          if (!found) problems.push_back(d.Id() + ": targetPort '" + target + "' is no port of " + p->owner);
        }
      }
    } else if (kind == "PodDisruptionBudget") {
      const YAML::Node selector = At(d.node, {"spec", "selector"});
      if (SelectorIsEmpty(selector)) {
        problems.push_back(d.Id() + ": an empty selector (it would cover every pod of the namespace)");
      } else if (workload_pods(d.Namespace(), [&](const Labels& l) { return MatchesSelector(selector, l); }).empty()) {
        problems.push_back(d.Id() + ": selector " + Describe(LabelMap(selector["matchLabels"])) +
                           " selects no pod in namespace " + d.Namespace());
      }
    } else if (kind == "Deployment" || kind == "StatefulSet" || kind == "DaemonSet") {
      const YAML::Node selector = At(d.node, {"spec", "selector"});
      const Labels labels = LabelMap(At(d.node, {"spec", "template", "metadata", "labels"}));
      if (SelectorIsEmpty(selector) || !MatchesSelector(selector, labels)) {
        problems.push_back(d.Id() + ": selector " + Describe(LabelMap(selector["matchLabels"])) +
                           " does not match its pod template's labels " + Describe(labels));
      }
    } else if (kind == "Job") {
      if (At(d.node, {"spec", "selector"}) || Text(At(d.node, {"spec", "manualSelector"})) == "true") {
        problems.push_back(d.Id() + ": sets its own selector (leave it to Kubernetes, which selects the Job's pods by uid)");
      }
    } else if (kind == "NetworkPolicy") {
      const YAML::Node selector = At(d.node, {"spec", "podSelector"});
      if (SelectorIsEmpty(selector)) {
        problems.push_back(d.Id() + ": an empty podSelector (every pod of the namespace)");
      } else if (Selected(pods, d.Namespace(), [&](const Labels& l) { return MatchesSelector(selector, l); }).empty()) {
        problems.push_back(d.Id() + ": podSelector " + Describe(LabelMap(selector["matchLabels"])) +
                           " selects no pod in namespace " + d.Namespace());
      }
      for (const char* direction : {"ingress", "egress"}) {
        const YAML::Node rules = At(d.node, {"spec", direction});
        for (std::size_t r = 0; rules.IsSequence() && r < rules.size(); ++r) {
          const YAML::Node peers = rules[r][std::string(direction) == "egress" ? "to" : "from"];
          for (std::size_t i = 0; peers.IsSequence() && i < peers.size(); ++i) {
            const YAML::Node peer = peers[i];
            if (!peer["podSelector"] && !peer["namespaceSelector"]) continue;  // ipBlock
            std::vector<std::string> in;
            if (peer["namespaceSelector"]) {
              for (const auto& [name, labels] : namespaces) {
                if (MatchesSelector(peer["namespaceSelector"], labels)) in.push_back(name);
              }
            } else {
              in.push_back(d.Namespace());
            }
            bool any = false;
            for (const std::string& ns : in) {
              any = any || !Selected(pods, ns, [&](const Labels& l) {
                              return !peer["podSelector"] || MatchesSelector(peer["podSelector"], l);
                            }).empty();
            }
            if (!any) {
              problems.push_back(d.Id() + ": " + direction + " rule " + std::to_string(r + 1) + " peer " +
                                 std::to_string(i + 1) + " selects no pod (namespaces " +
                                 Describe(LabelMap(peer["namespaceSelector"]["matchLabels"])) + ", pods " +
                                 Describe(LabelMap(peer["podSelector"]["matchLabels"])) + ")");
            }
          }
        }
      }
    } else if (kind == "RoleBinding" || kind == "ClusterRoleBinding") {
      for (const auto& s : At(d.node, {"subjects"})) {
        if (Text(s["kind"]) != "ServiceAccount") continue;
        const Doc* sa = Find(m, "ServiceAccount", Text(s["name"]));
        if (sa == nullptr || sa->Namespace() != Text(s["namespace"])) {
          problems.push_back(d.Id() + ": subject ServiceAccount " + Text(s["namespace"]) + "/" + Text(s["name"]) +
                             " is not defined");
        }
      }
      const std::string role_kind = Text(At(d.node, {"roleRef", "kind"}));
      const Doc* role = Find(m, role_kind, Text(At(d.node, {"roleRef", "name"})));
      if (role == nullptr || (role_kind == "Role" && role->Namespace() != d.Namespace())) {
        problems.push_back(d.Id() + ": roleRef " + role_kind + " " + Text(At(d.node, {"roleRef", "name"})) +
                           " is not defined in its namespace");
      }
    }
    if (IsWorkload(kind)) {
      const YAML::Node spec = At(d.node, {"spec", "template", "spec"});
      const Labels own = LabelMap(At(d.node, {"spec", "template", "metadata", "labels"}));
      const std::string sa = Text(spec["serviceAccountName"]);
      if (!sa.empty() && (Find(m, "ServiceAccount", sa) == nullptr ||
                          Find(m, "ServiceAccount", sa)->Namespace() != d.Namespace())) {
        problems.push_back(d.Id() + ": serviceAccountName " + sa + " is not defined in namespace " + d.Namespace());
      }
      for (const auto& c : spec["topologySpreadConstraints"]) {
        if (!MatchesSelector(c["labelSelector"], own) || SelectorIsEmpty(c["labelSelector"])) {
          problems.push_back(d.Id() + ": topology spread labelSelector " +
                             Describe(LabelMap(c["labelSelector"]["matchLabels"])) + " does not select its own pods");
        }
      }
      for (const auto& term : At(spec, {"affinity", "podAntiAffinity", "preferredDuringSchedulingIgnoredDuringExecution"})) {
        if (!MatchesSelector(term["podAffinityTerm"]["labelSelector"], own)) {
          problems.push_back(d.Id() + ": pod anti-affinity labelSelector does not select its own pods");
        }
      }
    }
  }
  return problems;
}

// The service's Deployment: several replicas, a disruption budget of exactly one, spread across
// zones with DoNotSchedule, graceful shutdown (preStop, a termination grace longer than preStop plus
// the server's own grace), minReadySeconds, readiness on the gRPC health service of the port it
// listens on, and a headless Service; and a kind config of one control plane and three workers, each
// in a zone, the workers in three different ones.
Problems CheckAvailability(const Manifests& m) {
  Problems problems;
  Problems node_problems;
  const std::vector<Node> nodes = KindNodes(m, &node_problems);
  problems.insert(problems.end(), node_problems.begin(), node_problems.end());
  std::set<std::string> worker_zones;
  int workers = 0;
  int control_planes = 0;
  for (const Node& n : nodes) {
    const auto zone = n.labels.find(kZoneLabel);
    if (zone == n.labels.end() || zone->second.empty()) problems.push_back("kind config: " + NodeName(n) + " has no zone label");
    if (n.role == "worker") {
      ++workers;
      if (zone != n.labels.end()) worker_zones.insert(zone->second);
    }
    control_planes += n.role == "control-plane";
  }
  if (!nodes.empty() && (control_planes != 1 || workers != 3 || worker_zones.size() != 3)) {
    problems.push_back("kind config: wants one control plane and three workers in three zones, has " +
                       std::to_string(control_planes) + " control plane(s), " + std::to_string(workers) +
                       " worker(s) in " + std::to_string(worker_zones.size()) + " zone(s)");
  }

  const auto deployments = OfKind(m, "Deployment");
  if (deployments.empty()) problems.push_back("no Deployment of the reference service");
  for (const Doc* d : deployments) {
    const Labels own = LabelMap(At(d->node, {"spec", "template", "metadata", "labels"}));
    const long replicas = Int(At(d->node, {"spec", "replicas"})).value_or(1);
    if (replicas < 3) problems.push_back(d->Id() + ": " + std::to_string(replicas) + " replica(s), wants 3 or more");

    bool budget = false;
    for (const Doc* pdb : OfKind(m, "PodDisruptionBudget")) {
      if (pdb->Namespace() != d->Namespace() || !MatchesSelector(At(pdb->node, {"spec", "selector"}), own)) continue;
      budget = true;
      if (Int(At(pdb->node, {"spec", "maxUnavailable"})) != 1) {
        problems.push_back(pdb->Id() + ": maxUnavailable must be 1 (0 blocks every drain; more loses capacity)");
      }
    }
    if (!budget) problems.push_back(d->Id() + ": no PodDisruptionBudget selects its pods");

    const YAML::Node spec = At(d->node, {"spec", "template", "spec"});
    bool spread = false;
    for (const auto& c : spec["topologySpreadConstraints"]) {
      spread = spread || (Text(c["topologyKey"]) == kZoneLabel && Text(c["whenUnsatisfiable"]) == "DoNotSchedule" &&
                          Int(c["maxSkew"]) == 1 && MatchesSelector(c["labelSelector"], own));
    }
    if (!spread) {
      problems.push_back(d->Id() + ": no topology spread constraint over " + kZoneLabel +
                         " with maxSkew 1 and whenUnsatisfiable DoNotSchedule for its own pods");
    }

    if (Int(At(d->node, {"spec", "minReadySeconds"})).value_or(0) <= 0) {
      problems.push_back(d->Id() + ": no minReadySeconds (a rolling restart would run ahead of crashing pods)");
    }
    const YAML::Node c = Container(*d);
    const std::vector<std::string> pre_stop = Strings(At(c, {"lifecycle", "preStop", "exec", "command"}));
    long pre_stop_seconds = -1;
    if (pre_stop.size() == 2 && pre_stop[0] == "sleep") pre_stop_seconds = Int(YAML::Node(pre_stop[1])).value_or(-1);
    if (pre_stop_seconds <= 0) problems.push_back(d->Id() + ": no preStop sleep (endpoints lag the pod's deletion)");
    const std::vector<std::string> args = Args(*d);
    const long grace = Int(YAML::Node(Flag(args, "--grace-seconds").value_or("5"))).value_or(-1);
    const long termination = Int(spec["terminationGracePeriodSeconds"]).value_or(30);
    if (!spec["terminationGracePeriodSeconds"] || termination <= std::max(pre_stop_seconds, 0L) + grace) {
      problems.push_back(d->Id() + ": terminationGracePeriodSeconds " + std::to_string(termination) +
                         " must exceed preStop (" + std::to_string(pre_stop_seconds) + " s) + --grace-seconds (" +
                         std::to_string(grace) + " s)");
    }
    const std::string listen = Flag(args, "--listen").value_or("");
    const std::string port = listen.substr(listen.rfind(':') + 1);
    const YAML::Node probe = At(c, {"readinessProbe", "grpc"});
    if (!probe || Text(probe["port"]) != port || Text(probe["service"]) != m.grpc_service) {
      problems.push_back(d->Id() + ": readiness must be the gRPC health of " + m.grpc_service + " on the --listen port " +
                         port + " (has port '" + Text(probe["port"]) + "', service '" + Text(probe["service"]) + "')");
    }
    bool headless = false;
    for (const Doc* s : OfKind(m, "Service")) {
      if (s->Namespace() != d->Namespace() || !MatchesMap(LabelMap(At(s->node, {"spec", "selector"})), own)) continue;
      if (Text(At(s->node, {"spec", "clusterIP"})) != "None") continue;
      for (const auto& p : At(s->node, {"spec", "ports"})) headless = headless || Text(p["port"]) == port;
    }
    if (!headless) {
      problems.push_back(d->Id() + ": no headless Service (clusterIP None) selects its pods on port " + port +
                         " (client-side round robin needs every pod's address)");
    }
  }
  return problems;
}

// The CloudNativePG cluster: three instances, required anti-affinity by hostname, and exactly the
// synchronous stanza that makes P2/P3 zero-tolerance: method any, number 1, dataDurability required.
Problems CheckDatabase(const Manifests& m) {
  Problems problems;
  std::vector<const Doc*> clusters;
  for (const Doc& d : m.docs) {
    if (d.Kind() == "Cluster" && d.ApiVersion().rfind("postgresql.cnpg.io/", 0) == 0) clusters.push_back(&d);
  }
  if (clusters.size() != 1) problems.push_back("wants exactly one CloudNativePG Cluster, has " + std::to_string(clusters.size()));
  for (const Doc* d : clusters) {
    if (Int(At(d->node, {"spec", "instances"})) != 3) problems.push_back(d->Id() + ": instances must be 3");
    const YAML::Node sync = At(d->node, {"spec", "postgresql", "synchronous"});
    const std::map<std::string, std::string> want = {{"method", "any"}, {"number", "1"}, {"dataDurability", "required"}};
    std::map<std::string, std::string> have;
    if (sync.IsMap()) {
      for (const auto& kv : sync) have[kv.first.as<std::string>()] = kv.second.IsScalar() ? kv.second.as<std::string>() : "(not a scalar)";
    }
    if (have != want) {
      problems.push_back(d->Id() + ": postgresql.synchronous must be exactly " + Describe(want) + ", is " + Describe(have));
    }
    if (At(d->node, {"spec", "minSyncReplicas"}) || At(d->node, {"spec", "maxSyncReplicas"})) {
      problems.push_back(d->Id() + ": minSyncReplicas/maxSyncReplicas are the old form; postgresql.synchronous only");
    }
    const YAML::Node affinity = At(d->node, {"spec", "affinity"});
    if (Text(affinity["enablePodAntiAffinity"]) != "true" || Text(affinity["podAntiAffinityType"]) != "required" ||
        Text(affinity["topologyKey"]) != kHostnameLabel) {
      problems.push_back(d->Id() + ": affinity must be enablePodAntiAffinity true, podAntiAffinityType required, topologyKey " +
                         kHostnameLabel);
    }
  }
  return problems;
}

// The service reaches the database the operator makes (the -rw Service, the initdb owner and
// database, the -app Secret's password), and max_connections covers every pod's pool at the peak of
// a rolling restart (replicas + maxSurge) plus the superuser reserve and CloudNativePG's own.
Problems CheckConnectionBudget(const Manifests& m) {
  Problems problems;
  const Doc* cluster = nullptr;
  for (const Doc& d : m.docs) {
    if (d.Kind() == "Cluster" && d.ApiVersion().rfind("postgresql.cnpg.io/", 0) == 0) cluster = &d;
  }
  if (cluster == nullptr) return {"no CloudNativePG Cluster"};
  const YAML::Node params = At(cluster->node, {"spec", "postgresql", "parameters"});
  const std::optional<long> max_connections = Int(params["max_connections"]);
  const long reserved = Int(params["superuser_reserved_connections"]).value_or(kDefaultSuperuserReserved);
  const std::string owner = Text(At(cluster->node, {"spec", "bootstrap", "initdb", "owner"}));
  const std::string database = Text(At(cluster->node, {"spec", "bootstrap", "initdb", "database"}));
  long needed = reserved + kCnpgOwnConnections;
  std::string sum = std::to_string(reserved) + " reserved + " + std::to_string(kCnpgOwnConnections) + " CloudNativePG";
  bool any = false;
  for (const Doc* d : OfKind(m, "Deployment")) {
    if (d->Namespace() != cluster->Namespace()) continue;
    const std::vector<std::string> args = Args(*d);
    if (Flag(args, "--store") != "postgres") continue;
    any = true;
    const std::string conninfo = Flag(args, "--postgres-conninfo").value_or("");
    if (ConninfoValue(conninfo, "host") != cluster->Name() + "-rw") {
      problems.push_back(d->Id() + ": connects to host '" + ConninfoValue(conninfo, "host") + "', not the primary's Service " +
                         cluster->Name() + "-rw");
    }
    if (ConninfoValue(conninfo, "user") != owner || ConninfoValue(conninfo, "dbname") != database) {
      problems.push_back(d->Id() + ": user/dbname must be the initdb owner/database (" + owner + "/" + database + ")");
    }
    bool password = false;
    for (const auto& e : Container(*d)["env"]) {
      password = password || (Text(e["name"]) == "PGPASSWORD" &&
                              Text(At(e, {"valueFrom", "secretKeyRef", "name"})) == cluster->Name() + "-app" &&
                              Text(At(e, {"valueFrom", "secretKeyRef", "key"})) == "password");
    }
    if (!password) problems.push_back(d->Id() + ": PGPASSWORD must come from Secret " + cluster->Name() + "-app, key password");
    const long pool = Int(YAML::Node(Flag(args, "--postgres-pool").value_or("8"))).value_or(0);
    const long replicas = Int(At(d->node, {"spec", "replicas"})).value_or(1);
    const YAML::Node surge_node = At(d->node, {"spec", "strategy", "rollingUpdate", "maxSurge"});
    const std::optional<long> surge = surge_node ? Int(surge_node) : std::optional<long>(1);
    if (!surge) {
      problems.push_back(d->Id() + ": maxSurge must be a number of pods for the connection budget, is '" + Text(surge_node) + "'");
      continue;
    }
    needed += (replicas + *surge) * pool;
    sum += " + (" + std::to_string(replicas) + " replicas + " + std::to_string(*surge) + " surge) x " +
           std::to_string(pool) + " pool";
  }
  if (!any) problems.push_back("no Deployment in namespace " + cluster->Namespace() + " uses the database (--store=postgres)");
  if (!max_connections || *max_connections < needed) {
    problems.push_back(cluster->Id() + ": max_connections " + (max_connections ? std::to_string(*max_connections) : "unset") +
                       " does not cover " + sum + " = " + std::to_string(needed));
  }
  return problems;
}

// Every generator Job (coordinator and workers) runs only on the node(s) its nodeSelector picks in
// the kind config, which must be the control plane alone, tolerates that node's taint, is not
// retried (backoffLimit 0, restartPolicy Never) and has a deadline; and no set's drain scenario
// names a node a generator runs on.
Problems CheckGeneratorPlacement(const Manifests& m) {
  Problems problems;
  const std::vector<Node> nodes = KindNodes(m, &problems);
  std::set<std::string> generator_nodes;
  const auto jobs = OfKind(m, "Job");
  if (jobs.empty()) problems.push_back("no generator Job");
  for (const Doc* job : jobs) {
    const YAML::Node spec = At(job->node, {"spec", "template", "spec"});
    const Labels selector = LabelMap(spec["nodeSelector"]);
    if (selector.empty()) {
      problems.push_back(job->Id() + ": no nodeSelector (it could land on a node a scenario drains)");
      continue;
    }
    int matched = 0;
    for (const Node& n : nodes) {
      if (!MatchesMap(selector, n.labels)) continue;
      ++matched;
      if (n.labels.count(kNodeNameLabel)) generator_nodes.insert(n.labels.at(kNodeNameLabel));
      if (n.role != "control-plane") {
        problems.push_back(job->Id() + ": nodeSelector " + Describe(selector) + " picks " + NodeName(n) +
                           ", not only the control plane");
      }
      for (const std::string& taint : n.taints) {
        bool tolerated = false;
        for (const auto& t : spec["tolerations"]) {
          tolerated = tolerated || (Text(t["key"]) == taint && (Text(t["operator"]) == "Exists") &&
                                    (Text(t["effect"]).empty() || Text(t["effect"]) == "NoSchedule"));
        }
        if (!tolerated) problems.push_back(job->Id() + ": does not tolerate " + taint + ":NoSchedule of " + NodeName(n));
      }
    }
    if (matched == 0) problems.push_back(job->Id() + ": nodeSelector " + Describe(selector) + " picks no node of the kind config");
    if (Int(At(job->node, {"spec", "backoffLimit"})) != 0) {
      problems.push_back(job->Id() + ": backoffLimit must be 0 (a retried generator is a second, different run)");
    }
    if (Text(spec["restartPolicy"]) != "Never") problems.push_back(job->Id() + ": restartPolicy must be Never");
    if (Int(At(job->node, {"spec", "activeDeadlineSeconds"})).value_or(0) <= 0) {
      problems.push_back(job->Id() + ": no activeDeadlineSeconds");
    }
  }
  for (const auto& [set_name, set] : m.sets) {
    for (const auto& scenario : set["scenarios"]) {
      const YAML::Node node = At(scenario, {"params", "node"});
      if (Text(scenario["test"]).find("Drain") == std::string::npos || !node) continue;
      const std::string target = Text(node);
      const Node* found = nullptr;
      for (const Node& n : nodes) {
        if (n.labels.count(kNodeNameLabel) && n.labels.at(kNodeNameLabel) == target) found = &n;
      }
      const std::string where = "set " + set_name + " scenario " + Text(scenario["name"]);
      if (found == nullptr) {
        problems.push_back(where + ": drains node '" + target + "', which no kind node is labelled " + kNodeNameLabel + " with");
      } else if (found->role != "worker" || generator_nodes.count(target)) {
        problems.push_back(where + ": drains node '" + target + "', where the load generator runs");
      }
    }
  }
  return problems;
}

// A Job's $(VAR) references name variables its container defines (Kubernetes leaves an unknown one
// unexpanded, silently).
Problems CheckArgumentVariables(const Doc& job) {
  Problems problems;
  std::set<std::string> defined;
  for (const auto& e : Container(job)["env"]) defined.insert(Text(e["name"]));
  for (const std::string& arg : Args(job)) {
    for (std::size_t at = arg.find("$("); at != std::string::npos; at = arg.find("$(", at + 2)) {
      const std::string name = arg.substr(at + 2, arg.find(')', at) - at - 2);
      if (!defined.count(name)) problems.push_back(job.Id() + ": argument '" + arg + "' uses $(" + name + "), which is not defined");
    }
  }
  return problems;
}

// The coordinator Job's activeDeadlineSeconds is its load window: load_seconds + settle_seconds of
// each scenario it runs (its --gtest_filter, resolved in its set's manifest) plus its declared
// margin; every test in the filter is a scenario of that set.
Problems CheckLoadWindow(const Manifests& m) {
  Problems problems;
  bool any = false;
  for (const Doc* job : OfKind(m, "Job")) {
    const std::string set_name = Text(At(job->node, {"metadata", "annotations", "aftershock.dev/set"}));
    if (set_name.empty()) continue;
    any = true;
    const auto set = m.sets.find(set_name);
    if (set == m.sets.end()) {
      problems.push_back(job->Id() + ": set '" + set_name + "' is not in manifests/sets");
      continue;
    }
    const std::vector<std::string> args = Args(*job);
    if (Flag(args, "--aftershock_set") != set_name) problems.push_back(job->Id() + ": --aftershock_set is not " + set_name);
    // Without the switch the suite looks for a local cluster's state file in the pod.
    if (Flag(args, "--aftershock_cluster_driver") != "kubernetes") {
      problems.push_back(job->Id() + ": no --aftershock_cluster_driver=kubernetes (the suite would attach to a local cluster)");
    }
    const std::string manifest = Flag(args, "--aftershock_manifest").value_or("");
    if (manifest.size() < set_name.size() + 6 || manifest.substr(manifest.size() - set_name.size() - 6) != "/" + set_name + ".yaml") {
      problems.push_back(job->Id() + ": --aftershock_manifest '" + manifest + "' is not the set's " + set_name + ".yaml");
    }
    const YAML::Node defaults = set->second["defaults"];
    long window = 0;
    std::string filter = Flag(args, "--gtest_filter").value_or("");
    if (filter.empty()) problems.push_back(job->Id() + ": no --gtest_filter (which scenarios, and so how long?)");
    std::istringstream tests(filter);
    std::string test;
    while (std::getline(tests, test, ':')) {
      const YAML::Node* found = nullptr;
      YAML::Node scenario_node;
      for (const auto& s : set->second["scenarios"]) {
        if (Text(s["test"]) == test) {
          scenario_node.reset(s);
          found = &scenario_node;
        }
      }
      if (found == nullptr) {
        problems.push_back(job->Id() + ": --gtest_filter names " + test + ", which is no scenario of set " + set_name);
        continue;
      }
      const auto knob = [&](const char* key) {
        return Int((*found)[key] ? (*found)[key] : defaults[key]);
      };
      if (!knob("load_seconds") || !knob("settle_seconds")) {
        problems.push_back(job->Id() + ": scenario " + Text((*found)["name"]) + " has no load_seconds/settle_seconds");
        continue;
      }
      window += *knob("load_seconds") + *knob("settle_seconds");
    }
    const long margin = Int(At(job->node, {"metadata", "annotations", "aftershock.dev/margin-seconds"})).value_or(-1);
    const std::optional<long> deadline = Int(At(job->node, {"spec", "activeDeadlineSeconds"}));
    if (margin < 0) problems.push_back(job->Id() + ": no aftershock.dev/margin-seconds annotation");
    if (deadline != window + margin) {
      problems.push_back(job->Id() + ": activeDeadlineSeconds " + (deadline ? std::to_string(*deadline) : "unset") +
                         " is not the load window " + std::to_string(window) + " s (load + settle of set " + set_name +
                         ") + margin " + std::to_string(margin) + " s");
    }
    const auto vars = CheckArgumentVariables(*job);
    problems.insert(problems.end(), vars.begin(), vars.end());
  }
  if (!any) problems.push_back("no coordinator Job (annotated aftershock.dev/set)");
  return problems;
}

// The Indexed Job: completions = parallelism = --workers, --worker is the completion index (from
// the Job controller's annotation), its variables are defined, and its deadline is --seconds plus
// its declared margin.
Problems CheckIndexedJob(const Manifests& m) {
  Problems problems;
  bool any = false;
  for (const Doc* job : OfKind(m, "Job")) {
    const std::vector<std::string> args = Args(*job);
    if (!Flag(args, "--worker")) continue;  // not a loadgen worker
    any = true;
    if (Text(At(job->node, {"spec", "completionMode"})) != "Indexed") {
      problems.push_back(job->Id() + ": completionMode must be Indexed (each pod needs its own worker index)");
    }
    const std::optional<long> completions = Int(At(job->node, {"spec", "completions"}));
    const std::optional<long> parallelism = Int(At(job->node, {"spec", "parallelism"}));
    const std::optional<long> workers = Int(YAML::Node(Flag(args, "--workers").value_or("")));
    if (!completions || completions != parallelism || completions != workers) {
      problems.push_back(job->Id() + ": completions, parallelism and --workers must be equal (the schedule is split " +
                         "--workers ways; all workers run at once)");
    }
    if (Flag(args, "--worker") != "$(JOB_COMPLETION_INDEX)") {
      problems.push_back(job->Id() + ": --worker must be $(JOB_COMPLETION_INDEX), is '" + Flag(args, "--worker").value() + "'");
    }
    bool index_env = false;
    for (const auto& e : Container(*job)["env"]) {
      index_env = index_env || (Text(e["name"]) == "JOB_COMPLETION_INDEX" &&
                                Text(At(e, {"valueFrom", "fieldRef", "fieldPath"})) ==
                                    std::string("metadata.annotations['") + kCompletionIndexAnnotation + "']");
    }
    if (!index_env) {
      problems.push_back(job->Id() + ": JOB_COMPLETION_INDEX must come from the pod's " + kCompletionIndexAnnotation +
                         " annotation");
    }
    const auto vars = CheckArgumentVariables(*job);
    problems.insert(problems.end(), vars.begin(), vars.end());
    // The pod's files die with it: only its log reaches the merge (tools/loadgen/worker_log.h).
    if (Flag(args, "--emit") != "stdout") {
      problems.push_back(job->Id() + ": no --emit=stdout (the worker's files die with its pod; the merge reads the logs)");
    }
    // The Service: gRPC Create to the headless Service, off loopback by explicit allowance.
    const std::string target = Flag(args, "--target").value_or("");
    const std::string service = "dns:///aftershock-pseudonym-headless.aftershock.svc.cluster.local:8081";
    if (Flag(args, "--kind") != "pseudonym" || target != service) {
      problems.push_back(job->Id() + ": --kind=pseudonym --target=" + service + " expected, is --kind=" +
                         Flag(args, "--kind").value_or("") + " --target=" + target);
    }
    if (Flag(args, "--allow_non_loopback") != "true") {
      problems.push_back(job->Id() + ": a Service target needs --allow_non_loopback=true");
    }
    const long seconds = Int(YAML::Node(Flag(args, "--seconds").value_or(""))).value_or(-1);
    const long margin = Int(At(job->node, {"metadata", "annotations", "aftershock.dev/margin-seconds"})).value_or(-1);
    const std::optional<long> deadline = Int(At(job->node, {"spec", "activeDeadlineSeconds"}));
    if (seconds <= 0 || margin < 0 || deadline != seconds + margin) {
      problems.push_back(job->Id() + ": activeDeadlineSeconds must be --seconds + aftershock.dev/margin-seconds");
    }
  }
  if (!any) problems.push_back("no Indexed Job of loadgen workers");
  return problems;
}

// Every Chaos Mesh selector names namespaces that exist and labels that select pods there (never a
// generator's); and the four faults are there: a scheduled pod-kill of the service's replicas, a
// one-shot pod-kill of the database primary only, scheduled partition bursts and a delay, both
// between the service and the database.
Problems CheckChaos(const Manifests& m) {
  Problems problems;
  const std::vector<Pod> pods = Pods(m);
  const auto namespaces = Namespaces(m);
  bool replica_kill = false;
  bool primary_kill = false;
  bool partition = false;
  bool delay = false;
  for (const Doc& d : m.docs) {
    if (d.ApiVersion().rfind("chaos-mesh.org/", 0) != 0) continue;
    const bool scheduled = d.Kind() == "Schedule";
    const std::string type = scheduled ? Text(At(d.node, {"spec", "type"})) : d.Kind();
    std::string key = type;  // a Schedule's stanza: podChaos, networkChaos
    if (!key.empty()) key[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(key[0])));
    const YAML::Node spec = scheduled ? At(d.node, {"spec", key.c_str()}) : At(d.node, {"spec"});
    if (!spec || (scheduled && Text(At(d.node, {"spec", "schedule"})).empty())) {
      problems.push_back(d.Id() + ": a Schedule needs schedule and a " + key + " stanza");
      continue;
    }
    // The pods a selector picks, or a problem.
    const auto select = [&](const YAML::Node& selector, const std::string& what) {
      std::vector<const Pod*> out;
      const std::vector<std::string> in = Strings(selector["namespaces"]);
      const Labels labels = LabelMap(selector["labelSelectors"]);
      bool namespaces_exist = true;
      if (in.empty()) problems.push_back(d.Id() + ": " + what + " names no namespace");
      if (labels.empty()) problems.push_back(d.Id() + ": " + what + " has no labelSelectors");
      for (const std::string& ns : in) {
        if (!namespaces.count(ns)) {
          problems.push_back(d.Id() + ": " + what + " names namespace '" + ns + "', which is not defined");
          namespaces_exist = false;
          continue;
        }
        for (const Pod* p : Selected(pods, ns, [&](const Labels& l) { return MatchesMap(labels, l); })) out.push_back(p);
      }
      if (!in.empty() && namespaces_exist && !labels.empty() && out.empty()) {
        problems.push_back(d.Id() + ": " + what + " labels " + Describe(labels) + " select no pod in its namespaces");
      }
      for (const Pod* p : out) {
        if (p->kind == "Job") {
          problems.push_back(d.Id() + ": " + what + " selects the load generator (" + p->owner + ")");
        }
      }
      return out;
    };
    if (Text(spec["mode"]).empty()) problems.push_back(d.Id() + ": no mode");
    const std::vector<const Pod*> selected = select(spec["selector"], "selector");
    std::vector<const Pod*> targets;
    if (spec["target"]) targets = select(spec["target"]["selector"], "target selector");
    // Non-empty, and every pod of that kind (and database role).
    const auto all_of_kind = [](const std::vector<const Pod*>& ps, const std::string& kind, const std::string& role = "") {
      return !ps.empty() && std::all_of(ps.begin(), ps.end(), [&](const Pod* p) {
        return p->kind == kind && (role.empty() || p->db_role == role);
      });
    };
    const std::string action = Text(spec["action"]);
    if (type == "PodChaos" && action == "pod-kill") {
      if (scheduled && all_of_kind(selected, "Deployment")) replica_kill = true;
      if (!scheduled && all_of_kind(selected, "Cluster", "primary")) primary_kill = true;
    }
    if (type == "NetworkChaos" && all_of_kind(selected, "Deployment") && all_of_kind(targets, "Cluster")) {
      if (action == "partition" && scheduled && !Text(spec["duration"]).empty()) partition = true;
      if (action == "delay" && !Text(At(spec, {"delay", "latency"})).empty()) delay = true;
    }
  }
  if (!replica_kill) problems.push_back("no Schedule of PodChaos pod-kill selecting only the service's replicas");
  if (!primary_kill) problems.push_back("no one-shot PodChaos pod-kill selecting only the database primary");
  if (!partition) problems.push_back("no Schedule of NetworkChaos partition bursts (with a duration) between service and database");
  if (!delay) problems.push_back("no NetworkChaos delay between service and database");
  return problems;
}

// The generator's rights: no wildcard, no Secret, and the workers' account bound to nothing and
// without a token; a NetworkPolicy covers every generator pod for both directions.
Problems CheckGeneratorIsolation(const Manifests& m) {
  Problems problems;
  for (const Doc& d : m.docs) {
    if (d.Kind() != "Role" && d.Kind() != "ClusterRole") continue;
    for (const auto& rule : At(d.node, {"rules"})) {
      for (const char* field : {"apiGroups", "resources", "verbs"}) {
        for (const std::string& v : Strings(rule[field])) {
          if (v == "*") problems.push_back(d.Id() + ": a wildcard in " + field);
          if (std::string(field) == "resources" && v.rfind("secrets", 0) == 0) problems.push_back(d.Id() + ": grants secrets");
        }
      }
    }
  }
  for (const Doc* job : OfKind(m, "Job")) {
    const YAML::Node spec = At(job->node, {"spec", "template", "spec"});
    const Labels labels = LabelMap(At(job->node, {"spec", "template", "metadata", "labels"}));
    bool covered = false;
    for (const Doc* np : OfKind(m, "NetworkPolicy")) {
      const std::vector<std::string> types = Strings(At(np->node, {"spec", "policyTypes"}));
      covered = covered || (np->Namespace() == job->Namespace() &&
                            MatchesSelector(At(np->node, {"spec", "podSelector"}), labels) &&
                            std::count(types.begin(), types.end(), "Ingress") && std::count(types.begin(), types.end(), "Egress"));
    }
    if (!covered) problems.push_back(job->Id() + ": no NetworkPolicy (Ingress and Egress) covers its pods");
    if (Flag(Args(*job), "--worker")) {
      const std::string sa = Text(spec["serviceAccountName"]);
      if (sa.empty() || Text(spec["automountServiceAccountToken"]) != "false") {
        problems.push_back(job->Id() + ": a load-only worker needs its own ServiceAccount and no token");
      }
      for (const Doc& b : m.docs) {
        if (b.Kind() != "RoleBinding" && b.Kind() != "ClusterRoleBinding") continue;
        for (const auto& s : At(b.node, {"subjects"})) {
          if (Text(s["name"]) == sa && Text(s["namespace"]) == job->Namespace()) {
            problems.push_back(job->Id() + ": its ServiceAccount " + sa + " is bound by " + b.Id() + " (a worker only sends load)");
          }
        }
      }
    }
  }
  return problems;
}

// ---------------------------------------------------------------- tests on the real files

// The real files, loaded once; a file that does not parse fails every test, naming the file and line.
struct Loaded {
  Manifests manifests;
  std::string error;
};
const Loaded& Real() {
  static const Loaded loaded = [] {
    try {
      return Loaded{LoadAll(), ""};
    } catch (const std::exception& e) {
      return Loaded{Manifests{}, e.what()};
    }
  }();
  return loaded;
}

class KubernetesManifestsTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(k8s_manifests::Real().error, ""); }
  static const Manifests& Real() { return k8s_manifests::Real().manifests; }
};

TEST_F(KubernetesManifestsTest, EveryDocumentOfEveryFileLoads) {
  std::set<std::string> files;
  for (const Doc& d : Real().docs) files.insert(d.file);
  EXPECT_THAT(files, ::testing::IsSupersetOf({"kind-config.yaml", "namespaces.yaml", "cnpg-cluster.yaml", "pseudonym.yaml",
                                              "loadgen-job.yaml", "loadgen-workers-job.yaml", "loadgen-rbac.yaml",
                                              "loadgen-networkpolicy.yaml", "chaos/replica-pod-kill.yaml",
                                              "chaos/primary-kill.yaml", "chaos/db-network-partition.yaml",
                                              "chaos/db-network-delay.yaml"}));
  EXPECT_EQ(Real().grpc_service, "aftershock.pseudonym.v1.PseudonymService");
  EXPECT_THAT(CheckWellFormed(Real()), ::testing::IsEmpty());
}

TEST_F(KubernetesManifestsTest, SelectorsMatchTheirPods) { EXPECT_THAT(CheckSelectors(Real()), ::testing::IsEmpty()); }
TEST_F(KubernetesManifestsTest, ServiceIsSpreadBudgetedAndShutsDownGracefully) {
  EXPECT_THAT(CheckAvailability(Real()), ::testing::IsEmpty());
}
TEST_F(KubernetesManifestsTest, DatabaseIsSynchronousAndSpread) { EXPECT_THAT(CheckDatabase(Real()), ::testing::IsEmpty()); }
TEST_F(KubernetesManifestsTest, ConnectionBudgetCoversThePools) {
  EXPECT_THAT(CheckConnectionBudget(Real()), ::testing::IsEmpty());
}
TEST_F(KubernetesManifestsTest, GeneratorIsPinnedAwayFromDrainedNodes) {
  EXPECT_THAT(CheckGeneratorPlacement(Real()), ::testing::IsEmpty());
}
TEST_F(KubernetesManifestsTest, GeneratorDeadlineIsTheLoadWindow) { EXPECT_THAT(CheckLoadWindow(Real()), ::testing::IsEmpty()); }
TEST_F(KubernetesManifestsTest, IndexedJobPassesTheCompletionIndex) {
  EXPECT_THAT(CheckIndexedJob(Real()), ::testing::IsEmpty());
}
TEST_F(KubernetesManifestsTest, ChaosSelectorsNameRealNamespacesAndLabels) {
  EXPECT_THAT(CheckChaos(Real()), ::testing::IsEmpty());
}
TEST_F(KubernetesManifestsTest, GeneratorHasOnlyWhatItNeeds) {
  EXPECT_THAT(CheckGeneratorIsolation(Real()), ::testing::IsEmpty());
}

// ---------------------------------------------------------------- each check red on a broken copy

using Check = std::function<Problems(const Manifests&)>;

struct Mutation {
  const char* name;
  Check check;
  std::function<void(Manifests&)> mutate;
  const char* expected;  // a substring of one of the problems
};

Doc& Mutable(Manifests& m, const std::string& kind, const std::string& name) {
  for (Doc& d : m.docs) {
    if (d.Kind() == kind && d.Name() == name) return d;
  }
  throw std::runtime_error("no " + kind + " " + name + " to mutate");
}

YAML::Node Spec(Manifests& m, const std::string& kind, const std::string& name) { return Mutable(m, kind, name).node["spec"]; }
YAML::Node PodSpec(Manifests& m, const std::string& kind, const std::string& name) {
  return Spec(m, kind, name)["template"]["spec"];
}

// Copies into a new vector: erase/remove_if would move-assign Docs, and assigning a YAML::Node
// writes through to the node it refers to (another document).
void Remove(Manifests& m, const std::string& kind, const std::string& name) {
  std::vector<Doc> kept;
  for (const Doc& d : m.docs) {
    if (d.Kind() != kind || d.Name() != name) kept.push_back(d);
  }
  m.docs.swap(kept);
}

void SetArg(Manifests& m, const std::string& kind, const std::string& name, const std::string& flag, const std::string& value) {
  YAML::Node args = PodSpec(m, kind, name)["containers"][0]["args"];
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].as<std::string>().rfind(flag + "=", 0) == 0) args[i] = flag + "=" + value;
  }
}

constexpr char kService[] = "aftershock-pseudonym";
constexpr char kHeadless[] = "aftershock-pseudonym-headless";
constexpr char kGenerator[] = "aftershock-loadgen";
constexpr char kWorkers[] = "aftershock-loadgen-workers";
constexpr char kDb[] = "aftershock-db";

const Mutation kMutations[] = {
    // Selectors
    {"ServiceSelectorTypo", CheckSelectors,
     [](Manifests& m) { Spec(m, "Service", kHeadless)["selector"]["app.kubernetes.io/name"] = "aftershock-pseudonm"; },
     "Service aftershock/aftershock-pseudonym-headless (pseudonym.yaml): selector "
     "{app.kubernetes.io/name=aftershock-pseudonm} selects no pod"},
    {"PdbSelectorTypo", CheckSelectors,
     [](Manifests& m) {
       Spec(m, "PodDisruptionBudget", kService)["selector"]["matchLabels"]["app.kubernetes.io/name"] = "pseudonym";
     },
     "PodDisruptionBudget aftershock/aftershock-pseudonym (pseudonym.yaml): selector"},
    {"DeploymentTemplateLabelTypo", CheckSelectors,
     [](Manifests& m) {
       Spec(m, "Deployment", kService)["template"]["metadata"]["labels"]["app.kubernetes.io/name"] = "aftershock-psuedonym";
     },
     "Deployment aftershock/aftershock-pseudonym (pseudonym.yaml): selector {app.kubernetes.io/name=aftershock-pseudonym} "
     "does not match its pod template's labels"},
    {"ServiceTargetPortTypo", CheckSelectors,
     [](Manifests& m) { Spec(m, "Service", kHeadless)["ports"][0]["targetPort"] = "grcp"; },
     "targetPort 'grcp' is no port of Deployment aftershock/aftershock-pseudonym"},
    {"JobWithItsOwnSelector", CheckSelectors,
     [](Manifests& m) {
       Spec(m, "Job", kGenerator)["selector"]["matchLabels"]["app.kubernetes.io/name"] = "aftershock-loadgen";
     },
     "Job aftershock-loadgen/aftershock-loadgen (loadgen-job.yaml): sets its own selector"},
    {"NetworkPolicyPodSelectorTypo", CheckSelectors,
     [](Manifests& m) {
       Spec(m, "NetworkPolicy", kGenerator)["podSelector"]["matchLabels"]["app.kubernetes.io/name"] = "aftershock-loadgn";
     },
     "NetworkPolicy aftershock-loadgen/aftershock-loadgen (loadgen-networkpolicy.yaml): podSelector"},
    {"NetworkPolicyEgressPeerTypo", CheckSelectors,
     [](Manifests& m) {
       Spec(m, "NetworkPolicy", kGenerator)["egress"][1]["to"][0]["namespaceSelector"]["matchLabels"]
           ["kubernetes.io/metadata.name"] = "aftershok";
     },
     "NetworkPolicy aftershock-loadgen/aftershock-loadgen (loadgen-networkpolicy.yaml): egress rule 2 peer 1 selects no pod"},
    {"SpreadSelectorTypo", CheckSelectors,
     [](Manifests& m) {
       PodSpec(m, "Deployment", kService)["topologySpreadConstraints"][0]["labelSelector"]["matchLabels"]
           ["app.kubernetes.io/name"] = "pseudonym";
     },
     "Deployment aftershock/aftershock-pseudonym (pseudonym.yaml): topology spread labelSelector"},
    {"BindingToAMissingServiceAccount", CheckSelectors,
     [](Manifests& m) { Mutable(m, "RoleBinding", "aftershock-chaos-driver").node["subjects"][0]["name"] = "loadgen"; },
     "RoleBinding aftershock/aftershock-chaos-driver (loadgen-rbac.yaml): subject ServiceAccount aftershock-loadgen/loadgen "
     "is not defined"},
    {"JobServiceAccountTypo", CheckSelectors,
     [](Manifests& m) { PodSpec(m, "Job", kGenerator)["serviceAccountName"] = "aftershock-loadgne"; },
     "serviceAccountName aftershock-loadgne is not defined"},
    {"UndefinedNamespace", CheckWellFormed,
     [](Manifests& m) { Mutable(m, "Service", kHeadless).node["metadata"]["namespace"] = "aftershok"; },
     "namespace 'aftershok' is not defined"},
    // Availability
    {"NoPdb", CheckAvailability, [](Manifests& m) { Remove(m, "PodDisruptionBudget", kService); },
     "Deployment aftershock/aftershock-pseudonym (pseudonym.yaml): no PodDisruptionBudget selects its pods"},
    {"PdbOfZero", CheckAvailability, [](Manifests& m) { Spec(m, "PodDisruptionBudget", kService)["maxUnavailable"] = 0; },
     "PodDisruptionBudget aftershock/aftershock-pseudonym (pseudonym.yaml): maxUnavailable must be 1"},
    {"SpreadScheduleAnyway", CheckAvailability,
     [](Manifests& m) {
       PodSpec(m, "Deployment", kService)["topologySpreadConstraints"][0]["whenUnsatisfiable"] = "ScheduleAnyway";
     },
     "no topology spread constraint over topology.kubernetes.io/zone"},
    {"SpreadOverHostnames", CheckAvailability,
     [](Manifests& m) {
       PodSpec(m, "Deployment", kService)["topologySpreadConstraints"][0]["topologyKey"] = "kubernetes.io/hostname";
     },
     "no topology spread constraint over topology.kubernetes.io/zone"},
    {"NoPreStop", CheckAvailability,
     [](Manifests& m) { PodSpec(m, "Deployment", kService)["containers"][0].remove("lifecycle"); }, "no preStop sleep"},
    {"TerminationGraceTooShort", CheckAvailability,
     [](Manifests& m) { PodSpec(m, "Deployment", kService)["terminationGracePeriodSeconds"] = 12; },
     "terminationGracePeriodSeconds 12 must exceed preStop (5 s) + --grace-seconds (10 s)"},
    {"NoMinReadySeconds", CheckAvailability, [](Manifests& m) { Spec(m, "Deployment", kService).remove("minReadySeconds"); },
     "no minReadySeconds"},
    {"ReadinessOnTheWrongPort", CheckAvailability,
     [](Manifests& m) { PodSpec(m, "Deployment", kService)["containers"][0]["readinessProbe"]["grpc"]["port"] = 8080; },
     "readiness must be the gRPC health of aftershock.pseudonym.v1.PseudonymService on the --listen port 8081"},
    {"ReadinessServiceTypo", CheckAvailability,
     [](Manifests& m) {
       PodSpec(m, "Deployment", kService)["containers"][0]["readinessProbe"]["grpc"]["service"] = "aftershock.pseudonym.v1.Pseudonym";
     },
     "service 'aftershock.pseudonym.v1.Pseudonym'"},
    {"ServiceNotHeadless", CheckAvailability, [](Manifests& m) { Spec(m, "Service", kHeadless).remove("clusterIP"); },
     "no headless Service"},
    {"WorkerWithoutZone", CheckAvailability,
     [](Manifests& m) {
       for (Doc& d : m.docs) {
         if (d.IsKindConfig()) d.node["nodes"][2]["labels"].remove("topology.kubernetes.io/zone");
       }
     },
     "kind config: node 'node-b' (worker) has no zone label"},
    // Database
    {"SynchronousNumberTwo", CheckDatabase,
     [](Manifests& m) { Spec(m, "Cluster", kDb)["postgresql"]["synchronous"]["number"] = 2; },
     "Cluster aftershock/aftershock-db (cnpg-cluster.yaml): postgresql.synchronous must be exactly"},
    {"SynchronousMethodFirst", CheckDatabase,
     [](Manifests& m) { Spec(m, "Cluster", kDb)["postgresql"]["synchronous"]["method"] = "first"; }, "method=first"},
    {"DurabilityPreferred", CheckDatabase,
     [](Manifests& m) { Spec(m, "Cluster", kDb)["postgresql"]["synchronous"]["dataDurability"] = "preferred"; },
     "dataDurability=preferred"},
    {"NoDurability", CheckDatabase,
     [](Manifests& m) { Spec(m, "Cluster", kDb)["postgresql"]["synchronous"].remove("dataDurability"); },
     "is {method=any,number=1}"},
    {"SynchronousExtraKey", CheckDatabase,
     [](Manifests& m) { Spec(m, "Cluster", kDb)["postgresql"]["synchronous"]["maxStandbyNamesFromCluster"] = 1; },
     "maxStandbyNamesFromCluster=1"},
    {"NoSynchronousStanza", CheckDatabase, [](Manifests& m) { Spec(m, "Cluster", kDb)["postgresql"].remove("synchronous"); },
     "is {}"},
    {"AntiAffinityPreferred", CheckDatabase,
     [](Manifests& m) { Spec(m, "Cluster", kDb)["affinity"]["podAntiAffinityType"] = "preferred"; },
     "podAntiAffinityType required"},
    {"TwoInstances", CheckDatabase, [](Manifests& m) { Spec(m, "Cluster", kDb)["instances"] = 2; }, "instances must be 3"},
    // Connection budget
    {"MaxConnectionsTooLow", CheckConnectionBudget,
     [](Manifests& m) { Spec(m, "Cluster", kDb)["postgresql"]["parameters"]["max_connections"] = "100"; },
     "Cluster aftershock/aftershock-db (cnpg-cluster.yaml): max_connections 100 does not cover 3 reserved + 10 CloudNativePG "
     "+ (3 replicas + 1 surge) x 25 pool = 113"},
    {"PoolTooLarge", CheckConnectionBudget,
     [](Manifests& m) { SetArg(m, "Deployment", kService, "--postgres-pool", "50"); },
     "max_connections 200 does not cover 3 reserved + 10 CloudNativePG + (3 replicas + 1 surge) x 50 pool = 213"},
    {"MoreReplicas", CheckConnectionBudget, [](Manifests& m) { Spec(m, "Deployment", kService)["replicas"] = 7; },
     "(7 replicas + 1 surge) x 25 pool = 213"},
    {"ConnectsToAStandby", CheckConnectionBudget,
     [](Manifests& m) {
       SetArg(m, "Deployment", kService, "--postgres-conninfo",
              "host=aftershock-db-ro port=5432 dbname=aftershock user=aftershock target_session_attrs=read-write");
     },
     "connects to host 'aftershock-db-ro', not the primary's Service aftershock-db-rw"},
    {"UserIsNotTheOwner", CheckConnectionBudget,
     [](Manifests& m) { Spec(m, "Cluster", kDb)["bootstrap"]["initdb"]["owner"] = "app"; },
     "user/dbname must be the initdb owner/database (app/aftershock)"},
    // Generator placement
    {"GeneratorOnAWorker", CheckGeneratorPlacement,
     [](Manifests& m) {
       YAML::Node selector = PodSpec(m, "Job", kGenerator)["nodeSelector"];
       selector.remove("aftershock.dev/loadgen");
       selector["topology.kubernetes.io/zone"] = "zone-a";
     },
     "Job aftershock-loadgen/aftershock-loadgen (loadgen-job.yaml): nodeSelector {topology.kubernetes.io/zone=zone-a} picks "
     "node 'node-a' (worker), not only the control plane"},
    {"GeneratorWithoutNodeSelector", CheckGeneratorPlacement,
     [](Manifests& m) { PodSpec(m, "Job", kGenerator).remove("nodeSelector"); }, "no nodeSelector"},
    {"LoadgenLabelOnAWorkerToo", CheckGeneratorPlacement,
     [](Manifests& m) {
       for (Doc& d : m.docs) {
         if (d.IsKindConfig()) d.node["nodes"][1]["labels"]["aftershock.dev/loadgen"] = "true";
       }
     },
     "picks node 'node-a' (worker), not only the control plane"},
    {"GeneratorWithoutToleration", CheckGeneratorPlacement,
     [](Manifests& m) { PodSpec(m, "Job", kWorkers).remove("tolerations"); },
     "Job aftershock-loadgen/aftershock-loadgen-workers (loadgen-workers-job.yaml): does not tolerate "
     "node-role.kubernetes.io/control-plane:NoSchedule"},
    {"GeneratorRetried", CheckGeneratorPlacement, [](Manifests& m) { Spec(m, "Job", kGenerator)["backoffLimit"] = 1; },
     "backoffLimit must be 0"},
    {"DrainTargetsTheGeneratorNode", CheckGeneratorPlacement,
     [](Manifests& m) {
       for (YAML::Node s : m.sets.at("weekly")["scenarios"]) {
         if (s["name"].as<std::string>() == "drain") s["params"]["node"] = "control-plane";
       }
     },
     "set weekly scenario drain: drains node 'control-plane', where the load generator runs"},
    {"DrainTargetsAnUnknownNode", CheckGeneratorPlacement,
     [](Manifests& m) {
       for (YAML::Node s : m.sets.at("weekly")["scenarios"]) {
         if (s["name"].as<std::string>() == "drain") s["params"]["node"] = "node-d";
       }
     },
     "drains node 'node-d', which no kind node is labelled aftershock.dev/node with"},
    // Load window
    {"DeadlineNotTheWindow", CheckLoadWindow, [](Manifests& m) { Spec(m, "Job", kGenerator)["activeDeadlineSeconds"] = 600; },
     "activeDeadlineSeconds 600 is not the load window 330 s (load + settle of set pr) + margin 300 s"},
    {"SetLongerThanTheDeadline", CheckLoadWindow,
     [](Manifests& m) {
       for (YAML::Node s : m.sets.at("pr")["scenarios"]) {
         if (s["name"].as<std::string>() == "primary-kill") s["load_seconds"] = 240;
       }
     },
     "is not the load window 420 s"},
    {"FilterNamesNoScenario", CheckLoadWindow,
     [](Manifests& m) {
       SetArg(m, "Job", kGenerator, "--gtest_filter", "HaSuite.DISABLED_Baseline:HaSuite.DISABLED_PrimaryKil");
     },
     "--gtest_filter names HaSuite.DISABLED_PrimaryKil, which is no scenario of set pr"},
    {"DriverSwitchLocal", CheckLoadWindow,
     [](Manifests& m) { SetArg(m, "Job", kGenerator, "--aftershock_cluster_driver", "local"); },
     "Job aftershock-loadgen/aftershock-loadgen (loadgen-job.yaml): no --aftershock_cluster_driver=kubernetes"},
    {"ManifestOfAnotherSet", CheckLoadWindow,
     [](Manifests& m) { SetArg(m, "Job", kGenerator, "--aftershock_manifest", "/opt/aftershock/manifests/sets/weekly.yaml"); },
     "is not the set's pr.yaml"},
    // Indexed Job
    {"WorkerIndexFixed", CheckIndexedJob, [](Manifests& m) { SetArg(m, "Job", kWorkers, "--worker", "0"); },
     "Job aftershock-loadgen/aftershock-loadgen-workers (loadgen-workers-job.yaml): --worker must be $(JOB_COMPLETION_INDEX), "
     "is '0'"},
    {"WorkerWithoutEmit", CheckIndexedJob, [](Manifests& m) { SetArg(m, "Job", kWorkers, "--emit", "none"); },
     "no --emit=stdout (the worker's files die with its pod"},
    {"WorkerSendsHttp", CheckIndexedJob, [](Manifests& m) { SetArg(m, "Job", kWorkers, "--kind", "http"); },
     "--kind=pseudonym --target=dns:///aftershock-pseudonym-headless.aftershock.svc.cluster.local:8081 expected, is "
     "--kind=http"},
    {"WorkerStaysOnLoopback", CheckIndexedJob,
     [](Manifests& m) { SetArg(m, "Job", kWorkers, "--allow_non_loopback", "false"); },
     "a Service target needs --allow_non_loopback=true"},
    {"NotIndexed", CheckIndexedJob, [](Manifests& m) { Spec(m, "Job", kWorkers).remove("completionMode"); },
     "completionMode must be Indexed"},
    {"WorkersNotCompletions", CheckIndexedJob, [](Manifests& m) { SetArg(m, "Job", kWorkers, "--workers", "3"); },
     "completions, parallelism and --workers must be equal"},
    {"ParallelismBelowCompletions", CheckIndexedJob, [](Manifests& m) { Spec(m, "Job", kWorkers)["parallelism"] = 2; },
     "completions, parallelism and --workers must be equal"},
    {"NoCompletionIndexEnv", CheckIndexedJob,
     [](Manifests& m) {
       YAML::Node env = PodSpec(m, "Job", kWorkers)["containers"][0]["env"];
       YAML::Node kept(YAML::NodeType::Sequence);
       for (const auto& e : env) {
         if (e["name"].as<std::string>() != "JOB_COMPLETION_INDEX") kept.push_back(e);
       }
       PodSpec(m, "Job", kWorkers)["containers"][0]["env"] = kept;
     },
     "uses $(JOB_COMPLETION_INDEX), which is not defined"},
    {"StartVariableTypo", CheckIndexedJob,
     [](Manifests& m) { SetArg(m, "Job", kWorkers, "--start_unix_ms", "$(START_UNIX_MSEC)"); },
     "uses $(START_UNIX_MSEC), which is not defined"},
    {"WorkerDeadlineNotTheWindow", CheckIndexedJob, [](Manifests& m) { SetArg(m, "Job", kWorkers, "--seconds", "600"); },
     "activeDeadlineSeconds must be --seconds + aftershock.dev/margin-seconds"},
    // Chaos
    {"ChaosNamespaceTypo", CheckChaos,
     [](Manifests& m) { Spec(m, "PodChaos", "primary-kill")["selector"]["namespaces"][0] = "aftershok"; },
     "PodChaos aftershock/primary-kill (chaos/primary-kill.yaml): selector names namespace 'aftershok', which is not defined"},
    {"ChaosPrimaryLabelTypo", CheckChaos,
     [](Manifests& m) { Spec(m, "PodChaos", "primary-kill")["selector"]["labelSelectors"]["cnpg.io/instanceRole"] = "primay"; },
     "PodChaos aftershock/primary-kill (chaos/primary-kill.yaml): selector labels {cnpg.io/cluster=aftershock-db,"
     "cnpg.io/instanceRole=primay} select no pod"},
    {"PrimaryKillWithoutTheRoleLabel", CheckChaos,
     [](Manifests& m) { Spec(m, "PodChaos", "primary-kill")["selector"]["labelSelectors"].remove("cnpg.io/instanceRole"); },
     "no one-shot PodChaos pod-kill selecting only the database primary"},
    {"ChaosWithoutNamespaces", CheckChaos,
     [](Manifests& m) { Spec(m, "Schedule", "replica-pod-kill")["podChaos"]["selector"].remove("namespaces"); },
     "Schedule aftershock/replica-pod-kill (chaos/replica-pod-kill.yaml): selector names no namespace"},
    {"ChaosTargetLabelTypo", CheckChaos,
     [](Manifests& m) {
       Spec(m, "Schedule", "db-network-partition")["networkChaos"]["target"]["selector"]["labelSelectors"]["cnpg.io/cluster"] =
           "aftershock-pg";
     },
     "Schedule aftershock/db-network-partition (chaos/db-network-partition.yaml): target selector labels"},
    {"ChaosSelectsTheGenerator", CheckChaos,
     [](Manifests& m) {
       YAML::Node selector = Spec(m, "Schedule", "replica-pod-kill")["podChaos"]["selector"];
       selector["namespaces"][0] = "aftershock-loadgen";
       selector["labelSelectors"]["app.kubernetes.io/name"] = "aftershock-loadgen";
     },
     "selector selects the load generator (Job aftershock-loadgen/aftershock-loadgen"},
    {"NoDelay", CheckChaos, [](Manifests& m) { Remove(m, "NetworkChaos", "db-network-delay"); },
     "no NetworkChaos delay between service and database"},
    // Generator isolation
    {"WildcardVerb", CheckGeneratorIsolation,
     [](Manifests& m) { Mutable(m, "ClusterRole", "aftershock-drain").node["rules"][0]["verbs"].push_back("*"); },
     "ClusterRole aftershock-drain (loadgen-rbac.yaml): a wildcard in verbs"},
    {"GrantsSecrets", CheckGeneratorIsolation,
     [](Manifests& m) { Mutable(m, "Role", "aftershock-chaos-driver").node["rules"][0]["resources"].push_back("secrets"); },
     "Role aftershock/aftershock-chaos-driver (loadgen-rbac.yaml): grants secrets"},
    {"WorkerWithAToken", CheckGeneratorIsolation,
     [](Manifests& m) { PodSpec(m, "Job", kWorkers).remove("automountServiceAccountToken"); },
     "a load-only worker needs its own ServiceAccount and no token"},
    {"WorkerBound", CheckGeneratorIsolation,
     [](Manifests& m) {
       Mutable(m, "RoleBinding", "aftershock-chaos-driver").node["subjects"][0]["name"] = "aftershock-loadgen-worker";
     },
     "its ServiceAccount aftershock-loadgen-worker is bound by RoleBinding aftershock/aftershock-chaos-driver"},
    {"NoNetworkPolicy", CheckGeneratorIsolation, [](Manifests& m) { Remove(m, "NetworkPolicy", kGenerator); },
     "Job aftershock-loadgen/aftershock-loadgen (loadgen-job.yaml): no NetworkPolicy (Ingress and Egress) covers its pods"},
};

void PrintTo(const Mutation& m, std::ostream* os) { *os << m.name; }

class BrokenCopyTest : public ::testing::TestWithParam<Mutation> {};

TEST_P(BrokenCopyTest, CheckNamesTheBrokenObject) {
  ASSERT_EQ(Real().error, "");
  const Manifests& real = Real().manifests;
  const Mutation& mutation = GetParam();
  ASSERT_THAT(mutation.check(real), ::testing::IsEmpty()) << "the check must pass on the real files first";
  Manifests copy = Clone(real);
  mutation.mutate(copy);
  const Problems problems = mutation.check(copy);
  EXPECT_THAT(problems, ::testing::Contains(::testing::HasSubstr(mutation.expected)));
  // The real files are untouched by the mutation (the copy is deep).
  EXPECT_THAT(mutation.check(real), ::testing::IsEmpty());
  for (const std::string& p : problems) std::cout << "  red as expected: " << p << "\n";
}

INSTANTIATE_TEST_SUITE_P(Mutations, BrokenCopyTest, ::testing::ValuesIn(kMutations),
                         [](const ::testing::TestParamInfo<Mutation>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace aftershock::k8s_manifests
