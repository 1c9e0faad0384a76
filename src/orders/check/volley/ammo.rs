//! Ammunition over the three Volleys of a plot: a one-shot weapon fires
//! once, a magazine gives no more loads than it has; the default "all" is
//! trimmed Volley by Volley to what is left.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use super::lookup::Lookup;
use super::notes::Notes;
use crate::diag::Diagnostic;
use crate::engine::plot::{SystemId, UnitId, VolleyPlot};
use crate::engine::state::SysState;
use crate::gzf::{Item, SystemKind};
use crate::orders::check::files::Files;
use crate::orders::loaded::{Origin, Record};

/// Where a weapon is plotted to fire: (Volley index, span) pairs.
type VolleySpans = Vec<(usize, Range<usize>)>;

/// What the explicit weapon lists of a plot fire of its one-shot weapons
/// and magazines.
struct Ammo {
    /// One-shot weapons, with the Volley and place of each listing.
    racks: BTreeMap<(UnitId, SystemId), VolleySpans>,
    /// Magazines, with the place of each launcher listing that draws a load.
    mags: BTreeMap<(UnitId, SystemId), Vec<Range<usize>>>,
}

/// Where magazines are named: the records, and each Unit's origin in them.
pub(in crate::orders::check) struct MagazineNames<'a> {
    pub(in crate::orders::check) records: &'a [Record],
    pub(in crate::orders::check) origins: &'a [Origin],
}

impl MagazineNames<'_> {
    /// The name of a magazine: its `Magazine:` id as the record writes it.
    fn id(&self, u: UnitId, m: SystemId) -> String {
        let o = self.origins[u];
        match &self.records[o.record].file.items[o.item] {
            Item::Ship(s) => s.systems[m]
                .magazine
                .clone()
                .unwrap_or_else(|| format!("(system {})", m + 1)),
            _ => format!("(system {})", m + 1),
        }
    }
}

/// One-shot weapons and magazine loads over the three Volleys of a
/// plot: explicit orders that would fire a rack twice or draw more loads
/// than a magazine has are errors; the default "all" takes a one-shot in
/// the first Volley nothing else fires it, and a launcher while its
/// magazine has loads the explicit orders do not need.
pub(super) fn ammunition(
    lk: &Lookup<'_>,
    names: &MagazineNames<'_>,
    files: &mut Files,
    file: usize,
    volleys: &mut [VolleyPlot; 3],
    notes: &[Notes; 3],
) {
    let ammo = explicit_ammunition(lk, files, file, volleys, notes);
    racks_fired_twice(lk, files, file, &ammo.racks);
    magazines_overdrawn(lk, names, files, file, &ammo.mags);
    default_ammunition(lk, volleys, notes, &ammo);
}

/// The one-shot weapons and magazines the explicit weapon lists of the
/// three Volleys draw on, with where; a launcher with no magazine is
/// reported.
fn explicit_ammunition(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    volleys: &[VolleyPlot; 3],
    notes: &[Notes; 3],
) -> Ammo {
    let mut racks: BTreeMap<(UnitId, SystemId), VolleySpans> = BTreeMap::new();
    let mut mags: BTreeMap<(UnitId, SystemId), Vec<Range<usize>>> = BTreeMap::new();
    for v in 0..3 {
        for (i, order) in volleys[v].fire.iter().enumerate() {
            if order.target.is_none() {
                continue;
            }
            for (w, span) in &notes[v].fire[i].explicit {
                let sys = &lk.unit(order.unit).systems[*w];
                if fires_once(&sys.kind) {
                    racks.entry((order.unit, *w)).or_default().push((v, span.clone()));
                } else if sys.kind == SystemKind::Sml {
                    match sys.magazine {
                        Some(m) => mags.entry((order.unit, m)).or_default().push(span.clone()),
                        None => files.push(
                            file,
                            Diagnostic::error(
                                span.clone(),
                                format!("{} has no magazine to fire from", lk.system_label(order.unit, *w)),
                                "a launcher linked to an SMM by its `Magazine:` id",
                            ),
                        ),
                    }
                }
            }
        }
    }
    Ammo { racks, mags }
}

/// Reports each one-shot weapon the explicit orders fire in more than
/// one Volley, at every distinct place it is listed.
fn racks_fired_twice(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    racks: &BTreeMap<(UnitId, SystemId), VolleySpans>,
) {
    for ((u, w), uses) in racks {
        if uses.len() < 2 {
            continue;
        }
        let mut which: Vec<String> = uses.iter().map(|(v, _)| (v + 1).to_string()).collect();
        which.dedup();
        let last = which.pop().unwrap_or_default();
        let which = if which.is_empty() {
            format!("Volley {last}")
        } else {
            format!("Volleys {} and {last}", which.join(", "))
        };
        let spans = distinct(uses.iter().map(|(_, s)| s));
        let help = if spans.len() == 1 {
            "a rack, heavy missile or submunition pack is spent when it fires; one [[plot.FORMATION.volley]] \
             table stands for all three Volleys, so write three and list it in one"
        } else {
            "a rack, heavy missile or submunition pack is spent when it fires: list it in one Volley only"
        };
        for span in spans {
            files.push(
                file,
                Diagnostic::error(
                    span.clone(),
                    format!(
                        "{} is a one-shot weapon, plotted to fire in {which}: it fires once",
                        lk.system_label(*u, *w)
                    ),
                    "one Volley",
                )
                .with_help(help),
            );
        }
    }
}

