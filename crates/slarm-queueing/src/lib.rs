//! # slarm-queueing
//!
//! Multiclass M/M/m response-time SLAs: Erlang B/C, sizing, shared vs dedicated allocation, FCFS/HOL/PDP (Hu 2009).
