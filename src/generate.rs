//! `fam generate`: a random, points-balanced battle from a ship library
//! (docs/generate.md).
//!
//! Pure: it takes the parsed library and returns the scenario's text and
//! the GZF records it loads; `cli` reads the library and writes the files.
//! Every choice is drawn from the one seed through the engine's
//! [`splitmix64`], so the same library and request give the same bytes.
//!
//! The steps, in order: list the designs a Formation may hold (ships with
//! the fighter groups they carry, bases, squadrons in space; damaged
//! records and records with inert systems left out), then try up to
//! [`ATTEMPTS`] battles: each side picks one or two library files (its
//! navy), a base side sets its base aside, both fill their points with
//! designs drawn at random, and the first battle whose sides are within
//! [`SIDE_TOLERANCE_PERCENT`] of the target and [`PAIR_TOLERANCE_PERCENT`]
//! of each other, holding every kind asked for, is split into Formations,
//! named, ranged and written.

pub mod contest;

use std::collections::BTreeSet;
use std::fmt;

use crate::engine::dice::splitmix64;
use crate::model::points::{base_design_points, design_points, group_points};
use crate::model::{Base, FighterGroup, GzfFile, Header, Item, Launch, Profile, Ship, Status, SystemKind};
use crate::orders::toml_out::{TomlOut, quote};

/// A side's points may miss the target by this much (percent of the target).
pub const SIDE_TOLERANCE_PERCENT: u32 = 10;
/// The two sides' points may differ by this much (percent of the larger).
pub const PAIR_TOLERANCE_PERCENT: u32 = 5;
/// The most points a side may be asked for.
pub const MAX_POINTS: u32 = 20_000;
/// Battles tried before giving up.
pub const ATTEMPTS: u64 = 2_000;
/// Enemy Formations start this far apart, in MU, the range drawn per pair.
pub const ENEMY_RANGE_MU: (u32, u32) = (24, 54);
/// Friendly Formations start this close.
pub const FRIENDLY_RANGE_MU: (u32, u32) = (3, 12);
/// The Exchange limit is drawn from these.
pub const MAX_EXCHANGES: (u32, u32) = (8, 12);
/// The fleet morale rule: a side breaks after losing this % of its mass.
pub const MORALE_PERCENT: u32 = 50;

/// One file of the ship library, by the name it is known by.
#[derive(Debug, Clone)]
pub struct Source {
    pub name: String,
    pub file: GzfFile,
}

/// What a battle may be steered to hold (`--kinds`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// Ships with hangar bays, and fighter groups and gunboats in space.
    Carriers,
    /// Salvo launchers and racks, heavy missiles, submunitions, rocket
    /// pods, antimatter missiles.
    Missiles,
    /// Kinetic guns and MKP packs.
    Kinetic,
    /// Plasma bolts, Pulsers, plasma cannons.
    Plasma,
    /// One side defends a base.
    Bases,
}

impl Kind {
    pub const ALL: [Kind; 5] = [Kind::Carriers, Kind::Missiles, Kind::Kinetic, Kind::Plasma, Kind::Bases];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Carriers => "carriers",
            Kind::Missiles => "missiles",
            Kind::Kinetic => "kinetic",
            Kind::Plasma => "plasma",
            Kind::Bases => "bases",
        }
    }

    /// The kind a name on the command line stands for (case ignored).
    pub fn parse(name: &str) -> Option<Kind> {
        Kind::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(name.trim()))
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// What to generate.
#[derive(Debug, Clone)]
pub struct Request {
    /// Points a side.
    pub points: u32,
    pub seed: u64,
    /// Kinds asked for; empty: any mix.
    pub kinds: Vec<Kind>,
    /// The scenario's file stem: the records are `STEM.fb1.gzf` and
    /// `STEM.ft2.gzf` beside it.
    pub stem: String,
    /// The command line, for the header comment.
    pub command: String,
    /// The try of the contest check ([`contest`]): 0 draws from `seed`
    /// itself, try `t` from [`sub_seed`]`(seed, t)`.
    pub attempt: u32,
}

impl Request {
    /// The seed this request's battle is drawn from.
    pub fn battle_seed(&self) -> u64 {
        sub_seed(self.seed, self.attempt)
    }
}

/// The seed of try `attempt` of the contest check: `seed` itself for the
/// first (so a check that accepts it changes nothing), then output
/// `attempt` of [`splitmix64`] seeded with `seed`.
pub fn sub_seed(seed: u64, attempt: u32) -> u64 {
    if attempt == 0 {
        seed
    } else {
        splitmix64(seed, u64::from(attempt))
    }
}

