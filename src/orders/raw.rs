//! TOML text → raw scenario and orders records, every value with its span.
//!
//! Syntax errors come from `toml`'s recovering parser, so every one of them is
//! reported. The document is then deserialized piece by piece (each top-level
//! key, each Volley entry on its own), so one wrong value does not hide the
//! problems in the rest of the file. Nothing here knows ships or thrust:
//! names and numbers are checked in `build`.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;

use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{DeserializeOwned, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::toml_out;
use crate::diag::Diagnostic;

/// A value and its byte span in the TOML text.
pub(crate) use super::keys::{S, key_help};

/// Where the format is described, for help lines.
pub(crate) const FORMAT_DOC: &str = "the orders format is described in docs/orders.md";

/// A maneuver word as written: `close`, `maintain` or `withdraw`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Word {
    Close,
    Maintain,
    Withdraw,
}

/// One name or an array of names (`maintain = "Anvil"` or `maintain = ["Anvil", "Pickets"]`).
#[derive(Debug, Clone)]
pub(crate) enum Names {
    /// A single string: its span is the span of the enclosing value.
    One(String),
    Many(Vec<S<String>>),
}

impl<'de> Deserialize<'de> for Names {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Names;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a Formation name or an array of Formation names")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Names, E> {
                Ok(Names::One(v.to_string()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Names, A::Error> {
                let mut out = Vec::new();
                while let Some(x) = seq.next_element::<S<String>>()? {
                    out.push(x);
                }
                Ok(Names::Many(out))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRules {
    pub reactor_blast: Option<bool>,
    pub repair_permanent_bridge: Option<bool>,
    pub double_drive_check: Option<bool>,
    pub needle_fb1: Option<bool>,
    pub strike_colours: Option<bool>,
    pub pilot_quality: Option<RawPilotQuality>,
    pub fighter_evasion_drm: Option<bool>,
    pub pd_evasion_reroll: Option<RawPdEvasionReroll>,
    pub needle_six_scores: Option<bool>,
    pub plasma_bolt_formation: Option<bool>,
    pub wave_gun_formation: Option<bool>,
    pub nova_cannon_formation: Option<bool>,
    pub vapour_shroud_own_fire: Option<bool>,
    pub antimatter_pd_heavy: Option<bool>,
    pub reroll_depth: Option<RawRerollDepth>,
    pub emp_advanced_screens: Option<bool>,
}

/// `reroll_depth = "per_generation" | "next_layer"` (reading O30).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RawRerollDepth {
    PerGeneration,
    NextLayer,
}

/// `pd_evasion_reroll = "any_miss" | "once_per_die"` (reading W8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RawPdEvasionReroll {
    AnyMiss,
    OncePerDie,
}

/// `pilot_quality = "off" | "record"` (reading F18).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum RawPilotQuality {
    Off,
    Record,
}

/// `morale = 50` (percent of starting mass lost) or `morale = false`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum RawMorale {
    Switch(bool),
    Percent(i64),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawUnitTrigger {
    pub unit: S<String>,
    pub winner: S<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawPointsTrigger {
    pub winner: S<String>,
    pub points: S<i64>,
}

/// The `[reserves]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawReserves {
    pub enabled: Option<S<bool>>,
    pub need_ftl: Option<S<bool>>,
    pub in_reserve: Option<Vec<S<String>>>,
    pub enter: Option<Vec<S<String>>>,
}

/// The `[victory]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawVictory {
    pub max_exchanges: Option<S<i64>>,
    pub morale: Option<S<RawMorale>>,
    pub unit_destroyed: Option<Vec<S<RawUnitTrigger>>>,
    pub points: Option<Vec<S<RawPointsTrigger>>>,
    pub unit_escaped: Option<Vec<S<RawUnitTrigger>>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRange {
    pub between: S<Vec<S<String>>>,
    pub mu: S<i64>,
}

/// One Fire Control's orders, as written in `fire = [...]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawFire {
    pub unit: Option<S<String>>,
    pub fc: Option<S<i64>>,
    /// The target Formation (or `inactive`); `group` instead names a fighter
    /// group or gunboat squadron.
    pub target: Option<S<String>>,
    pub group: Option<S<String>>,
    pub weapons: Option<Numbers>,
    /// Needle beams' targets: one table or an array of them.
    pub needle: Option<S<Needles>>,
}

