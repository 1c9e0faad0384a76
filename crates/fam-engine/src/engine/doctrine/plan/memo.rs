//! What the commander keeps of what it weighed ([`PlanMemo`]), so that a
//! batch worker meeting the same pair of Formations in the same state again
//! (common from Exchange to Exchange and from run to run) reads it back:
//! the plans, what the plans weigh of each pair, sustained fire on the
//! grid and for fire targets, and the numbers that name arsenals in their
//! keys. Each is a [`Cache`]; docs/performance.md says what each keeps
//! and why a read-back is exact.

use super::grid::{FireOn, Firing, GRID, evasion_index, grid, weigh_grid};
use super::pair::{PairWork, PairWorks};
use super::weigh::{Pair, Plan, SEQUENCES};
use crate::engine::doctrine::assess::{Arsenal, Attacker, Defence, DieTables, FireKey, Firepower};
use crate::engine::doctrine::cache::{Cache, hash_of};
use crate::engine::plot::Maneuver;
use std::hash::{Hash, Hasher};

/// Plans already made, and what they weighed, by everything it depends
/// on. What the doctrine weighs is a pure function of its key, so a value
/// read back is the value it would weigh: results do not depend on what
/// the memo holds (one of no slots, [`PlanMemo::off`], weighs everything
/// every time). Keys name arsenals (1 KB each) by number, so that many
/// plans fit in a few megabytes.
#[derive(Debug)]
pub struct PlanMemo {
    /// Plans by everything [`super::choose`] reads.
    pub(super) plans: Cache<PlanKey, Plan>,
    /// The arsenals' numbers, and each Formation's this plot.
    pub(super) numbers: Numbers,
    /// Sustained fire on the grid, for the plans.
    pub(super) grids: Cache<FireOf, [f64; GRID]>,
    /// What the plans weighed of each pair.
    pub(super) pairs: Pairs,
    /// Sustained fire, for the choice of a fire target.
    sustained: Cache<FireOf, Firepower>,
}

/// Slots of each of a [`PlanMemo`]'s caches: plans (under 200 bytes
/// each), arsenals and weapons numbered (1.1 KB each), grids (400
/// bytes), pairs (both sides' work), sustained fire. Past these, a fleet
/// action misses no more often: what it misses then it has never weighed.
const PLAN_SLOTS: usize = 32768;
const ARSENAL_SLOTS: usize = 8192;
const FIRE_SLOTS: usize = 2048;
const GRID_SLOTS: usize = 2048;
const PAIR_SLOTS: usize = 128;
const SUSTAINED_SLOTS: usize = 512;
/// Slots of each cache of a memo for one plot ([`PlanMemo::one_plot`]).
const ONE_PLOT_SLOTS: usize = 256;

impl Default for PlanMemo {
    fn default() -> PlanMemo {
        PlanMemo::sized(None)
    }
}

impl PlanMemo {
    /// A memo whose every cache has `slots` slots (0: keeps nothing), a
    /// pair's own included, for checks that what it keeps changes no plan.
    pub fn with_slots(slots: usize) -> PlanMemo {
        PlanMemo::sized(Some(slots))
    }

    /// A memo that keeps nothing: every plan weighed afresh.
    pub fn off() -> PlanMemo {
        PlanMemo::with_slots(0)
    }

    /// A memo for one plot and no more ([`ONE_PLOT_SLOTS`] slots a cache):
    /// what one Exchange's plot weighs, without the megabytes a batch
    /// worker's memo zeroes when first used, which would cost a one-off plot
    /// (`fam resolve`, a template, a test) more than the plot itself.
    pub fn one_plot() -> PlanMemo {
        PlanMemo::with_slots(ONE_PLOT_SLOTS)
    }

