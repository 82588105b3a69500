//! A counting `fma` for the whole test process (issue 29): the solvers' kernels use
//! `f64::mul_add`, which is one fused instruction inside the crate's SIMD dispatch
//! (`crate::linalg::simd`, AVX2 + FMA) and a call to the C library's `fma` anywhere else. A hot
//! path compiled outside the dispatch (the regression of `docs/performance.md` §3, "Second
//! pass": 2× the instructions of a TAMSI iteration) therefore shows as calls to `fma`.
//!
//! The definition below takes the place of libm's `fma` for every object linked into this test
//! binary (the executable's own symbol wins), counts the calls of the thread that measures while
//! it measures (like `counting_alloc`), and returns the correctly rounded `x·y + z`: the FMA
//! instruction when the CPU has it, else libm's own `fma` found with `dlsym(RTLD_NEXT)`.
#![allow(unsafe_code)]

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

/// `fma(x, y, z)` for the code of this process: counts, then computes it.
#[unsafe(no_mangle)]
pub extern "C" fn fma(x: f64, y: f64, z: f64) -> f64 {
    // `try_with`: calls during thread teardown find the thread-locals gone.
    let _ = COUNTING.try_with(|c| {
        if c.get() {
            let n = COUNT.with(|n| n.replace(n.get() + 1));
            if n == 0 && std::env::var_os("FMA_BACKTRACE").is_some() {
                // Where the first counted call comes from (set FMA_BACKTRACE=1 to find it).
                c.set(false);
                eprintln!("first counted fma call:\n{}", std::backtrace::Backtrace::force_capture());
                c.set(true);
            }
        }
    });
    fused(x, y, z)
}

#[cfg(target_arch = "x86_64")]
fn fused(x: f64, y: f64, z: f64) -> f64 {
    #[target_feature(enable = "fma")]
    fn hardware(x: f64, y: f64, z: f64) -> f64 {
        use std::arch::x86_64::{_mm_cvtsd_f64, _mm_fmadd_sd, _mm_set_sd};
        _mm_cvtsd_f64(_mm_fmadd_sd(_mm_set_sd(x), _mm_set_sd(y), _mm_set_sd(z)))
    }
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has the FMA instructions (checked just above).
        unsafe { hardware(x, y, z) }
    } else {
        libm_fma(x, y, z)
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn fused(x: f64, y: f64, z: f64) -> f64 {
    libm_fma(x, y, z)
}

/// The C library's `fma` (the next definition after this executable's).
fn libm_fma(x: f64, y: f64, z: f64) -> f64 {
    static LIBM: AtomicUsize = AtomicUsize::new(0);
    let mut f = LIBM.load(Ordering::Relaxed);
    if f == 0 {
        // SAFETY: dlsym with a valid NUL-terminated name; RTLD_NEXT skips this executable.
        f = unsafe { libc::dlsym(libc::RTLD_NEXT, c"fma".as_ptr()) } as usize;
        assert_ne!(f, 0, "libm's fma not found");
        LIBM.store(f, Ordering::Relaxed);
    }
    // SAFETY: the symbol is libm's `double fma(double, double, double)`.
    let f: extern "C" fn(f64, f64, f64) -> f64 = unsafe { std::mem::transmute(f) };
    f(x, y, z)
}

/// Calls to `fma` that `f` makes on this thread.
pub fn fma_calls_during(f: impl FnOnce()) -> usize {
    crate::counting_alloc::count_during(&COUNTING, &COUNT, f)
}

/// Whether the crate's SIMD dispatch runs its AVX2 + FMA version on this CPU (only then is a
/// call to `fma` in a solve a defect).
pub fn dispatch_has_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        pulp::x86::V3::try_new().is_some()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}
