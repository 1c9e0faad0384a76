//! Small craft over the whole Exchange, once every plot is read: each
//! group launched once and not while re-arming, launches and recoveries
//! per carrier within its bays and launch tubes, and Speed and Evasion of
//! Formations flying on their small craft's thrust, Volley by Volley.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use super::lookup::Lookup;
use super::notes::{CraftNotes, Notes};
use crate::diag::Diagnostic;
use crate::engine::plot::{FormationId, UnitId, VolleyPlot};
use crate::engine::state::Rearm;
use crate::gzf::SystemKind;
use crate::orders::check::files::Files;

/// Checks over the whole Exchange, once every plot is read: a group
/// launched twice, launches before re-arming ends, launches and
/// recoveries per carrier and Volley against its working bays and
/// launch tubes, and Speed + Evasion of Formations of small craft
/// against their thrust equivalent Volley by Volley (halved in the
/// Volley their groups launch).
pub(super) fn exchange_craft(
    lk: &Lookup<'_>,
    files: &mut Files,
    plot: &mut [Option<crate::engine::plot::FormationPlot>],
    notes: &[Option<(usize, [Notes; 3])>],
) {
    let mut w = CraftWork::default();
    for (file, n) in notes.iter().flatten() {
        for (v, vn) in n.iter().enumerate() {
            launch_volley(lk, files, &mut w, *file, v, &vn.craft);
        }
    }
    craft_speeds(lk, files, &mut w, plot, notes);
}

/// One Volley's launches and recoveries: each group launched once and
/// ready, and each carrier within its bays and launch tubes.
fn launch_volley(lk: &Lookup<'_>, files: &mut Files, w: &mut CraftWork, file: usize, v: usize, cn: &CraftNotes) {
    let mut per_carrier: BTreeMap<UnitId, Vec<Range<usize>>> = BTreeMap::new();
    for (g, span) in &cn.launch {
        if !launch_once(lk, files, w, file, v, *g, span) {
            continue;
        }
        if let Some((cu, _)) = lk.unit(*g).craft.expect("a group").carrier {
            per_carrier.entry(cu).or_default().push(span.clone());
        }
    }
    for (g, span) in &cn.recover {
        if let Some((cu, _)) = lk.unit(*g).craft.and_then(|c| c.carrier) {
            per_carrier.entry(cu).or_default().push(span.clone());
        }
    }
    for (cu, spans) in per_carrier {
        carrier_limit(lk, files, w, file, v, cu, &spans);
    }
}

/// A group launched once in the Exchange and not while re-arming;
/// false for a second launch, which no carrier counts.
fn launch_once(
    lk: &Lookup<'_>,
    files: &mut Files,
    w: &mut CraftWork,
    file: usize,
    v: usize,
    g: UnitId,
    span: &Range<usize>,
) -> bool {
    let c = lk.unit(g).craft.expect("a group");
    if let Some(&first) = w.launched.get(&g) {
        if first != v {
            w.push(
                files,
                file,
                Diagnostic::error(
                    span.clone(),
                    format!(
                        "`{}` is launched in Volley {} and again in Volley {}",
                        lk.unit(g).name,
                        first + 1,
                        v + 1
                    ),
                    "one launch per group in an Exchange (it is docked only at the start)",
                )
                .with_help(
                    "one [[plot.FORMATION.volley]] table stands for all three Volleys: write three and launch in one",
                ),
            );
        }
        return false;
    }
    w.launched.insert(g, v);
    if let Rearm::In(k) = c.rearm
        && v < k as usize
    {
        w.push(
            files,
            file,
            Diagnostic::error(
                span.clone(),
                format!(
                    "`{}` is re-arming: it may launch from Volley {} of this Exchange (`Rearm: {k}`)",
                    lk.unit(g).name,
                    k + 1
                ),
                "a ready group",
            ),
        );
    }
    true
}

