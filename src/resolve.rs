//! One Exchange from loaded input to everything a moderator posts: the
//! report, the event log, the updated ship records and the state the next
//! Exchange starts from. Pure: the CLI does the file I/O.

use crate::engine::checked::CheckedPlot;
use crate::engine::dice::Dice;
use crate::engine::doctrine::{Choice, PlotSource, PlotWork};
use crate::engine::event::Recorder;
use crate::engine::state::{Battle, Control, Rearm, Unit};
use crate::engine::volley::{Scratch, run_exchange};
use crate::orders::toml_out::{TomlOut, quote};
use crate::report::{self, Header, Style};

/// What one resolved Exchange produced.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub report: String,
    pub log: String,
    /// The battle after the Exchange.
    pub battle: Battle,
    /// Ranges and statuses as TOML, for the next Exchange's scenario.
    pub state: String,
}

/// Plays one Exchange with every die recorded and renders its outputs.
pub fn resolve(header: &Header, battle: &Battle, plot: &CheckedPlot, style: Style) -> Resolved {
    let mut after = battle.clone();
    let mut rec = Recorder::default();
    let mut dice = Dice::new(header.seed);
    run_exchange(&mut after, plot, &mut dice, &mut rec, &mut Scratch::default());
    Resolved {
        report: report::render(header, battle, &after, &rec, style),
        log: crate::log::render(header, battle, &rec),
        state: state_toml(header, &after),
        battle: after,
    }
}

/// The ranges and Unit statuses after an Exchange, as TOML: the `[[range]]`
/// tables have the scenario's own form, so they can be pasted into (or
/// loaded with) the next Exchange's scenario.
pub fn state_toml(header: &Header, battle: &Battle) -> String {
    let mut out = TomlOut::new();
    out.comment(&format!(
        "State after Exchange {} of {}.",
        header.exchange,
        quote(&header.title)
    ));
    out.comment("The [[range]] tables start the next Exchange; the [[unit]] tables are for reading.");
    out.pair("exchange", header.exchange);
    out.pair("seed", header.seed);
    out.ranges(battle);
    for u in &battle.units {
        out.blank();
        unit_toml(&mut out, battle, u);
    }
    out.finish()
}

/// One Unit's `[[unit]]` table of [`state_toml`].
fn unit_toml(out: &mut TomlOut, battle: &Battle, u: &Unit) {
    out.array_table("unit");
    out.pair("name", quote(&u.name));
    out.pair("formation", quote(&battle.formations[u.formation].name));
    out.pair("status", quote(unit_status(u)));
    out.pair("hull", quote(&format!("{}/{}", u.hull_left(), u.hull_total)));
    out.pair("armour", quote(&u.armour_text()));
    out.pair("thrust", u.thrust);
    out.pair("out_of_control", u.control != Control::InControl);
    if let Some(c) = &u.craft {
        let rearm = match c.rearm {
            Rearm::Ready => "ready".to_string(),
            Rearm::In(n) => format!("in {n} Volleys"),
            Rearm::Never => "never".to_string(),
        };
        out.pair("craft", quote(&format!("{}/{}", c.craft, c.boxes)));
        out.pair("cef", quote(&format!("{}/{}", c.cef, c.cef_max)));
        out.pair("place", quote(if c.docked { "docked" } else { "launched" }));
        out.pair("rearm", quote(&rearm));
    }
}

/// The header of the first Exchange `loaded` plays from the battle seed
/// `seed`: the scenario's title (else its name) and that Exchange's seed.
pub fn first_header(loaded: &crate::orders::Loaded, seed: u64) -> Header {
    Header {
        title: loaded.title.clone().unwrap_or_else(|| loaded.scenario.clone()),
        seed: crate::engine::victory::exchange_seed(seed, loaded.exchange),
        exchange: loaded.exchange,
    }
}

/// What a multi-Exchange run produced.
#[derive(Debug, Clone)]
pub struct ResolvedBattle {
    pub report: String,
    /// One header line per Exchange, each followed by its entries.
    pub log: String,
    pub battle: Battle,
    pub state: String,
    /// The decision, if one was reached.
    pub outcome: Option<crate::engine::victory::Outcome>,
    /// Exchanges played.
    pub exchanges: u32,
    /// The whole result as JSON (docs/result-json.md).
    pub json: String,
    /// Why play stopped before a decision and before `count` Exchanges,
    /// when [`Bounds`] stopped it.
    pub cut: Option<Cut>,
}

