//! Step 4, damage, applied to every Unit at once: normal damage to armour
//! (layer by layer) then hull, semi-armour-piercing and armour-piercing
//! hits, penetrating damage to the hull, crew factors lost with their
//! boxes.

use crate::engine::dice::REROLL_GENERATIONS;
use crate::engine::event::{ArmourLayers, Damage, Destroyed, Sink, SystemKilled};
use crate::engine::plot::UnitId;
use crate::engine::rules::RerollDepth;
use crate::engine::scratch::Scratch;
use crate::engine::state::{Battle, SysState, Unit, rows_completed};
use crate::engine::tables;

/// Applies `normal` (armour first, outermost layer inward) and
/// `penetrating` (hull) damage to a Unit; returns (armour boxes, hull
/// boxes, rows completed, crew lost).
pub fn damage_unit(unit: &mut Unit, normal: u32, penetrating: u32) -> (u32, u32, u32, u32) {
    let (armour, rest) = into_layers(unit, 0, normal);
    hull_damage(unit, rest + penetrating, armour)
}

/// Puts `damage` into the armour layers from layer `first` inward, each
/// taking what it has boxes for (ft-rules §1.4, readings W30); returns
/// (armour boxes taken, the rest for the hull).
fn into_layers(unit: &mut Unit, first: usize, damage: u32) -> (u32, u32) {
    let mut rest = damage;
    for i in first..unit.armour_layer_count() {
        rest -= unit.take_armour(i, rest);
    }
    (damage - rest, rest)
}

/// Semi-armour-piercing damage of one hit (ft-rules §1.4): half, rounded
/// up, to the outermost armour layer with boxes left; the rest, and what
/// that layer cannot take, to the layers inside it, then the hull
/// (readings W31).
pub fn sap_damage(unit: &mut Unit, damage: u32) -> (u32, u32, u32, u32) {
    let Some(outer) = unit.outermost_intact() else {
        return hull_damage(unit, damage, 0);
    };
    let first = unit.take_armour(outer, damage.div_ceil(2));
    let (inner, rest) = into_layers(unit, outer + 1, damage - first);
    hull_damage(unit, rest, first + inner)
}

/// Armour-piercing damage of one hit (ft-rules §1.4): one point to each
/// armour layer while it has boxes, outermost first, the rest to the hull
/// (readings W32).
pub fn ap_damage(unit: &mut Unit, damage: u32) -> (u32, u32, u32, u32) {
    if unit.armour_layers.is_empty() {
        let (armour, hull) = tables::ap_split(damage, unit.armour_left());
        unit.armour_lost += armour;
        return hull_damage(unit, hull, armour);
    }
    let mut armour = 0;
    for i in 0..unit.armour_layer_count() {
        if armour < damage {
            armour += unit.take_armour(i, 1);
        }
    }
    hull_damage(unit, damage - armour, armour)
}

/// Penetrating damage (ft-rules §1.4, A34): beam reroll generation `g`
/// lands `g` layers inside `base`, the layer the initial dice hit, and
/// flows inward from there; penetrating damage that is no reroll (and all
/// of it when `base` is `None`, no armour left) goes to the hull. With one
/// layer it all reaches the hull.
fn penetrating_damage(
    unit: &mut Unit,
    base: Option<usize>,
    penetrating: u32,
    generations: &[u32; REROLL_GENERATIONS],
    depth: RerollDepth,
) -> (u32, u32, u32, u32) {
    let Some(base) = base.filter(|_| unit.armour_layer_count() > 1) else {
        return hull_damage(unit, penetrating, 0);
    };
    let deeper: u32 = generations[1..].iter().sum();
    let (mut armour, mut hull) = into_layers(unit, base + 1, penetrating - deeper);
    for (g, &d) in generations.iter().enumerate().skip(1) {
        let layers_in = match depth {
            RerollDepth::PerGeneration => g + 1,
            RerollDepth::NextLayer => 1,
        };
        let (a, h) = into_layers(unit, base + layers_in, d);
        armour += a;
        hull += h;
    }
    hull_damage(unit, hull, armour)
}

pub(super) fn hull_damage(unit: &mut Unit, hull: u32, armour: u32) -> (u32, u32, u32, u32) {
    let rows_before = rows_completed(&unit.rows, unit.hull_lost) as u32;
    let crew_before = unit.crew_factors();
    let hull = hull.min(unit.hull_left());
    unit.hull_lost += hull;
    let rows_after = rows_completed(&unit.rows, unit.hull_lost) as u32;
    if unit.hull_lost >= unit.hull_total && unit.hull_total > 0 {
        unit.destroyed = true;
    }
    (
        armour,
        hull,
        rows_after - rows_before,
        crew_before - unit.crew_factors(),
    )
}

