//! Battle state: sides, Formations, Units and the range table.
//!
//! A [`Battle`] is built once from validated input and cannot be invalid
//! afterwards; the Volley phases change it only through their own functions.

use super::plot::{FormationId, UnitId};
use super::rules::Rules;
use crate::model::{self, Activity, DamageState, Profile, ShipType, SystemKind};

/// A commander's side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side {
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Formation {
    pub name: String,
    pub side: usize,
    /// Member Units, in scenario order.
    pub units: Vec<UnitId>,
    /// In the fight, in the off-board Reserve, or entering from it.
    pub reserve: Reserve,
}

/// Where a Formation is (F&M Appendix "Reserves", fm-readings 22).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reserve {
    #[default]
    InCombat,
    /// Off-board: cannot fight or be fought; damage control goes on.
    InReserve,
    /// Plotted "Enter Combat" this Exchange: no maneuver, no fire; arrives
    /// at 60 MU from every enemy Formation when the Exchange ends.
    Entering,
}

/// The state of one system on a Unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SysState {
    /// Working (possibly after a repair).
    Operational,
    /// Knocked out; damage control may repair it.
    Damaged,
    /// Gone for the battle: destroyed in the record, or a loss that cannot
    /// be repaired (magazines, racks, needle kills, spent one-shots).
    Destroyed,
}

/// One system on a Unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sys {
    pub kind: SystemKind,
    /// Arc count as F&M counts it against Evasion (FT2 arcs converted).
    pub arcs: u32,
    pub state: SysState,
    /// Switched off in the record (`Status: Inactive`).
    pub inactive: bool,
    /// Was repaired at least once (written back as `Repaired`).
    pub repaired: bool,
    /// Rounds or loads the system holds (magazine loads, one-shot rounds);
    /// 0 when the system has none.
    pub rounds: u32,
    /// Rounds already spent (fired, or crossed off in the record).
    pub spent: u32,
    /// For a salvo launcher: the magazine (system index) it draws from.
    pub magazine: Option<usize>,
    /// Extended-range ordnance (salvo and heavy missiles).
    pub er: bool,
}

impl Sys {
    /// Rounds not yet spent.
    pub fn rounds_left(&self) -> u32 {
        self.rounds.saturating_sub(self.spent)
    }

    /// Spends one round; false if there was none.
    pub fn spend(&mut self) -> bool {
        if self.rounds_left() == 0 {
            return false;
        }
        self.spent += 1;
        true
    }
}

/// The `Failure:` count of a ship's core system of this kind.
fn core_failure(ship: &model::Ship, kind: SystemKind) -> Option<i64> {
    ship.systems.iter().find(|s| s.kind == kind).and_then(|s| s.failure)
}

/// One-shot weapons: spent when fired (ft-rules §4.1, §4.3-4.4, §5.1;
/// [`SystemKind::is_one_shot`]).
pub fn is_one_shot(kind: &SystemKind) -> bool {
    kind.is_one_shot()
}

impl Sys {
    pub fn operational(&self) -> bool {
        self.state == SysState::Operational && !self.inactive
    }
}

/// Command-bridge state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Control {
    #[default]
    InControl,
    /// Out of control for this many more Volleys (counting the current one).
    OutFor(u8),
    Permanent,
}

/// One layer of layered armour (ft-rules §1.4, §6.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArmourLayer {
    pub total: u32,
    pub lost: u32,
}

impl ArmourLayer {
    pub fn left(self) -> u32 {
        self.total - self.lost.min(self.total)
    }
}

