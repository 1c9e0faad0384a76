//! What a batch counts: fixed-size integer tallies, added up run by run and
//! merged by addition (and by minimum run index for the notable runs), so
//! the order in which threads, chunks or shards are combined never changes
//! the result, and the memory used does not grow with the number of runs.

use std::ops::Range;

use super::stats::Histogram;
use crate::engine::plot::{SystemId, UnitId};
use crate::engine::state::{Battle, Reserve, SysState, Unit, is_one_shot};
use crate::engine::victory::{Outcome, Reason};
use crate::engine::volley::{DamageKind, WeaponUses};

/// What became of a Unit by the end of a run. Exactly one applies, the
/// first in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Destroyed, or abandoned by its crew (a derelict).
    Destroyed = 0,
    /// Struck its colours.
    Surrendered = 1,
    /// In the fight but with its Formation in the off-board Reserve.
    Withdrawn = 2,
    /// Nothing about it changed during the battle (no box, system, thrust
    /// or control lost), whatever its state at the start.
    Untouched = 3,
    /// Crippled at the end (Continuum §4.12: two hull rows gone, or no
    /// offensive weapon, Fire Control or thrust left).
    Crippled = 4,
    /// Damaged, but none of the above.
    Damaged = 5,
}

impl Fate {
    pub const ALL: [Fate; 6] = [
        Fate::Destroyed,
        Fate::Surrendered,
        Fate::Withdrawn,
        Fate::Untouched,
        Fate::Crippled,
        Fate::Damaged,
    ];

    /// The key used in JSON and CSV.
    pub fn key(self) -> &'static str {
        match self {
            Fate::Destroyed => "destroyed",
            Fate::Surrendered => "surrendered",
            Fate::Withdrawn => "withdrawn",
            Fate::Untouched => "untouched",
            Fate::Crippled => "crippled",
            Fate::Damaged => "damaged",
        }
    }

    /// Classifies a Unit at the end of a run against its state at the start.
    pub fn of(start: &Unit, end: &Unit, end_battle: &Battle) -> Fate {
        if end.destroyed || end.derelict {
            Fate::Destroyed
        } else if end.surrendered {
            Fate::Surrendered
        } else if end_battle.formations[end.formation].reserve == Reserve::InReserve {
            Fate::Withdrawn
        } else if untouched(start, end) {
            Fate::Untouched
        } else if end.crippled() {
            Fate::Crippled
        } else {
            Fate::Damaged
        }
    }
}

fn untouched(start: &Unit, end: &Unit) -> bool {
    start.hull_lost == end.hull_lost
        && start.craft.map(|c| c.craft) == end.craft.map(|c| c.craft)
        && start.armour_lost == end.armour_lost
        && start.thrust == end.thrust
        && start.control == end.control
        && start.life_support_failing == end.life_support_failing
        && start
            .systems
            .iter()
            .zip(&end.systems)
            .all(|(a, b)| a.state == b.state || b.state == SysState::Operational)
}

/// Hull boxes a Unit lost during a run; a destroyed Unit has lost all it
/// had. For a fighter group or gunboat squadron: craft lost.
pub fn hull_damage(start: &Unit, end: &Unit) -> u32 {
    let before = hull_or_craft(start);
    if end.destroyed {
        before
    } else {
        before.saturating_sub(hull_or_craft(end))
    }
}

/// Hull boxes left, or for small craft the craft still flying.
pub fn hull_or_craft(u: &Unit) -> u32 {
    u.craft.map_or_else(|| u.hull_left(), |c| c.craft)
}

/// Points a side lost: Units in the fight at the start and out of it
/// (destroyed, abandoned or surrendered) at the end.
pub fn points_lost(start: &Battle, end: &Battle, side: usize) -> u32 {
    start
        .units
        .iter()
        .zip(&end.units)
        .filter(|(a, b)| b.side == side && a.active() && !b.active())
        .fold(0u32, |sum, (_, b)| sum.saturating_add(b.points))
}

