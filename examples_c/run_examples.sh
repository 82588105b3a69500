#!/usr/bin/env bash
# Builds libcontact_solvers in release mode, then builds and runs the C and C++ examples against
# it: shared linking with -lcontact_solvers, and static linking for the C example.
# Needs gcc/g++ (and Eigen for the C++ example): `.ci/install-deps examples` installs them.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release
lib=target/release
out=target/examples_c
mkdir -p "$out"
# The build folder's libcontact_solvers.so has its own file name as SONAME (build.rs): linked with
# -L"$lib" -lcontact_solvers and an rpath, the examples run from the build folder as it is.

CC=${CC:-cc}
CXX=${CXX:-c++}
rpath="-Wl,-rpath,$PWD/$lib"

echo "== rolling_cylinder.c (C99, shared library) =="
"$CC" -std=c99 -Wall -Wextra -Wpedantic -O2 -Iinclude examples_c/rolling_cylinder.c \
  -L"$lib" -lcontact_solvers $rpath -lm -o "$out/rolling_cylinder"
"$out/rolling_cylinder"

echo
echo "== rolling_cylinder.c (C99, static library) =="
"$CC" -std=c99 -O2 -Iinclude examples_c/rolling_cylinder.c "$lib/libcontact_solvers.a" \
  -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o "$out/rolling_cylinder_static"
"$out/rolling_cylinder_static" | tail -n 3

echo
echo "== rod2d.c (C99, shared library: Drake's ConstraintSolver through cts_rigid_*) =="
"$CC" -std=c99 -Wall -Wextra -Wpedantic -O2 -Iinclude examples_c/rod2d.c \
  -L"$lib" -lcontact_solvers $rpath -lm -o "$out/rod2d"
"$out/rod2d"

echo
echo "== baraff_box_and_rod.c (C99, shared library) =="
"$CC" -std=c99 -Wall -Wextra -Wpedantic -O2 -Iinclude examples_c/baraff_box_and_rod.c \
  -L"$lib" -lcontact_solvers $rpath -lm -o "$out/baraff_box_and_rod"
"$out/baraff_box_and_rod"

echo
echo "== box_cone_vs_pyramid.c (C99, interior point: second-order cone vs linear friction) =="
"$CC" -std=c99 -Wall -Wextra -Wpedantic -O2 -Iinclude examples_c/box_cone_vs_pyramid.c \
  -L"$lib" -lcontact_solvers $rpath -lm -o "$out/box_cone_vs_pyramid"
# 2 x 250 trajectory lines: show the first steps and the summaries (the whole output is in
# $out/box_cone_vs_pyramid.txt).
"$out/box_cone_vs_pyramid" > "$out/box_cone_vs_pyramid.txt"
grep -A4 'box sliding on a plane' "$out/box_cone_vs_pyramid.txt"
grep -A9 '^summary' "$out/box_cone_vs_pyramid.txt"

echo
echo "== point_mass_methods.c (C99: hybrid, smooth and time-stepping contact on one point mass) =="
"$CC" -std=c99 -Wall -Wextra -Wpedantic -O2 -Iinclude examples_c/point_mass_methods.c \
  -L"$lib" -lcontact_solvers $rpath -lm -o "$out/point_mass_methods"
# 9 runs of 1000 or 5000 CSV lines: print the summaries; the whole output is in
# $out/point_mass_methods.txt, and its plot (when a Python with matplotlib is there) in
# $out/point_mass_methods.png (docs/point_mass_methods.png is the committed copy).
"$out/point_mass_methods" > "$out/point_mass_methods.txt"
awk '/^summary: /{p=1} /^run: /{p=0} p' "$out/point_mass_methods.txt"
python=target/python-venv/bin/python
[ -x "$python" ] || python=python3
if "$python" -c 'import matplotlib, numpy' 2>/dev/null; then
  "$python" examples_c/plot_methods.py "$out/point_mass_methods.txt" "$out/point_mass_methods.png"
  echo "plot: $out/point_mass_methods.png"
else
  echo "plot skipped: no Python with matplotlib and numpy (.ci/install-deps tests)"
fi

echo
echo "== pizza_saver.cpp (C++17 with Eigen, through include/contact_solvers.hpp) =="
if [ -e /usr/include/eigen3/Eigen/Core ]; then
  "$CXX" -std=c++17 -Wall -Wextra -O2 -Iinclude -isystem /usr/include/eigen3 examples_c/pizza_saver.cpp \
    -L"$lib" -lcontact_solvers $rpath -o "$out/pizza_saver"
  "$out/pizza_saver"

  echo
  echo "== box_on_plane.cpp (C++17 with Eigen, cts::ConstraintSolver) =="
  "$CXX" -std=c++17 -Wall -Wextra -O2 -Iinclude -isystem /usr/include/eigen3 examples_c/box_on_plane.cpp \
    -L"$lib" -lcontact_solvers $rpath -o "$out/box_on_plane"
  "$out/box_on_plane"
else
  echo "Eigen is not installed (apt-get install libeigen3-dev, or .ci/install-deps examples)" >&2
  exit 1
fi

echo
echo "== bullet/bullet_scenes.cpp (C++17: Bullet with every solver, docs/bullet.md; about 2 minutes) =="
if pkg-config --exists bullet; then
  # Bullet's headers as system headers (pkg-config's -I as -isystem): they warn under -Wextra.
  bullet_inc=$(pkg-config --cflags-only-I bullet | sed 's#-I#-isystem #g')
  # shellcheck disable=SC2086
  "$CXX" -std=c++17 -Wall -Wextra -Wpedantic -Werror -O2 -Iinclude $bullet_inc examples_c/bullet/bullet_scenes.cpp \
    -L"$lib" -lcontact_solvers $rpath -lBulletDynamics -lBulletCollision -lLinearMath -o "$out/bullet_scenes"
  "$out/bullet_scenes"
else
  echo "Bullet is not installed (apt-get install libbullet-dev, or .ci/install-deps examples)" >&2
  exit 1
fi

echo
echo "== Python: pip install . (the package contact_solvers), python/rolling_cylinder.py =="
# The venv `.ci/install-deps examples` (or `tests`) creates with numpy and the build backend; the
# package goes into it, its library the release build above (cargo finds it up to date).
python=target/python-venv/bin/python
if [ -x "$python" ] && "$python" -c 'import numpy, setuptools' 2>/dev/null; then
  "$python" -m pip install -q --disable-pip-version-check --no-build-isolation .
  # The installed package, from outside the repository.
  (cd "$(mktemp -d)" && "$OLDPWD/$python" -c 'import contact_solvers as cts
ok, z = cts.MobyLcpSolver().solve_lcp_lemke([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0])
print(f"installed contact_solvers {cts.version()}: MobyLcpSolver z = {z}, success = {ok}")')
  "$python" examples_c/python/rolling_cylinder.py "$lib/libcontact_solvers.so" | tail -n 14
else
  echo "skipped: no target/python-venv with numpy and setuptools (.ci/install-deps examples)"
fi
