#!/usr/bin/env bash
# Checks the configured systemd unit in this container (systemd 252, no running systemd needed):
#   systemd-analyze verify --man=no     (on a copy whose ExecStart is the freshly built binary:
#                                        verify fails when the ExecStart binary does not exist)
#   systemd-analyze security --offline=true --threshold=MAX   (exposure x 10; prints the score)
# Usage: check_unit.sh CONFIGURED_UNIT BUILT_BINARY [MAX_EXPOSURE_X10]
set -euo pipefail
UNIT=${1:?configured unit}
BINARY=${2:?built rxe_exporter binary}
THRESHOLD=${3:-25}
command -v systemd-analyze >/dev/null || { echo "SKIP: no systemd-analyze"; exit 77; }
[[ -x $BINARY ]] || { echo "FAIL: $BINARY is not built"; exit 1; }

WORK=$(mktemp -d /tmp/rxe-unit.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
# The unit name matters to systemd-analyze: keep it.
COPY=$WORK/rxe_exporter.service
ORIG_BIN=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$UNIT")
[[ $ORIG_BIN == /*/rxe_exporter ]] || { echo "FAIL: unexpected ExecStart= in $UNIT: $ORIG_BIN"; exit 1; }
sed "s|^ExecStart=$ORIG_BIN|ExecStart=$BINARY|" "$UNIT" >"$COPY"

status=0
# shellcheck disable=SC2016 # $MAINPID is literal unit text
for key in Type=notify WatchdogSec= 'ExecReload=/bin/kill -HUP $MAINPID' DynamicUser=yes ProtectSystem=strict \
  ProtectHome=yes NoNewPrivileges=yes 'CapabilityBoundingSet=$' DevicePolicy=closed \
  'DeviceAllow=char-infiniband_verbs rw' 'DeviceAllow=/dev/infiniband/rdma_cm rw' \
  'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK' LimitMEMLOCK= MemoryMax= TasksMax= \
  'After=rdma-hw.target network-online.target'; do
  grep -q "^${key}" "$COPY" || { echo "FAIL: unit lacks ${key}"; status=1; }
done
for key in PrivateDevices=yes PrivateNetwork=yes ProcSubset=pid; do
  ! grep -q "^${key}" "$COPY" || { echo "FAIL: ${key} breaks RDMA or the host collector"; status=1; }
done

echo "+ systemd-analyze verify --man=no $(basename "$COPY")  (ExecStart=$BINARY)"
if ! out=$(systemd-analyze verify --man=no "$COPY" 2>&1) || [[ -n $out ]]; then
  echo "$out"
  echo "FAIL: systemd-analyze verify"
  status=1
fi

echo "+ systemd-analyze security --offline=true --threshold=$THRESHOLD"
set +e
out=$(systemd-analyze security --offline=true --threshold="$THRESHOLD" "$COPY" 2>&1)
rc=$?
set -e
echo "$out" | grep -E '^✗' || true
score=$(echo "$out" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
echo "exposure score: ${score:-?} (threshold $(awk "BEGIN{print $THRESHOLD/10}"))"
if [[ $rc -ne 0 || -z $score ]]; then
  echo "FAIL: systemd-analyze security (rc=$rc)"
  status=1
fi
exit $status
