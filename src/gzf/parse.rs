//! Layer 3: blocks to typed records, with association by file order and key.

use std::collections::BTreeMap;

use super::blocks::{self, RawBlock, RawField, normalize_name};
use super::fields::{Cx, FieldSpec, TextType, same_words, spec};
use super::lines;
use crate::diag::Diagnostic;
use crate::model::*;

/// Choices the user makes about what to accept.
#[derive(Debug, Clone, Default)]
pub struct ParseOptions {
    /// Load systems the model does not know as inert systems instead of
    /// refusing them (`--inert-unknown-systems`).
    pub inert_unknown_systems: bool,
}

/// What a file said, as far as it could be understood, and every problem.
#[derive(Debug, Clone)]
pub struct Parsed {
    pub file: GzfFile,
    pub diagnostics: Vec<Diagnostic>,
    /// For each item of `file.items`, the spans of its block's fields by
    /// normalised name (the block type field under its own name, e.g. `ship`),
    /// so later checks can point into the file.
    pub spans: Vec<FieldSpans>,
}

/// Field name (lower case) → span of the whole field.
pub type FieldSpans = BTreeMap<String, std::ops::Range<usize>>;

impl Parsed {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockKind {
    Header,
    Scenario,
    Fleet,
    Ship,
    System,
    FighterGroup,
    Launched,
    Base,
    BaseSector,
    Terrain,
}

const BLOCK_TYPES: [(&str, BlockKind); 9] = [
    ("scenario", BlockKind::Scenario),
    ("fleet", BlockKind::Fleet),
    ("ship", BlockKind::Ship),
    ("system", BlockKind::System),
    ("fighter-group", BlockKind::FighterGroup),
    ("launched-system", BlockKind::Launched),
    ("base", BlockKind::Base),
    ("base-sector", BlockKind::BaseSector),
    ("terrain", BlockKind::Terrain),
];

const HEADER_FIELDS: [&str; 5] = ["profile", "universe", "universe-version", "units", "gzf-version"];

/// The most blocks one file may hold (ships, systems, fleets …): far above
/// any fleet book, low enough that a runaway file is refused before it is
/// built into records.
pub const MAX_BLOCKS: usize = 50_000;

/// The most systems one ship may carry.
pub const MAX_SYSTEMS_PER_SHIP: usize = 1_000;

/// Parses GZF text. Never panics; never stops at the first problem.
pub fn parse(text: &str, options: &ParseOptions) -> Parsed {
    let mut diags = Vec::new();
    if let Some(nul) = text.find('\0') {
        diags.push(Diagnostic::error(
            nul..nul + 1,
            "this is not a text file (it holds NUL bytes)",
            "a GZF text file",
        ));
        return Parsed {
            file: GzfFile::default(),
            diagnostics: diags,
            spans: Vec::new(),
        };
    }
    // A byte-order mark (Windows editors add one) is skipped by the lines
    // layer; say so.
    if text.starts_with('\u{feff}') {
        diags.push(Diagnostic::warning(
            0..3,
            "the file starts with a byte-order mark",
            "plain ASCII text (the mark is ignored)",
        ));
    }
    let lines = lines::split(text);
    let raw = split_unseparated_blocks(blocks::group(&lines, &mut diags), &mut diags);
    if raw.is_empty() {
        diags.push(Diagnostic::error(
            0..0,
            "the file holds no blocks",
            "a GZF file: a header block, then Ship, System, Fleet ... blocks separated by blank lines",
        ));
        return Parsed {
            file: GzfFile::default(),
            diagnostics: diags,
            spans: Vec::new(),
        };
    }
    if let Some(first_beyond) = raw.get(MAX_BLOCKS) {
        diags.push(Diagnostic::error(
            first_beyond.first().name_span.clone(),
            format!("the file holds more than {MAX_BLOCKS} blocks, the most fam reads"),
            "a file of records (a whole fleet book holds a few thousand blocks): split it",
        ));
        return Parsed {
            file: GzfFile::default(),
            diagnostics: diags,
            spans: Vec::new(),
        };
    }
    let (profile, reason) = choose_profile(&raw, &mut diags);
    let mut cx = Cx {
        diags: &mut diags,
        profile,
        profile_reason: reason,
        boxes: 0,
        boxes_refused: false,
    };
    let mut file = GzfFile {
        profile,
        ..GzfFile::default()
    };
    let mut builder = Builder {
        options,
        owner: Owner::None,
        seen_owner: false,
        system_spans: BTreeMap::new(),
        item_spans: Vec::new(),
    };
    for (i, block) in raw.iter().enumerate() {
        let first = block.first();
        let key = first.key();
        let kind = BLOCK_TYPES.iter().find(|(n, _)| *n == key).map(|(_, k)| *k);
        let kind = match kind {
            Some(k) => k,
            None if i == 0 && HEADER_FIELDS.contains(&key.as_str()) => BlockKind::Header,
            None => {
                let what = if HEADER_FIELDS.contains(&key.as_str()) {
                    "header fields are only allowed in the first block".to_string()
                } else {
                    format!("unknown block type `{}`", first.name.trim())
                };
                cx.diags.push(Diagnostic::error(
                    first.name_span.clone(),
                    what,
                    "a block starting with Scenario, Fleet, Ship, System, Fighter-Group, Launched-System, Base, Base-Sector or Terrain",
                ));
                continue;
            }
        };
        let block = split_run_together(block, kind, cx.diags);
        let before = file.items.len();
        builder.add(&mut cx, &mut file, kind, &block);
        if file.items.len() > before {
            builder
                .item_spans
                .push(block.fields.iter().map(|f| (f.key(), f.span())).collect());
        }
    }
    check_links(&mut cx, &file, &raw, &builder.system_spans, text);
    Parsed {
        file,
        diagnostics: diags,
        spans: builder.item_spans,
    }
}

/// The profiles' association example writes `Ship:` and its `System:` lines
/// with no blank line between them. A block-type field in the middle of a
/// block therefore starts a new block (with a warning). `Fleet:` is exempt:
/// it is also a field of Ship and Base blocks.
fn split_unseparated_blocks(raw: Vec<RawBlock>, diags: &mut Vec<Diagnostic>) -> Vec<RawBlock> {
    let mut out = Vec::new();
    for block in raw {
        let mut current: Vec<RawField> = Vec::new();
        for f in block.fields {
            let key = f.key();
            let starts_block = key != "fleet" && BLOCK_TYPES.iter().any(|(n, _)| *n == key);
            if starts_block && !current.is_empty() {
                diags.push(Diagnostic::warning(
                    f.name_span.clone(),
                    format!("`{}:` starts a new block without a blank line before it", f.name.trim()),
                    "a blank line between blocks (read here as a new block)",
                ));
                out.push(RawBlock {
                    fields: std::mem::take(&mut current),
                });
            }
            current.push(f);
        }
        if !current.is_empty() {
            out.push(RawBlock { fields: current });
        }
    }
    out
}

/// Profile: the header's `Profile:` field, or else what the file's names say.
fn choose_profile(raw: &[RawBlock], diags: &mut Vec<Diagnostic>) -> (Profile, String) {
    let header = raw
        .first()
        .filter(|b| HEADER_FIELDS.contains(&b.first().key().as_str()));
    if let Some(header) = header {
        for f in &header.fields {
            if f.key() == "profile" {
                let v = f.value();
                if same_words(&v, "FB1") {
                    return (Profile::Fb1, "the header says `Profile: FB1`".into());
                }
                if same_words(&v, "FT2") {
                    return (Profile::Ft2, "the header says `Profile: FT2`".into());
                }
                diags.push(Diagnostic::error(
                    f.value_span(),
                    format!("unknown profile `{v}`"),
                    "FB1 or FT2",
                ));
            }
        }
    }
    let mut ft2_hint: Option<String> = None;
    let mut fb1_hint: Option<String> = None;
    for block in raw {
        for f in &block.fields {
            let key = f.key();
            let value = f.value().to_ascii_lowercase();
            let fb1 = match key.as_str() {
                "units" | "ship-type" | "hull-integrity" => true,
                "system" => {
                    (value.starts_with("class ") && value.ends_with(" battery"))
                        || [
                            "fcs",
                            "hangar bay",
                            "adfc",
                            "lss",
                            "command bridge",
                            "power core",
                            "sml",
                            "smr",
                            "smm",
                        ]
                        .contains(&value.as_str())
                }
                "firing-arc" => value.split([' ', ',']).any(|a| ["fs", "fp", "ap", "as"].contains(&a)),
                "damage-track" => value.contains('*'),
                _ => false,
            };
            let ft2 = match key.as_str() {
                "hull-class" => true,
                "system" => [
                    "a battery",
                    "b battery",
                    "c battery",
                    "aa megabattery",
                    "firecon",
                    "fighter bay",
                    "pdaf",
                    "adaf",
                    "damage control party",
                    "scattergun",
                    "energy pulse",
                    "1 railgun",
                    "2 railgun",
                    "3 railgun",
                ]
                .contains(&value.as_str()),
                "armour" => value.starts_with("level"),
                "firing-arc" => value.split([' ', ',']).any(|a| a == "p" || a == "s"),
                _ => false,
            };
            let hint = || format!("`{}: {}`", f.name.trim(), f.value());
            if fb1 && fb1_hint.is_none() {
                fb1_hint = Some(hint());
            }
            if ft2 && ft2_hint.is_none() {
                ft2_hint = Some(hint());
            }
        }
    }
    match (fb1_hint, ft2_hint) {
        (None, Some(h)) => (
            Profile::Ft2,
            format!(
                "the file was read as FT2 because of {h}; write `Profile: FB1` or `Profile: FT2` in the header to say which"
            ),
        ),
        (Some(h), _) => (
            Profile::Fb1,
            format!(
                "the file was read as FB1 because of {h}; write `Profile: FB1` or `Profile: FT2` in the header to say which"
            ),
        ),
        (None, None) => (
            Profile::Fb1,
            "the file was read as FB1 (the default); write `Profile: FT2` in the header for the FT2 profile".into(),
        ),
    }
}

/// Field names of each block type, in canonical (writing) order, for fields
/// kept as text. Typed fields are handled by the block functions.
const SHIP_META: &[FieldSpec] = &[
    spec("Captain", TextType::Text),
    spec("Crew", TextType::Text),
    spec("Facing", TextType::Clock),
    spec("Course", TextType::Course),
    spec("Velocity", TextType::Integer),
    spec("Position-X", TextType::Float),
    spec("Position-Y", TextType::Float),
    spec("Movement-System", TextType::Keyword(&["Vector", "Cinematic"])),
    spec("Move", TextType::Move),
    spec("Orders", TextType::Lines),
    spec("Thrusters", TextType::Integer),
    spec("Thrust-Power", TextType::Integer),
    spec("Power-Factor", TextType::Integer),
    spec("Biocapacitor", TextType::Integer),
    spec("Screen-Power", TextType::Integer),
    spec("Weapon-Power", TextType::Integer),
    spec("Log", TextType::Lines),
    // fam extension: the designer an FTJava record names (docs/import.md).
    spec("Designer", TextType::Text),
];
const SYSTEM_META: &[FieldSpec] = &[spec("Orders", TextType::Lines), spec("Log", TextType::Lines)];
const SCENARIO_META: &[FieldSpec] = &[
    spec("Location", TextType::Text),
    spec("Date", TextType::Text),
    spec("Extent", TextType::Text),
    spec("Low-X", TextType::Float),
    spec("Low-Y", TextType::Float),
    spec("High-X", TextType::Float),
    spec("High-Y", TextType::Float),
    spec("Log", TextType::Lines),
];
const FLEET_META: &[FieldSpec] = &[spec("Log", TextType::Lines)];
const MOVING_META: &[FieldSpec] = &[
    spec("Position-X", TextType::Float),
    spec("Position-Y", TextType::Float),
    spec("Course", TextType::Course),
    spec("Facing", TextType::Clock),
    spec("Velocity", TextType::Integer),
    spec("Orders", TextType::Lines),
    spec("Log", TextType::Lines),
];
const BASE_META: &[FieldSpec] = &[
    spec("Captain", TextType::Text),
    spec("Course", TextType::Course),
    spec("Facing", TextType::Clock),
    spec("Velocity", TextType::Integer),
    spec("Position-X", TextType::Float),
    spec("Position-Y", TextType::Float),
    spec("Orders", TextType::Lines),
    spec("Log", TextType::Lines),
];
const SECTOR_META: &[FieldSpec] = &[spec("Orders", TextType::Lines), spec("Log", TextType::Lines)];
const TERRAIN_META: &[FieldSpec] = &[
    spec("Position-X", TextType::Float),
    spec("Position-Y", TextType::Float),
    spec("Diameter", TextType::Float),
    spec("Low-X", TextType::Float),
    spec("Low-Y", TextType::Float),
    spec("High-X", TextType::Float),
    spec("High-Y", TextType::Float),
    spec("Course", TextType::Course),
    spec("Facing", TextType::Clock),
    spec("Velocity", TextType::Integer),
    spec("Log", TextType::Lines),
];

/// Canonical order of kept-as-text fields for a block's meta list.
fn meta_order(list: &[FieldSpec], name: &str) -> usize {
    list.iter()
        .position(|s| s.name.eq_ignore_ascii_case(name))
        .unwrap_or(usize::MAX)
}

/// The FB1 profile text runs several fields together on one line
/// (`Movement-System: Vector Move: MD2 ... Orders: ... Log:`). When a field
/// whose value is not free text holds `Name:` of another field of the same
/// block, it is split there (with a warning).
fn split_run_together(block: &RawBlock, kind: BlockKind, diags: &mut Vec<Diagnostic>) -> RawBlock {
    let specs: &[FieldSpec] = match kind {
        BlockKind::Ship => SHIP_META,
        _ => return block.clone(),
    };
    let known = |t: &str| {
        t.strip_suffix(':')
            .is_some_and(|n| specs.iter().any(|s| s.name.eq_ignore_ascii_case(n)) || n.eq_ignore_ascii_case("Orders"))
    };
    let mut out = Vec::new();
    for f in &block.fields {
        let free_text = specs
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(f.name.trim()))
            .is_none_or(|s| matches!(s.ty, TextType::Text | TextType::Lines));
        let first_part = match f.parts.first() {
            Some(p) if !free_text => p,
            _ => {
                out.push(f.clone());
                continue;
            }
        };
        let single = RawField {
            name: f.name.clone(),
            name_span: f.name_span.clone(),
            parts: vec![first_part.clone()],
        };
        let toks = single.tokens();
        let cuts: Vec<_> = toks.iter().filter(|t| known(t.text)).collect();
        if cuts.is_empty() {
            out.push(f.clone());
            continue;
        }
        diags.push(Diagnostic::warning(
            f.span(),
            "several fields run together on one line",
            "one field per line (read here as separate fields)",
        ));
        let text_at = |start: usize, end: usize| {
            let off = first_part.span.start;
            first_part.text[start - off..end - off].trim().to_string()
        };
        let value_end = |i: usize| cuts.get(i).map_or(first_part.span.end, |c| c.span.start);
        let first_end = value_end(0);
        let v = text_at(first_part.span.start, first_end);
        out.push(RawField {
            name: f.name.clone(),
            name_span: f.name_span.clone(),
            parts: vec![blocks::Part {
                span: first_part.span.start..first_part.span.start + v.len(),
                text: v,
            }],
        });
        for (i, cut) in cuts.iter().enumerate() {
            let vstart = cut.span.end;
            let vend = value_end(i + 1);
            let v = text_at(vstart, vend);
            let lead = first_part.text[vstart - first_part.span.start..].len()
                - first_part.text[vstart - first_part.span.start..].trim_start().len();
            out.push(RawField {
                name: cut.text.trim_end_matches(':').to_string(),
                name_span: cut.span.start..cut.span.end - 1,
                parts: vec![blocks::Part {
                    span: vstart + lead..vstart + lead + v.len(),
                    text: v,
                }],
            });
        }
        // Continuation lines belong to the last field of the run.
        if let Some(last) = out.last_mut() {
            last.parts.extend(f.parts.iter().skip(1).cloned());
        }
    }
    RawBlock { fields: out }
}

