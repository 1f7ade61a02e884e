#!/usr/bin/env bash
# Checks rxe-link@.service and systemd/rxe-link.sh without RDMA (the lab case package_lifecycle
# runs them on a real rdma_rxe):
#   systemd-analyze verify --man=no rxe-link@lo.service   (the configured template, ExecStart/ExecStop
#                                                           pointing at this tree's rxe-link.sh)
#   the unit's ordering (Before=rxe_exporter.service), oneshot + RemainAfterExit
#   rxe-link.sh with stand-ins for `rdma` and `modprobe` on PATH: creates the link once, succeeds
#   without a second `rdma link add` when a link is on the netdev, deletes it, bad usage exits 2.
# Usage: check_rxe_link.sh CONFIGURED_TEMPLATE RXE_LINK_SH
set -euo pipefail
UNIT=${1:?configured rxe-link@.service} SCRIPT=${2:?systemd/rxe-link.sh}
command -v systemd-analyze >/dev/null || { echo "SKIP: no systemd-analyze"; exit 77; }
WORK=$(mktemp -d /tmp/rxe-link-check.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

ORIG=$(sed -n 's/^ExecStart=\([^ ]*\) up %I$/\1/p' "$UNIT")
[[ $ORIG == /*/rxe-link ]] || { echo "FAIL: unexpected ExecStart= in $UNIT"; exit 1; }
sed "s|$ORIG |$(realpath "$SCRIPT") |" "$UNIT" >"$WORK/rxe-link@.service"
ln -s rxe-link@.service "$WORK/rxe-link@lo.service"
for key in Type=oneshot RemainAfterExit=yes 'Before=rxe_exporter.service' \
  'BindsTo=sys-subsystem-net-devices-%i.device' 'ExecStop=.* down %I$'; do
  grep -q "^${key}" "$WORK/rxe-link@.service" || fail "unit lacks ${key}"
done
echo "+ systemd-analyze verify --man=no rxe-link@lo.service"
if ! out=$(cd "$WORK" && systemd-analyze verify --man=no "$WORK/rxe-link@lo.service" 2>&1) || [[ -n $out ]]; then
  echo "$out"
  fail "systemd-analyze verify"
fi

# Stand-ins: `rdma link show` prints the links in $STATE; add/delete edit it and log the call.
mkdir "$WORK/bin" "$WORK/sys"
STATE=$WORK/links LOG=$WORK/calls
: >"$STATE"
cat >"$WORK/bin/rdma" <<STUB
#!/bin/sh
echo "rdma \$*" >>"$LOG"
case "\$1 \$2" in
  "link show") cat "$STATE" ;;
  "link add") echo "link \$3/1 state ACTIVE physical_state LINK_UP netdev \$7" >>"$STATE" ;;
  "link delete") grep -v "^link \$3/" "$STATE" >"$STATE.new" || true; mv "$STATE.new" "$STATE" ;;
  *) exit 1 ;;
esac
STUB
printf '#!/bin/sh\necho "modprobe $*" >>"%s"\n' "$LOG" >"$WORK/bin/modprobe"
chmod +x "$WORK/bin/rdma" "$WORK/bin/modprobe"
run() { PATH=$WORK/bin:$PATH sh "$SCRIPT" "$@"; }

run up lo >"$WORK/out1" || fail "up lo (first): $(cat "$WORK/out1")"
grep -qx 'rdma link add rxe_lo type rxe netdev lo' "$LOG" || fail "first up did not add rxe_lo: $(cat "$LOG")"
grep -qx 'modprobe rdma_rxe' "$LOG" || fail "up did not load rdma_rxe"
run up lo >"$WORK/out2" || fail "up lo (second) failed"
[[ $(grep -c 'link add' "$LOG") == 1 ]] || fail "second up added another link"
grep -q 'rxe_lo already on lo' "$WORK/out2" || fail "second up: $(cat "$WORK/out2")"
run down lo >/dev/null || fail "down lo failed"
[[ ! -s $STATE ]] || fail "down left $(cat "$STATE")"
run down lo >/dev/null || fail "down without a link must succeed"
set +e
run up no-such-netdev-x >/dev/null 2>&1; rc_missing=$?
run sideways lo >/dev/null 2>&1; rc_usage=$?
set -e
[[ $rc_missing == 1 ]] || fail "up on a missing netdev exited $rc_missing, want 1"
[[ $rc_usage == 2 ]] || fail "bad usage exited $rc_usage, want 2"
((status == 0)) && echo "rxe-link@.service and rxe-link.sh: OK"
exit $status
