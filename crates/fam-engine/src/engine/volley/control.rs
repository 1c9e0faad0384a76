//! Step 6, damage control, in the plotted or the default priority.

use super::thresholds::drive_thrust;
use crate::engine::dice::{Dice, Pile, Purpose};
use crate::engine::event::{Repair, Sink};
use crate::engine::plot::{ExchangePlot, SystemId, UnitId};
use crate::engine::scratch::{JobKey, Scratch, volley_plot};
use crate::engine::state::{Battle, Control, SysState, Unit, is_one_shot};
use crate::model::SystemKind;

/// Default damage-control rank of a system (F&M Damage phase): power core,
/// life support, bridge, (drive), screens, a Fire Control when none works
/// (`no_fire_control`: the Unit has no working one), weapons by dice (beam
/// class), then the rest.
fn default_priority(unit: &Unit, system: Option<SystemId>, no_fire_control: bool) -> (u32, u32) {
    let Some(s) = system else { return (3, 0) };
    let kind = &unit.systems[s].kind;
    match kind {
        SystemKind::PowerCore => (0, 0),
        SystemKind::LifeSupport => (1, 0),
        SystemKind::CommandBridge => (2, 0),
        SystemKind::ScreenGenerator => (4, 0),
        SystemKind::FireControl if no_fire_control => (5, 0),
        SystemKind::Beam { class } => (6, 10 - u32::from(*class).min(10)),
        k if k.is_weapon() => (7, 0),
        _ => (8, 0),
    }
}

pub(super) fn damage_control<S: Sink>(
    battle: &mut Battle,
    plot: &ExchangePlot,
    volley: u8,
    u: UnitId,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    let repair_bridge = battle.rules.repair_permanent_bridge;
    let formation = battle.units[u].formation;
    let unit = &mut battle.units[u];
    // What is damaged first: most Units have nothing to repair, and
    // counting the parties reads every system and crew box.
    let jobs = &mut scratch.jobs;
    jobs.clear();
    for (s, sys) in unit.systems.iter().enumerate() {
        if sys.state != SysState::Damaged {
            continue;
        }
        let bridge_blocked =
            sys.kind.is(&SystemKind::CommandBridge) && unit.control == Control::Permanent && !repair_bridge;
        let spent = is_one_shot(&sys.kind) && sys.rounds_left() == 0;
        if !bridge_blocked && !spent {
            jobs.push((JobKey::default(), Some(s)));
        }
    }
    if unit.drive_hits > 0 && unit.drive_damaged {
        jobs.push((JobKey::default(), None));
    }
    if jobs.is_empty() {
        return;
    }
    let mut parties = unit.damage_control_parties();
    if parties == 0 {
        return;
    }
    let plotted: &[SystemId] = volley_plot(plot, formation, volley)
        .damage_control
        .iter()
        .find(|(unit_id, _)| *unit_id == u)
        .map_or(&[], |(_, list)| list.as_slice());
    // Each job's key made once (a Unit's keys are all different, so any
    // sort puts them in the one order).
    let no_fire_control = unit.fire_controls().next().is_none();
    for (key, job) in jobs.iter_mut() {
        let rank = job.and_then(|s| plotted.iter().position(|p| *p == s));
        *key = (
            rank.unwrap_or(usize::MAX),
            default_priority(unit, *job, no_fire_control),
            job.map_or(0, |s| s + 1),
        );
    }
    jobs.sort_unstable_by_key(|&(key, _)| key);
    for &(_, job) in jobs.iter() {
        if parties == 0 {
            break;
        }
        let n = parties.min(3);
        parties -= n;
        let face = dice.roll_d6(sink, Purpose::DamageControl, Pile::Initial);
        let repaired = u32::from(face) <= n;
        if repaired {
            match job {
                Some(s) => {
                    unit.systems[s].state = SysState::Operational;
                    unit.systems[s].repaired = true;
                    match unit.systems[s].kind {
                        SystemKind::CommandBridge => unit.control = Control::InControl,
                        SystemKind::LifeSupport => unit.life_support_failing = None,
                        _ => {}
                    }
                }
                None => {
                    unit.drive_hits -= 1;
                    unit.thrust = drive_thrust(unit.original_thrust, unit.drive_hits);
                    unit.drive_damaged = unit.drive_hits > 0;
                }
            }
        }
        if S::RECORDS {
            sink.event(Repair {
                unit: u,
                system: job,
                parties: n,
                face,
                repaired,
            });
        }
    }
}
