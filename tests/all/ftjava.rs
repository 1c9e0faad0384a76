//! FTJava import and export: our own fixtures always; the Fleet Book 1
//! files and the Fire and Maneuver example games when `../shared/data` is
//! there (each such test says so and passes when it is not).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use fam::diag::SourceFile;
use fam::ftjava::{self, Import, Options};
use fam::gzf::{self, Armour, DamageState, GzfFile, HullIntegrity, Item, ParseOptions, Ship, SystemKind};

use super::support::{fam, files_with, fixtures, repo, text};

/// A folder of the shared data, or `None` (with a note) when absent.
fn data(dir: &str) -> Option<PathBuf> {
    let p = repo().join("../shared/data/ftjava").join(dir);
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!("note: {} is not there: this test checks nothing", p.display());
        None
    }
}

fn xml_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("read dir") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            out.extend(xml_files(&p));
        } else if p.extension().is_some_and(|x| x == "xml") {
            out.push(p);
        }
    }
    out.sort();
    out
}

fn import(path: &Path) -> (SourceFile, Import) {
    let bytes = std::fs::read(path).expect("read input");
    let source = SourceFile::from_bytes(path.display().to_string(), &bytes);
    let imported = ftjava::import(&source, &Options::default());
    (source, imported)
}

fn errors(source: &SourceFile, imported: &Import) -> String {
    let errors: Vec<_> = imported.diagnostics.iter().filter(|d| d.is_error()).cloned().collect();
    source.render(&errors, 50)
}

fn ship<'a>(file: &'a GzfFile, name: &str) -> &'a Ship {
    file.ship(name).unwrap_or_else(|| panic!("no ship `{name}`"))
}

fn count(s: &Ship, kind: &SystemKind) -> usize {
    s.systems.iter().filter(|x| x.kind == *kind).count()
}

/// GZF text → model, as `fam check` reads it (inert systems allowed).
fn reparse(file: &GzfFile) -> gzf::Parsed {
    gzf::parse(
        &gzf::write(file),
        &ParseOptions {
            inert_unknown_systems: true,
        },
    )
}

/// Import → GZF → export → import again: the same model every time.
fn assert_round_trip(name: &str, imported: &Import) {
    let written = gzf::write(&imported.gzf);
    let parsed = reparse(&imported.gzf);
    assert!(!parsed.has_errors(), "{name}: the GZF written does not read back");
    assert_eq!(
        parsed.file, imported.gzf,
        "{name}: GZF text → model differs from the import"
    );
    let request = ftjava::export::Request {
        text: &written,
        file: &parsed.file,
        spans: &parsed.spans,
        ship: None,
        title: name,
        skip_unmapped: false,
    };
    let exported = ftjava::export::export(&request);
    let problems: Vec<_> = exported.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert!(problems.is_empty(), "{name}: export refused: {problems:?}");
    let again = ftjava::import(
        &SourceFile::new(format!("{name} (exported)"), exported.xml.as_str()),
        &Options::default(),
    );
    assert!(
        !again.has_errors(),
        "{name}: the exported XML does not import:\n{}\n{}",
        errors(&SourceFile::new("exported", exported.xml.as_str()), &again),
        exported.xml
    );
    assert_eq!(
        again.gzf, imported.gzf,
        "{name}: FTJava → GZF → FTJava → GZF changed the model"
    );
}

// ---- Our own fixtures ------------------------------------------------------

#[test]
fn a_missile_cruiser_keeps_every_system_magazine_and_hull_detail() {
    let (source, imported) = import(&fixtures("ftjava").join("osprey.xml"));
    assert!(!imported.has_errors(), "{}", errors(&source, &imported));
    let s = ship(&imported.gzf, "KRD Patient Osprey");
    assert_eq!(s.class.as_deref(), Some("Osprey (CM, Missile Cruiser)"));
    assert_eq!(s.fleet.as_deref(), Some("Kestrel Reach Directorate"));
    assert_eq!(
        (s.mass, s.cost, s.thrust, s.original_thrust),
        (Some(72), Some(251), 4, 4)
    );
    // A custom hull: the file's 25 boxes in its 3 rows, as equal as possible;
    // 4 crew factors (72 mass, military) every 7th box and in the last.
    assert_eq!(s.hull_integrity, None);
    let rows: Vec<usize> = s.damage_track.iter().map(Vec::len).collect();
    assert_eq!(rows, [9, 8, 8]);
    let crew: Vec<usize> = s
        .damage_track
        .iter()
        .flatten()
        .enumerate()
        .filter(|(_, b)| b.crew_factor)
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(crew, [7, 14, 21, 25]);
    assert_eq!(s.armour_boxes(), 5);
    use SystemKind::*;
    for (kind, n) in [
        (Ftl, 1),
        (FireControl, 2),
        (Adfc, 1),
        (EnhancedSensors, 1),
        (ScreenGenerator, 1),
        (IndividualEcm, 1),
        (Beam { class: 3 }, 1),
        (Beam { class: 2 }, 2),
        (Beam { class: 1 }, 1),
        (NeedleBeam, 1),
        (
            PulseTorpedo {
                range: gzf::TorpedoRange::Long,
            },
            1,
        ),
        (SubmunitionPack, 1),
        (Sml, 2),
        (Smm, 1),
        (Smr, 1),
        (
            Missile {
                warhead: gzf::Warhead::Standard,
            },
            1,
        ),
        (Pds, 2),
        (HangarBay, 1),
    ] {
        assert_eq!(count(s, &kind), n, "{kind:?}");
    }
    assert_eq!(s.systems.len(), 22);
    // The magazine: capacity 4, two salvos listed as available, so two spent;
    // extended range; both launchers draw from it.
    let smm = s.systems.iter().find(|x| x.kind == Smm).expect("magazine");
    assert_eq!(smm.capacity, Some(4));
    let open = smm
        .rounds
        .as_ref()
        .expect("rounds")
        .iter()
        .filter(|b| !b.crossed)
        .count();
    assert_eq!(open, 2);
    assert_eq!(smm.ammo, Some(gzf::AmmoType::Er));
    assert!(
        s.systems
            .iter()
            .filter(|x| x.kind == Sml)
            .all(|x| x.magazine == smm.magazine)
    );
    // A class-1 battery without arcs fires all round; a pack without arcs fires ahead.
    let c1 = s.systems.iter().find(|x| x.kind == Beam { class: 1 }).expect("class 1");
    assert_eq!(c1.arcs.len(), 6);
    let pack = s.systems.iter().find(|x| x.kind == SubmunitionPack).expect("pack");
    assert_eq!(pack.arcs, [gzf::Arc::F]);
    // `fam check` finds the one design breach the file has: three rows
    // where the design rules want four.
    let parsed = reparse(&imported.gzf);
    let design = gzf::design::check(&parsed.file, &parsed.spans);
    assert_eq!(design.len(), 1, "{design:?}");
    assert!(design[0].message.contains("has 3 hull rows"), "{design:?}");
    assert_round_trip("osprey.xml", &imported);
}

#[test]
fn a_merchant_gets_civilian_crew_factors_and_keeps_its_holds() {
    let (source, imported) = import(&fixtures("ftjava").join("honest-tally.xml"));
    assert!(!imported.has_errors(), "{}", errors(&source, &imported));
    // No name in a design file: the ship is called after its class.
    let s = ship(&imported.gzf, "Honest Tally");
    assert_eq!(s.ship_type, Some(gzf::ShipType::Merchant));
    assert_eq!(s.hull_integrity, Some(HullIntegrity::Weak));
    assert_eq!(s.hull_boxes(), 13); // 20 % of 64 = 12.8
    assert_eq!(s.crew_factors(), 2); // 1 per 50 mass or part
    let payload = s.meta.iter().find(|m| m.name == "Payload-Track").expect("holds");
    assert_eq!(payload.lines, ["H30 P6"]);
    assert_round_trip("honest-tally.xml", &imported);
}

