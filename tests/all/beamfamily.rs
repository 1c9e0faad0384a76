//! The beam-family direct-fire weapons of Full Thrust Continuum (issue 16):
//! grasers, heavy grasers, phasers, Gatling batteries, twin particle
//! arrays, meson projectors, Pulsers and plasma cannons. Dice by range and
//! band edge, every face of the beam table and of the damage dice, screens,
//! Evasion, rerolls, point-defence mode, Pulser settings, the records and
//! imports that carry them, and the default commander firing them.
//!
//! Every expected value is worked out here from the rules (ft-rules §1.2,
//! §1.4, §1.5, §4.6, §5.1 and `docs/readings.md` W20-W26), never copied
//! from a run. Statistical checks use fixed seeds and a bound of five
//! standard errors taken from the exact variance, so they cannot flake.

use crate::support::{checked, scripted};
use std::collections::BTreeMap;

use approx::{abs_diff_eq, assert_abs_diff_eq};

use fam::diag::SourceFile;
use fam::engine::dice::Dice;
use fam::engine::event::{GraserAttack, PdRoll, PulserSet, Recorder, WeaponIdle};
use fam::engine::plot::{ExchangePlot, FireOrder, FormationPlot, PdOrder, SystemId, VolleyPlot};
use fam::engine::rules::Rules;
use fam::engine::state::{Battle, Formation, RangeTable, Side, Unit};
use fam::engine::volley::{Scratch, run_volley};
use fam::ftjava::{self, Options};
use fam::gzf::{self, ParseOptions, PulserSetting, SystemKind};

use super::support::{fam, text};

// ---- the ships ------------------------------------------------------------------

/// The gunner's systems, all in the forward arc only (no Evasion ignored).
const FCS: SystemId = 0;
const GRASER1: SystemId = 1;
const GRASER2: SystemId = 2;
const HEAVY3: SystemId = 3;
const PHASER1: SystemId = 4;
const GATLING: SystemId = 5;
const TPA: SystemId = 6;
const MESON: SystemId = 7;
const PULSER_OPEN: SystemId = 8;
const PULSER_LONG: SystemId = 9;
const PULSER_MEDIUM: SystemId = 10;
const PULSER_SHORT: SystemId = 11;
const PLASMA2: SystemId = 12;
/// The launcher's salvo launcher.
const SML: SystemId = 1;

const GUNNER: &str = "Profile: FB1\n\nShip: Gunner\nMass: 100\nThrust-Rating: 6\n\
    Damage-Track: OOOOOOOOOO OOOOOOOOOO OOOOOOOOOO OOOOOOOOOO\n\n\
    System: FCS\n\n\
    System: Class 1 Graser\nFiring-Arc: F\n\n\
    System: Class 2 Graser\nFiring-Arc: F\n\n\
    System: Class 3 Heavy Graser\nFiring-Arc: F\n\n\
    System: Class 1 Phaser\nFiring-Arc: F\n\n\
    System: Gatling Battery\nFiring-Arc: F\n\n\
    System: Twin Particle Array\nFiring-Arc: F\n\n\
    System: Meson Projector\nFiring-Arc: F\n\n\
    System: Pulser\nFiring-Arc: F\n\n\
    System: Pulser\nFiring-Arc: F\nPulser-Setting: Long\n\n\
    System: Pulser\nFiring-Arc: F\nPulser-Setting: medium\n\n\
    System: Pulser\nFiring-Arc: F\nPulser-Setting: SHORT\n\n\
    System: Class 2 Plasma Cannon\nFiring-Arc: F\n\n";

/// Targets with 4 armour, `screens` screen generators and four rows of 15
/// hull boxes (no Volley here completes a row: no threshold dice); and a
/// salvo launcher with one load.
fn records() -> gzf::GzfFile {
    let mut text = String::from(GUNNER);
    for screens in 0..=2 {
        text.push_str(&format!(
            "Ship: Target{screens}\nMass: 100\nThrust-Rating: 4\nArmour: O O O O\n\
             Damage-Track: OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO\n\n"
        ));
        for _ in 0..screens {
            text.push_str("System: Screen Generator\n\n");
        }
    }
    text.push_str(
        "Ship: Launcher\nMass: 100\nThrust-Rating: 4\n\
         Damage-Track: OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO\n\n\
         System: FCS\n\nSystem: SML\nFiring-Arc: F\nMagazine: M1\n\n\
         System: SMM\nMagazine: M1\nRounds: O\n",
    );
    let parsed = gzf::parse(&text, &ParseOptions::default());
    assert!(!parsed.has_errors(), "the test records read: {:?}", parsed.diagnostics);
    parsed.file
}

/// The gunner (Unit 0) against `other` (Unit 1) at `range`.
fn battle(range: u32, other: &str) -> Battle {
    let file = records();
    let gunner = Unit::from_ship(file.ship("Gunner").unwrap(), file.profile, 0, 0);
    let target = Unit::from_ship(file.ship(other).unwrap(), file.profile, 1, 1);
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
        units: vec![gunner, target],
        ranges: RangeTable::new(2, range),
        rules: Rules::default(),
    }
}

fn target(screens: u8) -> String {
    format!("Target{screens}")
}

/// The gunner fires `weapons` at the target in every Volley; the target's
/// Formation rolls `evasion` Evasion dice.
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

fn lost(b: &Battle) -> (u32, u32) {
    (b.units[1].armour_lost, b.units[1].hull_lost)
}

// ---- the rules, restated -----------------------------------------------------------

