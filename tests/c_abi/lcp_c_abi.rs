//! The LCP solvers through the C ABI (`cts_lcp_*`): Drake's `moby_lcp_solver_test.cc` and
//! `unrevised_lemke_solver_test.cc` cases (`docs/rigid_cases.md` §6–§7) with their expected
//! solutions (1e-6 and 5e-14 absolute, as Drake) and the reference pivot counts; every result is
//! bit-identical to the Rust API's, and every M goes in with NaN padding rows below n.
#![allow(unsafe_code)]

use support::rigid_c_support;

use contact_solvers::ffi::cts_status;
use contact_solvers::ffi::lcp::*;
use contact_solvers::lcp::{
    LcpOutcome, LcpProblem, LemkeVariant, MobyLcpParameters, MobyLcpSolver, RegularizationSchedule,
    UnrevisedLemkeSolver,
};
use nalgebra::{DMatrix, DVector};
use rigid_c_support::{CLcp, LcpRun};

const ALGORITHMS: [i32; 5] = [
    CTS_LCP_ALGORITHM_LEMKE,
    CTS_LCP_ALGORITHM_LEMKE_REGULARIZED,
    CTS_LCP_ALGORITHM_FAST,
    CTS_LCP_ALGORITHM_FAST_REGULARIZED,
    CTS_LCP_ALGORITHM_UNREVISED_LEMKE,
];

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

/// The same solve through the Rust API (fresh solvers, Drake's defaults unless `variant`).
fn rust_solve(alg: i32, m: &DMatrix<f64>, q: &DVector<f64>, variant: LemkeVariant) -> LcpRun {
    let p = LcpProblem::new(m.as_view(), q.as_view()).unwrap();
    if alg == CTS_LCP_ALGORITHM_UNREVISED_LEMKE {
        let mut s = UnrevisedLemkeSolver::new();
        let o = s.solve(&p);
        return LcpRun { status: o.into(), z: s.z().to_vec(), w: s.w().to_vec(), pivots: s.num_pivots() };
    }
    let mut s = MobyLcpSolver::with_parameters(MobyLcpParameters { variant, ..Default::default() }).unwrap();
    let o = match alg {
        CTS_LCP_ALGORITHM_LEMKE => s.solve_lemke(&p),
        CTS_LCP_ALGORITHM_LEMKE_REGULARIZED => {
            s.solve_lemke_regularized(&p, RegularizationSchedule::LEMKE_DEFAULT).unwrap()
        }
        CTS_LCP_ALGORITHM_FAST => s.solve_fast(&p),
        _ => s.solve_fast_regularized(&p, RegularizationSchedule::FAST_DEFAULT).unwrap(),
    };
    LcpRun { status: o.into(), z: s.z().to_vec(), w: s.w().to_vec(), pivots: s.num_pivots() }
}

/// Solves with `alg` through C on a fresh handle and checks it is bit-identical to the Rust API.
fn c_solve(alg: i32, m: &DMatrix<f64>, q: &DVector<f64>) -> LcpRun {
    let run = CLcp::new().solve(alg, m, q, None);
    let rust = rust_solve(alg, m, q, LemkeVariant::Drake);
    assert_eq!(run.status, rust.status, "algorithm {alg}");
    assert_eq!(run.pivots, rust.pivots, "algorithm {alg}");
    assert!(
        run.z.iter().zip(&rust.z).all(|(a, b)| a.to_bits() == b.to_bits()),
        "algorithm {alg}: {:?} vs {:?}",
        run.z,
        rust.z
    );
    assert!(run.w.iter().zip(&rust.w).all(|(a, b)| a.to_bits() == b.to_bits()));
    // w = M z + q is what the getter returns.
    let w = m * DVector::from_column_slice(&run.z) + q;
    assert!(close(&run.w, w.as_slice(), 1e-12 * (1.0 + w.amax())));
    run
}

fn diag_1_to_9() -> (DMatrix<f64>, DVector<f64>) {
    (DMatrix::from_diagonal(&DVector::from_fn(9, |i, _| (i + 1) as f64)), DVector::from_element(9, -1.0))
}

fn problem1() -> (DMatrix<f64>, DVector<f64>) {
    let m = DMatrix::from_fn(16, 16, |i, j| match i.cmp(&j) {
        std::cmp::Ordering::Equal => 1.0,
        std::cmp::Ordering::Less => 2.0,
        std::cmp::Ordering::Greater => 0.0,
    });
    (m, DVector::from_element(16, -1.0))
}

