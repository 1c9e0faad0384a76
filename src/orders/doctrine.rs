//! `[doctrine.FORMATION]` tables: a Formation's standing orders
//! (`engine::doctrine::Doctrine`), in the scenario or in its commander's
//! orders file. The format is in `docs/orders.md`, what the orders do in
//! `docs/doctrine.md`.
//!
//! [`parse`] reads the tables (every value checked, every problem
//! positioned); [`resolve`] names the Formations they refer to once the
//! battle is known; [`doctrine_toml`] writes standing orders back (the
//! play-by-mail cycle carries them into the next Exchange's scenario).

use std::ops::Range;

use serde::Deserialize;
use serde::de::IntoDeserializer;
use toml::Spanned;
use toml::de::DeValue;

use super::keys::{S, key_help};
use super::toml_out::{self, TomlOut, key, quote};
use crate::diag::Diagnostic;
use crate::engine::doctrine::{
    DcKind, Doctrine, EvasionSplit, FighterUse, Movement, Ordnance, PdMode, Selector, WithdrawWhen,
};
use crate::engine::plot::FormationId;
use crate::engine::state::Battle;

/// Where the format is described, for help lines.
const DOC: &str = "standing orders are described in docs/orders.md (\"Standing orders\")";

/// The keys of a `[doctrine.FORMATION]` table, in the documented order.
pub const KEYS: [&str; 10] = [
    "target",
    "maneuver",
    "evasion",
    "fire_at",
    "use_ordnance",
    "use_needles",
    "pd",
    "withdraw_when",
    "damage_control",
    "fighters",
];

/// Selector words (`target`, `fire_at`). `auto` is the default of both:
/// for `target` the side's objective, else the nearest (readings D25); for
/// `fire_at` the default fire target.
const SELECTORS: [(&str, Selector); 5] = [
    ("auto", Selector::Auto),
    ("nearest", Selector::Nearest),
    ("largest", Selector::Largest),
    ("weakest", Selector::Weakest),
    ("most_dangerous", Selector::MostDangerous),
];

/// Maneuver words (`maneuver`; `{ hold = N }` is the table form).
const MOVEMENTS: [(&str, Movement); 5] = [
    ("auto", Movement::Auto),
    ("best_range", Movement::BestRange),
    ("close", Movement::Close),
    ("maintain", Movement::Maintain),
    ("withdraw", Movement::Withdraw),
];

const FIGHTER_USES: [(&str, FighterUse); 2] = [("strike", FighterUse::Strike), ("hold", FighterUse::Hold)];

const PD_MODES: [(&str, PdMode); 3] = [
    ("auto", PdMode::Auto),
    ("never", PdMode::Never),
    ("always", PdMode::Always),
];

/// The word for each damage-control kind.
pub fn dc_word(kind: DcKind) -> &'static str {
    match kind {
        DcKind::Bridge => "bridge",
        DcKind::PowerCore => "power_core",
        DcKind::LifeSupport => "life_support",
        DcKind::Ftl => "ftl",
        DcKind::FireControl => "fire_control",
        DcKind::Adfc => "adfc",
        DcKind::Screen => "screen",
        DcKind::Sensor => "sensor",
        DcKind::Beam => "beam",
        DcKind::Torpedo => "torpedo",
        DcKind::Needle => "needle",
        DcKind::Ordnance => "ordnance",
        DcKind::PointDefence => "point_defence",
        DcKind::Weapon => "weapon",
    }
}

/// `"a", "b" or "c"`.
fn words<'a>(list: impl Iterator<Item = &'a str>) -> String {
    let all: Vec<String> = list.map(|w| format!("\"{w}\"")).collect();
    match all.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

fn lookup<T: Copy>(table: &[(&str, T)], word: &str) -> Option<T> {
    table.iter().find(|(w, _)| *w == word).map(|(_, x)| *x)
}

/// A selector as written: a word, or a Formation's name (checked by
/// [`resolve`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RawSelector {
    Word(Selector),
    Name(String),
}

/// One `[doctrine.FORMATION]` table, its values checked as far as they can
/// be without the battle.
#[derive(Debug, Clone)]
pub(crate) struct RawDoctrine {
    /// The Formation's name as written (the table's key).
    pub formation: S<String>,
    pub target: Option<S<RawSelector>>,
    pub fire_at: Option<S<RawSelector>>,
    /// Everything else; `target` and `fire_at` are filled in by [`resolve`].
    pub doctrine: Doctrine,
}

