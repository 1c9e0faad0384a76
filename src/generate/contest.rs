//! The contest check of `fam generate` (docs/generate.md): equal points
//! rarely make equal strength, so each battle drawn is played a few times
//! by the default doctrine and kept only when both sides have a chance.
//!
//! Pure like its parent: the caller plays the battle (`cli` through
//! `batch`) and hands back the [`Odds`]. Try `t` draws its battle from
//! [`super::sub_seed`]`(seed, t)`; the first try that is a contest
//! ([`Odds::is_contest`]) is kept, else, after [`TRIES`], the one nearest
//! to it ([`Odds::miss`]).

use super::{Error, Generated, Request, Source, generate};

/// Battles drawn at most before the nearest one is kept.
pub const TRIES: u32 = 24;
/// A side's score (wins and half the draws, of the runs) must be at least
/// this percentage, and the other's with it at most `100 −` it.
pub const SCORE_PERCENT: u64 = 20;
/// Runs drawn at the Exchange limit must be fewer than this percentage: a
/// battle that mostly runs out of time measures nothing.
pub const LIMIT_DRAW_PERCENT: u64 = 40;

/// How a battle's runs ended: what the check needs of a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Odds {
    pub runs: u64,
    /// Runs each side (in the scenario's order) won.
    pub wins: [u64; 2],
    /// Runs drawn (or undecided), whatever decided them.
    pub draws: u64,
    /// Of the draws, those at the Exchange limit (or undecided).
    pub limit_draws: u64,
}

impl Odds {
    /// A side's score in half-runs: two a win, one a draw.
    fn half_runs(&self, side: usize) -> u64 {
        2 * self.wins[side] + self.draws
    }

    /// How far a side's score lies outside the band, in hundredths of a
    /// half-run.
    fn score_miss(&self, side: usize) -> u64 {
        let score = 100 * self.half_runs(side);
        let (lo, hi) = (2 * self.runs * SCORE_PERCENT, 2 * self.runs * (100 - SCORE_PERCENT));
        lo.saturating_sub(score) + score.saturating_sub(hi)
    }

    /// How far the battle misses being a contest: 0 for a contest, else a
    /// larger number the further it is (the scores outside the band, the
    /// draws at the limit at or over theirs, in hundredths of a half-run),
    /// to keep the nearest.
    pub fn miss(&self) -> u64 {
        let over = (100 * self.limit_draws + 1).saturating_sub(LIMIT_DRAW_PERCENT * self.runs);
        self.score_miss(0) + self.score_miss(1) + 2 * over
    }

    /// Each side scores within the band and fewer than
    /// [`LIMIT_DRAW_PERCENT`] of the runs are drawn at the Exchange limit.
    pub fn is_contest(&self) -> bool {
        let band = |side: usize| {
            let score = 100 * self.half_runs(side);
            score >= 2 * self.runs * SCORE_PERCENT && score <= 2 * self.runs * (100 - SCORE_PERCENT)
        };
        self.runs > 0 && band(0) && band(1) && 100 * self.limit_draws < LIMIT_DRAW_PERCENT * self.runs
    }

    /// `part` of the runs as a whole percentage, rounded half up.
    pub fn percent(&self, part: u64) -> u64 {
        if self.runs == 0 {
            0
        } else {
            (200 * part + self.runs) / (2 * self.runs)
        }
    }
}

/// The battle kept, with what the check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contested {
    pub generated: Generated,
    pub odds: Odds,
    /// The try it was drawn on, 0-based.
    pub attempt: u32,
    /// Whether it is a contest; `false`: no try was, and it is the nearest.
    pub contest: bool,
}

/// Why no battle came out of the check.
#[derive(Debug)]
pub enum ContestError<E> {
    /// The first try could not draw a battle.
    Generate(Error),
    /// Playing a battle failed.
    Measure(E),
}

