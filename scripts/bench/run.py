#!/usr/bin/env python3
"""Runs the measurements of scripts/bench.sh against servers it has already started.

One JSON object per measurement is appended to --results (JSON lines); report.py turns
them into tables. Every tool run gets a fresh destination directory; trees on tmpfs are
removed right after their run, trees on disk are left for bench.sh to remove at exit
(ext4 here is mounted with `discard`: creating thousands of files right after deleting
thousands is slow, and would bias whichever tool runs next).

Timing: wall time is measured here with a monotonic clock. For cp, curl and aria2c it is
the process's run time. For the Redis workers (prefetchd, python_worker) the jobs are
first pushed to a staging list, the workers are started and awaited until each is
blocked waiting on the empty queue, and one RENAME hands every job over at once; wall
time runs from that RENAME to the moment XLEN <prefix>:events:log reaches the job count,
polled every 5 ms. That is the service's throughput, not its start-up: start-up (launch
to waiting) and launch-to-last-outcome are kept as startup_s and launch_to_done_s.
CPU seconds (user + sys) and peak RSS come from `/usr/bin/time -v` around each process,
so they cover the whole process life (start-up and SIGTERM shutdown included).
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import redis

TIME = "/usr/bin/time"
LIVE: set = set()  # processes started here, each in its own session (see spawn)


def spawn(cmd, **kw) -> subprocess.Popen:
    """Starts cmd in a session of its own, so an aborted run can kill it with its children."""
    p = subprocess.Popen(cmd, start_new_session=True, **kw)
    LIVE.add(p)
    return p


def finish(p: subprocess.Popen, timeout=None) -> int:
    rc = p.wait(timeout=timeout)
    LIVE.discard(p)
    return rc


def kill_all():
    for p in list(LIVE):
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        p.wait()
        LIVE.discard(p)


def log(msg: str):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


def parse_time_v(path: str) -> dict:
    """Fields of GNU time -v output: peak RSS (KiB), user and system CPU seconds."""
    out = {"rss_kb": 0, "user_s": 0.0, "sys_s": 0.0, "exit": None}
    try:
        text = open(path).read()
    except OSError:
        return out
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("Maximum resident set size (kbytes):"):
            out["rss_kb"] = int(line.rsplit(":", 1)[1])
        elif line.startswith("User time (seconds):"):
            out["user_s"] = float(line.rsplit(":", 1)[1])
        elif line.startswith("System time (seconds):"):
            out["sys_s"] = float(line.rsplit(":", 1)[1])
        elif line.startswith("Exit status:"):
            out["exit"] = int(line.rsplit(":", 1)[1])
        elif line.startswith("Command terminated by signal"):
            out["exit"] = 128 + int(line.rsplit(" ", 1)[1])
    return out


def child_pid(pid: int, timeout: float = 5.0) -> int | None:
    """The pid of the process /usr/bin/time (pid) started."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            kids = open(f"/proc/{pid}/task/{pid}/children").read().split()
            if kids:
                return int(kids[0])
        except OSError:
            return None
        time.sleep(0.002)
    return None


class Scenario:
    def __init__(self, name, corpus_dir, url_base, dest_root, on_tmpfs):
        self.name = name
        self.corpus_dir, self.url_base = corpus_dir, url_base
        self.dest_root, self.on_tmpfs = dest_root, on_tmpfs
        self.files = []  # (name, size)
        with open(os.path.join(corpus_dir, "MANIFEST")) as f:
            for line in f:
                n, s = line.rstrip("\n").split("\t")
                self.files.append((n, int(s)))
        self.count = len(self.files)
        self.total_bytes = sum(s for _, s in self.files)
        self.urls = [f"{url_base}/{n}" for n, _ in self.files]
        self.inputs = os.path.join(dest_root, "inputs")
        os.makedirs(self.inputs, exist_ok=True)
        self.url_file = os.path.join(self.inputs, "urls.txt")
        with open(self.url_file, "w") as f:
            f.writelines(u + "\n" for u in self.urls)
        self.seq = 0

    def fresh_dir(self, tool: str) -> str:
        self.seq += 1
        d = os.path.join(self.dest_root, f"{self.seq:03d}-{tool}")
        assert not os.path.exists(d)
        return d

    def check_flat(self, dest: str) -> tuple[int, int]:
        """Files present with the right size, by corpus name, directly in dest."""
        ok = nbytes = 0
        for n, s in self.files:
            try:
                st = os.stat(os.path.join(dest, n))
            except OSError:
                continue
            if st.st_size == s:
                ok += 1
                nbytes += s
        return ok, nbytes

    def check_cache(self, cache: str) -> tuple[int, int]:
        """Entries present in the cache layout: <h>.meta, and the body it names (prefetchd:
        "body": "<h>.<version>.body") or <h> (the Python worker), of the right size."""
        ok = nbytes = 0
        for url, (_, s) in zip(self.urls, self.files):
            h = hashlib.sha256(url.encode()).hexdigest()
            d = os.path.join(cache, "v1", h[0:2], h[2:4])
            try:
                with open(os.path.join(d, h + ".meta")) as f:
                    body = json.load(f).get("body") or h
                if os.stat(os.path.join(d, body)).st_size == s:
                    ok += 1
                    nbytes += s
            except (OSError, ValueError):
                pass
        return ok, nbytes

    def done_with(self, dest: str):
        if self.on_tmpfs:
            shutil.rmtree(dest, ignore_errors=True)


