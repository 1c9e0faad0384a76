//! What the standing orders measure of a battle: the enemy Formations in
//! the fight, how each selector ranks them, the Formation each picks to
//! maneuver against and fire at, the maneuver a movement order gives, and
//! when a withdrawal trigger fires. Pure readings of the battle state.

use crate::engine::doctrine::orders::{Doctrine, Movement, Selector, WithdrawWhen};
use crate::engine::plot::{FormationId, Maneuver, UnitId};
use crate::engine::state::{Battle, SysState};
use crate::engine::tables::beam_dice;
use crate::engine::victory::{Trigger, Victory};
use crate::model::{SystemKind, Warhead};

/// Range in MU at which a Formation's beams roll the most dice (ties go to
/// the longer range); `None` if it has no working beam.
pub fn best_beam_range(battle: &Battle, f: FormationId) -> Option<u32> {
    // Working batteries counted by class (classes are a byte).
    let mut count = [0u32; 256];
    let mut top = 0usize;
    for s in battle.formations[f]
        .units
        .iter()
        .map(|u| &battle.units[*u])
        .filter(|u| u.active())
        .flat_map(|u| u.systems.iter())
        .filter(|s| s.state == SysState::Operational)
    {
        if let SystemKind::Beam { class } = s.kind {
            count[usize::from(class)] += 1;
            top = top.max(usize::from(class));
        }
    }
    if count.iter().all(|&n| n == 0) {
        return None;
    }
    (1..=20u32)
        .map(|k| k * 3)
        .map(|r| {
            let dice = (0..=top).map(|c| count[c] * beam_dice(c as u32, r)).sum::<u32>();
            (dice, r)
        })
        .max()
        .map(|(_, r)| r)
}

/// Enemy Formations of `f` in the fight, in scenario order.
pub fn enemies(battle: &Battle, f: FormationId) -> impl Iterator<Item = FormationId> + '_ {
    enemies_where(battle, f, move |e| battle.formation_active(e))
}

/// Which Formations are in the fight ([`Battle::formation_active`]), by
/// Formation: read once for a whole plot, while the battle stands still.
pub fn in_fight(battle: &Battle) -> Vec<bool> {
    let mut live = Vec::new();
    in_fight_into(battle, &mut live);
    live
}

/// [`in_fight`] into a reused buffer.
pub(super) fn in_fight_into(battle: &Battle, live: &mut Vec<bool>) {
    live.clear();
    live.extend((0..battle.formations.len()).map(|f| battle.formation_active(f)));
}

/// Each Formation's nearest enemy in the fight ([`select_enemy`] by
/// [`Selector::Nearest`]), by Formation, into a reused buffer, with which
/// Formations are in the fight read from `live` ([`in_fight`] of the same
/// battle): found once for a whole plot.
pub(super) fn nearest_enemies_into(battle: &Battle, live: &[bool], nearest: &mut Vec<Option<FormationId>>) {
    nearest.clear();
    nearest.extend((0..battle.formations.len()).map(|f| select_enemy_in(battle, live, f, Selector::Nearest)));
}

/// The objective of `f`'s side: the enemy Formation in the fight (by
/// `live`) holding a Unit in the fight whose destruction wins the battle
/// for that side (a [`Trigger::UnitDestroyed`], readings D25) or whose
/// Formation runs for the Reserve with it ([`escaping_unit`], D26), the
/// first such trigger listed; `None` when there is none.
pub fn objective_in(battle: &Battle, victory: &Victory, live: &[bool], f: FormationId) -> Option<FormationId> {
    let side = battle.formations[f].side;
    let enemy_holding = |unit: UnitId| {
        let u = battle.units.get(unit).filter(|u| u.active())?;
        let g = u.formation;
        (live.get(g) == Some(&true) && battle.formations[g].side != side).then_some(g)
    };
    victory.triggers.iter().find_map(|t| match *t {
        Trigger::UnitDestroyed { unit, side: winner } if winner == side => enemy_holding(unit),
        Trigger::UnitEscaped { unit, side: winner } if winner != side => enemy_holding(unit)
            .filter(|&g| battle.formations[g].side == winner && escaping_unit(battle, victory, live, g) == Some(unit)),
        _ => None,
    })
}

/// Whether another Formation of `f`'s side with ships is in the fight (by
/// `live`): with `f` gone to the Reserve, its side still has someone in
/// combat (readings V8).
pub(super) fn others_hold_the_field(battle: &Battle, live: &[bool], f: FormationId) -> bool {
    let side = battle.formations[f].side;
    (0..battle.formations.len())
        .any(|g| g != f && battle.formations[g].side == side && live[g] && !battle.craft_only(g))
}

