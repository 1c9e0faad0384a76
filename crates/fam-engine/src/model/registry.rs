//! The system registry: one row per [`SystemKind`], in this one file, for
//! everything fam asks of a kind as data rather than as rules code: how GZF
//! spells it in each profile and what else it reads as it, its FTJava
//! element, its family, its use (offensive, sustained, ordnance, point
//! defence), its arcs, its ammunition, how a threshold check treats it,
//! whether a reflex field stops it, a beam-family weapon's dice and hits,
//! and the disputed reading a report names for it.
//!
//! [`SystemKind::entry`] is an exhaustive match, so the compiler asks for a
//! new kind's row; [`ROWS`] lists every row once, in the order the GZF
//! reader tries them and suggestions list them. The predicates other code
//! asks (`is_weapon`, `may_point_defend`, `is_one_shot` …) are methods of
//! [`SystemKind`] reading the row; how a weapon rolls its dice stays code in
//! the engine.
//!
//! Invariants (tests below and in fam's `tests/all/registry.rs`): a row's
//! `make` and [`SystemKind::entry`] are inverses; every name a row spells
//! reads back as its kind in its profile, and as no other row's; a row
//! has beam dice exactly when it is of the beam family; only weapons have
//! arcs, point defence and the weapon uses.

use super::{Profile, PulserSetting, SystemKind, TorpedoRange, Warhead};
use BeamDice as D;
use DefaultArcs as A;
use Family as F;
use SystemKind as K;

/// What fam knows of one kind of system.
#[derive(Debug)]
pub struct SystemRow {
    /// GZF names, by profile, and the variant they spell.
    pub names: Names,
    /// The FTJava element, when FTJava has one.
    pub ftjava: Option<FtJava>,
    pub family: Family,
    /// Counts for the crippled test (ft-rules §6.4): offensive weapons that
    /// are not one-shot.
    pub offensive: bool,
    /// Fires every Volley it is plotted, to a reach: the commander plots it
    /// at ships (docs/doctrine.md).
    pub sustained: bool,
    /// FTJava fire orders (`FM.Fire`) may list it (docs/import.md).
    pub fm_fire: bool,
    pub ammo: Ammo,
    pub pd: Pd,
    pub arcs: Arcs,
    pub threshold: Threshold,
    /// Its hits are energy a raised reflex field stops (readings W61).
    pub energy: bool,
    /// A beam-family weapon's dice and hits.
    pub beam: Option<BeamFamily>,
    /// The disputed reading (docs/readings.md) a report names when a battle
    /// carries the kind (`caveats`).
    pub caveat: Option<&'static str>,
    /// The kind of this row with these parameters.
    pub make: fn(Params) -> SystemKind,
}

impl SystemRow {
    /// The largest class its names read (0 for a kind without classes).
    pub fn max_class(&self) -> u8 {
        [self.names.fb1, self.names.ft2]
            .iter()
            .flatten()
            .map(|s| s.classes.max())
            .max()
            .unwrap_or(0)
    }
}

/// What a kind's variant fields hold, all kinds alike: a class (0 for none),
/// a range variant, a warhead, a Pulser setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    pub class: u8,
    pub range: TorpedoRange,
    pub warhead: Warhead,
    pub setting: Option<PulserSetting>,
}

impl Params {
    /// No class, the standard variant and warhead, no setting.
    pub const NONE: Params = Params {
        class: 0,
        range: TorpedoRange::Standard,
        warhead: Warhead::Standard,
        setting: None,
    };

    const fn class(class: u8) -> Params {
        Params { class, ..Params::NONE }
    }
}

/// How a kind is spelled in each profile (`None`: the profile has no name
/// for it, and fam writes the other profile's).
#[derive(Debug, Clone, Copy)]
pub struct Names {
    pub fb1: Option<Spelling>,
    pub ft2: Option<Spelling>,
    /// The variant the name spells before its base.
    pub varies: Varies,
}

impl Names {
    const NONE: Names = Names {
        fb1: None,
        ft2: None,
        varies: Varies::None,
    };

    const fn both(s: Spelling) -> Names {
        Names {
            fb1: Some(s),
            ft2: Some(s),
            varies: Varies::None,
        }
    }

    const fn fb1(s: Spelling) -> Names {
        Names {
            fb1: Some(s),
            ..Names::NONE
        }
    }

    const fn ft2(s: Spelling) -> Names {
        Names {
            ft2: Some(s),
            ..Names::NONE
        }
    }

    const fn each(fb1: Spelling, ft2: Spelling) -> Names {
        Names {
            fb1: Some(fb1),
            ft2: Some(ft2),
            varies: Varies::None,
        }
    }

    const fn varying(self, varies: Varies) -> Names {
        Names { varies, ..self }
    }

    /// The spelling of `profile`.
    pub fn of(&self, profile: Profile) -> Option<&Spelling> {
        match profile {
            Profile::Fb1 => self.fb1.as_ref(),
            Profile::Ft2 => self.ft2.as_ref(),
        }
    }
}

/// One profile's name of a kind: `[class] [variant] base`.
#[derive(Debug, Clone, Copy)]
pub struct Spelling {
    /// The base name fam writes (`Graser` of `Class 2 Graser`).
    pub base: &'static str,
    /// Other base names read as this one (`Vapor Shroud`, `PBL`): they take
    /// the class but no variant.
    pub aliases: &'static [&'static str],
    pub classes: Classes,
}

impl Spelling {
    const fn plain(base: &'static str) -> Spelling {
        Spelling {
            base,
            aliases: &[],
            classes: Classes::None,
        }
    }

    const fn classed(base: &'static str, classes: Classes) -> Spelling {
        Spelling {
            base,
            aliases: &[],
            classes,
        }
    }

    const fn or(self, aliases: &'static [&'static str]) -> Spelling {
        Spelling { aliases, ..self }
    }

    /// The parameters `lower` (lower case, blanks collapsed) spells, if it
    /// is this spelling of a kind varying by `varies`.
    fn read(&self, lower: &str, varies: Varies) -> Option<Params> {
        let (class, rest) = self.classes.read(lower)?;
        if self.aliases.iter().any(|a| rest.eq_ignore_ascii_case(a)) {
            return Some(Params::class(class));
        }
        let (params, rest) = varies.read(rest, Params::class(class));
        rest.eq_ignore_ascii_case(self.base).then_some(params)
    }

    /// Every name this spelling reads, as usually written: each class, each
    /// variant, each alias.
    fn every_name(&self, varies: Varies, out: &mut Vec<String>) {
        for class in self.classes.every() {
            let Some(head) = self.classes.prefix(class) else {
                continue;
            };
            for variant in varies.prefixes() {
                out.push(format!("{head}{variant}{}", self.base));
            }
            out.extend(self.aliases.iter().map(|a| format!("{head}{a}")));
        }
    }
}

/// How a class is spelled before the base name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Classes {
    /// No class.
    None,
    /// `Class N …`, N from 1 to the number given.
    Class(u8),
    /// `N …` (FT2 railguns), N from 1 to the number given.
    Number(u8),
    /// `A …`, `B …`, `C …` (also `A-…`) for classes 3, 2, 1 (FT2 batteries).
    Letter,
}