/// Which condition decided a run (the index into [`Tally::decided_by`]).
pub const REASONS: [&str; 6] = [
    "annihilation",
    "unit_destroyed",
    "unit_escaped",
    "morale",
    "points_destroyed",
    "exchange_limit",
];

fn reason_index(r: &Reason) -> usize {
    match r {
        Reason::Annihilation => 0,
        Reason::UnitDestroyed(_) => 1,
        Reason::UnitEscaped(_) => 2,
        Reason::Morale => 3,
        Reason::PointsDestroyed => 4,
        Reason::ExchangeLimit => 5,
    }
}

/// A run index and a value to rank runs by.
pub type RunMark = Option<u64>;

fn first(a: RunMark, b: RunMark) -> RunMark {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// Per-Unit counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitTally {
    /// Runs ending in each [`Fate`], indexed by `Fate as usize`.
    pub fates: [u64; 6],
    /// Runs its side won with the Unit still in the fight (or in the Reserve).
    pub survived_side_won: u64,
    /// Hull boxes lost per run, `0..=` the hull it had at the start.
    pub hull_damage: Histogram,
    /// The first run in which it was destroyed or abandoned.
    pub first_death: RunMark,
}

/// Per-side counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideTally {
    pub wins: u64,
    /// Points lost per run, `0..=` the points the side had in the fight.
    pub points_lost: Histogram,
    /// The first run the side won.
    pub first_win: RunMark,
    /// Damage points its weapons scored, summed over runs, by
    /// `engine::volley::DamageKind`.
    pub damage_by_kind: [u64; DamageKind::COUNT],
}

/// The weapons a batch follows: every weapon (point defence included) of
/// every ship Unit in the fight at the start that could still fire then
/// (not destroyed, and for one-shot weapons not spent), in Unit and system
/// order.
pub fn tracked_weapons(start: &Battle) -> impl Iterator<Item = (UnitId, SystemId)> + '_ {
    start
        .units
        .iter()
        .enumerate()
        .filter(|(_, u)| !u.is_craft() && !u.lost())
        .flat_map(|(i, u)| {
            u.systems.iter().enumerate().filter_map(move |(w, s)| {
                let spent = is_one_shot(&s.kind) && s.rounds_left() == 0;
                (s.kind.is_weapon() && s.state != SysState::Destroyed && !spent).then_some((i, w))
            })
        })
}

/// Per-weapon counts: runs in which the weapon was plotted, fired, and so
/// on (the flags of `engine::volley::WeaponUse`, each counted once a run).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WeaponTally {
    pub unit: UnitId,
    /// 0-based (shown 1-based).
    pub system: SystemId,
    /// Runs in which a plot assigned it (fire or point-defence orders).
    pub plotted: u64,
    /// Runs in which it rolled a die or launched ordnance within reach.
    pub fired: u64,
    /// Runs in which it was plotted at a target beyond its reach.
    pub out_of_range: u64,
    /// Runs in which it was plotted in point-defence mode.
    pub point_defence: u64,
    /// Runs in which it was plotted but its Unit, its Fire Control or it
    /// was out of action, or its ordnance spent, when it was due to fire.
    pub stopped: u64,
}

impl WeaponTally {
    fn new((unit, system): (UnitId, SystemId)) -> WeaponTally {
        WeaponTally {
            unit,
            system,
            plotted: 0,
            fired: 0,
            out_of_range: 0,
            point_defence: 0,
            stopped: 0,
        }
    }

    fn add(&mut self, uses: &WeaponUses<'_>) {
        let u = uses.get(self.unit, self.system);
        self.plotted += u64::from(u.plotted());
        self.fired += u64::from(u.fired());
        self.out_of_range += u64::from(u.out_of_range());
        self.point_defence += u64::from(u.point_defence());
        self.stopped += u64::from(u.stopped());
    }

    fn merge(&mut self, o: &WeaponTally) -> Result<(), String> {
        self.plotted = sum(self.plotted, o.plotted)?;
        self.fired = sum(self.fired, o.fired)?;
        self.out_of_range = sum(self.out_of_range, o.out_of_range)?;
        self.point_defence = sum(self.point_defence, o.point_defence)?;
        self.stopped = sum(self.stopped, o.stopped)?;
        Ok(())
    }

