//! `cargo xtask slurm-smoke`: installs Debian's slurm-wlm and munge, starts a one-node Slurm
//! cluster on localhost, submits the job-array script of docs/scale-out.md (extracted from the
//! document, so the documented script is the tested one) as a 3-task array at quick scale,
//! merges the shards in a dependent job as the document shows, shuts the cluster down, and
//! compares the merged report with one unsharded run byte for byte (all files but
//! `timings.json`). `cargo xtask slurm-smoke PAPER...` limits the run to those papers.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

use crate::repro_identity::{release_slarm, report_comparison};
use crate::{run_cmd, workspace_root};

const SHARDS: usize = 3;
/// The marker before the job script's fenced block in docs/scale-out.md.
const MARKER: &str = "<!-- slurm-smoke: job script";

fn slurm_conf(work: &Path, host: &str, cpus: usize) -> String {
    let w = work.display();
    format!(
        "ClusterName=slarmsmoke\nSlurmctldHost={host}(127.0.0.1)\nSlurmUser=root\nSlurmdUser=root\nAuthType=auth/munge\n\
StateSaveLocation={w}/state\nSlurmdSpoolDir={w}/spool\nSlurmctldPidFile={w}/slurmctld.pid\nSlurmdPidFile={w}/slurmd.pid\n\
SlurmctldLogFile={w}/slurmctld.log\nSlurmdLogFile={w}/slurmd.log\nProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n\
JobAcctGatherType=jobacct_gather/none\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nMpiDefault=none\n\
ReturnToService=2\nSchedulerType=sched/backfill\nMinJobAge=600\n\
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory=1000 State=UNKNOWN\n\
PartitionName=smoke Nodes={host} Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES\n"
    )
}

/// The job script of docs/scale-out.md: the first fenced block after [`MARKER`].
fn documented_script(root: &Path) -> Result<String, String> {
    let path = root.join("docs/scale-out.md");
    let doc = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let after = doc
        .find(MARKER)
        .map(|i| &doc[i..])
        .ok_or_else(|| format!("{}: no '{MARKER}' marker", path.display()))?;
    let start = after
        .find("```sh\n")
        .map(|i| i + "```sh\n".len())
        .ok_or("no ```sh block after the marker")?;
    let len = after[start..]
        .find("```")
        .ok_or("unterminated ```sh block")?;
    Ok(after[start..start + len].to_string())
}

