//! One Exchange: three Volleys, each in this order (F&M "Volley Procedure";
//! the small-craft steps, marked *craft*, are in [`super::craft`]):
//!
//! 0. *Craft*: Launch phase (re-arming, recoveries, launches).
//! 1. Maneuver: Formation Thrust, plot cut if thrust fell, Speed and
//!    Evasion pools, the range of every pair of Formations (close, then
//!    withdraw, then maintain; fm-readings 1-5); *craft*: secondary
//!    maneuvers, then engagement (who fights whom, endurance).
//! 2. Weapon attacks: per Fire Control, a percentile roll picks the Unit
//!    under fire; each assigned beam battery rolls at the current range
//!    with the Evasion DRM its arcs do not ignore, against the target's
//!    screens; ordnance is launched. Damage waits for step 4 (Units
//!    destroyed now still fire). *Craft*: Fire Controls aimed at a group.
//! 3. Point defence and missiles: salvos roll on target, *craft* intercept,
//!    PD is allocated and rolled against missiles and attacking craft
//!    (Evasion rerolls), surviving missiles hit; *craft*: dogfights, attack
//!    runs, torpedo runs and gunboat attacks.
//! 4. Damage, applied to every Unit at once: normal damage to armour then
//!    hull, semi-armour-piercing hits, penetrating damage to the hull, crew
//!    factors lost with their boxes; *craft* lost in dogfights and to ship
//!    fire.
//! 5. Threshold checks: one per Unit at the deepest row completed, +1 per
//!    extra row; core systems at −1; the drive halves, then fails.
//! 6. Damage control, in the plotted or the default priority.
//! 7. Power cores: a breached core explodes on 5-6 (optional blast on the
//!    rest of the Formation); out-of-control and life-support countdowns;
//!    *craft* docked in a lost bay or carrier are lost.
//!
//! Formations, Units, systems and fire orders are visited in index order,
//! so the dice each step consumes depend only on the inputs and the seed.

use super::dice::{
    BeamAttack, BeamResult, Dice, NeedleResult, NeedleShot, PdFire, Pile, Purpose, REROLL_GENERATIONS, beam_attack,
    needle_shot, point_defence, successes,
};
use super::event::{Event, Sink};
use super::plot::{ExchangePlot, FormationId, Maneuver, ManeuverOrder, SystemId, UnitId, VolleyPlot};
use super::rules::RerollDepth;
use super::scratch::note;
pub use super::scratch::{CRAFT_THREAT, DamageKind, Scratch, WeaponUse, WeaponUses};
use super::scratch::{MissileShot, Payload, Tap, idle, out_of_range, stopped, volley_plot};
use super::state::{Battle, Control, Reserve, SysState, Unit, is_one_shot, rows_completed};
use super::tables::{PdTable, beam_dice, beam_family_dice};
pub use super::tables::{evasion_ignored, missile_range, submunition_dice, torpedo_band};
use crate::model::{PulserSetting, SystemKind, TorpedoRange};

/// Plays one Exchange (three Volleys) of `plot` on `battle`.
pub fn run_exchange<S: Sink>(
    battle: &mut Battle,
    plot: &ExchangePlot,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    scratch.size_for(battle);
    for volley in 0..3u8 {
        run_volley(battle, plot, volley, dice, sink, scratch);
    }
    if battle.rules.reserves {
        reserves_wrap_up(battle, sink);
    }
}

/// Range at or beyond which a Formation withdraws to the Reserve.
pub const RESERVE_RANGE: u32 = 65;
/// Range at which a Formation entering from the Reserve arrives.
pub const ARRIVAL_RANGE: u32 = 60;

/// The Reserve at the end of an Exchange (F&M Appendix, fm-readings 22):
/// first every Formation in the fight that is 65 MU or more from every enemy
/// Formation in the fight (and, with `reserves_need_ftl`, whose Units all
/// have a working FTL drive) withdraws; then Formations entering from the
/// Reserve arrive at 60 MU from every enemy Formation.
fn reserves_wrap_up<S: Sink>(battle: &mut Battle, sink: &mut S) {
    let n = battle.formations.len();
    let mut leaving = Vec::new();
    for f in 0..n {
        if !battle.formation_active(f) {
            continue;
        }
        let side = battle.formations[f].side;
        let enemies: Vec<usize> = (0..n)
            .filter(|e| battle.formations[*e].side != side && battle.formation_active(*e))
            .collect();
        if enemies.is_empty() || enemies.iter().any(|e| battle.ranges.get(f, *e) < RESERVE_RANGE) {
            continue;
        }
        let ftl_ok = !battle.rules.reserves_need_ftl
            || battle.formations[f]
                .units
                .iter()
                .map(|u| &battle.units[*u])
                .filter(|u| u.active())
                .all(|u| {
                    u.systems
                        .iter()
                        .any(|s| matches!(s.kind, SystemKind::Ftl) && s.operational())
                });
        if ftl_ok {
            leaving.push(f);
        }
    }
    for f in leaving {
        battle.formations[f].reserve = Reserve::InReserve;
        if S::RECORDS {
            sink.event(Event::ToReserve { formation: f });
        }
    }
    for f in 0..n {
        if battle.formations[f].reserve != Reserve::Entering {
            continue;
        }
        battle.formations[f].reserve = Reserve::InCombat;
        let side = battle.formations[f].side;
        for e in 0..n {
            if e != f && battle.formations[e].side != side {
                battle.ranges.set(f, e, ARRIVAL_RANGE);
            }
        }
        if S::RECORDS {
            sink.event(Event::Arrived { formation: f });
        }
    }
}

/// Plays one Volley (0-based index).
pub fn run_volley<S: Sink>(
    battle: &mut Battle,
    plot: &ExchangePlot,
    volley: u8,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    if S::RECORDS {
        sink.event(Event::VolleyStarted { volley: volley + 1 });
    }
    let nf = battle.formations.len();
    let nu = battle.units.len();
    scratch.speed_points.clear();
    scratch.speed_points.resize(nf, 0);
    scratch.evasion_points.clear();
    scratch.evasion_points.resize(nf, 0);
    scratch.pending.clear();
    scratch.pending.resize(nu, (0, 0));
    scratch.reroll_generations.clear();
    scratch.reroll_generations.resize(nu, [0; REROLL_GENERATIONS]);
    scratch.rows_this_volley.clear();
    scratch.rows_this_volley.resize(nu, 0);
    scratch.sap.clear();
    scratch.ap.clear();
    scratch.emp.clear();
    scratch.hull_hits.clear();
    scratch.kills.clear();
    // A launcher that fired last Volley recharges; none carries its charge
    // over from the Exchange before (the records keep none, reading W35).
    std::mem::swap(&mut scratch.bolts_last, &mut scratch.bolts_now);
    scratch.bolts_now.clear();
    if volley == 0 {
        scratch.bolts_last.clear();
        // Nor does a wave gun carry its charge (reading W59).
        scratch.wave_charge.clear();
    }
    scratch.hull.clear();

    super::craft::launch_phase(battle, plot, volley, dice, sink, scratch);
    arm_novas(battle, plot, volley, sink, scratch);
    maneuver(battle, plot, volley, dice, sink, scratch);
    super::craft::secondary_moves(battle, plot, volley, sink, scratch);
    super::craft::engage(battle, plot, volley, sink, scratch);
    fire(battle, plot, volley, dice, sink, scratch);
    point_defence_and_missiles(battle, plot, volley, dice, sink, scratch);
    super::craft::attacks(battle, dice, sink, scratch);
    apply_damage(battle, sink, scratch);
    super::craft::apply_losses(battle, sink, scratch);
    for u in 0..nu {
        let rows = scratch.rows_this_volley[u];
        if rows > 0 && battle.units[u].active() {
            threshold_check(battle, u, rows, dice, sink);
        }
    }
    for i in 0..scratch.emp.len() {
        emp_tests(battle, scratch.emp[i], &scratch.rows_this_volley, dice, sink);
    }
    wave_gun_backlash(battle, dice, sink, scratch);
    // A group docked in a bay lost to a threshold goes with it, whatever
    // damage control does next (docs/fighters.md §2 step 9).
    super::craft::docked_losses(battle, sink, scratch);
    for u in 0..nu {
        if battle.units[u].active() {
            damage_control(battle, plot, volley, u, dice, sink, scratch);
        }
    }
    reactors_and_countdowns(battle, dice, sink, scratch);
    super::craft::wrap_up(battle, sink, scratch);
    // The screens of a ship that fired its nova cannon come back up.
    for &u in &scratch.nova {
        battle.units[u].screens_down = false;
    }
}

/// The Maneuver step's first act (ft-rules §4.5, FTC §7.23; reading W63):
/// every ship in the fight and in control whose fire orders this Volley
/// name a working nova cannon through a working Fire Control fires it, and
/// so has no thrust (its Formation rolls no Speed or Evasion dice), drops
/// its screens and vapour shroud, and fires nothing else this Volley.
fn arm_novas<S: Sink>(battle: &mut Battle, plot: &ExchangePlot, volley: u8, sink: &mut S, scratch: &mut Scratch) {
    scratch.nova.clear();
    for f in 0..battle.formations.len() {
        if battle.formations[f].reserve != Reserve::InCombat {
            continue;
        }
        for order in &volley_plot(plot, f, volley).fire {
            let unit = &battle.units[order.unit];
            if order.target.is_none()
                || !unit.can_act()
                || !unit.systems[order.fire_control].operational()
                || scratch.nova.contains(&order.unit)
            {
                continue;
            }
            let Some(&weapon) = order
                .weapons
                .iter()
                .find(|&&w| matches!(unit.systems[w].kind, SystemKind::NovaCannon) && unit.systems[w].operational())
            else {
                continue;
            };
            scratch.nova.push(order.unit);
            battle.units[order.unit].screens_down = true;
            if S::RECORDS {
                sink.event(Event::NovaArmed {
                    unit: order.unit,
                    weapon,
                    formation: f,
                });
            }
        }
    }
}

