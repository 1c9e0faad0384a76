//! `fam tune`: which standing orders serve one side best.
//!
//! Every candidate is one `[doctrine]` table given to all the side's
//! Formations (the other side keeps the scenario's plots and standing
//! orders), played on the same run seeds as every other candidate (common
//! random numbers), so that two candidates differ only by their orders and
//! can be compared run by run ([`crate::batch::paired_difference`]).
//!
//! [`search`] works in three stages:
//! 1. **screen**: the grid of maneuver × Evasion × ordnance × point defence
//!    × maneuver target (axes the side has no use for are left out), a few
//!    runs each;
//! 2. **refine**: from each of the best few of the screen, every change of
//!    one key (the screen's keys again, finer ranges to hold and Evasion
//!    dice, needle beams, fire target, withdrawal, fighters), then every
//!    pair of the best changes of its most promising keys, so that two
//!    changes that only help together are tried together, and the
//!    changes that helped alone all at once;
//! 3. **confirm**: the best few, the default doctrine and the scenario's own
//!    standing orders on *fresh* runs, so that the winner's luck in the
//!    first two stages does not flatter it. The best is recommended only
//!    when it beats the default on those runs ([`Verdict`]).
//!
//! [`measure`] plays the documented grid of the default doctrine's measure
//! (docs/doctrine.md, "How good is the default?") against the default;
//! [`pick`] reads the search's confirmed best as one more point of it.
//! Deterministic: the same scenario, side, seed and runs give the same
//! answer on any number of threads.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::batch::{self, BatchError, Paired, paired_difference, run_with_outcomes_keeping, wilson};
use crate::engine::doctrine::{Doctrine, EvasionSplit, FighterUse, Movement, Ordnance, PdMode, Selector, WithdrawWhen};
use crate::engine::plot::FormationId;
use crate::engine::victory::Trigger;
use crate::model::SystemKind;
use crate::model::registry::{Family, Pd};
use crate::orders::Loaded;

/// How to tune.
#[derive(Debug, Clone)]
pub struct Options {
    /// The side whose standing orders are searched.
    pub side: usize,
    /// Runs of each finalist in the confirming stage; the screen plays a
    /// tenth of them (at least 100) and the refinement half.
    pub runs: u64,
    /// Finalists shown.
    pub top: usize,
    pub batch: batch::Options,
}

/// A candidate's standing orders for the side.
#[derive(Debug, Clone, PartialEq)]
pub enum Orders {
    /// As the scenario has them (its `[doctrine]` tables, or none).
    Scenario,
    /// This table for every Formation of the side.
    Uniform(Doctrine),
}

/// How one candidate fared on a range of runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Tried {
    pub orders: Orders,
    /// Outcome codes, run by run ([`batch::outcome_code`]).
    pub codes: Vec<u8>,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl Tried {
    pub fn runs(&self) -> u64 {
        self.codes.len() as u64
    }

    /// Win rate and its 95 % Wilson interval.
    pub fn win_rate(&self) -> (f64, [f64; 2]) {
        let n = self.runs().max(1);
        (self.wins as f64 / n as f64, wilson(self.wins, self.runs()))
    }
}

/// The side's wins, run by run, of `b` against `a` (B − A) with its paired
/// 95 % interval.
pub fn versus(a: &Tried, b: &Tried, side: usize) -> (f64, [f64; 2], Paired) {
    let code = u8::try_from(side).unwrap_or(batch::UNDECIDED);
    let p = batch::paired_wins(&a.codes, &b.codes, code);
    let (d, ci) = paired_difference(&p);
    (d, ci, p)
}

/// What [`search`] found.
#[derive(Debug, Clone)]
pub struct Tuned {
    /// Candidates tried in the screen and in the refinement.
    pub screened: usize,
    pub refined: usize,
    /// Runs of the screen, the refinement, and the confirmation (run
    /// indices: the screen and refinement play `0..refine_runs`, the
    /// confirmation the next `confirm_runs`).
    pub screen_runs: u64,
    pub refine_runs: u64,
    pub confirm_runs: u64,
    /// The finalists on the confirming runs, best first.
    pub finalists: Vec<Tried>,
    /// The default doctrine and the scenario's own orders on the same runs.
    pub default: Tried,
    pub scenario: Option<Tried>,
}

/// What a side could use: the axes worth searching.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Space {
    pub ordnance: bool,
    /// Class-1 beams or PD-capable beam-family weapons: the `pd` axis.
    pub class1: bool,
    pub needles: bool,
    pub craft: bool,
    /// The enemy has more than one Formation.
    pub several_enemies: bool,
    /// The victory rules give the side an objective (a `unit_destroyed`
    /// trigger it wins by, on an enemy Unit): the default `target` then
    /// differs from `"nearest"` (readings D25).
    pub objective: bool,
    /// The longest beam reach of the side's ships, in MU.
    pub reach: u32,
}

impl Space {
    /// The axes of side `side` in `loaded`.
    pub fn of(loaded: &Loaded, side: usize) -> Space {
        let b = &loaded.battle;
        let ours = || b.units.iter().filter(move |u| u.side == side);
        let any = |k: &dyn Fn(&SystemKind) -> bool| ours().any(|u| u.systems.iter().any(|s| k(&s.kind)));
        let reach = ours()
            .flat_map(|u| u.systems.iter())
            .filter_map(|s| match s.kind {
                SystemKind::Beam { class } => Some(12 * u32::from(class)),
                ref k => crate::engine::doctrine::assess::family_weapon_reach(k),
            })
            .max()
            .unwrap_or(0);
        Space {
            ordnance: any(&|k| k.family() == Family::Ordnance),
            // Class-1 beams and what fires as a PDS (EMP-1s, which also
            // defend on the class-1 table, are not counted).
            class1: any(&|k| k.point_defence() == Pd::ClassOne { reroll: true } || k.fires_as_pds()),
            needles: any(&|k| *k == SystemKind::NeedleBeam),
            craft: ours().any(|u| u.is_craft()) || any(&|k| *k == SystemKind::HangarBay),
            several_enemies: b.formations.iter().filter(|f| f.side != side).count() > 1,
            objective: loaded.victory.triggers.iter().any(|t| {
                matches!(*t, Trigger::UnitDestroyed { unit, side: winner }
                    if winner == side && b.units.get(unit).is_some_and(|u| u.side != side))
            }),
            reach,
        }
    }