/// A carrier's launches plus recoveries in one Volley against its
/// working hangar bays and launch tubes.
fn carrier_limit(
    lk: &Lookup<'_>,
    files: &mut Files,
    w: &mut CraftWork,
    file: usize,
    v: usize,
    cu: UnitId,
    spans: &[Range<usize>],
) {
    let carrier = lk.unit(cu);
    let bays = carrier
        .systems
        .iter()
        .filter(|s| s.kind == SystemKind::HangarBay && s.operational())
        .count();
    let limit = carrier.launch_tubes.map_or(bays, |t| bays.min(t as usize));
    if spans.len() > limit {
        let why = match carrier.launch_tubes {
            Some(t) if (t as usize) < bays => format!("{t} launch tubes (`[launch_tubes]`)"),
            _ => format!("{bays} working hangar bays"),
        };
        w.push(
            files,
            file,
            Diagnostic::error(
                spans[limit].clone(),
                format!(
                    "`{}` launches or recovers {} groups in Volley {}, but has {why}",
                    carrier.name,
                    spans.len(),
                    v + 1
                ),
                format!("at most {limit} launches and recoveries a Volley"),
            )
            .with_help("each working bay launches or recovers one group a Volley (reading F15)"),
        );
    }
}

/// Speed + Evasion of Formations flying on their small craft's thrust,
/// Volley by Volley, set on their plots.
fn craft_speeds(
    lk: &Lookup<'_>,
    files: &mut Files,
    w: &mut CraftWork,
    plot: &mut [Option<crate::engine::plot::FormationPlot>],
    notes: &[Option<(usize, [Notes; 3])>],
) {
    for (f, n) in notes.iter().enumerate() {
        let Some((file, n)) = n else { continue };
        if !lk.defs[f].complete || !lk.craft_thrust(f) {
            continue;
        }
        let Some(p) = plot[f].as_mut() else { continue };
        for (v, nv) in n.iter().enumerate() {
            let Some((thrust, full)) = volley_thrust(lk, f, v, &w.launched) else {
                continue; // nothing launched yet: the table is unused
            };
            let t = VolleyThrust {
                file: *file,
                v,
                fname: &lk.defs[f].name,
                thrust,
                full,
            };
            let vp = &mut p.volleys[v];
            t.speed_and_evasion(files, w, &nv.craft, vp);
            t.evasion_cap(files, w, &nv.craft, vp);
        }
    }
}

/// Formation Thrust of Formation `f` in Volley `v` and the thrust
/// equivalent it may be halved from: the lowest of its groups out,
/// halved for those launching in `v`; `None` while none is out.
fn volley_thrust(lk: &Lookup<'_>, f: FormationId, v: usize, launched: &BTreeMap<UnitId, usize>) -> Option<(u32, u32)> {
    let members = &lk.battle.formations[f].units;
    let out_now: Vec<(UnitId, bool)> = members
        .iter()
        .filter(|&&u| {
            let unit = lk.unit(u);
            unit.active() || (!unit.destroyed && launched.get(&u).is_some_and(|&lv| lv <= v))
        })
        .map(|&u| (u, launched.get(&u) == Some(&v)))
        .collect();
    let full = out_now.iter().map(|&(u, _)| lk.unit(u).thrust).min()?;
    let thrust = out_now
        .iter()
        .map(|&(u, now)| if now { lk.unit(u).thrust / 2 } else { lk.unit(u).thrust })
        .min()
        .unwrap_or(full);
    Some((thrust, full))
}

/// What the Exchange checks over small craft share: the diagnostics already
/// pushed (each once, however many Volley tables repeat it) and the Volley
/// (0-based) each group launches in.
#[derive(Default)]
struct CraftWork {
    reported: BTreeSet<(usize, usize, usize, String)>,
    launched: BTreeMap<UnitId, usize>,
}

impl CraftWork {
    /// Pushes `d` unless the same message at the same place is pushed already.
    fn push(&mut self, files: &mut Files, file: usize, d: Diagnostic) {
        if self
            .reported
            .insert((file, d.span.start, d.span.end, d.message.clone()))
        {
            files.push(file, d);
        }
    }
}

