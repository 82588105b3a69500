//! The fixtures the test crates (`tests/solvers`, `tests/c_abi`, `tests/alloc`, …), the benches
//! and the profiling examples share: problem data (Drake's Rod2D and TAMSI scenes, random and
//! stacked contact scenes, the MuJoCo engine scenes of `tests/data/` in block-sparse form, the
//! interior point's point mass), reference values, and thin wrappers that drive the rigid and LCP
//! solvers through the C ABI.
//!
//! A library crate of its own (a dev-dependency of `contact_solvers`, named `support` there), so
//! it is compiled once for every test crate, bench and example, and each of them uses the parts
//! it needs. Helpers of one test crate live in that crate; the C toolchain helpers
//! (`tests/c_support/mod.rs`) are compiled into the test crates that build C, since they need
//! those crates' build environment (`CARGO_TARGET_TMPDIR`, the target triple of `build.rs`).

// Fixtures for this repository's tests, not a published API: `Lcg::next` and `CLcp::new` keep
// the names the tests call them by.
#![allow(clippy::should_implement_trait, clippy::new_without_default)]

pub mod batch_worlds;
pub mod engine_scenes;
pub mod ipm_blocks;
pub mod ipm_common;
pub mod rigid_c_support;
pub mod rod2d;
pub mod scene;
pub mod siconos_fc3d;
pub mod stacks;
pub mod tamsi_blocks;
pub mod tamsi_support;
