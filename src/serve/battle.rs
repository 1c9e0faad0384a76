//! The battle the page builds: its JSON shape, the scenario TOML it
//! stands for, and loading it exactly as `fam batch` loads that TOML.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::ApiError;
use crate::diag::SourceFile;
use crate::gzf::ParseOptions;
use crate::library;
use crate::orders::Loaded;
use crate::orders::toml_out::{TomlOut, key, quote};

/// The most files a battle may list.
pub const MAX_FILES: usize = 16;
/// The most bytes one uploaded file may hold.
pub const MAX_FILE_BYTES: usize = 1 << 20;
/// The most Units (names in Formations) a battle may hold.
pub const MAX_UNITS: usize = 256;
/// The most bytes of a name (title, side, Formation, Unit, file).
pub const MAX_NAME_BYTES: usize = 200;

/// A battle as the page holds it (docs/serve-api.md).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Battle {
    #[serde(default)]
    pub title: String,
    /// The scenario's `seed` (a run request may give another).
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default)]
    pub files: Vec<FileRef>,
    #[serde(default)]
    pub sides: Vec<Side>,
    /// Every pair's range unless `ranges` says otherwise.
    #[serde(default)]
    pub start_range: Option<u32>,
    #[serde(default)]
    pub ranges: Vec<RangeSpec>,
    /// The `[victory]` table's keys and values.
    #[serde(default)]
    pub victory: serde_json::Map<String, Value>,
    /// The `[rules]` table's switches.
    #[serde(default)]
    pub rules: serde_json::Map<String, Value>,
}

/// A GZF file: a library file by name, or an uploaded one with its text.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileRef {
    pub name: String,
    #[serde(default)]
    pub text: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Side {
    pub name: String,
    #[serde(default)]
    pub formations: Vec<Formation>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Formation {
    pub name: String,
    #[serde(default)]
    pub units: Vec<String>,
    /// Standing orders (`[doctrine.NAME]`); `None` is the default doctrine.
    #[serde(default)]
    pub doctrine: Option<serde_json::Map<String, Value>>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RangeSpec {
    pub between: [String; 2],
    pub mu: u32,
}

/// The file name the scenario is given in outputs and replay commands.
pub const SCENARIO_NAME: &str = "scenario.toml";

impl Battle {
    /// Refuses what the page cannot have meant before any TOML is written:
    /// too many or too large files, a library name fam does not ship,
    /// overlong names and too many Units.
    pub fn check_limits(&self) -> Result<(), ApiError> {
        if self.files.len() > MAX_FILES {
            return Err(ApiError::refused(format!("a battle lists at most {MAX_FILES} files")));
        }
        for f in &self.files {
            check_name("a file name", &f.name)?;
            match &f.text {
                Some(t) if t.len() > MAX_FILE_BYTES => {
                    return Err(ApiError::too_large(format!(
                        "{}: a file holds at most {} KiB",
                        f.name,
                        MAX_FILE_BYTES / 1024
                    )));
                }
                Some(_) => {}
                None if library::text(&f.name).is_none() => {
                    return Err(ApiError::refused(format!(
                        "`{}` is not a file of the library ({}); upload it instead",
                        f.name,
                        library::names().join(", ")
                    )));
                }
                None => {}
            }
        }
        let units: usize = self
            .sides
            .iter()
            .flat_map(|s| &s.formations)
            .map(|f| f.units.len())
            .sum();
        if units > MAX_UNITS {
            return Err(ApiError::refused(format!("a battle holds at most {MAX_UNITS} Units")));
        }
        check_name("the title", &self.title)?;
        for s in &self.sides {
            check_name("a side's name", &s.name)?;
            for f in &s.formations {
                check_name("a Formation's name", &f.name)?;
                for u in &f.units {
                    check_name("a Unit's name", u)?;
                }
            }
        }
        Ok(())
    }

    /// The battle's files as sources, by the names the TOML gives them.
    pub fn sources(&self) -> Vec<SourceFile> {
        self.files
            .iter()
            .map(|f| {
                let text = match &f.text {
                    Some(t) => t.clone(),
                    None => library::text(&f.name).unwrap_or_default().to_string(),
                };
                SourceFile::new(f.name.clone(), text)
            })
            .collect()
    }

    /// Checks the battle and loads it as `fam batch` would load the TOML
    /// of [`crate::serve::battle::to_toml`] with these files beside it.
    pub fn load(&self) -> Result<Loaded, ApiError> {
        self.check_limits()?;
        let written = write(self);
        let places = written.places;
        let scenario = SourceFile::new(SCENARIO_NAME, written.out.finish());
        crate::orders::load_scenario_text(scenario, &self.sources(), &ParseOptions::default()).map_err(|reports| {
            let mut e = ApiError::from_reports("fam refuses this battle", &reports);
            for d in &mut e.diagnostics {
                d.place = if d.file == SCENARIO_NAME {
                    d.line.checked_sub(1).and_then(|l| places.get(l).cloned().flatten())
                } else {
                    Some(format!("file/{}", d.file))
                };
            }
            e
        })
    }
}

fn check_name(what: &str, name: &str) -> Result<(), ApiError> {
    if name.len() > MAX_NAME_BYTES {
        return Err(ApiError::refused(format!(
            "{what} is longer than {MAX_NAME_BYTES} bytes"
        )));
    }
    Ok(())
}

/// A JSON value written as a TOML inline value; `None` for `null` (the key
/// is then left out).
fn inline(v: &Value) -> Option<String> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => quote(s),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().filter_map(inline).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Object(map) => {
            let parts: Vec<String> = map
                .iter()
                .filter_map(|(k, v)| inline(v).map(|v| format!("{} = {v}", key(k))))
                .collect();
            format!("{{ {} }}", parts.join(", "))
        }
    })
}

