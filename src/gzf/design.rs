//! Design rules of ft-rules §6 and §11 that a record can be checked against:
//! hull boxes against mass and Hull-Integrity, row layout, crew-factor
//! positions, the mass budget, arcs, magazine rounds. Findings are warnings
//! (records from other tools may follow house rules); `fam check --strict`
//! turns them into errors.

use std::ops::Range;

use super::parse::FieldSpans;
use crate::diag::Diagnostic;
use crate::model::registry::Arcs;
use crate::model::sizes::round_half_up;
pub use crate::model::sizes::{crew_factor_boxes, crew_factors_for, hull_boxes_for, round_half_up_min1, row_sizes};
use crate::model::*;

/// Checks every ship of a parsed file. `spans` is `Parsed::spans`.
pub fn check(file: &GzfFile, spans: &[FieldSpans]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (item, spans) in file.items.iter().zip(spans) {
        if let Item::Ship(ship) = item {
            check_ship(ship, file.profile, spans, &mut out);
        }
    }
    out
}

fn span_of(spans: &FieldSpans, names: &[&str]) -> Range<usize> {
    names.iter().find_map(|n| spans.get(*n)).cloned().unwrap_or(0..0)
}

fn check_ship(ship: &Ship, profile: Profile, spans: &FieldSpans, out: &mut Vec<Diagnostic>) {
    let track_span = span_of(spans, &["damage-track", "ship"]);
    let name = &ship.name;
    let boxes = ship.hull_boxes();
    let mut warn = |span: Range<usize>, message: String, expected: String| {
        out.push(Diagnostic::warning(span, message, expected).with_help("design rules: ft-rules §6 and §11"));
    };
    if let Some(mass) = ship.mass {
        let minimum = usize::try_from(round_half_up_min1(u64::from(mass) * 10, 100)).unwrap_or(usize::MAX);
        if boxes > 0 && boxes < minimum {
            warn(
                track_span.clone(),
                format!("`{name}` has {boxes} hull boxes, fewer than 10% of its mass {mass}"),
                format!("at least {minimum} hull boxes"),
            );
        }
        if let Some(hi) = ship.hull_integrity {
            let want = hull_boxes_for(mass, hi) as usize;
            if want != boxes {
                warn(
                    track_span.clone(),
                    format!(
                        "`{name}`: Hull-Integrity {} on mass {mass} gives {want} hull boxes, the track has {boxes}",
                        hi.name()
                    ),
                    format!("{want} boxes ({}% of mass, rounded half up)", hi.percent()),
                );
            }
        }
        if profile == Profile::Fb1 && boxes > 0 {
            check_crew_factors(ship, mass, &track_span, &mut warn);
        }
        check_mass_budget(ship, mass, span_of(spans, &["mass", "ship"]), &mut warn);
    }
    // The Fleet Books' own costs run up to about 9 % from the digest's
    // construction rules as fam reads them (every FSE design over, some
    // under): a stated cost further off than a tenth is a slip, not a house
    // rule.
    if let (Some(cost), Some(rules)) = (ship.cost, crate::model::points::ship_points_exact(ship, profile))
        && u64::from(cost.abs_diff(rules)) * 10 > u64::from(rules)
    {
        warn(
            span_of(spans, &["cost", "ship"]),
            format!(
                "`{name}` states Cost: {cost}; its hull, drive and systems come to {rules} by the construction rules, more than a tenth apart"
            ),
            format!("about {rules} points (docs/generate.md, \"Points of a design\")"),
        );
    }
    let rows: Vec<usize> = ship.damage_track.iter().map(Vec::len).collect();
    if boxes > 0 {
        let want_rows = boxes.min(4);
        if rows.len() != want_rows {
            warn(
                track_span.clone(),
                format!("`{name}` has {} hull rows", rows.len()),
                format!("{want_rows} rows (standard warship hull)"),
            );
        } else if rows != row_sizes(boxes, rows.len()) {
            warn(
                track_span.clone(),
                format!("`{name}`: hull rows of {rows:?} boxes are unbalanced"),
                format!(
                    "rows of {:?} (as equal as possible, surplus in the upper rows)",
                    row_sizes(boxes, rows.len())
                ),
            );
        }
    }
    for sys in &ship.systems {
        let sys_name = sys.kind.name(profile);
        let needs_arcs = sys.kind.row().arcs == Arcs::Needed;
        if needs_arcs && sys.arcs.is_empty() {
            warn(
                span_of(spans, &["ship"]),
                format!("`{name}`: weapon `{sys_name}` has no Firing-Arc"),
                "a `Firing-Arc:` line (F&M uses the arc count against Evasion)".to_string(),
            );
        }
        if sys.kind == (SystemKind::Beam { class: 1 })
            && profile == Profile::Fb1
            && !sys.arcs.is_empty()
            && sys.arcs.len() != 6
        {
            warn(
                span_of(spans, &["ship"]),
                format!("`{name}`: a class-1 battery with {} arcs", sys.arcs.len()),
                "all six arcs (class-1 beams are always all-round)".to_string(),
            );
        }
        if let (Some(cap), Some(rounds)) = (sys.capacity, &sys.rounds)
            && sys.kind == SystemKind::Smm
            && rounds.len() != cap as usize
        {
            warn(
                span_of(spans, &["ship"]),
                format!(
                    "`{name}`: magazine with Capacity {cap} but {} Rounds boxes",
                    rounds.len()
                ),
                "one Rounds box per load of Capacity".to_string(),
            );
        }
    }
}

