//! The default doctrine's plan for one Exchange against its maneuver
//! target: which range to seek, the maneuver of each Volley and the split
//! of thrust between Speed and Evasion (docs/doctrine.md, "The default
//! doctrine").
//!
//! The plan looks one Exchange ahead in expectation, without dice: every
//! candidate (a maneuver per Volley, and an Evasion) is played out with the
//! mean Speed Points of both Formations, the target assumed to seek the
//! range that suits *it* by the same measure, and is scored by the damage
//! each side expects to deal, as a share of what the other side can take,
//! plus the worth of the range it ends at for the Exchanges after.

mod grid;
mod ordnance;
mod weigh;

use super::super::plot::Maneuver;
use super::assess::{Arsenal, Attacker, fact_hash, weapons_hash};
pub use grid::{GRID, GridMemo};
pub use ordnance::{Launches, Stores, launches};
use weigh::{Aims, Expect, KeptPlays, best_plan};
pub use weigh::{Exchange, Move, Pair, Plan, SEQUENCES, Stance, step};

/// The best plan against the target among `sequences` (every one of
/// [`SEQUENCES`] for an `auto` maneuver) with the Evasion `fixed`, or every
/// Evasion from none to half the thrust: the highest score; ties go to the
/// sequence listed first, then to more Evasion.
pub fn choose(p: &Pair<'_>, sequences: &[[Maneuver; 3]], fixed: Option<u32>) -> Plan {
    let unnumbered = (Numbers::NONE, Numbers::NONE);
    choose_with(
        (p, unnumbered),
        sequences,
        fixed,
        &mut GridMemo::none(),
        &mut PairMemo::none(),
    )
}

/// [`choose`], the sustained fire both ways read from `grids` when it was
/// weighed before, and what the plans weigh of a pair whatever their
/// orders read from `pairs` when a plan weighed that pair before: each
/// kept by `numbers`, the numbers of our arsenal and the target's (read
/// only by memos that keep what they weigh).
fn choose_with(
    (p, numbers): (&Pair<'_>, (Numbers, Numbers)),
    sequences: &[[Maneuver; 3]],
    fixed: Option<u32>,
    grids: &mut GridMemo,
    pairs: &mut PairMemo,
) -> Plan {
    let fires = (numbers.0.fire, numbers.1.fire);
    // The target's own plan against us, when we are its maneuver target:
    // what it will most likely do. It plans as we do: it foresees our plan
    // against a target heading for its own range (or keeping it), and
    // answers that; so do we, to its answer. What it weighs is what its
    // own plan against us weighs: the pair seen from its side.
    let mirror = p.their_primary.then(|| mirror_of(p));
    let Some(mirror) = mirror.filter(|_| p.mutual && pairs.keep) else {
        // Unless the target is our nearest enemy too, its own plan against
        // us (if it makes one) weighs another pair: nothing weighed here
        // is worth keeping. It is weighed in the memo's spare work, made
        // again in place (some 20 KB: made afresh and moved, it cost more
        // than all the rest of many a plan).
        let spares = pairs
            .spares
            .get_or_insert_with(|| Box::new([PairWork::empty(), PairWork::empty()]));
        let [ours, theirs] = &mut **spares;
        ours.renew(p, |x| x.renew(p, fires, grids));
        let Some(mirror) = mirror else {
            // The target plans against another: it heads for the range
            // that suits it.
            return ours.unkept().best(p, sequences, fixed, Expect::Seeks);
        };
        theirs.renew_mirror((p, &mirror), ours, fires.0, grids);
        return foresee((p, &mirror), (sequences, fixed), ours.unkept(), theirs.unkept());
    };
    let mut spare = None;
    let (ours, theirs, hits) = pairs.two(p, &mirror, &mut spare);
    let arsenals = (numbers.0.whole, numbers.1.whole);
    let ours = PairSlot::fill((ours, &mut *hits), (p, arsenals), |w| {
        w.renew(p, |x| x.renew(p, fires, grids));
    });
    let mirrored = (arsenals.1, arsenals.0);
    let theirs = PairSlot::fill((theirs, hits), (&mirror, mirrored), |w| {
        w.renew_mirror((p, &mirror), ours, fires.0, grids);
    });
    foresee((p, &mirror), (sequences, fixed), ours.work(), theirs.work())
}

/// The pair `p` as its target weighs it when it plans against us: a third
/// of our thrust to Evasion, and we its maneuver target.
fn mirror_of<'a>(p: &Pair<'a>) -> Pair<'a> {
    Pair {
        tables: p.tables,
        ours: p.theirs,
        theirs: p.ours,
        range: p.range,
        their_evasion: p.thrust / 3,
        their_primary: true,
        thrust: p.theirs.thrust,
        class1_pd: p.ours.has_missiles(),
        mutual: true,
        coalition: (1.0, 1.0),
    }
}

