//! Continuum ordnance (issue 16): rocket pods, antimatter missiles and
//! boarding torpedoes.
//!
//! Rocket pods: one shot of two rockets, each rolling to hit 2+/3+/4+ to
//! 6/12/18 MU under the Evasion DRM; point defence then shoots at the
//! rockets that hit as at salvo missiles; each left does 1d3
//! semi-armour-piercing, less the advanced screen level (readings
//! W50-W52).
//!
//! Every expected value is worked out here from the rules, never copied
//! from a run: distributions are enumerated face by face, once from the
//! rules restated below and once by scripting the engine's dice.

use crate::support::{checked, scripted};
use std::collections::BTreeMap;

use approx::assert_abs_diff_eq;

use fam::engine::checked::CheckedPlot;
use fam::engine::dice::Dice;
use fam::engine::event::{
    AntimatterHits, BoardingTorpedoAttack, Launch, RackExplodes, Recorder, RocketAttack, RocketHits, WeaponIdle,
};
use fam::engine::plot::{ExchangePlot, FireOrder, FormationPlot, SystemId, VolleyPlot};
use fam::engine::rules::Rules;
use fam::engine::state::{Battle, Formation, RangeTable, Side, Unit};
use fam::engine::tables::rocket_needed;
use fam::engine::volley::{Scratch, run_volley};
use fam::ftjava::{self, Options};
use fam::gzf::{self, ParseOptions, SystemKind};

use super::support::{fam, repo, text};

// ---- the ships ------------------------------------------------------------------

/// A shooter with two armour boxes, one Fire Control (#0), a rocket pod (#1, forward arc),
/// an antimatter missile rack (#2, three forward arcs) and a boarding
/// torpedo launcher (#3, forward arc); two targets of four rows of 40 hull
/// boxes (no Volley here completes a row), each with `armour` (a GZF
/// armour value, or none when empty) and the systems of `extra`.
fn records(armour: &str, extra: &str) -> gzf::GzfFile {
    let mut text = String::from(
        "Profile: FB1\n\nShip: Shooter\nMass: 100\nThrust-Rating: 4\n\
         Armour: O O\n\
         Damage-Track: OOOOOOOOOO OOOOOOOOOO OOOOOOOOOO OOOOOOOOOO\n\n\
         System: FCS\n\nSystem: Rocket Pod\nFiring-Arc: F\n\n\
         System: Antimatter Missile\nFiring-Arc: FP F FS\n\n\
         System: Boarding Torpedo\nFiring-Arc: F\n\n",
    );
    let row = "O".repeat(40);
    for name in ["Near", "Far"] {
        text.push_str(&format!("Ship: {name}\nMass: 100\nThrust-Rating: 4\n"));
        if !armour.is_empty() {
            text.push_str(&format!("Armour: {armour}\n"));
        }
        text.push_str(&format!("Damage-Track: {row} {row} {row} {row}\n\n{extra}"));
    }
    let parsed = gzf::parse(&text, &ParseOptions::default());
    assert!(!parsed.has_errors(), "the test records read");
    parsed.file
}

const FCS: SystemId = 0;
const POD: SystemId = 1;
const ANTIMATTER: SystemId = 2;
const BOARDING: SystemId = 3;

/// The shooter against a Formation of the two targets, `range` MU apart.
fn battle(file: &gzf::GzfFile, range: u32) -> Battle {
    let shooter = Unit::from_ship(file.ship("Shooter").unwrap(), file.profile, 0, 0);
    assert_eq!(shooter.systems[POD].kind, SystemKind::RocketPod);
    assert_eq!(shooter.systems[ANTIMATTER].kind, SystemKind::AntimatterMissile);
    assert_eq!(shooter.systems[BOARDING].kind, SystemKind::BoardingTorpedo);
    let near = Unit::from_ship(file.ship("Near").unwrap(), file.profile, 1, 1);
    let far = Unit::from_ship(file.ship("Far").unwrap(), file.profile, 1, 1);
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
                units: vec![1, 2],
                reserve: Default::default(),
            },
        ],
        units: vec![shooter, near, far],
        ranges: RangeTable::new(2, range),
        rules: Rules::default(),
    }
}

/// The shooter fires `weapons` in every Volley; the targets roll `evasion`
/// Evasion dice.
fn plot(weapons: &[SystemId], evasion: u32) -> ExchangePlot {
    let fire = VolleyPlot {
        fire: vec![FireOrder {
            unit: 0,
            fire_control: FCS,
            target: Some(1),
            weapons: weapons.to_vec(),
            needles: Vec::new(),
            group: None,
        }],
        ..VolleyPlot::default()
    };
    let evade = VolleyPlot {
        evasion,
        ..VolleyPlot::default()
    };
    ExchangePlot {
        formations: vec![
            Some(FormationPlot {
                volleys: [fire.clone(), fire.clone(), fire],
            }),
            Some(FormationPlot {
                volleys: [evade.clone(), evade.clone(), evade],
            }),
        ],
    }
}

