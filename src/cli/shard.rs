//! `--shard K/N` and `--shard env/N`: which slice of a batch's runs this
//! process plays, from the command line or the scheduler's variables.

use std::process::ExitCode;

use super::BAD_INPUT;

/// `--shard K/N`: the K-th (1-based) of N equal slices of the runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    /// The run indices of this shard of a batch of `runs` runs
    /// ([`crate::batch::shard_range`]): the N shards tile `0..runs` exactly.
    pub fn range(self, runs: u64) -> std::ops::Range<u64> {
        crate::batch::shard_range(self.index, self.count, runs)
    }
}

/// `--shard`: `K/N`, or `env/N` (K read from a cluster scheduler's
/// environment when the batch starts: [`shard_from_env`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardArg {
    Fixed(Shard),
    Env { count: u64 },
}

pub fn parse_shard(s: &str) -> Result<ShardArg, String> {
    let (k, n) = s.split_once('/').ok_or("expected K/N (for example 2/8) or env/N")?;
    let count: u64 = n.trim().parse().map_err(|_| format!("`{n}` is not a shard count"))?;
    if count == 0 {
        return Err("N must be at least 1".into());
    }
    if k.trim() == "env" {
        return Ok(ShardArg::Env { count });
    }
    let index: u64 = k
        .trim()
        .parse()
        .map_err(|_| format!("`{k}` is not a shard number (K/N, or env/N)"))?;
    if index == 0 || index > count {
        return Err(format!("shard {index}/{count}: K must be 1 to N"));
    }
    Ok(ShardArg::Fixed(Shard { index, count }))
}

/// SLURM job arrays: the task's id, taken as K (submit with `--array=1-N`).
pub const SLURM_TASK: &str = "SLURM_ARRAY_TASK_ID";
/// SLURM job arrays: the number of tasks, which must be N when set.
pub const SLURM_COUNT: &str = "SLURM_ARRAY_TASK_COUNT";
/// SLURM job arrays: the lowest and highest task ids, within 1 to N when set.
pub const SLURM_MIN: &str = "SLURM_ARRAY_TASK_MIN";
pub const SLURM_MAX: &str = "SLURM_ARRAY_TASK_MAX";
/// Kubernetes Indexed Jobs: the completion index, 0-based (K − 1).
pub const K8S_INDEX: &str = "JOB_COMPLETION_INDEX";

/// Shard K of `count` from a scheduler's environment (`--shard env/N`):
/// `SLURM_ARRAY_TASK_ID` is K itself (1-based: `--array=1-N`), checked
/// against `SLURM_ARRAY_TASK_COUNT`, `…_MIN` and `…_MAX` when they are set
/// (an array of ids 0 to N − 1 is refused by every task, not only task 0,
/// which would leave shard N unplayed); `JOB_COMPLETION_INDEX`
/// is K − 1 (0-based, as Kubernetes counts). When both are set they must
/// name the same shard. `var` looks a variable up (`None`: not set), so
/// that this reads no environment itself. Returns the shard and where it
/// came from (`SLURM_ARRAY_TASK_ID=3`), or why there is none.
pub fn shard_from_env(count: u64, var: &dyn Fn(&str) -> Option<String>) -> Result<(Shard, String), String> {
    let number = |name: &str| -> Result<Option<u64>, String> {
        match var(name) {
            None => Ok(None),
            Some(v) => v
                .trim()
                .parse::<u64>()
                .map(Some)
                .map_err(|_| format!("{name}=`{v}` is not a whole number")),
        }
    };
    let slurm = match number(SLURM_TASK)? {
        None => None,
        Some(0) => {
            return Err(format!(
                "{SLURM_TASK}=0, but shards are numbered from 1: submit the array as --array=1-{count}"
            ));
        }
        Some(id) if id > count => {
            return Err(format!(
                "{SLURM_TASK}={id} is not a shard of {count} (1 to {count}: submit the array as --array=1-{count})"
            ));
        }
        Some(id) => {
            slurm_array(count, &number)?;
            Some(id)
        }
    };
    let k8s = match number(K8S_INDEX)? {
        None => None,
        Some(i) if i >= count => {
            return Err(format!(
                "{K8S_INDEX}={i} is not a shard of {count} (0 to {}: set the Job's completions to {count})",
                count - 1
            ));
        }
        Some(i) => Some(i + 1),
    };
    let shard = |index| Shard { index, count };
    match (slurm, k8s) {
        (Some(a), Some(b)) if a != b => Err(format!(
            "{SLURM_TASK}={a} and {K8S_INDEX}={} name different shards ({a} and {b} of {count})",
            b - 1
        )),
        (Some(a), _) => Ok((shard(a), format!("{SLURM_TASK}={a}"))),
        (None, Some(b)) => Ok((shard(b), format!("{K8S_INDEX}={}", b - 1))),
        (None, None) => Err(format!(
            "neither {SLURM_TASK} nor {K8S_INDEX} is set (outside a SLURM array or a Kubernetes Indexed Job, pass --shard K/{count})"
        )),
    }
}

/// The SLURM array a task belongs to is ids 1 to `count`, as far as its
/// variables say.
fn slurm_array(count: u64, number: &dyn Fn(&str) -> Result<Option<u64>, String>) -> Result<(), String> {
    let submit = format!("submit the array as --array=1-{count}");
    if let Some(tasks) = number(SLURM_COUNT)?
        && tasks != count
    {
        return Err(format!(
            "{SLURM_COUNT}={tasks}, but the batch is cut into {count} shards: {submit} (rerun one shard with --shard K/{count})"
        ));
    }
    if let Some(0) = number(SLURM_MIN)? {
        return Err(format!("{SLURM_MIN}=0, but shards are numbered from 1: {submit}"));
    }
    match number(SLURM_MAX)? {
        Some(max) if max > count => Err(format!(
            "{SLURM_MAX}={max}, but there are only {count} shards: {submit}"
        )),
        _ => Ok(()),
    }
}

/// The shard a batch plays: `--shard K/N` as given, `--shard env/N` from
/// the scheduler's variables (noted on stderr); `Err` after printing why
/// the environment names no shard.
pub(super) fn resolve_shard(arg: Option<ShardArg>) -> Result<Option<Shard>, ExitCode> {
    match arg {
        None => Ok(None),
        Some(ShardArg::Fixed(s)) => Ok(Some(s)),
        Some(ShardArg::Env { count }) => {
            let var = |name: &str| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned());
            match shard_from_env(count, &var) {
                Ok((s, from)) => {
                    super::note(format_args!("note: playing shard {}/{count} ({from})", s.index));
                    Ok(Some(s))
                }
                Err(e) => {
                    eprintln!("error: --shard env/{count}: {e}");
                    Err(ExitCode::from(BAD_INPUT))
                }
            }
        }
    }
}
