//! Standing orders (`engine::doctrine`, `[doctrine.FORMATION]` tables):
//! what each selector picks, when the withdrawal trigger fires, the plots
//! each option makes, that every generated plot passes the orders checks,
//! every error the tables can have, and `fam resolve` playing them.

use crate::support::checked;
use crate::support::diagnostic_lines as diagnostics;
use std::collections::{BTreeMap, BTreeSet};

use fam::diag::SourceFile;
use fam::engine::checked::CheckedPlot;
use fam::engine::doctrine::{
    DcKind, Doctrine, EvasionSplit, FighterUse, Movement, Ordnance, PdMode, PlotSource, Selector, WithdrawWhen,
    beam_dice_at, default_formation_plot, doctrine_formation_plot, doctrine_plot, enemy_has_missiles, fire_target,
    hull_in_fight, maneuver_target, mass_in_fight, needle_aim, rank, select_enemy, standing_plot, withdraw_triggered,
};
use fam::engine::plot::{
    CraftAction, CraftOrder, ExchangePlot, FormationId, FormationPlot, Maneuver, ManeuverOrder, NeedleOrder, PdOrder,
    UnitId,
};
use fam::engine::state::{Battle, SysState};
use fam::gzf::{self, ParseOptions, SystemKind};
use fam::orders::doctrine::doctrine_toml;
use fam::orders::{self, Loaded, Report};
use fam::report::{Header, Style};
use fam::resolve::resolve;

use crate::orders_write::{must_build, orders_per_side, read_shipped, scenarios, without_tables};
use crate::support::{fam, repo, text};

// ---- Helpers ----------------------------------------------------------------

/// Ship records by their file name in `ssd/`.
fn read_ssd(p: &str) -> Result<SourceFile, String> {
    std::fs::read_to_string(repo().join("ssd").join(p))
        .map(|t| SourceFile::new(p, t))
        .map_err(|e| e.to_string())
}

fn load(scenario: &str) -> Loaded {
    must_build("test scenario", scenario, &[], &mut read_ssd)
}

fn formation(b: &Battle, name: &str) -> FormationId {
    b.formations.iter().position(|f| f.name == name).unwrap()
}

fn unit(b: &Battle, name: &str) -> UnitId {
    b.units.iter().position(|u| u.name == name).unwrap()
}

fn plot(b: &Battle, f: FormationId, d: &Doctrine) -> FormationPlot {
    doctrine_formation_plot(b, f, d).expect("a Formation in the fight has a plot")
}

/// The weapons Unit `u` fires in each Volley (0-based system indices).
fn fired(p: &FormationPlot, u: UnitId) -> [Vec<usize>; 3] {
    let w = |v: usize| {
        p.volleys[v]
            .fire
            .iter()
            .filter(|o| o.unit == u)
            .flat_map(|o| o.weapons.clone())
            .collect::<Vec<_>>()
    };
    [w(0), w(1), w(2)]
}

fn build(scenario: &str, orders: &[&str]) -> Result<Loaded, Vec<Report>> {
    orders::build(
        SourceFile::new("scenario.toml", scenario),
        orders
            .iter()
            .enumerate()
            .map(|(i, t)| SourceFile::new(format!("orders{}.toml", i + 1), *t))
            .collect(),
        &mut read_ssd,
        &ParseOptions::default(),
    )
}

fn problems(scenario: &str, orders: &[&str]) -> Vec<String> {
    match build(scenario, orders) {
        Ok(l) => panic!("expected errors, got none; warnings: {:?}", diagnostics(&l.warnings)),
        Err(r) => diagnostics(&r),
    }
}

/// Asserts an error in `file` where `needle` starts in `text` (a `|` in the
/// needle marks the position after some context) saying `fragment`.
fn expect(found: &[String], file: &str, text: &str, needle: &str, fragment: &str) {
    let (context, rest) = needle.split_once('|').unwrap_or(("", needle));
    let whole = format!("{context}{rest}");
    assert_eq!(
        text.matches(&whole).count(),
        1,
        "needle {whole:?} not unique in\n{text}"
    );
    let (line, col) = SourceFile::new("x", text).line_col(text.find(&whole).unwrap() + context.len());
    let head = format!("{file}:{line}:{col}: error: ");
    assert!(
        found.iter().any(|l| l.starts_with(&head) && l.contains(fragment)),
        "no error at {file}:{line}:{col} ({needle:?}) saying {fragment:?}; found:\n{}",
        found.join("\n")
    );
}

/// Six enemy and friendly Formations around `Home`, for the selectors.
/// From Home: Near at 6 MU (a corvette, 20 mass, 4 hull, no beams), Big at
/// 12 (120 mass, 44 hull, two Class 2), Twin at 12 (40 mass, 12 hull, a
/// Class 2 and two Class 1), Guns at 24 (60 mass, 18 hull, two Class 2 and
/// a Class 1).
const PICK: &str = r#"gzf = ["meridian-compact.gzf", "kestrel-reach.gzf"]

[sides]
Ilse = ["Home", "Escort"]
Marek = ["Big", "Guns", "Twin", "Near"]

[formations]
Home = ["MCS Clear Heading"]
Escort = ["MCS Small Hours"]
Big = ["KRD Stone Patience", "KRD Bitter Updraft"]
Guns = ["KRD Long Watch"]
Twin = ["KRD Ridge Warden"]
Near = ["KRD Sharp Descent"]

[[range]]
between = ["Home", "Big"]
mu = 12

[[range]]
between = ["Home", "Guns"]
mu = 24

[[range]]
between = ["Home", "Twin"]
mu = 12

[[range]]
between = ["Home", "Near"]
mu = 6
"#;

/// Plots: Home (Clear Heading: FCS 6-7, Class 3 8, Class 2 9-10, Class 1
/// 11-12, PDS 13) and Pair (Unhurried Tide: needle 7; Patient Ember:
/// torpedo 7, Class 1 9-10), 40 + 40 mass, against a missile group at 30 MU
/// (Stone Patience: SMLs 8-9 on 2 ER loads, Class 2 11; Bitter Updraft: SMR
/// 6, submunition packs 7-8, Class 2 9; Ninefold Gale: SML 7 on 3 loads,
/// Class 2 9-10, Class 1 11) and pickets at 60 MU (Ridge Warden: Class 1
/// 8-9).
const PLOTS: &str = r#"gzf = ["meridian-compact.gzf", "kestrel-reach.gzf"]

[sides]
Ilse = ["Home", "Pair"]
Marek = ["Strike", "Pickets"]

[formations]
Home = ["MCS Clear Heading"]
Pair = ["MCS Unhurried Tide", "MCS Patient Ember"]
Strike = ["KRD Stone Patience", "KRD Bitter Updraft", "KRD Ninefold Gale"]
Pickets = ["KRD Ridge Warden"]

[[range]]
between = ["Home", "Strike"]
mu = 30

[[range]]
between = ["Pair", "Strike"]
mu = 30
"#;

// ---- Selectors -------------------------------------------------------------

#[test]
fn selectors_pick_the_nearest_largest_weakest_and_most_dangerous_enemy() {
    let b = load(PICK).battle;
    let f = |n| formation(&b, n);
    let home = f("Home");
    assert_eq!(mass_in_fight(&b, f("Big")), 120);
    assert_eq!(hull_in_fight(&b, f("Big")), 44);
    // Beam dice at the range from Home: Class 2 rolls 2 to 12 MU and 1 to
    // 24, Class 1 one to 12.
    assert_eq!(beam_dice_at(&b, f("Big"), 12), 4);
    assert_eq!(beam_dice_at(&b, f("Twin"), 12), 4);
    assert_eq!(beam_dice_at(&b, f("Guns"), 24), 2);
    assert_eq!(beam_dice_at(&b, f("Guns"), 12), 5);
    assert_eq!(beam_dice_at(&b, f("Near"), 6), 0);

    assert_eq!(select_enemy(&b, home, Selector::Nearest), Some(f("Near")));
    assert_eq!(select_enemy(&b, home, Selector::Largest), Some(f("Big")));
    assert_eq!(select_enemy(&b, home, Selector::Weakest), Some(f("Near")));
    // Big and Twin both roll 4 dice at 12 MU: Big is listed first.
    assert_eq!(select_enemy(&b, home, Selector::MostDangerous), Some(f("Big")));
    // Friends are never candidates; nor is the Formation itself.
    let all = rank(&b, home, Selector::Nearest);
    assert_eq!(all, vec![f("Near"), f("Big"), f("Twin"), f("Guns")]);
    assert_eq!(
        rank(&b, home, Selector::MostDangerous),
        vec![f("Big"), f("Twin"), f("Guns"), f("Near")]
    );
    // From the other side, Home and Escort are the candidates.
    assert_eq!(rank(&b, f("Guns"), Selector::Largest), vec![f("Home"), f("Escort")]);
}

