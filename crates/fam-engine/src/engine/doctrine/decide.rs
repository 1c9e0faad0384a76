//! What a Formation decides at the start of an Exchange under its doctrine:
//! the targets, the maneuver and thrust of each Volley, when its ordnance
//! fires, when its class-1 beams defend and its PDS shoot at ships, where
//! its needle beams aim, and whether it withdraws. A [`Choice`] is plain
//! data: the plot is written from it ([`super::fire`]) and the report says
//! it in words.

use crate::engine::doctrine::assess::{self, Arsenal, Attacker, DieTables};
use crate::engine::doctrine::measure::{
    craft_units, escaping_unit, fire_target, is_live_enemy_in, maneuver_for, maneuver_target_in, objective_in,
    others_hold_the_field, select_enemy_in, withdraw_triggered,
};
use crate::engine::doctrine::orders::{Doctrine, EvasionSplit, Movement, Ordnance, PdMode, Selector, WithdrawWhen};
use crate::engine::doctrine::plan::{self, Launches, Pair, Plan, PlanMemo, SEQUENCES};
use crate::engine::plot::{FormationId, Maneuver, SystemId, UnitId};
use crate::engine::state::{Battle, CraftKind, SysState, Unit};
use crate::engine::tables::beam_dice;
use crate::engine::victory::Victory;
use crate::model::{SystemKind, Warhead};

/// Why a Formation withdraws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Withdrawal {
    /// Its `withdraw_when` trigger fired.
    Trigger,
    /// It can no longer do damage at any range (default doctrine).
    CannotFight,
    /// It holds this Unit, whose reaching the Reserve wins the battle for
    /// its side: it runs for the Reserve (default doctrine, readings D26).
    Escape(UnitId),
}

/// What one Formation chose for an Exchange, and the facts behind it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Choice {
    /// The Formation it maneuvers against, and what it does each Volley.
    pub target: Option<FormationId>,
    /// The target is its side's objective, chosen by the default `target`
    /// (readings D25).
    pub objective: bool,
    pub maneuvers: [Maneuver; 3],
    pub speed: u32,
    pub evasion: u32,
    /// The plan of the Exchange, when the doctrine planned (an `auto`
    /// maneuver or Evasion against an enemy Formation).
    pub plan: Option<Plan>,
    pub withdrawing: Option<Withdrawal>,
    /// The Formation its first Fire Controls aim at.
    pub fire_at: Option<FormationId>,
    /// A second enemy Formation for Fire Controls beyond the first: weapons
    /// that cannot reach the fire target but reach it go there.
    pub second: Option<FormationId>,
    /// Expected range to the fire target after each Volley's maneuver, and
    /// its spread.
    pub fire_range: [f64; 3],
    pub fire_spread: [f64; 3],
    /// When its ordnance fires (at the fire target).
    pub launches: Launches,
    /// Ordnance fired at the second target, by Volley.
    pub second_launches: Launches,
    /// Enemy missiles or attacking small craft may reach it, by Volley.
    pub threat: [bool; 3],
    /// Class-1 beams defend, by Volley.
    pub pd: [bool; 3],
    /// PDS fire at ships, by Volley.
    pub pds_at_ships: [bool; 3],
    /// A ship of the Formation raises its reflex field, by Volley (filled
    /// in when the plot is written, readings W62).
    pub reflex: [bool; 3],
    /// A ship of the Formation fires its nova cannon, by Volley (filled in
    /// when the plot is written, readings W65).
    pub nova: [bool; 3],
    /// What one PD-capable beam-family weapon saves by defending as a PDS,
    /// by Volley: it defends when that is at least what it would score
    /// ([`super::assess::family_shot`]); 0 never, infinite always.
    pub pds_mode: [f64; 3],
    /// Where needle beams aim.
    pub needles: Option<(UnitId, SystemId)>,
}

