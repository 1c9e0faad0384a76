//! `fam tune` (src/tune.rs): the search for a side's best standing orders
//! and the measure of the default doctrine (docs/doctrine.md, "How good is
//! the default?" and "fam tune"): the same answer on any number of threads,
//! every candidate on the same runs, the confirming stage on fresh runs,
//! finalists ranked and reported consistently, paste-ready tables, axes a
//! side cannot use left out, the measure's grid and rule, and the errors.

use approx::{abs_diff_eq, assert_abs_diff_eq};
use std::collections::BTreeSet;
use std::ops::Range;
use std::sync::OnceLock;

use fam::batch::{self, paired_difference, paired_wins, run_with_outcomes};
use fam::engine::doctrine::{DcKind, Doctrine, EvasionSplit, Movement, Ordnance, PdMode, Selector, WithdrawWhen};
use fam::orders::Loaded;
use fam::tune::{self, Key, MEASURE_MARGIN, Measure, Orders, Point, Space, Tried, Tuned, Verdict};

use crate::orders_write::{must_build, read_shipped};
use crate::support::{fam, repo, text};

// ---- Helpers ----------------------------------------------------------------

fn shipped(name: &str) -> String {
    std::fs::read_to_string(repo().join("scenarios").join(name)).unwrap()
}

fn load(what: &str, scenario: &str) -> Loaded {
    must_build(what, scenario, &[], &mut read_shipped)
}

fn side(l: &Loaded, name: &str) -> usize {
    l.battle.sides.iter().position(|s| s.name == name).unwrap()
}

/// What `fam tune` uses when given `--runs runs` (and `--threads`).
fn options(l: &Loaded, side: usize, runs: u64, threads: Option<usize>) -> tune::Options {
    tune::Options {
        side,
        runs,
        top: 5,
        batch: batch::Options {
            seed: l.seed.unwrap_or(0),
            exchanges: batch::default_exchanges(l),
            threads,
        },
    }
}

fn search(l: &Loaded, opts: &tune::Options) -> Tuned {
    tune::search(l, opts, &|_| {}).unwrap()
}

/// `l` with `orders` for every Formation of `side`, as the search plays it.
fn with_orders(l: &Loaded, side: usize, orders: &Orders) -> Loaded {
    let mut out = l.clone();
    if let Orders::Uniform(d) = orders {
        for f in tune::side_formations(l, side) {
            out.doctrine[f] = Some(d.clone());
        }
    }
    out
}

/// Outcome codes of `l` on `runs`.
fn codes(l: &Loaded, opts: &tune::Options, runs: Range<u64>) -> Vec<u8> {
    run_with_outcomes(l, &opts.batch, runs, &|_| {}).unwrap().1
}

fn count(codes: &[u8], code: u8) -> u64 {
    codes.iter().filter(|&&c| c == code).count() as u64
}

/// The search on the duel for Marek that several tests read: 300
/// confirming runs (screen 100, refinement 200), so the three stages
/// play runs of different lengths, and eight finalists (`--top 8`), enough
/// for some to win as often as others and lose more or less often.
fn duel_marek() -> &'static (Loaded, tune::Options, Tuned) {
    static SEARCH: OnceLock<(Loaded, tune::Options, Tuned)> = OnceLock::new();
    SEARCH.get_or_init(|| {
        let l = load("duel", &shipped("duel.toml"));
        let opts = tune::Options {
            top: 8,
            ..options(&l, side(&l, "Marek"), 300, None)
        };
        let t = search(&l, &opts);
        (l, opts, t)
    })
}

fn assert_same(a: &Tuned, b: &Tuned, what: &str) {
    assert_eq!(
        (a.screened, a.refined, a.screen_runs, a.refine_runs, a.confirm_runs),
        (b.screened, b.refined, b.screen_runs, b.refine_runs, b.confirm_runs),
        "{what}"
    );
    assert_eq!(a.finalists, b.finalists, "{what}: finalists");
    assert_eq!(a.default, b.default, "{what}: default");
    assert_eq!(a.scenario, b.scenario, "{what}: scenario's orders");
}

/// The 95 % Wilson score interval of `k` successes in `n` trials.
fn wilson(k: u64, n: u64) -> [f64; 2] {
    let z = 1.959_963_984_540_054_f64;
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z / denom * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    [(centre - half).max(0.0), (centre + half).min(1.0)]
}

fn pct(x: f64) -> String {
    format!("{:.1}", 100.0 * x)
}

fn signed(x: f64) -> String {
    format!("{:+.1}", 100.0 * x)
}

/// The `[doctrine.*]` tables `fam tune` prints for the best candidate.
fn pasted_tables(table: &str) -> &str {
    let (_, tables) = table
        .split_once("orders file):\n")
        .unwrap_or_else(|| panic!("no tables to paste in\n{table}"));
    assert!(tables.contains("[doctrine."), "{table}");
    tables
}

// ---- 1. Reproducible --------------------------------------------------------

