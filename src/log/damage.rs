//! The lines of the Damage step and what follows it: thresholds, repairs,
//! power cores, the Reserve, losses.

use serde::Serialize;

use super::line::to_line;
use crate::engine::event::{
    Abandoned, AftermathEvent, ArmourLayers, Arrived, Blast, BridgeLost, ControlRegained, CoreBreached, Damage,
    DamageEvent, Destroyed, DriveHit, LifeSupportLost, ReactorRoll, Repair, Surrendered, ThresholdCheck, ThresholdRoll,
    ToReserve,
};
use crate::engine::plot::{FormationId, SystemId, UnitId};

pub(super) fn damage(event: &DamageEvent, seq: usize) -> String {
    match event {
        DamageEvent::Damage(p) => to_line(&DamageLine::new(p, seq)),
        DamageEvent::ArmourLayers(p) => to_line(&ArmourLayersLine::new(p, seq)),
        DamageEvent::ThresholdCheck(p) => to_line(&ThresholdCheckLine::new(p, seq)),
        DamageEvent::ThresholdRoll(p) => to_line(&ThresholdRollLine::new(p, seq)),
        DamageEvent::DriveHit(p) => to_line(&DriveHitLine::new(p, seq)),
        DamageEvent::BridgeLost(p) => to_line(&BridgeLostLine::new(p, seq)),
        DamageEvent::LifeSupportLost(p) => to_line(&LifeSupportLostLine::new(p, seq)),
        DamageEvent::CoreBreached(p) => to_line(&CoreBreachedLine::new(p, seq)),
    }
}

pub(super) fn aftermath(event: &AftermathEvent, seq: usize) -> String {
    match event {
        AftermathEvent::Repair(p) => to_line(&RepairLine::new(p, seq)),
        AftermathEvent::ReactorRoll(p) => to_line(&ReactorRollLine::new(p, seq)),
        AftermathEvent::Blast(p) => to_line(&BlastLine::new(p, seq)),
        AftermathEvent::ControlRegained(p) => to_line(&ControlRegainedLine::new(p, seq)),
        AftermathEvent::Surrendered(p) => to_line(&SurrenderedLine::new(p, seq)),
        AftermathEvent::ToReserve(p) => to_line(&ToReserveLine::new(p, seq)),
        AftermathEvent::Arrived(p) => to_line(&ArrivedLine::new(p, seq)),
        AftermathEvent::Abandoned(p) => to_line(&AbandonedLine::new(p, seq)),
        AftermathEvent::Destroyed(p) => to_line(&DestroyedLine::new(p, seq)),
    }
}

/// The `damage` line.
#[derive(Serialize)]
struct DamageLine<'a> {
    ap: &'a [u32],
    armour: u32,
    crew_lost: u32,
    destroyed: bool,
    hull: u32,
    normal: u32,
    penetrating: u32,
    rows_completed: u32,
    sap: &'a [u32],
    seq: usize,
    r#type: &'static str,
    unit: UnitId,
}

impl DamageLine<'_> {
    fn new(p: &Damage, seq: usize) -> DamageLine<'_> {
        let Damage {
            unit,
            normal,
            sap,
            ap,
            penetrating,
            armour,
            hull,
            rows_completed,
            crew_lost,
            destroyed,
        } = p;
        DamageLine {
            ap,
            armour: *armour,
            crew_lost: *crew_lost,
            destroyed: *destroyed,
            hull: *hull,
            normal: *normal,
            penetrating: *penetrating,
            rows_completed: *rows_completed,
            sap,
            seq,
            r#type: "damage",
            unit: *unit,
        }
    }
}

/// The `armour_layers` line.
#[derive(Serialize)]
struct ArmourLayersLine<'a> {
    seq: usize,
    taken: &'a [u32],
    r#type: &'static str,
    unit: UnitId,
}

