//! EMP projectors: the attack in the Fire step, and the tests of the
//! systems hit, after the threshold checks.

use super::common::rolls;
use super::thresholds::drive_thrust;
use crate::engine::dice::{BeamAttack, Dice, Pile, Purpose, beam_attack};
use crate::engine::event::{DriveHit, EmpAttack, EmpTest, Sink};
use crate::engine::plot::{SystemId, UnitId};
use crate::engine::scratch::{Scratch, Tap};
use crate::engine::state::{Battle, SysState, Unit, is_one_shot};
use crate::model::SystemKind;

/// An EMP projector's shot (ft-rules §4.5, FTC §5.4, readings W43-W46):
/// `n` beam dice with the Evasion DRM, natural 6s rerolling, read against
/// the target's advanced screens only; every point scored is a hit. No
/// damage: the shot's hits wait in `Scratch::emp` for the threshold step.
#[allow(clippy::too_many_arguments)]
pub(super) fn emp_attack<S: Sink>(
    battle: &mut Battle,
    u: UnitId,
    w: SystemId,
    target: UnitId,
    range: u32,
    n: u32,
    drm: i32,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    if !rolls(sink, scratch, u, w, n, "out of range") {
        return;
    }
    let screen = if battle.rules.emp_advanced_screens {
        battle.units[target].advanced_screen_level()
    } else {
        0
    };
    let mut tap = Tap::new(sink);
    let result = beam_attack(
        dice,
        &mut tap,
        BeamAttack {
            dice: n,
            drm,
            screen,
            penetrating: true,
        },
    );
    let faces = tap.take();
    let reroll_faces = std::mem::take(&mut tap.rerolls);
    let hits = result.total();
    if hits > 0 {
        scratch.emp.push((u, w, target, hits));
    }
    if S::RECORDS {
        sink.event(EmpAttack {
            unit: u,
            weapon: w,
            target,
            range,
            dice: n,
            drm,
            screen,
            faces,
            reroll_faces,
            hits,
        });
    }
}

/// The number an EMP threshold test must reach for a shot of `hits` hits
/// (ft-rules §4.5): 6 for one, 5 for two, 4 for three or more.
pub fn emp_needed(hits: u32) -> u8 {
    match hits {
        0 | 1 => 6,
        2 => 5,
        _ => 4,
    }
}

/// Rank of a system of `unit` as the target of an EMP test, lowest first,
/// or `None` when EMP cannot test it (working systems only; reading O35,
/// docs/doctrine.md): Fire Controls while the Unit has a weapon, screens,
/// weapons (most dice first), the drive (`None` system), fields and cloaks,
/// ECM and area-defence fire control, FTL, and Fire Controls of an unarmed
/// Unit last.
pub fn emp_rank(unit: &Unit, system: Option<SystemId>) -> Option<(u32, u32)> {
    use SystemKind::*;
    let Some(s) = system else {
        return (unit.thrust > 0 && unit.drive_hits < 2).then_some((3, 0));
    };
    let sys = &unit.systems[s];
    if !sys.operational() || (is_one_shot(&sys.kind) && sys.rounds_left() == 0) {
        return None;
    }
    let armed = || {
        unit.systems.iter().any(|x| {
            x.kind.is_weapon() && x.state != SysState::Destroyed && !(is_one_shot(&x.kind) && x.rounds_left() == 0)
        })
    };
    Some(match &sys.kind {
        FireControl if armed() => (0, 0),
        ScreenGenerator | AdvancedScreen | VapourShroud => (1, 0),
        k if k.is_weapon() => (2, 10 - emp_weapon_weight(k).min(10)),
        ReflexField | CloakingField => (4, 0),
        IndividualEcm | AreaEcm | Adfc => (5, 0),
        Ftl => (6, 0),
        FireControl => (7, 0),
        _ => return None,
    })
}

/// How much of a Unit's fire a weapon is, for the EMP priority: its class
/// where it has one (Gatling batteries 6 dice, twin particle arrays 2),
/// else 1.
fn emp_weapon_weight(kind: &SystemKind) -> u32 {
    use SystemKind::*;
    match *kind {
        Beam { class }
        | KGun { class, .. }
        | PlasmaBolt { class }
        | Graser { class }
        | HeavyGraser { class }
        | Phaser { class }
        | PlasmaCannon { class }
        | EmpProjector { class } => u32::from(class),
        GatlingBattery => 6,
        TwinParticleArray => 2,
        _ => 1,
    }
}

/// The system (`None`: the drive) after the one of key `after` in EMP
/// order, with its key: rank, then record order (the drive first).
fn next_emp_system(unit: &Unit, after: Option<(u32, u32, usize)>) -> Option<(Option<SystemId>, (u32, u32, usize))> {
    std::iter::once(None)
        .chain((0..unit.systems.len()).map(Some))
        .filter_map(|s| emp_rank(unit, s).map(|(a, b)| (s, (a, b, s.map_or(0, |s| s + 1)))))
        .filter(|(_, key)| after.is_none_or(|k| *key > k))
        .min_by_key(|(_, key)| *key)
}

/// The threshold tests of one EMP shot (firing Unit, weapon, target, hits;
/// readings W44-W46): one test per hit, each on another system in
/// [`emp_rank`] order (a shot with more hits than such systems wastes the
/// rest), at [`emp_needed`] with +1 per hull row the target lost this
/// Volley. A system that fails is damaged (damage control may repair it);
/// a drive that fails takes a drive hit.
pub(super) fn emp_tests<S: Sink>(
    battle: &mut Battle,
    (u, w, target, hits): (UnitId, SystemId, UnitId, u32),
    rows_this_volley: &[u32],
    dice: &mut Dice,
    sink: &mut S,
) {
    let unit = &mut battle.units[target];
    if !unit.active() {
        return;
    }
    let needed = emp_needed(hits);
    let modifier = i32::try_from(rows_this_volley[target]).unwrap_or(i32::MAX);
    // The systems follow one another in [`emp_rank`] order; no test
    // changes the rank of a system not yet tested, so this is the order the
    // attacker assigns them in before rolling.
    let mut after = None;
    for _ in 0..hits {
        let Some((system, key)) = next_emp_system(unit, after) else {
            break;
        };
        after = Some(key);
        let face = dice.roll_d6(sink, Purpose::Threshold, Pile::Initial);
        let lost = i32::from(face).saturating_add(modifier) >= i32::from(needed);
        if lost {
            match system {
                Some(s) => unit.systems[s].state = SysState::Damaged,
                None => {
                    unit.drive_hits += 1;
                    unit.drive_damaged = true;
                    unit.thrust = drive_thrust(unit.original_thrust, unit.drive_hits);
                }
            }
        }
        if S::RECORDS {
            sink.event(EmpTest {
                unit: u,
                weapon: w,
                target,
                system,
                face,
                modifier,
                needed,
                lost,
            });
            if lost && system.is_none() {
                sink.event(DriveHit {
                    unit: target,
                    thrust: unit.thrust,
                });
            }
        }
    }
}
