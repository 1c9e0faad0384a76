//! The Volley step's working memory, which the Volley step (`volley`), the
//! small-craft steps (`craft`) and reflex fields (`reflex`) share: the
//! `Scratch` sized once per battle, what it holds (missiles waiting for
//! point defence, small craft's shots, damage by kind, the weapon-use
//! record), and the small helpers that note an idle weapon. It sits below
//! those steps, so none of them needs another's module for its types.

use super::dice::{BeamResult, Pile, REROLL_GENERATIONS, Roll, RollSink};
use super::event::{Sink, WeaponIdle};
use super::plot::{ExchangePlot, FormationId, Maneuver, SystemId, UnitId, VolleyPlot};
use super::state::Battle;
use crate::model::SystemKind;

/// Where a damage-control job stands in its Unit's order: its place in
/// the plotted list (none: after every listed one), its default rank, and
/// the job itself (the drive first, then systems in order), so no two jobs
/// of a Unit have the same key.
pub type JobKey = (usize, (u32, u32), usize);

/// What dealt damage, for the batch's "damage dealt by weapon kind".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DamageKind {
    Beam,
    Torpedo,
    SalvoMissile,
    HeavyMissile,
    Submunition,
    Needle,
    PointDefence,
    ReactorBlast,
    /// Fighter attack and torpedo runs.
    Fighter,
    /// Gunboat attacks.
    Gunboat,
    /// Kinetic guns and MKP packs (armour-piercing).
    Kinetic,
    /// Plasma bolts.
    PlasmaBolt,
    /// Rocket pods' rockets.
    Rocket,
    /// Antimatter missiles (and racks exploding on their own ship).
    Antimatter,
    /// Boarding torpedoes' hull points.
    BoardingTorpedo,
    /// Wave guns.
    WaveGun,
    /// Nova cannons' blasts.
    NovaCannon,
}

impl DamageKind {
    pub const COUNT: usize = 17;
    pub const ALL: [DamageKind; 17] = [
        DamageKind::Beam,
        DamageKind::Torpedo,
        DamageKind::SalvoMissile,
        DamageKind::HeavyMissile,
        DamageKind::Submunition,
        DamageKind::Needle,
        DamageKind::PointDefence,
        DamageKind::ReactorBlast,
        DamageKind::Fighter,
        DamageKind::Gunboat,
        DamageKind::Kinetic,
        DamageKind::PlasmaBolt,
        DamageKind::Rocket,
        DamageKind::Antimatter,
        DamageKind::BoardingTorpedo,
        DamageKind::WaveGun,
        DamageKind::NovaCannon,
    ];

    pub fn key(self) -> &'static str {
        match self {
            DamageKind::Beam => "beam",
            DamageKind::Torpedo => "torpedo",
            DamageKind::SalvoMissile => "salvo_missile",
            DamageKind::HeavyMissile => "heavy_missile",
            DamageKind::Submunition => "submunition",
            DamageKind::Needle => "needle",
            DamageKind::PointDefence => "pds",
            DamageKind::ReactorBlast => "reactor_blast",
            DamageKind::Fighter => "fighter",
            DamageKind::Gunboat => "gunboat",
            DamageKind::Kinetic => "kinetic",
            DamageKind::PlasmaBolt => "plasma_bolt",
            DamageKind::Rocket => "rocket",
            DamageKind::Antimatter => "antimatter_missile",
            DamageKind::BoardingTorpedo => "boarding_torpedo",
            DamageKind::WaveGun => "wave_gun",
            DamageKind::NovaCannon => "nova_cannon",
        }
    }
}

/// How one weapon was used since the last [`Scratch::clear_weapon_use`]
/// (in a batch: one run), noted by the fire and point-defence steps at no
/// cost beyond setting a bit: no event, no allocation, no die.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WeaponUse(u8);

impl WeaponUse {
    pub(super) const PLOTTED: u8 = 1;
    pub(super) const POINT_DEFENCE: u8 = 2;
    pub(super) const FIRED: u8 = 4;
    pub(super) const OUT_OF_RANGE: u8 = 8;
    pub(super) const STOPPED: u8 = 16;

