//! `fam batch`, `fam compare`, `fam merge` and the `fam::batch` library:
//! reproducibility (threads, shards, replay by seed, `--until-ci`), the
//! statistics against hand-computed values, flat memory and no allocation
//! per run.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use approx::{abs_diff_eq, assert_abs_diff_eq};
use fam::batch::json::{self, BatchJson};
use fam::batch::stats::{Histogram, Z95, mean_interval, newcombe, wilson};
use fam::batch::{self, BatchError, DRAW, Options, Paired, Tally, UNDECIDED, Worker, run_seed};
use fam::engine::victory::Outcome;
use fam::gzf::ParseOptions;

use crate::support::{fam, repo, resealed, text};

// ---- A counting allocator: allocations made by the current thread. --------

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    /// Bytes asked for, in all (a reallocation counts its new size).
    static BYTES: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded to the system allocator unchanged; the
// counter is a thread-local `Cell` without a destructor.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        let _ = BYTES.try_with(|c| c.set(c.get() + layout.size() as u64));
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        let _ = BYTES.try_with(|c| c.set(c.get() + new_size as u64));
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

pub(crate) fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

/// Bytes the current thread asked the allocator for so far, in all.
pub(crate) fn allocated_bytes() -> u64 {
    BYTES.with(Cell::get)
}

// ---- Helpers ---------------------------------------------------------------

fn load(name: &str) -> fam::orders::Loaded {
    fam::orders::load_scenario(&repo().join("scenarios").join(name), &[], &ParseOptions::default())
        .unwrap_or_else(|_| panic!("{name} loads"))
}

fn options(loaded: &fam::orders::Loaded, threads: Option<usize>) -> Options {
    Options {
        seed: 7,
        exchanges: batch::default_exchanges(loaded),
        threads,
    }
}