/// The Damage step: for each Unit, normal damage to armour then hull, then
/// each semi-armour-piercing hit split on its own, then each
/// armour-piercing hit (one point to armour), then penetrating damage
/// to the hull; then needle kills on Units still in the fight.
pub(super) fn apply_damage<S: Sink>(battle: &mut Battle, sink: &mut S, scratch: &mut Scratch) {
    for u in 0..battle.units.len() {
        let (normal, penetrating) = scratch.pending[u];
        let has_sap = scratch
            .sap
            .iter()
            .chain(&scratch.ap)
            .chain(&scratch.hull_hits)
            .chain(&scratch.hull)
            .any(|(t, _)| *t == u);
        if (normal + penetrating == 0 && !has_sap) || !battle.units[u].active() {
            continue;
        }
        let depth = battle.rules.reroll_depth;
        let unit = &mut battle.units[u];
        let base = unit.outermost_intact();
        let before = layers_before(unit, S::RECORDS);
        let (mut armour, mut hull, mut rows, mut crew_lost) = damage_unit(unit, normal, 0);
        let mut sum = (armour, hull, rows, crew_lost);
        let sap = apply_each_hit(unit, u, &scratch.sap, sap_damage, &mut sum, S::RECORDS);
        let ap = apply_each_hit(unit, u, &scratch.ap, ap_damage, &mut sum, S::RECORDS);
        // Boarding torpedo points bypass all armour (W56): reported with
        // the penetrating damage.
        apply_each_hit(unit, u, &scratch.hull_hits, bypass_damage, &mut sum, false);
        let bypass: u32 = scratch.hull_hits.iter().filter(|(t, _)| *t == u).map(|(_, d)| d).sum();
        let mut penetrating_shown = penetrating + bypass;
        (armour, hull, rows, crew_lost) = sum;
        let (a, h, r, c) = penetrating_damage(unit, base, penetrating, &scratch.reroll_generations[u], depth);
        armour += a;
        hull += h;
        rows += r;
        crew_lost += c;
        // Wave-gun damage passes every armour layer (reading W59); the
        // event counts it as penetrating.
        for &(_, d) in scratch.hull.iter().filter(|(t, _)| *t == u) {
            let (_, h, r, c) = hull_damage(unit, d, 0);
            hull += h;
            rows += r;
            crew_lost += c;
            penetrating_shown += d;
        }
        scratch.rows_this_volley[u] += rows;
        if S::RECORDS {
            sink.event(Damage {
                unit: u,
                normal,
                sap,
                ap,
                penetrating: penetrating_shown,
                armour,
                hull,
                rows_completed: rows,
                crew_lost,
                destroyed: unit.destroyed,
            });
            layer_event(sink, u, unit, &before);
            if unit.destroyed {
                sink.event(Destroyed {
                    unit: u,
                    cause: "hull destroyed",
                });
            }
        }
    }
    for i in 0..scratch.kills.len() {
        let (u, s) = scratch.kills[i];
        let unit = &mut battle.units[u];
        if unit.active() && unit.systems[s].state != SysState::Destroyed {
            unit.systems[s].state = SysState::Destroyed;
            if S::RECORDS {
                sink.event(SystemKilled { unit: u, system: s });
            }
        }
    }
}

/// Applies each hit of `hits` aimed at Unit `u` on its own with `apply`
/// (semi-armour-piercing or armour-piercing damage), adding its armour,
/// hull, rows and crew lost to `sum`; returns the hits when `keep` (for
/// the damage event), else nothing, so nothing is allocated unrecorded.
fn apply_each_hit(
    unit: &mut Unit,
    u: UnitId,
    hits: &[(UnitId, u32)],
    apply: fn(&mut Unit, u32) -> (u32, u32, u32, u32),
    sum: &mut (u32, u32, u32, u32),
    keep: bool,
) -> Vec<u32> {
    let mut kept = Vec::new();
    for &(_, d) in hits.iter().filter(|(t, _)| *t == u) {
        let (a, h, r, c) = apply(unit, d);
        sum.0 += a;
        sum.1 += h;
        sum.2 += r;
        sum.3 += c;
        if keep {
            kept.push(d);
        }
    }
    kept
}

/// Damage that bypasses all armour: straight to the hull.
fn bypass_damage(unit: &mut Unit, damage: u32) -> (u32, u32, u32, u32) {
    hull_damage(unit, damage, 0)
}

/// Boxes lost so far in each armour layer of a layered Unit, when
/// recording (for [`layer_event`]); nothing otherwise.
pub(super) fn layers_before(unit: &Unit, recording: bool) -> Vec<u32> {
    if recording {
        unit.armour_layers.iter().map(|l| l.lost).collect()
    } else {
        Vec::new()
    }
}

/// The armour boxes each layer of a layered Unit took since `before`.
pub(super) fn layer_event<S: Sink>(sink: &mut S, u: UnitId, unit: &Unit, before: &[u32]) {
    if unit.armour_layers.is_empty() {
        return;
    }
    let taken = unit.armour_layers.iter().zip(before).map(|(l, b)| l.lost - b).collect();
    sink.event(ArmourLayers { unit: u, taken });
}