fn problem4() -> (DMatrix<f64>, DVector<f64>) {
    #[rustfmt::skip]
    let m = DMatrix::from_row_slice(4, 4, &[
        0.0, 0.0, 10.0, 20.0,
        0.0, 0.0, 30.0, 15.0,
        10.0, 20.0, 0.0, 0.0,
        30.0, 15.0, 0.0, 0.0]);
    (m, DVector::from_element(4, -1.0))
}

fn problem6(q2: f64) -> (DMatrix<f64>, DVector<f64>) {
    #[rustfmt::skip]
    let m = DMatrix::from_row_slice(4, 4, &[
        11.0, 0.0, 10.0, -1.0,
        0.0, 11.0, 10.0, -1.0,
        10.0, 10.0, 21.0, -1.0,
        1.0, 1.0, 1.0, 0.0]);
    (m, DVector::from_vec(vec![50.0, 50.0, q2, -6.0]))
}

fn cycling() -> (DMatrix<f64>, DVector<f64>) {
    let m = DMatrix::from_row_slice(3, 3, &[1.0, 2.0, 0.0, 0.0, 1.0, 2.0, 2.0, 0.0, 1.0]);
    (m, DVector::from_element(3, -1.0))
}

/// §6 testTrivial, testProblem2, testProblem3, testProblem6: every Moby algorithm (and the
/// unrevised solver) finds Drake's expected z; reference pivot counts where the spec gives them.
#[test]
fn moby_problems_every_algorithm() {
    let (m, q) = diag_1_to_9();
    let trivial: Vec<f64> = (1..=9).map(|i| 1.0 / i as f64).collect();
    let cases: Vec<(DMatrix<f64>, DVector<f64>, Vec<f64>)> = vec![
        (m, q, trivial.clone()),
        (DMatrix::from_element(2, 2, 1.0), DVector::from_element(2, -1.0), vec![1.0, 0.0]),
        (
            DMatrix::from_row_slice(3, 3, &[0.0, -1.0, 2.0, 2.0, 0.0, -2.0, -1.0, 1.0, 0.0]),
            DVector::from_vec(vec![-3.0, 6.0, -1.0]),
            vec![0.0, 1.0, 3.0],
        ),
        {
            let (m, q) = problem6(1.0);
            (m, q, vec![17.0 / 13.0, 17.0 / 13.0, 44.0 / 13.0, 1277.0 / 13.0])
        },
        {
            let (m, q) = problem6(16.0);
            (m, q, vec![32.0 / 13.0, 32.0 / 13.0, 14.0 / 13.0, 1142.0 / 13.0])
        },
        {
            let (m, q) = problem6(100.0);
            (m, q, vec![3.0, 3.0, 0.0, 83.0])
        },
    ];
    for (m, q, expected) in &cases {
        for alg in ALGORITHMS {
            let r = c_solve(alg, m, q);
            assert_eq!(r.status, cts_status::Ok, "algorithm {alg}");
            let tol = if alg == CTS_LCP_ALGORITHM_UNREVISED_LEMKE { 5e-14 } else { 1e-6 };
            assert!(close(&r.z, expected, tol), "algorithm {alg}: {:?} vs {expected:?}", r.z);
            assert!(r.pivots > 0, "algorithm {alg}");
        }
    }
    // [ref] testTrivial: Fast 9 iterations, Lemke 9 pivots; problem 2: 1 pivot; problem 3: 4.
    assert_eq!(c_solve(CTS_LCP_ALGORITHM_FAST, &cases[0].0, &cases[0].1).pivots, 9);
    assert_eq!(c_solve(CTS_LCP_ALGORITHM_LEMKE, &cases[0].0, &cases[0].1).pivots, 9);
    assert_eq!(c_solve(CTS_LCP_ALGORITHM_LEMKE, &cases[1].0, &cases[1].1).pivots, 1);
    assert_eq!(c_solve(CTS_LCP_ALGORITHM_FAST, &cases[1].0, &cases[1].1).pivots, 1);
    assert_eq!(c_solve(CTS_LCP_ALGORITHM_LEMKE, &cases[2].0, &cases[2].1).pivots, 4);

    // testTrivial, second part: M(0, 8) = 10; the regularized solvers agree on (0, 1/2, …, 1/9).
    let (mut m, q) = diag_1_to_9();
    m[(0, 8)] = 10.0;
    let fast = c_solve(CTS_LCP_ALGORITHM_FAST_REGULARIZED, &m, &q);
    let lemke = c_solve(CTS_LCP_ALGORITHM_LEMKE_REGULARIZED, &m, &q);
    let mut expected = trivial;
    expected[0] = 0.0;
    assert_eq!(fast.status, cts_status::Ok);
    assert!(close(&fast.z, &expected, 1e-12), "{:?}", fast.z);
    assert!(close(&lemke.z, &fast.z, 1e-6), "{:?}", lemke.z);
}

