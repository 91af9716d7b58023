//! # slarm-overbook
//!
//! Risk-aware overbooking for SLA planning schedulers (Birkenheuer 2012).
