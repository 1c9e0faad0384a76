//! Fusion arrays (ft-rules §4.6, FTC §5.19; readings W57): the to-hit die
//! and the beam dice by 6 MU band in flare and torpedo mode, the mode
//! chosen for the range, screens (standard ignored, advanced counted),
//! Evasion on the to-hit die only, the records that carry them, and the
//! default commander firing them.
//!
//! Every expected value is worked out here from the reading, never copied
//! from a run; statistical checks use fixed seeds and a bound of five
//! standard errors from the exact variance.

use crate::support::{checked, scripted};
use std::collections::BTreeMap;

use approx::{abs_diff_eq, assert_abs_diff_eq};

use fam::engine::dice::Dice;
use fam::engine::doctrine::assess::{Arsenal, DieTables, sustained};
use fam::engine::event::{FusionArrayAttack, Recorder};
use fam::engine::plot::{ExchangePlot, FireOrder, FormationPlot, SystemId, VolleyPlot};
use fam::engine::rules::Rules;
use fam::engine::state::{Battle, Formation, RangeTable, Side, Unit};
use fam::engine::tables::FusionMode;
use fam::engine::volley::{Scratch, run_volley};
use fam::gzf::{self, ParseOptions, SystemKind};

use super::support::{fam, text};

const FCS: SystemId = 0;
const FUSION: SystemId = 1;

/// A fusion-array ship and four targets, each with 4 armour boxes and four
/// rows of 15 hull boxes (no Volley here completes a row): unscreened, two
/// standard screens, one and two advanced screens.
const SHIPS: &str = "Profile: FB1\n\n\
    Ship: Fuser\nMass: 60\nThrust-Rating: 4\n\
    Damage-Track: OOOOOOOOOO OOOOOOOOOO OOOOOOOOOO\n\n\
    System: FCS\n\n\
    System: Fusion Array\nFiring-Arc: F\n\n\
    Ship: Plain\nMass: 100\nThrust-Rating: 4\nArmour: O O O O\n\
    Damage-Track: OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO\n\n\
    Ship: Screened\nMass: 100\nThrust-Rating: 4\nArmour: O O O O\n\
    Damage-Track: OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO\n\n\
    System: Screen Generator\n\nSystem: Screen Generator\n\n\
    Ship: Advanced1\nMass: 100\nThrust-Rating: 4\nArmour: O O O O\n\
    Damage-Track: OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO\n\n\
    System: Advanced Screen Generator\n\n\
    Ship: Advanced2\nMass: 100\nThrust-Rating: 4\nArmour: O O O O\n\
    Damage-Track: OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO\n\n\
    System: Advanced Screen Generator\n\nSystem: Advanced Screen Generator\n";