/// The d100 that acquires the first target (two equal ships, 1-50 the
/// first).
const NEAR: u8 = 1;

/// Every face sequence of `n` d6, in order.
fn sequences(n: usize) -> Vec<Vec<u8>> {
    let mut out = vec![Vec::new()];
    for _ in 0..n {
        out = out
            .into_iter()
            .flat_map(|s| {
                (1..=6u8).map(move |f| {
                    let mut t = s.clone();
                    t.push(f);
                    t
                })
            })
            .collect();
    }
    out
}

/// Whether `written` has a `System:` line naming `name` (values are
/// aligned by the writer).
fn system_line(written: &str, name: &str) -> bool {
    written
        .lines()
        .any(|l| l.strip_prefix("System:").is_some_and(|v| v.trim() == name))
}

// ---- the rules, restated -----------------------------------------------------------

/// A d3 read from a d6: 1-2 → 1, 3-4 → 2, 5-6 → 3.
fn d3(face: u8) -> u32 {
    u32::from(face).div_ceil(2)
}

/// The distribution of a pod's damage on an unscreened target without
/// point defence at a band needing `needed` (no Evasion): each rocket hits
/// with (7 − needed)/6 and then scores 1d3.
fn pod_distribution(needed: u32) -> BTreeMap<u32, f64> {
    let hit = f64::from(7 - needed) / 6.0;
    // One rocket: 0 with the miss chance, else 1-3 each a third of a hit.
    let mut one = BTreeMap::new();
    one.insert(0, 1.0 - hit);
    for k in 1..=3 {
        *one.entry(k).or_insert(0.0) += hit / 3.0;
    }
    let mut two = BTreeMap::new();
    for (a, pa) in &one {
        for (b, pb) in &one {
            *two.entry(a + b).or_insert(0.0) += pa * pb;
        }
    }
    two
}

/// Damage the pod's shot did to the target the scripted d100 acquired.
fn rocket_hits(rec: &Recorder) -> Vec<(u32, u32, Vec<u8>, Vec<u32>)> {
    rec.events_of::<RocketHits>()
        .map(
            |RocketHits {
                 hit,
                 killed,
                 faces,
                 damage,
                 ..
             }| (*hit, *killed, faces.clone(), damage.clone()),
        )
        .collect()
}

// ---- rocket pods ---------------------------------------------------------------------

/// The bands: 2+ to 6 MU, 3+ to 12, 4+ to 18, nothing beyond (closed
/// above, ft-rules §1.5).
#[test]
fn rocket_bands_are_six_mu_wide_and_end_at_eighteen() {
    for (range, needed) in [
        (0, Some(2)),
        (6, Some(2)),
        (7, Some(3)),
        (12, Some(3)),
        (13, Some(4)),
        (18, Some(4)),
    ] {
        assert_eq!(rocket_needed(range), needed, "{range} MU");
    }
    assert_eq!(rocket_needed(19), None);
}

/// P(a pod at ≤6 MU deals k damage to an unscreened target without point
/// defence), enumerated over every face the engine may roll (two to-hit
/// dice, then a d6 read as d3 for each rocket that hit), equals the
/// distribution from the rules: 2 rockets × 5/6 × 1d3.
#[test]
fn a_pod_at_six_mu_deals_what_two_rockets_of_1d3_deal() {
    let file = records("", "");
    for (range, needed) in [(6, 2u32), (12, 3), (18, 4)] {
        let mut engine: BTreeMap<u32, f64> = BTreeMap::new();
        for hit_faces in sequences(2) {
            let hits = hit_faces.iter().filter(|&&f| u32::from(f) >= needed).count();
            for damage_faces in sequences(hits) {
                let mut b = battle(&file, range);
                let mut faces = vec![NEAR];
                faces.extend(&hit_faces);
                faces.extend(&damage_faces);
                let rec = scripted(&mut b, &plot(&[POD], 0), &faces);
                let dealt = b.units[1].hull_lost;
                assert_eq!(dealt, damage_faces.iter().map(|&f| d3(f)).sum::<u32>(), "{faces:?}");
                if hits > 0 {
                    let expected: Vec<u32> = damage_faces.iter().map(|&f| d3(f)).collect();
                    assert_eq!(rocket_hits(&rec), [(hits as u32, 0, damage_faces.clone(), expected)]);
                }
                let p = (1.0 / 6.0f64).powi(2 + hits as i32);
                *engine.entry(dealt).or_insert(0.0) += p;
            }
        }
        let exact = pod_distribution(needed);
        assert_eq!(engine.keys().collect::<Vec<_>>(), exact.keys().collect::<Vec<_>>());
        for (k, p) in &exact {
            assert_abs_diff_eq!(engine[k], *p, epsilon = 1e-12);
        }
        // The mean: 2 × (7 − needed)/6 × 2.
        let mean: f64 = exact.iter().map(|(k, p)| f64::from(*k) * p).sum();
        assert_abs_diff_eq!(mean, 2.0 * f64::from(7 - needed) / 6.0 * 2.0, epsilon = 1e-12);
    }
}

