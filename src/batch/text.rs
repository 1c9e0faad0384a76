//! The batch for people (a table with its precision shown), for
//! spreadsheets (CSV), and two batches side by side (`fam compare`).

use std::fmt::Write as _;

use serde::Serialize;

use super::Report;
use super::idle::{IdleWeapon, idle_weapons, lacked_threats};
use super::json::{BatchJson, underdogs};
use super::stats::{Histogram, MeanStats, Paired, mean_difference, newcombe, paired_difference, rate, wilson};
use super::tally::{Fate, REASONS};

/// Decimals for percentages: enough to show the precision of `runs` runs
/// (a 95 % interval is about ±1/√runs wide), no more.
pub(super) fn decimals(runs: u64) -> usize {
    match runs {
        0..40_000 => 1,
        40_000..4_000_000 => 2,
        _ => 3,
    }
}

fn pct(x: f64, d: usize) -> String {
    format!("{:.*} %", d, x * 100.0)
}

fn interval(ci: [f64; 2], d: usize) -> String {
    format!("[{:.*}, {:.*}]", d, ci[0] * 100.0, d, ci[1] * 100.0)
}

fn mean_text(m: Option<MeanStats>) -> String {
    match m {
        None => "-".into(),
        Some(m) => format!("{:.2} [{:.2}, {:.2}]", m.mean, m.ci95[0], m.ci95[1]),
    }
}

fn opt(v: Option<u32>) -> String {
    v.map_or("-".into(), |v| v.to_string())
}

