//! A Volley's `pd` entries: weapons in point-defence mode and the Units
//! they defend (their own, or with ADFCs another of the Formation).

use std::collections::BTreeMap;
use std::ops::Range;

use super::lookup::Lookup;
use super::weapons::{Mode, weapon};
use crate::diag::Diagnostic;
use crate::engine::plot::{FormationId, PdOrder, SystemId, UnitId, VolleyPlot};
use crate::gzf::SystemKind;
use crate::orders::check::files::Files;
use crate::orders::raw::{self, RawVolley, S};

/// The `pd` entries of one Volley: weapons in point-defence mode and
/// the Units they defend.
pub(super) fn point_defence(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    f: FormationId,
    v: &RawVolley,
    assigned: &mut BTreeMap<(UnitId, SystemId), Range<usize>>,
    out: &mut VolleyPlot,
) {
    // Other Units each Unit covers through its ADFCs, with where.
    let mut area: BTreeMap<UnitId, Vec<(UnitId, Range<usize>)>> = BTreeMap::new();
    for entry in v.pd.iter().flatten() {
        let e = entry.get_ref();
        let Some(u) = pd_unit(lk, files, file, f, entry, out) else {
            continue;
        };
        let defend = pd_defend(lk, files, file, f, e);
        let weapons = pd_weapons(lk, files, file, u, e, assigned);
        let Some(defend) = defend else { continue };
        let ok = match &defend {
            Some((d, d_span)) if *d != u => {
                let own_only = pd_own_only(lk, files, file, u, *d, &weapons);
                let covers = pd_adfc_cover(lk, files, file, u, (*d, d_span), &weapons, area.entry(u).or_default());
                own_only && covers
            }
            _ => true,
        };
        if ok {
            for (s, _) in weapons {
                out.point_defence.push(PdOrder {
                    unit: u,
                    weapon: s,
                    defend: defend.as_ref().map(|x| x.0),
                });
            }
        }
    }
}

/// The Unit of a `pd` entry, if it is in the fight and free to fire.
fn pd_unit(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    f: FormationId,
    entry: &S<raw::RawPd>,
    out: &VolleyPlot,
) -> Option<UnitId> {
    let e = entry.get_ref();
    let u = lk.entry_unit(files, file, f, &e.unit, &entry.span())?;
    let unit = lk.unit(u);
    let at = e.unit.as_ref().map_or(entry.span(), |n| n.span());
    if !unit.active() {
        files.push(
            file,
            Diagnostic::error(
                at,
                format!(
                    "`{}` is out of the fight (destroyed or derelict) and cannot defend",
                    unit.name
                ),
                "a Unit in the fight",
            ),
        );
        return None;
    }
    if out.reflex.contains(&u) {
        files.push(
            file,
            Diagnostic::error(
                at,
                format!(
                    "`{}` raises its reflex field in this Volley and may not fire, point defence included",
                    unit.name
                ),
                "no `pd` entry for a ship behind its raised reflex field",
            )
            .with_help("reading O41: a ship with its reflex field up fires no weapon at all"),
        );
        return None;
    }
    Some(u)
}

/// A `pd` entry's `defend`: `Some(None)` when it names no Unit, `None`
/// when the name is wrong (reported here).
fn pd_defend(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    f: FormationId,
    e: &raw::RawPd,
) -> Option<Option<(UnitId, Range<usize>)>> {
    let Some(name) = &e.defend else {
        return Some(None);
    };
    let d = lk.member(files, file, f, name)?;
    if !lk.unit(d).active() {
        files.push(
            file,
            Diagnostic::error(
                name.span(),
                format!(
                    "`{}` is out of the fight (destroyed or derelict): there is nothing to defend",
                    lk.unit(d).name
                ),
                "a Unit in the fight",
            ),
        );
        return None;
    }
    Some(Some((d, name.span())))
}

/// The weapons a `pd` entry puts in point-defence mode, with where;
/// warns when it lists none.
fn pd_weapons(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    u: UnitId,
    e: &raw::RawPd,
    assigned: &mut BTreeMap<(UnitId, SystemId), Range<usize>>,
) -> Vec<(SystemId, Range<usize>)> {
    let mut weapons: Vec<(SystemId, Range<usize>)> = Vec::new();
    for n in e.weapons.get_ref() {
        if let Some(s) = weapon(lk, files, file, u, n, assigned, Mode::Pd) {
            weapons.push((s, n.span()));
        }
    }
    if e.weapons.get_ref().is_empty() {
        files.push(
            file,
            Diagnostic::warning(
                e.weapons.span(),
                format!("this `pd` entry of `{}` lists no weapons", lk.unit(u).name),
                "weapon system numbers",
            ),
        );
    }
    weapons
}

