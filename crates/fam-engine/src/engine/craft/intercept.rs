//! Step 5, in the point-defence step: fighters intercept missiles.

use super::common::{craft, craft_mut, fighter, group_dice, idle, pilot, remove_craft};
use crate::engine::dice::{Dice, PdFire, Pile, Purpose, point_defence};
use crate::engine::event::{CraftRoll, Sink};
use crate::engine::scratch::{Scratch, Tap};
use crate::engine::state::Battle;
use crate::engine::tables::PdTable;
use crate::model::{FighterBase, PilotQuality};

/// Step 5a: fighters intercept missiles aimed at their Formation (or a
/// screen's ship) before ship PD, on the class-1 table (reading F12), the
/// defending Formation's Evasion rerolling misses; each missile killed
/// costs a craft on a 6. Returns nothing: kills go into the shots.
pub fn intercept<S: Sink>(
    battle: &mut Battle,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
    evasion_left: &mut [u32],
) {
    if !scratch.craft.any {
        return;
    }
    for g in 0..battle.units.len() {
        let Some(cover) = scratch.craft.intercept[g] else {
            continue;
        };
        if !battle.units[g].active() {
            continue;
        }
        let gf = battle.units[g].formation;
        // The threat with the most missiles left aimed at a Unit it covers.
        let best = (0..scratch.shots.len())
            .filter(|&t| scratch.shots[t].is_missile())
            .filter(|&t| {
                let s = scratch.shots[t];
                battle.units[s.target].formation == gf && cover.is_none_or(|ship| ship == s.target)
            })
            .filter(|&t| scratch.shots[t].left() > 0)
            .max_by_key(|&t| (scratch.shots[t].left(), std::cmp::Reverse(t)));
        let Some(t) = best else { continue };
        let c = craft(battle, g);
        if c.cef == 0 {
            idle(sink, g, "exhausted: no interception");
            continue;
        }
        let shot = scratch.shots[t];
        let t_type = fighter(&c).expect("only fighters intercept");
        let drm = i32::from(t_type.base == FighterBase::Interceptor)
            - i32::from(pilot(&battle.rules, &c) == Some(PilotQuality::Turkey));
        let table = if shot.heavy_column(&battle.rules) {
            PdTable::BEAM1_VS_HEAVY
        } else {
            PdTable::BEAM1
        };
        let mut tap = Tap::new(sink);
        let result = point_defence(
            dice,
            &mut tap,
            PdFire {
                table,
                dice: group_dice(&battle.rules, &c),
                drm,
                evasion_points: evasion_left[gf],
                evasion_reroll: battle.rules.pd_evasion_reroll,
                targets: shot.left(),
            },
        );
        evasion_left[gf] -= result.evasion_used;
        scratch.shots[t].killed += result.kills;
        craft_mut(battle, g).cef -= 1;
        // The interception dice only: the loss dice below are not part of it.
        let faces = tap.take();
        let reroll_faces = std::mem::take(&mut tap.rerolls);
        let evasion_faces = std::mem::take(&mut tap.evasion);
        // Each missile killed: a 6 and a craft goes with it.
        let mut lost = 0;
        for _ in 0..result.kills {
            if dice.roll_d6(&mut tap, Purpose::Damage, Pile::Initial) == 6 {
                lost += 1;
            }
        }
        if S::RECORDS {
            sink.event(CraftRoll {
                group: g,
                target: Some(shot.target),
                action: "intercept",
                dice: group_dice(&battle.rules, &c),
                drm,
                faces,
                reroll_faces,
                evasion_faces,
                kills: result.kills,
                normal: 0,
                penetrating: 0,
                sap: Vec::new(),
                k_gun: Vec::new(),
            });
        }
        remove_craft(battle, g, lost, "intercepting missiles", sink);
    }
}