fn plural(n: u64, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// Display width of `s` in terminal columns (names are printed padded to a
/// column; a wide character takes two, a combining mark none).
fn width(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

/// `s` right-aligned in `w` columns.
fn pad_left(s: &str, w: usize) -> String {
    let mut out = " ".repeat(w.saturating_sub(width(s)));
    out.push_str(s);
    out
}

/// The text report's width: lines wrap at it, and the default Units table
/// fits it (names longer than the table allows widen it).
pub const REPORT_COLUMNS: usize = 100;

/// `text` in lines of at most `cols` columns (a word longer than that
/// alone on its line), each after the first indented by `indent`.
fn wrap(text: &str, cols: usize, indent: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if line.is_empty() {
            line = if lines.is_empty() {
                word.to_string()
            } else {
                format!("{indent}{word}")
            };
        } else if width(&line) + 1 + width(word) > cols {
            lines.push(std::mem::replace(&mut line, format!("{indent}{word}")));
        } else {
            line.push(' ');
            line.push_str(word);
        }
    }
    lines.push(line);
    lines.join("\n")
}

fn pad(s: &str, w: usize) -> String {
    let mut out = s.to_string();
    for _ in width(s)..w {
        out.push(' ');
    }
    out
}

/// A bar of `frac` (0..=1) of `cells` characters, in eighths.
fn bar(frac: f64, cells: usize) -> String {
    const PARTS: [char; 8] = [' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
    let eighths = (frac.clamp(0.0, 1.0) * cells as f64 * 8.0).round() as usize;
    let mut s = "█".repeat(eighths / 8);
    if !eighths.is_multiple_of(8) {
        s.push(PARTS[eighths % 8]);
    }
    s
}

/// What a run was, for the list of runs to replay.
fn replay_line(out: &mut String, what: &str, report: &Report, run: u64) {
    let seed = super::run_seed(report.meta.seed, run);
    let _ = writeln!(out, "  {what}: run {run}, seed {seed}");
    let _ = writeln!(out, "      {}", report.meta.replay(seed));
}

fn histogram_lines(out: &mut String, h: &Histogram, runs: u64, d: usize) {
    let most = h.nonzero().map(|(_, c)| c).max().unwrap_or(0);
    let label_w = width(&h.hi().to_string());
    let count_w = width(&most.to_string());
    for (v, c) in h.nonzero() {
        let _ = writeln!(
            out,
            "  {v:>label_w$} │{} {c:>count_w$}  {:>7}",
            pad(&bar(c as f64 / most.max(1) as f64, 30), 31),
            pct(rate(c, runs), d)
        );
    }
}

/// Outcomes: wins per side and draws with their intervals, and what decided the battles.
fn outcomes(out: &mut String, report: &Report, n: u64, d: usize) {
    let Report { meta, tally: t } = report;
    let mut rows: Vec<(String, u64)> = meta
        .sides
        .iter()
        .zip(&t.sides)
        .map(|(name, s)| (format!("{name} wins"), s.wins))
        .collect();
    rows.push(("Draw".into(), t.draws));
    if t.undecided > 0 {
        rows.push((
            format!("Undecided after {}", plural(u64::from(meta.exchanges), "Exchange")),
            t.undecided,
        ));
    }
    let name_w = rows.iter().map(|r| width(&r.0)).max().unwrap_or(0).max(7);
    let count_w = width(&n.to_string()).max(4);
    let _ = writeln!(
        out,
        "\n{}  {:>count_w$}  {:>9}  95 % interval (%)",
        pad("Outcome", name_w),
        "runs",
        "rate"
    );
    for (name, c) in &rows {
        let _ = writeln!(
            out,
            "{}  {c:>count_w$}  {:>9}  {}",
            pad(name, name_w),
            pct(rate(*c, n), d),
            interval(wilson(*c, n), d)
        );
    }
    let decided: Vec<String> = REASONS
        .iter()
        .zip(t.decided_by)
        .filter(|(_, c)| *c > 0)
        .map(|(r, c)| format!("{} {c}", r.replace('_', " ")))
        .collect();
    if !decided.is_empty() {
        let _ = writeln!(out, "Decided by: {}", decided.join(", "));
    }
}

/// Exchanges per battle: mean, spread and a histogram.
fn exchanges(out: &mut String, report: &Report, n: u64, d: usize) {
    let t = &report.tally;
    let h = &t.exchanges;
    let _ = writeln!(
        out,
        "\nExchanges per battle: mean {}, min {}, median {}, 90th percentile {}, max {}",
        mean_text(h.mean()),
        opt(h.min()),
        opt(h.percentile(50)),
        opt(h.percentile(90)),
        opt(h.max())
    );
    histogram_lines(out, h, n, d);
}

/// Units: how each battle left them, hull lost, alive when their side won:
/// within [`REPORT_COLUMNS`] (the fates no Unit met left out), or with
/// `wide` every fate and the intervals.
fn units(out: &mut String, report: &Report, n: u64, d: usize, wide: bool) {
    let Report { meta, tally: t } = report;
    let _ = writeln!(out, "\nUnits: how each battle left them (the first that applies)");
    let fates = [
        (Fate::Destroyed, "destroyed"),
        (Fate::Surrendered, "surrendered"),
        (Fate::Withdrawn, "withdrawn"),
        (Fate::Untouched, "untouched"),
        (Fate::Crippled, "crippled"),
        (Fate::Damaged, "damaged"),
    ];
    let shown: Vec<_> = fates
        .iter()
        .filter(|(fate, _)| {
            wide || matches!(fate, Fate::Destroyed) || t.units.iter().any(|u| u.fates[*fate as usize] > 0)
        })
        .collect();
    // Each row's cells, the header first; columns as wide as their widest.
    let mut header = vec!["Unit".to_string(), "Side".to_string()];
    for (fate, name) in &shown {
        header.push(if wide && matches!(fate, Fate::Destroyed) {
            format!("{name} [95 %]")
        } else {
            name.to_string()
        });
    }
    header.push(if wide { "hull lost: mean [95 %]" } else { "hull lost" }.to_string());
    header.push("alive if won".to_string());
    let mut rows = vec![header];
    for (i, u) in t.units.iter().enumerate() {
        let info = &meta.units[i];
        let mut row = vec![info.name.clone(), meta.sides[info.side].clone()];
        for (fate, _) in &shown {
            let k = u.fates[*fate as usize];
            let mut cell = pct(rate(k, n), d);
            if wide && matches!(fate, Fate::Destroyed) {
                cell = format!("{cell} {}", interval(wilson(k, n), d));
            }
            row.push(cell);
        }
        let hull = match (wide, u.hull_damage.mean()) {
            (true, m) => mean_text(m),
            (false, Some(m)) => format!("{:.2}", m.mean),
            (false, None) => "-".to_string(),
        };
        row.push(format!("{hull} of {}", info.hull));
        let side_wins = t.sides[info.side].wins;
        row.push(if side_wins == 0 {
            "-".to_string()
        } else {
            pct(rate(u.survived_side_won, side_wins), d)
        });
        rows.push(row);
    }
    let cols = rows[0].len();
    let widths: Vec<usize> = (0..cols)
        .map(|c| rows.iter().map(|r| width(&r[c])).max().unwrap_or(0))
        .collect();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| {
                if c < 2 {
                    pad(cell, widths[c])
                } else {
                    pad_left(cell, widths[c])
                }
            })
            .collect();
        let _ = writeln!(out, "{}", cells.join("  ").trim_end());
    }
    let left_out: Vec<&str> = fates
        .iter()
        .filter(|f| !shown.contains(f))
        .map(|(_, name)| *name)
        .collect();
    let mut note = String::from(
        "(destroyed includes abandoned; hull lost: the mean, counting every box of a destroyed Unit, and for fighter groups and gunboats the craft lost; alive if won: still in the fight or in the Reserve when its side won",
    );
    if !left_out.is_empty() {
        let _ = write!(note, "; no Unit {}", left_out.join(" or "));
    }
    if !wide {
        note.push_str("; `--wide` adds the intervals");
    }
    note.push(')');
    let _ = writeln!(out, "{}", wrap(&note, REPORT_COLUMNS, " "));
}

