//! What a plan weighs: the expected fire both ways on the grid
//! ([`Exchange`]), the range each side seeks ([`Aims`]), the ranges a
//! candidate's maneuvers lead to, and the score of each candidate; and
//! the best candidate against one expectation of the target's moves
//! ([`best_plan`]).

use super::grid::{FireOn, Firing, GRID, Lerp, RANGES, STEP, evasion_index, grid, grid_range};
use super::ordnance::{
    Launches, Stores, TermCache, kept_terms, launched_terms, launches, our_terms_key, reaches, their_terms_key,
};
use crate::engine::doctrine::assess::{Arsenal, DieTables, Firepower, MAX_EVASION_DICE};
use crate::engine::doctrine::cache::InlineCache;
use crate::engine::plot::Maneuver;

/// Volleys of sustained fire the range an Exchange ends at is worth, for
/// the Exchange after it (ordnance left that can reach it counts once).
const TERMINAL_VOLLEYS: f64 = 3.0;
/// Weight of the worth of the best range reachable from where an Exchange
/// ends (see [`Aims::potential`]).
const POTENTIAL: f64 = 1.0;
/// What a range's worth counts for each further Exchange it takes to get
/// there (see [`discount`]).
const LATER: f64 = 0.75;
/// Keeps a ratio finite when the other side deals nothing.
const EPSILON: f64 = 1e-3;
/// A Formation that takes more than ten times the share of itself it deals
/// of the target at every range avoids it ([`Stance::Avoid`]).
const HOPELESS: f64 = 0.1;
/// Mean Speed (or Evasion) Points of one die.
const POINTS_PER_DIE: f64 = 2.0 / 3.0;
/// Variance in MU² of the range change one Speed die makes (3 MU times
/// points 0, 1, 2 with chances 1/2, 1/3, 1/6: variance 5/9 points²).
const MU_VARIANCE_PER_DIE: f64 = 5.0;

/// The maneuvers a plan may use over three Volleys: steady or turning to
/// Maintain once the range is reached (the doctrine never turns back and
/// forth within an Exchange).
pub const SEQUENCES: [[Maneuver; 3]; 7] = {
    use Maneuver::{Close as C, Maintain as M, Withdraw as W};
    [
        [C, C, C],
        [C, C, M],
        [C, M, M],
        [M, M, M],
        [W, M, M],
        [W, W, M],
        [W, W, W],
    ]
};

/// Why the plan seeks its range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stance {
    /// It outguns the target at this range (deals a larger share of the
    /// target than it takes of itself).
    Outgun,
    /// It is outgunned at every range it can reach the target from: this
    /// range is the least bad.
    LeastBad,
    /// It is outgunned more than tenfold at every range: it keeps out of
    /// the target's reach as far as it can (readings D18).
    Avoid,
    /// Neither side can reach the other from any range.
    NoFight,
}

/// The expected sustained damage of each side: on the 3 MU grid for
/// where each would sit, and at any range for the plans.
#[derive(Debug, Clone)]
pub struct Exchange {
    /// Its fire at us on the grid, by our Evasion dice (made when first
    /// asked for).
    their_grids: [Option<[f64; GRID]>; MAX_EVASION_DICE + 1],
    /// On the grid: ours, and the target's when we put a third of our
    /// thrust to Evasion.
    pub ours: [f64; GRID],
    pub theirs: [f64; GRID],
    /// Hull and armour boxes left: ours and the target's.
    pub durability: (f64, f64),
    /// Each side's ordnance left (the target's against a third of our
    /// thrust in Evasion).
    pub our_stores: Stores,
    pub their_stores: Stores,
    /// Each side's ordnance terms weighed before: ours by our launches,
    /// the target's by our Evasion; and the reaches each side's terms read
    /// ([`reaches`]).
    terms: (TermCache, TermCache),
    reaches: (Option<[bool; 3]>, Option<[bool; 3]>),
}

/// Everything the plan weighs about one pair of Formations.
#[derive(Debug, Clone, Copy)]
pub struct Pair<'a> {
    pub tables: &'a DieTables,
    pub ours: &'a Arsenal,
    pub theirs: &'a Arsenal,
    /// Range now, in MU.
    pub range: u32,
    /// Evasion dice the target is assumed to roll (a third of its thrust).
    pub their_evasion: u32,
    /// Whether the target maneuvers against us (its nearest enemy); if not,
    /// it counts as a secondary Maintain against us.
    pub their_primary: bool,
    /// Our Formation Thrust.
    pub thrust: u32,
    /// Our class-1 beams defend against missiles while its missiles can reach us.
    pub class1_pd: bool,
    /// The target is our nearest enemy as well: its own plan against us
    /// then weighs this pair from its side, as ours weighs it from the
    /// target's (so what either weighs may serve the other; it changes no
    /// plan).
    pub mutual: bool,
    /// The Formations of our side whose default maneuver target is this target too,
    /// ourselves among them, as factors on our fire and on our hull and
    /// armour: their best sustained fire at it over ours, their durability
    /// over ours ((1, 1): we fight it alone; readings D24).
    pub coalition: (f64, f64),
}

/// The plan for one Exchange.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    pub maneuvers: [Maneuver; 3],
    pub speed: u32,
    pub evasion: u32,
    /// Expected range after each Volley's maneuver, and its spread (one
    /// standard deviation).
    pub range: [f64; 3],
    pub spread: [f64; 3],
    /// The range it seeks, and why.
    pub seek: u32,
    pub stance: Stance,
    /// Damage per Volley at the range it seeks: ours, then the target's.
    pub at_seek: (f64, f64),
    /// Damage of the ordnance left that reaches the range it seeks, fired
    /// once: ours, then the target's.
    pub ordnance_at_seek: (f64, f64),
    /// The range the target is assumed to seek.
    pub their_seek: u32,
    /// Weighed with the allied Formations that face the same target
    /// ([`Pair::coalition`]): `at_seek` is then their fire and ours.
    pub with_allies: bool,
}