/// One Unit (ship or base) as the engine sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    pub name: String,
    pub side: usize,
    pub formation: FormationId,
    pub profile: Profile,
    pub mass: u32,
    /// Points value: the record's `Cost:`, else the construction rules'
    /// figure (`model::points`); 0 for small craft (their carrier's points
    /// hold them, readings F23).
    pub points: u32,
    pub civilian: bool,
    pub original_thrust: u32,
    pub thrust: u32,
    /// An advanced main drive (`Drive-Type: Advanced`, readings I25).
    pub advanced_drive: bool,
    /// Drive hits taken (0, 1 = halved, 2 = gone).
    pub drive_hits: u8,
    /// The drive was knocked out by a threshold this battle and may be repaired.
    pub drive_damaged: bool,
    /// Armour boxes in all layers, and those lost.
    pub armour_total: u32,
    pub armour_lost: u32,
    /// Layered ("shell") armour, outermost layer first; empty for one layer
    /// (then `armour_total` and `armour_lost` are that layer). With layers,
    /// change armour only through [`Unit::take_armour`], which keeps the
    /// sums above.
    pub armour_layers: Vec<ArmourLayer>,
    /// Hull boxes per row, top row first.
    pub rows: Vec<u32>,
    pub hull_total: u32,
    /// Hull boxes crossed off, counted left to right, top row first.
    pub hull_lost: u32,
    /// 1-based hull box numbers that hold crew factors (FB1 `*` boxes).
    pub crew_boxes: Vec<u32>,
    pub systems: Vec<Sys>,
    pub destroyed: bool,
    /// Struck its colours (optional rule): out of the fight.
    pub surrendered: bool,
    pub control: Control,
    /// Volleys until life support fails; `None` while it works.
    pub life_support_failing: Option<u8>,
    /// The crew has abandoned ship (life support failed): a drifting hulk.
    pub derelict: bool,
    /// A fighter group or gunboat squadron: a Unit with no hull track, no
    /// systems and no mass (docs/fighters.md). `None` for ships.
    pub craft: Option<Craft>,
    /// Launches plus recoveries this Unit may make per Volley beyond its
    /// hangar bays' own limit (`[launch_tubes]`, reading F15); `None` = bays only.
    pub launch_tubes: Option<u32>,
    /// Its screens and vapour shroud are down this Volley: it fires a nova
    /// cannon (ft-rules §4.5; reading W63). Set and cleared within one
    /// Volley.
    pub screens_down: bool,
}

/// A fighter group or gunboat squadron (docs/fighters.md §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Craft {
    pub kind: CraftKind,
    /// Ace or turkey, when the `pilot_quality` switch uses it.
    pub quality: Option<model::PilotQuality>,
    /// Craft still flying.
    pub craft: u32,
    /// Craft boxes in the record (flying or lost), for writing back.
    pub boxes: u32,
    /// Combat endurance left, and the most it holds (re-arming fills it).
    pub cef: u32,
    pub cef_max: u32,
    /// Torpedo fighters: the group's torpedoes are spent this sortie.
    pub torpedoes_spent: bool,
    /// The carrier (a ship Unit) and the hangar bay (its system index) the
    /// group belongs to; `None` for a group without a carrier.
    pub carrier: Option<(UnitId, usize)>,
    /// In its bay: not in the fight, may be launched when ready.
    pub docked: bool,
    /// Volleys until a docked group may launch again (re-arming, §3.9).
    pub rearm: Rearm,
    /// Launched in the current Volley (half thrust, reading F2).
    pub launched_now: bool,
}

/// What a small-craft Unit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CraftKind {
    Fighter(model::FighterType),
    Gunboat(GunboatKind),
}

impl CraftKind {
    /// Thrust equivalent (reading F2): 12 for groups that move 24 MU, 18
    /// for Fast groups, 9 for gunboats.
    pub fn thrust_equivalent(self) -> u32 {
        match self {
            CraftKind::Fighter(t) if t.modifier == Some(model::FighterModifier::Fast) => 18,
            CraftKind::Fighter(_) => 12,
            CraftKind::Gunboat(_) => 9,
        }
    }
}

/// Gunboat types fam models (reading F22).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GunboatKind {
    Beam,
    Torpedo,
    /// A Gatling battery a boat: 6 beam dice to 6 MU, 2 to 12 (F41).
    Gatling,
    /// A K-2 a boat on the short-range projectile table (F42).
    KGun,
    /// Four rockets a boat, fired once (F43).
    Rocket,
    /// Two submunition packs a boat, fired together once (F44).
    Submunition,
    /// One salvo of at most 4 missiles a boat, fired once (F45).
    Missile,
    /// Two PDS dice a boat defending its Formation's ships (F46).
    Pds,
}

impl GunboatKind {
    /// Whether the boats' weapon fires once a battle (F43): a spent
    /// squadron shows its `Rounds:` box crossed off.
    pub fn one_shot(self) -> bool {
        matches!(
            self,
            GunboatKind::Rocket | GunboatKind::Submunition | GunboatKind::Missile
        )
    }
}