/// Our plan against the target of `p` that answers its plan against us
/// (`mirror`), which answers our plan against a target heading for its
/// own range; with what each plan weighs of the pair from each side.
fn foresee(
    (p, mirror): (&Pair<'_>, &Pair<'_>),
    (sequences, fixed): (&[[Maneuver; 3]], Option<u32>),
    mut ours: Work<'_>,
    mut theirs: Work<'_>,
) -> Plan {
    // As it assumes of us: a third of our thrust to Evasion.
    let naive = ours.best(p, &SEQUENCES, Some(p.thrust / 3), Expect::Seeks);
    let answer = theirs.best(mirror, &SEQUENCES, None, Expect::Plays(naive.maneuvers, naive.speed));
    ours.best(p, sequences, fixed, Expect::Plays(answer.maneuvers, answer.speed))
}

/// What a plan weighs of one pair, from one side, and the best plans made
/// against the target's expected moves when they are kept.
struct Work<'w> {
    x: &'w mut Exchange,
    aims: &'w mut Aims,
    kept: &'w mut KeptPlays,
    plans: Option<&'w mut BestPlans>,
}

impl<'w> Work<'w> {
    /// Work that keeps no best plans.
    fn of(x: &'w mut Exchange, aims: &'w mut Aims, kept: &'w mut KeptPlays) -> Work<'w> {
        Work {
            x,
            aims,
            kept,
            plans: None,
        }
    }

    /// [`best_plan`] for this pair: read back when it was made before.
    fn best(&mut self, p: &Pair<'_>, sequences: &[[Maneuver; 3]], fixed: Option<u32>, target: Expect) -> Plan {
        let all = sequences == SEQUENCES.as_slice();
        if let Some(plan) = self.plans.as_deref().filter(|_| all).and_then(|b| b.get(fixed, target)) {
            return plan;
        }
        let plan = best_plan(
            p,
            (&mut *self.x, &mut *self.aims, &mut *self.kept),
            sequences,
            fixed,
            target,
        );
        if let Some(b) = self.plans.as_deref_mut().filter(|_| all) {
            b.put(fixed, target, plan);
        }
        plan
    }
}

/// Best plans among all of [`SEQUENCES`] against one pair, by the Evasion
/// fixed and the target's expected moves: the last few made.
#[derive(Debug, Clone, Default)]
struct BestPlans {
    plans: [Option<(Option<u32>, Expect, Plan)>; PLANS_KEPT],
    /// The entry the next plan overwrites.
    next: usize,
}

/// Best plans a [`PairWork`] keeps: its own plan's three and one more.
const PLANS_KEPT: usize = 4;

impl BestPlans {
    fn get(&self, fixed: Option<u32>, target: Expect) -> Option<Plan> {
        self.plans
            .iter()
            .flatten()
            .find(|(f, t, _)| *f == fixed && *t == target)
            .map(|&(_, _, plan)| plan)
    }

    fn put(&mut self, fixed: Option<u32>, target: Expect, plan: Plan) {
        self.plans[self.next] = Some((fixed, target, plan));
        self.next = (self.next + 1) % PLANS_KEPT;
    }
}

/// What every plan against one pair weighs whatever its orders: the
/// expected fire both ways, the ranges each side seeks, the [`Kept`] half
/// of the candidates played, and the best plans made. All are pure
/// functions of the pair: the plan of the target against us, which
/// foresees our answer, weighs the very same.
#[derive(Debug, Clone)]
struct PairWork {
    x: Exchange,
    aims: Aims,
    kept: KeptPlays,
    plans: BestPlans,
}

impl PairWork {
    /// Work for no pair yet.
    fn empty() -> PairWork {
        PairWork {
            x: Exchange::empty(),
            aims: Aims::empty(),
            kept: KeptPlays::default(),
            plans: BestPlans::default(),
        }
    }