impl Classes {
    /// The largest class read (0 without classes).
    pub fn max(self) -> u8 {
        match self {
            Classes::None => 0,
            Classes::Class(max) | Classes::Number(max) => max,
            Classes::Letter => 3,
        }
    }

    /// The classes read, each once (0 alone without classes).
    fn every(self) -> Vec<u8> {
        match self {
            Classes::None => vec![0],
            Classes::Class(max) | Classes::Number(max) => (1..=max).collect(),
            Classes::Letter => vec![3, 2, 1],
        }
    }

    /// What goes before the variant and base for `class`; `None` when this
    /// spelling cannot write it (an FT2 battery of class 4 or more).
    pub fn prefix(self, class: u8) -> Option<String> {
        match self {
            Classes::None => Some(String::new()),
            Classes::Class(_) => Some(format!("Class {class} ")),
            Classes::Number(_) => Some(format!("{class} ")),
            Classes::Letter => match class {
                3 => Some("A ".into()),
                2 => Some("B ".into()),
                1 => Some("C ".into()),
                _ => None,
            },
        }
    }

    /// The class `lower` starts with and the rest of it.
    fn read(self, lower: &str) -> Option<(u8, &str)> {
        match self {
            Classes::None => Some((0, lower)),
            Classes::Class(max) => {
                let (n, rest) = lower.strip_prefix("class ")?.split_once(' ')?;
                let class = n.parse::<u8>().ok().filter(|c| (1..=max).contains(c))?;
                Some((class, rest))
            }
            Classes::Number(max) => {
                let (n, rest) = lower.split_once(' ')?;
                let class = n.parse::<u8>().ok().filter(|c| (1..=max).contains(c))?;
                (n == class.to_string()).then_some((class, rest))
            }
            Classes::Letter => {
                let (letter, rest) = lower.split_at_checked(1)?;
                let rest = rest.strip_prefix(' ').or_else(|| rest.strip_prefix('-'))?;
                let class = match letter {
                    "a" => 3,
                    "b" => 2,
                    "c" => 1,
                    _ => return None,
                };
                Some((class, rest))
            }
        }
    }
}

/// The variant a name spells between its class and its base.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Varies {
    None,
    /// `Long Range` (`LR`) or `Short Range` (`SR`), or nothing (standard).
    Range,
    /// `EMP` or `Needle`, or nothing (standard).
    Warhead,
}

/// Range variants as written and as also read.
const RANGES: [(&str, TorpedoRange); 4] = [
    ("long range ", TorpedoRange::Long),
    ("lr ", TorpedoRange::Long),
    ("short range ", TorpedoRange::Short),
    ("sr ", TorpedoRange::Short),
];

/// Warheads as written.
const WARHEADS: [(&str, Warhead); 2] = [("emp ", Warhead::Emp), ("needle ", Warhead::Needle)];

impl Varies {
    /// The variant `rest` starts with, put into `params`, and what follows.
    fn read(self, rest: &str, params: Params) -> (Params, &str) {
        match self {
            Varies::None => (params, rest),
            Varies::Range => RANGES
                .iter()
                .find_map(|(p, range)| {
                    Some((
                        Params {
                            range: *range,
                            ..params
                        },
                        rest.strip_prefix(*p)?,
                    ))
                })
                .unwrap_or((params, rest)),
            Varies::Warhead => WARHEADS
                .iter()
                .find_map(|(p, warhead)| {
                    Some((
                        Params {
                            warhead: *warhead,
                            ..params
                        },
                        rest.strip_prefix(*p)?,
                    ))
                })
                .unwrap_or((params, rest)),
        }
    }

    /// The variant's words as fam writes them.
    pub fn prefix(self, params: Params) -> &'static str {
        match self {
            Varies::None => "",
            Varies::Range => match params.range {
                TorpedoRange::Standard => "",
                TorpedoRange::Long => "Long Range ",
                TorpedoRange::Short => "Short Range ",
            },
            Varies::Warhead => match params.warhead {
                Warhead::Standard => "",
                Warhead::Emp => "EMP ",
                Warhead::Needle => "Needle ",
            },
        }
    }

    /// Every variant's words as usually written.
    fn prefixes(self) -> &'static [&'static str] {
        match self {
            Varies::None => &[""],
            Varies::Range => &["", "Long Range ", "LR ", "Short Range ", "SR "],
            Varies::Warhead => &["", "EMP ", "Needle "],
        }
    }
}

/// Where an FTJava element of a system goes in the `Ship` element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FtSection {
    /// A child of the `Ship` element itself (the FTL drive).
    Ship,
    Electronics,
    Defenses,
    Weapons,
}

/// A kind's FTJava element (docs/import.md).
#[derive(Debug, Clone, Copy)]
pub struct FtJava {
    pub section: FtSection,
    /// The element fam writes.
    pub element: &'static str,
    /// Other elements the import reads as this kind.
    pub aliases: &'static [&'static str],
    /// How the element's `rating` gives the class, when it does.
    pub rating: Option<Rating>,
    pub variant: FtVariant,
    /// Arcs an imported weapon gets when the element has no `arcs`
    /// (readings I5, I24, I26, I34, I37).
    pub arcs: DefaultArcs,
}

impl FtJava {
    const fn new(section: FtSection, element: &'static str) -> FtJava {
        FtJava {
            section,
            element,
            aliases: &[],
            rating: None,
            variant: FtVariant::Plain,
            arcs: DefaultArcs::None,
        }
    }

    const fn weapon(element: &'static str, arcs: DefaultArcs) -> FtJava {
        FtJava {
            arcs,
            ..FtJava::new(FtSection::Weapons, element)
        }
    }

    const fn rated(self, rating: Rating) -> FtJava {
        FtJava {
            rating: Some(rating),
            ..self
        }
    }
}

/// How the import names a rated element in its errors: `what` (else the
/// element in back-quotes) and a `note` after the classes read.
#[derive(Debug, Clone, Copy)]
pub struct Rating {
    pub what: Option<&'static str>,
    pub note: &'static str,
}

impl Rating {
    const PLAIN: Rating = Rating { what: None, note: "" };
}

/// How FTJava tells a kind's variants apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FtVariant {
    /// The element names the one kind (every variant of a kind written alike).
    Plain,
    /// `LongRange` or `ShortRange` before the element (pulse torpedoes).
    RangeInName,
    /// The range variant is the `rangeIncrement` attribute (K-guns).
    RangeIncrement,
    /// Only the standard warhead has the element (heavy missiles).
    StandardOnly,
}

/// Arcs of an imported weapon whose element has none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultArcs {
    None,
    /// All six arcs.
    AllRound,
    /// `F`.
    Fore,
    /// `FP F FS`.
    ForeThree,
    /// All round at class 1, else `F` (K-guns, readings I24).
    AllRoundAtClassOne,
}

