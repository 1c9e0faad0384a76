//! The pure core: scenario and orders texts plus GZF records → a validated
//! [`Battle`] and plot, or every problem found.
//!
//! Checks run as far as they can: a wrong value is reported and left out,
//! and later checks that would only repeat it (thrust sums of a Formation
//! whose Units did not load, say) are skipped.
//!
//! This file runs the passes in order ([`assemble`]); each concern has a
//! file of its own below it, which reports into `files` (diagnostics per
//! file) and imports nothing from here: `records` (the GZF files, ships
//! and bases by name), `groups` (fighter groups and gunboat squadrons),
//! `formations`, `sides`, `rules` (switches, seed, Exchange number),
//! `units`, `ranges`, `victory`, `reserves`, `volley/` (the plots, a file
//! per kind of Volley entry) and `doctrine` (standing orders).

mod doctrine;
mod files;
mod formations;
mod groups;
mod ranges;
mod records;
mod reserves;
mod rules;
mod sides;
mod units;
mod victory;
mod volley;

use std::collections::BTreeMap;

use super::loaded::{Loaded, Report};
use super::raw::{self, RawScenario};
use crate::diag::{Diagnostic, SourceFile};
use crate::engine::checked::CheckedPlot;
use crate::engine::plot::{ExchangePlot, FormationId};
use crate::engine::state::Battle;
use crate::gzf::ParseOptions;
use crate::orders::keys::unit_key;
use doctrine::{OrdersDoctrine, doctrines};
use files::Files;
use formations::{FormationDef, Listing, Roster, fly_with_carriers, list_formations};
use groups::GroupDef;
use ranges::range_table;
use records::{Records, ShipRef, load_records, name_units};
use reserves::reserves;
use rules::{exchange_of, rules_of, seed_of};
use sides::list_sides;
use units::build_units;
use victory::victory;
use volley::{Lookup, MagazineNames, plot_sources, plots};

pub use formations::{MAX_BATTLE_UNITS, MAX_FORMATION_UNITS};
pub use ranges::DEFAULT_START_RANGE;
pub use records::MAX_RECORD_FILES;

/// Builds the battle and plot. See [`super::build`].
pub(crate) fn build(
    scenario: SourceFile,
    orders: Vec<(SourceFile, Vec<Diagnostic>)>,
    read_gzf: &mut dyn FnMut(&str) -> Result<SourceFile, String>,
    options: &ParseOptions,
) -> Result<Loaded, Vec<Report>> {
    let mut files = Files {
        list: vec![(scenario, Vec::new())],
        records_failed: false,
    };
    files.list.extend(orders);
    let n_orders = files.list.len() - 1;

    let mut diags = Vec::new();
    let mut raw_scenario = raw::scenario(&files.list[0].0.text, &mut diags);
    files.list[0].1.extend(diags);
    let mut raw_orders = Vec::new();
    for i in 1..=n_orders {
        let mut diags = Vec::new();
        let r = raw::orders(&files.list[i].0.text, &mut diags);
        files.list[i].1.extend(diags);
        raw_orders.push(r);
    }

    // Standing orders are checked once the battle is known.
    let scenario_doctrine = raw_scenario
        .as_mut()
        .map(|r| std::mem::take(&mut r.doctrine))
        .unwrap_or_default();
    let orders_doctrine: Vec<OrdersDoctrine> = raw_orders
        .iter_mut()
        .enumerate()
        .filter_map(|(i, r)| {
            r.as_mut()
                .map(|r| (i + 1, r.commander.clone(), std::mem::take(&mut r.doctrine)))
        })
        .collect();
    let scenario_mix = raw_scenario
        .as_mut()
        .map(|r| std::mem::take(&mut r.mix))
        .unwrap_or_default();
    let loaded = raw_scenario
        .map(|raw| assemble(&mut files, raw, raw_orders, read_gzf, options))
        .map(|mut l| {
            doctrines(&mut files, &mut l, scenario_doctrine, orders_doctrine);
            let mut diags = Vec::new();
            l.mixes = super::mix::resolve(scenario_mix, &l.battle, &mut diags);
            for d in diags {
                files.push(0, d);
            }
            l
        });
    let failed = files.has_errors();
    let mut reports: Vec<Report> = files
        .list
        .into_iter()
        .filter(|(_, d)| !d.is_empty())
        .map(|(s, mut d)| {
            d.sort_by_key(|x| (x.span.start, x.span.end));
            (s, d)
        })
        .collect();
    match loaded {
        Some(mut l) if !failed => {
            l.warnings = std::mem::take(&mut reports);
            Ok(l)
        }
        _ => Err(reports),
    }
}