    fn ordnance_values(&self) -> Vec<Ordnance> {
        if self.ordnance {
            vec![Ordnance::Auto, Ordnance::Always, Ordnance::Never]
        } else {
            vec![Ordnance::Auto]
        }
    }

    fn pd_values(&self) -> Vec<PdMode> {
        if self.class1 {
            vec![PdMode::Auto, PdMode::Never, PdMode::Always]
        } else {
            vec![PdMode::Auto]
        }
    }

    /// The maneuver targets the refinement tries: every selector, `"nearest"`
    /// only where the default is something else (an objective).
    fn refined_targets(&self) -> Vec<Selector> {
        let mut out = vec![Selector::Auto];
        if self.objective {
            out.push(Selector::Nearest);
        }
        out.extend([Selector::Largest, Selector::Weakest, Selector::MostDangerous]);
        out
    }

    /// The maneuver targets of the screen and of the measure: with one enemy
    /// Formation every selector names it, so only the default; `"nearest"`
    /// only where the default is something else (an objective).
    fn target_values(&self) -> Vec<Selector> {
        match (self.several_enemies, self.objective) {
            (false, _) => vec![Selector::default()],
            (true, false) => vec![Selector::Auto, Selector::Largest, Selector::MostDangerous],
            (true, true) => vec![
                Selector::Auto,
                Selector::Nearest,
                Selector::Largest,
                Selector::MostDangerous,
            ],
        }
    }
}

/// The maneuvers of the screen.
fn screen_maneuvers() -> Vec<Movement> {
    vec![
        Movement::Auto,
        Movement::BestRange,
        Movement::Close,
        Movement::Maintain,
        Movement::Withdraw,
        Movement::Hold(12),
        Movement::Hold(24),
        Movement::Hold(36),
    ]
}

/// The Evasion splits of the screen.
fn screen_evasions() -> Vec<EvasionSplit> {
    vec![
        EvasionSplit::Auto,
        EvasionSplit::Dice(0),
        EvasionSplit::Third,
        EvasionSplit::Max,
    ]
}

/// The screen's grid for a side with `space`: maneuver × Evasion ×
/// ordnance × point defence × maneuver target.
pub fn screen_grid(space: &Space) -> Vec<Doctrine> {
    let mut out = Vec::new();
    for maneuver in screen_maneuvers() {
        for evasion in screen_evasions() {
            for &use_ordnance in &space.ordnance_values() {
                for &pd in &space.pd_values() {
                    for &target in &space.target_values() {
                        out.push(Doctrine {
                            target,
                            maneuver,
                            evasion,
                            use_ordnance,
                            pd,
                            ..Doctrine::default()
                        });
                    }
                }
            }
        }
    }
    out
}

/// The documented grid of the default doctrine's measure for a side with
/// `space` (docs/doctrine.md): [`measure_grid`], times target ∈ {nearest,
/// largest, most_dangerous} when the enemy has several Formations (with one,
/// every selector names it and the axis would change nothing).
pub fn measure_grid_for(space: &Space) -> Vec<Doctrine> {
    let base = measure_grid();
    space
        .target_values()
        .into_iter()
        .flat_map(|target| base.iter().map(move |d| Doctrine { target, ..d.clone() }))
        .collect()
}

/// The documented grid of the default doctrine's measure (docs/doctrine.md)
/// for a side facing one enemy Formation: maneuver ∈ {best_range, close,
/// maintain, withdraw, hold 12/24/36} × use_ordnance ∈ {true, false} ×
/// pd ∈ {auto, never, always} × evasion ∈ {third, max, 0}; every other key
/// as the default doctrine.
pub fn measure_grid() -> Vec<Doctrine> {
    let maneuvers = [
        Movement::BestRange,
        Movement::Close,
        Movement::Maintain,
        Movement::Withdraw,
        Movement::Hold(12),
        Movement::Hold(24),
        Movement::Hold(36),
    ];
    let mut out = Vec::new();
    for maneuver in maneuvers {
        for use_ordnance in [Ordnance::Always, Ordnance::Never] {
            for pd in [PdMode::Auto, PdMode::Never, PdMode::Always] {
                for evasion in [EvasionSplit::Third, EvasionSplit::Max, EvasionSplit::Dice(0)] {
                    out.push(Doctrine {
                        maneuver,
                        evasion,
                        use_ordnance,
                        pd,
                        ..Doctrine::default()
                    });
                }
            }
        }
    }
    out
}

/// The keys of standing orders the refinement changes, one at a time (its
/// axes), in the order it tries them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Maneuver,
    Evasion,
    Ordnance,
    Pd,
    Target,
    FireAt,
    Needles,
    Withdraw,
    Fighters,
}

const KEYS: [Key; 9] = [
    Key::Maneuver,
    Key::Evasion,
    Key::Ordnance,
    Key::Pd,
    Key::Target,
    Key::FireAt,
    Key::Needles,
    Key::Withdraw,
    Key::Fighters,
];

