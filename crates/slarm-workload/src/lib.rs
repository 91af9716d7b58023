//! # slarm-workload
//!
//! SWF traces, cleaning, load scaling, SLA attribute synthesis and workload generators.