/// What may stop a battle early besides its decision and its count: the
/// server's replay (`fam serve`) bounds its report and its time.
pub struct Bounds<'a> {
    /// Play no further Exchange once the report is this long.
    pub report_bytes: usize,
    /// Asked after each Exchange: stop now.
    pub stop: &'a dyn Fn() -> bool,
}

impl Bounds<'_> {
    /// No bound: play to the decision or the count.
    pub const NONE: Bounds<'static> = Bounds {
        report_bytes: usize::MAX,
        stop: &|| false,
    };
}

/// Which bound stopped a battle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// The report reached [`Bounds::report_bytes`].
    Size,
    /// [`Bounds::stop`] said so.
    Stopped,
}

/// An Exchange's plot and, per Formation, where its plot came from and
/// what a generated plot chose (for the report).
#[derive(Debug, Clone, Default)]
pub struct Plotted {
    pub plot: CheckedPlot,
    pub sources: Vec<PlotSource>,
    pub choices: Vec<Option<Choice>>,
}

/// The plots of Exchange `i` (0-based: the `i + 1`-th Exchange played) of a
/// battle of at most `count` Exchanges from `loaded`, given the state
/// `battle` at its start: the one rule `fam resolve` and `fam batch` both
/// play, so that a batch run replays exactly with `fam resolve --seed`.
///
/// * The first Exchange: each Formation's explicit plot (scenario or orders
///   file), else its standing orders (`[doctrine.F]`), else, in a battle of
///   several Exchanges (`count > 1`), the default doctrine; a single
///   Exchange leaves a Formation with neither unplotted (readings E3).
/// * Every later Exchange: standing orders, else the default doctrine, for
///   every Formation. The play-by-mail orders template
///   (`orders::write::template`) is this plot, so orders sent back unedited
///   play what a battle of several Exchanges would.
///
/// Pure: no dice. [`battle_plot_into`] is the same rule writing into reused
/// memory, for the batch hot path.
pub fn battle_plot(loaded: &crate::orders::Loaded, battle: &Battle, i: u32, count: u32) -> Plotted {
    let mut plot = CheckedPlot::default();
    let mut sources = Vec::new();
    let mut work = PlotWork::with_memo(crate::engine::doctrine::plan::PlanMemo::one_plot());
    battle_plot_into(loaded, battle, i, count, &mut plot, &mut sources, &mut work);
    Plotted {
        plot,
        sources,
        choices: work.choices().to_vec(),
    }
}

/// [`battle_plot`] into `plot` and `sources`, reusing their memory and
/// `work`'s; once warm it allocates nothing for Exchanges after the first.
pub fn battle_plot_into(
    loaded: &crate::orders::Loaded,
    battle: &Battle,
    i: u32,
    count: u32,
    plot: &mut CheckedPlot,
    sources: &mut Vec<PlotSource>,
    work: &mut PlotWork,
) {
    battle_plot_into_with(loaded, &loaded.doctrine, battle, i, count, plot, sources, work);
}

/// [`battle_plot_into`] with the standing orders `doctrine` (by Formation)
/// instead of the scenario's: a battle of a scenario with mixes plays the
/// orders its seed draws ([`crate::orders::Loaded::drawn_doctrine`]).
#[allow(clippy::too_many_arguments)]
pub fn battle_plot_into_with(
    loaded: &crate::orders::Loaded,
    doctrine: &[Option<crate::engine::doctrine::Doctrine>],
    battle: &Battle,
    i: u32,
    count: u32,
    plot: &mut CheckedPlot,
    sources: &mut Vec<PlotSource>,
    work: &mut PlotWork,
) {
    use crate::engine::doctrine::standing_plot_into;
    if i == 0 {
        standing_plot_into(
            battle,
            &loaded.victory,
            &loaded.plot,
            doctrine,
            count > 1,
            plot,
            sources,
            work,
        );
    } else {
        let none = CheckedPlot::default();
        standing_plot_into(battle, &loaded.victory, &none, doctrine, true, plot, sources, work);
    }
}

