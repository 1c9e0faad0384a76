//! Absurd and hostile input: every number range-checked with its position,
//! files read within bounds, messages that say what the command would do.

use std::fs;

use crate::support::{fam, repo, text};

/// The duel scenario with `edit` applied, in a fresh directory beside copies
/// of its two records.
fn duel_with(edit: impl Fn(&str) -> String) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("scenarios")).unwrap();
    fs::create_dir_all(dir.path().join("ssd")).unwrap();
    for f in ["meridian-compact.gzf", "kestrel-reach.gzf"] {
        fs::copy(repo().join("ssd").join(f), dir.path().join("ssd").join(f)).unwrap();
    }
    let text = edit(&fs::read_to_string(repo().join("scenarios/duel.toml")).unwrap());
    let path = dir.path().join("scenarios/duel.toml");
    fs::write(&path, text).unwrap();
    (dir, path.display().to_string())
}

/// Runs `fam check` and expects one positioned error at `line:col` saying
/// `says`; exit 2.
fn refused_at(path: &str, line_col: &str, says: &str) {
    let run = fam(&["check", path]);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("duel.toml:{line_col}")), "{err}");
    assert!(err.contains(says), "{err}");
}

/// A run seed uses all 64 bits and `--seed` takes any of them, but a TOML
/// integer holds at most 2^63 − 1: `fam resolve --out` writes a larger seed
/// as its digits in quotes, and the next turn reads it back and plays on
/// with it (the same Exchange seeds as the command line would give).
#[test]
fn every_seed_the_command_line_takes_goes_through_the_turn_files() {
    let dir = tempfile::tempdir().unwrap();
    let turn = dir.path().join("turn2");
    let t = turn.display().to_string();
    let max = u64::MAX.to_string();
    let run = fam(&["resolve", "scenarios/duel.toml", "--seed", &max, "--out", &t]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let next = fs::read_to_string(turn.join("scenario.toml")).unwrap();
    assert!(next.contains(&format!("seed = \"{max}\"")), "{next}");
    let (ilse, marek) = (turn.join("orders-Ilse.toml"), turn.join("orders-Marek.toml"));
    let s = turn.join("scenario.toml").display().to_string();
    let resumed = fam(&[
        "resolve",
        &s,
        "--orders",
        &ilse.display().to_string(),
        "--orders",
        &marek.display().to_string(),
    ]);
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    // The same battle on from the command line: the same report.
    let again = fam(&[
        "resolve",
        &s,
        "--seed",
        &max,
        "--orders",
        &ilse.display().to_string(),
        "--orders",
        &marek.display().to_string(),
    ]);
    assert_eq!(text(&again.stdout), text(&resumed.stdout));
    // Digits in quotes are the digits of a u64 and nothing else.
    for bad in ["\"abc\"", "\"-3\"", "\"18446744073709551616\"", "\" 7\""] {
        let (_d, path) = duel_with(|t| t.replace("seed = 1\n", &format!("seed = {bad}\n")));
        refused_at(&path, "6:8", "digits of a whole number");
    }
    let (_d, path) = duel_with(|t| t.replace("seed = 1\n", "seed = true\n"));
    refused_at(&path, "6:8", "a whole number 0 or more, or its digits in quotes");
}

/// A range past u32 was reported as negative; now every range beyond the
/// longest fam plays says so, at the number.
#[test]
fn an_absurd_range_is_refused_for_what_it_is() {
    for (key, value) in [("start_range", "4294967296"), ("start_range", "100001")] {
        let (_d, path) = duel_with(|t| t.replace("seed = 1\n", &format!("seed = 1\n{key} = {value}\n")));
        refused_at(
            &path,
            "7:15",
            &format!("a range of {value} MU is beyond the longest fam plays"),
        );
    }
    let (_d, path) = duel_with(|t| t.replace("seed = 1\n", "seed = 1\nstart_range = -1\n"));
    refused_at(&path, "7:15", "a range cannot be negative");
    let (_d, path) = duel_with(|t| t.replace("seed = 1\n", "seed = 1\nstart_range = 100000\n"));
    let run = fam(&["check", &path]);
    assert!(
        run.status.success(),
        "the longest range itself is played: {}",
        text(&run.stderr)
    );
}

/// Speed and Evasion that add up past u32 used to wrap in the message (and
/// panic with overflow checks on); the sum is now said as it is.
#[test]
fn speed_and_evasion_are_summed_without_wrapping() {
    let (_d, path) = duel_with(|t| t.replacen("speed = 4\n", "speed = 4294967294\n", 1));
    refused_at(&path, "23:9", "Speed 4294967294 + Evasion 2 = 4294967296");
}

/// An orders file given where a scenario is wanted is one error saying
/// what it is and how to give it, not one per missing scenario key.
#[test]
fn an_orders_file_given_as_the_scenario_is_named_for_what_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let orders = dir.path().join("orders.toml");
    fs::write(
        &orders,
        "commander = \"Ilse\"\n\n[doctrine.Heading]\nevasion = \"max\"\n",
    )
    .unwrap();
    let o = orders.display().to_string();
    let run = fam(&["resolve", &o]);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert_eq!(err.matches("error:").count(), 1, "{err}");
    assert!(err.contains("this is an orders file, not a scenario"), "{err}");
    assert!(err.contains("--orders"), "{err}");
    // `fam check` sees it as orders and says resolve takes it only so.
    let run = fam(&["check", &o]);
    let err = text(&run.stderr);
    assert!(err.contains("only with --orders after its scenario"), "{err}");
}

