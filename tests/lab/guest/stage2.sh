#!/bin/sh
# rxe lab, stage 2 (busybox sh, run by the initramfs /init from /labout/.lab/stage2.sh).
# Builds the chroot (/host = overlay of the read-only host root + tmpfs), loads the RDMA
# modules, sets up the network and rxe0, runs the case script chrooted, reports its status
# and powers off. lab.sh copies this file into $LAB_OUT/.lab/ for every run.
PATH=/bin:/sbin
export PATH
CTL=/labout/.lab
OUT=/dev/ttyS1 # the script's stream (host: prefixed, vmI.log); ttyS0 is the kernel console

say() { echo "lab[vm${LABI_INDEX:-?}]: $*" >"$OUT"; }
mark() { echo "lab-stage2: $*" >/dev/kmsg; } # timestamped in dmesg (boot profiling)
finish() { # status
  kill -KILL -1 2>/dev/null # leftovers of the script would keep ttyS1 open
  echo "$1" >"$CTL/vm$LABI_INDEX.status.tmp" && mv "$CTL/vm$LABI_INDEX.status.tmp" "$CTL/vm$LABI_INDEX.status"
  dmesg >"$CTL/vm$LABI_INDEX.dmesg" 2>/dev/null
  # The NIC's view at the end (a VM whose virtio-net stopped transmitting was seen once: its
  # peers got "No route to host", rxe's QPs were held by unsent skbs): packet and queue counters.
  { chroot /host /sbin/ip -s -s link show
    chroot /host /sbin/tc -s qdisc show
    grep -i virtio /proc/interrupts; } >"$CTL/vm$LABI_INDEX.net" 2>&1
  echo "LAB_EXIT=$1" >"$OUT" # closing the tty waits until it is sent
  sync
  poweroff -f
  sleep 10
}
die() {
  say "setup failed: $*"
  mkdir -p /labout/.sync # make the other VMs' lib.sh waits fail at once (lab_abort)
  [ -e /labout/.sync/abort ] || echo "vm$LABI_INDEX: setup failed: $*" >/labout/.sync/abort
  finish 3
}

cmdline_index() {
  # shellcheck disable=SC2013 # words wanted
  for w in $(cat /proc/cmdline); do
    case $w in lab.index=*) echo "${w#lab.index=}" ;; esac
  done
}

LABI_INDEX=$(cmdline_index)
[ -n "$LABI_INDEX" ] || die "no lab.index= on the kernel command line"
[ -r "$CTL/vm$LABI_INDEX.env" ] || die "no $CTL/vm$LABI_INDEX.env"
# shellcheck source=/dev/null # written by lab.sh
. "$CTL/vm$LABI_INDEX.env"
hostname "vm$LABI_INDEX"
stty -F "$OUT" 115200 raw -echo 2>/dev/null

setup_root() {
  mount -t tmpfs -o mode=0755 tmpfs /rw || die "tmpfs /rw"
  mkdir -p /rw/upper /rw/work
  mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work /host ||
    die "overlay mount"
  mount -t proc proc /host/proc
  mount -t sysfs sysfs /host/sys
  mount -t devtmpfs devtmpfs /host/dev
  mkdir -p /host/dev/pts /host/dev/shm
  ln -sfn /proc/self/fd /host/dev/fd # what udev would add (bash process substitution needs it)
  ln -sfn /proc/self/fd/0 /host/dev/stdin
  ln -sfn /proc/self/fd/1 /host/dev/stdout
  ln -sfn /proc/self/fd/2 /host/dev/stderr
  mount -t devpts -o newinstance,ptmxmode=0666 devpts /host/dev/pts
  mount -t tmpfs -o mode=1777 tmpfs /host/dev/shm
  # /tmp and /var/tmp stay the overlay's (host files visible, writes in RAM); /run is fresh.
  mount -t tmpfs -o mode=0755 tmpfs /host/run
  [ -d /host/sys/kernel/debug ] && mount -t debugfs debugfs /host/sys/kernel/debug 2>/dev/null
  mkdir -p "/host$LAB_OUT" || die "cannot create $LAB_OUT in the guest"
  mount --bind /labout "/host$LAB_OUT" || die "bind $LAB_OUT"
  # modprobe in the chroot (and kernel module autoloading) uses the cached kernel tree.
  mkdir -p /host/usr/lib/modules
  ln -sfn "$LABI_MODROOT/lib/modules/$LABI_KVER" "/host/usr/lib/modules/$LABI_KVER"
  printf '#!/bin/sh\nexec chroot /host /sbin/modprobe "$@"\n' >/sbin/lab-modprobe
  chmod 0755 /sbin/lab-modprobe
  echo /sbin/lab-modprobe >/proc/sys/kernel/modprobe
}

