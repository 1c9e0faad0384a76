//! The Maneuver step's and the Fire Controls' events.

use crate::engine::plot::{FormationId, Maneuver, SystemId, UnitId};

/// The Maneuver step: the Volley, pools, plot cuts, ranges, ships firing a nova cannon.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ManeuverEvent {
    VolleyStarted(VolleyStarted),
    PlotCut(PlotCut),
    Pools(Pools),
    RangeChanged(RangeChanged),
    NovaArmed(NovaArmed),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VolleyStarted {
    pub volley: u8,
}

/// A Formation's plot was cut because its thrust fell (fm-readings 8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlotCut {
    pub formation: FormationId,
    pub thrust: u32,
    pub speed: u32,
    pub evasion: u32,
}

/// Speed and Evasion pools rolled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pools {
    pub formation: FormationId,
    pub thrust: u32,
    pub speed_dice: Vec<u8>,
    pub speed_points: u32,
    pub evasion_dice: Vec<u8>,
    pub evasion_points: u32,
}

/// The range of one pair after the three maneuver steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeChanged {
    pub a: FormationId,
    pub b: FormationId,
    pub start: u32,
    /// Speed points of each side as applied to this pair, with its maneuver.
    pub a_move: Option<(Maneuver, u32)>,
    pub b_move: Option<(Maneuver, u32)>,
    pub after_close: u32,
    pub after_withdraw: u32,
    pub end: u32,
}

/// A ship fires its nova cannon this Volley (ft-rules §4.5; reading
/// W63): from the Maneuver step on it has no thrust (its Formation
/// rolls no Speed or Evasion dice), its screens and vapour shroud are
/// down, and it fires no other weapon, point defence included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NovaArmed {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub formation: FormationId,
}

/// Fire Controls: what each acquired, or why it stayed idle, and weapons that did not fire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetingEvent {
    Acquired(Acquired),
    FireControlIdle(FireControlIdle),
    WeaponIdle(WeaponIdle),
    PulserSet(PulserSet),
}

/// A Fire Control acquired a Unit by percentile roll.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Acquired {
    pub unit: UnitId,
    pub fire_control: SystemId,
    pub formation: FormationId,
    /// Percentile bands (upper bounds, 1..=100) of the target's Units in order.
    pub bands: Vec<(UnitId, u8)>,
    pub roll: u8,
    pub target: UnitId,
}

/// A Fire Control could not fire (reason given).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FireControlIdle {
    pub unit: UnitId,
    pub fire_control: SystemId,
    pub reason: &'static str,
}

/// A weapon that could not fire (out of range, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WeaponIdle {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub reason: &'static str,
}

/// A Pulser whose record left its setting open is set for the battle
/// when it first fires (reading W26).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PulserSet {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub setting: crate::model::PulserSetting,
    pub range: u32,
}