#[test]
fn the_search_gives_the_same_answer_on_one_or_two_threads_and_every_time() {
    let (l, opts, shared) = duel_marek();
    let one = search(
        l,
        &tune::Options {
            batch: batch::Options {
                threads: Some(1),
                ..opts.batch.clone()
            },
            ..opts.clone()
        },
    );
    let two = search(
        l,
        &tune::Options {
            batch: batch::Options {
                threads: Some(2),
                ..opts.batch.clone()
            },
            ..opts.clone()
        },
    );
    assert_same(&one, &two, "1 thread against 2");
    // A second call (the pool's default is 2 threads on CI's 2 cores).
    assert_same(&two, shared, "2 threads against the thread pool's default");

    // The command line on 1 thread: byte for byte the library's answer on
    // the pool's threads.
    let out = fam(&[
        "tune",
        "scenarios/duel.toml",
        "--side",
        "Marek",
        "--runs",
        "300",
        "--top",
        "8",
        "--json",
        "--threads",
        "1",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), tune::json(l, "scenarios/duel.toml", opts, shared));
}

// ---- 2. Common random numbers -----------------------------------------------

#[test]
fn orders_equal_to_the_default_play_exactly_the_default_doctrines_runs() {
    // The duel with Marek's standing orders the default doctrine written out
    // in full: the scenario's own orders are the default in effect.
    let plain = load("duel", &shipped("duel.toml"));
    let marek = side(&plain, "Marek");
    let tables = tune::doctrine_tables(&plain, marek, &Orders::Uniform(Doctrine::default()));
    let l = load(
        "duel with the default written out",
        &format!("{}\n{tables}", shipped("duel.toml")),
    );
    for f in tune::side_formations(&l, marek) {
        assert_eq!(l.doctrine[f], Some(Doctrine::default()));
    }
    let opts = options(&l, marek, 200, None);
    let t = search(&l, &opts);
    let own = t.scenario.as_ref().expect("the scenario's own orders are confirmed");
    assert_eq!(own.orders, Orders::Scenario);
    assert_eq!(own.codes, t.default.codes);
    assert_eq!(
        (own.wins, own.draws, own.losses),
        (t.default.wins, t.default.draws, t.default.losses)
    );
    let (d, _, p) = tune::versus(&t.default, own, marek);
    assert_eq!(d, 0.0);
    assert_eq!((p.n, p.only_a, p.only_b), (t.confirm_runs, 0, 0));
    // Any finalist that is the default doctrine plays the default's runs.
    for f in &t.finalists {
        if f.orders == Orders::Uniform(Doctrine::default()) {
            assert_eq!(f.codes, t.default.codes);
        }
    }
    // The JSON says the same: no difference from the default.
    let json: serde_json::Value = serde_json::from_str(&tune::json(&l, "duel.toml", &opts, &t)).unwrap();
    assert_eq!(json["scenario_orders"]["vs_default"].as_f64(), Some(0.0));
    assert_eq!(json["scenario_orders"]["wins"], json["default"]["wins"]);

    // The measure: the default doctrine given explicitly as a grid point is
    // no different from the default, run by run, for either side.
    for s in 0..plain.battle.sides.len() {
        let opts = options(&plain, s, 300, None);
        let m = tune::measure(&plain, &opts, &[Doctrine::default()], &|_| {}).unwrap();
        let [p] = m.points.as_slice() else { panic!("one point") };
        assert_eq!(p.tried.codes, m.default.codes);
        assert_eq!(p.difference, 0.0);
        assert!(!p.beats(0.0));
    }
}

// ---- 3. Fresh runs ----------------------------------------------------------

#[test]
fn the_confirming_stage_plays_fresh_runs_after_the_refinement() {
    let (l, opts, t) = duel_marek();
    let n = opts.runs;
    // The documented stage sizes: a tenth (at least 100), half (at least
    // 200), and the confirming runs.
    assert_eq!(
        (t.screen_runs, t.refine_runs, t.confirm_runs),
        ((n / 10).max(100), (n / 2).max(200), n)
    );
    let fresh = t.refine_runs..t.refine_runs + t.confirm_runs;
    let code = u8::try_from(opts.side).unwrap();
    let mut rows: Vec<&Tried> = t.finalists.iter().collect();
    rows.push(&t.default);
    rows.extend(t.scenario.as_ref());
    for row in rows {
        let c = codes(&with_orders(l, opts.side, &row.orders), opts, fresh.clone());
        assert_eq!(row.codes, c, "{:?}", row.orders);
        assert_eq!(row.runs(), t.confirm_runs);
        assert_eq!(row.wins, count(&c, code), "{:?}", row.orders);
        assert_eq!(row.draws, count(&c, batch::DRAW), "{:?}", row.orders);
        let losses = c.len() as u64 - row.wins - row.draws - count(&c, batch::UNDECIDED);
        assert_eq!(row.losses, losses, "{:?}", row.orders);
    }
    // The duel has no standing orders: the default doctrine's row is the
    // scenario as it is, on the same runs.
    assert!(t.scenario.is_none());
    assert_eq!(t.default.codes, codes(l, opts, fresh));
    // And those runs are not the ones the first two stages played.
    assert_ne!(t.default.codes, codes(l, opts, 0..t.confirm_runs));
}

// ---- 4. Ranking and what is reported ----------------------------------------

