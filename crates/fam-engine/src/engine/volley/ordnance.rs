//! Ordnance in the Fire step: pulse torpedoes, salvo launchers and racks
//! (and heavy missiles), rocket pods, antimatter missiles, boarding
//! torpedoes; missiles launched wait for the point-defence step.

use crate::engine::dice::{Dice, Pile, Purpose};
use crate::engine::event::{BoardingTorpedoAttack, Launch, RocketAttack, Sink, TorpedoAttack};
use crate::engine::plot::{SystemId, UnitId};
use crate::engine::scratch::{DamageKind, MissileShot, Payload, Scratch, WeaponUse, out_of_range, stopped};
use crate::engine::state::{Battle, SysState};
use crate::engine::tables::{self, missile_range, torpedo_band};
use crate::model::{SystemKind, TorpedoRange};

/// A pulse torpedo (ft-rules §4.2): the to-hit die on its variant's
/// projectile table with the Evasion DRM, then the damage die, semi-armour-
/// piercing, less the target's advanced screen level.
#[allow(clippy::too_many_arguments)]
pub(super) fn torpedo_attack<S: Sink>(
    battle: &mut Battle,
    u: UnitId,
    w: SystemId,
    target: UnitId,
    range: u32,
    variant: TorpedoRange,
    drm: i32,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    let width = torpedo_band(variant);
    let Some(needed) = tables::projectile_needed(range, width) else {
        out_of_range(sink, scratch, u, w, "out of range");
        return;
    };
    scratch.note_use(u, w, WeaponUse::FIRED);
    let face = dice.roll_d6(sink, Purpose::ToHit, Pile::Initial);
    let hit = tables::projectile_hits(face, needed, drm);
    let damage = hit.then(|| dice.roll_d6(sink, Purpose::Damage, Pile::Initial));
    if let Some(d) = damage {
        // Semi-armour-piercing; standard screens do not stop
        // torpedoes, advanced ones take their level off (W42).
        let points = u32::from(d).saturating_sub(u32::from(battle.units[target].advanced_screen_level()));
        scratch.sap.push((target, points));
        scratch.deal(battle.units[u].side, DamageKind::Torpedo, points);
    }
    if S::RECORDS {
        sink.event(TorpedoAttack {
            unit: u,
            weapon: w,
            target,
            range,
            needed,
            drm,
            face,
            hit,
            damage,
        });
    }
}

/// A salvo launcher draws a load from its magazine and launches it.
#[allow(clippy::too_many_arguments)]
pub(super) fn salvo_launch<S: Sink>(
    battle: &mut Battle,
    u: UnitId,
    w: SystemId,
    target: UnitId,
    range: u32,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    let Some(m) = battle.units[u].systems[w].magazine else {
        stopped(sink, scratch, u, w, "no magazine");
        return;
    };
    let er = battle.units[u].systems[w].er;
    let magazine = &mut battle.units[u].systems[m];
    if magazine.state != SysState::Operational {
        stopped(sink, scratch, u, w, "its magazine is lost");
        return;
    }
    if !magazine.spend() {
        stopped(sink, scratch, u, w, "its magazine is empty");
        return;
    }
    launch(u, w, target, range, missile_range(er), false, sink, scratch);
}

/// A salvo rack or heavy missile, fired once, launches.
#[allow(clippy::too_many_arguments)]
pub(super) fn rack_launch<S: Sink>(
    battle: &mut Battle,
    u: UnitId,
    w: SystemId,
    kind: &SystemKind,
    target: UnitId,
    range: u32,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    let heavy = !kind.is(&SystemKind::Smr);
    let sys = &mut battle.units[u].systems[w];
    let er = sys.er;
    if !sys.spend() {
        stopped(sink, scratch, u, w, "already fired");
        return;
    }
    launch(u, w, target, range, missile_range(er), heavy, sink, scratch);
}

