//! Bases as Units (F&M: "a single Ship, Station …"; readings O40).
//!
//! A GZF `Base:` has no drive: it fights at Thrust 0. A base without
//! `Base-Sector:` blocks is one Unit. A base with sectors is one Unit per
//! sector, named `BASE sector N` (each sector has its own armour, damage
//! track and systems, as on the FTC starbase SSD), plus a core Unit under
//! the base's own name when the `Base:` block has a damage track of its own.
//!
//! The engine plays ships; each part of a base is handed to it as a ship
//! record with Thrust 0 ([`view`]) and its state is written back into the
//! base's blocks ([`write_back`]).

use crate::engine::state::Unit;
use crate::model::{Base, Item, Ship, System};

/// The Units a base brings, as parts: `None` is the `Base:` block itself
/// (the whole base, or its core when it has sectors), `Some(k)` its k-th
/// `Base-Sector:` block (0-based, in file order).
pub(super) fn parts(base: &Base) -> Vec<Option<usize>> {
    if base.sectors.is_empty() {
        return vec![None];
    }
    let core = (!base.damage_track.is_empty()).then_some(None);
    core.into_iter().chain((0..base.sectors.len()).map(Some)).collect()
}

/// The Unit name of a part.
pub(super) fn part_name(base: &Base, part: Option<usize>) -> String {
    match part {
        None => base.name.clone(),
        Some(k) => format!("{} sector {}", base.name, base.sectors[k].id),
    }
}

/// Why a base cannot take part in a battle, if it cannot: a part with no
/// hull to damage, or systems on a sectored base's block with no track of
/// its own to hold them.
pub(super) fn refusal(base: &Base) -> Option<String> {
    if base.sectors.is_empty() {
        return base
            .damage_track
            .is_empty()
            .then(|| format!("base `{}` has no `Damage-Track:`", base.name));
    }
    if base.damage_track.is_empty() && !base.systems.is_empty() {
        return Some(format!(
            "base `{}` has sectors and systems of its own but no `Damage-Track:` to hold them",
            base.name
        ));
    }
    base.sectors
        .iter()
        .find(|s| s.damage_track.is_empty())
        .map(|s| format!("sector {} of base `{}` has no `Damage-Track:`", s.id, base.name))
}

/// A part of a base as the ship record the engine plays: Thrust 0, the
/// part's armour, damage track, systems, `Mass:` and `Cost:` (a sector
/// without them counts 3 mass a hull box, as a ship does, and no points).
pub(super) fn view(base: &Base, part: Option<usize>) -> Ship {
    let mut ship = Ship::new(part_name(base, part));
    ship.class = base.class.clone();
    ship.ship_type = base.ship_type;
    ship.fleet = base.fleet.clone();
    match part {
        None => {
            ship.mass = base.mass;
            ship.cost = base.cost;
            ship.status = base.status;
            ship.armour = base.armour.clone();
            ship.damage_track = base.damage_track.clone();
            ship.systems = base.systems.clone();
        }
        Some(k) => {
            let s = &base.sectors[k];
            ship.mass = s.mass;
            ship.cost = s.cost;
            ship.armour = s.armour.clone();
            ship.damage_track = s.damage_track.clone();
            ship.systems = s.systems.clone();
        }
    }
    ship.thrust = 0;
    ship.original_thrust = 0;
    ship
}

/// Writes a part's state after the battle back into the base's blocks:
/// hull and armour boxes, systems, and (the `Base:` block only, sectors
/// having no `Status:`) its status.
pub(super) fn write_back(base: &mut Base, part: Option<usize>, unit: &Unit) {
    let mut ship = view(base, part);
    unit.write_back(&mut ship);
    match part {
        None => {
            base.status = ship.status;
            base.armour = ship.armour;
            base.damage_track = ship.damage_track;
            base.systems = ship.systems;
        }
        Some(k) => {
            let s = &mut base.sectors[k];
            s.armour = ship.armour;
            s.damage_track = ship.damage_track;
            s.systems = ship.systems;
            // A sector has no `Status:`: a lost one shows every hull box crossed.
            if unit.destroyed {
                s.damage_track
                    .iter_mut()
                    .flatten()
                    .for_each(|b| *b = crate::model::CheckBox::CROSSED);
            }
        }
    }
}

/// The systems of a carrier's part: a ship's, a base's `Base:` block
/// (`part` `None`) or its `part`-th `Base-Sector:` block.
pub(super) fn carrier_part_systems(item: &Item, part: Option<usize>) -> &[System] {
    match (item, part) {
        (Item::Ship(s), _) => &s.systems,
        (Item::Base(b), None) => &b.systems,
        (Item::Base(b), Some(k)) => b.sectors.get(k).map_or(&[], |s| &s.systems),
        _ => &[],
    }
}

/// The Unit name of a carrier's part (a ship's name, a base part's,
/// readings O40).
pub(super) fn carrier_part_name(item: &Item, part: Option<usize>) -> String {
    match item {
        Item::Ship(s) => s.name.trim().to_string(),
        Item::Base(b) => part_name(b, part).trim().to_string(),
        _ => String::new(),
    }
}