/// Loads magazine `m` of Unit `u` can still give: none unless it works.
fn magazine_loads(lk: &Lookup<'_>, u: UnitId, m: SystemId) -> u32 {
    let mag = &lk.unit(u).systems[m];
    if mag.state == SysState::Operational {
        mag.rounds_left()
    } else {
        0
    }
}

/// Reports each magazine the explicit orders draw more loads from than
/// it has, at every distinct place a launcher on it is listed.
fn magazines_overdrawn(
    lk: &Lookup<'_>,
    names: &MagazineNames<'_>,
    files: &mut Files,
    file: usize,
    mags: &BTreeMap<(UnitId, SystemId), Vec<Range<usize>>>,
) {
    for ((u, m), uses) in mags {
        let n = uses.len() as u32;
        let left = magazine_loads(lk, *u, *m);
        if n <= left {
            continue;
        }
        let id = names.id(*u, *m);
        let times = if n == 1 {
            "once".to_string()
        } else {
            format!("{n} times")
        };
        let mag = &lk.unit(*u).systems[*m];
        let message = match mag.state {
            SysState::Operational => format!(
                "magazine {id} has {left} load{} left but its launchers are plotted to fire {times}",
                if left == 1 { "" } else { "s" }
            ),
            SysState::Damaged => format!(
                "magazine {id} is damaged (a magazine is lost, not repaired) but its launchers are plotted to fire {times}"
            ),
            SysState::Destroyed => {
                format!("magazine {id} is destroyed but its launchers are plotted to fire {times}")
            }
        };
        let spans = distinct(uses.iter());
        for span in spans {
            files.push(
                file,
                Diagnostic::error(
                    span.clone(),
                    message.clone(),
                    format!("at most {left} salvo{} from magazine {id} in this Exchange", if left == 1 { "" } else { "s" }),
                )
                .with_help(format!(
                    "magazine {id} is system {} of `{}`; each Volley a launcher fires uses one load, and launchers on one magazine share its loads (ft-rules §4.3)",
                    m + 1,
                    lk.unit(*u).name
                )),
            );
        }
    }
}

/// Trims the default "all" Volley by Volley: a one-shot the explicit
/// orders leave alone fires in the first Volley that takes it, and a
/// launcher fires while its magazine has loads they do not need.
fn default_ammunition(lk: &Lookup<'_>, volleys: &mut [VolleyPlot; 3], notes: &[Notes; 3], ammo: &Ammo) {
    let Ammo { racks, mags } = ammo;
    let mut taken: BTreeSet<(UnitId, SystemId)> = BTreeSet::new();
    let mut drawn: BTreeMap<(UnitId, SystemId), u32> = BTreeMap::new();
    for v in 0..3 {
        for (i, order) in volleys[v].fire.iter_mut().enumerate() {
            if notes[v].fire[i].default.is_none() || order.target.is_none() {
                continue;
            }
            let u = order.unit;
            order.weapons.retain(|&w| {
                let sys = &lk.unit(u).systems[w];
                if fires_once(&sys.kind) {
                    return !racks.contains_key(&(u, w)) && taken.insert((u, w));
                }
                if sys.kind != SystemKind::Sml {
                    return true;
                }
                let Some(m) = sys.magazine else { return false };
                let explicit = mags.get(&(u, m)).map_or(0, |x| x.len() as u32);
                let d = drawn.entry((u, m)).or_insert(0);
                if explicit + *d < magazine_loads(lk, u, m) {
                    *d += 1;
                    true
                } else {
                    false
                }
            });
        }
    }
}

/// One-shot weapons fired at ships: at most once per Exchange (and battle).
fn fires_once(kind: &SystemKind) -> bool {
    matches!(
        kind,
        SystemKind::Smr
            | SystemKind::Missile { .. }
            | SystemKind::SubmunitionPack
            | SystemKind::Mkp
            | SystemKind::RocketPod
            | SystemKind::AntimatterMissile
    )
}

/// Spans in first-seen order without repeats (a one-table plot repeats its
/// spans in all three Volleys).
fn distinct<'a>(spans: impl Iterator<Item = &'a Range<usize>>) -> Vec<&'a Range<usize>> {
    let mut out: Vec<&Range<usize>> = Vec::new();
    for s in spans {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}
