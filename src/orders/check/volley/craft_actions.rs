//! One `fighters` entry: a group of the Formation with exactly one action
//! (`attack`, `dogfight`, `screen`, `intercept`), its first this Volley.

use std::collections::BTreeMap;
use std::ops::Range;

use super::lookup::Lookup;
use crate::diag::Diagnostic;
use crate::engine::plot::{CraftAction, CraftOrder, FormationId, UnitId};
use crate::engine::state::{CraftKind, Unit};
use crate::model::FighterBase;
use crate::orders::check::files::Files;
use crate::orders::raw::{RawCraftOrder, S};

/// One `fighters` entry: a group of this Formation with exactly one
/// action, its first this Volley.
pub(super) fn craft_order(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    f: FormationId,
    entry: &S<RawCraftOrder>,
    acted: &mut BTreeMap<UnitId, Range<usize>>,
) -> Option<CraftOrder> {
    let e = entry.get_ref();
    let fname = &lk.defs[f].name;
    let g = lk.group(files, file, &e.group)?;
    let unit = lk.unit(g);
    if unit.formation != f {
        files.push(
            file,
            Diagnostic::error(
                e.group.span(),
                format!(
                    "`{}` is in Formation `{}`, not in `{fname}`",
                    unit.name, lk.defs[unit.formation].name
                ),
                format!("a group of `{fname}`"),
            ),
        );
        return None;
    }
    let given = [
        e.attack.as_ref().map(|x| x.span()),
        e.dogfight.as_ref().map(|x| x.span()),
        e.screen.as_ref().map(|x| x.span()),
        e.intercept.as_ref().map(|x| x.span()),
    ];
    let n = given.iter().flatten().count();
    if n != 1 {
        let span = given.iter().flatten().nth(1).cloned().unwrap_or_else(|| entry.span());
        files.push(
            file,
            Diagnostic::error(
                span,
                format!("{n} actions for `{}` in one entry", unit.name),
                "exactly one of attack = \"SHIP\", dogfight = \"GROUP\", screen = \"SHIP\", intercept = true",
            ),
        );
        return None;
    }
    if let Some(first) = acted.get(&g) {
        let at = files.at(file, file, first);
        files.push(
            file,
            Diagnostic::error(
                e.group.span(),
                format!("`{}` already has an action in this Volley ({at})", unit.name),
                "one action per group and Volley",
            ),
        );
        return None;
    }
    acted.insert(g, e.group.span());
    let action = if let Some(t) = &e.attack {
        attack_action(lk, files, file, unit, t)?
    } else if let Some(t) = &e.dogfight {
        dogfight_action(lk, files, file, unit, &e.group, t)?
    } else if let Some(t) = &e.screen {
        screen_action(lk, files, file, f, unit, &e.group, t)?
    } else {
        let i = e.intercept.as_ref().expect("one action given");
        intercept_action(files, file, unit, i)?
    };
    Some(CraftOrder { group: g, action })
}

/// `attack = "SHIP"`: an enemy ship, or gunboat squadron for fighters.
fn attack_action(lk: &Lookup<'_>, files: &mut Files, file: usize, unit: &Unit, t: &S<String>) -> Option<CraftAction> {
    let tu = lk.any_unit(files, file, t)?;
    let target = lk.unit(tu);
    let gunboat = is_gunboat(unit);
    if target.side == unit.side {
        return fail(
            files,
            file,
            t.span(),
            format!("`{}` is a friend", target.name),
            "an enemy ship",
        );
    }
    if gunboat && target.is_craft() {
        return fail(
            files,
            file,
            t.span(),
            format!(
                "`{}` is a gunboat squadron: gunboats attack ships, not `{}`",
                unit.name, target.name
            ),
            "an enemy ship",
        );
    }
    if target.craft.is_some_and(|x| matches!(x.kind, CraftKind::Fighter(_))) {
        return fail(
            files,
            file,
            t.span(),
            format!("`{}` is a fighter group: fight it with dogfight = \"…\"", target.name),
            "an enemy ship (or gunboat squadron)",
        );
    }
    Some(CraftAction::Attack(tu))
}

