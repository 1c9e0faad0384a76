//! Events: everything the engine did, in order. The report and the JSON
//! Lines log are rendered from them; the batch runner ignores them.

use super::dice::{Roll, RollSink};
use super::plot::{FormationId, Maneuver, SystemId, UnitId};

/// What a Volley phase reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    VolleyStarted {
        volley: u8,
    },
    /// A Formation's plot was cut because its thrust fell (fm-readings 8).
    PlotCut {
        formation: FormationId,
        thrust: u32,
        speed: u32,
        evasion: u32,
    },
    /// Speed and Evasion pools rolled.
    Pools {
        formation: FormationId,
        thrust: u32,
        speed_dice: Vec<u8>,
        speed_points: u32,
        evasion_dice: Vec<u8>,
        evasion_points: u32,
    },
    /// The range of one pair after the three maneuver steps.
    RangeChanged {
        a: FormationId,
        b: FormationId,
        start: u32,
        /// Speed points of each side as applied to this pair, with its maneuver.
        a_move: Option<(Maneuver, u32)>,
        b_move: Option<(Maneuver, u32)>,
        after_close: u32,
        after_withdraw: u32,
        end: u32,
    },
    /// A Fire Control acquired a Unit by percentile roll.
    Acquired {
        unit: UnitId,
        fire_control: SystemId,
        formation: FormationId,
        /// Percentile bands (upper bounds, 1..=100) of the target's Units in order.
        bands: Vec<(UnitId, u8)>,
        roll: u8,
        target: UnitId,
    },
    /// A Fire Control could not fire (reason given).
    FireControlIdle {
        unit: UnitId,
        fire_control: SystemId,
        reason: &'static str,
    },
    /// One weapon's attack.
    BeamAttack {
        unit: UnitId,
        weapon: SystemId,
        target: UnitId,
        range: u32,
        dice: u32,
        drm: i32,
        screen: u8,
        faces: Vec<u8>,
        reroll_faces: Vec<u8>,
        normal: u32,
        penetrating: u32,
    },
    /// Ordnance launched (salvo missiles, heavy missiles): the rack or load
    /// is spent even when the attack turns out to be wasted.
    Launch {
        unit: UnitId,
        weapon: SystemId,
        target: UnitId,
        range: u32,
        max_range: u32,
        /// Why the launch is wasted, if it is.
        wasted: Option<&'static str>,
    },
    /// A salvo's missiles on target (d6).
    OnTarget {
        unit: UnitId,
        weapon: SystemId,
        face: u8,
    },
    /// A point-defence weapon assigned to a threat.
    PdAssigned {
        unit: UnitId,
        weapon: SystemId,
        /// The Unit it defends.
        defends: UnitId,
        /// The threat: launching Unit and weapon.
        threat: (UnitId, SystemId),
        /// Allocated by fam's rule rather than plotted.
        automatic: bool,
    },
    /// A point-defence weapon's dice against one threat.
    PdRoll {
        unit: UnitId,
        weapon: SystemId,
        threat: (UnitId, SystemId),
        faces: Vec<u8>,
        reroll_faces: Vec<u8>,
        evasion_faces: Vec<u8>,
        kills: u32,
    },
    /// Missiles that got through and their damage (semi-armour-piercing,
    /// one hit per salvo missile; a heavy missile is one 3d6 hit).
    MissileHits {
        unit: UnitId,
        weapon: SystemId,
        target: UnitId,
        on_target: u32,
        killed: u32,
        faces: Vec<u8>,
        hits: Vec<u32>,
    },
    /// A pulse torpedo: to-hit by range band, then 1d6 semi-armour-piercing.
    TorpedoAttack {
        unit: UnitId,
        weapon: SystemId,
        target: UnitId,
        range: u32,
        /// The number needed before the Evasion DRM.
        needed: u8,
        drm: i32,
        face: u8,
        hit: bool,
        damage: Option<u8>,
    },
    /// A kinetic gun: to-hit by range band on its variant's projectile
    /// table, then on a hit the doubling die (class points, doubled on a
    /// roll at or under the class, never on a 6), armour-piercing.
    KGunAttack {
        unit: UnitId,
        weapon: SystemId,
        target: UnitId,
        range: u32,
        /// The number needed before the Evasion DRM.
        needed: u8,
        drm: i32,
        face: u8,
        hit: bool,
        /// The doubling die, rolled on a hit.
        doubling: Option<u8>,
        /// Armour-piercing points scored.
        damage: u32,
    },
    /// A plasma bolt on one Unit it touches: one die per class, each less
    /// the `screen` level and the Evasion `drm` (never below 0), normal
    /// damage.
    PlasmaBoltAttack {
        unit: UnitId,
        weapon: SystemId,
        target: UnitId,
        range: u32,
        screen: u8,
        drm: i32,
        faces: Vec<u8>,
        damage: u32,
    },
    /// A rocket pod's one shot: a to-hit die per rocket needing `needed`
    /// (`None`: beyond 18 MU, the pod spent all the same) with the DRM.
    RocketAttack {
        unit: UnitId,
        weapon: SystemId,
        target: UnitId,
        range: u32,
        needed: Option<u8>,
        drm: i32,
        faces: Vec<u8>,
        hits: u32,
    },
    /// The rockets of a pod that hit, after point defence: each left rolls
    /// a d6 read as a d3, less the `advanced` screen level, one
    /// semi-armour-piercing hit.
    RocketHits {
        unit: UnitId,
        weapon: SystemId,
        target: UnitId,
        hit: u32,
        killed: u32,
        advanced: u8,
        faces: Vec<u8>,
        damage: Vec<u32>,
    },
    /// An antimatter missile's detonation after point defence: a d6 for
    /// each of its 3 dice not killed, each less the `screen` level; normal
    /// damage.
    AntimatterHits {
        unit: UnitId,
        weapon: SystemId,
        target: UnitId,
        killed: u32,
        screen: u8,
        faces: Vec<u8>,
        damage: u32,
    },
    /// A boarding torpedo: to-hit on the standard projectile table; a hit
    /// is 1 hull point bypassing armour (its marines are not played).
    BoardingTorpedoAttack {
        unit: UnitId,
        weapon: SystemId,
        target: UnitId,
        range: u32,
        needed: u8,
        drm: i32,
        face: u8,
        hit: bool,
    },
    /// An unfired antimatter missile lost to a threshold check explodes on
    /// its rack: a d6 of hull damage to its own ship.
    RackExplodes {
        unit: UnitId,
        system: SystemId,
        face: u8,
        hull: u32,
        destroyed: bool,
    },
    /// An MKP's one shot: one die needing 4+ with the DRM (`None`: out of
    /// range, the pack spent all the same); hits of 4 armour-piercing
    /// points each (a natural 6 that hits is two).
    MkpAttack {
        unit: UnitId,
        weapon: SystemId,
        target: UnitId,
        range: u32,
        drm: i32,
        face: Option<u8>,
        hits: u32,
    },
    /// A graser, phaser or heavy graser (ft-rules §4.6, readings W20-W22):
    /// dice read on the beam table against the screen, each point scored
    /// one hit of a damage die (1d3, read from the d6 in `damage_faces`;
    /// heavy grasers 1d6). Grasers and phasers reroll natural 6s, read
    /// unscreened; their hits are penetrating.
    GraserAttack {
        unit: UnitId,
        weapon: SystemId,
        target: UnitId,
        range: u32,
        dice: u32,
        drm: i32,
        screen: u8,
        faces: Vec<u8>,
        reroll_faces: Vec<u8>,
        /// The d6 rolled for each hit, those of the initial dice first.
        damage_faces: Vec<u8>,
        /// Damage of each hit of the initial dice (semi-armour-piercing
        /// for grasers and phasers, normal for heavy grasers).
        hits: Vec<u32>,
        /// Damage of each hit of the reroll dice (penetrating).
        reroll_hits: Vec<u32>,
    },
    /// A plasma cannon (ft-rules §4.6, reading W25): each die (with the
    /// DRM) less 2 less the screen level is that many hits of one point;
    /// a natural 6 rerolls, read unscreened, its hits penetrating.
    PlasmaAttack {
        unit: UnitId,
        weapon: SystemId,
        target: UnitId,
        range: u32,
        dice: u32,
        drm: i32,
        screen: u8,
        faces: Vec<u8>,
        reroll_faces: Vec<u8>,
        normal: u32,
        penetrating: u32,
    },
    /// An EMP projector (ft-rules §4.5, readings W43-W46): beam dice as a
    /// battery of its class, read against advanced screens only (standard
    /// screens and armour do not stop it), natural 6s rerolling unscreened;
    /// every point scored is one hit. It does no damage: the hits force
    /// threshold tests on the target's systems ([`Event::EmpTest`]) in the
    /// threshold step.
    EmpAttack {
        unit: UnitId,
        weapon: SystemId,
        target: UnitId,
        range: u32,
        dice: u32,
        drm: i32,
        screen: u8,
        faces: Vec<u8>,
        reroll_faces: Vec<u8>,
        hits: u32,
    },
    /// One threshold test an EMP projector's hits force on a system of the
    /// target (`system: None` is the drive): lost when `face` + `modifier`
    /// (one per hull row the target lost this Volley) reaches `needed` (6
    /// for a shot of one hit, 5 for two, 4 for three or more).
    EmpTest {
        unit: UnitId,
        weapon: SystemId,
        target: UnitId,
        system: Option<SystemId>,
        face: u8,
        modifier: i32,
        needed: u8,
        lost: bool,
    },
    /// A fusion array (ft-rules §4.6, reading W57): in `mode` (the better
    /// one at the range) one to-hit die needing `needed` with the DRM;
    /// on a hit, `dice` beam dice (no DRM) against the target's advanced
    /// screen (standard screens do not stop it), natural 6s rerolling
    /// unscreened into penetrating damage (`dice` is 0 on a miss).
    FusionArrayAttack {
        unit: UnitId,
        weapon: SystemId,
        target: UnitId,
        range: u32,
        mode: super::tables::FusionMode,
        needed: u8,
        drm: i32,
        face: u8,
        hit: bool,
        dice: u32,
        screen: u8,
        faces: Vec<u8>,
        reroll_faces: Vec<u8>,
        normal: u32,
        penetrating: u32,
    },
    /// A wave gun charging (reading W59): one d6 added to its charge; it
    /// can fire in a later Volley of the Exchange once `charge` is 6 or more.
    WaveGunCharge {
        unit: UnitId,
        weapon: SystemId,
        face: u8,
        charge: u32,
    },
    /// A charged wave gun's template on one Unit (reading W59): 4, 3 or 2
    /// d6 by 12 MU band, each less the Unit's advanced screen level and the
    /// Evasion DRM (not below 0), all to the hull (armour and standard
    /// screens do not stop it).
    WaveGunAttack {
        unit: UnitId,
        weapon: SystemId,
        target: UnitId,
        range: u32,
        screen: u8,
        drm: i32,
        faces: Vec<u8>,
        damage: u32,
    },
    /// A wave gun knocked out while holding a charge: its ship takes the
    /// stored charge as damage to the hull (ft-rules §4.5, §7.2).
    WaveGunBacklash {
        unit: UnitId,
        weapon: SystemId,
        charge: u32,
        hull: u32,
        destroyed: bool,
    },
    /// A ship fires its nova cannon this Volley (ft-rules §4.5; reading
    /// W63): from the Maneuver step on it has no thrust (its Formation
    /// rolls no Speed or Evasion dice), its screens and vapour shroud are
    /// down, and it fires no other weapon, point defence included.
    NovaArmed {
        unit: UnitId,
        weapon: SystemId,
        formation: FormationId,
    },
    /// A nova cannon's blast on one Unit (reading W63): 6, 4 or 2 d6 by the
    /// blast turn that reaches the range, each less the Evasion DRM (not
    /// below 0), all to the hull (no screen or armour stops it).
    NovaCannonAttack {
        unit: UnitId,
        weapon: SystemId,
        target: UnitId,
        range: u32,
        drm: i32,
        faces: Vec<u8>,
        damage: u32,
    },
    /// A Pulser whose record left its setting open is set for the battle
    /// when it first fires (reading W26).
    PulserSet {
        unit: UnitId,
        weapon: SystemId,
        setting: crate::model::PulserSetting,
        range: u32,
    },
    /// A needle beam against a named system.
    NeedleAttack {
        unit: UnitId,
        weapon: SystemId,
        target: UnitId,
        system: SystemId,
        range: u32,
        drm: i32,
        faces: Vec<u8>,
        damage: u32,
        kill: bool,
    },
    /// A system destroyed outright (needle beam): it cannot be repaired.
    SystemKilled {
        unit: UnitId,
        system: SystemId,
    },
    /// An AA MegaBattery burnt out (two or more ones in one shot).
    BurnOut {
        unit: UnitId,
        weapon: SystemId,
    },
    /// A ship raised its reflex field for the Volley: it does not fire
    /// (reading W60).
    ReflexRaised {
        unit: UnitId,
    },
    /// A raised reflex field's d6 against one energy-weapon hit of `points`
    /// damage (reading W60): `through` of them reach `unit`, `reflected`
    /// go back to the firing Unit as normal damage.
    Reflex {
        unit: UnitId,
        firer: UnitId,
        weapon: SystemId,
        face: u8,
        points: u32,
        through: u32,
        reflected: u32,
    },
    /// A weapon that could not fire (out of range, ...).
    WeaponIdle {
        unit: UnitId,
        weapon: SystemId,
        reason: &'static str,
    },
    /// Damage applied to one Unit in the Damage phase.
    Damage {
        unit: UnitId,
        normal: u32,
        /// Semi-armour-piercing hits, each split on its own.
        sap: Vec<u32>,
        /// Armour-piercing hits (K-guns, MKP), each split on its own.
        ap: Vec<u32>,
        penetrating: u32,
        armour: u32,
        hull: u32,
        rows_completed: u32,
        crew_lost: u32,
        destroyed: bool,
    },
    /// Armour boxes each layer of a layered Unit took in the [`Event::Damage`]
    /// just before, outermost layer first (their sum is its `armour`).
    ArmourLayers {
        unit: UnitId,
        taken: Vec<u32>,
    },
    /// A threshold check began for a Unit.
    ThresholdCheck {
        unit: UnitId,
        row: u32,
        extra_rows: u32,
        needed: u8,
    },
    /// One system's threshold roll (system `None` = the main drive).
    ThresholdRoll {
        unit: UnitId,
        system: Option<SystemId>,
        face: u8,
        modifier: i32,
        lost: bool,
    },
    /// Thrust after a drive loss.
    DriveHit {
        unit: UnitId,
        thrust: u32,
    },
    BridgeLost {
        unit: UnitId,
        face: u8,
        /// Volleys out of control, `None` = permanently.
        volleys: Option<u8>,
    },
    LifeSupportLost {
        unit: UnitId,
        face: u8,
    },
    CoreBreached {
        unit: UnitId,
    },
    /// A damage-control job (system `None` = the main drive).
    Repair {
        unit: UnitId,
        system: Option<SystemId>,
        parties: u32,
        face: u8,
        repaired: bool,
    },
    /// The end-of-Volley power-core roll.
    ReactorRoll {
        unit: UnitId,
        face: u8,
        exploded: bool,
    },
    /// Reactor blast damage rolled against another Unit.
    Blast {
        source: UnitId,
        unit: UnitId,
        faces: Vec<u8>,
        damage: u32,
    },
    ControlRegained {
        unit: UnitId,
    },
    /// The ship struck its colours at a threshold check (optional rule).
    Surrendered {
        unit: UnitId,
        face: u8,
    },
    /// At the end of the Exchange the Formation withdrew to the Reserve.
    ToReserve {
        formation: FormationId,
    },
    /// A Formation entering from the Reserve arrived at 60 MU.
    Arrived {
        formation: FormationId,
    },
    Abandoned {
        unit: UnitId,
    },
    /// A Unit left the fight (destroyed) at the end of this Volley.
    Destroyed {
        unit: UnitId,
        cause: &'static str,
    },
    /// A docked group took off from its carrier (Launch phase).
    CraftLaunched {
        group: UnitId,
        carrier: UnitId,
    },
    /// A group landed on its carrier; `face` is the re-arming die and
    /// `ready_in` the Volleys until it may launch again (`None`: never).
    CraftRecovered {
        group: UnitId,
        carrier: UnitId,
        face: u8,
        ready_in: Option<u32>,
    },
    /// A docked group finished re-arming: endurance and torpedoes restored.
    CraftReady {
        group: UnitId,
    },
    /// A small-craft order that did not happen, and why.
    CraftIdle {
        group: UnitId,
        reason: &'static str,
    },
    /// A small-craft Formation's secondary maneuver (fixed distance).
    SecondaryMove {
        formation: FormationId,
        target: FormationId,
        maneuver: Maneuver,
        start: u32,
        end: u32,
    },
    /// What a group does this Volley, decided before any die; `cef_left`
    /// is its endurance after paying for it.
    CraftEngaged {
        group: UnitId,
        target: Option<UnitId>,
        action: &'static str,
        cef_left: u32,
    },
    /// One small-craft roll: a dogfight, an attack run, a torpedo run, a
    /// gunboat attack or an interception. `kills` are craft or missiles
    /// killed; `normal`/`penetrating`/`sap` the damage to a ship.
    CraftRoll {
        group: UnitId,
        target: Option<UnitId>,
        action: &'static str,
        dice: u32,
        drm: i32,
        faces: Vec<u8>,
        reroll_faces: Vec<u8>,
        evasion_faces: Vec<u8>,
        kills: u32,
        normal: u32,
        penetrating: u32,
        sap: Vec<u32>,
        /// K-gun gunboats: each hit's doubling die and its armour-piercing
        /// damage; rocket gunboats: each rocket hit's damage d6 and its
        /// 1d3 points (empty for every other action).
        k_gun: Vec<(u8, u32)>,
    },
    /// A ship weapon fired at a group or squadron named by its Fire Control.
    GroupShot {
        unit: UnitId,
        weapon: SystemId,
        group: UnitId,
        drm: i32,
        faces: Vec<u8>,
        kills: u32,
    },
    /// Craft lost by a group (`left` flying afterwards).
    CraftLost {
        group: UnitId,
        lost: u32,
        left: u32,
        cause: &'static str,
    },
}

/// Receives events and dice. `RECORDS = false` (the `()` sink) lets the
/// engine skip building event payloads, so a batch run allocates nothing.
pub trait Sink: RollSink {
    const RECORDS: bool;
    fn event(&mut self, event: Event);
}

impl Sink for () {
    const RECORDS: bool = false;
    #[inline]
    fn event(&mut self, _event: Event) {}
}

/// Records everything: events and every die in rolling order.
#[derive(Debug, Default, Clone)]
pub struct Recorder {
    pub entries: Vec<Entry>,
}

/// One item of a recording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Roll(Roll),
    Event(Event),
}

impl RollSink for Recorder {
    fn roll(&mut self, roll: Roll) {
        self.entries.push(Entry::Roll(roll));
    }
}

impl Sink for Recorder {
    const RECORDS: bool = true;
    fn event(&mut self, event: Event) {
        self.entries.push(Entry::Event(event));
    }
}

impl Recorder {
    pub fn events(&self) -> impl Iterator<Item = &Event> {
        self.entries.iter().filter_map(|e| match e {
            Entry::Event(ev) => Some(ev),
            Entry::Roll(_) => None,
        })
    }
}