/// A pod fires once: the second Volley's plot finds it spent. Beyond
/// 18 MU it rolls nothing and is spent all the same.
#[test]
fn a_pod_fires_once_and_is_spent_out_of_range_too() {
    let file = records("", "");
    let mut b = battle(&file, 19);
    let rec = scripted(&mut b, &plot(&[POD], 0), &[NEAR]);
    assert!(rec.events_of::<RocketAttack>().any(|e| matches!(
        e,
        RocketAttack {
            needed: None,
            hits: 0,
            ..
        }
    )));
    assert_eq!(b.units[0].systems[POD].rounds_left(), 0);
    let mut b = battle(&file, 6);
    let mut rec = Recorder::default();
    let mut dice = Dice::from_faces(&[NEAR, 1, 1, NEAR]);
    let p = checked(&b, &plot(&[POD], 0));
    let mut scratch = Scratch::default();
    run_volley(&mut b, &p, 0, &mut dice, &mut rec, &mut scratch);
    run_volley(&mut b, &p, 1, &mut dice, &mut rec, &mut scratch);
    assert_eq!(dice.count_draws(), 4);
    assert!(
        rec.events_of::<WeaponIdle>()
            .any(|e| matches!(e, WeaponIdle { reason, .. } if *reason == "already fired"))
    );
}

/// Point defence shoots at the rockets that hit as at salvo missiles: a
/// PDS die of 4 kills one of two, a 6 kills two (its extra die rolls all
/// the same, with nothing left to kill); the rockets left roll their d3.
#[test]
fn point_defence_shoots_down_rockets_that_hit() {
    let file = records("", "System: PDS\n\n");
    // d100, two hits (6, 6), the PDS die 4: one killed; one damage die 5 → 3.
    let mut b = battle(&file, 12);
    let rec = scripted(&mut b, &plot(&[POD], 0), &[NEAR, 6, 6, 4, 5]);
    assert_eq!(rocket_hits(&rec), [(2, 1, vec![5], vec![3])]);
    assert_eq!(b.units[1].hull_lost, 3);
    // Both hit (3+ at 12 MU); a PDS 6 kills both, its extra die 1.
    let mut b = battle(&file, 12);
    let rec = scripted(&mut b, &plot(&[POD], 0), &[NEAR, 6, 3, 6, 1]);
    assert_eq!(rocket_hits(&rec), [(2, 2, vec![], vec![])]);
    assert_eq!(b.units[1].hull_lost, 0);
}

/// Rockets are semi-armour-piercing: a 3-point rocket on a ship with two
/// armour boxes puts 2 (half, rounded up) in the armour and 1 in the hull;
/// behind a level-1 advanced screen the same rocket scores 2 (1 + 1).
#[test]
fn rockets_are_semi_armour_piercing_and_lose_the_advanced_level() {
    let file = records("O O", "");
    let mut b = battle(&file, 6);
    scripted(&mut b, &plot(&[POD], 0), &[NEAR, 2, 1, 6]);
    assert_eq!((b.units[1].armour_lost, b.units[1].hull_lost), (2, 1));
    let file = records("O O", "System: Advanced Screen Generator\n\n");
    let mut b = battle(&file, 6);
    let rec = scripted(&mut b, &plot(&[POD], 0), &[NEAR, 2, 1, 6]);
    assert_eq!(rocket_hits(&rec), [(1, 0, vec![6], vec![2])]);
    assert_eq!((b.units[1].armour_lost, b.units[1].hull_lost), (1, 1));
}

/// One Evasion die showing 6 (two points, the pod's one arc ignoring
/// none) raises 2+ to 4+: rockets rolling 3 and 4 score one hit.
#[test]
fn evasion_raises_the_number_a_rocket_needs() {
    let file = records("", "");
    let mut b = battle(&file, 6);
    let rec = scripted(&mut b, &plot(&[POD], 1), &[6, NEAR, 3, 4, 1]);
    assert!(rec.events_of::<RocketAttack>().any(|e| matches!(
        e,
        RocketAttack {
            needed: Some(2),
            drm: -2,
            hits: 1,
            ..
        }
    )));
    assert_eq!(b.units[1].hull_lost, 1);
}