    /// Made again in place for the pair `p`, its Exchange made by `make`
    /// (the work is some 10 KB: moving it whole would cost more than a
    /// plan saves).
    fn renew(&mut self, p: &Pair<'_>, make: impl FnOnce(&mut Exchange)) {
        make(&mut self.x);
        self.aims.renew(p, &self.x);
        self.forget();
    }

    /// Made again in place for `mirror`, the pair of `ours` (the work of
    /// `p`) seen from its target: what is the same from both sides is
    /// taken from `ours` ([`Exchange::mirror_into`],
    /// [`Aims::renew_mirrored`]). `fire` is the fire number of our
    /// arsenal.
    fn renew_mirror(&mut self, (p, mirror): (&Pair<'_>, &Pair<'_>), ours: &PairWork, fire: u64, grids: &mut GridMemo) {
        if ours.x.mirror_into(p, mirror, fire, grids, &mut self.x) {
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
        self.plans = BestPlans::default();
    }

    /// Its work, keeping no best plans.
    fn unkept(&mut self) -> Work<'_> {
        Work::of(&mut self.x, &mut self.aims, &mut self.kept)
    }

    fn work(&mut self) -> Work<'_> {
        Work {
            x: &mut self.x,
            aims: &mut self.aims,
            kept: &mut self.kept,
            plans: Some(&mut self.plans),
        }
    }
}

/// A pair's [`PairWork`] and the pair it was made for.
#[derive(Debug, Clone)]
struct PairSlot {
    key: PairKey,
    work: PairWork,
}

impl PairSlot {
    /// The work in `slot` when it was made for the pair `p` of the
    /// arsenals numbered `arsenals` (counted in `hits`), else the work of
    /// `p` with the Exchange `make` makes, kept there. The slot is made
    /// again in place: the work is some 10 KB.
    fn fill<'s>(
        (slot, hits): (&'s mut Option<PairSlot>, &mut u64),
        (p, arsenals): (&Pair<'_>, (u64, u64)),
        make: impl FnOnce(&mut PairWork),
    ) -> &'s mut PairWork {
        let key = PairKey {
            arsenals,
            facts: PairFacts::of(p),
        };
        if slot.as_ref().is_some_and(|s| s.key == key) {
            *hits += 1;
        } else {
            let s = slot.get_or_insert_with(|| PairSlot {
                key,
                work: PairWork::empty(),
            });
            s.key = key;
            make(&mut s.work);
        }
        match slot {
            Some(s) => &mut s.work,
            None => unreachable!("filled above"),
        }
    }
}

/// Everything about a pair that what a plan weighs depends on: the two
/// arsenals, by their numbers ([`Numbers::whole`]), and the rest of the
/// pair.
#[derive(Debug, Clone, Copy, PartialEq)]
struct PairKey {
    arsenals: (u64, u64),
    facts: PairFacts,
}

/// What a plan reads of a pair besides its two arsenals.
#[derive(Debug, Clone, Copy, PartialEq)]
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

    /// The facts as whole numbers, for a hash.
    fn words(&self) -> [u32; 6] {
        let fold = |bits: u64| (bits ^ (bits >> 32)) as u32;
        [
            self.range,
            self.their_evasion,
            self.thrust,
            u32::from(self.their_primary) | u32::from(self.class1_pd) << 1,
            fold(self.coalition.0),
            fold(self.coalition.1),
        ]
    }
}

/// A hash of the facts of the pair `p` that most often differ.
fn pair_hash(p: &Pair<'_>) -> u64 {
    let arsenals = [
        p.ours.durability,
        p.theirs.durability,
        p.ours.ships,
        p.theirs.ships,
        p.ours.thrust,
        p.theirs.thrust,
    ];
    fact_hash(PairFacts::of(p).words().into_iter().chain(arsenals))
}