/// What the doctrine knows besides the battle: the victory rules and every
/// Formation's [`Arsenal`].
pub struct Context<'a> {
    pub battle: &'a Battle,
    pub victory: &'a Victory,
    pub tables: &'a DieTables,
    pub arsenals: &'a [Arsenal],
    /// Which Formations are in the fight ([`super::in_fight`] of `battle`).
    pub live: &'a [bool],
    /// For each side, its enemy Formations in the fight in order
    /// ([`super::enemies_in`]), one list after another, and where each
    /// side's is (listed once a plot by `PlotWork`).
    pub enemies: (&'a [FormationId], &'a [(usize, usize)]),
    /// Each Formation's nearest enemy in the fight, by Formation
    /// (found once a plot by `PlotWork`); empty: found when asked.
    pub nearest: &'a [Option<FormationId>],
    /// Each Formation's default maneuver target ([`Selector::Auto`]: its
    /// side's objective, else its nearest enemy), by Formation (found once
    /// a plot by `PlotWork`); empty: found when asked.
    pub aims: &'a [Option<FormationId>],
    /// Each Formation's [`Arsenal::reach`] (found once a plot by
    /// `PlotWork`); empty: found when asked.
    pub reaches: &'a [u32],
    /// Each Formation's small-craft Units in the fight (counted once a
    /// plot by `PlotWork`); empty: counted when asked.
    pub craft: &'a [u32],
}

impl Context<'_> {
    fn range(&self, a: FormationId, b: FormationId) -> u32 {
        self.battle.ranges.get(a, b)
    }

    /// [`super::enemies`] of `f`.
    fn enemies(&self, f: FormationId) -> impl Iterator<Item = FormationId> + '_ {
        let (list, spans) = self.enemies;
        let (a, b) = spans[self.battle.formations[f].side];
        list[a..b].iter().copied()
    }

    /// [`super::select_enemy`] for `f`.
    fn select_enemy(&self, f: FormationId, by: Selector) -> Option<FormationId> {
        match (by, self.nearest.get(f)) {
            (Selector::Nearest, Some(&nearest)) => nearest,
            _ => select_enemy_in(self.battle, self.live, f, by),
        }
    }

    /// [`super::maneuver_target`] of `f`, with its side's objective for
    /// [`Selector::Auto`].
    fn maneuver_target(&self, f: FormationId, by: Selector) -> Option<FormationId> {
        match by {
            Selector::Auto => self.default_target(f),
            Selector::Nearest => self.select_enemy(f, by),
            _ => maneuver_target_in(self.battle, self.live, f, by),
        }
    }

    /// What `f` maneuvers against under the default `target`
    /// ([`Selector::Auto`]): its side's objective while it is in the
    /// fight ([`super::objective_in`]), else its nearest enemy. It is also
    /// what `f` is taken to maneuver against when another Formation weighs
    /// it (a plan foresees the default).
    fn default_target(&self, f: FormationId) -> Option<FormationId> {
        match self.aims.get(f) {
            Some(&aim) => aim,
            None => objective_in(self.battle, self.victory, self.live, f)
                .or_else(|| self.select_enemy(f, Selector::Nearest)),
        }
    }

    /// The longest range `f`'s weapons reach ([`Arsenal::reach`]).
    fn reach(&self, f: FormationId) -> u32 {
        match self.reaches.get(f) {
            Some(&r) => r,
            None => self.arsenals[f].reach(),
        }
    }

    /// Formation `f`'s small-craft Units in the fight.
    fn craft_units(&self, f: FormationId) -> u32 {
        match self.craft.get(f) {
            Some(&n) => n,
            None => craft_units(self.battle, f),
        }
    }

    /// [`Battle::craft_only`]: small craft and nothing else in the fight.
    /// With the counts made once a plot, the arsenal's ships (the Units
    /// in the fight that are not craft) and the craft say it at once.
    fn craft_only(&self, f: FormationId) -> bool {
        match self.craft.get(f) {
            Some(&n) => n > 0 && self.arsenals[f].ships == 0,
            None => self.battle.craft_only(f),
        }
    }

    /// [`super::is_live_enemy`]: `t` an enemy of `f` in the fight.
    fn is_live_enemy(&self, f: FormationId, t: FormationId) -> bool {
        is_live_enemy_in(self.battle, self.live, f, t)
    }
}

