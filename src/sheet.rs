//! A ship as a readable record sheet, for `fam ssd show`.

use std::fmt::Write as _;

use crate::model::*;

/// Renders one ship: identity, thrust, armour, hull rows with crew factors,
/// and every system with its state.
pub fn ship_sheet(ship: &Ship, profile: Profile) -> String {
    let mut s = String::new();
    let title = if ship.name.is_empty() {
        "(unnamed ship)"
    } else {
        &ship.name
    };
    let _ = writeln!(s, "{title}");
    let _ = writeln!(s, "{}", "=".repeat(title.chars().count()));
    identity(&mut s, ship, profile);
    let _ = writeln!(s);
    armour(&mut s, ship);
    hull(&mut s, ship);
    let _ = writeln!(s);
    let _ = writeln!(s, "Systems ({})", ship.systems.len());
    let width = ship
        .systems
        .iter()
        .map(|x| x.kind.name(profile).len())
        .max()
        .unwrap_or(6)
        .max(6);
    let arc_width = ship
        .systems
        .iter()
        .map(|x| x.arcs.iter().map(|a| a.code().len() + 1).sum::<usize>())
        .max()
        .unwrap_or(4)
        .max(4);
    for (i, sys) in ship.systems.iter().enumerate() {
        let arcs: Vec<_> = sys.arcs.iter().map(|a| a.code()).collect();
        let state = if sys.status.is_empty() {
            "active".to_string()
        } else {
            sys.status.words().join(" ").to_ascii_lowercase()
        };
        let notes = system_notes(sys);
        let _ = writeln!(
            s,
            "  {:>2}  {:<width$}  {:<arc_width$}  {:<18}  {}",
            i + 1,
            sys.kind.name(profile),
            arcs.join(" "),
            state,
            notes.join(", "),
        );
    }
    s.lines().map(str::trim_end).collect::<Vec<_>>().join("\n") + "\n"
}

/// The sheet's head under the title: class, type, fleet, profile, mass,
/// points, thrust and status.
fn identity(s: &mut String, ship: &Ship, profile: Profile) {
    let mut facts = Vec::new();
    if let Some(c) = &ship.class {
        facts.push(format!("class {c}"));
    }
    if let Some(t) = ship.ship_type {
        facts.push(t.name().to_ascii_lowercase());
    }
    if let Some(hc) = &ship.hull_class {
        facts.push(hc.to_ascii_lowercase());
    }
    if let Some(f) = &ship.fleet {
        facts.push(format!("fleet {f}"));
    }
    facts.push(format!("{profile} profile"));
    let _ = writeln!(s, "{}", facts.join(", "));
    let mass = ship.mass.map_or("?".to_string(), |m| m.to_string());
    let cost = ship.cost.map_or("?".to_string(), |c| c.to_string());
    let _ = writeln!(s, "Mass {mass}   Points {cost}");
    if ship.original_thrust != ship.thrust {
        let _ = writeln!(
            s,
            "Thrust {} (original {}, drive damaged)",
            ship.thrust, ship.original_thrust
        );
    } else {
        let _ = writeln!(s, "Thrust {}", ship.thrust);
    }
    if !ship.status.is_empty() {
        let _ = writeln!(s, "Status {}", ship.status.words().join(" "));
    }
}

/// The armour line: its boxes, level or layers.
fn armour(s: &mut String, ship: &Ship) {
    match &ship.armour {
        Some(Armour::Boxes(b)) => {
            let row: Vec<String> = b.iter().map(|x| x.symbol().to_string()).collect();
            let _ = writeln!(
                s,
                "Armour      {}   ({} of {} left)",
                row.join(" "),
                ship.armour_remaining(),
                b.len()
            );
        }
        Some(Armour::Level(n)) => {
            let _ = writeln!(s, "Armour      level {n}");
        }
        Some(Armour::Layers(layers)) => {
            let rows: Vec<String> = layers
                .iter()
                .map(|b| b.iter().map(|x| x.symbol().to_string()).collect::<Vec<_>>().join(" "))
                .collect();
            let _ = writeln!(
                s,
                "Armour      {}   ({} of {} left in {} layers, outermost first)",
                rows.join(" / "),
                ship.armour_remaining(),
                ship.armour_boxes(),
                layers.len()
            );
        }
        None => {
            let _ = writeln!(s, "Armour      none");
        }
    }
}

/// The hull line and its rows of boxes.
fn hull(s: &mut String, ship: &Ship) {
    let integrity = ship
        .hull_integrity
        .map_or(String::new(), |h| format!(", {}", h.name().to_ascii_lowercase()));
    let _ = writeln!(
        s,
        "Hull        {} of {} boxes left{integrity}; crew factors {}",
        ship.hull_remaining(),
        ship.hull_boxes(),
        ship.crew_factors()
    );
    for (i, row) in ship.damage_track.iter().enumerate() {
        let boxes: Vec<String> = row.iter().map(|b| b.symbol().to_string()).collect();
        let _ = writeln!(s, "  row {}     {}", i + 1, boxes.join(" "));
    }
    let _ = writeln!(s, "            (O open, * open crew-factor box, - crossed off)");
}

/// What a system's line says after its state: magazine, capacity, rounds,
/// ammunition, fighters, failure, core, pulser setting.
fn system_notes(sys: &System) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(m) = &sys.magazine {
        notes.push(format!("magazine {m}"));
    }
    if let Some(c) = sys.capacity {
        notes.push(format!("capacity {c}"));
    }
    if let Some(r) = &sys.rounds {
        let left = r.iter().filter(|b| !b.crossed).count();
        notes.push(format!("rounds {left}/{}", r.len()));
    }
    if let Some(a) = sys.ammo {
        notes.push(match a {
            AmmoType::Standard => "standard".to_string(),
            AmmoType::Er => "extended range".to_string(),
        });
    }
    if let Some(t) = sys.fighter_type {
        notes.push(format!("{} fighters", t.name().to_ascii_lowercase()));
    }
    if let Some(p) = sys.pilot_quality {
        notes.push(format!("{p:?}").to_ascii_lowercase());
    }
    if let Some(f) = sys.failure {
        notes.push(format!("failure {f}"));
    }
    if sys.kind.is_core() {
        notes.push("core".to_string());
    }
    if let SystemKind::Pulser { setting } = sys.kind {
        notes.push(match setting {
            Some(p) => format!("set {}", p.name().to_ascii_lowercase()),
            None => "setting open".to_string(),
        });
    }
    notes
}
