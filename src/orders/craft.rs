//! Fighter groups and gunboat squadrons in scenarios and plots
//! (docs/fighters.md §6-7): which groups the records hold, which take part
//! in the battle and in which Formation, their Units, and the checks of the
//! plot keys `launch`, `recover`, `fighters`, `after` and `fire.group`.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use super::raw::{RawCraftOrder, RawVolley, S, Word};
use super::{Cx, Files, Notes, ShipRef, unit_key};
use crate::diag::Diagnostic;
use crate::engine::plot::{CraftAction, CraftOrder, FormationId, Maneuver, ManeuverOrder, UnitId, VolleyPlot};
use crate::engine::rules::{PilotQualityRule, Rules};
use crate::engine::state::{Battle, Craft, CraftKind, GunboatKind, Rearm, SysState, Unit};
use crate::gzf::parse::FieldSpans;
use crate::model::{
    CheckBox, DamageState, FighterBase, FighterGroup, FighterModifier, FighterType, GroupRearm, GunboatType, Launch,
    Profile,
};
use crate::model::{Item, System, SystemKind};
use crate::orders::Record;

/// What a group flies, for messages: `Light Interceptor fighters`,
/// `gunboats`.
fn kind_name(gunboat: Option<GunboatType>, ft: FighterType) -> String {
    match gunboat {
        Some(_) => "gunboats".to_string(),
        None => format!("{} fighters", ft.name()),
    }
}

/// A group the records hold: a Fighter-Group block, or a full group implied
/// by a hangar bay with `Fighter-Type:` and no block (docs/fighters.md §7).
#[derive(Debug, Clone)]
pub(super) struct GroupDef {
    /// The block's id, or `CARRIER/N` for a bay group (N = the bay's system
    /// number on the carrier's Unit).
    pub name: String,
    pub record: usize,
    /// The Fighter-Group item; `None` for a bay group.
    pub item: Option<usize>,
    /// The carrier (record, item), a ship or a base, when `Carrier:` names
    /// a loaded one.
    pub carrier: Option<(usize, usize)>,
    /// The part of a base carrier whose bay holds the group (`None`: a
    /// ship, or the `Base:` block; readings F50).
    pub part: Option<usize>,
    /// The hangar bay (system index on the carrier's part) the group sits in.
    pub bay: Option<usize>,
    /// Where messages about the group point: (file index, span).
    pub at: (usize, Range<usize>),
}

impl GroupDef {
    fn block<'r>(&self, records: &'r [Record]) -> Option<&'r FighterGroup> {
        match &records[self.record].file.items[self.item?] {
            Item::FighterGroup(g) => Some(g),
            _ => None,
        }
    }
}

/// Where in a GZF file a field of an item is, falling back to the block's first field.
fn field_at(spans: &[Vec<FieldSpans>], record: usize, item: usize, fields: &[&str]) -> Range<usize> {
    let Some(s) = spans.get(record).and_then(|r| r.get(item)) else {
        return 0..0;
    };
    fields.iter().find_map(|f| s.get(*f).cloned()).unwrap_or(0..0)
}

/// The systems of a carrier's part: a ship's, a base's `Base:` block
/// (`part` `None`) or its `part`-th `Base-Sector:` block.
pub(in crate::orders) fn part_systems(item: &Item, part: Option<usize>) -> &[System] {
    match (item, part) {
        (Item::Ship(s), _) => &s.systems,
        (Item::Base(b), None) => &b.systems,
        (Item::Base(b), Some(k)) => b.sectors.get(k).map_or(&[], |s| &s.systems),
        _ => &[],
    }
}

/// The Unit name of a carrier's part (a ship's name, a base part's,
/// readings O40).
pub(in crate::orders) fn part_name(item: &Item, part: Option<usize>) -> String {
    match item {
        Item::Ship(s) => s.name.trim().to_string(),
        Item::Base(b) => super::bases::part_name(b, part).trim().to_string(),
        _ => String::new(),
    }
}

/// A carrier's hangar bays as (part, system index), parts in Unit order,
/// bays in record order. A ship has one part; a base one per Unit it
/// fights as.
fn carrier_bays(item: &Item) -> Vec<(Option<usize>, usize)> {
    let parts = match item {
        Item::Base(b) => super::bases::parts(b),
        _ => vec![None],
    };
    parts
        .into_iter()
        .flat_map(|p| {
            part_systems(item, p)
                .iter()
                .enumerate()
                .filter(|(_, s)| s.kind == SystemKind::HangarBay)
                .map(move |(i, _)| (p, i))
        })
        .collect()
}

/// What a group's `Carrier:` names: a carrier (record, item), and the part
/// of a base it names (`Some(part)` for `BASE sector N`; `None`: any bay of
/// the carrier).
type CarrierName = ((usize, usize), Option<Option<usize>>);

/// Group blocks (index in the groups found, part of a base named) by the
/// carrier (record, item) they name.
type Naming = BTreeMap<(usize, usize), Vec<(usize, Option<Option<usize>>)>>;

/// Bays taken, (part, system index), by carrier (record, item).
type Taken = BTreeMap<(usize, usize), Vec<(Option<usize>, usize)>>;

/// Every name a `Carrier:` may give: loaded ships, bases, and the parts of
/// sectored bases by their Unit names (`BASE sector N`).
fn carrier_names(
    records: &[Record],
    ships: &BTreeMap<String, ShipRef>,
    bases: &BTreeMap<String, ShipRef>,
) -> BTreeMap<String, CarrierName> {
    let mut out: BTreeMap<String, CarrierName> = BTreeMap::new();
    for (key, b) in bases {
        out.insert(key.clone(), ((b.record, b.item), None));
        if let Item::Base(base) = &records[b.record].file.items[b.item] {
            for part in super::bases::parts(base).into_iter().filter(Option::is_some) {
                let name = unit_key(&super::bases::part_name(base, part));
                out.entry(name).or_insert(((b.record, b.item), Some(part)));
            }
        }
    }
    for (key, s) in ships {
        out.insert(key.clone(), ((s.record, s.item), None));
    }
    out
}

