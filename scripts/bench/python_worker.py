#!/usr/bin/env python3
"""A Python asyncio equivalent of `prefetchd worker`, as a benchmark baseline.

It does the same job with the same Redis contract and cache layout, written the way a
competent Python engineer would: one event loop (uvloop when installed), aiohttp with a
keep-alive pool, redis-py's asyncio client (hiredis parser when installed), batched
intake and batched outcome writes.

  * intake: moves jobs from <prefix>:queue to <prefix>:processing:<id> with a pipeline of
    LMOVEs (one round trip for up to the free slots), falling back to BLMOVE when the
    queue is empty; never holds more than 2 x concurrency jobs;
  * download: GET with aiohttp, body streamed into a hidden temp file in the entry's
    directory, renamed to <cache>/v1/<h0h1>/<h2h3>/<h> (h = SHA-256 of the URL), then
    <h>.meta written the same way; an entry whose .meta exists is not fetched again;
  * outcome: one pipeline per batch of outcomes: PUBLISH <prefix>:events, XADD
    <prefix>:events:log MAXLEN ~ 100000, SADD/HSET <prefix>:failed(:reasons) for
    permanent failures (4xx but 408/429, body too large), LREM of the processing entry;
  * SIGTERM/SIGINT: stops taking jobs, lets transfers finish (--grace seconds), returns
    jobs not started to the queue, exits 0.

Bare-URL and JSON jobs ({"url": ...}) are accepted. No URL normalization beyond what the
benchmark needs (its URLs are already normal).
"""
import argparse
import asyncio
import hashlib
import json
import os
import signal
import socket
import sys
import time

import aiohttp
import redis.asyncio as aioredis

try:
    import uvloop  # type: ignore
except ImportError:  # plain asyncio works, only slower
    uvloop = None

CHUNK = 256 * 1024


