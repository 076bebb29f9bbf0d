#!/usr/bin/env python3
"""Median and spread of the headline figures of iomimic JSON reports.

Groups reports by (filesystem, module options) and prints one row per group:
each figure as `median [min-max]` over the runs of the group.
"""
import json
import statistics
import sys
from collections import defaultdict


def figures(j):
    ops = j["ops"]
    dev = j.get("device") or {}
    layout = (j.get("layout") or {}).get("summary") or {}
    vm = j.get("vmstat") or {}
    msync = ops.get("msync", {}).get("latency_ns", {})
    return {
        "msync_p50_ms": msync.get("p50", 0) / 1e6,
        "msync_p99_ms": msync.get("p99", 0) / 1e6,
        "MiB/s": j["throughput"]["write_bytes_per_s"] / 2**20,
        "extents": layout.get("extents_total", 0),
        "dev_wr_KiB": dev.get("avg_write_kib", 0),
        "dev_B/app_B": (dev.get("device_bytes_per_app_byte") or {}).get("write") or 0,
        "faults": vm.get("pgfault", 0),
        "maj_faults": vm.get("pgmajfault", 0),
    }


def main(paths):
    groups = defaultdict(list)
    for p in paths:
        with open(p) as f:
            j = json.load(f)
        if j["status"] != "complete":
            print(f"# {p}: {j['status']} {j.get('error')}", file=sys.stderr)
            continue
        cfg = j["config"][j["module"]]
        key = (j["system"]["target"]["fs_type"],
               ",".join(f"{k}={v}" for k, v in sorted(cfg.items())
                        if k in ("prealloc", "cache_after_prepare", "msync", "regions_per_thread")))
        groups[key].append(figures(j))
    cols = None
    for (fs, cfg), runs in sorted(groups.items()):
        cols = cols or list(runs[0].keys())
        if fs and cols and groups and (fs, cfg) == sorted(groups)[0]:
            print("| fs | config | runs | " + " | ".join(cols) + " |")
            print("|" + "---|" * (len(cols) + 3))
        cells = []
        for c in cols:
            vals = [r[c] for r in runs]
            fmt = (lambda v: f"{v:.0f}") if max(vals) >= 100 else (lambda v: f"{v:.2f}")
            cells.append(f"{fmt(statistics.median(vals))} [{fmt(min(vals))}-{fmt(max(vals))}]")
        print(f"| {fs} | {cfg} | {len(runs)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