    /// Its five counts, in the order of the fields.
    fn counts(&self) -> [u64; 5] {
        [
            self.plotted,
            self.fired,
            self.out_of_range,
            self.point_defence,
            self.stopped,
        ]
    }
}

/// `a + b`, or an error when it passes 2^64 − 1: counts of real runs never
/// do (they are at most the runs), counts read from a file might.
fn sum(a: u64, b: u64) -> Result<u64, String> {
    a.checked_add(b)
        .ok_or_else(|| "the counts added up pass 2^64 − 1".to_string())
}

/// `a[i] += b[i]` for every `i`, checked as [`sum`].
fn add_each(a: &mut [u64], b: &[u64]) -> Result<(), String> {
    for (x, y) in a.iter_mut().zip(b) {
        *x = sum(*x, *y)?;
    }
    Ok(())
}

/// Dice rolled per battle: moments and extremes (exact integers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DiceTally {
    pub sum: u128,
    pub sum_sq: u128,
    pub min: Option<u64>,
    pub max: Option<u64>,
}

impl DiceTally {
    fn add(&mut self, d: u64) {
        self.sum += u128::from(d);
        self.sum_sq += u128::from(d) * u128::from(d);
        self.min = Some(self.min.map_or(d, |m| m.min(d)));
        self.max = Some(self.max.map_or(d, |m| m.max(d)));
    }

    fn merge(&mut self, o: &DiceTally) -> Result<(), String> {
        let overflow = || "the dice sums added up pass 2^128 − 1".to_string();
        self.sum = self.sum.checked_add(o.sum).ok_or_else(overflow)?;
        self.sum_sq = self.sum_sq.checked_add(o.sum_sq).ok_or_else(overflow)?;
        self.min = match (self.min, o.min) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.max = match (self.max, o.max) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        Ok(())
    }
}

/// Everything a batch counts. Its size is fixed by the scenario and the
/// Exchange cap, never by the number of runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tally {
    pub runs: u64,
    pub sides: Vec<SideTally>,
    pub draws: u64,
    /// Runs that hit the Exchange cap of the batch before any `[victory]`
    /// condition (including the scenario's own Exchange limit) decided.
    pub undecided: u64,
    /// Decided runs (wins and draws) by condition, in [`REASONS`] order.
    pub decided_by: [u64; 6],
    /// Exchanges played per run, `1..=` the cap.
    pub exchanges: Histogram,
    pub dice: DiceTally,
    pub units: Vec<UnitTally>,
    /// The [`tracked_weapons`], in their order.
    pub weapons: Vec<WeaponTally>,
    pub first_draw: RunMark,
    pub first_undecided: RunMark,
    /// The longest run: (Exchanges, run index); ties go to the lower index.
    pub longest: Option<(u32, u64)>,
}

/// The result of one run, as the runner hands it over.
#[derive(Debug, Clone, Copy)]
pub struct RunResult<'a> {
    pub run: u64,
    pub outcome: Option<&'a Outcome>,
    pub exchanges: u32,
    pub dice: u64,
    /// Damage points scored in the run, per side and kind.
    pub damage: &'a [[u64; DamageKind::COUNT]],
    /// How each weapon was used in the run.
    pub weapons: WeaponUses<'a>,
}

