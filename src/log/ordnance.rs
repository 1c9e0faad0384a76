//! The lines of ordnance: missiles and point defence, rockets, antimatter
//! missiles.

use serde::Serialize;

use super::line::{ThreatEntry, WeaponKey, launcher, threat_entry, to_line};
use crate::engine::event::{
    AntimatterHits, Launch, MissileEvent, MissileHits, OnTarget, PdAssigned, PdRoll, RackExplodes, RocketAttack,
    RocketEvent, RocketHits,
};
use crate::engine::plot::{SystemId, UnitId};

pub(super) fn missile(event: &MissileEvent, seq: usize) -> String {
    match event {
        MissileEvent::Launch(p) => to_line(&LaunchLine::new(p, seq)),
        MissileEvent::OnTarget(p) => to_line(&OnTargetLine::new(p, seq)),
        MissileEvent::PdAssigned(p) => to_line(&PdAssignedLine::new(p, seq)),
        MissileEvent::PdRoll(p) => to_line(&PdRollLine::new(p, seq)),
        MissileEvent::MissileHits(p) => to_line(&MissileHitsLine::new(p, seq)),
    }
}

pub(super) fn rocket(event: &RocketEvent, seq: usize) -> String {
    match event {
        RocketEvent::RocketAttack(p) => to_line(&RocketAttackLine::new(p, seq)),
        RocketEvent::RocketHits(p) => to_line(&RocketHitsLine::new(p, seq)),
        RocketEvent::AntimatterHits(p) => to_line(&AntimatterHitsLine::new(p, seq)),
        RocketEvent::RackExplodes(p) => to_line(&RackExplodesLine::new(p, seq)),
    }
}

/// The `launch` line.
#[derive(Serialize)]
struct LaunchLine {
    max_range: u32,
    range: u32,
    seq: usize,
    target: UnitId,
    r#type: &'static str,
    unit: UnitId,
    wasted: Option<&'static str>,
    weapon: SystemId,
}

impl LaunchLine {
    fn new(p: &Launch, seq: usize) -> LaunchLine {
        let Launch {
            unit,
            weapon,
            target,
            range,
            max_range,
            wasted,
        } = p;
        LaunchLine {
            max_range: *max_range,
            range: *range,
            seq,
            target: *target,
            r#type: "launch",
            unit: *unit,
            wasted: *wasted,
            weapon: *weapon,
        }
    }
}

/// The `on_target` line.
#[derive(Serialize)]
struct OnTargetLine {
    face: u8,
    seq: usize,
    r#type: &'static str,
    unit: UnitId,
    weapon: WeaponKey,
}

impl OnTargetLine {
    fn new(p: &OnTarget, seq: usize) -> OnTargetLine {
        let OnTarget { unit, weapon, face } = p;
        OnTargetLine {
            face: *face,
            seq,
            r#type: "on_target",
            unit: *unit,
            weapon: launcher(*weapon),
        }
    }
}

/// The `pd_assigned` line.
#[derive(Serialize)]
struct PdAssignedLine {
    automatic: bool,
    defends: UnitId,
    seq: usize,
    threat: ThreatEntry,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl PdAssignedLine {
    fn new(p: &PdAssigned, seq: usize) -> PdAssignedLine {
        let PdAssigned {
            unit,
            weapon,
            defends,
            threat,
            automatic,
        } = p;
        PdAssignedLine {
            automatic: *automatic,
            defends: *defends,
            seq,
            threat: threat_entry(threat),
            r#type: "pd_assigned",
            unit: *unit,
            weapon: *weapon,
        }
    }
}

/// The `pd_roll` line.
#[derive(Serialize)]
struct PdRollLine<'a> {
    evasion_faces: &'a [u8],
    faces: &'a [u8],
    kills: u32,
    reroll_faces: &'a [u8],
    seq: usize,
    threat: ThreatEntry,
    r#type: &'static str,
    unit: UnitId,
    weapon: WeaponKey,
}

