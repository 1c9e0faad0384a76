//! Step 3, engagement (no dice): named dogfights, screens meeting
//! attackers, attack runs, firing back, interceptions; endurance paid.

use super::common::{FIGHTER_REACH, craft, craft_mut, fighter, idle, is_gunboat, reach, unit_range};
use crate::engine::event::{CraftEngaged, Sink};
use crate::engine::plot::{CraftAction, ExchangePlot, UnitId};
use crate::engine::scratch::{CraftScratch, Scratch, Shot, volley_plot};
use crate::engine::state::{Battle, Craft, CraftKind, GunboatKind};
use crate::model::FighterBase;

/// Fighters of these types may not intercept missiles.
fn may_intercept(c: &Craft) -> bool {
    fighter(c).is_some_and(|t| !matches!(t.base, FighterBase::Attack | FighterBase::Torpedo))
}

/// Step 3: who fights whom this Volley (no dice); endurance paid.
pub fn engage<S: Sink>(battle: &mut Battle, plot: &ExchangePlot, volley: u8, sink: &mut S, scratch: &mut Scratch) {
    if !scratch.craft.any {
        return;
    }
    let cs = &mut scratch.craft;
    for u in 0..battle.units.len() {
        if let Some(c) = battle.units[u].craft {
            cs.exhausted[u] = battle.units[u].active() && c.cef == 0;
        }
    }
    cs.screens.clear();
    cs.attackers.clear();
    // Named dogfights first; screens and attack runs gathered in plot order.
    for f in 0..battle.formations.len() {
        if !battle.formation_active(f) {
            continue;
        }
        for order in &volley_plot(plot, f, volley).craft {
            let g = order.group;
            if battle.units[g].active() && battle.units[g].formation == f {
                take_order(battle, cs, sink, f, g, order.action);
            }
        }
    }
    meet_screens(battle, cs);
    // Attack runs by those no screen met.
    for i in 0..cs.attackers.len() {
        let (g, ship) = cs.attackers[i];
        if !cs.engaged[g] && cs.fires_at[g].is_none() {
            cs.fires_at[g] = Some(Shot::Run(ship));
        }
    }
    fire_back_and_cover(battle, cs);
    pay_endurance(battle, cs, sink);
    if S::RECORDS {
        for g in 0..battle.units.len() {
            if let Some(ship) = cs.intercept[g] {
                sink.event(CraftEngaged {
                    group: g,
                    target: ship,
                    action: "intercept",
                    cef_left: craft(battle, g).cef,
                });
            }
        }
    }
}

fn enemies(battle: &Battle, a: UnitId, b: UnitId) -> bool {
    battle.units[a].side != battle.units[b].side
}

/// One plotted action of group `g` of Formation `f`: a dogfight set now,
/// a screen or attack run gathered, an interception readied, or idle.
fn take_order<S: Sink>(battle: &Battle, cs: &mut CraftScratch, sink: &mut S, f: usize, g: UnitId, action: CraftAction) {
    match action {
        CraftAction::Dogfight(h) => dogfight_order(battle, cs, sink, g, h),
        CraftAction::Screen(ship) => {
            if battle.units[ship].active() && battle.units[ship].formation == f {
                cs.screens.push((g, ship));
            }
        }
        CraftAction::Attack(h) if is_gunboat(battle, h) => gunboat_hunt_order(battle, cs, sink, g, h),
        CraftAction::Attack(ship) => attack_run_order(battle, cs, sink, g, ship),
        CraftAction::Intercept => {
            let c = craft(battle, g);
            if cs.exhausted[g] {
                idle(sink, g, "exhausted: no interception");
            } else if may_intercept(&c) {
                cs.intercept[g] = Some(None);
            }
        }
    }
}

/// A named dogfight of `g` with group `h`, if `g` can start one.
fn dogfight_order<S: Sink>(battle: &Battle, cs: &mut CraftScratch, sink: &mut S, g: UnitId, h: UnitId) {
    if cs.exhausted[g] {
        idle(sink, g, "exhausted: it cannot start a dogfight");
    } else if !battle.units[h].active() || !battle.units[h].is_craft() || !enemies(battle, g, h) {
        idle(sink, g, "its dogfight target is out of the fight");
    } else if unit_range(battle, g, h) > FIGHTER_REACH {
        idle(sink, g, "its dogfight target is more than 6 MU away");
    } else if cs.fires_at[g].is_none() {
        cs.fires_at[g] = Some(Shot::Dogfight(h));
        cs.engaged[g] = true;
        if !is_gunboat(battle, h) {
            cs.engaged[h] = true;
            cs.engaged_by[h].get_or_insert(g);
        }
    }
}

/// An attack on gunboat squadron `h`: attack-run dice, each scoring die
/// kills a boat (reading F24), as a named dogfight; never a run on a hull
/// it lacks.
fn gunboat_hunt_order<S: Sink>(battle: &Battle, cs: &mut CraftScratch, sink: &mut S, g: UnitId, h: UnitId) {
    if is_gunboat(battle, g) {
        idle(sink, g, "gunboats attack ships only");
    } else if cs.exhausted[g] {
        idle(sink, g, "exhausted: no attack");
    } else if !battle.units[h].active() || !enemies(battle, g, h) {
        idle(sink, g, "its target is out of the fight");
    } else if unit_range(battle, g, h) > FIGHTER_REACH {
        idle(sink, g, "its target's Formation is more than 6 MU away");
    } else if cs.fires_at[g].is_none() {
        cs.fires_at[g] = Some(Shot::Dogfight(h));
        cs.engaged[g] = true;
    }
}

