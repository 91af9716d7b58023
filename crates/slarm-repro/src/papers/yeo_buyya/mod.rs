//! Placeholder: forwards to the experiment still inside `slarm-pricing` until it moves here.

pub use slarm_pricing::experiments::YeoBuyya;
