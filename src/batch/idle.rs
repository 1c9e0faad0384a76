//! Weapons that sat idle in a batch, so that a doctrine is never mistaken
//! for a result: what the outputs call each weapon a batch follows
//! ([`super::tally::tracked_weapons`]), which ones never fired or fired in
//! under 1 % of the runs, and why, when fam knows.
//!
//! What fam knows before the battle (the weapon's kind, its Formation's
//! standing orders) is kept in [`WeaponInfo`], so that a report read back
//! from JSON (`fam merge`) gives the same reasons; what happened is in the
//! [`WeaponTally`] counts.

use super::Report;
use super::tally::{WeaponTally, tracked_weapons};
use crate::engine::doctrine::{Doctrine, Ordnance, PdMode};
use crate::model::registry::Family;
use crate::model::{SystemKind, Warhead};
use crate::orders::Loaded;

/// A weapon as the outputs name it, and what fam knows about it before
/// the battle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WeaponInfo {
    pub unit: usize,
    /// 0-based (shown 1-based).
    pub system: usize,
    /// Its kind as its record's profile names it (`Class 2 Battery`, `SML`).
    pub kind: String,
    /// A PDS, PDAF or ADAF: it defends without being plotted.
    pub defends_automatically: bool,
    /// Made only for point defence (PDS, PDAF, ADAF, Scattergun), unlike
    /// a class-1 beam, which may also fire at ships.
    pub point_defence_only: bool,
    /// The reason to give when no plot ever assigned it, if fam knows a
    /// better one than "never plotted" ([`unplotted_reason`]).
    pub unplotted_reason: Option<String>,
}

/// No plot, explicit or generated, assigned the weapon in any run.
pub const NEVER_PLOTTED: &str = "never plotted";
/// Every run in which it was plotted, it was plotted beyond its reach.
pub const OUT_OF_RANGE: &str = "plotted but out of range every time";
/// When it was due to fire, its Unit or it was out of action or spent.
pub const STOPPED: &str = "plotted but its Unit was lost / it was knocked out or spent first";
/// A class-1 beam (or other weapon) plotted only in point-defence mode.
pub const KEPT_IN_PD: &str = "kept in point-defence mode";
/// A point-defence weapon that never had a threat to fire at.
pub const NO_THREAT: &str = "no missile or craft came within its cover";
/// A point-defence weapon that seldom had a threat to fire at.
pub const FEW_THREATS: &str = "missiles or craft seldom came within its cover";
/// What precedes [`NO_THREAT`] or [`FEW_THREATS`] for a PDS, PDAF or ADAF
/// that no plot named.
pub const AUTOMATIC: &str = "defends automatically";
/// A weapon the orders layer refuses and the engine does not resolve.
pub const NOT_RESOLVED: &str = "fam does not fire this weapon in F&M";

/// Why a Formation's doctrine (`whose`: "standing orders of F" or "default
/// doctrine of F") never plots a weapon of this kind, if it does not: the
/// one place where reasons from `[doctrine]` are written. `use_ordnance =
/// false` holds salvo launchers and racks, heavy missiles and submunition
/// packs; `use_ordnance = "auto"` fires them only when the plan has the
/// target surely in reach; `use_needles = false` holds needle beams;
/// `pd = "always"` keeps class-1 beams defending.
pub fn plot_reason(doctrine: &Doctrine, whose: &str, kind: &SystemKind) -> Option<String> {
    use SystemKind as K;
    let ordnance = matches!(
        kind,
        K::Sml | K::Smr | K::Missile { .. } | K::SubmunitionPack | K::Mkp | K::RocketPod | K::AntimatterMissile
    );
    match doctrine.use_ordnance {
        Ordnance::Never if ordnance => return Some(format!("{whose}: use_ordnance = false")),
        Ordnance::Auto if ordnance => {
            return Some(format!(
                "{whose}: ordnance waits until the target is surely in reach, and it never was"
            ));
        }
        _ => {}
    }
    if *kind == K::NeedleBeam && !doctrine.use_needles {
        Some(format!("{whose}: use_needles = false"))
    } else if (*kind == (K::Beam { class: 1 }) || *kind == (K::EmpProjector { class: 1 }) || kind.fires_as_pds())
        && doctrine.pd == PdMode::Always
    {
        Some(format!("{whose}: pd = \"always\""))
    } else {
        None
    }
}

/// Weapons the engine never fires at anything (the orders refuse them:
/// `orders::check::volley::weapons::fire_refusal`, except the Scattergun, which defends).
fn not_resolved(kind: &SystemKind) -> bool {
    use SystemKind as K;
    matches!(
        kind,
        K::Railgun { .. }
            | K::EnergyPulse
            | K::Ortillery
            | K::Minelayer
            | K::Minesweeper
            | K::Missile {
                warhead: Warhead::Emp | Warhead::Needle
            }
    )
}