#[test]
fn selector_ties_go_to_the_nearest_then_to_the_first_listed() {
    let mut b = load(PICK).battle;
    let f = |b: &Battle, n| formation(b, n);
    let home = f(&b, "Home");
    let (big, twin, guns, near) = (f(&b, "Big"), f(&b, "Twin"), f(&b, "Guns"), f(&b, "Near"));
    // Most dangerous: Twin moves nearer than Big, same dice.
    b.ranges.set(home, twin, 9);
    assert_eq!(select_enemy(&b, home, Selector::MostDangerous), Some(twin));
    // Guns closes to 12: five dice beat four whatever the range.
    b.ranges.set(home, guns, 12);
    assert_eq!(select_enemy(&b, home, Selector::MostDangerous), Some(guns));
    // Largest and weakest by what is left in the fight.
    let patience = unit(&b, "KRD Stone Patience");
    b.units[patience].destroyed = true;
    assert_eq!(mass_in_fight(&b, big), 40);
    assert_eq!(select_enemy(&b, home, Selector::Largest), Some(guns));
    let watch = unit(&b, "KRD Long Watch");
    b.units[watch].destroyed = true;
    // Big and Twin both have 40 mass left: Twin is nearer (9 MU).
    assert_eq!(select_enemy(&b, home, Selector::Largest), Some(twin));
    b.ranges.set(home, twin, 12);
    assert_eq!(
        select_enemy(&b, home, Selector::Largest),
        Some(big),
        "same range: the first listed"
    );
    let descent = unit(&b, "KRD Sharp Descent");
    b.units[descent].destroyed = true;
    assert!(!b.formation_active(near));
    // Big and Twin both have 12 hull boxes left.
    assert_eq!(select_enemy(&b, home, Selector::Weakest), Some(big));
    let warden = unit(&b, "KRD Ridge Warden");
    b.units[warden].hull_lost = 1;
    assert_eq!(select_enemy(&b, home, Selector::Weakest), Some(twin));
    assert_eq!(
        select_enemy(&b, home, Selector::Nearest),
        Some(big),
        "12 and 12: the first listed"
    );
}

#[test]
fn a_named_formation_is_picked_while_in_the_fight_and_fire_goes_only_at_enemies() {
    let mut b = load(PICK).battle;
    let f = |b: &Battle, n| formation(b, n);
    let (home, escort, big, guns, near) = (
        f(&b, "Home"),
        f(&b, "Escort"),
        f(&b, "Big"),
        f(&b, "Guns"),
        f(&b, "Near"),
    );
    assert_eq!(maneuver_target(&b, home, Selector::Formation(guns)), Some(guns));
    assert_eq!(
        maneuver_target(&b, home, Selector::Formation(escort)),
        Some(escort),
        "a friend may be the maneuver target"
    );
    assert_eq!(
        maneuver_target(&b, home, Selector::Formation(home)),
        Some(near),
        "never itself"
    );
    assert_eq!(select_enemy(&b, home, Selector::Formation(guns)), Some(guns));
    assert_eq!(
        select_enemy(&b, home, Selector::Formation(escort)),
        Some(near),
        "fire only at enemies"
    );

    // The fire target defaults to the maneuver target when it is an enemy.
    let d = |target, fire_at| Doctrine {
        target,
        fire_at,
        ..Doctrine::default()
    };
    assert_eq!(fire_target(&b, home, &d(Selector::Largest, None)), Some(big));
    assert_eq!(fire_target(&b, home, &d(Selector::Formation(escort), None)), Some(near));
    assert_eq!(
        fire_target(&b, home, &d(Selector::Largest, Some(Selector::Formation(guns)))),
        Some(guns)
    );
    assert_eq!(
        fire_target(&b, home, &d(Selector::Largest, Some(Selector::Weakest))),
        Some(near)
    );
    // A named Formation out of the fight: the nearest enemy instead.
    let watch = unit(&b, "KRD Long Watch");
    b.units[watch].derelict = true;
    assert_eq!(maneuver_target(&b, home, Selector::Formation(guns)), Some(near));
    assert_eq!(select_enemy(&b, home, Selector::Formation(guns)), Some(near));
    // With every enemy gone there is no target, and the plot holds no fire.
    for u in 0..b.units.len() {
        if b.units[u].side != b.formations[home].side {
            b.units[u].destroyed = true;
        }
    }
    assert_eq!(select_enemy(&b, home, Selector::Nearest), None);
    let p = plot(&b, home, &d(Selector::Formation(escort), None));
    assert_eq!(p.volleys[0].primary.map(|m| m.target), Some(escort));
    assert!(p.volleys.iter().all(|v| v.fire.is_empty()));
}

// ---- The withdrawal trigger ------------------------------------------------

#[test]
fn the_crippled_trigger_needs_more_than_half_the_mass_crippled_or_lost() {
    let mut b = load(PLOTS).battle;
    let pair = formation(&b, "Pair");
    let (tide, ember) = (unit(&b, "MCS Unhurried Tide"), unit(&b, "MCS Patient Ember"));
    assert!(!withdraw_triggered(&b, pair, WithdrawWhen::Crippled));
    // Two rows of the Tide's hull (2 boxes a row): crippled, 40 of 80 mass.
    b.units[tide].hull_lost = 4;
    assert!(b.units[tide].crippled());
    assert!(
        !withdraw_triggered(&b, pair, WithdrawWhen::Crippled),
        "half is not a majority"
    );
    // No Fire Control left cripples the Ember too.
    b.units[ember].systems[5].state = SysState::Damaged;
    assert!(b.units[ember].crippled());
    assert!(withdraw_triggered(&b, pair, WithdrawWhen::Crippled));
    b.units[ember].systems[5].state = SysState::Operational;
    // A Unit out of the fight counts as crippled.
    b.units[ember].destroyed = true;
    assert!(withdraw_triggered(&b, pair, WithdrawWhen::Crippled));
    assert!(!withdraw_triggered(&b, pair, WithdrawWhen::Never));
}

#[test]
fn the_losses_trigger_counts_the_mass_out_of_the_fight() {
    let mut b = load(PLOTS).battle;
    let pair = formation(&b, "Pair");
    let (tide, ember) = (unit(&b, "MCS Unhurried Tide"), unit(&b, "MCS Patient Ember"));
    b.units[tide].hull_lost = 4;
    assert!(
        !withdraw_triggered(&b, pair, WithdrawWhen::Losses(1)),
        "crippled is not lost"
    );
    b.units[ember].derelict = true;
    assert!(
        withdraw_triggered(&b, pair, WithdrawWhen::Losses(50)),
        "40 of 80 is 50 %"
    );
    assert!(!withdraw_triggered(&b, pair, WithdrawWhen::Losses(51)));
    b.units[ember].derelict = false;
    b.units[ember].surrendered = true;
    assert!(
        withdraw_triggered(&b, pair, WithdrawWhen::Losses(50)),
        "a surrender is a loss"
    );
    b.units[tide].destroyed = true;
    assert!(withdraw_triggered(&b, pair, WithdrawWhen::Losses(100)));
}

#[test]
fn a_withdrawing_formation_withdraws_from_every_enemy_with_all_thrust_to_speed() {
    let mut b = load(PLOTS).battle;
    let f = |b: &Battle, n| formation(b, n);
    let (pair, strike, pickets) = (f(&b, "Pair"), f(&b, "Strike"), f(&b, "Pickets"));
    let d = Doctrine {
        target: Selector::Formation(pickets),
        maneuver: Movement::Close,
        evasion: EvasionSplit::Max,
        withdraw_when: WithdrawWhen::Losses(50),
        ..Doctrine::default()
    };
    let before = plot(&b, pair, &d);
    assert_eq!(
        before.volleys[0].primary,
        Some(ManeuverOrder {
            target: pickets,
            maneuver: Maneuver::Close
        })
    );
    assert_eq!((before.volleys[0].speed, before.volleys[0].evasion), (3, 3));
    let ember = unit(&b, "MCS Patient Ember");
    b.units[ember].destroyed = true;
    let after = plot(&b, pair, &d);
    for v in &after.volleys {
        assert_eq!((v.speed, v.evasion), (6, 0));
        assert_eq!(
            v.primary,
            Some(ManeuverOrder {
                target: strike,
                maneuver: Maneuver::Withdraw
            }),
            "the nearest enemy first"
        );
        assert_eq!(
            v.secondary,
            vec![ManeuverOrder {
                target: pickets,
                maneuver: Maneuver::Withdraw
            }]
        );
        // It still fires: at Pickets, the Formation its `target` names,
        // only while its weapons reach it; at 60 MU they do not, so at the
        // enemy Formation its fire hurts most (Strike, at 30 MU).
        assert_eq!(v.fire.len(), 1);
        assert_eq!(v.fire[0].target, Some(strike));
    }
}

// ---- Maneuver and thrust ---------------------------------------------------

#[test]
fn holding_a_range_closes_beyond_n_plus_3_and_withdraws_inside_n_minus_3() {
    let mut b = load(PLOTS).battle;
    let (home, strike) = (formation(&b, "Home"), formation(&b, "Strike"));
    let word = |b: &Battle, m: Movement| {
        let d = Doctrine {
            maneuver: m,
            ..Doctrine::default()
        };
        let p = plot(b, home, &d);
        assert_eq!(p.volleys[0].primary.unwrap().target, strike);
        p.volleys[0].primary.unwrap().maneuver
    };
    for (range, expected) in [
        (34, Maneuver::Close),
        (33, Maneuver::Maintain),
        (30, Maneuver::Maintain),
        (27, Maneuver::Maintain),
        (26, Maneuver::Withdraw),
    ] {
        b.ranges.set(home, strike, range);
        assert_eq!(word(&b, Movement::Hold(30)), expected, "hold 30 at {range} MU");
    }
    b.ranges.set(home, strike, 3);
    assert_eq!(word(&b, Movement::Hold(0)), Maneuver::Maintain);
    assert_eq!(word(&b, Movement::Hold(2)), Maneuver::Maintain);
    b.ranges.set(home, strike, 4);
    assert_eq!(word(&b, Movement::Hold(0)), Maneuver::Close);
    // Best range: Clear Heading's beams roll the most dice to 12 MU.
    b.ranges.set(home, strike, 13);
    assert_eq!(word(&b, Movement::BestRange), Maneuver::Close);
    b.ranges.set(home, strike, 12);
    assert_eq!(word(&b, Movement::BestRange), Maneuver::Maintain);
    assert_eq!(word(&b, Movement::Close), Maneuver::Close);
    assert_eq!(word(&b, Movement::Maintain), Maneuver::Maintain);
    assert_eq!(word(&b, Movement::Withdraw), Maneuver::Withdraw);
}

