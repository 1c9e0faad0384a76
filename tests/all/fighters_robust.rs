//! Small craft under random but plausible orders: plots derived from the
//! shipped carrier scenarios with every small-craft key (launch, recover,
//! fighters with each action, after, fire.group), groups moved between
//! Formations, rule switches, launch tubes, reserves and standing orders.
//! Each plot is either refused with positioned errors or resolves over
//! several Exchanges without a panic, the same way twice; the files
//! `fam resolve --out` writes load again and play on.

use crate::support::diagnostic_lines as lines;
use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use fam::diag::SourceFile;
use fam::engine::doctrine::PlotSource;
use fam::engine::event::{CraftRoll, PdAssigned, Recorder};
use fam::gzf::ParseOptions;
use fam::orders::{self, Loaded, Report};
use toml::{Table, Value};

use crate::support::{fam, repo, text};

/// Gunboat squadrons and a carrierless fighter group, for the Formations
/// the generator adds.
const BOATS_GZF: &str = "Profile: FB1

Fighter-Group: Lances
Craft: O O O O O -
Gunboat: Beam
Status: Launched
Position-X: 0.0
Position-Y: 0.0

Fighter-Group: Harpoons
Craft: O O O O O O
Gunboat: Torpedo
Status: Launched
Position-X: 0.0
Position-Y: 0.0

Fighter-Group: Strays
Craft: O O O O
Fighter-Type: Heavy Interceptor
Endurance: - - - O O O
Status: Launched
Position-X: 0.0
Position-Y: 0.0
";

const BOATS: [&str; 3] = ["Lances", "Harpoons", "Strays"];

const SCENARIOS: [&str; 4] = [
    "carrier-strike.toml",
    "fleet-action.toml",
    "missile-strike.toml",
    "squadron-action.toml",
];

/// SplitMix64: a tiny deterministic generator, enough for test cases.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<T: Clone>(&mut self, v: &[T]) -> Option<T> {
        (!v.is_empty()).then(|| v[self.below(v.len())].clone())
    }
}

fn read_gzf(p: &str) -> Result<SourceFile, String> {
    let name = Path::new(p).file_name().and_then(|n| n.to_str()).unwrap_or(p);
    if name == "boats.gzf" {
        return Ok(SourceFile::new(p, BOATS_GZF));
    }
    std::fs::read_to_string(repo().join("ssd").join(name))
        .map(|t| SourceFile::new(p, t))
        .map_err(|e| e.to_string())
}

fn build(scenario: &str) -> Result<Loaded, Vec<Report>> {
    orders::build(
        SourceFile::new("scenario.toml", scenario),
        Vec::new(),
        &mut read_gzf,
        &ParseOptions::default(),
    )
}

/// What the generator knows of a battle: names by role.
#[derive(Clone, Default)]
struct Names {
    /// Formation name → side name.
    side_of: BTreeMap<String, String>,
    /// Formation name → ship names.
    ships: BTreeMap<String, Vec<String>>,
    /// Group name → (side, carrier's Formation or "", gunboat, thrust equivalent).
    groups: BTreeMap<String, (String, String, bool, u32)>,
    /// Attack and torpedo groups: no interception.
    no_intercept: Vec<String>,
}

impl Names {
    fn of(l: &Loaded) -> Names {
        let b = &l.battle;
        let mut n = Names::default();
        for f in &b.formations {
            n.side_of.insert(f.name.clone(), b.sides[f.side].name.clone());
            n.ships.insert(f.name.clone(), Vec::new());
        }
        for u in &b.units {
            let fname = b.formations[u.formation].name.clone();
            match u.craft {
                None => n.ships.get_mut(&fname).expect("formation").push(u.name.clone()),
                Some(c) => {
                    let carrier = c.carrier.map_or(String::new(), |(cu, _)| {
                        b.formations[b.units[cu].formation].name.clone()
                    });
                    use fam::engine::state::CraftKind;
                    let gunboat = matches!(c.kind, CraftKind::Gunboat(_));
                    if matches!(c.kind, CraftKind::Fighter(t) if matches!(t.base, fam::gzf::FighterBase::Attack | fam::gzf::FighterBase::Torpedo))
                    {
                        n.no_intercept.push(u.name.clone());
                    }
                    n.groups.insert(
                        u.name.clone(),
                        (b.sides[u.side].name.clone(), carrier, gunboat, u.thrust),
                    );
                }
            }
        }
        n
    }
}