/// What a kind is, broadly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Beam batteries.
    Beam,
    /// The beam family of Continuum: grasers, heavy and high-intensity
    /// grasers, phasers, Gatling batteries, twin particle arrays, meson
    /// projectors, Pulsers, plasma cannons, EMP projectors.
    BeamFamily,
    /// Projectile weapons: pulse torpedoes, K-guns, boarding torpedoes.
    Projectile,
    /// Ordnance: salvo launchers and racks, heavy missiles, submunition and
    /// MKP packs, rocket pods, antimatter missiles.
    Ordnance,
    /// Point defence: PDS, ADAF, scatterguns.
    PointDefence,
    Needle,
    /// Every other weapon: AA megabatteries, ortillery, plasma bolts, fusion
    /// arrays, mines, wave guns, nova cannons, railguns, energy pulses.
    OtherWeapon,
    /// Screen generators, advanced screens, vapour shrouds.
    Screen,
    /// Sensors of every grade.
    Sensors,
    /// Command bridge, power core, life support.
    Core,
    /// Every other system that is no weapon.
    Support,
    /// A system the model does not know (`--inert-unknown-systems`).
    Inert,
}

impl Family {
    pub fn is_weapon(self) -> bool {
        match self {
            Family::Beam
            | Family::BeamFamily
            | Family::Projectile
            | Family::Ordnance
            | Family::PointDefence
            | Family::Needle
            | Family::OtherWeapon => true,
            Family::Screen | Family::Sensors | Family::Core | Family::Support | Family::Inert => false,
        }
    }
}

/// A kind's ammunition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ammo {
    /// None: it fires every Volley.
    None,
    /// A magazine of salvo loads (SMM).
    Magazine,
    /// Draws its loads from a magazine (SML).
    FromMagazine,
    /// One load, spent when it launches (SMR, heavy missiles).
    Rack,
    /// One shot, spent when fired in range or not (packs and pods,
    /// fm-readings 15).
    Pack,
    /// One shot, spent when it defends (scatterguns).
    Shot,
}

/// How a kind may defend against missiles and small craft (ft-rules §5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pd {
    No,
    /// A point-defence mount on the PDS table, defending every Volley,
    /// plotted or not, and able to fire at ships (PDS; ADAF, its own
    /// area-defence mount: `area`).
    Mount {
        area: bool,
    },
    /// One shot of 1d6 kills, its own area-defence mount (scatterguns).
    Scatter,
    /// At class 1, on the class-1 beam table, its own ship only: with the
    /// reroll (beams) or without it, at −1 (EMP projectors, readings W47).
    ClassOne {
        reroll: bool,
    },
    /// Fires as one PDS instead of at ships (phasers, Gatling batteries,
    /// twin particle arrays, meson projectors; Pulsers not set short).
    AsPds,
    /// At class 1, fires as a PDS at −1, its own ship only (K-guns,
    /// readings W41).
    AsPdsClassOne,
}

/// Whether a kind carries firing arcs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arcs {
    /// No arcs: not a weapon.
    None,
    /// A weapon that needs none (it fires all round, or at no ship):
    /// `fam check` does not ask for a `Firing-Arc:`.
    Optional,
    /// A weapon `fam check` expects a `Firing-Arc:` of.
    Needed,
}

/// How a threshold check treats a kind (ft-rules §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Threshold {
    Normal,
    /// Rolls at −1 (command bridge, power core, life support).
    Core,
    /// Rolls at +1 and a 6 destroys it (enhanced and superior sensors).
    Sensors,
    /// Its stored ordnance is lost for good: destroyed, not damaged.
    Stores,
}

/// A beam-family weapon's dice by range and what a point scored does
/// (ft-rules §4.5-4.6; the engine's `tables::beam_family_dice`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BeamFamily {
    pub dice: BeamDice,
    pub hit: Hit,
}

/// Dice a beam-family weapon rolls at a range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BeamDice {
    /// As a beam battery of its class (12 MU bands).
    ByClass,
    /// Its class less one per further 18 MU band (heavy grasers).
    Heavy,
    /// `dice` to `reach` MU.
    Fixed { dice: u32, reach: u32 },
    /// By the Pulser's setting; none while it has none.
    Pulser,
}

/// What a beam-family weapon's point scored does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hit {
    /// One point of damage, rerolls on natural 6s.
    Beam,
    /// 1d3 semi-armour-piercing, rerolls penetrating (grasers, phasers).
    Graser,
    /// 1d6 normal damage without rerolls; `reroll`: natural 6s reroll into
    /// penetrating 1d6 (high-intensity grasers, readings W58).
    HeavyGraser { reroll: bool },
    /// A die of d6 − 2 − screen points (plasma cannons).
    Plasma,
    /// A threshold test, no damage (EMP projectors).
    Emp,
}

/// A weapon of `family` made by `make`, with nothing else said.
const fn weapon(family: Family, make: fn(Params) -> SystemKind) -> SystemRow {
    SystemRow {
        names: Names::NONE,
        ftjava: None,
        family,
        offensive: false,
        sustained: false,
        fm_fire: false,
        ammo: Ammo::None,
        pd: Pd::No,
        arcs: Arcs::Needed,
        threshold: Threshold::Normal,
        energy: false,
        beam: None,
        caveat: None,
        make,
    }
}

/// A weapon that fires every Volley to a reach and counts as offensive.
const fn gun(family: Family, make: fn(Params) -> SystemKind) -> SystemRow {
    SystemRow {
        offensive: true,
        sustained: true,
        fm_fire: true,
        ..weapon(family, make)
    }
}

/// A beam-family weapon of `dice` and `hit`.
const fn beam_family(dice: BeamDice, hit: Hit, make: fn(Params) -> SystemKind) -> SystemRow {
    SystemRow {
        energy: true,
        beam: Some(BeamFamily { dice, hit }),
        ..gun(Family::BeamFamily, make)
    }
}

/// A system of `family` that is no weapon.
const fn system(family: Family, make: fn(Params) -> SystemKind) -> SystemRow {
    SystemRow {
        arcs: Arcs::None,
        ..weapon(family, make)
    }
}

/// `Class N <base>` in both profiles, N from 1 to 6.
const fn rated_both(base: &'static str) -> Names {
    Names::both(Spelling::classed(base, Classes::Class(6)))
}

pub static BEAM: SystemRow = SystemRow {
    names: Names::each(
        Spelling::classed("Battery", Classes::Class(9)),
        Spelling::classed("Battery", Classes::Letter),
    ),
    ftjava: Some(FtJava::weapon("BeamBattery", A::AllRound).rated(Rating {
        what: Some("a beam battery"),
        note: "",
    })),
    pd: Pd::ClassOne { reroll: true },
    energy: true,
    ..gun(F::Beam, |p| K::Beam { class: p.class })
};

pub static AA_MEGA_BATTERY: SystemRow = SystemRow {
    names: Names::ft2(Spelling::plain("AA MegaBattery")),
    offensive: true,
    energy: true,
    ..weapon(F::OtherWeapon, |_| K::AaMegaBattery)
};

pub static NEEDLE_BEAM: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Needle Beam")),
    ftjava: Some(FtJava::weapon("NeedleBeam", A::Fore)),
    fm_fire: false,
    ..gun(F::Needle, |_| K::NeedleBeam)
};

pub static ORTILLERY: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Ortillery")),
    ftjava: Some(FtJava::weapon("Ortillery", A::None)),
    arcs: Arcs::Optional,
    ..weapon(F::OtherWeapon, |_| K::Ortillery)
};

