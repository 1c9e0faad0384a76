//! Several Units of one ship design: `{ ship = "NAME", count = N }` in a
//! `[formations]` list (docs/orders.md, "Several ships of one design").
//!
//! Each of the N is a Unit of its own, with its own damage, made before
//! anything else reads the records: the design's record gains a copy of the
//! ship block for every Unit after the first (and of the Fighter-Group
//! blocks that name it as their carrier), under the names below, so the
//! battle, the reports and the next Exchange's records see ordinary ships.
//!
//! Names: the first Unit keeps the design's name, unless `[formations]`
//! lists that name on its own or an earlier count took it; the others are
//! `NAME 2`, `NAME 3`, … in file order, skipping any name a loaded record
//! or the list already uses (the way `fam generate` names a design drawn
//! twice). Copied groups are numbered the same way from their own names.

use std::collections::{BTreeMap, BTreeSet};

use super::keys::unit_key as key;
use super::loaded::Record;
use super::raw::{MemberLists, NameLists, RawCount, RawMember};
use crate::diag::Diagnostic;
use crate::model::{FighterGroup, Item, Ship};
use toml::Spanned;

/// Names in use, by [`key`], and the next number to try after each name
/// numbered before (so N copies cost N tries, not N²).
struct Taken(BTreeSet<String>, BTreeMap<String, u64>);

impl Taken {
    /// `name` itself when `own` (a design's own name: loaded, and its
    /// count's to take), else `name 2`, `name 3` … the first free; taken
    /// from then on.
    fn take(&mut self, name: &str, own: bool) -> String {
        if own {
            self.0.insert(key(name));
            return name.to_string();
        }
        let next = self.1.entry(key(name)).or_insert(2);
        loop {
            let candidate = format!("{name} {next}");
            *next += 1;
            if self.0.insert(key(&candidate)) {
                return candidate;
            }
        }
    }
}

/// The `[formations]` lists with every count written out as names, the
/// records holding a block for each of them, and the problems (all in the
/// scenario file). `limit`: the most Units one Formation holds, and
/// `battle_limit` a battle (a count above either is refused before anything
/// is copied). With `records_failed` nothing is copied (no battle is built).
pub(super) fn expand(
    formations: Option<MemberLists>,
    records: &mut [Record],
    spans: &mut [Vec<crate::gzf::parse::FieldSpans>],
    (limit, battle_limit): (usize, usize),
    records_failed: bool,
) -> (Option<NameLists>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let Some((table, entries)) = formations else {
        return (None, diags);
    };
    // Every name a record or the list already uses; a design's own name is
    // free for its count's first Unit unless the list names it itself.
    let mut loaded = Taken(loaded_names(records), BTreeMap::new());
    let listed: BTreeSet<String> = entries
        .iter()
        .flat_map(|(_, members)| members.get_ref().iter())
        .filter_map(|m| match m.get_ref() {
            RawMember::Name(n) => Some(key(n)),
            RawMember::Count(_) => None,
        })
        .collect();
    let mut own_used: BTreeSet<String> = listed.clone();
    let mut out = Vec::with_capacity(entries.len());
    let (mut total, mut over) = (0usize, false);
    for (name, members) in entries {
        let span = members.span();
        let mut names = Vec::new();
        for m in members.into_inner() {
            let at = m.span();
            match m.into_inner() {
                RawMember::Name(n) => {
                    total += 1;
                    names.push(Spanned::new(at, n));
                }
                RawMember::Count(c) => {
                    // A count refused is checked as one Unit for the rest
                    // (the error already stops the battle).
                    let mut n = checked_count(&c, limit, &mut diags).unwrap_or(1);
                    // Copies stop at the battle's size, so a long list of
                    // counts costs no more than the Units it may hold.
                    if total + n > battle_limit {
                        if !over {
                            diags.push(Diagnostic::error(
                                c.count.span(),
                                format!("with this count the Formations list more than {battle_limit} Units, the most a battle holds"),
                                format!("a battle of at most {battle_limit} Units"),
                            ));
                        }
                        over = true;
                        n = 1;
                    }
                    total += n;
                    let design = c.ship.get_ref();
                    let found = (!records_failed).then(|| find_ship(records, design)).flatten();
                    let Some((r, i)) = found else {
                        if let Some(what) = (!records_failed).then(|| other_kind(records, design)).flatten() {
                            diags.push(
                                Diagnostic::error(
                                    c.ship.span(),
                                    format!("`{design}` is {what}: a count is for ship designs"),
                                    format!("\"{design}\" listed by name"),
                                )
                                .with_help("list each base or group by its own name (docs/orders.md)"),
                            );
                        } else {
                            // Reported where the name is looked up, with suggestions.
                            names.push(Spanned::new(c.ship.span(), design.clone()));
                        }
                        continue;
                    };
                    let own = own_used.insert(key(design));
                    for k in 0..n {
                        let unit = loaded.take(design, own && k == 0);
                        if k > 0 || !own {
                            copy_ship(records, spans, (r, i), &unit, &mut loaded);
                        }
                        names.push(Spanned::new(at.clone(), unit));
                    }
                }
            }
        }
        out.push((name, Spanned::new(span, names)));
    }
    (Some((table, out)), diags)
}