const SELECTORS: [Selector; 4] = [
    Selector::Nearest,
    Selector::Largest,
    Selector::Weakest,
    Selector::MostDangerous,
];

impl Key {
    /// Whether `a` and `b` agree on this key.
    fn same(self, a: &Doctrine, b: &Doctrine) -> bool {
        match self {
            Key::Maneuver => a.maneuver == b.maneuver,
            Key::Evasion => a.evasion == b.evasion,
            Key::Ordnance => a.use_ordnance == b.use_ordnance,
            Key::Pd => a.pd == b.pd,
            Key::Target => a.target == b.target,
            Key::FireAt => a.fire_at == b.fire_at,
            Key::Needles => a.use_needles == b.use_needles,
            Key::Withdraw => a.withdraw_when == b.withdraw_when,
            Key::Fighters => a.fighters == b.fighters,
        }
    }

    /// `d` with this key's value taken from `from`.
    fn take(self, d: &mut Doctrine, from: &Doctrine) {
        match self {
            Key::Maneuver => d.maneuver = from.maneuver,
            Key::Evasion => d.evasion = from.evasion,
            Key::Ordnance => d.use_ordnance = from.use_ordnance,
            Key::Pd => d.pd = from.pd,
            Key::Target => d.target = from.target,
            Key::FireAt => d.fire_at = from.fire_at,
            Key::Needles => d.use_needles = from.use_needles,
            Key::Withdraw => d.withdraw_when = from.withdraw_when,
            Key::Fighters => d.fighters = from.fighters,
        }
    }

    /// The key `d` changes from `seed`, when it changes exactly one of
    /// [`KEYS`] (and nothing else).
    pub fn changed(seed: &Doctrine, d: &Doctrine) -> Option<Key> {
        let mut changed = KEYS.into_iter().filter(|k| !k.same(seed, d));
        let key = changed.next()?;
        let mut back = d.clone();
        key.take(&mut back, seed);
        (changed.next().is_none() && back == *seed).then_some(key)
    }

    /// The values of this key the refinement tries for `d` (`d`'s own
    /// among them, removed by [`singles`]).
    fn values(self, d: &Doctrine, space: &Space) -> Vec<Doctrine> {
        let with = |f: &dyn Fn(&mut Doctrine)| {
            let mut x = d.clone();
            f(&mut x);
            x
        };
        let mut out = Vec::new();
        match self {
            Key::Maneuver => {
                out.extend(screen_maneuvers().into_iter().map(|m| with(&|x| x.maneuver = m)));
                if let Movement::Hold(n) = d.maneuver {
                    for m in [n.saturating_sub(6), n + 6] {
                        out.push(with(&|x| x.maneuver = Movement::Hold(m)));
                    }
                }
            }
            Key::Evasion => {
                out.extend(screen_evasions().into_iter().map(|e| with(&|x| x.evasion = e)));
                if d.evasion != EvasionSplit::Auto {
                    for n in [1, 2] {
                        out.push(with(&|x| x.evasion = EvasionSplit::Dice(n)));
                    }
                }
            }
            Key::Ordnance => out.extend(
                space
                    .ordnance_values()
                    .into_iter()
                    .map(|o| with(&|x| x.use_ordnance = o)),
            ),
            Key::Pd => out.extend(space.pd_values().into_iter().map(|p| with(&|x| x.pd = p))),
            Key::Target if space.several_enemies => {
                out.extend(space.refined_targets().into_iter().map(|s| with(&|x| x.target = s)));
            }
            Key::FireAt if space.several_enemies => out.extend(SELECTORS.map(|s| with(&|x| x.fire_at = Some(s)))),
            Key::Needles if space.needles => out.push(with(&|x| x.use_needles = !d.use_needles)),
            Key::Withdraw => {
                for w in [WithdrawWhen::Never, WithdrawWhen::Crippled, WithdrawWhen::Losses(50)] {
                    out.push(with(&|x| x.withdraw_when = w));
                }
            }
            Key::Fighters if space.craft => out.push(with(&|x| x.fighters = FighterUse::Hold)),
            _ => {}
        }
        out
    }

    /// Most changes of this key [`Key::values`] gives one seed.
    fn bound(self, space: &Space) -> usize {
        let several = usize::from(space.several_enemies);
        match self {
            Key::Maneuver => screen_maneuvers().len() - 1 + 2,
            Key::Evasion => screen_evasions().len() - 1 + 2,
            Key::Ordnance => space.ordnance_values().len() - 1,
            Key::Pd => space.pd_values().len() - 1,
            Key::Target => several * (space.refined_targets().len() - 1),
            Key::FireAt => several * SELECTORS.len(),
            Key::Needles => usize::from(space.needles),
            Key::Withdraw => 3,
            Key::Fighters => usize::from(space.craft),
        }
    }
}

/// Every change of one key of `seed` the refinement tries, key by key in
/// [`KEYS`] order, each once.
pub fn singles(seed: &Doctrine, space: &Space) -> Vec<Doctrine> {
    let mut out: Vec<Doctrine> = Vec::new();
    for key in KEYS {
        for d in key.values(seed, space) {
            if d != *seed && !out.contains(&d) {
                out.push(d);
            }
        }
    }
    out
}

/// Keys whose best changes the refinement pairs.
pub const PAIR_KEYS: usize = 5;

