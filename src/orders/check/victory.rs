//! `[victory]`: Exchange limit, fleet morale and named triggers.

use super::files::{Files, name_help};
use crate::diag::Diagnostic;
use crate::engine::state::Battle;
use crate::engine::victory::{Trigger, Victory};
use crate::orders::keys::unit_key;
use crate::orders::raw::{self, S};

/// The `[victory]` table: Exchange limit, fleet morale and named triggers.
/// Sides are named by their commander; Units by ship name.
pub(super) fn victory(files: &mut Files, battle: &Battle, raw: Option<&raw::RawVictory>) -> Victory {
    const SC: usize = 0; // the scenario file
    let mut v = Victory::default();
    let Some(raw) = raw else { return v };
    if let Some(m) = &raw.max_exchanges {
        match u32::try_from(*m.get_ref()) {
            Ok(n @ 1..=1000) => v.max_exchanges = n,
            _ => files.push(
                SC,
                Diagnostic::error(
                    m.span(),
                    "`max_exchanges` out of range",
                    "a whole number from 1 to 1000",
                ),
            ),
        }
    }
    if let Some(m) = &raw.morale {
        v.morale_percent = match m.get_ref() {
            raw::RawMorale::Switch(false) => None,
            raw::RawMorale::Switch(true) => Some(50),
            raw::RawMorale::Percent(p) => match u32::try_from(*p) {
                Ok(p @ 1..=100) => Some(p),
                _ => {
                    files.push(
                        SC,
                        Diagnostic::error(
                            m.span(),
                            "`morale` must be a percentage of starting mass lost",
                            "a whole number from 1 to 100, true (50) or false (no morale rule)",
                        ),
                    );
                    None
                }
            },
        };
    }
    let side = |files: &mut Files, name: &S<String>| -> Option<usize> {
        let found = battle.sides.iter().position(|s| &s.name == name.get_ref());
        if found.is_none() {
            files.push(
                SC,
                name_help(
                    Diagnostic::error(
                        name.span(),
                        format!("unknown side `{}`", name.get_ref()),
                        "a commander named under [sides]",
                    ),
                    name.get_ref(),
                    battle.sides.iter().map(|s| s.name.as_str()),
                    "sides",
                ),
            );
        }
        found
    };
    let named = raw
        .unit_destroyed
        .iter()
        .flatten()
        .map(|t| (t, true))
        .chain(raw.unit_escaped.iter().flatten().map(|t| (t, false)));
    for (t, destroyed) in named {
        let t = t.get_ref();
        let unit = battle
            .units
            .iter()
            .position(|u| unit_key(&u.name) == unit_key(t.unit.get_ref()));
        if unit.is_none() {
            let d = Diagnostic::error(
                t.unit.span(),
                format!("no Unit named `{}` in this battle", t.unit.get_ref()),
                "a ship named under [formations]",
            );
            let units = battle.units.iter().map(|u| u.name.as_str());
            files.push_unknown_unit(SC, name_help(d, t.unit.get_ref(), units, "Units"));
        }
        if let (Some(unit), Some(side)) = (unit, side(files, &t.winner)) {
            v.triggers.push(if destroyed {
                Trigger::UnitDestroyed { unit, side }
            } else {
                Trigger::UnitEscaped { unit, side }
            });
        }
    }
    for t in raw.points.iter().flatten() {
        let t = t.get_ref();
        let points = u32::try_from(*t.points.get_ref()).ok().filter(|p| *p > 0);
        if points.is_none() {
            files.push(
                SC,
                Diagnostic::error(t.points.span(), "`points` must be positive", "a whole number above 0"),
            );
        }
        if let (Some(points), Some(side)) = (points, side(files, &t.winner)) {
            v.triggers.push(Trigger::PointsDestroyed { side, points });
        }
    }
    v
}