impl Craft {
    /// A gunboat squadron whose one-shot weapon is spent: it has nothing
    /// left to attack with.
    pub fn unarmed(&self) -> bool {
        self.torpedoes_spent && matches!(self.kind, CraftKind::Gunboat(k) if k.one_shot())
    }
}

/// Whether a docked group may launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Rearm {
    #[default]
    Ready,
    /// Ready after this many more Volleys.
    In(u32),
    /// Not again this battle.
    Never,
}

impl Unit {
    /// Copies `start`'s changing state into this Unit (same ship), without
    /// reallocating its name or lists.
    pub fn reset_to(&mut self, start: &Unit) {
        if self.systems.len() != start.systems.len() || self.rows != start.rows || self.name != start.name {
            self.clone_from(start);
            return;
        }
        self.thrust = start.thrust;
        self.original_thrust = start.original_thrust;
        self.drive_hits = start.drive_hits;
        self.drive_damaged = start.drive_damaged;
        self.armour_lost = start.armour_lost;
        self.armour_layers.clone_from(&start.armour_layers);
        self.hull_lost = start.hull_lost;
        self.crew_boxes.clone_from(&start.crew_boxes);
        self.destroyed = start.destroyed;
        self.surrendered = start.surrendered;
        self.control = start.control;
        self.life_support_failing = start.life_support_failing;
        self.derelict = start.derelict;
        self.craft = start.craft;
        for (s, t) in self.systems.iter_mut().zip(&start.systems) {
            s.state = t.state;
            s.inactive = t.inactive;
            s.repaired = t.repaired;
            s.spent = t.spent;
            // A Pulser set in a run goes back to its record's setting.
            if s.kind != t.kind {
                s.kind.clone_from(&t.kind);
            }
        }
    }

    /// Builds a Unit from a ship record.
    pub fn from_ship(ship: &model::Ship, profile: Profile, side: usize, formation: FormationId) -> Unit {
        let flat: Vec<model::CheckBox> = ship.damage_track.iter().flatten().copied().collect();
        let hull_lost = flat.iter().filter(|b| b.crossed).count() as u32;
        let crew_boxes = flat
            .iter()
            .enumerate()
            .filter(|(_, b)| b.crew_factor && !b.crossed)
            .map(|(i, _)| i as u32 + 1)
            .collect();
        let (armour_total, armour_lost, armour_layers) = armour_of(ship);
        let mut systems: Vec<Sys> = ship
            .systems
            .iter()
            .map(|s| Sys {
                kind: s.kind.clone(),
                arcs: model::effective_arc_count(&s.arcs, profile),
                state: match s.status.damage {
                    Some(DamageState::Damaged) => SysState::Damaged,
                    Some(DamageState::Destroyed) => SysState::Destroyed,
                    _ => SysState::Operational,
                },
                inactive: s.status.activity == Some(Activity::Inactive),
                repaired: s.status.damage == Some(DamageState::Repaired),
                rounds: match (&s.rounds, s.capacity) {
                    (Some(r), _) => r.len() as u32,
                    (None, Some(c)) if s.kind.is_magazine() => c,
                    (None, _) if is_one_shot(&s.kind) => 1,
                    _ => 0,
                },
                spent: s
                    .rounds
                    .as_ref()
                    .map_or(0, |r| r.iter().filter(|b| b.crossed).count() as u32),
                magazine: None,
                er: s.ammo == Some(model::AmmoType::Er),
            })
            .collect();
        // Launchers draw from the magazine their `Magazine:` id names.
        for (i, s) in ship.systems.iter().enumerate() {
            if !s.kind.draws_on_magazine() {
                continue;
            }
            let magazine = ship.systems.iter().position(|m| {
                m.kind.is_magazine()
                    && m.magazine.is_some()
                    && m.magazine.as_deref().map(str::to_ascii_lowercase)
                        == s.magazine.as_deref().map(str::to_ascii_lowercase)
            });
            systems[i].magazine = magazine;
            if let Some(m) = magazine {
                systems[i].er = ship.systems[m].ammo == Some(model::AmmoType::Er);
            }
        }
        let drive_hits = if ship.thrust == ship.original_thrust {
            0
        } else if ship.thrust == 0 {
            2
        } else {
            1
        };
        let destroyed = ship.status.damage == Some(DamageState::Destroyed)
            || (!flat.is_empty() && hull_lost as usize == flat.len());
        Unit {
            name: ship.name.clone(),
            side,
            formation,
            profile,
            mass: ship.mass.unwrap_or(flat.len() as u32 * 3),
            points: model::points::design_points(ship, profile),
            civilian: matches!(ship.ship_type, Some(ShipType::Civilian | ShipType::Merchant)),
            original_thrust: ship.original_thrust,
            thrust: ship.thrust,
            advanced_drive: ship.advanced_drive,
            drive_hits,
            drive_damaged: drive_hits > 0,
            armour_total,
            armour_lost,
            armour_layers,
            rows: ship.damage_track.iter().map(|r| r.len() as u32).collect(),
            hull_total: flat.len() as u32,
            hull_lost,
            crew_boxes,
            systems,
            destroyed,
            // A ship that struck its colours is written `Status: Inactive`.
            surrendered: ship.status.activity == Some(Activity::Inactive),
            // FB1 `Failure:` on the core systems: Volleys out of control left
            // (none: permanently), Volleys until life support fails.
            control: match (ship.status.uncontrolled, core_failure(ship, SystemKind::CommandBridge)) {
                (false, _) => Control::InControl,
                (true, Some(n)) if (1..=255).contains(&n) => Control::OutFor(n as u8),
                (true, _) => Control::Permanent,
            },
            life_support_failing: core_failure(ship, SystemKind::LifeSupport)
                .filter(|n| (1..=255).contains(n))
                .filter(|_| {
                    ship.systems
                        .iter()
                        .any(|s| s.kind.is(&SystemKind::LifeSupport) && s.status.damage == Some(DamageState::Damaged))
                })
                .map(|n| n as u8),
            derelict: ship.status.lifeless,
            craft: None,
            launch_tubes: None,
            screens_down: false,
        }
    }

