//! `[[mix.SIDE]]`: a side whose standing orders are drawn afresh for every
//! battle from weighted options (what `fam solve` writes for a mixed
//! equilibrium). The format is in `docs/orders.md` ("Mixed standing
//! orders").
//!
//! Each option has a `weight` and `[mix.SIDE.doctrine.FORMATION]` tables for
//! the side's Formations (a Formation it does not name keeps the
//! scenario's own standing orders, or the default doctrine). The option a
//! battle plays is drawn from its battle seed and the side's index
//! ([`draw`]), so `fam resolve --seed S` makes the same draw as the run of
//! `fam batch` with seed `S`.

use toml::Spanned;
use toml::de::DeValue;

use super::keys::{S, key_help};
use super::toml_out::{TomlOut, key};
use crate::diag::Diagnostic;
use crate::engine::doctrine::Doctrine;
use crate::engine::plot::FormationId;
use crate::engine::state::Battle;

/// Where the format is described, for help lines.
const DOC: &str = "mixed standing orders are described in docs/orders.md (\"Mixed standing orders\")";

/// Options a side's mix has at most.
pub const MAX_MIX_OPTIONS: usize = 12;

/// The options of all the sides' mixes multiplied together at most (the
/// batch prepares the first plot of each combination once).
pub const MAX_MIX_COMBINATIONS: usize = 256;

/// How far the weights of a mix may sum from 1 (they are then scaled to 1).
pub const WEIGHT_TOLERANCE: f64 = 0.01;

/// A side's mix, checked: weights positive and summing to 1.
#[derive(Debug, Clone, PartialEq)]
pub struct Mix {
    pub side: usize,
    pub weights: Vec<f64>,
    /// For each option, the standing orders it gives to Formations of the
    /// side.
    pub options: Vec<Vec<(FormationId, Doctrine)>>,
}

/// Salt of the mix draw: keeps it apart from the Exchange seeds, which
/// are SplitMix64 outputs of the same battle seed.
const DRAW_SALT: u64 = 0x6d69_785f_6472_6177;

/// The option of `mix` a battle with seed `seed` plays: a uniform number
/// in `[0, 1)` from SplitMix64 of the salted seed and the side's index,
/// against the cumulative weights.
pub fn draw(mix: &Mix, seed: u64) -> usize {
    let z = crate::engine::dice::splitmix64(seed ^ DRAW_SALT, mix.side as u64 + 1);
    let u = (z >> 11) as f64 / (1u64 << 53) as f64;
    let mut acc = 0.0;
    for (i, w) in mix.weights.iter().enumerate() {
        acc += w;
        if u < acc {
            return i;
        }
    }
    mix.weights.len().saturating_sub(1)
}

/// The combinations of the mixes' options: their counts multiplied.
pub fn combinations(mixes: &[Mix]) -> usize {
    mixes.iter().map(|m| m.options.len().max(1)).product()
}

/// The combination (mixed radix, the first mix lowest) a battle with seed
/// `seed` plays.
pub fn combination(mixes: &[Mix], seed: u64) -> usize {
    let mut index = 0;
    let mut stride = 1;
    for m in mixes {
        index += draw(m, seed) * stride;
        stride *= m.options.len().max(1);
    }
    index
}

/// `base` (the scenario's standing orders, by Formation) with the options of
/// combination `index` applied.
pub fn doctrines(base: &[Option<Doctrine>], mixes: &[Mix], index: usize) -> Vec<Option<Doctrine>> {
    let mut out = base.to_vec();
    let mut rest = index;
    for m in mixes {
        let n = m.options.len().max(1);
        if let Some(option) = m.options.get(rest % n) {
            for (f, d) in option {
                if let Some(slot) = out.get_mut(*f) {
                    *slot = Some(d.clone());
                }
            }
        }
        rest /= n;
    }
    out
}

/// One option as written.
#[derive(Debug, Clone)]
pub(crate) struct RawOption {
    /// The option's table (for errors about it as a whole).
    pub span: std::ops::Range<usize>,
    pub weight: Option<S<f64>>,
    pub doctrine: Vec<super::doctrine::RawDoctrine>,
}

/// A side's mix as written.
#[derive(Debug, Clone)]
pub(crate) struct RawMix {
    pub side: S<String>,
    pub options: Vec<RawOption>,
}

