//! Drake's 2-D convenience `CalcContactForcesInContactFrames` (`docs/rigid.md` §10): the
//! packed forces expressed in each contact's frame.

use nalgebra::Matrix2;

use super::RigidError;
use super::problem::{ConstraintAccelProblemData, ConstraintVelProblemData};

/// Which problem the packed forces came from.
#[derive(Debug, Clone, Copy)]
pub enum ContactProblem<'x, 'a> {
    /// Acceleration level (sliding friction implied by `mu_sliding`).
    Accel(&'x ConstraintAccelProblemData<'a>),
    /// Velocity level (or discretized).
    Vel(&'x ConstraintVelProblemData<'a>),
}

impl<'x, 'a> From<&'x ConstraintAccelProblemData<'a>> for ContactProblem<'x, 'a> {
    fn from(d: &'x ConstraintAccelProblemData<'a>) -> Self {
        ContactProblem::Accel(d)
    }
}

impl<'x, 'a> From<&'x ConstraintVelProblemData<'a>> for ContactProblem<'x, 'a> {
    fn from(d: &'x ConstraintVelProblemData<'a>) -> Self {
        ContactProblem::Vel(d)
    }
}

/// Writes `(normal, tangent)` components of each contact's force into `out` (one per contact):
/// `Rᵢᵀ f_world` with `Rᵢ = frames[i]` (column 0 the unit normal, column 1 the unit tangent,
/// world frame). Acceleration level: `f = n·fN − t·μ·fN` for a sliding contact (the frame's
/// tangent must point along the slip velocity), `f = n·fN + t·fF` otherwise; velocity level:
/// `f = n·fN + t·fF`. Checks in Drake's order: `cf` length, 2-D `r`, number of frames (and of
/// outputs), unit normal, unit tangent (tolerance √eps), orthogonality (√eps).
pub fn calc_contact_forces_in_contact_frames<'x, 'a>(
    cf: &[f64],
    problem: impl Into<ContactProblem<'x, 'a>>,
    frames: &[Matrix2<f64>],
    out: &mut [[f64; 2]],
) -> Result<(), RigidError>
where
    'a: 'x,
{
    let problem = problem.into();
    let d = match problem {
        ContactProblem::Accel(p) => p.dims(),
        ContactProblem::Vel(p) => p.dims(),
    };
    if cf.len() != d.cf_len() {
        return Err(RigidError::DimensionMismatch {
            what: "cf (packed constraint forces, nc + nr + nu + nb)",
            expected: d.cf_len(),
            got: cf.len(),
        });
    }
    if d.nr != d.nns {
        return Err(RigidError::NotTwoDimensional);
    }
    if frames.len() != d.nc {
        return Err(RigidError::DimensionMismatch {
            what: "Number of contact frames does not match number of contacts.",
            expected: d.nc,
            got: frames.len(),
        });
    }
    if out.len() != d.nc {
        return Err(RigidError::DimensionMismatch {
            what: "contact force output (one per contact)",
            expected: d.nc,
            got: out.len(),
        });
    }
    let tol = f64::EPSILON.sqrt();
    for (i, r) in frames.iter().enumerate() {
        let (n, t) = (r.column(0), r.column(1));
        if (n.norm() - 1.0).abs() > tol {
            return Err(RigidError::NormalNotUnit);
        }
        if (t.norm() - 1.0).abs() > tol {
            return Err(RigidError::TangentNotUnit);
        }
        if n.dot(&t).abs() > tol {
            return Err(RigidError::NotOrthogonal);
        }
        let f = match problem {
            ContactProblem::Accel(p) => {
                let mut f = n * cf[i];
                if let Ok(k) = p.sliding_contacts.binary_search(&i) {
                    f -= t * (cf[i] * p.mu_sliding[k]);
                } else {
                    let j = p.non_sliding_contacts.binary_search(&i).unwrap_or(0);
                    f += t * cf[d.nc + j];
                }
                f
            }
            ContactProblem::Vel(_) => n * cf[i] + t * cf[d.nc + i],
        };
        let local = r.transpose() * f;
        out[i] = [local[0], local[1]];
    }
    Ok(())
}
