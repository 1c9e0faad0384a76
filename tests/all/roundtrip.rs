//! Round trips: parse → write → parse gives an equal model, and writing is
//! idempotent, for every shipped record and fixture; plus a property test
//! over generated models.

use fam::gzf::{self, ParseOptions};
use fam::model::*;
use proptest::prelude::*;

use crate::support::{fam, files_with, fixtures, repo, text};

fn round_trip(name: &str, text: &str) {
    let options = ParseOptions {
        inert_unknown_systems: true,
    };
    let first = gzf::parse(text, &options);
    assert!(!first.has_errors(), "{name}: {:?}", first.diagnostics);
    let written = gzf::write(&first.file);
    let second = gzf::parse(&written, &options);
    assert!(
        !second.has_errors(),
        "{name}: written form does not parse: {:?}\n{written}",
        second.diagnostics
    );
    assert_eq!(first.file, second.file, "{name}: model changed in a round trip");
    assert_eq!(gzf::write(&second.file), written, "{name}: writing is not idempotent");
}

#[test]
fn every_shipped_record_and_valid_fixture_round_trips() {
    let mut paths = files_with(&repo().join("ssd"), "gzf");
    assert!(paths.len() >= 3, "ssd/ holds the ship library");
    paths.extend(files_with(&fixtures("ok"), "gzf"));
    for path in paths {
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        round_trip(&path.display().to_string(), &text);
    }
}