pub static PDS: SystemRow = SystemRow {
    names: Names::each(Spelling::plain("PDS"), Spelling::plain("PDAF")),
    ftjava: Some(FtJava::weapon("PointDefense", A::None)),
    fm_fire: true,
    pd: Pd::Mount { area: false },
    arcs: Arcs::Optional,
    ..weapon(F::PointDefence, |_| K::Pds)
};

pub static ADAF: SystemRow = SystemRow {
    names: Names::ft2(Spelling::plain("ADAF")),
    pd: Pd::Mount { area: true },
    arcs: Arcs::Optional,
    ..weapon(F::PointDefence, |_| K::Adaf)
};

pub static PULSE_TORPEDO: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Pulse Torpedo")).varying(Varies::Range),
    ftjava: Some(FtJava {
        variant: FtVariant::RangeInName,
        ..FtJava::weapon("PulseTorpedo", A::Fore)
    }),
    ..gun(F::Projectile, |p| K::PulseTorpedo { range: p.range })
};

pub static SUBMUNITION_PACK: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Submunition Pack")),
    ftjava: Some(FtJava::weapon("SubmunitionPack", A::Fore)),
    fm_fire: true,
    ammo: Ammo::Pack,
    ..weapon(F::Ordnance, |_| K::SubmunitionPack)
};

pub static K_GUN: SystemRow = SystemRow {
    names: rated_both("K-Gun").varying(Varies::Range),
    ftjava: Some(FtJava {
        variant: FtVariant::RangeIncrement,
        ..FtJava::weapon("KineticGun", A::AllRoundAtClassOne).rated(Rating {
            what: Some("a kinetic gun"),
            note: " (K-1 to K-6)",
        })
    }),
    pd: Pd::AsPdsClassOne,
    ..gun(F::Projectile, |p| K::KGun {
        class: p.class,
        range: p.range,
    })
};

pub static MKP: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("MKP").or(&["Multiple Kinetic Penetrator Pack"])),
    ftjava: Some(FtJava::weapon("MultipleKineticPenetratorPack", A::Fore)),
    fm_fire: true,
    ammo: Ammo::Pack,
    ..weapon(F::Ordnance, |_| K::Mkp)
};

pub static PLASMA_BOLT: SystemRow = SystemRow {
    names: Names::both(Spelling::classed("Plasma Bolt Launcher", Classes::Class(6)).or(&["PBL"])),
    ftjava: Some(FtJava::weapon("PlasmaBoltLauncher", A::ForeThree).rated(Rating {
        what: Some("a plasma bolt launcher"),
        note: " (the bolt's class)",
    })),
    caveat: Some("W37"),
    ..gun(F::OtherWeapon, |p| K::PlasmaBolt { class: p.class })
};

pub static ROCKET_POD: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Rocket Pod")),
    ftjava: Some(FtJava::weapon("RocketPod", A::Fore)),
    fm_fire: true,
    ammo: Ammo::Pack,
    caveat: Some("W50"),
    ..weapon(F::Ordnance, |_| K::RocketPod)
};

pub static ANTIMATTER_MISSILE: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Antimatter Missile").or(&["Anti-matter Missile"])),
    fm_fire: true,
    ammo: Ammo::Pack,
    threshold: Threshold::Stores,
    caveat: Some("W54"),
    ..weapon(F::Ordnance, |_| K::AntimatterMissile)
};

pub static BOARDING_TORPEDO: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Boarding Torpedo")),
    caveat: Some("W56"),
    ..gun(F::Projectile, |_| K::BoardingTorpedo)
};

pub static GRASER: SystemRow = SystemRow {
    names: rated_both("Graser"),
    ftjava: Some(FtJava::weapon("Graser", A::AllRound).rated(Rating::PLAIN)),
    caveat: Some("W20"),
    ..beam_family(D::ByClass, Hit::Graser, |p| K::Graser { class: p.class })
};

pub static HEAVY_GRASER: SystemRow = SystemRow {
    names: rated_both("Heavy Graser"),
    ftjava: Some(FtJava::weapon("HeavyGraser", A::AllRound).rated(Rating::PLAIN)),
    ..beam_family(D::Heavy, Hit::HeavyGraser { reroll: false }, |p| K::HeavyGraser {
        class: p.class,
    })
};

pub static HIGH_INTENSITY_GRASER: SystemRow = SystemRow {
    names: rated_both("High Intensity Graser"),
    ftjava: Some(FtJava::weapon("HighIntensityGraser", A::AllRound).rated(Rating::PLAIN)),
    caveat: Some("W58"),
    ..beam_family(D::Heavy, Hit::HeavyGraser { reroll: true }, |p| {
        K::HighIntensityGraser { class: p.class }
    })
};

pub static PHASER: SystemRow = SystemRow {
    names: rated_both("Phaser"),
    ftjava: Some(FtJava::weapon("Phaser", A::AllRound).rated(Rating::PLAIN)),
    pd: Pd::AsPds,
    caveat: Some("W20"),
    ..beam_family(D::ByClass, Hit::Graser, |p| K::Phaser { class: p.class })
};

pub static GATLING_BATTERY: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Gatling Battery")),
    ftjava: Some(FtJava::weapon("GatlingBattery", A::AllRound)),
    pd: Pd::AsPds,
    ..beam_family(D::Fixed { dice: 6, reach: 12 }, Hit::Beam, |_| K::GatlingBattery)
};

pub static TWIN_PARTICLE_ARRAY: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Twin Particle Array")),
    ftjava: Some(FtJava::weapon("TwinParticleArray", A::AllRound)),
    pd: Pd::AsPds,
    ..beam_family(D::Fixed { dice: 2, reach: 24 }, Hit::Beam, |_| K::TwinParticleArray)
};

pub static MESON_PROJECTOR: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Meson Projector")),
    ftjava: Some(FtJava::weapon("MesonProjector", A::AllRound)),
    pd: Pd::AsPds,
    ..beam_family(D::Fixed { dice: 1, reach: 48 }, Hit::Beam, |_| K::MesonProjector)
};

pub static PULSER: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Pulser")),
    // FTJava keeps no setting: the commander chooses (readings I27).
    ftjava: Some(FtJava::weapon("Pulser", A::AllRound)),
    pd: Pd::AsPds,
    caveat: Some("W26"),
    ..beam_family(D::Pulser, Hit::Beam, |p| K::Pulser { setting: p.setting })
};

pub static PLASMA_CANNON: SystemRow = SystemRow {
    names: rated_both("Plasma Cannon"),
    ftjava: Some(FtJava::weapon("PlasmaCannon", A::AllRound).rated(Rating::PLAIN)),
    ..beam_family(D::ByClass, Hit::Plasma, |p| K::PlasmaCannon { class: p.class })
};

pub static EMP_PROJECTOR: SystemRow = SystemRow {
    names: rated_both("EMP Projector"),
    ftjava: Some(FtJava::weapon("EMPProjector", A::AllRound).rated(Rating::PLAIN)),
    pd: Pd::ClassOne { reroll: false },
    energy: false,
    caveat: Some("W43"),
    ..beam_family(D::ByClass, Hit::Emp, |p| K::EmpProjector { class: p.class })
};

pub static FUSION_ARRAY: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Fusion Array")),
    fm_fire: false,
    energy: true,
    caveat: Some("W57"),
    ..gun(F::OtherWeapon, |_| K::FusionArray)
};