/// The pairs the refinement tries after the singles of `seed`, from the
/// singles ranked best first: the best change of each key, for the first
/// [`PAIR_KEYS`] keys in that ranking, every two of them together (whether
/// or not either helped alone: changes that only help together are found
/// so), in ranking order.
pub fn pairs(seed: &Doctrine, ranked: &[Doctrine]) -> Vec<Doctrine> {
    let best = best_by_key(seed, ranked);
    let best = &best[..best.len().min(PAIR_KEYS)];
    let mut out = Vec::new();
    for (i, (_, a)) in best.iter().enumerate() {
        for (key, b) in &best[i + 1..] {
            let mut x = (*a).clone();
            key.take(&mut x, b);
            out.push(x);
        }
    }
    out
}

/// The best change of each key among `ranked` (best first), in ranking
/// order.
fn best_by_key<'a>(seed: &Doctrine, ranked: &'a [Doctrine]) -> Vec<(Key, &'a Doctrine)> {
    let mut best: Vec<(Key, &Doctrine)> = Vec::new();
    for d in ranked {
        if let Some(key) = Key::changed(seed, d)
            && !best.iter().any(|(k, _)| *k == key)
        {
            best.push((key, d));
        }
    }
    best
}

/// `seed` with every change among `helped` (changes of one key each that
/// won more than the seed, best first; the first of each key), when they
/// change three keys or more (two are a pair already).
fn all_helped(seed: &Doctrine, helped: &[Doctrine]) -> Option<Doctrine> {
    let best = best_by_key(seed, helped);
    (best.len() >= 3).then(|| {
        let mut x = seed.clone();
        for (key, d) in best {
            key.take(&mut x, d);
        }
        x
    })
}

/// Most candidates one seed's refinement plays or reads back, the seed
/// included (for a progress bar).
fn per_seed_bound(space: &Space) -> usize {
    let singles: usize = KEYS.iter().map(|k| k.bound(space)).sum();
    let keys = KEYS.iter().filter(|k| k.bound(space) > 0).count().min(PAIR_KEYS);
    1 + singles + keys * keys.saturating_sub(1) / 2 + 1
}

/// `loaded` with `orders` for side `side`.
fn with_orders(loaded: &Loaded, side: usize, orders: &Orders) -> Loaded {
    let mut l = loaded.clone();
    if let Orders::Uniform(d) = orders {
        for (f, slot) in l.doctrine.iter_mut().enumerate() {
            if loaded.battle.formations[f].side == side {
                *slot = Some(d.clone());
            }
        }
    }
    l
}

/// Plays `orders` on `runs` and counts the side's results.
fn play(
    loaded: &Loaded,
    opts: &Options,
    orders: &Orders,
    runs: std::ops::Range<u64>,
    progress: &(dyn Fn(u64) + Sync),
    memos: &batch::Memos,
) -> Result<Tried, BatchError> {
    let l = with_orders(loaded, opts.side, orders);
    let (_, codes) = run_with_outcomes_keeping(&l, &opts.batch, runs, progress, memos)?;
    let side = u8::try_from(opts.side).unwrap_or(batch::UNDECIDED);
    let wins = codes.iter().filter(|&&c| c == side).count() as u64;
    let draws = codes.iter().filter(|&&c| c == batch::DRAW).count() as u64;
    let losses = codes.len() as u64 - wins - draws - codes.iter().filter(|&&c| c == batch::UNDECIDED).count() as u64;
    Ok(Tried {
        orders: orders.clone(),
        codes,
        wins,
        draws,
        losses,
    })
}

/// Best first: more wins, then fewer losses, then the one tried first.
fn rank(tried: &mut [(usize, Tried)]) {
    tried.sort_by(|(i, a), (j, b)| b.wins.cmp(&a.wins).then(a.losses.cmp(&b.losses)).then(i.cmp(j)));
}

/// Whether `a` did better than `b`: more wins, or as many and fewer losses.
fn better(a: &Tried, b: &Tried) -> bool {
    (a.wins, u64::MAX - a.losses) > (b.wins, u64::MAX - b.losses)
}

/// Runs of each stage for `runs` confirming runs.
pub fn stage_runs(runs: u64) -> (u64, u64, u64) {
    let confirm = runs.max(1);
    ((confirm / 10).max(100), (confirm / 2).max(200), confirm)
}

/// Finalists refined from the screen's best.
const SEEDS: usize = 4;

/// Runs the whole search for `opts.side`. `progress(n)` is told of every
/// `n` runs played; their total is exactly [`planned_runs`] (candidates a
/// stage did not need count as played when it ends).
pub fn search(loaded: &Loaded, opts: &Options, progress: &(dyn Fn(u64) + Sync)) -> Result<Tuned, BatchError> {
    search_until(loaded, opts, progress, &AtomicBool::new(false))
}

/// The search's player: every candidate on the runs of its stage, the
/// refinement's read back when a seed before tried them, and the runs
/// counted for the progress bar.
struct Player<'a> {
    loaded: &'a Loaded,
    opts: &'a Options,
    progress: &'a (dyn Fn(u64) + Sync),
    stop: &'a AtomicBool,
    /// Runs told to `progress`.
    told: AtomicU64,
    /// The refinement's candidates so far, in the order played.
    refined: Vec<Tried>,
    /// The workers' memos, kept from one candidate to the next.
    memos: batch::Memos,
}