#[test]
fn finalists_are_ranked_by_wins_and_the_json_agrees_with_the_table() {
    let (l, opts, t) = duel_marek();
    assert_eq!(t.finalists.len(), opts.top.min(t.refined));
    assert_eq!(t.screened, tune::screen_grid(&Space::of(l, opts.side)).len());
    for w in t.finalists.windows(2) {
        assert!(
            w[0].wins > w[1].wins || (w[0].wins == w[1].wins && w[0].losses <= w[1].losses),
            "{:?} ranked above {:?}",
            (w[0].wins, w[0].losses),
            (w[1].wins, w[1].losses)
        );
    }

    let json: serde_json::Value = serde_json::from_str(&tune::json(l, "scenarios/duel.toml", opts, t)).unwrap();
    assert_eq!(json["schema"], "fam-tune");
    assert_eq!(json["side"], "Marek");
    assert_eq!(json["seed"].as_u64(), Some(opts.batch.seed));
    assert_eq!(json["screened"].as_u64(), Some(t.screened as u64));
    assert_eq!(json["refined"].as_u64(), Some(t.refined as u64));
    assert_eq!(json["runs"]["screen"].as_u64(), Some(t.screen_runs));
    assert_eq!(json["runs"]["refine"].as_u64(), Some(t.refine_runs));
    assert_eq!(json["runs"]["confirm"].as_u64(), Some(t.confirm_runs));
    assert!(json["scenario_orders"].is_null());
    let finalists = json["finalists"].as_array().unwrap();
    assert_eq!(finalists.len(), t.finalists.len());

    let table = tune::text(l, "scenarios/duel.toml", opts, t);
    let rows: Vec<&str> = table
        .lines()
        .skip_while(|r| !r.starts_with("Rank"))
        .skip(1)
        .take_while(|r| !r.is_empty())
        .collect();
    assert_eq!(rows.len(), t.finalists.len() + 1, "{table}");

    let code = u8::try_from(opts.side).unwrap();
    let mut expected: Vec<(String, &Tried, &serde_json::Value)> = t
        .finalists
        .iter()
        .zip(finalists)
        .enumerate()
        .map(|(i, (f, j))| ((i + 1).to_string(), f, j))
        .collect();
    expected.push(("-".to_string(), &t.default, &json["default"]));
    for ((rank, tried, j), row) in expected.into_iter().zip(&rows) {
        let n = t.confirm_runs;
        assert_eq!(j["runs"].as_u64(), Some(n));
        assert_eq!(j["wins"].as_u64(), Some(tried.wins));
        assert_eq!(j["draws"].as_u64(), Some(tried.draws));
        assert_eq!(j["losses"].as_u64(), Some(tried.losses));
        let rate = j["win_rate"].as_f64().unwrap();
        assert!(
            abs_diff_eq!(rate, tried.wins as f64 / n as f64, epsilon = 1e-9),
            "{row}"
        );
        let ci = [j["win_ci95"][0].as_f64().unwrap(), j["win_ci95"][1].as_f64().unwrap()];
        let w = wilson(tried.wins, n);
        assert!(
            abs_diff_eq!(ci[0], w[0], epsilon = 1e-9) && abs_diff_eq!(ci[1], w[1], epsilon = 1e-9),
            "{ci:?} against {w:?}"
        );
        let (d, dci) = paired_difference(&paired_wins(&t.default.codes, &tried.codes, code));
        assert!(
            abs_diff_eq!(j["vs_default"].as_f64().unwrap(), d, epsilon = 1e-9),
            "{row}"
        );
        assert!(
            abs_diff_eq!(j["vs_default_ci95"][0].as_f64().unwrap(), dci[0], epsilon = 1e-9),
            "{row}"
        );
        assert!(
            abs_diff_eq!(j["vs_default_ci95"][1].as_f64().unwrap(), dci[1], epsilon = 1e-9),
            "{row}"
        );
        assert_eq!(
            j["doctrine"].as_str().unwrap(),
            tune::doctrine_tables(l, opts.side, &tried.orders)
        );

        // The row of the table shows the same numbers.
        let cells: String = row.chars().map(|c| if "[],%".contains(c) { ' ' } else { c }).collect();
        let cells: Vec<&str> = cells.split_whitespace().collect();
        let vs = if rank == "-" {
            vec!["—".to_string()]
        } else {
            vec![signed(d), signed(dci[0]), signed(dci[1])]
        };
        let mut want = vec![
            rank.clone(),
            pct(rate),
            pct(w[0]),
            pct(w[1]),
            pct(tried.draws as f64 / n as f64),
            pct(tried.losses as f64 / n as f64),
        ];
        want.extend(vs);
        assert_eq!(cells[..want.len()], want[..], "{row}");
        let label = j["orders"].as_str().unwrap();
        assert_eq!(label, tune::label(l, &tried.orders));
        assert!(row.ends_with(&format!("  {label}")), "{row} does not end with {label}");
    }
    assert_eq!(json["default"]["orders"], "(the default doctrine)");
    assert_eq!(json["default"]["vs_default"].as_f64(), Some(0.0));
}

// ---- 5. Paste-ready output --------------------------------------------------

