//! Ordnance's events: missiles and point defence, rockets, antimatter
//! missiles.

use crate::engine::plot::{SystemId, UnitId};

/// Missiles: launches, what reaches its target, point defence, what got through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MissileEvent {
    Launch(Launch),
    OnTarget(OnTarget),
    PdAssigned(PdAssigned),
    PdRoll(PdRoll),
    MissileHits(MissileHits),
}

/// Ordnance launched (salvo missiles, heavy missiles): the rack or load
/// is spent even when the attack turns out to be wasted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub target: UnitId,
    pub range: u32,
    pub max_range: u32,
    /// Why the launch is wasted, if it is.
    pub wasted: Option<&'static str>,
}

/// A salvo's missiles on target (d6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnTarget {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub face: u8,
}

/// A point-defence weapon assigned to a threat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdAssigned {
    pub unit: UnitId,
    pub weapon: SystemId,
    /// The Unit it defends.
    pub defends: UnitId,
    /// The threat: launching Unit and weapon.
    pub threat: (UnitId, SystemId),
    /// Allocated by fam's rule rather than plotted.
    pub automatic: bool,
}

/// A point-defence weapon's dice against one threat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdRoll {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub threat: (UnitId, SystemId),
    pub faces: Vec<u8>,
    pub reroll_faces: Vec<u8>,
    pub evasion_faces: Vec<u8>,
    pub kills: u32,
}

/// Missiles that got through and their damage (semi-armour-piercing,
/// one hit per salvo missile; a heavy missile is one 3d6 hit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissileHits {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub target: UnitId,
    pub on_target: u32,
    pub killed: u32,
    pub faces: Vec<u8>,
    pub hits: Vec<u32>,
}

/// Rockets, antimatter missiles and racks that explode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RocketEvent {
    RocketAttack(RocketAttack),
    RocketHits(RocketHits),
    AntimatterHits(AntimatterHits),
    RackExplodes(RackExplodes),
}

/// A rocket pod's one shot: a to-hit die per rocket needing `needed`
/// (`None`: beyond 18 MU, the pod spent all the same) with the DRM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RocketAttack {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub target: UnitId,
    pub range: u32,
    pub needed: Option<u8>,
    pub drm: i32,
    pub faces: Vec<u8>,
    pub hits: u32,
}

/// The rockets of a pod that hit, after point defence: each left rolls
/// a d6 read as a d3, less the `advanced` screen level, one
/// semi-armour-piercing hit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RocketHits {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub target: UnitId,
    pub hit: u32,
    pub killed: u32,
    pub advanced: u8,
    pub faces: Vec<u8>,
    pub damage: Vec<u32>,
}

/// An antimatter missile's detonation after point defence: a d6 for
/// each of its 3 dice not killed, each less the `screen` level; normal
/// damage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AntimatterHits {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub target: UnitId,
    pub killed: u32,
    pub screen: u8,
    pub faces: Vec<u8>,
    pub damage: u32,
}

/// An unfired antimatter missile lost to a threshold check explodes on
/// its rack: a d6 of hull damage to its own ship.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RackExplodes {
    pub unit: UnitId,
    pub system: SystemId,
    pub face: u8,
    pub hull: u32,
    pub destroyed: bool,
}