#[test]
fn evasion_is_a_third_a_number_of_dice_or_the_most_allowed_never_above_half() {
    let b = load(PLOTS).battle;
    let (home, strike) = (formation(&b, "Home"), formation(&b, "Strike"));
    let split = |f, e| {
        let d = Doctrine {
            evasion: e,
            ..Doctrine::default()
        };
        let p = plot(&b, f, &d);
        assert!(p.volleys.iter().all(|v| v.speed == p.volleys[0].speed));
        (p.volleys[0].speed, p.volleys[0].evasion)
    };
    assert_eq!(split(home, EvasionSplit::Third), (4, 2));
    assert_eq!(split(home, EvasionSplit::Dice(0)), (6, 0));
    assert_eq!(split(home, EvasionSplit::Dice(1)), (5, 1));
    assert_eq!(split(home, EvasionSplit::Dice(5)), (3, 3));
    assert_eq!(split(home, EvasionSplit::Max), (3, 3));
    // Strike's Formation Thrust is 4 (Stone Patience).
    assert_eq!(split(strike, EvasionSplit::Third), (3, 1));
    assert_eq!(split(strike, EvasionSplit::Max), (2, 2));
}

// ---- Weapons ---------------------------------------------------------------

#[test]
fn ordnance_fires_in_reach_racks_in_volley_1_and_salvos_while_loads_last() {
    let mut b = load(PLOTS).battle;
    let (home, pair, strike) = (formation(&b, "Home"), formation(&b, "Pair"), formation(&b, "Strike"));
    let at = |b: &mut Battle, mu| {
        b.ranges.set(home, strike, mu);
        b.ranges.set(pair, strike, mu);
    };
    let (patience, updraft, gale) = (
        unit(&b, "KRD Stone Patience"),
        unit(&b, "KRD Bitter Updraft"),
        unit(&b, "KRD Ninefold Gale"),
    );
    let d = Doctrine {
        use_ordnance: Ordnance::Always,
        ..Doctrine::default()
    };
    // At 30 MU: Patience's two launchers (extended range) share 2 loads, so
    // both fire in Volley 1; Updraft's rack (30 MU) in Volley 1, its
    // submunition packs (18 MU) not; Gale's launcher a load a Volley.
    let p = plot(&b, strike, &d);
    assert_eq!(fired(&p, patience), [vec![7, 8, 10], vec![10], vec![10]]);
    assert_eq!(fired(&p, updraft), [vec![5, 8], vec![8], vec![8]]);
    assert_eq!(
        fired(&p, gale),
        [vec![6, 8, 9, 10], vec![6, 8, 9, 10], vec![6, 8, 9, 10]]
    );
    assert!(p.volleys.iter().flat_map(|v| &v.fire).all(|o| o.fire_control == 4));
    // With use_ordnance = false: beams only.
    let hold = Doctrine {
        use_ordnance: Ordnance::Never,
        ..Doctrine::default()
    };
    let beams = plot(&b, strike, &hold);
    assert_eq!(fired(&beams, patience), [vec![10], vec![10], vec![10]]);
    assert_eq!(fired(&beams, gale), [vec![8, 9, 10], vec![8, 9, 10], vec![8, 9, 10]]);
    // At 31 MU only the extended-range salvos reach.
    at(&mut b, 31);
    let p = plot(&b, strike, &d);
    assert_eq!(fired(&p, patience)[0], vec![7, 8, 10]);
    assert_eq!(fired(&p, updraft)[0], vec![8]);
    assert_eq!(fired(&p, gale)[0], vec![8, 9, 10]);
    // At 43 MU nothing does; at 18 MU the packs fire too.
    at(&mut b, 43);
    assert_eq!(fired(&plot(&b, strike, &d), patience)[0], vec![10]);
    at(&mut b, 18);
    assert_eq!(fired(&plot(&b, strike, &d), updraft)[0], vec![5, 6, 7, 8]);
    // Spent ordnance stays out: one load left on Gale's magazine, the rack fired.
    b.units[gale].systems[7].spent = 2;
    b.units[updraft].systems[5].spent = 1;
    let p = plot(&b, strike, &d);
    assert_eq!(fired(&p, gale), [vec![6, 8, 9, 10], vec![8, 9, 10], vec![8, 9, 10]]);
    assert_eq!(fired(&p, updraft)[0], vec![6, 7, 8]);
    // A damaged launcher does not fire (the other then has both loads, one
    // a Volley); a destroyed battery is left out.
    b.units[patience].systems[7].state = SysState::Damaged;
    b.units[patience].systems[10].state = SysState::Destroyed;
    assert_eq!(fired(&plot(&b, strike, &d), patience), [vec![8], vec![8], vec![]]);
}

/// Needle beams aim at the system that matters most (docs/doctrine.md):
/// the Unit whose weapons and magazines are worth most, at its system
/// worth most; a Unit's only Fire Control outweighs everything.
#[test]
fn needle_beams_aim_at_the_system_that_matters_most() {
    let mut b = load(PLOTS).battle;
    let (pair, strike) = (formation(&b, "Pair"), formation(&b, "Strike"));
    let (tide, ember) = (unit(&b, "MCS Unhurried Tide"), unit(&b, "MCS Patient Ember"));
    let (patience, updraft, gale) = (
        unit(&b, "KRD Stone Patience"),
        unit(&b, "KRD Bitter Updraft"),
        unit(&b, "KRD Ninefold Gale"),
    );
    // Stone Patience: one magazine (system 10) feeds both launchers (6 a
    // launcher: 12), the launchers 6 each, a Class 2 Battery 4, a PDS 1:
    // 29, more than Ninefold Gale (magazine 6, launcher 6, two Class 2 8,
    // Class 1 2, two PDS 2: 24) or Bitter Updraft (rack 4, packs 1 + 1,
    // Class 2 4, PDS 1: 11). Its magazine is worth most.
    assert_eq!(needle_aim(&b, strike), Some((patience, 9)));
    let p = plot(&b, pair, &Doctrine::default());
    let order = p.volleys[0].fire.iter().find(|o| o.unit == tide).unwrap();
    assert!(order.weapons.contains(&6), "the default doctrine fires its needle beam");
    assert_eq!(
        order.needles,
        vec![NeedleOrder {
            weapon: 6,
            unit: patience,
            system: 9
        }]
    );
    let other = p.volleys[0].fire.iter().find(|o| o.unit == ember).unwrap();
    assert!(other.needles.is_empty());
    // With use_needles = false the needle beam stays out.
    let hold = Doctrine {
        use_needles: false,
        ..Doctrine::default()
    };
    assert!(!fired(&plot(&b, pair, &hold), tide)[0].contains(&6));
    // Its magazine gone, Stone Patience's launchers are worth nothing (5
    // left): Ninefold Gale, at its launcher (ties go to the lower number).
    b.units[patience].systems[9].state = SysState::Destroyed;
    assert_eq!(needle_aim(&b, strike), Some((gale, 6)));
    // Only Bitter Updraft left: its one Fire Control silences it for good.
    b.units[patience].destroyed = true;
    b.units[gale].destroyed = true;
    assert_eq!(needle_aim(&b, strike), Some((updraft, 4)));
    // Destroyed systems and core systems are never aimed at.
    b.units[updraft].systems[4].state = SysState::Destroyed;
    let (_, s) = needle_aim(&b, strike).unwrap();
    assert!(s != 4 && !b.units[updraft].systems[s].kind.is_core());
    assert_eq!(
        s, 5,
        "then its unspent rack (4), before the Class 2 Battery's 4 on ties"
    );
}

