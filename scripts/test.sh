#!/usr/bin/env bash
# The whole test suite: installs dependencies, builds, then runs every unit
# test and every lab test (real rdma_rxe in qemu VMs) through ctest.
#   scripts/test.sh              all tests
#   scripts/test.sh -L unit      only unit tests (any ctest arguments are passed on)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
BUILD_DIR=${BUILD_DIR:-build}
# Kernel + initramfs for the lab (cached after the first run).
tests/lab/fetch-kernel.sh
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$(nproc)" "$@"
