//! What a scenario and its orders load into ([`Loaded`]): the battle, its
//! plot, the records its Units came from and where each came from; and
//! writing the battle's state back into those records.

use super::bases;
use super::mix;
use crate::diag::{Diagnostic, SourceFile};
use crate::engine::plot::{ExchangePlot, FormationId, UnitId};
use crate::engine::state::Battle;
use crate::gzf::{self, GzfFile, Item, Ship};

/// A file and the problems found in it.
pub type Report = (SourceFile, Vec<Diagnostic>);

/// A GZF file loaded by the scenario.
#[derive(Debug, Clone)]
pub struct Record {
    /// The path as written in the scenario's `gzf` list.
    pub path: String,
    /// The name it was read under (the path as resolved by the caller).
    pub name: String,
    pub file: GzfFile,
}

/// Where a Unit came from: `records[record].file.items[item]` is its
/// `Item::Ship`, its `Item::FighterGroup` (a bay group without one: its
/// carrier's ship), or its `Item::Base`, with `sector` the index of the
/// base's `Base-Sector:` block the Unit is (`None`: the `Base:` block).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    pub record: usize,
    pub item: usize,
    pub sector: Option<usize>,
}

/// A validated scenario with its plots.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The `[victory]` table (defaults when absent).
    pub victory: crate::engine::victory::Victory,
    /// The scenario's source name.
    pub scenario: String,
    pub title: Option<String>,
    /// Which Exchange of the battle this is (`exchange = N`, default 1).
    pub exchange: u32,
    /// The scenario's seed; the command line may override it.
    pub seed: Option<u64>,
    pub battle: Battle,
    pub plot: ExchangePlot,
    /// The GZF files, in the order the scenario lists them.
    pub records: Vec<Record>,
    /// For each `UnitId`, the record and item it was built from: a ship, a
    /// Fighter-Group block, or (a group implied by a hangar bay) its carrier.
    pub origins: Vec<Origin>,
    /// For each `FormationId`, the source file its plot came from; `None`
    /// for a Formation without a plot (it maintains and does not fire).
    pub plot_sources: Vec<Option<String>>,
    /// Warnings (nothing here stops the battle), per file.
    pub warnings: Vec<Report>,
    /// For each `FormationId`, its `[doctrine.FORMATION]` standing orders
    /// (from the scenario or its commander's orders file), if any.
    pub doctrine: Vec<Option<crate::engine::doctrine::Doctrine>>,
    /// For each `FormationId`, the source file its standing orders came from.
    pub doctrine_sources: Vec<Option<String>>,
    /// `[[mix.SIDE]]`: sides whose standing orders each battle draws from
    /// weighted options ([`mix`]); empty for most scenarios.
    pub mixes: Vec<mix::Mix>,
}

impl Loaded {
    /// The standing orders the battle with seed `seed` plays: the
    /// scenario's, with each mixing side's drawn option
    /// ([`mix::combination`]). `fam resolve --seed` and every run of `fam
    /// batch` make this same draw.
    pub fn drawn_doctrine(&self, seed: u64) -> Vec<Option<crate::engine::doctrine::Doctrine>> {
        mix::doctrines(&self.doctrine, &self.mixes, mix::combination(&self.mixes, seed))
    }

    /// The ship record a Unit was built from (for a bay group: its carrier's).
    pub fn ship(&self, unit: UnitId) -> &Ship {
        let o = self.origins[unit];
        match &self.records[o.record].file.items[o.item] {
            Item::Ship(s) => s,
            _ => panic!("Unit {unit} is a group with a Fighter-Group block, not a ship"),
        }
    }

    /// Writes every Unit's state back into its record, ready for
    /// `gzf::write`: ships through `Unit::write_back`, groups with a
    /// Fighter-Group block through `Unit::write_back_group`. A bay group
    /// (implied by a hangar bay, docs/fighters.md §7) that changed gets a
    /// block of its own named `SHIP/N`, which keeps it in bay N; the blocks
    /// go after the last ship or group of the carrier's file, and the
    /// Units' origins then point at them.
    pub fn write_back(&mut self, battle: &Battle) {
        // Bay groups per carrier origin, in bay (Unit) order.
        let mut bay_groups: Vec<(Origin, Vec<UnitId>)> = Vec::new();
        for (u, o) in self.origins.iter().enumerate() {
            let unit = &battle.units[u];
            match &mut self.records[o.record].file.items[o.item] {
                Item::Ship(s) if !unit.is_craft() => unit.write_back(s),
                Item::FighterGroup(g) if unit.is_craft() => unit.write_back_group(g),
                Item::Base(b) if !unit.is_craft() => bases::write_back(b, o.sector, unit),
                Item::Ship(_) | Item::Base(_) => match bay_groups.iter_mut().find(|(c, _)| c == o) {
                    Some((_, list)) => list.push(u),
                    None => bay_groups.push((*o, vec![u])),
                },
                _ => {}
            }
        }
        for (carrier, mut list) in bay_groups {
            // Only bay groups that changed: a block named `SHIP/N` keeps its bay.
            list.retain(|&u| {
                let (a, b) = (&self.battle.units[u], &battle.units[u]);
                a.craft != b.craft || a.destroyed != b.destroyed
            });
            if list.is_empty() {
                continue;
            }
            let holder = &self.records[carrier.record].file.items[carrier.item];
            let carrier_name = bases::carrier_part_name(holder, carrier.sector);
            let systems = bases::carrier_part_systems(holder, carrier.sector).to_vec();
            list.sort_by_key(|&u| battle.units[u].craft.and_then(|c| c.carrier).map_or(0, |c| c.1));
            let items = &mut self.records[carrier.record].file.items;
            let at = items
                .iter()
                .rposition(|i| matches!(i, Item::Ship(_) | Item::Base(_) | Item::FighterGroup(_)))
                .map_or(items.len(), |i| i + 1);
            for (k, &u) in list.iter().enumerate() {
                let unit = &battle.units[u];
                let bay = unit.craft.and_then(|c| c.carrier).map(|c| c.1);
                let sys = bay.and_then(|b| systems.get(b));
                let mut g = gzf::FighterGroup::new(unit.name.clone());
                g.craft = vec![gzf::CheckBox::OPEN; unit.craft.map_or(6, |c| c.boxes) as usize];
                g.fighter_type = sys.and_then(|s| s.fighter_type);
                g.pilot_quality = sys.and_then(|s| s.pilot_quality);
                g.carrier = Some(carrier_name.clone());
                unit.write_back_group(&mut g);
                items.insert(at + k, Item::FighterGroup(g));
            }
            // Origins after the insertion point move down; the bay groups
            // now have blocks.
            let n = list.len();
            for o in self
                .origins
                .iter_mut()
                .filter(|o| o.record == carrier.record && o.item >= at)
            {
                o.item += n;
            }
            for (k, &u) in list.iter().enumerate() {
                self.origins[u] = Origin {
                    record: carrier.record,
                    item: at + k,
                    sector: None,
                };
            }
        }
    }

    /// Formations with neither a plot nor standing orders.
    pub fn unplotted(&self) -> Vec<FormationId> {
        (0..self.plot.formations.len())
            .filter(|f| self.plot.formations[*f].is_none() && self.doctrine.get(*f).is_none_or(Option::is_none))
            .collect()
    }
}