fn s(x: &str) -> Value {
    Value::String(x.to_string())
}

fn list(v: &[String]) -> Value {
    Value::Array(v.iter().map(|x| s(x)).collect())
}

/// One random scenario derived from `base` (its text and its loaded battle).
/// Half the cases are "clean": every choice is one the rules allow, so
/// that most of them resolve; the others make a wrong choice now and then.
fn derive(rng: &mut Rng, base_text: &str, base: &Loaded) -> String {
    let clean = rng.chance(50);
    let good = if clean { 100 } else { 85 };
    let mut names = Names::of(base);
    let mut t: Table = base_text.parse().expect("shipped scenarios parse");
    let sides: Vec<String> = base.battle.sides.iter().map(|x| x.name.clone()).collect();
    // Formation membership as written (groups listed nowhere ride with
    // their carriers).
    let mut formations: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (k, v) in t["formations"].as_table().expect("formations") {
        let members = v
            .as_array()
            .expect("list")
            .iter()
            .map(|x| x.as_str().unwrap().to_string());
        formations.insert(k.clone(), members.collect());
    }
    let mut side_lists: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (k, v) in t["sides"].as_table().expect("sides") {
        let fs = v
            .as_array()
            .expect("list")
            .iter()
            .map(|x| x.as_str().unwrap().to_string());
        side_lists.insert(k.clone(), fs.collect());
    }
    // Gunboats and a carrierless group in a Formation of their own.
    if rng.chance(40) {
        let side = rng.pick(&sides).unwrap();
        let gz = t.get_mut("gzf").and_then(Value::as_array_mut).expect("gzf");
        gz.push(s("boats.gzf"));
        let members: Vec<String> = BOATS
            .iter()
            .filter(|_| clean || rng.chance(70))
            .map(|x| x.to_string())
            .collect();
        let members = if members.is_empty() {
            vec![BOATS[0].to_string()]
        } else {
            members
        };
        for m in &members {
            let gunboat = m != "Strays";
            names.groups.insert(
                m.clone(),
                (side.clone(), String::new(), gunboat, if gunboat { 9 } else { 12 }),
            );
        }
        // Sometimes with a ship of that side (a mixed Formation).
        let mut all = members.clone();
        if rng.chance(20) {
            let own: Vec<String> = side_lists[&side].clone();
            if let Some(f) = rng.pick(&own) {
                formations.get_mut(&f).unwrap().append(&mut all);
            }
        }
        if !all.is_empty() {
            formations.insert("Boats".into(), all);
            side_lists.get_mut(&side).unwrap().push("Boats".into());
            names.side_of.insert("Boats".into(), side.clone());
            names.ships.insert("Boats".into(), Vec::new());
        }
    }
    // Move fighter groups between Formations.
    let groups: Vec<String> = names
        .groups
        .iter()
        .filter(|(_, g)| !g.2 && !g.1.is_empty())
        .map(|(k, _)| k.clone())
        .collect();
    for g in &groups {
        let roll = rng.below(100);
        if roll >= 45 {
            continue;
        }
        for m in formations.values_mut() {
            m.retain(|x| x != g);
        }
        let side = names.groups[g].0.clone();
        let target = if roll < 30 {
            // A Formation of groups of its own side.
            let wing = format!("Wing {}", rng.below(2) + 1);
            let owner = names.side_of.get(&wing).cloned();
            if owner.as_ref().is_some_and(|o| *o != side) {
                format!("{wing} {side}")
            } else {
                wing
            }
        } else if roll < 40 || clean {
            rng.pick(&side_lists[&side]).unwrap()
        } else {
            // Another side's Formation (to be refused, or not).
            rng.pick(&formations.keys().cloned().collect::<Vec<_>>()).unwrap()
        };
        if !formations.contains_key(&target) {
            side_lists.get_mut(&side).unwrap().push(target.clone());
            names.side_of.insert(target.clone(), side.clone());
            names.ships.insert(target.clone(), Vec::new());
        }
        formations.entry(target).or_default().push(g.clone());
    }
    // Formations left empty go, with their plots, ranges and side entries.
    let empty: Vec<String> = formations
        .iter()
        .filter(|(_, m)| m.is_empty())
        .map(|(k, _)| k.clone())
        .collect();
    for e in &empty {
        formations.remove(e);
        for l in side_lists.values_mut() {
            l.retain(|x| x != e);
        }
        if let Some(p) = t.get_mut("plot").and_then(Value::as_table_mut) {
            p.remove(e);
        }
        if let Some(d) = t.get_mut("doctrine").and_then(Value::as_table_mut) {
            d.remove(e);
        }
        if let Some(r) = t.get_mut("range").and_then(Value::as_array_mut) {
            r.retain(|x| !x["between"].as_array().unwrap().iter().any(|n| n.as_str() == Some(e)));
        }
        names.side_of.remove(e);
    }
    let mut ft = Table::new();
    for (k, v) in &formations {
        ft.insert(k.clone(), list(v));
    }
    t.insert("formations".into(), Value::Table(ft));
    let mut st = Table::new();
    for (k, v) in &side_lists {
        st.insert(k.clone(), list(v));
    }
    t.insert("sides".into(), Value::Table(st));

    // Rule switches, launch tubes, reserves, standing orders.
    let mut rules = t.get("rules").and_then(Value::as_table).cloned().unwrap_or_default();
    if rng.chance(50) {
        rules.insert("pilot_quality".into(), s(if rng.chance(50) { "record" } else { "off" }));
    }
    for key in ["fighter_evasion_drm", "strike_colours", "reactor_blast"] {
        if rng.chance(30) {
            rules.insert(key.into(), Value::Boolean(rng.chance(50)));
        }
    }
    t.insert("rules".into(), Value::Table(rules));
    let carriers: Vec<String> = base
        .battle
        .units
        .iter()
        .filter(|u| !u.is_craft() && u.systems.iter().any(|x| x.kind == fam::gzf::SystemKind::HangarBay))
        .map(|u| u.name.clone())
        .collect();
    if rng.chance(25)
        && let Some(c) = rng.pick(&carriers)
    {
        let mut tubes = Table::new();
        tubes.insert(c, Value::Integer(rng.below(3) as i64 + i64::from(clean)));
        t.insert("launch_tubes".into(), Value::Table(tubes));
    }
    if rng.chance(25) {
        let mut r = Table::new();
        r.insert("enabled".into(), Value::Boolean(true));
        t.insert("reserves".into(), Value::Table(r));
    }
    let fnames: Vec<String> = formations.keys().cloned().collect();
    for f in &fnames {
        if rng.chance(15) {
            let d = t
                .entry("doctrine")
                .or_insert_with(|| Value::Table(Table::new()))
                .as_table_mut()
                .unwrap();
            let entry = d
                .entry(f.clone())
                .or_insert_with(|| Value::Table(Table::new()))
                .as_table_mut()
                .unwrap();
            entry.insert("fighters".into(), s(if rng.chance(50) { "hold" } else { "strike" }));
        }
    }

    // Plots.
    let all_groups: Vec<String> = names.groups.keys().cloned().collect();
    let plots = t
        .entry("plot")
        .or_insert_with(|| Value::Table(Table::new()))
        .as_table_mut()
        .unwrap();
    for f in &fnames {
        let side = names.side_of[f].clone();
        let enemies: Vec<String> = fnames.iter().filter(|x| names.side_of[*x] != side).cloned().collect();
        let enemy_ships: Vec<String> = enemies.iter().flat_map(|e| names.ships[e].clone()).collect();
        let enemy_groups: Vec<String> = all_groups
            .iter()
            .filter(|g| names.groups[*g].0 != side)
            .cloned()
            .collect();
        let enemy_boats: Vec<String> = enemy_groups.iter().filter(|g| names.groups[*g].2).cloned().collect();
        let own_ships = names.ships[f].clone();
        let members = &formations[f];
        let own_groups: Vec<String> = all_groups
            .iter()
            .filter(|g| {
                members.contains(*g) || (names.groups[*g].1 == *f && !formations.values().any(|m| m.contains(*g)))
            })
            .cloned()
            .collect();
        let carried: Vec<String> = all_groups
            .iter()
            .filter(|g| names.groups[*g].1 == *f)
            .cloned()
            .collect();
        let craft_only = own_ships.is_empty();
        let existing = plots.get(f).is_some();
        if !existing {
            if !craft_only || rng.chance(15) {
                continue;
            }
            let n = if rng.chance(50) { 1 } else { 3 };
            let mut volleys = Vec::new();
            let lowest = members.iter().map(|g| names.groups.get(g).map_or(12, |x| x.3)).min();
            for _ in 0..n {
                let thrust = match lowest {
                    Some(t) if clean => t as usize,
                    _ => [12, 6, 18, 9, 3][rng.below(5)],
                };
                let evasion = rng.below(thrust / 2 + 1) as i64;
                let mut v = Table::new();
                v.insert("speed".into(), Value::Integer(thrust as i64 - evasion));
                v.insert("evasion".into(), Value::Integer(evasion));
                volleys.push(Value::Table(v));
            }
            let mut p = Table::new();
            p.insert("volley".into(), Value::Array(volleys));
            plots.insert(f.clone(), Value::Table(p));
        }
        let volleys = plots[f]["volley"].as_array().unwrap().len();
        let mut launched: Vec<String> = Vec::new();
        for i in 0..volleys {
            let v = plots.get_mut(f).unwrap()["volley"].as_array_mut().unwrap()[i]
                .as_table_mut()
                .unwrap();
            if clean || rng.chance(50) {
                for k in ["launch", "recover", "fighters", "after"] {
                    v.remove(k);
                }
            }
            if craft_only && rng.chance(70) {
                let m = ["close", "withdraw", "maintain"][rng.below(3)];
                if let Some(e) = rng.pick(&enemies) {
                    let mut p = Table::new();
                    p.insert(m.into(), s(&e));
                    v.insert("primary".into(), Value::Table(p));
                }
            }
            let some = |rng: &mut Rng, ok: &[String], any: &[String], k: usize| -> Vec<String> {
                let mut out: Vec<String> = (0..rng.below(k + 1))
                    .filter_map(|_| if rng.chance(good) { rng.pick(ok) } else { rng.pick(any) })
                    .collect();
                if clean {
                    out.sort();
                    out.dedup();
                }
                out
            };
            // Clean plots launch each group once, in a plot of three tables.
            if rng.chance(50) && (!clean || volleys == 3) {
                let mut l = some(rng, &carried, &all_groups, 3);
                if clean {
                    l.retain(|g| !launched.contains(g));
                    launched.extend(l.iter().cloned());
                }
                v.insert("launch".into(), list(&l));
            }
            if rng.chance(30) {
                let mut r = some(rng, &carried, &all_groups, 2);
                if clean {
                    let l = v.get("launch").and_then(Value::as_array).cloned().unwrap_or_default();
                    r.retain(|g| !l.iter().any(|x| x.as_str() == Some(g)));
                }
                v.insert("recover".into(), list(&r));
            }
            if rng.chance(70) {
                let mut entries = Vec::new();
                for g in some(rng, &own_groups, &all_groups, 4) {
                    let mut e = Table::new();
                    e.insert("group".into(), s(&g));
                    let target = |rng: &mut Rng, ok: &[String]| -> Option<Value> {
                        let any: Vec<String> = all_groups.iter().chain(&enemy_ships).cloned().collect();
                        let t = if rng.chance(good) { rng.pick(ok) } else { rng.pick(&any) };
                        match t {
                            Some(t) => Some(s(&t)),
                            None if clean => None,
                            None => Some(s(&g)),
                        }
                    };
                    let gunboat = names.groups.get(&g).is_some_and(|x| x.2);
                    let no_intercept = names.no_intercept.contains(&g);
                    let action = match rng.below(4) {
                        3 if clean && no_intercept => 0,
                        _ if gunboat && clean => 0,
                        a => a,
                    };
                    let (key, value) = match action {
                        0 => {
                            let pool: Vec<String> = if rng.chance(20) && !(clean && gunboat) {
                                enemy_boats.clone()
                            } else {
                                enemy_ships.clone()
                            };
                            ("attack", target(rng, &pool))
                        }
                        1 => ("dogfight", target(rng, &enemy_groups)),
                        2 => ("screen", target(rng, &own_ships)),
                        _ => ("intercept", Some(Value::Boolean(clean || rng.chance(95)))),
                    };
                    if let Some(value) = value {
                        e.insert(key.into(), value);
                        entries.push(Value::Table(e));
                    }
                }
                v.insert("fighters".into(), Value::Array(entries));
            }
            if (craft_only || (!clean && rng.chance(5))) && rng.chance(50) {
                let mut a = Table::new();
                let m = ["close", "withdraw"][rng.below(2)];
                if let Some(e) = rng.pick(&enemies) {
                    a.insert(m.into(), s(&e));
                    v.insert("after".into(), Value::Table(a));
                }
            }
            // Fire Controls turned on groups by name.
            if let Some(fire) = v.get_mut("fire").and_then(Value::as_array_mut) {
                for entry in fire.iter_mut() {
                    let e = entry.as_table_mut().unwrap();
                    if e.contains_key("target") && rng.chance(20) {
                        let pool = if rng.chance(good) { &enemy_groups } else { &all_groups };
                        if let Some(g) = rng.pick(pool) {
                            e.remove("target");
                            e.insert("group".into(), s(&g));
                        }
                    }
                }
            }
        }
    }
    toml::to_string(&t).expect("serialises")
}