/// `dogfight = "GROUP"`: fighters against an enemy group.
fn dogfight_action(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    unit: &Unit,
    group: &S<String>,
    t: &S<String>,
) -> Option<CraftAction> {
    let tu = lk.any_unit(files, file, t)?;
    let target = lk.unit(tu);
    if is_gunboat(unit) {
        return gunboat_attacks_only(files, file, unit, group);
    }
    if !target.is_craft() {
        return fail(
            files,
            file,
            t.span(),
            format!("`{}` is a ship: make an attack run with attack = \"…\"", target.name),
            "an enemy fighter group",
        );
    }
    if target.side == unit.side {
        return fail(
            files,
            file,
            t.span(),
            format!("`{}` is a friendly group", target.name),
            "an enemy group",
        );
    }
    Some(CraftAction::Dogfight(tu))
}

/// `screen = "SHIP"`: fighters screening a ship of their own Formation.
fn screen_action(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    f: FormationId,
    unit: &Unit,
    group: &S<String>,
    t: &S<String>,
) -> Option<CraftAction> {
    let fname = &lk.defs[f].name;
    let tu = lk.any_unit(files, file, t)?;
    let target = lk.unit(tu);
    if is_gunboat(unit) {
        return gunboat_attacks_only(files, file, unit, group);
    }
    if target.is_craft() {
        return fail(
            files,
            file,
            t.span(),
            format!("`{}` is a group: groups screen ships", target.name),
            "a ship of this Formation",
        );
    }
    if target.formation != f {
        return fail(
            files,
            file,
            t.span(),
            format!(
                "`{}` is in Formation `{}`, not in `{fname}`",
                target.name, lk.defs[target.formation].name
            ),
            "a ship of this Formation",
        );
    }
    Some(CraftAction::Screen(tu))
}

fn is_gunboat(unit: &Unit) -> bool {
    unit.craft.is_some_and(|c| matches!(c.kind, CraftKind::Gunboat(_)))
}

/// Reports an error in a `fighters` entry; the entry gives no order.
fn fail<T>(files: &mut Files, file: usize, span: Range<usize>, msg: String, expected: &str) -> Option<T> {
    files.push(file, Diagnostic::error(span, msg, expected.to_string()));
    None
}

/// A gunboat squadron given a dogfight or screen.
fn gunboat_attacks_only<T>(files: &mut Files, file: usize, unit: &Unit, group: &S<String>) -> Option<T> {
    fail(
        files,
        file,
        group.span(),
        format!("`{}` is a gunboat squadron: gunboats attack ships only", unit.name),
        "attack = \"SHIP\"",
    )
}

/// `intercept = true`: fighters able to intercept missiles.
fn intercept_action(files: &mut Files, file: usize, unit: &Unit, i: &S<bool>) -> Option<CraftAction> {
    if !*i.get_ref() {
        return fail(
            files,
            file,
            i.span(),
            "intercept = false is no order".to_string(),
            "intercept = true, or leave the group out (it idles)",
        );
    }
    let refused = match unit.craft.expect("a group").kind {
        CraftKind::Gunboat(_) => Some("a gunboat squadron"),
        CraftKind::Fighter(t) if t.base == FighterBase::Attack => Some("an attack group"),
        CraftKind::Fighter(t) if t.base == FighterBase::Torpedo => Some("a torpedo group"),
        CraftKind::Fighter(_) => None,
    };
    if let Some(what) = refused {
        return fail(
            files,
            file,
            i.span(),
            format!("`{}` is {what} and cannot intercept missiles", unit.name),
            "standard, interceptor or heavy fighters",
        );
    }
    Some(CraftAction::Intercept)
}