/// `Rocket Pod` reads in both profiles, writes back canonically with its
/// `Rounds:` box, and a crossed box means a spent pod.
#[test]
fn rocket_pods_read_and_write_canonically() {
    for profile in ["FB1", "FT2"] {
        let text = format!(
            "Profile: {profile}\n\nShip: S\nMass: 50\nThrust-Rating: 4\nDamage-Track: OOOO OOOO OOOO\n\n\
             System: rocket  pod\nFiring-Arc: F\nRounds: -\n"
        );
        let parsed = gzf::parse(&text, &ParseOptions::default());
        assert!(!parsed.has_errors(), "{profile}");
        let ship = parsed.file.ships().next().unwrap();
        assert_eq!(ship.systems[0].kind, SystemKind::RocketPod);
        let written = gzf::write(&parsed.file);
        assert!(system_line(&written, "Rocket Pod"), "{written}");
        let again = gzf::parse(&written, &ParseOptions::default());
        assert_eq!(again.file, parsed.file);
        let unit = Unit::from_ship(again.file.ships().next().unwrap(), again.file.profile, 0, 0);
        assert_eq!(unit.systems[0].rounds_left(), 0);
    }
}

/// FTJava's `RocketPod` imports as a rocket pod (forward arc when the
/// element gives none) and exports back to the same element.
#[test]
fn ftjava_rocket_pods_import_and_export() {
    let xml = "<?xml version=\"1.0\" standalone=\"yes\" ?>\n<Ship>\n<Name>R</Name>\n<Race>Human</Race>\n\
               <ClassAbbrev>FF</ClassAbbrev>\n<ClassName>R</ClassName>\n<ShipClass>Frigate</ShipClass>\n\
               <Mass>30</Mass>\n<PointValue>100</PointValue>\n<MainDrive initialThrust=\"4\"/>\n\
               <Hull value=\"30\" type=\"Average\"/>\n<Electronics>\n<FireControl/>\n</Electronics>\n\
               <Weapons>\n<RocketPod/>\n<RocketPod arcs=\"(FP/F)\"/>\n</Weapons>\n</Ship>\n";
    let imported = ftjava::import(&fam::diag::SourceFile::new("r.xml", xml), &Options::default());
    let errors: Vec<_> = imported.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    let ship = imported.gzf.ships().next().unwrap();
    let pods: Vec<_> = ship
        .systems
        .iter()
        .filter(|s| s.kind == SystemKind::RocketPod)
        .collect();
    use fam::gzf::Arc;
    assert_eq!(pods.len(), 2);
    assert_eq!(pods[0].arcs, [Arc::F]);
    assert_eq!(pods[1].arcs, [Arc::Fp, Arc::F]);
    let written = gzf::write(&imported.gzf);
    let parsed = gzf::parse(&written, &ParseOptions::default());
    assert!(!parsed.has_errors(), "{written}");
    let request = ftjava::export::Request {
        text: &written,
        file: &parsed.file,
        spans: &parsed.spans,
        ship: None,
        title: "r",
        skip_unmapped: false,
    };
    let exported = ftjava::export::export(&request);
    assert_eq!(exported.xml.matches("<RocketPod id=").count(), 2, "{}", exported.xml);
}

// ---- antimatter missiles ---------------------------------------------------------------

/// (killed, screen, faces, damage) of every antimatter detonation.
fn detonations(rec: &Recorder) -> Vec<(u32, u8, Vec<u8>, u32)> {
    rec.events_of::<AntimatterHits>()
        .map(
            |AntimatterHits {
                 killed,
                 screen,
                 faces,
                 damage,
                 ..
             }| (*killed, *screen, faces.clone(), *damage),
        )
        .collect()
}

/// Without point defence an antimatter missile detonates with 3d6, normal
/// damage (armour first): 6, 5, 2 on two armour boxes is 2 armour, 11 hull.
#[test]
fn an_antimatter_missile_detonates_with_three_dice() {
    let file = records("O O", "");
    let mut b = battle(&file, 12);
    let rec = scripted(&mut b, &plot(&[ANTIMATTER], 0), &[NEAR, 6, 5, 2]);
    assert_eq!(detonations(&rec), [(0, 0, vec![6, 5, 2], 13)]);
    assert_eq!((b.units[1].armour_lost, b.units[1].hull_lost), (2, 11));
    assert_eq!(b.units[0].systems[ANTIMATTER].rounds_left(), 0);
}