/// §6 testProblem1: Fast fails (33 iterations, pivot limit, zeros), Lemke gives e16 in 31
/// pivots, Fast-regularized 0.5·e16, Lemke-regularized e16; §7 TestProblem1: unrevised e16.
#[test]
fn moby_problem1() {
    let (m, q) = problem1();
    let mut e16 = vec![0.0; 16];
    e16[15] = 1.0;
    let fast = c_solve(CTS_LCP_ALGORITHM_FAST, &m, &q);
    assert_eq!(fast.status, cts_status::LcpPivotLimit);
    assert_eq!(fast.pivots, 33);
    assert!(fast.z.iter().all(|&z| z == 0.0));
    let lemke = c_solve(CTS_LCP_ALGORITHM_LEMKE, &m, &q);
    assert_eq!(lemke.status, cts_status::Ok);
    assert_eq!(lemke.pivots, 31);
    assert!(close(&lemke.z, &e16, 1e-6));
    let fast_reg = c_solve(CTS_LCP_ALGORITHM_FAST_REGULARIZED, &m, &q);
    let half: Vec<f64> = e16.iter().map(|x| 0.5 * x).collect();
    assert!(close(&fast_reg.z, &half, 1e-6), "{:?}", fast_reg.z);
    assert!(!close(&fast_reg.z, &e16, 1e-6));
    let lemke_reg = c_solve(CTS_LCP_ALGORITHM_LEMKE_REGULARIZED, &m, &q);
    assert!(close(&lemke_reg.z, &e16, 1e-6));
    let unrevised = c_solve(CTS_LCP_ALGORITHM_UNREVISED_LEMKE, &m, &q);
    assert_eq!(unrevised.status, cts_status::Ok);
    assert!(close(&unrevised.z, &e16, 5e-14));
}

/// §6 testProblem4: Fast finds the book's third solution (1/90, 2/45, 1/90, 2/45) through
/// singular sub-solves; Moby Lemke and unrevised Lemke both fail (ray termination, z = 0).
#[test]
fn moby_problem4() {
    let (m, q) = problem4();
    let fast = c_solve(CTS_LCP_ALGORITHM_FAST, &m, &q);
    assert!(close(&fast.z, &[1.0 / 90.0, 2.0 / 45.0, 1.0 / 90.0, 2.0 / 45.0], 1e-6), "{:?}", fast.z);
    assert_eq!(fast.pivots, 5, "[ref] 5 iterations");
    for alg in [CTS_LCP_ALGORITHM_LEMKE, CTS_LCP_ALGORITHM_UNREVISED_LEMKE] {
        let r = c_solve(alg, &m, &q);
        assert_eq!(r.status, cts_status::LcpRayTermination, "algorithm {alg}");
        assert_eq!(r.z, vec![0.0; 4]);
    }
}

/// §6 testEmpty / §7 TestEmpty, testFailure / TestFailure.
#[test]
fn empty_and_failure() {
    let (m0, q0) = (DMatrix::zeros(0, 0), DVector::zeros(0));
    for alg in ALGORITHMS {
        let r = c_solve(alg, &m0, &q0);
        assert_eq!((r.status, r.z.len(), r.pivots), (cts_status::Ok, 0, 0), "algorithm {alg}");
    }
    let (m, q) = (DMatrix::from_element(1, 1, -1.0), DVector::from_element(1, -1.0));
    for alg in [CTS_LCP_ALGORITHM_LEMKE, CTS_LCP_ALGORITHM_FAST, CTS_LCP_ALGORITHM_UNREVISED_LEMKE] {
        let r = c_solve(alg, &m, &q);
        assert_ne!(r.status, cts_status::Ok, "algorithm {alg}");
        assert_eq!(r.z, vec![0.0], "algorithm {alg}");
        assert_eq!(r.w, vec![-1.0], "w = M z + q");
    }
    assert_eq!(c_solve(CTS_LCP_ALGORITHM_FAST, &m, &q).status, cts_status::LcpPivotLimit);
    let reg = c_solve(CTS_LCP_ALGORITHM_LEMKE_REGULARIZED, &m, &q);
    assert_eq!(reg.status, cts_status::LcpRegularizationFailed);
}

