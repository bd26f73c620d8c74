# Helpers shared by scripts/bench.sh and scripts/bench-memory.sh (sourced, not run).
# Needs scripts/lib.sh sourced first (free_port, wait_for, start_redis, stop_pidfile).

BENCH_CACHE_DIR=${BENCH_CACHE_DIR:-/var/tmp/prefetchd-bench}
BENCH_PY=${BENCH_PY:-python3}

_bench_sudo() { if [ "$(id -u)" -ne 0 ]; then sudo "$@"; else "$@"; fi; }

# Installs the Debian packages and Python modules the benchmarks use, when missing.
# Sets BENCH_PY to a Python that has them (a venv in $BENCH_CACHE_DIR when the system
# Python refuses pip installs).
bench_ensure_deps() {
  local -A pkg_for=(
    [nginx]=nginx-light [redis-server]=redis-server [redis-cli]=redis-tools [wrk]=wrk
    [aria2c]=aria2 [curl]=curl [python3]=python3 [/usr/bin/time]=time
  )
  local missing=() cmd
  for cmd in "${!pkg_for[@]}"; do
    command -v "$cmd" >/dev/null 2>&1 || missing+=("${pkg_for[$cmd]}")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "bench: installing ${missing[*]}" >&2
    _bench_sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive _bench_sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    # Debian may start the services it installs; the benchmark starts its own on free ports.
    local svc
    for svc in redis-server nginx; do
      _bench_sudo systemctl disable --now "$svc" >/dev/null 2>&1 || _bench_sudo service "$svc" stop >/dev/null 2>&1 || true
    done
  fi

  local modules="import redis, hiredis, aiohttp, PIL, uvloop"
  local pip_pkgs=(redis hiredis aiohttp Pillow uvloop)
  if ! "$BENCH_PY" -c "$modules" 2>/dev/null; then
    if [ -x "$BENCH_CACHE_DIR/venv/bin/python" ] && "$BENCH_CACHE_DIR/venv/bin/python" -c "$modules" 2>/dev/null; then
      BENCH_PY="$BENCH_CACHE_DIR/venv/bin/python"
    else
      echo "bench: installing Python modules: ${pip_pkgs[*]}" >&2
      if ! "$BENCH_PY" -m pip install --quiet --disable-pip-version-check "${pip_pkgs[@]}" 2>/dev/null; then
        # An externally managed Python (PEP 668): use a venv of our own.
        "$BENCH_PY" -m venv "$BENCH_CACHE_DIR/venv" 2>/dev/null || {
          DEBIAN_FRONTEND=noninteractive _bench_sudo apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
          "$BENCH_PY" -m venv "$BENCH_CACHE_DIR/venv"
        }
        BENCH_PY="$BENCH_CACHE_DIR/venv/bin/python"
        "$BENCH_PY" -m pip install --quiet --disable-pip-version-check "${pip_pkgs[@]}"
      fi
      "$BENCH_PY" -c "$modules"
    fi
  fi
  export BENCH_PY
}

# Builds prefetchd (release) unless PREFETCHD_BIN names a binary; sets PREFETCHD_BIN.
bench_prefetchd_bin() {
  if [ -n "${PREFETCHD_BIN:-}" ]; then
    [ -x "$PREFETCHD_BIN" ] || { echo "bench: PREFETCHD_BIN=$PREFETCHD_BIN is not executable" >&2; return 1; }
  else
    echo "bench: building prefetchd (release)" >&2
    swift build -c release --product prefetchd >&2
    PREFETCHD_BIN="$(swift build -c release --show-bin-path)/prefetchd"
  fi
  export PREFETCHD_BIN
}

# start_nginx STATE_DIR PORT WORKERS LOCATION=DIR...
# An nginx of our own on 127.0.0.1:PORT serving each DIR at /LOCATION/, tuned as a fast
# static origin: sendfile, keep-alive with a very high keepalive_requests, no access log,
# an open-file cache. Config, pid and error log live in STATE_DIR.
start_nginx() {
  local state=$1 port=$2 workers=$3
  shift 3
  mkdir -p "$state/tmp"
  local user_line=""
  [ "$(id -u)" -eq 0 ] && user_line="user root;"  # workers must read mktemp (0700) trees
  local locations="" spec
  for spec in "$@"; do
    locations+="    location /${spec%%=*}/ { alias ${spec#*=}/; }"$'\n'
  done
  local nofile
  nofile=$(ulimit -Hn)
  [ "$nofile" = unlimited ] && nofile=65536
  [ "$nofile" -gt 65536 ] && nofile=65536
  cat >"$state/nginx.conf" <<EOF
$user_line
worker_processes $workers;
# The open-file cache holds a descriptor per file and nginx answers 500 once it runs out
# (seen as curl exit 22 in disk runs): size it well inside the descriptor limit we have.
worker_rlimit_nofile $nofile;
pid $state/nginx.pid;
error_log $state/nginx-error.log warn;
events { worker_connections 8192; multi_accept on; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 300s;
    keepalive_requests 10000000;
    open_file_cache max=$(( nofile / 4 )) inactive=300s;
    open_file_cache_valid 600s;
    types { image/jpeg jpg; image/png png; application/octet-stream bin; }
    default_type application/octet-stream;
    client_body_temp_path $state/tmp/body;
    proxy_temp_path $state/tmp/proxy;
    fastcgi_temp_path $state/tmp/fastcgi;
    server {
        listen 127.0.0.1:$port backlog=4096;
$locations    }
}
EOF
  nginx -p "$state" -c "$state/nginx.conf" -e "$state/nginx-error.log"
  wait_for "curl -s -o /dev/null http://127.0.0.1:$port/" 10
}

# bench_versions: one line per tool version, for the results' metadata.
bench_versions() {
  echo "nginx: $(nginx -v 2>&1 | sed 's/.*nginx\///')"
  echo "redis-server: $(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p')"
  echo "curl: $(curl --version | head -1 | cut -d' ' -f2)"
  echo "aria2c: $(aria2c --version | head -1 | awk '{print $3}')"
  echo "wrk: $(wrk -v 2>&1 | head -1 | awk '{print $2}')"
  echo "python: $("$BENCH_PY" -c 'import sys, aiohttp, redis, uvloop; print(sys.version.split()[0], "aiohttp", aiohttp.__version__, "redis-py", redis.__version__, "uvloop", uvloop.__version__)')"
}
