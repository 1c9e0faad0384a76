//! `fam solve`: the odds when both sides play their best.
//!
//! The battle is a two-player constant-sum game: side A (the first side)
//! scores, run by run, 1 for a win, ½ for a draw or an undecided run and 0
//! for a loss; side B scores 1 minus that. A *strategy* is a side's standing
//! orders ([`Orders`]): the scenario's own, or one `[doctrine]` table for
//! all the side's Formations, drawn from the side's [`tune::screen_grid`].
//!
//! [`solve`] looks for an equilibrium by **double oracle**:
//! 1. each side's set of strategies starts with the default doctrine (and
//!    the scenario's own standing orders, when it has some);
//! 2. every pair of the two sets is played on the same search runs
//!    `0..search` (common random numbers), and the small matrix game is
//!    solved exactly ([`solve_matrix`]);
//! 3. each side's best response to the other's mix is sought over the whole
//!    grid: every candidate scored against each strategy the mix uses,
//!    weighted by the mix (an exact expectation, not a draw), on the screen
//!    runs `0..screen`; the best few scored again on the search runs;
//! 4. a best response that gains more than the margin over the game's
//!    value joins its side's set, and the round repeats; the search stops
//!    when neither side gains more than the margin, or at the round or set
//!    limit.
//!
//! [`confirm`] then plays the equilibrium, the default doctrine on both
//! sides and each side's best deviations on **fresh** runs (indices after
//! the search's), so the luck that picked them does not flatter them.
//!
//! Deterministic: the same scenario, seed and runs give the same answer on
//! any number of threads (each pair is one [`batch::run_with_outcomes`],
//! and everything else is sequential).

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::batch::{self, BatchError, wilson};
use crate::engine::doctrine::Doctrine;
use crate::orders::Loaded;
use crate::tune::{self, Orders};

// ---- The matrix game ----------------------------------------------------------

/// An exact solution of a zero-sum matrix game: the row player maximises,
/// the column player minimises.
#[derive(Debug, Clone, PartialEq)]
pub struct MatrixSolution {
    /// The row player's mix (sums to 1).
    pub rows: Vec<f64>,
    /// The column player's mix (sums to 1).
    pub cols: Vec<f64>,
    /// The game's value to the row player.
    pub value: f64,
}

/// Pivots below this are taken as zero.
const EPS: f64 = 1e-12;

/// Solves the zero-sum game `m` (`m[i][j]`: the row player's payoff when
/// row `i` meets column `j`; every row as long as the first, at least one
/// of each) exactly, by the simplex method.
///
/// Hand-written rather than a crate: the games are at most a dozen
/// strategies a side, and this is the textbook reduction. The payoffs are
/// shifted to be positive (by `c`); then the column player's
/// `max Σ w_j` subject to `M w ≤ 1, w ≥ 0` has the value `1 / Σ w − c`,
/// the column mix `w / Σ w`, and, read from the final tableau's slack
/// columns (the dual), the row mix. Bland's rule (smallest index enters,
/// ties of the ratio test to the smallest basic index) rules out cycling.
pub fn solve_matrix(m: &[Vec<f64>]) -> MatrixSolution {
    let rows = m.len();
    let cols = m.first().map_or(0, Vec::len);
    if rows == 0 || cols == 0 {
        return MatrixSolution {
            rows: vec![1.0; rows.min(1)],
            cols: vec![1.0; cols.min(1)],
            value: 0.0,
        };
    }
    let lowest = m.iter().flatten().copied().fold(f64::INFINITY, f64::min);
    let shift = 1.0 - lowest;
    let mut t = Tableau::new(m, shift);
    t.optimise();
    let total = t.objective();
    let mut col_mix = vec![0.0; cols];
    for (r, &b) in t.basis.iter().enumerate() {
        if b < cols {
            col_mix[b] = t.rhs(r) / total;
        }
    }
    let row_mix = (0..rows).map(|i| t.cost(cols + i).max(0.0) / total).collect();
    MatrixSolution {
        rows: normalised(row_mix),
        cols: normalised(col_mix),
        value: 1.0 / total - shift,
    }
}

/// `xs` scaled to sum to 1, tiny negatives from rounding as 0.
fn normalised(xs: Vec<f64>) -> Vec<f64> {
    let xs: Vec<f64> = xs.into_iter().map(|x| if x < 1e-12 { 0.0 } else { x }).collect();
    let sum: f64 = xs.iter().sum();
    if sum <= 0.0 {
        let n = xs.len().max(1) as f64;
        return vec![1.0 / n; xs.len()];
    }
    xs.into_iter().map(|x| x / sum).collect()
}

/// The simplex tableau of `max Σ w` subject to `(M + c) w ≤ 1, w ≥ 0`:
/// one row a constraint (`cols` structural then `rows` slack coefficients,
/// then the right-hand side), and the objective row last.
struct Tableau {
    cells: Vec<Vec<f64>>,
    /// The basic variable of each constraint row.
    basis: Vec<usize>,
    vars: usize,
}

