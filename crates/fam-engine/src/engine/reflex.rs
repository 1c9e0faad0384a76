//! Reflex fields (ft-rules §4.5, FTC §7.25, readings W60-W62): a ship that
//! raises its field in a Volley does not fire, and each energy-weapon hit
//! on it rolls one d6: 1 full damage, 2 half (rounded up), 3-4 none, 5 none
//! and half (rounded up) reflected, 6 none and all reflected to the firer.

use super::dice::{BeamResult, Dice, Pile, Purpose};
use super::event::{Reflex, ReflexRaised, Sink};
use super::plot::{ExchangePlot, SystemId, UnitId};
use super::scratch::{DamageKind, Scratch, volley_plot};
use super::state::{Battle, Reserve, Unit};
use crate::model::SystemKind;

/// The share of one energy-weapon hit of `points` damage that a reflex die
/// of `face` lets through, and the share it sends back: (through,
/// reflected).
pub fn reflex_outcome(face: u8, points: u32) -> (u32, u32) {
    match face {
        1 => (points, 0),
        2 => (points.div_ceil(2), 0),
        3 | 4 => (0, 0),
        5 => (0, points.div_ceil(2)),
        _ => (0, points),
    }
}

/// Whether a raised reflex field works against `kind`'s hits: the energy
/// weapons fam reads (reading W61; the registry's `energy`). Submunitions,
/// EMP (no damage), needle beams, point defence at ships, small craft,
/// kinetic, missile, torpedo, rocket, plasma-bolt and wave-gun hits pass it
/// by.
pub fn stops(kind: &SystemKind) -> bool {
    kind.is_energy()
}

/// Whether `unit` carries a working reflex field it may raise.
pub fn has_working_field(unit: &Unit) -> bool {
    unit.systems
        .iter()
        .any(|s| s.kind.is(&SystemKind::ReflexField) && s.operational())
}

/// Notes the ships that raise their field this Volley: listed in their
/// Formation's `reflex`, in the fight, in control, with a working field.
pub(super) fn raise_fields<S: Sink>(
    battle: &Battle,
    plot: &ExchangePlot,
    volley: u8,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    scratch.reflex.clear();
    for f in 0..battle.formations.len() {
        if battle.formations[f].reserve != Reserve::InCombat {
            continue;
        }
        for &u in &volley_plot(plot, f, volley).reflex {
            let unit = &battle.units[u];
            if unit.can_act() && has_working_field(unit) && !scratch.reflex.contains(&u) {
                scratch.reflex.push(u);
                if S::RECORDS {
                    sink.event(ReflexRaised { unit: u });
                }
            }
        }
    }
}

/// Cuts a beam-dice result down to `through` points: the initial (normal)
/// points first, then the rerolls' by generation.
pub fn keep(result: &mut BeamResult, through: u32) {
    let normal = result.normal.min(through);
    let mut left = through - normal;
    result.normal = normal;
    result.penetrating = 0;
    for g in &mut result.generations {
        *g = (*g).min(left);
        left -= *g;
        result.penetrating += *g;
    }
}

/// One energy-weapon hit (a weapon's shot that scored) of `firer`'s weapon
/// `w` on `target`: when the target's field is raised, rolls the reflex die,
/// cuts `result` to what gets through and queues the reflected points on
/// the firer as normal damage.
#[allow(clippy::too_many_arguments)]
pub(super) fn reflex_hit<S: Sink>(
    battle: &Battle,
    firer: UnitId,
    w: SystemId,
    target: UnitId,
    result: &mut BeamResult,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    let points = result.total();
    if points == 0 || !scratch.reflex.contains(&target) || !stops(&battle.units[firer].systems[w].kind) {
        return;
    }
    let face = dice.roll_d6(sink, Purpose::Reflex, Pile::Initial);
    let (through, reflected) = reflex_outcome(face, points);
    keep(result, through);
    if reflected > 0 {
        scratch.pending[firer].0 += reflected;
        scratch.deal(battle.units[target].side, DamageKind::Beam, reflected);
    }
    if S::RECORDS {
        sink.event(Reflex {
            unit: target,
            firer,
            weapon: w,
            face,
            points,
            through,
            reflected,
        });
    }
}
