#!/usr/bin/env bash
# One switch, the same suite source: the HA suite binary run with --aftershock_cluster_driver=kubernetes
# against a stand-in kubectl first on PATH (it records every call and answers from JSON written by
# hand from kubectl's documented output: the service's pods with their UIDs, the CloudNativePG
# Cluster, its instance pods, the nodes). The load goes through gRPC's DNS resolver
# (--aftershock_service_target=dns:///localhost:PORT) to a real in-memory aftershock-pseudonym.
#   1. baseline passes, and the suite asked the cluster what the Kubernetes driver asks (leftover chaos
#      objects, steady state) and nothing of a local cluster;
#   2. replica-kill passes: each kill is a PodChaos on a pod the stand-in then replaces under a new
#      name and UID, as a Deployment does, so the fault confirms through the driver; every PodChaos is
#      deleted at the end;
#   3. a chaos object of an earlier run still in the cluster: the scenario refuses to start, naming it;
#   4. the same kill with a stand-in that never replaces the pod: the scenario is red (unconfirmed).
#
#   kubernetes_switch_test.sh <ha_suite> <aftershock-pseudonym> <kubernetes-switch.yaml>
# Every wait is bounded; everything started is stopped by PID.
set -euo pipefail
suite="$1"; server_bin="$2"; manifest="$3"
work="$(mktemp -d /tmp/aftershock-k8s-switch-XXXXXX)"
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "kubernetes_switch_test: FAIL: $*" >&2; exit 1; }

"$server_bin" --listen=127.0.0.1:0 "--port-file=$work/port" --replica-name=a > "$work/server.log" 2>&1 &
server_pid=$!
for (( i = 0; i < 100; ++i )); do [[ -s "$work/port" ]] && break; sleep 0.1; done
[[ -s "$work/port" ]] || { cat "$work/server.log" >&2; fail "the pseudonym server wrote no port"; }
port="$(cat "$work/port")"

# The stand-in kubectl. Answers by the call's words; `apply -f` of a PodChaos on one of the service's
# pods replaces that pod (new name, new UID) unless $work/standin/no-replace exists.
mkdir -p "$work/standin"
cat > "$work/standin/kubectl" <<'STANDIN'
#!/bin/sh
dir=$(dirname "$0")
printf '%s\n' "$*" >> "$dir/calls.log"
gen() { cat "$dir/generation-$1" 2>/dev/null || echo 1; }
pod() {  # name uid node ip
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","uid":"%s","namespace":"aftershock","labels":{"app.kubernetes.io/name":"aftershock-pseudonym"}},"spec":{"nodeName":"%s"},"status":{"phase":"Running","podIP":"%s","conditions":[{"type":"Ready","status":"True"}]}}' "$1" "$2" "$3" "$4"
}
dbpod() {  # name node role
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","uid":"uid-%s","labels":{"cnpg.io/cluster":"aftershock-db","cnpg.io/instanceRole":"%s"}},"spec":{"nodeName":"%s"},"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}' "$1" "$1" "$3" "$2"
}
case "$*" in
  "-n aftershock get pods -l app.kubernetes.io/name=aftershock-pseudonym -o json")
    a=$(gen a); b=$(gen b); c=$(gen c)
    printf '{"kind":"List","items":[%s,%s,%s]}\n' \
      "$(pod "aftershock-pseudonym-a-g$a" "uid-a-g$a" aftershock-worker 10.244.1.5)" \
      "$(pod "aftershock-pseudonym-b-g$b" "uid-b-g$b" aftershock-worker2 10.244.2.7)" \
      "$(pod "aftershock-pseudonym-c-g$c" "uid-c-g$c" aftershock-worker3 10.244.3.4)" ;;
  "-n aftershock get clusters.postgresql.cnpg.io aftershock-db -o json")
    echo '{"kind":"Cluster","spec":{"postgresql":{"synchronous":{"method":"any","number":1}}},"status":{"instances":3,"readyInstances":3,"currentPrimary":"aftershock-db-1"}}' ;;
  "-n aftershock get pods -l cnpg.io/cluster=aftershock-db -o json")
    printf '{"kind":"List","items":[%s,%s,%s]}\n' "$(dbpod aftershock-db-1 aftershock-worker primary)" \
      "$(dbpod aftershock-db-2 aftershock-worker2 replica)" "$(dbpod aftershock-db-3 aftershock-worker3 replica)" ;;
  "get nodes -o json")
    echo '{"kind":"List","items":[{"metadata":{"name":"aftershock-worker","labels":{"aftershock.dev/node":"node-a"}},"spec":{}},{"metadata":{"name":"aftershock-worker2","labels":{"aftershock.dev/node":"node-b"}},"spec":{}},{"metadata":{"name":"aftershock-worker3","labels":{"aftershock.dev/node":"node-c"}},"spec":{}}]}' ;;
  "-n aftershock get podchaos,networkchaos -l app.kubernetes.io/managed-by=aftershock -o name")
    cat "$dir/leftovers" 2>/dev/null || true ;;
  "apply -f "*)
    # The Deployment replaces the killed pod: a new name and UID for its letter.
    killed=$(sed -n 's/.*aftershock: \[aftershock-pseudonym-\([abc]\)-g[0-9]*\].*/\1/p' "$3")
    if [ -n "$killed" ] && [ ! -f "$dir/no-replace" ]; then echo $(( $(gen "$killed") + 1 )) > "$dir/generation-$killed"; fi ;;
  "-n aftershock delete podchaos "*) ;;
  *) echo "stand-in kubectl: unexpected call: $*" >&2; exit 1 ;;
