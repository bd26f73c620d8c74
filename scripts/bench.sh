#!/usr/bin/env bash
# Benchmarks prefetchd against the limits of this machine (wrk on the origin, cp -r),
# curl --parallel, aria2c and a Python asyncio worker, on loopback only, and writes
# bench-results/<timestamp>.{md,json,csv}. See docs/benchmarks.md.
#
# Knobs (environment):
#   SMALL_COUNT=10000  LARGE_COUNT=100  LARGE_MB=5   corpus size
#   REPS=3             repetitions (medians reported); tools run in a rotated order each time
#   CONNECTIONS=64     parallel transfers for every tool (curl, aria2c, workers, wrk)
#   WRK_SECONDS=5      ENQUEUE_COUNT=100000 (0 skips the enqueue measurement)
#   NGINX_WORKERS=1    SCENARIOS=small-tmpfs,small-disk,large-disk
#   TOOLS=wrk,cp,curl,aria2,py1,py2,pd1,pd2
#   PREFETCHD_BIN=...  use this binary instead of building; PREFETCHD_ARGS / PYTHON_ARGS
#   BENCH_CACHE_DIR=/var/tmp/prefetchd-bench   generated corpus, kept between runs
#   BENCH_DISK_DIR=/var/tmp                    where the on-disk run tree goes (fresh each run)
#   RESULTS_DIR=bench-results   RUN_TIMEOUT=900 (seconds, per tool run)
# Exit status: 0, or 1 when a tool did not produce every file (timings are never judged).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/bench/lib.sh

SMALL_COUNT=${SMALL_COUNT:-10000}
LARGE_COUNT=${LARGE_COUNT:-100}
LARGE_MB=${LARGE_MB:-5}
REPS=${REPS:-3}
CONNECTIONS=${CONNECTIONS:-64}
WRK_SECONDS=${WRK_SECONDS:-5}
ENQUEUE_COUNT=${ENQUEUE_COUNT:-100000}
NGINX_WORKERS=${NGINX_WORKERS:-1}
SCENARIOS=${SCENARIOS:-small-tmpfs,small-disk,large-disk}
TOOLS=${TOOLS:-wrk,cp,curl,aria2,py1,py2,pd1,pd2}
# Same parallelism for everyone; prefetchd's default --per-host 16 would cap it at 16
# connections to the single origin host while the other tools use $CONNECTIONS.
PREFETCHD_ARGS=${PREFETCHD_ARGS:---concurrency $CONNECTIONS --per-host $CONNECTIONS}
PYTHON_ARGS=${PYTHON_ARGS:---concurrency $CONNECTIONS}
BENCH_DISK_DIR=${BENCH_DISK_DIR:-/var/tmp}
RESULTS_DIR=${RESULTS_DIR:-bench-results}
RUN_TIMEOUT=${RUN_TIMEOUT:-900}

shm=""
disk=""
runner=""
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [ -n "$runner" ] && kill -0 "$runner" 2>/dev/null; then
    kill -TERM "$runner" 2>/dev/null || true
    wait "$runner" 2>/dev/null || true
  fi
  if [ -n "$shm" ]; then
    stop_pidfile "$shm/nginx.pid"
    stop_pidfile "$shm/redis/redis.pid"
    rm -rf "$shm"
  fi
  if [ -n "$disk" ]; then
    echo "bench: removing the run tree $disk" >&2
    rm -rf "$disk"
  fi
  exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bench_ensure_deps
bench_prefetchd_bin

# The corpus, generated once per version and size, kept on disk between runs.
small_corpus="$BENCH_CACHE_DIR/corpus-v1/small-$SMALL_COUNT"
large_corpus="$BENCH_CACHE_DIR/corpus-v1/large-${LARGE_COUNT}x${LARGE_MB}M"
mkdir -p "$BENCH_CACHE_DIR/corpus-v1"
if [ ! -f "$small_corpus/MANIFEST" ]; then
  echo "bench: generating $SMALL_COUNT small images in $small_corpus" >&2
  "$BENCH_PY" scripts/bench/gen_corpus.py small "$small_corpus" "$SMALL_COUNT"
fi
if [[ $SCENARIOS == *large* ]] && [ ! -f "$large_corpus/MANIFEST" ]; then
  echo "bench: generating $LARGE_COUNT files of $LARGE_MB MiB in $large_corpus" >&2
  "$BENCH_PY" scripts/bench/gen_corpus.py large "$large_corpus" "$LARGE_COUNT" "$LARGE_MB"
fi

