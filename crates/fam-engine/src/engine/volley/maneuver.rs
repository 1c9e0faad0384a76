//! Step 1, Maneuver: Formation Thrust, the plot cut when thrust fell, the
//! Speed and Evasion pools, and the range of every pair of Formations
//! (close, then withdraw, then maintain; fm-readings 1-5).

use crate::engine::dice::{Dice, Purpose, successes};
use crate::engine::event::{PlotCut, Pools, RangeChanged, Sink};
use crate::engine::plot::{ExchangePlot, FormationId, Maneuver, ManeuverOrder, VolleyPlot};
use crate::engine::scratch::{Scratch, Tap, volley_plot};
use crate::engine::state::Battle;

/// The maneuver Formation `f` brings to its pair with each other
/// Formation, into `row` (one per Formation): its primary maneuver against
/// its primary target, the first secondary order listed against another,
/// Maintain against the rest (an unplotted pair counts as a secondary
/// Maintain; fm-readings 1-2). Returns the primary target, against which
/// it brings all its Speed Points ([`points`]).
fn moves_of(vp: &VolleyPlot, row: &mut [Maneuver]) -> Option<FormationId> {
    row.fill(Maneuver::Maintain);
    // Backwards, so that the first order against a Formation stands.
    for m in vp.secondary.iter().rev() {
        if let Some(slot) = row.get_mut(m.target) {
            *slot = m.maneuver;
        }
    }
    let ManeuverOrder { target, maneuver } = vp.primary?;
    let slot = row.get_mut(target)?;
    *slot = maneuver;
    Some(target)
}

/// The Speed Points a Formation with `speed_points` and primary target
/// `primary` brings to its pair with `other`: all of them against its
/// primary target, one fewer against any other (fm-readings 1-2).
fn points(speed_points: u32, primary: Option<FormationId>, other: FormationId) -> u32 {
    if primary == Some(other) {
        speed_points
    } else {
        speed_points.saturating_sub(1)
    }
}

/// The range after one pair's maneuvers (fm-readings 3): close, then
/// withdraw, then maintain back toward the start, never past it.
/// Returns the range after each step.
pub fn pair_range(start: u32, a: (Maneuver, u32), b: (Maneuver, u32)) -> (u32, u32, u32) {
    // MU each maneuver brings to the pair, both Formations together.
    let (mut close, mut withdraw, mut maintain) = (0u32, 0u32, 0u32);
    for (m, points) in [a, b] {
        let mu = points * 3;
        match m {
            Maneuver::Close => close += mu,
            Maneuver::Withdraw => withdraw += mu,
            Maneuver::Maintain => maintain += mu,
        }
    }
    let after_close = (i64::from(start) - i64::from(close)).unsigned_abs() as u32;
    let after_withdraw = after_close + withdraw;
    let end = if after_withdraw > start {
        after_withdraw.saturating_sub(maintain).max(start)
    } else {
        (after_withdraw + maintain).min(start)
    };
    (after_close, after_withdraw, end)
}