pub static MISSILE: SystemRow = SystemRow {
    names: Names::each(
        Spelling::plain("Missile").or(&["Standard Missile"]),
        Spelling::plain("Missile"),
    )
    .varying(Varies::Warhead),
    ftjava: Some(FtJava {
        variant: FtVariant::StandardOnly,
        ..FtJava::weapon("MissileLauncher", A::ForeThree)
    }),
    fm_fire: true,
    ammo: Ammo::Rack,
    threshold: Threshold::Stores,
    ..weapon(F::Ordnance, |p| K::Missile { warhead: p.warhead })
};

pub static MINELAYER: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Minelayer")),
    ..weapon(F::OtherWeapon, |_| K::Minelayer)
};

pub static MINESWEEPER: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Minesweeper")),
    ftjava: Some(FtJava::weapon("Minesweeper", A::None)),
    arcs: Arcs::Optional,
    ..weapon(F::OtherWeapon, |_| K::Minesweeper)
};

pub static WAVE_GUN: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Wave Gun")),
    fm_fire: false,
    caveat: Some("W59"),
    ..gun(F::OtherWeapon, |_| K::WaveGun)
};

pub static NOVA_CANNON: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Nova Cannon")),
    offensive: true,
    caveat: Some("W63"),
    ..weapon(F::OtherWeapon, |_| K::NovaCannon)
};

pub static SML: SystemRow = SystemRow {
    names: Names::fb1(Spelling::plain("SML")),
    ftjava: Some(FtJava::weapon("SalvoMissileLauncher", A::ForeThree)),
    offensive: true,
    fm_fire: true,
    ammo: Ammo::FromMagazine,
    ..weapon(F::Ordnance, |_| K::Sml)
};

pub static SMR: SystemRow = SystemRow {
    names: Names::fb1(Spelling::plain("SMR")),
    ftjava: Some(FtJava::weapon("SalvoMissileRack", A::ForeThree)),
    fm_fire: true,
    ammo: Ammo::Rack,
    threshold: Threshold::Stores,
    ..weapon(F::Ordnance, |_| K::Smr)
};

pub static SMM: SystemRow = SystemRow {
    names: Names::fb1(Spelling::plain("SMM")),
    ftjava: Some(FtJava::weapon("SalvoMissileMagazine", A::None)),
    ammo: Ammo::Magazine,
    threshold: Threshold::Stores,
    ..system(F::Support, |_| K::Smm)
};

pub static RAILGUN: SystemRow = SystemRow {
    names: Names::ft2(Spelling::classed("Railgun", Classes::Number(3))),
    offensive: true,
    ..weapon(F::OtherWeapon, |p| K::Railgun { class: p.class })
};

pub static ENERGY_PULSE: SystemRow = SystemRow {
    names: Names::ft2(Spelling::plain("Energy Pulse")),
    offensive: true,
    ..weapon(F::OtherWeapon, |_| K::EnergyPulse)
};

pub static SCATTERGUN: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Scattergun")),
    ftjava: Some(FtJava::weapon("Scattergun", A::None)),
    ammo: Ammo::Shot,
    pd: Pd::Scatter,
    arcs: Arcs::Optional,
    ..weapon(F::PointDefence, |_| K::Scattergun)
};

pub static FTL: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("FTL")),
    ftjava: Some(FtJava::new(FtSection::Ship, "FTLDrive")),
    ..system(F::Support, |_| K::Ftl)
};

pub static FIRE_CONTROL: SystemRow = SystemRow {
    names: Names::each(Spelling::plain("FCS"), Spelling::plain("FireCon")),
    ftjava: Some(FtJava::new(FtSection::Electronics, "FireControl")),
    ..system(F::Support, |_| K::FireControl)
};

pub static SCREEN_GENERATOR: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Screen Generator")),
    ftjava: Some(FtJava::new(FtSection::Defenses, "Screen")),
    ..system(F::Screen, |_| K::ScreenGenerator)
};

pub static ADVANCED_SCREEN: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Advanced Screen Generator").or(&["Advanced Screen"])),
    ftjava: Some(FtJava::new(FtSection::Defenses, "AdvancedScreen")),
    ..system(F::Screen, |_| K::AdvancedScreen)
};

pub static VAPOUR_SHROUD: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Vapour Shroud").or(&["Vapor Shroud"])),
    ftjava: Some(FtJava::new(FtSection::Defenses, "VapourShroud")),
    caveat: Some("W38"),
    ..system(F::Screen, |_| K::VapourShroud)
};

pub static REFLEX_FIELD: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Reflex Field")),
    caveat: Some("W60"),
    ..system(F::Support, |_| K::ReflexField)
};

pub static ADFC: SystemRow = SystemRow {
    names: Names::fb1(Spelling::plain("ADFC")),
    ftjava: Some(FtJava::new(FtSection::Electronics, "AreaDefenseFireControl")),
    ..system(F::Support, |_| K::Adfc)
};

pub static CLOAKING_FIELD: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Cloaking Field")),
    ftjava: Some(FtJava {
        aliases: &["CloakingDevice"],
        ..FtJava::new(FtSection::Defenses, "CloakingField")
    }),
    ..system(F::Support, |_| K::CloakingField)
};

pub static SENSORS: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Sensors")),
    ..system(F::Sensors, |_| K::Sensors)
};

pub static ENHANCED_SENSORS: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Enhanced Sensors")),
    ftjava: Some(FtJava::new(FtSection::Electronics, "EnhancedSensors")),
    threshold: Threshold::Sensors,
    ..system(F::Sensors, |_| K::EnhancedSensors)
};

pub static SUPERIOR_SENSORS: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Superior Sensors")),
    ftjava: Some(FtJava::new(FtSection::Electronics, "SuperiorSensors")),
    threshold: Threshold::Sensors,
    ..system(F::Sensors, |_| K::SuperiorSensors)
};

pub static INDIVIDUAL_ECM: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Individual ECM")),
    ftjava: Some(FtJava::new(FtSection::Defenses, "ECMSuite")),
    ..system(F::Support, |_| K::IndividualEcm)
};

pub static AREA_ECM: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Area ECM")),
    ftjava: Some(FtJava::new(FtSection::Defenses, "AreaECMSuite")),
    ..system(F::Support, |_| K::AreaEcm)
};

pub static HANGAR_BAY: SystemRow = SystemRow {
    names: Names::each(Spelling::plain("Hangar Bay"), Spelling::plain("Fighter Bay")),
    ftjava: Some(FtJava::new(FtSection::Weapons, "FighterBay")),
    ..system(F::Support, |_| K::HangarBay)
};

pub static DROPSHIP_BAY: SystemRow = SystemRow {
    names: Names::ft2(Spelling::plain("Dropship Bay")),
    ..system(F::Support, |_| K::DropshipBay)
};

pub static WEASEL: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Weasel")),
    ..system(F::Support, |_| K::Weasel)
};

pub static DRONE: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Drone")),
    ..system(F::Support, |_| K::Drone)
};

pub static DOCK: SystemRow = SystemRow {
    names: Names::both(Spelling::plain("Dock")),
    ..system(F::Support, |_| K::Dock)
};

