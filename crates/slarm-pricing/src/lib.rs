//! # slarm-pricing
//!
//! SLA contracts, Libra and Libra+$ pricing, admission control and proportional share (Yeo & Buyya).