/// Plays up to `count` Exchanges from `battle` (whose next Exchange is
/// `header.exchange`, seeded from the battle seed `base_seed`), stopping at
/// a decision. The first Exchange uses `first` (its plots, where they came
/// from and what generated ones chose); each later one `later(state)` (the
/// CLI passes
/// [`battle_plot`]: standing orders and the default doctrine). The report
/// gives each Exchange in full when `detail`, otherwise a summary, each
/// saying where the plots came from, then the result.
#[allow(clippy::too_many_arguments)]
pub fn resolve_battle(
    header: &Header,
    base_seed: u64,
    battle: &Battle,
    first: &Plotted,
    victory: &crate::engine::victory::Victory,
    count: u32,
    style: Style,
    detail: bool,
    later: &dyn Fn(&Battle) -> Plotted,
) -> ResolvedBattle {
    resolve_battle_within(
        header,
        base_seed,
        battle,
        first,
        victory,
        count,
        style,
        detail,
        later,
        &Bounds::NONE,
    )
}

/// [`resolve_battle`], stopping after the Exchange at which `bounds` say
/// so (each Exchange is played whole; `cut` says which bound stopped it).
#[allow(clippy::too_many_arguments)]
pub fn resolve_battle_within(
    header: &Header,
    base_seed: u64,
    battle: &Battle,
    first: &Plotted,
    victory: &crate::engine::victory::Victory,
    count: u32,
    style: Style,
    detail: bool,
    later: &dyn Fn(&Battle) -> Plotted,
    bounds: &Bounds<'_>,
) -> ResolvedBattle {
    use crate::engine::victory::{decide, exchange_seed, side_masses};
    let start_mass = side_masses(battle);
    let mut current = battle.clone();
    let mut report_text = report::battle_title(&header.title, header.exchange, base_seed, battle, style);
    report_text.push('\n');
    let mut log = String::new();
    let mut outcome = None;
    let mut played = 0;
    let mut scratch = Scratch::default();
    let mut plotted = first.clone();
    let mut exchanges_json = Vec::new();
    let mut cut = None;
    for i in 0..count.max(1) {
        let k = header.exchange + i;
        if i > 0 {
            plotted = later(&current);
        }
        let Plotted { plot, sources, choices } = &plotted;
        let h = Header {
            title: header.title.clone(),
            seed: exchange_seed(base_seed, k),
            exchange: k,
        };
        let before = current.clone();
        let mut rec = Recorder::default();
        let mut dice = Dice::new(h.seed);
        run_exchange(&mut current, plot, &mut dice, &mut rec, &mut scratch);
        played += 1;
        if detail {
            let full = report::render(&h, &before, &current, &rec, style);
            let account = report::plot_account(&before, sources, choices);
            report_text.push_str(&with_plot_sources(&full, &account));
            report_text.push('\n');
        } else {
            report_text.push_str(&report::summary(&h, &before, &current, sources, choices, style));
            report_text.push('\n');
        }
        log.push_str(&crate::log::render(&h, &before, &rec));
        exchanges_json.push(exchange_json(&h, &before, &current, sources));
        outcome = decide(&current, &start_mass, victory, k);
        if outcome.is_some() {
            break;
        }
        if i + 1 < count {
            cut = if report_text.len() >= bounds.report_bytes {
                Some(Cut::Size)
            } else if (bounds.stop)() {
                Some(Cut::Stopped)
            } else {
                None
            };
            if cut.is_some() {
                break;
            }
        }
    }
    let last = Header {
        title: header.title.clone(),
        seed: exchange_seed(base_seed, header.exchange + played - 1),
        exchange: header.exchange + played - 1,
    };
    report_text.push_str(&report::result(battle, &current, outcome.as_ref(), style));
    let report_text = report_text.replace("\n\n\n", "\n\n");
    let json = result_json(
        &header.title,
        base_seed,
        battle,
        &current,
        outcome.as_ref(),
        exchanges_json,
    );
    ResolvedBattle {
        json,
        report: report_text,
        log,
        state: state_toml(&last, &current),
        battle: current,
        outcome,
        exchanges: played,
        cut,
    }
}

/// An Exchange's full report with the lines saying where its plots came
/// from (and what generated plots chose), under the `Seed N` line of its
/// title.
pub fn with_plot_sources(report: &str, line: &str) -> String {
    if line.is_empty() {
        return report.to_string();
    }
    let at = report
        .find("\nSeed ")
        .and_then(|i| report[i + 1..].find('\n').map(|j| i + 1 + j + 1));
    match at {
        Some(at) => format!("{}{line}\n{}", &report[..at], &report[at..]),
        None => format!("{line}\n{report}"),
    }
}

/// Version of the result JSON (docs/result-json.md).
pub const RESULT_SCHEMA_VERSION: u32 = 1;

