//! One turn of the play-by-mail cycle: a loaded scenario with its
//! commanders' orders in; the report, the event log and the next turn's
//! files out. `fam resolve` and the game host (`fam serve --db`) both play
//! turns through here, so a hosted game's Exchange has, byte for byte, what
//! `fam resolve` prints and writes for the same files and seed. Pure: the
//! callers read and write the files.

use std::collections::BTreeSet;
use std::path::Path;

use crate::gzf;
use crate::orders::Loaded;
use crate::report::{Header, Style};
use crate::resolve::{Plotted, Resolved};

/// How much of the battle to play and how to write it.
#[derive(Debug, Clone, Copy)]
pub struct How {
    /// Exchanges to play at most (1: a single Exchange).
    pub exchanges: u32,
    pub style: Style,
    /// Every Exchange of several in full detail.
    pub detail: bool,
    /// The result as JSON (docs/result-json.md) instead of the report.
    pub json: bool,
}

impl How {
    /// One Exchange, reported as text: the play-by-mail turn.
    pub const ONE_EXCHANGE: How = How {
        exchanges: 1,
        style: Style::Text,
        detail: false,
        json: false,
    };
}

/// The battle seed's choice among a side's mixed standing orders, made for
/// good (the next turn keeps it), and the first Exchange's plots: explicit
/// plots first, then standing orders, then, in a battle of several
/// Exchanges, the default doctrine (readings E3); the one rule `fam batch`
/// plays too (`resolve::battle_plot`).
pub fn first_plot(loaded: &mut Loaded, seed: u64, exchanges: u32) -> Plotted {
    loaded.doctrine = loaded.drawn_doctrine(seed);
    loaded.mixes.clear();
    crate::resolve::battle_plot(loaded, &loaded.battle, 0, exchanges)
}

/// Plays the Exchange or the battle: one path for every run, a battle of
/// one Exchange being a single resolve.
pub fn play(loaded: &Loaded, seed: u64, header: &Header, first: &Plotted, how: How) -> Resolved {
    if how.exchanges > 1 || how.json {
        let b = crate::resolve::resolve_battle(
            header,
            seed,
            &loaded.battle,
            first,
            &loaded.victory,
            how.exchanges,
            how.style,
            how.detail,
            &|b| crate::resolve::battle_plot(loaded, b, 1, how.exchanges),
        );
        Resolved {
            report: if how.json { b.json } else { b.report },
            log: b.log,
            battle: b.battle,
            state: b.state,
        }
    } else {
        let mut r = crate::resolve::resolve(header, &loaded.battle, &first.plot, how.style);
        if first.sources.iter().any(|s| s.generated()) {
            let account = crate::report::plot_account(&loaded.battle, &first.sources, &first.choices);
            r.report = crate::resolve::with_plot_sources(&r.report, &account);
        }
        r
    }
}

/// One file of the next turn's directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnFile {
    /// The file's name in the directory (no folders).
    pub name: String,
    pub bytes: String,
    /// The side whose commander alone may read it (an orders template,
    /// which carries that commander's secret standing orders).
    pub side: Option<usize>,
}

/// Two files of the next turn would share a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameClash(pub String);

impl std::fmt::Display for NameClash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NameClash {}

/// The next turn's files: the updated ship records, `state.toml`, the next
/// Exchange's scenario and one orders template per commander. `loaded` has
/// had the battle written back into its records.
pub fn next_files(
    loaded: &Loaded,
    resolved: &Resolved,
    header: &Header,
    seed: u64,
) -> Result<Vec<TurnFile>, NameClash> {
    let mut files = Vec::new();
    let mut names = BTreeSet::new();
    push_records(&mut files, &mut names, loaded)?;
    files.push(TurnFile {
        name: "state.toml".to_string(),
        bytes: resolved.state.clone(),
        side: None,
    });
    files.push(TurnFile {
        name: "scenario.toml".to_string(),
        bytes: next_scenario(loaded, resolved, header, seed),
        side: None,
    });
    push_templates(&mut files, &mut names, loaded, &resolved.battle)?;
    Ok(files)
}

/// The written-back ship records, each under its own file name, which no
/// other file of the turn may take.
fn push_records(files: &mut Vec<TurnFile>, names: &mut BTreeSet<String>, loaded: &Loaded) -> Result<(), NameClash> {
    for record in &loaded.records {
        let name = record_name(&record.path);
        if !names.insert(name.clone()) || name == "state.toml" || name == "scenario.toml" {
            return Err(NameClash(format!("two records would be written to {name}")));
        }
        files.push(TurnFile {
            name,
            bytes: gzf::write(&record.file),
            side: None,
        });
    }
    Ok(())
}

/// Each side's orders template for `battle`, as `orders-SIDE.toml`.
fn push_templates(
    files: &mut Vec<TurnFile>,
    names: &mut BTreeSet<String>,
    loaded: &Loaded,
    battle: &crate::engine::state::Battle,
) -> Result<(), NameClash> {
    for (s, text) in orders_templates(loaded, battle).into_iter().enumerate() {
        let name = orders_name(&battle.sides[s].name);
        if !names.insert(name.clone()) {
            return Err(NameClash(format!("two commanders' orders would be written to {name}")));
        }
        files.push(TurnFile {
            name,
            bytes: text,
            side: Some(s),
        });
    }
    Ok(())
}