/// What each range an Exchange ends at is worth for the Exchanges after:
/// the best stance score of any range, discounted by the Exchanges it takes
/// to get there ([`discount`]). Filled in as the plans ask for it.
#[derive(Debug, Clone, Copy)]
struct Potential {
    /// The stance score of each grid range.
    scores: [f64; GRID],
    /// What a score counts for at each distance in grid steps.
    factor: [f64; GRID],
    /// The grid ranges whose score is above zero, the first `positives`,
    /// highest score first.
    positive: [u8; GRID],
    positives: usize,
    /// The grid steps it moves an Exchange.
    reach: usize,
    /// The best score (the first of equals): with no score above zero and
    /// every factor above zero, the worth of every range.
    floor: f64,
    worth: [f64; GRID],
    /// Bit `i`: `worth[i]` is made.
    made: u64,
}

impl Potential {
    /// For a Formation that moves `reach` grid steps an Exchange.
    #[cfg(test)]
    fn new(scores: [f64; GRID], reach: usize) -> Potential {
        let mut p = Potential::EMPTY;
        p.set(&scores, reach);
        p
    }

    /// Nothing weighed yet.
    const EMPTY: Potential = Potential {
        scores: [0.0; GRID],
        factor: [0.0; GRID],
        positive: [0; GRID],
        positives: 0,
        reach: 0,
        floor: f64::NEG_INFINITY,
        worth: [0.0; GRID],
        made: 0,
    };

    /// Made again in place ([`Potential::new`]): a kilobyte a side.
    /// No worth is made yet, so none is cleared.
    fn set(&mut self, scores: &[f64; GRID], reach: usize) {
        self.scores = *scores;
        self.factor = FACTORS[reach.min(GRID)];
        self.positives = 0;
        self.reach = reach;
        self.floor = best_of(scores.iter().copied());
        self.made = 0;
        for (j, &v) in scores.iter().enumerate() {
            if v > 0.0 {
                self.positive[self.positives] = j as u8;
                self.positives += 1;
            }
        }
        let scores = &self.scores;
        self.positive[..self.positives]
            .sort_unstable_by(|&a, &b| scores[usize::from(b)].total_cmp(&scores[usize::from(a)]));
    }

    /// The worth of grid range `i`.
    fn worth(&mut self, i: usize) -> f64 {
        if self.made & (1 << i) == 0 {
            self.worth[i] = self.worth_of(i);
            self.made |= 1 << i;
        }
        self.worth[i]
    }

    /// [`Potential::weighed`], the same number made with less work: a
    /// Formation that does not move counts its own range's score only
    /// (every other factor is negative infinity); one that moves counts a
    /// score not above zero as it is from anywhere (every factor is above
    /// zero), so the best discounted positive score wins when one is above
    /// zero, and the best score of all when none is positive.
    fn worth_of(&self, i: usize) -> f64 {
        if self.reach == 0 {
            return best_of(std::iter::once(self.scores[i]));
        }
        // The greatest discounted score. No factor is above 1, so once a
        // score is no more than the best so far, neither it nor any lower
        // one can beat it (the greatest of the rest is the same number).
        let mut best = f64::NEG_INFINITY;
        for &j in &self.positive[..self.positives] {
            let j = usize::from(j);
            let score = self.scores[j];
            if score <= best {
                break;
            }
            let w = score * self.factor[i.abs_diff(j)];
            if w > best {
                best = w;
            }
        }
        if best > 0.0 {
            best
        } else if self.positives == 0 {
            self.floor
        } else {
            self.weighed(i)
        }
    }

    /// The worth of grid range `i`, every score weighed: a positive one
    /// discounted by its distance, one not above zero as it is wherever it
    /// can be reached from; the first of equals.
    fn weighed(&self, i: usize) -> f64 {
        best_of(self.scores.iter().enumerate().map(|(j, &v)| {
            let f = self.factor[i.abs_diff(j)];
            if v > 0.0 {
                v * f
            } else if f > 0.0 {
                v
            } else {
                f64::NEG_INFINITY
            }
        }))
    }

    /// The worth of a range in MU, read linearly between the grid points
    /// around it.
    fn at(&mut self, r: Lerp) -> f64 {
        r.read(|i| self.worth(i))
    }
}

/// The greatest of `values` (the first of equals; NaN never counts),
/// negative infinity when there is none.
fn best_of(values: impl Iterator<Item = f64>) -> f64 {
    values.fold(f64::NEG_INFINITY, |best, w| if w > best { w } else { best })
}

impl Exchange {
    /// Sustained fire both ways, on the grid from `fire`.
    #[cfg(test)]
    pub(super) fn new(p: &Pair<'_>, fire: &mut FireOn<'_>) -> Exchange {
        let mut x = Exchange::empty(super::ordnance::TERM_SLOTS);
        x.renew(p, fire);
        x
    }

    /// Nothing weighed yet; each side's ordnance terms kept in
    /// `term_slots` slots.
    pub(super) fn empty(term_slots: usize) -> Exchange {
        Exchange {
            their_grids: [None; MAX_EVASION_DICE + 1],
            ours: [0.0; GRID],
            theirs: [0.0; GRID],
            durability: (1.0, 1.0),
            our_stores: Stores::default(),
            their_stores: Stores::default(),
            terms: (TermCache::inline(term_slots), TermCache::inline(term_slots)),
            reaches: (None, None),
        }
    }

    /// Makes it the Exchange of the pair `p` in place (some 5 KB, most of
    /// it fire by Evasion that is only marked unweighed), its sustained
    /// fire on the grid from `fire`.
    pub(super) fn renew(&mut self, p: &Pair<'_>, fire: &mut FireOn<'_>) {
        self.set(
            p,
            fire(Firing::Ours, p.their_evasion),
            fire(Firing::Theirs, third(p.thrust)),
            Stores::new(p.tables, p.ours, p.theirs, p.their_evasion, false),
            Stores::new(p.tables, p.theirs, p.ours, third(p.thrust), p.class1_pd),
        );
        self.fill(p, fire);
    }

    /// The target's fire at us at every Evasion a plan may choose, from
    /// `fire` (a plan with its Evasion free asks for each of them).
    fn fill(&mut self, p: &Pair<'_>, fire: &mut FireOn<'_>) {
        for e in 0..=evasion_cap(p.thrust) {
            let slot = &mut self.their_grids[evasion_index(e)];
            if slot.is_none() {
                *slot = Some(fire(Firing::Theirs, e));
            }
        }
    }

