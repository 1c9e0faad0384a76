//! The pure core: scenario and orders texts plus GZF records → a validated
//! [`Battle`] and [`ExchangePlot`], or every problem found.
//!
//! Checks run as far as they can: a wrong value is reported and left out,
//! and later checks that would only repeat it (thrust sums of a Formation
//! whose Units did not load, say) are skipped.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

#[path = "bases.rs"]
mod bases;
#[path = "craft.rs"]
mod craft;
pub(super) use craft::{part_name as carrier_part_name, part_systems as carrier_part_systems};

use super::keys::unit_key;
use super::raw::{self, Names, Needles, RawFire, RawPdEvasionReroll, RawPlot, RawScenario, RawVolley, S, Word};
use super::{Loaded, Origin, Record, Report};
use crate::diag::{Diagnostic, SourceFile};
use crate::engine::plot::{
    ExchangePlot, FireOrder, FormationId, FormationPlot, Maneuver, ManeuverOrder, NeedleOrder, PdOrder, SystemId,
    UnitId, VolleyPlot,
};
use crate::engine::rules::{PdEvasionReroll, RerollDepth, Rules};
use crate::engine::state::{
    Battle, Formation, MAX_RANGE_MU, RangeTable, Reserve, Side, Sys, SysState, Unit, is_one_shot,
};
use crate::engine::victory::{Trigger, Victory};
use crate::gzf::{self, Item, ParseOptions, SystemKind};
use crate::model::Warhead;

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

/// Starting range between Formations when the scenario gives none (F&M
/// "Starting Positions").
pub const DEFAULT_START_RANGE: u32 = 60;

/// The word for a Fire Control without a target.
const INACTIVE: &str = "inactive";

/// Units one Formation may hold: the percentile bands of weapon targeting
/// (fm-readings 10-11) give each Unit at least 1 %.
pub const MAX_FORMATION_UNITS: usize = 100;

/// Units one battle may hold (fleet actions field dozens).
pub const MAX_BATTLE_UNITS: usize = 5_000;

/// The highest Exchange number a scenario may start at (`exchange = N`):
/// with up to 1000 more played, every Exchange number fits.
pub const MAX_EXCHANGE_NUMBER: u32 = 1_000_000;

/// GZF files one scenario may load.
pub const MAX_RECORD_FILES: usize = 64;

/// `d` with help for a name that is none of `candidates`: the one it
/// misspells, or the candidates when they are few (`crate::suggest::help`).
fn name_help<'a>(d: Diagnostic, word: &str, candidates: impl IntoIterator<Item = &'a str>, what: &str) -> Diagnostic {
    let candidates: Vec<&str> = candidates.into_iter().collect();
    match crate::suggest::help(word, &candidates, what) {
        Some(help) => d.with_help(help),
        None => d,
    }
}

/// Diagnostics per file: 0 is the scenario, then the orders files, then the
/// GZF records as they are loaded.
struct Files {
    list: Vec<(SourceFile, Vec<Diagnostic>)>,
    /// A record could not be read or has errors, so no ship joined the
    /// battle: a name not found among its Units is no news.
    records_failed: bool,
}

impl Files {
    fn push(&mut self, file: usize, d: Diagnostic) {
        self.list[file].1.push(d);
    }

    /// Reports a Unit name not found in the battle, unless the records
    /// failed (the reason is reported with them: a missing file is one
    /// error, not one per name in it).
    fn push_unknown_unit(&mut self, file: usize, d: Diagnostic) {
        if !self.records_failed {
            self.push(file, d);
        }
    }

    fn line(&self, file: usize, span: &Range<usize>) -> usize {
        self.list[file].0.line_col(span.start).0
    }

    /// "line 12" or "orders/bob.toml line 12" when `file` differs from `here`.
    fn at(&self, here: usize, file: usize, span: &Range<usize>) -> String {
        if here == file {
            format!("line {}", self.line(file, span))
        } else {
            format!("{} line {}", self.list[file].0.name, self.line(file, span))
        }
    }
}

/// A Formation as defined in the scenario, before and while the Battle is built.
struct FormationDef {
    name: String,
    span: Range<usize>,
    side: Option<usize>,
    /// Each member, in scenario order (groups not listed follow).
    members: Vec<Member>,
    /// Every Unit loaded and a side known: thrust checks can run.
    complete: bool,
}

/// A Formation member: a ship (record, item) or a group (`GroupDef` index).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Member {
    Ship(usize, usize),
    Group(usize),
    /// A base (record, item): one Unit per part (`bases::parts`).
    Base(usize, usize),
}

struct ShipRef {
    record: usize,
    item: usize,
    name: String,
}

/// Builds the battle and plot. See [`super::build`].
pub(crate) fn build(
    scenario: SourceFile,
    orders: Vec<(SourceFile, Vec<Diagnostic>)>,
    read_gzf: &mut dyn FnMut(&str) -> Result<SourceFile, String>,
    options: &ParseOptions,
) -> Result<Loaded, Vec<Report>> {
    let mut files = Files {
        list: vec![(scenario, Vec::new())],
        records_failed: false,
    };
    files.list.extend(orders);
    let n_orders = files.list.len() - 1;

    let mut diags = Vec::new();
    let mut raw_scenario = raw::scenario(&files.list[0].0.text, &mut diags);
    files.list[0].1.extend(diags);
    let mut raw_orders = Vec::new();
    for i in 1..=n_orders {
        let mut diags = Vec::new();
        let r = raw::orders(&files.list[i].0.text, &mut diags);
        files.list[i].1.extend(diags);
        raw_orders.push(r);
    }

    // Standing orders are checked once the battle is known.
    let scenario_doctrine = raw_scenario
        .as_mut()
        .map(|r| std::mem::take(&mut r.doctrine))
        .unwrap_or_default();
    let orders_doctrine: Vec<OrdersDoctrine> = raw_orders
        .iter_mut()
        .enumerate()
        .filter_map(|(i, r)| {
            r.as_mut()
                .map(|r| (i + 1, r.commander.clone(), std::mem::take(&mut r.doctrine)))
        })
        .collect();
    let scenario_mix = raw_scenario
        .as_mut()
        .map(|r| std::mem::take(&mut r.mix))
        .unwrap_or_default();
    let loaded = raw_scenario
        .map(|raw| assemble(&mut files, raw, raw_orders, read_gzf, options))
        .map(|mut l| {
            doctrines(&mut files, &mut l, scenario_doctrine, orders_doctrine);
            let mut diags = Vec::new();
            l.mixes = super::mix::resolve(scenario_mix, &l.battle, &mut diags);
            for d in diags {
                files.push(0, d);
            }
            l
        });
    let failed = files.list.iter().any(|(_, d)| d.iter().any(Diagnostic::is_error));
    let mut reports: Vec<Report> = files
        .list
        .into_iter()
        .filter(|(_, d)| !d.is_empty())
        .map(|(s, mut d)| {
            d.sort_by_key(|x| (x.span.start, x.span.end));
            (s, d)
        })
        .collect();
    match loaded {
        Some(mut l) if !failed => {
            l.warnings = std::mem::take(&mut reports);
            Ok(l)
        }
        _ => Err(reports),
    }
}

/// The scenario's GZF files, read and parsed.
struct Records {
    records: Vec<Record>,
    /// Where the scenario names each file.
    spans: Vec<Range<usize>>,
    /// Per record: its index in `files`.
    files: Vec<usize>,
    /// Per record: its blocks' field spans.
    fields: Vec<Vec<crate::gzf::parse::FieldSpans>>,
    /// A file missing, unreadable or with errors (no battle can be built).
    failed: bool,
}