fn battle(range: u32, other: &str) -> Battle {
    let parsed = gzf::parse(SHIPS, &ParseOptions::default());
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    let file = parsed.file;
    let gunner = Unit::from_ship(file.ship("Fuser").unwrap(), file.profile, 0, 0);
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

/// The fusion array fires at the target in every Volley; the target rolls
/// `evasion` Evasion dice.
fn plot(evasion: u32) -> ExchangePlot {
    let fire = VolleyPlot {
        fire: vec![FireOrder {
            unit: 0,
            fire_control: FCS,
            target: Some(1),
            weapons: vec![FUSION],
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

/// (mode, needed, dice, hit) of the recorded fusion-array attack.
fn attack(rec: &Recorder) -> Option<(FusionMode, u8, u32, bool)> {
    rec.events_of::<FusionArrayAttack>().next().map(
        |FusionArrayAttack {
             mode,
             needed,
             dice,
             hit,
             ..
         }| (*mode, *needed, *dice, *hit),
    )
}

// ---- the reading, restated --------------------------------------------------------

/// Band `b` (1-6, 6 MU each, closed above): flare needs b+ with 7 − b
/// dice, torpedo (7 − b)+ with b dice; the better is the lower number.
fn expected_shot(range: u32) -> Option<(FusionMode, u8, u32)> {
    if range > 36 {
        return None;
    }
    let band = range.max(1).div_ceil(6);
    let flare = (band as u8, 7 - band);
    let torpedo = ((7 - band) as u8, band);
    Some(if flare.0 <= torpedo.0 {
        (FusionMode::Flare, flare.0, flare.1)
    } else {
        (FusionMode::Torpedo, torpedo.0, torpedo.1)
    })
}

/// The beam table (ft-rules §1.2) behind a screen of `level`.
fn beam_points(face: u8, level: u8) -> u32 {
    match (face, level) {
        (6, 2) => 1,
        (6, _) => 2,
        (5, _) => 1,
        (4, 0) => 1,
        _ => 0,
    }
}

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

/// Points of a reroll chain (unscreened, a 6 rolling again), to `depth`.
fn chain(depth: u32) -> Dist {
    let mut out = Dist::new();
    for face in 1..=6u8 {
        let mut d = point(beam_points(face, 0));
        if face == 6 && depth > 0 {
            d = convolve(&d, &chain(depth - 1));
        }
        for (x, p) in d {
            *out.entry(x).or_default() += p / 6.0;
        }
    }
    out
}

/// Damage of `n` beam dice behind advanced level `level`, with rerolls.
fn beam_dice(n: u32, level: u8) -> Dist {
    let rerolls = chain(12);
    let mut one = Dist::new();
    for face in 1..=6u8 {
        let mut d = point(beam_points(face, level));
        if face == 6 {
            d = convolve(&d, &rerolls);
        }
        for (x, p) in d {
            *one.entry(x).or_default() += p / 6.0;
        }
    }
    (0..n).fold(point(0), |acc, _| convolve(&acc, &one))
}

/// A shot needing `needed` (no DRM) with `n` dice behind `level`.
fn shot(needed: u8, n: u32, level: u8) -> Dist {
    let hit = f64::from(7 - needed) / 6.0;
    let mut out: Dist = beam_dice(n, level).into_iter().map(|(x, p)| (x, p * hit)).collect();
    *out.entry(0).or_default() += 1.0 - hit;
    out
}

fn mean_var(d: &Dist) -> (f64, f64) {
    let mean: f64 = d.iter().map(|(x, p)| f64::from(*x) * p).sum();
    let var = d.iter().map(|(x, p)| (f64::from(*x) - mean).powi(2) * p).sum();
    (mean, var)
}

// ---- the engine -----------------------------------------------------------------------

/// At every band edge the engine fires the better mode with its to-hit
/// number and dice: a face at the number hits and rolls the dice, one
/// under it misses and rolls nothing more; beyond 36 MU nothing is rolled.
#[test]
fn a_fusion_array_fires_the_better_mode_by_six_mu_band() {
    for range in [0u32, 6, 7, 12, 13, 18, 19, 24, 25, 30, 31, 36, 37] {
        let mut b = battle(range, "Plain");
        let Some((mode, needed, dice)) = expected_shot(range) else {
            let rec = scripted(&mut b, &plot(0), &[50]);
            assert_eq!(attack(&rec), None, "{range} MU");
            continue;
        };
        let mut faces = vec![50, needed];
        faces.extend(std::iter::repeat_n(1, dice as usize));
        let rec = scripted(&mut b, &plot(0), &faces);
        assert_eq!(attack(&rec), Some((mode, needed, dice, true)), "{range} MU");
        if needed > 1 {
            let mut b = battle(range, "Plain");
            let rec = scripted(&mut b, &plot(0), &[50, needed - 1]);
            assert_eq!(attack(&rec), Some((mode, needed, 0, false)), "{range} MU");
            assert_eq!(lost(&b), (0, 0));
        }
    }
    // The two ends: flare within 18 MU, torpedo beyond.
    assert_eq!(expected_shot(6), Some((FusionMode::Flare, 1, 6)));
    assert_eq!(expected_shot(36), Some((FusionMode::Torpedo, 1, 6)));
}

/// Standard screens do not stop a fusion array; advanced screens read the
/// beam dice as a screen of their level, and rerolls are unscreened and
/// penetrating. The initial points are normal damage (armour first).
#[test]
fn fusion_arrays_ignore_standard_screens_but_not_advanced_ones() {
    let fours = [50, 1, 4, 4, 4, 4, 4, 4];
    let mut b = battle(6, "Screened");
    scripted(&mut b, &plot(0), &fours);
    assert_eq!(lost(&b), (4, 2), "six 4s through two standard screens");
    let mut b = battle(6, "Advanced1");
    scripted(&mut b, &plot(0), &fours);
    assert_eq!(lost(&b), (0, 0), "4s behind an advanced screen");
    // 5, 5, 6, 4, 4, 4 behind level 1: 1 + 1 + 2 = 4 normal; the 6's
    // reroll 4 is one penetrating point.
    let mut b = battle(6, "Advanced1");
    scripted(&mut b, &plot(0), &[50, 1, 5, 5, 6, 4, 4, 4, 4]);
    assert_eq!(lost(&b), (4, 1));
    // Behind level 2 a 6 is one point; its reroll 6 two, and that
    // reroll's 1 nothing: 1 normal, 2 penetrating.
    let mut b = battle(6, "Advanced2");
    scripted(&mut b, &plot(0), &[50, 1, 6, 3, 3, 3, 3, 3, 6, 1]);
    assert_eq!(lost(&b), (1, 2));
}

/// The Evasion DRM is on the to-hit die only: one Evasion die showing 5
/// (one point) turns a natural 2 at 12 MU (flare, 2+) into a miss and
/// leaves a 3 a hit whose five 4s all score (no DRM on them).
#[test]
fn evasion_lowers_the_to_hit_die_not_the_beam_dice() {
    let mut b = battle(12, "Plain");
    let rec = scripted(&mut b, &plot(1), &[5, 50, 2]);
    assert_eq!(attack(&rec), Some((FusionMode::Flare, 2, 0, false)));
    let mut b = battle(12, "Plain");
    scripted(&mut b, &plot(1), &[5, 50, 3, 4, 4, 4, 4, 4]);
    assert_eq!(lost(&b), (4, 1));
    // A 1+ shot hits whatever the DRM (the die is clamped to 1).
    let mut b = battle(36, "Plain");
    let rec = scripted(&mut b, &plot(1), &[6, 50, 1, 1, 1, 1, 1, 1, 1]);
    assert_eq!(attack(&rec), Some((FusionMode::Torpedo, 1, 6, true)));
}

/// Sampled damage matches the exact distribution (to-hit chance times the
/// beam dice with their reroll chains, enumerated): flare at 12 MU (2+,
/// five dice) unscreened, torpedo at 30 MU (2+, five dice) behind one
/// advanced screen, torpedo at 24 MU (3+, four dice) behind two standard
/// screens (ignored). The default commander's estimate is the exact mean.
#[test]
fn fusion_array_damage_matches_the_exact_distribution() {
    const N: u64 = 20_000;
    let tables = DieTables::new();
    for (range, other, level, needed, n, seed) in [
        (12u32, "Plain", 0u8, 2u8, 5u32, 0xF1u64),
        (30, "Advanced1", 1, 2, 5, 0xF2),
        (24, "Screened", 0, 3, 4, 0xF3),
    ] {
        let exact = shot(needed, n, level);
        let (mean, var) = mean_var(&exact);
        let start = battle(range, other);
        let p = checked(&start, &plot(0));
        let mut dice = Dice::new(seed);
        let mut scratch = Scratch::default();
        let mut b = start.clone();
        let mut sum = 0u64;
        for _ in 0..N {
            b.reset_to(&start);
            run_volley(&mut b, &p, 0, &mut dice, &mut (), &mut scratch);
            sum += u64::from(b.units[1].armour_lost + b.units[1].hull_lost);
        }
        let sample = sum as f64 / N as f64;
        let bound = 5.0 * var.sqrt() / (N as f64).sqrt();
        assert!(
            abs_diff_eq!(sample, mean, epsilon = bound),
            "{range} MU vs {other}: sample {sample:.4}, exact {mean:.4}, bound {bound:.4}"
        );
        let a = Arsenal::of(&start, 0);
        let t = Arsenal::of(&start, 1);
        assert_abs_diff_eq!(sustained(&tables, &a, &t, range, 0), mean, epsilon = 1e-6);
    }
    // Unscreened a beam die with its rerolls scores 0.8: flare at 6 MU
    // (1+, six dice) is 4.8, and so is torpedo at 36 MU.
    assert_abs_diff_eq!(mean_var(&shot(1, 6, 0)).0, 4.8, epsilon = 1e-6);
}

// ---- records and the commander ---------------------------------------------------------------

/// `Fusion Array` reads in any case in both profiles and writes back
/// canonically; FTJava has no fusion array, so export refuses it by name.
#[test]
fn fusion_array_records_read_write_and_refuse_export() {
    for profile in ["FB1", "FT2"] {
        let text_in = format!(
            "Profile: {profile}\n\nShip: T\nMass: 20\nThrust-Rating: 4\nDamage-Track: OOOO OOOO\n\n\
             System: fusion  ARRAY\nFiring-Arc: F\n"
        );
        let parsed = gzf::parse(&text_in, &ParseOptions::default());
        assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
        assert_eq!(
            parsed.file.ships().next().unwrap().systems[0].kind,
            SystemKind::FusionArray
        );
        let written = gzf::write(&parsed.file);
        assert!(written.contains("System:           Fusion Array\n"), "{written}");
        let again = gzf::parse(&written, &ParseOptions::default());
        assert_eq!(again.file, parsed.file);
    }
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("fuser.gzf");
    std::fs::write(&record, SHIPS).unwrap();
    let o = fam(&["export", "ftjava", record.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(err.contains("Fusion Array of `Fuser` has no FTJava element"), "{err}");
}

/// With no plots the default commander fires its fusion array from 30 MU
/// on: the report names the mode, the to-hit die and the beam dice, and
/// says which reading the result hinges on.
#[test]
fn the_default_commander_fires_fusion_arrays() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ships.gzf"), SHIPS).unwrap();
    let scenario = dir.path().join("fusion.toml");
    std::fs::write(
        &scenario,
        "title = \"Fusion\"\ngzf = [\"ships.gzf\"]\nseed = 3\n\n\
         [sides]\nA = [\"Fusers\"]\nB = [\"Targets\"]\n\n\
         [formations]\nFusers = [\"Fuser\"]\nTargets = [\"Plain\"]\n\n\
         [[range]]\nbetween = [\"Fusers\", \"Targets\"]\nmu = 30\n",
    )
    .unwrap();
    let o = fam(&["resolve", scenario.to_str().unwrap(), "--exchanges", "2", "--detail"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let report = text(&o.stdout);
    // Targets start at 30 MU: torpedo mode, 2+ (or 1+ beyond 30 MU).
    assert!(report.contains("Fusion Array #2 at "), "{report}");
    assert!(report.contains(" (torpedo mode): needs "), "{report}");
    assert!(report.contains(" beam dice ["), "{report}");
    assert!(report.contains("readings W57"), "{report}");
}