/// The default rule for withdrawing: a Formation that cannot do damage at
/// any range and can still move gives up the fight, unless that would lose
/// the battle (readings D20): with reserves, its side's last Formation
/// stays (at the Reserve it would leave the side with nobody in combat).
pub fn cannot_fight(ctx: &Context<'_>, f: FormationId) -> bool {
    let b = ctx.battle;
    let a = &ctx.arsenals[f];
    // It can fight when its weapons reach some range ([`Arsenal::can_fight`]).
    if ctx.reach(f) > 0 || a.thrust == 0 || ctx.craft_only(f) {
        return false;
    }
    !b.rules.reserves || others_hold_the_field(b, ctx.live, f)
}

/// Decides Formation `f`'s Exchange under doctrine `d`, weighing
/// everything afresh.
pub fn decide(ctx: &Context<'_>, f: FormationId, d: &Doctrine) -> Choice {
    decide_with(ctx, &mut PlanMemo::off(), f, d)
}

/// [`decide`], its plan and the sustained fire it weighs read back from
/// `memo` where the same pair recurs (the batch path: the same choice
/// either way).
pub fn decide_with(ctx: &Context<'_>, memo: &mut PlanMemo, f: FormationId, d: &Doctrine) -> Choice {
    let b = ctx.battle;
    let thrust = b.formation_thrust(f);
    let withdrawing = match d.withdraw_when {
        WithdrawWhen::Auto => escaping_unit(b, ctx.victory, ctx.live, f)
            .map(Withdrawal::Escape)
            .or_else(|| cannot_fight(ctx, f).then_some(Withdrawal::CannotFight)),
        w => withdraw_triggered(b, f, w).then_some(Withdrawal::Trigger),
    };
    let mut c = Choice {
        target: None,
        objective: false,
        maneuvers: [Maneuver::Maintain; 3],
        speed: thrust,
        evasion: 0,
        plan: None,
        withdrawing,
        fire_at: None,
        second: None,
        fire_range: [0.0; 3],
        fire_spread: [0.0; 3],
        launches: Launches::default(),
        second_launches: Launches::default(),
        threat: [false; 3],
        pd: [false; 3],
        pds_at_ships: [false; 3],
        reflex: [false; 3],
        nova: [false; 3],
        pds_mode: [0.0; 3],
        needles: None,
    };
    // The Formation its standing orders maneuver against (found once: the
    // fire target is weighed against it too).
    let mut aimed = None;
    if withdrawing.is_some() {
        c.target = ctx.select_enemy(f, Selector::Nearest);
        c.maneuvers = [Maneuver::Withdraw; 3];
    } else {
        aimed = Some(ctx.maneuver_target(f, d.target));
        c.target = aimed.flatten();
        c.objective =
            d.target == Selector::Auto && c.target.is_some() && objective_in(b, ctx.victory, ctx.live, f) == c.target;
        // The default maneuvers against ships: small craft come to it.
        if matches!(d.target, Selector::Nearest | Selector::Auto) && c.target.is_some_and(|t| ctx.craft_only(t)) {
            c.target = ctx
                .enemies(f)
                .filter(|&e| !ctx.craft_only(e))
                .min_by_key(|&e| (ctx.range(f, e), e))
                .or(c.target);
        }
        movement(ctx, memo, f, d, &mut c);
    }
    c.threat = threats(ctx, f, &c);
    aim(ctx, memo, f, d, aimed, &mut c);
    defence(ctx, memo, f, d, &mut c);
    c
}

/// Thrust, maneuvers and the plan against the maneuver target.
fn movement(ctx: &Context<'_>, memo: &mut PlanMemo, f: FormationId, d: &Doctrine, c: &mut Choice) {
    let b = ctx.battle;
    let thrust = c.speed;
    let cap = b.evasion_cap(f, thrust);
    let fixed = match d.evasion {
        EvasionSplit::Auto => None,
        EvasionSplit::Third => Some(thrust / 3),
        EvasionSplit::Dice(n) => Some(n.min(cap)),
        EvasionSplit::Max => Some(cap),
    };
    let Some(t) = c.target else {
        c.evasion = fixed.unwrap_or(thrust / 3);
        c.speed = thrust - c.evasion;
        return;
    };
    let enemy = b.formations[t].side != b.formations[f].side && !ctx.craft_only(t);
    let planned = enemy && (d.maneuver == Movement::Auto || fixed.is_none());
    if !planned {
        let m = match d.maneuver {
            Movement::Auto => Maneuver::Maintain,
            other => maneuver_for(b, f, t, other),
        };
        c.maneuvers = [m; 3];
        c.evasion = fixed.unwrap_or(thrust / 3);
        c.speed = thrust - c.evasion;
        return;
    }
    let one;
    let sequences: &[[Maneuver; 3]] = match d.maneuver {
        Movement::Auto => &SEQUENCES,
        other => {
            one = [[maneuver_for(b, f, t, other); 3]];
            &one
        }
    };
    let pair = pair(ctx, memo, f, t, d.pd != PdMode::Never);
    let plan = plan::choose_memo(memo, (&pair, (f, t)), sequences, fixed);
    c.maneuvers = plan.maneuvers;
    c.speed = plan.speed;
    c.evasion = plan.evasion;
    c.plan = Some(plan);
}

