//! Step 6, small-craft attacks, all at once: dogfights, attack runs,
//! torpedo runs, gunboat attacks.

use super::common::{
    GATLING_SHORT_MU, GUNBOAT_K_GUN_CLASS, GUNBOAT_KILL, GUNBOAT_PACKS, GUNBOAT_REACH, GUNBOAT_ROCKETS, SIX_KILLS_ONE,
    craft, craft_mut, fighter, group_dice, pilot, unit_range,
};
use crate::engine::dice::{self, BeamAttack, Dice, PdFire, Pile, Purpose, beam_attack, point_defence};
use crate::engine::event::{CraftRoll, Sink};
use crate::engine::plot::UnitId;
use crate::engine::rules::Rules;
use crate::engine::scratch::{DamageKind, Scratch, Shot, Tap};
use crate::engine::state::{Battle, Craft, CraftKind, GunboatKind};
use crate::engine::tables::{self, PdTable, submunition_dice};
use crate::model::{FighterBase, PilotQuality};

/// DRM of a fighter's attack-run dice by type (docs/fighters.md §3.2).
fn run_drm(t: crate::model::FighterType, torpedoes_spent: bool) -> i32 {
    match t.base {
        FighterBase::Interceptor => -2,
        FighterBase::Attack => 1,
        FighterBase::Torpedo if torpedoes_spent => -2,
        _ => 0,
    }
}

/// DRM of a fighter's dogfight dice (§3.4): the shooter's type and pilot,
/// the target's Heavy (−1) or Light (+1) type.
fn dogfight_drm(rules: &Rules, c: &Craft, target: &Craft) -> i32 {
    let mut drm = 0;
    if let Some(t) = fighter(c) {
        drm += match t.base {
            FighterBase::Interceptor => 1,
            FighterBase::Attack | FighterBase::Torpedo => -2,
            _ => 0,
        };
    }
    if pilot(rules, c) == Some(PilotQuality::Turkey) {
        drm -= 1;
    }
    if let Some(t) = fighter(target) {
        drm += t.light_drm() - i32::from(t.heavy());
    }
    drm
}

/// What one group's attack rolled, for its event.
#[derive(Default)]
struct Outcome {
    kills: u32,
    normal: u32,
    penetrating: u32,
    /// Semi-armour-piercing hits (recorded only).
    sap: Vec<u32>,
    /// K-gun doubling dice and points, or rockets' d6 and points (recorded only).
    k_gun: Vec<(u8, u32)>,
}

/// Group `g` in a dogfight with group `h` (or attacking gunboats, F24):
/// its dice kill craft of `h`. Returns the target, the action, the dice
/// and the DRM for the event.
#[allow(clippy::too_many_arguments)]
fn dogfight<S: Sink>(
    battle: &Battle,
    g: UnitId,
    c: &Craft,
    h: UnitId,
    dice: &mut Dice,
    tap: &mut Tap<'_, S>,
    scratch: &mut Scratch,
    out: &mut Outcome,
) -> (UnitId, &'static str, u32, i32) {
    let th = craft(battle, h);
    let left = th.craft.saturating_sub(scratch.craft.losses[h]);
    let result = if matches!(th.kind, CraftKind::Gunboat(_)) {
        // Fighters at gunboats: attack-run dice, each scoring
        // die out.kills a boat (reading F24).
        let drm = fighter(c).map_or(0, |t| run_drm(t, true));
        let n = group_dice(&battle.rules, c);
        out.kills = point_defence(
            dice,
            tap,
            PdFire {
                table: GUNBOAT_KILL,
                dice: n,
                drm,
                evasion_points: 0,
                evasion_reroll: battle.rules.pd_evasion_reroll,
                targets: left,
            },
        )
        .kills;
        (h, "attack on gunboats", n, drm)
    } else {
        let exhausted = scratch.craft.exhausted[g];
        let drm = dogfight_drm(&battle.rules, c, &th);
        let n = group_dice(&battle.rules, c);
        let table = if exhausted { SIX_KILLS_ONE } else { PdTable::PDS };
        out.kills = point_defence(
            dice,
            tap,
            PdFire {
                table,
                dice: n,
                drm,
                evasion_points: 0,
                evasion_reroll: battle.rules.pd_evasion_reroll,
                targets: th.craft,
            },
        )
        .kills;
        (h, "dogfight", n, drm)
    };
    scratch.craft.losses[h] += out.kills;
    result
}

/// The ship an attack run is made on, as every kind of run reads it.
#[derive(Clone, Copy)]
struct RunOn {
    ship: UnitId,
    /// The range from the group's Formation.
    range: u32,
    /// The Evasion Points of the ship's Formation.
    ep: u32,
    /// The attacking side, credited with the damage.
    side: usize,
}

