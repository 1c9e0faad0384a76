//! Step 2, weapon attacks: per Fire Control the Unit under fire, then each
//! assigned weapon's attack by its kind (the families are in their own
//! files); beam-table weapons without a family of their own (point
//! defence at ships, AA mega batteries, needle beams) are here, and
//! ordnance plotted at a Formation that is gone is expended.

use super::common::beam_like;
use super::emp::emp_attack;
use super::grasers::{fusion_array_attack, graser_attack, plasma_attack, settle_pulser};
use super::kinetic::{k_gun_attack, mkp_attack, plasma_bolt};
use super::ordnance::{antimatter_launch, boarding_torpedo, rack_launch, rocket_pod, salvo_launch, torpedo_attack};
use super::targeting::bands_into;
use super::wave::{nova_cannon, wave_gun};
use crate::engine::craft;
use crate::engine::dice::{Dice, NeedleResult, NeedleShot, Pile, Purpose, needle_shot};
use crate::engine::event::{Acquired, BeamAttack, BeamKind, BurnOut, FireControlIdle, NeedleAttack, Sink};
use crate::engine::plot::{self, ExchangePlot, FormationId, SystemId, UnitId, VolleyPlot};
use crate::engine::reflex;
use crate::engine::scratch::{DamageKind, Scratch, WeaponUse, idle, out_of_range, stopped, volley_plot};
use crate::engine::state::{Battle, Control, Reserve, SysState, is_one_shot};
use crate::engine::tables::{self, beam_dice, beam_family_dice, evasion_ignored, submunition_dice};
use crate::model::SystemKind;
use crate::model::registry::{Ammo, BeamDice, BeamFamily, Hit};

/// AA MegaBattery dice (FT2/More Thrust): 4 to 18 MU, 3 to 36, 2 to 54.
pub fn mega_battery_dice(range: u32) -> u32 {
    match tables::range_band(range, 18) {
        1 => 4,
        2 => 3,
        3 => 2,
        _ => 0,
    }
}

/// Notes every weapon a Formation's Volley plot assigns: those of fire
/// orders with a target, and those in point-defence mode.
fn note_plotted(vp: &VolleyPlot, scratch: &mut Scratch) {
    for order in vp.fire.iter().filter(|o| o.target.is_some()) {
        for &w in &order.weapons {
            scratch.note_use(order.unit, w, WeaponUse::PLOTTED);
        }
    }
    for o in &vp.point_defence {
        scratch.note_use(o.unit, o.weapon, WeaponUse::PLOTTED | WeaponUse::POINT_DEFENCE);
    }
}

