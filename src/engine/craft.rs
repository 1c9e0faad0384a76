//! Small craft in the Volley: fighter groups and gunboat squadrons
//! (docs/fighters.md; readings F1-F27). The steps here slot into
//! [`super::volley`]'s order:
//!
//! 1. Launch phase ([`launch_phase`]): re-arming countdowns, recoveries,
//!    launches; carriers that launch or recover roll no Speed this Volley
//!    and give no area defence.
//! 2. After every primary maneuver, the secondary maneuvers of small-craft
//!    Formations ([`secondary_moves`]): a fixed distance, 1 endurance each.
//! 3. Engagement ([`engage`], no dice): named dogfights, screens meeting
//!    attackers, attack runs, firing back, interceptions; endurance paid.
//! 4. In the Fire step, Fire Controls aimed at a group ([`fire_at_group`]).
//! 5. In the point-defence step: interception of missiles by fighters
//!    ([`intercept`]), then ship PD at missiles and at attacking craft
//!    (in `volley`), craft killed by PD removed at once.
//! 6. Small-craft attacks ([`attacks`]): dogfights, attack runs, torpedo
//!    runs, gunboat attacks, all at once; damage to ships waits for the
//!    Damage step with everything else, craft lost in dogfights and to ship
//!    fire too ([`apply_losses`]).
//!
//! A battle without small craft rolls no die here and changes nothing.

use super::dice::{BeamAttack, Dice, PdFire, Pile, Purpose, beam_attack, point_defence};
use super::event::{Event, Sink};
use super::plot::{CraftAction, ExchangePlot, Maneuver, UnitId};
use super::rules::{PilotQualityRule, Rules};
use super::scratch::{
    CraftScratch, DamageKind, Scratch, Shot, Tap, WeaponUse, idle_weapon, out_of_range, stopped, volley_plot,
};
use super::state::{Battle, Craft, CraftKind, GunboatKind, Rearm, Reserve, SysState};
use super::tables::{PdTable, beam_dice};
use super::tables::{evasion_ignored, submunition_dice, torpedo_band};
use crate::model::{FighterBase, PilotQuality, SystemKind};

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

fn craft(battle: &Battle, u: UnitId) -> Craft {
    battle.units[u].craft.expect("a small-craft Unit")
}

fn craft_mut(battle: &mut Battle, u: UnitId) -> &mut Craft {
    battle.units[u].craft.as_mut().expect("a small-craft Unit")
}

fn fighter(c: &Craft) -> Option<crate::model::FighterType> {
    match c.kind {
        CraftKind::Fighter(t) => Some(t),
        CraftKind::Gunboat(_) => None,
    }
}

fn is_gunboat(battle: &Battle, u: UnitId) -> bool {
    matches!(
        battle.units[u].craft,
        Some(Craft {
            kind: CraftKind::Gunboat(_),
            ..
        })
    )
}

fn idle<S: Sink>(sink: &mut S, group: UnitId, reason: &'static str) {
    if S::RECORDS {
        sink.event(Event::CraftIdle { group, reason });
    }
}

/// The Unit's hangar bay `bay` works.
fn bay_works(battle: &Battle, carrier: UnitId, bay: usize) -> bool {
    battle.units[carrier]
        .systems
        .get(bay)
        .is_some_and(|s| s.state == SysState::Operational && !s.inactive)
}

/// Why carrier `carrier` cannot take a group into or out of its bay `bay`
/// now, if it cannot: out of the fight or of control, or the bay knocked out.
fn carrier_problem(battle: &Battle, carrier: UnitId, bay: usize) -> Option<&'static str> {
    if !battle.units[carrier].can_act() {
        Some("its carrier is out of the fight or out of control")
    } else if !bay_works(battle, carrier, bay) {
        Some("its hangar bay is knocked out")
    } else {
        None
    }
}

/// Why carrier `c` may not use its deck once more this Volley, if not.
fn deck_busy(battle: &Battle, scratch: &Scratch, c: UnitId) -> Option<&'static str> {
    let free = battle.units[c]
        .launch_tubes
        .is_none_or(|tubes| scratch.craft.deck[c] < tubes);
    (!free).then_some("its carrier's launch tubes are all in use this Volley")
}