    /// Builds a small-craft Unit (docs/fighters.md §1): no hull, no
    /// systems, no mass; its thrust is the thrust equivalent (reading F2:
    /// 12, Fast 18, gunboats 9).
    pub fn from_craft(name: &str, profile: Profile, side: usize, formation: FormationId, craft: Craft) -> Unit {
        let thrust = craft.kind.thrust_equivalent();
        Unit {
            name: name.to_string(),
            side,
            formation,
            profile,
            mass: 0,
            points: 0,
            civilian: false,
            original_thrust: thrust,
            thrust,
            advanced_drive: false,
            drive_hits: 0,
            drive_damaged: false,
            armour_total: 0,
            armour_lost: 0,
            armour_layers: Vec::new(),
            rows: Vec::new(),
            hull_total: 0,
            hull_lost: 0,
            crew_boxes: Vec::new(),
            systems: Vec::new(),
            destroyed: craft.craft == 0,
            surrendered: false,
            control: Control::InControl,
            life_support_failing: None,
            derelict: false,
            craft: Some(craft),
            launch_tubes: None,
            screens_down: false,
        }
    }

    /// Writes a small-craft Unit's state into its Fighter-Group block:
    /// craft lost crossed from the left, endurance spent crossed from the
    /// left, `Status:` Launched / Docked / Destroyed, `Rounds:` for a torpedo
    /// group, `Rearm:` while re-arming. Everything else is kept.
    pub fn write_back_group(&self, g: &mut model::FighterGroup) {
        let Some(c) = &self.craft else { return };
        let lost = c.boxes.saturating_sub(c.craft) as usize;
        if g.craft.len() < c.boxes as usize {
            g.craft.resize(c.boxes as usize, model::CheckBox::OPEN);
        }
        for (i, b) in g.craft.iter_mut().enumerate() {
            *b = if i < lost {
                model::CheckBox::CROSSED
            } else {
                model::CheckBox::OPEN
            };
        }
        let spent = c.cef_max.saturating_sub(c.cef) as usize;
        if spent > 0 || g.endurance.is_some() {
            let boxes = g
                .endurance
                .get_or_insert_with(|| vec![model::CheckBox::OPEN; c.cef_max as usize]);
            if boxes.len() < c.cef_max as usize {
                boxes.resize(c.cef_max as usize, model::CheckBox::OPEN);
            }
            for (i, b) in boxes.iter_mut().enumerate() {
                *b = if i < spent {
                    model::CheckBox::CROSSED
                } else {
                    model::CheckBox::OPEN
                };
            }
        }
        let torpedo = matches!(c.kind, CraftKind::Fighter(t) if t.base == model::FighterBase::Torpedo)
            || matches!(c.kind, CraftKind::Gunboat(k) if k.one_shot());
        if c.torpedoes_spent || (torpedo && g.rounds.is_some()) {
            g.rounds = Some(vec![if c.torpedoes_spent {
                model::CheckBox::CROSSED
            } else {
                model::CheckBox::OPEN
            }]);
        }
        g.rearm = match c.rearm {
            Rearm::Ready => None,
            Rearm::In(n) => Some(model::GroupRearm::Volleys(n)),
            Rearm::Never => Some(model::GroupRearm::Never),
        };
        // The launch word stays with `Destroyed`: it says where the group was
        // lost (and a group placed by its carrier needs no position).
        g.status.launch = Some(if c.docked {
            model::Launch::Docked
        } else {
            model::Launch::Launched
        });
        if self.destroyed || c.craft == 0 {
            g.status.damage = Some(DamageState::Destroyed);
        }
    }

