//! The plots: every Formation's, from the scenario and the orders files,
//! one per Formation in the fight by its own commander, of one Volley or
//! three. Each Volley entry is checked step by step ([`volley`]), a file a
//! kind of entry; ammunition (`ammo`) and small craft (`craft_exchange`)
//! are then checked over the whole Exchange.
//!
//! The files below this one use one another only downwards: each check
//! over `lookup` (names to Units, systems, Formations) and `notes`; `fire`
//! over `fire_control` and `weapons`; `pd` and `nova` over `weapons`;
//! `craft` over `craft_actions`.

use std::ops::Range;

use crate::diag::Diagnostic;
use crate::engine::plot::{ExchangePlot, FormationId, FormationPlot, VolleyPlot};
use crate::engine::state::{Battle, Reserve};
use crate::orders::check::files::{Files, name_help};
use crate::orders::check::formations::formation_ref;
use crate::orders::raw::{self, RawPlot, RawVolley, S};
use ammo::ammunition;
use craft::volley_craft;
use craft_exchange::exchange_craft;
use damage_control::damage_control_orders;
use fire::{FireWork, fire_entry};
use maneuvers::maneuvers;
use needles::needles;
use notes::Notes;
use nova::nova_alone;
use pd::point_defence;
use reflex::reflex;
use shifts::shifts;
use thrust::speed_and_evasion;
use weapons::default_weapons;

mod ammo;
mod craft;
mod craft_actions;
mod craft_exchange;
mod damage_control;
mod fire;
mod fire_control;
mod lookup;
mod maneuvers;
mod needles;
mod notes;
mod nova;
mod pd;
mod reflex;
mod shifts;
mod thrust;
mod weapons;

pub(super) use ammo::MagazineNames;
pub(super) use lookup::Lookup;

/// Where plots come from: the scenario's own `[[plot]]` entries, then each
/// orders file's, with the commander the file names (`None`: the owner of
/// its first plot) and whether it named one.
pub(super) type PlotSource = (usize, Vec<RawPlot>, Option<usize>, bool);

/// Per Formation: the file and place its plot was written, if any.
pub(super) type PlottedIn = Vec<Option<(usize, Range<usize>)>>;

/// The plot sources, each orders file's `commander` checked against the
/// scenario's sides.
pub(super) fn plot_sources(
    files: &mut Files,
    battle: &Battle,
    plots: Vec<RawPlot>,
    raw_orders: Vec<Option<raw::RawOrders>>,
) -> Vec<PlotSource> {
    const SC: usize = 0;
    let mut sources: Vec<PlotSource> = vec![(SC, plots, None, false)];
    for (i, ro) in raw_orders.into_iter().enumerate() {
        let file = i + 1;
        let Some(ro) = ro else { continue };
        let mut owner = None;
        if let Some(c) = &ro.commander {
            match battle.sides.iter().position(|s| &s.name == c.get_ref()) {
                Some(s) => owner = Some(s),
                None => files.push(
                    file,
                    name_help(
                        Diagnostic::error(
                            c.span(),
                            format!("no commander named `{}` in the scenario", c.get_ref()),
                            "a commander listed under [sides]",
                        ),
                        c.get_ref(),
                        battle.sides.iter().map(|s| s.name.as_str()),
                        "commanders",
                    ),
                ),
            }
        }
        let explicit = ro.commander.is_some();
        sources.push((file, ro.plots, owner, explicit));
    }
    sources
}

/// Every Formation's plot from `sources`: one per Formation in the fight,
/// by its own commander's file, of one Volley or three, each Volley
/// checked, ammunition over the Exchange, then the small craft over the
/// Exchange. Returns the plots and where each was written.
pub(super) fn plots(
    lk: &Lookup<'_>,
    names: &MagazineNames<'_>,
    files: &mut Files,
    sources: Vec<PlotSource>,
) -> (ExchangePlot, PlottedIn) {
    let n = lk.defs.len();
    let mut plot = ExchangePlot {
        formations: vec![None; n],
    };
    let mut plotted_in: PlottedIn = vec![None; n];
    let mut all_notes: Vec<Option<(usize, [Notes; 3])>> = vec![None; n];
    for (file, plots, owner, explicit) in sources {
        let mut owner = Owner {
            side: owner,
            explicit,
            first_plot: None,
        };
        for p in plots {
            let Some(f) = plotted_formation(lk, files, file, &p, &plotted_in) else {
                continue;
            };
            if !owner.owns(lk, files, file, f, &p.formation) {
                continue;
            }
            plotted_in[f] = Some((file, p.formation.span()));
            if let Some((mut volleys, notes)) = formation_volleys(lk, files, file, f, &p) {
                // Ammunition is counted over the whole Exchange.
                ammunition(lk, names, files, file, &mut volleys, &notes);
                plot.formations[f] = Some(FormationPlot { volleys });
                all_notes[f] = Some((file, notes));
            }
        }
    }
    exchange_craft(lk, files, &mut plot.formations, &all_notes);
    (plot, plotted_in)
}

/// The Formation a plot is for: one of the scenario, in the fight, and
/// not plotted before.
fn plotted_formation(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    p: &RawPlot,
    plotted_in: &PlottedIn,
) -> Option<FormationId> {
    let (battle, defs) = (lk.battle, lk.defs);
    let f = formation_ref(files, file, lk.by_name, defs, &p.formation)?;
    if battle.formations[f].reserve != Reserve::InCombat {
        files.push(
            file,
            Diagnostic::error(
                p.formation.span(),
                format!(
                    "Formation `{}` is {} this Exchange: it has no plot",
                    defs[f].name,
                    if battle.formations[f].reserve == Reserve::Entering {
                        "entering combat from the Reserve"
                    } else {
                        "in the Reserve"
                    }
                ),
                "plots only for Formations in the fight",
            )
            .with_help("list it under [reserves] enter to bring it back; it arrives at 60 MU when the Exchange ends"),
        );
        return None;
    }
    if let Some((other, span)) = &plotted_in[f] {
        let at = files.at(file, *other, span);
        files.push(
            file,
            Diagnostic::error(
                p.formation.span(),
                format!("Formation `{}` is already plotted ({at})", defs[f].name),
                "one plot per Formation",
            ),
        );
        return None;
    }
    Some(f)
}