impl Tally {
    /// An empty tally for battles starting from `start`, at most `cap`
    /// Exchanges long.
    pub fn new(start: &Battle, cap: u32) -> Tally {
        let sides = (0..start.sides.len())
            .map(|s| {
                let points = start
                    .units
                    .iter()
                    .filter(|u| u.side == s && u.active())
                    .fold(0u32, |sum, u| sum.saturating_add(u.points));
                SideTally {
                    wins: 0,
                    points_lost: Histogram::new(0, points),
                    first_win: None,
                    damage_by_kind: [0; DamageKind::COUNT],
                }
            })
            .collect();
        let units = start
            .units
            .iter()
            .map(|u| UnitTally {
                fates: [0; 6],
                survived_side_won: 0,
                hull_damage: Histogram::new(0, hull_or_craft(u)),
                first_death: None,
            })
            .collect();
        Tally {
            runs: 0,
            sides,
            draws: 0,
            undecided: 0,
            decided_by: [0; 6],
            exchanges: Histogram::new(1, cap.max(1)),
            dice: DiceTally::default(),
            units,
            weapons: tracked_weapons(start).map(WeaponTally::new).collect(),
            first_draw: None,
            first_undecided: None,
            longest: None,
        }
    }

    /// Counts one run that started from `start` and ended as `end`.
    /// Allocates nothing.
    pub fn record(&mut self, start: &Battle, end: &Battle, r: RunResult<'_>) {
        self.runs += 1;
        let winner = match r.outcome {
            Some(Outcome::Winner { side, reason }) => {
                self.sides[*side].wins += 1;
                self.sides[*side].first_win = first(self.sides[*side].first_win, Some(r.run));
                self.decided_by[reason_index(reason)] += 1;
                Some(*side)
            }
            Some(Outcome::Draw { reason }) => {
                self.draws += 1;
                self.first_draw = first(self.first_draw, Some(r.run));
                self.decided_by[reason_index(reason)] += 1;
                None
            }
            None => {
                self.undecided += 1;
                self.first_undecided = first(self.first_undecided, Some(r.run));
                None
            }
        };
        self.exchanges.add(r.exchanges);
        self.dice.add(r.dice);
        self.longest = longer(self.longest, Some((r.exchanges, r.run)));
        for (s, side) in self.sides.iter_mut().enumerate() {
            side.points_lost.add(points_lost(start, end, s));
            if let Some(d) = r.damage.get(s) {
                for (total, add) in side.damage_by_kind.iter_mut().zip(d) {
                    *total += add;
                }
            }
        }
        for ((t, a), b) in self.units.iter_mut().zip(&start.units).zip(&end.units) {
            t.fates[Fate::of(a, b, end) as usize] += 1;
            t.hull_damage.add(hull_damage(a, b));
            if winner == Some(b.side) && b.active() {
                t.survived_side_won += 1;
            }
            if a.active() && (b.destroyed || b.derelict) {
                t.first_death = first(t.first_death, Some(r.run));
            }
        }
        for w in &mut self.weapons {
            w.add(&r.weapons);
        }
    }

    /// Adds another tally of the same scenario and cap (any runs: the
    /// result does not depend on the order of merging). An error when the
    /// tallies are of different battles, or (tallies read from files only)
    /// when a count would pass its largest value; `self` is then partly
    /// added to and should be dropped.
    pub fn merge(&mut self, o: &Tally) -> Result<(), String> {
        let same_weapons = self.weapons.len() == o.weapons.len()
            && self
                .weapons
                .iter()
                .zip(&o.weapons)
                .all(|(a, b)| (a.unit, a.system) == (b.unit, b.system));
        if self.sides.len() != o.sides.len() || self.units.len() != o.units.len() || !same_weapons {
            return Err("the tallies are of different battles".into());
        }
        self.runs = sum(self.runs, o.runs)?;
        self.draws = sum(self.draws, o.draws)?;
        self.undecided = sum(self.undecided, o.undecided)?;
        add_each(&mut self.decided_by, &o.decided_by)?;
        self.exchanges.merge(&o.exchanges)?;
        self.dice.merge(&o.dice)?;
        for (a, b) in self.sides.iter_mut().zip(&o.sides) {
            a.wins = sum(a.wins, b.wins)?;
            a.points_lost.merge(&b.points_lost)?;
            add_each(&mut a.damage_by_kind, &b.damage_by_kind)?;
            a.first_win = first(a.first_win, b.first_win);
        }
        for (a, b) in self.units.iter_mut().zip(&o.units) {
            add_each(&mut a.fates, &b.fates)?;
            a.survived_side_won = sum(a.survived_side_won, b.survived_side_won)?;
            a.hull_damage.merge(&b.hull_damage)?;
            a.first_death = first(a.first_death, b.first_death);
        }
        for (a, b) in self.weapons.iter_mut().zip(&o.weapons) {
            a.merge(b)?;
        }
        self.first_draw = first(self.first_draw, o.first_draw);
        self.first_undecided = first(self.first_undecided, o.first_undecided);
        self.longest = longer(self.longest, o.longest);
        Ok(())
    }