#[derive(Debug, Clone, Copy)]
enum Owner {
    None,
    Ship(usize),
    Base(usize),
    Sector(usize),
}

struct Builder<'o> {
    options: &'o ParseOptions,
    owner: Owner,
    seen_owner: bool,
    /// For each ship (by item index), the span to report each system's
    /// links at: its `Magazine:` value, or its `System:` field.
    system_spans: BTreeMap<usize, Vec<std::ops::Range<usize>>>,
    item_spans: Vec<FieldSpans>,
}

/// Tracks which fields a block has had, to report duplicates.
struct Seen {
    names: Vec<String>,
}

impl Seen {
    fn new() -> Self {
        Seen { names: Vec::new() }
    }

    /// False (and an error) if the field was already given.
    fn first_time(&mut self, cx: &mut Cx<'_>, f: &RawField, key: &str) -> bool {
        if key == "log" || key == "orders" {
            return true; // repeated entries are appended
        }
        if self.names.iter().any(|n| n == key) {
            cx.diags.push(Diagnostic::error(
                f.name_span.clone(),
                format!("`{}:` appears twice in this block", f.name.trim()),
                "each field once per block",
            ));
            return false;
        }
        self.names.push(key.to_string());
        true
    }
}

/// The block's fields after its first, each with its normalised name; a
/// field given twice is reported and left out.
fn body<'b>(cx: &mut Cx<'_>, block: &'b RawBlock) -> Vec<(&'b RawField, String)> {
    let mut seen = Seen::new();
    block.fields[1..]
        .iter()
        .filter_map(|f| {
            let key = f.key();
            seen.first_time(cx, f, &key).then_some((f, key))
        })
        .collect()
}

