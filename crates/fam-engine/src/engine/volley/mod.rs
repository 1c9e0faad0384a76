//! One Exchange: three Volleys, each in this order (F&M "Volley Procedure";
//! the small-craft steps, marked *craft*, are in [`super::craft`]). Each
//! step has its own file; this one runs them in order ([`run_volley`]),
//! arms nova cannons and sends Formations to and from the Reserve at the
//! end of the Exchange:
//!
//! 0. *Craft*: Launch phase (re-arming, recoveries, launches).
//! 1. Maneuver (`maneuver.rs`): Formation Thrust, plot cut if thrust fell,
//!    Speed and Evasion pools, the range of every pair of Formations
//!    (close, then withdraw, then maintain; fm-readings 1-5); *craft*:
//!    secondary maneuvers, then engagement (who fights whom, endurance).
//! 2. Weapon attacks (`fire.rs`): per Fire Control, a percentile roll
//!    (`targeting.rs`) picks the Unit under fire; each assigned beam battery
//!    rolls at the current range with the Evasion DRM its arcs do not
//!    ignore, against the target's screens; ordnance is launched. Damage
//!    waits for step 4 (Units destroyed now still fire). The weapon
//!    families have files of their own: `ordnance.rs` (torpedoes, missiles,
//!    rockets, boarding torpedoes), `kinetic.rs` (K-guns, MKPs, plasma
//!    bolts), `grasers.rs` (grasers, fusion arrays, plasma cannons,
//!    pulsers), `emp.rs`, `wave.rs` (wave guns, nova cannons), with the
//!    helpers they share in `common.rs`. *Craft*: Fire Controls aimed at a
//!    group.
//! 3. Point defence and missiles (`defence.rs`): salvos roll on target,
//!    *craft* intercept, PD is allocated and rolled against missiles and
//!    attacking craft (Evasion rerolls), surviving missiles hit; *craft*:
//!    dogfights, attack runs, torpedo runs and gunboat attacks.
//! 4. Damage (`damage.rs`), applied to every Unit at once: normal damage to
//!    armour then hull, semi-armour-piercing hits, penetrating damage to the
//!    hull, crew factors lost with their boxes; *craft* lost in dogfights and
//!    to ship fire.
//! 5. Threshold checks (`thresholds.rs`): one per Unit at the deepest row
//!    completed, +1 per extra row; core systems at −1; the drive halves,
//!    then fails. Then EMP tests (`emp.rs`) and wave-gun backlash
//!    (`wave.rs`).
//! 6. Damage control (`control.rs`), in the plotted or the default priority.
//! 7. Power cores (`power.rs`): a breached core explodes on 5-6 (optional
//!    blast on the rest of the Formation); out-of-control and life-support
//!    countdowns; *craft* docked in a lost bay or carrier are lost.
//!
//! Formations, Units, systems and fire orders are visited in index order,
//! so the dice each step consumes depend only on the inputs and the seed.
//! The files below this one use one another only downwards: `fire.rs`
//! calls the weapon families, which use `common.rs`; `power.rs`, `wave.rs`
//! and `emp.rs` use `thresholds.rs`, which uses `damage.rs`.

mod common;
mod control;
mod damage;
mod defence;
mod emp;
mod fire;
mod grasers;
mod kinetic;
mod maneuver;
mod ordnance;
mod power;
mod targeting;
#[cfg(test)]
mod tests;
mod thresholds;
mod wave;

use super::checked::CheckedPlot;
use super::dice::{Dice, REROLL_GENERATIONS};
use super::event::{Arrived, NovaArmed, Sink, ToReserve, VolleyStarted};
use super::plot::ExchangePlot;
use super::scratch::volley_plot;
use super::state::{Battle, Reserve};
use crate::model::SystemKind;
use control::damage_control;
use damage::apply_damage;
use defence::point_defence_and_missiles;
use emp::emp_tests;
use fire::fire;
use maneuver::maneuver;
use power::reactors_and_countdowns;
use wave::wave_gun_backlash;