    /// Writes the Unit's state back into its ship record: damage track,
    /// armour, thrust and system statuses. Everything else is kept.
    pub fn write_back(&self, ship: &mut model::Ship) {
        let mut n = 0u32;
        for row in &mut ship.damage_track {
            for b in row.iter_mut() {
                n += 1;
                if n <= self.hull_lost {
                    *b = model::CheckBox::CROSSED;
                }
            }
        }
        match &mut ship.armour {
            Some(model::Armour::Boxes(boxes)) => cross_first(boxes, self.armour_lost),
            Some(model::Armour::Layers(rows)) => {
                for (row, layer) in rows.iter_mut().zip(&self.armour_layers) {
                    cross_first(row, layer.lost);
                }
            }
            _ => {}
        }
        ship.thrust = self.thrust;
        ship.original_thrust = self.original_thrust;
        if self.destroyed {
            ship.status.damage = Some(DamageState::Destroyed);
        }
        if self.surrendered {
            ship.status.activity = Some(Activity::Inactive);
        }
        ship.status.uncontrolled = self.control != Control::InControl;
        ship.status.lifeless = self.derelict;
        for (sys, rec) in self.systems.iter().zip(ship.systems.iter_mut()) {
            match (&sys.kind, self.control, self.life_support_failing) {
                (SystemKind::CommandBridge, Control::OutFor(n), _) => rec.failure = Some(i64::from(n)),
                (SystemKind::CommandBridge, Control::Permanent, _) => rec.failure = None,
                (SystemKind::LifeSupport, _, Some(n)) => rec.failure = Some(i64::from(n)),
                // A Pulser set in the battle keeps its setting (readings W26).
                (SystemKind::Pulser { setting: Some(_) }, _, _) => rec.kind = sys.kind.clone(),
                _ => {}
            }
            // Spent rounds: cross off open boxes, creating the track if the
            // record had none (a magazine counted by Capacity, a one-shot).
            if sys.rounds > 0 && (rec.rounds.is_some() || sys.spent > 0) {
                let boxes = rec
                    .rounds
                    .get_or_insert_with(|| vec![model::CheckBox::OPEN; sys.rounds as usize]);
                let mut to_cross = sys
                    .spent
                    .saturating_sub(boxes.iter().filter(|b| b.crossed).count() as u32);
                for b in boxes.iter_mut() {
                    if to_cross == 0 {
                        break;
                    }
                    if !b.crossed {
                        *b = model::CheckBox::CROSSED;
                        to_cross -= 1;
                    }
                }
            }
            rec.status.damage = match sys.state {
                SysState::Destroyed => Some(DamageState::Destroyed),
                SysState::Damaged => Some(DamageState::Damaged),
                SysState::Operational if sys.repaired => Some(DamageState::Repaired),
                SysState::Operational => rec.status.damage.filter(|d| *d == DamageState::Repaired),
            };
        }
    }

    /// In the fight: not destroyed, not a derelict, not docked in a bay.
    /// (Every fact is read: `|` rather than `||`, so that which Units are
    /// out, which no processor can foresee, costs no branch.)
    pub fn active(&self) -> bool {
        !(self.destroyed | self.derelict | self.surrendered | self.craft.is_some_and(|c| c.docked))
    }

