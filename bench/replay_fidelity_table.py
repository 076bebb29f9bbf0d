#!/usr/bin/env python3
"""The fidelity table of bench/replay_fidelity.sh, from the files it wrote.

Per program and syscall: the trace's count (calls on the application's
files) and the count an strace of the replay shows on the copy's files,
from the worker threads only (the first thread of the replay's strace is
iomimic's main thread, which lays the files out in prepare). Then device
bytes: the original run's vs the replay's measured phase.
"""
import json
import sys

out = sys.argv[1]
print("| program | syscall | traced | replayed (strace) | diff |")
print("| --- | --- | ---: | ---: | ---: |")
device_rows = []
for prog in ["sqlite3", "tar", "rrdtool", "log_writers"]:
    try:
        traced = json.load(open(f"{out}/{prog}.summary.json"))
        replay = json.load(open(f"{out}/{prog}.replay_summary.json"))
        report = json.load(open(f"{out}/{prog}.replay.json"))
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
    orig_r, orig_w = map(int, open(f"{out}/{prog}.original_device").read().split())
    dev = report.get("device", {})
    device_rows.append((prog, orig_r, dev.get("read_bytes", 0), orig_w, dev.get("write_bytes", 0),
                        report["status"]))

def ratio(a, b):
    return "n/a" if a == 0 else f"{100.0 * (b - a) / a:+.1f} %"

print()
print("| program | original read | replay read | diff | original written | replay written | diff | status |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
for prog, orr, rr, ow, rw, status in device_rows:
    print(f"| {prog} | {orr} | {rr} | {ratio(orr, rr)} | {ow} | {rw} | {ratio(ow, rw)} | {status} |")
