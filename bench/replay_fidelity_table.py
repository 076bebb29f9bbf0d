#!/usr/bin/env python3
"""The fidelity table of bench/replay_fidelity.sh, from the files it wrote.

Per program and syscall: the trace's count (calls on the application's
files) and the count an strace of the replay shows on the copy's files,
from the worker threads only (the first thread of the replay's strace is
iomimic's main thread, which lays the files out in prepare). Then device
bytes: the original run's vs the replay's measured phase.
"""
import json
import statistics
import sys

out = sys.argv[1]
print("| program | syscall | traced | replayed (strace) | diff |")
print("| --- | --- | ---: | ---: | ---: |")
device_rows = []
for prog in ["sqlite3", "tar", "rrdtool", "log_writers"]:
    try:
        traced = json.load(open(f"{out}/{prog}.summary.json"))
        replay = json.load(open(f"{out}/{prog}.replay_summary.json"))
    except FileNotFoundError:
        continue
    counts = {}
    for th in replay["threads"][1:]:
        for name, o in th["ops"].items():
            counts[name] = counts.get(name, 0) + o["count"]
    names = sorted(set(traced["ops"]) | set(counts))
    for name in names:
        t = traced["ops"].get(name, {}).get("count", 0)
        r = counts.get(name, 0)
        diff = "n/a" if t == 0 else f"{100.0 * (r - t) / t:+.2f} %"
        print(f"| {prog} | {name} | {t} | {r} | {diff} |")
    orig = [tuple(map(int, l.split())) for l in open(f"{out}/{prog}.original_device") if l.strip()]
    reps = []
    k = 0
    while True:
        try:
            reps.append(json.load(open(f"{out}/{prog}.replay{k}.json")))
        except FileNotFoundError:
            break
        k += 1
    device_rows.append((prog, [o[0] for o in orig], [r["device"]["read_bytes"] for r in reps],
                        [o[1] for o in orig], [r["device"]["write_bytes"] for r in reps],
                        ",".join(sorted({r["status"] for r in reps}))))

def med(v):
    return statistics.median(v) if v else 0


def cell(v):
    """Median and range, in KiB."""
    if not v:
        return "-"
    return f"{med(v) / 1024:.0f} ({min(v) / 1024:.0f}-{max(v) / 1024:.0f})"


def ratio(a, b):
    return "n/a" if med(a) == 0 else f"{100.0 * (med(b) - med(a)) / med(a):+.1f} %"


print()
print("Device bytes, KiB: median (min-max) of the runs; diff of the medians.")
print()
print("| program | original read | replay read | diff | original written | replay written | diff | status |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
for prog, orr, rr, ow, rw, status in device_rows:
    print(f"| {prog} | {cell(orr)} | {cell(rr)} | {ratio(orr, rr)} | {cell(ow)} | {cell(rw)} | "
          f"{ratio(ow, rw)} | {status} |")
