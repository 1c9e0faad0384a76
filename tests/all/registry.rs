//! The system registry (`model::registry`, one row per kind) against
//! everything that spells a kind: the GZF writer and reader in both
//! profiles, FTJava export and import, and the documents that list the
//! names (docs/gzf.md), the elements (docs/import.md) and the readings
//! (docs/readings.md). A row added or changed is checked here against all
//! of them at once.

use fam::diag::SourceFile;
use fam::ftjava::{self, Options};
use fam::gzf::{self, Item, ParseOptions, Profile, System, SystemKind};
use fam::model::registry::{Classes, Family, FtVariant, Params, ROWS, SystemRow, Varies};
use fam::model::{PulserSetting, TorpedoRange, Warhead};

use crate::support::repo;

/// Every kind a row makes: each class its names read, each variant, each
/// Pulser setting.
fn kinds_of(row: &SystemRow) -> Vec<SystemKind> {
    let max = row.max_class();
    let classes: Vec<u8> = if max == 0 { vec![0] } else { (1..=max).collect() };
    let mut out = Vec::new();
    for class in classes {
        for range in [TorpedoRange::Standard, TorpedoRange::Long, TorpedoRange::Short] {
            for warhead in [Warhead::Standard, Warhead::Emp, Warhead::Needle] {
                for setting in std::iter::once(None).chain(PulserSetting::ALL.map(Some)) {
                    let kind = (row.make)(Params {
                        class,
                        range,
                        warhead,
                        setting,
                    });
                    if !out.contains(&kind) {
                        out.push(kind);
                    }
                }
            }
        }
    }
    out
}

/// Every kind of every row but the inert one.
fn every_kind() -> Vec<SystemKind> {
    ROWS.iter()
        .filter(|r| r.family != Family::Inert)
        .flat_map(|r| kinds_of(r))
        .collect()
}

/// A kind as FTJava keeps it: no Pulser setting (readings I27).
fn without_setting(kind: &SystemKind) -> SystemKind {
    match kind {
        SystemKind::Pulser { .. } => SystemKind::Pulser { setting: None },
        k => k.clone(),
    }
}

/// A one-ship file of `profile` holding `systems`, as GZF text.
fn one_ship(profile: Profile, systems: &[System]) -> String {
    let head = match profile {
        Profile::Fb1 => "Profile: FB1\n\nShip: Registry\nThrust-Rating: 4\nDamage-Track: OOOO OOOO OOOO OOOO\n",
        Profile::Ft2 => "Profile: FT2\n\nShip: Registry\nThrust-Rating: 4\nDamage-Track: OOOO OOOO OOOO OOOO\n",
    };
    let mut file = gzf::parse(head, &ParseOptions::default()).file;
    let Some(Item::Ship(ship)) = file.items.first_mut() else {
        panic!("no ship in {head}")
    };
    ship.systems = systems.to_vec();
    gzf::write(&file)
}

/// Whether the row's spelling in `profile` can write the kind's class.
fn spelt_in(kind: &SystemKind, profile: Profile) -> bool {
    kind.row()
        .names
        .of(profile)
        .is_some_and(|s| s.classes.prefix(kind.params().class).is_some())
}

#[test]
fn every_kind_a_profile_spells_is_written_with_its_rows_name_and_read_back_as_itself() {
    for profile in [Profile::Fb1, Profile::Ft2] {
        let kinds: Vec<SystemKind> = every_kind().into_iter().filter(|k| spelt_in(k, profile)).collect();
        let systems: Vec<System> = kinds.iter().map(system_of).collect();
        let text = one_ship(profile, &systems);
        let written: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("System:"))
            .map(str::trim)
            .collect();
        let names: Vec<String> = kinds.iter().map(|k| k.name(profile)).collect();
        assert_eq!(written, names, "{profile}: the writer's names");
        let parsed = gzf::parse(&text, &ParseOptions::default());
        assert!(!parsed.has_errors(), "{profile}: {:?}", parsed.diagnostics);
        let ship = parsed.file.ships().next().expect("the ship");
        let read: Vec<&SystemKind> = ship.systems.iter().map(|s| &s.kind).collect();
        assert_eq!(read, kinds.iter().collect::<Vec<_>>(), "{profile}");
    }
}

#[test]
fn a_kind_the_profile_does_not_spell_is_refused_as_the_other_profiles() {
    for profile in [Profile::Fb1, Profile::Ft2] {
        for row in ROWS
            .iter()
            .filter(|r| r.names.of(profile).is_none() && r.family != Family::Inert)
        {
            let kind = kinds_of(row).remove(0);
            let name = kind.name(profile);
            let other = match profile {
                Profile::Fb1 => Profile::Ft2,
                Profile::Ft2 => Profile::Fb1,
            };
            assert_eq!(gzf::parse::system_kind(&name, profile), Err(Some(other)), "{name}");
        }
    }
}

/// A system of `kind` as a record holds it: a weapon with an arc, magazines
/// and launchers linked by `M1`, a magazine of two loads.
fn system_of(kind: &SystemKind) -> System {
    let mut s = System::new(kind.clone());
    if kind.is_weapon() && *kind != SystemKind::Pds {
        s.arcs = vec![fam::model::Arc::F];
    }
    if kind.is_magazine() || kind.draws_on_magazine() {
        s.magazine = Some("M1".into());
    }
    if kind.is_magazine() {
        s.capacity = Some(2);
    }
    s
}

