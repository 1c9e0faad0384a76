//! Ship weapons' events other than ordnance: beam-table attacks, grasers
//! and fusion arrays, EMP and needle beams, reflex fields, projectiles,
//! templates.

use crate::engine::plot::{SystemId, UnitId};

/// Attacks read on the beam table: beam batteries and their kin, and plasma
/// cannons.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BeamEvent {
    BeamAttack(BeamAttack),
}

/// How a [`BeamAttack`]'s dice score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BeamKind {
    /// The beam table: beams, submunitions, AA MegaBattery, PDS at a ship,
    /// Gatling batteries, twin particle arrays, meson projectors, Pulsers.
    Beam,
    /// A plasma cannon (ft-rules §4.6, reading W25): each die (with the
    /// DRM) less 2 less the screen level is that many hits of one point;
    /// a natural 6 rerolls, read unscreened, its hits penetrating.
    Plasma,
}

/// One weapon's attack on the beam table, or a plasma cannon's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BeamAttack {
    pub kind: BeamKind,
    pub unit: UnitId,
    pub weapon: SystemId,
    pub target: UnitId,
    pub range: u32,
    pub dice: u32,
    pub drm: i32,
    pub screen: u8,
    pub faces: Vec<u8>,
    pub reroll_faces: Vec<u8>,
    pub normal: u32,
    pub penetrating: u32,
}

/// Grasers, phasers and fusion arrays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GraserEvent {
    GraserAttack(GraserAttack),
    FusionArrayAttack(FusionArrayAttack),
}

/// A graser, phaser or heavy graser (ft-rules §4.6, readings W20-W22):
/// dice read on the beam table against the screen, each point scored
/// one hit of a damage die (1d3, read from the d6 in `damage_faces`;
/// heavy grasers 1d6). Grasers and phasers reroll natural 6s, read
/// unscreened; their hits are penetrating.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraserAttack {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub target: UnitId,
    pub range: u32,
    pub dice: u32,
    pub drm: i32,
    pub screen: u8,
    pub faces: Vec<u8>,
    pub reroll_faces: Vec<u8>,
    /// The d6 rolled for each hit, those of the initial dice first.
    pub damage_faces: Vec<u8>,
    /// Damage of each hit of the initial dice (semi-armour-piercing
    /// for grasers and phasers, normal for heavy grasers).
    pub hits: Vec<u32>,
    /// Damage of each hit of the reroll dice (penetrating).
    pub reroll_hits: Vec<u32>,
}

/// A fusion array (ft-rules §4.6, reading W57): in `mode` (the better
/// one at the range) one to-hit die needing `needed` with the DRM;
/// on a hit, `dice` beam dice (no DRM) against the target's advanced
/// screen (standard screens do not stop it), natural 6s rerolling
/// unscreened into penetrating damage (`dice` is 0 on a miss).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FusionArrayAttack {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub target: UnitId,
    pub range: u32,
    pub mode: crate::engine::tables::FusionMode,
    pub needed: u8,
    pub drm: i32,
    pub face: u8,
    pub hit: bool,
    pub dice: u32,
    pub screen: u8,
    pub faces: Vec<u8>,
    pub reroll_faces: Vec<u8>,
    pub normal: u32,
    pub penetrating: u32,
}

/// EMP projectors and their tests, needle beams and the systems they kill, burn-outs, reflex fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpecialEvent {
    EmpAttack(EmpAttack),
    EmpTest(EmpTest),
    NeedleAttack(NeedleAttack),
    SystemKilled(SystemKilled),
    BurnOut(BurnOut),
    ReflexRaised(ReflexRaised),
    Reflex(Reflex),
}

/// An EMP projector (ft-rules §4.5, readings W43-W46): beam dice as a
/// battery of its class, read against advanced screens only (standard
/// screens and armour do not stop it), natural 6s rerolling unscreened;
/// every point scored is one hit. It does no damage: the hits force
/// threshold tests on the target's systems ([`EmpTest`]) in the
/// threshold step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmpAttack {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub target: UnitId,
    pub range: u32,
    pub dice: u32,
    pub drm: i32,
    pub screen: u8,
    pub faces: Vec<u8>,
    pub reroll_faces: Vec<u8>,
    pub hits: u32,
}

/// One threshold test an EMP projector's hits force on a system of the
/// target (`system: None` is the drive): lost when `face` + `modifier`
/// (one per hull row the target lost this Volley) reaches `needed` (6
/// for a shot of one hit, 5 for two, 4 for three or more).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmpTest {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub target: UnitId,
    pub system: Option<SystemId>,
    pub face: u8,
    pub modifier: i32,
    pub needed: u8,
    pub lost: bool,
}

/// A needle beam against a named system.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NeedleAttack {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub target: UnitId,
    pub system: SystemId,
    pub range: u32,
    pub drm: i32,
    pub faces: Vec<u8>,
    pub damage: u32,
    pub kill: bool,
}

