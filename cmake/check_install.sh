#!/usr/bin/env bash
# Installs the build into a staging DESTDIR and checks the laid-out tree (FHS paths).
# Usage: check_install.sh BUILD_DIR SOURCE_DIR PREFIX SYSCONFDIR UNIT_DIR DOCDIR LIBEXECDIR [PROMTOOL]
#   PREFIX, SYSCONFDIR: CMAKE_INSTALL_PREFIX and CMAKE_INSTALL_FULL_SYSCONFDIR of the build;
#   UNIT_DIR: RXE_SYSTEMD_UNIT_DIR (relative to PREFIX or absolute); DOCDIR: CMAKE_INSTALL_FULL_DOCDIR
#   (<prefix>/share/doc/rxe-exporter, the package's name); LIBEXECDIR: CMAKE_INSTALL_FULL_LIBEXECDIR.
set -euo pipefail
BUILD=${1:?} SRC=${2:?} PREFIX=${3:?} SYSCONF=${4:?} UNITDIR=${5:?} DOCDIR=${6:?} LIBEXEC=${7:?}
PROMTOOL=${8:-promtool}
[[ $UNITDIR == /* ]] || UNITDIR=$PREFIX/$UNITDIR

STAGE=$(mktemp -d /tmp/rxe-stage.XXXXXX)
trap 'rm -rf "$STAGE"' EXIT
DESTDIR=$STAGE cmake --install "$BUILD" >"$STAGE.log" 2>&1 || { cat "$STAGE.log"; rm -f "$STAGE.log"; exit 1; }
rm -f "$STAGE.log"
R=$STAGE$PREFIX
status=0
fail() { echo "FAIL: $*"; status=1; }
need() { [[ -e $STAGE$1 ]] || fail "missing $1"; }
need_x() { [[ -x $STAGE$1 && -f $STAGE$1 ]] || fail "missing or not executable $1"; }

need_x "$PREFIX/bin/rxe_exporter"
need "$UNITDIR/rxe_exporter.service"
need "$UNITDIR/rxe-link@.service"
need_x "$LIBEXEC/rxe-exporter/rxe-link"
need "$SYSCONF/default/rxe_exporter"
if [[ -f $SRC/config/examples/rxe_exporter.yml ]]; then
  need "$SYSCONF/rxe_exporter/rxe_exporter.yml"
  cmp -s "$SRC/config/examples/rxe_exporter.yml" "$STAGE$SYSCONF/rxe_exporter/rxe_exporter.yml" ||
    fail "installed rxe_exporter.yml differs from config/examples/rxe_exporter.yml"
fi
for f in "$SRC"/config/examples/*; do
  [[ -e $f ]] && need "$DOCDIR/examples/$(basename "$f")"
done
for f in "$SRC"/dashboards/*.json; do need "$PREFIX/share/rxe_exporter/dashboards/$(basename "$f")"; done
for f in "$SRC"/dashboards/rules/*.yml; do need "$PREFIX/share/rxe_exporter/rules/$(basename "$f")"; done
need "$PREFIX/share/rxe_exporter/grafana/provisioning/datasources/rxe_exporter.yml"
need "$PREFIX/share/rxe_exporter/grafana/provisioning/dashboards/rxe_exporter.yml"
for f in runbook.md DESIGN.md dashboards.md; do need "$DOCDIR/$f"; done
[[ -f $SRC/README.md ]] && need "$DOCDIR/README.md"

# Contents: the unit points at the installed paths, the rules at the installed runbook, the
# dashboard provider at the installed dashboards.
U=$STAGE$UNITDIR/rxe_exporter.service
if [[ -f $U ]]; then
  grep -qx "ExecStart=$PREFIX/bin/rxe_exporter --config.file=$SYSCONF/rxe_exporter/rxe_exporter.yml \$ARGS" "$U" ||
    fail "ExecStart in the installed unit: $(grep ^ExecStart= "$U")"
  grep -qx "EnvironmentFile=-$SYSCONF/default/rxe_exporter" "$U" || fail "EnvironmentFile in the installed unit"
  ! grep -q '@[A-Z_]*@' "$U" || fail "unsubstituted @VAR@ in the installed unit"
fi
L=$STAGE$UNITDIR/rxe-link@.service
if [[ -f $L ]]; then
  grep -qx "ExecStart=$LIBEXEC/rxe-exporter/rxe-link up %I" "$L" || fail "ExecStart in the installed rxe-link@.service"
  ! grep -q '@[A-Z_]*@' "$L" || fail "unsubstituted @VAR@ in the installed rxe-link@.service"
fi
P=$R/share/rxe_exporter/grafana/provisioning/dashboards/rxe_exporter.yml
[[ ! -f $P ]] || grep -q "path: $PREFIX/share/rxe_exporter/dashboards\$" "$P" || fail "dashboard provider path in $P"
for f in "$R"/share/rxe_exporter/rules/*.yml; do
  "$PROMTOOL" check rules "$f" >/dev/null || fail "promtool check rules $f"
done
grep -q "runbook_url: " "$R/share/rxe_exporter/rules/rxe_exporter.alerts.yml" 2>/dev/null || fail "no runbook_url in installed alerts"
json_ok=1
for f in "$R"/share/rxe_exporter/dashboards/*.json; do jq -e .uid "$f" >/dev/null || json_ok=0; done
((json_ok)) || fail "installed dashboards are not valid JSON"

# Nothing outside the expected roots (prefix, sysconfdir, unit dir).
while IFS= read -r f; do
  case ${f#"$STAGE"} in
    "$PREFIX"/* | "$SYSCONF"/* | "$UNITDIR"/*) ;;
    *) fail "unexpected installed file ${f#"$STAGE"}" ;;
  esac
done < <(find "$STAGE" -type f)

echo "installed tree (DESTDIR=$STAGE):"
(cd "$STAGE" && find . -type f | sed 's|^\.||' | sort | sed 's/^/  /')
exit $status
