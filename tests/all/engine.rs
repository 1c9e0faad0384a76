//! Whole-Exchange behaviour of the engine on battles built in code:
//! determinism, exact expectations, and that listing order does not matter.

use approx::abs_diff_eq;
use fam::engine::dice::Dice;
use fam::engine::event::{BeamAttack, Recorder, ThresholdCheck};
use fam::engine::plot::{ExchangePlot, FireOrder, FormationPlot, Maneuver, ManeuverOrder, VolleyPlot};
use fam::engine::rules::Rules;
use fam::engine::state::{Battle, Formation, RangeTable, Side, Unit};
use fam::engine::volley::{Scratch, run_exchange};
use fam::gzf::{self, ParseOptions};

use crate::support::{checked, repo};

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
                reserve: Default::default(),
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
                    group: None,
                },
                FireOrder {
                    unit: me,
                    fire_control: 6,
                    target: Some(other),
                    weapons: vec![10, 11],
                    needles: Vec::new(),
                    group: None,
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
    let plot = &checked(battle, plot);
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
    let plot = checked(&c, &plot);
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
    let plot = checked(&b0, &plot);
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
            abs_diff_eq!(mean(x), mean(y), epsilon = 5.0 * se + 1e-9),
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
    let plot = checked(&battle, &plot);
    run_exchange(&mut battle, &plot, &mut dice, &mut rec, &mut Scratch::default());
    assert_eq!(dice.count_draws(), faces.len() as u64);
    assert_eq!(battle.units[1].hull_lost, 9, "3 hull per Volley, no armour");
    assert_eq!(battle.ranges.get(0, 1), 12, "no Speed: the range holds");
    let attacks: Vec<_> = rec
        .events_of::<BeamAttack>()
        .map(
            |BeamAttack {
                 dice,
                 drm,
                 screen,
                 normal,
                 penetrating,
                 ..
             }| (*dice, *drm, *screen, *normal, *penetrating),
        )
        .collect();
    assert_eq!(attacks, vec![(3, 0, 1, 3, 0); 3]);
    let checks: Vec<_> = rec
        .events_of::<ThresholdCheck>()
        .map(|ThresholdCheck { unit, row, needed, .. }| (*unit, *row, *needed))
        .collect();
    assert_eq!(checks, [(1, 1, 6)]);
}

/// Damage control succeeds on a d6 of at most the parties on the job
/// (ft-rules §8): checked face by face, so the odds are exactly n/6.
#[test]
fn damage_control_repairs_on_a_d6_of_at_most_the_parties() {
    use fam::engine::state::SysState;
    use fam::engine::volley::run_volley;
    for parties in 1..=3u32 {
        let mut repaired = 0;
        for face in 1..=6u8 {
            let (mut battle, mut plot) = duel(60, false);
            for p in plot.formations.iter_mut().flatten() {
                for v in &mut p.volleys {
                    v.speed = 0;
                    v.evasion = 0;
                    v.primary = None;
                    v.fire.clear();
                }
            }
            let u = &mut battle.units[0];
            u.systems[5].state = SysState::Damaged; // FCS #6
            // Keep exactly `parties` crew factors: drop the other markers.
            u.crew_boxes.truncate(parties as usize);
            let mut dice = Dice::from_faces(&[face]);
            let plot = checked(&battle, &plot);
            run_volley(&mut battle, &plot, 0, &mut dice, &mut (), &mut Scratch::default());
            assert_eq!(dice.count_draws(), 1, "one die for the one job");
            let fixed = battle.units[0].systems[5].state == SysState::Operational;
            assert_eq!(fixed, u32::from(face) <= parties, "{parties} parties, face {face}");
            repaired += u32::from(fixed);
        }
        assert_eq!(repaired, parties, "P(repair) = {parties}/6");
    }
}

/// Threshold losses face by face: lost when face + extra rows (− 1 for a
/// core system) reaches 6 / 5 / 4 after rows 1 / 2 / 3 (ft-rules §7.1).
#[test]
fn threshold_losses_follow_the_row_and_the_extra_rows_exactly() {
    use fam::engine::state::SysState;
    use fam::engine::volley::threshold_check;
    let (template, _) = duel(60, false);
    // Clear Heading: 18 boxes in rows of 5/5/4/4; it carries a bridge (core) and FCSs.
    let ends = [5u32, 10, 14];
    for (row_index, end) in ends.iter().enumerate() {
        let row = row_index as u32 + 1;
        for extra in 0..row {
            for face in 1..=6u8 {
                let mut b = template.clone();
                let u = &mut b.units[0];
                u.systems.retain(|s| {
                    matches!(
                        s.kind,
                        fam::gzf::SystemKind::FireControl | fam::gzf::SystemKind::CommandBridge
                    )
                });
                u.systems.truncate(2);
                u.systems.reverse(); // the FCS rolls first, then the bridge (whose loss rolls one more die)
                u.hull_lost = *end;
                u.drive_hits = 2; // no drive roll
                let mut dice = Dice::from_faces(&[face, face, 1]);
                threshold_check(&mut b, 0, extra + 1, &mut dice, &mut ());
                let needed = 7 - row as i32;
                let fcs_lost = b.units[0].systems[0].state == SysState::Damaged;
                let bridge_lost = b.units[0].systems[1].state == SysState::Damaged;
                assert_eq!(
                    fcs_lost,
                    face as i32 + extra as i32 >= needed,
                    "row {row} extra {extra} face {face}"
                );
                let core_modifier = -1;
                assert_eq!(
                    bridge_lost,
                    face as i32 + extra as i32 + core_modifier >= needed,
                    "core at -1"
                );
            }
        }
    }
}

