//! One FTJava `Ship` element → one GZF [`Ship`] (FB1 profile).
//!
//! The mapping is in `docs/import.md`; the readings behind it are in
//! `docs/readings.md`, section I.

use std::ops::Range;

use roxmltree::Node;

use super::limits::{self, exact_whole, widen};
use super::xml::{Cx, attr_line, attr_span, elements, line, lines, tag_span, text, text_span};
use crate::model::registry::{self, DefaultArcs, FtJava, FtSection, FtVariant, Params, Rating, SystemRow};
use crate::model::sizes::{crew_factor_boxes, crew_factors_for, hull_boxes_for, row_sizes};
use crate::model::{
    AmmoType, Arc, Armour, CheckBox, DamageState, HullIntegrity, Meta, Ship, ShipType, Status, System, SystemKind,
    TorpedoRange,
};

/// The `event` of the log record that lists a ship's systems FTJava has no
/// element for (written by [`super::export`]), so that the import puts
/// them back at their numbers.
pub const LEFT_OUT_EVENT: &str = "fam";
/// The text a left-out record starts with; entries `N Name` follow,
/// separated by `; `.
pub const LEFT_OUT_PREFIX: &str = "Systems FTJava has no element for, by GZF system number:";
/// The text of the record that keeps magazine ids (`N Id` entries): FTJava
/// links launchers by the magazine's system id.
pub const MAGAZINES_PREFIX: &str = "Magazine ids, by GZF system number:";

/// Where an FTJava system element goes in the GZF record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    Electronics,
    Defenses,
    Holds,
    Weapons,
}

impl Section {
    /// The section of a registry row's element; `None` for a child of the
    /// `Ship` element itself.
    pub fn of(section: FtSection) -> Option<Section> {
        match section {
            FtSection::Ship => None,
            FtSection::Electronics => Some(Section::Electronics),
            FtSection::Defenses => Some(Section::Defenses),
            FtSection::Weapons => Some(Section::Weapons),
        }
    }

    pub fn element(self) -> &'static str {
        match self {
            Section::Electronics => "Electronics",
            Section::Defenses => "Defenses",
            Section::Holds => "Holds",
            Section::Weapons => "Weapons",
        }
    }
}

/// FTJava systems fam has no kind for, imported as inert GZF systems under
/// these names (`--inert-unknown-systems` loads them): element, GZF name,
/// section, whether the name carries the element's `rating`.
pub const INERT: &[(&str, &str, Section, bool)] = &[
    (
        "AdvancedFireControl",
        "Advanced Fire Control",
        Section::Electronics,
        false,
    ),
    (
        "AdvancedAreaDefenseFireControl",
        "Advanced Area Defense Fire Control",
        Section::Electronics,
        false,
    ),
    ("AreaScreen", "Area Screen", Section::Defenses, false),
    ("AdvancedAreaScreen", "Advanced Area Screen", Section::Defenses, false),
    ("StealthField", "Stealth Field", Section::Defenses, false),
    ("HoloField", "Holo Field", Section::Defenses, false),
    ("AreaDefensePDS", "Area Defense PDS", Section::Weapons, false),
    ("Grapeshot", "Grapeshot", Section::Weapons, false),
    (
        "HighIntensityGraser",
        "Class {} High Intensity Graser",
        Section::Weapons,
        true,
    ),
    ("EMPProjector", "Class {} EMP Projector", Section::Weapons, true),
    ("TransporterBeam", "Class {} Transporter Beam", Section::Weapons, true),
    (
        "VariablePulseTorpedo",
        "Variable Pulse Torpedo",
        Section::Weapons,
        false,
    ),
    (
        "AntiMatterTorpedoLauncher",
        "Antimatter Torpedo Launcher",
        Section::Weapons,
        false,
    ),
    ("FighterLaunchTube", "Fighter Launch Tube", Section::Weapons, false),
    (
        "AntimatterSuicideCharge",
        "Antimatter Suicide Charge",
        Section::Weapons,
        false,
    ),
    ("AdvancedFTLDrive", "Advanced FTL Drive", Section::Electronics, false),
];

/// The GZF name of an inert system for an element and rating.
pub fn inert_name(pattern: &str, rating: Option<u32>) -> String {
    match rating {
        Some(r) => pattern.replace("{}", &r.to_string()),
        None => pattern.replace("Class {} ", ""),
    }
}

/// The FTJava element and rating for an inert GZF system name, if any.
pub fn inert_element(name: &str) -> Option<(&'static str, Section, Option<u32>)> {
    for (element, pattern, section, rated) in INERT {
        if *rated {
            let (head, tail) = pattern.split_once("{}").unwrap_or((pattern, ""));
            if let Some(n) = name
                .strip_prefix(head)
                .and_then(|r| r.strip_suffix(tail))
                .and_then(|r| r.parse::<u32>().ok())
            {
                return Some((element, *section, Some(n)));
            }
            if name.eq_ignore_ascii_case(&inert_name(pattern, None)) {
                return Some((element, *section, None));
            }
        } else if name.eq_ignore_ascii_case(pattern) {
            return Some((element, *section, None));
        }
    }
    None
}

/// What an FTJava system id names on the imported ship.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdTarget {
    /// The main drive (not a GZF system: it is the ship's thrust).
    Drive,
    /// `ship.systems[i]`.
    System(usize),
    /// A cargo hold or another element that is no GZF system.
    Other,
}

/// An imported ship with what the scenario import needs to resolve orders.
pub struct Imported {
    pub ship: Ship,
    /// The `Ship` element's `id`, if it has one.
    pub xml_id: Option<i64>,
    /// FTJava system ids: explicit `id` attributes, or, when no system of
    /// the ship has one, 1, 2, 3 … in document order from `MainDrive`.
    pub ids: Vec<(i64, IdTarget, Range<usize>)>,
    /// Whether the ids were numbered implicitly.
    pub implicit_ids: bool,
    /// The start tag of the `Ship` element.
    pub span: Range<usize>,
    /// Systems imported as inert (fam loads them with --inert-unknown-systems).
    pub inert: usize,
}

/// Arcs an element gets when it has no `arcs` attribute (readings I5):
/// the registry's [`DefaultArcs`].
fn default_arcs(kind: &SystemKind) -> Vec<Arc> {
    let (row, params) = kind.entry();
    match row.ftjava.map_or(DefaultArcs::None, |f| f.arcs) {
        DefaultArcs::None => Vec::new(),
        DefaultArcs::AllRound => Arc::FB1.to_vec(),
        DefaultArcs::Fore => vec![Arc::F],
        DefaultArcs::ForeThree => vec![Arc::Fp, Arc::F, Arc::Fs],
        // K-1s are all-round like class-1 beams (readings I24).
        DefaultArcs::AllRoundAtClassOne if params.class == 1 => Arc::FB1.to_vec(),
        DefaultArcs::AllRoundAtClassOne => vec![Arc::F],
    }
}

/// Parses `(FP/F/FS)` or `(All arcs)`.
fn arcs(cx: &mut Cx, n: Node<'_, '_>) -> Option<Vec<Arc>> {
    let raw = n.attribute("arcs")?;
    let span = attr_span(n, "arcs");
    let mut s = raw.trim();
    let expected = "arcs such as `(FP/F/FS)` or `(All arcs)` (FP, F, FS, AP, A, AS)";
    if let Some(r) = s.strip_prefix('(') {
        s = r;
    }
    let mut closing = 0;
    while let Some(r) = s.strip_suffix(')') {
        s = r;
        closing += 1;
    }
    if closing > 1 {
        cx.warn(
            span.clone(),
            format!("arcs `{raw}` end in {closing} closing parentheses"),
            "one `)` (read as if there were one)",
        );
    }
    let inner = s.trim();
    if inner.eq_ignore_ascii_case("all arcs") || inner.eq_ignore_ascii_case("all") {
        return Some(Arc::FB1.to_vec());
    }
    let mut out = Vec::new();
    for part in inner.split('/') {
        let code = part.trim().to_ascii_uppercase();
        let arc = match code.as_str() {
            "FP" => Arc::Fp,
            "F" => Arc::F,
            "FS" => Arc::Fs,
            "AP" => Arc::Ap,
            "A" => Arc::A,
            "AS" => Arc::As,
            _ => {
                cx.error(span, format!("`{}` in `{raw}` is not an arc", part.trim()), expected);
                return None;
            }
        };
        out.push(arc);
    }
    out.sort();
    out.dedup();
    Some(out)
}