/// The beam table (ft-rules §1.2): 4 one point (none behind a screen), 5
/// one, 6 two (one behind a level-2 screen).
fn beam_points(face: u8, screen: u8) -> u32 {
    match (face, screen) {
        (6, 2) => 1,
        (6, _) => 2,
        (5, _) => 1,
        (4, 0) => 1,
        _ => 0,
    }
}

/// A die's face under a DRM, clamped to 1..=6.
fn modified(face: u8, drm: i32) -> u8 {
    (i32::from(face) + drm).clamp(1, 6) as u8
}

/// A d3 read from a d6 face.
fn d3(face: u8) -> u32 {
    u32::from(face).div_ceil(2)
}

/// Semi-armour-piercing hits in turn on `armour_left` boxes: half of each,
/// rounded up, to the armour while it lasts, the rest to the hull.
fn sap(mut armour_left: u32, hits: &[u32]) -> (u32, u32) {
    let (mut armour, mut hull) = (0, 0);
    for &h in hits {
        let a = h.div_ceil(2).min(armour_left);
        armour_left -= a;
        armour += a;
        hull += h - a;
    }
    (armour, hull)
}

/// Normal damage on 4 armour boxes: armour first, the rest to the hull.
fn normal(points: u32) -> (u32, u32) {
    (points.min(4), points.saturating_sub(4))
}

/// Faces used for damage dice, in turn: every face appears.
const DAMAGE_FACES: [u8; 6] = [1, 4, 6, 3, 5, 2];

fn assert_close(what: &str, sample: f64, exact: f64, sd: f64, n: u64) {
    let bound = 5.0 * sd / (n as f64).sqrt();
    assert!(
        abs_diff_eq!(sample, exact, epsilon = bound),
        "{what}: sample {sample:.5}, exact {exact:.5}, bound {bound:.5}"
    );
}

/// A probability distribution over damage points.
type Dist = BTreeMap<u32, f64>;

fn convolve(a: &Dist, b: &Dist) -> Dist {
    let mut out = Dist::new();
    for (x, p) in a {
        for (y, q) in b {
            *out.entry(x + y).or_default() += p * q;
        }
    }
    out
}

fn point(x: u32) -> Dist {
    Dist::from([(x, 1.0)])
}

/// The damage of `hits` hits of a die uniform on 1..=`sides`.
fn hits_damage(hits: u32, sides: u32) -> Dist {
    let one: Dist = (1..=sides).map(|d| (d, 1.0 / f64::from(sides))).collect();
    (0..hits).fold(point(0), |acc, _| convolve(&acc, &one))
}

/// Damage of a reroll chain (unscreened, no DRM, a 6 rolling again) with
/// `per_face` giving the damage distribution of one reroll die's face,
/// enumerated to `depth` rerolls (the rest, under 6^-depth, dropped).
fn reroll_chain(per_face: &dyn Fn(u8) -> Dist, depth: u32) -> Dist {
    let mut out = Dist::new();
    for face in 1..=6u8 {
        let mut d = per_face(face);
        if face == 6 && depth > 0 {
            d = convolve(&d, &reroll_chain(per_face, depth - 1));
        }
        for (x, p) in d {
            *out.entry(x).or_default() += p / 6.0;
        }
    }
    out
}

fn mean_var(d: &Dist) -> (f64, f64) {
    let mean: f64 = d.iter().map(|(x, p)| f64::from(*x) * p).sum();
    let var = d.iter().map(|(x, p)| (f64::from(*x) - mean).powi(2) * p).sum();
    (mean, var)
}

/// Exact damage distribution of `n` dice of a weapon whose initial die
/// showing `face` deals `initial(face)` and, on a natural 6, the reroll
/// chain `chain`.
fn weapon_dist(n: u32, initial: &dyn Fn(u8) -> Dist, chain: Option<&Dist>) -> Dist {
    let mut one = Dist::new();
    for face in 1..=6u8 {
        let mut d = initial(face);
        if face == 6
            && let Some(c) = chain
        {
            d = convolve(&d, c);
        }
        for (x, p) in d {
            *one.entry(x).or_default() += p / 6.0;
        }
    }
    (0..n).fold(point(0), |acc, _| convolve(&acc, &one))
}

/// Samples the damage a Volley of `weapons` deals to a target with
/// `screens` at `range`: its mean against the exact distribution's.
fn sample_against(what: &str, weapons: &[SystemId], screens: u8, range: u32, exact: &Dist, seed: u64) {
    const N: u64 = 20_000;
    let start = battle(range, &target(screens));
    let p = checked(&start, &plot(weapons, 0));
    let mut dice = Dice::new(seed);
    let mut scratch = Scratch::default();
    let mut b = start.clone();
    let mut sum = 0u64;
    for _ in 0..N {
        b.reset_to(&start);
        run_volley(&mut b, &p, 0, &mut dice, &mut (), &mut scratch);
        sum += u64::from(b.units[1].armour_lost + b.units[1].hull_lost);
    }
    let (mean, var) = mean_var(exact);
    assert_close(what, sum as f64 / N as f64, mean, var.sqrt(), N);
}

// ---- 1. grasers and phasers: every face, scripted ------------------------------------

