#!/usr/bin/env bash
# tools/k8s-run against stand-in kind, kubectl, helm, docker and aftershock-collect first on PATH,
# each recording its calls: the exact commands of `up`, the refusals of the pre-flight, a primary
# label on more or fewer than one pod, `collect` red without a timeline, and `all` collecting and
# deleting the cluster when a step fails.
#
#   bash tools/k8s_run_test.sh        # exit 0 when every case holds, else 1 naming the case
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
run=$repo/tools/k8s-run
scratch=$(mktemp -d "${TMPDIR:-/tmp}/k8s-run-test.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# A fresh set of stand-ins. Behaviour switches are files in $scratch/control.
setup() {
  rm -rf "${scratch:?}/bin" "${scratch:?}/control" "${scratch:?}/inotify" "${scratch:?}/artifacts" "${scratch:?}/build" \
    "${scratch:?}/calls.log"
  mkdir -p "$scratch/bin" "$scratch/control" "$scratch/inotify" "$scratch/build/tools/report"
  echo 512 >"$scratch/inotify/max_user_instances"
  echo 524288 >"$scratch/inotify/max_user_watches"
  local tool
  for tool in kind helm; do
    printf '#!/bin/sh\necho "%s $*" >> "%s/calls.log"\n' "$tool" "$scratch" >"$scratch/bin/$tool"
  done
  cat >"$scratch/bin/docker" <<EOF
#!/bin/sh
echo "docker \$*" >> "$scratch/calls.log"
[ -e "$scratch/control/no-image-\$3" ] && exit 1
# The collector in the generator's image, run with the artifacts folder mounted.
if [ "\$1" = run ]; then mkdir -p "$scratch/artifacts/timelines/pr/baseline" && echo unix_ms,second > "$scratch/artifacts/timelines/pr/baseline/load-timeline.csv"; fi
exit 0
EOF
  printf '#!/bin/sh\necho "sudo $*" >> "%s/calls.log"\n' "$scratch" >"$scratch/bin/sudo"
  cat >"$scratch/bin/kubectl" <<EOF
#!/bin/sh
echo "kubectl \$*" >> "$scratch/calls.log"
case "\$*" in
  *instanceRole=primary*) cat "$scratch/control/primaries" 2>/dev/null || echo pod/aftershock-db-1 ;;
  *"logs job/aftershock-loadgen"*) [ -e "$scratch/control/no-log" ] || { echo "##aftershock BEGIN load-timeline.csv set=pr scenario=baseline"; cat "$scratch/control/log-extra" 2>/dev/null; } ;;
  *"get job aftershock-loadgen-workers"*) cat "$scratch/control/workers-status" 2>/dev/null || echo "4/" ;;
  *"get job aftershock-loadgen"*) cat "$scratch/control/job-status" 2>/dev/null || echo "1/" ;;
  *"get pods -l job-name=aftershock-loadgen-workers -o name"*) printf 'pod/w-0\npod/w-1\npod/w-2\npod/w-3\n' ;;
  *"logs pod/w-"*) echo "log of \$4" ;;
  "apply -f -") cat > "$scratch/applied-workers.yaml" ;;
  *"port-forward service/aftershock-pseudonym-headless"*)
    [ -e "$scratch/control/no-forward" ] && { echo "error: unable to forward" >&2; exit 1; }
    echo \$\$ > "$scratch/forward.pid"
    echo "Forwarding from 127.0.0.1:\${4%%:*} -> 8081"
    exec sleep 60 ;;
esac
exit 0
EOF
  mkdir -p "$scratch/build/tools/loadgen"
  cat >"$scratch/build/tools/loadgen/aftershock-loadgen" <<EOF
#!/bin/sh
echo "aftershock-loadgen \$*" >> "$scratch/calls.log"
echo "merged 4 worker(s)"
[ -e "$scratch/control/merge-red" ] && exit 1
exit 0
EOF
  chmod +x "$scratch/build/tools/loadgen/aftershock-loadgen"
  cat >"$scratch/build/tools/report/aftershock-collect" <<EOF