/// Plays `count` Exchanges: the scenario's plot, then standing orders and
/// the default doctrine. Returns the report and the state written back.
fn play(loaded: &Loaded, seed: u64, count: u32) -> (String, String, fam::engine::state::Battle) {
    let header = fam::report::Header {
        title: "case".into(),
        seed,
        exchange: loaded.exchange,
    };
    let first = fam::resolve::battle_plot(loaded, &loaded.battle, 0, count);
    let r = fam::resolve::resolve_battle(
        &header,
        seed,
        &loaded.battle,
        &first,
        &loaded.victory,
        count,
        fam::report::Style::Text,
        true,
        &|b| fam::resolve::battle_plot(loaded, b, 1, count),
    );
    (r.report, r.state, r.battle)
}

fn bases() -> Vec<(String, String, Loaded)> {
    SCENARIOS
        .iter()
        .map(|name| {
            let text = std::fs::read_to_string(repo().join("scenarios").join(name)).unwrap();
            let loaded = build(&text).unwrap_or_else(|r| panic!("{name}: {}", lines(&r).join("\n")));
            (name.to_string(), text, loaded)
        })
        .collect()
}

/// Random small-craft plots are refused with positioned errors or resolve
/// without a panic, the same way twice, over up to three Exchanges.
#[test]
fn random_small_craft_plots_are_refused_or_resolve() {
    let bases = bases();
    let (mut refused, mut played) = (0, 0);
    // FAM_ROBUST_CASES=N runs more cases (a longer hunt by hand).
    let cases = std::env::var("FAM_ROBUST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(240u64);
    for case in 0..cases {
        let mut rng = Rng(case * 7919 + 17);
        let (name, text, base) = &bases[case as usize % bases.len()];
        let scenario = derive(&mut rng, text, base);
        let outcome = catch_unwind(AssertUnwindSafe(|| build(&scenario)));
        let loaded = match outcome {
            Err(_) => panic!("validation panicked on case {case} from {name}:\n{scenario}"),
            Ok(Err(reports)) => {
                let errors: Vec<_> = reports.iter().flat_map(|r| &r.1).filter(|d| d.is_error()).collect();
                assert!(!errors.is_empty(), "case {case}: refused without an error");
                for (source, diags) in &reports {
                    for d in diags {
                        assert!(
                            d.span.end <= source.text.len() && d.span.start <= d.span.end,
                            "case {case}: a diagnostic outside {}: {}",
                            source.name,
                            d.message
                        );
                    }
                }
                refused += 1;
                if std::env::var_os("FAM_DEBUG").is_some() {
                    eprintln!(
                        "case {case} {name}: {}",
                        lines(&reports)
                            .into_iter()
                            .filter(|l| !l.contains("warning"))
                            .take(3)
                            .collect::<Vec<_>>()
                            .join(" | ")
                    );
                }
                continue;
            }
            Ok(Ok(l)) => l,
        };
        played += 1;
        let count = 1 + (case % 3) as u32;
        let seed = rng.next() % 1000;
        let first = catch_unwind(AssertUnwindSafe(|| play(&loaded, seed, count)));
        let Ok(first) = first else {
            panic!("case {case} from {name} panicked at seed {seed}, {count} Exchanges:\n{scenario}");
        };
        if case % 4 == 0 {
            let again = play(&loaded, seed, count);
            assert!(
                first.0 == again.0 && first.1 == again.1,
                "case {case}: not deterministic"
            );
        }
        // Every group's numbers stay within their boxes.
        for u in &first.2.units {
            if let Some(c) = u.craft {
                assert!(
                    c.craft <= c.boxes && c.cef <= c.cef_max,
                    "case {case}: {} {c:?}",
                    u.name
                );
                assert!(
                    !c.docked || c.carrier.is_some(),
                    "case {case}: {} docked nowhere",
                    u.name
                );
            }
        }
    }
    // The generator must exercise both outcomes a good deal.
    assert!(refused >= 30 && played >= 60, "refused {refused}, played {played}");
}

/// The files `fam resolve --out` writes after random small-craft plots
/// (groups launched, lost, re-arming, written back as `SHIP/N` blocks) load
/// again without a warning, their orders templates are the automated
/// commander's plot, and the next Exchange plays from them.
#[test]
fn written_next_exchanges_load_again_after_random_small_craft_plots() {
    let bases = bases();
    let dir = tempfile::tempdir().unwrap();
    let ssd = repo().join("ssd");
    std::fs::write(dir.path().join("boats.gzf"), BOATS_GZF).unwrap();
    let mut checked = 0;
    let mut case = 1000u64;
    while checked < 16 {
        case += 1;
        assert!(case < 1400, "too few valid cases");
        let mut rng = Rng(case * 7919 + 17);
        let (_, base_text, base) = &bases[case as usize % bases.len()];
        let scenario = derive(&mut rng, base_text, base);
        if build(&scenario).is_err() {
            continue;
        }
        // On disk: records by absolute path, boats next to the scenario.
        let mut t: Table = scenario.parse().unwrap();
        for g in t.get_mut("gzf").and_then(Value::as_array_mut).unwrap() {
            let n = Path::new(g.as_str().unwrap())
                .file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .to_string();
            if n != "boats.gzf" {
                *g = s(ssd.join(&n).to_str().unwrap());
            }
        }
        let path = dir.path().join(format!("case{case}.toml"));
        std::fs::write(&path, toml::to_string(&t).unwrap()).unwrap();
        let out = dir.path().join(format!("out{case}"));
        let count = 1 + (case % 3);
        let seed = rng.next() % 1000;
        let r = fam(&[
            "resolve",
            path.to_str().unwrap(),
            "--seed",
            &seed.to_string(),
            "--exchanges",
            &count.to_string(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(
            r.status.success(),
            "case {case}: {}\n{}",
            text(&r.stderr),
            toml::to_string(&t).unwrap()
        );
        let orders: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with("orders-"))
            .collect();
        let next = orders::load_scenario(&out.join("scenario.toml"), &orders, &ParseOptions::default());
        let next = match next {
            Ok(l) => l,
            Err(r) => panic!(
                "case {case}: the written files do not load:\n{}\n{}",
                lines(&r).join("\n"),
                std::fs::read_to_string(out.join("scenario.toml")).unwrap()
            ),
        };
        // The unedited templates: no warning, and the automated commander's plot.
        assert!(
            next.warnings.is_empty(),
            "case {case}: {}",
            lines(&next.warnings).join("\n")
        );
        let doctrine = fam::resolve::battle_plot(&next, &next.battle, 1, 2).plot;
        assert_eq!(
            next.plot, doctrine,
            "case {case}: the template is not the doctrine's plot"
        );
        let fam::resolve::Plotted { plot, sources, .. } = fam::resolve::battle_plot(&next, &next.battle, 0, 1);
        assert!(sources.iter().all(|s| *s != PlotSource::DefaultDoctrine));
        let header = fam::report::Header {
            title: "next".into(),
            seed,
            exchange: next.exchange,
        };
        let played = catch_unwind(AssertUnwindSafe(|| {
            fam::resolve::resolve(&header, &next.battle, &plot, fam::report::Style::Text)
        }));
        assert!(played.is_ok(), "case {case}: the next Exchange panicked");
        checked += 1;
    }
}

/// The play-by-mail cycle with carriers: after Exchange 1 of the carrier
/// strike (groups launched, some lost, some back in their bays re-arming),
/// Exchange 2 resolved from the written files and the unedited templates is
/// Exchange 2 of one continuous run in which the automated commander plays it.
#[test]
fn carrier_strike_resumed_from_written_files_matches_one_continuous_run() {
    let dir = tempfile::tempdir().unwrap();
    for seed in [1u64, 4, 7] {
        let out = dir.path().join(format!("seed{seed}"));
        let o = out.to_str().unwrap();
        let first = fam(&[
            "resolve",
            "scenarios/carrier-strike.toml",
            "--seed",
            &seed.to_string(),
            "--out",
            o,
        ]);
        assert!(first.status.success(), "{}", text(&first.stderr));
        let orders: Vec<String> = ["orders-Oyelaran.toml", "orders-Ilse.toml"]
            .iter()
            .map(|n| out.join(n).to_str().unwrap().to_string())
            .collect();
        let scenario = out.join("scenario.toml");
        let second = fam(&[
            "resolve",
            scenario.to_str().unwrap(),
            "--orders",
            &orders[0],
            "--orders",
            &orders[1],
        ]);
        assert!(second.status.success(), "{}", text(&second.stderr));
        let report = text(&second.stdout);

        let loaded = orders::load_scenario(
            &repo().join("scenarios/carrier-strike.toml"),
            &[],
            &ParseOptions::default(),
        )
        .unwrap();
        let header = fam::report::Header {
            title: loaded.title.clone().unwrap(),
            seed,
            exchange: 1,
        };
        let first = fam::resolve::battle_plot(&loaded, &loaded.battle, 0, 1);
        let both = fam::resolve::resolve_battle(
            &header,
            seed,
            &loaded.battle,
            &first,
            &fam::engine::victory::Victory {
                max_exchanges: 100,
                morale_percent: None,
                triggers: Vec::new(),
            },
            2,
            fam::report::Style::Text,
            true,
            &|b| fam::resolve::battle_plot(&loaded, b, 1, 2),
        );
        assert_eq!(both.exchanges, 2, "seed {seed}: the battle ended in Exchange 1");
        let start = both.report.find("Volley 1").unwrap();
        let second_start = both.report[start..].find("(Exchange 2)").map(|i| i + start).unwrap();
        let continuous = &both.report[second_start..];
        let from_files = &report[report.find("Volley 1").unwrap()..report.find("End of the Exchange").unwrap()];
        assert!(
            continuous.contains(from_files),
            "seed {seed}: Exchange 2 differs between the two ways\n--- from the files\n{from_files}\n--- continuous\n{continuous}"
        );
    }
}

/// A scenario of the Tessaly carrier group against the gunboats of
/// `boats.gzf` (Lances, beam, with the Strays; Harpoons, torpedo, on the
/// carriers' side), every Formation at 0 MU;
/// `strike` and `boats` are the Volley keys of the Strike and Boats plots.
fn gunboat_scenario(strike: &str, boats: &str) -> String {
    format!(
        r#"title = "Boats"
gzf = ["tessaly-carriers.gzf", "boats.gzf"]
start_range = 0

[sides]
A = ["Carrier", "Strike", "Escort"]
B = ["Boats"]

[formations]
Carrier = ["TFP Ember Kiln", "TFP Lantern Wake"]
Strike = ["Cinder Flight", "TFP Ember Kiln/14"]
Escort = ["Harpoons"]
Boats = ["Lances", "Strays"]

[[plot.Carrier.volley]]
speed = 2
evasion = 2
launch = ["Cinder Flight", "TFP Ember Kiln/14"]
[[plot.Carrier.volley]]
speed = 4
evasion = 0
[[plot.Carrier.volley]]
speed = 4
evasion = 0

[[plot.Strike.volley]]
speed = 12
evasion = 0
{strike}

[[plot.Boats.volley]]
{boats}
"#
    )
}

fn unit_id(l: &Loaded, name: &str) -> usize {
    l.battle.units.iter().position(|u| u.name == name).unwrap()
}

/// Fighters plotted `attack = "SQUADRON"` make an attack on the gunboats
/// (reading F24: attack-run dice, each scoring die kills a boat) and the
/// boats they kill are lost; the attack is no attack run on a hull the
/// squadron does not have, and no point-defence threat.
#[test]
fn fighters_plotted_to_attack_gunboats_kill_boats() {
    let l = build(&gunboat_scenario(
        r#"fighters = [{ group = "Cinder Flight", attack = "Lances" }, { group = "TFP Ember Kiln/14", attack = "Lances" }]"#,
        "speed = 9\nevasion = 0",
    ))
    .unwrap_or_else(|r| panic!("{}", lines(&r).join("\n")));
    let lances = unit_id(&l, "Lances");
    let mut killed = 0;
    for seed in 1..=5 {
        let mut b = l.battle.clone();
        let mut rec = Recorder::default();
        let mut dice = fam::engine::dice::Dice::new(seed);
        fam::engine::volley::run_exchange(
            &mut b,
            &l.plot,
            &mut dice,
            &mut rec,
            &mut fam::engine::volley::Scratch::default(),
        );
        let mut kills = 0;
        for roll in rec.events_of::<CraftRoll>() {
            if roll.target == Some(lances) {
                assert_eq!(roll.action, "attack on gunboats", "seed {seed}");
                kills += roll.kills;
            }
        }
        for pd in rec.events_of::<PdAssigned>() {
            assert_ne!(b.units[pd.threat.0].name, "Cinder Flight", "seed {seed}: no PD threat");
        }
        let left = b.units[lances].craft.unwrap().craft;
        assert_eq!(left, 5u32.saturating_sub(kills), "seed {seed}");
        killed += kills;
    }
    assert!(killed > 0, "three Volleys of two groups at 0 MU kill some boats");
}

/// Gunboats attack ships only: a squadron plotted to attack a squadron is
/// refused at its position.
#[test]
fn gunboats_plotted_to_attack_gunboats_are_refused() {
    let text = gunboat_scenario(
        "",
        r#"speed = 9
evasion = 0
fighters = [{ group = "Lances", attack = "Harpoons" }]"#,
    );
    let Err(r) = build(&text) else { panic!("built") };
    let l = lines(&r);
    assert!(
        l.iter()
            .any(|x| x.contains("`Lances` is a gunboat squadron: gunboats attack ships")
                && x.starts_with("scenario.toml:")),
        "{l:?}"
    );
}