    /// Plotted to fire: in the weapons of a fire order with a target, or in
    /// a point-defence order.
    pub fn plotted(self) -> bool {
        self.0 & Self::PLOTTED != 0
    }

    /// Plotted in point-defence mode (a point-defence order).
    pub fn point_defence(self) -> bool {
        self.0 & Self::POINT_DEFENCE != 0
    }

    /// Rolled at least one attack or point-defence die (PDS that defend
    /// automatically included), or launched ordnance at a target within its
    /// reach.
    pub fn fired(self) -> bool {
        self.0 & Self::FIRED != 0
    }

    /// Plotted at a target beyond its reach at least once (the "out of
    /// range" idle paths, PDS at ships beyond 6 MU, ordnance launched beyond
    /// missile range and lost).
    pub fn out_of_range(self) -> bool {
        self.0 & Self::OUT_OF_RANGE != 0
    }

    /// Plotted, but at least once it could not fire: its Unit was out of
    /// the fight or out of control, its Fire Control or the weapon itself
    /// was knocked out, or its ordnance (its magazine) was spent or lost.
    pub fn stopped(self) -> bool {
        self.0 & Self::STOPPED != 0
    }
}

/// Every weapon's [`WeaponUse`], by Unit and system ([`Scratch::weapon_use`]).
#[derive(Debug, Clone, Copy)]
pub struct WeaponUses<'a> {
    pub(super) first: &'a [usize],
    pub(super) flags: &'a [WeaponUse],
}

impl WeaponUses<'_> {
    /// How system `system` of Unit `unit` was used; unused for a system the
    /// battle does not have.
    pub fn get(&self, unit: UnitId, system: SystemId) -> WeaponUse {
        use_index(self.first, unit, system)
            .and_then(|i| self.flags.get(i))
            .copied()
            .unwrap_or_default()
    }
}