#[test]
fn class_1_beams_defend_when_the_enemy_has_missiles_or_always() {
    let mut b = load(PLOTS).battle;
    let f = |b: &Battle, n| formation(b, n);
    let (home, pair, pickets) = (f(&b, "Home"), f(&b, "Pair"), f(&b, "Pickets"));
    let (heading, ember, warden) = (
        unit(&b, "MCS Clear Heading"),
        unit(&b, "MCS Patient Ember"),
        unit(&b, "KRD Ridge Warden"),
    );
    let with = |pd| Doctrine {
        pd,
        ..Doctrine::default()
    };
    let pd = |u, w| PdOrder {
        unit: u,
        weapon: w,
        defend: None,
    };
    assert!(enemy_has_missiles(&b, home));
    assert!(!enemy_has_missiles(&b, pickets));
    let p = plot(&b, home, &with(PdMode::Auto));
    for v in &p.volleys {
        assert_eq!(v.point_defence, vec![pd(heading, 10), pd(heading, 11)]);
        assert_eq!(v.fire[0].weapons, vec![7, 8, 9], "the class-1 beams do not also fire");
    }
    let p = plot(&b, pair, &with(PdMode::Auto));
    assert_eq!(p.volleys[0].point_defence, vec![pd(ember, 8), pd(ember, 9)]);
    assert!(plot(&b, home, &with(PdMode::Never)).volleys[0].point_defence.is_empty());
    assert!(
        plot(&b, pickets, &with(PdMode::Auto)).volleys[0]
            .point_defence
            .is_empty()
    );
    assert_eq!(
        plot(&b, pickets, &with(PdMode::Always)).volleys[0].point_defence,
        vec![pd(warden, 7), pd(warden, 8)]
    );
    // Spent missiles do not count, nor submunition packs.
    let (patience, updraft, gale) = (
        unit(&b, "KRD Stone Patience"),
        unit(&b, "KRD Bitter Updraft"),
        unit(&b, "KRD Ninefold Gale"),
    );
    b.units[patience].systems[9].spent = 2;
    b.units[updraft].systems[5].spent = 1;
    assert!(enemy_has_missiles(&b, home), "Gale still has loads");
    b.units[gale].systems[7].state = SysState::Destroyed;
    assert!(!enemy_has_missiles(&b, home), "a lost magazine has no loads");
    assert!(plot(&b, home, &with(PdMode::Auto)).volleys[0].point_defence.is_empty());
}

#[test]
fn damage_control_kinds_become_each_units_system_numbers_in_order() {
    let mut b = load(PLOTS).battle;
    let (home, pair) = (formation(&b, "Home"), formation(&b, "Pair"));
    let (heading, tide, ember) = (
        unit(&b, "MCS Clear Heading"),
        unit(&b, "MCS Unhurried Tide"),
        unit(&b, "MCS Patient Ember"),
    );
    let dc = |b: &Battle, f, kinds: Vec<DcKind>| {
        let d = Doctrine {
            damage_control: kinds,
            ..Doctrine::default()
        };
        let p = plot(b, f, &d);
        assert!(
            p.volleys
                .iter()
                .all(|v| v.damage_control == p.volleys[0].damage_control)
        );
        p.volleys[0].damage_control.clone()
    };
    assert_eq!(
        dc(&b, home, vec![DcKind::FireControl, DcKind::Beam]),
        vec![(heading, vec![5, 6, 7, 8, 9, 10, 11])]
    );
    // A system named by two kinds keeps its first place.
    assert_eq!(
        dc(&b, home, vec![DcKind::Weapon, DcKind::FireControl, DcKind::Beam]),
        vec![(heading, vec![7, 8, 9, 10, 11, 12, 5, 6])]
    );
    assert_eq!(
        dc(
            &b,
            home,
            vec![
                DcKind::PowerCore,
                DcKind::LifeSupport,
                DcKind::Bridge,
                DcKind::Ftl,
                DcKind::Screen
            ]
        ),
        vec![(heading, vec![1, 2, 0, 3, 4])]
    );
    assert_eq!(dc(&b, home, vec![DcKind::Torpedo]), vec![], "no such system: no list");
    assert_eq!(
        dc(
            &b,
            pair,
            vec![DcKind::Needle, DcKind::Torpedo, DcKind::Sensor, DcKind::PointDefence]
        ),
        vec![(tide, vec![6, 5, 10]), (ember, vec![6, 10])]
    );
    // Destroyed systems cannot be repaired and are left out.
    b.units[heading].systems[7].state = SysState::Destroyed;
    assert_eq!(dc(&b, home, vec![DcKind::Beam]), vec![(heading, vec![8, 9, 10, 11])]);
    assert!(dc(&b, home, vec![]).is_empty());
}

#[test]
fn the_default_doctrine_is_the_empty_doctrine_and_sources_say_where_plots_came_from() {
    let mut b = load(PLOTS).battle;
    for f in 0..b.formations.len() {
        assert_eq!(
            doctrine_formation_plot(&b, f, &Doctrine::default()),
            default_formation_plot(&b, f)
        );
    }
    let (home, pair, strike, pickets) = (
        formation(&b, "Home"),
        formation(&b, "Pair"),
        formation(&b, "Strike"),
        formation(&b, "Pickets"),
    );
    let d = Doctrine {
        maneuver: Movement::Hold(24),
        ..Doctrine::default()
    };
    let mut doctrines = vec![None; 4];
    doctrines[pair] = Some(d.clone());
    doctrines[pickets] = Some(d.clone());
    let mut explicit = ExchangePlot {
        formations: vec![None; 4],
    };
    let explicit_of = |f| {
        default_formation_plot(&b, f).map(|mut p| {
            p.volleys[0].evasion = 0;
            p
        })
    };
    let (mine, theirs) = (explicit_of(strike), explicit_of(pair));
    explicit.formations[strike] = mine.clone();
    explicit.formations[pair] = theirs.clone();
    let warden = unit(&b, "KRD Ridge Warden");
    b.units[warden].destroyed = true;
    let (p, sources) = standing_plot(&b, &checked(&b, &explicit), &doctrines, true);
    assert_eq!(
        sources,
        vec![
            PlotSource::DefaultDoctrine,
            PlotSource::Explicit,
            PlotSource::Explicit,
            PlotSource::NoPlot
        ]
    );
    assert_eq!(p.formations[strike], mine);
    assert_eq!(p.formations[pair], theirs);
    assert_eq!(p.formations[home], default_formation_plot(&b, home));
    assert!(p.formations[pickets].is_none());
    let (p, sources) = standing_plot(&b, &CheckedPlot::default(), &doctrines, false);
    assert_eq!(
        sources,
        vec![
            PlotSource::NoPlot,
            PlotSource::StandingOrders,
            PlotSource::NoPlot,
            PlotSource::NoPlot
        ]
    );
    assert_eq!(p.formations[pair], doctrine_formation_plot(&b, pair, &d));
    assert_eq!(
        doctrine_plot(&b, &doctrines).formations[home],
        default_formation_plot(&b, home)
    );
}

// ---- Every generated plot is legal -----------------------------------------

/// Doctrines for every Formation of `battle`, the `k`-th set: over k = 1..=8
/// every option of every key is used by some Formation of every scenario
/// with at least two Formations (one in nine keeps the default doctrine).
fn doctrines_for(battle: &Battle, k: usize) -> Vec<Option<Doctrine>> {
    use DcKind::*;
    let n = battle.formations.len();
    (0..n)
        .map(|f| {
            let i = k + 5 * f;
            if i % 9 == 8 {
                return None;
            }
            let side = battle.formations[f].side;
            let enemy = (0..n).find(|&e| battle.formations[e].side != side).unwrap();
            let friend = (0..n).find(|&e| e != f && battle.formations[e].side == side);
            let targets = [
                Selector::Nearest,
                Selector::Largest,
                Selector::Weakest,
                Selector::MostDangerous,
                Selector::Formation(enemy),
                Selector::Formation(friend.unwrap_or(enemy)),
            ];
            let maneuvers = [
                Movement::Auto,
                Movement::BestRange,
                Movement::Close,
                Movement::Maintain,
                Movement::Withdraw,
                Movement::Hold(0),
                Movement::Hold(12),
                Movement::Hold(30),
                Movement::Hold(500),
            ];
            let evasions = [
                EvasionSplit::Auto,
                EvasionSplit::Third,
                EvasionSplit::Dice(0),
                EvasionSplit::Dice(1),
                EvasionSplit::Dice(3),
                EvasionSplit::Dice(50),
                EvasionSplit::Max,
            ];
            let fire = [
                None,
                Some(Selector::Nearest),
                Some(Selector::Largest),
                Some(Selector::Weakest),
                Some(Selector::MostDangerous),
                Some(Selector::Formation(enemy)),
            ];
            let pds = [PdMode::Auto, PdMode::Never, PdMode::Always];
            let withdraws = [
                WithdrawWhen::Auto,
                WithdrawWhen::Never,
                WithdrawWhen::Crippled,
                WithdrawWhen::Losses(1),
                WithdrawWhen::Losses(25),
                WithdrawWhen::Losses(50),
                WithdrawWhen::Losses(100),
            ];
            let mut reversed = DcKind::ALL.to_vec();
            reversed.reverse();
            let dcs = [
                vec![],
                DcKind::ALL.to_vec(),
                reversed,
                vec![FireControl, Beam, Screen],
                vec![Weapon, Bridge],
                vec![Ordnance, PointDefence, Needle, Torpedo, Sensor, Adfc, Ftl],
            ];
            Some(Doctrine {
                target: targets[i % 6],
                maneuver: maneuvers[(i + f) % 9],
                evasion: evasions[(i / 2) % 7],
                fire_at: fire[(i + 2) % 6],
                use_ordnance: [
                    fam::engine::doctrine::Ordnance::Always,
                    fam::engine::doctrine::Ordnance::Never,
                    fam::engine::doctrine::Ordnance::Auto,
                ][i % 3],
                use_needles: i % 4 != 2,
                pd: pds[i % 3],
                withdraw_when: withdraws[(i + 1) % 7],
                damage_control: dcs[(i + 3) % 6].clone(),
                fighters: if i % 5 == 3 {
                    FighterUse::Hold
                } else {
                    FighterUse::Strike
                },
            })
        })
        .collect()
}