    /// Makes `x` the Exchange of `mirror`, the pair `p` seen from its target:
    /// what is the same from both sides is taken from `self`, the
    /// Exchange of `p`. The target's fire at us with a third of our thrust
    /// to Evasion is always the same; ours at it, and each side's ordnance,
    /// when it is weighed against the same Evasion and point defence.
    /// `fire` is the sustained fire on the grid of the sides of `p`.
    /// Returns whether `x` is then this Exchange with the sides swapped,
    /// bit for bit (the same fire, ordnance and durability, each the other
    /// way).
    pub(super) fn mirror_into(
        &self,
        (p, mirror): (&Pair<'_>, &Pair<'_>),
        fire: &mut FireOn<'_>,
        x: &mut Exchange,
    ) -> bool {
        // Our fire weighed with our allies' ([`Pair::coalition`]) is not
        // what the target sees of us alone: then nothing of ours is shared.
        let alone = p.coalition == (1.0, 1.0);
        // The target's third of its thrust to Evasion, as we assumed it.
        let same_evasion = alone && evasion_index(third(mirror.thrust)) == evasion_index(p.their_evasion);
        let theirs = if same_evasion {
            self.ours
        } else {
            fire(Firing::Ours, third(mirror.thrust))
        };
        let same_our_stores = !p.class1_pd && mirror.their_evasion == third(p.thrust);
        let our_stores = if same_our_stores {
            self.their_stores
        } else {
            Stores::new(p.tables, mirror.ours, mirror.theirs, mirror.their_evasion, false)
        };
        let same_their_stores = !mirror.class1_pd && third(mirror.thrust) == p.their_evasion;
        let their_stores = if same_their_stores {
            self.our_stores
        } else {
            Stores::new(
                p.tables,
                mirror.theirs,
                mirror.ours,
                third(mirror.thrust),
                mirror.class1_pd,
            )
        };
        x.set(mirror, self.theirs, theirs, our_stores, their_stores);
        // Our fire at the target is its fire at us on the mirror's grid.
        if alone {
            x.their_grids[evasion_index(p.their_evasion)].get_or_insert(self.ours);
        }
        x.fill(mirror, &mut |side, e| fire(side.other(), e));
        same_evasion && same_our_stores && same_their_stores
    }

    /// Makes it the Exchange of the fire and ordnance given, its fire at
    /// every other Evasion not weighed yet.
    fn set(&mut self, p: &Pair<'_>, ours: [f64; GRID], theirs: [f64; GRID], our_stores: Stores, their_stores: Stores) {
        for g in &mut self.their_grids {
            *g = None;
        }
        self.their_grids[evasion_index(third(p.thrust))] = Some(theirs);
        self.ours = ours.map(|x| x * p.coalition.0);
        self.theirs = theirs;
        self.durability = (
            f64::from(p.ours.durability.max(1)) * p.coalition.1,
            f64::from(p.theirs.durability.max(1)),
        );
        self.our_stores = our_stores;
        self.their_stores = their_stores;
        // Only a side with ordnance reads its terms.
        if self.our_stores.any || self.their_stores.any {
            self.terms.0.clear();
            self.terms.1.clear();
            self.reaches = (reaches(p.ours), reaches(p.theirs));
        }
    }

    /// The target's fire at us on the grid when we roll `evasion` Evasion
    /// dice.
    fn their_grid(&mut self, p: &Pair<'_>, evasion: u32) -> &[f64; GRID] {
        self.their_grids[evasion_index(evasion)]
            .get_or_insert_with(|| grid(&Firepower::new(p.tables, p.theirs, p.ours, evasion)))
    }
}

/// The most Evasion dice a plan may choose with `thrust`: half of it.
fn evasion_cap(thrust: u32) -> u32 {
    (thrust / 2).min(MAX_EVASION_DICE as u32)
}

/// A third of the thrust to Evasion (never above half).
fn third(thrust: u32) -> u32 {
    (thrust / 3).min(thrust / 2)
}

/// Volleys of sustained fire the range a side seeks is weighed over
/// (two Exchanges), against its ordnance, which is fired once.
const HORIZON: f64 = 6.0;

/// What sitting at each grid range is worth to one side over [`HORIZON`]
/// Volleys: its sustained fire and its ordnance able to reach there, both
/// ways, as shares of what the other side can take. Each side's ordnance
/// strikes first and takes away its share of the other's sustained fire (a
/// Formation half destroyed shoots about half as much; readings D18): the
/// sustained fire a missile Formation keeps after its salvos is what
/// finishes a target they crippled, so it seeks its beams' range too
/// rather than sit where only its missiles reach.
#[derive(Debug, Clone, Copy)]
struct Worth {
    dealt: [f64; GRID],
    taken: [f64; GRID],
}

impl Worth {
    /// The worth seen from the other side.
    fn swapped(&self) -> Worth {
        Worth {
            dealt: self.taken,
            taken: self.dealt,
        }
    }

    fn new(ours: &[f64; GRID], theirs: &[f64; GRID], stores: (&Stores, &Stores), dur: (f64, f64)) -> Worth {
        let mut w = Worth {
            dealt: [0.0; GRID],
            taken: [0.0; GRID],
        };
        // A side without ordnance has none left at any range.
        let left = |s: &Stores, r: f64| if s.any { s.left_at(r, None) } else { 0.0 };
        for (i, &r) in RANGES.iter().enumerate() {
            let r = f64::from(r);
            let ordnance = (left(stores.0, r) / dur.1, left(stores.1, r) / dur.0);
            let left = (1.0 - ordnance.1.min(1.0), 1.0 - ordnance.0.min(1.0));
            w.dealt[i] = ordnance.0 + HORIZON * ours[i] / dur.1 * left.0;
            w.taken[i] = ordnance.1 + HORIZON * theirs[i] / dur.0 * left.1;
        }
        w
    }
}