/// Reads the value of the top-level `doctrine` key: a table of
/// `FORMATION = { … }` tables. Problems go to `diags`; tables with problems
/// are still returned with what could be read (errors stop the build).
pub(crate) fn parse(value: &S<DeValue<'_>>, diags: &mut Vec<Diagnostic>) -> Vec<RawDoctrine> {
    let DeValue::Table(table) = value.get_ref() else {
        diags.push(
            Diagnostic::error(
                value.span(),
                format!("`doctrine` must be a table, not {}", value.get_ref().type_str()),
                "[doctrine.FORMATION] tables",
            )
            .with_help(DOC),
        );
        return Vec::new();
    };
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    let mut out = Vec::new();
    for (key, v) in entries {
        let formation = Spanned::new(key.span(), key.get_ref().to_string());
        let DeValue::Table(inner) = v.get_ref() else {
            diags.push(
                Diagnostic::error(
                    v.span(),
                    format!(
                        "the standing orders of `{}` must be a table, not {}",
                        formation.get_ref(),
                        v.get_ref().type_str()
                    ),
                    format!(
                        "[doctrine.{}] with keys like target = \"nearest\"",
                        toml_out::key(formation.get_ref())
                    ),
                )
                .with_help(DOC),
            );
            continue;
        };
        let mut raw = RawDoctrine {
            formation,
            target: None,
            fire_at: None,
            doctrine: Doctrine::default(),
        };
        let mut keys: Vec<_> = inner.iter().collect();
        keys.sort_by_key(|(k, _)| k.span().start);
        for (k, val) in keys {
            let d = &mut raw.doctrine;
            match k.get_ref().as_ref() {
                "target" => raw.target = selector(val, "target", diags),
                "fire_at" => raw.fire_at = selector(val, "fire_at", diags),
                "maneuver" => d.maneuver = maneuver(val, diags).unwrap_or_default(),
                "evasion" => d.evasion = evasion(val, diags).unwrap_or_default(),
                "use_ordnance" => d.use_ordnance = ordnance(val, diags).unwrap_or_default(),
                "use_needles" => d.use_needles = flag(val, "use_needles", diags),
                "pd" => d.pd = pd(val, diags).unwrap_or_default(),
                "withdraw_when" => d.withdraw_when = withdraw_when(val, diags).unwrap_or_default(),
                "damage_control" => d.damage_control = damage_control(val, diags),
                "fighters" => d.fighters = fighters(val, diags).unwrap_or_default(),
                other => diags.push(
                    Diagnostic::error(
                        k.span(),
                        format!(
                            "unknown key `{other}` in the standing orders of `{}`",
                            raw.formation.get_ref()
                        ),
                        format!("one of {}", KEYS.map(|k| format!("`{k}`")).join(", ")),
                    )
                    .with_help(key_help(other, &KEYS, DOC)),
                ),
            }
        }
        out.push(raw);
    }
    out
}

/// An error about a value of the wrong type.
fn wrong_type(value: &S<DeValue<'_>>, key: &str, expected: String) -> Diagnostic {
    Diagnostic::error(
        value.span(),
        format!("`{key}` cannot be {}", value.get_ref().type_str()),
        expected,
    )
    .with_help(DOC)
}

fn integer(value: &S<DeValue<'_>>) -> Option<i64> {
    match value.get_ref() {
        DeValue::Integer(_) => i64::deserialize(value.clone().into_deserializer()).ok(),
        _ => None,
    }
}

fn selector(value: &S<DeValue<'_>>, key: &str, diags: &mut Vec<Diagnostic>) -> Option<S<RawSelector>> {
    let expected = || format!("{} or a Formation's name", words(SELECTORS.iter().map(|(w, _)| *w)));
    let Some(s) = value.get_ref().as_str() else {
        diags.push(wrong_type(value, key, expected()));
        return None;
    };
    let raw = match lookup(&SELECTORS, s) {
        Some(sel) => RawSelector::Word(sel),
        None => RawSelector::Name(s.to_string()),
    };
    Some(Spanned::new(value.span(), raw))
}

