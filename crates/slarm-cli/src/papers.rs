//! The registry of paper reproductions: each model crate's `experiments` module.

use slarm::report::Experiment;

/// All paper keys, in report order (design.md §4).
pub const PAPERS: [&str; 5] = [
    "hu2009",
    "birkenheuer2012",
    "yeo-buyya",
    "sung2006",
    "yigitbasi2010",
];

/// The experiments available in this build, in report order.
pub fn registry() -> Vec<&'static dyn Experiment> {
    vec![
        &slarm::queueing::experiments::Hu2009,
        &slarm::overbook::experiments::Birkenheuer2012,
        &slarm::pricing::experiments::YeoBuyya,
        &slarm::provision::experiments::Sung2006,
        &slarm::grid::experiments::Yigitbasi2010,
    ]
}