/// Step 1, the Launch phase.
pub fn launch_phase<S: Sink>(
    battle: &mut Battle,
    plot: &ExchangePlot,
    volley: u8,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    scratch.craft.start(battle);
    if !scratch.craft.any {
        return;
    }
    rearm_countdowns(battle, sink);
    let nf = battle.formations.len();
    // b) Recoveries, Formation by Formation in plot order.
    for f in 0..nf {
        for &g in &volley_plot(plot, f, volley).recover {
            recover_group(battle, g, dice, sink, scratch);
        }
    }
    // c) Launches.
    for f in 0..nf {
        for &g in &volley_plot(plot, f, volley).launch {
            launch_group(battle, g, sink, scratch);
        }
    }
    for u in 0..battle.units.len() {
        if scratch.craft.busy[u] {
            let f = battle.units[u].formation;
            scratch.craft.no_speed[f] = true;
        }
    }
}

/// Launch phase a): docked groups count down to ready, and are re-armed
/// to full endurance when they get there.
fn rearm_countdowns<S: Sink>(battle: &mut Battle, sink: &mut S) {
    for u in 0..battle.units.len() {
        if battle.units[u].destroyed {
            continue;
        }
        let Some(c) = battle.units[u].craft.as_mut() else {
            continue;
        };
        if !c.docked {
            continue;
        }
        if let Rearm::In(n) = c.rearm {
            if n <= 1 {
                c.rearm = Rearm::Ready;
                c.cef = c.cef_max;
                c.torpedoes_spent = false;
                if S::RECORDS {
                    sink.event(Event::CraftReady { group: u });
                }
            } else {
                c.rearm = Rearm::In(n - 1);
            }
        }
    }
}

/// Why group `g` cannot be recovered now, if it cannot.
fn recovery_problem(battle: &Battle, scratch: &Scratch, g: UnitId) -> Option<&'static str> {
    match craft(battle, g).carrier {
        _ if !battle.units[g].active() => Some("the group is not in the fight"),
        _ if battle.formations[battle.units[g].formation].reserve != Reserve::InCombat => {
            Some("the group's Formation is in the Reserve")
        }
        None => Some("the group has no carrier"),
        Some((carrier, bay)) => {
            let cf = battle.units[carrier].formation;
            let gf = battle.units[g].formation;
            carrier_problem(battle, carrier, bay)
                .or_else(|| {
                    (cf != gf && battle.ranges.get(cf, gf) > FIGHTER_REACH)
                        .then_some("its carrier's Formation is more than 6 MU away")
                })
                .or_else(|| deck_busy(battle, scratch, carrier))
        }
    }
}

/// Launch phase b), one group: docked again, a die for its re-arming time.
fn recover_group<S: Sink>(battle: &mut Battle, g: UnitId, dice: &mut Dice, sink: &mut S, scratch: &mut Scratch) {
    if let Some(reason) = recovery_problem(battle, scratch, g) {
        idle(sink, g, reason);
        return;
    }
    let (carrier, _) = craft(battle, g).carrier.expect("checked above");
    let face = dice.roll_d6(sink, Purpose::Damage, Pile::Initial);
    let rearm = match face {
        6 => Rearm::In(1),
        1 => Rearm::Never,
        _ => Rearm::In(2),
    };
    let cm = craft_mut(battle, g);
    cm.docked = true;
    cm.rearm = rearm;
    scratch.craft.busy[carrier] = true;
    scratch.craft.deck[carrier] += 1;
    if S::RECORDS {
        sink.event(Event::CraftRecovered {
            group: g,
            carrier,
            face,
            ready_in: match rearm {
                Rearm::In(n) => Some(n),
                _ => None,
            },
        });
    }
}

