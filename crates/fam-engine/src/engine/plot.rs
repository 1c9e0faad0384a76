//! Plots: what each Formation was ordered to do in each Volley of an
//! Exchange, already validated by the orders layer (`crate::orders`).
//! Indices refer to `Battle::formations` and `Battle::units`.

/// Index of a Formation in `Battle::formations`.
pub type FormationId = usize;
/// Index of a Unit in `Battle::units`.
pub type UnitId = usize;
/// Index of a system in a Unit's system list (0-based; shown 1-based).
pub type SystemId = usize;

/// A Maneuver against one target Formation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Maneuver {
    Close,
    Maintain,
    Withdraw,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ManeuverOrder {
    pub target: FormationId,
    pub maneuver: Maneuver,
}

/// One Fire Control's orders for one Volley.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FireOrder {
    pub unit: UnitId,
    /// The Fire Control system directing this fire.
    pub fire_control: SystemId,
    /// Target Formation; `None` = inactive.
    pub target: Option<FormationId>,
    /// Weapons assigned to this Fire Control. The orders layer expands the
    /// default "all" into the Unit's weapons not assigned elsewhere.
    pub weapons: Vec<SystemId>,
    /// Needle beams among `weapons` name their own Unit and system
    /// (F&M: precision weapons are plotted against specific Units).
    pub needles: Vec<NeedleOrder>,
    /// A fighter group or gunboat squadron this Fire Control engages
    /// instead of a Formation (docs/fighters.md §3.7, §5); `target` is then
    /// the group's Formation.
    pub group: Option<UnitId>,
}

/// A needle beam's target: a Unit of the Fire Control's target Formation
/// and one of its systems (not a core system).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NeedleOrder {
    pub weapon: SystemId,
    pub unit: UnitId,
    pub system: SystemId,
}

/// A point-defence weapon's orders for one Volley. PDS (and FT2 ADAF) not
/// listed defend automatically; a class-1 beam defends only when listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PdOrder {
    pub unit: UnitId,
    pub weapon: SystemId,
    /// The Unit it defends: its own, or (with an ADFC) another Unit of its
    /// Formation. `None` = allocated automatically.
    pub defend: Option<UnitId>,
}

/// A Formation's plot for one Volley.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VolleyPlot {
    /// Speed dice (Speed + Evasion = Formation Thrust; see fm-readings 8 for
    /// the cut when thrust drops).
    pub speed: u32,
    pub evasion: u32,
    pub primary: Option<ManeuverOrder>,
    pub secondary: Vec<ManeuverOrder>,
    /// Percentile shift per Unit (positive = more exposed), in points.
    pub shifts: Vec<(UnitId, i32)>,
    pub fire: Vec<FireOrder>,
    /// Weapons fired in point-defence mode instead of at ships, and PD
    /// weapons given a Unit to defend.
    pub point_defence: Vec<PdOrder>,
    /// Damage-control priority per Unit (systems in order); empty = default.
    pub damage_control: Vec<(UnitId, Vec<SystemId>)>,
    /// Docked groups of this Formation's carriers launched this Volley
    /// (each into the Formation it belongs to).
    pub launch: Vec<UnitId>,
    /// Groups recovered this Volley into a bay of their carrier.
    pub recover: Vec<UnitId>,
    /// What each of this Formation's small-craft Units does this Volley.
    pub craft: Vec<CraftOrder>,
    /// Secondary maneuver of a Formation of small craft only (reading F4).
    pub after: Option<ManeuverOrder>,
    /// Ships that raise their reflex field this Volley (and so do not fire,
    /// point defence included; readings W60, O41).
    pub reflex: Vec<UnitId>,
}

/// One small-craft Unit's action for a Volley (docs/fighters.md §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CraftOrder {
    pub group: UnitId,
    pub action: CraftAction,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CraftAction {
    /// An attack run (or torpedo run, or gunboat attack) on a ship Unit.
    Attack(UnitId),
    /// A dogfight against an enemy group.
    Dogfight(UnitId),
    /// Screen a ship Unit of the own Formation.
    Screen(UnitId),
    /// Intercept missiles aimed at Units of the own Formation.
    Intercept,
}

/// A Formation's plot for a whole Exchange: three Volleys.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FormationPlot {
    pub volleys: [VolleyPlot; 3],
}

/// Every Formation's plot, indexed by `FormationId`. A Formation with no
/// plot holds `None`: it maintains against everything and does not fire.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExchangePlot {
    pub formations: Vec<Option<FormationPlot>>,
}
