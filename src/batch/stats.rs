//! The statistics of a batch, from integer tallies only: Wilson score
//! intervals for rates, Newcombe's intervals for a difference of two rates
//! (independent or paired), normal intervals for means, and exact
//! histograms with nearest-rank percentiles.
//!
//! Every function here is a pure function of integers (the floating-point
//! steps are the same IEEE operations in the same order on every machine),
//! so a batch's statistics do not depend on the thread count or the machine.

use serde::Serialize;

/// The 97.5th percentile of the standard normal distribution: 95 % intervals.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The 95 % Wilson score interval of a rate of `hits` in `n` trials, as
/// `[lo, hi]` (Wilson 1927). `n = 0` gives `[0, 1]`: nothing is known.
///
/// Unlike the normal ("Wald") interval it stays inside `[0, 1]` and does not
/// collapse to a point at 0 or `n` hits, which matters for rare outcomes
/// (an upset, a Unit that is almost never lost).
pub fn wilson(hits: u64, n: u64) -> [f64; 2] {
    if n == 0 {
        return [0.0, 1.0];
    }
    let n_f = n as f64;
    let p = hits as f64 / n_f;
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n_f;
    let center = (p + z2 / (2.0 * n_f)) / denom;
    let half = Z95 / denom * (p * (1.0 - p) / n_f + z2 / (4.0 * n_f * n_f)).sqrt();
    // At 0 or n hits the bound is exact in theory; keep it exact in print.
    let lo = if hits == 0 { 0.0 } else { (center - half).max(0.0) };
    let hi = if hits == n { 1.0 } else { (center + half).min(1.0) };
    [lo, hi]
}

/// Rate `hits / n` (0 when `n = 0`).
pub fn rate(hits: u64, n: u64) -> f64 {
    if n == 0 { 0.0 } else { hits as f64 / n as f64 }
}

/// The difference `p1 - p2` of two independent rates and its 95 % interval
/// by Newcombe's hybrid score method (Newcombe 1998, method 10), built from
/// the two Wilson intervals:
/// `lo = d - sqrt((p1 - l1)^2 + (u2 - p2)^2)`,
/// `hi = d + sqrt((u1 - p1)^2 + (p2 - l2)^2)`.
pub fn newcombe(hits1: u64, n1: u64, hits2: u64, n2: u64) -> (f64, [f64; 2]) {
    let (p1, p2) = (rate(hits1, n1), rate(hits2, n2));
    let [l1, u1] = wilson(hits1, n1);
    let [l2, u2] = wilson(hits2, n2);
    let d = p1 - p2;
    let lo = d - ((p1 - l1).powi(2) + (u2 - p2).powi(2)).sqrt();
    let hi = d + ((u1 - p1).powi(2) + (p2 - l2).powi(2)).sqrt();
    (d, [lo.max(-1.0), hi.min(1.0)])
}

/// The 2×2 table of one outcome over paired runs: run `i` of batch A and
/// run `i` of batch B, played with the same seed. The runs where neither had
/// it are `n − both − only_a − only_b`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Paired {
    /// Pairs of runs.
    pub n: u64,
    /// Pairs where both runs had the outcome.
    pub both: u64,
    /// Pairs where only A's run had it.
    pub only_a: u64,
    /// Pairs where only B's run had it.
    pub only_b: u64,
}

impl Paired {
    /// Runs of A with the outcome (at most `n`).
    pub fn hits_a(&self) -> u64 {
        self.both.saturating_add(self.only_a).min(self.n)
    }

    /// Runs of B with the outcome (at most `n`).
    pub fn hits_b(&self) -> u64 {
        self.both.saturating_add(self.only_b).min(self.n)
    }
}