/// Why group `g` cannot be launched now, if it cannot.
fn launch_problem(battle: &Battle, scratch: &Scratch, g: UnitId) -> Option<&'static str> {
    let c = craft(battle, g);
    match c.carrier {
        _ if battle.units[g].destroyed => Some("the group is destroyed"),
        _ if battle.formations[battle.units[g].formation].reserve != Reserve::InCombat => {
            Some("the group's Formation is in the Reserve")
        }
        _ if !c.docked => Some("the group is not docked"),
        None => Some("the group has no carrier"),
        Some(_) if c.rearm != Rearm::Ready => Some("the group is still re-arming"),
        Some((carrier, bay)) => carrier_problem(battle, carrier, bay).or_else(|| deck_busy(battle, scratch, carrier)),
    }
}

/// Launch phase c), one group: out of its bay, its Formation placed where
/// its carrier's is if it was not yet in the fight.
fn launch_group<S: Sink>(battle: &mut Battle, g: UnitId, sink: &mut S, scratch: &mut Scratch) {
    if let Some(reason) = launch_problem(battle, scratch, g) {
        idle(sink, g, reason);
        return;
    }
    let (carrier, _) = craft(battle, g).carrier.expect("checked above");
    let gf = battle.units[g].formation;
    let cf = battle.units[carrier].formation;
    if gf != cf && !battle.formation_has_units(gf) {
        // A Formation coming into the fight starts where its
        // carrier's Formation is (reading F17).
        for other in 0..battle.formations.len() {
            if other != gf {
                let r = if other == cf { 0 } else { battle.ranges.get(cf, other) };
                battle.ranges.set(gf, other, r);
            }
        }
    }
    let cm = craft_mut(battle, g);
    cm.docked = false;
    cm.launched_now = true;
    scratch.craft.busy[carrier] = true;
    scratch.craft.deck[carrier] += 1;
    if S::RECORDS {
        sink.event(Event::CraftLaunched { group: g, carrier });
    }
}

/// Step 2: secondary maneuvers of Formations of small craft only.
pub fn secondary_moves<S: Sink>(
    battle: &mut Battle,
    plot: &ExchangePlot,
    volley: u8,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    if !scratch.craft.any {
        return;
    }
    for f in 0..battle.formations.len() {
        let Some(order) = volley_plot(plot, f, volley).after else {
            continue;
        };
        if !battle.formation_active(f) || !battle.craft_only(f) || !battle.formation_active(order.target) {
            continue;
        }
        let members = || {
            battle.formations[f]
                .units
                .iter()
                .copied()
                .filter(|&u| battle.units[u].active())
        };
        if members().any(|u| craft(battle, u).cef == 0) {
            for u in members() {
                idle(sink, u, "no secondary maneuver: a group of the Formation is exhausted");
            }
            continue;
        }
        let start = battle.ranges.get(f, order.target);
        // Already where every member does its best (gunboats 12 MU,
        // Gatling gunboats and fighters 6 MU; F38, F41): no move, no cost.
        let in_reach = members().map(|u| best_reach(battle, u)).min().unwrap_or(FIGHTER_REACH);
        if order.maneuver == Maneuver::Close && start <= in_reach {
            continue;
        }
        let distance = if members().any(|u| is_gunboat(battle, u)) {
            9
        } else {
            12
        };
        let end = match order.maneuver {
            Maneuver::Close => start.saturating_sub(distance),
            Maneuver::Withdraw => start + distance,
            Maneuver::Maintain => start,
        };
        battle.ranges.set(f, order.target, end);
        for u in 0..battle.units.len() {
            if battle.units[u].formation == f && battle.units[u].active() {
                let c = craft_mut(battle, u);
                c.cef = c.cef.saturating_sub(1);
            }
        }
        if S::RECORDS {
            sink.event(Event::SecondaryMove {
                formation: f,
                target: order.target,
                maneuver: order.maneuver,
                start,
                end,
            });
        }
    }
}

/// The range between the Formations of Units `a` and `b`.
fn unit_range(battle: &Battle, a: UnitId, b: UnitId) -> u32 {
    let (fa, fb) = (battle.units[a].formation, battle.units[b].formation);
    if fa == fb { 0 } else { battle.ranges.get(fa, fb) }
}

