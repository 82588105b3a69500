//! TAMSI sensitivities in the C API (`docs/tamsi_sensitivities.md` §6): the derivatives of a
//! converged solve's results by implicit differentiation, as full Jacobians and as
//! vector–Jacobian products.

use super::{NormalData, cts_tamsi_solver};
use crate::ffi::handle::{Call, Results, read, with_mut, with_ref};
use crate::ffi::message;
use crate::ffi::status::{FfiError, cts_status};
use crate::ffi::view::{RawVector, copy_out_matrix, output};
use crate::tamsi::{CouplingScheme, TamsiSensitivityOutput, TamsiSensitivityParameter};

/// Sensitivity parameter θ = p* (nv columns; N·s).
pub const CTS_TAMSI_SENSITIVITY_P_STAR: i32 = 0;
/// Sensitivity parameter θ = fn, the normal forces of one-way data (nc columns; N).
pub const CTS_TAMSI_SENSITIVITY_FN: i32 = 1;
/// Sensitivity parameter θ = fn0 of two-way data (nc columns; N).
pub const CTS_TAMSI_SENSITIVITY_FN0: i32 = 2;
/// Sensitivity parameter θ = stiffness k of two-way data (nc columns; N/m).
pub const CTS_TAMSI_SENSITIVITY_STIFFNESS: i32 = 3;
/// Sensitivity parameter θ = dissipation d of two-way data (nc columns; s/m).
pub const CTS_TAMSI_SENSITIVITY_DISSIPATION: i32 = 4;
/// Sensitivity parameter θ = μ (nc columns; dimensionless).
pub const CTS_TAMSI_SENSITIVITY_MU: i32 = 5;
/// Sensitivity parameter θ = dt (1 column; s), with p* held fixed.
pub const CTS_TAMSI_SENSITIVITY_DT: i32 = 6;

/// `cts_tamsi_solver_coupling_scheme`: no problem data (or a NULL handle).
pub const CTS_TAMSI_COUPLING_NONE: i32 = 0;
/// `cts_tamsi_solver_coupling_scheme`: one-way coupled data (normal forces given).
pub const CTS_TAMSI_COUPLING_ONE_WAY: i32 = 1;
/// `cts_tamsi_solver_coupling_scheme`: two-way coupled data (normal forces from fn0, k, d).
pub const CTS_TAMSI_COUPLING_TWO_WAY: i32 = 2;

/// The coupling scheme of the current problem data, which decides the sensitivity parameters
/// that exist (FN one-way; FN0, STIFFNESS, DISSIPATION two-way): CTS_TAMSI_COUPLING_ONE_WAY or
/// _TWO_WAY, CTS_TAMSI_COUPLING_NONE without data or for a NULL handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_coupling_scheme(s: *const cts_tamsi_solver) -> i32 {
    read(s, CTS_TAMSI_COUPLING_NONE, |h| match h.data.map(|d| d.normal) {
        None => CTS_TAMSI_COUPLING_NONE,
        Some(NormalData::OneWay { .. }) => CTS_TAMSI_COUPLING_ONE_WAY,
        Some(NormalData::TwoWay { .. }) => CTS_TAMSI_COUPLING_TWO_WAY,
    })
}

