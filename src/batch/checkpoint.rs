//! `fam batch --checkpoint FILE`: the state of a batch between blocks of
//! runs (its raw integer tallies, the next run index, and what identifies
//! the batch), written atomically after every block so that an interrupted
//! batch resumes where it stopped and ends with exactly the statistics of
//! an uninterrupted one (tallies add up exactly, in any order).

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::CI_BLOCK;
use super::digest::Found;
use super::json::{TalliesJson, tallies_json, tally_from_json};
use super::tally::Tally;

/// Version of the checkpoint file; a file of another version is refused.
/// Version 2 added the weapon-use counts (`tallies.weapons`): a version 1
/// file lacks them for the runs it counted, so it cannot be resumed.
/// Version 3 added the digest ([`super::digest`]): a file without one
/// could have been changed unseen, so it is not resumed either.
pub const CHECKPOINT_VERSION: u32 = 3;

/// What a checkpoint belongs to: a checkpoint is only resumed by the batch
/// it identifies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Identity {
    pub fam_version: String,
    /// [`super::fingerprint`] of the scenario.
    pub fingerprint: String,
    pub seed: u64,
    /// Exchanges at most per run.
    pub exchanges: u32,
    /// The runs the batch plays, `[start, end)` (for `--until-ci`: `[0, max]`).
    pub range: [u64; 2],
    /// `--until-ci W`.
    pub until_ci: Option<f64>,
}

/// The file's contents.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CheckpointJson {
    pub schema: String,
    pub version: u32,
    pub identity: Identity,
    /// The first run not yet counted.
    pub next_run: u64,
    /// The runs `range[0]..next_run`, counted.
    pub tallies: TalliesJson,
    /// The SHA-256 of the rest ([`super::digest`]); required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
}

impl super::digest::Sealed for CheckpointJson {
    fn digest_mut(&mut self) -> &mut Option<String> {
        &mut self.digest
    }
}

/// Where to keep a batch's checkpoint, and (for tests) when to stop early.
#[derive(Debug, Clone, PartialEq)]
pub struct Checkpoint {
    pub path: PathBuf,
    /// Runs per block (a checkpoint is written after each); `--until-ci`
    /// always uses [`super::CI_BLOCK`].
    pub block: u64,
    /// Stop (as if interrupted) after playing this many blocks in this
    /// call; `None`: play to the end.
    pub max_blocks: Option<u64>,
}

impl Checkpoint {
    /// A checkpoint at `path` with blocks of [`super::CI_BLOCK`] runs.
    pub fn at(path: impl Into<PathBuf>) -> Checkpoint {
        Checkpoint {
            path: path.into(),
            block: super::CI_BLOCK,
            max_blocks: None,
        }
    }
}

/// Reads the checkpoint at `path` if there is one: `Ok(None)` when the file
/// does not exist, `Ok(Some((next_run, tally)))` when it belongs to the
/// batch `id`, fits `empty` (the tally shape of the scenario) and its counts
/// are those of real runs of a battle whose Unit `i` is on side
/// `unit_sides[i]` ([`Tally::check`]); an error naming the file and saying
/// why otherwise. Nothing in the file sizes an allocation: its histograms
/// hold only the values it lists.
pub fn load(path: &Path, id: &Identity, empty: &Tally, unit_sides: &[usize]) -> Result<Option<(u64, Tally)>, String> {
    // A run killed between writing a checkpoint and renaming it into place
    // left its temporary file: the checkpoint itself is whole, the
    // temporary is not needed.
    crate::files::remove_stale_temporaries(path);
    let text = match read_bounded(path) {
        Ok(t) => t,
        // Nothing there yet (also where a directory of the path is missing
        // or a file: then the first write fails, and says why).
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(None);
        }
        Err(e) => return Err(format!("cannot read the checkpoint {}: {e}", path.display())),
    };
    let bad = |why: String| format!("the checkpoint {} cannot be resumed: {why}", path.display());
    let j = parse(&text).map_err(bad)?;
    check_identity(&j.identity, id).map_err(bad)?;
    let counted = counted_runs(j.next_run, id).map_err(bad)?;
    let tally = tally_from_json(&j.tallies).map_err(|e| bad(format!("its tallies are damaged ({e})")))?;
    tally
        .check_shape(empty)
        .map_err(|e| bad(format!("its tallies do not fit the scenario ({e})")))?;
    tally
        .check(&counted, unit_sides)
        .map_err(|e| bad(format!("its tallies do not add up ({e})")))?;
    let mut total = empty.clone();
    total
        .merge(&tally)
        .map_err(|e| bad(format!("its tallies do not fit the scenario ({e})")))?;
    Ok(Some((j.next_run, total)))
}