pub use super::scratch::{CRAFT_THREAT, DamageKind, Scratch, WeaponUse, WeaponUses};
pub use super::tables::{evasion_ignored, missile_range, submunition_dice, torpedo_band};
pub use damage::{ap_damage, damage_unit, sap_damage};
pub use defence::{GUNBOAT_PDS, GUNBOAT_SALVO};
pub use emp::{emp_needed, emp_rank};
pub use fire::mega_battery_dice;
pub use maneuver::pair_range;
pub use targeting::targeting_bands;
pub use thresholds::{drive_thrust, threshold_check, threshold_needed};

/// Plays one Exchange (three Volleys) of `plot` on `battle`, the battle
/// it was checked against.
pub fn run_exchange<S: Sink>(
    battle: &mut Battle,
    plot: &CheckedPlot,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    scratch.size_for(battle);
    for volley in 0..3u8 {
        run_volley(battle, plot, volley, dice, sink, scratch);
    }
    if battle.rules.reserves {
        reserves_wrap_up(battle, sink);
    }
}

/// Range at or beyond which a Formation withdraws to the Reserve.
pub const RESERVE_RANGE: u32 = 65;
/// Range at which a Formation entering from the Reserve arrives.
pub const ARRIVAL_RANGE: u32 = 60;

/// The Reserve at the end of an Exchange (F&M Appendix, fm-readings 22):
/// first every Formation in the fight that is 65 MU or more from every enemy
/// Formation in the fight (and, with `reserves_need_ftl`, whose Units all
/// have a working FTL drive) withdraws; then Formations entering from the
/// Reserve arrive at 60 MU from every enemy Formation.
fn reserves_wrap_up<S: Sink>(battle: &mut Battle, sink: &mut S) {
    let n = battle.formations.len();
    let mut leaving = Vec::new();
    for f in 0..n {
        if !battle.formation_active(f) {
            continue;
        }
        let side = battle.formations[f].side;
        let enemies: Vec<usize> = (0..n)
            .filter(|e| battle.formations[*e].side != side && battle.formation_active(*e))
            .collect();
        if enemies.is_empty() || enemies.iter().any(|e| battle.ranges.get(f, *e) < RESERVE_RANGE) {
            continue;
        }
        let ftl_ok = !battle.rules.reserves_need_ftl
            || battle.formations[f]
                .units
                .iter()
                .map(|u| &battle.units[*u])
                .filter(|u| u.active())
                .all(|u| u.systems.iter().any(|s| s.kind.is(&SystemKind::Ftl) && s.operational()));
        if ftl_ok {
            leaving.push(f);
        }
    }
    for f in leaving {
        battle.formations[f].reserve = Reserve::InReserve;
        if S::RECORDS {
            sink.event(ToReserve { formation: f });
        }
    }
    for f in 0..n {
        if battle.formations[f].reserve != Reserve::Entering {
            continue;
        }
        battle.formations[f].reserve = Reserve::InCombat;
        let side = battle.formations[f].side;
        for e in 0..n {
            if e != f && battle.formations[e].side != side {
                battle.ranges.set(f, e, ARRIVAL_RANGE);
            }
        }
        if S::RECORDS {
            sink.event(Arrived { formation: f });
        }
    }
}

