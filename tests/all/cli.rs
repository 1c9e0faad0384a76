//! The `fam` binary: exit codes, messages, atomic output.

use crate::support::{fam, files_with, fixtures, repo, text};

#[test]
fn check_accepts_the_ship_library_strictly() {
    let mut args = vec!["check".to_string(), "--strict".to_string()];
    for p in files_with(&repo().join("ssd"), "gzf") {
        args.push(p.display().to_string());
    }
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = fam(&refs);
    assert!(out.status.success(), "{}\n{}", text(&out.stdout), text(&out.stderr));
    assert!(text(&out.stdout).lines().all(|l| l.contains(": ok (")));
}

#[test]
fn every_malformed_file_exits_2_with_a_positioned_message_and_no_panic() {
    for path in files_with(&fixtures("err"), "gzf") {
        let p = path.display().to_string();
        let out = fam(&["check", &p]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{p}: {stderr}");
        assert!(!stderr.contains("panicked"), "{p}: {stderr}");
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        assert!(
            stderr.contains(&format!("{name}:")),
            "{p}: no file:line:column in\n{stderr}"
        );
        assert!(stderr.contains('^'), "{p}: no caret in\n{stderr}");
    }
}

#[test]
fn unknown_systems_are_refused_by_name_unless_loaded_as_inert() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("odd.gzf");
    std::fs::write(
        &path,
        "Ship: Odd\nThrust-Rating: 4\nDamage-Track: OO OO OO OO\n\nSystem: Flux Capacitor\n",
    )
    .unwrap();
    let p = path.display().to_string();
    let refused = fam(&["check", &p]);
    let stderr = text(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr.contains("unknown system `Flux Capacitor`"), "{stderr}");
    assert!(stderr.contains("odd.gzf:5:9"), "{stderr}");
    assert!(stderr.contains("--inert-unknown-systems"), "{stderr}");

    let accepted = fam(&["check", "--inert-unknown-systems", &p]);
    assert!(accepted.status.success(), "{}", text(&accepted.stderr));
    let shown = fam(&["ssd", "show", "--inert-unknown-systems", &p]);
    assert!(text(&shown.stdout).contains("Flux Capacitor"));
}

#[test]
fn fmt_writes_canonical_files_atomically_and_leaves_inputs_alone() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixtures("ok").join("fb1-profile-examples.gzf");
    let before = std::fs::read(&input).unwrap();
    let out_dir = dir.path().join("out");
    let o = out_dir.display().to_string();
    let i = input.display().to_string();
    let run = fam(&["ssd", "fmt", "--out", &o, &i]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert_eq!(std::fs::read(&input).unwrap(), before, "input changed");
    let written = out_dir.join("fb1-profile-examples.gzf");
    let first = std::fs::read_to_string(&written).unwrap();
    assert!(first.starts_with("Profile:          FB1\n"));
    // Formatting the formatted file in place changes nothing.
    let w = written.display().to_string();
    assert!(fam(&["ssd", "fmt", "--in-place", &w]).status.success());
    assert_eq!(std::fs::read_to_string(&written).unwrap(), first);
    // Nothing but the output file is left in the directory (no temporaries).
    assert_eq!(std::fs::read_dir(&out_dir).unwrap().count(), 1);
}

#[test]
fn fmt_writes_nothing_when_any_input_is_bad() {
    let dir = tempfile::tempdir().unwrap();
    let good = fixtures("ok").join("fb1-profile-examples.gzf").display().to_string();
    let bad = files_with(&fixtures("err"), "gzf")[0].display().to_string();
    let out_dir = dir.path().join("out");
    let o = out_dir.display().to_string();
    let run = fam(&["ssd", "fmt", "--out", &o, &good, &bad]);
    assert_eq!(run.status.code(), Some(2));
    assert!(!out_dir.exists() || std::fs::read_dir(&out_dir).unwrap().count() == 0);
}