/// Reads and parses the files of the scenario's `gzf` list: each once, at
/// most [`MAX_RECORD_FILES`], every problem at its place.
fn load_records(
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
fn name_units(
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

/// The scenario's `[formations]` as listed: each Formation's members
/// (ships, bases, groups), and where each Unit and group is placed.
struct Listing {
    defs: Vec<FormationDef>,
    by_name: BTreeMap<String, FormationId>,
    /// Ships and bases by key: their Formation and where they are listed.
    placed: BTreeMap<String, (usize, Range<usize>)>,
    /// Groups (index in the groups found) listed by name.
    group_placed: BTreeMap<usize, (usize, Range<usize>)>,
}

/// What the Formation lists name: the ships, bases and groups loaded.
struct Roster<'a> {
    records: &'a [Record],
    ships: &'a BTreeMap<String, ShipRef>,
    bases: &'a BTreeMap<String, ShipRef>,
    groups: &'a [craft::GroupDef],
    group_by_name: &'a BTreeMap<String, usize>,
}

/// Reads `[formations]`: names, sizes, and each member a loaded ship,
/// base or group listed once.
fn list_formations(
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
fn fly_with_carriers(files: &mut Files, records: &[Record], groups: &[craft::GroupDef], listing: &mut Listing) {
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

/// Reads `[sides]`: each commander's Formations, every Formation on
/// exactly one side, at least two sides.
fn list_sides(
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

/// The `[rules]` switches, each left out at its default.
fn rules_of(raw_rules: &Option<raw::RawRules>) -> Rules {
    match raw_rules {
        None => Rules::default(),
        Some(r) => {
            let d = Rules::default();
            Rules {
                reactor_blast: r.reactor_blast.unwrap_or(d.reactor_blast),
                repair_permanent_bridge: r.repair_permanent_bridge.unwrap_or(d.repair_permanent_bridge),
                double_drive_check: r.double_drive_check.unwrap_or(d.double_drive_check),
                needle_fb1: r.needle_fb1.unwrap_or(d.needle_fb1),
                strike_colours: r.strike_colours.unwrap_or(d.strike_colours),
                pilot_quality: craft::pilot_rule(r.pilot_quality),
                fighter_evasion_drm: r.fighter_evasion_drm.unwrap_or(d.fighter_evasion_drm),
                pd_evasion_reroll: match r.pd_evasion_reroll {
                    None => d.pd_evasion_reroll,
                    Some(RawPdEvasionReroll::AnyMiss) => PdEvasionReroll::AnyMiss,
                    Some(RawPdEvasionReroll::OncePerDie) => PdEvasionReroll::OncePerDie,
                },
                needle_six_scores: r.needle_six_scores.unwrap_or(d.needle_six_scores),
                plasma_bolt_formation: r.plasma_bolt_formation.unwrap_or(d.plasma_bolt_formation),
                wave_gun_formation: r.wave_gun_formation.unwrap_or(d.wave_gun_formation),
                nova_cannon_formation: r.nova_cannon_formation.unwrap_or(d.nova_cannon_formation),
                vapour_shroud_own_fire: r.vapour_shroud_own_fire.unwrap_or(d.vapour_shroud_own_fire),
                antimatter_pd_heavy: r.antimatter_pd_heavy.unwrap_or(d.antimatter_pd_heavy),
                reroll_depth: match r.reroll_depth {
                    None => d.reroll_depth,
                    Some(raw::RawRerollDepth::PerGeneration) => RerollDepth::PerGeneration,
                    Some(raw::RawRerollDepth::NextLayer) => RerollDepth::NextLayer,
                },
                emp_advanced_screens: r.emp_advanced_screens.unwrap_or(d.emp_advanced_screens),
                ..d
            }
        }
    }
}

/// The range table: `start_range` between every pair, then each
/// `[[range]]` entry (two different Formations, one entry a pair).
fn range_table(
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

/// The scenario's `seed`: an integer, or the digits of one above 2^63 − 1.
fn seed_of(files: &mut Files, seed: &Option<S<raw::RawSeed>>) -> Option<u64> {
    const SC: usize = 0;
    seed.as_ref().and_then(|s| {
        let (value, message) = match s.get_ref() {
            raw::RawSeed::Integer(v) => (u64::try_from(*v).ok(), "a seed cannot be negative"),
            raw::RawSeed::Digits(d) => (
                d.parse::<u64>().ok().filter(|_| d.bytes().all(|b| b.is_ascii_digit())),
                "a seed written as a string holds only the digits of a whole number up to 18446744073709551615",
            ),
        };
        if value.is_none() {
            files.push(
                SC,
                Diagnostic::error(
                    s.span(),
                    message,
                    "a whole number from 0 to 9223372036854775807, or its digits in quotes up to 18446744073709551615",
                ),
            );
        }
        value
    })
}

/// The scenario's `exchange` number (1 when left out).
fn exchange_of(files: &mut Files, exchange: &Option<S<i64>>) -> u32 {
    const SC: usize = 0;
    match exchange {
        None => 1,
        Some(e) => match u32::try_from(*e.get_ref()) {
            Ok(n) if (1..=MAX_EXCHANGE_NUMBER).contains(&n) => n,
            _ => {
                let message = if *e.get_ref() < 1 {
                    "Exchanges are numbered from 1".to_string()
                } else {
                    format!(
                        "Exchange {} is beyond the last fam numbers ({MAX_EXCHANGE_NUMBER})",
                        e.get_ref()
                    )
                };
                files.push(
                    SC,
                    Diagnostic::error(
                        e.span(),
                        message,
                        format!("a whole number from 1 to {MAX_EXCHANGE_NUMBER}"),
                    ),
                );
                1
            }
        },
    }
}

/// The Units and Formations of the battle: every ship and base part
/// first, in Formation order, then every group (so a scenario's ships keep
/// their Unit numbers when its carriers' bays bring groups in), each group
/// linked to its carrier's Unit and bay. Returns them with each Unit's
/// origin in the records.
fn build_units(
    files: &mut Files,
    records: &[Record],
    gzf_spans: &[Vec<crate::gzf::parse::FieldSpans>],
    rules: &Rules,
    defs: &[FormationDef],
    groups: &[craft::GroupDef],
) -> (Vec<Unit>, Vec<Origin>, Vec<Formation>) {
    let mut units: Vec<Unit> = Vec::new();
    let mut origins: Vec<Origin> = Vec::new();
    let mut formations: Vec<Formation> = Vec::new();
    let mut group_units: Vec<(UnitId, usize)> = Vec::new();
    let mut ids: Vec<Vec<Option<UnitId>>> = Vec::new();
    for (f, def) in defs.iter().enumerate() {
        let side = def.side.unwrap_or(0);
        let mut list = Vec::new();
        for &m in &def.members {
            let profile = |r: usize| records[r].file.profile;
            match m {
                Member::Group(_) => list.push(None),
                Member::Ship(record, item) => {
                    let Item::Ship(ship) = &records[record].file.items[item] else {
                        continue;
                    };
                    list.push(Some(units.len()));
                    units.push(Unit::from_ship(ship, profile(record), side, f));
                    origins.push(Origin {
                        record,
                        item,
                        sector: None,
                    });
                }
                Member::Base(record, item) => {
                    let Item::Base(base) = &records[record].file.items[item] else {
                        continue;
                    };
                    for part in bases::parts(base) {
                        list.push(Some(units.len()));
                        units.push(Unit::from_ship(&bases::view(base, part), profile(record), side, f));
                        origins.push(Origin {
                            record,
                            item,
                            sector: part,
                        });
                    }
                }
            }
        }
        ids.push(list);
    }
    for (f, def) in defs.iter().enumerate() {
        let side = def.side.unwrap_or(0);
        let mut k = 0;
        for &m in &def.members {
            if let Member::Group(g) = m {
                let gd = &groups[g];
                ids[f][k] = Some(units.len());
                group_units.push((units.len(), g));
                units.push(craft::group_unit(files, gd, records, gzf_spans, rules, side, f));
                // A bay group's origin is its carrier's block (a base's
                // part: the sector).
                let item = gd.item.or(gd.carrier.map(|c| c.1)).unwrap_or(0);
                origins.push(Origin {
                    record: gd.record,
                    item,
                    sector: if gd.item.is_none() { gd.part } else { None },
                });
            }
            k += match m {
                Member::Group(_) => 1,
                Member::Ship(r, i) => usize::from(matches!(records[r].file.items[i], Item::Ship(_))),
                Member::Base(r, i) => match &records[r].file.items[i] {
                    Item::Base(b) => bases::parts(b).len(),
                    _ => 0,
                },
            };
        }
        formations.push(Formation {
            name: def.name.clone(),
            side,
            units: ids[f].iter().flatten().copied().collect(),
            reserve: Default::default(),
        });
    }
    // Link each group to its carrier's Unit and bay.
    for (u, g) in group_units {
        let (Some(c), Some(bay)) = (groups[g].carrier, groups[g].bay) else {
            continue;
        };
        let carrier = (0..units.len()).find(|&x| {
            !units[x].is_craft()
                && origins[x]
                    == Origin {
                        record: c.0,
                        item: c.1,
                        sector: groups[g].part,
                    }
        });
        if let (Some(cu), Some(craft)) = (carrier, units[u].craft.as_mut()) {
            craft.carrier = Some((cu, bay));
        }
    }
    (units, origins, formations)
}

/// Where plots come from: the scenario's own `[[plot]]` entries, then each
/// orders file's, with the commander the file names (`None`: the owner of
/// its first plot) and whether it named one.
type PlotSource = (usize, Vec<RawPlot>, Option<usize>, bool);

/// Per Formation: the file and place its plot was written, if any.
type PlottedIn = Vec<Option<(usize, Range<usize>)>>;

/// The plot sources, each orders file's `commander` checked against the
/// scenario's sides.
fn plot_sources(
    files: &mut Files,
    battle: &Battle,
    plots: Vec<RawPlot>,
    raw_orders: Vec<Option<raw::RawOrders>>,
) -> Vec<PlotSource> {
    const SC: usize = 0;
    let mut sources: Vec<PlotSource> = vec![(SC, plots, None, false)];
    for (i, ro) in raw_orders.into_iter().enumerate() {
        let file = i + 1;
        let Some(ro) = ro else { continue };
        let mut owner = None;
        if let Some(c) = &ro.commander {
            match battle.sides.iter().position(|s| &s.name == c.get_ref()) {
                Some(s) => owner = Some(s),
                None => files.push(
                    file,
                    name_help(
                        Diagnostic::error(
                            c.span(),
                            format!("no commander named `{}` in the scenario", c.get_ref()),
                            "a commander listed under [sides]",
                        ),
                        c.get_ref(),
                        battle.sides.iter().map(|s| s.name.as_str()),
                        "commanders",
                    ),
                ),
            }
        }
        let explicit = ro.commander.is_some();
        sources.push((file, ro.plots, owner, explicit));
    }
    sources
}

impl Cx<'_> {
    /// Every Formation's plot from `sources`: one per Formation in the
    /// fight, by its own commander's file, of one Volley or three, each
    /// Volley checked, ammunition over the Exchange, then the small craft
    /// over the Exchange. Returns the plots and where each was written.
    fn plots(&self, files: &mut Files, sources: Vec<PlotSource>) -> (ExchangePlot, PlottedIn) {
        const SC: usize = 0;
        let (battle, defs, by_name, cx) = (self.battle, self.defs, self.by_name, self);
        let mut plot = ExchangePlot {
            formations: vec![None; defs.len()],
        };
        let mut plotted_in: PlottedIn = vec![None; defs.len()];
        let mut all_notes: Vec<Option<(usize, [Notes; 3])>> = vec![None; defs.len()];
        for (file, plots, mut owner, explicit) in sources {
            let mut first_plot: Option<(FormationId, Range<usize>)> = None;
            for p in plots {
                let Some(f) = formation_ref(files, file, by_name, defs, &p.formation) else {
                    continue;
                };
                if battle.formations[f].reserve != Reserve::InCombat {
                    files.push(
                        file,
                        Diagnostic::error(
                            p.formation.span(),
                            format!(
                                "Formation `{}` is {} this Exchange: it has no plot",
                                defs[f].name,
                                if battle.formations[f].reserve == Reserve::Entering {
                                    "entering combat from the Reserve"
                                } else {
                                    "in the Reserve"
                                }
                            ),
                            "plots only for Formations in the fight",
                        )
                        .with_help(
                            "list it under [reserves] enter to bring it back; it arrives at 60 MU when the Exchange ends",
                        ),
                    );
                    continue;
                }
                if let Some((other, span)) = &plotted_in[f] {
                    let at = files.at(file, *other, span);
                    files.push(
                        file,
                        Diagnostic::error(
                            p.formation.span(),
                            format!("Formation `{}` is already plotted ({at})", defs[f].name),
                            "one plot per Formation",
                        ),
                    );
                    continue;
                }
                if file != SC
                    && let Some(side) = defs[f].side
                {
                    match owner {
                        None => {
                            owner = Some(side);
                            first_plot = Some((f, p.formation.span()));
                        }
                        Some(o) if o != side => {
                            let msg = if explicit {
                                format!(
                                    "Formation `{}` belongs to `{}`, and this orders file is `{}`'s",
                                    defs[f].name, battle.sides[side].name, battle.sides[o].name
                                )
                            } else {
                                let (g, span) = first_plot.clone().unwrap_or((f, 0..0));
                                format!(
                                    "Formation `{}` belongs to `{}`, but this file also plots `{}` of `{}` ({}): one orders file holds one commander's plots",
                                    defs[f].name,
                                    battle.sides[side].name,
                                    defs[g].name,
                                    battle.sides[o].name,
                                    files.at(file, file, &span)
                                )
                            };
                            files.push(
                                file,
                                Diagnostic::error(p.formation.span(), msg, "a Formation of this commander"),
                            );
                            continue;
                        }
                        Some(_) => {}
                    }
                }
                plotted_in[f] = Some((file, p.formation.span()));
                let n = p.volleys.len();
                if n != 1 && n != 3 {
                    files.push(
                        file,
                        Diagnostic::error(
                            p.span.clone(),
                            format!("the plot of `{}` has {n} Volleys", defs[f].name),
                            "one Volley entry (used for all three Volleys) or three",
                        ),
                    );
                }
                let mut built = Vec::new();
                for v in p.volleys.iter().flatten() {
                    built.push(cx.volley(files, file, f, v));
                }
                if (n == 1 || n == 3) && built.len() == n {
                    let (volleys, notes): (Vec<_>, Vec<_>) = if n == 1 {
                        std::iter::repeat_n(built.pop().unwrap_or_default(), 3).unzip()
                    } else {
                        built.into_iter().unzip()
                    };
                    if let (Ok(mut volleys), Ok(notes)) =
                        (<[VolleyPlot; 3]>::try_from(volleys), <[Notes; 3]>::try_from(notes))
                    {
                        // Ammunition is counted over the whole Exchange.
                        cx.ammunition(files, file, &mut volleys, &notes);
                        plot.formations[f] = Some(FormationPlot { volleys });
                        all_notes[f] = Some((file, notes));
                    }
                }
            }
        }
        cx.exchange_craft(files, &mut plot.formations, &all_notes);
        (plot, plotted_in)
    }
}

fn assemble(
    files: &mut Files,
    raw: RawScenario,
    raw_orders: Vec<Option<raw::RawOrders>>,
    read_gzf: &mut dyn FnMut(&str) -> Result<SourceFile, String>,
    options: &ParseOptions,
) -> Loaded {
    const SC: usize = 0;

    let Records {
        mut records,
        spans: record_spans,
        files: record_files,
        fields: mut gzf_spans,
        failed: gzf_failed,
    } = load_records(files, &raw.gzf, read_gzf, options);
    files.records_failed = gzf_failed;
    // `{ ship = …, count = N }`: a block for each Unit before anything reads
    // the records.
    let (formations, problems) = super::counts::expand(
        raw.formations,
        &mut records,
        &mut gzf_spans,
        (MAX_FORMATION_UNITS, MAX_BATTLE_UNITS),
        gzf_failed,
    );
    for d in problems {
        files.push(SC, d);
    }

    let (ships, bases) = name_units(files, &records, &record_spans);

    // Fighter groups and gunboat squadrons (docs/fighters.md §7).
    let groups = if gzf_failed {
        Vec::new()
    } else {
        craft::discover(files, &records, &record_files, &gzf_spans, &ships, &bases)
    };
    let group_by_name: BTreeMap<String, usize> =
        groups.iter().enumerate().map(|(i, g)| (unit_key(&g.name), i)).collect();

    let roster = Roster {
        records: &records,
        ships: &ships,
        bases: &bases,
        groups: &groups,
        group_by_name: &group_by_name,
    };
    let mut listing = list_formations(files, &formations, &roster, gzf_failed);
    fly_with_carriers(files, &records, &groups, &mut listing);
    let Listing { mut defs, by_name, .. } = listing;

    let sides = list_sides(files, &raw.sides, &mut defs, &by_name);
    let rules = rules_of(&raw.rules);

    let (units, origins, formations) = build_units(files, &records, &gzf_spans, &rules, &defs, &groups);

    let ranges = range_table(files, &raw.start_range, &raw.ranges, &defs, &by_name);

    let mut battle = Battle {
        sides,
        formations,
        units,
        ranges,
        rules,
    };

    let victory = victory(files, &battle, raw.victory.as_ref());
    reserves(files, &mut battle, raw.reserves.as_ref());
    craft::launch_tubes(files, &mut battle, raw.launch_tubes.as_ref());

    let seed = seed_of(files, &raw.seed);

    let exchange = exchange_of(files, &raw.exchange);

    // Plots.
    let sources = plot_sources(files, &battle, raw.plots, raw_orders);
    let cx = Cx {
        battle: &battle,
        defs: &defs,
        by_name: &by_name,
        ships: &ships,
        records: &records,
        origins: &origins,
    };
    let (plot, plotted_in) = cx.plots(files, sources);

    let plot_sources = plotted_in
        .iter()
        .map(|p| p.as_ref().map(|(file, _)| files.list[*file].0.name.clone()))
        .collect();
    Loaded {
        victory,
        scenario: files.list[SC].0.name.clone(),
        title: raw.title.map(|t| t.into_inner()),
        exchange,
        seed,
        battle,
        plot,
        records,
        origins,
        plot_sources,
        warnings: Vec::new(),
        doctrine: Vec::new(),
        doctrine_sources: Vec::new(),
        mixes: Vec::new(),
    }
}

/// The `[reserves]` table: whether the Reserve is used, whether it needs
/// FTL, which Formations are in it, which enter combat this Exchange.
fn reserves(files: &mut Files, battle: &mut Battle, raw: Option<&raw::RawReserves>) {
    const SC: usize = 0; // the scenario file
    let Some(raw) = raw else { return };
    battle.rules.reserves = raw.enabled.as_ref().is_none_or(|e| *e.get_ref());
    battle.rules.reserves_need_ftl = raw.need_ftl.as_ref().is_some_and(|e| *e.get_ref());
    let find = |files: &mut Files, battle: &Battle, name: &S<String>| -> Option<usize> {
        let f = battle.formations.iter().position(|f| &f.name == name.get_ref());
        if f.is_none() {
            let d = Diagnostic::error(
                name.span(),
                format!("unknown Formation `{}`", name.get_ref()),
                "a Formation defined under [formations]",
            );
            let formations = battle.formations.iter().map(|f| f.name.as_str());
            files.push(SC, name_help(d, name.get_ref(), formations, "Formations"));
        }
        f
    };
    for name in raw.in_reserve.iter().flatten() {
        if let Some(f) = find(files, battle, name) {
            battle.formations[f].reserve = Reserve::InReserve;
        }
    }
    for name in raw.enter.iter().flatten() {
        let Some(f) = find(files, battle, name) else { continue };
        if battle.formations[f].reserve != Reserve::InReserve {
            files.push(
                SC,
                Diagnostic::error(
                    name.span(),
                    format!("Formation `{}` is not in the Reserve", name.get_ref()),
                    "a Formation listed in `in_reserve`",
                ),
            );
            continue;
        }
        battle.formations[f].reserve = Reserve::Entering;
    }
    if !battle.rules.reserves && (raw.in_reserve.is_some() || raw.enter.is_some()) {
        let span = raw.enabled.as_ref().map_or(0..0, |e| e.span());
        files.push(
            SC,
            Diagnostic::error(
                span,
                "Formations are listed in the Reserve, but reserves are off",
                "`enabled = true` (or leave it out)",
            ),
        );
    }
}

/// The `[victory]` table: Exchange limit, fleet morale and named triggers.
/// Sides are named by their commander; Units by ship name.
fn victory(files: &mut Files, battle: &Battle, raw: Option<&raw::RawVictory>) -> Victory {
    const SC: usize = 0; // the scenario file
    let mut v = Victory::default();
    let Some(raw) = raw else { return v };
    if let Some(m) = &raw.max_exchanges {
        match u32::try_from(*m.get_ref()) {
            Ok(n @ 1..=1000) => v.max_exchanges = n,
            _ => files.push(
                SC,
                Diagnostic::error(
                    m.span(),
                    "`max_exchanges` out of range",
                    "a whole number from 1 to 1000",
                ),
            ),
        }
    }
    if let Some(m) = &raw.morale {
        v.morale_percent = match m.get_ref() {
            raw::RawMorale::Switch(false) => None,
            raw::RawMorale::Switch(true) => Some(50),
            raw::RawMorale::Percent(p) => match u32::try_from(*p) {
                Ok(p @ 1..=100) => Some(p),
                _ => {
                    files.push(
                        SC,
                        Diagnostic::error(
                            m.span(),
                            "`morale` must be a percentage of starting mass lost",
                            "a whole number from 1 to 100, true (50) or false (no morale rule)",
                        ),
                    );
                    None
                }
            },
        };
    }
    let side = |files: &mut Files, name: &S<String>| -> Option<usize> {
        let found = battle.sides.iter().position(|s| &s.name == name.get_ref());
        if found.is_none() {
            files.push(
                SC,
                name_help(
                    Diagnostic::error(
                        name.span(),
                        format!("unknown side `{}`", name.get_ref()),
                        "a commander named under [sides]",
                    ),
                    name.get_ref(),
                    battle.sides.iter().map(|s| s.name.as_str()),
                    "sides",
                ),
            );
        }
        found
    };
    let named = raw
        .unit_destroyed
        .iter()
        .flatten()
        .map(|t| (t, true))
        .chain(raw.unit_escaped.iter().flatten().map(|t| (t, false)));
    for (t, destroyed) in named {
        let t = t.get_ref();
        let unit = battle
            .units
            .iter()
            .position(|u| unit_key(&u.name) == unit_key(t.unit.get_ref()));
        if unit.is_none() {
            let d = Diagnostic::error(
                t.unit.span(),
                format!("no Unit named `{}` in this battle", t.unit.get_ref()),
                "a ship named under [formations]",
            );
            let units = battle.units.iter().map(|u| u.name.as_str());
            files.push_unknown_unit(SC, name_help(d, t.unit.get_ref(), units, "Units"));
        }
        if let (Some(unit), Some(side)) = (unit, side(files, &t.winner)) {
            v.triggers.push(if destroyed {
                Trigger::UnitDestroyed { unit, side }
            } else {
                Trigger::UnitEscaped { unit, side }
            });
        }
    }
    for t in raw.points.iter().flatten() {
        let t = t.get_ref();
        let points = u32::try_from(*t.points.get_ref()).ok().filter(|p| *p > 0);
        if points.is_none() {
            files.push(
                SC,
                Diagnostic::error(t.points.span(), "`points` must be positive", "a whole number above 0"),
            );
        }
        if let (Some(points), Some(side)) = (points, side(files, &t.winner)) {
            v.triggers.push(Trigger::PointsDestroyed { side, points });
        }
    }
    v
}

/// Looks a Formation up by its exact name, reporting an unknown one.
fn formation_ref(
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

/// Writes a base part's state back into its record (`Loaded::write_back`).
pub(super) fn write_back_base(base: &mut gzf::Base, sector: Option<usize>, unit: &Unit) {
    bases::write_back(base, sector, unit);
}

/// What the fire entries of one Volley have assigned so far.
#[derive(Default)]
struct FireWork<'v> {
    /// Weapons assigned (to a fire entry or `pd`), and where.
    assigned: BTreeMap<(UnitId, SystemId), Range<usize>>,
    /// Fire Controls given an order, and where.
    fcs: BTreeMap<(UnitId, SystemId), Range<usize>>,
    /// Fire targets per Unit.
    targets_per_unit: BTreeMap<UnitId, usize>,
    /// Entries taking the default "all", resolved once every entry is read.
    defaults: Vec<Pending>,
    default_of: BTreeMap<UnitId, Range<usize>>,
    /// Fire orders kept, with their target and `needle` tables, checked
    /// once the default weapons are known.
    aimed: Vec<(usize, FormationId, Option<&'v S<Needles>>)>,
}

/// What the Volley checks look things up in.
struct Cx<'a> {
    battle: &'a Battle,
    defs: &'a [FormationDef],
    by_name: &'a BTreeMap<String, FormationId>,
    ships: &'a BTreeMap<String, ShipRef>,
    records: &'a [Record],
    origins: &'a [Origin],
}

fn maneuver(w: Word) -> Maneuver {
    match w {
        Word::Close => Maneuver::Close,
        Word::Maintain => Maneuver::Maintain,
        Word::Withdraw => Maneuver::Withdraw,
    }
}

/// Dedicated point-defence systems defend on their own (F&M Point Defense
/// Phase) and are not part of a Fire Control's default "all weapons"; nor is
/// the Scattergun, a one-shot point-defence weapon.
fn dedicated_pd(kind: &SystemKind) -> bool {
    matches!(kind, SystemKind::Pds | SystemKind::Adaf | SystemKind::Scattergun)
}

/// Why a weapon cannot fire on a Formation in F&M, if it cannot
/// (docs/orders.md, "Weapons").
fn fire_refusal(kind: &SystemKind) -> Option<&'static str> {
    use SystemKind::*;
    Some(match kind {
        Railgun { .. } | EnergyPulse => {
            "no rules text for it is available (ft-rules §14.1: the FT2 rules text was not found)"
        }
        Ortillery => "orbital artillery has no use in space combat (ft-rules §4.5)",
        Minelayer | Minesweeper => "mines need positions on a map, and F&M keeps none",
        Scattergun => "it is a one-shot point-defence weapon: list it under `pd`",
        Missile {
            warhead: Warhead::Emp | Warhead::Needle,
        } => {
            "the More Thrust EMP and needle missile warheads have no Continuum reading (ft-rules §4.4); \
             only standard heavy missiles fire"
        }
        _ => return None,
    })
}

/// One-shot weapons fired at ships: at most once per Exchange (and battle).
fn fires_once(kind: &SystemKind) -> bool {
    matches!(
        kind,
        SystemKind::Smr
            | SystemKind::Missile { .. }
            | SystemKind::SubmunitionPack
            | SystemKind::Mkp
            | SystemKind::RocketPod
            | SystemKind::AntimatterMissile
    )
}

/// Why a one-shot weapon cannot fire any more, if it cannot: its record
/// shows it spent (`Rounds:` crossed off) or destroyed.
fn spent(sys: &Sys) -> Option<&'static str> {
    if !is_one_shot(&sys.kind) {
        None
    } else if sys.state == SysState::Destroyed {
        Some("it is spent or destroyed (`Status: Destroyed`)")
    } else if sys.rounds_left() == 0 {
        Some("it has been fired (its `Rounds:` box is crossed off)")
    } else {
        None
    }
}

/// Spans in first-seen order without repeats (a one-table plot repeats its
/// spans in all three Volleys).
fn distinct<'a>(spans: impl Iterator<Item = &'a Range<usize>>) -> Vec<&'a Range<usize>> {
    let mut out: Vec<&Range<usize>> = Vec::new();
    for s in spans {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// Where a weapon is plotted to fire: (Volley index, span) pairs.
type VolleySpans = Vec<(usize, Range<usize>)>;

/// What a weapon number in the orders is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Fire,
    Pd,
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

/// What the explicit weapon lists of a plot fire of its one-shot weapons
/// and magazines.
struct Ammo {
    /// One-shot weapons, with the Volley and place of each listing.
    racks: BTreeMap<(UnitId, SystemId), VolleySpans>,
    /// Magazines, with the place of each launcher listing that draws a load.
    mags: BTreeMap<(UnitId, SystemId), Vec<Range<usize>>>,
}

/// Speed and Evasion as a Volley gives them, with where.
struct Dice {
    speed: Option<(u32, Range<usize>)>,
    evasion: Option<(u32, Range<usize>)>,
}

/// A number of dice as written, if given and not negative (reported).
fn non_negative_dice(files: &mut Files, file: usize, x: &Option<S<i64>>, what: &str) -> Option<(u32, Range<usize>)> {
    let x = x.as_ref()?;
    match u32::try_from(*x.get_ref()) {
        Ok(n) => Some((n, x.span())),
        Err(_) => {
            files.push(
                file,
                Diagnostic::error(
                    x.span(),
                    format!("{what} cannot be negative"),
                    "a number of dice, 0 or more",
                ),
            );
            None
        }
    }
}

/// What the ammunition checks need to know about a Volley's fire orders
/// beyond the plot itself.
#[derive(Debug, Clone, Default)]
struct Notes {
    /// One per `VolleyPlot::fire` order, in the same order.
    fire: Vec<FireNotes>,
    /// Launches, recoveries, and Speed and Evasion of Formations of small craft.
    craft: craft::CraftNotes,
}

#[derive(Debug, Clone, Default)]
struct FireNotes {
    /// Weapons listed in `weapons`, with where.
    explicit: Vec<(SystemId, Range<usize>)>,
    /// The entry's span when it takes the default "all".
    default: Option<Range<usize>>,
}

/// One Fire Control order while the Volley is checked.
struct Pending {
    order: usize,
    unit: UnitId,
    span: Range<usize>,
}

impl Cx<'_> {
    fn unit(&self, u: UnitId) -> &Unit {
        &self.battle.units[u]
    }

    /// "system 7 of `MCS Patient Ember` (Pulse Torpedo)".
    fn system_label(&self, u: UnitId, s: SystemId) -> String {
        let unit = self.unit(u);
        format!(
            "system {} of `{}` ({})",
            s + 1,
            unit.name,
            unit.systems[s].kind.name(unit.profile)
        )
    }

    /// A Unit of Formation `f` by name, reporting where else the name is.
    fn member(&self, files: &mut Files, file: usize, f: FormationId, name: &S<String>) -> Option<UnitId> {
        let key = unit_key(name.get_ref());
        if let Some(&u) = self.battle.formations[f]
            .units
            .iter()
            .find(|&&u| unit_key(&self.unit(u).name) == key)
        {
            return Some(u);
        }
        if files.records_failed {
            // No ship joined a Formation: the records' problems say why.
            return None;
        }
        let fname = &self.defs[f].name;
        let msg = if let Some(u) = self.battle.units.iter().find(|u| unit_key(&u.name) == key) {
            format!(
                "`{}` is in Formation `{}`, not in `{fname}`",
                u.name, self.battle.formations[u.formation].name
            )
        } else if let Some(s) = self.ships.get(&key) {
            format!("`{}` is not in any Formation of this scenario", s.name)
        } else if !self.defs[f].complete {
            // The Formation's own Units did not all load: already reported.
            return None;
        } else {
            format!("no ship named `{}` in the scenario", name.get_ref())
        };
        let members = self.battle.formations[f]
            .units
            .iter()
            .map(|&u| self.unit(u).name.as_str());
        let d = Diagnostic::error(name.span(), msg, format!("a Unit of Formation `{fname}`"));
        files.push(
            file,
            name_help(d, name.get_ref(), members, &format!("Units of `{fname}`")),
        );
        None
    }

    /// The Unit an entry names, or the Formation's only Unit when it names none.
    fn entry_unit(
        &self,
        files: &mut Files,
        file: usize,
        f: FormationId,
        unit: &Option<S<String>>,
        span: &Range<usize>,
    ) -> Option<UnitId> {
        match unit {
            Some(name) => self.member(files, file, f, name),
            None => {
                // Groups have no systems: the only ship is meant.
                let members: Vec<UnitId> = self.battle.formations[f]
                    .units
                    .iter()
                    .copied()
                    .filter(|&u| !self.unit(u).is_craft())
                    .collect();
                if members.len() == 1 && self.defs[f].complete {
                    return Some(members[0]);
                }
                if self.defs[f].complete {
                    files.push(
                        file,
                        Diagnostic::error(
                            span.clone(),
                            format!(
                                "Formation `{}` has {} Units: say which one with unit = \"…\"",
                                self.defs[f].name,
                                members.len()
                            ),
                            "unit = \"SHIP NAME\"",
                        ),
                    );
                }
                None
            }
        }
    }

    /// A 1-based system number written in the orders → its index.
    /// The entries of a table keyed by Unit name (`shift`, `damage_control`)
    /// in file order, each with its Unit; unknown Units and a second entry
    /// for the same Unit are reported and left out.
    fn unit_table<'v, V>(
        &self,
        files: &mut Files,
        file: usize,
        f: FormationId,
        table: &'v BTreeMap<S<String>, S<V>>,
        what: &str,
        expected: &str,
    ) -> Vec<(UnitId, &'v S<String>, &'v S<V>)> {
        let mut entries: Vec<_> = table.iter().collect();
        entries.sort_by_key(|(k, _)| k.span().start);
        let mut seen: BTreeMap<UnitId, Range<usize>> = BTreeMap::new();
        let mut out = Vec::new();
        for (name, value) in entries {
            let Some(u) = self.member(files, file, f, name) else {
                continue;
            };
            if let Some(first) = seen.get(&u) {
                let at = files.at(file, file, first);
                files.push(
                    file,
                    Diagnostic::error(
                        name.span(),
                        format!("`{}` already has {what} in this Volley ({at})", self.unit(u).name),
                        expected.to_string(),
                    ),
                );
                continue;
            }
            seen.insert(u, name.span());
            out.push((u, name, value));
        }
        out
    }

    fn system(&self, files: &mut Files, file: usize, u: UnitId, n: &S<i64>) -> Option<SystemId> {
        let unit = self.unit(u);
        let count = unit.systems.len();
        match usize::try_from(*n.get_ref()) {
            Ok(k) if k >= 1 && k <= count => Some(k - 1),
            _ => {
                files.push(
                    file,
                    Diagnostic::error(
                        n.span(),
                        format!("`{}` has no system {} (it has {count})", unit.name, n.get_ref()),
                        format!("a system number from 1 to {count}, as `fam ssd show` lists them"),
                    ),
                );
                None
            }
        }
    }

    fn fire_control(
        &self,
        files: &mut Files,
        file: usize,
        u: UnitId,
        fc: &Option<S<i64>>,
        span: &Range<usize>,
    ) -> Option<SystemId> {
        let unit = self.unit(u);
        let all: Vec<SystemId> = unit
            .systems
            .iter()
            .enumerate()
            .filter(|(_, s)| s.kind == SystemKind::FireControl)
            .map(|(i, _)| i)
            .collect();
        let numbers = || all.iter().map(|i| (i + 1).to_string()).collect::<Vec<_>>().join(", ");
        let (s, at) = match fc {
            Some(n) => {
                let s = self.system(files, file, u, n)?;
                if unit.systems[s].kind != SystemKind::FireControl {
                    let help = if all.is_empty() {
                        format!("`{}` has no Fire Control", unit.name)
                    } else {
                        format!("Fire Controls of `{}`: system {}", unit.name, numbers())
                    };
                    files.push(
                        file,
                        Diagnostic::error(
                            n.span(),
                            format!("{} is not a Fire Control", self.system_label(u, s)),
                            "the system number of a Fire Control (FCS, FireCon)",
                        )
                        .with_help(help),
                    );
                    return None;
                }
                (s, n.span())
            }
            None => match all.as_slice() {
                [] => {
                    files.push(
                        file,
                        Diagnostic::error(
                            span.clone(),
                            format!("`{}` has no Fire Control and cannot fire", unit.name),
                            "a Unit with a Fire Control",
                        ),
                    );
                    return None;
                }
                [one] => (*one, span.clone()),
                _ => {
                    files.push(
                        file,
                        Diagnostic::error(
                            span.clone(),
                            format!(
                                "`{}` has {} Fire Controls (systems {}): say which one with fc = N",
                                unit.name,
                                all.len(),
                                numbers()
                            ),
                            "fc = SYSTEM NUMBER",
                        ),
                    );
                    return None;
                }
            },
        };
        let sys = &unit.systems[s];
        if !sys.operational() {
            let why = match sys.state {
                SysState::Damaged => "damaged",
                SysState::Destroyed => "destroyed",
                SysState::Operational => "switched off (Status: Inactive)",
            };
            files.push(
                file,
                Diagnostic::error(
                    at,
                    format!(
                        "Fire Control {} of `{}` is {why} and cannot direct fire",
                        s + 1,
                        unit.name
                    ),
                    "an operational Fire Control",
                ),
            );
            return None;
        }
        Some(s)
    }

    fn formation_target(
        &self,
        files: &mut Files,
        file: usize,
        f: FormationId,
        name: &S<String>,
        what: &str,
    ) -> Option<FormationId> {
        let t = formation_ref(files, file, self.by_name, self.defs, name)?;
        if t == f {
            files.push(
                file,
                Diagnostic::error(
                    name.span(),
                    format!("Formation `{}` cannot {what} itself", self.defs[f].name),
                    "another Formation",
                ),
            );
            return None;
        }
        Some(t)
    }

    /// Speed and Evasion of one Volley: not negative, together the Formation
    /// Thrust (one of them alone takes the rest), Evasion at most half of it.
    fn speed_and_evasion(
        &self,
        files: &mut Files,
        file: usize,
        f: FormationId,
        raw: &S<RawVolley>,
        out: &mut VolleyPlot,
        notes: &mut Notes,
    ) {
        let v = raw.get_ref();
        let def = &self.defs[f];
        let fname = &def.name;
        // A Formation flying on its small craft's thrust has it checked once
        // every plot is read (launches change it Volley by Volley).
        let craft_thrust = self.craft_thrust(f);
        let thrust = (def.complete && !craft_thrust).then(|| self.battle.formation_thrust(f));
        let given = Dice {
            speed: non_negative_dice(files, file, &v.speed, "Speed"),
            evasion: non_negative_dice(files, file, &v.evasion, "Evasion"),
        };
        if craft_thrust {
            notes.craft.speed = given.speed.clone();
            notes.craft.evasion = given.evasion.clone();
        }
        if v.speed.is_none() && v.evasion.is_none() {
            files.push(
                file,
                Diagnostic::error(
                    raw.span(),
                    format!("this Volley of `{fname}` gives neither `speed` nor `evasion`"),
                    "speed = N and evasion = N (they add up to the Formation Thrust)",
                ),
            );
        }
        if let Some((speed, evasion)) = self.share_thrust(files, file, f, v, &given, thrust) {
            out.speed = speed;
            out.evasion = evasion;
        }
        if let Some(t) = thrust
            && out.evasion > self.battle.evasion_cap(f, t)
        {
            let cap = self.battle.evasion_cap(f, t);
            let span = given
                .evasion
                .as_ref()
                .or(given.speed.as_ref())
                .map_or(raw.span(), |x| x.1.clone());
            files.push(
                file,
                Diagnostic::error(
                    span,
                    format!(
                        "Evasion {} is more than half the Formation Thrust of `{fname}` ({t}, so at most {cap})",
                        out.evasion
                    ),
                    format!("evasion = {cap} or less"),
                )
                .with_help("maximum Evasion is half Formation Thrust, rounded down (fm-readings 7)"),
            );
        }
    }

    /// Speed and Evasion from what a Volley gives: both as written (an error
    /// unless they add up to the Formation Thrust), or one as written and
    /// the other the rest of the Thrust. `None` when the one given is more
    /// than the Thrust (reported); as written, or 0, when the Thrust is not
    /// known here.
    fn share_thrust(
        &self,
        files: &mut Files,
        file: usize,
        f: FormationId,
        v: &RawVolley,
        given: &Dice,
        thrust: Option<u32>,
    ) -> Option<(u32, u32)> {
        let fname = &self.defs[f].name;
        match (&given.speed, &given.evasion, thrust) {
            (Some((s, s_span)), Some((e, _)), Some(t)) => {
                // Summed wide: two absurd numbers must not wrap into a sum
                // that fits.
                let sum = u64::from(*s) + u64::from(*e);
                if sum != u64::from(t) {
                    files.push(
                        file,
                        Diagnostic::error(
                            s_span.clone(),
                            format!("Speed {s} + Evasion {e} = {sum}, but the Formation Thrust of `{fname}` is {t}"),
                            format!("Speed + Evasion = {t}"),
                        )
                        .with_help(self.thrust_help(f)),
                    );
                }
                Some((*s, *e))
            }
            (Some((x, span)), None, Some(t)) | (None, Some((x, span)), Some(t))
                if v.speed.is_none() || v.evasion.is_none() =>
            {
                let given_speed = v.evasion.is_none();
                let what = if given_speed { "Speed" } else { "Evasion" };
                if *x > t {
                    files.push(
                        file,
                        Diagnostic::error(
                            span.clone(),
                            format!("{what} {x} is more than the Formation Thrust of `{fname}` ({t})"),
                            format!("at most {t}"),
                        )
                        .with_help(self.thrust_help(f)),
                    );
                    None
                } else if given_speed {
                    Some((*x, t - x))
                } else {
                    Some((t - x, *x))
                }
            }
            (s, e, _) => Some((s.as_ref().map_or(0, |x| x.0), e.as_ref().map_or(0, |x| x.0))),
        }
    }

    /// How Formation `f`'s Thrust comes about, for a help line.
    fn thrust_help(&self, f: FormationId) -> String {
        let parts: Vec<String> = self.battle.formations[f]
            .units
            .iter()
            .map(|&u| self.unit(u))
            .filter(|u| u.active())
            .map(|u| format!("`{}` {}", u.name, u.thrust))
            .collect();
        format!(
            "Formation Thrust is the lowest current thrust of its Units in the fight: {}",
            parts.join(", ")
        )
    }

    /// The primary and secondary maneuvers of one Volley: each against another
    /// Formation in the fight, one maneuver a target, never Close and Withdraw
    /// together.
    fn maneuvers(&self, files: &mut Files, file: usize, f: FormationId, v: &RawVolley, out: &mut VolleyPlot) {
        let mut targets: BTreeMap<FormationId, Range<usize>> = BTreeMap::new();
        let mut closes: Vec<(Range<usize>, FormationId)> = Vec::new();
        let mut withdraws: Vec<(Range<usize>, FormationId)> = Vec::new();
        let mut take = |files: &mut Files, word: &S<Word>, name: &S<String>| -> Option<ManeuverOrder> {
            let t = self.formation_target(files, file, f, name, "maneuver against")?;
            if let Some(first) = targets.get(&t) {
                let at = files.at(file, file, first);
                files.push(
                    file,
                    Diagnostic::error(
                        name.span(),
                        format!("`{}` already has a maneuver in this Volley ({at})", self.defs[t].name),
                        "one maneuver per target Formation",
                    ),
                );
                return None;
            }
            targets.insert(t, name.span());
            match word.get_ref() {
                Word::Close => closes.push((word.span(), t)),
                Word::Withdraw => withdraws.push((word.span(), t)),
                Word::Maintain => {}
            }
            Some(ManeuverOrder {
                target: t,
                maneuver: maneuver(*word.get_ref()),
            })
        };
        if let Some(p) = &v.primary {
            let mut entries: Vec<_> = p.get_ref().iter().collect();
            entries.sort_by_key(|(k, _)| k.span().start);
            match entries.split_first() {
                None => files.push(
                    file,
                    Diagnostic::error(
                        p.span(),
                        "the primary maneuver is empty",
                        "primary = { close = \"FORMATION\" } (or maintain, withdraw)",
                    ),
                ),
                Some(((word, name), rest)) => {
                    out.primary = take(files, word, name);
                    for (word, _) in rest {
                        files.push(
                            file,
                            Diagnostic::error(
                                word.span(),
                                "a Volley has one primary maneuver",
                                "other targets under `secondary`",
                            ),
                        );
                    }
                }
            }
        }
        if let Some(sec) = &v.secondary {
            if v.primary.is_none() {
                files.push(
                    file,
                    Diagnostic::error(
                        sec.span(),
                        "secondary maneuvers without a primary one",
                        "primary = { close = \"FORMATION\" } first",
                    ),
                );
            }
            let mut entries: Vec<_> = sec.get_ref().iter().collect();
            entries.sort_by_key(|(k, _)| k.span().start);
            for (word, names) in entries {
                let list: Vec<S<String>> = match names.get_ref() {
                    Names::One(n) => vec![S::new(names.span(), n.clone())],
                    Names::Many(v) => v.clone(),
                };
                for name in &list {
                    if let Some(m) = take(files, word, name) {
                        out.secondary.push(m);
                    }
                }
            }
        }
        if let (Some(c), Some(w)) = (closes.first(), withdraws.first()) {
            let (later, earlier) = if c.0.start > w.0.start { (c, w) } else { (w, c) };
            let word = |x: &(Range<usize>, FormationId)| {
                if closes.first() == Some(x) {
                    format!("Close on `{}`", self.defs[x.1].name)
                } else {
                    format!("Withdraw from `{}`", self.defs[x.1].name)
                }
            };
            let at = files.at(file, file, &earlier.0);
            files.push(
                file,
                Diagnostic::error(
                    later.0.clone(),
                    format!(
                        "{} and {} ({at}) in one Volley: a Formation may not Close and Withdraw in the same Volley",
                        word(later),
                        word(earlier)
                    ),
                    "Close or Withdraw, not both",
                )
                .with_help("fm-readings 5; Maintain goes with either"),
            );
        }
    }

    /// The targeting shifts of one Volley: Units of the Formation in the fight,
    /// each within 5 points per Thrust point it has over the Formation Thrust.
    fn shifts(
        &self,
        files: &mut Files,
        file: usize,
        f: FormationId,
        v: &RawVolley,
        thrust: Option<u32>,
        out: &mut VolleyPlot,
    ) {
        if let Some(shifts) = &v.shift {
            for (u, name, pts) in self.unit_table(files, file, f, shifts, "a shift", "one shift per Unit") {
                let unit = self.unit(u);
                if !unit.active() {
                    files.push(
                        file,
                        Diagnostic::error(
                            name.span(),
                            format!("`{}` is out of the fight and takes no share of fire", unit.name),
                            "a Unit in the fight",
                        ),
                    );
                    continue;
                }
                let Some(t) = thrust else { continue };
                let surplus = unit.thrust.saturating_sub(t);
                // Capped where a shift is held (i32): only an absurd thrust
                // reaches it.
                let limit = (5 * i64::from(surplus)).min(i64::from(i32::MAX));
                let p = *pts.get_ref();
                // `unsigned_abs`: a shift of i64::MIN has no i64 magnitude.
                if p.unsigned_abs() > limit.unsigned_abs() {
                    let msg = if surplus == 0 {
                        format!(
                            "`{}` cannot shift its share: its thrust {} is no more than the Formation Thrust {t}",
                            unit.name, unit.thrust
                        )
                    } else {
                        format!(
                            "a shift of {p} points is more than `{}` may make: 5 points per surplus Thrust point, \
                             {surplus} × 5 = {limit} (thrust {} over Formation Thrust {t})",
                            unit.name, unit.thrust
                        )
                    };
                    files.push(
                        file,
                        Diagnostic::error(
                            pts.span(),
                            msg,
                            if limit == 0 {
                                "no shift".to_string()
                            } else {
                                format!("a shift from -{limit} to {limit}")
                            },
                        ),
                    );
                    continue;
                }
                let Ok(p) = i32::try_from(p) else { continue };
                out.shifts.push((u, p));
            }
        }
    }

    /// What a fire entry aims at: a Formation of another side (a friendly
    /// one with a warning), `inactive` (`None`), or a named group (its
    /// Formation, and the group). `None` when it cannot be aimed.
    fn fire_target(
        &self,
        files: &mut Files,
        file: usize,
        f: FormationId,
        target: &S<String>,
        is_group: bool,
    ) -> Option<(Option<FormationId>, Option<UnitId>)> {
        let target_f = if is_group {
            let g = self.fire_group(files, file, f, target)?;
            return Some((Some(self.unit(g).formation), Some(g)));
        } else if target.get_ref().eq_ignore_ascii_case(INACTIVE) {
            None
        } else {
            match self.formation_target(files, file, f, target, "fire on") {
                Some(t) if self.craft_formation(t) => {
                    files.push(
                        file,
                        Diagnostic::error(
                            target.span(),
                            format!(
                                "Formation `{}` holds only small craft, which take no share of fire at a Formation",
                                self.defs[t].name
                            ),
                            "group = \"GROUP\": a Fire Control engages one named group",
                        )
                        .with_help("docs/fighters.md §3.7 (reading F1)"),
                    );
                    return None;
                }
                Some(t) => {
                    if self.battle.formations[t].side == self.battle.formations[f].side && self.defs[t].side.is_some() {
                        files.push(
                            file,
                            Diagnostic::warning(
                                target.span(),
                                format!("`{}` is a Formation of the same side", self.defs[t].name),
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

    /// The Fire Control of a fire entry: a working one of the Unit, given
    /// one order a Volley, and no more targets for the Unit than it has
    /// working Fire Controls. Returns it, and whether the order may stand
    /// (problems here do not stop the weapons being checked).
    #[allow(clippy::too_many_arguments)]
    fn fire_control_order(
        &self,
        files: &mut Files,
        file: usize,
        u: UnitId,
        fc: &Option<S<i64>>,
        entry: &Range<usize>,
        target: &Range<usize>,
        aimed: bool,
        work: &mut FireWork<'_>,
    ) -> (Option<SystemId>, bool) {
        let uname = &self.unit(u).name;
        let s = self.fire_control(files, file, u, fc, entry);
        let mut ok = s.is_some();
        if let Some(s) = s {
            let working = self.unit(u).fire_controls().count();
            let k = work.targets_per_unit.entry(u).or_insert(0);
            if aimed {
                *k += 1;
            }
            let fc_span = fc.as_ref().map_or(entry.clone(), |n| n.span());
            if aimed && *k > working {
                files.push(
                    file,
                    Diagnostic::error(
                        target.clone(),
                        format!(
                            "more fire targets than working Fire Controls: `{uname}` has {working} and this is target {k}",
                        ),
                        format!("at most {working} target(s) for `{uname}`"),
                    )
                    .with_help("each working Fire Control directs fire at one Formation"),
                );
                ok = false;
            } else if let Some(first) = work.fcs.get(&(u, s)) {
                let at = files.at(file, file, first);
                files.push(
                    file,
                    Diagnostic::error(
                        fc_span,
                        format!(
                            "Fire Control {} of `{uname}` already has orders in this Volley ({at})",
                            s + 1
                        ),
                        "one order per Fire Control",
                    ),
                );
                ok = false;
            } else {
                work.fcs.insert((u, s), fc_span);
            }
        }
        (s, ok)
    }

    /// One fire entry of a Volley: its Unit in the fight and not behind a
    /// raised reflex field, its Fire Control (one order each, no more
    /// targets than working Fire Controls), its target Formation or group,
    /// and its weapons, listed (each checked and assigned once) or left to
    /// the default "all" (taken once every entry is read).
    #[allow(clippy::too_many_arguments)]
    fn fire_entry<'v>(
        &self,
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
        let Some(u) = self.fire_unit(files, file, f, entry, raised) else {
            return;
        };
        let Some(target) = fire_target_name(files, file, entry) else {
            return;
        };
        let Some((target_f, aimed_group)) = self.fire_target(files, file, f, target, group.is_some()) else {
            return;
        };
        // Problems with the Fire Control do not stop the weapons being
        // checked; the order is only kept when everything is right.
        let (s, mut ok) = self.fire_control_order(
            files,
            file,
            u,
            fc,
            &entry.span(),
            &target.span(),
            target_f.is_some(),
            work,
        );
        let mut list: Vec<(SystemId, Range<usize>)> = Vec::new();
        let mut pending = false;
        match (target_f, weapons) {
            (None, w) => ok &= inactive_fire(files, file, w, needle),
            (Some(_), Some(w)) => list = self.listed_weapons(files, file, u, w, work),
            (Some(_), None) => {
                pending = self.claim_default(files, file, u, &entry.span(), work);
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
        &self,
        files: &mut Files,
        file: usize,
        f: FormationId,
        entry: &S<RawFire>,
        raised: &BTreeMap<UnitId, Range<usize>>,
    ) -> Option<UnitId> {
        let unit = &entry.get_ref().unit;
        let u = self.entry_unit(files, file, f, unit, &entry.span())?;
        let uname = &self.unit(u).name;
        if !self.unit(u).active() {
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

    /// A fire entry's listed weapons, each checked and assigned to it, with
    /// where; warns when the list is empty.
    fn listed_weapons(
        &self,
        files: &mut Files,
        file: usize,
        u: UnitId,
        w: &raw::Numbers,
        work: &mut FireWork<'_>,
    ) -> Vec<(SystemId, Range<usize>)> {
        let mut list = Vec::new();
        for n in w.get_ref() {
            if let Some(x) = self.weapon(files, file, u, n, &mut work.assigned, Mode::Fire) {
                list.push((x, n.span()));
            }
        }
        if w.get_ref().is_empty() {
            files.push(
                file,
                Diagnostic::warning(
                    w.span(),
                    format!(
                        "this Fire Control of `{}` has a target but no weapons",
                        self.unit(u).name
                    ),
                    "weapon system numbers",
                ),
            );
        }
        list
    }

    /// Lets the fire entry at `entry` take Unit `u`'s default weapons,
    /// unless another of its entries already does (reported).
    fn claim_default(
        &self,
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
                    self.unit(u).name
                ),
                "weapons = [SYSTEM NUMBERS] on all but one",
            ),
        );
        false
    }

    /// The default "all" of each pending entry: every weapon of the Unit not
    /// assigned elsewhere, dedicated point defence and nova cannons aside,
    /// unspent and not destroyed; a weapon fam refuses is an error with the
    /// explicit list that leaves it out.
    fn default_weapons(
        &self,
        files: &mut Files,
        file: usize,
        defaults: Vec<Pending>,
        assigned: &mut BTreeMap<(UnitId, SystemId), Range<usize>>,
        out: &mut VolleyPlot,
    ) {
        for p in defaults {
            let unit = self.unit(p.unit);
            let mut list = Vec::new();
            let mut refused = Vec::new();
            for (i, sys) in unit.systems.iter().enumerate() {
                if !sys.kind.is_weapon()
                    || dedicated_pd(&sys.kind)
                    || sys.kind == SystemKind::NovaCannon
                    || sys.state == SysState::Destroyed
                    || spent(sys).is_some()
                    || assigned.contains_key(&(p.unit, i))
                {
                    continue;
                }
                assigned.insert((p.unit, i), p.span.clone());
                match fire_refusal(&sys.kind) {
                    None => list.push(i),
                    Some(why) => refused.push((i, why)),
                }
            }
            for &(i, why) in &refused {
                let fired: Vec<String> = list.iter().map(|i| (i + 1).to_string()).collect();
                files.push(
                    file,
                    Diagnostic::error(
                        p.span.clone(),
                        format!(
                            "{} would fire with this Fire Control (weapons default to all), but it cannot fire on a Formation: {why}",
                            self.system_label(p.unit, i)
                        ),
                        "weapons that can fire",
                    )
                    .with_help(format!(
                        "List the weapons explicitly to leave it out, e.g. weapons = [{}]",
                        fired.join(", ")
                    )),
                );
            }
            if list.is_empty() && refused.is_empty() {
                files.push(
                    file,
                    Diagnostic::warning(
                        p.span.clone(),
                        format!("this Fire Control of `{}` has no weapons left to direct", unit.name),
                        "weapons not assigned elsewhere",
                    ),
                );
            }
            out.fire[p.order].weapons = list;
        }
    }

    /// The damage-control priorities of one Volley: a list of systems per
    /// Unit of the Formation, each system once.
    fn damage_control_orders(
        &self,
        files: &mut Files,
        file: usize,
        f: FormationId,
        v: &RawVolley,
        out: &mut VolleyPlot,
    ) {
        if let Some(dc) = &v.damage_control {
            for (u, _, list) in self.unit_table(files, file, f, dc, "a damage-control order", "one list per Unit") {
                let mut order: Vec<SystemId> = Vec::new();
                for n in list.get_ref() {
                    let Some(s) = self.system(files, file, u, n) else {
                        continue;
                    };
                    if order.contains(&s) {
                        files.push(
                            file,
                            Diagnostic::error(
                                n.span(),
                                format!("system {} is already in this damage-control list", s + 1),
                                "each system once",
                            ),
                        );
                        continue;
                    }
                    order.push(s);
                }
                out.damage_control.push((u, order));
            }
        }
    }

    /// Checks one Volley entry and builds its plot.
    fn volley(&self, files: &mut Files, file: usize, f: FormationId, raw: &S<RawVolley>) -> (VolleyPlot, Notes) {
        let v = raw.get_ref();
        let mut notes = Notes::default();
        let def = &self.defs[f];
        // A Formation flying on its small craft's thrust has it checked once
        // every plot is read (launches change it Volley by Volley).
        let craft_thrust = self.craft_thrust(f);
        let thrust = (def.complete && !craft_thrust).then(|| self.battle.formation_thrust(f));
        let mut out = VolleyPlot::default();
        notes.craft.span = raw.span();

        self.speed_and_evasion(files, file, f, raw, &mut out, &mut notes);

        self.maneuvers(files, file, f, v, &mut out);

        self.shifts(files, file, f, v, thrust, &mut out);

        // Reflex fields raised (they keep their ships from firing).
        let raised = self.reflex(files, file, f, v, &mut out);

        // Fire.
        let mut work = FireWork::default();
        for entry in v.fire.iter().flatten() {
            self.fire_entry(files, file, f, entry, &raised, &mut work, &mut out, &mut notes);
        }
        let FireWork {
            mut assigned,
            defaults,
            aimed,
            ..
        } = work;

        // Point defence.
        self.point_defence(files, file, f, v, &mut assigned, &mut out);

        // Small craft: launches, recoveries, group actions, secondary maneuver.
        self.volley_craft(files, file, f, v, &mut out, &mut notes);

        // The default "all": every weapon of the Unit not assigned elsewhere.
        self.default_weapons(files, file, defaults, &mut assigned, &mut out);

        // A ship firing its nova cannon fires nothing else.
        self.nova_alone(files, file, &out, &assigned);

        // Needle beams and their targets.
        for (order, t, needle) in aimed {
            self.needles(files, file, &mut out.fire[order], t, needle, &notes.fire[order]);
        }

        // Damage control priorities.
        self.damage_control_orders(files, file, f, v, &mut out);
        (out, notes)
    }

    /// A weapon named by number for a Fire Control (`Mode::Fire`) or for
    /// point defence (`Mode::Pd`): it must be a weapon, assigned once per
    /// Volley, able to do what it is ordered to, and (if a one-shot) unspent.
    fn weapon(
        &self,
        files: &mut Files,
        file: usize,
        u: UnitId,
        n: &S<i64>,
        assigned: &mut BTreeMap<(UnitId, SystemId), Range<usize>>,
        mode: Mode,
    ) -> Option<SystemId> {
        let s = self.system(files, file, u, n)?;
        let unit = self.unit(u);
        let sys = &unit.systems[s];
        let label = self.system_label(u, s);
        if !sys.kind.is_weapon() {
            files.push(
                file,
                Diagnostic::error(
                    n.span(),
                    format!("{label} is not a weapon"),
                    "the system number of a weapon",
                ),
            );
            return None;
        }
        if let Some(first) = assigned.get(&(u, s)) {
            let at = files.at(file, file, first);
            files.push(
                file,
                Diagnostic::error(
                    n.span(),
                    format!("{label} is already assigned in this Volley ({at}): a weapon fires once per Volley"),
                    "each weapon on one Fire Control or in PD mode",
                ),
            );
            return None;
        }
        assigned.insert((u, s), n.span());
        match mode {
            Mode::Fire => {
                if let Some(why) = fire_refusal(&sys.kind) {
                    files.push(
                        file,
                        Diagnostic::error(
                            n.span(),
                            format!("{label} cannot fire on a Formation: {why}"),
                            "a weapon that can fire",
                        )
                        .with_help("leave it out of `weapons`"),
                    );
                    return None;
                }
            }
            Mode::Pd => {
                if !sys.kind.may_point_defend() {
                    files.push(
                        file,
                        Diagnostic::error(
                            n.span(),
                            format!("{label} cannot fire in point-defence mode"),
                            "a PDS (PDAF), ADAF, Scattergun, class-1 beam, phaser, Gatling battery, twin particle array, meson projector or Pulser",
                        )
                        .with_help(
                            "point defence is fired by PDS/PDAF, ADAF, Scatterguns and class-1 beams \
                             (Class 1 Battery, C Battery), and as one PDS by phasers, Gatling batteries, \
                             twin particle arrays, meson projectors and Pulsers not set to short range: \
                             ft-rules §2.3, §5.1",
                        ),
                    );
                    return None;
                }
            }
        }
        if let Some(why) = spent(sys) {
            files.push(
                file,
                Diagnostic::error(
                    n.span(),
                    format!("{label} is a one-shot weapon and cannot fire again: {why}"),
                    "an unspent weapon",
                ),
            );
            return None;
        }
        if sys.state == SysState::Destroyed {
            let what = if mode == Mode::Pd { "defend" } else { "fire" };
            files.push(
                file,
                Diagnostic::warning(
                    n.span(),
                    format!("{label} is destroyed and will not {what}"),
                    "a working weapon",
                ),
            );
        }
        Some(s)
    }

    /// A ship whose fire orders of this Volley name its nova cannon has no
    /// other weapon in fire or `pd` orders of the Volley (ft-rules §4.5:
    /// "no other fire"; reading W63): each such weapon is an error where it
    /// was assigned (its own entry, or the entry whose default "all" took it).
    fn nova_alone(
        &self,
        files: &mut Files,
        file: usize,
        out: &VolleyPlot,
        assigned: &BTreeMap<(UnitId, SystemId), Range<usize>>,
    ) {
        let kind = |u: UnitId, w: SystemId| &self.unit(u).systems[w].kind;
        let mut firing: Vec<UnitId> = out
            .fire
            .iter()
            .filter(|o| o.target.is_some() && o.weapons.iter().any(|&w| *kind(o.unit, w) == SystemKind::NovaCannon))
            .map(|o| o.unit)
            .collect();
        firing.dedup();
        for u in firing {
            let Some(nova) = assigned
                .iter()
                .find(|&(&(x, w), _)| x == u && *kind(x, w) == SystemKind::NovaCannon)
                .map(|(_, span)| span.clone())
            else {
                continue;
            };
            for (&(_, w), span) in assigned.range((u, 0)..=(u, SystemId::MAX)) {
                // A weapon refused on its own is not named twice.
                if *kind(u, w) == SystemKind::NovaCannon || fire_refusal(kind(u, w)).is_some() {
                    continue;
                }
                let at = files.at(file, file, &nova);
                files.push(
                    file,
                    Diagnostic::error(
                        span.clone(),
                        format!(
                            "`{}` fires its nova cannon in this Volley ({at}) and may fire nothing else: {} is assigned here",
                            self.unit(u).name,
                            self.system_label(u, w)
                        ),
                        "no other weapon, and no `pd` entry, for a ship firing its nova cannon",
                    )
                    .with_help(
                        "a nova cannon fires with no thrust, no screens and no other fire that turn (ft-rules §4.5, reading W63); \
                         list the nova cannon alone in its fire entry (`weapons = [N]`)",
                    ),
                );
            }
        }
    }

    /// The `reflex` list of one Volley: ships of Formation `f` raising
    /// their reflex field (reading O41). Returns each ship with where it is
    /// named, for the refusal of its fire orders.
    fn reflex(
        &self,
        files: &mut Files,
        file: usize,
        f: FormationId,
        v: &RawVolley,
        out: &mut VolleyPlot,
    ) -> BTreeMap<UnitId, Range<usize>> {
        let mut raised: BTreeMap<UnitId, Range<usize>> = BTreeMap::new();
        for name in v.reflex.iter().flatten() {
            let Some(u) = self.member(files, file, f, name) else {
                continue;
            };
            let unit = self.unit(u);
            let problem = if let Some(first) = raised.get(&u) {
                Some(format!(
                    "`{}` is already listed in `reflex` in this Volley ({})",
                    unit.name,
                    files.at(file, file, first)
                ))
            } else if !unit.active() {
                Some(format!("`{}` is out of the fight and raises no field", unit.name))
            } else if !unit.systems.iter().any(|s| s.kind == SystemKind::ReflexField) {
                Some(format!("`{}` carries no reflex field", unit.name))
            } else if !crate::engine::reflex::has_working_field(unit) {
                Some(format!("`{}`'s reflex field is not working", unit.name))
            } else {
                None
            };
            if let Some(msg) = problem {
                files.push(
                    file,
                    Diagnostic::error(name.span(), msg, "a ship of this Formation with a working reflex field"),
                );
                continue;
            }
            raised.insert(u, name.span());
            out.reflex.push(u);
        }
        raised
    }

    /// The `pd` entries of one Volley: weapons in point-defence mode and
    /// the Units they defend.
    fn point_defence(
        &self,
        files: &mut Files,
        file: usize,
        f: FormationId,
        v: &RawVolley,
        assigned: &mut BTreeMap<(UnitId, SystemId), Range<usize>>,
        out: &mut VolleyPlot,
    ) {
        // Other Units each Unit covers through its ADFCs, with where.
        let mut area: BTreeMap<UnitId, Vec<(UnitId, Range<usize>)>> = BTreeMap::new();
        for entry in v.pd.iter().flatten() {
            let e = entry.get_ref();
            let Some(u) = self.pd_unit(files, file, f, entry, out) else {
                continue;
            };
            let defend = self.pd_defend(files, file, f, e);
            let weapons = self.pd_weapons(files, file, u, e, assigned);
            let Some(defend) = defend else { continue };
            let ok = match &defend {
                Some((d, d_span)) if *d != u => {
                    let own_only = self.pd_own_only(files, file, u, *d, &weapons);
                    let covers = self.pd_adfc_cover(files, file, u, (*d, d_span), &weapons, area.entry(u).or_default());
                    own_only && covers
                }
                _ => true,
            };
            if ok {
                for (s, _) in weapons {
                    out.point_defence.push(PdOrder {
                        unit: u,
                        weapon: s,
                        defend: defend.as_ref().map(|x| x.0),
                    });
                }
            }
        }
    }

    /// The Unit of a `pd` entry, if it is in the fight and free to fire.
    fn pd_unit(
        &self,
        files: &mut Files,
        file: usize,
        f: FormationId,
        entry: &S<raw::RawPd>,
        out: &VolleyPlot,
    ) -> Option<UnitId> {
        let e = entry.get_ref();
        let u = self.entry_unit(files, file, f, &e.unit, &entry.span())?;
        let unit = self.unit(u);
        let at = e.unit.as_ref().map_or(entry.span(), |n| n.span());
        if !unit.active() {
            files.push(
                file,
                Diagnostic::error(
                    at,
                    format!(
                        "`{}` is out of the fight (destroyed or derelict) and cannot defend",
                        unit.name
                    ),
                    "a Unit in the fight",
                ),
            );
            return None;
        }
        if out.reflex.contains(&u) {
            files.push(
                file,
                Diagnostic::error(
                    at,
                    format!(
                        "`{}` raises its reflex field in this Volley and may not fire, point defence included",
                        unit.name
                    ),
                    "no `pd` entry for a ship behind its raised reflex field",
                )
                .with_help("reading O41: a ship with its reflex field up fires no weapon at all"),
            );
            return None;
        }
        Some(u)
    }

    /// A `pd` entry's `defend`: `Some(None)` when it names no Unit, `None`
    /// when the name is wrong (reported here).
    fn pd_defend(
        &self,
        files: &mut Files,
        file: usize,
        f: FormationId,
        e: &raw::RawPd,
    ) -> Option<Option<(UnitId, Range<usize>)>> {
        let Some(name) = &e.defend else {
            return Some(None);
        };
        let d = self.member(files, file, f, name)?;
        if !self.unit(d).active() {
            files.push(
                file,
                Diagnostic::error(
                    name.span(),
                    format!(
                        "`{}` is out of the fight (destroyed or derelict): there is nothing to defend",
                        self.unit(d).name
                    ),
                    "a Unit in the fight",
                ),
            );
            return None;
        }
        Some(Some((d, name.span())))
    }

    /// The weapons a `pd` entry puts in point-defence mode, with where;
    /// warns when it lists none.
    fn pd_weapons(
        &self,
        files: &mut Files,
        file: usize,
        u: UnitId,
        e: &raw::RawPd,
        assigned: &mut BTreeMap<(UnitId, SystemId), Range<usize>>,
    ) -> Vec<(SystemId, Range<usize>)> {
        let mut weapons: Vec<(SystemId, Range<usize>)> = Vec::new();
        for n in e.weapons.get_ref() {
            if let Some(s) = self.weapon(files, file, u, n, assigned, Mode::Pd) {
                weapons.push((s, n.span()));
            }
        }
        if e.weapons.get_ref().is_empty() {
            files.push(
                file,
                Diagnostic::warning(
                    e.weapons.span(),
                    format!("this `pd` entry of `{}` lists no weapons", self.unit(u).name),
                    "weapon system numbers",
                ),
            );
        }
        weapons
    }

    /// Whether none of `weapons` is a mount that defends only its own Unit
    /// (class-1 beams, K-1s, EMP-1s), reporting each that is.
    fn pd_own_only(
        &self,
        files: &mut Files,
        file: usize,
        u: UnitId,
        d: UnitId,
        weapons: &[(SystemId, Range<usize>)],
    ) -> bool {
        let unit = self.unit(u);
        let dname = &self.unit(d).name;
        let mut ok = true;
        for (s, span) in weapons {
            let k1 = matches!(unit.systems[*s].kind, SystemKind::KGun { class: 1, .. });
            let emp1 = matches!(unit.systems[*s].kind, SystemKind::EmpProjector { .. });
            if !(matches!(unit.systems[*s].kind, SystemKind::Beam { .. }) || k1 || emp1) {
                continue;
            }
            let why = if k1 {
                "K-1s in point-defence mode defend only their own Unit (ft-rules §5.2 lists no K-gun for area defence)"
            } else if emp1 {
                "EMP-1s in point-defence mode defend only their own Unit, as class-1 beams (ft-rules §5.1, §5.2)"
            } else {
                "class-1 beams defend only their own Unit (ft-rules §2.3: never area defence)"
            };
            files.push(
                file,
                Diagnostic::error(
                    span.clone(),
                    format!("{} cannot defend `{dname}`: {why}", self.system_label(u, *s)),
                    format!("a weapon that may defend `{dname}`"),
                )
                .with_help(format!(
                    "list it in a `pd` entry without `defend` (or with defend = \"{}\")",
                    unit.name
                )),
            );
            ok = false;
        }
        ok
    }

    /// Whether Unit `u`'s ADFCs let its PDS-like `weapons` cover `d` too,
    /// given the Units it already `covered` this Volley; records `d` when
    /// they do, reports when they cannot.
    fn pd_adfc_cover(
        &self,
        files: &mut Files,
        file: usize,
        u: UnitId,
        (d, d_span): (UnitId, &Range<usize>),
        weapons: &[(SystemId, Range<usize>)],
        covered: &mut Vec<(UnitId, Range<usize>)>,
    ) -> bool {
        let unit = self.unit(u);
        let dname = &self.unit(d).name;
        // PDS and the PD-capable beam family reach another Unit
        // through an ADFC; an ADAF and a Scattergun are their own
        // area-defence mounts (O20).
        let through_adfc = weapons.iter().any(|(s, _)| {
            let k = &unit.systems[*s].kind;
            *k == SystemKind::Pds || k.fires_as_pds()
        });
        if !through_adfc || covered.iter().any(|(x, _)| *x == d) {
            return true;
        }
        let adfc = unit
            .systems
            .iter()
            .filter(|s| s.kind == SystemKind::Adfc && s.operational())
            .count();
        if adfc == 0 {
            files.push(
                file,
                Diagnostic::error(
                    d_span.clone(),
                    format!(
                        "`{}` has no working ADFC, so its point defence can defend only itself, not `{dname}`",
                        unit.name
                    ),
                    format!("defend = \"{}\", or no `defend`", unit.name),
                )
                .with_help(
                    "an ADFC lets a Unit's PDS cover one other Unit of its Formation \
                     (ft-rules §5.2); an ADAF or a Scattergun covers one by itself",
                ),
            );
            return false;
        }
        if covered.len() >= adfc {
            let others: Vec<String> = covered
                .iter()
                .map(|(x, span)| format!("`{}` ({})", self.unit(*x).name, files.at(file, file, span)))
                .collect();
            files.push(
                file,
                Diagnostic::error(
                    d_span.clone(),
                    format!(
                        "`{}` has {} working ADFC{}, so its point defence covers at most {adfc} other Unit{} in a Volley, and it already covers {}",
                        unit.name,
                        adfc,
                        if adfc == 1 { "" } else { "s" },
                        if adfc == 1 { "" } else { "s" },
                        others.join(", ")
                    ),
                    format!("one of the Units already covered, or `{}` itself", unit.name),
                )
                .with_help("each working ADFC covers one other Unit of the Formation (ft-rules §5.2)"),
            );
            return false;
        }
        covered.push((d, d_span.clone()));
        true
    }

    /// Checks a fire entry's `needle` tables against its weapons (after the
    /// default is expanded) and fills `order.needles`.
    fn needles(
        &self,
        files: &mut Files,
        file: usize,
        order: &mut FireOrder,
        t: FormationId,
        raw: Option<&S<Needles>>,
        note: &FireNotes,
    ) {
        let mut given: BTreeMap<SystemId, Range<usize>> = BTreeMap::new();
        let mut aim: Option<((UnitId, SystemId), Range<usize>)> = None;
        for (span, n) in raw.map(|r| r.get_ref().entries(&r.span())).unwrap_or_default() {
            let Some(w) = self.needle_weapon(files, file, order, &mut given, n) else {
                continue;
            };
            let Some(tu) = self.needle_unit(files, file, t, &span, n) else {
                continue;
            };
            let Some(ts) = self.needle_system(files, file, tu, n) else {
                continue;
            };
            if !self.one_needle_aim(files, file, &mut aim, (tu, ts), &span) {
                continue;
            }
            order.needles.push(NeedleOrder {
                weapon: w,
                unit: tu,
                system: ts,
            });
        }
        // Needle beams this Fire Control directs without a target.
        for &w in &order.weapons {
            if self.unit(order.unit).systems[w].kind != SystemKind::NeedleBeam || given.contains_key(&w) {
                continue;
            }
            self.untargeted_needle(files, file, order.unit, w, t, note);
        }
    }

    /// A `needle` table's `weapon`: a needle beam among this Fire Control's
    /// weapons, given one target in the entry.
    fn needle_weapon(
        &self,
        files: &mut Files,
        file: usize,
        order: &FireOrder,
        given: &mut BTreeMap<SystemId, Range<usize>>,
        n: &raw::RawNeedle,
    ) -> Option<SystemId> {
        let u = order.unit;
        let w = self.system(files, file, u, &n.weapon)?;
        let label = self.system_label(u, w);
        if self.unit(u).systems[w].kind != SystemKind::NeedleBeam {
            files.push(
                file,
                Diagnostic::error(
                    n.weapon.span(),
                    format!("{label} is not a needle beam"),
                    "the system number of a Needle Beam",
                ),
            );
            return None;
        }
        if !order.weapons.contains(&w) {
            files.push(
                file,
                Diagnostic::error(
                    n.weapon.span(),
                    format!("{label} is not among the weapons of this Fire Control"),
                    "a needle beam this Fire Control directs",
                )
                .with_help(
                    "list it in `weapons` (or leave `weapons` out), or aim it in the fire entry that directs it",
                ),
            );
            return None;
        }
        if let Some(first) = given.get(&w) {
            let at = files.at(file, file, first);
            files.push(
                file,
                Diagnostic::error(
                    n.weapon.span(),
                    format!("{label} already has a target in this fire entry ({at})"),
                    "one `needle` table per needle beam",
                ),
            );
            return None;
        }
        given.insert(w, n.weapon.span());
        Some(w)
    }

    /// A `needle` table's target Unit: the one named in Formation `t`, or its
    /// only ship when none is named; it must be in the fight.
    fn needle_unit(
        &self,
        files: &mut Files,
        file: usize,
        t: FormationId,
        span: &Range<usize>,
        n: &raw::RawNeedle,
    ) -> Option<UnitId> {
        let tu = match &n.unit {
            Some(name) => self.member(files, file, t, name),
            None => {
                let members: Vec<UnitId> = self.battle.formations[t]
                    .units
                    .iter()
                    .copied()
                    .filter(|&u| !self.unit(u).is_craft())
                    .collect();
                if members.len() == 1 && self.defs[t].complete {
                    Some(members[0])
                } else {
                    if self.defs[t].complete {
                        files.push(
                            file,
                            Diagnostic::error(
                                span.clone(),
                                format!(
                                    "Formation `{}` has {} Units: say which one the needle beam aims at with unit = \"…\"",
                                    self.defs[t].name,
                                    members.len()
                                ),
                                "unit = \"SHIP NAME\"",
                            ),
                        );
                    }
                    None
                }
            }
        }?;
        let target = self.unit(tu);
        if !target.active() {
            files.push(
                file,
                Diagnostic::error(
                    n.unit.as_ref().map_or(span.clone(), |x| x.span()),
                    format!(
                        "`{}` is out of the fight (destroyed or derelict): a needle beam cannot aim at it",
                        target.name
                    ),
                    "a Unit in the fight",
                ),
            );
            return None;
        }
        Some(tu)
    }

    /// A `needle` table's target system on Unit `tu`: not a core system and
    /// not yet destroyed.
    fn needle_system(&self, files: &mut Files, file: usize, tu: UnitId, n: &raw::RawNeedle) -> Option<SystemId> {
        let ts = self.system(files, file, tu, &n.system)?;
        let tsys = &self.unit(tu).systems[ts];
        let tlabel = self.system_label(tu, ts);
        if tsys.kind.is_core() {
            files.push(
                file,
                Diagnostic::error(
                    n.system.span(),
                    format!(
                        "{tlabel} is a core system: core systems cannot be targeted by needle beams (ft-rules §4.2)"
                    ),
                    "a system other than the Command Bridge, Power Core and LSS",
                ),
            );
            return None;
        }
        if tsys.state == SysState::Destroyed {
            files.push(
                file,
                Diagnostic::error(
                    n.system.span(),
                    format!("{tlabel} is already destroyed"),
                    "a system not yet destroyed",
                ),
            );
            return None;
        }
        Some(ts)
    }

    /// The needle beams of one Fire Control aim at one system: the first
    /// target sets `aim`, and another is refused (false).
    fn one_needle_aim(
        &self,
        files: &mut Files,
        file: usize,
        aim: &mut Option<((UnitId, SystemId), Range<usize>)>,
        target: (UnitId, SystemId),
        span: &Range<usize>,
    ) -> bool {
        match aim {
            Some((first, at)) if *first != target => {
                let at = files.at(file, file, at);
                files.push(
                    file,
                    Diagnostic::error(
                        span.clone(),
                        format!(
                            "the needle beams of one Fire Control aim at one system, and this Fire Control's already aim at {} ({at})",
                            self.system_label(first.0, first.1)
                        ),
                        "the same Unit and system, or another Fire Control",
                    )
                    .with_help("one Fire Control per needle-beam target system (ft-rules §2.4)"),
                );
                return false;
            }
            Some(_) => {}
            None => *aim = Some((target, span.clone())),
        }
        true
    }

    /// A needle beam `w` of Unit `u` that fires with this Fire Control but
    /// has no `needle` table: an error with an example aimed at Formation `t`.
    fn untargeted_needle(
        &self,
        files: &mut Files,
        file: usize,
        u: UnitId,
        w: SystemId,
        t: FormationId,
        note: &FireNotes,
    ) {
        let Some(span) = note
            .explicit
            .iter()
            .find(|(x, _)| *x == w)
            .map(|(_, s)| s.clone())
            .or_else(|| note.default.clone())
        else {
            return;
        };
        let example = self.battle.formations[t]
            .units
            .iter()
            .map(|&x| self.unit(x))
            .find(|x| x.active())
            .and_then(|x| {
                let s = x
                    .systems
                    .iter()
                    .position(|s| !s.kind.is_core() && s.state != SysState::Destroyed)?;
                Some(format!(
                    "needle = {{ weapon = {}, unit = \"{}\", system = {} }}",
                    w + 1,
                    x.name,
                    s + 1
                ))
            });
        let how = if note.default.is_some() && !note.explicit.iter().any(|(x, _)| *x == w) {
            "(it fires because weapons default to all) "
        } else {
            ""
        };
        let mut d = Diagnostic::error(
            span,
            format!(
                "{} fires with this Fire Control {how}but has no target: a needle beam aims at one system of one Unit",
                self.system_label(u, w)
            ),
            format!(
                "needle = {{ weapon = {}, unit = \"SHIP\", system = N }} in this fire entry",
                w + 1
            ),
        );
        d = match example {
            Some(e) => d.with_help(format!(
                "e.g. {e} (`fam ssd show` numbers the systems); or leave it out of `weapons`"
            )),
            None => d.with_help("or leave it out of `weapons`"),
        };
        files.push(file, d);
    }

    /// The name of a magazine: its `Magazine:` id as the record writes it.
    fn magazine_id(&self, u: UnitId, m: SystemId) -> String {
        let o = self.origins[u];
        match &self.records[o.record].file.items[o.item] {
            Item::Ship(s) => s.systems[m]
                .magazine
                .clone()
                .unwrap_or_else(|| format!("(system {})", m + 1)),
            _ => format!("(system {})", m + 1),
        }
    }

    /// One-shot weapons and magazine loads over the three Volleys of a
    /// plot: explicit orders that would fire a rack twice or draw more loads
    /// than a magazine has are errors; the default "all" takes a one-shot in
    /// the first Volley nothing else fires it, and a launcher while its
    /// magazine has loads the explicit orders do not need.
    fn ammunition(&self, files: &mut Files, file: usize, volleys: &mut [VolleyPlot; 3], notes: &[Notes; 3]) {
        let ammo = self.explicit_ammunition(files, file, volleys, notes);
        self.racks_fired_twice(files, file, &ammo.racks);
        self.magazines_overdrawn(files, file, &ammo.mags);
        self.default_ammunition(volleys, notes, &ammo);
    }

    /// The one-shot weapons and magazines the explicit weapon lists of the
    /// three Volleys draw on, with where; a launcher with no magazine is
    /// reported.
    fn explicit_ammunition(
        &self,
        files: &mut Files,
        file: usize,
        volleys: &[VolleyPlot; 3],
        notes: &[Notes; 3],
    ) -> Ammo {
        let mut racks: BTreeMap<(UnitId, SystemId), VolleySpans> = BTreeMap::new();
        let mut mags: BTreeMap<(UnitId, SystemId), Vec<Range<usize>>> = BTreeMap::new();
        for v in 0..3 {
            for (i, order) in volleys[v].fire.iter().enumerate() {
                if order.target.is_none() {
                    continue;
                }
                for (w, span) in &notes[v].fire[i].explicit {
                    let sys = &self.unit(order.unit).systems[*w];
                    if fires_once(&sys.kind) {
                        racks.entry((order.unit, *w)).or_default().push((v, span.clone()));
                    } else if sys.kind == SystemKind::Sml {
                        match sys.magazine {
                            Some(m) => mags.entry((order.unit, m)).or_default().push(span.clone()),
                            None => files.push(
                                file,
                                Diagnostic::error(
                                    span.clone(),
                                    format!("{} has no magazine to fire from", self.system_label(order.unit, *w)),
                                    "a launcher linked to an SMM by its `Magazine:` id",
                                ),
                            ),
                        }
                    }
                }
            }
        }
        Ammo { racks, mags }
    }

    /// Reports each one-shot weapon the explicit orders fire in more than
    /// one Volley, at every distinct place it is listed.
    fn racks_fired_twice(&self, files: &mut Files, file: usize, racks: &BTreeMap<(UnitId, SystemId), VolleySpans>) {
        for ((u, w), uses) in racks {
            if uses.len() < 2 {
                continue;
            }
            let mut which: Vec<String> = uses.iter().map(|(v, _)| (v + 1).to_string()).collect();
            which.dedup();
            let last = which.pop().unwrap_or_default();
            let which = if which.is_empty() {
                format!("Volley {last}")
            } else {
                format!("Volleys {} and {last}", which.join(", "))
            };
            let spans = distinct(uses.iter().map(|(_, s)| s));
            let help = if spans.len() == 1 {
                "a rack, heavy missile or submunition pack is spent when it fires; one [[plot.FORMATION.volley]] \
                 table stands for all three Volleys, so write three and list it in one"
            } else {
                "a rack, heavy missile or submunition pack is spent when it fires: list it in one Volley only"
            };
            for span in spans {
                files.push(
                    file,
                    Diagnostic::error(
                        span.clone(),
                        format!(
                            "{} is a one-shot weapon, plotted to fire in {which}: it fires once",
                            self.system_label(*u, *w)
                        ),
                        "one Volley",
                    )
                    .with_help(help),
                );
            }
        }
    }

    /// Loads magazine `m` of Unit `u` can still give: none unless it works.
    fn magazine_loads(&self, u: UnitId, m: SystemId) -> u32 {
        let mag = &self.unit(u).systems[m];
        if mag.state == SysState::Operational {
            mag.rounds_left()
        } else {
            0
        }
    }

    /// Reports each magazine the explicit orders draw more loads from than
    /// it has, at every distinct place a launcher on it is listed.
    fn magazines_overdrawn(
        &self,
        files: &mut Files,
        file: usize,
        mags: &BTreeMap<(UnitId, SystemId), Vec<Range<usize>>>,
    ) {
        for ((u, m), uses) in mags {
            let n = uses.len() as u32;
            let left = self.magazine_loads(*u, *m);
            if n <= left {
                continue;
            }
            let id = self.magazine_id(*u, *m);
            let times = if n == 1 {
                "once".to_string()
            } else {
                format!("{n} times")
            };
            let mag = &self.unit(*u).systems[*m];
            let message = match mag.state {
                SysState::Operational => format!(
                    "magazine {id} has {left} load{} left but its launchers are plotted to fire {times}",
                    if left == 1 { "" } else { "s" }
                ),
                SysState::Damaged => format!(
                    "magazine {id} is damaged (a magazine is lost, not repaired) but its launchers are plotted to fire {times}"
                ),
                SysState::Destroyed => {
                    format!("magazine {id} is destroyed but its launchers are plotted to fire {times}")
                }
            };
            let spans = distinct(uses.iter());
            for span in spans {
                files.push(
                    file,
                    Diagnostic::error(
                        span.clone(),
                        message.clone(),
                        format!("at most {left} salvo{} from magazine {id} in this Exchange", if left == 1 { "" } else { "s" }),
                    )
                    .with_help(format!(
                        "magazine {id} is system {} of `{}`; each Volley a launcher fires uses one load, and launchers on one magazine share its loads (ft-rules §4.3)",
                        m + 1,
                        self.unit(*u).name
                    )),
                );
            }
        }
    }

    /// Trims the default "all" Volley by Volley: a one-shot the explicit
    /// orders leave alone fires in the first Volley that takes it, and a
    /// launcher fires while its magazine has loads they do not need.
    fn default_ammunition(&self, volleys: &mut [VolleyPlot; 3], notes: &[Notes; 3], ammo: &Ammo) {
        let Ammo { racks, mags } = ammo;
        let mut taken: BTreeSet<(UnitId, SystemId)> = BTreeSet::new();
        let mut drawn: BTreeMap<(UnitId, SystemId), u32> = BTreeMap::new();
        for v in 0..3 {
            for (i, order) in volleys[v].fire.iter_mut().enumerate() {
                if notes[v].fire[i].default.is_none() || order.target.is_none() {
                    continue;
                }
                let u = order.unit;
                order.weapons.retain(|&w| {
                    let sys = &self.unit(u).systems[w];
                    if fires_once(&sys.kind) {
                        return !racks.contains_key(&(u, w)) && taken.insert((u, w));
                    }
                    if sys.kind != SystemKind::Sml {
                        return true;
                    }
                    let Some(m) = sys.magazine else { return false };
                    let explicit = mags.get(&(u, m)).map_or(0, |x| x.len() as u32);
                    let d = drawn.entry((u, m)).or_insert(0);
                    if explicit + *d < self.magazine_loads(u, m) {
                        *d += 1;
                        true
                    } else {
                        false
                    }
                });
            }
        }
    }
}

/// An orders file's standing orders: (file index, its `commander`, tables).
type OrdersDoctrine = (usize, Option<S<String>>, Vec<super::doctrine::RawDoctrine>);

/// The `[doctrine.FORMATION]` tables of the scenario and the orders files
/// (`super::doctrine`): each Formation has standing orders at most once, and
/// an orders file gives them only for its commander's Formations (the
/// `commander` key, else the commander whose Formations the file plots,
/// else the one of its first standing orders). Fills `loaded.doctrine` and
/// `loaded.doctrine_sources`.
fn doctrines(
    files: &mut Files,
    loaded: &mut Loaded,
    scenario: Vec<super::doctrine::RawDoctrine>,
    orders: Vec<OrdersDoctrine>,
) {
    const SC: usize = 0; // the scenario file
    let battle = &loaded.battle;
    let n = battle.formations.len();
    let mut out = vec![None; n];
    let mut given: Vec<Option<(usize, Range<usize>)>> = vec![None; n];
    let mut sources = vec![(SC, None, scenario)];
    sources.extend(orders.into_iter().map(|(file, c, d)| (file, Some(c), d)));
    for (file, commander, tables) in sources {
        // Whose Formations an orders file may give standing orders to.
        let mut owner = commander
            .flatten()
            .and_then(|c| battle.sides.iter().position(|s| &s.name == c.get_ref()));
        if file != SC && owner.is_none() {
            let name = &files.list[file].0.name;
            owner = (0..n)
                .find(|&f| loaded.plot_sources.get(f).and_then(Option::as_deref) == Some(name.as_str()))
                .map(|f| battle.formations[f].side);
        }
        for raw in tables {
            let f = match super::doctrine::formation(battle, &raw.formation) {
                Ok(f) => f,
                Err(d) => {
                    files.push(file, d);
                    continue;
                }
            };
            if let Some((other, span)) = &given[f] {
                let at = files.at(file, *other, span);
                files.push(
                    file,
                    Diagnostic::error(
                        raw.formation.span(),
                        format!(
                            "Formation `{}` already has standing orders ({at})",
                            battle.formations[f].name
                        ),
                        "one [doctrine.FORMATION] table per Formation",
                    ),
                );
                continue;
            }
            let side = battle.formations[f].side;
            if file != SC {
                match owner {
                    None => owner = Some(side),
                    Some(o) if o != side => {
                        files.push(
                            file,
                            Diagnostic::error(
                                raw.formation.span(),
                                format!(
                                    "Formation `{}` belongs to `{}`, and this orders file is `{}`'s",
                                    battle.formations[f].name, battle.sides[side].name, battle.sides[o].name
                                ),
                                "a Formation of this commander",
                            )
                            .with_help("an orders file gives standing orders only to its commander's Formations"),
                        );
                        continue;
                    }
                    Some(_) => {}
                }
            }
            given[f] = Some((file, raw.formation.span()));
            let (d, diags) = super::doctrine::resolve(&raw, f, battle);
            for d in diags {
                files.push(file, d);
            }
            out[f] = d;
        }
    }
    loaded.doctrine_sources = given
        .iter()
        .map(|g| g.as_ref().map(|(file, _)| files.list[*file].0.name.clone()))
        .collect();
    loaded.doctrine = out;
}
