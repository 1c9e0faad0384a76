//! Advanced screens (issue 16): a screen level like a standard screen's
//! against beams, which also takes its level off every torpedo and missile
//! damage die, screens submunitions as beams, and lowers a K-gun's
//! doubling number (ft-rules §3, §4.1, §4.3, §4.6; readings W42). Every
//! expected value is worked out here from those rules on scripted dice.

use crate::support::checked;
use fam::engine::dice::Dice;
use fam::engine::event::Recorder;
use fam::engine::plot::{ExchangePlot, FireOrder, FormationPlot, SystemId, VolleyPlot};
use fam::engine::rules::Rules;
use fam::engine::state::{Battle, Formation, RangeTable, Side, Unit};
use fam::engine::volley::{Scratch, run_volley};
use fam::ftjava::{self, Options};
use fam::gzf::{self, ParseOptions, SystemKind};

/// A shooter with a Fire Control (#1), a pulse torpedo (#2), a K-3 (#3)
/// and a submunition pack (#4), forward arc; a target with `screen` (one
/// `Advanced Screen Generator` or `Screen Generator`), no armour and four
/// rows of 40 hull boxes (no threshold die here).
fn battle(screen: &str) -> Battle {
    let row = "O".repeat(40);
    let text = format!(
        "Profile: FB1\n\nShip: Shooter\nMass: 100\nThrust-Rating: 4\nDamage-Track: OOOO OOOO OOOO OOOO\n\n\
         System: FCS\n\nSystem: Pulse Torpedo\nFiring-Arc: F\n\nSystem: Class 3 K-Gun\nFiring-Arc: F\n\n\
         System: Submunition Pack\nFiring-Arc: F\n\n\
         Ship: Target\nMass: 100\nThrust-Rating: 4\nDamage-Track: {row} {row} {row} {row}\n\nSystem: {screen}\n"
    );
    let parsed = gzf::parse(&text, &ParseOptions::default());
    assert!(!parsed.has_errors(), "the test records read");
    let file = parsed.file;
    let shooter = Unit::from_ship(file.ship("Shooter").unwrap(), file.profile, 0, 0);
    let target = Unit::from_ship(file.ship("Target").unwrap(), file.profile, 1, 1);
    assert_eq!(target.screen_level(), 1);
    Battle {
        sides: vec![Side { name: "A".into() }, Side { name: "B".into() }],
        formations: vec![
            Formation {
                name: "F0".into(),
                side: 0,
                units: vec![0],
                reserve: Default::default(),
            },
            Formation {
                name: "F1".into(),
                side: 1,
                units: vec![1],
                reserve: Default::default(),
            },
        ],
        units: vec![shooter, target],
        ranges: RangeTable::new(2, 6),
        rules: Rules::default(),
    }
}

const ADVANCED: &str = "Advanced Screen Generator";
const STANDARD: &str = "Screen Generator";

/// Fires `weapon` once at 6 MU on exactly `faces` (the d100 first); returns
/// the hull the target lost.
fn hull_lost(screen: &str, weapon: SystemId, faces: &[u8]) -> u32 {
    let mut b = battle(screen);
    let fire = VolleyPlot {
        fire: vec![FireOrder {
            unit: 0,
            fire_control: 0,
            target: Some(1),
            weapons: vec![weapon],
            needles: Vec::new(),
            group: None,
        }],
        ..VolleyPlot::default()
    };
    let p = ExchangePlot {
        formations: vec![
            Some(FormationPlot {
                volleys: [fire.clone(), fire.clone(), fire],
            }),
            Some(FormationPlot::default()),
        ],
    };
    let mut dice = Dice::from_faces(faces);
    let p = checked(&b, &p);
    run_volley(
        &mut b,
        &p,
        0,
        &mut dice,
        &mut Recorder::default(),
        &mut Scratch::default(),
    );
    assert_eq!(dice.count_draws(), faces.len() as u64, "dice used: {faces:?}");
    b.units[1].hull_lost
}

/// A pulse torpedo's damage die loses the advanced screen's level (a 5
/// does 4); a standard screen does not stop it (5).
#[test]
fn advanced_screens_take_their_level_off_a_torpedo() {
    assert_eq!(hull_lost(ADVANCED, 1, &[1, 4, 5]), 4);
    assert_eq!(hull_lost(STANDARD, 1, &[1, 4, 5]), 5);
}

/// A K-3's doubling number drops by the level: a doubling die of 3 doubles
/// behind a standard screen (6 points) but not behind an advanced one (3).
#[test]
fn advanced_screens_lower_the_k_gun_doubling_number() {
    assert_eq!(hull_lost(ADVANCED, 2, &[1, 4, 3]), 3);
    assert_eq!(hull_lost(STANDARD, 2, &[1, 4, 3]), 6);
}

/// Submunitions (3 dice at 6 MU) are screened as beams by an advanced
/// screen: 4, 5, 6 score 0 + 1 + 2 and the 6's reroll (a 4, unscreened)
/// 1: 4; a standard screen does not stop them: 1 + 1 + 2 + 1 = 5.
#[test]
fn advanced_screens_screen_submunitions_as_beams() {
    assert_eq!(hull_lost(ADVANCED, 3, &[1, 4, 5, 6, 4]), 4);
    assert_eq!(hull_lost(STANDARD, 3, &[1, 4, 5, 6, 4]), 5);
}

/// `Advanced Screen Generator` (or `Advanced Screen`) reads in both
/// profiles and writes back canonically; FTJava's `AdvancedScreen` imports
/// as it and exports back.
#[test]
fn advanced_screens_read_write_import_and_export() {
    for profile in ["FB1", "FT2"] {
        let text = format!(
            "Profile: {profile}\n\nShip: S\nMass: 50\nThrust-Rating: 4\nDamage-Track: OOOO OOOO OOOO\n\nSystem: Advanced Screen\n"
        );
        let parsed = gzf::parse(&text, &ParseOptions::default());
        assert!(!parsed.has_errors(), "{profile}");
        let ship = parsed.file.ships().next().unwrap();
        assert_eq!(ship.systems[0].kind, SystemKind::AdvancedScreen);
        assert!(gzf::write(&parsed.file).contains("System:           Advanced Screen Generator"));
    }
    let xml = "<Ship><ClassName>Shade</ClassName><Mass>40</Mass><MainDrive initialThrust=\"4\"/>\
               <Hull value=\"40\" type=\"Average\"/><Defenses><AdvancedScreen/></Defenses></Ship>";
    let imported = ftjava::import(&fam::diag::SourceFile::new("shade.xml", xml), &Options::default());
    assert!(
        !imported.diagnostics.iter().any(|d| d.is_error()),
        "{:?}",
        imported.diagnostics
    );
    let ship = imported.gzf.ships().next().unwrap();
    assert!(ship.systems.iter().any(|s| s.kind == SystemKind::AdvancedScreen));
    let written = gzf::write(&imported.gzf);
    let parsed = gzf::parse(&written, &ParseOptions::default());
    let exported = ftjava::export::export(&ftjava::export::Request {
        text: &written,
        file: &parsed.file,
        spans: &parsed.spans,
        ship: None,
        title: "shade",
        skip_unmapped: false,
    });
    assert!(exported.xml.contains("<AdvancedScreen"), "{}", exported.xml);
}