/// A generated battle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generated {
    /// The scenario TOML.
    pub scenario: String,
    /// The GZF files it loads: file name (beside the scenario) and text.
    pub records: Vec<(String, String)>,
    pub sides: Vec<SideSummary>,
}

impl Generated {
    /// Adds comment lines at the end of the scenario's header comment.
    pub fn note(&mut self, lines: &[String]) {
        let end = self.scenario.find("\n\n").map_or(0, |i| i + 1);
        let text: String = lines.iter().map(|l| format!("# {l}\n")).collect();
        self.scenario.insert_str(end, &text);
    }
}

/// One side as the summary shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideSummary {
    pub commander: String,
    /// The library files it drew from.
    pub navies: Vec<String>,
    /// Formations with their Units and each Unit's points.
    pub formations: Vec<(String, Vec<(String, u32)>)>,
    pub points: u32,
}

/// Why no battle could be generated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The library holds no design a battle can use.
    NoDesigns,
    /// `--points` is 0 or above [`MAX_POINTS`].
    PointsOutOfRange(u32),
    /// Below the cheapest design the sides may use.
    PointsTooSmall { points: u32, cheapest: u32 },
    /// The library has no design of this kind.
    NoDesignOfKind(Kind),
    /// The cheapest base is above a side's points.
    BaseTooDear { points: u32, base: u32 },
    /// No battle within the tolerances in [`ATTEMPTS`] tries.
    CannotBalance { points: u32 },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoDesigns => f.write_str(
                "the library holds no ship, base or squadron a battle can use (damaged records and records with inert systems are left out)",
            ),
            Error::PointsOutOfRange(p) => write!(f, "--points {p} is out of range: give 1 to {MAX_POINTS} points a side"),
            Error::PointsTooSmall { points, cheapest } => write!(
                f,
                "--points {points} is too few: the cheapest design the sides may use costs {cheapest} points"
            ),
            Error::NoDesignOfKind(k) => write!(f, "the library has no design of kind `{}`", k.name()),
            Error::BaseTooDear { points, base } => write!(
                f,
                "--points {points} is too few for a base: the cheapest base costs {base} points"
            ),
            Error::CannotBalance { points } => write!(
                f,
                "no two sides of {points} points (within {SIDE_TOLERANCE_PERCENT} %, and within {PAIR_TOLERANCE_PERCENT} % of each other) can be drawn from this library with these kinds: try other --points or --kinds"
            ),
        }
    }
}

impl std::error::Error for Error {}

/// Generates a battle from `library` (the files in the order given).
pub fn generate(library: &[Source], request: &Request) -> Result<Generated, Error> {
    if request.points == 0 || request.points > MAX_POINTS {
        return Err(Error::PointsOutOfRange(request.points));
    }
    let designs = designs(library);
    if designs.is_empty() {
        return Err(Error::NoDesigns);
    }
    let plan = Plan::new(&designs, request)?;
    let seed = request.battle_seed();
    for attempt in 0..ATTEMPTS {
        let mut draws = Draws::new(splitmix64(seed, attempt + 1));
        // The second half of the tries lets both sides share a navy.
        let apart = attempt < ATTEMPTS / 2;
        if let Some(battle) = plan.try_battle(&mut draws, apart) {
            return Ok(write_battle(library, &designs, request, &battle, &mut draws));
        }
    }
    Err(Error::CannotBalance { points: request.points })
}

/// Choices drawn from one seed: output `n` of [`splitmix64`] for the `n`th
/// draw.
struct Draws {
    seed: u64,
    n: u64,
}

impl Draws {
    fn new(seed: u64) -> Draws {
        Draws { seed, n: 0 }
    }

    fn next(&mut self) -> u64 {
        self.n += 1;
        splitmix64(self.seed, self.n)
    }

    /// A number in `0..n` (`n` > 0), by the high half of a 128-bit product.
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }

    /// A number in `lo..=hi`.
    fn between(&mut self, (lo, hi): (u32, u32)) -> u32 {
        lo + self.below((hi - lo + 1) as usize) as u32
    }

    fn chance(&mut self, in_n: usize) -> bool {
        self.below(in_n) == 0
    }
}

