//! Step 3, point defence and missiles: salvos roll on target, craft
//! intercept, PD is allocated and rolled against missiles and attacking
//! craft, surviving missiles hit.

use crate::engine::craft;
use crate::engine::dice::{Dice, PdFire, Pile, Purpose, point_defence};
use crate::engine::event::{AntimatterHits, MissileHits, OnTarget, PdAssigned, PdRoll, RocketHits, Sink};
use crate::engine::plot::{ExchangePlot, SystemId, UnitId};
use crate::engine::scratch::{
    self, CRAFT_THREAT, DamageKind, MissileShot, Payload, Scratch, Tap, WeaponUse, note, volley_plot,
};
use crate::engine::state::{self, Battle, is_one_shot};
use crate::engine::tables::{self, PdTable};
use crate::model::registry::Pd;
use crate::model::{PulserSetting, SystemKind};

/// The `weapon` of a missile gunboat's salvo (readings F45): a missile
/// threat from a group, which has no systems.
pub const GUNBOAT_SALVO: SystemId = SystemId::MAX - 1;
/// The `weapon` of a PDS gunboat squadron's point defence (readings F46).
pub const GUNBOAT_PDS: SystemId = SystemId::MAX - 2;

/// Point defence and missile attacks (F&M Point Defense phase and the
/// missile part of the Weapon Attack phase).
///
/// 1. Every salvo rolls its missiles on target (d6), in launch order; a
///    heavy missile is always on target (fm-readings, F&M Missile Attacks).
/// 2. Point defence is allocated before any PD die is rolled: plotted
///    allocations first, then every other PD weapon of a Unit in the fight
///    and in control, in Unit and system order, to the threat against the
///    Units it may cover (its own; with an ADFC or as an ADAF, one other Unit
///    of its Formation per ADFC) with the most expected damage still
///    uncovered (each assigned PD weapon counts its expected kills).
/// 3. PD dice are rolled threat by threat; each Evasion Point of the
///    defending Formation rerolls one missed PD die, shared by its weapons.
/// 4. Surviving salvo missiles score 1d6 each, a heavy missile 3d6; each
///    missile is one semi-armour-piercing hit.
pub(super) fn point_defence_and_missiles<S: Sink>(
    battle: &mut Battle,
    plot: &ExchangePlot,
    volley: u8,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    craft_threats(battle, scratch);
    if scratch.shots.is_empty() {
        return;
    }
    missiles_on_target(dice, sink, scratch);
    let mut evasion_left = std::mem::take(&mut scratch.pd_evasion);
    evasion_left.clear();
    evasion_left.extend_from_slice(&scratch.evasion_points);
    craft::intercept(battle, dice, sink, scratch, &mut evasion_left);
    allocate_pd(battle, plot, volley, sink, scratch);
    roll_pd(battle, dice, sink, scratch, &mut evasion_left);
    gunboat_pds(battle, dice, sink, scratch, &mut evasion_left);
    scratch.pd_evasion = evasion_left;
    missile_damage(battle, dice, sink, scratch);
}

/// Groups making attack runs join the Volley's threats after the missiles
/// (a missile gunboat squadron puts in its salvos instead).
fn craft_threats(battle: &mut Battle, scratch: &mut Scratch) {
    if scratch.craft.any {
        for g in 0..battle.units.len() {
            if let Some(scratch::Shot::Run(ship)) = scratch.craft.fires_at[g]
                && battle.units[g].active()
            {
                let c = battle.units[g].craft.expect("a group");
                if c.kind == state::CraftKind::Gunboat(state::GunboatKind::Missile) {
                    gunboat_salvos(battle, g, ship, scratch);
                    continue;
                }
                scratch.shots.push(MissileShot {
                    unit: g,
                    weapon: CRAFT_THREAT,
                    target: ship,
                    heavy: false,
                    on_target: c.craft,
                    killed: 0,
                    payload: Payload::Missiles,
                });
            }
        }
    }
}

