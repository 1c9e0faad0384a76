//! Plots back to orders TOML (`orders::write::plot_toml`) and the next
//! Exchange's template (`orders::write::template`): written plots read back
//! as the same plot, and templates always pass the orders checks.

use std::collections::BTreeMap;

use fam::diag::SourceFile;
use fam::engine::plot::{ExchangePlot, FormationId};
use fam::engine::state::Battle;
use fam::gzf::{self, ParseOptions};
use fam::orders::write::{plot_toml, template};
use fam::orders::{self, Loaded, Report};
use fam::report::{Header, Style};
use fam::resolve::resolve;

use crate::support::{files_with, repo};

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
  { unit = "MCS Clear Heading", fc = 6, target = "Watch", weapons = [8, 11, 12] },
  { unit = "MCS Clear Heading", fc = 7, target = "Watch", weapons = [9, 10] },
]

# Volley 2.
[[plot.Heading.volley]]
speed = 3
evasion = 3
primary = { maintain = "Watch" }
fire = [
  { unit = "MCS Clear Heading", fc = 6, target = "Watch", weapons = [8, 11, 12] },
  { unit = "MCS Clear Heading", fc = 7, target = "Watch", weapons = [9, 10] },
]
damage_control = { "MCS Clear Heading" = [6, 7] }

# Volley 3.
[[plot.Heading.volley]]
speed = 3
evasion = 3
primary = { withdraw = "Watch" }
fire = [
  { unit = "MCS Clear Heading", fc = 6, target = "Watch", weapons = [8, 11, 12] },
  { unit = "MCS Clear Heading", fc = 7, target = "Watch", weapons = [9, 10] },
]
damage_control = { "MCS Clear Heading" = [6, 7] }