/// Group `g` making its attack run on `ship` (torpedo run, gunboat
/// attack): by its kind, the dice and the damage queued for the Damage
/// step. Returns the target, the action, the dice and the DRM.
#[allow(clippy::too_many_arguments)]
fn attack_run<S: Sink>(
    battle: &mut Battle,
    g: UnitId,
    c: &Craft,
    ship: UnitId,
    side: usize,
    dice: &mut Dice,
    tap: &mut Tap<'_, S>,
    scratch: &mut Scratch,
    out: &mut Outcome,
) -> (UnitId, &'static str, u32, i32) {
    let range = unit_range(battle, g, ship);
    let tf = battle.units[ship].formation;
    let ep = scratch.evasion_points[tf];
    let on = RunOn { ship, range, ep, side };
    match c.kind {
        CraftKind::Fighter(t) if t.base == FighterBase::Torpedo && !c.torpedoes_spent => {
            let n = torpedo_run(c, on, dice, tap, scratch, out);
            craft_mut(battle, g).torpedoes_spent = true;
            (ship, "torpedo run", n, 0)
        }
        CraftKind::Fighter(t) => {
            let (n, drm) = fighter_run(battle, t, c, on, dice, tap, scratch, out);
            (ship, "attack run", n, drm)
        }
        CraftKind::Gunboat(kind @ (GunboatKind::Beam | GunboatKind::Gatling)) => {
            let (n, drm) = beam_gunboat_attack(battle, kind, c, on, dice, tap, scratch, out);
            (ship, "gunboat attack", n, drm)
        }
        CraftKind::Gunboat(GunboatKind::Torpedo) => {
            let (n, drm) = torpedo_gunboat_attack(c, on, dice, tap, scratch, out);
            (ship, "torpedo attack", n, drm)
        }
        CraftKind::Gunboat(GunboatKind::KGun) => {
            let (n, drm) = k_gun_gunboat_attack(battle, c, on, dice, tap, scratch, out);
            (ship, "k-gun attack", n, drm)
        }
        CraftKind::Gunboat(GunboatKind::Rocket) => {
            let (n, drm) = rocket_attack(battle, g, ship, range, ep, dice, tap, scratch, &mut out.k_gun);
            if S::RECORDS {
                out.sap.extend(out.k_gun.iter().map(|h| h.1));
            }
            (ship, "rocket attack", n, drm)
        }
        CraftKind::Gunboat(GunboatKind::Missile) => unreachable!("a salvo, resolved in point defence"),
        CraftKind::Gunboat(GunboatKind::Pds) => unreachable!("PDS gunboats make no attack"),
        CraftKind::Gunboat(GunboatKind::Submunition) => {
            let (n, drm, r) = submunition_attack(battle, g, ship, range, ep, dice, tap, scratch);
            out.normal = r.normal;
            out.penetrating = r.penetrating;
            (ship, "submunition attack", n, drm)
        }
    }
}

/// A torpedo fighter group's run: one torpedo per craft, all at once,
/// 4-6 hits for the face in SAP damage (reading F26). Returns the dice.
fn torpedo_run<S: Sink>(
    c: &Craft,
    on: RunOn,
    dice: &mut Dice,
    tap: &mut Tap<'_, S>,
    scratch: &mut Scratch,
    out: &mut Outcome,
) -> u32 {
    let n = c.craft;
    for _ in 0..n {
        let face = dice.roll_d6(tap, Purpose::ToHit, Pile::Initial);
        if face >= 4 {
            let d = u32::from(face);
            scratch.sap.push((on.ship, d));
            scratch.deal(on.side, DamageKind::Fighter, d);
            if S::RECORDS {
                out.sap.push(d);
            }
        }
    }
    n
}

/// A fighter group's attack run: its dice on the beam table, penetrating.
/// Returns the dice and the DRM.
#[allow(clippy::too_many_arguments)]
fn fighter_run<S: Sink>(
    battle: &Battle,
    t: crate::model::FighterType,
    c: &Craft,
    on: RunOn,
    dice: &mut Dice,
    tap: &mut Tap<'_, S>,
    scratch: &mut Scratch,
    out: &mut Outcome,
) -> (u32, i32) {
    let mut drm = run_drm(t, c.torpedoes_spent);
    if battle.rules.fighter_evasion_drm {
        drm -= on.ep.saturating_sub(2) as i32;
    }
    let n = group_dice(&battle.rules, c);
    let r = beam_attack(
        dice,
        tap,
        BeamAttack {
            dice: n,
            drm,
            screen: battle.units[on.ship].screen_level(),
            penetrating: true,
        },
    );
    out.normal = r.normal;
    out.penetrating = r.penetrating;
    scratch.add_beam(on.ship, &r);
    scratch.deal(on.side, DamageKind::Fighter, out.normal + out.penetrating);
    (n, drm)
}