    /// A memo of `slots` slots a cache, or (`None`) each cache's usual
    /// number.
    fn sized(slots: Option<usize>) -> PlanMemo {
        let size = |usual| slots.unwrap_or(usual);
        PlanMemo {
            plans: Cache::new(size(PLAN_SLOTS)),
            numbers: Numbers {
                plot: Vec::new(),
                arsenals: Numbering::new(size(ARSENAL_SLOTS)),
                fires: Numbering::new(size(FIRE_SLOTS)),
            },
            grids: Cache::new(size(GRID_SLOTS)),
            pairs: Pairs {
                kept: Cache::new(size(PAIR_SLOTS)),
                spare: None,
                slots,
            },
            sustained: Cache::new(size(SUSTAINED_SLOTS)),
        }
    }

    /// Plans read back so far.
    pub fn hits(&self) -> u64 {
        self.plans.hits()
    }

    /// Starts a plot of a battle of `formations` Formations: each
    /// Formation's arsenal is numbered afresh, when a plan first asks.
    pub fn start_plot(&mut self, formations: usize) {
        self.numbers.plot.clear();
        self.numbers.plot.resize(formations, PlotNumbers::default());
    }

    /// The sustained fire of attacker `a` at any target, range and
    /// Evasion dice ([`crate::engine::doctrine::assess::sustained`]):
    /// read back where it was weighed at the same defences and dice before
    /// (the attacker is named once, for every target).
    pub fn sustained<'m>(
        &'m mut self,
        tables: &'m DieTables,
        a: &'m Attacker,
    ) -> impl FnMut(&Arsenal, u32, u32) -> f64 + 'm {
        let number = self.numbers.fires.number(a);
        let kept = &mut self.sustained;
        move |t, range, evasion| {
            let key = FireOf::new(number, t, evasion);
            kept.get_or_insert_with(&key, || FireKey::of(a, t).firepower(tables, evasion))
                .at(range)
        }
    }
}

/// The sustained fire on the grid of the side `side` of `p`, the target
/// rolling `evasion` Evasion dice: read back from `grids` where the
/// weapons of its fire number (`fires`: ours and the target's) were
/// weighed at the same defences and dice before. Debug builds weigh each
/// afresh from the parts of the arsenals a key keeps, to check.
pub(super) fn fire_on(
    grids: &mut Cache<FireOf, [f64; GRID]>,
    (p, fires): (&Pair<'_>, (u64, u64)),
    side: Firing,
    evasion: u32,
) -> [f64; GRID] {
    let (a, t, number) = match side {
        Firing::Ours => (p.ours, p.theirs, fires.0),
        Firing::Theirs => (p.theirs, p.ours, fires.1),
    };
    let g = *grids.get_or_insert_with(&FireOf::new(number, t, evasion), || weigh_grid(p.tables, a, t, evasion));
    debug_assert!(
        g.map(f64::to_bits) == grid(&Firepower::new(p.tables, a, t, evasion)).map(f64::to_bits),
        "fire reads only what its key keeps, and a fire number names one set of weapons"
    );
    g
}

/// Sustained fire by what it depends on ([`Firepower::new`]): the
/// attacker's weapons and readings, by their number ([`Numbers::fire`]),
/// the target's defences ([`Defence`]) and its Evasion dice (never the
/// range, nor the target's hull: a Formation hurt but with its weapons,
/// screens and ships whole reads its fire back).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct FireOf {
    number: u64,
    defence: Defence,
    n: usize,
}

impl FireOf {
    fn new(number: u64, t: &Arsenal, evasion: u32) -> FireOf {
        FireOf {
            number,
            defence: Defence::of(t),
            n: evasion_index(evasion),
        }
    }
}

/// Everything [`super::choose`] reads: the arsenals by their numbers
/// ([`Numbers::whole`]), the rest of the pair, the sequences and the
/// Evasion fixed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct PlanKey {
    arsenals: (u64, u64),
    facts: PairFacts,
    sequences: [[Maneuver; 3]; SEQUENCES.len()],
    count: usize,
    fixed: Option<u32>,
}