/// The range within which a group attacks at its best: a Gatling
/// gunboat's six dice a boat within 6 MU, other gunboats their reach.
fn best_reach(battle: &Battle, g: UnitId) -> u32 {
    match craft(battle, g).kind {
        CraftKind::Gunboat(GunboatKind::Gatling) => GATLING_SHORT_MU,
        CraftKind::Gunboat(GunboatKind::Rocket) => ROCKET_GUNBOAT_SHORT_MU,
        CraftKind::Gunboat(GunboatKind::Submunition) => SUBMUNITION_GUNBOAT_SHORT_MU,
        _ => reach(battle, g),
    }
}

fn reach(battle: &Battle, g: UnitId) -> u32 {
    if is_gunboat(battle, g) {
        GUNBOAT_REACH
    } else {
        FIGHTER_REACH
    }
}

/// Fighters of these types may not intercept missiles.
fn may_intercept(c: &Craft) -> bool {
    fighter(c).is_some_and(|t| !matches!(t.base, FighterBase::Attack | FighterBase::Torpedo))
}

/// Step 3: who fights whom this Volley (no dice); endurance paid.
pub fn engage<S: Sink>(battle: &mut Battle, plot: &ExchangePlot, volley: u8, sink: &mut S, scratch: &mut Scratch) {
    if !scratch.craft.any {
        return;
    }
    let cs = &mut scratch.craft;
    for u in 0..battle.units.len() {
        if let Some(c) = battle.units[u].craft {
            cs.exhausted[u] = battle.units[u].active() && c.cef == 0;
        }
    }
    cs.screens.clear();
    cs.attackers.clear();
    // Named dogfights first; screens and attack runs gathered in plot order.
    for f in 0..battle.formations.len() {
        if !battle.formation_active(f) {
            continue;
        }
        for order in &volley_plot(plot, f, volley).craft {
            let g = order.group;
            if battle.units[g].active() && battle.units[g].formation == f {
                take_order(battle, cs, sink, f, g, order.action);
            }
        }
    }
    meet_screens(battle, cs);
    // Attack runs by those no screen met.
    for i in 0..cs.attackers.len() {
        let (g, ship) = cs.attackers[i];
        if !cs.engaged[g] && cs.fires_at[g].is_none() {
            cs.fires_at[g] = Some(Shot::Run(ship));
        }
    }
    fire_back_and_cover(battle, cs);
    pay_endurance(battle, cs, sink);
    if S::RECORDS {
        for g in 0..battle.units.len() {
            if let Some(ship) = cs.intercept[g] {
                sink.event(Event::CraftEngaged {
                    group: g,
                    target: ship,
                    action: "intercept",
                    cef_left: craft(battle, g).cef,
                });
            }
        }
    }
}

fn enemies(battle: &Battle, a: UnitId, b: UnitId) -> bool {
    battle.units[a].side != battle.units[b].side
}

/// One plotted action of group `g` of Formation `f`: a dogfight set now,
/// a screen or attack run gathered, an interception readied, or idle.
fn take_order<S: Sink>(battle: &Battle, cs: &mut CraftScratch, sink: &mut S, f: usize, g: UnitId, action: CraftAction) {
    match action {
        CraftAction::Dogfight(h) => dogfight_order(battle, cs, sink, g, h),
        CraftAction::Screen(ship) => {
            if battle.units[ship].active() && battle.units[ship].formation == f {
                cs.screens.push((g, ship));
            }
        }
        CraftAction::Attack(h) if is_gunboat(battle, h) => gunboat_hunt_order(battle, cs, sink, g, h),
        CraftAction::Attack(ship) => attack_run_order(battle, cs, sink, g, ship),
        CraftAction::Intercept => {
            let c = craft(battle, g);
            if cs.exhausted[g] {
                idle(sink, g, "exhausted: no interception");
            } else if may_intercept(&c) {
                cs.intercept[g] = Some(None);
            }
        }
    }
}