/// What the generated plots did, to show the test reached every option.
#[derive(Default)]
struct Seen {
    options: BTreeSet<String>,
    plots: BTreeMap<&'static str, usize>,
}

impl Seen {
    fn doctrines(&mut self, doctrines: &[Option<Doctrine>]) {
        for d in doctrines.iter().flatten() {
            let kind = |s: String| s.split(['(', ' ']).next().unwrap_or_default().to_string();
            self.options
                .insert(format!("target {}", kind(format!("{:?}", d.target))));
            self.options
                .insert(format!("maneuver {}", kind(format!("{:?}", d.maneuver))));
            self.options
                .insert(format!("evasion {}", kind(format!("{:?}", d.evasion))));
            self.options.insert(format!(
                "fire_at {}",
                d.fire_at.map_or("none".into(), |s| kind(format!("{s:?}")))
            ));
            self.options.insert(format!("ordnance {:?}", d.use_ordnance));
            self.options.insert(format!("needles {}", d.use_needles));
            self.options.insert(format!("pd {:?}", d.pd));
            self.options
                .insert(format!("withdraw {}", kind(format!("{:?}", d.withdraw_when))));
            self.options
                .insert(format!("damage control {}", d.damage_control.is_empty()));
        }
    }

    fn plot(&mut self, b: &Battle, plot: &ExchangePlot) {
        let mut count = |what| *self.plots.entry(what).or_insert(0) += 1;
        for (f, p) in plot.formations.iter().enumerate() {
            let Some(p) = p else { continue };
            for v in &p.volleys {
                match v.primary.map(|m| m.maneuver) {
                    Some(Maneuver::Close) => count("close"),
                    Some(Maneuver::Maintain) => count("maintain"),
                    Some(Maneuver::Withdraw) => count("withdraw"),
                    None => {}
                }
                if !v.secondary.is_empty() {
                    count("withdrawal from every enemy");
                }
                if v.evasion > 0 && v.evasion == b.formation_thrust(f) / 2 {
                    count("evasion at the cap");
                }
                if !v.point_defence.is_empty() {
                    count("point defence");
                }
                if !v.damage_control.is_empty() {
                    count("damage control");
                }
                for o in &v.fire {
                    if !o.needles.is_empty() {
                        count("needle");
                    }
                    for &w in &o.weapons {
                        match b.units[o.unit].systems[w].kind {
                            SystemKind::Sml => count("salvo launcher"),
                            SystemKind::Smr => count("salvo rack"),
                            SystemKind::Missile { .. } => count("heavy missile"),
                            SystemKind::SubmunitionPack => count("submunition pack"),
                            SystemKind::PulseTorpedo { .. } => count("torpedo"),
                            _ => {}
                        }
                    }
                }
            }
        }
    }
}

/// The next Exchange's scenario: the original without plots, ranges and
/// standing orders, the ranges of `state`, the standing orders as written.
fn next_scenario(bare: &str, state: &str, exchange: u32, standing: &str) -> String {
    let ranges = &state[state.find("\n[[range]]").expect("ranges in the state")..];
    let ranges = &ranges[..ranges.find("\n[[unit]]").unwrap_or(ranges.len())];
    format!("exchange = {exchange}\n{bare}\n{ranges}\n{standing}")
}

/// Standing orders never make an illegal plot: over every shipped scenario,
/// seeds 1 to 8 and four Exchanges each, with doctrines using every option,
/// the plots written as orders files pass the orders checks and read back
/// the same; the standing orders themselves go through their TOML form.
#[test]
fn generated_plots_pass_the_orders_checks_for_every_option_in_every_scenario() {
    let mut seen = Seen::default();
    for (name, text) in scenarios() {
        let first = without_tables(&text, &["plot", "doctrine"]);
        let bare = without_tables(&text, &["plot", "doctrine", "range"]);
        let battle = must_build(&name, &first, &[], &mut read_shipped).battle;
        for seed in 1..=8u64 {
            let doctrines = doctrines_for(&battle, seed as usize);
            seen.doctrines(&doctrines);
            let standing = doctrine_toml(&battle, &doctrines);
            let mut scenario = format!("{first}\n{standing}");
            let mut records: Option<BTreeMap<String, String>> = None;
            for exchange in 1..=4u32 {
                let what = format!("{name} at seed {seed}, Exchange {exchange}");
                let mut read = |p: &str| match &records {
                    None => read_shipped(p),
                    Some(r) => r
                        .get(p)
                        .map(|t| SourceFile::new(p, t.clone()))
                        .ok_or_else(|| format!("{p} was not written back")),
                };
                let loaded = must_build(&what, &scenario, &[], &mut read);
                assert_eq!(
                    loaded.doctrine, doctrines,
                    "{what}: the standing orders read back differently"
                );
                let plot = doctrine_plot(&loaded.battle, &loaded.doctrine);
                seen.plot(&loaded.battle, &plot);
                let orders = orders_per_side(&loaded.battle, &plot);
                let built = must_build(&what, &scenario, &orders, &mut read);
                assert_eq!(built.plot, plot, "{what}: the generated plot reads back differently");
                assert!(
                    built.warnings.is_empty(),
                    "{what}: warnings\n{:?}",
                    diagnostics(&built.warnings)
                );
                // Play it and write the next Exchange's files.
                let header = Header {
                    title: name.clone(),
                    seed: seed * 100 + u64::from(exchange),
                    exchange: loaded.exchange,
                };
                let resolved = resolve(&header, &loaded.battle, &plot, Style::Text);
                let mut after = loaded.clone();
                after.write_back(&resolved.battle);
                records = Some(
                    after
                        .records
                        .iter()
                        .map(|r| (r.path.clone(), gzf::write(&r.file)))
                        .collect(),
                );
                scenario = next_scenario(&bare, &resolved.state, loaded.exchange + 1, &standing);
            }
        }
    }
    let options = [
        "target Nearest",
        "target Largest",
        "target Weakest",
        "target MostDangerous",
        "target Formation",
        "maneuver Auto",
        "maneuver BestRange",
        "maneuver Close",
        "maneuver Maintain",
        "maneuver Withdraw",
        "maneuver Hold",
        "evasion Auto",
        "evasion Third",
        "evasion Dice",
        "evasion Max",
        "fire_at none",
        "fire_at Nearest",
        "fire_at Largest",
        "fire_at Weakest",
        "fire_at MostDangerous",
        "fire_at Formation",
        "ordnance Auto",
        "ordnance Always",
        "ordnance Never",
        "needles true",
        "needles false",
        "pd Auto",
        "pd Never",
        "pd Always",
        "withdraw Auto",
        "withdraw Never",
        "withdraw Crippled",
        "withdraw Losses",
        "damage control true",
        "damage control false",
    ];
    for o in options {
        assert!(seen.options.contains(o), "no doctrine with {o}: {:?}", seen.options);
    }
    for p in [
        "close",
        "maintain",
        "withdraw",
        "withdrawal from every enemy",
        "evasion at the cap",
        "point defence",
        "damage control",
        "needle",
        "salvo launcher",
        "salvo rack",
        "heavy missile",
        "submunition pack",
        "torpedo",
    ] {
        assert!(
            seen.plots.get(p).is_some_and(|n| *n > 0),
            "no generated plot with {p}: {:?}",
            seen.plots
        );
    }
}

// ---- TOML --------------------------------------------------------------------

const BASE: &str = r#"gzf = ["meridian-compact.gzf", "kestrel-reach.gzf"]

[sides]
Ilse = ["Lancers", "Needle"]
Marek = ["Wardens"]

[formations]
Lancers = ["MCS Clear Heading", "MCS Small Hours"]
Needle = ["MCS Patient Ember"]
Wardens = ["KRD Ridge Warden", "KRD Long Watch"]
"#;

/// BASE with a `[doctrine.Lancers]` table holding `body`.
fn lancers(body: &str) -> String {
    format!("{BASE}\n[doctrine.Lancers]\n{body}\n")
}