/// Speed points Formation `f` brings to its pair with `other`: all for the
/// primary target, one fewer for a secondary one or an unplotted pair
/// (which counts as a secondary Maintain; fm-readings 1-2).
fn move_against(vp: &VolleyPlot, speed_points: u32, other: FormationId) -> (Maneuver, u32) {
    match vp.primary {
        Some(ManeuverOrder { target, maneuver }) if target == other => (maneuver, speed_points),
        _ => {
            let maneuver = vp
                .secondary
                .iter()
                .find(|m| m.target == other)
                .map_or(Maneuver::Maintain, |m| m.maneuver);
            (maneuver, speed_points.saturating_sub(1))
        }
    }
}

/// The range after one pair's maneuvers (fm-readings 3): close, then
/// withdraw, then maintain back toward the start, never past it.
/// Returns the range after each step.
pub fn pair_range(start: u32, a: (Maneuver, u32), b: (Maneuver, u32)) -> (u32, u32, u32) {
    let sum = |m: Maneuver| [a, b].iter().filter(|(x, _)| *x == m).map(|(_, p)| p * 3).sum::<u32>();
    let after_close = (i64::from(start) - i64::from(sum(Maneuver::Close))).unsigned_abs() as u32;
    let after_withdraw = after_close + sum(Maneuver::Withdraw);
    let maintain = sum(Maneuver::Maintain);
    let end = if after_withdraw > start {
        after_withdraw.saturating_sub(maintain).max(start)
    } else {
        (after_withdraw + maintain).min(start)
    };
    (after_close, after_withdraw, end)
}

fn maneuver<S: Sink>(
    battle: &mut Battle,
    plot: &ExchangePlot,
    volley: u8,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    let nf = battle.formations.len();
    for f in 0..nf {
        if !battle.formation_active(f) {
            continue;
        }
        let vp = volley_plot(plot, f, volley);
        let thrust = battle.formation_thrust(f);
        let unplotted = plot.formations.get(f).is_none_or(Option::is_none);
        // An unplotted Formation puts all its thrust into Speed.
        let (mut speed, mut evasion) = if unplotted { (thrust, 0) } else { (vp.speed, vp.evasion) };
        // A carrier launching or recovering keeps its drive off: no Speed
        // (reading F15).
        let no_speed = scratch.craft.any && scratch.craft.no_speed[f];
        // A ship firing its nova cannon has no thrust at all (reading W63).
        let no_thrust = scratch.nova.iter().any(|&u| battle.units[u].formation == f);
        if speed + evasion > thrust {
            // Cut Speed first, then Evasion (fm-readings 8); Evasion may then
            // be at most half the new thrust (all of it with advanced
            // drives), the rest goes back to Speed.
            let cut = speed + evasion - thrust;
            let from_speed = cut.min(speed);
            speed -= from_speed;
            evasion -= cut - from_speed;
            let cap = battle.evasion_cap(f, thrust);
            if evasion > cap {
                speed += evasion - cap;
                evasion = cap;
            }
            if S::RECORDS {
                sink.event(Event::PlotCut {
                    formation: f,
                    thrust,
                    speed,
                    evasion,
                });
            }
        }
        if no_speed || no_thrust {
            speed = 0;
        }
        if no_thrust {
            evasion = 0;
        }
        let mut tap = Tap::new(sink);
        let sp = successes(dice, &mut tap, speed, Purpose::Speed);
        let speed_dice = tap.take();
        let ep = successes(dice, &mut tap, evasion, Purpose::Evasion);
        let evasion_dice = tap.take();
        scratch.speed_points[f] = sp;
        scratch.evasion_points[f] = ep;
        if S::RECORDS {
            sink.event(Event::Pools {
                formation: f,
                thrust,
                speed_dice,
                speed_points: sp,
                evasion_dice,
                evasion_points: ep,
            });
        }
    }
    for a in 0..nf {
        for b in a + 1..nf {
            if !battle.formation_active(a) || !battle.formation_active(b) {
                continue;
            }
            let start = battle.ranges.get(a, b);
            let am = move_against(volley_plot(plot, a, volley), scratch.speed_points[a], b);
            let bm = move_against(volley_plot(plot, b, volley), scratch.speed_points[b], a);
            let (after_close, after_withdraw, end) = pair_range(start, am, bm);
            battle.ranges.set(a, b, end);
            if S::RECORDS {
                sink.event(Event::RangeChanged {
                    a,
                    b,
                    start,
                    a_move: Some(am),
                    b_move: Some(bm),
                    after_close,
                    after_withdraw,
                    end,
                });
            }
        }
    }
}

/// Percentile bands of a Formation (fm-readings 10-11): shares by mass,
/// largest Unit first (ties in Unit order), each plotted shift moved to or
/// from the other Units in proportion to their shares, no Unit below 1 %,
/// upper bounds the cumulative share rounded to the nearest percentile.
/// Shares are kept in thousandths of a percentile, in integers.
pub fn targeting_bands(battle: &Battle, f: FormationId, shifts: &[(UnitId, i32)], out: &mut Vec<(UnitId, u8)>) {
    let mut ranks: Vec<UnitId> = Vec::new();
    let mut shares: Vec<i64> = Vec::new();
    bands_into(battle, f, shifts, out, &mut ranks, &mut shares);
}

fn bands_into(
    battle: &Battle,
    f: FormationId,
    shifts: &[(UnitId, i32)],
    out: &mut Vec<(UnitId, u8)>,
    ranks: &mut Vec<UnitId>,
    shares: &mut Vec<i64>,
) {
    const UNIT: i64 = 1000;
    out.clear();
    ranks.clear();
    ranks.extend(
        battle.formations[f]
            .units
            .iter()
            .copied()
            .filter(|u| battle.units[*u].active() && !battle.units[*u].is_craft()),
    );
    ranks.sort_by(|a, b| battle.units[*b].mass.cmp(&battle.units[*a].mass).then(a.cmp(b)));
    let n = ranks.len();
    if n == 0 {
        return;
    }
    let total: i64 = ranks.iter().map(|u| i64::from(battle.units[*u].mass.max(1))).sum();
    shares.clear();
    shares.extend(
        ranks
            .iter()
            .map(|u| 100 * UNIT * i64::from(battle.units[*u].mass.max(1)) / total),
    );
    for (unit, shift) in shifts {
        let Some(i) = ranks.iter().position(|u| u == unit) else {
            continue;
        };
        let delta = i64::from(*shift) * UNIT;
        let others: i64 = (0..n).filter(|j| *j != i).map(|j| shares[j]).sum();
        if others <= 0 {
            continue;
        }
        let mut moved = 0;
        for (j, share) in shares.iter_mut().enumerate() {
            if j != i {
                let part = delta * *share / others;
                *share -= part;
                moved += part;
            }
        }
        shares[i] += moved;
    }
    // The 1 % floor: lift small shares, taking the points from the largest.
    for i in 0..n {
        if shares[i] < UNIT {
            let need = UNIT - shares[i];
            shares[i] = UNIT;
            let largest = (0..n).max_by_key(|j| (shares[*j], std::cmp::Reverse(*j))).unwrap_or(0);
            shares[largest] -= need;
        }
    }
    let sum: i64 = shares.iter().sum();
    let mut cum = 0i64;
    let mut prev = 0u8;
    for (k, unit) in ranks.iter().enumerate() {
        cum += shares[k];
        let remaining = (n - k - 1) as i64;
        let upper = if k + 1 == n {
            100
        } else {
            // Nearest percentile of the cumulative share (scaled to 100).
            let exact = cum * 100 * UNIT / sum.max(1);
            let rounded = (exact + UNIT / 2) / UNIT;
            rounded.clamp(i64::from(prev) + 1, 100 - remaining)
        };
        prev = upper as u8;
        out.push((*unit, prev));
    }
}

/// The `weapon` of a missile gunboat's salvo (readings F45): a missile
/// threat from a group, which has no systems.
pub const GUNBOAT_SALVO: SystemId = SystemId::MAX - 1;
/// The `weapon` of a PDS gunboat squadron's point defence (readings F46).
pub const GUNBOAT_PDS: SystemId = SystemId::MAX - 2;

