//! Reads every trace in the shared folder strictly and checks the job-line counts the
//! traces README cites (CTC 77,222, HPC2N 202,871, KTH 28,476, SDSC-SP2 59,715). Skips with
//! a message when the traces are absent.

use std::path::PathBuf;

use slarm_workload::reader::{read_trace, ReadOptions};
use slarm_workload::{traces, Workload};

#[test]
fn all_shared_traces_parse_strictly() {
    let Some(dir) = traces::dir_or_skip() else {
        return;
    };
    let expected = [
        ("CTC-SP2-1996-3.1-cln.swf.gz", 77_222usize),
        ("HPC2N-2002-2.2-cln.swf.gz", 202_871),
        ("KTH-SP2-1996-2.1-cln.swf.gz", 28_476),
        ("SDSC-SP2-1998-4.2-cln.swf.gz", 59_715),
        ("lublin_256_new2.gz", 10_000),
    ];
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "gz"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 17,
        "expected 17 traces, found {}",
        files.len()
    );
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let trace =
            read_trace(&path, ReadOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(trace.skipped_lines, 0);
        if let Some((_, n)) = expected.iter().find(|(f, _)| *f == name) {
            assert_eq!(trace.jobs.len(), *n, "{name}");
        }
        assert!(trace.header.machine_size().is_some(), "{name}");
        let w = Workload::from_trace(trace, None).unwrap();
        assert!(!w.jobs.is_empty());
        assert!(w.jobs.windows(2).all(|p| p[0].submit <= p[1].submit));
    }
}