impl Player<'_> {
    fn tell(&self, n: u64) {
        self.told.fetch_add(n, Ordering::Relaxed);
        (self.progress)(n);
    }

    fn play(&self, orders: &Orders, runs: std::ops::Range<u64>) -> Result<Tried, BatchError> {
        if self.stop.load(Ordering::Relaxed) {
            return Err(BatchError::Cancelled);
        }
        play(self.loaded, self.opts, orders, runs, &|n| self.tell(n), &self.memos)
    }

    /// `d` on the refinement's runs: read back when tried before (its runs
    /// counted as played), else played and kept.
    fn refine(&mut self, d: &Doctrine, runs: u64) -> Result<Tried, BatchError> {
        let orders = Orders::Uniform(d.clone());
        if let Some(t) = self.refined.iter().find(|t| t.orders == orders) {
            let t = t.clone();
            self.tell(runs);
            return Ok(t);
        }
        let t = self.play(&orders, 0..runs)?;
        self.refined.push(t.clone());
        Ok(t)
    }

    /// Counts as played what is left of `planned` runs since `told` was
    /// `from`.
    fn catch_up(&self, from: u64, planned: u64) {
        let done = self.told.load(Ordering::Relaxed) - from;
        if planned > done {
            self.tell(planned - done);
        }
    }
}

/// [`search`], stopped with [`BatchError::Cancelled`] before the next
/// candidate is played once `stop` is set (`fam serve`'s Cancel button).
pub fn search_until(
    loaded: &Loaded,
    opts: &Options,
    progress: &(dyn Fn(u64) + Sync),
    stop: &AtomicBool,
) -> Result<Tuned, BatchError> {
    let mut player = Player {
        loaded,
        opts,
        progress,
        stop,
        told: AtomicU64::new(0),
        refined: Vec::new(),
        memos: batch::Memos::default(),
    };
    let space = Space::of(loaded, opts.side);
    let (screen_runs, refine_runs, confirm_runs) = stage_runs(opts.runs);
    // 1. Screen.
    let mut screened = Vec::new();
    for (i, d) in screen_grid(&space).into_iter().enumerate() {
        screened.push((i, player.play(&Orders::Uniform(d), 0..screen_runs)?));
    }
    let screened_count = screened.len();
    rank(&mut screened);
    // 2. Refine the best few: singles, pairs, and the singles that helped.
    let from = player.told.load(Ordering::Relaxed);
    let per_seed = per_seed_bound(&space) as u64 * refine_runs;
    for (n, (_, seed)) in screened.into_iter().take(SEEDS).enumerate() {
        if let Orders::Uniform(d) = &seed.orders {
            refine_seed(&mut player, d, &space, refine_runs)?;
        }
        player.catch_up(from, (n as u64 + 1) * per_seed);
    }
    player.catch_up(from, SEEDS as u64 * per_seed);
    let refined = player.refined.len();
    let mut pool: Vec<(usize, Tried)> = std::mem::take(&mut player.refined).into_iter().enumerate().collect();
    rank(&mut pool);
    // 3. Confirm on fresh runs.
    let from = player.told.load(Ordering::Relaxed);
    let fresh = refine_runs..refine_runs + confirm_runs;
    let mut finalists = Vec::new();
    for (i, (_, t)) in pool.into_iter().take(opts.top.max(1)).enumerate() {
        finalists.push((i, player.play(&t.orders, fresh.clone())?));
    }
    rank(&mut finalists);
    let default = player.play(&Orders::Uniform(Doctrine::default()), fresh.clone())?;
    let scenario = if has_own_orders(loaded, opts.side) {
        Some(player.play(&Orders::Scenario, fresh)?)
    } else {
        None
    };
    player.catch_up(from, confirm_count(loaded, opts) * confirm_runs);
    Ok(Tuned {
        screened: screened_count,
        refined,
        screen_runs,
        refine_runs,
        confirm_runs,
        finalists: finalists.into_iter().map(|(_, t)| t).collect(),
        default,
        scenario,
    })
}

/// One seed's refinement: every single change of `seed`, then the pairs of
/// the best ones ([`pairs`]), then all that helped at once.
fn refine_seed(player: &mut Player<'_>, seed: &Doctrine, space: &Space, runs: u64) -> Result<(), BatchError> {
    let base = player.refine(seed, runs)?;
    let mut singles_tried = Vec::new();
    for (i, d) in singles(seed, space).into_iter().enumerate() {
        singles_tried.push((i, player.refine(&d, runs)?));
    }
    rank(&mut singles_tried);
    let doctrine = |t: &Tried| match &t.orders {
        Orders::Uniform(d) => Some(d.clone()),
        Orders::Scenario => None,
    };
    let ranked: Vec<Doctrine> = singles_tried.iter().filter_map(|(_, t)| doctrine(t)).collect();
    for d in pairs(seed, &ranked) {
        player.refine(&d, runs)?;
    }
    let helped: Vec<Doctrine> = singles_tried
        .iter()
        .filter(|(_, t)| better(t, &base))
        .filter_map(|(_, t)| doctrine(t))
        .collect();
    if let Some(d) = all_helped(seed, &helped) {
        player.refine(&d, runs)?;
    }
    Ok(())
}

/// Whether some Formation of `side` has standing orders in the scenario.
fn has_own_orders(loaded: &Loaded, side: usize) -> bool {
    loaded
        .battle
        .formations
        .iter()
        .enumerate()
        .any(|(f, x)| x.side == side && loaded.doctrine.get(f).is_some_and(Option::is_some))
}

/// Candidates the confirming stage plays at most: the finalists, the
/// default doctrine, and the scenario's own orders when it has some.
fn confirm_count(loaded: &Loaded, opts: &Options) -> u64 {
    opts.top.max(1) as u64 + 1 + u64::from(has_own_orders(loaded, opts.side))
}

/// Runs [`search`] tells its progress of, exactly: the screen's, and the
/// most the refinement and the confirmation may play (what they do not
/// need is counted as played when they end).
pub fn planned_runs(loaded: &Loaded, opts: &Options) -> u64 {
    let space = Space::of(loaded, opts.side);
    let (screen, refine, confirm) = stage_runs(opts.runs);
    let grid = screen_grid(&space).len() as u64;
    let refine_count = (SEEDS * per_seed_bound(&space)) as u64;
    grid * screen + refine_count * refine + confirm_count(loaded, opts) * confirm
}

