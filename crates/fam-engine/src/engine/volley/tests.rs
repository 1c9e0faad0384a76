//! Unit tests that span the Volley's steps: a small battle to target,
//! damage and check.

use super::damage::{damage_unit, sap_damage};
use super::targeting::targeting_bands;
use super::thresholds::threshold_check;
use crate::engine::dice::Dice;
use crate::engine::rules::Rules;
use crate::engine::state::{Battle, Control, Formation, RangeTable, Side, Sys, SysState, Unit};
use crate::engine::tables::evasion_ignored;
use crate::model::{Profile, SystemKind};

fn unit(name: &str, mass: u32, thrust: u32) -> Unit {
    Unit {
        name: name.into(),
        side: 0,
        formation: 0,
        profile: Profile::Fb1,
        mass,
        points: 0,
        civilian: false,
        original_thrust: thrust,
        thrust,
        advanced_drive: false,
        drive_hits: 0,
        drive_damaged: false,
        armour_total: 2,
        armour_lost: 0,
        armour_layers: Vec::new(),
        rows: vec![3, 3, 2, 2],
        hull_total: 10,
        hull_lost: 0,
        crew_boxes: vec![5, 10],
        systems: vec![Sys {
            kind: SystemKind::FireControl,
            arcs: 0,
            state: SysState::Operational,
            inactive: false,
            repaired: false,
            rounds: 0,
            spent: 0,
            magazine: None,
            er: false,
        }],
        destroyed: false,
        surrendered: false,
        control: Control::InControl,
        life_support_failing: None,
        derelict: false,
        craft: None,
        launch_tubes: None,
        screens_down: false,
    }
}

fn battle(units: Vec<Unit>) -> Battle {
    let ids = (0..units.len()).collect();
    Battle {
        sides: vec![Side { name: "A".into() }],
        formations: vec![Formation {
            name: "F".into(),
            side: 0,
            units: ids,
            reserve: Default::default(),
        }],
        units,
        ranges: RangeTable::new(1, 60),
        rules: Rules::default(),
    }
}

#[test]
fn targeting_bands_match_the_rules_example_and_its_shifts() {
    let b = battle(vec![unit("Frigate", 22, 8), unit("Destroyer", 44, 6)]);
    let mut out = Vec::new();
    targeting_bands(&b, 0, &[], &mut out);
    assert_eq!(out, [(1, 67), (0, 100)], "Destroyer 01-67, Frigate 68-100");
    targeting_bands(&b, 0, &[(0, 10)], &mut out);
    assert_eq!(out, [(1, 57), (0, 100)], "Frigate takes 10 points more exposure");
    targeting_bands(&b, 0, &[(0, -10)], &mut out);
    assert_eq!(out, [(1, 77), (0, 100)], "Frigate sheds 10 points");
}

#[test]
fn no_unit_falls_below_one_percentile() {
    let b = battle(vec![unit("Big", 300, 4), unit("Small", 1, 8)]);
    let mut out = Vec::new();
    targeting_bands(&b, 0, &[(1, -20)], &mut out);
    assert_eq!(out, [(0, 99), (1, 100)]);
}

#[test]
fn armour_takes_normal_damage_first_and_penetrating_goes_to_the_hull() {
    let mut u = unit("T", 40, 4);
    // 3 normal: 2 to armour, 1 to hull; 2 penetrating to the hull.
    assert_eq!(damage_unit(&mut u, 3, 2), (2, 3, 1, 0));
    assert_eq!((u.armour_lost, u.hull_lost), (2, 3));
    // 2 more hull boxes cross the crew factor in box 5 and no row end.
    assert_eq!(damage_unit(&mut u, 2, 0), (0, 2, 0, 1));
    // Overkill destroys the Unit and stops at the last box.
    assert_eq!(damage_unit(&mut u, 0, 20), (0, 5, 3, 1));
    assert!(u.destroyed);
}

#[test]
fn sap_damage_sends_half_rounded_up_to_armour() {
    // FTC §6.5 example: hits of 3, 1, 3, 6 on 4 armour → 4 armour, 9 hull.
    let mut u = unit("T", 100, 4);
    u.armour_total = 4;
    u.rows = vec![10, 10, 10, 10];
    u.hull_total = 40;
    let mut armour = 0;
    let mut hull = 0;
    for hit in [3, 1, 3, 6] {
        let (a, h, _, _) = sap_damage(&mut u, hit);
        armour += a;
        hull += h;
    }
    assert_eq!((armour, hull), (4, 9));
}

#[test]
fn evasion_is_ignored_by_wide_arcs() {
    assert_eq!((0..=6).map(evasion_ignored).collect::<Vec<_>>(), [0, 0, 0, 1, 1, 2, 2]);
}

#[test]
fn a_threshold_check_rolls_every_working_system_then_the_drive() {
    let mut b = battle(vec![unit("T", 40, 6)]);
    b.units[0].hull_lost = 3; // first row complete
    // FCS rolls 6 (lost at 6+), drive rolls 6 (halved).
    let mut dice = Dice::from_faces(&[6, 6]);
    threshold_check(&mut b, 0, 1, &mut dice, &mut ());
    assert_eq!(b.units[0].systems[0].state, SysState::Damaged);
    assert_eq!(b.units[0].thrust, 3);
    // Two rows at once: second row needs 5, +1 for the extra row → 4+ effective.
    let mut b = battle(vec![unit("T", 40, 6)]);
    b.units[0].hull_lost = 6;
    let mut dice = Dice::from_faces(&[4, 3]);
    threshold_check(&mut b, 0, 2, &mut dice, &mut ());
    assert_eq!(b.units[0].systems[0].state, SysState::Damaged);
    assert_eq!(b.units[0].thrust, 6, "drive 3 + 1 = 4 < 5 survives");
}