/// The count, when it is a whole number from 1 to `limit`.
fn checked_count(c: &RawCount, limit: usize, diags: &mut Vec<Diagnostic>) -> Option<usize> {
    let n = *c.count.get_ref();
    match usize::try_from(n) {
        Ok(n) if (1..=limit).contains(&n) => Some(n),
        _ => {
            diags.push(Diagnostic::error(
                c.count.span(),
                format!("a count of {n}: a Formation fields 1 to {limit} Units"),
                format!("a whole number from 1 to {limit}"),
            ));
            None
        }
    }
}

/// Every ship, base, group and base sector name the records hold.
fn loaded_names(records: &[Record]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for item in records.iter().flat_map(|r| r.file.items.iter()) {
        match item {
            Item::Ship(s) => out.insert(key(&s.name)),
            Item::Base(b) => out.insert(key(&b.name)),
            Item::FighterGroup(g) => out.insert(key(&g.id)),
            _ => false,
        };
    }
    out
}

/// The record and block of the ship named `design`.
fn find_ship(records: &[Record], design: &str) -> Option<(usize, usize)> {
    let k = key(design);
    records.iter().enumerate().find_map(|(r, rec)| {
        rec.file
            .items
            .iter()
            .position(|item| matches!(item, Item::Ship(s) if key(&s.name) == k))
            .map(|i| (r, i))
    })
}

/// What `name` is when it is loaded but not a ship: "a base", "a fighter
/// group".
fn other_kind(records: &[Record], name: &str) -> Option<&'static str> {
    let k = key(name);
    records
        .iter()
        .flat_map(|r| r.file.items.iter())
        .find_map(|item| match item {
            Item::Base(b) if key(&b.name) == k => Some("a base"),
            Item::FighterGroup(g) if key(&g.id) == k => Some("a fighter group"),
            _ => None,
        })
}

/// Appends to record `r` a copy of its ship block `i` named `unit`, and to
/// each record a copy of its Fighter-Group blocks that name that ship as
/// their carrier (or screen it), renamed and pointing at the copy. A copy's
/// field spans are its original's, so a problem in the design is shown in
/// the design's text.
fn copy_ship(
    records: &mut [Record],
    spans: &mut [Vec<crate::gzf::parse::FieldSpans>],
    (r, i): (usize, usize),
    unit: &str,
    taken: &mut Taken,
) {
    let Item::Ship(design) = &records[r].file.items[i] else {
        return;
    };
    let design_key = key(&design.name);
    let names_it = |n: &Option<String>| n.as_deref().is_some_and(|n| key(n) == design_key);
    let retarget = |n: &Option<String>| if names_it(n) { Some(unit.to_string()) } else { n.clone() };
    // (record, block copied, the copy)
    let mut copies = vec![(
        r,
        i,
        Item::Ship(Ship {
            name: unit.to_string(),
            ..design.clone()
        }),
    )];
    for (rec, record) in records.iter().enumerate() {
        for (j, item) in record.file.items.iter().enumerate() {
            match item {
                Item::FighterGroup(g) if names_it(&g.carrier) || names_it(&g.screening) => {
                    let group = FighterGroup {
                        id: taken.take(&g.id, false),
                        carrier: retarget(&g.carrier),
                        screening: retarget(&g.screening),
                        ..g.clone()
                    };
                    copies.push((rec, j, Item::FighterGroup(group)));
                }
                _ => {}
            }
        }
    }
    for (rec, from, item) in copies {
        let from_span = spans.get(rec).and_then(|s| s.get(from)).cloned().unwrap_or_default();
        records[rec].file.items.push(item);
        if let Some(s) = spans.get_mut(rec) {
            s.push(from_span);
        }
    }
}