/// What the search's result recommends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The best finalist beats the default doctrine on the confirming runs
    /// (a positive difference with the lower end of its paired 95 %
    /// interval above zero): play it.
    UseBest,
    /// No standing orders tried beat the default doctrine.
    KeepDefault,
}

impl Verdict {
    /// The word the JSON gives it.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::UseBest => "use_best",
            Verdict::KeepDefault => "keep_default",
        }
    }
}

impl Tuned {
    /// The best finalist against the default doctrine on the confirming
    /// runs, with its paired 95 % interval.
    pub fn best_vs_default(&self, side: usize) -> Option<(f64, [f64; 2])> {
        let best = self.finalists.first()?;
        let (d, ci, _) = versus(&self.default, best, side);
        Some((d, ci))
    }

    /// Whether to play the best finalist or keep the default doctrine.
    pub fn verdict(&self, side: usize) -> Verdict {
        match self.best_vs_default(side) {
            Some((d, ci)) if d > 0.0 && ci[0] > 0.0 => Verdict::UseBest,
            _ => Verdict::KeepDefault,
        }
    }
}

/// One point of the measure: its orders and how it fared against the
/// default doctrine on the same runs.
#[derive(Debug, Clone)]
pub struct Point {
    pub tried: Tried,
    /// Its win rate minus the default's, with the paired 95 % interval.
    pub difference: f64,
    pub ci95: [f64; 2],
}

impl Point {
    /// Beats the default by more than `margin` (a fraction) with the lower
    /// end of its interval above zero.
    pub fn beats(&self, margin: f64) -> bool {
        self.difference > margin && self.ci95[0] > 0.0
    }
}

/// What [`measure`] found: the default and every grid point, best first,
/// and, when the search was run too, its confirmed best ([`pick`]).
#[derive(Debug, Clone)]
pub struct Measure {
    pub default: Tried,
    pub points: Vec<Point>,
    pub pick: Option<Point>,
}

impl Measure {
    /// The grid points that beat the default by more than the margin.
    pub fn beaten_by(&self) -> usize {
        self.points.iter().filter(|p| p.beats(MEASURE_MARGIN)).count()
    }

    /// The measure holds: neither a grid point nor the search's pick beats
    /// the default by more than the margin with its interval above zero.
    pub fn holds(&self) -> bool {
        self.beaten_by() == 0 && !self.pick.as_ref().is_some_and(|p| p.beats(MEASURE_MARGIN))
    }
}

/// The margin the measure allows a grid point over the default.
pub const MEASURE_MARGIN: f64 = 0.05;

