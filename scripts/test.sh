#!/usr/bin/env bash
# Runs the whole test suite: installs missing packages, starts redis-server and the test
# HTTP origin on free loopback ports (own config, own pid files), runs `swift test`, and
# stops both servers whatever the outcome. Extra arguments go to `swift test`.
# The exit status is swift test's: its last line can say "passed" when an XCTest failed.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

scripts/install-deps.sh

state=$(mktemp -d /tmp/prefetchd-test.XXXXXX)
cleanup() {
  stop_pidfile "$state/origin.pid"
  stop_pidfile "$state/redis/redis.pid"
  rm -rf "$state"
}
trap cleanup EXIT

redis_port=$(free_port)
start_redis "$state/redis" "$redis_port"

origin_port=$(free_port)
mkdir -p "$state/origin"
python3 scripts/test-origin.py --port "$origin_port" --root "$state/origin" --pid-file "$state/origin.pid" \
  >"$state/origin.log" 2>&1 &
wait_for "curl -sf http://127.0.0.1:$origin_port/__stats" 10

export PREFETCH_TEST_REDIS_URL="redis://127.0.0.1:$redis_port"
export PREFETCH_TEST_ORIGIN="http://127.0.0.1:$origin_port"
export PREFETCH_TEST_ORIGIN_ROOT="$state/origin"
echo "test.sh: redis on $redis_port, origin on $origin_port"

set +e
swift build --build-tests && swift test --skip-build "$@"
status=$?
set -e
echo "test.sh: swift test exited with $status"
exit $status