/// Adds a kept-as-text field (known or not) to a meta list.
fn push_meta(cx: &mut Cx<'_>, meta: &mut Vec<Meta>, specs: &[FieldSpec], f: &RawField, block: &str) {
    let name = f.name.trim();
    match specs.iter().find(|s| normalize_name(s.name) == normalize_name(name)) {
        Some(s) => {
            if let Some(lines) = cx.checked_text(f, s.ty) {
                append_meta(meta, s.name, lines);
            }
        }
        None => {
            cx.diags.push(Diagnostic::warning(
                f.name_span.clone(),
                format!("unknown field `{name}` in a {block} block"),
                "a field of this block type (kept as written)",
            ));
            append_meta(meta, name, f.value_lines());
        }
    }
}

fn append_meta(meta: &mut Vec<Meta>, name: &str, lines: Vec<String>) {
    if let Some(m) = meta.iter_mut().find(|m| m.name.eq_ignore_ascii_case(name)) {
        m.lines.extend(lines);
    } else {
        meta.push(Meta {
            name: name.to_string(),
            lines,
        });
    }
}

fn sort_meta(meta: &mut [Meta], specs: &[FieldSpec]) {
    meta.sort_by_key(|m| meta_order(specs, &m.name));
}

fn missing(cx: &mut Cx<'_>, block: &RawBlock, field: &str, example: &str) {
    let first = block.first();
    let what = first.value();
    let label = if what.is_empty() {
        first.name.trim().to_string()
    } else {
        format!("{} `{}`", first.name.trim(), what)
    };
    cx.diags.push(Diagnostic::error(
        first.span(),
        format!("{label} has no `{field}:` field"),
        format!(
            "`{field}: {example}` in this block (the {} profile requires it)",
            cx.profile
        ),
    ));
}

