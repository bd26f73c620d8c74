#!/usr/bin/env bash
# Runs the main job: builds prefetchd in release mode and starts one worker.
# With no Redis configured (no PREFETCH_REDIS_URL, no --redis), it uses a redis-server on
# 127.0.0.1:6379, starting one of its own (data in ./var/redis) if none answers there.
# The cache goes to $PREFETCH_CACHE_DIR, default ./var/cache. Extra arguments go to
# `prefetchd worker`. Ctrl-C stops the worker gracefully (and the Redis it started).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

scripts/install-deps.sh
swift build -c release --product prefetchd
bin="$(swift build -c release --show-bin-path)/prefetchd"

started_redis=""
if [ -z "${PREFETCH_REDIS_URL:-}" ] && [[ " $* " != *" --redis"* ]]; then
  if redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; then
    echo "run.sh: using the redis-server already on 127.0.0.1:6379"
  else
    echo "run.sh: starting redis-server on 127.0.0.1:6379 (data in var/redis)"
    start_redis "$PWD/var/redis" 6379
    started_redis="$PWD/var/redis/redis.pid"
  fi
  export PREFETCH_REDIS_URL="redis://127.0.0.1:6379"
fi
export PREFETCH_CACHE_DIR="${PREFETCH_CACHE_DIR:-$PWD/var/cache}"

"$bin" worker "$@" &
worker=$!
trap 'kill -TERM $worker 2>/dev/null || true' INT TERM
status=0
wait $worker || status=$?
# A signal interrupts the first wait; wait again for the graceful exit.
if kill -0 $worker 2>/dev/null; then wait $worker || status=$?; fi
[ -n "$started_redis" ] && stop_pidfile "$started_redis"
exit $status
