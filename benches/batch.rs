//! Batch speed: whole battles per second on the shipped scenarios, on one
//! core (one warm worker) and on all cores (`fam::batch::run`), and the
//! engine's dice rate against a bare loop of d6 rolls.
//!
//! Criterion reports runs per second ("elements/s") for four scenarios.
//! After it, a short plain timing prints, for every shipped scenario and for
//! generated fleet battles of 2, 8, 32 and 128 ships a side: runs/s on one
//! core and on all, the parallel efficiency (runs/s on all cores over one
//! core's times the cores), dice per battle, dice/s, nanoseconds per die, and the
//! ratio of that dice rate to the bare d6 rate (1.0 would mean the engine
//! does nothing but roll dice). The last line compares the cost per die of
//! 128 ships a side with 8 a side (linear in fleet size: 1.0).
//!
//! `cargo bench --bench batch -- --quick 'batch fleet'` runs one group;
//! `FAM_BENCH_TABLE_ONLY=1 cargo bench --bench batch` prints the table only;
//! `FAM_BENCH_SCENARIOS=DIR` keeps the generated battles in `DIR`
//! (`generated-N.toml` and its two fleet files), for
//! `scripts/instructions-per-die.sh` and `scripts/battles-per-second.sh`.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fam::batch::{self, Options, Worker};
use fam::engine::dice::Dice;
use fam::gzf::{self, GzfFile, Item, ParseOptions, Ship, ShipType};
use fam::orders::Loaded;

