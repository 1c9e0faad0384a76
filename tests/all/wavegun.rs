//! Wave guns (ft-rules §4.5, FTC §7.24; readings W59): charging a d6 a
//! plotted Volley until 6, firing in a later Volley of the Exchange, the
//! charge lost at the Exchange's end and held out of range, 4/3/2 d6 by
//! 12 MU band straight to the hull, advanced screens and Evasion off each
//! die, the `wave_gun_formation` switch, the backlash of a gun knocked out
//! while charged, and the default commander charging and firing it.
//!
//! Every expected value is worked out here from the reading, never copied
//! from a run; statistical checks use fixed seeds and a bound of five
//! standard errors from the exact variance.

use std::collections::BTreeMap;

use approx::{abs_diff_eq, assert_abs_diff_eq};

use fam::engine::dice::Dice;
use fam::engine::doctrine::assess::{Arsenal, DieTables, sustained};
use fam::engine::event::{Recorder, WaveGunAttack, WaveGunBacklash, WaveGunCharge};
use fam::engine::plot::{ExchangePlot, FireOrder, FormationPlot, SystemId, VolleyPlot};
use fam::engine::rules::Rules;
use fam::engine::state::{Battle, Formation, RangeTable, Side, SysState, Unit};
use fam::engine::volley::{Scratch, run_volley};

use super::support::{checked, fam, text};

const FCS: SystemId = 0;
const WAVE: SystemId = 1;

/// The wave-gun ship (three rows of 10 hull boxes) and targets with 4
/// armour boxes and four rows of 15 hull boxes: unscreened, two standard
/// screens, one and two advanced screens; and a brawler with a class-2
/// beam that stands and fights.
const SHIPS: &str = "Profile: FB1\n\n\
    Ship: Waver\nMass: 60\nThrust-Rating: 4\n\
    Damage-Track: OOOOOOOOOO OOOOOOOOOO OOOOOOOOOO\n\n\
    System: FCS\n\n\
    System: Wave Gun\nFiring-Arc: F\n\n\
    Ship: Plain\nMass: 100\nThrust-Rating: 4\nArmour: O O O O\n\
    Damage-Track: OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO\n\n\
    Ship: Plain2\nMass: 100\nThrust-Rating: 4\nArmour: O O O O\n\
    Damage-Track: OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO\n\n\
    Ship: Screened\nMass: 100\nThrust-Rating: 4\nArmour: O O O O\n\
    Damage-Track: OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO\n\n\
    System: Screen Generator\n\nSystem: Screen Generator\n\n\
    Ship: Advanced1\nMass: 100\nThrust-Rating: 4\nArmour: O O O O\n\
    Damage-Track: OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO\n\n\
    System: Advanced Screen Generator\n\n\
    Ship: Advanced2\nMass: 100\nThrust-Rating: 4\nArmour: O O O O\n\
    Damage-Track: OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO\n\n\
    System: Advanced Screen Generator\n\nSystem: Advanced Screen Generator\n\n\
    Ship: Brawler\nMass: 100\nThrust-Rating: 4\n\
    Damage-Track: OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO\n\n\
    System: FCS\n\nSystem: Class 2 Battery\nFiring-Arc: FP F FS AP A AS\n";

/// The waver (Unit 0) against the Formation of `others` (Units 1 …).
fn battle(range: u32, others: &[&str], rules: Rules) -> Battle {
    let parsed = fam::gzf::parse(SHIPS, &fam::gzf::ParseOptions::default());
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    let file = parsed.file;
    let mut units = vec![Unit::from_ship(file.ship("Waver").unwrap(), file.profile, 0, 0)];
    for name in others {
        units.push(Unit::from_ship(file.ship(name).unwrap(), file.profile, 1, 1));
    }
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
                units: (1..=others.len()).collect(),
                reserve: Default::default(),
            },
        ],
        units,
        ranges: RangeTable::new(2, range),
        rules,
    }
}

