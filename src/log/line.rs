//! What the kinds of line share: writing one, and the values several of
//! them hold (a maneuver, a launcher, a point-defence threat).

use serde::Serialize;

use crate::engine::plot::{Maneuver, SystemId, UnitId};
use crate::engine::volley::{CRAFT_THREAT, GUNBOAT_PDS, GUNBOAT_SALVO};

/// `line` as compact JSON and a newline. The lines hold only numbers,
/// strings, lists, options and structs of them, which `serde_json` always
/// writes.
pub(super) fn to_line<T: Serialize>(line: &T) -> String {
    let mut text = serde_json::to_string(line).expect("a log line holds only plain data");
    text.push('\n');
    text
}

pub(super) fn maneuver_key(m: Maneuver) -> &'static str {
    match m {
        Maneuver::Close => "close",
        Maneuver::Maintain => "maintain",
        Maneuver::Withdraw => "withdraw",
    }
}

/// A weapon as a line names it: its system index, or a name where the
/// engine's index stands for something that is no system.
#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum WeaponKey {
    System(SystemId),
    Named(&'static str),
}

/// A salvo's launcher or a PD weapon: its system index, or `"gunboat
/// salvo"` for a missile gunboat's salvo (readings F45), `"gunboat PDS"`
/// for a PDS gunboat squadron's dice (F46).
pub(super) fn launcher(w: SystemId) -> WeaponKey {
    match w {
        GUNBOAT_SALVO => WeaponKey::Named("gunboat salvo"),
        GUNBOAT_PDS => WeaponKey::Named("gunboat PDS"),
        w => WeaponKey::System(w),
    }
}

/// A PD threat: a missile launcher's Unit and weapon, or a group (no
/// weapon: `null`).
#[derive(Serialize)]
pub(super) struct ThreatEntry {
    unit: UnitId,
    weapon: Option<WeaponKey>,
}

pub(super) fn threat_entry(&(unit, weapon): &(UnitId, SystemId)) -> ThreatEntry {
    ThreatEntry {
        unit,
        weapon: match weapon {
            CRAFT_THREAT => None,
            GUNBOAT_SALVO => Some(WeaponKey::Named("gunboat salvo")),
            w => Some(WeaponKey::System(w)),
        },
    }
}
