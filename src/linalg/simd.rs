//! Runtime SIMD dispatch for the dense kernels.
//!
//! Users link the default x86-64 build, which may only assume SSE2. [`dispatch`] runs an
//! operation compiled once more for AVX2 (x86-64-v3) and picks that version when the CPU supports
//! it, so loops inlined into it are vectorized four doubles wide. The IEEE operations per element
//! are the same in both versions (Rust never contracts `a*b + c` into an FMA, and reductions are
//! not reordered), so results are bit-identical whichever version runs.
//!
//! An operation is a type implementing [`WithSimd`] whose `with_simd` is `#[inline(always)]`, as
//! is everything hot it calls: only code inlined into the dispatched function is compiled for
//! AVX2 (a closure would be compiled on its own, for the baseline).

pub use pulp::{Simd, WithSimd};

/// Runs `op` in the best instruction set the CPU offers (pulp's safe dispatch).
#[inline(always)]
pub fn dispatch<Op: WithSimd>(op: Op) -> Op::Output {
    pulp::Arch::new().dispatch(op)
}

/// Runs the closure `f` inside [`dispatch`], for work that starts outside a dispatched operation
/// (a worker thread's share of a parallel solve). Mark the closure `#[inline(always)]`: only then
/// is its body (with the kernels it inlines) compiled into the dispatched function; a closure
/// left to the inliner is compiled for the baseline, where every `f64::mul_add` is a call to
/// libm's `fma` (measured: 2 threads 2× slower than 1).
#[inline(always)]
pub fn dispatch_fn<R>(f: impl FnOnce() -> R) -> R {
    struct Op<F>(F);
    impl<R, F: FnOnce() -> R> WithSimd for Op<F> {
        type Output = R;
        #[inline(always)]
        fn with_simd<S: Simd>(self, _simd: S) -> R {
            (self.0)()
        }
    }
    dispatch(Op(f))
}
