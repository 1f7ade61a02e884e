#!/usr/bin/env bash
# The main job: rxe_exporter on a real rxe device.
# - This kernel has RDMA devices: run the daemon here (config: $RXE_CONFIG or
#   config/examples/rxe_exporter.yml) until Ctrl-C.
# - It has none (dev/CI machines): boot Debian's kernel in the lab VM (tests/lab),
#   create rxe0, run the daemon there probing itself, drive perftest traffic,
#   print /metrics and serve it on http://127.0.0.1:19791/metrics for
#   DEMO_SERVE_SECONDS (default 60).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
BUILD_DIR=$(realpath "${BUILD_DIR:-build}")

if compgen -G "/sys/class/infiniband/*" >/dev/null; then
  echo "demo: RDMA devices found on this host; running rxe_exporter here (Ctrl-C stops)"
  exec "$BUILD_DIR/exporter/rxe_exporter" --config.file "${RXE_CONFIG:-config/examples/rxe_exporter.yml}"
fi

echo "demo: this kernel has no RDMA; running rxe_exporter on a real rxe0 in the lab VM"
tests/lab/fetch-kernel.sh
serve=${DEMO_SERVE_SECONDS:-60}
LAB_BUILD="$BUILD_DIR" exec tests/lab/lab.sh --vms 1 --smp 2 \
  --timeout $((serve + 300)) --hostfwd 19791:19791 --out "$BUILD_DIR/lab-out/demo" -- tests/lab/demo.sh "$serve"
