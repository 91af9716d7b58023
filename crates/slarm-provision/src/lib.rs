//! # slarm-provision
//!
//! Cost-aware dynamic provisioning with backward-recursion cost tables (Sung 2006).