#[test]
fn a_game_turn_brings_its_damage_state_and_fighters() {
    let (source, imported) = import(&fixtures("ftjava").join("lantern-picket.xml"));
    assert!(!imported.has_errors(), "{}", errors(&source, &imported));
    let file = &imported.gzf;
    let Some(Item::Scenario(game)) = file.items.first() else {
        panic!("the game's name and turn come first");
    };
    assert_eq!((game.title.as_str(), game.turn), ("Picket at Tamsin's Lantern", 1));
    // 18 hull boxes (average, mass 60), 14 left: the first 4 crossed; the
    // crew factors still standing are in boxes 6, 12 and 18.
    let q = ship(file, "MCS Quiet Reckoner");
    let flat: Vec<_> = q.damage_track.iter().flatten().collect();
    assert_eq!(flat.len(), 18);
    assert!(flat[..4].iter().all(|b| b.crossed) && flat[4..].iter().all(|b| !b.crossed));
    assert_eq!(q.crew_factors(), 3);
    match &q.armour {
        Some(Armour::Boxes(b)) => assert_eq!(b.iter().filter(|x| x.crossed).count(), 2),
        other => panic!("armour {other:?}"),
    }
    let damaged: Vec<_> = q
        .systems
        .iter()
        .filter(|x| x.status.damage == Some(DamageState::Damaged))
        .map(|x| x.kind.clone())
        .collect();
    assert_eq!(damaged, [SystemKind::FireControl]);
    // A damaged drive: current thrust 3 of 6.
    let f = ship(file, "KRD Flint Answer");
    assert_eq!((f.thrust, f.original_thrust), (3, 6));
    let group = file
        .items
        .iter()
        .find_map(|i| match i {
            Item::FighterGroup(g) => Some(g),
            _ => None,
        })
        .expect("fighter group");
    assert_eq!(group.craft.iter().filter(|b| !b.crossed).count(), 4);
    assert_eq!(group.craft.len(), 6);
    assert_eq!(group.carrier.as_deref(), Some("MCS Quiet Reckoner"));
    assert_eq!(group.pilot_quality, Some(gzf::PilotQuality::Ace));
    assert!(
        group.meta.iter().all(|m| m.name != "Fleet"),
        "the carrier's race is not repeated"
    );
    assert_round_trip("lantern-picket.xml", &imported);
}

/// The plots as TOML values: Formation → three Volley tables.
fn plots(toml_text: &str) -> BTreeMap<String, Vec<toml::Value>> {
    let v: toml::Value = toml::from_str(toml_text).expect("scenario TOML");
    let mut out = BTreeMap::new();
    for (f, p) in v.get("plot").and_then(|p| p.as_table()).into_iter().flatten() {
        let volleys = p["volley"].as_array().expect("volleys").clone();
        out.insert(f.clone(), volleys);
    }
    out
}

fn weapons(volley: &toml::Value) -> Vec<i64> {
    volley["fire"][0]["weapons"]
        .as_array()
        .expect("weapons")
        .iter()
        .map(|w| w.as_integer().expect("number"))
        .collect()
}

#[test]
fn fm_orders_become_plots_with_every_repair_said_at_its_line() {
    let (source, imported) = import(&fixtures("ftjava").join("lantern-picket.xml"));
    assert!(!imported.has_errors(), "{}", errors(&source, &imported));
    let scenario = imported.scenario.as_ref().expect("two sides make a scenario");
    let toml_text = scenario.to_toml("lantern-picket.xml", "lantern-picket.gzf");
    let p = plots(&toml_text);
    // Quiet Reckoner (systems: 1 FTL, 2-3 FCS, 4 ADFC, 5 screen, 6-8 beams
    // 3/2/1, 9-10 PDS, 11 rack). Volley 1 as written: ids 9, 10, 14 are
    // the class-3 and class-2 beams and the rack; PD ids 11, 12 the class-1
    // beam and a PDS.
    let q = &p["MCS Quiet Reckoner"];
    assert_eq!(q.len(), 3);
    assert_eq!(q[0]["speed"].as_integer(), Some(4));
    assert_eq!(q[0]["primary"]["close"].as_str(), Some("KRD Flint Answer"));
    assert_eq!(q[0]["secondary"]["maintain"][0].as_str(), Some("MCS Small Lantern"));
    assert_eq!(q[0]["fire"][0]["fc"].as_integer(), Some(2));
    assert_eq!(weapons(&q[0]), [6, 7, 11]);
    assert_eq!(q[0]["pd"][0]["weapons"].as_array().map(Vec::len), Some(2));
    // Volley 2: Evasion 4 cut to 3; the damaged Fire Control (id 6) replaced
    // by the working one; the rack, fired in Volley 1, left out.
    assert_eq!(
        (q[1]["speed"].as_integer(), q[1]["evasion"].as_integer()),
        (Some(3), Some(3))
    );
    assert_eq!(q[1]["fire"][0]["fc"].as_integer(), Some(2));
    assert_eq!(weapons(&q[1]), [6]);
    // No Volley 3 in the file: Volley 2's orders again.
    assert_eq!(q[2], q[1]);
    // Flint Answer has no `id`s: ids count from the main drive (1), FTL (2),
    // Fire Control (3) … so its GZF systems are 1 FTL, 2 FCS, 3-4 beams,
    // 5 torpedo, 6 pack, 7 PDS.
    let f = &p["KRD Flint Answer"];
    // Volley 1 names no weapons: everything but the PDS.
    assert_eq!(weapons(&f[0]), [3, 4, 5, 6]);
    assert_eq!(
        (f[0]["speed"].as_integer(), f[0]["evasion"].as_integer()),
        (Some(2), Some(1))
    );
    // Volley 2: the pack already fired; Close dropped beside a Withdraw.
    assert_eq!(weapons(&f[1]), [3]);
    assert!(f[1].get("secondary").is_none());
    assert_eq!(weapons(&f[2]), [3, 4, 5]);
    assert_eq!(f[2]["primary"]["maintain"].as_str(), Some("MCS Quiet Reckoner"));
    // Ranges from the positions: 5, 30 and 25 MU.
    assert_eq!(scenario.ranges.iter().map(|r| r.2).collect::<Vec<_>>(), [5, 30, 25]);
    // Every repair is a warning at its line.
    let warnings = source.render(&imported.diagnostics, 50);
    for (line, what) in [
        (17, "give no Volley 3"),
        (32, "Evasion 4"),
        (37, "not a working Fire Control"),
        (37, "one-shot that has already fired"),
        (127, "Close and Withdraw"),
        (130, "already fired"),
    ] {
        assert!(
            warnings.contains(&format!("lantern-picket.xml:{line}:")) && warnings.contains(what),
            "no warning `{what}` at line {line}:\n{warnings}"
        );
    }
    // And the scenario passes fam's own checks.
    let gzf_text = gzf::write(&imported.gzf);
    let mut read = |p: &str| {
        assert_eq!(p, "lantern-picket.gzf");
        Ok(SourceFile::new(p, gzf_text.as_str()))
    };
    let loaded = fam::orders::build(
        SourceFile::new("lantern-picket.toml", toml_text.as_str()),
        Vec::new(),
        &mut read,
        &ParseOptions::default(),
    );
    assert!(loaded.is_ok(), "the imported scenario is refused");
}