/// The Unit of Formation `f` (in the fight by `live`) whose reaching the
/// Reserve wins the battle for `f`'s side (the first [`Trigger::UnitEscaped`]
/// listed that names one), with the Reserve in use and another Formation
/// of the side with ships in the fight; `None` otherwise (readings D26: the
/// default runs for the Reserve with it). Without that other Formation the
/// side would have no one in combat once there, and lose (V8) before the
/// escape is read (V1).
pub fn escaping_unit(battle: &Battle, victory: &Victory, live: &[bool], f: FormationId) -> Option<UnitId> {
    if !battle.rules.reserves || live.get(f) != Some(&true) {
        return None;
    }
    if !others_hold_the_field(battle, live, f) {
        return None;
    }
    let side = battle.formations[f].side;
    victory.triggers.iter().find_map(|t| match *t {
        Trigger::UnitEscaped { unit, side: winner } if winner == side => battle
            .units
            .get(unit)
            .filter(|u| u.active() && u.formation == f)
            .map(|_| unit),
        _ => None,
    })
}

/// Each Formation's default maneuver target ([`Selector::Auto`]): its
/// side's objective ([`objective_in`]), else its nearest enemy (`nearest`,
/// [`nearest_enemies_into`] of the same battle), by Formation, into a
/// reused buffer.
pub(super) fn default_targets_into(
    (battle, victory): (&Battle, &Victory),
    live: &[bool],
    nearest: &[Option<FormationId>],
    aims: &mut Vec<Option<FormationId>>,
) {
    aims.clear();
    aims.extend(
        nearest
            .iter()
            .enumerate()
            .map(|(f, &near)| objective_in(battle, victory, live, f).or(near)),
    );
}

/// [`enemies`], with which Formations are in the fight read from `live`
/// ([`in_fight`] of the same battle).
pub fn enemies_in<'a>(battle: &'a Battle, live: &'a [bool], f: FormationId) -> impl Iterator<Item = FormationId> + 'a {
    enemies_where(battle, f, move |e| live[e])
}

/// For each side, its enemy Formations that `live` says are in the fight,
/// in order ([`enemies_in`] of any of its Formations): one list after
/// another, and where each side's is. For [`decide::Context::enemies`].
pub fn enemy_lists(battle: &Battle, live: &[bool]) -> (Vec<FormationId>, Vec<(usize, usize)>) {
    let (mut list, mut spans) = (Vec::new(), Vec::new());
    enemy_lists_into(battle, live, (&mut list, &mut spans));
    (list, spans)
}

/// [`enemy_lists`] into `list` and `spans` (reusing their room).
pub(super) fn enemy_lists_into(
    battle: &Battle,
    live: &[bool],
    (list, spans): (&mut Vec<FormationId>, &mut Vec<(usize, usize)>),
) {
    list.clear();
    spans.clear();
    for side in 0..battle.sides.len() {
        let start = list.len();
        list.extend((0..battle.formations.len()).filter(|&e| battle.formations[e].side != side && live[e]));
        spans.push((start, list.len()));
    }
}

/// Enemy Formations of `f` that `live` says are in the fight.
fn enemies_where<'a>(
    battle: &'a Battle,
    f: FormationId,
    live: impl Fn(FormationId) -> bool + 'a,
) -> impl Iterator<Item = FormationId> + 'a {
    let side = battle.formations[f].side;
    (0..battle.formations.len()).filter(move |&e| battle.formations[e].side != side && live(e))
}

/// Whether `t` is an enemy Formation of `f` in the fight.
pub fn is_live_enemy(battle: &Battle, f: FormationId, t: FormationId) -> bool {
    is_enemy_where(battle, f, t, |e| battle.formation_active(e))
}

/// [`is_live_enemy`], reading which Formations are in the fight from
/// `live`.
pub fn is_live_enemy_in(battle: &Battle, live: &[bool], f: FormationId, t: FormationId) -> bool {
    is_enemy_where(battle, f, t, |e| live[e])
}

/// Whether `t` is an enemy Formation of `f` that `live` says is in the
/// fight.
fn is_enemy_where(battle: &Battle, f: FormationId, t: FormationId, live: impl Fn(FormationId) -> bool) -> bool {
    t < battle.formations.len() && battle.formations[t].side != battle.formations[f].side && live(t)
}

/// Mass of a Formation's Units in the fight ("largest").
pub fn mass_in_fight(battle: &Battle, f: FormationId) -> u32 {
    battle.formations[f]
        .units
        .iter()
        .map(|&u| &battle.units[u])
        .filter(|u| u.active())
        .map(|u| u.mass)
        .sum()
}