/// Each salvo's missiles on target: a d6 (a gunboat salvo's capped at its
/// missiles, A27).
fn missiles_on_target<S: Sink>(dice: &mut Dice, sink: &mut S, scratch: &mut Scratch) {
    for i in 0..scratch.shots.len() {
        if scratch.shots[i].is_missile() && !scratch.shots[i].heavy && scratch.shots[i].payload == Payload::Missiles {
            let shot = scratch.shots[i];
            let face = dice.roll_d6(sink, Purpose::MissilesOnTarget, Pile::Initial);
            scratch.shots[i].on_target = u32::from(face);
            if shot.weapon == GUNBOAT_SALVO {
                scratch.shots[i].on_target = u32::from(face).min(craft::GUNBOAT_SALVO_MISSILES);
            }
            if S::RECORDS {
                sink.event(OnTarget {
                    unit: shot.unit,
                    weapon: shot.weapon,
                    face,
                });
            }
        }
    }
}

/// The point-defence dice, threat by threat in launch order, each weapon
/// on its assigned threat; Evasion Points reroll missed dice.
fn roll_pd<S: Sink>(
    battle: &mut Battle,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
    evasion_left: &mut [u32],
) {
    for t in 0..scratch.shots.len() {
        for a in 0..scratch.pd_assign.len() {
            let (pu, pw, threat) = scratch.pd_assign[a];
            if threat != t {
                continue;
            }
            let shot = scratch.shots[t];
            let left = shot.on_target.saturating_sub(shot.killed);
            if left == 0 {
                continue;
            }
            scratch.note_use(pu, pw, WeaponUse::FIRED);
            let kind = &battle.units[pu].systems[pw].kind;
            // An EMP-1 defends as a class-1 beam without the reroll, at −1
            // (ft-rules §5.1, readings W47).
            let pd = kind.row().pd;
            let emp1 = pd == Pd::ClassOne { reroll: false };
            let beam1 = kind.defends_as_class_one() || emp1;
            let scatter = pd == Pd::Scatter;
            let formation = battle.units[pu].formation;
            // Against craft: heavy fighters take −1 from PDS (not from
            // class-1 beams, A35), light fighters +1 from every PD die (F40);
            // gunboats die only on a 6.
            let (gunboat, heavy_fighter, light_drm) = match battle.units[shot.unit].craft {
                Some(c) if !shot.is_missile() => match c.kind {
                    state::CraftKind::Gunboat(_) => (true, false, 0),
                    state::CraftKind::Fighter(t) => (false, t.heavy(), t.light_drm()),
                },
                _ => (false, false, 0),
            };
            let mut tap = Tap::new(sink);
            let kills = if scatter {
                // Scattergun: one shot, 1d6 kills (ft-rules §5.1); heavy
                // fighters 1d3; gunboats one beam die, each scoring die
                // killing a boat (docs/fighters.md §3.7).
                battle.units[pu].systems[pw].spend();
                if gunboat {
                    let gb = PdFire {
                        table: craft::GUNBOAT_KILL,
                        dice: 1,
                        drm: 0,
                        evasion_points: 0,
                        evasion_reroll: battle.rules.pd_evasion_reroll,
                        targets: left,
                    };
                    point_defence(dice, &mut tap, gb).kills
                } else {
                    let face = dice.roll_d6(&mut tap, Purpose::PointDefence, Pile::Initial);
                    let kills = if heavy_fighter {
                        u32::from(face).div_ceil(2)
                    } else {
                        u32::from(face)
                    };
                    kills.min(left)
                }
            } else {
                let table = match (beam1, shot.heavy_column(&battle.rules)) {
                    _ if gunboat => craft::SIX_KILLS_ONE,
                    (false, false) => PdTable::PDS,
                    (false, true) => PdTable::PDS_VS_HEAVY,
                    (true, false) if emp1 => PdTable::BEAM1_PLAIN,
                    (true, false) => PdTable::BEAM1,
                    (true, true) => PdTable::BEAM1_VS_HEAVY,
                };
                // A K-1 fires as a PDS at −1, not further reduced against
                // heavy fighters (ft-rules §5.1, A35; readings W41).
                let k1 = pd == Pd::AsPdsClassOne;
                let drm = light_drm - i32::from(k1 || emp1 || heavy_fighter && !beam1);
                let result = point_defence(
                    dice,
                    &mut tap,
                    PdFire {
                        table,
                        dice: 1,
                        drm,
                        evasion_points: evasion_left[formation],
                        evasion_reroll: battle.rules.pd_evasion_reroll,
                        targets: left,
                    },
                );
                evasion_left[formation] -= result.evasion_used;
                result.kills
            };
            let faces = tap.take();
            let reroll_faces = std::mem::take(&mut tap.rerolls);
            let evasion_faces = std::mem::take(&mut tap.evasion);
            scratch.shots[t].killed += kills;
            if S::RECORDS {
                sink.event(PdRoll {
                    unit: pu,
                    weapon: pw,
                    threat: (shot.unit, shot.weapon),
                    faces,
                    reroll_faces,
                    evasion_faces,
                    kills,
                });
            }
        }
    }
}

