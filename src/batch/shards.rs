//! Whether the files given to `fam merge` are one batch's shards: every
//! shard K/N of one N, each once, all cut from one number of runs. The
//! messages name the files, the shards missing and the shards given twice.

use std::collections::BTreeMap;

use super::{Report, ShardOf};

/// Most shard numbers (or runs of them) a message lists.
const LISTED: usize = 12;

/// Checks the shards among `parts` (each named by its file): either no part
/// is a shard (batches whose run ranges the merge checks), or every part is
/// one, all of one count N, all of one batch's runs where the files say,
/// and together exactly shards 1 to N.
pub fn check_set(parts: &[(String, Report)]) -> Result<(), String> {
    let shards: Vec<(&str, ShardOf)> = parts
        .iter()
        .filter_map(|(name, p)| p.meta.shard.map(|s| (name.as_str(), s)))
        .collect();
    let Some(&(first, one)) = shards.first() else {
        return Ok(());
    };
    if let Some((whole, _)) = parts.iter().find(|(_, p)| p.meta.shard.is_none()) {
        return Err(format!(
            "{whole} is not a shard, but {first} is shard {}/{}: merge the shards of one batch (`fam batch --shard K/N`), or that batch alone",
            one.index, one.count
        ));
    }
    if let Some((name, s)) = shards.iter().find(|(_, s)| s.count != one.count) {
        return Err(format!(
            "{first} is shard {}/{} but {name} is shard {}/{}: the shards of one batch share one N",
            one.index, one.count, s.index, s.count
        ));
    }
    same_runs(&shards)?;
    complete(&shards, one.count)
}

/// Shards that say how many runs their batch had agree on it.
fn same_runs(shards: &[(&str, ShardOf)]) -> Result<(), String> {
    let mut known = shards.iter().filter_map(|(name, s)| s.batch_runs.map(|r| (*name, r)));
    let Some((first, runs)) = known.next() else {
        return Ok(());
    };
    match known.find(|(_, r)| *r != runs) {
        Some((name, other)) => Err(format!(
            "{first} is a shard of a batch of {runs} runs but {name} of {other} runs: the shards of one batch share --runs"
        )),
        None => Ok(()),
    }
}

/// Shards 1 to `count`, each exactly once.
fn complete(shards: &[(&str, ShardOf)], count: u64) -> Result<(), String> {
    let mut by_index: BTreeMap<u64, Vec<&str>> = BTreeMap::new();
    for (name, s) in shards {
        by_index.entry(s.index).or_default().push(name);
    }
    let mut problems = Vec::new();
    let twice: Vec<String> = by_index
        .iter()
        .filter(|(_, names)| names.len() > 1)
        .map(|(k, names)| {
            let times = match names.len() {
                2 => "twice".to_string(),
                n => format!("{n} times"),
            };
            format!("shard {k}/{count} is given {times}: {}", names.join(", "))
        })
        .collect();
    if !twice.is_empty() {
        problems.push(twice.join("; "));
    }
    let gaps = missing(by_index.keys().copied(), count);
    if !gaps.is_empty() {
        let given: Vec<String> = by_index
            .iter()
            .take(LISTED)
            .map(|(k, names)| format!("{k} ({})", names[0]))
            .collect();
        let more = if by_index.len() > LISTED { ", …" } else { "" };
        problems.push(format!(
            "{} of {count} missing: {} (given: {}{more})",
            if missing_count(&gaps) == 1 { "shard" } else { "shards" },
            list_ranges(&gaps),
            given.join(", ")
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

/// The runs of shard numbers in `1..=count` that `present` (increasing)
/// lacks, as inclusive ranges.
fn missing(present: impl Iterator<Item = u64>, count: u64) -> Vec<(u64, u64)> {
    let mut gaps = Vec::new();
    // `None` once shard u64::MAX is seen: nothing can be missing after it.
    let mut next = Some(1);
    for k in present {
        if let Some(n) = next
            && k > n
        {
            gaps.push((n, k - 1));
        }
        next = k.checked_add(1);
    }
    if let Some(n) = next
        && n <= count
    {
        gaps.push((n, count));
    }
    gaps
}

fn missing_count(gaps: &[(u64, u64)]) -> u64 {
    gaps.iter().map(|(a, b)| b - a + 1).fold(0, u64::saturating_add)
}

/// `3, 5–9, 12`, at most [`LISTED`] entries.
fn list_ranges(gaps: &[(u64, u64)]) -> String {
    let mut parts: Vec<String> = gaps
        .iter()
        .take(LISTED)
        .map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}–{b}") })
        .collect();
    if gaps.len() > LISTED {
        parts.push("…".into());
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_shard_numbers_are_listed_as_ranges() {
        assert_eq!(missing([2, 3, 7].into_iter(), 9), vec![(1, 1), (4, 6), (8, 9)]);
        assert_eq!(missing([1, 2, 3].into_iter(), 3), vec![]);
        assert_eq!(missing(std::iter::empty(), 1), vec![(1, 1)]);
        assert_eq!(list_ranges(&[(1, 1), (4, 6)]), "1, 4–6");
        assert_eq!(missing_count(&[(1, 1), (4, 6)]), 4);
        // The last of u64::MAX shards, alone: the others are one range.
        assert_eq!(missing([u64::MAX].into_iter(), u64::MAX), vec![(1, u64::MAX - 1)]);
    }
}
