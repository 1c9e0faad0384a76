//! What a Volley's checks note beyond the plot itself, for the checks
//! over the whole Exchange (`ammo`, `craft_exchange`): where each weapon
//! list, launch and recovery was written.

use std::ops::Range;

use crate::engine::plot::{SystemId, UnitId};

/// What the ammunition checks need to know about a Volley's fire orders
/// beyond the plot itself.
#[derive(Debug, Clone, Default)]
pub(super) struct Notes {
    /// One per `VolleyPlot::fire` order, in the same order.
    pub(super) fire: Vec<FireNotes>,
    /// Launches, recoveries, and Speed and Evasion of Formations of small craft.
    pub(super) craft: CraftNotes,
}

#[derive(Debug, Clone, Default)]
pub(super) struct FireNotes {
    /// Weapons listed in `weapons`, with where.
    pub(super) explicit: Vec<(SystemId, Range<usize>)>,
    /// The entry's span when it takes the default "all".
    pub(super) default: Option<Range<usize>>,
}

/// Where a group's launch or recovery is written, for the Exchange checks.
#[derive(Debug, Clone, Default)]
pub(super) struct CraftNotes {
    pub launch: Vec<(UnitId, Range<usize>)>,
    pub recover: Vec<(UnitId, Range<usize>)>,
    /// Speed and Evasion as written (value, span), for Formations of small
    /// craft only, whose thrust is known only once every plot is read.
    pub speed: Option<(u32, Range<usize>)>,
    pub evasion: Option<(u32, Range<usize>)>,
    pub span: Range<usize>,
}
