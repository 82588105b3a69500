//! No allocation inside a solve once the workspace has grown (the crate's conventions), through the
//! Rust API and through the C ABI. The counting global allocator below serves every test of this
//! crate; it counts only the allocations of the thread that measures, while it measures, so the
//! tests can run in parallel in one process. One module per former test file.

mod counting_alloc;

#[global_allocator]
static GLOBAL: counting_alloc::Counting = counting_alloc::Counting;

// Through the Rust API
mod baraff_alloc;
mod batch_alloc;
mod block_sparse_alloc;
mod ipm_alloc;
mod lcp_alloc;
mod tamsi_alloc;

// Through the C ABI
mod lcp_rigid_c_abi_alloc;
mod tamsi_blocks_c_abi_alloc;
