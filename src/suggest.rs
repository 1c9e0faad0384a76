//! "Did you mean …?": the name meant by a misspelt one, among the names
//! valid at that place (ships loaded, Formations, commanders, TOML keys,
//! system types).
//!
//! A suggestion is made only for what looks like a typo: names compare
//! without regard to case or to `-`, `_` and blanks, and may differ by at
//! most one edit (an insertion, deletion, substitution or swap of two
//! neighbours) in five characters, none in names of one or two; or the name
//! is a whole-word part of exactly one candidate (`Long Watch` for `KRD Long
//! Watch`). Unrelated names get no suggestion.

/// How many candidates a help line lists when none is close.
pub const LIST_MAX: usize = 8;

/// The most work one suggestion may take, in character pairs compared: a
/// few hundred ships' names, not hostile input's thousands of long ones
/// (which then get no suggestion rather than a slow one).
const BUDGET: usize = 250_000;

/// Names longer than this (in characters) are no typo of anything.
const MAX_NAME: usize = 200;

/// A name made comparable: lower case, `-`, `_` and runs of blanks as one `_`.
fn normal(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut gap = false;
    for c in name.trim().chars() {
        if c == '-' || c == '_' || c.is_whitespace() {
            gap = true;
            continue;
        }
        if gap && !out.is_empty() {
            out.push('_');
        }
        gap = false;
        out.extend(c.to_lowercase());
    }
    out
}

/// The most edits a typo of a name this long may hold.
fn allowed_edits(chars: usize) -> usize {
    match chars {
        0..=2 => 0,
        3..=5 => 1,
        n => n / 3,
    }
}

/// The candidate `word` most likely misspells, if any is close enough (see
/// the module docs). Ties go to the first candidate.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let w = normal(word);
    let w_len = w.chars().count();
    if w.is_empty() || w_len > MAX_NAME {
        return None;
    }
    let mut best: Option<(usize, &'a str)> = None;
    let mut containing: Vec<&'a str> = Vec::new();
    let mut work = 0usize;
    for c in candidates {
        let n = normal(c);
        if n.is_empty() || c == word {
            continue;
        }
        let n_len = n.chars().count();
        let allowed = allowed_edits(w_len.min(n_len));
        // Names whose lengths differ by more than the edits allowed are not
        // compared further.
        if w_len.abs_diff(n_len) <= allowed {
            work += w_len * n_len;
            if work > BUDGET {
                return None;
            }
            let d = strsim::osa_distance(&w, &n);
            if d <= allowed && best.is_none_or(|(b, _)| d < b) {
                best = Some((d, c));
            }
        }
        if w.chars().count() >= 4 && whole_word_part(&n, &w) && !containing.contains(&c) {
            containing.push(c);
        }
    }
    match (best, containing.as_slice()) {
        (Some((_, c)), _) => Some(c),
        (None, [only]) => Some(only),
        _ => None,
    }
}

/// Whether `part` is in `whole` between word boundaries (`_` after [`normal`]).
fn whole_word_part(whole: &str, part: &str) -> bool {
    whole.match_indices(part).any(|(i, _)| {
        let before = i == 0 || whole[..i].ends_with('_');
        let after = i + part.len() == whole.len() || whole[i + part.len()..].starts_with('_');
        before && after
    })
}

/// The help line for a name that is not one of `candidates`: `did you mean
/// `X`?` when one is close; otherwise the candidates, after `what` (`ships
/// loaded`), when there are at most [`LIST_MAX`] of them; otherwise `None`.
pub fn help(word: &str, candidates: &[&str], what: &str) -> Option<String> {
    if let Some(c) = closest(word, candidates.iter().copied()) {
        return Some(did_you_mean(word, c));
    }
    if candidates.is_empty() {
        return Some(format!("{what}: none"));
    }
    (candidates.len() <= LIST_MAX).then(|| {
        let list: Vec<String> = candidates.iter().map(|c| format!("`{c}`")).collect();
        format!("{what}: {}", list.join(", "))
    })
}

/// `did you mean `X`?`, saying so when only case or blanks differ (names
/// are exact).
pub fn did_you_mean(word: &str, meant: &str) -> String {
    if normal(word) == normal(meant) {
        format!("names are exact: did you mean `{meant}`?")
    } else {
        format!("did you mean `{meant}`?")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHIPS: [&str; 6] = [
        "KRD Long Watch",
        "KRD Ridge Warden",
        "KRD Stone Patience",
        "MCS Clear Heading",
        "MCS Small Hours",
        "Honest Weight",
    ];

    #[test]
    fn real_typos_are_matched() {
        assert_eq!(closest("KRD Long Wach", SHIPS), Some("KRD Long Watch"));
        assert_eq!(closest("krd long watch", SHIPS), Some("KRD Long Watch"));
        assert_eq!(closest("MCS Claer Heading", SHIPS), Some("MCS Clear Heading"));
        assert_eq!(closest("Long Watch", SHIPS), Some("KRD Long Watch"));
        assert_eq!(closest("targt", ["unit", "fc", "target", "group"]), Some("target"));
        assert_eq!(closest("sped", ["speed", "evasion", "fire"]), Some("speed"));
        assert_eq!(
            closest("reactor-blast", ["reactor_blast", "needle_fb1"]),
            Some("reactor_blast")
        );
        assert_eq!(
            closest(
                "Clas 2 Battery",
                ["Class 1 Battery", "Class 2 Battery", "Class 3 Battery"]
            ),
            Some("Class 2 Battery"),
            "the nearest of several near ones"
        );
    }

    #[test]
    fn unrelated_names_get_nothing() {
        assert_eq!(closest("Bismarck", SHIPS), None);
        assert_eq!(closest("Heading", ["Watch", "Anvil"]), None);
        assert_eq!(
            closest("C", ["A", "B"]),
            None,
            "one-letter names are not typos of each other"
        );
        assert_eq!(closest("fcs", ["pds", "ftl"]), None);
        assert_eq!(closest("Beam-2", ["Class 2 Battery", "PDS", "FCS"]), None);
        assert_eq!(closest("", SHIPS), None);
        // A word in two candidates is no hint.
        assert_eq!(closest("KRD", SHIPS), None);
        assert_eq!(closest("Watch", ["KRD Long Watch", "KRD Short Watch"]), None);
    }

    #[test]
    fn hostile_numbers_of_long_names_cost_little_and_get_nothing() {
        let long: Vec<String> = (0..5_000).map(|i| format!("{}{i}", "x".repeat(150))).collect();
        let word = format!("{}y", "x".repeat(150));
        let start = std::time::Instant::now();
        for _ in 0..100 {
            assert_eq!(closest(&word, long.iter().map(String::as_str)), None);
        }
        assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
        assert_eq!(closest(&"a".repeat(MAX_NAME + 1), ["a"]), None);
    }

    #[test]
    fn help_suggests_lists_few_and_stays_short_for_many() {
        assert_eq!(
            help("KRD Long Wach", &SHIPS, "ships loaded").as_deref(),
            Some("did you mean `KRD Long Watch`?")
        );
        assert_eq!(
            help("heading", &["Heading", "Watch"], "Formations").as_deref(),
            Some("names are exact: did you mean `Heading`?")
        );
        assert_eq!(
            help("Anvil", &["Heading", "Watch"], "Formations").as_deref(),
            Some("Formations: `Heading`, `Watch`")
        );
        assert_eq!(help("Anvil", &[], "Formations").as_deref(), Some("Formations: none"));
        let many: Vec<String> = (0..=LIST_MAX).map(|i| format!("Ship {i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert_eq!(help("Bismarck", &many, "ships loaded"), None);
    }
}