/// B's rate minus A's rate, and its 95 % interval.
///
/// Newcombe's method 10 for paired data (Newcombe 1998, "Improved
/// confidence intervals for the difference between binomial proportions
/// based on paired data", Statistics in Medicine 17:2635-2650): the hybrid
/// score interval without continuity correction. With the Wilson intervals
/// `[lb, ub]` of B's rate `pb` and `[la, ua]` of A's rate `pa`, and `phi`
/// the correlation of the two outcomes over the pairs ([`paired_phi`]):
///
/// ```text
/// d = pb − pa
/// δ = sqrt((pb − lb)² − 2·phi·(pb − lb)·(ua − pa) + (ua − pa)²)
/// ε = sqrt((ub − pb)² − 2·phi·(ub − pb)·(pa − la) + (pa − la)²)
/// interval [d − δ, d + ε], within [−1, 1]
/// ```
///
/// With `phi = 0` it is [`newcombe`]'s interval for independent rates; the
/// more the paired runs agree, the narrower it gets. `n = 0` gives
/// `(0, [−1, 1])`: nothing is known.
pub fn paired_difference(p: &Paired) -> (f64, [f64; 2]) {
    if p.n == 0 {
        return (0.0, [-1.0, 1.0]);
    }
    let (hits_a, hits_b) = (p.hits_a(), p.hits_b());
    let (pa, pb) = (rate(hits_a, p.n), rate(hits_b, p.n));
    let [la, ua] = wilson(hits_a, p.n);
    let [lb, ub] = wilson(hits_b, p.n);
    let phi = paired_phi(p);
    let d = pb - pa;
    let delta = correlated_sum(pb - lb, ua - pa, phi);
    let epsilon = correlated_sum(ub - pb, pa - la, phi);
    (d, [(d - delta).max(-1.0), (d + epsilon).min(1.0)])
}

/// `sqrt(x² − 2·phi·x·y + y²)`: two interval half-widths of correlated
/// rates combined (never below 0 from rounding, where phi is near 1).
fn correlated_sum(x: f64, y: f64, phi: f64) -> f64 {
    (x * x - 2.0 * phi * x * y + y * y).max(0.0).sqrt()
}

/// The phi coefficient of the 2×2 table as method 10 uses it, with cells
/// `a = both`, `b = only_b`, `c = only_a`, `d` the pairs with neither:
/// `(ad − bc) / sqrt((a+b)(c+d)(a+c)(b+d))`, 0 when a margin is 0. Where
/// `ad > bc` the numerator is `max(ad − bc − n/2, 0)` (Newcombe's
/// adjustment, part of method 10 without continuity correction, which the
/// paper's worked examples follow): a positive correlation is not
/// overstated, so the interval is not made too narrow.
pub fn paired_phi(p: &Paired) -> f64 {
    let (hits_a, hits_b) = (p.hits_a(), p.hits_b());
    let margins = [hits_b, p.n - hits_b, hits_a, p.n - hits_a];
    if margins.contains(&0) {
        return 0.0;
    }
    let neither =
        p.n.saturating_sub(p.both)
            .saturating_sub(p.only_a)
            .saturating_sub(p.only_b);
    let ad = u128::from(p.both) * u128::from(neither);
    let bc = u128::from(p.only_b) * u128::from(p.only_a);
    // Exact in integers: 2·(ad − bc) − n, halved at the end.
    let numerator = if ad > bc {
        (ad - bc).saturating_mul(2).saturating_sub(u128::from(p.n)) as f64 / 2.0
    } else {
        -((bc - ad) as f64)
    };
    let [m1, m2, m3, m4] = margins.map(|m| m as f64);
    numerator / ((m1 * m2).sqrt() * (m3 * m4).sqrt())
}

/// Mean, sample standard deviation and 95 % normal interval of the mean
/// from `n`, the sum and the sum of squares. `None` when `n = 0`; the
/// deviation and the interval need `n >= 2` (with one value the interval is
/// the value itself).
pub fn mean_interval(n: u64, sum: u128, sum_sq: u128) -> Option<MeanStats> {
    if n == 0 {
        return None;
    }
    let n_f = n as f64;
    let mean = sum as f64 / n_f;
    if n < 2 {
        return Some(MeanStats {
            mean,
            sd: 0.0,
            ci95: [mean, mean],
        });
    }
    let var = centred_sum(n, sum, sum_sq) / (n_f * (n_f - 1.0));
    let sd = var.sqrt();
    let half = Z95 * sd / n_f.sqrt();
    Some(MeanStats {
        mean,
        sd,
        ci95: [mean - half, mean + half],
    })
}