/// A system destroyed outright (needle beam): it cannot be repaired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemKilled {
    pub unit: UnitId,
    pub system: SystemId,
}

/// An AA MegaBattery burnt out (two or more ones in one shot).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BurnOut {
    pub unit: UnitId,
    pub weapon: SystemId,
}

/// A ship raised its reflex field for the Volley: it does not fire
/// (reading W60).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReflexRaised {
    pub unit: UnitId,
}

/// A raised reflex field's d6 against one energy-weapon hit of `points`
/// damage (reading W60): `through` of them reach `unit`, `reflected`
/// go back to the firing Unit as normal damage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reflex {
    pub unit: UnitId,
    pub firer: UnitId,
    pub weapon: SystemId,
    pub face: u8,
    pub points: u32,
    pub through: u32,
    pub reflected: u32,
}

/// Torpedoes, kinetic guns, MKPs, plasma bolts, boarding torpedoes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProjectileEvent {
    TorpedoAttack(TorpedoAttack),
    KGunAttack(KGunAttack),
    MkpAttack(MkpAttack),
    PlasmaBoltAttack(PlasmaBoltAttack),
    BoardingTorpedoAttack(BoardingTorpedoAttack),
}

/// A pulse torpedo: to-hit by range band, then 1d6 semi-armour-piercing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TorpedoAttack {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub target: UnitId,
    pub range: u32,
    /// The number needed before the Evasion DRM.
    pub needed: u8,
    pub drm: i32,
    pub face: u8,
    pub hit: bool,
    pub damage: Option<u8>,
}

/// A kinetic gun: to-hit by range band on its variant's projectile
/// table, then on a hit the doubling die (class points, doubled on a
/// roll at or under the class, never on a 6), armour-piercing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KGunAttack {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub target: UnitId,
    pub range: u32,
    /// The number needed before the Evasion DRM.
    pub needed: u8,
    pub drm: i32,
    pub face: u8,
    pub hit: bool,
    /// The doubling die, rolled on a hit.
    pub doubling: Option<u8>,
    /// Armour-piercing points scored.
    pub damage: u32,
}

/// An MKP's one shot: one die needing 4+ with the DRM (`None`: out of
/// range, the pack spent all the same); hits of 4 armour-piercing
/// points each (a natural 6 that hits is two).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MkpAttack {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub target: UnitId,
    pub range: u32,
    pub drm: i32,
    pub face: Option<u8>,
    pub hits: u32,
}

/// A plasma bolt on one Unit it touches: one die per class, each less
/// the `screen` level and the Evasion `drm` (never below 0), normal
/// damage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlasmaBoltAttack {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub target: UnitId,
    pub range: u32,
    pub screen: u8,
    pub drm: i32,
    pub faces: Vec<u8>,
    pub damage: u32,
}

/// A boarding torpedo: to-hit on the standard projectile table; a hit
/// is 1 hull point bypassing armour (its marines are not played).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardingTorpedoAttack {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub target: UnitId,
    pub range: u32,
    pub needed: u8,
    pub drm: i32,
    pub face: u8,
    pub hit: bool,
}

/// Wave guns and nova cannons.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateEvent {
    WaveGunCharge(WaveGunCharge),
    WaveGunAttack(WaveGunAttack),
    WaveGunBacklash(WaveGunBacklash),
    NovaCannonAttack(NovaCannonAttack),
}

/// A wave gun charging (reading W59): one d6 added to its charge; it
/// can fire in a later Volley of the Exchange once `charge` is 6 or more.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaveGunCharge {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub face: u8,
    pub charge: u32,
}

/// A charged wave gun's template on one Unit (reading W59): 4, 3 or 2
/// d6 by 12 MU band, each less the Unit's advanced screen level and the
/// Evasion DRM (not below 0), all to the hull (armour and standard
/// screens do not stop it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaveGunAttack {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub target: UnitId,
    pub range: u32,
    pub screen: u8,
    pub drm: i32,
    pub faces: Vec<u8>,
    pub damage: u32,
}

/// A wave gun knocked out while holding a charge: its ship takes the
/// stored charge as damage to the hull (ft-rules §4.5, §7.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaveGunBacklash {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub charge: u32,
    pub hull: u32,
    pub destroyed: bool,
}

/// A nova cannon's blast on one Unit (reading W63): 6, 4 or 2 d6 by the
/// blast turn that reaches the range, each less the Evasion DRM (not
/// below 0), all to the hull (no screen or armour stops it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NovaCannonAttack {
    pub unit: UnitId,
    pub weapon: SystemId,
    pub target: UnitId,
    pub range: u32,
    pub drm: i32,
    pub faces: Vec<u8>,
    pub damage: u32,
}
