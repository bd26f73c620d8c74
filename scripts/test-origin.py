#!/usr/bin/env python3
"""A loopback HTTP origin for prefetchd's integration tests.

It serves files from a directory and counts every request, so tests can assert how many
requests reached the origin. Paths:

  GET /files/<name>           the file <root>/<name> (404 if absent); ETag and Last-Modified set,
                              304 for a matching If-None-Match or If-Modified-Since
  GET /status/<code>          an empty response with that status
  GET /delay?ms=N[&...]       a small body after N milliseconds (for concurrency tests)
  GET /slow?bytes=N&bps=B     N bytes dripped at B bytes per second (low-speed abort)
  GET /big?size=N[&chunked=1] N bytes, with Content-Length or chunked without it
  GET /redirect?to=URL        302 to URL
  GET /redirect-loop?n=K      302 to /redirect-loop?n=K+1, forever
  GET /echo-headers           the request headers as JSON
  GET /flaky?fail=N&retry_after=S   503 with Retry-After: S for the first N requests of
                              this exact path (query included), then 200
  GET /__stats                JSON {"requests": {path: count}, "total": n, "max_concurrent": n,
                              "headers": {path: {name: value}} (last request per path),
                              "max_concurrent_by_group": {group: n},
                              "times": {path: [unix seconds of each request]}}
                              requests with ?group=G are also counted per group, so tests
                              running at once do not see each other's concurrency
  GET /__reset                clears the counters

Usage: test-origin.py --port N --root DIR [--pid-file F]
"""
import argparse
import email.utils
import hashlib
import json
import os
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

lock = threading.Lock()
counts = {}
seen_headers = {}
times = {}
group_active = {}
group_max = {}
active = 0
max_active = 0


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "prefetchd-test-origin"

    def log_message(self, fmt, *args):
        pass

    def do_POST(self):
        self.do_GET()

    def do_GET(self):
        global active, max_active
        if self.path == "/__reset":
            with lock:
                counts.clear()
                seen_headers.clear()
                times.clear()
                max_active = 0
            self.send_body(200, b"{}", "application/json")
            return
        if self.path == "/__stats":
            with lock:
                body = json.dumps({"requests": counts, "total": sum(counts.values()),
                                   "max_concurrent": max_active, "headers": seen_headers,
                                   "max_concurrent_by_group": group_max, "times": times}).encode()
            self.send_body(200, body, "application/json")
            return
        group = dict(urllib.parse.parse_qsl(self.path.partition("?")[2])).get("group")
        with lock:
            counts[self.path] = counts.get(self.path, 0) + 1
            seen_headers[self.path] = {k: v for k, v in self.headers.items()}
            times.setdefault(self.path, []).append(time.time())
            active += 1
            max_active = max(max_active, active)
            if group:
                group_active[group] = group_active.get(group, 0) + 1
                group_max[group] = max(group_max.get(group, 0), group_active[group])
        try:
            self.route()
        finally:
            with lock:
                active -= 1
                if group:
                    group_active[group] -= 1

    def route(self):
        path, _, query = self.path.partition("?")
        q = dict(urllib.parse.parse_qsl(query))
        if path == "/delay":
            time.sleep(int(q.get("ms", "100")) / 1000)
            self.send_body(200, b"delayed " + query.encode(), "text/plain")
        elif path == "/slow":
            total, bps = int(q.get("bytes", "100000")), max(1, int(q.get("bps", "10")))
            self.send_response(200)
            self.send_header("Content-Length", str(total))
            self.end_headers()
            try:
                sent = 0
                while sent < total:
                    self.wfile.write(b"x" * min(bps, total - sent))
                    self.wfile.flush()
                    sent += bps
                    time.sleep(1)
            except OSError:
                pass
        elif path == "/big":
            size = int(q.get("size", "1000000"))
            chunk = b"b" * 65536
            self.send_response(200)
            if q.get("chunked") == "1":
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                try:
                    left = size
                    while left > 0:
                        part = chunk[:min(left, len(chunk))]
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                        left -= len(part)
                    self.wfile.write(b"0\r\n\r\n")
                except OSError:
                    pass
            else:
                self.send_header("Content-Length", str(size))
                self.end_headers()
                try:
                    left = size
                    while left > 0:
                        part = chunk[:min(left, len(chunk))]
                        self.wfile.write(part)
                        left -= len(part)
                except OSError:
                    pass
        elif path == "/redirect":
            self.send_body(302, b"", "text/plain", {"Location": q.get("to", "/")})
        elif path == "/redirect-loop":
            n = int(q.get("n", "0"))
            self.send_body(302, b"", "text/plain", {"Location": "/redirect-loop?n=%d" % (n + 1)})
        elif path == "/flaky":
            with lock:
                seen = counts.get(self.path, 0)
            if seen <= int(q.get("fail", "1")):
                self.send_body(503, b"try later\n", "text/plain", {"Retry-After": q.get("retry_after", "1")})
            else:
                self.send_body(200, b"finally " + query.encode(), "text/plain")
        elif path == "/echo-headers":
            self.send_body(200, json.dumps(dict(self.headers.items())).encode(), "application/json")
        elif path.startswith("/status/"):
            code = int(path[len("/status/"):] or "500")
            self.send_body(code, b"status %d\n" % code, "text/plain")
        elif path.startswith("/files/"):
            name = path[len("/files/"):]
            full = os.path.realpath(os.path.join(self.server.root, name))
            if not full.startswith(self.server.root + os.sep) or not os.path.isfile(full):
                self.send_body(404, b"not found\n", "text/plain")
                return
            with open(full, "rb") as f:
                data = f.read()
            stat = os.stat(full)
            headers = {
                "ETag": '"%s"' % hashlib.sha256(data).hexdigest()[:16],
                "Last-Modified": email.utils.formatdate(stat.st_mtime, usegmt=True),
            }
            # Conditional requests: If-None-Match wins over If-Modified-Since (RFC 9110).
            inm = self.headers.get("If-None-Match")
            ims = self.headers.get("If-Modified-Since")
            not_modified = False
            if inm is not None:
                not_modified = headers["ETag"] in [t.strip() for t in inm.split(",")]
            elif ims is not None:
                try:
                    not_modified = int(stat.st_mtime) <= email.utils.parsedate_to_datetime(ims).timestamp()
                except (TypeError, ValueError):
                    pass
            if not_modified:
                self.send_response(304)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                return
            self.send_body(200, data, guess_type(name), headers)
        else:
            self.send_body(404, b"not found\n", "text/plain")

    def send_body(self, code, body, content_type, headers=None):
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)


def guess_type(name):
    for ext, t in ((".jpg", "image/jpeg"), (".jpeg", "image/jpeg"), (".png", "image/png"),
                   (".gif", "image/gif"), (".html", "text/html")):
        if name.endswith(ext):
            return t
    return "application/octet-stream"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--root", required=True)
    p.add_argument("--pid-file")
    a = p.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    server.daemon_threads = True
    server.request_queue_size = 512
    server.root = os.path.realpath(a.root)
    if a.pid_file:
        with open(a.pid_file, "w") as f:
            f.write(str(os.getpid()))
    server.serve_forever()


if __name__ == "__main__":
    main()