/// Draws battles for `request` (its `attempt` ignored) and plays each with
/// `measure` until one is a contest, at most [`TRIES`]; the header comment
/// of the one kept records its odds. A later try that cannot draw a battle
/// is passed over.
pub fn generate_contest<E>(
    library: &[Source],
    request: &Request,
    mut measure: impl FnMut(&Generated) -> Result<Odds, E>,
) -> Result<Contested, ContestError<E>> {
    let mut best: Option<Contested> = None;
    for attempt in 0..TRIES {
        let tried = Request {
            attempt,
            ..request.clone()
        };
        let generated = match generate(library, &tried) {
            Ok(g) => g,
            Err(e) if attempt == 0 => return Err(ContestError::Generate(e)),
            Err(_) => continue,
        };
        let odds = measure(&generated).map_err(ContestError::Measure)?;
        let candidate = Contested {
            generated,
            odds,
            attempt,
            contest: odds.is_contest(),
        };
        if candidate.contest {
            best = Some(candidate);
            break;
        }
        if best.as_ref().is_none_or(|b| nearer(&candidate.odds, &b.odds)) {
            best = Some(candidate);
        }
    }
    let mut kept = best.expect("the first try drew a battle");
    let note = header_lines(&kept);
    kept.generated.note(&note);
    Ok(kept)
}

/// Whether `a` is nearer a contest than `b` (ties keep the earlier try).
fn nearer(a: &Odds, b: &Odds) -> bool {
    let gap = |o: &Odds| o.wins[0].abs_diff(o.wins[1]);
    (a.miss(), gap(a)) < (b.miss(), gap(b))
}

/// The lines the header comment gets: the odds measured and the verdict.
pub fn header_lines(kept: &Contested) -> Vec<String> {
    let o = &kept.odds;
    let names: Vec<&str> = kept.generated.sides.iter().map(|s| s.commander.as_str()).collect();
    let mut lines = vec![format!(
        "Contest check, default doctrine, {} runs: {} {} %, {} {} %, draws {} % ({} % at the Exchange limit).",
        o.runs,
        names[0],
        o.percent(o.wins[0]),
        names[1],
        o.percent(o.wins[1]),
        o.percent(o.draws),
        o.percent(o.limit_draws),
    )];
    lines.push(if kept.contest {
        format!(
            "A contest (each side scores {SCORE_PERCENT} to {} %, a draw counting half; under {LIMIT_DRAW_PERCENT} % drawn at the limit) on try {} of {TRIES}.",
            100 - SCORE_PERCENT,
            kept.attempt + 1
        )
    } else {
        format!(
            "No contest in {TRIES} tries (each side scoring {SCORE_PERCENT} to {} %, under {LIMIT_DRAW_PERCENT} % drawn at the limit): this is the nearest, try {}.",
            100 - SCORE_PERCENT,
            kept.attempt + 1
        )
    });
    lines.push(format!(
        "`fam batch` of this file with --runs {} plays the same runs.",
        o.runs
    ));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn odds(runs: u64, red: u64, blue: u64, limit: u64) -> Odds {
        Odds {
            runs,
            wins: [red, blue],
            draws: runs - red - blue,
            limit_draws: limit,
        }
    }

    #[test]
    fn a_contest_has_both_scores_in_the_band_and_few_limit_draws() {
        assert!(odds(100, 48, 45, 7).is_contest());
        // 80 % exactly is in; a draw counts half.
        assert!(odds(100, 80, 20, 0).is_contest());
        assert!(!odds(100, 85, 0, 0).is_contest());
        assert!(odds(100, 70, 10, 0).is_contest());
        assert!(!odds(100, 81, 19, 0).is_contest());
        // 40 % at the limit is too many.
        assert!(!odds(100, 30, 30, 40).is_contest());
        assert!(odds(100, 30, 31, 39).is_contest());
        assert!(!odds(0, 0, 0, 0).is_contest());
    }

    #[test]
    fn the_miss_is_zero_for_a_contest_and_grows_away_from_it() {
        for o in [odds(64, 30, 30, 4), odds(64, 51, 13, 0), odds(100, 30, 31, 39)] {
            assert_eq!(o.miss(), 0, "{o:?}");
        }
        let misses: Vec<u64> = [82, 90, 100].iter().map(|&r| odds(100, r, 100 - r, 0).miss()).collect();
        assert!(
            misses[0] > 0 && misses[0] < misses[1] && misses[1] < misses[2],
            "{misses:?}"
        );
        assert!(odds(100, 30, 30, 40).miss() < odds(100, 20, 20, 60).miss());
    }

    #[test]
    fn percentages_round_half_up() {
        let o = odds(64, 31, 30, 3);
        assert_eq!([o.percent(31), o.percent(30), o.percent(3)], [48, 47, 5]);
    }
}