/// A named dogfight of `g` with group `h`, if `g` can start one.
fn dogfight_order<S: Sink>(battle: &Battle, cs: &mut CraftScratch, sink: &mut S, g: UnitId, h: UnitId) {
    if cs.exhausted[g] {
        idle(sink, g, "exhausted: it cannot start a dogfight");
    } else if !battle.units[h].active() || !battle.units[h].is_craft() || !enemies(battle, g, h) {
        idle(sink, g, "its dogfight target is out of the fight");
    } else if unit_range(battle, g, h) > FIGHTER_REACH {
        idle(sink, g, "its dogfight target is more than 6 MU away");
    } else if cs.fires_at[g].is_none() {
        cs.fires_at[g] = Some(Shot::Dogfight(h));
        cs.engaged[g] = true;
        if !is_gunboat(battle, h) {
            cs.engaged[h] = true;
            cs.engaged_by[h].get_or_insert(g);
        }
    }
}

/// An attack on gunboat squadron `h`: attack-run dice, each scoring die
/// kills a boat (reading F24), as a named dogfight; never a run on a hull
/// it lacks.
fn gunboat_hunt_order<S: Sink>(battle: &Battle, cs: &mut CraftScratch, sink: &mut S, g: UnitId, h: UnitId) {
    if is_gunboat(battle, g) {
        idle(sink, g, "gunboats attack ships only");
    } else if cs.exhausted[g] {
        idle(sink, g, "exhausted: no attack");
    } else if !battle.units[h].active() || !enemies(battle, g, h) {
        idle(sink, g, "its target is out of the fight");
    } else if unit_range(battle, g, h) > FIGHTER_REACH {
        idle(sink, g, "its target's Formation is more than 6 MU away");
    } else if cs.fires_at[g].is_none() {
        cs.fires_at[g] = Some(Shot::Dogfight(h));
        cs.engaged[g] = true;
    }
}

/// An attack run of `g` on `ship`, gathered for the screens to meet.
fn attack_run_order<S: Sink>(battle: &Battle, cs: &mut CraftScratch, sink: &mut S, g: UnitId, ship: UnitId) {
    if cs.exhausted[g] {
        idle(sink, g, "exhausted: no attack run");
    } else if !battle.units[ship].active() {
        idle(sink, g, "its target is out of the fight");
    } else if craft(battle, g).kind == CraftKind::Gunboat(GunboatKind::Pds) {
        idle(sink, g, "PDS gunboats defend their Formation; they attack nothing");
    } else if craft(battle, g).unarmed() {
        idle(sink, g, spent_reason(&craft(battle, g)));
    } else if unit_range(battle, g, ship) > reach(battle, g) {
        idle(
            sink,
            g,
            if is_gunboat(battle, g) {
                "its target's Formation is more than 12 MU away"
            } else {
                "its target's Formation is more than 6 MU away"
            },
        );
    } else {
        cs.attackers.push((g, ship));
    }
}

/// Screens meet the fighters attacking their ship, one to one in plot
/// order; extra screens join against the attackers (reading F9).
fn meet_screens(battle: &Battle, cs: &mut CraftScratch) {
    let mut ships = std::mem::take(&mut cs.ships);
    ships.clear();
    ships.extend(cs.screens.iter().map(|s| s.1));
    ships.sort_unstable();
    ships.dedup();
    for &ship in &ships {
        cs.free.clear();
        cs.free.extend(
            cs.screens
                .iter()
                .filter(|(g, s)| *s == ship && !cs.engaged[*g] && cs.fires_at[*g].is_none())
                .map(|(g, _)| *g),
        );
        cs.queue.clear();
        cs.queue.extend(
            cs.attackers
                .iter()
                .filter(|(a, s)| *s == ship && !cs.engaged[*a] && !is_gunboat(battle, *a))
                .map(|(a, _)| *a),
        );
        if cs.queue.is_empty() {
            continue;
        }
        for (i, &screen) in cs.free.iter().enumerate() {
            let attacker = cs.queue[i % cs.queue.len()];
            cs.fires_at[screen] = Some(Shot::Dogfight(attacker));
            cs.engaged[screen] = true;
            cs.engaged[attacker] = true;
            cs.engaged_by[attacker].get_or_insert(screen);
            if i < cs.queue.len() {
                cs.engaged_by[screen].get_or_insert(attacker);
            }
        }
    }
    cs.ships = ships;
}