/// A Formation's Units as `[formations]` lists them: a name the page lists
/// more than once (several ships of one design, the +/- buttons) is one
/// `{ ship = "NAME", count = N }` where it first appears (docs/orders.md,
/// "Several ships of one design").
fn member_list(units: &[String]) -> String {
    let mut counts: std::collections::BTreeMap<&String, usize> = std::collections::BTreeMap::new();
    for u in units {
        *counts.entry(u).or_default() += 1;
    }
    let mut out = Vec::new();
    for u in units {
        match counts.remove(u) {
            Some(1) => out.push(quote(u)),
            Some(n) => out.push(format!("{{ ship = {}, count = {n} }}", quote(u))),
            None => {}
        }
    }
    format!("[{}]", out.join(", "))
}

/// The scenario TOML being written, and for each line the part of the
/// page's battle it stands for (docs/serve-api.md, "place"), so a
/// diagnostic at a line can be shown beside what the player edits.
#[derive(Default)]
struct Lines {
    out: TomlOut,
    places: Vec<Option<String>>,
}

impl Lines {
    /// Gives the lines written since the last call the place `place`.
    fn place(&mut self, place: Option<String>) {
        self.places.resize(self.out.lines(), place);
    }

    /// A blank line, then the header `[name]`, neither with a place.
    fn table(&mut self, name: &str) {
        self.out.blank();
        self.out.table(name);
        self.place(None);
    }

    /// A table's `key = value` lines, each its own place (`prefix` + key).
    fn pairs(&mut self, map: &serde_json::Map<String, Value>, prefix: &str) {
        for (k, v) in map {
            if let Some(v) = inline(v) {
                self.out.pair(k, v);
                self.place(Some(format!("{prefix}{k}")));
            }
        }
    }
}

/// The scenario this battle stands for: its GZF files by bare name, so
/// the TOML and the files saved in one directory play the same battle.
pub fn to_toml(b: &Battle) -> String {
    write(b).out.finish()
}