/// A record whose lines end in CR only is one line of the whole file: the
/// error quotes the piece around the problem, not the file.
#[test]
fn an_error_in_a_very_long_line_quotes_only_the_piece_around_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut body = fs::read_to_string(repo().join("ssd/kestrel-reach.gzf")).unwrap();
    while body.len() < 200_000 {
        body.push_str(&body.clone());
    }
    let cr = dir.path().join("cr.gzf");
    fs::write(&cr, body.replace('\n', "\r")).unwrap();
    let run = fam(&["check", &cr.display().to_string()]);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2));
    assert!(err.contains("cr.gzf:1:"), "{err}");
    assert!(err.len() < 4_000, "{} bytes of error", err.len());
    assert!(err.lines().all(|l| l.len() < 600), "{err}");
}

/// Files are read up to 16 MiB: a runaway file is refused by name before
/// it is parsed, exit 2.
#[test]
fn an_input_larger_than_fam_reads_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("huge.gzf");
    let f = fs::File::create(&big).unwrap();
    f.set_len(fam::files::MAX_INPUT_BYTES + 1).unwrap();
    let run = fam(&["check", &big.display().to_string()]);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(err.contains("huge.gzf") && err.contains("larger than 16 MiB"), "{err}");
}

/// A GZF file of more blocks than fam reads is refused at the first block
/// beyond the limit, before any record is built; a ship of more systems
/// than fam reads, at the first system beyond.
#[test]
fn records_beyond_the_documented_limits_are_refused_at_their_place() {
    use fam::gzf::parse::{MAX_BLOCKS, MAX_SYSTEMS_PER_SHIP};
    let header = "Profile: FB1\nUniverse: Full Thrust\nUnits: cm\n\n";
    let mut text = header.to_string();
    text.push_str("Ship: S\nMass: 10\nCost: 30\nThrust-Rating: 2\nDamage-Track: O O\n\n");
    for _ in 0..MAX_SYSTEMS_PER_SHIP + 1 {
        text.push_str("System: PDS\nFiring-Arc: F\nMass: 1\nCost: 3\n\n");
    }
    let parsed = fam::gzf::parse(&text, &Default::default());
    let over: Vec<_> = parsed
        .diagnostics
        .iter()
        .filter(|d| d.message.contains(&format!("more than {MAX_SYSTEMS_PER_SHIP} systems")))
        .collect();
    assert_eq!(over.len(), 1, "{:?}", parsed.diagnostics.first());
    let source = fam::diag::SourceFile::new("many.gzf", text.as_str());
    let (line, _) = source.line_col(over[0].span.start);
    // The header (4 lines), the ship (6), then 5 lines a system.
    assert_eq!(line, 4 + 6 + 5 * MAX_SYSTEMS_PER_SHIP + 1);
    let mut many = header.to_string();
    // The header is a block too: MAX_BLOCKS in all.
    for k in 1..MAX_BLOCKS {
        many.push_str(&format!("Fleet: F{k}\n\n"));
    }
    let parsed = fam::gzf::parse(&many, &Default::default());
    assert!(
        parsed
            .diagnostics
            .iter()
            .all(|d| !d.message.contains("blocks, the most"))
    );
    many.push_str("Fleet: one too many\n");
    let parsed = fam::gzf::parse(&many, &Default::default());
    assert!(parsed.has_errors());
    assert!(parsed.file.items.is_empty(), "nothing is built");
    let d = &parsed.diagnostics[0];
    assert!(
        d.message.contains(&format!("more than {MAX_BLOCKS} blocks")),
        "{}",
        d.message
    );
    let source = fam::diag::SourceFile::new("many.gzf", many.as_str());
    assert_eq!(source.line_col(d.span.start).0, 4 + 2 * (MAX_BLOCKS - 1) + 1);
}

