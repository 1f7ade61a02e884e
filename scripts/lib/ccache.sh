# shellcheck shell=bash
# Sourced by build.sh, sanitize.sh and fuzz.sh from the repository root: sets `launcher` to the
# CMake arguments that compile through ccache when it is installed (scripts/install-deps.sh
# installs it). CCACHE_BASEDIR makes the cache shared between clones and worktrees of this
# repository (the paths below it are hashed relative to the build dir).
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
  # shellcheck disable=SC2034  # used by the sourcing script
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