pub(super) fn fire<S: Sink>(
    battle: &mut Battle,
    plot: &ExchangePlot,
    volley: u8,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    scratch.shots.clear();
    scratch.fired.clear();
    scratch.band_sets.clear();
    scratch.band_span.clear();
    scratch.band_span.resize(battle.formations.len(), None);
    reflex::raise_fields(battle, plot, volley, sink, scratch);
    for f in 0..battle.formations.len() {
        if battle.formations[f].reserve != Reserve::InCombat {
            continue; // off-board: no fire (the orders layer refuses such plots)
        }
        let vp = volley_plot(plot, f, volley);
        note_plotted(vp, scratch);
        for order in &vp.fire {
            let Some(target_f) = order.target else {
                if S::RECORDS {
                    sink.event(FireControlIdle {
                        unit: order.unit,
                        fire_control: order.fire_control,
                        reason: "plotted inactive",
                    });
                }
                continue;
            };
            let unit = &battle.units[order.unit];
            let idle_reason = if !unit.active() {
                Some("the Unit is out of the fight")
            } else if unit.control != Control::InControl {
                Some("the Unit is out of control")
            } else if !unit.systems[order.fire_control].operational() {
                Some("the Fire Control is not working")
            } else if scratch.reflex.contains(&order.unit) {
                Some("its reflex field is raised")
            } else if !battle.formation_active(target_f) {
                Some("the target Formation is gone")
            } else {
                None
            };
            if idle_reason == Some("the target Formation is gone") {
                // Ordnance plotted to fire is expended all the same (fm-readings 15).
                expend_ordnance(battle, order, sink);
            } else if idle_reason.is_some() {
                for &w in &order.weapons {
                    scratch.note_use(order.unit, w, WeaponUse::STOPPED);
                }
            }
            if let Some(reason) = idle_reason {
                if S::RECORDS {
                    sink.event(FireControlIdle {
                        unit: order.unit,
                        fire_control: order.fire_control,
                        reason,
                    });
                }
                continue;
            }
            if let Some(g) = order.group {
                let range = battle.ranges.get(f, target_f);
                let evasion = scratch.evasion_points[target_f];
                craft::fire_at_group(battle, order, g, range, evasion, dice, sink, scratch);
                continue;
            }
            let (start, len) = bands_of(battle, plot, target_f, volley, scratch);
            let bands = &scratch.band_sets[start..start + len];
            if bands.is_empty() {
                // Small craft only: they are engaged by name (reading F1).
                if S::RECORDS {
                    sink.event(FireControlIdle {
                        unit: order.unit,
                        fire_control: order.fire_control,
                        reason: "the target Formation has no ship: small craft are engaged by naming a group",
                    });
                }
                continue;
            }
            let roll = dice.roll_d100(sink, Purpose::Targeting);
            let target = bands
                .iter()
                .find(|(_, upper)| roll <= *upper)
                .map_or(bands[bands.len() - 1].0, |(u, _)| *u);
            if S::RECORDS {
                sink.event(Acquired {
                    unit: order.unit,
                    fire_control: order.fire_control,
                    formation: target_f,
                    bands: bands.to_vec(),
                    roll,
                    target,
                });
            }
            let range = battle.ranges.get(f, target_f);
            let evasion = scratch.evasion_points[target_f];
            for &w in &order.weapons {
                fire_weapon(battle, order, w, target, range, evasion, dice, sink, scratch);
            }
        }
    }
}

/// Where the targeting bands of Formation `f` are in `scratch.band_sets`
/// this Volley: made at the first Fire Control that fires at it, read back
/// by the others (damage waits for the Damage step, and the small craft
/// that ship fire destroys at once have no band: the bands stay the same
/// through the fire step).
fn bands_of(battle: &Battle, plot: &ExchangePlot, f: FormationId, volley: u8, scratch: &mut Scratch) -> (usize, usize) {
    if let Some(span) = scratch.band_span[f] {
        return span;
    }
    let shifts = &volley_plot(plot, f, volley).shifts;
    // What the bands are made from: the Units they count, with their mass.
    let counted = || {
        battle.formations[f]
            .units
            .iter()
            .map(|&u| (u, &battle.units[u]))
            .filter(|(_, unit)| unit.active() && !unit.is_craft())
            .map(|(u, unit)| (u, unit.mass))
    };
    let start = scratch.band_sets.len();
    // (Made at a batch worker's first Exchange: a Volley run alone, as in
    // the worked examples, makes them here.)
    if scratch.bands_kept.len() <= f {
        scratch
            .bands_kept
            .resize_with(battle.formations.len(), Default::default);
    }
    let read = scratch.bands_kept[f].made_from(counted(), shifts);
    // Debug builds make them afresh all the same, to check the kept ones.
    if !read || cfg!(debug_assertions) {
        bands_into(
            battle,
            f,
            shifts,
            &mut scratch.bands,
            &mut scratch.ranks,
            &mut scratch.shares,
        );
    }
    let kept = &mut scratch.bands_kept[f];
    if read {
        debug_assert_eq!(kept.bands(), scratch.bands, "kept bands of Formation {f}");
    } else {
        kept.keep(counted(), shifts, &scratch.bands);
    }
    scratch.band_sets.extend_from_slice(kept.bands());
    let span = (start, scratch.band_sets.len() - start);
    scratch.band_span[f] = Some(span);
    span
}