/// Engaged groups with no target of their own fire back; free screens of
/// a fighter type that may intercept cover their ship.
fn fire_back_and_cover(battle: &Battle, cs: &mut CraftScratch) {
    for g in 0..battle.units.len() {
        if cs.fires_at[g].is_none()
            && cs.engaged[g]
            && let Some(h) = cs.engaged_by[g]
            && !is_gunboat(battle, g)
        {
            cs.fires_at[g] = Some(Shot::Dogfight(h));
        }
        if cs.engaged[g] {
            cs.intercept[g] = None;
        }
    }
    for &(g, ship) in &cs.screens {
        if !cs.engaged[g] && !cs.exhausted[g] && may_intercept(&craft(battle, g)) {
            cs.intercept[g] = Some(Some(ship));
        }
    }
}

/// Endurance: one per Volley of combat (reading F8); interceptions pay
/// when they roll.
fn pay_endurance<S: Sink>(battle: &mut Battle, cs: &CraftScratch, sink: &mut S) {
    for g in 0..battle.units.len() {
        let Some(shot) = cs.fires_at[g] else { continue };
        let at_gunboats = matches!(shot, Shot::Dogfight(h) if is_gunboat(battle, h));
        let c = craft_mut(battle, g);
        c.cef = c.cef.saturating_sub(1);
        if S::RECORDS {
            let (target, action) = match shot {
                Shot::Dogfight(h) if at_gunboats => (h, "attack on gunboats"),
                Shot::Dogfight(h) => (h, "dogfight"),
                Shot::Run(s) => (s, run_action(c)),
            };
            let cef_left = c.cef;
            sink.event(Event::CraftEngaged {
                group: g,
                target: Some(target),
                action,
                cef_left,
            });
        }
    }
}

/// The name of a group's attack on a ship, by its kind (a table).
fn run_action(c: &Craft) -> &'static str {
    match c.kind {
        CraftKind::Gunboat(GunboatKind::Beam | GunboatKind::Gatling) => "gunboat attack",
        CraftKind::Gunboat(GunboatKind::Torpedo) => "torpedo attack",
        CraftKind::Gunboat(GunboatKind::KGun) => "k-gun attack",
        CraftKind::Gunboat(GunboatKind::Rocket) => "rocket attack",
        CraftKind::Gunboat(GunboatKind::Submunition) => "submunition attack",
        CraftKind::Gunboat(GunboatKind::Missile) => "missile attack",
        CraftKind::Gunboat(GunboatKind::Pds) => unreachable!("PDS gunboats make no attack"),
        CraftKind::Fighter(t) if t.base == FighterBase::Torpedo && !c.torpedoes_spent => "torpedo run",
        CraftKind::Fighter(_) => "attack run",
    }
}