impl PlanKey {
    /// The key of the plan for `p` (its arsenals numbered `arsenals`);
    /// `None` for more sequences than a key holds.
    pub(super) fn new(
        arsenals: (u64, u64),
        p: &Pair<'_>,
        sequences: &[[Maneuver; 3]],
        fixed: Option<u32>,
    ) -> Option<PlanKey> {
        let mut seq = [[Maneuver::Maintain; 3]; SEQUENCES.len()];
        seq.get_mut(..sequences.len())?.copy_from_slice(sequences);
        Some(PlanKey {
            arsenals,
            facts: PairFacts::of(p),
            sequences: seq,
            count: sequences.len(),
            fixed,
        })
    }
}

impl Hash for PlanKey {
    /// The facts that most often differ (a key is compared whole).
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.facts.hash(state);
        let first = self.sequences[0][0] as u32;
        state.write_u32(self.fixed.unwrap_or(u32::MAX));
        state.write_u32(u32::try_from(self.count).unwrap_or(0) | first << 8);
        state.write_u64(self.arsenals.0);
        state.write_u64(self.arsenals.1);
    }
}

/// What a plan reads of a pair besides its two arsenals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct PairFacts {
    range: u32,
    their_evasion: u32,
    their_primary: bool,
    thrust: u32,
    class1_pd: bool,
    /// The allies' factors ([`Pair::coalition`]), as bits.
    coalition: (u64, u64),
}

impl PairFacts {
    fn of(p: &Pair<'_>) -> PairFacts {
        // Every field of the pair named: one added to it cannot be left
        // out of the keys unseen. The tables are the same for every pair,
        // and whether the target plans against us too changes no plan.
        let Pair {
            tables: _,
            ours: _,
            theirs: _,
            range,
            their_evasion,
            their_primary,
            thrust,
            class1_pd,
            mutual: _,
            coalition,
        } = *p;
        PairFacts {
            range,
            their_evasion,
            their_primary,
            thrust,
            class1_pd,
            coalition: (coalition.0.to_bits(), coalition.1.to_bits()),
        }
    }
}

impl Hash for PairFacts {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let fold = |bits: u64| bits ^ (bits >> 32);
        state.write_u32(self.range);
        state.write_u32(self.their_evasion);
        state.write_u32(self.thrust << 2 | u32::from(self.their_primary) | u32::from(self.class1_pd) << 1);
        state.write_u64(fold(self.coalition.0) ^ fold(self.coalition.1) << 32);
    }
}

/// What the plans weighed of pairs of Formations each the other's maneuver
/// target and nearest enemy, weighing it alone ([`Pair::mutual`]): the
/// plan of one weighs the pair from the other's side too, to foresee its
/// answer, and the other's plan reads both sides back. Work for other
/// pairs is made in a spare, made again in place each time.
#[derive(Debug)]
pub(super) struct Pairs {
    kept: Cache<PairKey, PairWorks>,
    /// Work for pairs not kept (made on first use).
    spare: Option<Box<PairWorks>>,
    /// The slots of the caches of a pair's work (`None`: their usual).
    slots: Option<usize>,
}

impl Pairs {
    /// The work of a pair not kept.
    pub(super) fn spare(&mut self) -> &mut PairWorks {
        let slots = self.slots;
        self.spare.get_or_insert_with(|| Box::new(PairWorks::empty(slots)))
    }

    /// The work of the pair `p` (its arsenals numbered `arsenals`) and of
    /// its `mirror`, kept: read back, or made again in place with the
    /// sustained fire of the sides of `p` from `fire`.
    pub(super) fn kept(
        &mut self,
        (p, mirror): (&Pair<'_>, &Pair<'_>),
        arsenals: (u64, u64),
        fire: &mut FireOn<'_>,
    ) -> (&mut PairWork, &mut PairWork) {
        let (key, ours) = PairKey::of((p, mirror), arsenals);
        let empty = || PairWorks::empty(self.slots);
        let works = self
            .kept
            .get_or_renew(&key, empty, |w| w.renew((p, mirror), ours, fire));
        works.sides(ours)
    }
}

/// Both sides of a pair, each by its arsenals' numbers and the rest of
/// its facts, the lesser first: the pair seen from either side has the
/// same key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct PairKey([PairSide; 2]);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct PairSide {
    arsenals: (u64, u64),
    facts: PairFacts,
}

