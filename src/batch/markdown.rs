//! The batch as a summary to paste into a forum post or a chat
//! (`--format markdown`): who wins and how sure that is, how long battles
//! last, what becomes of each side's Units, idle weapons and a battle to
//! replay. Markdown tables, and every line at most [`WIDTH`] characters for
//! names of ordinary length, so that it also reads as plain text in a
//! terminal or a code block. The full statistics stay in the text table,
//! the JSON and the CSV.

use std::fmt::Write as _;

use super::Report;
use super::idle::{idle_weapons, lacked_threats};
use super::stats::{MeanStats, rate, wilson};
use super::tally::{Fate, REASONS};
use super::text::decimals;

/// The widest line the summary aims for.
pub const WIDTH: usize = 80;

/// Most idle weapons listed per side.
const IDLE_LISTED: usize = 6;

/// How a column's cells line up.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Align {
    Left,
    Right,
}

/// The summary as Markdown text, ending in a newline.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    heading(&mut out, report);
    outcomes(&mut out, report);
    battle_length(&mut out, report);
    for side in 0..report.meta.sides.len() {
        side_units(&mut out, report, side);
    }
    unit_notes(&mut out);
    idle(&mut out, report);
    replay(&mut out, report);
    let _ = writeln!(
        out,
        "\n_fam {}, `fam batch --format markdown`; `--json` has every statistic._",
        report.meta.fam_version
    );
    out
}

fn heading(out: &mut String, report: &Report) {
    let Report { meta, tally: t } = report;
    let _ = writeln!(out, "### {}\n", escape(&meta.title));
    let mut what = format!(
        "{} of `{}`, base seed {}, at most {} each",
        count(t.runs, "run"),
        meta.scenario,
        meta.seed,
        count(u64::from(meta.exchanges), "Exchange")
    );
    if let Some(s) = meta.shard {
        let _ = write!(what, " (shard {} of {})", s.index, s.count);
    } else if meta.range[0] != 0 {
        let _ = write!(what, " (runs {}..{})", meta.range[0], meta.range[1]);
    }
    if let Some(w) = meta.until_ci {
        let widest = super::widest_win_interval(t);
        let _ = if widest < w {
            write!(
                what,
                ", played until every win-rate interval was narrower than {}",
                pct(w, decimals(t.runs))
            )
        } else {
            write!(
                what,
                ", stopped at the run cap before every win-rate interval was narrower than {} (the widest is {})",
                pct(w, decimals(t.runs)),
                pct(widest, decimals(t.runs))
            )
        };
    }
    let _ = write!(what, ". {}", meta.points_line());
    what.push_str(". Brackets: 95 % intervals.");
    out.push_str(&wrap(&what, WIDTH));
    out.push('\n');
}

fn outcomes(out: &mut String, report: &Report) {
    let Report { meta, tally: t } = report;
    let (n, d) = (t.runs, decimals(t.runs));
    let mut rows: Vec<(String, u64)> = meta
        .sides
        .iter()
        .zip(&t.sides)
        .map(|(name, s)| (format!("{} wins", escape(name)), s.wins))
        .collect();
    rows.push(("Draw".into(), t.draws));
    if t.undecided > 0 {
        rows.push((
            format!("Undecided after {}", count(u64::from(meta.exchanges), "Exchange")),
            t.undecided,
        ));
    }
    let cells: Vec<Vec<String>> = rows
        .into_iter()
        .map(|(name, c)| vec![name, c.to_string(), pct(rate(c, n), d), interval(wilson(c, n), d)])
        .collect();
    out.push('\n');
    out.push_str(&table(
        &["Outcome", "Runs", "Rate", "95 % interval"],
        &[Align::Left, Align::Right, Align::Right, Align::Left],
        &cells,
    ));
}

fn battle_length(out: &mut String, report: &Report) {
    let t = &report.tally;
    let decided: Vec<String> = REASONS
        .iter()
        .zip(t.decided_by)
        .filter(|(_, c)| *c > 0)
        .map(|(r, c)| format!("{} {c}", r.replace('_', " ")))
        .collect();
    let mut text = String::new();
    if !decided.is_empty() {
        let _ = write!(text, "Decided by {}. ", decided.join(", "));
    }
    let h = &t.exchanges;
    if let (Some(m), Some(p50), Some(p90), Some(max)) = (h.mean(), h.percentile(50), h.percentile(90), h.max()) {
        let _ = write!(
            text,
            "Battles lasted {} Exchanges on average: median {p50}, 90th percentile {p90}, longest {max}.",
            mean(m, 2)
        );
    }
    if !text.is_empty() {
        out.push('\n');
        out.push_str(&wrap(&text, WIDTH));
        out.push('\n');
    }
}

