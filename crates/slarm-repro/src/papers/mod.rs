//! The five papers' reproductions: one module per paper, each an [`Experiment`] with its
//! published values, checks (with reasons computed from the run) and report conversion,
//! built on the public APIs of the model crates.

use slarm_report::Experiment;

pub mod birkenheuer2012;
pub mod hu2009;
pub mod sung2006;
pub mod yeo_buyya;
pub mod yigitbasi2010;

/// All paper keys, in report order.
pub const PAPERS: [&str; 5] = [
    "hu2009",
    "birkenheuer2012",
    "yeo-buyya",
    "sung2006",
    "yigitbasi2010",
];

/// Every paper's experiment, in report order (the order of [`PAPERS`]).
pub fn registry() -> Vec<&'static dyn Experiment> {
    vec![
        &hu2009::Hu2009,
        &birkenheuer2012::Birkenheuer2012,
        &yeo_buyya::YeoBuyya,
        &sung2006::Sung2006,
        &yigitbasi2010::Yigitbasi2010,
    ]
}
