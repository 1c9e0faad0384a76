//! The beam families with rules of their own in the Fire step: grasers
//! (and phasers), fusion arrays, plasma cannons, and the pulser's
//! setting.

use super::common::rolls;
use crate::engine::dice::{BeamAttack, BeamResult, Dice, Pile, Purpose, REROLL_GENERATIONS, beam_attack};
use crate::engine::event::{self, BeamKind, FusionArrayAttack, GraserAttack, PulserSet, Sink};
use crate::engine::plot::{SystemId, UnitId};
use crate::engine::reflex;
use crate::engine::scratch::{DamageKind, Scratch, Tap, WeaponUse, out_of_range};
use crate::engine::state::Battle;
use crate::engine::tables;
use crate::model::registry::Hit;
use crate::model::{PulserSetting, SystemKind};

/// Sets a Pulser the record left open for the rest of the battle, as the
/// default commander would for the range it first fires at
/// ([`tables::pulser_setting`], reading W26).
pub(super) fn settle_pulser<S: Sink>(
    battle: &mut Battle,
    u: UnitId,
    w: SystemId,
    range: u32,
    sink: &mut S,
) -> PulserSetting {
    let setting = tables::pulser_setting(range);
    battle.units[u].systems[w].kind = SystemKind::Pulser { setting: Some(setting) };
    if S::RECORDS {
        sink.event(PulserSet {
            unit: u,
            weapon: w,
            setting,
            range,
        });
    }
    setting
}

/// A graser, phaser or heavy graser (ft-rules §4.6, readings W20-W22):
/// `n` dice on the beam table against the target's screen with the
/// Evasion DRM, each point scored a hit. Grasers and phasers: natural 6s
/// reroll (unscreened, no DRM) and each hit does 1d3, semi-armour-piercing
/// from the initial dice, penetrating from the rerolls. Heavy grasers: no
/// rerolls, 1d6 a hit, normal damage.
#[allow(clippy::too_many_arguments)]
pub(super) fn graser_attack<S: Sink>(
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
    let hit = battle.units[u].systems[w].kind.row().beam.map(|b| b.hit);
    let heavy = hit == Some(Hit::HeavyGraser { reroll: false });
    // A high-intensity graser: a heavy graser whose 6s reroll (W58).
    let intense = hit == Some(Hit::HeavyGraser { reroll: true });
    let screen = scratch.screen_met(battle, u, target);
    let mut tap = Tap::new(sink);
    let points = beam_attack(
        dice,
        &mut tap,
        BeamAttack {
            dice: n,
            drm,
            screen,
            penetrating: !heavy,
        },
    );
    let heavy = heavy || intense;
    let faces = tap.take();
    let reroll_faces = std::mem::take(&mut tap.rerolls);
    let mut damage_die = |tap: &mut Tap<'_, S>| {
        if heavy {
            u32::from(dice.roll_d6(tap, Purpose::Damage, Pile::Initial))
        } else {
            u32::from(dice.roll_d3(tap, Purpose::Damage))
        }
    };
    let mut hits = Vec::new();
    let mut reroll_hits = Vec::new();
    let mut total = 0;
    let sap_start = scratch.sap.len();
    let mut before = BeamResult::default();
    for _ in 0..points.normal {
        let d = damage_die(&mut tap);
        total += d;
        before.normal += d;
        if heavy {
            scratch.pending[target].0 += d;
        } else {
            scratch.sap.push((target, d));
        }
        if S::RECORDS {
            hits.push(d);
        }
    }
    // Reroll hits by generation, so that layered armour takes each one
    // layer deeper (readings W33).
    for (g, &n) in points.generations.iter().enumerate() {
        for _ in 0..n {
            let d = damage_die(&mut tap);
            total += d;
            before.penetrating += d;
            before.generations[g] += d;
            scratch.pending[target].1 += d;
            scratch.reroll_generations[target][g] += d;
            if S::RECORDS {
                reroll_hits.push(d);
            }
        }
    }
    let damage_faces = tap.take();
    if S::RECORDS {
        sink.event(GraserAttack {
            unit: u,
            weapon: w,
            target,
            range,
            dice: n,
            drm,
            screen,
            faces,
            reroll_faces,
            damage_faces,
            hits,
            reroll_hits,
        });
    }
    let mut result = before;
    reflex::reflex_hit(battle, u, w, target, &mut result, dice, sink, scratch);
    if result != before {
        graser_cut(scratch, target, heavy, sap_start, &before, &result);
    }
    scratch.deal(
        battle.units[u].side,
        DamageKind::Beam,
        total - (before.total() - result.total()),
    );
}

