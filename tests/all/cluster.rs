//! Batches on many machines (docs/cluster.md): the recipes played as the
//! document writes them (a requeued task resuming from its checkpoint
//! too), every `fam` command line of the page parsed by fam's own command
//! line, the `Containerfile` the page describes, `--shard env/N` from the
//! schedulers' variables, and `fam merge` refusing a set of shards that is
//! not one whole batch.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{fam, repo, resealed, text};

/// Every variable `--shard env/N` reads: cleared for each command, so that
/// a test run inside a scheduler sees only what the test sets.
const SCHEDULER_VARS: [&str; 5] = [
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_COUNT",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX",
    "JOB_COMPLETION_INDEX",
];

/// The runs the recipes play instead of the document's 100000.
const RUNS: &str = "240";

fn duel() -> String {
    repo().join("scenarios/duel.toml").display().to_string()
}

/// The fenced block after `<!-- tested: NAME -->` in docs/cluster.md, with
/// the test's run count and the scenario's absolute path put in.
fn recipe(name: &str) -> String {
    let doc = std::fs::read_to_string(repo().join("docs/cluster.md")).unwrap();
    let marker = format!("<!-- tested: {name} -->");
    let after = &doc[doc.find(&marker).unwrap_or_else(|| panic!("no {marker}")) + marker.len()..];
    let open = after.find("```").unwrap();
    let body = &after[open..];
    let start = body.find('\n').unwrap() + 1;
    let end = body[start..].find("```").unwrap();
    let block = &body[start..start + end];
    assert!(
        block.contains("--runs 100000") || !block.contains("fam batch"),
        "{block}"
    );
    block
        .replace("--runs 100000", &format!("--runs {RUNS}"))
        .replace("scenarios/duel.toml", &duel())
}

/// `sh -c script` in `dir` with the built fam first on the PATH and the
/// scheduler variables `vars` (and no others).
fn sh(dir: &Path, script: &str, vars: &[(&str, String)]) -> Output {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_fam"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(script).current_dir(dir).env("PATH", path);
    for v in SCHEDULER_VARS {
        cmd.env_remove(v);
    }
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run sh");
    assert!(out.status.success(), "{script}\n{}", text(&out.stderr));
    out
}

/// fam with the scheduler variables `vars` (and no others).
fn fam_env(args: &[&str], vars: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fam"));
    cmd.args(args).current_dir(repo());
    for v in SCHEDULER_VARS {
        cmd.env_remove(v);
    }
    for (k, v) in vars {
        cmd.env(k, v);
    }
    cmd.output().expect("run fam")
}