/// The pair `f` against `t` as the plan weighs it.
fn pair<'a>(ctx: &'a Context<'a>, memo: &mut PlanMemo, f: FormationId, t: FormationId, class1_pd: bool) -> Pair<'a> {
    let theirs = &ctx.arsenals[t];
    let coalition = coalition(ctx, memo, f, t);
    Pair {
        tables: ctx.tables,
        ours: &ctx.arsenals[f],
        theirs,
        range: ctx.range(f, t),
        their_evasion: theirs.thrust / 3,
        their_primary: ctx.default_target(t) == Some(f),
        thrust: ctx.arsenals[f].thrust,
        class1_pd: class1_pd && theirs.has_missiles(),
        // A pair weighed with its allies is not shared with the target's
        // own plan (which weighs the pair as it sees it).
        mutual: coalition == (1.0, 1.0) && ctx.default_target(f) == Some(t),
        coalition,
    }
}

/// The allies `f` weighs with it against `t` (readings D24): the
/// Formations of its side in the fight whose default maneuver target
/// (`Context::default_target`) is `t` as well.
/// Their best sustained fire at `t` (at 3 to 36 MU) and their hull and
/// armour, added to `f`'s, over `f`'s own; (1, 1) when none.
fn coalition(ctx: &Context<'_>, memo: &mut PlanMemo, f: FormationId, t: FormationId) -> (f64, f64) {
    let b = ctx.battle;
    let side = b.formations[f].side;
    let theirs = &ctx.arsenals[t];
    let evasion = theirs.thrust / 3;
    let mut best = |a: FormationId| {
        let attacker = Attacker::of(&ctx.arsenals[a]);
        let mut sustained = memo.sustained(ctx.tables, &attacker);
        [3, 6, 12, 18, 24, 30, 36]
            .iter()
            .map(|&r| sustained(theirs, r, evasion))
            .fold(0.0, f64::max)
    };
    let allied = |a: FormationId| {
        a != f && b.formations[a].side == side && ctx.live[a] && !ctx.craft_only(a) && ctx.default_target(a) == Some(t)
    };
    // Most Formations face their target alone: then no fire is weighed.
    if !(0..b.formations.len()).any(allied) {
        return (1.0, 1.0);
    }
    let own = best(f);
    if own <= 0.0 {
        return (1.0, 1.0);
    }
    let own_durability = f64::from(ctx.arsenals[f].durability.max(1));
    let (mut fire, mut durability) = (own, own_durability);
    for a in (0..b.formations.len()).filter(|&a| allied(a)) {
        fire += best(a);
        durability += f64::from(ctx.arsenals[a].durability);
    }
    (fire / own, durability / own_durability)
}

