//! Fire and point-defence orders written from a [`Choice`]: each Unit's
//! first working Fire Control at the fire target, a second one at the
//! second target with what cannot reach the first, class-1 beams defending
//! in the Volleys the choice says.

use crate::engine::doctrine::assess::{self, Arsenal, family_dice, family_shot, k_gun_hit_mean, sustained};
use crate::engine::doctrine::decide::Choice;
use crate::engine::doctrine::measure::enemies;
use crate::engine::doctrine::orders::{Doctrine, Ordnance};
use crate::engine::doctrine::plan::Launches;
use crate::engine::plot::{FireOrder, FormationId, FormationPlot, NeedleOrder, PdOrder, SystemId, UnitId};
use crate::engine::reflex;
use crate::engine::scratch::room;
use crate::engine::state::{Battle, Sys, SysState, Unit};
use crate::engine::tables::{ANTIMATTER_RANGE_MU, PROJECTILE_STANDARD_MU, ROCKET_RANGE_MU};
use crate::engine::tables::{FUSION_ARRAY_RANGE, NOVA_RANGE, WAVE_GUN_RANGE, nova_dice};
use crate::engine::tables::{MKP_RANGE_MU, PLASMA_BOLT_RANGE, beam_dice, projectile_needed};
use crate::engine::tables::{missile_range, submunition_dice, torpedo_band};
use crate::model::registry::Pd;
use crate::model::{SystemKind, Warhead};

/// The working memory of fire orders: a pool of orders handed back by
/// earlier plots and handed out again, and the lists one Unit's orders
/// are gathered in, sized once for a battle (a warm batch worker makes
/// none).
#[derive(Debug, Default)]
pub(super) struct FireWork {
    /// Fire orders to hand out.
    pub(super) pool: Vec<FireOrder>,
    /// Fire orders made for the pool so far.
    made: usize,
    /// Most systems on a Unit: the room an order's lists get.
    unit_max: usize,
    /// A Unit's weapons for its first Fire Control, and for its second.
    every: Vec<SystemId>,
    spare: Vec<SystemId>,
    /// A Unit's systems that may fire: each with whether it is a working
    /// PDS or ADAF, and whether it is a sustained-fire weapon not destroyed.
    armed: Vec<(SystemId, bool, bool)>,
    /// Loads drawn from each salvo magazine this plot.
    drawn: Vec<(SystemId, u32)>,
}

impl FireWork {
    /// Sized for a battle of `units` Units, the largest with `unit_max`
    /// systems.
    pub(super) fn prepare(&mut self, units: usize, unit_max: usize) {
        self.unit_max = unit_max;
        // Every Unit may fire with two Fire Controls (a second target) in
        // each Volley. The orders of the plot being rewritten are still out
        // while the new one is written, so twice that many are made at
        // once: a rare plot late in a batch never has to make one.
        let orders = 2 * 3 * 2 * units;
        room(&mut self.pool, orders);
        while self.made < orders {
            let (weapons, needles) = (Vec::with_capacity(unit_max), Vec::with_capacity(unit_max));
            self.pool.push(FireOrder {
                unit: 0,
                fire_control: 0,
                target: None,
                weapons,
                needles,
                group: None,
            });
            self.made += 1;
        }
        for list in [&mut self.every, &mut self.spare] {
            room(list, unit_max);
        }
        room(&mut self.drawn, unit_max);
        room(&mut self.armed, unit_max);
    }

    /// A fire order of Unit `unit` with `fire_control` at `target`, its
    /// lists empty: one from the pool.
    fn order(&mut self, unit: UnitId, fire_control: SystemId, target: FormationId) -> FireOrder {
        let made = &mut self.made;
        let mut order = self.pool.pop().unwrap_or_else(|| {
            *made += 1;
            FireOrder {
                unit,
                fire_control,
                target: None,
                weapons: Vec::new(),
                needles: Vec::new(),
                group: None,
            }
        });
        order.unit = unit;
        order.fire_control = fire_control;
        order.target = Some(target);
        order.group = None;
        order.weapons.clear();
        order.needles.clear();
        room(&mut order.weapons, self.unit_max);
        room(&mut order.needles, self.unit_max);
        order
    }
}