/// Step 4: a Fire Control aimed at a group (readings F7, F14) or a gunboat
/// squadron (§5). Fighters: one die per beam battery in reach, a modified
/// 6 kills one, losses at the Damage step. Gunboats: each beam die that
/// scores kills one boat, a torpedo hit one, at once.
#[allow(clippy::too_many_arguments)]
pub fn fire_at_group<S: Sink>(
    battle: &mut Battle,
    order: &super::plot::FireOrder,
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
            match super::tables::projectile_needed(range, width) {
                Some(needed) => {
                    scratch.note_use(u, w, WeaponUse::FIRED);
                    let face = dice.roll_d6(&mut tap, Purpose::ToHit, Pile::Initial);
                    u32::from(super::tables::projectile_hits(face, needed, drm))
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
            sink.event(Event::GroupShot {
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
        sink.event(Event::CraftLost {
            group: g,
            lost,
            left,
            cause,
        });
        if left == 0 {
            sink.event(Event::Destroyed {
                unit: g,
                cause: "every craft lost",
            });
        }
    }
}

/// A group's pilot quality as the `pilot_quality` switch reads it (reading
/// F18): with the switch off, aces and turkeys fly as ordinary pilots.
fn pilot(rules: &Rules, c: &Craft) -> Option<PilotQuality> {
    match rules.pilot_quality {
        PilotQualityRule::Off => None,
        PilotQualityRule::Record => c.quality,
    }
}

/// The dice a group rolls: one per craft, one more for an ace (reading F18).
fn group_dice(rules: &Rules, c: &Craft) -> u32 {
    c.craft + u32::from(c.craft > 0 && pilot(rules, c) == Some(PilotQuality::Ace))
}

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
            sink.event(Event::CraftRoll {
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
    let needed = super::tables::projectile_needed(range, super::tables::PROJECTILE_SHORT_MU)?;
    let mut hits = 0;
    for _ in 0..n {
        let face = dice.roll_d6(tap, Purpose::ToHit, Pile::Initial);
        hits += u32::from(super::tables::projectile_hits(face, needed, drm));
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
            let points = super::tables::k_gun_damage(GUNBOAT_K_GUN_CLASS, d, advanced);
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
            sink.event(Event::CraftRoll {
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
    if let Some(needed) = super::tables::rocket_needed(range) {
        let mut hit = 0;
        for _ in 0..n {
            let face = dice.roll_d6(tap, Purpose::ToHit, Pile::Initial);
            hit += u32::from(super::tables::projectile_hits(face, needed, drm));
        }
        let to_hit = tap.take();
        let advanced = battle.units[ship].advanced_screen_level();
        for _ in 0..hit {
            let face = dice.roll_d6(tap, Purpose::Damage, Pile::Initial);
            let points = u32::from(super::tables::d3_from_d6(face).saturating_sub(advanced));
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
) -> (u32, i32, super::dice::BeamResult) {
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

/// Why a spent one-shot gunboat squadron idles.
fn spent_reason(c: &Craft) -> &'static str {
    match c.kind {
        CraftKind::Gunboat(GunboatKind::Submunition) => "its submunition packs are spent",
        CraftKind::Gunboat(GunboatKind::Missile) => "its missiles are spent",
        _ => "its rockets are spent",
    }
}

/// Damage step: craft lost in dogfights and to ship fire at fighters.
pub fn apply_losses<S: Sink>(battle: &mut Battle, sink: &mut S, scratch: &mut Scratch) {
    if !scratch.craft.any {
        return;
    }
    for g in 0..battle.units.len() {
        let n = scratch.craft.losses[g];
        if n > 0 && battle.units[g].active() {
            remove_craft(battle, g, n, "dogfights and ship fire", sink);
        }
    }
}

/// End of the Volley: groups docked in a lost bay or a lost carrier are
/// destroyed (a carrier may still blow up in the power-core step);
/// launches stop counting as this Volley's.
pub fn wrap_up<S: Sink>(battle: &mut Battle, sink: &mut S, scratch: &Scratch) {
    if !scratch.craft.any {
        return;
    }
    docked_losses(battle, sink, scratch);
    for u in &mut battle.units {
        if let Some(c) = u.craft.as_mut() {
            c.launched_now = false;
        }
    }
}

/// Groups docked in a lost bay or a lost carrier are destroyed (reading
/// F20). Called right after the threshold checks (docs/fighters.md §2 step
/// 9), so a bay that damage control repairs in the same Volley does not
/// save its group, and again at the end of the Volley.
pub fn docked_losses<S: Sink>(battle: &mut Battle, sink: &mut S, scratch: &Scratch) {
    if !scratch.craft.any {
        return;
    }
    for g in 0..battle.units.len() {
        let Some(c) = battle.units[g].craft else {
            continue;
        };
        let Some((carrier, bay)) = c.carrier else { continue };
        if !c.docked || battle.units[g].destroyed {
            continue;
        }
        let carrier_lost = battle.units[carrier].destroyed;
        let bay_lost = battle.units[carrier]
            .systems
            .get(bay)
            .is_none_or(|s| s.state != SysState::Operational);
        if carrier_lost || bay_lost {
            battle.units[g].destroyed = true;
            if S::RECORDS {
                sink.event(Event::Destroyed {
                    unit: g,
                    cause: if carrier_lost {
                        "lost with its carrier"
                    } else {
                        "lost with its hangar bay"
                    },
                });
            }
        }
    }
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