/// The range a side seeks ([`Worth`]): where it outguns the other by the
/// most, or where it is outgunned least when it is outgunned everywhere
/// (avoiding the other when outgunned more than tenfold); ties go to the
/// range nearest `now`.
fn seek(w: &Worth, now: u32) -> (usize, Stance) {
    let (dealt, taken) = (&w.dealt, &w.taken);
    let score = |i: usize| dealt[i] - taken[i];
    let ratio = |i: usize| dealt[i] / (taken[i] + EPSILON);
    let near = |i: usize| (i64::from(grid_range(i)) - i64::from(now)).unsigned_abs();
    let pick = |f: &dyn Fn(usize) -> f64, only: &dyn Fn(usize) -> bool| {
        let mut best: Option<(f64, u64, usize)> = None;
        for i in (0..GRID).filter(|&i| only(i)) {
            let v = f(i);
            let better = match best {
                None => true,
                Some((bv, bn, _)) => v > bv + 1e-12 || ((v - bv).abs() <= 1e-12 && near(i) < bn),
            };
            if better {
                best = Some((v, near(i), i));
            }
        }
        best
    };
    match pick(&score, &|i| dealt[i] > 0.0) {
        Some((v, _, i)) if v > 0.0 => (i, Stance::Outgun),
        Some(_) => match pick(&ratio, &|i| dealt[i] > 0.0) {
            Some((r, _, _)) if r < HOPELESS => {
                let safe = |i: usize| -taken[i];
                pick(&safe, &|i| grid_range(i) >= now).map_or((0, Stance::Avoid), |(_, _, i)| (i, Stance::Avoid))
            }
            Some((_, _, i)) => (i, Stance::LeastBad),
            None => (0, Stance::NoFight),
        },
        None => ((now / 3).min((GRID - 1) as u32) as usize, Stance::NoFight),
    }
}

/// The maneuver that heads for `target` from `r`: the range a side seeks is
/// the longest at which its dice are best (band edges are closed), so it
/// closes while beyond it and holds up to 3 MU inside it.
fn toward(r: f64, target: u32) -> Maneuver {
    let t = f64::from(target);
    if r > t {
        Maneuver::Close
    } else if r < t - 3.0 {
        Maneuver::Withdraw
    } else {
        Maneuver::Maintain
    }
}

/// One side's maneuver in a Volley: what it plots, its Speed dice, and
/// whether the other Formation is only its secondary target (one Speed
/// Point fewer).
#[derive(Debug, Clone, Copy)]
pub struct Move {
    pub maneuver: Maneuver,
    pub dice: u32,
    pub secondary: bool,
}

/// The expected range after one Volley (F&M Movement Phase, fm-readings
/// 3). A Maintain only ever cancels the other side's Close or Withdraw, so
/// against it the range moves by how far the mover is expected to *outpace*
/// it ([`DieTables::outpace`]), not by the difference of the means: two
/// equal fleets, one closing and one keeping its range, still close. Other
/// pairs move by their mean Speed Points.
#[inline]
pub fn step(tables: &DieTables, start: f64, a: Move, b: Move) -> f64 {
    Steps::new(tables, (a.dice, a.secondary), (b.dice, b.secondary)).step(start, a.maneuver, b.maneuver)
}

/// What one Volley's maneuvers do to the range ([`step`]) with two sides'
/// Speed dice, worked out once for any maneuvers: for each pair of
/// maneuvers (ours, theirs; in [`Maneuver`] order), the range closed and
/// the range opened, so that the range after a Volley is
/// `|start − closed| + opened`; all in MU.
///
/// Against a Maintain the mover moves by how far it is expected to outpace
/// the other ([`DieTables::outpace`]); other pairs by their mean Speed
/// Points, the sides on Close closing together and those on Withdraw
/// opening together. One formula and a table rather than a branch a pair:
/// which pair a candidate plays is what the processor cannot foresee. It
/// is the same arithmetic: the start is never negative, so `|start − 0|`
/// is the start, and adding nothing to a number not below zero is that
/// number.
#[derive(Debug, Clone, Copy)]
struct Steps {
    moves: [[(f64, f64); 3]; 3],
}

impl Steps {
    /// For `a` and `b` Speed dice, each one point fewer when secondary.
    fn new(tables: &DieTables, (a, a_minus): (u32, bool), (b, b_minus): (u32, bool)) -> Steps {
        use Maneuver::{Close, Maintain, Withdraw};
        let points = |dice: u32, minus: bool| points(dice, if minus { 1.0 } else { 0.0 }) * STEP;
        let outpace = (
            STEP * tables.outpace(a, a_minus, b, b_minus),
            STEP * tables.outpace(b, b_minus, a, a_minus),
        );
        let points = (points(a, a_minus), points(b, b_minus));
        let of = |a: Maneuver, b: Maneuver| match (a, b) {
            (Close, Maintain) => (outpace.0, 0.0),
            (Maintain, Close) => (outpace.1, 0.0),
            (Withdraw, Maintain) => (0.0, outpace.0),
            (Maintain, Withdraw) => (0.0, outpace.1),
            _ => {
                // The points of the sides on `m`, added in order (no side:
                // nothing, which changes no sum below).
                let on = |m: Maneuver| match (a == m, b == m) {
                    (true, true) => points.0 + points.1,
                    (true, false) => points.0,
                    (false, true) => points.1,
                    (false, false) => 0.0,
                };
                (on(Close), on(Withdraw))
            }
        };
        let all = [Close, Maintain, Withdraw];
        Steps {
            moves: all.map(|a| all.map(|b| of(a, b))),
        }
    }

    /// The expected range after a Volley that starts at `start` (not
    /// negative), the two sides on `a` and `b`.
    #[inline]
    fn step(&self, start: f64, a: Maneuver, b: Maneuver) -> f64 {
        let (closed, opened) = self.moves[a as usize][b as usize];
        (start - closed).abs() + opened
    }
}

/// Mean Speed Points of `dice` Speed dice, `minus` fewer (secondary).
fn points(dice: u32, minus: f64) -> f64 {
    (f64::from(dice) * POINTS_PER_DIE - minus).max(0.0)
}