/// A needle beam's target, as written in `needle = { weapon = 7, unit = "…", system = 5 }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawNeedle {
    pub weapon: S<i64>,
    pub unit: Option<S<String>>,
    pub system: S<i64>,
}

/// One needle table or an array of them.
#[derive(Debug, Clone)]
pub(crate) enum Needles {
    /// A single table: its span is the span of the enclosing value.
    One(RawNeedle),
    Many(Vec<S<RawNeedle>>),
}

impl Needles {
    /// Every entry with its span (`whole` is the span of the `needle` value).
    pub fn entries(&self, whole: &Range<usize>) -> Vec<(Range<usize>, &RawNeedle)> {
        match self {
            Needles::One(n) => vec![(whole.clone(), n)],
            Needles::Many(v) => v.iter().map(|n| (n.span(), n.get_ref())).collect(),
        }
    }
}

impl<'de> Deserialize<'de> for Needles {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Needles;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a table like { weapon = 7, unit = \"…\", system = 5 } or an array of them")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Needles, A::Error> {
                RawNeedle::deserialize(MapAccessDeserializer::new(map)).map(Needles::One)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Needles, A::Error> {
                let mut out = Vec::new();
                while let Some(x) = seq.next_element::<S<RawNeedle>>()? {
                    out.push(x);
                }
                Ok(Needles::Many(out))
            }
        }
        d.deserialize_any(V)
    }
}

/// Weapons fired in point-defence mode, as written in `pd = [...]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawPd {
    pub unit: Option<S<String>>,
    pub weapons: Numbers,
    /// The Unit these weapons defend (own Unit when left out, or as the
    /// engine allocates).
    pub defend: Option<S<String>>,
}

/// One Volley of a Formation's plot.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawVolley {
    pub speed: Option<S<i64>>,
    pub evasion: Option<S<i64>>,
    pub primary: Option<S<BTreeMap<S<Word>, S<String>>>>,
    pub secondary: Option<S<BTreeMap<S<Word>, S<Names>>>>,
    pub shift: Option<BTreeMap<S<String>, S<i64>>>,
    pub fire: Option<Vec<S<RawFire>>>,
    pub pd: Option<Vec<S<RawPd>>>,
    pub damage_control: Option<BTreeMap<S<String>, Numbers>>,
    /// Docked groups launched from this Formation's carriers.
    pub launch: Option<Vec<S<String>>>,
    /// Groups recovered into this Formation's carriers.
    pub recover: Option<Vec<S<String>>>,
    /// One action per small-craft Unit of this Formation.
    pub fighters: Option<Vec<S<RawCraftOrder>>>,
    /// Secondary maneuver of a Formation of small craft only.
    pub after: Option<S<BTreeMap<S<Word>, S<String>>>>,
    /// Ships raising their reflex field this Volley (they do not fire).
    pub reflex: Option<Vec<S<String>>>,
}

/// One group's action, as written in `fighters = [...]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawCraftOrder {
    pub group: S<String>,
    pub attack: Option<S<String>>,
    pub dogfight: Option<S<String>>,
    pub screen: Option<S<String>>,
    pub intercept: Option<S<bool>>,
}

/// A Formation's plot: one or three Volleys.
#[derive(Debug, Clone)]
pub(crate) struct RawPlot {
    pub formation: S<String>,
    /// Span of the `volley` array (or of the Formation's key).
    pub span: Range<usize>,
    /// `None` for an entry that could not be read (already reported).
    pub volleys: Vec<Option<S<RawVolley>>>,
}

