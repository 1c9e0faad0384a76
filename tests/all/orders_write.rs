//! Plots back to orders TOML (`orders::write::plot_toml`) and the next
//! Exchange's orders template (`orders::write::template`): written plots
//! read back as the same plot, every listed system is named in a comment,
//! and a template is the automated commander's plot, which resolves
//! unedited without a warning.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use fam::diag::SourceFile;
use fam::engine::doctrine::{PlotSource, default_formation_plot, doctrine_formation_plot};
use fam::engine::plot::{ExchangePlot, FormationId};
use fam::engine::state::Battle;
use fam::gzf::{self, ParseOptions, SystemKind};
use fam::orders::toml_out::quote;
use fam::orders::write::{plot_toml, template, template_toml};
use fam::orders::{self, Loaded, Report};
use fam::report::{Header, Style};
use fam::resolve::{battle_plot, resolve};

use crate::support::{fam, files_with, repo, text};

/// The shipped scenarios: (file name, text).
pub(crate) fn scenarios() -> Vec<(String, String)> {
    let paths = files_with(&repo().join("scenarios"), "toml");
    assert!(paths.len() >= 4, "the shipped scenarios are missing");
    paths
        .iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(p).unwrap())
        })
        .collect()
}

/// GZF paths as a shipped scenario writes them (relative to `scenarios/`).
pub(crate) fn read_shipped(p: &str) -> Result<SourceFile, String> {
    std::fs::read_to_string(repo().join("scenarios").join(p))
        .map(|t| SourceFile::new(p, t))
        .map_err(|e| e.to_string())
}

/// Every diagnostic as `file:line:col: error|warning: message`, one a line.
pub(crate) fn lines(reports: &[Report]) -> String {
    crate::support::diagnostic_lines(reports).join("\n")
}

fn build_with(
    scenario: &str,
    orders: &[(String, String)],
    read_gzf: &mut dyn FnMut(&str) -> Result<SourceFile, String>,
) -> Result<Loaded, Vec<Report>> {
    orders::build(
        SourceFile::new("scenario.toml", scenario),
        orders
            .iter()
            .map(|(n, t)| SourceFile::new(n.clone(), t.clone()))
            .collect(),
        read_gzf,
        &ParseOptions::default(),
    )
}

/// Builds and panics with every diagnostic (and the texts) on failure.
pub(crate) fn must_build(
    what: &str,
    scenario: &str,
    orders: &[(String, String)],
    read_gzf: &mut dyn FnMut(&str) -> Result<SourceFile, String>,
) -> Loaded {
    match build_with(scenario, orders, read_gzf) {
        Ok(l) => l,
        Err(r) => {
            let texts: Vec<String> = orders.iter().map(|(n, t)| format!("--- {n}\n{t}")).collect();
            panic!(
                "{what}: the orders do not build:\n{}\n--- scenario.toml\n{scenario}\n{}",
                lines(&r),
                texts.join("\n")
            )
        }
    }
}

/// Whether a line is a table header (`[x]` or `[[x]]`) and, if so, of
/// which top-level key. Lines inside multi-line arrays never start with `[`
/// in the scenarios these tests use.
fn header_key(line: &str) -> Option<String> {
    let t = line.trim_start();
    let inner = t.strip_prefix("[[").or_else(|| t.strip_prefix('['))?.trim_start();
    let end = inner.find(['.', ']', ' ']).unwrap_or(inner.len());
    Some(inner[..end].trim_matches(['"', '\'']).to_string())
}