/// A ship whose damage track is `boxes` boxes, each a row of its own (the
/// most costly way to write them: some 60 bytes of records for 2 of text).
fn ship_of_boxes(name: &str, boxes: usize) -> String {
    format!(
        "Ship:             {name}\nMass:             100\nThrust-Rating:    4\nDamage-Track:     {}\n\n",
        "O ".repeat(boxes).trim_end()
    )
}

const GZF_HEADER: &str = "Profile: FB1\n\n";

/// Damage tracks had no box limit: 7 million boxes in 14 MB took 650 MB.
/// A track of one box more than fam reads is refused at that box; one of
/// exactly as many reads.
#[test]
fn a_damage_track_past_the_box_limit_is_refused_at_its_first_box_beyond() {
    use fam::gzf::MAX_TRACK_BOXES;
    let at_limit = format!("{GZF_HEADER}{}", ship_of_boxes("Long", MAX_TRACK_BOXES));
    let parsed = fam::gzf::parse(&at_limit, &Default::default());
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics.first());
    assert_eq!(parsed.file.ship("Long").unwrap().hull_boxes(), MAX_TRACK_BOXES);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.gzf");
    fs::write(
        &path,
        format!("{GZF_HEADER}{}", ship_of_boxes("Long", MAX_TRACK_BOXES + 1)),
    )
    .unwrap();
    let run = fam(&["check", &path.display().to_string()]);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    // Line 6 (`Damage-Track:`, 18 columns), box N at column 19 + 2(N − 1).
    let column = 19 + 2 * MAX_TRACK_BOXES;
    assert!(err.contains(&format!("long.gzf:6:{column}")), "{err}");
    assert!(
        err.contains(&format!("`Damage-Track:` holds more than {MAX_TRACK_BOXES} boxes")),
        "{err}"
    );
}

/// A track filling the largest file fam reads (8 million boxes, a row
/// each) is refused before one box is made: parsing it makes a few dozen
/// allocations of a few times the text's size, where making its rows
/// would make 8 million (650 MB for 14 MB before the limit). Armour, one
/// token a box (300 MB), likewise.
#[test]
fn a_track_filling_the_largest_file_is_refused_without_making_its_boxes() {
    use fam::gzf::MAX_TRACK_BOXES;
    let largest = usize::try_from(fam::files::MAX_INPUT_BYTES).unwrap();
    let boxes = (largest - 200) / 2;
    let track = format!("{GZF_HEADER}{}", ship_of_boxes("Runaway", boxes));
    let armour = track.replacen("Damage-Track:", "Armour:      ", 1).replacen(
        "Thrust-Rating:    4\n",
        "Thrust-Rating:    4\nDamage-Track:     O O O O\n",
        1,
    );
    for (what, text) in [("Damage-Track", &track), ("Armour", &armour)] {
        assert!(text.len() <= largest);
        let (before, bytes_before) = (crate::batch::allocations(), crate::batch::allocated_bytes());
        let parsed = fam::gzf::parse(text, &Default::default());
        let made = crate::batch::allocations() - before;
        let bytes = crate::batch::allocated_bytes() - bytes_before;
        assert!(made < 1_000, "{what}: {made} allocations for a refused field");
        let size = text.len() as u64;
        assert!(bytes < 4 * size, "{what}: {bytes} bytes allocated for {size} of text");
        let refused: Vec<_> = parsed
            .diagnostics
            .iter()
            .filter(|d| d.message.contains(&format!("more than {MAX_TRACK_BOXES} boxes")))
            .collect();
        assert_eq!(refused.len(), 1, "{what}: {:?}", parsed.diagnostics);
        assert!(refused[0].message.contains(what), "{}", refused[0].message);
        let source = fam::diag::SourceFile::new("runaway.gzf", text.as_str());
        assert_eq!(
            source.line_col(refused[0].span.start).1,
            19 + 2 * MAX_TRACK_BOXES,
            "{what}"
        );
    }
}

