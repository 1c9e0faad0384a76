//! `fam resolve`: one Exchange or a battle, its report, log and the next
//! turn's files.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use std::path::Path;

use super::{BAD_INPUT, Example, LoadArgs, eprint_diagnostics, note, write_files};
use crate::files::Output;
use crate::gzf;

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
    loaded.doctrine = loaded.drawn_doctrine(seed);
    loaded.mixes.clear();
    // Explicit plots first; then standing orders; then, in a battle of
    // several Exchanges, the default doctrine (a single Exchange leaves a
    // Formation with neither unplotted: readings E3).
    // The one rule `fam batch` plays too (`resolve::battle_plot`).
    let first = crate::resolve::battle_plot(&loaded, &loaded.battle, 0, args.exchanges);
    note_plot_sources(&loaded, &first);
    let header = crate::resolve::first_header(&loaded, seed);
    let resolved = play(args, &loaded, seed, &header, &first);
    // Everything is computed before anything is written.
    let mut outputs: Vec<Output> = Vec::new();
    if let Some(log) = &args.log {
        outputs.push(Output::new(log, resolved.log.clone()));
    }
    if let Some(dir) = &args.out {
        loaded.write_back(&resolved.battle);
        match next_turn(dir, &loaded, &resolved, &header, seed) {
            Ok(turn) => outputs.extend(turn),
            Err(code) => return Ok(code),
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

/// Plays the Exchange or the battle: one path for every run, a battle of
/// one Exchange being a single resolve.
fn play(
    args: &ResolveArgs,
    loaded: &crate::orders::Loaded,
    seed: u64,
    header: &crate::report::Header,
    first: &crate::resolve::Plotted,
) -> crate::resolve::Resolved {
    let style = match args.format {
        Format::Text | Format::Json => crate::report::Style::Text,
        Format::Markdown => crate::report::Style::Markdown,
    };
    if args.exchanges > 1 || args.format == Format::Json {
        let b = crate::resolve::resolve_battle(
            header,
            seed,
            &loaded.battle,
            first,
            &loaded.victory,
            args.exchanges,
            style,
            args.detail,
            &|b| crate::resolve::battle_plot(loaded, b, 1, args.exchanges),
        );
        crate::resolve::Resolved {
            report: if args.format == Format::Json { b.json } else { b.report },
            log: b.log,
            battle: b.battle,
            state: b.state,
        }
    } else {
        let mut r = crate::resolve::resolve(header, &loaded.battle, &first.plot, style);
        if first.sources.iter().any(|s| s.generated()) {
            let account = crate::report::plot_account(&loaded.battle, &first.sources, &first.choices);
            r.report = crate::resolve::with_plot_sources(&r.report, &account);
        }
        r
    }
}

/// The next turn's files in `dir`: the updated ship records, `state.toml`,
/// the next Exchange's scenario and one orders template per commander. A
/// name two files would share is refused (the exit code, after its error).
fn next_turn(
    dir: &Path,
    loaded: &crate::orders::Loaded,
    resolved: &crate::resolve::Resolved,
    header: &crate::report::Header,
    seed: u64,
) -> Result<Vec<Output>, ExitCode> {
    let mut outputs = Vec::new();
    let mut names = std::collections::BTreeSet::new();
    for record in &loaded.records {
        let name = Path::new(&record.path).file_name().unwrap_or_default().to_os_string();
        if !names.insert(name.clone()) || name == "state.toml" {
            eprintln!(
                "error: two records would be written to {} in {}",
                name.to_string_lossy(),
                dir.display()
            );
            return Err(ExitCode::from(BAD_INPUT));
        }
        outputs.push(Output::new(dir.join(name), gzf::write(&record.file)));
    }
    outputs.push(Output::new(dir.join("state.toml"), resolved.state.clone()));
    outputs.push(Output::new(
        dir.join("scenario.toml"),
        next_scenario(loaded, resolved, header, seed),
    ));
    // The template: what the automated commander would play next, so
    // that orders sent back unedited play just that.
    let (template, sources) = crate::orders::write::template(&resolved.battle, &loaded.doctrine);
    for (s, side) in resolved.battle.sides.iter().enumerate() {
        let mine: Vec<usize> = (0..resolved.battle.formations.len())
            .filter(|f| resolved.battle.formations[*f].side == s)
            .collect();
        let name = format!("orders-{}.toml", file_slug(&side.name));
        if !names.insert(name.clone().into()) {
            eprintln!("error: two commanders' orders would be written to {name}");
            return Err(ExitCode::from(BAD_INPUT));
        }
        let mut text = crate::orders::write::template_toml(
            &resolved.battle,
            &template,
            &sources,
            &mine,
            &side.name,
            "scenario.toml",
        );
        let own = standing(loaded, resolved, &|f, from| {
            resolved.battle.formations[f].side == s && from.is_some_and(|x| x != loaded.scenario)
        });
        if !own.is_empty() {
            text.push_str("\n# Standing orders: a Formation without a plot above follows them.\n");
            text.push_str(&own);
        }
        outputs.push(Output::new(dir.join(name), text));
    }
    Ok(outputs)
}

/// The play-by-mail cycle's next scenario: the next Exchange, the same
/// ship files and victory conditions, and the scenario's standing orders.
fn next_scenario(
    loaded: &crate::orders::Loaded,
    resolved: &crate::resolve::Resolved,
    header: &crate::report::Header,
    seed: u64,
) -> String {
    let gzf_names: Vec<String> = loaded
        .records
        .iter()
        .map(|r| {
            Path::new(&r.path)
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let next = crate::orders::write::NextScenario {
        title: &header.title,
        exchange: header.exchange + resolved_exchanges(resolved, header),
        seed,
        gzf: &gzf_names,
        victory: &loaded.victory,
    };
    let mut text = crate::orders::write::scenario_toml(&resolved.battle, &next);
    text.push_str(&standing(loaded, resolved, &|_, from| {
        from == Some(loaded.scenario.as_str())
    }));
    text
}

/// Standing orders carry over to the next Exchange where they were given:
/// the scenario's in the next scenario, a commander's in that commander's
/// orders file (they stay as secret as the plots). `keep` picks them by
/// Formation and the file that gave them.
fn standing(
    loaded: &crate::orders::Loaded,
    resolved: &crate::resolve::Resolved,
    keep: &dyn Fn(usize, Option<&str>) -> bool,
) -> String {
    let only: Vec<_> = (0..loaded.doctrine.len())
        .map(|f| {
            let from = loaded.doctrine_sources.get(f).and_then(Option::as_deref);
            loaded.doctrine[f].clone().filter(|_| keep(f, from))
        })
        .collect();
    crate::orders::doctrine::doctrine_toml(&resolved.battle, &only)
}

/// The Exchanges a resolve played (1 for a single Exchange).
fn resolved_exchanges(resolved: &crate::resolve::Resolved, header: &crate::report::Header) -> u32 {
    // The state file names the last Exchange played.
    resolved
        .state
        .lines()
        .find_map(|l| l.strip_prefix("exchange = ").and_then(|n| n.parse::<u32>().ok()))
        .map_or(1, |last| last + 1 - header.exchange)
}

/// A commander's name as part of a file name.
pub(super) fn file_slug(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() { "side".to_string() } else { s }
}