/// Expected range to `t` after each Volley: the plan's when `t` is the
/// maneuver target, else today's range drifting by what we do against it
/// as a secondary Maintain (none).
fn ranges_to(ctx: &Context<'_>, f: FormationId, t: FormationId, c: &Choice) -> ([f64; 3], [f64; 3]) {
    match c.plan {
        Some(p) if c.target == Some(t) => (p.range, p.spread),
        _ if c.target == Some(t) && c.withdrawing.is_none() => {
            // No plan: guess the range from our own Speed alone.
            let mut r = f64::from(ctx.range(f, t));
            let mut out = [0.0; 3];
            let mut spread = [0.0; 3];
            for v in 0..3 {
                let moved = 2.0 * f64::from(c.speed);
                r = match c.maneuvers[v] {
                    Maneuver::Close => (r - moved).abs(),
                    Maneuver::Withdraw => r + moved,
                    Maneuver::Maintain => r,
                };
                out[v] = r;
                spread[v] = (5.0 * f64::from(c.speed) * (v as f64 + 1.0)).sqrt();
            }
            (out, spread)
        }
        _ => {
            let r = f64::from(ctx.range(f, t));
            let s = (5.0 * f64::from(c.speed)).sqrt();
            ([r; 3], [s, s * 2f64.sqrt(), s * 3f64.sqrt()])
        }
    }
}

/// Whether enemy missiles or attacking small craft may reach Formation `f`
/// in each Volley: an enemy Formation with missiles left whose expected
/// range (closing at its full Speed) is within their reach, an enemy
/// Formation of small craft alone within 30 MU, or small craft that fly
/// with enemy ships and attack (Attack and Torpedo groups) when those ships
/// come within their 6 MU: fighters that ride with their carrier attack
/// only from there, and screening fighters not at all.
fn threats(ctx: &Context<'_>, f: FormationId, c: &Choice) -> [bool; 3] {
    let mut out = [false; 3];
    for e in ctx.enemies(f) {
        let a = &ctx.arsenals[e];
        let reach = a.missile_reach();
        // Groups riding with ships are in the ships' arsenal, docked ones
        // ready to launch included (they attack from Volley 1).
        let in_flight = ctx.craft_units(e) > 0;
        let craft_reach = if in_flight && (ctx.craft_only(e) || flies_gunboats(ctx.battle, e)) {
            Some(30.0)
        } else if a.craft_dice.iter().any(|&n| n > 0) || a.craft_torpedoes > 0 {
            Some(f64::from(assess::CRAFT_ATTACK_RANGE))
        } else {
            None
        };
        let craft = craft_reach.is_some();
        if reach == 0 && !craft {
            continue;
        }
        let (ranges, _) = ranges_to(ctx, f, e, c);
        let closing = 2.0 * f64::from(a.thrust - a.thrust / 3);
        for v in 0..3 {
            let closed = (f64::from(ctx.range(f, e)) - closing * (v as f64 + 1.0)).max(0.0);
            let r = if c.target == Some(e) {
                ranges[v].min(closed)
            } else {
                closed
            };
            out[v] |= (reach > 0 && r <= f64::from(reach)) || craft_reach.is_some_and(|cr| r <= cr);
        }
    }
    out
}

/// Whether gunboats of Formation `e` are in the fight: they attack ships
/// within 12 MU, and the plan does not weigh them (docs/doctrine.md, "Not
/// modelled"), so they threaten as a Formation of small craft does.
fn flies_gunboats(b: &Battle, e: FormationId) -> bool {
    b.formations[e].units.iter().any(|&u| {
        let unit = &b.units[u];
        unit.active() && unit.craft.is_some_and(|c| matches!(c.kind, CraftKind::Gunboat(_)))
    })
}

