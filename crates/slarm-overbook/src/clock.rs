//! The clock of negotiation latencies: CPU time of the calling thread (Linux), so that a
//! latency does not grow when other processes share the machine; a monotonic wall clock
//! elsewhere.

/// Nanoseconds of CPU time consumed by the calling thread (Linux), else of a monotonic wall
/// clock since the first call. Only differences are meaningful.
///
/// ```
/// let a = slarm_overbook::clock::thread_cpu_ns();
/// let mut x = 0u64;
/// for i in 0..100_000u64 { x = x.wrapping_add(i * i); }
/// assert!(x > 0 && slarm_overbook::clock::thread_cpu_ns() >= a);
/// ```
pub fn thread_cpu_ns() -> u64 {
    #[cfg(target_os = "linux")]
    {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        (t.tv_sec as u64)
            .saturating_mul(1_000_000_000)
            .saturating_add(t.tv_nsec as u64)
    }
    #[cfg(not(target_os = "linux"))]
    {
        use std::sync::OnceLock;
        use std::time::Instant;
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_nanos() as u64
    }
}