load_modules() {
  # shellcheck disable=SC2086 # word splitting wanted
  chroot /host /sbin/modprobe -a $LABI_MODULES >"$OUT" 2>&1 || die "modprobe -a $LABI_MODULES"
}

# Prints the name of the netdev whose MAC is $1 (waits up to 5 s for it to appear).
netdev_by_mac() {
  n=0
  while [ $n -lt 50 ]; do
    for d in /sys/class/net/*; do
      [ "$(cat "$d/address" 2>/dev/null)" = "$1" ] && { echo "${d##*/}"; return 0; }
    done
    usleep 100000
    n=$((n + 1))
  done
  return 1
}

# Network setup as one `ip -batch` of the host's iproute2 (busybox ip knows no veth; one exec
# of a dynamically linked binary over 9p costs ~0.1-0.2 s of emulated time).
net_batch() {
  echo "link set lo up"
  if [ "$LABI_TOPOLOGY" = veth ]; then
    echo "link add veth0 mtu $LABI_MTU address $LABI_MAC type veth" \
      "peer name veth1 mtu $LABI_MTU address $LABI_PEER_MAC"
    echo "addr add $LAB_IP/24 dev veth0"
    echo "link set veth1 up"
    echo "link set veth0 up"
  else
    echo "link set $1 name labtmp0"
  fi
  if [ -n "$LABI_FWD_MAC" ]; then
    echo "link set $2 name labtmp1"
    echo "link set labtmp1 name eth1"
    echo "addr add 10.0.2.15/24 dev eth1"
    echo "link set eth1 up"
  fi
  if [ "$LABI_TOPOLOGY" != veth ]; then
    echo "link set labtmp0 name $LAB_NETDEV"
    echo "link set $LAB_NETDEV mtu $LABI_MTU"
    echo "addr add $LAB_IP/24 dev $LAB_NETDEV"
    echo "link set $LAB_NETDEV up"
  fi
}

setup_net() {
  nic="" fwd=""
  if [ "$LABI_TOPOLOGY" != veth ]; then
    nic=$(netdev_by_mac "$LABI_MAC") || die "no NIC with MAC $LABI_MAC"
  fi
  if [ -n "$LABI_FWD_MAC" ]; then
    fwd=$(netdev_by_mac "$LABI_FWD_MAC") || die "no NIC with MAC $LABI_FWD_MAC"
  fi
  net_batch "$nic" "$fwd" | chroot /host /sbin/ip -batch - >"$OUT" 2>&1 ||
    die "network setup failed: $(net_batch "$nic" "$fwd" | tr '\n' ';')"
}

# 10.77.0.10 -> 0000:0000:0000:0000:0000:ffff:0a4d:000a (sysfs form of the IPv4 RoCE GID)
ipv4_gid() {
  IFS=. read -r a b c d <<EOF
$1
EOF
  printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "$a" "$b" "$c" "$d"
}

setup_rxe() {
  port=/sys/class/infiniband/$LAB_RDMA_DEV/ports/1
  chroot /host rdma link add "$LAB_RDMA_DEV" type rxe netdev "$LAB_NETDEV" >"$OUT" 2>&1 ||
    die "rdma link add $LAB_RDMA_DEV type rxe netdev $LAB_NETDEV"
  gid=$(ipv4_gid "$LAB_IP")
  n=0
  while [ $n -lt 200 ]; do # 20 s
    # Only the first 100 slots: reading a gid file costs ~5 ms here (1024 of them).
    if grep -q ACTIVE "$port/state" 2>/dev/null &&
      grep -qx "$gid" "$port"/gids/? "$port"/gids/?? 2>/dev/null; then
      return 0
    fi
    usleep 100000
    n=$((n + 1))
  done
  die "$LAB_RDMA_DEV port 1 not ACTIVE with GID $gid after 20 s: $(cat "$port/state" 2>&1)"
}

run_script() {
  cut -d' ' -f1 /proc/uptime >"$CTL/vm$LABI_INDEX.ready"
  chroot /host /usr/bin/env -i LAB_INDEX="$LABI_INDEX" /bin/bash "$LAB_OUT/.lab/launch.sh" \
    </dev/null >"$OUT" 2>&1
}

mark start
setup_root
mark root ready
load_modules
mark modules loaded
setup_net
mark network up
setup_rxe
mark "$LAB_RDMA_DEV active, running the script"
run_script
rc=$?
mark "script exited with $rc"
finish $rc
