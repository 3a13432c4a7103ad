#!/usr/bin/env bash
# Installs what aftershock needs to build and run, from Debian packages. Idempotent and quick when
# everything is present: it only calls apt-get for packages that are missing.
#
#   tools/setup.sh            # build + test dependencies
#   tools/setup.sh --report   # and chromium, for the HTML report's browser check (ctest -L report)
#   tools/setup.sh --fuzz     # and clang with libFuzzer, for tools/fuzz.sh (docs/fuzzing.md)
#   tools/setup.sh --workflows  # and npm's @action-validator/cli: every workflow against GitHub's
#                               # schema (ctest tools.workflow-schema; docs/ci.md)
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libgtest-dev libgmock-dev libbenchmark-dev
  libgrpc++-dev libgrpc-dev protobuf-compiler protobuf-compiler-grpc libprotobuf-dev
  libboost-dev libyaml-cpp-dev nlohmann-json3-dev libpq-dev libsqlite3-dev
  # the embedded cluster and the alert chain: real parts, as users run them
  postgresql-15 postgresql-client-15 patroni etcd-server etcd-client
  prometheus prometheus-alertmanager
  # host signals for stop conditions (framework/safety/host_signals.h)
  prometheus-node-exporter
  # peers for benchmarks
  nghttp2-client wrk
  procps iproute2
  # tools/check-workflows (a ctest test of the CI workflows)
  python3 python3-yaml
  # tools/k8s-run is checked by shellcheck (a ctest test)
  shellcheck
)
# Opt-in, large and needed by one tool each: chromium only for the browser check of the HTML report
# (docs/report.md); clang and its libFuzzer runtime only for tools/fuzz.sh (the replay tests of the
# committed fuzz corpus build with gcc).
want_validator=0
for arg in "$@"; do
  case $arg in
    --report) packages+=(chromium) ;;
    --fuzz) packages+=(clang libclang-rt-14-dev) ;;
    --workflows)
      # Debian's npm, unless an npm is already there (a NodeSource nodejs ships its own and
      # conflicts with Debian's).
      command -v npm >/dev/null || packages+=(npm)
      want_validator=1 ;;
    *)
      echo "setup: unknown argument '$arg' (want nothing, --report, --fuzz and/or --workflows)" >&2
      exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

# The schema validator is npm's, not Debian's (npm registry); installed once, found on PATH after.
install_validator() {
  ((want_validator == 1)) || return 0
  if command -v action-validator >/dev/null; then
    echo "setup: action-validator present"
    return 0
  fi
  echo "setup: installing @action-validator/cli (npm)"
  $sudo npm install -g --no-audit --no-fund @action-validator/cli
}

if [[ $(id -u) -ne 0 ]]; then
  sudo=sudo
else
  sudo=
fi
if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages present"
  install_validator
  exit 0
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Debian's packages may try to start services (etcd, prometheus); they are started by aftershock's own
# code instead, so keep the package scripts from starting anything.
policy=/usr/sbin/policy-rc.d
created_policy=0
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\nexit 101\n' | $sudo tee $policy >/dev/null
  $sudo chmod +x $policy
  created_policy=1
fi
trap '[[ $created_policy == 1 ]] && $sudo rm -f $policy' EXIT
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
install_validator
echo "setup: done"