/// The whole batch the recipes cut into shards, played at once.
fn whole_batch() -> String {
    let out = fam(&["batch", &duel(), "--runs", RUNS, "--seed", "42", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn the_documented_xargs_recipe_merges_into_the_whole_batch() {
    let dir = tempfile::tempdir().unwrap();
    sh(dir.path(), &recipe("xargs"), &[]);
    let shards = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(shards, 9, "eight shards and the merge");
    let merged = std::fs::read_to_string(dir.path().join("batch.json")).unwrap();
    assert_eq!(merged, whole_batch());
}

#[test]
fn the_documented_slurm_array_merges_into_the_whole_batch() {
    let dir = tempfile::tempdir().unwrap();
    let script = recipe("slurm");
    assert!(script.contains("#SBATCH --array=1-8"), "{script}");
    for k in 1..=8 {
        let vars = [
            ("SLURM_ARRAY_TASK_ID", k.to_string()),
            ("SLURM_ARRAY_TASK_COUNT", "8".to_string()),
            ("SLURM_ARRAY_TASK_MIN", "1".to_string()),
            ("SLURM_ARRAY_TASK_MAX", "8".to_string()),
            ("SLURM_CPUS_PER_TASK", "1".to_string()),
        ];
        let out = sh(dir.path(), &script, &vars);
        assert!(
            text(&out.stderr).contains(&format!("shard {k}/8 (SLURM_ARRAY_TASK_ID={k})")),
            "{}",
            text(&out.stderr)
        );
    }
    // The merge job's command, as `sbatch --wrap` runs it.
    let submit = recipe("slurm-merge");
    let wrap = submit.split("--wrap '").nth(1).unwrap();
    let merge = &wrap[..wrap.find('\'').unwrap()];
    sh(dir.path(), merge, &[]);
    let merged = std::fs::read_to_string(dir.path().join("batch.json")).unwrap();
    assert_eq!(merged, whole_batch());
}

/// A task of the documented SLURM array that was preempted after some of
/// its runs and requeued: the script, run again, resumes from the
/// checkpoint the task left (refused, exit 2, were it another shard's or
/// another batch's), and the merge is still exactly the whole batch.
#[test]
fn a_preempted_and_requeued_slurm_task_resumes_from_its_checkpoint_into_the_whole_batch() {
    let dir = tempfile::tempdir().unwrap();
    let script = recipe("slurm");
    assert!(script.contains("#SBATCH --requeue"), "{script}");
    let named = script
        .split("--checkpoint \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the script keeps a checkpoint");
    assert!(
        named.contains("$SLURM_ARRAY_TASK_ID"),
        "one checkpoint a shard: {named}"
    );
    // Task 3 stopped after a block of 10 of its runs, as a preemption
    // between blocks leaves it.
    let loaded = fam::orders::load_scenario(Path::new(&duel()), &[], &fam::gzf::ParseOptions::default())
        .unwrap_or_else(|_| panic!("the duel loads"));
    let options = fam::batch::Options::for_scenario(&loaded, Some(42), None, Some(1));
    let runs: u64 = RUNS.parse().unwrap();
    let slice = fam::cli::Shard { index: 3, count: 8 }.range(runs);
    let stopped = fam::batch::Checkpoint {
        path: dir.path().join(named.replace("$SLURM_ARRAY_TASK_ID", "3")),
        block: 10,
        max_blocks: Some(1),
    };
    let part = fam::batch::run_resumable(&loaded, &options, &fam::batch::Plan::Runs(slice), &stopped, &|_| {}).unwrap();
    assert_eq!((part.tally.runs, part.complete), (10, false));
    for k in 1..=8 {
        let vars = [
            ("SLURM_ARRAY_TASK_ID", k.to_string()),
            ("SLURM_ARRAY_TASK_COUNT", "8".to_string()),
            ("SLURM_CPUS_PER_TASK", "1".to_string()),
        ];
        sh(dir.path(), &script, &vars);
    }
    let submit = recipe("slurm-merge");
    let wrap = submit.split("--wrap '").nth(1).unwrap();
    sh(dir.path(), &wrap[..wrap.find('\'').unwrap()], &[]);
    let merged = std::fs::read_to_string(dir.path().join("batch.json")).unwrap();
    assert_eq!(merged, whole_batch());
}

#[test]
fn the_documented_kubernetes_indexed_job_merges_into_the_whole_batch() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("results")).unwrap();
    let manifest = recipe("kubernetes");
    assert!(manifest.contains("completionMode: Indexed") && manifest.contains("completions: 8"));
    let command = manifest
        .lines()
        .find_map(|l| l.trim().strip_prefix("- fam batch"))
        .map(|rest| format!("fam batch{rest}"))
        .expect("the container's command");
    assert!(
        command.contains("--checkpoint results/shard-$JOB_COMPLETION_INDEX."),
        "a replaced pod resumes from its own checkpoint: {command}"
    );
    for index in 0..8 {
        sh(dir.path(), &command, &[("JOB_COMPLETION_INDEX", index.to_string())]);
    }
    sh(dir.path(), &recipe("kubernetes-merge"), &[]);
    let merged = std::fs::read_to_string(dir.path().join("results/batch.json")).unwrap();
    assert_eq!(merged, whole_batch());
}

/// The fenced blocks of a Markdown text.
fn fenced_blocks(doc: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut open: Option<String> = None;
    for line in doc.lines() {
        match (&mut open, line.trim_start().starts_with("```")) {
            (None, true) => open = Some(String::new()),
            (Some(_), true) => blocks.push(open.take().unwrap()),
            (Some(body), false) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, false) => {}
        }
    }
    blocks
}