/// FB1 systems of every kind FTJava has an element for.
fn ftjava_systems() -> Vec<System> {
    every_kind()
        .iter()
        .filter(|k| spelt_in(k, Profile::Fb1))
        .filter(|k| {
            k.row()
                .ftjava
                .is_some_and(|ft| ft.variant != FtVariant::StandardOnly || k.params().warhead == Warhead::Standard)
        })
        .map(system_of)
        .collect()
}

#[test]
fn every_kind_with_an_ftjava_element_exports_as_its_rows_element_and_imports_as_itself() {
    let systems = ftjava_systems();
    let text = one_ship(Profile::Fb1, &systems);
    let parsed = gzf::parse(&text, &ParseOptions::default());
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    let exported = ftjava::export::export(&ftjava::export::Request {
        text: &text,
        file: &parsed.file,
        spans: &parsed.spans,
        ship: None,
        title: "Registry",
        skip_unmapped: false,
    });
    let problems: Vec<_> = exported.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert!(problems.is_empty(), "export refused: {problems:?}");
    for s in &systems {
        let (row, params) = s.kind.entry();
        let ft = row.ftjava.expect("an element");
        let element = match (ft.variant, params.range) {
            (FtVariant::RangeInName, TorpedoRange::Long) => format!("LongRange{}", ft.element),
            (FtVariant::RangeInName, TorpedoRange::Short) => format!("ShortRange{}", ft.element),
            _ => ft.element.to_string(),
        };
        let mut tag = format!("<{element} ");
        if ft.rating.is_some() {
            tag = format!("{tag}id=");
            let rating = format!("rating=\"{}\"", params.class);
            assert!(
                exported.xml.lines().any(|l| l.contains(&tag) && l.contains(&rating)),
                "{:?}: no `{tag}… {rating}` in\n{}",
                s.kind,
                exported.xml
            );
        } else {
            assert!(
                exported.xml.contains(&tag),
                "{:?}: no `{tag}` in\n{}",
                s.kind,
                exported.xml
            );
        }
    }
    let again = ftjava::import(&SourceFile::new("exported", exported.xml.as_str()), &Options::default());
    assert!(!again.has_errors(), "{:?}\n{}", again.diagnostics, exported.xml);
    let ship = again.gzf.ships().next().expect("the ship");
    let read: Vec<SystemKind> = ship.systems.iter().map(|s| s.kind.clone()).collect();
    let written: Vec<SystemKind> = systems.iter().map(|s| without_setting(&s.kind)).collect();
    assert_eq!(read, written);
}

/// The back-quoted spans of a Markdown text.
fn quoted(markdown: &str) -> Vec<&str> {
    markdown.split('`').skip(1).step_by(2).collect()
}

/// A name as the documents write it: the class as `N` (FT2's railguns and
/// batteries by their first class), the standard variant.
fn documented(row: &SystemRow, profile: Profile, base: &str) -> Option<String> {
    let s = row.names.of(profile)?;
    Some(match s.classes {
        Classes::None => base.to_string(),
        Classes::Class(_) => format!("Class N {base}"),
        Classes::Number(_) => format!("1 {base}"),
        Classes::Letter => format!("A {base}"),
    })
}

#[test]
fn docs_gzf_lists_every_name_and_alias_of_every_row() {
    let doc = std::fs::read_to_string(repo().join("docs/gzf.md")).unwrap();
    let spans = quoted(&doc);
    let listed = |name: &str| {
        spans.iter().any(|q| {
            let q = q.trim_start_matches("System: ");
            q.eq_ignore_ascii_case(name) || q.split(" (").next().is_some_and(|h| h.eq_ignore_ascii_case(name))
        })
    };
    for row in ROWS {
        for profile in [Profile::Fb1, Profile::Ft2] {
            let Some(s) = row.names.of(profile) else { continue };
            for base in std::iter::once(s.base).chain(s.aliases.iter().copied()) {
                let name = documented(row, profile, base).expect("a spelling");
                assert!(listed(&name), "docs/gzf.md does not list `{name}` ({profile})");
            }
        }
    }
    if ROWS.iter().any(|r| r.names.varies == Varies::Range) {
        for range in ["`Long Range` / `LR`", "`Short Range` / `SR`"] {
            assert!(doc.contains(range), "docs/gzf.md does not say {range}");
        }
    }
}

#[test]
fn docs_import_lists_every_ftjava_element() {
    let doc = std::fs::read_to_string(repo().join("docs/import.md")).unwrap();
    let spans = quoted(&doc);
    let listed = |element: &str| spans.iter().any(|q| q.split(' ').next() == Some(element));
    for row in ROWS {
        let Some(ft) = row.ftjava else { continue };
        let mut elements = vec![ft.element.to_string()];
        elements.extend(ft.aliases.iter().map(|a| a.to_string()));
        if ft.variant == FtVariant::RangeInName {
            elements.push(format!("LongRange{}", ft.element));
            elements.push(format!("ShortRange{}", ft.element));
        }
        for element in elements {
            assert!(listed(&element), "docs/import.md does not list `{element}`");
        }
    }
}

#[test]
fn docs_readings_has_every_reading_a_row_names() {
    let doc = std::fs::read_to_string(repo().join("docs/readings.md")).unwrap();
    for code in ROWS.iter().filter_map(|r| r.caveat) {
        assert!(
            doc.contains(&format!("| {code} |")),
            "docs/readings.md has no reading {code}"
        );
    }
}