/// The [`PairWork`] of pairs weighed before, so that the plan of a
/// Formation whose target planned against it this plot (weighing the pair
/// from our side to foresee our answer) reads that work back. A fixed
/// number of slots, made at once on first use and overwritten on
/// collision; one that keeps nothing ([`PairMemo::none`]) weighs every
/// time.
#[derive(Debug)]
pub struct PairMemo {
    slots: Vec<Option<PairSlot>>,
    keep: bool,
    /// Pairs read back so far.
    hits: u64,
    /// Work for pairs that are not kept (made on first use).
    spares: Option<Box<[PairWork; 2]>>,
}

impl Default for PairMemo {
    fn default() -> PairMemo {
        PairMemo {
            slots: Vec::new(),
            keep: true,
            hits: 0,
            spares: None,
        }
    }
}

/// Slots of a [`PairMemo`]: more than the pairs one plot of a large
/// battle weighs.
const PAIR_SLOTS: usize = 256;

impl PairMemo {
    /// A memo that keeps nothing.
    pub fn none() -> PairMemo {
        PairMemo {
            keep: false,
            ..PairMemo::default()
        }
    }

    /// The slots of the pair `ours` and of its mirror `theirs` (for
    /// `theirs`, `spare` when both fall in one slot: then its work is not
    /// kept), and the count of pairs read back.
    fn two<'m>(
        &'m mut self,
        ours: &Pair<'_>,
        theirs: &Pair<'_>,
        spare: &'m mut Option<PairSlot>,
    ) -> (&'m mut Option<PairSlot>, &'m mut Option<PairSlot>, &'m mut u64) {
        if self.slots.is_empty() {
            self.slots.resize(PAIR_SLOTS, None);
        }
        let slot = |p: &Pair<'_>| (pair_hash(p) % PAIR_SLOTS as u64) as usize;
        let (i, j) = (slot(ours), slot(theirs));
        if i == j {
            return (&mut self.slots[i], spare, &mut self.hits);
        }
        let (low, high) = self.slots.split_at_mut(i.max(j));
        let (a, b) = (&mut low[i.min(j)], &mut high[0]);
        let (ours, theirs) = if i < j { (a, b) } else { (b, a) };
        (ours, theirs, &mut self.hits)
    }
}

/// Plans already made, by everything [`choose`] weighs, so that a batch
/// worker facing the same pair of Formations in the same state again (the
/// same arsenals, range, thrust and orders: common from run to run) reads
/// the plan back instead of weighing every candidate again. [`choose`] is a
/// pure function of its inputs, so a plan read back is the plan it would
/// make: results do not depend on what the memo holds. A fixed number of
/// slots, made on first use and overwritten on collision: flat memory, and
/// no allocation once warm. A key names its two arsenals by their numbers
/// in [`ArsenalTable`] (a whole arsenal is 1 KB; most keys share them), so
/// that many plans fit in a few megabytes: a long batch meets the same
/// states again and again.
#[derive(Debug, Default)]
pub struct PlanMemo {
    slots: Vec<Option<(MemoKey, Plan)>>,
    hits: u64,
    /// The arsenals the keys name.
    arsenals: ArsenalTable,
    /// The weapons and readings of the arsenals the grids' keys name
    /// ([`Attacker`]).
    fires: FireTable,
    /// Each Formation's numbers this plot, by Formation.
    plot: Vec<PlotNumbers>,
    /// Sustained fire on the grid weighed before, for the plans.
    grids: GridMemo,
    /// What the plans weighed of each pair this plot.
    pairs: PairMemo,
    /// Sustained fire weighed before, for the choice of a fire target.
    pub fire: super::assess::FireMemo,
}

impl PlanMemo {
    /// Plans read back so far.
    pub fn hits(&self) -> u64 {
        self.hits
    }

    /// Starts a plot of a battle of `formations` Formations: each
    /// Formation's arsenal is numbered afresh, when a plan first asks.
    pub fn start_plot(&mut self, formations: usize) {
        self.plot.clear();
        self.plot.resize(formations, PlotNumbers::default());
    }

    /// The number of arsenal `a`, Formation `f`'s this plot
    /// ([`Numbers::whole`]): found once a plot.
    fn whole(&mut self, f: usize, a: &Arsenal) -> u64 {
        let Some(numbers) = self.plot.get_mut(f) else {
            return self.arsenals.number(a);
        };
        numbers.check(a);
        *numbers.whole.get_or_insert_with(|| self.arsenals.number(a))
    }

