//! A Volley's `fire` entries: each Unit in the fight and not behind a
//! raised reflex field, its target (a Formation, `inactive`, or a named
//! group), its Fire Control (`fire_control`), and its weapons, listed
//! (`weapons`) or left to the default "all", which is taken once every
//! entry is read.

use std::collections::BTreeMap;
use std::ops::Range;

use super::fire_control::{FireControls, fire_control_order};
use super::lookup::Lookup;
use super::notes::{FireNotes, Notes};
use super::weapons::{Mode, Pending, weapon};
use crate::diag::Diagnostic;
use crate::engine::plot::{FireOrder, FormationId, SystemId, UnitId, VolleyPlot};
use crate::orders::check::files::Files;
use crate::orders::check::formations::INACTIVE;
use crate::orders::raw::{self, Needles, RawFire, S};

/// What the fire entries of one Volley have assigned so far.
#[derive(Default)]
pub(super) struct FireWork<'v> {
    /// Weapons assigned (to a fire entry or `pd`), and where.
    pub(super) assigned: BTreeMap<(UnitId, SystemId), Range<usize>>,
    /// Fire Controls given an order, and fire targets per Unit.
    controls: FireControls,
    /// Entries taking the default "all", resolved once every entry is read.
    pub(super) defaults: Vec<Pending>,
    default_of: BTreeMap<UnitId, Range<usize>>,
    /// Fire orders kept, with their target and `needle` tables, checked
    /// once the default weapons are known.
    pub(super) aimed: Vec<(usize, FormationId, Option<&'v S<Needles>>)>,
}

/// The Formation or group a fire entry names: exactly one of `target` and
/// `group`.
fn fire_target_name<'v>(files: &mut Files, file: usize, entry: &'v S<RawFire>) -> Option<&'v S<String>> {
    match (&entry.get_ref().target, &entry.get_ref().group) {
        (Some(_), Some(g)) => {
            files.push(
                file,
                Diagnostic::error(
                    g.span(),
                    "a fire entry with both `target` and `group`",
                    "target = \"FORMATION\" or group = \"GROUP\"",
                ),
            );
            None
        }
        (None, None) => {
            files.push(
                file,
                Diagnostic::error(
                    entry.span(),
                    "a fire entry without `target`",
                    "target = \"FORMATION\" (or \"inactive\"), or group = \"GROUP\"",
                )
                .with_help(raw::FORMAT_DOC),
            );
            None
        }
        (Some(t), None) => Some(t),
        (None, Some(g)) => Some(g),
    }
}

/// Whether an entry whose Fire Control is inactive lists no weapons and no
/// `needle` table (each reported).
fn inactive_fire(files: &mut Files, file: usize, w: &Option<raw::Numbers>, needle: &Option<S<Needles>>) -> bool {
    let mut ok = true;
    if let Some(w) = w.as_ref().filter(|w| !w.get_ref().is_empty()) {
        files.push(
            file,
            Diagnostic::error(
                w.span(),
                "an inactive Fire Control directs no weapons",
                "a target Formation, or no `weapons`",
            ),
        );
        ok = false;
    }
    if let Some(n) = needle {
        files.push(
            file,
            Diagnostic::error(
                n.span(),
                "an inactive Fire Control aims no needle beams",
                "a target Formation, or no `needle`",
            ),
        );
        ok = false;
    }
    ok
}

/// One fire entry of a Volley: its Unit in the fight and not behind a
/// raised reflex field, its Fire Control (one order each, no more
/// targets than working Fire Controls), its target Formation or group,
/// and its weapons, listed (each checked and assigned once) or left to
/// the default "all" (taken once every entry is read).
#[allow(clippy::too_many_arguments)]
pub(super) fn fire_entry<'v>(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    f: FormationId,
    entry: &'v S<RawFire>,
    raised: &BTreeMap<UnitId, Range<usize>>,
    work: &mut FireWork<'v>,
    out: &mut VolleyPlot,
    notes: &mut Notes,
) {
    let RawFire {
        fc,
        group,
        weapons,
        needle,
        ..
    } = entry.get_ref();
    let Some(u) = fire_unit(lk, files, file, f, entry, raised) else {
        return;
    };
    let Some(target) = fire_target_name(files, file, entry) else {
        return;
    };
    let Some((target_f, aimed_group)) = fire_target(lk, files, file, f, target, group.is_some()) else {
        return;
    };
    // Problems with the Fire Control do not stop the weapons being
    // checked; the order is only kept when everything is right.
    let (s, mut ok) = fire_control_order(
        lk,
        files,
        file,
        u,
        fc,
        &entry.span(),
        &target.span(),
        target_f.is_some(),
        &mut work.controls,
    );
    let mut list: Vec<(SystemId, Range<usize>)> = Vec::new();
    let mut pending = false;
    match (target_f, weapons) {
        (None, w) => ok &= inactive_fire(files, file, w, needle),
        (Some(_), Some(w)) => list = listed_weapons(lk, files, file, u, w, work),
        (Some(_), None) => {
            pending = claim_default(lk, files, file, u, &entry.span(), work);
            ok &= pending;
        }
    }
    let (true, Some(s)) = (ok, s) else { return };
    if pending {
        work.defaults.push(Pending {
            order: out.fire.len(),
            unit: u,
            span: entry.span(),
        });
    }
    if let Some(t) = target_f {
        work.aimed.push((out.fire.len(), t, needle.as_ref()));
    }
    out.fire.push(FireOrder {
        unit: u,
        fire_control: s,
        target: target_f,
        weapons: list.iter().map(|x| x.0).collect(),
        needles: Vec::new(),
        group: aimed_group,
    });
    notes.fire.push(FireNotes {
        explicit: list,
        default: pending.then(|| entry.span()),
    });
}