/// A PDS or ADAF fired at a ship (ft-rules §5.1): to 6 MU, only against a
/// Unit with no working screen and no armour left; a 6 scores 1 point.
#[allow(clippy::too_many_arguments)]
fn pds_at_ship<S: Sink>(
    battle: &mut Battle,
    u: UnitId,
    w: SystemId,
    target: UnitId,
    range: u32,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    // PDS at ships: to 6 MU, only against a Unit with no working
    // screen and no armour left; a 6 scores 1 point (ft-rules §5.1).
    let t = &battle.units[target];
    if range > 6 || t.screen_level() > 0 || t.armour_left() > 0 {
        if range > 6 {
            scratch.note_use(u, w, WeaponUse::OUT_OF_RANGE);
        }
        idle(
            sink,
            u,
            w,
            "point defence fires at ships only to 6 MU, at a Unit without screens or armour",
        );
        return;
    }
    scratch.fired.push((u, w));
    scratch.note_use(u, w, WeaponUse::FIRED);
    let face = dice.roll_d6(sink, Purpose::Beam, Pile::Initial);
    let damage = u32::from(face == 6);
    scratch.pending[target].0 += damage;
    scratch.deal(battle.units[u].side, DamageKind::PointDefence, damage);
    if S::RECORDS {
        sink.event(BeamAttack {
            kind: BeamKind::Beam,
            unit: u,
            weapon: w,
            target,
            range,
            dice: 1,
            drm: 0,
            screen: 0,
            faces: vec![face],
            reroll_faces: Vec::new(),
            normal: damage,
            penetrating: 0,
        });
    }
}

/// One weapon's shot at the Unit its Fire Control acquired (needle beams:
/// at their own target).
#[allow(clippy::too_many_arguments)]
fn fire_weapon<S: Sink>(
    battle: &mut Battle,
    order: &plot::FireOrder,
    w: SystemId,
    target: UnitId,
    range: u32,
    evasion: u32,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    let u = order.unit;
    let Some((kind, drm)) = ready_to_fire(battle, u, w, evasion, sink, scratch) else {
        return;
    };
    weapon_attack(battle, order, w, kind, target, range, drm, dice, sink, scratch);
}

/// Whether weapon `w` of `u` fires at a ship this Volley: working, not
/// kept back by a nova cannon, one-shot weapons spent now. If it fires,
/// its kind and the die modifier for the target's evasion.
fn ready_to_fire<S: Sink>(
    battle: &mut Battle,
    u: UnitId,
    w: SystemId,
    evasion: u32,
    sink: &mut S,
    scratch: &mut Scratch,
) -> Option<(SystemKind, i32)> {
    let sys = &battle.units[u].systems[w];
    if !sys.operational() {
        stopped(sink, scratch, u, w, "knocked out");
        return None;
    }
    let nova = sys.kind.is(&SystemKind::NovaCannon);
    if nova != scratch.nova.contains(&u) {
        // A nova cannon fires only from the Maneuver step on (it was not
        // working then); a ship firing one fires nothing else (W63).
        let why = if nova {
            "it was not ready at the Maneuver step"
        } else {
            "its ship fires a nova cannon this Volley"
        };
        stopped(sink, scratch, u, w, why);
        return None;
    }
    let drm = -(evasion.saturating_sub(evasion_ignored(sys.arcs)) as i32);
    let kind = sys.kind.clone();
    // A weapon that fires at ships does not defend this Volley (PDS only
    // once it really fires, below).
    if !kind.is_pd_mount() {
        scratch.fired.push((u, w));
    }
    // One-shot packs and pods are spent when fired, in range or not
    // (fm-readings 15).
    if kind.row().ammo == Ammo::Pack && !battle.units[u].systems[w].spend() {
        stopped(sink, scratch, u, w, "already fired");
        return None;
    }
    Some((kind, drm))
}