    /// The fire number of arsenal `a`, Formation `f`'s this plot
    /// ([`Numbers::fire`]): found once a plot.
    fn fire(&mut self, f: usize, a: &Arsenal) -> u64 {
        let mut number = || {
            let fire = Attacker::of(a);
            self.fires.0.number_by(fire.arsenal(), fire.hash())
        };
        match self.plot.get_mut(f) {
            Some(numbers) => {
                numbers.check(a);
                *numbers.fire.get_or_insert_with(number)
            }
            None => number(),
        }
    }
}

/// A Formation's [`Numbers`] this plot, found when first asked for.
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
            let hash = arsenal_hash(a);
            let first = *self.asked.get_or_insert(hash);
            debug_assert_eq!(first, hash, "one arsenal a Formation a plot");
        }
    }
}

/// An arsenal's numbers in a [`PlanMemo`]. Each names one arsenal, or one
/// set of weapons and readings, and nothing else ever ([`ArsenalTable`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Numbers {
    /// The whole arsenal's: what plans and pairs are kept by.
    whole: u64,
    /// Its weapons and readings' ([`Attacker`]): what fire on the grid is
    /// kept by ([`GridMemo`]).
    fire: u64,
}

impl Numbers {
    /// No arsenal's (no table gives 0): for plans made with nothing kept.
    const NONE: Numbers = Numbers { whole: 0, fire: 0 };
}

/// The [`ArsenalTable`] of arsenals' weapons and readings: fewer than the
/// whole arsenals (a Formation hurt but with its weapons whole fires as
/// before).
#[derive(Debug)]
struct FireTable(ArsenalTable);

impl Default for FireTable {
    fn default() -> FireTable {
        FireTable(ArsenalTable::with_slots(FIRE_SLOTS))
    }
}

/// Slots of a [`FireTable`].
const FIRE_SLOTS: usize = 2048;

/// Slots of a [`PlanMemo`] (under 200 bytes each: some 6 MB a batch
/// worker).
const MEMO_SLOTS: usize = 32768;

/// Arsenals numbered for the [`PlanMemo`]'s keys: each kept once, in a
/// slot by its hash, with a number no other arsenal ever gets. A slot
/// overwritten by another arsenal gives that one a new number, so a key
/// naming the old number never matches again: two keys with the same
/// numbers name the same arsenals.
#[derive(Debug)]
struct ArsenalTable {
    slots: Vec<Option<(Arsenal, u64)>>,
    /// Slots it makes on first use.
    size: usize,
    /// Numbers given so far.
    numbered: u64,
}

impl Default for ArsenalTable {
    fn default() -> ArsenalTable {
        ArsenalTable::with_slots(ARSENAL_SLOTS)
    }
}

/// Slots of an [`ArsenalTable`] (some 1.1 KB each).
const ARSENAL_SLOTS: usize = 8192;

impl ArsenalTable {
    /// A table of `n` slots (made on first use).
    fn with_slots(n: usize) -> ArsenalTable {
        ArsenalTable {
            slots: Vec::new(),
            size: n.max(1),
            numbered: 0,
        }
    }

    /// The number of arsenal `a`: the one it was given when it is still
    /// kept, else a new one.
    fn number(&mut self, a: &Arsenal) -> u64 {
        self.number_by(a, arsenal_hash(a))
    }

    /// [`ArsenalTable::number`] of `a`, kept in a slot by `hash`, a hash
    /// of it (the same arsenal always has the same hash).
    fn number_by(&mut self, a: &Arsenal, hash: u64) -> u64 {
        if self.slots.is_empty() {
            self.slots.resize(self.size, None);
        }
        let n = self.slots.len() as u64;
        let slot = &mut self.slots[(hash % n) as usize];
        if let Some((kept, number)) = slot
            && kept == a
        {
            return *number;
        }
        self.numbered += 1;
        *slot = Some((*a, self.numbered));
        self.numbered
    }

