//! Step 4, in the Fire step: ship Fire Controls aimed at a group.

use super::common::{GUNBOAT_KILL, SIX_KILLS_ONE, craft, fighter, is_gunboat, remove_craft};
use crate::engine::dice::{Dice, PdFire, Pile, Purpose, point_defence};
use crate::engine::event::{GroupShot, Sink};
use crate::engine::plot::{self, UnitId};
use crate::engine::scratch::{Scratch, Tap, WeaponUse, idle_weapon, out_of_range, stopped};
use crate::engine::state::Battle;
use crate::engine::tables::{self, beam_dice, evasion_ignored, torpedo_band};
use crate::model::SystemKind;

/// Step 4: a Fire Control aimed at a group (readings F7, F14) or a gunboat
/// squadron (§5). Fighters: one die per beam battery in reach, a modified
/// 6 kills one, losses at the Damage step. Gunboats: each beam die that
/// scores kills one boat, a torpedo hit one, at once.
#[allow(clippy::too_many_arguments)]
pub fn fire_at_group<S: Sink>(
    battle: &mut Battle,
    order: &plot::FireOrder,
    g: UnitId,
    range: u32,
    evasion: u32,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    let u = order.unit;
    if !battle.units[g].active() {
        for &w in &order.weapons {
            idle_weapon(sink, u, w, "its target group is out of the fight");
        }
        return;
    }
    if scratch.craft.engaged.get(g).copied().unwrap_or(false) {
        for &w in &order.weapons {
            idle_weapon(
                sink,
                u,
                w,
                "its target group is in a dogfight: ships cannot fire into it",
            );
        }
        return;
    }
    let gunboat = is_gunboat(battle, g);
    for &w in &order.weapons {
        let sys = &battle.units[u].systems[w];
        if !sys.operational() {
            stopped(sink, scratch, u, w, "knocked out");
            continue;
        }
        // Light fighters are easier to hit: +1 (ft-rules §9.1, readings F40).
        let light = fighter(&craft(battle, g)).map_or(0, |t| t.light_drm());
        let drm = light - evasion.saturating_sub(evasion_ignored(sys.arcs)) as i32;
        let kind = sys.kind.clone();
        let (class, torpedo) = match kind {
            SystemKind::Beam { class } => (u32::from(class), None),
            SystemKind::PulseTorpedo { range: r } if gunboat => (0, Some(r)),
            _ => {
                idle_weapon(
                    sink,
                    u,
                    w,
                    if gunboat {
                        "only beams and torpedoes fire at gunboats"
                    } else {
                        "only beam batteries fire at fighters"
                    },
                );
                continue;
            }
        };
        scratch.fired.push((u, w));
        let mut tap = Tap::new(sink);
        let left = craft(battle, g).craft;
        let kills = if let Some(variant) = torpedo {
            let width = torpedo_band(variant);
            match tables::projectile_needed(range, width) {
                Some(needed) => {
                    scratch.note_use(u, w, WeaponUse::FIRED);
                    let face = dice.roll_d6(&mut tap, Purpose::ToHit, Pile::Initial);
                    u32::from(tables::projectile_hits(face, needed, drm))
                }
                None => {
                    scratch.note_use(u, w, WeaponUse::OUT_OF_RANGE);
                    0
                }
            }
        } else {
            let n = beam_dice(class, range);
            if n == 0 {
                drop(tap);
                out_of_range(sink, scratch, u, w, "out of range");
                continue;
            }
            scratch.note_use(u, w, WeaponUse::FIRED);
            let (table, count) = if gunboat { (GUNBOAT_KILL, n) } else { (SIX_KILLS_ONE, 1) };
            point_defence(
                dice,
                &mut tap,
                PdFire {
                    table,
                    dice: count,
                    drm,
                    evasion_points: 0,
                    evasion_reroll: battle.rules.pd_evasion_reroll,
                    targets: left,
                },
            )
            .kills
        };
        let faces = tap.take();
        let mut reroll_faces = std::mem::take(&mut tap.rerolls);
        let mut all = faces;
        all.append(&mut reroll_faces);
        if S::RECORDS {
            sink.event(GroupShot {
                unit: u,
                weapon: w,
                group: g,
                drm,
                faces: all,
                kills,
            });
        }
        if gunboat {
            remove_craft(battle, g, kills, "ship fire", sink);
        } else {
            scratch.craft.losses[g] += kills;
        }
    }
}