/// Working memory reused between Volleys and runs, so a batch allocates
/// nothing per run once warmed up.
#[derive(Debug, Default, Clone)]
pub struct Scratch {
    /// The Formations in the fight at the start of the Maneuver step, in
    /// order (read once, for its pair loop).
    pub(super) in_fight: Vec<FormationId>,
    /// Row `a`, column `b`: the maneuver Formation `a` brings to its pair
    /// with `b` this Volley (one byte a pair).
    pub(super) moves: Vec<Maneuver>,
    /// Per Formation: its primary maneuver target this Volley.
    pub(super) primary: Vec<Option<FormationId>>,
    pub(super) speed_points: Vec<u32>,
    pub(super) evasion_points: Vec<u32>,
    /// Per Unit: normal and penetrating damage waiting for the Damage step.
    pub(super) pending: Vec<(u32, u32)>,
    /// Per Unit: the beam reroll share of its penetrating damage by
    /// generation, for layered armour (ft-rules §1.4, A34).
    pub(super) reroll_generations: Vec<[u32; REROLL_GENERATIONS]>,
    /// Per Unit: rows completed in this Volley (for threshold checks).
    pub(super) rows_this_volley: Vec<u32>,
    pub(super) bands: Vec<(UnitId, u8)>,
    /// The targeting bands of every Formation fired at this Volley, one
    /// after another, and where each Formation's are (made at its first
    /// Fire Control: no Unit that bands count leaves during fire).
    pub(super) band_sets: Vec<(UnitId, u8)>,
    pub(super) band_span: Vec<Option<(usize, usize)>>,
    /// Per Formation: the targeting bands last made for it, kept from
    /// Volley to Volley while what they are made from stays the same.
    pub(super) bands_kept: Vec<KeptBands>,
    pub(super) ranks: Vec<UnitId>,
    pub(super) shares: Vec<i64>,
    pub(super) jobs: Vec<(JobKey, Option<SystemId>)>,
    /// Missile attacks waiting for point defence.
    pub(super) shots: Vec<MissileShot>,
    /// Weapons that fired at ships this Volley (they cannot also defend).
    pub(super) fired: Vec<(UnitId, SystemId)>,
    /// Plasma bolt launchers that fired in the Volley before (recharging)
    /// and in this one (reading W35).
    pub(super) bolts_last: Vec<(UnitId, SystemId)>,
    pub(super) bolts_now: Vec<(UnitId, SystemId)>,
    /// Wave guns' charge this Exchange (reading W59).
    pub(super) wave_charge: Vec<(UnitId, SystemId, u32)>,
    /// Damage straight to the hull (wave guns), waiting for the Damage step.
    pub(super) hull: Vec<(UnitId, u32)>,
    /// Semi-armour-piercing hits waiting for the Damage step.
    pub(super) sap: Vec<(UnitId, u32)>,
    /// Armour-piercing hits (K-guns, MKP) waiting for the Damage step.
    pub(super) ap: Vec<(UnitId, u32)>,
    /// EMP projector shots that scored (firing Unit, weapon, target, hits),
    /// whose threshold tests wait for the threshold step (W45).
    pub(super) emp: Vec<(UnitId, SystemId, UnitId, u32)>,
    /// Hull points that bypass all armour (boarding torpedoes), waiting
    /// for the Damage step.
    pub(super) hull_hits: Vec<(UnitId, u32)>,
    /// Systems destroyed outright (needle beams), applied with the damage.
    pub(super) kills: Vec<(UnitId, SystemId)>,
    /// Point-defence weapons and the threat (index in `shots`) each defends against.
    pub(super) pd_assign: Vec<(UnitId, SystemId, usize)>,
    /// Evasion Points left for PD rerolls, per Formation.
    pub(super) pd_evasion: Vec<u32>,
    /// Units whose power core rolls in this Volley's reactor step.
    pub(super) breached: Vec<UnitId>,
    pub(super) pd_open: Vec<f64>,
    pub(super) pd_covered: Vec<UnitId>,
    pub(super) pd_order: Vec<(SystemId, Option<UnitId>, bool)>,
    /// The threats' indices by the Formation of the Unit each is aimed
    /// at, then by index: the threats a Formation's point defence may
    /// answer are one run of it.
    pub(super) pd_by_formation: Vec<(FormationId, usize)>,
    /// Damage points scored per attacking side and kind (before armour and
    /// the last hull box cap them), summed until cleared.
    pub(super) dealt: Vec<[u64; DamageKind::COUNT]>,
    /// Per Unit: the index of its first system in `weapon_use`, then one
    /// past the last Unit's last system.
    pub(super) weapon_first: Vec<usize>,
    /// Per system of every Unit: how it was used since the last clear.
    pub(super) weapon_use: Vec<WeaponUse>,
    /// Fighter groups and gunboat squadrons this Volley.
    pub(super) craft: CraftScratch,
    /// Ships whose reflex field is raised this Volley (reading W60).
    pub(super) reflex: Vec<UnitId>,
    /// Ships firing a nova cannon this Volley (reading W63): no thrust, no
    /// screens, no other fire.
    pub(super) nova: Vec<UnitId>,
    /// Per Unit: its screen level and whether it has a working vapour
    /// shroud ([`UNREAD`] until a shot first asks). Neither changes from
    /// the Fire step to the Damage step, so each is read once a Volley.
    screen_level: Vec<u8>,
    shrouded: Vec<u8>,
    /// No Unit of the battle has a nova cannon (found when the Exchange is
    /// sized, [`Scratch::size_for`]; unset, every Volley looks).
    pub(super) no_novas: bool,
}

/// A fact of a Unit not read yet this Volley.
const UNREAD: u8 = u8::MAX;

/// The fact in `slot`, read by `read` the first time.
fn read_once(slot: &mut u8, read: impl FnOnce() -> u8) -> u8 {
    if *slot == UNREAD {
        *slot = read();
    }
    *slot
}

impl Scratch {
    /// Forgets the screens read: from here on until the Damage step, no
    /// Unit's screens, shroud or switch changes ([`Scratch::screen_met`]).
    pub(super) fn unread_screens(&mut self, units: usize) {
        self.screen_level.clear();
        self.screen_level.resize(units, UNREAD);
        self.shrouded.clear();
        self.shrouded.resize(units, UNREAD);
    }

