//! Points values of designs by the construction rules (ft-rules §11, FTC
//! §13-14; gunboats and fighters §9), for records that give no `Cost:`.
//!
//! A design's points are the basic hull (its mass), its hull boxes (2 each
//! on four rows; 3 on three, 1.5 on five, 1 on six or more), its armour
//! boxes (2 each), its main drive (5 % of mass a thrust point, 2 a mass,
//! advanced 3) and its systems. A system's points are its `Cost:` when it
//! gives one, else its `Mass:` at its kind's price a mass, else its kind's
//! mass and price by the rules ([`system_points`]). Weapons the rules digest
//! prices nowhere (grasers, kinetic guns, plasma weapons …) share the mass
//! the record leaves over once everything else is counted, at 3 a mass, as
//! every library warship uses its whole mass (`ssd/README.md`). A
//! carrier's hangar bays include the fighter group each holds.
//!
//! [`design_points`] and its kin prefer the record's own `Cost:`.

use super::sizes::{round_half_up, round_half_up_min1};
use super::{
    AmmoType, Armour, Base, FighterBase, FighterGroup, FighterModifier, FighterType, GunboatType, Profile, Ship,
    System, SystemKind,
};

/// The points of a ship: its `Cost:`, or [`ship_points`].
pub fn design_points(ship: &Ship, profile: Profile) -> u32 {
    ship.cost.unwrap_or_else(|| ship_points(ship, profile))
}

/// The points of a base: its `Cost:`, or [`base_points`].
pub fn base_design_points(base: &Base, profile: Profile) -> u32 {
    base.cost.unwrap_or_else(|| base_points(base, profile))
}

/// A ship's points by the construction rules, whatever its `Cost:` says.
pub fn ship_points(ship: &Ship, profile: Profile) -> u32 {
    ship_hull(ship).points(&ship.systems, profile).0
}

/// [`ship_points`] when the rules price every system of the ship (none
/// shares the mass left over): the figure a stated `Cost:` can be checked
/// against; `None` when part of it is an estimate.
pub fn ship_points_exact(ship: &Ship, profile: Profile) -> Option<u32> {
    match ship_hull(ship).points(&ship.systems, profile) {
        (points, 0) => Some(points),
        _ => None,
    }
}

/// A ship's hull, drive included, as the construction rules price it.
fn ship_hull(ship: &Ship) -> Hull {
    let mass = ship.mass.unwrap_or_else(|| mass_estimate(ship));
    let thrust = ship.original_thrust.max(ship.thrust);
    let drive_mass = round_half_up(u64::from(mass) * 5 * u64::from(thrust), 100);
    let drive_rate = if ship.advanced_drive { 3 } else { 2 };
    Hull {
        mass,
        boxes: ship.hull_boxes(),
        rows: ship.damage_track.len(),
        armour: armour_boxes(ship.armour.as_ref()),
        fixed_mass: drive_mass,
        fixed_points: drive_mass.saturating_mul(drive_rate),
    }
}

/// A base's points by the construction rules (no drive; its sectors' hulls,
/// armour and systems added).
pub fn base_points(base: &Base, profile: Profile) -> u32 {
    let mut systems: Vec<&System> = base.systems.iter().collect();
    let mut boxes: usize = base.damage_track.iter().map(Vec::len).sum();
    let mut armour = armour_boxes(base.armour.as_ref());
    for sector in &base.sectors {
        systems.extend(&sector.systems);
        boxes += sector.damage_track.iter().map(Vec::len).sum::<usize>();
        armour += armour_boxes(sector.armour.as_ref());
    }
    let hull = Hull {
        mass: base.mass.unwrap_or(0),
        boxes,
        rows: base.damage_track.len().max(6),
        armour,
        fixed_mass: 0,
        fixed_points: 0,
    };
    hull.points(systems, profile).0
}

/// A fighter group's or gunboat squadron's points: each craft at its type's
/// price (ft-rules §9.1, §9.2); a light group as the six-craft group of its
/// type.
pub fn group_points(group: &FighterGroup) -> u32 {
    let craft = u32::try_from(group.craft.len()).unwrap_or(u32::MAX);
    match (group.gunboat, group.fighter_type) {
        (Some(boat), _) => craft.saturating_mul(gunboat_price(boat)),
        (None, Some(t)) if t.light => 6 * fighter_price(t),
        (None, t) => craft.saturating_mul(fighter_price(t.unwrap_or(STANDARD))),
    }
}