/// Plays `grid` (by default [`measure_grid_for`] the side's space) against
/// the default doctrine for side `opts.side` on runs `0..opts.runs`.
pub fn measure(
    loaded: &Loaded,
    opts: &Options,
    grid: &[Doctrine],
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Measure, BatchError> {
    let runs = 0..opts.runs;
    let memos = batch::Memos::default();
    let default = play(
        loaded,
        opts,
        &Orders::Uniform(Doctrine::default()),
        runs.clone(),
        progress,
        &memos,
    )?;
    let mut points = Vec::new();
    for d in grid {
        let tried = play(
            loaded,
            opts,
            &Orders::Uniform(d.clone()),
            runs.clone(),
            progress,
            &memos,
        )?;
        let (difference, ci95, _) = versus(&default, &tried, opts.side);
        points.push(Point {
            tried,
            difference,
            ci95,
        });
    }
    points.sort_by(|a, b| b.difference.total_cmp(&a.difference));
    Ok(Measure {
        default,
        points,
        pick: None,
    })
}

/// The search's pick, its best finalist, against the default doctrine on
/// the confirming runs (fresh: not the runs that chose it), as a point of
/// the measure.
pub fn pick(tuned: &Tuned, side: usize) -> Option<Point> {
    let best = tuned.finalists.first()?;
    let (difference, ci95) = tuned.best_vs_default(side)?;
    Some(Point {
        tried: best.clone(),
        difference,
        ci95,
    })
}

/// Runs [`measure`] of `grid_len` points and, with `search`, the search
/// that picks ([`planned_runs`]) play for these options.
pub fn measure_planned_runs(loaded: &Loaded, opts: &Options, grid_len: usize, search: bool) -> u64 {
    let grid = (grid_len as u64 + 1).saturating_mul(opts.runs);
    grid.saturating_add(if search { planned_runs(loaded, opts) } else { 0 })
}

/// The Formations of side `side`.
pub fn side_formations(loaded: &Loaded, side: usize) -> Vec<FormationId> {
    (0..loaded.battle.formations.len())
        .filter(|&f| loaded.battle.formations[f].side == side)
        .collect()
}

// ---- Output -----------------------------------------------------------------

/// A candidate's orders in words: the keys it changes from the default
/// doctrine, or what it is.
pub fn label(loaded: &Loaded, orders: &Orders) -> String {
    match orders {
        Orders::Scenario => "(the scenario's standing orders)".to_string(),
        Orders::Uniform(d) => {
            let changes = crate::orders::doctrine::doctrine_changes(&loaded.battle, d);
            if changes.is_empty() {
                "(the default doctrine)".to_string()
            } else {
                changes
            }
        }
    }
}

fn pct(x: f64) -> String {
    format!("{:.1}", 100.0 * x)
}

fn signed(x: f64) -> String {
    format!("{:+.1}", 100.0 * x)
}

/// `[doctrine.F]` tables of the side's Formations with `orders`.
pub fn doctrine_tables(loaded: &Loaded, side: usize, orders: &Orders) -> String {
    let doctrines: Vec<Option<Doctrine>> = match orders {
        Orders::Scenario => loaded.doctrine.clone(),
        Orders::Uniform(d) => (0..loaded.battle.formations.len())
            .map(|f| (loaded.battle.formations[f].side == side).then(|| d.clone()))
            .collect(),
    };
    let mine: Vec<Option<Doctrine>> = doctrines
        .into_iter()
        .enumerate()
        .map(|(f, d)| d.filter(|_| loaded.battle.formations[f].side == side))
        .collect();
    crate::orders::doctrine::doctrine_toml(&loaded.battle, &mine)
}

/// One row of the finalists' table.
fn row(out: &mut String, rank: &str, loaded: &Loaded, t: &Tried, default: &Tried, side: usize) {
    use std::fmt::Write as _;
    let (rate, ci) = t.win_rate();
    let n = t.runs().max(1) as f64;
    let vs = if t.orders == default.orders {
        "—".to_string()
    } else {
        let (d, ci, _) = versus(default, t, side);
        format!("{} [{}, {}]", signed(d), signed(ci[0]), signed(ci[1]))
    };
    let _ = writeln!(
        out,
        "{rank:<5} {:>6} % [{:>5}, {:>5}] {:>6} % {:>6} %  {vs:<20}  {}",
        pct(rate),
        pct(ci[0]),
        pct(ci[1]),
        pct(t.draws as f64 / n),
        pct(t.losses as f64 / n),
        label(loaded, &t.orders)
    );
}

/// The search's result as a table, with the best orders to paste.
pub fn text(loaded: &Loaded, scenario: &str, opts: &Options, tuned: &Tuned) -> String {
    use std::fmt::Write as _;
    let side = opts.side;
    let name = &loaded.battle.sides[side].name;
    let title = loaded.title.clone().unwrap_or_else(|| loaded.scenario.clone());
    let mut out = String::new();
    let _ = writeln!(out, "Standing orders for {name} in {title} ({scenario})");
    let _ = writeln!(
        out,
        "Searched {} standing orders on runs 0-{} and {} more on runs 0-{}; the best {} compared on fresh runs {}-{}, base seed {}.",
        tuned.screened,
        tuned.screen_runs - 1,
        tuned.refined,
        tuned.refine_runs - 1,
        tuned.finalists.len(),
        tuned.refine_runs,
        tuned.refine_runs + tuned.confirm_runs - 1,
        opts.batch.seed
    );
    let _ = writeln!(
        out,
        "Each table of orders is given to every Formation of {name}; the other side keeps the scenario's orders.\n"
    );
    let _ = writeln!(
        out,
        "{:<5} {:>8} {:>14} {:>8} {:>8}  {:<20}  Standing orders (keys that differ from the default doctrine)",
        "Rank", "Wins", "95 %", "Draws", "Losses", "vs default, paired"
    );
    for (i, t) in tuned.finalists.iter().enumerate() {
        row(&mut out, &(i + 1).to_string(), loaded, t, &tuned.default, side);
    }
    row(&mut out, "-", loaded, &tuned.default, &tuned.default, side);
    if let Some(s) = &tuned.scenario {
        row(&mut out, "-", loaded, s, &tuned.default, side);
    }
    if let [best, second, ..] = tuned.finalists.as_slice() {
        let (d, ci, _) = versus(second, best, side);
        let verdict = if ci[0] > 0.0 {
            "the best is better"
        } else {
            "no difference shown between the two"
        };
        let _ = writeln!(
            out,
            "\nBest against second: {} pp [{}, {}] ({verdict}).",
            signed(d),
            signed(ci[0]),
            signed(ci[1])
        );
    }
    if let (Some(best), Some((d, ci))) = (tuned.finalists.first(), tuned.best_vs_default(side)) {
        let interval = format!("{} pp [{}, {}]", signed(d), signed(ci[0]), signed(ci[1]));
        match tuned.verdict(side) {
            Verdict::UseBest => {
                let _ = writeln!(out, "Best: it beats the default doctrine by {interval}.");
                let _ = writeln!(
                    out,
                    "\nTo play the best, paste into the scenario (or {name}'s orders file):"
                );
                out.push_str(&doctrine_tables(loaded, side, &best.orders));
            }
            Verdict::KeepDefault => {
                let _ = writeln!(
                    out,
                    "Keep the default doctrine: no standing orders tried beat it (best: {interval})."
                );
            }
        }
    }
    out
}

fn tried_json(loaded: &Loaded, t: &Tried, default: &Tried, side: usize) -> serde_json::Value {
    use serde_json::json;
    let (rate, ci) = t.win_rate();
    let (d, dci, _) = versus(default, t, side);
    json!({
        "orders": label(loaded, &t.orders),
        "doctrine": doctrine_tables(loaded, side, &t.orders),
        "runs": t.runs(),
        "wins": t.wins,
        "draws": t.draws,
        "losses": t.losses,
        "win_rate": rate,
        "win_ci95": ci,
        "vs_default": d,
        "vs_default_ci95": dci,
    })
}

/// Version of the tune JSON (docs/doctrine.md, "fam tune").
pub const TUNE_SCHEMA_VERSION: u32 = 2;

/// The search's result as JSON.
pub fn json(loaded: &Loaded, scenario: &str, opts: &Options, tuned: &Tuned) -> String {
    use serde_json::json;
    let side = opts.side;
    let v = json!({
        "schema": "fam-tune",
        "version": TUNE_SCHEMA_VERSION,
        "scenario": scenario,
        "side": loaded.battle.sides[side].name,
        "seed": opts.batch.seed,
        "verdict": tuned.verdict(side).word(),
        "screened": tuned.screened,
        "refined": tuned.refined,
        "runs": {"screen": tuned.screen_runs, "refine": tuned.refine_runs, "confirm": tuned.confirm_runs},
        "finalists": tuned.finalists.iter().map(|t| tried_json(loaded, t, &tuned.default, side)).collect::<Vec<_>>(),
        "default": tried_json(loaded, &tuned.default, &tuned.default, side),
        "scenario_orders": tuned.scenario.as_ref().map(|t| tried_json(loaded, t, &tuned.default, side)),
    });
    let mut out = serde_json::to_string_pretty(&v).unwrap_or_default();
    out.push('\n');
    out
}

/// The measure as a table: the default, then the grid points best first
/// (the first `shown`), the search's pick when there is one, and whether
/// the measure holds (the last line, `Holds: ` or `Fails: `).
pub fn measure_text(loaded: &Loaded, scenario: &str, opts: &Options, m: &Measure, shown: usize) -> String {
    use std::fmt::Write as _;
    let side = opts.side;
    let name = &loaded.battle.sides[side].name;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Measure of the default doctrine for {name} in {scenario}: {} grid points, {} runs each, base seed {}.",
        m.points.len(),
        opts.runs,
        opts.batch.seed
    );
    let (rate, ci) = m.default.win_rate();
    let _ = writeln!(
        out,
        "Default doctrine: wins {} % [{}, {}]",
        pct(rate),
        pct(ci[0]),
        pct(ci[1])
    );
    for p in m.points.iter().take(shown) {
        point_line(&mut out, loaded, "  ", p);
    }
    if let Some(p) = &m.pick {
        let _ = writeln!(
            out,
            "fam tune's pick, confirmed on {} fresh runs against the default on the same runs:",
            p.tried.runs()
        );
        point_line(&mut out, loaded, "  ", p);
    }
    let beaten = m.beaten_by();
    let pick_beats = m.pick.as_ref().is_some_and(|p| p.beats(MEASURE_MARGIN));
    let margin = pct(MEASURE_MARGIN);
    let _ = writeln!(
        out,
        "{}",
        match (beaten, pick_beats) {
            (0, false) if m.pick.is_some() => format!(
                "Holds: neither a grid point nor fam tune's pick beats the default by more than {margin} pp with its interval above zero."
            ),
            (0, false) => {
                format!("Holds: no grid point beats the default by more than {margin} pp with its interval above zero.")
            }
            (0, true) => format!("Fails: fam tune's pick beats the default by more than {margin} pp."),
            (n, false) => format!("Fails: {n} grid points beat the default by more than {margin} pp."),
            (n, true) => {
                format!("Fails: {n} grid points and fam tune's pick beat the default by more than {margin} pp.")
            }
        }
    );
    out
}