    /// [`Battle::screen_met`], each Unit's screens and shroud read once a
    /// Volley.
    pub(super) fn screen_met(&mut self, battle: &Battle, from: UnitId, at: UnitId) -> u8 {
        let met = battle.screen_met_by(
            || read_once(&mut self.screen_level[at], || battle.units[at].screen_level()),
            || read_once(&mut self.shrouded[from], || u8::from(battle.units[from].shrouded())) == 1,
        );
        debug_assert_eq!(met, battle.screen_met(from, at), "screens read before they changed");
        met
    }

    /// Damage points scored since the last clear, per side and kind.
    pub fn damage_dealt(&self) -> &[[u64; DamageKind::COUNT]] {
        &self.dealt
    }

    /// Starts counting damage dealt afresh for a battle of `sides` sides.
    pub fn clear_damage_dealt(&mut self, sides: usize) {
        self.dealt.clear();
        self.dealt.resize(sides, [0; DamageKind::COUNT]);
    }

    /// How each weapon was used since the last [`Scratch::clear_weapon_use`]
    /// (or since the Scratch first played this battle).
    pub fn weapon_use(&self) -> WeaponUses<'_> {
        WeaponUses {
            first: &self.weapon_first,
            flags: &self.weapon_use,
        }
    }

    /// Forgets how weapons were used and lays the record out for `battle`
    /// (every system of every Unit). Allocates nothing once it has held a
    /// battle of this size.
    pub fn clear_weapon_use(&mut self, battle: &Battle) {
        self.weapon_first.clear();
        let mut next = 0;
        for unit in &battle.units {
            self.weapon_first.push(next);
            next += unit.systems.len();
        }
        self.weapon_first.push(next);
        self.weapon_use.clear();
        self.weapon_use.resize(next, WeaponUse::default());
    }

    /// Notes `flag` (a [`WeaponUse`] bit) on a Unit's system.
    pub(super) fn note_use(&mut self, unit: UnitId, system: SystemId, flag: u8) {
        note(&self.weapon_first, &mut self.weapon_use, unit, system, flag);
    }

    /// Gives every buffer room for the most `battle` can ask of it in one
    /// Volley, so that no buffer grows in a warm batch worker when a rare
    /// roll asks for more than earlier runs did. Buffers hold Units,
    /// systems or Formations; missile and submunition damage is counted in
    /// hits (at most six per system before rerolls; a buffer may still
    /// grow past that on a long run of rerolls).
    pub(super) fn size_for(&mut self, battle: &Battle) {
        let units = battle.units.len();
        let formations = battle.formations.len();
        let systems: usize = battle.units.iter().map(|u| u.systems.len()).sum();
        for v in [&mut self.speed_points, &mut self.evasion_points, &mut self.pd_evasion] {
            room(v, formations);
        }
        room(&mut self.in_fight, formations);
        room(&mut self.moves, formations * formations);
        room(&mut self.primary, formations);
        room(&mut self.pending, units);
        room(&mut self.reroll_generations, units);
        room(&mut self.rows_this_volley, units);
        room(&mut self.bands, units);
        room(&mut self.band_sets, units);
        room(&mut self.band_span, formations);
        // Each Formation's kept bands hold at most its Units.
        if self.bands_kept.len() < formations {
            self.bands_kept.resize_with(formations, KeptBands::default);
        }
        for (kept, f) in self.bands_kept.iter_mut().zip(&battle.formations) {
            kept.make_room(f.units.len());
        }
        room(&mut self.ranks, units);
        room(&mut self.shares, units);
        room(&mut self.breached, units);
        room(&mut self.pd_covered, units);
        room(&mut self.jobs, systems);
        room(&mut self.shots, systems);
        room(&mut self.fired, systems);
        room(&mut self.kills, systems);
        room(&mut self.pd_assign, systems);
        room(&mut self.pd_open, systems);
        room(&mut self.pd_order, systems);
        room(&mut self.pd_by_formation, systems);
        room(&mut self.sap, 8 * systems);
        room(&mut self.ap, 2 * systems);
        room(&mut self.emp, systems);
        room(&mut self.hull_hits, systems);
        room(&mut self.reflex, units);
        room(&mut self.nova, units);
        // What a system is never changes: a battle without nova cannons
        // never arms one.
        self.no_novas = !battle
            .units
            .iter()
            .any(|u| u.systems.iter().any(|s| s.kind.is(&SystemKind::NovaCannon)));
        // The weapon-use record lives across Exchanges: laid out afresh only
        // for a battle of another shape.
        if self.weapon_first.len() != units + 1 || self.weapon_first.last() != Some(&systems) {
            self.clear_weapon_use(battle);
        }
    }

    /// Adds a beam-dice attack's damage to `target`'s pending damage,
    /// its rerolls by generation too.
    pub(super) fn add_beam(&mut self, target: UnitId, result: &BeamResult) {
        let p = &mut self.pending[target];
        p.0 += result.normal;
        p.1 += result.penetrating;
        for (sum, g) in self.reroll_generations[target].iter_mut().zip(&result.generations) {
            *sum += g;
        }
    }

    pub(super) fn deal(&mut self, side: usize, kind: DamageKind, points: u32) {
        if self.dealt.len() <= side {
            self.dealt.resize(side + 1, [0; DamageKind::COUNT]);
        }
        self.dealt[side][kind as usize] += u64::from(points);
    }
}