    /// Checks that this tally, read from a file, can be the count of the
    /// runs `runs` of a batch whose Unit `i` is on side `unit_sides[i]`:
    /// every run counted once in each of the ways it is counted, no count
    /// above what those runs allow, and every notable run among them.
    /// [`Tally::record`] keeps all of this true; an edited file need not.
    /// The checkpoint reader and the shard reader both rely on it.
    pub fn check(&self, runs: &Range<u64>, unit_sides: &[usize]) -> Result<(), String> {
        let span = runs.end.checked_sub(runs.start);
        if span != Some(self.runs) {
            return Err(format!(
                "it counts {} runs, but the runs {}..{} are {}",
                self.runs,
                runs.start,
                runs.end,
                span.map_or_else(|| "none".to_string(), |n| n.to_string())
            ));
        }
        self.check_outcomes(runs)?;
        self.check_histograms()?;
        self.check_sides(runs)?;
        self.check_units(runs, unit_sides)?;
        self.check_weapons()?;
        self.check_dice()
    }

    /// Every run won by one side, drawn or undecided, once; every decided
    /// run decided by one condition; undecided runs at the Exchange cap.
    fn check_outcomes(&self, runs: &Range<u64>) -> Result<(), String> {
        let wins = total(self.sides.iter().map(|s| s.wins));
        let decided = wins.and_then(|w| w.checked_add(self.draws));
        let outcomes = decided.and_then(|d| d.checked_add(self.undecided));
        if outcomes != Some(self.runs) {
            return Err(format!(
                "its wins, draws and undecided runs add up to {}, not its {} runs",
                shown(outcomes),
                self.runs
            ));
        }
        let by_condition = total(self.decided_by.iter().copied());
        if by_condition != decided {
            return Err(format!(
                "its runs decided by each condition add up to {}, not its {} wins and draws",
                shown(by_condition),
                shown(decided)
            ));
        }
        let at_cap = self.exchanges.count(self.exchanges.hi());
        if self.undecided > at_cap {
            return Err(format!(
                "it has {} undecided runs, but only {at_cap} runs reached the Exchange cap",
                self.undecided
            ));
        }
        check_mark("the first draw", self.first_draw, self.draws, runs, true)?;
        check_mark(
            "the first undecided run",
            self.first_undecided,
            self.undecided,
            runs,
            true,
        )?;
        self.check_longest(runs)
    }

    /// The longest run: one of the runs, as long as the longest counted.
    fn check_longest(&self, runs: &Range<u64>) -> Result<(), String> {
        let most = self.exchanges.max();
        match self.longest {
            None if self.runs == 0 => Ok(()),
            Some((k, r)) if Some(k) == most && runs.contains(&r) => Ok(()),
            None => Err("its longest run is missing".into()),
            Some((k, r)) => Err(format!(
                "its longest run is run {r} of {k} Exchanges, but the runs are {}..{} and the longest counted {} Exchanges",
                runs.start,
                runs.end,
                most.map_or_else(|| "none".to_string(), |m| m.to_string())
            )),
        }
    }

    /// Every histogram, named as a message names it: the Exchanges, each
    /// side's points lost, each Unit's hull damage.
    fn histograms(&self) -> impl Iterator<Item = (String, &Histogram)> {
        let sides = self.sides.iter().enumerate();
        let units = self.units.iter().enumerate();
        std::iter::once(("the Exchanges histogram".to_string(), &self.exchanges))
            .chain(sides.map(|(i, s)| (format!("side {i}'s points-lost histogram"), &s.points_lost)))
            .chain(units.map(|(i, u)| (format!("Unit {i}'s hull-damage histogram"), &u.hull_damage)))
    }

