//! What `fam batch` prints and draws for people to paste: `--format
//! markdown` within 80 columns, `--format` beside `--json`, the picture as
//! PNG or SVG, the run counts refused before anything is played, CSV that
//! tools read with the right column types, and seeds that readers with
//! double-precision numbers can read.

use crate::support::{fam, files_with, repo, text};

fn ok(args: &[&str]) -> String {
    let out = fam(args);
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

/// The lines of `md` that belong to Markdown tables, in tables.
fn tables(md: &str) -> Vec<Vec<&str>> {
    let mut all: Vec<Vec<&str>> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in md.lines() {
        if line.starts_with('|') {
            current.push(line);
        } else if !current.is_empty() {
            all.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        all.push(current);
    }
    all
}

/// The cells of a table line (no `|` in the names of the shipped scenarios).
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split('|').map(|c| c.trim().to_string()).collect()
}

#[test]
fn the_markdown_summary_of_every_shipped_scenario_fits_in_80_columns() {
    for path in files_with(&repo().join("scenarios"), "toml") {
        let scenario = path.display().to_string();
        let md = ok(&[
            "batch", &scenario, "--runs", "200", "--seed", "5", "--format", "markdown",
        ]);
        for line in md.lines() {
            assert!(
                line.chars().count() <= 80,
                "{scenario}: {} wide: {line}",
                line.chars().count()
            );
        }
        let json: serde_json::Value =
            serde_json::from_str(&ok(&["batch", &scenario, "--runs", "200", "--seed", "5", "--json"])).unwrap();
        let sides = json["sides"].as_array().unwrap();
        let units = json["units"].as_array().unwrap();
        let tables = tables(&md);
        // The outcomes, then one table per side.
        assert_eq!(tables.len(), 1 + sides.len(), "{scenario}\n{md}");
        for table in &tables {
            let width = cells(table[0]).len();
            assert!(table.iter().all(|l| cells(l).len() == width), "{scenario}: {table:?}");
            assert!(
                cells(table[1])
                    .iter()
                    .all(|c| c.chars().all(|ch| ch == '-' || ch == ':'))
            );
        }
        // Every side's win rate as the JSON gives it, to one decimal.
        for side in sides {
            let want = format!("{:.1} %", side["win_rate"].as_f64().unwrap() * 100.0);
            let name = side["name"].as_str().unwrap();
            let row = tables[0]
                .iter()
                .find(|l| cells(l)[0] == format!("{name} wins"))
                .unwrap_or_else(|| panic!("{scenario}: no row for {name}"));
            assert_eq!(cells(row)[2], want, "{scenario}: {row}");
        }
        // Every Unit in its side's table, with its loss rate.
        for unit in units {
            let table = &tables[1 + unit["side"].as_u64().unwrap() as usize];
            let name = unit["name"].as_str().unwrap();
            let row = table
                .iter()
                .find(|l| cells(l)[0] == name)
                .unwrap_or_else(|| panic!("{scenario}: no row for {name}"));
            let lost = unit["destroyed_rate"].as_f64().unwrap() + unit["surrendered_rate"].as_f64().unwrap();
            assert_eq!(cells(row)[1], format!("{:.1} %", lost * 100.0), "{scenario}: {row}");
        }
    }
}

#[test]
fn format_json_is_json_and_the_text_table_stays_the_default() {
    let common = ["batch", "scenarios/duel.toml", "--runs", "50", "--seed", "2"];
    let with = |extra: &[&str]| {
        let mut args = common.to_vec();
        args.extend(extra);
        ok(&args)
    };
    assert_eq!(with(&["--format", "json"]), with(&["--json"]));
    let table = with(&[]);
    assert_eq!(with(&["--format", "text"]), table);
    assert!(
        table.contains("alive if won") && !table.contains("lives|win"),
        "{table}"
    );
    // The merged shards print Markdown too.
    let dir = tempfile::tempdir().unwrap();
    let mut parts = Vec::new();
    for k in ["1/2", "2/2"] {
        let path = dir.path().join(format!("{}.json", &k[..1]));
        std::fs::write(&path, with(&["--shard", k, "--json"])).unwrap();
        parts.push(path.display().to_string());
    }
    let merged = ok(&["merge", &parts[0], &parts[1], "--format", "markdown"]);
    assert_eq!(merged, with(&["--format", "markdown"]));
    let out = fam(&[
        "batch",
        "scenarios/duel.toml",
        "--runs",
        "5",
        "--json",
        "--format",
        "markdown",
    ]);
    assert_eq!(out.status.code(), Some(2), "--json and --format markdown conflict");
}

#[cfg(feature = "plots")]
#[test]
fn the_plot_is_written_as_png_or_svg_by_its_extension() {
    let dir = tempfile::tempdir().unwrap();
    let png_path = dir.path().join("duel.png");
    let svg_path = dir.path().join("duel.SVG");
    let common = ["batch", "scenarios/duel.toml", "--runs", "200", "--seed", "4", "--plot"];
    let mut args = common.to_vec();
    args.push(png_path.to_str().unwrap());
    ok(&args);
    let mut args = common.to_vec();
    args.push(svg_path.to_str().unwrap());
    ok(&args);

    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png_path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    // 960 wide; 40 (title) + 320 (outcomes) + 100 + 26 × 6 (Units, at
    // least six rows) + 300 (Exchanges) high.
    assert_eq!((frame.width, frame.height), (960, 916));
    assert_eq!(frame.color_type, png::ColorType::Rgb);
    let at = |x: usize, y: usize| {
        let i = (y * 960 + x) * 3;
        [pixels[i], pixels[i + 1], pixels[i + 2]]
    };
    // The title is drawn: dark pixels in its band, on white.
    let dark = (0..40)
        .flat_map(|y| (0..960).map(move |x| (x, y)))
        .filter(|&(x, y)| at(x, y).iter().all(|c| *c < 100))
        .count();
    assert!(dark > 200, "only {dark} dark pixels in the title band: no text drawn");
    assert_eq!(at(2, 2), [255, 255, 255]);
    // The Units' bars: the destroyed colour is there.
    let red = (0..916)
        .flat_map(|y| (0..960).map(move |x| (x, y)))
        .filter(|&(x, y)| at(x, y) == [192, 57, 43])
        .count();
    assert!(red > 1000, "{red} pixels of the destroyed colour");

    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("Duel off Cold Harbour"),
        "{}",
        &svg[..200]
    );
}