/// Every group of the records, with its carrier and bay; reports groups
/// naming an unknown ship or base as carrier, and more groups naming a
/// carrier than it has hangar bays.
pub(super) fn discover(
    files: &mut Files,
    records: &[Record],
    record_files: &[usize],
    spans: &[Vec<FieldSpans>],
    ships: &BTreeMap<String, ShipRef>,
    bases: &BTreeMap<String, ShipRef>,
) -> Vec<GroupDef> {
    let names = carrier_names(records, ships, bases);
    let mut out = Vec::new();
    // Blocks naming each carrier, in record and file order, with the part
    // of a base they name.
    let mut naming: Naming = BTreeMap::new();
    for (r, rec) in records.iter().enumerate() {
        for (i, item) in rec.file.items.iter().enumerate() {
            let Item::FighterGroup(g) = item else { continue };
            let file = record_files[r];
            let mut def = GroupDef {
                name: g.id.trim().to_string(),
                record: r,
                item: Some(i),
                carrier: None,
                part: None,
                bay: None,
                at: (file, field_at(spans, r, i, &["fighter-group"])),
            };
            let mut named_part = None;
            if let Some(c) = &g.carrier {
                match names.get(&unit_key(c)) {
                    Some(&(carrier, part)) => {
                        def.carrier = Some(carrier);
                        named_part = part;
                    }
                    None => files.push(
                        file,
                        Diagnostic::error(
                            field_at(spans, r, i, &["carrier", "fighter-group"]),
                            format!(
                                "group `{}` names `{c}` as its carrier, and no loaded record holds that ship or base",
                                g.id
                            ),
                            "the name of a ship or base with hangar bays in the scenario's records",
                        ),
                    ),
                }
            }
            // Gunboats start launched and never dock: they take no bay.
            if let Some(c) = def.carrier.filter(|_| g.gunboat.is_none()) {
                naming.entry(c).or_default().push((out.len(), named_part));
            }
            out.push(def);
        }
    }
    let taken = assign_bays(files, records, record_files, spans, &naming, &mut out);
    implied_groups(records, record_files, spans, ships, bases, &taken, &mut out);
    check_group_names(files, records, ships, &out);
    out
}

/// Bays: a block named `CARRIER/N` sits in bay N of that part (fam writes
/// bay groups so); the others fill the free bays in order (F28; a base's
/// parts in Unit order, F50). Returns the bays taken per carrier.
fn assign_bays(
    files: &mut Files,
    records: &[Record],
    record_files: &[usize],
    spans: &[Vec<FieldSpans>],
    naming: &Naming,
    out: &mut [GroupDef],
) -> Taken {
    let mut taken: Taken = BTreeMap::new();
    for (c, list) in naming {
        let item = &records[c.0].file.items[c.1];
        let bays = carrier_bays(item);
        let used = taken.entry(*c).or_default();
        let fits = |named: Option<Option<usize>>, bay: &(Option<usize>, usize)| named.is_none_or(|p| p == bay.0);
        for &(d, named) in list {
            let key = unit_key(&out[d].name);
            if let Some(&b) = bays
                .iter()
                .find(|b| fits(named, b) && unit_key(&bay_group_name(&part_name(item, b.0), b.1)) == key)
                && !used.contains(&b)
            {
                (out[d].part, out[d].bay) = (b.0, Some(b.1));
                used.push(b);
            }
        }
        for (k, &(d, named)) in list.iter().enumerate() {
            if out[d].bay.is_some() {
                continue;
            }
            match bays.iter().find(|b| fits(named, b) && !used.contains(b)) {
                Some(&b) => {
                    (out[d].part, out[d].bay) = (b.0, Some(b.1));
                    used.push(b);
                }
                None => {
                    let (r, i) = (out[d].record, out[d].item.unwrap_or(0));
                    let holder = match named {
                        Some(p) => part_name(item, p),
                        None => part_name(item, None),
                    };
                    let n = bays.iter().filter(|b| fits(named, b)).count();
                    files.push(
                        record_files[r],
                        Diagnostic::error(
                            field_at(spans, r, i, &["carrier", "fighter-group"]),
                            format!(
                                "`{holder}` has {n} hangar bay{}, and group `{}` is group {} naming it as carrier",
                                if n == 1 { "" } else { "s" },
                                out[d].name,
                                k + 1
                            ),
                            format!("at most {n} Fighter-Group blocks naming `{holder}`"),
                        )
                        .with_help(
                            "a group named CARRIER/N sits in bay N, the others in the carrier's free hangar bays in order (docs/fighters.md §7)",
                        ),
                    );
                }
            }
        }
    }
    taken
}

/// Full groups implied by the bays of ships and bases with a fighter type
/// and no block.
fn implied_groups(
    records: &[Record],
    record_files: &[usize],
    spans: &[Vec<FieldSpans>],
    ships: &BTreeMap<String, ShipRef>,
    bases: &BTreeMap<String, ShipRef>,
    taken: &Taken,
    out: &mut Vec<GroupDef>,
) {
    for carrier in ships.values().chain(bases.values()) {
        let item = &records[carrier.record].file.items[carrier.item];
        let used = taken.get(&(carrier.record, carrier.item));
        for (part, b) in carrier_bays(item) {
            if used.is_some_and(|u| u.contains(&(part, b))) {
                continue;
            }
            let sys = &part_systems(item, part)[b];
            if sys.fighter_type.is_none() || sys.status.damage == Some(DamageState::Destroyed) {
                continue;
            }
            out.push(GroupDef {
                name: bay_group_name(&part_name(item, part), b),
                record: carrier.record,
                item: None,
                carrier: Some((carrier.record, carrier.item)),
                part,
                bay: Some(b),
                at: (
                    record_files[carrier.record],
                    field_at(spans, carrier.record, carrier.item, &["ship", "base"]),
                ),
            });
        }
    }
}

/// Group names unique among groups and distinct from ship names (orders
/// name both).
fn check_group_names(files: &mut Files, records: &[Record], ships: &BTreeMap<String, ShipRef>, out: &[GroupDef]) {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (i, g) in out.iter().enumerate() {
        let key = unit_key(&g.name);
        if g.name.is_empty() {
            files.push(
                g.at.0,
                Diagnostic::error(
                    g.at.1.clone(),
                    "a Fighter-Group without an id",
                    "an id: orders name groups by it",
                ),
            );
            continue;
        }
        if ships.contains_key(&key) {
            files.push(
                g.at.0,
                Diagnostic::error(
                    g.at.1.clone(),
                    format!("group `{}` has the name of a ship", g.name),
                    "group ids distinct from ship names (orders name both)",
                ),
            );
        } else if let Some(&first) = seen.get(&key) {
            files.push(
                g.at.0,
                Diagnostic::error(
                    g.at.1.clone(),
                    format!(
                        "a second group named `{}` (the first is in `{}`)",
                        g.name, records[out[first].record].path
                    ),
                    "group ids unique across the records",
                ),
            );
        } else {
            seen.insert(key, i);
        }
    }
}

