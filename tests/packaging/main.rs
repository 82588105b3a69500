//! What reaches users outside Rust, and the repository itself: the installed layout (cargo-c,
//! pkg-config, CMake), the README's C quick start, the Python (ctypes) and Octave/MATLAB (MEX)
//! bindings of `examples_c/`, a repository that cites and contains all it needs, and the layers of
//! `src/` without import circles. One module
//! per former test file.

/// The scratch folders, the built library and the C compiler, shared with `tests/c_abi`.
#[path = "../c_support/mod.rs"]
mod c_support;

mod abi_snapshot;
mod architecture;
mod install;
mod readme_quickstart;
mod self_contained;

// The bindings of `examples_c/`
mod octave_mex;
mod python_ctypes;
mod python_package;
