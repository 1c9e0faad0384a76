//! What a batch counts: fixed-size integer tallies, added up run by run and
//! merged by addition (and by minimum run index for the notable runs), so
//! the order in which threads, chunks or shards are combined never changes
//! the result, and the memory used does not grow with the number of runs.

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
        .map(|(_, b)| b.points)
        .sum()
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

    fn merge(&mut self, o: &WeaponTally) {
        self.plotted += o.plotted;
        self.fired += o.fired;
        self.out_of_range += o.out_of_range;
        self.point_defence += o.point_defence;
        self.stopped += o.stopped;
    }
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

    fn merge(&mut self, o: &DiceTally) {
        self.sum += o.sum;
        self.sum_sq += o.sum_sq;
        self.min = match (self.min, o.min) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.max = match (self.max, o.max) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
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
                let points: u32 = start
                    .units
                    .iter()
                    .filter(|u| u.side == s && u.active())
                    .map(|u| u.points)
                    .sum();
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
    /// result does not depend on the order of merging).
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
        self.runs += o.runs;
        self.draws += o.draws;
        self.undecided += o.undecided;
        for (a, b) in self.decided_by.iter_mut().zip(&o.decided_by) {
            *a += b;
        }
        self.exchanges.merge(&o.exchanges)?;
        self.dice.merge(&o.dice);
        for (a, b) in self.sides.iter_mut().zip(&o.sides) {
            a.wins += b.wins;
            a.points_lost.merge(&b.points_lost)?;
            for (x, y) in a.damage_by_kind.iter_mut().zip(&b.damage_by_kind) {
                *x += y;
            }
            a.first_win = first(a.first_win, b.first_win);
        }
        for (a, b) in self.units.iter_mut().zip(&o.units) {
            for (x, y) in a.fates.iter_mut().zip(&b.fates) {
                *x += y;
            }
            a.survived_side_won += b.survived_side_won;
            a.hull_damage.merge(&b.hull_damage)?;
            a.first_death = first(a.first_death, b.first_death);
        }
        for (a, b) in self.weapons.iter_mut().zip(&o.weapons) {
            a.merge(b);
        }
        self.first_draw = first(self.first_draw, o.first_draw);
        self.first_undecided = first(self.first_undecided, o.first_undecided);
        self.longest = longer(self.longest, o.longest);
        Ok(())
    }

    /// Bytes of heap memory the tally holds: fixed when it is made (the
    /// histograms' ranges come from the scenario), whatever the runs.
    pub fn heap_bytes(&self) -> usize {
        self.sides.capacity() * std::mem::size_of::<SideTally>()
            + self.units.capacity() * std::mem::size_of::<UnitTally>()
            + self.weapons.capacity() * std::mem::size_of::<WeaponTally>()
            + self.exchanges.heap_bytes()
            + self.sides.iter().map(|s| s.points_lost.heap_bytes()).sum::<usize>()
            + self.units.iter().map(|u| u.hull_damage.heap_bytes()).sum::<usize>()
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