fn exchange_json(h: &Header, before: &Battle, after: &Battle, sources: &[PlotSource]) -> serde_json::Value {
    use serde_json::json;
    let n = after.formations.len();
    let mut ranges = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            ranges.push(json!({"a": a, "b": b, "mu": after.ranges.get(a, b)}));
        }
    }
    let lost: Vec<usize> = (0..after.units.len())
        .filter(|u| !before.units[*u].lost() && after.units[*u].lost())
        .collect();
    json!({
        "exchange": h.exchange,
        "seed": h.seed,
        "generated_plots": sources.iter().any(|s| s.generated()),
        "plots": (0..after.formations.len())
            .map(|f| sources.get(f).copied().unwrap_or(PlotSource::NoPlot).key())
            .collect::<Vec<_>>(),
        "units_lost": lost,
        "ranges": ranges,
    })
}

/// A Unit's status in one word, as the reports and `state.toml` name it.
pub fn unit_status(u: &Unit) -> &'static str {
    if u.destroyed {
        "destroyed"
    } else if u.derelict {
        "derelict"
    } else if u.surrendered {
        "surrendered"
    } else if u.crippled() {
        "crippled"
    } else if u.hull_lost > 0 {
        "damaged"
    } else {
        "intact"
    }
}

/// The whole result of a battle (or one Exchange) as JSON.
pub fn result_json(
    title: &str,
    base_seed: u64,
    start: &Battle,
    end: &Battle,
    outcome: Option<&crate::engine::victory::Outcome>,
    exchanges: Vec<serde_json::Value>,
) -> String {
    use crate::engine::victory::{Outcome, Reason};
    use serde_json::json;
    let reason = |r: &Reason| match r {
        Reason::Annihilation => json!({"condition": "annihilation"}),
        Reason::UnitDestroyed(u) => json!({"condition": "unit_destroyed", "unit": u}),
        Reason::UnitEscaped(u) => json!({"condition": "unit_escaped", "unit": u}),
        Reason::Morale => json!({"condition": "morale"}),
        Reason::PointsDestroyed => json!({"condition": "points_destroyed"}),
        Reason::ExchangeLimit => json!({"condition": "exchange_limit"}),
    };
    let outcome = match outcome {
        None => serde_json::Value::Null,
        Some(Outcome::Winner { side, reason: r }) => json!({"winner": side, "reason": reason(r)}),
        Some(Outcome::Draw { reason: r }) => json!({"winner": null, "reason": reason(r)}),
    };
    let units: Vec<_> = end
        .units
        .iter()
        .enumerate()
        .map(|(i, u)| {
            let mut j = json!({
                "id": i,
                "name": u.name,
                "side": u.side,
                "formation": u.formation,
                "status": unit_status(u),
                "hull": [u.hull_left(), u.hull_total],
                "armour": [u.armour_left(), u.armour_total],
                "thrust": [u.thrust, u.original_thrust],
                "mass": u.mass,
                "points": u.points,
            });
            if !u.armour_layers.is_empty() {
                // Layered armour: [left, total] per layer, outermost first.
                let layers: Vec<[u32; 2]> = u.armour_layers.iter().map(|l| [l.left(), l.total]).collect();
                j["armour_layers"] = json!(layers);
            }
            j
        })
        .collect();
    let sides: Vec<_> = end
        .sides
        .iter()
        .enumerate()
        .map(|(s, side)| {
            let mut lost_mass = 0;
            let mut lost_points = 0;
            let mut mass = 0;
            for (a, b) in start.units.iter().zip(&end.units) {
                if b.side == s {
                    mass += a.mass;
                    if !a.lost() && b.lost() {
                        lost_mass += b.mass;
                        lost_points += b.points;
                    }
                }
            }
            json!({"id": s, "name": side.name, "mass": mass, "mass_lost": lost_mass, "points_lost": lost_points})
        })
        .collect();
    let formations: Vec<_> = end
        .formations
        .iter()
        .enumerate()
        .map(|(i, f)| json!({"id": i, "name": f.name, "side": f.side, "units": f.units}))
        .collect();
    let v = json!({
        "schema": "fam-result",
        "version": RESULT_SCHEMA_VERSION,
        "title": title,
        "battle_seed": base_seed,
        "outcome": outcome,
        "exchanges": exchanges,
        "sides": sides,
        "formations": formations,
        "units": units,
    });
    let mut out = serde_json::to_string_pretty(&v).unwrap_or_default();
    out.push('\n');
    out
}
