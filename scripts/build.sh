#!/usr/bin/env bash
# Configures and builds everything into ${BUILD_DIR:-build}.
# With ccache installed (scripts/install-deps.sh installs it) compiles are cached; CCACHE_BASEDIR
# makes the cache shared between clones and worktrees of this repository (the paths below it
# are hashed relative to the build dir).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)"