/// Not destroyed: a damaged weapon is plotted, as damage control may
/// repair it before it fires.
fn live(s: &Sys) -> bool {
    s.state != SysState::Destroyed
}

/// Whether `s` can hurt a ship at `range` (beams, torpedoes, needles).
fn reaches(s: &Sys, range: u32) -> bool {
    match s.kind {
        SystemKind::Beam { class } => beam_dice(u32::from(class), range) > 0,
        SystemKind::PulseTorpedo { range: v } | SystemKind::KGun { range: v, .. } => {
            projectile_needed(range, torpedo_band(v)).is_some()
        }
        SystemKind::NeedleBeam => range <= 12,
        SystemKind::PlasmaBolt { .. } => range <= PLASMA_BOLT_RANGE,
        SystemKind::BoardingTorpedo => projectile_needed(range, PROJECTILE_STANDARD_MU).is_some(),
        SystemKind::FusionArray => range <= FUSION_ARRAY_RANGE,
        SystemKind::WaveGun => range <= WAVE_GUN_RANGE,
        SystemKind::NovaCannon => range <= NOVA_RANGE,
        ref k => family_dice(k, range) > 0,
    }
}

/// Class-1 beams, and EMP-1s, which defend in the same Volleys (a class-1
/// beam's table without the reroll, at −1; docs/doctrine.md).
fn class1_like(kind: &SystemKind) -> bool {
    kind.defends_as_class_one()
}

/// A scattergun: it defends whenever it is loaded.
fn scatters(kind: &SystemKind) -> bool {
    kind.row().pd == Pd::Scatter
}

/// Whether beam-family weapon `s` defends as a PDS in Volley `v`: it can,
/// and the choice's saving is at least what it would score at the
/// Volley's fire range.
fn defends_as_pds(s: &Sys, c: &Choice, v: usize) -> bool {
    // Asked of every weapon every Volley: most cannot defend, and need not
    // weigh their shot.
    if !s.kind.fires_as_pds() {
        return false;
    }
    let range = c.fire_range[v].round().max(0.0) as u32;
    let (saving, shot) = match s.kind {
        // A K-1 kills 0.47 to a PDS's 0.8 (at −1), and its shot is a K-1
        // hit at the range's projectile number.
        SystemKind::KGun { range: variant, .. } => {
            let hit = projectile_needed(range, torpedo_band(variant)).map_or(0.0, |n| f64::from(7 - n.min(7)) / 6.0);
            (c.pds_mode[v] * (2.8 / 6.0) / 0.8, hit * k_gun_hit_mean(1))
        }
        ref k => (c.pds_mode[v], family_shot(k, range)),
    };
    saving > 0.0 && saving >= shot
}

/// The ordnance of Unit `u` that `l` fires in Volley `v`: launchers whose
/// magazine still has a load for them (loads drawn in earlier Volleys of
/// the plot counted in `drawn`), unspent working racks, heavy missiles,
/// submunition and MKP packs.
fn launched(unit: &Unit, l: &Launches, v: usize, drawn: &mut Vec<(SystemId, u32)>, out: &mut Vec<SystemId>) {
    // Most Volleys launch nothing: no need to look at the Unit's systems.
    if !l.any_in(v) {
        return;
    }
    for (i, s) in unit.systems.iter().enumerate() {
        if !s.operational() {
            continue;
        }
        let er = usize::from(s.er);
        let fire = match s.kind {
            SystemKind::Sml if l.salvos[v][er] => draw(unit, s, drawn),
            SystemKind::Smr
            | SystemKind::Missile {
                warhead: Warhead::Standard,
            } => l.racks[er] == Some(v) && s.rounds_left() > 0,
            SystemKind::SubmunitionPack => l.submunitions == Some(v) && s.rounds_left() > 0,
            SystemKind::Mkp => l.mkps == Some(v) && s.rounds_left() > 0,
            SystemKind::RocketPod => l.rockets == Some(v) && s.rounds_left() > 0,
            SystemKind::AntimatterMissile => l.antimatter == Some(v) && s.rounds_left() > 0,
            _ => false,
        };
        if fire {
            out.push(i);
        }
    }
}