/// What a Formation may list.
#[derive(Debug, Clone, Copy)]
enum Unit<'a> {
    Ship(&'a Ship),
    Base(&'a Base),
    /// A fighter group or gunboat squadron in space, with no carrier.
    Group(&'a FighterGroup),
}

/// A design of the library.
#[derive(Debug, Clone)]
struct Design<'a> {
    /// Index of its file in the library.
    source: usize,
    profile: Profile,
    unit: Unit<'a>,
    /// The groups a ship carries (blocks naming it as `Carrier:`).
    carried: Vec<&'a FighterGroup>,
    points: u32,
    kinds: u8,
}

impl Design<'_> {
    fn name(&self) -> &str {
        match self.unit {
            Unit::Ship(s) => &s.name,
            Unit::Base(b) => &b.name,
            Unit::Group(g) => &g.id,
        }
    }

    fn thrust(&self) -> u32 {
        match self.unit {
            Unit::Ship(s) => s.thrust,
            Unit::Base(_) => 0,
            // Gunboats and fighters move as thrust 9 and more.
            Unit::Group(_) => 9,
        }
    }

    fn is_base(&self) -> bool {
        matches!(self.unit, Unit::Base(_))
    }

    fn is_group(&self) -> bool {
        matches!(self.unit, Unit::Group(_))
    }

    fn fleet(&self) -> Option<&str> {
        match self.unit {
            Unit::Ship(s) => s.fleet.as_deref(),
            Unit::Base(b) => b.fleet.as_deref(),
            Unit::Group(_) => None,
        }
    }
}

/// Every design of the library a battle may use, in library order.
fn designs(library: &[Source]) -> Vec<Design<'_>> {
    let mut out = Vec::new();
    for (source, s) in library.iter().enumerate() {
        let profile = s.file.profile;
        let groups: Vec<&FighterGroup> = s
            .file
            .items
            .iter()
            .filter_map(|i| match i {
                Item::FighterGroup(g) => Some(g),
                _ => None,
            })
            .collect();
        for item in &s.file.items {
            let design = match item {
                Item::Ship(ship) if fresh_ship(ship) => {
                    let carried: Vec<&FighterGroup> = groups
                        .iter()
                        .copied()
                        .filter(|g| g.carrier.as_deref().is_some_and(|c| same_name(c, &ship.name)))
                        .collect();
                    if !carried.iter().all(|g| fresh_group(g)) {
                        continue;
                    }
                    Design {
                        source,
                        profile,
                        unit: Unit::Ship(ship),
                        carried,
                        points: design_points(ship, profile),
                        kinds: system_kinds(ship.systems.iter().map(|x| &x.kind)),
                    }
                }
                Item::Base(base) if fresh_base(base) => Design {
                    source,
                    profile,
                    unit: Unit::Base(base),
                    carried: Vec::new(),
                    points: base_design_points(base, profile),
                    kinds: Kind::Bases.bit(),
                },
                Item::FighterGroup(g) if g.carrier.is_none() && in_space(g) && fresh_group(g) => Design {
                    source,
                    profile,
                    unit: Unit::Group(g),
                    carried: Vec::new(),
                    points: group_points(g),
                    kinds: group_kinds(g),
                },
                _ => continue,
            };
            if design.points > 0 {
                out.push(design);
            }
        }
    }
    out
}

/// GZF names compare with case and runs of blanks ignored.
fn same_name(a: &str, b: &str) -> bool {
    normal(a) == normal(b)
}

fn normal(name: &str) -> String {
    name.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

fn undamaged(status: &Status) -> bool {
    status.damage.is_none() && !status.powerless && !status.lifeless && !status.uncontrolled
}

fn no_crossed<'a>(rows: impl IntoIterator<Item = &'a crate::model::CheckBox>) -> bool {
    rows.into_iter().all(|b| !b.crossed)
}

fn fresh_systems(systems: &[crate::model::System]) -> bool {
    systems
        .iter()
        .all(|s| undamaged(&s.status) && !s.kind.is_inert() && s.rounds.as_ref().is_none_or(no_crossed))
}

/// A ship as designed: nothing crossed off, no system damaged or inert,
/// the drive whole.
fn fresh_ship(ship: &Ship) -> bool {
    undamaged(&ship.status)
        && ship.thrust >= ship.original_thrust
        && no_crossed(ship.damage_track.iter().flatten())
        && ship
            .armour
            .as_ref()
            .is_none_or(|a| a.layers().into_iter().flatten().all(|b| !b.crossed))
        && fresh_systems(&ship.systems)
}

fn fresh_base(base: &Base) -> bool {
    undamaged(&base.status)
        && no_crossed(base.damage_track.iter().flatten())
        && base
            .armour
            .as_ref()
            .is_none_or(|a| a.layers().into_iter().flatten().all(|b| !b.crossed))
        && fresh_systems(&base.systems)
        && base.sectors.iter().all(|s| {
            no_crossed(s.damage_track.iter().flatten())
                && s.armour
                    .as_ref()
                    .is_none_or(|a| a.layers().into_iter().flatten().all(|b| !b.crossed))
                && fresh_systems(&s.systems)
        })
}

