#!/usr/bin/env python3
"""Turns bench/run.py's JSON lines into tables: medians per scenario and tool.

    report.py RESULTS.jsonl META.json OUT_BASE

Prints Markdown tables and writes OUT_BASE.md, OUT_BASE.json (meta, medians and every
raw run) and OUT_BASE.csv (medians, one row per scenario and tool). Ratios compare
prefetchd with one process against each tool in the same run:
  speed ×  prefetchd 1p files/s ÷ the tool's files/s   (above 1: prefetchd is faster)
  CPU ×    prefetchd 1p CPU s ÷ the tool's CPU s       (below 1: prefetchd uses less CPU)
  RSS ×    prefetchd 1p peak RSS ÷ the tool's peak RSS (below 1: prefetchd uses less memory)
"""
import csv
import json
import statistics
import sys

REFERENCE = "prefetchd 1p"
TITLES = {
    "small-tmpfs": "Small files on tmpfs (origin and destination in /dev/shm)",
    "small-disk": "Small files on disk (origin and destination on ext4)",
    "large-disk": "Large files on disk (origin and destination on ext4)",
    "enqueue": "Enqueue rate (`prefetchd enqueue`, URLs from stdin)",
}
METRICS = ["files_per_s", "mb_per_s", "wall_s", "rss_max_mb", "rss_sum_mb", "cpu_s"]


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(v, digits=1):
    if v is None:
        return "–"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.{digits}f}"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "–"
    return f"{a / b:.2f}"


def main() -> int:
    results_path, meta_path, out_base = sys.argv[1:4]
    rows = [json.loads(line) for line in open(results_path) if line.strip()]
    meta = json.load(open(meta_path))
    order = []
    for r in rows:
        key = (r["scenario"], r["tool"])
        if key not in order:
            order.append(key)
    medians = []
    for scenario, tool in order:
        runs = [r for r in rows if r["scenario"] == scenario and r["tool"] == tool]
        good = [r for r in runs if r.get("ok")]
        m = {"scenario": scenario, "tool": tool, "runs": len(runs), "failed_runs": len(runs) - len(good),
             "limit": any(r.get("limit") for r in runs)}
        for k in METRICS:
            m[k] = median([r.get(k) for r in good])
        m["expected_files"] = next((r["expected_files"] for r in runs if r.get("expected_files")), None)
        m["notes"] = sorted({r["note"] for r in runs if r.get("note")})
        for k in ("startup_s", "launch_to_done_s"):
            m[k] = median([r.get(k) for r in good])
        if m["startup_s"] is not None:
            m["notes"].append(f"start-up (launch to waiting for jobs) {m['startup_s']:.2f} s, "
                              f"launch to last outcome {m['launch_to_done_s']:.2f} s (medians)")
        medians.append(m)

    lines = [f"# prefetchd benchmark, {meta['timestamp']}", ""]
    lines += [f"- {k}: {v}" for k, v in meta.items() if k not in ("timestamp",)]
    lines += ["", "Medians of the repetitions. `peak RSS` is the largest of any one process; "
              "`RSS sum` adds the processes' peaks (they need not peak together). "
              "Ratios are prefetchd 1p ÷ the tool (speed: above 1 means prefetchd is faster; "
              "CPU and RSS: below 1 means prefetchd uses less). Limit rows: `wrk` requests one "
              "URL again and again (its CPU and memory are not comparable), `cp -r` copies the "
              "corpus on the destination's filesystem.", ""]
    for scenario in dict.fromkeys(s for s, _ in order):
        ms = [m for m in medians if m["scenario"] == scenario]
        ref = next((m for m in ms if m["tool"] == REFERENCE), None)
        lines += [f"## {TITLES.get(scenario, scenario)}", ""]
        if scenario == "enqueue":
            lines += ["| tool | URLs | URLs/s | wall s | peak RSS MB | CPU s |", "|---|---:|---:|---:|---:|---:|"]
            for m in ms:
                lines.append(f"| {m['tool']} | {m['expected_files']:,} | {fmt(m['files_per_s'], 0)} | "
                             f"{fmt(m['wall_s'], 2)} | {fmt(m['rss_max_mb'])} | {fmt(m['cpu_s'], 2)} |")
            lines.append("")
            continue
        n = next((m["expected_files"] for m in ms if m["expected_files"]), "?")
        lines += [f"{n} files per run.", "",
                  "| tool | files/s | MB/s | wall s | peak RSS MB | RSS sum MB | CPU s | speed × | CPU × | RSS × |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for m in ms:
            name = m["tool"] + (" (limit)" if m["limit"] else "")
            if m["failed_runs"]:
                name += f" **FAILED {m['failed_runs']}/{m['runs']}**"
            is_ref = m["tool"] == REFERENCE
            same = "1.00" if is_ref else None
            speed = same or (ratio(ref["files_per_s"], m["files_per_s"]) if ref else "–")
            cpu = same or (ratio(ref["cpu_s"], m["cpu_s"]) if ref and m["cpu_s"] else "–")
            rss = same or (ratio(ref["rss_max_mb"], m["rss_max_mb"]) if ref and m["rss_max_mb"] else "–")
            wall = fmt(m["wall_s"], 2) if not m["tool"].startswith("wrk") else f"({fmt(m['wall_s'], 1)})"
            lines.append(f"| {name} | {fmt(m['files_per_s'], 0)} | {fmt(m['mb_per_s'])} | {wall} | "
                         f"{fmt(m['rss_max_mb'])} | {fmt(m['rss_sum_mb'])} | {fmt(m['cpu_s'], 2)} | "
                         f"{speed} | {cpu} | {rss} |")
        notes = [(m["tool"], n) for m in ms for n in m["notes"]]
        if notes:
            lines += ["", "Notes:"] + [f"- {t}: {n}" for t, n in notes]
        lines.append("")
    text = "\n".join(lines)
    print(text)
    with open(out_base + ".md", "w") as f:
        f.write(text + "\n")
    with open(out_base + ".json", "w") as f:
        json.dump({"meta": meta, "medians": medians, "runs": rows}, f, indent=1)
    with open(out_base + ".csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["timestamp", "scenario", "tool", "runs", "failed_runs", "expected_files"] + METRICS)
        for m in medians:
            w.writerow([meta["timestamp"], m["scenario"], m["tool"], m["runs"], m["failed_runs"],
                        m["expected_files"]] + [m[k] for k in METRICS])
    return 0


if __name__ == "__main__":
    sys.exit(main())