mod battles {
    use super::*;
    use fam::engine::doctrine::default_plot;
    use fam::engine::victory::{Outcome, Reason, Trigger, Victory, decide, run_battle, side_masses};

    #[test]
    fn conditions_are_checked_in_their_documented_order() {
        let (mut b, _) = duel(36, false);
        let start = side_masses(&b);
        let v = Victory {
            max_exchanges: 3,
            morale_percent: Some(50),
            triggers: vec![Trigger::UnitDestroyed { unit: 1, side: 0 }],
        };
        assert_eq!(decide(&b, &start, &v, 1), None, "nothing yet");
        assert_eq!(
            decide(&b, &start, &v, 3),
            Some(Outcome::Draw {
                reason: Reason::ExchangeLimit
            })
        );
        // B's only ship gone: annihilation comes before the named-Unit trigger.
        b.units[1].destroyed = true;
        assert_eq!(
            decide(&b, &start, &v, 1),
            Some(Outcome::Winner {
                side: 0,
                reason: Reason::Annihilation
            })
        );
        // Both gone in the same Exchange: a draw.
        b.units[0].destroyed = true;
        assert_eq!(
            decide(&b, &start, &v, 1),
            Some(Outcome::Draw {
                reason: Reason::Annihilation
            })
        );
    }

    #[test]
    fn half_the_mass_lost_breaks_a_side() {
        // Two ships a side: A loses one (half its mass) and breaks.
        let (s, profile) = ship("meridian-compact.gzf", "MCS Clear Heading");
        let mut b = duel(36, false).0;
        for side in 0..2 {
            let mut u = Unit::from_ship(&s, profile, side, side);
            u.name = format!("{side} second");
            b.formations[side].units.push(b.units.len());
            b.units.push(u);
        }
        let start = side_masses(&b);
        b.units[0].destroyed = true;
        let v = Victory::default();
        assert_eq!(
            decide(&b, &start, &v, 1),
            Some(Outcome::Winner {
                side: 1,
                reason: Reason::Morale
            })
        );
        let no_morale = Victory {
            morale_percent: None,
            ..Victory::default()
        };
        assert_eq!(decide(&b, &start, &no_morale, 1), None);
    }

    /// A symmetric duel fought to a decision under the default doctrine:
    /// each side wins equally often within the sampling error, whichever
    /// side is listed first, and every battle ends.
    #[test]
    fn a_symmetric_duel_to_a_decision_favours_neither_side() {
        let n = 600u64;
        let victory = Victory::default();
        let mut wins = [0u32; 2];
        let mut scratch = Scratch::default();
        for seed in 0..n {
            let (mut b, _) = duel(60, seed % 2 == 1);
            let result = run_battle(&mut b, &victory, seed, |b, _| default_plot(b), &mut (), &mut scratch);
            assert!(result.exchanges <= victory.max_exchanges);
            if let Outcome::Winner { side, .. } = result.outcome {
                // Map back to the ship that is "A" in both listings.
                let a_side = if seed % 2 == 1 { 1 } else { 0 };
                wins[usize::from(side != a_side)] += 1;
            }
        }
        let decided = f64::from(wins[0] + wins[1]);
        assert!(decided > n as f64 * 0.5, "most duels are decided: {wins:?}");
        let p = f64::from(wins[0]) / decided;
        let se = (0.25 / decided).sqrt();
        assert!(
            abs_diff_eq!(p, 0.5, epsilon = 5.0 * se),
            "A wins {p} of decided duels (se {se})"
        );
    }
}

/// Striking the colours (switch): one more roll at the check's number; a
/// ship that fails it surrenders and leaves the fight, and the record says
/// so (`Status: Inactive`).
#[test]
fn a_ship_strikes_its_colours_on_the_extra_threshold_roll() {
    use fam::engine::volley::threshold_check;
    for (face, surrenders) in [(5u8, false), (6, true)] {
        let (mut b, _) = duel(60, false);
        b.rules.strike_colours = true;
        let u = &mut b.units[0];
        u.systems.truncate(0);
        u.hull_lost = 5; // first row of 5/5/4/4 complete: needs 6
        // No systems; the colours roll, then (if still fighting) the drive.
        let mut dice = Dice::from_faces(&[face, 1]);
        threshold_check(&mut b, 0, 1, &mut dice, &mut ());
        assert_eq!(b.units[0].surrendered, surrenders, "face {face}");
        assert_eq!(b.units[0].active(), !surrenders);
        if surrenders {
            let (s, profile) = ship("meridian-compact.gzf", "MCS Clear Heading");
            let mut record = s.clone();
            b.units[0].systems = Unit::from_ship(&s, profile, 0, 0).systems;
            b.units[0].write_back(&mut record);
            assert_eq!(record.status.activity, Some(fam::gzf::Activity::Inactive));
            assert!(
                Unit::from_ship(&record, profile, 0, 0).surrendered,
                "read back as surrendered"
            );
        }
    }
}

/// The batch runner's reset gives back exactly the starting battle.
#[test]
fn reset_to_restores_the_start_after_a_bloody_exchange() {
    let (start, plot) = duel(12, false);
    let plot = checked(&start, &plot);
    let mut b = start.clone();
    for seed in 0..20 {
        run_exchange(&mut b, &plot, &mut Dice::new(seed), &mut (), &mut Scratch::default());
        assert_ne!(b, start, "the exchange changed something (seed {seed})");
        b.reset_to(&start);
        assert_eq!(b, start);
    }
}