fn fresh_group(g: &FighterGroup) -> bool {
    undamaged(&g.status)
        && !g.craft.is_empty()
        && no_crossed(&g.craft)
        && g.endurance.as_ref().is_none_or(no_crossed)
        && g.rounds.as_ref().is_none_or(no_crossed)
        && g.rearm.is_none()
}

fn in_space(g: &FighterGroup) -> bool {
    g.status.launch == Some(Launch::Launched)
}

/// The kinds a set of systems makes a design.
fn system_kinds<'a>(kinds: impl Iterator<Item = &'a SystemKind>) -> u8 {
    use SystemKind::*;
    let mut bits = 0;
    for k in kinds {
        bits |= match k {
            HangarBay => Kind::Carriers.bit(),
            Sml | Smr | Smm | Missile { .. } | SubmunitionPack | RocketPod | AntimatterMissile => Kind::Missiles.bit(),
            KGun { .. } | Mkp => Kind::Kinetic.bit(),
            PlasmaBolt { .. } | Pulser { .. } | PlasmaCannon { .. } => Kind::Plasma.bit(),
            _ => 0,
        };
    }
    bits
}

fn group_kinds(g: &FighterGroup) -> u8 {
    use crate::model::GunboatType as T;
    Kind::Carriers.bit()
        | match g.gunboat {
            Some(T::Missile | T::Rocket | T::Submunition) => Kind::Missiles.bit(),
            Some(T::KGun) => Kind::Kinetic.bit(),
            _ => 0,
        }
}

/// What every attempt shares: the pools and the request.
struct Plan<'d, 'a> {
    designs: &'d [Design<'a>],
    points: u32,
    /// Kinds the ships must be of (any one), bases apart; 0: any.
    ship_kinds: u8,
    /// Every kind asked for, bases apart.
    wanted: Vec<Kind>,
    base: bool,
    /// Library files with a ship a side can afford, by index: a side's
    /// own navy is one of these.
    navies: Vec<usize>,
    /// Library files with any design a side can afford: its second navy.
    extras: Vec<usize>,
}

/// One side of an attempt.
#[derive(Debug, Clone)]
struct Side {
    navies: Vec<usize>,
    /// Indices into the designs, in the order drawn.
    units: Vec<usize>,
    base: Option<usize>,
}

/// A battle drawn within the tolerances.
#[derive(Debug, Clone)]
struct Battle {
    sides: [Side; 2],
    /// The side defending a base, if any.
    defender: Option<usize>,
}

