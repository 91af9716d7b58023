//! One call into each of three models through the facade: the 95th percentile of an M/M/m
//! response time (Hu 2009), an EASY-backfilled schedule (Mu'alem & Feitelson 2001), and a
//! Libra quote for a job on a live time-shared cluster (Yeo & Buyya).
//!
//! `cargo run -p slarm --example tour`

use slarm::pricing::online::Cluster;
use slarm::pricing::pricing::LibraStatic;
use slarm::pricing::spec::{JobSpec, QosJob, UrgencyClass};
use slarm::pricing::timeshare::TimeSharedConfig;
use slarm::queueing::erlang::Mmm;
use slarm::sim::batch::{simulate, BatchConfig};
use slarm::sim::policy::PolicyKind;
use slarm::workload::Job;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // 8 servers, 6 jobs per second, 1 job per second each.
    let q = Mmm::new(6.0, 1.0, 8)?;
    println!(
        "M/M/8 at rho = 6: P(wait) = {:.4}, p95 response = {:.4} s",
        q.erlang_c(),
        q.response_time_quantile(0.95)?
    );

    let jobs = vec![
        Job::new(1, 0.0, 100.0, 6, 100.0),
        Job::new(2, 1.0, 50.0, 8, 50.0),
        Job::new(3, 2.0, 90.0, 4, 90.0),
    ];
    let s = simulate(&jobs, 10, &BatchConfig::new(PolicyKind::Easy))?;
    for r in &s.records {
        println!("job {} runs {} .. {}", r.id, r.start, r.end);
    }

    let cluster = Cluster::new(
        &TimeSharedConfig::homogeneous(4, 168.0)?,
        LibraStatic::new(1.0, 1.0)?,
    )?;
    let job = QosJob::new(
        JobSpec::simple(0, 100.0, 2, 800.0, 150.0)?,
        0.0,
        100.0,
        UrgencyClass::Low,
    )?;
    let quote = cluster.quote(&job, 0.0)?;
    println!(
        "Libra quote: accepted {}, price {:?}, reason {:?}",
        quote.accepted(),
        quote.price(),
        quote.reason()
    );
    Ok(())
}