#[test]
fn doctrine_tables_give_every_option() {
    let text = format!(
        "{BASE}
[doctrine.Lancers]
target = \"Wardens\"
maneuver = {{ hold = 30 }}
evasion = \"max\"
fire_at = \"most_dangerous\"
use_ordnance = true
use_needles = true
pd = \"auto\"
withdraw_when = {{ losses = 40 }}
damage_control = [\"fire_control\", \"beam\", \"screen\", \"bridge\", \"power_core\", \"life_support\", \"ftl\", \"adfc\", \"sensor\", \"torpedo\", \"needle\", \"ordnance\", \"point_defence\", \"weapon\"]

[doctrine.Needle]
target = \"largest\"
maneuver = \"withdraw\"
evasion = 1
pd = \"always\"
withdraw_when = \"crippled\"

[doctrine.Wardens]
"
    );
    let l = build(&text, &[]).unwrap_or_else(|r| panic!("{:?}", diagnostics(&r)));
    assert!(l.warnings.is_empty(), "{:?}", diagnostics(&l.warnings));
    let b = &l.battle;
    let lancers_d = Doctrine {
        target: Selector::Formation(formation(b, "Wardens")),
        maneuver: Movement::Hold(30),
        evasion: EvasionSplit::Max,
        fire_at: Some(Selector::MostDangerous),
        use_ordnance: Ordnance::Always,
        use_needles: true,
        pd: PdMode::Auto,
        withdraw_when: WithdrawWhen::Losses(40),
        damage_control: vec![
            DcKind::FireControl,
            DcKind::Beam,
            DcKind::Screen,
            DcKind::Bridge,
            DcKind::PowerCore,
            DcKind::LifeSupport,
            DcKind::Ftl,
            DcKind::Adfc,
            DcKind::Sensor,
            DcKind::Torpedo,
            DcKind::Needle,
            DcKind::Ordnance,
            DcKind::PointDefence,
            DcKind::Weapon,
        ],
        fighters: FighterUse::Strike,
    };
    let needle_d = Doctrine {
        target: Selector::Largest,
        maneuver: Movement::Withdraw,
        evasion: EvasionSplit::Dice(1),
        pd: PdMode::Always,
        withdraw_when: WithdrawWhen::Crippled,
        ..Doctrine::default()
    };
    assert_eq!(
        l.doctrine,
        vec![Some(lancers_d), Some(needle_d), Some(Doctrine::default())]
    );
    assert_eq!(l.doctrine_sources, vec![Some("scenario.toml".to_string()); 3]);
    // Standing orders are orders: no Formation is left "unplotted".
    assert!(l.unplotted().is_empty());
    // The other words.
    for (body, expected) in [
        ("target = \"auto\"\nfire_at = \"auto\"", Doctrine::default()),
        (
            "target = \"nearest\"",
            Doctrine {
                target: Selector::Nearest,
                ..Doctrine::default()
            },
        ),
        (
            "target = \"weakest\"\nfire_at = \"largest\"",
            Doctrine {
                target: Selector::Weakest,
                fire_at: Some(Selector::Largest),
                ..Doctrine::default()
            },
        ),
        (
            "maneuver = \"close\"\nevasion = \"third\"\npd = \"never\"\nwithdraw_when = \"never\"",
            Doctrine {
                maneuver: Movement::Close,
                evasion: EvasionSplit::Third,
                pd: PdMode::Never,
                withdraw_when: WithdrawWhen::Never,
                ..Doctrine::default()
            },
        ),
        (
            "maneuver = \"auto\"\nevasion = \"auto\"\nuse_ordnance = \"auto\"\npd = \"auto\"\nwithdraw_when = \"auto\"",
            Doctrine::default(),
        ),
        (
            "use_ordnance = false\nuse_needles = false",
            Doctrine {
                use_ordnance: Ordnance::Never,
                use_needles: false,
                ..Doctrine::default()
            },
        ),
        (
            "maneuver = \"maintain\"\nfire_at = \"nearest\"",
            Doctrine {
                maneuver: Movement::Maintain,
                fire_at: Some(Selector::Nearest),
                ..Doctrine::default()
            },
        ),
        (
            "maneuver = \"best_range\"\nfire_at = \"Wardens\"\nevasion = 0",
            Doctrine {
                maneuver: Movement::BestRange,
                fire_at: Some(Selector::Formation(2)),
                evasion: EvasionSplit::Dice(0),
                ..Doctrine::default()
            },
        ),
    ] {
        let l = build(&lancers(body), &[]).unwrap_or_else(|r| panic!("{body}: {:?}", diagnostics(&r)));
        assert_eq!(l.doctrine[0], Some(expected), "{body}");
    }
}

#[test]
fn written_standing_orders_read_back_the_same() {
    let l = load(PLOTS);
    let b = &l.battle;
    for k in 1..=8 {
        let doctrines = doctrines_for(b, k);
        let text = format!("{PLOTS}{}", doctrine_toml(b, &doctrines));
        let again = build(&text, &[]).unwrap_or_else(|r| panic!("{text}\n{:?}", diagnostics(&r)));
        assert_eq!(again.doctrine, doctrines, "{text}");
    }
    // The documented form.
    let d = Doctrine {
        target: Selector::Formation(formation(b, "Strike")),
        maneuver: Movement::Hold(30),
        fire_at: Some(Selector::Weakest),
        use_ordnance: Ordnance::Always,
        withdraw_when: WithdrawWhen::Losses(50),
        damage_control: vec![DcKind::FireControl, DcKind::Ordnance],
        ..Doctrine::default()
    };
    assert_eq!(
        doctrine_toml(b, &[None, Some(d)]),
        "
[doctrine.Pair]
target = \"Strike\"
maneuver = { hold = 30 }
evasion = \"auto\"
fire_at = \"weakest\"
use_ordnance = true
use_needles = true
pd = \"auto\"
withdraw_when = { losses = 50 }
damage_control = [\"fire_control\", \"ordnance\"]
"
    );
}

#[test]
fn doctrine_must_be_a_table_of_tables_with_known_keys() {
    let text = format!("{BASE}\n[doctrine]\nLancers = 3\n");
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "Lancers = |3",
        "the standing orders of `Lancers` must be a table",
    );
    let text = BASE.replace("[sides]", "doctrine = \"close\"\n\n[sides]");
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "doctrine = |\"close\"",
        "`doctrine` must be a table, not string",
    );
    let text = lancers("target = \"nearest\"\nspeed = 4\nrange = 30");
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "speed",
        "unknown key `speed` in the standing orders of `Lancers`",
    );
    expect(&found, "scenario.toml", &text, "range = ", "unknown key `range`");
    let text = format!("{BASE}\n[doctrine.Lancerz]\ntarget = \"nearest\"\n");
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "[doctrine.|Lancerz]",
        "unknown Formation `Lancerz`",
    );
}

#[test]
fn selectors_name_a_word_or_a_formation_it_may_target() {
    for (body, needle, fragment) in [
        ("target = 3", "target = |3", "`target` cannot be integer"),
        ("fire_at = [\"Wardens\"]", "fire_at = |[", "`fire_at` cannot be array"),
        ("target = \"Wardenz\"", "\"Wardenz\"", "unknown Formation `Wardenz`"),
        ("target = \"nearst\"", "\"nearst\"", "unknown Formation `nearst`"),
        ("fire_at = \"wardens\"", "\"wardens\"", "unknown Formation `wardens`"),
        (
            "target = \"Lancers\"",
            "target = |\"Lancers\"",
            "`Lancers` cannot maneuver against itself",
        ),
        (
            "fire_at = \"Lancers\"",
            "fire_at = |\"Lancers\"",
            "`Lancers` cannot fire on itself",
        ),
        (
            "fire_at = \"Needle\"",
            "fire_at = |\"Needle\"",
            "`Needle` is a Formation of the same side as `Lancers`",
        ),
    ] {
        let text = lancers(body);
        expect(&problems(&text, &[]), "scenario.toml", &text, needle, fragment);
    }
    // A friend may be the maneuver target.
    let l = build(&lancers("target = \"Needle\""), &[]).unwrap();
    assert_eq!(l.doctrine[0].as_ref().unwrap().target, Selector::Formation(1));
    // A Formation named like a selector word cannot be told from it.
    let text = BASE.replace("Wardens", "largest") + "\n[doctrine.Lancers]\ntarget = \"largest\"\n";
    expect(
        &problems(&text, &[]),
        "scenario.toml",
        &text,
        "target = |\"largest\"",
        "`largest` is a selector word and also the name of a Formation",
    );
}

#[test]
fn maneuver_is_a_word_or_a_range_to_hold() {
    for (body, needle, fragment) in [
        ("maneuver = \"charge\"", "\"charge\"", "unknown maneuver `charge`"),
        ("maneuver = 30", "maneuver = |30", "`maneuver` cannot be integer"),
        ("maneuver = { keep = 30 }", "keep", "unknown key `keep` in `maneuver`"),
        ("maneuver = { hold = -6 }", "-6", "a range cannot be negative"),
        ("maneuver = { hold = \"far\" }", "\"far\"", "`hold` cannot be string"),
        ("maneuver = {}", "{}", "`maneuver` names no range to hold"),
    ] {
        let text = lancers(body);
        expect(&problems(&text, &[]), "scenario.toml", &text, needle, fragment);
    }
}

#[test]
fn evasion_is_dice_or_max_or_third() {
    for (body, needle, fragment) in [
        ("evasion = -1", "-1", "Evasion cannot be negative"),
        ("evasion = \"lots\"", "\"lots\"", "unknown Evasion `lots`"),
        ("evasion = true", "true", "`evasion` cannot be boolean"),
        ("evasion = 1.5", "1.5", "`evasion` cannot be float"),
    ] {
        let text = lancers(body);
        expect(&problems(&text, &[]), "scenario.toml", &text, needle, fragment);
    }
    // More than half the thrust is allowed: it is cut when plotted.
    let l = build(&lancers("evasion = 9"), &[]).unwrap();
    let p = doctrine_plot(&l.battle, &l.doctrine);
    assert_eq!(p.formations[0].as_ref().unwrap().volleys[0].evasion, 3);
}

