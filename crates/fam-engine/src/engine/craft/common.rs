//! What the small-craft steps share: the reaches and dice of fighters and
//! gunboats, the tables their dice read, a group's craft and pilots, the
//! range between two Units, and the removal of craft lost.

use crate::engine::event::{CraftIdle, CraftLost, Destroyed, Sink};
use crate::engine::plot::UnitId;
use crate::engine::rules::{PilotQualityRule, Rules};
use crate::engine::state::{Battle, Craft, CraftKind, GunboatKind};
use crate::engine::tables::PdTable;
use crate::model::{FighterBase, PilotQuality};

/// Attack range of fighters (and dogfights), in MU (reading F5).
pub const FIGHTER_REACH: u32 = 6;
/// Attack range of gunboats, in MU.
pub const GUNBOAT_REACH: u32 = 12;

/// A Gatling gunboat rolls six beam dice a boat within this range, two
/// beyond it (ft-rules §9.2).
pub const GATLING_SHORT_MU: u32 = 6;
/// The class of a K-gun gunboat's gun (ft-rules §9.2: a K-2).
pub const GUNBOAT_K_GUN_CLASS: u8 = 2;
/// Rockets a rocket gunboat fires, all in its one attack (ft-rules §9.2,
/// readings F43).
pub const GUNBOAT_ROCKETS: u32 = 4;
/// A rocket gunboat's rockets hit on 2+ within this range, 3+ to 12 MU.
pub const ROCKET_GUNBOAT_SHORT_MU: u32 = 6;
/// Submunition packs a submunition gunboat fires, both in its one attack
/// (ft-rules §9.2, readings F44).
pub const GUNBOAT_PACKS: u32 = 2;
/// A submunition pack rolls three dice within this range, two to 12 MU.
pub const SUBMUNITION_GUNBOAT_SHORT_MU: u32 = 6;
/// At most this many missiles of a missile gunboat's salvo come on target
/// (ft-rules §9.2: a 4-missile salvo; §14 A27: the d6 capped).
pub const GUNBOAT_SALVO_MISSILES: u32 = 4;
/// PDS dice a PDS gunboat rolls (ft-rules §9.2: 2 PDS a boat; F46).
pub const GUNBOAT_PDS_DICE: u32 = 2;

/// A ship beam die at gunboats, a fighter die at gunboats: every die that
/// scores (4+ on the beam table) kills one boat; a natural 6 rolls again.
pub const GUNBOAT_KILL: PdTable = PdTable {
    kill_from: 4,
    six_kills: 1,
    six_rerolls: true,
};
/// An exhausted group in a dogfight, a PDS at gunboats: a 6 kills one.
pub const SIX_KILLS_ONE: PdTable = PdTable {
    kill_from: 6,
    six_kills: 1,
    six_rerolls: false,
};

pub(super) fn craft(battle: &Battle, u: UnitId) -> Craft {
    battle.units[u].craft.expect("a small-craft Unit")
}

pub(super) fn craft_mut(battle: &mut Battle, u: UnitId) -> &mut Craft {
    battle.units[u].craft.as_mut().expect("a small-craft Unit")
}

pub(super) fn fighter(c: &Craft) -> Option<crate::model::FighterType> {
    match c.kind {
        CraftKind::Fighter(t) => Some(t),
        CraftKind::Gunboat(_) => None,
    }
}

pub(super) fn is_gunboat(battle: &Battle, u: UnitId) -> bool {
    matches!(
        battle.units[u].craft,
        Some(Craft {
            kind: CraftKind::Gunboat(_),
            ..
        })
    )
}

pub(super) fn idle<S: Sink>(sink: &mut S, group: UnitId, reason: &'static str) {
    if S::RECORDS {
        sink.event(CraftIdle { group, reason });
    }
}

/// The range between the Formations of Units `a` and `b`.
pub(super) fn unit_range(battle: &Battle, a: UnitId, b: UnitId) -> u32 {
    let (fa, fb) = (battle.units[a].formation, battle.units[b].formation);
    if fa == fb { 0 } else { battle.ranges.get(fa, fb) }
}