/// The name of a group implied by a hangar bay: `SHIP/N`, N the bay's
/// 1-based system number (as orders number systems, e.g. `fc = 5`).
pub fn bay_group_name(ship: &str, bay: usize) -> String {
    format!("{}/{}", ship.trim(), bay + 1)
}

/// Default endurance (reading F19): FB1 6 (long range 9), FT2 3 (long
/// range 5); gunboats 6.
fn default_cef(t: Option<FighterType>, gunboat: bool, profile: Profile) -> u32 {
    let long = t.is_some_and(|t| t.modifier == Some(FighterModifier::LongRange));
    match (gunboat, profile, long) {
        (true, _, _) => 6,
        _ if t.is_some_and(|t| t.light) => 4,
        (false, Profile::Fb1, false) => 6,
        (false, Profile::Fb1, true) => 9,
        (false, Profile::Ft2, false) => 3,
        (false, Profile::Ft2, true) => 5,
    }
}

/// Builds the Unit of a group taking part in the battle (carrier left
/// unset: the caller links it once every Unit exists). Drone pods and
/// groups of more craft than their type holds (6, or 8 light fighters) are
/// refused here, where they would fight.
pub(super) fn group_unit(
    files: &mut Files,
    g: &GroupDef,
    records: &[Record],
    spans: &[Vec<FieldSpans>],
    rules: &Rules,
    side: usize,
    formation: FormationId,
) -> Unit {
    let profile = records[g.record].file.profile;
    let block = g.block(records);
    let (fighter_type, quality, craft, boxes, cef, cef_max, status, rearm, rounds, gunboat) = match block {
        Some(b) => {
            let open = |v: &[CheckBox]| v.iter().filter(|x| !x.crossed).count() as u32;
            let (cef, cef_max) = match &b.endurance {
                Some(e) => (open(e), e.len() as u32),
                None => {
                    let d = default_cef(b.fighter_type, b.gunboat.is_some(), profile);
                    (d, d)
                }
            };
            (
                b.fighter_type,
                b.pilot_quality,
                open(&b.craft),
                b.craft.len() as u32,
                cef,
                cef_max,
                Some(b.status),
                b.rearm,
                b.rounds.as_ref().is_some_and(|r| r.iter().any(|x| x.crossed)),
                b.gunboat,
            )
        }
        None => {
            let carrier = &records[g.record].file.items[g.carrier.map_or(0, |c| c.1)];
            let Some(bay) = part_systems(carrier, g.part).get(g.bay.unwrap_or(0)) else {
                unreachable!("bay groups sit in a hangar bay of their carrier");
            };
            let d = default_cef(bay.fighter_type, false, profile);
            let n = bay.fighter_type.map_or(6, |t| t.max_craft());
            (bay.fighter_type, bay.pilot_quality, n, n, d, d, None, None, false, None)
        }
    };
    let span = |fields: &[&str]| match g.item {
        Some(i) => field_at(spans, g.record, i, fields),
        None => g.at.1.clone(),
    };
    let ft = fighter_type.unwrap_or(FighterType {
        modifier: None,
        base: FighterBase::Standard,
        light: false,
    });
    if boxes > ft.max_craft() {
        files.push(
            g.at.0,
            Diagnostic::error(
                span(&["craft"]),
                format!("group `{}` has {boxes} craft boxes", g.name),
                format!(
                    "at most {} craft in a group of {}",
                    ft.max_craft(),
                    kind_name(gunboat, ft)
                ),
            )
            .with_help("a group holds 6 fighters, 8 light ones (`Fighter-Type: Light …`, docs/fighters.md §2)"),
        );
    }
    if ft.base == FighterBase::DronePod {
        files.push(
            g.at.0,
            Diagnostic::error(
                span(&["fighter-type", "type"]),
                format!("group `{}` is a drone pod: fam has no rules for drone pods", g.name),
                "Standard, Interceptor, Attack or Torpedo fighters (optionally Fast, Heavy or Long Range)",
            )
            .with_help("docs/fighters.md §10: drone pods are left out; the record still loads"),
        );
    }
    let kind = match gunboat {
        Some(GunboatType::Beam) => CraftKind::Gunboat(GunboatKind::Beam),
        Some(GunboatType::Torpedo) => CraftKind::Gunboat(GunboatKind::Torpedo),
        Some(GunboatType::Gatling) => CraftKind::Gunboat(GunboatKind::Gatling),
        Some(GunboatType::KGun) => CraftKind::Gunboat(GunboatKind::KGun),
        Some(GunboatType::Rocket) => CraftKind::Gunboat(GunboatKind::Rocket),
        Some(GunboatType::Submunition) => CraftKind::Gunboat(GunboatKind::Submunition),
        Some(GunboatType::Missile) => CraftKind::Gunboat(GunboatKind::Missile),
        Some(GunboatType::Pds) => CraftKind::Gunboat(GunboatKind::Pds),
        None => CraftKind::Fighter(ft),
    };
    let docked = match status.and_then(|s| s.launch) {
        Some(Launch::Docked) => true,
        Some(Launch::Launched) => false,
        // A bay group is in its bay; a block without a launch status has a
        // position of its own (readings F30).
        None => block.is_none(),
    };
    let c = Craft {
        kind,
        quality: quality.filter(|_| rules.pilot_quality == PilotQualityRule::Record),
        craft,
        boxes,
        cef,
        cef_max,
        torpedoes_spent: rounds,
        carrier: None,
        docked: docked && gunboat.is_none(),
        rearm: match rearm {
            None | Some(GroupRearm::Volleys(0)) => Rearm::Ready,
            Some(GroupRearm::Volleys(n)) => Rearm::In(n),
            Some(GroupRearm::Never) => Rearm::Never,
        },
        launched_now: false,
    };
    let mut u = Unit::from_craft(&g.name, profile, side, formation, c);
    // A squadron of its own (no carrier) is worth its craft; a carrier's
    // groups are in the carrier's points (readings F23).
    if let Some(b) = block.filter(|b| b.carrier.is_none()) {
        u.points = crate::model::points::group_points(b);
    }
    if status.is_some_and(|s| s.damage == Some(DamageState::Destroyed)) {
        u.destroyed = true;
    }
    u
}