/// Whether none of `weapons` is a mount that defends only its own Unit
/// (class-1 beams, K-1s, EMP-1s), reporting each that is.
fn pd_own_only(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    u: UnitId,
    d: UnitId,
    weapons: &[(SystemId, Range<usize>)],
) -> bool {
    let unit = lk.unit(u);
    let dname = &lk.unit(d).name;
    let mut ok = true;
    for (s, span) in weapons {
        let k1 = matches!(unit.systems[*s].kind, SystemKind::KGun { class: 1, .. });
        let emp1 = matches!(unit.systems[*s].kind, SystemKind::EmpProjector { .. });
        if !(matches!(unit.systems[*s].kind, SystemKind::Beam { .. }) || k1 || emp1) {
            continue;
        }
        let why = if k1 {
            "K-1s in point-defence mode defend only their own Unit (ft-rules §5.2 lists no K-gun for area defence)"
        } else if emp1 {
            "EMP-1s in point-defence mode defend only their own Unit, as class-1 beams (ft-rules §5.1, §5.2)"
        } else {
            "class-1 beams defend only their own Unit (ft-rules §2.3: never area defence)"
        };
        files.push(
            file,
            Diagnostic::error(
                span.clone(),
                format!("{} cannot defend `{dname}`: {why}", lk.system_label(u, *s)),
                format!("a weapon that may defend `{dname}`"),
            )
            .with_help(format!(
                "list it in a `pd` entry without `defend` (or with defend = \"{}\")",
                unit.name
            )),
        );
        ok = false;
    }
    ok
}

/// Whether Unit `u`'s ADFCs let its PDS-like `weapons` cover `d` too,
/// given the Units it already `covered` this Volley; records `d` when
/// they do, reports when they cannot.
fn pd_adfc_cover(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    u: UnitId,
    (d, d_span): (UnitId, &Range<usize>),
    weapons: &[(SystemId, Range<usize>)],
    covered: &mut Vec<(UnitId, Range<usize>)>,
) -> bool {
    let unit = lk.unit(u);
    let dname = &lk.unit(d).name;
    // PDS and the PD-capable beam family reach another Unit
    // through an ADFC; an ADAF and a Scattergun are their own
    // area-defence mounts (O20).
    let through_adfc = weapons.iter().any(|(s, _)| {
        let k = &unit.systems[*s].kind;
        *k == SystemKind::Pds || k.fires_as_pds()
    });
    if !through_adfc || covered.iter().any(|(x, _)| *x == d) {
        return true;
    }
    let adfc = unit
        .systems
        .iter()
        .filter(|s| s.kind == SystemKind::Adfc && s.operational())
        .count();
    if adfc == 0 {
        files.push(
            file,
            Diagnostic::error(
                d_span.clone(),
                format!(
                    "`{}` has no working ADFC, so its point defence can defend only itself, not `{dname}`",
                    unit.name
                ),
                format!("defend = \"{}\", or no `defend`", unit.name),
            )
            .with_help(
                "an ADFC lets a Unit's PDS cover one other Unit of its Formation \
                 (ft-rules §5.2); an ADAF or a Scattergun covers one by itself",
            ),
        );
        return false;
    }
    if covered.len() >= adfc {
        let others: Vec<String> = covered
            .iter()
            .map(|(x, span)| format!("`{}` ({})", lk.unit(*x).name, files.at(file, file, span)))
            .collect();
        files.push(
            file,
            Diagnostic::error(
                d_span.clone(),
                format!(
                    "`{}` has {} working ADFC{}, so its point defence covers at most {adfc} other Unit{} in a Volley, and it already covers {}",
                    unit.name,
                    adfc,
                    if adfc == 1 { "" } else { "s" },
                    if adfc == 1 { "" } else { "s" },
                    others.join(", ")
                ),
                format!("one of the Units already covered, or `{}` itself", unit.name),
            )
            .with_help("each working ADFC covers one other Unit of the Formation (ft-rules §5.2)"),
        );
        return false;
    }
    covered.push((d, d_span.clone()));
    true
}
