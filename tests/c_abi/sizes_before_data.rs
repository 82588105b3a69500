//! Sizes before data (issue 33, item 1; `docs/c_api.md` §1.11 and its list of which call checks
//! what): every C call that takes a size refuses a problem whose workspace could never be
//! allocated or addressed from its sizes alone, before it reads any of the caller's arrays.
//!
//! Each test passes arrays backed by a read-only mapping of `/dev/zero` of the stated length:
//! no memory stands behind it until a page is read, and zeros are valid data for every solver,
//! so a call that reads before it checks the sizes goes on reading (issue 33: TAMSI's setters
//! read for minutes with nv = 6, nc = 2³³) and then accepts the data, while a call that checks
//! first returns at once. The status and message show which check refused it. The time bound
//! (5 s, measured: under 10 ms) is not a performance test: it only separates "refused from the
//! sizes" from "read terabytes first", which takes minutes. The rigid solver's test of the same
//! rule is `rigid_c_abi::sizes_are_checked_before_data_is_read`.
//!
//! ALLOCATION_FAILED needs a system that refuses the workspace: with always-overcommit
//! (`vm.overcommit_memory = 1`) a probe of a few hundred GiB succeeds, so those cases are skipped
//! there.
#![allow(unsafe_code)]

use std::time::{Duration, Instant};

use contact_solvers::ffi::baraff::*;
use contact_solvers::ffi::block_sparse::cts_block_sparse_data;
use contact_solvers::ffi::cts_status;
use contact_solvers::ffi::ipm::*;
use contact_solvers::ffi::lcp::*;
use contact_solvers::ffi::tamsi::*;

/// A private read-only mapping of `/dev/zero`, unmapped when dropped.
pub struct ZeroMap {
    ptr: *mut libc::c_void,
    bytes: usize,
}

impl ZeroMap {
    /// Maps `bytes` bytes; `None` (with a note) when the address space has no room for them.
    pub fn new(bytes: usize) -> Option<Self> {
        // SAFETY: a fresh private read-only mapping, owned by the returned value.
        let ptr = unsafe {
            let fd = libc::open(c"/dev/zero".as_ptr(), libc::O_RDONLY);
            assert!(fd >= 0, "open /dev/zero");
            let p = libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_NORESERVE,
                fd,
                0,
            );
            libc::close(fd);
            p
        };
        if ptr == libc::MAP_FAILED {
            println!("skipped: no address space for a {bytes}-byte mapping");
            return None;
        }
        Some(Self { ptr, bytes })
    }

    /// Maps `count` doubles.
    pub fn doubles(count: usize) -> Option<Self> {
        Self::new(count.checked_mul(8).expect("a mappable size"))
    }

    /// The mapping as doubles.
    pub fn f64(&self) -> *const f64 {
        self.ptr as *const f64
    }

    /// The mapping as `int32_t`s.
    pub fn i32(&self) -> *const i32 {
        self.ptr as *const i32
    }
}

impl Drop for ZeroMap {
    fn drop(&mut self) {
        // SAFETY: the mapping made by `new`, unmapped once.
        unsafe { libc::munmap(self.ptr, self.bytes) };
    }
}

/// Whether the system refuses a workspace of a few hundred GiB: a reservation of 128 GiB (the
/// smallest workspace refused below, 168 GiB, is larger) is tried and released at once; with
/// always-overcommit (`vm.overcommit_memory = 1`) it is granted, and nothing would be refused.
fn refuses_huge_allocations() -> bool {
    let mut probe: Vec<u8> = Vec::new();
    if probe.try_reserve_exact(128 << 30).is_ok() {
        println!("skipped: the system grants 128 GiB at once (overcommit), so nothing is refused");
        return false;
    }
    true
}

/// Long enough for any machine to return a refusal, far too short to read the data first.
const BOUND: Duration = Duration::from_secs(5);