/// The attack of a weapon that fires, by its kind (a dispatch table).
#[allow(clippy::too_many_arguments)]
fn weapon_attack<S: Sink>(
    battle: &mut Battle,
    order: &plot::FireOrder,
    w: SystemId,
    kind: SystemKind,
    target: UnitId,
    range: u32,
    drm: i32,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    let u = order.unit;
    if let Some(family) = kind.row().beam {
        beam_family_attack(battle, u, w, &kind, family, target, range, drm, dice, sink, scratch);
        return;
    }
    match kind {
        SystemKind::Beam { class } => {
            let n = beam_dice(u32::from(class), range);
            beam_like(battle, u, w, target, range, n, drm, true, true, dice, sink, scratch);
        }
        SystemKind::SubmunitionPack => {
            let n = submunition_dice(range);
            // Standard screens do not stop submunitions; advanced screens
            // do, as beam screens (ft-rules §4.1, readings W42).
            let screened = battle.units[target].advanced_screen_level() > 0;
            beam_like(battle, u, w, target, range, n, drm, true, screened, dice, sink, scratch);
        }
        SystemKind::AaMegaBattery => mega_battery(battle, u, w, target, range, drm, dice, sink, scratch),
        SystemKind::Pds | SystemKind::Adaf => pds_at_ship(battle, u, w, target, range, dice, sink, scratch),
        SystemKind::PulseTorpedo { range: variant } => {
            torpedo_attack(battle, u, w, target, range, variant, drm, dice, sink, scratch)
        }
        SystemKind::KGun { class, range: variant } => {
            k_gun_attack(battle, u, w, target, range, class, variant, drm, dice, sink, scratch)
        }
        SystemKind::Mkp => mkp_attack(battle, u, w, target, range, drm, dice, sink, scratch),
        SystemKind::PlasmaBolt { class } => {
            if scratch.bolts_last.contains(&(u, w)) {
                stopped(sink, scratch, u, w, "recharging: it fired in the Volley before");
                return;
            }
            plasma_bolt(battle, u, w, target, range, class, drm, dice, sink, scratch);
        }
        SystemKind::RocketPod => rocket_pod(u, w, target, range, drm, dice, sink, scratch),
        SystemKind::AntimatterMissile => antimatter_launch(u, w, target, range, sink, scratch),
        SystemKind::BoardingTorpedo => boarding_torpedo(battle, u, w, target, range, drm, dice, sink, scratch),
        SystemKind::WaveGun => wave_gun(battle, u, w, target, range, drm, dice, sink, scratch),
        SystemKind::NovaCannon => nova_cannon(battle, u, w, target, range, drm, dice, sink, scratch),
        SystemKind::FusionArray => fusion_array_attack(battle, u, w, target, range, drm, dice, sink, scratch),
        SystemKind::NeedleBeam => {
            let Some(needle) = order.needles.iter().find(|n| n.weapon == w) else {
                idle(sink, u, w, "no needle target plotted");
                return;
            };
            needle_attack(battle, u, w, *needle, range, drm, dice, sink, scratch);
        }
        SystemKind::Sml => salvo_launch(battle, u, w, target, range, sink, scratch),
        SystemKind::Smr | SystemKind::Missile { .. } => rack_launch(battle, u, w, &kind, target, range, sink, scratch),
        _ => {
            // The orders layer refuses every other weapon with its reason.
            idle(sink, u, w, "not a weapon fam resolves");
        }
    }
}

/// A beam-family weapon's attack (ft-rules §4.5-4.6): its dice at the
/// range by its row (a Pulser left open set now), then its hits by kind.
#[allow(clippy::too_many_arguments)]
fn beam_family_attack<S: Sink>(
    battle: &mut Battle,
    u: UnitId,
    w: SystemId,
    kind: &SystemKind,
    family: BeamFamily,
    target: UnitId,
    range: u32,
    drm: i32,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    let n = match family.dice {
        BeamDice::Pulser => {
            let setting = kind
                .params()
                .setting
                .unwrap_or_else(|| settle_pulser(battle, u, w, range, sink));
            tables::pulser_dice(setting, range)
        }
        _ => beam_family_dice(kind, range),
    };
    match family.hit {
        Hit::Graser | Hit::HeavyGraser { .. } => {
            graser_attack(battle, u, w, target, range, n, drm, dice, sink, scratch)
        }
        Hit::Plasma => plasma_attack(battle, u, w, target, range, n, drm, dice, sink, scratch),
        Hit::Emp => emp_attack(battle, u, w, target, range, n, drm, dice, sink, scratch),
        Hit::Beam => {
            beam_like(battle, u, w, target, range, n, drm, true, true, dice, sink, scratch);
        }
    }
}