/// Whose plots an orders file holds: the commander it names, else the
/// owner of its first plot.
struct Owner {
    side: Option<usize>,
    /// The file names its commander.
    explicit: bool,
    /// The plot that made the owner, when the file names none.
    first_plot: Option<(FormationId, Range<usize>)>,
}

impl Owner {
    /// Whether Formation `f`, plotted at `name`, is this file's commander's
    /// (the scenario plots every side's); the first plot of a file that
    /// names no commander makes its owner.
    fn owns(&mut self, lk: &Lookup<'_>, files: &mut Files, file: usize, f: FormationId, name: &S<String>) -> bool {
        const SC: usize = 0;
        let (battle, defs) = (lk.battle, lk.defs);
        let Some(side) = defs[f].side.filter(|_| file != SC) else {
            return true;
        };
        let o = match self.side {
            None => {
                self.side = Some(side);
                self.first_plot = Some((f, name.span()));
                return true;
            }
            Some(o) if o == side => return true,
            Some(o) => o,
        };
        let msg = if self.explicit {
            format!(
                "Formation `{}` belongs to `{}`, and this orders file is `{}`'s",
                defs[f].name, battle.sides[side].name, battle.sides[o].name
            )
        } else {
            let (g, span) = self.first_plot.clone().unwrap_or((f, 0..0));
            format!(
                "Formation `{}` belongs to `{}`, but this file also plots `{}` of `{}` ({}): one orders file holds one commander's plots",
                defs[f].name,
                battle.sides[side].name,
                defs[g].name,
                battle.sides[o].name,
                files.at(file, file, &span)
            )
        };
        files.push(
            file,
            Diagnostic::error(name.span(), msg, "a Formation of this commander"),
        );
        false
    }
}

/// The three Volleys of plot `p` of Formation `f` and their notes: each
/// Volley entry checked, one entry standing for all three. `None` when the
/// plot has neither one entry nor three (reported), or an entry is missing.
fn formation_volleys(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    f: FormationId,
    p: &RawPlot,
) -> Option<([VolleyPlot; 3], [Notes; 3])> {
    let n = p.volleys.len();
    if n != 1 && n != 3 {
        files.push(
            file,
            Diagnostic::error(
                p.span.clone(),
                format!("the plot of `{}` has {n} Volleys", lk.defs[f].name),
                "one Volley entry (used for all three Volleys) or three",
            ),
        );
    }
    let mut built = Vec::new();
    for v in p.volleys.iter().flatten() {
        built.push(volley(lk, files, file, f, v));
    }
    if !((n == 1 || n == 3) && built.len() == n) {
        return None;
    }
    let (volleys, notes): (Vec<_>, Vec<_>) = if n == 1 {
        std::iter::repeat_n(built.pop().unwrap_or_default(), 3).unzip()
    } else {
        built.into_iter().unzip()
    };
    match (<[VolleyPlot; 3]>::try_from(volleys), <[Notes; 3]>::try_from(notes)) {
        (Ok(volleys), Ok(notes)) => Some((volleys, notes)),
        _ => None,
    }
}

/// Checks one Volley entry and builds its plot.
fn volley(lk: &Lookup<'_>, files: &mut Files, file: usize, f: FormationId, raw: &S<RawVolley>) -> (VolleyPlot, Notes) {
    let v = raw.get_ref();
    let mut notes = Notes::default();
    let def = &lk.defs[f];
    // A Formation flying on its small craft's thrust has it checked once
    // every plot is read (launches change it Volley by Volley).
    let craft_thrust = lk.craft_thrust(f);
    let thrust = (def.complete && !craft_thrust).then(|| lk.battle.formation_thrust(f));
    let mut out = VolleyPlot::default();
    notes.craft.span = raw.span();

    speed_and_evasion(lk, files, file, f, raw, &mut out, &mut notes);

    maneuvers(lk, files, file, f, v, &mut out);

    shifts(lk, files, file, f, v, thrust, &mut out);

    // Reflex fields raised (they keep their ships from firing).
    let raised = reflex(lk, files, file, f, v, &mut out);

    // Fire.
    let mut work = FireWork::default();
    for entry in v.fire.iter().flatten() {
        fire_entry(lk, files, file, f, entry, &raised, &mut work, &mut out, &mut notes);
    }
    let FireWork {
        mut assigned,
        defaults,
        aimed,
        ..
    } = work;

    // Point defence.
    point_defence(lk, files, file, f, v, &mut assigned, &mut out);

    // Small craft: launches, recoveries, group actions, secondary maneuver.
    volley_craft(lk, files, file, f, v, &mut out, &mut notes);

    // The default "all": every weapon of the Unit not assigned elsewhere.
    default_weapons(lk, files, file, defaults, &mut assigned, &mut out);

    // A ship firing its nova cannon fires nothing else.
    nova_alone(lk, files, file, &out, &assigned);

    // Needle beams and their targets.
    for (order, t, needle) in aimed {
        needles(lk, files, file, &mut out.fire[order], t, needle, &notes.fire[order]);
    }

    // Damage control priorities.
    damage_control_orders(lk, files, file, f, v, &mut out);
    (out, notes)
}
