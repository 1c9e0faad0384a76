//! The scenario's GZF files, read and parsed (each once, at most
//! [`MAX_RECORD_FILES`]), and the ships and bases they hold by name.

use std::collections::BTreeMap;
use std::ops::Range;

use super::files::Files;
use crate::diag::{Diagnostic, SourceFile};
use crate::gzf::{self, Item, ParseOptions};
use crate::orders::keys::unit_key;
use crate::orders::loaded::Record;
use crate::orders::raw::{self, S};

/// GZF files one scenario may load.
pub const MAX_RECORD_FILES: usize = 64;

pub(super) struct ShipRef {
    pub(super) record: usize,
    pub(super) item: usize,
    pub(super) name: String,
}

/// The scenario's GZF files, read and parsed.
pub(super) struct Records {
    pub(super) records: Vec<Record>,
    /// Where the scenario names each file.
    pub(super) spans: Vec<Range<usize>>,
    /// Per record: its index in `files`.
    pub(super) files: Vec<usize>,
    /// Per record: its blocks' field spans.
    pub(super) fields: Vec<Vec<crate::gzf::parse::FieldSpans>>,
    /// A file missing, unreadable or with errors (no battle can be built).
    pub(super) failed: bool,
}

/// Reads and parses the files of the scenario's `gzf` list: each once, at
/// most [`MAX_RECORD_FILES`], every problem at its place.
pub(super) fn load_records(
    files: &mut Files,
    gzf: &Option<S<Vec<S<String>>>>,
    read_gzf: &mut dyn FnMut(&str) -> Result<SourceFile, String>,
    options: &ParseOptions,
) -> Records {
    const SC: usize = 0;
    let mut records: Vec<Record> = Vec::new();
    let mut record_spans: Vec<Range<usize>> = Vec::new();
    // Per record: its index in `files`, and its blocks' field spans.
    let mut record_files: Vec<usize> = Vec::new();
    let mut gzf_spans: Vec<Vec<crate::gzf::parse::FieldSpans>> = Vec::new();
    let mut gzf_failed = false;
    match gzf {
        None => {
            files.push(
                SC,
                Diagnostic::error(
                    0..0,
                    "the scenario names no GZF ship records",
                    "gzf = [\"ships.gzf\", …] (paths relative to this file)",
                )
                .with_help(raw::FORMAT_DOC),
            );
            gzf_failed = true;
        }
        Some(list) => {
            if list.get_ref().is_empty() {
                files.push(
                    SC,
                    Diagnostic::error(list.span(), "no GZF files given", "at least one file name"),
                );
                gzf_failed = true;
            }
            if list.get_ref().len() > MAX_RECORD_FILES {
                files.push(
                    SC,
                    Diagnostic::error(
                        list.span(),
                        format!(
                            "{} GZF files given; a scenario loads at most {MAX_RECORD_FILES}",
                            list.get_ref().len()
                        ),
                        "the files that hold the battle's ships",
                    ),
                );
                gzf_failed = true;
            }
            let mut seen: BTreeMap<String, Range<usize>> = BTreeMap::new();
            for p in list.get_ref().iter().take(MAX_RECORD_FILES) {
                if let Some(first) = seen.get(p.get_ref()) {
                    let at = files.at(SC, SC, first);
                    files.push(
                        SC,
                        Diagnostic::error(
                            p.span(),
                            format!("`{}` is listed twice (first on {at})", p.get_ref()),
                            "each file once",
                        ),
                    );
                    continue;
                }
                seen.insert(p.get_ref().clone(), p.span());
                match read_gzf(p.get_ref()) {
                    Err(msg) => {
                        files.push(
                            SC,
                            Diagnostic::error(
                                p.span(),
                                format!("cannot read `{}`: {msg}", p.get_ref()),
                                "a GZF file (path relative to this scenario file)",
                            ),
                        );
                        gzf_failed = true;
                    }
                    Ok(source) => {
                        let parsed = gzf::parse(&source.text, options);
                        if parsed.has_errors() {
                            gzf_failed = true;
                        }
                        let name = source.name.clone();
                        record_files.push(files.list.len());
                        gzf_spans.push(parsed.spans);
                        files.list.push((source, parsed.diagnostics));
                        records.push(Record {
                            path: p.get_ref().clone(),
                            name,
                            file: parsed.file,
                        });
                        record_spans.push(p.span());
                    }
                }
            }
        }
    }

    Records {
        records,
        spans: record_spans,
        files: record_files,
        fields: gzf_spans,
        failed: gzf_failed,
    }
}

/// Every loaded ship and base by name: ship names unique across the
/// records (a clash is an error at the files' names in the scenario).
pub(super) fn name_units(
    files: &mut Files,
    records: &[Record],
    record_spans: &[Range<usize>],
) -> (BTreeMap<String, ShipRef>, BTreeMap<String, ShipRef>) {
    const SC: usize = 0;
    let mut ships: BTreeMap<String, ShipRef> = BTreeMap::new();
    let mut bases: BTreeMap<String, ShipRef> = BTreeMap::new();
    for (r, rec) in records.iter().enumerate() {
        for (i, item) in rec.file.items.iter().enumerate() {
            match item {
                Item::Ship(s) if !s.name.trim().is_empty() => {
                    let key = unit_key(&s.name);
                    match ships.get(&key) {
                        Some(first) if first.record != r => {
                            let msg = format!(
                                "ship `{}` is in both `{}` and `{}`",
                                s.name, records[first.record].path, rec.path
                            );
                            files.push(
                                SC,
                                Diagnostic::error(record_spans[r].clone(), msg, "ship names unique across all records")
                                    .with_help("orders name ships, so no two loaded ships may share a name"),
                            );
                        }
                        // Two in one file: the GZF reader reports it.
                        Some(_) => {}
                        None => {
                            ships.insert(
                                key,
                                ShipRef {
                                    record: r,
                                    item: i,
                                    name: s.name.clone(),
                                },
                            );
                        }
                    }
                }
                Item::Base(b) if !b.name.trim().is_empty() => {
                    bases.insert(
                        unit_key(&b.name),
                        ShipRef {
                            record: r,
                            item: i,
                            name: b.name.clone(),
                        },
                    );
                }
                _ => {}
            }
        }
    }
    (ships, bases)
}
