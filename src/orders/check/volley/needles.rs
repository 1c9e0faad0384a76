//! The `needle` tables of a fire entry: each needle beam among the Fire
//! Control's weapons aimed at one system of one Unit of the target
//! Formation, one target system per Fire Control.

use std::collections::BTreeMap;
use std::ops::Range;

use super::lookup::Lookup;
use super::notes::FireNotes;
use crate::diag::Diagnostic;
use crate::engine::plot::{FireOrder, FormationId, NeedleOrder, SystemId, UnitId};
use crate::engine::state::SysState;
use crate::gzf::SystemKind;
use crate::orders::check::files::Files;
use crate::orders::raw::{self, Needles, S};

/// Checks a fire entry's `needle` tables against its weapons (after the
/// default is expanded) and fills `order.needles`.
pub(super) fn needles(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    order: &mut FireOrder,
    t: FormationId,
    raw: Option<&S<Needles>>,
    note: &FireNotes,
) {
    let mut given: BTreeMap<SystemId, Range<usize>> = BTreeMap::new();
    let mut aim: Option<((UnitId, SystemId), Range<usize>)> = None;
    for (span, n) in raw.map(|r| r.get_ref().entries(&r.span())).unwrap_or_default() {
        let Some(w) = needle_weapon(lk, files, file, order, &mut given, n) else {
            continue;
        };
        let Some(tu) = needle_unit(lk, files, file, t, &span, n) else {
            continue;
        };
        let Some(ts) = needle_system(lk, files, file, tu, n) else {
            continue;
        };
        if !one_needle_aim(lk, files, file, &mut aim, (tu, ts), &span) {
            continue;
        }
        order.needles.push(NeedleOrder {
            weapon: w,
            unit: tu,
            system: ts,
        });
    }
    // Needle beams this Fire Control directs without a target.
    for &w in &order.weapons {
        if lk.unit(order.unit).systems[w].kind != SystemKind::NeedleBeam || given.contains_key(&w) {
            continue;
        }
        untargeted_needle(lk, files, file, order.unit, w, t, note);
    }
}

/// A `needle` table's `weapon`: a needle beam among this Fire Control's
/// weapons, given one target in the entry.
fn needle_weapon(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    order: &FireOrder,
    given: &mut BTreeMap<SystemId, Range<usize>>,
    n: &raw::RawNeedle,
) -> Option<SystemId> {
    let u = order.unit;
    let w = lk.system(files, file, u, &n.weapon)?;
    let label = lk.system_label(u, w);
    if lk.unit(u).systems[w].kind != SystemKind::NeedleBeam {
        files.push(
            file,
            Diagnostic::error(
                n.weapon.span(),
                format!("{label} is not a needle beam"),
                "the system number of a Needle Beam",
            ),
        );
        return None;
    }
    if !order.weapons.contains(&w) {
        files.push(
            file,
            Diagnostic::error(
                n.weapon.span(),
                format!("{label} is not among the weapons of this Fire Control"),
                "a needle beam this Fire Control directs",
            )
            .with_help("list it in `weapons` (or leave `weapons` out), or aim it in the fire entry that directs it"),
        );
        return None;
    }
    if let Some(first) = given.get(&w) {
        let at = files.at(file, file, first);
        files.push(
            file,
            Diagnostic::error(
                n.weapon.span(),
                format!("{label} already has a target in this fire entry ({at})"),
                "one `needle` table per needle beam",
            ),
        );
        return None;
    }
    given.insert(w, n.weapon.span());
    Some(w)
}

/// A `needle` table's target Unit: the one named in Formation `t`, or its
/// only ship when none is named; it must be in the fight.
fn needle_unit(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    t: FormationId,
    span: &Range<usize>,
    n: &raw::RawNeedle,
) -> Option<UnitId> {
    let tu = match &n.unit {
        Some(name) => lk.member(files, file, t, name),
        None => {
            let members: Vec<UnitId> = lk.battle.formations[t]
                .units
                .iter()
                .copied()
                .filter(|&u| !lk.unit(u).is_craft())
                .collect();
            if members.len() == 1 && lk.defs[t].complete {
                Some(members[0])
            } else {
                if lk.defs[t].complete {
                    files.push(
                        file,
                        Diagnostic::error(
                            span.clone(),
                            format!(
                                "Formation `{}` has {} Units: say which one the needle beam aims at with unit = \"…\"",
                                lk.defs[t].name,
                                members.len()
                            ),
                            "unit = \"SHIP NAME\"",
                        ),
                    );
                }
                None
            }
        }
    }?;
    let target = lk.unit(tu);
    if !target.active() {
        files.push(
            file,
            Diagnostic::error(
                n.unit.as_ref().map_or(span.clone(), |x| x.span()),
                format!(
                    "`{}` is out of the fight (destroyed or derelict): a needle beam cannot aim at it",
                    target.name
                ),
                "a Unit in the fight",
            ),
        );
        return None;
    }
    Some(tu)
}

