//! Outputs never overwrite inputs, are written whole or not at all, and go
//! through links and to devices (issue: nothing lost, nothing overwritten).

use std::fs;
use std::path::{Path, PathBuf};

use crate::support::{fam, repo, text};

/// A copy of the duel (`scenarios/duel.toml` and the two records it loads)
/// in a fresh directory, laid out as in the repository.
struct Copy {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Copy {
    fn duel() -> Copy {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        fs::create_dir_all(root.join("scenarios")).unwrap();
        fs::create_dir_all(root.join("ssd")).unwrap();
        fs::copy(repo().join("scenarios/duel.toml"), root.join("scenarios/duel.toml")).unwrap();
        for f in ["meridian-compact.gzf", "kestrel-reach.gzf"] {
            fs::copy(repo().join("ssd").join(f), root.join("ssd").join(f)).unwrap();
        }
        Copy { _dir: dir, root }
    }

    fn path(&self, p: &str) -> String {
        self.root.join(p).display().to_string()
    }

    /// Every file under the copy with its bytes.
    fn snapshot(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut all = Vec::new();
        let mut stack = vec![self.root.clone()];
        while let Some(d) = stack.pop() {
            for e in fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    all.push((p.clone(), fs::read(&p).unwrap()));
                }
            }
        }
        all.sort();
        all
    }
}

fn refused(args: &[&str]) -> String {
    let run = fam(args);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains("which this command reads"), "{args:?}: {err}");
    err
}