/// A hangar bay's points: the bay (6 mass at 3) and the group of its type.
pub fn hangar_bay_points(fighters: Option<FighterType>) -> u32 {
    18 + 6 * fighter_price(fighters.unwrap_or(STANDARD))
}

const STANDARD: FighterType = FighterType {
    modifier: None,
    base: FighterBase::Standard,
    light: false,
};

/// Points a fighter (ft-rules §9.1).
fn fighter_price(t: FighterType) -> u32 {
    let base = match t.base {
        FighterBase::Standard | FighterBase::Interceptor | FighterBase::DronePod => 3,
        FighterBase::Attack => 4,
        FighterBase::Torpedo => 6,
    };
    let modifier = match t.modifier {
        None => 0,
        Some(FighterModifier::Fast | FighterModifier::LongRange) => 1,
        Some(FighterModifier::Heavy) => 3,
    };
    base + modifier
}

/// Points a gunboat (ft-rules §9.2).
fn gunboat_price(t: GunboatType) -> u32 {
    match t {
        GunboatType::Beam | GunboatType::Pds => 9,
        GunboatType::Gatling => 15,
        GunboatType::Torpedo
        | GunboatType::KGun
        | GunboatType::Rocket
        | GunboatType::Submunition
        | GunboatType::Missile => 12,
    }
}

fn armour_boxes(armour: Option<&Armour>) -> usize {
    armour.map_or(0, |a| a.layers().iter().map(|l| l.len()).sum())
}

/// A mass for a record that gives none: what its boxes and systems add up to.
fn mass_estimate(ship: &Ship) -> u32 {
    let systems: u32 = ship.systems.iter().filter_map(|s| s.mass).sum();
    to_u32(ship.hull_boxes() + armour_boxes(ship.armour.as_ref())).saturating_add(systems)
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// What a hull costs apart from its systems.
struct Hull {
    mass: u32,
    boxes: usize,
    rows: usize,
    armour: usize,
    /// Mass and points of the drive (none for a base).
    fixed_mass: u32,
    fixed_points: u32,
}

impl Hull {
    /// Its points with `systems`, and how many of them the rules price
    /// nowhere (they share the mass left over).
    fn points<'a>(&self, systems: impl IntoIterator<Item = &'a System>, profile: Profile) -> (u32, u32) {
        // Hull boxes in half points: 4 on four rows, 6 on three, 3 on five, 2 on six or more.
        let half = match self.rows {
            0..=3 => 6,
            4 => 4,
            5 => 3,
            _ => 2,
        };
        let boxes = to_u32(self.boxes);
        let armour = to_u32(self.armour);
        let hull_points = round_half_up(u64::from(boxes) * half, 2);
        let mut points = self
            .mass
            .saturating_add(hull_points)
            .saturating_add(armour.saturating_mul(2))
            .saturating_add(self.fixed_points);
        let mut used = boxes.saturating_add(armour).saturating_add(self.fixed_mass);
        let mut unpriced = 0;
        for system in systems {
            match system_points(system, self.mass, profile) {
                Some(Priced { mass, points: p }) => {
                    points = points.saturating_add(p);
                    used = used.saturating_add(mass);
                }
                None => unpriced += 1,
            }
        }
        if unpriced > 0 {
            points = points.saturating_add(self.mass.saturating_sub(used).saturating_mul(3));
        }
        (points, unpriced)
    }
}

/// A system's mass and points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Priced {
    pub mass: u32,
    pub points: u32,
}