/// What gets through: craft killed by point defence are gone; rockets and
/// antimatter missiles hit as their own rules say; each salvo missile left
/// scores 1d6, a heavy missile 3d6, every die less an advanced screen's
/// level, each a semi-armour-piercing hit.
fn missile_damage<S: Sink>(battle: &mut Battle, dice: &mut Dice, sink: &mut S, scratch: &mut Scratch) {
    for t in 0..scratch.shots.len() {
        let shot = scratch.shots[t];
        if !shot.is_missile() {
            // Craft killed by PD are gone before they attack.
            craft::remove_craft(battle, shot.unit, shot.killed, "point defence", sink);
            continue;
        }
        match shot.payload {
            Payload::Rockets => {
                rockets_hit(battle, &shot, dice, sink, scratch);
                continue;
            }
            Payload::Antimatter => {
                antimatter_hits(battle, &shot, dice, sink, scratch);
                continue;
            }
            Payload::Missiles => {}
        }
        let surviving = shot.on_target.saturating_sub(shot.killed);
        let mut tap = Tap::new(sink);
        let mut hits = Vec::new();
        // Advanced screens take their level off every missile die (W42).
        let advanced = u32::from(battle.units[shot.target].advanced_screen_level());
        if shot.heavy {
            if surviving > 0 {
                let d: u32 = (0..3)
                    .map(|_| u32::from(dice.roll_d6(&mut tap, Purpose::Damage, Pile::Initial)).saturating_sub(advanced))
                    .sum();
                scratch.sap.push((shot.target, d));
                let side = battle.units[shot.unit].side;
                scratch.deal(side, DamageKind::HeavyMissile, d);
                if S::RECORDS {
                    hits.push(d);
                }
            }
        } else {
            for _ in 0..surviving {
                let d = u32::from(dice.roll_d6(&mut tap, Purpose::Damage, Pile::Initial)).saturating_sub(advanced);
                scratch.sap.push((shot.target, d));
                let side = battle.units[shot.unit].side;
                scratch.deal(side, DamageKind::SalvoMissile, d);
                if S::RECORDS {
                    hits.push(d);
                }
            }
        }
        let faces = tap.take();
        if S::RECORDS {
            sink.event(MissileHits {
                unit: shot.unit,
                weapon: shot.weapon,
                target: shot.target,
                on_target: shot.on_target,
                killed: shot.killed.min(shot.on_target),
                faces,
                hits,
            });
        }
    }
}