/// How the plan expects the target to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Expect {
    /// It heads for the range that suits it ([`seek`] from its side).
    Seeks,
    /// It keeps its range, all its Speed on Maintain.
    Keeps,
    /// It plays the plan it would choose by the same measure against us
    /// (its maneuvers and Speed dice).
    Plays([Maneuver; 3], u32),
    /// It does not move: the range changes by our maneuvers alone.
    Still,
}

/// The Speed dice the target rolls when it moves as `expect` says.
fn their_dice(p: &Pair<'_>, expect: Expect) -> u32 {
    match expect {
        Expect::Seeks | Expect::Keeps => p.theirs.thrust - p.their_evasion,
        Expect::Plays(_, dice) => dice,
        Expect::Still => 0,
    }
}

/// What a Volley's maneuvers do with `speed` Speed dice, the target moving
/// as `expect` says ([`Steps::new`]): the same dice every Volley.
fn steps_of(p: &Pair<'_>, speed: u32, expect: Expect) -> Steps {
    let their_dice = their_dice(p, expect);
    Steps::new(
        p.tables,
        (speed, false),
        (their_dice, !p.their_primary && their_dice > 0),
    )
}

/// Expected ranges and spreads over the three Volleys of `seq` with `speed`
/// Speed dice, the target moving as `expect` says, by the `steps` those
/// dice make ([`steps_of`]; a plan's candidates at one Evasion share
/// them). With `SPREAD` false the spreads are left at zero (most
/// candidates need the ranges alone).
fn ranges<const SPREAD: bool>(
    p: &Pair<'_>,
    (seq, speed): ([Maneuver; 3], u32),
    their_seek: u32,
    expect: Expect,
    steps: &Steps,
) -> ([f64; 3], [f64; 3]) {
    let their_dice = their_dice(p, expect);
    let mut r = f64::from(p.range);
    let mut var = 0.0;
    let mut range = [0.0; 3];
    let mut spread = [0.0; 3];
    for v in 0..3 {
        let theirs = match expect {
            Expect::Seeks => toward(r, their_seek),
            Expect::Keeps | Expect::Still => Maneuver::Maintain,
            Expect::Plays(m, _) => m[v],
        };
        r = steps.step(r, seq[v], theirs);
        range[v] = r;
        if !SPREAD {
            continue;
        }
        let movers = |m: Maneuver, d: u32| {
            if m == Maneuver::Maintain {
                0.5 * f64::from(d)
            } else {
                f64::from(d)
            }
        };
        var += MU_VARIANCE_PER_DIE * (movers(seq[v], speed) + movers(theirs, their_dice));
        spread[v] = var.sqrt();
    }
    (range, spread)
}

/// The shares of the target and of ourselves the Exchange is expected to
/// destroy at these ranges, with `evasion` Evasion dice: the three Volleys
/// of sustained fire and ordnance both ways (ours launched as `ours` says,
/// where it reaches), and [`TERMINAL_VOLLEYS`] more of sustained fire at
/// the range it ends at, with the ordnance left that reaches there.
fn shares(
    p: &Pair<'_>,
    x: &mut Exchange,
    (range, at): (&[f64; 3], &[Lerp; 3]),
    ours: &Launches,
    evasion: u32,
) -> (f64, f64) {
    let mut dealt = TERMINAL_VOLLEYS * at[2].of(&x.ours);
    for l in at {
        dealt += l.of(&x.ours);
    }
    let theirs = x.their_grid(p, evasion);
    let mut taken = TERMINAL_VOLLEYS * at[2].of(theirs);
    for l in at {
        taken += l.of(theirs);
    }
    // Ordnance launched in the Exchange, and what is left of it and can
    // reach the range it ends at (fired in the Exchanges after): weighed
    // apart, as most pairs have none.
    if x.our_stores.any || x.their_stores.any {
        (dealt, taken) = ordnance_shares(p, x, range, ours, evasion, (dealt, taken));
    }
    (dealt / x.durability.1, taken / x.durability.0)
}

/// [`shares`]: `sums` (damage dealt and taken so far) with each side's
/// ordnance terms added, in order.
#[inline(never)]
fn ordnance_shares(
    p: &Pair<'_>,
    x: &mut Exchange,
    range: &[f64; 3],
    ours: &Launches,
    evasion: u32,
    (mut dealt, mut taken): (f64, f64),
) -> (f64, f64) {
    // (A side's stores are any exactly when its arsenal has ordnance.)
    // Each side's terms are kept by what they read besides the pair.
    if x.our_stores.any {
        let key = our_terms_key(x.reaches.0, ours, range);
        let terms = kept_terms(&mut x.terms.0, key, || {
            let sides = (p.ours, p.theirs);
            launched_terms(p.tables, sides, ours, range, (p.their_evasion, false), &x.our_stores)
        });
        for t in terms {
            dealt += t;
        }
    }
    if x.their_stores.any {
        let key = their_terms_key(x.reaches.1, evasion, range);
        let terms = kept_terms(&mut x.terms.1, key, || {
            // The target fires its missiles whenever we are in reach.
            let l = launches(p.theirs, f64::from(p.range), range, &[0.0; 3]);
            let sides = (p.theirs, p.ours);
            launched_terms(p.tables, sides, &l, range, (evasion, p.class1_pd), &x.their_stores)
        });
        for t in terms {
            taken += t;
        }
    }
    (dealt, taken)
}

/// Plays a candidate out against both expectations of the target (it
/// heads for its own range, or keeps its range: neither side can know which,
/// readings D18) and scores it by their mean. The half against a target
/// that keeps its range is the same whatever the target is otherwise
/// expected to do: it is read from `kept` when another plan against this
/// pair played the same candidate.
fn play<'k>(
    p: &Pair<'_>,
    x: &mut Exchange,
    aims: &mut Aims,
    kept: &'k mut KeptHalves,
    (seq, evasion): ([Maneuver; 3], u32),
    (target, steps): (Expect, &Steps),
) -> (f64, &'k Kept) {
    let speed = p.thrust - evasion;
    let k = kept.get_or_insert_with(&KeptKey { seq, evasion }, || Kept::new(p, x, aims, seq, evasion));
    let r = ranges::<false>(p, (seq, speed), aims.their_seek(), target, steps).0;
    let half = aims.half(p, x, &r, &k.ours, evasion, target);
    let mut score = 0.0;
    for term in [half.0, half.1, k.half.0, k.half.1] {
        score += term;
    }
    // Ties (a target whose Maintain cancels our Speed makes every sequence
    // alike) go to the maneuvers that head for the range it seeks.
    score -= EPSILON * EPSILON * (k.range[2] - f64::from(aims.seek())).abs();
    (score, k)
}