impl ArmourLayersLine<'_> {
    fn new(p: &ArmourLayers, seq: usize) -> ArmourLayersLine<'_> {
        let ArmourLayers { unit, taken } = p;
        ArmourLayersLine {
            seq,
            taken,
            r#type: "armour_layers",
            unit: *unit,
        }
    }
}

/// The `threshold_check` line.
#[derive(Serialize)]
struct ThresholdCheckLine {
    extra_rows: u32,
    needed: u8,
    row: u32,
    seq: usize,
    r#type: &'static str,
    unit: UnitId,
}

impl ThresholdCheckLine {
    fn new(p: &ThresholdCheck, seq: usize) -> ThresholdCheckLine {
        let ThresholdCheck {
            unit,
            row,
            extra_rows,
            needed,
        } = p;
        ThresholdCheckLine {
            extra_rows: *extra_rows,
            needed: *needed,
            row: *row,
            seq,
            r#type: "threshold_check",
            unit: *unit,
        }
    }
}

/// The `threshold_roll` line.
#[derive(Serialize)]
struct ThresholdRollLine {
    face: u8,
    lost: bool,
    modifier: i32,
    seq: usize,
    system: Option<SystemId>,
    r#type: &'static str,
    unit: UnitId,
}

impl ThresholdRollLine {
    fn new(p: &ThresholdRoll, seq: usize) -> ThresholdRollLine {
        let ThresholdRoll {
            unit,
            system,
            face,
            modifier,
            lost,
        } = p;
        ThresholdRollLine {
            face: *face,
            lost: *lost,
            modifier: *modifier,
            seq,
            system: *system,
            r#type: "threshold_roll",
            unit: *unit,
        }
    }
}

/// The `drive_hit` line.
#[derive(Serialize)]
struct DriveHitLine {
    seq: usize,
    thrust: u32,
    r#type: &'static str,
    unit: UnitId,
}

impl DriveHitLine {
    fn new(p: &DriveHit, seq: usize) -> DriveHitLine {
        let DriveHit { unit, thrust } = p;
        DriveHitLine {
            seq,
            thrust: *thrust,
            r#type: "drive_hit",
            unit: *unit,
        }
    }
}

/// The `bridge_lost` line.
#[derive(Serialize)]
struct BridgeLostLine {
    face: u8,
    seq: usize,
    r#type: &'static str,
    unit: UnitId,
    volleys: Option<u8>,
}

impl BridgeLostLine {
    fn new(p: &BridgeLost, seq: usize) -> BridgeLostLine {
        let BridgeLost { unit, face, volleys } = p;
        BridgeLostLine {
            face: *face,
            seq,
            r#type: "bridge_lost",
            unit: *unit,
            volleys: *volleys,
        }
    }
}

/// The `life_support_lost` line.
#[derive(Serialize)]
struct LifeSupportLostLine {
    face: u8,
    seq: usize,
    r#type: &'static str,
    unit: UnitId,
}

impl LifeSupportLostLine {
    fn new(p: &LifeSupportLost, seq: usize) -> LifeSupportLostLine {
        let LifeSupportLost { unit, face } = p;
        LifeSupportLostLine {
            face: *face,
            seq,
            r#type: "life_support_lost",
            unit: *unit,
        }
    }
}

/// The `core_breached` line.
#[derive(Serialize)]
struct CoreBreachedLine {
    seq: usize,
    r#type: &'static str,
    unit: UnitId,
}

impl CoreBreachedLine {
    fn new(p: &CoreBreached, seq: usize) -> CoreBreachedLine {
        let CoreBreached { unit } = p;
        CoreBreachedLine {
            seq,
            r#type: "core_breached",
            unit: *unit,
        }
    }
}

/// The `repair` line.
#[derive(Serialize)]
struct RepairLine {
    face: u8,
    parties: u32,
    repaired: bool,
    seq: usize,
    system: Option<SystemId>,
    r#type: &'static str,
    unit: UnitId,
}