/// The targeting bands made for a Formation, with what they were made
/// from: the Units they count (those in the fight that are not small
/// craft, in Formation order) with their masses, and the plotted shifts.
/// Bands are a function of those alone (fm-readings 10-11), so while they
/// are the same the bands are read back rather than made again; most
/// Volleys no Unit of a Formation leaves it. Nothing kept yet reads as the
/// bands of no Unit and no shift: none, as they are.
#[derive(Debug, Default, Clone)]
pub struct KeptBands {
    units: Vec<(UnitId, u32)>,
    shifts: Vec<(UnitId, i32)>,
    bands: Vec<(UnitId, u8)>,
}

impl KeptBands {
    fn make_room(&mut self, units: usize) {
        room(&mut self.units, units);
        room(&mut self.shifts, units);
        room(&mut self.bands, units);
    }

    /// Whether the bands kept were made from `units` and `shifts`.
    pub(super) fn made_from(&self, units: impl Iterator<Item = (UnitId, u32)>, shifts: &[(UnitId, i32)]) -> bool {
        self.shifts == shifts && units.eq(self.units.iter().copied())
    }

    /// The bands last kept.
    pub(super) fn bands(&self) -> &[(UnitId, u8)] {
        &self.bands
    }

    /// Keeps `bands`, made from `units` and `shifts`.
    pub(super) fn keep(
        &mut self,
        units: impl Iterator<Item = (UnitId, u32)>,
        shifts: &[(UnitId, i32)],
        bands: &[(UnitId, u8)],
    ) {
        self.units.clear();
        self.units.extend(units);
        self.shifts.clear();
        self.shifts.extend_from_slice(shifts);
        self.bands.clear();
        self.bands.extend_from_slice(bands);
    }
}

/// Makes sure `v` can hold `n` items in all without growing (buffers of a
/// batch worker are sized once and never grow afterwards).
pub(super) fn room<T>(v: &mut Vec<T>, n: usize) {
    if v.capacity() < n {
        v.reserve(n - v.len());
    }
}

static NO_PLOT: VolleyPlot = VolleyPlot {
    speed: 0,
    evasion: 0,
    primary: None,
    secondary: Vec::new(),
    shifts: Vec::new(),
    fire: Vec::new(),
    point_defence: Vec::new(),
    damage_control: Vec::new(),
    launch: Vec::new(),
    recover: Vec::new(),
    craft: Vec::new(),
    after: None,
    reflex: Vec::new(),
};

pub(super) fn volley_plot(plot: &ExchangePlot, f: FormationId, volley: u8) -> &VolleyPlot {
    plot.formations
        .get(f)
        .and_then(Option::as_ref)
        .map_or(&NO_PLOT, |p| &p.volleys[volley as usize])
}

