#!/usr/bin/env bash
# Profiles one prefetchd worker under load with `perf record` (software clock: this
# machine has no hardware counters), on loopback: nginx serves the small corpus from
# /dev/shm, a private redis-server holds the queue, the cache goes to /dev/shm.
#   COUNT=10000 scripts/bench/profile.sh [extra worker flags]
# Prints the hottest symbols; the raw profile stays in $STATE/perf.data.
# PROFILER=none runs the worker under /usr/bin/time only (jobs/s and CPU seconds);
# PROFILER=strace counts system calls per job.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib.sh
. scripts/bench/lib.sh
COUNT=${COUNT:-10000}
STATE=${STATE:-$(mktemp -d /tmp/prefetchd-profile.XXXXXX)}
corpus=/var/tmp/prefetchd-bench/corpus-v1/small-$COUNT
[ -f "$corpus/MANIFEST" ] || python3 scripts/bench/gen_corpus.py small "$corpus" "$COUNT" >/dev/null
command -v perf >/dev/null || apt-get install -y -qq linux-perf >/dev/null
swift build -c release --product prefetchd >/dev/null
bin="$(swift build -c release --show-bin-path)/prefetchd"

cleanup() { stop_pidfile "$STATE/nginx.pid"; stop_pidfile "$STATE/redis/redis.pid"; rm -rf /dev/shm/prefetchd-profile-*; }
trap cleanup EXIT
rm -rf /dev/shm/prefetchd-profile-*
origin=/dev/shm/prefetchd-profile-origin; cache=/dev/shm/prefetchd-profile-cache
cp -r "$corpus" "$origin"
nport=$(free_port); rport=$(free_port)
start_nginx "$STATE" "$nport" 1 "s=$origin"
start_redis "$STATE/redis" "$rport"
ls "$origin" | grep -v MANIFEST | sed "s|^|http://127.0.0.1:$nport/s/|" > "$STATE/urls"
"$bin" enqueue --redis "redis://127.0.0.1:$rport" --prefix p < "$STATE/urls" >/dev/null
total=$(wc -l < "$STATE/urls")

PROFILER=${PROFILER:-perf}
case $PROFILER in
  perf) wrap=(perf record -F 2000 -g -o "$STATE/perf.data" --) ;;
  strace) wrap=(strace -f -c -o "$STATE/strace.txt") ;;
  *) wrap=(/usr/bin/time -f "worker: %U s user, %S s system, %M KB peak RSS, %w voluntary and %c involuntary context switches" -o "$STATE/time.txt") ;;
esac
"${wrap[@]}" "$bin" worker --redis "redis://127.0.0.1:$rport" --prefix p \
  --cache-dir "$cache" --concurrency 64 --per-host 64 --log-level warning "$@" 2>"$STATE/perf.log" &
pid=$!
redis_cpu() { redis-cli -p "$rport" INFO cpu | awk -F: '/used_cpu_(sys|user):/ {s+=$2} END {print s}'; }
redis_before=$(redis_cpu)
machine_cpu() { awk '/^cpu / {print $2+$3+$4+$6+$7+$8, $5}' /proc/stat; }
read -r busy_before idle_before <<<"$(machine_cpu)"
start=$(date +%s.%N)
until [ "$(redis-cli -p "$rport" XLEN p:events:log)" -ge "$total" ]; do sleep 0.01; done
end=$(date +%s.%N)
read -r busy_after idle_after <<<"$(machine_cpu)"
echo "machine busy during the run: $(python3 -c "b=$busy_after-$busy_before; i=$idle_after-$idle_before; print(round(100*b/(b+i)))") % of all cores"
echo "redis-server CPU during the run: $(python3 -c "print(round($(redis_cpu)-$redis_before,2))") s"
pkill -TERM -f "^$bin worker --redis redis://127.0.0.1:$rport" || true
while pgrep -f "^$bin worker --redis redis://127.0.0.1:$rport" >/dev/null; do sleep 0.05; done
wait $pid || true
echo "profile: $total jobs in $(python3 -c "print(round($end-$start,2))") s ($(python3 -c "print(round($total/($end-$start)))") jobs/s, includes start-up and profiler overhead)"
case $PROFILER in
  perf) ;;
  strace) sort -k4 -n -r "$STATE/strace.txt" | head -25; exit 0 ;;
  *) cat "$STATE/time.txt"; exit 0 ;;
esac
perf report -i "$STATE/perf.data" --no-children --sort comm,dso,symbol --percent-limit 0.7 --stdio 2>/dev/null | grep -v "^$" | grep -v "^#" | grep "%" | head -60