/// Points lost per battle, by side.
fn points(out: &mut String, report: &Report) {
    let Report { meta, tally: t } = report;
    let side_w = side_width(meta);
    let _ = writeln!(out, "\nPoints lost per battle");
    for (i, s) in t.sides.iter().enumerate() {
        let h = &s.points_lost;
        let _ = writeln!(
            out,
            "  {}  mean {}, median {}, 90th percentile {}, max {} of {}",
            pad(&meta.sides[i], side_w),
            mean_text(h.mean()),
            opt(h.percentile(50)),
            opt(h.percentile(90)),
            opt(h.max()),
            h.hi()
        );
    }
}

/// Damage points scored per battle, by side and weapon kind.
fn damage(out: &mut String, report: &Report, n: u64, d: usize) {
    let Report { meta, tally: t } = report;
    let side_w = side_width(meta);
    let _ = writeln!(out, "\nDamage points scored per battle, by weapon kind");
    for (i, s) in t.sides.iter().enumerate() {
        let parts: Vec<String> = crate::engine::volley::DamageKind::ALL
            .iter()
            .filter(|k| s.damage_by_kind[**k as usize] > 0)
            .map(|k| {
                format!(
                    "{} {:.2}",
                    k.key(),
                    s.damage_by_kind[*k as usize] as f64 / n.max(1) as f64
                )
            })
            .collect();
        let text = if parts.is_empty() {
            "none".to_string()
        } else {
            parts.join(", ")
        };
        let _ = writeln!(out, "  {}  {text}", pad(&meta.sides[i], side_w));
    }
    idle_section(out, report, d);
}

/// The dice rolled per battle.
fn dice_line(out: &mut String, report: &Report, n: u64) {
    let t = &report.tally;
    if let Some(m) = super::stats::mean_interval(n, t.dice.sum, t.dice.sum_sq) {
        let _ = writeln!(
            out,
            "\nDice per battle: mean {:.1} (sd {:.1}), min {}, max {}; {} in all",
            m.mean,
            m.sd,
            t.dice.min.unwrap_or(0),
            t.dice.max.unwrap_or(0),
            t.dice.sum
        );
    }
}

/// Runs worth replaying: underdog wins, the longest battle, first draws, first losses.
fn replays(out: &mut String, report: &Report) {
    let Report { meta, tally: t } = report;
    let _ = writeln!(out, "\nRuns to replay");
    let under = underdogs(t);
    for (i, s) in t.sides.iter().enumerate() {
        let what = if under[i] {
            format!("{}'s first win (an upset: the lower win rate)", meta.sides[i])
        } else {
            format!("{}'s first win", meta.sides[i])
        };
        match s.first_win {
            Some(r) => replay_line(out, &what, report, r),
            None => {
                let _ = writeln!(out, "  {}: never", what);
            }
        }
    }
    if let Some((k, r)) = t.longest {
        replay_line(
            out,
            &format!("Longest battle ({})", plural(u64::from(k), "Exchange")),
            report,
            r,
        );
    }
    if let Some(r) = t.first_draw {
        replay_line(out, "First draw", report, r);
    }
    if let Some(r) = t.first_undecided {
        replay_line(out, "First undecided", report, r);
    }
    for (i, u) in t.units.iter().enumerate() {
        if let Some(r) = u.first_death {
            replay_line(out, &format!("{} first destroyed", meta.units[i].name), report, r);
        }
    }
}

/// The width of the side column: the longest side name, at least 4.
fn side_width(meta: &super::Meta) -> usize {
    meta.sides.iter().map(|s| width(s)).max().unwrap_or(0).max(4)
}

/// The human-readable table of a batch, within [`REPORT_COLUMNS`].
pub fn table(report: &Report) -> String {
    table_as(report, false)
}