/// Fire targets, when ordnance fires, where needle beams aim.
fn aim(
    ctx: &Context<'_>,
    memo: &mut PlanMemo,
    f: FormationId,
    d: &Doctrine,
    aimed: Option<Option<FormationId>>,
    c: &mut Choice,
) {
    let b = ctx.battle;
    c.fire_at = match d.fire_at {
        Some(_) => fire_target(b, f, d),
        None => auto_fire_target(ctx, memo, f, d, aimed, c),
    };
    let Some(t) = c.fire_at else { return };
    (c.fire_range, c.fire_spread) = ranges_to(ctx, f, t, c);
    let ours = &ctx.arsenals[f];
    c.launches = match d.use_ordnance {
        Ordnance::Auto => {
            let mut l = plan::launches(ours, f64::from(ctx.range(f, t)), &c.fire_range, &c.fire_spread);
            spare_overkill(ctx, ours, &ctx.arsenals[t], &mut l);
            l
        }
        Ordnance::Always | Ordnance::Never => Launches::default(),
    };
    if d.fire_at.is_none() {
        c.second = second_target(ctx, f, t, c);
        if let (Some(s), Ordnance::Auto) = (c.second, d.use_ordnance) {
            let r = [f64::from(ctx.range(f, s)); 3];
            let mut spare = *ours;
            // Only what does not already fire at the first target.
            for v in 0..3 {
                for er in 0..2 {
                    if c.launches.salvos[v][er] {
                        spare.salvos[er] = Default::default();
                    }
                }
            }
            for er in 0..2 {
                if c.launches.racks[er].is_some() {
                    spare.racks[er] = 0;
                    spare.heavies[er] = 0;
                }
            }
            if c.launches.submunitions.is_some() {
                spare.submunitions = [0; 3];
            }
            if c.launches.mkps.is_some() {
                spare.mkps = [0; 3];
            }
            if c.launches.rockets.is_some() {
                spare.rocket_pods = [0; 3];
            }
            if c.launches.antimatter.is_some() {
                spare.antimatter = 0;
            }
            c.second_launches = plan::launches(&spare, r[0], &r, &c.fire_spread);
        }
    }
    if d.use_needles && ours.needles.iter().any(|&n| n > 0) {
        c.needles = needle_aim(b, t);
    }
}

/// How many times the target's hull and armour left the salvos launched
/// at it over an Exchange may be expected to deal before the launchers hold
/// their remaining loads (the dice spread widely: a salvo expected to deal
/// the whole target leaves it standing about half the time).
const OVERKILL: f64 = 1.5;

/// Holds back the salvo launchers' later Volleys once the salvos launched
/// before them are expected to deal [`OVERKILL`] times what target `t` can
/// take: a magazine emptied into a picket is not there for the Formation
/// the battle is about. Volleys in order, standard reach before extended
/// within a Volley; racks and other one-shot ordnance keep their Volley.
fn spare_overkill(ctx: &Context<'_>, ours: &Arsenal, t: &Arsenal, l: &mut Launches) {
    let enough = OVERKILL * f64::from(t.durability.max(1));
    let mut expected = 0.0;
    for v in 0..3 {
        for er in 0..2 {
            if !l.salvos[v][er] {
                continue;
            }
            if expected >= enough {
                l.salvos[v][er] = false;
                continue;
            }
            let salvos = f64::from(ours.salvos[er].launchers.min(ours.salvos[er].loads));
            expected += assess::missiles(ctx.tables, salvos, 0.0, t, t.thrust / 3, true);
        }
    }
}

/// The default fire target: the Formation the doctrine's `target` names
/// (the maneuver target, unless the Formation withdraws) while some weapon
/// reaches it this Exchange, else the enemy Formation with ships that our
/// sustained fire hurts most (as a share of what it can take) at today's
/// range, nearest first on ties.
fn auto_fire_target(
    ctx: &Context<'_>,
    memo: &mut PlanMemo,
    f: FormationId,
    d: &Doctrine,
    aimed: Option<Option<FormationId>>,
    c: &Choice,
) -> Option<FormationId> {
    let ships = |t: FormationId| !ctx.craft_only(t);
    let ours = &ctx.arsenals[f];
    let intended = aimed
        .unwrap_or_else(|| ctx.maneuver_target(f, d.target))
        .filter(|&t| ctx.is_live_enemy(f, t) && ships(t));
    if let Some(t) = intended {
        let (r, _) = ranges_to(ctx, f, t, c);
        if r.iter().any(|&x| x <= f64::from(ctx.reach(f))) {
            return Some(t);
        }
    }
    let mut best: Option<(f64, u32, FormationId)> = None;
    // Its sustained fire's reach ([`Arsenal::sustained_reach`]).
    let reach = ctx.reach(f);
    let attacker = Attacker::of(ours);
    let mut sustained = memo.sustained(ctx.tables, &attacker);
    for e in ctx.enemies(f).filter(|&e| ships(e)) {
        let r = ctx.range(f, e);
        let a = &ctx.arsenals[e];
        let hurt = if r > reach {
            0.0
        } else {
            sustained(a, r, a.thrust / 3) / f64::from(a.durability.max(1))
        };
        let better = match best {
            None => true,
            Some((h, br, _)) => hurt > h + 1e-12 || ((hurt - h).abs() <= 1e-12 && r < br),
        };
        if better {
            best = Some((hurt, r, e));
        }
    }
    best.map(|(_, _, e)| e)
        .or(c.target.filter(|&t| ctx.is_live_enemy(f, t) && ships(t)))
}

