//! `[sides]`: each commander's Formations, every Formation on exactly one
//! side, at least two sides.

use std::collections::BTreeMap;
use std::ops::Range;

use super::files::{Files, name_help};
use super::formations::FormationDef;
use crate::diag::Diagnostic;
use crate::engine::plot::FormationId;
use crate::engine::state::Side;
use crate::orders::raw;

/// Reads `[sides]`: each commander's Formations, every Formation on
/// exactly one side, at least two sides.
pub(super) fn list_sides(
    files: &mut Files,
    raw_sides: &Option<raw::NameLists>,
    defs: &mut [FormationDef],
    by_name: &BTreeMap<String, FormationId>,
) -> Vec<Side> {
    const SC: usize = 0;
    let mut sides: Vec<Side> = Vec::new();
    match raw_sides {
        None => files.push(
            SC,
            Diagnostic::error(
                0..0,
                "the scenario defines no sides",
                "a [sides] table: COMMANDER = [\"Formation\", …]",
            )
            .with_help(raw::FORMAT_DOC),
        ),
        Some((span, entries)) => {
            let mut side_of: BTreeMap<FormationId, Range<usize>> = BTreeMap::new();
            for (commander, list) in entries {
                let s = sides.len();
                sides.push(Side {
                    name: commander.get_ref().clone(),
                });
                if commander.get_ref().trim().is_empty() {
                    files.push(
                        SC,
                        Diagnostic::error(commander.span(), "a side needs a commander's name", "a name"),
                    );
                }
                if list.get_ref().is_empty() {
                    files.push(
                        SC,
                        Diagnostic::error(
                            list.span(),
                            format!("side `{}` has no Formation", commander.get_ref()),
                            "one or more Formation names",
                        ),
                    );
                }
                for name in list.get_ref() {
                    let Some(&f) = by_name.get(name.get_ref()) else {
                        files.push(
                            SC,
                            name_help(
                                Diagnostic::error(
                                    name.span(),
                                    format!("unknown Formation `{}`", name.get_ref()),
                                    "a Formation defined under [formations]",
                                ),
                                name.get_ref(),
                                defs.iter().map(|d| d.name.as_str()),
                                "Formations",
                            ),
                        );
                        continue;
                    };
                    if let Some(first) = side_of.get(&f) {
                        let at = files.at(SC, SC, first);
                        let owner = defs[f].side.map_or(String::new(), |o| format!("`{}`", sides[o].name));
                        files.push(
                            SC,
                            Diagnostic::error(
                                name.span(),
                                format!("Formation `{}` is already on side {owner} ({at})", name.get_ref()),
                                "each Formation on exactly one side",
                            ),
                        );
                        continue;
                    }
                    side_of.insert(f, name.span());
                    defs[f].side = Some(s);
                }
            }
            if sides.len() < 2 {
                files.push(
                    SC,
                    Diagnostic::error(
                        span.clone(),
                        format!(
                            "a battle needs two sides or more, and this scenario has {}",
                            sides.len()
                        ),
                        "two or more commanders under [sides]",
                    ),
                );
            }
        }
    }
    for def in defs.iter_mut() {
        if def.side.is_none() {
            def.complete = false;
            if raw_sides.is_some() {
                files.push(
                    SC,
                    Diagnostic::error(
                        def.span.clone(),
                        format!("Formation `{}` is in no side", def.name),
                        "the Formation listed under one commander in [sides]",
                    ),
                );
            }
        }
    }
    sides
}
