#!/usr/bin/env bash
# aftershock as a package, end to end (the README's test command runs it after the build):
#  1. `cmake --install build --prefix build/install`;
#  2. examples/consumer configured and built against that prefix only (find_package(aftershock CONFIG)),
#     and its scenario set run through ctest (its own service, manifest dir and scenario);
#  3. the same project with aftershock as a subproject (add_subdirectory): configured and generated
#     (--subproject=configure, the default: seconds; it checks the targets, aliases, usage requirements
#     and aftershock_add_suite in that mode), or also built and its set run (--subproject=build: it
#     compiles every aftershock library a second time, minutes), or skipped (--subproject=none).
# Prints how long each step took.
#
#   tools/check-consumer.sh [--subproject=configure|build|none]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
subproject=configure
for arg in "$@"; do
  case $arg in
    --subproject=configure|--subproject=build|--subproject=none) subproject=${arg#--subproject=} ;;
    *) echo "check-consumer: unknown argument '$arg' (known: --subproject=configure|build|none)" >&2; exit 2 ;;
  esac
done
jobs=$(nproc)
t0=$(date +%s)
step() { local now; now=$(date +%s); echo "check-consumer: $1 took $((now - t0)) s"; t0=$now; }

prefix=$root/build/install
rm -rf "$prefix" "$root/build/consumer"
cmake --install build --prefix "$prefix" >/dev/null
step "cmake --install build --prefix build/install"

cmake -S examples/consumer -B build/consumer -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build build/consumer -j "$jobs"
step "configure + build examples/consumer against the prefix"
# Everything the consumer registered: its unit-labelled checks and its scenario set.
ctest --test-dir build/consumer --output-on-failure --no-tests=error -L 'unit|greeting' \
  --output-junit "$root/build/junit-consumer.xml"
step "ctest examples/consumer (set greeting)"

if [[ $subproject != none ]]; then
  rm -rf "$root/build/consumer-subproject"
  cmake -S examples/consumer -B build/consumer-subproject -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DAFTERSHOCK_SOURCE_DIR="$root" >/dev/null
  step "configure examples/consumer with aftershock as a subproject"
fi
if [[ $subproject == build ]]; then
  cmake --build build/consumer-subproject -j "$jobs"
  step "build examples/consumer with aftershock as a subproject"
  ctest --test-dir build/consumer-subproject --output-on-failure --no-tests=error -L 'unit|greeting'
  step "ctest examples/consumer (subproject)"
fi
