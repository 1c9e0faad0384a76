//! A Volley's `reflex` list: ships raising their reflex field (reading
//! O41), which keeps them from firing that Volley.

use std::collections::BTreeMap;
use std::ops::Range;

use super::lookup::Lookup;
use crate::diag::Diagnostic;
use crate::engine::plot::{FormationId, UnitId, VolleyPlot};
use crate::gzf::SystemKind;
use crate::orders::check::files::Files;
use crate::orders::raw::RawVolley;

/// The `reflex` list of one Volley: ships of Formation `f` raising
/// their reflex field (reading O41). Returns each ship with where it is
/// named, for the refusal of its fire orders.
pub(super) fn reflex(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    f: FormationId,
    v: &RawVolley,
    out: &mut VolleyPlot,
) -> BTreeMap<UnitId, Range<usize>> {
    let mut raised: BTreeMap<UnitId, Range<usize>> = BTreeMap::new();
    for name in v.reflex.iter().flatten() {
        let Some(u) = lk.member(files, file, f, name) else {
            continue;
        };
        let unit = lk.unit(u);
        let problem = if let Some(first) = raised.get(&u) {
            Some(format!(
                "`{}` is already listed in `reflex` in this Volley ({})",
                unit.name,
                files.at(file, file, first)
            ))
        } else if !unit.active() {
            Some(format!("`{}` is out of the fight and raises no field", unit.name))
        } else if !unit.systems.iter().any(|s| s.kind == SystemKind::ReflexField) {
            Some(format!("`{}` carries no reflex field", unit.name))
        } else if !crate::engine::reflex::has_working_field(unit) {
            Some(format!("`{}`'s reflex field is not working", unit.name))
        } else {
            None
        };
        if let Some(msg) = problem {
            files.push(
                file,
                Diagnostic::error(name.span(), msg, "a ship of this Formation with a working reflex field"),
            );
            continue;
        }
        raised.insert(u, name.span());
        out.reflex.push(u);
    }
    raised
}
