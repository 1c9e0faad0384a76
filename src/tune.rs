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
//!    (axes the side has no use for are left out), a few runs each;
//! 2. **refine**: the best few of the screen, one axis at a time over the
//!    rest of the space (finer ranges to hold, needle beams, fire target,
//!    withdrawal, fighters), keeping each change that wins more runs;
//! 3. **confirm**: the best few, the default doctrine and the scenario's own
//!    standing orders on *fresh* runs, so that the winner's luck in the
//!    first two stages does not flatter it.
//!
//! [`measure`] plays the documented grid of the default doctrine's measure
//! (docs/doctrine.md, "How good is the default?") against the default.
//! Deterministic: the same scenario, side, seed and runs give the same
//! answer on any number of threads.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::batch::{self, BatchError, Paired, paired_difference, run_with_outcomes, wilson};
use crate::engine::doctrine::{Doctrine, EvasionSplit, FighterUse, Movement, Ordnance, PdMode, Selector, WithdrawWhen};
use crate::engine::plot::FormationId;
use crate::model::SystemKind;
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
            ordnance: any(&|k| {
                matches!(
                    k,
                    SystemKind::Sml
                        | SystemKind::Smr
                        | SystemKind::Missile { .. }
                        | SystemKind::SubmunitionPack
                        | SystemKind::Mkp
                        | SystemKind::RocketPod
                        | SystemKind::AntimatterMissile
                )
            }),
            class1: any(&|k| matches!(k, SystemKind::Beam { class: 1 }) || k.fires_as_pds()),
            needles: any(&|k| matches!(k, SystemKind::NeedleBeam)),
            craft: ours().any(|u| u.is_craft()) || any(&|k| matches!(k, SystemKind::HangarBay)),
            several_enemies: b.formations.iter().filter(|f| f.side != side).count() > 1,
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

