//! TOML as fam writes it: the one quoting of strings ([`quote`]) and keys
//! ([`key`]), and [`TomlOut`], the line writer every scenario and orders
//! file fam writes goes through — the next Exchange's scenario, orders
//! templates and plots (`write`), standing orders and mixes (`doctrine`,
//! `mix`), the state after an Exchange (`resolve`), the battle the web page
//! builds (`serve`), an imported FTJava game (`ftjava`) and a generated
//! battle (`generate`).
//!
//! It knows the pieces those documents share — comments, `key = value`
//! lines, table headers, name lists, `[[range]]` tables, the words and
//! system numbers of plots — and nothing of which document it writes, so
//! where blank lines go stays with each writer. It counts the lines it has
//! written, for `serve`, which records what part of the page each line
//! stands for.
//!
//! It sits at the bottom of `orders`: it imports `engine` types only.

use std::fmt::{Display, Write as _};

use crate::engine::plot::Maneuver;
use crate::engine::state::Battle;

/// A TOML basic string: `"…"` with quotes, backslashes and control
/// characters escaped (`\t`, `\n` and the other short escapes where TOML
/// has one, `\uXXXX` otherwise), so any name survives the round trip and
/// stays on one line.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A TOML key: bare when it is only ASCII letters, digits, `_` and `-`,
/// quoted ([`quote`]) otherwise.
pub fn key(s: &str) -> String {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        s.to_string()
    } else {
        quote(s)
    }
}

/// `["a", "b"]`: names as a TOML array of strings.
pub fn list<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> String {
    let quoted: Vec<String> = names.into_iter().map(|n| quote(n.as_ref())).collect();
    format!("[{}]", quoted.join(", "))
}

/// `[8, 9, 10]`: 0-based system indices as the 1-based numbers of the orders.
pub fn numbers(systems: &[usize]) -> String {
    let n: Vec<String> = systems.iter().map(|s| (s + 1).to_string()).collect();
    format!("[{}]", n.join(", "))
}

/// A maneuver's word in the orders (`close`, `maintain`, `withdraw`).
pub fn maneuver(m: Maneuver) -> &'static str {
    match m {
        Maneuver::Close => "close",
        Maneuver::Maintain => "maintain",
        Maneuver::Withdraw => "withdraw",
    }
}

/// Secondary maneuvers grouped by word, the words in the order they first
/// appear (a TOML table names each word once), each with its targets in
/// order.
pub fn by_maneuver<T>(moves: impl IntoIterator<Item = (Maneuver, T)>) -> Vec<(Maneuver, Vec<T>)> {
    let mut groups: Vec<(Maneuver, Vec<T>)> = Vec::new();
    for (m, target) in moves {
        match groups.iter_mut().find(|g| g.0 == m) {
            Some(g) => g.1.push(target),
            None => groups.push((m, vec![target])),
        }
    }
    groups
}

/// Text that may stand in a TOML comment, which allows no control
/// character below U+0020 but tab, nor DEL: each becomes a space (so a
/// comment also stays one line).
pub fn comment_safe(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_control() && c != '\t' { ' ' } else { c })
        .collect()
}

/// The widest line [`TomlOut::wrapped_comment`] writes, in bytes.
const WRAP_COLUMNS: usize = 78;

/// A TOML document written line by line. Every method writes whole lines,
/// so [`TomlOut::lines`] is always the number of the next line (0-based).
#[derive(Debug, Default)]
pub struct TomlOut {
    text: String,
    lines: usize,
}

impl TomlOut {
    pub fn new() -> Self {
        Self::default()
    }

    /// The lines written so far.
    pub fn lines(&self) -> usize {
        self.lines
    }

    /// Whether nothing has been written.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// The document.
    pub fn finish(self) -> String {
        self.text
    }

    /// One line as given (its newlines, if any, are counted).
    pub fn line(&mut self, text: &str) {
        self.text.push_str(text);
        self.text.push('\n');
        self.lines += 1 + text.matches('\n').count();
    }

    /// An empty line.
    pub fn blank(&mut self) {
        self.line("");
    }

    /// `# text`, made [`comment_safe`].
    pub fn comment(&mut self, text: &str) {
        self.line(&format!("# {}", comment_safe(text)));
    }