/// One graser (or phaser) die at 12 MU against screens 0, 1 and 2, every
/// initial face, and for a 6 every reroll face (and one chained 6): each
/// point of the beam table is a hit of 1d3; initial hits semi-armour-
/// piercing, reroll hits penetrating (readings W20, W21).
#[test]
fn graser_points_are_hits_of_a_d3_sap_and_rerolls_penetrate() {
    for weapon in [GRASER1, PHASER1] {
        for screens in 0..=2u8 {
            for face in 1..=6u8 {
                let rerolls: Vec<Vec<u8>> = if face == 6 {
                    let mut r: Vec<Vec<u8>> = (1..=5).map(|x| vec![x]).collect();
                    r.push(vec![6, 4]);
                    r
                } else {
                    vec![Vec::new()]
                };
                for chain in rerolls {
                    let initial_hits = beam_points(face, screens);
                    let reroll_hits: u32 = chain.iter().map(|&r| beam_points(r, 0)).sum();
                    let mut faces = vec![50, face];
                    faces.extend(&chain);
                    let damage: Vec<u8> = (0..initial_hits + reroll_hits)
                        .map(|i| DAMAGE_FACES[i as usize % 6])
                        .collect();
                    faces.extend(&damage);
                    let mut b = battle(12, &target(screens));
                    let rec = scripted(&mut b, &plot(&[weapon], 0), &faces);
                    let sap_hits: Vec<u32> = damage[..initial_hits as usize].iter().map(|&f| d3(f)).collect();
                    let pen: u32 = damage[initial_hits as usize..].iter().map(|&f| d3(f)).sum();
                    let (armour, hull) = sap(4, &sap_hits);
                    let case = format!("#{weapon} screen {screens}, face {face}, rerolls {chain:?}");
                    assert_eq!(lost(&b), (armour, hull + pen), "{case}");
                    assert!(
                        rec.events_of::<GraserAttack>().any(|e| matches!(
                            e,
                            GraserAttack { hits, reroll_hits: r, damage_faces, .. }
                                if *hits == sap_hits && r.iter().sum::<u32>() == pen && *damage_faces == damage
                        )),
                        "{case}"
                    );
                }
            }
        }
    }
}

/// Graser dice by 12 MU band, bands closed above: a class-2 graser rolls 2
/// dice to 12 MU, 1 to 24, none at 25 (no die rolled, idle).
#[test]
fn graser_dice_fall_off_by_twelve_mu_band() {
    for (range, dice) in [(0u32, 2u32), (12, 2), (13, 1), (24, 1), (25, 0)] {
        let mut b = battle(range, &target(0));
        let mut faces = vec![50];
        faces.extend(std::iter::repeat_n(1, dice as usize));
        let rec = scripted(&mut b, &plot(&[GRASER2], 0), &faces);
        let fired = rec
            .events_of::<GraserAttack>()
            .next()
            .map(|GraserAttack { dice, .. }| *dice)
            .unwrap_or(0);
        assert_eq!(fired, dice, "{range} MU");
    }
}

/// The Evasion DRM applies to the initial dice, not to rerolls: one
/// Evasion die showing 5 (one point) makes a 5 read 4 (no hit behind a
/// level-1 screen) and a 6 read 5 (one hit) that still rerolls.
#[test]
fn evasion_lowers_graser_dice_but_a_natural_six_still_rerolls() {
    let mut b = battle(12, &target(1));
    scripted(&mut b, &plot(&[GRASER1], 1), &[5, 50, 5]);
    assert_eq!(lost(&b), (0, 0));
    // 6 → 5: one hit; the reroll 6 → two hits (unscreened), and its reroll
    // 1 → none; damage faces 2, 5, 6 → 1 (SAP), 3 + 3 (penetrating).
    let mut b = battle(12, &target(1));
    scripted(&mut b, &plot(&[GRASER1], 1), &[5, 50, 6, 6, 1, 2, 5, 6]);
    let (armour, hull) = sap(4, &[1]);
    assert_eq!(lost(&b), (armour, hull + 6));
}

/// Readings W20: per die, the beam-table reading gives 0.8 hits (with the
/// reroll chain) where counting a scoring die as one hit gives 0.6, so a
/// graser does 4/3 the damage; the doctrine's mean (1.6 a die) and the
/// engine's samples agree with the exact distribution.
#[test]
fn graser_damage_matches_the_exact_distribution_and_the_reading_effect() {
    let chain_points = reroll_chain(&|f| point(beam_points(f, 0)), 12);
    let chain_dice = reroll_chain(&|f| point(u32::from(f >= 4)), 12);
    let hits = |screen: u8, per_point: bool| {
        weapon_dist(
            1,
            &|f| {
                let p = beam_points(f, screen);
                point(if per_point { p } else { u32::from(p > 0) })
            },
            Some(if per_point { &chain_points } else { &chain_dice }),
        )
    };
    let (points_mean, _) = mean_var(&hits(0, true));
    let (dice_mean, _) = mean_var(&hits(0, false));
    assert_abs_diff_eq!(points_mean, 0.8, epsilon = 1e-9);
    assert_abs_diff_eq!(dice_mean, 0.6, epsilon = 1e-9);
    assert_abs_diff_eq!(points_mean / dice_mean, 4.0 / 3.0, epsilon = 1e-9);
    // A class-2 graser behind a level-1 screen: each point 1d3.
    let chain = reroll_chain(&|f| hits_damage(beam_points(f, 0), 3), 12);
    let exact = weapon_dist(2, &|f| hits_damage(beam_points(f, 1), 3), Some(&chain));
    sample_against("Graser-2 at 12 MU, screen 1", &[GRASER2], 1, 12, &exact, 0x6752);
    // Unscreened, one die: 1.6 damage.
    let one = weapon_dist(1, &|f| hits_damage(beam_points(f, 0), 3), Some(&chain));
    assert_abs_diff_eq!(mean_var(&one).0, 1.6, epsilon = 1e-9);
}

// ---- 2. heavy grasers ------------------------------------------------------------------