    /// Out of the battle for good: destroyed, a derelict or surrendered (a
    /// docked group is out of the fight but not lost).
    pub fn lost(&self) -> bool {
        self.destroyed || self.derelict || self.surrendered
    }

    /// A fighter group or gunboat squadron.
    pub fn is_craft(&self) -> bool {
        self.craft.is_some()
    }

    pub fn hull_left(&self) -> u32 {
        self.hull_total - self.hull_lost.min(self.hull_total)
    }

    pub fn armour_left(&self) -> u32 {
        self.armour_total - self.armour_lost.min(self.armour_total)
    }

    /// Armour left of all, as reports write it: `left/total`, and for
    /// layered armour each layer's too, outermost first (`5/12: 1/8 4/4`).
    pub fn armour_text(&self) -> String {
        let mut s = format!("{}/{}", self.armour_left(), self.armour_total);
        if !self.armour_layers.is_empty() {
            let layers: Vec<String> = self
                .armour_layers
                .iter()
                .map(|l| format!("{}/{}", l.left(), l.total))
                .collect();
            s.push_str(": ");
            s.push_str(&layers.join(" "));
        }
        s
    }

    /// Armour layers (1 for a single layer or none).
    pub fn armour_layer_count(&self) -> usize {
        self.armour_layers.len().max(1)
    }

    /// Boxes left in armour layer `i` (0 = outermost); 0 past the last.
    pub fn layer_left(&self, i: usize) -> u32 {
        if self.armour_layers.is_empty() {
            if i == 0 { self.armour_left() } else { 0 }
        } else {
            self.armour_layers.get(i).map_or(0, |l| l.left())
        }
    }

    /// The outermost armour layer with boxes left, if any.
    pub fn outermost_intact(&self) -> Option<usize> {
        (0..self.armour_layer_count()).find(|&i| self.layer_left(i) > 0)
    }

    /// Crosses up to `n` boxes of armour layer `i`; returns how many.
    pub fn take_armour(&mut self, i: usize, n: u32) -> u32 {
        let n = n.min(self.layer_left(i));
        if let Some(l) = self.armour_layers.get_mut(i) {
            l.lost += n;
        }
        self.armour_lost += n;
        n
    }

    /// Crew factors left: markers in boxes not yet crossed off.
    pub fn crew_factors(&self) -> u32 {
        self.crew_boxes.iter().filter(|b| **b > self.hull_lost).count() as u32
    }

    /// Damage control parties: one per crew factor (FB1) plus FT2 `Damage
    /// Control Party` systems that work.
    pub fn damage_control_parties(&self) -> u32 {
        let dcp_systems = self
            .systems
            .iter()
            .filter(|s| s.kind.is(&SystemKind::DamageControlParty) && s.operational())
            .count() as u32;
        self.crew_factors() + dcp_systems
    }

    /// Rows fully crossed off.
    pub fn rows_lost(&self) -> usize {
        rows_completed(&self.rows, self.hull_lost)
    }

    /// Screen level: working generators, at most 2 (ft-rules §7.2, A23).
    pub fn screen_level(&self) -> u8 {
        if self.screens_down {
            return 0;
        }
        // One pass over the systems (this is asked for every shot), ended
        // at level 2, the most there is: a working vapour shroud is a
        // level-2 screen (W38).
        let mut level = 0u8;
        for s in self.systems.iter().filter(|s| s.operational()) {
            match s.kind {
                SystemKind::VapourShroud => return 2,
                SystemKind::ScreenGenerator | SystemKind::AdvancedScreen => {
                    level += 1;
                    if level == 2 {
                        return 2;
                    }
                }
                _ => {}
            }
        }
        level
    }

    /// Working advanced screen generators, at most 2: the level that also
    /// stops torpedoes, missiles, submunitions and K-gun doubling
    /// (readings W42).
    pub fn advanced_screen_level(&self) -> u8 {
        if self.screens_down {
            return 0;
        }
        self.systems
            .iter()
            .filter(|s| s.kind.is(&SystemKind::AdvancedScreen) && s.operational())
            .count()
            .min(2) as u8
    }