fn maneuver(value: &S<DeValue<'_>>, diags: &mut Vec<Diagnostic>) -> Option<Movement> {
    let expected = || format!("{} or {{ hold = N }}", words(MOVEMENTS.iter().map(|(w, _)| *w)));
    match value.get_ref() {
        DeValue::String(s) => {
            let found = lookup(&MOVEMENTS, s);
            if found.is_none() {
                diags.push(
                    Diagnostic::error(value.span(), format!("unknown maneuver `{s}`"), expected())
                        .with_help("{ hold = N } holds a range of N MU: Close beyond N + 3, Withdraw within N − 3"),
                );
            }
            found
        }
        DeValue::Table(t) => {
            let mut hold = None;
            let mut keys: Vec<_> = t.iter().collect();
            keys.sort_by_key(|(k, _)| k.span().start);
            for (k, v) in keys {
                if k.get_ref() != "hold" {
                    diags.push(
                        Diagnostic::error(
                            k.span(),
                            format!("unknown key `{}` in `maneuver`", k.get_ref()),
                            "`hold`: maneuver = { hold = N }",
                        )
                        .with_help(key_help(k.get_ref(), &["hold"], DOC)),
                    );
                    continue;
                }
                let max = crate::engine::state::MAX_RANGE_MU;
                match integer(v) {
                    Some(n) if (0..=i64::from(max)).contains(&n) => {
                        hold = u32::try_from(n).ok().map(Movement::Hold);
                    }
                    Some(n) => diags.push(Diagnostic::error(
                        v.span(),
                        if n < 0 {
                            "a range cannot be negative".to_string()
                        } else {
                            format!("a range of {n} MU is beyond the longest fam plays ({max} MU)")
                        },
                        format!("a range in MU, 0 to {max}"),
                    )),
                    None => diags.push(wrong_type(v, "hold", "a range in MU, 0 or more".to_string())),
                }
            }
            if t.is_empty() {
                diags.push(Diagnostic::error(
                    value.span(),
                    "`maneuver` names no range to hold",
                    "maneuver = { hold = N }",
                ));
            }
            hold
        }
        _ => {
            diags.push(wrong_type(value, "maneuver", expected()));
            None
        }
    }
}

fn evasion(value: &S<DeValue<'_>>, diags: &mut Vec<Diagnostic>) -> Option<EvasionSplit> {
    let expected = "a number of dice, \"auto\", \"max\" (half the thrust) or \"third\"";
    match value.get_ref() {
        DeValue::String(s) => match s.as_ref() {
            "auto" => Some(EvasionSplit::Auto),
            "max" => Some(EvasionSplit::Max),
            "third" => Some(EvasionSplit::Third),
            other => {
                diags.push(Diagnostic::error(
                    value.span(),
                    format!("unknown Evasion `{other}`"),
                    expected,
                ));
                None
            }
        },
        DeValue::Integer(_) => match integer(value).map(u32::try_from) {
            Some(Ok(n)) => Some(EvasionSplit::Dice(n)),
            _ => {
                diags.push(
                    Diagnostic::error(
                        value.span(),
                        "Evasion cannot be negative",
                        "a number of dice, 0 or more",
                    )
                    .with_help("more than half the Formation Thrust is cut to half (rounded down)"),
                );
                None
            }
        },
        _ => {
            diags.push(wrong_type(value, "evasion", expected.to_string()));
            None
        }
    }
}

fn flag(value: &S<DeValue<'_>>, key: &str, diags: &mut Vec<Diagnostic>) -> bool {
    match value.get_ref() {
        DeValue::Boolean(b) => *b,
        _ => {
            diags.push(wrong_type(value, key, "true or false".to_string()));
            false
        }
    }
}

fn ordnance(value: &S<DeValue<'_>>, diags: &mut Vec<Diagnostic>) -> Option<Ordnance> {
    let expected = "true, false or \"auto\"";
    match value.get_ref() {
        DeValue::Boolean(true) => Some(Ordnance::Always),
        DeValue::Boolean(false) => Some(Ordnance::Never),
        DeValue::String(s) if s.as_ref() == "auto" => Some(Ordnance::Auto),
        DeValue::String(s) => {
            diags.push(
                Diagnostic::error(value.span(), format!("unknown use of ordnance `{s}`"), expected).with_help(
                    "\"auto\" launches when the plan expects the target surely in reach; true whenever it is in \
                     reach at the start of the Exchange",
                ),
            );
            None
        }
        _ => {
            diags.push(wrong_type(value, "use_ordnance", expected.to_string()));
            None
        }
    }
}

