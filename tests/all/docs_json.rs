//! The JSON documents read against what fam really writes:
//! docs/batch-json.md (`fam batch --json`, `fam compare --json`),
//! docs/events.md (the event log of `fam resolve --log`) and
//! docs/check-json.md (`fam check --json`), each run as the document's own
//! command says. Every key a document lists is in the output, every key of
//! the output is listed, and where the document says the output follows its
//! order (the batch JSON, the check JSON) it does; the event log says its keys
//! are in alphabetical order, and they are.
//!
//! The documents list keys in tables and in prose; the few rules read here
//! (a backquoted name starts each item of a list, a list follows the first
//! colon when one comes before it, a `;` ends it) are what the documents
//! keep to.

use std::path::Path;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::support::{fam, repo, text};

// ---- JSON with its keys in the order written -----------------------------

/// A JSON value whose objects keep their keys in the order of the text
/// (`serde_json::Value` sorts them).
#[derive(Debug, Clone)]
enum Json {
    Object(Vec<(String, Json)>),
    Array(Vec<Json>),
    Scalar,
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Json;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("JSON")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Json>()? {
                    out.push((k, v));
                }
                Ok(Json::Object(out))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
                let mut out = Vec::new();
                while let Some(v) = seq.next_element::<Json>()? {
                    out.push(v);
                }
                Ok(Json::Array(out))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Json, E> {
                Ok(Json::Scalar)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Json, E> {
                Ok(Json::Scalar)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Json, E> {
                Ok(Json::Scalar)
            }
            fn visit_i128<E>(self, _: i128) -> Result<Json, E> {
                Ok(Json::Scalar)
            }
            fn visit_u128<E>(self, _: u128) -> Result<Json, E> {
                Ok(Json::Scalar)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Json, E> {
                Ok(Json::Scalar)
            }
            fn visit_str<E>(self, _: &str) -> Result<Json, E> {
                Ok(Json::Scalar)
            }
            fn visit_unit<E>(self) -> Result<Json, E> {
                Ok(Json::Scalar)
            }
            fn visit_none<E>(self) -> Result<Json, E> {
                Ok(Json::Scalar)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
                Json::deserialize(d)
            }
        }
        d.deserialize_any(V)
    }
}

impl Json {
    fn parse(text: &str) -> Json {
        serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text:.200}"))
    }

    /// The keys of an object, in order.
    fn keys(&self) -> Vec<String> {
        match self {
            Json::Object(members) => members.iter().map(|(k, _)| k.clone()).collect(),
            other => panic!("not an object: {other:?}"),
        }
    }

    /// The member `key` of an object, or the first element of an array
    /// (`[]`): `at("sides/[]/damage_by_kind")`.
    fn at(&self, path: &str) -> &Json {
        let mut here = self;
        for step in path.split('/').filter(|s| !s.is_empty()) {
            here = match (here, step) {
                (Json::Array(items), "[]") => items.first().unwrap_or_else(|| panic!("{path}: empty array")),
                (Json::Object(members), key) => members
                    .iter()
                    .find(|(k, _)| k == key)
                    .map(|(_, v)| v)
                    .unwrap_or_else(|| panic!("{path}: no `{key}`")),
                (other, _) => panic!("{path}: at `{step}`, {other:?}"),
            };
        }
        here
    }
}

// ---- Reading the documents ----------------------------------------------

fn doc(name: &str) -> String {
    std::fs::read_to_string(repo().join("docs").join(name)).unwrap()
}

/// The rows of the first table after the line `heading`, without its head
/// and rule: each row's cells, trimmed (`\|` inside a cell kept).
fn table(doc: &str, heading: &str) -> Vec<Vec<String>> {
    let from = doc
        .lines()
        .position(|l| l == heading)
        .unwrap_or_else(|| panic!("no heading `{heading}`"));
    let rows: Vec<Vec<String>> = doc
        .lines()
        .skip(from + 1)
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .map(cells)
        .collect();
    assert!(rows.len() > 2, "{heading}: a table");
    rows[2..].to_vec()
}

fn cells(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cell = String::new();
    let mut chars = line.trim().trim_start_matches('|').chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => cell.push(chars.next().unwrap()),
            '|' => out.push(std::mem::take(&mut cell).trim().to_string()),
            c => cell.push(c),
        }
    }
    out
}

