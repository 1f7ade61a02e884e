#!/usr/bin/env bash
# lab: vms=1 timeout=600
# The Debian package's lifecycle on a real rdma_rxe (one lab VM; ctest package.lifecycle, after
# package.deb built $LAB_BUILD/package/rxe-exporter_*.deb):
#   install  dpkg -i: files in FHS places, unit enabled, the postinst starts what the unit starts
#            (ExecStart= as an unprivileged user) and /metrics shows rxe0; rxe-link creates and
#            deletes a Soft-RoCE link; systemd-analyze verify of the installed units
#   upgrade  dpkg -i of the same package with a higher version: restarted (new pid), a locally
#            edited conffile kept and used by the restarted daemon
#   remove   dpkg -r: stopped, program files gone, conffiles kept
#   purge    dpkg -P: nothing of the package left (compared with a listing taken before install)
# The VM has no systemd as PID 1: cmake/package/lab-systemctl.sh stands in for systemctl so that
# the maintainer scripts' start/restart/stop act on the real daemon (see that file).
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "${LAB_SRC:?}/tests/lab/lib.sh"
HERE=$LAB_SRC/cmake/package
PKG=rxe-exporter
PORT=19791
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

debs=("$LAB_BUILD/package/${PKG}"_*.deb)
[[ -f ${debs[0]} ]] || lab_fail "no ${PKG}_*.deb in $LAB_BUILD/package (run ctest -R package.deb)"
DEB1=${debs[0]}
V1=$(dpkg-deb -f "$DEB1" Version)

# The second build: the same package with a higher version (as from a new changelog entry).
V2=$V1+lab1
WORK=$(mktemp -d /tmp/rxe-lifecycle.XXXXXX)
dpkg-deb -R "$DEB1" "$WORK/v2"
sed -i "s/^Version: .*/Version: $V2/" "$WORK/v2/DEBIAN/control"
DEB2=$WORK/${PKG}_${V2}_amd64.deb
dpkg-deb --root-owner-group -b "$WORK/v2" "$DEB2" >/dev/null
lab_log "packages: $(basename "$DEB1") ($V1), upgrade: $V2"

# Places the package touches (and that dpkg/deb-systemd-helper write to).
snapshot() {
  local d
  for d in /usr/bin /usr/libexec /usr/share/doc /usr/share/man/man1 /usr/share/rxe_exporter /lib/systemd/system \
    /etc /var/lib/systemd /var/lib/dpkg/info; do
    [[ ! -e $d ]] || find "$d" -xdev
  done | grep -v -x -e /etc/ld.so.cache | sort
}
status_of() { dpkg-query -W -f='${Status} ${Version}' "$PKG" 2>/dev/null || echo "not-installed"; }
daemon_pid() { cat /run/lab-systemd/rxe_exporter.pid 2>/dev/null; }
scrape() { curl -sf --max-time 20 "http://127.0.0.1:$PORT/metrics"; }
wait_ready() {
  local i
  for ((i = 0; i < 600; i++)); do
    curl -sf --max-time 5 "http://127.0.0.1:$PORT/-/ready" >/dev/null 2>&1 && return 0
    kill -0 "$(daemon_pid)" 2>/dev/null || break
    sleep 0.1
  done
  lab_fail "exporter not ready: $(tail -5 /run/lab-systemd/rxe_exporter.log 2>/dev/null)"
}
need() { local f; for f in "$@"; do [[ -e $f ]] || lab_fail "missing $f"; done; }
gone() { local f; for f in "$@"; do [[ ! -e $f && ! -L $f ]] || lab_fail "$f still present"; done; }
ENABLED=/etc/systemd/system/multi-user.target.wants/rxe_exporter.service

[[ $(status_of) == not-installed ]] || lab_fail "$PKG is installed before the test: $(status_of)"
# The VM's root is an overlay of the host's (writes vanish at power-off). A container host's
# policy-rc.d (exit 101: "do not start services") would stop deb-systemd-invoke: set it aside.
# man-db's trigger would rebuild the whole man index over 9p (minutes): off, as with debconf
# man-db/auto-update=false.
if [[ -e /usr/sbin/policy-rc.d ]]; then mv /usr/sbin/policy-rc.d "$WORK/policy-rc.d.host"; fi
rm -f /var/lib/man-db/auto-update
snapshot >"$LAB_OUT/before.txt"
install -m 0755 "$HERE/lab-systemctl.sh" /usr/local/sbin/systemctl
mkdir -p /run/systemd/system   # "systemd is running" for the maintainer scripts

