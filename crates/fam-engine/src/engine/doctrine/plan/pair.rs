//! What the plans against one pair of Formations weigh whatever their
//! orders ([`PairWork`]), from both sides ([`PairWorks`]): a plan weighs
//! its pair from the target's side too, to foresee the target's answer
//! ([`foresee`]).

use super::grid::FireOn;
use super::ordnance::TERM_SLOTS;
use super::weigh::{Aims, Exchange, Expect, KEPT_SLOTS, KeptHalves, Pair, Plan, SEQUENCES, best_plan};
use crate::engine::doctrine::cache::InlineCache;
use crate::engine::plot::Maneuver;

/// Our plan against the target of `p` that answers its plan against us
/// (`mirror`), which answers our plan against a target heading for its
/// own range; `ours` and `theirs` what each plan weighs of the pair.
pub(super) fn foresee(
    (p, mirror): (&Pair<'_>, &Pair<'_>),
    (sequences, fixed): (&[[Maneuver; 3]], Option<u32>),
    (ours, theirs): (&mut PairWork, &mut PairWork),
) -> Plan {
    // As it assumes of us: a third of our thrust to Evasion.
    let naive = ours.best(p, &SEQUENCES, Some(p.thrust / 3), Expect::Seeks);
    let answer = theirs.best(mirror, &SEQUENCES, None, Expect::Plays(naive.maneuvers, naive.speed));
    ours.best(p, sequences, fixed, Expect::Plays(answer.maneuvers, answer.speed))
}

/// What every plan against one pair weighs whatever its orders: the
/// expected fire both ways, the ranges each side seeks, the kept half of
/// the candidates played, and the best plans made. All are pure functions
/// of the pair: the plan of the target against us, which foresees our
/// answer, weighs the very same.
#[derive(Debug, Clone)]
pub(super) struct PairWork {
    x: Exchange,
    aims: Aims,
    kept: KeptHalves,
    plans: InlineCache<BestOf, Plan, PLAN_SLOTS>,
}

/// Slots of a [`PairWork`]'s best plans: more than the few plans of a
/// pair (its own plan's three, and the target's).
const PLAN_SLOTS: usize = 16;

/// A best plan among all of [`SEQUENCES`]: by the Evasion fixed and the
/// target's expected moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct BestOf {
    fixed: Option<u32>,
    target: Expect,
}

impl std::hash::Hash for BestOf {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let (expect, moves) = match self.target {
            Expect::Seeks => (0, 0),
            Expect::Keeps => (1, 0),
            Expect::Still => (2, 0),
            Expect::Plays([a, b, c], dice) => (3, (a as u32 * 9 + b as u32 * 3 + c as u32) << 16 | dice),
        };
        state.write_u32(self.fixed.unwrap_or(u32::MAX));
        state.write_u32(expect << 28 | moves);
    }
}

impl PairWork {
    /// Work for no pair yet, its caches of `slots` slots each (`None`:
    /// their usual number).
    fn empty(slots: Option<usize>) -> PairWork {
        let size = |usual| slots.unwrap_or(usual);
        PairWork {
            x: Exchange::empty(size(TERM_SLOTS)),
            aims: Aims::empty(),
            kept: InlineCache::inline(size(KEPT_SLOTS)),
            plans: InlineCache::inline(size(PLAN_SLOTS)),
        }
    }

    /// Made again in place for the pair `p`, its sustained fire on the
    /// grid from `fire` (the work is some 10 KB: moving it whole would cost
    /// more than a plan saves).
    fn renew(&mut self, p: &Pair<'_>, fire: &mut FireOn<'_>) {
        self.x.renew(p, fire);
        self.aims.renew(p, &self.x);
        self.forget();
    }

    /// Made again in place for `mirror`, the pair of `ours` (the work of
    /// `p`) seen from its target: what is the same from both sides is
    /// taken from `ours` ([`Exchange::mirror_into`],
    /// [`Aims::renew_mirrored`]). `fire` is the sustained fire on the grid
    /// of the sides of `p`.
    fn renew_mirror(&mut self, (p, mirror): (&Pair<'_>, &Pair<'_>), ours: &PairWork, fire: &mut FireOn<'_>) {
        if ours.x.mirror_into((p, mirror), fire, &mut self.x) {
            self.aims.renew_mirrored(mirror, &ours.aims);
            if cfg!(debug_assertions) {
                let mut fresh = self.aims.clone();
                fresh.renew(mirror, &self.x);
                debug_assert!(fresh.seeks_as(&self.aims), "a mirrored pair's aims differ from its own");
            }
        } else {
            self.aims.renew(mirror, &self.x);
        }
        self.forget();
    }

    /// Keeps no candidate halves and no best plans.
    fn forget(&mut self) {
        self.kept.clear();
        self.plans.clear();
    }

    /// [`best_plan`] for this pair: read back when it was made before
    /// among all of [`SEQUENCES`].
    pub(super) fn best(
        &mut self,
        p: &Pair<'_>,
        sequences: &[[Maneuver; 3]],
        fixed: Option<u32>,
        target: Expect,
    ) -> Plan {
        let mut weigh = || {
            best_plan(
                p,
                (&mut self.x, &mut self.aims, &mut self.kept),
                sequences,
                fixed,
                target,
            )
        };
        if sequences == SEQUENCES.as_slice() {
            *self.plans.get_or_insert_with(&BestOf { fixed, target }, weigh)
        } else {
            weigh()
        }
    }
}

/// The [`PairWork`] of both sides of a pair, each the other's mirror.
#[derive(Debug, Clone)]
pub(super) struct PairWorks([PairWork; 2]);

impl PairWorks {
    /// Work for no pair yet ([`PairWork::empty`]).
    pub(super) fn empty(slots: Option<usize>) -> PairWorks {
        PairWorks([PairWork::empty(slots), PairWork::empty(slots)])
    }

    /// The work of the side at `ours` (0 or 1), and of the other.
    pub(super) fn sides(&mut self, ours: usize) -> (&mut PairWork, &mut PairWork) {
        let [a, b] = &mut self.0;
        if ours == 0 { (a, b) } else { (b, a) }
    }

    /// Made again in place for the pair `p`, its side at `ours`, and the
    /// pair seen from its target, `mirror` (from `p`'s work), the sustained
    /// fire on the grid of the sides of `p` from `fire`.
    pub(super) fn renew(&mut self, (p, mirror): (&Pair<'_>, &Pair<'_>), ours: usize, fire: &mut FireOn<'_>) {
        let (work, theirs) = self.sides(ours);
        work.renew(p, fire);
        theirs.renew_mirror((p, mirror), work, fire);
    }

    /// Made again in place for the pair `p` alone (the target plans
    /// against another): the side at 0.
    pub(super) fn renew_one(&mut self, p: &Pair<'_>, fire: &mut FireOn<'_>) -> &mut PairWork {
        let work = &mut self.0[0];
        work.renew(p, fire);
        work
    }
}
