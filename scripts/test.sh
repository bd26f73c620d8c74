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
  stop_pidfile "$state/tls/nginx.pid"
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

# A TLS origin with HTTP/2 (nginx, self-signed certificate for 127.0.0.1) serving the same
# files, logging the protocol and connection of every request.
tls_port=$(free_port)
mkdir -p "$state/tls/tmp"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -addext "subjectAltName=IP:127.0.0.1" \
  -keyout "$state/tls/key.pem" -out "$state/tls/cert.pem" >/dev/null 2>&1
user_line=""; [ "$(id -u)" -eq 0 ] && user_line="user root;"
cat >"$state/tls/nginx.conf" <<NGINX
$user_line
worker_processes 1;
pid $state/tls/nginx.pid;
error_log $state/tls/error.log warn;
events { worker_connections 1024; }
http {
    log_format proto '\$server_protocol \$connection \$request_uri';
    access_log $state/tls/access.log proto;
    client_body_temp_path $state/tls/tmp/body;
    proxy_temp_path $state/tls/tmp/proxy;
    fastcgi_temp_path $state/tls/tmp/fastcgi;
    server {
        listen 127.0.0.1:$tls_port ssl http2;
        ssl_certificate $state/tls/cert.pem;
        ssl_certificate_key $state/tls/key.pem;
        location /files/ { alias $state/origin/; }
    }
}
NGINX
nginx -p "$state/tls" -c "$state/tls/nginx.conf" -e "$state/tls/error.log"

export PREFETCH_TEST_REDIS_URL="redis://127.0.0.1:$redis_port"
export PREFETCH_TEST_ORIGIN="http://127.0.0.1:$origin_port"
export PREFETCH_TEST_ORIGIN_ROOT="$state/origin"
export PREFETCH_TEST_TLS_ORIGIN="https://127.0.0.1:$tls_port"
export PREFETCH_TEST_CA_FILE="$state/tls/cert.pem"
export PREFETCH_TEST_TLS_LOG="$state/tls/access.log"
echo "test.sh: redis on $redis_port, origin on $origin_port"

set +e
swift build --build-tests && swift test --skip-build "$@"
status=$?
set -e
echo "test.sh: swift test exited with $status"
exit $status