/// Takes back from a graser shot's queued damage what a reflex field
/// stopped (`before` less `after`): rerolls' points by generation, then
/// the initial hits (heavy: normal damage; light: its SAP hits, last
/// first).
fn graser_cut(
    scratch: &mut Scratch,
    target: UnitId,
    heavy: bool,
    sap_start: usize,
    before: &BeamResult,
    after: &BeamResult,
) {
    for g in 0..REROLL_GENERATIONS {
        let cut = before.generations[g] - after.generations[g];
        scratch.reroll_generations[target][g] -= cut;
        scratch.pending[target].1 -= cut;
    }
    let mut cut = before.normal - after.normal;
    if heavy {
        scratch.pending[target].0 -= cut;
        return;
    }
    for hit in scratch.sap[sap_start..].iter_mut().rev() {
        let take = hit.1.min(cut);
        hit.1 -= take;
        cut -= take;
    }
}

/// A fusion array (ft-rules §4.6, FTC §5.19; reading W57): in the mode
/// better at the range, one to-hit die with the Evasion DRM; a hit rolls
/// the mode's beam dice (no DRM) against the target's advanced screen
/// only, natural 6s rerolling into penetrating damage as beams do.
#[allow(clippy::too_many_arguments)]
pub(super) fn fusion_array_attack<S: Sink>(
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
    use tables::{apply_drm, fusion_array_mode, fusion_array_shot};
    let mode = fusion_array_mode(range);
    let Some((needed, n)) = fusion_array_shot(mode, range) else {
        out_of_range(sink, scratch, u, w, "out of range");
        return;
    };
    scratch.note_use(u, w, WeaponUse::FIRED);
    let face = dice.roll_d6(sink, Purpose::ToHit, Pile::Initial);
    let hit = apply_drm(face, drm) >= needed;
    let screen = battle.units[target].advanced_screen_level();
    let mut tap = Tap::new(sink);
    let result = if hit {
        beam_attack(
            dice,
            &mut tap,
            BeamAttack {
                dice: n,
                drm: 0,
                screen,
                penetrating: true,
            },
        )
    } else {
        BeamResult::default()
    };
    let faces = tap.take();
    let reroll_faces = std::mem::take(&mut tap.rerolls);
    let (normal, penetrating) = (result.normal, result.penetrating);
    let mut result = result;
    if S::RECORDS {
        sink.event(FusionArrayAttack {
            unit: u,
            weapon: w,
            target,
            range,
            mode,
            needed,
            drm,
            face,
            hit,
            dice: if hit { n } else { 0 },
            screen,
            faces,
            reroll_faces,
            normal,
            penetrating,
        });
    }
    reflex::reflex_hit(battle, u, w, target, &mut result, dice, sink, scratch);
    scratch.add_beam(target, &result);
    scratch.deal(
        battle.units[u].side,
        DamageKind::Beam,
        result.normal + result.penetrating,
    );
}

/// A plasma cannon (ft-rules §4.6, reading W25): per die, the face with
/// the Evasion DRM less 2 less the screen level hits of one point, normal
/// damage; a natural 6 rolls one more die (no DRM, unscreened) whose hits
/// are penetrating, chaining on 6s.
#[allow(clippy::too_many_arguments)]
pub(super) fn plasma_attack<S: Sink>(
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
    use tables::{apply_drm, plasma_hits};
    if !rolls(sink, scratch, u, w, n, "out of range") {
        return;
    }
    let screen = scratch.screen_met(battle, u, target);
    let mut tap = Tap::new(sink);
    let (mut normal, mut penetrating, mut rerolls) = (0, 0, 0u32);
    for _ in 0..n {
        let face = dice.roll_d6(&mut tap, Purpose::Beam, Pile::Initial);
        normal += plasma_hits(apply_drm(face, drm), screen);
        rerolls += u32::from(face == 6);
    }
    // Rerolls generation by generation (the 6s of one generation roll the
    // next), so that layered armour takes each one layer deeper (W33).
    let mut generation = 0;
    let mut generations = [0; REROLL_GENERATIONS];
    while rerolls > 0 {
        let mut next = 0;
        for _ in 0..rerolls {
            let face = dice.roll_d6(&mut tap, Purpose::Beam, Pile::Reroll);
            let hits = plasma_hits(face, 0);
            penetrating += hits;
            generations[generation] += hits;
            next += u32::from(face == 6);
        }
        rerolls = next;
        generation = (generation + 1).min(REROLL_GENERATIONS - 1);
    }
    let faces = tap.take();
    let reroll_faces = std::mem::take(&mut tap.rerolls);
    let mut result = BeamResult {
        normal,
        penetrating,
        generations,
    };
    if S::RECORDS {
        sink.event(event::BeamAttack {
            kind: BeamKind::Plasma,
            unit: u,
            weapon: w,
            target,
            range,
            dice: n,
            drm,
            screen,
            faces,
            reroll_faces,
            normal,
            penetrating,
        });
    }
    reflex::reflex_hit(battle, u, w, target, &mut result, dice, sink, scratch);
    scratch.add_beam(target, &result);
    scratch.deal(battle.units[u].side, DamageKind::Beam, result.total());
}