/// Hull boxes left on a Formation's Units in the fight ("weakest").
pub fn hull_in_fight(battle: &Battle, f: FormationId) -> u32 {
    battle.formations[f]
        .units
        .iter()
        .map(|&u| &battle.units[u])
        .filter(|u| u.active())
        .map(|u| u.hull_left())
        .sum()
}

/// Beam dice a Formation's working beam batteries roll at `range` ("most
/// dangerous"): every battery that is operational on a Unit in the fight.
pub fn beam_dice_at(battle: &Battle, f: FormationId, range: u32) -> u32 {
    battle.formations[f]
        .units
        .iter()
        .map(|&u| &battle.units[u])
        .filter(|u| u.active())
        .flat_map(|u| u.systems.iter())
        .filter(|s| s.operational())
        .map(|s| match s.kind {
            SystemKind::Beam { class } => beam_dice(u32::from(class), range),
            _ => 0,
        })
        .sum()
}

/// The enemy Formations of `f` in the fight, best first by `by`; ties go
/// to the nearest, then to the first listed. `Selector::Formation(t)` puts
/// `t` first when it is an enemy in the fight, the rest by range.
pub fn rank(battle: &Battle, f: FormationId, by: Selector) -> Vec<FormationId> {
    let mut keyed = Vec::new();
    rank_into(battle, f, by, &mut keyed);
    keyed.into_iter().map(|(_, _, e)| e).collect()
}

/// The sort key of enemy Formation `e` for `f` under `by`: smaller first.
fn rank_key(battle: &Battle, f: FormationId, e: FormationId, by: Selector) -> (i64, u32, FormationId) {
    let range = battle.ranges.get(f, e);
    let key = match by {
        Selector::Nearest | Selector::Auto => 0,
        Selector::Largest => -i64::from(mass_in_fight(battle, e)),
        Selector::Weakest => i64::from(hull_in_fight(battle, e)),
        Selector::MostDangerous => -i64::from(beam_dice_at(battle, e, range)),
        Selector::Formation(t) => i64::from(e != t),
    };
    (key, range, e)
}

/// [`rank`] into a reused buffer of `(key, range, Formation)`, best first.
pub(super) fn rank_into(battle: &Battle, f: FormationId, by: Selector, keyed: &mut Vec<(i64, u32, FormationId)>) {
    keyed.clear();
    keyed.extend(enemies(battle, f).map(|e| rank_key(battle, f, e, by)));
    keyed.sort_unstable();
}

/// The enemy Formation `by` picks, if any enemy is left in the fight.
pub fn select_enemy(battle: &Battle, f: FormationId, by: Selector) -> Option<FormationId> {
    select_enemy_where(battle, f, by, |e| battle.formation_active(e))
}

/// [`select_enemy`], reading which Formations are in the fight from `live`
/// ([`in_fight`] of the same battle).
pub fn select_enemy_in(battle: &Battle, live: &[bool], f: FormationId, by: Selector) -> Option<FormationId> {
    select_enemy_where(battle, f, by, |e| live[e])
}

fn select_enemy_where(
    battle: &Battle,
    f: FormationId,
    by: Selector,
    live: impl Fn(FormationId) -> bool,
) -> Option<FormationId> {
    enemies_where(battle, f, live)
        .map(|e| rank_key(battle, f, e, by))
        .min()
        .map(|(_, _, e)| e)
}

/// The Formation `f` maneuvers against: a named Formation (friend or foe,
/// not `f` itself) while it is in the fight, otherwise the enemy the
/// selector picks (a named Formation out of the fight: the nearest enemy).
pub fn maneuver_target(battle: &Battle, f: FormationId, by: Selector) -> Option<FormationId> {
    maneuver_target_where(battle, f, by, |e| battle.formation_active(e))
}

/// [`maneuver_target`], reading which Formations are in the fight from
/// `live` ([`in_fight`] of the same battle).
pub fn maneuver_target_in(battle: &Battle, live: &[bool], f: FormationId, by: Selector) -> Option<FormationId> {
    maneuver_target_where(battle, f, by, |e| live[e])
}

fn maneuver_target_where(
    battle: &Battle,
    f: FormationId,
    by: Selector,
    live: impl Fn(FormationId) -> bool,
) -> Option<FormationId> {
    match by {
        Selector::Formation(t) if t != f && t < battle.formations.len() && live(t) => Some(t),
        Selector::Formation(_) => select_enemy_where(battle, f, Selector::Nearest, live),
        other => select_enemy_where(battle, f, other, live),
    }
}

