//! Placeholder: forwards to the experiment still inside `slarm-queueing` until it moves here.

pub use slarm_queueing::experiments::Hu2009;
