//! Standing orders (doctrine): the plots fam writes itself for a Formation
//! that has no explicit plot (issue 5). A Formation's [`Doctrine`] says what
//! to maneuver against and how, how to split thrust, what to fire at and
//! with what, when to use point-defence mode, when to withdraw and what to
//! repair first; a Formation without one follows the default doctrine,
//! [`Doctrine::default`]: close to the best range for its beams and fire
//! every beam and torpedo at the nearest enemy Formation.
//!
//! Pure and deterministic: a plot depends only on the battle state at the
//! start of the Exchange (no dice). Every plot made here passes the orders
//! checks (`tests/all/doctrine.rs`). The rules are written out in
//! `docs/doctrine.md`.

use super::plot::{
    ExchangePlot, FireOrder, FormationId, FormationPlot, Maneuver, ManeuverOrder, NeedleOrder, PdOrder, SystemId,
    UnitId, VolleyPlot,
};
use super::state::{Battle, SysState};
use super::tables::beam_dice;
use super::volley::{missile_range, room, submunition_dice};
use crate::gzf::model::{SystemKind, Warhead};

mod craft;
use craft::{carrier_orders, craft_formation_plot, first_launchable};
pub use craft::{largest_ship, launchable};

/// How a Formation picks a Formation to maneuver against or fire at. The
/// candidates are the enemy Formations in the fight; ties go to the nearest,
/// then to the first listed in the scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Selector {
    /// The shortest range.
    #[default]
    Nearest,
    /// The most mass in the fight (the mass of its Units still in the fight).
    Largest,
    /// The least hull left in total (hull boxes not crossed off, over its
    /// Units still in the fight).
    Weakest,
    /// The most beam dice at the current range between the two Formations
    /// (every working beam battery of its Units in the fight).
    MostDangerous,
    /// This Formation while it is in the fight; otherwise the nearest enemy.
    /// For maneuvers it may be a friendly Formation (not the Formation
    /// itself); fire goes only at enemies.
    Formation(FormationId),
}

/// What a Formation does against its maneuver target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Movement {
    /// Close while further than the range at which its beams roll the most
    /// dice ([`best_beam_range`]), Maintain within it; Withdraw with no
    /// working beam.
    #[default]
    BestRange,
    Close,
    Maintain,
    Withdraw,
    /// Hold a range in MU: Close when further than N + 3, Withdraw when
    /// nearer than N − 3, Maintain otherwise.
    Hold(u32),
}

/// How much of the Formation Thrust goes to Evasion (the rest to Speed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EvasionSplit {
    /// A third, rounded down.
    #[default]
    Third,
    /// This many dice, at most half the thrust (rounded down).
    Dice(u32),
    /// Half the thrust, rounded down: the most the rules allow.
    Max,
}

/// When class-1 beams fire in point-defence mode instead of at ships.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PdMode {
    /// When an enemy Formation in the fight has a Unit with missiles left
    /// ([`enemy_has_missiles`]).
    Auto,
    /// Never: class-1 beams fire at ships.
    #[default]
    Never,
    /// Always: class-1 beams only defend.
    Always,
}

/// When a Formation gives up and withdraws from every enemy Formation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WithdrawWhen {
    #[default]
    Never,
    /// More than half of the Formation's mass is crippled or out of the fight.
    Crippled,
    /// At least this percentage of the Formation's mass is out of the fight
    /// (destroyed, abandoned or surrendered).
    Losses(u32),
}

/// Kinds of systems a damage-control priority names; each Unit's matching
/// systems go into its plotted priority, kind by kind, in system order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DcKind {
    Bridge,
    PowerCore,
    LifeSupport,
    Ftl,
    FireControl,
    Adfc,
    Screen,
    /// Standard, enhanced and superior sensors.
    Sensor,
    /// Beam batteries (FB1 classes, FT2 A/B/C).
    Beam,
    /// Pulse torpedoes, every variant.
    Torpedo,
    Needle,
    /// Salvo launchers and racks, heavy missile racks, submunition packs.
    Ordnance,
    /// PDS/PDAF, ADAF, Scattergun.
    PointDefence,
    /// Every weapon.
    Weapon,
}

