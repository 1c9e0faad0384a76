//! The ship model: ships, bases, their systems and state, fighter groups,
//! and a file of such records, shared by both game profiles and every
//! format. The GZF reader and writer (`gzf`) and FTJava import and export
//! (`ftjava`) read and write it; the engine builds its Units from it and
//! writes their state back into it. It imports nothing of fam.
//!
//! FB1 and FT2 names map onto one set of kinds (`docs/readings.md`, "GZF
//! mapping"); the file's [`Profile`] decides how the writer spells them,
//! by each kind's row in [`registry`].
//! Fields the engine does not use (captain, position, logs, unknown fields)
//! are kept as [`Meta`] text so that a record written back loses nothing.

pub mod points;
pub mod registry;
pub mod sizes;

use std::fmt;

/// The game profile a file is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Profile {
    /// Full Thrust Fleet Book 1 profile (numbered beams, six arcs, crew factors).
    #[default]
    Fb1,
    /// Full Thrust 2nd edition profile (A/B/C batteries, four arcs).
    Ft2,
}

impl Profile {
    pub fn name(self) -> &'static str {
        match self {
            Profile::Fb1 => "FB1",
            Profile::Ft2 => "FT2",
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A field kept as text: its canonical name and its value, one entry per line
/// for folded text fields such as `Log:` and `Orders:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta {
    pub name: String,
    pub lines: Vec<String>,
}

impl Meta {
    pub fn new(name: impl Into<String>, value: impl Into<String>) -> Self {
        Meta {
            name: name.into(),
            lines: vec![value.into()],
        }
    }
}

/// A whole GZF file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GzfFile {
    pub profile: Profile,
    pub header: Header,
    /// Top-level blocks in file order, with components attached to owners.
    pub items: Vec<Item>,
}

impl GzfFile {
    pub fn ships(&self) -> impl Iterator<Item = &Ship> {
        self.items.iter().filter_map(|i| match i {
            Item::Ship(s) => Some(s),
            _ => None,
        })
    }

    pub fn ships_mut(&mut self) -> impl Iterator<Item = &mut Ship> {
        self.items.iter_mut().filter_map(|i| match i {
            Item::Ship(s) => Some(s),
            _ => None,
        })
    }

    pub fn bases(&self) -> impl Iterator<Item = &Base> {
        self.items.iter().filter_map(|i| match i {
            Item::Base(b) => Some(b),
            _ => None,
        })
    }

    pub fn ship(&self, name: &str) -> Option<&Ship> {
        self.ships().find(|s| s.name.eq_ignore_ascii_case(name))
    }
}