/// A shell text (or YAML holding shell lines) as simple commands, each
/// the words a shell would pass: lines continued by `\` joined, comments
/// left out, command boundaries at `&&`, `||`, `|`, `;`, `&`, `(`, `)`,
/// redirections and single quotes (so that `sh -c '…'` and `--wrap '…'`
/// give the command inside), double quotes joining a word, and every
/// variable, command substitution and xargs' `{}` standing for `1`.
fn simple_commands(shell: &str) -> Vec<Vec<String>> {
    let shell = shell.replace("\\\n", " ");
    let mut commands = vec![Vec::new()];
    let mut word: Option<String> = None;
    let mut chars = shell.chars().peekable();
    let mut quoted = false;
    let end_word = |word: &mut Option<String>, commands: &mut Vec<Vec<String>>| {
        if let Some(w) = word.take() {
            commands.last_mut().unwrap().push(w.replace("{}", "1"));
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                quoted = !quoted;
                word.get_or_insert_with(String::new);
            }
            '$' => {
                // $NAME, ${NAME}, $(…) and $((…)): a number.
                match chars.peek() {
                    Some('(') | Some('{') => {
                        let mut depth = 0;
                        for d in chars.by_ref() {
                            match d {
                                '(' | '{' => depth += 1,
                                ')' | '}' => depth -= 1,
                                _ => {}
                            }
                            if depth == 0 {
                                break;
                            }
                        }
                    }
                    _ => {
                        while chars.peek().is_some_and(|d| d.is_ascii_alphanumeric() || *d == '_') {
                            chars.next();
                        }
                    }
                }
                word.get_or_insert_with(String::new).push('1');
            }
            c if quoted => word.get_or_insert_with(String::new).push(c),
            '#' if word.is_none() => {
                while chars.peek().is_some_and(|d| *d != '\n') {
                    chars.next();
                }
            }
            ' ' | '\t' => end_word(&mut word, &mut commands),
            '\n' | '\'' | ';' | '&' | '|' | '(' | ')' | '>' | '<' => {
                end_word(&mut word, &mut commands);
                if !commands.last().unwrap().is_empty() {
                    commands.push(Vec::new());
                }
                if c == '>' || c == '<' {
                    // The file redirected to is no word of the command.
                    while chars.peek() == Some(&' ') {
                        chars.next();
                    }
                    while chars.peek().is_some_and(|d| !d.is_whitespace()) {
                        chars.next();
                    }
                }
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    end_word(&mut word, &mut commands);
    commands.retain(|c| !c.is_empty());
    commands
}

/// Every `fam` command line in the page's code blocks (not the prose,
/// whose `…` and `K/N` are not meant to run) is one fam's command line
/// accepts: its subcommand, flags and values (`--shard env/8`, `--threads`)
/// as fam parses them. A `fam` word counts where a subcommand or a flag
/// follows it, wherever the command starts (after `podman run IMAGE`, in a
/// YAML list, inside `sh -c '…'`).
#[test]
fn every_fam_command_line_in_the_cluster_page_is_one_fam_accepts() {
    use clap::{CommandFactory as _, Parser as _};
    let doc = std::fs::read_to_string(repo().join("docs/cluster.md")).unwrap();
    let subcommands: Vec<String> = fam::cli::Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_owned())
        .collect();
    let mut parsed = Vec::new();
    let mut refused = Vec::new();
    for block in fenced_blocks(&doc) {
        for words in simple_commands(&block) {
            for (i, _) in words.iter().enumerate().filter(|(_, w)| *w == "fam") {
                let Some(next) = words.get(i + 1) else { continue };
                if !subcommands.contains(next) && !next.starts_with('-') {
                    continue;
                }
                let line = &words[i..];
                match fam::cli::Cli::try_parse_from(line) {
                    Ok(_) => parsed.push(line.join(" ")),
                    Err(e) => refused.push(format!("{}\n{e}", line.join(" "))),
                }
            }
        }
    }
    assert!(refused.is_empty(), "{}", refused.join("\n\n"));
    // The recipes' batches and merges, and the image's batch.
    assert!(parsed.len() >= 8, "{parsed:#?}");
    for wanted in ["fam batch", "fam merge", "--checkpoint", "--shard env/8"] {
        assert!(
            parsed.iter().any(|l| l.contains(wanted)),
            "no `{wanted}` in {parsed:#?}"
        );
    }
    // The parser splits as a shell does.
    assert_eq!(
        simple_commands("a \"$X/1\" 'fam b {}/8 > f' && c # d\n- e \\\n  f > g\n"),
        [
            vec!["a", "1/1"],
            vec!["fam", "b", "1/8"],
            vec!["c"],
            vec!["-", "e", "f"]
        ]
    );
}

/// The `Containerfile` the page describes: its build uses the Rust of
/// `Cargo.toml`'s `rust-version` (the README's too) and `--locked`, on the
/// Debian its runtime image runs, which holds fam on its PATH and the
/// shipped files where the page says; its build context leaves out
/// `target/` but nothing the build reads.
#[test]
fn the_containerfile_builds_fam_with_the_rust_and_the_crates_the_project_names() {
    let manifest: toml::Table = std::fs::read_to_string(repo().join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let rust = manifest["package"]["rust-version"].as_str().unwrap().to_owned();
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("fam needs Rust {rust} or newer")),
        "README and Cargo.toml differ"
    );
    let file = std::fs::read_to_string(repo().join("Containerfile")).unwrap();
    let instructions: Vec<&str> = file
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let from: Vec<&str> = instructions.iter().filter_map(|l| l.strip_prefix("FROM ")).collect();
    assert_eq!(from.len(), 2, "a build stage and a runtime stage: {from:?}");
    let build_image = from[0].split_whitespace().next().unwrap();
    let tag = build_image
        .strip_prefix("docker.io/library/rust:")
        .unwrap_or_else(|| panic!("the build stage is not the Rust image: {build_image}"));
    let (version, variant) = tag.split_once('-').unwrap_or((tag, ""));
    assert_eq!(version, rust, "the Rust image is not Cargo.toml's rust-version");
    let debian = variant.rsplit('-').next().unwrap();
    assert!(
        from[1].starts_with(&format!("docker.io/library/debian:{debian}")),
        "the runtime is not the build's Debian ({debian}): {}",
        from[1]
    );
    let build = instructions
        .iter()
        .find(|l| l.starts_with("RUN ") && l.contains("cargo build"))
        .expect("a cargo build");
    assert!(build.contains("--release") && build.contains("--locked"), "{build}");
    let runtime = &instructions[instructions.iter().rposition(|l| l.starts_with("FROM ")).unwrap()..];
    assert!(
        runtime.contains(&"COPY --from=build /src/target/release/fam /usr/local/bin/fam"),
        "{runtime:?}"
    );
    let doc = std::fs::read_to_string(repo().join("docs/cluster.md")).unwrap();
    let workdir = runtime
        .iter()
        .find_map(|l| l.strip_prefix("WORKDIR "))
        .expect("a working directory");
    for dir in ["scenarios", "ssd"] {
        assert!(
            runtime.contains(&format!("COPY {dir}/ {workdir}/{dir}/").as_str()),
            "{dir}: {runtime:?}"
        );
    }
    assert!(
        doc.contains(&format!("`{workdir}`")),
        "docs/cluster.md does not name {workdir}"
    );
    let ignore = std::fs::read_to_string(repo().join(".dockerignore")).unwrap();
    let ignored: Vec<&str> = ignore
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.trim_matches('/'))
        .collect();
    assert!(ignored.contains(&"target"), "{ignored:?}");
    for needed in [
        "src",
        "assets",
        "ssd",
        "scenarios",
        "benches",
        "Cargo.toml",
        "Cargo.lock",
    ] {
        assert!(!ignored.contains(&needed), "the build needs {needed}");
    }
}