/// Tracks within their limit each, spread over many ships, cost as much:
/// a file holds at most so many boxes, the first beyond refused at its
/// place (the tracks before it are read).
#[test]
fn boxes_past_the_file_limit_are_refused_at_the_first_beyond() {
    use fam::gzf::{MAX_FILE_BOXES, MAX_TRACK_BOXES};
    let ships = MAX_FILE_BOXES / MAX_TRACK_BOXES;
    let mut text = GZF_HEADER.to_string();
    for k in 0..ships {
        text.push_str(&ship_of_boxes(&format!("S{k}"), MAX_TRACK_BOXES));
    }
    let parsed = fam::gzf::parse(&text, &Default::default());
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics.first());
    text.push_str(&ship_of_boxes("One Too Many", 1));
    text.push_str(&ship_of_boxes("And Another", 1));
    let parsed = fam::gzf::parse(&text, &Default::default());
    let refused: Vec<_> = parsed.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(refused.len(), 1, "said once: {refused:?}");
    assert!(
        refused[0]
            .message
            .contains(&format!("more than {MAX_FILE_BOXES} boxes")),
        "{}",
        refused[0].message
    );
    let source = fam::diag::SourceFile::new("many.gzf", text.as_str());
    // The header (2 lines), five lines a ship: the track of ship `ships`.
    assert_eq!(source.line_col(refused[0].span.start), (2 + 5 * ships + 4, 19));
}

/// A battle of more Units than fam plays, or of more GZF files than a
/// scenario loads, is refused at its table.
#[test]
fn a_battle_beyond_the_documented_limits_is_refused_at_its_table() {
    use fam::orders::{MAX_BATTLE_UNITS, MAX_RECORD_FILES};
    let formations = MAX_BATTLE_UNITS / 100 + 1;
    let (_d, path) = duel_with(|t| {
        let mut extra = String::from("\n[formations]\n");
        for f in 0..formations {
            let names: Vec<String> = (0..100).map(|u| format!("\"S{f}-{u}\"")).collect();
            extra.push_str(&format!("F{f} = [{}]\n", names.join(", ")));
        }
        let (head, tail) = t.split_at(t.find("[formations]").unwrap());
        let tail = &tail[tail.find("\n\n").unwrap()..];
        format!("{head}{}{tail}", &extra[1..])
    });
    let run = fam(&["check", &path]);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        err.contains(&format!(
            "the Formations list {} Units; a battle holds at most {MAX_BATTLE_UNITS}",
            formations * 100
        )),
        "{}",
        &err[..err.len().min(2000)]
    );
    let (_d, path) = duel_with(|t| {
        let files: Vec<String> = (0..=MAX_RECORD_FILES).map(|k| format!("\"f{k}.gzf\"")).collect();
        let start = t.find("gzf = [").unwrap();
        let end = start + t[start..].find('\n').unwrap();
        format!("{}gzf = [{}]{}", &t[..start], files.join(", "), &t[end..])
    });
    refused_at(
        &path,
        "5:7",
        &format!(
            "{} GZF files given; a scenario loads at most {MAX_RECORD_FILES}",
            MAX_RECORD_FILES + 1
        ),
    );
}

/// The design checks of `fam check --strict` add masses a record may give
/// as any u32: summed wide, they say what the ship uses instead of wrapping
/// (or stopping on overflow).
#[test]
fn design_checks_of_absurd_masses_say_what_the_ship_uses() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("heavy.gzf");
    let max = u32::MAX;
    let mut record = String::from(
        "Profile: FB1\nUniverse: Full Thrust\nUnits: cm\n\nShip: Heavy\nHull-Integrity: Average\nMass: 100000000\nCost: 30\nThrust-Rating: 8\nDamage-Track: O O O\n\n",
    );
    for _ in 0..2 {
        record.push_str(&format!("System: FCS\nMass: {max}\nCost: 4\n\n"));
    }
    fs::write(&path, record).unwrap();
    let run = fam(&["check", "--strict", &path.display().to_string()]);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    let systems = 2 * u64::from(max);
    assert!(err.contains(&format!("systems {systems}")), "{err}");
    assert!(err.contains("hull boxes"), "{err}");
}