/// Where a group's launch or recovery is written, for the Exchange checks.
#[derive(Debug, Clone, Default)]
pub(super) struct CraftNotes {
    pub launch: Vec<(UnitId, Range<usize>)>,
    pub recover: Vec<(UnitId, Range<usize>)>,
    /// Speed and Evasion as written (value, span), for Formations of small
    /// craft only, whose thrust is known only once every plot is read.
    pub speed: Option<(u32, Range<usize>)>,
    pub evasion: Option<(u32, Range<usize>)>,
    pub span: Range<usize>,
}

impl Cx<'_> {
    /// A Formation whose every member is a small-craft Unit.
    pub(super) fn craft_formation(&self, f: FormationId) -> bool {
        let units = &self.battle.formations[f].units;
        !units.is_empty() && units.iter().all(|&u| self.unit(u).is_craft())
    }

    /// A Formation that flies on its small craft's thrust: it holds small
    /// craft and none of its ships is in the fight (a Formation of small
    /// craft only, or one whose ships are destroyed, derelict or
    /// surrendered). Its Formation Thrust, as the engine reckons it, is
    /// that of its groups out in each Volley, so its Speed and Evasion are
    /// checked Volley by Volley once every launch is known.
    pub(super) fn craft_thrust(&self, f: FormationId) -> bool {
        let units = &self.battle.formations[f].units;
        let ship_in_fight = |u: &UnitId| !self.unit(*u).is_craft() && self.unit(*u).active();
        units.iter().any(|&u| self.unit(u).is_craft()) && !units.iter().any(ship_in_fight)
    }

    /// A group or squadron named in a plot.
    fn group(&self, files: &mut Files, file: usize, name: &S<String>) -> Option<UnitId> {
        let key = unit_key(name.get_ref());
        match self.battle.units.iter().position(|u| unit_key(&u.name) == key) {
            Some(u) if self.unit(u).is_craft() => Some(u),
            Some(u) => {
                files.push(
                    file,
                    Diagnostic::error(
                        name.span(),
                        format!(
                            "`{}` is a ship, not a fighter group or gunboat squadron",
                            self.unit(u).name
                        ),
                        "the name of a group (its Fighter-Group id, or SHIP/N for a bay group)",
                    ),
                );
                None
            }
            None => {
                let groups: Vec<&str> = self
                    .battle
                    .units
                    .iter()
                    .filter(|u| u.is_craft())
                    .map(|u| u.name.as_str())
                    .collect();
                let d = Diagnostic::error(
                    name.span(),
                    format!("no group named `{}` in this battle", name.get_ref()),
                    "the name of a group (its Fighter-Group id, or SHIP/N for a bay group)",
                );
                files.push_unknown_unit(file, super::name_help(d, name.get_ref(), groups, "groups"));
                None
            }
        }
    }

    /// Any Unit named in a plot (ship or group).
    fn any_unit(&self, files: &mut Files, file: usize, name: &S<String>) -> Option<UnitId> {
        let key = unit_key(name.get_ref());
        let found = self.battle.units.iter().position(|u| unit_key(&u.name) == key);
        if found.is_none() {
            let d = Diagnostic::error(
                name.span(),
                format!("no Unit named `{}` in this battle", name.get_ref()),
                "a ship or group of the scenario",
            );
            let units = self.battle.units.iter().map(|u| u.name.as_str());
            files.push_unknown_unit(file, super::name_help(d, name.get_ref(), units, "Units"));
        }
        found
    }

    /// The small-craft keys of one Volley: `launch`, `recover`, `fighters`
    /// and `after` (`fire.group` is read with the fire entries).
    pub(super) fn volley_craft(
        &self,
        files: &mut Files,
        file: usize,
        f: FormationId,
        v: &RawVolley,
        out: &mut VolleyPlot,
        notes: &mut Notes,
    ) {
        for name in v.launch.iter().flatten() {
            self.launch_one(files, file, f, name, out, notes);
        }
        for name in v.recover.iter().flatten() {
            self.recover_one(files, file, f, name, out, notes);
        }
        let mut acted: BTreeMap<UnitId, Range<usize>> = BTreeMap::new();
        for entry in v.fighters.iter().flatten() {
            if let Some(order) = self.craft_order(files, file, f, entry, &mut acted) {
                out.craft.push(order);
            }
        }
        if let Some(after) = &v.after {
            self.secondary_maneuver(files, file, f, after, out);
        }
    }

    /// Whether a group's carrier is a Unit of Formation `f`.
    fn carrier_in(&self, f: FormationId, c: &Craft) -> bool {
        c.carrier
            .is_some_and(|(cu, _)| self.battle.formations[f].units.contains(&cu))
    }

    /// One name of `launch`: a docked group of this Formation's carriers,
    /// launched once.
    fn launch_one(
        &self,
        files: &mut Files,
        file: usize,
        f: FormationId,
        name: &S<String>,
        out: &mut VolleyPlot,
        notes: &mut Notes,
    ) {
        let Some(g) = self.group(files, file, name) else {
            return;
        };
        let unit = self.unit(g);
        if let Some((msg, expected)) = self.launch_problem(f, unit) {
            files.push(file, Diagnostic::error(name.span(), msg, expected));
            return;
        }
        if out.launch.contains(&g) {
            files.push(
                file,
                Diagnostic::error(
                    name.span(),
                    format!("`{}` is launched twice in this Volley", unit.name),
                    "each group once",
                ),
            );
            return;
        }
        out.launch.push(g);
        notes.craft.launch.push((g, name.span()));
    }

    /// Why a group cannot be launched by Formation `f` (message and what
    /// was expected), checked in order; `None` if it can.
    fn launch_problem(&self, f: FormationId, unit: &Unit) -> Option<(String, String)> {
        let fname = &self.defs[f].name;
        let c = unit.craft.expect("a group");
        if matches!(c.kind, CraftKind::Gunboat(_)) {
            Some((
                format!(
                    "`{}` is a gunboat squadron: gunboats start launched and are never launched",
                    unit.name
                ),
                "a docked fighter group".to_string(),
            ))
        } else if !self.carrier_in(f, &c) {
            let whose = c.carrier.map_or("it has no carrier".to_string(), |(cu, _)| {
                format!(
                    "its carrier `{}` is in Formation `{}`",
                    self.unit(cu).name,
                    self.defs[self.unit(cu).formation].name
                )
            });
            Some((
                format!("`{}` cannot be launched by `{fname}`: {whose}", unit.name),
                format!("a group docked in a carrier of `{fname}`"),
            ))
        } else if unit.destroyed {
            Some((format!("`{}` is destroyed", unit.name), "a docked group".to_string()))
        } else if !c.docked {
            Some((
                format!("`{}` is not docked at the start of the Exchange", unit.name),
                "a group docked in its bay".to_string(),
            ))
        } else if c.rearm == Rearm::Never {
            Some((
                format!("`{}` cannot launch again this battle (`Rearm: Never`)", unit.name),
                "a ready group".to_string(),
            ))
        } else if let Some((cu, bay)) = c.carrier
            && self
                .unit(cu)
                .systems
                .get(bay)
                .is_some_and(|s| s.state != SysState::Operational)
        {
            Some((
                format!(
                    "`{}` sits in hangar bay {} of `{}`, which is {}",
                    unit.name,
                    bay + 1,
                    self.unit(cu).name,
                    if self.unit(cu).systems[bay].state == SysState::Damaged {
                        "damaged"
                    } else {
                        "destroyed"
                    }
                ),
                "a group in a working bay".to_string(),
            ))
        } else if let Some((cu, _)) = c.carrier.filter(|(cu, _)| !self.unit(*cu).can_act()) {
            Some((
                format!(
                    "its carrier `{}` is out of the fight or out of control",
                    self.unit(cu).name
                ),
                "a carrier that can act".to_string(),
            ))
        } else {
            None
        }
    }

    /// One name of `recover`: a living group of this side whose carrier
    /// is in this Formation, recovered once.
    fn recover_one(
        &self,
        files: &mut Files,
        file: usize,
        f: FormationId,
        name: &S<String>,
        out: &mut VolleyPlot,
        notes: &mut Notes,
    ) {
        let fname = &self.defs[f].name;
        let side = self.battle.formations[f].side;
        let Some(g) = self.group(files, file, name) else {
            return;
        };
        let unit = self.unit(g);
        let c = unit.craft.expect("a group");
        let problem = if unit.side != side {
            Some(format!("`{}` is a group of another side", unit.name))
        } else if c.carrier.is_none() {
            Some(format!("`{}` has no carrier to recover into", unit.name))
        } else if !self.carrier_in(f, &c) {
            let (cu, _) = c.carrier.expect("checked");
            Some(format!(
                "the carrier of `{}` is `{}`, in Formation `{}`",
                unit.name,
                self.unit(cu).name,
                self.defs[self.unit(cu).formation].name
            ))
        } else if unit.destroyed {
            Some(format!("`{}` is destroyed", unit.name))
        } else {
            None
        };
        match problem {
            Some(msg) => files.push(
                file,
                Diagnostic::error(
                    name.span(),
                    msg,
                    format!("a group of this side whose carrier is in `{fname}`"),
                ),
            ),
            None if out.recover.contains(&g) => files.push(
                file,
                Diagnostic::error(
                    name.span(),
                    format!("`{}` is recovered twice in this Volley", unit.name),
                    "each group once",
                ),
            ),
            None => {
                out.recover.push(g);
                notes.craft.recover.push((g, name.span()));
            }
        }
    }

    /// `after`: the secondary maneuver of a Formation of small craft, one
    /// close or withdraw against a Formation.
    fn secondary_maneuver(
        &self,
        files: &mut Files,
        file: usize,
        f: FormationId,
        after: &S<BTreeMap<S<Word>, S<String>>>,
        out: &mut VolleyPlot,
    ) {
        let fname = &self.defs[f].name;
        if let Some(&ship) = self.battle.formations[f]
            .units
            .iter()
            .find(|&&u| !self.unit(u).is_craft())
        {
            files.push(
                file,
                Diagnostic::error(
                    after.span(),
                    format!(
                        "`{fname}` holds a ship (`{}`): only Formations of small craft make a secondary maneuver",
                        self.unit(ship).name
                    ),
                    "no `after` in this Formation",
                )
                .with_help("docs/fighters.md §4.3 (reading F4)"),
            );
            return;
        }
        let mut entries: Vec<_> = after.get_ref().iter().collect();
        entries.sort_by_key(|(k, _)| k.span().start);
        let [(word, target)] = entries.as_slice() else {
            files.push(
                file,
                Diagnostic::error(
                    after.span(),
                    format!("`after` gives {} maneuvers", entries.len()),
                    "one: after = { close = \"FORMATION\" } or { withdraw = \"FORMATION\" }",
                ),
            );
            return;
        };
        let maneuver = match word.get_ref() {
            Word::Close => Some(Maneuver::Close),
            Word::Withdraw => Some(Maneuver::Withdraw),
            Word::Maintain => {
                files.push(
                    file,
                    Diagnostic::error(
                        word.span(),
                        "a secondary maneuver closes or withdraws",
                        "after = { close = \"FORMATION\" } or { withdraw = \"FORMATION\" }",
                    ),
                );
                None
            }
        };
        let t = self.formation_target(files, file, f, target, "maneuver against");
        if let (Some(maneuver), Some(target)) = (maneuver, t) {
            out.after = Some(ManeuverOrder { target, maneuver });
        }
    }

    /// One `fighters` entry: a group of this Formation with exactly one
    /// action, its first this Volley.
    fn craft_order(
        &self,
        files: &mut Files,
        file: usize,
        f: FormationId,
        entry: &S<RawCraftOrder>,
        acted: &mut BTreeMap<UnitId, Range<usize>>,
    ) -> Option<CraftOrder> {
        let e = entry.get_ref();
        let fname = &self.defs[f].name;
        let g = self.group(files, file, &e.group)?;
        let unit = self.unit(g);
        if unit.formation != f {
            files.push(
                file,
                Diagnostic::error(
                    e.group.span(),
                    format!(
                        "`{}` is in Formation `{}`, not in `{fname}`",
                        unit.name, self.defs[unit.formation].name
                    ),
                    format!("a group of `{fname}`"),
                ),
            );
            return None;
        }
        let given = [
            e.attack.as_ref().map(|x| x.span()),
            e.dogfight.as_ref().map(|x| x.span()),
            e.screen.as_ref().map(|x| x.span()),
            e.intercept.as_ref().map(|x| x.span()),
        ];
        let n = given.iter().flatten().count();
        if n != 1 {
            let span = given.iter().flatten().nth(1).cloned().unwrap_or_else(|| entry.span());
            files.push(
                file,
                Diagnostic::error(
                    span,
                    format!("{n} actions for `{}` in one entry", unit.name),
                    "exactly one of attack = \"SHIP\", dogfight = \"GROUP\", screen = \"SHIP\", intercept = true",
                ),
            );
            return None;
        }
        if let Some(first) = acted.get(&g) {
            let at = files.at(file, file, first);
            files.push(
                file,
                Diagnostic::error(
                    e.group.span(),
                    format!("`{}` already has an action in this Volley ({at})", unit.name),
                    "one action per group and Volley",
                ),
            );
            return None;
        }
        acted.insert(g, e.group.span());
        let action = if let Some(t) = &e.attack {
            self.attack_action(files, file, unit, t)?
        } else if let Some(t) = &e.dogfight {
            self.dogfight_action(files, file, unit, &e.group, t)?
        } else if let Some(t) = &e.screen {
            self.screen_action(files, file, f, unit, &e.group, t)?
        } else {
            let i = e.intercept.as_ref().expect("one action given");
            intercept_action(files, file, unit, i)?
        };
        Some(CraftOrder { group: g, action })
    }

    /// `attack = "SHIP"`: an enemy ship, or gunboat squadron for fighters.
    fn attack_action(&self, files: &mut Files, file: usize, unit: &Unit, t: &S<String>) -> Option<CraftAction> {
        let tu = self.any_unit(files, file, t)?;
        let target = self.unit(tu);
        let gunboat = is_gunboat(unit);
        if target.side == unit.side {
            return fail(
                files,
                file,
                t.span(),
                format!("`{}` is a friend", target.name),
                "an enemy ship",
            );
        }
        if gunboat && target.is_craft() {
            return fail(
                files,
                file,
                t.span(),
                format!(
                    "`{}` is a gunboat squadron: gunboats attack ships, not `{}`",
                    unit.name, target.name
                ),
                "an enemy ship",
            );
        }
        if target.craft.is_some_and(|x| matches!(x.kind, CraftKind::Fighter(_))) {
            return fail(
                files,
                file,
                t.span(),
                format!("`{}` is a fighter group: fight it with dogfight = \"…\"", target.name),
                "an enemy ship (or gunboat squadron)",
            );
        }
        Some(CraftAction::Attack(tu))
    }

    /// `dogfight = "GROUP"`: fighters against an enemy group.
    fn dogfight_action(
        &self,
        files: &mut Files,
        file: usize,
        unit: &Unit,
        group: &S<String>,
        t: &S<String>,
    ) -> Option<CraftAction> {
        let tu = self.any_unit(files, file, t)?;
        let target = self.unit(tu);
        if is_gunboat(unit) {
            return gunboat_attacks_only(files, file, unit, group);
        }
        if !target.is_craft() {
            return fail(
                files,
                file,
                t.span(),
                format!("`{}` is a ship: make an attack run with attack = \"…\"", target.name),
                "an enemy fighter group",
            );
        }
        if target.side == unit.side {
            return fail(
                files,
                file,
                t.span(),
                format!("`{}` is a friendly group", target.name),
                "an enemy group",
            );
        }
        Some(CraftAction::Dogfight(tu))
    }

    /// `screen = "SHIP"`: fighters screening a ship of their own Formation.
    fn screen_action(
        &self,
        files: &mut Files,
        file: usize,
        f: FormationId,
        unit: &Unit,
        group: &S<String>,
        t: &S<String>,
    ) -> Option<CraftAction> {
        let fname = &self.defs[f].name;
        let tu = self.any_unit(files, file, t)?;
        let target = self.unit(tu);
        if is_gunboat(unit) {
            return gunboat_attacks_only(files, file, unit, group);
        }
        if target.is_craft() {
            return fail(
                files,
                file,
                t.span(),
                format!("`{}` is a group: groups screen ships", target.name),
                "a ship of this Formation",
            );
        }
        if target.formation != f {
            return fail(
                files,
                file,
                t.span(),
                format!(
                    "`{}` is in Formation `{}`, not in `{fname}`",
                    target.name, self.defs[target.formation].name
                ),
                "a ship of this Formation",
            );
        }
        Some(CraftAction::Screen(tu))
    }

    /// `fire.group`: the group a Fire Control engages; its Formation is the target.
    pub(super) fn fire_group(
        &self,
        files: &mut Files,
        file: usize,
        f: FormationId,
        name: &S<String>,
    ) -> Option<UnitId> {
        let g = self.group(files, file, name)?;
        let unit = self.unit(g);
        if unit.side == self.battle.formations[f].side {
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

    /// Checks over the whole Exchange, once every plot is read: a group
    /// launched twice, launches before re-arming ends, launches and
    /// recoveries per carrier and Volley against its working bays and
    /// launch tubes, and Speed + Evasion of Formations of small craft
    /// against their thrust equivalent Volley by Volley (halved in the
    /// Volley their groups launch).
    pub(super) fn exchange_craft(
        &self,
        files: &mut Files,
        plot: &mut [Option<crate::engine::plot::FormationPlot>],
        notes: &[Option<(usize, [Notes; 3])>],
    ) {
        let mut w = CraftWork::default();
        for (file, n) in notes.iter().flatten() {
            for (v, vn) in n.iter().enumerate() {
                self.launch_volley(files, &mut w, *file, v, &vn.craft);
            }
        }
        self.craft_speeds(files, &mut w, plot, notes);
    }

    /// One Volley's launches and recoveries: each group launched once and
    /// ready, and each carrier within its bays and launch tubes.
    fn launch_volley(&self, files: &mut Files, w: &mut CraftWork, file: usize, v: usize, cn: &CraftNotes) {
        let mut per_carrier: BTreeMap<UnitId, Vec<Range<usize>>> = BTreeMap::new();
        for (g, span) in &cn.launch {
            if !self.launch_once(files, w, file, v, *g, span) {
                continue;
            }
            if let Some((cu, _)) = self.unit(*g).craft.expect("a group").carrier {
                per_carrier.entry(cu).or_default().push(span.clone());
            }
        }
        for (g, span) in &cn.recover {
            if let Some((cu, _)) = self.unit(*g).craft.and_then(|c| c.carrier) {
                per_carrier.entry(cu).or_default().push(span.clone());
            }
        }
        for (cu, spans) in per_carrier {
            self.carrier_limit(files, w, file, v, cu, &spans);
        }
    }

    /// A group launched once in the Exchange and not while re-arming;
    /// false for a second launch, which no carrier counts.
    fn launch_once(
        &self,
        files: &mut Files,
        w: &mut CraftWork,
        file: usize,
        v: usize,
        g: UnitId,
        span: &Range<usize>,
    ) -> bool {
        let c = self.unit(g).craft.expect("a group");
        if let Some(&first) = w.launched.get(&g) {
            if first != v {
                w.push(
                    files,
                    file,
                    Diagnostic::error(
                        span.clone(),
                        format!(
                            "`{}` is launched in Volley {} and again in Volley {}",
                            self.unit(g).name,
                            first + 1,
                            v + 1
                        ),
                        "one launch per group in an Exchange (it is docked only at the start)",
                    )
                    .with_help("one [[plot.FORMATION.volley]] table stands for all three Volleys: write three and launch in one"),
                );
            }
            return false;
        }
        w.launched.insert(g, v);
        if let Rearm::In(k) = c.rearm
            && v < k as usize
        {
            w.push(
                files,
                file,
                Diagnostic::error(
                    span.clone(),
                    format!(
                        "`{}` is re-arming: it may launch from Volley {} of this Exchange (`Rearm: {k}`)",
                        self.unit(g).name,
                        k + 1
                    ),
                    "a ready group",
                ),
            );
        }
        true
    }

    /// A carrier's launches plus recoveries in one Volley against its
    /// working hangar bays and launch tubes.
    fn carrier_limit(
        &self,
        files: &mut Files,
        w: &mut CraftWork,
        file: usize,
        v: usize,
        cu: UnitId,
        spans: &[Range<usize>],
    ) {
        let carrier = self.unit(cu);
        let bays = carrier
            .systems
            .iter()
            .filter(|s| s.kind == SystemKind::HangarBay && s.operational())
            .count();
        let limit = carrier.launch_tubes.map_or(bays, |t| bays.min(t as usize));
        if spans.len() > limit {
            let why = match carrier.launch_tubes {
                Some(t) if (t as usize) < bays => format!("{t} launch tubes (`[launch_tubes]`)"),
                _ => format!("{bays} working hangar bays"),
            };
            w.push(
                files,
                file,
                Diagnostic::error(
                    spans[limit].clone(),
                    format!(
                        "`{}` launches or recovers {} groups in Volley {}, but has {why}",
                        carrier.name,
                        spans.len(),
                        v + 1
                    ),
                    format!("at most {limit} launches and recoveries a Volley"),
                )
                .with_help("each working bay launches or recovers one group a Volley (reading F15)"),
            );
        }
    }

    /// Speed + Evasion of Formations flying on their small craft's thrust,
    /// Volley by Volley, set on their plots.
    fn craft_speeds(
        &self,
        files: &mut Files,
        w: &mut CraftWork,
        plot: &mut [Option<crate::engine::plot::FormationPlot>],
        notes: &[Option<(usize, [Notes; 3])>],
    ) {
        for (f, n) in notes.iter().enumerate() {
            let Some((file, n)) = n else { continue };
            if !self.defs[f].complete || !self.craft_thrust(f) {
                continue;
            }
            let Some(p) = plot[f].as_mut() else { continue };
            for (v, nv) in n.iter().enumerate() {
                let Some((thrust, full)) = self.volley_thrust(f, v, &w.launched) else {
                    continue; // nothing launched yet: the table is unused
                };
                let t = VolleyThrust {
                    file: *file,
                    v,
                    fname: &self.defs[f].name,
                    thrust,
                    full,
                };
                let vp = &mut p.volleys[v];
                t.speed_and_evasion(files, w, &nv.craft, vp);
                t.evasion_cap(files, w, &nv.craft, vp);
            }
        }
    }

    /// Formation Thrust of Formation `f` in Volley `v` and the thrust
    /// equivalent it may be halved from: the lowest of its groups out,
    /// halved for those launching in `v`; `None` while none is out.
    fn volley_thrust(&self, f: FormationId, v: usize, launched: &BTreeMap<UnitId, usize>) -> Option<(u32, u32)> {
        let members = &self.battle.formations[f].units;
        let out_now: Vec<(UnitId, bool)> = members
            .iter()
            .filter(|&&u| {
                let unit = self.unit(u);
                unit.active() || (!unit.destroyed && launched.get(&u).is_some_and(|&lv| lv <= v))
            })
            .map(|&u| (u, launched.get(&u) == Some(&v)))
            .collect();
        let full = out_now.iter().map(|&(u, _)| self.unit(u).thrust).min()?;
        let thrust = out_now
            .iter()
            .map(|&(u, now)| {
                if now {
                    self.unit(u).thrust / 2
                } else {
                    self.unit(u).thrust
                }
            })
            .min()
            .unwrap_or(full);
        Some((thrust, full))
    }
}

fn is_gunboat(unit: &Unit) -> bool {
    unit.craft.is_some_and(|c| matches!(c.kind, CraftKind::Gunboat(_)))
}

/// Reports an error in a `fighters` entry; the entry gives no order.
fn fail<T>(files: &mut Files, file: usize, span: Range<usize>, msg: String, expected: &str) -> Option<T> {
    files.push(file, Diagnostic::error(span, msg, expected.to_string()));
    None
}

/// A gunboat squadron given a dogfight or screen.
fn gunboat_attacks_only<T>(files: &mut Files, file: usize, unit: &Unit, group: &S<String>) -> Option<T> {
    fail(
        files,
        file,
        group.span(),
        format!("`{}` is a gunboat squadron: gunboats attack ships only", unit.name),
        "attack = \"SHIP\"",
    )
}

/// `intercept = true`: fighters able to intercept missiles.
fn intercept_action(files: &mut Files, file: usize, unit: &Unit, i: &S<bool>) -> Option<CraftAction> {
    if !*i.get_ref() {
        return fail(
            files,
            file,
            i.span(),
            "intercept = false is no order".to_string(),
            "intercept = true, or leave the group out (it idles)",
        );
    }
    let refused = match unit.craft.expect("a group").kind {
        CraftKind::Gunboat(_) => Some("a gunboat squadron"),
        CraftKind::Fighter(t) if t.base == FighterBase::Attack => Some("an attack group"),
        CraftKind::Fighter(t) if t.base == FighterBase::Torpedo => Some("a torpedo group"),
        CraftKind::Fighter(_) => None,
    };
    if let Some(what) = refused {
        return fail(
            files,
            file,
            i.span(),
            format!("`{}` is {what} and cannot intercept missiles", unit.name),
            "standard, interceptor or heavy fighters",
        );
    }
    Some(CraftAction::Intercept)
}

/// What the Exchange checks over small craft share: the diagnostics already
/// pushed (each once, however many Volley tables repeat it) and the Volley
/// (0-based) each group launches in.
#[derive(Default)]
struct CraftWork {
    reported: BTreeSet<(usize, usize, usize, String)>,
    launched: BTreeMap<UnitId, usize>,
}

impl CraftWork {
    /// Pushes `d` unless the same message at the same place is pushed already.
    fn push(&mut self, files: &mut Files, file: usize, d: Diagnostic) {
        if self
            .reported
            .insert((file, d.span.start, d.span.end, d.message.clone()))
        {
            files.push(file, d);
        }
    }
}

/// One Volley's Formation Thrust for a Formation of small craft.
struct VolleyThrust<'a> {
    file: usize,
    v: usize,
    fname: &'a str,
    /// The Formation Thrust this Volley.
    thrust: u32,
    /// The thrust equivalent before halving for groups launching now.
    full: u32,
}