# Formation Watch of "Marek", Formation Thrust 6: "KRD Long Watch" (thrust 6)
# One table: the same orders in all three Volleys.
[[plot.Watch.volley]]
speed = 4
evasion = 2
primary = { close = "Heading" }
fire = [
  { unit = "KRD Long Watch", fc = 6, target = "Heading", weapons = [8, 9, 10] },
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
    for (name, text) in scenarios() {
        let loaded = must_build(&name, &text, &[], &mut read_shipped);
        assert!(
            loaded.plot.formations.iter().any(Option::is_some),
            "{name} has no plots to write"
        );
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
    let orders = orders_per_side(battle, plot);
    let mut read = |p: &str| {
        records
            .get(p)
            .map(|t| SourceFile::new(p, t.clone()))
            .ok_or_else(|| format!("{p} was not written back"))
    };
    must_build(what, text, &orders, &mut read)
}

/// What a template must hold besides passing the checks.
fn template_shape(what: &str, battle: &Battle, plot: &ExchangePlot) {
    for (f, p) in plot.formations.iter().enumerate() {
        let Some(p) = p else {
            assert!(
                !battle.formation_active(f),
                "{what}: `{}` has no template",
                battle.formations[f].name
            );
            continue;
        };
        let thrust = battle.formation_thrust(f);
        for v in &p.volleys {
            assert_eq!(v.speed + v.evasion, thrust, "{what}");
            assert!(v.evasion <= thrust / 2, "{what}");
            assert!(v.secondary.is_empty() && v.shifts.is_empty(), "{what}");
            assert!(v.point_defence.is_empty() && v.damage_control.is_empty(), "{what}");
            let target = v.primary.map(|m| m.target);
            for o in &v.fire {
                assert!(
                    o.target.is_none() || o.target == target,
                    "{what}: fire at another target"
                );
            }
        }
    }
}

#[test]
fn templates_pass_the_orders_checks_after_every_shipped_exchange_at_seeds_1_to_20() {
    for (name, text) in scenarios() {
        let loaded = must_build(&name, &text, &[], &mut read_shipped);
        for seed in 1..=20 {
            let what = format!("{name} at seed {seed}");
            let (next_text, records, engine_battle, next) = next_exchange(&text, &loaded, seed);
            // From the battle as the records reload it.
            let t = template(&next.battle, &loaded.plot);
            template_shape(&what, &next.battle, &t);
            let built = check_template(&what, &next_text, &records, &next.battle, &t);
            assert_eq!(built.plot, t, "{what}: the template reads back differently");
            // From the battle as the engine left it (what `fam resolve` has in hand).
            let t2 = template(&engine_battle, &loaded.plot);
            check_template(&what, &next_text, &records, &engine_battle, &t2);
        }
    }
}

#[test]
fn templates_stay_valid_over_a_whole_battle_of_templates() {
    for (name, text) in scenarios() {
        for seed in 1..=5 {
            let mut loaded = must_build(&name, &text, &[], &mut read_shipped);
            for exchange in 1..=6 {
                let what = format!("{name} at seed {seed}, after Exchange {exchange}");
                let (next_text, records, _, next) = next_exchange(&text, &loaded, seed * 100 + exchange);
                let t = template(&next.battle, &loaded.plot);
                template_shape(&what, &next.battle, &t);
                let built = check_template(&what, &next_text, &records, &next.battle, &t);
                assert_eq!(built.plot, t, "{what}");
                loaded = built;
            }
        }
    }
}

#[test]
fn a_template_maintains_on_the_last_target_and_fires_the_first_fire_control() {
    let (_, text) = scenarios()
        .into_iter()
        .find(|(n, _)| n == "missile-strike.toml")
        .unwrap();
    let loaded = must_build("missile strike", &text, &[], &mut read_shipped);
    let b = &loaded.battle;
    let t = template(b, &loaded.plot);
    let id = |name: &str| b.formations.iter().position(|f| f.name == name).unwrap();
    let unit = |name: &str| b.units.iter().position(|u| u.name == name).unwrap();
    // Carrier fired at Gale twice and Heavies once in its last Volley.
    let carrier = t.formations[id("Carrier")].as_ref().unwrap();
    assert_eq!(carrier.volleys[0].primary.unwrap().target, id("Gale"));
    assert_eq!((carrier.volleys[0].speed, carrier.volleys[0].evasion), (2, 2));
    let harrow: Vec<_> = carrier.volleys[0]
        .fire
        .iter()
        .filter(|o| o.unit == unit("MCS Harrow of Stars"))
        .collect();
    assert_eq!(harrow.len(), 2);
    assert_eq!((harrow[0].fire_control, harrow[0].target), (5, Some(id("Gale"))));
    // All its beams, not its PDS (16-21).
    assert_eq!(harrow[0].weapons, vec![9, 10, 11, 12, 13, 14]);
    assert_eq!((harrow[1].fire_control, harrow[1].target), (6, None));
    assert!(harrow[1].weapons.is_empty());
    // Heavies: the racks fire in Volley 1 only, the launchers while loads last.
    let heavies = t.formations[id("Heavies")].as_ref().unwrap();
    let thunder = unit("KRD High Fell Thunder");
    let w = |v: usize| {
        heavies.volleys[v]
            .fire
            .iter()
            .find(|o| o.unit == thunder && o.target.is_some())
            .unwrap()
            .weapons
            .clone()
    };
    assert_eq!(w(0), vec![7, 8, 9, 10, 12, 13]);
    assert_eq!(w(1), vec![10, 12, 13]);
    assert_eq!(w(2), vec![12, 13]);
    // The needle beam keeps its last aim (Sharp Descent's Fire Control).
    let needle = t.formations[id("Needle")].as_ref().unwrap();
    let tide = needle.volleys[0]
        .fire
        .iter()
        .find(|o| o.unit == unit("MCS Unhurried Tide"))
        .unwrap();
    assert_eq!(tide.needles.len(), 1);
    assert_eq!(
        (tide.needles[0].weapon, tide.needles[0].unit, tide.needles[0].system),
        (6, unit("KRD Sharp Descent"), 4)
    );
    // With no plot to go on: the nearest enemy, all thrust in Speed.
    let none = template(b, &ExchangePlot::default());
    let gale = none.formations[id("Gale")].as_ref().unwrap();
    assert_eq!(gale.volleys[0].primary.unwrap().target, id("Carrier"));
    assert_eq!((gale.volleys[0].speed, gale.volleys[0].evasion), (6, 0));
    let pickets = none.formations[id("Pickets")].as_ref().unwrap();
    assert_eq!(pickets.volleys[0].primary.unwrap().target, id("Needle"));
}

/// The orders-layer fixtures: one-shots fresh, spent and destroyed,
/// magazines with and without loads, needle beams, refused weapons.
const FIXTURE_SCENARIO: &str = r#"gzf = ["ordnance.gzf", "ft2.gzf"]
start_range = 24

[sides]
Ilse = ["Strike"]
Marek = ["Home"]

[formations]
Strike = ["Test Striker", "Test Oddities"]
Home = ["Test Homestead", "Test Kraal"]

[[plot.Strike.volley]]
speed = 4
evasion = 2
primary = { close = "Home" }
fire = [
  { unit = "Test Striker", fc = 1, target = "Home", weapons = [13, 17], needle = [
    { weapon = 13, unit = "Test Kraal", system = 3 },
    { weapon = 17, unit = "Test Kraal", system = 3 },
  ] },
  { unit = "Test Oddities", target = "Home", weapons = [9] },
]
"#;

fn read_fixture(p: &str) -> Result<SourceFile, String> {
    std::fs::read_to_string(crate::support::fixtures("orders").join(p))
        .map(|t| SourceFile::new(p, t))
        .map_err(|e| e.to_string())
}

#[test]
fn templates_leave_out_what_cannot_fire_and_spread_ordnance_over_the_volleys() {
    let loaded = must_build("fixtures", FIXTURE_SCENARIO, &[], &mut read_fixture);
    let b = &loaded.battle;
    let unit = |name: &str| b.units.iter().position(|u| u.name == name).unwrap();
    let bare = without_plots(FIXTURE_SCENARIO);
    for (what, last) in [
        ("last plot", loaded.plot.clone()),
        ("no last plot", ExchangePlot::default()),
    ] {
        let t = template(b, &last);
        template_shape(what, b, &t);
        let built = must_build(what, &bare, &orders_per_side(b, &t), &mut read_fixture);
        assert_eq!(built.plot, t, "{what}");
        let strike = t.formations[0].as_ref().unwrap();
        let weapons = |v: usize, u: &str| {
            let o = strike.volleys[v].fire.iter().find(|o| o.unit == unit(u)).unwrap();
            (o.fire_control, o.weapons.clone(), o.needles.clone())
        };
        let needles = what == "last plot";
        // Striker: racks, the heavy missile and the submunition pack in
        // Volley 1 (not the spent or destroyed racks); launchers 8 and 9
        // share magazine A's two loads, 11 draws magazine B's two; 18's
        // magazine is destroyed; the PDS stay out; the needle beams (13,
        // 17) keep their last aim or stay out.
        let with_needles = |mut w: Vec<usize>| {
            if needles {
                w.extend([12, 16]);
                w.sort();
            }
            w
        };
        assert_eq!(
            weapons(0, "Test Striker").1,
            with_needles(vec![2, 5, 6, 7, 8, 10, 13]),
            "{what}"
        );
        assert_eq!(weapons(1, "Test Striker").1, with_needles(vec![10, 13]), "{what}");
        assert_eq!(weapons(2, "Test Striker").1, with_needles(vec![13]), "{what}");
        let aimed = weapons(0, "Test Striker").2;
        if needles {
            assert_eq!(aimed.len(), 2);
            assert!(aimed.iter().all(|n| n.unit == unit("Test Kraal") && n.system == 2));
        } else {
            assert!(aimed.is_empty());
        }
        // Oddities: only the Class 2 Battery can fire at a Formation.
        assert_eq!(weapons(0, "Test Oddities").1, vec![8], "{what}");
        // Homestead: the C and B Batteries and the AA MegaBattery (no
        // railgun, energy pulse, Scatterguns, ADAF or PDAF).
        let home = t.formations[1].as_ref().unwrap();
        let o = home.volleys[0]
            .fire
            .iter()
            .find(|o| o.unit == unit("Test Homestead"))
            .unwrap();
        assert_eq!(o.weapons, vec![5, 6, 8], "{what}");
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