/// An AA mega battery's shot: read on the beam table without rerolls;
/// two or more ones in a shot burn the battery out (More Thrust).
#[allow(clippy::too_many_arguments)]
fn mega_battery<S: Sink>(
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
    let n = mega_battery_dice(range);
    let ones = beam_like(battle, u, w, target, range, n, drm, false, true, dice, sink, scratch);
    if ones >= 2 {
        battle.units[u].systems[w].state = SysState::Destroyed;
        if S::RECORDS {
            sink.event(BurnOut { unit: u, weapon: w });
        }
    }
}

/// Spends the ordnance a Fire Control was plotted to fire when its attack
/// cannot happen: racks, packs and magazine loads are gone all the same.
fn expend_ordnance<S: Sink>(battle: &mut Battle, order: &plot::FireOrder, sink: &mut S) {
    let u = order.unit;
    for &w in &order.weapons {
        let sys = &battle.units[u].systems[w];
        if !sys.operational() {
            continue;
        }
        let spent = match sys.kind {
            SystemKind::Sml => match sys.magazine {
                Some(m) if battle.units[u].systems[m].state == SysState::Operational => {
                    battle.units[u].systems[m].spend()
                }
                _ => false,
            },
            ref k if is_one_shot(k) => battle.units[u].systems[w].spend(),
            _ => false,
        };
        if spent {
            idle(sink, u, w, "spent with no target: the ordnance is lost");
        }
    }
}

/// A needle beam (ft-rules §4.2). Continuum: per die (Evasion DRM on it),
/// 4+ scores 1 damage and a natural 6 also destroys the nominated system;
/// a needle beam rolls one die to 12 MU. FB1 (switch `needle_fb1`): one die
/// to 12 MU, 5 scores 1 hull point, 6 a hull point and the system. The die
/// is read by [`needle_shot`] (switch `needle_six_scores`, reading W11).
#[allow(clippy::too_many_arguments)]
fn needle_attack<S: Sink>(
    battle: &mut Battle,
    u: UnitId,
    w: SystemId,
    needle: plot::NeedleOrder,
    range: u32,
    drm: i32,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    let fb1 = battle.rules.needle_fb1;
    if !battle.units[needle.unit].active() {
        idle(sink, u, w, "its target Unit is out of the fight");
        return;
    }
    if range > 12 {
        out_of_range(sink, scratch, u, w, "out of range (needle beams reach 12 MU)");
        return;
    }
    scratch.note_use(u, w, WeaponUse::FIRED);
    let shot = NeedleShot {
        drm,
        fb1,
        six_scores: battle.rules.needle_six_scores,
    };
    let NeedleResult {
        face,
        damage,
        system_hit,
    } = needle_shot(dice, sink, shot);
    let kill = system_hit && battle.units[needle.unit].systems[needle.system].state != SysState::Destroyed;
    if fb1 {
        scratch.pending[needle.unit].1 += damage; // FB1: past screens and armour
    } else {
        scratch.pending[needle.unit].0 += damage;
    }
    if kill {
        scratch.kills.push((needle.unit, needle.system));
    }
    scratch.deal(battle.units[u].side, DamageKind::Needle, damage);
    if S::RECORDS {
        sink.event(NeedleAttack {
            unit: u,
            weapon: w,
            target: needle.unit,
            system: needle.system,
            range,
            drm,
            faces: vec![face],
            damage,
            kill,
        });
    }
    let _ = battle;
}
