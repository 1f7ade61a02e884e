# shellcheck shell=bash
# Sourced by scripts/test.sh and cmake/package/build_deb.sh: sets `idle` to the command prefix
# that runs a build at the lowest CPU priority (nice 19, plus SCHED_IDLE where chrt allows it),
# so lab VMs running beside it keep the CPU.
idle=(nice -n 19)
if chrt --idle 0 true 2>/dev/null; then idle+=(chrt --idle 0); fi
