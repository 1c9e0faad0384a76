//! Carriers and small craft under doctrine (docs/doctrine.md, "Carriers
//! and small craft"): launches, recoveries, and the plots of Formations of
//! fighter groups and gunboats.

use crate::engine::craft::FIGHTER_REACH;
use crate::engine::doctrine::assess::launchable;
use crate::engine::doctrine::measure::{enemies, is_live_enemy, maneuver_target};
use crate::engine::doctrine::orders::{Doctrine, EvasionSplit, FighterUse};
use crate::engine::plot::{CraftAction, CraftOrder, FormationId, FormationPlot, Maneuver, ManeuverOrder, UnitId};
use crate::engine::state::Battle;

/// Every group of the battle with a carrier, as (carrier, group), in that
/// order: a carrier's groups are read without looking at every Unit.
pub(super) fn carried_groups(battle: &Battle, carried: &mut Vec<(UnitId, UnitId)>) {
    carried.clear();
    carried.extend(
        (0..battle.units.len()).filter_map(|g| battle.units[g].craft.and_then(|c| c.carrier).map(|(c, _)| (c, g))),
    );
    carried.sort_unstable();
}

/// The first group of `f` that can launch this Exchange.
pub(super) fn first_launchable(battle: &Battle, f: FormationId) -> Option<UnitId> {
    battle.formations[f]
        .units
        .iter()
        .copied()
        .find(|&g| launchable(battle, g))
}

/// The largest ship of Formation `t` in the fight (most mass, the first
/// listed on ties).
pub fn largest_ship(battle: &Battle, t: FormationId) -> Option<UnitId> {
    let mut best: Option<(u32, UnitId)> = None;
    for &u in &battle.formations[t].units {
        let unit = &battle.units[u];
        if unit.active() && !unit.is_craft() && best.is_none_or(|(m, _)| unit.mass > m) {
            best = Some((unit.mass, u));
        }
    }
    best.map(|(_, u)| u)
}

/// PDS gunboats: no attack, they defend their Formation (readings F46).
fn defends_only(battle: &Battle, g: UnitId) -> bool {
    use crate::engine::state::{CraftKind, GunboatKind};
    battle.units[g]
        .craft
        .is_some_and(|c| c.kind == CraftKind::Gunboat(GunboatKind::Pds))
}

/// Groups whose type may screen and intercept (not attack or torpedo fighters, not gunboats).
fn screens(battle: &Battle, g: UnitId) -> bool {
    use crate::model::FighterBase;
    matches!(
        battle.units[g].craft.map(|c| c.kind),
        Some(crate::engine::state::CraftKind::Fighter(t)) if !matches!(t.base, FighterBase::Attack | FighterBase::Torpedo)
    )
}

/// The plot of a Formation of small craft only (in the fight, or about to
/// be launched): close on the strike target with a secondary close, every
/// group attacking its largest ship; when every group is exhausted (or a
/// gunboat squadron whose one-shot weapon is spent), close on the
/// carriers' Formation to be recovered.
pub(super) fn craft_formation_plot(battle: &Battle, f: FormationId, d: &Doctrine, out: &mut FormationPlot) -> bool {
    let prelaunch = !battle.formation_active(f);
    let member = |g: &UnitId| {
        let u = &battle.units[*g];
        (u.active() || launchable(battle, *g)) && u.is_craft()
    };
    // Where the Formation is (or will be): its carrier's Formation before launch.
    let pos = if prelaunch {
        match first_launchable(battle, f).and_then(|g| battle.units[g].craft?.carrier) {
            Some((carrier, _)) => battle.units[carrier].formation,
            None => return false,
        }
    } else {
        f
    };
    let thrust = battle.formations[f]
        .units
        .iter()
        .filter(|g| member(g))
        .map(|&g| battle.units[g].thrust)
        .min()
        .unwrap_or(0);
    let tired = battle.formations[f]
        .units
        .iter()
        .filter(|g| member(g))
        .all(|&g| battle.units[g].craft.is_some_and(|c| c.cef == 0 || c.unarmed()));
    let home = battle.formations[f]
        .units
        .iter()
        .filter_map(|&g| battle.units[g].craft?.carrier)
        .map(|(c, _)| battle.units[c].formation)
        .find(|&h| h != f && battle.formation_active(h));
    let all_craft = battle.formations[f].units.iter().all(|&u| battle.units[u].is_craft());
    let with_ships = |t: &FormationId| !battle.craft_only(*t);
    let strike = maneuver_target(battle, pos, d.target)
        .filter(|&t| is_live_enemy(battle, pos, t) && with_ships(&t))
        .or_else(|| {
            enemies(battle, pos)
                .filter(with_ships)
                .min_by_key(|&t| (battle.ranges.get(pos, t), t))
        });
    let tired = tired || d.fighters == FighterUse::Hold;
    let (goal, attack) = if tired {
        (home, None)
    } else {
        (strike, strike.and_then(|t| largest_ship(battle, t)))
    };
    for (vi, v) in out.volleys.iter_mut().enumerate() {
        let t = if prelaunch && vi == 0 { thrust / 2 } else { thrust };
        let cap = t / 2;
        let evasion = match d.evasion {
            EvasionSplit::Auto | EvasionSplit::Third => t / 3,
            EvasionSplit::Dice(n) => n,
            EvasionSplit::Max => cap,
        }
        .min(cap);
        v.speed = t - evasion;
        v.evasion = evasion;
        v.primary = goal.map(|target| ManeuverOrder {
            target,
            maneuver: Maneuver::Close,
        });
        // Only a Formation holding no ship at all makes a secondary maneuver.
        v.after = if tired || !all_craft { None } else { v.primary };
        if let Some(ship) = attack {
            for &g in &battle.formations[f].units {
                if member(&g) && !defends_only(battle, g) {
                    v.craft.push(CraftOrder {
                        group: g,
                        action: CraftAction::Attack(ship),
                    });
                }
            }
        }
    }
    true
}

