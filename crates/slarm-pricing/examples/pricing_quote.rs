//! A live two-node cluster under Libra+$ (Yeo & Buyya, §V.B and §VI): each arriving job is
//! first quoted (price and decision of Algorithm 1, nothing changes), then submitted. As the
//! nodes fill up, the price of the same job rises (eqs. 3-6) until its budget no longer
//! covers it; the quote then says what budget would.
//!
//! `cargo run -p slarm-pricing --example pricing_quote`

use slarm_pricing::admission::Decision;
use slarm_pricing::metrics::Outcome;
use slarm_pricing::online::Cluster;
use slarm_pricing::pricing::LibraPlusDollar;
use slarm_pricing::spec::{JobSpec, QosJob, UrgencyClass};
use slarm_pricing::timeshare::TimeSharedConfig;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cfg = TimeSharedConfig::homogeneous(2, 168.0)?;
    // α = 1, β = 0.1, PBase = $1 per processor-second.
    let mut cluster = Cluster::new(&cfg, LibraPlusDollar::new(1.0, 0.1, 1.0)?)?;
    // (arrival, RE, processors, D, budget): the same 100 s job every 20 s, then a wide one.
    let arrivals = [
        (0.0, 100.0, 1, 400.0, 125.0),
        (20.0, 100.0, 1, 400.0, 125.0),
        (40.0, 100.0, 1, 400.0, 125.0),
        (60.0, 100.0, 1, 400.0, 125.0),
        (80.0, 100.0, 1, 400.0, 125.0),
        (100.0, 100.0, 2, 400.0, 140.0),
    ];
    println!("  t   job  procs  budget    price  decision");
    for (id, &(at, re, procs, d, budget)) in arrivals.iter().enumerate() {
        let job = QosJob::new(
            JobSpec::simple(id as u64, re, procs, d, budget)?,
            at,
            re,
            UrgencyClass::Low,
        )?;
        let quote = cluster.quote(&job, at)?;
        let price = quote
            .price()
            .map_or_else(|| "-".to_string(), |p| format!("{p:.2}"));
        let decision = cluster.submit(&job, at)?;
        assert_eq!(decision, quote.decision, "a quote is what submit decides");
        let what = match &decision {
            Decision::Accept { nodes, .. } => format!("accepted on nodes {nodes:?}"),
            Decision::Reject(r) => format!("rejected: {}", r.name()),
        };
        println!("{at:>5} {id:>3} {procs:>5} {budget:>8.2} {price:>8}  {what}");
    }
    cluster.run_to_completion();
    println!("\nall done by t = {}", cluster.clock());
    for (id, o) in cluster.outcomes().iter().enumerate() {
        if let Some(Outcome::Completed { finish, cost, .. }) = o {
            println!("job {id}: finished at {finish:.1}, paid {cost:.2}");
        }
    }
    Ok(())
}