/// The plot as the engine checks it ([`ExchangePlot::check`]), once the
/// checks above found no error (with one, no battle is played, and an
/// empty plot stands in). They accept nothing the engine refuses, so a
/// refusal here is a fault of fam's, reported as an internal error in the
/// scenario, never a panic.
fn engine_checked(files: &mut Files, plot: ExchangePlot, battle: &Battle) -> CheckedPlot {
    if files.has_errors() {
        return CheckedPlot::default();
    }
    plot.check(battle).unwrap_or_else(|e| {
        files.push(
            0,
            Diagnostic::file_error(format!(
                "internal error: the engine refuses a plot the orders check accepted ({e}); please report this"
            )),
        );
        CheckedPlot::default()
    })
}

/// What the records and `[formations]` give the battle: the records, ships
/// by name, the groups, and each Formation's members.
struct Roll {
    records: Records,
    ships: BTreeMap<String, ShipRef>,
    groups: Vec<GroupDef>,
    defs: Vec<FormationDef>,
    by_name: BTreeMap<String, FormationId>,
}

/// Loads the records, copies `{ ship = …, count = N }` blocks, names the
/// ships, bases and groups, and lists the Formations with the groups that
/// fly with their carriers.
fn roll(
    files: &mut Files,
    raw: &mut RawScenario,
    read_gzf: &mut dyn FnMut(&str) -> Result<SourceFile, String>,
    options: &ParseOptions,
) -> Roll {
    const SC: usize = 0;
    let mut records = load_records(files, &raw.gzf, read_gzf, options);
    files.records_failed = records.failed;
    // `{ ship = …, count = N }`: a block for each Unit before anything reads
    // the records.
    let (formations, problems) = super::counts::expand(
        raw.formations.take(),
        &mut records.records,
        &mut records.fields,
        (MAX_FORMATION_UNITS, MAX_BATTLE_UNITS),
        records.failed,
    );
    for d in problems {
        files.push(SC, d);
    }

    let (ships, bases) = name_units(files, &records.records, &records.spans);

    // Fighter groups and gunboat squadrons (docs/fighters.md §7).
    let groups = if records.failed {
        Vec::new()
    } else {
        groups::discover(files, &records.records, &records.files, &records.fields, &ships, &bases)
    };
    let group_by_name: BTreeMap<String, usize> =
        groups.iter().enumerate().map(|(i, g)| (unit_key(&g.name), i)).collect();

    let roster = Roster {
        records: &records.records,
        ships: &ships,
        bases: &bases,
        groups: &groups,
        group_by_name: &group_by_name,
    };
    let mut listing = list_formations(files, &formations, &roster, records.failed);
    fly_with_carriers(files, &records.records, &groups, &mut listing);
    let Listing { defs, by_name, .. } = listing;
    Roll {
        records,
        ships,
        groups,
        defs,
        by_name,
    }
}

/// Runs the passes in order: records and Formations ([`roll`]), sides,
/// rules, Units, ranges, victory, reserves, launch tubes, seed and
/// Exchange, then the plots, checked as the engine checks them.
fn assemble(
    files: &mut Files,
    mut raw: RawScenario,
    raw_orders: Vec<Option<raw::RawOrders>>,
    read_gzf: &mut dyn FnMut(&str) -> Result<SourceFile, String>,
    options: &ParseOptions,
) -> Loaded {
    const SC: usize = 0;
    let Roll {
        records,
        ships,
        groups,
        mut defs,
        by_name,
    } = roll(files, &mut raw, read_gzf, options);

    let sides = list_sides(files, &raw.sides, &mut defs, &by_name);
    let rules = rules_of(&raw.rules);

    let (units, origins, formations) = build_units(files, &records.records, &records.fields, &rules, &defs, &groups);

    let ranges = range_table(files, &raw.start_range, &raw.ranges, &defs, &by_name);

    let mut battle = Battle {
        sides,
        formations,
        units,
        ranges,
        rules,
    };

    let victory = victory(files, &battle, raw.victory.as_ref());
    reserves(files, &mut battle, raw.reserves.as_ref());
    groups::launch_tubes(files, &mut battle, raw.launch_tubes.as_ref());

    let seed = seed_of(files, &raw.seed);

    let exchange = exchange_of(files, &raw.exchange);

    // Plots.
    let sources = plot_sources(files, &battle, raw.plots, raw_orders);
    let lookup = Lookup {
        battle: &battle,
        defs: &defs,
        by_name: &by_name,
        ships: &ships,
    };
    let names = MagazineNames {
        records: &records.records,
        origins: &origins,
    };
    let (plot, plotted_in) = plots(&lookup, &names, files, sources);
    let plot = engine_checked(files, plot, &battle);

    let plot_sources = plotted_in
        .iter()
        .map(|p| p.as_ref().map(|(file, _)| files.list[*file].0.name.clone()))
        .collect();
    Loaded {
        victory,
        scenario: files.list[SC].0.name.clone(),
        title: raw.title.map(|t| t.into_inner()),
        exchange,
        seed,
        battle,
        plot,
        records: records.records,
        origins,
        plot_sources,
        warnings: Vec::new(),
        doctrine: Vec::new(),
        doctrine_sources: Vec::new(),
        mixes: Vec::new(),
    }
}