/// A system `status` attribute.
fn status_attr(cx: &mut Cx, n: Node<'_, '_>) -> Status {
    let Some(v) = n.attribute("status") else {
        return Status::default();
    };
    let damage = match v.trim().to_ascii_lowercase().as_str() {
        "operational" | "ok" => None,
        "damaged" => Some(DamageState::Damaged),
        "destroyed" => Some(DamageState::Destroyed),
        "repaired" => Some(DamageState::Repaired),
        _ => {
            cx.error(
                attr_span(n, "status"),
                format!("system status `{}`", v.trim()),
                "Operational, Damaged, Repaired or Destroyed",
            );
            None
        }
    };
    Status {
        damage,
        ..Status::default()
    }
}

/// One system element: its kind (or `None` when it is not a GZF system or
/// has no mapping) and which section it belongs to.
struct Element<'a, 'i> {
    node: Node<'a, 'i>,
    system: Option<System>,
    /// A cargo hold: a payload box for the ship's `Payload-Track`.
    payload: Option<String>,
    section: Section,
}

fn system_element<'a, 'i>(cx: &mut Cx, n: Node<'a, 'i>, section: Section, inert: &mut usize) -> Element<'a, 'i> {
    let name = n.tag_name().name();
    let mut out = Element {
        node: n,
        system: None,
        payload: None,
        section,
    };
    if (section, name) == (Section::Holds, "CargoHold") {
        out.payload = cargo_hold(cx, n);
        return out;
    }
    let Some((row, ft, range)) = element_row(section, name) else {
        out.system = unknown_system(cx, n, section, inert);
        return out;
    };
    if let Some(kind) = element_kind(cx, n, name, row, ft, range) {
        out.system = Some(known_system(cx, n, kind));
    }
    out
}

/// The registry row of element `name` in `section`, with the range its
/// name spells (`LongRangePulseTorpedo`).
fn element_row(section: Section, name: &str) -> Option<(&'static SystemRow, &'static FtJava, TorpedoRange)> {
    registry::ROWS.iter().find_map(|row| {
        let ft = row
            .ftjava
            .as_ref()
            .filter(|f| Section::of(f.section) == Some(section))?;
        let range = if name == ft.element || ft.aliases.contains(&name) {
            TorpedoRange::Standard
        } else if ft.variant != FtVariant::RangeInName {
            return None;
        } else if name.strip_prefix("LongRange") == Some(ft.element) {
            TorpedoRange::Long
        } else if name.strip_prefix("ShortRange") == Some(ft.element) {
            TorpedoRange::Short
        } else {
            return None;
        };
        Some((*row, ft, range))
    })
}

/// The kind of an element of `row`: its class from `rating`, its range
/// from its name or `rangeIncrement`; `None` (with an error) when these are
/// wrong.
fn element_kind(
    cx: &mut Cx,
    n: Node<'_, '_>,
    name: &str,
    row: &SystemRow,
    ft: &FtJava,
    range: TorpedoRange,
) -> Option<SystemKind> {
    let class = match ft.rating {
        Some(rating) => rated(cx, n, name, row.max_class(), rating),
        None => Some(0),
    };
    let range = match ft.variant {
        FtVariant::RangeIncrement => range_increment(cx, n),
        _ => Some(range),
    };
    Some((row.make)(Params {
        class: class?,
        range: range?,
        ..Params::NONE
    }))
}

/// The attributes an element of `kind` may have: every system's `id` and
/// `status`; a class's `rating`; a weapon's `arcs` (FTJava's point defence
/// has none); a K-gun's `rangeIncrement`; a launcher's `smmId`; a
/// magazine's `capacity`.
fn attributes_of(kind: &SystemKind) -> Vec<&'static str> {
    let ft = kind.row().ftjava;
    let mut known = vec!["id", "status"];
    if ft.is_some_and(|f| f.rating.is_some()) {
        known.push("rating");
    }
    if kind.is_weapon() && *kind != SystemKind::Pds {
        known.push("arcs");
    }
    if ft.is_some_and(|f| f.variant == FtVariant::RangeIncrement) {
        known.push("rangeIncrement");
    }
    if kind.draws_on_magazine() {
        known.push("smmId");
    }
    if kind.is_magazine() {
        known.push("capacity");
    }
    known
}

/// A `CargoHold`: its payload box (`H`, `P` or `T` and its size), `None`
/// when its type or size is missing or wrong.
fn cargo_hold(cx: &mut Cx, n: Node<'_, '_>) -> Option<String> {
    cx.attributes(n, &["id", "type", "totalSize"]);
    let size = cx.uint_attr(n, "totalSize", 0..=limits::HOLD_SIZE);
    let letter = match n.attribute("type").map(|t| t.trim().to_ascii_lowercase()) {
        Some(t) if t == "cargo hold" || t == "cargo" => Some('H'),
        Some(t) if t == "passenger" || t == "passenger transport" => Some('P'),
        Some(t) if t == "troop transport" || t == "troops" => Some('T'),
        _ => {
            cx.error(
                attr_span(n, "type"),
                "a cargo hold type fam does not know",
                "type=\"Cargo Hold\", \"Passenger\" or \"Troop Transport\"",
            );
            None
        }
    };
    if n.attribute("totalSize").is_none() {
        cx.error(tag_span(n), "a `CargoHold` without `totalSize`", "totalSize=\"N\"");
    }
    let (l, s) = (letter?, size?);
    Some(format!("{l}{s}"))
}

/// An element fam has no system for: an inert system when FTJava's
/// element is one fam keeps as such (in its section), else unmapped.
fn unknown_system(cx: &mut Cx, n: Node<'_, '_>, section: Section, inert: &mut usize) -> Option<System> {
    let name = n.tag_name().name();
    if let Some((_, pattern, sec, rated)) = INERT.iter().find(|(e, ..)| *e == name)
        && (*sec == section || name == "AdvancedFTLDrive")
    {
        let rating = if *rated {
            cx.uint_attr(n, "rating", 0..=limits::RATING)
        } else {
            None
        };
        cx.attributes(n, &["id", "status", "arcs", "rating"]);
        let gzf_name = inert_name(pattern, rating);
        cx.warn(
            tag_span(n),
            format!("fam has no `{name}`: imported as the inert system `{gzf_name}`"),
            "a system fam knows (docs/import.md)",
        );
        *inert += 1;
        let mut s = System::new(SystemKind::Inert(gzf_name));
        s.arcs = arcs(cx, n).unwrap_or_default();
        s.status = status_attr(cx, n);
        return Some(s);
    }
    cx.unmapped(
        tag_span(n),
        format!("element `{name}` in `{}`", section.element()),
        "a system of this section that fam knows (docs/import.md)",
    );
    None
}

/// A system fam knows, of `kind`: its attributes, status, arcs and, for
/// the salvo and missile systems, magazine or load.
fn known_system(cx: &mut Cx, n: Node<'_, '_>, kind: SystemKind) -> System {
    use SystemKind::*;
    let name = n.tag_name().name();
    cx.attributes(n, &attributes_of(&kind));
    let mut s = System::new(kind.clone());
    s.status = status_attr(cx, n);
    if kind.is_weapon() && kind != Pds {
        s.arcs = arcs(cx, n).unwrap_or_else(|| default_arcs(&kind));
    }
    match kind {
        Sml => s.magazine = attr_line(n, "smmId"),
        Smm => {
            s.magazine = attr_line(n, "id");
            magazine(cx, n, &mut s);
        }
        Smr | Missile { .. } => one_shot(cx, n, &mut s),
        _ => {
            for c in elements(n) {
                cx.unmapped(
                    tag_span(c),
                    format!("element `{}` in `{name}`", c.tag_name().name()),
                    "no child elements here",
                );
            }
        }
    }
    cx.no_text(n);
    s
}

/// A `KineticGun`'s `rangeIncrement` (the projectile band width FTJava
/// keeps for its projectile weapons): 6 or absent is the standard gun, 9
/// the long-range and 4 the short-range one.
fn range_increment(cx: &mut Cx, n: Node<'_, '_>) -> Option<TorpedoRange> {
    match n.attribute("rangeIncrement") {
        None => Some(TorpedoRange::Standard),
        Some(_) => match cx.uint_attr(n, "rangeIncrement", 0..=limits::RATING) {
            Some(6) => Some(TorpedoRange::Standard),
            Some(9) => Some(TorpedoRange::Long),
            Some(4) => Some(TorpedoRange::Short),
            Some(r) => {
                cx.error(
                    attr_span(n, "rangeIncrement"),
                    format!("a kinetic gun with range bands of {r} MU"),
                    "rangeIncrement=\"6\" (standard), \"9\" (long range) or \"4\" (short range)",
                );
                None
            }
            None => None,
        },
    }
}

