//! Kinetic weapons in the Fire step: kinetic guns, MKP packs and plasma
//! bolts.

use super::common::touches;
use crate::engine::dice::{Dice, Pile, Purpose};
use crate::engine::event::{KGunAttack, MkpAttack, PlasmaBoltAttack, Sink};
use crate::engine::plot::{SystemId, UnitId};
use crate::engine::scratch::{DamageKind, Scratch, WeaponUse, out_of_range};
use crate::engine::state::Battle;
use crate::engine::tables::{self, torpedo_band};
use crate::model::TorpedoRange;

/// A kinetic gun's shot (ft-rules §4.6, FTC §5.16): the to-hit die on the
/// projectile table of its variant, then, on a hit, the doubling die: the
/// class in armour-piercing points, doubled on a roll at or under the class
/// (a 6 never doubles). Standard screens do not stop it; the doubling die
/// takes no Evasion DRM.
#[allow(clippy::too_many_arguments)]
pub(super) fn k_gun_attack<S: Sink>(
    battle: &mut Battle,
    u: UnitId,
    w: SystemId,
    target: UnitId,
    range: u32,
    class: u8,
    variant: TorpedoRange,
    drm: i32,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    let Some(needed) = tables::projectile_needed(range, torpedo_band(variant)) else {
        out_of_range(sink, scratch, u, w, "out of range");
        return;
    };
    scratch.note_use(u, w, WeaponUse::FIRED);
    let face = dice.roll_d6(sink, Purpose::ToHit, Pile::Initial);
    let hit = tables::projectile_hits(face, needed, drm);
    let doubling = hit.then(|| dice.roll_d6(sink, Purpose::Damage, Pile::Initial));
    // Advanced screens lower the doubling number by their level (W19).
    let advanced = battle.units[target].advanced_screen_level();
    let damage = doubling.map_or(0, |d| tables::k_gun_damage(class, d, advanced));
    if damage > 0 {
        scratch.ap.push((target, damage));
        scratch.deal(battle.units[u].side, DamageKind::Kinetic, damage);
    }
    if S::RECORDS {
        sink.event(KGunAttack {
            unit: u,
            weapon: w,
            target,
            range,
            needed,
            drm,
            face,
            hit,
            doubling,
            damage,
        });
    }
}

/// A plasma bolt (ft-rules §4.6, FTC §6.8; readings W35-W37): to
/// [`PLASMA_BOLT_RANGE`], it bursts on the acquired Unit, or with the
/// `plasma_bolt_formation` switch on every ship of that Unit's Formation;
/// each Unit it touches takes one d6 per class, each die less one per
/// screen level and less the Evasion DRM (not below 0), as normal damage
/// (armour first). It then recharges through the next Volley.
#[allow(clippy::too_many_arguments)]
pub(super) fn plasma_bolt<S: Sink>(
    battle: &mut Battle,
    u: UnitId,
    w: SystemId,
    target: UnitId,
    range: u32,
    class: u8,
    drm: i32,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    if range > tables::PLASMA_BOLT_RANGE {
        out_of_range(sink, scratch, u, w, "out of range");
        return;
    }
    scratch.note_use(u, w, WeaponUse::FIRED);
    scratch.bolts_now.push((u, w));
    let side = battle.units[u].side;
    for t in 0..battle.units.len() {
        if !touches(battle, t, target, battle.rules.plasma_bolt_formation) {
            continue;
        }
        let screen = battle.screen_met(u, t);
        let mut faces = Vec::new();
        let mut damage = 0;
        for _ in 0..class {
            let face = dice.roll_d6(sink, Purpose::Damage, Pile::Initial);
            damage += tables::plasma_bolt_points(face, screen, drm);
            if S::RECORDS {
                faces.push(face);
            }
        }
        scratch.pending[t].0 += damage;
        scratch.deal(side, DamageKind::PlasmaBolt, damage);
        if S::RECORDS {
            sink.event(PlasmaBoltAttack {
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

/// An MKP's one shot (FTC §5.17): to 12 MU, one die needing 4+ (Evasion
/// DRM applies); a natural 6 that hits is two hits; each hit 4
/// armour-piercing points. Screens do not stop it.
#[allow(clippy::too_many_arguments)]
pub(super) fn mkp_attack<S: Sink>(
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
    use tables::{MKP_HIT_POINTS, MKP_RANGE_MU, mkp_hits};
    let in_range = range <= MKP_RANGE_MU;
    if !in_range {
        scratch.note_use(u, w, WeaponUse::OUT_OF_RANGE);
    } else {
        scratch.note_use(u, w, WeaponUse::FIRED);
    }
    let face = in_range.then(|| dice.roll_d6(sink, Purpose::ToHit, Pile::Initial));
    let hits = face.map_or(0, |f| mkp_hits(f, drm));
    for _ in 0..hits {
        scratch.ap.push((target, MKP_HIT_POINTS));
    }
    scratch.deal(battle.units[u].side, DamageKind::Kinetic, hits * MKP_HIT_POINTS);
    if S::RECORDS {
        sink.event(MkpAttack {
            unit: u,
            weapon: w,
            target,
            range,
            drm,
            face,
            hits,
        });
    }
}