/// A record's file name in a turn directory: its own, without folders.
pub fn record_name(path: &str) -> String {
    Path::new(path)
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// The orders file of the commander of side `name` in a turn directory.
pub fn orders_name(side: &str) -> String {
    format!("orders-{}.toml", file_slug(side))
}

/// Each side's orders template for `battle`: what the automated commander
/// would play next, so that orders sent back unedited play just that, and
/// the commander's own standing orders.
pub fn orders_templates(loaded: &Loaded, battle: &crate::engine::state::Battle) -> Vec<String> {
    let (template, sources) = crate::orders::write::template(battle, &loaded.doctrine);
    (0..battle.sides.len())
        .map(|s| {
            let mine: Vec<usize> = (0..battle.formations.len())
                .filter(|f| battle.formations[*f].side == s)
                .collect();
            let mut text = crate::orders::write::template_toml(
                battle,
                &template,
                &sources,
                &mine,
                &battle.sides[s].name,
                "scenario.toml",
            );
            let own = standing(loaded, battle, &|f, from| {
                battle.formations[f].side == s && from.is_some_and(|x| x != loaded.scenario)
            });
            if !own.is_empty() {
                text.push_str("\n# Standing orders: a Formation without a plot above follows them.\n");
                text.push_str(&own);
            }
            text
        })
        .collect()
}

/// The play-by-mail cycle's next scenario: the next Exchange, the same
/// ship files and victory conditions, and the scenario's standing orders.
fn next_scenario(loaded: &Loaded, resolved: &Resolved, header: &Header, seed: u64) -> String {
    let gzf_names: Vec<String> = loaded.records.iter().map(|r| record_name(&r.path)).collect();
    let next = crate::orders::write::NextScenario {
        title: &header.title,
        exchange: header.exchange + resolved_exchanges(resolved, header),
        seed,
        gzf: &gzf_names,
        victory: &loaded.victory,
    };
    scenario_with_standing(loaded, &resolved.battle, &next)
}

/// A turn's `scenario.toml`: the battle as it stands and the scenario's
/// own standing orders.
fn scenario_with_standing(
    loaded: &Loaded,
    battle: &crate::engine::state::Battle,
    next: &crate::orders::write::NextScenario<'_>,
) -> String {
    let mut text = crate::orders::write::scenario_toml(battle, next);
    text.push_str(&standing(loaded, battle, &|_, from| {
        from == Some(loaded.scenario.as_str())
    }));
    text
}

/// The first turn directory of a hosted game: `loaded` as fam writes it
/// back (its records, a scenario of the same battle, with `seed` and no
/// plots, and each side's orders template). The seed's choice among mixed
/// standing orders is made for good, as [`first_plot`] makes it.
pub fn opening_files(loaded: &mut Loaded, seed: u64) -> Result<Vec<TurnFile>, NameClash> {
    loaded.doctrine = loaded.drawn_doctrine(seed);
    loaded.mixes.clear();
    let mut files = Vec::new();
    let mut names = BTreeSet::new();
    push_records(&mut files, &mut names, loaded)?;
    let gzf_names: Vec<String> = loaded.records.iter().map(|r| record_name(&r.path)).collect();
    let title = loaded.title.clone().unwrap_or_else(|| loaded.scenario.clone());
    let next = crate::orders::write::NextScenario {
        title: &title,
        exchange: loaded.exchange,
        seed,
        gzf: &gzf_names,
        victory: &loaded.victory,
    };
    files.push(TurnFile {
        name: "scenario.toml".to_string(),
        bytes: scenario_with_standing(loaded, &loaded.battle, &next),
        side: None,
    });
    push_templates(&mut files, &mut names, loaded, &loaded.battle)?;
    Ok(files)
}

/// Standing orders carry over to the next Exchange where they were given:
/// the scenario's in the next scenario, a commander's in that commander's
/// orders file (they stay as secret as the plots). `keep` picks them by
/// Formation and the file that gave them.
fn standing(
    loaded: &Loaded,
    battle: &crate::engine::state::Battle,
    keep: &dyn Fn(usize, Option<&str>) -> bool,
) -> String {
    let only: Vec<_> = (0..loaded.doctrine.len())
        .map(|f| {
            let from = loaded.doctrine_sources.get(f).and_then(Option::as_deref);
            loaded.doctrine[f].clone().filter(|_| keep(f, from))
        })
        .collect();
    crate::orders::doctrine::doctrine_toml(battle, &only)
}

/// The Exchanges a resolve played (1 for a single Exchange).
fn resolved_exchanges(resolved: &Resolved, header: &Header) -> u32 {
    // The state file names the last Exchange played.
    resolved
        .state
        .lines()
        .find_map(|l| l.strip_prefix("exchange = ").and_then(|n| n.parse::<u32>().ok()))
        .map_or(1, |last| last + 1 - header.exchange)
}

/// A commander's name as part of a file name.
pub fn file_slug(name: &str) -> String {
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