/// Computes the full Jacobians of the last solve's results (v, fn, ft) with respect to every
/// parameter of its scheme by implicit differentiation: the Newton matrix is assembled and
/// factored at the returned v, then solved once per parameter column. Read them with
/// `cts_tamsi_solver_get_velocity_sensitivity`, `_get_normal_force_sensitivity` and
/// `_get_friction_force_sensitivity`. Reads the borrowed problem data (unchanged since the solve).
/// Memory: (nv + 3nc)·(nv + 2nc + 1) doubles one-way, (nv + 3nc)·(nv + 4nc + 1) two-way, kept for
/// later calls.
///
/// Returns CTS_STATUS_OK; CTS_STATUS_NULL_POINTER; CTS_STATUS_NO_PROBLEM_DATA;
/// CTS_STATUS_NO_SOLUTION (no solve of the current data); CTS_STATUS_NO_SENSITIVITIES (the last
/// solve did not converge, or the Newton matrix at its solution is singular);
/// CTS_STATUS_ALLOCATION_FAILED (the storage cannot be allocated now; nothing changed);
/// CTS_STATUS_INVALID_ARGUMENT (the storage could never exist: more than isize::MAX bytes).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_compute_sensitivities(solver: *mut cts_tamsi_solver) -> cts_status {
    with_mut(solver, "cts_tamsi_solver_compute_sensitivities", Call::Starts, |h| {
        let data = *h.data()?;
        h.results()?;
        // SAFETY: the borrowing rule keeps the problem data valid for this call.
        let problem = unsafe { data.problem(&h.layout)? };
        h.solver.compute_sensitivities(&problem)?;
        Ok(cts_status::Ok)
    })
}

/// The parameter with C code `parameter`.
fn parameter_of(parameter: i32) -> Result<TamsiSensitivityParameter, FfiError> {
    TamsiSensitivityParameter::from_code(parameter).ok_or_else(|| {
        FfiError::new(
            cts_status::InvalidArgument,
            format!("parameter = {parameter} is not a CTS_TAMSI_SENSITIVITY_* code (0..6)"),
        )
    })
}

/// Copies one sensitivity matrix (rows × cols, column-major) into `(out, ld_out)`: the getters'
/// body, with `out` as C passed it (NULL or `ld_out*(cols-1)+rows` writable doubles).
fn copy_sensitivity(
    solver: *const cts_tamsi_solver,
    function: &'static str,
    output_kind: TamsiSensitivityOutput,
    parameter: i32,
    out: *mut f64,
    ld_out: usize,
    cols: usize,
) -> cts_status {
    with_ref(solver, function, |h| {
        let param = parameter_of(parameter)?;
        let matrix = h.results()?.sensitivity(output_kind, param)?;
        let want = matrix.ncols();
        if cols != want {
            return Err(FfiError::new(
                cts_status::DimensionMismatch,
                format!("cols = {cols}, expected {want} for parameter {}", param.name()),
            ));
        }
        // SAFETY: NULL or a writable buffer of the validated size (the contract).
        unsafe { copy_out_matrix(None, out, ld_out, &matrix) }
    })
}

/// Copies ∂v/∂θ from the last `cts_tamsi_solver_compute_sensitivities`: an nv × cols
/// column-major matrix into `out` with leading dimension `ld_out >= max(1, nv)` (rows
/// nv..ld_out−1 untouched). `parameter` is a CTS_TAMSI_SENSITIVITY_* code of the solve's scheme
/// (P_STAR, MU, DT; FN one-way; FN0, STIFFNESS, DISSIPATION two-way); `cols` must be its size:
/// nv for P_STAR, 1 for DT, nc otherwise. Column j is the derivative of v (m/s) with respect to
/// entry j of θ: 1/kg for p*, (m/s)/N for fn and fn0, m²/(N·s) for k, m²/s² for d, m/s for μ,
/// m/s² for dt.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, CTS_STATUS_INVALID_ARGUMENT (`parameter`
/// unknown or not of the scheme, `ld_out`), CTS_STATUS_DIMENSION_MISMATCH (`cols`),
/// CTS_STATUS_NO_SOLUTION (no solve of the current data, or no sensitivities computed since).
/// Nothing is written on error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_get_velocity_sensitivity(
    s: *const cts_tamsi_solver,
    parameter: i32,
    out: *mut f64,
    ld_out: usize,
    cols: usize,
) -> cts_status {
    copy_sensitivity(
        s,
        "cts_tamsi_solver_get_velocity_sensitivity",
        TamsiSensitivityOutput::Velocities,
        parameter,
        out,
        ld_out,
        cols,
    )
}

