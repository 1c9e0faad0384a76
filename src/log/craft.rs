//! The lines of small craft: launches, recoveries, moves, engagements and
//! their dice.

use serde::Serialize;

use super::line::{maneuver_key, to_line};
use crate::engine::event::{
    CraftDiceEvent, CraftEngaged, CraftEvent, CraftIdle, CraftLaunched, CraftLost, CraftReady, CraftRecovered,
    CraftRoll, GroupShot, SecondaryMove,
};
use crate::engine::plot::{FormationId, SystemId, UnitId};

pub(super) fn craft(event: &CraftEvent, seq: usize) -> String {
    match event {
        CraftEvent::CraftLaunched(p) => to_line(&CraftLaunchedLine::new(p, seq)),
        CraftEvent::CraftRecovered(p) => to_line(&CraftRecoveredLine::new(p, seq)),
        CraftEvent::CraftReady(p) => to_line(&CraftReadyLine::new(p, seq)),
        CraftEvent::CraftIdle(p) => to_line(&CraftIdleLine::new(p, seq)),
        CraftEvent::SecondaryMove(p) => to_line(&SecondaryMoveLine::new(p, seq)),
        CraftEvent::CraftEngaged(p) => to_line(&CraftEngagedLine::new(p, seq)),
    }
}

pub(super) fn craft_dice(event: &CraftDiceEvent, seq: usize) -> String {
    match event {
        CraftDiceEvent::CraftRoll(p) => to_line(&CraftRollLine::new(p, seq)),
        CraftDiceEvent::GroupShot(p) => to_line(&GroupShotLine::new(p, seq)),
        CraftDiceEvent::CraftLost(p) => to_line(&CraftLostLine::new(p, seq)),
    }
}

/// The `craft_launched` line.
#[derive(Serialize)]
struct CraftLaunchedLine {
    carrier: UnitId,
    group: UnitId,
    seq: usize,
    r#type: &'static str,
}

impl CraftLaunchedLine {
    fn new(p: &CraftLaunched, seq: usize) -> CraftLaunchedLine {
        let CraftLaunched { group, carrier } = p;
        CraftLaunchedLine {
            carrier: *carrier,
            group: *group,
            seq,
            r#type: "craft_launched",
        }
    }
}

/// The `craft_recovered` line.
#[derive(Serialize)]
struct CraftRecoveredLine {
    carrier: UnitId,
    face: u8,
    group: UnitId,
    ready_in: Option<u32>,
    seq: usize,
    r#type: &'static str,
}

impl CraftRecoveredLine {
    fn new(p: &CraftRecovered, seq: usize) -> CraftRecoveredLine {
        let CraftRecovered {
            group,
            carrier,
            face,
            ready_in,
        } = p;
        CraftRecoveredLine {
            carrier: *carrier,
            face: *face,
            group: *group,
            ready_in: *ready_in,
            seq,
            r#type: "craft_recovered",
        }
    }
}

/// The `craft_ready` line.
#[derive(Serialize)]
struct CraftReadyLine {
    group: UnitId,
    seq: usize,
    r#type: &'static str,
}

impl CraftReadyLine {
    fn new(p: &CraftReady, seq: usize) -> CraftReadyLine {
        let CraftReady { group } = p;
        CraftReadyLine {
            group: *group,
            seq,
            r#type: "craft_ready",
        }
    }
}

/// The `craft_idle` line.
#[derive(Serialize)]
struct CraftIdleLine {
    group: UnitId,
    reason: &'static str,
    seq: usize,
    r#type: &'static str,
}

impl CraftIdleLine {
    fn new(p: &CraftIdle, seq: usize) -> CraftIdleLine {
        let CraftIdle { group, reason } = p;
        CraftIdleLine {
            group: *group,
            reason,
            seq,
            r#type: "craft_idle",
        }
    }
}

/// The `secondary_move` line.
#[derive(Serialize)]
struct SecondaryMoveLine {
    end: u32,
    formation: FormationId,
    maneuver: &'static str,
    seq: usize,
    start: u32,
    target: FormationId,
    r#type: &'static str,
}

