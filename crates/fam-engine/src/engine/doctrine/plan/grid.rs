//! The plan's grid of ranges, every 3 MU, and the sustained fire on it.

use crate::engine::doctrine::assess::{Arsenal, DieTables, Firepower, MAX_EVASION_DICE};

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

/// Which side of a pair fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Firing {
    Ours,
    Theirs,
}

impl Firing {
    /// The same side, seen from the other.
    pub(super) fn other(self) -> Firing {
        match self {
            Firing::Ours => Firing::Theirs,
            Firing::Theirs => Firing::Ours,
        }
    }
}

/// Where a plan gets the sustained fire on the grid of one side of its
/// pair at the other, the target rolling the Evasion dice given: weighed
/// ([`weigh_grid`]), or read back where it was weighed before
/// (`super::memo`; the same numbers either way).
pub(super) type FireOn<'f> = dyn FnMut(Firing, u32) -> [f64; GRID] + 'f;

/// The sustained fire of `a` at `t` on the grid, `t` rolling `evasion`
/// Evasion dice.
pub(super) fn weigh_grid(tables: &DieTables, a: &Arsenal, t: &Arsenal, evasion: u32) -> [f64; GRID] {
    grid(&Firepower::of_whole(tables, a, t, evasion))
}
