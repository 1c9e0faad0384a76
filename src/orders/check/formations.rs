//! `[formations]`: each Formation's members (ships, bases, groups), each
//! listed once; groups not listed fly with their carrier.

use std::collections::BTreeMap;
use std::ops::Range;

use super::files::{Files, name_help};
use super::groups::GroupDef;
use super::records::ShipRef;
use crate::diag::Diagnostic;
use crate::engine::plot::FormationId;
use crate::gzf::{self, Item};
use crate::orders::bases;
use crate::orders::keys::unit_key;
use crate::orders::loaded::Record;
use crate::orders::raw::{self, S};

/// The word for a Fire Control without a target.
pub(super) const INACTIVE: &str = "inactive";

/// Units one Formation may hold: the percentile bands of weapon targeting
/// (fm-readings 10-11) give each Unit at least 1 %.
pub const MAX_FORMATION_UNITS: usize = 100;

/// Units one battle may hold (fleet actions field dozens).
pub const MAX_BATTLE_UNITS: usize = 5_000;

/// A Formation as defined in the scenario, before and while the Battle is built.
pub(super) struct FormationDef {
    pub(super) name: String,
    pub(super) span: Range<usize>,
    pub(super) side: Option<usize>,
    /// Each member, in scenario order (groups not listed follow).
    pub(super) members: Vec<Member>,
    /// Every Unit loaded and a side known: thrust checks can run.
    pub(super) complete: bool,
}

/// A Formation member: a ship (record, item) or a group (`GroupDef` index).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Member {
    Ship(usize, usize),
    Group(usize),
    /// A base (record, item): one Unit per part (`bases::parts`).
    Base(usize, usize),
}

/// The scenario's `[formations]` as listed: each Formation's members
/// (ships, bases, groups), and where each Unit and group is placed.
pub(super) struct Listing {
    pub(super) defs: Vec<FormationDef>,
    pub(super) by_name: BTreeMap<String, FormationId>,
    /// Ships and bases by key: their Formation and where they are listed.
    pub(super) placed: BTreeMap<String, (usize, Range<usize>)>,
    /// Groups (index in the groups found) listed by name.
    pub(super) group_placed: BTreeMap<usize, (usize, Range<usize>)>,
}

/// What the Formation lists name: the ships, bases and groups loaded.
pub(super) struct Roster<'a> {
    pub(super) records: &'a [Record],
    pub(super) ships: &'a BTreeMap<String, ShipRef>,
    pub(super) bases: &'a BTreeMap<String, ShipRef>,
    pub(super) groups: &'a [GroupDef],
    pub(super) group_by_name: &'a BTreeMap<String, usize>,
}

/// Reads `[formations]`: names, sizes, and each member a loaded ship,
/// base or group listed once.
pub(super) fn list_formations(
    files: &mut Files,
    formations: &Option<raw::NameLists>,
    roster: &Roster<'_>,
    gzf_failed: bool,
) -> Listing {
    const SC: usize = 0;
    let mut listing = Listing {
        defs: Vec::new(),
        by_name: BTreeMap::new(),
        placed: BTreeMap::new(),
        group_placed: BTreeMap::new(),
    };
    let Some((span, entries)) = formations else {
        files.push(
            SC,
            Diagnostic::error(
                0..0,
                "the scenario defines no Formations",
                "a [formations] table: NAME = [\"ship\", …]",
            )
            .with_help(raw::FORMAT_DOC),
        );
        return listing;
    };
    let listed: usize = entries.iter().map(|(_, units)| units.get_ref().len()).sum();
    if listed > MAX_BATTLE_UNITS {
        files.push(
            SC,
            Diagnostic::error(
                span.clone(),
                format!("the Formations list {listed} Units; a battle holds at most {MAX_BATTLE_UNITS}"),
                format!("a battle of at most {MAX_BATTLE_UNITS} Units"),
            ),
        );
    }
    for (name, units) in entries {
        let f = listing.defs.len();
        let mut def = formation_def(files, name, units, gzf_failed);
        if !gzf_failed {
            for u in units.get_ref() {
                place_member(files, roster, &mut listing, f, &mut def, u);
            }
        }
        listing.by_name.insert(def.name.clone(), f);
        listing.defs.push(def);
    }
    listing
}

