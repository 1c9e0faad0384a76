//! `fam solve` (src/solve.rs): the exact matrix-game solver on games known
//! by hand, the double oracle on a known game that needs a mix, and the
//! command: the same answer on any number of threads, a small
//! exploitability confirmed on fresh runs, and the scenario it writes.

use std::ops::Range;

use fam::batch::{BatchError, DRAW};
use fam::solve::{self, A, B, Budget, Oracle, solve_matrix};

use crate::support::{fam, text};

// ---- The matrix game ------------------------------------------------------------

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

fn assert_mix(mix: &[f64], want: &[f64]) {
    assert_eq!(mix.len(), want.len(), "{mix:?} against {want:?}");
    assert!(
        mix.iter().zip(want).all(|(x, y)| close(*x, *y)),
        "{mix:?} against {want:?}"
    );
}

#[test]
fn matching_pennies_is_half_and_half_worth_half() {
    let s = solve_matrix(&[vec![1.0, 0.0], vec![0.0, 1.0]]);
    assert_mix(&s.rows, &[0.5, 0.5]);
    assert_mix(&s.cols, &[0.5, 0.5]);
    assert!(close(s.value, 0.5), "{s:?}");
}

#[test]
fn rock_paper_scissors_is_a_third_each() {
    let s = solve_matrix(&[vec![0.0, -1.0, 1.0], vec![1.0, 0.0, -1.0], vec![-1.0, 1.0, 0.0]]);
    let third = 1.0 / 3.0;
    assert_mix(&s.rows, &[third; 3]);
    assert_mix(&s.cols, &[third; 3]);
    assert!(close(s.value, 0.0), "{s:?}");
}

#[test]
fn a_saddle_point_is_played_pure() {
    // Row minima 2, 1, 3; column maxima 5, 3, 6: the saddle is row 3,
    // column 2, worth 3.
    let s = solve_matrix(&[vec![4.0, 2.0, 5.0], vec![3.0, 1.0, 6.0], vec![5.0, 3.0, 4.0]]);
    assert_mix(&s.rows, &[0.0, 0.0, 1.0]);
    assert_mix(&s.cols, &[0.0, 1.0, 0.0]);
    assert!(close(s.value, 3.0), "{s:?}");
}

#[test]
fn dominated_strategies_get_no_weight() {
    // Row 3 is beaten by half of rows 1 and 2 (1.5 > 1 everywhere); column
    // 3 gives the row player more than either of the others.
    let s = solve_matrix(&[vec![3.0, 0.0, 4.0], vec![0.0, 3.0, 4.0], vec![1.0, 1.0, 4.0]]);
    assert_mix(&s.rows, &[0.5, 0.5, 0.0]);
    assert_mix(&s.cols, &[0.5, 0.5, 0.0]);
    assert!(close(s.value, 1.5), "{s:?}");
}

#[test]
fn solutions_of_random_games_are_equilibria() {
    // Neither player gains by any pure deviation from the mixes found.
    for game in 0..200u64 {
        let rows = 1 + (fam::engine::dice::splitmix64(game, 0) % 8) as usize;
        let cols = 1 + (fam::engine::dice::splitmix64(game, 1) % 8) as usize;
        let m: Vec<Vec<f64>> = (0..rows)
            .map(|i| {
                (0..cols)
                    .map(|j| (fam::engine::dice::splitmix64(game, 2 + (i * cols + j) as u64) % 7) as f64 / 6.0)
                    .collect()
            })
            .collect();
        let s = solve_matrix(&m);
        assert!(
            close(s.rows.iter().sum(), 1.0) && close(s.cols.iter().sum(), 1.0),
            "{s:?}"
        );
        assert!(s.rows.iter().chain(&s.cols).all(|&w| w >= 0.0), "{s:?}");
        let row_best = (0..rows)
            .map(|i| (0..cols).map(|j| m[i][j] * s.cols[j]).sum::<f64>())
            .fold(f64::NEG_INFINITY, f64::max);
        let col_best = (0..cols)
            .map(|j| (0..rows).map(|i| m[i][j] * s.rows[i]).sum::<f64>())
            .fold(f64::INFINITY, f64::min);
        assert!(
            close(row_best, s.value) && close(col_best, s.value),
            "game {game}: {m:?} {s:?}"
        );
    }
}

// ---- The double oracle --------------------------------------------------------------

/// A known game: A's payoff of candidate `a` against `b`, as 0, ½ or 1, the
/// same on every run.
struct Known(Vec<Vec<f64>>);

impl Oracle for Known {
    fn candidates(&self, side: usize) -> usize {
        if side == A { self.0.len() } else { self.0[0].len() }
    }