impl Tableau {
    fn new(m: &[Vec<f64>], shift: f64) -> Tableau {
        let rows = m.len();
        let cols = m[0].len();
        let vars = cols + rows;
        let mut cells = Vec::with_capacity(rows + 1);
        for (i, row) in m.iter().enumerate() {
            let mut line = vec![0.0; vars + 1];
            for (j, &x) in row.iter().enumerate().take(cols) {
                line[j] = x + shift;
            }
            line[cols + i] = 1.0;
            line[vars] = 1.0;
            cells.push(line);
        }
        let mut objective = vec![0.0; vars + 1];
        objective[..cols].fill(-1.0);
        cells.push(objective);
        Tableau {
            cells,
            basis: (cols..vars).collect(),
            vars,
        }
    }

    fn objective(&self) -> f64 {
        self.cells[self.basis.len()][self.vars]
    }

    fn rhs(&self, r: usize) -> f64 {
        self.cells[r][self.vars]
    }

    /// The objective row's coefficient of variable `v`.
    fn cost(&self, v: usize) -> f64 {
        self.cells[self.basis.len()][v]
    }

    fn optimise(&mut self) {
        // Bland's rule ends in at most C(vars, rows) pivots; the bound only
        // guards against rounding trouble.
        for _ in 0..10_000 {
            let Some(enter) = (0..self.vars).find(|&v| self.cost(v) < -EPS) else {
                return;
            };
            let Some(leave) = self.leaving(enter) else {
                return;
            };
            self.pivot(leave, enter);
        }
    }

    /// The ratio test for variable `enter`: the row that limits it first,
    /// ties to the smallest basic variable.
    fn leaving(&self, enter: usize) -> Option<usize> {
        let mut best: Option<(f64, usize, usize)> = None;
        for r in 0..self.basis.len() {
            let a = self.cells[r][enter];
            if a <= EPS {
                continue;
            }
            let ratio = self.rhs(r) / a;
            let better = match best {
                None => true,
                Some((q, b, _)) => ratio < q - EPS || (ratio <= q + EPS && self.basis[r] < b),
            };
            if better {
                best = Some((ratio, self.basis[r], r));
            }
        }
        best.map(|(_, _, r)| r)
    }

    fn pivot(&mut self, r: usize, enter: usize) {
        let p = self.cells[r][enter];
        for x in &mut self.cells[r] {
            *x /= p;
        }
        let pivot_row = self.cells[r].clone();
        for (i, line) in self.cells.iter_mut().enumerate() {
            if i == r {
                continue;
            }
            let f = line[enter];
            if f.abs() > 0.0 {
                for (x, y) in line.iter_mut().zip(&pivot_row) {
                    *x -= f * y;
                }
            }
        }
        self.basis[r] = enter;
    }
}

// ---- The double oracle ----------------------------------------------------------

/// The two players: `A` is the battle's first side, `B` its second.
pub const A: usize = 0;
pub const B: usize = 1;

/// Where the payoffs come from: the outcome codes
/// ([`batch::outcome_code`]: `0` A won, `1` B won, [`batch::DRAW`],
/// [`batch::UNDECIDED`]) of A's candidate `a` against B's candidate `b` on
/// runs `runs`, in run order. [`Battles`] plays them; tests plug in a known
/// matrix.
pub trait Oracle {
    /// How many candidates side `side` (`A` or `B`) has; candidate 0 is
    /// the default doctrine.
    fn candidates(&self, side: usize) -> usize;
    /// The first strategies of side `side` (the default doctrine and the
    /// scenario's own orders).
    fn initial(&self, side: usize) -> Vec<usize>;
    fn codes(&self, a: usize, b: usize, runs: Range<u64>) -> Result<Vec<u8>, BatchError>;
}

/// A's score of one run.
pub fn payoff(code: u8) -> f64 {
    match code {
        0 => 1.0,
        1 => 0.0,
        _ => 0.5,
    }
}

fn mean_payoff(codes: &[u8]) -> f64 {
    codes.iter().map(|&c| payoff(c)).sum::<f64>() / codes.len().max(1) as f64
}

/// The oracle's codes, each pair played once: a shorter range from 0 is
/// read from a longer one already played.
struct Memo<'o, O: Oracle + ?Sized> {
    oracle: &'o O,
    played: BTreeMap<(usize, usize, u64), Vec<u8>>,
}

impl<'o, O: Oracle + ?Sized> Memo<'o, O> {
    fn new(oracle: &'o O) -> Self {
        Memo {
            oracle,
            played: BTreeMap::new(),
        }
    }

    fn codes(&mut self, a: usize, b: usize, runs: Range<u64>) -> Result<&[u8], BatchError> {
        let len = (runs.end - runs.start) as usize;
        let key = (a, b, runs.start);
        let have = self.played.get(&key).map_or(0, Vec::len);
        if have < len {
            let codes = self.oracle.codes(a, b, runs.clone())?;
            self.played.insert(key, codes);
        }
        Ok(&self.played[&key][..len])
    }

    /// Side `side`'s mean score with its candidate `own` against the other
    /// side's candidate `other`.
    fn score(&mut self, side: usize, own: usize, other: usize, runs: Range<u64>) -> Result<f64, BatchError> {
        let (a, b) = if side == A { (own, other) } else { (other, own) };
        let p = mean_payoff(self.codes(a, b, runs)?);
        Ok(if side == A { p } else { 1.0 - p })
    }