/// A missile gunboat squadron attacking `ship` (readings F45): one salvo
/// a boat joins the Volley's missiles, its missiles on target rolled with
/// theirs (a d6, at most 4); the boats' salvos are spent.
fn gunboat_salvos(battle: &mut Battle, g: UnitId, ship: UnitId, scratch: &mut Scratch) {
    let c = battle.units[g].craft.as_mut().expect("a group");
    c.torpedoes_spent = true;
    for _ in 0..c.craft {
        scratch.shots.push(MissileShot {
            unit: g,
            weapon: GUNBOAT_SALVO,
            target: ship,
            heavy: false,
            on_target: 0,
            killed: 0,
            payload: Payload::Missiles,
        });
    }
}

/// PDS gunboats (readings F46): each squadron in the fight with endurance
/// left and no dogfight of its own rolls two PDS dice a boat after the
/// ships' point defence, one die at a time, each at the threat to a ship
/// of its Formation with the most expected damage left (its ADFC covers
/// the Formation); the table is a ship PDS's. 1 endurance when it rolls.
fn gunboat_pds<S: Sink>(
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
        let Some(c) = battle.units[g].craft else { continue };
        let pds = c.kind == state::CraftKind::Gunboat(state::GunboatKind::Pds);
        if !pds || !battle.units[g].active() || c.cef == 0 || scratch.craft.fires_at[g].is_some() {
            continue;
        }
        let f = battle.units[g].formation;
        let mut rolled = false;
        for _ in 0..craft::GUNBOAT_PDS_DICE * c.craft {
            let value = |t: usize| f64::from(scratch.shots[t].left()) * threat_value(battle, &scratch.shots[t]);
            let best = (0..scratch.shots.len())
                .filter(|&t| {
                    let s = &scratch.shots[t];
                    s.left() > 0 && battle.units[s.target].active() && battle.units[s.target].formation == f
                })
                .max_by(|&i, &j| value(i).total_cmp(&value(j)).then(j.cmp(&i)));
            let Some(t) = best else { break };
            let shot = scratch.shots[t];
            let (table, drm) = pds_table(battle, &shot);
            let mut tap = Tap::new(sink);
            let result = point_defence(
                dice,
                &mut tap,
                PdFire {
                    table,
                    dice: 1,
                    drm,
                    evasion_points: evasion_left[f],
                    evasion_reroll: battle.rules.pd_evasion_reroll,
                    targets: shot.left(),
                },
            );
            evasion_left[f] -= result.evasion_used;
            scratch.shots[t].killed += result.kills;
            rolled = true;
            let faces = tap.take();
            let reroll_faces = std::mem::take(&mut tap.rerolls);
            let evasion_faces = std::mem::take(&mut tap.evasion);
            if S::RECORDS {
                sink.event(PdRoll {
                    unit: g,
                    weapon: GUNBOAT_PDS,
                    threat: (shot.unit, shot.weapon),
                    faces,
                    reroll_faces,
                    evasion_faces,
                    kills: result.kills,
                });
            }
        }
        if rolled && let Some(c) = battle.units[g].craft.as_mut() {
            c.cef -= 1;
        }
    }
}

/// A ship PDS's table and DRM against a threat (ft-rules §5.1): the
/// salvo or heavy-missile column; against craft, gunboats only on a 6,
/// heavy fighters −1, light fighters +1 (F40).
fn pds_table(battle: &Battle, shot: &MissileShot) -> (PdTable, i32) {
    match battle.units[shot.unit].craft {
        Some(c) if !shot.is_missile() => match c.kind {
            state::CraftKind::Gunboat(_) => (craft::SIX_KILLS_ONE, 0),
            state::CraftKind::Fighter(t) => (PdTable::PDS, t.light_drm() - i32::from(t.heavy())),
        },
        _ if shot.heavy_column(&battle.rules) => (PdTable::PDS_VS_HEAVY, 0),
        _ => (PdTable::PDS, 0),
    }
}

