//! Step 7, power cores: a breached core explodes on 5-6 (optional blast
//! on the rest of the Formation); out-of-control and life-support
//! countdowns.

use super::damage::{layer_event, layers_before, sap_damage};
use super::thresholds::threshold_check;
use crate::engine::craft;
use crate::engine::dice::{Dice, Pile, Purpose};
use crate::engine::event::{Abandoned, Blast, ControlRegained, Damage, Destroyed, ReactorRoll, Sink};
use crate::engine::plot::UnitId;
use crate::engine::scratch::{DamageKind, Scratch, Tap};
use crate::engine::state::{Battle, Control, SysState};
use crate::model::SystemKind;

pub(super) fn reactors_and_countdowns<S: Sink>(
    battle: &mut Battle,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    // Cores breached when the step begins roll now; a core breached by a
    // blast in this step rolls next Volley, after damage control has had
    // its chance (whatever the Units' order).
    let mut breached = std::mem::take(&mut scratch.breached);
    breached.clear();
    breached.extend((0..battle.units.len()).filter(|&u| {
        battle.units[u].active()
            && battle.units[u]
                .systems
                .iter()
                .any(|s| s.kind.is(&SystemKind::PowerCore) && s.state == SysState::Damaged)
    }));
    for &u in &breached {
        if !battle.units[u].active() {
            continue; // destroyed by an earlier blast in this step
        }
        let face = dice.roll_d6(sink, Purpose::Threshold, Pile::Initial);
        let exploded = face >= 5;
        if S::RECORDS {
            sink.event(ReactorRoll {
                unit: u,
                face,
                exploded,
            });
        }
        if !exploded {
            continue;
        }
        battle.units[u].destroyed = true;
        if S::RECORDS {
            sink.event(Destroyed {
                unit: u,
                cause: "power core explosion",
            });
        }
        if battle.rules.reactor_blast {
            blast(battle, u, dice, sink, scratch);
        }
    }
    scratch.breached = breached;
    for u in 0..battle.units.len() {
        let unit = &mut battle.units[u];
        if !unit.active() {
            continue;
        }
        match unit.control {
            Control::OutFor(1) => {
                // Control comes back; the bridge itself stays damaged until repaired.
                unit.control = Control::InControl;
                if S::RECORDS {
                    sink.event(ControlRegained { unit: u });
                }
            }
            Control::OutFor(n) => unit.control = Control::OutFor(n - 1),
            _ => {}
        }
        match unit.life_support_failing {
            Some(1) => {
                unit.life_support_failing = None;
                unit.derelict = true;
                if S::RECORDS {
                    sink.event(Abandoned { unit: u });
                }
            }
            Some(n) => unit.life_support_failing = Some(n - 1),
            None => {}
        }
    }
}

/// Reactor blast (ft-rules §7.5, A13-A14): 1d6 per full 25 mass of the
/// exploding Unit, rolled for each other active Unit of its Formation, as
/// one semi-armour-piercing hit; those hit check thresholds at once.
fn blast<S: Sink>(battle: &mut Battle, source: UnitId, dice: &mut Dice, sink: &mut S, scratch: &mut Scratch) {
    let n = battle.units[source].mass / 25;
    let formation = battle.units[source].formation;
    if n == 0 {
        return;
    }
    let mut members = std::mem::take(&mut scratch.ranks);
    members.clear();
    members.extend(battle.formations[formation].units.iter().copied());
    for &u in &members {
        if u == source || !battle.units[u].active() {
            continue;
        }
        if battle.units[u].is_craft() {
            // Craft in the Formation: one lost per point (reading F21).
            let mut tap = Tap::new(sink);
            let damage: u32 = (0..n)
                .map(|_| u32::from(dice.roll_d6(&mut tap, Purpose::Damage, Pile::Initial)))
                .sum();
            let faces = tap.take();
            if S::RECORDS {
                sink.event(Blast {
                    source,
                    unit: u,
                    faces,
                    damage,
                });
            }
            scratch.deal(battle.units[source].side, DamageKind::ReactorBlast, damage);
            craft::remove_craft(battle, u, damage, "a power core blast", sink);
            continue;
        }
        let mut tap = Tap::new(sink);
        // Advanced screens take their level off every blast die (ft-rules
        // §7.5, readings W42).
        let advanced = u32::from(battle.units[u].advanced_screen_level());
        let damage: u32 = (0..n)
            .map(|_| u32::from(dice.roll_d6(&mut tap, Purpose::Damage, Pile::Initial)).saturating_sub(advanced))
            .sum();
        let faces = tap.take();
        scratch.deal(battle.units[source].side, DamageKind::ReactorBlast, damage);
        let before = layers_before(&battle.units[u], S::RECORDS);
        let (armour, hull, rows, crew_lost) = sap_damage(&mut battle.units[u], damage);
        let destroyed = battle.units[u].destroyed;
        if S::RECORDS {
            sink.event(Blast {
                source,
                unit: u,
                faces,
                damage,
            });
            sink.event(Damage {
                unit: u,
                normal: 0,
                sap: vec![damage],
                ap: Vec::new(),
                penetrating: 0,
                armour,
                hull,
                rows_completed: rows,
                crew_lost,
                destroyed,
            });
            layer_event(sink, u, &battle.units[u], &before);
            if destroyed {
                sink.event(Destroyed {
                    unit: u,
                    cause: "reactor blast",
                });
            }
        }
        if rows > 0 && !destroyed {
            threshold_check(battle, u, rows, dice, sink);
        }
    }
    scratch.ranks = members;
}