/// A ship Formation's small-craft orders: launch every ready group of its
/// carriers in Volley 1 (within launch tubes), recover its carriers'
/// exhausted groups within reach, and give the groups riding with it a
/// task: screen its largest ship (fighters that may intercept) or attack
/// the largest ship of the fire target. `carried`: every group of the
/// battle with a carrier, as (carrier, group) in order ([`carried_groups`]).
pub(super) fn carrier_orders(
    battle: &Battle,
    f: FormationId,
    mode: FighterUse,
    target: Option<FormationId>,
    carried: &[(UnitId, UnitId)],
    out: &mut FormationPlot,
) {
    let hold = mode == FighterUse::Hold;
    for &ship in &battle.formations[f].units {
        if battle.units[ship].is_craft() || !battle.units[ship].can_act() {
            continue;
        }
        let tubes = battle.units[ship].launch_tubes.unwrap_or(u32::MAX);
        let mut used = 0;
        // Its groups, in the order of the battle's Units.
        let first = carried.partition_point(|&(c, _)| c < ship);
        let groups = carried[first..]
            .iter()
            .take_while(|&&(c, _)| c == ship)
            .map(|&(_, g)| g);
        for g in groups.clone() {
            if !hold && used < tubes && launchable(battle, g) {
                out.volleys[0].launch.push(g);
                used += 1;
            }
        }
        for g in groups {
            let Some(c) = battle.units[g].craft else { continue };
            let gf = battle.units[g].formation;
            let near = gf == f || battle.ranges.get(gf, f) <= FIGHTER_REACH;
            let bay = c
                .carrier
                .is_some_and(|(_, b)| battle.units[ship].systems.get(b).is_some_and(|s| s.operational()));
            let due = c.cef == 0 || hold;
            if used < tubes && battle.units[g].active() && due && near && bay {
                out.volleys[0].recover.push(g);
                used += 1;
            }
        }
    }
    let guard = largest_ship(battle, f);
    let prey = target.and_then(|t| largest_ship(battle, t));
    for &g in &battle.formations[f].units {
        let unit = &battle.units[g];
        let Some(c) = unit.craft else { continue };
        if defends_only(battle, g) {
            continue; // PDS gunboats defend the Formation unbidden (F46)
        }
        let flying = (unit.active() && c.cef > 0) || out.volleys[0].launch.contains(&g);
        if !flying || out.volleys[0].recover.contains(&g) {
            continue;
        }
        let action = match (screens(battle, g), guard, prey) {
            (true, Some(ship), _) => CraftAction::Screen(ship),
            (false, _, Some(ship)) => CraftAction::Attack(ship),
            _ => continue,
        };
        for v in &mut out.volleys {
            v.craft.push(CraftOrder { group: g, action });
        }
    }
}
