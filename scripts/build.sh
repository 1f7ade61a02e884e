#!/usr/bin/env bash
# Configures and builds everything into ${BUILD_DIR:-build}, through ccache when installed
# (scripts/lib/ccache.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
# shellcheck source=scripts/lib/ccache.sh
. scripts/lib/ccache.sh
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)"