/// §7 TestCycling (9 pivots), TestSimple, TestPSD (the artificial wins the tie), Trivial
/// (0 pivots), and the lexicographic Moby variant on the cycling example.
#[test]
fn unrevised_cases() {
    let (m, q) = cycling();
    let r = c_solve(CTS_LCP_ALGORITHM_UNREVISED_LEMKE, &m, &q);
    assert_eq!(r.status, cts_status::Ok);
    assert!(close(&r.z, &[1.0 / 3.0; 3], 5e-14), "{:?}", r.z);
    assert_eq!(r.pivots, 9, "[ref] 9 pivots");
    let (m9, q9) = diag_1_to_9();
    let r = c_solve(CTS_LCP_ALGORITHM_UNREVISED_LEMKE, &m9, &q9);
    assert!(close(&r.z, &(1..=9).map(|i| 1.0 / i as f64).collect::<Vec<_>>(), 5e-14));
    let psd = DMatrix::from_row_slice(2, 2, &[1.0, -1.0, -1.0, 1.0]);
    let r = c_solve(CTS_LCP_ALGORITHM_UNREVISED_LEMKE, &psd, &DVector::from_vec(vec![1.0, -1.0]));
    assert_eq!(r.status, cts_status::Ok);
    assert!(close(&r.z, &[0.0, 1.0], 5e-14), "{:?}", r.z);
    let r =
        c_solve(CTS_LCP_ALGORITHM_UNREVISED_LEMKE, &DMatrix::identity(3, 3), &DVector::from_element(3, 1.0));
    assert_eq!((r.status, r.pivots), (cts_status::Ok, 0));
    assert_eq!(r.z, vec![0.0; 3]);

    // Moby's Lemke with Drake's rule on the cycling example vs the lexicographic variant.
    let drake = c_solve(CTS_LCP_ALGORITHM_LEMKE, &m, &q);
    let mut lex = CLcp::new();
    let mut p = default_parameters();
    p.lemke_variant = CTS_LCP_LEMKE_VARIANT_LEXICOGRAPHIC;
    lex.set_parameters(&p);
    let r = lex.solve(CTS_LCP_ALGORITHM_LEMKE, &m, &q, None);
    let rust = rust_solve(CTS_LCP_ALGORITHM_LEMKE, &m, &q, LemkeVariant::Lexicographic);
    assert_eq!(r, rust);
    assert_eq!(r.status, cts_status::Ok);
    assert!(close(&r.z, &[1.0 / 3.0; 3], 1e-12), "lexicographic {:?}", r.z);
    assert!(drake.status != cts_status::Ok || !close(&drake.z, &[1.0 / 3.0; 3], 1e-6), "{drake:?}");
}

/// §7 WarmStarting: the same handle solves the cycling example, then 2q in exactly 1 pivot.
#[test]
fn unrevised_warm_start_on_one_handle() {
    let (m, q) = cycling();
    let mut h = CLcp::new();
    let r = h.solve(CTS_LCP_ALGORITHM_UNREVISED_LEMKE, &m, &q, None);
    assert!(close(&r.z, &[1.0 / 3.0; 3], 5e-14) && r.pivots >= 1);
    let r = h.solve(CTS_LCP_ALGORITHM_UNREVISED_LEMKE, &m, &(2.0 * &q), None);
    assert!(close(&r.z, &[2.0 / 3.0; 3], 5e-14), "{:?}", r.z);
    assert_eq!(r.pivots, 1);
    // A clone carries the warm start along.
    let mut copy = std::ptr::null_mut();
    assert_eq!(unsafe { cts_lcp_solver_clone(h.0, &mut copy) }, cts_status::Ok);
    let mut copy = CLcp(copy);
    let r = copy.solve(CTS_LCP_ALGORITHM_UNREVISED_LEMKE, &m, &(3.0 * &q), None);
    assert!(close(&r.z, &[1.0; 3], 5e-14) && r.pivots == 1, "{r:?}");
    // A fresh handle needs the full pivot sequence.
    let r = CLcp::new().solve(CTS_LCP_ALGORITHM_UNREVISED_LEMKE, &m, &(2.0 * &q), None);
    assert_eq!(r.pivots, 9);
}