/// A piece of prose: a backquoted span, or one character outside them,
/// with the depth of brackets it is at.
#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Code(String, usize),
    Char(char, usize),
}

fn pieces(text: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '`' => {
                let code: String = chars.by_ref().take_while(|&c| c != '`').collect();
                out.push(Piece::Code(code, depth));
            }
            '(' | '[' | '{' => {
                out.push(Piece::Char(c, depth));
                depth += 1;
            }
            ')' | ']' | '}' => {
                depth = depth.saturating_sub(1);
                out.push(Piece::Char(c, depth));
            }
            c => out.push(Piece::Char(c, depth)),
        }
    }
    out
}

/// A key as the documents write it: `name`, or `name[]` for an array.
fn key_name(code: &str) -> Option<&str> {
    let name = code.strip_suffix("[]").unwrap_or(code);
    let ok = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    ok.then_some(name)
}

/// The keys a list in prose names: the first backquoted key of each item
/// (items split at commas outside brackets), after the first colon when
/// it comes before any key, up to the first `;`.
fn keys(text: &str) -> Vec<String> {
    let all = pieces(text);
    let first_key = all
        .iter()
        .position(|p| matches!(p, Piece::Code(c, 0) if key_name(c).is_some()))
        .unwrap_or(all.len());
    let start = all
        .iter()
        .position(|p| *p == Piece::Char(':', 0))
        .filter(|&colon| colon < first_key)
        .map_or(0, |colon| colon + 1);
    let list = &all[start..];
    let end = list
        .iter()
        .position(|p| *p == Piece::Char(';', 0))
        .unwrap_or(list.len());
    list[..end]
        .split(|p| *p == Piece::Char(',', 0))
        .filter_map(|item| {
            item.iter().find_map(|p| match p {
                Piece::Code(c, 0) => key_name(c).map(str::to_string),
                _ => None,
            })
        })
        .collect()
}

/// The text in the brackets right after the key `key` (or `key[]`) in
/// `text`, at the outer level.
fn inner(text: &str, key: &str) -> String {
    inner_opt(text, key).unwrap_or_else(|| panic!("no `{key}` (…) in: {text}"))
}

/// [`inner`], or `None` when `key` is not followed by brackets.
fn inner_opt(text: &str, key: &str) -> Option<String> {
    let all = pieces(text);
    let at = all
        .iter()
        .position(|p| matches!(p, Piece::Code(c, 0) if key_name(c) == Some(key)))?;
    let mut out = String::new();
    let mut rest = all[at + 1..].iter().skip_while(|p| **p == Piece::Char(' ', 0));
    if rest.next() != Some(&Piece::Char('(', 0)) {
        return None;
    }
    for p in rest {
        match p {
            Piece::Char(')', 0) => return Some(out),
            Piece::Char(c, _) => out.push(*c),
            Piece::Code(c, _) => out.push_str(&format!("`{c}`")),
        }
    }
    None
}

/// The keys of the first backquoted object shape in `text`:
/// `{run, seed, exchanges}`, `[{unit, upper}]`, `{id, units: [unit ids]}`.
fn braces(text: &str) -> Option<Vec<String>> {
    let shape = pieces(text).into_iter().find_map(|p| match p {
        Piece::Code(c, _) if c.starts_with('{') || c.starts_with("[{") => Some(c),
        _ => None,
    })?;
    let body = shape.trim_start_matches('[').trim_start_matches('{');
    let body = &body[..body.rfind('}').unwrap()];
    let mut out = Vec::new();
    let mut depth = 0;
    let mut item = String::new();
    for c in body.chars().chain([',']) {
        match c {
            '[' | '{' => depth += 1,
            ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                let name = item.split(':').next().unwrap().trim().to_string();
                out.push(name);
                item.clear();
                continue;
            }
            _ => {}
        }
        item.push(c);
    }
    Some(out)
}

/// The row of `rows` whose first cell names `key`: its meaning.
fn meaning<'a>(rows: &'a [Vec<String>], key: &str) -> &'a str {
    rows.iter()
        .find(|r| keys(&r[0]).iter().any(|k| k == key))
        .map(|r| r[1].as_str())
        .unwrap_or_else(|| panic!("no row for `{key}`"))
}