#[test]
fn every_shipped_record_is_in_the_form_fam_ssd_fmt_writes() {
    let paths = files_with(&repo().join("ssd"), "gzf");
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["ssd", "fmt", "--out", dir.path().to_str().unwrap()];
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    args.extend(names.iter().map(String::as_str));
    let o = fam(&args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    for path in &paths {
        let formatted = std::fs::read(dir.path().join(path.file_name().unwrap())).unwrap();
        assert!(
            std::fs::read(path).unwrap() == formatted,
            "{} is not in canonical form: run `fam ssd fmt --in-place {}`",
            path.display(),
            path.display()
        );
    }
}

fn check_boxes() -> impl Strategy<Value = Vec<CheckBox>> {
    prop::collection::vec(prop_oneof![Just(CheckBox::OPEN), Just(CheckBox::CROSSED)], 1..8)
}

fn track(crew: bool) -> impl Strategy<Value = Vec<Vec<CheckBox>>> {
    let cell = if crew {
        prop_oneof![Just(CheckBox::OPEN), Just(CheckBox::CROSSED), Just(CheckBox::CREW)].boxed()
    } else {
        prop_oneof![Just(CheckBox::OPEN), Just(CheckBox::CROSSED)].boxed()
    };
    prop::collection::vec(prop::collection::vec(cell, 1..12), 1..5)
}

fn name() -> impl Strategy<Value = String> {
    "[A-Z][A-Za-z0-9]{0,6}( [A-Za-z0-9.'-]{1,8}){0,2}"
}

fn status() -> impl Strategy<Value = Status> {
    (
        prop::option::of(prop_oneof![Just(Activity::Active), Just(Activity::Inactive)]),
        prop::option::of(prop_oneof![
            Just(DamageState::Damaged),
            Just(DamageState::Repaired),
            Just(DamageState::Destroyed)
        ]),
        any::<bool>(),
    )
        .prop_map(|(activity, damage, powerless)| Status {
            activity,
            damage,
            powerless,
            ..Status::default()
        })
}

fn system_kind() -> impl Strategy<Value = SystemKind> {
    prop_oneof![
        (1u8..=5).prop_map(|class| SystemKind::Beam { class }),
        Just(SystemKind::Pds),
        Just(SystemKind::FireControl),
        Just(SystemKind::ScreenGenerator),
        Just(SystemKind::PulseTorpedo {
            range: TorpedoRange::Standard
        }),
        Just(SystemKind::NeedleBeam),
        Just(SystemKind::SubmunitionPack),
        Just(SystemKind::Smr),
        Just(SystemKind::Adfc),
        Just(SystemKind::HangarBay),
        Just(SystemKind::PowerCore),
        Just(SystemKind::Ftl),
        Just(SystemKind::Missile { warhead: Warhead::Emp }),
    ]
}

fn system() -> impl Strategy<Value = System> {
    (
        system_kind(),
        prop::sample::subsequence(Arc::FB1.to_vec(), 0..=6),
        prop::option::of(0u32..50),
        status(),
        prop::option::of(check_boxes()),
        prop::option::of(prop::collection::vec("[a-z][a-z ]{0,12}[a-z]", 1..3)),
    )
        .prop_map(|(kind, mut arcs, mass, status, rounds, log)| {
            arcs.sort();
            let mut s = System::new(kind);
            s.arcs = arcs;
            s.mass = mass;
            s.status = status;
            s.rounds = rounds;
            if let Some(lines) = log {
                s.meta.push(Meta {
                    name: "Log".into(),
                    lines,
                });
            }
            s
        })
}

fn ship() -> impl Strategy<Value = Ship> {
    (
        name(),
        prop::option::of(name()),
        prop::option::of(1u32..300),
        (0u32..9, 0u32..3, any::<bool>()),
        prop::option::of(check_boxes()),
        track(true),
        prop::collection::vec(system(), 0..6),
        status(),
    )
        .prop_map(
            |(name, class, mass, (thrust, lost, advanced_drive), armour, damage_track, systems, status)| Ship {
                name,
                class,
                hull_integrity: Some(HullIntegrity::Average),
                ship_type: Some(ShipType::Military),
                hull_class: None,
                streamlining: None,
                mass,
                cost: None,
                fleet: None,
                status,
                thrust,
                original_thrust: thrust + lost,
                advanced_drive,
                armour: armour.map(Armour::Boxes),
                damage_track,
                meta: Vec::new(),
                systems,
            },
        )
}

proptest! {
    #[test]
    fn generated_models_survive_write_and_parse(ships in prop::collection::vec(ship(), 1..4)) {
        let mut file = GzfFile::default();
        let mut seen = std::collections::BTreeSet::new();
        for s in ships {
            if seen.insert(s.name.to_ascii_lowercase()) {
                file.items.push(Item::Ship(s));
            }
        }
        let written = gzf::write(&file);
        let parsed = gzf::parse(&written, &ParseOptions::default());
        prop_assert!(!parsed.has_errors(), "{:?}\n{}", parsed.diagnostics, written);
        prop_assert_eq!(&parsed.file, &file);
        prop_assert_eq!(gzf::write(&parsed.file), written);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Whatever the bytes, parsing returns (no panic) and every diagnostic
    /// renders with a position inside the file.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let source = fam::diag::SourceFile::from_bytes("junk.gzf", &bytes);
        let parsed = gzf::parse(&source.text, &ParseOptions::default());
        let rendered = source.render(&parsed.diagnostics, 1000);
        for d in &parsed.diagnostics {
            prop_assert!(d.span.start <= source.text.len());
        }
        prop_assert_eq!(parsed.diagnostics.is_empty(), rendered.is_empty());
    }

    /// Valid files with one line cut, duplicated or mangled still parse
    /// without panicking.
    #[test]
    fn mangled_library_files_never_panic(file_pick in 0usize..3, line_pick in 0usize..400, action in 0u8..4, junk in "[ -~]{0,12}") {
        let paths = files_with(&repo().join("ssd"), "gzf");
        let text = std::fs::read_to_string(&paths[file_pick % paths.len()]).unwrap();
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        let i = line_pick % lines.len();
        match action {
            0 => { lines.remove(i); }
            1 => { let l = lines[i].clone(); lines.insert(i, l); }
            2 => lines[i].push_str(&junk),
            _ => lines[i] = junk.clone(),
        }
        let mangled = lines.join("\n");
        let parsed = gzf::parse(&mangled, &ParseOptions::default());
        let source = fam::diag::SourceFile::new("m.gzf", mangled);
        let _ = source.render(&parsed.diagnostics, 1000);
    }
}

#[test]
fn the_ship_library_uses_every_kind_the_issue_lists() {
    use std::collections::BTreeSet;
    let mut kinds = BTreeSet::new();
    let mut beam_classes = BTreeSet::new();
    let mut armoured = false;
    let mut profiles = BTreeSet::new();
    let mut bases = 0;
    let mut ships = 0;
    for path in files_with(&repo().join("ssd"), "gzf") {
        let text = std::fs::read_to_string(&path).unwrap();
        let parsed = gzf::parse(&text, &ParseOptions::default());
        assert!(!parsed.has_errors(), "{}", path.display());
        profiles.insert(parsed.file.profile.name());
        bases += parsed.file.bases().count();
        for ship in parsed.file.ships() {
            ships += 1;
            armoured |= ship.armour.is_some();
            for s in &ship.systems {
                if let SystemKind::Beam { class } = s.kind {
                    beam_classes.insert(class);
                }
                kinds.insert(s.kind.name(Profile::Fb1));
            }
        }
    }
    assert!(ships >= 16, "{ships} ships");
    assert!(bases >= 1);
    assert_eq!(profiles.len(), 2, "both profiles");
    assert!(armoured);
    assert!(beam_classes.len() >= 3, "{beam_classes:?}");
    for kind in [
        "Screen Generator",
        "Pulse Torpedo",
        "Needle Beam",
        "Submunition Pack",
        "SML",
        "SMM",
        "SMR",
        "Missile",
        "PDS",
        "ADFC",
        "FCS",
        "Hangar Bay",
        "Command Bridge",
        "Power Core",
        "LSS",
    ] {
        assert!(kinds.contains(kind), "no {kind} in ssd/");
    }
}

#[test]
fn generic_systems_before_any_ship_load_as_generic_definitions() {
    let text = "Profile: FB1\n\nSystem: FCS\n\nSystem: Class 2 Battery\nFiring-Arc: F\n\nShip: A\nThrust-Rating: 4\nDamage-Track: O O O O\n\nSystem: PDS\n";
    let parsed = gzf::parse(text, &ParseOptions::default());
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let items = &parsed.file.items;
    assert!(matches!(&items[0], Item::System(s) if s.kind == SystemKind::FireControl));
    assert!(matches!(&items[1], Item::System(s) if s.kind == SystemKind::Beam { class: 2 }));
    let Item::Ship(ship) = &items[2] else {
        panic!("third item is the ship")
    };
    assert_eq!(ship.systems.len(), 1);
    assert_eq!(ship.systems[0].kind, SystemKind::Pds);
}