    /// Has a working (not switched off) vapour shroud (readings W38).
    pub fn shrouded(&self) -> bool {
        !self.screens_down
            && self
                .systems
                .iter()
                .any(|s| s.kind.is(&SystemKind::VapourShroud) && s.operational())
    }

    pub fn fire_controls(&self) -> impl Iterator<Item = usize> + '_ {
        self.systems
            .iter()
            .enumerate()
            .filter(|(_, s)| s.kind.is(&SystemKind::FireControl) && s.operational())
            .map(|(i, _)| i)
    }

    /// Can fire and launch: in the fight and in control.
    pub fn can_act(&self) -> bool {
        self.active() && self.control == Control::InControl
    }

    /// Crippled (Continuum §4.12): the first two hull rows gone, or no
    /// offensive weapon, no Fire Control, or no thrust left.
    pub fn crippled(&self) -> bool {
        if let Some(c) = self.craft {
            // A group is crippled when it has lost half its craft or more.
            return 2 * c.craft <= c.boxes;
        }
        let offensive = self.systems.iter().any(|s| s.operational() && s.kind.is_offensive());
        self.rows_lost() >= 2
            || !offensive
            || self.fire_controls().next().is_none()
            || self.thrust == 0 && self.original_thrust > 0
    }
}

/// A ship record's armour as the engine keeps it: boxes in all layers,
/// boxes lost, and the layers (outermost first) when there are several.
fn armour_of(ship: &model::Ship) -> (u32, u32, Vec<ArmourLayer>) {
    let layers: Vec<ArmourLayer> = ship
        .armour
        .as_ref()
        .map(model::Armour::layers)
        .unwrap_or_default()
        .iter()
        .map(|row| ArmourLayer {
            total: row.len() as u32,
            lost: row.iter().filter(|b| b.crossed).count() as u32,
        })
        .collect();
    let total = layers.iter().map(|l| l.total).sum();
    let lost = layers.iter().map(|l| l.lost).sum();
    (total, lost, if layers.len() > 1 { layers } else { Vec::new() })
}

/// Crosses the first `lost` boxes of an armour row.
fn cross_first(row: &mut [model::CheckBox], lost: u32) {
    for b in row.iter_mut().take(lost as usize) {
        *b = model::CheckBox::CROSSED;
    }
}

/// Number of rows completely crossed off by `lost` boxes.
pub fn rows_completed(rows: &[u32], lost: u32) -> usize {
    let mut end = 0;
    let mut done = 0;
    for r in rows {
        end += r;
        if *r > 0 && lost >= end {
            done += 1;
        } else if *r > 0 {
            break;
        }
    }
    done
}

/// The longest range a battle may be set to (scenarios and standing
/// orders): far beyond any weapon's reach (tens of MU), small enough that no
/// sum of ranges and moves wraps.
pub const MAX_RANGE_MU: u32 = 100_000;

/// Range between every pair of Formations, in MU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeTable {
    n: usize,
    mu: Vec<u32>,
}

impl RangeTable {
    /// No Formations.
    pub const EMPTY: RangeTable = RangeTable { n: 0, mu: Vec::new() };

    /// All pairs at `start` MU.
    pub fn new(n: usize, start: u32) -> Self {
        RangeTable {
            n,
            mu: vec![start; n * n],
        }
    }

    pub fn get(&self, a: FormationId, b: FormationId) -> u32 {
        self.mu[a * self.n + b]
    }

    pub fn set(&mut self, a: FormationId, b: FormationId, mu: u32) {
        self.mu[a * self.n + b] = mu;
        self.mu[b * self.n + a] = mu;
    }

    pub fn len(&self) -> usize {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
}

/// The whole battle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Battle {
    pub sides: Vec<Side>,
    pub formations: Vec<Formation>,
    pub units: Vec<Unit>,
    pub ranges: RangeTable,
    pub rules: Rules,
}

impl Battle {
    /// Each side's points: its Units' points as fielded (reserves
    /// included; small craft count in their carriers, readings F23).
    pub fn side_points(&self) -> Vec<u32> {
        let mut out = vec![0u32; self.sides.len()];
        for u in &self.units {
            if let Some(p) = out.get_mut(u.side) {
                *p = p.saturating_add(u.points);
            }
        }
        out
    }