/// Appends the tables printed for `best` to `scenario`, and checks that
/// every Formation of `side` gets exactly its doctrine (the others keep
/// theirs) and that a batch with them plays as `best` did on `runs`.
fn check_pasted(
    what: &str,
    scenario: &str,
    l: &Loaded,
    opts: &tune::Options,
    best: &Tried,
    runs: Range<u64>,
    printed: &str,
) {
    let Orders::Uniform(d) = &best.orders else {
        panic!("{what}: the best is a uniform table")
    };
    let tables = pasted_tables(printed);
    let pasted = load(what, &format!("{scenario}\n{tables}"));
    let ours = tune::side_formations(l, opts.side);
    assert!(!ours.is_empty());
    for f in 0..l.battle.formations.len() {
        if ours.contains(&f) {
            assert_eq!(
                pasted.doctrine[f].as_ref(),
                Some(d),
                "{what}: {}",
                l.battle.formations[f].name
            );
        } else {
            assert_eq!(
                pasted.doctrine[f], l.doctrine[f],
                "{what}: {}",
                l.battle.formations[f].name
            );
        }
    }
    let c = codes(&pasted, opts, runs);
    assert_eq!(c, best.codes, "{what}");
    assert_eq!(count(&c, u8::try_from(opts.side).unwrap()), best.wins, "{what}");

    // Into the commander's orders file instead of the scenario: the same.
    let name = &l.battle.sides[opts.side].name;
    let orders = format!("commander = \"{name}\"\nscenario = \"scenario.toml\"\n{tables}");
    let from_file = must_build(
        what,
        scenario,
        &[("orders.toml".to_string(), orders)],
        &mut read_shipped,
    );
    assert_eq!(from_file.doctrine, pasted.doctrine, "{what}: from the orders file");
}

/// What `fam tune` prints for `t` when it recommends the best; when it
/// keeps the default (and prints no tables), the tables it would print.
fn printed_or_tables(l: &Loaded, opts: &tune::Options, t: &Tuned) -> String {
    match t.verdict(opts.side) {
        Verdict::UseBest => tune::text(l, "scenario.toml", opts, t),
        Verdict::KeepDefault => format!(
            "orders file):\n{}",
            tune::doctrine_tables(l, opts.side, &t.finalists[0].orders)
        ),
    }
}

#[test]
fn the_printed_tables_paste_into_the_scenario_and_play_as_the_best_did() {
    let (l, opts, t) = duel_marek();
    let printed = printed_or_tables(l, opts, t);
    let fresh = t.refine_runs..t.refine_runs + t.confirm_runs;
    check_pasted("duel", &shipped("duel.toml"), l, opts, &t.finalists[0], fresh, &printed);

    // A side of three Formations, with orders that change every key the
    // tables write: one table each, all read back as the same doctrine.
    let scenario = shipped("squadron-action.toml");
    let l = load("squadron", &scenario);
    let ilse = side(&l, "Ilse");
    let opts = tune::Options {
        top: 1,
        ..options(&l, ilse, 200, None)
    };
    let d = Doctrine {
        target: Selector::Largest,
        maneuver: Movement::Hold(18),
        evasion: EvasionSplit::Dice(1),
        fire_at: Some(Selector::MostDangerous),
        use_ordnance: Ordnance::Never,
        use_needles: false,
        pd: PdMode::Never,
        withdraw_when: WithdrawWhen::Losses(40),
        damage_control: vec![DcKind::FireControl, DcKind::Beam],
        ..Doctrine::default()
    };
    let m = tune::measure(&l, &opts, std::slice::from_ref(&d), &|_| {}).unwrap();
    let best = m.points[0].tried.clone();
    let tuned = Tuned {
        screened: 1,
        refined: 1,
        screen_runs: opts.runs,
        refine_runs: opts.runs,
        confirm_runs: opts.runs,
        finalists: vec![best.clone()],
        default: m.default.clone(),
        scenario: None,
    };
    let printed = printed_or_tables(&l, &opts, &tuned);
    assert_eq!(pasted_tables(&printed).matches("[doctrine.").count(), 3, "{printed}");
    check_pasted("squadron", &scenario, &l, &opts, &best, 0..opts.runs, &printed);
}

// ---- 6. Axes the side cannot use --------------------------------------------

fn distinct<T: std::fmt::Debug>(xs: impl IntoIterator<Item = T>) -> BTreeSet<String> {
    xs.into_iter().map(|x| format!("{x:?}")).collect()
}

#[test]
fn the_screen_leaves_out_the_axes_a_side_cannot_use() {
    let all_ordnance = distinct([Ordnance::Auto, Ordnance::Always, Ordnance::Never]);
    let all_pd = distinct([PdMode::Auto, PdMode::Never, PdMode::Always]);

    // Neither duellist carries ordnance; Ilse's Meridian ship has class-1
    // beams.
    let duel = load("duel", &shipped("duel.toml"));
    for s in 0..duel.battle.sides.len() {
        let space = Space::of(&duel, s);
        assert!(!space.ordnance, "side {s}");
        let grid = tune::screen_grid(&space);
        assert!(grid.iter().all(|d| d.use_ordnance == Doctrine::default().use_ordnance));
        assert_eq!(distinct(&grid).len(), grid.len());
    }
    let ilse = Space::of(&duel, side(&duel, "Ilse"));
    assert!(ilse.class1);
    assert_eq!(distinct(tune::screen_grid(&ilse).iter().map(|d| d.pd)), all_pd);

    // For a side without ordnance the left-out orders change nothing, run
    // by run.
    let marek = side(&duel, "Marek");
    let opts = options(&duel, marek, 200, None);
    let grid: Vec<Doctrine> = [Ordnance::Always, Ordnance::Never]
        .into_iter()
        .map(|use_ordnance| Doctrine {
            use_ordnance,
            ..Doctrine::default()
        })
        .collect();
    let m = tune::measure(&duel, &opts, &grid, &|_| {}).unwrap();
    for p in &m.points {
        assert_eq!(p.tried.codes, m.default.codes, "{:?}", p.tried.orders);
    }

    // The missile cruisers carry salvo missiles: all three values appear.
    let missiles = load("battleship-vs-missiles", &shipped("battleship-vs-missiles.toml"));
    let space = Space::of(&missiles, side(&missiles, "Marek"));
    assert!(space.ordnance);
    let grid = tune::screen_grid(&space);
    assert_eq!(distinct(grid.iter().map(|d| d.use_ordnance)), all_ordnance);
    let pds = distinct(grid.iter().map(|d| d.pd)).len();
    assert_eq!(grid.len(), 8 * 4 * 3 * pds);
    assert_eq!(distinct(&grid).len(), grid.len());
}