/// The class of a rated element (`BeamBattery`, `KineticGun`, `Graser` …):
/// `rating` from 1 to `max`, its errors worded as `rating` says.
fn rated(cx: &mut Cx, n: Node<'_, '_>, element: &str, max: u8, rating: Rating) -> Option<u8> {
    match cx.uint_attr(n, "rating", 0..=limits::RATING) {
        Some(r) if (1..=u32::from(max)).contains(&r) => u8::try_from(r).ok(),
        Some(r) => {
            let what = rating.what.map_or_else(|| format!("a `{element}`"), str::to_string);
            cx.error(
                attr_span(n, "rating"),
                format!("{what} of rating {r}"),
                format!("a rating from 1 to {max}{}", rating.note),
            );
            None
        }
        None => {
            if n.attribute("rating").is_none() {
                cx.error(
                    tag_span(n),
                    format!("a `{element}` without `rating`"),
                    format!("rating=\"1\" to \"{max}\""),
                );
            }
            None
        }
    }
}

/// Salvo type words → extended range or not.
fn salvo_er(cx: &mut Cx, n: Node<'_, '_>) -> Option<bool> {
    let t = n
        .attribute("type")
        .unwrap_or("Standard Salvo")
        .trim()
        .to_ascii_lowercase();
    match t.as_str() {
        "standard salvo" | "standard" | "salvo" => Some(false),
        "extended range salvo" | "extendedrangesalvo" | "extended range" | "er salvo" | "er" => Some(true),
        _ => {
            cx.error(
                attr_span(n, "type"),
                format!("salvo type `{t}`"),
                "type=\"Standard Salvo\" or \"Extended Range Salvo\"",
            );
            None
        }
    }
}

/// Ordnance `status`: available (true) or spent (false).
fn ordnance_available(cx: &mut Cx, n: Node<'_, '_>) -> bool {
    match n.attribute("status").map(|s| s.trim().to_ascii_lowercase()) {
        None => true,
        Some(s) if s == "available" => true,
        Some(s) if ["expended", "fired", "used", "launched", "spent"].contains(&s.as_str()) => false,
        Some(s) => {
            cx.error(
                attr_span(n, "status"),
                format!("ordnance status `{s}`"),
                "status=\"Available\" or \"Expended\"",
            );
            true
        }
    }
}

/// A salvo magazine: `capacity` loads, one `Salvo` element per load held.
fn magazine(cx: &mut Cx, n: Node<'_, '_>, s: &mut System) {
    let capacity = cx.uint_attr(n, "capacity", 0..=limits::MAGAZINE_CAPACITY);
    if n.attribute("capacity").is_none() {
        cx.error(
            tag_span(n),
            "a `SalvoMissileMagazine` without `capacity`",
            "capacity=\"N\"",
        );
    }
    let mut available = 0usize;
    let mut listed = 0usize;
    let mut er: Option<bool> = None;
    for c in elements(n) {
        if c.tag_name().name() != "Salvo" {
            cx.unmapped(
                tag_span(c),
                format!("element `{}` in a magazine", c.tag_name().name()),
                "`Salvo` elements",
            );
            continue;
        }
        cx.attributes(c, &["type", "status"]);
        listed += 1;
        if ordnance_available(cx, c) {
            available += 1;
        }
        if let Some(this) = salvo_er(cx, c) {
            match er {
                Some(e) if e != this => cx.unmapped(
                    tag_span(c),
                    "a magazine holding both standard and extended-range salvos".to_string(),
                    "one salvo type per magazine (GZF `Ammo-Type:`)",
                ),
                _ => er = Some(this),
            }
        }
    }
    let Some(capacity) = capacity else { return };
    if listed > widen(capacity) {
        cx.error(
            tag_span(n),
            format!("a magazine of capacity {capacity} holding {listed} salvos"),
            format!("at most {capacity} `Salvo` elements"),
        );
        return;
    }
    s.capacity = Some(capacity);
    let spent = widen(capacity) - available;
    s.rounds = Some(crossed_first(widen(capacity), spent));
    if er == Some(true) {
        s.ammo = Some(AmmoType::Er);
    }
}

/// A rack or heavy missile launcher: an optional ordnance element says
/// whether it is extended range and whether it has fired.
fn one_shot(cx: &mut Cx, n: Node<'_, '_>, s: &mut System) {
    let mut seen = false;
    for c in elements(n) {
        let name = c.tag_name().name();
        let er = match (s.kind == SystemKind::Smr, name) {
            (true, "Salvo") => {
                cx.attributes(c, &["type", "status"]);
                salvo_er(cx, c)
            }
            (false, "StandardHeavyMissile") => {
                cx.attributes(c, &["status"]);
                Some(false)
            }
            (false, "HeavyMissile") => {
                cx.attributes(c, &["type", "status"]);
                match c.attribute("type").map(|t| t.trim().to_ascii_lowercase()) {
                    None => Some(false),
                    Some(t) if t == "standard" => Some(false),
                    Some(t) if t == "extended range" || t == "er" => Some(true),
                    Some(t) => {
                        cx.error(
                            attr_span(c, "type"),
                            format!("heavy missile type `{t}`"),
                            "type=\"Standard\" or \"Extended Range\"",
                        );
                        None
                    }
                }
            }
            _ => {
                cx.unmapped(
                    tag_span(c),
                    format!("element `{name}` in `{}`", n.tag_name().name()),
                    "one ordnance element (`Salvo` in a rack; `StandardHeavyMissile` or `HeavyMissile` in a launcher)",
                );
                continue;
            }
        };
        if seen {
            cx.error(
                tag_span(c),
                "a second load in a one-shot launcher",
                "one ordnance element",
            );
            continue;
        }
        seen = true;
        if er == Some(true) {
            s.ammo = Some(AmmoType::Er);
        }
        if !ordnance_available(cx, c) {
            s.rounds = Some(vec![CheckBox::CROSSED]);
        }
    }
}

/// Elements of `Ship` that are read, in the order FTJava writes them.
const SHIP_CHILDREN: &[&str] = &[
    "Name",
    "IconFamily",
    "Status",
    "Orders",
    "FM.Orders",
    "DamageControl",
    "Position",
    "Heading",
    "Speed",
    "VectorSpeed",
    "Course",
    "Race",
    "ClassAbbrev",
    "ClassName",
    "ShipClass",
    "CrewQuality",
    "Designer",
    "Mass",
    "PointValue",
    "MainDrive",
    "FTLDrive",
    "AdvancedFTLDrive",
    "Armor",
    "Hull",
    "Electronics",
    "Defenses",
    "Holds",
    "Weapons",
    "Log",
];

/// `Class:` from the three FTJava class elements: `Huron (CL, Light Cruiser)`.
pub fn class_field(name: &str, abbrev: &str, ship_class: &str) -> Option<String> {
    match (name.is_empty(), abbrev.is_empty() && ship_class.is_empty()) {
        (true, true) => None,
        (_, true) => Some(name.to_string()),
        _ => Some(format!("{name} ({abbrev}, {ship_class})").trim_start().to_string()),
    }
}

/// The three FTJava class elements back from `Class:`.
pub fn split_class(class: &str) -> (String, String, String) {
    if let Some(body) = class.strip_suffix(')')
        && let Some(open) = body.rfind('(')
        && let Some((abbrev, ship_class)) = body[open + 1..].split_once(", ")
        && !abbrev.contains(',')
    {
        return (
            body[..open].trim_end().to_string(),
            abbrev.to_string(),
            ship_class.to_string(),
        );
    }
    (class.to_string(), String::new(), String::new())
}

/// An `FTLDrive` (GZF `FTL`) or an `AdvancedFTLDrive` (inert).
fn ftl_drive<'a, 'i>(cx: &mut Cx, c: Node<'a, 'i>, inert: &mut usize) -> Element<'a, 'i> {
    if c.tag_name().name() == "AdvancedFTLDrive" {
        return system_element(cx, c, Section::Electronics, inert);
    }
    cx.attributes(c, &["id", "status"]);
    for e in elements(c) {
        cx.unmapped(
            tag_span(e),
            format!("element `{}` in `FTLDrive`", e.tag_name().name()),
            "no child elements here",
        );
    }
    let mut s = System::new(SystemKind::Ftl);
    s.status = status_attr(cx, c);
    Element {
        node: c,
        system: Some(s),
        payload: None,
        section: Section::Electronics,
    }
}