/// Every output flag that could name a file the command read is refused
/// with exit 2 and writes nothing: resolve's `--out` (the records' own
/// directory) and `--log`, batch's `--plot` and `--checkpoint`, `ssd fmt
/// --out` (the directory of its input), merge's `--plot`.
#[test]
fn no_output_flag_writes_over_a_file_the_command_read() {
    let c = Copy::duel();
    let before = c.snapshot();
    let (scenario, ssd, kestrel) = (
        c.path("scenarios/duel.toml"),
        c.path("ssd"),
        c.path("ssd/kestrel-reach.gzf"),
    );
    let err = refused(&["resolve", &scenario, "--seed", "5", "--out", &ssd]);
    assert!(
        err.contains("kestrel-reach.gzf") || err.contains("meridian-compact.gzf"),
        "{err}"
    );
    refused(&["resolve", &scenario, "--log", &kestrel]);
    refused(&["resolve", &scenario, "--exchanges", "2", "--log", &scenario]);
    refused(&["batch", &scenario, "--runs", "20", "--plot", &kestrel]);
    refused(&["batch", &scenario, "--runs", "20", "--checkpoint", &scenario]);
    refused(&["ssd", "fmt", &kestrel, "--out", &ssd]);
    // The same file by another spelling and through a link.
    let dotted = format!("{}/../ssd/./kestrel-reach.gzf", c.path("scenarios"));
    refused(&["resolve", &scenario, "--log", &dotted]);
    let link = c.root.join("link.gzf");
    std::os::unix::fs::symlink(c.root.join("ssd/kestrel-reach.gzf"), &link).unwrap();
    refused(&["resolve", &scenario, "--log", &link.display().to_string()]);
    fs::remove_file(&link).unwrap();
    assert_eq!(c.snapshot(), before, "a refused command wrote something");
    // A batch result read by merge is not its plot either.
    let json = c.root.join("part.json");
    let run = fam(&["batch", &scenario, "--runs", "20", "--json"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    fs::write(&json, &run.stdout).unwrap();
    let j = json.display().to_string();
    refused(&["merge", &j, "--plot", &j]);
    assert_eq!(fs::read(&json).unwrap(), run.stdout);
}

/// `--in-place` is how a moderator advances a turn directory over itself:
/// the records read are replaced by the damaged ones, and `state.toml`,
/// the next scenario and the orders templates join them.
#[test]
fn resolve_in_place_advances_the_turn_over_its_own_files() {
    let c = Copy::duel();
    let (scenario, ssd) = (c.path("scenarios/duel.toml"), c.path("ssd"));
    let run = fam(&[
        "resolve",
        &scenario,
        "--seed",
        "5",
        "--exchanges",
        "3",
        "--out",
        &ssd,
        "--in-place",
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    for f in [
        "state.toml",
        "scenario.toml",
        "kestrel-reach.gzf",
        "meridian-compact.gzf",
    ] {
        assert!(c.root.join("ssd").join(f).is_file(), "{f} written");
    }
    let next = c.path("ssd/scenario.toml");
    let run = fam(&["check", &next]);
    assert!(run.status.success(), "{}{}", text(&run.stdout), text(&run.stderr));
    // Without --out there is nothing to do in place.
    let run = fam(&["resolve", &scenario, "--in-place"]);
    assert_eq!(run.status.code(), Some(2));
}

/// A resolve whose outputs cannot all be written writes none of them: the
/// turn directory of the previous Exchange stays as it was (no new records
/// beside the old scenario), a new directory is not left behind, and no
/// temporary file remains.
#[test]
fn a_turn_directory_is_written_whole_or_not_at_all() {
    let c = Copy::duel();
    let scenario = c.path("scenarios/duel.toml");
    // A log that cannot be written: its "directory" is a regular file.
    let blocker = c.root.join("blocker");
    fs::write(&blocker, "a file, not a directory").unwrap();
    let log = c.path("blocker/log.jsonl");
    let new_turn = c.path("turn2");
    let run = fam(&["resolve", &scenario, "--seed", "5", "--out", &new_turn, "--log", &log]);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(err.contains("nothing was written"), "{err}");
    assert!(
        !Path::new(&new_turn).exists(),
        "the new turn directory is not left behind"
    );
    // An existing turn directory keeps the previous Exchange whole.
    let old_turn = c.root.join("turn1");
    fs::create_dir(&old_turn).unwrap();
    fs::write(old_turn.join("scenario.toml"), "# Exchange 1\n").unwrap();
    fs::write(old_turn.join("state.toml"), "# Exchange 1\n").unwrap();
    let before = c.snapshot();
    let run = fam(&[
        "resolve",
        &scenario,
        "--seed",
        "5",
        "--out",
        &old_turn.display().to_string(),
        "--log",
        &log,
    ]);
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stderr));
    assert_eq!(c.snapshot(), before, "the old turn changed");
}

/// Logs are written through a symbolic link to its target (the link stays)
/// and straight into a device: `/dev/null` stays a device.
#[test]
fn a_log_goes_through_a_link_and_into_a_device() {
    use std::os::unix::fs::FileTypeExt as _;
    let c = Copy::duel();
    let scenario = c.path("scenarios/duel.toml");
    let real = c.root.join("logs.jsonl");
    fs::write(&real, "").unwrap();
    let link = c.root.join("latest.jsonl");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let run = fam(&["resolve", &scenario, "--log", &link.display().to_string()]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    let log = fs::read_to_string(&real).unwrap();
    assert!(
        log.lines().count() > 1 && log.lines().all(|l| l.starts_with('{')),
        "{log}"
    );
    let run = fam(&["resolve", &scenario, "--log", "/dev/null"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(fs::metadata("/dev/null").unwrap().file_type().is_char_device());
    // Standard output is a pipe here (as with `--log >(gzip > log.gz)`):
    // the log goes into it, before the report.
    let run = fam(&["resolve", &scenario, "--log", "/dev/stdout"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let out = text(&run.stdout);
    assert!(out.starts_with("{\"exchange\":1"), "{}", &out[..out.len().min(300)]);
    assert!(out.contains("Duel off Cold Harbour"), "the report follows the log");
}

/// A batch killed between writing its checkpoint and renaming it leaves a
/// temporary file beside it; the next start removes it and resumes.
#[test]
fn a_stale_checkpoint_temporary_is_removed_on_the_next_start() {
    let c = Copy::duel();
    let scenario = c.path("scenarios/duel.toml");
    let cp = c.path("run.ckpt");
    let stale = c.root.join(".run.ckpt.Xy12Ab.fam-tmp");
    fs::write(&stale, "{\"half\": ").unwrap();
    let run = fam(&["batch", &scenario, "--runs", "30", "--checkpoint", &cp]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(!stale.exists(), "the stale temporary is gone");
    assert!(Path::new(&cp).is_file());
    let left: Vec<_> = fs::read_dir(&c.root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".fam-tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Import and export name their outputs after their inputs: an input whose
/// name the output takes (an XML file named `.gzf`, a record named `.xml`)
/// is refused rather than replaced.
#[test]
fn import_and_export_never_replace_the_file_they_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    let xml_named_gzf = dir.path().join("osprey.gzf");
    fs::copy(crate::support::fixtures("ftjava").join("osprey.xml"), &xml_named_gzf).unwrap();
    let before = fs::read(&xml_named_gzf).unwrap();
    refused(&["import", "ftjava", &xml_named_gzf.display().to_string(), "--out", &d]);
    assert_eq!(fs::read(&xml_named_gzf).unwrap(), before);
    let gzf_named_xml = dir.path().join("kestrel.xml");
    fs::copy(repo().join("ssd/kestrel-reach.gzf"), &gzf_named_xml).unwrap();
    let before = fs::read(&gzf_named_xml).unwrap();
    refused(&[
        "export",
        "ftjava",
        &gzf_named_xml.display().to_string(),
        "--skip-unmapped",
        "--out",
        &d,
    ]);
    assert_eq!(fs::read(&gzf_named_xml).unwrap(), before);
}

/// A checkpoint that cannot be written is a failure of the job (exit 1, as
/// the README says), not bad input; its message names the path.
#[test]
fn a_checkpoint_that_cannot_be_written_exits_1_naming_it() {
    let c = Copy::duel();
    let scenario = c.path("scenarios/duel.toml");
    fs::write(c.root.join("blocker"), "a file, not a directory").unwrap();
    let cp = c.path("blocker/run.ckpt");
    let run = fam(&["batch", &scenario, "--runs", "30", "--checkpoint", &cp]);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot write the checkpoint") && err.contains("blocker"),
        "{err}"
    );
}