    /// Every histogram counts every run once.
    fn check_histograms(&self) -> Result<(), String> {
        for (what, h) in self.histograms() {
            let counted = h.checked_total();
            if counted != Some(self.runs) {
                return Err(format!("{what} counts {} runs, not {}", shown(counted), self.runs));
            }
        }
        Ok(())
    }

    /// Checks that this tally has the shape of `expected` (a tally of the
    /// same scenario and Exchange cap): as many sides and Units, the same
    /// weapons, every histogram over the same range.
    pub fn check_shape(&self, expected: &Tally) -> Result<(), String> {
        let count = |what: &str, n: usize, want: usize| {
            if n == want {
                Ok(())
            } else {
                Err(format!("it counts {n} {what}, not {want}"))
            }
        };
        count("sides", self.sides.len(), expected.sides.len())?;
        count("Units", self.units.len(), expected.units.len())?;
        count("weapons", self.weapons.len(), expected.weapons.len())?;
        for (i, (a, b)) in self.weapons.iter().zip(&expected.weapons).enumerate() {
            if (a.unit, a.system) != (b.unit, b.system) {
                return Err(format!(
                    "its weapon {i} is system {} of Unit {}, not system {} of Unit {}",
                    a.system + 1,
                    a.unit,
                    b.system + 1,
                    b.unit
                ));
            }
        }
        for ((what, a), (_, b)) in self.histograms().zip(expected.histograms()) {
            if (a.lo(), a.hi()) != (b.lo(), b.hi()) {
                return Err(format!(
                    "{what} covers {}..={}, not {}..={}",
                    a.lo(),
                    a.hi(),
                    b.lo(),
                    b.hi()
                ));
            }
        }
        Ok(())
    }

    /// Each side's first win among its wins.
    fn check_sides(&self, runs: &Range<u64>) -> Result<(), String> {
        for (i, s) in self.sides.iter().enumerate() {
            check_mark(&format!("side {i}'s first win"), s.first_win, s.wins, runs, true)?;
        }
        Ok(())
    }

    /// Each Unit: one fate a run, survived only wins of its own side, and
    /// its first loss among the runs it was lost in.
    fn check_units(&self, runs: &Range<u64>, unit_sides: &[usize]) -> Result<(), String> {
        if unit_sides.len() != self.units.len() {
            return Err(format!(
                "it counts {} Units, not the battle's {}",
                self.units.len(),
                unit_sides.len()
            ));
        }
        for (i, (u, &side)) in self.units.iter().zip(unit_sides).enumerate() {
            let fates = total(u.fates.iter().copied());
            if fates != Some(self.runs) {
                return Err(format!(
                    "Unit {i}'s fates add up to {} runs, not {}",
                    shown(fates),
                    self.runs
                ));
            }
            let wins = self.sides.get(side).map_or(0, |s| s.wins);
            let lost = u.fates[Fate::Destroyed as usize] + u.fates[Fate::Surrendered as usize];
            if u.survived_side_won > wins || u.survived_side_won > self.runs - lost {
                return Err(format!(
                    "Unit {i} survived {} wins of its side, which won {wins} runs, and was lost in {lost} of the {} runs",
                    u.survived_side_won, self.runs
                ));
            }
            let destroyed = u.fates[Fate::Destroyed as usize];
            check_mark(&format!("Unit {i}'s first loss"), u.first_death, destroyed, runs, false)?;
        }
        Ok(())
    }

    /// Each weapon used in at most every run, in point-defence mode only
    /// when plotted.
    fn check_weapons(&self) -> Result<(), String> {
        for (i, w) in self.weapons.iter().enumerate() {
            let most = w.counts().into_iter().max().unwrap_or(0);
            if most > self.runs || w.point_defence > w.plotted {
                return Err(format!(
                    "weapon {i} (Unit {}, system {}) counts {:?} runs (plotted, fired, out of range, \
                     point defence, stopped): more than its {} runs, or more in point defence than plotted",
                    w.unit,
                    w.system + 1,
                    w.counts(),
                    self.runs
                ));
            }
        }
        Ok(())
    }