# --- install -----------------------------------------------------------------------------------
lab_log "+ dpkg -i $(basename "$DEB1")"
dpkg -i "$DEB1" >"$LAB_OUT/install.log" 2>&1 || lab_fail "dpkg -i failed: $(cat "$LAB_OUT/install.log")"
[[ $(status_of) == "install ok installed $V1" ]] || lab_fail "status after install: $(status_of)"
need /usr/bin/rxe_exporter /lib/systemd/system/rxe_exporter.service /lib/systemd/system/rxe-link@.service \
  /usr/libexec/rxe-exporter/rxe-link /etc/rxe_exporter/rxe_exporter.yml /etc/default/rxe_exporter \
  /usr/share/man/man1/rxe_exporter.1.gz /usr/share/doc/$PKG/copyright /usr/share/doc/$PKG/changelog.gz \
  /usr/share/doc/$PKG/runbook.md /usr/share/rxe_exporter/rules/rxe_exporter.alerts.yml "$ENABLED"
[[ $(dpkg-query -W -f='${Conffiles}' "$PKG" | awk '{print $1}' | sort | tr '\n' ' ') == \
  "/etc/default/rxe_exporter /etc/rxe_exporter/rxe_exporter.yml " ]] || lab_fail "conffiles: $(dpkg-query -W -f='${Conffiles}' "$PKG")"
sections=$(readelf -S /usr/bin/rxe_exporter) || lab_fail "readelf /usr/bin/rxe_exporter failed"
! grep -q '\.debug_info' <<<"$sections" || lab_fail "/usr/bin/rxe_exporter is not stripped"
grep -q 'systemctl --quiet --system start rxe_exporter.service' /run/lab-systemd/calls.log ||
  lab_fail "the postinst did not start the unit: $(cat /run/lab-systemd/calls.log)"
pid1=$(daemon_pid)
wait_ready
[[ $(stat -c %U "/proc/$pid1") == nobody ]] || lab_fail "daemon runs as $(stat -c %U "/proc/$pid1")"
m=$(scrape) || lab_fail "scrape failed"
grep -q "^rxe_exporter_build_info{.*version=\"${V1%%[-+]*}\"" <<<"$m" || lab_fail "no build_info $V1 in /metrics"
grep -q "^rxe_port_active{device=\"$LAB_RDMA_DEV\",port=\"1\"} 1" <<<"$m" || lab_fail "rxe0 port not in /metrics"
lab_log "installed $V1: pid $pid1 as nobody, /metrics: $(wc -l <<<"$m") lines, rxe_port_active{rxe0} 1"
ln -s /lib/systemd/system/rxe-link@.service "$WORK/rxe-link@$LAB_NETDEV.service"
for u in /lib/systemd/system/rxe_exporter.service "$WORK/rxe-link@$LAB_NETDEV.service"; do
  if ! out=$(systemd-analyze verify --man=no "$u" 2>&1) || [[ -n $out ]]; then
    lab_fail "systemd-analyze verify $u: $out"
  fi
done
lab_log "systemd-analyze verify: installed rxe_exporter.service and rxe-link@.service OK"

# rxe-link (what rxe-link@NETDEV.service runs) on a real rdma_rxe: an existing link counts as
# success; a new veth gets rxe_<netdev>, once; stop deletes it.
out=$(/usr/libexec/rxe-exporter/rxe-link up "$LAB_NETDEV") || lab_fail "rxe-link up $LAB_NETDEV: $out"
[[ $out == *"$LAB_RDMA_DEV already on $LAB_NETDEV"* ]] || lab_fail "rxe-link up on rxe0's netdev: $out"
ip link add rxl0 type veth peer name rxl1
ip link set rxl0 up && ip link set rxl1 up
/usr/libexec/rxe-exporter/rxe-link up rxl0 >/dev/null || lab_fail "rxe-link up rxl0 failed"
rdma link show rxe_rxl0/1 | grep -q 'netdev rxl0' || lab_fail "no rxe_rxl0: $(rdma link show)"
out=$(/usr/libexec/rxe-exporter/rxe-link up rxl0) || lab_fail "second rxe-link up rxl0 failed"
[[ $out == *"rxe_rxl0 already on rxl0"* && $(rdma link show | grep -c 'netdev rxl0') == 1 ]] ||
  lab_fail "second up: $out / $(rdma link show)"