/// The screen's grid for a side with `space`.
pub fn screen_grid(space: &Space) -> Vec<Doctrine> {
    let mut out = Vec::new();
    for maneuver in screen_maneuvers() {
        for evasion in screen_evasions() {
            for &use_ordnance in &space.ordnance_values() {
                for &pd in &space.pd_values() {
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

/// The documented grid of the default doctrine's measure (docs/doctrine.md):
/// maneuver ∈ {best_range, close, maintain, withdraw, hold 12/24/36} ×
/// use_ordnance ∈ {true, false} × pd ∈ {auto, never, always} ×
/// evasion ∈ {third, max, 0}; every other key as the default doctrine.
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

/// The axes the refinement walks, one after the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Axis {
    /// Finer ranges to hold (±6 MU), and fixed Evasion dice.
    Fine,
    Needles,
    Target,
    FireAt,
    Withdraw,
    Fighters,
}

const AXES: [Axis; 6] = [
    Axis::Fine,
    Axis::Needles,
    Axis::Target,
    Axis::FireAt,
    Axis::Withdraw,
    Axis::Fighters,
];

/// The changes of `d` along `axis` the refinement tries.
fn alternatives(d: &Doctrine, axis: Axis, space: &Space) -> Vec<Doctrine> {
    let mut out = Vec::new();
    let with = |f: &dyn Fn(&mut Doctrine)| {
        let mut x = d.clone();
        f(&mut x);
        x
    };
    let selectors = [
        Selector::Nearest,
        Selector::Largest,
        Selector::Weakest,
        Selector::MostDangerous,
    ];
    match axis {
        Axis::Fine => {
            if let Movement::Hold(n) = d.maneuver {
                for m in [n.saturating_sub(6), n + 6] {
                    out.push(with(&|x| x.maneuver = Movement::Hold(m)));
                }
            }
            if d.evasion != EvasionSplit::Auto {
                for n in [1, 2] {
                    out.push(with(&|x| x.evasion = EvasionSplit::Dice(n)));
                }
            }
        }
        Axis::Needles if space.needles => out.push(with(&|x| x.use_needles = !d.use_needles)),
        Axis::Target if space.several_enemies => {
            out.extend(selectors.iter().map(|&s| with(&|x| x.target = s)));
        }
        Axis::FireAt if space.several_enemies => {
            out.extend(selectors.iter().map(|&s| with(&|x| x.fire_at = Some(s))));
        }
        Axis::Withdraw => {
            for w in [WithdrawWhen::Never, WithdrawWhen::Crippled, WithdrawWhen::Losses(50)] {
                out.push(with(&|x| x.withdraw_when = w));
            }
        }
        Axis::Fighters if space.craft => out.push(with(&|x| x.fighters = FighterUse::Hold)),
        _ => {}
    }
    out.retain(|x| x != d);
    out
}

/// Most alternatives one seed's refinement can try (for a progress bar).
fn alternatives_bound(space: &Space) -> usize {
    let fine = 4;
    let needles = usize::from(space.needles);
    let selectors = if space.several_enemies { 8 } else { 0 };
    let craft = usize::from(space.craft);
    fine + needles + selectors + 3 + craft
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
) -> Result<Tried, BatchError> {
    let l = with_orders(loaded, opts.side, orders);
    let (_, codes) = run_with_outcomes(&l, &opts.batch, runs, progress)?;
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

/// Runs of each stage for `runs` confirming runs.
pub fn stage_runs(runs: u64) -> (u64, u64, u64) {
    let confirm = runs.max(1);
    ((confirm / 10).max(100), (confirm / 2).max(200), confirm)
}

/// Finalists refined from the screen's best.
const SEEDS: usize = 4;

/// Runs the whole search for `opts.side`. `progress(n)` is told of every
/// `n` runs played; [`planned_runs`] is their total.
pub fn search(loaded: &Loaded, opts: &Options, progress: &(dyn Fn(u64) + Sync)) -> Result<Tuned, BatchError> {
    search_until(loaded, opts, progress, &AtomicBool::new(false))
}

/// [`search`], stopped with [`BatchError::Cancelled`] before the next
/// candidate is played once `stop` is set (`fam serve`'s Cancel button).
pub fn search_until(
    loaded: &Loaded,
    opts: &Options,
    progress: &(dyn Fn(u64) + Sync),
    stop: &AtomicBool,
) -> Result<Tuned, BatchError> {
    let play = |loaded: &Loaded, opts: &Options, orders: &Orders, runs, progress: &(dyn Fn(u64) + Sync)| {
        if stop.load(Ordering::Relaxed) {
            return Err(BatchError::Cancelled);
        }
        play(loaded, opts, orders, runs, progress)
    };
    let space = Space::of(loaded, opts.side);
    let (screen_runs, refine_runs, confirm_runs) = stage_runs(opts.runs);
    // 1. Screen.
    let mut screened = Vec::new();
    for (i, d) in screen_grid(&space).into_iter().enumerate() {
        screened.push((i, play(loaded, opts, &Orders::Uniform(d), 0..screen_runs, progress)?));
    }
    let screened_count = screened.len();
    rank(&mut screened);
    // 2. Refine the best few, one axis at a time.
    let mut pool: Vec<(usize, Tried)> = Vec::new();
    let mut tried: Vec<Doctrine> = Vec::new();
    let mut order = 0;
    for (_, seed) in screened.into_iter().take(SEEDS) {
        let Orders::Uniform(mut best_d) = seed.orders else {
            continue;
        };
        if tried.contains(&best_d) {
            continue;
        }
        tried.push(best_d.clone());
        let mut best = play(loaded, opts, &Orders::Uniform(best_d.clone()), 0..refine_runs, progress)?;
        pool.push((order, best.clone()));
        order += 1;
        for axis in AXES {
            for n in alternatives(&best_d, axis, &space) {
                if tried.contains(&n) {
                    continue;
                }
                tried.push(n.clone());
                let t = play(loaded, opts, &Orders::Uniform(n.clone()), 0..refine_runs, progress)?;
                pool.push((order, t.clone()));
                order += 1;
                if (t.wins, u64::MAX - t.losses) > (best.wins, u64::MAX - best.losses) {
                    best = t;
                    best_d = n;
                }
            }
        }
    }
    let refined = pool.len();
    rank(&mut pool);
    // 3. Confirm on fresh runs.
    let fresh = refine_runs..refine_runs + confirm_runs;
    let mut finalists = Vec::new();
    for (i, (_, t)) in pool.into_iter().take(opts.top.max(1)).enumerate() {
        finalists.push((i, play(loaded, opts, &t.orders, fresh.clone(), progress)?));
    }
    rank(&mut finalists);
    let default = play(
        loaded,
        opts,
        &Orders::Uniform(Doctrine::default()),
        fresh.clone(),
        progress,
    )?;
    let own = loaded
        .battle
        .formations
        .iter()
        .enumerate()
        .any(|(f, x)| x.side == opts.side && loaded.doctrine.get(f).is_some_and(Option::is_some));
    let scenario = if own {
        Some(play(loaded, opts, &Orders::Scenario, fresh, progress)?)
    } else {
        None
    };
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

/// Runs [`search`] plays at most for these options (for a progress bar):
/// the refinement skips candidates already tried and axes it has no use for.
pub fn planned_runs(loaded: &Loaded, opts: &Options) -> u64 {
    let space = Space::of(loaded, opts.side);
    let (screen, refine, confirm) = stage_runs(opts.runs);
    let grid = screen_grid(&space).len() as u64;
    let refine_count = (SEEDS * (1 + alternatives_bound(&space))) as u64;
    grid * screen + refine_count * refine + (opts.top.max(1) as u64 + 2) * confirm
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

/// What [`measure`] found: the default and every grid point, best first.
#[derive(Debug, Clone)]
pub struct Measure {
    pub default: Tried,
    pub points: Vec<Point>,
}

/// The margin the measure allows a grid point over the default.
pub const MEASURE_MARGIN: f64 = 0.05;

/// Plays `grid` (by default [`measure_grid`]) against the default doctrine
/// for side `opts.side` on runs `0..opts.runs`.
pub fn measure(
    loaded: &Loaded,
    opts: &Options,
    grid: &[Doctrine],
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Measure, BatchError> {
    let runs = 0..opts.runs;
    let default = play(
        loaded,
        opts,
        &Orders::Uniform(Doctrine::default()),
        runs.clone(),
        progress,
    )?;
    let mut points = Vec::new();
    for d in grid {
        let tried = play(loaded, opts, &Orders::Uniform(d.clone()), runs.clone(), progress)?;
        let (difference, ci95, _) = versus(&default, &tried, opts.side);
        points.push(Point {
            tried,
            difference,
            ci95,
        });
    }
    points.sort_by(|a, b| b.difference.total_cmp(&a.difference));
    Ok(Measure { default, points })
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
    if let Some(best) = tuned.finalists.first() {
        let (d, ci, _) = versus(&tuned.default, best, side);
        let verdict = if ci[0] > 0.0 {
            format!(
                "it beats the default doctrine by {} pp [{}, {}]",
                signed(d),
                signed(ci[0]),
                signed(ci[1])
            )
        } else {
            format!(
                "no better than the default doctrine shown: {} pp [{}, {}]",
                signed(d),
                signed(ci[0]),
                signed(ci[1])
            )
        };
        let _ = writeln!(out, "Best: {verdict}.");
        let _ = writeln!(
            out,
            "\nTo play the best, paste into the scenario (or {name}'s orders file):"
        );
        out.push_str(&doctrine_tables(loaded, side, &best.orders));
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
pub const TUNE_SCHEMA_VERSION: u32 = 1;

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
/// (the first `shown`), and whether the measure holds.
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
        let (r, _) = p.tried.win_rate();
        let _ = writeln!(
            out,
            "  {:>6} %  {:>6} pp [{:>5}, {:>5}]  {}{}",
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
    let beaten = m.points.iter().filter(|p| p.beats(MEASURE_MARGIN)).count();
    let _ = writeln!(
        out,
        "{}",
        if beaten == 0 {
            format!(
                "Holds: no grid point beats the default by more than {} pp with its interval above zero.",
                pct(MEASURE_MARGIN)
            )
        } else {
            format!(
                "Fails: {beaten} grid points beat the default by more than {} pp.",
                pct(MEASURE_MARGIN)
            )
        }
    );
    out
}
