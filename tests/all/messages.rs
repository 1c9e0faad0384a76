//! Messages a user reads: "did you mean" for misspelt names, one error for
//! a missing file, I/O errors naming the user's path, colour only where it
//! is wanted, and `fam check --json` (issue 15, "Messages").

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::support::{fam, repo, text};

/// `scenarios/duel.toml` with `from` replaced by `to`, written beside the
/// shipped scenarios' records (as `../ssd/…` paths need) in a fresh copy.
struct Edited {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Edited {
    fn duel(from: &str, to: &str) -> Edited {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        fs::create_dir_all(root.join("scenarios")).unwrap();
        fs::create_dir_all(root.join("ssd")).unwrap();
        for f in ["meridian-compact.gzf", "kestrel-reach.gzf"] {
            fs::copy(repo().join("ssd").join(f), root.join("ssd").join(f)).unwrap();
        }
        let text = fs::read_to_string(repo().join("scenarios/duel.toml")).unwrap();
        assert!(text.contains(from), "{from}");
        fs::write(root.join("scenarios/duel.toml"), text.replacen(from, to, 1)).unwrap();
        Edited { _dir: dir, root }
    }

    fn path(&self, p: &str) -> String {
        self.root.join(p).display().to_string()
    }
}

/// Runs fam and returns its exit code and standard error.
fn failing(args: &[&str]) -> (Option<i32>, String) {
    let out = fam(args);
    (out.status.code(), text(&out.stderr))
}

fn errors_in(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.starts_with("error")).collect()
}

