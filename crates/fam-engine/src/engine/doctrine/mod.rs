//! Standing orders (doctrine): the plots fam writes itself for a Formation
//! that has no explicit plot. A Formation's [`Doctrine`] says what to
//! maneuver against and how, how to split thrust, what to fire at and with
//! what, when to use point-defence mode, when to withdraw and what to
//! repair first; a Formation without one follows the default doctrine,
//! [`Doctrine::default`], whose every choice is `auto`: the commander of
//! [`plan`] (the range and thrust that suit it against its target, by the
//! expected damage of [`assess`]), with every weapon used when it helps.
//!
//! Pure and deterministic: a plot depends only on the battle state at the
//! start of the Exchange (no dice). Every plot made here passes the orders
//! checks (`tests/all/doctrine.rs`). The rules are written out in
//! `docs/doctrine.md`; [`Choice`] says what each Formation chose and why,
//! for the report.

use super::plot::{
    ExchangePlot, FireOrder, FormationId, FormationPlot, Maneuver, ManeuverOrder, SystemId, UnitId, VolleyPlot,
};
use super::scratch::room;
use super::state::{Battle, SysState};
use super::tables::beam_dice;
use super::tables::submunition_dice;
use super::victory::Victory;
use crate::model::registry::Family;
use crate::model::{SystemKind, Warhead};

pub mod assess;
pub use super::tables::pulser_setting;
mod craft;
pub mod decide;
mod fire;
pub mod plan;
pub use assess::launchable;
pub use craft::largest_ship;
use craft::{carried_groups, carrier_orders, craft_formation_plot, first_launchable};
pub use decide::{Choice, Withdrawal, needle_aim};

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
    /// The default: plan each Volley's maneuver for the range where it
    /// outguns the target, weighing both sides' weapons ([`plan::choose`]).
    #[default]
    Auto,
    /// Close while further than the range at which its beams roll the most
    /// dice ([`best_beam_range`]), Maintain within it; Withdraw with no
    /// working beam.
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
    /// The default: what the plan of the Exchange weighs best against the
    /// threat ([`plan::choose`]).
    #[default]
    Auto,
    /// A third, rounded down.
    Third,
    /// This many dice, at most what `Max` gives.
    Dice(u32),
    /// Half the thrust, rounded down (all of it for a Formation whose every
    /// ship has an advanced drive): the most the rules allow.
    Max,
}

/// When class-1 beams fire in point-defence mode instead of at ships.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PdMode {
    /// The default: class-1 beams defend in a Volley when enemy missiles
    /// or attacking small craft may reach the Formation and the beams would
    /// save more than they score; PDS fire at ships within 6 MU when nothing
    /// threatens and the target has a Unit without screens or armour.
    #[default]
    Auto,
    /// Never: class-1 beams fire at ships.
    Never,
    /// Always: class-1 beams only defend.
    Always,
}

/// When a Formation gives up and withdraws from every enemy Formation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WithdrawWhen {
    /// The default: when the Formation can no longer do damage at any
    /// range and can still move, unless withdrawing would lose the battle
    /// (its side's last Formation going to the Reserve).
    #[default]
    Auto,
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
    /// Pulse torpedoes, every variant (and kinetic guns: projectile weapons).
    Torpedo,
    Needle,
    /// Salvo launchers and racks, heavy missile racks, submunition packs,
    /// MKP packs.
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
            DcKind::Screen => kind.family() == Family::Screen,
            DcKind::Sensor => kind.family() == Family::Sensors,
            DcKind::Beam => matches!(kind.family(), Family::Beam | Family::BeamFamily),
            DcKind::Torpedo => kind.family() == Family::Projectile,
            DcKind::Needle => *kind == K::NeedleBeam,
            DcKind::Ordnance => kind.family() == Family::Ordnance,
            DcKind::PointDefence => kind.family() == Family::PointDefence,
            DcKind::Weapon => kind.is_weapon(),
        }
    }
}

/// A Formation's standing orders. [`Doctrine::default`] is the default
/// doctrine, so a doctrine that changes one thing behaves like the default
/// in everything else.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Doctrine {
    /// The Formation to maneuver against (the primary maneuver).
    pub target: Selector,
    /// What to do against it.
    pub maneuver: Movement,
    pub evasion: EvasionSplit,
    /// The Formation to fire at; `None` (the default): the maneuver target
    /// while its weapons reach it, else the enemy Formation they hurt most.
    pub fire_at: Option<Selector>,
    /// Salvo and heavy missiles and submunition packs.
    pub use_ordnance: Ordnance,
    /// Needle beams, at the system of the target that matters most
    /// ([`needle_aim`]). Default true.
    pub use_needles: bool,
    /// Class-1 beams in point-defence mode.
    pub pd: PdMode,
    pub withdraw_when: WithdrawWhen,
    /// Damage-control priority by kind of system; empty: the default order.
    pub damage_control: Vec<DcKind>,
    /// What its carriers and small craft do.
    pub fighters: FighterUse,
}