/// AA MegaBattery dice (FT2/More Thrust): 4 to 18 MU, 3 to 36, 2 to 54.
pub fn mega_battery_dice(range: u32) -> u32 {
    match super::tables::range_band(range, 18) {
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

fn fire<S: Sink>(
    battle: &mut Battle,
    plot: &ExchangePlot,
    volley: u8,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    scratch.shots.clear();
    scratch.fired.clear();
    super::reflex::raise_fields(battle, plot, volley, sink, scratch);
    for f in 0..battle.formations.len() {
        if battle.formations[f].reserve != Reserve::InCombat {
            continue; // off-board: no fire (the orders layer refuses such plots)
        }
        let vp = volley_plot(plot, f, volley);
        note_plotted(vp, scratch);
        for order in &vp.fire {
            let Some(target_f) = order.target else {
                if S::RECORDS {
                    sink.event(Event::FireControlIdle {
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
                    sink.event(Event::FireControlIdle {
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
                super::craft::fire_at_group(battle, order, g, range, evasion, dice, sink, scratch);
                continue;
            }
            let defender = volley_plot(plot, target_f, volley);
            let mut bands = std::mem::take(&mut scratch.bands);
            bands_into(
                battle,
                target_f,
                &defender.shifts,
                &mut bands,
                &mut scratch.ranks,
                &mut scratch.shares,
            );
            if bands.is_empty() {
                // Small craft only: they are engaged by name (reading F1).
                scratch.bands = bands;
                if S::RECORDS {
                    sink.event(Event::FireControlIdle {
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
                sink.event(Event::Acquired {
                    unit: order.unit,
                    fire_control: order.fire_control,
                    formation: target_f,
                    bands: bands.clone(),
                    roll,
                    target,
                });
            }
            scratch.bands = bands;
            let range = battle.ranges.get(f, target_f);
            let evasion = scratch.evasion_points[target_f];
            for &w in &order.weapons {
                fire_weapon(battle, order, w, target, range, evasion, dice, sink, scratch);
            }
        }
    }
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
        sink.event(Event::BeamAttack {
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

/// A pulse torpedo (ft-rules §4.2): the to-hit die on its variant's
/// projectile table with the Evasion DRM, then the damage die, semi-armour-
/// piercing, less the target's advanced screen level.
#[allow(clippy::too_many_arguments)]
fn torpedo_attack<S: Sink>(
    battle: &mut Battle,
    u: UnitId,
    w: SystemId,
    target: UnitId,
    range: u32,
    variant: TorpedoRange,
    drm: i32,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    let width = torpedo_band(variant);
    let Some(needed) = super::tables::projectile_needed(range, width) else {
        out_of_range(sink, scratch, u, w, "out of range");
        return;
    };
    scratch.note_use(u, w, WeaponUse::FIRED);
    let face = dice.roll_d6(sink, Purpose::ToHit, Pile::Initial);
    let hit = super::tables::projectile_hits(face, needed, drm);
    let damage = hit.then(|| dice.roll_d6(sink, Purpose::Damage, Pile::Initial));
    if let Some(d) = damage {
        // Semi-armour-piercing; standard screens do not stop
        // torpedoes, advanced ones take their level off (W42).
        let points = u32::from(d).saturating_sub(u32::from(battle.units[target].advanced_screen_level()));
        scratch.sap.push((target, points));
        scratch.deal(battle.units[u].side, DamageKind::Torpedo, points);
    }
    if S::RECORDS {
        sink.event(Event::TorpedoAttack {
            unit: u,
            weapon: w,
            target,
            range,
            needed,
            drm,
            face,
            hit,
            damage,
        });
    }
}

/// A salvo launcher draws a load from its magazine and launches it.
#[allow(clippy::too_many_arguments)]
fn salvo_launch<S: Sink>(
    battle: &mut Battle,
    u: UnitId,
    w: SystemId,
    target: UnitId,
    range: u32,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    let Some(m) = battle.units[u].systems[w].magazine else {
        stopped(sink, scratch, u, w, "no magazine");
        return;
    };
    let er = battle.units[u].systems[w].er;
    let magazine = &mut battle.units[u].systems[m];
    if magazine.state != SysState::Operational {
        stopped(sink, scratch, u, w, "its magazine is lost");
        return;
    }
    if !magazine.spend() {
        stopped(sink, scratch, u, w, "its magazine is empty");
        return;
    }
    launch(u, w, target, range, missile_range(er), false, sink, scratch);
}

/// A salvo rack or heavy missile, fired once, launches.
#[allow(clippy::too_many_arguments)]
fn rack_launch<S: Sink>(
    battle: &mut Battle,
    u: UnitId,
    w: SystemId,
    kind: &SystemKind,
    target: UnitId,
    range: u32,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    let heavy = matches!(kind, SystemKind::Missile { .. });
    let sys = &mut battle.units[u].systems[w];
    let er = sys.er;
    if !sys.spend() {
        stopped(sink, scratch, u, w, "already fired");
        return;
    }
    launch(u, w, target, range, missile_range(er), heavy, sink, scratch);
}

/// One weapon's shot at the Unit its Fire Control acquired (needle beams:
/// at their own target).
#[allow(clippy::too_many_arguments)]
fn fire_weapon<S: Sink>(
    battle: &mut Battle,
    order: &super::plot::FireOrder,
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
    let nova = matches!(sys.kind, SystemKind::NovaCannon);
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
    if !matches!(kind, SystemKind::Pds | SystemKind::Adaf) {
        scratch.fired.push((u, w));
    }
    // One-shot packs and pods are spent when fired, in range or not
    // (fm-readings 15).
    let one_shot = matches!(
        kind,
        SystemKind::SubmunitionPack | SystemKind::Mkp | SystemKind::RocketPod | SystemKind::AntimatterMissile
    );
    if one_shot && !battle.units[u].systems[w].spend() {
        stopped(sink, scratch, u, w, "already fired");
        return None;
    }
    Some((kind, drm))
}

/// The attack of a weapon that fires, by its kind (a dispatch table).
#[allow(clippy::too_many_arguments)]
fn weapon_attack<S: Sink>(
    battle: &mut Battle,
    order: &super::plot::FireOrder,
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
        SystemKind::Graser { .. }
        | SystemKind::Phaser { .. }
        | SystemKind::HeavyGraser { .. }
        | SystemKind::HighIntensityGraser { .. } => {
            let n = beam_family_dice(&kind, range);
            graser_attack(battle, u, w, target, range, n, drm, dice, sink, scratch);
        }
        SystemKind::PlasmaCannon { .. } => {
            let n = beam_family_dice(&kind, range);
            plasma_attack(battle, u, w, target, range, n, drm, dice, sink, scratch);
        }
        SystemKind::WaveGun => wave_gun(battle, u, w, target, range, drm, dice, sink, scratch),
        SystemKind::NovaCannon => nova_cannon(battle, u, w, target, range, drm, dice, sink, scratch),
        SystemKind::FusionArray => fusion_array_attack(battle, u, w, target, range, drm, dice, sink, scratch),
        SystemKind::EmpProjector { .. } => {
            let n = beam_family_dice(&kind, range);
            emp_attack(battle, u, w, target, range, n, drm, dice, sink, scratch);
        }
        SystemKind::Pulser { setting } => {
            let setting = setting.unwrap_or_else(|| settle_pulser(battle, u, w, range, sink));
            let n = super::tables::pulser_dice(setting, range);
            beam_like(battle, u, w, target, range, n, drm, true, true, dice, sink, scratch);
        }
        SystemKind::GatlingBattery | SystemKind::TwinParticleArray | SystemKind::MesonProjector => {
            let n = beam_family_dice(&kind, range);
            beam_like(battle, u, w, target, range, n, drm, true, true, dice, sink, scratch);
        }
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
            sink.event(Event::BurnOut { unit: u, weapon: w });
        }
    }
}

/// Whether a weapon rolling `n` dice at this range fires: noted as fired
/// when it does, reported idle (`why`) when it rolls none.
fn rolls<S: Sink>(sink: &mut S, scratch: &mut Scratch, u: UnitId, w: SystemId, n: u32, why: &'static str) -> bool {
    if n == 0 {
        out_of_range(sink, scratch, u, w, why);
        return false;
    }
    scratch.note_use(u, w, WeaponUse::FIRED);
    true
}

/// A kinetic gun's shot (ft-rules §4.6, FTC §5.16): the to-hit die on the
/// projectile table of its variant, then, on a hit, the doubling die: the
/// class in armour-piercing points, doubled on a roll at or under the class
/// (a 6 never doubles). Standard screens do not stop it; the doubling die
/// takes no Evasion DRM.
#[allow(clippy::too_many_arguments)]
fn k_gun_attack<S: Sink>(
    battle: &mut Battle,
    u: UnitId,
    w: SystemId,
    target: UnitId,
    range: u32,
    class: u8,
    variant: TorpedoRange,
    drm: i32,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    let Some(needed) = super::tables::projectile_needed(range, torpedo_band(variant)) else {
        out_of_range(sink, scratch, u, w, "out of range");
        return;
    };
    scratch.note_use(u, w, WeaponUse::FIRED);
    let face = dice.roll_d6(sink, Purpose::ToHit, Pile::Initial);
    let hit = super::tables::projectile_hits(face, needed, drm);
    let doubling = hit.then(|| dice.roll_d6(sink, Purpose::Damage, Pile::Initial));
    // Advanced screens lower the doubling number by their level (W19).
    let advanced = battle.units[target].advanced_screen_level();
    let damage = doubling.map_or(0, |d| super::tables::k_gun_damage(class, d, advanced));
    if damage > 0 {
        scratch.ap.push((target, damage));
        scratch.deal(battle.units[u].side, DamageKind::Kinetic, damage);
    }
    if S::RECORDS {
        sink.event(Event::KGunAttack {
            unit: u,
            weapon: w,
            target,
            range,
            needed,
            drm,
            face,
            hit,
            doubling,
            damage,
        });
    }
}

/// A plasma bolt (ft-rules §4.6, FTC §6.8; readings W35-W37): to
/// [`PLASMA_BOLT_RANGE`], it bursts on the acquired Unit, or with the
/// `plasma_bolt_formation` switch on every ship of that Unit's Formation;
/// each Unit it touches takes one d6 per class, each die less one per
/// screen level and less the Evasion DRM (not below 0), as normal damage
/// (armour first). It then recharges through the next Volley.
#[allow(clippy::too_many_arguments)]
fn plasma_bolt<S: Sink>(
    battle: &mut Battle,
    u: UnitId,
    w: SystemId,
    target: UnitId,
    range: u32,
    class: u8,
    drm: i32,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    if range > super::tables::PLASMA_BOLT_RANGE {
        out_of_range(sink, scratch, u, w, "out of range");
        return;
    }
    scratch.note_use(u, w, WeaponUse::FIRED);
    scratch.bolts_now.push((u, w));
    let side = battle.units[u].side;
    for t in 0..battle.units.len() {
        if !touches(battle, t, target, battle.rules.plasma_bolt_formation) {
            continue;
        }
        let screen = battle.screen_met(u, t);
        let mut faces = Vec::new();
        let mut damage = 0;
        for _ in 0..class {
            let face = dice.roll_d6(sink, Purpose::Damage, Pile::Initial);
            damage += super::tables::plasma_bolt_points(face, screen, drm);
            if S::RECORDS {
                faces.push(face);
            }
        }
        scratch.pending[t].0 += damage;
        scratch.deal(side, DamageKind::PlasmaBolt, damage);
        if S::RECORDS {
            sink.event(Event::PlasmaBoltAttack {
                unit: u,
                weapon: w,
                target: t,
                range,
                screen,
                drm,
                faces,
                damage,
            });
        }
    }
}

/// A rocket pod's one shot (ft-rules §4.6, FTC §6.7; readings W50-W52):
/// each of its two rockets rolls to hit, 2+ to 6 MU, 3+ to 12, 4+ to 18,
/// the Evasion DRM on each die as for projectiles; the rockets that hit
/// wait for point defence as a salvo's missiles on target do. Beyond 18 MU
/// the pod is spent and nothing rolls.
#[allow(clippy::too_many_arguments)]
fn rocket_pod<S: Sink>(
    u: UnitId,
    w: SystemId,
    target: UnitId,
    range: u32,
    drm: i32,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    let needed = super::tables::rocket_needed(range);
    let mut faces = Vec::new();
    let mut hits = 0;
    match needed {
        None => scratch.note_use(u, w, WeaponUse::OUT_OF_RANGE),
        Some(n) => {
            scratch.note_use(u, w, WeaponUse::FIRED);
            for _ in 0..super::tables::ROCKETS_PER_POD {
                let face = dice.roll_d6(sink, Purpose::ToHit, Pile::Initial);
                hits += u32::from(super::tables::projectile_hits(face, n, drm));
                if S::RECORDS {
                    faces.push(face);
                }
            }
        }
    }
    if hits > 0 {
        scratch.shots.push(MissileShot {
            unit: u,
            weapon: w,
            target,
            heavy: false,
            on_target: hits,
            killed: 0,
            payload: Payload::Rockets,
        });
    }
    if S::RECORDS {
        sink.event(Event::RocketAttack {
            unit: u,
            weapon: w,
            target,
            range,
            needed,
            drm,
            faces,
            hits,
        });
    }
}

/// An antimatter missile leaves its rack (ft-rules §4.6, FTC §6.6;
/// readings W53): to [`super::tables::ANTIMATTER_RANGE_MU`] it reaches the
/// acquired Unit with its three damage dice and waits for point defence;
/// beyond, it is spent and lost.
fn antimatter_launch<S: Sink>(u: UnitId, w: SystemId, target: UnitId, range: u32, sink: &mut S, scratch: &mut Scratch) {
    let max_range = super::tables::ANTIMATTER_RANGE_MU;
    let wasted = (range > max_range).then_some("out of range: the ordnance is spent and lost");
    if S::RECORDS {
        sink.event(Event::Launch {
            unit: u,
            weapon: w,
            target,
            range,
            max_range,
            wasted,
        });
    }
    if wasted.is_some() {
        scratch.note_use(u, w, WeaponUse::OUT_OF_RANGE);
        return;
    }
    scratch.note_use(u, w, WeaponUse::FIRED);
    scratch.shots.push(MissileShot {
        unit: u,
        weapon: w,
        target,
        heavy: false,
        on_target: super::tables::ANTIMATTER_DICE,
        killed: 0,
        payload: Payload::Antimatter,
    });
}

/// A boarding torpedo (ft-rules §4.6, FTC §5.18; readings W56): one die
/// on the standard projectile table with the Evasion DRM; a hit is one
/// hull point that bypasses all armour. The two marines it lands are not
/// played (fam has no boarding).
#[allow(clippy::too_many_arguments)]
fn boarding_torpedo<S: Sink>(
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
    let Some(needed) = super::tables::projectile_needed(range, super::tables::PROJECTILE_STANDARD_MU) else {
        out_of_range(sink, scratch, u, w, "out of range");
        return;
    };
    scratch.note_use(u, w, WeaponUse::FIRED);
    let face = dice.roll_d6(sink, Purpose::ToHit, Pile::Initial);
    let hit = super::tables::projectile_hits(face, needed, drm);
    if hit {
        scratch.hull_hits.push((target, 1));
        scratch.deal(battle.units[u].side, DamageKind::BoardingTorpedo, 1);
    }
    if S::RECORDS {
        sink.event(Event::BoardingTorpedoAttack {
            unit: u,
            weapon: w,
            target,
            range,
            needed,
            drm,
            face,
            hit,
        });
    }
}

/// An MKP's one shot (FTC §5.17): to 12 MU, one die needing 4+ (Evasion
/// DRM applies); a natural 6 that hits is two hits; each hit 4
/// armour-piercing points. Screens do not stop it.
#[allow(clippy::too_many_arguments)]
fn mkp_attack<S: Sink>(
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
    use super::tables::{MKP_HIT_POINTS, MKP_RANGE_MU, mkp_hits};
    let in_range = range <= MKP_RANGE_MU;
    if !in_range {
        scratch.note_use(u, w, WeaponUse::OUT_OF_RANGE);
    } else {
        scratch.note_use(u, w, WeaponUse::FIRED);
    }
    let face = in_range.then(|| dice.roll_d6(sink, Purpose::ToHit, Pile::Initial));
    let hits = face.map_or(0, |f| mkp_hits(f, drm));
    for _ in 0..hits {
        scratch.ap.push((target, MKP_HIT_POINTS));
    }
    scratch.deal(battle.units[u].side, DamageKind::Kinetic, hits * MKP_HIT_POINTS);
    if S::RECORDS {
        sink.event(Event::MkpAttack {
            unit: u,
            weapon: w,
            target,
            range,
            drm,
            face,
            hits,
        });
    }
}

/// Sets a Pulser the record left open for the rest of the battle, as the
/// default commander would for the range it first fires at
/// ([`super::tables::pulser_setting`], reading W26).
fn settle_pulser<S: Sink>(battle: &mut Battle, u: UnitId, w: SystemId, range: u32, sink: &mut S) -> PulserSetting {
    let setting = super::tables::pulser_setting(range);
    battle.units[u].systems[w].kind = SystemKind::Pulser { setting: Some(setting) };
    if S::RECORDS {
        sink.event(Event::PulserSet {
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
fn graser_attack<S: Sink>(
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
    let heavy = matches!(battle.units[u].systems[w].kind, SystemKind::HeavyGraser { .. });
    // A high-intensity graser: a heavy graser whose 6s reroll (W58).
    let intense = matches!(battle.units[u].systems[w].kind, SystemKind::HighIntensityGraser { .. });
    let screen = battle.screen_met(u, target);
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
        sink.event(Event::GraserAttack {
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
    super::reflex::reflex_hit(battle, u, w, target, &mut result, dice, sink, scratch);
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

/// An EMP projector's shot (ft-rules §4.5, FTC §5.4, readings W43-W46):
/// `n` beam dice with the Evasion DRM, natural 6s rerolling, read against
/// the target's advanced screens only; every point scored is a hit. No
/// damage: the shot's hits wait in `Scratch::emp` for the threshold step.
#[allow(clippy::too_many_arguments)]
fn emp_attack<S: Sink>(
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
    let screen = if battle.rules.emp_advanced_screens {
        battle.units[target].advanced_screen_level()
    } else {
        0
    };
    let mut tap = Tap::new(sink);
    let result = beam_attack(
        dice,
        &mut tap,
        BeamAttack {
            dice: n,
            drm,
            screen,
            penetrating: true,
        },
    );
    let faces = tap.take();
    let reroll_faces = std::mem::take(&mut tap.rerolls);
    let hits = result.total();
    if hits > 0 {
        scratch.emp.push((u, w, target, hits));
    }
    if S::RECORDS {
        sink.event(Event::EmpAttack {
            unit: u,
            weapon: w,
            target,
            range,
            dice: n,
            drm,
            screen,
            faces,
            reroll_faces,
            hits,
        });
    }
}

/// The number an EMP threshold test must reach for a shot of `hits` hits
/// (ft-rules §4.5): 6 for one, 5 for two, 4 for three or more.
pub fn emp_needed(hits: u32) -> u8 {
    match hits {
        0 | 1 => 6,
        2 => 5,
        _ => 4,
    }
}

/// Rank of a system of `unit` as the target of an EMP test, lowest first,
/// or `None` when EMP cannot test it (working systems only; reading O35,
/// docs/doctrine.md): Fire Controls while the Unit has a weapon, screens,
/// weapons (most dice first), the drive (`None` system), fields and cloaks,
/// ECM and area-defence fire control, FTL, and Fire Controls of an unarmed
/// Unit last.
pub fn emp_rank(unit: &Unit, system: Option<SystemId>) -> Option<(u32, u32)> {
    use SystemKind::*;
    let Some(s) = system else {
        return (unit.thrust > 0 && unit.drive_hits < 2).then_some((3, 0));
    };
    let sys = &unit.systems[s];
    if !sys.operational() || (is_one_shot(&sys.kind) && sys.rounds_left() == 0) {
        return None;
    }
    let armed = || {
        unit.systems.iter().any(|x| {
            x.kind.is_weapon() && x.state != SysState::Destroyed && !(is_one_shot(&x.kind) && x.rounds_left() == 0)
        })
    };
    Some(match &sys.kind {
        FireControl if armed() => (0, 0),
        ScreenGenerator | AdvancedScreen | VapourShroud => (1, 0),
        k if k.is_weapon() => (2, 10 - emp_weapon_weight(k).min(10)),
        ReflexField | CloakingField => (4, 0),
        IndividualEcm | AreaEcm | Adfc => (5, 0),
        Ftl => (6, 0),
        FireControl => (7, 0),
        _ => return None,
    })
}

/// How much of a Unit's fire a weapon is, for the EMP priority: its class
/// where it has one (Gatling batteries 6 dice, twin particle arrays 2),
/// else 1.
fn emp_weapon_weight(kind: &SystemKind) -> u32 {
    use SystemKind::*;
    match *kind {
        Beam { class }
        | KGun { class, .. }
        | PlasmaBolt { class }
        | Graser { class }
        | HeavyGraser { class }
        | Phaser { class }
        | PlasmaCannon { class }
        | EmpProjector { class } => u32::from(class),
        GatlingBattery => 6,
        TwinParticleArray => 2,
        _ => 1,
    }
}

/// The system (`None`: the drive) after the one of key `after` in EMP
/// order, with its key: rank, then record order (the drive first).
fn next_emp_system(unit: &Unit, after: Option<(u32, u32, usize)>) -> Option<(Option<SystemId>, (u32, u32, usize))> {
    std::iter::once(None)
        .chain((0..unit.systems.len()).map(Some))
        .filter_map(|s| emp_rank(unit, s).map(|(a, b)| (s, (a, b, s.map_or(0, |s| s + 1)))))
        .filter(|(_, key)| after.is_none_or(|k| *key > k))
        .min_by_key(|(_, key)| *key)
}

/// The threshold tests of one EMP shot (firing Unit, weapon, target, hits;
/// readings W44-W46): one test per hit, each on another system in
/// [`emp_rank`] order (a shot with more hits than such systems wastes the
/// rest), at [`emp_needed`] with +1 per hull row the target lost this
/// Volley. A system that fails is damaged (damage control may repair it);
/// a drive that fails takes a drive hit.
fn emp_tests<S: Sink>(
    battle: &mut Battle,
    (u, w, target, hits): (UnitId, SystemId, UnitId, u32),
    rows_this_volley: &[u32],
    dice: &mut Dice,
    sink: &mut S,
) {
    let unit = &mut battle.units[target];
    if !unit.active() {
        return;
    }
    let needed = emp_needed(hits);
    let modifier = i32::try_from(rows_this_volley[target]).unwrap_or(i32::MAX);
    // The systems follow one another in [`emp_rank`] order; no test
    // changes the rank of a system not yet tested, so this is the order the
    // attacker assigns them in before rolling.
    let mut after = None;
    for _ in 0..hits {
        let Some((system, key)) = next_emp_system(unit, after) else {
            break;
        };
        after = Some(key);
        let face = dice.roll_d6(sink, Purpose::Threshold, Pile::Initial);
        let lost = i32::from(face).saturating_add(modifier) >= i32::from(needed);
        if lost {
            match system {
                Some(s) => unit.systems[s].state = SysState::Damaged,
                None => {
                    unit.drive_hits += 1;
                    unit.drive_damaged = true;
                    unit.thrust = drive_thrust(unit.original_thrust, unit.drive_hits);
                }
            }
        }
        if S::RECORDS {
            sink.event(Event::EmpTest {
                unit: u,
                weapon: w,
                target,
                system,
                face,
                modifier,
                needed,
                lost,
            });
            if lost && system.is_none() {
                sink.event(Event::DriveHit {
                    unit: target,
                    thrust: unit.thrust,
                });
            }
        }
    }
}

/// Whether an area weapon aimed at Unit `target` touches Unit `t`: the
/// target only, or with its Formation switch on (`formation_wide`, readings
/// W37, W59, W64) every ship in the fight of the target's Formation.
fn touches(battle: &Battle, t: UnitId, target: UnitId, formation_wide: bool) -> bool {
    if !formation_wide {
        return t == target;
    }
    let unit = &battle.units[t];
    unit.formation == battle.units[target].formation && unit.active() && !unit.is_craft()
}

/// A wave gun (ft-rules §4.5, FTC §7.24; reading W59). Below a charge of
/// 6 it charges: one d6 added, and no shot that Volley. Charged, it fires
/// at a target within [`super::tables::WAVE_GUN_RANGE`] (beyond, it holds
/// its charge): the acquired Unit, or with `wave_gun_formation` every ship
/// of its Formation, takes 4, 3 or 2 d6 by 12 MU band, each less its
/// advanced screen level and the Evasion DRM, straight to the hull; the
/// charge is spent.
#[allow(clippy::too_many_arguments)]
fn wave_gun<S: Sink>(
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
    use super::tables::{WAVE_GUN_CHARGE, wave_gun_dice, wave_gun_points};
    let at = scratch.wave_charge.iter().position(|&(x, y, _)| (x, y) == (u, w));
    let charge = at.map_or(0, |i| scratch.wave_charge[i].2);
    if charge < WAVE_GUN_CHARGE {
        // A charging Volley is the weapon's use (it rolls its die).
        scratch.note_use(u, w, WeaponUse::FIRED);
        let face = dice.roll_d6(sink, Purpose::Damage, Pile::Initial);
        let charge = charge + u32::from(face);
        match at {
            Some(i) => scratch.wave_charge[i].2 = charge,
            None => scratch.wave_charge.push((u, w, charge)),
        }
        if S::RECORDS {
            sink.event(Event::WaveGunCharge {
                unit: u,
                weapon: w,
                face,
                charge,
            });
        }
        return;
    }
    let n = wave_gun_dice(range);
    if !rolls(sink, scratch, u, w, n, "out of range (it holds its charge)") {
        return;
    }
    if let Some(i) = at {
        scratch.wave_charge.swap_remove(i);
    }
    let side = battle.units[u].side;
    for t in 0..battle.units.len() {
        if !touches(battle, t, target, battle.rules.wave_gun_formation) {
            continue;
        }
        let screen = battle.units[t].advanced_screen_level();
        let mut faces = Vec::new();
        let mut damage = 0;
        for _ in 0..n {
            let face = dice.roll_d6(sink, Purpose::Damage, Pile::Initial);
            damage += wave_gun_points(face, screen, drm);
            if S::RECORDS {
                faces.push(face);
            }
        }
        scratch.hull.push((t, damage));
        scratch.deal(side, DamageKind::WaveGun, damage);
        if S::RECORDS {
            sink.event(Event::WaveGunAttack {
                unit: u,
                weapon: w,
                target: t,
                range,
                screen,
                drm,
                faces,
                damage,
            });
        }
    }
}

/// A nova cannon's blast (ft-rules §4.5, FTC §7.23; reading W63): the
/// acquired Unit, or with `nova_cannon_formation` every ship of its
/// Formation, takes 6, 4 or 2 d6 by the blast turn that reaches the
/// range, each less the Evasion DRM, straight to the hull; no screen or
/// armour stops it.
#[allow(clippy::too_many_arguments)]
fn nova_cannon<S: Sink>(
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
    use super::tables::{nova_dice, nova_points};
    let n = nova_dice(range);
    if !rolls(sink, scratch, u, w, n, "out of range") {
        return;
    }
    let side = battle.units[u].side;
    for t in 0..battle.units.len() {
        if !touches(battle, t, target, battle.rules.nova_cannon_formation) {
            continue;
        }
        let mut faces = Vec::new();
        let mut damage = 0;
        for _ in 0..n {
            let face = dice.roll_d6(sink, Purpose::Damage, Pile::Initial);
            damage += nova_points(face, drm);
            if S::RECORDS {
                faces.push(face);
            }
        }
        scratch.hull.push((t, damage));
        scratch.deal(side, DamageKind::NovaCannon, damage);
        if S::RECORDS {
            sink.event(Event::NovaCannonAttack {
                unit: u,
                weapon: w,
                target: t,
                range,
                drm,
                faces,
                damage,
            });
        }
    }
}

/// After the threshold checks: a wave gun knocked out (damaged or
/// destroyed) while it holds a charge lets the charge go into its own
/// ship's hull (ft-rules §4.5, §7.2; reading W59), which may complete
/// rows and call for threshold checks at once.
fn wave_gun_backlash<S: Sink>(battle: &mut Battle, dice: &mut Dice, sink: &mut S, scratch: &mut Scratch) {
    let mut i = 0;
    while i < scratch.wave_charge.len() {
        let (u, w, charge) = scratch.wave_charge[i];
        let unit = &battle.units[u];
        if !unit.active() || unit.systems[w].operational() {
            i += 1;
            continue;
        }
        scratch.wave_charge.swap_remove(i);
        let (_, hull, rows, _) = hull_damage(&mut battle.units[u], charge, 0);
        let destroyed = battle.units[u].destroyed;
        if S::RECORDS {
            sink.event(Event::WaveGunBacklash {
                unit: u,
                weapon: w,
                charge,
                hull,
                destroyed,
            });
            if destroyed {
                sink.event(Event::Destroyed {
                    unit: u,
                    cause: "wave gun backlash",
                });
            }
        }
        if rows > 0 && !destroyed {
            threshold_check(battle, u, rows, dice, sink);
        }
    }
}

/// A fusion array (ft-rules §4.6, FTC §5.19; reading W57): in the mode
/// better at the range, one to-hit die with the Evasion DRM; a hit rolls
/// the mode's beam dice (no DRM) against the target's advanced screen
/// only, natural 6s rerolling into penetrating damage as beams do.
#[allow(clippy::too_many_arguments)]
fn fusion_array_attack<S: Sink>(
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
    use super::tables::{apply_drm, fusion_array_mode, fusion_array_shot};
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
        sink.event(Event::FusionArrayAttack {
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
    super::reflex::reflex_hit(battle, u, w, target, &mut result, dice, sink, scratch);
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
fn plasma_attack<S: Sink>(
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
    use super::tables::{apply_drm, plasma_hits};
    if !rolls(sink, scratch, u, w, n, "out of range") {
        return;
    }
    let screen = battle.screen_met(u, target);
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
        sink.event(Event::PlasmaAttack {
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
    super::reflex::reflex_hit(battle, u, w, target, &mut result, dice, sink, scratch);
    scratch.add_beam(target, &result);
    scratch.deal(battle.units[u].side, DamageKind::Beam, result.total());
}

/// Spends the ordnance a Fire Control was plotted to fire when its attack
/// cannot happen: racks, packs and magazine loads are gone all the same.
fn expend_ordnance<S: Sink>(battle: &mut Battle, order: &super::plot::FireOrder, sink: &mut S) {
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

#[allow(clippy::too_many_arguments)]
fn launch<S: Sink>(
    unit: UnitId,
    weapon: SystemId,
    target: UnitId,
    range: u32,
    max_range: u32,
    heavy: bool,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    let wasted = (range > max_range).then_some("out of range: the ordnance is spent and lost");
    if S::RECORDS {
        sink.event(Event::Launch {
            unit,
            weapon,
            target,
            range,
            max_range,
            wasted,
        });
    }
    if wasted.is_some() {
        scratch.note_use(unit, weapon, WeaponUse::OUT_OF_RANGE);
    } else {
        scratch.note_use(unit, weapon, WeaponUse::FIRED);
        scratch.shots.push(MissileShot {
            unit,
            weapon,
            target,
            heavy,
            on_target: u32::from(heavy),
            killed: 0,
            payload: Payload::Missiles,
        });
    }
}

/// A weapon read on the beam dice table: beams, submunitions, the AA
/// MegaBattery. `rerolls`: natural 6s grant penetrating rerolls (BD*).
/// `screened`: the target's standard screens count. Returns the natural
/// ones among the initial dice.
#[allow(clippy::too_many_arguments)]
fn beam_like<S: Sink>(
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
    let screen = if screened { battle.screen_met(u, target) } else { 0 };
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
    let kind = if matches!(battle.units[u].systems[w].kind, SystemKind::SubmunitionPack) {
        DamageKind::Submunition
    } else {
        DamageKind::Beam
    };
    if S::RECORDS {
        sink.event(Event::BeamAttack {
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
    super::reflex::reflex_hit(battle, u, w, target, &mut result, dice, sink, scratch);
    scratch.add_beam(target, &result);
    scratch.deal(battle.units[u].side, kind, result.normal + result.penetrating);
    ones
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
    needle: super::plot::NeedleOrder,
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
        sink.event(Event::NeedleAttack {
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
fn point_defence_and_missiles<S: Sink>(
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
    super::craft::intercept(battle, dice, sink, scratch, &mut evasion_left);
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
            if let Some(super::scratch::Shot::Run(ship)) = scratch.craft.fires_at[g]
                && battle.units[g].active()
            {
                let c = battle.units[g].craft.expect("a group");
                if c.kind == super::state::CraftKind::Gunboat(super::state::GunboatKind::Missile) {
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
                scratch.shots[i].on_target = u32::from(face).min(super::craft::GUNBOAT_SALVO_MISSILES);
            }
            if S::RECORDS {
                sink.event(Event::OnTarget {
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
            let emp1 = matches!(kind, SystemKind::EmpProjector { .. });
            let beam1 = matches!(kind, SystemKind::Beam { class: 1 }) || emp1;
            let scatter = matches!(kind, SystemKind::Scattergun);
            let formation = battle.units[pu].formation;
            // Against craft: heavy fighters take −1 from PDS (not from
            // class-1 beams, A35), light fighters +1 from every PD die (F40);
            // gunboats die only on a 6.
            let (gunboat, heavy_fighter, light_drm) = match battle.units[shot.unit].craft {
                Some(c) if !shot.is_missile() => match c.kind {
                    super::state::CraftKind::Gunboat(_) => (true, false, 0),
                    super::state::CraftKind::Fighter(t) => (false, t.heavy(), t.light_drm()),
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
                        table: super::craft::GUNBOAT_KILL,
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
                    _ if gunboat => super::craft::SIX_KILLS_ONE,
                    (false, false) => PdTable::PDS,
                    (false, true) => PdTable::PDS_VS_HEAVY,
                    (true, false) if emp1 => PdTable::BEAM1_PLAIN,
                    (true, false) => PdTable::BEAM1,
                    (true, true) => PdTable::BEAM1_VS_HEAVY,
                };
                // A K-1 fires as a PDS at −1, not further reduced against
                // heavy fighters (ft-rules §5.1, A35; readings W41).
                let k1 = matches!(kind, SystemKind::KGun { .. });
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
                sink.event(Event::PdRoll {
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
            super::craft::remove_craft(battle, shot.unit, shot.killed, "point defence", sink);
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
            sink.event(Event::MissileHits {
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
        let pds = c.kind == super::state::CraftKind::Gunboat(super::state::GunboatKind::Pds);
        if !pds || !battle.units[g].active() || c.cef == 0 || scratch.craft.fires_at[g].is_some() {
            continue;
        }
        let f = battle.units[g].formation;
        let mut rolled = false;
        for _ in 0..super::craft::GUNBOAT_PDS_DICE * c.craft {
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
                sink.event(Event::PdRoll {
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
            super::state::CraftKind::Gunboat(_) => (super::craft::SIX_KILLS_ONE, 0),
            super::state::CraftKind::Fighter(t) => (PdTable::PDS, t.light_drm() - i32::from(t.heavy())),
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
        let d = u32::from(super::tables::d3_from_d6(face).saturating_sub(advanced));
        scratch.sap.push((shot.target, d));
        scratch.deal(side, DamageKind::Rocket, d);
        if S::RECORDS {
            faces.push(face);
            damage.push(d);
        }
    }
    if S::RECORDS {
        sink.event(Event::RocketHits {
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
        damage += super::tables::antimatter_points(face, screen);
        if S::RECORDS {
            faces.push(face);
        }
    }
    scratch.pending[shot.target].0 += damage;
    scratch.deal(battle.units[shot.unit].side, DamageKind::Antimatter, damage);
    if S::RECORDS {
        sink.event(Event::AntimatterHits {
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
            .map_or(0.0, |c| super::craft::expected_per_craft(&c))
    }
}

/// Expected kills of one PD weapon against a missile or group threat (for
/// allocation only): heavy fighters take −1 on PDS dice (7/15 a die),
/// light fighters +1 on every die, gunboats die only on a 6.
fn pd_expectation(battle: &Battle, kind: &SystemKind, shot: &MissileShot) -> f64 {
    use super::state::CraftKind;
    match battle.units[shot.unit].craft.map(|c| c.kind) {
        Some(CraftKind::Gunboat(_)) if !shot.is_missile() && matches!(kind, SystemKind::Scattergun) => 0.6,
        Some(CraftKind::Gunboat(_)) if !shot.is_missile() => 1.0 / 6.0,
        Some(CraftKind::Fighter(t))
            if !shot.is_missile() && t.heavy() && matches!(kind, SystemKind::Pds | SystemKind::Adaf) =>
        {
            7.0 / 15.0
        }
        Some(CraftKind::Fighter(t)) if !shot.is_missile() && t.light => {
            // +1 turns one more initial face into a kill (and a natural 5
            // into a PDS's two): PDS and K-1 +1/3 a die, class-1 beams +1/6.
            let bonus = match kind {
                SystemKind::Scattergun => 0.0,
                SystemKind::Beam { .. } => 1.0 / 6.0,
                _ => 1.0 / 3.0,
            };
            expected_kills(kind, false) + bonus
        }
        _ => expected_kills(kind, shot.heavy_column(&battle.rules)),
    }
}

/// Expected kills of one PD weapon against a threat (for allocation only).
fn expected_kills(kind: &SystemKind, heavy: bool) -> f64 {
    match (kind, heavy) {
        (SystemKind::Beam { .. }, false) => 0.4,
        (SystemKind::Beam { .. }, true) => 1.0 / 6.0,
        (SystemKind::Scattergun, _) => 3.5,
        // PDS at −1: natural 5 and 6 kill one, a 6 rerolls (0.8 a reroll).
        (SystemKind::KGun { .. }, false) => 2.8 / 6.0,
        (SystemKind::KGun { .. }, true) => 1.0 / 6.0,
        // A class-1 beam's table at −1 without the reroll: only a 6 kills.
        (SystemKind::EmpProjector { .. }, false) => 1.0 / 6.0,
        (SystemKind::EmpProjector { .. }, true) => 0.0,
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
    if matches!(
        unit.systems[pw].kind,
        SystemKind::Beam { .. } | SystemKind::KGun { .. } | SystemKind::EmpProjector { .. }
    ) {
        return false; // class-1 beams, K-1s and EMP-1s defend only their own ship
    }
    // A carrier launching or recovering gives no area defence (F15).
    let adfc = unit
        .systems
        .iter()
        .filter(|s| matches!(s.kind, SystemKind::Adfc) && s.operational() && !busy)
        .count()
        // An ADAF and a Scattergun are their own area-defence mounts (O20).
        + usize::from(matches!(unit.systems[pw].kind, SystemKind::Adaf | SystemKind::Scattergun) && !busy);
    adfc > 0 && (covered.contains(&target) || covered.len() < adfc)
}

fn allocate_pd<S: Sink>(battle: &Battle, plot: &ExchangePlot, volley: u8, sink: &mut S, scratch: &mut Scratch) {
    scratch.pd_assign.clear();
    // Buffers reused between runs (a batch allocates nothing once warm).
    let mut open = std::mem::take(&mut scratch.pd_open);
    let mut covered = std::mem::take(&mut scratch.pd_covered);
    let mut order = std::mem::take(&mut scratch.pd_order);
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
        let best = shots
            .iter()
            .enumerate()
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
            let pd = matches!(s.kind, SystemKind::Pds | SystemKind::Adaf);
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
            if unable || scratch.fired.contains(&(u, w)) {
                continue;
            }
            let got = assign(&mut scratch.pd_assign, &mut open, u, w, defend, &mut covered);
            if let (Some((i, defends)), true) = (got, S::RECORDS) {
                sink.event(Event::PdAssigned {
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
}

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
        let (armour, hull) = super::tables::ap_split(damage, unit.armour_left());
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

fn hull_damage(unit: &mut Unit, hull: u32, armour: u32) -> (u32, u32, u32, u32) {
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
fn apply_damage<S: Sink>(battle: &mut Battle, sink: &mut S, scratch: &mut Scratch) {
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
            sink.event(Event::Damage {
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
                sink.event(Event::Destroyed {
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
                sink.event(Event::SystemKilled { unit: u, system: s });
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
fn layers_before(unit: &Unit, recording: bool) -> Vec<u32> {
    if recording {
        unit.armour_layers.iter().map(|l| l.lost).collect()
    } else {
        Vec::new()
    }
}

/// The armour boxes each layer of a layered Unit took since `before`.
fn layer_event<S: Sink>(sink: &mut S, u: UnitId, unit: &Unit, before: &[u32]) {
    if unit.armour_layers.is_empty() {
        return;
    }
    let taken = unit.armour_layers.iter().zip(before).map(|(l, b)| l.lost - b).collect();
    sink.event(Event::ArmourLayers { unit: u, taken });
}

/// Number a threshold die must reach: 6 after the first row, 5 after the
/// second, 4 after the third, then 3 and never below 2 (ft-rules §7.1, A24).
pub fn threshold_needed(row: u32) -> u8 {
    (7 - row.min(5) as i32).max(2) as u8
}

/// Systems that are gone for good when a threshold takes them.
fn lost_for_good(kind: &SystemKind) -> bool {
    matches!(
        kind,
        SystemKind::Smm | SystemKind::Smr | SystemKind::Missile { .. } | SystemKind::AntimatterMissile
    )
}

/// One threshold check for a Unit that completed `rows` rows this Volley.
pub fn threshold_check<S: Sink>(battle: &mut Battle, u: UnitId, rows: u32, dice: &mut Dice, sink: &mut S) {
    let double_drive = battle.rules.double_drive_check;
    let strike_colours = battle.rules.strike_colours;
    let unit = &mut battle.units[u];
    let row = unit.rows_lost() as u32;
    let extra = rows - 1;
    let needed = threshold_needed(row);
    if S::RECORDS {
        sink.event(Event::ThresholdCheck {
            unit: u,
            row,
            extra_rows: extra,
            needed,
        });
    }
    for s in 0..unit.systems.len() {
        let sys = &unit.systems[s];
        // Spent one-shots are crossed off: nothing left to lose (ft-rules §4.3).
        if sys.state != SysState::Operational || (is_one_shot(&sys.kind) && sys.rounds_left() == 0) {
            continue;
        }
        let kind = unit.systems[s].kind.clone();
        let modifier = extra as i32
            + if kind.is_core() {
                -1
            } else if matches!(kind, SystemKind::EnhancedSensors | SystemKind::SuperiorSensors) {
                1
            } else {
                0
            };
        let face = dice.roll_d6(sink, Purpose::Threshold, Pile::Initial);
        let lost = i32::from(face) + modifier >= i32::from(needed);
        if S::RECORDS {
            sink.event(Event::ThresholdRoll {
                unit: u,
                system: Some(s),
                face,
                modifier,
                lost,
            });
        }
        if !lost {
            continue;
        }
        let sensors_gone = face == 6 && matches!(kind, SystemKind::EnhancedSensors | SystemKind::SuperiorSensors);
        unit.systems[s].state = if lost_for_good(&kind) || sensors_gone {
            SysState::Destroyed
        } else {
            SysState::Damaged
        };
        match kind {
            SystemKind::CommandBridge => {
                let face = dice.roll_d6(sink, Purpose::Threshold, Pile::Initial);
                let volleys = (face < 6).then_some(face);
                unit.control = match volleys {
                    Some(n) => Control::OutFor(n),
                    None => Control::Permanent,
                };
                if S::RECORDS {
                    sink.event(Event::BridgeLost { unit: u, face, volleys });
                }
            }
            SystemKind::LifeSupport => {
                let face = dice.roll_d6(sink, Purpose::Threshold, Pile::Initial);
                unit.life_support_failing = Some(face);
                if S::RECORDS {
                    sink.event(Event::LifeSupportLost { unit: u, face });
                }
            }
            SystemKind::PowerCore if S::RECORDS => sink.event(Event::CoreBreached { unit: u }),
            SystemKind::AntimatterMissile => rack_explodes(unit, u, s, dice, sink),
            _ => {}
        }
    }
    if battle_strike_colours(unit, extra, needed, strike_colours, u, dice, sink) {
        return;
    }
    let drive_rolls = if double_drive && extra >= 1 { 2 } else { 1 };
    for _ in 0..drive_rolls {
        if unit.drive_hits >= 2 || unit.thrust == 0 {
            break;
        }
        let face = dice.roll_d6(sink, Purpose::Threshold, Pile::Initial);
        let lost = i32::from(face) + extra as i32 >= i32::from(needed);
        if S::RECORDS {
            sink.event(Event::ThresholdRoll {
                unit: u,
                system: None,
                face,
                modifier: extra as i32,
                lost,
            });
        }
        if lost {
            unit.drive_hits += 1;
            unit.drive_damaged = true;
            unit.thrust = drive_thrust(unit.original_thrust, unit.drive_hits);
            if S::RECORDS {
                sink.event(Event::DriveHit {
                    unit: u,
                    thrust: unit.thrust,
                });
            }
        }
    }
}

/// An unfired antimatter missile lost to a threshold check explodes on its
/// rack (ft-rules §7.2; readings W55): 1d6 to its own ship, ignoring
/// screens and armour, straight to the hull; rows it completes bring no
/// further check in this Volley. Other Units take nothing (F&M keeps no
/// positions to find those within 1 MU).
fn rack_explodes<S: Sink>(unit: &mut Unit, u: UnitId, system: SystemId, dice: &mut Dice, sink: &mut S) {
    let face = dice.roll_d6(sink, Purpose::Damage, Pile::Initial);
    let (_, hull, _, _) = hull_damage(unit, u32::from(face), 0);
    if S::RECORDS {
        sink.event(Event::RackExplodes {
            unit: u,
            system,
            face,
            hull,
            destroyed: unit.destroyed,
        });
        if unit.destroyed {
            sink.event(Event::Destroyed {
                unit: u,
                cause: "its antimatter missile exploded on the rack",
            });
        }
    }
}

/// Striking the colours (ft-rules §7.3): one more roll at the check's
/// number (with its extra-row modifier); failing it, the ship surrenders and
/// leaves the fight. Returns whether it did.
#[allow(clippy::too_many_arguments)]
fn battle_strike_colours<S: Sink>(
    unit: &mut Unit,
    extra: u32,
    needed: u8,
    enabled: bool,
    u: UnitId,
    dice: &mut Dice,
    sink: &mut S,
) -> bool {
    if !enabled {
        return false;
    }
    let face = dice.roll_d6(sink, Purpose::Threshold, Pile::Initial);
    if i32::from(face) + extra as i32 >= i32::from(needed) {
        unit.surrendered = true;
        if S::RECORDS {
            sink.event(Event::Surrendered { unit: u, face });
        }
        return true;
    }
    false
}

/// Thrust after `hits` drive hits: half the original (rounded down, A9) after
/// one (a thrust-1 drive goes straight to 0), none after two.
pub fn drive_thrust(original: u32, hits: u8) -> u32 {
    match hits {
        0 => original,
        1 if original > 1 => original / 2,
        _ => 0,
    }
}

/// Default damage-control rank of a system (F&M Damage phase): power core,
/// life support, bridge, (drive), screens, a Fire Control when none works,
/// weapons by dice (beam class), then the rest.
fn default_priority(unit: &Unit, system: Option<SystemId>) -> (u32, u32) {
    let Some(s) = system else { return (3, 0) };
    let kind = &unit.systems[s].kind;
    match kind {
        SystemKind::PowerCore => (0, 0),
        SystemKind::LifeSupport => (1, 0),
        SystemKind::CommandBridge => (2, 0),
        SystemKind::ScreenGenerator => (4, 0),
        SystemKind::FireControl if unit.fire_controls().next().is_none() => (5, 0),
        SystemKind::Beam { class } => (6, 10 - u32::from(*class).min(10)),
        k if k.is_weapon() => (7, 0),
        _ => (8, 0),
    }
}

fn damage_control<S: Sink>(
    battle: &mut Battle,
    plot: &ExchangePlot,
    volley: u8,
    u: UnitId,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    let repair_bridge = battle.rules.repair_permanent_bridge;
    let formation = battle.units[u].formation;
    let unit = &mut battle.units[u];
    let mut parties = unit.damage_control_parties();
    if parties == 0 {
        return;
    }
    let jobs = &mut scratch.jobs;
    jobs.clear();
    for (s, sys) in unit.systems.iter().enumerate() {
        let bridge_blocked =
            matches!(sys.kind, SystemKind::CommandBridge) && unit.control == Control::Permanent && !repair_bridge;
        let spent = is_one_shot(&sys.kind) && sys.rounds_left() == 0;
        if sys.state == SysState::Damaged && !bridge_blocked && !spent {
            jobs.push(Some(s));
        }
    }
    if unit.drive_hits > 0 && unit.drive_damaged {
        jobs.push(None);
    }
    if jobs.is_empty() {
        return;
    }
    let plotted: &[SystemId] = volley_plot(plot, formation, volley)
        .damage_control
        .iter()
        .find(|(unit_id, _)| *unit_id == u)
        .map_or(&[], |(_, list)| list.as_slice());
    jobs.sort_by_key(|job| {
        let rank = job.and_then(|s| plotted.iter().position(|p| *p == s));
        (
            rank.unwrap_or(usize::MAX),
            default_priority(unit, *job),
            job.map_or(0, |s| s + 1),
        )
    });
    for &job in jobs.iter() {
        if parties == 0 {
            break;
        }
        let n = parties.min(3);
        parties -= n;
        let face = dice.roll_d6(sink, Purpose::DamageControl, Pile::Initial);
        let repaired = u32::from(face) <= n;
        if repaired {
            match job {
                Some(s) => {
                    unit.systems[s].state = SysState::Operational;
                    unit.systems[s].repaired = true;
                    match unit.systems[s].kind {
                        SystemKind::CommandBridge => unit.control = Control::InControl,
                        SystemKind::LifeSupport => unit.life_support_failing = None,
                        _ => {}
                    }
                }
                None => {
                    unit.drive_hits -= 1;
                    unit.thrust = drive_thrust(unit.original_thrust, unit.drive_hits);
                    unit.drive_damaged = unit.drive_hits > 0;
                }
            }
        }
        if S::RECORDS {
            sink.event(Event::Repair {
                unit: u,
                system: job,
                parties: n,
                face,
                repaired,
            });
        }
    }
}

fn reactors_and_countdowns<S: Sink>(battle: &mut Battle, dice: &mut Dice, sink: &mut S, scratch: &mut Scratch) {
    // Cores breached when the step begins roll now; a core breached by a
    // blast in this step rolls next Volley, after damage control has had
    // its chance (whatever the Units' order).
    let mut breached = std::mem::take(&mut scratch.breached);
    breached.clear();
    breached.extend((0..battle.units.len()).filter(|&u| {
        battle.units[u].active()
            && battle.units[u]
                .systems
                .iter()
                .any(|s| matches!(s.kind, SystemKind::PowerCore) && s.state == SysState::Damaged)
    }));
    for &u in &breached {
        if !battle.units[u].active() {
            continue; // destroyed by an earlier blast in this step
        }
        let face = dice.roll_d6(sink, Purpose::Threshold, Pile::Initial);
        let exploded = face >= 5;
        if S::RECORDS {
            sink.event(Event::ReactorRoll {
                unit: u,
                face,
                exploded,
            });
        }
        if !exploded {
            continue;
        }
        battle.units[u].destroyed = true;
        if S::RECORDS {
            sink.event(Event::Destroyed {
                unit: u,
                cause: "power core explosion",
            });
        }
        if battle.rules.reactor_blast {
            blast(battle, u, dice, sink, scratch);
        }
    }
    scratch.breached = breached;
    for u in 0..battle.units.len() {
        let unit = &mut battle.units[u];
        if !unit.active() {
            continue;
        }
        match unit.control {
            Control::OutFor(1) => {
                // Control comes back; the bridge itself stays damaged until repaired.
                unit.control = Control::InControl;
                if S::RECORDS {
                    sink.event(Event::ControlRegained { unit: u });
                }
            }
            Control::OutFor(n) => unit.control = Control::OutFor(n - 1),
            _ => {}
        }
        match unit.life_support_failing {
            Some(1) => {
                unit.life_support_failing = None;
                unit.derelict = true;
                if S::RECORDS {
                    sink.event(Event::Abandoned { unit: u });
                }
            }
            Some(n) => unit.life_support_failing = Some(n - 1),
            None => {}
        }
    }
}

/// Reactor blast (ft-rules §7.5, A13-A14): 1d6 per full 25 mass of the
/// exploding Unit, rolled for each other active Unit of its Formation, as
/// one semi-armour-piercing hit; those hit check thresholds at once.
fn blast<S: Sink>(battle: &mut Battle, source: UnitId, dice: &mut Dice, sink: &mut S, scratch: &mut Scratch) {
    let n = battle.units[source].mass / 25;
    let formation = battle.units[source].formation;
    if n == 0 {
        return;
    }
    let mut members = std::mem::take(&mut scratch.ranks);
    members.clear();
    members.extend(battle.formations[formation].units.iter().copied());
    for &u in &members {
        if u == source || !battle.units[u].active() {
            continue;
        }
        if battle.units[u].is_craft() {
            // Craft in the Formation: one lost per point (reading F21).
            let mut tap = Tap::new(sink);
            let damage: u32 = (0..n)
                .map(|_| u32::from(dice.roll_d6(&mut tap, Purpose::Damage, Pile::Initial)))
                .sum();
            let faces = tap.take();
            if S::RECORDS {
                sink.event(Event::Blast {
                    source,
                    unit: u,
                    faces,
                    damage,
                });
            }
            scratch.deal(battle.units[source].side, DamageKind::ReactorBlast, damage);
            super::craft::remove_craft(battle, u, damage, "a power core blast", sink);
            continue;
        }
        let mut tap = Tap::new(sink);
        // Advanced screens take their level off every blast die (ft-rules
        // §7.5, readings W42).
        let advanced = u32::from(battle.units[u].advanced_screen_level());
        let damage: u32 = (0..n)
            .map(|_| u32::from(dice.roll_d6(&mut tap, Purpose::Damage, Pile::Initial)).saturating_sub(advanced))
            .sum();
        let faces = tap.take();
        scratch.deal(battle.units[source].side, DamageKind::ReactorBlast, damage);
        let before = layers_before(&battle.units[u], S::RECORDS);
        let (armour, hull, rows, crew_lost) = sap_damage(&mut battle.units[u], damage);
        let destroyed = battle.units[u].destroyed;
        if S::RECORDS {
            sink.event(Event::Blast {
                source,
                unit: u,
                faces,
                damage,
            });
            sink.event(Event::Damage {
                unit: u,
                normal: 0,
                sap: vec![damage],
                ap: Vec::new(),
                penetrating: 0,
                armour,
                hull,
                rows_completed: rows,
                crew_lost,
                destroyed,
            });
            layer_event(sink, u, &battle.units[u], &before);
            if destroyed {
                sink.event(Event::Destroyed {
                    unit: u,
                    cause: "reactor blast",
                });
            }
        }
        if rows > 0 && !destroyed {
            threshold_check(battle, u, rows, dice, sink);
        }
    }
    scratch.ranks = members;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::plot::Maneuver::*;
    use crate::engine::rules::Rules;
    use crate::engine::state::{Formation, RangeTable, Side, Sys};
    use crate::model::Profile;

    #[test]
    fn maneuver_follows_the_worked_examples_of_fm_readings_3() {
        // A closes with 3 SP, B withdraws with 2 SP: 60 → 51 → 57.
        assert_eq!(pair_range(60, (Close, 3), (Withdraw, 2)), (51, 57, 57));
        // A closes with 3, B maintains with 4: 51, then back to 60 (never past it).
        assert_eq!(pair_range(60, (Close, 3), (Maintain, 4)), (51, 51, 60));
        // A closes with 25: |60 − 75| = 15 (overshoot).
        assert_eq!(pair_range(60, (Close, 25), (Maintain, 0)), (15, 15, 15));
        // Order of the pair does not matter.
        assert_eq!(
            pair_range(60, (Withdraw, 2), (Close, 3)),
            pair_range(60, (Close, 3), (Withdraw, 2))
        );
        // Maintain pulls a withdrawal back toward the start.
        assert_eq!(pair_range(30, (Withdraw, 4), (Maintain, 2)), (30, 42, 36));
    }

    #[test]
    fn secondary_and_unplotted_pairs_lose_one_speed_point() {
        let vp = VolleyPlot {
            primary: Some(ManeuverOrder {
                target: 1,
                maneuver: Close,
            }),
            secondary: vec![ManeuverOrder {
                target: 2,
                maneuver: Withdraw,
            }],
            ..VolleyPlot::default()
        };
        assert_eq!(move_against(&vp, 3, 1), (Close, 3));
        assert_eq!(move_against(&vp, 3, 2), (Withdraw, 2));
        assert_eq!(move_against(&vp, 3, 3), (Maintain, 2));
        assert_eq!(move_against(&vp, 0, 3), (Maintain, 0));
    }

    fn unit(name: &str, mass: u32, thrust: u32) -> Unit {
        Unit {
            name: name.into(),
            side: 0,
            formation: 0,
            profile: Profile::Fb1,
            mass,
            points: 0,
            civilian: false,
            original_thrust: thrust,
            thrust,
            advanced_drive: false,
            drive_hits: 0,
            drive_damaged: false,
            armour_total: 2,
            armour_lost: 0,
            armour_layers: Vec::new(),
            rows: vec![3, 3, 2, 2],
            hull_total: 10,
            hull_lost: 0,
            crew_boxes: vec![5, 10],
            systems: vec![Sys {
                kind: SystemKind::FireControl,
                arcs: 0,
                state: SysState::Operational,
                inactive: false,
                repaired: false,
                rounds: 0,
                spent: 0,
                magazine: None,
                er: false,
            }],
            destroyed: false,
            surrendered: false,
            control: Control::InControl,
            life_support_failing: None,
            derelict: false,
            craft: None,
            launch_tubes: None,
            screens_down: false,
        }
    }

    fn battle(units: Vec<Unit>) -> Battle {
        let ids = (0..units.len()).collect();
        Battle {
            sides: vec![Side { name: "A".into() }],
            formations: vec![Formation {
                name: "F".into(),
                side: 0,
                units: ids,
                reserve: Default::default(),
            }],
            units,
            ranges: RangeTable::new(1, 60),
            rules: Rules::default(),
        }
    }

    #[test]
    fn targeting_bands_match_the_rules_example_and_its_shifts() {
        let b = battle(vec![unit("Frigate", 22, 8), unit("Destroyer", 44, 6)]);
        let mut out = Vec::new();
        targeting_bands(&b, 0, &[], &mut out);
        assert_eq!(out, [(1, 67), (0, 100)], "Destroyer 01-67, Frigate 68-100");
        targeting_bands(&b, 0, &[(0, 10)], &mut out);
        assert_eq!(out, [(1, 57), (0, 100)], "Frigate takes 10 points more exposure");
        targeting_bands(&b, 0, &[(0, -10)], &mut out);
        assert_eq!(out, [(1, 77), (0, 100)], "Frigate sheds 10 points");
    }

    #[test]
    fn no_unit_falls_below_one_percentile() {
        let b = battle(vec![unit("Big", 300, 4), unit("Small", 1, 8)]);
        let mut out = Vec::new();
        targeting_bands(&b, 0, &[(1, -20)], &mut out);
        assert_eq!(out, [(0, 99), (1, 100)]);
    }

    #[test]
    fn armour_takes_normal_damage_first_and_penetrating_goes_to_the_hull() {
        let mut u = unit("T", 40, 4);
        // 3 normal: 2 to armour, 1 to hull; 2 penetrating to the hull.
        assert_eq!(damage_unit(&mut u, 3, 2), (2, 3, 1, 0));
        assert_eq!((u.armour_lost, u.hull_lost), (2, 3));
        // 2 more hull boxes cross the crew factor in box 5 and no row end.
        assert_eq!(damage_unit(&mut u, 2, 0), (0, 2, 0, 1));
        // Overkill destroys the Unit and stops at the last box.
        assert_eq!(damage_unit(&mut u, 0, 20), (0, 5, 3, 1));
        assert!(u.destroyed);
    }

    #[test]
    fn sap_damage_sends_half_rounded_up_to_armour() {
        // FTC §6.5 example: hits of 3, 1, 3, 6 on 4 armour → 4 armour, 9 hull.
        let mut u = unit("T", 100, 4);
        u.armour_total = 4;
        u.rows = vec![10, 10, 10, 10];
        u.hull_total = 40;
        let mut armour = 0;
        let mut hull = 0;
        for hit in [3, 1, 3, 6] {
            let (a, h, _, _) = sap_damage(&mut u, hit);
            armour += a;
            hull += h;
        }
        assert_eq!((armour, hull), (4, 9));
    }

    #[test]
    fn threshold_numbers_and_the_drive_ladder() {
        assert_eq!((1..=6).map(threshold_needed).collect::<Vec<_>>(), [6, 5, 4, 3, 2, 2]);
        assert_eq!((drive_thrust(6, 0), drive_thrust(6, 1), drive_thrust(6, 2)), (6, 3, 0));
        assert_eq!((drive_thrust(5, 1), drive_thrust(1, 1)), (2, 0));
    }

    #[test]
    fn evasion_is_ignored_by_wide_arcs() {
        assert_eq!((0..=6).map(evasion_ignored).collect::<Vec<_>>(), [0, 0, 0, 1, 1, 2, 2]);
    }

    #[test]
    fn a_threshold_check_rolls_every_working_system_then_the_drive() {
        let mut b = battle(vec![unit("T", 40, 6)]);
        b.units[0].hull_lost = 3; // first row complete
        // FCS rolls 6 (lost at 6+), drive rolls 6 (halved).
        let mut dice = Dice::from_faces(&[6, 6]);
        threshold_check(&mut b, 0, 1, &mut dice, &mut ());
        assert_eq!(b.units[0].systems[0].state, SysState::Damaged);
        assert_eq!(b.units[0].thrust, 3);
        // Two rows at once: second row needs 5, +1 for the extra row → 4+ effective.
        let mut b = battle(vec![unit("T", 40, 6)]);
        b.units[0].hull_lost = 6;
        let mut dice = Dice::from_faces(&[4, 3]);
        threshold_check(&mut b, 0, 2, &mut dice, &mut ());
        assert_eq!(b.units[0].systems[0].state, SysState::Damaged);
        assert_eq!(b.units[0].thrust, 6, "drive 3 + 1 = 4 < 5 survives");
    }
}