/// An attack run of `g` on `ship`, gathered for the screens to meet.
fn attack_run_order<S: Sink>(battle: &Battle, cs: &mut CraftScratch, sink: &mut S, g: UnitId, ship: UnitId) {
    if cs.exhausted[g] {
        idle(sink, g, "exhausted: no attack run");
    } else if !battle.units[ship].active() {
        idle(sink, g, "its target is out of the fight");
    } else if craft(battle, g).kind == CraftKind::Gunboat(GunboatKind::Pds) {
        idle(sink, g, "PDS gunboats defend their Formation; they attack nothing");
    } else if craft(battle, g).unarmed() {
        idle(sink, g, spent_reason(&craft(battle, g)));
    } else if unit_range(battle, g, ship) > reach(battle, g) {
        idle(
            sink,
            g,
            if is_gunboat(battle, g) {
                "its target's Formation is more than 12 MU away"
            } else {
                "its target's Formation is more than 6 MU away"
            },
        );
    } else {
        cs.attackers.push((g, ship));
    }
}

/// Screens meet the fighters attacking their ship, one to one in plot
/// order; extra screens join against the attackers (reading F9).
fn meet_screens(battle: &Battle, cs: &mut CraftScratch) {
    let mut ships = std::mem::take(&mut cs.ships);
    ships.clear();
    ships.extend(cs.screens.iter().map(|s| s.1));
    ships.sort_unstable();
    ships.dedup();
    for &ship in &ships {
        cs.free.clear();
        cs.free.extend(
            cs.screens
                .iter()
                .filter(|(g, s)| *s == ship && !cs.engaged[*g] && cs.fires_at[*g].is_none())
                .map(|(g, _)| *g),
        );
        cs.queue.clear();
        cs.queue.extend(
            cs.attackers
                .iter()
                .filter(|(a, s)| *s == ship && !cs.engaged[*a] && !is_gunboat(battle, *a))
                .map(|(a, _)| *a),
        );
        if cs.queue.is_empty() {
            continue;
        }
        for (i, &screen) in cs.free.iter().enumerate() {
            let attacker = cs.queue[i % cs.queue.len()];
            cs.fires_at[screen] = Some(Shot::Dogfight(attacker));
            cs.engaged[screen] = true;
            cs.engaged[attacker] = true;
            cs.engaged_by[attacker].get_or_insert(screen);
            if i < cs.queue.len() {
                cs.engaged_by[screen].get_or_insert(attacker);
            }
        }
    }
    cs.ships = ships;
}

/// Engaged groups with no target of their own fire back; free screens of
/// a fighter type that may intercept cover their ship.
fn fire_back_and_cover(battle: &Battle, cs: &mut CraftScratch) {
    for g in 0..battle.units.len() {
        if cs.fires_at[g].is_none()
            && cs.engaged[g]
            && let Some(h) = cs.engaged_by[g]
            && !is_gunboat(battle, g)
        {
            cs.fires_at[g] = Some(Shot::Dogfight(h));
        }
        if cs.engaged[g] {
            cs.intercept[g] = None;
        }
    }
    for &(g, ship) in &cs.screens {
        if !cs.engaged[g] && !cs.exhausted[g] && may_intercept(&craft(battle, g)) {
            cs.intercept[g] = Some(Some(ship));
        }
    }
}

/// Endurance: one per Volley of combat (reading F8); interceptions pay
/// when they roll.
fn pay_endurance<S: Sink>(battle: &mut Battle, cs: &CraftScratch, sink: &mut S) {
    for g in 0..battle.units.len() {
        let Some(shot) = cs.fires_at[g] else { continue };
        let at_gunboats = matches!(shot, Shot::Dogfight(h) if is_gunboat(battle, h));
        let c = craft_mut(battle, g);
        c.cef = c.cef.saturating_sub(1);
        if S::RECORDS {
            let (target, action) = match shot {
                Shot::Dogfight(h) if at_gunboats => (h, "attack on gunboats"),
                Shot::Dogfight(h) => (h, "dogfight"),
                Shot::Run(s) => (s, run_action(c)),
            };
            let cef_left = c.cef;
            sink.event(CraftEngaged {
                group: g,
                target: Some(target),
                action,
                cef_left,
            });
        }
    }
}

/// The name of a group's attack on a ship, by its kind (a table).
fn run_action(c: &Craft) -> &'static str {
    match c.kind {
        CraftKind::Gunboat(GunboatKind::Beam | GunboatKind::Gatling) => "gunboat attack",
        CraftKind::Gunboat(GunboatKind::Torpedo) => "torpedo attack",
        CraftKind::Gunboat(GunboatKind::KGun) => "k-gun attack",
        CraftKind::Gunboat(GunboatKind::Rocket) => "rocket attack",
        CraftKind::Gunboat(GunboatKind::Submunition) => "submunition attack",
        CraftKind::Gunboat(GunboatKind::Missile) => "missile attack",
        CraftKind::Gunboat(GunboatKind::Pds) => unreachable!("PDS gunboats make no attack"),
        CraftKind::Fighter(t) if t.base == FighterBase::Torpedo && !c.torpedoes_spent => "torpedo run",
        CraftKind::Fighter(_) => "attack run",
    }
}

/// Why a spent one-shot gunboat squadron idles.
fn spent_reason(c: &Craft) -> &'static str {
    match c.kind {
        CraftKind::Gunboat(GunboatKind::Submunition) => "its submunition packs are spent",
        CraftKind::Gunboat(GunboatKind::Missile) => "its missiles are spent",
        _ => "its rockets are spent",
    }
}
