#!/usr/bin/env bash
# Fetches Debian's kernel for the lab and builds the lab initramfs. Idempotent.
#
#   tests/lab/fetch-kernel.sh          make sure kernel + initramfs are cached
#   tests/lab/fetch-kernel.sh --env    same, then print LAB_KVER/LAB_KERNEL/LAB_INITRD/LAB_MODROOT
#
# Cache: ${RXE_LAB_CACHE:-/var/cache/rxe-exporter-lab}
#   <kver>/root/            dpkg-deb -x of linux-image-<kver> (+ depmod), i.e. boot/ and lib/modules/
#   <kver>/vmlinux          the uncompressed kernel (PVH boot: skips ~6 s of TCG-emulated
#                           firmware + xz decompression); absent if the kernel lacks CONFIG_PVH
#   <kver>/initramfs-<hash>.cpio.gz   busybox-static + guest/init + the modules needed to mount 9p
#   current                 the kernel version to use (first one fetched, or RXE_LAB_KERNEL)
# The kernel version is taken from linux-image-amd64's dependency the first time and then
# stays fixed (no apt access at all when cached). RXE_LAB_KERNEL=<kver> picks another one;
# --refresh re-resolves linux-image-amd64.
set -Eeuo pipefail

LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${RXE_LAB_CACHE:-/var/cache/rxe-exporter-lab}
BUSYBOX=/bin/busybox
# Loaded by the initramfs before the host root is mounted (dependencies are added).
EARLY_MODULES=(virtio_pci 9pnet_virtio 9p overlay)

log() { echo "fetch-kernel: $*" >&2; }
trap 'log "failed (status $?) at line $LINENO: $BASH_COMMAND"' ERR
die() { log "ERROR: $*"; exit 1; }