fn pd(value: &S<DeValue<'_>>, diags: &mut Vec<Diagnostic>) -> Option<PdMode> {
    let expected = || words(PD_MODES.iter().map(|(w, _)| *w));
    let Some(s) = value.get_ref().as_str() else {
        diags.push(wrong_type(value, "pd", expected()));
        return None;
    };
    let found = lookup(&PD_MODES, s);
    if found.is_none() {
        diags.push(
            Diagnostic::error(value.span(), format!("unknown point-defence mode `{s}`"), expected()).with_help(
                "\"auto\" puts class-1 beams in PD mode in the Volleys where enemy missiles or small craft \
                     may reach the Formation",
            ),
        );
    }
    found
}

fn fighters(value: &S<DeValue<'_>>, diags: &mut Vec<Diagnostic>) -> Option<FighterUse> {
    let expected = || words(FIGHTER_USES.iter().map(|(w, _)| *w));
    let Some(s) = value.get_ref().as_str() else {
        diags.push(wrong_type(value, "fighters", expected()));
        return None;
    };
    let found = lookup(&FIGHTER_USES, s);
    if found.is_none() {
        diags.push(
            Diagnostic::error(value.span(), format!("unknown use of fighters `{s}`"), expected())
                .with_help("\"strike\" launches every ready group and sends it in; \"hold\" keeps the groups home"),
        );
    }
    found
}

fn withdraw_when(value: &S<DeValue<'_>>, diags: &mut Vec<Diagnostic>) -> Option<WithdrawWhen> {
    let expected = "\"auto\", \"never\", \"crippled\" or { losses = PERCENT }";
    match value.get_ref() {
        DeValue::String(s) => match s.as_ref() {
            "auto" => Some(WithdrawWhen::Auto),
            "never" => Some(WithdrawWhen::Never),
            "crippled" => Some(WithdrawWhen::Crippled),
            other => {
                diags.push(Diagnostic::error(
                    value.span(),
                    format!("unknown withdrawal trigger `{other}`"),
                    expected,
                ));
                None
            }
        },
        DeValue::Table(t) => {
            let mut found = None;
            let mut keys: Vec<_> = t.iter().collect();
            keys.sort_by_key(|(k, _)| k.span().start);
            for (k, v) in keys {
                if k.get_ref() != "losses" {
                    diags.push(
                        Diagnostic::error(
                            k.span(),
                            format!("unknown key `{}` in `withdraw_when`", k.get_ref()),
                            "`losses`: withdraw_when = { losses = PERCENT }",
                        )
                        .with_help(key_help(k.get_ref(), &["losses"], DOC)),
                    );
                    continue;
                }
                match integer(v).map(u32::try_from) {
                    Some(Ok(p @ 1..=100)) => found = Some(WithdrawWhen::Losses(p)),
                    Some(_) => diags.push(
                        Diagnostic::error(
                            v.span(),
                            "`losses` must be a percentage of the Formation's mass",
                            "a whole number from 1 to 100",
                        )
                        .with_help("the Formation withdraws once this share of its mass is out of the fight"),
                    ),
                    None => diags.push(wrong_type(v, "losses", "a whole number from 1 to 100".to_string())),
                }
            }
            if t.is_empty() {
                diags.push(Diagnostic::error(
                    value.span(),
                    "`withdraw_when` names no losses",
                    "withdraw_when = { losses = PERCENT }",
                ));
            }
            found
        }
        _ => {
            diags.push(wrong_type(value, "withdraw_when", expected.to_string()));
            None
        }
    }
}