    /// Whether `number` may be the number of `a`: unless the slot of `a`
    /// holds `a` under a number given before `number` (a check for debug
    /// builds: a number given and since pushed out cannot be checked).
    /// The slot may hold `a` under a later number: a Formation's number
    /// is found once a plot, and another Formation with an equal arsenal
    /// may have numbered it again after some third arsenal pushed it out
    /// in between. The earlier number still names `a` alone (numbers are
    /// never given twice); plans kept under it are just not shared.
    fn may_name(&self, number: u64, a: &Arsenal) -> bool {
        let n = self.slots.len().max(1) as u64;
        match self.slots.get((arsenal_hash(a) % n) as usize) {
            Some(Some((kept, kept_number))) if kept == a => number != 0 && number <= *kept_number,
            _ => number != 0,
        }
    }
}

/// A hash of the facts of an arsenal that most often differ between two
/// of them (a slot is chosen by it; arsenals are compared whole).
fn arsenal_hash(a: &Arsenal) -> u64 {
    let bits = |x: f64| x.to_bits() as u32 ^ (x.to_bits() >> 32) as u32;
    let attacker = weapons_hash(a);
    let facts = fact_hash([
        a.durability,
        a.ships,
        a.thrust,
        a.class1,
        bits(a.screens[0] + 2.0 * a.screens[1] + 4.0 * a.screens[2]),
        a.salvos[0].launchers + 2 * a.salvos[1].launchers + 4 * a.salvos[0].loads + 8 * a.salvos[1].loads,
        a.racks[0] + 2 * a.racks[1] + 4 * a.heavies[0] + 8 * a.heavies[1],
    ]);
    attacker ^ facts.wrapping_mul(0xff51_afd7_ed55_8ccd)
}

/// Everything [`choose`] reads: the arsenals by their numbers in the
/// memo's [`ArsenalTable`] ([`Numbers::whole`]).
#[derive(Debug, Clone, Copy, PartialEq)]
struct MemoKey {
    arsenals: (u64, u64),
    facts: PairFacts,
    sequences: [[Maneuver; 3]; SEQUENCES.len()],
    count: usize,
    fixed: Option<u32>,
}

impl MemoKey {
    /// The key of the plan for `p` (its arsenals numbered `arsenals`).
    fn new(arsenals: (u64, u64), p: &Pair<'_>, sequences: &[[Maneuver; 3]], fixed: Option<u32>) -> MemoKey {
        let mut seq = [[Maneuver::Maintain; 3]; SEQUENCES.len()];
        seq[..sequences.len()].copy_from_slice(sequences);
        MemoKey {
            arsenals,
            facts: PairFacts::of(p),
            sequences: seq,
            count: sequences.len(),
            fixed,
        }
    }

    /// The slot of a plan: a hash of its key.
    fn slot(&self) -> usize {
        let first = self.sequences[0][0];
        let (ours, theirs) = self.arsenals;
        let more = [
            self.fixed.map_or(u32::MAX, |f| f),
            u32::try_from(self.count).unwrap_or(0) | (first as u32) << 8,
            ours as u32,
            (ours >> 32) as u32,
            theirs as u32,
            (theirs >> 32) as u32,
        ];
        (fact_hash(self.facts.words().into_iter().chain(more)) % MEMO_SLOTS as u64) as usize
    }
}

