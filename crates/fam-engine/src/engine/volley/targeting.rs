//! The percentile bands by which a Fire Control's roll picks the Unit under
//! fire in a Formation (fm-readings 10-11).

use crate::engine::plot::{FormationId, UnitId};
use crate::engine::state::Battle;

/// Percentile bands of a Formation (fm-readings 10-11): shares by mass,
/// largest Unit first (ties in Unit order), each plotted shift moved to or
/// from the other Units in proportion to their shares, no Unit below 1 %,
/// upper bounds the cumulative share rounded to the nearest percentile.
/// Shares are kept in thousandths of a percentile, in integers.
pub fn targeting_bands(battle: &Battle, f: FormationId, shifts: &[(UnitId, i32)], out: &mut Vec<(UnitId, u8)>) {
    let mut ranks: Vec<UnitId> = Vec::new();
    let mut shares: Vec<i64> = Vec::new();
    bands_into(battle, f, shifts, out, &mut ranks, &mut shares);
}

pub(super) fn bands_into(
    battle: &Battle,
    f: FormationId,
    shifts: &[(UnitId, i32)],
    out: &mut Vec<(UnitId, u8)>,
    ranks: &mut Vec<UnitId>,
    shares: &mut Vec<i64>,
) {
    const UNIT: i64 = 1000;
    out.clear();
    ranks.clear();
    ranks.extend(
        battle.formations[f]
            .units
            .iter()
            .copied()
            .filter(|u| battle.units[*u].active() && !battle.units[*u].is_craft()),
    );
    ranks.sort_by(|a, b| battle.units[*b].mass.cmp(&battle.units[*a].mass).then(a.cmp(b)));
    let n = ranks.len();
    if n == 0 {
        return;
    }
    let total: i64 = ranks.iter().map(|u| i64::from(battle.units[*u].mass.max(1))).sum();
    shares.clear();
    shares.extend(
        ranks
            .iter()
            .map(|u| 100 * UNIT * i64::from(battle.units[*u].mass.max(1)) / total),
    );
    for (unit, shift) in shifts {
        let Some(i) = ranks.iter().position(|u| u == unit) else {
            continue;
        };
        let delta = i64::from(*shift) * UNIT;
        let others: i64 = (0..n).filter(|j| *j != i).map(|j| shares[j]).sum();
        if others <= 0 {
            continue;
        }
        let mut moved = 0;
        for (j, share) in shares.iter_mut().enumerate() {
            if j != i {
                let part = delta * *share / others;
                *share -= part;
                moved += part;
            }
        }
        shares[i] += moved;
    }
    // The 1 % floor: lift small shares, taking the points from the largest.
    for i in 0..n {
        if shares[i] < UNIT {
            let need = UNIT - shares[i];
            shares[i] = UNIT;
            let largest = (0..n).max_by_key(|j| (shares[*j], std::cmp::Reverse(*j))).unwrap_or(0);
            shares[largest] -= need;
        }
    }
    let sum: i64 = shares.iter().sum();
    let mut cum = 0i64;
    let mut prev = 0u8;
    for (k, unit) in ranks.iter().enumerate() {
        cum += shares[k];
        let remaining = (n - k - 1) as i64;
        let upper = if k + 1 == n {
            100
        } else {
            // Nearest percentile of the cumulative share (scaled to 100).
            let exact = cum * 100 * UNIT / sum.max(1);
            let rounded = (exact + UNIT / 2) / UNIT;
            rounded.clamp(i64::from(prev) + 1, 100 - remaining)
        };
        prev = upper as u8;
        out.push((*unit, prev));
    }
}
