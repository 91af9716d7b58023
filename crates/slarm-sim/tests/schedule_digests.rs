//! The schedules of FCFS, EASY and conservative backfilling on every trace of the trace
//! folder (the Parallel Workloads Archive's cleaned logs and three Lublin-Feitelson model
//! outputs), pinned as SHA-256 digests of the schedule CSV (`job_id,submit,start,end,procs`,
//! as `slarm simulate --schedule-out` writes it), each from one run and from a run split at
//! idle instants into up to eight parts (`simulate_in_parts`).
//!
//! The digests were computed by the simulator before its conservative planner moved to the
//! time-indexed profile and before the policies became trait objects: both were refactors,
//! and a schedule that changes by one second on any trace fails here. A missing trace is
//! skipped (a failure under `SLARM_REQUIRE_TRACES=1`). Whole traces, so a release build is
//! advised: `cargo test --release -p slarm-sim --test schedule_digests`.

// Test helpers outside #[test] functions panic on purpose.
#![allow(clippy::unwrap_used, clippy::panic)]

use sha2::{Digest, Sha256};
use slarm_sim::batch::{simulate_in_parts, simulate_workload, BatchConfig, QueueOrder};
use slarm_sim::metrics::write_schedule_csv;
use slarm_sim::policy::PolicyKind;
use slarm_workload::reader::{read_trace, ReadOptions};
use slarm_workload::{traces, Workload};