fn batch_json(args: &[&str]) -> String {
    let mut all = vec!["batch"];
    all.extend_from_slice(args);
    let out = fam(&all);
    assert!(out.status.success(), "fam {all:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

fn parse(s: &str) -> BatchJson {
    serde_json::from_str(s).expect("batch JSON")
}

// ---- Reproducibility -------------------------------------------------------

#[test]
fn one_thread_and_four_threads_give_identical_json() {
    let args = |t: &'static str| {
        batch_json(&[
            "scenarios/squadron-action.toml",
            "--runs",
            "400",
            "--seed",
            "3",
            "--threads",
            t,
            "--json",
        ])
    };
    let one = args("1");
    let four = args("4");
    assert_eq!(one, four);
    let j = parse(&one);
    assert_eq!(j.runs, 400);
    let decided: u64 = j.sides.iter().map(|s| s.wins).sum::<u64>() + j.draws + j.undecided;
    assert_eq!(decided, 400, "every run is a win, a draw or undecided");
}

#[test]
fn the_library_gives_the_same_tally_for_any_thread_count() {
    let loaded = load("duel.toml");
    let tallies: Vec<Tally> = [Some(1), Some(2), Some(3), None]
        .into_iter()
        .map(|t| batch::run(&loaded, &options(&loaded, t), 0..333, &|_| {}).expect("batch"))
        .collect();
    assert!(tallies.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn a_few_runs_are_spread_over_every_thread_in_small_chunks() {
    // A batch of few, long battles must not sit in one chunk on one core:
    // progress comes chunk by chunk, and every thread gets at least eight
    // chunks when the runs allow, never more than CHUNK runs in one.
    let loaded = load("duel.toml");
    for (runs, threads) in [(40u64, 4usize), (1000, 2)] {
        let reports = std::sync::Mutex::new(Vec::new());
        let progress = |n| reports.lock().unwrap().push(n);
        let tally = batch::run(&loaded, &options(&loaded, Some(threads)), 0..runs, &progress).expect("batch");
        let reports = reports.into_inner().unwrap();
        assert_eq!(reports.iter().sum::<u64>(), runs, "every run reported once");
        assert_eq!(tally.runs, runs);
        assert!(reports.iter().all(|&n| n <= batch::CHUNK), "{reports:?}");
        assert!(reports.len() >= 8 * threads, "{} chunks for {runs} runs", reports.len());
    }
}

/// The code a run's outcome should have, spelled out independently of
/// `batch::outcome_code`.
fn expected_code(outcome: Option<&Outcome>) -> u8 {
    match outcome {
        Some(Outcome::Winner { side, .. }) => u8::try_from(*side).expect("a small side index"),
        Some(Outcome::Draw { .. }) => DRAW,
        None => UNDECIDED,
    }
}

#[test]
fn outcome_codes_are_the_same_for_any_thread_count_and_agree_with_the_tally() {
    let loaded = load("duel.toml");
    // The default cap (every run decided) and one Exchange (most runs
    // undecided); runs from 5, so chunks do not start at run 0.
    for cap in [batch::default_exchanges(&loaded), 1] {
        let opts = |threads| Options {
            exchanges: cap,
            ..options(&loaded, threads)
        };
        let runs = 5..300;
        let (one, codes) = batch::run_with_outcomes(&loaded, &opts(Some(1)), runs.clone(), &|_| {}).unwrap();
        let (two, codes_two) = batch::run_with_outcomes(&loaded, &opts(Some(2)), runs.clone(), &|_| {}).unwrap();
        assert_eq!(codes, codes_two, "cap {cap}");
        assert_eq!(one, two);
        assert_eq!(one, batch::run(&loaded, &opts(Some(2)), runs.clone(), &|_| {}).unwrap());
        assert_eq!(codes.len(), 295);
        // One code per run: each side's wins, the draws and the undecided.
        let count = |code: u8| codes.iter().filter(|c| **c == code).count() as u64;
        for (s, side) in one.sides.iter().enumerate() {
            assert_eq!(count(u8::try_from(s).unwrap()), side.wins, "cap {cap}, side {s}");
        }
        assert_eq!(count(DRAW), one.draws);
        assert_eq!(count(UNDECIDED), one.undecided);
        assert_eq!(
            one.sides.iter().map(|s| s.wins).sum::<u64>() + one.draws + one.undecided,
            295
        );
        if cap == 1 {
            assert!(one.undecided > 0, "one Exchange at 30 MU leaves duels undecided");
        }
        // Element j is run 5 + j, across chunk boundaries too.
        let one_thread = opts(Some(1));
        let first = batch::first_plot(&loaded, &one_thread);
        let mut w = Worker::new(&loaded, &one_thread, &first);
        for j in [0usize, 1, 58, 59, 60, 123, 294] {
            let s = w.run(runs.start + j as u64);
            assert_eq!(codes[j], expected_code(s.outcome.as_ref()), "cap {cap}, run {}", s.run);
        }
    }
}

#[test]
fn paired_wins_count_the_two_by_two_table_of_one_outcome() {
    let a = [0, 1, 0, DRAW, UNDECIDED, 0];
    let b = [0, 0, 1, DRAW, 0, 0, 1];
    // Six pairs (the shorter list); side 0 in both in runs 0 and 5, only in
    // A in run 2, only in B in runs 1 and 4.
    let side0 = batch::paired_wins(&a, &b, 0);
    assert_eq!(
        side0,
        Paired {
            n: 6,
            both: 2,
            only_a: 1,
            only_b: 2
        }
    );
    let draws = batch::paired_wins(&a, &b, DRAW);
    assert_eq!((draws.both, draws.only_a, draws.only_b), (1, 0, 0));
    assert_eq!(batch::paired_wins(&[], &b, 0), Paired::default());
}

#[test]
fn a_battle_with_too_many_sides_for_outcome_codes_is_refused() {
    let mut loaded = load("duel.toml");
    let side = loaded.battle.sides[0].clone();
    loaded.battle.sides.resize(254, side);
    let opts = options(&loaded, Some(1));
    let err = batch::run_with_outcomes(&loaded, &opts, 0..10, &|_| {}).unwrap_err();
    assert!(matches!(err, BatchError::TooManySides(254)), "{err}");
    assert!(err.to_string().contains("254 sides"), "{err}");
}

#[test]
fn notable_runs_replay_with_fam_resolve() {
    let out = batch_json(&["scenarios/duel.toml", "--runs", "300", "--seed", "11", "--json"]);
    let j = parse(&out);
    let k = j.exchanges_cap.to_string();
    let resolve = |seed: u64| {
        let out = fam(&[
            "resolve",
            "scenarios/duel.toml",
            "--seed",
            &seed.to_string(),
            "--exchanges",
            &k,
            "--format",
            "json",
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("result JSON")
    };
    // The longest battle: same length, and decided the same way.
    let longest = j.notable_seeds.longest.as_ref().expect("a longest run");
    assert_eq!(longest.seed, run_seed(11, longest.run));
    assert!(
        longest.command.contains(&format!("--seed {}", longest.seed)),
        "{}",
        longest.command
    );
    let r = resolve(longest.seed);
    assert_eq!(
        r["exchanges"].as_array().unwrap().len() as u32,
        longest.exchanges.unwrap()
    );
    // Each side's first win is a win for that side.
    for w in &j.notable_seeds.wins {
        let Some(first) = &w.first else { continue };
        let r = resolve(first.seed);
        assert_eq!(r["outcome"]["winner"], serde_json::json!(w.side), "{}", first.command);
    }
    // The first run in which a Unit died has it dead.
    for d in &j.notable_seeds.unit_deaths {
        let Some(first) = &d.first else { continue };
        let r = resolve(first.seed);
        let status = r["units"][d.unit]["status"].as_str().unwrap().to_string();
        assert!(status == "destroyed" || status == "derelict", "{}: {status}", d.name);
    }
}

#[test]
fn any_run_replays_with_the_same_outcome_length_and_end_state() {
    // Standing orders and the default doctrine decide the later plots:
    // `resolve::battle_plot` is the one rule both commands play.
    for (name, runs) in [
        ("squadron-action.toml", [0u64, 1, 17]),
        ("standing-orders.toml", [0, 2, 40]),
    ] {
        let loaded = load(name);
        let opts = options(&loaded, Some(1));
        let first = batch::first_plot(&loaded, &opts);
        let mut w = Worker::new(&loaded, &opts, &first);
        let path = format!("scenarios/{name}");
        for run in runs {
            let s = w.run(run);
            let out = fam(&[
                "resolve",
                &path,
                "--seed",
                &s.seed.to_string(),
                "--exchanges",
                &opts.exchanges.to_string(),
                "--format",
                "json",
            ]);
            assert!(out.status.success(), "{}", text(&out.stderr));
            let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(
                r["exchanges"].as_array().unwrap().len() as u32,
                s.exchanges,
                "{name} run {run}"
            );
            let winner = match &s.outcome {
                Some(Outcome::Winner { side, .. }) => serde_json::json!(side),
                _ => serde_json::Value::Null,
            };
            assert_eq!(r["outcome"]["winner"], winner, "{name} run {run}");
            for (u, unit) in w.battle().units.iter().enumerate() {
                assert_eq!(
                    r["units"][u]["hull"][0],
                    serde_json::json!(unit.hull_left()),
                    "{name} run {run}, unit {u}"
                );
            }
        }
    }
}

#[test]
fn run_seeds_follow_the_documented_splitmix64_derivation() {
    // SplitMix64 seeded with 0: its first outputs (Vigna's reference code).
    assert_eq!(run_seed(0, 0), 0xE220_A839_7B1D_CDAF);
    assert_eq!(run_seed(0, 1), 0x6E78_9E6A_A1B9_65F4);
    assert_eq!(run_seed(0, 2), 0x06C4_5D18_8009_454F);
    // Different from the Exchange seeds.
    assert_ne!(run_seed(5, 0), fam::engine::victory::exchange_seed(5, 1));
}

#[test]
fn shards_merge_into_exactly_the_whole_batch() {
    let common = ["scenarios/duel.toml", "--runs", "500", "--seed", "9", "--json"];
    let whole = batch_json(&common);
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    // Written out of order on purpose.
    for k in ["3/3", "1/3", "2/3"] {
        let mut args = common.to_vec();
        args.extend(["--shard", k]);
        let part = batch_json(&args);
        let j = parse(&part);
        assert_eq!(j.shard.as_ref().map(|s| s.count), Some(3));
        let path = dir.path().join(format!("part-{}.json", &k[..1]));
        std::fs::write(&path, part).unwrap();
        files.push(path.display().to_string());
    }
    let mut args = vec!["merge", "--json"];
    args.extend(files.iter().map(String::as_str));
    let out = fam(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), whole);

    // A missing shard is refused.
    let out = fam(&["merge", &files[0], &files[1]]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("missing"), "{}", text(&out.stderr));
    // So is a shard counted twice.
    let out = fam(&["merge", &files[0], &files[1], &files[2], &files[1]]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("twice"), "{}", text(&out.stderr));
}

#[test]
fn shards_of_a_different_seed_do_not_merge() {
    let a = batch::json::parse(&batch_json(&[
        "scenarios/duel.toml",
        "--runs",
        "20",
        "--seed",
        "1",
        "--shard",
        "1/2",
        "--json",
    ]))
    .unwrap();
    let b = batch::json::parse(&batch_json(&[
        "scenarios/duel.toml",
        "--runs",
        "20",
        "--seed",
        "2",
        "--shard",
        "2/2",
        "--json",
    ]))
    .unwrap();
    let err = json::merge(vec![a, b]).unwrap_err();
    assert!(err.contains("base seed"), "{err}");
}

#[test]
fn until_ci_stops_at_the_same_count_every_time_and_not_before_it_must() {
    let loaded = load("duel.toml");
    let opts = options(&loaded, None);
    let width = 0.05;
    let a = batch::run_until_ci(&loaded, &opts, width, 1_000_000, &|_| {}).unwrap();
    let b = batch::run_until_ci(
        &loaded,
        &Options {
            threads: Some(1),
            ..opts.clone()
        },
        width,
        1_000_000,
        &|_| {},
    )
    .unwrap();
    assert_eq!(a, b);
    assert_eq!(a.runs % batch::CI_BLOCK, 0);
    assert!(batch::widest_win_interval(&a) < width);
    if a.runs > batch::CI_BLOCK {
        let before = batch::run(&loaded, &opts, 0..a.runs - batch::CI_BLOCK, &|_| {}).unwrap();
        assert!(
            batch::widest_win_interval(&before) >= width,
            "it did not stop a block early"
        );
    }
    // The cap stops it too.
    let capped = batch::run_until_ci(&loaded, &opts, 0.001, 1, &|_| {}).unwrap();
    assert_eq!(capped.runs, batch::CI_BLOCK, "whole blocks only");
    // Through the command line: the same count and the same statistics.
    let x = parse(&batch_json(&[
        "scenarios/duel.toml",
        "--seed",
        "7",
        "--until-ci",
        "5%",
        "--json",
    ]));
    assert_eq!((x.runs, x.until_ci), (a.runs, Some(0.05)));
    assert_eq!(x.sides[0].wins, a.sides[0].wins);
}

// ---- Checkpoints -------------------------------------------------------------

fn report_json(loaded: &fam::orders::Loaded, opts: &Options, range: std::ops::Range<u64>, tally: Tally) -> String {
    let meta = batch::Meta::new(loaded, "scenarios/squadron-action.toml", opts, range);
    json::render(&batch::Report { meta, tally })
}

#[test]
fn a_batch_interrupted_and_resumed_from_its_checkpoint_equals_a_straight_run() {
    let loaded = load("squadron-action.toml");
    let opts = options(&loaded, Some(3));
    let range = 100..1_100;
    let straight = batch::run(&loaded, &opts, range.clone(), &|_| {}).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("batch.checkpoint");
    let plan = batch::Plan::Runs(range.clone());
    // Stopped after 2 blocks of 150 runs, as by a Ctrl-C between blocks.
    let cp = batch::Checkpoint {
        path: path.clone(),
        block: 150,
        max_blocks: Some(2),
    };
    let part = batch::run_resumable(&loaded, &opts, &plan, &cp, &|_| {}).unwrap();
    assert!(!part.complete);
    assert_eq!((part.tally.runs, part.resumed_from), (300, None));
    assert!(path.exists());
    // Resumed on another thread count and block size, stopped again, then finished.
    let one = Options {
        threads: Some(1),
        ..opts.clone()
    };
    let cp2 = batch::Checkpoint {
        block: 64,
        max_blocks: Some(3),
        ..cp.clone()
    };
    let part2 = batch::run_resumable(&loaded, &one, &plan, &cp2, &|_| {}).unwrap();
    assert_eq!(
        (part2.tally.runs, part2.resumed_from, part2.complete),
        (492, Some(400), false)
    );
    let counted = std::sync::atomic::AtomicU64::new(0);
    let end = batch::run_resumable(&loaded, &opts, &plan, &batch::Checkpoint::at(&path), &|n| {
        counted.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    })
    .unwrap();
    assert!(end.complete);
    assert_eq!(end.resumed_from, Some(592));
    assert_eq!(counted.into_inner(), 1_000, "progress counts the resumed runs too");
    assert_eq!(end.tally, straight);
    assert_eq!(
        report_json(&loaded, &opts, range.clone(), end.tally),
        report_json(&loaded, &opts, range.clone(), straight.clone())
    );
    // A finished checkpoint resumes to the same result without playing.
    let again = batch::run_resumable(&loaded, &opts, &plan, &batch::Checkpoint::at(&path), &|_| {}).unwrap();
    assert_eq!((again.tally, again.resumed_from), (straight, Some(1_100)));
}

#[test]
fn an_until_ci_batch_resumes_to_the_same_count() {
    let loaded = load("duel.toml");
    let opts = options(&loaded, None);
    let straight = batch::run_until_ci(&loaded, &opts, 0.03, 1_000_000, &|_| {}).unwrap();
    assert!(straight.runs > batch::CI_BLOCK, "the test needs several blocks");
    let dir = tempfile::tempdir().unwrap();
    let plan = batch::Plan::UntilCi {
        width: 0.03,
        max_runs: 1_000_000,
    };
    let cp = batch::Checkpoint {
        max_blocks: Some(1),
        ..batch::Checkpoint::at(dir.path().join("cp.json"))
    };
    let part = batch::run_resumable(&loaded, &opts, &plan, &cp, &|_| {}).unwrap();
    assert_eq!((part.tally.runs, part.complete), (batch::CI_BLOCK, false));
    let cp = batch::Checkpoint { max_blocks: None, ..cp };
    let end = batch::run_resumable(&loaded, &opts, &plan, &cp, &|_| {}).unwrap();
    assert!(end.complete);
    assert_eq!(end.tally, straight);
}

#[test]
fn the_command_line_checkpoint_resumes_and_refuses_another_batch() {
    let dir = tempfile::tempdir().unwrap();
    let cp = dir.path().join("cp.json");
    let cp = cp.to_str().unwrap();
    let common = ["scenarios/duel.toml", "--runs", "2500", "--seed", "5", "--json"];
    let straight = batch_json(&common);
    // A checkpoint of the first 1000 runs, as an interrupted batch leaves it.
    let loaded = load("duel.toml");
    let opts = Options {
        seed: 5,
        ..options(&loaded, None)
    };
    let plan = batch::Plan::Runs(0..2_500);
    let partial = batch::Checkpoint {
        max_blocks: Some(1),
        ..batch::Checkpoint::at(cp)
    };
    let part = batch::run_resumable(&loaded, &opts, &plan, &partial, &|_| {}).unwrap();
    assert_eq!(part.tally.runs, 1_000);
    let mut args = common.to_vec();
    args.extend(["--checkpoint", cp]);
    assert_eq!(batch_json(&args), straight);
    // Another seed, run count or scenario: refused, and the file is left alone.
    let before = std::fs::read(cp).unwrap();
    for (other, what) in [
        (
            vec!["scenarios/duel.toml", "--runs", "2500", "--seed", "6"],
            "base seed",
        ),
        (
            vec!["scenarios/duel.toml", "--runs", "3000", "--seed", "5"],
            "run range",
        ),
        (
            vec!["scenarios/squadron-action.toml", "--runs", "2500", "--seed", "5"],
            "scenario",
        ),
    ] {
        let mut args = vec!["batch"];
        args.extend(other);
        args.extend(["--checkpoint", cp]);
        let out = fam(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(err.contains("cannot be resumed") && err.contains(what), "{err}");
    }
    assert_eq!(std::fs::read(cp).unwrap(), before);
    std::fs::write(cp, "not json").unwrap();
    let out = fam(&["batch", "scenarios/duel.toml", "--runs", "10", "--checkpoint", cp]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("not a fam batch checkpoint"),
        "{}",
        text(&out.stderr)
    );
}

// ---- Statistics against hand-computed values -------------------------------

/// P(at least `need` damage) from `dice` beam dice on the unscreened
/// column with penetrating rerolls (ft-rules §1.2, §1.4): 4 and 5 score 1,
/// a 6 scores 2 and grants a reroll die, read the same way, without limit.
/// Exact enumeration over faces, cut off once `need` is reached.
fn p_beam_damage_at_least(dice: u32, need: u32) -> f64 {
    fn go(initial: u32, rerolls: u32, need: u32) -> f64 {
        if need == 0 {
            return 1.0;
        }
        if initial == 0 && rerolls == 0 {
            return 0.0;
        }
        let (initial, rerolls) = if initial > 0 {
            (initial - 1, rerolls)
        } else {
            (0, rerolls - 1)
        };
        (1..=6u8)
            .map(|face| {
                let damage = fam::engine::tables::beam_table(face, 0);
                go(initial, rerolls + u32::from(face == 6), need.saturating_sub(damage)) / 6.0
            })
            .sum()
    }
    go(dice, 0, need)
}

/// A Unit from the Meridian record cut down to its core systems, its Fire
/// Control and one beam battery of class `class`, with no armour and a
/// hull of one row of `hull` boxes.
fn bare_ship(name: &str, side: usize, class: u8, hull: u32) -> fam::engine::state::Unit {
    use fam::gzf::SystemKind;
    let text = std::fs::read_to_string(repo().join("ssd/meridian-compact.gzf")).unwrap();
    let file = fam::gzf::parse(&text, &ParseOptions::default()).file;
    let mut u = fam::engine::state::Unit::from_ship(file.ship("MCS Clear Heading").unwrap(), file.profile, side, side);
    u.name = name.to_string();
    let mut beam = false;
    u.systems.retain(|s| match s.kind {
        SystemKind::Beam { class: c } if c == class && !beam => {
            beam = true;
            true
        }
        SystemKind::FireControl => true,
        ref k => k.is_core(),
    });
    assert!(beam, "the record has a class-{class} battery");
    assert_eq!(u.screen_level(), 0);
    u.armour_total = 0;
    u.armour_lost = 0;
    u.rows = vec![hull];
    u.hull_total = hull;
    u.hull_lost = 0;
    u.crew_boxes.clear();
    u
}

/// A one-Volley duel at 10 MU with nothing to chance but the beam dice:
/// side 0 fires a class-2 battery (2 dice), side 1 a class-1 battery (1
/// die), in Volley 1 only; no screens, armour, Evasion or Speed; each hull
/// is one row of 3 boxes, so a ship is destroyed exactly when it takes 3
/// damage, and no threshold check comes before. One Exchange, no morale
/// rule: a side wins iff it destroys the other and survives; a draw
/// otherwise (both destroyed, or neither at the Exchange limit).
fn closed_form_duel() -> fam::orders::Loaded {
    use fam::engine::plot::{ExchangePlot, FireOrder, FormationPlot, VolleyPlot};
    use fam::engine::state::{Battle, Formation, RangeTable, Side};
    use fam::engine::victory::Victory;
    let mut loaded = load("duel.toml");
    let units = vec![bare_ship("A", 0, 2, 3), bare_ship("B", 1, 1, 3)];
    let battle = Battle {
        sides: (0..2).map(|i| Side { name: format!("S{i}") }).collect(),
        formations: (0..2)
            .map(|f| Formation {
                name: format!("F{f}"),
                side: f,
                units: vec![f],
                reserve: Default::default(),
            })
            .collect(),
        units,
        ranges: RangeTable::new(2, 10),
        rules: loaded.battle.rules.clone(),
    };
    let fire = |u: usize| {
        let sys = &battle.units[u].systems;
        let find = |f: &dyn Fn(&fam::gzf::SystemKind) -> bool| sys.iter().position(|s| f(&s.kind)).unwrap();
        FireOrder {
            unit: u,
            fire_control: find(&|k| *k == fam::gzf::SystemKind::FireControl),
            target: Some(1 - u),
            weapons: vec![find(&|k| matches!(k, fam::gzf::SystemKind::Beam { .. }))],
            needles: Vec::new(),
            group: None,
        }
    };
    let plot = |u: usize| {
        Some(FormationPlot {
            volleys: [
                VolleyPlot {
                    fire: vec![fire(u)],
                    ..VolleyPlot::default()
                },
                VolleyPlot::default(),
                VolleyPlot::default(),
            ],
        })
    };
    loaded.plot = ExchangePlot {
        formations: vec![plot(0), plot(1)],
    }
    .check(&battle)
    .expect("a valid plot");
    loaded.battle = battle;
    loaded.doctrine = vec![None, None];
    loaded.exchange = 1;
    loaded.victory = Victory {
        max_exchanges: 1,
        morale_percent: None,
        triggers: Vec::new(),
    };
    loaded
}

#[test]
fn a_one_volley_duel_wins_as_often_as_its_closed_form_says() {
    let loaded = closed_form_duel();
    let opts = Options {
        seed: 2024,
        exchanges: batch::default_exchanges(&loaded),
        threads: None,
    };
    assert_eq!(opts.exchanges, 1);
    // Exactly: A kills B with 2 dice, B kills A with 1 die (rerolls count).
    let p_a = p_beam_damage_at_least(2, 3);
    let p_b = p_beam_damage_at_least(1, 3);
    assert!(
        abs_diff_eq!(p_b, 1.0 / 12.0, epsilon = 1e-12),
        "one die: a 6, then 4+ ({p_b})"
    );
    // Two dice, 3+ damage: two 6s (1/36), a 6 and a 4 or 5 (4/36), or a 6
    // and a 1-3 (6/36) whose reroll scores (1/2): 8/36.
    assert!(abs_diff_eq!(p_a, 2.0 / 9.0, epsilon = 1e-12), "{p_a}");
    let exact = [p_a * (1.0 - p_b), p_b * (1.0 - p_a)];
    let exact_draw = 1.0 - exact[0] - exact[1];
    let n = 40_000;
    let t = batch::run(&loaded, &opts, 0..n, &|_| {}).unwrap();
    assert_eq!(t.runs, n);
    assert_eq!(t.undecided, 0, "every run ends in a decision");
    let counts = [t.sides[0].wins, t.sides[1].wins, t.draws];
    let probs = [exact[0], exact[1], exact_draw];
    for (k, p) in counts.into_iter().zip(probs) {
        let [lo, hi] = wilson(k, n);
        let rate = k as f64 / n as f64;
        let se = (p * (1.0 - p) / n as f64).sqrt();
        assert!(
            lo <= p && p <= hi,
            "exact {p} outside the Wilson interval [{lo}, {hi}] of {k}/{n}"
        );
        assert!(
            abs_diff_eq!(rate, p, epsilon = 5.0 * se),
            "rate {rate} vs exact {p} (se {se})"
        );
    }
    // The same through the engine alone: one Exchange under `run_battle`.
    let mut scratch = fam::engine::volley::Scratch::default();
    let mut wins = 0u64;
    let m = 2_000u64;
    for i in 0..m {
        let mut b = loaded.battle.clone();
        let r = fam::engine::victory::run_battle(
            &mut b,
            &loaded.victory,
            run_seed(opts.seed, i),
            |_, _| loaded.plot.clone(),
            &mut (),
            &mut scratch,
        );
        wins += u64::from(matches!(r.outcome, Outcome::Winner { side: 0, .. }));
    }
    let batch_wins = batch::run(&loaded, &opts, 0..m, &|_| {}).unwrap().sides[0].wins;
    assert_eq!(wins, batch_wins, "the batch plays what run_battle plays");
}

#[test]
fn wilson_intervals_match_hand_computed_values() {
    // 5 of 10: p = 0.5, z² = 3.8415; centre (0.5 + z²/20)/(1 + z²/10) = 0.5,
    // half-width z/(1 + z²/10)·√(0.025 + z²/400) = 0.26341.
    let [lo, hi] = wilson(5, 10);
    assert!(
        abs_diff_eq!(lo, 0.23659, epsilon = 1e-5) && abs_diff_eq!(hi, 0.76341, epsilon = 1e-5),
        "{lo} {hi}"
    );
    // 0 of 10: [0, z²/(n + z²)] = [0, 0.27753].
    let [lo, hi] = wilson(0, 10);
    assert_eq!(lo, 0.0);
    assert!(
        abs_diff_eq!(hi, Z95 * Z95 / (10.0 + Z95 * Z95), epsilon = 1e-12),
        "{hi}"
    );
    // 9 of 10 mirrors 1 of 10.
    let [a_lo, a_hi] = wilson(1, 10);
    let [b_lo, b_hi] = wilson(9, 10);
    assert!(abs_diff_eq!(a_lo, 1.0 - b_hi, epsilon = 1e-12) && abs_diff_eq!(a_hi, 1.0 - b_lo, epsilon = 1e-12));
    // Newcombe (1998) example (a): 56/70 − 48/80 → [0.0524, 0.3339].
    let (d, [lo, hi]) = newcombe(56, 70, 48, 80);
    assert!(
        abs_diff_eq!(d, 0.2, epsilon = 1e-12)
            && abs_diff_eq!(lo, 0.0524, epsilon = 5e-5)
            && abs_diff_eq!(hi, 0.3339, epsilon = 5e-5)
    );
}

#[test]
fn percentiles_of_histograms_match_hand_computed_values() {
    // Values 5, 7, 7, 9, 12 (nearest rank: rank = max(1, ⌈p·n/100⌉)).
    let mut h = Histogram::new(5, 12);
    for v in [7, 12, 5, 9, 7] {
        h.add(v);
    }
    let p = |q| h.percentile(q).unwrap();
    assert_eq!(p(0), 5); // rank 1
    assert_eq!(p(20), 5); // rank 1
    assert_eq!(p(21), 7); // rank ⌈1.05⌉ = 2
    assert_eq!(p(40), 7); // rank 2
    assert_eq!(p(50), 7); // rank ⌈2.5⌉ = 3
    assert_eq!(p(60), 7); // rank 3
    assert_eq!(p(61), 9); // rank ⌈3.05⌉ = 4
    assert_eq!(p(80), 9); // rank 4
    assert_eq!(p(81), 12); // rank ⌈4.05⌉ = 5
    assert_eq!(p(100), 12);
    assert_eq!((h.min(), h.max(), h.total()), (Some(5), Some(12), 5));
    // Mean 8; deviations −3, −1, −1, 1, 4: variance 28/4 = 7.
    let m = h.mean().unwrap();
    assert!(abs_diff_eq!(m.mean, 8.0, epsilon = 1e-12) && abs_diff_eq!(m.sd, 7f64.sqrt(), epsilon = 1e-12));
    let half = Z95 * 7f64.sqrt() / 5f64.sqrt();
    assert!(
        abs_diff_eq!(m.ci95[0], 8.0 - half, epsilon = 1e-12) && abs_diff_eq!(m.ci95[1], 8.0 + half, epsilon = 1e-12)
    );
    // An even count: the median is the lower middle value.
    let mut e = Histogram::new(1, 4);
    for v in 1..=4 {
        e.add(v);
    }
    assert_eq!(e.percentile(50), Some(2));
    assert_eq!(e.percentile(75), Some(3));
    assert_eq!(e.percentile(76), Some(4));
    // Heavy ties: 90 runs of 3 and 10 of 8.
    let mut t = Histogram::new(1, 10);
    t.add_n(3, 90);
    t.add_n(8, 10);
    assert_eq!(t.percentile(90), Some(3));
    assert_eq!(t.percentile(91), Some(8));
    assert_eq!(Histogram::new(0, 3).percentile(50), None);
    // The mean of a single value has no spread.
    assert_eq!(mean_interval(1, 4, 16).unwrap().ci95, [4.0, 4.0]);
    assert!(mean_interval(0, 0, 0).is_none());
}

#[test]
fn the_json_carries_the_documented_fields_and_consistent_rates() {
    let out = batch_json(&["scenarios/duel.toml", "--runs", "200", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for key in [
        "runs",
        "seed",
        "sides",
        "draws",
        "units",
        "weapons",
        "exchanges",
        "notable_seeds",
        "dice_per_battle",
        "tallies",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["schema"], "fam-batch");
    assert_eq!(v["version"], 1);
    assert_eq!(v["seed"], 1, "the scenario's seed is the default base");
    let j = parse(&out);
    for s in &j.sides {
        assert_abs_diff_eq!(s.win_rate, s.wins as f64 / 200.0, epsilon = 1e-12);
        // JSON numbers read back within a unit in the last place.
        let [lo, hi] = wilson(s.wins, 200);
        approx::assert_relative_eq!(s.ci95[0], lo, max_relative = 1e-12);
        approx::assert_relative_eq!(s.ci95[1], hi, max_relative = 1e-12);
    }
    for u in &j.units {
        let sum = u.destroyed_rate
            + u.surrendered_rate
            + u.withdrawn_rate
            + u.untouched_rate
            + u.crippled_rate
            + u.damaged_rate;
        assert!(
            abs_diff_eq!(sum, 1.0, epsilon = 1e-9),
            "{}: fates add up to {sum}",
            u.name
        );
        assert!(u.mean_hull_damage.unwrap() <= f64::from(u.hull));
    }
    let counted: u64 = j.exchanges.histogram.iter().map(|[_, c]| c).sum();
    assert_eq!(counted, 200);
    assert!(j.dice_per_battle.mean.unwrap() > 0.0);
    // The document reads back into the same report.
    let report = json::parse(&out).unwrap();
    assert_eq!(json::render(&report), out);
}

// ---- Flat memory, no allocation per run ------------------------------------

#[test]
fn the_tally_does_not_grow_with_the_number_of_runs() {
    let loaded = load("squadron-action.toml");
    let opts = options(&loaded, Some(1));
    let empty = Tally::new(&loaded.battle, opts.exchanges);
    let few = batch::run(&loaded, &opts, 0..10, &|_| {}).unwrap();
    let many = batch::run(&loaded, &opts, 0..400, &|_| {}).unwrap();
    assert_eq!(few.heap_bytes(), empty.heap_bytes());
    assert_eq!(many.heap_bytes(), empty.heap_bytes());
    // And the JSON of a tally has a size bounded by the scenario, not N
    // (the histograms are sparse, so it is at most the dense size).
    assert_eq!(many.runs, 400);
}

#[test]
fn a_warm_worker_allocates_nothing_per_run() {
    // One Exchange per run: the first Exchange's plots are made once, so a
    // warm worker must not allocate at all.
    let loaded = load("squadron-action.toml");
    let opts = Options {
        exchanges: 1,
        ..options(&loaded, Some(1))
    };
    let first = batch::first_plot(&loaded, &opts);
    let mut w = Worker::new(&loaded, &opts, &first);
    for run in 0..20 {
        w.run(run);
    }
    let before = allocations();
    for run in 20..220 {
        w.run(run);
    }
    assert_eq!(allocations() - before, 0, "allocations in 200 warm one-Exchange runs");

    // Whole battles: the plots of every Exchange after the first are
    // written into the worker's reused plot memory, so once warm a worker
    // allocates nothing at all, whatever the number of Exchanges.
    for name in [
        "squadron-action.toml",
        "fleet-action.toml",
        "standing-orders.toml",
        "missile-strike.toml",
        "carrier-strike.toml",
        "gunboat-raid.toml",
    ] {
        let loaded = load(name);
        let opts = options(&loaded, Some(1));
        let first = batch::first_plot(&loaded, &opts);
        let mut w = Worker::new(&loaded, &opts, &first);
        for run in 0..300 {
            w.run(run);
        }
        let mut later = 0u64;
        let before = allocations();
        for run in 300..400 {
            later += u64::from(w.run(run).exchanges - 1);
        }
        assert_eq!(
            allocations() - before,
            0,
            "{name}: allocations in 100 warm whole battles"
        );
        assert!(
            later > 0,
            "{name}: no run went past its first Exchange, so no plot was generated"
        );
    }
}

/// Memos handed from batch to batch (`fam tune`'s candidates, `fam solve`'s
/// pairs) change no run: each batch of several standing orders, played
/// after the others warmed the memos, gives the codes it gives on fresh
/// workers, on one thread and on two.
#[test]
fn memos_kept_from_batch_to_batch_change_no_run() {
    use fam::engine::doctrine::{Doctrine, Movement, Selector};
    let plain = load("fleet-action.toml");
    let orders = [
        Doctrine::default(),
        Doctrine {
            maneuver: Movement::Close,
            ..Doctrine::default()
        },
        Doctrine {
            target: Selector::Largest,
            ..Doctrine::default()
        },
    ];
    let with = |d: &Doctrine| {
        let mut l = plain.clone();
        for slot in &mut l.doctrine {
            *slot = Some(d.clone());
        }
        l
    };
    for threads in [1, 2] {
        let opts = options(&plain, Some(threads));
        let memos = batch::Memos::default();
        for d in orders.iter().chain(orders.iter().rev()) {
            let l = with(d);
            let (_, fresh) = batch::run_with_outcomes(&l, &opts, 0..24, &|_| {}).unwrap();
            let (_, kept) = batch::run_with_outcomes_keeping(&l, &opts, 0..24, &|_| {}, &memos).unwrap();
            assert_eq!(kept, fresh, "{d:?} on {threads} threads");
        }
    }
}

// ---- The other outputs -----------------------------------------------------

#[test]
fn the_table_csv_and_picture_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("csv");
    let svg = dir.path().join("duel.svg");
    let out = fam(&[
        "batch",
        "scenarios/duel.toml",
        "--runs",
        "100",
        "--csv",
        csv.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    for needle in [
        "100 runs, base seed 1",
        "95 % interval",
        "Ilse wins",
        "Draw",
        "Exchanges per battle: mean",
        "MCS Clear Heading",
        "Runs to replay",
        "fam resolve scenarios/duel.toml --seed ",
    ] {
        assert!(table.contains(needle), "missing `{needle}` in\n{table}");
    }
    let units = std::fs::read_to_string(csv.join("units.csv")).unwrap();
    assert_eq!(units.lines().count(), 3, "{units}");
    assert!(units.starts_with("id,name,side,"));
    let sides = std::fs::read_to_string(csv.join("sides.csv")).unwrap();
    assert_eq!(sides.lines().count(), 5, "header, two sides, draw, undecided:\n{sides}");
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.starts_with("<svg") && picture.trim_end().ends_with("</svg>"));
    assert!(picture.contains("MCS Clear Heading"));
}

#[test]
fn comparing_a_scenario_with_itself_shows_no_difference() {
    let out = fam(&[
        "compare",
        "scenarios/duel.toml",
        "scenarios/duel.toml",
        "--runs",
        "150",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for s in v["sides"].as_array().unwrap() {
        assert_eq!(s["win_rate"]["difference"], 0.0);
        let ci = s["win_rate"]["ci95"].as_array().unwrap();
        assert!(ci[0].as_f64().unwrap() < 0.0 && ci[1].as_f64().unwrap() > 0.0);
        // Run by run, the same scenario on the same seeds wins the same
        // runs: no run differs, and the paired interval is a sliver of the
        // unpaired one around 0.
        assert_eq!(s["paired_difference"], 0.0);
        assert_eq!(s["paired_counts"]["only_a"], 0);
        assert_eq!(s["paired_counts"]["only_b"], 0);
        assert_eq!(s["verdict"], "no_difference");
        let [lo, hi] = interval(&s["paired_ci95"]);
        assert!(lo <= 0.0 && hi >= 0.0, "[{lo}, {hi}]");
        let [ulo, uhi] = interval(&s["win_rate"]["ci95"]);
        assert!(
            hi - lo < (uhi - ulo) / 4.0,
            "paired [{lo}, {hi}], unpaired [{ulo}, {uhi}]"
        );
    }
    assert_eq!(v["draws_paired"]["paired_difference"], 0.0);
    for u in v["units"].as_array().unwrap() {
        assert_eq!(u["destroyed_rate"]["difference"], 0.0);
        assert_eq!(u["hull_damage_difference"], 0.0);
    }
    let table = fam(&["compare", "scenarios/duel.toml", "scenarios/duel.toml", "--runs", "50"]);
    let table = text(&table.stdout);
    for needle in [
        "B − A [95 %, paired]",
        "Units: B − A",
        "Verdict for Ilse: no difference shown: +0.0 pp [",
        "Verdict for Marek: no difference shown: +0.0 pp [",
    ] {
        assert!(table.contains(needle), "missing `{needle}` in\n{table}");
    }
}

fn interval(v: &serde_json::Value) -> [f64; 2] {
    [v[0].as_f64().unwrap(), v[1].as_f64().unwrap()]
}

/// The duel with Ilse's Class 1 beams left silent (her Fire Control 6
/// fires the Class 3 battery only), in `dir`.
fn duel_without_class_1_fire(dir: &std::path::Path) -> std::path::PathBuf {
    let duel = std::fs::read_to_string(repo().join("scenarios/duel.toml")).unwrap();
    let ssd = format!("{}/", repo().join("ssd").display());
    let changed = duel
        .replace("../ssd/", &ssd)
        .replace("weapons = [8, 11, 12]", "weapons = [8]");
    assert_ne!(changed, duel.replace("../ssd/", &ssd), "the plot was changed");
    let path = dir.join("duel-class-3-only.toml");
    std::fs::write(&path, changed).unwrap();
    path
}

#[test]
fn comparing_two_scenarios_run_by_run_narrows_the_interval() {
    let dir = tempfile::tempdir().unwrap();
    let b = duel_without_class_1_fire(dir.path());
    let b = b.to_str().unwrap();
    let out = fam(&["compare", "scenarios/duel.toml", b, "--runs", "1000", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut changed_runs = 0;
    for (i, s) in v["sides"].as_array().unwrap().iter().enumerate() {
        let c = &s["paired_counts"];
        let count = |k: &str| c[k].as_u64().unwrap();
        // The joint counts add up to each batch's own wins.
        assert_eq!(count("n"), 1000);
        assert_eq!(
            count("both") + count("only_a"),
            v["a"]["sides"][i]["wins"].as_u64().unwrap()
        );
        assert_eq!(
            count("both") + count("only_b"),
            v["b"]["sides"][i]["wins"].as_u64().unwrap()
        );
        changed_runs += count("only_a") + count("only_b");
        // Paired and unpaired, both B − A, agree on the difference; only
        // the interval differs.
        let d = s["paired_difference"].as_f64().unwrap();
        assert_abs_diff_eq!(d, s["win_rate"]["difference"].as_f64().unwrap(), epsilon = 1e-12);
        let [lo, hi] = interval(&s["paired_ci95"]);
        let [ulo, uhi] = interval(&s["win_rate"]["ci95"]);
        assert!(lo <= d && d <= hi, "{d} in [{lo}, {hi}]");
        assert!(hi - lo < uhi - ulo, "paired [{lo}, {hi}] vs unpaired [{ulo}, {uhi}]");
        let verdict = if lo > 0.0 {
            "b_better"
        } else if hi < 0.0 {
            "a_better"
        } else {
            "no_difference"
        };
        assert_eq!(s["verdict"], verdict);
    }
    assert!(changed_runs > 0, "silencing two beams changes some battles");
    let table = fam(&["compare", "scenarios/duel.toml", b, "--runs", "1000"]);
    let table = text(&table.stdout);
    let verdicts: Vec<&str> = table.lines().filter(|l| l.starts_with("Verdict for ")).collect();
    assert_eq!(verdicts.len(), 2, "{table}");
    assert!(verdicts[0].starts_with("Verdict for Ilse: "), "{table}");
    assert!(verdicts[1].starts_with("Verdict for Marek: "), "{table}");
}

#[test]
fn bad_batch_arguments_are_usage_errors() {
    for args in [
        // A shard is a slice of a number of runs.
        vec!["batch", "scenarios/duel.toml", "--shard", "1/2"],
        vec!["batch", "scenarios/duel.toml", "--runs", "10", "--shard", "0/2"],
        vec!["batch", "scenarios/duel.toml", "--runs", "10", "--shard", "3/2"],
        vec!["batch", "scenarios/duel.toml", "--until-ci", "150%"],
        vec!["batch", "scenarios/duel.toml", "--runs", "10", "--threads", "0"],
        vec!["batch", "scenarios/duel.toml", "--runs", "10", "--exchanges", "0"],
        // The flag is bounded as the scenario's `max_exchanges` is (it sized
        // a dense histogram: 4294967295 aborted allocating 34 GB).
        vec![
            "batch",
            "scenarios/duel.toml",
            "--runs",
            "10",
            "--exchanges",
            "4294967295",
        ],
        vec!["batch", "scenarios/duel.toml", "--runs", "10", "--exchanges", "1001"],
        vec!["resolve", "scenarios/duel.toml", "--exchanges", "1001"],
        vec!["resolve", "scenarios/duel.toml", "--exchanges", "0"],
        // One outcome code per run must fit in memory before the first run.
        vec![
            "compare",
            "scenarios/duel.toml",
            "scenarios/duel.toml",
            "--runs",
            "18446744073709551615",
        ],
    ] {
        let out = fam(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stderr));
    }
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{}").unwrap();
    let out = fam(&["merge", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("bad.json"), "{}", text(&out.stderr));
    // Tallies that do not add up are refused.
    let mut v: serde_json::Value =
        serde_json::from_str(&batch_json(&["scenarios/duel.toml", "--runs", "10", "--json"])).unwrap();
    v["tallies"]["draws"] = serde_json::json!(v["tallies"]["draws"].as_u64().unwrap() + 1);
    let err = json::parse(&v.to_string()).unwrap_err();
    assert!(err.contains("digest does not match"), "{err}");
    let err = json::parse(&resealed(&v.to_string()).unwrap()).unwrap_err();
    assert!(err.contains("do not add up"), "{err}");
}

/// Damage dealt by weapon kind: each side's weapons get the damage points
/// they scored, by kind, and nothing appears for kinds a side does not carry.
#[test]
fn damage_is_counted_by_the_kind_of_weapon_that_scored_it() {
    let v: serde_json::Value = serde_json::from_str(&batch_json(&[
        "scenarios/missile-strike.toml",
        "--runs",
        "300",
        "--json",
    ]))
    .unwrap();
    let sides = v["sides"].as_array().unwrap();
    let by_name = |name: &str| {
        sides
            .iter()
            .find(|s| s["name"] == name)
            .map(|s| s["damage_by_kind"].clone())
            .unwrap()
    };
    // The Kestrel side (Halloran) carries salvo and heavy missiles, no torpedoes or needles.
    let kestrel = by_name("Commodore Halloran");
    assert!(kestrel["salvo_missile"].as_f64().unwrap() > 0.0, "{kestrel}");
    assert!(kestrel["beam"].as_f64().unwrap() > 0.0, "{kestrel}");
    assert_eq!(kestrel["torpedo"].as_f64(), Some(0.0));
    assert_eq!(kestrel["needle"].as_f64(), Some(0.0));
    // The Meridian side (Varga) carries torpedoes and needles, no missiles.
    let meridian = by_name("Admiral Varga");
    assert!(meridian["torpedo"].as_f64().unwrap() > 0.0, "{meridian}");
    assert_eq!(meridian["salvo_missile"].as_f64(), Some(0.0));
    assert_eq!(meridian["heavy_missile"].as_f64(), Some(0.0));
    // A beam duel scores with beams (and possibly reactor blasts, and PDS
    // the default doctrine aims at a ship stripped of armour within 6 MU).
    let duel: serde_json::Value =
        serde_json::from_str(&batch_json(&["scenarios/duel.toml", "--runs", "200", "--json"])).unwrap();
    for s in duel["sides"].as_array().unwrap() {
        let d = &s["damage_by_kind"];
        for kind in ["torpedo", "salvo_missile", "heavy_missile", "submunition", "needle"] {
            assert_eq!(d[kind].as_f64(), Some(0.0), "{kind} in a beam duel: {d}");
        }
        assert!(d["beam"].as_f64().unwrap() > 0.0);
    }
}

// ---- Idle weapons ------------------------------------------------------------

/// A batch of `runs` runs of `loaded` (seed 7, one thread), as a report.
fn report_of(loaded: &fam::orders::Loaded, name: &str, runs: u64) -> batch::Report {
    let opts = options(loaded, Some(1));
    let tally = batch::run(loaded, &opts, 0..runs, &|_| {}).unwrap();
    let meta = batch::Meta::new(loaded, name, &opts, 0..runs);
    batch::Report { meta, tally }
}

fn side_id(loaded: &fam::orders::Loaded, name: &str) -> usize {
    loaded.battle.sides.iter().position(|s| s.name == name).unwrap()
}

/// Salvo launchers and racks, heavy missiles and submunition packs.
fn is_ordnance(kind: &fam::gzf::SystemKind) -> bool {
    use fam::gzf::SystemKind as K;
    matches!(kind, K::Sml | K::Smr | K::Missile { .. } | K::SubmunitionPack)
}

/// The (Unit, system) of every weapon of `side` whose kind passes `keep`.
fn weapons_of(
    loaded: &fam::orders::Loaded,
    side: usize,
    keep: fn(&fam::gzf::SystemKind) -> bool,
) -> Vec<(usize, usize)> {
    batch::tally::tracked_weapons(&loaded.battle)
        .filter(|(u, w)| {
            let unit = &loaded.battle.units[*u];
            unit.side == side && keep(&unit.systems[*w].kind)
        })
        .collect()
}

/// The Kestrel side of the fleet action holds its ordnance in Exchange 1
/// (its plots list beams only) and the default doctrine never fires
/// ordnance: every missile, launcher, rack and pack of that side is listed
/// idle, never plotted, in the library, the table and the JSON; the beams
/// the plots fire are not.
#[test]
fn ordnance_no_plot_assigns_is_reported_idle_and_never_plotted() {
    // The Kestrel Formations hold their ordnance by standing orders.
    let mut loaded = load("fleet-action.toml");
    let kestrel = side_id(&loaded, "Commodore Halloran");
    for f in 0..loaded.battle.formations.len() {
        if loaded.battle.formations[f].side == kestrel {
            loaded.doctrine[f] = Some(fam::engine::doctrine::Doctrine {
                use_ordnance: fam::engine::doctrine::Ordnance::Never,
                ..fam::engine::doctrine::Doctrine::default()
            });
        }
    }
    let ordnance = weapons_of(&loaded, kestrel, is_ordnance);
    assert!(ordnance.len() >= 4, "the Kestrel fleet carries ordnance");
    let report = report_of(&loaded, "scenarios/fleet-action.toml", 300);
    let idle = batch::idle::idle_weapons(&report, kestrel);
    for (u, w) in &ordnance {
        let found = idle.iter().find(|i| (i.info.unit, i.info.system) == (*u, *w));
        let name = &loaded.battle.units[*u].name;
        let i = found.unwrap_or_else(|| panic!("{name} #{} is not listed idle", w + 1));
        assert_eq!((i.tally.plotted, i.tally.fired), (0, 0), "{name} #{}", w + 1);
        let reason = i.reason.as_deref().unwrap_or_default();
        assert!(
            reason.starts_with(batch::idle::NEVER_PLOTTED) && reason.ends_with("use_ordnance = false)"),
            "{name} #{}: {reason}",
            w + 1
        );
    }
    // The plots fire every beam battery: one idle is out of range or
    // kept defending, never unplotted.
    for side in 0..loaded.battle.sides.len() {
        for i in batch::idle::idle_weapons(&report, side) {
            let kind = &loaded.battle.units[i.info.unit].systems[i.info.system].kind;
            if matches!(kind, fam::gzf::SystemKind::Beam { .. }) {
                assert!(
                    i.tally.plotted > 0,
                    "{} #{} never plotted",
                    i.info.kind,
                    i.info.system + 1
                );
            }
        }
    }

    let table = batch::text::table(&report);
    let section = &table[table.find("Idle weapons").expect("an idle-weapons section")..];
    for (u, w) in &ordnance {
        let unit = &loaded.battle.units[*u];
        let row = section
            .lines()
            .find(|l| {
                let cells: Vec<&str> = l.split_whitespace().collect();
                l.trim_start().starts_with(&unit.name) && cells.contains(&(w + 1).to_string().as_str())
            })
            .unwrap_or_else(|| panic!("no row for {} #{} in\n{section}", unit.name, w + 1));
        assert!(row.contains(&unit.systems[*w].kind.name(unit.profile)), "{row}");
        assert!(row.contains("0.0 %") && row.contains("never plotted"), "{row}");
    }
    // The note counts every weapon of the side that never fired (the
    // ordnance, and any other, e.g. the freighter's beam kept out of range).
    let never = batch::idle::idle_weapons(&report, kestrel)
        .iter()
        .filter(|i| i.tally.fired == 0 && !batch::idle::lacked_threats(i.info, i.tally))
        .count();
    assert!(never >= ordnance.len());
    // "...never fired; the odds..." or "...never fired and K fired in under
    // 1 % of the runs; the odds...", as the runs fall.
    let note = format!("Note: {never} weapons of Commodore Halloran never fired");
    let line = section
        .lines()
        .find(|l| l.starts_with(&note))
        .unwrap_or_else(|| panic!("missing `{note}` in\n{section}"));
    assert!(line.contains("the odds above assume they stay idle"), "{line}");

    let j = parse(&json::render(&report));
    let listed = &j.sides[kestrel].idle_weapons;
    for (u, w) in &ordnance {
        let e = listed
            .iter()
            .find(|e| e.unit_id == *u && e.system == w + 1)
            .expect("listed in the JSON");
        assert_eq!(e.unit, loaded.battle.units[*u].name);
        assert_eq!((e.fired_share, e.plotted_runs, e.fired_runs), (0.0, 0, 0));
        assert!(e.reason.as_deref().is_some_and(|r| r.starts_with("never plotted")));
    }
}

/// The missile strike fires its ordnance by plot: no ordnance weapon is
/// idle, each fired in some run, and the table's notes name no idle
/// weapon of that side besides point defence with nothing to shoot at.
#[test]
fn ordnance_the_plots_fire_is_not_idle() {
    let loaded = load("missile-strike.toml");
    let kestrel = side_id(&loaded, "Commodore Halloran");
    let ordnance = weapons_of(&loaded, kestrel, is_ordnance);
    assert!(ordnance.len() >= 4, "the Kestrel squadron carries ordnance");
    let report = report_of(&loaded, "scenarios/missile-strike.toml", 300);
    let idle = batch::idle::idle_weapons(&report, kestrel);
    for (u, w) in &ordnance {
        assert!(
            !idle.iter().any(|i| (i.info.unit, i.info.system) == (*u, *w)),
            "{} #{} is listed idle",
            loaded.battle.units[*u].name,
            w + 1
        );
        let t = report
            .tally
            .weapons
            .iter()
            .find(|t| (t.unit, t.system) == (*u, *w))
            .unwrap();
        assert!(t.plotted > 0 && t.fired > 0, "{t:?}");
    }
    for i in &idle {
        assert!(batch::idle::lacked_threats(i.info, i.tally), "{:?}", i.info);
    }
    let table = batch::text::table(&report);
    assert!(!table.contains("never plotted"), "{table}");
    assert!(!table.contains("weapons of Commodore Halloran never fired"), "{table}");
}

/// With `[doctrine]` standing orders that hold ordnance and needles, the
/// reason names them (`plot_reason`); standing orders that use ordnance
/// plot it, and no reason blames them.
#[test]
fn standing_orders_that_hold_weapons_are_named_as_the_reason() {
    use fam::engine::doctrine::Doctrine;
    use fam::gzf::SystemKind;
    let hold = Doctrine {
        use_ordnance: fam::engine::doctrine::Ordnance::Never,
        use_needles: false,
        ..Doctrine::default()
    };
    assert_eq!(
        batch::idle::plot_reason(&hold, "standing orders of Salvo", &SystemKind::Smr).as_deref(),
        Some("standing orders of Salvo: use_ordnance = false")
    );
    assert_eq!(
        batch::idle::plot_reason(&hold, "standing orders of Lances", &SystemKind::NeedleBeam).as_deref(),
        Some("standing orders of Lances: use_needles = false")
    );
    assert_eq!(
        batch::idle::plot_reason(&hold, "standing orders of Lances", &SystemKind::Beam { class: 2 }),
        None
    );
    // The default doctrine waits for its target to be surely in reach.
    let auto = batch::idle::plot_reason(&Doctrine::default(), "default doctrine of Salvo", &SystemKind::Sml);
    assert!(auto.is_some_and(|r| r.starts_with("default doctrine of Salvo: ordnance waits")));
    let fire = Doctrine {
        use_ordnance: fam::engine::doctrine::Ordnance::Always,
        use_needles: true,
        ..Doctrine::default()
    };
    assert_eq!(batch::idle::plot_reason(&fire, "Salvo", &SystemKind::Sml), None);
    assert_eq!(batch::idle::plot_reason(&fire, "Salvo", &SystemKind::NeedleBeam), None);

    // Every Formation of the fleet action under standing orders that hold
    // ordnance and needles: the reason names them.
    let mut loaded = load("fleet-action.toml");
    loaded.doctrine = vec![Some(hold); loaded.battle.formations.len()];
    let kestrel = side_id(&loaded, "Commodore Halloran");
    let report = report_of(&loaded, "scenarios/fleet-action.toml", 200);
    let idle = batch::idle::idle_weapons(&report, kestrel);
    let ordnance = weapons_of(&loaded, kestrel, is_ordnance);
    for (u, w) in &ordnance {
        let i = idle.iter().find(|i| (i.info.unit, i.info.system) == (*u, *w)).unwrap();
        let formation = &loaded.battle.formations[loaded.battle.units[*u].formation].name;
        let want = format!("never plotted (standing orders of {formation}: use_ordnance = false)");
        assert_eq!(i.reason.as_deref(), Some(want.as_str()));
    }
    let needles = weapons_of(&loaded, side_id(&loaded, "Admiral Varga"), |k| {
        *k == SystemKind::NeedleBeam
    });
    assert!(!needles.is_empty(), "the Meridian cruisers carry a needle beam");
    let meridian = batch::idle::idle_weapons(&report, side_id(&loaded, "Admiral Varga"));
    for (u, w) in &needles {
        let i = meridian
            .iter()
            .find(|i| (i.info.unit, i.info.system) == (*u, *w))
            .unwrap();
        assert!(
            i.reason.as_deref().unwrap().ends_with("use_needles = false)"),
            "{:?}",
            i.reason
        );
    }

    // Standing orders that use ordnance: the Kestrel ordnance gets plotted.
    for (f, d) in loaded.doctrine.iter_mut().enumerate() {
        if loaded.battle.formations[f].side == kestrel {
            *d = Some(fire.clone());
        }
    }
    let report = report_of(&loaded, "scenarios/fleet-action.toml", 200);
    let plotted = report
        .tally
        .weapons
        .iter()
        .filter(|t| ordnance.contains(&(t.unit, t.system)) && t.plotted > 0)
        .count();
    assert!(plotted > 0, "no Kestrel ordnance was plotted under use_ordnance = true");
    for i in batch::idle::idle_weapons(&report, kestrel) {
        let why = i.reason.unwrap_or_default();
        assert!(!why.contains("standing orders"), "{why}");
    }
}

/// Weapon-use counts add up exactly: the same for one and two threads, for
/// shards merged (in the library and through their JSON) and the whole.
#[test]
fn weapon_use_counts_agree_for_any_thread_count_and_shard_split() {
    let loaded = load("fleet-action.toml");
    let one = options(&loaded, Some(1));
    let two = options(&loaded, Some(2));
    let whole = batch::run(&loaded, &one, 0..300, &|_| {}).unwrap();
    assert_eq!(whole, batch::run(&loaded, &two, 0..300, &|_| {}).unwrap());
    let w = &whole.weapons;
    assert!(w.iter().any(|t| t.fired > 0) && w.iter().any(|t| t.out_of_range > 0));
    assert!(w.iter().any(|t| t.fired == 0) && w.iter().any(|t| t.stopped > 0));
    assert!(w.iter().all(|t| t.fired <= whole.runs && t.plotted <= whole.runs));

    let render = |range: std::ops::Range<u64>| {
        let tally = batch::run(&loaded, &two, range.clone(), &|_| {}).unwrap();
        let meta = batch::Meta::new(&loaded, "scenarios/fleet-action.toml", &one, range);
        json::render(&batch::Report { meta, tally })
    };
    let parts = vec![
        json::parse(&render(170..300)).unwrap(),
        json::parse(&render(0..170)).unwrap(),
    ];
    let mut merged = parts[1].tally.clone();
    merged.merge(&parts[0].tally).unwrap();
    assert_eq!(merged, whole);
    assert_eq!(json::render(&json::merge(parts).unwrap()), render(0..300));
}

/// A file written before fam counted weapon use still reads (with no idle
/// section), but does not merge with one that counts it, and an old
/// checkpoint is refused rather than resumed with counts missing.
#[test]
fn files_from_before_weapon_use_was_counted_are_read_or_refused_clearly() {
    let common = ["scenarios/duel.toml", "--runs", "40", "--json"];
    let mut first = common.to_vec();
    first.extend(["--shard", "1/2"]);
    let mut old: serde_json::Value = serde_json::from_str(&batch_json(&first)).unwrap();
    let o = old.as_object_mut().unwrap();
    // Nor did fam write digests then.
    o.remove("digest");
    o.remove("weapons");
    o["tallies"].as_object_mut().unwrap().remove("weapons");
    for s in o["sides"].as_array_mut().unwrap() {
        s.as_object_mut().unwrap().remove("idle_weapons");
    }
    let old = json::parse(&old.to_string()).expect("an older file reads");
    assert!(old.meta.weapons.is_empty());
    assert!(!batch::text::table(&old).contains("Idle weapons"));
    let mut second = common.to_vec();
    second.extend(["--shard", "2/2"]);
    let new = json::parse(&batch_json(&second)).unwrap();
    let err = json::merge(vec![old, new]).unwrap_err();
    assert!(err.contains("weapon use"), "{err}");

    let loaded = load("duel.toml");
    let opts = options(&loaded, Some(1));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cp.json");
    let plan = batch::Plan::Runs(0..300);
    let cp = batch::Checkpoint {
        path: path.clone(),
        block: 100,
        max_blocks: Some(1),
    };
    batch::run_resumable(&loaded, &opts, &plan, &cp, &|_| {}).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    v["version"] = serde_json::json!(1);
    v["tallies"].as_object_mut().unwrap().remove("weapons");
    std::fs::write(&path, v.to_string()).unwrap();
    let err = batch::run_resumable(&loaded, &opts, &plan, &cp, &|_| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("version 1") && err.contains("older fam"), "{err}");
}

// ---- The top of the run indices (issue 14) ---------------------------------

/// Runs `fam` and waits at most `secs` seconds for it: a batch that never
/// ends fails the test instead of hanging it. Output goes to files, so a
/// full pipe cannot stall it.
fn fam_within(secs: u64, args: &[&str]) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let (out, err) = (dir.path().join("out"), dir.path().join("err"));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_fam"))
        .args(args)
        .current_dir(repo())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .expect("run fam");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("fam {args:?} did not end within {secs} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    std::process::Output {
        status,
        stdout: std::fs::read(out).unwrap(),
        stderr: std::fs::read(err).unwrap(),
    }
}

/// `⌊runs·k/n⌋`, the first run of shard `k + 1` of `n` (docs/batch-json.md).
fn shard_start(runs: u64, k: u64, n: u64) -> u64 {
    u64::try_from(u128::from(runs) * u128::from(k) / u128::from(n)).unwrap()
}

#[test]
fn a_shard_at_the_top_of_the_run_indices_plays_exactly_its_runs() {
    let max = u64::MAX.to_string();
    // The last of N = 2^64 − 1 shards is one run, the last of N = ⌊max/100⌋
    // about a hundred, over two chunks of 64.
    for n in [u64::MAX, u64::MAX / 100] {
        let shard = format!("{n}/{n}");
        let args = [
            "scenarios/duel.toml",
            "--runs",
            &max,
            "--shard",
            &shard,
            "--seed",
            "3",
            "--json",
        ];
        let straight = batch_json(&args);
        let j = parse(&straight);
        let start = shard_start(u64::MAX, n - 1, n);
        assert_eq!(j.run_range, [start, u64::MAX], "shard {shard}");
        assert_eq!((j.runs, j.tallies.runs), (u64::MAX - start, u64::MAX - start));
        assert_eq!(j.exchanges.histogram.iter().map(|[_, c]| c).sum::<u64>(), j.runs);
        let longest = j.notable_seeds.longest.expect("a longest run");
        assert!(longest.run >= start, "{}", longest.run);
        assert_eq!(longest.seed, run_seed(3, longest.run));

        // With a checkpoint: it ends, prints the same, and a second start
        // resumes from the finished checkpoint to the same result.
        let dir = tempfile::tempdir().unwrap();
        let cp = dir.path().join("top.checkpoint");
        let mut with_cp = vec!["batch"];
        with_cp.extend(args);
        with_cp.extend(["--checkpoint", cp.to_str().unwrap()]);
        for _ in 0..2 {
            let out = fam_within(120, &with_cp);
            assert!(out.status.success(), "{}", text(&out.stderr));
            assert_eq!(text(&out.stdout), straight);
        }
    }
}

#[test]
fn every_shard_of_every_count_covers_exactly_its_runs() {
    use fam::cli::Shard;
    let sizes = [0, 1, 2, 63, 64, 65, 1000, u64::MAX / 2, u64::MAX - 1, u64::MAX];
    for runs in sizes {
        for count in [1, 2, 3, 7, 64, 1000, u64::MAX / 3, u64::MAX - 1, u64::MAX] {
            // Every shard of a small count; the first, middle and last two
            // of a large one (each checked against its neighbour).
            let mut ks: Vec<u64> = if count <= 1000 {
                (1..=count).collect()
            } else {
                vec![1, 2, count / 2, count / 2 + 1, count - 1, count]
            };
            ks.dedup();
            let (small, large) = (runs / count, runs.div_ceil(count));
            for k in ks {
                let r = Shard { index: k, count }.range(runs);
                let len = r.end - r.start;
                assert!(len == small || len == large, "{k}/{count} of {runs}: {r:?}");
                assert_eq!(r.start, shard_start(runs, k - 1, count), "{k}/{count} of {runs}");
                if k > 1 {
                    let before = Shard { index: k - 1, count }.range(runs);
                    assert_eq!(before.end, r.start, "{k}/{count} of {runs}: a gap or an overlap");
                }
                if k == count {
                    assert_eq!(r.end, runs, "the last shard ends with the runs");
                }
            }
        }
    }
}

// ---- Files fam wrote are input too (issue 14) -----------------------------

/// Writes a copy of the JSON file `from` to `to` with `edit` applied, as a
/// user's editor would leave it, with its digest made again for what it now
/// holds (as anyone who knows the recipe could): the checks behind the
/// digest are what these tests reach.
fn edited(from: &std::path::Path, to: &std::path::Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(from).unwrap()).unwrap();
    edit(&mut v);
    std::fs::write(to, resealed(&v.to_string()).expect("a document fam reads")).unwrap();
}

/// Sets the number at `pointer` (under the file's `tallies`, or from the top
/// when it starts with `//`).
fn set(v: &mut serde_json::Value, pointer: &str, value: u64) {
    let at = pointer
        .strip_prefix('/')
        .map_or_else(|| format!("/tallies/{pointer}"), String::from);
    *v.pointer_mut(&at).unwrap_or_else(|| panic!("{at}")) = serde_json::json!(value);
}

/// The number at `pointer` under `tallies`.
fn get(v: &serde_json::Value, pointer: &str) -> u64 {
    v.pointer(&format!("/tallies/{pointer}"))
        .and_then(serde_json::Value::as_u64)
        .unwrap()
}

/// A finished batch of duel.toml with its checkpoint, and its two shards as
/// `fam batch --shard K/2 --json` writes them, in `dir`: (checkpoint, the
/// batch's JSON, shard files).
fn written_by_fam(dir: &std::path::Path, runs: &str) -> (std::path::PathBuf, String, [std::path::PathBuf; 2]) {
    let cp = dir.join("batch.checkpoint");
    let common = ["scenarios/duel.toml", "--runs", runs, "--seed", "11", "--json"];
    let mut args = common.to_vec();
    args.extend(["--checkpoint", cp.to_str().unwrap()]);
    let whole = batch_json(&args);
    let shards = ["1/2", "2/2"].map(|k| {
        let mut args = common.to_vec();
        args.extend(["--shard", k]);
        let path = dir.join(format!("shard-{}.json", &k[..1]));
        std::fs::write(&path, batch_json(&args)).unwrap();
        path
    });
    (cp, whole, shards)
}

/// Resumes the batch of [`written_by_fam`] from `cp`: the refusal's message
/// (asserting exit status 2 and that the file was left as it was).
fn resume_refused(cp: &std::path::Path, runs: &str) -> String {
    let before = std::fs::read(cp).unwrap();
    let args = [
        "batch",
        "scenarios/duel.toml",
        "--runs",
        runs,
        "--seed",
        "11",
        "--checkpoint",
    ];
    let mut args = args.to_vec();
    args.push(cp.to_str().unwrap());
    let out = fam(&args);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(cp).unwrap(), before, "the checkpoint was changed");
    let err = text(&out.stderr);
    assert!(
        err.contains(cp.to_str().unwrap()) && err.contains("cannot be resumed"),
        "{err}"
    );
    err
}

/// Merges `files`: the refusal's message (asserting exit status 2).
fn merge_refused(files: &[&std::path::Path]) -> String {
    let mut args = vec!["merge"];
    args.extend(files.iter().map(|f| f.to_str().unwrap()));
    let out = fam(&args);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    text(&out.stderr)
}

#[test]
fn a_checkpoint_or_shard_with_edited_histogram_bounds_is_refused_without_allocating_them() {
    let dir = tempfile::tempdir().unwrap();
    let (cp, _, [one, two]) = written_by_fam(dir.path(), "300");
    let bad = dir.path().join("edited.json");
    // One number each; a dense histogram over 0..=4000000000 is 32 GB.
    let far = 4_000_000_000;
    for (pointer, value, what) in [
        ("exchanges/hi", far, "Exchanges histogram covers 1..=4000000000"),
        ("exchanges/lo", 0, "Exchanges histogram covers 0..="),
        (
            "units/0/hull_damage/hi",
            far,
            "Unit 0's hull-damage histogram covers 0..=4000000000",
        ),
        (
            "sides/1/points_lost/hi",
            far,
            "side 1's points-lost histogram covers 0..=4000000000",
        ),
        ("units/1/hull_damage/lo", 1, "Unit 1's hull-damage histogram"),
    ] {
        edited(&cp, &bad, |v| set(v, pointer, value));
        let err = resume_refused(&bad, "300");
        assert!(err.contains(what), "{pointer}: {err}");
        edited(&one, &bad, |v| set(v, pointer, value));
        let err = merge_refused(&[&bad, &two]);
        assert!(err.contains("edited.json") && err.contains(what), "{pointer}: {err}");
    }
    // An Exchange cap past what fam allows, with the histogram to match.
    edited(&one, &bad, |v| {
        set(v, "//exchanges_cap", far);
        set(v, "exchanges/hi", far);
    });
    let err = merge_refused(&[&bad, &two]);
    assert!(
        err.contains("edited.json") && err.contains("Exchange cap 4000000000"),
        "{err}"
    );
    // A Unit's hull edited with its histogram in both shards is consistent:
    // it merges (the range costs nothing until values are counted in it).
    let parts = [&one, &two].map(|from| {
        let to = dir
            .path()
            .join(format!("hull-{}", from.file_name().unwrap().to_str().unwrap()));
        edited(from, &to, |v| {
            set(v, "//units/0/hull", far);
            set(v, "units/0/hull_damage/hi", far);
        });
        to
    });
    let out = fam(&["merge", parts[0].to_str().unwrap(), parts[1].to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains(&format!("of {far}")),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn tallies_that_disagree_with_each_other_are_refused_in_a_checkpoint_and_a_shard() {
    let dir = tempfile::tempdir().unwrap();
    let (cp, whole, [one, two]) = written_by_fam(dir.path(), "3000");
    // The checkpoint resumes to the batch it counted, before any edit.
    let mut args = vec![
        "batch",
        "scenarios/duel.toml",
        "--runs",
        "3000",
        "--seed",
        "11",
        "--json",
    ];
    args.extend(["--checkpoint", cp.to_str().unwrap()]);
    let out = fam(&args);
    assert_eq!(text(&out.stdout), whole);
    type Edit = fn(&mut serde_json::Value);
    let edits: [(&str, Edit, &str); 10] = [
        // 3 500 outcomes for 3 000 runs.
        (
            "500 wins added",
            |v| set(v, "sides/0/wins", get(v, "sides/0/wins") + 500),
            "wins, draws and undecided runs add up to",
        ),
        (
            "a fate added",
            |v| set(v, "units/0/fates/3", get(v, "units/0/fates/3") + 1),
            "Unit 0's fates add up to",
        ),
        (
            "a run added to a histogram",
            |v| set(v, "exchanges/counts/0/1", get(v, "exchanges/counts/0/1") + 1),
            "Exchanges histogram counts",
        ),
        (
            "a decision added",
            |v| set(v, "decided_by/0", get(v, "decided_by/0") + 1),
            "decided by each condition",
        ),
        (
            "a win survived past the side's wins",
            |v| set(v, "units/1/survived_side_won", get(v, "sides/1/wins") + 1),
            "Unit 1 survived",
        ),
        (
            "a weapon fired in more runs than there were",
            |v| set(v, "weapons/0/fired", get(v, "runs") + 1),
            "weapon 0",
        ),
        (
            "a first win after the last run",
            |v| set(v, "sides/0/first_win", u64::MAX),
            "side 0's first win is run",
        ),
        (
            "a longest run shorter than the longest counted",
            |v| set(v, "longest/0", get(v, "longest/0") - 1),
            "longest run",
        ),
        (
            "more dice than the most a run rolled",
            |v| set(v, "dice/min", get(v, "dice/max") + 1),
            "dice counts",
        ),
        (
            "a histogram value listed twice",
            |v| {
                let first = v.pointer("/tallies/exchanges/counts/0").unwrap().clone();
                v.pointer_mut("/tallies/exchanges/counts")
                    .unwrap()
                    .as_array_mut()
                    .unwrap()
                    .insert(0, first);
            },
            "repeated",
        ),
    ];
    let bad = dir.path().join("edited.json");
    for (name, edit, what) in edits {
        edited(&cp, &bad, edit);
        let err = resume_refused(&bad, "3000");
        assert!(err.contains(what), "checkpoint, {name}: {err}");
        edited(&one, &bad, edit);
        let err = merge_refused(&[&bad, &two]);
        assert!(
            err.contains("edited.json") && err.contains(what),
            "shard, {name}: {err}"
        );
    }
    // A checkpoint that says it counted more runs than the batch has.
    edited(&cp, &bad, |v| {
        set(v, "//next_run", 3500);
        set(v, "runs", 3500);
    });
    let err = resume_refused(&bad, "3000");
    assert!(err.contains("next run is 3500"), "{err}");
}

#[test]
fn shards_whose_counts_cannot_be_added_up_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_, _, shards) = written_by_fam(dir.path(), "200");
    // Damage points are not bounded by the runs: each shard alone is
    // consistent, their sum does not fit in 64 bits.
    let parts = shards.map(|from| {
        let to = dir
            .path()
            .join(format!("big-{}", from.file_name().unwrap().to_str().unwrap()));
        edited(&from, &to, |v| set(v, "sides/0/damage_by_kind/0", u64::MAX / 2 + 1));
        to
    });
    for p in &parts {
        let read = std::fs::read_to_string(p).unwrap();
        json::parse(&read).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    }
    let err = merge_refused(&[&parts[0], &parts[1]]);
    assert!(err.contains("cannot merge") && err.contains("2^64"), "{err}");
}

// ---- Digests (issue 12) -------------------------------------------------------

/// Writes a copy of the JSON file `from` to `to` with `edit` applied and
/// the digest left as fam wrote it: a change fam must see.
fn changed(from: &std::path::Path, to: &std::path::Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(from).unwrap()).unwrap();
    edit(&mut v);
    std::fs::write(to, v.to_string()).unwrap();
}

/// Side 0's beam damage, summed over the runs, set to 4 875 099 022
/// points: damage is bounded by no count, so every check of the tallies
/// accepts it.
fn more_beam_damage(v: &mut serde_json::Value) {
    set(v, "sides/0/damage_by_kind/0", 4_875_099_022);
}

/// Side 0's mean beam damage per battle in a batch JSON.
fn mean_beam_damage(batch: &str) -> f64 {
    parse(batch).sides[0].damage_by_kind.get("beam").unwrap()
}

#[test]
fn a_checkpoint_changed_after_fam_wrote_it_is_refused_by_its_digest() {
    let dir = tempfile::tempdir().unwrap();
    let (cp, whole, _) = written_by_fam(dir.path(), "300");
    let bad = dir.path().join("changed.checkpoint");
    changed(&cp, &bad, more_beam_damage);
    let err = resume_refused(&bad, "300");
    assert!(
        err.contains("changed.checkpoint") && err.contains("was changed after fam wrote it: its digest does not match"),
        "{err}"
    );
    // Only the digest refuses it: with a digest made for the changed figure
    // the batch resumes from it, and the figure becomes its result.
    edited(&cp, &bad, more_beam_damage);
    let mut args = vec!["scenarios/duel.toml", "--runs", "300", "--seed", "11", "--json"];
    args.extend(["--checkpoint", bad.to_str().unwrap()]);
    let forged = batch_json(&args);
    assert_abs_diff_eq!(mean_beam_damage(&forged), 4_875_099_022.0 / 300.0, epsilon = 1e-6);
    assert!(mean_beam_damage(&whole) < 100.0, "{}", mean_beam_damage(&whole));

    // A checkpoint without its digest, or from before digests (version 2),
    // is refused, not resumed unchecked.
    changed(&cp, &bad, |v| {
        v.as_object_mut().unwrap().remove("digest");
    });
    let err = resume_refused(&bad, "300");
    assert!(err.contains("it has no digest"), "{err}");
    changed(&cp, &bad, |v| {
        v.as_object_mut().unwrap().remove("digest");
        v["version"] = serde_json::json!(2);
    });
    let err = resume_refused(&bad, "300");
    assert!(err.contains("version 2") && err.contains("older fam"), "{err}");
}

#[test]
fn a_shard_changed_after_fam_wrote_it_is_refused_by_its_digest() {
    let dir = tempfile::tempdir().unwrap();
    let (_, whole, [one, two]) = written_by_fam(dir.path(), "300");
    let bad = dir.path().join("changed.json");
    changed(&one, &bad, more_beam_damage);
    let err = merge_refused(&[&bad, &two]);
    assert!(
        err.contains(bad.to_str().unwrap())
            && err.contains("was changed after fam wrote it: its digest does not match"),
        "{err}"
    );
    // A figure of the statistics (which merge recomputes) too.
    changed(&one, &bad, |v| v["sides"][0]["win_rate"] = serde_json::json!(0.999));
    let err = merge_refused(&[&two, &bad]);
    assert!(err.contains("digest does not match"), "{err}");
    // Only the digest refuses it: with a digest made for the changed figure
    // the shards merge, and the figure becomes the result.
    edited(&one, &bad, more_beam_damage);
    let out = fam(&["merge", "--json", bad.to_str().unwrap(), two.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(mean_beam_damage(&text(&out.stdout)) > 4_875_099_022.0 / 300.0);
    // A shard only reformatted (compact, as another tool writes it) is
    // unchanged: it keeps its digest and merges into the whole batch.
    changed(&one, &bad, |_| {});
    assert_ne!(std::fs::read(&bad).unwrap(), std::fs::read(&one).unwrap());
    let out = fam(&["merge", "--json", bad.to_str().unwrap(), two.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), whole);
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
}

#[test]
fn means_of_sums_past_exact_128_bit_products_are_still_computed() {
    // 2^62 runs, half of them 0 and half 2^32: mean and deviation 2^31
    // (n − 1 is n in doubles), but n·Σx² and (Σx)² pass 2^128.
    let n = 1u64 << 62;
    let (sum, sum_sq) = (1u128 << 93, 1u128 << 125);
    let m = mean_interval(n, sum, sum_sq).unwrap();
    let half = 2f64.powi(31);
    assert_abs_diff_eq!(m.mean, half, epsilon = 1e-6);
    assert!(abs_diff_eq!(m.sd, half, epsilon = 1e-6 * half), "{}", m.sd);
}

/// Without `--runs` a batch plays until every win rate is known within ±1
/// point, and says so; one that stops at its cap says that instead.
#[test]
fn a_batch_without_runs_plays_until_the_odds_are_known_within_a_point() {
    let out = fam(&["batch", "scenarios/duel.toml", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    assert_eq!(json["until_ci"], 0.02);
    assert_eq!(json["until_ci_met"], true);
    let runs = json["runs"].as_u64().unwrap();
    assert!(runs.is_multiple_of(1000) && runs <= 100_000, "{runs}");
    for side in json["sides"].as_array().unwrap() {
        let ci = side["ci95"].as_array().unwrap();
        let width = ci[1].as_f64().unwrap() - ci[0].as_f64().unwrap();
        assert!(width < 0.02, "{side}");
    }
    // The cap reached first: the report does not claim the width.
    let capped = fam(&["batch", "scenarios/duel.toml", "--until-ci", "0.001", "--runs", "2000"]);
    let report = text(&capped.stdout);
    assert!(
        report.contains("Stopped at the run cap before every win-rate interval was narrower than 0.1 %"),
        "{report}"
    );
    let capped = fam(&[
        "batch",
        "scenarios/duel.toml",
        "--until-ci",
        "0.001",
        "--runs",
        "2000",
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&text(&capped.stdout)).unwrap();
    assert_eq!(json["until_ci_met"], false);
}

/// The default text report fits 100 columns, measured in display columns
/// (the bars are block characters), and the Units table's columns line up
/// whatever the figures: every row as wide as its header.
#[test]
fn the_text_report_fits_a_hundred_columns_and_its_units_table_lines_up() {
    let out = fam(&["batch", "scenarios/squadron-action.toml"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    for line in report.lines() {
        assert!(
            unicode_width::UnicodeWidthStr::width(line) <= 100,
            "{} columns: {line}",
            unicode_width::UnicodeWidthStr::width(line)
        );
    }
    let table: Vec<&str> = report
        .lines()
        .skip_while(|l| !l.starts_with("Units:"))
        .skip(1)
        .take_while(|l| !l.starts_with('('))
        .collect();
    assert!(table.len() > 5, "{report}");
    let header = unicode_width::UnicodeWidthStr::width(table[0]);
    for row in &table {
        assert_eq!(unicode_width::UnicodeWidthStr::width(*row), header, "{row}");
    }
    // The wide table keeps every fate and the intervals.
    let wide = text(&fam(&["batch", "scenarios/squadron-action.toml", "--runs", "100", "--wide"]).stdout);
    assert!(wide.contains("destroyed [95 %]  surrendered  withdrawn"), "{wide}");
}
