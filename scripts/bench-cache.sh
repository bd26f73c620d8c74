#!/usr/bin/env bash
# Measures the cache alone: small-entry writes per second (temp file, SHA-256, rename of
# body and metadata, as the worker does) and how long `prefetchd cache verify` and
# `cache stat` take per 10,000 entries, on tmpfs and on disk. Prints figures, asserts nothing.
#   COUNT=10000 BYTES=20000 scripts/bench-cache.sh
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${COUNT:-10000}
BYTES=${BYTES:-20000}
DISK_DIR=${DISK_DIR:-/var/tmp}
swift build -c release --product prefetchd >/dev/null
swift build -c release --product cache-stress >/dev/null
bin="$(swift build -c release --show-bin-path)"
roots=()
cleanup() { rm -rf "${roots[@]}"; }
trap cleanup EXIT
for where in /dev/shm "$DISK_DIR"; do
  root=$(mktemp -d "$where/prefetchd-cache-bench.XXXXXX")
  roots+=("$root")
  fill=$("$bin/cache-stress" fill "$root" "$COUNT" "$BYTES")
  sync
  t0=$(date +%s.%N); "$bin/prefetchd" cache verify --cache-dir "$root" >/dev/null; t1=$(date +%s.%N)
  "$bin/prefetchd" cache stat --cache-dir "$root" >/dev/null; t2=$(date +%s.%N)
  python3 - "$where" "$COUNT" "$BYTES" "$fill" "$t0" "$t1" "$t2" <<'PY'
import sys
where, count, size, fill, t0, t1, t2 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].split(), *map(float, sys.argv[5:])
per10k = lambda s: s * 10000 / count
print(f"{where}: {count} entries of {size} B: writes {int(fill[2]):,}/s; "
      f"cache verify {per10k(t1 - t0):.2f} s per 10,000 entries (reads and hashes every body); "
      f"cache stat {per10k(t2 - t1):.2f} s per 10,000")
PY
done