/// What a Ship element's children give, gathered before the ship is put
/// together.
#[derive(Default)]
struct Parts<'a, 'i> {
    meta: Vec<Meta>,
    /// Class name, abbreviation and ship class.
    class: (String, String, String),
    status_text: Option<(String, Range<usize>)>,
    hull: Option<Node<'a, 'i>>,
    armour: Option<Node<'a, 'i>>,
    drive: Option<Node<'a, 'i>>,
    /// System elements in file order.
    elements_in_order: Vec<Element<'a, 'i>>,
    inert: usize,
    systems_seen: usize,
    /// Systems fam's export left out (a log record lists them by number).
    restored: Vec<(usize, System)>,
    magazine_ids: Vec<(usize, String)>,
}

/// One child element of a Ship (one of [`SHIP_CHILDREN`]), read into the
/// ship or kept in `p` for later.
fn ship_child<'a, 'i>(
    cx: &mut Cx,
    c: Node<'a, 'i>,
    name: &str,
    orders_handled: bool,
    ship: &mut Ship,
    p: &mut Parts<'a, 'i>,
) {
    match name {
        "Name" | "IconFamily" | "Status" | "Orders" | "FM.Orders" | "DamageControl" => {
            text_child(cx, c, name, orders_handled, ship, p)
        }
        "Position" | "Heading" | "Speed" | "VectorSpeed" | "Course" => motion_child(cx, c, name, p),
        "Race" | "ClassAbbrev" | "ClassName" | "ShipClass" | "CrewQuality" | "Designer" | "Mass" | "PointValue" => {
            record_child(cx, c, name, ship, p)
        }
        "MainDrive" | "FTLDrive" | "AdvancedFTLDrive" | "Armor" | "Hull" => structure_child(cx, c, name, p),
        "Electronics" | "Defenses" | "Holds" | "Weapons" => section_child(cx, c, name, p),
        "Log" => log_child(cx, c, p),
        _ => unreachable!("SHIP_CHILDREN lists every name matched here"),
    }
}

/// Checks a childless Ship child: only the `known` attributes, no elements.
fn leaf(cx: &mut Cx, c: Node<'_, '_>, name: &str, known: &[&str]) {
    cx.attributes(c, known);
    for e in elements(c) {
        cx.unmapped(
            tag_span(e),
            format!("element `{}` in `{name}`", e.tag_name().name()),
            "no child elements here",
        );
    }
}

/// The name, icon, status, orders and damage-control children of a Ship.
fn text_child<'a, 'i>(
    cx: &mut Cx,
    c: Node<'a, 'i>,
    name: &str,
    orders_handled: bool,
    ship: &mut Ship,
    p: &mut Parts<'a, 'i>,
) {
    match name {
        "Name" => {
            leaf(cx, c, name, &[]);
            ship.name = line(c);
        }
        "IconFamily" => {
            leaf(cx, c, name, &["value"]);
            cx.ignore("`IconFamily` (FTJava's counter artwork)");
        }
        "Status" => {
            leaf(cx, c, name, &[]);
            p.status_text = Some((line(c), text_span(c)));
        }
        "Orders" => {
            leaf(cx, c, name, &[]);
            let l = lines(c);
            if !l.is_empty() {
                p.meta.push(Meta {
                    name: "Orders".into(),
                    lines: l,
                });
            }
        }
        "FM.Orders" => {
            if !orders_handled {
                cx.warn(
                    tag_span(c),
                    "`FM.Orders` of a ship outside a game are not imported",
                    "F&M orders inside a GameEngine file (their targets are ships of the game)",
                );
            }
        }
        "DamageControl" => {
            leaf(cx, c, name, &[]);
            if !text(c).is_empty() {
                cx.unmapped(
                    text_span(c),
                    "damage-control orders".to_string(),
                    "an empty `DamageControl`",
                );
            }
        }
        _ => unreachable!("ship_child sends only text children here"),
    }
}

/// A `Position` (of a ship or a fighter group) as `Position-X:` and
/// `Position-Y:`. FTJava writes both coordinates; one alone is refused at
/// the element (readings I46): a record needs both, and fam does not guess
/// the other (0 would put the ship on an axis the file never named).
pub(crate) fn position(cx: &mut Cx, c: Node<'_, '_>, meta: &mut Vec<Meta>) {
    let missing: Vec<&str> = ["x", "y"].into_iter().filter(|a| !c.has_attribute(*a)).collect();
    if !missing.is_empty() {
        cx.error(
            tag_span(c),
            format!("a `Position` without `{}`", missing.join("` or `")),
            "both coordinates, as FTJava writes them: <Position x=\"12.0\" y=\"-4.0\"/>",
        );
        return;
    }
    let mut at = Vec::new();
    for (axis, field) in [("x", "Position-X"), ("y", "Position-Y")] {
        if let Some(v) = cx.float_attr(c, axis, -limits::DISTANCE..=limits::DISTANCE) {
            at.push(Meta::new(field, float_text(v)));
        }
    }
    // A coordinate refused (reported at it) leaves the position out whole.
    if at.len() == 2 {
        meta.extend(at);
    }
}

/// The position, heading, speed and course children of a Ship (GZF meta lines).
fn motion_child<'a, 'i>(cx: &mut Cx, c: Node<'a, 'i>, name: &str, p: &mut Parts<'a, 'i>) {
    match name {
        "Position" => {
            leaf(cx, c, name, &["x", "y"]);
            position(cx, c, &mut p.meta);
        }
        "Heading" => {
            leaf(cx, c, name, &["heading"]);
            if let Some(h) = cx.int_attr(c, "heading") {
                if (1..=12).contains(&h) {
                    p.meta.push(Meta::new("Facing", h.to_string()));
                } else {
                    cx.error(
                        attr_span(c, "heading"),
                        format!("heading {h}"),
                        "a clock facing from 1 to 12",
                    );
                }
            }
        }
        "Speed" => {
            leaf(cx, c, name, &["speed"]);
            if let Some(v) = cx.float_attr(c, "speed", 0.0..=limits::DISTANCE) {
                if v.fract() != 0.0 {
                    cx.warn(
                        attr_span(c, "speed"),
                        format!("speed {v} is not a whole number"),
                        "a whole number of MU (GZF `Velocity:`; rounded)",
                    );
                }
                if let Some(mu) = exact_whole(v.round()) {
                    p.meta.push(Meta::new("Velocity", mu.to_string()));
                }
            }
        }
        "VectorSpeed" => {
            leaf(cx, c, name, &["speed"]);
            cx.ignore("`VectorSpeed` (vector movement; GZF keeps one `Velocity:`, from `Speed`)");
        }
        "Course" => {
            leaf(cx, c, name, &["course"]);
            if let Some(degrees) = cx
                .float_attr(c, "course", limits::COURSE)
                .and_then(|v| exact_whole((v * 30.0).round()))
            {
                p.meta.push(Meta::new("Course", degrees.rem_euclid(360).to_string()));
            }
        }
        _ => unreachable!("ship_child sends only motion children here"),
    }
}

/// The race, class, crew, designer, mass and point-value children of a Ship.
fn record_child<'a, 'i>(cx: &mut Cx, c: Node<'a, 'i>, name: &str, ship: &mut Ship, p: &mut Parts<'a, 'i>) {
    match name {
        "Race" => {
            leaf(cx, c, name, &[]);
            let t = line(c);
            if !t.is_empty() {
                ship.fleet = Some(t);
            }
        }
        "ClassAbbrev" => {
            leaf(cx, c, name, &[]);
            p.class.1 = line(c);
        }
        "ClassName" => {
            leaf(cx, c, name, &[]);
            p.class.0 = line(c);
        }
        "ShipClass" => {
            leaf(cx, c, name, &[]);
            p.class.2 = line(c);
        }
        "CrewQuality" => {
            leaf(cx, c, name, &[]);
            let t = line(c);
            if !t.is_empty() {
                p.meta.push(Meta::new("Crew", t));
            }
        }
        "Designer" => {
            leaf(cx, c, name, &[]);
            let t = line(c);
            if !t.is_empty() {
                p.meta.push(Meta::new("Designer", t));
            }
        }
        "Mass" => {
            leaf(cx, c, name, &[]);
            ship.mass = cx.uint_text(c, 1..=limits::MASS);
        }
        "PointValue" => {
            leaf(cx, c, name, &[]);
            ship.cost = cx.uint_text(c, 0..=limits::POINT_VALUE);
        }
        _ => unreachable!("ship_child sends only record children here"),
    }
}