/// `n·Σx² − (Σx)²` (never below 0): exact in integers, so without
/// cancellation in floats, whenever the products fit in 128 bits (any real
/// batch); in floats beyond that (sums no batch could reach).
fn centred_sum(n: u64, sum: u128, sum_sq: u128) -> f64 {
    match (u128::from(n).checked_mul(sum_sq), sum.checked_mul(sum)) {
        (Some(a), Some(b)) => a.saturating_sub(b) as f64,
        _ => {
            let mean = sum as f64 / n as f64;
            (sum_sq as f64 - mean * sum as f64).max(0.0) * n as f64
        }
    }
}

/// A mean with its spread.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeanStats {
    pub mean: f64,
    /// Sample standard deviation (n − 1).
    pub sd: f64,
    /// 95 % interval of the mean (normal approximation).
    pub ci95: [f64; 2],
}

/// The difference of two independent means and its 95 % interval (Welch:
/// the two standard errors added in quadrature, normal quantile).
pub fn mean_difference(a: &MeanStats, na: u64, b: &MeanStats, nb: u64) -> (f64, [f64; 2]) {
    let d = a.mean - b.mean;
    let se = |m: &MeanStats, n: u64| if n == 0 { 0.0 } else { m.sd * m.sd / n as f64 };
    let half = Z95 * (se(a, na) + se(b, nb)).sqrt();
    (d, [d - half, d + half])
}

/// Values whose entries a [`Histogram`] reserves when it is made: every
/// histogram of a real battle fits (Exchanges up to 1000, hull boxes and
/// points of a side far below it), so counting runs allocates nothing. A
/// wider range grows its entries only as values are counted.
pub const RESERVED_VALUES: usize = 1 << 16;

/// Exact counts of a non-negative integer quantity (Exchanges played, hull
/// boxes lost, points lost) over a fixed range `lo..=hi` set before the
/// first run. Only the values counted are kept, one entry each, so its size
/// never grows with the number of runs and a range read from a file costs
/// nothing until values are counted in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Histogram {
    lo: u32,
    hi: u32,
    /// `(value, count)` for every value counted, in increasing order, each
    /// count above 0.
    counts: Vec<(u32, u64)>,
}

impl Histogram {
    /// An empty histogram for values `lo..=hi` (`hi >= lo`), with entries
    /// reserved for its whole range (at most [`RESERVED_VALUES`]).
    pub fn new(lo: u32, hi: u32) -> Histogram {
        let hi = hi.max(lo);
        let width = usize::try_from(hi - lo).map_or(RESERVED_VALUES, |w| w.saturating_add(1));
        Histogram {
            lo,
            hi,
            counts: Vec::with_capacity(width.min(RESERVED_VALUES)),
        }
    }

    /// The histogram of range `lo..=hi` holding `pairs` (`[value, count]`),
    /// as a file carries it: the range not empty, every value inside it and
    /// above the one before, every count above 0. It holds no more entries
    /// than `pairs` has, whatever the range.
    pub fn from_pairs(lo: u32, hi: u32, pairs: &[[u64; 2]]) -> Result<Histogram, String> {
        if hi < lo {
            return Err(format!("histogram range {lo}..={hi} is empty"));
        }
        let mut counts = Vec::with_capacity(pairs.len());
        for &[value, count] in pairs {
            let v = u32::try_from(value)
                .ok()
                .filter(|v| (lo..=hi).contains(v))
                .ok_or_else(|| format!("histogram value {value} is outside {lo}..={hi}"))?;
            if counts.last().is_some_and(|&(prev, _)| prev >= v) {
                return Err(format!("histogram value {v} is out of order or repeated"));
            }
            if count == 0 {
                return Err(format!("histogram value {v} is listed with 0 runs"));
            }
            counts.push((v, count));
        }
        Ok(Histogram { lo, hi, counts })
    }

    /// The lowest value it can hold.
    pub fn lo(&self) -> u32 {
        self.lo
    }

    /// The highest value it can hold.
    pub fn hi(&self) -> u32 {
        self.hi
    }

    /// Counts one value; values outside the range go to the nearest end
    /// (the runner sizes every histogram so that none is).
    pub fn add(&mut self, value: u32) {
        self.add_n(value, 1);
    }