pub static COMMAND_BRIDGE: SystemRow = SystemRow {
    names: Names::fb1(Spelling::plain("Command Bridge")),
    threshold: Threshold::Core,
    ..system(F::Core, |_| K::CommandBridge)
};

pub static POWER_CORE: SystemRow = SystemRow {
    names: Names::fb1(Spelling::plain("Power Core")),
    threshold: Threshold::Core,
    ..system(F::Core, |_| K::PowerCore)
};

pub static LIFE_SUPPORT: SystemRow = SystemRow {
    names: Names::fb1(Spelling::plain("LSS")),
    threshold: Threshold::Core,
    ..system(F::Core, |_| K::LifeSupport)
};

pub static DAMAGE_CONTROL_PARTY: SystemRow = SystemRow {
    names: Names::ft2(Spelling::plain("Damage Control Party")),
    ..system(F::Support, |_| K::DamageControlParty)
};

/// An inert system: its name is its own (no spelling), it does nothing.
pub static INERT: SystemRow = system(F::Inert, |_| K::Inert(String::new()));

/// Every row once, in the order the GZF reader tries them.
pub static ROWS: [&SystemRow; 59] = [
    &BEAM,
    &AA_MEGA_BATTERY,
    &NEEDLE_BEAM,
    &ORTILLERY,
    &PDS,
    &ADAF,
    &PULSE_TORPEDO,
    &SUBMUNITION_PACK,
    &K_GUN,
    &MKP,
    &PLASMA_BOLT,
    &ROCKET_POD,
    &ANTIMATTER_MISSILE,
    &BOARDING_TORPEDO,
    &GRASER,
    &HEAVY_GRASER,
    &HIGH_INTENSITY_GRASER,
    &PHASER,
    &GATLING_BATTERY,
    &TWIN_PARTICLE_ARRAY,
    &MESON_PROJECTOR,
    &PULSER,
    &PLASMA_CANNON,
    &EMP_PROJECTOR,
    &FUSION_ARRAY,
    &MISSILE,
    &MINELAYER,
    &MINESWEEPER,
    &WAVE_GUN,
    &NOVA_CANNON,
    &SML,
    &SMR,
    &SMM,
    &RAILGUN,
    &ENERGY_PULSE,
    &SCATTERGUN,
    &FTL,
    &FIRE_CONTROL,
    &SCREEN_GENERATOR,
    &ADVANCED_SCREEN,
    &VAPOUR_SHROUD,
    &REFLEX_FIELD,
    &ADFC,
    &CLOAKING_FIELD,
    &SENSORS,
    &ENHANCED_SENSORS,
    &SUPERIOR_SENSORS,
    &INDIVIDUAL_ECM,
    &AREA_ECM,
    &HANGAR_BAY,
    &DROPSHIP_BAY,
    &WEASEL,
    &DRONE,
    &DOCK,
    &COMMAND_BRIDGE,
    &POWER_CORE,
    &LIFE_SUPPORT,
    &DAMAGE_CONTROL_PARTY,
    &INERT,
];

/// Every name the GZF reader reads in `profile`, as usually written (each
/// class, variant and alias), row by row: the names a misspelt one is
/// compared with.
pub fn names(profile: Profile) -> Vec<String> {
    let mut out = Vec::new();
    for row in ROWS {
        if let Some(s) = row.names.of(profile) {
            s.every_name(row.names.varies, &mut out);
        }
    }
    out
}