/// Copies ∂fn/∂θ (normal forces, N): an nc × cols column-major matrix into `out` with leading
/// dimension `ld_out >= max(1, nc)`. One-way, fn is the input (∂fn/∂fn = I, zero for the other
/// parameters); two-way, the law fn(vn) at the solution. `parameter` and `cols` as for
/// `cts_tamsi_solver_get_velocity_sensitivity`; units N per unit of θ. Statuses likewise.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_get_normal_force_sensitivity(
    s: *const cts_tamsi_solver,
    parameter: i32,
    out: *mut f64,
    ld_out: usize,
    cols: usize,
) -> cts_status {
    copy_sensitivity(
        s,
        "cts_tamsi_solver_get_normal_force_sensitivity",
        TamsiSensitivityOutput::NormalForces,
        parameter,
        out,
        ld_out,
        cols,
    )
}

/// Copies ∂ft/∂θ (friction forces, N, two rows per contact as in
/// `cts_tamsi_solver_get_friction_forces`): a 2nc × cols column-major matrix into `out` with
/// leading dimension `ld_out >= max(1, 2nc)`. `parameter` and `cols` as for
/// `cts_tamsi_solver_get_velocity_sensitivity`; units N per unit of θ. Statuses likewise.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_get_friction_force_sensitivity(
    s: *const cts_tamsi_solver,
    parameter: i32,
    out: *mut f64,
    ld_out: usize,
    cols: usize,
) -> cts_status {
    copy_sensitivity(
        s,
        "cts_tamsi_solver_get_friction_force_sensitivity",
        TamsiSensitivityOutput::FrictionForces,
        parameter,
        out,
        ld_out,
        cols,
    )
}

