//! No allocation inside a solve once the workspace has grown (the crate's conventions), through the
//! Rust API and through the C ABI. The counting global allocator below serves every test of this
//! crate; it counts only the allocations of the thread that measures, while it measures, so the
//! tests can run in parallel in one process. One module per former test file. A counting `fma`
//! (`counting_fma`) serves `hot_path_fma`: a repeated solve calls no libm `fma` (issue 29).

mod counting_alloc;
// A counting `fma` replacing libm's: a solve's hot path outside the SIMD dispatch calls it.
mod counting_fma;

#[global_allocator]
static GLOBAL: counting_alloc::Counting = counting_alloc::Counting;

// Through the Rust API
mod baraff_alloc;
mod batch_alloc;
mod block_sparse_alloc;
mod hot_path_fma;
mod ipm_alloc;
mod lcp_alloc;
mod tamsi_alloc;

// Through the C ABI
mod failing_c_solves_alloc;
mod lcp_rigid_c_abi_alloc;
mod tamsi_blocks_c_abi_alloc;