    /// Side `side`'s expected score with `own` against the other side's
    /// mix (`support`: candidates and weights).
    fn against(
        &mut self,
        side: usize,
        own: usize,
        support: &[(usize, f64)],
        runs: &Range<u64>,
    ) -> Result<f64, BatchError> {
        let mut s = 0.0;
        for &(other, w) in support {
            s += w * self.score(side, own, other, runs.clone())?;
        }
        Ok(s)
    }
}

/// How long to search.
#[derive(Debug, Clone, PartialEq)]
pub struct Budget {
    /// Runs each candidate of a best response is screened on.
    pub screen_runs: u64,
    /// Runs of the matrix and of the best responses' finalists.
    pub search_runs: u64,
    /// Best-response finalists scored on the search runs.
    pub finalists: usize,
    /// Rounds at most.
    pub rounds: usize,
    /// Strategies a side at most.
    pub strategies: usize,
    /// A best response must gain more than this (a fraction) to count.
    pub margin: f64,
}

/// The most strategies a side's set holds ([`Budget::strategies`]).
pub const MAX_STRATEGIES: usize = 12;

/// A side's best response to the other's mix.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// Its finalists, best first, with their score on the search runs.
    pub finalists: Vec<(usize, f64)>,
    /// The best's score minus the side's share of the value.
    pub gain: f64,
}

/// What the double oracle found.
#[derive(Debug, Clone, PartialEq)]
pub struct Equilibrium {
    /// Each side's strategies (candidate indices) and their weights.
    pub support: [Vec<(usize, f64)>; 2],
    /// The matrix game's value to A on the search runs.
    pub value: f64,
    /// Each side's last best response.
    pub responses: [Response; 2],
    pub rounds: usize,
    /// True when neither side's best response gained more than the margin.
    pub converged: bool,
    /// Each side's strategy set at the end.
    pub sets: [Vec<usize>; 2],
}

/// Runs the double oracle on `oracle` within `budget`. `round(k)` is told
/// of each round begun.
pub fn double_oracle<O: Oracle + ?Sized>(
    oracle: &O,
    budget: &Budget,
    round: &mut dyn FnMut(usize),
) -> Result<Equilibrium, BatchError> {
    let mut memo = Memo::new(oracle);
    let mut sets = [oracle.initial(A), oracle.initial(B)];
    let search = 0..budget.search_runs;
    let mut rounds = 0;
    loop {
        rounds += 1;
        round(rounds);
        let sol = solve_matrix(&matrix(&mut memo, &sets, &search)?);
        let support = [support(&sets[A], &sol.rows), support(&sets[B], &sol.cols)];
        let shares = [sol.value, 1.0 - sol.value];
        let responses = [
            best_response(&mut memo, budget, A, &support[B], shares[A])?,
            best_response(&mut memo, budget, B, &support[A], shares[B])?,
        ];
        let converged = responses.iter().all(|r| r.gain <= budget.margin);
        let mut added = false;
        if !converged && rounds < budget.rounds {
            for side in [A, B] {
                let r = &responses[side];
                if let Some(&(best, _)) = r.finalists.first()
                    && r.gain > budget.margin
                    && !sets[side].contains(&best)
                    && sets[side].len() < budget.strategies.clamp(1, MAX_STRATEGIES)
                {
                    sets[side].push(best);
                    added = true;
                }
            }
        }
        if converged || !added {
            return Ok(Equilibrium {
                support,
                value: sol.value,
                responses,
                rounds,
                converged,
                sets,
            });
        }
    }
}

/// The payoffs to A of every pair of the two sets on `runs`.
fn matrix<O: Oracle + ?Sized>(
    memo: &mut Memo<O>,
    sets: &[Vec<usize>; 2],
    runs: &Range<u64>,
) -> Result<Vec<Vec<f64>>, BatchError> {
    let mut m = Vec::new();
    for &a in &sets[A] {
        let mut row = Vec::new();
        for &b in &sets[B] {
            row.push(mean_payoff(memo.codes(a, b, runs.clone())?));
        }
        m.push(row);
    }
    Ok(m)
}

/// The strategies a mix uses, with their weights.
fn support(set: &[usize], mix: &[f64]) -> Vec<(usize, f64)> {
    set.iter()
        .zip(mix)
        .filter(|(_, w)| **w > 1e-9)
        .map(|(&s, &w)| (s, w))
        .collect()
}

/// Side `side`'s best response to `other` (the other side's mix): every
/// candidate screened, the best [`Budget::finalists`] scored on the search
/// runs; `share` is the side's share of the game's value.
fn best_response<O: Oracle + ?Sized>(
    memo: &mut Memo<O>,
    budget: &Budget,
    side: usize,
    other: &[(usize, f64)],
    share: f64,
) -> Result<Response, BatchError> {
    let screen = 0..budget.screen_runs.min(budget.search_runs);
    let mut screened = Vec::new();
    for c in 0..memo.oracle.candidates(side) {
        screened.push((c, memo.against(side, c, other, &screen)?));
    }
    rank(&mut screened);
    let search = 0..budget.search_runs;
    let mut finalists = Vec::new();
    for &(c, _) in screened.iter().take(budget.finalists.max(1)) {
        finalists.push((c, memo.against(side, c, other, &search)?));
    }
    rank(&mut finalists);
    let gain = finalists.first().map_or(0.0, |f| f.1 - share);
    Ok(Response { finalists, gain })
}