/// The drive, FTL, armour and hull children of a Ship (kept in `p` for later).
fn structure_child<'a, 'i>(cx: &mut Cx, c: Node<'a, 'i>, name: &str, p: &mut Parts<'a, 'i>) {
    match name {
        "MainDrive" => {
            leaf(cx, c, name, &["id", "type", "initialThrust", "currentThrust", "status"]);
            p.drive = Some(c);
        }
        "FTLDrive" | "AdvancedFTLDrive" => {
            if cx.counted(c, &mut p.systems_seen, limits::SYSTEMS, "systems in a ship") {
                p.elements_in_order.push(ftl_drive(cx, c, &mut p.inert));
            }
        }
        "Armor" => {
            leaf(cx, c, name, &["totalArmor", "remainingArmor"]);
            p.armour = Some(c);
        }
        "Hull" => {
            leaf(
                cx,
                c,
                name,
                &[
                    "value",
                    "type",
                    "class",
                    "stealth",
                    "totalHullBoxes",
                    "remainingHullBoxes",
                    "rows",
                ],
            );
            p.hull = Some(c);
        }
        _ => unreachable!("ship_child sends only structure children here"),
    }
}

/// A system section of a Ship (`Electronics`, `Defenses`, `Holds`, `Weapons`): its system elements in file order.
fn section_child<'a, 'i>(cx: &mut Cx, c: Node<'a, 'i>, name: &str, p: &mut Parts<'a, 'i>) {
    match name {
        "Electronics" | "Defenses" | "Holds" | "Weapons" => {
            cx.attributes(c, &[]);
            cx.no_text(c);
            let section = match name {
                "Electronics" => Section::Electronics,
                "Defenses" => Section::Defenses,
                "Holds" => Section::Holds,
                _ => Section::Weapons,
            };
            for e in elements(c) {
                if cx.counted(e, &mut p.systems_seen, limits::SYSTEMS, "systems in a ship") {
                    let el = system_element(cx, e, section, &mut p.inert);
                    p.elements_in_order.push(el);
                }
            }
        }
        _ => unreachable!("ship_child sends only system sections here"),
    }
}

/// A Ship's `Log`: fam's own records into `p`, the rest into a `Log` meta line.
fn log_child<'a, 'i>(cx: &mut Cx, c: Node<'a, 'i>, p: &mut Parts<'a, 'i>) {
    cx.attributes(c, &[]);
    cx.no_text(c);
    let mut lines = Vec::new();
    for r in elements(c) {
        if r.tag_name().name() != "Record" {
            cx.unmapped(
                tag_span(r),
                format!("element `{}` in a Log", r.tag_name().name()),
                "`Record` elements",
            );
            return;
        }
        cx.attributes(r, &["turn", "event", "priority"]);
        match fam_record(cx, r) {
            Some(FamRecord::LeftOut(mut entries)) => p.restored.append(&mut entries),
            Some(FamRecord::Magazines(mut entries)) => p.magazine_ids.append(&mut entries),
            None => lines.push(log_line(r)),
        }
    }
    if !lines.is_empty() {
        p.meta.push(Meta {
            name: "Log".into(),
            lines,
        });
    }
}

/// Imports one `Ship` element. `orders_handled`: the caller reads its
/// `FM.Orders` (a scenario); otherwise they are reported as not imported.
pub fn import(cx: &mut Cx, n: Node<'_, '_>, orders_handled: bool) -> Imported {
    cx.attributes(n, &["id"]);
    cx.no_text(n);
    let xml_id = cx.int_attr(n, "id");
    let mut ship = Ship::new(String::new());
    let p = read_children(cx, n, orders_handled, &mut ship);
    let Parts {
        mut meta,
        class,
        status_text,
        hull,
        armour,
        drive,
        mut elements_in_order,
        inert,
        mut restored,
        magazine_ids,
        ..
    } = p;
    ship.class = class_field(&class.0, &class.1, &class.2);
    if ship.name.is_empty() {
        // A design file names no ship: call it after its class.
        ship.name = if class.0.is_empty() {
            "Unnamed".to_string()
        } else {
            class.0.clone()
        };
    }
    read_drive(cx, drive, n, &mut ship);
    read_hull(cx, hull, n, &mut ship);
    read_armour(cx, armour, &mut ship);
    read_status(cx, status_text, &mut ship);
    // Systems go in section order (FTL drives, Electronics, Defenses,
    // Weapons), whatever order the file has them in, unless their ids
    // number them all (`system_numbers`); ids follow the file.
    let implicit_ids =
        !(drive.is_some_and(|d| d.has_attribute("id")) || elements_in_order.iter().any(|e| e.node.has_attribute("id")));
    let mut ids = Vec::new();
    if let Some(d) = drive {
        if implicit_ids {
            ids.push((1, IdTarget::Drive, tag_span(d)));
        } else if let Some(id) = cx.int_attr(d, "id") {
            ids.push((id, IdTarget::Drive, attr_span(d, "id")));
        }
    }
    let (index_of, payload) = place_systems(&mut ship, &mut elements_in_order);
    let before = i64::from(drive.is_some());
    element_ids(cx, &elements_in_order, &index_of, implicit_ids, before, &mut ids);
    warn_second_ids(cx, &ids, &ship.name);
    if !payload.is_empty() {
        meta.push(Meta {
            name: "Payload-Track".into(),
            lines: vec![payload.join(" ")],
        });
    }
    link_magazines(cx, n, &mut ship, &elements_in_order, &index_of);
    if ship.systems.len() + restored.len() > limits::SYSTEMS {
        cx.error(
            tag_span(n),
            format!(
                "`{}` with the systems fam's export left out has more than {} systems",
                ship.name,
                limits::SYSTEMS
            ),
            format!("at most {} systems in a ship (docs/import.md, Limits)", limits::SYSTEMS),
        );
        restored.clear();
    }
    restore(&mut ship, restored, &mut ids);
    rename_magazines(&mut ship, &magazine_ids);
    ship.meta = order_meta(meta);
    Imported {
        ship,
        xml_id,
        ids,
        implicit_ids,
        span: tag_span(n),
        inert,
    }
}

/// A Ship's children, each read into `ship` or gathered in the parts
/// returned; an unknown child or a second one of a kind is reported.
fn read_children<'a, 'i>(cx: &mut Cx, n: Node<'a, 'i>, orders_handled: bool, ship: &mut Ship) -> Parts<'a, 'i> {
    let mut p = Parts::default();
    let mut seen: Vec<&str> = Vec::new();
    for c in elements(n) {
        let name = c.tag_name().name();
        if !SHIP_CHILDREN.contains(&name) {
            cx.unmapped(
                tag_span(c),
                format!("element `{name}` in a Ship"),
                "an element of an FTJava Ship (docs/import.md)",
            );
            continue;
        }
        if seen.contains(&name) && !matches!(name, "FTLDrive" | "AdvancedFTLDrive") {
            cx.error(
                tag_span(c),
                format!("a second `{name}` in one ship"),
                format!("one `{name}`"),
            );
            continue;
        }
        seen.push(name);
        ship_child(cx, c, name, orders_handled, ship, &mut p);
    }
    p
}

/// A Ship's `Status` text: only Destroyed is kept (the others follow from
/// the hull); one fam does not know is warned of.
fn read_status(cx: &mut Cx, status_text: Option<(String, Range<usize>)>, ship: &mut Ship) {
    let Some((t, span)) = status_text else {
        return;
    };
    match t.to_ascii_lowercase().as_str() {
        "destroyed" => ship.status.damage = Some(DamageState::Destroyed),
        "" | "ok" | "light" | "moderate" | "heavy" | "crippled" => {}
        _ => cx.warn(
            span,
            format!("ship status `{t}` is not one fam knows"),
            "Ok, Light, Moderate, Heavy, Crippled or Destroyed (only Destroyed is kept; the others follow from the hull)",
        ),
    }
}