    /// Counts `n` occurrences of `value`.
    pub fn add_n(&mut self, value: u32, n: u64) {
        let v = value.clamp(self.lo, self.hi);
        match self.counts.binary_search_by_key(&v, |e| e.0) {
            Ok(i) => self.counts[i].1 += n,
            Err(i) if n > 0 => self.counts.insert(i, (v, n)),
            Err(_) => {}
        }
    }

    /// How many times `value` was counted.
    pub fn count(&self, value: u32) -> u64 {
        self.counts
            .binary_search_by_key(&value, |e| e.0)
            .map_or(0, |i| self.counts[i].1)
    }

    /// Values counted.
    pub fn total(&self) -> u64 {
        self.counts.iter().map(|e| e.1).sum()
    }

    /// Values counted, or `None` when their number does not fit in 64 bits
    /// (a histogram read from a file and not yet checked).
    pub fn checked_total(&self) -> Option<u64> {
        self.counts.iter().try_fold(0u64, |t, e| t.checked_add(e.1))
    }

    /// `(value, count)` for every value counted at least once, in order.
    pub fn nonzero(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.counts.iter().copied()
    }

    /// Sum of the values (exact).
    pub fn sum(&self) -> u128 {
        self.nonzero().map(|(v, c)| u128::from(v) * u128::from(c)).sum()
    }

    /// Sum of the squared values (exact).
    pub fn sum_sq(&self) -> u128 {
        self.nonzero()
            .map(|(v, c)| u128::from(v) * u128::from(v) * u128::from(c))
            .sum()
    }

    /// Mean, deviation and interval of the mean.
    pub fn mean(&self) -> Option<MeanStats> {
        mean_interval(self.total(), self.sum(), self.sum_sq())
    }

    /// The `p`-th percentile (`p` in 0..=100) by the nearest-rank method:
    /// the smallest value `v` such that at least `p` % of the counted values
    /// are `<= v`, i.e. the value of rank `max(1, ceil(p·n/100))` in sorted
    /// order. So the 0th is the minimum, the 100th the maximum, and the
    /// 50th of an even count is the lower of the two middle values. `None`
    /// when nothing was counted.
    pub fn percentile(&self, p: u32) -> Option<u32> {
        let n = self.total();
        if n == 0 {
            return None;
        }
        let p = u128::from(p.min(100));
        let rank = ((p * u128::from(n)).div_ceil(100)).max(1);
        let mut seen = 0u128;
        for (v, c) in self.nonzero() {
            seen += u128::from(c);
            if seen >= rank {
                return Some(v);
            }
        }
        None
    }

    /// The smallest value counted.
    pub fn min(&self) -> Option<u32> {
        self.nonzero().next().map(|(v, _)| v)
    }

    /// The largest value counted.
    pub fn max(&self) -> Option<u32> {
        self.nonzero().last().map(|(v, _)| v)
    }

    /// Adds another histogram's counts; both must have the same range, and
    /// no count may pass 2^64 − 1.
    pub fn merge(&mut self, other: &Histogram) -> Result<(), String> {
        if (self.lo, self.hi) != (other.lo, other.hi) {
            return Err(format!(
                "histogram ranges differ: {}..={} and {}..={}",
                self.lo, self.hi, other.lo, other.hi
            ));
        }
        let (x, y) = (&self.counts, &other.counts);
        let mut merged = Vec::with_capacity(x.capacity().max(union_len(x, y)));
        let (mut i, mut j) = (0, 0);
        while i < x.len() && j < y.len() {
            let (p, q) = (x[i], y[j]);
            i += usize::from(p.0 <= q.0);
            j += usize::from(q.0 <= p.0);
            merged.push(match p.0.cmp(&q.0) {
                std::cmp::Ordering::Less => p,
                std::cmp::Ordering::Greater => q,
                std::cmp::Ordering::Equal => {
                    let sum = p.1.checked_add(q.1).ok_or("a histogram count passes 2^64 − 1")?;
                    (p.0, sum)
                }
            });
        }
        merged.extend_from_slice(&x[i..]);
        merged.extend_from_slice(&y[j..]);
        self.counts = merged;
        Ok(())
    }