/// A second enemy Formation with ships for Fire Controls beyond the first:
/// the nearest that is nearer than the fire target is expected to be in
/// some Volley.
fn second_target(ctx: &Context<'_>, f: FormationId, t: FormationId, c: &Choice) -> Option<FormationId> {
    let far = c.fire_range.iter().copied().fold(0.0, f64::max);
    ctx.enemies(f)
        .filter(|&e| e != t && !ctx.craft_only(e))
        .map(|e| (ctx.range(f, e), e))
        .filter(|&(r, _)| f64::from(r) + 3.0 < far)
        .min()
        .map(|(_, e)| e)
}

/// Class-1 beams on point defence and PDS at ships, Volley by Volley.
fn defence(ctx: &Context<'_>, memo: &mut PlanMemo, f: FormationId, d: &Doctrine, c: &mut Choice) {
    // Without class-1 beams there is nothing to put on point defence.
    let beams = ctx.arsenals[f].class1 > 0;
    match d.pd {
        PdMode::Never => {}
        PdMode::Always => {
            c.pd = [beams; 3];
            c.pds_mode = [f64::INFINITY; 3];
        }
        PdMode::Auto => {
            let saving = pd_saving(ctx, f);
            for v in 0..3 {
                // (A pure number, weighed only where it can decide.)
                c.pd[v] = beams && c.threat[v] && saving >= class1_value(ctx, memo, c, v);
                // A PDS die kills twice what a class-1 beam's does.
                c.pds_mode[v] = if c.threat[v] { 2.0 * saving } else { 0.0 };
                c.pds_at_ships[v] = !c.threat[v]
                    && c.fire_range[v] + 0.5 * c.fire_spread[v] <= 6.0
                    && c.fire_at.is_some_and(|t| open_target(ctx.battle, t));
            }
        }
    }
}

/// What one class-1 beam in point-defence mode saves a Volley: 0.4 missiles
/// of every salvo (3.5 points each) and a sixth of every heavy missile
/// (10.5 points) aimed at its Unit, with the enemy's missiles spread over
/// our ships; small craft count as one salvo each.
fn pd_saving(ctx: &Context<'_>, f: FormationId) -> f64 {
    let ships = f64::from(ctx.arsenals[f].ships.max(1));
    let mut salvos = 0.0;
    let mut heavies = 0.0;
    for e in ctx.enemies(f) {
        let a = &ctx.arsenals[e];
        salvos += f64::from(a.salvos.iter().map(|s| s.launchers).sum::<u32>() + a.racks.iter().sum::<u32>());
        heavies += f64::from(a.heavies.iter().sum::<u32>());
        salvos += f64::from(ctx.craft_units(e));
    }
    (salvos * 0.4 * 3.5 + heavies * 10.5 / 6.0) / ships
}

/// What one class-1 beam scores at the fire target in Volley `v`.
fn class1_value(ctx: &Context<'_>, memo: &mut PlanMemo, c: &Choice, v: usize) -> f64 {
    let Some(t) = c.fire_at else { return 0.0 };
    let r = c.fire_range[v].round().max(0.0) as u32;
    if beam_dice(1, r) == 0 {
        return 0.0;
    }
    // The one beam's part of the fire key is the same every time.
    static ONE: std::sync::LazyLock<Attacker> = std::sync::LazyLock::new(|| {
        let mut one = Arsenal::default();
        one.beams[1][2] = 1;
        Attacker::of(&one)
    });
    let target = &ctx.arsenals[t];
    memo.sustained(ctx.tables, &ONE)(target, r, target.thrust / 3)
}

/// A Formation with a ship in the fight that has no working screen and no
/// armour left: PDS may fire at it (ft-rules §5.1).
fn open_target(b: &Battle, t: FormationId) -> bool {
    b.formations[t].units.iter().any(|&u| {
        let unit = &b.units[u];
        unit.active() && !unit.is_craft() && unit.screen_level() == 0 && unit.armour_left() == 0
    })
}