    /// The screen level fire from Unit `from` meets at Unit `at`: the
    /// target's, and at least level 2 when the firing Unit is shrouded and
    /// its shroud screens its own fire too (switch `vapour_shroud_own_fire`,
    /// readings W38).
    pub fn screen_met(&self, from: UnitId, at: UnitId) -> u8 {
        self.screen_met_by(|| self.units[at].screen_level(), || self.units[from].shrouded())
    }

    /// [`Battle::screen_met`] with the target's screen level and the firing
    /// ship's shroud read as `level` and `shrouded` say (the Volley step
    /// reads each Unit's once a Volley).
    pub fn screen_met_by(&self, level: impl FnOnce() -> u8, shrouded: impl FnOnce() -> bool) -> u8 {
        let level = level();
        // A shroud makes level 2, the most there is: no need to look for
        // one behind a target screened that well already.
        if level < 2 && self.rules.vapour_shroud_own_fire && shrouded() {
            2
        } else {
            level
        }
    }

    /// Makes this battle equal to `start` again, reusing its allocations
    /// (names and system lists are not rebuilt): the batch runner resets one
    /// working battle per thread before every run.
    pub fn reset_to(&mut self, start: &Battle) {
        if self.units.len() != start.units.len()
            || self.formations.len() != start.formations.len()
            || self.sides.len() != start.sides.len()
        {
            self.clone_from(start);
            return;
        }
        for (u, s) in self.units.iter_mut().zip(&start.units) {
            u.reset_to(s);
        }
        for (f, s) in self.formations.iter_mut().zip(&start.formations) {
            f.reserve = s.reserve;
        }
        self.ranges.mu.clone_from(&start.ranges.mu);
        self.ranges.n = start.ranges.n;
        self.rules.clone_from(&start.rules);
    }

    /// Lowest current thrust of the Formation's active Units (fm-readings 6).
    /// Small craft in a Formation with ships do not count (reading F3); a
    /// Formation of small craft only uses their thrust equivalents, halved
    /// for a group launched this Volley (reading F2).
    pub fn formation_thrust(&self, f: FormationId) -> u32 {
        let active = || {
            self.formations[f]
                .units
                .iter()
                .map(|u| &self.units[*u])
                .filter(|u| u.active())
        };
        let ships = active().filter(|u| !u.is_craft()).map(|u| u.thrust).min();
        ships
            .or_else(|| {
                active()
                    .filter_map(|u| u.craft.map(|c| if c.launched_now { u.thrust / 2 } else { u.thrust }))
                    .min()
            })
            .unwrap_or(0)
    }

    /// The most Evasion the Formation may plot out of `thrust`: half of it,
    /// rounded down, or all of it when every active ship of the Formation
    /// has an advanced drive (fm-readings 7, readings I25). Small craft
    /// have no drive to speak of: a Formation of craft only keeps the half.
    pub fn evasion_cap(&self, f: FormationId, thrust: u32) -> u32 {
        let mut ships = self.formations[f]
            .units
            .iter()
            .map(|u| &self.units[*u])
            .filter(|u| u.active() && !u.is_craft())
            .peekable();
        if ships.peek().is_some() && ships.all(|u| u.advanced_drive) {
            thrust
        } else {
            thrust / 2
        }
    }

    /// The Formation has small craft in the fight and no ship in it.
    pub fn craft_only(&self, f: FormationId) -> bool {
        let mut active = self.formations[f]
            .units
            .iter()
            .map(|u| &self.units[*u])
            .filter(|u| u.active());
        let mut any = false;
        active.all(|u| {
            any = true;
            u.is_craft()
        }) && any
    }

    /// Formation has a Unit still in the fight.
    pub fn formation_active(&self, f: FormationId) -> bool {
        self.formations[f].reserve == Reserve::InCombat && self.formation_has_units(f)
    }

    /// Formation has a Unit still in the fight, wherever the Formation is.
    pub fn formation_has_units(&self, f: FormationId) -> bool {
        self.formations[f].units.iter().any(|u| self.units[*u].active())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_complete_only_when_their_last_box_is_crossed() {
        let rows = [4, 4, 4, 3];
        assert_eq!(rows_completed(&rows, 3), 0);
        assert_eq!(rows_completed(&rows, 4), 1);
        assert_eq!(rows_completed(&rows, 11), 2);
        assert_eq!(rows_completed(&rows, 15), 4);
    }
}