/// One point of the measure: its win rate, its difference from the default
/// with the paired interval, its orders, and whether it beats the default.
fn point_line(out: &mut String, loaded: &Loaded, indent: &str, p: &Point) {
    use std::fmt::Write as _;
    let (r, _) = p.tried.win_rate();
    let _ = writeln!(
        out,
        "{indent}{:>6} %  {:>6} pp [{:>5}, {:>5}]  {}{}",
        pct(r),
        signed(p.difference),
        signed(p.ci95[0]),
        signed(p.ci95[1]),
        label(loaded, &p.tried.orders),
        if p.beats(MEASURE_MARGIN) {
            "  <- beats the default"
        } else {
            ""
        }
    );
}

/// Version of the measure's JSON (docs/doctrine.md, "How good is the
/// default?").
pub const MEASURE_SCHEMA_VERSION: u32 = 1;

fn point_json(loaded: &Loaded, side: usize, p: &Point) -> serde_json::Value {
    use serde_json::json;
    let (rate, ci) = p.tried.win_rate();
    json!({
        "orders": label(loaded, &p.tried.orders),
        "doctrine": doctrine_tables(loaded, side, &p.tried.orders),
        "runs": p.tried.runs(),
        "wins": p.tried.wins,
        "win_rate": rate,
        "win_ci95": ci,
        "vs_default": p.difference,
        "vs_default_ci95": p.ci95,
        "beats": p.beats(MEASURE_MARGIN),
    })
}

/// One side's measure as JSON: the default, the grid points best first,
/// the search's pick (null with `--grid-only`), and whether it holds. The
/// sides' go into one document through [`measures_json`].
pub fn measure_json(loaded: &Loaded, scenario: &str, opts: &Options, m: &Measure) -> serde_json::Value {
    use serde_json::json;
    let side = opts.side;
    let (rate, ci) = m.default.win_rate();
    json!({
        "scenario": scenario,
        "side": loaded.battle.sides[side].name,
        "seed": opts.batch.seed,
        "runs": opts.runs,
        "margin": MEASURE_MARGIN,
        "default": {"runs": m.default.runs(), "wins": m.default.wins, "win_rate": rate, "win_ci95": ci},
        "points": m.points.iter().map(|p| point_json(loaded, side, p)).collect::<Vec<_>>(),
        "pick": m.pick.as_ref().map(|p| point_json(loaded, side, p)),
        "beaten_by": m.beaten_by(),
        "holds": m.holds(),
    })
}

/// The measures of some sides ([`measure_json`]) as one JSON document.
pub fn measures_json(sides: Vec<serde_json::Value>) -> String {
    let doc = serde_json::json!({
        "schema": "fam-tune-measure",
        "version": MEASURE_SCHEMA_VERSION,
        "sides": sides,
    });
    let mut out = serde_json::to_string_pretty(&doc).unwrap_or_default();
    out.push('\n');
    out
}