/// One Volley's Formation Thrust for a Formation of small craft.
struct VolleyThrust<'a> {
    file: usize,
    v: usize,
    fname: &'a str,
    /// The Formation Thrust this Volley.
    thrust: u32,
    /// The thrust equivalent before halving for groups launching now.
    full: u32,
}

impl VolleyThrust<'_> {
    /// The Formation Thrust is halved this Volley.
    fn halved(&self) -> bool {
        self.thrust < self.full
    }

    /// The Formation Thrust as the messages explain it.
    fn note(&self) -> String {
        let (thrust, full) = (self.thrust, self.full);
        if self.halved() {
            format!("{thrust}: the thrust equivalent {full}, halved in the Volley its groups launch")
        } else {
            format!("{thrust} (the lowest thrust equivalent of its groups out)")
        }
    }

    /// Speed and Evasion as written against the Formation Thrust; sets them
    /// on the plot, the one not written making up the rest.
    fn speed_and_evasion(&self, files: &mut Files, w: &mut CraftWork, cn: &CraftNotes, vp: &mut VolleyPlot) {
        let (file, v, fname, thrust, full) = (self.file, self.v, self.fname, self.thrust, self.full);
        match (&cn.speed, &cn.evasion) {
            (Some((s, span)), Some((e, _))) => {
                // A full-thrust plot in the launch Volley is cut by
                // the engine as for a thrust drop (readings F31).
                if s + e != thrust && !(self.halved() && s + e == full) {
                    w.push(
                        files,
                        file,
                        Diagnostic::error(
                            span.clone(),
                            format!(
                                "Speed {s} + Evasion {e} = {}, but the Formation Thrust of `{fname}` in Volley {} is {}",
                                s + e,
                                v + 1,
                                self.note()
                            ),
                            format!("Speed + Evasion = {thrust}"),
                        ),
                    );
                }
                vp.speed = *s;
                vp.evasion = *e;
            }
            (Some((x, span)), None) | (None, Some((x, span))) => {
                let given_speed = cn.evasion.is_none();
                if *x > thrust {
                    w.push(
                        files,
                        file,
                        Diagnostic::error(
                            span.clone(),
                            format!(
                                "{} {x} is more than the Formation Thrust of `{fname}` in Volley {} ({})",
                                if given_speed { "Speed" } else { "Evasion" },
                                v + 1,
                                self.note()
                            ),
                            format!("at most {thrust}"),
                        ),
                    );
                } else if given_speed {
                    vp.speed = *x;
                    vp.evasion = thrust - x;
                } else {
                    vp.evasion = *x;
                    vp.speed = thrust - x;
                }
            }
            (None, None) => {}
        }
    }

    /// Evasion at most half the Formation Thrust (of the full thrust
    /// equivalent for a full-thrust plot in the launch Volley).
    fn evasion_cap(&self, files: &mut Files, w: &mut CraftWork, cn: &CraftNotes, vp: &VolleyPlot) {
        let cap = if self.halved() && vp.speed + vp.evasion == self.full {
            self.full / 2
        } else {
            self.thrust / 2
        };
        if vp.evasion > cap {
            let span = cn
                .evasion
                .as_ref()
                .or(cn.speed.as_ref())
                .map_or(cn.span.clone(), |x| x.1.clone());
            w.push(
                files,
                self.file,
                Diagnostic::error(
                    span,
                    format!(
                        "Evasion {} is more than half the Formation Thrust of `{}` in Volley {} ({}, so at most {cap})",
                        vp.evasion,
                        self.fname,
                        self.v + 1,
                        self.note()
                    ),
                    format!("evasion = {cap} or less"),
                )
                .with_help("maximum Evasion is half Formation Thrust, rounded down (fm-readings 7)"),
            );
        }
    }
}
