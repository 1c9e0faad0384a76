//! `fam resolve`: one Exchange or a battle, its report, log and the next
//! turn's files.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::{BAD_INPUT, Example, LoadArgs, eprint_diagnostics, note, write_files};
use crate::files::Output;

pub(super) const EXAMPLES: &[Example] = &[
    Example {
        what: "The duel's first Exchange, its event log, and the next turn's files in duel-2/:",
        run: &["fam resolve scenarios/duel.toml --log duel.jsonl --out duel-2/"],
    },
    Example {
        what: "The whole battle from seed 4, at most 10 Exchanges, as Markdown:",
        run: &["fam resolve scenarios/duel.toml --seed 4 --exchanges 10 --format markdown"],
    },
];

#[derive(Debug, Args)]
pub struct ResolveArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// An orders file with plots (one per commander); may be repeated.
    #[arg(long = "orders", value_name = "FILE")]
    pub orders: Vec<PathBuf>,
    /// The battle seed (overrides the scenario's `seed`); Exchange k is
    /// played with a seed derived from it and k (Exchange 1: the seed itself).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Play up to this many Exchanges, stopping at a decision ([victory]).
    /// Formations without an explicit plot (and every Formation after the
    /// first Exchange) follow their standing orders or the default doctrine.
    /// At most 1000, as the scenario's `max_exchanges`.
    #[arg(long, default_value_t = 1, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub exchanges: u32,
    /// With --exchanges: every Exchange in full detail, not only a summary.
    #[arg(long)]
    pub detail: bool,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Write the event log (JSON Lines, docs/events.md) to this file.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// Write the updated ship records (GZF) and `state.toml` (ranges and
    /// statuses for the next Exchange) into this directory.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Let the outputs replace files this command read (the scenario, orders
    /// and ship records): advance a turn directory in place. Without it, an
    /// output that names an input is refused.
    #[arg(long, requires = "out")]
    pub in_place: bool,
    #[command(flatten)]
    pub load: LoadArgs,
}

/// Report format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Plain text.
    Text,
    /// Markdown, for forums and mail.
    Markdown,
    /// The result as JSON (docs/result-json.md) instead of the report.
    Json,
}

pub(super) fn resolve(args: &ResolveArgs) -> anyhow::Result<ExitCode> {
    let (mut loaded, seed) = match load(args) {
        Ok(x) => x,
        Err(code) => return Ok(code),
    };
    // A side with `[[mix.SIDE]]` plays the option this seed draws, as the
    // run of `fam batch` with this seed does; the next turn keeps it.
    let first = crate::turn::first_plot(&mut loaded, seed, args.exchanges);
    note_plot_sources(&loaded, &first);
    let header = crate::resolve::first_header(&loaded, seed);
    let how = crate::turn::How {
        exchanges: args.exchanges,
        style: match args.format {
            Format::Text | Format::Json => crate::report::Style::Text,
            Format::Markdown => crate::report::Style::Markdown,
        },
        detail: args.detail,
        json: args.format == Format::Json,
    };
    let resolved = crate::turn::play(&loaded, seed, &header, &first, how);
    // Everything is computed before anything is written.
    let mut outputs: Vec<Output> = Vec::new();
    if let Some(log) = &args.log {
        outputs.push(Output::new(log, resolved.log.clone()));
    }
    if let Some(dir) = &args.out {
        loaded.write_back(&resolved.battle);
        match crate::turn::next_files(&loaded, &resolved, &header, seed) {
            Ok(files) => outputs.extend(files.into_iter().map(|f| Output::new(dir.join(f.name), f.bytes))),
            Err(clash) => {
                eprintln!("error: {clash} in {}", dir.display());
                return Ok(ExitCode::from(BAD_INPUT));
            }
        }
    }
    // Every file read is an input: the scenario, the orders and each ship
    // record it loaded (unless the user asked to advance in place).
    let inputs: Vec<PathBuf> = if args.in_place {
        Vec::new()
    } else {
        std::iter::once(args.scenario.clone())
            .chain(args.orders.iter().cloned())
            .chain(loaded.records.iter().map(|r| PathBuf::from(&r.name)))
            .collect()
    };
    if let Some(code) = write_files(&outputs, &inputs, Some("to advance the turn over its own files"))? {
        return Ok(code);
    }
    io::stdout().lock().write_all(resolved.report.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// The scenario with its orders and ship records, and the battle seed; the
/// diagnostics on stderr and the exit code when it cannot be played.
fn load(args: &ResolveArgs) -> Result<(crate::orders::Loaded, u64), ExitCode> {
    let loaded = match crate::orders::load_scenario(&args.scenario, &args.orders, &args.load.options()) {
        Ok(l) => l,
        Err(reports) => {
            for (source, diags) in &reports {
                eprint_diagnostics(source, diags);
            }
            return Err(ExitCode::from(BAD_INPUT));
        }
    };
    for (source, diags) in &loaded.warnings {
        eprint_diagnostics(source, diags);
    }
    let Some(seed) = args.seed.or(loaded.seed) else {
        eprintln!(
            "error: {}: no seed: write `seed = N` in the scenario or pass --seed N (results are reproducible only from a seed)",
            loaded.scenario
        );
        return Err(ExitCode::from(BAD_INPUT));
    };
    Ok((loaded, seed))
}

/// A note on stderr for each Formation whose first plot fam chose for it.
fn note_plot_sources(loaded: &crate::orders::Loaded, first: &crate::resolve::Plotted) {
    use crate::engine::doctrine::PlotSource;
    for (f, source) in first.sources.iter().enumerate() {
        let what = match source {
            PlotSource::Explicit => continue,
            PlotSource::StandingOrders => "it follows its standing orders",
            PlotSource::DefaultDoctrine => "it follows the default doctrine (docs/doctrine.md)",
            PlotSource::NoPlot if loaded.battle.formation_active(f) => {
                "it puts its thrust into Speed, maintains and does not fire"
            }
            PlotSource::NoPlot => continue,
        };
        note(format_args!(
            "note: Formation `{}` has no plot: {what}",
            loaded.battle.formations[f].name
        ));
    }
}
