//! The Units and Formations of the battle, built from the Formation
//! lists: ships and base parts first, then groups, each group linked to
//! its carrier's Unit and bay.

use super::files::Files;
use super::formations::{FormationDef, Member};
use super::groups::{GroupDef, group_unit};
use crate::engine::plot::UnitId;
use crate::engine::rules::Rules;
use crate::engine::state::{Formation, Unit};
use crate::gzf::Item;
use crate::orders::bases;
use crate::orders::loaded::{Origin, Record};

/// The Units and Formations of the battle: every ship and base part
/// first, in Formation order, then every group (so a scenario's ships keep
/// their Unit numbers when its carriers' bays bring groups in), each group
/// linked to its carrier's Unit and bay. Returns them with each Unit's
/// origin in the records.
pub(super) fn build_units(
    files: &mut Files,
    records: &[Record],
    gzf_spans: &[Vec<crate::gzf::parse::FieldSpans>],
    rules: &Rules,
    defs: &[FormationDef],
    groups: &[GroupDef],
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
                units.push(group_unit(files, gd, records, gzf_spans, rules, side, f));
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