/// The damage distribution after one point-defence hit against a level-1
/// screen: a PDS die of 4 takes one die; the two left each score the face
/// less 1. Enumerated over every face the engine rolls, against the
/// distribution of two dice of max(d6 − 1, 0) restated from the rules.
#[test]
fn one_pd_hit_behind_a_level_one_screen_leaves_two_dice_less_one() {
    let file = records("", "System: PDS\n\nSystem: Screen Generator\n\n");
    let mut engine: BTreeMap<u32, f64> = BTreeMap::new();
    for faces in sequences(2) {
        let mut b = battle(&file, 12);
        let mut all = vec![NEAR, 4];
        all.extend(&faces);
        let rec = scripted(&mut b, &plot(&[ANTIMATTER], 0), &all);
        let dealt = b.units[1].hull_lost;
        assert_eq!(detonations(&rec), [(1, 1, faces.clone(), dealt)]);
        *engine.entry(dealt).or_insert(0.0) += 1.0 / 36.0;
    }
    let mut exact: BTreeMap<u32, f64> = BTreeMap::new();
    for a in 1..=6u32 {
        for c in 1..=6u32 {
            *exact.entry(a.saturating_sub(1) + c.saturating_sub(1)).or_insert(0.0) += 1.0 / 36.0;
        }
    }
    assert_eq!(engine.len(), exact.len());
    for (k, p) in &exact {
        assert_abs_diff_eq!(engine[k], *p, epsilon = 1e-12);
    }
    // Mean: two dice of 2.5.
    let mean: f64 = exact.iter().map(|(k, p)| f64::from(*k) * p).sum();
    assert_abs_diff_eq!(mean, 5.0, epsilon = 1e-12);
}

/// Three point-defence hits neutralise it: a PDS 6 (two hits) and its
/// extra die 5 (the third) leave no die to roll.
#[test]
fn three_pd_hits_neutralise_an_antimatter_missile() {
    let file = records("", "System: PDS\n\n");
    let mut b = battle(&file, 12);
    let rec = scripted(&mut b, &plot(&[ANTIMATTER], 0), &[NEAR, 6, 5]);
    assert_eq!(detonations(&rec), [(3, 0, vec![], 0)]);
    assert_eq!(b.units[1].hull_lost, 0);
}

/// It reaches 24 MU (18 and the missiles' 6 MU approach) and is lost
/// beyond, the rack spent all the same.
#[test]
fn an_antimatter_missile_reaches_twenty_four_mu() {
    let file = records("", "");
    let mut b = battle(&file, 24);
    let rec = scripted(&mut b, &plot(&[ANTIMATTER], 0), &[NEAR, 1, 1, 1]);
    assert_eq!(detonations(&rec).len(), 1);
    let mut b = battle(&file, 25);
    let rec = scripted(&mut b, &plot(&[ANTIMATTER], 0), &[NEAR]);
    assert!(detonations(&rec).is_empty());
    assert!(
        rec.events_of::<Launch>()
            .any(|e| matches!(e, Launch { wasted: Some(_), .. }))
    );
    assert_eq!(b.units[0].systems[ANTIMATTER].rounds_left(), 0);
}

/// An unfired rack lost to a threshold check explodes: a d6 straight to
/// its own hull, the armour untouched; the rack is destroyed. A spent rack
/// rolls no threshold die and cannot explode.
#[test]
fn an_unfired_rack_lost_to_a_threshold_explodes_on_its_own_ship() {
    use fam::engine::volley::threshold_check;
    let file = records("", "");
    let mut b = battle(&file, 12);
    // The first row of ten lost: 6 needed. FCS 1, pod 1, rack 6 (lost) and
    // its explosion 4, boarding torpedo 1, the drive 1.
    b.units[0].hull_lost = 10;
    let faces = [1, 1, 6, 4, 1, 1];
    let mut dice = Dice::from_faces(&faces);
    let mut rec = Recorder::default();
    threshold_check(&mut b, 0, 1, &mut dice, &mut rec);
    assert_eq!(dice.count_draws(), faces.len() as u64);
    assert_eq!((b.units[0].armour_lost, b.units[0].hull_lost), (0, 14));
    assert!(rec.events_of::<RackExplodes>().any(|e| matches!(
        e,
        RackExplodes {
            face: 4,
            hull: 4,
            destroyed: false,
            ..
        }
    )));
    assert_eq!(
        b.units[0].systems[ANTIMATTER].state,
        fam::engine::state::SysState::Destroyed
    );
    let mut b = battle(&file, 12);
    b.units[0].hull_lost = 10;
    assert!(b.units[0].systems[ANTIMATTER].spend());
    let faces = [1, 1, 6, 1];
    let mut dice = Dice::from_faces(&faces);
    threshold_check(&mut b, 0, 1, &mut dice, &mut Recorder::default());
    assert_eq!(dice.count_draws(), faces.len() as u64);
    assert_eq!(b.units[0].hull_lost, 10);
}

// ---- boarding torpedoes -----------------------------------------------------------

