//! A weapon named by number in a fire or `pd` entry, and the default "all"
//! of a Fire Control: what may fire, what fam refuses (and why), and what
//! is spent. The `SystemKind` predicates here are the orders check's own.

use std::collections::BTreeMap;
use std::ops::Range;

use super::lookup::Lookup;
use crate::diag::Diagnostic;
use crate::engine::plot::{SystemId, UnitId, VolleyPlot};
use crate::engine::state::{Sys, SysState, is_one_shot};
use crate::gzf::SystemKind;
use crate::model::Warhead;
use crate::model::registry::Family;
use crate::orders::check::files::Files;
use crate::orders::raw::S;

/// One Fire Control order while the Volley is checked.
pub(super) struct Pending {
    pub(super) order: usize,
    pub(super) unit: UnitId,
    pub(super) span: Range<usize>,
}

/// What a weapon number in the orders is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Fire,
    Pd,
}

/// A weapon named by number for a Fire Control (`Mode::Fire`) or for
/// point defence (`Mode::Pd`): it must be a weapon, assigned once per
/// Volley, able to do what it is ordered to, and (if a one-shot) unspent.
pub(super) fn weapon(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    u: UnitId,
    n: &S<i64>,
    assigned: &mut BTreeMap<(UnitId, SystemId), Range<usize>>,
    mode: Mode,
) -> Option<SystemId> {
    let s = lk.system(files, file, u, n)?;
    let unit = lk.unit(u);
    let sys = &unit.systems[s];
    let label = lk.system_label(u, s);
    if !sys.kind.is_weapon() {
        files.push(
            file,
            Diagnostic::error(
                n.span(),
                format!("{label} is not a weapon"),
                "the system number of a weapon",
            ),
        );
        return None;
    }
    if let Some(first) = assigned.get(&(u, s)) {
        let at = files.at(file, file, first);
        files.push(
            file,
            Diagnostic::error(
                n.span(),
                format!("{label} is already assigned in this Volley ({at}): a weapon fires once per Volley"),
                "each weapon on one Fire Control or in PD mode",
            ),
        );
        return None;
    }
    assigned.insert((u, s), n.span());
    match mode {
        Mode::Fire => {
            if let Some(why) = fire_refusal(&sys.kind) {
                files.push(
                    file,
                    Diagnostic::error(
                        n.span(),
                        format!("{label} cannot fire on a Formation: {why}"),
                        "a weapon that can fire",
                    )
                    .with_help("leave it out of `weapons`"),
                );
                return None;
            }
        }
        Mode::Pd => {
            if !sys.kind.may_point_defend() {
                files.push(
                    file,
                    Diagnostic::error(
                        n.span(),
                        format!("{label} cannot fire in point-defence mode"),
                        "a PDS (PDAF), ADAF, Scattergun, class-1 beam, phaser, Gatling battery, twin particle array, meson projector or Pulser",
                    )
                    .with_help(
                        "point defence is fired by PDS/PDAF, ADAF, Scatterguns and class-1 beams \
                         (Class 1 Battery, C Battery), and as one PDS by phasers, Gatling batteries, \
                         twin particle arrays, meson projectors and Pulsers not set to short range: \
                         ft-rules §2.3, §5.1",
                    ),
                );
                return None;
            }
        }
    }
    if let Some(why) = spent(sys) {
        files.push(
            file,
            Diagnostic::error(
                n.span(),
                format!("{label} is a one-shot weapon and cannot fire again: {why}"),
                "an unspent weapon",
            ),
        );
        return None;
    }
    if sys.state == SysState::Destroyed {
        let what = if mode == Mode::Pd { "defend" } else { "fire" };
        files.push(
            file,
            Diagnostic::warning(
                n.span(),
                format!("{label} is destroyed and will not {what}"),
                "a working weapon",
            ),
        );
    }
    Some(s)
}

/// The default "all" of each pending entry: every weapon of the Unit not
/// assigned elsewhere, dedicated point defence and nova cannons aside,
/// unspent and not destroyed; a weapon fam refuses is an error with the
/// explicit list that leaves it out.
pub(super) fn default_weapons(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    defaults: Vec<Pending>,
    assigned: &mut BTreeMap<(UnitId, SystemId), Range<usize>>,
    out: &mut VolleyPlot,
) {
    for p in defaults {
        let unit = lk.unit(p.unit);
        let mut list = Vec::new();
        let mut refused = Vec::new();
        for (i, sys) in unit.systems.iter().enumerate() {
            if !sys.kind.is_weapon()
                || dedicated_pd(&sys.kind)
                || sys.kind == SystemKind::NovaCannon
                || sys.state == SysState::Destroyed
                || spent(sys).is_some()
                || assigned.contains_key(&(p.unit, i))
            {
                continue;
            }
            assigned.insert((p.unit, i), p.span.clone());
            match fire_refusal(&sys.kind) {
                None => list.push(i),
                Some(why) => refused.push((i, why)),
            }
        }
        for &(i, why) in &refused {
            let fired: Vec<String> = list.iter().map(|i| (i + 1).to_string()).collect();
            files.push(
                file,
                Diagnostic::error(
                    p.span.clone(),
                    format!(
                        "{} would fire with this Fire Control (weapons default to all), but it cannot fire on a Formation: {why}",
                        lk.system_label(p.unit, i)
                    ),
                    "weapons that can fire",
                )
                .with_help(format!(
                    "List the weapons explicitly to leave it out, e.g. weapons = [{}]",
                    fired.join(", ")
                )),
            );
        }
        if list.is_empty() && refused.is_empty() {
            files.push(
                file,
                Diagnostic::warning(
                    p.span.clone(),
                    format!("this Fire Control of `{}` has no weapons left to direct", unit.name),
                    "weapons not assigned elsewhere",
                ),
            );
        }
        out.fire[p.order].weapons = list;
    }
}

/// Dedicated point-defence systems defend on their own (F&M Point Defense
/// Phase) and are not part of a Fire Control's default "all weapons"; nor is
/// the Scattergun, a one-shot point-defence weapon.
fn dedicated_pd(kind: &SystemKind) -> bool {
    kind.family() == Family::PointDefence
}

/// Why a weapon cannot fire on a Formation in F&M, if it cannot
/// (docs/orders.md, "Weapons").
pub(super) fn fire_refusal(kind: &SystemKind) -> Option<&'static str> {
    use SystemKind::*;
    Some(match kind {
        Railgun { .. } | EnergyPulse => {
            "no rules text for it is available (ft-rules §14.1: the FT2 rules text was not found)"
        }
        Ortillery => "orbital artillery has no use in space combat (ft-rules §4.5)",
        Minelayer | Minesweeper => "mines need positions on a map, and F&M keeps none",
        Scattergun => "it is a one-shot point-defence weapon: list it under `pd`",
        Missile {
            warhead: Warhead::Emp | Warhead::Needle,
        } => {
            "the More Thrust EMP and needle missile warheads have no Continuum reading (ft-rules §4.4); \
             only standard heavy missiles fire"
        }
        _ => return None,
    })
}

/// Why a one-shot weapon cannot fire any more, if it cannot: its record
/// shows it spent (`Rounds:` crossed off) or destroyed.
fn spent(sys: &Sys) -> Option<&'static str> {
    if !is_one_shot(&sys.kind) {
        None
    } else if sys.state == SysState::Destroyed {
        Some("it is spent or destroyed (`Status: Destroyed`)")
    } else if sys.rounds_left() == 0 {
        Some("it has been fired (its `Rounds:` box is crossed off)")
    } else {
        None
    }
}
