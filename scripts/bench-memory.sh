#!/usr/bin/env bash
# Memory under load: ONE prefetchd worker fetching many large bodies at once, on loopback.
# One body file (zeros) on /dev/shm is served by our own nginx under MEM_COUNT URLs
# (symlinks), so the origin costs MEM_MB of RAM, not MEM_COUNT × MEM_MB. The worker caches
# into a fresh directory on disk, removed afterwards. Prints the worker's peak RSS
# (/usr/bin/time -v), its RSS before any job, and the throughput.
#
# Knobs (environment):
#   MEM_COUNT=32  MEM_MB=100  MEM_CONCURRENCY=$MEM_COUNT  MAX_BODY_SIZE=200M
#   PREFETCHD_BIN=...  (else built in release mode)   PREFETCHD_ARGS=  (extra worker flags)
#   BENCH_DISK_DIR=/var/tmp (cache dir parent)   RESULTS_DIR=bench-results   RUN_TIMEOUT=600
# Exit status: 0, or 1 when not every body reached the cache (figures are never judged).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/bench/lib.sh

MEM_COUNT=${MEM_COUNT:-32}
MEM_MB=${MEM_MB:-100}
MEM_CONCURRENCY=${MEM_CONCURRENCY:-$MEM_COUNT}
MAX_BODY_SIZE=${MAX_BODY_SIZE:-200M}
PREFETCHD_ARGS=${PREFETCHD_ARGS:-}
BENCH_DISK_DIR=${BENCH_DISK_DIR:-/var/tmp}
RESULTS_DIR=${RESULTS_DIR:-bench-results}
RUN_TIMEOUT=${RUN_TIMEOUT:-600}

state=""
cache=""
worker=""
pid=""
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [ -n "$worker" ] && kill -0 "$worker" 2>/dev/null; then
    # $worker is /usr/bin/time; stop the worker itself ($pid), then time.
    [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null || true
    sleep 1
    kill -KILL "$worker" 2>/dev/null || true
  fi
  if [ -n "$state" ]; then
    stop_pidfile "$state/nginx.pid"
    stop_pidfile "$state/redis/redis.pid"
    rm -rf "$state"
  fi
  [ -n "$cache" ] && rm -rf "$cache"
  exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bench_ensure_deps
bench_prefetchd_bin

need_mb=$(( MEM_COUNT * MEM_MB + 512 ))
avail_mb=$(df -Pm "$BENCH_DISK_DIR" | awk 'NR==2 {print $4}')
if [ "$avail_mb" -lt "$need_mb" ]; then
  echo "bench-memory: $BENCH_DISK_DIR has $avail_mb MB free, the run needs about $need_mb MB" >&2
  exit 1
fi

state=$(mktemp -d /dev/shm/prefetchd-bench-mem.XXXXXX)
cache=$(mktemp -d "$BENCH_DISK_DIR/prefetchd-bench-mem-cache.XXXXXX")
mkdir -p "$state/bodies"
dd if=/dev/zero of="$state/body.bin" bs=1M count="$MEM_MB" status=none
for i in $(seq 1 "$MEM_COUNT"); do ln -s "$state/body.bin" "$state/bodies/$i.bin"; done

port=$(free_port)
start_nginx "$state" "$port" 1 "mem=$state/bodies"
redis_port=$(free_port)
start_redis "$state/redis" "$redis_port"
redis_url="redis://127.0.0.1:$redis_port"
rcli() { redis-cli -p "$redis_port" "$@"; }

# Start the worker on an empty queue, note its idle RSS, then give it every job at once.
"/usr/bin/time" -v -o "$state/time.txt" "$PREFETCHD_BIN" worker --redis "$redis_url" --prefix mem \
  --cache-dir "$cache" --concurrency "$MEM_CONCURRENCY" --per-host "$MEM_CONCURRENCY" \
  --max-body-size "$MAX_BODY_SIZE" --log-level warning $PREFETCHD_ARGS 2>"$state/worker.log" &
worker=$!
for _ in $(seq 100); do pid=$(pgrep -P "$worker" || true); [ -n "$pid" ] && break; sleep 0.05; done
[ -n "$pid" ] || { echo "bench-memory: the worker did not start" >&2; cat "$state/worker.log" >&2; exit 1; }
sleep 1
idle_kb=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")

for i in $(seq 1 "$MEM_COUNT"); do echo "http://127.0.0.1:$port/mem/$i.bin"; done >"$state/urls.txt"
t0=$(date +%s.%N)
"$PREFETCHD_BIN" enqueue --redis "$redis_url" --prefix mem <"$state/urls.txt" >/dev/null
sampled_kb=$idle_kb
deadline=$(( $(date +%s) + RUN_TIMEOUT ))
while :; do
  kb=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
  [ "${kb:-0}" -gt "$sampled_kb" ] && sampled_kb=$kb
  [ "$(rcli XLEN mem:events:log)" -ge "$MEM_COUNT" ] && break
  if ! kill -0 "$pid" 2>/dev/null; then echo "bench-memory: the worker exited early" >&2; break; fi
  [ "$(date +%s)" -gt "$deadline" ] && { echo "bench-memory: timed out after $RUN_TIMEOUT s" >&2; break; }
  sleep 0.02
done
t1=$(date +%s.%N)
kill -TERM "$pid" 2>/dev/null || true
wait "$worker" || true
worker=""

completed=$(rcli XRANGE mem:events:log - + | grep -c '"event":"completed"' || true)
stored=$(find "$cache" -type f -size "$(( MEM_MB * 1048576 ))c" ! -name '*.meta' ! -name '.*' | wc -l)
peak_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$state/time.txt")
cpu_s=$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$state/time.txt")
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')
mbps=$(awk -v n="$MEM_COUNT" -v mb="$MEM_MB" -v w="$wall" 'BEGIN {printf "%.1f", n * mb * 1.048576 / w}')

stamp=$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$RESULTS_DIR"
cat >"$RESULTS_DIR/$stamp-memory.json" <<EOF
{"timestamp":"$stamp","commit":"$(git rev-parse --short HEAD 2>/dev/null || echo unknown)","bodies":$MEM_COUNT,"body_mb":$MEM_MB,"concurrency":$MEM_CONCURRENCY,"max_body_size":"$MAX_BODY_SIZE","completed":$completed,"stored":$stored,"wall_s":$wall,"mb_per_s":$mbps,"peak_rss_mb":$(( peak_kb / 1024 )),"sampled_peak_rss_mb":$(( sampled_kb / 1024 )),"idle_rss_mb":$(( idle_kb / 1024 )),"cpu_s":$cpu_s}
EOF

cat <<EOF

prefetchd memory under load: $MEM_COUNT bodies × $MEM_MB MiB, one worker, --concurrency $MEM_CONCURRENCY --max-body-size $MAX_BODY_SIZE

| figure | value |
|---|---:|
| bodies stored / completed events | $stored / $completed of $MEM_COUNT |
| wall s (enqueue to last outcome) | $wall |
| MB/s | $mbps |
| peak RSS MB (/usr/bin/time -v) | $(( peak_kb / 1024 )) |
| peak RSS MB (sampled every 20 ms) | $(( sampled_kb / 1024 )) |
| idle RSS MB (before any job) | $(( idle_kb / 1024 )) |
| CPU s (user + sys, whole life) | $cpu_s |

EOF
echo "bench-memory: results in $RESULTS_DIR/$stamp-memory.json" >&2
[ "$stored" -eq "$MEM_COUNT" ] && [ "$completed" -eq "$MEM_COUNT" ]