/// Heavy graser dice by 18 MU band (class 3: 3 to 18 MU, 2 to 36, 1 to 54),
/// every face against every screen: each point a hit of 1d6, normal
/// damage, and a 6 never rerolls (no further die is drawn).
#[test]
fn heavy_graser_hits_are_d6_normal_damage_by_eighteen_mu_band_without_rerolls() {
    for (range, dice) in [(18u32, 3u32), (19, 2), (36, 2), (37, 1), (54, 1), (55, 0)] {
        let mut b = battle(range, &target(0));
        let mut faces = vec![50];
        faces.extend(std::iter::repeat_n(1, dice as usize));
        let rec = scripted(&mut b, &plot(&[HEAVY3], 0), &faces);
        let fired = rec
            .events_of::<GraserAttack>()
            .next()
            .map(|GraserAttack { dice, .. }| *dice)
            .unwrap_or(0);
        assert_eq!(fired, dice, "{range} MU");
    }
    for screens in 0..=2u8 {
        for face in 1..=6u8 {
            let hits = beam_points(face, screens);
            let mut faces = vec![50, face];
            let damage: Vec<u8> = (0..hits).map(|i| DAMAGE_FACES[(i as usize + 2) % 6]).collect();
            faces.extend(&damage);
            let mut b = battle(54, &target(screens));
            scripted(&mut b, &plot(&[HEAVY3], 0), &faces);
            let points: u32 = damage.iter().map(|&f| u32::from(f)).sum();
            assert_eq!(lost(&b), normal(points), "screen {screens}, face {face}");
        }
    }
    let exact = weapon_dist(3, &|f| hits_damage(beam_points(f, 2), 6), None);
    sample_against("Heavy Graser-3 at 18 MU, screen 2", &[HEAVY3], 2, 18, &exact, 0x4847);
}

// ---- 3. the beam-dice family: Gatling, TPA, meson, Pulser ---------------------------------

/// Dice of each weapon read on the beam table, at the edges of its reach:
/// the same number over the whole reach (readings W24, W26).
#[test]
fn gatling_tpa_meson_and_pulser_dice_hold_to_their_reach() {
    let cases: [(SystemId, &[(u32, u32)]); 6] = [
        (GATLING, &[(0, 6), (12, 6), (13, 0)]),
        (TPA, &[(1, 2), (24, 2), (25, 0)]),
        (MESON, &[(3, 1), (48, 1), (49, 0)]),
        (PULSER_LONG, &[(12, 1), (48, 1), (49, 0)]),
        (PULSER_MEDIUM, &[(12, 2), (24, 2), (25, 0)]),
        (PULSER_SHORT, &[(12, 6), (13, 0)]),
    ];
    for (weapon, edges) in cases {
        for &(range, dice) in edges {
            let mut b = battle(range, &target(0));
            let mut faces = vec![50];
            faces.extend(std::iter::repeat_n(4, dice as usize));
            let rec = scripted(&mut b, &plot(&[weapon], 0), &faces);
            // Each 4 scores one point of normal damage, unscreened.
            assert_eq!(lost(&b), normal(dice), "#{weapon} at {range} MU");
            let idle = rec
                .events_of::<WeaponIdle>()
                .any(|e| matches!(e, WeaponIdle { reason, .. } if reason.contains("out of range")));
            assert_eq!(idle, dice == 0, "#{weapon} at {range} MU");
        }
    }
}

/// A Gatling battery's six dice: screens as beams, natural 6s reroll into
/// penetrating damage; samples agree with the exact distribution.
#[test]
fn gatling_battery_is_six_penetrating_beam_dice() {
    // Screen 1: 4 4 5 5 6 6 → 0 + 0 + 1 + 1 + 2 + 2 = 6 normal; rerolls
    // 5 and 6 → 1 + 2 penetrating, and the second 6's reroll 3 → 0.
    let mut b = battle(12, &target(1));
    scripted(&mut b, &plot(&[GATLING], 0), &[50, 4, 4, 5, 5, 6, 6, 5, 6, 3]);
    let (armour, hull) = normal(6);
    assert_eq!(lost(&b), (armour, hull + 3));
    let chain = reroll_chain(&|f| point(beam_points(f, 0)), 12);
    let exact = weapon_dist(6, &|f| point(beam_points(f, 1)), Some(&chain));
    sample_against("Gatling battery, screen 1", &[GATLING], 1, 12, &exact, 0x4761);
}

/// A Pulser whose record leaves the setting open is set when it first
/// fires, to the setting with most dice at that range, and keeps it:
/// set medium at 20 MU, it rolls 2 dice at 10 MU the next Volley (not 6),
/// and the records written back say `Pulser-Setting: Medium`.
#[test]
fn an_open_pulser_is_set_for_the_battle_when_it_first_fires() {
    use fam::engine::doctrine::pulser_setting;
    assert_eq!(pulser_setting(0), PulserSetting::Short);
    assert_eq!(pulser_setting(12), PulserSetting::Short);
    assert_eq!(pulser_setting(13), PulserSetting::Medium);
    assert_eq!(pulser_setting(24), PulserSetting::Medium);
    assert_eq!(pulser_setting(25), PulserSetting::Long);
    assert_eq!(pulser_setting(60), PulserSetting::Long);
    let mut b = battle(20, &target(0));
    let p = checked(&b, &plot(&[PULSER_OPEN], 0));
    let mut rec = Recorder::default();
    let mut dice = Dice::from_faces(&[50, 4, 4, 50, 4, 4]);
    run_volley(&mut b, &p, 0, &mut dice, &mut rec, &mut Scratch::default());
    assert!(rec.events_of::<PulserSet>().any(|e| matches!(
        e,
        PulserSet {
            setting: PulserSetting::Medium,
            range: 20,
            ..
        }
    )));
    b.ranges = RangeTable::new(2, 10);
    run_volley(&mut b, &p, 1, &mut dice, &mut rec, &mut Scratch::default());
    assert_eq!(dice.count_draws(), 6, "two dice each Volley");
    assert_eq!(lost(&b), normal(4));
    let mut file = records();
    let ship = file.ships_mut().find(|s| s.name == "Gunner").unwrap();
    b.units[0].write_back(ship);
    let written = gzf::write(&file);
    let gunner = &written[..written.find("Ship:             Target0").unwrap()];
    assert_eq!(gunner.matches("Pulser-Setting:   Medium").count(), 2, "{gunner}");
    // Reset for the next run of a batch: open again.
    let start = battle(20, &target(0));
    b.reset_to(&start);
    assert_eq!(
        b.units[0].systems[PULSER_OPEN].kind,
        SystemKind::Pulser { setting: None }
    );
}