/// Best score first, then the candidate listed first.
fn rank(scored: &mut [(usize, f64)]) {
    scored.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
}

// ---- Confirmation on fresh runs --------------------------------------------------

/// A mean over runs with its 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub mean: f64,
    pub ci95: [f64; 2],
}

impl Estimate {
    /// The mean of per-run values in `[0, 1]`: Wilson's interval when every
    /// value is 0 or 1 (a plain count), else the normal one (mean ± 1.96
    /// standard errors), kept within `[lo, hi]`.
    fn of(xs: &[f64], lo: f64, hi: f64) -> Estimate {
        let n = xs.len().max(1) as f64;
        let mean = xs.iter().sum::<f64>() / n;
        if xs.iter().all(|&x| x == 0.0 || x == 1.0) {
            let hits = xs.iter().filter(|&&x| x == 1.0).count() as u64;
            return Estimate {
                mean,
                ci95: wilson(hits, xs.len() as u64),
            };
        }
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0).max(1.0);
        let half = 1.96 * (var / n).sqrt();
        Estimate {
            mean,
            ci95: [(mean - half).max(lo), (mean + half).min(hi)],
        }
    }
}

/// The odds of a pair of mixes: A wins, draws (undecided runs too), B wins.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Odds {
    pub a_wins: Estimate,
    pub draws: Estimate,
    pub b_wins: Estimate,
    /// A's score (wins + half the draws).
    pub value: Estimate,
}

/// A side's best deviation found, on the fresh runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Deviation {
    pub candidate: usize,
    /// Its score against the other side's mix minus the side's share of
    /// the value, run by run (paired).
    pub gain: Estimate,
}

/// What [`confirm`] measured on the fresh runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Confirmed {
    pub runs: Range<u64>,
    pub equilibrium: Odds,
    /// Both sides on the default doctrine (candidate 0 each).
    pub default: Odds,
    /// Each side's best deviation among its last best response's
    /// finalists.
    pub deviations: [Deviation; 2],
}

/// Per-run mixture of `f(code)` over the pairs of two mixes.
fn mixed_runs<O: Oracle + ?Sized>(
    memo: &mut Memo<O>,
    support: &[Vec<(usize, f64)>; 2],
    runs: &Range<u64>,
    f: &dyn Fn(u8) -> f64,
) -> Result<Vec<f64>, BatchError> {
    let mut out = vec![0.0; (runs.end - runs.start) as usize];
    for &(a, wa) in &support[A] {
        for &(b, wb) in &support[B] {
            for (x, &c) in out.iter_mut().zip(memo.codes(a, b, runs.clone())?) {
                *x += wa * wb * f(c);
            }
        }
    }
    Ok(out)
}

fn odds<O: Oracle + ?Sized>(
    memo: &mut Memo<O>,
    support: &[Vec<(usize, f64)>; 2],
    runs: &Range<u64>,
) -> Result<Odds, BatchError> {
    let code_is = |k: u8| move |c: u8| f64::from(u8::from(c == k));
    let draw = |c: u8| f64::from(u8::from(c != 0 && c != 1));
    Ok(Odds {
        a_wins: Estimate::of(&mixed_runs(memo, support, runs, &code_is(0))?, 0.0, 1.0),
        draws: Estimate::of(&mixed_runs(memo, support, runs, &draw)?, 0.0, 1.0),
        b_wins: Estimate::of(&mixed_runs(memo, support, runs, &code_is(1))?, 0.0, 1.0),
        value: Estimate::of(&mixed_runs(memo, support, runs, &payoff)?, 0.0, 1.0),
    })
}

/// Side `side`'s best deviation among `candidates` against the other's
/// mix in `eq`, on `runs`, paired with the equilibrium's per-run score.
fn deviation<O: Oracle + ?Sized>(
    memo: &mut Memo<O>,
    eq: &[Vec<(usize, f64)>; 2],
    side: usize,
    candidates: &[usize],
    runs: &Range<u64>,
) -> Result<Deviation, BatchError> {
    let at_eq = mixed_runs(memo, eq, runs, &payoff)?;
    let mut best: Option<Deviation> = None;
    for &c in candidates {
        let mut dev = eq.clone();
        dev[side] = vec![(c, 1.0)];
        let there = mixed_runs(memo, &dev, runs, &payoff)?;
        let sign = if side == A { 1.0 } else { -1.0 };
        let gains: Vec<f64> = there.iter().zip(&at_eq).map(|(x, e)| sign * (x - e)).collect();
        let d = Deviation {
            candidate: c,
            gain: Estimate::of(&gains, -1.0, 1.0),
        };
        if best.is_none_or(|b| d.gain.mean > b.gain.mean) {
            best = Some(d);
        }
    }
    Ok(best.unwrap_or(Deviation {
        candidate: 0,
        gain: Estimate {
            mean: 0.0,
            ci95: [0.0, 0.0],
        },
    }))
}