/// The reason to give for system `system` of Unit `unit` when no plot
/// ever assigned it, if better than [`NEVER_PLOTTED`]: fam does not fire
/// it at all, or its Formation's standing orders hold it (when they play:
/// after the first Exchange, or in it for a Formation without a plot).
pub fn unplotted_reason(loaded: &Loaded, exchanges: u32, unit: usize, system: usize) -> Option<String> {
    let u = loaded.battle.units.get(unit)?;
    let kind = &u.systems.get(system)?.kind;
    if not_resolved(kind) {
        return Some(NOT_RESOLVED.to_string());
    }
    let f = u.formation;
    let unplotted = loaded.plot.formations.get(f).is_none_or(Option::is_none);
    if exchanges <= 1 && !unplotted {
        return None;
    }
    let formation = &loaded.battle.formations.get(f)?.name;
    let default = Doctrine::default();
    let (doctrine, whose) = match loaded.doctrine.get(f)?.as_ref() {
        Some(d) => (d, format!("standing orders of {formation}")),
        // A single Exchange leaves a Formation without either unplotted.
        None if exchanges <= 1 => return None,
        None => (&default, format!("default doctrine of {formation}")),
    };
    plot_reason(doctrine, &whose, kind).map(|why| format!("{NEVER_PLOTTED} ({why})"))
}

/// The weapons a batch of `loaded` follows, `exchanges` Exchanges at most
/// per run, as the outputs name them.
pub fn weapon_infos(loaded: &Loaded, exchanges: u32) -> Vec<WeaponInfo> {
    let b = &loaded.battle;
    tracked_weapons(b)
        .map(|(unit, system)| {
            let u = &b.units[unit];
            let kind = &u.systems[system].kind;
            WeaponInfo {
                unit,
                system,
                kind: kind.name(u.profile),
                defends_automatically: kind.is_pd_mount(),
                point_defence_only: kind.family() == Family::PointDefence,
                unplotted_reason: unplotted_reason(loaded, exchanges, unit, system),
            }
        })
        .collect()
}

/// Fired in under 1 % of `runs` runs (never fired included); nothing is
/// idle in a batch of no runs.
pub fn is_idle(fired: u64, runs: u64) -> bool {
    runs > 0 && u128::from(fired) * 100 < u128::from(runs)
}

/// A point-defence weapon that was ready whenever it was plotted (a PDS,
/// PDAF or ADAF always is): idle for want of a missile or craft to fire
/// at, not because of a plot.
pub fn lacked_threats(info: &WeaponInfo, t: &WeaponTally) -> bool {
    // PDS the default doctrine also aims at open ships within 6 MU are
    // still point defence first.
    info.point_defence_only && (t.plotted > 0 || info.defends_automatically)
}

/// Why a weapon sat idle, when its counts say: in order, no threat came
/// ([`lacked_threats`]), never plotted (or the better reason fam knew
/// before the battle), only in point-defence mode, out of range, stopped.
/// `None` when the runs it did not fire in had other causes (a target
/// Formation gone, a needle target lost …) or a mix of them.
pub fn idle_reason(info: &WeaponInfo, t: &WeaponTally) -> Option<String> {
    if lacked_threats(info, t) {
        let threats = if t.fired == 0 { NO_THREAT } else { FEW_THREATS };
        return Some(if t.plotted == 0 {
            format!("{AUTOMATIC}; {threats}")
        } else {
            threats.to_string()
        });
    }
    let why = if t.plotted == 0 {
        info.unplotted_reason.as_deref().unwrap_or(NEVER_PLOTTED)
    } else if t.point_defence == t.plotted {
        KEPT_IN_PD
    } else if t.out_of_range == t.plotted {
        OUT_OF_RANGE
    } else if t.stopped > 0 && t.out_of_range + t.stopped >= t.plotted {
        STOPPED
    } else {
        return None;
    };
    Some(why.to_string())
}

/// A weapon that sat idle in a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdleWeapon<'a> {
    pub info: &'a WeaponInfo,
    pub tally: &'a WeaponTally,
    /// [`idle_reason`].
    pub reason: Option<String>,
}

/// The weapons of side `side` that never fired or fired in under 1 % of
/// the runs, in Unit and system order.
pub fn idle_weapons(report: &Report, side: usize) -> Vec<IdleWeapon<'_>> {
    let Report { meta, tally } = report;
    meta.weapons
        .iter()
        .zip(&tally.weapons)
        .filter(|(w, _)| meta.units.get(w.unit).is_some_and(|u| u.side == side))
        .filter(|(_, t)| is_idle(t.fired, tally.runs))
        .map(|(info, t)| IdleWeapon {
            info,
            tally: t,
            reason: idle_reason(info, t),
        })
        .collect()
}