/// Puts the systems of the elements into the ship, in section order or
/// the order their ids number them; returns each element's system index
/// and the payload boxes of the cargo holds, in the same order.
fn place_systems(ship: &mut Ship, elements_in_order: &mut [Element]) -> (Vec<Option<usize>>, Vec<String>) {
    let order = |s: Section, node: Node| match (s, node.tag_name().name()) {
        (_, "FTLDrive" | "AdvancedFTLDrive") => 0,
        (Section::Electronics, _) => 1,
        (Section::Defenses, _) => 2,
        (Section::Holds, _) => 3,
        (Section::Weapons, _) => 4,
    };
    let mut positions: Vec<usize> = (0..elements_in_order.len()).collect();
    match system_numbers(elements_in_order) {
        // Ids that number every system: the systems go in their order.
        Some(numbers) => positions.sort_by_key(|&i| numbers[i]),
        None => positions.sort_by_key(|&i| order(elements_in_order[i].section, elements_in_order[i].node)),
    }
    let mut index_of = vec![None; elements_in_order.len()];
    let mut payload: Vec<String> = Vec::new();
    for &i in &positions {
        let e = &mut elements_in_order[i];
        if let Some(s) = e.system.take() {
            index_of[i] = Some(ship.systems.len());
            ship.systems.push(s);
        }
        if let Some(p) = e.payload.take() {
            payload.push(p);
        }
    }
    (index_of, payload)
}

/// The ids of the system elements, in file order: numbered after the
/// `before` ids already given when implicit, else their `id` attributes.
fn element_ids(
    cx: &mut Cx,
    elements_in_order: &[Element],
    index_of: &[Option<usize>],
    implicit_ids: bool,
    before: i64,
    ids: &mut Vec<(i64, IdTarget, Range<usize>)>,
) {
    let mut counter = before;
    for (i, e) in elements_in_order.iter().enumerate() {
        counter += 1;
        let target = index_of[i].map_or(IdTarget::Other, IdTarget::System);
        if implicit_ids {
            ids.push((counter, target, tag_span(e.node)));
        } else if e.node.has_attribute("id") && e.node.tag_name().name() != "SalvoMissileMagazine" {
            if let Some(id) = cx.int_attr(e.node, "id") {
                ids.push((id, target, attr_span(e.node, "id")));
            }
        } else if e.node.tag_name().name() == "SalvoMissileMagazine"
            && let Some(id) = e.node.attribute("id").and_then(|v| v.trim().parse::<i64>().ok())
        {
            ids.push((id, target, attr_span(e.node, "id")));
        }
    }
}

/// Warns of each id a system shares with one before it.
fn warn_second_ids(cx: &mut Cx, ids: &[(i64, IdTarget, Range<usize>)], ship_name: &str) {
    for (k, (id, _, span)) in ids.iter().enumerate() {
        if ids[..k].iter().any(|(other, ..)| other == id) {
            cx.warn(
                span.clone(),
                format!("a second system with id {id} on `{ship_name}`"),
                "ids of their own (orders naming this id are left out)",
            );
        }
    }
}

/// The ids of a ship's systems when they number them: every system element
/// (cargo holds aside) has a distinct whole-number `id`. fam's export writes
/// each system's GZF number + 1 there (the main drive is 1), so the systems
/// come back at their numbers and orders still name the same systems.
fn system_numbers(elements: &[Element]) -> Option<Vec<i64>> {
    let mut numbers = Vec::with_capacity(elements.len());
    for e in elements {
        let id = e.node.attribute("id").and_then(|v| v.trim().parse::<i64>().ok());
        match (id, e.system.is_some()) {
            (Some(id), true) if !numbers.contains(&id) => numbers.push(id),
            (_, true) => return None,
            // A cargo hold is no system: it goes after them all.
            (_, false) => numbers.push(i64::MAX),
        }
    }
    Some(numbers)
}

/// What a log record written by fam's export carries.
enum FamRecord {
    /// Systems FTJava has no element for, at their GZF numbers.
    LeftOut(Vec<(usize, System)>),
    /// Magazine ids (GZF `Magazine:`) by the magazine's GZF number.
    Magazines(Vec<(usize, String)>),
}

/// A log record written by fam's export (`N Name; N Name` after a known
/// prefix), or `None` for any other record.
fn fam_record(cx: &mut Cx, r: Node<'_, '_>) -> Option<FamRecord> {
    if r.attribute("event").map(str::trim) != Some(LEFT_OUT_EVENT) {
        return None;
    }
    let body = line(r);
    let (list, systems) = match body.strip_prefix(LEFT_OUT_PREFIX) {
        Some(list) => (list, true),
        None => (body.strip_prefix(MAGAZINES_PREFIX)?, false),
    };
    let mut left_out = Vec::new();
    let mut magazines = Vec::new();
    for entry in list.split(';').map(str::trim).filter(|e| !e.is_empty()) {
        let parsed = entry.split_once(' ').and_then(|(n, name)| {
            let number = n.parse::<usize>().ok().filter(|n| (1..=limits::SYSTEMS).contains(n))?;
            Some((number, name.trim()))
        });
        let room = left_out.len() + magazines.len() < limits::SYSTEMS;
        match parsed {
            Some((n, name)) if room && !systems => magazines.push((n, name.to_string())),
            Some((n, name)) if room => match crate::gzf::parse::system_kind(name, crate::gzf::Profile::Fb1) {
                Ok(kind) => left_out.push((n, System::new(kind))),
                Err(_) => cx.warn(
                    text_span(r),
                    format!("`{name}` in fam's list of systems left out is no FB1 system"),
                    "an FB1 system name (the entry is left out)",
                ),
            },
            _ => cx.warn(
                text_span(r),
                format!("`{entry}` in a list written by fam's export"),
                format!(
                    "a GZF system number from 1 to {} and a name, at most {} entries (the entry is left out)",
                    limits::SYSTEMS,
                    limits::SYSTEMS
                ),
            ),
        }
    }
    Some(if systems {
        FamRecord::LeftOut(left_out)
    } else {
        FamRecord::Magazines(magazines)
    })
}

/// Gives magazines back the ids fam's export listed: the magazine at each
/// number and the launchers linked to it.
fn rename_magazines(ship: &mut Ship, names: &[(usize, String)]) {
    // Every rename read from the ids as imported, then made at once, so that
    // one magazine's new id cannot be taken for another's old one.
    let renames: Vec<(String, String)> = names
        .iter()
        .filter_map(|(number, name)| {
            let m = ship.systems.get(number - 1).filter(|x| x.kind == SystemKind::Smm)?;
            Some((m.magazine.clone()?, name.clone()))
        })
        .collect();
    for x in &mut ship.systems {
        if !(x.kind.is_magazine() || x.kind.draws_on_magazine()) {
            continue;
        }
        if let Some((_, name)) = renames
            .iter()
            .find(|(old, _)| x.magazine.as_deref() == Some(old.as_str()))
        {
            x.magazine = Some(name.clone());
        }
    }
}

/// Puts systems fam's export left out back at their numbers (or last, when
/// the ship has fewer systems), keeping `ids` pointing at the same systems.
fn restore(ship: &mut Ship, mut restored: Vec<(usize, System)>, ids: &mut [(i64, IdTarget, Range<usize>)]) {
    restored.sort_by_key(|(n, _)| *n);
    for (number, system) in restored {
        let at = (number - 1).min(ship.systems.len());
        ship.systems.insert(at, system);
        for (_, target, _) in ids.iter_mut() {
            if let IdTarget::System(i) = target
                && *i >= at
            {
                *i += 1;
            }
        }
    }
}

/// GZF's canonical order for the kept-as-text ship fields this import
/// writes (the reader sorts them so; unknown ones go last).
fn order_meta(mut meta: Vec<Meta>) -> Vec<Meta> {
    const ORDER: &[&str] = &[
        "Crew",
        "Facing",
        "Course",
        "Velocity",
        "Position-X",
        "Position-Y",
        "Orders",
        "Log",
        "Designer",
        "Payload-Track",
    ];
    meta.sort_by_key(|m| ORDER.iter().position(|n| *n == m.name).unwrap_or(ORDER.len()));
    meta
}

/// A number as GZF float text: `12.0`, `-3.5`.
pub fn float_text(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.1}")
    } else {
        let s = format!("{v:.6}");
        s.trim_end_matches('0').to_string()
    }
}

