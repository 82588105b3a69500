//! The C ABI (`include/contact_solvers.h`, `docs/c_api.md`): each solver's `cts_*` functions
//! called from Rust exactly as C calls them, and C and C++ programs built against the library
//! (the safety contract, fuzzing and allocation limits, the header, the header-only C++ wrapper,
//! the C and C++ examples of `examples_c/`), plain, under valgrind and with AddressSanitizer/UBSan
//! when installed. One module per former test file.

/// Building and running C and C++ programs (`tests/c_support/mod.rs` plus this crate's part).
mod c_support;

// Solvers through the C ABI, from Rust
mod baraff_c_abi;
mod batch_c_abi;
mod ipm_blocks_c_abi;
mod ipm_c_abi;
mod lcp_c_abi;
mod rigid_c_abi;
mod sizes_before_data;
mod tamsi_blocks_c_abi;
mod tamsi_sensitivities_c_abi;

// C programs: the ABI's contract and safety, the header
mod abi_safety;
mod ffi_contract;
mod header;

// C++ programs: the header-only wrapper
mod cpp_drake_style;
mod cpp_wrapper;
mod cpp_wrapper_baraff;
mod ipm_cpp_wrapper;
mod lcp_rigid_cpp_wrapper;

// Bullet as a C++ client (include/contact_solvers_bullet.hpp)
mod bullet;

// The C and C++ examples of `examples_c/`
mod c_examples;
mod point_mass_methods;