/// A missile attack waiting for point defence: launched in the Fire step,
/// resolved after every Fire Control has fired.
#[derive(Debug, Clone, Copy)]
pub(super) struct MissileShot {
    /// The launching Unit, or the attacking group.
    pub(super) unit: UnitId,
    /// The launcher; [`CRAFT_THREAT`] for an attacking group.
    pub(super) weapon: SystemId,
    pub(super) target: UnitId,
    pub(super) heavy: bool,
    pub(super) on_target: u32,
    pub(super) killed: u32,
    /// What the threat carries: missiles, rockets, an antimatter warhead.
    pub(super) payload: Payload,
}

/// What a [`MissileShot`] carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Payload {
    /// Salvo or heavy missiles, or attacking craft.
    Missiles,
    /// A rocket pod's rockets that hit (readings W50-W52): PD shoots at
    /// them as at salvo missiles; each left does 1d3 semi-armour-piercing.
    Rockets,
    /// An antimatter missile (readings W53-W55): `on_target` is its damage
    /// dice; each PD kill takes one.
    Antimatter,
}

impl MissileShot {
    pub(super) fn is_missile(&self) -> bool {
        self.weapon != CRAFT_THREAT
    }

    /// Whether point defence reads this threat on the heavy-missile
    /// column: a heavy missile, or an antimatter missile by the
    /// `antimatter_pd_heavy` switch (reading W54).
    pub(super) fn heavy_column(&self, rules: &super::rules::Rules) -> bool {
        self.heavy || self.payload == Payload::Antimatter && rules.antimatter_pd_heavy
    }

    /// Missiles (or craft) still coming.
    pub(super) fn left(&self) -> u32 {
        self.on_target.saturating_sub(self.killed)
    }
}

/// A weapon that did not fire, and why.
pub(super) fn idle_weapon<S: Sink>(sink: &mut S, unit: UnitId, weapon: SystemId, reason: &'static str) {
    idle(sink, unit, weapon, reason);
}

pub(super) fn idle<S: Sink>(sink: &mut S, unit: UnitId, weapon: SystemId, reason: &'static str) {
    if S::RECORDS {
        sink.event(WeaponIdle { unit, weapon, reason });
    }
}

/// A weapon plotted at a target beyond its reach: noted in the weapon-use
/// record, and idle.
pub(super) fn out_of_range<S: Sink>(
    sink: &mut S,
    scratch: &mut Scratch,
    unit: UnitId,
    weapon: SystemId,
    reason: &'static str,
) {
    scratch.note_use(unit, weapon, WeaponUse::OUT_OF_RANGE);
    idle(sink, unit, weapon, reason);
}

/// A plotted weapon that cannot fire because it, its Fire Control or its
/// Unit is out of action or its ordnance is spent: noted in the weapon-use
/// record, and idle.
pub(super) fn stopped<S: Sink>(
    sink: &mut S,
    scratch: &mut Scratch,
    unit: UnitId,
    weapon: SystemId,
    reason: &'static str,
) {
    scratch.note_use(unit, weapon, WeaponUse::STOPPED);
    idle(sink, unit, weapon, reason);
}

/// A roll sink that passes every die on and, when the outer sink records,
/// also keeps the faces (initial and reroll piles apart) for an event.
pub(super) struct Tap<'a, S: Sink> {
    pub(super) inner: &'a mut S,
    pub(super) faces: Vec<u8>,
    pub(super) rerolls: Vec<u8>,
    pub(super) evasion: Vec<u8>,
    /// Natural ones among the initial dice (counted even when not recording).
    pub(super) ones: u32,
}

impl<'a, S: Sink> Tap<'a, S> {
    pub(super) fn new(inner: &'a mut S) -> Self {
        Tap {
            inner,
            faces: Vec::new(),
            rerolls: Vec::new(),
            evasion: Vec::new(),
            ones: 0,
        }
    }

    /// The initial faces so far (empty when not recording).
    pub(super) fn take(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.faces)
    }

    /// Puts faces taken earlier back as the initial faces.
    pub(super) fn put_back(&mut self, faces: Vec<u8>) {
        self.faces = faces;
    }
}

impl<S: Sink> RollSink for Tap<'_, S> {
    #[inline]
    fn roll(&mut self, roll: Roll) {
        self.inner.roll(roll);
        if roll.pile == Pile::Initial && roll.face == 1 {
            self.ones += 1;
        }
        if S::RECORDS {
            match roll.pile {
                Pile::Initial => self.faces.push(roll.face),
                Pile::Reroll => self.rerolls.push(roll.face),
                Pile::EvasionReroll => self.evasion.push(roll.face),
            }
        }
    }
}