/// Fast warm start (`z0`): starting from the solution finishes in one iteration; the result is
/// the Rust API's `solve_fast_warm`.
#[test]
fn fast_warm_start() {
    let (m, q) = problem6(1.0);
    let cold = c_solve(CTS_LCP_ALGORITHM_FAST, &m, &q);
    let warm = CLcp::new().solve(CTS_LCP_ALGORITHM_FAST, &m, &q, Some(&cold.z));
    let mut s = MobyLcpSolver::new();
    let p = LcpProblem::new(m.as_view(), q.as_view()).unwrap();
    assert_eq!(s.solve_fast_warm(&p, &cold.z).unwrap(), LcpOutcome::Solved);
    assert_eq!(warm.z, s.z());
    assert_eq!(warm.pivots, 1);
    assert!(close(&warm.z, &[17.0 / 13.0, 17.0 / 13.0, 44.0 / 13.0, 1277.0 / 13.0], 1e-6));
}

/// Parameters reach the solvers: a zero tolerance, a pivot limit and a regularization schedule.
#[test]
fn parameters_take_effect() {
    let (m, q) = problem1();
    let mut h = CLcp::new();
    let mut p = default_parameters();
    p.max_pivots = 5;
    h.set_parameters(&p);
    let r = h.solve(CTS_LCP_ALGORITHM_LEMKE, &m, &q, None);
    assert_eq!((r.status, r.pivots), (cts_status::LcpPivotLimit, 5));
    assert_eq!(r.z, vec![0.0; 16]);
    // Fast-regularized with a schedule that stops before the shift 1 that solves problem 1.
    let mut p = default_parameters();
    p.fast_max_exp = -1;
    h.set_parameters(&p);
    let r = h.solve(CTS_LCP_ALGORITHM_FAST_REGULARIZED, &m, &q, None);
    assert_eq!(r.status, cts_status::LcpRegularizationFailed);
    let mut got = default_parameters();
    got.fast_max_exp = 123;
    assert_eq!(unsafe { cts_lcp_solver_get_parameters(h.0, &mut got) }, cts_status::Ok);
    assert_eq!(got, p);
}

fn default_parameters() -> cts_lcp_parameters {
    let mut p = std::mem::MaybeUninit::<cts_lcp_parameters>::zeroed();
    unsafe {
        cts_lcp_parameters_default(p.as_mut_ptr());
        p.assume_init()
    }
}

/// §7 TestSolutionQuality and ZeroTolerance through the handle-free functions.
#[test]
fn is_solution_and_zero_tolerance() {
    let one = [1.0];
    let mut ok = -1;
    let z = [1.0 - f64::EPSILON];
    let q = [-1.0];
    unsafe {
        assert_eq!(
            cts_lcp_is_solution(1, one.as_ptr(), 1, q.as_ptr(), z.as_ptr(), -1.0, &mut ok),
            cts_status::Ok
        );
        assert_eq!(ok, 1);
        ok = -1;
        assert_eq!(
            cts_lcp_is_solution(1, one.as_ptr(), 1, q.as_ptr(), z.as_ptr(), 3e-16, &mut ok),
            cts_status::Ok
        );
        assert_eq!(ok, 1);
        let bad = [0.5];
        assert_eq!(
            cts_lcp_is_solution(1, one.as_ptr(), 1, q.as_ptr(), bad.as_ptr(), -1.0, &mut ok),
            cts_status::Ok
        );
        assert_eq!(ok, 0);
        // Issue 24: M = [0] (or [−0]) gives a zero tolerance; z = 0 with w = q = 0.36 is a solution.
        for m0 in [[0.0], [-0.0]] {
            let (q, z) = ([0.36], [0.0]);
            ok = -1;
            assert_eq!(
                cts_lcp_is_solution(1, m0.as_ptr(), 1, q.as_ptr(), z.as_ptr(), 0.0, &mut ok),
                cts_status::Ok
            );
            assert_eq!(ok, 1, "M = [{}]", m0[0]);
        }
    }
    let eps = f64::EPSILON;
    let tol = |alg: i32, m: &DMatrix<f64>| {
        let (buf, ld) = rigid_c_support::padded(m, 1);
        let mut t = f64::NAN;
        assert_eq!(
            unsafe { cts_lcp_compute_zero_tolerance(alg, m.nrows(), buf.as_ptr(), ld, &mut t) },
            cts_status::Ok
        );
        t
    };
    let u = CTS_LCP_ALGORITHM_UNREVISED_LEMKE;
    assert!((tol(u, &DMatrix::from_element(1, 1, 1.0)) - eps).abs() < 10.0 * eps);
    assert!((tol(u, &DMatrix::from_element(1, 1, 1e10)) - 1e10 * eps).abs() < 1e11 * eps);
    assert!((tol(u, &DMatrix::identity(10, 10)) - 100.0 * eps).abs() < 1000.0 * eps);
    assert_eq!(tol(u, &DMatrix::identity(10, 10)), 10.0 * 2.2 * eps);
    // Moby: n · max|M| · 10 eps (the accel LCP of docs/rigid_cases.md §2.2 has 2.664535e-13).
    assert_eq!(tol(CTS_LCP_ALGORITHM_LEMKE, &DMatrix::from_element(8, 8, 15.0)), 8.0 * 15.0 * 10.0 * eps);
    assert!((8.0 * 15.0 * 10.0 * eps - 2.664535e-13).abs() < 1e-19);
}