/// The range within which a group attacks at its best: a Gatling
/// gunboat's six dice a boat within 6 MU, other gunboats their reach.
pub(super) fn best_reach(battle: &Battle, g: UnitId) -> u32 {
    match craft(battle, g).kind {
        CraftKind::Gunboat(GunboatKind::Gatling) => GATLING_SHORT_MU,
        CraftKind::Gunboat(GunboatKind::Rocket) => ROCKET_GUNBOAT_SHORT_MU,
        CraftKind::Gunboat(GunboatKind::Submunition) => SUBMUNITION_GUNBOAT_SHORT_MU,
        _ => reach(battle, g),
    }
}

pub(super) fn reach(battle: &Battle, g: UnitId) -> u32 {
    if is_gunboat(battle, g) {
        GUNBOAT_REACH
    } else {
        FIGHTER_REACH
    }
}

/// Removes `n` craft from group `g` now (PD, ship fire at gunboats,
/// interception losses, blasts); the group is destroyed with its last.
pub fn remove_craft<S: Sink>(battle: &mut Battle, g: UnitId, n: u32, cause: &'static str, sink: &mut S) {
    let unit = &mut battle.units[g];
    let Some(c) = unit.craft.as_mut() else { return };
    let lost = n.min(c.craft);
    if lost == 0 {
        return;
    }
    c.craft -= lost;
    let left = c.craft;
    if left == 0 {
        unit.destroyed = true;
    }
    if S::RECORDS {
        sink.event(CraftLost {
            group: g,
            lost,
            left,
            cause,
        });
        if left == 0 {
            sink.event(Destroyed {
                unit: g,
                cause: "every craft lost",
            });
        }
    }
}

/// A group's pilot quality as the `pilot_quality` switch reads it (reading
/// F18): with the switch off, aces and turkeys fly as ordinary pilots.
pub(super) fn pilot(rules: &Rules, c: &Craft) -> Option<PilotQuality> {
    match rules.pilot_quality {
        PilotQualityRule::Off => None,
        PilotQualityRule::Record => c.quality,
    }
}

/// The dice a group rolls: one per craft, one more for an ace (reading F18).
pub fn group_dice(rules: &Rules, c: &Craft) -> u32 {
    c.craft + u32::from(c.craft > 0 && pilot(rules, c) == Some(PilotQuality::Ace))
}

/// Expected damage per craft of a group's attack (PD allocation only).
pub fn expected_per_craft(c: &Craft) -> f64 {
    match c.kind {
        CraftKind::Gunboat(GunboatKind::Beam) => 1.6,
        CraftKind::Gunboat(GunboatKind::Torpedo) => 1.75,
        // 6 beam dice within 6 MU, 2 within 12: the mean of the two.
        CraftKind::Gunboat(GunboatKind::Gatling) => 3.2,
        // A K-2 at 3+ (the middle band): 2/3 × (2 + 2 × 1/3).
        CraftKind::Gunboat(GunboatKind::KGun) => 16.0 / 9.0,
        // Nothing once its rockets are spent; else four rockets, 1d3 each
        // (2 points), at 2+ or 3+: the mean of the two bands, 4 × 3/4 × 2.
        CraftKind::Gunboat(GunboatKind::Rocket) if c.torpedoes_spent => 0.0,
        CraftKind::Gunboat(GunboatKind::Rocket) => 6.0,
        // Nothing once its packs are spent; else 6 dice within 6 MU, 4
        // within 12, 4/5 a die: the mean of the two.
        CraftKind::Gunboat(GunboatKind::Submunition) if c.torpedoes_spent => 0.0,
        CraftKind::Gunboat(GunboatKind::Submunition) => 4.0,
        // A salvo: min(d6, 4) missiles on target (mean 3), 3.5 each.
        CraftKind::Gunboat(GunboatKind::Missile) if c.torpedoes_spent => 0.0,
        CraftKind::Gunboat(GunboatKind::Missile) => 10.5,
        CraftKind::Gunboat(GunboatKind::Pds) => 0.0,
        CraftKind::Fighter(t) => match t.base {
            FighterBase::Torpedo => 2.5,
            FighterBase::Attack => 17.0 / 15.0,
            FighterBase::Interceptor => 0.3,
            _ => 0.8,
        },
    }
}