    fn initial(&self, _side: usize) -> Vec<usize> {
        vec![0]
    }

    fn codes(&self, a: usize, b: usize, runs: Range<u64>) -> Result<Vec<u8>, BatchError> {
        let x = self.0[a][b];
        let code = if x > 0.75 {
            0
        } else if x < 0.25 {
            1
        } else {
            DRAW
        };
        Ok(vec![code; (runs.end - runs.start) as usize])
    }
}

/// Rock, paper, scissors (a draw is worth ½), then two strategies that
/// lose to everything.
fn rps_with_losers() -> Known {
    let mut m = vec![vec![0.0; 5]; 5];
    for (a, row) in m.iter_mut().enumerate() {
        for (b, x) in row.iter_mut().enumerate() {
            *x = match (a < 3, b < 3) {
                (true, true) if a == b => 0.5,
                (true, true) if (a + 3 - b) % 3 == 1 => 1.0,
                (true, true) => 0.0,
                (true, false) => 1.0,
                (false, true) => 0.0,
                (false, false) => 0.5,
            };
        }
    }
    Known(m)
}

fn budget() -> Budget {
    Budget {
        screen_runs: 10,
        search_runs: 20,
        finalists: 2,
        rounds: 10,
        strategies: solve::MAX_STRATEGIES,
        margin: 0.01,
    }
}

#[test]
fn the_double_oracle_finds_a_mixed_equilibrium() {
    let game = rps_with_losers();
    let eq = solve::double_oracle(&game, &budget(), &mut |_| {}).unwrap();
    assert!(eq.converged, "{eq:?}");
    assert!(close(eq.value, 0.5), "{eq:?}");
    for side in [A, B] {
        let mut support = eq.support[side].clone();
        support.sort_by_key(|s| s.0);
        let ids: Vec<usize> = support.iter().map(|s| s.0).collect();
        assert_eq!(ids, [0, 1, 2], "{eq:?}");
        assert!(support.iter().all(|s| close(s.1, 1.0 / 3.0)), "{eq:?}");
        assert!(eq.responses[side].gain <= 1e-9, "{eq:?}");
    }
    // Confirmed on fresh runs: no deviation gains, the value is ½.
    let c = solve::confirm(&game, &eq, 20..40).unwrap();
    assert!(close(c.equilibrium.value.mean, 0.5), "{c:?}");
    assert!(c.deviations.iter().all(|d| d.gain.mean <= 1e-9), "{c:?}");
}

#[test]
fn the_double_oracle_stops_at_its_round_limit() {
    let game = rps_with_losers();
    let eq = solve::double_oracle(&game, &Budget { rounds: 1, ..budget() }, &mut |_| {}).unwrap();
    assert!(!eq.converged && eq.rounds == 1, "{eq:?}");
    assert_eq!(eq.sets, [vec![0], vec![0]]);
}

// ---- The command -------------------------------------------------------------------