impl SecondaryMoveLine {
    fn new(p: &SecondaryMove, seq: usize) -> SecondaryMoveLine {
        let SecondaryMove {
            formation,
            target,
            maneuver,
            start,
            end,
        } = p;
        SecondaryMoveLine {
            end: *end,
            formation: *formation,
            maneuver: maneuver_key(*maneuver),
            seq,
            start: *start,
            target: *target,
            r#type: "secondary_move",
        }
    }
}

/// The `craft_engaged` line.
#[derive(Serialize)]
struct CraftEngagedLine {
    action: &'static str,
    cef_left: u32,
    group: UnitId,
    seq: usize,
    target: Option<UnitId>,
    r#type: &'static str,
}

impl CraftEngagedLine {
    fn new(p: &CraftEngaged, seq: usize) -> CraftEngagedLine {
        let CraftEngaged {
            group,
            target,
            action,
            cef_left,
        } = p;
        CraftEngagedLine {
            action,
            cef_left: *cef_left,
            group: *group,
            seq,
            target: *target,
            r#type: "craft_engaged",
        }
    }
}

/// `craft_roll`: for a K-gun attack also `ap` and `doubling`, for a rocket
/// attack also `damage_faces`, read from the roll's `k_gun` pairs.
#[derive(Serialize)]
struct CraftRollLine<'a> {
    action: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    ap: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    damage_faces: Option<Vec<u8>>,
    dice: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    doubling: Option<Vec<u8>>,
    drm: i32,
    evasion_faces: &'a [u8],
    faces: &'a [u8],
    group: UnitId,
    kills: u32,
    normal: u32,
    penetrating: u32,
    reroll_faces: &'a [u8],
    sap: &'a [u32],
    seq: usize,
    target: Option<UnitId>,
    r#type: &'static str,
}

impl CraftRollLine<'_> {
    fn new(p: &CraftRoll, seq: usize) -> CraftRollLine<'_> {
        let CraftRoll {
            group,
            target,
            action,
            dice,
            drm,
            faces,
            reroll_faces,
            evasion_faces,
            kills,
            normal,
            penetrating,
            sap,
            k_gun,
        } = p;
        let dice_of = || k_gun.iter().map(|&(face, _)| face).collect::<Vec<_>>();
        let k_gun_attack = *action == "k-gun attack";
        CraftRollLine {
            action,
            ap: k_gun_attack.then(|| k_gun.iter().map(|&(_, points)| points).collect()),
            damage_faces: (*action == "rocket attack").then(dice_of),
            dice: *dice,
            doubling: k_gun_attack.then(dice_of),
            drm: *drm,
            evasion_faces,
            faces,
            group: *group,
            kills: *kills,
            normal: *normal,
            penetrating: *penetrating,
            reroll_faces,
            sap,
            seq,
            target: *target,
            r#type: "craft_roll",
        }
    }
}

/// The `group_shot` line.
#[derive(Serialize)]
struct GroupShotLine<'a> {
    drm: i32,
    faces: &'a [u8],
    group: UnitId,
    kills: u32,
    seq: usize,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl GroupShotLine<'_> {
    fn new(p: &GroupShot, seq: usize) -> GroupShotLine<'_> {
        let GroupShot {
            unit,
            weapon,
            group,
            drm,
            faces,
            kills,
        } = p;
        GroupShotLine {
            drm: *drm,
            faces,
            group: *group,
            kills: *kills,
            seq,
            r#type: "group_shot",
            unit: *unit,
            weapon: *weapon,
        }
    }
}

/// The `craft_lost` line.
#[derive(Serialize)]
struct CraftLostLine {
    cause: &'static str,
    group: UnitId,
    left: u32,
    lost: u32,
    seq: usize,
    r#type: &'static str,
}

impl CraftLostLine {
    fn new(p: &CraftLost, seq: usize) -> CraftLostLine {
        let CraftLost {
            group,
            lost,
            left,
            cause,
        } = p;
        CraftLostLine {
            cause,
            group: *group,
            left: *left,
            lost: *lost,
            seq,
            r#type: "craft_lost",
        }
    }
}