# Room on disk: every tool run keeps its tree until the end (see run.py).
runs_per_scenario=$(( $(tr ',' '\n' <<<"$TOOLS" | grep -cv '^wrk$') * REPS ))
need_mb=$(( runs_per_scenario * 2 * SMALL_COUNT * 25 / 1024 + 1024 ))
[[ $SCENARIOS == *large* ]] && need_mb=$(( need_mb + runs_per_scenario * LARGE_COUNT * LARGE_MB ))
avail_mb=$(df -Pm "$BENCH_DISK_DIR" | awk 'NR==2 {print $4}')
if [ "$avail_mb" -lt "$need_mb" ]; then
  echo "bench: $BENCH_DISK_DIR has $avail_mb MB free, the run needs about $need_mb MB" >&2
  exit 1
fi

shm=$(mktemp -d /dev/shm/prefetchd-bench.XXXXXX)
disk=$(mktemp -d "$BENCH_DISK_DIR/prefetchd-bench-run.XXXXXX")
mkdir -p "$shm/origin"
cp -r "$small_corpus" "$shm/origin/small"
# Warm the page cache for the disk origin, so the first tool does not pay for cold reads.
find "$small_corpus" -type f -exec cat {} + >/dev/null
[[ $SCENARIOS == *large* ]] && find "$large_corpus" -type f -exec cat {} + >/dev/null

origin_port=$(free_port)
start_nginx "$shm" "$origin_port" "$NGINX_WORKERS" \
  "shm=$shm/origin" "disk/small=$small_corpus" "disk/large=$large_corpus"
redis_port=$(free_port)
start_redis "$shm/redis" "$redis_port"
echo "bench: nginx on 127.0.0.1:$origin_port ($NGINX_WORKERS worker(s)), redis on 127.0.0.1:$redis_port" >&2

stamp=$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$RESULTS_DIR"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || commit="$commit (uncommitted changes)"
{
  echo "timestamp: $stamp"
  echo "commit: $commit"
  echo "prefetchd: $("$PREFETCHD_BIN" --version 2>&1 | head -1) $PREFETCHD_ARGS"
  echo "python_worker: $PYTHON_ARGS"
  echo "corpus: $SMALL_COUNT small images ($(awk '{s+=$2} END {printf "%.1f KB average", s/NR/1000}' "$small_corpus/MANIFEST")), $LARGE_COUNT × $LARGE_MB MiB"
  echo "repetitions: $REPS; connections: $CONNECTIONS; nginx worker_processes: $NGINX_WORKERS"
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(free -g | awk '/Mem:/ {print $2}') GiB, kernel $(uname -r)"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  bench_versions
} >"$shm/meta.txt"
"$BENCH_PY" -c 'import json, sys; print(json.dumps(dict(l.rstrip("\n").split(": ", 1) for l in open(sys.argv[1]))))' \
  "$shm/meta.txt" >"$shm/meta.json"
sed 's/^/bench: /' "$shm/meta.txt" >&2

status=0
: >"$shm/results.jsonl"
"$BENCH_PY" scripts/bench/run.py \
  --results "$shm/results.jsonl" --timing-dir "$shm/timing" \
  --origin-port "$origin_port" --redis-port "$redis_port" \
  --prefetchd "$PREFETCHD_BIN" --prefetchd-args "$PREFETCHD_ARGS" --python-args "$PYTHON_ARGS" \
  --shm-dir "$shm" --disk-dir "$disk" \
  --small-shm "$shm/origin/small" --small-disk "$small_corpus" --large-disk "$large_corpus" \
  --scenarios "$SCENARIOS" --tools "$TOOLS" --reps "$REPS" --connections "$CONNECTIONS" \
  --wrk-seconds "$WRK_SECONDS" --enqueue-count "$ENQUEUE_COUNT" --run-timeout "$RUN_TIMEOUT" &
runner=$!
wait "$runner" || status=$?
runner=""

echo
"$BENCH_PY" scripts/bench/report.py "$shm/results.jsonl" "$shm/meta.json" "$RESULTS_DIR/$stamp"
echo
echo "bench: results in $RESULTS_DIR/$stamp.md (.json, .csv)" >&2
if [ "$status" -ne 0 ]; then
  cp -r "$shm/timing" "$RESULTS_DIR/$stamp-logs" 2>/dev/null || true
  if [ "$status" -eq 1 ]; then
    echo "bench: a tool did not produce all files (FAILED above); logs kept in $RESULTS_DIR/$stamp-logs" >&2
  else
    echo "bench: the measurements stopped early (status $status); logs kept in $RESULTS_DIR/$stamp-logs" >&2
  fi
fi
exit "$status"
