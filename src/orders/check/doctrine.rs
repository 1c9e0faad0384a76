//! The `[doctrine.FORMATION]` tables of the scenario and the orders files,
//! checked once the battle is known (`crate::orders::doctrine` reads and
//! resolves each): standing orders at most once a Formation, an orders
//! file's only for its commander's Formations.

use std::ops::Range;

use super::files::Files;
use crate::diag::Diagnostic;
use crate::orders::doctrine as orders_doctrine;
use crate::orders::loaded::Loaded;
use crate::orders::raw::S;

/// An orders file's standing orders: (file index, its `commander`, tables).
pub(super) type OrdersDoctrine = (usize, Option<S<String>>, Vec<orders_doctrine::RawDoctrine>);

/// The `[doctrine.FORMATION]` tables of the scenario and the orders files
/// (`crate::orders::doctrine`): each Formation has standing orders at most once, and
/// an orders file gives them only for its commander's Formations (the
/// `commander` key, else the commander whose Formations the file plots,
/// else the one of its first standing orders). Fills `loaded.doctrine` and
/// `loaded.doctrine_sources`.
pub(super) fn doctrines(
    files: &mut Files,
    loaded: &mut Loaded,
    scenario: Vec<orders_doctrine::RawDoctrine>,
    orders: Vec<OrdersDoctrine>,
) {
    const SC: usize = 0; // the scenario file
    let battle = &loaded.battle;
    let n = battle.formations.len();
    let mut out = vec![None; n];
    let mut given: Vec<Option<(usize, Range<usize>)>> = vec![None; n];
    let mut sources = vec![(SC, None, scenario)];
    sources.extend(orders.into_iter().map(|(file, c, d)| (file, Some(c), d)));
    for (file, commander, tables) in sources {
        // Whose Formations an orders file may give standing orders to.
        let mut owner = commander
            .flatten()
            .and_then(|c| battle.sides.iter().position(|s| &s.name == c.get_ref()));
        if file != SC && owner.is_none() {
            let name = &files.list[file].0.name;
            owner = (0..n)
                .find(|&f| loaded.plot_sources.get(f).and_then(Option::as_deref) == Some(name.as_str()))
                .map(|f| battle.formations[f].side);
        }
        for raw in tables {
            let f = match orders_doctrine::formation(battle, &raw.formation) {
                Ok(f) => f,
                Err(d) => {
                    files.push(file, d);
                    continue;
                }
            };
            if let Some((other, span)) = &given[f] {
                let at = files.at(file, *other, span);
                files.push(
                    file,
                    Diagnostic::error(
                        raw.formation.span(),
                        format!(
                            "Formation `{}` already has standing orders ({at})",
                            battle.formations[f].name
                        ),
                        "one [doctrine.FORMATION] table per Formation",
                    ),
                );
                continue;
            }
            let side = battle.formations[f].side;
            if file != SC {
                match owner {
                    None => owner = Some(side),
                    Some(o) if o != side => {
                        files.push(
                            file,
                            Diagnostic::error(
                                raw.formation.span(),
                                format!(
                                    "Formation `{}` belongs to `{}`, and this orders file is `{}`'s",
                                    battle.formations[f].name, battle.sides[side].name, battle.sides[o].name
                                ),
                                "a Formation of this commander",
                            )
                            .with_help("an orders file gives standing orders only to its commander's Formations"),
                        );
                        continue;
                    }
                    Some(_) => {}
                }
            }
            given[f] = Some((file, raw.formation.span()));
            let (d, diags) = orders_doctrine::resolve(&raw, f, battle);
            for d in diags {
                files.push(file, d);
            }
            out[f] = d;
        }
    }
    loaded.doctrine_sources = given
        .iter()
        .map(|g| g.as_ref().map(|(file, _)| files.list[*file].0.name.clone()))
        .collect();
    loaded.doctrine = out;
}
