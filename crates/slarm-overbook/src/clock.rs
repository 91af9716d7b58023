//! The clock of negotiation latencies: CPU time of the calling thread (the `cpu-time` crate),
//! so that a latency does not grow when other processes share the machine; a monotonic wall
//! clock where the platform has no thread CPU clock.

/// Nanoseconds of CPU time consumed by the calling thread, else (no thread CPU clock) of a
/// monotonic wall clock since the first call. Only differences are meaningful.
///
/// ```
/// let a = slarm_overbook::clock::thread_cpu_ns();
/// let mut x = 0u64;
/// for i in 0..100_000u64 { x = x.wrapping_add(i * i); }
/// assert!(x > 0 && slarm_overbook::clock::thread_cpu_ns() >= a);
/// ```
pub fn thread_cpu_ns() -> u64 {
    let elapsed = match cpu_time::ThreadTime::try_now() {
        Ok(t) => t.as_duration(),
        Err(_) => {
            use std::sync::OnceLock;
            use std::time::Instant;
            static START: OnceLock<Instant> = OnceLock::new();
            START.get_or_init(Instant::now).elapsed()
        }
    };
    u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX)
}