/// The scenario text without the tables under the given top-level keys
/// (`plot`, `range`), everything else as written (Formation order matters).
pub(crate) fn without_tables(text: &str, keys: &[&str]) -> String {
    let mut out = String::new();
    let mut skipping = false;
    for line in text.lines() {
        if let Some(k) = header_key(line) {
            skipping = keys.contains(&k.as_str());
        }
        if !skipping {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn without_plots(text: &str) -> String {
    without_tables(text, &["plot"])
}

/// One orders file per side: the plots of its Formations, with the
/// `commander` and `scenario` keys.
pub(crate) fn orders_per_side(battle: &Battle, plot: &ExchangePlot) -> Vec<(String, String)> {
    battle
        .sides
        .iter()
        .enumerate()
        .map(|(s, side)| {
            let fs: Vec<FormationId> = (0..battle.formations.len())
                .filter(|&f| battle.formations[f].side == s)
                .collect();
            let text = plot_toml(battle, plot, &fs, Some((&side.name, "scenario.toml")));
            (format!("side{}.toml", s + 1), text)
        })
        .collect()
}

#[test]
fn the_duel_plots_are_written_in_the_documented_format() {
    let (_, text) = scenarios().into_iter().find(|(n, _)| n == "duel.toml").unwrap();
    let loaded = must_build("duel", &text, &[], &mut read_shipped);
    let written = plot_toml(&loaded.battle, &loaded.plot, &[0, 1], Some(("Ilse", "duel.toml")));
    let expected = r#"commander = "Ilse"
scenario = "duel.toml"

# Formation Heading of "Ilse", Formation Thrust 6: "MCS Clear Heading" (thrust 6)
# Volley 1.
[[plot.Heading.volley]]
speed = 4
evasion = 2
primary = { maintain = "Watch" }
fire = [
  { unit = "MCS Clear Heading", fc = 6, target = "Watch", weapons = [8, 11, 12] },  # 8 Class 3 Battery, 11 Class 1 Battery, 12 Class 1 Battery
  { unit = "MCS Clear Heading", fc = 7, target = "Watch", weapons = [9, 10] },  # 9 Class 2 Battery, 10 Class 2 Battery
]

# Volley 2.
[[plot.Heading.volley]]
speed = 3
evasion = 3
primary = { maintain = "Watch" }
fire = [
  { unit = "MCS Clear Heading", fc = 6, target = "Watch", weapons = [8, 11, 12] },  # 8 Class 3 Battery, 11 Class 1 Battery, 12 Class 1 Battery
  { unit = "MCS Clear Heading", fc = 7, target = "Watch", weapons = [9, 10] },  # 9 Class 2 Battery, 10 Class 2 Battery
]
damage_control = { "MCS Clear Heading" = [6, 7] }  # "MCS Clear Heading": 6 FCS, 7 FCS

# Volley 3.
[[plot.Heading.volley]]
speed = 3
evasion = 3
primary = { withdraw = "Watch" }
fire = [
  { unit = "MCS Clear Heading", fc = 6, target = "Watch", weapons = [8, 11, 12] },  # 8 Class 3 Battery, 11 Class 1 Battery, 12 Class 1 Battery
  { unit = "MCS Clear Heading", fc = 7, target = "Watch", weapons = [9, 10] },  # 9 Class 2 Battery, 10 Class 2 Battery
]
damage_control = { "MCS Clear Heading" = [6, 7] }  # "MCS Clear Heading": 6 FCS, 7 FCS

# Formation Watch of "Marek", Formation Thrust 6: "KRD Long Watch" (thrust 6)
# One table: the same orders in all three Volleys.
[[plot.Watch.volley]]
speed = 4
evasion = 2
primary = { close = "Heading" }
fire = [
  { unit = "KRD Long Watch", fc = 6, target = "Heading", weapons = [8, 9, 10] },  # 8 Class 2 Battery, 9 Class 2 Battery, 10 Class 1 Battery
]
"#;
    assert_eq!(written, expected);
    // Formations listed twice are written once; the order is the caller's.
    let twice = plot_toml(&loaded.battle, &loaded.plot, &[1, 1], None);
    assert!(twice.starts_with("# Formation Watch of \"Marek\""), "{twice}");
    assert_eq!(twice.matches("[[plot.Watch.volley]]").count(), 1);
}

#[test]
fn every_shipped_scenario_round_trips_through_orders_files() {
    let mut written = 0;
    for (name, text) in scenarios() {
        let loaded = must_build(&name, &text, &[], &mut read_shipped);
        // A scenario without plots is played by the default doctrine.
        if loaded.plot.formations.iter().all(Option::is_none) {
            continue;
        }
        written += 1;
        let bare = without_plots(&text);
        let orders = orders_per_side(&loaded.battle, &loaded.plot);
        let again = must_build(&name, &bare, &orders, &mut read_shipped);
        assert_eq!(
            again.plot, loaded.plot,
            "{name}: the written plots read back differently"
        );
        assert!(
            again.warnings.iter().all(|(s, _)| s.name != "scenario.toml"),
            "{name}: {}",
            lines(&again.warnings)
        );
        // Writing the read-back plot gives the same text.
        assert_eq!(orders_per_side(&again.battle, &again.plot), orders, "{name}");
    }
    assert!(written >= 5, "most shipped scenarios have plots");
}

#[test]
fn plots_written_into_the_scenario_itself_round_trip() {
    for (name, text) in scenarios() {
        let loaded = must_build(&name, &text, &[], &mut read_shipped);
        let all: Vec<FormationId> = (0..loaded.battle.formations.len()).rev().collect();
        let bare = without_plots(&text);
        let whole = format!("{bare}\n{}", plot_toml(&loaded.battle, &loaded.plot, &all, None));
        let again = must_build(&name, &whole, &[], &mut read_shipped);
        assert_eq!(again.plot, loaded.plot, "{name}");
    }
}

/// Ships whose names need quoting and escaping.
const ODD_GZF: &str = r#"Profile: FB1

Ship: The "Quoted" \ Ship
Mass: 20
Thrust-Rating: 8
Damage-Track: OO OO O *

System: FCS

System: FCS

System: Class 2 Battery
Firing-Arc: FP F FS

System: Class 1 Battery
Firing-Arc: FP F FS AP A AS

System: PDS

System: ADFC

Ship: Nöel's = [Ship]
Mass: 20
Thrust-Rating: 6
Damage-Track: OO OO O *

System: FCS

System: Needle Beam
Firing-Arc: F

System: Class 1 Battery
Firing-Arc: FP F FS AP A AS

Ship: Plain-Target
Mass: 20
Thrust-Rating: 6
Damage-Track: OO OO O *

System: FCS

System: Class 2 Battery
Firing-Arc: FP F FS

System: Class 1 Battery
Firing-Arc: FP F FS AP A AS
"#;

const ODD_SCENARIO: &str = r#"gzf = ["odd.gzf"]

[sides]
"Ilse \"the Bold\"" = ["Odd \"One\".\\ \u0007 ⚓"]
"Marek\ttab" = ["Plain-Target"]

[formations]
"Odd \"One\".\\ \u0007 ⚓" = ["The \"Quoted\" \\ Ship", "Nöel's = [Ship]"]
"Plain-Target" = ["plain-target"]

[[plot."Odd \"One\".\\ \u0007 ⚓".volley]]
speed = 4
evasion = 2
primary = { close = "Plain-Target" }
shift = { "The \"Quoted\" \\ Ship" = -10 }
fire = [
  { unit = "The \"Quoted\" \\ Ship", fc = 1, target = "Plain-Target", weapons = [3] },
  { unit = "The \"Quoted\" \\ Ship", fc = 2, target = "inactive" },
  { unit = "Nöel's = [Ship]", target = "Plain-Target", needle = { weapon = 2, system = 2 } },
]
pd = [
  { unit = "The \"Quoted\" \\ Ship", weapons = [5], defend = "Nöel's = [Ship]" },
  { unit = "The \"Quoted\" \\ Ship", weapons = [4] },
]
damage_control = { "Nöel's = [Ship]" = [2, 1], "The \"Quoted\" \\ Ship" = [] }

[[plot.Plain-Target.volley]]
speed = 6
primary = { withdraw = "Odd \"One\".\\ \u0007 ⚓" }
fire = [{ target = "Odd \"One\".\\ \u0007 ⚓" }]
"#;

fn read_odd(p: &str) -> Result<SourceFile, String> {
    match p {
        "odd.gzf" => Ok(SourceFile::new(p, ODD_GZF)),
        _ => Err("no such file".to_string()),
    }
}

#[test]
fn names_that_need_quoting_and_escaping_round_trip() {
    let loaded = must_build("odd names", ODD_SCENARIO, &[], &mut read_odd);
    let orders = orders_per_side(&loaded.battle, &loaded.plot);
    assert!(
        orders[0]
            .1
            .starts_with("commander = \"Ilse \\\"the Bold\\\"\"\nscenario = \"scenario.toml\"\n"),
        "{}",
        orders[0].1
    );
    assert!(
        orders[0]
            .1
            .contains("[[plot.\"Odd \\\"One\\\".\\\\ \\u0007 ⚓\".volley]]"),
        "{}",
        orders[0].1
    );
    assert!(orders[1].1.contains("commander = \"Marek\\ttab\""), "{}", orders[1].1);
    assert!(orders[1].1.contains("[[plot.Plain-Target.volley]]"), "{}", orders[1].1);
    // Every line but the comments is TOML; the comments hold no control characters.
    for (_, text) in &orders {
        assert!(
            text.chars().all(|c| c == '\n' || !c.is_control()),
            "control character in\n{text}"
        );
    }
    let bare = without_plots(ODD_SCENARIO);
    let again = must_build("odd names", &bare, &orders, &mut read_odd);
    assert_eq!(again.plot, loaded.plot);
    let p = loaded.plot.formations[0].as_ref().unwrap();
    assert_eq!(p.volleys[0].fire[2].needles.len(), 1, "the needle was not read");
    assert_eq!(p.volleys[0].point_defence.len(), 2);
    assert_eq!(p.volleys[0].damage_control.len(), 2);
}

// ---- Templates -----------------------------------------------------------

/// GZF records by the path the scenario writes, as `write_back` left them.
type Records = BTreeMap<String, String>;

/// The next Exchange's scenario: the original sides, Formations, records
/// and rules, the ranges the last Exchange ended at, no plots.
fn next_scenario(original: &str, state: &str, exchange: u32) -> String {
    // The tables, not the comment that names them.
    let ranges = &state[state.find("\n[[range]]").expect("ranges in the state")..];
    let ranges = &ranges[..ranges.find("\n[[unit]]").unwrap_or(ranges.len())];
    format!(
        "exchange = {exchange}\n{}\n{ranges}",
        without_tables(original, &["plot", "range"])
    )
}

/// Resolves `loaded` at `seed` and builds the next Exchange's scenario from
/// the written-back records and the state: (scenario text, records, the
/// battle as the engine left it, the next Exchange loaded without plots).
fn next_exchange(original: &str, loaded: &Loaded, seed: u64) -> (String, Records, Battle, Loaded) {
    let header = Header {
        title: loaded.title.clone().unwrap_or_default(),
        seed,
        exchange: loaded.exchange,
    };
    let resolved = resolve(&header, &loaded.battle, &loaded.plot, Style::Text);
    let mut after = loaded.clone();
    after.write_back(&resolved.battle);
    let records: Records = after
        .records
        .iter()
        .map(|r| (r.path.clone(), gzf::write(&r.file)))
        .collect();
    let text = next_scenario(original, &resolved.state, loaded.exchange + 1);
    let mut read = |p: &str| {
        records
            .get(p)
            .map(|t| SourceFile::new(p, t.clone()))
            .ok_or_else(|| format!("{p} was not written back"))
    };
    let next = must_build("the next Exchange", &text, &[], &mut read);
    (text, records, resolved.battle, next)
}

/// Writes `plot` per side and builds it against the next Exchange's
/// scenario: it must pass with no errors.
fn check_template(what: &str, text: &str, records: &Records, battle: &Battle, plot: &ExchangePlot) -> Loaded {
    build_next(what, text, records, &orders_per_side(battle, plot))
}

/// Builds `orders` against the next Exchange's scenario `text` and its
/// written-back `records`: it must pass with no errors.
fn build_next(what: &str, text: &str, records: &Records, orders: &[(String, String)]) -> Loaded {
    let mut read = |p: &str| {
        records
            .get(p)
            .map(|t| SourceFile::new(p, t.clone()))
            .ok_or_else(|| format!("{p} was not written back"))
    };
    must_build(what, text, orders, &mut read)
}

/// One orders template per side, as `fam resolve --out` writes them.
fn templates_per_side(battle: &Battle, plot: &ExchangePlot, sources: &[PlotSource]) -> Vec<(String, String)> {
    battle
        .sides
        .iter()
        .enumerate()
        .map(|(s, side)| {
            let fs: Vec<FormationId> = (0..battle.formations.len())
                .filter(|&f| battle.formations[f].side == s)
                .collect();
            let text = template_toml(battle, plot, sources, &fs, &side.name, "scenario.toml");
            (format!("orders-{}.toml", s + 1), text)
        })
        .collect()
}

/// The plot the automated commander plays in an Exchange after the first
/// (what `fam resolve --exchanges K` plays), from `loaded`'s state and
/// standing orders.
fn doctrines_plot(loaded: &Loaded) -> fam::engine::checked::CheckedPlot {
    battle_plot(loaded, &loaded.battle, 1, 2).plot
}

/// Asserts that `fam` has nothing to warn about in `loaded`.
fn no_warnings(what: &str, loaded: &Loaded) {
    assert!(
        loaded.warnings.is_empty(),
        "{what}: fam warns about its own template:\n{}",
        lines(&loaded.warnings)
    );
}

/// The orders template `fam resolve --out` writes after one Exchange of
/// every shipped scenario (from the battle as the engine left it, as the
/// CLI does) reads back, against the files the next Exchange loads, as
/// exactly the plot the automated commander would play from that state,
/// and draws no warning.
#[test]
fn templates_read_back_as_the_doctrines_plot_after_every_shipped_exchange_at_seeds_1_to_20() {
    for (name, text) in scenarios() {
        let loaded = must_build(&name, &text, &[], &mut read_shipped);
        for seed in 1..=20 {
            let what = format!("{name} at seed {seed}");
            let (next_text, records, engine_battle, _) = next_exchange(&text, &loaded, seed);
            let (t, sources) = template(&engine_battle, &loaded.doctrine);
            let built = build_next(
                &what,
                &next_text,
                &records,
                &templates_per_side(&engine_battle, &t, &sources),
            );
            no_warnings(&what, &built);
            assert_eq!(built.plot, t, "{what}: the template reads back differently");
            assert_eq!(built.plot, doctrines_plot(&built), "{what}: not the doctrine's plot");
        }
    }
}

#[test]
fn templates_stay_the_doctrines_plot_over_a_whole_battle_of_unedited_templates() {
    for (name, text) in scenarios() {
        for seed in 1..=5 {
            let mut loaded = must_build(&name, &text, &[], &mut read_shipped);
            for exchange in 1..=6 {
                let what = format!("{name} at seed {seed}, after Exchange {exchange}");
                let (next_text, records, _, next) = next_exchange(&text, &loaded, seed * 100 + exchange);
                let (t, sources) = template(&next.battle, &next.doctrine);
                let built = build_next(
                    &what,
                    &next_text,
                    &records,
                    &templates_per_side(&next.battle, &t, &sources),
                );
                no_warnings(&what, &built);
                assert_eq!(built.plot, t, "{what}");
                assert_eq!(built.plot, doctrines_plot(&built), "{what}");
                loaded = built;
            }
        }
    }
}

/// Whether a system fires ordnance (salvo launchers and racks, heavy
/// missiles, submunition packs).
fn is_ordnance(kind: &SystemKind) -> bool {
    matches!(
        kind,
        SystemKind::Sml | SystemKind::Smr | SystemKind::Missile { .. } | SystemKind::SubmunitionPack
    )
}

/// Whether `plot` fires ordnance anywhere.
fn fires_ordnance(battle: &Battle, plot: &ExchangePlot) -> bool {
    plot.formations
        .iter()
        .flatten()
        .flat_map(|p| &p.volleys)
        .flat_map(|v| &v.fire)
        .any(|o| {
            o.weapons
                .iter()
                .any(|&w| is_ordnance(&battle.units[o.unit].systems[w].kind))
        })
}

/// Whether `plot` gives small craft any order (launch, recovery, task).
fn orders_craft(plot: &ExchangePlot) -> bool {
    plot.formations
        .iter()
        .flatten()
        .flat_map(|p| &p.volleys)
        .any(|v| !v.launch.is_empty() || !v.recover.is_empty() || !v.craft.is_empty())
}

/// `fam resolve scenarios/NAME --seed S --exchanges K --out DIR`, then the
/// next Exchange as a commander would resolve it: DIR's `scenario.toml`
/// with every `orders-*.toml`, unedited. Returns the orders files and the
/// next Exchange loaded by the library (`fam resolve` loads it so).
fn play_and_reload(name: &str, seed: u64, exchanges: u32, out: &Path) -> (Vec<PathBuf>, Loaded) {
    let what = format!("{name} at seed {seed}, {exchanges} Exchanges");
    let run = fam(&[
        "resolve",
        &format!("scenarios/{name}"),
        "--seed",
        &seed.to_string(),
        "--exchanges",
        &exchanges.to_string(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{what}: {}", text(&run.stderr));
    let orders: Vec<PathBuf> = files_with(out, "toml")
        .into_iter()
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("orders-"))
        .collect();
    assert_eq!(orders.len(), 2, "{what}: one orders template per commander");
    let next = orders::load_scenario(&out.join("scenario.toml"), &orders, &ParseOptions::default())
        .unwrap_or_else(|r| panic!("{what}: the unedited templates do not load:\n{}", lines(&r)));
    (orders, next)
}

/// The play-by-mail promise: for every shipped scenario, at several seeds
/// and numbers of Exchanges, the orders templates `fam resolve --out` writes
/// resolve unedited with no warning and no error, and play for every
/// Formation exactly what the automated commander would play from the same
/// state, ordnance, point defence, needles, damage control and small craft
/// included.
#[test]
fn unedited_templates_resolve_without_a_warning_and_play_what_the_doctrine_plays() {
    let dir = tempfile::tempdir().unwrap();
    let (mut ordnance, mut spent_then_fired, mut craft) = (0, 0, 0);
    for (name, _) in scenarios() {
        for seed in [1u64, 7, 23] {
            for exchanges in [1u32, 2, 4] {
                let what = format!("{name} at seed {seed}, {exchanges} Exchanges");
                let out = dir.path().join(format!("{name}-{seed}-{exchanges}"));
                let (orders, next) = play_and_reload(&name, seed, exchanges, &out);
                no_warnings(&what, &next);
                let doctrine = doctrines_plot(&next);
                assert_eq!(next.plot, doctrine, "{what}: the template is not the doctrine's plot");
                // The binary itself has nothing to say but notes.
                let mut args = vec!["resolve".to_string(), out.join("scenario.toml").display().to_string()];
                for o in &orders {
                    args.extend(["--orders".to_string(), o.display().to_string()]);
                }
                let run = fam(&args.iter().map(String::as_str).collect::<Vec<_>>());
                let stderr = text(&run.stderr);
                assert!(run.status.success(), "{what}: {stderr}");
                assert!(
                    !stderr.contains("warning") && !stderr.contains("error"),
                    "{what}: {stderr}"
                );
                let fires = fires_ordnance(&next.battle, &doctrine);
                let spent = next.battle.units.iter().flat_map(|u| &u.systems).any(|s| s.spent > 0);
                ordnance += usize::from(fires);
                spent_then_fired += usize::from(fires && spent);
                craft += usize::from(orders_craft(&doctrine));
            }
        }
    }
    // The comparisons above covered the cases that matter.
    assert!(ordnance > 0, "no template fired ordnance");
    assert!(spent_then_fired > 0, "no template fired ordnance after some was spent");
    assert!(craft > 0, "no template gave small craft orders");
}

/// The same state gives the same template, byte for byte.
#[test]
fn templates_are_written_the_same_every_time() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["fleet-action.toml", "carrier-strike.toml", "standing-orders.toml"] {
        let texts: Vec<Vec<Vec<u8>>> = (0..2)
            .map(|i| {
                let out = dir.path().join(format!("{name}-{i}"));
                let (orders, _) = play_and_reload(name, 7, 2, &out);
                orders.iter().map(|p| std::fs::read(p).unwrap()).collect()
            })
            .collect();
        assert_eq!(texts[0], texts[1], "{name}");
    }
}

/// The index of the Formation named `name`.
fn formation(battle: &Battle, name: &str) -> FormationId {
    battle.formations.iter().position(|f| f.name == name).unwrap()
}

/// A Formation with standing orders is plotted by them, one without by the
/// default doctrine, one out of the fight not at all, and each orders file
/// says so.
#[test]
fn a_template_follows_standing_orders_where_given_and_the_default_doctrine_elsewhere() {
    let (_, text) = scenarios()
        .into_iter()
        .find(|(n, _)| n == "standing-orders.toml")
        .unwrap();
    // Salvo keeps standing orders (launching when in reach); Lances has none.
    let text = format!(
        "{}\n[doctrine.Salvo]\nmaneuver = \"maintain\"\nuse_ordnance = true\n",
        without_tables(&text, &["doctrine", "plot"])
    );
    let loaded = must_build("standing orders", &text, &[], &mut read_shipped);
    let b = &loaded.battle;
    let (salvo, lances) = (formation(b, "Salvo"), formation(b, "Lances"));
    let (t, sources) = template(b, &loaded.doctrine);
    assert_eq!(sources[salvo], PlotSource::StandingOrders);
    assert_eq!(sources[lances], PlotSource::DefaultDoctrine);
    let d = loaded.doctrine[salvo].as_ref().unwrap();
    assert_eq!(t.formations[salvo], doctrine_formation_plot(b, salvo, d));
    assert_eq!(t.formations[lances], default_formation_plot(b, lances));
    assert!(
        fires_ordnance(b, &t),
        "the launches of the standing orders are in the template"
    );
    let files = templates_per_side(b, &t, &sources);
    let built = must_build(
        "standing orders",
        &without_tables(&text, &["doctrine"]),
        &files,
        &mut read_shipped,
    );
    no_warnings("standing orders", &built);
    assert_eq!(built.plot, t);
    let (salvo_file, lances_file) = (&files[b.formations[salvo].side].1, &files[b.formations[lances].side].1);
    for file in [salvo_file, lances_file] {
        let head: String = file
            .lines()
            .take_while(|l| l.starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n");
        for words in [
            "standing orders",
            "default doctrine",
            "Deleting a Formation's",
            "unedited",
        ] {
            assert!(head.contains(words), "the header does not say `{words}`:\n{head}");
        }
    }
    assert!(
        salvo_file.contains("# Plotted by its standing orders ([doctrine.Salvo]).\n"),
        "{salvo_file}"
    );
    assert!(
        lances_file.contains("# Plotted by the default doctrine"),
        "{lances_file}"
    );
    // Out of the fight: no plot, and the file says why.
    let mut gone = b.clone();
    for &u in &gone.formations[lances].units.clone() {
        gone.units[u].destroyed = true;
    }
    let (t, sources) = template(&gone, &loaded.doctrine);
    assert_eq!(
        (t.formations[lances].as_ref(), sources[lances]),
        (None, PlotSource::NoPlot)
    );
    let file = template_toml(&gone, &t, &sources, &[lances], "Captain Iyer", "scenario.toml");
    assert!(file.contains("# No plot: it is out of the fight.\n"), "{file}");
    assert!(!file.contains("[[plot."), "{file}");
}

/// Every `fire` and `pd` entry of `text` with weapons has a comment naming
/// each weapon listed, `N Kind` in list order (then, for needle beams,
/// where they aim), and every `damage_control` line names each Unit's
/// systems; returns how many lines it checked.
fn assert_systems_named(what: &str, text: &str, battle: &Battle) -> usize {
    let unit = |name: &str| battle.units.iter().find(|u| u.name == name).unwrap();
    let kinds = |name: &str, list: &[toml::Value]| {
        let u = unit(name);
        let named: Vec<String> = list
            .iter()
            .map(|n| n.as_integer().unwrap() as usize)
            .map(|n| format!("{n} {}", u.systems[n - 1].kind.name(u.profile)))
            .collect();
        named.join(", ")
    };
    let mut checked = 0;
    for line in text.lines() {
        let Some((value, note)) = line.split_once("  # ") else {
            assert!(
                !line.contains("weapons = [") || line.contains("weapons = []") || line.starts_with('#'),
                "{what}: no comment on {line}"
            );
            continue;
        };
        if let Some(entry) = value.trim().strip_suffix(',') {
            let t: toml::Table = format!("entry = {entry}").parse().unwrap();
            let e = t["entry"].as_table().unwrap();
            let expected = kinds(e["unit"].as_str().unwrap(), e["weapons"].as_array().unwrap());
            assert!(note.starts_with(&expected), "{what}: `{note}` does not name {expected}");
            let needles = match e.get("needle") {
                Some(toml::Value::Array(all)) => all.clone(),
                Some(one) => vec![one.clone()],
                None => Vec::new(),
            };
            for n in &needles {
                let (weapon, target) = (n["weapon"].as_integer().unwrap(), n["unit"].as_str().unwrap());
                let at = kinds(target, std::slice::from_ref(&n["system"]));
                let expected = format!("; needle {weapon} at {} {at}", quote(target));
                assert!(note.contains(&expected), "{what}: `{note}` does not say {expected}");
            }
        } else {
            let t: toml::Table = value.parse().unwrap();
            for (name, list) in t["damage_control"].as_table().unwrap() {
                let list = list.as_array().unwrap();
                if !list.is_empty() {
                    let expected = format!("{}: {}", quote(name), kinds(name, list));
                    assert!(note.contains(&expected), "{what}: `{note}` does not name {expected}");
                }
            }
        }
        checked += 1;
    }
    checked
}

/// Comments name every weapon in `fire` and `pd` and every system in
/// `damage_control`, needle aims included, and the files still parse as
/// TOML and read back equal with names that need quoting.
#[test]
fn every_listed_system_is_named_in_a_comment_and_the_file_still_parses() {
    let doctrine = "\n[doctrine.\"Odd \\\"One\\\".\\\\ \\u0007 ⚓\"]\nuse_needles = true\npd = \"always\"\ndamage_control = [\"weapon\", \"fire_control\"]\n";
    let with_doctrine = format!("{ODD_SCENARIO}{doctrine}");
    let loaded = must_build("odd names", &with_doctrine, &[], &mut read_odd);
    let (t, sources) = template(&loaded.battle, &loaded.doctrine);
    let bare = format!("{}{doctrine}", without_plots(ODD_SCENARIO));
    for (what, files, plot) in [
        (
            "explicit plot",
            orders_per_side(&loaded.battle, &loaded.plot),
            &loaded.plot,
        ),
        ("template", templates_per_side(&loaded.battle, &t, &sources), &t),
    ] {
        let mut checked = 0;
        for (_, text) in &files {
            text.parse::<toml::Table>()
                .unwrap_or_else(|e| panic!("{what}: not TOML: {e}\n{text}"));
            checked += assert_systems_named(what, text, &loaded.battle);
        }
        let again = must_build(what, &bare, &files, &mut read_odd);
        assert_eq!(&again.plot, plot, "{what}");
        let all = files.iter().map(|(_, t)| t.as_str()).collect::<String>();
        for key in ["needle = ", "pd = [", "damage_control = "] {
            assert!(all.contains(key), "{what}: no `{key}` to check in\n{all}");
        }
        assert!(checked >= 4, "{what}: {checked} lines checked");
    }
}

/// The default doctrine never produces an illegal plot: its plots, written
/// as orders, pass the orders checks at the start of every Exchange of
/// battles it plays itself, for every shipped scenario and many seeds.
#[test]
fn default_doctrine_plots_always_pass_the_orders_checks() {
    use fam::engine::doctrine::default_plot;
    for (name, text) in scenarios() {
        for seed in 1..=8 {
            let mut loaded = must_build(&name, &text, &[], &mut read_shipped);
            // The doctrine plays from the first Exchange on.
            loaded.plot = default_plot(&loaded.battle);
            for exchange in 1..=5 {
                let what = format!("{name} at seed {seed}, Exchange {exchange}");
                let (next_text, records, _, next) = next_exchange(&text, &loaded, seed * 100 + exchange);
                let plot = default_plot(&next.battle);
                let built = check_template(&what, &next_text, &records, &next.battle, &plot);
                assert_eq!(built.plot, plot, "{what}: the doctrine's plot reads back differently");
                loaded = built;
            }
        }
    }
}
