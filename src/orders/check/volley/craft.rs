//! The small-craft keys of a Volley: `launch`, `recover`, `fighters` (each
//! entry's action in `craft_actions`) and `after`.

use std::collections::BTreeMap;
use std::ops::Range;

use super::craft_actions::craft_order;
use super::lookup::Lookup;
use super::notes::Notes;
use crate::diag::Diagnostic;
use crate::engine::plot::{FormationId, Maneuver, ManeuverOrder, UnitId, VolleyPlot};
use crate::engine::state::{Craft, CraftKind, Rearm, SysState, Unit};
use crate::orders::check::files::Files;
use crate::orders::raw::{RawVolley, S, Word};

/// The small-craft keys of one Volley: `launch`, `recover`, `fighters`
/// and `after` (`fire.group` is read with the fire entries).
pub(super) fn volley_craft(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    f: FormationId,
    v: &RawVolley,
    out: &mut VolleyPlot,
    notes: &mut Notes,
) {
    for name in v.launch.iter().flatten() {
        launch_one(lk, files, file, f, name, out, notes);
    }
    for name in v.recover.iter().flatten() {
        recover_one(lk, files, file, f, name, out, notes);
    }
    let mut acted: BTreeMap<UnitId, Range<usize>> = BTreeMap::new();
    for entry in v.fighters.iter().flatten() {
        if let Some(order) = craft_order(lk, files, file, f, entry, &mut acted) {
            out.craft.push(order);
        }
    }
    if let Some(after) = &v.after {
        secondary_maneuver(lk, files, file, f, after, out);
    }
}

/// One name of `launch`: a docked group of this Formation's carriers,
/// launched once.
fn launch_one(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    f: FormationId,
    name: &S<String>,
    out: &mut VolleyPlot,
    notes: &mut Notes,
) {
    let Some(g) = lk.group(files, file, name) else {
        return;
    };
    let unit = lk.unit(g);
    if let Some((msg, expected)) = launch_problem(lk, f, unit) {
        files.push(file, Diagnostic::error(name.span(), msg, expected));
        return;
    }
    if out.launch.contains(&g) {
        files.push(
            file,
            Diagnostic::error(
                name.span(),
                format!("`{}` is launched twice in this Volley", unit.name),
                "each group once",
            ),
        );
        return;
    }
    out.launch.push(g);
    notes.craft.launch.push((g, name.span()));
}

/// Why a group cannot be launched by Formation `f` (message and what
/// was expected), checked in order; `None` if it can.
fn launch_problem(lk: &Lookup<'_>, f: FormationId, unit: &Unit) -> Option<(String, String)> {
    let fname = &lk.defs[f].name;
    let c = unit.craft.expect("a group");
    if matches!(c.kind, CraftKind::Gunboat(_)) {
        Some((
            format!(
                "`{}` is a gunboat squadron: gunboats start launched and are never launched",
                unit.name
            ),
            "a docked fighter group".to_string(),
        ))
    } else if !carrier_in(lk, f, &c) {
        let whose = c.carrier.map_or("it has no carrier".to_string(), |(cu, _)| {
            format!(
                "its carrier `{}` is in Formation `{}`",
                lk.unit(cu).name,
                lk.defs[lk.unit(cu).formation].name
            )
        });
        Some((
            format!("`{}` cannot be launched by `{fname}`: {whose}", unit.name),
            format!("a group docked in a carrier of `{fname}`"),
        ))
    } else if unit.destroyed {
        Some((format!("`{}` is destroyed", unit.name), "a docked group".to_string()))
    } else if !c.docked {
        Some((
            format!("`{}` is not docked at the start of the Exchange", unit.name),
            "a group docked in its bay".to_string(),
        ))
    } else if c.rearm == Rearm::Never {
        Some((
            format!("`{}` cannot launch again this battle (`Rearm: Never`)", unit.name),
            "a ready group".to_string(),
        ))
    } else if let Some((cu, bay)) = c.carrier
        && lk
            .unit(cu)
            .systems
            .get(bay)
            .is_some_and(|s| s.state != SysState::Operational)
    {
        Some((
            format!(
                "`{}` sits in hangar bay {} of `{}`, which is {}",
                unit.name,
                bay + 1,
                lk.unit(cu).name,
                if lk.unit(cu).systems[bay].state == SysState::Damaged {
                    "damaged"
                } else {
                    "destroyed"
                }
            ),
            "a group in a working bay".to_string(),
        ))
    } else if let Some((cu, _)) = c.carrier.filter(|(cu, _)| !lk.unit(*cu).can_act()) {
        Some((
            format!(
                "its carrier `{}` is out of the fight or out of control",
                lk.unit(cu).name
            ),
            "a carrier that can act".to_string(),
        ))
    } else {
        None
    }
}

