//! Step 5, threshold checks: one per Unit at the deepest row completed,
//! +1 per extra row; core systems at −1; the drive halves, then fails.

use super::damage::hull_damage;
use crate::engine::dice::{Dice, Pile, Purpose};
use crate::engine::event::{
    BridgeLost, CoreBreached, Destroyed, DriveHit, LifeSupportLost, RackExplodes, Sink, Surrendered, ThresholdCheck,
    ThresholdRoll,
};
use crate::engine::plot::{SystemId, UnitId};
use crate::engine::state::{Battle, Control, SysState, Unit, is_one_shot};
use crate::model::SystemKind;
use crate::model::registry::Threshold;

/// Number a threshold die must reach: 6 after the first row, 5 after the
/// second, 4 after the third, then 3 and never below 2 (ft-rules §7.1, A24).
pub fn threshold_needed(row: u32) -> u8 {
    (7 - row.min(5) as i32).max(2) as u8
}

/// One threshold check for a Unit that completed `rows` rows this Volley.
pub fn threshold_check<S: Sink>(battle: &mut Battle, u: UnitId, rows: u32, dice: &mut Dice, sink: &mut S) {
    let double_drive = battle.rules.double_drive_check;
    let strike_colours = battle.rules.strike_colours;
    let unit = &mut battle.units[u];
    let row = unit.rows_lost() as u32;
    let extra = rows - 1;
    let needed = threshold_needed(row);
    if S::RECORDS {
        sink.event(ThresholdCheck {
            unit: u,
            row,
            extra_rows: extra,
            needed,
        });
    }
    for s in 0..unit.systems.len() {
        let sys = &unit.systems[s];
        // Spent one-shots are crossed off: nothing left to lose (ft-rules §4.3).
        if sys.state != SysState::Operational || (is_one_shot(&sys.kind) && sys.rounds_left() == 0) {
            continue;
        }
        let kind = unit.systems[s].kind.clone();
        let threshold = kind.row().threshold;
        let modifier = extra as i32
            + match threshold {
                Threshold::Core => -1,
                Threshold::Sensors => 1,
                Threshold::Normal | Threshold::Stores => 0,
            };
        let face = dice.roll_d6(sink, Purpose::Threshold, Pile::Initial);
        let lost = i32::from(face) + modifier >= i32::from(needed);
        if S::RECORDS {
            sink.event(ThresholdRoll {
                unit: u,
                system: Some(s),
                face,
                modifier,
                lost,
            });
        }
        if !lost {
            continue;
        }
        // Stored ordnance is gone for good; enhanced sensors on a 6.
        let sensors_gone = face == 6 && threshold == Threshold::Sensors;
        unit.systems[s].state = if threshold == Threshold::Stores || sensors_gone {
            SysState::Destroyed
        } else {
            SysState::Damaged
        };
        match kind {
            SystemKind::CommandBridge => {
                let face = dice.roll_d6(sink, Purpose::Threshold, Pile::Initial);
                let volleys = (face < 6).then_some(face);
                unit.control = match volleys {
                    Some(n) => Control::OutFor(n),
                    None => Control::Permanent,
                };
                if S::RECORDS {
                    sink.event(BridgeLost { unit: u, face, volleys });
                }
            }
            SystemKind::LifeSupport => {
                let face = dice.roll_d6(sink, Purpose::Threshold, Pile::Initial);
                unit.life_support_failing = Some(face);
                if S::RECORDS {
                    sink.event(LifeSupportLost { unit: u, face });
                }
            }
            SystemKind::PowerCore if S::RECORDS => sink.event(CoreBreached { unit: u }),
            SystemKind::AntimatterMissile => rack_explodes(unit, u, s, dice, sink),
            _ => {}
        }
    }
    if battle_strike_colours(unit, extra, needed, strike_colours, u, dice, sink) {
        return;
    }
    let drive_rolls = if double_drive && extra >= 1 { 2 } else { 1 };
    for _ in 0..drive_rolls {
        if unit.drive_hits >= 2 || unit.thrust == 0 {
            break;
        }
        let face = dice.roll_d6(sink, Purpose::Threshold, Pile::Initial);
        let lost = i32::from(face) + extra as i32 >= i32::from(needed);
        if S::RECORDS {
            sink.event(ThresholdRoll {
                unit: u,
                system: None,
                face,
                modifier: extra as i32,
                lost,
            });
        }
        if lost {
            unit.drive_hits += 1;
            unit.drive_damaged = true;
            unit.thrust = drive_thrust(unit.original_thrust, unit.drive_hits);
            if S::RECORDS {
                sink.event(DriveHit {
                    unit: u,
                    thrust: unit.thrust,
                });
            }
        }
    }
}

/// An unfired antimatter missile lost to a threshold check explodes on its
/// rack (ft-rules §7.2; readings W55): 1d6 to its own ship, ignoring
/// screens and armour, straight to the hull; rows it completes bring no
/// further check in this Volley. Other Units take nothing (F&M keeps no
/// positions to find those within 1 MU).
fn rack_explodes<S: Sink>(unit: &mut Unit, u: UnitId, system: SystemId, dice: &mut Dice, sink: &mut S) {
    let face = dice.roll_d6(sink, Purpose::Damage, Pile::Initial);
    let (_, hull, _, _) = hull_damage(unit, u32::from(face), 0);
    if S::RECORDS {
        sink.event(RackExplodes {
            unit: u,
            system,
            face,
            hull,
            destroyed: unit.destroyed,
        });
        if unit.destroyed {
            sink.event(Destroyed {
                unit: u,
                cause: "its antimatter missile exploded on the rack",
            });
        }
    }
}

/// Striking the colours (ft-rules §7.3): one more roll at the check's
/// number (with its extra-row modifier); failing it, the ship surrenders and
/// leaves the fight. Returns whether it did.
#[allow(clippy::too_many_arguments)]
fn battle_strike_colours<S: Sink>(
    unit: &mut Unit,
    extra: u32,
    needed: u8,
    enabled: bool,
    u: UnitId,
    dice: &mut Dice,
    sink: &mut S,
) -> bool {
    if !enabled {
        return false;
    }
    let face = dice.roll_d6(sink, Purpose::Threshold, Pile::Initial);
    if i32::from(face) + extra as i32 >= i32::from(needed) {
        unit.surrendered = true;
        if S::RECORDS {
            sink.event(Surrendered { unit: u, face });
        }
        return true;
    }
    false
}

/// Thrust after `hits` drive hits: half the original (rounded down, A9) after
/// one (a thrust-1 drive goes straight to 0), none after two.
pub fn drive_thrust(original: u32, hits: u8) -> u32 {
    match hits {
        0 => original,
        1 if original > 1 => original / 2,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threshold_numbers_and_the_drive_ladder() {
        assert_eq!((1..=6).map(threshold_needed).collect::<Vec<_>>(), [6, 5, 4, 3, 2, 2]);
        assert_eq!((drive_thrust(6, 0), drive_thrust(6, 1), drive_thrust(6, 2)), (6, 3, 0));
        assert_eq!((drive_thrust(5, 1), drive_thrust(1, 1)), (2, 0));
    }
}