impl Builder<'_> {
    fn add(&mut self, cx: &mut Cx<'_>, file: &mut GzfFile, kind: BlockKind, block: &RawBlock) {
        match kind {
            BlockKind::Header => {
                file.header = header(cx, block);
            }
            BlockKind::Ship => {
                let ship = ship(cx, block);
                file.items.push(Item::Ship(ship));
                self.owner = Owner::Ship(file.items.len() - 1);
                self.seen_owner = true;
            }
            BlockKind::Base => {
                let base = base(cx, block);
                file.items.push(Item::Base(base));
                self.owner = Owner::Base(file.items.len() - 1);
                self.seen_owner = true;
            }
            BlockKind::BaseSector => {
                let idx = match self.owner {
                    Owner::Base(i) | Owner::Sector(i) => i,
                    _ => {
                        cx.diags.push(Diagnostic::error(
                            block.first().span(),
                            "Base-Sector block with no Base before it",
                            "a Base block, then its Base-Sector blocks",
                        ));
                        self.owner = Owner::None;
                        return;
                    }
                };
                let sector = sector(cx, block);
                if let Item::Base(b) = &mut file.items[idx] {
                    b.sectors.push(sector);
                }
                self.owner = Owner::Sector(idx);
            }
            BlockKind::System => {
                let Some(sys) = system(cx, block, self.options) else {
                    return;
                };
                match self.owner {
                    Owner::Ship(i) => {
                        if let Item::Ship(s) = &mut file.items[i] {
                            if s.systems.len() >= MAX_SYSTEMS_PER_SHIP {
                                cx.diags.push(Diagnostic::error(
                                    block.first().name_span.clone(),
                                    format!(
                                        "ship `{}` has more than {MAX_SYSTEMS_PER_SHIP} systems, the most fam reads",
                                        s.name
                                    ),
                                    "a ship's systems (the largest designs carry well under a hundred)",
                                ));
                                return;
                            }
                            s.systems.push(sys);
                            let span = block
                                .fields
                                .iter()
                                .find(|f| f.key() == "magazine")
                                .unwrap_or(block.first())
                                .value_span();
                            self.system_spans.entry(i).or_default().push(span);
                        }
                    }
                    Owner::Base(i) => {
                        if let Item::Base(b) = &mut file.items[i] {
                            b.systems.push(sys);
                        }
                    }
                    Owner::Sector(i) => {
                        if let Item::Base(b) = &mut file.items[i]
                            && let Some(s) = b.sectors.last_mut()
                        {
                            s.systems.push(sys);
                        }
                    }
                    Owner::None => {
                        if self.seen_owner {
                            cx.diags.push(Diagnostic::warning(
                                block.first().span(),
                                "System block that follows no Ship, Base or Base-Sector",
                                "systems right after their owner (read as a generic system definition)",
                            ));
                        }
                        file.items.push(Item::System(sys));
                    }
                }
            }
            other => {
                self.owner = Owner::None;
                let item = match other {
                    BlockKind::Scenario => Item::Scenario(scenario(cx, block)),
                    BlockKind::Fleet => Item::Fleet(fleet(cx, block)),
                    BlockKind::FighterGroup => Item::FighterGroup(fighter_group(cx, block)),
                    BlockKind::Launched => Item::Launched(launched(cx, block)),
                    BlockKind::Terrain => Item::Terrain(terrain(cx, block)),
                    _ => unreachable!("owner blocks handled above"),
                };
                file.items.push(item);
            }
        }
    }
}

fn header(cx: &mut Cx<'_>, block: &RawBlock) -> Header {
    let mut h = Header::default();
    let mut seen = Seen::new();
    for f in &block.fields {
        let key = f.key();
        if !seen.first_time(cx, f, &key) {
            continue;
        }
        match key.as_str() {
            "profile" => {} // read by choose_profile
            "universe" => h.universe = cx.text(f),
            "universe-version" => h.universe_version = cx.text(f),
            "units" => {
                if cx.profile == Profile::Ft2 {
                    cx.field_of_other_profile(f, Profile::Fb1, "no `Units:` line in an FT2 header");
                } else {
                    h.units = cx.keyword(f, &[("cm", Units::Cm), ("inches", Units::Inches)]);
                }
            }
            _ => {
                if key != "gzf-version" {
                    cx.diags.push(Diagnostic::warning(
                        f.name_span.clone(),
                        format!("unknown header field `{}`", f.name.trim()),
                        "Profile, Universe, Universe-Version or Units (kept as written)",
                    ));
                }
                let name = if key == "gzf-version" {
                    "GZF-Version"
                } else {
                    f.name.trim()
                };
                append_meta(&mut h.meta, name, f.value_lines());
            }
        }
    }
    h
}

