//! Criterion benchmarks of slarm's hot paths live in `benches/benches/`, one file per crate
//! area; run them with `cargo bench -p slarm-benches`. Figures go to `docs/performance.md`.
