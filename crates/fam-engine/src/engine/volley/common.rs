//! Helpers the weapon families of the Fire step share: whether a weapon
//! rolls at this range, the beam-table attack, and which Units an area
//! weapon touches.

use crate::engine::dice::{BeamAttack, Dice, beam_attack};
use crate::engine::event::{self, BeamKind, Sink};
use crate::engine::plot::{SystemId, UnitId};
use crate::engine::reflex;
use crate::engine::scratch::{DamageKind, Scratch, Tap, WeaponUse, out_of_range};
use crate::engine::state::Battle;
use crate::model::SystemKind;

/// Whether a weapon rolling `n` dice at this range fires: noted as fired
/// when it does, reported idle (`why`) when it rolls none.
pub(super) fn rolls<S: Sink>(
    sink: &mut S,
    scratch: &mut Scratch,
    u: UnitId,
    w: SystemId,
    n: u32,
    why: &'static str,
) -> bool {
    if n == 0 {
        out_of_range(sink, scratch, u, w, why);
        return false;
    }
    scratch.note_use(u, w, WeaponUse::FIRED);
    true
}

/// A weapon read on the beam dice table: beams, submunitions, the AA
/// MegaBattery. `rerolls`: natural 6s grant penetrating rerolls (BD*).
/// `screened`: the target's standard screens count. Returns the natural
/// ones among the initial dice.
#[allow(clippy::too_many_arguments)]
pub(super) fn beam_like<S: Sink>(
    battle: &mut Battle,
    u: UnitId,
    w: SystemId,
    target: UnitId,
    range: u32,
    n: u32,
    drm: i32,
    rerolls: bool,
    screened: bool,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) -> u32 {
    if !rolls(sink, scratch, u, w, n, "out of range") {
        return 0;
    }
    let screen = if screened {
        scratch.screen_met(battle, u, target)
    } else {
        0
    };
    let mut tap = Tap::new(sink);
    let mut result = beam_attack(
        dice,
        &mut tap,
        BeamAttack {
            dice: n,
            drm,
            screen,
            penetrating: rerolls,
        },
    );
    let ones = tap.ones;
    let faces = tap.take();
    let reroll_faces = std::mem::take(&mut tap.rerolls);
    let kind = if battle.units[u].systems[w].kind.is(&SystemKind::SubmunitionPack) {
        DamageKind::Submunition
    } else {
        DamageKind::Beam
    };
    if S::RECORDS {
        sink.event(event::BeamAttack {
            kind: BeamKind::Beam,
            unit: u,
            weapon: w,
            target,
            range,
            dice: n,
            drm,
            screen,
            faces,
            reroll_faces,
            normal: result.normal,
            penetrating: result.penetrating,
        });
    }
    // Submunitions are not energy weapons: a reflex field lets them by (W61).
    reflex::reflex_hit(battle, u, w, target, &mut result, dice, sink, scratch);
    scratch.add_beam(target, &result);
    scratch.deal(battle.units[u].side, kind, result.normal + result.penetrating);
    ones
}

/// Whether an area weapon aimed at Unit `target` touches Unit `t`: the
/// target only, or with its Formation switch on (`formation_wide`, readings
/// W37, W59, W64) every ship in the fight of the target's Formation.
pub(super) fn touches(battle: &Battle, t: UnitId, target: UnitId, formation_wide: bool) -> bool {
    if !formation_wide {
        return t == target;
    }
    let unit = &battle.units[t];
    unit.formation == battle.units[target].formation && unit.active() && !unit.is_craft()
}