/// The best candidate so far: its maneuvers, Evasion and score, and the
/// ranges it keeps ([`Kept`]). The [`Plan`] is made for the last best
/// only.
#[derive(Debug, Clone, Copy)]
struct Best {
    seq: [Maneuver; 3],
    evasion: u32,
    score: f64,
    range: [f64; 3],
    spread: [f64; 3],
}

/// What one candidate (a maneuver per Volley and an Evasion) comes to
/// against a target that keeps its range: the ranges the plan keeps (for
/// ordnance and point defence; those of a target that keeps its range:
/// ordnance is not launched at a range the target may never come to), our
/// ordnance plan, and that expectation's two terms of the score
/// ([`Aims::half`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Kept {
    range: [f64; 3],
    spread: [f64; 3],
    ours: Launches,
    half: (f64, f64),
}

impl Kept {
    fn new(p: &Pair<'_>, x: &mut Exchange, aims: &mut Aims, seq: [Maneuver; 3], evasion: u32) -> Kept {
        let speed = p.thrust - evasion;
        // The Volleys ordnance is launched in come from the ranges our own
        // maneuvers make (the target neither helping nor resisting): they
        // are what will be plotted, and each expectation scores them where
        // they reach. A target that seeks a longer range than ours resists
        // our closing (and then those are its ranges keeping its range).
        let resists = aims.their_seek() > aims.seek();
        let expect = if resists { Expect::Keeps } else { Expect::Still };
        let steps = steps_of(p, speed, expect);
        let (range, spread) = ranges::<true>(p, (seq, speed), aims.their_seek(), expect, &steps);
        // Without ordnance nothing launches (and `launches` would say so).
        let ours = if x.our_stores.any {
            launches(p.ours, f64::from(p.range), &range, &spread)
        } else {
            Launches::default()
        };
        let r = if resists {
            range
        } else {
            let steps = steps_of(p, speed, Expect::Keeps);
            ranges::<false>(p, (seq, speed), aims.their_seek(), Expect::Keeps, &steps).0
        };
        let half = aims.half(p, x, &r, &ours, evasion, Expect::Keeps);
        Kept {
            range,
            spread,
            ours,
            half,
        }
    }
}

/// The [`Kept`] half of the candidates the plans against one pair played,
/// by candidate: the plans try every sequence at a third of the thrust to
/// Evasion, at the most and at none, and only the best sequence at the
/// others.
pub(super) type KeptHalves = InlineCache<KeptKey, Kept, KEPT_SLOTS>;

/// Slots of [`KeptHalves`]: more than the candidates a pair's plans play.
pub(super) const KEPT_SLOTS: usize = 32;

/// A candidate: its maneuvers and Evasion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct KeptKey {
    seq: [Maneuver; 3],
    evasion: u32,
}

impl std::hash::Hash for KeptKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let [a, b, c] = self.seq.map(|m| m as u32);
        state.write_u32((a * 9 + b * 3 + c) << 8 | self.evasion);
    }
}

/// What every plan against one target weighs whatever the candidate: the
/// range each side seeks (each with a third of its thrust to Evasion), our
/// stance, and what each range an Exchange ends at is worth.
#[derive(Debug, Clone)]
pub(super) struct Aims {
    our_i: usize,
    their_i: usize,
    stance: Stance,
    /// What each range is worth to us ([`Worth`]), and the target's
    /// stance: what the target's own plan against us weighs, swapped
    /// ([`Aims::renew_mirrored`]).
    worth: Worth,
    their_stance: Stance,
    /// What each end range is worth for the Exchange after, the target
    /// heading for its own range (`[0]`) or keeping its range against us
    /// (`[1]`: we move only as far as we outpace it).
    potential: [Potential; 2],
}

impl Aims {
    /// Nothing weighed yet.
    pub(super) fn empty() -> Aims {
        Aims {
            our_i: 0,
            their_i: 0,
            stance: Stance::NoFight,
            worth: Worth {
                dealt: [0.0; GRID],
                taken: [0.0; GRID],
            },
            their_stance: Stance::NoFight,
            potential: [Potential::EMPTY; 2],
        }
    }

    /// Made again in place for the pair `p` of the Exchange `x`.
    pub(super) fn renew(&mut self, p: &Pair<'_>, x: &Exchange) {
        self.worth = Worth::new(&x.ours, &x.theirs, (&x.our_stores, &x.their_stores), x.durability);
        (self.our_i, self.stance) = seek(&self.worth, p.range);
        (self.their_i, self.their_stance) = seek(&self.worth.swapped(), p.range);
        self.weigh_potential(p);
    }

    /// Made again in place for `mirror`, the pair of `from` seen from its
    /// target, when the mirror's Exchange is the very Exchange of `from`
    /// with the sides swapped ([`Exchange::mirror_into`] says when): its
    /// worth is then `from`'s swapped, bit for bit, and so are the ranges
    /// each side seeks and the target's stance; only what each end range
    /// is worth for the Exchange after is weighed afresh.
    pub(super) fn renew_mirrored(&mut self, mirror: &Pair<'_>, from: &Aims) {
        self.worth = from.worth.swapped();
        (self.our_i, self.stance) = (from.their_i, from.their_stance);
        (self.their_i, self.their_stance) = (from.our_i, from.stance);
        self.weigh_potential(mirror);
    }

    /// Whether `other` weighs the ranges as this does, bit for bit: the
    /// worth of each, the ranges each side seeks and both stances.
    pub(super) fn seeks_as(&self, other: &Aims) -> bool {
        let bits = |w: &Worth| (w.dealt.map(f64::to_bits), w.taken.map(f64::to_bits));
        (self.our_i, self.their_i, self.stance, self.their_stance)
            == (other.our_i, other.their_i, other.stance, other.their_stance)
            && bits(&self.worth) == bits(&other.worth)
    }