fn ship(cx: &mut Cx<'_>, block: &RawBlock) -> Ship {
    let mut s = Ship::new(block.first().value());
    let mut thrust = None;
    let mut original = None;
    let mut track_given = false;
    for (f, key) in body(cx, block) {
        match key.as_str() {
            "class" => s.class = cx.text(f),
            "hull-integrity" => {
                if cx.profile == Profile::Ft2 {
                    cx.field_of_other_profile(
                        f,
                        Profile::Fb1,
                        "no `Hull-Integrity:` in an FT2 ship (its hull is its damage track)",
                    );
                } else {
                    let choices: Vec<_> = HullIntegrity::ALL.iter().map(|h| (h.name(), *h)).collect();
                    s.hull_integrity = cx.keyword(f, &choices);
                }
            }
            "ship-type" | "hull-type" => s.ship_type = ship_type(cx, f),
            "hull-class" => {
                if cx.profile == Profile::Fb1 {
                    cx.field_of_other_profile(f, Profile::Ft2, "no `Hull-Class:` in an FB1 ship");
                    continue;
                }
                s.hull_class = cx
                    .checked_text(
                        f,
                        TextType::Keyword(&[
                            "Q Ship",
                            "Merchant",
                            "Escort",
                            "Cruiser",
                            "Capital",
                            "Supership",
                            "Q Supership",
                        ]),
                    )
                    .map(|l| l.join(" "));
            }
            "streamlining" => {
                let words: &'static [&'static str] = match cx.profile {
                    Profile::Fb1 => &["None", "Partial", "Full"],
                    Profile::Ft2 => &["None", "Partially", "Fully"],
                };
                s.streamlining = cx.checked_text(f, TextType::Keyword(words)).map(|l| l.join(" "));
            }
            "mass" => s.mass = cx.uint(f),
            "cost" => s.cost = cx.uint(f),
            "fleet" => s.fleet = cx.text(f),
            "status" => s.status = cx.status(f).unwrap_or_default(),
            "thrust-rating" => thrust = Some(cx.uint(f)),
            "original-thrust" => original = cx.uint(f),
            "drive-type" => {
                let words: &'static [&'static str] = &["Standard", "Advanced"];
                s.advanced_drive = cx
                    .checked_text(f, TextType::Keyword(words))
                    .is_some_and(|l| l.join(" ").eq_ignore_ascii_case("advanced"));
            }
            "armour" => s.armour = armour(cx, f),
            "damage-track" => {
                track_given = true;
                s.damage_track = cx.track(f).unwrap_or_default();
            }
            _ => push_meta(cx, &mut s.meta, SHIP_META, f, "Ship"),
        }
    }
    match thrust {
        Some(t) => s.thrust = t.unwrap_or(0),
        None => missing(cx, block, "Thrust-Rating", "6"),
    }
    s.original_thrust = original.unwrap_or(s.thrust).max(s.thrust);
    if !track_given {
        let example = match cx.profile {
            Profile::Fb1 => "OOO* OOO* OOO* OO*",
            Profile::Ft2 => "OOOO OOOO OOOO OOO",
        };
        missing(cx, block, "Damage-Track", example);
    }
    sort_meta(&mut s.meta, SHIP_META);
    s
}

fn ship_type(cx: &mut Cx<'_>, f: &RawField) -> Option<ShipType> {
    let ft2 = cx.profile == Profile::Ft2;
    if ft2 && f.key() == "ship-type" {
        cx.field_of_other_profile(
            f,
            Profile::Fb1,
            "`Hull-Type: Military` or `Hull-Type: Civilian` in an FT2 ship",
        );
        return None;
    }
    let mut choices = vec![("Military", ShipType::Military), ("Civilian", ShipType::Civilian)];
    if !ft2 {
        choices.push(("Merchant", ShipType::Merchant));
    }
    cx.keyword(f, &choices)
}

fn armour(cx: &mut Cx<'_>, f: &RawField) -> Option<Armour> {
    match cx.profile {
        Profile::Fb1 => cx.armour_layers(f).and_then(Armour::from_layers),
        Profile::Ft2 => cx.keyword(f, &[("Level 1", 1u8), ("Level 2", 2u8)]).map(Armour::Level),
    }
}

/// The system types of a profile as they are usually written (every one
/// read by [`system_kind`]), for suggestions: the registry's names.
pub fn system_names(profile: Profile) -> Vec<String> {
    crate::model::registry::names(profile)
}

/// Parses a system name into a kind, for either profile, by the registry's
/// spellings (`model::registry`): the kind, or the other profile when the
/// name is one of its.
pub fn system_kind(name: &str, profile: Profile) -> Result<SystemKind, Option<Profile>> {
    let lower = super::fields::collapse(name).to_ascii_lowercase();
    SystemKind::from_name(&lower, profile)
}

fn system(cx: &mut Cx<'_>, block: &RawBlock, options: &ParseOptions) -> Option<System> {
    let first = block.first();
    let name = first.value();
    let kind = match system_kind(&name, cx.profile) {
        Ok(k) => Some(k),
        Err(Some(other)) => {
            // Suggest this profile's name for the same kind, if it has one.
            let instead = system_kind(&name, other)
                .ok()
                .map(|k| k.name(cx.profile))
                .filter(|n| system_kind(n, cx.profile).is_ok())
                .map(|n| format!("`{n}`"));
            cx.profile_mismatch(first, &name, other, instead);
            None
        }
        Err(None) if name.is_empty() => {
            cx.error(
                first,
                "`System:` names no system",
                "a system type such as `Class 2 Battery` or `FCS`",
            );
            None
        }
        Err(None) if options.inert_unknown_systems => Some(SystemKind::Inert(super::fields::collapse(&name))),
        Err(None) if name.to_ascii_lowercase().contains("high intensity graser") => {
            cx.diags.push(
                Diagnostic::error(
                    first.value_span(),
                    format!("fam does not resolve `{name}`"),
                    "a system type fam resolves",
                )
                .with_help(
                    "a high-intensity graser is `Class N High Intensity Graser` with N from 1 to 6; pass \
                     --inert-unknown-systems to load it as an inert system",
                ),
            );
            None
        }
        Err(None) => {
            let names = system_names(cx.profile);
            // A misspelt system is no system to load as inert.
            let help = match crate::suggest::closest(&name, names.iter().map(String::as_str)) {
                Some(meant) => crate::suggest::did_you_mean(&name, meant),
                None => "pass --inert-unknown-systems to load it as an inert system (it does nothing but still counts for threshold checks)".to_string(),
            };
            cx.diags.push(
                Diagnostic::error(
                    first.value_span(),
                    format!("unknown system `{name}`"),
                    format!("a system type of the {} profile", cx.profile),
                )
                .with_help(help),
            );
            None
        }
    };
    let mut s = System::new(kind.clone().unwrap_or(SystemKind::Inert(String::new())));
    for (f, key) in body(cx, block) {
        match key.as_str() {
            "firing-arc" => s.arcs = cx.arcs(f).unwrap_or_default(),
            "cost" => s.cost = cx.uint(f),
            "mass" => s.mass = cx.uint(f),
            "status" => s.status = cx.status(f).unwrap_or_default(),
            "failure" => s.failure = cx.int(f),
            "capacity" => s.capacity = cx.uint(f),
            "magazine" => s.magazine = cx.text(f),
            "rounds" => s.rounds = cx.boxes(f, false),
            "ammo-type" => s.ammo = cx.keyword(f, &[("Standard", AmmoType::Standard), ("ER", AmmoType::Er)]),
            "fighter-type" => s.fighter_type = cx.fighter_type(f),
            "pilot-quality" => s.pilot_quality = cx.pilot_quality(f),
            "pulser-setting" => pulser_setting(cx, f, &mut s),
            _ => push_meta(cx, &mut s.meta, SYSTEM_META, f, "System"),
        }
    }
    sort_meta(&mut s.meta, SYSTEM_META);
    kind.map(|_| s)
}

