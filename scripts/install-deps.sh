#!/usr/bin/env bash
# Installs what prefetchd needs on a fresh Debian 12 machine: the C libraries it links,
# pkg-config for SwiftPM, and the servers the tests and benchmarks start themselves.
# (apt-get install does not start redis-server or nginx; our scripts do, on loopback.)
set -euo pipefail

packages=(
  pkg-config
  libcurl4-openssl-dev libhiredis-dev libpng-dev libjpeg62-turbo-dev libssl-dev
  redis-server redis-tools nginx-light curl python3 openssl
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# Debian starts services it installs when it can; the project starts its own on other ports.
for svc in redis-server nginx; do
  $SUDO systemctl disable --now "$svc" >/dev/null 2>&1 || $SUDO service "$svc" stop >/dev/null 2>&1 || true
done
echo "install-deps: done"