/// A hit on the standard projectile table is one hull point, bypassing
/// plain and layered armour alike; at 30 MU it needs a 6, beyond it does
/// not fire.
#[test]
fn a_boarding_torpedo_hit_is_one_hull_point_through_any_armour() {
    for armour in ["O O", "O O / O O"] {
        let file = records(armour, "");
        let mut b = battle(&file, 6);
        let rec = scripted(&mut b, &plot(&[BOARDING], 0), &[NEAR, 2]);
        assert!(rec.events_of::<BoardingTorpedoAttack>().any(|e| matches!(
            e,
            BoardingTorpedoAttack {
                needed: 2,
                hit: true,
                ..
            }
        )));
        assert_eq!((b.units[1].armour_lost, b.units[1].hull_lost), (0, 1), "{armour}");
    }
    let file = records("", "");
    for (face, hull) in (1..=6u8).map(|f| (f, u32::from(f == 6))) {
        let mut b = battle(&file, 30);
        scripted(&mut b, &plot(&[BOARDING], 0), &[NEAR, face]);
        assert_eq!(b.units[1].hull_lost, hull, "face {face}");
    }
    let mut b = battle(&file, 31);
    let rec = scripted(&mut b, &plot(&[BOARDING], 0), &[NEAR]);
    assert!(
        !rec.events_of::<BoardingTorpedoAttack>()
            .any(|e| matches!(e, BoardingTorpedoAttack { .. }))
    );
}

/// The reports say that a battle with boarding torpedoes ignores their
/// marines, and name the rocket and antimatter readings.
#[test]
fn the_caveats_say_boarding_marines_are_ignored() {
    let b = battle(&records("", ""), 12);
    let said = fam::caveats::readings(&b).join("\n");
    assert!(said.contains("marines they land are ignored"), "{said}");
    assert!(said.contains("W50") && said.contains("W54"), "{said}");
}

/// `Antimatter Missile` and `Boarding Torpedo` read and write back in both
/// profiles; FTJava has no element for them, so export (of FB1 records,
/// the only ones FTJava holds) refuses each by name (readings I41, I42).
#[test]
fn antimatter_and_boarding_records_round_trip_and_export_is_refused() {
    for profile in ["FB1", "FT2"] {
        let text = format!(
            "Profile: {profile}\n\nShip: S\nMass: 50\nThrust-Rating: 4\nDamage-Track: OOOO OOOO OOOO\n\n\
             System: Anti-Matter Missile\nFiring-Arc: F\n\nSystem: boarding torpedo\nFiring-Arc: F\n"
        );
        let parsed = gzf::parse(&text, &ParseOptions::default());
        assert!(!parsed.has_errors(), "{profile}");
        let written = gzf::write(&parsed.file);
        assert!(system_line(&written, "Antimatter Missile"), "{written}");
        assert!(system_line(&written, "Boarding Torpedo"), "{written}");
        let again = gzf::parse(&written, &ParseOptions::default());
        assert_eq!(again.file, parsed.file);
        if profile == "FT2" {
            continue; // FTJava holds FB1 ships only
        }
        let request = ftjava::export::Request {
            text: &written,
            file: &again.file,
            spans: &again.spans,
            ship: None,
            title: "s",
            skip_unmapped: false,
        };
        let exported = ftjava::export::export(&request);
        let errors: Vec<String> = exported
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.message.clone())
            .collect();
        assert!(errors.iter().any(|m| m.contains("Antimatter Missile")), "{errors:?}");
        assert!(errors.iter().any(|m| m.contains("Boarding Torpedo")), "{errors:?}");
    }
}

// ---- the default commander ----------------------------------------------------------

/// The Volleys in which the default commander's plot fires `weapon` of the
/// shooter.
fn plotted(b: &Battle, weapon: SystemId) -> Vec<usize> {
    let (p, _) = fam::engine::doctrine::standing_plot(b, &CheckedPlot::default(), &[None, None], true);
    let fp = p.formations[0].as_ref().expect("a plot for the shooter");
    (0..3)
        .filter(|&v| {
            fp.volleys[v]
                .fire
                .iter()
                .any(|o| o.unit == 0 && o.weapons.contains(&weapon))
        })
        .collect()
}

/// Within 6 MU at the start the pod fires at once, the antimatter missile
/// too (in reach), the boarding torpedo every Volley; 60 MU away neither
/// one-shot weapon is plotted this Exchange.
#[test]
fn the_default_commander_fires_pods_in_the_closest_band_and_racks_in_reach() {
    let file = records("", "");
    let b = battle(&file, 4);
    assert_eq!(plotted(&b, POD), [0]);
    assert_eq!(plotted(&b, ANTIMATTER), [0]);
    assert_eq!(plotted(&b, BOARDING), [0, 1, 2]);
    let b = battle(&file, 60);
    assert!(plotted(&b, POD).is_empty());
    assert!(plotted(&b, ANTIMATTER).is_empty());
}

// ---- the report ------------------------------------------------------------------------

