//! Fig. 5.17 analogue: wall-clock and CPU seconds of every pre-computation phase (g, k, L, L',
//! L'') for the given `p_max` values, with arrivals scaled as in Table 5.1.
//!
//! `cargo run --release -p slarm-provision --example phase_times -- [SIZES] P_MAX...`
//! where `SIZES` is `scalability` (default, the sizes of the reproduction's scalability experiment), `paper`, `standard`, `quick` (`McSizes`) or
//! `custom:G_RUNS:SATURATED:SPECIAL:P_MAX_ONLY(0|1)`. CPU seconds are
//! user + system time of the whole process (all threads) from `/proc/self/stat` (Linux; 0
//! elsewhere), so they do not depend on how loaded the machine is. The last line,
//! `peak_rss_mb N`, is the process's peak resident set (Linux).
#![allow(missing_docs)]

use std::time::Instant;

use slarm_provision::dp::{build_table, CostInputs, Variant};
use slarm_provision::tables::{build_g, build_k};
use slarm_provision::{ArrivalProfile, Cost, CostShape, McSizes, Params};

/// User + system CPU seconds of this process so far (clock ticks of 10 ms).
fn cpu_secs() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // fields after the parenthesised command name; utime and stime are fields 14 and 15
    let rest = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<f64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    if f.len() > 13 {
        (f[11] + f[12]) / 100.0
    } else {
        0.0
    }
}

/// Runs `f`, returning its value with (wall, cpu) seconds.
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64, f64) {
    let (w, c) = (Instant::now(), cpu_secs());
    let v = f();
    (v, w.elapsed().as_secs_f64(), cpu_secs() - c)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let sizes = match args.first().map(String::as_str) {
        Some("quick") => McSizes::quick(),
        Some("scalability") => McSizes::scalability(),
        Some("standard") => McSizes::standard(),
        Some("paper") => McSizes::paper(),
        Some(c) if c.starts_with("custom:") => {
            // custom:G_RUNS:SATURATED:SPECIAL:PMAX_ONLY(0/1)
            let v: Vec<usize> = c[7..].split(':').map(|x| x.parse().unwrap_or(0)).collect();
            let mut sz = McSizes::standard();
            sz.g.runs = v[0];
            sz.k.saturated_runs = v[1];
            sz.k.special_runs = v[2];
            sz.g.p_max_only = v[3] == 1;
            sz
        }
        _ => {
            args.insert(0, "scalability".into());
            McSizes::scalability()
        }
    };
    println!("sizes {}: {sizes:?}", args[0]);
    #[cfg(feature = "parallel")]
    let threads = rayon::current_num_threads();
    #[cfg(not(feature = "parallel"))]
    let threads = 1;
    println!(
        "threads {threads}, load {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    println!(
        "| p_max | g wall / cpu s | k | L | L' | L'' | total | K_d | g_0(p_max) | g / k replays |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for a in &args[1..] {
        let p_max: usize = a.parse()?;
        let params = Params {
            p_max,
            ..Params::thesis()
        }
        .validated()?;
        let prof = ArrivalProfile::scaled_for(p_max)?;
        let streams = slarm_stats::RngStreams::new(1);
        let cost = Cost::preset(CostShape::Uniform, params.d, 1.0, 2.0)?;
        let inputs = CostInputs::new(&params, &cost)?;
        let mut times = Vec::new();
        let (g, w, c) = timed(|| build_g(&params, &prof, &streams, &sizes));
        let g = g?;
        times.push((w, c));
        let (k, w, c) = timed(|| build_k(&params, &prof, &streams, &sizes));
        let k = k?;
        times.push((w, c));
        let (h3, w, c) = timed(|| build_table(&params, &g, &k, &inputs, Variant::H3, None));
        let h3 = h3?;
        times.push((w, c));
        for v in [Variant::H4, Variant::H5] {
            let (t, w, c) = timed(|| build_table(&params, &g, &k, &inputs, v, Some(&h3)));
            t?;
            times.push((w, c));
        }
        let cells: Vec<String> = times
            .iter()
            .map(|(w, c)| format!("{w:.2} / {c:.2}"))
            .collect();
        let (tw, tc) = times
            .iter()
            .fold((0.0, 0.0), |(a, b), (w, c)| (a + w, b + c));
        println!(
            "| {p_max} | {} | {tw:.2} / {tc:.2} | {} | {} | {:.3e} / {:.3e} |",
            cells.join(" | "),
            k.k_bound(params.d),
            g.get_i64(0, p_max),
            g.replays as f64,
            k.replays as f64
        );
    }
    // The process's peak resident set (Linux; absent elsewhere), for `cargo xtask anchors`.
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(kb) = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
    {
        println!("peak_rss_mb {:.1}", kb / 1024.0);
    }
    Ok(())
}