/// A beam or Gatling gunboat squadron's attack: two class-1 beam dice a
/// boat; a Gatling boat six within 6 MU, two within 12 (F41). Six arcs
/// (two Evasion Points ignored). Returns the dice and the DRM.
#[allow(clippy::too_many_arguments)]
fn beam_gunboat_attack<S: Sink>(
    battle: &Battle,
    kind: GunboatKind,
    c: &Craft,
    on: RunOn,
    dice: &mut Dice,
    tap: &mut Tap<'_, S>,
    scratch: &mut Scratch,
    out: &mut Outcome,
) -> (u32, i32) {
    let drm = -(on.ep.saturating_sub(2) as i32);
    let per_boat = match kind {
        GunboatKind::Gatling if on.range <= GATLING_SHORT_MU => 6,
        _ => 2,
    };
    let n = per_boat * c.craft;
    let r = beam_attack(
        dice,
        tap,
        BeamAttack {
            dice: if on.range <= GUNBOAT_REACH { n } else { 0 },
            drm,
            screen: battle.units[on.ship].screen_level(),
            penetrating: true,
        },
    );
    out.normal = r.normal;
    out.penetrating = r.penetrating;
    scratch.add_beam(on.ship, &r);
    scratch.deal(on.side, DamageKind::Gunboat, out.normal + out.penetrating);
    (n, drm)
}

/// The hits of `n` gunboats' to-hit dice on the short-range projectile
/// table at `range` (none out of its reach: `None`, no die rolled).
fn gunboat_hits<S: Sink>(n: u32, range: u32, drm: i32, dice: &mut Dice, tap: &mut Tap<'_, S>) -> Option<u32> {
    let needed = tables::projectile_needed(range, tables::PROJECTILE_SHORT_MU)?;
    let mut hits = 0;
    for _ in 0..n {
        let face = dice.roll_d6(tap, Purpose::ToHit, Pile::Initial);
        hits += u32::from(tables::projectile_hits(face, needed, drm));
    }
    Some(hits)
}

/// A torpedo gunboat squadron's attack: a short-range pulse torpedo a
/// boat; every boat's to-hit die, then a damage die per hit (the event
/// shows the to-hit faces and the damage). Returns the dice and the DRM.
fn torpedo_gunboat_attack<S: Sink>(
    c: &Craft,
    on: RunOn,
    dice: &mut Dice,
    tap: &mut Tap<'_, S>,
    scratch: &mut Scratch,
    out: &mut Outcome,
) -> (u32, i32) {
    let drm = -(on.ep as i32);
    let n = c.craft;
    if let Some(hits) = gunboat_hits(n, on.range, drm, dice, tap) {
        let to_hit = tap.take();
        for _ in 0..hits {
            let d = u32::from(dice.roll_d6(tap, Purpose::Damage, Pile::Initial));
            scratch.sap.push((on.ship, d));
            scratch.deal(on.side, DamageKind::Gunboat, d);
            if S::RECORDS {
                out.sap.push(d);
            }
        }
        tap.take();
        tap.put_back(to_hit);
    }
    (n, drm)
}

/// A K-gun gunboat squadron's attack: a K-2 a boat on the short-range
/// projectile table, then the doubling die of each hit (F42). Returns the
/// dice and the DRM.
#[allow(clippy::too_many_arguments)]
fn k_gun_gunboat_attack<S: Sink>(
    battle: &Battle,
    c: &Craft,
    on: RunOn,
    dice: &mut Dice,
    tap: &mut Tap<'_, S>,
    scratch: &mut Scratch,
    out: &mut Outcome,
) -> (u32, i32) {
    let drm = -(on.ep as i32);
    let n = c.craft;
    if let Some(hits) = gunboat_hits(n, on.range, drm, dice, tap) {
        let to_hit = tap.take();
        let advanced = battle.units[on.ship].advanced_screen_level();
        for _ in 0..hits {
            let d = dice.roll_d6(tap, Purpose::Damage, Pile::Initial);
            let points = tables::k_gun_damage(GUNBOAT_K_GUN_CLASS, d, advanced);
            scratch.ap.push((on.ship, points));
            scratch.deal(on.side, DamageKind::Kinetic, points);
            if S::RECORDS {
                out.k_gun.push((d, points));
            }
        }
        tap.take();
        tap.put_back(to_hit);
    }
    (n, drm)
}