impl VolleyThrust<'_> {
    /// The Formation Thrust is halved this Volley.
    fn halved(&self) -> bool {
        self.thrust < self.full
    }

    /// The Formation Thrust as the messages explain it.
    fn note(&self) -> String {
        let (thrust, full) = (self.thrust, self.full);
        if self.halved() {
            format!("{thrust}: the thrust equivalent {full}, halved in the Volley its groups launch")
        } else {
            format!("{thrust} (the lowest thrust equivalent of its groups out)")
        }
    }

    /// Speed and Evasion as written against the Formation Thrust; sets them
    /// on the plot, the one not written making up the rest.
    fn speed_and_evasion(&self, files: &mut Files, w: &mut CraftWork, cn: &CraftNotes, vp: &mut VolleyPlot) {
        let (file, v, fname, thrust, full) = (self.file, self.v, self.fname, self.thrust, self.full);
        match (&cn.speed, &cn.evasion) {
            (Some((s, span)), Some((e, _))) => {
                // A full-thrust plot in the launch Volley is cut by
                // the engine as for a thrust drop (readings F31).
                if s + e != thrust && !(self.halved() && s + e == full) {
                    w.push(
                        files,
                        file,
                        Diagnostic::error(
                            span.clone(),
                            format!(
                                "Speed {s} + Evasion {e} = {}, but the Formation Thrust of `{fname}` in Volley {} is {}",
                                s + e,
                                v + 1,
                                self.note()
                            ),
                            format!("Speed + Evasion = {thrust}"),
                        ),
                    );
                }
                vp.speed = *s;
                vp.evasion = *e;
            }
            (Some((x, span)), None) | (None, Some((x, span))) => {
                let given_speed = cn.evasion.is_none();
                if *x > thrust {
                    w.push(
                        files,
                        file,
                        Diagnostic::error(
                            span.clone(),
                            format!(
                                "{} {x} is more than the Formation Thrust of `{fname}` in Volley {} ({})",
                                if given_speed { "Speed" } else { "Evasion" },
                                v + 1,
                                self.note()
                            ),
                            format!("at most {thrust}"),
                        ),
                    );
                } else if given_speed {
                    vp.speed = *x;
                    vp.evasion = thrust - x;
                } else {
                    vp.evasion = *x;
                    vp.speed = thrust - x;
                }
            }
            (None, None) => {}
        }
    }

    /// Evasion at most half the Formation Thrust (of the full thrust
    /// equivalent for a full-thrust plot in the launch Volley).
    fn evasion_cap(&self, files: &mut Files, w: &mut CraftWork, cn: &CraftNotes, vp: &VolleyPlot) {
        let cap = if self.halved() && vp.speed + vp.evasion == self.full {
            self.full / 2
        } else {
            self.thrust / 2
        };
        if vp.evasion > cap {
            let span = cn
                .evasion
                .as_ref()
                .or(cn.speed.as_ref())
                .map_or(cn.span.clone(), |x| x.1.clone());
            w.push(
                files,
                self.file,
                Diagnostic::error(
                    span,
                    format!(
                        "Evasion {} is more than half the Formation Thrust of `{}` in Volley {} ({}, so at most {cap})",
                        vp.evasion,
                        self.fname,
                        self.v + 1,
                        self.note()
                    ),
                    format!("evasion = {cap} or less"),
                )
                .with_help("maximum Evasion is half Formation Thrust, rounded down (fm-readings 7)"),
            );
        }
    }
}