fn damage_control(value: &S<DeValue<'_>>, diags: &mut Vec<Diagnostic>) -> Vec<DcKind> {
    let all = || words(DcKind::ALL.iter().map(|k| dc_word(*k)));
    let DeValue::Array(items) = value.get_ref() else {
        diags.push(wrong_type(
            value,
            "damage_control",
            "an array of kinds of system, e.g. [\"fire_control\", \"beam\"]".to_string(),
        ));
        return Vec::new();
    };
    let mut out: Vec<(DcKind, Range<usize>)> = Vec::new();
    for item in items.iter() {
        let Some(s) = item.get_ref().as_str() else {
            diags.push(wrong_type(item, "a damage-control kind", all()));
            continue;
        };
        let Some(kind) = DcKind::ALL.iter().copied().find(|k| dc_word(*k) == s) else {
            diags.push(
                Diagnostic::error(item.span(), format!("unknown kind of system `{s}`"), all())
                    .with_help("the drive cannot be named: it keeps its default place (readings O15a)"),
            );
            continue;
        };
        if out.iter().any(|(k, _)| *k == kind) {
            diags.push(Diagnostic::error(
                item.span(),
                format!("`{s}` is already in this damage-control priority"),
                "each kind once",
            ));
            continue;
        }
        out.push((kind, item.span()));
    }
    out.into_iter().map(|(k, _)| k).collect()
}

/// The Formation a `[doctrine.NAME]` table is for, or the error.
pub(crate) fn formation(battle: &Battle, name: &S<String>) -> Result<FormationId, Diagnostic> {
    battle
        .formations
        .iter()
        .position(|f| &f.name == name.get_ref())
        .ok_or_else(|| unknown_formation(battle, name, "a Formation of the scenario"))
}

fn unknown_formation(battle: &Battle, name: &S<String>, expected: &str) -> Diagnostic {
    let d = Diagnostic::error(name.span(), format!("unknown Formation `{}`", name.get_ref()), expected);
    let names: Vec<&str> = battle.formations.iter().map(|f| f.name.as_str()).collect();
    match crate::suggest::help(name.get_ref(), &names, "Formations") {
        Some(help) => d.with_help(help),
        None => d,
    }
}

/// The standing orders of Formation `f`, with the Formations its selectors
/// name; the problems found (errors leave `None`).
pub(crate) fn resolve(raw: &RawDoctrine, f: FormationId, battle: &Battle) -> (Option<Doctrine>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let fname = &battle.formations[f].name;
    let mut pick = |sel: &S<RawSelector>, key: &str| -> Option<Selector> {
        let span = sel.span();
        match sel.get_ref() {
            RawSelector::Word(s) => {
                let word = SELECTORS.iter().find(|(_, x)| x == s).map_or("", |(w, _)| *w);
                if battle.formations.iter().any(|x| x.name == word) {
                    diags.push(
                        Diagnostic::error(
                            span,
                            format!("`{word}` is a selector word and also the name of a Formation"),
                            "a name that is not a selector word",
                        )
                        .with_help(format!(
                            "rename the Formation: standing orders read `{word}` as the selector"
                        )),
                    );
                    return None;
                }
                Some(*s)
            }
            RawSelector::Name(n) => {
                let name = Spanned::new(span.clone(), n.clone());
                let expected = format!(
                    "{} or a Formation of the scenario",
                    words(SELECTORS.iter().map(|(w, _)| *w))
                );
                let Some(t) = battle.formations.iter().position(|x| &x.name == n) else {
                    diags.push(unknown_formation(battle, &name, &expected));
                    return None;
                };
                if t == f {
                    let what = if key == "target" { "maneuver against" } else { "fire on" };
                    diags.push(Diagnostic::error(
                        span,
                        format!("Formation `{fname}` cannot {what} itself"),
                        "another Formation",
                    ));
                    return None;
                }
                if key == "fire_at" && battle.formations[t].side == battle.formations[f].side {
                    diags.push(
                        Diagnostic::error(
                            span,
                            format!("`{n}` is a Formation of the same side as `{fname}`"),
                            "an enemy Formation",
                        )
                        .with_help("standing orders fire only at enemy Formations"),
                    );
                    return None;
                }
                Some(Selector::Formation(t))
            }
        }
    };
    let target = raw.target.as_ref().map(|s| pick(s, "target"));
    let fire_at = raw.fire_at.as_ref().map(|s| pick(s, "fire_at"));
    if diags.iter().any(Diagnostic::is_error) {
        return (None, diags);
    }
    let mut d = raw.doctrine.clone();
    d.target = target.flatten().unwrap_or_default();
    // `fire_at = "auto"` is the default fire target, as if left out.
    d.fire_at = fire_at.flatten().filter(|&s| s != Selector::Auto);
    (Some(d), diags)
}

