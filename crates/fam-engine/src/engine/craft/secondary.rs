//! Step 2, after every primary maneuver: the secondary maneuvers of
//! small-craft Formations.

use super::common::{FIGHTER_REACH, best_reach, craft, craft_mut, idle, is_gunboat};
use crate::engine::event::{SecondaryMove, Sink};
use crate::engine::plot::{ExchangePlot, Maneuver};
use crate::engine::scratch::{Scratch, volley_plot};
use crate::engine::state::Battle;

/// Step 2: secondary maneuvers of Formations of small craft only.
pub fn secondary_moves<S: Sink>(
    battle: &mut Battle,
    plot: &ExchangePlot,
    volley: u8,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    if !scratch.craft.any {
        return;
    }
    for f in 0..battle.formations.len() {
        let Some(order) = volley_plot(plot, f, volley).after else {
            continue;
        };
        if !battle.formation_active(f) || !battle.craft_only(f) || !battle.formation_active(order.target) {
            continue;
        }
        let members = || {
            battle.formations[f]
                .units
                .iter()
                .copied()
                .filter(|&u| battle.units[u].active())
        };
        if members().any(|u| craft(battle, u).cef == 0) {
            for u in members() {
                idle(sink, u, "no secondary maneuver: a group of the Formation is exhausted");
            }
            continue;
        }
        let start = battle.ranges.get(f, order.target);
        // Already where every member does its best (gunboats 12 MU,
        // Gatling gunboats and fighters 6 MU; F38, F41): no move, no cost.
        let in_reach = members().map(|u| best_reach(battle, u)).min().unwrap_or(FIGHTER_REACH);
        if order.maneuver == Maneuver::Close && start <= in_reach {
            continue;
        }
        let distance = if members().any(|u| is_gunboat(battle, u)) {
            9
        } else {
            12
        };
        let end = match order.maneuver {
            Maneuver::Close => start.saturating_sub(distance),
            Maneuver::Withdraw => start + distance,
            Maneuver::Maintain => start,
        };
        battle.ranges.set(f, order.target, end);
        for u in 0..battle.units.len() {
            if battle.units[u].formation == f && battle.units[u].active() {
                let c = craft_mut(battle, u);
                c.cef = c.cef.saturating_sub(1);
            }
        }
        if S::RECORDS {
            sink.event(SecondaryMove {
                formation: f,
                target: order.target,
                maneuver: order.maneuver,
                start,
                end,
            });
        }
    }
}
