#!/bin/sh
# Builds the Drake side-by-side harness (NOT part of CI; see README.md). Needs the cache that
# README.md describes (DRAKE_CACHE, default /work/cache/drake) and this crate's release cdylib
# (`cargo build --release --lib`; CS_LIB_DIR, default $CARGO_TARGET_DIR/release or target/release).
# Output: $OUT (default target/drake_side_by_side/side_by_side). Run from the repository's top.
set -eu
DRAKE_CACHE=${DRAKE_CACHE:-/work/cache/drake}
CS_LIB_DIR=${CS_LIB_DIR:-${CARGO_TARGET_DIR:-$PWD/target}/release}
OUT=${OUT:-$PWD/target/drake_side_by_side/side_by_side}
DRAKE_LIB=$DRAKE_CACHE/wheel/pydrake/lib
mkdir -p "$(dirname "$OUT")"
# libdrake.so's own dependencies (libgfortran, libquadmath) sit in the wheel's drake.libs with
# hashed names: -rpath-link finds them, --allow-shlib-undefined skips checking their symbols.
${CXX:-g++} -std=c++20 -O2 \
  -I "$PWD/include" -I "$DRAKE_CACHE/src" -I "$DRAKE_CACHE/eigen-5.0.1" \
  -I "$DRAKE_CACHE/fmt-12.1.0/include" \
  tools/drake_side_by_side/side_by_side.cc -o "$OUT" \
  -L "$DRAKE_LIB" -ldrake -L "$CS_LIB_DIR" -lcontact_solvers \
  -Wl,-rpath,"$DRAKE_LIB" -Wl,-rpath,"$CS_LIB_DIR" \
  -Wl,-rpath-link,"$DRAKE_CACHE/wheel/drake.libs" -Wl,--allow-shlib-undefined
echo "$OUT"
