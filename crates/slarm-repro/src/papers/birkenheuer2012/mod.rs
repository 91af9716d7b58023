//! Placeholder: forwards to the experiment still inside `slarm-overbook` until it moves here.

pub use slarm_overbook::experiments::Birkenheuer2012;