impl DcKind {
    /// Every kind, in the order the documentation lists them.
    pub const ALL: [DcKind; 14] = [
        DcKind::Bridge,
        DcKind::PowerCore,
        DcKind::LifeSupport,
        DcKind::Ftl,
        DcKind::FireControl,
        DcKind::Adfc,
        DcKind::Screen,
        DcKind::Sensor,
        DcKind::Beam,
        DcKind::Torpedo,
        DcKind::Needle,
        DcKind::Ordnance,
        DcKind::PointDefence,
        DcKind::Weapon,
    ];

    /// Whether a system of this kind is named by `self`.
    pub fn matches(self, kind: &SystemKind) -> bool {
        use SystemKind as K;
        match self {
            DcKind::Bridge => *kind == K::CommandBridge,
            DcKind::PowerCore => *kind == K::PowerCore,
            DcKind::LifeSupport => *kind == K::LifeSupport,
            DcKind::Ftl => *kind == K::Ftl,
            DcKind::FireControl => *kind == K::FireControl,
            DcKind::Adfc => *kind == K::Adfc,
            DcKind::Screen => *kind == K::ScreenGenerator,
            DcKind::Sensor => matches!(kind, K::Sensors | K::EnhancedSensors | K::SuperiorSensors),
            DcKind::Beam => matches!(kind, K::Beam { .. }),
            DcKind::Torpedo => matches!(kind, K::PulseTorpedo { .. }),
            DcKind::Needle => *kind == K::NeedleBeam,
            DcKind::Ordnance => matches!(kind, K::Sml | K::Smr | K::Missile { .. } | K::SubmunitionPack),
            DcKind::PointDefence => matches!(kind, K::Pds | K::Adaf | K::Scattergun),
            DcKind::Weapon => kind.is_weapon(),
        }
    }
}

/// A Formation's standing orders. [`Doctrine::default`] is the default
/// doctrine, so a doctrine that changes one thing behaves like the default
/// in everything else.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Doctrine {
    /// The Formation to maneuver against (the primary maneuver).
    pub target: Selector,
    /// What to do against it.
    pub maneuver: Movement,
    pub evasion: EvasionSplit,
    /// The Formation to fire at; `None`: the maneuver target when it is an
    /// enemy Formation, else the nearest enemy.
    pub fire_at: Option<Selector>,
    /// Fire salvo and heavy missiles and submunition packs when the fire
    /// target is within their reach at the start of the Exchange.
    pub use_ordnance: bool,
    /// Fire needle beams at the first weapon of the target's largest Unit.
    pub use_needles: bool,
    /// Class-1 beams in point-defence mode.
    pub pd: PdMode,
    pub withdraw_when: WithdrawWhen,
    /// Damage-control priority by kind of system; empty: the default order.
    pub damage_control: Vec<DcKind>,
    /// What its carriers and small craft do.
    pub fighters: FighterUse,
}

/// How a Formation uses its carriers and small craft (docs/doctrine.md,
/// "Carriers and small craft").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FighterUse {
    /// Launch every ready group; Formations of groups strike, groups riding
    /// with ships screen; exhausted groups come home.
    #[default]
    Strike,
    /// Launch nothing; bring every group home and recover it.
    Hold,
}

/// Where a Formation's plot for an Exchange came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlotSource {
    /// Written by its commander (scenario or orders file).
    Explicit,
    /// Generated from its `[doctrine]` standing orders.
    StandingOrders,
    /// Generated by the default doctrine.
    DefaultDoctrine,
    /// No plot: out of the fight, or (in a single Exchange) a Formation with
    /// neither plot nor standing orders (it maintains and does not fire).
    NoPlot,
}

