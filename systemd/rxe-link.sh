#!/bin/sh
# Creates or deletes the Soft-RoCE (rdma_rxe) link on one netdev; run by rxe-link@NETDEV.service.
#   rxe-link up NETDEV [NAME]     modprobe rdma_rxe, then `rdma link add NAME type rxe netdev NETDEV`
#                                 unless an rxe link on NETDEV exists already (then: success)
#   rxe-link down NETDEV [NAME]   `rdma link delete` of the rxe link on NETDEV (none: success)
# NAME defaults to rxe_NETDEV. Exit status 0 on success, 1 on failure, 2 on bad usage.
set -eu
usage() { echo "usage: rxe-link up|down NETDEV [NAME]" >&2; exit 2; }
if [ $# -lt 2 ] || [ $# -gt 3 ]; then usage; fi
action=$1 netdev=$2 name=${3:-rxe_$2}
[ -n "$netdev" ] || usage

# The RDMA device whose port is on $netdev (`rdma link` prints "link rxe0/1 ... netdev eth0").
link_on_netdev() {
  rdma link show 2>/dev/null | awk -v nd="$netdev" '
    { for (i = 1; i < NF; i++) if ($i == "netdev" && $(i + 1) == nd) { split($2, d, "/"); print d[1]; exit } }'
}

case $action in
  up)
    [ -e "/sys/class/net/$netdev" ] || { echo "rxe-link: no netdev $netdev" >&2; exit 1; }
    modprobe rdma_rxe
    existing=$(link_on_netdev)
    if [ -n "$existing" ]; then
      echo "rxe-link: $existing already on $netdev"
      exit 0
    fi
    rdma link add "$name" type rxe netdev "$netdev"
    echo "rxe-link: created $name on $netdev"
    ;;
  down)
    existing=$(link_on_netdev)
    if [ -z "$existing" ]; then
      echo "rxe-link: no rxe link on $netdev"
      exit 0
    fi
    rdma link delete "$existing"
    echo "rxe-link: deleted $existing on $netdev"
    ;;
  *) usage ;;
esac