/// Plays the equilibrium, the default doctrine on both sides and each
/// side's best deviations (its last best response's finalists and its own
/// strategies) on the fresh runs `runs`.
pub fn confirm<O: Oracle + ?Sized>(oracle: &O, eq: &Equilibrium, runs: Range<u64>) -> Result<Confirmed, BatchError> {
    let mut memo = Memo::new(oracle);
    let equilibrium = odds(&mut memo, &eq.support, &runs)?;
    let default = odds(&mut memo, &[vec![(0, 1.0)], vec![(0, 1.0)]], &runs)?;
    let mut deviations = [0, 1].map(|_| Deviation {
        candidate: 0,
        gain: Estimate {
            mean: 0.0,
            ci95: [0.0, 0.0],
        },
    });
    for side in [A, B] {
        let mut tried: Vec<usize> = eq.responses[side].finalists.iter().map(|f| f.0).collect();
        for &s in &eq.sets[side] {
            if !tried.contains(&s) {
                tried.push(s);
            }
        }
        deviations[side] = deviation(&mut memo, &eq.support, side, &tried, &runs)?;
    }
    Ok(Confirmed {
        runs,
        equilibrium,
        default,
        deviations,
    })
}

// ---- The battle as the game ----------------------------------------------------

/// How to solve a scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Fresh runs of the confirmation; the search plays half as many (at
    /// least 200), the screen a tenth (at least 100): [`tune::stage_runs`].
    pub runs: u64,
    /// A best response must gain more than this (a fraction) to count.
    pub margin: f64,
    pub rounds: usize,
    pub finalists: usize,
    pub batch: batch::Options,
}

/// The default margin: 2 percentage points.
pub const DEFAULT_MARGIN: f64 = 0.02;
/// The default rounds of the double oracle.
pub const DEFAULT_ROUNDS: usize = 4;
/// Best-response finalists scored on the search runs.
pub const DEFAULT_FINALISTS: usize = 3;

impl Options {
    /// The double oracle's budget.
    pub fn budget(&self) -> Budget {
        let (screen, search, _) = tune::stage_runs(self.runs);
        Budget {
            screen_runs: screen,
            search_runs: search,
            finalists: self.finalists,
            rounds: self.rounds,
            strategies: MAX_STRATEGIES,
            margin: self.margin,
        }
    }

    /// The fresh runs of the confirmation: after the search's.
    pub fn fresh_runs(&self) -> Range<u64> {
        let (_, search, confirm) = tune::stage_runs(self.runs);
        search..search + confirm
    }
}

/// Why a scenario cannot be solved.
#[derive(Debug)]
pub enum SolveError {
    /// The game is between two sides; the scenario has this many.
    Sides(usize),
    Batch(BatchError),
}

impl std::fmt::Display for SolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SolveError::Sides(n) => write!(
                f,
                "fam solve plays a game between two sides, and this scenario has {n}; use fam tune for one side at a time"
            ),
            SolveError::Batch(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for SolveError {}

impl From<BatchError> for SolveError {
    fn from(e: BatchError) -> Self {
        SolveError::Batch(e)
    }
}

/// The scenario's battles as the oracle: each side's candidates are the
/// default doctrine, the scenario's own standing orders when it has some,
/// and the side's screen grid.
pub struct Battles<'a> {
    pub loaded: &'a Loaded,
    pub candidates: [Vec<Orders>; 2],
    pub batch: batch::Options,
    pub progress: &'a (dyn Fn(u64) + Sync),
    /// Once set, no further pair is played: [`BatchError::Cancelled`].
    pub stop: &'a AtomicBool,
    /// The workers' memos, kept from one pair to the next.
    memos: batch::Memos,
}

impl<'a> Battles<'a> {
    pub fn new(
        loaded: &'a Loaded,
        batch: batch::Options,
        progress: &'a (dyn Fn(u64) + Sync),
        stop: &'a AtomicBool,
    ) -> Battles<'a> {
        Battles {
            loaded,
            candidates: [candidates(loaded, A), candidates(loaded, B)],
            batch,
            progress,
            stop,
            memos: batch::Memos::default(),
        }
    }
}

impl Oracle for Battles<'_> {
    fn candidates(&self, side: usize) -> usize {
        self.candidates[side].len()
    }

    fn initial(&self, side: usize) -> Vec<usize> {
        let own = self.candidates[side].contains(&Orders::Scenario);
        if own { vec![0, 1] } else { vec![0] }
    }

    fn codes(&self, a: usize, b: usize, runs: Range<u64>) -> Result<Vec<u8>, BatchError> {
        // Checked between the pairs' blocks of runs, so a stop changes
        // nothing a finished solve would have found.
        if self.stop.load(Ordering::Relaxed) {
            return Err(BatchError::Cancelled);
        }
        let l = with_pair(self.loaded, [&self.candidates[A][a], &self.candidates[B][b]]);
        batch::run_with_outcomes_keeping(&l, &self.batch, runs, self.progress, &self.memos).map(|(_, codes)| codes)
    }
}

/// Whether side `side` has standing orders of its own in the scenario.
fn has_own_orders(loaded: &Loaded, side: usize) -> bool {
    tune::side_formations(loaded, side)
        .into_iter()
        .any(|f| loaded.doctrine.get(f).is_some_and(Option::is_some))
}