impl PlotSource {
    /// How reports name it.
    pub fn describe(self) -> &'static str {
        match self {
            PlotSource::Explicit => "explicit",
            PlotSource::StandingOrders => "standing orders",
            PlotSource::DefaultDoctrine => "default doctrine",
            PlotSource::NoPlot => "no plot",
        }
    }

    /// How the JSON result names it.
    pub fn key(self) -> &'static str {
        match self {
            PlotSource::Explicit => "explicit",
            PlotSource::StandingOrders => "standing_orders",
            PlotSource::DefaultDoctrine => "default",
            PlotSource::NoPlot => "none",
        }
    }

    /// Plotted by fam rather than a commander.
    pub fn generated(self) -> bool {
        matches!(self, PlotSource::StandingOrders | PlotSource::DefaultDoctrine)
    }
}

// ---- Measures -------------------------------------------------------------

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
    let side = battle.formations[f].side;
    (0..battle.formations.len()).filter(move |&e| battle.formations[e].side != side && battle.formation_active(e))
}

/// Whether `t` is an enemy Formation of `f` in the fight.
pub fn is_live_enemy(battle: &Battle, f: FormationId, t: FormationId) -> bool {
    t < battle.formations.len() && battle.formations[t].side != battle.formations[f].side && battle.formation_active(t)
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
        Selector::Nearest => 0,
        Selector::Largest => -i64::from(mass_in_fight(battle, e)),
        Selector::Weakest => i64::from(hull_in_fight(battle, e)),
        Selector::MostDangerous => -i64::from(beam_dice_at(battle, e, range)),
        Selector::Formation(t) => i64::from(e != t),
    };
    (key, range, e)
}

/// [`rank`] into a reused buffer of `(key, range, Formation)`, best first.
fn rank_into(battle: &Battle, f: FormationId, by: Selector, keyed: &mut Vec<(i64, u32, FormationId)>) {
    keyed.clear();
    keyed.extend(enemies(battle, f).map(|e| rank_key(battle, f, e, by)));
    keyed.sort_unstable();
}

/// The enemy Formation `by` picks, if any enemy is left in the fight.
pub fn select_enemy(battle: &Battle, f: FormationId, by: Selector) -> Option<FormationId> {
    enemies(battle, f)
        .map(|e| rank_key(battle, f, e, by))
        .min()
        .map(|(_, _, e)| e)
}

/// The Formation `f` maneuvers against: a named Formation (friend or foe,
/// not `f` itself) while it is in the fight, otherwise the enemy the
/// selector picks (a named Formation out of the fight: the nearest enemy).
pub fn maneuver_target(battle: &Battle, f: FormationId, by: Selector) -> Option<FormationId> {
    match by {
        Selector::Formation(t) if t != f && t < battle.formations.len() && battle.formation_active(t) => Some(t),
        Selector::Formation(_) => select_enemy(battle, f, Selector::Nearest),
        other => select_enemy(battle, f, other),
    }
}