/// A rocket pod's one shot (ft-rules §4.6, FTC §6.7; readings W50-W52):
/// each of its two rockets rolls to hit, 2+ to 6 MU, 3+ to 12, 4+ to 18,
/// the Evasion DRM on each die as for projectiles; the rockets that hit
/// wait for point defence as a salvo's missiles on target do. Beyond 18 MU
/// the pod is spent and nothing rolls.
#[allow(clippy::too_many_arguments)]
pub(super) fn rocket_pod<S: Sink>(
    u: UnitId,
    w: SystemId,
    target: UnitId,
    range: u32,
    drm: i32,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    let needed = tables::rocket_needed(range);
    let mut faces = Vec::new();
    let mut hits = 0;
    match needed {
        None => scratch.note_use(u, w, WeaponUse::OUT_OF_RANGE),
        Some(n) => {
            scratch.note_use(u, w, WeaponUse::FIRED);
            for _ in 0..tables::ROCKETS_PER_POD {
                let face = dice.roll_d6(sink, Purpose::ToHit, Pile::Initial);
                hits += u32::from(tables::projectile_hits(face, n, drm));
                if S::RECORDS {
                    faces.push(face);
                }
            }
        }
    }
    if hits > 0 {
        scratch.shots.push(MissileShot {
            unit: u,
            weapon: w,
            target,
            heavy: false,
            on_target: hits,
            killed: 0,
            payload: Payload::Rockets,
        });
    }
    if S::RECORDS {
        sink.event(RocketAttack {
            unit: u,
            weapon: w,
            target,
            range,
            needed,
            drm,
            faces,
            hits,
        });
    }
}

/// An antimatter missile leaves its rack (ft-rules §4.6, FTC §6.6;
/// readings W53): to [`tables::ANTIMATTER_RANGE_MU`] it reaches the
/// acquired Unit with its three damage dice and waits for point defence;
/// beyond, it is spent and lost.
pub(super) fn antimatter_launch<S: Sink>(
    u: UnitId,
    w: SystemId,
    target: UnitId,
    range: u32,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    let max_range = tables::ANTIMATTER_RANGE_MU;
    let wasted = (range > max_range).then_some("out of range: the ordnance is spent and lost");
    if S::RECORDS {
        sink.event(Launch {
            unit: u,
            weapon: w,
            target,
            range,
            max_range,
            wasted,
        });
    }
    if wasted.is_some() {
        scratch.note_use(u, w, WeaponUse::OUT_OF_RANGE);
        return;
    }
    scratch.note_use(u, w, WeaponUse::FIRED);
    scratch.shots.push(MissileShot {
        unit: u,
        weapon: w,
        target,
        heavy: false,
        on_target: tables::ANTIMATTER_DICE,
        killed: 0,
        payload: Payload::Antimatter,
    });
}

/// A boarding torpedo (ft-rules §4.6, FTC §5.18; readings W56): one die
/// on the standard projectile table with the Evasion DRM; a hit is one
/// hull point that bypasses all armour. The two marines it lands are not
/// played (fam has no boarding).
#[allow(clippy::too_many_arguments)]
pub(super) fn boarding_torpedo<S: Sink>(
    battle: &mut Battle,
    u: UnitId,
    w: SystemId,
    target: UnitId,
    range: u32,
    drm: i32,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    let Some(needed) = tables::projectile_needed(range, tables::PROJECTILE_STANDARD_MU) else {
        out_of_range(sink, scratch, u, w, "out of range");
        return;
    };
    scratch.note_use(u, w, WeaponUse::FIRED);
    let face = dice.roll_d6(sink, Purpose::ToHit, Pile::Initial);
    let hit = tables::projectile_hits(face, needed, drm);
    if hit {
        scratch.hull_hits.push((target, 1));
        scratch.deal(battle.units[u].side, DamageKind::BoardingTorpedo, 1);
    }
    if S::RECORDS {
        sink.event(BoardingTorpedoAttack {
            unit: u,
            weapon: w,
            target,
            range,
            needed,
            drm,
            face,
            hit,
        });
    }
}

#[allow(clippy::too_many_arguments)]
fn launch<S: Sink>(
    unit: UnitId,
    weapon: SystemId,
    target: UnitId,
    range: u32,
    max_range: u32,
    heavy: bool,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    let wasted = (range > max_range).then_some("out of range: the ordnance is spent and lost");
    if S::RECORDS {
        sink.event(Launch {
            unit,
            weapon,
            target,
            range,
            max_range,
            wasted,
        });
    }
    if wasted.is_some() {
        scratch.note_use(unit, weapon, WeaponUse::OUT_OF_RANGE);
    } else {
        scratch.note_use(unit, weapon, WeaponUse::FIRED);
        scratch.shots.push(MissileShot {
            unit,
            weapon,
            target,
            heavy,
            on_target: u32::from(heavy),
            killed: 0,
            payload: Payload::Missiles,
        });
    }
}