impl RepairLine {
    fn new(p: &Repair, seq: usize) -> RepairLine {
        let Repair {
            unit,
            system,
            parties,
            face,
            repaired,
        } = p;
        RepairLine {
            face: *face,
            parties: *parties,
            repaired: *repaired,
            seq,
            system: *system,
            r#type: "repair",
            unit: *unit,
        }
    }
}

/// The `reactor_roll` line.
#[derive(Serialize)]
struct ReactorRollLine {
    exploded: bool,
    face: u8,
    seq: usize,
    r#type: &'static str,
    unit: UnitId,
}

impl ReactorRollLine {
    fn new(p: &ReactorRoll, seq: usize) -> ReactorRollLine {
        let ReactorRoll { unit, face, exploded } = p;
        ReactorRollLine {
            exploded: *exploded,
            face: *face,
            seq,
            r#type: "reactor_roll",
            unit: *unit,
        }
    }
}

/// The `blast` line.
#[derive(Serialize)]
struct BlastLine<'a> {
    damage: u32,
    faces: &'a [u8],
    seq: usize,
    source: UnitId,
    r#type: &'static str,
    unit: UnitId,
}

impl BlastLine<'_> {
    fn new(p: &Blast, seq: usize) -> BlastLine<'_> {
        let Blast {
            source,
            unit,
            faces,
            damage,
        } = p;
        BlastLine {
            damage: *damage,
            faces,
            seq,
            source: *source,
            r#type: "blast",
            unit: *unit,
        }
    }
}

/// The `control_regained` line.
#[derive(Serialize)]
struct ControlRegainedLine {
    seq: usize,
    r#type: &'static str,
    unit: UnitId,
}

impl ControlRegainedLine {
    fn new(p: &ControlRegained, seq: usize) -> ControlRegainedLine {
        let ControlRegained { unit } = p;
        ControlRegainedLine {
            seq,
            r#type: "control_regained",
            unit: *unit,
        }
    }
}

/// The `surrendered` line.
#[derive(Serialize)]
struct SurrenderedLine {
    face: u8,
    seq: usize,
    r#type: &'static str,
    unit: UnitId,
}

impl SurrenderedLine {
    fn new(p: &Surrendered, seq: usize) -> SurrenderedLine {
        let Surrendered { unit, face } = p;
        SurrenderedLine {
            face: *face,
            seq,
            r#type: "surrendered",
            unit: *unit,
        }
    }
}

/// The `to_reserve` line.
#[derive(Serialize)]
struct ToReserveLine {
    formation: FormationId,
    seq: usize,
    r#type: &'static str,
}

impl ToReserveLine {
    fn new(p: &ToReserve, seq: usize) -> ToReserveLine {
        let ToReserve { formation } = p;
        ToReserveLine {
            formation: *formation,
            seq,
            r#type: "to_reserve",
        }
    }
}

/// The `arrived` line.
#[derive(Serialize)]
struct ArrivedLine {
    formation: FormationId,
    seq: usize,
    r#type: &'static str,
}

impl ArrivedLine {
    fn new(p: &Arrived, seq: usize) -> ArrivedLine {
        let Arrived { formation } = p;
        ArrivedLine {
            formation: *formation,
            seq,
            r#type: "arrived",
        }
    }
}

/// The `abandoned` line.
#[derive(Serialize)]
struct AbandonedLine {
    seq: usize,
    r#type: &'static str,
    unit: UnitId,
}

impl AbandonedLine {
    fn new(p: &Abandoned, seq: usize) -> AbandonedLine {
        let Abandoned { unit } = p;
        AbandonedLine {
            seq,
            r#type: "abandoned",
            unit: *unit,
        }
    }
}

/// The `destroyed` line.
#[derive(Serialize)]
struct DestroyedLine {
    cause: &'static str,
    seq: usize,
    r#type: &'static str,
    unit: UnitId,
}

impl DestroyedLine {
    fn new(p: &Destroyed, seq: usize) -> DestroyedLine {
        let Destroyed { unit, cause } = p;
        DestroyedLine {
            cause,
            seq,
            r#type: "destroyed",
            unit: *unit,
        }
    }
}
