//! Diagnostics per file: 0 is the scenario, then the orders files, then the
//! GZF records as they are loaded. Every check pushes its problems here.

use std::ops::Range;

use crate::diag::{Diagnostic, SourceFile};

/// Diagnostics per file: 0 is the scenario, then the orders files, then the
/// GZF records as they are loaded.
pub(super) struct Files {
    pub(super) list: Vec<(SourceFile, Vec<Diagnostic>)>,
    /// A record could not be read or has errors, so no ship joined the
    /// battle: a name not found among its Units is no news.
    pub(super) records_failed: bool,
}

impl Files {
    pub(super) fn push(&mut self, file: usize, d: Diagnostic) {
        self.list[file].1.push(d);
    }

    /// Reports a Unit name not found in the battle, unless the records
    /// failed (the reason is reported with them: a missing file is one
    /// error, not one per name in it).
    pub(super) fn push_unknown_unit(&mut self, file: usize, d: Diagnostic) {
        if !self.records_failed {
            self.push(file, d);
        }
    }

    /// Whether any file has an error so far.
    pub(super) fn has_errors(&self) -> bool {
        self.list.iter().any(|(_, d)| d.iter().any(Diagnostic::is_error))
    }

    pub(super) fn line(&self, file: usize, span: &Range<usize>) -> usize {
        self.list[file].0.line_col(span.start).0
    }

    /// "line 12" or "orders/bob.toml line 12" when `file` differs from `here`.
    pub(super) fn at(&self, here: usize, file: usize, span: &Range<usize>) -> String {
        if here == file {
            format!("line {}", self.line(file, span))
        } else {
            format!("{} line {}", self.list[file].0.name, self.line(file, span))
        }
    }
}

/// `d` with help for a name that is none of `candidates`: the one it
/// misspells, or the candidates when they are few (`crate::suggest::help`).
pub(super) fn name_help<'a>(
    d: Diagnostic,
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    what: &str,
) -> Diagnostic {
    let candidates: Vec<&str> = candidates.into_iter().collect();
    match crate::suggest::help(word, &candidates, what) {
        Some(help) => d.with_help(help),
        None => d,
    }
}