#[test]
fn shard_env_picks_the_same_runs_as_the_explicit_shard() {
    let args = |shard: &str| -> Vec<String> {
        [
            "batch",
            "scenarios/duel.toml",
            "--runs",
            "90",
            "--seed",
            "7",
            "--shard",
            shard,
            "--json",
        ]
        .map(String::from)
        .to_vec()
    };
    let run = |shard: &str, vars: &[(&str, &str)]| -> String {
        let a = args(shard);
        let out = fam_env(&a.iter().map(String::as_str).collect::<Vec<_>>(), vars);
        assert!(out.status.success(), "{shard} {vars:?}: {}", text(&out.stderr));
        text(&out.stdout)
    };
    for k in 1..=3u64 {
        let explicit = run(&format!("{k}/3"), &[]);
        let slurm = k.to_string();
        let index = (k - 1).to_string();
        assert_eq!(run("env/3", &[("SLURM_ARRAY_TASK_ID", &slurm)]), explicit, "shard {k}");
        assert_eq!(run("env/3", &[("JOB_COMPLETION_INDEX", &index)]), explicit, "shard {k}");
        let both = [
            ("SLURM_ARRAY_TASK_ID", slurm.as_str()),
            ("JOB_COMPLETION_INDEX", index.as_str()),
        ];
        assert_eq!(run("env/3", &both), explicit, "shard {k}");
        let j: serde_json::Value = serde_json::from_str(&explicit).unwrap();
        assert_eq!(j["shard"]["index"], k);
        assert_eq!(j["shard"]["batch_runs"], 90);
    }
}