/// `[launch_tubes]`: launches plus recoveries per Volley for named ships.
pub(super) fn launch_tubes(files: &mut Files, battle: &mut Battle, raw: Option<&S<BTreeMap<S<String>, S<i64>>>>) {
    const SC: usize = 0;
    let Some(raw) = raw else { return };
    let mut entries: Vec<_> = raw.get_ref().iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    for (name, n) in entries {
        let key = unit_key(name.get_ref());
        let Some(u) = battle.units.iter().position(|u| unit_key(&u.name) == key) else {
            let d = Diagnostic::error(
                name.span(),
                format!("no Unit named `{}` in this battle", name.get_ref()),
                "a carrier named under [formations]",
            );
            let units = battle.units.iter().map(|u| u.name.as_str());
            files.push_unknown_unit(SC, super::name_help(d, name.get_ref(), units, "Units"));
            continue;
        };
        if battle.units[u].is_craft() || !battle.units[u].systems.iter().any(|s| s.kind == SystemKind::HangarBay) {
            files.push(
                SC,
                Diagnostic::error(
                    name.span(),
                    format!("`{}` has no hangar bays", battle.units[u].name),
                    "a carrier (a ship with hangar bays)",
                ),
            );
            continue;
        }
        match u32::try_from(*n.get_ref()) {
            Ok(t) => battle.units[u].launch_tubes = Some(t),
            Err(_) => files.push(
                SC,
                Diagnostic::error(n.span(), "a number of launch tubes cannot be negative", "0 or more"),
            ),
        }
    }
}

/// Rules read from `[rules]` that concern small craft.
pub(super) fn pilot_rule(r: Option<super::raw::RawPilotQuality>) -> PilotQualityRule {
    match r {
        Some(super::raw::RawPilotQuality::Record) => PilotQualityRule::Record,
        _ => PilotQualityRule::Off,
    }
}
