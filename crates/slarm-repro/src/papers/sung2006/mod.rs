//! Placeholder: forwards to the experiment still inside `slarm-provision` until it moves here.

pub use slarm_provision::experiments::Sung2006;