impl PairKey {
    /// The key of `p` (its arsenals numbered `arsenals`) and its
    /// `mirror`, and which side is `p`'s (0 or 1).
    fn of((p, mirror): (&Pair<'_>, &Pair<'_>), arsenals: (u64, u64)) -> (PairKey, usize) {
        let ours = PairSide {
            arsenals,
            facts: PairFacts::of(p),
        };
        let theirs = PairSide {
            arsenals: (arsenals.1, arsenals.0),
            facts: PairFacts::of(mirror),
        };
        if ours <= theirs {
            (PairKey([ours, theirs]), 0)
        } else {
            (PairKey([theirs, ours]), 1)
        }
    }
}

/// Arsenals named by number in the keys, and each Formation's numbers this
/// plot.
#[derive(Debug)]
pub(super) struct Numbers {
    /// Each Formation's numbers this plot, by Formation.
    plot: Vec<PlotNumbers>,
    /// Whole arsenals: what plans and pairs are kept by.
    arsenals: Numbering<Arsenal>,
    /// Arsenals' weapons and readings ([`Attacker`]): what sustained fire
    /// is kept by.
    fires: Numbering<Attacker>,
}

impl Numbers {
    /// The numbers of the arsenals of `p`, ours and the target's, whose
    /// Formations are `formations` ([`Numbers::whole`] of each).
    pub(super) fn wholes(&mut self, (p, (f, t)): (&Pair<'_>, (usize, usize))) -> (u64, u64) {
        let numbers = (self.whole(f, p.ours), self.whole(t, p.theirs));
        debug_assert!(
            self.arsenals.may_name(numbers.0, p.ours) && self.arsenals.may_name(numbers.1, p.theirs),
            "an arsenal's number is its own"
        );
        numbers
    }

    /// The fire numbers of the arsenals of `p` ([`Numbers::fire`] of
    /// each).
    pub(super) fn fires(&mut self, (p, (f, t)): (&Pair<'_>, (usize, usize))) -> (u64, u64) {
        (self.fire(f, p.ours), self.fire(t, p.theirs))
    }

    /// The number of arsenal `a`, Formation `f`'s this plot: found once a
    /// plot.
    fn whole(&mut self, f: usize, a: &Arsenal) -> u64 {
        let Some(numbers) = self.plot.get_mut(f) else {
            return self.arsenals.number(a);
        };
        numbers.check(a);
        *numbers.whole.get_or_insert_with(|| self.arsenals.number(a))
    }

    /// The number of the weapons and readings of arsenal `a`, Formation
    /// `f`'s this plot: found once a plot.
    fn fire(&mut self, f: usize, a: &Arsenal) -> u64 {
        let mut number = || self.fires.number(&Attacker::of(a));
        match self.plot.get_mut(f) {
            Some(numbers) => {
                numbers.check(a);
                *numbers.fire.get_or_insert_with(number)
            }
            None => number(),
        }
    }
}

/// Keys numbered: each kept once, in a slot by its hash, with a number no
/// other key ever gets. A slot overwritten by another key gives that one a
/// new number, so a memo key naming the old number never matches again:
/// two memo keys with the same numbers name the same arsenals. One that
/// keeps nothing gives a new number every time.
#[derive(Debug)]
struct Numbering<K> {
    kept: Cache<K, u64>,
    /// Numbers given so far (none is 0).
    given: u64,
}

impl<K: Hash + Eq + Clone> Numbering<K> {
    fn new(slots: usize) -> Numbering<K> {
        Numbering {
            kept: Cache::new(slots),
            given: 0,
        }
    }

    /// The number of `key`: the one it was given when it is still kept,
    /// else a new one.
    fn number(&mut self, key: &K) -> u64 {
        let given = &mut self.given;
        *self.kept.get_or_insert_with(key, || {
            *given += 1;
            *given
        })
    }

    /// Whether `number` may be the number of `key`: unless `key` is kept
    /// under a number given before `number` (a check for debug builds: a
    /// number given and since pushed out cannot be checked). It may be
    /// kept under a later number: a Formation's number is found once a
    /// plot, and another Formation with an equal arsenal may have numbered
    /// it again after some third arsenal pushed it out in between. The
    /// earlier number still names `key` alone (numbers are never given
    /// twice); what is kept under it is just not shared.
    fn may_name(&self, number: u64, key: &K) -> bool {
        match self.kept.get(key) {
            Some(&kept) => number != 0 && number <= kept,
            None => number != 0,
        }
    }
}

/// A Formation's numbers this plot, found when first asked for.
#[derive(Debug, Clone, Copy, Default)]
struct PlotNumbers {
    whole: Option<u64>,
    fire: Option<u64>,
    /// Debug builds: the hash of the arsenal first asked for, which every
    /// later ask this plot must share (a Formation's arsenal is the same
    /// all plot; a plot not started would read another plot's numbers).
    asked: Option<u64>,
}

impl PlotNumbers {
    /// Debug builds check that `a` is the arsenal first asked for.
    fn check(&mut self, a: &Arsenal) {
        if cfg!(debug_assertions) {
            let hash = hash_of(a);
            let first = *self.asked.get_or_insert(hash);
            debug_assert_eq!(first, hash, "one arsenal a Formation a plot");
        }
    }
}

#[cfg(test)]
impl PlanMemo {
    /// Slots of each of its caches, when made: plans, arsenals and weapons
    /// numbered, grids, pairs, sustained fire.
    pub(super) const SLOTS: [usize; 6] = [
        PLAN_SLOTS,
        ARSENAL_SLOTS,
        FIRE_SLOTS,
        GRID_SLOTS,
        PAIR_SLOTS,
        SUSTAINED_SLOTS,
    ];

    /// Slots made so far of each of its caches ([`PlanMemo::SLOTS`]).
    pub(super) fn slots_made(&self) -> [usize; 6] {
        [
            self.plans.slots_made(),
            self.numbers.arsenals.kept.slots_made(),
            self.numbers.fires.kept.slots_made(),
            self.grids.slots_made(),
            self.pairs.kept.slots_made(),
            self.sustained.slots_made(),
        ]
    }

    /// Bytes of all its slots, once made.
    pub(super) fn bytes() -> usize {
        use std::mem::size_of;
        let works = size_of::<Option<(PairKey, PairWorks)>>();
        let bytes = [
            size_of::<Option<(PlanKey, Plan)>>(),
            size_of::<Option<(Arsenal, u64)>>(),
            size_of::<Option<(Attacker, u64)>>(),
            size_of::<Option<(FireOf, [f64; GRID])>>(),
            works,
            size_of::<Option<(FireOf, Firepower)>>(),
        ];
        bytes.iter().zip(PlanMemo::SLOTS).map(|(b, n)| b * n).sum()
    }

    /// Pairs read back so far.
    pub(super) fn pair_hits(&self) -> u64 {
        self.pairs.kept.hits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::doctrine::assess::{sustained, tables};

    #[test]
    fn an_arsenal_pushed_out_of_the_table_never_shares_a_number() {
        // One slot: every other arsenal pushes the last out. A key names
        // arsenals by number, so a number given twice would read back a
        // plan made for another arsenal.
        let mut table = Numbering::new(1);
        let mut a = Arsenal::default();
        a.beams[2][0] = 3;
        let mut b = a;
        b.durability = 12;
        let first = table.number(&a);
        assert_eq!(table.number(&a), first, "an arsenal still kept keeps its number");
        let other = table.number(&b);
        let again = table.number(&a);
        assert_ne!(other, first);
        assert!(again != first && again != other, "{first} {other} {again}");
        assert_eq!(table.number(&a), again);
        // And with room for both, each keeps its own.
        let mut table = Numbering::new(ARSENAL_SLOTS);
        let (na, nb) = (table.number(&a), table.number(&b));
        assert_ne!(na, nb);
        assert_eq!((table.number(&a), table.number(&b)), (na, nb));
        // Keeping nothing, every number is new.
        let mut table = Numbering::new(0);
        let (x, y) = (table.number(&a), table.number(&a));
        assert!(x != 0 && y != 0 && x != y, "{x} {y}");
    }

    #[test]
    fn a_formation_hurt_with_its_weapons_whole_keeps_its_fire_number_only() {
        // Fire on the grid is kept by the fire number: a Formation that lost
        // hull but no weapon fires as before and reads its fire back; one
        // that lost a weapon does not. Plans are kept by the whole number.
        let mut memo = PlanMemo::default();
        let mut whole = Arsenal::default();
        whole.beams[2][0] = 3;
        (whole.durability, whole.ships, whole.thrust) = (24, 2, 6);
        let mut hurt = whole;
        hurt.durability = 9;
        let mut disarmed = hurt;
        disarmed.beams[2][0] = 2;
        // One Formation's numbers are found once a plot: each arsenal here
        // is numbered in a plot of its own.
        let numbers = [whole, hurt, disarmed].map(|a| {
            memo.start_plot(1);
            (memo.numbers.whole(0, &a), memo.numbers.fire(0, &a))
        });
        let [(w, wf), (h, hf), (d, df)] = numbers;
        assert!(w != h && h != d && w != d, "{numbers:?}");
        assert_eq!(wf, hf, "hull lost, weapons whole: the same fire");
        assert_ne!(hf, df, "a weapon lost: other fire");
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "one arsenal a Formation a plot")]
    fn a_formation_asked_for_with_another_arsenal_in_one_plot_is_refused_in_debug_builds() {
        // A plot that was not started would read the numbers of another
        // plot's arsenals: debug builds catch it.
        let mut memo = PlanMemo::default();
        let mut a = Arsenal::default();
        a.beams[2][0] = 3;
        let mut b = a;
        b.durability = 7;
        memo.start_plot(1);
        memo.numbers.whole(0, &a);
        memo.numbers.whole(0, &b);
    }

    #[test]
    fn fire_read_back_from_the_memo_is_the_fire_weighed_afresh() {
        // Class-3 beams, and those with class-2 beams, against an
        // unscreened target and against one with level-1 screens; Evasion
        // 0, 2 and 20 (counted as the most dice): each read back after it
        // is first weighed, and a changed target or Evasion never reads
        // another's fire. With one slot, every attacker pushes the last
        // one's number out.
        let t = tables();
        let mut a = Arsenal::default();
        a.beams[3][0] = 2;
        let mut b = a;
        b.beams[2][0] = 2;
        let open = Arsenal {
            screens: [1.0, 0.0, 0.0],
            ..Arsenal::default()
        };
        let screened = Arsenal {
            screens: [0.0, 1.0, 0.0],
            ..Arsenal::default()
        };
        for slots in [SUSTAINED_SLOTS, 1] {
            let mut memo = PlanMemo::with_slots(slots);
            for _ in 0..2 {
                for attacker in [&a, &b] {
                    let named = Attacker::of(attacker);
                    let mut kept = memo.sustained(t, &named);
                    for target in [&open, &screened] {
                        for evasion in [0, 2, 20] {
                            for range in [6, 18, 19, 36, 37] {
                                let afresh = sustained(t, attacker, target, range, evasion);
                                let read = kept(target, range, evasion);
                                assert_eq!(read.to_bits(), afresh.to_bits(), "{evasion} dice at {range} MU");
                            }
                        }
                    }
                }
            }
            assert!(memo.sustained.hits() > 0, "{slots} slots");
        }
        // Screens and Evasion matter: the memo must not mix them up.
        let mut memo = PlanMemo::default();
        let named = Attacker::of(&a);
        let mut kept = memo.sustained(t, &named);
        let (bare, screens, evading) = (kept(&open, 12, 0), kept(&screened, 12, 0), kept(&open, 12, 2));
        assert!(screens < bare && evading < bare, "{bare} {screens} {evading}");
    }
}