// ---- 4. plasma cannons ---------------------------------------------------------------------

/// Every face against every screen and at one Evasion Point: (die − 2 −
/// screen) hits of one point, normal damage; a natural 6 rerolls
/// (unscreened, no DRM, face − 2 penetrating), even when a DRM lowers it.
#[test]
fn plasma_cannon_dice_score_face_less_two_less_screen_and_sixes_reroll() {
    for (evasion, drm) in [(None, 0), (Some(4u8), -1)] {
        for screens in 0..=2u8 {
            for face in 1..=6u8 {
                let chain: Vec<u8> = if face == 6 { vec![6, 5] } else { Vec::new() };
                let mut faces: Vec<u8> = evasion.into_iter().collect();
                faces.extend([50, face, 1]);
                faces.extend(&chain);
                // Two dice: `face` and a 1 (no hits).
                let initial = u32::from(modified(face, drm).saturating_sub(2 + screens));
                let pen: u32 = chain.iter().map(|&r| u32::from(r - 2)).sum();
                let mut b = battle(12, &target(screens));
                scripted(&mut b, &plot(&[PLASMA2], u32::from(evasion.is_some())), &faces);
                let (armour, hull) = normal(initial);
                assert_eq!(
                    lost(&b),
                    (armour, hull + pen),
                    "screen {screens}, face {face}, DRM {drm}"
                );
            }
        }
    }
    // One die unscreened: 5/3 hits and 1/3 from the reroll chain, 2 in all.
    let chain = reroll_chain(&|f| point(u32::from(f.saturating_sub(2))), 14);
    let one = weapon_dist(1, &|f| point(u32::from(f.saturating_sub(2))), Some(&chain));
    assert_abs_diff_eq!(mean_var(&one).0, 2.0, epsilon = 1e-9);
    let exact = weapon_dist(2, &|f| point(u32::from(f.saturating_sub(3))), Some(&chain));
    sample_against("Plasma-2 at 12 MU, screen 1", &[PLASMA2], 1, 12, &exact, 0x504c);
    // Class 2: one die from 13 to 24 MU, none beyond.
    let mut b = battle(24, &target(0));
    scripted(&mut b, &plot(&[PLASMA2], 0), &[50, 5]);
    assert_eq!(lost(&b), normal(3));
    let mut b = battle(25, &target(0));
    scripted(&mut b, &plot(&[PLASMA2], 0), &[50]);
    assert_eq!(lost(&b), (0, 0));
}

// ---- 5. point-defence mode -----------------------------------------------------------------

/// The launcher (Unit 1) fires its salvo at the gunner; the gunner lists
/// `pd` in point-defence mode.
fn pd_plot(pd: SystemId) -> ExchangePlot {
    let defend = VolleyPlot {
        point_defence: vec![PdOrder {
            unit: 0,
            weapon: pd,
            defend: None,
        }],
        ..VolleyPlot::default()
    };
    let launch = VolleyPlot {
        fire: vec![FireOrder {
            unit: 1,
            fire_control: FCS,
            target: Some(0),
            weapons: vec![SML],
            needles: Vec::new(),
            group: None,
        }],
        ..VolleyPlot::default()
    };
    ExchangePlot {
        formations: vec![
            Some(FormationPlot {
                volleys: [defend.clone(), defend.clone(), defend],
            }),
            Some(FormationPlot {
                volleys: [launch.clone(), launch.clone(), launch],
            }),
        ],
    }
}

/// Phasers, Gatling batteries, twin particle arrays, meson projectors and
/// Pulsers (long, medium or open) in PD mode roll one PDS die: 4-5 kill
/// one missile, 6 kills two and rolls again (ft-rules §5.1, W23, W24).
#[test]
fn pd_capable_beam_family_weapons_defend_as_one_pds_die() {
    for weapon in [PHASER1, GATLING, TPA, MESON, PULSER_LONG, PULSER_MEDIUM, PULSER_OPEN] {
        for face in 1..=6u8 {
            // 10 MU; the d100, no die to launch; 5 missiles on target;
            // the PD die (and its extra die, a 1, after a 6); a damage
            // face of 1 per surviving missile (no hull row completed).
            let kills = match face {
                4 | 5 => 1,
                6 => 2,
                _ => 0,
            };
            let mut faces = vec![50, 5, face];
            if face == 6 {
                faces.push(1);
            }
            faces.extend(std::iter::repeat_n(1, 5 - kills));
            let mut b = battle(10, "Launcher");
            let rec = scripted(&mut b, &pd_plot(weapon), &faces);
            let case = format!("#{weapon} face {face}");
            assert!(
                rec.events_of::<PdRoll>().any(
                    |e| matches!(e, PdRoll { unit: 0, weapon: w, kills: k, .. } if *w == weapon && *k == kills as u32)
                ),
                "{case}"
            );
            // Each missile through: 1 point SAP, on a gunner without armour.
            assert_eq!(
                (b.units[0].armour_lost, b.units[0].hull_lost),
                (0, 5 - kills as u32),
                "{case}"
            );
        }
    }
}

