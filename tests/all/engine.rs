//! Whole-Exchange behaviour of the engine on battles built in code:
//! determinism, exact expectations, and that listing order does not matter.

use fam::engine::dice::Dice;
use fam::engine::event::Recorder;
use fam::engine::plot::{ExchangePlot, FireOrder, FormationPlot, Maneuver, ManeuverOrder, VolleyPlot};
use fam::engine::rules::Rules;
use fam::engine::state::{Battle, Formation, RangeTable, Side, Unit};
use fam::engine::volley::{Scratch, run_exchange};
use fam::gzf::{self, ParseOptions};

use crate::support::repo;

fn ship(file: &str, name: &str) -> (gzf::Ship, gzf::Profile) {
    let text = std::fs::read_to_string(repo().join("ssd").join(file)).unwrap();
    let parsed = gzf::parse(&text, &ParseOptions::default());
    (parsed.file.ship(name).unwrap().clone(), parsed.file.profile)
}

/// Two single-ship Formations of the same light cruiser, `range` MU apart.
/// `swap` lists the second side first.
fn duel(range: u32, swap: bool) -> (Battle, ExchangePlot) {
    let (s, profile) = ship("meridian-compact.gzf", "MCS Clear Heading");
    let names = if swap { ["B", "A"] } else { ["A", "B"] };
    let mut units = Vec::new();
    for (i, n) in names.iter().enumerate() {
        let mut u = Unit::from_ship(&s, profile, i, i);
        u.name = format!("{n} ship");
        units.push(u);
    }
    let battle = Battle {
        sides: names.iter().map(|n| Side { name: n.to_string() }).collect(),
        formations: names
            .iter()
            .enumerate()
            .map(|(i, n)| Formation {
                name: n.to_string(),
                side: i,
                units: vec![i],
            })
            .collect(),
        units,
        ranges: RangeTable::new(2, range),
        rules: Rules::default(),
    };
    let plot_for = |me: usize| {
        let other = 1 - me;
        let v = VolleyPlot {
            speed: 4,
            evasion: 2,
            primary: Some(ManeuverOrder {
                target: other,
                maneuver: Maneuver::Close,
            }),
            fire: vec![
                FireOrder {
                    unit: me,
                    fire_control: 5,
                    target: Some(other),
                    weapons: vec![7, 8, 9],
                    needles: Vec::new(),
                },
                FireOrder {
                    unit: me,
                    fire_control: 6,
                    target: Some(other),
                    weapons: vec![10, 11],
                    needles: Vec::new(),
                },
            ],
            ..VolleyPlot::default()
        };
        Some(FormationPlot {
            volleys: [v.clone(), v.clone(), v],
        })
    };
    let plot = ExchangePlot {
        formations: vec![plot_for(0), plot_for(1)],
    };
    (battle, plot)
}

fn play(battle: &mut Battle, plot: &ExchangePlot, seed: u64) -> Recorder {
    let mut rec = Recorder::default();
    run_exchange(battle, plot, &mut Dice::new(seed), &mut rec, &mut Scratch::default());
    rec
}

#[test]
fn same_seed_same_events_and_recording_does_not_change_the_dice() {
    let (b0, plot) = duel(36, false);
    let mut a = b0.clone();
    let mut b = b0.clone();
    let ra = play(&mut a, &plot, 7);
    let rb = play(&mut b, &plot, 7);
    assert_eq!(ra.entries, rb.entries);
    assert_eq!(a, b);
    // Without recording, the same dice fall: the final state is identical.
    let mut c = b0.clone();
    let mut dice = Dice::new(7);
    run_exchange(&mut c, &plot, &mut dice, &mut (), &mut Scratch::default());
    assert_eq!(a, c);
    let rolls = ra
        .entries
        .iter()
        .filter(|e| matches!(e, fam::engine::event::Entry::Roll(_)))
        .count() as u64;
    assert_eq!(dice.count_draws(), rolls, "every die is recorded exactly once");
}

