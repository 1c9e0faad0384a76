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
    /// Weapons fired in point-defence mode instead of at ships.
    pub point_defence: Vec<(UnitId, SystemId)>,
    /// Damage-control priority per Unit (systems in order); empty = default.
    pub damage_control: Vec<(UnitId, Vec<SystemId>)>,
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
