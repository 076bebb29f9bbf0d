#!/usr/bin/env python3
"""Tables of bench/disk_stories.sh reports: one row per report (or per sweep
point), each figure as `median [min-max]` over its --repeat runs.

  bench/disk_stories_table.py rrd|log_writers|mmap_msync [out=/var/tmp/iomimic-stories]
"""
import glob
import json
import os
import statistics
import sys

COLUMNS = {
    "rrd": [("s / pass", lambda f: f["duration_s"] / 2),
            ("device KiB / read", lambda f: f["device.avg_read_kib"]),
            ("device bytes / app byte (read)", lambda f: f["device.bytes_per_app_byte.read"]),
            ("update p99 ms", lambda f: f["ops.update.p99_ns"] / 1e6)],
    "log_writers": [("records/s", lambda f: f["records_per_s"]),
                    ("record p50 ms", lambda f: f["ops.record.p50_ns"] / 1e6),
                    ("record p99 ms", lambda f: f["ops.record.p99_ns"] / 1e6),
                    ("avg dev write KiB", lambda f: f["device.avg_write_kib"])],
    "mmap_msync": [("msync p50 ms", lambda f: f["ops.msync.p50_ns"] / 1e6),
                   ("msync p99 ms", lambda f: f["ops.msync.p99_ns"] / 1e6),
                   ("MB/s", lambda f: f["bytes_per_s"] / 1e6),
                   ("avg dev write KiB", lambda f: f["device.avg_write_kib"]),
                   ("extents", lambda f: f["layout.extents_total"])],
}
PREFIX = {"rrd": "rrd-", "log_writers": "log-", "mmap_msync": "mmap-"}


def cell(values):
    if not values:
        return "–"
    m = statistics.median(values)
    fmt = "%.1f" if m >= 10 else "%.2f"
    return (fmt + " [" + fmt + "–" + fmt + "]") % (m, min(values), max(values))


def rows(path):
    j = json.load(open(path))
    name = os.path.basename(path)[:-5]
    if "sweep" in j:
        for p in j["sweep"]["points"]:
            yield "%s, %s=%s" % (name, j["sweep"]["name"], p["value"]), p["repeats"]["runs"]
    else:
        yield name, j.get("repeats", {}).get("runs", [{"figures": None}])


def main():
    story = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else "/var/tmp/iomimic-stories"
    cols = COLUMNS[story]
    print("| run | " + " | ".join(c for c, _ in cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for path in sorted(glob.glob(os.path.join(out, PREFIX[story] + "*.json"))):
        for label, runs in rows(path):
            figs = [r["figures"] for r in runs if r.get("figures")]
            cells = []
            for _, fn in cols:
                try:
                    cells.append(cell([fn(f) for f in figs]))
                except KeyError:
                    cells.append("–")
            print("| %s | %s |" % (label, " | ".join(cells)))


if __name__ == "__main__":
    main()