/// Takes one load from launcher `s`'s magazine if it has one left.
fn draw(unit: &Unit, s: &Sys, drawn: &mut Vec<(SystemId, u32)>) -> bool {
    let Some(m) = s.magazine else { return false };
    let loads = unit
        .systems
        .get(m)
        .filter(|m| m.state == SysState::Operational)
        .map_or(0, |m| m.rounds_left());
    let n = match drawn.iter().position(|x| x.0 == m) {
        Some(k) => &mut drawn[k].1,
        None => {
            drawn.push((m, 0));
            &mut drawn.last_mut().expect("just pushed").1
        }
    };
    if *n < loads {
        *n += 1;
        true
    } else {
        false
    }
}

/// Writes the point-defence orders of Formation `f`: in each Volley the
/// choice defends in, every class-1 beam not destroyed of its Units in the
/// fight defends its own Unit; in every Volley, every unspent Scattergun
/// stands ready, so that it fires at the first missiles or small craft that
/// reach its Unit or a Unit it may cover (a one-shot weapon with no other
/// use; docs/doctrine.md).
/// `defenders` is working memory: the systems of one Unit whose kind can
/// defend at all, sorted out once for the three Volleys.
pub(super) fn point_defence(
    b: &Battle,
    f: FormationId,
    c: &Choice,
    out: &mut FormationPlot,
    defenders: &mut Vec<SystemId>,
) {
    for &u in &b.formations[f].units {
        let unit = &b.units[u];
        if !unit.active() {
            continue;
        }
        defenders.clear();
        defenders.extend(
            unit.systems
                .iter()
                .enumerate()
                .filter(|(_, s)| class1_like(&s.kind) || s.kind.fires_as_pds() || scatters(&s.kind))
                .map(|(i, _)| i),
        );
        for (v, vp) in out.volleys.iter_mut().enumerate() {
            vp.point_defence.extend(
                defenders
                    .iter()
                    .filter(|&&i| {
                        let s = &unit.systems[i];
                        let class1 = c.pd[v] && class1_like(&s.kind);
                        let scattergun = scatters(&s.kind) && s.operational() && s.rounds_left() > 0;
                        (class1 || defends_as_pds(s, c, v)) && live(s) || scattergun
                    })
                    .map(|&weapon| PdOrder {
                        unit: u,
                        weapon,
                        defend: None,
                    }),
            );
        }
    }
}

/// Writes Unit `u`'s fire orders for the three Volleys.
pub(super) fn unit_fire(
    b: &Battle,
    f: FormationId,
    u: UnitId,
    d: &Doctrine,
    c: &Choice,
    out: &mut FormationPlot,
    w: &mut FireWork,
) {
    let unit = &b.units[u];
    let Some(t) = c.fire_at else { return };
    let mut fcs = unit.fire_controls();
    let Some(fc) = fcs.next() else { return };
    let fc2 = fcs.next().filter(|_| c.second.is_some());
    let second_range = c.second.map(|s| b.ranges.get(f, s));
    w.drawn.clear();
    // What each system is does not change from Volley to Volley: the
    // systems that may fire are sorted out once.
    w.armed.clear();
    for (i, s) in unit.systems.iter().enumerate() {
        // Needle beams fire only with a needle aim.
        let sustained =
            sustained_kind(&s.kind) && (c.needles.is_some() || !s.kind.is(&SystemKind::NeedleBeam)) && live(s);
        let pds = s.kind.is_pd_mount() && s.operational();
        if pds || sustained {
            w.armed.push((i, pds, sustained));
        }
    }
    for v in 0..3 {
        let range = c.fire_range[v].round().max(0.0) as u32;
        w.every.clear();
        w.spare.clear();
        for &(i, pds, sustained) in &w.armed {
            let s = &unit.systems[i];
            if !(c.pds_at_ships[v] && pds || sustained) {
                continue;
            }
            if c.pd[v] && class1_like(&s.kind) || defends_as_pds(s, c, v) {
                continue;
            }
            let elsewhere = fc2.is_some() && !reaches(s, range) && second_range.is_some_and(|r| reaches(s, r));
            if elsewhere {
                w.spare.push(i);
            } else {
                w.every.push(i);
            }
        }
        match d.use_ordnance {
            Ordnance::Auto => {
                launched(unit, &c.launches, v, &mut w.drawn, &mut w.every);
                if fc2.is_some() {
                    launched(unit, &c.second_launches, v, &mut w.drawn, &mut w.spare);
                }
            }
            Ordnance::Always => always(b, f, t, unit, v, &mut w.drawn, &mut w.every),
            Ordnance::Never => {}
        }
        w.every.sort_unstable();
        w.spare.sort_unstable();
        if !w.every.is_empty() {
            let order = order(w, unit, u, fc, t, c.needles, true);
            out.volleys[v].fire.push(order);
        }
        if let (Some(fc2), Some(s)) = (fc2, c.second)
            && !w.spare.is_empty()
        {
            let order = order(w, unit, u, fc2, s, None, false);
            out.volleys[v].fire.push(order);
        }
    }
}

