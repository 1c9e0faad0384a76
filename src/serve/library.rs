//! The shipped ship library (`ssd/`), embedded in the binary so the page
//! works from any directory, and what the page lists of a file's records.

use serde::Serialize;

use crate::gzf::{Item, ParseOptions};

/// Every GZF file of `ssd/`, by file name (a test holds this list to the
/// directory).
pub const FILES: [(&str, &str); 10] = [
    ("cinder-compact.gzf", include_str!("../../ssd/cinder-compact.gzf")),
    ("halcyon-accord.gzf", include_str!("../../ssd/halcyon-accord.gzf")),
    ("kestrel-reach.gzf", include_str!("../../ssd/kestrel-reach.gzf")),
    ("lumen-concord.gzf", include_str!("../../ssd/lumen-concord.gzf")),
    ("meridian-compact.gzf", include_str!("../../ssd/meridian-compact.gzf")),
    ("old-veldt-militia.gzf", include_str!("../../ssd/old-veldt-militia.gzf")),
    ("ssarith-coil.gzf", include_str!("../../ssd/ssarith-coil.gzf")),
    ("tessaly-carriers.gzf", include_str!("../../ssd/tessaly-carriers.gzf")),
    ("tessaly-gunboats.gzf", include_str!("../../ssd/tessaly-gunboats.gzf")),
    ("vakar-raiders.gzf", include_str!("../../ssd/vakar-raiders.gzf")),
];

/// A library file's text.
pub fn text(name: &str) -> Option<&'static str> {
    FILES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// The library's file names.
pub fn names() -> Vec<&'static str> {
    FILES.iter().map(|(n, _)| *n).collect()
}

/// A record a Formation may list, as the page shows it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Entry {
    /// The name a Formation lists it by.
    pub name: String,
    pub class: Option<String>,
    pub mass: Option<u32>,
    pub points: Option<u32>,
    pub thrust: Option<u32>,
    /// `ship`, `base` or `fighters` (a group not aboard a carrier).
    pub kind: &'static str,
    pub fleet: Option<String>,
}

/// The records of a parsed file a Formation may list, in file order:
/// ships, bases and fighter groups with no carrier (a carrier's groups
/// ride with it unless a Formation names them).
pub fn entries(file: &crate::gzf::GzfFile) -> Vec<Entry> {
    file.items
        .iter()
        .filter_map(|item| match item {
            Item::Ship(s) => Some(Entry {
                name: s.name.clone(),
                class: s.class.clone(),
                mass: s.mass,
                points: s.cost,
                thrust: Some(s.thrust),
                kind: "ship",
                fleet: s.fleet.clone(),
            }),
            Item::Base(b) => Some(Entry {
                name: b.name.clone(),
                class: b.class.clone(),
                mass: b.mass,
                points: b.cost,
                thrust: Some(0),
                kind: "base",
                fleet: b.fleet.clone(),
            }),
            Item::FighterGroup(g) if g.carrier.is_none() => Some(Entry {
                name: g.id.clone(),
                class: g.fighter_type.as_ref().map(|t| format!("{t:?}")),
                mass: None,
                points: None,
                thrust: None,
                kind: "fighters",
                fleet: None,
            }),
            _ => None,
        })
        .collect()
}

/// One library file and its records.
#[derive(Debug, Clone, Serialize)]
pub struct LibraryFile {
    pub name: &'static str,
    pub ships: Vec<Entry>,
}

/// Every library file with its records.
pub fn list() -> Vec<LibraryFile> {
    FILES
        .iter()
        .map(|(name, text)| LibraryFile {
            name,
            ships: entries(&crate::gzf::parse(text, &ParseOptions::default()).file),
        })
        .collect()
}