/// The rest of the paragraph of `doc` that starts at `phrase`.
fn paragraph<'a>(doc: &'a str, phrase: &str) -> &'a str {
    doc.split("\n\n")
        .find_map(|p| p.find(phrase).map(|at| &p[at..]))
        .unwrap_or_else(|| panic!("no paragraph with `{phrase}`"))
}

/// The first backquoted command of `doc` that starts with `start`.
fn command(doc: &str, start: &str) -> String {
    pieces(doc)
        .into_iter()
        .find_map(|p| match p {
            Piece::Code(c, _) if c.starts_with(start) => Some(c),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no `{start} …` in the document"))
}

/// Runs `fam` with the words of `line` (without the leading `fam`),
/// expecting the exit status `code`: its standard output.
fn run(line: &str, code: i32) -> String {
    let words: Vec<&str> = line.split_whitespace().skip(1).collect();
    let out = fam(&words);
    assert_eq!(out.status.code(), Some(code), "{line}: {}", text(&out.stderr));
    text(&out.stdout)
}

#[track_caller]
fn same(what: &str, documented: &[String], written: &[String]) {
    assert_eq!(
        documented, written,
        "{what}: the document lists (left) what the output does not have in that order (right)"
    );
}

// ---- docs/batch-json.md ----------------------------------------------------

#[test]
fn batch_json_md_lists_every_key_of_the_batch_json_in_its_order() {
    let d = doc("batch-json.md");
    // "`fam batch SCENARIO --runs N --json`", on a battle with idle
    // weapons, notable runs of every kind and a shard.
    let line = command(&d, "fam batch ")
        .replace("SCENARIO", "scenarios/fleet-action.toml")
        .replace(" N ", " 40 ")
        + " --shard 1/1";
    let out = Json::parse(&run(&line, 0));
    let rows = table(&d, "## Fields");
    let documented: Vec<String> = rows.iter().flat_map(|r| keys(&r[0])).collect();
    same("the fields", &documented, &out.keys());

    let m = |key: &str| meaning(&rows, key);
    same("shard", &braces(m("shard")).unwrap(), &out.at("shard").keys());
    same("sides[]", &keys(m("sides")), &out.at("sides/[]").keys());
    same(
        "sides[].damage_by_kind",
        &keys(&inner(m("sides"), "damage_by_kind")),
        &out.at("sides/[]/damage_by_kind").keys(),
    );
    let idle = match out.at("sides") {
        Json::Array(sides) => sides
            .iter()
            .find_map(|s| match s.at("idle_weapons") {
                Json::Array(w) => w.first().cloned(),
                _ => None,
            })
            .expect("a side with idle weapons"),
        _ => unreachable!(),
    };
    same(
        "sides[].idle_weapons[]",
        &keys(&inner(m("sides"), "idle_weapons")),
        &idle.keys(),
    );
    same("decided_by", &keys(m("decided_by")), &out.at("decided_by").keys());
    same("units[]", &keys(m("units")), &out.at("units/[]").keys());
    same("weapons[]", &keys(m("weapons")), &out.at("weapons/[]").keys());
    let notable = m("notable_seeds");
    same("notable_seeds", &keys(notable), &out.at("notable_seeds").keys());
    same(
        "a notable run",
        &braces(notable).unwrap(),
        &out.at("notable_seeds/longest").keys(),
    );
    same(
        "notable_seeds.wins[]",
        &keys(&inner(notable, "wins")),
        &out.at("notable_seeds/wins/[]").keys(),
    );
    same(
        "notable_seeds.unit_deaths[]",
        &keys(&inner(notable, "unit_deaths")),
        &out.at("notable_seeds/unit_deaths/[]").keys(),
    );
    same(
        "dice_per_battle",
        &keys(m("dice_per_battle")),
        &out.at("dice_per_battle").keys(),
    );
    let tallies = m("tallies");
    same("tallies", &keys(tallies), &out.at("tallies").keys());
    for part in ["dice", "sides", "units", "weapons"] {
        let path = match part {
            "dice" => "tallies/dice".to_string(),
            array => format!("tallies/{array}/[]"),
        };
        same(&path, &keys(&inner(tallies, part)), &out.at(&path).keys());
    }
    let distribution = braces(paragraph(&d, "A **distribution** is")).unwrap();
    for path in ["exchanges", "sides/[]/points_lost", "units/[]/hull_damage"] {
        same(path, &distribution, &out.at(path).keys());
    }
    let histogram = braces(paragraph(&d, "**histogram** under `tallies` is")).unwrap();
    for path in [
        "tallies/exchanges",
        "tallies/sides/[]/points_lost",
        "tallies/units/[]/hull_damage",
    ] {
        same(path, &histogram, &out.at(path).keys());
    }
}

#[test]
fn batch_json_md_lists_every_key_of_the_compare_json_in_its_order() {
    let d = doc("batch-json.md");
    let line = command(&d, "fam compare ").replace(" A B ", " scenarios/duel.toml scenarios/duel.toml ") + " --runs 30";
    let out = Json::parse(&run(&line, 0));
    let rows = table(&d, "## `fam compare A B --json`");
    let documented: Vec<String> = rows.iter().flat_map(|r| keys(&r[0])).collect();
    same("the compare fields", &documented, &out.keys());
    let m = |key: &str| meaning(&rows, key);
    same("sides[]", &keys(m("sides")), &out.at("sides/[]").keys());
    same(
        "paired_counts",
        &braces(&inner(m("sides"), "paired_counts")).unwrap(),
        &out.at("sides/[]/paired_counts").keys(),
    );
    same("draws_paired", &keys(m("draws_paired")), &out.at("draws_paired").keys());
    same("units[]", &keys(m("units")), &out.at("units/[]").keys());
    let difference = braces(paragraph(&d, "A **difference** is")).unwrap();
    for path in ["draws", "sides/[]/win_rate", "units/[]/destroyed_rate"] {
        same(path, &difference, &out.at(path).keys());
    }
    // `a` and `b` are the batch objects of the table above.
    let fields: Vec<String> = table(&d, "## Fields").iter().flat_map(|r| keys(&r[0])).collect();
    same("a", &fields, &out.at("a").keys());
    same("b", &fields, &out.at("b").keys());
}

// ---- docs/events.md ----------------------------------------------------------

/// The lines of the event logs of `fam resolve SCENARIO --exchanges 3 --log
/// FILE` (`line` as the document writes it) for every shipped scenario:
/// many kinds of event.
fn event_logs(dir: &Path, line: &str) -> Vec<Vec<String>> {
    let mut scenarios: Vec<_> = std::fs::read_dir(repo().join("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    scenarios.sort();
    assert!(scenarios.len() >= 10);
    scenarios
        .iter()
        .map(|s| {
            let log = dir.join(format!("{}.jsonl", s.file_stem().unwrap().to_string_lossy()));
            let args = format!("{} --exchanges 3", s.display());
            let line = line.replace("...", &args).replace("FILE", log.to_str().unwrap());
            run(&line, 0);
            std::fs::read_to_string(&log)
                .unwrap()
                .lines()
                .map(str::to_string)
                .collect()
        })
        .collect()
}

fn sorted(keys: &[String]) -> bool {
    keys.windows(2).all(|w| w[0] < w[1])
}

fn set(keys: &[String]) -> std::collections::BTreeSet<String> {
    keys.iter().cloned().collect()
}

/// The value `"…"` of the member `type` of an event line.
fn event_type(line: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    v.get("type")?.as_str().map(str::to_string)
}

/// What docs/events.md says of each kind of line.
struct EventsDoc {
    /// The rows of the header's table.
    header: Vec<Vec<String>>,
    /// The keys of a die's line.
    dice: Vec<String>,
    /// The rows of the events' table: `type`, keys, meaning.
    events: Vec<Vec<String>>,
}

impl EventsDoc {
    fn read() -> EventsDoc {
        let d = doc("events.md");
        let template = command(&d, "{\"die\"");
        let dice = template
            .split('"')
            .skip(1)
            .step_by(2)
            .filter(|w| template.contains(&format!("\"{w}\":")))
            .map(str::to_string)
            .collect();
        EventsDoc {
            header: table(&d, "## Header (line 1)"),
            dice,
            events: table(&d, "## Events"),
        }
    }

    /// The `type` of every kind of event the document lists.
    fn types(&self) -> Vec<String> {
        self.events.iter().flat_map(|r| keys(&r[0])).collect()
    }

    /// The row of the event `kind`.
    fn row(&self, kind: &str, line: &str) -> &[String] {
        self.events
            .iter()
            .find(|r| keys(&r[0]) == [kind.to_string()])
            .unwrap_or_else(|| panic!("events.md does not list the event `{kind}`: {line}"))
    }

    /// The keys every line of a row's type has (`seq` and `type` too), and
    /// those only some have (`…; for X also `k``).
    fn event_keys(row: &[String]) -> (Vec<String>, Vec<String>) {
        let mut always = keys(&row[1]);
        always.extend(["seq".to_string(), "type".to_string()]);
        let sometimes = row[1]
            .split(';')
            .skip(1)
            .filter_map(|part| part.split_once(" also "))
            .flat_map(|(_, list)| {
                pieces(list).into_iter().filter_map(|p| match p {
                    Piece::Code(c, 0) => key_name(&c).map(str::to_string),
                    _ => None,
                })
            })
            .collect();
        (always, sometimes)
    }

    /// Reads one line of a log against the document: its keys in
    /// alphabetical order, every key the document lists for its kind there
    /// and no other, the shapes it gives for a key's value. The line's
    /// `type`, `None` for a header.
    fn check(&self, line: &str) -> Option<String> {
        let json = Json::parse(line);
        let written = json.keys();
        assert!(sorted(&written), "keys out of alphabetical order: {line}");
        let Some(kind) = event_type(line) else {
            let header: Vec<String> = self.header.iter().flat_map(|r| keys(&r[0])).collect();
            assert_eq!(set(&header), set(&written), "the header: {line}");
            let shape = |key: &str| braces(meaning(&self.header, key)).unwrap();
            assert_eq!(set(&shape("formations")), set(&json.at("formations/[]").keys()));
            assert_eq!(set(&shape("units")), set(&json.at("units/[]").keys()));
            return None;
        };
        if kind == "roll" {
            assert_eq!(set(&self.dice), set(&written), "a die: {line}");
            return Some(kind);
        }
        let row = self.row(&kind, line);
        let (must, may) = EventsDoc::event_keys(row);
        for k in &must {
            assert!(
                written.contains(k),
                "`{kind}` has no `{k}`, which events.md lists: {line}"
            );
        }
        for k in &written {
            assert!(
                must.contains(k) || may.contains(k),
                "`{kind}` has `{k}`, which events.md does not list: {line}"
            );
        }
        // Shapes given for a key's value: `{maneuver, speed_points}`,
        // `[{unit, upper}]`.
        for k in keys(&row[1]) {
            let Some(said) = inner_opt(&row[1], &k).filter(|t| t.starts_with("`{") || t.starts_with("`[{")) else {
                continue;
            };
            let value = match json.at(&k) {
                Json::Array(items) => items.first(),
                v => Some(v),
            };
            if let Some(value @ Json::Object(_)) = value {
                assert_eq!(
                    set(&braces(&said).unwrap()),
                    set(&value.keys()),
                    "`{kind}`'s `{k}`: {line}"
                );
            }
        }
        Some(kind)
    }
}

#[test]
fn events_md_lists_every_key_of_the_event_log() {
    let d = doc("events.md");
    let line = command(&d, "fam resolve ");
    assert!(line.contains("... --log FILE"), "{line}");
    let dir = tempfile::tempdir().unwrap();
    let logs = event_logs(dir.path(), &line);
    let document = EventsDoc::read();
    let mut seen = std::collections::BTreeSet::new();
    for line in logs.iter().flatten() {
        if let Some(kind) = document.check(line) {
            seen.insert(kind);
        }
    }
    seen.remove("roll");
    assert!(seen.len() >= 25, "only {} kinds of event seen: {seen:?}", seen.len());
    let documented = document.types();
    for kind in &seen {
        assert!(documented.contains(kind));
    }
}

/// Every kind of line the log's types write, from one event of every kind
/// (`every_event`) and a die under the header of a shipped scenario: each
/// reads as docs/events.md says, every kind the document lists is written
/// and none it does not, and every key it lists for a kind, those only some
/// lines have included, is written by one of them.
#[test]
fn events_md_lists_exactly_the_keys_each_kind_of_line_writes() {
    let document = EventsDoc::read();
    let loaded = fam::orders::load_scenario(
        &repo().join("scenarios/duel.toml"),
        &[],
        &fam::gzf::ParseOptions::default(),
    )
    .unwrap_or_else(|_| panic!("scenarios/duel.toml loads"));
    let header = fam::report::Header {
        title: "Every kind".to_string(),
        seed: u64::MAX,
        exchange: 2,
    };
    let mut rec = fam::engine::event::Recorder::default();
    rec.entries
        .push(fam::engine::event::Entry::Roll(fam::engine::dice::Roll {
            purpose: fam::engine::dice::Purpose::Targeting,
            pile: fam::engine::dice::Pile::Initial,
            face: 42,
        }));
    rec.entries.extend(
        crate::every_event::every_kind()
            .into_iter()
            .map(fam::engine::event::Entry::Event),
    );
    let log = fam::log::render(&header, &loaded.battle, &rec);
    assert_eq!(
        log.lines().count(),
        rec.entries.len() + 1,
        "a header, then a line an entry"
    );

    let mut written: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> = Default::default();
    let mut headers = 0;
    for line in log.lines() {
        match document.check(line) {
            Some(kind) => written.entry(kind).or_default().extend(Json::parse(line).keys()),
            None => headers += 1,
        }
    }
    assert_eq!(headers, 1);
    assert!(written.remove("roll").is_some(), "the die's line");
    let documented = document.types();
    assert_eq!(
        set(&documented),
        written.keys().cloned().collect(),
        "the kinds events.md lists (left) and those written (right)"
    );
    for (kind, keys) in &written {
        let (must, may) = EventsDoc::event_keys(document.row(kind, kind));
        for k in must.iter().chain(&may) {
            assert!(
                keys.contains(k),
                "no line of `{kind}` writes `{k}`, which events.md lists"
            );
        }
    }
}

// ---- docs/check-json.md -----------------------------------------------------

#[test]
fn check_json_md_lists_every_key_of_the_check_json_in_its_order() {
    let d = doc("check-json.md");
    // A record with a misspelt system, as in the document's example.
    let dir = tempfile::tempdir().unwrap();
    let record = std::fs::read_to_string(repo().join("ssd/halcyon-accord.gzf")).unwrap();
    assert!(record.contains("Screen Generator"));
    let odd = dir.path().join("odd.gzf");
    std::fs::write(&odd, record.replacen("Screen Generator", "Screen Generater", 1)).unwrap();
    let line = command(&d, "fam check --json ").replace("FILE...", odd.to_str().unwrap());
    let out = Json::parse(&run(&line, 2));

    let document: Vec<String> = table(&d, "## The document").iter().flat_map(|r| keys(&r[0])).collect();
    same("the document", &document, &out.keys());
    let file: Vec<String> = table(&d, "## A file").iter().flat_map(|r| keys(&r[0])).collect();
    same("a file", &file, &out.at("files/[]").keys());
    let diagnostic: Vec<String> = table(&d, "## A diagnostic").iter().flat_map(|r| keys(&r[0])).collect();
    same("a diagnostic", &diagnostic, &out.at("files/[]/diagnostics/[]").keys());

    // The example has the shape of the real document, key for key.
    let open = d.find("```json\n").expect("an example") + "```json\n".len();
    let example = Json::parse(&d[open..open + d[open..].find("```").unwrap()]);
    shape("the example", &example, &out);
}

/// `a` and `b` have the same keys in the same order, at every level (an
/// array's first elements compared).
fn shape(path: &str, a: &Json, b: &Json) {
    match (a, b) {
        (Json::Object(x), Json::Object(y)) => {
            same(path, &a.keys(), &b.keys());
            for ((k, va), (_, vb)) in x.iter().zip(y) {
                shape(&format!("{path}/{k}"), va, vb);
            }
        }
        (Json::Array(x), Json::Array(y)) => {
            if let (Some(va), Some(vb)) = (x.first(), y.first()) {
                shape(&format!("{path}/[]"), va, vb);
            }
        }
        _ => {}
    }
}