/// A fire order of `unit` with the weapons gathered in `w.every` (first)
/// or `w.spare` (second), needle beams aimed at `needles`.
fn order(
    w: &mut FireWork,
    unit: &Unit,
    u: UnitId,
    fc: SystemId,
    t: FormationId,
    needles: Option<(UnitId, SystemId)>,
    first: bool,
) -> FireOrder {
    let mut order = w.order(u, fc, t);
    let list = if first { &w.every } else { &w.spare };
    order.weapons.extend_from_slice(list);
    if let Some((tu, ts)) = needles {
        order.needles.extend(
            list.iter()
                .filter(|&&weapon| unit.systems[weapon].kind.is(&SystemKind::NeedleBeam))
                .map(|&weapon| NeedleOrder {
                    weapon,
                    unit: tu,
                    system: ts,
                }),
        );
    }
    order
}

/// `use_ordnance = true`: when the fire target is in reach at the start of
/// the Exchange, racks, heavy missiles, submunition and MKP packs in Volley 1,
/// each salvo launcher one load a Volley while its magazine has loads.
fn always(
    b: &Battle,
    f: FormationId,
    t: FormationId,
    unit: &Unit,
    v: usize,
    drawn: &mut Vec<(SystemId, u32)>,
    out: &mut Vec<SystemId>,
) {
    let range = b.ranges.get(f, t);
    for (i, s) in unit.systems.iter().enumerate() {
        if !s.operational() {
            continue;
        }
        let fire = match s.kind {
            SystemKind::Smr
            | SystemKind::Missile {
                warhead: Warhead::Standard,
            } => v == 0 && s.rounds_left() > 0 && range <= missile_range(s.er),
            SystemKind::SubmunitionPack => v == 0 && s.rounds_left() > 0 && submunition_dice(range) > 0,
            SystemKind::Mkp => v == 0 && s.rounds_left() > 0 && range <= MKP_RANGE_MU,
            SystemKind::RocketPod => v == 0 && s.rounds_left() > 0 && range <= ROCKET_RANGE_MU,
            SystemKind::AntimatterMissile => v == 0 && s.rounds_left() > 0 && range <= ANTIMATTER_RANGE_MU,
            SystemKind::Sml => range <= missile_range(s.er) && draw(unit, s, drawn),
            _ => false,
        };
        if fire {
            out.push(i);
        }
    }
}

