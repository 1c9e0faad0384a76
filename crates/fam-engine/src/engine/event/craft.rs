//! Small craft's events: launches, recoveries, moves, engagements and
//! their dice.

use crate::engine::plot::{FormationId, Maneuver, SystemId, UnitId};

/// Fighter groups and gunboat squadrons: launches, recoveries, moves and engagements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CraftEvent {
    CraftLaunched(CraftLaunched),
    CraftRecovered(CraftRecovered),
    CraftReady(CraftReady),
    CraftIdle(CraftIdle),
    SecondaryMove(SecondaryMove),
    CraftEngaged(CraftEngaged),
}

/// A docked group took off from its carrier (Launch phase).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CraftLaunched {
    pub group: UnitId,
    pub carrier: UnitId,
}

/// A group landed on its carrier; `face` is the re-arming die and
/// `ready_in` the Volleys until it may launch again (`None`: never).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CraftRecovered {
    pub group: UnitId,
    pub carrier: UnitId,
    pub face: u8,
    pub ready_in: Option<u32>,
}

/// A docked group finished re-arming: endurance and torpedoes restored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CraftReady {
    pub group: UnitId,
}

/// A small-craft order that did not happen, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CraftIdle {
    pub group: UnitId,
    pub reason: &'static str,
}

/// A small-craft Formation's secondary maneuver (fixed distance).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecondaryMove {
    pub formation: FormationId,
    pub target: FormationId,
    pub maneuver: Maneuver,
    pub start: u32,
    pub end: u32,
}

/// What a group does this Volley, decided before any die; `cef_left`
/// is its endurance after paying for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CraftEngaged {
    pub group: UnitId,
    pub target: Option<UnitId>,
    pub action: &'static str,
    pub cef_left: u32,
}

/// Small craft's dice: attack runs, dogfights, ships' shots at groups, and losses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CraftDiceEvent {
    CraftRoll(CraftRoll),
    GroupShot(GroupShot),
    CraftLost(CraftLost),
}

/// One small-craft roll: a dogfight, an attack run, a torpedo run, a
/// gunboat attack or an interception. `kills` are craft or missiles
/// killed; `normal`/`penetrating`/`sap` the damage to a ship.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CraftRoll {
    pub group: UnitId,
    pub target: Option<UnitId>,
    pub action: &'static str,
    pub dice: u32,
    pub drm: i32,
    pub faces: Vec<u8>,
    pub reroll_faces: Vec<u8>,
    pub evasion_faces: Vec<u8>,
    pub kills: u32,
    pub normal: u32,
    pub penetrating: u32,
    pub sap: Vec<u32>,
    /// K-gun gunboats: each hit's doubling die and its armour-piercing
    /// damage; rocket gunboats: each rocket hit's damage d6 and its
    /// 1d3 points (empty for every other action).
    pub k_gun: Vec<(u8, u32)>,
}

/// A ship weapon fired at a group or squadron named by its Fire Control.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupShot {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub group: UnitId,
    pub drm: i32,
    pub faces: Vec<u8>,
    pub kills: u32,
}

/// Craft lost by a group (`left` flying afterwards).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CraftLost {
    pub group: UnitId,
    pub lost: u32,
    pub left: u32,
    pub cause: &'static str,
}
