//! The plan's grid of ranges, every 3 MU, and the sustained fire on it,
//! kept for reading back ([`GridMemo`]).

use super::super::assess::{DieTables, FireKey, Firepower, MAX_EVASION_DICE};

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

/// Sustained fire on the grid weighed before, by the two arsenals and the
/// Evasion dice (never the range): a pair of Formations whose weapons and
/// screens did not change since the last Exchange, or that another batch
/// run saw in the same state, reads its fire back whatever the range now.
/// [`Firepower::new`] is a pure function of those: what the memo holds
/// changes no plan. A fixed number of slots, made on first use and
/// overwritten on collision; one that keeps nothing ([`GridMemo::none`])
/// weighs every time.
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

/// One [`GridMemo`] slot: the fire of its key on the grid, at Evasion dice
/// index `n`.
#[derive(Debug, Clone, Copy)]
struct GridSlot {
    key: FireKey,
    n: usize,
    grid: [f64; GRID],
}

/// Slots of a [`GridMemo`] (some 1.5 KB each). Past 2048, a fleet action
/// misses no more often: what it misses then it has never weighed.
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

    /// The sustained fire of `key` on the grid, its target rolling
    /// `evasion` Evasion dice.
    pub(super) fn grid(&mut self, tables: &DieTables, key: &FireKey, evasion: u32) -> [f64; GRID] {
        if !self.keep {
            return grid(&key.firepower(tables, evasion));
        }
        if self.slots.is_empty() {
            self.slots.resize(GRID_SLOTS, None);
        }
        let n = evasion_index(evasion);
        let slot = &mut self.slots[key.slot(n, GRID_SLOTS)];
        if let Some(s) = slot
            && s.n == n
            && s.key == *key
        {
            return s.grid;
        }
        let g = grid(&key.firepower(tables, evasion));
        *slot = Some(GridSlot { key: *key, n, grid: g });
        g
    }
}
