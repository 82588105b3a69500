//! The C ABI: the only `unsafe` and `extern "C"` code of the crate.
//!
//! `include/contact_solvers.h` is generated from this module by cbindgen (see `cbindgen.toml`
//! and `tests/c_abi/header.rs`). The contract (`docs/c_api.md` §1), in short:
//!
//! * Every function and type starts with `cts_`, every macro and enumerator with `CTS_`.
//! * Handles are opaque: `cts_<thing>_new(..., &out)` writes `*out` only on success,
//!   `cts_<thing>_free(NULL)` is a no-op. A handle must not be used by two threads at once;
//!   distinct handles are independent; there is no global mutable state.
//! * Every fallible function returns a `cts_status`; `cts_status_string` names any value. The
//!   detail of a handle's last failing call is in `cts_<thing>_last_error(handle)`, errno-style:
//!   a successful call leaves it, a failing call replaces it, a call that sets problem data or
//!   solves clears it when it starts. Failures without a handle (constructors, NULL handles)
//!   leave it in `cts_last_error_message()`. Messages name the function, the argument, the value
//!   and what was expected ([`message`]).
//! * Nothing crashes the host: panics are caught (`CTS_STATUS_PANIC`), nothing aborts, exits or
//!   prints. NULL pointers, wrong lengths, `ld` below the row count and out-of-domain scalars are
//!   reported and write nothing. Workspaces sized by the caller are checked before they are
//!   allocated ([`alloc`]: `CTS_STATUS_ALLOCATION_FAILED` or `CTS_STATUS_INVALID_ARGUMENT`);
//!   non-finite input data is rejected where it would poison the answer, and no solve or getter
//!   returns `CTS_STATUS_OK` with a NaN or infinite output (`CTS_STATUS_NON_FINITE_RESULT`).
//! * Matrices are column-major `double` with a leading dimension `ld >= max(1, rows)`; vectors are
//!   contiguous; a pointer may be NULL only where its length is 0.
//! * Problem data is **borrowed** (Drake's rule): read at the set call and at every later solve,
//!   so it must stay allocated and unchanged until the next set call, resize or free. Results are
//!   copied out into caller buffers with an explicit length.
//!
//! Layout of this module, each part importing only the ones before it: [`status`] (codes and the
//! error type; a leaf), [`message`] (wording and number formatting of messages), [`alloc`] (size
//! checks and allocation probes), [`view`] (raw pointers to validated views, finite checks of
//! inputs and outputs), [`guard`] (panic guard and error channels), [`handle`] (the handles and
//! their lifecycle, parameters and result getters, written once), [`batch`] (many worlds in one
//! call, over the handles), [`version`], [`block_sparse`]
//! (the block-sparse problem form shared by the solvers that take it), and one file per solver
//! ([`tamsi`], [`lcp`], [`rigid`], [`baraff`], [`ipm`]): its handle, parameter and result structs,
//! its setters and solves, each a call of the [`handle`] functions, and the mapping of its
//! outcomes and errors to status codes.

#![allow(unsafe_code)]
#![allow(non_camel_case_types)] // C type names: cts_tamsi_solver, cts_status, ...
#![allow(clippy::missing_safety_doc)] // the safety contract is the C API's, documented above

pub mod alloc;
pub mod baraff;
pub mod batch;
pub mod block_sparse;
pub mod guard;
pub mod handle;
pub mod ipm;
pub mod lcp;
pub mod message;
pub mod rigid;
pub mod status;
pub mod tamsi;
pub mod version;
pub mod view;

pub use status::cts_status;
