//! A solve allocates nothing once the workspace has grown to the problem's size: a counting
//! global allocator watches the second solve of each problem (and `calc_jacobian`).

mod tamsi_support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use contact_solvers::tamsi::{TamsiParameters, TamsiProblem, TamsiSolver};
use nalgebra::{DMatrix, DMatrixView, DVectorView};
use tamsi_support::scenes::{Scene, pizza_saver, pizza_saver_no_contact, rolling_cylinder};

struct Counting;

thread_local! {
    // Only allocations of the test's own thread, while counting, are recorded.
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record();
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

fn record() {
    let _ = COUNTING.try_with(|c| {
        if c.get() {
            COUNT.with(|n| n.set(n.get() + 1));
        }
    });
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_during(f: impl FnOnce()) -> usize {
    COUNT.with(|n| n.set(0));
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    COUNT.with(|n| n.get())
}

fn second_solve_allocations(solver: &mut TamsiSolver, scene: &Scene) -> usize {
    let problem = scene.problem();
    solver.solve_with_guess(&problem, scene.dt, scene.v0.as_view()).unwrap();
    allocations_during(|| {
        solver.solve_with_guess(&problem, scene.dt, scene.v0.as_view()).unwrap();
    })
}

#[test]
fn solves_do_not_allocate_once_grown() {
    // The counter works.
    assert!(allocations_during(|| drop(vec![1u8; 16])) > 0);

    let mut one_way = TamsiSolver::new(3);
    one_way
        .set_parameters(TamsiParameters {
            stiction_tolerance: 1e-6,
            relative_tolerance: 1e-4,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(second_solve_allocations(&mut one_way, &pizza_saver(6.0)), 0, "one-way");

    let mut no_contact = TamsiSolver::new(3);
    assert_eq!(second_solve_allocations(&mut no_contact, &pizza_saver_no_contact()), 0, "no contact");

    // Two-way with 64 contacts (within the initial capacity) and 256 (beyond it: the first
    // solve grows the workspace, the second does not allocate).
    let mut two_way = TamsiSolver::new(3);
    two_way.set_parameters(TamsiParameters { stiction_tolerance: 1e-6, ..Default::default() }).unwrap();
    for nc in [64, 256] {
        assert_eq!(
            second_solve_allocations(&mut two_way, &rolling_cylinder(0.5, nc)),
            0,
            "two-way nc = {nc}"
        );
    }

    // calc_jacobian, once grown.
    let scene = rolling_cylinder(0.7, 4);
    let mut j = DMatrix::zeros(3, 3);
    let problem = scene.problem();
    two_way.calc_jacobian(&problem, scene.dt, scene.v0.as_view(), j.as_view_mut()).unwrap();
    let n = allocations_during(|| {
        two_way.calc_jacobian(&problem, scene.dt, scene.v0.as_view(), j.as_view_mut()).unwrap();
    });
    assert_eq!(n, 0, "calc_jacobian");
}

#[test]
fn large_problem_solve_does_not_allocate() {
    // nv = 300 goes through the blocked LU (faer) with its preallocated stack.
    let cases = tamsi_support::bench_cases::load();
    let case = cases.iter().find(|c| c.nv == 300).expect("nv = 300 case");
    let (nv, nc) = (case.nv, case.nc);
    let m = DMatrixView::from_slice(case.get("M"), nv, nv);
    let jn = DMatrixView::from_slice(case.get("Jn"), nc, nv);
    let jt = DMatrixView::from_slice(case.get("Jt"), 2 * nc, nv);
    let v = |k: &str| DVectorView::from_slice(case.get(k), case.get(k).len());
    let problem =
        TamsiProblem::two_way(m, jn, jt, v("p_star"), v("fn0"), v("stiffness"), v("dissipation"), v("mu"))
            .unwrap();
    let mut solver = TamsiSolver::new(nv);
    solver.solve_with_guess(&problem, case.dt, v("guess")).unwrap();
    let n = allocations_during(|| {
        solver.solve_with_guess(&problem, case.dt, v("guess")).unwrap();
    });
    assert_eq!(n, 0);
}