/// The rockets point defence left: each 1d3 (read from a d6) less the
/// target's advanced screen level, one semi-armour-piercing hit
/// (readings W51, W52).
fn rockets_hit<S: Sink>(battle: &Battle, shot: &MissileShot, dice: &mut Dice, sink: &mut S, scratch: &mut Scratch) {
    let left = shot.on_target.saturating_sub(shot.killed);
    let advanced = battle.units[shot.target].advanced_screen_level();
    let side = battle.units[shot.unit].side;
    let mut faces = Vec::new();
    let mut damage = Vec::new();
    for _ in 0..left {
        let face = dice.roll_d6(sink, Purpose::Damage, Pile::Initial);
        let d = u32::from(tables::d3_from_d6(face).saturating_sub(advanced));
        scratch.sap.push((shot.target, d));
        scratch.deal(side, DamageKind::Rocket, d);
        if S::RECORDS {
            faces.push(face);
            damage.push(d);
        }
    }
    if S::RECORDS {
        sink.event(RocketHits {
            unit: shot.unit,
            weapon: shot.weapon,
            target: shot.target,
            hit: shot.on_target,
            killed: shot.killed.min(shot.on_target),
            advanced,
            faces,
            damage,
        });
    }
}

/// An antimatter missile's detonation: one d6 for each of its three dice
/// point defence did not take, each less the screen level the target
/// meets (standard and advanced), summed as normal damage (readings W54,
/// W55).
fn antimatter_hits<S: Sink>(battle: &Battle, shot: &MissileShot, dice: &mut Dice, sink: &mut S, scratch: &mut Scratch) {
    let left = shot.on_target.saturating_sub(shot.killed);
    let screen = battle.screen_met(shot.unit, shot.target);
    let mut faces = Vec::new();
    let mut damage = 0;
    for _ in 0..left {
        let face = dice.roll_d6(sink, Purpose::Damage, Pile::Initial);
        damage += tables::antimatter_points(face, screen);
        if S::RECORDS {
            faces.push(face);
        }
    }
    scratch.pending[shot.target].0 += damage;
    scratch.deal(battle.units[shot.unit].side, DamageKind::Antimatter, damage);
    if S::RECORDS {
        sink.event(AntimatterHits {
            unit: shot.unit,
            weapon: shot.weapon,
            target: shot.target,
            killed: shot.killed.min(shot.on_target),
            screen,
            faces,
            damage,
        });
    }
}

/// Expected damage of one missile or craft of a threat (allocation only):
/// a salvo missile 3.5, a heavy missile 10.5, a craft by its type.
fn threat_value(battle: &Battle, shot: &MissileShot) -> f64 {
    if shot.is_missile() {
        match shot.payload {
            // A rocket: 1d3; an antimatter die: 1d6.
            Payload::Rockets => 2.0,
            Payload::Antimatter => 3.5,
            Payload::Missiles if shot.heavy => 10.5,
            Payload::Missiles => 3.5,
        }
    } else {
        battle.units[shot.unit]
            .craft
            .map_or(0.0, |c| craft::expected_per_craft(&c))
    }
}

/// Expected kills of one PD weapon against a missile or group threat (for
/// allocation only): heavy fighters take −1 on PDS dice (7/15 a die),
/// light fighters +1 on every die, gunboats die only on a 6.
fn pd_expectation(battle: &Battle, kind: &SystemKind, shot: &MissileShot) -> f64 {
    use state::CraftKind;
    let pd = kind.row().pd;
    match battle.units[shot.unit].craft.map(|c| c.kind) {
        Some(CraftKind::Gunboat(_)) if !shot.is_missile() && pd == Pd::Scatter => 0.6,
        Some(CraftKind::Gunboat(_)) if !shot.is_missile() => 1.0 / 6.0,
        Some(CraftKind::Fighter(t)) if !shot.is_missile() && t.heavy() && kind.is_pd_mount() => 7.0 / 15.0,
        Some(CraftKind::Fighter(t)) if !shot.is_missile() && t.light => {
            // +1 turns one more initial face into a kill (and a natural 5
            // into a PDS's two): PDS and K-1 +1/3 a die, class-1 beams +1/6.
            let bonus = match pd {
                Pd::Scatter => 0.0,
                Pd::ClassOne { reroll: true } => 1.0 / 6.0,
                _ => 1.0 / 3.0,
            };
            expected_kills(kind, false) + bonus
        }
        _ => expected_kills(kind, shot.heavy_column(&battle.rules)),
    }
}