/// The file's contents, if it is a checkpoint of the version this fam reads
/// and its digest matches them.
fn parse(text: &str) -> Result<CheckpointJson, String> {
    let mut j: CheckpointJson =
        serde_json::from_str(text).map_err(|e| format!("it is not a fam batch checkpoint ({e})"))?;
    if j.schema != "fam-batch-checkpoint" {
        return Err(format!("its schema is `{}`", j.schema));
    }
    if j.version < CHECKPOINT_VERSION {
        return Err(format!(
            "it is version {}, written by an older fam that did not count or check everything this one does \
             (this fam reads version {CHECKPOINT_VERSION}); {AFRESH}",
            j.version
        ));
    }
    if j.version != CHECKPOINT_VERSION {
        return Err(format!(
            "it is version {} (this fam reads version {CHECKPOINT_VERSION})",
            j.version
        ));
    }
    match super::digest::verify(&mut j) {
        Ok(Found::Matches) => Ok(j),
        Ok(Found::Missing) => Err(format!(
            "it has no digest, so fam cannot tell whether it was changed after fam wrote it; {AFRESH}"
        )),
        Err(changed) => Err(format!("{changed}; {AFRESH}")),
    }
}

/// What to do with a checkpoint that cannot be resumed.
const AFRESH: &str = "delete it or choose another file to start afresh";

/// Whether the checkpoint's identity `mine` is the batch `id`'s.
fn check_identity(mine: &Identity, id: &Identity) -> Result<(), String> {
    let differ = |what: &str, theirs: String, ours: String| {
        Err(format!(
            "it is of a batch with a different {what} ({theirs}, not {ours}); {AFRESH}"
        ))
    };
    if mine.fingerprint != id.fingerprint {
        return differ("scenario", mine.fingerprint.clone(), id.fingerprint.clone());
    }
    if mine.seed != id.seed {
        return differ("base seed", mine.seed.to_string(), id.seed.to_string());
    }
    if mine.exchanges != id.exchanges {
        return differ("Exchange cap", mine.exchanges.to_string(), id.exchanges.to_string());
    }
    if mine.range != id.range {
        let r = |r: [u64; 2]| format!("runs {}..{}", r[0], r[1]);
        return differ("run range", r(mine.range), r(id.range));
    }
    if mine.until_ci != id.until_ci {
        let w = |w: Option<f64>| w.map_or("no --until-ci".to_string(), |w| format!("--until-ci {w}"));
        return differ("stopping rule", w(mine.until_ci), w(id.until_ci));
    }
    if mine.fam_version != id.fam_version {
        return differ("fam version", mine.fam_version.clone(), id.fam_version.clone());
    }
    Ok(())
}

/// The runs a checkpoint of the batch `id` says it counted, up to
/// `next_run`: from the start of the batch's runs to no further than their
/// end, or with `--until-ci` whole blocks, the last begun below the cap.
fn counted_runs(next_run: u64, id: &Identity) -> Result<Range<u64>, String> {
    let [start, end] = id.range;
    let fits = match id.until_ci {
        None => (start..=end).contains(&next_run),
        Some(_) => next_run.is_multiple_of(CI_BLOCK) && next_run.saturating_sub(CI_BLOCK) < end.max(1),
    };
    if fits {
        Ok(start..next_run)
    } else {
        Err(format!(
            "it says the next run is {next_run}, which is not where a batch of runs {start}..{end} can stop"
        ))
    }
}

/// The largest checkpoint read: far above any fam writes (its histograms
/// are bounded by the Exchange cap), far below what would exhaust memory.
const MAX_CHECKPOINT_BYTES: u64 = 64 << 20;

/// A checkpoint's text: a regular file (a device or pipe would never end)
/// of at most [`MAX_CHECKPOINT_BYTES`].
fn read_bounded(path: &Path) -> std::io::Result<String> {
    use std::io::{Error, ErrorKind};
    if !std::fs::metadata(path)?.is_file() {
        return Err(Error::new(ErrorKind::InvalidInput, "not a regular file"));
    }
    let bytes = crate::files::read_within(path, MAX_CHECKPOINT_BYTES)?;
    String::from_utf8(bytes).map_err(|_| Error::new(ErrorKind::InvalidData, "it is not UTF-8 text"))
}

/// Writes the checkpoint atomically: to a temporary file in the same
/// directory, flushed to disk, then renamed over `path`.
pub fn save(path: &Path, id: &Identity, next_run: u64, tally: &Tally) -> Result<(), String> {
    let mut j = CheckpointJson {
        schema: "fam-batch-checkpoint".into(),
        version: CHECKPOINT_VERSION,
        identity: id.clone(),
        next_run,
        tallies: tallies_json(tally),
        digest: None,
    };
    super::digest::seal(&mut j);
    let mut text = serde_json::to_string(&j).map_err(|e| e.to_string())?;
    text.push('\n');
    crate::files::write_one(path, text.as_bytes()).map_err(|e| format!("cannot write the checkpoint: {e}"))
}