/// The report names every die the three weapons roll: the rockets'
/// to-hit dice and their d3s, the PDS die (a miss here), the
/// antimatter dice, the boarding torpedo's die; and it says the marines
/// are ignored.
#[test]
fn the_report_names_every_die() {
    use fam::report::{Header, Style, render};
    let file = records("", "System: PDS\n\n");
    let before = battle(&file, 6);
    let mut b = before.clone();
    // d100; rockets 6, 5 (both hit); antimatter launched; boarding die 4.
    // PD: the PDS (automatic) goes to the antimatter missile (3 × 3.5 over
    // 2 × 2 open): die 2, no kill; rockets d6 3 and 6 → 2 and 3;
    // antimatter dice 1, 2, 3.
    let faces = [NEAR, 6, 5, 4, 2, 3, 6, 1, 2, 3];
    let rec = scripted(&mut b, &plot(&[POD, ANTIMATTER, BOARDING], 0), &faces);
    let header = Header {
        title: "t".into(),
        seed: 0,
        exchange: 1,
    };
    let text = render(&header, &before, &b, &rec, Style::Text);
    for want in [
        "2 rockets need 2+ with DRM 0, rolled [6 5] → 2 hits",
        "2 rockets hit, 0 shot down, 2 through: d6 [3 6] read as d3, less 0 (advanced screen) → hits of 2, 3",
        "detonates with 3d6 [1 2 3], each less 0 (screen) → 6",
        "needs 2+ with DRM 0, rolled 4 → hit: 1 hull point, armour bypassed (its 2 marines are not played)",
        "marines they land are ignored",
    ] {
        assert!(text.contains(want), "{want}\n{text}");
    }
    assert_eq!(b.units[1].hull_lost, 2 + 3 + 6 + 1);
}

// ---- they fight ---------------------------------------------------------------------

/// A raider with two rocket pods, an antimatter missile, a boarding torpedo
/// and a beam battery fights a shipped record 18 MU away in a batch under
/// the default doctrine: each of the three scores in the damage tally, the
/// pods and the rack fire in most runs, and the caveats of the table name
/// the readings.
#[test]
fn a_raider_with_the_new_ordnance_fights_in_a_batch() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("raider.gzf");
    std::fs::write(
        &record,
        "Profile: FB1\n\nShip: Raider\nMass: 60\nThrust-Rating: 4\n\
         Damage-Track: OOOOO OOOOO OOOOO OOOOO\n\n\
         System: FCS\n\nSystem: FCS\n\n\
         System: Rocket Pod\nFiring-Arc: FP F FS\n\nSystem: Rocket Pod\nFiring-Arc: FP F FS\n\n\
         System: Antimatter Missile\nFiring-Arc: FP F FS\n\n\
         System: Boarding Torpedo\nFiring-Arc: FP F FS\n\n\
         System: Class 3 Battery\nFiring-Arc: FP F FS\n",
    )
    .unwrap();
    let scenario = dir.path().join("raid.toml");
    let meridian = repo().join("ssd/meridian-compact.gzf");
    std::fs::write(
        &scenario,
        format!(
            "title = \"Raid\"\ngzf = [{:?}, {:?}]\nseed = 5\n\n[sides]\nA = [\"Raiders\"]\nB = [\"Heading\"]\n\n\
             [formations]\nRaiders = [\"Raider\"]\nHeading = [\"MCS Clear Heading\"]\n\n\
             [[range]]\nbetween = [\"Raiders\", \"Heading\"]\nmu = 18\n\n[victory]\nmax_exchanges = 6\n",
            record.to_str().unwrap(),
            meridian.to_str().unwrap()
        ),
    )
    .unwrap();
    let o = fam(&["batch", scenario.to_str().unwrap(), "--runs", "100", "--format", "json"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let a = v["sides"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "A")
        .unwrap();
    for kind in ["rocket", "antimatter_missile", "boarding_torpedo"] {
        assert!(a["damage_by_kind"][kind].as_f64().unwrap() > 0.1, "{kind}: {a}");
    }
    let fired = |name: &str| -> Vec<f64> {
        v["weapons"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| w["kind"] == name)
            .map(|w| w["fired_share"].as_f64().unwrap())
            .collect()
    };
    let pods = fired("Rocket Pod");
    assert_eq!(pods.len(), 2);
    assert!(pods.iter().all(|&f| f > 0.5), "{pods:?}");
    let racks = fired("Antimatter Missile");
    assert!(racks.len() == 1 && racks[0] > 0.5, "{racks:?}");
    let table = fam(&["batch", scenario.to_str().unwrap(), "--runs", "10"]);
    assert!(table.status.success(), "{}", text(&table.stderr));
    assert!(text(&table.stdout).contains("marines"), "{}", text(&table.stdout));
}

// ---- the antimatter_pd_heavy switch ------------------------------------------------

/// By default a PDS die reads the salvo column against an antimatter
/// missile (4-5 one hit, 6 two and an extra die); with
/// `antimatter_pd_heavy` the heavy column (5-6 one hit, no extra die).
#[test]
fn the_switch_puts_antimatter_on_the_heavy_missile_column() {
    let file = records("", "System: PDS\n\n");
    // (the switch, faces after the d100, the hits expected)
    let cases: [(bool, &[u8], u32); 5] = [
        (false, &[4, 1, 1], 1),
        (true, &[4, 1, 1, 1], 0),
        (true, &[5, 1, 1], 1),
        (false, &[6, 1, 1], 2),
        (true, &[6, 1, 1], 1),
    ];
    for (switch, faces, hits) in cases {
        let mut b = battle(&file, 12);
        b.rules.antimatter_pd_heavy = switch;
        let mut all = vec![NEAR];
        all.extend_from_slice(faces);
        let rec = scripted(&mut b, &plot(&[ANTIMATTER], 0), &all);
        let d = detonations(&rec);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].0, hits, "{faces:?}, heavy {switch}");
        assert_eq!(d[0].2.len() as u32, 3 - hits);
    }
}