/// Step 6: dogfights, attack runs, torpedo runs and gunboat attacks, all
/// from the craft left after point defence, all at once.
pub fn attacks<S: Sink>(battle: &mut Battle, dice: &mut Dice, sink: &mut S, scratch: &mut Scratch) {
    if !scratch.craft.any {
        return;
    }
    for g in 0..battle.units.len() {
        let Some(shot) = scratch.craft.fires_at[g] else {
            continue;
        };
        if !battle.units[g].active() {
            continue;
        }
        let c = craft(battle, g);
        if c.craft == 0 {
            continue;
        }
        // Missile gunboats' salvos went into point defence (F45).
        if c.kind == CraftKind::Gunboat(GunboatKind::Missile) && matches!(shot, Shot::Run(_)) {
            continue;
        }
        let side = battle.units[g].side;
        let mut tap = Tap::new(sink);
        let mut out = Outcome::default();
        let (target, action, n, drm) = match shot {
            Shot::Dogfight(h) => dogfight(battle, g, &c, h, dice, &mut tap, scratch, &mut out),
            Shot::Run(ship) => attack_run(battle, g, &c, ship, side, dice, &mut tap, scratch, &mut out),
        };
        let faces = tap.take();
        let reroll_faces = std::mem::take(&mut tap.rerolls);
        if S::RECORDS {
            sink.event(CraftRoll {
                group: g,
                target: Some(target),
                action,
                dice: n,
                drm,
                faces,
                reroll_faces,
                evasion_faces: Vec::new(),
                kills: out.kills,
                normal: out.normal,
                penetrating: out.penetrating,
                sap: out.sap,
                k_gun: out.k_gun,
            });
        }
    }
}

/// A rocket gunboat squadron's one attack (ft-rules §9.2, readings F43):
/// four rockets a boat, each one die at 2+ to 6 MU, 3+ to 12, with the
/// whole Evasion DRM as torpedo gunboats; then each rocket that hit rolls
/// a d6 read as 1d3 (W52), less an advanced screen's level, one
/// semi-armour-piercing hit. The squadron's rockets are spent. Returns the
/// dice and the DRM; `hits` gets each hit's damage die and points.
#[allow(clippy::too_many_arguments)]
fn rocket_attack<S: Sink>(
    battle: &mut Battle,
    g: UnitId,
    ship: UnitId,
    range: u32,
    ep: u32,
    dice: &mut Dice,
    tap: &mut Tap<'_, S>,
    scratch: &mut Scratch,
    hits: &mut Vec<(u8, u32)>,
) -> (u32, i32) {
    let drm = -(ep as i32);
    let n = GUNBOAT_ROCKETS * craft(battle, g).craft;
    let side = battle.units[g].side;
    if let Some(needed) = tables::rocket_needed(range) {
        let mut hit = 0;
        for _ in 0..n {
            let face = dice.roll_d6(tap, Purpose::ToHit, Pile::Initial);
            hit += u32::from(tables::projectile_hits(face, needed, drm));
        }
        let to_hit = tap.take();
        let advanced = battle.units[ship].advanced_screen_level();
        for _ in 0..hit {
            let face = dice.roll_d6(tap, Purpose::Damage, Pile::Initial);
            let points = u32::from(tables::d3_from_d6(face).saturating_sub(advanced));
            scratch.sap.push((ship, points));
            scratch.deal(side, DamageKind::Rocket, points);
            if S::RECORDS {
                hits.push((face, points));
            }
        }
        tap.take();
        tap.put_back(to_hit);
    }
    craft_mut(battle, g).torpedoes_spent = true;
    (n, drm)
}

/// A submunition gunboat squadron's one attack (ft-rules §9.2, §4.1;
/// readings F44): both packs of every boat at once, each pack the ship
/// pack's dice (3 within 6 MU, 2 within 12), BD\* with rerolls, with the
/// beam gunboat's Evasion DRM (two points ignored); standard screens do
/// not stop them, an advanced screen does as a beam screen (W42). The
/// packs are spent. Returns the dice, the DRM and the damage.
#[allow(clippy::too_many_arguments)]
fn submunition_attack<S: Sink>(
    battle: &mut Battle,
    g: UnitId,
    ship: UnitId,
    range: u32,
    ep: u32,
    dice: &mut Dice,
    tap: &mut Tap<'_, S>,
    scratch: &mut Scratch,
) -> (u32, i32, dice::BeamResult) {
    let drm = -(ep.saturating_sub(2) as i32);
    let n = GUNBOAT_PACKS * submunition_dice(range) * craft(battle, g).craft;
    let screen = if battle.units[ship].advanced_screen_level() > 0 {
        battle.screen_met(g, ship)
    } else {
        0
    };
    let r = beam_attack(
        dice,
        tap,
        BeamAttack {
            dice: n,
            drm,
            screen,
            penetrating: true,
        },
    );
    scratch.add_beam(ship, &r);
    scratch.deal(battle.units[g].side, DamageKind::Submunition, r.normal + r.penetrating);
    craft_mut(battle, g).torpedoes_spent = true;
    (n, drm, r)
}
