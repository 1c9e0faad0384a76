//! A Volley's `primary` and `secondary` maneuvers: each against another
//! Formation, one maneuver a target, never Close and Withdraw together.

use std::collections::BTreeMap;
use std::ops::Range;

use super::lookup::Lookup;
use crate::diag::Diagnostic;
use crate::engine::plot::{FormationId, Maneuver, ManeuverOrder, VolleyPlot};
use crate::orders::check::files::Files;
use crate::orders::raw::{Names, RawVolley, S, Word};

fn maneuver(w: Word) -> Maneuver {
    match w {
        Word::Close => Maneuver::Close,
        Word::Maintain => Maneuver::Maintain,
        Word::Withdraw => Maneuver::Withdraw,
    }
}

/// The primary and secondary maneuvers of one Volley: each against another
/// Formation in the fight, one maneuver a target, never Close and Withdraw
/// together.
pub(super) fn maneuvers(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    f: FormationId,
    v: &RawVolley,
    out: &mut VolleyPlot,
) {
    let mut targets: BTreeMap<FormationId, Range<usize>> = BTreeMap::new();
    let mut closes: Vec<(Range<usize>, FormationId)> = Vec::new();
    let mut withdraws: Vec<(Range<usize>, FormationId)> = Vec::new();
    let mut take = |files: &mut Files, word: &S<Word>, name: &S<String>| -> Option<ManeuverOrder> {
        let t = lk.formation_target(files, file, f, name, "maneuver against")?;
        if let Some(first) = targets.get(&t) {
            let at = files.at(file, file, first);
            files.push(
                file,
                Diagnostic::error(
                    name.span(),
                    format!("`{}` already has a maneuver in this Volley ({at})", lk.defs[t].name),
                    "one maneuver per target Formation",
                ),
            );
            return None;
        }
        targets.insert(t, name.span());
        match word.get_ref() {
            Word::Close => closes.push((word.span(), t)),
            Word::Withdraw => withdraws.push((word.span(), t)),
            Word::Maintain => {}
        }
        Some(ManeuverOrder {
            target: t,
            maneuver: maneuver(*word.get_ref()),
        })
    };
    if let Some(p) = &v.primary {
        let mut entries: Vec<_> = p.get_ref().iter().collect();
        entries.sort_by_key(|(k, _)| k.span().start);
        match entries.split_first() {
            None => files.push(
                file,
                Diagnostic::error(
                    p.span(),
                    "the primary maneuver is empty",
                    "primary = { close = \"FORMATION\" } (or maintain, withdraw)",
                ),
            ),
            Some(((word, name), rest)) => {
                out.primary = take(files, word, name);
                for (word, _) in rest {
                    files.push(
                        file,
                        Diagnostic::error(
                            word.span(),
                            "a Volley has one primary maneuver",
                            "other targets under `secondary`",
                        ),
                    );
                }
            }
        }
    }
    if let Some(sec) = &v.secondary {
        if v.primary.is_none() {
            files.push(
                file,
                Diagnostic::error(
                    sec.span(),
                    "secondary maneuvers without a primary one",
                    "primary = { close = \"FORMATION\" } first",
                ),
            );
        }
        let mut entries: Vec<_> = sec.get_ref().iter().collect();
        entries.sort_by_key(|(k, _)| k.span().start);
        for (word, names) in entries {
            let list: Vec<S<String>> = match names.get_ref() {
                Names::One(n) => vec![S::new(names.span(), n.clone())],
                Names::Many(v) => v.clone(),
            };
            for name in &list {
                if let Some(m) = take(files, word, name) {
                    out.secondary.push(m);
                }
            }
        }
    }
    if let (Some(c), Some(w)) = (closes.first(), withdraws.first()) {
        let (later, earlier) = if c.0.start > w.0.start { (c, w) } else { (w, c) };
        let word = |x: &(Range<usize>, FormationId)| {
            if closes.first() == Some(x) {
                format!("Close on `{}`", lk.defs[x.1].name)
            } else {
                format!("Withdraw from `{}`", lk.defs[x.1].name)
            }
        };
        let at = files.at(file, file, &earlier.0);
        files.push(
            file,
            Diagnostic::error(
                later.0.clone(),
                format!(
                    "{} and {} ({at}) in one Volley: a Formation may not Close and Withdraw in the same Volley",
                    word(later),
                    word(earlier)
                ),
                "Close or Withdraw, not both",
            )
            .with_help("fm-readings 5; Maintain goes with either"),
        );
    }
}
