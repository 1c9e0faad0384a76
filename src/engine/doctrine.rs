//! The default standing orders: what a Formation does when it has neither
//! an explicit plot nor doctrine of its own (issue 5's "sensible
//! defaults"): close to the best range for its beams and fire every beam
//! and torpedo at the nearest enemy Formation. Pure and deterministic: the
//! plot depends only on the battle state.

use super::plot::{ExchangePlot, FireOrder, FormationPlot, Maneuver, ManeuverOrder, VolleyPlot};
use super::state::{Battle, SysState};
use super::tables::beam_dice;
use crate::gzf::model::SystemKind;

/// Range in MU at which a Formation's beams roll the most dice (ties go to
/// the longer range); `None` if it has no working beam.
pub fn best_beam_range(battle: &Battle, f: usize) -> Option<u32> {
    let classes: Vec<u32> = battle.formations[f]
        .units
        .iter()
        .map(|u| &battle.units[*u])
        .filter(|u| u.active())
        .flat_map(|u| u.systems.iter())
        .filter(|s| s.state == SysState::Operational)
        .filter_map(|s| match s.kind {
            SystemKind::Beam { class } => Some(u32::from(class)),
            _ => None,
        })
        .collect();
    if classes.is_empty() {
        return None;
    }
    (1..=20u32)
        .map(|k| k * 3)
        .map(|r| (classes.iter().map(|c| beam_dice(*c, r)).sum::<u32>(), r))
        .max()
        .map(|(_, r)| r)
}

/// The nearest enemy Formation still in the fight (ties: the first).
pub fn nearest_enemy(battle: &Battle, f: usize) -> Option<usize> {
    let side = battle.formations[f].side;
    (0..battle.formations.len())
        .filter(|e| battle.formations[*e].side != side && battle.formation_active(*e))
        .min_by_key(|e| (battle.ranges.get(f, *e), *e))
}

/// The default plot of one Formation for a whole Exchange.
pub fn default_formation_plot(battle: &Battle, f: usize) -> Option<FormationPlot> {
    if !battle.formation_active(f) {
        return None;
    }
    let thrust = battle.formation_thrust(f);
    let evasion = (thrust / 3).min(thrust / 2);
    let speed = thrust - evasion;
    let enemy = nearest_enemy(battle, f);
    let primary = enemy.map(|e| {
        let range = battle.ranges.get(f, e);
        let maneuver = match best_beam_range(battle, f) {
            Some(best) if range > best => Maneuver::Close,
            Some(_) => Maneuver::Maintain,
            None => Maneuver::Withdraw,
        };
        ManeuverOrder { target: e, maneuver }
    });
    let mut fire = Vec::new();
    if let Some(e) = enemy {
        for &u in &battle.formations[f].units {
            let unit = &battle.units[u];
            if !unit.active() {
                continue;
            }
            let Some(fc) = unit.fire_controls().next() else {
                continue;
            };
            let weapons: Vec<usize> = unit
                .systems
                .iter()
                .enumerate()
                .filter(|(_, s)| s.state != SysState::Destroyed)
                .filter(|(_, s)| matches!(s.kind, SystemKind::Beam { .. } | SystemKind::PulseTorpedo { .. }))
                .map(|(i, _)| i)
                .collect();
            if !weapons.is_empty() {
                fire.push(FireOrder {
                    unit: u,
                    fire_control: fc,
                    target: Some(e),
                    weapons,
                    needles: Vec::new(),
                });
            }
        }
    }
    let volley = VolleyPlot {
        speed,
        evasion,
        primary,
        fire,
        ..VolleyPlot::default()
    };
    Some(FormationPlot {
        volleys: [volley.clone(), volley.clone(), volley],
    })
}

/// Default plots for every Formation in the fight.
pub fn default_plot(battle: &Battle) -> ExchangePlot {
    ExchangePlot {
        formations: (0..battle.formations.len())
            .map(|f| default_formation_plot(battle, f))
            .collect(),
    }
}
