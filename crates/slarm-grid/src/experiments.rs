//! Experiments E2–E8 of spec §3 for `slarm reproduce yigitbasi2010`.
