//! The statistics of a batch, from integer tallies only: Wilson score
//! intervals for rates, Newcombe's interval for a difference of two rates,
//! normal intervals for means, and exact histograms with nearest-rank
//! percentiles.
//!
//! Every function here is a pure function of integers (the floating-point
//! steps are the same IEEE operations in the same order on every machine),
//! so a batch's statistics do not depend on the thread count or the machine.

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
    // n·Σx² − (Σx)² is exact in integers (no cancellation in floats).
    let centred = (n as u128 * sum_sq).saturating_sub(sum * sum);
    let var = centred as f64 / (n_f * (n_f - 1.0));
    let sd = var.sqrt();
    let half = Z95 * sd / n_f.sqrt();
    Some(MeanStats {
        mean,
        sd,
        ci95: [mean - half, mean + half],
    })
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

/// Exact counts of a small non-negative integer quantity (Exchanges played,
/// hull boxes lost, points lost) over a fixed range `lo..=hi` set before
/// the first run, so its size does not grow with the number of runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Histogram {
    lo: u32,
    counts: Vec<u64>,
}

impl Histogram {
    /// An empty histogram for values `lo..=hi` (`hi >= lo`).
    pub fn new(lo: u32, hi: u32) -> Histogram {
        let hi = hi.max(lo);
        Histogram {
            lo,
            counts: vec![0; (hi - lo) as usize + 1],
        }
    }

    /// The lowest value it can hold.
    pub fn lo(&self) -> u32 {
        self.lo
    }

    /// The highest value it can hold.
    pub fn hi(&self) -> u32 {
        self.lo + self.counts.len() as u32 - 1
    }

    /// Counts one value; values outside the range go to the nearest end
    /// (the runner sizes every histogram so that none is).
    pub fn add(&mut self, value: u32) {
        self.add_n(value, 1);
    }

    /// Counts `n` occurrences of `value`.
    pub fn add_n(&mut self, value: u32, n: u64) {
        let i = value.clamp(self.lo, self.hi()) - self.lo;
        self.counts[i as usize] += n;
    }

    /// How many times `value` was counted.
    pub fn count(&self, value: u32) -> u64 {
        if value < self.lo || value > self.hi() {
            return 0;
        }
        self.counts[(value - self.lo) as usize]
    }

    /// Values counted.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// `(value, count)` for every value counted at least once, in order.
    pub fn nonzero(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(i, c)| (self.lo + i as u32, *c))
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

    /// Adds another histogram's counts; both must have the same range.
    pub fn merge(&mut self, other: &Histogram) -> Result<(), String> {
        if self.lo != other.lo || self.counts.len() != other.counts.len() {
            return Err(format!(
                "histogram ranges differ: {}..={} and {}..={}",
                self.lo,
                self.hi(),
                other.lo,
                other.hi()
            ));
        }
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        Ok(())
    }

    /// Bytes of heap memory it holds (fixed at creation).
    pub fn heap_bytes(&self) -> usize {
        self.counts.capacity() * std::mem::size_of::<u64>()
    }

    /// Zeroes every count, keeping the range.
    pub fn clear(&mut self) {
        self.counts.iter_mut().for_each(|c| *c = 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_published_values() {
        // Newcombe (1998), Table I: 81/263 → 0.2553 to 0.3662.
        let [lo, hi] = wilson(81, 263);
        assert!((lo - 0.2553).abs() < 5e-5 && (hi - 0.3662).abs() < 5e-5, "{lo} {hi}");
        // 15/148 → 0.0624 to 0.1605.
        let [lo, hi] = wilson(15, 148);
        assert!((lo - 0.0624).abs() < 5e-5 && (hi - 0.1605).abs() < 5e-5, "{lo} {hi}");
        // 0/20 → 0 to 0.1611.
        let [lo, hi] = wilson(0, 20);
        assert_eq!(lo, 0.0);
        assert!((hi - 0.1611).abs() < 5e-5, "{hi}");
        assert_eq!(wilson(20, 20)[1], 1.0);
        assert_eq!(wilson(0, 0), [0.0, 1.0]);
    }

    #[test]
    fn newcombe_matches_the_published_example() {
        // Newcombe (1998), Table II, example (a): 56/70 − 48/80 = 0.2000,
        // method 10: 0.0524 to 0.3339.
        let (d, [lo, hi]) = newcombe(56, 70, 48, 80);
        assert!((d - 0.2).abs() < 1e-12);
        assert!((lo - 0.0524).abs() < 5e-5 && (hi - 0.3339).abs() < 5e-5, "{lo} {hi}");
    }
}
