//! Step 1, the Launch phase: re-arming countdowns, recoveries, launches.

use super::common::{FIGHTER_REACH, craft, craft_mut, idle};
use crate::engine::dice::{Dice, Pile, Purpose};
use crate::engine::event::{CraftLaunched, CraftReady, CraftRecovered, Sink};
use crate::engine::plot::{ExchangePlot, UnitId};
use crate::engine::scratch::{Scratch, volley_plot};
use crate::engine::state::{Battle, Rearm, Reserve, SysState};

/// The Unit's hangar bay `bay` works.
fn bay_works(battle: &Battle, carrier: UnitId, bay: usize) -> bool {
    battle.units[carrier]
        .systems
        .get(bay)
        .is_some_and(|s| s.state == SysState::Operational && !s.inactive)
}

/// Why carrier `carrier` cannot take a group into or out of its bay `bay`
/// now, if it cannot: out of the fight or of control, or the bay knocked out.
fn carrier_problem(battle: &Battle, carrier: UnitId, bay: usize) -> Option<&'static str> {
    if !battle.units[carrier].can_act() {
        Some("its carrier is out of the fight or out of control")
    } else if !bay_works(battle, carrier, bay) {
        Some("its hangar bay is knocked out")
    } else {
        None
    }
}

/// Why carrier `c` may not use its deck once more this Volley, if not.
fn deck_busy(battle: &Battle, scratch: &Scratch, c: UnitId) -> Option<&'static str> {
    let free = battle.units[c]
        .launch_tubes
        .is_none_or(|tubes| scratch.craft.deck[c] < tubes);
    (!free).then_some("its carrier's launch tubes are all in use this Volley")
}

/// Step 1, the Launch phase.
pub fn launch_phase<S: Sink>(
    battle: &mut Battle,
    plot: &ExchangePlot,
    volley: u8,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    scratch.craft.start(battle);
    if !scratch.craft.any {
        return;
    }
    rearm_countdowns(battle, sink);
    let nf = battle.formations.len();
    // b) Recoveries, Formation by Formation in plot order.
    for f in 0..nf {
        for &g in &volley_plot(plot, f, volley).recover {
            recover_group(battle, g, dice, sink, scratch);
        }
    }
    // c) Launches.
    for f in 0..nf {
        for &g in &volley_plot(plot, f, volley).launch {
            launch_group(battle, g, sink, scratch);
        }
    }
    for u in 0..battle.units.len() {
        if scratch.craft.busy[u] {
            let f = battle.units[u].formation;
            scratch.craft.no_speed[f] = true;
        }
    }
}

/// Launch phase a): docked groups count down to ready, and are re-armed
/// to full endurance when they get there.
fn rearm_countdowns<S: Sink>(battle: &mut Battle, sink: &mut S) {
    for u in 0..battle.units.len() {
        if battle.units[u].destroyed {
            continue;
        }
        let Some(c) = battle.units[u].craft.as_mut() else {
            continue;
        };
        if !c.docked {
            continue;
        }
        if let Rearm::In(n) = c.rearm {
            if n <= 1 {
                c.rearm = Rearm::Ready;
                c.cef = c.cef_max;
                c.torpedoes_spent = false;
                if S::RECORDS {
                    sink.event(CraftReady { group: u });
                }
            } else {
                c.rearm = Rearm::In(n - 1);
            }
        }
    }
}

/// Why group `g` cannot be recovered now, if it cannot.
fn recovery_problem(battle: &Battle, scratch: &Scratch, g: UnitId) -> Option<&'static str> {
    match craft(battle, g).carrier {
        _ if !battle.units[g].active() => Some("the group is not in the fight"),
        _ if battle.formations[battle.units[g].formation].reserve != Reserve::InCombat => {
            Some("the group's Formation is in the Reserve")
        }
        None => Some("the group has no carrier"),
        Some((carrier, bay)) => {
            let cf = battle.units[carrier].formation;
            let gf = battle.units[g].formation;
            carrier_problem(battle, carrier, bay)
                .or_else(|| {
                    (cf != gf && battle.ranges.get(cf, gf) > FIGHTER_REACH)
                        .then_some("its carrier's Formation is more than 6 MU away")
                })
                .or_else(|| deck_busy(battle, scratch, carrier))
        }
    }
}

/// Launch phase b), one group: docked again, a die for its re-arming time.
fn recover_group<S: Sink>(battle: &mut Battle, g: UnitId, dice: &mut Dice, sink: &mut S, scratch: &mut Scratch) {
    if let Some(reason) = recovery_problem(battle, scratch, g) {
        idle(sink, g, reason);
        return;
    }
    let (carrier, _) = craft(battle, g).carrier.expect("checked above");
    let face = dice.roll_d6(sink, Purpose::Damage, Pile::Initial);
    let rearm = match face {
        6 => Rearm::In(1),
        1 => Rearm::Never,
        _ => Rearm::In(2),
    };
    let cm = craft_mut(battle, g);
    cm.docked = true;
    cm.rearm = rearm;
    scratch.craft.busy[carrier] = true;
    scratch.craft.deck[carrier] += 1;
    if S::RECORDS {
        sink.event(CraftRecovered {
            group: g,
            carrier,
            face,
            ready_in: match rearm {
                Rearm::In(n) => Some(n),
                _ => None,
            },
        });
    }
}

/// Why group `g` cannot be launched now, if it cannot.
fn launch_problem(battle: &Battle, scratch: &Scratch, g: UnitId) -> Option<&'static str> {
    let c = craft(battle, g);
    match c.carrier {
        _ if battle.units[g].destroyed => Some("the group is destroyed"),
        _ if battle.formations[battle.units[g].formation].reserve != Reserve::InCombat => {
            Some("the group's Formation is in the Reserve")
        }
        _ if !c.docked => Some("the group is not docked"),
        None => Some("the group has no carrier"),
        Some(_) if c.rearm != Rearm::Ready => Some("the group is still re-arming"),
        Some((carrier, bay)) => carrier_problem(battle, carrier, bay).or_else(|| deck_busy(battle, scratch, carrier)),
    }
}

/// Launch phase c), one group: out of its bay, its Formation placed where
/// its carrier's is if it was not yet in the fight.
fn launch_group<S: Sink>(battle: &mut Battle, g: UnitId, sink: &mut S, scratch: &mut Scratch) {
    if let Some(reason) = launch_problem(battle, scratch, g) {
        idle(sink, g, reason);
        return;
    }
    let (carrier, _) = craft(battle, g).carrier.expect("checked above");
    let gf = battle.units[g].formation;
    let cf = battle.units[carrier].formation;
    if gf != cf && !battle.formation_has_units(gf) {
        // A Formation coming into the fight starts where its
        // carrier's Formation is (reading F17).
        for other in 0..battle.formations.len() {
            if other != gf {
                let r = if other == cf { 0 } else { battle.ranges.get(cf, other) };
                battle.ranges.set(gf, other, r);
            }
        }
    }
    let cm = craft_mut(battle, g);
    cm.docked = false;
    cm.launched_now = true;
    scratch.craft.busy[carrier] = true;
    scratch.craft.deck[carrier] += 1;
    if S::RECORDS {
        sink.event(CraftLaunched { group: g, carrier });
    }
}