/// The enemy Formation `f` fires at under doctrine `d`.
pub fn fire_target(battle: &Battle, f: FormationId, d: &Doctrine) -> Option<FormationId> {
    // Formations of small craft take no fire at a Formation (reading F1):
    // Fire Controls engage them group by group, which doctrine leaves out.
    let ships = |t: &FormationId| !battle.craft_only(*t);
    let t = match d.fire_at {
        Some(by) if by != Selector::Auto => select_enemy(battle, f, by),
        _ => maneuver_target(battle, f, d.target)
            .filter(|&t| is_live_enemy(battle, f, t))
            .or_else(|| select_enemy(battle, f, Selector::Nearest)),
    };
    t.filter(ships).or_else(|| {
        enemies(battle, f)
            .filter(|t| is_live_enemy(battle, f, *t) && ships(t))
            .min_by_key(|&t| battle.ranges.get(f, t))
    })
}

/// The nearest enemy Formation still in the fight (ties: the first).
pub fn nearest_enemy(battle: &Battle, f: FormationId) -> Option<FormationId> {
    select_enemy(battle, f, Selector::Nearest)
}

/// Whether the withdrawal trigger has fired for Formation `f`. Mass counts
/// every Unit of the Formation, including those already out of the fight.
pub fn withdraw_triggered(battle: &Battle, f: FormationId, when: WithdrawWhen) -> bool {
    let units = || battle.formations[f].units.iter().map(|&u| &battle.units[u]);
    let total: u64 = units().map(|u| u64::from(u.mass)).sum();
    if total == 0 {
        return false;
    }
    match when {
        // The default rule weighs the Formation's arsenal: decide::cannot_fight.
        WithdrawWhen::Never | WithdrawWhen::Auto => false,
        WithdrawWhen::Crippled => {
            let crippled: u64 = units()
                .filter(|u| !u.active() || u.crippled())
                .map(|u| u64::from(u.mass))
                .sum();
            2 * crippled > total
        }
        WithdrawWhen::Losses(percent) => {
            let lost: u64 = units().filter(|u| !u.active()).map(|u| u64::from(u.mass)).sum();
            lost * 100 >= total * u64::from(percent)
        }
    }
}

/// Whether an enemy Formation of `f` in the fight has a Unit in the fight
/// with missiles left: an unspent salvo rack or standard heavy missile not
/// destroyed, or a salvo launcher not destroyed whose magazine works and
/// has loads. (Submunition packs are not missiles.)
pub fn enemy_has_missiles(battle: &Battle, f: FormationId) -> bool {
    enemies(battle, f).any(|e| {
        battle.formations[e]
            .units
            .iter()
            .map(|&u| &battle.units[u])
            .filter(|u| u.active())
            .any(|u| {
                u.systems.iter().any(|s| {
                    s.state != SysState::Destroyed
                        && match s.kind {
                            SystemKind::Smr
                            | SystemKind::Missile {
                                warhead: Warhead::Standard,
                            }
                            | SystemKind::RocketPod
                            | SystemKind::AntimatterMissile => s.rounds_left() > 0,
                            SystemKind::Sml => s
                                .magazine
                                .and_then(|m| u.systems.get(m))
                                .is_some_and(|m| m.state == SysState::Operational && m.rounds_left() > 0),
                            _ => false,
                        }
                })
            })
    })
}

/// The maneuver `movement` gives against `t` at the current range.
pub(super) fn maneuver_for(battle: &Battle, f: FormationId, t: FormationId, movement: Movement) -> Maneuver {
    let range = battle.ranges.get(f, t);
    match movement {
        // Planned against an enemy (plan::choose); otherwise it keeps station.
        Movement::Auto | Movement::Maintain => Maneuver::Maintain,
        Movement::Close => Maneuver::Close,
        Movement::Withdraw => Maneuver::Withdraw,
        Movement::Hold(n) if range > n.saturating_add(3) => Maneuver::Close,
        Movement::Hold(n) if range.saturating_add(3) < n => Maneuver::Withdraw,
        Movement::Hold(_) => Maneuver::Maintain,
        Movement::BestRange => match best_beam_range(battle, f) {
            Some(best) if range > best => Maneuver::Close,
            Some(_) => Maneuver::Maintain,
            None => Maneuver::Withdraw,
        },
    }
}

/// Formation `f`'s small-craft Units in the fight.
pub(super) fn craft_units(battle: &Battle, f: FormationId) -> u32 {
    let units = &battle.formations[f].units;
    let n = units
        .iter()
        .filter(|&&u| battle.units[u].active() && battle.units[u].is_craft())
        .count();
    u32::try_from(n).unwrap_or(u32::MAX)
}
