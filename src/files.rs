//! Reading input files within bounds, and writing output files without
//! losing anything: the inputs a command read
//! are never written unless the user asked for it (`--in-place`), a set of
//! files is written whole or not at all, and special files (devices, pipes)
//! and symbolic links are written through rather than replaced.
//!
//! A set is written in two steps: every regular file first goes to a
//! temporary file beside it (`.NAME.XXXXXX.fam-tmp`, flushed to disk); only
//! when all of them are complete are they renamed over their targets. A
//! failure in the first step (a full disk, a directory that cannot be
//! created) leaves every target as it was; the rename step can only fail
//! when the file system changes under us, and then the error names what was
//! written and what was left untouched.
//!
//! Every error names the user's path, never a temporary file ([`reason`]).

use std::collections::BTreeSet;
use std::fmt;
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

/// The suffix of fam's temporary files (removed when left by a killed run).
pub const TEMP_SUFFIX: &str = ".fam-tmp";

/// The largest input file fam reads (ship records, scenarios, orders, XML,
/// batch results): a whole fleet book is well under a megabyte.
pub const MAX_INPUT_BYTES: u64 = 16 << 20;

/// Why an I/O operation failed, in words for the user: the system's message
/// without its error number (`no such file or directory`), and never the
/// name of a temporary file (the caller names the user's path).
pub fn reason(e: &io::Error) -> String {
    let mut text = e.to_string();
    // `tempfile` appends the temporary file's path.
    if let Some(i) = text.rfind(" at path \"") {
        text.truncate(i);
    }
    if let Some(i) = text.rfind(" (os error ") {
        text.truncate(i);
    }
    // "No such file or directory" → "no such file or directory", but an
    // acronym or a path stays as it is.
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(a), Some(b)) if a.is_ascii_uppercase() && b.is_ascii_lowercase() => {
            format!("{}{}", a.to_ascii_lowercase(), &text[1..])
        }
        _ => text,
    }
}

/// An input file's bytes, refused beyond [`MAX_INPUT_BYTES`] (a device or a
/// runaway file is not read without end).
pub fn read_input(path: &Path) -> io::Result<Vec<u8>> {
    read_within(path, MAX_INPUT_BYTES)
}

/// A file's bytes, refused beyond `max` bytes (read no further than that,
/// whatever the file is).
pub fn read_within(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    use std::io::Read as _;
    let file = fs::File::open(path)?;
    if file.metadata()?.is_dir() {
        return Err(io::Error::new(io::ErrorKind::IsADirectory, "it is a directory"));
    }
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > max {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("it is larger than {} MiB, the most fam reads", max >> 20),
        ));
    }
    Ok(bytes)
}

/// One output file of a command, computed before anything is written.
#[derive(Debug, Clone)]
pub struct Output {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

impl Output {
    pub fn new(path: impl Into<PathBuf>, bytes: impl Into<Vec<u8>>) -> Output {
        Output {
            path: path.into(),
            bytes: bytes.into(),
        }
    }
}

/// Why a set of outputs was refused or not written.
#[derive(Debug)]
pub enum FilesError {
    /// An output names a file the command read.
    Overwrite { output: PathBuf, input: PathBuf },
    /// Two outputs name the same file.
    Twice { output: PathBuf },
    /// An output names a directory.
    Directory { output: PathBuf },
    /// Nothing was written: preparing `path` failed.
    Prepare { path: PathBuf, error: io::Error },
    /// Writing `path` failed after `written` were in place; `untouched`
    /// were left as they were.
    Partial {
        path: PathBuf,
        error: io::Error,
        written: Vec<PathBuf>,
        untouched: Vec<PathBuf>,
    },
}

impl fmt::Display for FilesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |paths: &[PathBuf]| {
            if paths.is_empty() {
                "none".to_string()
            } else {
                paths
                    .iter()
                    .map(|p| format!("`{}`", p.display()))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        match self {
            FilesError::Overwrite { output, input } => write!(
                f,
                "`{}` would overwrite `{}`, which this command reads; write elsewhere",
                output.display(),
                input.display()
            ),
            FilesError::Twice { output } => write!(f, "two outputs would be written to `{}`", output.display()),
            FilesError::Directory { output } => write!(f, "`{}` is a directory, not a file", output.display()),
            FilesError::Prepare { path, error } => {
                write!(
                    f,
                    "cannot write `{}`: {}; nothing was written",
                    path.display(),
                    reason(error)
                )
            }
            FilesError::Partial {
                path,
                error,
                written,
                untouched,
            } => write!(
                f,
                "cannot write `{}`: {}; written: {}; left untouched: {}",
                path.display(),
                reason(error),
                list(written),
                list(untouched)
            ),
        }
    }
}

impl std::error::Error for FilesError {}

/// The file a path names, symbolic links followed (also a link to a file
/// not yet made); the path itself when nothing is there.
fn resolved(path: &Path) -> PathBuf {
    if let Ok(real) = fs::canonicalize(path) {
        return real;
    }
    // A dangling link: its target, relative to the link's directory. One
    // level is enough to write where the user pointed; a chain of dangling
    // links is written at the last one readable.
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match fs::read_link(&p) {
            Ok(target) => {
                p = match p.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                }
            }
            Err(_) => break,
        }
    }
    // The directory may exist even when the file does not.
    match (p.parent(), p.file_name()) {
        (Some(dir), Some(name)) if !dir.as_os_str().is_empty() => {
            fs::canonicalize(dir).map_or(p.clone(), |d| d.join(name))
        }
        _ => p,
    }
}