/usr/libexec/rxe-exporter/rxe-link down rxl0 >/dev/null || lab_fail "rxe-link down rxl0 failed"
! rdma link show | grep -q 'netdev rxl0' || lab_fail "rxe_rxl0 still there after down"
ip link del rxl0
lab_log "rxe-link: idempotent up on $LAB_NETDEV, created/kept/deleted rxe_rxl0 on a veth"

# --- upgrade, with a locally edited conffile --------------------------------------------------
echo 'ARGS="--log.level=debug"' >>/etc/default/rxe_exporter
lab_log "+ dpkg -i $(basename "$DEB2")"
dpkg -i "$DEB2" >"$LAB_OUT/upgrade.log" 2>&1 || lab_fail "upgrade failed: $(cat "$LAB_OUT/upgrade.log")"
[[ $(status_of) == "install ok installed $V2" ]] || lab_fail "status after upgrade: $(status_of)"
grep -q 'systemctl --quiet --system restart rxe_exporter.service' /run/lab-systemd/calls.log ||
  lab_fail "the upgrade did not restart the unit"
pid2=$(daemon_pid)
if [[ -z $pid2 || $pid2 == "$pid1" ]] || kill -0 "$pid1" 2>/dev/null; then
  lab_fail "not restarted (pid $pid1 -> $pid2)"
fi
grep -q -- '--log.level=debug' /etc/default/rxe_exporter || lab_fail "the edited conffile was replaced"
wait_ready
tr '\0' ' ' <"/proc/$pid2/cmdline" | grep -q -- '--log.level=debug' || lab_fail "restarted without the edited ARGS"
# Into a variable first: with pipefail, `scrape | grep -q` fails when grep exits at its match
# while curl still writes (SIGPIPE); that failed one clean-clone CI run.
metrics=$(scrape) || lab_fail "no /metrics after the upgrade: $(tail -5 /run/lab-systemd/rxe_exporter.log 2>/dev/null)"
grep -q "^rxe_port_active{device=\"$LAB_RDMA_DEV\"" <<<"$metrics" ||
  lab_fail "/metrics after the upgrade has no rxe_port_active: $(head -c 2000 <<<"$metrics")"
lab_log "upgraded to $V2: restarted (pid $pid1 -> $pid2) with the kept conffile's ARGS, /metrics OK"

# --- remove ------------------------------------------------------------------------------------
lab_log "+ dpkg -r $PKG"
dpkg -r "$PKG" >"$LAB_OUT/remove.log" 2>&1 || lab_fail "dpkg -r failed: $(cat "$LAB_OUT/remove.log")"
[[ $(status_of) == "deinstall ok config-files $V2" ]] || lab_fail "status after remove: $(status_of)"
! kill -0 "$pid2" 2>/dev/null || lab_fail "daemon still running after dpkg -r"
! curl -s --max-time 5 "http://127.0.0.1:$PORT/-/healthy" >/dev/null || lab_fail "port $PORT still answers"
gone /usr/bin/rxe_exporter /lib/systemd/system/rxe_exporter.service /usr/libexec/rxe-exporter \
  /usr/share/rxe_exporter /usr/share/man/man1/rxe_exporter.1.gz
need /etc/rxe_exporter/rxe_exporter.yml /etc/default/rxe_exporter
lab_log "removed: daemon stopped, program files gone, conffiles kept"

# --- purge -------------------------------------------------------------------------------------
lab_log "+ dpkg -P $PKG"
dpkg -P "$PKG" >"$LAB_OUT/purge.log" 2>&1 || lab_fail "dpkg -P failed: $(cat "$LAB_OUT/purge.log")"
[[ $(status_of) == not-installed || $(status_of) == "unknown ok not-installed "* ]] ||
  lab_fail "status after purge: $(status_of)"
gone /etc/rxe_exporter /etc/default/rxe_exporter "$ENABLED" /usr/share/doc/$PKG
rm /usr/local/sbin/systemctl
snapshot >"$LAB_OUT/after.txt"
if ! diff "$LAB_OUT/before.txt" "$LAB_OUT/after.txt" >"$LAB_OUT/leftover.diff"; then
  lab_fail "left after purge (or changed): $(head -20 "$LAB_OUT/leftover.diff")"
fi
lab_log "purged: nothing left ($(wc -l <"$LAB_OUT/before.txt") paths compared)"
lab_log "systemctl calls by the maintainer scripts:"
grep -v '^lab-systemctl' /run/lab-systemd/calls.log | sort | uniq -c | sed 's/^/  /'