/// Side `side`'s candidates: the default doctrine first, then the
/// scenario's own orders (when it has some), then the screen grid less
/// what is already listed.
pub fn candidates(loaded: &Loaded, side: usize) -> Vec<Orders> {
    let mut out = vec![Orders::Uniform(Doctrine::default())];
    if has_own_orders(loaded, side) {
        out.push(Orders::Scenario);
    }
    for d in tune::screen_grid(&tune::Space::of(loaded, side)) {
        let o = Orders::Uniform(d);
        if !out.contains(&o) {
            out.push(o);
        }
    }
    out
}

/// `loaded` with `orders[s]` for side `s`'s Formations.
pub fn with_pair(loaded: &Loaded, orders: [&Orders; 2]) -> Loaded {
    let mut l = loaded.clone();
    // A side given one table plays it every run: its mix, if any, goes.
    l.mixes
        .retain(|m| !matches!(orders.get(m.side), Some(Orders::Uniform(_))));
    for (f, slot) in l.doctrine.iter_mut().enumerate() {
        let side = loaded.battle.formations[f].side;
        if let Some(Orders::Uniform(d)) = orders.get(side) {
            *slot = Some(d.clone());
        }
    }
    l
}

/// About the runs of one round of the search while each side's mix is one
/// strategy (every candidate of both sides screened, the finalists and the
/// matrix on the search runs), and of the confirmation of such a pair: a
/// progress bar's first total, grown by [`round_runs`] each time the
/// search outruns it. Not a bound: a mix costs more, shared runs less.
pub fn planned_runs(loaded: &Loaded, opts: &Options) -> u64 {
    let (_, _, confirm) = tune::stage_runs(opts.runs);
    let finalists = opts.finalists.max(1) as u64;
    round_runs(loaded, opts) + (2 + 2 * finalists) * confirm
}

/// About the runs of one round of the search ([`planned_runs`]).
pub fn round_runs(loaded: &Loaded, opts: &Options) -> u64 {
    let b = opts.budget();
    let screened: u64 = (0..loaded.battle.sides.len().min(2))
        .map(|side| candidates(loaded, side).len() as u64)
        .sum();
    let finalists = b.finalists.max(1) as u64;
    screened * b.screen_runs.min(b.search_runs) + (2 * finalists + 1) * b.search_runs
}

/// What [`solve`] found and confirmed.
#[derive(Debug, Clone)]
pub struct Solved {
    pub candidates: [Vec<Orders>; 2],
    pub equilibrium: Equilibrium,
    pub confirmed: Confirmed,
    pub budget: Budget,
}

/// Solves the scenario's battle between its two sides. `progress(n)` is
/// told of every `n` runs played.
pub fn solve(loaded: &Loaded, opts: &Options, progress: &(dyn Fn(u64) + Sync)) -> Result<Solved, SolveError> {
    solve_until(loaded, opts, progress, &AtomicBool::new(false))
}

/// [`solve`], stopped with [`BatchError::Cancelled`] before the next pair
/// of strategies is played once `stop` is set (`fam serve`'s Cancel button
/// and time limit).
pub fn solve_until(
    loaded: &Loaded,
    opts: &Options,
    progress: &(dyn Fn(u64) + Sync),
    stop: &AtomicBool,
) -> Result<Solved, SolveError> {
    let sides = loaded.battle.sides.len();
    if sides != 2 {
        return Err(SolveError::Sides(sides));
    }
    // One pool for the thousands of small batches: each plays on it.
    let inner = batch::Options {
        threads: None,
        ..opts.batch.clone()
    };
    batch::in_pool(&opts.batch, || {
        let oracle = Battles::new(loaded, inner, progress, stop);
        let budget = opts.budget();
        let equilibrium = double_oracle(&oracle, &budget, &mut |_| {})?;
        let confirmed = confirm(&oracle, &equilibrium, opts.fresh_runs())?;
        Ok(Solved {
            candidates: oracle.candidates,
            equilibrium,
            confirmed,
            budget,
        })
    })?
}

// ---- Output ---------------------------------------------------------------------

fn pct(x: f64) -> String {
    format!("{:.1}", 100.0 * x)
}

fn signed(x: f64) -> String {
    format!("{:+.1}", 100.0 * x)
}

fn est(e: &Estimate) -> String {
    format!("{:>5} % [{:>5}, {:>5}]", pct(e.mean), pct(e.ci95[0]), pct(e.ci95[1]))
}

/// Side `side`'s strategies at the equilibrium: weight, orders in words.
fn mix_lines(out: &mut String, loaded: &Loaded, s: &Solved, side: usize) {
    use std::fmt::Write as _;
    let name = &loaded.battle.sides[side].name;
    let _ = writeln!(out, "{name} plays:");
    for &(c, w) in &s.equilibrium.support[side] {
        let _ = writeln!(
            out,
            "  {:>6} %  {}",
            pct(w),
            tune::label(loaded, &s.candidates[side][c])
        );
    }
}

fn odds_row(out: &mut String, what: &str, o: &Odds) {
    use std::fmt::Write as _;
    let _ = writeln!(
        out,
        "{what:<18} {}  {}  {}  {}",
        est(&o.a_wins),
        est(&o.draws),
        est(&o.b_wins),
        est(&o.value)
    );
}