fn selector_toml(battle: &Battle, s: Selector) -> String {
    match s {
        Selector::Formation(t) => battle
            .formations
            .get(t)
            .map_or_else(|| "\"nearest\"".to_string(), |f| quote(&f.name)),
        word => SELECTORS
            .iter()
            .find(|(_, x)| *x == word)
            .map_or_else(String::new, |(w, _)| format!("\"{w}\"")),
    }
}

/// Writes standing orders as `[doctrine.FORMATION]` tables, each after a
/// blank line, in Formation order; reading them back gives the same
/// doctrines. `doctrines` is indexed by Formation.
pub fn doctrine_toml(battle: &Battle, doctrines: &[Option<Doctrine>]) -> String {
    let mut out = TomlOut::new();
    for (f, d) in doctrines.iter().enumerate() {
        let Some(d) = d else { continue };
        let Some(formation) = battle.formations.get(f) else {
            continue;
        };
        out.blank();
        doctrine_table(&mut out, battle, &format!("doctrine.{}", key(&formation.name)), d);
    }
    out.finish()
}

/// One Formation's standing orders as the table `[name]` (`name` a dotted
/// key, its parts already quoted): every key written out, `fire_at` only
/// when it is set and `fighters` only away from its default.
pub(crate) fn doctrine_table(out: &mut TomlOut, battle: &Battle, name: &str, d: &Doctrine) {
    out.table(name);
    for (k, value) in entries(battle, d) {
        if k == "fire_at" && d.fire_at.is_none() || k == "fighters" && d.fighters == FighterUse::Strike {
            continue;
        }
        out.pair(k, value);
    }
}

/// The keys of standing orders whose value differs from the default
/// doctrine's, as `key = value` TOML joined by ", " (empty for the default
/// doctrine): how `fam tune` names a candidate.
pub fn doctrine_changes(battle: &Battle, d: &Doctrine) -> String {
    let default = entries(battle, &Doctrine::default());
    entries(battle, d)
        .into_iter()
        .zip(default)
        .filter(|(mine, theirs)| mine.1 != theirs.1)
        .map(|((key, value), _)| format!("{key} = {value}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every key of a `[doctrine]` table with its value as TOML, in the
/// documented order (`fire_at` as `"auto"` when it is not set).
fn entries(battle: &Battle, d: &Doctrine) -> Vec<(&'static str, String)> {
    let maneuver = match d.maneuver {
        Movement::Hold(n) => format!("{{ hold = {n} }}"),
        m => MOVEMENTS
            .iter()
            .find(|(_, x)| *x == m)
            .map_or_else(String::new, |(w, _)| format!("\"{w}\"")),
    };
    let evasion = match d.evasion {
        EvasionSplit::Auto => "\"auto\"".to_string(),
        EvasionSplit::Third => "\"third\"".to_string(),
        EvasionSplit::Max => "\"max\"".to_string(),
        EvasionSplit::Dice(n) => n.to_string(),
    };
    let fire_at = d
        .fire_at
        .map_or_else(|| "\"auto\"".to_string(), |s| selector_toml(battle, s));
    let ordnance = match d.use_ordnance {
        Ordnance::Auto => "\"auto\"",
        Ordnance::Always => "true",
        Ordnance::Never => "false",
    };
    let pd = PD_MODES.iter().find(|(_, x)| *x == d.pd).map_or("", |(w, _)| *w);
    let withdraw = match d.withdraw_when {
        WithdrawWhen::Auto => "\"auto\"".to_string(),
        WithdrawWhen::Never => "\"never\"".to_string(),
        WithdrawWhen::Crippled => "\"crippled\"".to_string(),
        WithdrawWhen::Losses(p) => format!("{{ losses = {p} }}"),
    };
    let kinds: Vec<String> = d
        .damage_control
        .iter()
        .map(|k| format!("\"{}\"", dc_word(*k)))
        .collect();
    let fighters = FIGHTER_USES
        .iter()
        .find(|(_, x)| *x == d.fighters)
        .map_or("", |(w, _)| *w);
    vec![
        ("target", selector_toml(battle, d.target)),
        ("maneuver", maneuver),
        ("evasion", evasion),
        ("fire_at", fire_at),
        ("use_ordnance", ordnance.to_string()),
        ("use_needles", d.use_needles.to_string()),
        ("pd", format!("\"{pd}\"")),
        ("withdraw_when", withdraw),
        ("damage_control", format!("[{}]", kinds.join(", "))),
        ("fighters", format!("\"{fighters}\"")),
    ]
}