// ------------------------------------------------------------------------------------------
// Issue 13: OK means z passed the residual test, through the C ABI (status and message).

/// Status and message of one solve, the message read before any other call on the handle.
fn solve_message(h: &CLcp, alg: i32, m: &DMatrix<f64>, q: &DVector<f64>) -> (cts_status, String) {
    let (buf, ld) = rigid_c_support::padded(m, 2);
    let status =
        unsafe { cts_lcp_solver_solve(h.0, alg, q.len(), buf.as_ptr(), ld, q.as_ptr(), std::ptr::null()) };
    (status, h.last_error())
}

fn solve_info(h: &CLcp) -> cts_lcp_solve_info {
    let mut info = std::mem::MaybeUninit::<cts_lcp_solve_info>::zeroed();
    assert_eq!(unsafe { cts_lcp_solver_get_solve_info(h.0, info.as_mut_ptr()) }, cts_status::Ok);
    unsafe { info.assume_init() }
}

/// "fast" on M = {0}, q = {−1}: CTS_STATUS_LCP_NON_FINITE_SOLUTION (Drake: true with z = inf),
/// also with Drake's verdict; z stays readable.
#[test]
fn fast_on_a_zero_matrix_reports_a_non_finite_solution() {
    let (m, q) = (DMatrix::from_element(1, 1, 0.0), DVector::from_element(1, -1.0));
    for compatible in [0, 1] {
        let mut h = CLcp::new();
        let mut p = default_parameters();
        p.drake_compatible_verdict = compatible;
        h.set_parameters(&p);
        let r = h.solve(CTS_LCP_ALGORITHM_FAST, &m, &q, None);
        assert_eq!(r.status, cts_status::LcpNonFiniteSolution);
        assert_eq!(r.status as i32, 28);
        assert_eq!(r.z, vec![f64::INFINITY]);
        let info = solve_info(&h);
        assert_eq!(
            (info.algorithm, info.drake_verdict, info.residual_test_passed),
            (CTS_LCP_ALGORITHM_FAST, 1, 0)
        );
    }
    let (status, msg) = solve_message(&CLcp::new(), CTS_LCP_ALGORITHM_FAST, &m, &q);
    assert_eq!(status, cts_status::LcpNonFiniteSolution);
    assert_eq!(
        msg,
        "cts_lcp_solver_solve: LCP: the solution is not finite: z[0] = inf is not finite (n = 1, 1 pivots)"
    );
    let text = unsafe { std::ffi::CStr::from_ptr(contact_solvers::ffi::status::cts_status_string(28)) };
    assert_eq!(text.to_str().unwrap(), "LCP: the solution is not finite");
}

