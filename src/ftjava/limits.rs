//! The largest numbers and counts the FTJava import reads, and the export
//! writes (docs/import.md, "Limits"). Each is far above any published ship
//! or game; a value beyond one is an error at its position, never an
//! allocation or a silent narrowing.
//!
//! They keep every record the import writes inside what the GZF reader
//! accepts (whole numbers up to 4 294 967 295 for mass, cost, thrust and
//! capacity; 6 to 9 endurance boxes for an FB1 fighter group) and inside
//! fam's own arithmetic on them: the design rules multiply a mass by its
//! hull percentage and by the thrust (`gzf::design`), which stays below
//! 2³² for every mass and thrust here.

use std::ops::RangeInclusive;

/// `Mass` and the `Hull`'s `value` (the largest published ship is 280).
pub const MASS: u32 = 100_000;
/// Hull boxes: `totalHullBoxes`, `remainingHullBoxes` and `rows`.
pub const HULL_BOXES: u32 = 100_000;
/// Armour boxes: `totalArmor`, `remainingArmor`.
pub const ARMOUR_BOXES: u32 = 100_000;
/// A main drive's `initialThrust` and `currentThrust`; also `FM.Speed` and
/// `FM.Evasion`, which add up to the thrust.
pub const THRUST: u32 = 1_000;
/// A salvo magazine's `capacity`: one `Rounds:` box per load.
pub const MAGAZINE_CAPACITY: u32 = 1_000;
/// A cargo hold's `totalSize`.
pub const HOLD_SIZE: u32 = 100_000;
/// `PointValue`.
pub const POINT_VALUE: u32 = 1_000_000;
/// The `rating` (class) of a beam battery or an inert rated weapon.
pub const RATING: u32 = 100;
/// A fighter group's `Endurance`: the GZF reader takes 6 to 9 endurance
/// boxes in FB1 (fewer than six are padded with crossed boxes).
pub const ENDURANCE: RangeInclusive<u32> = 0..=9;
/// A fighter group's `Count` (craft).
pub const CRAFT: RangeInclusive<u32> = 1..=6;
/// A game's `turn`.
pub const TURN: u32 = 10_000;
/// Positions (either sign) and speeds, in MU: every range between two
/// ships then fits a scenario's `mu`.
pub const DISTANCE: f64 = 1_000_000.0;
/// A course: a clock direction.
pub const COURSE: RangeInclusive<f64> = 0.0..=12.0;
/// `Ship` elements in one document; also `Player` and `FighterGroup`
/// elements (a game's ranges grow with the square of its ships).
pub const SHIPS: usize = 1_000;
/// System elements in one ship (`MainDrive`, FTL drives and the elements
/// of `Electronics`, `Defenses`, `Holds` and `Weapons`); also the ids in
/// one `weaponIDs` and the `FM.Fire` orders of one Volley.
pub const SYSTEMS: usize = 1_000;
/// Attributes on one element (FTJava writes at most eight). Checked by a
/// scan of the text before the XML parser sees it, since the parser
/// compares each attribute with every earlier one of its element: time
/// that grows with the square of an element's attributes.
pub const ATTRIBUTES: usize = 64;
/// Diagnostics one import lists: past them, one line counts the rest
/// (a file of nothing but mistakes would otherwise answer with millions).
pub const DIAGNOSTICS: usize = 100;

// What the import writes must read back: a ship's hull and armour boxes
// fit in one GZF track of boxes.
const _: () = assert!(HULL_BOXES as usize <= crate::gzf::MAX_TRACK_BOXES);
const _: () = assert!(ARMOUR_BOXES as usize <= crate::gzf::MAX_TRACK_BOXES);

/// The largest whole number an `f64` holds exactly (2⁵³).
const EXACT: f64 = 9_007_199_254_740_992.0;

/// A float as a whole number, when it is one and is held exactly.
pub fn exact_whole(f: f64) -> Option<i64> {
    if f.is_finite() && f.fract() == 0.0 && f.abs() <= EXACT {
        // In range and whole: the conversion is exact.
        Some(f as i64)
    } else {
        None
    }
}

/// A count or size as an index bound (`u32` always fits on the platforms
/// fam builds for; the limits above keep it small in any case).
pub fn widen(n: u32) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}