/// [`table`], or with `wide` (`fam batch --wide`) the Units table with every
/// fate and the intervals, whatever its width.
pub fn table_as(report: &Report, wide: bool) -> String {
    let Report { meta, tally: t } = report;
    let n = t.runs;
    let d = decimals(n);
    let mut out = String::new();
    let _ = writeln!(out, "{} ({})", meta.title, meta.scenario);
    let range = if meta.range[0] == 0 {
        String::new()
    } else {
        format!(" (runs {}..{})", meta.range[0], meta.range[1])
    };
    let shard = meta
        .shard
        .map_or(String::new(), |s| format!(", shard {} of {}", s.index, s.count));
    let _ = writeln!(
        out,
        "{}{range}{shard}, base seed {}, at most {} per run",
        plural(n, "run"),
        meta.seed,
        plural(u64::from(meta.exchanges), "Exchange"),
    );
    let _ = writeln!(out, "{}", meta.points_line());
    if let Some(w) = meta.until_ci {
        let widest = super::widest_win_interval(t);
        let _ = if widest < w {
            writeln!(
                out,
                "Ran blocks of {} runs until every win-rate interval was narrower than {}.",
                super::CI_BLOCK,
                pct(w, d)
            )
        } else {
            writeln!(
                out,
                "Stopped at the run cap before every win-rate interval was narrower than {}: the widest is {}.",
                pct(w, d),
                pct(widest, d)
            )
        };
    }
    let _ = writeln!(
        out,
        "Brackets: 95 % intervals (Wilson score for rates, normal for means)."
    );

    outcomes(&mut out, report, n, d);
    exchanges(&mut out, report, n, d);
    units(&mut out, report, n, d, wide);
    points(&mut out, report);
    damage(&mut out, report, n, d);
    dice_line(&mut out, report, n);
    replays(&mut out, report);
    out
}

/// Weapons that never fired or fired in under 1 % of the runs, side by
/// side, with the share of runs they fired in and why, and a warning per
/// side that has any; one line when every weapon fired, nothing when the
/// batch follows no weapon.
fn idle_section(out: &mut String, report: &Report, d: usize) {
    let Report { meta, tally: t } = report;
    if meta.weapons.is_empty() || t.runs == 0 {
        return;
    }
    let idle = idle_by_side(report);
    if idle.iter().all(Vec::is_empty) {
        let _ = writeln!(out, "\nEvery weapon fired in at least 1 % of the runs.");
        return;
    }
    let name = |w: &IdleWeapon<'_>| meta.units.get(w.info.unit).map_or("", |u| u.name.as_str());
    let all = || idle.iter().flatten();
    let unit_w = all().map(|w| width(name(w))).max().unwrap_or(0).max(4);
    let kind_w = all().map(|w| width(&w.info.kind)).max().unwrap_or(0).max(4);
    let _ = writeln!(out, "\nIdle weapons: never fired, or fired in under 1 % of the runs");
    for (side, list) in idle.iter().enumerate().filter(|(_, l)| !l.is_empty()) {
        let _ = writeln!(out, "  {}", meta.sides[side]);
        let _ = writeln!(
            out,
            "    {}  system  {}  {:>9}  why",
            pad("Unit", unit_w),
            pad("kind", kind_w),
            "fired"
        );
        for w in list {
            let _ = writeln!(
                out,
                "    {}  {:>6}  {}  {:>9}  {}",
                pad(name(w), unit_w),
                w.info.system + 1,
                pad(&w.info.kind, kind_w),
                pct(rate(w.tally.fired, t.runs), d),
                w.reason.as_deref().unwrap_or("-")
            );
        }
    }
    for (side, list) in idle.iter().enumerate().filter(|(_, l)| !l.is_empty()) {
        let _ = writeln!(out, "{}", idle_note(&meta.sides[side], list));
    }
}

/// Each side's idle weapons: those a plot left idle first, then point
/// defence that had nothing to shoot at.
fn idle_by_side(report: &Report) -> Vec<Vec<IdleWeapon<'_>>> {
    (0..report.meta.sides.len())
        .map(|s| {
            let mut list = idle_weapons(report, s);
            list.sort_by_key(|w| lacked_threats(w.info, w.tally));
            list
        })
        .collect()
}

/// The warning lines of [`table`]'s idle-weapon section, one per side
/// with idle weapons: what the odds assume stays idle.
pub fn idle_notes(report: &Report) -> Vec<String> {
    let Report { meta, tally: t } = report;
    if meta.weapons.is_empty() || t.runs == 0 {
        return Vec::new();
    }
    idle_by_side(report)
        .iter()
        .enumerate()
        .filter(|(_, list)| !list.is_empty())
        .map(|(s, list)| idle_note(&meta.sides[s], list))
        .collect()
}

/// [`table`] followed by what the odds may hinge on (`caveats`: switches
/// and disputed readings, `caveats::of_battle`), as `fam batch` prints it.
pub fn table_with_caveats(report: &Report, caveats: &[String], wide: bool) -> String {
    let mut text = table_as(report, wide);
    if !caveats.is_empty() {
        text.push_str("The odds may hinge on these readings and switches (docs/readings.md):\n");
        for c in caveats {
            text.push_str(&format!("  {}\n", wrap(c, REPORT_COLUMNS - 2, "    ")));
        }
    }
    text
}