/// Mean damage of an antimatter missile against one PDS, unscreened, under
/// both readings, sampled against the exact value. The dice left, N, are
/// 3 less the PD hits (at most 3): salvo column N = 3 (1/2), 2 (1/3), and
/// after a 6 (two hits) its extra die decides 1 (a miss, 1/2) or 0; heavy
/// column N = 3 (2/3) or 2 (1/3). The damage is N d6: mean 3.5·E[N],
/// variance E[N]·35/12 + 3.5²·Var[N].
#[test]
fn antimatter_damage_through_one_pds_matches_both_readings() {
    let salvo: [(u32, f64); 4] = [(3, 0.5), (2, 1.0 / 3.0), (1, 1.0 / 12.0), (0, 1.0 / 12.0)];
    let heavy: [(u32, f64); 2] = [(3, 2.0 / 3.0), (2, 1.0 / 3.0)];
    let file = records("", "System: PDS\n\n");
    for (switch, dist) in [(false, &salvo[..]), (true, &heavy[..])] {
        let total: f64 = dist.iter().map(|(_, p)| p).sum();
        assert_abs_diff_eq!(total, 1.0, epsilon = 1e-12);
        let en: f64 = dist.iter().map(|(n, p)| f64::from(*n) * p).sum();
        let en2: f64 = dist.iter().map(|(n, p)| f64::from(n * n) * p).sum();
        let mean = 3.5 * en;
        let var = en * 35.0 / 12.0 + 3.5 * 3.5 * (en2 - en * en);
        let runs = 20_000u64;
        let mut sum = 0.0;
        let p = checked(&battle(&file, 12), &plot(&[ANTIMATTER], 0));
        for seed in 0..runs {
            let mut b = battle(&file, 12);
            b.rules.antimatter_pd_heavy = switch;
            run_volley(&mut b, &p, 0, &mut Dice::new(seed), &mut (), &mut Scratch::default());
            sum += f64::from(b.units[1].hull_lost + b.units[2].hull_lost);
        }
        let sample = sum / runs as f64;
        let bound = 5.0 * var.sqrt() / (runs as f64).sqrt();
        assert!(
            (sample - mean).abs() <= bound,
            "switch {switch}: sample {sample:.4}, exact {mean:.4}, bound {bound:.4}"
        );
    }
    // The figures docs/orders.md gives: 7.875 and 28/3.
    assert_abs_diff_eq!(3.5 * (1.5 + 2.0 / 3.0 + 1.0 / 12.0), 7.875, epsilon = 1e-12);
}

/// The switch is read from `[rules]` (default off) and kept in the next
/// Exchange's scenario by `fam resolve --out`.
#[test]
fn the_antimatter_switch_is_read_and_written_back() {
    let dir = tempfile::tempdir().unwrap();
    let original = std::fs::read_to_string(repo().join("scenarios/duel.toml")).unwrap();
    let ssd = format!("{}/", repo().join("ssd").display());
    let body = |rules: &str| {
        original
            .replace("../ssd/", &ssd)
            .replacen("[sides]", &format!("{rules}[sides]"), 1)
    };
    let plain = dir.path().join("plain.toml");
    std::fs::write(&plain, body("")).unwrap();
    let set = dir.path().join("set.toml");
    std::fs::write(&set, body("[rules]\nantimatter_pd_heavy = true\n\n")).unwrap();
    let load = |p: &std::path::Path| {
        fam::orders::load_scenario(p, &[], &ParseOptions::default())
            .unwrap_or_else(|_| panic!("{} loads", p.display()))
            .battle
            .rules
    };
    assert!(!load(&plain).antimatter_pd_heavy);
    assert!(load(&set).antimatter_pd_heavy);
    let out = dir.path().join("next");
    let run = fam(&[
        "resolve",
        set.to_str().unwrap(),
        "--seed",
        "3",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let next = std::fs::read_to_string(out.join("scenario.toml")).unwrap();
    assert!(next.contains("\nantimatter_pd_heavy = true\n"), "{next}");
    assert!(load(&out.join("scenario.toml")).antimatter_pd_heavy);
}