/// Refuses outputs that name one of `inputs` (the same file, links
/// followed) or that name the same file twice.
pub fn guard(outputs: &[Output], inputs: &[PathBuf]) -> Result<(), FilesError> {
    let inputs: Vec<(PathBuf, &PathBuf)> = inputs.iter().map(|i| (resolved(i), i)).collect();
    let mut seen = BTreeSet::new();
    for o in outputs {
        let real = resolved(&o.path);
        if let Some((_, input)) = inputs.iter().find(|(r, _)| *r == real) {
            return Err(FilesError::Overwrite {
                output: o.path.clone(),
                input: (*input).clone(),
            });
        }
        if !seen.insert(real) {
            return Err(FilesError::Twice { output: o.path.clone() });
        }
    }
    Ok(())
}

/// Where and how one output is written.
enum Target {
    /// A regular file (or none yet): through a temporary file renamed over it.
    Regular {
        real: PathBuf,
        tmp: tempfile::NamedTempFile,
    },
    /// A device, pipe or socket: opened and written directly.
    Special { real: PathBuf },
}

/// Writes every output, or none (see the module docs). Missing parent
/// directories are made, and removed again when nothing is written.
pub fn write_all(outputs: &[Output]) -> Result<(), FilesError> {
    write_all_failing(outputs, usize::MAX)
}

/// One output, atomically.
pub fn write_one(path: &Path, bytes: &[u8]) -> Result<(), FilesError> {
    write_all(&[Output::new(path, bytes)])
}

/// [`write_all`], with preparing the output numbered `fail_at` failing as a
/// full disk would (for tests of the all-or-nothing promise).
fn write_all_failing(outputs: &[Output], fail_at: usize) -> Result<(), FilesError> {
    let mut made_dirs = Vec::new();
    let prepared = prepare(outputs, fail_at, &mut made_dirs);
    let targets = match prepared {
        Ok(t) => t,
        Err(e) => {
            // Nothing is in place: take away the directories we made.
            for dir in made_dirs.iter().rev() {
                let _ = fs::remove_dir(dir);
            }
            return Err(e);
        }
    };
    commit(outputs, targets)
}

