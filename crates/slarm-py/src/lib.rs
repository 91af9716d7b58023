//! The native module `slarm._native` of the Python package `slarm`: a thin PyO3 layer over the
//! public API of the model crates (slarm-queueing, slarm-workload, slarm-sim, slarm-testing,
//! slarm-overbook, slarm-pricing). It holds no model logic: each function converts its
//! arguments, calls one model entry point (with the GIL released where the call is long) and
//! converts the answer or the model's error. The Python modules under `python/slarm/`
//! (`slarm.queueing`, `slarm.sim`, ...) broadcast arrays, pick defaults and re-export.

use pyo3::prelude::*;

mod error;
mod overbook;
mod pricing;
mod queueing;
mod sim;
mod testing;

/// The native part of `slarm`; import the public modules (`slarm.queueing`, `slarm.sim`,
/// `slarm.testing`, `slarm.overbook`, `slarm.pricing`) instead.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    queueing::register(m)?;
    sim::register(m)?;
    testing::register(m)?;
    overbook::register(m)?;
    pricing::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
