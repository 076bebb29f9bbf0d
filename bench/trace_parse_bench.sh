#!/usr/bin/env bash
# Parse speed and memory of the strace reader (issue 16: a 1 GB log parsed
# in under a minute, memory O(threads + files)). Builds a ~1 GB log by
# repeating a real trace (workloads/replay/traces/, recorded here), then
# times `iomimic trace summarize` over it: median and spread of RUNS runs,
# and the peak RSS (GNU time). The log is removed afterwards.
#   usage: bench/trace_parse_bench.sh [TRACE] [SIZE_MB] [RUNS]
#   (IOMIMIC=path/to/iomimic; default build/release/iomimic)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${IOMIMIC:-$root/build/release/iomimic}
trace=${1:-$root/workloads/replay/traces/log_writers.strace}
size_mb=${2:-1024}
runs=${3:-3}
big=$(mktemp /tmp/trace_parse_bench.XXXXXX.strace)
trap 'rm -f "$big"' EXIT
one=$(stat -c %s "$trace")
copies=$(( (size_mb * 1024 * 1024 + one - 1) / one ))
for ((i = 0; i < copies; i++)); do cat "$trace"; done > "$big"
bytes=$(stat -c %s "$big")
echo "trace_parse_bench: $trace x $copies = $bytes bytes" >&2
times=()
for ((r = 0; r < runs; r++)); do
  sync; echo 3 > /proc/sys/vm/drop_caches  # cold: the log is read from disk
  /usr/bin/time -f "%e %M" -o "$big.time" "$bin" trace summarize "$big" --format json > /dev/null
  read -r wall rss_kib < "$big.time"
  rm -f "$big.time"
  echo "run $r: ${wall} s, peak RSS ${rss_kib} KiB" >&2
  times+=("$wall $rss_kib")
done
printf '%s\n' "${times[@]}" | python3 -c "
import statistics, sys
rows = [tuple(map(float, l.split())) for l in sys.stdin if l.strip()]
walls = sorted(r[0] for r in rows)
mb = $bytes / 1e6
print(f'{mb:.0f} MB log: median {statistics.median(walls):.1f} s (min {walls[0]:.1f}, max {walls[-1]:.1f}, {len(walls)} runs), '
      f'{mb / statistics.median(walls):.0f} MB/s, peak RSS max {max(r[1] for r in rows) / 1024:.1f} MiB')
"