#[test]
fn shard_env_refuses_a_shard_it_cannot_name_naming_the_variable() {
    let cases: [(&[(&str, &str)], &str); 8] = [
        (&[], "neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set"),
        (&[("SLURM_ARRAY_TASK_ID", "0")], "SLURM_ARRAY_TASK_ID=0"),
        (
            &[("SLURM_ARRAY_TASK_ID", "5")],
            "SLURM_ARRAY_TASK_ID=5 is not a shard of 4",
        ),
        (
            &[("SLURM_ARRAY_TASK_ID", "two")],
            "SLURM_ARRAY_TASK_ID=`two` is not a whole number",
        ),
        (
            &[("SLURM_ARRAY_TASK_ID", "2"), ("SLURM_ARRAY_TASK_COUNT", "8")],
            "SLURM_ARRAY_TASK_COUNT=8",
        ),
        (
            &[("SLURM_ARRAY_TASK_ID", "1"), ("SLURM_ARRAY_TASK_MIN", "0")],
            "SLURM_ARRAY_TASK_MIN=0",
        ),
        (
            &[("JOB_COMPLETION_INDEX", "4")],
            "JOB_COMPLETION_INDEX=4 is not a shard of 4",
        ),
        (
            &[("SLURM_ARRAY_TASK_ID", "2"), ("JOB_COMPLETION_INDEX", "2")],
            "SLURM_ARRAY_TASK_ID=2 and JOB_COMPLETION_INDEX=2 name different shards",
        ),
    ];
    for (vars, want) in cases {
        let out = fam_env(
            &[
                "batch",
                "scenarios/duel.toml",
                "--runs",
                "8",
                "--shard",
                "env/4",
                "--json",
            ],
            vars,
        );
        assert_eq!(out.status.code(), Some(2), "{vars:?}");
        let err = text(&out.stderr);
        assert!(err.contains("--shard env/4") && err.contains(want), "{vars:?}: {err}");
        assert!(out.stdout.is_empty(), "{vars:?}");
    }
    // The array ids that are refused say how to submit.
    let out = fam_env(
        &["batch", "scenarios/duel.toml", "--runs", "8", "--shard", "env/4"],
        &[("SLURM_ARRAY_TASK_ID", "3"), ("SLURM_ARRAY_TASK_MAX", "7")],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--array=1-4"), "{}", text(&out.stderr));
}

/// Three shards of one batch written to `dir`, named `part-K.json`.
fn three_shards(dir: &Path) -> Vec<String> {
    (1..=3)
        .map(|k| {
            let out = fam(&[
                "batch",
                "scenarios/duel.toml",
                "--runs",
                "60",
                "--seed",
                "3",
                "--shard",
                &format!("{k}/3"),
                "--json",
            ]);
            assert!(out.status.success(), "{}", text(&out.stderr));
            let path = dir.join(format!("part-{k}.json"));
            std::fs::write(&path, &out.stdout).unwrap();
            path.display().to_string()
        })
        .collect()
}

fn refused(args: &[&str]) -> String {
    let out = fam(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    text(&out.stderr)
}

#[test]
fn merge_refuses_missing_and_repeated_shards_naming_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let p = three_shards(dir.path());
    // Two of three shards tile runs 0..40 without a gap: still refused.
    let err = refused(&["merge", &p[0], &p[1]]);
    assert!(err.contains("shard of 3 missing: 3"), "{err}");
    assert!(err.contains(&p[0]) && err.contains(&p[1]), "{err}");
    let err = refused(&["merge", &p[1], &p[2]]);
    assert!(err.contains("missing: 1"), "{err}");
    let err = refused(&["merge", &p[1]]);
    assert!(err.contains("shards of 3 missing: 1, 3"), "{err}");
    // A shard twice, under another name too.
    let copy = dir.path().join("copy-of-2.json").display().to_string();
    std::fs::copy(&p[1], &copy).unwrap();
    let err = refused(&["merge", &p[0], &p[1], &p[2], &copy]);
    assert!(err.contains("shard 2/3 is given twice") && err.contains(&copy), "{err}");
    // The three merge, in any order.
    let out = fam(&["merge", &p[2], &p[0], &p[1], "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn merge_refuses_shards_of_different_batches_naming_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let p = three_shards(dir.path());
    let other = |args: &[&str], name: &str| -> String {
        let mut all = vec!["batch", "scenarios/duel.toml", "--seed", "3", "--json"];
        all.extend(args);
        let out = fam(&all);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let path = dir.path().join(name);
        std::fs::write(&path, &out.stdout).unwrap();
        path.display().to_string()
    };
    // Cut into another number of shards.
    let halves = other(&["--runs", "60", "--shard", "2/2"], "half.json");
    let err = refused(&["merge", &p[0], &halves]);
    assert!(err.contains("shard 2/2") && err.contains(&halves), "{err}");
    // Cut from another number of runs.
    let bigger = other(&["--runs", "90", "--shard", "3/3"], "of-90.json");
    let err = refused(&["merge", &p[0], &p[1], &bigger]);
    assert!(
        err.contains("of 60 runs") && err.contains("of 90 runs") && err.contains(&bigger),
        "{err}"
    );
    // A whole batch among shards.
    let whole = other(&["--runs", "60"], "whole.json");
    let err = refused(&["merge", &whole, &p[0], &p[1], &p[2]]);
    assert!(err.contains(&whole) && err.contains("is not a shard"), "{err}");
    // A whole batch alone merges into itself.
    let out = fam(&["merge", &whole, "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(&whole).unwrap(), out.stdout);
}

#[test]
fn shards_written_before_fam_recorded_the_batch_runs_still_merge() {
    let dir = tempfile::tempdir().unwrap();
    let p = three_shards(dir.path());
    let mut old = Vec::new();
    for (k, path) in p.iter().enumerate() {
        let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        v["shard"].as_object_mut().unwrap().remove("batch_runs");
        // Nor did fam write digests then.
        v.as_object_mut().unwrap().remove("digest");
        let to = dir.path().join(format!("old-{}.json", k + 1));
        std::fs::write(&to, v.to_string()).unwrap();
        old.push(to.display().to_string());
    }
    let new = fam(&["merge", &p[0], &p[1], &p[2], "--json"]);
    let out = fam(&["merge", &old[0], &old[1], &old[2], "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(out.stdout, new.stdout);
    // Each is named as one whose changes fam cannot see.
    let warned = text(&out.stderr);
    for o in &old {
        assert!(warned.contains(&format!("warning: {o}: it has no digest")), "{warned}");
    }
    // The set is still checked by its shard numbers.
    let err = refused(&["merge", &old[0], &old[1]]);
    assert!(err.contains("missing: 3"), "{err}");
}

#[test]
fn a_shard_whose_batch_runs_disagree_with_its_run_range_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = three_shards(dir.path());
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&p[1]).unwrap()).unwrap();
    v["shard"]["batch_runs"] = 99.into();
    let edited = dir.path().join("edited.json");
    std::fs::write(&edited, resealed(&v.to_string()).unwrap()).unwrap();
    let err = refused(&["merge", &p[0], edited.to_str().unwrap(), &p[2]]);
    assert!(
        err.contains("edited.json") && err.contains("shard 2/3 of 99 runs"),
        "{err}"
    );
}

/// A shard written before a kind of damage existed (its `damage_by_kind`
/// one entry shorter) scored none of that kind: it merges with new shards
/// into exactly the whole batch. An entry more than fam knows is refused.
#[test]
fn a_shard_from_before_a_damage_kind_existed_merges_into_the_whole_batch() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    let json = |args: &[&str]| {
        let out = fam(args);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let whole = json(&["batch", "scenarios/duel.toml", "--runs", "60", "--json"]);
    let mut first = json(&[
        "batch",
        "scenarios/duel.toml",
        "--runs",
        "60",
        "--shard",
        "1/2",
        "--json",
    ]);
    let second = json(&[
        "batch",
        "scenarios/duel.toml",
        "--runs",
        "60",
        "--shard",
        "2/2",
        "--json",
    ]);
    let edit = |shard: &mut serde_json::Value, f: &dyn Fn(&mut Vec<serde_json::Value>)| {
        for side in shard["tallies"]["sides"].as_array_mut().unwrap() {
            f(side["damage_by_kind"].as_array_mut().unwrap());
        }
    };
    // Nor did fam write digests then.
    first.as_object_mut().unwrap().remove("digest");
    let mut newer = first.clone();
    edit(&mut first, &|kinds| {
        assert_eq!(
            kinds.pop(),
            Some(serde_json::json!(0)),
            "the duel fires no kinetic guns"
        );
    });
    edit(&mut newer, &|kinds| kinds.push(serde_json::json!(0)));
    std::fs::write(at("old-1.json"), first.to_string()).unwrap();
    std::fs::write(at("new-1.json"), newer.to_string()).unwrap();
    std::fs::write(at("2.json"), second.to_string()).unwrap();
    let merged = json(&["merge", &at("old-1.json"), &at("2.json"), "--json"]);
    assert_eq!(merged, whole);
    let out = fam(&["merge", &at("new-1.json"), &at("2.json")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("more than the"), "{}", text(&out.stderr));
}