    /// The dice sums within what the fewest and most dice of a run allow.
    fn check_dice(&self) -> Result<(), String> {
        let d = &self.dice;
        let n = u128::from(self.runs);
        let fits = match (d.min, d.max) {
            (None, None) => self.runs == 0 && d.sum == 0 && d.sum_sq == 0,
            (Some(lo), Some(hi)) => {
                let (lo, hi) = (u128::from(lo), u128::from(hi));
                // Each run's dice x is within lo..=hi, so n·lo ≤ Σx ≤ n·hi
                // and lo·Σx ≤ Σx² ≤ hi·Σx (n·hi < 2^128 always).
                self.runs > 0
                    && lo <= hi
                    && (self.runs > 1 || lo == hi)
                    && n * lo <= d.sum
                    && d.sum <= n * hi
                    && lo.checked_mul(d.sum).is_some_and(|m| m <= d.sum_sq)
                    && hi.checked_mul(d.sum).is_none_or(|m| d.sum_sq <= m)
            }
            _ => false,
        };
        if fits {
            Ok(())
        } else {
            let or_none = |x: Option<u64>| x.map_or_else(|| "none".to_string(), |x| x.to_string());
            Err(format!(
                "its dice counts (sum {}, sum of squares {}, fewest {}, most {}) cannot come from {} runs",
                d.sum,
                d.sum_sq,
                or_none(d.min),
                or_none(d.max),
                self.runs
            ))
        }
    }

    /// Bytes of heap memory the tally holds: fixed when it is made (the
    /// histograms' entries are reserved for the ranges the scenario sets),
    /// whatever the runs.
    pub fn heap_bytes(&self) -> usize {
        self.sides.capacity() * std::mem::size_of::<SideTally>()
            + self.units.capacity() * std::mem::size_of::<UnitTally>()
            + self.weapons.capacity() * std::mem::size_of::<WeaponTally>()
            + self.exchanges.heap_bytes()
            + self.sides.iter().map(|s| s.points_lost.heap_bytes()).sum::<usize>()
            + self.units.iter().map(|u| u.hull_damage.heap_bytes()).sum::<usize>()
    }
}

/// The sum of `counts`, or `None` past 2^64 − 1.
fn total(counts: impl IntoIterator<Item = u64>) -> Option<u64> {
    counts.into_iter().try_fold(0u64, u64::checked_add)
}

/// A checked sum as a message shows it.
fn shown(n: Option<u64>) -> String {
    n.map_or_else(|| "more than 2^64 − 1".to_string(), |n| n.to_string())
}

/// Checks a notable run `mark` (`what`) of something counted `count` times:
/// one of `runs` if it is given, given only if it happened, and given
/// whenever it happened unless `always` is false (a Unit lost before the
/// battle counts as destroyed in every run without a first loss).
fn check_mark(what: &str, mark: RunMark, count: u64, runs: &Range<u64>, always: bool) -> Result<(), String> {
    match mark {
        Some(r) if count == 0 => Err(format!("{what} is run {r}, but it never happened")),
        Some(r) if !runs.contains(&r) => Err(format!(
            "{what} is run {r}, outside its runs {}..{}",
            runs.start, runs.end
        )),
        None if always && count > 0 => Err(format!("{what} is missing, but it happened in {count} runs")),
        _ => Ok(()),
    }
}

fn longer(a: Option<(u32, u64)>, b: Option<(u32, u64)>) -> Option<(u32, u64)> {
    match (a, b) {
        // More Exchanges first, then the lower run index.
        (Some(x), Some(y)) => Some(if (y.0, std::cmp::Reverse(y.1)) > (x.0, std::cmp::Reverse(x.1)) {
            y
        } else {
            x
        }),
        (x, None) => x,
        (None, y) => y,
    }
}