#[test]
fn switches_and_modes_take_their_own_values() {
    for (body, needle, fragment) in [
        ("use_ordnance = \"yes\"", "\"yes\"", "unknown use of ordnance `yes`"),
        (
            "use_ordnance = 1",
            "use_ordnance = |1",
            "`use_ordnance` cannot be integer",
        ),
        ("use_needles = 1", "use_needles = |1", "`use_needles` cannot be integer"),
        (
            "pd = \"sometimes\"",
            "\"sometimes\"",
            "unknown point-defence mode `sometimes`",
        ),
        ("pd = true", "true", "`pd` cannot be boolean"),
        ("fighters = \"swarm\"", "\"swarm\"", "unknown use of fighters `swarm`"),
        ("fighters = 2", "fighters = |2", "`fighters` cannot be integer"),
    ] {
        let text = lancers(body);
        expect(&problems(&text, &[]), "scenario.toml", &text, needle, fragment);
    }
}

#[test]
fn withdraw_when_is_a_word_or_a_loss_percentage() {
    for (body, needle, fragment) in [
        (
            "withdraw_when = \"morale\"",
            "\"morale\"",
            "unknown withdrawal trigger `morale`",
        ),
        ("withdraw_when = 50", "50", "`withdraw_when` cannot be integer"),
        (
            "withdraw_when = { lost = 50 }",
            "lost",
            "unknown key `lost` in `withdraw_when`",
        ),
        ("withdraw_when = { losses = 0 }", "0 }", "`losses` must be a percentage"),
        (
            "withdraw_when = { losses = 101 }",
            "101",
            "`losses` must be a percentage",
        ),
        (
            "withdraw_when = { losses = \"half\" }",
            "\"half\"",
            "`losses` cannot be string",
        ),
        ("withdraw_when = {}", "{}", "`withdraw_when` names no losses"),
    ] {
        let text = lancers(body);
        expect(&problems(&text, &[]), "scenario.toml", &text, needle, fragment);
    }
}

#[test]
fn damage_control_lists_known_kinds_once() {
    for (body, needle, fragment) in [
        (
            "damage_control = \"beam\"",
            "\"beam\"",
            "`damage_control` cannot be string",
        ),
        (
            "damage_control = [\"beam\", 8]",
            "8",
            "`a damage-control kind` cannot be integer",
        ),
        (
            "damage_control = [\"drive\"]",
            "\"drive\"",
            "unknown kind of system `drive`",
        ),
        (
            "damage_control = [\"beam\", \"fire_control\", \"beam\"]",
            "\"fire_control\", |\"beam\"",
            "`beam` is already in this damage-control priority",
        ),
    ] {
        let text = lancers(body);
        expect(&problems(&text, &[]), "scenario.toml", &text, needle, fragment);
    }
}

#[test]
fn orders_files_give_standing_orders_to_their_commanders_formations_once() {
    let scenario = format!("{BASE}\n[doctrine.Wardens]\nmaneuver = \"close\"\n");
    // Ilse's file: standing orders for her Formations, a plot for one.
    let ilse = "commander = \"Ilse\"\n\n[doctrine.Lancers]\nmaneuver = { hold = 24 }\n\n[doctrine.Needle]\nuse_needles = true\n";
    let l = build(&scenario, &[ilse]).unwrap_or_else(|r| panic!("{:?}", diagnostics(&r)));
    assert_eq!(l.doctrine[0].as_ref().unwrap().maneuver, Movement::Hold(24));
    assert!(l.doctrine[1].as_ref().unwrap().use_needles);
    assert_eq!(
        l.doctrine_sources,
        vec![
            Some("orders1.toml".to_string()),
            Some("orders1.toml".to_string()),
            Some("scenario.toml".to_string())
        ]
    );
    // Another commander's Formation, and one that already has standing orders.
    let bad = "commander = \"Ilse\"\n\n[doctrine.Wardens]\nmaneuver = \"withdraw\"\n";
    let found = problems(&scenario, &[bad]);
    expect(
        &found,
        "orders1.toml",
        bad,
        "[doctrine.|Wardens]",
        "Formation `Wardens` already has standing orders (scenario.toml line 12)",
    );
    let bad = "commander = \"Marek\"\n\n[doctrine.Lancers]\nmaneuver = \"withdraw\"\n";
    let found = problems(BASE, &[bad]);
    expect(
        &found,
        "orders1.toml",
        bad,
        "[doctrine.|Lancers]",
        "Formation `Lancers` belongs to `Ilse`, and this orders file is `Marek`'s",
    );
    // Without `commander`: the commander of the first Formation it names.
    let bad = "[doctrine.Lancers]\nmaneuver = \"close\"\n\n[doctrine.Wardens]\nmaneuver = \"close\"\n";
    let found = problems(BASE, &[bad]);
    expect(
        &found,
        "orders1.toml",
        bad,
        "[doctrine.|Wardens]",
        "Formation `Wardens` belongs to `Marek`, and this orders file is `Ilse`'s",
    );
    // ... or of the Formations it plots.
    let bad = "[doctrine.Wardens]\nmaneuver = \"close\"\n\n[[plot.Lancers.volley]]\nspeed = 6\nevasion = 0\n";
    let found = problems(BASE, &[bad]);
    expect(&found, "orders1.toml", bad, "[doctrine.|Wardens]", "belongs to `Marek`");
    // Twice in two orders files.
    let one = "[doctrine.Lancers]\nmaneuver = \"close\"\n";
    let found = problems(BASE, &[one, one]);
    expect(
        &found,
        "orders2.toml",
        one,
        "[doctrine.|Lancers]",
        "already has standing orders (orders1.toml line 1)",
    );
    // Unknown keys at the top of an orders file name `doctrine` among the
    // allowed ones; an orders file with only standing orders is an orders file.
    let found = problems(BASE, &["doctrin = 1\n"]);
    assert!(
        found
            .iter()
            .any(|l| l.contains("unknown key `doctrin` in an orders file")),
        "{found:?}"
    );
    assert!(!orders::is_scenario_text(one));
}

// ---- fam resolve and fam check ---------------------------------------------