#[test]
fn the_screen_tries_maneuver_targets_only_against_several_enemy_formations() {
    // Against one enemy Formation every selector names it: only the default.
    let duel = load("duel", &shipped("duel.toml"));
    for s in 0..duel.battle.sides.len() {
        let grid = tune::screen_grid(&Space::of(&duel, s));
        assert_eq!(distinct(grid.iter().map(|d| d.target)), distinct([Selector::Auto]));
    }
    // Ilse's three Formations face Pieter's two: the default, largest and most
    // dangerous, each with every other combination of the screen.
    let squadron = load("squadron", &shipped("squadron-action.toml"));
    for name in ["Ilse", "Pieter"] {
        let space = Space::of(&squadron, side(&squadron, name));
        assert!(space.several_enemies, "{name}");
        let grid = tune::screen_grid(&space);
        assert_eq!(
            distinct(grid.iter().map(|d| d.target)),
            distinct([Selector::Auto, Selector::Largest, Selector::MostDangerous]),
            "{name}"
        );
        let rest = |d: &Doctrine| {
            format!(
                "{:?}",
                Doctrine {
                    target: Selector::Auto,
                    ..d.clone()
                }
            )
        };
        for target in [Selector::Auto, Selector::Largest, Selector::MostDangerous] {
            let with: BTreeSet<String> = grid.iter().filter(|d| d.target == target).map(rest).collect();
            let default: BTreeSet<String> = grid.iter().filter(|d| d.target == Selector::Auto).map(rest).collect();
            assert_eq!(with, default, "{name}: {target:?}");
        }
        assert_eq!(distinct(&grid).len(), grid.len());
    }
}

// ---- 7. The measure ---------------------------------------------------------