/// Whom a group fires at this Volley.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shot {
    /// An attack run (torpedo run, gunboat attack) on a ship.
    Run(UnitId),
    /// A dogfight with a group (or an attack on a gunboat squadron).
    Dogfight(UnitId),
}

/// Per-Volley small-craft working memory (part of [`Scratch`]).
#[derive(Debug, Default, Clone)]
pub struct CraftScratch {
    /// The battle has small craft: otherwise every step here is skipped.
    pub any: bool,
    pub fires_at: Vec<Option<Shot>>,
    pub engaged: Vec<bool>,
    pub(super) engaged_by: Vec<Option<UnitId>>,
    /// Exhausted when the Volley's combat began.
    pub(super) exhausted: Vec<bool>,
    /// Interception: `Some(None)` for any Unit of the group's Formation,
    /// `Some(Some(ship))` for a screen's own ship.
    pub intercept: Vec<Option<Option<UnitId>>>,
    /// Craft lost in dogfights and to ship fire, applied at the Damage step.
    pub(super) losses: Vec<u32>,
    /// Carriers that launched or recovered this Volley.
    pub busy: Vec<bool>,
    /// Formations that roll no Speed this Volley (a carrier launched).
    pub no_speed: Vec<bool>,
    /// Launches plus recoveries per carrier this Volley.
    pub(super) deck: Vec<u32>,
    pub(super) screens: Vec<(UnitId, UnitId)>,
    pub(super) attackers: Vec<(UnitId, UnitId)>,
    pub(super) free: Vec<UnitId>,
    pub(super) queue: Vec<UnitId>,
    pub(super) ships: Vec<UnitId>,
}

impl CraftScratch {
    /// Sizes and clears everything for a Volley of `battle`.
    pub fn start(&mut self, battle: &Battle) {
        self.any = battle.units.iter().any(|u| u.is_craft());
        if !self.any {
            return;
        }
        let nu = battle.units.len();
        let nf = battle.formations.len();
        self.fires_at.clear();
        self.fires_at.resize(nu, None);
        self.engaged.clear();
        self.engaged.resize(nu, false);
        self.engaged_by.clear();
        self.engaged_by.resize(nu, None);
        self.exhausted.clear();
        self.exhausted.resize(nu, false);
        self.intercept.clear();
        self.intercept.resize(nu, None);
        self.losses.clear();
        self.losses.resize(nu, 0);
        self.busy.clear();
        self.busy.resize(nu, false);
        self.no_speed.clear();
        self.no_speed.resize(nf, false);
        self.deck.clear();
        self.deck.resize(nu, 0);
        for v in [&mut self.free, &mut self.queue, &mut self.ships] {
            room(v, nu);
        }
        room(&mut self.screens, nu);
        room(&mut self.attackers, nu);
    }

    /// Whether the carrier `u` gives no area defence this Volley.
    pub fn carrier_busy(&self, u: UnitId) -> bool {
        self.any && self.busy.get(u).copied().unwrap_or(false)
    }
}

/// The index of a Unit's system in a flat per-system buffer laid out by
/// `first` (the index of each Unit's first system, then the end).
pub(super) fn use_index(first: &[usize], unit: UnitId, system: SystemId) -> Option<usize> {
    let start = *first.get(unit)?;
    let end = *first.get(unit + 1)?;
    let i = start.checked_add(system)?;
    (i < end).then_some(i)
}

/// Notes `flag` on a Unit's system in a weapon-use record laid out by
/// `first` (for callers that hold other parts of the [`Scratch`]).
pub(super) fn note(first: &[usize], flags: &mut [WeaponUse], unit: UnitId, system: SystemId, flag: u8) {
    if let Some(u) = use_index(first, unit, system).and_then(|i| flags.get_mut(i)) {
        u.0 |= flag;
    }
}

/// The `weapon` of a PD threat that is a group making an attack run.
pub const CRAFT_THREAT: SystemId = SystemId::MAX;
