#!/usr/bin/env bash
# Builds bench.c against Debian's libsiconos-numerics-dev and times Siconos' FC3D solvers on every
# 3-D file of tests/data/siconos/friction_contact (see README.md here). Output on stdout.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
data="$here/../../tests/data/siconos/friction_contact"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -Wall -Wextra -I/usr/include/siconos -I/usr/include/siconos/numerics \
  -o "$tmp/bench" "$here/bench.c" -lsiconos_numerics -lm
files=()
for f in "$data"/*.dat.gz; do
  base="$(basename "$f" .gz)"
  case "$base" in FC2D_*|FrictionContactProblem*|gfc2d_*) continue ;; esac
  gunzip -c "$f" > "$tmp/$base"
  files+=("$tmp/$base")
done
OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 "$tmp/bench" "${RUNS:-5}" "${files[@]}"