// ---- 6. records ----------------------------------------------------------------------------

/// The names read in either profile, case as written, and are written
/// canonically with the Pulser setting; a round trip is equal and writing
/// idempotent.
#[test]
fn beam_family_names_and_pulser_settings_read_and_write_canonically() {
    for profile in ["FB1", "FT2"] {
        let text = format!(
            "Profile: {profile}\n\nShip: S\nThrust-Rating: 4\nDamage-Track: OOO OOO OO OO\n\n\
             System: class 3 graser\n\nSystem: Class 2 HEAVY GRASER\n\nSystem: class 1 phaser\n\n\
             System: class 4 plasma cannon\n\nSystem: gatling battery\n\nSystem: Twin Particle Array\n\n\
             System: meson projector\n\nSystem: pulser\npulser-setting: short\n\nSystem: Pulser\n"
        );
        let parsed = gzf::parse(&text, &ParseOptions::default());
        assert!(!parsed.has_errors(), "{profile}: {:?}", parsed.diagnostics);
        let kinds: Vec<SystemKind> = parsed
            .file
            .ships()
            .next()
            .unwrap()
            .systems
            .iter()
            .map(|s| s.kind.clone())
            .collect();
        assert_eq!(
            kinds,
            [
                SystemKind::Graser { class: 3 },
                SystemKind::HeavyGraser { class: 2 },
                SystemKind::Phaser { class: 1 },
                SystemKind::PlasmaCannon { class: 4 },
                SystemKind::GatlingBattery,
                SystemKind::TwinParticleArray,
                SystemKind::MesonProjector,
                SystemKind::Pulser {
                    setting: Some(PulserSetting::Short)
                },
                SystemKind::Pulser { setting: None },
            ]
        );
        let written = gzf::write(&parsed.file);
        for line in [
            "System:           Class 3 Graser",
            "System:           Class 2 Heavy Graser",
            "System:           Class 1 Phaser",
            "System:           Class 4 Plasma Cannon",
            "System:           Gatling Battery",
            "System:           Twin Particle Array",
            "System:           Meson Projector",
            "System:           Pulser\nPulser-Setting:   Short",
        ] {
            assert!(written.contains(line), "{profile}: `{line}` in\n{written}");
        }
        assert_eq!(written.matches("Pulser-Setting").count(), 1);
        let again = gzf::parse(&written, &ParseOptions::default());
        assert_eq!(again.file, parsed.file, "{profile}: round trip");
        assert_eq!(gzf::write(&again.file), written, "{profile}: idempotent");
    }
}

/// Records fam cannot read say so at their line: a class beyond 6, a
/// setting that is no setting, the setting on another system, and a
/// high-intensity graser of a class beyond 6.
#[test]
fn impossible_beam_family_records_are_refused_where_they_are() {
    let head = "Profile: FB1\n\nShip: S\nThrust-Rating: 4\nDamage-Track: OOO OOO OO OO\n\n";
    for (system, line, what) in [
        ("System: Class 7 Graser\n", 7, "unknown system"),
        (
            "System: Pulser\nPulser-Setting: Near\n",
            8,
            "is not a value of `Pulser-Setting:`",
        ),
        ("System: Gatling Battery\nPulser-Setting: Long\n", 8, "not a Pulser"),
        ("System: Class 7 High Intensity Graser\n", 7, "does not resolve"),
    ] {
        let text = format!("{head}{system}");
        let parsed = gzf::parse(&text, &ParseOptions::default());
        let source = SourceFile::new("s.gzf", text.as_str());
        let rendered = source.render(&parsed.diagnostics, 20);
        assert!(
            parsed
                .diagnostics
                .iter()
                .any(|d| d.is_error() && d.message.contains(what)),
            "{system}: {rendered}"
        );
        assert!(rendered.contains(&format!("s.gzf:{line}:")), "{system}: {rendered}");
    }
}

const FTJAVA_SHIP: &str = "<Ship><Name>Lumen</Name><Mass>60</Mass><MainDrive initialThrust=\"4\"/>\
    <Hull totalHullBoxes=\"20\" type=\"Custom\" value=\"20\"/><Weapons>\
    <Graser rating=\"2\" arcs=\"(FP/F/FS)\"/><HeavyGraser rating=\"1\"/><Phaser rating=\"3\" arcs=\"(F)\"/>\
    <PlasmaCannon rating=\"2\" arcs=\"(F)\"/><GatlingBattery arcs=\"(All arcs)\"/><TwinParticleArray/>\
    <MesonProjector arcs=\"(F)\"/><Pulser arcs=\"(F)\"/></Weapons></Ship>";