class Worker:
    def __init__(self, args):
        self.args = args
        self.prefix = args.prefix
        self.worker_id = args.worker_id or f"{socket.gethostname()}-{os.getpid()}-py"
        self.queue_key = f"{self.prefix}:queue"
        self.processing_key = f"{self.prefix}:processing:{self.worker_id}"
        self.events_key = f"{self.prefix}:events"
        self.log_key = f"{self.prefix}:events:log"
        self.failed_key = f"{self.prefix}:failed"
        self.reasons_key = f"{self.prefix}:failed:reasons"
        self.dead_key = f"{self.prefix}:dead"
        self.root = os.path.join(args.cache_dir, "v1")
        self.max_in_flight = args.max_in_flight or 2 * args.concurrency
        self.jobs: asyncio.Queue = asyncio.Queue()
        self.outcomes: asyncio.Queue = asyncio.Queue()
        self.in_flight = 0
        self.slot_free = asyncio.Event()
        self.stopping = asyncio.Event()
        self.made_dirs: set[str] = set()
        self.tag = 0

    # ---- intake -------------------------------------------------------------------------
    async def intake(self, r):
        while not self.stopping.is_set():
            free = self.max_in_flight - self.in_flight
            if free <= 0:
                self.slot_free.clear()
                await self.slot_free.wait()
                continue
            pipe = r.pipeline(transaction=False)
            for _ in range(free):
                pipe.lmove(self.queue_key, self.processing_key, "RIGHT", "LEFT")
            taken = [j for j in await pipe.execute() if j is not None]
            if not taken:
                job = await r.blmove(self.queue_key, self.processing_key, 1, "RIGHT", "LEFT")
                if job is None:
                    continue
                taken = [job]
            if self.stopping.is_set():  # a signal arrived during the round trip
                for raw in taken:
                    self.outcomes.put_nowait(("return", raw, None))
                return
            for raw in taken:
                self.in_flight += 1
                self.jobs.put_nowait(raw)

    # ---- download and store -------------------------------------------------------------
    def entry_paths(self, key: str):
        h = hashlib.sha256(key.encode()).hexdigest()
        d = os.path.join(self.root, h[0:2], h[2:4])
        return d, os.path.join(d, h), os.path.join(d, h + ".meta")

    def ensure_dir(self, d: str):
        if d not in self.made_dirs:
            os.makedirs(d, exist_ok=True)
            self.made_dirs.add(d)

    def temp_name(self, d: str, name: str) -> str:
        self.tag += 1
        return os.path.join(d, f".{name}.{os.getpid()}-{self.tag}.tmp")

    async def fetch(self, session, raw: bytes):
        started = time.monotonic()
        text = raw.decode("utf-8", "replace").strip()
        job = {"url": text}
        if text.startswith("{"):
            try:
                job = json.loads(text)
                if not isinstance(job, dict) or not isinstance(job.get("url"), str):
                    raise ValueError("no url")
            except ValueError as e:
                return ("dead", raw, {"reason": f"bad job: {e}", "started": started})
        url = job["url"]
        if not url.startswith(("http://", "https://")):
            return ("dead", raw, {"reason": "not an http(s) URL", "started": started})
        key = job.get("key") or url
        base = {"url": url, "key": key, "started": started}
        if "id" in job:
            base["id"] = job["id"]
        d, body_path, meta_path = self.entry_paths(key)
        if not job.get("refresh") and os.path.exists(meta_path):
            return ("completed", raw, dict(base, source="cache", path=body_path))
        limit = self.args.max_body_size
        tmp = None
        try:
            async with session.get(url, allow_redirects=True, max_redirects=5) as resp:
                status = resp.status
                if status >= 400:
                    await resp.read()
                    permanent = status < 500 and status not in (408, 429)
                    return ("failed", raw, dict(base, status=status, kind="permanent" if permanent else "transient",
                                                reason=f"HTTP {status}"))
                if resp.content_length is not None and resp.content_length > limit:
                    return ("failed", raw, dict(base, status=status, kind="permanent", reason="body too large"))
                self.ensure_dir(d)
                tmp = self.temp_name(d, os.path.basename(body_path))
                size = 0
                with open(tmp, "wb") as f:
                    async for chunk in resp.content.iter_chunked(CHUNK):
                        size += len(chunk)
                        if size > limit:
                            raise OverflowError
                        f.write(chunk)
                os.rename(tmp, body_path)
                tmp = None
                meta = json.dumps({"url": url, "key": key, "size": size,
                                   "content_type": resp.headers.get("Content-Type", ""),
                                   "etag": resp.headers.get("ETag"), "last_modified": resp.headers.get("Last-Modified"),
                                   "status": status, "stored_at": int(time.time())})
                mtmp = self.temp_name(d, os.path.basename(meta_path))
                with open(mtmp, "w") as f:
                    f.write(meta)
                os.rename(mtmp, meta_path)
                return ("completed", raw, dict(base, source="network", status=status, bytes=size,
                                               content_type=resp.headers.get("Content-Type", ""), path=body_path))
        except OverflowError:
            return ("failed", raw, dict(base, kind="permanent", reason="body too large"))
        except aiohttp.TooManyRedirects:
            return ("failed", raw, dict(base, kind="permanent", reason="too many redirects"))
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as e:
            return ("failed", raw, dict(base, kind="transient", reason=f"{type(e).__name__}: {e}"))
        finally:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass

    async def downloader(self, session):
        while True:
            raw = await self.jobs.get()
            if raw is None:
                return
            try:
                outcome = await self.fetch(session, raw)
            except Exception as e:  # never lose a job to a bug: record it
                outcome = ("failed", raw, {"url": raw.decode(errors="replace"), "key": "", "kind": "transient",
                                           "reason": f"internal: {e!r}", "started": time.monotonic()})
            self.outcomes.put_nowait(outcome)

    # ---- outcomes -----------------------------------------------------------------------
    def commands(self, pipe, outcome, now: float):
        kind, raw, info = outcome
        if kind == "return":
            pipe.rpush(self.queue_key, raw)
            pipe.lrem(self.processing_key, 1, raw)
            return
        event = {"event": kind}
        if kind == "dead":
            event.update(reason=info["reason"], job=raw.decode(errors="replace"))
        else:
            for k in ("url", "key", "id", "source", "status", "bytes", "content_type", "path", "kind", "reason"):
                if k in info:
                    event[k] = info[k]
        event.update(duration_ms=int((time.monotonic() - info["started"]) * 1000), worker=self.worker_id,
                     time=round(now, 3))
        text = json.dumps(event, separators=(",", ":"))
        pipe.publish(self.events_key, text)
        pipe.xadd(self.log_key, {"event": text}, maxlen=100000, approximate=True)
        if kind == "failed" and info.get("kind") == "permanent":
            pipe.sadd(self.failed_key, info["url"])
            pipe.hset(self.reasons_key, info["url"], json.dumps(
                {"reason": info["reason"], "status": info.get("status"), "worker": self.worker_id, "time": now}))
        elif kind == "dead":
            pipe.lpush(self.dead_key, json.dumps({"job": event["job"], "reason": info["reason"],
                                                  "worker": self.worker_id, "time": now}))
        pipe.lrem(self.processing_key, 1, raw)

    async def writer(self, r):
        while True:
            first = await self.outcomes.get()
            if first is None:
                return
            batch = [first]
            while not self.outcomes.empty() and len(batch) < 512:
                item = self.outcomes.get_nowait()
                if item is None:
                    self.outcomes.put_nowait(None)
                    break
                batch.append(item)
            pipe = r.pipeline(transaction=False)
            now = time.time()
            for outcome in batch:
                self.commands(pipe, outcome, now)
            await pipe.execute()
            for outcome in batch:
                if outcome[0] != "return":
                    self.in_flight -= 1
            self.slot_free.set()

    # ---- lifecycle ----------------------------------------------------------------------
    async def run(self):
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stopping.set)
        intake_conn = aioredis.from_url(self.args.redis)
        writer_conn = aioredis.from_url(self.args.redis)
        connector = aiohttp.TCPConnector(limit=self.args.concurrency, limit_per_host=0, ttl_dns_cache=300)
        timeout = aiohttp.ClientTimeout(total=self.args.timeout, connect=self.args.connect_timeout)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout, auto_decompress=False) as session:
            downloaders = [asyncio.create_task(self.downloader(session)) for _ in range(self.args.concurrency)]
            writer = asyncio.create_task(self.writer(writer_conn))
            intake = asyncio.create_task(self.intake(intake_conn))
            await self.stopping.wait()
            intake.cancel()  # a BLMOVE in flight may still move one job: handled below
            try:
                await intake
            except asyncio.CancelledError:
                pass
            # Jobs not started go back to the queue.
            while not self.jobs.empty():
                raw = self.jobs.get_nowait()
                self.in_flight -= 1
                self.outcomes.put_nowait(("return", raw, None))
            for _ in downloaders:
                self.jobs.put_nowait(None)
            done, pending = await asyncio.wait(downloaders, timeout=self.args.grace)
            for t in pending:
                t.cancel()
            self.outcomes.put_nowait(None)
            await writer
            # A job moved by a BLMOVE cancelled in flight is still in the processing list.
            leftovers = await writer_conn.lrange(self.processing_key, 0, -1)
            if leftovers and not pending:
                pipe = writer_conn.pipeline(transaction=False)
                for raw in leftovers:
                    pipe.rpush(self.queue_key, raw)
                    pipe.lrem(self.processing_key, 1, raw)
                await pipe.execute()
        await intake_conn.aclose()
        await writer_conn.aclose()


def parse_size(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    if text and text[-1].upper() in units:
        return int(text[:-1]) * units[text[-1].upper()]
    return int(text)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--redis", default="redis://127.0.0.1:6379")
    p.add_argument("--prefix", default="prefetch")
    p.add_argument("--cache-dir", required=True)
    p.add_argument("--worker-id")
    p.add_argument("--concurrency", type=int, default=64)
    p.add_argument("--max-in-flight", type=int, default=0)
    p.add_argument("--connect-timeout", type=float, default=10)
    p.add_argument("--timeout", type=float, default=300)
    p.add_argument("--max-body-size", type=parse_size, default=1 << 30)
    p.add_argument("--grace", type=float, default=30)
    args = p.parse_args()
    worker = Worker(args)
    if uvloop is not None:
        uvloop.install()
    print(f"python_worker {worker.worker_id}: loop={'uvloop' if uvloop else 'asyncio'} "
          f"concurrency={args.concurrency}", file=sys.stderr, flush=True)
    asyncio.run(worker.run())
    return 0


if __name__ == "__main__":
    sys.exit(main())