/// The first step: every regular output written to its temporary file.
fn prepare(outputs: &[Output], fail_at: usize, made_dirs: &mut Vec<PathBuf>) -> Result<Vec<Target>, FilesError> {
    let mut targets = Vec::with_capacity(outputs.len());
    for (k, o) in outputs.iter().enumerate() {
        let fail = |error: io::Error| FilesError::Prepare {
            path: o.path.clone(),
            error,
        };
        // What the path names, links followed by the system itself: a
        // device or a pipe (`/dev/stdout`, `/dev/fd/63`) is written where
        // it is, through the path as given.
        match fs::metadata(&o.path) {
            Ok(m) if m.is_dir() => return Err(FilesError::Directory { output: o.path.clone() }),
            Ok(m) if !m.is_file() => {
                targets.push(Target::Special { real: o.path.clone() });
                continue;
            }
            _ => {}
        }
        let real = resolved(&o.path);
        let dir = match real.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        make_dirs(&dir, made_dirs).map_err(fail)?;
        if k == fail_at {
            return Err(fail(io::Error::new(
                io::ErrorKind::StorageFull,
                "no space left on device",
            )));
        }
        let name = real.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(TEMP_SUFFIX);
        // A replaced file keeps its permissions; a new one gets the usual
        // 0644 (a bare temporary file would be private, 0600).
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let permissions = fs::metadata(&real)
                .map(|m| m.permissions())
                .unwrap_or_else(|_| fs::Permissions::from_mode(0o644));
            builder.permissions(permissions);
        }
        let mut tmp = builder.tempfile_in(&dir).map_err(fail)?;
        tmp.write_all(&o.bytes).map_err(fail)?;
        tmp.as_file().sync_all().map_err(fail)?;
        targets.push(Target::Regular { real, tmp });
    }
    Ok(targets)
}

/// Makes `dir` and its missing parents, noting each one made.
fn make_dirs(dir: &Path, made: &mut Vec<PathBuf>) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent()
        && !parent.as_os_str().is_empty()
    {
        make_dirs(parent, made)?;
    }
    match fs::create_dir(dir) {
        Ok(()) => {
            made.push(dir.to_path_buf());
            Ok(())
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(io::Error::new(
            io::ErrorKind::NotADirectory,
            format!("`{}` is not a directory", dir.display()),
        )),
        Err(e) => Err(io::Error::new(
            e.kind(),
            format!("cannot make directory `{}`: {}", dir.display(), reason(&e)),
        )),
    }
}

/// The second step: special files written (they cannot be staged, so they
/// go first, before any regular file is replaced), then the renames.
fn commit(outputs: &[Output], targets: Vec<Target>) -> Result<(), FilesError> {
    let mut written = Vec::new();
    let order: Vec<usize> = (0..targets.len())
        .filter(|&k| matches!(targets[k], Target::Special { .. }))
        .chain((0..targets.len()).filter(|&k| matches!(targets[k], Target::Regular { .. })))
        .collect();
    let mut slots: Vec<Option<Target>> = targets.into_iter().map(Some).collect();
    for (n, &k) in order.iter().enumerate() {
        let result = match slots[k].take() {
            Some(Target::Special { real }) => fs::OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(&real)
                .and_then(|mut f| f.write_all(&outputs[k].bytes)),
            Some(Target::Regular { real, tmp }) => tmp.persist(&real).map(|_| ()).map_err(|e| e.error),
            None => Ok(()),
        };
        if let Err(error) = result {
            return Err(FilesError::Partial {
                path: outputs[k].path.clone(),
                error,
                written,
                untouched: order[n..].iter().map(|&j| outputs[j].path.clone()).collect(),
            });
        }
        written.push(outputs[k].path.clone());
    }
    Ok(())
}