fn check_crew_factors(
    ship: &Ship,
    mass: u32,
    span: &Range<usize>,
    warn: &mut impl FnMut(Range<usize>, String, String),
) {
    let boxes = ship.hull_boxes();
    let cf = crew_factors_for(mass, ship.ship_type) as usize;
    let want = crew_factor_boxes(boxes, cf);
    let flat: Vec<CheckBox> = ship.damage_track.iter().flatten().copied().collect();
    // One pass: a mask of the boxes that should carry crew factors.
    let mut marked = vec![false; flat.len()];
    for &k in &want {
        if let Some(m) = k.checked_sub(1).and_then(|i| marked.get_mut(i)) {
            *m = true;
        }
    }
    let mismatch = flat
        .iter()
        .zip(&marked)
        .filter(|(b, _)| !b.crossed)
        .any(|(b, &m)| b.crew_factor != m);
    if mismatch {
        let kind = match ship.ship_type {
            Some(ShipType::Civilian | ShipType::Merchant) => "civilian: 1 per 50 mass",
            _ => "military: 1 per 20 mass",
        };
        warn(
            span.clone(),
            format!(
                "`{}`: crew-factor boxes are not where the design rules put them",
                ship.name
            ),
            format!(
                "{cf} crew factor{} ({kind}) in hull box{} {want:?}",
                if cf == 1 { "" } else { "s" },
                if want.len() == 1 { "" } else { "es" }
            ),
        );
    }
}

fn check_mass_budget(ship: &Ship, mass: u32, span: Range<usize>, warn: &mut impl FnMut(Range<usize>, String, String)) {
    if ship.systems.iter().any(|s| s.mass.is_none()) {
        return; // the budget can only be checked when every system gives its mass
    }
    let drive = round_half_up(u64::from(mass) * 5 * u64::from(ship.original_thrust), 100);
    // Summed wide: a record may give any u32 mass to each of its systems.
    let systems: u64 = ship.systems.iter().filter_map(|s| s.mass).map(u64::from).sum();
    let boxes = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
    let used = boxes(ship.hull_boxes())
        .saturating_add(boxes(ship.armour_boxes()))
        .saturating_add(u64::from(drive))
        .saturating_add(systems);
    if used > u64::from(mass) {
        warn(
            span,
            format!(
                "`{}` uses {used} mass (hull {}, armour {}, drive {drive}, systems {systems}) but has only {mass}",
                ship.name,
                ship.hull_boxes(),
                ship.armour_boxes()
            ),
            format!("at most {mass} mass in all"),
        );
    }
}