/// The issue's contact LCPs through C: fast on a 30-contact box stack (NaN), regularized Lemke
/// on a 200-unknown box tower (now OK, unshifted, at the refactor path's pivot count) and on a
/// 3-D stack (a shifted problem's solution: status 27 naming the shift), lexicographic Lemke on
/// a 128-unknown brick wall (OK). Every status and z equals the Rust API's.
#[test]
fn issue_contact_lcps_through_the_c_abi() {
    let (m, q) = support::stacks::box_tower_2d(15, 5).impact_lcp();
    let r = CLcp::new().solve(CTS_LCP_ALGORITHM_FAST, &m, &q, None);
    assert_eq!(r.status, rust_solve(CTS_LCP_ALGORITHM_FAST, &m, &q, LemkeVariant::Drake).status);
    assert_eq!(r.status, cts_status::LcpNonFiniteSolution);
    assert!(r.z.iter().all(|z| z.is_nan()));
    let (_, msg) = solve_message(&CLcp::new(), CTS_LCP_ALGORITHM_FAST, &m, &q);
    assert!(
        msg.starts_with(
            "cts_lcp_solver_solve: LCP: the solution is not finite: z[0] = NaN is not finite (n = 120,"
        ),
        "{msg}"
    );

    let (m, q) = support::stacks::box_tower_2d(25, 0).impact_lcp();
    let r = c_solve(CTS_LCP_ALGORITHM_LEMKE_REGULARIZED, &m, &q);
    assert_eq!(r.status, cts_status::Ok);
    let mut h = CLcp::new();
    let mut p = default_parameters();
    p.refactor_interval = 1;
    h.set_parameters(&p);
    let drake_arithmetic = h.solve(CTS_LCP_ALGORITHM_LEMKE, &m, &q, None);
    assert_eq!((drake_arithmetic.status, drake_arithmetic.pivots), (cts_status::Ok, r.pivots));
    let mut h = CLcp::new();
    h.solve(CTS_LCP_ALGORITHM_LEMKE_REGULARIZED, &m, &q, None);
    let info = solve_info(&h);
    assert_eq!((info.regularized, info.regularization_exponent, info.regularization), (0, 0, 0.0));
    assert_eq!((info.drake_verdict, info.residual_test_passed), (1, 1));
    assert!(info.min_w >= -info.residual_tolerance && info.max_complementarity <= info.complementarity_bound);
    assert_eq!(info.zero_tolerance, 200.0 * m.amax() * 10.0 * f64::EPSILON);

    let (m, q) = support::stacks::box_stack_3d(4, 1).impact_lcp();
    let r = c_solve(CTS_LCP_ALGORITHM_LEMKE_REGULARIZED, &m, &q);
    let h = CLcp::new();
    let (status, msg) = solve_message(&h, CTS_LCP_ALGORITHM_LEMKE_REGULARIZED, &m, &q);
    assert_eq!(status, r.status);
    let info = solve_info(&h);
    assert_eq!(info.drake_verdict, 1);
    if r.status != cts_status::Ok {
        assert_eq!(r.status, cts_status::LcpResidualTestFailed);
        assert_eq!((info.regularized, info.residual_test_passed), (1, 0));
        assert_eq!(info.regularization, 10f64.powf(f64::from(info.regularization_exponent)));
        let shift = format!("accepted for M + 1e{} I", info.regularization_exponent);
        assert!(
            msg.starts_with("cts_lcp_solver_solve: LCP: the solution failed the residual test: "),
            "{msg}"
        );
        assert!(msg.contains(&shift) && msg.contains(" < -tol["), "{msg}");
    }

    let (m, q) = support::stacks::brick_wall_2d(5, 8, 1).frictionless_lcp();
    let mut h = CLcp::new();
    let mut p = default_parameters();
    p.lemke_variant = CTS_LCP_LEMKE_VARIANT_LEXICOGRAPHIC;
    h.set_parameters(&p);
    let r = h.solve(CTS_LCP_ALGORITHM_LEMKE, &m, &q, None);
    assert_eq!(r, rust_solve(CTS_LCP_ALGORITHM_LEMKE, &m, &q, LemkeVariant::Lexicographic));
    assert_eq!(r.status, cts_status::Ok);
    assert!(r.z.iter().all(|&z| (0.0..100.0).contains(&z)));
}

/// NaN/inf in M, q or z0: CTS_STATUS_INVALID_ARGUMENT naming the argument and the index; nothing
/// solved, the previous results kept.
#[test]
fn non_finite_problem_data_is_an_invalid_argument() {
    let (mut m, q) = problem4();
    let mut h = CLcp::new();
    let good = h.solve(CTS_LCP_ALGORITHM_FAST, &m, &q, None);
    m[(1, 2)] = f64::NAN;
    let (buf, ld) = rigid_c_support::padded(&m, 1);
    let call = |h: &CLcp, alg: i32, q: &[f64], z0: *const f64| unsafe {
        cts_lcp_solver_solve(h.0, alg, 4, buf.as_ptr(), ld, q.as_ptr(), z0)
    };
    for alg in ALGORITHMS {
        assert_eq!(call(&h, alg, q.as_slice(), std::ptr::null()), cts_status::InvalidArgument);
        assert_eq!(h.last_error(), "cts_lcp_solver_solve: M[1, 2] = NaN, expected a finite value");
    }
    m[(1, 2)] = 0.0;
    let (buf, ld) = rigid_c_support::padded(&m, 1);
    let qbad = [-1.0, f64::INFINITY, -1.0, -1.0];
    let status =
        unsafe { cts_lcp_solver_solve(h.0, 0, 4, buf.as_ptr(), ld, qbad.as_ptr(), std::ptr::null()) };
    assert_eq!(status, cts_status::InvalidArgument);
    assert_eq!(h.last_error(), "cts_lcp_solver_solve: q[1] = inf, expected a finite value");
    let z0 = [0.0, 0.0, f64::NAN, 0.0];
    let status = unsafe {
        cts_lcp_solver_solve(h.0, CTS_LCP_ALGORITHM_FAST, 4, buf.as_ptr(), ld, q.as_ptr(), z0.as_ptr())
    };
    assert_eq!(status, cts_status::InvalidArgument);
    assert_eq!(h.last_error(), "cts_lcp_solver_solve: z0[2] = NaN, expected a finite value");
    // The previous results are kept.
    let mut z = vec![0.0; 4];
    assert_eq!(unsafe { cts_lcp_solver_get_z(h.0, z.as_mut_ptr(), 4) }, cts_status::Ok);
    assert_eq!(z, good.z);
}

