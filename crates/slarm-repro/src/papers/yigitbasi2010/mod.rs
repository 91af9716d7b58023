//! Placeholder: forwards to the experiment still inside `slarm-grid` until it moves here.

pub use slarm_grid::experiments::Yigitbasi2010;
