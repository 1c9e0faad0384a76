//! The range table: `start_range` between every pair of Formations, then
//! each `[[range]]` entry, each range 0 to [`MAX_RANGE_MU`].

use std::collections::BTreeMap;
use std::ops::Range;

use super::files::Files;
use super::formations::{FormationDef, formation_ref};
use crate::diag::Diagnostic;
use crate::engine::plot::FormationId;
use crate::engine::state::{MAX_RANGE_MU, RangeTable};
use crate::orders::raw::{self, S};

/// Starting range between Formations when the scenario gives none (F&M
/// "Starting Positions").
pub const DEFAULT_START_RANGE: u32 = 60;

/// A scenario range in MU: 0 to [`MAX_RANGE_MU`], else an error at it.
fn range_mu(files: &mut Files, v: &S<i64>) -> Option<u32> {
    let n = *v.get_ref();
    let why = if n < 0 {
        "a range cannot be negative".to_string()
    } else {
        match u32::try_from(n) {
            Ok(mu) if mu <= MAX_RANGE_MU => return Some(mu),
            _ => format!("a range of {n} MU is beyond the longest fam plays ({MAX_RANGE_MU} MU)"),
        }
    };
    // Ranges are set in the scenario file (file 0).
    files.push(
        0,
        Diagnostic::error(v.span(), why, format!("a range in MU, 0 to {MAX_RANGE_MU}")),
    );
    None
}

/// The range table: `start_range` between every pair, then each
/// `[[range]]` entry (two different Formations, one entry a pair).
pub(super) fn range_table(
    files: &mut Files,
    start_range: &Option<S<i64>>,
    raw_ranges: &[S<raw::RawRange>],
    defs: &[FormationDef],
    by_name: &BTreeMap<String, FormationId>,
) -> RangeTable {
    const SC: usize = 0;
    let start = match start_range {
        None => DEFAULT_START_RANGE,
        Some(v) => range_mu(files, v).unwrap_or(DEFAULT_START_RANGE),
    };
    let mut ranges = RangeTable::new(defs.len(), start);
    let mut pairs: BTreeMap<(usize, usize), Range<usize>> = BTreeMap::new();
    for r in raw_ranges {
        let r_ = r.get_ref();
        let between = r_.between.get_ref();
        if between.len() != 2 {
            files.push(
                SC,
                Diagnostic::error(
                    r_.between.span(),
                    format!("`between` names {} Formations", between.len()),
                    "two Formation names: between = [\"A\", \"B\"]",
                ),
            );
            continue;
        }
        let a = formation_ref(files, SC, by_name, defs, &between[0]);
        let b = formation_ref(files, SC, by_name, defs, &between[1]);
        let mu = range_mu(files, &r_.mu);
        let (Some(a), Some(b)) = (a, b) else { continue };
        if a == b {
            files.push(
                SC,
                Diagnostic::error(
                    r_.between.span(),
                    format!("a range between `{}` and itself", defs[a].name),
                    "two different Formations",
                ),
            );
            continue;
        }
        let key = (a.min(b), a.max(b));
        if let Some(first) = pairs.get(&key) {
            let at = files.at(SC, SC, first);
            files.push(
                SC,
                Diagnostic::error(
                    r_.between.span(),
                    format!(
                        "the range between `{}` and `{}` is already given ({at})",
                        defs[a].name, defs[b].name
                    ),
                    "one range per pair",
                ),
            );
            continue;
        }
        pairs.insert(key, r_.between.span());
        if let Some(mu) = mu {
            ranges.set(a, b, mu);
        }
    }
    ranges
}