/// The scenario's lines and their places: `title`, `files`, `seed`,
/// `start_range`, `rules.KEY`, `victory.KEY`, `side/I`, `formation/I/J`,
/// `range/K`, `doctrine/I/J` and `doctrine/I/J/KEY` (I a side's index, J a
/// Formation's within it, K a range's), as docs/serve-api.md names them.
fn write(b: &Battle) -> Lines {
    let mut s = Lines::default();
    s.out
        .comment("Written by fam serve: play it with `fam batch scenario.toml --runs N`");
    s.out.comment("beside its GZF files (docs/orders.md).");
    s.place(None);
    let title = if b.title.trim().is_empty() {
        "Battle"
    } else {
        b.title.as_str()
    };
    s.out.pair("title", quote(title));
    s.place(Some("title".into()));
    s.out.names("gzf", b.files.iter().map(|f| &f.name));
    s.place(Some("files".into()));
    if let Some(seed) = b.seed {
        s.out.pair("seed", seed);
        s.place(Some("seed".into()));
    }
    if let Some(r) = b.start_range {
        s.out.pair("start_range", r);
        s.place(Some("start_range".into()));
    }
    if !b.rules.is_empty() {
        s.table("rules");
        s.pairs(&b.rules, "rules.");
    }
    if !b.victory.is_empty() {
        s.table("victory");
        s.pairs(&b.victory, "victory.");
    }
    lists(&mut s, b);
    for (k, r) in b.ranges.iter().enumerate() {
        s.out.blank();
        s.place(None);
        s.out.range(&r.between[0], &r.between[1], r.mu);
        s.place(Some(format!("range/{k}")));
    }
    doctrines(&mut s, b);
    s
}

/// `[sides]` and `[formations]`: a line a side, a line a Formation.
fn lists(s: &mut Lines, b: &Battle) {
    s.table("sides");
    for (i, side) in b.sides.iter().enumerate() {
        s.out.names(&side.name, side.formations.iter().map(|f| &f.name));
        s.place(Some(format!("side/{i}")));
    }
    s.table("formations");
    for (i, side) in b.sides.iter().enumerate() {
        for (j, f) in side.formations.iter().enumerate() {
            s.out.pair(&f.name, member_list(&f.units));
            s.place(Some(format!("formation/{i}/{j}")));
        }
    }
}

/// A `[doctrine.NAME]` table for each Formation with standing orders.
fn doctrines(s: &mut Lines, b: &Battle) {
    for (i, side) in b.sides.iter().enumerate() {
        for (j, f) in side.formations.iter().enumerate() {
            if let Some(d) = &f.doctrine {
                s.out.blank();
                s.place(None);
                s.out.table(&format!("doctrine.{}", key(&f.name)));
                s.place(Some(format!("doctrine/{i}/{j}")));
                s.pairs(d, &format!("doctrine/{i}/{j}/"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_values_become_inline_toml() {
        let v: Value = serde_json::json!({"hold": 30});
        assert_eq!(inline(&v).as_deref(), Some("{ hold = 30 }"));
        let v: Value = serde_json::json!({"Battle Line": ["a\"b", true]});
        assert_eq!(inline(&v).as_deref(), Some(r#"{ "Battle Line" = ["a\"b", true] }"#));
        assert_eq!(inline(&Value::Null), None);
    }

    #[test]
    fn every_line_keeps_its_place_whatever_the_names_hold() {
        let b: Battle = serde_json::from_value(serde_json::json!({
            "title": "Two\nlines",
            "sides": [
                {"name": "A\"1", "formations": [{"name": "F\nG", "units": ["U"], "doctrine": {"target": "x"}}]},
                {"name": "B", "formations": [{"name": "H", "units": ["V"]}]},
            ],
            "ranges": [{"between": ["F\nG", "H"], "mu": 20}],
        }))
        .unwrap();
        let written = write(&b);
        let text = written.out.finish();
        assert_eq!(text.lines().count(), written.places.len(), "{text}");
        let place = |line: &str| {
            let i = text
                .lines()
                .position(|l| l == line)
                .unwrap_or_else(|| panic!("no `{line}` in\n{text}"));
            written.places[i].as_deref()
        };
        assert_eq!(place(r#"title = "Two\nlines""#), Some("title"));
        assert_eq!(place(r#""A\"1" = ["F\nG"]"#), Some("side/0"));
        assert_eq!(place(r#"H = ["V"]"#), Some("formation/1/0"));
        assert_eq!(place("mu = 20"), Some("range/0"));
        assert_eq!(place(r#"[doctrine."F\nG"]"#), Some("doctrine/0/0"));
        assert_eq!(place(r#"target = "x""#), Some("doctrine/0/0/target"));
    }
}