/// The solution as text: both sides' orders, the odds at the equilibrium
/// and with the default doctrine on the same fresh runs, and the
/// exploitability bound.
pub fn text(loaded: &Loaded, scenario: &str, opts: &Options, s: &Solved) -> String {
    use std::fmt::Write as _;
    let title = loaded.title.clone().unwrap_or_else(|| loaded.scenario.clone());
    let names = [&loaded.battle.sides[A].name, &loaded.battle.sides[B].name];
    let eq = &s.equilibrium;
    let c = &s.confirmed;
    let mut out = String::new();
    let _ = writeln!(out, "Both sides at their best in {title} ({scenario})");
    let _ = writeln!(
        out,
        "Double oracle over {} and {} standing orders: {} rounds, {}; matrix on runs 0-{}, best responses screened on runs 0-{}; confirmed on fresh runs {}-{}, base seed {}.\n",
        s.candidates[A].len(),
        s.candidates[B].len(),
        eq.rounds,
        if eq.converged {
            format!("no best response gains more than {} pp", pct(opts.margin))
        } else {
            "stopped at the budget before that was shown".to_string()
        },
        s.budget.search_runs - 1,
        s.budget.screen_runs.min(s.budget.search_runs) - 1,
        c.runs.start,
        c.runs.end - 1,
        opts.batch.seed
    );
    mix_lines(&mut out, loaded, s, A);
    mix_lines(&mut out, loaded, s, B);
    let _ = writeln!(
        out,
        "\n{:<18} {:<22}  {:<22}  {:<22}  Score of {} (wins + half the draws)",
        "",
        format!("{} wins", names[A]),
        "Draws",
        format!("{} wins", names[B]),
        names[A]
    );
    odds_row(&mut out, "At their best", &c.equilibrium);
    odds_row(&mut out, "Default doctrine", &c.default);
    let _ = writeln!(
        out,
        "\nExploitability (the best deviation found against the other's mix, on the fresh runs):"
    );
    for side in [A, B] {
        let d = &c.deviations[side];
        let _ = writeln!(
            out,
            "  {}: {} pp [{}, {}] with {}",
            names[side],
            signed(d.gain.mean),
            signed(d.gain.ci95[0]),
            signed(d.gain.ci95[1]),
            tune::label(loaded, &s.candidates[side][d.candidate])
        );
    }
    let _ = writeln!(
        out,
        "\nTo play it, paste into the scenario (replacing the side's own [doctrine] tables), or write it with --out:"
    );
    out.push_str(&orders_toml(loaded, s));
    out
}

/// Each side's orders at the equilibrium as scenario tables: `[doctrine.F]`
/// for one table, `[[mix.SIDE]]` for a mix, nothing for the scenario's own.
pub fn orders_toml(loaded: &Loaded, s: &Solved) -> String {
    let mut out = String::new();
    for side in [A, B] {
        match &s.equilibrium.support[side][..] {
            [(c, _)] => out.push_str(&tune::doctrine_tables(loaded, side, &s.candidates[side][*c])),
            _ => out.push_str(&crate::orders::mix::mix_toml(
                &loaded.battle,
                &[side_mix(loaded, s, side)],
            )),
        }
    }
    out
}

fn est_json(e: &Estimate) -> serde_json::Value {
    serde_json::json!({"mean": e.mean, "ci95": e.ci95})
}

fn odds_json(o: &Odds) -> serde_json::Value {
    serde_json::json!({
        "a_wins": est_json(&o.a_wins),
        "draws": est_json(&o.draws),
        "b_wins": est_json(&o.b_wins),
        "score_a": est_json(&o.value),
    })
}

/// Version of the solve JSON (docs/doctrine.md, "fam solve").
pub const SOLVE_SCHEMA_VERSION: u32 = 1;

/// The solution as JSON.
pub fn json(loaded: &Loaded, scenario: &str, opts: &Options, s: &Solved) -> String {
    use serde_json::json;
    let side_json = |side: usize| {
        let d = &s.confirmed.deviations[side];
        let strategies: Vec<serde_json::Value> = s.equilibrium.support[side]
            .iter()
            .map(|&(c, w)| {
                let o = &s.candidates[side][c];
                json!({"weight": w, "orders": tune::label(loaded, o), "doctrine": tune::doctrine_tables(loaded, side, o)})
            })
            .collect();
        json!({
            "name": loaded.battle.sides[side].name,
            "strategies": strategies,
            "best_deviation": {
                "orders": tune::label(loaded, &s.candidates[side][d.candidate]),
                "gain": est_json(&d.gain),
            },
        })
    };
    let v = json!({
        "schema": "fam-solve",
        "version": SOLVE_SCHEMA_VERSION,
        "scenario": scenario,
        "seed": opts.batch.seed,
        "margin": opts.margin,
        "candidates": [s.candidates[A].len(), s.candidates[B].len()],
        "rounds": s.equilibrium.rounds,
        "converged": s.equilibrium.converged,
        "runs": {
            "screen": s.budget.screen_runs.min(s.budget.search_runs),
            "search": s.budget.search_runs,
            "confirm": [s.confirmed.runs.start, s.confirmed.runs.end],
        },
        "search_value": s.equilibrium.value,
        "sides": [side_json(A), side_json(B)],
        "equilibrium": odds_json(&s.confirmed.equilibrium),
        "default": odds_json(&s.confirmed.default),
    });
    let mut out = serde_json::to_string_pretty(&v).unwrap_or_default();
    out.push('\n');
    out
}