/// A `needle` table's target system on Unit `tu`: not a core system and
/// not yet destroyed.
fn needle_system(lk: &Lookup<'_>, files: &mut Files, file: usize, tu: UnitId, n: &raw::RawNeedle) -> Option<SystemId> {
    let ts = lk.system(files, file, tu, &n.system)?;
    let tsys = &lk.unit(tu).systems[ts];
    let tlabel = lk.system_label(tu, ts);
    if tsys.kind.is_core() {
        files.push(
            file,
            Diagnostic::error(
                n.system.span(),
                format!("{tlabel} is a core system: core systems cannot be targeted by needle beams (ft-rules §4.2)"),
                "a system other than the Command Bridge, Power Core and LSS",
            ),
        );
        return None;
    }
    if tsys.state == SysState::Destroyed {
        files.push(
            file,
            Diagnostic::error(
                n.system.span(),
                format!("{tlabel} is already destroyed"),
                "a system not yet destroyed",
            ),
        );
        return None;
    }
    Some(ts)
}

/// The needle beams of one Fire Control aim at one system: the first
/// target sets `aim`, and another is refused (false).
fn one_needle_aim(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    aim: &mut Option<((UnitId, SystemId), Range<usize>)>,
    target: (UnitId, SystemId),
    span: &Range<usize>,
) -> bool {
    match aim {
        Some((first, at)) if *first != target => {
            let at = files.at(file, file, at);
            files.push(
                file,
                Diagnostic::error(
                    span.clone(),
                    format!(
                        "the needle beams of one Fire Control aim at one system, and this Fire Control's already aim at {} ({at})",
                        lk.system_label(first.0, first.1)
                    ),
                    "the same Unit and system, or another Fire Control",
                )
                .with_help("one Fire Control per needle-beam target system (ft-rules §2.4)"),
            );
            return false;
        }
        Some(_) => {}
        None => *aim = Some((target, span.clone())),
    }
    true
}

/// A needle beam `w` of Unit `u` that fires with this Fire Control but
/// has no `needle` table: an error with an example aimed at Formation `t`.
fn untargeted_needle(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    u: UnitId,
    w: SystemId,
    t: FormationId,
    note: &FireNotes,
) {
    let Some(span) = note
        .explicit
        .iter()
        .find(|(x, _)| *x == w)
        .map(|(_, s)| s.clone())
        .or_else(|| note.default.clone())
    else {
        return;
    };
    let example = lk.battle.formations[t]
        .units
        .iter()
        .map(|&x| lk.unit(x))
        .find(|x| x.active())
        .and_then(|x| {
            let s = x
                .systems
                .iter()
                .position(|s| !s.kind.is_core() && s.state != SysState::Destroyed)?;
            Some(format!(
                "needle = {{ weapon = {}, unit = \"{}\", system = {} }}",
                w + 1,
                x.name,
                s + 1
            ))
        });
    let how = if note.default.is_some() && !note.explicit.iter().any(|(x, _)| *x == w) {
        "(it fires because weapons default to all) "
    } else {
        ""
    };
    let mut d = Diagnostic::error(
        span,
        format!(
            "{} fires with this Fire Control {how}but has no target: a needle beam aims at one system of one Unit",
            lk.system_label(u, w)
        ),
        format!(
            "needle = {{ weapon = {}, unit = \"SHIP\", system = N }} in this fire entry",
            w + 1
        ),
    );
    d = match example {
        Some(e) => d.with_help(format!(
            "e.g. {e} (`fam ssd show` numbers the systems); or leave it out of `weapons`"
        )),
        None => d.with_help("or leave it out of `weapons`"),
    };
    files.push(file, d);
}