impl<'d, 'a> Plan<'d, 'a> {
    fn new(designs: &'d [Design<'a>], request: &Request) -> Result<Self, Error> {
        let base = request.kinds.contains(&Kind::Bases);
        let wanted: Vec<Kind> = request
            .kinds
            .iter()
            .copied()
            .filter(|k| *k != Kind::Bases)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let ship_kinds = wanted.iter().fold(0, |bits, k| bits | k.bit());
        let plan = Plan {
            designs,
            points: request.points,
            ship_kinds,
            wanted,
            base,
            navies: Vec::new(),
            extras: Vec::new(),
        };
        for &kind in request.kinds.iter() {
            if !designs.iter().any(|d| d.kinds & kind.bit() != 0) {
                return Err(Error::NoDesignOfKind(kind));
            }
        }
        let most = request.points + plan.tolerance();
        // Navies with a design a side can afford; a side's own has ships.
        let affordable = |ships: bool| -> Vec<usize> {
            let mut n: Vec<usize> = designs
                .iter()
                .filter(|d| plan.usable(d) && d.points <= most && (!ships || !d.is_group()))
                .map(|d| d.source)
                .collect();
            n.dedup();
            n
        };
        let (navies, extras) = (affordable(true), affordable(false));
        let Some(cheapest) = designs.iter().filter(|d| plan.usable(d)).map(|d| d.points).min() else {
            return Err(Error::NoDesigns);
        };
        if base {
            let base_points = designs
                .iter()
                .filter(|d| d.is_base())
                .map(|d| d.points)
                .min()
                .unwrap_or(0);
            if base_points > most {
                return Err(Error::BaseTooDear {
                    points: request.points,
                    base: base_points,
                });
            }
        }
        if navies.is_empty() {
            return Err(Error::PointsTooSmall {
                points: request.points,
                cheapest,
            });
        }
        Ok(Plan { navies, extras, ..plan })
    }

    fn tolerance(&self) -> u32 {
        self.points * SIDE_TOLERANCE_PERCENT / 100
    }

    /// A design a side may fill its points with (bases are set aside).
    fn usable(&self, d: &Design<'_>) -> bool {
        !d.is_base() && (self.ship_kinds == 0 || d.kinds & self.ship_kinds != 0)
    }

    fn try_battle(&self, draws: &mut Draws, apart: bool) -> Option<Battle> {
        // The base first: its side fights under the base's own navy when it can.
        let defence = self.base.then(|| {
            let bases: Vec<usize> = (0..self.designs.len()).filter(|&i| self.designs[i].is_base()).collect();
            (draws.below(2), bases[draws.below(bases.len())])
        });
        let pick = |draws: &mut Draws, not: Option<usize>| -> usize {
            let others: Vec<usize> = self
                .navies
                .iter()
                .copied()
                .filter(|&n| !apart || Some(n) != not)
                .collect();
            if others.is_empty() {
                self.navies[draws.below(self.navies.len())]
            } else {
                others[draws.below(others.len())]
            }
        };
        let mut own = [0; 2];
        match defence {
            Some((d, b)) if self.navies.contains(&self.designs[b].source) => {
                own[d] = self.designs[b].source;
                own[1 - d] = pick(draws, Some(own[d]));
            }
            _ => {
                own[0] = pick(draws, None);
                own[1] = pick(draws, Some(own[0]));
            }
        }
        let mut sides = [self.side(own[0], own[1], draws), self.side(own[1], own[0], draws)];
        if let Some((d, b)) = defence {
            sides[d].base = Some(b);
        }
        for side in &mut sides {
            let reserved = side.base.map_or(0, |b| self.designs[b].points);
            let pool = self.pool(&side.navies);
            side.units = self.fill(&pool, self.points.saturating_sub(reserved), draws);
        }
        let defender = defence.map(|(d, _)| d);
        self.acceptable(&sides).then_some(Battle { sides, defender })
    }

    /// A side's navy: its own file, and now and then a second one (not the
    /// enemy's when another is left).
    fn side(&self, own: usize, enemy: usize, draws: &mut Draws) -> Side {
        let mut navies = vec![own];
        if draws.chance(3) {
            let more: Vec<usize> = self
                .extras
                .iter()
                .copied()
                .filter(|&n| n != own && n != enemy)
                .collect();
            if !more.is_empty() {
                navies.push(more[draws.below(more.len())]);
            }
        }
        Side {
            navies,
            units: Vec::new(),
            base: None,
        }
    }

    fn pool(&self, navies: &[usize]) -> Vec<usize> {
        (0..self.designs.len())
            .filter(|&i| navies.contains(&self.designs[i].source) && self.usable(&self.designs[i]))
            .collect()
    }

    /// Designs drawn at random among those that still fit, until none
    /// does; then the one that overshoots least, when that comes nearer.
    /// Squadrons in space take at most a quarter of the points: cheap for
    /// what they do, a side of nothing else would be no contest.
    fn fill(&self, pool: &[usize], target: u32, draws: &mut Draws) -> Vec<usize> {
        let mut chosen = Vec::new();
        let (mut sum, mut groups) = (0, 0);
        loop {
            let left = target - sum;
            let fits: Vec<usize> = pool
                .iter()
                .copied()
                .filter(|&i| {
                    let d = &self.designs[i];
                    d.points <= left && (!d.is_group() || (groups + d.points) * 4 <= target)
                })
                .collect();
            if fits.is_empty() {
                break;
            }
            let pick = fits[draws.below(fits.len())];
            sum += self.designs[pick].points;
            if self.designs[pick].is_group() {
                groups += self.designs[pick].points;
            }
            chosen.push(pick);
        }
        let short = target - sum;
        let ships = pool.iter().filter(|&&i| !self.designs[i].is_group());
        if let Some(&over) = ships.min_by_key(|&&i| (self.designs[i].points, i))
            && short > 0
            && self.designs[over].points - short < short
        {
            chosen.push(over);
        }
        chosen
    }

    fn side_points(&self, side: &Side) -> u32 {
        side.units
            .iter()
            .chain(&side.base)
            .map(|&i| self.designs[i].points)
            .sum()
    }

    fn acceptable(&self, sides: &[Side; 2]) -> bool {
        let [a, b] = [self.side_points(&sides[0]), self.side_points(&sides[1])];
        let near = |p: u32| p.abs_diff(self.points) <= self.tolerance();
        let pair = a.abs_diff(b) * 100 <= a.max(b) * PAIR_TOLERANCE_PERCENT;
        let has = |k: Kind| {
            sides
                .iter()
                .flat_map(|s| &s.units)
                .any(|&i| self.designs[i].kinds & k.bit() != 0)
        };
        let units = sides.iter().all(|s| !s.units.is_empty() || s.base.is_some());
        units && near(a) && near(b) && pair && self.wanted.iter().all(|&k| has(k))
    }
}