#[test]
fn a_plot_that_is_neither_png_nor_svg_is_refused_before_the_runs() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["out.jpg", "out", "out.png.txt"] {
        let path = dir.path().join(name);
        // A billion runs: refused at once, or the test would not end.
        let out = fam(&[
            "batch",
            "scenarios/duel.toml",
            "--runs",
            "1000000000",
            "--plot",
            path.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(text(&out.stderr).contains("`.svg` or `.png`"), "{}", text(&out.stderr));
        assert!(!path.exists() && out.stdout.is_empty(), "{name}");
    }
}

#[test]
fn zero_runs_are_refused_by_batch_compare_and_tune() {
    let duel = "scenarios/duel.toml";
    let cases: [&[&str]; 5] = [
        &["batch", duel, "--runs", "0"],
        &["batch", duel, "--runs", "0", "--until-ci", "5%"],
        &["batch", duel, "--runs", "0", "--shard", "1/2"],
        &["compare", duel, duel, "--runs", "0"],
        &["tune", duel, "--side", "Ilse", "--runs", "0"],
    ];
    for args in cases {
        let out = fam(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(
            err.contains("--runs") && err.contains("at least 1 run"),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty());
    }
    let out = fam(&["tune", duel, "--side", "Ilse", "--runs", "100000001"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("at most 100000000 runs"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn until_ci_needs_no_run_count() {
    let json: serde_json::Value =
        serde_json::from_str(&ok(&["batch", "scenarios/duel.toml", "--until-ci", "20%", "--json"])).unwrap();
    // The first block of 1000 runs already narrows every interval below 20 %.
    assert_eq!(json["runs"], 1000);
    for side in json["sides"].as_array().unwrap() {
        let ci = side["ci95"].as_array().unwrap();
        assert!(ci[1].as_f64().unwrap() - ci[0].as_f64().unwrap() < 0.2, "{side}");
    }
}

/// Whether a column of units.csv or sides.csv holds a rate, an interval's
/// end or a mean (floating point) rather than a count or a value seen.
fn is_float_column(name: &str) -> bool {
    name.ends_with("rate") || name.contains("ci95") || name.contains("mean") || name == "survive_if_side_wins"
}

/// pandas and polars guess a CSV column's type from its values: a rate
/// written `0` in every row would read as an integer column. Every rate,
/// interval and mean has a decimal point, every count has none.
#[test]
fn csv_rates_have_a_decimal_point_even_when_every_one_is_zero() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("csv");
    ok(&[
        "batch",
        "scenarios/duel.toml",
        "--runs",
        "60",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    let mut zero_columns = Vec::new();
    for name in ["units.csv", "sides.csv"] {
        let file = std::fs::read_to_string(csv.join(name)).unwrap();
        let mut lines = file.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        // No quoted field in the duel's names: a comma splits the fields.
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        assert!(rows.len() >= 2, "{file}");
        let mut floats = 0;
        for (i, column) in header.iter().enumerate() {
            let values: Vec<&str> = rows.iter().map(|r| r[i]).filter(|v| !v.is_empty()).collect();
            if is_float_column(column) {
                floats += 1;
                for v in &values {
                    assert!(
                        v.contains('.') && v.parse::<f64>().is_ok(),
                        "{name}: {column} = `{v}`, not a number with a decimal point"
                    );
                }
                if !values.is_empty() && values.iter().all(|v| v.parse::<f64>() == Ok(0.0)) {
                    zero_columns.push(format!("{name}:{column}"));
                }
            } else if values.iter().any(|v| v.parse::<f64>().is_ok()) {
                for v in &values {
                    assert!(v.parse::<u64>().is_ok(), "{name}: {column} = `{v}`, not a count");
                }
            }
        }
        assert!(floats >= 6, "{name}: {header:?}");
    }
    // The duel has no surrender rule: that rate is 0 in every run, and is
    // written 0.0 for each Unit.
    assert!(
        zero_columns.contains(&"units.csv:surrendered_rate".to_string()),
        "{zero_columns:?}"
    );
    let units = std::fs::read_to_string(csv.join("units.csv")).unwrap();
    let column = units
        .lines()
        .next()
        .unwrap()
        .split(',')
        .position(|c| c == "surrendered_rate")
        .unwrap();
    for row in units.lines().skip(1) {
        assert_eq!(row.split(',').nth(column), Some("0.0"), "{row}");
    }
}

/// Every seed of the batch JSON is written twice: as the number, and as
/// its digits in `seed_text`, which readers whose JSON numbers are doubles
/// (JavaScript, jq 1.6, pandas) cannot round. The two are equal, and they
/// are the seed the replay command gives.
#[test]
fn every_seed_in_the_batch_json_is_also_written_as_its_digits() {
    // Past 2^63, so that the base seed itself does not fit a double either.
    let base = "18446744073709551557";
    let out = ok(&["batch", "scenarios/duel.toml", "--runs", "40", "--seed", base, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["seed"].as_u64().map(|s| s.to_string()).as_deref(), Some(base));
    assert_eq!(v["seed_text"], base);
    let mut runs = Vec::new();
    let n = &v["notable_seeds"];
    runs.extend(["longest", "first_draw", "first_undecided"].map(|k| &n[k]));
    for list in ["wins", "unit_deaths"] {
        runs.extend(n[list].as_array().unwrap().iter().map(|w| &w["first"]));
    }
    let runs: Vec<&serde_json::Value> = runs.into_iter().filter(|r| !r.is_null()).collect();
    assert!(runs.len() >= 3, "{n}");
    let mut past_doubles = 0;
    for run in runs {
        let seed = run["seed"].as_u64().expect("a u64 seed");
        let text = run["seed_text"].as_str().expect("seed_text");
        assert_eq!(text, seed.to_string(), "{run}");
        assert!(
            run["command"].as_str().unwrap().contains(&format!("--seed {text} ")),
            "{run}"
        );
        // What a reader with doubles would make of it.
        if (seed as f64) as u64 != seed {
            past_doubles += 1;
        }
    }
    assert!(past_doubles > 0, "some run seed a double cannot hold");
    // The raw text holds the same digits as the number and the string.
    assert!(out.contains(&format!("\"seed\": {base},")), "{out:.400}");
    assert!(out.contains(&format!("\"seed_text\": \"{base}\"")), "{out:.400}");
}