/// Expected kills of one PD weapon against a threat (for allocation only),
/// by how it defends.
fn expected_kills(kind: &SystemKind, heavy: bool) -> f64 {
    match (kind.row().pd, heavy) {
        (Pd::ClassOne { reroll: true }, false) => 0.4,
        (Pd::ClassOne { reroll: true }, true) => 1.0 / 6.0,
        (Pd::Scatter, _) => 3.5,
        // PDS at −1: natural 5 and 6 kill one, a 6 rerolls (0.8 a reroll).
        (Pd::AsPdsClassOne, false) => 2.8 / 6.0,
        (Pd::AsPdsClassOne, true) => 1.0 / 6.0,
        // A class-1 beam's table at −1 without the reroll: only a 6 kills.
        (Pd::ClassOne { reroll: false }, false) => 1.0 / 6.0,
        (Pd::ClassOne { reroll: false }, true) => 0.0,
        (_, false) => 0.8,
        (_, true) => 1.0 / 3.0,
    }
}

/// Whether Unit `pu`'s weapon `pw` may defend Unit `target`, given the
/// other Units it already covers (`covered`).
fn may_cover(battle: &Battle, pu: UnitId, pw: SystemId, target: UnitId, covered: &[UnitId], busy: bool) -> bool {
    if target == pu {
        return true;
    }
    let unit = &battle.units[pu];
    if unit.formation != battle.units[target].formation {
        return false;
    }
    let pd = unit.systems[pw].kind.row().pd;
    if matches!(pd, Pd::ClassOne { .. } | Pd::AsPdsClassOne) {
        return false; // class-1 beams, K-1s and EMP-1s defend only their own ship
    }
    // A carrier launching or recovering gives no area defence (F15).
    let adfc = unit
        .systems
        .iter()
        .filter(|s| s.kind.is(&SystemKind::Adfc) && s.operational() && !busy)
        .count()
        // An ADAF and a Scattergun are their own area-defence mounts (O20).
        + usize::from(matches!(pd, Pd::Mount { area: true } | Pd::Scatter) && !busy);
    adfc > 0 && (covered.contains(&target) || covered.len() < adfc)
}

