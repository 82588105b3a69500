//! The interior point's problems on the engine scenes of `tests/data/engine_scenes.txt.gz`, in
//! block-sparse and dense form (for benchmarks and development examples): all the scene's
//! contacts with their gaps φ, second-order cones, τ recovered from the scene's p* = M v0 + h τ.

use contact_solvers::ipm::{ContactModel, IpmData, IpmProblem};
use nalgebra::DVector;

use super::engine_scenes::Scene;
use super::tamsi_blocks::{BlockProblem, from_scene};

/// One scene's interior-point data, held in both forms (`b` has the packed and the dense matrices).
pub struct IpmScene {
    pub b: BlockProblem,
    pub tau: DVector<f64>,
    pub phi: DVector<f64>,
    pub models: Vec<ContactModel>,
}

impl IpmScene {
    pub fn new(s: &Scene) -> Self {
        let b = from_scene(s);
        let tau = (&b.p_star - &b.m * &b.v0) / b.dt;
        let phi = DVector::from_iterator(s.nc(), s.contacts.iter().map(|c| c.phi));
        Self { b, tau, phi, models: vec![ContactModel::SecondOrderCone; s.nc()] }
    }

    /// The problem in block form (`blocks`) or dense.
    pub fn problem(&self, blocks: bool) -> IpmProblem<'_> {
        let data = if blocks {
            IpmData::Blocks(self.b.system())
        } else {
            IpmData::Dense { m: self.b.m.as_view(), jn: self.b.jn.as_view(), jt: self.b.jt.as_view() }
        };
        IpmProblem {
            data,
            v0: self.b.v0.as_view(),
            tau: self.tau.as_view(),
            h: self.b.dt,
            phi: self.phi.as_view(),
            mu: self.b.mu.as_view(),
            models: &self.models,
            vt_offset: None,
        }
    }
}