/// The enemy Formation `f` fires at under doctrine `d`.
pub fn fire_target(battle: &Battle, f: FormationId, d: &Doctrine) -> Option<FormationId> {
    // Formations of small craft take no fire at a Formation (reading F1):
    // Fire Controls engage them group by group, which doctrine leaves out.
    let ships = |t: &FormationId| !battle.craft_only(*t);
    let t = match d.fire_at {
        Some(by) => select_enemy(battle, f, by),
        None => maneuver_target(battle, f, d.target)
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
        WithdrawWhen::Never => false,
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
                            } => s.rounds_left() > 0,
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

/// Where needle beams aim at Formation `t`: its largest Unit in the fight
/// (most mass, ties the first listed) that has a weapon not destroyed, at
/// the first such weapon (lowest system number).
pub fn needle_aim(battle: &Battle, t: FormationId) -> Option<(UnitId, SystemId)> {
    let mut best: Option<(u32, UnitId, SystemId)> = None;
    for &u in &battle.formations[t].units {
        let unit = &battle.units[u];
        if !unit.active() || best.is_some_and(|(mass, _, _)| unit.mass <= mass) {
            continue;
        }
        if let Some(s) = unit
            .systems
            .iter()
            .position(|s| s.kind.is_weapon() && !s.kind.is_core() && s.state != SysState::Destroyed)
        {
            best = Some((unit.mass, u, s));
        }
    }
    best.map(|(_, u, s)| (u, s))
}

// ---- Plots ----------------------------------------------------------------

/// The maneuver `movement` gives against `t` at the current range.
fn maneuver_for(battle: &Battle, f: FormationId, t: FormationId, movement: Movement) -> Maneuver {
    let range = battle.ranges.get(f, t);
    match movement {
        Movement::Close => Maneuver::Close,
        Movement::Maintain => Maneuver::Maintain,
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

/// Reusable memory for the plot rule: the plot vectors of earlier calls
/// (returned to pools and handed out again) and working lists, so that a
/// warm [`PlotWork`] makes plots without allocating (the batch hot path).
#[derive(Debug, Default)]
pub struct PlotWork {
    formations: Vec<FormationPlot>,
    fire: Vec<FireOrder>,
    lists: Vec<Vec<SystemId>>,
    ranked: Vec<(i64, u32, FormationId)>,
    pd: Vec<SystemId>,
    every: Vec<SystemId>,
    weapons: [Vec<SystemId>; 3],
    drawn: Vec<(SystemId, u32)>,
    /// Bounds for this battle: Formations, Units, most systems on a Unit,
    /// most systems in a Formation.
    bounds: (usize, usize, usize, usize),
}

impl PlotWork {
    /// Sizes every pool and list for `battle` at once, so that which plot
    /// vector is handed to which Formation never makes one grow later.
    fn prepare(&mut self, battle: &Battle) {
        let systems = |u: &UnitId| battle.units[*u].systems.len();
        let unit_max = battle.units.iter().map(|u| u.systems.len()).max().unwrap_or(0);
        let formation_max = battle
            .formations
            .iter()
            .map(|f| f.units.iter().map(systems).sum::<usize>())
            .max()
            .unwrap_or(0);
        self.bounds = (battle.formations.len(), battle.units.len(), unit_max, formation_max);
        let (formations, units, _, _) = self.bounds;
        room(&mut self.formations, formations);
        room(&mut self.fire, 3 * units);
        room(&mut self.lists, 3 * units);
        room(&mut self.ranked, formations);
        for list in [&mut self.pd, &mut self.every]
            .into_iter()
            .chain(self.weapons.iter_mut())
        {
            room(list, unit_max);
        }
        room(&mut self.drawn, unit_max);
    }

    /// Gives an emptied Volley plot the room the largest plot can need.
    fn size_volley(&self, v: &mut VolleyPlot) {
        let (formations, units, _, formation_max) = self.bounds;
        room(&mut v.secondary, formations);
        room(&mut v.point_defence, formation_max);
        room(&mut v.fire, units);
        room(&mut v.damage_control, units);
        room(&mut v.launch, units);
        room(&mut v.recover, units);
        room(&mut v.craft, units);
    }

    /// Empties `v` (Volley plots keep their capacity), returning its fire
    /// orders and damage-control lists to the pools.
    fn recycle_volley(&mut self, v: &mut VolleyPlot) {
        v.secondary.clear();
        v.shifts.clear();
        v.point_defence.clear();
        v.launch.clear();
        v.recover.clear();
        v.craft.clear();
        v.after = None;
        self.fire.append(&mut v.fire);
        self.lists.extend(v.damage_control.drain(..).map(|(_, list)| list));
    }

    /// Returns a Formation's plot vectors to the pools.
    fn recycle(&mut self, mut p: FormationPlot) {
        for v in &mut p.volleys {
            self.recycle_volley(v);
        }
        self.formations.push(p);
    }

    fn fire_order(&mut self, unit: UnitId, fire_control: SystemId, target: FormationId) -> FireOrder {
        let mut order = self.fire.pop().unwrap_or_else(|| FireOrder {
            unit,
            fire_control,
            target: None,
            weapons: Vec::new(),
            needles: Vec::new(),
            group: None,
        });
        order.unit = unit;
        order.fire_control = fire_control;
        order.target = Some(target);
        order.group = None;
        order.weapons.clear();
        order.needles.clear();
        room(&mut order.weapons, self.bounds.2);
        room(&mut order.needles, self.bounds.2);
        order
    }
}

/// Formation `f`'s plot for a whole Exchange under doctrine `d`; `None` for
/// a Formation out of the fight.
pub fn doctrine_formation_plot(battle: &Battle, f: FormationId, d: &Doctrine) -> Option<FormationPlot> {
    let mut out = FormationPlot::default();
    doctrine_formation_plot_into(battle, f, d, &mut out, &mut PlotWork::default()).then_some(out)
}

/// [`doctrine_formation_plot`] written into `out` (whose vectors are
/// recycled through `w`); `false`, leaving `out` empty, for a Formation out
/// of the fight.
fn doctrine_formation_plot_into(
    battle: &Battle,
    f: FormationId,
    d: &Doctrine,
    out: &mut FormationPlot,
    w: &mut PlotWork,
) -> bool {
    for v in &mut out.volleys {
        w.recycle_volley(v);
        w.size_volley(v);
    }
    let launching = d.fighters != FighterUse::Hold && first_launchable(battle, f).is_some();
    if battle.craft_only(f) || (!battle.formation_active(f) && launching) {
        return craft_formation_plot(battle, f, d, out);
    }
    if !battle.formation_active(f) {
        return false;
    }
    let withdrawing = withdraw_triggered(battle, f, d.withdraw_when);
    let thrust = battle.formation_thrust(f);
    let cap = thrust / 2;
    let evasion = if withdrawing {
        0
    } else {
        match d.evasion {
            EvasionSplit::Third => thrust / 3,
            EvasionSplit::Dice(n) => n,
            EvasionSplit::Max => cap,
        }
        .min(cap)
    };
    let primary = if withdrawing {
        // Away from every enemy: the nearest as the primary target.
        rank_into(battle, f, Selector::Nearest, &mut w.ranked);
        w.ranked.first().map(|&(_, _, target)| ManeuverOrder {
            target,
            maneuver: Maneuver::Withdraw,
        })
    } else {
        maneuver_target(battle, f, d.target).map(|t| ManeuverOrder {
            target: t,
            maneuver: maneuver_for(battle, f, t, d.maneuver),
        })
    };
    for v in &mut out.volleys {
        v.speed = thrust - evasion;
        v.evasion = evasion;
        v.primary = primary;
        if withdrawing {
            v.secondary
                .extend(w.ranked.iter().skip(1).map(|&(_, _, target)| ManeuverOrder {
                    target,
                    maneuver: Maneuver::Withdraw,
                }));
        }
    }
    let target = fire_target(battle, f, d);
    let pd_on = match d.pd {
        PdMode::Never => false,
        PdMode::Always => true,
        PdMode::Auto => enemy_has_missiles(battle, f),
    };
    let aim = target.filter(|_| d.use_needles).and_then(|t| needle_aim(battle, t));
    for &u in &battle.formations[f].units {
        let unit = &battle.units[u];
        if !unit.active() {
            continue;
        }
        let live = |s: &super::state::Sys| s.state != SysState::Destroyed;
        w.pd.clear();
        w.pd.extend(
            unit.systems
                .iter()
                .enumerate()
                .filter(|(_, s)| pd_on && matches!(s.kind, SystemKind::Beam { class: 1 }) && live(s))
                .map(|(i, _)| i),
        );
        for v in &mut out.volleys {
            v.point_defence.extend(w.pd.iter().map(|&weapon| PdOrder {
                unit: u,
                weapon,
                defend: None,
            }));
        }
        if !d.damage_control.is_empty() {
            w.every.clear();
            for kind in &d.damage_control {
                for (i, s) in unit.systems.iter().enumerate() {
                    if kind.matches(&s.kind) && live(s) && !w.every.contains(&i) {
                        w.every.push(i);
                    }
                }
            }
            if !w.every.is_empty() {
                for vi in 0..3 {
                    let mut list = w.lists.pop().unwrap_or_default();
                    list.clear();
                    room(&mut list, w.bounds.2);
                    list.extend_from_slice(&w.every);
                    out.volleys[vi].damage_control.push((u, list));
                }
            }
        }
        let (Some(t), Some(fc)) = (target, unit.fire_controls().next()) else {
            continue;
        };
        // Beams (but class-1 beams defending) and torpedoes, every Volley.
        w.every.clear();
        w.every.extend(
            unit.systems
                .iter()
                .enumerate()
                .filter(|(i, s)| {
                    live(s)
                        && !w.pd.contains(i)
                        && (matches!(s.kind, SystemKind::Beam { .. } | SystemKind::PulseTorpedo { .. })
                            || (aim.is_some() && matches!(s.kind, SystemKind::NeedleBeam)))
                })
                .map(|(i, _)| i),
        );
        for list in &mut w.weapons {
            list.clear();
            list.extend_from_slice(&w.every);
        }
        if d.use_ordnance {
            ordnance(battle, f, t, u, &mut w.weapons, &mut w.drawn);
        }
        for vi in 0..3 {
            if w.weapons[vi].is_empty() {
                continue;
            }
            let mut order = w.fire_order(u, fc, t);
            order.weapons.extend_from_slice(&w.weapons[vi]);
            if let Some((tu, ts)) = aim {
                order.needles.extend(
                    w.weapons[vi]
                        .iter()
                        .filter(|&&weapon| matches!(unit.systems[weapon].kind, SystemKind::NeedleBeam))
                        .map(|&weapon| NeedleOrder {
                            weapon,
                            unit: tu,
                            system: ts,
                        }),
                );
            }
            out.volleys[vi].fire.push(order);
        }
    }
    carrier_orders(battle, f, d.fighters, target, out);
    true
}

/// Adds Unit `u`'s ordnance to its weapons per Volley when the target `t`
/// is within reach at the start of the Exchange: racks, heavy missiles and
/// submunition packs in Volley 1, salvo launchers one load a Volley while
/// their magazine has loads (launchers on one magazine share it). Each list
/// ends sorted.
fn ordnance(
    battle: &Battle,
    f: FormationId,
    t: FormationId,
    u: UnitId,
    weapons: &mut [Vec<SystemId>; 3],
    drawn: &mut Vec<(SystemId, u32)>,
) {
    let unit = &battle.units[u];
    let range = battle.ranges.get(f, t);
    for (i, s) in unit.systems.iter().enumerate() {
        if !s.operational() || s.rounds_left() == 0 {
            continue;
        }
        let reach = match s.kind {
            SystemKind::Smr
            | SystemKind::Missile {
                warhead: Warhead::Standard,
            } => range <= missile_range(s.er),
            SystemKind::SubmunitionPack => submunition_dice(range) > 0,
            _ => false,
        };
        if reach {
            weapons[0].push(i);
        }
    }
    drawn.clear();
    for list in weapons.iter_mut() {
        for (i, s) in unit.systems.iter().enumerate() {
            if !matches!(s.kind, SystemKind::Sml) || !s.operational() || range > missile_range(s.er) {
                continue;
            }
            let Some(m) = s.magazine else { continue };
            let loads = unit
                .systems
                .get(m)
                .filter(|m| m.state == SysState::Operational)
                .map_or(0, |m| m.rounds_left());
            let n = match drawn.iter().position(|x| x.0 == m) {
                Some(k) => &mut drawn[k].1,
                None => {
                    drawn.push((m, 0));
                    &mut drawn.last_mut().expect("just pushed").1
                }
            };
            if *n < loads {
                *n += 1;
                list.push(i);
            }
        }
    }
    for list in weapons.iter_mut() {
        list.sort_unstable();
    }
}

/// The default plot of one Formation for a whole Exchange (the default
/// doctrine, [`Doctrine::default`]).
pub fn default_formation_plot(battle: &Battle, f: FormationId) -> Option<FormationPlot> {
    doctrine_formation_plot(battle, f, &Doctrine::default())
}

/// Default plots for every Formation in the fight.
pub fn default_plot(battle: &Battle) -> ExchangePlot {
    ExchangePlot {
        formations: (0..battle.formations.len())
            .map(|f| default_formation_plot(battle, f))
            .collect(),
    }
}

/// Every Formation's plot by its standing orders, or by the default
/// doctrine for a Formation without (`doctrines[f]` is `None`, or `f` is
/// beyond the slice).
pub fn doctrine_plot(battle: &Battle, doctrines: &[Option<Doctrine>]) -> ExchangePlot {
    standing_plot(battle, &ExchangePlot::default(), doctrines, true).0
}

/// The plots of an Exchange and where each came from: a Formation's
/// explicit plot where `explicit` has one, else its standing orders, else
/// (when `default_for_rest`) the default doctrine, else no plot.
pub fn standing_plot(
    battle: &Battle,
    explicit: &ExchangePlot,
    doctrines: &[Option<Doctrine>],
    default_for_rest: bool,
) -> (ExchangePlot, Vec<PlotSource>) {
    let mut plot = ExchangePlot::default();
    let mut sources = Vec::new();
    standing_plot_into(
        battle,
        explicit,
        doctrines,
        default_for_rest,
        &mut plot,
        &mut sources,
        &mut PlotWork::default(),
    );
    (plot, sources)
}

/// [`standing_plot`] written into `plot` and `sources`, reusing their
/// memory and `work`'s: once warm, it allocates nothing unless an explicit
/// plot is copied.
pub fn standing_plot_into(
    battle: &Battle,
    explicit: &ExchangePlot,
    doctrines: &[Option<Doctrine>],
    default_for_rest: bool,
    plot: &mut ExchangePlot,
    sources: &mut Vec<PlotSource>,
    work: &mut PlotWork,
) {
    work.prepare(battle);
    let n = battle.formations.len();
    while plot.formations.len() > n {
        if let Some(p) = plot.formations.pop().flatten() {
            work.recycle(p);
        }
    }
    plot.formations.resize_with(n, || None);
    sources.clear();
    let default = Doctrine::default();
    for f in 0..n {
        let slot = &mut plot.formations[f];
        let source = if let Some(p) = explicit.formations.get(f).and_then(Option::as_ref) {
            if let Some(old) = slot.take() {
                work.recycle(old);
            }
            *slot = Some(p.clone());
            PlotSource::Explicit
        } else {
            let (d, source) = match doctrines.get(f).and_then(Option::as_ref) {
                Some(d) => (d, PlotSource::StandingOrders),
                None if default_for_rest => (&default, PlotSource::DefaultDoctrine),
                None => {
                    if let Some(old) = slot.take() {
                        work.recycle(old);
                    }
                    sources.push(PlotSource::NoPlot);
                    continue;
                }
            };
            // Written in place: a Formation's plot is large to move.
            let p = slot.get_or_insert_with(|| work.formations.pop().unwrap_or_default());
            if doctrine_formation_plot_into(battle, f, d, p, work) {
                source
            } else {
                if let Some(p) = slot.take() {
                    work.recycle(p);
                }
                PlotSource::NoPlot
            }
        };
        sources.push(source);
    }
}