/// Reads the value of the top-level `mix` key: a table of `SIDE = [ … ]`
/// arrays of option tables. Problems go to `diags`.
pub(crate) fn parse(value: &S<DeValue<'_>>, diags: &mut Vec<Diagnostic>) -> Vec<RawMix> {
    let DeValue::Table(table) = value.get_ref() else {
        diags.push(
            Diagnostic::error(
                value.span(),
                format!("`mix` must be a table, not {}", value.get_ref().type_str()),
                "[[mix.SIDE]] tables",
            )
            .with_help(DOC),
        );
        return Vec::new();
    };
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    let mut out = Vec::new();
    for (key, v) in entries {
        let side = Spanned::new(key.span(), key.get_ref().to_string());
        let DeValue::Array(items) = v.get_ref() else {
            diags.push(
                Diagnostic::error(
                    v.span(),
                    format!("the mix of `{}` must be an array of tables", side.get_ref()),
                    "[[mix.SIDE]] tables, each with a weight",
                )
                .with_help(DOC),
            );
            continue;
        };
        let options = items.iter().filter_map(|item| option(item, diags)).collect();
        out.push(RawMix { side, options });
    }
    out
}

/// One `[[mix.SIDE]]` table.
fn option(item: &S<DeValue<'_>>, diags: &mut Vec<Diagnostic>) -> Option<RawOption> {
    let DeValue::Table(t) = item.get_ref() else {
        diags.push(
            Diagnostic::error(
                item.span(),
                format!("an option of a mix must be a table, not {}", item.get_ref().type_str()),
                "[[mix.SIDE]] with weight = …",
            )
            .with_help(DOC),
        );
        return None;
    };
    let mut raw = RawOption {
        span: item.span(),
        weight: None,
        doctrine: Vec::new(),
    };
    for (k, val) in t.iter() {
        match k.get_ref().as_ref() {
            "weight" => raw.weight = weight(val, diags),
            "doctrine" => raw.doctrine = super::doctrine::parse(val, diags),
            other => diags.push(
                Diagnostic::error(
                    k.span(),
                    format!("unknown key `{other}` in an option of a mix"),
                    "`weight` or `doctrine`",
                )
                .with_help(key_help(other, &["weight", "doctrine"], DOC)),
            ),
        }
    }
    Some(raw)
}

/// A weight: a positive number.
fn weight(val: &S<DeValue<'_>>, diags: &mut Vec<Diagnostic>) -> Option<S<f64>> {
    use serde::Deserialize as _;
    use serde::de::IntoDeserializer as _;
    let x = match val.get_ref() {
        DeValue::Float(_) | DeValue::Integer(_) => f64::deserialize(val.clone().into_deserializer()).ok(),
        _ => None,
    };
    match x {
        Some(x) if x.is_finite() && x > 0.0 => Some(Spanned::new(val.span(), x)),
        _ => {
            diags.push(
                Diagnostic::error(val.span(), "a weight must be a positive number", "weight = 0.5").with_help(DOC),
            );
            None
        }
    }
}

/// Checks the mixes against the battle: a side of the battle, mixed once,
/// 1 to [`MAX_MIX_OPTIONS`] options each with a weight, weights summing to
/// 1 (within [`WEIGHT_TOLERANCE`], then scaled), tables for the side's own
/// Formations, at most once an option, and at most
/// [`MAX_MIX_COMBINATIONS`] combinations. Problems go to `diags`.
pub(crate) fn resolve(raw: Vec<RawMix>, battle: &Battle, diags: &mut Vec<Diagnostic>) -> Vec<Mix> {
    let mut out: Vec<Mix> = Vec::new();
    for m in raw {
        let Some(side) = battle.sides.iter().position(|s| &s.name == m.side.get_ref()) else {
            let names: Vec<&str> = battle.sides.iter().map(|s| s.name.as_str()).collect();
            let d = Diagnostic::error(
                m.side.span(),
                format!("unknown side `{}`", m.side.get_ref()),
                "a side of [sides]",
            );
            diags.push(match crate::suggest::help(m.side.get_ref(), &names, "the sides") {
                Some(help) => d.with_help(help),
                None => d,
            });
            continue;
        };
        if out.iter().any(|x| x.side == side) {
            diags.push(Diagnostic::error(
                m.side.span(),
                format!("`{}` has a mix already", m.side.get_ref()),
                "one mix a side",
            ));
            continue;
        }
        if let Some(mix) = resolve_one(m, side, battle, diags) {
            out.push(mix);
        }
    }
    if combinations(&out) > MAX_MIX_COMBINATIONS {
        diags.push(
            Diagnostic::file_error(format!(
                "the mixes have {} combinations of options, at most {MAX_MIX_COMBINATIONS}",
                combinations(&out)
            ))
            .with_help(DOC),
        );
    }
    out
}