#[test]
fn show_prints_a_record_sheet_and_names_a_missing_ship() {
    let input = fixtures("ok").join("fb1-profile-examples.gzf").display().to_string();
    let out = fam(&["ssd", "show", &input, "--ship", "HMS Thor"]);
    assert!(out.status.success());
    let sheet = text(&out.stdout);
    assert!(sheet.starts_with("HMS Thor\n"), "{sheet}");
    assert!(sheet.contains("Hull        2 of 2 boxes left"), "{sheet}");
    assert!(sheet.contains("crew factors 1"), "{sheet}");
    assert!(sheet.contains("Armour      O   (1 of 1 left)"), "{sheet}");

    let missing = fam(&["ssd", "show", &input, "--ship", "Nobody"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("no ship named `Nobody`"));
}

#[test]
fn usage_errors_exit_2_and_every_subcommand_has_help() {
    assert_eq!(fam(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(fam(&["check"]).status.code(), Some(2));
    for sub in [
        &["check", "--help"][..],
        &["ssd", "show", "--help"],
        &["ssd", "fmt", "--help"],
    ] {
        let out = fam(sub);
        assert!(out.status.success());
        assert!(text(&out.stdout).contains("Usage"));
    }
}

#[test]
fn missing_input_file_is_bad_input() {
    let out = fam(&["check", "no/such/file.gzf"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot read `no/such/file.gzf`: no such file or directory"));
}

#[cfg(unix)]
#[test]
fn written_files_are_readable_by_others_like_any_new_file() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let input = fixtures("ok").join("fb1-profile-examples.gzf").display().to_string();
    let o = dir.path().display().to_string();
    assert!(fam(&["ssd", "fmt", "--out", &o, &input]).status.success());
    let mode = std::fs::metadata(dir.path().join("fb1-profile-examples.gzf"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o644);
}

/// Every command of the clap definition, as `man` names its page.
const PAGES: [&str; 15] = [
    "fam",
    "fam-check",
    "fam-ssd",
    "fam-ssd-show",
    "fam-ssd-fmt",
    "fam-resolve",
    "fam-batch",
    "fam-compare",
    "fam-tune",
    "fam-merge",
    "fam-import",
    "fam-import-ftjava",
    "fam-export",
    "fam-export-ftjava",
    "fam-completions",
];

#[test]
fn bash_completion_is_valid_bash_and_completes_commands_and_flags() {
    let out = fam(&["completions", "bash"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("fam.bash");
    std::fs::write(&script, &out.stdout).unwrap();
    // Load it and ask bash to complete `fam res` and `fam resolve --exch`.
    let probe = format!(
        "source {}; COMP_WORDS=(fam res); COMP_CWORD=1; _fam fam res fam; echo \"${{COMPREPLY[@]}}\"; \
         COMP_WORDS=(fam resolve --exch); COMP_CWORD=2; _fam fam --exch resolve; echo \"${{COMPREPLY[@]}}\"",
        script.display()
    );
    let run = std::process::Command::new("bash")
        .arg("-c")
        .arg(probe)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", text(&run.stderr));
    let lines: Vec<String> = text(&run.stdout).lines().map(str::to_owned).collect();
    assert_eq!(lines, ["resolve", "--exchanges"], "{}", text(&run.stderr));
}

#[test]
fn every_shell_gets_a_completion_script_naming_every_command() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = fam(&["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", text(&out.stderr));
        let script = text(&out.stdout);
        for command in [
            "check",
            "resolve",
            "batch",
            "compare",
            "tune",
            "merge",
            "ftjava",
            "completions",
            "man",
        ] {
            assert!(script.contains(command), "{shell}: `{command}` missing");
        }
    }
    let out = fam(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("possible values"), "{}", text(&out.stderr));
}

#[test]
fn man_writes_a_page_per_command_with_its_flags() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("man1");
    let out = fam(&["man", "--out", out_dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for page in PAGES.iter().chain(&["fam-man"]) {
        let roff =
            std::fs::read_to_string(out_dir.join(format!("{page}.1"))).unwrap_or_else(|e| panic!("{page}.1: {e}"));
        assert!(roff.contains(&format!(".TH {page} 1")), "{page}: no title line");
    }
    let resolve = std::fs::read_to_string(out_dir.join("fam-resolve.1")).unwrap();
    assert!(
        resolve.contains("exchanges") && resolve.contains("fam resolve"),
        "{resolve}"
    );
    // Alone, `fam man` prints the main page, which lists the commands.
    let main = fam(&["man"]);
    let roff = text(&main.stdout);
    assert!(roff.starts_with(".ie") || roff.contains(".TH fam 1"), "{roff}");
    for page in &PAGES[1..] {
        if !page["fam-".len()..].contains('-') {
            assert!(roff.contains(&page.replace('-', "\\-")), "{page} not listed");
        }
    }
}