/// The Unit of a fire entry, if it is in the fight and not behind a
/// reflex field it raises this Volley.
fn fire_unit(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    f: FormationId,
    entry: &S<RawFire>,
    raised: &BTreeMap<UnitId, Range<usize>>,
) -> Option<UnitId> {
    let unit = &entry.get_ref().unit;
    let u = lk.entry_unit(files, file, f, unit, &entry.span())?;
    let uname = &lk.unit(u).name;
    if !lk.unit(u).active() {
        files.push(
            file,
            Diagnostic::error(
                unit.as_ref().map_or(entry.span(), |n| n.span()),
                format!("`{uname}` is out of the fight (destroyed or derelict) and cannot fire"),
                "a Unit in the fight",
            ),
        );
        return None;
    }
    if let Some(at) = raised.get(&u) {
        let at = files.at(file, file, at);
        files.push(
            file,
            Diagnostic::error(
                unit.as_ref().map_or(entry.span(), |n| n.span()),
                format!("`{uname}` raises its reflex field in this Volley ({at}) and may not fire"),
                "no fire order for a ship behind its raised reflex field",
            )
            .with_help("a ship with its reflex field up may not fire (FTC §7.25, reading O41)"),
        );
        return None;
    }
    Some(u)
}

/// What a fire entry aims at: a Formation of another side (a friendly
/// one with a warning), `inactive` (`None`), or a named group (its
/// Formation, and the group). `None` when it cannot be aimed.
fn fire_target(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    f: FormationId,
    target: &S<String>,
    is_group: bool,
) -> Option<(Option<FormationId>, Option<UnitId>)> {
    let target_f = if is_group {
        let g = fire_group(lk, files, file, f, target)?;
        return Some((Some(lk.unit(g).formation), Some(g)));
    } else if target.get_ref().eq_ignore_ascii_case(INACTIVE) {
        None
    } else {
        match lk.formation_target(files, file, f, target, "fire on") {
            Some(t) if lk.craft_formation(t) => {
                files.push(
                    file,
                    Diagnostic::error(
                        target.span(),
                        format!(
                            "Formation `{}` holds only small craft, which take no share of fire at a Formation",
                            lk.defs[t].name
                        ),
                        "group = \"GROUP\": a Fire Control engages one named group",
                    )
                    .with_help("docs/fighters.md §3.7 (reading F1)"),
                );
                return None;
            }
            Some(t) => {
                if lk.battle.formations[t].side == lk.battle.formations[f].side && lk.defs[t].side.is_some() {
                    files.push(
                        file,
                        Diagnostic::warning(
                            target.span(),
                            format!("`{}` is a Formation of the same side", lk.defs[t].name),
                            "friendly fire",
                        ),
                    );
                }
                Some(t)
            }
            None => return None,
        }
    };
    Some((target_f, None))
}

/// `fire.group`: the group a Fire Control engages; its Formation is the target.
fn fire_group(lk: &Lookup<'_>, files: &mut Files, file: usize, f: FormationId, name: &S<String>) -> Option<UnitId> {
    let g = lk.group(files, file, name)?;
    let unit = lk.unit(g);
    if unit.side == lk.battle.formations[f].side {
        files.push(
            file,
            Diagnostic::error(
                name.span(),
                format!("`{}` is a friendly group", unit.name),
                "an enemy fighter group or gunboat squadron",
            ),
        );
        return None;
    }
    Some(g)
}

/// A fire entry's listed weapons, each checked and assigned to it, with
/// where; warns when the list is empty.
fn listed_weapons(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    u: UnitId,
    w: &raw::Numbers,
    work: &mut FireWork<'_>,
) -> Vec<(SystemId, Range<usize>)> {
    let mut list = Vec::new();
    for n in w.get_ref() {
        if let Some(x) = weapon(lk, files, file, u, n, &mut work.assigned, Mode::Fire) {
            list.push((x, n.span()));
        }
    }
    if w.get_ref().is_empty() {
        files.push(
            file,
            Diagnostic::warning(
                w.span(),
                format!("this Fire Control of `{}` has a target but no weapons", lk.unit(u).name),
                "weapon system numbers",
            ),
        );
    }
    list
}

/// Lets the fire entry at `entry` take Unit `u`'s default weapons,
/// unless another of its entries already does (reported).
fn claim_default(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    u: UnitId,
    entry: &Range<usize>,
    work: &mut FireWork<'_>,
) -> bool {
    let Some(first) = work.default_of.get(&u) else {
        work.default_of.insert(u, entry.clone());
        return true;
    };
    let at = files.at(file, file, first);
    files.push(
        file,
        Diagnostic::error(
            entry.clone(),
            format!(
                "two Fire Controls of `{}` take the default weapons (all not assigned elsewhere; the other on {at})",
                lk.unit(u).name
            ),
            "weapons = [SYSTEM NUMBERS] on all but one",
        ),
    );
    false
}