/// The warning line for one side's idle weapons.
fn idle_note(side: &str, list: &[IdleWeapon<'_>]) -> String {
    let waiting = list.iter().filter(|w| lacked_threats(w.info, w.tally)).count() as u64;
    let never = list
        .iter()
        .filter(|w| w.tally.fired == 0 && !lacked_threats(w.info, w.tally))
        .count() as u64;
    let rarely = list.len() as u64 - waiting - never;
    let besides = match waiting {
        0 => String::new(),
        n => format!(
            " (besides {} with nothing to shoot at)",
            plural(n, "point-defence weapon")
        ),
    };
    let what = match (never, rarely) {
        (0, 0) => {
            return format!(
                "Note: {} of {side} had nothing to shoot at.",
                plural(waiting, "point-defence weapon")
            );
        }
        (n, 0) => format!("{} of {side} never fired", plural(n, "weapon")),
        (0, r) => format!("{} of {side} fired in under 1 % of the runs", plural(r, "weapon")),
        (n, r) => format!(
            "{} of {side} never fired and {r} fired in under 1 % of the runs",
            plural(n, "weapon")
        ),
    };
    let stays = if never + rarely == 1 { "it stays" } else { "they stay" };
    format!("Note: {what}; the odds above assume {stays} idle{besides}.")
}

/// One CSV field, quoted when it needs it (RFC 4180).
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A floating-point CSV field: in full precision (the shortest digits that
/// read back exactly) and always with a decimal point, `0.0` and `1.0`
/// included, so that readers that guess a column's type from its values
/// (pandas, polars) read a rate that is 0 in every row as floating point.
fn float(x: f64) -> String {
    let s = format!("{x}");
    if x.is_finite() && !s.contains('.') { s + ".0" } else { s }
}

fn num(x: Option<f64>) -> String {
    x.map_or(String::new(), float)
}

fn num_u(x: Option<u32>) -> String {
    x.map_or(String::new(), |x| x.to_string())
}

/// `units.csv`: one row per Unit.
pub fn units_csv(report: &Report) -> String {
    let Report { meta, tally: t } = report;
    let n = t.runs;
    let mut out = String::from(
        "id,name,side,side_name,formation,hull,points,runs,destroyed,destroyed_rate,destroyed_ci95_lo,destroyed_ci95_hi,surrendered,surrendered_rate,withdrawn,withdrawn_rate,untouched,untouched_rate,crippled,crippled_rate,damaged,damaged_rate,mean_hull_damage,hull_damage_ci95_lo,hull_damage_ci95_hi,hull_damage_p50,hull_damage_p90,side_wins,survived_side_won,survive_if_side_wins\n",
    );
    for (i, u) in t.units.iter().enumerate() {
        let info = &meta.units[i];
        let mut cells = vec![
            i.to_string(),
            field(&info.name),
            info.side.to_string(),
            field(&meta.sides[info.side]),
            field(&info.formation),
            info.hull.to_string(),
            info.points.to_string(),
            n.to_string(),
        ];
        for fate in Fate::ALL {
            let c = u.fates[fate as usize];
            cells.push(c.to_string());
            cells.push(float(rate(c, n)));
            if fate == Fate::Destroyed {
                let [lo, hi] = wilson(c, n);
                cells.push(float(lo));
                cells.push(float(hi));
            }
        }
        let m = u.hull_damage.mean();
        cells.push(num(m.map(|m| m.mean)));
        cells.push(num(m.map(|m| m.ci95[0])));
        cells.push(num(m.map(|m| m.ci95[1])));
        cells.push(num_u(u.hull_damage.percentile(50)));
        cells.push(num_u(u.hull_damage.percentile(90)));
        let wins = t.sides[info.side].wins;
        cells.push(wins.to_string());
        cells.push(u.survived_side_won.to_string());
        cells.push(if wins == 0 {
            String::new()
        } else {
            float(rate(u.survived_side_won, wins))
        });
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

/// `sides.csv`: one row per side, then one for draws and one for undecided
/// runs (`kind` says which).
pub fn sides_csv(report: &Report) -> String {
    let Report { meta, tally: t } = report;
    let n = t.runs;
    let mut out = String::from(
        "kind,id,name,runs,count,rate,ci95_lo,ci95_hi,points_lost_mean,points_lost_ci95_lo,points_lost_ci95_hi,points_lost_p50,points_lost_p90,points_lost_max,points_at_start\n",
    );
    let row = |kind: &str, id: String, name: &str, c: u64, h: Option<&Histogram>| {
        let [lo, hi] = wilson(c, n);
        let mut cells = vec![
            kind.to_string(),
            id,
            field(name),
            n.to_string(),
            c.to_string(),
            float(rate(c, n)),
            float(lo),
            float(hi),
        ];
        match h {
            Some(h) => {
                let m = h.mean();
                cells.push(num(m.map(|m| m.mean)));
                cells.push(num(m.map(|m| m.ci95[0])));
                cells.push(num(m.map(|m| m.ci95[1])));
                cells.push(num_u(h.percentile(50)));
                cells.push(num_u(h.percentile(90)));
                cells.push(num_u(h.max()));
                cells.push(h.hi().to_string());
            }
            None => cells.extend(std::iter::repeat_n(String::new(), 7)),
        }
        cells.join(",") + "\n"
    };
    for (i, s) in t.sides.iter().enumerate() {
        out.push_str(&row(
            "side",
            i.to_string(),
            &meta.sides[i],
            s.wins,
            Some(&s.points_lost),
        ));
    }
    out.push_str(&row("draw", String::new(), "draw", t.draws, None));
    out.push_str(&row("undecided", String::new(), "undecided", t.undecided, None));
    out
}

/// Version of the compare JSON (docs/batch-json.md): 2 since every
/// difference in it is B − A (version 1 gave the unpaired ones as A − B).
pub const COMPARE_SCHEMA_VERSION: u32 = 2;

/// Two batches side by side.
#[derive(Debug, Clone, Serialize)]
pub struct CompareJson {
    pub schema: String,
    pub version: u32,
    /// Sides are matched by id (position in `[sides]`).
    pub sides: Vec<SideDiff>,
    pub draws: RateDiff,
    /// Draws over paired runs (B − A).
    pub draws_paired: PairedDiff,
    /// Units are matched by name; a Unit in only one scenario has `null`
    /// on the other side.
    pub units: Vec<UnitDiff>,
    pub a: BatchJson,
    pub b: BatchJson,
}

/// A rate in A and in B and their difference, B − A (what changing A into B
/// did), with Newcombe's 95 % interval for two independent batches.
#[derive(Debug, Clone, Serialize)]
pub struct RateDiff {
    pub a: f64,
    pub b: f64,
    pub difference: f64,
    pub ci95: [f64; 2],
}

#[derive(Debug, Clone, Serialize)]
pub struct SideDiff {
    pub id: usize,
    pub name_a: Option<String>,
    pub name_b: Option<String>,
    /// B − A as two independent batches.
    pub win_rate: RateDiff,
    /// B − A run by run.
    #[serde(flatten)]
    pub paired: PairedDiff,
}

/// An outcome's rate in B minus its rate in A over paired runs (run `i` of
/// both played with the same seed), with Newcombe's paired 95 % interval
/// ([`paired_difference`]), the 2×2 counts it comes from, and what it shows.
#[derive(Debug, Clone, Serialize)]
pub struct PairedDiff {
    pub paired_difference: f64,
    pub paired_ci95: [f64; 2],
    pub paired_counts: Paired,
    pub verdict: Verdict,
}

/// What a paired interval shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The whole interval is above 0: the outcome is more frequent in B.
    BBetter,
    /// The whole interval is below 0: it is more frequent in A.
    ABetter,
    /// The interval contains 0.
    NoDifference,
}

impl Verdict {
    /// The verdict of a B − A interval.
    pub fn of(ci: [f64; 2]) -> Verdict {
        if ci[0] > 0.0 {
            Verdict::BBetter
        } else if ci[1] < 0.0 {
            Verdict::ABetter
        } else {
            Verdict::NoDifference
        }
    }
}

/// Outcome `code` (a side's index or [`super::DRAW`]) over the paired runs.
fn paired_diff(codes_a: &[u8], codes_b: &[u8], code: Option<u8>) -> PairedDiff {
    let counts = match code {
        Some(c) => super::paired_wins(codes_a, codes_b, c),
        // A side no code can name never won a run.
        None => Paired {
            n: codes_a.len().min(codes_b.len()) as u64,
            ..Paired::default()
        },
    };
    let (paired_difference, paired_ci95) = paired_difference(&counts);
    PairedDiff {
        paired_difference,
        paired_ci95,
        paired_counts: counts,
        verdict: Verdict::of(paired_ci95),
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct UnitDiff {
    pub name: String,
    pub destroyed_rate: Option<RateDiff>,
    pub destroyed_rate_a: Option<f64>,
    pub destroyed_rate_b: Option<f64>,
    pub mean_hull_damage_a: Option<f64>,
    pub mean_hull_damage_b: Option<f64>,
    /// B − A with a Welch 95 % interval, when both have runs.
    pub hull_damage_difference: Option<f64>,
    pub hull_damage_ci95: Option<[f64; 2]>,
}

/// `x` of `n` runs in A, `y` of `m` in B.
fn rate_diff(x: u64, n: u64, y: u64, m: u64) -> RateDiff {
    let (difference, ci95) = newcombe(y, m, x, n);
    RateDiff {
        a: rate(x, n),
        b: rate(y, m),
        difference,
        ci95,
    }
}

/// The comparison of batch `a` with batch `b`, every difference B − A:
/// rates as independent batches, and sides and draws run by run from the runs'
/// outcome codes ([`super::run_with_outcomes`]; run `i` of both played
/// with the same seed).
pub fn compare(a: &Report, b: &Report, codes_a: &[u8], codes_b: &[u8]) -> CompareJson {
    let (ta, tb) = (&a.tally, &b.tally);
    let sides = (0..ta.sides.len().max(tb.sides.len()))
        .map(|i| SideDiff {
            id: i,
            name_a: a.meta.sides.get(i).cloned(),
            name_b: b.meta.sides.get(i).cloned(),
            win_rate: rate_diff(
                ta.sides.get(i).map_or(0, |s| s.wins),
                ta.runs,
                tb.sides.get(i).map_or(0, |s| s.wins),
                tb.runs,
            ),
            paired: paired_diff(codes_a, codes_b, u8::try_from(i).ok().filter(|c| *c < super::DRAW)),
        })
        .collect();
    let mut names: Vec<&str> = a.meta.units.iter().map(|u| u.name.as_str()).collect();
    for u in &b.meta.units {
        if !names.contains(&u.name.as_str()) {
            names.push(&u.name);
        }
    }
    let units = names
        .iter()
        .map(|name| {
            let ua = a.meta.units.iter().position(|u| u.name == *name).map(|i| &ta.units[i]);
            let ub = b.meta.units.iter().position(|u| u.name == *name).map(|i| &tb.units[i]);
            let dead = |u: &super::tally::UnitTally| u.fates[Fate::Destroyed as usize];
            let (ma, mb) = (
                ua.and_then(|u| u.hull_damage.mean()),
                ub.and_then(|u| u.hull_damage.mean()),
            );
            let hull = match (ma, mb) {
                (Some(x), Some(y)) => Some(mean_difference(&y, tb.runs, &x, ta.runs)),
                _ => None,
            };
            UnitDiff {
                name: name.to_string(),
                destroyed_rate: match (ua, ub) {
                    (Some(x), Some(y)) => Some(rate_diff(dead(x), ta.runs, dead(y), tb.runs)),
                    _ => None,
                },
                destroyed_rate_a: ua.map(|u| rate(dead(u), ta.runs)),
                destroyed_rate_b: ub.map(|u| rate(dead(u), tb.runs)),
                mean_hull_damage_a: ma.map(|m| m.mean),
                mean_hull_damage_b: mb.map(|m| m.mean),
                hull_damage_difference: hull.map(|h| h.0),
                hull_damage_ci95: hull.map(|h| h.1),
            }
        })
        .collect();
    CompareJson {
        schema: "fam-compare".into(),
        version: COMPARE_SCHEMA_VERSION,
        sides,
        draws: rate_diff(ta.draws, ta.runs, tb.draws, tb.runs),
        draws_paired: paired_diff(codes_a, codes_b, Some(super::DRAW)),
        units,
        a: super::json::to_json(a),
        b: super::json::to_json(b),
    }
}

fn signed_pts(x: f64, d: usize) -> String {
    format!("{:+.*}", d, x * 100.0)
}

fn diff_text(r: &RateDiff, d: usize) -> String {
    format!(
        "{} [{}, {}]",
        signed_pts(r.difference, d),
        signed_pts(r.ci95[0], d),
        signed_pts(r.ci95[1], d)
    )
}

fn paired_text(p: &PairedDiff, d: usize) -> String {
    format!(
        "{} [{}, {}]",
        signed_pts(p.paired_difference, d),
        signed_pts(p.paired_ci95[0], d),
        signed_pts(p.paired_ci95[1], d)
    )
}

/// The verdict in words: `B is better by 4.1 pp [2.9, 5.3]`, `A is better
/// by …` (A − B and its interval), or `no difference shown: +0.8 pp [-0.4,
/// 2.0]` (B − A).
pub fn verdict_text(p: &PairedDiff, d: usize) -> String {
    let pts = |x: f64| format!("{:.*}", d, x * 100.0);
    let [lo, hi] = p.paired_ci95;
    match p.verdict {
        Verdict::BBetter => format!(
            "B is better by {} pp [{}, {}]",
            pts(p.paired_difference),
            pts(lo),
            pts(hi)
        ),
        Verdict::ABetter => format!(
            "A is better by {} pp [{}, {}]",
            pts(-p.paired_difference),
            pts(-hi),
            pts(-lo)
        ),
        Verdict::NoDifference => format!(
            "no difference shown: {} pp [{}, {}]",
            signed_pts(p.paired_difference, d),
            pts(lo),
            pts(hi)
        ),
    }
}

/// A side's name in both scenarios.
fn side_label(s: &SideDiff) -> String {
    match (&s.name_a, &s.name_b) {
        (Some(x), Some(y)) if x == y => x.clone(),
        (Some(x), Some(y)) => format!("{x} / {y}"),
        (Some(x), None) | (None, Some(x)) => x.clone(),
        (None, None) => format!("side {}", s.id),
    }
}

/// The comparison for people, every difference B − A: outcomes run by run
/// (paired intervals), Units as independent batches, and a verdict per side.
pub fn compare_table(a: &Report, b: &Report, codes_a: &[u8], codes_b: &[u8]) -> String {
    let c = compare(a, b, codes_a, codes_b);
    let d = decimals(a.tally.runs.min(b.tally.runs));
    let mut out = String::new();
    let _ = writeln!(out, "A: {} ({})", a.meta.title, a.meta.scenario);
    let _ = writeln!(out, "B: {} ({})", b.meta.title, b.meta.scenario);
    let _ = writeln!(
        out,
        "{} and {}, base seed {} (the same run seeds in both)",
        plural(a.tally.runs, "run"),
        plural(b.tally.runs, "run"),
        a.meta.seed
    );
    outcome_rows(&mut out, &c, d);
    let (ea, eb) = (a.tally.exchanges.mean(), b.tally.exchanges.mean());
    let _ = writeln!(out, "\nExchanges per battle: A {}, B {}", mean_text(ea), mean_text(eb));
    unit_rows(&mut out, &c, d);
    let _ = writeln!(out);
    for s in &c.sides {
        let _ = writeln!(out, "Verdict for {}: {}", side_label(s), verdict_text(&s.paired, d));
    }
    out
}

/// Sides and draws: the rates, and B − A with its paired interval.
fn outcome_rows(out: &mut String, c: &CompareJson, d: usize) {
    let _ = writeln!(
        out,
        "Outcomes: B − A in percentage points, 95 % interval for paired runs in brackets (Newcombe 1998, method 10: run i of A and run i of B share a seed)."
    );
    let mut rows: Vec<(String, f64, f64, &PairedDiff)> = c
        .sides
        .iter()
        .map(|s| (format!("{} wins", side_label(s)), s.win_rate.a, s.win_rate.b, &s.paired))
        .collect();
    rows.push(("Draw".into(), c.draws.a, c.draws.b, &c.draws_paired));
    let w = rows.iter().map(|r| width(&r.0)).max().unwrap_or(0).max(7);
    let _ = writeln!(
        out,
        "\n{}  {:>9}  {:>9}  B − A [95 %, paired]",
        pad("Outcome", w),
        "A",
        "B"
    );
    for (name, ra, rb, p) in &rows {
        let _ = writeln!(
            out,
            "{}  {:>9}  {:>9}  {}",
            pad(name, w),
            pct(*ra, d),
            pct(*rb, d),
            paired_text(p, d)
        );
    }
}

/// Units matched by name: loss rates and hull damage, B − A as two
/// independent batches.
fn unit_rows(out: &mut String, c: &CompareJson, d: usize) {
    let _ = writeln!(
        out,
        "\nUnits: B − A, 95 % interval as for independent batches (Newcombe; conservative, as the shared seeds make A and B move together)."
    );
    let uw = c.units.iter().map(|u| width(&u.name)).max().unwrap_or(0).max(4);
    let _ = writeln!(
        out,
        "\n{}  {:>9}  {:>9}  {:>26}  {:>7}  {:>7}  hull lost B − A [95 %]",
        pad("Unit", uw),
        "lost A",
        "lost B",
        "B − A [95 %]",
        "hull A",
        "hull B"
    );
    let o = |x: Option<f64>, f: &dyn Fn(f64) -> String| x.map_or("-".to_string(), f);
    for u in &c.units {
        let _ = writeln!(
            out,
            "{}  {:>9}  {:>9}  {:>26}  {:>7}  {:>7}  {}",
            pad(&u.name, uw),
            o(u.destroyed_rate_a, &|x| pct(x, d)),
            o(u.destroyed_rate_b, &|x| pct(x, d)),
            u.destroyed_rate.as_ref().map_or("-".into(), |r| diff_text(r, d)),
            o(u.mean_hull_damage_a, &|x| format!("{x:.2}")),
            o(u.mean_hull_damage_b, &|x| format!("{x:.2}")),
            match (u.hull_damage_difference, u.hull_damage_ci95) {
                (Some(x), Some([lo, hi])) => format!("{x:+.2} [{lo:+.2}, {hi:+.2}]"),
                _ => "-".into(),
            }
        );
    }
}

/// The comparison as JSON (pretty, ending in a newline).
pub fn compare_json(a: &Report, b: &Report, codes_a: &[u8], codes_b: &[u8]) -> String {
    let mut s = serde_json::to_string_pretty(&compare(a, b, codes_a, codes_b)).unwrap_or_default();
    s.push('\n');
    s
}
