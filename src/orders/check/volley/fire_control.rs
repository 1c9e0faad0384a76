//! The Fire Control of a fire entry: a working one of the Unit, one order
//! each a Volley, and no more targets for a Unit than it has working Fire
//! Controls.

use std::collections::BTreeMap;
use std::ops::Range;

use super::lookup::Lookup;
use crate::diag::Diagnostic;
use crate::engine::plot::{SystemId, UnitId};
use crate::engine::state::SysState;
use crate::gzf::SystemKind;
use crate::orders::check::files::Files;
use crate::orders::raw::S;

/// The Fire Controls given orders in one Volley, and the fire targets of
/// each Unit.
#[derive(Default)]
pub(super) struct FireControls {
    /// Fire Controls given an order, and where.
    pub(super) fcs: BTreeMap<(UnitId, SystemId), Range<usize>>,
    /// Fire targets per Unit.
    pub(super) targets_per_unit: BTreeMap<UnitId, usize>,
}

/// The Fire Control of a fire entry: a working one of the Unit, given
/// one order a Volley, and no more targets for the Unit than it has
/// working Fire Controls. Returns it, and whether the order may stand
/// (problems here do not stop the weapons being checked).
#[allow(clippy::too_many_arguments)]
pub(super) fn fire_control_order(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    u: UnitId,
    fc: &Option<S<i64>>,
    entry: &Range<usize>,
    target: &Range<usize>,
    aimed: bool,
    work: &mut FireControls,
) -> (Option<SystemId>, bool) {
    let uname = &lk.unit(u).name;
    let s = fire_control(lk, files, file, u, fc, entry);
    let mut ok = s.is_some();
    if let Some(s) = s {
        let working = lk.unit(u).fire_controls().count();
        let k = work.targets_per_unit.entry(u).or_insert(0);
        if aimed {
            *k += 1;
        }
        let fc_span = fc.as_ref().map_or(entry.clone(), |n| n.span());
        if aimed && *k > working {
            files.push(
                file,
                Diagnostic::error(
                    target.clone(),
                    format!(
                        "more fire targets than working Fire Controls: `{uname}` has {working} and this is target {k}",
                    ),
                    format!("at most {working} target(s) for `{uname}`"),
                )
                .with_help("each working Fire Control directs fire at one Formation"),
            );
            ok = false;
        } else if let Some(first) = work.fcs.get(&(u, s)) {
            let at = files.at(file, file, first);
            files.push(
                file,
                Diagnostic::error(
                    fc_span,
                    format!(
                        "Fire Control {} of `{uname}` already has orders in this Volley ({at})",
                        s + 1
                    ),
                    "one order per Fire Control",
                ),
            );
            ok = false;
        } else {
            work.fcs.insert((u, s), fc_span);
        }
    }
    (s, ok)
}

fn fire_control(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    u: UnitId,
    fc: &Option<S<i64>>,
    span: &Range<usize>,
) -> Option<SystemId> {
    let unit = lk.unit(u);
    let all: Vec<SystemId> = unit
        .systems
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind == SystemKind::FireControl)
        .map(|(i, _)| i)
        .collect();
    let numbers = || all.iter().map(|i| (i + 1).to_string()).collect::<Vec<_>>().join(", ");
    let (s, at) = match fc {
        Some(n) => {
            let s = lk.system(files, file, u, n)?;
            if unit.systems[s].kind != SystemKind::FireControl {
                let help = if all.is_empty() {
                    format!("`{}` has no Fire Control", unit.name)
                } else {
                    format!("Fire Controls of `{}`: system {}", unit.name, numbers())
                };
                files.push(
                    file,
                    Diagnostic::error(
                        n.span(),
                        format!("{} is not a Fire Control", lk.system_label(u, s)),
                        "the system number of a Fire Control (FCS, FireCon)",
                    )
                    .with_help(help),
                );
                return None;
            }
            (s, n.span())
        }
        None => match all.as_slice() {
            [] => {
                files.push(
                    file,
                    Diagnostic::error(
                        span.clone(),
                        format!("`{}` has no Fire Control and cannot fire", unit.name),
                        "a Unit with a Fire Control",
                    ),
                );
                return None;
            }
            [one] => (*one, span.clone()),
            _ => {
                files.push(
                    file,
                    Diagnostic::error(
                        span.clone(),
                        format!(
                            "`{}` has {} Fire Controls (systems {}): say which one with fc = N",
                            unit.name,
                            all.len(),
                            numbers()
                        ),
                        "fc = SYSTEM NUMBER",
                    ),
                );
                return None;
            }
        },
    };
    let sys = &unit.systems[s];
    if !sys.operational() {
        let why = match sys.state {
            SysState::Damaged => "damaged",
            SysState::Destroyed => "destroyed",
            SysState::Operational => "switched off (Status: Inactive)",
        };
        files.push(
            file,
            Diagnostic::error(
                at,
                format!(
                    "Fire Control {} of `{}` is {why} and cannot direct fire",
                    s + 1,
                    unit.name
                ),
                "an operational Fire Control",
            ),
        );
        return None;
    }
    Some(s)
}