#!/bin/sh
echo "aftershock-collect \$*" >> "$scratch/calls.log"
out=\${1#--out=}
mkdir -p "\$out/pr/baseline" && echo unix_ms,second > "\$out/pr/baseline/load-timeline.csv"
EOF
  chmod +x "$scratch"/bin/* "$scratch/build/tools/report/aftershock-collect"
}

# run <expected status> <command...>: runs k8s-run with the stand-ins; output in $scratch/out.
k8s_run() {
  local expected=$1
  shift
  local status=0
  PATH="$scratch/bin:$PATH" "$run" "$@" --inotify-dir="$scratch/inotify" --artifacts="$scratch/artifacts" \
    --build="$scratch/build" >"$scratch/out" 2>&1 || status=$?
  if [[ $status != "$expected" ]]; then
    fail "k8s-run $*: exit $status, wanted $expected; output:"
    sed 's/^/  /' "$scratch/out" >&2
  fi
}

expect_output() {
  grep -qF -- "$1" "$scratch/out" || fail "output lacks '$1':$(sed 's/^/  /' "$scratch/out")"
}

expect_calls() {
  local want
  want=$(printf '%s\n' "$@")
  local have
  have=$(sed "s|$repo|<repo>|g" "$scratch/calls.log" 2>/dev/null || true)
  [[ $have == "$want" ]] || fail "calls differ:$(diff <(echo "$want") <(echo "$have") | sed 's/^/  /')"
}

# 1. up: the exact sequence to steady state.
setup
k8s_run 0 up
expect_calls \
  "docker image inspect aftershock-pseudonym:dev" \
  "docker image inspect aftershock-loadgen:dev" \
  "kind create cluster --config <repo>/manifests/kubernetes/kind-config.yaml --name aftershock" \
  "kind load docker-image aftershock-pseudonym:dev aftershock-loadgen:dev --name aftershock" \
  "helm repo add cnpg https://cloudnative-pg.github.io/charts --force-update" \
  "helm upgrade --install cnpg cnpg/cloudnative-pg --namespace cnpg-system --create-namespace --wait --timeout 10m" \
  "helm repo add chaos-mesh https://charts.chaos-mesh.org --force-update" \
  "helm upgrade --install chaos-mesh chaos-mesh/chaos-mesh --namespace chaos-mesh --create-namespace --set chaosDaemon.runtime=containerd --set chaosDaemon.socketPath=/run/containerd/containerd.sock --set dashboard.create=false --wait --timeout 10m" \
  "kubectl apply -f <repo>/manifests/kubernetes/namespaces.yaml -f <repo>/manifests/kubernetes/cnpg-cluster.yaml" \
  "kubectl -n aftershock wait cluster/aftershock-db --for=jsonpath={.status.readyInstances}=3 --timeout=10m" \
  "kubectl -n aftershock get pods -l cnpg.io/cluster=aftershock-db,cnpg.io/instanceRole=primary -o name" \
  "kubectl apply -f <repo>/manifests/kubernetes/pseudonym.yaml" \
  "kubectl -n aftershock rollout status deployment/aftershock-pseudonym --timeout=5m" \
  "kubectl apply -f <repo>/manifests/kubernetes/loadgen-rbac.yaml -f <repo>/manifests/kubernetes/loadgen-networkpolicy.yaml"
expect_output "up: cluster aftershock steady"

# 2. The pre-flight refuses low inotify limits, before creating anything.
setup
echo 128 >"$scratch/inotify/max_user_instances"
k8s_run 1 up
expect_output "inotify limits 128 instances / 524288 watches are below kind's 512 / 524288"
[[ ! -e $scratch/calls.log ]] || fail "pre-flight (inotify) called: $(cat "$scratch/calls.log")"

# 3. ... and an image that is not built.
setup
touch "$scratch/control/no-image-aftershock-loadgen:dev"
k8s_run 1 up
expect_output "image aftershock-loadgen:dev is not built: docker build -f manifests/kubernetes/images/loadgen.Dockerfile"
grep -q '^kind' "$scratch/calls.log" && fail "pre-flight (image) went on to kind"

# 4. Not exactly one primary: stop before the service.
setup
printf 'pod/aftershock-db-1\npod/aftershock-db-2\n' >"$scratch/control/primaries"
k8s_run 1 up
expect_output "wants exactly one pod labelled cnpg.io/instanceRole=primary"
grep -q 'pseudonym.yaml' "$scratch/calls.log" && fail "up went on after two primaries"
setup
: >"$scratch/control/primaries"
k8s_run 1 up
expect_output "found: none"

# 5. collect: every artifact, the timelines through the collector; green with a timeline.
setup
k8s_run 0 collect
expect_output "collect: artifacts in $scratch/artifacts"
[[ -s $scratch/artifacts/resilience.log ]] || fail "collect wrote no resilience.log"
grep -q "aftershock-collect --out=$scratch/artifacts/timelines $scratch/artifacts/resilience.log" "$scratch/calls.log" ||
  fail "collect did not run the collector on the generator's log"
for f in pods.txt events.txt cnpg-cluster.yaml cnpg-instances.log service.log cluster-dump.txt; do
  [[ -e $scratch/artifacts/$f ]] || fail "collect did not write $f"
done

# 5b. ... with no build tree's collector (a CI runner that built only the images): the image's.
setup
rm "$scratch/build/tools/report/aftershock-collect"
k8s_run 0 collect
grep -q "^docker run --rm --user $(id -u):$(id -g) -v $scratch/artifacts:/artifacts aftershock-loadgen:dev /opt/aftershock/bin/aftershock-collect --out=/artifacts/timelines /artifacts/resilience.log$" \
  "$scratch/calls.log" || fail "collect without a build tree did not use the image's collector: $(grep docker "$scratch/calls.log")"

# 6. ... red without one (a generator that ran nothing emits no timeline).
setup
touch "$scratch/control/no-log"
k8s_run 1 collect
expect_output "no load timeline in the generator's log"
grep -q "no load timeline" "$scratch/artifacts/failures.txt" || fail "failures.txt lacks the reason"

# 7. scenarios: an earlier Job deleted, the Job applied, its status polled until it succeeded.
setup
echo "/" >"$scratch/control/job-status"
(sleep 1.5 && echo "1/" >"$scratch/control/job-status") &
k8s_run 0 scenarios --poll-seconds=1
wait
expect_output "scenarios: the generator Job succeeded: every scenario green"
[[ $(sed -n 1,2p "$scratch/calls.log" | sed "s|$repo|<repo>|g") == "kubectl -n aftershock-loadgen delete job aftershock-loadgen --ignore-not-found --wait=true
kubectl apply -f <repo>/manifests/kubernetes/loadgen-job.yaml" ]] || fail "scenarios did not start with delete + apply: $(head -n 2 "$scratch/calls.log")"
polls=$(grep -c "get job aftershock-loadgen -o jsonpath={.status.succeeded}/{.status.failed}" "$scratch/calls.log" || true)
((polls >= 2)) || fail "scenarios polled the Job $polls time(s), wanted it to wait for the status"

# ... a failed Job (a red scenario) is a failed step, at once.
setup
echo "/1" >"$scratch/control/job-status"
k8s_run 1 scenarios --poll-seconds=1 --wait-seconds=5
expect_output "scenarios: the generator Job failed"
# ... and a Job that never finishes, within the wait.
setup
echo "/" >"$scratch/control/job-status"
k8s_run 1 scenarios --poll-seconds=1 --wait-seconds=2
expect_output "neither succeeded nor failed within 2 s"
k8s_run 2 scenarios --poll-seconds=0

# 7b. all: up, scenarios, and the cluster collected and deleted at the end.
setup
k8s_run 0 all --poll-seconds=1
grep -q "apply -f .*loadgen-job.yaml" "$scratch/calls.log" || fail "all did not run the scenarios"
[[ $(tail -n 1 "$scratch/calls.log") == "kind delete cluster --name aftershock" ]] ||
  fail "all did not end by deleting the cluster: $(tail -n 3 "$scratch/calls.log")"
grep -q "logs job/aftershock-loadgen" "$scratch/calls.log" || fail "all did not collect"
[[ ! -e $scratch/artifacts/issue-report.md ]] || fail "a green run wrote an issue report"
# ... and a red scenario: collected, an issue report written, deleted, exit 1.
setup
echo "/1" >"$scratch/control/job-status"
printf '%s\n' "FAIL p3-reverse-lookup: 3 lost of 4000 checked" "[  FAILED  ] HaSuite.DISABLED_PrimaryKill (160000 ms)" \
  >"$scratch/control/log-extra"
k8s_run 1 all --poll-seconds=1 --wait-seconds=5
[[ $(tail -n 1 "$scratch/calls.log") == "kind delete cluster --name aftershock" ]] || fail "a red run left the cluster"
grep -qF "    [  FAILED  ] HaSuite.DISABLED_PrimaryKill (160000 ms)" "$scratch/artifacts/issue-report.md" ||
  fail "the issue report lacks the failed scenario: $(cat "$scratch/artifacts/issue-report.md" 2>&1)"
grep -qF "    FAIL p3-reverse-lookup: 3 lost of 4000 checked" "$scratch/artifacts/issue-report.md" ||
  fail "the issue report lacks the failed gate"

# 8. all: a failing up is collected and deleted too, with up's status.
setup
echo 128 >"$scratch/inotify/max_user_instances"
k8s_run 1 all
[[ $(tail -n 1 "$scratch/calls.log") == "kind delete cluster --name aftershock" ]] || fail "a failed up left the cluster"

# 8b. images and limits: the exact commands.
setup
k8s_run 0 images
expect_calls \
  "docker build -f <repo>/manifests/kubernetes/images/pseudonym.Dockerfile -t aftershock-pseudonym:dev <repo>" \
  "docker build -f <repo>/manifests/kubernetes/images/loadgen.Dockerfile -t aftershock-loadgen:dev <repo>"
setup
k8s_run 0 limits
expect_calls "sudo sysctl -w fs.inotify.max_user_instances=512 fs.inotify.max_user_watches=524288"

# 8c. workers: the Indexed Job with its start substituted, every pod's log saved, merged from the logs.
setup
k8s_run 0 workers --poll-seconds=1
expect_output "workers: 4 workers merged, every gate green"
grep -q '^kubectl -n aftershock-loadgen delete job aftershock-loadgen-workers --ignore-not-found --wait=true$' "$scratch/calls.log" ||
  fail "workers did not delete an earlier Job"
grep -q 'START_UNIX_MS' "$scratch/applied-workers.yaml" || fail "workers applied no Job"
# shellcheck disable=SC2016  # the placeholder itself, not an expansion
grep -qF 'value: "${START_UNIX_MS}"' "$scratch/applied-workers.yaml" && fail "workers left the \${START_UNIX_MS} placeholder in the Job"
grep -Eq 'value: "[0-9]{13}"' "$scratch/applied-workers.yaml" || fail "workers did not substitute a unix ms start"
for k in 0 1 2 3; do
  grep -q "log of pod/w-$k" "$scratch/artifacts/workers/w-$k.log" || fail "workers did not save pod w-$k's log"
done
grep -q "^aftershock-loadgen merge --dir=$scratch/artifacts/workers/files --workers=4 --logs=$scratch/artifacts/workers/w-0.log,$scratch/artifacts/workers/w-1.log,$scratch/artifacts/workers/w-2.log,$scratch/artifacts/workers/w-3.log --csv=$scratch/artifacts/workers/merged-load-timeline.csv --verify=true --target_address=127.0.0.1:18081$" \
  "$scratch/calls.log" || fail "workers did not merge the four logs: $(grep merge "$scratch/calls.log")"
# ... the promises verified through a port-forward to the service, stopped afterwards,
grep -q '^kubectl -n aftershock port-forward service/aftershock-pseudonym-headless 18081:8081$' "$scratch/calls.log" ||
  fail "workers opened no port-forward to the service"
[[ -s $scratch/forward.pid ]] || fail "the port-forward stand-in never ran"
kill -0 "$(cat "$scratch/forward.pid")" 2>/dev/null && fail "workers left the port-forward running"
# ... one that never listens is a failed step naming it, before any merge,
setup
touch "$scratch/control/no-forward"
k8s_run 1 workers --poll-seconds=1 --verify-port=18555
expect_output "workers: the port-forward to the service never listened on 18555"
grep -q "aftershock-loadgen merge" "$scratch/calls.log" && fail "workers merged without a way to verify the promises"
# ... a red merge (a worker missing or cut short) is a failed step,
setup
touch "$scratch/control/merge-red"
k8s_run 1 workers --poll-seconds=1
expect_output "workers: the merged run is red (exit 1)"
# ... and so is a failed Job whose merge is green, with the logs still saved and merged.
setup
echo "3/1" >"$scratch/control/workers-status"
k8s_run 1 workers --poll-seconds=1 --wait-seconds=5
expect_output "the Job did not succeed (a worker failed), though the merge is green"
[[ -s $scratch/artifacts/workers/w-3.log ]] || fail "a failed Job's logs were not saved"

# 9. Usage.
setup
k8s_run 2 upp
k8s_run 2 up down

if ((failures > 0)); then
  echo "k8s_run_test: $failures failure(s)" >&2
  exit 1
fi
echo "k8s_run_test: all cases hold"