/// A Unit as written: its design and the name it goes by.
struct Placed {
    design: usize,
    name: String,
    /// New ids of the groups it carries, in the design's order.
    groups: Vec<String>,
}

/// A side laid out: Formations of placed Units.
struct Layout {
    commander: String,
    formations: Vec<(String, Vec<Placed>)>,
}

/// The longest a commander's name is cut to, in characters, while it has
/// more than one word.
pub const COMMANDER_CHARS: usize = 20;

/// Each side's commander is named after its navy: the fleet its own
/// library file names, its last words dropped while it is longer than
/// [`COMMANDER_CHARS`]; two sides of one navy are `Red NAVY` and
/// `Blue NAVY`.
fn commanders(library: &[Source], battle: &Battle) -> [String; 2] {
    let [a, b] = [0, 1].map(|i| short_name(&navy_name(&library[battle.sides[i].navies[0]])));
    if same_name(&a, &b) {
        [format!("Red {a}"), format!("Blue {b}")]
    } else {
        [a, b]
    }
}

/// `name` without its last words while it is longer than
/// [`COMMANDER_CHARS`] and has more than one.
fn short_name(name: &str) -> String {
    let mut words: Vec<&str> = name.split_whitespace().collect();
    while words.len() > 1 && words.join(" ").chars().count() > COMMANDER_CHARS {
        words.pop();
    }
    words.join(" ")
}

