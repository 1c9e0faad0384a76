//! A Volley's `shift` table: targeting shifts of Units in the fight, each
//! within 5 points per Thrust point over the Formation Thrust.

use super::lookup::Lookup;
use crate::diag::Diagnostic;
use crate::engine::plot::{FormationId, VolleyPlot};
use crate::orders::check::files::Files;
use crate::orders::raw::RawVolley;

/// The targeting shifts of one Volley: Units of the Formation in the fight,
/// each within 5 points per Thrust point it has over the Formation Thrust.
pub(super) fn shifts(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    f: FormationId,
    v: &RawVolley,
    thrust: Option<u32>,
    out: &mut VolleyPlot,
) {
    if let Some(shifts) = &v.shift {
        for (u, name, pts) in lk.unit_table(files, file, f, shifts, "a shift", "one shift per Unit") {
            let unit = lk.unit(u);
            if !unit.active() {
                files.push(
                    file,
                    Diagnostic::error(
                        name.span(),
                        format!("`{}` is out of the fight and takes no share of fire", unit.name),
                        "a Unit in the fight",
                    ),
                );
                continue;
            }
            let Some(t) = thrust else { continue };
            let surplus = unit.thrust.saturating_sub(t);
            // Capped where a shift is held (i32): only an absurd thrust
            // reaches it.
            let limit = (5 * i64::from(surplus)).min(i64::from(i32::MAX));
            let p = *pts.get_ref();
            // `unsigned_abs`: a shift of i64::MIN has no i64 magnitude.
            if p.unsigned_abs() > limit.unsigned_abs() {
                let msg = if surplus == 0 {
                    format!(
                        "`{}` cannot shift its share: its thrust {} is no more than the Formation Thrust {t}",
                        unit.name, unit.thrust
                    )
                } else {
                    format!(
                        "a shift of {p} points is more than `{}` may make: 5 points per surplus Thrust point, \
                         {surplus} × 5 = {limit} (thrust {} over Formation Thrust {t})",
                        unit.name, unit.thrust
                    )
                };
                files.push(
                    file,
                    Diagnostic::error(
                        pts.span(),
                        msg,
                        if limit == 0 {
                            "no shift".to_string()
                        } else {
                            format!("a shift from -{limit} to {limit}")
                        },
                    ),
                );
                continue;
            }
            let Ok(p) = i32::try_from(p) else { continue };
            out.shifts.push((u, p));
        }
    }
}
