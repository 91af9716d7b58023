//! `cargo xtask slurm-smoke`: installs Debian's slurm-wlm and munge, starts a one-node Slurm
//! cluster on localhost, runs a quick-scale reproduction as a 3-task job array (the script of
//! docs/scale-out.md), merges the shards, and checks the result against one unsharded run,
//! byte for byte (all files but `timings.json`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use crate::{run_cmd, workspace_root};

const SHARDS: usize = 3;

fn slurm_conf(work: &Path, host: &str, cpus: usize) -> String {
    let w = work.display();
    format!(
        "ClusterName=slarmsmoke\nSlurmctldHost={host}(127.0.0.1)\nSlurmUser=root\nSlurmdUser=root\nAuthType=auth/munge\n\
StateSaveLocation={w}/state\nSlurmdSpoolDir={w}/spool\nSlurmctldPidFile={w}/slurmctld.pid\nSlurmdPidFile={w}/slurmd.pid\n\
SlurmctldLogFile={w}/slurmctld.log\nSlurmdLogFile={w}/slurmd.log\nProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n\
JobAcctGatherType=jobacct_gather/none\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nMpiDefault=none\n\
ReturnToService=2\nSchedulerType=sched/backfill\n\
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory=1000 State=UNKNOWN\n\
PartitionName=smoke Nodes={host} Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES\n"
    )
}

fn job_script(slarm: &Path, out: &Path) -> String {
    format!(
        "#!/bin/bash\n#SBATCH --job-name=slarm-smoke\n#SBATCH --array=1-{SHARDS}\n#SBATCH --cpus-per-task=1\n\
#SBATCH --output={o}/slurm-%A_%a.log\nset -euo pipefail\n\
{s} reproduce --scale quick --seed 1 --jobs 1 --shard \"$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT\" --out {o}/shards/$SLURM_ARRAY_TASK_ID\n",
        s = slarm.display(),
        o = out.display()
    )
}

fn files(dir: &Path, base: &Path, into: &mut BTreeMap<PathBuf, Vec<u8>>) -> Result<(), String> {
    for e in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let p = e.map_err(|e| e.to_string())?.path();
        if p.is_dir() {
            files(&p, base, into)?;
        } else if p.file_name().is_some_and(|n| n != "timings.json") {
            let rel = p
                .strip_prefix(base)
                .map_err(|e| e.to_string())?
                .to_path_buf();
            into.insert(rel, std::fs::read(&p).map_err(|e| e.to_string())?);
        }
    }
    Ok(())
}

fn start_cluster(work: &Path) -> Result<PathBuf, String> {
    if !Path::new("/usr/sbin/slurmctld").exists() || !Path::new("/usr/sbin/munged").exists() {
        eprintln!("slurm-smoke: installing slurm-wlm and munge");
        run_cmd(Command::new("apt-get").args(["update", "-qq"]))?;
        run_cmd(
            Command::new("apt-get")
                .args(["install", "-y", "-qq", "slurm-wlm", "munge"])
                .env("DEBIAN_FRONTEND", "noninteractive"),
        )?;
    }
    let munge_running = Command::new("pgrep")
        .arg("-x")
        .arg("munged")
        .status()
        .is_ok_and(|s| s.success());
    if !munge_running {
        for d in ["/run/munge", "/var/log/munge", "/var/lib/munge"] {
            std::fs::create_dir_all(d).map_err(|e| format!("{d}: {e}"))?;
            run_cmd(Command::new("chown").args(["munge:munge", d]))?;
        }
        if !Path::new("/etc/munge/munge.key").exists() {
            run_cmd(Command::new("mungekey").args([
                "--create",
                "--keyfile",
                "/etc/munge/munge.key",
            ]))?;
            run_cmd(Command::new("chown").args(["munge:munge", "/etc/munge/munge.key"]))?;
        }
        run_cmd(Command::new("runuser").args(["-u", "munge", "--", "/usr/sbin/munged"]))?;
    }
    let _ = std::fs::remove_dir_all(work);
    for d in ["state", "spool"] {
        std::fs::create_dir_all(work.join(d)).map_err(|e| e.to_string())?;
    }
    let host = String::from_utf8(
        Command::new("hostname")
            .arg("-s")
            .output()
            .map_err(|e| e.to_string())?
            .stdout,
    )
    .map_err(|e| e.to_string())?
    .trim()
    .to_string();
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    let conf = work.join("slurm.conf");
    std::fs::write(&conf, slurm_conf(work, &host, cpus)).map_err(|e| e.to_string())?;
    run_cmd(Command::new("slurmctld").arg("-f").arg(&conf))?;
    run_cmd(Command::new("slurmd").arg("-f").arg(&conf))?;
    for _ in 0..30 {
        let out = Command::new("sinfo")
            .args(["-h", "-o", "%t"])
            .env("SLURM_CONF", &conf)
            .output();
        if out.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("idle")) {
            return Ok(conf);
        }
        std::thread::sleep(std::time::Duration::from_secs(1));
    }
    Err(format!(
        "the one-node cluster did not become idle; see {}/slurmctld.log",
        work.display()
    ))
}

fn smoke(root: &Path, work: &Path) -> Result<(usize, usize), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    run_cmd(
        Command::new(&cargo)
            .args(["build", "--release", "-p", "slarm-cli"])
            .current_dir(root),
    )?;
    let slarm = root.join("target/release/slarm");
    let conf = start_cluster(&work.join("cluster"))?;
    let out = work.join("run");
    let script = work.join("array.sh");
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    std::fs::write(&script, job_script(&slarm, &out)).map_err(|e| e.to_string())?;
    eprintln!(
        "slurm-smoke: sbatch --wait {} ({SHARDS} array tasks)",
        script.display()
    );
    let submitted = run_cmd(
        Command::new("sbatch")
            .arg("--wait")
            .arg(&script)
            .env("SLURM_CONF", &conf),
    );
    let _ = Command::new("scontrol")
        .arg("shutdown")
        .env("SLURM_CONF", &conf)
        .status();
    submitted?;
    let shards: Vec<PathBuf> = (1..=SHARDS)
        .map(|k| out.join("shards").join(k.to_string()))
        .collect();
    run_cmd(
        Command::new(&slarm)
            .args(["merge", "--out"])
            .arg(out.join("merged"))
            .args(&shards),
    )?;
    run_cmd(
        Command::new(&slarm)
            .args(["reproduce", "--scale", "quick", "--seed", "1", "--out"])
            .arg(out.join("whole")),
    )?;
    let (mut a, mut b) = (BTreeMap::new(), BTreeMap::new());
    files(&out.join("whole"), &out.join("whole"), &mut a)?;
    files(&out.join("merged"), &out.join("merged"), &mut b)?;
    let (mut pass, mut fail) = (0, 0);
    let mut line = |ok: bool, what: String| {
        println!("{} {what}", if ok { "PASS" } else { "FAIL" });
        if ok {
            pass += 1
        } else {
            fail += 1
        }
    };
    line(
        a.keys().eq(b.keys()),
        format!("merged output has the same {} files as one run", a.len()),
    );
    for (k, v) in &a {
        line(
            b.get(k) == Some(v),
            format!("{} byte-identical", k.display()),
        );
    }
    Ok((pass, fail))
}

/// Runs the task.
pub fn run(_args: &[String]) -> ExitCode {
    let root = workspace_root();
    let work = root.join("target/slurm-smoke");
    match smoke(&root, &work) {
        Ok((pass, fail)) => {
            println!("{pass} passed, {fail} failed");
            if fail == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("slurm-smoke: {e}");
            ExitCode::FAILURE
        }
    }
}