#[test]
fn import_and_resolve_a_game_from_the_command_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    let input = fixtures("ftjava").join("lantern-picket.xml");
    let o = fam(&[
        "import",
        "ftjava",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("3 ships"));
    let scenario = out.join("lantern-picket.toml");
    let turn2 = dir.path().join("turn2");
    let o = fam(&["resolve", scenario.to_str().unwrap(), "--out", turn2.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("Picket at Tamsin's Lantern"));
    // The ships after the Exchange go back to FTJava and come back the same.
    let record = turn2.join("lantern-picket.gzf");
    let o = fam(&[
        "export",
        "ftjava",
        record.to_str().unwrap(),
        "--ship",
        "KRD Flint Answer",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let xml = text(&o.stdout);
    assert!(xml.contains("<Name>KRD Flint Answer</Name>"));
    let back = ftjava::import(&SourceFile::new("back.xml", xml.as_str()), &Options::default());
    assert!(!back.has_errors());
    let fought = gzf::parse(&std::fs::read_to_string(&record).unwrap(), &ParseOptions::default()).file;
    let before = ship(&fought, "KRD Flint Answer");
    let after = ship(&back.gzf, "KRD Flint Answer");
    assert_eq!(after.hull_remaining(), before.hull_remaining());
    assert_eq!(after.armour_remaining(), before.armour_remaining());
    assert_eq!(
        (after.thrust, after.original_thrust),
        (before.thrust, before.original_thrust)
    );
    let states = |s: &Ship| {
        s.systems
            .iter()
            .map(|x| (x.kind.clone(), x.status.damage))
            .collect::<Vec<_>>()
    };
    assert_eq!(states(after), states(before));
}

#[test]
fn malformed_xml_is_refused_at_its_line_and_nothing_is_written() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    let good = fixtures("ftjava").join("osprey.xml");
    let bad = fixtures("ftjava").join("err-malformed.xml");
    let o = fam(&[
        "import",
        "ftjava",
        good.to_str().unwrap(),
        bad.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(err.contains("err-malformed.xml:6:1"), "{err}");
    assert!(
        err.contains("malformed XML") && err.contains("well-formed XML"),
        "{err}"
    );
    assert!(!out.exists(), "no output when any input has an error");
}

#[test]
fn an_element_without_mapping_refuses_the_ship_unless_skipped() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("out");
    let input = fixtures("ftjava").join("err-unmapped.xml");
    let o = fam(&[
        "import",
        "ftjava",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("err-unmapped.xml:15:10") && err.contains("`WarpCoil`"),
        "{err}"
    );
    assert!(err.contains("--skip-unmapped"), "{err}");
    assert!(!out.exists());
    let o = fam(&[
        "import",
        "ftjava",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--skip-unmapped",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("left out (--skip-unmapped)"));
    let record = gzf::parse(
        &std::fs::read_to_string(out.join("err-unmapped.gzf")).unwrap(),
        &ParseOptions::default(),
    );
    assert_eq!(ship(&record.file, "Odd Fellow").systems.len(), 2);
}

#[test]
fn impossible_values_are_each_named_with_what_was_expected() {
    let (source, imported) = import(&fixtures("ftjava").join("err-impossible.xml"));
    let shown = errors(&source, &imported);
    for (line, what) in [
        (5, "more than the initial thrust"),
        (6, "3 armour boxes left of 2"),
        (7, "20 hull boxes left of 12"),
        (9, "rating from 1 to 9"),
        (10, "`Q` in `(F/Q)` is not an arc"),
    ] {
        assert!(
            shown.contains(&format!("err-impossible.xml:{line}:")) && shown.contains(what),
            "no error `{what}` at line {line}:\n{shown}"
        );
    }
}

/// A one-ship FB1 record with core systems and a Weasel (which FTJava has
/// no element for either).
const WEASEL_SHIP: &str = "Profile: FB1

Ship:             Test Weasel
Mass:             20
Thrust-Rating:    4
Damage-Track:     OO OO OO O*

System:           Command Bridge

System:           Power Core

System:           LSS

System:           FCS

System:           Weasel

System:           Class 1 Battery
Firing-Arc:       FP F FS AP A AS
";

#[test]
fn export_refuses_systems_ftjava_lacks_unless_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("weasel.gzf");
    std::fs::write(&record, WEASEL_SHIP).unwrap();
    let o = fam(&["export", "ftjava", record.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("error: Weasel of `Test Weasel` has no FTJava element") && err.contains("weasel.gzf:16:1"),
        "{err}"
    );
    // The core systems are left out without an error, whatever the flag.
    assert!(!err.contains("Command Bridge of"), "{err}");
    assert!(o.stdout.is_empty());
    let o = fam(&["export", "ftjava", record.to_str().unwrap(), "--skip-unmapped"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert_eq!(
        err.trim(),
        format!(
            "note: {}: `Test Weasel`: not exported: systems 1 Command Bridge, 2 Power Core, 3 LSS, 5 Weasel \
             (no FTJava element; listed in its Log, where fam's import finds them)",
            record.display()
        )
    );
    let xml = text(&o.stdout);
    assert!(xml.starts_with("<?xml"));
    // The FCS is system 4 (id 5), the battery system 6 (id 7).
    assert!(xml.contains("<FireControl id=\"5\"/>"), "{xml}");
    assert!(xml.contains("<BeamBattery id=\"7\" rating=\"1\""), "{xml}");
    let imported = ftjava::import(&SourceFile::new("weasel.xml", xml.as_str()), &Options::default());
    assert!(!imported.has_errors());
    let kinds: Vec<SystemKind> = ship(&imported.gzf, "Test Weasel")
        .systems
        .iter()
        .map(|x| x.kind.clone())
        .collect();
    assert_eq!(
        kinds,
        [
            SystemKind::CommandBridge,
            SystemKind::PowerCore,
            SystemKind::LifeSupport,
            SystemKind::FireControl,
            SystemKind::Weasel,
            SystemKind::Beam { class: 1 },
        ]
    );
    let o = fam(&["export", "ftjava", "ssd/kestrel-reach.gzf", "--ship", "No Such Ship"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("no ship named `No Such Ship`"));
}

// ---- The shipped library through FTJava and back ----------------------------

/// Every shipped record, its text and its model.
/// The ship library's file whose weapons FTJava has no element for (fusion
/// arrays, wave guns, antimatter missiles, boarding torpedoes, light
/// fighters): its export is refused by name instead
/// (`a_ship_with_weapons_ftjava_lacks_is_refused_by_name`).
const BEYOND_FTJAVA: &str = "cinder-compact.gzf";

/// The ship library's files FTJava can hold.
fn shipped() -> Vec<(String, String, gzf::Parsed)> {
    files_with(&repo().join("ssd"), "gzf")
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n != BEYOND_FTJAVA))
        .map(|p| {
            let name = format!("ssd/{}", p.file_name().unwrap().to_string_lossy());
            let text = std::fs::read_to_string(&p).unwrap();
            let parsed = gzf::parse(&text, &ParseOptions::default());
            assert!(!parsed.has_errors(), "{name} does not parse");
            (name, text, parsed)
        })
        .collect()
}

/// A shipped FB1 record exported as `fam export ftjava` does it, and
/// imported back.
fn through_ftjava(name: &str, text: &str, parsed: &gzf::Parsed) -> GzfFile {
    let request = ftjava::export::Request {
        text,
        file: &parsed.file,
        spans: &parsed.spans,
        ship: None,
        title: name,
        skip_unmapped: false,
    };
    let exported = ftjava::export::export(&request);
    let refused: Vec<_> = exported.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert!(refused.is_empty(), "{name}: export refused: {refused:?}");
    let back = ftjava::import(
        &SourceFile::new(format!("{name}.xml"), exported.xml.as_str()),
        &Options::default(),
    );
    assert!(
        !back.has_errors(),
        "{name}: the export does not import:\n{}",
        errors(&SourceFile::new("exported", exported.xml.as_str()), &back)
    );
    // What the import wrote must read back as a record.
    let reread = reparse(&back.gzf);
    assert!(!reread.has_errors(), "{name}: the reimported record does not read back");
    reread.file
}

#[test]
fn a_ship_with_weapons_ftjava_lacks_is_refused_by_name() {
    let name = format!("ssd/{BEYOND_FTJAVA}");
    let o = fam(&["export", "ftjava", &name]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    for system in ["Wave Gun", "Fusion Array", "Antimatter Missile", "Boarding Torpedo"] {
        assert!(err.contains(system), "{system} not named in\n{err}");
    }
    // The bay's light-fighter type has no FTJava word: a warning names it.
    assert!(err.contains("fighter type of system 12 (Hangar Bay)"), "{err}");
    let skipped = fam(&["export", "ftjava", &name, "--skip-unmapped"]);
    assert_eq!(skipped.status.code(), Some(0), "{}", text(&skipped.stderr));
}

#[test]
fn every_shipped_fb1_record_exports_without_flags_saying_once_per_ship_what_is_left_out() {
    let mut exported = 0;
    for (name, _, parsed) in shipped() {
        if parsed.file.profile != gzf::Profile::Fb1 {
            continue;
        }
        exported += 1;
        let o = fam(&["export", "ftjava", &name]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{name}: {err}");
        assert!(!err.contains("error"), "{name}: {err}");
        let xml = text(&o.stdout);
        let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{name}: {e}"));
        let ships: Vec<&Ship> = parsed.file.ships().collect();
        let written = doc.descendants().filter(|n| n.has_tag_name("Ship")).count();
        assert_eq!(written, ships.len(), "{name}: every ship is exported");
        // One note per ship at most, one warning per ship at most, and one
        // note for the file's other blocks.
        for s in &ships {
            let notes = err
                .lines()
                .filter(|l| l.starts_with(&format!("note: {name}: `{}`:", s.name)))
                .count();
            let core = s.systems.iter().any(|x| x.kind.is_core());
            assert_eq!(
                notes,
                usize::from(core || s.systems.iter().any(|x| x.mass.is_some())),
                "{name}: {err}"
            );
            let warnings = err
                .lines()
                .filter(|l| l.starts_with("warning:") && l.contains(&format!("`{}`", s.name)))
                .count();
            assert!(warnings <= 1, "{name}: {err}");
        }
        let lines_of = |prefix: &str| err.lines().filter(|l| l.starts_with(prefix)).count();
        assert!(lines_of("warning:") <= ships.len(), "{name}: {err}");
        assert!(lines_of("note:") <= ships.len() + 1, "{name}: {err}");
    }
    assert_eq!(exported, 8, "the library has eight FB1 records");
}

#[test]
fn the_tessaly_flotilla_leaves_its_fleet_and_gunboats_out_in_one_note() {
    let o = fam(&["export", "ftjava", "ssd/tessaly-gunboats.gzf"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stderr).trim(),
        "note: ssd/tessaly-gunboats.gzf: left out, FTJava having no element for them: \
         fleet block `Tessaly Free Ports Boat Flotilla` (FTJava keeps a ship's fleet as its `Race`); \
         fighter group `Kiln Lances` (gunboats: FTJava has none); \
         fighter group `Kiln Darts` (gunboats: FTJava has none)"
    );
    let xml = text(&o.stdout);
    assert!(!xml.contains("<FighterGroup"), "{xml}");
}

#[test]
fn the_ft2_record_is_refused_by_its_profile_at_its_profile_line() {
    let o = fam(&["export", "ftjava", "ssd/old-veldt-militia.gzf"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let err = text(&o.stderr);
    assert!(
        err.starts_with("error: the FT2 profile cannot be exported to FTJava: FTJava holds FB1 ships only\n")
            && err.contains("--> ssd/old-veldt-militia.gzf:1:1")
            && err.contains("Profile:          FT2")
            && err.contains("docs/import.md, FT2 records"),
        "{err}"
    );
}

#[test]
fn a_round_trip_through_ftjava_keeps_every_shipped_systems_number() {
    let mut compared = 0;
    for (name, text, parsed) in shipped() {
        if parsed.file.profile != gzf::Profile::Fb1 {
            continue;
        }
        let back = through_ftjava(&name, &text, &parsed);
        for s in parsed.file.ships() {
            let b = ship(&back, &s.name);
            assert_eq!(b.systems.len(), s.systems.len(), "{name}: `{}`", s.name);
            for (k, (x, y)) in s.systems.iter().zip(&b.systems).enumerate() {
                let at = format!("{name}: `{}` system {}", s.name, k + 1);
                // FTJava keeps no Pulser setting (readings I27).
                let open = |k: &SystemKind| match k {
                    SystemKind::Pulser { .. } => SystemKind::Pulser { setting: None },
                    k => k.clone(),
                };
                assert_eq!(open(&x.kind), open(&y.kind), "{at}");
                assert_eq!(x.status.damage, y.status.damage, "{at}");
                assert_eq!(x.magazine, y.magazine, "{at}");
                if x.kind != SystemKind::Pds {
                    // PDS fire all round: FTJava gives them no arcs.
                    assert_eq!(x.arcs, y.arcs, "{at}");
                }
                compared += 1;
            }
        }
    }
    // 19 FB1 ships in the library, each with more than four systems.
    assert!(compared > 19 * 4, "{compared} systems compared");
}

/// Shipped scenarios whose records all come back whole from FTJava (the
/// others use the FT2 record, gunboats or a docked group block, which
/// FTJava cannot hold).
const SCENARIOS_THROUGH_FTJAVA: &[&str] = &[
    "battleship-vs-missiles",
    "duel",
    "fleet-action",
    "missile-strike",
    "standing-orders",
];

#[test]
fn shipped_scenarios_plot_the_same_systems_on_ships_brought_back_from_ftjava() {
    let back: Vec<(String, String)> = shipped()
        .into_iter()
        .filter(|(_, _, p)| p.file.profile == gzf::Profile::Fb1)
        .map(|(name, text, parsed)| {
            let file = through_ftjava(&name, &text, &parsed);
            (format!("../{name}"), gzf::write(&file))
        })
        .collect();
    for scenario in SCENARIOS_THROUGH_FTJAVA {
        let path = repo().join(format!("scenarios/{scenario}.toml"));
        let original = fam::orders::load_scenario(&path, &[], &ParseOptions::default())
            .unwrap_or_else(|_| panic!("{scenario} does not load"));
        let source = SourceFile::new(path.display().to_string(), std::fs::read_to_string(&path).unwrap());
        let mut read = |p: &str| -> Result<SourceFile, String> {
            back.iter()
                .find(|(n, _)| n == p)
                .map(|(n, t)| SourceFile::new(n.clone(), t.as_str()))
                .ok_or_else(|| format!("{p} was not brought back from FTJava"))
        };
        let reloaded = fam::orders::build(source, Vec::new(), &mut read, &ParseOptions::default())
            .unwrap_or_else(|reports| panic!("{scenario}: {:?}", super::support::diagnostic_lines(&reports)));
        assert_eq!(reloaded.plot, original.plot, "{scenario}: the plots name other systems");
    }
}

// ---- The shared data: Fleet Book 1 and the F&M example games ----------------

/// Hull boxes as the Fleet Book tables give them, worked out here apart
/// from the importer: a share of the hull value, rounded half up, or the
/// file's own count for a custom hull.
fn hull_boxes(hull: roxmltree::Node) -> usize {
    let value: usize = hull.attribute("value").unwrap().parse().unwrap();
    let percent = match hull.attribute("type").unwrap() {
        "Fragile" => 10,
        "Weak" => 20,
        "Average" => 30,
        "Strong" => 40,
        "Super" => 50,
        _ => return hull.attribute("totalHullBoxes").unwrap().parse().unwrap(),
    };
    ((value * percent * 2 + 100) / 200).max(1)
}

#[test]
fn the_fleet_book_huron_matches_the_published_figures() {
    let Some(dir) = data("fleetbook1") else { return };
    let (source, imported) = import(&dir.join("New_Anglian_Confederation/NewAnglian_CL_Huron.xml"));
    assert!(!imported.has_errors(), "{}", errors(&source, &imported));
    let s = imported.gzf.ships().next().expect("a ship");
    assert_eq!((s.mass, s.cost, s.thrust), (Some(50), Some(167), 6));
    assert_eq!(s.hull_integrity, Some(HullIntegrity::Average));
    use SystemKind::*;
    assert_eq!(count(s, &FireControl), 2);
    assert_eq!(count(s, &ScreenGenerator), 1);
    assert_eq!(count(s, &Beam { class: 2 }), 3);
    assert_eq!(count(s, &Beam { class: 1 }), 2);
    assert_eq!(count(s, &Pds), 2);
}

#[test]
fn every_fleet_book_file_imports_agrees_with_its_xml_and_round_trips() {
    let Some(dir) = data("fleetbook1") else { return };
    let files = xml_files(&dir);
    assert_eq!(files.len(), 78);
    // FTJava element → the kind it must become (beams by rating below).
    let kinds: &[(&str, SystemKind)] = &[
        ("FTLDrive", SystemKind::Ftl),
        ("FireControl", SystemKind::FireControl),
        ("AreaDefenseFireControl", SystemKind::Adfc),
        ("Screen", SystemKind::ScreenGenerator),
        ("PointDefense", SystemKind::Pds),
        (
            "PulseTorpedo",
            SystemKind::PulseTorpedo {
                range: gzf::TorpedoRange::Standard,
            },
        ),
        ("SubmunitionPack", SystemKind::SubmunitionPack),
        ("SalvoMissileLauncher", SystemKind::Sml),
        ("SalvoMissileMagazine", SystemKind::Smm),
        ("SalvoMissileRack", SystemKind::Smr),
        ("FighterBay", SystemKind::HangarBay),
        (
            "KineticGun",
            SystemKind::KGun {
                class: 3,
                range: gzf::TorpedoRange::Standard,
            },
        ),
    ];
    let mut ships = 0;
    for path in &files {
        let (source, imported) = import(path);
        assert!(!imported.has_errors(), "{}", errors(&source, &imported));
        let doc = roxmltree::Document::parse(&source.text).expect("xml");
        let xml_ships: Vec<_> = doc.descendants().filter(|n| n.has_tag_name("Ship")).collect();
        let gzf_ships: Vec<&Ship> = imported.gzf.ships().collect();
        assert_eq!(xml_ships.len(), gzf_ships.len(), "{}", source.name);
        for (x, s) in xml_ships.iter().zip(&gzf_ships) {
            let at = format!("{}: {}", source.name, s.name);
            let child = |name: &str| x.children().find(|c| c.has_tag_name(name)).unwrap();
            let number = |name: &str| child(name).text().unwrap().trim().parse::<u32>().unwrap();
            assert_eq!(s.mass, Some(number("Mass")), "{at}");
            assert_eq!(s.cost, Some(number("PointValue")), "{at}");
            let thrust: u32 = child("MainDrive").attribute("initialThrust").unwrap().parse().unwrap();
            assert_eq!((s.thrust, s.original_thrust), (thrust, thrust), "{at}");
            assert_eq!(s.hull_boxes(), hull_boxes(child("Hull")), "{at}");
            let armour: usize = child("Armor").attribute("totalArmor").unwrap().parse().unwrap();
            assert_eq!(s.armour_boxes(), armour, "{at}");
            let elements: Vec<_> = x
                .descendants()
                .filter(|n| n.is_element() && n.attribute("xSSD").is_some() || n.has_tag_name("FTLDrive"))
                .collect();
            for (tag, kind) in kinds {
                let n = elements.iter().filter(|e| e.has_tag_name(*tag)).count();
                assert_eq!(count(s, kind), n, "{at}: {tag}");
            }
            for rating in 1..=9u8 {
                let n = elements
                    .iter()
                    .filter(|e| e.has_tag_name("BeamBattery") && e.attribute("rating") == Some(&rating.to_string()))
                    .count();
                assert_eq!(count(s, &SystemKind::Beam { class: rating }), n, "{at}: class {rating}");
            }
            let holds = elements.iter().filter(|e| e.has_tag_name("CargoHold")).count();
            assert_eq!(
                elements.len() - holds,
                s.systems.len(),
                "{at}: every system element is a system"
            );
            ships += 1;
        }
        // What `fam check --strict` runs: no parse problem, no design breach.
        let parsed = reparse(&imported.gzf);
        assert!(!parsed.has_errors(), "{}", source.name);
        let mut design = gzf::design::check(&parsed.file, &parsed.spans);
        // Two Fleet Book records state a cost their own systems do not make,
        // and the cost check says so: the Alligator's hangar bay is
        // commented out of the XML but still in its PointValue, and the
        // Waldburg/M's magazine holds 2 of its capacity of 4 salvos.
        design.retain(|d| {
            ![
                "`Alligator` states Cost: 377",
                "`Waldburg/M` states Cost: 101",
                "`WaldburgM` states Cost: 101",
            ]
            .iter()
            .any(|known| d.message.starts_with(known))
        });
        assert!(design.is_empty(), "{}: {design:?}", source.name);
        assert_round_trip(&source.name, &imported);
    }
    assert_eq!(ships, 143);
}

#[test]
fn the_example_games_import_and_resolve() {
    let Some(dir) = data("fireandmaneuver") else { return };
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("out");
    let games = [
        "Scenario1_Frat_Attack_2player.xml",
        "Scenario1_Frat_Attack_1player.GameEngineXml",
        "Scenario1_Beacon_Run_1player.xml",
        "Game184_Turn02_Player1_D.GameEngineXml",
    ];
    let mut args = vec!["import".to_string(), "ftjava".to_string()];
    args.extend(games.iter().map(|g| dir.join(g).display().to_string()));
    args.extend(["--out".to_string(), out.display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = fam(&args);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    // The repairs of the one game with FM.Orders, each at its line.
    for (at, what) in [
        ("Scenario1_Frat_Attack_2player.xml:12:", "give no Volley 3"),
        (
            "Scenario1_Frat_Attack_2player.xml:20:",
            "fireConID names the main drive",
        ),
        ("Scenario1_Frat_Attack_2player.xml:21:", "PD weapon id 9"),
    ] {
        assert!(err.contains(at) && err.contains(what), "no `{what}` at {at}:\n{err}");
    }
    for g in games {
        let stem = Path::new(g).file_stem().unwrap().to_str().unwrap();
        let scenario = out.join(format!("{stem}.toml"));
        let o = fam(&["resolve", scenario.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{g}: {}", text(&o.stderr));
    }
}

/// A fighter group whose carrier has no hangar bay for it keeps flying
/// without a carrier: the GZF says so, a warning names it at its line, and
/// in the game's scenario it flies with its player's first ship, so the
/// scenario still passes fam's checks and the group is a Unit of the battle.
#[test]
fn a_group_without_a_bay_flies_with_its_players_first_ship() {
    let path = fixtures("ftjava").join("lantern-picket.xml");
    let text = std::fs::read_to_string(&path).unwrap();
    let bay = r#" <FighterBay id="15" xSSD="140" ySSD="50" status="Operational"/>"#;
    assert!(text.contains(bay), "the fixture's carrier has its bay");
    let source = SourceFile::new("no-bay.xml", text.replace(bay, ""));
    let imported = ftjava::import(&source, &Options::default());
    assert!(!imported.has_errors(), "{}", errors(&source, &imported));
    let warnings = source.render(&imported.diagnostics, 50);
    assert!(warnings.contains("no free hangar bay"), "{warnings}");
    assert!(
        warnings.contains("has no carrier: it flies with Formation"),
        "{warnings}"
    );
    let group = imported
        .gzf
        .items
        .iter()
        .find_map(|i| match i {
            Item::FighterGroup(g) => Some(g),
            _ => None,
        })
        .expect("the group is kept");
    assert_eq!(group.carrier, None);
    let scenario = imported.scenario.as_ref().expect("a scenario");
    let toml_text = scenario.to_toml("no-bay.xml", "no-bay.gzf");
    assert!(toml_text.contains(&format!("\"{}\"]", group.id)), "{toml_text}");
    let gzf_text = gzf::write(&imported.gzf);
    let mut read = |_: &str| Ok(SourceFile::new("no-bay.gzf", gzf_text.as_str()));
    let loaded = fam::orders::build(
        SourceFile::new("no-bay.toml", toml_text.as_str()),
        Vec::new(),
        &mut read,
        &ParseOptions::default(),
    )
    .unwrap_or_else(|_| panic!("the imported scenario is refused:\n{toml_text}"));
    assert!(loaded.battle.units.iter().any(|u| u.name == group.id && u.is_craft()));
}

// ---- Limits and hostile input (issue 14) ----------------------------------

/// A ship whose numbers the limit tests replace one at a time.
const SMALL_SHIP: &str = r#"<Ship>
    <Name>Test Subject</Name>
    <Mass>40</Mass>
    <PointValue>120</PointValue>
    <MainDrive type="Standard" initialThrust="4"/>
    <Armor totalArmor="2"/>
    <Hull value="40" type="Average" class="Military"/>
    <Weapons>
        <SalvoMissileMagazine id="51" capacity="2"/>
        <SalvoMissileLauncher smmId="51" arcs="(F)"/>
    </Weapons>
</Ship>
"#;

/// A game of two ships ten MU apart, for the game's own numbers.
const SMALL_GAME: &str = r#"<GameEngine name="Limits" turn="2">
    <Player id="1" name="Ada">
        <Ship id="1"><Name>One</Name><Mass>40</Mass><MainDrive type="Standard" initialThrust="4"/><Hull value="40" type="Average"/><Position x="0.0" y="0.0"/></Ship>
    </Player>
    <Player id="2" name="Bo">
        <Ship id="2"><Name>Two</Name><Mass>40</Mass><MainDrive type="Standard" initialThrust="4"/><Hull value="40" type="Average"/><Position x="6.0" y="8.0"/></Ship>
    </Player>
</GameEngine>
"#;

/// `template` with `from` replaced by `to` (which must be there once).
fn edited(template: &str, from: &str, to: &str) -> String {
    assert_eq!(template.matches(from).count(), 1, "`{from}` is in the template once");
    template.replace(from, to)
}

/// Runs `fam import ftjava` on `xml` (written as `name` in a fresh
/// directory) and fails the test if it runs longer than `limit`; returns
/// the exit code (`None`: killed by a signal, such as an abort), standard
/// error, and whether anything was written.
fn import_cli(name: &str, xml: &[u8], limit: std::time::Duration) -> (Option<i32>, String, bool) {
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join(name);
    std::fs::write(&input, xml).expect("write input");
    let out = dir.path().join("out");
    let err_path = dir.path().join("stderr");
    let mut child = Command::new(env!("CARGO_BIN_EXE_fam"))
        .args(["import", "ftjava"])
        .arg(&input)
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&err_path).expect("stderr file"))
        .spawn()
        .expect("run fam");
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for fam") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("fam import ftjava {name} ran longer than {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    (status.code(), stderr, out.exists())
}

/// Asserts a refusal: exit 2, an error at `name:line:` naming `what`, and
/// nothing written.
fn assert_refused_at(name: &str, xml: &[u8], line: usize, what: &str) {
    let (code, err, written) = import_cli(name, xml, std::time::Duration::from_secs(30));
    assert_eq!(code, Some(2), "{name}: exit code\n{err}");
    assert!(
        err.contains(&format!("{name}:{line}:")),
        "{name}: no error at line {line}:\n{err}"
    );
    assert!(err.contains(what), "{name}: the error does not say `{what}`:\n{err}");
    assert!(!written, "{name}: nothing is written when an input has an error");
}

#[test]
fn numbers_beyond_the_import_limits_are_refused_at_their_position() {
    use fam::ftjava::limits;
    // (template, from, to, line, what the message must say).
    let cases: Vec<(&str, &str, String, usize, String)> = vec![
        // Aborted allocating 100 million armour boxes.
        (
            SMALL_SHIP,
            r#"totalArmor="2""#,
            r#"totalArmor="100000000""#.into(),
            6,
            format!("to {}", limits::ARMOUR_BOXES),
        ),
        // Imported as 1 armour box (4294967297 narrowed to a u32).
        (
            SMALL_SHIP,
            r#"totalArmor="2""#,
            r#"totalArmor="4294967297""#.into(),
            6,
            format!("to {}", limits::ARMOUR_BOXES),
        ),
        (
            SMALL_SHIP,
            r#"capacity="2""#,
            r#"capacity="4294967295""#.into(),
            9,
            format!("to {}", limits::MAGAZINE_CAPACITY),
        ),
        (
            SMALL_SHIP,
            r#"initialThrust="4""#,
            r#"initialThrust="5000""#.into(),
            5,
            format!("to {}", limits::THRUST),
        ),
        (
            SMALL_SHIP,
            "<PointValue>120<",
            "<PointValue>4294967296<".into(),
            4,
            format!("to {}", limits::POINT_VALUE),
        ),
        // 100 million × 50 % overflowed the hull-box arithmetic.
        (
            SMALL_SHIP,
            r#"value="40" type="Average""#,
            r#"value="100000000" type="Super""#.into(),
            7,
            format!("to {}", limits::MASS),
        ),
        (
            SMALL_SHIP,
            r#"type="Average" class="Military""#,
            r#"type="Custom" totalHullBoxes="100000001" class="Military""#.into(),
            7,
            format!("to {}", limits::HULL_BOXES),
        ),
        (
            SMALL_SHIP,
            "<Mass>40<",
            "<Mass>1e300<".into(),
            3,
            "far out of range".into(),
        ),
        // Became Exchange 1 without a word.
        (
            SMALL_GAME,
            r#"turn="2""#,
            r#"turn="4294967297""#.into(),
            1,
            format!("to {}", limits::TURN),
        ),
        // Became a range of 4294967295 MU without a word.
        (
            SMALL_GAME,
            r#"x="6.0""#,
            r#"x="1e300""#.into(),
            6,
            format!("to {}", limits::DISTANCE),
        ),
    ];
    for (k, (template, from, to, line, what)) in cases.iter().enumerate() {
        let xml = edited(template, from, to);
        assert_refused_at(&format!("limit-{k}.xml"), xml.as_bytes(), *line, what);
    }
}

#[test]
fn a_ship_at_every_limit_imports_reads_back_and_round_trips() {
    use fam::ftjava::limits;
    let xml = format!(
        r#"<Ship>
    <Name>At The Limits</Name>
    <Mass>{mass}</Mass>
    <PointValue>{points}</PointValue>
    <MainDrive type="Standard" initialThrust="{thrust}" currentThrust="1"/>
    <Armor totalArmor="{armour}" remainingArmor="1"/>
    <Hull value="{mass}" type="Custom" class="Merchant" totalHullBoxes="{hull}" remainingHullBoxes="3"/>
    <Weapons>
        <SalvoMissileMagazine id="51" capacity="{loads}"/>
        <SalvoMissileLauncher smmId="51" arcs="(F)"/>
    </Weapons>
</Ship>
"#,
        mass = limits::MASS,
        points = limits::POINT_VALUE,
        thrust = limits::THRUST,
        armour = limits::ARMOUR_BOXES,
        hull = limits::HULL_BOXES,
        loads = limits::MAGAZINE_CAPACITY,
    );
    let source = SourceFile::new("at-the-limits.xml", xml.as_str());
    let imported = ftjava::import(&source, &Options::default());
    assert!(!imported.has_errors(), "{}", errors(&source, &imported));
    let s = ship(&imported.gzf, "At The Limits");
    assert_eq!(s.armour_boxes(), limits::ARMOUR_BOXES as usize);
    assert_eq!(s.hull_boxes(), limits::HULL_BOXES as usize);
    assert_eq!(s.hull_remaining(), 3);
    // Crew factors by the design rules: a merchant has 1 per 50 mass.
    let lost = s.hull_boxes() - s.hull_remaining();
    let crossed_crew = gzf::design::crew_factor_boxes(s.hull_boxes(), limits::MASS as usize / 50)
        .iter()
        .filter(|&&b| b <= lost)
        .count();
    assert_eq!(s.crew_factors(), limits::MASS as usize / 50 - crossed_crew);
    assert_round_trip("at-the-limits.xml", &imported);
}

/// Placing crew factors took time quadratic in hull boxes: this merchant
/// ran for about an hour. Now it is refused by the mass limit at once.
#[test]
fn a_merchant_of_absurd_mass_is_refused_at_once() {
    let xml = edited(
        &edited(SMALL_SHIP, "<Mass>40<", "<Mass>62902409<"),
        r#"value="40" type="Average" class="Military""#,
        r#"value="62902409" type="Average" class="Merchant""#,
    );
    let (code, err, written) = import_cli("merchant.xml", xml.as_bytes(), std::time::Duration::from_secs(20));
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("merchant.xml:3:") && err.contains("merchant.xml:7:"),
        "{err}"
    );
    assert!(
        !err.contains("no hull value"),
        "a refused value is not reported as missing:\n{err}"
    );
    assert!(!written);
}

#[test]
fn characters_no_record_can_hold_are_refused_at_their_reference() {
    // (what is in the name, column of the error, what the message says).
    let cases: [(&[u8], usize, &str); 5] = [
        // Beyond Unicode: roxmltree reads it as U+FFFD; the record then
        // failed its own read-back with an unpositioned exit 1.
        (b"Odd &#x110000; name", 15, "names no character"),
        (b"Odd &#xD800; name", 15, "names no character"),
        (b"Odd &#x80; name", 15, "U+0080"),
        (b"Odd &#xFFFD; name", 15, "U+FFFD"),
        (b"Odd \xff name", 15, "not UTF-8"),
    ];
    for (k, (name, column, what)) in cases.iter().enumerate() {
        let mut xml = b"<Ship>\n    <Name>".to_vec();
        xml.extend_from_slice(name);
        xml.extend_from_slice(SMALL_SHIP.split_once("Test Subject").expect("a name").1.as_bytes());
        let file = format!("chars-{k}.xml");
        assert_refused_at(&file, &xml, 2, what);
        let (_, err, _) = import_cli(&file, &xml, std::time::Duration::from_secs(30));
        assert!(
            err.contains(&format!("{file}:2:{column}")),
            "{file}: column {column}:\n{err}"
        );
    }
}

/// `&#xA;` and `&#xD;` put line breaks where the record has none: they
/// added a field to the record (a group id) or failed its read-back.
#[test]
fn line_breaks_written_as_references_cannot_change_the_records_lines() {
    let path = fixtures("ftjava").join("lantern-picket.xml");
    let game = std::fs::read_to_string(&path).unwrap();
    let game = edited(
        &game,
        r#"<FighterGroup id="101">"#,
        r#"<FighterGroup id="101&#xA;Thrust-Rating: 5">"#,
    );
    let source = SourceFile::new("injected.xml", game.as_str());
    let imported = ftjava::import(&source, &Options::default());
    assert!(!imported.has_errors(), "{}", errors(&source, &imported));
    let parsed = reparse(&imported.gzf);
    assert!(
        parsed.diagnostics.is_empty(),
        "the record reads back without a word: {:?}",
        parsed.diagnostics
    );
    assert_eq!(parsed.file, imported.gzf, "the record reads back as imported");

    let ship_xml = edited(
        SMALL_SHIP,
        "<Weapons>",
        "<Orders>one&#xD;two&#xA;three</Orders>\n    <Weapons>",
    );
    let source = SourceFile::new("orders.xml", ship_xml.as_str());
    let imported = ftjava::import(&source, &Options::default());
    assert!(!imported.has_errors(), "{}", errors(&source, &imported));
    let orders = ship(&imported.gzf, "Test Subject")
        .meta
        .iter()
        .find(|m| m.name == "Orders")
        .expect("orders");
    assert_eq!(orders.lines, ["one", "two", "three"]);
    assert_round_trip("orders.xml", &imported);
}

#[test]
fn a_game_of_more_ships_than_the_limit_is_refused_at_the_first_beyond_it() {
    use fam::ftjava::limits;
    // Every ship has the same name: the warnings for the renamed ones do not
    // hide the error.
    let one = r#"<Ship><Name>Same</Name><Mass>10</Mass><MainDrive type="Standard" initialThrust="4"/><Hull value="10" type="Average"/></Ship>"#;
    let mut xml = String::from("<GameEngine name=\"Crowd\" turn=\"1\">\n<Player id=\"1\" name=\"Ada\">\n");
    for _ in 0..=limits::SHIPS {
        xml.push_str(one);
        xml.push('\n');
    }
    xml.push_str("</Player>\n<Player id=\"2\" name=\"Bo\">\n");
    xml.push_str(one);
    xml.push_str("\n</Player>\n</GameEngine>\n");
    // The first ship is on line 3: the one beyond the limit on line 3 + SHIPS.
    assert_refused_at(
        "crowd.xml",
        xml.as_bytes(),
        3 + limits::SHIPS,
        &format!("more than {} ships", limits::SHIPS),
    );
}

/// A GZF ship beyond the limits cannot go to FTJava and come back: the
/// export refuses it at the field (mass 4 000 000 000 overflowed the
/// hull-box arithmetic).
#[test]
fn export_refuses_a_ship_an_import_could_not_read_back() {
    let dir = tempfile::tempdir().expect("temp dir");
    let record = dir.path().join("giant.gzf");
    std::fs::write(
        &record,
        "Profile: FB1\n\nShip:             Giant\nHull-Integrity:   Super\nMass:             4000000000\nThrust-Rating:    4\nDamage-Track:     OOO* OOO OOO OOO\n",
    )
    .unwrap();
    let o = fam(&["export", "ftjava", record.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(err.contains("giant.gzf:5:"), "the error is at the Mass line:\n{err}");
    assert!(err.contains(&fam::ftjava::limits::MASS.to_string()), "{err}");
    assert!(o.stdout.is_empty());
}

// ---- The shared data: later fleet books -------------------------------------

/// The Kra'Vak battleship sample imports with no error and no inert
/// system, its record reads back clean with inert systems refused (as
/// `fam check` reads it without `--inert-unknown-systems`), and it carries
/// what the FTJava file lists: six K-guns, six MKP packs, six scatterguns
/// and an advanced drive.
#[test]
fn the_kravak_sample_imports_as_a_ship_fam_plays() {
    let Some(dir) = data("fleetbook2-3-samples") else {
        return;
    };
    let (source, imported) = import(&dir.join("KraVak_BB_KiaKyu.xml"));
    assert!(!imported.has_errors(), "{}", errors(&source, &imported));
    let s = imported.gzf.ships().next().expect("a ship");
    let xml = std::fs::read_to_string(dir.join("KraVak_BB_KiaKyu.xml")).unwrap();
    let elements = |name: &str| xml.matches(&format!("<{name} ")).count();
    let k_guns = s
        .systems
        .iter()
        .filter(|x| matches!(x.kind, SystemKind::KGun { .. }))
        .count();
    assert_eq!(k_guns, elements("KineticGun"));
    assert_eq!(count(s, &SystemKind::Mkp), elements("MultipleKineticPenetratorPack"));
    assert_eq!(count(s, &SystemKind::Scattergun), elements("Scattergun"));
    assert_eq!(count(s, &SystemKind::Scattergun), 6);
    assert!(s.advanced_drive);
    assert!(!s.systems.iter().any(|x| matches!(x.kind, SystemKind::Inert(_))));
    let strict = gzf::parse(&gzf::write(&imported.gzf), &ParseOptions::default());
    assert!(!strict.has_errors());
}

/// A fleet book brings fighter groups with no carrier (and the library its
/// gunboat squadrons): a battle of one ship from the same file loads, the
/// groups stay out of it, and the ship fights (readings F29).
#[test]
fn a_fleet_book_battle_of_one_ship_leaves_its_carrierless_groups_out() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = vec![("tessaly-gunboats.gzf", "TFP Lantern Wake", "tessaly-carriers.gzf")];
    if let Some(book) = data("fleetbook1/New_Anglian_Confederation") {
        let out = fam(&[
            "import",
            "ftjava",
            "--out",
            dir.path().to_str().unwrap(),
            book.join("FleetBook1_NAC.xml").to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        files.push(("FleetBook1_NAC.gzf", "Victoria", ""));
    }
    for f in ["tessaly-gunboats.gzf", "tessaly-carriers.gzf", "meridian-compact.gzf"] {
        std::fs::copy(repo().join("ssd").join(f), dir.path().join(f)).unwrap();
    }
    for (groups_file, ship, ship_file) in files {
        let gzf: Vec<String> = [groups_file, ship_file, "meridian-compact.gzf"]
            .iter()
            .filter(|f| !f.is_empty())
            .map(|f| format!("\"{f}\""))
            .collect();
        let scenario = format!(
            "gzf = [{}]\n[sides]\nA = [\"One\"]\nB = [\"Cruiser\"]\n[formations]\nOne = [\"{ship}\"]\nCruiser = [\"MCS Clear Heading\"]\n",
            gzf.join(", ")
        );
        let path = dir.path().join("one.toml");
        std::fs::write(&path, scenario).unwrap();
        let out = fam(&["batch", path.to_str().unwrap(), "--runs", "20", "--json"]);
        assert!(out.status.success(), "{groups_file}: {}", text(&out.stderr));
        let json: serde_json::Value = serde_json::from_str(&text(&out.stdout)).unwrap();
        let names: Vec<&str> = json["units"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, [ship, "MCS Clear Heading"], "{groups_file}");
    }
}

// ---- Attribute-heavy documents, long lists of problems, lone coordinates ----

/// A `Ship` of as many attributes `a0="" a1="" …` as fit in `bytes` bytes.
fn crowded_ship(bytes: usize) -> String {
    let mut xml = String::from("<?xml version=\"1.0\"?>\n<Ship");
    let mut k = 0;
    loop {
        let a = format!(" a{k}=\"\"");
        if xml.len() + a.len() + 3 > bytes {
            break;
        }
        xml.push_str(&a);
        k += 1;
    }
    xml.push_str("/>\n");
    xml
}

/// The parser compares each attribute with every earlier one of its
/// element: a 1 MiB element of 105 000 attributes took 57 s of CPU, a
/// 16 MiB one would have taken hours. An element past the limit is now
/// refused at its first attribute beyond it, before the parser runs.
#[test]
fn an_element_of_thousands_of_attributes_is_refused_at_once() {
    use fam::ftjava::limits;
    // `<Ship` on line 2, then ` aK=""`: six characters each for K < 10,
    // seven below 100; attribute 0 starts at column 7.
    let beyond = limits::ATTRIBUTES; // the first attribute past the limit
    assert!((10..100).contains(&beyond));
    let column = 7 + 6 * 10 + 7 * (beyond - 10);
    let largest = usize::try_from(fam::files::MAX_INPUT_BYTES).unwrap();
    for (name, bytes) in [("crowded-1m.xml", 1 << 20), ("crowded-16m.xml", largest)] {
        let xml = crowded_ship(bytes);
        let started = std::time::Instant::now();
        let imported = ftjava::import(&SourceFile::new(name, xml.as_str()), &Options::default());
        let took = started.elapsed();
        assert!(took < std::time::Duration::from_secs(2), "{name}: {took:?}");
        assert_eq!(imported.diagnostics.len(), 1, "{name}");
        let d = &imported.diagnostics[0];
        assert!(d.is_error());
        assert_eq!(
            &xml[d.span.clone()],
            format!("a{beyond}"),
            "{name}: at the first beyond"
        );
        // The command line: exit 2 at that place, nothing written.
        let (code, err, written) = import_cli(name, xml.as_bytes(), std::time::Duration::from_secs(20));
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains(&format!("{name}:2:{column}")), "{err}");
        assert!(
            err.contains(&format!(
                "element `Ship` has more than {} attributes",
                limits::ATTRIBUTES
            )),
            "{err}"
        );
        assert!(!written);
    }
}

/// The scan that counts attributes reads the XML as the parser does: what
/// looks like attributes in comments, CDATA sections, processing
/// instructions and quoted values (`=` and `>` included) is not counted.
#[test]
fn what_only_looks_like_attributes_is_not_counted() {
    use fam::ftjava::limits;
    let many = |sep: &str| {
        (0..=limits::ATTRIBUTES)
            .map(|k| format!("b{k}=\"\""))
            .collect::<Vec<_>>()
            .join(sep)
    };
    let xml = edited(
        SMALL_SHIP,
        "<Weapons>",
        &format!(
            "<!-- <X {c}> -->\n    <?note {c}?>\n    <Orders><![CDATA[<Y {c}>]]></Orders>\n    <Weapons>",
            c = many(" ")
        ),
    );
    // A single-quoted value may hold `"`, `=` and `>`.
    let value = many(" > ");
    let xml = edited(
        &xml,
        r#"<Armor totalArmor="2"/>"#,
        &format!(r#"<Armor totalArmor="2" xSSD='{value}'/>"#),
    );
    let source = SourceFile::new("looks.xml", xml.as_str());
    let imported = ftjava::import(&source, &Options::default());
    assert!(!imported.has_errors(), "{}", errors(&source, &imported));
    assert_eq!(
        ship(&imported.gzf, "Test Subject")
            .meta
            .iter()
            .find(|m| m.name == "Orders")
            .map(|m| m.lines.len()),
        Some(1)
    );
    // With the same attributes written on an element: refused.
    let crowded = edited(
        SMALL_SHIP,
        "<Weapons>",
        &format!("<Designer {}/>\n    <Weapons>", many(" ")),
    );
    let imported = ftjava::import(&SourceFile::new("crowded.xml", crowded.as_str()), &Options::default());
    assert_eq!(imported.diagnostics.len(), 1);
    assert!(
        imported.diagnostics[0]
            .message
            .contains("element `Designer` has more than")
    );
}

/// 16 MiB of elements at the attribute limit, each attribute unknown: the
/// parser's work is bounded by the limit, fam's own per attribute is
/// constant, and the millions of problems are counted, not kept.
#[test]
fn a_document_of_elements_at_the_attribute_limit_is_read_in_linear_time() {
    use fam::ftjava::limits;
    let attributes: String = (0..limits::ATTRIBUTES).map(|k| format!(" a{k}=\"\"")).collect();
    let control = format!("<FireControl{attributes}/>");
    let largest = usize::try_from(fam::files::MAX_INPUT_BYTES).unwrap();
    let mut xml = String::from("<GameEngine name=\"Crowd\" turn=\"1\">\n<Player id=\"1\" name=\"A\">\n");
    let tail = "</Player>\n</GameEngine>\n";
    let mut controls = 0;
    'ships: for k in 0.. {
        let ship = format!(
            "<Ship id=\"{k}\"><Name>S{k}</Name><Mass>10</Mass><MainDrive type=\"Standard\" initialThrust=\"4\"/><Hull value=\"10\" type=\"Average\"/><Electronics>"
        );
        let end = "</Electronics></Ship>\n";
        if xml.len() + ship.len() + control.len() + end.len() + tail.len() > largest {
            break;
        }
        xml.push_str(&ship);
        for _ in 0..limits::SYSTEMS - 10 {
            if xml.len() + control.len() + end.len() + tail.len() > largest {
                xml.push_str(end);
                break 'ships;
            }
            xml.push_str(&control);
            controls += 1;
        }
        xml.push_str(end);
    }
    xml.push_str(tail);
    assert!(xml.len() <= largest && xml.len() > largest - 1000);
    let started = std::time::Instant::now();
    let imported = ftjava::import(&SourceFile::new("wide.xml", xml.as_str()), &Options::default());
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(20), "{took:?}");
    let found = controls * limits::ATTRIBUTES;
    assert_eq!(imported.diagnostics.len(), limits::DIAGNOSTICS + 1);
    let last = imported.diagnostics.last().unwrap();
    assert!(last.is_error() && last.whole_file, "{last:?}");
    assert!(
        last.message.starts_with(&format!(
            "wide.xml: {} more problem(s) not listed ({found} error(s) and 0 warning(s)",
            found - limits::DIAGNOSTICS
        )),
        "{}",
        last.message
    );
}

/// A 200 KB upload of 20 000 mistakes was answered with 20 002 diagnostics
/// (4.8 MB): an import lists the first 100, errors first, and one line
/// counting the rest, on the command line as for `fam serve`.
#[test]
fn an_import_lists_at_most_a_hundred_problems_and_counts_the_rest() {
    use fam::ftjava::limits;
    let bogus = "<Bogus/>".repeat(20_000);
    let xml = edited(SMALL_SHIP, "<Weapons>", &format!("{bogus}<Weapons>"));
    let imported = ftjava::import(&SourceFile::new("bogus.xml", xml.as_str()), &Options::default());
    let (last, listed) = imported.diagnostics.split_last().unwrap();
    assert_eq!(listed.len(), limits::DIAGNOSTICS);
    // The first hundred, in document order.
    let first = xml.find("<Bogus/>").unwrap() + 1;
    for (k, d) in listed.iter().enumerate() {
        assert!(d.is_error() && d.message.contains("`Bogus`"), "{d:?}");
        assert_eq!(d.span.start, first + 8 * k);
    }
    assert!(last.is_error() && last.whole_file);
    assert!(
        last.message
            .contains("19900 more problem(s) not listed (20000 error(s)"),
        "{}",
        last.message
    );

    let (code, err, written) = import_cli("bogus.xml", xml.as_bytes(), std::time::Duration::from_secs(20));
    assert_eq!(code, Some(2));
    assert!(!written);
    assert_eq!(
        err.matches("error: element `Bogus` in a Ship").count(),
        limits::DIAGNOSTICS,
        "{err}"
    );
    assert!(err.contains("bogus.xml: 19900 more problem(s) not listed"), "{err}");
    assert!(err.len() < 100_000, "{} bytes of messages", err.len());

    // Left out with --skip-unmapped, they are warnings: the count is one
    // too, and the ship imports.
    let skipped = ftjava::import(
        &SourceFile::new("bogus.xml", xml.as_str()),
        &Options { skip_unmapped: true },
    );
    assert!(!skipped.has_errors());
    assert_eq!(skipped.diagnostics.len(), limits::DIAGNOSTICS + 1);
    let last = skipped.diagnostics.last().unwrap();
    assert!(
        !last.is_error() && last.message.contains("19900 more problem(s)"),
        "{last:?}"
    );
    assert_eq!(skipped.gzf.ships().count(), 1);
}

/// `<Position x="3.0"/>` gave a fighter group a record that did not read
/// back (exit 1) and a ship a `Position-X:` alone: a `Position` needs both
/// coordinates (readings I46), or it is refused at the element, exit 2.
#[test]
fn a_position_with_one_coordinate_is_refused_at_the_position() {
    let ship = edited(SMALL_GAME, r#"<Position x="6.0" y="8.0"/>"#, r#"<Position x="6.0"/>"#);
    assert_refused_at("ship-x.xml", ship.as_bytes(), 6, "a `Position` without `y`");
    let lone = edited(SMALL_SHIP, "<Weapons>", "<Position y=\"-2.5\"/>\n    <Weapons>");
    assert_refused_at("lone-y.xml", lone.as_bytes(), 8, "a `Position` without `x`");
    let game = std::fs::read_to_string(fixtures("ftjava").join("lantern-picket.xml")).unwrap();
    let group = edited(&game, r#"<Position x="1.0" y="1.0"/>"#, r#"<Position y="1.0"/>"#);
    assert_refused_at("group-y.xml", group.as_bytes(), 97, "a `Position` without `x`");
    let neither = edited(&game, r#"<Position x="1.0" y="1.0"/>"#, "<Position/>");
    assert_refused_at(
        "group-none.xml",
        neither.as_bytes(),
        97,
        "a `Position` without `x` or `y`",
    );
    // Both, as FTJava writes them: imported (the fixture itself).
    let (code, err, written) = import_cli("lantern.xml", game.as_bytes(), std::time::Duration::from_secs(20));
    assert_eq!(code, Some(0), "{err}");
    assert!(written);
}

/// A thousand ships of a thousand systems each passed every per-element
/// limit and wrote a record the GZF reader refused ("does not read back",
/// exit 1): the element that takes the record past the reader's limits is
/// refused, exit 2.
#[test]
fn a_document_too_large_for_one_record_is_refused_at_the_element_beyond() {
    let ship = |k: usize, inside: &str| {
        format!("<Ship id=\"{k}\"><Name>S{k}</Name><MainDrive type=\"Standard\" initialThrust=\"4\"/>{inside}</Ship>\n")
    };
    let game = |ships: &[String]| {
        format!(
            "<GameEngine name=\"Many\" turn=\"1\">\n<Player id=\"1\" name=\"A\">\n{}</Player>\n</GameEngine>\n",
            ships.concat()
        )
    };
    // Blocks: the header, the scenario, then a ship and its 990 screens.
    let screens = format!(
        "<Mass>10</Mass><Hull value=\"10\" type=\"Average\"/><Defenses>{}</Defenses>",
        "<Screen/>".repeat(990)
    );
    let per_ship = 991;
    let fit = (gzf::MAX_BLOCKS - 2) / per_ship;
    let ships: Vec<String> = (0..=fit).map(|k| ship(k, &screens)).collect();
    assert_refused_at(
        "blocks.xml",
        game(&ships).as_bytes(),
        3 + fit,
        &format!("more than {} blocks", gzf::MAX_BLOCKS),
    );
    // Check boxes: hull boxes at the import's limit, as many ships as fit.
    let hull = format!(
        "<Mass>{mass}</Mass><Hull value=\"{mass}\" type=\"Custom\" class=\"Merchant\" totalHullBoxes=\"{}\"/>",
        ftjava::limits::HULL_BOXES,
        mass = ftjava::limits::MASS,
    );
    let fit = gzf::MAX_FILE_BOXES / ftjava::limits::HULL_BOXES as usize;
    let ships: Vec<String> = (0..=fit).map(|k| ship(k, &hull)).collect();
    assert_refused_at(
        "boxes.xml",
        game(&ships).as_bytes(),
        3 + fit,
        &format!("more than {} check boxes", gzf::MAX_FILE_BOXES),
    );
    // One ship fewer: imported, and the record reads back.
    let xml = game(&ships[..fit]);
    let source = SourceFile::new("fits.xml", xml.as_str());
    let imported = ftjava::import(&source, &Options::default());
    assert!(!imported.has_errors(), "{}", errors(&source, &imported));
    assert!(!reparse(&imported.gzf).has_errors(), "the record reads back");
}

/// FTJava point-defence orders keep every weapon fam's own orders accept
/// under `pd`: a scattergun listed beside the class-1 beam and the PDS
/// (the import once dropped it, with a warning, where `pd = [...]` took
/// it).
#[test]
fn point_defence_orders_keep_a_scattergun_as_fams_own_orders_do() {
    let text = std::fs::read_to_string(fixtures("ftjava").join("lantern-picket.xml"))
        .expect("the fixture")
        .replacen(
            r#"<FM.Fire fireConID="0" target="PD" weaponIDs="11,12"/>"#,
            r#"<FM.Fire fireConID="0" target="PD" weaponIDs="11,12,16"/>"#,
            1,
        )
        .replacen(
            r#"<FighterBay id="15" xSSD="140" ySSD="50" status="Operational"/>"#,
            r#"<FighterBay id="15" xSSD="140" ySSD="50" status="Operational"/><Scattergun id="16" xSSD="150" ySSD="60" status="Operational"/>"#,
            1,
        );
    let source = SourceFile::new("scatter.xml", text);
    let imported = ftjava::import(&source, &Options::default());
    assert!(!imported.has_errors(), "{}", errors(&source, &imported));
    let warnings = source.render(&imported.diagnostics, 50);
    assert!(!warnings.contains("PD weapon id 16"), "{warnings}");
    let scenario = imported.scenario.as_ref().expect("a scenario");
    let p = plots(&scenario.to_toml("scatter.xml", "scatter.gzf"));
    let pd: Vec<i64> = p["MCS Quiet Reckoner"][0]["pd"][0]["weapons"]
        .as_array()
        .expect("pd weapons")
        .iter()
        .map(|w| w.as_integer().expect("a number"))
        .collect();
    assert_eq!(pd.len(), 3, "the class-1 beam, the PDS and the scattergun: {pd:?}");
}
