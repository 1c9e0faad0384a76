//! The lines of the Maneuver step and of the Fire Controls.

use serde::Serialize;

use super::line::{maneuver_key, to_line};
use crate::engine::event::{
    Acquired, FireControlIdle, ManeuverEvent, NovaArmed, PlotCut, Pools, PulserSet, RangeChanged, TargetingEvent,
    VolleyStarted, WeaponIdle,
};
use crate::engine::plot::{FormationId, Maneuver, SystemId, UnitId};

pub(super) fn maneuver(event: &ManeuverEvent, seq: usize) -> String {
    match event {
        ManeuverEvent::VolleyStarted(p) => to_line(&VolleyStartedLine::new(p, seq)),
        ManeuverEvent::PlotCut(p) => to_line(&PlotCutLine::new(p, seq)),
        ManeuverEvent::Pools(p) => to_line(&PoolsLine::new(p, seq)),
        ManeuverEvent::RangeChanged(p) => to_line(&RangeChangedLine::new(p, seq)),
        ManeuverEvent::NovaArmed(p) => to_line(&NovaArmedLine::new(p, seq)),
    }
}

pub(super) fn targeting(event: &TargetingEvent, seq: usize) -> String {
    match event {
        TargetingEvent::Acquired(p) => to_line(&AcquiredLine::new(p, seq)),
        TargetingEvent::FireControlIdle(p) => to_line(&FireControlIdleLine::new(p, seq)),
        TargetingEvent::WeaponIdle(p) => to_line(&WeaponIdleLine::new(p, seq)),
        TargetingEvent::PulserSet(p) => to_line(&PulserSetLine::new(p, seq)),
    }
}

/// The `volley` line.
#[derive(Serialize)]
struct VolleyStartedLine {
    seq: usize,
    r#type: &'static str,
    volley: u8,
}

impl VolleyStartedLine {
    fn new(p: &VolleyStarted, seq: usize) -> VolleyStartedLine {
        let VolleyStarted { volley } = p;
        VolleyStartedLine {
            seq,
            r#type: "volley",
            volley: *volley,
        }
    }
}

/// The `plot_cut` line.
#[derive(Serialize)]
struct PlotCutLine {
    evasion: u32,
    formation: FormationId,
    seq: usize,
    speed: u32,
    thrust: u32,
    r#type: &'static str,
}

impl PlotCutLine {
    fn new(p: &PlotCut, seq: usize) -> PlotCutLine {
        let PlotCut {
            formation,
            thrust,
            speed,
            evasion,
        } = p;
        PlotCutLine {
            evasion: *evasion,
            formation: *formation,
            seq,
            speed: *speed,
            thrust: *thrust,
            r#type: "plot_cut",
        }
    }
}

/// The `pools` line.
#[derive(Serialize)]
struct PoolsLine<'a> {
    evasion_dice: &'a [u8],
    evasion_points: u32,
    formation: FormationId,
    seq: usize,
    speed_dice: &'a [u8],
    speed_points: u32,
    thrust: u32,
    r#type: &'static str,
}

impl PoolsLine<'_> {
    fn new(p: &Pools, seq: usize) -> PoolsLine<'_> {
        let Pools {
            formation,
            thrust,
            speed_dice,
            speed_points,
            evasion_dice,
            evasion_points,
        } = p;
        PoolsLine {
            evasion_dice,
            evasion_points: *evasion_points,
            formation: *formation,
            seq,
            speed_dice,
            speed_points: *speed_points,
            thrust: *thrust,
            r#type: "pools",
        }
    }
}

/// The `range` line.
#[derive(Serialize)]
struct RangeChangedLine {
    a: FormationId,
    a_move: Option<MoveEntry>,
    after_close: u32,
    after_withdraw: u32,
    b: FormationId,
    b_move: Option<MoveEntry>,
    end: u32,
    seq: usize,
    start: u32,
    r#type: &'static str,
}