/// How much a needle kill of a system takes from its Unit: its only
/// working Fire Control takes all its fire (1000); a salvo magazine with
/// loads, 6 per launcher it feeds; a launcher with loads to draw, 6; beams
/// 2 per class; torpedoes and unspent racks 4; other weapons 2, point
/// defence 1; anything else nothing.
fn system_worth(unit: &Unit, s: usize) -> u32 {
    let sys = &unit.systems[s];
    let loads = |m: Option<usize>| {
        m.and_then(|m| unit.systems.get(m))
            .is_some_and(|m| m.state == SysState::Operational && m.rounds_left() > 0)
    };
    match sys.kind {
        SystemKind::FireControl if sys.operational() && unit.fire_controls().count() == 1 => 1000,
        SystemKind::Smm if sys.rounds_left() > 0 => {
            let fed = unit
                .systems
                .iter()
                .filter(|l| l.kind.draws_on_magazine() && l.magazine == Some(s));
            6 * u32::try_from(fed.count()).unwrap_or(0)
        }
        SystemKind::Sml if loads(sys.magazine) => 6,
        SystemKind::Beam { class } => 2 * u32::from(class),
        SystemKind::PulseTorpedo { .. } => 4,
        SystemKind::KGun { class, .. } | SystemKind::PlasmaBolt { class } => 2 * u32::from(class),
        SystemKind::Graser { class }
        | SystemKind::Phaser { class }
        | SystemKind::HeavyGraser { class }
        | SystemKind::HighIntensityGraser { class }
        | SystemKind::PlasmaCannon { class } => 2 * u32::from(class),
        SystemKind::EmpProjector { class } => 2 * u32::from(class),
        SystemKind::Smr
        | SystemKind::Missile {
            warhead: Warhead::Standard,
        } if sys.rounds_left() > 0 => 4,
        SystemKind::Pds | SystemKind::Adaf | SystemKind::Scattergun => 1,
        SystemKind::Mkp if sys.rounds_left() > 0 => 4,
        SystemKind::RocketPod | SystemKind::AntimatterMissile if sys.rounds_left() > 0 => 4,
        SystemKind::RocketPod | SystemKind::AntimatterMissile => 0,
        SystemKind::Sml
        | SystemKind::Smr
        | SystemKind::Missile { .. }
        | SystemKind::SubmunitionPack
        | SystemKind::Mkp => u32::from(sys.rounds_left() > 0),
        ref k if k.is_weapon() => 2,
        _ => 0,
    }
}

/// Where needle beams aim at Formation `t` (the system that matters most,
/// by [`system_worth`]): the Unit in the fight whose weapons (and
/// magazines) are worth most, at its system worth most, working systems
/// before damaged ones; ties go to the lowest system number and the first
/// Unit listed. Core systems cannot be aimed at (ft-rules §4.2).
pub fn needle_aim(b: &Battle, t: FormationId) -> Option<(UnitId, SystemId)> {
    let mut best: Option<(u32, u32, UnitId, SystemId)> = None;
    for &u in &b.formations[t].units {
        let unit = &b.units[u];
        if !unit.active() || unit.is_craft() {
            continue;
        }
        let weapons: u32 = (0..unit.systems.len())
            .filter(|&s| {
                let k = &unit.systems[s].kind;
                unit.systems[s].operational() && (k.is_weapon() || k.is_magazine())
            })
            .map(|s| system_worth(unit, s))
            .sum();
        let mut pick: Option<(u32, SystemId)> = None;
        for (s, sys) in unit.systems.iter().enumerate() {
            if sys.kind.is_core() || sys.state == SysState::Destroyed {
                continue;
            }
            let worth = 2 * system_worth(unit, s) + u32::from(sys.operational());
            if worth > 1 && pick.is_none_or(|(w, _)| worth > w) {
                pick = Some((worth, s));
            }
        }
        let Some((worth, s)) = pick else { continue };
        if best.is_none_or(|(bw, bs, _, _)| (weapons, worth) > (bw, bs)) {
            best = Some((weapons, worth, u, s));
        }
    }
    best.map(|(_, _, u, s)| (u, s))
}