/// (trace file, policy, SHA-256 of the schedule CSV).
const DIGESTS: &[(&str, PolicyKind, &str)] = &[
    (
        "CEA-Curie-2011-2.1-cln.swf.gz",
        PolicyKind::Conservative,
        "d526e31e9489852bfa6b26fea44442781503ce2137aa6edb8b0579cfbaab1641",
    ),
    (
        "CEA-Curie-2011-2.1-cln.swf.gz",
        PolicyKind::Easy,
        "2d83cfec096062c802f17a7a267e9978e7f36d4bd37a01a501fbde407b284373",
    ),
    (
        "CEA-Curie-2011-2.1-cln.swf.gz",
        PolicyKind::Fcfs,
        "4f83673286eda9117575fc9107ec031f55380df5fb20056c718cacec1b5a2943",
    ),
    (
        "CTC-SP2-1996-3.1-cln.swf.gz",
        PolicyKind::Conservative,
        "2156029d70ed1d4f14197643990442eb6ca824c5122cc12bd31322268691e6c0",
    ),
    (
        "CTC-SP2-1996-3.1-cln.swf.gz",
        PolicyKind::Easy,
        "3ee604eb19bb3424d5bebc0fb85e2deee36cd4a425ae575da4df6d1722c3acb5",
    ),
    (
        "CTC-SP2-1996-3.1-cln.swf.gz",
        PolicyKind::Fcfs,
        "c0a96030c0c7d2af95b0e61c4300e288a8ea77d3bb9e81f90c2c1d77ab999d5b",
    ),
    (
        "HPC2N-2002-2.2-cln.swf.gz",
        PolicyKind::Conservative,
        "888fa09923ed858589caddd8553fb7f9eeacabd9ae62008bb5a4ee0b028e32c4",
    ),
    (
        "HPC2N-2002-2.2-cln.swf.gz",
        PolicyKind::Easy,
        "0255efe3a02783f8527ef71a4cfa07e341e167722a3840f35959425e7b547c7f",
    ),
    (
        "HPC2N-2002-2.2-cln.swf.gz",
        PolicyKind::Fcfs,
        "29212de49bc39df4a6c8b1135344575005e1c3022e7cb31a49230d3baaf7b3e5",
    ),
    (
        "KTH-SP2-1996-2.1-cln.swf.gz",
        PolicyKind::Conservative,
        "fde164a5de55b05945ecf09c0be70d3dd444a2068caaf8c925075b15ac77528c",
    ),
    (
        "KTH-SP2-1996-2.1-cln.swf.gz",
        PolicyKind::Easy,
        "a6e630ccab70286cf735e8b0aa2599bf04dfba729b111e0c7460cb2ab598d2f1",
    ),
    (
        "KTH-SP2-1996-2.1-cln.swf.gz",
        PolicyKind::Fcfs,
        "6cf4fcc5d74a35a79697a401f6ec5117c2b062003297f1bb107e4518ab2eea43",
    ),
    (
        "LANL-CM5-1994-4.1-cln.swf.gz",
        PolicyKind::Conservative,
        "ab8fe91e340cdafbee19acfc845a3fe2629b3eb8be2ba940b4bef7c32200243c",
    ),
    (
        "LANL-CM5-1994-4.1-cln.swf.gz",
        PolicyKind::Easy,
        "b8b728d5b319ad2726be0aaf81b851bde472996b48020ba004bc78db3c8d6c8c",
    ),
    (
        "LANL-CM5-1994-4.1-cln.swf.gz",
        PolicyKind::Fcfs,
        "8ebb63a1672e18dac7824ef850b93630e7ace4302ca3d411eabd78e93fc8a6a2",
    ),
    (
        "LLNL-Atlas-2006-2.1-cln.swf.gz",
        PolicyKind::Conservative,
        "44810acf13c9d05285a1e723b78c02aacab66e4a2375fe1f024b285b6bb212cb",
    ),
    (
        "LLNL-Atlas-2006-2.1-cln.swf.gz",
        PolicyKind::Easy,
        "44810acf13c9d05285a1e723b78c02aacab66e4a2375fe1f024b285b6bb212cb",
    ),
    (
        "LLNL-Atlas-2006-2.1-cln.swf.gz",
        PolicyKind::Fcfs,
        "19c8390a4c95245a3593bd8a8ce948b1a22c08a1446b3fb00e58eb9ed351407d",
    ),
    (
        "LLNL-Thunder-2007-1.1-cln.swf.gz",
        PolicyKind::Conservative,
        "a81803b9cba99a7660bb64eeb6330d969c53c12a727eb2007b96ef7c8225646e",
    ),
    (
        "LLNL-Thunder-2007-1.1-cln.swf.gz",
        PolicyKind::Easy,
        "1dd63030f55f278934ebb842b3d235c5a7cb704f984e22001915de483c49fbbd",
    ),
    (
        "LLNL-Thunder-2007-1.1-cln.swf.gz",
        PolicyKind::Fcfs,
        "ce88ce3ba97892773bf31efea916f55aa50253d9ba2588037fdb7ba505abf521",
    ),
    (
        "NASA-iPSC-1993-3.1-cln.swf.gz",
        PolicyKind::Conservative,
        "a379c36b8550770119d62d860e6920ce8a1c7da9893fee4166ce06233440d625",
    ),
    (
        "NASA-iPSC-1993-3.1-cln.swf.gz",
        PolicyKind::Easy,
        "a379c36b8550770119d62d860e6920ce8a1c7da9893fee4166ce06233440d625",
    ),
    (
        "NASA-iPSC-1993-3.1-cln.swf.gz",
        PolicyKind::Fcfs,
        "f052b16421022e8891750b5c25b1d51e129981f43d2c13ce3587ac848bc021c1",
    ),
    (
        "OSC-Clust-2000-3.1-cln.swf.gz",
        PolicyKind::Conservative,
        "5040d883a514d4bac592e3f681909f1fe27535e957add601df9dfa6ff22c0b73",
    ),
    (
        "OSC-Clust-2000-3.1-cln.swf.gz",
        PolicyKind::Easy,
        "5040d883a514d4bac592e3f681909f1fe27535e957add601df9dfa6ff22c0b73",
    ),
    (
        "OSC-Clust-2000-3.1-cln.swf.gz",
        PolicyKind::Fcfs,
        "bbc1b52af465fcfb0349379fc3495d24520146f7acd528e5a8cca40c489b7a2d",
    ),
    (
        "SDSC-BLUE-2000-4.2-cln.swf.gz",
        PolicyKind::Conservative,
        "503d0e6072cee0d962a17c6f84bb267766b20105be4bac126d0840067a92cc2b",
    ),
    (
        "SDSC-BLUE-2000-4.2-cln.swf.gz",
        PolicyKind::Easy,
        "05d77284544ca0eebd36a38d2ebcfcacc1b78a366590d02fa4d2029c435c762e",
    ),
    (
        "SDSC-BLUE-2000-4.2-cln.swf.gz",
        PolicyKind::Fcfs,
        "61ea4c23ec01be721e18e7fc013ea94b79e56dbd127278159cf0b6c9c994f751",
    ),
    (
        "SDSC-DS-2004-2.1-cln.swf.gz",
        PolicyKind::Conservative,
        "9aad21c392a5b92c5b3346bdddf33ac6b62aaef6b572b7f91a81506d0274c40c",
    ),
    (
        "SDSC-DS-2004-2.1-cln.swf.gz",
        PolicyKind::Easy,
        "b0afc6fc9b418c6bed5d8aebdc4f100eea8622fd961af19c6bbc5155e83e07e9",
    ),
    (
        "SDSC-DS-2004-2.1-cln.swf.gz",
        PolicyKind::Fcfs,
        "50dc8998b8e1e8680deb0c0c98c99ca39100e98d8836815cfde88763587ae199",
    ),
    (
        "SDSC-Par-1996-3.1-cln.swf.gz",
        PolicyKind::Conservative,
        "3e034e3b0ffdd86243f9fac1c82ea5342f8b97baa5d24b5e9e915e0140c95848",
    ),
    (
        "SDSC-Par-1996-3.1-cln.swf.gz",
        PolicyKind::Easy,
        "fac4e1025752e196ed79306f255dc1b0e6561a0fcd28780ab4a6f99ea8eb5271",
    ),
    (
        "SDSC-Par-1996-3.1-cln.swf.gz",
        PolicyKind::Fcfs,
        "4049e584c1f3a636abc27c76c9b84304bd403dde6e1623f0a4c56496e42fcf21",
    ),
    (
        "SDSC-SP2-1998-4.2-cln.swf.gz",
        PolicyKind::Conservative,
        "ae9830c2efba7454596a655079889b367678c8f5e9762129aa638b53d907a85c",
    ),
    (
        "SDSC-SP2-1998-4.2-cln.swf.gz",
        PolicyKind::Easy,
        "630d5a0fb75ee3338c95fc6cab5772976417225ff2ec698849e83fe62aca69fa",
    ),
    (
        "SDSC-SP2-1998-4.2-cln.swf.gz",
        PolicyKind::Fcfs,
        "3faa44b6fba61f07753997566d141946943987ba8bccd57be85fd2e11e6c2e5b",
    ),
    (
        "Sandia-Ross-2001-1.1-cln.swf.gz",
        PolicyKind::Conservative,
        "2ce93385206558b5dba70f142faf23a618923d11630aa34e6658c4e1c9b7fa2f",
    ),
    (
        "Sandia-Ross-2001-1.1-cln.swf.gz",
        PolicyKind::Easy,
        "6bac2f38ad17d47c19d57adbeb66d8d812ef62e0e11e82c9da4c91c10feb9bc9",
    ),
    (
        "Sandia-Ross-2001-1.1-cln.swf.gz",
        PolicyKind::Fcfs,
        "6d7831563a0df95b7bb6d5faa2230d485f1a4fb79fd8e1cb7389289a8d141df1",
    ),
    (
        "lublin-aaroh.swf.gz",
        PolicyKind::Conservative,
        "58dba8f6f0c3b43029437081e47c5c4e8a4876fb3c64a30f96a144beb9512635",
    ),
    (
        "lublin-aaroh.swf.gz",
        PolicyKind::Easy,
        "58dba8f6f0c3b43029437081e47c5c4e8a4876fb3c64a30f96a144beb9512635",
    ),
    (
        "lublin-aaroh.swf.gz",
        PolicyKind::Fcfs,
        "95c194f93810090605cf20219cea45b5a33fced9ce3f6842d2dcdd2b8154a40f",
    ),
    (
        "lublin_256.swf.gz",
        PolicyKind::Conservative,
        "5e3e061a9e0e5cadc6204173d363c21b1d694326d14aeaf40ef748b157030768",
    ),
    (
        "lublin_256.swf.gz",
        PolicyKind::Easy,
        "4d5aded8926f52d9226c6642b348b04f923107abd9a3d506123c9dfa0f53b2a2",
    ),
    (
        "lublin_256.swf.gz",
        PolicyKind::Fcfs,
        "926b83f959d44bd6f731537867bc8bb0827924d693487c46e869051807f3ed54",
    ),
    (
        "lublin_256_new2.gz",
        PolicyKind::Conservative,
        "a807104ecc6b2090ef338e7deb243f5f8def3dea18688816f8f90d6ecc2709b1",
    ),
    (
        "lublin_256_new2.gz",
        PolicyKind::Easy,
        "bd199a9caf52f9642e55d15b1620f6e5b97c929f1e0f4c23f8d83a1e5ee67f74",
    ),
    (
        "lublin_256_new2.gz",
        PolicyKind::Fcfs,
        "87a8fc416f2c295cbda6b8447de47394af82094aa56fd5396c0e9e6c5118664f",
    ),
];

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn schedules_match_the_pinned_digests() {
    let mut mismatches = Vec::new();
    let mut checked = 0;
    for name in DIGESTS
        .iter()
        .map(|d| d.0)
        .collect::<std::collections::BTreeSet<_>>()
    {
        let Some(path) = traces::or_skip(name) else {
            continue;
        };
        let w =
            Workload::from_trace(read_trace(&path, ReadOptions::default()).unwrap(), None).unwrap();
        for &(_, policy, want) in DIGESTS.iter().filter(|d| d.0 == name) {
            let whole = simulate_workload(&w, &BatchConfig::new(policy)).unwrap();
            let (jobs, order) = (&w.jobs, &QueueOrder::Fcfs);
            let split = simulate_in_parts(jobs, w.machine_procs, || policy.build(), order, None, 8)
                .unwrap();
            for (s, how) in [(whole, "one run"), (split, "in parts")] {
                let mut csv = Vec::new();
                write_schedule_csv(&s.records, &mut csv).unwrap();
                let got = hex(&Sha256::digest(&csv));
                checked += 1;
                if got != want {
                    mismatches.push(format!("{name} {policy:?} {how}: {got} (pinned {want})"));
                }
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "schedules changed:\n{}",
        mismatches.join("\n")
    );
    eprintln!("{checked} schedules match their digests");
}
