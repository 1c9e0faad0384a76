//! Batch speed: whole battles per second on the shipped scenarios, on one
//! core (one warm worker) and on all cores (`fam::batch::run`), and the
//! engine's dice rate against a bare loop of d6 rolls.
//!
//! Criterion reports runs per second ("elements/s"). After it, a short plain
//! timing prints per scenario: runs/s on one core, dice per battle, dice/s,
//! and the ratio of that dice rate to the bare d6 rate (1.0 would mean the
//! engine does nothing but roll dice).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fam::batch::{self, Options, Worker};
use fam::engine::dice::Dice;
use fam::gzf::ParseOptions;
use fam::orders::Loaded;

const SCENARIOS: [&str; 4] = [
    "duel.toml",
    "squadron-action.toml",
    "fleet-action.toml",
    "carrier-strike.toml",
];

fn load(name: &str) -> Loaded {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(name);
    fam::orders::load_scenario(&path, &[], &ParseOptions::default()).unwrap_or_else(|_| panic!("{name} loads"))
}

fn options(loaded: &Loaded, threads: Option<usize>) -> Options {
    Options {
        seed: 1,
        exchanges: batch::default_exchanges(loaded),
        threads,
    }
}

const ONE_CORE_RUNS: u64 = 64;
const ALL_CORES_RUNS: u64 = 512;

fn bench(c: &mut Criterion) {
    for name in SCENARIOS {
        let loaded = load(name);
        let one = options(&loaded, Some(1));
        let all = options(&loaded, None);
        let first = batch::first_plot(&loaded, &one);
        let mut group = c.benchmark_group(format!("batch {name}"));
        group.throughput(Throughput::Elements(ONE_CORE_RUNS));
        group.bench_function("one core", |b| {
            let mut w = Worker::new(&loaded, &one, &first);
            let mut next = 0u64;
            b.iter(|| {
                for _ in 0..ONE_CORE_RUNS {
                    black_box(w.run(next));
                    next += 1;
                }
            })
        });
        group.throughput(Throughput::Elements(ALL_CORES_RUNS));
        group.bench_function("all cores", |b| {
            b.iter(|| black_box(batch::run(&loaded, &all, 0..ALL_CORES_RUNS, &|_| {}).expect("batch")))
        });
        group.finish();
    }
    let mut group = c.benchmark_group("bare dice");
    group.throughput(Throughput::Elements(1000));
    group.bench_function("1000 d6", |b| {
        let mut dice = Dice::new(1);
        b.iter(|| (0..1000).map(|_| u32::from(dice.d6())).sum::<u32>())
    });
    group.finish();
    summary();
}

/// Plain timing, printed as one table.
fn summary() {
    let budget = Duration::from_millis(700);
    let mut dice = Dice::new(1);
    let start = Instant::now();
    let mut rolled = 0u64;
    while start.elapsed() < budget {
        let s: u32 = (0..10_000).map(|_| u32::from(dice.d6())).sum();
        black_box(s);
        rolled += 10_000;
    }
    let bare = rolled as f64 / start.elapsed().as_secs_f64();
    println!("\nbare d6: {:.1} M dice/s", bare / 1e6);
    println!(
        "{:<24} {:>12} {:>14} {:>12} {:>14} {:>18}",
        "scenario", "runs/s (1)", "runs/s (all)", "dice/battle", "M dice/s (1)", "engine/bare dice"
    );
    for name in SCENARIOS {
        let loaded = load(name);
        let one = options(&loaded, Some(1));
        let first = batch::first_plot(&loaded, &one);
        let mut w = Worker::new(&loaded, &one, &first);
        let (mut runs, mut dice) = (0u64, 0u64);
        let start = Instant::now();
        while start.elapsed() < budget {
            dice += w.run(runs).dice;
            runs += 1;
        }
        let secs = start.elapsed().as_secs_f64();
        let all = options(&loaded, None);
        let start = Instant::now();
        let n = (runs * 2).max(1000);
        black_box(batch::run(&loaded, &all, 0..n, &|_| {}).expect("batch"));
        let all_rate = n as f64 / start.elapsed().as_secs_f64();
        let dice_rate = dice as f64 / secs;
        println!(
            "{:<24} {:>12.0} {:>14.0} {:>12.1} {:>14.2} {:>18.3}",
            name,
            runs as f64 / secs,
            all_rate,
            dice as f64 / runs as f64,
            dice_rate / 1e6,
            dice_rate / bare
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