/// The header block (GZF mandates it first; fam writes it always).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Header {
    pub universe: Option<String>,
    pub universe_version: Option<String>,
    /// `Units:` (FB1 only).
    pub units: Option<Units>,
    /// Other header fields, kept as written.
    pub meta: Vec<Meta>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Units {
    Cm,
    Inches,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Scenario(Scenario),
    Fleet(Fleet),
    Ship(Ship),
    /// A System block before any owner: a generic definition.
    System(System),
    FighterGroup(FighterGroup),
    Launched(LaunchedSystem),
    Base(Base),
    Terrain(Terrain),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scenario {
    pub title: String,
    pub turn: i64,
    pub meta: Vec<Meta>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fleet {
    pub name: String,
    pub admiral: String,
    /// Percentage of the fleet remaining.
    pub morale: Option<u32>,
    pub meta: Vec<Meta>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HullIntegrity {
    Fragile,
    Weak,
    Average,
    Strong,
    Super,
}

impl HullIntegrity {
    pub const ALL: [HullIntegrity; 5] = [
        HullIntegrity::Fragile,
        HullIntegrity::Weak,
        HullIntegrity::Average,
        HullIntegrity::Strong,
        HullIntegrity::Super,
    ];

    /// Hull boxes as a percentage of mass (ft-rules §6.1).
    pub fn percent(self) -> u32 {
        match self {
            HullIntegrity::Fragile => 10,
            HullIntegrity::Weak => 20,
            HullIntegrity::Average => 30,
            HullIntegrity::Strong => 40,
            HullIntegrity::Super => 50,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            HullIntegrity::Fragile => "Fragile",
            HullIntegrity::Weak => "Weak",
            HullIntegrity::Average => "Average",
            HullIntegrity::Strong => "Strong",
            HullIntegrity::Super => "Super",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShipType {
    Military,
    Civilian,
    Merchant,
}

impl ShipType {
    pub fn name(self) -> &'static str {
        match self {
            ShipType::Military => "Military",
            ShipType::Civilian => "Civilian",
            ShipType::Merchant => "Merchant",
        }
    }
}

/// One box of a damage, armour, craft, endurance or rounds track.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckBox {
    /// Crossed off (`-`).
    pub crossed: bool,
    /// An unchecked crew-factor box (`*`, FB1). A crossed box no longer says
    /// whether it held a crew factor (the profile writes both as `-`).
    pub crew_factor: bool,
}

impl CheckBox {
    pub const OPEN: CheckBox = CheckBox {
        crossed: false,
        crew_factor: false,
    };
    pub const CREW: CheckBox = CheckBox {
        crossed: false,
        crew_factor: true,
    };
    pub const CROSSED: CheckBox = CheckBox {
        crossed: true,
        crew_factor: false,
    };

    pub fn symbol(self) -> char {
        match (self.crossed, self.crew_factor) {
            (true, _) => '-',
            (false, true) => '*',
            (false, false) => 'O',
        }
    }
}

/// Armour: FB1 writes boxes, FT2 a level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Armour {
    /// One row of armour boxes.
    Boxes(Vec<CheckBox>),
    Level(u8),
    /// Layered ("shell") armour, a fam extension (`Armour: O O / O O O O`):
    /// two or more rows, the outermost first, each with at least one box
    /// (ft-rules §1.4, §6.2). One row is always [`Armour::Boxes`].
    Layers(Vec<Vec<CheckBox>>),
}

impl Armour {
    /// The rows of boxes, outermost first (none for an FT2 level).
    pub fn layers(&self) -> Vec<&[CheckBox]> {
        match self {
            Armour::Boxes(b) => vec![b.as_slice()],
            Armour::Level(_) => Vec::new(),
            Armour::Layers(l) => l.iter().map(Vec::as_slice).collect(),
        }
    }

    /// Armour from rows of boxes, outermost first: [`Armour::Boxes`] for one
    /// row, [`Armour::Layers`] for more, `None` for none.
    pub fn from_layers(mut rows: Vec<Vec<CheckBox>>) -> Option<Armour> {
        match rows.len() {
            0 => None,
            1 => rows.pop().map(Armour::Boxes),
            _ => Some(Armour::Layers(rows)),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PayloadBox {
    Hold(u32),
    Passenger(u32),
    Special(u32),
    Troops(u32),
    Lost,
}

/// Status flags: any combination of activity, launch, damage and core states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Status {
    pub activity: Option<Activity>,
    pub launch: Option<Launch>,
    pub damage: Option<DamageState>,
    pub powerless: bool,
    pub lifeless: bool,
    pub uncontrolled: bool,
}

impl Status {
    pub fn is_empty(&self) -> bool {
        *self == Status::default()
    }

    /// Operational: not damaged (unrepaired), not destroyed, not switched off.
    pub fn operational(&self) -> bool {
        !matches!(self.damage, Some(DamageState::Damaged | DamageState::Destroyed))
            && self.activity != Some(Activity::Inactive)
    }

    pub fn words(&self) -> Vec<&'static str> {
        let mut w = Vec::new();
        match self.activity {
            Some(Activity::Active) => w.push("Active"),
            Some(Activity::Inactive) => w.push("Inactive"),
            None => {}
        }
        match self.launch {
            Some(Launch::Launched) => w.push("Launched"),
            Some(Launch::Docked) => w.push("Docked"),
            None => {}
        }
        match self.damage {
            Some(DamageState::Damaged) => w.push("Damaged"),
            Some(DamageState::Repaired) => w.push("Repaired"),
            Some(DamageState::Destroyed) => w.push("Destroyed"),
            None => {}
        }
        if self.powerless {
            w.push("Powerless");
        }
        if self.lifeless {
            w.push("Lifeless");
        }
        if self.uncontrolled {
            w.push("Uncontrolled");
        }
        w
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activity {
    Active,
    Inactive,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Launch {
    Launched,
    Docked,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DamageState {
    Damaged,
    Repaired,
    Destroyed,
}

/// Firing arcs. FB1 uses six 60° arcs, FT2 four 90° arcs (`P`, `S`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Arc {
    Fp,
    F,
    Fs,
    Ap,
    A,
    As,
    P,
    S,
}

impl Arc {
    pub const FB1: [Arc; 6] = [Arc::Fp, Arc::F, Arc::Fs, Arc::Ap, Arc::A, Arc::As];
    pub const FT2: [Arc; 4] = [Arc::F, Arc::P, Arc::S, Arc::A];

    pub fn code(self) -> &'static str {
        match self {
            Arc::Fp => "FP",
            Arc::F => "F",
            Arc::Fs => "FS",
            Arc::Ap => "AP",
            Arc::A => "A",
            Arc::As => "AS",
            Arc::P => "P",
            Arc::S => "S",
        }
    }
}

/// Arc count as F&M uses it for Evasion: an FT2 weapon covering all four
/// 90° arcs counts as six (fm-readings 14); otherwise FT2 arcs count 1.5 each,
/// rounded down.
pub fn effective_arc_count(arcs: &[Arc], profile: Profile) -> u32 {
    match profile {
        Profile::Fb1 => arcs.len() as u32,
        Profile::Ft2 => (arcs.len() as u32 * 3) / 2,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AmmoType {
    Standard,
    Er,
}

/// Range variant of a projectile weapon (pulse torpedoes, K-guns): the
/// projectile table's bands are 6 MU (standard), 9 MU (long) or 4 MU
/// (short) wide (ft-rules §1.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TorpedoRange {
    Standard,
    Long,
    Short,
}

/// Setting of a Pulser (FTC §5.21), chosen once per battle: long (1 die
/// to 48 MU), medium (2 dice to 24 MU) or short (6 dice to 12 MU, and no
/// point defence). fam extension field `Pulser-Setting:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PulserSetting {
    Long,
    Medium,
    Short,
}

impl PulserSetting {
    pub const ALL: [PulserSetting; 3] = [PulserSetting::Long, PulserSetting::Medium, PulserSetting::Short];

    pub fn name(self) -> &'static str {
        match self {
            PulserSetting::Long => "Long",
            PulserSetting::Medium => "Medium",
            PulserSetting::Short => "Short",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Warhead {
    Standard,
    Emp,
    Needle,
}

/// What a system is. FB1 and FT2 names both map onto these kinds; each
/// has its row in [`registry`], which says its names and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SystemKind {
    /// FB1 `Class N Battery`; FT2 `A Battery` = 3, `B Battery` = 2, `C Battery` = 1.
    Beam {
        class: u8,
    },
    /// FT2 `AA MegaBattery`.
    AaMegaBattery,
    NeedleBeam,
    Ortillery,
    /// FB1 `PDS`; FT2 `PDAF`.
    Pds,
    /// FT2 `ADAF`: an anti-fighter gun that may also defend one other ship.
    Adaf,
    PulseTorpedo {
        range: TorpedoRange,
    },
    SubmunitionPack,
    /// fam extension: a kinetic gun K-1 … K-6 (`Class N K-Gun`, with the
    /// `Long Range` / `Short Range` variants), armour-piercing (ft-rules §4.6).
    KGun {
        class: u8,
        range: TorpedoRange,
    },
    /// fam extension `MKP`: a multiple kinetic penetrator pack, one shot.
    Mkp,
    /// fam extension: a plasma bolt launcher of class 1 … 6 (`Class N
    /// Plasma Bolt Launcher`), the Phalon area weapon (ft-rules §4.6).
    PlasmaBolt {
        class: u8,
    },
    /// fam extension `Rocket Pod` (ft-rules §4.6, FTC §6.7): one shot of
    /// two rockets, each hitting on the projectile-like 2+/3+/4+ to 18 MU,
    /// then shot at by point defence as missiles; 1d3 semi-armour-piercing.
    RocketPod,
    /// fam extension `Antimatter Missile` (ft-rules §4.6, FTC §6.6): a
    /// one-shot rack; 3d6 less one die per point-defence hit.
    AntimatterMissile,
    /// fam extension `Boarding Torpedo` (ft-rules §4.6, FTC §5.18): the
    /// projectile table; a hit is 1 hull point (its marines are not played).
    BoardingTorpedo,
    /// fam extension `Class N Graser` (ft-rules §4.6): beam dice, each
    /// point scored a hit of 1d3 semi-armour-piercing damage.
    Graser {
        class: u8,
    },
    /// fam extension `Class N Heavy Graser`: N dice per 18 MU band on the
    /// beam table without rerolls, each point scored a hit of 1d6.
    HeavyGraser {
        class: u8,
    },
    /// fam extension `Class N High Intensity Graser`: a heavy graser whose
    /// natural 6s reroll (ft-rules §4.6; readings W58).
    HighIntensityGraser {
        class: u8,
    },
    /// fam extension `Class N Phaser`: a graser that may fire as a PDS.
    Phaser {
        class: u8,
    },
    /// fam extension `Gatling Battery`: 6 beam dice to 12 MU, or a PDS.
    GatlingBattery,
    /// fam extension `Twin Particle Array`: 2 beam dice to 24 MU, or a PDS.
    TwinParticleArray,
    /// fam extension `Meson Projector`: 1 beam die to 48 MU, or a PDS.
    MesonProjector,
    /// fam extension `Pulser` with its `Pulser-Setting:` (`None`: left to
    /// the commander, fixed when it first fires).
    Pulser {
        setting: Option<PulserSetting>,
    },
    /// fam extension `Class N Plasma Cannon`: N dice per 12 MU band, each
    /// die (d6 − 2 − screen) hits of one point.
    PlasmaCannon {
        class: u8,
    },
    /// fam extension `Class N EMP Projector` (ft-rules §4.5, FTC §5.4):
    /// beam dice as a battery of its class, no damage; each hit forces a
    /// threshold test on a system of the target (readings W43-W46).
    EmpProjector {
        class: u8,
    },
    /// fam extension `Fusion Array` (ft-rules §4.6, FTC §5.19): one to-hit
    /// die by 6 MU band to 36 MU, then beam dice; flare or torpedo mode,
    /// chosen each time it fires (readings W57).
    FusionArray,
    /// Heavy missile rack: FB1 `[Standard|EMP|Needle] Missile`, FT2 `Missile`, `EMP Missile`, `Needle Missile`.
    Missile {
        warhead: Warhead,
    },
    Minelayer,
    Minesweeper,
    WaveGun,
    NovaCannon,
    /// Salvo missile launcher.
    Sml,
    /// Salvo missile rack (one shot).
    Smr,
    /// Salvo missile magazine.
    Smm,
    /// FT2 `1|2|3 Railgun`.
    Railgun {
        class: u8,
    },
    EnergyPulse,
    Scattergun,
    Ftl,
    /// FB1 `FCS`; FT2 `FireCon`.
    FireControl,
    ScreenGenerator,
    /// fam extension `Advanced Screen Generator`: a screen level that also
    /// stops torpedoes, missiles, submunitions and K-gun doubling
    /// (ft-rules §3, §4.1, §4.3, §4.6; readings W42).
    AdvancedScreen,
    /// fam extension `Vapour Shroud`: the Phalon shroud, a level-2 screen
    /// while it works (readings W38).
    VapourShroud,
    ReflexField,
    /// Area defence fire control (FB1).
    Adfc,
    CloakingField,
    /// Standard sensors (named in the profiles' association example).
    Sensors,
    EnhancedSensors,
    SuperiorSensors,
    IndividualEcm,
    AreaEcm,
    /// FB1 `Hangar Bay`; FT2 `Fighter Bay`.
    HangarBay,
    DropshipBay,
    Weasel,
    Drone,
    Dock,
    CommandBridge,
    PowerCore,
    /// FB1 `LSS`.
    LifeSupport,
    /// FT2 `Damage Control Party` (FB1 keeps DCPs as crew-factor boxes).
    DamageControlParty,
    /// A system the model does not know, loaded on request
    /// (`--inert-unknown-systems`). It does nothing but still counts for
    /// threshold checks.
    Inert(String),
}

/// Fighter type: an optional modifier and a base type, and whether the
/// group flies light fighters (fam extension `Light`: 8 craft a group, 4
/// endurance, every attack on them at +1; ft-rules §9.1, readings F40).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FighterType {
    pub modifier: Option<FighterModifier>,
    pub base: FighterBase,
    pub light: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FighterModifier {
    Fast,
    Heavy,
    LongRange,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FighterBase {
    Standard,
    Interceptor,
    Attack,
    Torpedo,
    /// FT2 only.
    DronePod,
}

impl FighterType {
    pub fn name(&self) -> String {
        let base = match self.base {
            FighterBase::Standard => "Standard",
            FighterBase::Interceptor => "Interceptor",
            FighterBase::Attack => "Attack",
            FighterBase::Torpedo => "Torpedo",
            FighterBase::DronePod => "Drone Pod",
        };
        let name = match self.modifier {
            None => base.to_string(),
            Some(FighterModifier::Fast) => format!("Fast {base}"),
            Some(FighterModifier::Heavy) => format!("Heavy {base}"),
            Some(FighterModifier::LongRange) => format!("Long Range {base}"),
        };
        if self.light { format!("Light {name}") } else { name }
    }

    /// Heavy fighters: PD and fighters shooting at them take −1.
    pub fn heavy(&self) -> bool {
        self.modifier == Some(FighterModifier::Heavy)
    }

    /// Craft a group of this type holds: 8 light fighters, else 6.
    pub fn max_craft(&self) -> u32 {
        if self.light { 8 } else { 6 }
    }

    /// The DRM every attack on this type takes for being light (+1,
    /// ft-rules §9.1): point defence, dogfights and ship fire alike.
    pub fn light_drm(&self) -> i32 {
        i32::from(self.light)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PilotQuality {
    Ace,
    Turkey,
}

/// A System block: one system or weapon mount.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct System {
    pub kind: SystemKind,
    pub arcs: Vec<Arc>,
    pub cost: Option<u32>,
    pub mass: Option<u32>,
    pub status: Status,
    /// Core systems: turns out of control / saving roll / turns to failure.
    pub failure: Option<i64>,
    pub capacity: Option<u32>,
    /// Magazine id linking launchers and magazines.
    pub magazine: Option<String>,
    /// Rounds in a magazine or weapon; `crossed` = spent.
    pub rounds: Option<Vec<CheckBox>>,
    pub ammo: Option<AmmoType>,
    pub fighter_type: Option<FighterType>,
    pub pilot_quality: Option<PilotQuality>,
    /// Orders, Log and fields fam does not use.
    pub meta: Vec<Meta>,
}

impl System {
    pub fn new(kind: SystemKind) -> Self {
        System {
            kind,
            arcs: Vec::new(),
            cost: None,
            mass: None,
            status: Status::default(),
            failure: None,
            capacity: None,
            magazine: None,
            rounds: None,
            ammo: None,
            fighter_type: None,
            pilot_quality: None,
            meta: Vec::new(),
        }
    }
}

/// A ship and the systems that follow it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ship {
    pub name: String,
    pub class: Option<String>,
    pub hull_integrity: Option<HullIntegrity>,
    /// FB1 `Ship-Type:`, FT2 `Hull-Type:`.
    pub ship_type: Option<ShipType>,
    /// FT2 `Hull-Class:` (Escort, Cruiser, Capital, ...), kept as written.
    pub hull_class: Option<String>,
    pub streamlining: Option<String>,
    pub mass: Option<u32>,
    pub cost: Option<u32>,
    pub fleet: Option<String>,
    pub status: Status,
    /// Current main drive thrust (`Thrust-Rating:`).
    pub thrust: u32,
    /// Thrust before drive damage (`Original-Thrust:`, a fam extension
    /// written only when it differs from the current rating).
    pub original_thrust: u32,
    /// An advanced main drive (`Drive-Type: Advanced`, a fam extension;
    /// FTJava's `MainDrive type="Advanced"`): its Formation may put all its
    /// thrust into Evasion when every Unit has one (fm-readings 7).
    pub advanced_drive: bool,
    pub armour: Option<Armour>,
    /// Hull boxes, row by row, top row first.
    pub damage_track: Vec<Vec<CheckBox>>,
    pub meta: Vec<Meta>,
    pub systems: Vec<System>,
}

impl Ship {
    /// A ship record with this name and nothing else yet.
    pub fn new(name: impl Into<String>) -> Self {
        Ship {
            name: name.into(),
            class: None,
            hull_integrity: None,
            ship_type: None,
            hull_class: None,
            streamlining: None,
            mass: None,
            cost: None,
            fleet: None,
            status: Status::default(),
            thrust: 0,
            original_thrust: 0,
            advanced_drive: false,
            armour: None,
            damage_track: Vec::new(),
            meta: Vec::new(),
            systems: Vec::new(),
        }
    }

    pub fn hull_boxes(&self) -> usize {
        self.damage_track.iter().map(Vec::len).sum()
    }

    pub fn hull_remaining(&self) -> usize {
        self.damage_track.iter().flatten().filter(|b| !b.crossed).count()
    }

    pub fn crew_factors(&self) -> usize {
        self.damage_track
            .iter()
            .flatten()
            .filter(|b| b.crew_factor && !b.crossed)
            .count()
    }

    /// Armour boxes in all layers.
    pub fn armour_boxes(&self) -> usize {
        self.armour
            .as_ref()
            .map_or(0, |a| a.layers().iter().map(|l| l.len()).sum())
    }

    /// Armour boxes not crossed off, in all layers.
    pub fn armour_remaining(&self) -> usize {
        self.armour.as_ref().map_or(0, |a| {
            a.layers().iter().map(|l| l.iter().filter(|b| !b.crossed).count()).sum()
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FighterGroup {
    pub id: String,
    /// Fighter craft boxes; `crossed` = lost.
    pub craft: Vec<CheckBox>,
    pub fighter_type: Option<FighterType>,
    pub pilot_quality: Option<PilotQuality>,
    /// Endurance boxes; `crossed` = expended.
    pub endurance: Option<Vec<CheckBox>>,
    pub status: Status,
    pub carrier: Option<String>,
    pub screening: Option<String>,
    /// fam extension `Rounds:`: one box for the group's torpedo load,
    /// crossed when the torpedoes are spent (torpedo fighters).
    pub rounds: Option<Vec<CheckBox>>,
    /// fam extension `Rearm:`: Volleys until a docked group may launch
    /// again, or never in this battle.
    pub rearm: Option<GroupRearm>,
    /// fam extension `Gunboat:`: the block is a gunboat squadron of this
    /// type (docs/fighters.md §5).
    pub gunboat: Option<GunboatType>,
    pub meta: Vec<Meta>,
}

impl FighterGroup {
    /// An empty group block with this id (no craft yet).
    pub fn new(id: impl Into<String>) -> Self {
        FighterGroup {
            id: id.into(),
            craft: Vec::new(),
            fighter_type: None,
            pilot_quality: None,
            endurance: None,
            status: Status::default(),
            carrier: None,
            screening: None,
            rounds: None,
            rearm: None,
            gunboat: None,
            meta: Vec::new(),
        }
    }
}

/// `Rearm:` on a Fighter-Group (fam extension).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupRearm {
    /// May launch again after this many more Volleys.
    Volleys(u32),
    /// Not again this battle.
    Never,
}

/// `Gunboat:` on a Fighter-Group (fam extension, reading F22).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GunboatType {
    Beam,
    Torpedo,
    /// A Gatling battery a boat (ft-rules §9.2, readings F41).
    Gatling,
    /// A K-2 kinetic gun a boat (ft-rules §9.2, readings F42).
    KGun,
    /// Four one-shot rockets a boat (ft-rules §9.2, readings F43).
    Rocket,
    /// Two one-shot submunition packs a boat (ft-rules §9.2, readings F44).
    Submunition,
    /// One 4-missile salvo a boat (ft-rules §9.2, §14 A27; readings F45).
    Missile,
    /// Two PDS and an ADFC a boat (ft-rules §9.2, readings F46).
    Pds,
}

impl GunboatType {
    pub fn name(self) -> &'static str {
        match self {
            GunboatType::Beam => "Beam",
            GunboatType::Torpedo => "Torpedo",
            GunboatType::Gatling => "Gatling",
            GunboatType::KGun => "K-Gun",
            GunboatType::Rocket => "Rocket",
            GunboatType::Submunition => "Submunition",
            GunboatType::Missile => "Missile",
            GunboatType::Pds => "PDS",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchedSystem {
    pub id: String,
    /// `Type:` as written (e.g. `EMP Missile`, `ER Salvo`, `Mine`).
    pub launched_type: Option<String>,
    pub detection_range: Option<i64>,
    pub endurance: Option<Vec<CheckBox>>,
    pub status: Status,
    pub carrier: Option<String>,
    pub meta: Vec<Meta>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base {
    pub name: String,
    pub class: Option<String>,
    pub ship_type: Option<ShipType>,
    pub mass: Option<u32>,
    pub cost: Option<u32>,
    pub fleet: Option<String>,
    pub status: Status,
    pub armour: Option<Armour>,
    pub damage_track: Vec<Vec<CheckBox>>,
    pub payload: Option<Vec<PayloadBox>>,
    pub meta: Vec<Meta>,
    pub systems: Vec<System>,
    pub sectors: Vec<BaseSector>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseSector {
    pub id: i64,
    pub mass: Option<u32>,
    pub cost: Option<u32>,
    pub armour: Option<Armour>,
    pub damage_track: Vec<Vec<CheckBox>>,
    pub payload: Option<Vec<PayloadBox>>,
    pub meta: Vec<Meta>,
    pub systems: Vec<System>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Terrain {
    pub name: String,
    pub terrain_type: String,
    pub damage_track: Vec<Vec<CheckBox>>,
    pub meta: Vec<Meta>,
}
