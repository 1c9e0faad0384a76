//! A Volley's `speed` and `evasion`: not negative, together the Formation
//! Thrust (one of them alone takes the rest), Evasion at most half of it. A
//! Formation flying on its small craft's thrust is checked over the
//! Exchange instead (`craft_exchange`), once every launch is known.

use std::ops::Range;

use super::lookup::Lookup;
use super::notes::Notes;
use crate::diag::Diagnostic;
use crate::engine::plot::{FormationId, VolleyPlot};
use crate::orders::check::files::Files;
use crate::orders::raw::{RawVolley, S};

/// Speed and Evasion as a Volley gives them, with where.
struct Dice {
    speed: Option<(u32, Range<usize>)>,
    evasion: Option<(u32, Range<usize>)>,
}

/// A number of dice as written, if given and not negative (reported).
fn non_negative_dice(files: &mut Files, file: usize, x: &Option<S<i64>>, what: &str) -> Option<(u32, Range<usize>)> {
    let x = x.as_ref()?;
    match u32::try_from(*x.get_ref()) {
        Ok(n) => Some((n, x.span())),
        Err(_) => {
            files.push(
                file,
                Diagnostic::error(
                    x.span(),
                    format!("{what} cannot be negative"),
                    "a number of dice, 0 or more",
                ),
            );
            None
        }
    }
}

/// Speed and Evasion of one Volley: not negative, together the Formation
/// Thrust (one of them alone takes the rest), Evasion at most half of it.
pub(super) fn speed_and_evasion(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    f: FormationId,
    raw: &S<RawVolley>,
    out: &mut VolleyPlot,
    notes: &mut Notes,
) {
    let v = raw.get_ref();
    let def = &lk.defs[f];
    let fname = &def.name;
    // A Formation flying on its small craft's thrust has it checked once
    // every plot is read (launches change it Volley by Volley).
    let craft_thrust = lk.craft_thrust(f);
    let thrust = (def.complete && !craft_thrust).then(|| lk.battle.formation_thrust(f));
    let given = Dice {
        speed: non_negative_dice(files, file, &v.speed, "Speed"),
        evasion: non_negative_dice(files, file, &v.evasion, "Evasion"),
    };
    if craft_thrust {
        notes.craft.speed = given.speed.clone();
        notes.craft.evasion = given.evasion.clone();
    }
    if v.speed.is_none() && v.evasion.is_none() {
        files.push(
            file,
            Diagnostic::error(
                raw.span(),
                format!("this Volley of `{fname}` gives neither `speed` nor `evasion`"),
                "speed = N and evasion = N (they add up to the Formation Thrust)",
            ),
        );
    }
    if let Some((speed, evasion)) = share_thrust(lk, files, file, f, v, &given, thrust) {
        out.speed = speed;
        out.evasion = evasion;
    }
    if let Some(t) = thrust
        && out.evasion > lk.battle.evasion_cap(f, t)
    {
        let cap = lk.battle.evasion_cap(f, t);
        let span = given
            .evasion
            .as_ref()
            .or(given.speed.as_ref())
            .map_or(raw.span(), |x| x.1.clone());
        files.push(
            file,
            Diagnostic::error(
                span,
                format!(
                    "Evasion {} is more than half the Formation Thrust of `{fname}` ({t}, so at most {cap})",
                    out.evasion
                ),
                format!("evasion = {cap} or less"),
            )
            .with_help("maximum Evasion is half Formation Thrust, rounded down (fm-readings 7)"),
        );
    }
}

/// Speed and Evasion from what a Volley gives: both as written (an error
/// unless they add up to the Formation Thrust), or one as written and
/// the other the rest of the Thrust. `None` when the one given is more
/// than the Thrust (reported); as written, or 0, when the Thrust is not
/// known here.
fn share_thrust(
    lk: &Lookup<'_>,
    files: &mut Files,
    file: usize,
    f: FormationId,
    v: &RawVolley,
    given: &Dice,
    thrust: Option<u32>,
) -> Option<(u32, u32)> {
    let fname = &lk.defs[f].name;
    match (&given.speed, &given.evasion, thrust) {
        (Some((s, s_span)), Some((e, _)), Some(t)) => {
            // Summed wide: two absurd numbers must not wrap into a sum
            // that fits.
            let sum = u64::from(*s) + u64::from(*e);
            if sum != u64::from(t) {
                files.push(
                    file,
                    Diagnostic::error(
                        s_span.clone(),
                        format!("Speed {s} + Evasion {e} = {sum}, but the Formation Thrust of `{fname}` is {t}"),
                        format!("Speed + Evasion = {t}"),
                    )
                    .with_help(thrust_help(lk, f)),
                );
            }
            Some((*s, *e))
        }
        (Some((x, span)), None, Some(t)) | (None, Some((x, span)), Some(t))
            if v.speed.is_none() || v.evasion.is_none() =>
        {
            let given_speed = v.evasion.is_none();
            let what = if given_speed { "Speed" } else { "Evasion" };
            if *x > t {
                files.push(
                    file,
                    Diagnostic::error(
                        span.clone(),
                        format!("{what} {x} is more than the Formation Thrust of `{fname}` ({t})"),
                        format!("at most {t}"),
                    )
                    .with_help(thrust_help(lk, f)),
                );
                None
            } else if given_speed {
                Some((*x, t - x))
            } else {
                Some((t - x, *x))
            }
        }
        (s, e, _) => Some((s.as_ref().map_or(0, |x| x.0), e.as_ref().map_or(0, |x| x.0))),
    }
}

/// How Formation `f`'s Thrust comes about, for a help line.
fn thrust_help(lk: &Lookup<'_>, f: FormationId) -> String {
    let parts: Vec<String> = lk.battle.formations[f]
        .units
        .iter()
        .map(|&u| lk.unit(u))
        .filter(|u| u.active())
        .map(|u| format!("`{}` {}", u.name, u.thrust))
        .collect();
    format!(
        "Formation Thrust is the lowest current thrust of its Units in the fight: {}",
        parts.join(", ")
    )
}