    /// What each end range is worth for the Exchange after, by our stance.
    fn weigh_potential(&mut self, p: &Pair<'_>) {
        let (ours, stance) = (&self.worth, self.stance);
        let stance_score = |i: usize| match stance {
            Stance::Outgun => ours.dealt[i] - ours.taken[i],
            Stance::LeastBad | Stance::NoFight => ours.dealt[i] / (ours.taken[i] + EPSILON),
            Stance::Avoid => -ours.taken[i],
        };
        // A full Exchange at all Speed: 3 Volleys of 2/3 a point a die
        // (free), or of what it outpaces a target keeping its range by; in
        // grid steps of a point.
        let their_speed = p.theirs.thrust - p.their_evasion;
        let kept = p
            .tables
            .outpace(p.thrust, false, their_speed, !p.their_primary && their_speed > 0);
        let scores: [f64; GRID] = std::array::from_fn(stance_score);
        for (potential, per_volley) in self.potential.iter_mut().zip([points(p.thrust, 0.0), kept]) {
            potential.set(&scores, (3.0 * per_volley).round() as usize);
        }
    }

    /// The range we seek.
    fn seek(&self) -> u32 {
        grid_range(self.our_i)
    }

    /// The range the target seeks.
    fn their_seek(&self) -> u32 {
        grid_range(self.their_i)
    }

    /// One expectation's half of a candidate's score, ending at ranges
    /// `r`: its shares dealt and taken by our stance, and what it can reach
    /// from where it ends next Exchange.
    fn half(
        &mut self,
        p: &Pair<'_>,
        x: &mut Exchange,
        r: &[f64; 3],
        ours: &Launches,
        evasion: u32,
        expect: Expect,
    ) -> (f64, f64) {
        // Where each range falls on the grid, found once for every grid
        // read there.
        let at = r.map(Lerp::new);
        let (dealt, taken) = shares(p, x, (r, &at), ours, evasion);
        let fight = 0.5
            * match self.stance {
                Stance::Outgun => dealt - taken,
                Stance::LeastBad | Stance::NoFight => dealt / (taken + EPSILON),
                Stance::Avoid => EPSILON * dealt - taken,
            };
        let potential = &mut self.potential[usize::from(expect == Expect::Keeps)];
        (fight, 0.5 * POTENTIAL * potential.at(at[2]))
    }
}

/// What the worth of a range `steps` grid steps away counts for, to a
/// Formation that moves `reach` steps an Exchange: in full if it gets there
/// within the next Exchange, and [`LATER`] less for each Exchange more (a
/// gain is worth less the later it comes; a loss is not discounted: see
/// [`best_plan`]). Nothing (negative infinity) when it cannot move there.
const fn discount(steps: usize, reach: usize) -> f64 {
    if steps <= reach {
        1.0
    } else if reach == 0 {
        f64::NEG_INFINITY
    } else {
        let later = (steps - reach).div_ceil(reach);
        DISCOUNTS[if later < GRID { later } else { GRID }]
    }
}

/// [`discount`] of every distance in grid steps, for each reach up to
/// [`GRID`] (a Formation that reaches further reaches every grid range in
/// one Exchange, as at [`GRID`]).
const FACTORS: [[f64; GRID]; GRID + 1] = {
    let mut f = [[1.0; GRID]; GRID + 1];
    let mut reach = 0;
    while reach <= GRID {
        let mut steps = 0;
        while steps < GRID {
            f[reach][steps] = discount(steps, reach);
            steps += 1;
        }
        reach += 1;
    }
    f
};

/// [`LATER`] to the power of each number of further Exchanges.
const DISCOUNTS: [f64; GRID + 1] = {
    let mut d = [1.0; GRID + 1];
    let mut k = 1;
    while k <= GRID {
        d[k] = d[k - 1] * LATER;
        k += 1;
    }
    d
};