/// One Formation of `[formations]` before its members: its name checked,
/// and its size (at least one Unit, at most `MAX_FORMATION_UNITS`).
fn formation_def(files: &mut Files, name: &S<String>, units: &S<Vec<S<String>>>, gzf_failed: bool) -> FormationDef {
    const SC: usize = 0;
    let mut def = FormationDef {
        name: name.get_ref().clone(),
        span: name.span(),
        side: None,
        members: Vec::new(),
        complete: !gzf_failed,
    };
    if name.get_ref().trim().is_empty() || name.get_ref().eq_ignore_ascii_case(INACTIVE) {
        files.push(
            SC,
            Diagnostic::error(
                name.span(),
                format!("`{}` cannot be a Formation name", name.get_ref()),
                "a name other than `inactive` (the word for a Fire Control without a target)",
            ),
        );
    }
    if units.get_ref().len() > MAX_FORMATION_UNITS {
        files.push(
            SC,
            Diagnostic::error(
                units.span(),
                format!(
                    "Formation `{}` has {} Units; the F&M targeting bands give each Unit at least one percentile, so a Formation holds at most {MAX_FORMATION_UNITS}",
                    name.get_ref(),
                    units.get_ref().len()
                ),
                "split it into Formations of 100 Units or fewer",
            ),
        );
        def.complete = false;
    }
    if units.get_ref().is_empty() {
        files.push(
            SC,
            Diagnostic::error(
                units.span(),
                format!("Formation `{}` has no Units", name.get_ref()),
                "one or more ship names",
            ),
        );
        def.complete = false;
    }
    def
}

/// Places one listed name `u` in Formation `f` (`def`, not yet in
/// `listing`): a group (when no ship has the name), a ship or a base, each
/// listed once; `def` is marked incomplete when it cannot join.
fn place_member(
    files: &mut Files,
    roster: &Roster<'_>,
    listing: &mut Listing,
    f: usize,
    def: &mut FormationDef,
    u: &S<String>,
) {
    let key = unit_key(u.get_ref());
    if !roster.ships.contains_key(&key)
        && let Some(&g) = roster.group_by_name.get(&key)
    {
        if let Some(first) = listing.group_placed.get(&g) {
            already_listed(files, &listing.defs, f, first, u, &roster.groups[g].name);
            def.complete = false;
            return;
        }
        listing.group_placed.insert(g, (f, u.span()));
        def.members.push(Member::Group(g));
        return;
    }
    let Some((ship, member)) = ship_or_base(files, roster, def, u, &key) else {
        return;
    };
    if let Some(first) = listing.placed.get(&key) {
        already_listed(files, &listing.defs, f, first, u, &ship.name);
        def.complete = false;
        return;
    }
    listing.placed.insert(key, (f, u.span()));
    def.members.push(member);
}

/// The loaded ship, or base fam can field, that a Formation lists as `u`
/// (`key`); marks `def` incomplete when there is none.
fn ship_or_base<'a>(
    files: &mut Files,
    roster: &Roster<'a>,
    def: &mut FormationDef,
    u: &S<String>,
    key: &str,
) -> Option<(&'a ShipRef, Member)> {
    const SC: usize = 0;
    match (roster.ships.get(key), roster.bases.get(key)) {
        (Some(s), _) => Some((s, Member::Ship(s.record, s.item))),
        (None, Some(b)) => {
            let Item::Base(base) = &roster.records[b.record].file.items[b.item] else {
                return None;
            };
            if let Some(why) = bases::refusal(base).or_else(|| sector_clash(base, roster.ships)) {
                def.complete = false;
                let d = Diagnostic::error(u.span(), why, "a base whose every part has a hull")
                    .with_help("docs/readings.md O40: a base fights as one Unit per part");
                files.push(SC, d);
                return None;
            }
            Some((b, Member::Base(b.record, b.item)))
        }
        (None, None) => {
            def.complete = false;
            let d = name_help(
                Diagnostic::error(
                    u.span(),
                    format!("no ship named `{}` in the scenario's records", u.get_ref()),
                    "a ship or base name from the GZF files",
                ),
                u.get_ref(),
                roster
                    .ships
                    .values()
                    .chain(roster.bases.values())
                    .map(|s| s.name.as_str()),
                "ships and bases loaded",
            );
            files.push(SC, d);
            None
        }
    }
}