/// A log record as one GZF `Log:` line: `Turn 2 Attack (High): text`.
fn log_line(r: Node<'_, '_>) -> String {
    let body: String = text(r).split_whitespace().collect::<Vec<_>>().join(" ");
    let attr = |a: &str| attr_line(r, a).filter(|v| !v.is_empty());
    match (attr("turn"), attr("event"), attr("priority")) {
        (Some(t), Some(e), Some(p)) => format!("Turn {t} {e} ({p}): {body}"),
        _ => body,
    }
}

/// A `Log:` line back into a record's turn, event, priority and text.
pub fn split_log_line(line: &str) -> (Option<(String, String, String)>, String) {
    let parsed = (|| {
        let rest = line.strip_prefix("Turn ")?;
        let (turn, rest) = rest.split_once(' ')?;
        let (event, rest) = rest.split_once(" (")?;
        let (priority, body) = rest.split_once("): ")?;
        if turn.is_empty() || event.contains(' ') || priority.contains(' ') {
            return None;
        }
        Some((
            (turn.to_string(), event.to_string(), priority.to_string()),
            body.to_string(),
        ))
    })();
    match parsed {
        Some((head, body)) => (Some(head), body),
        None => (None, line.to_string()),
    }
}

fn read_drive(cx: &mut Cx, drive: Option<Node>, ship_node: Node, ship: &mut Ship) {
    let Some(d) = drive else {
        cx.warn(
            tag_span(ship_node),
            format!("ship `{}` has no `MainDrive`", ship.name),
            "a MainDrive element (read as thrust 0)",
        );
        return;
    };
    match d.attribute("type").map(str::trim) {
        None => {}
        Some(t) if t.eq_ignore_ascii_case("standard") => {}
        Some(t) if t.eq_ignore_ascii_case("advanced") => ship.advanced_drive = true,
        Some(t) => cx.unmapped(
            attr_span(d, "type"),
            format!("a main drive of type `{t}`"),
            "type=\"Standard\" or type=\"Advanced\"",
        ),
    }
    let initial = cx.uint_attr(d, "initialThrust", 0..=limits::THRUST);
    if d.attribute("initialThrust").is_none() {
        cx.error(
            tag_span(d),
            "a `MainDrive` without `initialThrust`",
            "initialThrust=\"N\"",
        );
    }
    let initial = initial.unwrap_or(0);
    let state = d.attribute("status").map(|s| s.trim().to_ascii_lowercase());
    let current = match (cx.uint_attr(d, "currentThrust", 0..=limits::THRUST), state.as_deref()) {
        (Some(c), _) => c,
        (None, None | Some("operational")) => initial,
        (None, Some("damaged")) => {
            cx.warn(
                attr_span(d, "status"),
                "a damaged main drive without `currentThrust`",
                "currentThrust (read as half the initial thrust, rounded down)",
            );
            initial / 2
        }
        (None, Some("destroyed")) => 0,
        (None, Some(other)) => {
            cx.error(
                attr_span(d, "status"),
                format!("main drive status `{other}`"),
                "Operational, Damaged or Destroyed",
            );
            initial
        }
    };
    if current > initial {
        cx.error(
            attr_span(d, "currentThrust"),
            format!("current thrust {current} is more than the initial thrust {initial}"),
            format!("currentThrust from 0 to {initial}"),
        );
    }
    ship.original_thrust = initial;
    ship.thrust = current.min(initial);
}

fn read_hull(cx: &mut Cx, hull: Option<Node>, ship_node: Node, ship: &mut Ship) {
    let Some(h) = hull else {
        cx.error(
            tag_span(ship_node),
            format!("ship `{}` has no `Hull`", ship.name),
            "<Hull value=\"MASS\" type=\"Average\"/>",
        );
        return;
    };
    ship.ship_type = hull_class(cx, h);
    if let Some(s) = cx.int_attr(h, "stealth")
        && s != 0
    {
        cx.unmapped(
            attr_span(h, "stealth"),
            format!("a stealth hull (level {s})"),
            "stealth=\"0\"",
        );
    }
    let Some(basis) = hull_basis(cx, h, ship.mass) else {
        return;
    };
    let Some(integrity) = hull_integrity(cx, h) else {
        return;
    };
    let Some(boxes) = hull_boxes(cx, h, integrity, basis) else {
        return;
    };
    ship.hull_integrity = integrity;
    let rows = match cx.uint_attr(h, "rows", 0..=limits::HULL_BOXES) {
        Some(r) if r == 0 || r > boxes => {
            cx.error(
                attr_span(h, "rows"),
                format!("{r} rows for {boxes} hull boxes"),
                format!("1 to {} rows", boxes.min(4)),
            );
            return;
        }
        Some(r) => widen(r),
        None => widen(boxes).min(4),
    };
    let remaining = match cx.uint_attr(h, "remainingHullBoxes", 0..=limits::HULL_BOXES) {
        Some(r) if r > boxes => {
            cx.error(
                attr_span(h, "remainingHullBoxes"),
                format!("{r} hull boxes left of {boxes}"),
                format!("0 to {boxes}"),
            );
            boxes
        }
        Some(r) => r,
        None => boxes,
    };
    let cf = widen(crew_factors_for(ship.mass.unwrap_or(basis), ship.ship_type));
    let crew = crew_factor_boxes(widen(boxes), cf);
    ship.damage_track = hull_track(&row_sizes(widen(boxes), rows), widen(boxes - remaining), &crew);
    if remaining == 0 {
        ship.status.damage = Some(DamageState::Destroyed);
    }
}

/// The hull's `class`: Military, Civilian or Merchant (none when absent
/// or refused).
fn hull_class(cx: &mut Cx, h: Node) -> Option<ShipType> {
    match h.attribute("class").map(|c| c.trim().to_ascii_lowercase()) {
        None => None,
        Some(c) if c == "military" => Some(ShipType::Military),
        Some(c) if c == "civilian" => Some(ShipType::Civilian),
        Some(c) if c == "merchant" => Some(ShipType::Merchant),
        Some(c) => {
            cx.error(
                attr_span(h, "class"),
                format!("hull class `{c}`"),
                "Military, Civilian or Merchant",
            );
            None
        }
    }
}

/// The mass the hull is figured on: its `value` (warned of when it
/// differs from the ship's mass), else the mass; `None` with neither.
fn hull_basis(cx: &mut Cx, h: Node, mass: Option<u32>) -> Option<u32> {
    let value = cx.uint_attr(h, "value", 0..=limits::MASS);
    match (value, mass) {
        (Some(v), Some(m)) if v != m => {
            cx.warn(
                attr_span(h, "value"),
                format!("hull value {v} differs from the ship's mass {m}"),
                format!("value=\"{m}\" (the hull is figured on {v}, as written)"),
            );
            Some(v)
        }
        (Some(v), _) => Some(v),
        (None, Some(m)) => Some(m),
        (None, None) => {
            // A value given but refused is reported where it is written.
            if !h.has_attribute("value") {
                cx.error(tag_span(h), "no hull value and no mass", "value=\"MASS\"");
            }
            None
        }
    }
}

/// The hull's `type`: `Some(None)` for Custom, `None` when missing or
/// unknown.
fn hull_integrity(cx: &mut Cx, h: Node) -> Option<Option<HullIntegrity>> {
    let kind = h.attribute("type").map(|t| t.trim().to_ascii_lowercase());
    match kind.as_deref() {
        Some("fragile") => Some(Some(HullIntegrity::Fragile)),
        Some("weak") => Some(Some(HullIntegrity::Weak)),
        Some("average") => Some(Some(HullIntegrity::Average)),
        Some("strong") => Some(Some(HullIntegrity::Strong)),
        Some("super") => Some(Some(HullIntegrity::Super)),
        Some("custom") => Some(None),
        None => {
            cx.error(
                tag_span(h),
                "a `Hull` without `type`",
                "type=\"Average\" (or Fragile, Weak, Strong, Super, Custom)",
            );
            None
        }
        Some(other) => {
            cx.error(
                attr_span(h, "type"),
                format!("hull type `{other}`"),
                "Fragile, Weak, Average, Strong, Super or Custom",
            );
            None
        }
    }
}