impl RangeChangedLine {
    fn new(p: &RangeChanged, seq: usize) -> RangeChangedLine {
        let RangeChanged {
            a,
            b,
            start,
            a_move,
            b_move,
            after_close,
            after_withdraw,
            end,
        } = p;
        RangeChangedLine {
            a: *a,
            a_move: MoveEntry::new(*a_move),
            after_close: *after_close,
            after_withdraw: *after_withdraw,
            b: *b,
            b_move: MoveEntry::new(*b_move),
            end: *end,
            seq,
            start: *start,
            r#type: "range",
        }
    }
}

/// The `nova_armed` line.
#[derive(Serialize)]
struct NovaArmedLine {
    formation: FormationId,
    seq: usize,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl NovaArmedLine {
    fn new(p: &NovaArmed, seq: usize) -> NovaArmedLine {
        let NovaArmed {
            unit,
            weapon,
            formation,
        } = p;
        NovaArmedLine {
            formation: *formation,
            seq,
            r#type: "nova_armed",
            unit: *unit,
            weapon: *weapon,
        }
    }
}

/// The `acquired` line.
#[derive(Serialize)]
struct AcquiredLine {
    bands: Vec<BandEntry>,
    fire_control: SystemId,
    formation: FormationId,
    roll: u8,
    seq: usize,
    target: UnitId,
    r#type: &'static str,
    unit: UnitId,
}

impl AcquiredLine {
    fn new(p: &Acquired, seq: usize) -> AcquiredLine {
        let Acquired {
            unit,
            fire_control,
            formation,
            bands,
            roll,
            target,
        } = p;
        AcquiredLine {
            bands: bands.iter().map(|&(unit, upper)| BandEntry { unit, upper }).collect(),
            fire_control: *fire_control,
            formation: *formation,
            roll: *roll,
            seq,
            target: *target,
            r#type: "acquired",
            unit: *unit,
        }
    }
}

/// The `fire_control_idle` line.
#[derive(Serialize)]
struct FireControlIdleLine {
    fire_control: SystemId,
    reason: &'static str,
    seq: usize,
    r#type: &'static str,
    unit: UnitId,
}

impl FireControlIdleLine {
    fn new(p: &FireControlIdle, seq: usize) -> FireControlIdleLine {
        let FireControlIdle {
            unit,
            fire_control,
            reason,
        } = p;
        FireControlIdleLine {
            fire_control: *fire_control,
            reason,
            seq,
            r#type: "fire_control_idle",
            unit: *unit,
        }
    }
}

/// The `weapon_idle` line.
#[derive(Serialize)]
struct WeaponIdleLine {
    reason: &'static str,
    seq: usize,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl WeaponIdleLine {
    fn new(p: &WeaponIdle, seq: usize) -> WeaponIdleLine {
        let WeaponIdle { unit, weapon, reason } = p;
        WeaponIdleLine {
            reason,
            seq,
            r#type: "weapon_idle",
            unit: *unit,
            weapon: *weapon,
        }
    }
}

/// The `pulser_set` line.
#[derive(Serialize)]
struct PulserSetLine {
    range: u32,
    seq: usize,
    setting: &'static str,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl PulserSetLine {
    fn new(p: &PulserSet, seq: usize) -> PulserSetLine {
        let PulserSet {
            unit,
            weapon,
            setting,
            range,
        } = p;
        PulserSetLine {
            range: *range,
            seq,
            setting: setting.name(),
            r#type: "pulser_set",
            unit: *unit,
            weapon: *weapon,
        }
    }
}

/// The maneuver of one side of a pair and the Speed Points it applied.
#[derive(Serialize)]
struct MoveEntry {
    maneuver: &'static str,
    speed_points: u32,
}

impl MoveEntry {
    fn new(m: Option<(Maneuver, u32)>) -> Option<MoveEntry> {
        m.map(|(maneuver, speed_points)| MoveEntry {
            maneuver: maneuver_key(maneuver),
            speed_points,
        })
    }
}

/// One Unit's percentile band: its upper bound.
#[derive(Serialize)]
struct BandEntry {
    unit: UnitId,
    upper: u8,
}