/// One side: the points it loses, and a table of its Units.
fn side_units(out: &mut String, report: &Report, side: usize) {
    let Report { meta, tally: t } = report;
    let (n, d) = (t.runs, decimals(t.runs));
    let lost = &t.sides[side].points_lost;
    let mut line = format!("**{}**", escape(&meta.sides[side]));
    if let (Some(m), Some(p50), Some(max)) = (lost.mean(), lost.percentile(50), lost.max()) {
        let _ = write!(
            line,
            ": loses {} points per battle on average (median {p50}, at most {max} of {})",
            mean(m, 1),
            lost.hi()
        );
    }
    out.push('\n');
    out.push_str(&wrap(&line, WIDTH));
    out.push_str("\n\n");
    let wins = t.sides[side].wins;
    let rows: Vec<Vec<String>> = t
        .units
        .iter()
        .zip(&meta.units)
        .filter(|(_, info)| info.side == side)
        .map(|(u, info)| {
            let lost = u.fates[Fate::Destroyed as usize] + u.fates[Fate::Surrendered as usize];
            let hull = u
                .hull_damage
                .mean()
                .map_or("-".into(), |m| format!("{:.1} of {}", m.mean, info.hull));
            let alive = if wins == 0 {
                "-".into()
            } else {
                pct(rate(u.survived_side_won, wins), d)
            };
            vec![
                escape(&info.name),
                pct(rate(lost, n), d),
                pct(rate(u.fates[Fate::Crippled as usize], n), d),
                hull,
                alive,
            ]
        })
        .collect();
    out.push_str(&table(
        &["Unit", "Lost", "Crippled", "Hull lost", "Alive if won"],
        &[Align::Left, Align::Right, Align::Right, Align::Right, Align::Right],
        &rows,
    ));
}

fn unit_notes(out: &mut String) {
    let text = "Lost: destroyed, abandoned or surrendered at the end of the battle. \
        Crippled: still in the fight, crippled. Hull lost: hull boxes lost on \
        average (craft for fighters and gunboats). Alive if won: still in the \
        fight or in the Reserve in the battles its side won.";
    out.push('\n');
    out.push_str(&wrap(text, WIDTH));
    out.push('\n');
}

/// Weapons that never fired, or fired in under 1 % of the runs, with
/// something to fire at (point defence that saw no threat is left out).
fn idle(out: &mut String, report: &Report) {
    let Report { meta, tally: t } = report;
    let d = decimals(t.runs);
    let mut items = Vec::new();
    for side in 0..meta.sides.len() {
        let list: Vec<_> = idle_weapons(report, side)
            .into_iter()
            .filter(|w| !lacked_threats(w.info, w.tally))
            .collect();
        for w in list.iter().take(IDLE_LISTED) {
            let unit = meta.units.get(w.info.unit).map_or("", |u| u.name.as_str());
            let why = w.reason.as_deref().map_or(String::new(), |r| format!(": {r}"));
            items.push(format!(
                "- {}, system {} ({}), fired in {} of the runs{why}",
                escape(unit),
                w.info.system + 1,
                escape(&w.info.kind),
                pct(rate(w.tally.fired, t.runs), d)
            ));
        }
        if list.len() > IDLE_LISTED {
            items.push(format!(
                "- and {} more of {}",
                count((list.len() - IDLE_LISTED) as u64, "weapon"),
                escape(&meta.sides[side])
            ));
        }
    }
    if items.is_empty() {
        return;
    }
    out.push_str("\nIdle weapons (the odds above assume they stay idle):\n\n");
    for item in items {
        out.push_str(&hanging(&item, WIDTH, "  "));
        out.push('\n');
    }
}

/// The longest battle, as the command that replays it.
fn replay(out: &mut String, report: &Report) {
    let Report { meta, tally: t } = report;
    let Some((k, run)) = t.longest else { return };
    let seed = super::run_seed(meta.seed, run);
    let _ = writeln!(
        out,
        "\nReplay the longest battle ({}, run {run}):\n\n```sh\n{}\n```",
        count(u64::from(k), "Exchange"),
        command_lines(&meta.replay(seed), WIDTH)
    );
}

