//! `[reserves]`: whether the Reserve is used and needs FTL, which
//! Formations are in it and which enter combat this Exchange.

use super::files::{Files, name_help};
use crate::diag::Diagnostic;
use crate::engine::state::{Battle, Reserve};
use crate::orders::raw::{self, S};

/// The `[reserves]` table: whether the Reserve is used, whether it needs
/// FTL, which Formations are in it, which enter combat this Exchange.
pub(super) fn reserves(files: &mut Files, battle: &mut Battle, raw: Option<&raw::RawReserves>) {
    const SC: usize = 0; // the scenario file
    let Some(raw) = raw else { return };
    battle.rules.reserves = raw.enabled.as_ref().is_none_or(|e| *e.get_ref());
    battle.rules.reserves_need_ftl = raw.need_ftl.as_ref().is_some_and(|e| *e.get_ref());
    let find = |files: &mut Files, battle: &Battle, name: &S<String>| -> Option<usize> {
        let f = battle.formations.iter().position(|f| &f.name == name.get_ref());
        if f.is_none() {
            let d = Diagnostic::error(
                name.span(),
                format!("unknown Formation `{}`", name.get_ref()),
                "a Formation defined under [formations]",
            );
            let formations = battle.formations.iter().map(|f| f.name.as_str());
            files.push(SC, name_help(d, name.get_ref(), formations, "Formations"));
        }
        f
    };
    for name in raw.in_reserve.iter().flatten() {
        if let Some(f) = find(files, battle, name) {
            battle.formations[f].reserve = Reserve::InReserve;
        }
    }
    for name in raw.enter.iter().flatten() {
        let Some(f) = find(files, battle, name) else { continue };
        if battle.formations[f].reserve != Reserve::InReserve {
            files.push(
                SC,
                Diagnostic::error(
                    name.span(),
                    format!("Formation `{}` is not in the Reserve", name.get_ref()),
                    "a Formation listed in `in_reserve`",
                ),
            );
            continue;
        }
        battle.formations[f].reserve = Reserve::Entering;
    }
    if !battle.rules.reserves && (raw.in_reserve.is_some() || raw.enter.is_some()) {
        let span = raw.enabled.as_ref().map_or(0..0, |e| e.span());
        files.push(
            SC,
            Diagnostic::error(
                span,
                "Formations are listed in the Reserve, but reserves are off",
                "`enabled = true` (or leave it out)",
            ),
        );
    }
}