/// Hull + armour damage dealt to each side's ship over many seeds.
fn damage_sums(swap: bool, seeds: std::ops::Range<u64>) -> (f64, f64, f64, f64) {
    let (b0, plot) = duel(36, swap);
    let (mut sum_a, mut sum_b, mut sq_a, mut sq_b) = (0.0, 0.0, 0.0, 0.0);
    let idx_a = if swap { 1 } else { 0 };
    let mut scratch = Scratch::default();
    for seed in seeds {
        let mut b = b0.clone();
        run_exchange(&mut b, &plot, &mut Dice::new(seed), &mut (), &mut scratch);
        let da = f64::from(b.units[idx_a].hull_lost + b.units[idx_a].armour_lost);
        let db = f64::from(b.units[1 - idx_a].hull_lost + b.units[1 - idx_a].armour_lost);
        sum_a += da;
        sum_b += db;
        sq_a += da * da;
        sq_b += db * db;
    }
    (sum_a, sum_b, sq_a, sq_b)
}

#[test]
fn listing_order_does_not_change_the_outcome_distribution_of_a_symmetric_duel() {
    let n = 4000u64;
    let (a1, b1, sa1, sb1) = damage_sums(false, 0..n);
    let (a2, b2, sa2, sb2) = damage_sums(true, n..2 * n);
    let nf = n as f64;
    let mean = |s: f64| s / nf;
    let var = |s: f64, sq: f64| sq / nf - (s / nf).powi(2);
    // Each mean of damage to "A" must agree between orders, within 5
    // standard errors of the difference (independent seeds).
    for (x, sx, y, sy) in [(a1, sa1, a2, sa2), (b1, sb1, b2, sb2), (a1, sa1, b1, sb1)] {
        let se = ((var(x, sx) + var(y, sy)) / nf).sqrt();
        assert!(
            (mean(x) - mean(y)).abs() < 5.0 * se + 1e-9,
            "means {} vs {} (se {se})",
            mean(x),
            mean(y)
        );
    }
    assert!(mean(a1) > 0.5, "the duel does damage");
}

/// A worked Volley with fixed dice: A's Class 3 battery fires at B at 12 MU
/// (3 dice, no Evasion, B has one screen); B does not fire.
#[test]
fn a_scripted_volley_scores_exactly_as_the_rules_read() {
    let (mut battle, mut plot) = duel(12, false);
    for p in plot.formations.iter_mut().flatten() {
        for v in &mut p.volleys {
            v.speed = 0;
            v.evasion = 0;
            v.primary = None;
        }
    }
    let b_plot = plot.formations[1].as_mut().unwrap();
    for v in &mut b_plot.volleys {
        v.fire.clear();
    }
    let a_plot = plot.formations[0].as_mut().unwrap();
    for v in &mut a_plot.volleys {
        v.fire.truncate(1);
        v.fire[0].weapons = vec![7]; // Class 3 Battery #8
    }
    assert_eq!(battle.units[1].screen_level(), 1);
    // Per Volley: d100 50 picks B (only Unit), beam 6 5 4 (screen 1: 2+1+0 = 3)
    // and one reroll 3 (0 penetrating). B's 18 hull boxes are rows of
    // 5/5/4/4, so Volley 2 (6 boxes gone) completes row 1: a threshold check
    // where each of its 13 systems, then the drive, rolls (1s: nothing lost).
    let volley = [50, 6, 5, 4, 3];
    let mut faces = volley.to_vec();
    faces.extend(volley);
    faces.extend([1; 14]);
    faces.extend(volley);
    let mut dice = Dice::from_faces(&faces);
    let mut rec = Recorder::default();
    run_exchange(&mut battle, &plot, &mut dice, &mut rec, &mut Scratch::default());
    assert_eq!(dice.count_draws(), faces.len() as u64);
    assert_eq!(battle.units[1].hull_lost, 9, "3 hull per Volley, no armour");
    assert_eq!(battle.ranges.get(0, 1), 12, "no Speed: the range holds");
    let attacks: Vec<_> = rec
        .events()
        .filter_map(|e| match e {
            fam::engine::event::Event::BeamAttack {
                dice,
                drm,
                screen,
                normal,
                penetrating,
                ..
            } => Some((*dice, *drm, *screen, *normal, *penetrating)),
            _ => None,
        })
        .collect();
    assert_eq!(attacks, vec![(3, 0, 1, 3, 0); 3]);
    let checks: Vec<_> = rec
        .events()
        .filter_map(|e| match e {
            fam::engine::event::Event::ThresholdCheck { unit, row, needed, .. } => Some((*unit, *row, *needed)),
            _ => None,
        })
        .collect();
    assert_eq!(checks, [(1, 1, 6)]);
}