impl PdRollLine<'_> {
    fn new(p: &PdRoll, seq: usize) -> PdRollLine<'_> {
        let PdRoll {
            unit,
            weapon,
            threat,
            faces,
            reroll_faces,
            evasion_faces,
            kills,
        } = p;
        PdRollLine {
            evasion_faces,
            faces,
            kills: *kills,
            reroll_faces,
            seq,
            threat: threat_entry(threat),
            r#type: "pd_roll",
            unit: *unit,
            weapon: launcher(*weapon),
        }
    }
}

/// The `missile_hits` line.
#[derive(Serialize)]
struct MissileHitsLine<'a> {
    faces: &'a [u8],
    hits: &'a [u32],
    killed: u32,
    on_target: u32,
    seq: usize,
    target: UnitId,
    r#type: &'static str,
    unit: UnitId,
    weapon: WeaponKey,
}

impl MissileHitsLine<'_> {
    fn new(p: &MissileHits, seq: usize) -> MissileHitsLine<'_> {
        let MissileHits {
            unit,
            weapon,
            target,
            on_target,
            killed,
            faces,
            hits,
        } = p;
        MissileHitsLine {
            faces,
            hits,
            killed: *killed,
            on_target: *on_target,
            seq,
            target: *target,
            r#type: "missile_hits",
            unit: *unit,
            weapon: launcher(*weapon),
        }
    }
}

/// The `rocket_attack` line.
#[derive(Serialize)]
struct RocketAttackLine<'a> {
    drm: i32,
    faces: &'a [u8],
    hits: u32,
    needed: Option<u8>,
    range: u32,
    seq: usize,
    target: UnitId,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl RocketAttackLine<'_> {
    fn new(p: &RocketAttack, seq: usize) -> RocketAttackLine<'_> {
        let RocketAttack {
            unit,
            weapon,
            target,
            range,
            needed,
            drm,
            faces,
            hits,
        } = p;
        RocketAttackLine {
            drm: *drm,
            faces,
            hits: *hits,
            needed: *needed,
            range: *range,
            seq,
            target: *target,
            r#type: "rocket_attack",
            unit: *unit,
            weapon: *weapon,
        }
    }
}

/// The `rocket_hits` line.
#[derive(Serialize)]
struct RocketHitsLine<'a> {
    advanced: u8,
    damage: &'a [u32],
    faces: &'a [u8],
    hit: u32,
    killed: u32,
    seq: usize,
    target: UnitId,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl RocketHitsLine<'_> {
    fn new(p: &RocketHits, seq: usize) -> RocketHitsLine<'_> {
        let RocketHits {
            unit,
            weapon,
            target,
            hit,
            killed,
            advanced,
            faces,
            damage,
        } = p;
        RocketHitsLine {
            advanced: *advanced,
            damage,
            faces,
            hit: *hit,
            killed: *killed,
            seq,
            target: *target,
            r#type: "rocket_hits",
            unit: *unit,
            weapon: *weapon,
        }
    }
}

/// The `antimatter_hits` line.
#[derive(Serialize)]
struct AntimatterHitsLine<'a> {
    damage: u32,
    faces: &'a [u8],
    killed: u32,
    screen: u8,
    seq: usize,
    target: UnitId,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl AntimatterHitsLine<'_> {
    fn new(p: &AntimatterHits, seq: usize) -> AntimatterHitsLine<'_> {
        let AntimatterHits {
            unit,
            weapon,
            target,
            killed,
            screen,
            faces,
            damage,
        } = p;
        AntimatterHitsLine {
            damage: *damage,
            faces,
            killed: *killed,
            screen: *screen,
            seq,
            target: *target,
            r#type: "antimatter_hits",
            unit: *unit,
            weapon: *weapon,
        }
    }
}

/// The `rack_explodes` line.
#[derive(Serialize)]
struct RackExplodesLine {
    destroyed: bool,
    face: u8,
    hull: u32,
    seq: usize,
    system: SystemId,
    r#type: &'static str,
    unit: UnitId,
}

impl RackExplodesLine {
    fn new(p: &RackExplodes, seq: usize) -> RackExplodesLine {
        let RackExplodes {
            unit,
            system,
            face,
            hull,
            destroyed,
        } = p;
        RackExplodesLine {
            destroyed: *destroyed,
            face: *face,
            hull: *hull,
            seq,
            system: *system,
            r#type: "rack_explodes",
            unit: *unit,
        }
    }
}
