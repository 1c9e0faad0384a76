//! Wave guns and nova cannons in the Fire step, and the wave gun's
//! backlash after the threshold checks.

use super::common::{rolls, touches};
use super::damage::hull_damage;
use super::thresholds::threshold_check;
use crate::engine::dice::{Dice, Pile, Purpose};
use crate::engine::event::{Destroyed, NovaCannonAttack, Sink, WaveGunAttack, WaveGunBacklash, WaveGunCharge};
use crate::engine::plot::{SystemId, UnitId};
use crate::engine::scratch::{DamageKind, Scratch, WeaponUse};
use crate::engine::state::Battle;
use crate::engine::tables;

/// A wave gun (ft-rules §4.5, FTC §7.24; reading W59). Below a charge of
/// 6 it charges: one d6 added, and no shot that Volley. Charged, it fires
/// at a target within [`tables::WAVE_GUN_RANGE`] (beyond, it holds
/// its charge): the acquired Unit, or with `wave_gun_formation` every ship
/// of its Formation, takes 4, 3 or 2 d6 by 12 MU band, each less its
/// advanced screen level and the Evasion DRM, straight to the hull; the
/// charge is spent.
#[allow(clippy::too_many_arguments)]
pub(super) fn wave_gun<S: Sink>(
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
    use tables::{WAVE_GUN_CHARGE, wave_gun_dice, wave_gun_points};
    let at = scratch.wave_charge.iter().position(|&(x, y, _)| (x, y) == (u, w));
    let charge = at.map_or(0, |i| scratch.wave_charge[i].2);
    if charge < WAVE_GUN_CHARGE {
        // A charging Volley is the weapon's use (it rolls its die).
        scratch.note_use(u, w, WeaponUse::FIRED);
        let face = dice.roll_d6(sink, Purpose::Damage, Pile::Initial);
        let charge = charge + u32::from(face);
        match at {
            Some(i) => scratch.wave_charge[i].2 = charge,
            None => scratch.wave_charge.push((u, w, charge)),
        }
        if S::RECORDS {
            sink.event(WaveGunCharge {
                unit: u,
                weapon: w,
                face,
                charge,
            });
        }
        return;
    }
    let n = wave_gun_dice(range);
    if !rolls(sink, scratch, u, w, n, "out of range (it holds its charge)") {
        return;
    }
    if let Some(i) = at {
        scratch.wave_charge.swap_remove(i);
    }
    let side = battle.units[u].side;
    for t in 0..battle.units.len() {
        if !touches(battle, t, target, battle.rules.wave_gun_formation) {
            continue;
        }
        let screen = battle.units[t].advanced_screen_level();
        let mut faces = Vec::new();
        let mut damage = 0;
        for _ in 0..n {
            let face = dice.roll_d6(sink, Purpose::Damage, Pile::Initial);
            damage += wave_gun_points(face, screen, drm);
            if S::RECORDS {
                faces.push(face);
            }
        }
        scratch.hull.push((t, damage));
        scratch.deal(side, DamageKind::WaveGun, damage);
        if S::RECORDS {
            sink.event(WaveGunAttack {
                unit: u,
                weapon: w,
                target: t,
                range,
                screen,
                drm,
                faces,
                damage,
            });
        }
    }
}

/// A nova cannon's blast (ft-rules §4.5, FTC §7.23; reading W63): the
/// acquired Unit, or with `nova_cannon_formation` every ship of its
/// Formation, takes 6, 4 or 2 d6 by the blast turn that reaches the
/// range, each less the Evasion DRM, straight to the hull; no screen or
/// armour stops it.
#[allow(clippy::too_many_arguments)]
pub(super) fn nova_cannon<S: Sink>(
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
    use tables::{nova_dice, nova_points};
    let n = nova_dice(range);
    if !rolls(sink, scratch, u, w, n, "out of range") {
        return;
    }
    let side = battle.units[u].side;
    for t in 0..battle.units.len() {
        if !touches(battle, t, target, battle.rules.nova_cannon_formation) {
            continue;
        }
        let mut faces = Vec::new();
        let mut damage = 0;
        for _ in 0..n {
            let face = dice.roll_d6(sink, Purpose::Damage, Pile::Initial);
            damage += nova_points(face, drm);
            if S::RECORDS {
                faces.push(face);
            }
        }
        scratch.hull.push((t, damage));
        scratch.deal(side, DamageKind::NovaCannon, damage);
        if S::RECORDS {
            sink.event(NovaCannonAttack {
                unit: u,
                weapon: w,
                target: t,
                range,
                drm,
                faces,
                damage,
            });
        }
    }
}

/// After the threshold checks: a wave gun knocked out (damaged or
/// destroyed) while it holds a charge lets the charge go into its own
/// ship's hull (ft-rules §4.5, §7.2; reading W59), which may complete
/// rows and call for threshold checks at once.
pub(super) fn wave_gun_backlash<S: Sink>(battle: &mut Battle, dice: &mut Dice, sink: &mut S, scratch: &mut Scratch) {
    let mut i = 0;
    while i < scratch.wave_charge.len() {
        let (u, w, charge) = scratch.wave_charge[i];
        let unit = &battle.units[u];
        if !unit.active() || unit.systems[w].operational() {
            i += 1;
            continue;
        }
        scratch.wave_charge.swap_remove(i);
        let (_, hull, rows, _) = hull_damage(&mut battle.units[u], charge, 0);
        let destroyed = battle.units[u].destroyed;
        if S::RECORDS {
            sink.event(WaveGunBacklash {
                unit: u,
                weapon: w,
                charge,
                hull,
                destroyed,
            });
            if destroyed {
                sink.event(Destroyed {
                    unit: u,
                    cause: "wave gun backlash",
                });
            }
        }
        if rows > 0 && !destroyed {
            threshold_check(battle, u, rows, dice, sink);
        }
    }
}
