#!/usr/bin/env bash
# What recording costs the traced program (docs/replay.md): the same
# sqlite3 script (300 transactions, each a commit with fdatasync) and the
# same tar extraction (800 files) run RUNS times each with and without
# `strace -f -tt -T -yy -s 0`, alternating; median and spread of wall time.
#   usage: bench/strace_overhead.sh [RUNS] [DIR]   (DIR: where they run)
set -euo pipefail
runs=${1:-5}
dir=$(mktemp -d "${2:-/tmp}/strace_overhead.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"
python3 -c '
print("create table t(id integer primary key, v text);")
for i in range(300):
    print(f"begin; insert into t(v) values(\"row{i}\"); update t set v=\"u{i}\" where id={i//2+1}; commit;")
' > tx.sql
mkdir src
for d in 1 2 3 4 5 6 7 8; do
  mkdir src/d$d
  for f in $(seq 1 100); do head -c $((f * 100)) /dev/urandom > src/d$d/f$f; done
done
tar cf tree.tar src && rm -rf src
sqlite_run() { rm -f app.db; "$@" sqlite3 app.db < tx.sql > /dev/null; }
tar_run() { rm -rf src; "$@" tar xf tree.tar; }
now() { date +%s.%N; }
for prog in sqlite tar; do
  plain=() traced=()
  for ((i = 0; i < runs; i++)); do
    t0=$(now); "${prog}_run" env; t1=$(now)
    "${prog}_run" strace -f -tt -T -yy -s 0 -o trace.strace; t2=$(now)
    plain+=("$(awk "BEGIN { print $t1 - $t0 }")")
    traced+=("$(awk "BEGIN { print $t2 - $t1 }")")
  done
  python3 - "$prog" "${plain[*]}" "${traced[*]}" <<'PY'
import statistics, sys
prog, p, t = sys.argv[1], list(map(float, sys.argv[2].split())), list(map(float, sys.argv[3].split()))
mp, mt = statistics.median(p), statistics.median(t)
print(f"{prog}: without strace median {mp:.3f} s (min {min(p):.3f}, max {max(p):.3f}); "
      f"with strace median {mt:.3f} s (min {min(t):.3f}, max {max(t):.3f}); "
      f"x{mt / mp:.2f} ({len(p)} runs each)")
PY
done
