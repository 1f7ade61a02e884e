#!/usr/bin/env bash
# Helpers for lab case scripts (run inside the VMs). Source it:
#   . "$(dirname "$0")/../lib.sh"        (from tests/lab/cases/)
# Coordination between VMs goes through files in $LAB_OUT (a 9p share, no caching, so a
# file created by one VM is visible to the others at once). Timeouts are in seconds.
# Every waiting helper returns 1 (after a message on stderr) when it times out.

: "${LAB_OUT:?lib.sh is for scripts run by tests/lab/lab.sh}"
LAB_SYNC=$LAB_OUT/.sync
mkdir -p "$LAB_SYNC"

# Under TCG every fork+exec costs ~0.1 s of vCPU (awk, date, sleep: measured 75-130 ms each),
# taken from the daemon under test on a 1-vCPU VM; a 0.1 s poll loop of `date` and `sleep`
# kept a waiting VM ~2/3 busy. So the helpers below poll with builtins only: time from
# $EPOCHREALTIME / $SECONDS, sleep as a read timeout on a pipe nobody writes to.
exec {LAB_SLEEP_FD}<> <(:)
# lab_sleep SECONDS: sleeps (fractions allowed) without a process.
# A read that fails other than by its timeout (status > 128: a bad argument, a closed fd) would
# return at once and turn a poll loop into a busy loop: fall back to sleep(1) then.
lab_sleep() { read -rt "${1:?lab_sleep SECONDS}" -u "$LAB_SLEEP_FD" _ || (($? > 128)) || sleep "$1"; }
# lab_now_ms: the wall clock in ms, into LAB_NOW_MS (no subshell).
lab_now_ms() { LAB_NOW_MS=${EPOCHREALTIME//[!0-9]/}; LAB_NOW_MS=$((10#$LAB_NOW_MS / 1000)); }

lab_log() {
  local t=${EPOCHREALTIME//[!0-9]/}
  printf '[%(%T)T.%03d] %s\n' "${t:0:${#t}-6}" "$((10#${t:${#t}-6} / 1000))" "$*"
}

# lab_fail MSG: prints MSG, tells the other VMs to stop waiting (lab_abort) and exits 1.
lab_fail() {
  echo "FAIL[vm${LAB_INDEX}]: $*" >&2
  lab_abort "$*"
  exit 1
}

# lab_abort [MSG]: makes every lab_wait_* / lab_barrier in all VMs fail at once. Called by
# lab_fail, and by the EXIT trap set below when a script exits non-zero (e.g. set -e).
# A script that sets its own EXIT trap replaces that one and should call lab_abort itself.
lab_abort() {
  [[ -e $LAB_SYNC/abort ]] || echo "vm$LAB_INDEX: ${1:-exited with an error}" >"$LAB_SYNC/abort"
}
lab__on_exit() { (($1 == 0)) || lab_abort "exited with status $1"; }
trap 'lab__on_exit $?' EXIT

# lab_wait_file PATH TIMEOUT: waits until PATH exists (polls every 0.1 s).
lab_wait_file() {
  local path=$1 timeout=${2:?lab_wait_file PATH TIMEOUT} end
  lab_now_ms
  end=$((LAB_NOW_MS + timeout * 1000))
  until [[ -e $path ]]; do
    if [[ -e $LAB_SYNC/abort && $path != "$LAB_SYNC/abort" ]]; then
      echo "lab_wait_file: $path: aborted ($(cat "$LAB_SYNC/abort"))" >&2
      return 1
    fi
    lab_now_ms
    if ((LAB_NOW_MS > end)); then
      echo "lab_wait_file: $path did not appear within $timeout s" >&2
      return 1
    fi
    lab_sleep 0.1
  done
}

# lab_signal NAME: announces event NAME to all VMs (creates $LAB_OUT/.sync/NAME atomically).
lab_signal() {
  local f=$LAB_SYNC/${1:?lab_signal NAME}
  echo "$LAB_INDEX" >"$f.tmp.$LAB_INDEX" && mv -f "$f.tmp.$LAB_INDEX" "$f"
}

# lab_wait_signal NAME [TIMEOUT=120]: waits until some VM has called lab_signal NAME.
lab_wait_signal() { lab_wait_file "$LAB_SYNC/${1:?lab_wait_signal NAME}" "${2:-120}"; }

# lab_barrier NAME [TIMEOUT=120]: returns once all $LAB_NVMS VMs have reached barrier NAME.
# Use each NAME once per run.
lab_barrier() {
  local name=${1:?lab_barrier NAME} timeout=${2:-120} i
  lab_signal "barrier.$name.vm$LAB_INDEX"
  for ((i = 0; i < LAB_NVMS; i++)); do
    lab_wait_file "$LAB_SYNC/barrier.$name.vm$i" "$timeout" ||
      { echo "lab_barrier $name: vm$i did not arrive" >&2; return 1; }
  done
}

# lab_wait_listen PORT [TIMEOUT=30]: waits until a local TCP socket listens on PORT
# (e.g. a perftest server; probing it with a connect would use up its one connection).
lab_wait_listen() {
  local port=${1:?lab_wait_listen PORT} timeout=${2:-30} end
  end=$((SECONDS + timeout))
  until lab__listening "$port"; do
    if ((SECONDS > end)); then
      echo "lab_wait_listen: nothing listens on TCP $port after $timeout s" >&2
      return 1
    fi
    lab_sleep 0.1
  done
}
# lab__listening PORT: true if a TCP socket (IPv4 or IPv6) listens on PORT, read from
# /proc/net/tcp{,6} with builtins (state 0A = LISTEN, local port in hex).
lab__listening() {
  local hex f _sl addr _rem st _rest
  printf -v hex '%04X' "$1"
  for f in /proc/net/tcp /proc/net/tcp6; do
    [[ -r $f ]] || continue
    while read -r _sl addr _rem st _rest; do
      [[ $st == 0A && ${addr##*:} == "$hex" ]] && return 0
    done <"$f"
  done
  return 1
}

# lab_kill_vm K [TIMEOUT=10]: asks the host to hard-kill VM K (its qemu gets SIGKILL) and
# waits until that happened. The killed VM counts as "killed", not as a failure.
lab_kill_vm() {
  local k=${1:?lab_kill_vm K}
  touch "$LAB_OUT/.kill-vm-$k"
  lab_wait_file "$LAB_OUT/.killed-vm-$k" "${2:-10}"
}

# lab_stop_vm K [TIMEOUT=10] / lab_cont_vm K [TIMEOUT=10]: asks the host to freeze VM K
# (SIGSTOP of its qemu: it stops answering at once, like a killed VM) / to resume it, and
# waits until that happened. lab_kill_vm works on a stopped VM.
lab_stop_vm() {
  local k=${1:?lab_stop_vm K}
  touch "$LAB_OUT/.stop-vm-$k"
  lab_wait_file "$LAB_OUT/.stopped-vm-$k" "${2:-10}"
}
lab_cont_vm() {
  local k=${1:?lab_cont_vm K}
  touch "$LAB_OUT/.cont-vm-$k"
  lab_wait_file "$LAB_OUT/.continued-vm-$k" "${2:-10}"
}

# lab_rdma_port_state: prints the state word of $LAB_RDMA_DEV port 1 (e.g. ACTIVE).
lab_rdma_port_state() {
  local s
  s=$(cat "/sys/class/infiniband/$LAB_RDMA_DEV/ports/1/state")
  echo "${s#*: }"
}

# lab_gid_index: prints the RoCE v2 GID index of $LAB_IP (::ffff:a.b.c.d) on port 1 of
# $LAB_RDMA_DEV, as perftest's -x wants it; fails if there is none.
lab_gid_index() {
  local want f idx
  # shellcheck disable=SC2086  # the dots become printf arguments
  want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${LAB_IP//./ })
  for f in /sys/class/infiniband/"$LAB_RDMA_DEV"/ports/1/gids/*; do
    idx=${f##*/}
    [[ $(cat "$f" 2>/dev/null) == "$want" ]] || continue
    [[ $(cat "/sys/class/infiniband/$LAB_RDMA_DEV/ports/1/gid_attrs/types/$idx" 2>/dev/null) == "RoCE v2" ]] &&
      { echo "$idx"; return 0; }
  done
  return 1
}

# lab_active_mtu: the active_mtu of $LAB_RDMA_DEV's port (ibv_devinfo), e.g. 4096.
lab_active_mtu() { ibv_devinfo -d "$LAB_RDMA_DEV" | awk '/active_mtu:/ {print $2; exit}'; }

# lab_set_mtu NETDEV_MTU WANT_ACTIVE: sets $LAB_NETDEV's MTU and waits (up to 5 s) until rxe's
# active_mtu follows to WANT_ACTIVE; fails the case otherwise.
lab_set_mtu() {
  local i
  ip link set "$LAB_NETDEV" mtu "$1"
  for ((i = 0; i < 50; i++)); do
    [[ $(lab_active_mtu) == "$2" ]] && return 0
    lab_sleep 0.1
  done
  lab_fail "active_mtu did not become $2 after netdev mtu $1 (is $(lab_active_mtu))"
}

# lab_hw_counter NAME: prints a hw counter of $LAB_RDMA_DEV port 1 (e.g. sent_pkts).
lab_hw_counter() { cat "/sys/class/infiniband/$LAB_RDMA_DEV/ports/1/hw_counters/${1:?NAME}"; }

# lab_bg_wait PID [TIMEOUT=60]: waits for a background child with a timeout; kills it on
# timeout, or when another VM failed (lab_abort: e.g. a perftest server whose client VM
# failed would otherwise hold the whole run for TIMEOUT). Returns its exit status (124 on
# timeout, 1 on abort).
lab_bg_wait() {
  local pid=${1:?lab_bg_wait PID} timeout=${2:-60} end
  end=$((SECONDS + timeout))
  while kill -0 "$pid" 2>/dev/null; do
    if [[ -e $LAB_SYNC/abort ]]; then
      kill -KILL "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
      echo "lab_bg_wait: pid $pid killed: aborted ($(cat "$LAB_SYNC/abort"))" >&2
      return 1
    fi
    if ((SECONDS > end)); then
      kill -KILL "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
      echo "lab_bg_wait: pid $pid still running after $timeout s, killed" >&2
      return 124
    fi
    lab_sleep 0.1
  done
  wait "$pid"
}

# lab_rdma_res: "pd=N cq=N qp=N mr=N" of $LAB_RDMA_DEV from `rdma resource show`.
lab_rdma_res() {
  local line k out=""
  line=$(rdma resource show "$LAB_RDMA_DEV") || return 1
  for k in pd cq qp mr; do
    out+="$k=$(awk -v k="$k" '{for (i = 1; i < NF; i++) if ($i == k) {print $(i + 1); exit}}' <<<"$line") "
  done
  echo "${out% }"
}

# lab_fd_count PID: open file descriptors of PID.
lab_fd_count() { find "/proc/${1:?lab_fd_count PID}/fd" -mindepth 1 -maxdepth 1 | wc -l; }

# lab_proc_ticks PID: utime + stime of PID in clock ticks (/proc/PID/stat fields 14 and 15,
# counted after the ")" that ends the command name, which may hold spaces). No fork.
lab_proc_ticks() {
  local stat stat_fields
  read -r stat <"/proc/${1:?lab_proc_ticks PID}/stat" || return
  read -ra stat_fields <<<"${stat##*) }"
  echo $((stat_fields[11] + stat_fields[12]))
}

# lab_status_kb PID FIELD: the value of a /proc/PID/status field in kB (VmRSS, VmHWM), or
# nothing if PID has no such field (a kernel thread has no VmRSS). No fork.
lab_status_kb() {
  local k v
  while read -r k v _; do
    if [[ $k == "${2:?lab_status_kb PID FIELD}:" ]]; then echo "$v"; return 0; fi
  done <"/proc/${1:?lab_status_kb PID FIELD}/status"
}

# LAB_AWK_NUM: an awk function, lab_num(x), true iff x is a finite decimal number. Put it in
# front of an awk program that compares values read as text: mawk compares NaN as inside any
# range, and an empty value as 0.
# shellcheck disable=SC2034 # used by the cases
LAB_AWK_NUM='function lab_num(x) { return x ~ /^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$/ }'