#[test]
fn a_misspelt_ship_is_suggested_instead_of_listing_every_ship() {
    let e = Edited::duel("\"KRD Long Watch\"]", "\"KRD Long Wach\"]");
    let (code, err) = failing(&["resolve", &e.path("scenarios/duel.toml")]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no ship named `KRD Long Wach`"), "{err}");
    assert!(err.contains("help: did you mean `KRD Long Watch`?"), "{err}");
    assert!(!err.contains("MCS Small Hours"), "no list of every ship loaded: {err}");
}

#[test]
fn misspelt_formations_commanders_and_keys_are_suggested() {
    // A Formation in [sides], a side in [victory], a key of a Volley and a
    // top-level key, each misspelt once.
    let e = Edited::duel("Marek = [\"Watch\"]", "Marek = [\"Wacth\"]");
    let (_, err) = failing(&["check", &e.path("scenarios/duel.toml")]);
    assert!(err.contains("unknown Formation `Wacth`"), "{err}");
    assert!(err.contains("did you mean `Watch`?"), "{err}");

    let e = Edited::duel(
        "seed = 1\n",
        "seed = 1\n[victory]\nunit_destroyed = [{ unit = \"KRD Long Watch\", winner = \"Ilsa\" }]\n",
    );
    let (_, err) = failing(&["check", &e.path("scenarios/duel.toml")]);
    assert!(err.contains("unknown side `Ilsa`"), "{err}");
    assert!(err.contains("did you mean `Ilse`?"), "{err}");

    let e = Edited::duel(
        "speed = 4\nevasion = 2\nprimary = { close",
        "sped = 4\nevasion = 2\nprimary = { close",
    );
    let (_, err) = failing(&["check", &e.path("scenarios/duel.toml")]);
    assert!(err.contains("unknown key `sped`"), "{err}");
    assert!(err.contains("did you mean `speed`?"), "{err}");

    let e = Edited::duel("seed = 1", "sede = 1");
    let (_, err) = failing(&["check", &e.path("scenarios/duel.toml")]);
    assert!(err.contains("unknown key `sede` in a scenario file"), "{err}");
    assert!(err.contains("did you mean `seed`?"), "{err}");

    // An unrelated name gets no guess.
    let e = Edited::duel("Marek = [\"Watch\"]", "Marek = [\"Bismarck\"]");
    let (_, err) = failing(&["check", &e.path("scenarios/duel.toml")]);
    assert!(err.contains("unknown Formation `Bismarck`"), "{err}");
    assert!(!err.contains("did you mean"), "{err}");
}

#[test]
fn an_orders_file_naming_a_misspelt_commander_gets_the_right_one() {
    let dir = tempfile::tempdir().unwrap();
    let orders = dir.path().join("marek.toml");
    fs::write(&orders, "commander = \"Marke\"\n").unwrap();
    let (code, err) = failing(&[
        "resolve",
        "scenarios/duel.toml",
        "--orders",
        &orders.display().to_string(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no commander named `Marke`"), "{err}");
    assert!(err.contains("did you mean `Marek`?"), "{err}");
}

#[test]
fn a_misspelt_system_is_suggested_not_loaded_as_inert() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("odd.gzf");
    fs::write(
        &path,
        "Ship: Odd\nThrust-Rating: 4\nDamage-Track: OO OO OO OO\n\nSystem: Screen Generater\n",
    )
    .unwrap();
    let (code, err) = failing(&["check", &path.display().to_string()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("unknown system `Screen Generater`"), "{err}");
    assert!(err.contains("did you mean `Screen Generator`?"), "{err}");
    assert!(!err.contains("--inert-unknown-systems"), "{err}");
}

#[test]
fn a_missing_record_file_is_one_error_naming_it() {
    let e = Edited::duel("kestrel-reach.gzf", "kestrel-rech.gzf");
    let (code, err) = failing(&["resolve", &e.path("scenarios/duel.toml")]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(
        errors_in(&err).len(),
        1,
        "one error, not one per name in the file: {err}"
    );
    assert!(
        err.contains("error: cannot read `../ssd/kestrel-rech.gzf`: no such file or directory"),
        "{err}"
    );
    assert!(err.contains("did you mean `../ssd/kestrel-reach.gzf`?"), "{err}");
    assert!(
        err.contains("duel.toml:5:"),
        "placed where the scenario names it: {err}"
    );
    assert!(
        !err.contains("MCS Clear Heading"),
        "the ships that loaded are no error: {err}"
    );
    assert!(!err.contains("os error"), "{err}");
}

#[test]
fn a_record_with_errors_is_reported_alone_too() {
    // The same holds for a record that reads but has an error.
    let e = Edited::duel("kestrel-reach.gzf", "kestrel-bad.gzf");
    let good = fs::read_to_string(e.root.join("ssd/kestrel-reach.gzf")).unwrap();
    fs::write(
        e.root.join("ssd/kestrel-bad.gzf"),
        good.replacen("Thrust-Rating:", "Thrust-Rating: x\nX:", 1),
    )
    .unwrap();
    let (code, err) = failing(&["resolve", &e.path("scenarios/duel.toml")]);
    assert_eq!(code, Some(2), "{err}");
    assert!(errors_in(&err).iter().all(|l| !l.contains("Formation")), "{err}");
    assert!(err.contains("kestrel-bad.gzf:"), "{err}");
}

#[test]
fn missing_orders_and_scenario_files_are_one_error_each() {
    let (code, err) = failing(&["resolve", "scenarios/duel.toml", "--orders", "no/such/orders.toml"]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(
        errors_in(&err),
        ["error: cannot read `no/such/orders.toml`: no such file or directory"],
        "{err}"
    );
    assert!(!err.contains(" | "), "no empty line quoted: {err}");

    // An orders file whose scenario is missing: placed at its `scenario = …`.
    let dir = tempfile::tempdir().unwrap();
    let orders = dir.path().join("o.toml");
    fs::write(&orders, "scenario = \"gone.toml\"\n[[plot.Watch.volley]]\nspeed = 3\n").unwrap();
    let (code, err) = failing(&["check", &orders.display().to_string()]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(errors_in(&err).len(), 1, "{err}");
    assert!(err.contains("cannot read the scenario `gone.toml`"), "{err}");
    assert!(err.contains("o.toml:1:12"), "{err}");

    // Orders for another scenario: that one error, not the plots' clashes.
    let other = repo()
        .join("tests/fixtures/orders/split-ilse.toml")
        .display()
        .to_string();
    let whole = repo()
        .join("tests/fixtures/orders/split-whole.toml")
        .display()
        .to_string();
    let (code, err) = failing(&["resolve", &whole, "--orders", &other]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(errors_in(&err).len(), 1, "{err}");
    assert!(err.contains("this orders file is for scenario `split.toml`"), "{err}");
}

#[test]
fn io_errors_name_the_users_path_and_no_temporary_file() {
    let e = Edited::duel("seed = 1", "seed = 1");
    let scenario = e.path("scenarios/duel.toml");
    let blocker = e.root.join("blocker");
    fs::write(&blocker, "a file, not a directory").unwrap();
    let b = blocker.display().to_string();
    let cases: [Vec<String>; 4] = [
        vec!["resolve".into(), scenario.clone(), "--out".into(), b.clone()],
        vec![
            "resolve".into(),
            scenario.clone(),
            "--log".into(),
            format!("{b}/log.jsonl"),
        ],
        vec![
            "batch".into(),
            scenario.clone(),
            "--runs".into(),
            "2".into(),
            "--csv".into(),
            b.clone(),
        ],
        vec![
            "batch".into(),
            scenario.clone(),
            "--runs".into(),
            "2".into(),
            "--checkpoint".into(),
            format!("{b}/run.ckpt"),
        ],
    ];
    for args in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, err) = failing(&args);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(err.contains(&format!("cannot write `{b}/")), "{args:?}: {err}");
        assert!(err.contains(&format!("`{b}` is not a directory")), "{args:?}: {err}");
        assert!(!err.contains("fam-tmp") && !err.contains("os error"), "{args:?}: {err}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_standard_output_is_named_as_such() {
    let full = fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_fam"))
        .args(["ssd", "show", "ssd/kestrel-reach.gzf"])
        .current_dir(repo())
        .stdout(Stdio::from(full))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "fam: cannot write to standard output: no space left on device\n"
    );
}

fn check_with_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_fam"));
    c.args(args).current_dir(repo()).env_remove("NO_COLOR");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

#[test]
fn colour_is_used_when_asked_and_never_into_a_pipe_or_under_no_color() {
    let bad = "tests/fixtures/err/unknown-system.gzf";
    let always = check_with_env(&["check", "--color", "always", bad], &[]);
    assert!(text(&always.stderr).contains("\x1b["), "{}", text(&always.stderr));
    // Standard output (the summary) is never coloured.
    assert!(!text(&always.stdout).contains('\x1b'));
    for (args, env) in [
        (vec!["check", bad], vec![]),
        (vec!["check", "--color", "auto", bad], vec![("NO_COLOR", "1")]),
        (vec!["--color", "never", "check", bad], vec![]),
    ] {
        let out = check_with_env(&args, &env);
        let err = text(&out.stderr);
        assert!(err.contains("unknown system"), "{err}");
        assert!(!err.contains('\x1b'), "{args:?} {env:?}: {err}");
    }
}

fn json_of(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)))
}

#[test]
fn check_json_holds_every_problem_with_its_place_and_a_summary_per_file() {
    let bad = "tests/fixtures/err/unknown-system.gzf";
    let out = fam(&["check", "--json", bad, "ssd/kestrel-reach.gzf", "no/such.gzf"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    let doc = json_of(&out);
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["errors"], 2);
    let files = doc["files"].as_array().unwrap();
    assert_eq!(files.len(), 3);

    // The unknown system at 7:18–7:32 (tests/fixtures/err/unknown-system.err).
    assert_eq!(files[0]["file"], bad);
    assert_eq!(files[0]["ok"], false);
    assert_eq!(files[0]["errors"], 1);
    // Its design warnings come with it, in file order.
    let diagnostics = files[0]["diagnostics"].as_array().unwrap();
    assert_eq!(files[0]["warnings"].as_u64(), Some(diagnostics.len() as u64 - 1));
    let d = diagnostics.iter().find(|d| d["severity"] == "error").unwrap();
    assert_eq!(d["file"], bad);
    assert_eq!(d["severity"], "error");
    assert_eq!(d["message"], "unknown system `Flux Capacitor`");
    assert_eq!(
        (d["start"]["line"].as_u64(), d["start"]["column"].as_u64()),
        (Some(7), Some(18))
    );
    assert_eq!(
        (d["end"]["line"].as_u64(), d["end"]["column"].as_u64()),
        (Some(7), Some(32))
    );
    assert_eq!(d["labels"][0]["message"], "a system type of the FB1 profile");
    assert!(d["help"][0].as_str().unwrap().contains("--inert-unknown-systems"));

    assert_eq!(files[1]["ok"], true);
    assert_eq!(files[1]["diagnostics"].as_array().map(Vec::len), Some(0));
    assert!(
        files[1]["summary"]
            .as_str()
            .unwrap()
            .starts_with("ssd/kestrel-reach.gzf: ok")
    );

    // A file that cannot be read has no place in it.
    let d = &files[2]["diagnostics"][0];
    assert_eq!(d["message"], "cannot read `no/such.gzf`: no such file or directory");
    assert!(d["start"].is_null() && d["end"].is_null());
    assert_eq!(d["labels"].as_array().map(Vec::len), Some(0));
}

#[test]
fn check_json_of_a_scenario_names_the_record_a_problem_is_in_and_exits_0_when_clean() {
    let out = fam(&["check", "--json", "scenarios/duel.toml"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc = json_of(&out);
    assert_eq!((doc["ok"].as_bool(), doc["errors"].as_u64()), (Some(true), Some(0)));

    let e = Edited::duel("seed = 1", "seed = 1");
    let record = e.root.join("ssd/kestrel-reach.gzf");
    let good = fs::read_to_string(&record).unwrap();
    fs::write(
        &record,
        good.replacen("System:           FCS", "System:           FSC", 1),
    )
    .unwrap();
    let out = fam(&["check", "--json", &e.path("scenarios/duel.toml")]);
    assert_eq!(out.status.code(), Some(2));
    let doc = json_of(&out);
    let d = &doc["files"][0]["diagnostics"][0];
    assert!(
        Path::new(d["file"].as_str().unwrap()).ends_with("ssd/kestrel-reach.gzf"),
        "{d}"
    );
    assert_eq!(d["message"], "unknown system `FSC`");
    assert_eq!(d["help"][0], "did you mean `FCS`?");
}

#[test]
fn names_given_on_the_command_line_are_suggested_too() {
    let (code, stderr) = failing(&["ssd", "show", "ssd/kestrel-reach.gzf", "--ship", "KRD Long Wach"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("no ship named `KRD Long Wach`; did you mean `KRD Long Watch`?"),
        "{stderr}"
    );
    let (code, stderr) = failing(&["export", "ftjava", "ssd/kestrel-reach.gzf", "--ship", "KRD Ridge Wardn"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("did you mean `KRD Ridge Warden`?"), "{stderr}");
    let (code, stderr) = failing(&["tune", "scenarios/duel.toml", "--side", "Marak", "--runs", "10"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("no side `Marak`; did you mean `Marek`?"), "{stderr}");
    // Nothing close: the two sides are listed.
    let (_, stderr) = failing(&["tune", "scenarios/duel.toml", "--side", "Halloran", "--runs", "10"]);
    assert!(stderr.contains("the sides: `Ilse`, `Marek`"), "{stderr}");
}

#[test]
fn unreadable_inputs_of_import_and_merge_are_named_without_error_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("absent.xml");
    let missing = missing.to_str().unwrap();
    let out = dir.path().join("out");
    let (code, err) = failing(&["import", "ftjava", missing, "--out", out.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(missing) && err.contains("no such file"), "{err}");
    assert!(!err.contains("os error"), "{err}");
    let missing = dir.path().join("absent.json");
    let (code, err) = failing(&["merge", missing.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("absent.json") && !err.contains("os error"), "{err}");
}