/// FTJava's elements import as fam's kinds (none inert), read back from
/// the GZF, export under their own names and import again unchanged; a
/// Pulser's setting is open on import and listed as left out on export.
#[test]
fn ftjava_beam_family_imports_and_round_trips() {
    let source = SourceFile::new("lumen.xml", FTJAVA_SHIP);
    let imported = ftjava::import(&source, &Options::default());
    let errors: Vec<_> = imported.diagnostics.iter().filter(|d| d.is_error()).cloned().collect();
    assert!(errors.is_empty(), "{}", source.render(&errors, 20));
    assert_eq!(imported.inert, 0);
    let ship = imported.gzf.ship("Lumen").unwrap();
    let kinds: Vec<(SystemKind, usize)> = ship
        .systems
        .iter()
        .filter(|s| s.kind.is_weapon())
        .map(|s| (s.kind.clone(), s.arcs.len()))
        .collect();
    assert_eq!(
        kinds,
        [
            (SystemKind::Graser { class: 2 }, 3),
            (SystemKind::HeavyGraser { class: 1 }, 6),
            (SystemKind::Phaser { class: 3 }, 1),
            (SystemKind::PlasmaCannon { class: 2 }, 1),
            (SystemKind::GatlingBattery, 6),
            (SystemKind::TwinParticleArray, 6),
            (SystemKind::MesonProjector, 1),
            (SystemKind::Pulser { setting: None }, 1),
        ]
    );
    let export = |text: &str| {
        let parsed = gzf::parse(text, &ParseOptions::default());
        assert!(!parsed.has_errors());
        let request = ftjava::export::Request {
            text,
            file: &parsed.file,
            spans: &parsed.spans,
            ship: None,
            title: "beams",
            skip_unmapped: false,
        };
        ftjava::export::export(&request)
    };
    let written = gzf::write(&imported.gzf);
    let exported = export(&written);
    assert!(
        !exported.diagnostics.iter().any(|d| d.is_error()),
        "{:?}",
        exported.diagnostics
    );
    for element in [
        "<Graser id=\"2\" rating=\"2\"",
        "<HeavyGraser id=\"3\" rating=\"1\"",
        "<Phaser id=\"4\" rating=\"3\"",
        "<PlasmaCannon id=\"5\" rating=\"2\"",
        "<GatlingBattery id=\"6\"",
        "<TwinParticleArray id=\"7\"",
        "<MesonProjector id=\"8\"",
        "<Pulser id=\"9\"",
    ] {
        assert!(exported.xml.contains(element), "{element} in {}", exported.xml);
    }
    let back = ftjava::import(&SourceFile::new("back.xml", exported.xml.as_str()), &Options::default());
    assert_eq!(back.gzf, imported.gzf, "FTJava → GZF → FTJava → GZF");
    // A set Pulser exports without its setting, which is said.
    let set = written.replace(
        "System:           Pulser\n",
        "System:           Pulser\nPulser-Setting:   Long\n",
    );
    let exported = export(&set);
    assert!(
        exported
            .diagnostics
            .iter()
            .any(|d| d.message.contains("Pulser-Setting")),
        "{:?}",
        exported.diagnostics
    );
}

/// FTJava ratings fam cannot place are refused at the element.
#[test]
fn ftjava_rated_beam_family_without_a_good_rating_is_refused() {
    for (element, what) in [
        ("<Graser rating=\"7\"/>", "rating 7"),
        ("<PlasmaCannon arcs=\"(F)\"/>", "without `rating`"),
        ("<Phaser rating=\"0\"/>", "rating 0"),
    ] {
        let xml = format!(
            "<Ship><Name>X</Name><Mass>20</Mass><MainDrive initialThrust=\"4\"/>\
             <Hull totalHullBoxes=\"6\" type=\"Custom\" value=\"20\"/><Weapons>{element}</Weapons></Ship>"
        );
        let imported = ftjava::import(&SourceFile::new("x.xml", xml.as_str()), &Options::default());
        assert!(
            imported
                .diagnostics
                .iter()
                .any(|d| d.is_error() && d.message.contains(what)),
            "{element}: {:?}",
            imported.diagnostics
        );
    }
}

// ---- 7. orders and the default commander ----------------------------------------------------

fn scenario(dir: &std::path::Path, extra: &str) -> std::path::PathBuf {
    let gzf = dir.join("ships.gzf");
    std::fs::write(&gzf, gzf::write(&records())).unwrap();
    let path = dir.join("s.toml");
    std::fs::write(
        &path,
        format!(
            "title = \"Beams\"\ngzf = [\"ships.gzf\"]\nseed = 5\n\n[sides]\nA = [\"G\"]\nB = [\"T\"]\n\n\
             [formations]\nG = [\"Gunner\"]\nT = [\"Target1\", \"Launcher\"]\n\n\
             [[range]]\nbetween = [\"G\", \"T\"]\nmu = 30\n\n[victory]\nmax_exchanges = 6\n{extra}"
        ),
    )
    .unwrap();
    path
}