fn allocate_pd<S: Sink>(battle: &Battle, plot: &ExchangePlot, volley: u8, sink: &mut S, scratch: &mut Scratch) {
    scratch.pd_assign.clear();
    // Buffers reused between runs (a batch allocates nothing once warm).
    let mut open = std::mem::take(&mut scratch.pd_open);
    let mut covered = std::mem::take(&mut scratch.pd_covered);
    let mut order = std::mem::take(&mut scratch.pd_order);
    let mut by_formation = std::mem::take(&mut scratch.pd_by_formation);
    // Point defence defends its own Formation only (`may_cover`): each
    // weapon weighs the threats at its Formation's Units, not every one.
    by_formation.clear();
    by_formation.extend(
        scratch
            .shots
            .iter()
            .enumerate()
            .map(|(i, s)| (battle.units[s.target].formation, i)),
    );
    by_formation.sort_unstable();
    // A weapon that fired at ships this Volley cannot defend: looked up by
    // halves.
    scratch.fired.sort_unstable();
    let shots = &scratch.shots;
    let craft = &scratch.craft;
    // Expected damage still uncovered per threat.
    open.clear();
    open.extend(
        shots
            .iter()
            .map(|s| threat_value(battle, s) * f64::from(if s.heavy { 1 } else { s.on_target })),
    );
    let assign = |scratch_assign: &mut Vec<(UnitId, SystemId, usize)>,
                  open: &mut [f64],
                  pu: UnitId,
                  pw: SystemId,
                  defends: Option<UnitId>,
                  covered: &mut Vec<UnitId>|
     -> Option<(usize, UnitId)> {
        let kind = &battle.units[pu].systems[pw].kind;
        let busy = craft.carrier_busy(pu);
        let f = battle.units[pu].formation;
        let first = by_formation.partition_point(|&(g, _)| g < f);
        let last = by_formation.partition_point(|&(g, _)| g <= f);
        let best = by_formation[first..last]
            .iter()
            .map(|&(_, i)| (i, &shots[i]))
            .filter(|(_, s)| battle.units[s.target].active())
            .filter(|(_, s)| match defends {
                // A plotted Unit to defend, if the weapon may still cover it
                // (an ADFC lost in this Exchange ends area defence).
                Some(d) => s.target == d && may_cover(battle, pu, pw, d, covered, busy),
                None => may_cover(battle, pu, pw, s.target, covered, busy),
            })
            // Own Unit first, then the most expected damage still uncovered
            // (it may go below zero: every PD weapon fires), then launch order.
            .max_by(|(i, a), (j, b)| {
                (a.target == pu)
                    .cmp(&(b.target == pu))
                    .then(open[*i].total_cmp(&open[*j]))
                    .then(j.cmp(i))
            })
            .map(|(i, s)| (i, s.target));
        if let Some((i, target)) = best {
            open[i] -= pd_expectation(battle, kind, &shots[i]) * threat_value(battle, &shots[i]);
            scratch_assign.push((pu, pw, i));
            if target != pu && !covered.contains(&target) {
                covered.push(target);
            }
        }
        best
    };
    for u in 0..battle.units.len() {
        let unit = &battle.units[u];
        let fplot = volley_plot(plot, unit.formation, volley);
        // A ship behind its raised reflex field does not fire, point
        // defence included (reading W60).
        // Nor does a ship firing its nova cannon (reading W63).
        if !unit.can_act() || scratch.reflex.contains(&u) || scratch.nova.contains(&u) {
            // Out-of-control ships' active defences do not work.
            for o in fplot.point_defence.iter().filter(|o| o.unit == u) {
                note(
                    &scratch.weapon_first,
                    &mut scratch.weapon_use,
                    u,
                    o.weapon,
                    WeaponUse::STOPPED,
                );
            }
            continue;
        }
        covered.clear();
        // Plotted PD weapons first, then the PDS the plot leaves alone.
        let plotted = fplot.point_defence.iter().filter(|o| o.unit == u);
        let automatic = unit.systems.iter().enumerate().filter_map(|(w, s)| {
            let pd = s.kind.is_pd_mount();
            let listed = fplot.point_defence.iter().any(|o| o.unit == u && o.weapon == w);
            (pd && !listed).then_some(w)
        });
        order.clear();
        order.extend(plotted.map(|o| (o.weapon, o.defend, false)));
        order.extend(automatic.map(|w| (w, None, true)));
        for &(w, defend, auto) in &order {
            let sys = &unit.systems[w];
            // A Pulser set short earlier in the Exchange cannot defend (W26).
            let short = sys.kind
                == SystemKind::Pulser {
                    setting: Some(PulserSetting::Short),
                };
            let unable = !sys.operational() || (is_one_shot(&sys.kind) && sys.rounds_left() == 0) || short;
            if unable && !auto {
                note(&scratch.weapon_first, &mut scratch.weapon_use, u, w, WeaponUse::STOPPED);
            }
            if unable || scratch.fired.binary_search(&(u, w)).is_ok() {
                continue;
            }
            let got = assign(&mut scratch.pd_assign, &mut open, u, w, defend, &mut covered);
            if let (Some((i, defends)), true) = (got, S::RECORDS) {
                sink.event(PdAssigned {
                    unit: u,
                    weapon: w,
                    defends,
                    threat: (shots[i].unit, shots[i].weapon),
                    automatic: auto,
                });
            }
        }
    }
    scratch.pd_open = open;
    scratch.pd_covered = covered;
    scratch.pd_order = order;
    scratch.pd_by_formation = by_formation;
}
