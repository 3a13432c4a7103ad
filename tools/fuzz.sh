#!/usr/bin/env bash
# Runs the libFuzzer targets of fuzz/ (docs/fuzzing.md): builds the `fuzz` preset into build-fuzz/
# when needed (clang, ASan + UBSan), then runs each target, one after the other, from a copy of its
# committed seed corpus in a scratch folder (the committed corpus stays small), with a time budget
# and/or a run count. Exits non-zero on the first crash (or broken invariant, or leak, or timeout
# of one input), naming the target and the saved input that crashed.
#
#   tools/fuzz.sh                              # every target, 60 s each
#   tools/fuzz.sh --seconds=600 fault_spec     # one target, 10 minutes
#   tools/fuzz.sh --runs=1000000 ledger_file   # one target, a million inputs (no time budget)
#   tools/fuzz.sh --seconds=0 --runs=1000      # every target, 1000 inputs each
#
# Options: --seconds=N (libFuzzer -max_total_time; 0: none; default 60 unless --runs is given),
# --runs=N (-runs), --out=DIR (scratch folder, default build-fuzz/runs; each target's corpus grows in
# DIR/<target>/corpus, crashes land in DIR/<target>/artifacts), --max-len=N (-max_len). On a shared
# machine prefix it with `chrt -i 0 nice -n 19`: the build and the runs inherit it.
set -euo pipefail
cd "$(dirname "$0")/.."

all_targets=(set_manifest environment ledger_file fault_spec collect)
seconds=""
runs=""
max_len=""
out=build-fuzz/runs
targets=()
for arg in "$@"; do
  case $arg in
    --seconds=*) seconds=${arg#--seconds=} ;;
    --runs=*) runs=${arg#--runs=} ;;
    --max-len=*) max_len=${arg#--max-len=} ;;
    --out=*) out=${arg#--out=} ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option '$arg' (see --help)" >&2; exit 2 ;;
    *)
      if [[ " ${all_targets[*]} " != *" $arg "* ]]; then
        echo "fuzz.sh: unknown target '$arg' (targets: ${all_targets[*]})" >&2
        exit 2
      fi
      targets+=("$arg") ;;
  esac
done
for value in "$seconds" "$runs" "$max_len"; do
  if [[ -n $value && ! $value =~ ^[0-9]+$ ]]; then
    echo "fuzz.sh: '$value' is not a whole number (--seconds, --runs and --max-len take one)" >&2
    exit 2
  fi
done
if [[ -z $seconds && -z $runs ]]; then seconds=60; fi
((${#targets[@]} > 0)) || targets=("${all_targets[@]}")

if ! command -v clang++ >/dev/null || ! compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null; then
  echo "fuzz.sh: needs clang++ and libFuzzer (Debian clang and libclang-rt-14-dev: tools/setup.sh --fuzz)" >&2
  exit 2
fi
if [[ ! -f build-fuzz/CMakeCache.txt ]]; then
  cmake --preset fuzz >/dev/null
fi
build_targets=()
for t in "${targets[@]}"; do build_targets+=("${t}_fuzzer"); done
cmake --build build-fuzz -j 2 --target "${build_targets[@]}"

flags=(-print_final_stats=1)
if [[ -n $seconds && $seconds != 0 ]]; then flags+=("-max_total_time=$seconds"); fi
if [[ -n $runs ]]; then flags+=("-runs=$runs"); fi
if [[ -n $max_len ]]; then flags+=("-max_len=$max_len"); fi
dictionary_of() { [[ -f fuzz/dictionaries/$1.dict ]] && echo "-dict=fuzz/dictionaries/$1.dict"; }

mkdir -p "$out"
status=0
for t in "${targets[@]}"; do
  dir=$out/$t
  rm -rf "$dir"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  cp fuzz/corpus/"$t"/* "$dir/corpus/"
  echo "fuzz.sh: $t: ${flags[*]} $(dictionary_of "$t")"
  start=$(date +%s)
  rc=0
  # shellcheck disable=SC2046  # the dictionary flag is one word or none
  build-fuzz/fuzz/"${t}_fuzzer" "${flags[@]}" $(dictionary_of "$t") -artifact_prefix="$dir/artifacts/" \
    "$dir/corpus" >"$dir/log" 2>&1 || rc=$?
  elapsed=$(($(date +%s) - start))
  # libFuzzer's final lines: "Done N runs in S second(s)" and the stats "stat::number_of_executed_units: N".
  done_line=$(grep -E '^Done [0-9]+ runs' "$dir/log" | tail -1 || true)
  cov_line=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$dir/log" | tail -1 || true)
  edges=$(sed -nE 's/.* cov: ([0-9]+) .*/\1/p' <<<"$cov_line")
  units=$(sed -nE 's/^stat::number_of_executed_units: ([0-9]+)/\1/p' "$dir/log" | tail -1)
  if ((rc != 0)); then
    crash=$(ls -t "$dir/artifacts" 2>/dev/null | head -1)
    echo "fuzz.sh: $t: FAILED (exit $rc) after ${units:-?} inputs in ${elapsed} s; input: $dir/artifacts/${crash:-<none saved>}" >&2
    grep -E 'ERROR|fuzz invariant broken|SUMMARY|==[0-9]+==' "$dir/log" | head -5 >&2 || true
    echo "fuzz.sh: $t: the whole log: $dir/log; replay: build-fuzz/fuzz/${t}_fuzzer $dir/artifacts/${crash:-CRASH}" >&2
    status=1
    break
  fi
  echo "fuzz.sh: $t: ok, ${units:-?} inputs in ${elapsed} s, ${edges:-?} coverage edges, no crash (${done_line:-no final line})"
done
exit $status