/// The orders take PD-capable beam-family weapons under `pd` and refuse a
/// Pulser set short and a graser, each at its place.
#[test]
fn orders_take_pd_capable_beam_family_weapons_and_refuse_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let plot = |pd: &str| {
        format!(
            "\n[[plot.G.volley]]\nspeed = 6\nevasion = 0\nprimary = {{ close = \"T\" }}\n\
             fire = [{{ target = \"T\", weapons = [2] }}]\npd = [{{ weapons = [{pd}] }}]\n"
        )
    };
    let ok = scenario(dir.path(), &plot("5, 6, 7, 8, 9, 10, 11"));
    let out = fam(&["check", ok.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for (pd, what) in [("12", "Pulser"), ("3", "Class 2 Graser")] {
        let bad = scenario(dir.path(), &plot(pd));
        let out = fam(&["check", bad.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{pd}");
        let err = text(&out.stderr);
        assert!(
            err.contains(what) && err.contains("cannot fire in point-defence mode") && err.contains("s.toml:"),
            "{err}"
        );
    }
}

/// The default commander fires every beam-family weapon (no weapon sits
/// idle in every run), and its beam damage is the family's.
#[test]
fn the_default_commander_fires_every_beam_family_weapon() {
    let dir = tempfile::tempdir().unwrap();
    let path = scenario(dir.path(), "");
    let out = fam(&["batch", path.to_str().unwrap(), "--runs", "100", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    let a = v["sides"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "A")
        .unwrap();
    assert!(a["damage_by_kind"]["beam"].as_f64().unwrap() > 1.0, "{a}");
    // Every weapon of the gunner fires (at ships or as PD) in some run.
    let weapons = v["weapons"].as_array().unwrap();
    for system in 2..=13u64 {
        let w = weapons
            .iter()
            .find(|w| w["unit"] == "Gunner" && w["system"] == system)
            .unwrap_or_else(|| panic!("system {system} followed"));
        assert!(w["fired_runs"].as_u64().unwrap() > 0, "system {system}: {w}");
    }
}

/// The default commander's point defence (docs/doctrine.md): with
/// `pd = "never"` every beam-family weapon fires at ships; with "always"
/// the PD-capable ones defend in every Volley (a Pulser set short never);
/// with "auto", against a salvo launcher at 30 MU, a meson projector (0.8
/// points a Volley at best) defends in the Volleys the salvo threatens,
/// as a PDS die saves 2.8 there.
#[test]
fn the_default_commander_puts_cheap_shots_on_point_defence() {
    use fam::engine::doctrine::assess::{Arsenal, DieTables};
    use fam::engine::doctrine::decide::{Context, decide};
    use fam::engine::doctrine::{Doctrine, PdMode, doctrine_formation_plot};
    use fam::engine::victory::Victory;
    let b = battle(30, "Launcher");
    let pd_capable = [PHASER1, GATLING, TPA, MESON, PULSER_OPEN, PULSER_LONG, PULSER_MEDIUM];
    let defending = |p: &FormationPlot, v: usize| -> Vec<SystemId> {
        let mut w: Vec<SystemId> = p.volleys[v].point_defence.iter().map(|o| o.weapon).collect();
        w.sort_unstable();
        w
    };
    let firing = |p: &FormationPlot, v: usize| -> Vec<SystemId> {
        p.volleys[v].fire.iter().flat_map(|o| o.weapons.clone()).collect()
    };
    let with = |pd: PdMode| Doctrine {
        pd,
        ..Doctrine::default()
    };
    let never = doctrine_formation_plot(&b, 0, &with(PdMode::Never)).unwrap();
    let always = doctrine_formation_plot(&b, 0, &with(PdMode::Always)).unwrap();
    for v in 0..3 {
        assert!(defending(&never, v).is_empty());
        for w in GRASER1..=PLASMA2 {
            assert!(firing(&never, v).contains(&w), "never: #{w} fires in Volley {}", v + 1);
        }
        assert_eq!(defending(&always, v), pd_capable, "always: Volley {}", v + 1);
        assert!(firing(&always, v).iter().all(|w| !pd_capable.contains(w)));
        assert!(firing(&always, v).contains(&PULSER_SHORT));
    }
    let tables = DieTables::new();
    let arsenals: Vec<Arsenal> = (0..2).map(|f| Arsenal::of(&b, f)).collect();
    let victory = Victory::default();
    let live = fam::engine::doctrine::in_fight(&b);
    let enemies = fam::engine::doctrine::enemy_lists(&b, &live);
    let ctx = Context {
        battle: &b,
        victory: &victory,
        tables: &tables,
        arsenals: &arsenals,
        live: &live,
        enemies: (&enemies.0, &enemies.1),
        nearest: &[],
        aims: &[],
        reaches: &[],
        craft: &[],
    };
    let c = decide(&ctx, 0, &Doctrine::default());
    assert!(c.threat.iter().any(|&t| t), "the salvo threatens");
    let auto = doctrine_formation_plot(&b, 0, &Doctrine::default()).unwrap();
    for v in 0..3 {
        assert_eq!(c.pds_mode[v] > 0.0, c.threat[v]);
        if c.threat[v] {
            assert_abs_diff_eq!(c.pds_mode[v], 2.0 * 0.4 * 3.5, epsilon = 1e-12);
            assert!(defending(&auto, v).contains(&MESON), "Volley {}", v + 1);
        }
        assert!(!defending(&auto, v).contains(&PULSER_SHORT));
        assert!(!defending(&auto, v).contains(&GRASER1));
        for w in defending(&auto, v) {
            assert!(!firing(&auto, v).contains(&w), "#{w} both fires and defends");
        }
    }
}

/// The shipped lantern watch, played by the default doctrine: the Lumen
/// patrol scores with beam-family weapons only (the `beam` kind), every one
/// of its weapons fires in some run, and the report says how the open
/// Pulser was set and reads each attack's dice.
#[test]
fn the_lantern_watch_is_fought_with_the_beam_family() {
    let out = fam(&["batch", "scenarios/lantern-watch.toml", "--runs", "200", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    let lumen = v["sides"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "Dorrance")
        .unwrap();
    let d = &lumen["damage_by_kind"];
    assert!(d["beam"].as_f64().unwrap() > 10.0, "{d}");
    for kind in ["torpedo", "salvo_missile", "needle", "kinetic"] {
        assert_eq!(d[kind].as_f64(), Some(0.0), "{kind}: {d}");
    }
    let weapons = v["weapons"].as_array().unwrap();
    let ours: Vec<_> = weapons.iter().filter(|w| w["side"] == lumen["id"]).collect();
    assert_eq!(ours.len(), 8, "{ours:?}");
    assert!(ours.iter().all(|w| w["fired_runs"].as_u64().unwrap() > 0), "{ours:?}");
    let out = fam(&[
        "resolve",
        "scenarios/lantern-watch.toml",
        "--exchanges",
        "3",
        "--detail",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(
        report.contains("Pulser #7 set to long range for the battle (first fired at 30 MU)"),
        "{report}"
    );
    assert!(
        report.contains("Meson Projector #6 at 30 MU: 1 die [6], DRM 0, screen 1 → 2; rerolls [6 4] → 3 penetrating"),
        "{report}"
    );
}