/// The hull's boxes: `totalHullBoxes` (warned of when it differs from
/// the integrity's count, required for a Custom hull), else the count
/// for the integrity and `basis`; `None` when missing or 0.
fn hull_boxes(cx: &mut Cx, h: Node, integrity: Option<HullIntegrity>, basis: u32) -> Option<u32> {
    let total = cx.uint_attr(h, "totalHullBoxes", 0..=limits::HULL_BOXES);
    let boxes = match (integrity, total) {
        (None, Some(t)) => t,
        (None, None) => {
            cx.error(
                attr_span(h, "type"),
                "a Custom hull without `totalHullBoxes`",
                "totalHullBoxes=\"N\" with type=\"Custom\"",
            );
            return None;
        }
        (Some(i), Some(t)) if t != hull_boxes_for(basis, i) => {
            cx.warn(
                attr_span(h, "totalHullBoxes"),
                format!(
                    "{t} hull boxes, but a {} hull of {basis} has {}",
                    i.name(),
                    hull_boxes_for(basis, i)
                ),
                format!("{} boxes (the file's {t} are kept)", hull_boxes_for(basis, i)),
            );
            t
        }
        (Some(i), _) => hull_boxes_for(basis, i),
    };
    if boxes == 0 {
        cx.error(attr_span(h, "totalHullBoxes"), "a hull of 0 boxes", "1 box or more");
        return None;
    }
    Some(boxes)
}

fn read_armour(cx: &mut Cx, armour: Option<Node>, ship: &mut Ship) {
    let Some(a) = armour else { return };
    let Some(layers) = armour_layers(cx, a) else { return };
    let total: u32 = layers.iter().sum();
    let remaining = match cx.uint_attr(a, "remainingArmor", 0..=limits::ARMOUR_BOXES) {
        Some(r) if r > total => {
            cx.error(
                attr_span(a, "remainingArmor"),
                format!("{r} armour boxes left of {total}"),
                format!("0 to {total}"),
            );
            total
        }
        Some(r) => r,
        None => total,
    };
    ship.armour = Armour::from_layers(lost_outermost_first(&layers, total - remaining));
}

/// `totalArmor`: one number of boxes per layer, the innermost first
/// (readings I30), each within the limit and their sum too. Returns the
/// layers outermost first, layers of 0 boxes left out.
fn armour_layers(cx: &mut Cx, a: Node<'_, '_>) -> Option<Vec<u32>> {
    let raw = a.attribute("totalArmor").unwrap_or("0");
    let span = attr_span(a, "totalArmor");
    let mut layers = Vec::new();
    let mut sum = 0u32;
    for layer in raw.split(',').map(str::trim) {
        let v = cx.int_value(layer, span.clone(), "`totalArmor`")?;
        let boxes = cx.within(v, span.clone(), "`totalArmor`", 0..=limits::ARMOUR_BOXES)?;
        sum = sum.saturating_add(boxes);
        if boxes > 0 {
            layers.push(boxes);
        }
    }
    if sum > limits::ARMOUR_BOXES {
        cx.error(
            span,
            format!("{sum} armour boxes in all"),
            format!("at most {} in all layers", limits::ARMOUR_BOXES),
        );
        return None;
    }
    layers.reverse();
    Some(layers)
}

/// Armour rows of `layers` boxes (outermost first) with `lost` boxes
/// crossed, the outermost layer's first (FTJava keeps one count of armour
/// left, not one per layer: readings I31).
fn lost_outermost_first(layers: &[u32], mut lost: u32) -> Vec<Vec<CheckBox>> {
    layers
        .iter()
        .map(|&boxes| {
            let crossed = lost.min(boxes);
            lost -= crossed;
            crossed_first(widen(boxes), widen(crossed))
        })
        .collect()
}

/// `boxes` boxes, the first `crossed` of them crossed (lost armour, spent
/// loads).
fn crossed_first(boxes: usize, crossed: usize) -> Vec<CheckBox> {
    (0..boxes)
        .map(|i| if i < crossed { CheckBox::CROSSED } else { CheckBox::OPEN })
        .collect()
}

/// A damage track as the import builds it: rows of `sizes`, the first
/// `lost` boxes crossed, crew factors in the boxes `crew` numbers (1-based,
/// ascending, as `crew_factor_boxes` gives them), the others open. One
/// pass over the boxes, however many crew factors there are.
pub(crate) fn hull_track(sizes: &[usize], lost: usize, crew: &[usize]) -> Vec<Vec<CheckBox>> {
    let mut crew = crew.iter().copied().peekable();
    let mut n = 0usize;
    let mut next_box = || {
        n += 1;
        while crew.next_if(|&c| c < n).is_some() {}
        let is_crew = crew.next_if_eq(&n).is_some();
        match (n <= lost, is_crew) {
            (true, _) => CheckBox::CROSSED,
            (false, true) => CheckBox::CREW,
            (false, false) => CheckBox::OPEN,
        }
    };
    sizes
        .iter()
        .map(|&len| (0..len).map(|_| next_box()).collect())
        .collect()
}

/// Launchers name their magazine by `smmId`; a magazine without `id`, or a
/// launcher without `smmId` on a ship with one magazine, is linked here.
fn link_magazines(cx: &mut Cx, ship_node: Node, ship: &mut Ship, elements: &[Element], index_of: &[Option<usize>]) {
    let magazines: Vec<usize> = (0..ship.systems.len())
        .filter(|&i| ship.systems[i].kind == SystemKind::Smm)
        .collect();
    let mut next = 101;
    for &m in &magazines {
        if ship.systems[m].magazine.is_none() {
            while magazines
                .iter()
                .any(|&o| ship.systems[o].magazine.as_deref() == Some(next.to_string().as_str()))
            {
                next += 1;
            }
            ship.systems[m].magazine = Some(next.to_string());
            let span = elements
                .iter()
                .zip(index_of)
                .find(|(_, i)| **i == Some(m))
                .map_or_else(|| tag_span(ship_node), |(e, _)| tag_span(e.node));
            cx.warn(
                span,
                "a salvo magazine without `id`",
                format!("an id for its launchers' smmId (given id {next})"),
            );
            next += 1;
        }
    }
    for (e, i) in elements.iter().zip(index_of) {
        let Some(i) = *i else { continue };
        if ship.systems[i].kind != SystemKind::Sml {
            continue;
        }
        let want = ship.systems[i].magazine.clone();
        let found = magazines.iter().any(|&m| {
            want.as_deref()
                .is_some_and(|w| ship.systems[m].magazine.as_deref() == Some(w))
        });
        if found {
            continue;
        }
        if magazines.len() == 1 {
            let id = ship.systems[magazines[0]].magazine.clone();
            cx.warn(
                if e.node.has_attribute("smmId") {
                    attr_span(e.node, "smmId")
                } else {
                    tag_span(e.node)
                },
                match &want {
                    Some(w) => format!("salvo launcher names magazine {w}, which the ship does not have"),
                    None => "a salvo launcher without `smmId`".to_string(),
                },
                format!(
                    "the id of one of its magazines (linked to the ship's only magazine, {})",
                    id.as_deref().unwrap_or("")
                ),
            );
            ship.systems[i].magazine = id;
        } else {
            cx.error(
                if e.node.has_attribute("smmId") {
                    attr_span(e.node, "smmId")
                } else {
                    tag_span(e.node)
                },
                "a salvo launcher whose magazine cannot be found",
                "smmId=\"ID\" naming a SalvoMissileMagazine of the same ship",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The track box by box, as the design rules describe it.
    fn by_definition(boxes: usize, rows: usize, lost: usize, crew: &[usize]) -> Vec<Vec<CheckBox>> {
        let mut n = 0;
        row_sizes(boxes, rows)
            .into_iter()
            .map(|len| {
                (0..len)
                    .map(|_| {
                        n += 1;
                        match (n <= lost, crew.contains(&n)) {
                            (true, _) => CheckBox::CROSSED,
                            (false, true) => CheckBox::CREW,
                            (false, false) => CheckBox::OPEN,
                        }
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn the_one_pass_track_puts_crew_and_damage_where_the_rules_do() {
        for boxes in [1, 2, 13, 27, 100] {
            for cf in [1, 2, 5, 50, 200] {
                let crew = crew_factor_boxes(boxes, cf);
                for lost in [0, 1, boxes / 2, boxes] {
                    for rows in 1..=boxes.min(4) {
                        assert_eq!(
                            hull_track(&row_sizes(boxes, rows), lost, &crew),
                            by_definition(boxes, rows, lost, &crew),
                            "{boxes} boxes, {cf} crew factors, {lost} lost, {rows} rows"
                        );
                    }
                }
            }
        }
    }
}
