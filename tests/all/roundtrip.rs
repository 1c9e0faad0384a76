//! Round trips: parse → write → parse gives an equal model, and writing is
//! idempotent, for every shipped record and fixture; plus a property test
//! over generated models.

use fam::gzf::{self, ParseOptions, model::*};
use proptest::prelude::*;

use crate::support::{files_with, fixtures, repo};

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
        Just(SystemKind::Missile {
            warhead: Warhead::Emp
        }),
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
        (0u32..9, 0u32..3),
        prop::option::of(check_boxes()),
        track(true),
        prop::collection::vec(system(), 0..6),
        status(),
    )
        .prop_map(
            |(name, class, mass, (thrust, lost), armour, damage_track, systems, status)| Ship {
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
