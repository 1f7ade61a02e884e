#!/usr/bin/env bash
# Builds the Debian package from a copy of the source tree and lints it.
# Usage: build_deb.sh SOURCE_DIR OUT_DIR
#   OUT_DIR/src/               the copy (tracked and untracked files, no build trees, no .git); kept
#                              between runs at the same path so that ccache hits (if installed)
#   OUT_DIR/rxe-exporter_*.deb, rxe-exporter-dbgsym_*.deb, *.changes, *.buildinfo
#   OUT_DIR/lintian.txt        lintian's output
# Exit 0 when the package built and lintian reports no error and no warning (--fail-on error,warning;
# overrides in debian/*.lintian-overrides carry their reasons).
set -euo pipefail
SRC=$(realpath "${1:?source dir}") OUT=${2:?out dir}
for tool in dpkg-buildpackage dh lintian help2man fakeroot; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool missing (scripts/install-deps.sh installs it)"; exit 1; }
done
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
rm -rf "$OUT/src" "$OUT"/*.deb "$OUT"/*.changes "$OUT"/*.buildinfo "$OUT/lintian.txt"
mkdir "$OUT/src"
# The files git knows (committed or not ignored), as they are in the work tree.
(cd "$SRC" && git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
   [[ -e $f ]] && printf '%s\0' "$f"
 done) | (cd "$SRC" && tar --null -T - -cf -) | tar -xf - -C "$OUT/src"

args=()
if command -v ccache >/dev/null; then args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
echo "+ dpkg-buildpackage -b -uc -us (in $OUT/src)"
start=$(date +%s)
# At idle CPU priority: ctest runs this beside lab cases, whose VMs must keep their CPU.
# shellcheck source=scripts/lib/idle.sh
. "$SRC/scripts/lib/idle.sh"
(cd "$OUT/src" && RXE_CMAKE_ARGS="${args[*]}" DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
   "${idle[@]}" dpkg-buildpackage -b -uc -us >"$OUT/build.log" 2>&1) || { tail -40 "$OUT/build.log"; echo "FAIL: dpkg-buildpackage"; exit 1; }
echo "built in $(($(date +%s) - start)) s:"
for f in "$OUT"/*.deb; do echo "  $(stat -c %s "$f") bytes  ${f##*/}"; done

changes=("$OUT"/rxe-exporter_*.changes)
echo "+ lintian --fail-on error,warning --display-info ${changes[0]##*/}"
set +e
lintian --fail-on error,warning --display-info "${changes[0]}" >"$OUT/lintian.txt" 2>&1
rc=$?
set -e
cat "$OUT/lintian.txt"
echo "lintian: $(grep -c '^E:' "$OUT/lintian.txt") errors, $(grep -c '^W:' "$OUT/lintian.txt") warnings," \
     "$(grep -c '^I:' "$OUT/lintian.txt") info (exit $rc)"
exit $rc
