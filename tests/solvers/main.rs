//! The solvers through their Rust API: reference cases (Drake's, Dojo's, Baraff's, Siconos'),
//! randomized and finite-difference checks, block-sparse against dense. One module per former
//! test file, named after its solver; `cargo test --test solvers tamsi_` runs TAMSI's, and so on.
//! The fixtures they share are in the `support` crate (`tests/support/lib.rs`).

// TAMSI (`docs/tamsi.md`)
mod tamsi_bench_cases;
mod tamsi_block_sparse;
mod tamsi_drake_cases;
mod tamsi_jacobian_fd;
mod tamsi_sensitivities;

// LCP solvers (`docs/rigid.md`)
mod lcp_moby;
mod lcp_siconos;
mod lcp_truth;
mod lcp_unrevised;

// Drake's rigid constraint solver (`docs/rigid_cases.md`)
mod rigid_accel;
mod rigid_discretized;
mod rigid_impact;
mod rigid_rod2d_sim;

// Baraff's pivoting method (`docs/baraff.md`)
mod baraff_cases;
mod baraff_random;

// The interior point (`docs/ipm.md`)
mod ipm_block_sparse;
mod ipm_cases;
mod ipm_engine;
mod ipm_engine_preset;
mod ipm_sensitivity;
mod ipm_siconos;

// The block-sparse factorizations (`linalg`) and the engine scenes they and the solvers run on
mod block_sparse;
mod engine_scenes_data;
// Islands in parallel inside one solve (TAMSI and the interior point)
mod parallel_islands;