pub(super) fn maneuver<S: Sink>(
    battle: &mut Battle,
    plot: &ExchangePlot,
    volley: u8,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    let nf = battle.formations.len();
    // Nothing in this step takes a Unit out of the fight.
    scratch.in_fight.clear();
    scratch.in_fight.extend((0..nf).filter(|&f| battle.formation_active(f)));
    for i in 0..scratch.in_fight.len() {
        let f = scratch.in_fight[i];
        let vp = volley_plot(plot, f, volley);
        let thrust = battle.formation_thrust(f);
        let unplotted = plot.formations.get(f).is_none_or(Option::is_none);
        // An unplotted Formation puts all its thrust into Speed.
        let (mut speed, mut evasion) = if unplotted { (thrust, 0) } else { (vp.speed, vp.evasion) };
        // A carrier launching or recovering keeps its drive off: no Speed
        // (reading F15).
        let no_speed = scratch.craft.any && scratch.craft.no_speed[f];
        // A ship firing its nova cannon has no thrust at all (reading W63).
        let no_thrust = scratch.nova.iter().any(|&u| battle.units[u].formation == f);
        if speed + evasion > thrust {
            // Cut Speed first, then Evasion (fm-readings 8); Evasion may then
            // be at most half the new thrust (all of it with advanced
            // drives), the rest goes back to Speed.
            let cut = speed + evasion - thrust;
            let from_speed = cut.min(speed);
            speed -= from_speed;
            evasion -= cut - from_speed;
            let cap = battle.evasion_cap(f, thrust);
            if evasion > cap {
                speed += evasion - cap;
                evasion = cap;
            }
            if S::RECORDS {
                sink.event(PlotCut {
                    formation: f,
                    thrust,
                    speed,
                    evasion,
                });
            }
        }
        if no_speed || no_thrust {
            speed = 0;
        }
        if no_thrust {
            evasion = 0;
        }
        let mut tap = Tap::new(sink);
        let sp = successes(dice, &mut tap, speed, Purpose::Speed);
        let speed_dice = tap.take();
        let ep = successes(dice, &mut tap, evasion, Purpose::Evasion);
        let evasion_dice = tap.take();
        scratch.speed_points[f] = sp;
        scratch.evasion_points[f] = ep;
        if S::RECORDS {
            sink.event(Pools {
                formation: f,
                thrust,
                speed_dice,
                speed_points: sp,
                evasion_dice,
                evasion_points: ep,
            });
        }
    }
    // Every row of a Formation in the fight is written before it is read;
    // the rest are never read.
    scratch.moves.resize(nf * nf, Maneuver::Maintain);
    scratch.primary.clear();
    scratch.primary.resize(nf, None);
    for &f in &scratch.in_fight {
        let row = &mut scratch.moves[f * nf..(f + 1) * nf];
        scratch.primary[f] = moves_of(volley_plot(plot, f, volley), row);
    }
    let (live, moves, primary, sp) = (
        &scratch.in_fight,
        &scratch.moves,
        &scratch.primary,
        &scratch.speed_points,
    );
    for (i, &a) in live.iter().enumerate() {
        let row = &moves[a * nf..(a + 1) * nf];
        for &b in &live[i + 1..] {
            let (am, bm) = (row[b], moves[b * nf + a]);
            // Two Maintains keep the range as it is (fm-readings 3): only
            // the report needs to hear of it.
            if !S::RECORDS && am == Maneuver::Maintain && bm == Maneuver::Maintain {
                continue;
            }
            let am = (am, points(sp[a], primary[a], b));
            let bm = (bm, points(sp[b], primary[b], a));
            let start = battle.ranges.get(a, b);
            let (after_close, after_withdraw, end) = pair_range(start, am, bm);
            battle.ranges.set(a, b, end);
            if S::RECORDS {
                sink.event(RangeChanged {
                    a,
                    b,
                    start,
                    a_move: Some(am),
                    b_move: Some(bm),
                    after_close,
                    after_withdraw,
                    end,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::plot::Maneuver::*;

    #[test]
    fn maneuver_follows_the_worked_examples_of_fm_readings_3() {
        // A closes with 3 SP, B withdraws with 2 SP: 60 → 51 → 57.
        assert_eq!(pair_range(60, (Close, 3), (Withdraw, 2)), (51, 57, 57));
        // A closes with 3, B maintains with 4: 51, then back to 60 (never past it).
        assert_eq!(pair_range(60, (Close, 3), (Maintain, 4)), (51, 51, 60));
        // A closes with 25: |60 − 75| = 15 (overshoot).
        assert_eq!(pair_range(60, (Close, 25), (Maintain, 0)), (15, 15, 15));
        // Order of the pair does not matter.
        assert_eq!(
            pair_range(60, (Withdraw, 2), (Close, 3)),
            pair_range(60, (Close, 3), (Withdraw, 2))
        );
        // Maintain pulls a withdrawal back toward the start.
        assert_eq!(pair_range(30, (Withdraw, 4), (Maintain, 2)), (30, 42, 36));
        // Two Maintains keep the range (the step skips such pairs).
        assert_eq!(pair_range(30, (Maintain, 4), (Maintain, 2)), (30, 30, 30));
    }

    #[test]
    fn secondary_and_unplotted_pairs_lose_one_speed_point() {
        let vp = VolleyPlot {
            primary: Some(ManeuverOrder {
                target: 1,
                maneuver: Close,
            }),
            // A second order against the same Formation does not count,
            // nor one against a Formation that is not in the battle.
            secondary: vec![
                ManeuverOrder {
                    target: 2,
                    maneuver: Withdraw,
                },
                ManeuverOrder {
                    target: 2,
                    maneuver: Close,
                },
                ManeuverOrder {
                    target: 9,
                    maneuver: Close,
                },
            ],
            ..VolleyPlot::default()
        };
        let mut row = [Close; 4];
        let primary = moves_of(&vp, &mut row);
        assert_eq!((&row[1..], primary), (&[Close, Withdraw, Maintain][..], Some(1)));
        assert_eq!([1, 2, 3].map(|b| points(3, primary, b)), [3, 2, 2]);
        assert_eq!(points(0, primary, 3), 0);
    }
}
