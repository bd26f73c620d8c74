#!/usr/bin/env bash
# Measures image verification and thumbnail costs: builds the prefetchd-imagebench target
# in release mode and runs it. Prints, per file: verification at each level for ~20 KB JPEG
# and PNG, and decode + thumbnail for 1080p JPEG and PNG; then thumbnail throughput through
# ImageProcessingPool on all cores.
# Usage: scripts/bench-image.sh [SECONDS_PER_FIGURE]   (default 1)
# Figures are wall-clock on a shared machine: run it when nothing else is building.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product prefetchd-imagebench
exec "$(swift build -c release --show-bin-path)/prefetchd-imagebench" "${1:-1}"
