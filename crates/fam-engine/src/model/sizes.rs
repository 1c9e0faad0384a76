//! Sizes the design rules give a ship (ft-rules §6, §11; FTC §13.5): hull
//! boxes by mass and hull integrity, rows, crew factors and where they sit.
//! Every format that builds or checks a record uses them (GZF's design
//! checks, FTJava import and export).

use super::{HullIntegrity, ShipType};

/// `x` rounded half up, never below 1 (FTC §13.5).
pub fn round_half_up_min1(numerator: u64, denominator: u64) -> u32 {
    round_half_up(numerator, denominator).max(1)
}

/// Hull boxes a hull-integrity level gives a ship of this mass.
pub fn hull_boxes_for(mass: u32, integrity: HullIntegrity) -> u32 {
    // Wide: a record may give any u32 mass.
    round_half_up_min1(u64::from(mass) * u64::from(integrity.percent()), 100)
}

/// Crew factors of a ship (ft-rules §6.3): 1 per 20 mass or part for
/// military ships, 1 per 50 for civilian and merchant ones.
pub fn crew_factors_for(mass: u32, ship_type: Option<ShipType>) -> u32 {
    let per = match ship_type {
        Some(ShipType::Civilian | ShipType::Merchant) => 50,
        _ => 20,
    };
    mass.div_ceil(per).max(1)
}

/// Row sizes: as equal as possible, surplus boxes in the upper rows.
pub fn row_sizes(boxes: usize, rows: usize) -> Vec<usize> {
    if rows == 0 {
        return Vec::new();
    }
    (0..rows)
        .map(|i| boxes / rows + usize::from(i < boxes % rows))
        .collect()
}

/// 1-based hull box numbers that carry crew factors: every `step`-th box
/// with step = ceil(boxes / CF), the last always in the final box.
pub fn crew_factor_boxes(boxes: usize, crew_factors: usize) -> Vec<usize> {
    if boxes == 0 || crew_factors == 0 {
        return Vec::new();
    }
    let cf = crew_factors.min(boxes);
    let step = boxes.div_ceil(cf);
    let mut out: Vec<usize> = (1..cf).map(|k| (k * step).min(boxes)).collect();
    out.push(boxes);
    out.dedup();
    out
}

/// `numerator / denominator` rounded half up, in u64 (no product of two
/// u32 overflows it), saturating at `u32::MAX`.
pub fn round_half_up(numerator: u64, denominator: u64) -> u32 {
    let r = (numerator.saturating_mul(2).saturating_add(denominator)) / (2 * denominator);
    u32::try_from(r).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hull_boxes_round_half_up_as_the_rules_show() {
        // FTC worked example: 25.8 → 26 (mass 86 strong would be 34.4 → 34).
        assert_eq!(hull_boxes_for(50, HullIntegrity::Average), 15);
        assert_eq!(hull_boxes_for(86, HullIntegrity::Average), 26);
        assert_eq!(hull_boxes_for(5, HullIntegrity::Fragile), 1);
        assert_eq!(hull_boxes_for(25, HullIntegrity::Fragile), 3); // 2.5 → 3
    }

    #[test]
    fn rows_put_the_surplus_in_the_upper_rows() {
        assert_eq!(row_sizes(15, 4), [4, 4, 4, 3]);
        assert_eq!(row_sizes(27, 4), [7, 7, 7, 6]);
        assert_eq!(row_sizes(2, 4), [1, 1, 0, 0]);
    }

    #[test]
    fn crew_factors_follow_the_worked_example() {
        assert_eq!(crew_factor_boxes(27, 5), [6, 12, 18, 24, 27]);
        assert_eq!(crew_factor_boxes(2, 1), [2]);
        assert_eq!(crew_factors_for(100, Some(ShipType::Military)), 5);
        assert_eq!(crew_factors_for(81, None), 5);
        assert_eq!(crew_factors_for(51, Some(ShipType::Merchant)), 2);
    }
}