/// The wave gun is plotted at the target Formation in every Volley; the
/// target rolls `evasion` Evasion dice.
fn plot(evasion: u32) -> ExchangePlot {
    let fire = VolleyPlot {
        fire: vec![FireOrder {
            unit: 0,
            fire_control: FCS,
            target: Some(1),
            weapons: vec![WAVE],
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

/// Plays Volley `volley` on exactly `faces` (checked), keeping `scratch`
/// (the charge) between calls.
fn step(b: &mut Battle, volley: u8, faces: &[u8], scratch: &mut Scratch, evasion: u32) -> Recorder {
    let mut rec = Recorder::default();
    let mut dice = Dice::from_faces(faces);
    let p = checked(b, &plot(evasion));
    run_volley(b, &p, volley, &mut dice, &mut rec, scratch);
    assert_eq!(dice.count_draws(), faces.len() as u64, "dice used: {faces:?}");
    rec
}

fn lost(b: &Battle, u: usize) -> (u32, u32) {
    (b.units[u].armour_lost, b.units[u].hull_lost)
}

fn charges(rec: &Recorder) -> Vec<u32> {
    rec.events_of::<WaveGunCharge>().map(|c| c.charge).collect()
}

/// (target, damage) of each wave-gun attack recorded.
fn shots(rec: &Recorder) -> Vec<(usize, u32)> {
    rec.events_of::<WaveGunAttack>().map(|a| (a.target, a.damage)).collect()
}

// ---- the engine -----------------------------------------------------------------------

/// A d6 a Volley until the charge reaches 6 (4, then 3: 7), no shot in a
/// charging Volley; charged, it fires at 24 MU with 3 dice, all to the
/// hull: the target's armour is untouched. A first die of 6 is a charge:
/// it fires in Volley 2.
#[test]
fn a_wave_gun_charges_to_six_and_fires_in_a_later_volley() {
    let mut b = battle(24, &["Plain"], Rules::default());
    let mut s = Scratch::default();
    let rec = step(&mut b, 0, &[50, 4], &mut s, 0);
    assert_eq!((charges(&rec), shots(&rec)), (vec![4], vec![]));
    let rec = step(&mut b, 1, &[50, 3], &mut s, 0);
    assert_eq!((charges(&rec), shots(&rec)), (vec![7], vec![]));
    assert_eq!(lost(&b, 1), (0, 0));
    let rec = step(&mut b, 2, &[50, 5, 2, 6], &mut s, 0);
    assert_eq!((charges(&rec), shots(&rec)), (vec![], vec![(1, 13)]));
    assert_eq!(lost(&b, 1), (0, 13));
    // 4 dice to 12 MU, 2 at 36.
    for (range, faces) in [(12u32, vec![50, 6, 50, 1, 2, 3, 4]), (36, vec![50, 6, 50, 6, 6])] {
        let mut b = battle(range, &["Plain"], Rules::default());
        let mut s = Scratch::default();
        step(&mut b, 0, &faces[..2], &mut s, 0);
        let rec = step(&mut b, 1, &faces[2..], &mut s, 0);
        let expected: u32 = faces[3..].iter().map(|&f| u32::from(f)).sum();
        assert_eq!(shots(&rec), vec![(1, expected)], "{range} MU");
    }
}

/// The charge is lost at the end of the Exchange (Volley 1 charges again)
/// and held through a Volley out of range (beyond 36 MU nothing is rolled).
#[test]
fn the_charge_lasts_the_exchange_and_waits_out_of_range() {
    let mut b = battle(24, &["Plain"], Rules::default());
    let mut s = Scratch::default();
    step(&mut b, 2, &[50, 6], &mut s, 0);
    let rec = step(&mut b, 0, &[50, 2], &mut s, 0);
    assert_eq!((charges(&rec), shots(&rec)), (vec![2], vec![]));
    let mut b = battle(40, &["Plain"], Rules::default());
    let mut s = Scratch::default();
    step(&mut b, 0, &[50, 6], &mut s, 0);
    let rec = step(&mut b, 1, &[50], &mut s, 0);
    assert!(shots(&rec).is_empty() && charges(&rec).is_empty());
    b.ranges.set(0, 1, 30);
    let rec = step(&mut b, 2, &[50, 3, 4], &mut s, 0);
    assert_eq!(shots(&rec), vec![(1, 7)]);
}

/// Standard screens and armour do not stop it; each die loses the
/// target's advanced screen level and the Evasion Points (not below 0).
#[test]
fn advanced_screens_and_evasion_take_their_level_off_each_die() {
    for (target, evasion, faces, damage) in [
        ("Screened", 0u32, vec![1u8, 2, 6, 5], 14u32),
        ("Advanced1", 0, vec![1, 2, 6, 5], 10),
        ("Advanced2", 0, vec![1, 2, 6, 5], 7),
        // One Evasion die showing 6: two points off each die.
        ("Advanced1", 1, vec![1, 4, 6, 5], 6),
    ] {
        let mut b = battle(12, &[target], Rules::default());
        let mut s = Scratch::default();
        let ev: Vec<u8> = if evasion > 0 { vec![6] } else { vec![] };
        let mut v1 = ev.clone();
        v1.extend([50, 6]);
        step(&mut b, 0, &v1, &mut s, evasion);
        let mut v2 = ev.clone();
        v2.push(50);
        v2.extend(&faces);
        let rec = step(&mut b, 1, &v2, &mut s, evasion);
        assert_eq!(shots(&rec), vec![(1, damage)], "{target}, {faces:?}");
        assert_eq!(lost(&b, 1), (0, damage), "{target}");
    }
}

/// Without the switch the template touches the acquired Unit only; with
/// `wave_gun_formation` every ship of the target Formation rolls its own
/// dice.
#[test]
fn the_formation_switch_spreads_the_template_over_every_ship() {
    for (switch, faces, hit) in [
        (false, vec![50u8, 1, 2, 3], vec![(1usize, 6u32)]),
        (true, vec![50, 1, 2, 3, 4, 5, 5], vec![(1, 6), (2, 14)]),
    ] {
        let rules = Rules {
            wave_gun_formation: switch,
            ..Rules::default()
        };
        let mut b = battle(24, &["Plain", "Plain2"], rules);
        let mut s = Scratch::default();
        // The d100 below 50 picks the first Unit.
        step(&mut b, 0, &[1, 6], &mut s, 0);
        let rec = step(
            &mut b,
            1,
            &faces.iter().map(|&f| if f == 50 { 1 } else { f }).collect::<Vec<_>>(),
            &mut s,
            0,
        );
        assert_eq!(shots(&rec), hit, "switch {switch}");
    }
}

/// A wave gun knocked out while it holds a charge puts the charge into its
/// own hull (a charge of 5, held after Volley 1, then the gun damaged).
#[test]
fn a_gun_knocked_out_while_charged_hurts_its_own_ship() {
    let mut b = battle(24, &["Plain"], Rules::default());
    let mut s = Scratch::default();
    step(&mut b, 0, &[50, 5], &mut s, 0);
    b.units[0].systems[WAVE].state = SysState::Damaged;
    let rec = step(&mut b, 1, &[50], &mut s, 0);
    assert!(rec.events_of::<WaveGunBacklash>().any(|e| matches!(
        e,
        WaveGunBacklash {
            unit: 0,
            charge: 5,
            hull: 5,
            ..
        }
    )));
    assert_eq!(lost(&b, 0), (0, 5));
    // Its charge is gone: nothing more happens in Volley 3.
    let rec = step(&mut b, 2, &[50], &mut s, 0);
    assert!(
        !rec.events_of::<WaveGunBacklash>()
            .any(|e| matches!(e, WaveGunBacklash { .. }))
    );
}

type Dist = BTreeMap<u32, f64>;

/// Damage of `n` dice each less `level` (not below 0).
fn dice_less(n: u32, level: u32) -> Dist {
    let mut out = Dist::from([(0, 1.0)]);
    for _ in 0..n {
        let mut next = Dist::new();
        for (x, p) in &out {
            for f in 1..=6u32 {
                *next.entry(x + f.saturating_sub(level)).or_default() += p / 6.0;
            }
        }
        out = next;
    }
    out
}

/// Over an Exchange of three plotted Volleys a gun fires once when its
/// first die is 6 or its first two make 6 or more (enumerated: 26 of 36),
/// else never: the Exchange's damage to a target at 24 MU behind one
/// advanced screen is that chance times 3d6 each less 1. Samples match the
/// exact distribution, and the commander's per-Volley estimate is a third
/// of its mean.
#[test]
fn wave_gun_damage_over_an_exchange_matches_the_exact_distribution() {
    let fires = (1..=6u32)
        .flat_map(|a| (1..=6u32).map(move |b| (a, b)))
        .filter(|&(a, b)| a == 6 || a + b >= 6)
        .count() as f64
        / 36.0;
    assert_abs_diff_eq!(fires, 26.0 / 36.0, epsilon = 1e-12);
    let shot = dice_less(3, 1);
    let mut exact: Dist = shot.iter().map(|(x, p)| (*x, p * fires)).collect();
    *exact.entry(0).or_default() += 1.0 - fires;
    let mean: f64 = exact.iter().map(|(x, p)| f64::from(*x) * p).sum();
    let var: f64 = exact.iter().map(|(x, p)| (f64::from(*x) - mean).powi(2) * p).sum();
    const N: u64 = 20_000;
    let start = battle(24, &["Advanced1"], Rules::default());
    let p = checked(&start, &plot(0));
    let mut dice = Dice::new(0x5761);
    let mut scratch = Scratch::default();
    let mut b = start.clone();
    let mut sum = 0u64;
    for _ in 0..N {
        b.reset_to(&start);
        for v in 0..3 {
            run_volley(&mut b, &p, v, &mut dice, &mut (), &mut scratch);
        }
        sum += u64::from(b.units[1].armour_lost + b.units[1].hull_lost);
    }
    let sample = sum as f64 / N as f64;
    let bound = 5.0 * var.sqrt() / (N as f64).sqrt();
    assert!(
        abs_diff_eq!(sample, mean, epsilon = bound),
        "sample {sample:.4}, exact {mean:.4}, bound {bound:.4}"
    );
    let tables = DieTables::new();
    let (a, t) = (Arsenal::of(&start, 0), Arsenal::of(&start, 1));
    assert_abs_diff_eq!(sustained(&tables, &a, &t, 24, 0), mean / 3.0, epsilon = 1e-9);
}

// ---- the commander and the records -------------------------------------------------------

/// With no plots the default commander charges its wave gun and fires it
/// once charged within 36 MU; the report reads every die and names the
/// reading; FTJava has no wave gun, so export refuses it by name.
#[test]
fn the_default_commander_charges_and_fires_wave_guns() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ships.gzf"), SHIPS).unwrap();
    let scenario = dir.path().join("wave.toml");
    std::fs::write(
        &scenario,
        "title = \"Wave\"\ngzf = [\"ships.gzf\"]\nseed = 5\n\n\
         [sides]\nA = [\"Wavers\"]\nB = [\"Targets\"]\n\n\
         [formations]\nWavers = [\"Waver\"]\nTargets = [\"Brawler\"]\n\n\
         [[range]]\nbetween = [\"Wavers\", \"Targets\"]\nmu = 24\n",
    )
    .unwrap();
    let o = fam(&["resolve", scenario.to_str().unwrap(), "--exchanges", "3", "--detail"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let report = text(&o.stdout);
    assert!(report.contains("Wave Gun #2 charges: rolled "), "{report}");
    assert!(report.contains(" fires on Brawler: rolled "), "{report}");
    assert!(report.contains("readings W59"), "{report}");
    let record = dir.path().join("ships.gzf");
    let o = fam(&["export", "ftjava", record.to_str().unwrap(), "--ship", "Waver"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("Wave Gun of `Waver` has no FTJava element"),
        "{}",
        text(&o.stderr)
    );
}