fn resolve_one(m: RawMix, side: usize, battle: &Battle, diags: &mut Vec<Diagnostic>) -> Option<Mix> {
    let errors = diags.len();
    if m.options.is_empty() || m.options.len() > MAX_MIX_OPTIONS {
        diags.push(Diagnostic::error(
            m.side.span(),
            format!("the mix of `{}` has {} options", m.side.get_ref(), m.options.len()),
            format!("1 to {MAX_MIX_OPTIONS} [[mix.SIDE]] tables"),
        ));
    }
    let mut weights = Vec::new();
    let mut options = Vec::new();
    for o in m.options {
        match &o.weight {
            Some(w) => weights.push(*w.get_ref()),
            None => diags
                .push(Diagnostic::error(o.span.clone(), "this option has no weight", "weight = 0.5").with_help(DOC)),
        }
        options.push(option_doctrines(o, side, battle, diags));
    }
    let sum: f64 = weights.iter().sum();
    if weights.len() == options.len() && !options.is_empty() && (sum - 1.0).abs() > WEIGHT_TOLERANCE {
        diags.push(
            Diagnostic::error(
                m.side.span(),
                format!("the weights of the mix of `{}` sum to {sum}", m.side.get_ref()),
                "weights summing to 1",
            )
            .with_help(DOC),
        );
    }
    if diags[errors..].iter().any(Diagnostic::is_error) {
        return None;
    }
    Some(Mix {
        side,
        weights: weights.iter().map(|w| w / sum).collect(),
        options,
    })
}

/// An option's tables, each for a Formation of `side`, at most once.
fn option_doctrines(
    o: RawOption,
    side: usize,
    battle: &Battle,
    diags: &mut Vec<Diagnostic>,
) -> Vec<(FormationId, Doctrine)> {
    let mut out: Vec<(FormationId, Doctrine)> = Vec::new();
    for raw in o.doctrine {
        let f = match super::doctrine::formation(battle, &raw.formation) {
            Ok(f) => f,
            Err(d) => {
                diags.push(d);
                continue;
            }
        };
        if battle.formations[f].side != side {
            diags.push(Diagnostic::error(
                raw.formation.span(),
                format!(
                    "Formation `{}` belongs to `{}`, not to the side of this mix",
                    battle.formations[f].name, battle.sides[battle.formations[f].side].name
                ),
                "a Formation of the mixing side",
            ));
            continue;
        }
        if out.iter().any(|(g, _)| *g == f) {
            diags.push(Diagnostic::error(
                raw.formation.span(),
                format!(
                    "Formation `{}` has two tables in this option",
                    battle.formations[f].name
                ),
                "one table a Formation",
            ));
            continue;
        }
        let (d, more) = super::doctrine::resolve(&raw, f, battle);
        diags.extend(more);
        if let Some(d) = d {
            out.push((f, d));
        }
    }
    out
}

/// The mixes as `[[mix.SIDE]]` tables (the form [`parse`] reads): each
/// option after a blank line, its weight, then its standing orders as
/// `[mix.SIDE.doctrine.FORMATION]` tables in Formation order.
pub fn mix_toml(battle: &Battle, mixes: &[Mix]) -> String {
    let mut out = TomlOut::new();
    for m in mixes {
        let side = key(&battle.sides[m.side].name);
        for (w, option) in m.weights.iter().zip(&m.options) {
            out.blank();
            out.array_table(&format!("mix.{side}"));
            out.pair("weight", w);
            let mut doctrines = vec![None; battle.formations.len()];
            for (f, d) in option {
                doctrines[*f] = Some(d);
            }
            for (f, d) in doctrines.iter().enumerate() {
                if let Some(d) = d {
                    let name = format!("mix.{side}.doctrine.{}", key(&battle.formations[f].name));
                    super::doctrine::doctrine_table(&mut out, battle, &name, d);
                }
            }
        }
    }
    out.finish()
}
