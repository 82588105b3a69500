//! Work split across threads inside one solve (`docs/performance.md` §8): a small pool of worker
//! threads that a solver object owns ([`WorkerPool`], [`PoolSlot`]), disjoint mutable parts of
//! a slice for its participants ([`Parts`], consecutive; [`Owned`], scattered) and balanced cuts of weighted items
//! ([`balanced_cuts`]); [`Claims`] hands a run's parts of several slices out together.
//!
//! The solvers split only independent work over the participants (contacts, trees, islands) and
//! take every reduction (a step length, a norm) in a fixed order on the caller's thread, so a
//! parallel solve returns the bits of the sequential one.
//!
//! This is the one module outside `ffi` with `unsafe` code: a pool that runs a borrowed closure on
//! threads that outlive it must erase the closure's lifetime (the pool waits for every participant
//! before it returns, which is what makes that sound), and [`Parts`] hands out disjoint `&mut`
//! sub-slices of one slice to several threads. Both are small and their invariants are checked at
//! run time; `rayon` would bring the same kind of code and allocates inside a solve (its job
//! queue grows by blocks).

#[allow(unsafe_code)]
mod pool;

pub use pool::{
    Claim, Claims, MAX_THREADS, Owned, OwnedPart, Parts, PoolError, PoolSlot, WorkerPool, balanced_cuts,
    chunk_count,
};