/// Reports `u`, named `name`, listed again in Formation `f` when it is
/// already in the Formation of `first` (`defs` holds those before `f`).
fn already_listed(
    files: &mut Files,
    defs: &[FormationDef],
    f: usize,
    first: &(usize, Range<usize>),
    u: &S<String>,
    name: &str,
) {
    const SC: usize = 0;
    let (other, span) = first;
    let at = files.at(SC, SC, span);
    let other_name = if *other == f {
        "this Formation".to_string()
    } else {
        format!("Formation `{}`", defs[*other].name)
    };
    files.push(
        SC,
        Diagnostic::error(
            u.span(),
            format!("`{name}` is already in {other_name} ({at})"),
            "each Unit in exactly one Formation",
        ),
    );
}

/// Groups not listed fly with their carrier (docs/fighters.md §6): each
/// joins its carrier's Formation; a docked group listed without its
/// carrier, or a group with neither carrier nor Formation, is an error.
pub(super) fn fly_with_carriers(files: &mut Files, records: &[Record], groups: &[GroupDef], listing: &mut Listing) {
    const SC: usize = 0;
    let Listing {
        defs,
        placed,
        group_placed,
        ..
    } = listing;
    let carrier_formation = |c: (usize, usize)| -> Option<usize> {
        let name = match &records[c.0].file.items[c.1] {
            Item::Ship(s) => &s.name,
            Item::Base(b) => &b.name,
            _ => return None,
        };
        placed.get(&unit_key(name)).map(|(f, _)| *f)
    };
    for (g, def) in groups.iter().enumerate() {
        let gunboat = def
            .item
            .and_then(|i| match &records[def.record].file.items[i] {
                Item::FighterGroup(b) => Some(b.gunboat.is_some()),
                _ => None,
            })
            .unwrap_or(false);
        let docked = def.item.is_none()
            || matches!(&records[def.record].file.items[def.item.unwrap_or(0)],
                Item::FighterGroup(b) if b.status.launch == Some(crate::model::Launch::Docked));
        match (group_placed.get(&g), def.carrier.and_then(carrier_formation)) {
            (Some(_), Some(_)) => {}
            (Some((_, span)), None) if docked && !gunboat => files.push(
                SC,
                Diagnostic::error(
                    span.clone(),
                    format!(
                        "`{}` is docked in a carrier that is in no Formation of this scenario",
                        def.name
                    ),
                    "its carrier listed under [formations] too, or a launched group",
                ),
            ),
            (Some(_), None) => {}
            (None, Some(f)) => defs[f].members.push(Member::Group(g)),
            // Listed nowhere, and no carrier of it in this battle: not in
            // the battle, as a ship not listed (readings F29).
            (None, None) => {}
        }
    }
}

/// Looks a Formation up by its exact name, reporting an unknown one.
pub(super) fn formation_ref(
    files: &mut Files,
    file: usize,
    by_name: &BTreeMap<String, FormationId>,
    defs: &[FormationDef],
    name: &S<String>,
) -> Option<FormationId> {
    if let Some(&f) = by_name.get(name.get_ref()) {
        return Some(f);
    }
    let d = Diagnostic::error(
        name.span(),
        format!("unknown Formation `{}`", name.get_ref()),
        "a Formation of the scenario",
    );
    let d = name_help(d, name.get_ref(), defs.iter().map(|x| x.name.as_str()), "Formations");
    files.push(file, d);
    None
}

/// A sector Unit's name (`BASE sector N`) taken by a loaded ship, if one is.
fn sector_clash(base: &gzf::Base, ships: &BTreeMap<String, ShipRef>) -> Option<String> {
    bases::parts(base).into_iter().find_map(|part| {
        let name = bases::part_name(base, part);
        (part.is_some() && ships.contains_key(&unit_key(&name)))
            .then(|| format!("base `{}` would fight as `{name}`, and a ship has that name", base.name))
    })
}