/// Runs `call` (returning its status and the handle's last error) and checks that it returned
/// `want` within [`BOUND`] with a message that contains `says`.
#[track_caller]
fn refused_at_once(name: &str, want: cts_status, says: &str, call: impl FnOnce() -> (cts_status, String)) {
    let start = Instant::now();
    let (status, message) = call();
    let elapsed = start.elapsed();
    println!("{name}: {status:?} in {elapsed:?}: {message}");
    assert_eq!(status, want, "{name}: {message}");
    assert!(message.contains(says), "{name}: {message}");
    assert!(elapsed < BOUND, "{name} took {elapsed:?}: it read the data before checking the sizes");
}

fn text(p: *const std::ffi::c_char) -> String {
    // SAFETY: the library's last-error strings are valid, NUL-terminated and live until the next
    // call on the handle.
    unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// A TAMSI solver of nv = 6 (a free body), freed on drop.
struct Tamsi(*mut cts_tamsi_solver);

impl Tamsi {
    fn new() -> Self {
        let mut h = std::ptr::null_mut();
        // SAFETY: valid out pointer.
        assert_eq!(unsafe { cts_tamsi_solver_new(6, &mut h) }, cts_status::Ok);
        Self(h)
    }

    fn error(&self) -> String {
        // SAFETY: a live handle.
        text(unsafe { cts_tamsi_solver_last_error(self.0) })
    }

    /// Dense one-way (`two_way` false) or two-way data of `nc` contacts, every array the zero
    /// mapping `z` (which must hold Jt: 2nc·6 doubles).
    fn set_dense(&self, nc: usize, z: *const f64, two_way: bool) -> (cts_status, String) {
        // SAFETY: every array is the mapping, long enough for its stated size.
        let s = unsafe {
            if two_way {
                cts_tamsi_solver_set_two_way_coupled_problem_data(
                    self.0,
                    nc,
                    z,
                    6,
                    z,
                    nc,
                    z,
                    2 * nc,
                    z,
                    z,
                    z,
                    z,
                    z,
                )
            } else {
                cts_tamsi_solver_set_one_way_coupled_problem_data(self.0, nc, z, 6, z, nc, z, 2 * nc, z, z, z)
            }
        };
        (s, self.error())
    }

    /// Block-sparse data of one tree and `nc` contacts, every array the zero mapping (a tree of
    /// 0 dofs and contacts on tree 0 twice: invalid, but only once read).
    fn set_blocks(&self, data: &cts_block_sparse_data, z: *const f64, two_way: bool) -> (cts_status, String) {
        // SAFETY: every array is the mapping, long enough for its stated size.
        let s = unsafe {
            if two_way {
                cts_tamsi_solver_set_two_way_coupled_block_problem_data(self.0, data, z, z, z, z, z)
            } else {
                cts_tamsi_solver_set_one_way_coupled_block_problem_data(self.0, data, z, z, z)
            }
        };
        (s, self.error())
    }
}

impl Drop for Tamsi {
    fn drop(&mut self) {
        // SAFETY: the handle made by `new`.
        unsafe { cts_tamsi_solver_free(self.0) };
    }
}

/// `nc` contacts on one tree, every array the zero mapping `z`.
fn block_data(nc: usize, z: &ZeroMap) -> cts_block_sparse_data {
    cts_block_sparse_data {
        num_trees: 1,
        tree_dofs: z.i32(),
        M_len: 36,
        M: z.f64(),
        num_contacts: nc,
        contact_trees: z.i32(),
        J_len: 18 * nc,
        J: z.f64(),
    }
}

/// nc = 2³³ contacts on nv = 6 (issue 33's repro): the dense solve's 32-bit contact block
/// indices cannot address nc·⌈nv/4⌉ = 2³⁴ blocks, so no workspace could ever hold it: refused
/// as INVALID_ARGUMENT before Jt (768 GiB of zeros) is read. nc = 2³⁰ (96 GiB of Jt) is
/// addressable, but its workspace (about 81·nc doubles, 648 GiB) is refused by the system:
/// ALLOCATION_FAILED, again before any read. Both setters, one way and two way.
#[test]
fn tamsi_dense_setters_check_sizes_before_reading() {
    let Some(z) = ZeroMap::doubles(6 << 34) else { return };
    for two_way in [false, true] {
        let name =
            if two_way { "set_two_way_coupled_problem_data" } else { "set_one_way_coupled_problem_data" };
        let t = Tamsi::new();
        refused_at_once(
            &format!("{name}, nc = 2^33"),
            cts_status::InvalidArgument,
            "32-bit block indices",
            || t.set_dense(1 << 33, z.f64(), two_way),
        );
        if refuses_huge_allocations() {
            refused_at_once(&format!("{name}, nc = 2^30"), cts_status::AllocationFailed, "workspace", || {
                t.set_dense(1 << 30, z.f64(), two_way)
            });
        }
        // SAFETY: a live handle.
        assert_eq!(unsafe { cts_tamsi_solver_num_contacts(t.0) }, 0, "nothing was set");
    }
}

/// Block-sparse TAMSI data of nc = 2³⁰ contacts: the per-contact state (21·nc doubles,
/// 168 GiB) is probed before the structure is read. Read first, `tree_dofs[0] = 0` would be an
/// INVALID_ARGUMENT about the data; the sizes refuse it first.
#[test]
fn tamsi_block_setters_check_sizes_before_reading() {
    if !refuses_huge_allocations() {
        return;
    }
    let nc = 1 << 30;
    let Some(z) = ZeroMap::doubles(18 * nc) else { return };
    let data = block_data(nc, &z);
    for two_way in [false, true] {
        let name = if two_way {
            "set_two_way_coupled_block_problem_data"
        } else {
            "set_one_way_coupled_block_problem_data"
        };
        let t = Tamsi::new();
        refused_at_once(name, cts_status::AllocationFailed, "workspace", || {
            t.set_blocks(&data, z.f64(), two_way)
        });
    }
}

/// An interior-point solver, freed on drop.
struct Ipm(*mut cts_ipm_solver);

impl Ipm {
    fn new() -> Self {
        let mut h = std::ptr::null_mut();
        // SAFETY: valid out pointer.
        assert_eq!(unsafe { cts_ipm_solver_new(&mut h) }, cts_status::Ok);
        Self(h)
    }

    fn error(&self) -> String {
        // SAFETY: a live handle.
        text(unsafe { cts_ipm_solver_last_error(self.0) })
    }
}

impl Drop for Ipm {
    fn drop(&mut self) {
        // SAFETY: the handle made by `new`.
        unsafe { cts_ipm_solver_free(self.0) };
    }
}

/// The interior point, dense and block-sparse, nc = 2³⁰ contacts on n = 6: its solve workspace
/// (about 200·nc doubles) is refused before the models, M, J or the block structure are read.
#[test]
fn ipm_setters_check_sizes_before_reading() {
    if !refuses_huge_allocations() {
        return;
    }
    let nc: usize = 1 << 30;
    let Some(z) = ZeroMap::doubles(12 * nc) else { return };
    let (f, i) = (z.f64(), z.i32());
    let s = Ipm::new();
    refused_at_once("cts_ipm_solver_set_problem_data", cts_status::AllocationFailed, "workspace", || {
        // SAFETY: every array is the mapping, long enough for its stated size.
        let st = unsafe {
            cts_ipm_solver_set_problem_data(
                s.0,
                6,
                nc,
                f,
                6,
                f,
                nc,
                f,
                2 * nc,
                f,
                f,
                0.01,
                f,
                f,
                i,
                f,
                2 * nc,
            )
        };
        (st, s.error())
    });
    let data = block_data(nc, &z);
    refused_at_once(
        "cts_ipm_solver_set_block_problem_data",
        cts_status::AllocationFailed,
        "workspace",
        || {
            // SAFETY: as above.
            let st =
                unsafe { cts_ipm_solver_set_block_problem_data(s.0, &data, f, f, 0.01, f, f, i, f, 2 * nc) };
            (st, s.error())
        },
    );
}

/// A Baraff solver, freed on drop.
struct Baraff(*mut cts_baraff_solver);

impl Baraff {
    fn new() -> Self {
        let mut h = std::ptr::null_mut();
        // SAFETY: valid out pointer.
        assert_eq!(unsafe { cts_baraff_solver_new(&mut h) }, cts_status::Ok);
        Self(h)
    }

    fn error(&self) -> String {
        // SAFETY: a live handle.
        text(unsafe { cts_baraff_solver_last_error(self.0) })
    }
}

impl Drop for Baraff {
    fn drop(&mut self) {
        // SAFETY: the handle made by `new`.
        unsafe { cts_baraff_solver_free(self.0) };
    }
}

/// Baraff's setters with m = n = 2¹⁸ (A, M and J: 512 GiB each): the workspace of
/// 5·m² + 2·m·n + n² doubles is refused before the row codes are decoded. `reserve` with
/// m = 2⁴⁰ (no data): 5·m² doubles cannot exist.
#[test]
fn baraff_setters_check_sizes_before_reading() {
    let s = Baraff::new();
    refused_at_once("cts_baraff_solver_reserve", cts_status::InvalidArgument, "too large", || {
        // SAFETY: a live handle.
        (unsafe { cts_baraff_solver_reserve(s.0, 1 << 40, 0) }, s.error())
    });
    if !refuses_huge_allocations() {
        return;
    }
    let m: usize = 1 << 18;
    let Some(z) = ZeroMap::doubles(m * m) else { return };
    let (f, i) = (z.f64(), z.i32());
    refused_at_once(
        "cts_baraff_solver_set_matrix_problem_data",
        cts_status::AllocationFailed,
        "workspace",
        || {
            // SAFETY: every array is the mapping, long enough for its stated size.
            (unsafe { cts_baraff_solver_set_matrix_problem_data(s.0, m, f, m, f, i, i, f, f, f) }, s.error())
        },
    );
    refused_at_once(
        "cts_baraff_solver_set_model_problem_data",
        cts_status::AllocationFailed,
        "workspace",
        || {
            // SAFETY: as above.
            let st = unsafe {
                cts_baraff_solver_set_model_problem_data(
                    s.0,
                    m,
                    m,
                    f,
                    m,
                    f,
                    m,
                    CTS_BARAFF_LEVEL_VELOCITY,
                    f,
                    i,
                    i,
                    f,
                    f,
                    f,
                )
            };
            (st, s.error())
        },
    );
}

/// The LCP solve with n = 2¹⁸ (M: 512 GiB): the workspaces of 4·n² doubles are refused before
/// M or q is read; n = 2³³ (M of 2⁶⁶ doubles) cannot be addressed at all.
#[test]
fn lcp_solve_checks_sizes_before_reading() {
    let mut h = std::ptr::null_mut();
    // SAFETY: valid out pointer.
    assert_eq!(unsafe { cts_lcp_solver_new(&mut h) }, cts_status::Ok);
    // SAFETY: a live handle.
    let error = || text(unsafe { cts_lcp_solver_last_error(h) });
    let n: usize = 1 << 18;
    if let Some(z) = ZeroMap::doubles(n * n) {
        let f = z.f64();
        refused_at_once(
            "cts_lcp_solver_solve, n = 2^33",
            cts_status::InvalidArgument,
            "cannot exist",
            || {
                // SAFETY: the sizes are refused before any pointer is used.
                (
                    unsafe {
                        cts_lcp_solver_solve(
                            h,
                            CTS_LCP_ALGORITHM_LEMKE,
                            1 << 33,
                            f,
                            1 << 33,
                            f,
                            std::ptr::null(),
                        )
                    },
                    error(),
                )
            },
        );
        if refuses_huge_allocations() {
            for alg in [CTS_LCP_ALGORITHM_LEMKE, CTS_LCP_ALGORITHM_UNREVISED_LEMKE] {
                refused_at_once(
                    "cts_lcp_solver_solve, n = 2^18",
                    cts_status::AllocationFailed,
                    "workspaces",
                    || {
                        // SAFETY: M and q are the mapping, long enough for their stated sizes.
                        (unsafe { cts_lcp_solver_solve(h, alg, n, f, n, f, std::ptr::null()) }, error())
                    },
                );
            }
        }
    }
    // SAFETY: the handle made above.
    unsafe { cts_lcp_solver_free(h) };
}