const SCENARIOS: [&str; 4] = [
    "duel.toml",
    "squadron-action.toml",
    "fleet-action.toml",
    "carrier-strike.toml",
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn load(name: &str) -> Loaded {
    load_path(&repo().join("scenarios").join(name))
}

fn load_path(path: &Path) -> Loaded {
    fam::orders::load_scenario(path, &[], &ParseOptions::default())
        .unwrap_or_else(|r| panic!("{} loads: {r:?}", path.display()))
}

/// Every shipped scenario's file name, sorted.
fn shipped() -> Vec<String> {
    let mut all: Vec<String> = std::fs::read_dir(repo().join("scenarios"))
        .expect("scenarios/")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    all.sort();
    all
}

/// The warships (military, with thrust) of a shipped fleet file.
fn warships(file: &str) -> (GzfFile, Vec<Ship>) {
    let text = std::fs::read_to_string(repo().join("ssd").join(file)).expect("ssd file");
    let parsed = gzf::parse(&text, &ParseOptions::default());
    let ships = parsed
        .file
        .ships()
        .filter(|s| s.ship_type != Some(ShipType::Civilian) && s.ship_type != Some(ShipType::Merchant) && s.thrust > 0)
        .cloned()
        .collect();
    (parsed.file, ships)
}

/// A fleet battle of `n` ships a side, made from the shipped Meridian and
/// Kestrel fleets (their warships repeated in order, renamed), in
/// Formations of two, every pair 48 MU apart, every Formation under the
/// default doctrine. Written into `dir`; returns the scenario's path.
fn generated(n: usize, dir: &Path) -> PathBuf {
    let files = [format!("a{n}.gzf"), format!("b{n}.gzf")];
    let mut toml = format!(
        "title = \"{n} ships a side\"\ngzf = [\"{}\", \"{}\"]\nseed = 1\nstart_range = 48\n",
        files[0], files[1]
    );
    let mut sides = String::from("\n[sides]\n");
    let mut formations = String::from("\n[formations]\n");
    for (side, (file, out)) in [("meridian-compact.gzf", &files[0]), ("kestrel-reach.gzf", &files[1])]
        .into_iter()
        .enumerate()
    {
        let (mut gzf_file, ships) = warships(file);
        gzf_file.items.retain(|i| matches!(i, Item::Fleet(_)));
        let mut names = Vec::new();
        for k in 0..n {
            let mut ship = ships[k % ships.len()].clone();
            ship.name = format!("{} {side}-{k}", ship.name);
            names.push(ship.name.clone());
            gzf_file.items.push(Item::Ship(ship));
        }
        std::fs::write(dir.join(out), gzf::write(&gzf_file)).expect("write the fleet");
        let mut mine = Vec::new();
        for (f, pair) in names.chunks(2).enumerate() {
            let name = format!("S{side} F{f}");
            let list: Vec<String> = pair.iter().map(|x| format!("\"{x}\"")).collect();
            formations.push_str(&format!("\"{name}\" = [{}]\n", list.join(", ")));
            mine.push(format!("\"{name}\""));
        }
        sides.push_str(&format!("\"Side {side}\" = [{}]\n", mine.join(", ")));
    }
    toml.push_str(&sides);
    toml.push_str(&formations);
    let path = dir.join(format!("generated-{n}.toml"));
    std::fs::write(&path, toml).expect("write the scenario");
    path
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
    if std::env::var_os("FAM_BENCH_TABLE_ONLY").is_some() {
        summary();
        return;
    }
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
    let bare = bare_rate(budget);
    println!("\nbare d6: {:.1} M dice/s", bare / 1e6);
    println!(
        "{:<26} {:>11} {:>12} {:>9} {:>12} {:>12} {:>9} {:>12}",
        "battle", "runs/s (1)", "runs/s (all)", "par. eff", "dice/battle", "M dice/s (1)", "ns/die", "engine/bare"
    );
    for name in shipped() {
        row(&name, &load(&name), budget, bare);
    }
    // FAM_BENCH_SCENARIOS=DIR keeps the generated battles there (for
    // scripts/instructions-per-die.sh); otherwise a temporary directory.
    let temporary = tempfile::tempdir().expect("a temporary directory");
    let kept = std::env::var_os("FAM_BENCH_SCENARIOS").map(PathBuf::from);
    let dir = kept.as_deref().unwrap_or(temporary.path());
    std::fs::create_dir_all(dir).expect("the directory for the generated battles");
    let mut per_die = Vec::new();
    for n in [2, 8, 32, 128] {
        let loaded = load_path(&generated(n, dir));
        per_die.push((n, row(&format!("{n} ships a side"), &loaded, budget, bare)));
    }
    let at = |n: usize| {
        per_die
            .iter()
            .find(|(m, _)| *m == n)
            .map(|(_, ns)| *ns)
            .unwrap_or(f64::NAN)
    };
    println!("cost per die, 128 a side against 8 a side: {:.2}x", at(128) / at(8));
}

/// The bare d6 rate of the engine's generator, dice per second.
fn bare_rate(budget: Duration) -> f64 {
    let mut dice = Dice::new(1);
    let start = Instant::now();
    let mut rolled = 0u64;
    while start.elapsed() < budget {
        let s: u32 = (0..10_000).map(|_| u32::from(dice.d6())).sum();
        black_box(s);
        rolled += 10_000;
    }
    rolled as f64 / start.elapsed().as_secs_f64()
}

/// One line of the table; returns the nanoseconds per die on one core.
fn row(name: &str, loaded: &Loaded, budget: Duration, bare: f64) -> f64 {
    let one = options(loaded, Some(1));
    let first = batch::first_plot(loaded, &one);
    let mut w = Worker::new(loaded, &one, &first);
    let (mut runs, mut dice) = (0u64, 0u64);
    let start = Instant::now();
    while start.elapsed() < budget || runs < 3 {
        dice += w.run(runs).dice;
        runs += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    let all = options(loaded, None);
    let start = Instant::now();
    let n = (runs * 2).max(8);
    black_box(batch::run(loaded, &all, 0..n, &|_| {}).expect("batch"));
    let all_rate = n as f64 / start.elapsed().as_secs_f64();
    let dice_rate = dice as f64 / secs;
    // Runs/s on all cores against one core's times the cores (1.0: every
    // core as fast as one alone).
    let efficiency = all_rate / (runs as f64 / secs * rayon::current_num_threads() as f64);
    println!(
        "{:<26} {:>11.0} {:>12.0} {:>9.2} {:>12.1} {:>12.2} {:>9.1} {:>12.3}",
        name,
        runs as f64 / secs,
        all_rate,
        efficiency,
        dice as f64 / runs as f64,
        dice_rate / 1e6,
        1e9 / dice_rate,
        dice_rate / bare
    );
    1e9 / dice_rate
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
