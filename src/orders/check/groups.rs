//! Fighter groups and gunboat squadrons in the records (docs/fighters.md
//! §6-7): which groups the records hold, their carriers and bays, their
//! Units, and the scenario's `[launch_tubes]`.

use std::collections::BTreeMap;
use std::ops::Range;

use super::files::{Files, name_help};
use super::records::ShipRef;
use crate::diag::Diagnostic;
use crate::engine::plot::FormationId;
use crate::engine::rules::{PilotQualityRule, Rules};
use crate::engine::state::{Battle, Craft, CraftKind, GunboatKind, Rearm, Unit};
use crate::gzf::parse::FieldSpans;
use crate::gzf::{Item, SystemKind};
use crate::model::{
    CheckBox, DamageState, FighterBase, FighterGroup, FighterModifier, FighterType, GroupRearm, GunboatType, Launch,
    Profile,
};
use crate::orders::bases;
use crate::orders::keys::unit_key;
use crate::orders::loaded::Record;
use crate::orders::raw::{self, S};

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

/// What a group flies, for messages: `Light Interceptor fighters`,
/// `gunboats`.
fn kind_name(gunboat: Option<GunboatType>, ft: FighterType) -> String {
    match gunboat {
        Some(_) => "gunboats".to_string(),
        None => format!("{} fighters", ft.name()),
    }
}

/// Where in a GZF file a field of an item is, falling back to the block's first field.
fn field_at(spans: &[Vec<FieldSpans>], record: usize, item: usize, fields: &[&str]) -> Range<usize> {
    let Some(s) = spans.get(record).and_then(|r| r.get(item)) else {
        return 0..0;
    };
    fields.iter().find_map(|f| s.get(*f).cloned()).unwrap_or(0..0)
}

/// A carrier's hangar bays as (part, system index), parts in Unit order,
/// bays in record order. A ship has one part; a base one per Unit it
/// fights as.
fn carrier_bays(item: &Item) -> Vec<(Option<usize>, usize)> {
    let parts = match item {
        Item::Base(b) => bases::parts(b),
        _ => vec![None],
    };
    parts
        .into_iter()
        .flat_map(|p| {
            bases::carrier_part_systems(item, p)
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
            for part in bases::parts(base).into_iter().filter(Option::is_some) {
                let name = unit_key(&bases::part_name(base, part));
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
                .find(|b| fits(named, b) && unit_key(&bay_group_name(&bases::carrier_part_name(item, b.0), b.1)) == key)
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
                        Some(p) => bases::carrier_part_name(item, p),
                        None => bases::carrier_part_name(item, None),
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
            let sys = &bases::carrier_part_systems(item, part)[b];
            if sys.fighter_type.is_none() || sys.status.damage == Some(DamageState::Destroyed) {
                continue;
            }
            out.push(GroupDef {
                name: bay_group_name(&bases::carrier_part_name(item, part), b),
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
            let Some(bay) = bases::carrier_part_systems(carrier, g.part).get(g.bay.unwrap_or(0)) else {
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
            files.push_unknown_unit(SC, name_help(d, name.get_ref(), units, "Units"));
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
pub(super) fn pilot_rule(r: Option<raw::RawPilotQuality>) -> PilotQualityRule {
    match r {
        Some(raw::RawPilotQuality::Record) => PilotQualityRule::Record,
        _ => PilotQualityRule::Off,
    }
}
