//! The lines of ship weapons other than ordnance: beam-table attacks,
//! grasers and fusion arrays, EMP and needle beams, reflex fields,
//! projectiles, templates.

use serde::Serialize;

use super::line::to_line;
use crate::engine::event::{
    BeamAttack, BeamEvent, BeamKind, BoardingTorpedoAttack, BurnOut, EmpAttack, EmpTest, FusionArrayAttack,
    GraserAttack, GraserEvent, KGunAttack, MkpAttack, NeedleAttack, NovaCannonAttack, PlasmaBoltAttack,
    ProjectileEvent, Reflex, ReflexRaised, SpecialEvent, SystemKilled, TemplateEvent, TorpedoAttack, WaveGunAttack,
    WaveGunBacklash, WaveGunCharge,
};
use crate::engine::plot::{SystemId, UnitId};

pub(super) fn beam(event: &BeamEvent, seq: usize) -> String {
    match event {
        BeamEvent::BeamAttack(p) => to_line(&BeamAttackLine::new(p, seq)),
    }
}

pub(super) fn graser(event: &GraserEvent, seq: usize) -> String {
    match event {
        GraserEvent::GraserAttack(p) => to_line(&GraserAttackLine::new(p, seq)),
        GraserEvent::FusionArrayAttack(p) => to_line(&FusionArrayAttackLine::new(p, seq)),
    }
}

pub(super) fn special(event: &SpecialEvent, seq: usize) -> String {
    match event {
        SpecialEvent::EmpAttack(p) => to_line(&EmpAttackLine::new(p, seq)),
        SpecialEvent::EmpTest(p) => to_line(&EmpTestLine::new(p, seq)),
        SpecialEvent::NeedleAttack(p) => to_line(&NeedleAttackLine::new(p, seq)),
        SpecialEvent::SystemKilled(p) => to_line(&SystemKilledLine::new(p, seq)),
        SpecialEvent::BurnOut(p) => to_line(&BurnOutLine::new(p, seq)),
        SpecialEvent::ReflexRaised(p) => to_line(&ReflexRaisedLine::new(p, seq)),
        SpecialEvent::Reflex(p) => to_line(&ReflexLine::new(p, seq)),
    }
}

pub(super) fn projectile(event: &ProjectileEvent, seq: usize) -> String {
    match event {
        ProjectileEvent::TorpedoAttack(p) => to_line(&TorpedoAttackLine::new(p, seq)),
        ProjectileEvent::KGunAttack(p) => to_line(&KGunAttackLine::new(p, seq)),
        ProjectileEvent::MkpAttack(p) => to_line(&MkpAttackLine::new(p, seq)),
        ProjectileEvent::PlasmaBoltAttack(p) => to_line(&PlasmaBoltAttackLine::new(p, seq)),
        ProjectileEvent::BoardingTorpedoAttack(p) => to_line(&BoardingTorpedoAttackLine::new(p, seq)),
    }
}

pub(super) fn template(event: &TemplateEvent, seq: usize) -> String {
    match event {
        TemplateEvent::WaveGunCharge(p) => to_line(&WaveGunChargeLine::new(p, seq)),
        TemplateEvent::WaveGunAttack(p) => to_line(&WaveGunAttackLine::new(p, seq)),
        TemplateEvent::WaveGunBacklash(p) => to_line(&WaveGunBacklashLine::new(p, seq)),
        TemplateEvent::NovaCannonAttack(p) => to_line(&NovaCannonAttackLine::new(p, seq)),
    }
}

/// The `beam_attack` and `plasma_attack` lines.
#[derive(Serialize)]
struct BeamAttackLine<'a> {
    dice: u32,
    drm: i32,
    faces: &'a [u8],
    normal: u32,
    penetrating: u32,
    range: u32,
    reroll_faces: &'a [u8],
    screen: u8,
    seq: usize,
    target: UnitId,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl BeamAttackLine<'_> {
    fn new(p: &BeamAttack, seq: usize) -> BeamAttackLine<'_> {
        let BeamAttack {
            kind,
            unit,
            weapon,
            target,
            range,
            dice,
            drm,
            screen,
            faces,
            reroll_faces,
            normal,
            penetrating,
        } = p;
        BeamAttackLine {
            dice: *dice,
            drm: *drm,
            faces,
            normal: *normal,
            penetrating: *penetrating,
            range: *range,
            reroll_faces,
            screen: *screen,
            seq,
            target: *target,
            r#type: match kind {
                BeamKind::Beam => "beam_attack",
                BeamKind::Plasma => "plasma_attack",
            },
            unit: *unit,
            weapon: *weapon,
        }
    }
}