/// Parameter domains of issue 13: bounded schedules, the verdict flag, the residual tolerance;
/// the info getter's usage errors.
#[test]
fn bounded_parameters_and_info_getter() {
    let h = CLcp::new();
    let set = |p: &cts_lcp_parameters| unsafe { cts_lcp_solver_set_parameters(h.0, p) };
    let mut p = default_parameters();
    assert_eq!((p.drake_compatible_verdict, p.residual_tolerance), (0, -1.0));
    p.lemke_min_exp = i32::MIN;
    p.lemke_max_exp = i32::MAX;
    assert_eq!(set(&p), cts_status::InvalidArgument);
    assert_eq!(
        h.last_error(),
        "cts_lcp_solver_set_parameters: invalid parameter: lemke_min_exp = -2147483648, expected |lemke_min_exp| <= 300"
    );
    let mut p = default_parameters();
    p.fast_min_exp = -300;
    p.fast_step_exp = 1;
    p.fast_max_exp = 300;
    assert_eq!(set(&p), cts_status::InvalidArgument);
    assert!(
        h.last_error().contains("fast_step_exp = 1, fast_max_exp = 300 try 600 shifts, expected at most 100")
    );
    let mut p = default_parameters();
    p.drake_compatible_verdict = 2;
    assert_eq!(set(&p), cts_status::InvalidArgument);
    assert_eq!(
        h.last_error(),
        "cts_lcp_solver_set_parameters: drake_compatible_verdict = 2, expected 0 or 1"
    );
    let mut p = default_parameters();
    p.residual_tolerance = f64::NAN;
    assert_eq!(set(&p), cts_status::InvalidArgument);
    assert!(h.last_error().contains("residual_tolerance = NaN"), "{}", h.last_error());
    // A 1×1 solve with the widest allowed schedule ends after at most 100 shifts.
    let mut p = default_parameters();
    p.lemke_min_exp = -300;
    p.lemke_step_exp = 6;
    p.lemke_max_exp = 300;
    assert_eq!(set(&p), cts_status::Ok);
    let mut info = std::mem::MaybeUninit::<cts_lcp_solve_info>::zeroed();
    assert_eq!(unsafe { cts_lcp_solver_get_solve_info(h.0, info.as_mut_ptr()) }, cts_status::NoSolution);
    assert_eq!(unsafe { cts_lcp_solver_get_solve_info(h.0, std::ptr::null_mut()) }, cts_status::NullPointer);
    let (m, q) = (DMatrix::from_element(1, 1, -1.0), DVector::from_element(1, -1.0));
    let mut h = h;
    let r = h.solve(CTS_LCP_ALGORITHM_LEMKE_REGULARIZED, &m, &q, None);
    assert_eq!(r.status, cts_status::LcpResidualTestFailed);
    assert!(r.pivots <= 101);
    let info = solve_info(&h);
    assert_eq!((info.regularized, info.drake_verdict), (1, 1));
    assert!((0..300).contains(&info.regularization_exponent));
    // The lexicographic cap: Murty's n = 10 problem needs 1023 pivots.
    let n = 10;
    let m = DMatrix::from_fn(n, n, |i, j| match i.cmp(&j) {
        std::cmp::Ordering::Equal => 1.0,
        std::cmp::Ordering::Less => 2.0,
        std::cmp::Ordering::Greater => 0.0,
    });
    let q = DVector::from_fn(n, |i, _| -((1u64 << (n + 1)) as f64 - (1u64 << (i + 1)) as f64));
    let mut p = default_parameters();
    p.lemke_variant = CTS_LCP_LEMKE_VARIANT_LEXICOGRAPHIC;
    h.set_parameters(&p);
    let r = h.solve(CTS_LCP_ALGORITHM_LEMKE, &m, &q, None);
    assert_eq!((r.status, r.pivots), (cts_status::Ok, 1023));
    let info = solve_info(&h);
    assert_eq!(info.pivot_tolerance, 10.0 * 2.0 * f64::EPSILON);
}
