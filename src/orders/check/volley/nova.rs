//! A ship firing its nova cannon fires nothing else that Volley
//! (ft-rules §4.5, reading W63).

use std::collections::BTreeMap;
use std::ops::Range;

use super::lookup::Lookup;
use super::weapons::fire_refusal;
use crate::diag::Diagnostic;
use crate::engine::plot::{SystemId, UnitId, VolleyPlot};
use crate::gzf::SystemKind;
use crate::orders::check::files::Files;

/// A ship whose fire orders of this Volley name its nova cannon has no
/// other weapon in fire or `pd` orders of the Volley (ft-rules §4.5:
/// "no other fire"; reading W63): each such weapon is an error where it
/// was assigned (its own entry, or the entry whose default "all" took it).
pub(super) fn nova_alone(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    out: &VolleyPlot,
    assigned: &BTreeMap<(UnitId, SystemId), Range<usize>>,
) {
    let kind = |u: UnitId, w: SystemId| &lk.unit(u).systems[w].kind;
    let mut firing: Vec<UnitId> = out
        .fire
        .iter()
        .filter(|o| o.target.is_some() && o.weapons.iter().any(|&w| *kind(o.unit, w) == SystemKind::NovaCannon))
        .map(|o| o.unit)
        .collect();
    firing.dedup();
    for u in firing {
        let Some(nova) = assigned
            .iter()
            .find(|&(&(x, w), _)| x == u && *kind(x, w) == SystemKind::NovaCannon)
            .map(|(_, span)| span.clone())
        else {
            continue;
        };
        for (&(_, w), span) in assigned.range((u, 0)..=(u, SystemId::MAX)) {
            // A weapon refused on its own is not named twice.
            if *kind(u, w) == SystemKind::NovaCannon || fire_refusal(kind(u, w)).is_some() {
                continue;
            }
            let at = files.at(file, file, &nova);
            files.push(
                file,
                Diagnostic::error(
                    span.clone(),
                    format!(
                        "`{}` fires its nova cannon in this Volley ({at}) and may fire nothing else: {} is assigned here",
                        lk.unit(u).name,
                        lk.system_label(u, w)
                    ),
                    "no other weapon, and no `pd` entry, for a ship firing its nova cannon",
                )
                .with_help(
                    "a nova cannon fires with no thrust, no screens and no other fire that turn (ft-rules §4.5, reading W63); \
                     list the nova cannon alone in its fire entry (`weapons = [N]`)",
                ),
            );
        }
    }
}