/// `Pulser-Setting: Long|Medium|Short` (fam extension): the setting a
/// Pulser keeps for the battle; only on a Pulser.
fn pulser_setting(cx: &mut Cx<'_>, f: &RawField, s: &mut System) {
    use crate::model::PulserSetting as P;
    let choices = [("Long", P::Long), ("Medium", P::Medium), ("Short", P::Short)];
    let Some(setting) = cx.keyword(f, &choices) else {
        return;
    };
    match &mut s.kind {
        SystemKind::Pulser { setting: slot } => *slot = Some(setting),
        // The kind is unknown when the `System:` line had an error.
        SystemKind::Inert(name) if name.is_empty() => {}
        other => {
            let name = other.name(cx.profile);
            cx.error(
                f,
                format!("`Pulser-Setting:` on a `{name}`, which is not a Pulser"),
                "`Pulser-Setting:` only in a `System: Pulser` block",
            );
        }
    }
}

fn scenario(cx: &mut Cx<'_>, block: &RawBlock) -> Scenario {
    let mut s = Scenario {
        title: block.first().value(),
        turn: 0,
        meta: Vec::new(),
    };
    let mut turn = false;
    for (f, key) in body(cx, block) {
        match key.as_str() {
            "turn" => {
                turn = true;
                s.turn = cx.int(f).unwrap_or(0);
            }
            _ => push_meta(cx, &mut s.meta, SCENARIO_META, f, "Scenario"),
        }
    }
    if !turn {
        missing(cx, block, "Turn", "0");
    }
    sort_meta(&mut s.meta, SCENARIO_META);
    s
}

fn fleet(cx: &mut Cx<'_>, block: &RawBlock) -> Fleet {
    let mut fl = Fleet {
        name: block.first().value(),
        admiral: String::new(),
        morale: None,
        meta: Vec::new(),
    };
    let mut admiral = false;
    for (f, key) in body(cx, block) {
        match key.as_str() {
            "admiral" => {
                admiral = true;
                fl.admiral = cx.text(f).unwrap_or_default();
            }
            "morale" => fl.morale = cx.percent(f),
            _ => push_meta(cx, &mut fl.meta, FLEET_META, f, "Fleet"),
        }
    }
    if !admiral {
        missing(cx, block, "Admiral", "a name");
    }
    fl
}

fn require_position(cx: &mut Cx<'_>, block: &RawBlock, meta: &[Meta]) {
    for axis in ["Position-X", "Position-Y"] {
        if !meta.iter().any(|m| m.name == axis) && !block.fields.iter().any(|f| f.key() == axis.to_ascii_lowercase()) {
            missing(cx, block, axis, "0.0");
        }
    }
}

fn fighter_group(cx: &mut Cx<'_>, block: &RawBlock) -> FighterGroup {
    let mut g = FighterGroup::new(block.first().value());
    let mut seen = Seen::new();
    let mut craft = false;
    let mut status_span = None;
    let mut gunboat_field = None;
    let mut endurance_field = None;
    for f in &block.fields[1..] {
        // The profiles' examples write `Type:` and `Quality:`.
        let key = match f.key().as_str() {
            "type" => "fighter-type".to_string(),
            "quality" => "pilot-quality".to_string(),
            k => k.to_string(),
        };
        if !seen.first_time(cx, f, &key) {
            continue;
        }
        match key.as_str() {
            "craft" => {
                craft = true;
                if let Some(b) = cx.boxes(f, false) {
                    if b.len() > 8 {
                        cx.error(
                            f,
                            format!("{} craft boxes in one group", b.len()),
                            "at most 6 craft (8 for light fighters)",
                        );
                    }
                    g.craft = b;
                }
            }
            "fighter-type" => g.fighter_type = cx.fighter_type(f),
            "pilot-quality" => g.pilot_quality = cx.pilot_quality(f),
            "endurance" => {
                g.endurance = cx.boxes(f, false);
                endurance_field = Some(f);
            }
            "status" => {
                g.status = cx.status(f).unwrap_or_default();
                status_span = Some(f.value_span());
            }
            "carrier" => g.carrier = cx.text(f),
            "screening" => g.screening = cx.text(f),
            // fam extensions (docs/fighters.md §7).
            "rounds" => {
                g.rounds = cx.boxes(f, false);
                if let Some(n) = g.rounds.as_ref().map(Vec::len).filter(|n| *n != 1) {
                    cx.error(
                        f,
                        format!("{n} boxes in a group's `Rounds:`"),
                        "one box: `Rounds: O` (torpedoes aboard) or `Rounds: -` (spent)",
                    );
                }
            }
            "rearm" => g.rearm = rearm(cx, f),
            "gunboat" => {
                g.gunboat = cx.keyword(
                    f,
                    &[
                        ("Beam", GunboatType::Beam),
                        ("Torpedo", GunboatType::Torpedo),
                        ("Gatling", GunboatType::Gatling),
                        ("K-Gun", GunboatType::KGun),
                        ("Rocket", GunboatType::Rocket),
                        ("Submunition", GunboatType::Submunition),
                        ("Missile", GunboatType::Missile),
                        ("PDS", GunboatType::Pds),
                    ],
                );
                gunboat_field = Some(f.value_span());
            }
            _ => push_meta(cx, &mut g.meta, MOVING_META, f, "Fighter-Group"),
        }
    }
    if !craft {
        missing(cx, block, "Craft", "O O O O O O");
    }
    if let Some(f) = endurance_field {
        check_endurance(cx, f, &g);
    }
    if g.gunboat.is_some() && g.status.launch == Some(Launch::Docked) {
        cx.diags.push(
            Diagnostic::error(
                status_span.or(gunboat_field).unwrap_or_else(|| block.first().span()),
                format!("gunboat squadron `{}` is docked", g.id),
                "`Status: Launched` (gunboats start the battle launched)",
            )
            .with_help("GZF has no gunboat racks or boat bays, so fam cannot launch gunboats (docs/fighters.md §5)"),
        );
    }
    // A group in or launched from its carrier needs no position of its own
    // (readings G25): fam writes such groups without one.
    let placed_by_carrier = g.carrier.is_some() && g.status.launch.is_some();
    if !placed_by_carrier {
        require_position(cx, block, &g.meta);
    }
    sort_meta(&mut g.meta, MOVING_META);
    g
}