/// A system's mass and points on a hull of `hull_mass`: its `Cost:` and
/// `Mass:` where given, else by the rules; `None` for a weapon the rules
/// digest prices nowhere (and that gives no `Cost:`).
pub fn system_points(system: &System, hull_mass: u32, profile: Profile) -> Option<Priced> {
    let rule = rule_price(system, hull_mass, profile);
    let mass = system.mass.or(rule.map(|r| r.mass));
    let points = match (system.cost, system.mass, rule) {
        (Some(cost), _, _) => cost,
        (None, Some(mass), _) => mass
            .saturating_mul(price_per_mass(system))
            .saturating_add(carried(system, profile)),
        (None, None, Some(r)) => r.points,
        (None, None, None) => return None,
    };
    Some(Priced {
        mass: mass.unwrap_or(0),
        points,
    })
}

/// Points a mass of this kind of system (3 for most).
fn price_per_mass(system: &System) -> u32 {
    use SystemKind::*;
    match system.kind {
        CommandBridge | PowerCore | LifeSupport | DamageControlParty => 0,
        Ftl => 2,
        FireControl | Adfc | EnhancedSensors | SuperiorSensors | AdvancedScreen => 4,
        ReflexField => 6,
        _ => 3,
    }
}

/// Points a system carries beyond its mass: a hangar bay's fighter group,
/// a damage control party.
fn carried(system: &System, profile: Profile) -> u32 {
    match system.kind {
        SystemKind::HangarBay => 6 * fighter_price(system.fighter_type.unwrap_or(STANDARD)),
        SystemKind::DamageControlParty => dcp_points(profile),
        _ => 0,
    }
}

fn dcp_points(profile: Profile) -> u32 {
    // FTC 5; the More Thrust price for the FT2 profile (ssd/README.md).
    if profile == Profile::Ft2 { 10 } else { 5 }
}

/// Mass and points of a system by the rules, from its kind, arcs, loads and
/// the hull's mass (ft-rules §11, §4.3-4.5).
fn rule_price(system: &System, hull_mass: u32, profile: Profile) -> Option<Priced> {
    use SystemKind::*;
    // Mass by arcs as written: FT2's four arcs price as FB1's six (ssd/README.md).
    let arcs = to_u32(system.arcs.len()).max(1);
    let share = |percent_tenths: u64| round_half_up_min1(u64::from(hull_mass) * percent_tenths, 1000);
    let at = |mass: u32, rate: u32| {
        Some(Priced {
            mass,
            points: mass.saturating_mul(rate),
        })
    };
    let er = system.ammo == Some(AmmoType::Er);
    match &system.kind {
        CommandBridge | PowerCore | LifeSupport => at(0, 0),
        DamageControlParty => Some(Priced {
            mass: 0,
            points: dcp_points(profile),
        }),
        Ftl => at(share(100), 2),
        ScreenGenerator => at(share(50), 3),
        AdvancedScreen => at(share(75), 4),
        ReflexField => at(share(100), 6),
        FireControl => at(1, 4),
        Adfc | EnhancedSensors => at(2, 4),
        SuperiorSensors => at(4, 4),
        Pds | SubmunitionPack => at(1, 3),
        Adaf => at(2, 3),
        Beam { class } => at(beam_mass(*class, arcs)?, 3),
        PulseTorpedo { .. } => at(4 + arcs.min(3) - 1, 3),
        NeedleBeam => at(2 + arcs.min(3) - 1, 3),
        Sml => at(3, 3),
        Smr => at(if er { 5 } else { 4 }, 3),
        Smm => at(system.capacity.unwrap_or(1).saturating_mul(if er { 3 } else { 2 }), 3),
        Missile { .. } => at(if er { 3 } else { 2 }, 3),
        HangarBay => Some(Priced {
            mass: 6,
            points: hangar_bay_points(system.fighter_type),
        }),
        Minesweeper => at(5, 3),
        Ortillery => at(3, 3),
        WaveGun => at(12, 3),
        NovaCannon => at(20, 3),
        _ => None,
    }
}

/// A beam battery's mass by class and arcs (ft-rules §11); FT2's A, B and C
/// batteries are classes 3, 2 and 1.
fn beam_mass(class: u8, arcs: u32) -> Option<u32> {
    match class {
        1 => Some(1),
        2 => Some(if arcs <= 3 { 2 } else { 3 }),
        3 => Some(4 + arcs - 1),
        4 => Some(8 + 2 * (arcs - 1)),
        5 => Some(16 + 4 * (arcs - 1)),
        _ => None,
    }
}