    /// `text` as comment lines folded between words before
    /// [`WRAP_COLUMNS`] columns; runs of blanks become one space.
    pub fn wrapped_comment(&mut self, text: &str) {
        let mut line = String::from("#");
        for word in text.split_whitespace() {
            if line.len() > 1 && line.len() + 1 + word.len() > WRAP_COLUMNS {
                self.line(&comment_safe(&line));
                line = String::from("#");
            }
            line.push(' ');
            line.push_str(word);
        }
        self.line(&comment_safe(&line));
    }

    /// `KEY = value`: the key written by [`key`], the value as given (a
    /// string value must come [`quote`]d).
    pub fn pair(&mut self, name: &str, value: impl Display) {
        self.line(&format!("{} = {value}", key(name)));
    }

    /// `KEY = ["a", "b"]`: a [`pair`](Self::pair) whose value is a [`list`]
    /// of names.
    pub fn names<S: AsRef<str>>(&mut self, name: &str, names: impl IntoIterator<Item = S>) {
        self.pair(name, list(names));
    }

    /// `   # note` at the end of the last line written.
    pub fn note(&mut self, note: &str) {
        debug_assert!(self.text.ends_with('\n'), "a note follows a line");
        self.text.pop();
        let _ = writeln!(self.text, "   # {}", comment_safe(note));
    }

    /// `[name]`: `name` is written as given, its parts already [`key`]s.
    pub fn table(&mut self, name: &str) {
        self.line(&format!("[{name}]"));
    }

    /// `[[name]]`: `name` is written as given, its parts already [`key`]s.
    pub fn array_table(&mut self, name: &str) {
        self.line(&format!("[[{name}]]"));
    }

    /// A `[[range]]` table: the range between Formations `a` and `b`.
    pub fn range(&mut self, a: &str, b: &str, mu: impl Display) {
        self.array_table("range");
        self.names("between", [a, b]);
        self.pair("mu", mu);
    }

    /// A [`range`](Self::range) for every pair of the battle's Formations,
    /// each after a blank line.
    pub fn ranges(&mut self, battle: &Battle) {
        let n = battle.formations.len();
        for a in 0..n {
            for b in a + 1..n {
                self.blank();
                self.range(
                    &battle.formations[a].name,
                    &battle.formations[b].name,
                    battle.ranges.get(a, b),
                );
            }
        }
    }

    /// Removes the blank lines at the end of the document.
    pub fn trim_blank_end(&mut self) {
        while self.text.ends_with("\n\n") {
            self.text.pop();
            self.lines -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_quoted_as_toml_needs() {
        assert_eq!(key("Lancers"), "Lancers");
        assert_eq!(key("Pickets_2-a"), "Pickets_2-a");
        assert_eq!(key("Battle Line"), "\"Battle Line\"");
        assert_eq!(key(""), "\"\"");
        assert_eq!(key("a.b"), "\"a.b\"");
        assert_eq!(key("Wétch"), "\"Wétch\"");
        assert_eq!(quote("say \"hi\" \\ now"), r#""say \"hi\" \\ now""#);
        assert_eq!(quote("a\tb\nc\u{7f}\u{1}é"), r#""a\tb\nc\u007F\u0001é""#);
        assert_eq!(quote("\u{8}\u{c}\r\u{85}"), r#""\b\f\r\u0085""#);
        assert_eq!(list(["A", "B c"]), r#"["A", "B c"]"#);
        assert_eq!(numbers(&[7, 8]), "[8, 9]");
    }

    #[test]
    fn lines_are_counted_and_notes_join_their_line() {
        let mut out = TomlOut::new();
        out.comment("Top\u{1}\u{85}");
        out.pair("Battle Line", quote("x"));
        out.note("beside");
        out.blank();
        out.range("A", "B", 30);
        out.blank();
        out.blank();
        assert_eq!(out.lines(), 8);
        out.trim_blank_end();
        assert_eq!(out.lines(), 6);
        assert_eq!(
            out.finish(),
            "# Top \u{85}\n\"Battle Line\" = \"x\"   # beside\n\n[[range]]\nbetween = [\"A\", \"B\"]\nmu = 30\n"
        );
    }

    #[test]
    fn long_comments_fold_between_words() {
        let mut out = TomlOut::new();
        let words = ["word"; 20].join(" ");
        out.wrapped_comment(&words);
        let text = out.finish();
        assert!(
            text.lines().all(|l| l.len() <= WRAP_COLUMNS && l.starts_with("# ")),
            "{text}"
        );
        assert_eq!(text.lines().count(), 2);
    }
}