/// A name → value list in file order.
pub(crate) type Entries<V> = Vec<(S<String>, S<V>)>;
/// System numbers as written.
pub(crate) type Numbers = S<Vec<S<i64>>>;
/// A table of names → lists: its span and its entries in file order.
pub(crate) type Lists<T> = (Range<usize>, Entries<Vec<S<T>>>);
/// A `[sides]` table: its span and its name lists.
pub(crate) type NameLists = Lists<String>;
/// A `[formations]` table: its span and its member lists.
pub(crate) type MemberLists = Lists<RawMember>;

/// One entry of a `[formations]` list: a ship, base or group by name, or
/// several Units of one ship design (`{ ship = "NAME", count = N }`,
/// docs/orders.md "Several ships of one design").
#[derive(Debug, Clone)]
pub(crate) enum RawMember {
    Name(String),
    Count(RawCount),
}

/// `{ ship = "NAME", count = N }` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawCount {
    pub ship: S<String>,
    pub count: S<i64>,
}

impl<'de> Deserialize<'de> for RawMember {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawMember;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a ship name, or { ship = \"NAME\", count = N } for several of one design")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RawMember, E> {
                Ok(RawMember::Name(v.to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawMember, A::Error> {
                RawCount::deserialize(MapAccessDeserializer::new(map)).map(RawMember::Count)
            }
        }
        d.deserialize_any(V)
    }
}

/// A seed as written: a TOML integer (which holds at most 2^63 − 1), or a
/// string of digits for the seeds above it (run seeds use all 64 bits).
#[derive(Debug, Clone)]
pub(crate) enum RawSeed {
    Integer(i64),
    Digits(String),
}

impl<'de> serde::Deserialize<'de> for RawSeed {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<RawSeed, D::Error> {
        struct Seed;
        impl serde::de::Visitor<'_> for Seed {
            type Value = RawSeed;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a whole number 0 or more, or its digits in quotes")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<RawSeed, E> {
                Ok(RawSeed::Integer(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<RawSeed, E> {
                Ok(i64::try_from(v).map_or_else(|_| RawSeed::Digits(v.to_string()), RawSeed::Integer))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RawSeed, E> {
                Ok(RawSeed::Digits(v.to_string()))
            }
        }
        d.deserialize_any(Seed)
    }
}

#[derive(Debug, Clone, Default)]
pub(crate) struct RawScenario {
    pub title: Option<S<String>>,
    pub exchange: Option<S<i64>>,
    pub gzf: Option<S<Vec<S<String>>>>,
    pub seed: Option<S<RawSeed>>,
    pub start_range: Option<S<i64>>,
    pub rules: Option<RawRules>,
    /// `[launch_tubes]`: ship name → launches plus recoveries per Volley.
    pub launch_tubes: Option<S<BTreeMap<S<String>, S<i64>>>>,
    pub victory: Option<RawVictory>,
    pub reserves: Option<RawReserves>,
    pub sides: Option<NameLists>,
    pub formations: Option<MemberLists>,
    pub ranges: Vec<S<RawRange>>,
    pub plots: Vec<RawPlot>,
    /// `[doctrine.FORMATION]` standing orders.
    pub doctrine: Vec<super::doctrine::RawDoctrine>,
    /// `[[mix.SIDE]]` mixed standing orders.
    pub mix: Vec<super::mix::RawMix>,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct RawOrders {
    pub commander: Option<S<String>>,
    pub scenario: Option<S<String>>,
    pub plots: Vec<RawPlot>,
    /// `[doctrine.FORMATION]` standing orders (the commander's own Formations).
    pub doctrine: Vec<super::doctrine::RawDoctrine>,
}

/// Keys a scenario file may have; an orders file has none of them but
/// `plot` and `doctrine`.
pub(crate) const SCENARIO_KEYS: [&str; 15] = [
    "reserves",
    "launch_tubes",
    "title",
    "exchange",
    "gzf",
    "seed",
    "start_range",
    "rules",
    "victory",
    "sides",
    "formations",
    "range",
    "plot",
    "doctrine",
    "mix",
];
const ORDERS_KEYS: [&str; 4] = ["commander", "scenario", "plot", "doctrine"];

/// Parses TOML, reporting every syntax error. `None` when there were any.
fn parse_document<'i>(text: &'i str, diags: &mut Vec<Diagnostic>) -> Option<S<DeTable<'i>>> {
    let (doc, mut errors) = DeTable::parse_recoverable(text);
    errors.sort_by_key(|e| e.span().map_or(0, |s| s.start));
    // The parser recovers and goes on, but one mistake often sets off more
    // on the same line: only the first on each line is shown.
    let mut lines_seen = Vec::new();
    for e in &errors {
        let span = e.span().unwrap_or(0..0);
        let line = text.get(..span.start).map_or(0, |t| t.matches('\n').count());
        if lines_seen.contains(&line) {
            continue;
        }
        lines_seen.push(line);
        let (message, expected) = split_expected(e.message());
        diags.push(Diagnostic::error(
            span,
            format!("TOML syntax error: {message}"),
            expected.unwrap_or_else(|| "valid TOML".to_string()),
        ));
    }
    errors.is_empty().then_some(doc)
}

/// Splits "…, expected X" into its two halves.
fn split_expected(message: &str) -> (String, Option<String>) {
    let first = message.lines().next().unwrap_or(message);
    match first.rfind(", expected ") {
        Some(i) => (first[..i].to_string(), Some(first[i + 2..].to_string())),
        None => (first.to_string(), None),
    }
}

/// Makes serde's wording readable for a moderator.
fn plain(message: &str) -> String {
    message
        .replace("expected i64", "expected a whole number")
        .replace("expected a sequence", "expected an array")
        .replace("expected a map", "expected a table")
        .replace("expected struct RawVolley", "expected a table of Volley orders")
        .replace(
            "expected struct RawFire",
            "expected a table like { unit = \"…\", fc = 5, target = \"…\" }",
        )
        .replace(
            "expected struct RawCraftOrder",
            "expected a table like { group = \"…\", attack = \"…\" }",
        )
        .replace(
            "expected struct RawPd",
            "expected a table like { unit = \"…\", weapons = [7], defend = \"…\" }",
        )
        .replace(
            "expected struct RawNeedle",
            "expected a table like { weapon = 7, unit = \"…\", system = 5 }",
        )
        .replace("expected struct RawRange", "expected a table with `between` and `mu`")
        .replace("expected struct RawRules", "expected a table of rule switches")
        .replace("floating point", "number")
}

/// The words in backticks of a message, in order (serde names an unknown
/// field or variant first, then the ones expected).
fn backticked(message: &str) -> Vec<&str> {
    message.split('`').skip(1).step_by(2).collect()
}

/// Deserializes one value; a problem becomes a diagnostic at its span (or at
/// `fallback` when the error has none).
fn piece<T: DeserializeOwned>(value: &S<DeValue<'_>>, diags: &mut Vec<Diagnostic>) -> Option<T> {
    match T::deserialize(value.clone().into_deserializer()) {
        Ok(v) => Some(v),
        Err(e) => {
            let span = e.span().unwrap_or_else(|| value.span());
            let raw_message = e.message();
            let message = plain(raw_message);
            let (message, expected) = split_expected(&message);
            let expected = expected.unwrap_or_else(|| "see docs/orders.md".to_string());
            let help = match raw_message.strip_prefix("unknown field `") {
                Some(_) => {
                    let words = backticked(raw_message);
                    key_help(words[0], &words[1..], FORMAT_DOC)
                }
                None if raw_message.starts_with("unknown variant `") => {
                    let words = backticked(raw_message);
                    key_help(words[0], &words[1..], FORMAT_DOC)
                }
                None => FORMAT_DOC.to_string(),
            };
            let message = message.replacen("unknown field", "unknown key", 1);
            diags.push(Diagnostic::error(span, message, expected).with_help(help));
            None
        }
    }
}

/// Entries of a table in file order.
fn sorted_entries<'a, 'i>(table: &'a DeTable<'i>) -> Vec<(&'a S<std::borrow::Cow<'i, str>>, &'a S<DeValue<'i>>)> {
    let mut out: Vec<_> = table.iter().collect();
    out.sort_by_key(|(k, _)| k.span().start);
    out
}

/// A table of names → arrays of members (`[sides]`: names; `[formations]`:
/// [`RawMember`]s), in file order.
fn name_lists<T: DeserializeOwned>(
    value: &S<DeValue<'_>>,
    what: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<Lists<T>> {
    let DeValue::Table(table) = value.get_ref() else {
        diags.push(
            Diagnostic::error(
                value.span(),
                format!("`{what}` must be a table, not {}", value.get_ref().type_str()),
                format!("a table: [{what}]"),
            )
            .with_help(FORMAT_DOC),
        );
        return None;
    };
    let mut entries = Vec::new();
    for (key, v) in sorted_entries(table) {
        let before = diags.len();
        // Each member on its own: one wrong member does not hide the list.
        let list = match v.get_ref() {
            DeValue::Array(items) => Some(
                items
                    .iter()
                    .filter_map(|item| piece::<T>(item, diags).map(|t| Spanned::new(item.span(), t)))
                    .collect(),
            ),
            _ => piece::<Vec<S<T>>>(v, diags),
        };
        if let Some(list) = list {
            entries.push((
                Spanned::new(key.span(), key.get_ref().to_string()),
                Spanned::new(v.span(), list),
            ));
        } else if SCENARIO_KEYS.contains(&key.get_ref().as_ref()) && diags.len() > before {
            // `seed = 3` written after `[formations]` belongs to that table.
            let d = diags.pop().expect("just pushed");
            diags.push(d.with_help(format!(
                "`{}` here is read as part of [{what}]: top-level keys go before the first [table]",
                key.get_ref()
            )));
        }
    }
    Some((value.span(), entries))
}

fn plots(value: &S<DeValue<'_>>, diags: &mut Vec<Diagnostic>) -> Vec<RawPlot> {
    let DeValue::Table(table) = value.get_ref() else {
        diags.push(
            Diagnostic::error(value.span(), "`plot` must be a table", "[[plot.FORMATION.volley]]")
                .with_help(FORMAT_DOC),
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for (key, v) in sorted_entries(table) {
        let formation = Spanned::new(key.span(), key.get_ref().to_string());
        let DeValue::Table(inner) = v.get_ref() else {
            diags.push(
                Diagnostic::error(
                    v.span(),
                    format!("the plot of `{}` must be a table", formation.get_ref()),
                    format!("[[plot.{}.volley]] entries", toml_out::key(formation.get_ref())),
                )
                .with_help(FORMAT_DOC),
            );
            continue;
        };
        let mut volleys = None;
        for (k, vv) in sorted_entries(inner) {
            if k.get_ref() != "volley" {
                diags.push(
                    Diagnostic::error(
                        k.span(),
                        format!("unknown key `{}` in the plot of `{}`", k.get_ref(), formation.get_ref()),
                        "`volley`",
                    )
                    .with_help(key_help(k.get_ref(), &["volley"], FORMAT_DOC)),
                );
                continue;
            }
            match vv.get_ref() {
                DeValue::Array(items) => {
                    let list = items
                        .iter()
                        .map(|item| piece::<RawVolley>(item, diags).map(|r| Spanned::new(item.span(), r)))
                        .collect();
                    volleys = Some((vv.span(), list));
                }
                other => diags.push(
                    Diagnostic::error(
                        vv.span(),
                        format!("`volley` must be an array of tables, not {}", other.type_str()),
                        format!("[[plot.{}.volley]] entries", toml_out::key(formation.get_ref())),
                    )
                    .with_help(FORMAT_DOC),
                ),
            }
        }
        match volleys {
            Some((span, volleys)) => out.push(RawPlot {
                formation,
                span,
                volleys,
            }),
            None if inner.is_empty() || !inner.contains_key("volley") => {
                diags.push(
                    Diagnostic::error(
                        key.span(),
                        format!("the plot of `{}` has no Volleys", formation.get_ref()),
                        format!(
                            "one or three [[plot.{}.volley]] entries",
                            toml_out::key(formation.get_ref())
                        ),
                    )
                    .with_help(FORMAT_DOC),
                );
            }
            None => {}
        }
    }
    out
}

/// Parses a scenario file.
pub(crate) fn scenario(text: &str, diags: &mut Vec<Diagnostic>) -> Option<RawScenario> {
    let doc = parse_document(text, diags)?;
    let mut raw = RawScenario::default();
    for (key, value) in sorted_entries(doc.get_ref()) {
        match key.get_ref().as_ref() {
            "title" => raw.title = piece(value, diags),
            "exchange" => raw.exchange = piece(value, diags),
            "gzf" => raw.gzf = piece(value, diags),
            "seed" => raw.seed = piece(value, diags),
            "start_range" => raw.start_range = piece(value, diags),
            "rules" => raw.rules = piece(value, diags),
            "launch_tubes" => raw.launch_tubes = piece(value, diags),
            "victory" => raw.victory = piece(value, diags),
            "reserves" => raw.reserves = piece(value, diags),
            "sides" => raw.sides = name_lists(value, "sides", diags),
            "formations" => raw.formations = name_lists(value, "formations", diags),
            "range" => raw.ranges = piece(value, diags).unwrap_or_default(),
            "plot" => raw.plots = plots(value, diags),
            "doctrine" => raw.doctrine = super::doctrine::parse(value, diags),
            "mix" => raw.mix = super::mix::parse(value, diags),
            other => {
                let mut d = Diagnostic::error(
                    key.span(),
                    format!("unknown key `{other}` in a scenario file"),
                    format!("one of {}", SCENARIO_KEYS.map(|k| format!("`{k}`")).join(", ")),
                );
                d = if ORDERS_KEYS.contains(&other) {
                    d.with_help("this looks like an orders file: give it to `fam resolve` with --orders")
                } else {
                    d.with_help(key_help(other, &SCENARIO_KEYS, FORMAT_DOC))
                };
                diags.push(d);
            }
        }
    }
    Some(raw)
}

/// Parses an orders file.
pub(crate) fn orders(text: &str, diags: &mut Vec<Diagnostic>) -> Option<RawOrders> {
    let doc = parse_document(text, diags)?;
    let mut raw = RawOrders::default();
    for (key, value) in sorted_entries(doc.get_ref()) {
        match key.get_ref().as_ref() {
            "commander" => raw.commander = piece(value, diags),
            "scenario" => raw.scenario = piece(value, diags),
            "plot" => raw.plots = plots(value, diags),
            "doctrine" => raw.doctrine = super::doctrine::parse(value, diags),
            other => {
                let mut d = Diagnostic::error(
                    key.span(),
                    format!("unknown key `{other}` in an orders file"),
                    "`commander`, `scenario`, `plot` or `doctrine`",
                );
                d = if SCENARIO_KEYS.contains(&other) {
                    d.with_help(format!(
                        "an orders file holds only plots; `{other}` belongs in the scenario file"
                    ))
                } else {
                    d.with_help(key_help(other, &ORDERS_KEYS, FORMAT_DOC))
                };
                diags.push(d);
            }
        }
    }
    Some(raw)
}

/// Whether a TOML text is a scenario (it has a scenario-only key) rather than
/// an orders file. Text that does not parse counts as a scenario.
pub fn is_scenario_text(text: &str) -> bool {
    match DeTable::parse(text) {
        Ok(doc) => doc
            .get_ref()
            .keys()
            .any(|k| SCENARIO_KEYS.contains(&k.get_ref().as_ref()) && !ORDERS_KEYS.contains(&k.get_ref().as_ref())),
        Err(_) => true,
    }
}

/// The `scenario = "…"` reference of an orders file, if it parses and has one.
pub(crate) fn scenario_reference(text: &str) -> Option<S<String>> {
    let doc = DeTable::parse(text).ok()?;
    let value = doc.get_ref().get("scenario")?;
    match value.get_ref() {
        DeValue::String(s) => Some(Spanned::new(value.span(), s.to_string())),
        _ => None,
    }
}
