//! A Volley's `damage_control` table: a priority list of systems per Unit,
//! each system once.

use super::lookup::Lookup;
use crate::diag::Diagnostic;
use crate::engine::plot::{FormationId, SystemId, VolleyPlot};
use crate::orders::check::files::Files;
use crate::orders::raw::RawVolley;

/// The damage-control priorities of one Volley: a list of systems per
/// Unit of the Formation, each system once.
pub(super) fn damage_control_orders(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    f: FormationId,
    v: &RawVolley,
    out: &mut VolleyPlot,
) {
    if let Some(dc) = &v.damage_control {
        for (u, _, list) in lk.unit_table(files, file, f, dc, "a damage-control order", "one list per Unit") {
            let mut order: Vec<SystemId> = Vec::new();
            for n in list.get_ref() {
                let Some(s) = lk.system(files, file, u, n) else {
                    continue;
                };
                if order.contains(&s) {
                    files.push(
                        file,
                        Diagnostic::error(
                            n.span(),
                            format!("system {} is already in this damage-control list", s + 1),
                            "each system once",
                        ),
                    );
                    continue;
                }
                order.push(s);
            }
            out.damage_control.push((u, order));
        }
    }
}