esac
exit 0
STANDIN
chmod +x "$work/standin/kubectl"

run() {  # run NAME TEST: the suite in Kubernetes mode
  PATH="$work/standin:$PATH" "$suite" --gtest_also_run_disabled_tests "--gtest_filter=HaSuite.$2" \
    --aftershock_set=kubernetes-switch "--aftershock_manifest=$manifest" "--aftershock_artifacts_dir=$work/artifacts-$1" \
    --aftershock_cluster_driver=kubernetes "--aftershock_service_target=dns:///localhost:$port" > "$work/$1.log" 2>&1
}

# 1. baseline
run baseline DISABLED_Baseline || { tail -40 "$work/baseline.log" >&2; fail "baseline in Kubernetes mode failed"; }
grep -q '^-n aftershock get podchaos,networkchaos -l app.kubernetes.io/managed-by=aftershock -o name$' "$work/standin/calls.log" ||
  fail "the suite did not look for chaos objects left behind"
grep -q '^-n aftershock get clusters.postgresql.cnpg.io aftershock-db -o json$' "$work/standin/calls.log" ||
  fail "the suite did not wait for the CloudNativePG cluster's steady state"
[[ -s "$work/artifacts-baseline/kubernetes-switch/baseline/load-timeline.csv" ]] || fail "baseline wrote no load timeline"
echo "kubernetes_switch_test: baseline passed through the Kubernetes driver"

# 2. replica-kill: confirmed kills, every PodChaos deleted at the end
: > "$work/standin/calls.log"
run replica-kill DISABLED_ReplicaKill || { tail -60 "$work/replica-kill.log" >&2; fail "replica-kill in Kubernetes mode failed"; }
applied="$(grep -c '^apply -f ' "$work/standin/calls.log" || true)"
deleted="$(grep -c '^-n aftershock delete podchaos aftershock-replica-kill-' "$work/standin/calls.log" || true)"
(( applied >= 2 )) || fail "expected at least 2 PodChaos applied, saw $applied"
(( deleted == applied )) || fail "$applied PodChaos applied but $deleted deleted"
grep -q 'no longer among the replicas' "$work/artifacts-replica-kill/kubernetes-switch/replica-kill/chaos-timeline.csv" ||
  fail "the kill was not confirmed by the pod's replacement"
echo "kubernetes_switch_test: replica-kill passed: $applied kills confirmed, $deleted PodChaos deleted"

# 3. a leftover chaos object refuses the scenario
echo "podchaos.chaos-mesh.org/aftershock-primary-kill-0a1b2c-1" > "$work/standin/leftovers"
if run leftover DISABLED_Baseline; then fail "a scenario started beside a leftover chaos object"; fi
grep -q "chaos objects of an earlier run are still in the cluster: podchaos/aftershock-primary-kill-0a1b2c-1" "$work/leftover.log" ||
  { tail -20 "$work/leftover.log" >&2; fail "the refusal does not name the leftover object"; }
rm "$work/standin/leftovers"
echo "kubernetes_switch_test: a leftover chaos object was refused"

# 4. a kill that replaces nothing is red
touch "$work/standin/no-replace"
if run unreplaced DISABLED_ReplicaKill; then fail "replica-kill passed though no pod was ever replaced"; fi
grep -q 'unconfirmed\|not confirmed\|NOT CONFIRMED\|still running or still ready' "$work/unreplaced.log" ||
  { tail -30 "$work/unreplaced.log" >&2; fail "the red run does not say the kill was unconfirmed"; }
echo "kubernetes_switch_test: a kill that replaced nothing is red"
echo "kubernetes_switch_test: PASS"
