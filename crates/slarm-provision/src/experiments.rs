//! Experiments (placeholder until written).
