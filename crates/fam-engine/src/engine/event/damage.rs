//! The Damage step's events and what follows it: thresholds, repairs,
//! power cores, the Reserve, losses.

use crate::engine::plot::{FormationId, SystemId, UnitId};

/// The Damage step: armour and hull, layers, thresholds and what they take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DamageEvent {
    Damage(Damage),
    ArmourLayers(ArmourLayers),
    ThresholdCheck(ThresholdCheck),
    ThresholdRoll(ThresholdRoll),
    DriveHit(DriveHit),
    BridgeLost(BridgeLost),
    LifeSupportLost(LifeSupportLost),
    CoreBreached(CoreBreached),
}

/// Damage applied to one Unit in the Damage phase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damage {
    pub unit: UnitId,
    pub normal: u32,
    /// Semi-armour-piercing hits, each split on its own.
    pub sap: Vec<u32>,
    /// Armour-piercing hits (K-guns, MKP), each split on its own.
    pub ap: Vec<u32>,
    pub penetrating: u32,
    pub armour: u32,
    pub hull: u32,
    pub rows_completed: u32,
    pub crew_lost: u32,
    pub destroyed: bool,
}

/// Armour boxes each layer of a layered Unit took in the [`Damage`]
/// just before, outermost layer first (their sum is its `armour`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArmourLayers {
    pub unit: UnitId,
    pub taken: Vec<u32>,
}

/// A threshold check began for a Unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThresholdCheck {
    pub unit: UnitId,
    pub row: u32,
    pub extra_rows: u32,
    pub needed: u8,
}

/// One system's threshold roll (system `None` = the main drive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThresholdRoll {
    pub unit: UnitId,
    pub system: Option<SystemId>,
    pub face: u8,
    pub modifier: i32,
    pub lost: bool,
}

/// Thrust after a drive loss.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriveHit {
    pub unit: UnitId,
    pub thrust: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BridgeLost {
    pub unit: UnitId,
    pub face: u8,
    /// Volleys out of control, `None` = permanently.
    pub volleys: Option<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LifeSupportLost {
    pub unit: UnitId,
    pub face: u8,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreBreached {
    pub unit: UnitId,
}

/// After the damage: repairs, power cores, control, surrender, the Reserve, losses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AftermathEvent {
    Repair(Repair),
    ReactorRoll(ReactorRoll),
    Blast(Blast),
    ControlRegained(ControlRegained),
    Surrendered(Surrendered),
    ToReserve(ToReserve),
    Arrived(Arrived),
    Abandoned(Abandoned),
    Destroyed(Destroyed),
}

/// A damage-control job (system `None` = the main drive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repair {
    pub unit: UnitId,
    pub system: Option<SystemId>,
    pub parties: u32,
    pub face: u8,
    pub repaired: bool,
}

/// The end-of-Volley power-core roll.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReactorRoll {
    pub unit: UnitId,
    pub face: u8,
    pub exploded: bool,
}

/// Reactor blast damage rolled against another Unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blast {
    pub source: UnitId,
    pub unit: UnitId,
    pub faces: Vec<u8>,
    pub damage: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControlRegained {
    pub unit: UnitId,
}

/// The ship struck its colours at a threshold check (optional rule).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Surrendered {
    pub unit: UnitId,
    pub face: u8,
}

/// At the end of the Exchange the Formation withdrew to the Reserve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToReserve {
    pub formation: FormationId,
}

/// A Formation entering from the Reserve arrived at 60 MU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arrived {
    pub formation: FormationId,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Abandoned {
    pub unit: UnitId,
}

/// A Unit left the fight (destroyed) at the end of this Volley.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Destroyed {
    pub unit: UnitId,
    pub cause: &'static str,
}