fn text_of(cmd: &mut Command) -> Result<String, String> {
    let shown = format!("{cmd:?}");
    let o = cmd.output().map_err(|e| format!("{shown}: {e}"))?;
    if !o.status.success() {
        return Err(format!(
            "{shown} failed ({}): {}",
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&o.stdout).trim().to_string())
}

/// The daemons this task started, stopped on drop.
struct Cluster {
    conf: PathBuf,
    work: PathBuf,
    /// munged's pid file, when this task started munged.
    munge_pid: Option<PathBuf>,
}

impl Cluster {
    fn slurm(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("SLURM_CONF", &self.conf);
        c
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.slurm("scontrol").arg("shutdown").status();
        for pid in ["slurmctld.pid", "slurmd.pid"] {
            let p = self.work.join(pid);
            for _ in 0..50 {
                if !p.exists() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        if let Some(pid) = self
            .munge_pid
            .as_ref()
            .and_then(|p| std::fs::read_to_string(p).ok())
        {
            let _ = Command::new("kill").arg(pid.trim()).status();
        }
    }
}

fn install() -> Result<(), String> {
    if Path::new("/usr/sbin/slurmctld").exists() && Path::new("/usr/sbin/munged").exists() {
        return Ok(());
    }
    eprintln!("slurm-smoke: installing slurm-wlm and munge");
    run_cmd(Command::new("apt-get").args(["update", "-qq"]))?;
    run_cmd(
        Command::new("apt-get")
            .args(["install", "-y", "-qq", "slurm-wlm", "munge"])
            .env("DEBIAN_FRONTEND", "noninteractive"),
    )
}

/// Starts munged unless one runs; returns its pid file when this task started it.
fn start_munge() -> Result<Option<PathBuf>, String> {
    let running = Command::new("pgrep")
        .args(["-x", "munged"])
        .stdout(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if running {
        return Ok(None);
    }
    for d in [
        "/run/munge",
        "/var/log/munge",
        "/var/lib/munge",
        "/etc/munge",
    ] {
        std::fs::create_dir_all(d).map_err(|e| format!("{d}: {e}"))?;
        run_cmd(Command::new("chown").args(["munge:munge", d]))?;
    }
    if !Path::new("/etc/munge/munge.key").exists() {
        run_cmd(Command::new("mungekey").args(["--create", "--keyfile", "/etc/munge/munge.key"]))?;
        run_cmd(Command::new("chown").args(["munge:munge", "/etc/munge/munge.key"]))?;
    }
    run_cmd(Command::new("runuser").args(["-u", "munge", "--", "/usr/sbin/munged"]))?;
    Ok(Some(PathBuf::from("/run/munge/munged.pid")))
}

fn start_cluster(work: &Path) -> Result<Cluster, String> {
    install()?;
    let munge_pid = start_munge()?;
    let _ = std::fs::remove_dir_all(work);
    for d in ["state", "spool"] {
        std::fs::create_dir_all(work.join(d)).map_err(|e| e.to_string())?;
    }
    let host = text_of(Command::new("hostname").arg("-s"))?;
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    let conf = work.join("slurm.conf");
    std::fs::write(&conf, slurm_conf(work, &host, cpus)).map_err(|e| e.to_string())?;
    let cluster = Cluster {
        conf,
        work: work.to_path_buf(),
        munge_pid,
    };
    run_cmd(cluster.slurm("slurmctld").arg("-f").arg(&cluster.conf))?;
    run_cmd(cluster.slurm("slurmd").arg("-f").arg(&cluster.conf))?;
    for _ in 0..60 {
        let state = text_of(cluster.slurm("sinfo").args(["-h", "-o", "%t"]));
        if state.is_ok_and(|s| s.contains("idle")) {
            return Ok(cluster);
        }
        std::thread::sleep(Duration::from_secs(1));
    }
    Err(format!(
        "the one-node cluster did not become idle; see {}/slurmctld.log and slurmd.log",
        work.display()
    ))
}

/// One line per array task: id, state, run time, exit code (from `scontrol show job`).
fn task_lines(cluster: &Cluster, job: &str) -> String {
    let text =
        text_of(cluster.slurm("scontrol").args(["-o", "show", "job", job])).unwrap_or_else(|e| e);
    text.lines()
        .map(|l| {
            l.split_whitespace()
                .filter(|f| {
                    [
                        "JobId=",
                        "ArrayTaskId=",
                        "JobState=",
                        "RunTime=",
                        "ExitCode=",
                    ]
                    .iter()
                    .any(|k| f.starts_with(k))
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn smoke(root: &Path, work: &Path, papers: &[String]) -> Result<bool, String> {
    let slarm = release_slarm(root)?;
    let script_text = documented_script(root)?;
    let out = work.join("run");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let script = out.join("slarm-array.sh");
    std::fs::write(&script, script_text).map_err(|e| e.to_string())?;
    let cluster = start_cluster(&work.join("cluster"))?;
    let shards = out.join("shards");
    // --export takes comma-separated assignments, so the paper list travels in the
    // environment of sbatch itself (ALL passes it on).
    let env = format!(
        "ALL,SLARM={},OUT={},SCALE=quick,SEED=1",
        slarm.display(),
        shards.display()
    );
    eprintln!(
        "slurm-smoke: sbatch --array=1-{SHARDS} {}",
        script.display()
    );
    let array = text_of(
        cluster
            .slurm("sbatch")
            .arg("--parsable")
            .arg(format!("--array=1-{SHARDS}"))
            .args(["--cpus-per-task=1", "--time=00:30:00"])
            .arg(format!("--output={}/slarm-%A_%a.log", out.display()))
            .arg(format!("--export={env}"))
            .env("PAPERS", papers.join(" "))
            .arg(&script)
            .current_dir(&out),
    )?;
    let merged = out.join("merged");
    let merge_cmd = format!(
        "{} merge --out {} {}/*",
        slarm.display(),
        merged.display(),
        shards.display()
    );
    eprintln!("slurm-smoke: array job {array}; merge job after it: {merge_cmd}");
    let merge_job = run_cmd(
        cluster
            .slurm("sbatch")
            .arg("--wait")
            .arg(format!("--dependency=afterok:{array}"))
            .args(["--job-name=slarm-merge", "--time=00:10:00"])
            .arg(format!("--output={}/slarm-merge-%j.log", out.display()))
            .args(["--wrap", &merge_cmd])
            .current_dir(&out),
    );
    println!("{}", task_lines(&cluster, &array));
    drop(cluster);
    merge_job?;
    for k in 1..=SHARDS {
        let d = shards.join(k.to_string());
        println!(
            "shard {k}/{SHARDS}: {} cells in {}",
            count_cells(&d),
            d.display()
        );
    }
    println!("merged: {}", merged.join("index.html").display());
    run_cmd(
        Command::new(&slarm)
            .arg("reproduce")
            .args(papers)
            .args(["--scale", "quick", "--seed", "1", "--out"])
            .arg(out.join("whole"))
            .stdout(std::process::Stdio::null()),
    )?;
    report_comparison(&out.join("whole"), &merged)
}

/// Number of cell files in a shard folder (all papers).
fn count_cells(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|p| std::fs::read_dir(p.path().join("cells")).map_or(0, Iterator::count))
        .sum()
}

/// Runs the task.
pub fn run(args: &[String]) -> ExitCode {
    let root = workspace_root();
    let work = root.join("target/slurm-smoke");
    match smoke(&root, &work, args) {
        Ok(true) => {
            println!("slurm-smoke: the merged job-array result equals one unsharded run");
            ExitCode::SUCCESS
        }
        Ok(false) => {
            eprintln!("slurm-smoke: the merged job-array result differs from one run");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("slurm-smoke: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_script_is_a_shard_per_array_task() {
        let s = documented_script(&workspace_root()).unwrap();
        assert!(s.starts_with("#!/bin/bash\n#SBATCH"), "{s}");
        assert!(
            s.contains("--shard \"$K/$N\"") && s.contains("--resume"),
            "{s}"
        );
    }
}