fn solve_json(extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["solve", "scenarios/duel.toml", "--runs", "100", "--json"];
    args.extend_from_slice(extra);
    let out = fam(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn solve_gives_the_same_answer_on_one_and_four_threads_and_is_hard_to_exploit() {
    let one = solve_json(&["--threads", "1"]);
    let four = solve_json(&["--threads", "4"]);
    assert_eq!(one, four);
    // The weights of each side sum to 1, and no deviation found gains more
    // than 3 points on the fresh runs.
    for side in one["sides"].as_array().unwrap() {
        let weights: f64 = side["strategies"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["weight"].as_f64().unwrap())
            .sum();
        assert!((weights - 1.0).abs() < 1e-9, "{side}");
        let gain = side["best_deviation"]["gain"]["mean"].as_f64().unwrap();
        assert!(gain <= 0.03, "{side}");
    }
    let fresh = &one["runs"]["confirm"];
    assert!(
        fresh[0].as_u64().unwrap() >= one["runs"]["search"].as_u64().unwrap(),
        "{one}"
    );
}

#[test]
fn solve_refuses_a_battle_of_three_sides() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("three.toml");
    let records = crate::support::repo().join("ssd");
    std::fs::write(
        &scenario,
        format!(
            "gzf = [\"{0}/meridian-compact.gzf\", \"{0}/kestrel-reach.gzf\"]\n\
             [sides]\nA = [\"One\"]\nB = [\"Two\"]\nC = [\"Three\"]\n\
             [formations]\nOne = [\"MCS Clear Heading\"]\nTwo = [\"KRD Long Watch\"]\nThree = [\"MCS Small Hours\"]\n",
            records.display()
        ),
    )
    .unwrap();
    let out = fam(&["solve", scenario.to_str().unwrap(), "--runs", "100"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("two sides"), "{}", text(&out.stderr));
}

// ---- The scenario it writes, and mixes -------------------------------------------

/// The duel copied into `dir` with its records named by full path, so that
/// a scenario written beside it loads.
fn duel_in(dir: &std::path::Path) -> std::path::PathBuf {
    let ssd = crate::support::repo().join("ssd");
    let text = std::fs::read_to_string(crate::support::repo().join("scenarios/duel.toml"))
        .unwrap()
        .replace("../ssd", ssd.to_str().unwrap());
    let path = dir.join("duel.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn arg(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn solve_out_writes_a_scenario_that_batch_plays_at_the_same_odds_and_resolve_replays() {
    let dir = tempfile::tempdir().unwrap();
    let duel = duel_in(dir.path());
    let written = dir.path().join("solved.toml");
    let out = fam(&["solve", arg(&duel), "--runs", "100", "--json", "--out", arg(&written)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let solved: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let check = fam(&["check", arg(&written)]);
    assert!(check.status.success(), "{}", text(&check.stderr));
    // The odds `fam batch` plays lie within the solve's interval (widened
    // by the batch's own).
    let batch = fam(&["batch", arg(&written), "--runs", "1000", "--json"]);
    assert!(batch.status.success(), "{}", text(&batch.stderr));
    let batch: serde_json::Value = serde_json::from_slice(&batch.stdout).unwrap();
    for (side, key) in [(0, "a_wins"), (1, "b_wins")] {
        let ours = &solved["equilibrium"][key]["ci95"];
        let theirs = &batch["sides"][side]["ci95"];
        let (lo, hi) = (ours[0].as_f64().unwrap(), ours[1].as_f64().unwrap());
        let (blo, bhi) = (theirs[0].as_f64().unwrap(), theirs[1].as_f64().unwrap());
        assert!(
            blo <= hi && lo <= bhi,
            "{key}: solve [{lo}, {hi}], batch [{blo}, {bhi}]"
        );
    }
    // Every run replays with `fam resolve --seed`: the same draw of the
    // mixes, the same outcome.
    let loaded = fam::orders::load_scenario(&written, &[], &Default::default()).unwrap();
    let options = fam::batch::Options::for_scenario(&loaded, None, None, Some(1));
    let (_, codes) = fam::batch::run_with_outcomes(&loaded, &options, 0..12, &|_| {}).unwrap();
    let mut drawn = std::collections::BTreeSet::new();
    for (run, code) in codes.iter().enumerate() {
        let seed = fam::batch::run_seed(options.seed, run as u64);
        drawn.insert(fam::orders::mix::combination(&loaded.mixes, seed));
        let exchanges = options.exchanges.to_string();
        let r = fam(&[
            "resolve",
            arg(&written),
            "--seed",
            &seed.to_string(),
            "--exchanges",
            &exchanges,
            "--format",
            "json",
        ]);
        assert!(r.status.success(), "{}", text(&r.stderr));
        let r: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
        let replayed = match &r["outcome"] {
            serde_json::Value::Null => fam::batch::UNDECIDED,
            o => o["winner"].as_u64().map_or(DRAW, |w| w as u8),
        };
        assert_eq!(replayed, *code, "run {run}, seed {seed}");
    }
    if !loaded.mixes.is_empty() {
        assert!(drawn.len() > 1, "12 runs all drew the same options: {drawn:?}");
    }
}

#[test]
fn mixes_are_checked_with_positions() {
    let dir = tempfile::tempdir().unwrap();
    let duel = duel_in(dir.path());
    let mut text_of = std::fs::read_to_string(&duel).unwrap();
    text_of.push_str(
        "\n[[mix.Ilse]]\nweight = 0.7\n[mix.Ilse.doctrine.Watch]\nmaneuver = \"close\"\n\
         \n[[mix.Ilse]]\nweight = 0.7\n\
         \n[[mix.Marek]]\n[mix.Marek.doctrine.Watch]\nmaneuver = \"close\"\n\
         \n[[mix.Nobody]]\nweight = 1\n\
         \n[[mix.Mareck]]\nweight = -1\n",
    );
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, &text_of).unwrap();
    let out = fam(&["check", arg(&bad)]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    for want in [
        "Formation `Watch` belongs to `Marek`",
        "the weights of the mix of `Ilse` sum to 1.4",
        "this option has no weight",
        "unknown side `Nobody`",
        "a weight must be a positive number",
    ] {
        assert!(err.contains(want), "missing {want:?} in:\n{err}");
    }
    // Positioned: the misplaced table's line is named.
    let line = text_of.lines().position(|l| l == "[mix.Ilse.doctrine.Watch]").unwrap() + 1;
    assert!(err.contains(&format!("bad.toml:{line}:")), "{err}");
}