// ---- The scenario with the orders ---------------------------------------------

/// Why the solution cannot be written as a scenario.
#[derive(Debug, Clone, PartialEq)]
pub enum OutError {
    /// The scenario's own standing orders are written in a form this
    /// rewrite does not follow (not as `[doctrine.FORMATION]` tables), or
    /// it has mixes of its own.
    Rewrite(String),
}

impl std::fmt::Display for OutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OutError::Rewrite(e) => write!(f, "cannot rewrite the scenario's standing orders: {e}"),
        }
    }
}

impl std::error::Error for OutError {}

/// Side `side`'s mix at the equilibrium as a scenario mix: a table for
/// every Formation of the side, or none for the scenario's own orders.
fn side_mix(loaded: &Loaded, s: &Solved, side: usize) -> crate::orders::mix::Mix {
    let formations = tune::side_formations(loaded, side);
    let support = &s.equilibrium.support[side];
    crate::orders::mix::Mix {
        side,
        weights: support.iter().map(|&(_, w)| w).collect(),
        options: support
            .iter()
            .map(|&(c, _)| match &s.candidates[side][c] {
                Orders::Uniform(d) => formations.iter().map(|&f| (f, d.clone())).collect(),
                Orders::Scenario => Vec::new(),
            })
            .collect(),
    }
}

/// The scenario `text` (of `loaded`) with the equilibrium's standing
/// orders. A side on one table loses its own `[doctrine.F]` tables and gets
/// the new ones at the end; a side on the scenario's own orders keeps
/// them; a mixing side keeps them (an option of its own orders plays them)
/// and gets `[[mix.SIDE]]` tables (docs/orders.md, "Mixed standing
/// orders").
pub fn scenario_with_orders(text: &str, loaded: &Loaded, s: &Solved) -> Result<String, OutError> {
    if !loaded.mixes.is_empty() {
        return Err(OutError::Rewrite("it has [[mix]] tables of its own".into()));
    }
    let pure: [Option<&Orders>; 2] = [A, B].map(|side| match &s.equilibrium.support[side][..] {
        [(c, _)] => Some(&s.candidates[side][*c]),
        _ => None,
    });
    let replaced: Vec<String> = [A, B]
        .into_iter()
        .filter(|&side| matches!(pure[side], Some(Orders::Uniform(_))))
        .flat_map(|side| tune::side_formations(loaded, side))
        .map(|f| loaded.battle.formations[f].name.clone())
        .collect();
    let mut out = without_doctrine_tables(text, &replaced);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("\n# Standing orders at the equilibrium found by `fam solve` (docs/doctrine.md).\n");
    let mut added = String::new();
    let mut mixes = Vec::new();
    for side in [A, B] {
        match pure[side] {
            Some(o @ Orders::Uniform(_)) => added.push_str(&tune::doctrine_tables(loaded, side, o)),
            Some(Orders::Scenario) => {}
            None => mixes.push(side_mix(loaded, s, side)),
        }
    }
    added.push_str(&crate::orders::mix::mix_toml(&loaded.battle, &mixes));
    out.push_str(&added);
    check_rewrite(&out, &added, &replaced)?;
    Ok(out)
}

/// `text` less the `[doctrine.NAME]` tables of the Formations `names`: a
/// table runs from its header to the next header line.
fn without_doctrine_tables(text: &str, names: &[String]) -> String {
    let mut out = String::new();
    let mut skipping = false;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with('[') {
            skipping = doctrine_header(t).is_some_and(|n| names.contains(&n));
        }
        if !skipping {
            out.push_str(line);
        }
    }
    out
}

/// The Formation a `[doctrine.NAME]` header line names.
fn doctrine_header(line: &str) -> Option<String> {
    let inner = line.strip_prefix('[')?.split(']').next()?.trim();
    let rest = inner.strip_prefix("doctrine")?.trim_start().strip_prefix('.')?.trim();
    let parsed: toml::Table = toml::from_str(&format!("{rest} = 0")).ok()?;
    let (key, _) = parsed.into_iter().next()?;
    Some(key)
}

/// The rewritten scenario holds exactly the new tables for the replaced
/// Formations (the rewrite missed none written another way) and the new
/// mixes.
fn check_rewrite(out: &str, added: &str, replaced: &[String]) -> Result<(), OutError> {
    let whole: toml::Table = toml::from_str(out).map_err(|e| OutError::Rewrite(e.message().to_string()))?;
    let ours: toml::Table = toml::from_str(added).map_err(|e| OutError::Rewrite(e.message().to_string()))?;
    let get = |t: &toml::Table, n: &str| t.get("doctrine").and_then(|d| d.get(n)).cloned();
    for name in replaced {
        if get(&whole, name) != get(&ours, name) {
            return Err(OutError::Rewrite(format!(
                "the standing orders of `{name}` are not written as a [doctrine.{name}] table"
            )));
        }
    }
    if whole.get("mix") != ours.get("mix") {
        return Err(OutError::Rewrite("its [[mix]] tables could not be kept apart".into()));
    }
    Ok(())
}
