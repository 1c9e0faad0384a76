//! The plan's grid of ranges, every 3 MU, and the sustained fire on it,
//! kept for reading back ([`GridMemo`]).

use super::super::assess::{Arsenal, Defence, DieTables, Firepower, MAX_EVASION_DICE, fact_hash};

/// Ranges are weighed every 3 MU (a Speed Point) from 0 to `3 · (GRID − 1)`.
pub const GRID: usize = 41;
pub(super) const STEP: f64 = 3.0;
/// The ranges of the grid.
pub(super) const RANGES: [u32; GRID] = {
    let mut r = [0; GRID];
    let mut i = 0;
    while i < GRID {
        r[i] = 3 * i as u32;
        i += 1;
    }
    r
};

pub(super) fn grid_range(i: usize) -> u32 {
    3 * u32::try_from(i).unwrap_or(0)
}

/// Sustained fire on the grid.
pub(super) fn grid(fire: &Firepower) -> [f64; GRID] {
    RANGES.map(|r| fire.at(r))
}

pub(super) fn evasion_index(evasion: u32) -> usize {
    evasion.min(MAX_EVASION_DICE as u32) as usize
}

/// Where a range in MU falls on the grid: the grid point at or below it,
/// and how far on towards the next. Found once, it reads any number of
/// grids at that range.
#[derive(Debug, Clone, Copy)]
pub(super) struct Lerp {
    i: usize,
    w: f64,
}

impl Lerp {
    pub(super) fn new(r: f64) -> Lerp {
        let x = (r / STEP).clamp(0.0, (GRID - 1) as f64);
        // Not negative: truncation is the floor. Through `u32`, which the
        // machine converts to and from in one step each (a `usize` takes
        // several): the same numbers, as the grid is far smaller.
        let floor = x as u32;
        Lerp {
            i: floor as usize,
            w: x - f64::from(floor),
        }
    }

    /// The value at this range of the values `at` gives for grid points.
    pub(super) fn read(self, mut at: impl FnMut(usize) -> f64) -> f64 {
        let Lerp { i, w } = self;
        if i + 1 >= GRID {
            return at(i);
        }
        at(i) * (1.0 - w) + at(i + 1) * w
    }

    /// The value of `grid` at this range.
    pub(super) fn of(self, grid: &[f64; GRID]) -> f64 {
        self.read(|i| grid[i])
    }
}

/// Sustained fire on the grid weighed before, by the firing side's weapons
/// (named by their fire number, [`super::Numbers`]), the target's
/// defences ([`Defence`]) and the Evasion dice (never the range): a pair of
/// Formations whose weapons and screens did not change since the last
/// Exchange, or that another batch run saw in the same state, reads its
/// fire back whatever the range now. [`Firepower::new`] is a pure function
/// of those, and a fire number names one set of weapons and readings
/// only: what the memo holds changes no plan (debug builds weigh each
/// grid read back afresh, to check). A fixed number of slots, made on
/// first use and overwritten on collision; one that keeps nothing
/// ([`GridMemo::none`]) weighs every time.
#[derive(Debug)]
pub struct GridMemo {
    slots: Vec<Option<GridSlot>>,
    keep: bool,
}

impl Default for GridMemo {
    fn default() -> GridMemo {
        GridMemo {
            slots: Vec::new(),
            keep: true,
        }
    }
}

/// One [`GridMemo`] slot: the fire of the weapons numbered `fire` at
/// `defence`, at Evasion dice index `n`, on the grid.
#[derive(Debug, Clone, Copy)]
struct GridSlot {
    fire: u64,
    defence: Defence,
    n: usize,
    grid: [f64; GRID],
}

/// Slots of a [`GridMemo`] (some 400 bytes each). Past 2048, a fleet
/// action misses no more often: what it misses then it has never weighed.
pub(super) const GRID_SLOTS: usize = 2048;

impl GridMemo {
    /// Bytes a slot takes.
    #[cfg(test)]
    pub(super) const SLOT_BYTES: usize = std::mem::size_of::<Option<GridSlot>>();

    /// Slots made.
    #[cfg(test)]
    pub(super) fn slots_made(&self) -> usize {
        self.slots.len()
    }

    /// A memo that keeps nothing.
    pub fn none() -> GridMemo {
        GridMemo {
            slots: Vec::new(),
            keep: false,
        }
    }

    /// The sustained fire of `a` at `t` on the grid, `t` rolling `evasion`
    /// Evasion dice; `fire` is the fire number of `a` (read only when the
    /// memo keeps what it weighs).
    pub(super) fn grid(
        &mut self,
        tables: &DieTables,
        (a, t): (&Arsenal, &Arsenal),
        fire: u64,
        evasion: u32,
    ) -> [f64; GRID] {
        // What a key keeps is all the fire reads (debug builds check).
        let keyed = || grid(&Firepower::new(tables, a, t, evasion));
        let weigh = || {
            let g = grid(&Firepower::of_whole(tables, a, t, evasion));
            debug_assert!(
                g.map(f64::to_bits) == keyed().map(f64::to_bits),
                "fire reads only what its key keeps"
            );
            g
        };
        if !self.keep {
            return weigh();
        }
        debug_assert_ne!(fire, 0, "fire kept is named by its number");
        if self.slots.is_empty() {
            self.slots.resize(GRID_SLOTS, None);
        }
        let n = evasion_index(evasion);
        let defence = Defence::of(t);
        let named = [fire as u32, (fire >> 32) as u32, n as u32];
        let hash = fact_hash(defence.words().into_iter().chain(named));
        let slot = &mut self.slots[(hash % GRID_SLOTS as u64) as usize];
        if let Some(s) = slot
            && s.n == n
            && s.fire == fire
            && s.defence == defence
        {
            debug_assert!(
                s.grid.map(f64::to_bits) == keyed().map(f64::to_bits),
                "a fire number names one set of weapons"
            );
            return s.grid;
        }
        let g = weigh();
        *slot = Some(GridSlot {
            fire,
            defence,
            n,
            grid: g,
        });
        g
    }
}