/// A group's endurance boxes against its profile (FB1 6 to 9, FT2 3 to 5)
/// or, for light fighters, their 4 (ft-rules §9.1).
fn check_endurance(cx: &mut Cx<'_>, f: &RawField, g: &FighterGroup) {
    let light = g.fighter_type.is_some_and(|t| t.light);
    let (lo, hi) = match cx.profile {
        _ if light => (4, 4),
        Profile::Fb1 => (6, 9),
        Profile::Ft2 => (3, 5),
    };
    if let Some(n) = g.endurance.as_ref().map(Vec::len).filter(|n| !(lo..=hi).contains(n)) {
        let expected = if light {
            "4 endurance boxes (light fighters)".to_string()
        } else {
            format!("{lo} to {hi} endurance boxes (the {} profile)", cx.profile)
        };
        cx.error(f, format!("{n} endurance boxes"), expected);
    }
}

/// `Rearm: N` (Volleys until the group may launch) or `Rearm: Never`.
fn rearm(cx: &mut Cx<'_>, f: &RawField) -> Option<GroupRearm> {
    if same_words(&f.value(), "Never") {
        return Some(GroupRearm::Never);
    }
    if f.value().bytes().all(|b| b.is_ascii_digit()) && !f.value().is_empty() {
        return cx.uint(f).map(GroupRearm::Volleys);
    }
    cx.error(
        f,
        format!("`{}` is not a re-arming count", f.value()),
        "a number of Volleys (0 or more) or `Never`",
    );
    None
}

fn launched(cx: &mut Cx<'_>, block: &RawBlock) -> LaunchedSystem {
    let mut l = LaunchedSystem {
        id: block.first().value(),
        launched_type: None,
        detection_range: None,
        endurance: None,
        status: Status::default(),
        carrier: None,
        meta: Vec::new(),
    };
    for (f, key) in body(cx, block) {
        match key.as_str() {
            "type" => l.launched_type = cx.text(f).map(|t| super::fields::collapse(&t)),
            "detection-range" => l.detection_range = cx.int(f),
            "endurance" => l.endurance = cx.boxes(f, false),
            "status" => l.status = cx.status(f).unwrap_or_default(),
            "carrier" => l.carrier = cx.text(f),
            _ => push_meta(cx, &mut l.meta, MOVING_META, f, "Launched-System"),
        }
    }
    if l.launched_type.is_none() && !block.fields.iter().any(|f| f.key() == "type") {
        // The FT2 profile's own example omits it (ft-rules §13.7): warn only.
        let first = block.first();
        cx.diags.push(Diagnostic::warning(
            first.span(),
            format!("Launched-System `{}` has no `Type:` field", first.value()),
            "`Type: Missile` (or Salvo, Nova Cannon, Mine, Drone ...)",
        ));
    }
    require_position(cx, block, &l.meta);
    sort_meta(&mut l.meta, MOVING_META);
    l
}

fn base(cx: &mut Cx<'_>, block: &RawBlock) -> Base {
    let mut b = Base {
        name: block.first().value(),
        class: None,
        ship_type: None,
        mass: None,
        cost: None,
        fleet: None,
        status: Status::default(),
        armour: None,
        damage_track: Vec::new(),
        payload: None,
        meta: Vec::new(),
        systems: Vec::new(),
        sectors: Vec::new(),
    };
    for (f, key) in body(cx, block) {
        match key.as_str() {
            "class" => b.class = cx.text(f),
            "hull-type" | "ship-type" => {
                let mut choices = vec![("Military", ShipType::Military), ("Civilian", ShipType::Civilian)];
                if cx.profile == Profile::Fb1 {
                    choices.push(("Merchant", ShipType::Merchant));
                }
                b.ship_type = cx.keyword(f, &choices);
            }
            "mass" => b.mass = cx.uint(f),
            "cost" => b.cost = cx.uint(f),
            "fleet" => b.fleet = cx.text(f),
            "status" => b.status = cx.status(f).unwrap_or_default(),
            "armour" => b.armour = armour(cx, f),
            "damage-track" => b.damage_track = cx.track(f).unwrap_or_default(),
            "payload-track" => b.payload = cx.payload(f),
            _ => push_meta(cx, &mut b.meta, BASE_META, f, "Base"),
        }
    }
    sort_meta(&mut b.meta, BASE_META);
    b
}

fn sector(cx: &mut Cx<'_>, block: &RawBlock) -> BaseSector {
    let first = block.first();
    let mut s = BaseSector {
        id: cx.int(first).unwrap_or(0),
        mass: None,
        cost: None,
        armour: None,
        damage_track: Vec::new(),
        payload: None,
        meta: Vec::new(),
        systems: Vec::new(),
    };
    for (f, key) in body(cx, block) {
        match key.as_str() {
            "mass" => s.mass = cx.uint(f),
            "cost" => s.cost = cx.uint(f),
            "armour" => s.armour = armour(cx, f),
            "damage-track" => s.damage_track = cx.track(f).unwrap_or_default(),
            "payload-track" => s.payload = cx.payload(f),
            _ => push_meta(cx, &mut s.meta, SECTOR_META, f, "Base-Sector"),
        }
    }
    sort_meta(&mut s.meta, SECTOR_META);
    s
}

