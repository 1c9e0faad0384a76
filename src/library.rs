//! The shipped ship library (`ssd/`), embedded in the binary so the page
//! works from any directory, and what the page lists of a file's records.

use serde::Serialize;

use crate::gzf::{Item, ParseOptions};

/// Every GZF file of `ssd/`, by file name (a test holds this list to the
/// directory).
pub const FILES: [(&str, &str); 10] = [
    ("cinder-compact.gzf", include_str!("../ssd/cinder-compact.gzf")),
    ("halcyon-accord.gzf", include_str!("../ssd/halcyon-accord.gzf")),
    ("kestrel-reach.gzf", include_str!("../ssd/kestrel-reach.gzf")),
    ("lumen-concord.gzf", include_str!("../ssd/lumen-concord.gzf")),
    ("meridian-compact.gzf", include_str!("../ssd/meridian-compact.gzf")),
    ("old-veldt-militia.gzf", include_str!("../ssd/old-veldt-militia.gzf")),
    ("ssarith-coil.gzf", include_str!("../ssd/ssarith-coil.gzf")),
    ("tessaly-carriers.gzf", include_str!("../ssd/tessaly-carriers.gzf")),
    ("tessaly-gunboats.gzf", include_str!("../ssd/tessaly-gunboats.gzf")),
    ("vakar-raiders.gzf", include_str!("../ssd/vakar-raiders.gzf")),
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
                points: Some(crate::model::points::design_points(s, file.profile)),
                thrust: Some(s.thrust),
                kind: "ship",
                fleet: s.fleet.clone(),
            }),
            Item::Base(b) => Some(Entry {
                name: b.name.clone(),
                class: b.class.clone(),
                mass: b.mass,
                points: Some(crate::model::points::base_design_points(b, file.profile)),
                thrust: Some(0),
                kind: "base",
                fleet: b.fleet.clone(),
            }),
            Item::FighterGroup(g) if g.carrier.is_none() => Some(Entry {
                name: g.id.clone(),
                class: Some(group_class(g)),
                mass: None,
                points: Some(crate::model::points::group_points(g)),
                thrust: None,
                kind: "fighters",
                fleet: None,
            }),
            _ => None,
        })
        .collect()
}

/// A group's class as a player reads it: "Attack fighters", "Beam
/// gunboats".
fn group_class(g: &crate::model::FighterGroup) -> String {
    match (g.gunboat, g.fighter_type) {
        (Some(t), _) => format!("{} gunboats", t.name()),
        (None, Some(t)) => format!("{} fighters", t.name()),
        (None, None) => "Standard fighters".to_string(),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// What the page lists of a file: every ship with its points (stated or
    /// by the construction rules), groups as groups with a class a player
    /// reads, never a debug string.
    #[test]
    fn the_page_lists_points_and_readable_group_classes() {
        let entries: Vec<Entry> = list().into_iter().flat_map(|f| f.ships).collect();
        assert!(entries.iter().all(|e| e.points.is_some_and(|p| p > 0)), "{entries:?}");
        let lances = entries.iter().find(|e| e.name == "Kiln Lances").unwrap();
        // Six beam gunboats at 9 points each (ft-rules §9.2).
        assert_eq!(
            (lances.kind, lances.class.as_deref(), lances.points),
            ("fighters", Some("Beam gunboats"), Some(54))
        );
        let darts = entries.iter().find(|e| e.name == "Kiln Darts").unwrap();
        assert_eq!(
            (darts.class.as_deref(), darts.points),
            (Some("Torpedo gunboats"), Some(72))
        );
        assert!(
            entries
                .iter()
                .all(|e| e.class.as_deref().is_none_or(|c| !c.contains('{')))
        );
    }
}
