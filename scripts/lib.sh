# Shared helpers for the scripts (sourced, not run).

# A free TCP port on 127.0.0.1.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Waits up to $2 seconds (default 10) for `$1` (a command) to succeed.
wait_for() {
  local cmd=$1 timeout=${2:-10} i=0
  until eval "$cmd" >/dev/null 2>&1; do
    i=$((i + 1))
    if [ $i -gt $((timeout * 10)) ]; then echo "timed out waiting for: $cmd" >&2; return 1; fi
    sleep 0.1
  done
}

# start_redis DIR PORT: a redis-server of our own on loopback, pid in DIR/redis.pid.
start_redis() {
  local dir=$1 port=$2
  mkdir -p "$dir"
  redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --pidfile "$dir/redis.pid" \
    --save "" --appendonly no --daemonize yes --logfile "$dir/redis.log"
  wait_for "redis-cli -p $port ping | grep -q PONG" 10
}

stop_pidfile() {
  local f=$1
  [ -f "$f" ] || return 0
  local pid
  pid=$(cat "$f")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$f"
}