impl SystemKind {
    /// Whether this is the kind `plain`, one without parameters
    /// (`FireControl`, `NovaCannon` …): one comparison of variants, where
    /// `==` calls the derived comparison and drops the kind it built, in
    /// the engine's hottest loops (screens, Fire Controls, per attack).
    /// Kinds with parameters (`Beam { class }` …) compare with `==`.
    #[inline]
    pub fn is(&self, plain: &SystemKind) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(plain)
    }

    /// The kind's row and what its fields hold: one arm per kind.
    #[inline]
    pub fn entry(&self) -> (&'static SystemRow, Params) {
        use SystemKind::*;
        match *self {
            Beam { class } => (&BEAM, Params::class(class)),
            AaMegaBattery => (&AA_MEGA_BATTERY, Params::NONE),
            NeedleBeam => (&NEEDLE_BEAM, Params::NONE),
            Ortillery => (&ORTILLERY, Params::NONE),
            Pds => (&PDS, Params::NONE),
            Adaf => (&ADAF, Params::NONE),
            PulseTorpedo { range } => (&PULSE_TORPEDO, Params { range, ..Params::NONE }),
            SubmunitionPack => (&SUBMUNITION_PACK, Params::NONE),
            KGun { class, range } => (
                &K_GUN,
                Params {
                    range,
                    ..Params::class(class)
                },
            ),
            Mkp => (&MKP, Params::NONE),
            PlasmaBolt { class } => (&PLASMA_BOLT, Params::class(class)),
            RocketPod => (&ROCKET_POD, Params::NONE),
            AntimatterMissile => (&ANTIMATTER_MISSILE, Params::NONE),
            BoardingTorpedo => (&BOARDING_TORPEDO, Params::NONE),
            Graser { class } => (&GRASER, Params::class(class)),
            HeavyGraser { class } => (&HEAVY_GRASER, Params::class(class)),
            HighIntensityGraser { class } => (&HIGH_INTENSITY_GRASER, Params::class(class)),
            Phaser { class } => (&PHASER, Params::class(class)),
            GatlingBattery => (&GATLING_BATTERY, Params::NONE),
            TwinParticleArray => (&TWIN_PARTICLE_ARRAY, Params::NONE),
            MesonProjector => (&MESON_PROJECTOR, Params::NONE),
            Pulser { setting } => (
                &PULSER,
                Params {
                    setting,
                    ..Params::NONE
                },
            ),
            PlasmaCannon { class } => (&PLASMA_CANNON, Params::class(class)),
            EmpProjector { class } => (&EMP_PROJECTOR, Params::class(class)),
            FusionArray => (&FUSION_ARRAY, Params::NONE),
            Missile { warhead } => (
                &MISSILE,
                Params {
                    warhead,
                    ..Params::NONE
                },
            ),
            Minelayer => (&MINELAYER, Params::NONE),
            Minesweeper => (&MINESWEEPER, Params::NONE),
            WaveGun => (&WAVE_GUN, Params::NONE),
            NovaCannon => (&NOVA_CANNON, Params::NONE),
            Sml => (&SML, Params::NONE),
            Smr => (&SMR, Params::NONE),
            Smm => (&SMM, Params::NONE),
            Railgun { class } => (&RAILGUN, Params::class(class)),
            EnergyPulse => (&ENERGY_PULSE, Params::NONE),
            Scattergun => (&SCATTERGUN, Params::NONE),
            Ftl => (&FTL, Params::NONE),
            FireControl => (&FIRE_CONTROL, Params::NONE),
            ScreenGenerator => (&SCREEN_GENERATOR, Params::NONE),
            AdvancedScreen => (&ADVANCED_SCREEN, Params::NONE),
            VapourShroud => (&VAPOUR_SHROUD, Params::NONE),
            ReflexField => (&REFLEX_FIELD, Params::NONE),
            Adfc => (&ADFC, Params::NONE),
            CloakingField => (&CLOAKING_FIELD, Params::NONE),
            Sensors => (&SENSORS, Params::NONE),
            EnhancedSensors => (&ENHANCED_SENSORS, Params::NONE),
            SuperiorSensors => (&SUPERIOR_SENSORS, Params::NONE),
            IndividualEcm => (&INDIVIDUAL_ECM, Params::NONE),
            AreaEcm => (&AREA_ECM, Params::NONE),
            HangarBay => (&HANGAR_BAY, Params::NONE),
            DropshipBay => (&DROPSHIP_BAY, Params::NONE),
            Weasel => (&WEASEL, Params::NONE),
            Drone => (&DRONE, Params::NONE),
            Dock => (&DOCK, Params::NONE),
            CommandBridge => (&COMMAND_BRIDGE, Params::NONE),
            PowerCore => (&POWER_CORE, Params::NONE),
            LifeSupport => (&LIFE_SUPPORT, Params::NONE),
            DamageControlParty => (&DAMAGE_CONTROL_PARTY, Params::NONE),
            Inert(_) => (&INERT, Params::NONE),
        }
    }

    /// The kind's row.
    #[inline]
    pub fn row(&self) -> &'static SystemRow {
        self.entry().0
    }

    /// What the kind's fields hold.
    #[inline]
    pub fn params(&self) -> Params {
        self.entry().1
    }

    #[inline]
    pub fn family(&self) -> Family {
        self.row().family
    }

    /// The profile's name for this kind: `[class] [variant] base` of the
    /// profile's spelling, or of the other profile's where the profile has
    /// none for it (or cannot write its class); an inert system's own name.
    pub fn name(&self, profile: Profile) -> String {
        if let SystemKind::Inert(name) = self {
            return name.clone();
        }
        let (row, params) = self.entry();
        let other = match profile {
            Profile::Fb1 => Profile::Ft2,
            Profile::Ft2 => Profile::Fb1,
        };
        let written = |s: &Spelling| {
            let head = s.classes.prefix(params.class)?;
            Some(format!("{head}{}{}", row.names.varies.prefix(params), s.base))
        };
        row.names
            .of(profile)
            .and_then(written)
            .or_else(|| row.names.of(other).and_then(written))
            .unwrap_or_default()
    }

    /// The kind `lower` (a name in lower case, runs of blanks as one) names
    /// in `profile`; else the other profile, when the name is one of its, or
    /// `None`.
    pub fn from_name(lower: &str, profile: Profile) -> Result<SystemKind, Option<Profile>> {
        let other = match profile {
            Profile::Fb1 => Profile::Ft2,
            Profile::Ft2 => Profile::Fb1,
        };
        let read = |row: &SystemRow, p: Profile| {
            let s = row.names.of(p)?;
            s.read(lower, row.names.varies).map(row.make)
        };
        let mut elsewhere = None;
        for row in ROWS {
            if let Some(kind) = read(row, profile) {
                return Ok(kind);
            }
            if elsewhere.is_none() && read(row, other).is_some() {
                elsewhere = Some(other);
            }
        }
        Err(elsewhere)
    }

    /// Core systems (bridge, power core, life support) roll thresholds at −1.
    #[inline]
    pub fn is_core(&self) -> bool {
        self.row().threshold == Threshold::Core
    }

    /// Weapons carry firing arcs.
    #[inline]
    pub fn is_weapon(&self) -> bool {
        self.family().is_weapon()
    }

    /// A system the model does not know, loaded inert.
    pub fn is_inert(&self) -> bool {
        self.family() == Family::Inert
    }

    /// One-shot weapons: spent when fired (ft-rules §4.1, §4.3-4.4, §5.1).
    #[inline]
    pub fn is_one_shot(&self) -> bool {
        matches!(self.row().ammo, Ammo::Rack | Ammo::Pack | Ammo::Shot)
    }

    /// A magazine of salvo loads (SMM).
    #[inline]
    pub fn is_magazine(&self) -> bool {
        self.row().ammo == Ammo::Magazine
    }

    /// A launcher drawing its loads from a magazine (SML).
    #[inline]
    pub fn draws_on_magazine(&self) -> bool {
        self.row().ammo == Ammo::FromMagazine
    }

    /// Weapons that count as offensive for the crippled test (one-shot
    /// weapons do not count, ft-rules §6.4).
    #[inline]
    pub fn is_offensive(&self) -> bool {
        self.row().offensive
    }

    /// How this kind may defend, its class and setting counted: a beam,
    /// EMP projector or K-gun above class 1, or a Pulser set short,
    /// defends not at all.
    pub fn point_defence(&self) -> Pd {
        let (row, p) = self.entry();
        match row.pd {
            Pd::ClassOne { .. } | Pd::AsPdsClassOne if p.class != 1 => Pd::No,
            Pd::AsPds if p.setting == Some(PulserSetting::Short) => Pd::No,
            pd => pd,
        }
    }

    /// Weapons that a plot may list under point defence (ft-rules §2.3,
    /// §5.1): PDS, ADAF, scatterguns, class-1 beams and EMP projectors,
    /// and whatever [`SystemKind::fires_as_pds`]. The orders check and the
    /// FTJava import of point-defence orders both ask this one question.
    pub fn may_point_defend(&self) -> bool {
        self.point_defence() != Pd::No
    }

    /// Beam-family weapons that may fire as one PDS in the point-defence
    /// step instead of at ships (ft-rules §5.1): phasers, Gatling
    /// batteries, twin particle arrays, meson projectors, and Pulsers not
    /// set to short range; and K-1 kinetic guns, at −1.
    pub fn fires_as_pds(&self) -> bool {
        matches!(self.point_defence(), Pd::AsPds | Pd::AsPdsClassOne)
    }

    /// Class-1 beams and EMP-1s, which defend on the class-1 beam table.
    pub fn defends_as_class_one(&self) -> bool {
        matches!(self.point_defence(), Pd::ClassOne { .. })
    }

    /// A point-defence mount (PDS, ADAF): it defends every Volley, plotted
    /// or not, and may fire at ships.
    #[inline]
    pub fn is_pd_mount(&self) -> bool {
        matches!(self.row().pd, Pd::Mount { .. })
    }

    /// Whether FTJava fire orders (`FM.Fire`) may list it: FTJava's heavy
    /// missiles carry standard warheads only.
    pub fn fm_fire(&self) -> bool {
        let (row, p) = self.entry();
        row.fm_fire && p.warhead == Warhead::Standard
    }

    /// Whether a raised reflex field stops its hits (readings W61).
    #[inline]
    pub fn is_energy(&self) -> bool {
        self.row().energy
    }

    /// The disputed reading a report names when a battle carries this
    /// kind; a Pulser's (W26, an open setting) only while it has none.
    pub fn caveat(&self) -> Option<&'static str> {
        let (row, p) = self.entry();
        row.caveat.filter(|_| p.setting.is_none())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind a row makes: each class its names read (1 without
    /// classes), each variant, each setting.
    fn kinds_of(row: &SystemRow) -> Vec<SystemKind> {
        let max = row.max_class();
        let mut out = Vec::new();
        for class in 0..=max {
            for range in [TorpedoRange::Standard, TorpedoRange::Long, TorpedoRange::Short] {
                for warhead in [Warhead::Standard, Warhead::Emp, Warhead::Needle] {
                    for setting in [None, Some(PulserSetting::Long), Some(PulserSetting::Short)] {
                        let kind = (row.make)(Params {
                            class,
                            range,
                            warhead,
                            setting,
                        });
                        if !out.contains(&kind) {
                            out.push(kind);
                        }
                    }
                }
            }
        }
        out
    }

    #[test]
    fn make_and_entry_are_inverses_and_rows_are_listed_once() {
        for (i, row) in ROWS.iter().enumerate() {
            assert!(
                !ROWS[..i].iter().any(|r| std::ptr::eq(*r, *row)),
                "row {i} listed twice"
            );
            for kind in kinds_of(row) {
                let (back, params) = kind.entry();
                assert!(std::ptr::eq(back, *row), "{kind:?} is not of row {i}");
                assert_eq!((row.make)(params), kind, "{kind:?}: make ∘ entry");
            }
        }
    }

    #[test]
    fn every_name_reads_back_as_its_kind_and_no_other() {
        for row in ROWS {
            for profile in [Profile::Fb1, Profile::Ft2] {
                let Some(spelling) = row.names.of(profile) else {
                    continue;
                };
                let mut names = Vec::new();
                spelling.every_name(row.names.varies, &mut names);
                for name in names {
                    let lower = name.to_ascii_lowercase();
                    let kind = SystemKind::from_name(&lower, profile).unwrap_or_else(|e| panic!("{name}: {e:?}"));
                    assert!(std::ptr::eq(kind.row(), row), "{name} in {profile} read as {kind:?}");
                    let readers = ROWS
                        .iter()
                        .filter(|r| {
                            r.names
                                .of(profile)
                                .is_some_and(|s| s.read(&lower, r.names.varies).is_some())
                        })
                        .count();
                    assert_eq!(readers, 1, "{name} in {profile} is read by {readers} rows");
                }
            }
            for kind in kinds_of(row).into_iter().filter(|k| !k.is_inert()) {
                for profile in [Profile::Fb1, Profile::Ft2] {
                    let written = kind.name(profile);
                    let lower = written.to_ascii_lowercase();
                    let read = SystemKind::from_name(&lower, profile)
                        .or_else(|_| SystemKind::from_name(&lower, other(profile)));
                    // A class beyond every spelling's is written but not read.
                    let max = row.max_class();
                    if max == 0 || (1..=max).contains(&kind.params().class) {
                        let mut expected = kind.clone();
                        if let SystemKind::Pulser { setting } = &mut expected {
                            *setting = None;
                        }
                        assert_eq!(read, Ok(expected), "{kind:?} written {written} in {profile}");
                    }
                }
            }
        }
    }

    fn other(profile: Profile) -> Profile {
        match profile {
            Profile::Fb1 => Profile::Ft2,
            Profile::Ft2 => Profile::Fb1,
        }
    }

    #[test]
    fn names_are_written_as_the_profiles_spell_them() {
        let cases = [
            (SystemKind::Beam { class: 3 }, "Class 3 Battery", "A Battery"),
            (SystemKind::Beam { class: 4 }, "Class 4 Battery", "Class 4 Battery"),
            (SystemKind::Pds, "PDS", "PDAF"),
            (SystemKind::Sml, "SML", "SML"),
            (SystemKind::Railgun { class: 2 }, "2 Railgun", "2 Railgun"),
            (
                SystemKind::KGun {
                    class: 2,
                    range: TorpedoRange::Long,
                },
                "Class 2 Long Range K-Gun",
                "Class 2 Long Range K-Gun",
            ),
            (
                SystemKind::Missile { warhead: Warhead::Emp },
                "EMP Missile",
                "EMP Missile",
            ),
            (
                SystemKind::Pulser {
                    setting: Some(PulserSetting::Short),
                },
                "Pulser",
                "Pulser",
            ),
            (SystemKind::Inert("Odd Thing".into()), "Odd Thing", "Odd Thing"),
        ];
        for (kind, fb1, ft2) in cases {
            assert_eq!(kind.name(Profile::Fb1), fb1);
            assert_eq!(kind.name(Profile::Ft2), ft2);
        }
    }

    #[test]
    fn a_name_of_the_other_profile_says_so() {
        assert_eq!(SystemKind::from_name("pdaf", Profile::Fb1), Err(Some(Profile::Ft2)));
        assert_eq!(
            SystemKind::from_name("class 2 battery", Profile::Ft2),
            Err(Some(Profile::Fb1))
        );
        assert_eq!(
            SystemKind::from_name("standard missile", Profile::Ft2),
            Err(Some(Profile::Fb1))
        );
        assert_eq!(SystemKind::from_name("class 7 graser", Profile::Fb1), Err(None));
        assert_eq!(SystemKind::from_name("01 railgun", Profile::Ft2), Err(None));
        assert_eq!(SystemKind::from_name("emp standard missile", Profile::Fb1), Err(None));
        assert_eq!(
            SystemKind::from_name("c-battery", Profile::Ft2),
            Ok(SystemKind::Beam { class: 1 })
        );
        assert_eq!(
            SystemKind::from_name("class 3 pbl", Profile::Fb1),
            Ok(SystemKind::PlasmaBolt { class: 3 })
        );
    }

    #[test]
    fn rows_say_consistent_things() {
        for row in ROWS {
            let kind = (row.make)(Params::class(1));
            let weapon = row.family.is_weapon();
            assert_eq!(row.family == Family::BeamFamily, row.beam.is_some(), "{kind:?}");
            assert_eq!(weapon, row.arcs != Arcs::None, "{kind:?}: arcs");
            if !weapon {
                assert_eq!(row.pd, Pd::No, "{kind:?}");
                assert!(
                    !(row.offensive || row.sustained || row.fm_fire || row.energy),
                    "{kind:?}"
                );
                assert!(matches!(row.ammo, Ammo::None | Ammo::Magazine), "{kind:?}");
            }
            assert!(
                !(row.offensive && kind.is_one_shot()),
                "{kind:?}: one-shot weapons are not offensive"
            );
            if let Some(rating) = row.ftjava.and_then(|f| f.rating) {
                assert!(row.max_class() > 0, "{kind:?}: rated but classless ({rating:?})");
            }
        }
    }

    #[test]
    fn point_defence_counts_class_and_setting() {
        assert!(SystemKind::Beam { class: 1 }.may_point_defend());
        assert!(!SystemKind::Beam { class: 2 }.may_point_defend());
        assert!(SystemKind::EmpProjector { class: 1 }.defends_as_class_one());
        let k1 = SystemKind::KGun {
            class: 1,
            range: TorpedoRange::Short,
        };
        assert!(k1.fires_as_pds());
        let short = SystemKind::Pulser {
            setting: Some(PulserSetting::Short),
        };
        assert!(!short.may_point_defend());
        assert!(SystemKind::Pulser { setting: None }.fires_as_pds());
        assert!(SystemKind::Scattergun.may_point_defend() && !SystemKind::Scattergun.fires_as_pds());
        assert!(SystemKind::Adaf.is_pd_mount() && !SystemKind::Scattergun.is_pd_mount());
    }
}