/// The values of each key of the measure's grid as docs/doctrine.md lists
/// them, each read as a `[doctrine]` table would read it.
fn documented_grid_values() -> Vec<(String, Vec<Doctrine>)> {
    let doc = std::fs::read_to_string(repo().join("docs/doctrine.md")).unwrap();
    let (_, section) = doc.split_once("## How good is the default?").unwrap();
    let base = shipped("duel.toml");
    let plain = load("duel", &base);
    let watch = plain.battle.formations.iter().position(|f| f.name == "Watch").unwrap();
    let mut out = Vec::new();
    for line in section.lines().skip_while(|l| !l.starts_with("| Key")).skip(2) {
        if !line.starts_with('|') {
            break;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let key = cells[1].trim_matches('`').to_string();
        let values: Vec<Doctrine> = cells[2]
            .split('`')
            .skip(1)
            .step_by(2)
            .map(|v| {
                let bare = v.chars().all(|c| c.is_ascii_lowercase() || c == '_') && v != "true" && v != "false";
                let v = if bare { format!("\"{v}\"") } else { v.to_string() };
                let l = load(
                    &format!("{key} = {v}"),
                    &format!("{base}\n[doctrine.Watch]\n{key} = {v}\n"),
                );
                l.doctrine[watch].clone().unwrap()
            })
            .collect();
        out.push((key, values));
    }
    out
}

#[test]
fn the_measure_grid_is_the_documented_126_points_times_the_targets_against_several_formations() {
    let grid = tune::measure_grid();
    assert_eq!(grid.len(), 126);
    assert_eq!(distinct(&grid).len(), 126);

    let values = documented_grid_values();
    let keys: Vec<&str> = values.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["maneuver", "use_ordnance", "pd", "evasion", "target"]);
    let [(_, maneuvers), (_, ordnance), (_, pd), (_, evasion), (_, targets)] = values.as_slice() else {
        unreachable!()
    };
    assert_eq!(maneuvers.len() * ordnance.len() * pd.len() * evasion.len(), 126);
    let documented = |targets: &[Doctrine]| {
        let mut out = BTreeSet::new();
        for t in targets {
            for m in maneuvers {
                for o in ordnance {
                    for p in pd {
                        for e in evasion {
                            out.insert(format!(
                                "{:?}",
                                Doctrine {
                                    target: t.target,
                                    maneuver: m.maneuver,
                                    use_ordnance: o.use_ordnance,
                                    pd: p.pd,
                                    evasion: e.evasion,
                                    ..Doctrine::default()
                                }
                            ));
                        }
                    }
                }
            }
        }
        out
    };
    // Facing one enemy Formation, the target axis is left out.
    assert_eq!(distinct(&grid), documented(&[Doctrine::default()]));
    let duel = load("duel", &shipped("duel.toml"));
    for s in 0..duel.battle.sides.len() {
        let space = Space::of(&duel, s);
        assert!(!space.several_enemies);
        assert_eq!(tune::measure_grid_for(&space), grid);
    }
    // Facing several, every documented target but "nearest", which is the
    // default's own choice without an objective (readings D25).
    let squadron = load("squadron", &shipped("squadron-action.toml"));
    let space = Space::of(&squadron, side(&squadron, "Ilse"));
    assert!(space.several_enemies && !space.objective);
    let several = tune::measure_grid_for(&space);
    assert_eq!(several.len(), 3 * 126);
    let without_nearest: Vec<Doctrine> = targets
        .iter()
        .filter(|d| d.target != Selector::Nearest)
        .cloned()
        .collect();
    assert_eq!(distinct(&several), documented(&without_nearest));
    // With an objective of Ilse's among Pieter's Units, "nearest" too; not
    // for Pieter, whose objective it is not.
    let assault = load(
        "squadron with an objective",
        &format!(
            "{}
[victory]
unit_destroyed = [{{ unit = \"OVM Grandmother Rain\", winner = \"Ilse\" }}]
",
            shipped("squadron-action.toml")
        ),
    );
    let space = Space::of(&assault, side(&assault, "Ilse"));
    assert!(space.objective);
    let objective = tune::measure_grid_for(&space);
    assert_eq!(objective.len(), 4 * 126);
    assert_eq!(distinct(&objective), documented(targets));
    assert!(!Space::of(&assault, side(&assault, "Pieter")).objective);
}

#[test]
fn a_point_beats_the_default_only_by_more_than_the_margin_with_its_interval_above_zero() {
    assert_eq!(MEASURE_MARGIN, 0.05);
    let point = |difference: f64, lower: f64| Point {
        tried: Tried {
            orders: Orders::Uniform(Doctrine::default()),
            codes: Vec::new(),
            wins: 0,
            draws: 0,
            losses: 0,
        },
        difference,
        ci95: [lower, difference + 0.05],
    };
    assert!(point(0.06, 0.01).beats(MEASURE_MARGIN));
    assert!(!point(0.06, -0.005).beats(MEASURE_MARGIN));
    assert!(!point(0.04, 0.01).beats(MEASURE_MARGIN));
    assert!(!point(0.06, 0.0).beats(MEASURE_MARGIN));
    assert!(!point(MEASURE_MARGIN, 0.01).beats(MEASURE_MARGIN));
}

#[test]
fn the_default_doctrine_holds_the_measure_on_the_duel() {
    // Neither duellist carries ordnance (use_ordnance changes nothing for
    // them, see above), so half the grid, `use_ordnance = false`, will do.
    let grid: Vec<Doctrine> = tune::measure_grid()
        .into_iter()
        .filter(|d| d.use_ordnance == Ordnance::Never)
        .collect();
    assert_eq!(grid.len(), 63);
    let l = load("duel", &shipped("duel.toml"));
    for s in 0..l.battle.sides.len() {
        let opts = options(&l, s, 300, None);
        let m = tune::measure(&l, &opts, &grid, &|_| {}).unwrap();
        assert_eq!(m.points.len(), grid.len());
        let code = u8::try_from(s).unwrap();
        let n = opts.runs as f64;
        for w in m.points.windows(2) {
            assert!(w[0].difference >= w[1].difference, "best first");
        }
        for p in &m.points {
            let (d, ci) = paired_difference(&paired_wins(&m.default.codes, &p.tried.codes, code));
            assert_abs_diff_eq!(
                p.difference,
                p.tried.wins as f64 / n - m.default.wins as f64 / n,
                epsilon = 1e-9
            );
            assert_eq!((p.difference, p.ci95), (d, ci));
        }
        let beaten: Vec<String> = m
            .points
            .iter()
            .filter(|p| p.beats(MEASURE_MARGIN))
            .map(|p| {
                format!(
                    "{} ({:+.3}, {:?})",
                    tune::label(&l, &p.tried.orders),
                    p.difference,
                    p.ci95
                )
            })
            .collect();
        assert!(beaten.is_empty(), "side {s}: the default is beaten by {beaten:#?}");
        let said = tune::measure_text(&l, "duel.toml", &opts, &m, 3);
        assert!(said.contains("\nHolds: "), "{said}");
    }
}

// ---- 8. Errors --------------------------------------------------------------

#[test]
fn an_unknown_side_or_no_runs_is_refused_with_exit_2() {
    let out = fam(&["tune", "scenarios/duel.toml", "--side", "Nobody", "--runs", "100"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty());
    for name in ["Nobody", "`Ilse`", "`Marek`"] {
        assert!(stderr.contains(name), "{name} not in {stderr}");
    }
    assert!(!stderr.contains("panicked"), "{stderr}");

    for (bad, named) in [
        (&["--side", "Marek", "--runs", "0"][..], "--runs"),
        (&["--side", "Marek", "--top", "0"], "--top"),
        (&["--runs", "100"], "--side"),
    ] {
        let mut args = vec!["tune", "scenarios/duel.toml"];
        args.extend(bad);
        let out = fam(&args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{bad:?}");
        assert!(stderr.contains(named), "{bad:?}: {named} not in {stderr}");
    }
}

// ---- 9. Refinement: single changes and pairs --------------------------------

#[test]
fn the_refinement_tries_two_changes_together_that_neither_helped_alone() {
    let squadron = load("squadron", &shipped("squadron-action.toml"));
    let space = Space::of(&squadron, side(&squadron, "Pieter"));
    let seed = Doctrine {
        maneuver: Movement::BestRange,
        evasion: EvasionSplit::Third,
        ..Doctrine::default()
    };
    let singles = tune::singles(&seed, &space);
    assert_eq!(distinct(&singles).len(), singles.len());
    for d in &singles {
        assert!(Key::changed(&seed, d).is_some(), "{d:?} changes one key of the seed");
    }
    let close = Doctrine {
        maneuver: Movement::Close,
        ..seed.clone()
    };
    let largest = Doctrine {
        target: Selector::Largest,
        ..seed.clone()
    };
    let both = Doctrine {
        maneuver: Movement::Close,
        target: Selector::Largest,
        ..seed.clone()
    };
    // The screen's keys are revisited one at a time: closing and picking the
    // largest target are both single changes; together they are not.
    assert!(singles.contains(&close) && singles.contains(&largest));
    assert!(!singles.contains(&both));
    for key in [Key::Maneuver, Key::Evasion, Key::Target, Key::FireAt, Key::Withdraw] {
        assert!(
            singles.iter().any(|d| Key::changed(&seed, d) == Some(key)),
            "{key:?} is walked"
        );
    }

    // Say the runs ranked closing first, another maneuver second and the
    // largest target third, every change losing to the seed: the pairs of
    // the best change of each key still put closing with the largest target,
    // and never two maneuvers together.
    let hold = Doctrine {
        maneuver: Movement::Hold(24),
        ..seed.clone()
    };
    let mut ranked = vec![close.clone(), hold.clone(), largest.clone()];
    ranked.extend(
        singles
            .iter()
            .filter(|d| ![&close, &hold, &largest].contains(d))
            .cloned(),
    );
    let pairs = tune::pairs(&seed, &ranked);
    assert_eq!(pairs.first(), Some(&both), "the best two keys first");
    let keys = |d: &Doctrine| {
        [
            d.maneuver != seed.maneuver,
            d.evasion != seed.evasion,
            d.use_ordnance != seed.use_ordnance,
            d.pd != seed.pd,
            d.target != seed.target,
            d.fire_at != seed.fire_at,
            d.use_needles != seed.use_needles,
            d.withdraw_when != seed.withdraw_when,
            d.fighters != seed.fighters,
        ]
        .into_iter()
        .filter(|&changed| changed)
        .count()
    };
    let n = tune::PAIR_KEYS;
    assert_eq!(pairs.len(), n * (n - 1) / 2);
    assert_eq!(distinct(&pairs).len(), pairs.len());
    for p in &pairs {
        assert_eq!(keys(p), 2, "{p:?} changes two keys");
        assert!(!singles.contains(p));
        assert!(p.maneuver == seed.maneuver || p.maneuver == Movement::Close, "{p:?}");
    }
}

#[test]
fn the_progress_told_is_exactly_the_planned_runs() {
    let l = load("duel", &shipped("duel.toml"));
    let opts = options(&l, side(&l, "Ilse"), 100, Some(2));
    let told = std::sync::atomic::AtomicU64::new(0);
    let t = tune::search(&l, &opts, &|n| {
        told.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    })
    .unwrap();
    assert_eq!(told.into_inner(), tune::planned_runs(&l, &opts));
    // Candidates two seeds share are played once.
    assert!(t.refined > 4);
}

// ---- 10. The verdict --------------------------------------------------------

/// Outcome codes of `n` runs: `wins` won by `side`, the rest lost; the
/// default doctrine wins the first runs, other orders the last ones (so
/// that they differ run by run).
fn made_up(side: usize, orders: Orders, wins: u64, n: u64) -> Tried {
    let code = u8::try_from(side).unwrap();
    let other = u8::try_from(1 - side).unwrap();
    let first = orders == Orders::Uniform(Doctrine::default());
    let won = |i: u64| if first { i < wins } else { i >= n - wins };
    let codes: Vec<u8> = (0..n).map(|i| if won(i) { code } else { other }).collect();
    Tried {
        orders,
        codes,
        wins,
        draws: 0,
        losses: n - wins,
    }
}

fn tuned_with(best: Tried, default: Tried) -> Tuned {
    let n = best.runs();
    Tuned {
        screened: 1,
        refined: 1,
        screen_runs: n,
        refine_runs: n,
        confirm_runs: n,
        finalists: vec![best],
        default,
        scenario: None,
    }
}

#[test]
fn when_nothing_beats_the_default_fam_tune_says_keep_it_and_offers_no_tables() {
    let l = load("duel", &shipped("duel.toml"));
    let marek = side(&l, "Marek");
    let opts = options(&l, marek, 200, None);
    let closing = Orders::Uniform(Doctrine {
        maneuver: Movement::Close,
        ..Doctrine::default()
    });
    let default = || Orders::Uniform(Doctrine::default());
    // The best finalist wins a few more runs, too few to show; then as many;
    // then fewer: every time, keep the default.
    for wins in [110, 100, 60] {
        let t = tuned_with(
            made_up(marek, closing.clone(), wins, 200),
            made_up(marek, default(), 100, 200),
        );
        assert_eq!(t.verdict(marek), Verdict::KeepDefault, "{wins}");
        let (d, ci) = t.best_vs_default(marek).unwrap();
        let printed = tune::text(&l, "scenarios/duel.toml", &opts, &t);
        let said = format!(
            "Keep the default doctrine: no standing orders tried beat it (best: {} pp [{}, {}]).",
            signed(d),
            signed(ci[0]),
            signed(ci[1])
        );
        assert!(printed.contains(&said), "{printed}");
        assert!(!printed.contains("[doctrine."), "{printed}");
        assert!(!printed.contains("paste"), "{printed}");
        let json: serde_json::Value = serde_json::from_str(&tune::json(&l, "duel.toml", &opts, &t)).unwrap();
        assert_eq!(json["verdict"], "keep_default");
        assert_eq!(json["version"], 2);
    }
    // One that wins clearly more: play it, with the tables to paste.
    let t = tuned_with(made_up(marek, closing, 150, 200), made_up(marek, default(), 100, 200));
    assert_eq!(t.verdict(marek), Verdict::UseBest);
    let printed = tune::text(&l, "scenarios/duel.toml", &opts, &t);
    assert!(!printed.contains("Keep the default"), "{printed}");
    assert!(pasted_tables(&printed).contains("maneuver = \"close\""), "{printed}");
    let json: serde_json::Value = serde_json::from_str(&tune::json(&l, "duel.toml", &opts, &t)).unwrap();
    assert_eq!(json["verdict"], "use_best");
}

// ---- 11. The measure counts fam tune's pick ---------------------------------

#[test]
fn the_measure_fails_when_fam_tunes_pick_beats_the_default_on_fresh_runs() {
    let l = load("duel", &shipped("duel.toml"));
    let marek = side(&l, "Marek");
    let opts = options(&l, marek, 200, None);
    let closing = Orders::Uniform(Doctrine {
        maneuver: Movement::Close,
        ..Doctrine::default()
    });
    let default = made_up(marek, Orders::Uniform(Doctrine::default()), 100, 200);
    let grid_point = |wins| {
        let tried = made_up(marek, closing.clone(), wins, 200);
        let (difference, ci95, _) = tune::versus(&default, &tried, marek);
        Point {
            tried,
            difference,
            ci95,
        }
    };
    for (grid_wins, pick_wins, holds) in [
        (100, None, true),
        (100, Some(105), true),
        (100, Some(150), false),
        (150, Some(100), false),
    ] {
        let t = pick_wins.map(|w| tuned_with(made_up(marek, closing.clone(), w, 200), default.clone()));
        let m = Measure {
            default: default.clone(),
            points: vec![grid_point(grid_wins)],
            pick: t.as_ref().and_then(|t| tune::pick(t, marek)),
        };
        if let Some(t) = &t {
            let p = m.pick.as_ref().unwrap();
            assert_eq!(p.tried, t.finalists[0]);
            assert_eq!(Some((p.difference, p.ci95)), t.best_vs_default(marek));
        }
        assert_eq!(m.holds(), holds, "{grid_wins} {pick_wins:?}");
        let said = tune::measure_text(&l, "duel.toml", &opts, &m, 3);
        let last = said.lines().last().unwrap();
        assert!(last.starts_with(if holds { "Holds: " } else { "Fails: " }), "{said}");
        assert_eq!(said.contains("fam tune's pick"), t.is_some(), "{said}");
        let json = tune::measure_json(&l, "duel.toml", &opts, &m);
        assert_eq!(json["holds"], holds);
        assert_eq!(json["pick"].is_null(), t.is_none());
    }
}

#[test]
fn fam_tune_measure_reports_the_grid_and_the_confirmed_pick_the_same_on_any_threads() {
    let l = load("duel", &shipped("duel.toml"));
    let marek = side(&l, "Marek");
    let cli = |threads: &str, grid_only: bool| {
        let mut args = vec![
            "tune",
            "scenarios/duel.toml",
            "--measure",
            "--side",
            "Marek",
            "--runs",
            "100",
            "--json",
            "--threads",
            threads,
        ];
        if grid_only {
            args.push("--grid-only");
        }
        let out = fam(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    // On 1 thread; the grid-only run below is on 2 and the library's search
    // on the pool's threads: each part of the answer is compared across
    // thread counts once.
    let one = cli("1", false);
    let json: serde_json::Value = serde_json::from_str(&one).unwrap();
    assert_eq!(json["schema"], "fam-tune-measure");
    let [m] = json["sides"].as_array().unwrap().as_slice() else {
        panic!("one side")
    };
    assert_eq!(m["side"], "Marek");
    assert_eq!(m["points"].as_array().unwrap().len(), 126);
    // The pick is the search's best, against the default on its fresh runs.
    let opts = options(&l, marek, 100, None);
    let t = search(&l, &opts);
    let pick = tune::pick(&t, marek).unwrap();
    assert_eq!(m["pick"]["orders"], tune::label(&l, &pick.tried.orders));
    assert_eq!(m["pick"]["runs"].as_u64(), Some(t.confirm_runs));
    assert_eq!(m["pick"]["vs_default"].as_f64(), Some(pick.difference));
    let beaten = m["points"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["beats"] == true)
        .count();
    assert_eq!(m["beaten_by"].as_u64(), Some(beaten as u64));
    assert_eq!(m["holds"], beaten == 0 && !pick.beats(MEASURE_MARGIN));
    // --grid-only on 2 threads: the same grid, no pick.
    let grid: serde_json::Value = serde_json::from_str(&cli("2", true)).unwrap();
    assert_eq!(grid["sides"][0]["points"], m["points"]);
    assert!(grid["sides"][0]["pick"].is_null());
}