/// Plays one Volley (0-based index) of `plot` on `battle`, the battle it
/// was checked against.
pub fn run_volley<S: Sink>(
    battle: &mut Battle,
    plot: &CheckedPlot,
    volley: u8,
    dice: &mut Dice,
    sink: &mut S,
    scratch: &mut Scratch,
) {
    if S::RECORDS {
        sink.event(VolleyStarted { volley: volley + 1 });
    }
    let plot: &ExchangePlot = plot;
    let nf = battle.formations.len();
    let nu = battle.units.len();
    scratch.speed_points.clear();
    scratch.speed_points.resize(nf, 0);
    scratch.evasion_points.clear();
    scratch.evasion_points.resize(nf, 0);
    scratch.pending.clear();
    scratch.pending.resize(nu, (0, 0));
    scratch.reroll_generations.clear();
    scratch.reroll_generations.resize(nu, [0; REROLL_GENERATIONS]);
    scratch.rows_this_volley.clear();
    scratch.rows_this_volley.resize(nu, 0);
    scratch.sap.clear();
    scratch.ap.clear();
    scratch.emp.clear();
    scratch.hull_hits.clear();
    scratch.kills.clear();
    // A launcher that fired last Volley recharges; none carries its charge
    // over from the Exchange before (the records keep none, reading W35).
    std::mem::swap(&mut scratch.bolts_last, &mut scratch.bolts_now);
    scratch.bolts_now.clear();
    if volley == 0 {
        scratch.bolts_last.clear();
        // Nor does a wave gun carry its charge (reading W59).
        scratch.wave_charge.clear();
    }
    scratch.hull.clear();

    super::craft::launch_phase(battle, plot, volley, dice, sink, scratch);
    arm_novas(battle, plot, volley, sink, scratch);
    maneuver(battle, plot, volley, dice, sink, scratch);
    super::craft::secondary_moves(battle, plot, volley, sink, scratch);
    super::craft::engage(battle, plot, volley, sink, scratch);
    scratch.unread_screens(nu);
    fire(battle, plot, volley, dice, sink, scratch);
    point_defence_and_missiles(battle, plot, volley, dice, sink, scratch);
    super::craft::attacks(battle, dice, sink, scratch);
    apply_damage(battle, sink, scratch);
    super::craft::apply_losses(battle, sink, scratch);
    for u in 0..nu {
        let rows = scratch.rows_this_volley[u];
        if rows > 0 && battle.units[u].active() {
            threshold_check(battle, u, rows, dice, sink);
        }
    }
    for i in 0..scratch.emp.len() {
        emp_tests(battle, scratch.emp[i], &scratch.rows_this_volley, dice, sink);
    }
    wave_gun_backlash(battle, dice, sink, scratch);
    // A group docked in a bay lost to a threshold goes with it, whatever
    // damage control does next (docs/fighters.md §2 step 9).
    super::craft::docked_losses(battle, sink, scratch);
    for u in 0..nu {
        if battle.units[u].active() {
            damage_control(battle, plot, volley, u, dice, sink, scratch);
        }
    }
    reactors_and_countdowns(battle, dice, sink, scratch);
    super::craft::wrap_up(battle, sink, scratch);
    // The screens of a ship that fired its nova cannon come back up.
    for &u in &scratch.nova {
        battle.units[u].screens_down = false;
    }
}

/// The Maneuver step's first act (ft-rules §4.5, FTC §7.23; reading W63):
/// every ship in the fight and in control whose fire orders this Volley
/// name a working nova cannon through a working Fire Control fires it, and
/// so has no thrust (its Formation rolls no Speed or Evasion dice), drops
/// its screens and vapour shroud, and fires nothing else this Volley.
fn arm_novas<S: Sink>(battle: &mut Battle, plot: &ExchangePlot, volley: u8, sink: &mut S, scratch: &mut Scratch) {
    scratch.nova.clear();
    if scratch.no_novas {
        return;
    }
    for f in 0..battle.formations.len() {
        if battle.formations[f].reserve != Reserve::InCombat {
            continue;
        }
        for order in &volley_plot(plot, f, volley).fire {
            let unit = &battle.units[order.unit];
            if order.target.is_none()
                || !unit.can_act()
                || !unit.systems[order.fire_control].operational()
                || scratch.nova.contains(&order.unit)
            {
                continue;
            }
            let Some(&weapon) = order
                .weapons
                .iter()
                .find(|&&w| unit.systems[w].kind.is(&SystemKind::NovaCannon) && unit.systems[w].operational())
            else {
                continue;
            };
            scratch.nova.push(order.unit);
            battle.units[order.unit].screens_down = true;
            if S::RECORDS {
                sink.event(NovaArmed {
                    unit: order.unit,
                    weapon,
                    formation: f,
                });
            }
        }
    }
}