/// Removes temporary files fam left beside `path` (a run killed between
/// writing and renaming). Returns how many were removed.
pub fn remove_stale_temporaries(path: &Path) -> usize {
    let real = resolved(path);
    let (Some(dir), Some(name)) = (real.parent(), real.file_name()) else {
        return 0;
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let prefix = format!(".{}.", name.to_string_lossy());
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let file = entry.file_name();
        let file = file.to_string_lossy();
        let stale = file.starts_with(&prefix)
            && file.ends_with(TEMP_SUFFIX)
            && file.len() > prefix.len() + TEMP_SUFFIX.len()
            && entry.file_type().is_ok_and(|t| t.is_file());
        if stale && fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(p: &Path) -> String {
        fs::read_to_string(p).unwrap()
    }

    fn names_in(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_full_disk_part_way_through_leaves_every_file_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.gzf"), dir.path().join("b.toml"));
        fs::write(&a, "old a").unwrap();
        fs::write(&b, "old b").unwrap();
        let new_dir = dir.path().join("turn2");
        let outputs = [
            Output::new(&a, "new a"),
            Output::new(new_dir.join("c.toml"), "new c"),
            Output::new(&b, "new b"),
        ];
        for fail_at in 0..outputs.len() {
            let e = write_all_failing(&outputs, fail_at).unwrap_err();
            assert!(e.to_string().contains("nothing was written"), "{e}");
            assert_eq!((read(&a), read(&b)), ("old a".into(), "old b".into()));
            assert!(!new_dir.exists(), "the directory made for the set is taken away");
            assert_eq!(names_in(dir.path()), ["a.gzf", "b.toml"], "no temporary file left");
        }
        write_all(&outputs).unwrap();
        assert_eq!(
            (read(&a), read(&b), read(&new_dir.join("c.toml"))),
            ("new a".into(), "new b".into(), "new c".into())
        );
    }

    #[test]
    fn an_output_naming_an_input_or_another_output_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("ship.gzf");
        fs::write(&input, "x").unwrap();
        // The same file by another spelling.
        let other = dir.path().join(".").join("ship.gzf");
        let e = guard(&[Output::new(&other, "y")], std::slice::from_ref(&input)).unwrap_err();
        assert!(matches!(e, FilesError::Overwrite { .. }), "{e}");
        let twice = [
            Output::new(dir.path().join("o"), "1"),
            Output::new(dir.path().join("o"), "2"),
        ];
        assert!(matches!(guard(&twice, &[]).unwrap_err(), FilesError::Twice { .. }));
        assert!(guard(&[Output::new(dir.path().join("new.gzf"), "z")], &[input]).is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn links_are_written_through_and_devices_written_directly() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.jsonl");
        fs::write(&real, "old").unwrap();
        let link = dir.path().join("link.jsonl");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_one(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(read(&real), "new");
        // A link to a file not yet made makes it.
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink("made.txt", &dangling).unwrap();
        write_one(&dangling, b"made").unwrap();
        assert_eq!(read(&dir.path().join("made.txt")), "made");
        // /dev/null stays a device.
        write_one(Path::new("/dev/null"), b"gone").unwrap();
        use std::os::unix::fs::FileTypeExt as _;
        assert!(fs::metadata("/dev/null").unwrap().file_type().is_char_device());
    }

    #[test]
    fn errors_name_the_users_path_never_a_temporary_or_an_error_number() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("blocker");
        fs::write(&blocker, "a file").unwrap();
        // What `tempfile` says names its temporary file.
        let raw = tempfile::Builder::new()
            .suffix(TEMP_SUFFIX)
            .tempfile_in(dir.path().join("missing"))
            .unwrap_err();
        assert!(raw.to_string().contains("at path"), "{raw}");
        assert_eq!(reason(&raw), "no such file or directory");
        let target = dir.path().join("missing").join("state.toml");
        let e = FilesError::Prepare {
            path: target.clone(),
            error: raw,
        };
        assert_eq!(
            e.to_string(),
            format!(
                "cannot write `{}`: no such file or directory; nothing was written",
                target.display()
            )
        );
        let e = write_one(&blocker.join("state.toml"), b"x").unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("cannot write `{}/state.toml`: ", blocker.display())),
            "{e}"
        );
        assert!(
            e.contains(&format!("`{}` is not a directory", blocker.display())),
            "{e}"
        );
        assert!(!e.contains(TEMP_SUFFIX) && !e.contains("os error"), "{e}");
    }

    #[test]
    fn stale_temporaries_of_a_file_are_removed_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.ckpt");
        for f in [
            ".run.ckpt.a1B2c3.fam-tmp",
            ".run.ckpt.zz.fam-tmp",
            ".other.x.fam-tmp",
            "run.ckpt",
            ".run.ckpt.keep",
        ] {
            fs::write(dir.path().join(f), "x").unwrap();
        }
        assert_eq!(remove_stale_temporaries(&path), 2);
        assert_eq!(names_in(dir.path()), [".other.x.fam-tmp", ".run.ckpt.keep", "run.ckpt"]);
    }
}