    /// Bytes of heap memory it holds (fixed at creation for a range of at
    /// most [`RESERVED_VALUES`] values).
    pub fn heap_bytes(&self) -> usize {
        self.counts.capacity() * std::mem::size_of::<(u32, u64)>()
    }

    /// Zeroes every count, keeping the range.
    pub fn clear(&mut self) {
        self.counts.clear();
    }
}

/// Entries of two sorted entry lists merged: the number of distinct values.
fn union_len(a: &[(u32, u64)], b: &[(u32, u64)]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i].0, b[j].0);
        i += usize::from(x <= y);
        j += usize::from(y <= x);
        n += 1;
    }
    n + (a.len() - i) + (b.len() - j)
}

#[cfg(test)]
mod tests {
    use approx::{abs_diff_eq, assert_abs_diff_eq, assert_relative_eq};

    use super::*;

    #[test]
    fn wilson_matches_published_values() {
        // Newcombe (1998), Table I: 81/263 → 0.2553 to 0.3662.
        let [lo, hi] = wilson(81, 263);
        assert!(
            abs_diff_eq!(lo, 0.2553, epsilon = 5e-5) && abs_diff_eq!(hi, 0.3662, epsilon = 5e-5),
            "{lo} {hi}"
        );
        // 15/148 → 0.0624 to 0.1605.
        let [lo, hi] = wilson(15, 148);
        assert!(
            abs_diff_eq!(lo, 0.0624, epsilon = 5e-5) && abs_diff_eq!(hi, 0.1605, epsilon = 5e-5),
            "{lo} {hi}"
        );
        // 0/20 → 0 to 0.1611.
        let [lo, hi] = wilson(0, 20);
        assert_eq!(lo, 0.0);
        assert!(abs_diff_eq!(hi, 0.1611, epsilon = 5e-5), "{hi}");
        assert_eq!(wilson(20, 20)[1], 1.0);
        assert_eq!(wilson(0, 0), [0.0, 1.0]);
    }

    #[test]
    fn newcombe_matches_the_published_example() {
        // Newcombe (1998), Table II, example (a): 56/70 − 48/80 = 0.2000,
        // method 10: 0.0524 to 0.3339.
        let (d, [lo, hi]) = newcombe(56, 70, 48, 80);
        assert_abs_diff_eq!(d, 0.2, epsilon = 1e-12);
        assert!(
            abs_diff_eq!(lo, 0.0524, epsilon = 5e-5) && abs_diff_eq!(hi, 0.3339, epsilon = 5e-5),
            "{lo} {hi}"
        );
    }

    fn table(both: u64, only_b: u64, only_a: u64, neither: u64) -> Paired {
        Paired {
            n: both + only_b + only_a + neither,
            both,
            only_a,
            only_b,
        }
    }

    #[test]
    fn paired_difference_matches_a_hand_computation() {
        // 30 pairs: 10 both, 5 only in B, 2 only in A, 13 neither.
        // Marginals: pb = 15/30 = 0.5, pa = 12/30 = 0.4, d = 0.1.
        // Wilson (z = 1.959964, z² = 3.841459, n = 30):
        //   denominator 1 + z²/n = 1.128049; z²/2n = 0.064024;
        //   B: centre (0.5 + 0.064024)/1.128049 = 0.5,
        //      half z/1.128049 · sqrt(0.25/30 + z²/3600) = 0.168459,
        //      [lb, ub] = [0.331541, 0.668459];
        //   A: centre (0.4 + 0.064024)/1.128049 = 0.411351,
        //      half z/1.128049 · sqrt(0.24/30 + z²/3600) = 0.165445,
        //      [la, ua] = [0.245906, 0.576796].
        // Phi: ad − bc = 10·13 − 5·2 = 120 > 0, so the numerator is
        //   120 − n/2 = 105; margins 15·15·12·18 = 48600, sqrt = 220.454077;
        //   phi = 105 / 220.454077 = 0.476290.
        // δ: x = pb − lb = 0.168459, y = ua − pa = 0.176796,
        //   sqrt(x² − 2·phi·x·y + y²) = sqrt(0.028378 − 0.028370 + 0.031257)
        //   = 0.176818, lower limit 0.1 − 0.176818 = −0.076818.
        // ε: x = ub − pb = 0.168459, y = pa − la = 0.154094,
        //   sqrt(0.028378 − 0.024728 + 0.023745) = 0.165517,
        //   upper limit 0.1 + 0.165517 = 0.265517.
        let p = table(10, 5, 2, 13);
        assert_relative_eq!(paired_phi(&p), 0.476290, epsilon = 1e-6);
        let (d, [lo, hi]) = paired_difference(&p);
        assert_relative_eq!(d, 0.1, epsilon = 1e-12);
        assert_relative_eq!(lo, -0.076818, epsilon = 1e-6);
        assert_relative_eq!(hi, 0.265517, epsilon = 1e-6);
        // The same rates as independent samples give a wider interval.
        let (_, [ulo, uhi]) = newcombe(15, 30, 12, 30);
        assert!(ulo < lo && uhi > hi, "unpaired [{ulo}, {uhi}]");
    }

