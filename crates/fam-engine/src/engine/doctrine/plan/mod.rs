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
mod memo;
mod ordnance;
mod pair;
mod weigh;

use crate::engine::plot::Maneuver;
use grid::FireOn;
pub use grid::GRID;
pub use memo::PlanMemo;
use memo::{PlanKey, fire_on};
pub use ordnance::{Launches, Stores, launches};
use pair::foresee;
use weigh::Expect;
pub use weigh::{Exchange, Move, Pair, Plan, SEQUENCES, Stance, step};

/// The best plan against the target among `sequences` (every one of
/// [`SEQUENCES`] for an `auto` maneuver) with the Evasion `fixed`, or every
/// Evasion from none to half the thrust: the highest score; ties go to the
/// sequence listed first, then to more Evasion.
pub fn choose(p: &Pair<'_>, sequences: &[[Maneuver; 3]], fixed: Option<u32>) -> Plan {
    choose_memo(&mut PlanMemo::off(), (p, (0, 1)), sequences, fixed)
}

/// [`choose`], read back from `memo` when it made this plan before, and
/// what it weighs read back where it was weighed before. `formations` are
/// ours and the target's: the arsenals of `p` are theirs this plot
/// ([`PlanMemo::start_plot`]).
pub fn choose_memo(
    memo: &mut PlanMemo,
    (p, formations): (&Pair<'_>, (usize, usize)),
    sequences: &[[Maneuver; 3]],
    fixed: Option<u32>,
) -> Plan {
    let arsenals = memo.numbers.wholes((p, formations));
    let PlanMemo {
        plans,
        numbers,
        grids,
        pairs,
        ..
    } = memo;
    let mut weigh = || {
        // The fire numbers, found only for a plan weighed.
        let fires = numbers.fires((p, formations));
        let mut fire = |side, evasion| fire_on(grids, (p, fires), side, evasion);
        weigh_plan((p, sequences, fixed), (pairs, arsenals), &mut fire)
    };
    match PlanKey::new(arsenals, p, sequences, fixed) {
        Some(key) => *plans.get_or_insert_with(&key, weigh),
        None => weigh(),
    }
}

/// [`choose`] of `sequences` and `fixed` against `p`, whose arsenals are
/// numbered `arsenals`, what it weighs of the pair read from `pairs` when
/// it was weighed before, the sustained fire on the grid from `fire`.
fn weigh_plan(
    (p, sequences, fixed): (&Pair<'_>, &[[Maneuver; 3]], Option<u32>),
    (pairs, arsenals): (&mut memo::Pairs, (u64, u64)),
    fire: &mut FireOn<'_>,
) -> Plan {
    // The target's own plan against us, when we are its maneuver target:
    // what it will most likely do. It plans as we do: it foresees our plan
    // against a target heading for its own range (or keeping it), and
    // answers that; so do we, to its answer. What it weighs is what its
    // own plan against us weighs: the pair seen from its side.
    let Some(mirror) = p.their_primary.then(|| mirror_of(p)) else {
        // The target plans against another: it heads for the range that
        // suits it.
        let ours = pairs.spare().renew_one(p, fire);
        return ours.best(p, sequences, fixed, Expect::Seeks);
    };
    let sides = if p.mutual {
        pairs.kept((p, &mirror), arsenals, fire)
    } else {
        // Unless the target is our nearest enemy too, its own plan against
        // us (if it makes one) weighs another pair: nothing weighed here
        // is worth keeping. It is weighed in spare work, made again in
        // place (some 20 KB: made afresh and moved, it cost more than all
        // the rest of many a plan).
        let spare = pairs.spare();
        spare.renew((p, &mirror), 0, fire);
        spare.sides(0)
    };
    foresee((p, &mirror), (sequences, fixed), sides)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::doctrine::assess::{Arsenal, Salvos, tables};

    /// [`choose_memo`] of every sequence, in a plot of its own.
    fn memo_plan(memo: &mut PlanMemo, p: &Pair<'_>) -> Plan {
        memo.start_plot(2);
        choose_memo(memo, (p, (0, 1)), &SEQUENCES, None)
    }

    /// A pair of `ours` against `theirs` at `range`, each the other's
    /// maneuver target and nearest enemy.
    fn pair<'a>(ours: &'a Arsenal, theirs: &'a Arsenal, range: u32) -> Pair<'a> {
        Pair {
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
        }
    }

    #[test]
    fn the_plan_memos_are_a_few_megabytes_whatever_the_batch() {
        // Its slots are made once, all at once, and never grow: the memory
        // a batch worker adds for it is this, for any number of runs.
        let total = PlanMemo::bytes();
        assert!(total <= 24 << 20, "{total} bytes in all");
        let mut memo = PlanMemo::default();
        let ours = Arsenal {
            thrust: 4,
            ..Arsenal::default()
        };
        let theirs = Arsenal::default();
        let p = pair(&ours, &theirs, 30);
        let first = memo_plan(&mut memo, &p);
        // Every cache a plan uses is made whole at once (sustained fire is
        // for fire targets).
        let mut all = PlanMemo::SLOTS;
        all[5] = 0;
        assert_eq!(memo.slots_made(), all);
        let again = memo_plan(&mut memo, &p);
        assert_eq!((first, again, memo.hits()), (choose(&p, &SEQUENCES, None), first, 1));
        assert_eq!(memo.slots_made(), all);
    }

    #[test]
    fn a_plan_read_back_after_its_arsenal_was_pushed_out_is_the_plan_made_afresh() {
        // Every cache keeps one slot. Two like Formations face each other,
        // whole, then both hurt (an arsenal with less hull and thrust
        // pushes the whole one out), then whole again twice: only the last
        // plan reads back, and every plan is the one made afresh.
        let mut memo = PlanMemo::with_slots(1);
        let mut whole = Arsenal::default();
        whole.beams[2][0] = 3;
        whole.beams[1][0] = 4;
        (whole.durability, whole.ships, whole.thrust) = (24, 2, 6);
        let mut hurt = whole;
        (hurt.durability, hurt.thrust) = (4, 2);
        for a in [&whole, &hurt, &whole, &whole] {
            let p = Pair {
                their_evasion: 2,
                class1_pd: false,
                ..pair(a, a, 24)
            };
            assert_eq!(memo_plan(&mut memo, &p), choose(&p, &SEQUENCES, None));
        }
        assert_eq!(
            memo.hits(),
            1,
            "only the plan made for the very same arsenals reads back"
        );
        let p = |a| Pair {
            their_evasion: 2,
            ..pair(a, a, 24)
        };
        assert_ne!(
            choose(&p(&whole), &SEQUENCES, None),
            choose(&p(&hurt), &SEQUENCES, None)
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
        let mut memo = PlanMemo::default();
        let mut read_back = 0;
        for range in [6, 18, 30, 45] {
            for (first, second) in [(&a, &b), (&b, &a)] {
                let (p, q) = (pair(first, second, range), pair(second, first, range));
                let before = memo.pair_hits();
                let plans = (memo_plan(&mut memo, &p), memo_plan(&mut memo, &q));
                read_back += memo.pair_hits() - before;
                assert_eq!(
                    plans,
                    (choose(&p, &SEQUENCES, None), choose(&q, &SEQUENCES, None)),
                    "at {range} MU"
                );
            }
        }
        // At each range the second plan reads back the pair the first one
        // weighed (both sides); the second round is a plan memo hit.
        assert_eq!(read_back, 4);
        // A target that is not our nearest enemy plans against another
        // pair: nothing is kept for it.
        let mut fresh = PlanMemo::default();
        let p = Pair {
            mutual: false,
            ..pair(&a, &b, 18)
        };
        assert_eq!(memo_plan(&mut fresh, &p), choose(&p, &SEQUENCES, None));
        assert_eq!(fresh.slots_made()[4], 0);
    }
}