/// [`choose`], read back from `memo` when it has made this plan before.
/// `formations` are ours and the target's: the arsenals of `p` are theirs
/// this plot ([`PlanMemo::start_plot`]).
pub fn choose_memo(
    memo: &mut PlanMemo,
    (p, (f, t)): (&Pair<'_>, (usize, usize)),
    sequences: &[[Maneuver; 3]],
    fixed: Option<u32>,
) -> Plan {
    let arsenals = (memo.whole(f, p.ours), memo.whole(t, p.theirs));
    debug_assert!(
        memo.arsenals.may_name(arsenals.0, p.ours) && memo.arsenals.may_name(arsenals.1, p.theirs),
        "an arsenal's number is its own"
    );
    // The fire numbers, found only for a plan weighed.
    let numbers = |memo: &mut PlanMemo| {
        let ours = Numbers {
            whole: arsenals.0,
            fire: memo.fire(f, p.ours),
        };
        let theirs = Numbers {
            whole: arsenals.1,
            fire: memo.fire(t, p.theirs),
        };
        (ours, theirs)
    };
    if sequences.len() > SEQUENCES.len() {
        let numbers = numbers(memo);
        return choose_with((p, numbers), sequences, fixed, &mut memo.grids, &mut memo.pairs);
    }
    if memo.slots.is_empty() {
        memo.slots.resize(MEMO_SLOTS, None);
    }
    let key = MemoKey::new(arsenals, p, sequences, fixed);
    let at = key.slot();
    if let Some((k, plan)) = &memo.slots[at]
        && *k == key
    {
        memo.hits += 1;
        return *plan;
    }
    let numbers = numbers(memo);
    let plan = choose_with((p, numbers), sequences, fixed, &mut memo.grids, &mut memo.pairs);
    memo.slots[at] = Some((key, plan));
    plan
}

#[cfg(test)]
mod tests {
    use super::grid::GRID_SLOTS;
    use super::*;
    use crate::engine::doctrine::assess::{Salvos, tables};

    /// [`choose_memo`] of every sequence, in a plot of its own.
    fn memo_plan(memo: &mut PlanMemo, p: &Pair<'_>) -> Plan {
        memo.start_plot(2);
        choose_memo(memo, (p, (0, 1)), &SEQUENCES, None)
    }

    #[test]
    fn the_plan_memos_are_a_few_megabytes_whatever_the_batch() {
        // Its slots are made once, all at once, and never grow: the memory
        // a batch worker adds for it is this, for any number of runs.
        let slot = std::mem::size_of::<Option<(MemoKey, Plan)>>();
        let arsenal_slot = std::mem::size_of::<Option<(Arsenal, u64)>>();
        let grid_slot = GridMemo::SLOT_BYTES;
        let pair_slot = std::mem::size_of::<Option<PairSlot>>();
        let arsenals = arsenal_slot * (ARSENAL_SLOTS + FIRE_SLOTS);
        let total = slot * MEMO_SLOTS + arsenals + grid_slot * GRID_SLOTS + pair_slot * PAIR_SLOTS;
        assert!(
            total <= 24 << 20,
            "{slot} + {arsenal_slot} + {grid_slot} + {pair_slot} bytes a slot, {total} in all"
        );
        let mut memo = PlanMemo::default();
        let ours = Arsenal {
            thrust: 4,
            ..Arsenal::default()
        };
        let theirs = Arsenal::default();
        let p = Pair {
            tables: tables(),
            ours: &ours,
            theirs: &theirs,
            range: 30,
            their_evasion: 0,
            their_primary: true,
            thrust: 4,
            class1_pd: false,
            mutual: true,
            coalition: (1.0, 1.0),
        };
        let first = memo_plan(&mut memo, &p);
        let lens = |m: &PlanMemo| {
            let made = (m.slots.len(), m.arsenals.slots.len(), m.fires.0.slots.len());
            (made, m.grids.slots_made(), m.pairs.slots.len())
        };
        let all = ((MEMO_SLOTS, ARSENAL_SLOTS, FIRE_SLOTS), GRID_SLOTS, PAIR_SLOTS);
        assert_eq!(lens(&memo), all);
        let again = memo_plan(&mut memo, &p);
        assert_eq!((first, again, memo.hits()), (choose(&p, &SEQUENCES, None), first, 1));
        assert_eq!(lens(&memo), all);
    }

    #[test]
    fn an_arsenal_pushed_out_of_the_table_never_shares_a_number() {
        // One slot: every other arsenal pushes the last out. A key names
        // arsenals by number, so a number given twice would read back a
        // plan made for another arsenal.
        let mut table = ArsenalTable::with_slots(1);
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
        let mut table = ArsenalTable::with_slots(ARSENAL_SLOTS);
        let (na, nb) = (table.number(&a), table.number(&b));
        assert_ne!(na, nb);
        assert_eq!((table.number(&a), table.number(&b)), (na, nb));
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
            (memo.whole(0, &a), memo.fire(0, &a))
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
        memo.whole(0, &a);
        memo.whole(0, &b);
    }

    #[test]
    fn a_plan_read_back_after_its_arsenal_was_pushed_out_is_the_plan_made_afresh() {
        // The arsenal table keeps one arsenal. Two like Formations face
        // each other, whole, then both hurt (an arsenal with less hull
        // and thrust pushes the whole one out), then whole again twice:
        // only the last plan reads back, and every plan is the one made
        // afresh.
        let mut memo = PlanMemo {
            arsenals: ArsenalTable::with_slots(1),
            ..PlanMemo::default()
        };
        let mut whole = Arsenal::default();
        whole.beams[2][0] = 3;
        whole.beams[1][0] = 4;
        (whole.durability, whole.ships, whole.thrust) = (24, 2, 6);
        let mut hurt = whole;
        (hurt.durability, hurt.thrust) = (4, 2);
        let pair = |a: &'static Arsenal| Pair {
            tables: tables(),
            ours: a,
            theirs: a,
            range: 24,
            their_evasion: 2,
            their_primary: true,
            thrust: a.thrust,
            class1_pd: false,
            mutual: true,
            coalition: (1.0, 1.0),
        };
        let (whole, hurt): (&'static Arsenal, &'static Arsenal) =
            (Box::leak(Box::new(whole)), Box::leak(Box::new(hurt)));
        for a in [whole, hurt, whole, whole] {
            let p = pair(a);
            assert_eq!(memo_plan(&mut memo, &p), choose(&p, &SEQUENCES, None));
        }
        assert_eq!(
            memo.hits(),
            1,
            "only the plan made for the very same arsenals reads back"
        );
        assert_ne!(
            choose(&pair(whole), &SEQUENCES, None),
            choose(&pair(hurt), &SEQUENCES, None)
        );
    }

    #[test]
    fn a_plan_that_reads_back_what_its_target_weighed_is_the_plan_made_afresh() {
        // Two Formations each other's maneuver target: the first one's plan
        // weighs the pair from the second one's side too (to foresee its
        // answer), and the second one's plan reads that back. Either way,
        // each plan is the one `choose` makes with nothing kept, whichever
        // plans first, and at any range.
        let mut a = Arsenal::default();
        a.beams[2][0] = 3;
        a.beams[1][0] = 2;
        a.salvos[0] = Salvos { launchers: 2, loads: 4 };
        (a.durability, a.ships, a.thrust) = (24, 2, 6);
        let mut b = Arsenal::default();
        b.beams[3][0] = 2;
        b.beams[1][0] = 4;
        b.pd_kills = 1.0;
        (b.durability, b.ships, b.thrust) = (30, 1, 4);
        let pair = |ours: &'static Arsenal, theirs: &'static Arsenal, range: u32| Pair {
            tables: tables(),
            ours,
            theirs,
            range,
            their_evasion: theirs.thrust / 3,
            their_primary: true,
            thrust: ours.thrust,
            class1_pd: theirs.has_missiles(),
            mutual: true,
            coalition: (1.0, 1.0),
        };
        let (a, b): (&'static Arsenal, &'static Arsenal) = (Box::leak(Box::new(a)), Box::leak(Box::new(b)));
        let mut memo = PlanMemo::default();
        let mut read_back = 0;
        for range in [6, 18, 30, 45] {
            for (first, second) in [(a, b), (b, a)] {
                let (p, q) = (pair(first, second, range), pair(second, first, range));
                let before = memo.pairs.hits;
                let plans = (memo_plan(&mut memo, &p), memo_plan(&mut memo, &q));
                read_back += memo.pairs.hits - before;
                assert_eq!(
                    plans,
                    (choose(&p, &SEQUENCES, None), choose(&q, &SEQUENCES, None)),
                    "at {range} MU"
                );
            }
        }
        // At each range the second plan reads back both sides of the pair
        // the first one weighed; the second round is a plan memo hit.
        assert_eq!(read_back, 2 * 4);
        // A target that is not our nearest enemy plans against another
        // pair: nothing is kept for it.
        let mut fresh = PlanMemo::default();
        let p = Pair {
            mutual: false,
            coalition: (1.0, 1.0),
            ..pair(a, b, 18)
        };
        assert_eq!(memo_plan(&mut fresh, &p), choose(&p, &SEQUENCES, None));
        assert!(fresh.pairs.slots.is_empty());
    }
}