/// A Markdown table: padded into columns when every line then fits in
/// [`WIDTH`], else with single spaces (as valid, only not lined up).
fn table(header: &[&str], align: &[Align], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count().max(3));
        }
    }
    // `| ` + cells joined by ` | ` + ` |`: the widths and 3 per column, plus 1.
    let line_width = widths.iter().sum::<usize>() + 3 * widths.len() + 1;
    let padded = line_width <= WIDTH;
    let line = |cells: &mut dyn Iterator<Item = (String, usize, Align)>| -> String {
        let parts: Vec<String> = cells
            .map(|(c, w, a)| match (padded, a) {
                (false, _) => c,
                (true, Align::Left) => format!("{c:<w$}"),
                (true, Align::Right) => format!("{c:>w$}"),
            })
            .collect();
        format!("| {} |\n", parts.join(" | "))
    };
    let mut out = line(
        &mut header
            .iter()
            .zip(&widths)
            .zip(align)
            .map(|((h, w), a)| (h.to_string(), *w, *a)),
    );
    let rules = widths.iter().zip(align).map(|(w, a)| {
        let dashes = if padded { *w } else { 3 };
        let rule = match a {
            Align::Left => "-".repeat(dashes),
            Align::Right => format!("{}:", "-".repeat(dashes - 1)),
        };
        (rule, *w, Align::Left)
    });
    out.push_str(&line(&mut rules.collect::<Vec<_>>().into_iter()));
    for row in rows {
        out.push_str(&line(
            &mut row
                .iter()
                .zip(&widths)
                .zip(align)
                .map(|((c, w), a)| (c.clone(), *w, *a)),
        ));
    }
    out
}

/// `text` broken into lines of at most `width` characters at spaces (a
/// word longer than that stands on its own line).
fn wrap(text: &str, width: usize) -> String {
    hanging(text, width, "")
}

/// [`wrap`], with every line after the first indented by `indent`.
fn hanging(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::new();
    let mut line_len = 0;
    for word in text.split_whitespace() {
        let len = word.chars().count();
        if line_len > 0 && line_len + 1 + len > width {
            out.push('\n');
            out.push_str(indent);
            line_len = indent.chars().count();
        } else if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(word);
        line_len += len;
    }
    out
}

/// A shell command broken before its options into lines of at most
/// `width` characters, continued with a backslash.
fn command_lines(command: &str, width: usize) -> String {
    // Words that belong together: an option and its value.
    let mut words: Vec<String> = Vec::new();
    let mut parts = command.split(' ').peekable();
    while let Some(w) = parts.next() {
        match parts.peek() {
            Some(next) if w.starts_with("--") && !next.starts_with("--") => {
                words.push(format!("{w} {next}"));
                parts.next();
            }
            _ => words.push(w.to_string()),
        }
    }
    let mut out = String::new();
    let mut line_len = 0;
    for word in words {
        let len = word.chars().count();
        if line_len > 0 && line_len + 1 + len + 2 > width {
            out.push_str(" \\\n    ");
            line_len = 4;
        } else if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(&word);
        line_len += len;
    }
    out
}

/// Text with the characters Markdown would read as markup escaped.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '\\' | '|' | '*' | '_' | '`' | '[' | ']' | '<' | '>' | '#') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn pct(x: f64, d: usize) -> String {
    format!("{:.*} %", d, x * 100.0)
}

fn interval(ci: [f64; 2], d: usize) -> String {
    format!("[{:.*}, {:.*}]", d, ci[0] * 100.0, d, ci[1] * 100.0)
}

fn mean(m: MeanStats, d: usize) -> String {
    format!("{:.*} [{:.*}, {:.*}]", d, m.mean, d, m.ci95[0], d, m.ci95[1])
}

fn count(n: u64, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_wraps_at_spaces_within_the_width() {
        let text = "one two three four five six seven";
        assert_eq!(wrap(text, 10), "one two\nthree four\nfive six\nseven");
        assert_eq!(hanging("- aaa bbb ccc", 9, "  "), "- aaa bbb\n  ccc");
        assert_eq!(wrap("averyveryverylongword x", 5), "averyveryverylongword\nx");
    }

    #[test]
    fn a_long_command_breaks_before_an_option_with_its_value() {
        let cmd = "fam resolve scenarios/fleet-action.toml --orders a.toml --seed 12345678901234567890 --exchanges 10";
        let lines = command_lines(cmd, 50);
        assert_eq!(
            lines,
            "fam resolve scenarios/fleet-action.toml \\\n    --orders a.toml --seed 12345678901234567890 \\\n    --exchanges 10"
        );
        assert!(lines.lines().all(|l| l.chars().count() <= 50), "{lines}");
    }

    #[test]
    fn a_table_is_padded_when_it_fits_and_plain_when_it_does_not() {
        let rows = vec![vec!["a".to_string(), "1".to_string()]];
        assert_eq!(
            table(&["Name", "N"], &[Align::Left, Align::Right], &rows),
            "| Name |   N |\n| ---- | --: |\n| a    |   1 |\n"
        );
        let wide = vec![vec!["x".repeat(90), "1".to_string()]];
        let t = table(&["Name", "N"], &[Align::Left, Align::Right], &wide);
        assert_eq!(t, format!("| Name | N |\n| --- | --: |\n| {} | 1 |\n", "x".repeat(90)));
    }

    #[test]
    fn markup_in_names_is_escaped() {
        assert_eq!(escape("A|B *C* _d_"), "A\\|B \\*C\\* \\_d\\_");
    }
}