class Bench:
    def __init__(self, a):
        self.a = a
        self.r = redis.Redis(host="127.0.0.1", port=a.redis_port)
        self.redis_url = f"redis://127.0.0.1:{a.redis_port}"
        self.failures = 0
        self.results = open(a.results, "a")
        self.timing_dir = a.timing_dir
        os.makedirs(self.timing_dir, exist_ok=True)
        self.tseq = 0

    def record(self, row: dict):
        self.results.write(json.dumps(row) + "\n")
        self.results.flush()
        if row.get("ok") is False:
            self.failures += 1
        v = {k: row.get(k) or 0 for k in ("files_per_s", "mb_per_s", "wall_s", "rss_max_mb", "cpu_s")}
        log(f"  {row['scenario']:<11} {row['tool']:<18} rep {row['rep']}: "
            f"{'ok' if row.get('ok', True) else 'FAILED'} {v['wall_s']:.2f} s, {v['files_per_s']:.0f} files/s, "
            f"{v['mb_per_s']:.1f} MB/s, rss {v['rss_max_mb']:.0f} MB, cpu {v['cpu_s']:.2f} s"
            + (f" ({row['note']})" if row.get("note") else ""))

    def timefile(self) -> str:
        self.tseq += 1
        return os.path.join(self.timing_dir, f"time-{self.tseq:04d}.txt")

    def row(self, sc: Scenario, tool: str, rep: int, wall: float, procs: list[dict], ok_files: int, ok_bytes: int,
            note: str = "", ok: bool | None = None) -> dict:
        if ok is None:
            ok = ok_files == sc.count
        rss = [p["rss_kb"] / 1024 for p in procs]
        return {
            "scenario": sc.name, "tool": tool, "rep": rep, "ok": ok,
            "files": ok_files, "expected_files": sc.count, "bytes": ok_bytes, "expected_bytes": sc.total_bytes,
            "wall_s": wall,
            "files_per_s": ok_files / wall if wall > 0 else 0,
            "mb_per_s": ok_bytes / 1e6 / wall if wall > 0 else 0,
            "cpu_s": sum(p["user_s"] + p["sys_s"] for p in procs),
            "rss_max_mb": max(rss) if rss else 0, "rss_sum_mb": sum(rss), "procs": len(procs),
            "note": note,
        }

    def timed(self, cmd: list[str], stdin=None, stdout=subprocess.DEVNULL, stderr_path=None) -> tuple[float, dict, int]:
        tf = self.timefile()
        err = open(stderr_path or os.devnull, "w")
        t0 = time.monotonic()
        p = spawn([TIME, "-v", "-o", tf, *cmd], stdin=stdin, stdout=stdout, stderr=err)
        try:
            rc = finish(p, timeout=self.a.run_timeout)
        except subprocess.TimeoutExpired:
            kill_all()
            rc = -1
        wall = time.monotonic() - t0
        err.close()
        return wall, parse_time_v(tf), rc

    # ---- the limits -------------------------------------------------------------------
    def wrk(self, sc: Scenario, rep: int):
        url = sc.urls[0]
        out = subprocess.run(["wrk", "-t2", f"-c{self.a.connections}", f"-d{self.a.wrk_seconds}s",
                              "-s", os.path.join(self.a.here, "wrk_report.lua"), url],
                             capture_output=True, text=True, timeout=self.a.wrk_seconds + 60)
        js = [l for l in out.stdout.splitlines() if l.startswith("{")]
        if out.returncode != 0 or not js:
            self.record({"scenario": sc.name, "tool": "wrk", "rep": rep, "ok": False,
                         "note": f"wrk failed: {out.stderr.strip()[:200]}"})
            return
        s = json.loads(js[-1])
        wall = s["duration_us"] / 1e6
        size = sc.files[0][1]
        good = s["requests"] - s["non2xx"]
        self.record({
            "scenario": sc.name, "tool": "wrk", "rep": rep, "ok": True, "limit": True,
            "files": s["requests"], "wall_s": wall, "files_per_s": good / wall,
            "mb_per_s": s["bytes"] / 1e6 / wall, "cpu_s": None, "rss_max_mb": None, "rss_sum_mb": None, "procs": 1,
            "note": f"one {size // 1024} KiB URL, {self.a.connections} connections, "
                    f"p50 {s['p50_us'] / 1000:.2f} ms, p99 {s['p99_us'] / 1000:.2f} ms, errors {s['errors']}",
        })

    def cp(self, sc: Scenario, rep: int):
        dest = sc.fresh_dir("cp")
        os.sync()
        wall, t, rc = self.timed(["cp", "-r", sc.corpus_dir, dest])
        ok_files, ok_bytes = sc.check_flat(dest)
        row = self.row(sc, "cp -r", rep, wall, [t], ok_files, ok_bytes,
                       note="" if rc == 0 else f"exit {rc}")
        row["limit"] = True
        self.record(row)
        sc.done_with(dest)

    # ---- download tools ---------------------------------------------------------------
    def curl(self, sc: Scenario, rep: int):
        dest = sc.fresh_dir("curl")
        os.makedirs(dest)
        cfg = os.path.join(sc.inputs, f"curl-{rep}.cfg")
        with open(cfg, "w") as f:
            for url, (n, _) in zip(sc.urls, sc.files):
                f.write(f'url = "{url}"\noutput = "{os.path.join(dest, n)}"\n')
        os.sync()
        errf = os.path.join(self.timing_dir, f"curl-{sc.name}-{rep}.err")
        wall, t, rc = self.timed(["curl", "--parallel", "--parallel-max", str(self.a.connections),
                                  "--silent", "--show-error", "--fail", "-K", cfg], stderr_path=errf)
        ok_files, ok_bytes = sc.check_flat(dest)
        self.record(self.row(sc, "curl --parallel", rep, wall, [t], ok_files, ok_bytes,
                             note="" if rc == 0 else f"exit {rc}"))
        sc.done_with(dest)

    def aria2(self, sc: Scenario, rep: int):
        dest = sc.fresh_dir("aria2c")
        os.makedirs(dest)
        inp = os.path.join(sc.inputs, f"aria2-{rep}.txt")
        with open(inp, "w") as f:
            for url, (n, _) in zip(sc.urls, sc.files):
                f.write(f"{url}\n  out={n}\n")
        os.sync()
        errf = os.path.join(self.timing_dir, f"aria2c-{sc.name}-{rep}.log")
        n = str(self.a.connections)
        wall, t, rc = self.timed([
            "aria2c", "--no-conf", "-i", inp, "-d", dest, "-j", n,
            "--split=1", "--max-connection-per-server=1", "--file-allocation=none", "--auto-save-interval=0",
            "--enable-http-keep-alive=true", "--auto-file-renaming=false", "--allow-overwrite=true",
            "--conditional-get=false", "--remote-time=false", "--max-tries=1", "--retry-wait=0",
            "--console-log-level=warn", "--summary-interval=0", "--download-result=hide",
            "--show-console-readout=false", "--deferred-input=true", "--disable-ipv6=true",
        ], stdout=open(errf, "w"), stderr_path=errf + ".err")
        ok_files, ok_bytes = sc.check_flat(dest)
        self.record(self.row(sc, "aria2c -j" + n, rep, wall, [t], ok_files, ok_bytes,
                             note="" if rc == 0 else f"exit {rc}"))
        sc.done_with(dest)

    # ---- Redis workers ----------------------------------------------------------------
    def enqueue(self, prefix: str, url_file: str, expected: int) -> None:
        with open(url_file) as f:
            subprocess.run([self.a.prefetchd, "enqueue", "--redis", self.redis_url, "--prefix", prefix],
                           stdin=f, stdout=subprocess.DEVNULL, check=True)
        n = self.r.llen(f"{prefix}:queue")
        if n != expected:
            raise RuntimeError(f"enqueue put {n} jobs on {prefix}:queue, expected {expected}")

    def workers(self, sc: Scenario, rep: int, kind: str, nproc: int):
        tool = f"{kind} {nproc}p"
        prefix = f"b{rep}"
        cache = sc.fresh_dir(f"{kind}{nproc}")
        os.makedirs(cache)
        if kind == "prefetchd":
            cmd = [self.a.prefetchd, "worker", "--redis", self.redis_url, "--prefix", prefix,
                   "--cache-dir", cache, "--log-level", "warning", *self.a.prefetchd_args.split()]
        else:
            cmd = [sys.executable, os.path.join(self.a.here, "python_worker.py"), "--redis", self.redis_url,
                   "--prefix", prefix, "--cache-dir", cache, *self.a.python_args.split()]
        self.r.flushall()
        # Jobs wait in a staging list; once every worker is up and blocked waiting for
        # work, one RENAME hands them all over at once (it wakes blocked BLMOVEs).
        self.enqueue("stage", sc.url_file, sc.count)
        log_key = f"{prefix}:events:log"
        os.sync()
        procs, tfs, errs = [], [], []
        launched = time.monotonic()
        for i in range(nproc):
            tf = self.timefile()
            errf = os.path.join(self.timing_dir, f"{kind}{nproc}-{sc.name}-{rep}-{i}.log")
            errs.append(errf)
            procs.append(spawn([TIME, "-v", "-o", tf, *cmd], stdout=subprocess.DEVNULL, stderr=open(errf, "w")))
            tfs.append(tf)
        note, timed_out = "", False
        while self.blocked_clients() < nproc:
            if time.monotonic() - launched > 30 or any(p.poll() is not None for p in procs):
                note = "workers not seen waiting for jobs; started anyway"
                break
            time.sleep(0.005)
        t0 = time.monotonic()
        self.r.rename("stage:queue", f"{prefix}:queue")
        deadline = t0 + self.a.run_timeout
        while True:
            if self.r.xlen(log_key) >= sc.count:
                break
            if any(p.poll() is not None for p in procs):
                note = "a worker exited early"
                break
            if time.monotonic() > deadline:
                note, timed_out = f"timed out after {self.a.run_timeout} s", True
                break
            time.sleep(0.005)
        done = time.monotonic()
        wall, startup = done - t0, t0 - launched
        # SIGTERM the workers themselves (time -v would die on it and orphan them).
        for p in procs:
            pid = child_pid(p.pid)
            if pid:
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for p in procs:
            try:
                finish(p, timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                finish(p)
                note += " (killed after 60 s)"
        stats = [parse_time_v(tf) for tf in tfs]
        bad_exit = [s["exit"] for s in stats if s["exit"] not in (0, None)]
        if bad_exit:
            note += f" worker exit status {bad_exit}"
        # What the events say (untimed).
        kinds: dict[str, int] = {}
        last = "-"
        while True:
            entries = self.r.xrange(log_key, min=f"({last}" if last != "-" else "-", count=5000)
            if not entries:
                break
            for eid, fields in entries:
                ev = json.loads(fields[b"event"])
                kinds[ev["event"]] = kinds.get(ev["event"], 0) + 1
            last = entries[-1][0].decode()
        ok_files, ok_bytes = sc.check_cache(cache)
        if kinds.get("completed", 0) != sc.count:
            note += f" events {kinds}"
        ok = ok_files == sc.count and not timed_out and kinds.get("completed", 0) == sc.count
        if not ok:
            note += " (logs: " + " ".join(os.path.basename(e) for e in errs) + ")"
        row = self.row(sc, tool, rep, wall, stats, ok_files, ok_bytes, note=note.strip(), ok=ok)
        row["startup_s"] = startup
        row["launch_to_done_s"] = done - launched
        self.record(row)
        sc.done_with(cache)
        self.r.flushall()

    def blocked_clients(self) -> int:
        return sum(1 for c in self.r.client_list() if "b" in c.get("flags", ""))

    def enqueue_rate(self, rep: int):
        count = self.a.enqueue_count
        path = os.path.join(self.a.shm_dir, "enqueue-urls.txt")
        if not os.path.exists(path):
            with open(path, "w") as f:
                for i in range(count):
                    f.write(f"http://127.0.0.1:{self.a.origin_port}/enqueue/item-{i:07d}.jpg?v={i % 97}\n")
        self.r.flushall()
        with open(path) as f:
            wall, t, rc = self.timed([self.a.prefetchd, "enqueue", "--redis", self.redis_url, "--prefix", "enq"],
                                     stdin=f)
        n = self.r.llen("enq:queue")
        ok = rc == 0 and n == count
        self.r.flushall()
        row = {"scenario": "enqueue", "tool": "prefetchd enqueue", "rep": rep, "ok": ok, "files": n,
               "expected_files": count, "wall_s": wall, "files_per_s": n / wall, "mb_per_s": 0,
               "cpu_s": t["user_s"] + t["sys_s"], "rss_max_mb": t["rss_kb"] / 1024, "rss_sum_mb": t["rss_kb"] / 1024,
               "procs": 1, "note": "" if ok else f"exit {rc}, {n} queued"}
        self.record(row)


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--results", required=True)
    p.add_argument("--timing-dir", required=True)
    p.add_argument("--origin-port", type=int, required=True)
    p.add_argument("--redis-port", type=int, required=True)
    p.add_argument("--prefetchd", required=True)
    p.add_argument("--prefetchd-args", default="")
    p.add_argument("--python-args", default="")
    p.add_argument("--shm-dir", required=True)
    p.add_argument("--disk-dir", required=True)
    p.add_argument("--small-shm", required=True, help="small corpus copy on tmpfs, served at /shm/small")
    p.add_argument("--small-disk", required=True, help="small corpus on disk, served at /disk/small")
    p.add_argument("--large-disk", required=True, help="large corpus on disk, served at /disk/large")
    p.add_argument("--scenarios", default="small-tmpfs,small-disk,large-disk")
    p.add_argument("--tools", default="wrk,cp,curl,aria2,py1,py2,pd1,pd2")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--connections", type=int, default=64)
    p.add_argument("--wrk-seconds", type=int, default=5)
    p.add_argument("--enqueue-count", type=int, default=100000)
    p.add_argument("--run-timeout", type=int, default=900)
    a = p.parse_args()
    a.here = os.path.dirname(os.path.abspath(__file__))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        return run(a)
    finally:
        kill_all()


def run(a) -> int:
    origin = f"http://127.0.0.1:{a.origin_port}"
    all_scenarios = {
        "small-tmpfs": (a.small_shm, f"{origin}/shm/small", os.path.join(a.shm_dir, "small-tmpfs"), True),
        "small-disk": (a.small_disk, f"{origin}/disk/small", os.path.join(a.disk_dir, "small-disk"), False),
        "large-disk": (a.large_disk, f"{origin}/disk/large", os.path.join(a.disk_dir, "large-disk"), False),
    }
    b = Bench(a)
    tools = a.tools.split(",")
    runners = {
        "wrk": b.wrk, "cp": b.cp, "curl": b.curl, "aria2": b.aria2,
        "py1": lambda sc, rep: b.workers(sc, rep, "python_worker", 1),
        "py2": lambda sc, rep: b.workers(sc, rep, "python_worker", 2),
        "pd1": lambda sc, rep: b.workers(sc, rep, "prefetchd", 1),
        "pd2": lambda sc, rep: b.workers(sc, rep, "prefetchd", 2),
    }
    for name in a.scenarios.split(","):
        if not name:
            continue
        corpus, url_base, dest_root, tmpfs = all_scenarios[name]
        sc = Scenario(name, corpus, url_base, dest_root, tmpfs)
        if sc.count > 90000:
            raise SystemExit("more than 90,000 files: the events stream is capped near 100,000, XLEN cannot count them")
        log(f"{name}: {sc.count} files, {sc.total_bytes / 1e6:.1f} MB, {a.reps} repetition(s)")
        for rep in range(1, a.reps + 1):
            # Rotate the order each repetition: disk speed drifts minute to minute here,
            # so no tool should always run first or last.
            k = (rep - 1) % len(tools)
            for tool in tools[k:] + tools[:k]:
                runners[tool](sc, rep)
    if a.enqueue_count > 0:
        log(f"enqueue: {a.enqueue_count} URLs, {a.reps} repetition(s)")
        for rep in range(1, a.reps + 1):
            b.enqueue_rate(rep)
    return 1 if b.failures else 0


if __name__ == "__main__":
    sys.exit(main())
