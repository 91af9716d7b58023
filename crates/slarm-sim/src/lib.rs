//! # slarm-sim
//!
//! Discrete-event kernel, machine model, availability profile and FCFS/EASY/conservative backfilling.