impl Default for Doctrine {
    fn default() -> Self {
        Doctrine {
            target: Selector::default(),
            maneuver: Movement::default(),
            evasion: EvasionSplit::default(),
            fire_at: None,
            use_ordnance: Ordnance::default(),
            use_needles: true,
            pd: PdMode::default(),
            withdraw_when: WithdrawWhen::default(),
            damage_control: Vec::new(),
            fighters: FighterUse::default(),
        }
    }
}

/// When a Formation fires its ordnance (salvo and heavy missiles,
/// submunition packs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ordnance {
    /// The default: in the Volleys of the plan where the target is surely
    /// in reach (one-shot racks once, in the first such Volley).
    #[default]
    Auto,
    /// Whenever the fire target is in reach at the start of the Exchange:
    /// racks, heavy missiles and packs in Volley 1, launchers every Volley.
    Always,
    /// Never.
    Never,
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
fn in_fight_into(battle: &Battle, live: &mut Vec<bool>) {
    live.clear();
    live.extend((0..battle.formations.len()).map(|f| battle.formation_active(f)));
}

/// Each Formation's nearest enemy in the fight ([`select_enemy`] by
/// [`Selector::Nearest`]), by Formation, into a reused buffer, with which
/// Formations are in the fight read from `live` ([`in_fight`] of the same
/// battle): found once for a whole plot.
fn nearest_enemies_into(battle: &Battle, live: &[bool], nearest: &mut Vec<Option<FormationId>>) {
    nearest.clear();
    nearest.extend((0..battle.formations.len()).map(|f| select_enemy_in(battle, live, f, Selector::Nearest)));
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
fn enemy_lists_into(battle: &Battle, live: &[bool], (list, spans): (&mut Vec<FormationId>, &mut Vec<(usize, usize)>)) {
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

// ---- Plots ----------------------------------------------------------------

/// The maneuver `movement` gives against `t` at the current range.
fn maneuver_for(battle: &Battle, f: FormationId, t: FormationId, movement: Movement) -> Maneuver {
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

/// Reusable memory for the plot rule: the plot vectors of earlier calls
/// (returned to pools and handed out again) and working lists, so that a
/// warm [`PlotWork`] makes plots without allocating (the batch hot path).
#[derive(Debug, Default)]
pub struct PlotWork {
    formations: Vec<FormationPlot>,
    fire: Vec<FireOrder>,
    /// Fire orders made for the pool so far.
    orders_made: usize,
    lists: Vec<Vec<SystemId>>,
    ranked: Vec<(i64, u32, FormationId)>,
    /// A Unit's systems that may defend.
    pd: Vec<SystemId>,
    every: Vec<SystemId>,
    spare: Vec<SystemId>,
    /// A Unit's systems that may fire: each with whether it is a working
    /// PDS or ADAF, and whether it is a sustained-fire weapon not destroyed.
    armed: Vec<(SystemId, bool, bool)>,
    drawn: Vec<(SystemId, u32)>,
    /// Every Formation's fighting power at the start of the Exchange.
    arsenals: Vec<assess::Arsenal>,
    /// Which Formations are in the fight at the start of the Exchange.
    live: Vec<bool>,
    /// Each Formation's nearest enemy in the fight then.
    nearest: Vec<Option<FormationId>>,
    /// For each side, its enemy Formations in the fight then, in order:
    /// one list after another, each side's where `enemy_spans` says.
    enemies: Vec<FormationId>,
    enemy_spans: Vec<(usize, usize)>,
    /// Each Formation's `Arsenal::reach` then.
    reaches: Vec<u32>,
    /// Each Formation's small-craft Units in the fight then.
    craft: Vec<u32>,
    /// Plans made before (see [`plan::PlanMemo`]).
    memo: std::cell::RefCell<plan::PlanMemo>,
    /// What each Formation with a generated plot chose.
    choices: Vec<Option<Choice>>,
    /// Every group of the battle with a carrier, as (carrier, group).
    carried: Vec<(UnitId, UnitId)>,
    /// Bounds for this battle: Formations, Units, most systems on a Unit,
    /// most systems in a Formation.
    bounds: (usize, usize, usize, usize),
}

/// Formation `f`'s small-craft Units in the fight.
fn craft_units(battle: &Battle, f: FormationId) -> u32 {
    let units = &battle.formations[f].units;
    let n = units
        .iter()
        .filter(|&&u| battle.units[u].active() && battle.units[u].is_craft())
        .count();
    u32::try_from(n).unwrap_or(u32::MAX)
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
        // Every Unit may fire with two Fire Controls (a second target) in
        // each Volley. The orders of the plot being rewritten are still out
        // while the new one is written, so twice that many are made at
        // once: a rare plot late in a batch never has to make one.
        let orders = 2 * 3 * 2 * units;
        room(&mut self.fire, orders);
        while self.orders_made < orders {
            let (weapons, needles) = (Vec::with_capacity(self.bounds.2), Vec::with_capacity(self.bounds.2));
            self.fire.push(FireOrder {
                unit: 0,
                fire_control: 0,
                target: None,
                weapons,
                needles,
                group: None,
            });
            self.orders_made += 1;
        }
        room(&mut self.lists, 3 * units);
        room(&mut self.ranked, formations);
        for list in [&mut self.pd, &mut self.every, &mut self.spare] {
            room(list, unit_max);
        }
        room(&mut self.drawn, unit_max);
        room(&mut self.armed, unit_max);
        self.arsenals.clear();
        self.arsenals
            .extend((0..formations).map(|f| assess::Arsenal::of(battle, f)));
        // The plans name these arsenals by number, found when first asked.
        self.memo.get_mut().start_plot(formations);
        self.reaches.clear();
        self.reaches.extend(self.arsenals.iter().map(assess::Arsenal::reach));
        self.craft.clear();
        self.craft.extend((0..formations).map(|f| craft_units(battle, f)));
        in_fight_into(battle, &mut self.live);
        nearest_enemies_into(battle, &self.live, &mut self.nearest);
        room(&mut self.enemies, battle.sides.len() * formations);
        room(&mut self.enemy_spans, battle.sides.len());
        enemy_lists_into(battle, &self.live, (&mut self.enemies, &mut self.enemy_spans));
        self.choices.clear();
        self.choices.resize(formations, None);
        carried_groups(battle, &mut self.carried);
    }

    /// What Formation `f` chose in the last plot made with this memory
    /// (`None` for an explicit plot, no plot, or small craft).
    pub fn choice(&self, f: FormationId) -> Option<&Choice> {
        self.choices.get(f).and_then(Option::as_ref)
    }

    /// What every Formation chose in the last plot, by Formation.
    pub fn choices(&self) -> &[Option<Choice>] {
        &self.choices
    }

    /// Gives an emptied Volley plot the room the largest plot can need.
    fn size_volley(&self, v: &mut VolleyPlot) {
        let (formations, units, _, formation_max) = self.bounds;
        room(&mut v.secondary, formations);
        room(&mut v.point_defence, formation_max);
        room(&mut v.fire, 2 * units);
        room(&mut v.damage_control, units);
        room(&mut v.launch, units);
        room(&mut v.recover, units);
        room(&mut v.craft, units);
        room(&mut v.reflex, units);
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
        v.reflex.clear();
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
        let made = &mut self.orders_made;
        let mut order = self.fire.pop().unwrap_or_else(|| {
            *made += 1;
            FireOrder {
                unit,
                fire_control,
                target: None,
                weapons: Vec::new(),
                needles: Vec::new(),
                group: None,
            }
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
/// a Formation out of the fight. The victory rules are the default ones.
pub fn doctrine_formation_plot(battle: &Battle, f: FormationId, d: &Doctrine) -> Option<FormationPlot> {
    let mut out = FormationPlot::default();
    let mut w = PlotWork::default();
    w.prepare(battle);
    doctrine_formation_plot_into(battle, &Victory::default(), f, d, &mut out, &mut w).then_some(out)
}

/// [`doctrine_formation_plot`] written into `out` (whose vectors are
/// recycled through `w`, prepared for this battle); `false`, leaving `out`
/// empty, for a Formation out of the fight. What it chose is kept in
/// `w.choices[f]`.
fn doctrine_formation_plot_into(
    battle: &Battle,
    victory: &Victory,
    f: FormationId,
    d: &Doctrine,
    out: &mut FormationPlot,
    w: &mut PlotWork,
) -> bool {
    for v in &mut out.volleys {
        w.recycle_volley(v);
        w.size_volley(v);
    }
    w.choices[f] = None;
    let launching = d.fighters != FighterUse::Hold && first_launchable(battle, f).is_some();
    if battle.craft_only(f) || (!battle.formation_active(f) && launching) {
        return craft_formation_plot(battle, f, d, out);
    }
    if !battle.formation_active(f) {
        return false;
    }
    let mut c = {
        let ctx = decide::Context {
            battle,
            victory,
            tables: assess::tables(),
            arsenals: &w.arsenals,
            live: &w.live,
            enemies: (&w.enemies, &w.enemy_spans),
            nearest: &w.nearest,
            reaches: &w.reaches,
            craft: &w.craft,
            memo: Some(&w.memo),
        };
        decide::decide(&ctx, f, d)
    };
    maneuvers(battle, f, &c, out, w);
    fire::point_defence(battle, f, &c, out, &mut w.pd);
    for &u in &battle.formations[f].units {
        if !battle.units[u].active() {
            continue;
        }
        damage_control(battle, u, d, out, w);
        fire::unit_fire(battle, f, u, d, &c, out, w);
        fire::nova(battle, u, &c, out, w);
        fire::reflex(battle, f, u, &c, out, w);
    }
    c.reflex = [0, 1, 2].map(|v| !out.volleys[v].reflex.is_empty());
    c.nova = [0, 1, 2].map(|v| {
        out.volleys[v].fire.iter().any(|o| {
            o.weapons
                .iter()
                .any(|&s| battle.units[o.unit].systems[s].kind == SystemKind::NovaCannon)
        })
    });
    carrier_orders(battle, f, d.fighters, c.fire_at, &w.carried, out);
    w.choices[f] = Some(c);
    true
}

/// Speed, Evasion and maneuvers of each Volley: the primary maneuver
/// against the target; a withdrawing Formation withdraws from every enemy
/// Formation in the fight (secondary from all but the nearest).
fn maneuvers(battle: &Battle, f: FormationId, c: &Choice, out: &mut FormationPlot, w: &mut PlotWork) {
    if c.withdrawing.is_some() {
        rank_into(battle, f, Selector::Nearest, &mut w.ranked);
    }
    for (v, vp) in out.volleys.iter_mut().enumerate() {
        vp.speed = c.speed;
        vp.evasion = c.evasion;
        vp.primary = c.target.map(|target| ManeuverOrder {
            target,
            maneuver: c.maneuvers[v],
        });
        if c.withdrawing.is_some() {
            vp.secondary
                .extend(w.ranked.iter().skip(1).map(|&(_, _, target)| ManeuverOrder {
                    target,
                    maneuver: Maneuver::Withdraw,
                }));
        }
    }
}

/// Unit `u`'s damage-control priority from the doctrine's kinds.
fn damage_control(battle: &Battle, u: UnitId, d: &Doctrine, out: &mut FormationPlot, w: &mut PlotWork) {
    if d.damage_control.is_empty() {
        return;
    }
    let unit = &battle.units[u];
    w.every.clear();
    for kind in &d.damage_control {
        for (i, s) in unit.systems.iter().enumerate() {
            if kind.matches(&s.kind) && s.state != SysState::Destroyed && !w.every.contains(&i) {
                w.every.push(i);
            }
        }
    }
    if w.every.is_empty() {
        return;
    }
    for vp in &mut out.volleys {
        let mut list = w.lists.pop().unwrap_or_default();
        list.clear();
        room(&mut list, w.bounds.2);
        list.extend_from_slice(&w.every);
        vp.damage_control.push((u, list));
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
/// (when `default_for_rest`) the default doctrine, else no plot. The
/// victory rules are the default ones ([`standing_plot_into`] takes them).
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
        &Victory::default(),
        explicit,
        doctrines,
        default_for_rest,
        &mut plot,
        &mut sources,
        &mut PlotWork::default(),
    );
    (plot, sources)
}

/// [`standing_plot`] under the battle's `victory` rules, written into
/// `plot` and `sources`, reusing their memory and `work`'s: once warm, it
/// allocates nothing unless an explicit plot is copied. `work` keeps what
/// each Formation chose ([`PlotWork::choices`]).
#[allow(clippy::too_many_arguments)]
pub fn standing_plot_into(
    battle: &Battle,
    victory: &Victory,
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
            if doctrine_formation_plot_into(battle, victory, f, d, p, work) {
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