fn terrain(cx: &mut Cx<'_>, block: &RawBlock) -> Terrain {
    let mut t = Terrain {
        name: block.first().value(),
        terrain_type: String::new(),
        damage_track: Vec::new(),
        meta: Vec::new(),
    };
    let mut typed = false;
    for (f, key) in body(cx, block) {
        match key.as_str() {
            "type" => {
                typed = true;
                let v = cx.text(f).unwrap_or_default();
                const TYPES: [&str; 10] = [
                    "Nebula",
                    "Dust Cloud",
                    "Debris",
                    "Battle Debris",
                    "Meteor Swarm",
                    "Star",
                    "Planet",
                    "Moon",
                    "Asteroid",
                    "Atmosphere",
                ];
                // User-defined terrain is allowed: keep its spelling.
                t.terrain_type = TYPES
                    .iter()
                    .find(|w| same_words(w, &v))
                    .map_or_else(|| super::fields::collapse(&v), |w| w.to_string());
            }
            "damage-track" => t.damage_track = cx.track(f).unwrap_or_default(),
            _ => push_meta(cx, &mut t.meta, TERRAIN_META, f, "Terrain"),
        }
    }
    if !typed {
        missing(cx, block, "Type", "Planet");
    }
    let has = |n: &str| t.meta.iter().any(|m| m.name == n);
    let round = has("Position-X") && has("Position-Y") && has("Diameter");
    let bounds = has("Low-X") && has("Low-Y") && has("High-X") && has("High-Y");
    if !round && !bounds {
        let first = block.first();
        let lacking =
            |names: &[&str]| -> Vec<String> { names.iter().filter(|n| !has(n)).map(|n| format!("`{n}:`")).collect() };
        let for_round = lacking(&["Position-X", "Position-Y", "Diameter"]);
        let for_bounds = lacking(&["Low-X", "Low-Y", "High-X", "High-Y"]);
        let (message, expected) = if for_bounds.len() < 4 {
            (
                format!("Terrain `{}` has incomplete bounds", first.value()),
                format!("{} as well", for_bounds.join(", ")),
            )
        } else {
            (
                format!(
                    "Terrain `{}` has neither a position with a diameter nor bounds",
                    first.value()
                ),
                format!("{} (or the four bounds `Low-X:` ... `High-Y:`)", for_round.join(", ")),
            )
        };
        cx.diags.push(Diagnostic::error(first.span(), message, expected));
    }
    sort_meta(&mut t.meta, TERRAIN_META);
    t
}

/// Checks across blocks: unique unit names, magazine links.
fn check_links(
    cx: &mut Cx<'_>,
    file: &GzfFile,
    raw: &[RawBlock],
    system_spans: &BTreeMap<usize, Vec<std::ops::Range<usize>>>,
    text: &str,
) {
    let owner_spans: Vec<_> = raw
        .iter()
        .filter(|b| matches!(b.first().key().as_str(), "ship" | "base"))
        .map(|b| b.first().value_span())
        .collect();
    let mut names: BTreeMap<String, (usize, &str)> = BTreeMap::new();
    let units = file.items.iter().filter_map(|i| match i {
        Item::Ship(s) => Some(s.name.as_str()),
        Item::Base(b) => Some(b.name.as_str()),
        _ => None,
    });
    for (idx, name) in units.enumerate() {
        if name.is_empty() {
            continue;
        }
        let key = super::fields::collapse(name).to_ascii_lowercase();
        match names.get(&key) {
            Some((first, first_name)) => {
                if let (Some(span), Some(first_span)) = (owner_spans.get(idx), owner_spans.get(*first)) {
                    let line = text[..first_span.start.min(text.len())].matches('\n').count() + 1;
                    cx.diags.push(Diagnostic::error(
                        span.clone(),
                        format!("a second unit named `{name}`"),
                        format!("unit names unique within a file (`{first_name}` is on line {line})"),
                    ));
                }
            }
            None => {
                names.insert(key, (idx, name));
            }
        }
    }
    for (item, spans) in system_spans {
        let Some(Item::Ship(ship)) = file.items.get(*item) else {
            continue;
        };
        for (sys, span) in ship.systems.iter().zip(spans) {
            if sys.kind != SystemKind::Sml {
                continue;
            }
            match &sys.magazine {
                Some(id) => {
                    let found = ship.systems.iter().any(|m| {
                        m.kind == SystemKind::Smm && m.magazine.as_deref().is_some_and(|x| x.eq_ignore_ascii_case(id))
                    });
                    if !found {
                        cx.diags.push(Diagnostic::error(
                            span.clone(),
                            format!(
                                "SML on `{}` names magazine `{id}`, which the ship does not carry",
                                ship.name
                            ),
                            format!("an SMM system on this ship with `Magazine: {id}`"),
                        ));
                    }
                }
                None => cx.diags.push(Diagnostic::error(
                    span.clone(),
                    format!("an SML on `{}` has no `Magazine:` link", ship.name),
                    "`Magazine: <id>` naming one of the ship's SMM magazines",
                )),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_suggested_system_name_is_read_in_its_profile() {
        for profile in [Profile::Fb1, Profile::Ft2] {
            for name in system_names(profile) {
                assert!(system_kind(&name, profile).is_ok(), "{name} in {profile}");
            }
        }
    }

    fn help_for(system: &str) -> String {
        let text = format!("Ship: Odd\nThrust-Rating: 4\nDamage-Track: OO OO OO OO\n\nSystem: {system}\n");
        let parsed = parse(&text, &ParseOptions::default());
        let d = parsed
            .diagnostics
            .iter()
            .find(|d| d.message.starts_with("unknown system"))
            .expect("the system is refused");
        d.help.clone().unwrap_or_default()
    }

    #[test]
    fn a_misspelt_system_gets_its_name_and_an_unknown_one_the_inert_advice() {
        assert_eq!(help_for("Clas 2 Battery"), "did you mean `Class 2 Battery`?");
        assert_eq!(help_for("Screen Generater"), "did you mean `Screen Generator`?");
        assert_eq!(help_for("Hanger Bay"), "did you mean `Hangar Bay`?");
        assert!(help_for("Flux Capacitor").contains("--inert-unknown-systems"));
        assert!(help_for("Beam-2").contains("--inert-unknown-systems"));
    }
}