fn write_battle(
    library: &[Source],
    designs: &[Design<'_>],
    request: &Request,
    battle: &Battle,
    draws: &mut Draws,
) -> Generated {
    let mut names = Names::default();
    let commanders = commanders(library, battle);
    let layouts: Vec<Layout> = battle
        .sides
        .iter()
        .enumerate()
        .map(|(i, side)| lay_out(designs, request.points, &commanders[i], side, &mut names, draws))
        .collect();
    let records = records(library, designs, &layouts, &request.stem);
    let scenario = scenario_text(library, designs, request, battle, &layouts, &records, draws);
    let sides = layouts
        .iter()
        .zip(&battle.sides)
        .map(|(l, side)| SideSummary {
            commander: l.commander.clone(),
            navies: side.navies.iter().map(|&n| library[n].name.clone()).collect(),
            formations: l
                .formations
                .iter()
                .map(|(f, units)| {
                    (
                        f.clone(),
                        units
                            .iter()
                            .map(|u| (u.name.clone(), designs[u.design].points))
                            .collect(),
                    )
                })
                .collect(),
            points: side.units.iter().chain(&side.base).map(|&i| designs[i].points).sum(),
        })
        .collect();
    Generated {
        scenario,
        records,
        sides,
    }
}

/// Unit names in use, so a design drawn twice gets a new one.
#[derive(Default)]
struct Names {
    used: BTreeSet<String>,
}

impl Names {
    /// `name`, or `name 2`, `name 3` … the first not yet used.
    fn take(&mut self, name: &str) -> String {
        let mut n = 1;
        loop {
            let candidate = if n == 1 {
                name.to_string()
            } else {
                format!("{name} {n}")
            };
            if self.used.insert(normal(&candidate)) {
                return candidate;
            }
            n += 1;
        }
    }
}

/// Splits a side into Formations: its base alone, its squadrons in space
/// together, its ships by thrust into one to four Formations (more likely
/// several at larger points).
fn lay_out(
    designs: &[Design<'_>],
    points: u32,
    commander: &str,
    side: &Side,
    names: &mut Names,
    draws: &mut Draws,
) -> Layout {
    let mut place = |d: usize| Placed {
        design: d,
        name: names.take(designs[d].name()),
        groups: designs[d].carried.iter().map(|g| names.take(&g.id)).collect(),
    };
    let mut ships: Vec<usize> = side.units.iter().copied().filter(|&i| !designs[i].is_group()).collect();
    ships.sort_by_key(|&i| {
        (
            std::cmp::Reverse(designs[i].thrust()),
            std::cmp::Reverse(designs[i].points),
            i,
        )
    });
    let groups: Vec<usize> = side.units.iter().copied().filter(|&i| designs[i].is_group()).collect();
    let most = ((points / 300).clamp(1, 4) as usize).min(ships.len());
    let count = if most == 0 { 0 } else { 1 + draws.below(most) };
    let mut formations: Vec<(String, Vec<Placed>)> = Vec::new();
    for k in 0..count {
        let (lo, hi) = (k * ships.len() / count, (k + 1) * ships.len() / count);
        let units = ships[lo..hi].iter().map(|&d| place(d)).collect();
        formations.push((format!("{commander} {}", k + 1), units));
    }
    if !groups.is_empty() {
        formations.push((format!("{commander} Boats"), groups.iter().map(|&d| place(d)).collect()));
    }
    if let Some(b) = side.base {
        formations.push((format!("{commander} Base"), vec![place(b)]));
    }
    Layout {
        commander: commander.to_string(),
        formations,
    }
}

/// The record file for a profile.
fn record_name(stem: &str, profile: Profile) -> String {
    format!("{stem}.{}.gzf", profile.name().to_lowercase())
}

/// The GZF files: one a profile, each with the fleets its Units name and
/// the Units renamed as placed, carriers followed by their groups.
fn records(library: &[Source], designs: &[Design<'_>], layouts: &[Layout], stem: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for profile in [Profile::Fb1, Profile::Ft2] {
        let placed: Vec<&Placed> = layouts
            .iter()
            .flat_map(|l| l.formations.iter().flat_map(|(_, u)| u))
            .filter(|p| designs[p.design].profile == profile)
            .collect();
        let Some(first) = placed.first() else { continue };
        let header = library[designs[first.design].source].file.header.clone();
        let mut file = GzfFile {
            profile,
            header: Header {
                meta: Vec::new(),
                ..header
            },
            items: fleets(library, designs, &placed),
        };
        for p in &placed {
            file.items.extend(renamed(&designs[p.design], p));
        }
        out.push((record_name(stem, profile), crate::gzf::write(&file)));
    }
    out
}

/// The Fleet blocks the placed Units name, once each, in the order met.
fn fleets(library: &[Source], designs: &[Design<'_>], placed: &[&Placed]) -> Vec<Item> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for p in placed {
        let d = &designs[p.design];
        let Some(name) = d.fleet() else { continue };
        let block = library[d.source].file.items.iter().find_map(|i| match i {
            Item::Fleet(f) if same_name(&f.name, name) => Some(f),
            _ => None,
        });
        if let Some(f) = block
            && seen.insert(normal(&f.name))
        {
            out.push(Item::Fleet(f.clone()));
        }
    }
    out
}

/// A design's blocks under its placed names.
fn renamed(design: &Design<'_>, placed: &Placed) -> Vec<Item> {
    match design.unit {
        Unit::Ship(ship) => {
            let mut items = vec![Item::Ship(Ship {
                name: placed.name.clone(),
                ..ship.clone()
            })];
            for (g, id) in design.carried.iter().zip(&placed.groups) {
                items.push(Item::FighterGroup(FighterGroup {
                    id: id.clone(),
                    carrier: Some(placed.name.clone()),
                    ..(*g).clone()
                }));
            }
            items
        }
        Unit::Base(base) => vec![Item::Base(Base {
            name: placed.name.clone(),
            ..base.clone()
        })],
        Unit::Group(g) => vec![Item::FighterGroup(FighterGroup {
            id: placed.name.clone(),
            ..g.clone()
        })],
    }
}

fn scenario_text(
    library: &[Source],
    designs: &[Design<'_>],
    request: &Request,
    battle: &Battle,
    layouts: &[Layout],
    records: &[(String, String)],
    draws: &mut Draws,
) -> String {
    let mut out = TomlOut::new();
    header_comment(&mut out, library, designs, request, battle, layouts);
    let navy = |s: &Side| -> String {
        s.navies
            .iter()
            .map(|&n| navy_name(&library[n]))
            .collect::<Vec<_>>()
            .join(" and ")
    };
    let number = match request.attempt {
        0 => request.seed.to_string(),
        t => format!("{}.{}", request.seed, t + 1),
    };
    let title = format!(
        "Generated battle {number}: {} against {}, {} points",
        navy(&battle.sides[0]),
        navy(&battle.sides[1]),
        request.points
    );
    out.pair("title", quote(&title));
    out.names("gzf", records.iter().map(|(n, _)| n));
    out.pair("seed", splitmix64(request.battle_seed(), 0) >> 1);
    out.blank();
    out.table("victory");
    out.pair("max_exchanges", draws.between(MAX_EXCHANGES));
    out.pair("morale", MORALE_PERCENT);
    if let Some(d) = battle.defender {
        let base = layouts[d]
            .formations
            .iter()
            .flat_map(|(_, u)| u)
            .find(|p| designs[p.design].is_base());
        if let Some(base) = base {
            out.pair(
                "unit_destroyed",
                format!(
                    "[{{ unit = {}, winner = {} }}]",
                    quote(&base.name),
                    quote(&layouts[1 - d].commander)
                ),
            );
        }
    }
    out.blank();
    out.table("sides");
    for l in layouts {
        out.names(&l.commander, l.formations.iter().map(|(f, _)| f));
    }
    out.blank();
    out.table("formations");
    for l in layouts {
        for (f, units) in &l.formations {
            let points: u32 = units.iter().map(|u| designs[u.design].points).sum();
            out.names(f, units.iter().map(|u| &u.name));
            out.note(&format!("{points} points"));
        }
    }
    ranges(&mut out, layouts, draws);
    out.finish()
}

/// The fleet a library file's first Fleet block names, else its file name.
fn navy_name(source: &Source) -> String {
    source
        .file
        .items
        .iter()
        .find_map(|i| match i {
            Item::Fleet(f) => Some(f.name.clone()),
            _ => None,
        })
        .unwrap_or_else(|| source.name.clone())
}

fn header_comment(
    out: &mut TomlOut,
    library: &[Source],
    designs: &[Design<'_>],
    request: &Request,
    battle: &Battle,
    layouts: &[Layout],
) {
    out.comment(&format!("Generated by `{}`", request.command));
    out.comment(&format!(
        "(docs/generate.md): {} points a side asked, each side within {SIDE_TOLERANCE_PERCENT} % of it",
        request.points
    ));
    out.comment(&format!("and within {PAIR_TOLERANCE_PERCENT} % of the other."));
    let kinds = if request.kinds.is_empty() {
        "any".to_string()
    } else {
        request.kinds.iter().map(|k| k.name()).collect::<Vec<_>>().join(", ")
    };
    out.comment(&format!("Kinds: {kinds}."));
    for (l, side) in layouts.iter().zip(&battle.sides) {
        let points: u32 = side.units.iter().chain(&side.base).map(|&i| designs[i].points).sum();
        let files: Vec<&str> = side.navies.iter().map(|&n| library[n].name.as_str()).collect();
        out.comment(&format!(
            "{}: {points} points from {}.",
            l.commander,
            files.join(" and ")
        ));
    }
    if let Some(d) = battle.defender {
        out.comment(&format!(
            "{} defends a base: destroying it wins the battle.",
            layouts[d].commander
        ));
    }
    out.blank();
}

/// A `[[range]]` for every pair of Formations: enemies 24 to 54 MU apart,
/// friends 3 to 12.
fn ranges(out: &mut TomlOut, layouts: &[Layout], draws: &mut Draws) {
    let all: Vec<(usize, &str)> = layouts
        .iter()
        .enumerate()
        .flat_map(|(s, l)| l.formations.iter().map(move |(f, _)| (s, f.as_str())))
        .collect();
    for (i, &(side_a, a)) in all.iter().enumerate() {
        for &(side_b, b) in &all[i + 1..] {
            let mu = if side_a == side_b {
                draws.between(FRIENDLY_RANGE_MU)
            } else {
                draws.between(ENEMY_RANGE_MU)
            };
            out.blank();
            out.range(a, b, mu);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_below_stay_in_range_and_cover_it() {
        let mut d = Draws::new(7);
        let mut seen = [0u32; 5];
        for _ in 0..1000 {
            seen[d.below(5)] += 1;
        }
        assert!(seen.iter().all(|&n| n > 150), "{seen:?}");
    }

    #[test]
    fn kinds_parse_by_name_and_refuse_others() {
        assert_eq!(Kind::parse("Carriers"), Some(Kind::Carriers));
        assert_eq!(Kind::parse(" bases"), Some(Kind::Bases));
        assert_eq!(Kind::parse("lasers"), None);
    }

    #[test]
    fn a_long_navy_name_loses_its_last_words() {
        assert_eq!(short_name("Cinder Compact Forward Line"), "Cinder Compact");
        assert_eq!(short_name("Halcyon Accord Reach Guard"), "Halcyon Accord Reach");
        assert_eq!(short_name("Old  Veldt Militia"), "Old Veldt Militia");
        assert_eq!(
            short_name("Supercalifragilisticexpialidocious"),
            "Supercalifragilisticexpialidocious"
        );
    }

    #[test]
    fn a_name_taken_twice_gets_a_number() {
        let mut n = Names::default();
        assert_eq!(n.take("KRD Ninefold Gale"), "KRD Ninefold Gale");
        assert_eq!(n.take("krd  ninefold gale"), "krd  ninefold gale 2");
        n.take("X 2");
        assert_eq!(n.take("X"), "X");
        assert_eq!(n.take("X"), "X 3");
    }
}