/// [`choose`] with the target expected to move as `target` says (and, in
/// the other half of the score, to keep its range).
pub(super) fn best_plan(
    p: &Pair<'_>,
    (x, aims, kept): (&mut Exchange, &mut Aims, &mut KeptHalves),
    sequences: &[[Maneuver; 3]],
    fixed: Option<u32>,
    target: Expect,
) -> Plan {
    let stance = aims.stance;
    let seeking = aims.seek();
    let cap = evasion_cap(p.thrust);
    let mut best: Option<Best> = None;
    // What the range steps do at each Evasion, made at its first candidate.
    let mut steps: [Option<Steps>; MAX_EVASION_DICE + 1] = [None; MAX_EVASION_DICE + 1];
    let mut consider = |best: &mut Option<Best>, seq: [Maneuver; 3], e: u32| {
        // (Evasion never passes the cap, at most MAX_EVASION_DICE.)
        let made;
        let at = match steps.get_mut(e as usize) {
            Some(slot) => &*slot.get_or_insert_with(|| steps_of(p, p.thrust - e, target)),
            None => {
                made = steps_of(p, p.thrust - e, target);
                &made
            }
        };
        let (score, k) = play(p, x, aims, kept, (seq, e), (target, at));
        if best.as_ref().is_none_or(|b| score > b.score + 1e-9) {
            *best = Some(Best {
                seq,
                evasion: e,
                score,
                range: k.range,
                spread: k.spread,
            });
        }
    };
    // The maneuvers first, at a third, at the most and at no Evasion (all
    // Speed may want other maneuvers than the Evasions between); then every
    // other Evasion with the best maneuvers.
    let seeds = match fixed {
        Some(e) => [e.min(cap), e.min(cap), e.min(cap)],
        None => [third(p.thrust), cap, 0],
    };
    // An avoiding Formation never closes on its target (unless its orders
    // leave it nothing else).
    let away = |seq: &[Maneuver; 3]| stance != Stance::Avoid || !seq.contains(&Maneuver::Close);
    let any_away = sequences.iter().any(away);
    // A target that cannot move cannot make the approach cheaper by
    // waiting, and waiting runs the battle's clock out: a Formation that
    // fights it from beyond the range it seeks heads there at once (the
    // score of one Exchange alone would keep it out of the bands it must
    // cross, Exchange after Exchange).
    let immobile = p.theirs.thrust == 0
        && matches!(stance, Stance::Outgun | Stance::LeastBad)
        && f64::from(p.range) > f64::from(seeking) + 3.0;
    let heads = |seq: &[Maneuver; 3]| !immobile || seq[0] == Maneuver::Close;
    let any_heads = sequences.iter().any(|s| heads(s) && (away(s) || !any_away));
    let allowed = |seq: &[Maneuver; 3]| (away(seq) || !any_away) && (heads(seq) || !any_heads);
    for &seq in sequences.iter().filter(|s| allowed(s)) {
        for (k, &e) in seeds.iter().enumerate() {
            // The same Evasion twice would score the same.
            if !seeds[..k].contains(&e) {
                consider(&mut best, seq, e);
            }
        }
    }
    if fixed.is_none() {
        let seq = best.as_ref().map_or(sequences[0], |b| b.seq);
        for e in (0..=cap).rev().filter(|e| !seeds.contains(e)) {
            consider(&mut best, seq, e);
        }
    }
    let best = best.expect("at least one candidate");
    let our_i = aims.our_i;
    let seek = aims.seek();
    let at_seek = match stance {
        Stance::NoFight => (0.0, 0.0),
        _ => (x.ours[our_i], x.theirs[our_i]),
    };
    let seek_at = f64::from(seek);
    let ordnance_at_seek = match stance {
        Stance::NoFight => (0.0, 0.0),
        _ => (
            x.our_stores.left_at(seek_at, None),
            x.their_stores.left_at(seek_at, None),
        ),
    };
    Plan {
        maneuvers: best.seq,
        speed: p.thrust - best.evasion,
        evasion: best.evasion,
        range: best.range,
        spread: best.spread,
        seek,
        stance,
        at_seek,
        ordnance_at_seek,
        their_seek: aims.their_seek(),
        with_allies: p.coalition != (1.0, 1.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::doctrine::plan::grid::weigh_grid;

    /// The sustained fire of a side of `p` on the grid, weighed.
    fn fire_on(p: &Pair<'_>, side: Firing, evasion: u32) -> [f64; GRID] {
        let (a, t) = match side {
            Firing::Ours => (p.ours, p.theirs),
            Firing::Theirs => (p.theirs, p.ours),
        };
        weigh_grid(p.tables, a, t, evasion)
    }

    #[test]
    fn the_quick_worth_of_a_range_is_the_worth_every_score_weighed_gives() {
        // The plans' scores add the worth up: the quick way must give the
        // very same number (bit for bit, or results would change), for
        // Formations that do not move, move a little or cross the grid,
        // and scores with no positive one, zeros of both signs, a positive
        // one so small its discount underflows, and infinities.
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut compared = 0;
        for case in 0..400 {
            let scores: [f64; GRID] = std::array::from_fn(|_| match next() % 9 {
                0 => 0.0,
                1 => -0.0,
                2 if case % 3 == 0 => 5e-324,
                3 => f64::NEG_INFINITY,
                4..=5 if case % 2 == 0 => (next() % 1000) as f64 / 100.0,
                _ => -((next() % 1000) as f64) / 100.0,
            });
            for reach in [0, 1, 2, 5, 13, 40, 99] {
                let potential = Potential::new(scores, reach);
                for i in 0..GRID {
                    let (quick, weighed) = (potential.worth_of(i), potential.weighed(i));
                    assert_eq!(quick.to_bits(), weighed.to_bits(), "{scores:?} reach {reach} at {i}");
                    compared += 1;
                }
            }
        }
        assert_eq!(compared, 400 * 7 * GRID);
    }

    #[test]
    fn ordnance_terms_read_back_are_the_terms_weighed_afresh() {
        // Both sides launch salvos of both reaches, racks, heavy missiles
        // and (one side) antimatter missiles; ranges sit on, just inside
        // and just beyond every reach. A share read back from the
        // Exchange's terms must be the very number a fresh Exchange
        // weighs, bit for bit.
        use crate::engine::doctrine::assess::{Salvos, tables};
        let mut a = Arsenal::default();
        a.beams[2][0] = 2;
        a.salvos = [Salvos { launchers: 2, loads: 5 }, Salvos { launchers: 1, loads: 2 }];
        a.racks = [1, 0];
        a.antimatter = 1;
        (a.durability, a.ships, a.thrust) = (30, 2, 6);
        let mut b = Arsenal::default();
        b.beams[1][0] = 4;
        b.salvos[0] = Salvos { launchers: 3, loads: 6 };
        b.heavies = [0, 1];
        b.pd_kills = 1.5;
        (b.durability, b.ships, b.thrust) = (24, 1, 4);
        let near = |r: f64| [r - 0.5, r, r + 0.5];
        let marks: Vec<f64> = [0.0, 12.0, 30.0, 36.0, 42.0, 60.0].into_iter().flat_map(near).collect();
        let mut weighed = 0;
        for range in [12, 30, 45] {
            let p = Pair {
                tables: tables(),
                ours: &a,
                theirs: &b,
                range,
                their_evasion: 1,
                their_primary: true,
                thrust: a.thrust,
                class1_pd: true,
                mutual: true,
                coalition: (1.0, 1.0),
            };
            let fresh = || Exchange::new(&p, &mut |side, e| fire_on(&p, side, e));
            let mut kept = fresh();
            for (i, &r0) in marks.iter().enumerate() {
                for &r2 in &marks[i % 5..] {
                    let r = [r0, (r0 + r2) / 2.0, r2];
                    let ours = launches(p.ours, f64::from(range), &r, &[1.0, 2.0, 3.0]);
                    let at = r.map(Lerp::new);
                    for evasion in 0..=3 {
                        let read = shares(&p, &mut kept, (&r, &at), &ours, evasion);
                        let afresh = shares(&p, &mut fresh(), (&r, &at), &ours, evasion);
                        assert_eq!(
                            (read.0.to_bits(), read.1.to_bits()),
                            (afresh.0.to_bits(), afresh.1.to_bits())
                        );
                        weighed += 1;
                    }
                }
            }
        }
        assert!(weighed > 1000);
    }
}