/// The `graser_attack` line.
#[derive(Serialize)]
struct GraserAttackLine<'a> {
    damage_faces: &'a [u8],
    dice: u32,
    drm: i32,
    faces: &'a [u8],
    hits: &'a [u32],
    range: u32,
    reroll_faces: &'a [u8],
    reroll_hits: &'a [u32],
    screen: u8,
    seq: usize,
    target: UnitId,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl GraserAttackLine<'_> {
    fn new(p: &GraserAttack, seq: usize) -> GraserAttackLine<'_> {
        let GraserAttack {
            unit,
            weapon,
            target,
            range,
            dice,
            drm,
            screen,
            faces,
            reroll_faces,
            damage_faces,
            hits,
            reroll_hits,
        } = p;
        GraserAttackLine {
            damage_faces,
            dice: *dice,
            drm: *drm,
            faces,
            hits,
            range: *range,
            reroll_faces,
            reroll_hits,
            screen: *screen,
            seq,
            target: *target,
            r#type: "graser_attack",
            unit: *unit,
            weapon: *weapon,
        }
    }
}

/// The `fusion_array_attack` line.
#[derive(Serialize)]
struct FusionArrayAttackLine<'a> {
    dice: u32,
    drm: i32,
    face: u8,
    faces: &'a [u8],
    hit: bool,
    mode: &'static str,
    needed: u8,
    normal: u32,
    penetrating: u32,
    range: u32,
    reroll_faces: &'a [u8],
    screen: u8,
    seq: usize,
    target: UnitId,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl FusionArrayAttackLine<'_> {
    fn new(p: &FusionArrayAttack, seq: usize) -> FusionArrayAttackLine<'_> {
        let FusionArrayAttack {
            unit,
            weapon,
            target,
            range,
            mode,
            needed,
            drm,
            face,
            hit,
            dice,
            screen,
            faces,
            reroll_faces,
            normal,
            penetrating,
        } = p;
        FusionArrayAttackLine {
            dice: *dice,
            drm: *drm,
            face: *face,
            faces,
            hit: *hit,
            mode: mode.name(),
            needed: *needed,
            normal: *normal,
            penetrating: *penetrating,
            range: *range,
            reroll_faces,
            screen: *screen,
            seq,
            target: *target,
            r#type: "fusion_array_attack",
            unit: *unit,
            weapon: *weapon,
        }
    }
}

/// The `emp_attack` line.
#[derive(Serialize)]
struct EmpAttackLine<'a> {
    dice: u32,
    drm: i32,
    faces: &'a [u8],
    hits: u32,
    range: u32,
    reroll_faces: &'a [u8],
    screen: u8,
    seq: usize,
    target: UnitId,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl EmpAttackLine<'_> {
    fn new(p: &EmpAttack, seq: usize) -> EmpAttackLine<'_> {
        let EmpAttack {
            unit,
            weapon,
            target,
            range,
            dice,
            drm,
            screen,
            faces,
            reroll_faces,
            hits,
        } = p;
        EmpAttackLine {
            dice: *dice,
            drm: *drm,
            faces,
            hits: *hits,
            range: *range,
            reroll_faces,
            screen: *screen,
            seq,
            target: *target,
            r#type: "emp_attack",
            unit: *unit,
            weapon: *weapon,
        }
    }
}

/// The `emp_test` line.
#[derive(Serialize)]
struct EmpTestLine {
    face: u8,
    lost: bool,
    modifier: i32,
    needed: u8,
    seq: usize,
    system: Option<SystemId>,
    target: UnitId,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl EmpTestLine {
    fn new(p: &EmpTest, seq: usize) -> EmpTestLine {
        let EmpTest {
            unit,
            weapon,
            target,
            system,
            face,
            modifier,
            needed,
            lost,
        } = p;
        EmpTestLine {
            face: *face,
            lost: *lost,
            modifier: *modifier,
            needed: *needed,
            seq,
            system: *system,
            target: *target,
            r#type: "emp_test",
            unit: *unit,
            weapon: *weapon,
        }
    }
}

/// The `needle_attack` line.
#[derive(Serialize)]
struct NeedleAttackLine<'a> {
    damage: u32,
    drm: i32,
    faces: &'a [u8],
    kill: bool,
    range: u32,
    seq: usize,
    system: SystemId,
    target: UnitId,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl NeedleAttackLine<'_> {
    fn new(p: &NeedleAttack, seq: usize) -> NeedleAttackLine<'_> {
        let NeedleAttack {
            unit,
            weapon,
            target,
            system,
            range,
            drm,
            faces,
            damage,
            kill,
        } = p;
        NeedleAttackLine {
            damage: *damage,
            drm: *drm,
            faces,
            kill: *kill,
            range: *range,
            seq,
            system: *system,
            target: *target,
            r#type: "needle_attack",
            unit: *unit,
            weapon: *weapon,
        }
    }
}