/// Fires Unit `u`'s nova cannons in each Volley where they pay (reading
/// W65, docs/doctrine.md): the ship has a working Fire Control and a nova
/// cannon not destroyed, the fire target is within the blast's 72 MU at
/// the Volley's expected range, its orders of that Volley launch no
/// ordnance (a launch was chosen for its Volley), and the blast's expected
/// damage is at least that of the ship's other weapons at that range. The
/// ship's fire and point-defence orders of that Volley give way to one
/// order: its nova cannons at the fire target.
/// `arsenals` are every Formation's.
pub(super) fn nova(b: &Battle, u: UnitId, c: &Choice, arsenals: &[Arsenal], out: &mut FormationPlot, w: &mut FireWork) {
    let unit = &b.units[u];
    let Some(t) = c.fire_at else { return };
    let Some(fc) = unit.fire_controls().next() else { return };
    if !unit
        .systems
        .iter()
        .any(|s| s.kind.is(&SystemKind::NovaCannon) && live(s))
    {
        return;
    }
    let (blast, rest) = Arsenal::nova_split(b, u);
    for v in 0..3 {
        let range = c.fire_range[v].round().max(0.0) as u32;
        if nova_dice(range) == 0 {
            continue;
        }
        let vp = &mut out.volleys[v];
        let launches = vp
            .fire
            .iter()
            .filter(|o| o.unit == u)
            .flat_map(|o| o.weapons.iter())
            .any(|&s| !sustained_kind(&unit.systems[s].kind) && !unit.systems[s].kind.is_pd_mount());
        let target = &arsenals[t];
        let evasion = target.thrust / 3;
        let worth = sustained(assess::tables(), &blast, target, range, evasion);
        if launches || worth < sustained(assess::tables(), &rest, target, range, evasion) {
            continue;
        }
        let mut i = 0;
        while i < vp.fire.len() {
            if vp.fire[i].unit == u {
                w.pool.push(vp.fire.remove(i));
            } else {
                i += 1;
            }
        }
        vp.point_defence.retain(|o| o.unit != u);
        let mut order = w.order(u, fc, t);
        order.weapons.extend(
            unit.systems
                .iter()
                .enumerate()
                .filter(|(_, s)| s.kind.is(&SystemKind::NovaCannon) && live(s))
                .map(|(i, _)| i),
        );
        vp.fire.push(order);
    }
}

/// Raises Unit `u`'s reflex field in each Volley where it pays (readings
/// W62, docs/doctrine.md): the ship has a working field, an enemy
/// Formation in the fight carries an energy weapon the field stops, no
/// enemy missile or small craft may reach the Formation (its point
/// defence stays up), and none of the weapons its fire orders list could
/// score at the expected range (a sustained weapon out of reach; ordnance
/// counts as scoring). The ship's fire and point-defence orders of that
/// Volley are dropped: behind its field it may not fire.
pub(super) fn reflex(b: &Battle, f: FormationId, u: UnitId, c: &Choice, out: &mut FormationPlot, w: &mut FireWork) {
    let unit = &b.units[u];
    if !reflex::has_working_field(unit) || !enemy_energy(b, f) {
        return;
    }
    for (v, vp) in out.volleys.iter_mut().enumerate() {
        if c.threat[v] {
            continue;
        }
        let range = c.fire_range[v].round().max(0.0) as u32;
        let scores = |w: &SystemId| {
            let s = &unit.systems[*w];
            !sustained_kind(&s.kind) || reaches(s, range)
        };
        let fires = vp
            .fire
            .iter()
            .filter(|o| o.unit == u && o.target.is_some())
            .any(|o| o.weapons.iter().any(scores));
        if fires {
            continue;
        }
        // The dropped fire orders go back to the pool (a warm batch
        // allocates none).
        let mut i = 0;
        while i < vp.fire.len() {
            if vp.fire[i].unit == u {
                w.pool.push(vp.fire.remove(i));
            } else {
                i += 1;
            }
        }
        vp.point_defence.retain(|o| o.unit != u);
        vp.reflex.push(u);
    }
}

/// Weapons that fire every Volley and reach only so far (the others in
/// fire orders are ordnance and PDS): the registry's `sustained`.
fn sustained_kind(kind: &SystemKind) -> bool {
    kind.row().sustained
}

/// Whether an enemy Formation of `f` in the fight carries a working energy
/// weapon a reflex field stops.
fn enemy_energy(b: &Battle, f: FormationId) -> bool {
    enemies(b, f).any(|e| {
        b.formations[e].units.iter().any(|&t| {
            let unit = &b.units[t];
            unit.active() && unit.systems.iter().any(|s| s.operational() && s.kind.is_energy())
        })
    })
}