/// Whether a group's carrier is a Unit of Formation `f`.
fn carrier_in(lk: &Lookup<'_>, f: FormationId, c: &Craft) -> bool {
    c.carrier
        .is_some_and(|(cu, _)| lk.battle.formations[f].units.contains(&cu))
}

/// One name of `recover`: a living group of this side whose carrier
/// is in this Formation, recovered once.
fn recover_one(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    f: FormationId,
    name: &S<String>,
    out: &mut VolleyPlot,
    notes: &mut Notes,
) {
    let fname = &lk.defs[f].name;
    let side = lk.battle.formations[f].side;
    let Some(g) = lk.group(files, file, name) else {
        return;
    };
    let unit = lk.unit(g);
    let c = unit.craft.expect("a group");
    let problem = if unit.side != side {
        Some(format!("`{}` is a group of another side", unit.name))
    } else if c.carrier.is_none() {
        Some(format!("`{}` has no carrier to recover into", unit.name))
    } else if !carrier_in(lk, f, &c) {
        let (cu, _) = c.carrier.expect("checked");
        Some(format!(
            "the carrier of `{}` is `{}`, in Formation `{}`",
            unit.name,
            lk.unit(cu).name,
            lk.defs[lk.unit(cu).formation].name
        ))
    } else if unit.destroyed {
        Some(format!("`{}` is destroyed", unit.name))
    } else {
        None
    };
    match problem {
        Some(msg) => files.push(
            file,
            Diagnostic::error(
                name.span(),
                msg,
                format!("a group of this side whose carrier is in `{fname}`"),
            ),
        ),
        None if out.recover.contains(&g) => files.push(
            file,
            Diagnostic::error(
                name.span(),
                format!("`{}` is recovered twice in this Volley", unit.name),
                "each group once",
            ),
        ),
        None => {
            out.recover.push(g);
            notes.craft.recover.push((g, name.span()));
        }
    }
}

/// `after`: the secondary maneuver of a Formation of small craft, one
/// close or withdraw against a Formation.
fn secondary_maneuver(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    f: FormationId,
    after: &S<BTreeMap<S<Word>, S<String>>>,
    out: &mut VolleyPlot,
) {
    let fname = &lk.defs[f].name;
    if let Some(&ship) = lk.battle.formations[f].units.iter().find(|&&u| !lk.unit(u).is_craft()) {
        files.push(
            file,
            Diagnostic::error(
                after.span(),
                format!(
                    "`{fname}` holds a ship (`{}`): only Formations of small craft make a secondary maneuver",
                    lk.unit(ship).name
                ),
                "no `after` in this Formation",
            )
            .with_help("docs/fighters.md §4.3 (reading F4)"),
        );
        return;
    }
    let mut entries: Vec<_> = after.get_ref().iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    let [(word, target)] = entries.as_slice() else {
        files.push(
            file,
            Diagnostic::error(
                after.span(),
                format!("`after` gives {} maneuvers", entries.len()),
                "one: after = { close = \"FORMATION\" } or { withdraw = \"FORMATION\" }",
            ),
        );
        return;
    };
    let maneuver = match word.get_ref() {
        Word::Close => Some(Maneuver::Close),
        Word::Withdraw => Some(Maneuver::Withdraw),
        Word::Maintain => {
            files.push(
                file,
                Diagnostic::error(
                    word.span(),
                    "a secondary maneuver closes or withdraws",
                    "after = { close = \"FORMATION\" } or { withdraw = \"FORMATION\" }",
                ),
            );
            None
        }
    };
    let t = lk.formation_target(files, file, f, target, "maneuver against");
    if let (Some(maneuver), Some(target)) = (maneuver, t) {
        out.after = Some(ManeuverOrder { target, maneuver });
    }
}