need_tools() {
  local t missing=()
  for t in apt-get apt-cache dpkg-deb depmod modprobe cpio gzip; do
    command -v "$t" >/dev/null || missing+=("$t")
  done
  # No "| grep -q" under pipefail: grep exiting early makes the writer fail with SIGPIPE.
  [[ -x $BUSYBOX && $'\n'$("$BUSYBOX" --list)$'\n' == *$'\ninsmod\n'* ]] || missing+=("busybox-static")
  ((${#missing[@]} == 0)) || die "missing: ${missing[*]} (run scripts/install-deps.sh)"
}

# Prints the kernel version (e.g. 6.1.0-56-amd64) that linux-image-amd64 depends on.
resolve_kver() {
  local dep
  dep=$(apt-cache depends linux-image-amd64 2>/dev/null |
    sed -n 's/^ *Depends: linux-image-\([0-9].*\)$/\1/p' | sed -n 1p)
  if [[ -z $dep ]]; then
    log "linux-image-amd64 unknown to apt, running apt-get update"
    apt-get update -qq >&2
    dep=$(apt-cache depends linux-image-amd64 |
      sed -n 's/^ *Depends: linux-image-\([0-9].*\)$/\1/p' | sed -n 1p)
  fi
  [[ -n $dep ]] || die "cannot resolve linux-image-amd64's kernel version"
  echo "$dep"
}

pick_kver() {
  local refresh=$1
  if [[ -n ${RXE_LAB_KERNEL:-} ]]; then
    echo "$RXE_LAB_KERNEL"
  elif ((refresh == 0)) && [[ -s $CACHE/current && -e $CACHE/$(<"$CACHE/current")/root/.complete ]]; then
    cat "$CACHE/current"
  else
    resolve_kver
  fi
}

# Downloads linux-image-<kver> and extracts it into $CACHE/<kver>/root (once).
extract_kernel() {
  local kver=$1 kdir=$CACHE/$1 tmp deb
  [[ -e $kdir/root/.complete ]] && return 0
  log "downloading linux-image-$kver"
  tmp=$(mktemp -d "$CACHE/.dl.XXXXXX")
  # -o APT::Sandbox::User=root: the _apt user cannot write into our cache dir.
  (cd "$tmp" && apt-get download -qq -o APT::Sandbox::User=root "linux-image-$kver" >&2) ||
    { rm -rf "$tmp"; die "apt-get download linux-image-$kver failed (try apt-get update)"; }
  deb=$(ls "$tmp"/linux-image-*.deb)
  log "extracting $(basename "$deb")"
  rm -rf "$kdir/root"
  mkdir -p "$kdir/root"
  dpkg-deb -x "$deb" "$kdir/root"
  rm -rf "$tmp"
  [[ -f $kdir/root/boot/vmlinuz-$kver ]] || die "no boot/vmlinuz-$kver in the package"
  decompress_modules "$kdir/root/lib/modules/$kver"
  depmod -b "$kdir/root" "$kver"
  touch "$kdir/root/.complete"
}

# busybox insmod and a chrooted kmod both prefer plain .ko: unpack .ko.xz / .ko.zst if shipped.
decompress_modules() {
  local mdir=$1
  find "$mdir" -name '*.ko.xz' -exec xz -d -f {} + 2>/dev/null || true
  find "$mdir" -name '*.ko.zst' -exec zstd -q -d --rm -f {} + 2>/dev/null || true
  find "$mdir" -name '*.ko.gz' -exec gzip -d -f {} + 2>/dev/null || true
}

# Extracts the ELF vmlinux from the bzImage (qemu boots it directly through its PVH entry).
extract_vmlinux() {
  local kver=$1 kdir=$CACHE/$1 bz off magic cmd
  bz=$kdir/root/boot/vmlinuz-$kver
  [[ -s $kdir/vmlinux ]] && return 0
  grep -qx 'CONFIG_PVH=y' "$kdir/root/boot/config-$kver" 2>/dev/null || return 0
  for magic in $'\xfd7zXZ:xz' $'\x28\xb5\x2f\xfd:zstd' $'\x1f\x8b\x08:gzip'; do
    cmd=${magic##*:}
    off=$(LC_ALL=C grep -abo -m1 "${magic%:*}" "$bz" 2>/dev/null | head -n1 | cut -d: -f1) || true
    [[ -n $off ]] || continue
    tail -c +"$((off + 1))" "$bz" | "$cmd" -dc >"$kdir/vmlinux.tmp" 2>/dev/null || true
    if [[ $(head -c4 "$kdir/vmlinux.tmp" 2>/dev/null) == $'\x7fELF' ]]; then
      mv "$kdir/vmlinux.tmp" "$kdir/vmlinux"
      log "extracted vmlinux ($cmd) for PVH boot"
      return 0
    fi
  done
  rm -f "$kdir/vmlinux.tmp"
  log "could not extract vmlinux; booting the bzImage (slower)"
}

# Ordered list of .ko paths (relative to the module root) for EARLY_MODULES with dependencies.
early_module_paths() {
  local root=$1 kver=$2 m
  for m in "${EARLY_MODULES[@]}"; do
    modprobe -d "$root" -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
  done | awk '!seen[$0]++' | sed "s|^$root/*\./*||; s|^$root/*||"
}

initramfs_hash() {
  local root=$1 kver=$2
  {
    sha256sum "$LAB_DIR/guest/init" "$BUSYBOX"
    echo "${EARLY_MODULES[*]}"
    early_module_paths "$root" "$kver"
  } | sha256sum | cut -c1-16
}

build_initramfs() {
  local root=$1 kver=$2 out=$3 stage rel n=0
  stage=$(mktemp -d)
  mkdir -p "$stage"/{bin,sbin,dev,proc,sys,modules,labout,lower,host,rw}
  cp "$BUSYBOX" "$stage/bin/busybox"
  local a
  for a in $("$BUSYBOX" --list); do
    [[ $a == busybox ]] || ln -s busybox "$stage/bin/$a"
  done
  install -m 0755 "$LAB_DIR/guest/init" "$stage/init"
  : >"$stage/modules/order"
  while IFS= read -r rel; do
    n=$((n + 1))
    cp "$root/$rel" "$stage/modules/$(basename "$rel")"
    basename "$rel" >>"$stage/modules/order"
  done < <(early_module_paths "$root" "$kver")
  ((n > 0)) || die "no early modules resolved"
  (cd "$stage" && find . -print0 | LC_ALL=C sort -z |
    cpio --null -o -H newc --quiet --reproducible | gzip -1) >"$out.tmp"
  mv "$out.tmp" "$out"
  rm -rf "$stage"
  log "built $(basename "$out") ($n early modules)"
}

ensure_initramfs() {
  local kver=$1 root=$CACHE/$1/root hash out
  hash=$(initramfs_hash "$root" "$kver")
  out=$CACHE/$kver/initramfs-$hash.cpio.gz
  if [[ ! -s $out ]]; then
    # Older builds may still be in use by a running lab: only prune those unused for a day.
    find "$CACHE/$kver" -maxdepth 1 -name 'initramfs-*.cpio.gz' -mtime +1 -delete
    build_initramfs "$root" "$kver" "$out"
  fi
  touch "$out"
  echo "$out"
}

main() {
  local print_env=0 refresh=0 kver initrd
  while (($#)); do
    case $1 in
      --env) print_env=1 ;;
      --refresh) refresh=1 ;;
      -h | --help) sed -n '2,14p' "${BASH_SOURCE[0]}"; exit 0 ;;
      *) die "unknown argument: $1" ;;
    esac
    shift
  done
  need_tools
  mkdir -p "$CACHE"
  exec 9>"$CACHE/.lock"
  flock 9
  kver=$(pick_kver "$refresh")
  extract_kernel "$kver"
  extract_vmlinux "$kver"
  initrd=$(ensure_initramfs "$kver")
  [[ -n ${RXE_LAB_KERNEL:-} ]] || echo "$kver" >"$CACHE/current"
  if ((print_env)); then
    echo "LAB_KVER=$kver"
    if [[ -s $CACHE/$kver/vmlinux ]]; then
      echo "LAB_KERNEL=$CACHE/$kver/vmlinux"
    else
      echo "LAB_KERNEL=$CACHE/$kver/root/boot/vmlinuz-$kver"
    fi
    echo "LAB_INITRD=$initrd"
    echo "LAB_MODROOT=$CACHE/$kver/root"
  fi
}

main "$@"