    #[test]
    fn paired_difference_matches_the_published_examples() {
        // Newcombe (1998), method 10, as the paper tabulates it (four
        // decimals; also reproduced by the R package propint). Cells are
        // (both, only first, only second, neither) with first − second, so
        // here B is the first: (36, 12, 2, 0) → 0.2000, 0.0569 to 0.3404.
        let cases = [
            ((36, 12, 2, 0), 0.2, [0.0569, 0.3404]),
            ((18, 12, 2, 18), 0.2, [0.0562, 0.3290]),
            ((53, 0, 0, 1), 0.0, [-0.0729, 0.0729]),
            ((0, 30, 0, 0), 1.0, [0.8395, 1.0]),
        ];
        for ((both, only_b, only_a, neither), diff, [lo, hi]) in cases {
            let (d, ci) = paired_difference(&table(both, only_b, only_a, neither));
            assert_relative_eq!(d, diff, epsilon = 1e-12);
            assert_abs_diff_eq!(ci[0], lo, epsilon = 5e-5);
            assert_abs_diff_eq!(ci[1], hi, epsilon = 5e-5);
        }
    }

    #[test]
    fn paired_difference_edge_cases() {
        // No pairs: nothing is known.
        assert_eq!(paired_difference(&Paired::default()), (0.0, [-1.0, 1.0]));
        // Identical outcomes: no difference, and an interval around 0 far
        // narrower than that of two independent batches.
        let same = table(480, 0, 0, 520);
        let (d, [lo, hi]) = paired_difference(&same);
        assert_eq!(d, 0.0);
        assert!(lo <= 0.0 && hi >= 0.0, "[{lo}, {hi}]");
        assert!(hi - lo < 0.005, "[{lo}, {hi}]");
        let (_, [ulo, uhi]) = newcombe(480, 1000, 480, 1000);
        assert!(uhi - ulo > 10.0 * (hi - lo));
        // Every run won in both, or in neither: no margin to correlate.
        for all in [table(1000, 0, 0, 0), table(0, 0, 0, 1000)] {
            assert_eq!(paired_phi(&all), 0.0);
            let (d, [lo, hi]) = paired_difference(&all);
            assert_eq!(d, 0.0);
            assert!(lo < 0.0 && hi > 0.0 && hi - lo < 0.01, "[{lo}, {hi}]");
        }
        // Every win only in B: B is better by 1, and the interval shows it.
        let (d, [lo, hi]) = paired_difference(&table(0, 200, 0, 0));
        assert_eq!(d, 1.0);
        assert_eq!(hi, 1.0);
        assert!(lo > 0.95, "{lo}");
        // The mirror image.
        let (d, [lo, hi]) = paired_difference(&table(0, 0, 200, 0));
        assert_eq!((d, lo), (-1.0, -1.0));
        assert!(hi < -0.95, "{hi}");
        // Counts that do not add up are capped at n, not a panic.
        let odd = Paired {
            n: 5,
            both: u64::MAX,
            only_a: u64::MAX,
            only_b: 3,
        };
        let (d, [lo, hi]) = paired_difference(&odd);
        assert!(d.is_finite() && lo <= hi);
    }
}
