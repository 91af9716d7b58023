#!/usr/bin/env bash
# EASY backfilling on one trace, side by side in one run (docs/performance.md "[slarm-sim]"):
#   1. slarm-sim (release example `run_trace`: gunzip + parse + clean + simulate + metrics),
#   2. the plain single-file Python EASY of the oracle (xtask/oracle/easy.py, same rules),
#   3. AccaSim's EASYBackfilling (xtask/oracle/accasim_easy.py) if ACCASIM_PYTHON names a
#      Python with AccaSim installed (e.g. python3 -m venv /tmp/venv-accasim &&
#      /tmp/venv-accasim/bin/pip install accasim; ACCASIM_PYTHON=/tmp/venv-accasim/bin/python).
# Each runs under /usr/bin/time; CPU = user + sys of the process and its children.
# It also checks that slarm's and easy.py's schedules are identical job for job.
#
# Usage: xtask/oracle/easy_side_by_side.sh [TRACE.swf.gz]   (default: HPC2N-2002 from
# $SLARM_TRACES or ../shared/data/traces). PYTHON overrides the interpreter of easy.py.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
traces=${SLARM_TRACES:-$root/../shared/data/traces}
trace=${1:-$traces/HPC2N-2002-2.2-cln.swf.gz}
py=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cargo build --quiet --release -p slarm-sim --example run_trace --manifest-path "$root/Cargo.toml"
bin="${CARGO_TARGET_DIR:-$root/target}/release/examples/run_trace"

echo "trace: $trace"
echo "load before: $(cat /proc/loadavg)"
rows=()
measure() {
  local name=$1
  shift
  /usr/bin/time -f "%U %S %e %M" -o "$work/$name.time" "$@" >"$work/$name.out" 2>"$work/$name.err" || {
    echo "$name failed:"; tail -n 5 "$work/$name.err"; return 1; }
  local u s e m
  read -r u s e m <"$work/$name.time"
  rows+=("$name $u $s $e $m")
}

measure slarm "$bin" "$trace" easy "$work/slarm.csv"
measure python-easy "$py" "$root/xtask/oracle/easy.py" "$trace" "$work/python.csv"
if [[ -n "${ACCASIM_PYTHON:-}" ]]; then
  plain="$work/$(basename "${trace%.gz}")"
  gzip -dc "$trace" >"$plain"
  measure accasim "$ACCASIM_PYTHON" "$root/xtask/oracle/accasim_easy.py" "$plain" "$work/accasim" \
    || echo "accasim: see the message above"
fi
echo "load after:  $(cat /proc/loadavg)"

differ=$(diff <(sort "$work/slarm.csv") <(sort "$work/python.csv") | grep -c '^<' || true)
echo "slarm vs easy.py: $differ jobs with a different (submit, start, end, procs)"
grep -h '^jobs' "$work/slarm.out" || true

printf '\n| %-12s | %10s | %8s | %8s | %12s | %14s |\n' tool "CPU s" "wall s" "RSS MB" "CPU / slarm" "wall / slarm"
printf '|%s|\n' "--------------|------------|----------|----------|--------------|----------------"
base_cpu=""
base_wall=""
for r in "${rows[@]}"; do
  read -r name u s e m <<<"$r"
  cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
  [[ -z "$base_cpu" ]] && base_cpu=$cpu && base_wall=$e
  printf '| %-12s | %10s | %8s | %8.0f | %11.1fx | %13.1fx |\n' "$name" "$cpu" "$e" \
    "$(awk -v m="$m" 'BEGIN { print m / 1024 }')" \
    "$(awk -v a="$cpu" -v b="$base_cpu" 'BEGIN { print (b > 0 ? a / b : 0) }')" \
    "$(awk -v a="$e" -v b="$base_wall" 'BEGIN { print (b > 0 ? a / b : 0) }')"
done