/// The `system_killed` line.
#[derive(Serialize)]
struct SystemKilledLine {
    seq: usize,
    system: SystemId,
    r#type: &'static str,
    unit: UnitId,
}

impl SystemKilledLine {
    fn new(p: &SystemKilled, seq: usize) -> SystemKilledLine {
        let SystemKilled { unit, system } = p;
        SystemKilledLine {
            seq,
            system: *system,
            r#type: "system_killed",
            unit: *unit,
        }
    }
}

/// The `burn_out` line.
#[derive(Serialize)]
struct BurnOutLine {
    seq: usize,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl BurnOutLine {
    fn new(p: &BurnOut, seq: usize) -> BurnOutLine {
        let BurnOut { unit, weapon } = p;
        BurnOutLine {
            seq,
            r#type: "burn_out",
            unit: *unit,
            weapon: *weapon,
        }
    }
}

/// The `reflex_raised` line.
#[derive(Serialize)]
struct ReflexRaisedLine {
    seq: usize,
    r#type: &'static str,
    unit: UnitId,
}

impl ReflexRaisedLine {
    fn new(p: &ReflexRaised, seq: usize) -> ReflexRaisedLine {
        let ReflexRaised { unit } = p;
        ReflexRaisedLine {
            seq,
            r#type: "reflex_raised",
            unit: *unit,
        }
    }
}

/// The `reflex` line.
#[derive(Serialize)]
struct ReflexLine {
    face: u8,
    firer: UnitId,
    points: u32,
    reflected: u32,
    seq: usize,
    through: u32,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl ReflexLine {
    fn new(p: &Reflex, seq: usize) -> ReflexLine {
        let Reflex {
            unit,
            firer,
            weapon,
            face,
            points,
            through,
            reflected,
        } = p;
        ReflexLine {
            face: *face,
            firer: *firer,
            points: *points,
            reflected: *reflected,
            seq,
            through: *through,
            r#type: "reflex",
            unit: *unit,
            weapon: *weapon,
        }
    }
}

/// The `torpedo_attack` line.
#[derive(Serialize)]
struct TorpedoAttackLine {
    damage: Option<u8>,
    drm: i32,
    face: u8,
    hit: bool,
    needed: u8,
    range: u32,
    seq: usize,
    target: UnitId,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl TorpedoAttackLine {
    fn new(p: &TorpedoAttack, seq: usize) -> TorpedoAttackLine {
        let TorpedoAttack {
            unit,
            weapon,
            target,
            range,
            needed,
            drm,
            face,
            hit,
            damage,
        } = p;
        TorpedoAttackLine {
            damage: *damage,
            drm: *drm,
            face: *face,
            hit: *hit,
            needed: *needed,
            range: *range,
            seq,
            target: *target,
            r#type: "torpedo_attack",
            unit: *unit,
            weapon: *weapon,
        }
    }
}

/// The `k_gun_attack` line.
#[derive(Serialize)]
struct KGunAttackLine {
    damage: u32,
    doubling: Option<u8>,
    drm: i32,
    face: u8,
    hit: bool,
    needed: u8,
    range: u32,
    seq: usize,
    target: UnitId,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl KGunAttackLine {
    fn new(p: &KGunAttack, seq: usize) -> KGunAttackLine {
        let KGunAttack {
            unit,
            weapon,
            target,
            range,
            needed,
            drm,
            face,
            hit,
            doubling,
            damage,
        } = p;
        KGunAttackLine {
            damage: *damage,
            doubling: *doubling,
            drm: *drm,
            face: *face,
            hit: *hit,
            needed: *needed,
            range: *range,
            seq,
            target: *target,
            r#type: "k_gun_attack",
            unit: *unit,
            weapon: *weapon,
        }
    }
}

/// The `mkp_attack` line.
#[derive(Serialize)]
struct MkpAttackLine {
    drm: i32,
    face: Option<u8>,
    hits: u32,
    range: u32,
    seq: usize,
    target: UnitId,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl MkpAttackLine {
    fn new(p: &MkpAttack, seq: usize) -> MkpAttackLine {
        let MkpAttack {
            unit,
            weapon,
            target,
            range,
            drm,
            face,
            hits,
        } = p;
        MkpAttackLine {
            drm: *drm,
            face: *face,
            hits: *hits,
            range: *range,
            seq,
            target: *target,
            r#type: "mkp_attack",
            unit: *unit,
            weapon: *weapon,
        }
    }
}

/// The `plasma_bolt_attack` line.
#[derive(Serialize)]
struct PlasmaBoltAttackLine<'a> {
    damage: u32,
    drm: i32,
    faces: &'a [u8],
    range: u32,
    screen: u8,
    seq: usize,
    target: UnitId,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl PlasmaBoltAttackLine<'_> {
    fn new(p: &PlasmaBoltAttack, seq: usize) -> PlasmaBoltAttackLine<'_> {
        let PlasmaBoltAttack {
            unit,
            weapon,
            target,
            range,
            screen,
            drm,
            faces,
            damage,
        } = p;
        PlasmaBoltAttackLine {
            damage: *damage,
            drm: *drm,
            faces,
            range: *range,
            screen: *screen,
            seq,
            target: *target,
            r#type: "plasma_bolt_attack",
            unit: *unit,
            weapon: *weapon,
        }
    }
}

/// The `boarding_torpedo_attack` line.
#[derive(Serialize)]
struct BoardingTorpedoAttackLine {
    drm: i32,
    face: u8,
    hit: bool,
    needed: u8,
    range: u32,
    seq: usize,
    target: UnitId,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl BoardingTorpedoAttackLine {
    fn new(p: &BoardingTorpedoAttack, seq: usize) -> BoardingTorpedoAttackLine {
        let BoardingTorpedoAttack {
            unit,
            weapon,
            target,
            range,
            needed,
            drm,
            face,
            hit,
        } = p;
        BoardingTorpedoAttackLine {
            drm: *drm,
            face: *face,
            hit: *hit,
            needed: *needed,
            range: *range,
            seq,
            target: *target,
            r#type: "boarding_torpedo_attack",
            unit: *unit,
            weapon: *weapon,
        }
    }
}

/// The `wave_gun_charge` line.
#[derive(Serialize)]
struct WaveGunChargeLine {
    charge: u32,
    face: u8,
    seq: usize,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl WaveGunChargeLine {
    fn new(p: &WaveGunCharge, seq: usize) -> WaveGunChargeLine {
        let WaveGunCharge {
            unit,
            weapon,
            face,
            charge,
        } = p;
        WaveGunChargeLine {
            charge: *charge,
            face: *face,
            seq,
            r#type: "wave_gun_charge",
            unit: *unit,
            weapon: *weapon,
        }
    }
}

/// The `wave_gun_attack` line.
#[derive(Serialize)]
struct WaveGunAttackLine<'a> {
    damage: u32,
    drm: i32,
    faces: &'a [u8],
    range: u32,
    screen: u8,
    seq: usize,
    target: UnitId,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl WaveGunAttackLine<'_> {
    fn new(p: &WaveGunAttack, seq: usize) -> WaveGunAttackLine<'_> {
        let WaveGunAttack {
            unit,
            weapon,
            target,
            range,
            screen,
            drm,
            faces,
            damage,
        } = p;
        WaveGunAttackLine {
            damage: *damage,
            drm: *drm,
            faces,
            range: *range,
            screen: *screen,
            seq,
            target: *target,
            r#type: "wave_gun_attack",
            unit: *unit,
            weapon: *weapon,
        }
    }
}

/// The `wave_gun_backlash` line.
#[derive(Serialize)]
struct WaveGunBacklashLine {
    charge: u32,
    destroyed: bool,
    hull: u32,
    seq: usize,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl WaveGunBacklashLine {
    fn new(p: &WaveGunBacklash, seq: usize) -> WaveGunBacklashLine {
        let WaveGunBacklash {
            unit,
            weapon,
            charge,
            hull,
            destroyed,
        } = p;
        WaveGunBacklashLine {
            charge: *charge,
            destroyed: *destroyed,
            hull: *hull,
            seq,
            r#type: "wave_gun_backlash",
            unit: *unit,
            weapon: *weapon,
        }
    }
}

/// The `nova_cannon_attack` line.
#[derive(Serialize)]
struct NovaCannonAttackLine<'a> {
    damage: u32,
    drm: i32,
    faces: &'a [u8],
    range: u32,
    seq: usize,
    target: UnitId,
    r#type: &'static str,
    unit: UnitId,
    weapon: SystemId,
}

impl NovaCannonAttackLine<'_> {
    fn new(p: &NovaCannonAttack, seq: usize) -> NovaCannonAttackLine<'_> {
        let NovaCannonAttack {
            unit,
            weapon,
            target,
            range,
            drm,
            faces,
            damage,
        } = p;
        NovaCannonAttackLine {
            damage: *damage,
            drm: *drm,
            faces,
            range: *range,
            seq,
            target: *target,
            r#type: "nova_cannon_attack",
            unit: *unit,
            weapon: *weapon,
        }
    }
}