/// Vector–Jacobian product at the last solve's solution: for a scalar L of the results with
/// gradients `dl_dv` (nv doubles) and, optionally, `dl_dfn` (nc) and `dl_dft` (2nc; NULL means
/// zero), writes ∂L/∂θ = dl_dvᵀ·∂v/∂θ + dl_dfnᵀ·∂fn/∂θ + dl_dftᵀ·∂ft/∂θ for every parameter at
/// once: `grad_p_star` (nv), `grad_normal` (nc: ∂L/∂fn one-way, ∂L/∂fn0 two-way),
/// `grad_stiffness` and `grad_dissipation` (nc, two-way only: pass NULL one-way), `grad_mu` (nc)
/// and `*grad_dt` (∂L/∂dt at fixed p*). Any output may be NULL when not wanted; `nv` and `nc` must
/// be the problem's sizes. Units: (unit of L)/(unit of θ).
///
/// Costs one solve with the transposed Newton matrix; the first product after a solve also
/// assembles and factors it at the solution (shared with `cts_tamsi_solver_compute_sensitivities`
/// and later products). Reads the borrowed problem data (unchanged since the solve).
///
/// Returns CTS_STATUS_OK; CTS_STATUS_NULL_POINTER (`dl_dv` with nv > 0); CTS_STATUS_DIMENSION_MISMATCH
/// (`nv`, `nc`); CTS_STATUS_INVALID_ARGUMENT (a non-finite gradient entry, a stiffness or
/// dissipation output of one-way data, storage that cannot be allocated);
/// CTS_STATUS_NO_PROBLEM_DATA; CTS_STATUS_NO_SOLUTION; CTS_STATUS_NO_SENSITIVITIES (the last solve
/// did not converge, or the Newton matrix at its solution is singular). Nothing is written on
/// error.
#[allow(clippy::too_many_arguments)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_vjp(
    solver: *mut cts_tamsi_solver,
    dl_dv: *const f64,
    nv: usize,
    dl_dfn: *const f64,
    dl_dft: *const f64,
    nc: usize,
    grad_p_star: *mut f64,
    grad_normal: *mut f64,
    grad_stiffness: *mut f64,
    grad_dissipation: *mut f64,
    grad_mu: *mut f64,
    grad_dt: *mut f64,
) -> cts_status {
    with_mut(solver, "cts_tamsi_solver_vjp", Call::Keeps, |h| {
        let data = *h.data()?;
        let (n, m) = (h.solver.num_velocities(), data.nc);
        if nv != n {
            return Err(message::length("dl_dv", nv, n));
        }
        if nc != m {
            return Err(message::length("nc", nc, m));
        }
        h.results()?;
        let two_nc = nc.checked_mul(2).ok_or_else(|| message::length("nc", nc, m))?;
        let dl_dv = RawVector::new("dl_dv", dl_dv, nv)?;
        // NULL force gradients are zero (not read).
        let dl_dfn = (!dl_dfn.is_null()).then(|| RawVector::new("dl_dfn", dl_dfn, nc)).transpose()?;
        let dl_dft = (!dl_dft.is_null()).then(|| RawVector::new("dl_dft", dl_dft, two_nc)).transpose()?;
        // SAFETY: the borrowing rule keeps the problem data valid, and the gradients are `nv`,
        // `nc` and `2nc` readable doubles, for this call.
        let (problem, dl_dv, dl_dfn, dl_dft) = unsafe {
            (data.problem(&h.layout)?, dl_dv.view(), dl_dfn.map(|g| g.view()), dl_dft.map(|g| g.view()))
        };
        let scheme = problem.coupling_scheme();
        if scheme == CouplingScheme::OneWay {
            for (name, p) in [("grad_stiffness", grad_stiffness), ("grad_dissipation", grad_dissipation)] {
                if !p.is_null() {
                    return Err(FfiError::new(
                        cts_status::InvalidArgument,
                        format!("{name} must be NULL: one-way data has no {}", &name[5..]),
                    ));
                }
            }
        }
        let grad = h.solver.vjp(&problem, dl_dv, dl_dfn, dl_dft)?;
        use TamsiSensitivityParameter as P;
        let normal = if scheme == CouplingScheme::OneWay { P::NormalForce } else { P::Fn0 };
        let outputs = [
            (P::PStar, grad_p_star),
            (normal, grad_normal),
            (P::Stiffness, grad_stiffness),
            (P::Dissipation, grad_dissipation),
            (P::Mu, grad_mu),
            (P::TimeStep, grad_dt),
        ];
        for (p, out) in outputs {
            if out.is_null() {
                continue;
            }
            // Present for every non-NULL output (the one-way check above).
            let values = grad.get(p).unwrap_or(&[]);
            // SAFETY: non-NULL output of `values.len()` writable doubles (the contract).
            let out = unsafe { output(p.name(), out, values.len(), values.len()) }?;
            out.copy_from_slice(values);
        }
        Ok(cts_status::Ok)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_the_rust_parameters() {
        use TamsiSensitivityParameter as P;
        let codes = [
            (CTS_TAMSI_SENSITIVITY_P_STAR, P::PStar),
            (CTS_TAMSI_SENSITIVITY_FN, P::NormalForce),
            (CTS_TAMSI_SENSITIVITY_FN0, P::Fn0),
            (CTS_TAMSI_SENSITIVITY_STIFFNESS, P::Stiffness),
            (CTS_TAMSI_SENSITIVITY_DISSIPATION, P::Dissipation),
            (CTS_TAMSI_SENSITIVITY_MU, P::Mu),
            (CTS_TAMSI_SENSITIVITY_DT, P::TimeStep),
        ];
        for (code, p) in codes {
            assert_eq!(parameter_of(code).unwrap(), p);
            assert_eq!(p as i32, code);
        }
        assert_eq!(parameter_of(7).unwrap_err().status, cts_status::InvalidArgument);
        // SAFETY: a NULL handle is allowed.
        assert_eq!(unsafe { cts_tamsi_solver_coupling_scheme(std::ptr::null()) }, CTS_TAMSI_COUPLING_NONE);
        assert_eq!(parameter_of(-1).unwrap_err().status, cts_status::InvalidArgument);
    }
}