#[test]
fn the_standing_orders_scenario_plays_to_a_decision_and_says_where_plots_came_from() {
    let out = fam(&["resolve", "scenarios/standing-orders.toml", "--exchanges", "8"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(
        report.contains(" wins: ") || report.contains("A draw: "),
        "no decision:\n{report}"
    );
    assert!(
        report.contains("Exchange 1 (seed 8), plots generated\n")
            && report.contains("Plots: explicit (Lances); standing orders (Salvo)\n"),
        "{report}"
    );
    assert!(report.contains("Plots: standing orders (Salvo, Lances)\n"), "{report}");
    let err = text(&out.stderr);
    assert!(
        err.contains("note: Formation `Salvo` has no plot: it follows its standing orders"),
        "{err}"
    );
    assert!(!err.contains("Lances"), "{err}");
    // The same again, byte for byte.
    let again = fam(&["resolve", "scenarios/standing-orders.toml", "--exchanges", "8"]);
    assert_eq!(again.stdout, out.stdout);
    // The full report says it under each Exchange's seed.
    let detail = text(
        &fam(&[
            "resolve",
            "scenarios/standing-orders.toml",
            "--exchanges",
            "8",
            "--detail",
        ])
        .stdout,
    );
    assert!(
        detail.contains("\nSeed 8\nPlots: explicit (Lances); standing orders (Salvo)\n"),
        "{detail}"
    );
    // The JSON result, Formation by Formation (Salvo is 0, Lances 1).
    let json = fam(&[
        "resolve",
        "scenarios/standing-orders.toml",
        "--exchanges",
        "8",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let exchanges = v["exchanges"].as_array().unwrap();
    assert_eq!(
        exchanges[0]["plots"],
        serde_json::json!(["standing_orders", "explicit"])
    );
    assert_eq!(exchanges[0]["generated_plots"], true);
    assert_eq!(
        exchanges[1]["plots"],
        serde_json::json!(["standing_orders", "standing_orders"])
    );
    assert!(!v["outcome"].is_null());
    // fam check counts standing orders.
    let check = fam(&["check", "scenarios/standing-orders.toml"]);
    assert!(
        text(&check.stdout).contains("plots for 1 of 2, standing orders for 2"),
        "{}",
        text(&check.stdout)
    );
}

#[test]
fn a_battle_plays_explicit_plots_first_then_the_default_doctrine() {
    let out = fam(&["resolve", "scenarios/duel.toml", "--exchanges", "3", "--seed", "5"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(
        report.contains("Exchange 1 (seed 5)\n-------------------\nPlots: explicit (Heading, Watch)\n"),
        "{report}"
    );
    assert!(report.contains("), plots generated\n"), "{report}");
    assert!(
        report.contains("Plots: default doctrine (Heading, Watch)\n"),
        "{report}"
    );
}

/// The duel without Watch's plot, with `extra` appended.
fn duel_without_watch(extra: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(repo().join("scenarios/duel.toml")).unwrap();
    let base = base.replace("../ssd/", &format!("{}/ssd/", repo().display()));
    let cut = base.find("[[plot.Watch.volley]]").expect("Watch's plot");
    let end = base[cut..].find("\n\n").map_or(base.len(), |i| cut + i);
    let text = format!("{}{}\n{extra}", &base[..cut], &base[end..]);
    let path = dir.path().join("duel.toml");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

#[test]
fn a_formation_without_plot_follows_its_standing_orders_or_in_a_battle_the_default() {
    let (_dir, path) = duel_without_watch("");
    let p = path.to_str().unwrap();
    // One Exchange: no plot, no fire (readings E3).
    let single = fam(&["resolve", p, "--seed", "2"]);
    assert!(single.status.success(), "{}", text(&single.stderr));
    assert!(
        text(&single.stderr)
            .contains("`Watch` has no plot: it puts its thrust into Speed, maintains and does not fire"),
        "{}",
        text(&single.stderr)
    );
    assert!(
        !text(&single.stdout).contains("KRD Long Watch FCS"),
        "{}",
        text(&single.stdout)
    );
    // A battle: the default doctrine from the first Exchange.
    let battle = fam(&["resolve", p, "--seed", "2", "--exchanges", "2"]);
    assert!(
        text(&battle.stderr).contains("`Watch` has no plot: it follows the default doctrine"),
        "{}",
        text(&battle.stderr)
    );
    assert!(
        text(&battle.stdout).contains("Plots: explicit (Heading); default doctrine (Watch)"),
        "{}",
        text(&battle.stdout)
    );
    // Standing orders play even in a single Exchange.
    let (_dir, path) = duel_without_watch("[doctrine.Watch]\nmaneuver = \"close\"\nevasion = \"max\"\n");
    let p = path.to_str().unwrap();
    let single = fam(&["resolve", p, "--seed", "2"]);
    assert!(single.status.success(), "{}", text(&single.stderr));
    assert!(
        text(&single.stderr).contains("`Watch` has no plot: it follows its standing orders"),
        "{}",
        text(&single.stderr)
    );
    let report = text(&single.stdout);
    assert!(report.contains("Watch: thrust 6; speed 3"), "{report}");
    assert!(report.contains("KRD Long Watch FCS #6 at Heading"), "{report}");
}

#[test]
fn the_next_exchanges_scenario_carries_the_standing_orders() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("next");
    let run = fam(&[
        "resolve",
        "scenarios/standing-orders.toml",
        "--exchanges",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let next = std::fs::read_to_string(out.join("scenario.toml")).unwrap();
    assert!(next.contains("\n[doctrine.Salvo]\n"), "{next}");
    let original = orders::load_scenario(
        &repo().join("scenarios/standing-orders.toml"),
        &[],
        &ParseOptions::default(),
    )
    .unwrap();
    let again = orders::load_scenario(&out.join("scenario.toml"), &[], &ParseOptions::default())
        .unwrap_or_else(|r| panic!("{:?}", diagnostics(&r)));
    assert_eq!(again.doctrine, original.doctrine);
    assert_eq!(again.exchange, 2);

    // A commander's standing orders go into that commander's orders file,
    // not into the shared scenario.
    let marek = dir.path().join("marek.toml");
    std::fs::write(
        &marek,
        "commander = \"Marek\"\n\n[doctrine.Watch]\nmaneuver = { hold = 18 }\nwithdraw_when = \"crippled\"\n",
    )
    .unwrap();
    let out = dir.path().join("duel");
    let run = fam(&[
        "resolve",
        "scenarios/duel.toml",
        "--orders",
        marek.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let next = std::fs::read_to_string(out.join("scenario.toml")).unwrap();
    assert!(!next.contains("[doctrine"), "{next}");
    let mine = std::fs::read_to_string(out.join("orders-Marek.toml")).unwrap();
    assert!(
        mine.contains("# Standing orders: a Formation without a plot above follows them.\n\n[doctrine.Watch]\n"),
        "{mine}"
    );
    // No `[doctrine.…]` table (its header comment may name the key).
    assert!(
        !std::fs::read_to_string(out.join("orders-Ilse.toml"))
            .unwrap()
            .lines()
            .any(|l| l.starts_with("[doctrine"))
    );
    let orders: Vec<std::path::PathBuf> = ["orders-Ilse.toml", "orders-Marek.toml"]
        .iter()
        .map(|n| out.join(n))
        .collect();
    let again = orders::load_scenario(&out.join("scenario.toml"), &orders, &ParseOptions::default())
        .unwrap_or_else(|r| panic!("{:?}", diagnostics(&r)));
    let watch = formation(&again.battle, "Watch");
    assert_eq!(
        again.doctrine[watch],
        Some(Doctrine {
            maneuver: Movement::Hold(18),
            withdraw_when: WithdrawWhen::Crippled,
            ..Doctrine::default()
        })
    );
    assert!(
        again.doctrine_sources[watch]
            .as_deref()
            .unwrap()
            .ends_with("orders-Marek.toml")
    );
    // Both Formations still get the editable template plot.
    assert_eq!(again.plot.formations.iter().filter(|p| p.is_some()).count(), 2);
}

// ---- Carriers and small craft -------------------------------------------------

/// The carrier strike scenario without its plots (its standing orders kept).
fn carrier_strike(extra: &str) -> Loaded {
    let text = std::fs::read_to_string(repo().join("scenarios/carrier-strike.toml")).unwrap();
    let text = without_tables(&text, &["plot", "doctrine"]).replace("../ssd/", "");
    load(&format!("{text}\n{extra}"))
}

#[test]
fn carriers_launch_every_ready_group_in_volley_1_and_fighter_formations_strike() {
    let l = carrier_strike("");
    let b = &l.battle;
    let (carrier, strike, line) = (formation(b, "Carrier"), formation(b, "Strike"), formation(b, "Line"));
    let groups = ["Cinder Flight", "TFP Ember Kiln/14", "TFP Ember Kiln/15"].map(|g| unit(b, g));
    let p = plot(b, carrier, &Doctrine::default());
    let mut launched = p.volleys[0].launch.clone();
    launched.sort_unstable();
    let mut all = groups.to_vec();
    all.sort_unstable();
    assert_eq!(launched, all, "every ready group launches in Volley 1");
    assert!(p.volleys[1].launch.is_empty() && p.volleys[2].launch.is_empty());
    // The interceptors ride with the carrier: they screen its largest ship.
    let screen = CraftOrder {
        group: groups[2],
        action: CraftAction::Screen(unit(b, "TFP Ember Kiln")),
    };
    assert!(p.volleys.iter().all(|v| v.craft == [screen]));
    // Strike is docked, so out of the fight, yet plotted for its launch:
    // half its thrust equivalent (12) in Volley 1, all of it after; close and
    // close again on the gun line; both groups at its largest ship.
    let sp = plot(b, strike, &Doctrine::default());
    let thrust: Vec<u32> = sp.volleys.iter().map(|v| v.speed + v.evasion).collect();
    assert_eq!(thrust, [6, 12, 12]);
    for v in &sp.volleys {
        assert_eq!(v.primary.map(|m| (m.target, m.maneuver)), Some((line, Maneuver::Close)));
        assert_eq!(v.after, v.primary);
        let targets: Vec<_> = v.craft.iter().map(|o| (o.group, o.action)).collect();
        let long = unit(b, "MCS Long Meridian");
        assert_eq!(
            targets,
            [
                (groups[0], CraftAction::Attack(long)),
                (groups[1], CraftAction::Attack(long))
            ]
        );
        assert!(v.fire.is_empty());
    }
}

#[test]
fn holding_fighters_launches_nothing_and_leaves_docked_formations_unplotted() {
    let l = carrier_strike("[doctrine.Carrier]\nfighters = \"hold\"\n[doctrine.Strike]\nfighters = \"hold\"\n");
    let b = &l.battle;
    let hold = l.doctrine[formation(b, "Carrier")].clone().expect("standing orders");
    assert_eq!(hold.fighters, FighterUse::Hold);
    let p = plot(b, formation(b, "Carrier"), &hold);
    assert!(
        p.volleys
            .iter()
            .all(|v| v.launch.is_empty() && v.recover.is_empty() && v.craft.is_empty())
    );
    assert!(doctrine_formation_plot(b, formation(b, "Strike"), &hold).is_none());
    // Written back, the key survives (and is left out when it is the default).
    let written = doctrine_toml(b, &l.doctrine);
    assert_eq!(written.matches("fighters = \"hold\"").count(), 2, "{written}");
    assert!(!doctrine_toml(b, &[Some(Doctrine::default())]).contains("fighters"));
}

#[test]
fn exhausted_groups_go_home_and_are_recovered_within_reach() {
    let mut l = carrier_strike("");
    let b = &mut l.battle;
    let (carrier, strike) = (formation(b, "Carrier"), formation(b, "Strike"));
    // The strike is out and spent, 3 MU from its carrier.
    for g in ["Cinder Flight", "TFP Ember Kiln/14"] {
        let u = unit(b, g);
        let c = b.units[u].craft.as_mut().unwrap();
        c.docked = false;
        c.cef = 0;
    }
    b.ranges.set(carrier, strike, 3);
    let b = &l.battle;
    let sp = plot(b, strike, &Doctrine::default());
    assert!(
        sp.volleys
            .iter()
            .all(|v| v.primary.map(|m| (m.target, m.maneuver)) == Some((carrier, Maneuver::Close)))
    );
    assert!(sp.volleys.iter().all(|v| v.after.is_none() && v.craft.is_empty()));
    let cp = plot(b, carrier, &Doctrine::default());
    let mut rec = cp.volleys[0].recover.clone();
    rec.sort_unstable();
    assert_eq!(rec, [unit(b, "Cinder Flight"), unit(b, "TFP Ember Kiln/14")]);
    // Out of reach: no recovery.
    let mut far = l.battle.clone();
    far.ranges.set(carrier, strike, 7);
    assert!(plot(&far, carrier, &Doctrine::default()).volleys[0].recover.is_empty());
}
