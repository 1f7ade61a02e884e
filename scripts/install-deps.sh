#!/usr/bin/env bash
# Installs every build, test and lab dependency from Debian 12 packages.
# Idempotent: does nothing (no apt-get update) when everything is present.
set -euo pipefail

PACKAGES=(
  # build
  cmake g++ make pkg-config git ccache
  libibverbs-dev prometheus-cpp-dev libcpp-httplib-dev libyaml-cpp-dev
  libnl-3-dev libnl-route-3-dev libcli11-dev libspdlog-dev libfmt-dev
  libsystemd-dev libssl-dev libcrypt-dev
  libgtest-dev libgmock-dev
  # fuzzing (scripts/fuzz.sh): clang with libFuzzer and the sanitizer runtimes
  clang-14 libclang-rt-14-dev
  # tests: promtool/prometheus, perftest to compare with, RDMA userspace, tools
  prometheus perftest rdma-core ibverbs-providers ibverbs-utils iproute2
  curl jq python3 python3-yaml openssl systemd nftables iputils-ping shellcheck
  # the Debian package (debian/, ctest -L package): build, lint, man page
  debhelper dpkg-dev fakeroot lintian help2man
  # the lab: Debian's kernel under qemu (TCG) with a busybox initramfs
  qemu-system-x86 busybox-static kmod xz-utils zstd cpio
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
