//! What the default doctrine weighs: expected damage, without dice.
//!
//! A Formation's fighting power is summed up once per Exchange in an
//! [`Arsenal`] (its working weapons by kind, its point defence, screens and
//! what it can take), and [`DieTables`] hold the mean of one die of each
//! kind against a Formation rolling a given number of Evasion dice. From the
//! two, [`sustained`] gives the damage a Formation's beams, torpedoes and
//! needles deal in one Volley at a range, and [`ordnance`] what a launch of
//! missiles or submunitions deals through point defence. Every number is an
//! expectation read off the rules' own tables (ft-rules §1.2-1.3, §4, §5.1),
//! so a doctrine decision is a pure function of the battle state.

use crate::engine::doctrine::cache::SlotHasher;
use crate::engine::plot::{FormationId, UnitId};
use crate::engine::rules::PdEvasionReroll;
use crate::engine::state::{Battle, SysState, Unit};
use crate::engine::tables::{
    ANTIMATTER_DICE, ANTIMATTER_RANGE_MU, ROCKET_RANGE_MU, ROCKETS_PER_POD, antimatter_points, rocket_needed,
};
use crate::engine::tables::{FUSION_ARRAY_RANGE, WAVE_GUN_RANGE, fusion_array_mode, fusion_array_shot, wave_gun_dice};
use crate::engine::tables::{
    MKP_HIT_POINTS, MKP_RANGE_MU, PLASMA_BOLT_RANGE, apply_drm, beam_dice, beam_family_dice, beam_table, mkp_hits,
    plasma_bolt_points, plasma_hits, projectile_needed, pulser_dice, range_band, success_value,
};
use crate::engine::tables::{NOVA_RANGE, nova_dice};
use crate::engine::tables::{evasion_ignored, missile_range, pulser_setting, submunition_dice, torpedo_band};
use crate::model::registry::{BeamDice, Family, Hit};
use crate::model::{PulserSetting, SystemKind, TorpedoRange, Warhead};
use std::hash::{Hash, Hasher};

/// Speed dice the outpacing table covers; beyond it the means are used.
pub const MAX_SPEED_DICE: usize = 16;
/// Evasion dice the tables cover; more count as this many.
pub const MAX_EVASION_DICE: usize = 12;
/// Beam classes counted one by one; larger classes count as this one.
pub const BEAM_CLASSES: usize = 12;
/// Mean damage of a penetrating reroll die: read unscreened, with no DRM,
/// rerolling again on a 6 (4-5 score 1, 6 scores 2): m = 4/6 + m/6.
const REROLL_MEAN: f64 = 0.8;
/// Mean of a d6: missiles on target in a salvo, damage of one missile or
/// torpedo hit.
const D6_MEAN: f64 = 3.5;
/// Mean damage of a heavy missile: 3d6.
const HEAVY_MEAN: f64 = 10.5;
/// Expected kills of one PDS die against missiles (4-5 kill one, 6 kills
/// two and rerolls: k = 4/6 + k/6).
const PDS_KILLS: f64 = 0.8;
/// Expected kills of one class-1 beam in point-defence mode (5-6 kill one,
/// a natural 6 rerolls: k = 2/6 + k/6).
const BEAM1_KILLS: f64 = 0.4;

/// Means of one die against a Formation that rolls `n` Evasion dice, for
/// every number of Evasion Points a weapon ignores (0-2, by its arcs).
#[derive(Debug, Clone)]
pub struct DieTables {
    /// `beam[n][ignored][screen]`: one beam die (penetrating), screens 0-2.
    beam: [[[f64; 3]; 3]; MAX_EVASION_DICE + 1],
    /// `hit[n][ignored][needed]`: a projectile to-hit roll needing
    /// `needed` (2-6) before the Evasion DRM.
    hit: [[[f64; 7]; 3]; MAX_EVASION_DICE + 1],
    /// `needle[rule][n][ignored]`: damage points of one needle-beam die,
    /// `rule` as [`needle_rule`] numbers the readings (Continuum: 4+ scores
    /// one; FB1: 5+; either with or without a natural 6 always scoring).
    needle: [[[f64; 3]; MAX_EVASION_DICE + 1]; 4],
    /// `mkp[n][ignored]`: hits of one MKP die.
    mkp: [[f64; 3]; MAX_EVASION_DICE + 1],
    /// `bolt[n][ignored][screen]`: points of one plasma bolt die.
    bolt: [[[f64; 3]; 3]; MAX_EVASION_DICE + 1],
    /// `plain[n][ignored][screen]`: points of one beam die without
    /// rerolls (heavy grasers count hits so).
    plain: [[[f64; 3]; 3]; MAX_EVASION_DICE + 1],
    /// `plasma[n][ignored][screen]`: points of one plasma-cannon die, its
    /// rerolls included.
    plasma: [[[f64; 3]; 3]; MAX_EVASION_DICE + 1],
    /// `evasion_points[n]`: mean Evasion Points of `n` dice.
    evasion_points: [f64; MAX_EVASION_DICE + 1],
    /// `outpace[a_minus][b_minus][a][b]`: see [`DieTables::outpace`].
    outpace: [[[[f64; MAX_SPEED_DICE + 1]; MAX_SPEED_DICE + 1]; 2]; 2],
}

impl Default for DieTables {
    fn default() -> Self {
        DieTables::new()
    }
}

/// The die tables, computed once for the whole process: they depend on no
/// input (exact means of the rules' dice), so every plot shares them. A
/// batch worker or an Exchange of `fam resolve` used to compute its own,
/// some 26 million instructions each.
pub fn tables() -> &'static DieTables {
    static TABLES: std::sync::LazyLock<DieTables> = std::sync::LazyLock::new(DieTables::new);
    &TABLES
}

/// Chance of each number of Speed or Evasion Points (successes) from `n`
/// dice: 1-3 none, 4-5 one, 6 two (F&M Definitions); sums above `K − 1`
/// count as `K − 1`.
fn points_distribution<const K: usize>(n: usize) -> [f64; K] {
    let mut p = [0.0; K];
    p[0] = 1.0;
    for _ in 0..n {
        let mut next = [0.0; K];
        for (k, &pk) in p.iter().enumerate() {
            if pk == 0.0 {
                continue;
            }
            for face in 1..=6u8 {
                let to = (k + success_value(face) as usize).min(K - 1);
                next[to] += pk / 6.0;
            }
        }
        p = next;
    }
    p
}

/// Speed Points one side of a Volley's maneuver can have: `2 · MAX_SPEED_DICE`.
const SPEED_POINTS: usize = 2 * MAX_SPEED_DICE + 1;

/// `E[max(0, A − B)]`: how far `a` Speed dice are expected to outpace `b`,
/// each one point fewer when `a_minus` or `b_minus` (a secondary maneuver);
/// `points[n]` is the distribution of the Speed Points of `n` dice.
fn outpace_exact(points: &[[f64; SPEED_POINTS]], (a, a_minus): (usize, bool), (b, b_minus): (usize, bool)) -> f64 {
    let (pa, pb) = (&points[a], &points[b]);
    let mut sum = 0.0;
    for (x, &px) in pa.iter().enumerate() {
        // A point total `a` dice cannot make adds nothing (the sum is
        // never negative zero, so leaving out `+ 0.0` changes no bit).
        if px == 0.0 {
            continue;
        }
        let x = x.saturating_sub(usize::from(a_minus));
        for (y, &py) in pb.iter().enumerate() {
            let y = y.saturating_sub(usize::from(b_minus));
            // `y` never falls as the totals rise: no later total adds.
            if x <= y {
                break;
            }
            sum += px * py * (x - y) as f64;
        }
    }
    sum
}

/// Mean damage of one penetrating beam die at a DRM of −`penalty`.
fn beam_die(penalty: usize, screen: u8) -> f64 {
    let drm = -i32::try_from(penalty).unwrap_or(i32::MAX);
    (1..=6u8)
        .map(|face| f64::from(beam_table(apply_drm(face, drm), screen)) + if face == 6 { REROLL_MEAN } else { 0.0 })
        .sum::<f64>()
        / 6.0
}

/// Mean points of one beam die without rerolls at a DRM of −`penalty`.
fn plain_beam_die(penalty: usize, screen: u8) -> f64 {
    let drm = -i32::try_from(penalty).unwrap_or(i32::MAX);
    (1..=6u8)
        .map(|face| f64::from(beam_table(apply_drm(face, drm), screen)))
        .sum::<f64>()
        / 6.0
}

/// Mean hits of a plasma-cannon reroll die (no DRM, unscreened, 6s chain):
/// m = (0 + 0 + 1 + 2 + 3 + 4)/6 + m/6, so m = 2.
const PLASMA_REROLL_MEAN: f64 = 2.0;

/// Mean hits of one plasma-cannon die at a DRM of −`penalty`: the face
/// with the DRM less 2 less the screen, and a natural 6's reroll.
fn plasma_die(penalty: usize, screen: u8) -> f64 {
    let drm = -i32::try_from(penalty).unwrap_or(i32::MAX);
    (1..=6u8)
        .map(|face| {
            f64::from(plasma_hits(apply_drm(face, drm), screen)) + if face == 6 { PLASMA_REROLL_MEAN } else { 0.0 }
        })
        .sum::<f64>()
        / 6.0
}

/// Whether docked group `g` can launch at the start of the Exchange: ready,
/// its carrier in the fight and in control, its bay working.
pub fn launchable(battle: &Battle, g: UnitId) -> bool {
    let unit = &battle.units[g];
    let Some(c) = unit.craft else { return false };
    let Some((carrier, bay)) = c.carrier else { return false };
    let ship = &battle.units[carrier];
    !unit.destroyed
        && c.docked
        && c.rearm == crate::engine::state::Rearm::Ready
        && ship.can_act()
        && battle.formation_active(ship.formation)
        && ship.systems.get(bay).is_some_and(|s| s.operational())
}

/// The range within which small craft make attack runs (docs/fighters.md §4.4).
pub const CRAFT_ATTACK_RANGE: u32 = crate::engine::craft::FIGHTER_REACH;

/// Mean damage of one attack-run die of a fighter at DRM `drm` against a
/// ship behind `screen` (docs/fighters.md §3.2): the beam table read after
/// the DRM, a natural 6 rerolling (penetrating, unscreened), no Evasion
/// DRM. An Attack fighter's natural 5 reads 6 but gives no extra die, as
/// here: only the natural 6 rerolls.
pub fn craft_die(drm: i32, screen: u8) -> f64 {
    (1..=6u8)
        .map(|face| f64::from(beam_table(apply_drm(face, drm), screen)) + if face == 6 { REROLL_MEAN } else { 0.0 })
        .sum::<f64>()
        / 6.0
}

/// Mean damage of one fighter torpedo: a d6, 4-6 hitting for the face,
/// screens ignored (docs/fighters.md §3.2).
pub const CRAFT_TORPEDO_MEAN: f64 = (4.0 + 5.0 + 6.0) / 6.0;

/// What `a`'s small craft do a Volley within [`CRAFT_ATTACK_RANGE`] to a
/// target whose ships stand behind `screens` (mass-weighted shares): their
/// attack-run dice, and their torpedoes spread over the three Volleys of
/// an Exchange (they fire once a sortie). Point defence's kills before the
/// attack are not weighed.
fn craft_strikes(a: &Arsenal, screens: &[f64; 3]) -> f64 {
    const DRMS: [i32; 3] = [-2, 0, 1];
    let dice: f64 = a
        .craft_dice
        .iter()
        .zip(DRMS)
        .map(|(&n, drm)| {
            f64::from(n)
                * (0..3u8)
                    .map(|s| screens[usize::from(s)] * craft_die(drm, s))
                    .sum::<f64>()
        })
        .sum();
    dice + f64::from(a.craft_torpedoes) * CRAFT_TORPEDO_MEAN / 3.0
}

/// Mean damage of a graser or phaser hit (1d3) and a heavy graser hit (1d6).
const D3_MEAN: f64 = 2.0;

/// Beam-family weapons the [`Arsenal`] counts apart ([`family_slot`]).
pub const FAMILY_SLOTS: usize = 37;
/// What the commander counts one expected EMP hit as, in damage points
/// (reading O34, docs/doctrine.md): a hit does no damage but forces a
/// threshold test on the target's most useful working system.
pub const EMP_HIT_VALUE: f64 = 1.0;
/// Working beam-family weapons by [`family_slot`] and Evasion Points
/// ignored (an array too long for a derived `Default`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FamilyCounts(pub [[u32; 3]; FAMILY_SLOTS]);

impl Default for FamilyCounts {
    fn default() -> Self {
        FamilyCounts([[0; 3]; FAMILY_SLOTS])
    }
}

impl std::ops::Deref for FamilyCounts {
    type Target = [[u32; 3]; FAMILY_SLOTS];
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for FamilyCounts {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

/// 6 MU bands [`Firepower`] keeps the beam family's damage in: to 108 MU,
/// a class-6 heavy graser's reach.
const FAMILY_BANDS: usize = 18;

/// The [`Arsenal::family`] slot of a beam-family weapon, by its registry
/// row's dice and hits (weapons alike in both share a slot): graser dice
/// and hits by class (0-5: grasers, phasers), heavy grasers (6-11), plasma
/// cannons (12-17), 6 dice to 12 MU 18 (Gatling battery), 2 to 24 MU 19
/// (twin particle array), 1 to 48 MU 20 (meson projector), Pulsers set
/// long, medium, short 21-23, one left open 24, EMP projectors by class
/// (25-30) and high-intensity grasers by class (31-36); `None` for any
/// other kind or a shape no slot holds.
fn family_slot(kind: &SystemKind) -> Option<usize> {
    let (row, params) = kind.entry();
    let family = row.beam?;
    let class = usize::from(params.class.clamp(1, 6)) - 1;
    Some(match (family.dice, family.hit) {
        (BeamDice::ByClass, Hit::Graser) => class,
        (BeamDice::Heavy, Hit::HeavyGraser { reroll: false }) => 6 + class,
        (BeamDice::ByClass, Hit::Plasma) => 12 + class,
        (BeamDice::Fixed { dice: 6, reach: 12 }, Hit::Beam) => 18,
        (BeamDice::Fixed { dice: 2, reach: 24 }, Hit::Beam) => 19,
        (BeamDice::Fixed { dice: 1, reach: 48 }, Hit::Beam) => 20,
        (BeamDice::Pulser, Hit::Beam) => match params.setting {
            Some(PulserSetting::Long) => 21,
            Some(PulserSetting::Medium) => 22,
            Some(PulserSetting::Short) => 23,
            None => 24,
        },
        (BeamDice::ByClass, Hit::Emp) => 25 + class,
        (BeamDice::Heavy, Hit::HeavyGraser { reroll: true }) => 31 + class,
        _ => return None,
    })
}

/// Grasers, phasers, heavy grasers, plasma cannons, Gatling batteries,
/// twin particle arrays, meson projectors and Pulsers (the registry's
/// family).
pub fn is_beam_family(kind: &SystemKind) -> bool {
    kind.family() == Family::BeamFamily
}

/// The longest range at which a beam-family weapon rolls a die.
pub fn family_weapon_reach(kind: &SystemKind) -> Option<u32> {
    family_slot(kind).map(family_reach)
}

/// A weapon of family slot `slot` (its first kind).
fn slot_kind(slot: usize) -> SystemKind {
    let class = (slot % 6 + 1) as u8;
    match slot {
        0..=5 => SystemKind::Graser { class },
        6..=11 => SystemKind::HeavyGraser { class },
        12..=17 => SystemKind::PlasmaCannon { class },
        18 => SystemKind::GatlingBattery,
        19 => SystemKind::TwinParticleArray,
        20 => SystemKind::MesonProjector,
        21 => SystemKind::Pulser {
            setting: Some(PulserSetting::Long),
        },
        22 => SystemKind::Pulser {
            setting: Some(PulserSetting::Medium),
        },
        23 => SystemKind::Pulser {
            setting: Some(PulserSetting::Short),
        },
        24 => SystemKind::Pulser { setting: None },
        25..=30 => SystemKind::EmpProjector {
            class: (slot - 24) as u8,
        },
        _ => SystemKind::HighIntensityGraser {
            class: (slot - 30) as u8,
        },
    }
}

/// Dice a beam-family weapon rolls at `range`; a Pulser left open as the
/// commander would set it there ([`pulser_setting`]).
pub fn family_dice(kind: &SystemKind, range: u32) -> u32 {
    match kind {
        SystemKind::Pulser { setting: None } => pulser_dice(pulser_setting(range), range),
        k => beam_family_dice(k, range),
    }
}

/// Expected damage of one die of a beam-family weapon of slot `slot`
/// against Evasion dice index `n` and `screen` (hits times the damage of
/// one hit).
fn family_die_mean(tables: &DieTables, slot: usize, n: usize, ignored: usize, screen: usize) -> f64 {
    match slot {
        0..=5 => tables.beam[n][ignored][screen] * D3_MEAN,
        6..=11 => tables.plain[n][ignored][screen] * D6_MEAN,
        12..=17 => tables.plasma[n][ignored][screen],
        25..=30 => tables.beam[n][ignored][screen] * EMP_HIT_VALUE,
        // A high-intensity graser: beam dice with rerolls, 1d6 a point.
        31..=36 => tables.beam[n][ignored][screen] * D6_MEAN,
        _ => tables.beam[n][ignored][screen],
    }
}

/// Expected damage of one shot of a beam-family weapon at `range`
/// against an unscreened target rolling no Evasion dice (what a PD-capable
/// weapon gives up to defend, docs/doctrine.md).
pub fn family_shot(kind: &SystemKind, range: u32) -> f64 {
    let Some(slot) = family_slot(kind) else { return 0.0 };
    let per_die = match slot {
        0..=5 => beam_die(0, 0) * D3_MEAN,
        6..=11 => plain_beam_die(0, 0) * D6_MEAN,
        12..=17 => plasma_die(0, 0),
        25..=30 => beam_die(0, 0) * EMP_HIT_VALUE,
        31..=36 => beam_die(0, 0) * D6_MEAN,
        _ => beam_die(0, 0),
    };
    f64::from(family_dice(kind, range)) * per_die
}

/// Chance a projectile roll needing `needed` hits at a DRM of −`penalty`.
fn hit_chance(penalty: usize, needed: u8) -> f64 {
    let drm = -i32::try_from(penalty).unwrap_or(i32::MAX);
    (1..=6u8).filter(|&f| apply_drm(f, drm) >= needed).count() as f64 / 6.0
}

/// Mean armour-piercing points of one K-gun hit of class `class`: the
/// class, doubled when the doubling die shows at most the class and not 6
/// (ft-rules §4.6): `n · (1 + min(n, 5)/6)`.
pub fn k_gun_hit_mean(class: usize) -> f64 {
    let n = class as f64;
    n * (1.0 + class.min(5) as f64 / 6.0)
}

/// Mean hits of one MKP die at a DRM of −`penalty` (4+ hits, a natural 6
/// that hits counts twice).
fn mkp_die(penalty: usize) -> f64 {
    let drm = -i32::try_from(penalty).unwrap_or(i32::MAX);
    (1..=6u8).map(|f| f64::from(mkp_hits(f, drm))).sum::<f64>() / 6.0
}

/// Points of one plasma bolt die at a DRM of −`penalty` behind `screen`.
fn bolt_die(penalty: usize, screen: u8) -> f64 {
    let drm = -i32::try_from(penalty).unwrap_or(i32::MAX);
    (1..=6u8)
        .map(|f| f64::from(plasma_bolt_points(f, screen, drm)))
        .sum::<f64>()
        / 6.0
}

/// The needle readings of [`DieTables`]: `needle_fb1` and
/// `needle_six_scores` (reading W11) as 0-3.
fn needle_rule(fb1: bool, six_scores: bool) -> usize {
    2 * usize::from(fb1) + usize::from(six_scores)
}

/// Damage points of one needle die at a DRM of −`penalty` under reading
/// `rule` ([`needle_rule`]): the modified die reaching 4 (FB1: 5) scores,
/// and with `needle_six_scores` a natural 6 does whatever the DRM.
fn needle_die(penalty: usize, rule: usize) -> f64 {
    let drm = -i32::try_from(penalty).unwrap_or(i32::MAX);
    let needed = if rule >= 2 { 5 } else { 4 };
    let six_scores = rule % 2 == 1;
    (1..=6u8)
        .filter(|&f| apply_drm(f, drm) >= needed || (six_scores && f == 6))
        .count() as f64
        / 6.0
}

impl DieTables {
    pub fn new() -> DieTables {
        let mut t = DieTables {
            beam: [[[0.0; 3]; 3]; MAX_EVASION_DICE + 1],
            hit: [[[0.0; 7]; 3]; MAX_EVASION_DICE + 1],
            needle: [[[0.0; 3]; MAX_EVASION_DICE + 1]; 4],
            mkp: [[0.0; 3]; MAX_EVASION_DICE + 1],
            bolt: [[[0.0; 3]; 3]; MAX_EVASION_DICE + 1],
            plain: [[[0.0; 3]; 3]; MAX_EVASION_DICE + 1],
            plasma: [[[0.0; 3]; 3]; MAX_EVASION_DICE + 1],
            evasion_points: [0.0; MAX_EVASION_DICE + 1],
            outpace: [[[[0.0; MAX_SPEED_DICE + 1]; MAX_SPEED_DICE + 1]; 2]; 2],
        };
        let points: [[f64; SPEED_POINTS]; MAX_SPEED_DICE + 1] = std::array::from_fn(points_distribution);
        for (a_minus, row) in t.outpace.iter_mut().enumerate() {
            for (b_minus, table) in row.iter_mut().enumerate() {
                for (a, line) in table.iter_mut().enumerate() {
                    for (b, slot) in line.iter_mut().enumerate() {
                        *slot = outpace_exact(&points, (a, a_minus == 1), (b, b_minus == 1));
                    }
                }
            }
        }
        for n in 0..=MAX_EVASION_DICE {
            let dist = points_distribution::<{ 2 * MAX_EVASION_DICE + 1 }>(n);
            t.evasion_points[n] = dist.iter().enumerate().map(|(k, p)| k as f64 * p).sum();
            for ignored in 0..3 {
                let mut beam = [0.0; 3];
                let mut plain = [0.0; 3];
                let mut plasma = [0.0; 3];
                let mut hit = [0.0; 7];
                let mut needle = [0.0; 4];
                let mut mkp = 0.0;
                let mut bolt = [0.0; 3];
                for (k, &p) in dist.iter().enumerate() {
                    if p == 0.0 {
                        continue;
                    }
                    let penalty = k.saturating_sub(ignored);
                    for (screen, b) in beam.iter_mut().enumerate() {
                        *b += p * beam_die(penalty, screen as u8);
                        plain[screen] += p * plain_beam_die(penalty, screen as u8);
                        plasma[screen] += p * plasma_die(penalty, screen as u8);
                    }
                    for (needed, h) in hit.iter_mut().enumerate().skip(2) {
                        *h += p * hit_chance(penalty, needed as u8);
                    }
                    for (rule, m) in needle.iter_mut().enumerate() {
                        *m += p * needle_die(penalty, rule);
                    }
                    mkp += p * mkp_die(penalty);
                    for (screen, m) in bolt.iter_mut().enumerate() {
                        *m += p * bolt_die(penalty, screen as u8);
                    }
                }
                t.mkp[n][ignored] = mkp;
                t.bolt[n][ignored] = bolt;
                t.beam[n][ignored] = beam;
                t.plain[n][ignored] = plain;
                t.plasma[n][ignored] = plasma;
                t.hit[n][ignored] = hit;
                for (rule, m) in needle.into_iter().enumerate() {
                    t.needle[rule][n][ignored] = m;
                }
            }
        }
        t
    }

    /// Mean Evasion Points of `n` dice.
    pub fn evasion_points(&self, n: u32) -> f64 {
        self.evasion_points[dice_index(n)]
    }

    /// How many Speed Points `a` dice are expected to score beyond `b` dice
    /// (`E[max(0, A − B)]`; each side one point fewer when its `minus` is
    /// set, a secondary maneuver): what a Close or Withdraw gains against
    /// a Maintain, which only ever cancels it (F&M Movement Phase). Beyond
    /// [`MAX_SPEED_DICE`] the difference of the means.
    pub fn outpace(&self, a: u32, a_minus: bool, b: u32, b_minus: bool) -> f64 {
        let index = |n: u32| usize::try_from(n).ok().filter(|&n| n <= MAX_SPEED_DICE);
        match (index(a), index(b)) {
            (Some(x), Some(y)) => self.outpace[usize::from(a_minus)][usize::from(b_minus)][x][y],
            _ => {
                let mean = |n: u32, minus: bool| (f64::from(n) * 2.0 / 3.0 - f64::from(u8::from(minus))).max(0.0);
                (mean(a, a_minus) - mean(b, b_minus)).max(0.0)
            }
        }
    }
}

fn dice_index(n: u32) -> usize {
    usize::try_from(n).unwrap_or(MAX_EVASION_DICE).min(MAX_EVASION_DICE)
}

/// Salvo launchers of one reach that can fire, and the loads they share.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Salvos {
    /// Launchers whose magazine works and holds loads.
    pub launchers: u32,
    /// Loads left in those magazines.
    pub loads: u32,
}

/// A Formation's fighting power at the start of an Exchange. Weapons count
/// only on Units that can fire (in the fight, in control, with a working
/// Fire Control) and only while they work; defences count on every Unit in
/// the fight.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Arsenal {
    /// Working beam batteries by class and Evasion Points ignored.
    pub beams: [[u32; 3]; BEAM_CLASSES + 1],
    /// Working pulse torpedoes by variant (standard, long, short) and
    /// Evasion Points ignored.
    pub torpedoes: [[u32; 3]; 3],
    /// Working kinetic guns by class (1-6), variant (standard, long,
    /// short) and Evasion Points ignored.
    pub k_guns: [[[u32; 3]; 3]; 7],
    /// Unspent working submunition packs by Evasion Points ignored.
    pub submunitions: [u32; 3],
    /// Unspent working MKP packs by Evasion Points ignored.
    pub mkps: [u32; 3],
    /// Unspent working rocket pods by Evasion Points ignored.
    pub rocket_pods: [u32; 3],
    /// Unspent working antimatter missile racks.
    pub antimatter: u32,
    /// Working boarding torpedo launchers by Evasion Points ignored.
    pub boarding: [u32; 3],
    /// Dice of the working plasma bolt launchers (their classes summed) by
    /// Evasion Points ignored.
    pub plasma_dice: [u32; 3],
    /// The battle's `plasma_bolt_formation` reading (W37).
    pub plasma_bolt_formation: bool,
    /// The battle's `emp_advanced_screens` reading (W43).
    pub emp_advanced_screens: bool,
    /// Working fusion arrays by Evasion Points ignored.
    pub fusion: [u32; 3],
    /// Working wave guns by Evasion Points ignored.
    pub wave_guns: [u32; 3],
    /// The battle's `wave_gun_formation` reading (W59).
    pub wave_gun_formation: bool,
    /// Working nova cannons by Evasion Points ignored (W63).
    pub novas: [u32; 3],
    /// The battle's `nova_cannon_formation` reading (W64).
    pub nova_cannon_formation: bool,
    /// Mass-weighted share of its Units whose vapour shroud screens their
    /// own fire (reading W38): it meets at least a level-2 screen.
    pub shrouded: f64,
    /// Mass-weighted share of Units by advanced screen level 0, 1, 2
    /// (W42); all zero reads as unscreened.
    pub advanced: [f64; 3],
    /// Working needle beams by Evasion Points ignored.
    pub needles: [u32; 3],
    /// Attack-run dice of the small craft that fly with this Formation's
    /// ships and attack (Attack groups, Torpedo groups whose torpedoes are
    /// spent), by their DRM against ships: −2, 0, +1 ([`craft_die`]);
    /// one die a craft, one more for an ace.
    pub craft_dice: [u32; 3],
    /// Craft of Torpedo groups flying with its ships whose torpedoes are
    /// loaded: a d6 each, 4-6 hitting for the face, once a sortie.
    pub craft_torpedoes: u32,
    /// Working beam-family weapons (grasers, phasers, heavy grasers,
    /// plasma cannons, Gatling batteries, twin particle arrays, meson
    /// projectors, Pulsers) by [`family_slot`] and Evasion Points ignored.
    pub family: FamilyCounts,
    /// Salvo launchers: standard reach (30 MU) and extended (42 MU).
    pub salvos: [Salvos; 2],
    /// Unspent working salvo racks: standard and extended reach.
    pub racks: [u32; 2],
    /// Unspent working standard heavy missiles: standard and extended.
    pub heavies: [u32; 2],
    /// Expected missile kills of the point defence of a Unit under fire
    /// (PDS, and class-1 beams when they defend), mass-weighted.
    pub pd_kills: f64,
    /// Class-1 beams on Units in the fight (what PD mode can add).
    pub class1: u32,
    /// Mass-weighted share of Units by screen level 0, 1, 2.
    pub screens: [f64; 3],
    /// Hull and armour boxes left on its Units in the fight.
    pub durability: u32,
    /// Ships in the fight.
    pub ships: u32,
    /// Formation Thrust.
    pub thrust: u32,
    /// The battle's `pd_evasion_reroll` reading (W8): how many missed PD
    /// dice its Evasion Points may reroll.
    pub pd_evasion_reroll: PdEvasionReroll,
    /// The battle's needle readings (`needle_fb1`, `needle_six_scores`,
    /// W11), for the damage its needle beams deal.
    pub needle_fb1: bool,
    pub needle_six_scores: bool,
    /// The battle's `antimatter_pd_heavy` reading (W54).
    pub antimatter_pd_heavy: bool,
}

/// Its numbers are never NaN (counts, and shares and means of finite
/// numbers); one that were would only never be read back from a memo.
impl Eq for Arsenal {}

impl Hash for Arsenal {
    /// The facts that most often differ between two arsenals (a memo
    /// compares them whole): its weapons ([`weapon_words`]), hull, ships,
    /// thrust, class-1 beams, screens and ordnance.
    fn hash<H: Hasher>(&self, state: &mut H) {
        let bits = |x: f64| x.to_bits() as u32 ^ (x.to_bits() >> 32) as u32;
        let (salvos, racks) = (&self.salvos, &self.racks);
        for w in weapon_words(self) {
            state.write_u32(w);
        }
        for w in [
            self.durability,
            self.ships,
            self.thrust,
            self.class1,
            bits(self.screens[0] + 2.0 * self.screens[1] + 4.0 * self.screens[2]),
            salvos[0].launchers + 2 * salvos[1].launchers + 4 * salvos[0].loads + 8 * salvos[1].loads,
            racks[0] + 2 * racks[1] + 4 * self.heavies[0] + 8 * self.heavies[1],
        ] {
            state.write_u32(w);
        }
    }
}

impl Arsenal {
    /// Sums up Formation `f`'s Units.
    pub fn of(battle: &Battle, f: FormationId) -> Arsenal {
        let mut a = Arsenal {
            thrust: battle.formation_thrust(f),
            ..Arsenal::under(battle)
        };
        let mut mass = 0.0;
        let mut pd_mass = 0.0;
        let mut screen_mass = [0.0; 3];
        let mut shrouded_mass = 0.0;
        let mut advanced_mass = [0.0; 3];
        let mut craft = false;
        for &u in &battle.formations[f].units {
            let unit = &battle.units[u];
            if unit.is_craft() {
                craft = true;
                continue;
            }
            if !unit.active() {
                continue;
            }
            a.ships += 1;
            a.durability += unit.hull_left() + unit.armour_left();
            let m = f64::from(unit.mass.max(1));
            mass += m;
            let scan = Scan::of(unit);
            screen_mass[usize::from(scan.screen_level().min(2))] += m;
            advanced_mass[usize::from(scan.advanced_screen_level().min(2))] += m;
            if battle.rules.vapour_shroud_own_fire && scan.shrouded() {
                shrouded_mass += m;
            }
            // Expected missile kills the Unit's own point defence makes in
            // a Volley: PDS (and FT2 ADAF) dice; class-1 beams are counted
            // by the caller when they defend.
            pd_mass += m * (f64::from(scan.pds) * PDS_KILLS);
            a.class1 += scan.class1;
            if unit.can_act() && scan.fire_control {
                a.add_weapons(unit);
            }
        }
        // Small craft count only where they fly with ships: a Formation of
        // small craft alone is not planned (it closes on its target).
        if a.ships > 0 && craft {
            for &g in &battle.formations[f].units {
                a.add_strike(battle, g);
            }
        }
        if mass > 0.0 {
            a.pd_kills = pd_mass / mass;
            a.shrouded = shrouded_mass / mass;
            a.advanced = advanced_mass.map(|m| m / mass);
            for (s, m) in screen_mass.iter().enumerate() {
                a.screens[s] = m / mass;
            }
        } else {
            a.screens[0] = 1.0;
        }
        a
    }

    /// No weapons and no Units, under `battle`'s readings.
    fn under(battle: &Battle) -> Arsenal {
        Arsenal {
            pd_evasion_reroll: battle.rules.pd_evasion_reroll,
            needle_fb1: battle.rules.needle_fb1,
            needle_six_scores: battle.rules.needle_six_scores,
            plasma_bolt_formation: battle.rules.plasma_bolt_formation,
            emp_advanced_screens: battle.rules.emp_advanced_screens,
            antimatter_pd_heavy: battle.rules.antimatter_pd_heavy,
            wave_gun_formation: battle.rules.wave_gun_formation,
            nova_cannon_formation: battle.rules.nova_cannon_formation,
            ..Arsenal::default()
        }
    }

    /// The attack runs of group `g`, when it flies with this Formation's
    /// ships (launched, or docked ready to launch in Volley 1 from a
    /// carrier in control with a working bay) and attacks there: Attack
    /// and Torpedo groups with endurance left; fighters that may screen
    /// screen instead (docs/doctrine.md, "Carriers and small craft"), and
    /// gunboats are not weighed.
    fn add_strike(&mut self, battle: &Battle, g: UnitId) {
        use crate::engine::state::CraftKind;
        use crate::model::FighterBase;
        let unit = &battle.units[g];
        let Some(c) = unit.craft else { return };
        let CraftKind::Fighter(kind) = c.kind else { return };
        let flies = if c.docked { launchable(battle, g) } else { unit.active() };
        if !flies || c.cef == 0 || c.craft == 0 {
            return;
        }
        let dice = crate::engine::craft::group_dice(&battle.rules, &c);
        match kind.base {
            FighterBase::Attack => self.craft_dice[2] += dice,
            FighterBase::Torpedo if !c.torpedoes_spent => self.craft_torpedoes += c.craft,
            // Spent torpedo fighters strafe with their guns at −2.
            FighterBase::Torpedo => self.craft_dice[0] += dice,
            _ => {}
        }
    }

    /// The working weapons of one Unit `u`, split into its nova cannons and
    /// everything else (for the choice to fire a nova cannon, W65).
    pub fn nova_split(battle: &Battle, u: UnitId) -> (Arsenal, Arsenal) {
        let mut rest = Arsenal::under(battle);
        rest.add_weapons(&battle.units[u]);
        let novas = Arsenal {
            novas: rest.novas,
            ..Arsenal::under(battle)
        };
        rest.novas = [0; 3];
        (novas, rest)
    }

    fn add_weapons(&mut self, unit: &Unit) {
        for (i, s) in unit.systems.iter().enumerate().filter(|(_, s)| s.operational()) {
            let ignored = usize::try_from(evasion_ignored(s.arcs)).unwrap_or(2).min(2);
            let reach = usize::from(s.er);
            match s.kind {
                SystemKind::Beam { class } => {
                    self.beams[usize::from(class).min(BEAM_CLASSES)][ignored] += 1;
                }
                SystemKind::PulseTorpedo { range } => self.torpedoes[variant(range)][ignored] += 1,
                SystemKind::KGun { class, range } => {
                    self.k_guns[usize::from(class).min(6)][variant(range)][ignored] += 1;
                }
                SystemKind::SubmunitionPack if s.rounds_left() > 0 => self.submunitions[ignored] += 1,
                SystemKind::Mkp if s.rounds_left() > 0 => self.mkps[ignored] += 1,
                SystemKind::PlasmaBolt { class } => self.plasma_dice[ignored] += u32::from(class),
                SystemKind::RocketPod if s.rounds_left() > 0 => self.rocket_pods[ignored] += 1,
                SystemKind::AntimatterMissile if s.rounds_left() > 0 => self.antimatter += 1,
                SystemKind::BoardingTorpedo => self.boarding[ignored] += 1,
                SystemKind::FusionArray => self.fusion[ignored] += 1,
                SystemKind::WaveGun => self.wave_guns[ignored] += 1,
                SystemKind::NovaCannon => self.novas[ignored] += 1,
                SystemKind::NeedleBeam => self.needles[ignored] += 1,
                SystemKind::Smr if s.rounds_left() > 0 => self.racks[reach] += 1,
                SystemKind::Missile {
                    warhead: Warhead::Standard,
                } if s.rounds_left() > 0 => self.heavies[reach] += 1,
                SystemKind::Sml => {
                    let loads = magazine_loads(unit, s.magazine);
                    if loads > 0 {
                        self.salvos[reach].launchers += 1;
                        // Launchers on one magazine share its loads.
                        let shared = unit.systems[..i]
                            .iter()
                            .any(|l| l.kind.draws_on_magazine() && l.operational() && l.magazine == s.magazine);
                        if !shared {
                            self.salvos[reach].loads += loads;
                        }
                    }
                }
                ref k => {
                    if let Some(slot) = family_slot(k) {
                        self.family[slot][ignored] += 1;
                    }
                }
            }
        }
    }

    /// Mean points of one torpedo or missile damage d6 against these Units:
    /// each advanced screen level takes one off the die (W42).
    pub fn d6_through(&self) -> f64 {
        let total: f64 = self.advanced.iter().sum();
        if total <= 0.0 {
            return D6_MEAN;
        }
        let mean = |level: u32| (1..=6u32).map(|f| f64::from(f.saturating_sub(level))).sum::<f64>() / 6.0;
        (0..3).map(|a| self.advanced[a] * mean(a as u32)).sum::<f64>() / total
    }

    /// Mean points of one K-gun hit of `class` against these Units: the
    /// doubling number lowered by their advanced screen level (W19).
    pub fn k_gun_hit_through(&self, class: usize) -> f64 {
        let total: f64 = self.advanced.iter().sum();
        if total <= 0.0 {
            return k_gun_hit_mean(class);
        }
        let n = class as f64;
        let behind = |a: usize| n * (1.0 + class.saturating_sub(a).min(5) as f64 / 6.0);
        (0..3).map(|a| self.advanced[a] * behind(a)).sum::<f64>() / total
    }

    /// Has missiles left (salvos, racks or standard heavy missiles).
    pub fn has_missiles(&self) -> bool {
        self.salvos.iter().any(|s| s.launchers > 0) || self.racks.iter().chain(&self.heavies).any(|&n| n > 0)
    }

    /// Has ordnance left: missiles, submunition or MKP packs, rocket pods,
    /// antimatter missiles.
    pub fn has_ordnance(&self) -> bool {
        self.has_missiles()
            || self
                .submunitions
                .iter()
                .chain(&self.mkps)
                .chain(&self.rocket_pods)
                .any(|&n| n > 0)
            || self.antimatter > 0
    }

    /// Mean points of one rocket (1d3) against these Units: each advanced
    /// screen level takes one off (readings W52).
    pub fn d3_through(&self) -> f64 {
        let total: f64 = self.advanced.iter().sum();
        let mean = |level: u32| (1..=3u32).map(|f| f64::from(f.saturating_sub(level))).sum::<f64>() / 3.0;
        if total <= 0.0 {
            return mean(0);
        }
        (0..3).map(|a| self.advanced[a] * mean(a as u32)).sum::<f64>() / total
    }

    /// Mean points of one antimatter die against these Units: each screen
    /// level, standard or advanced, takes one off (readings W55).
    pub fn antimatter_die_through(&self) -> f64 {
        let total: f64 = self.screens.iter().sum();
        let mean = |level: u8| (1..=6u8).map(|f| f64::from(antimatter_points(f, level))).sum::<f64>() / 6.0;
        if total <= 0.0 {
            return mean(0);
        }
        (0..3u8).map(|s| self.screens[usize::from(s)] * mean(s)).sum::<f64>() / total
    }

    /// Working projectile weapons (torpedoes, K-guns; boarding torpedoes
    /// on the standard table) of variant `v`.
    fn has_projectiles(&self, v: usize) -> bool {
        self.torpedoes[v].iter().any(|&n| n > 0)
            || self.k_guns.iter().any(|c| c[v].iter().any(|&n| n > 0))
            || v == 0 && self.boarding.iter().any(|&n| n > 0)
    }

    /// The longest range at which any of its weapons can do damage.
    pub fn reach(&self) -> u32 {
        let mut r = 0;
        for (class, row) in self.beams.iter().enumerate() {
            if row.iter().any(|&n| n > 0) {
                r = r.max(12 * u32::try_from(class).unwrap_or(0));
            }
        }
        for v in 0..3 {
            if self.has_projectiles(v) {
                r = r.max(5 * [6, 9, 4][v]);
            }
        }
        if self.submunitions.iter().any(|&n| n > 0) {
            r = r.max(18);
        }
        if self.mkps.iter().any(|&n| n > 0) {
            r = r.max(MKP_RANGE_MU);
        }
        if self.rocket_pods.iter().any(|&n| n > 0) {
            r = r.max(ROCKET_RANGE_MU);
        }
        if self.antimatter > 0 {
            r = r.max(ANTIMATTER_RANGE_MU);
        }
        if self.needles.iter().any(|&n| n > 0) {
            r = r.max(12);
        }
        if self.plasma_dice.iter().any(|&n| n > 0) {
            r = r.max(PLASMA_BOLT_RANGE);
        }
        if self.fusion.iter().any(|&n| n > 0) {
            r = r.max(FUSION_ARRAY_RANGE);
        }
        if self.wave_guns.iter().any(|&n| n > 0) {
            r = r.max(WAVE_GUN_RANGE);
        }
        if self.novas.iter().any(|&n| n > 0) {
            r = r.max(NOVA_RANGE);
        }
        for (slot, row) in self.family.iter().enumerate() {
            if row.iter().any(|&n| n > 0) {
                r = r.max(family_reach(slot));
            }
        }
        r.max(self.missile_reach())
    }

    /// A range beyond which its sustained fire ([`Firepower`]) deals
    /// nothing: [`Arsenal::reach`], which counts every weapon kind that
    /// fire counts. Lets a search over many targets skip the ones out of
    /// reach without building their firepower (the value is the same:
    /// [`Firepower::at`] is 0 beyond its own reach, never longer than this).
    pub fn sustained_reach(&self) -> u32 {
        self.reach()
    }

    /// The longest reach of its missiles, 0 with none left.
    pub fn missile_reach(&self) -> u32 {
        let mut r = 0;
        for er in [false, true] {
            let i = usize::from(er);
            if self.salvos[i].launchers > 0 || self.racks[i] > 0 || self.heavies[i] > 0 {
                r = r.max(missile_range(er));
            }
        }
        r
    }

    /// Can do damage at some range with what it has now.
    pub fn can_fight(&self) -> bool {
        self.reach() > 0
    }
}

/// The longest range at which a weapon of family slot `slot` rolls a die.
fn family_reach(slot: usize) -> u32 {
    let kind = slot_kind(slot);
    (1..=FAMILY_BANDS as u32)
        .map(|k| 6 * k)
        .filter(|&r| family_dice(&kind, r) > 0)
        .max()
        .unwrap_or(0)
}

/// Index of a projectile variant in the arsenal's tables.
fn variant(range: TorpedoRange) -> usize {
    match range {
        TorpedoRange::Standard => 0,
        TorpedoRange::Long => 1,
        TorpedoRange::Short => 2,
    }
}

/// Loads left in the magazine a launcher draws from (0 if it is lost).
fn magazine_loads(unit: &Unit, magazine: Option<usize>) -> u32 {
    magazine
        .and_then(|m| unit.systems.get(m))
        .filter(|m| m.state == SysState::Operational)
        .map_or(0, |m| m.rounds_left())
}

/// What [`Arsenal::of`] reads of one Unit's working systems, in one pass
/// (the Unit's own methods each read them all).
struct Scan {
    screens_down: bool,
    /// Working screen generators, advanced ones counted too.
    screens: u32,
    advanced: u32,
    shroud: bool,
    pds: u32,
    class1: u32,
    fire_control: bool,
}

impl Scan {
    fn of(unit: &Unit) -> Scan {
        let mut scan = Scan {
            screens_down: unit.screens_down,
            screens: 0,
            advanced: 0,
            shroud: false,
            pds: 0,
            class1: 0,
            fire_control: false,
        };
        for s in unit.systems.iter().filter(|s| s.operational()) {
            match s.kind {
                SystemKind::ScreenGenerator => scan.screens += 1,
                SystemKind::AdvancedScreen => {
                    scan.screens += 1;
                    scan.advanced += 1;
                }
                SystemKind::VapourShroud => scan.shroud = true,
                SystemKind::Pds | SystemKind::Adaf => scan.pds += 1,
                SystemKind::Beam { class: 1 } => scan.class1 += 1,
                SystemKind::FireControl => scan.fire_control = true,
                _ => {}
            }
        }
        // The screen rules live in `Unit`; this pass must read them alike.
        debug_assert_eq!(scan.screen_level(), unit.screen_level());
        debug_assert_eq!(scan.advanced_screen_level(), unit.advanced_screen_level());
        debug_assert_eq!(scan.shrouded(), unit.shrouded());
        scan
    }

    /// [`Unit::screen_level`].
    fn screen_level(&self) -> u8 {
        match () {
            _ if self.screens_down => 0,
            _ if self.shroud => 2,
            _ => self.screens.min(2) as u8,
        }
    }

    /// [`Unit::advanced_screen_level`].
    fn advanced_screen_level(&self) -> u8 {
        if self.screens_down {
            0
        } else {
            self.advanced.min(2) as u8
        }
    }

    /// [`Unit::shrouded`].
    fn shrouded(&self) -> bool {
        !self.screens_down && self.shroud
    }
}

/// Shots a wave gun plotted in every Volley fires a Volley on average
/// (reading W59): it charges in Volley 1, fires in Volley 2 on a first die
/// of 6 (1/6) or in Volley 3 when two dice make 6 or more (1 − 10/36), at
/// most once an Exchange: 26/36 shots over three Volleys.
pub const WAVE_SHOTS_PER_VOLLEY: f64 = 26.0 / 108.0;

/// Kinds of weapon a [`Firepower`] keeps apart: beam classes, torpedo
/// variants, and needle beams.
const KINDS: usize = 16;

/// One Formation's sustained fire (beams, torpedoes, needle beams) against
/// one target at one Evasion, reduced to what changes with range: the mean
/// damage of each kind of weapon per die or shot, so that the damage at a
/// range is a short sum ([`Firepower::at`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Firepower {
    /// Beams: class and the mean damage per die of all batteries of it.
    beams: [(u32, f64); KINDS],
    beam_kinds: usize,
    /// Projectile weapons (torpedoes and K-guns) of one variant: band
    /// width and the mean damage of all of them by the number needed (2-6).
    torpedoes: [(u32, [f64; 7]); 3],
    torpedo_kinds: usize,
    /// Needle beams: mean damage of all of them within 12 MU.
    needles: f64,
    /// Attack runs of the small craft flying with the Formation: mean
    /// damage a Volley within 6 MU.
    craft: f64,
    /// Plasma bolts: mean points a Volley within their reach, over the
    /// two Volleys in three a launcher is charged.
    bolts: f64,
    /// Fusion arrays: mean damage of all of them by 6 MU band to 36 MU.
    fusion: [f64; 6],
    /// Wave guns: mean damage a Volley of all of them per die they roll.
    waves: f64,
    /// Nova cannons: mean damage of all of them per die their blast rolls.
    novas: f64,
    /// Beam-family weapons: mean damage of all of them by 6 MU band (the
    /// dice of every one of them change only at multiples of 6 MU).
    family: [f64; FAMILY_BANDS],
    /// No damage beyond this range.
    pub reach: u32,
}

impl Firepower {
    /// `a`'s sustained fire at `t` rolling `evasion` Evasion dice.
    pub fn new(tables: &DieTables, a: &Arsenal, t: &Arsenal, evasion: u32) -> Firepower {
        FireKey::new(a, t).firepower(tables, evasion)
    }

    /// [`Firepower::new`] read from the whole arsenals, without copying out
    /// the parts a [`FireKey`] keeps: the same numbers, as
    /// [`Firepower::weigh`] reads nothing else.
    pub fn of_whole(tables: &DieTables, a: &Arsenal, t: &Arsenal, evasion: u32) -> Firepower {
        Firepower::weigh(tables, a, t, dice_index(evasion))
    }

    /// [`Firepower::new`] of the parts of the arsenals a [`FireKey`] keeps
    /// (all it may read), at Evasion dice index `n`.
    fn weigh(tables: &DieTables, a: &Arsenal, t: &Arsenal, n: usize) -> Firepower {
        // The screens `a`'s fire meets: the target's, and level 2 from
        // `a`'s shrouded share (W38).
        let clear = 1.0 - a.shrouded;
        let screens = [
            t.screens[0] * clear,
            t.screens[1] * clear,
            t.screens[2] + (t.screens[0] + t.screens[1]) * a.shrouded,
        ];
        let mut fp = Firepower {
            beams: [(0, 0.0); KINDS],
            beam_kinds: 0,
            torpedoes: [(0, [0.0; 7]); 3],
            torpedo_kinds: 0,
            needles: 0.0,
            craft: 0.0,
            bolts: 0.0,
            fusion: [0.0; 6],
            waves: 0.0,
            novas: 0.0,
            family: [0.0; FAMILY_BANDS],
            reach: 0,
        };
        // EMP dice meet advanced screens only (W43), and no shroud.
        let emp_screens = if a.emp_advanced_screens && t.advanced.iter().sum::<f64>() > 0.0 {
            t.advanced
        } else {
            [1.0, 0.0, 0.0]
        };
        fp.add_family(tables, a, &screens, &emp_screens, n);
        for (class, row) in a.beams.iter().enumerate().skip(1) {
            let mean: f64 = row
                .iter()
                .enumerate()
                .map(|(ignored, &count)| {
                    f64::from(count) * (0..3).map(|s| screens[s] * tables.beam[n][ignored][s]).sum::<f64>()
                })
                .sum();
            if mean > 0.0 && fp.beam_kinds < KINDS {
                let class = u32::try_from(class).unwrap_or(0);
                fp.beams[fp.beam_kinds] = (class, mean);
                fp.beam_kinds += 1;
                fp.reach = fp.reach.max(12 * class);
            }
        }
        for (v, row) in a.torpedoes.iter().enumerate() {
            if !a.has_projectiles(v) {
                continue;
            }
            let band = torpedo_band([TorpedoRange::Standard, TorpedoRange::Long, TorpedoRange::Short][v]);
            let mut by_needed = [0.0; 7];
            for (needed, m) in by_needed.iter_mut().enumerate().skip(2) {
                let hit = |ignored: usize| tables.hit[n][ignored][needed];
                let torpedoes: f64 = row
                    .iter()
                    .enumerate()
                    .map(|(ignored, &count)| f64::from(count) * hit(ignored) * t.d6_through())
                    .sum();
                let k_guns: f64 = (1..a.k_guns.len())
                    .flat_map(|class| {
                        a.k_guns[class][v]
                            .iter()
                            .enumerate()
                            .map(move |(ignored, &count)| (class, ignored, count))
                    })
                    .map(|(class, ignored, count)| f64::from(count) * hit(ignored) * t.k_gun_hit_through(class))
                    .sum();
                // A boarding torpedo hit is one hull point (W56).
                let boarding: f64 = if v == 0 {
                    a.boarding
                        .iter()
                        .enumerate()
                        .map(|(ignored, &count)| f64::from(count) * hit(ignored))
                        .sum()
                } else {
                    0.0
                };
                *m = torpedoes + k_guns + boarding;
            }
            fp.torpedoes[fp.torpedo_kinds] = (band, by_needed);
            fp.torpedo_kinds += 1;
            fp.reach = fp.reach.max(5 * band);
        }
        let rule = needle_rule(a.needle_fb1, a.needle_six_scores);
        fp.needles = a
            .needles
            .iter()
            .enumerate()
            .map(|(ignored, &count)| f64::from(count) * tables.needle[rule][n][ignored])
            .sum();
        if fp.needles > 0.0 {
            fp.reach = fp.reach.max(12);
        }
        fp.craft = craft_strikes(a, &screens);
        if fp.craft > 0.0 {
            fp.reach = fp.reach.max(CRAFT_ATTACK_RANGE);
        }
        // A bolt fires in two Volleys of three (it recharges in between);
        // read with `plasma_bolt_formation`, it touches every ship.
        let touched = if a.plasma_bolt_formation {
            f64::from(t.ships.max(1))
        } else {
            1.0
        };
        fp.bolts = a
            .plasma_dice
            .iter()
            .enumerate()
            .map(|(ignored, &dice)| {
                f64::from(dice) * (0..3).map(|s| screens[s] * tables.bolt[n][ignored][s]).sum::<f64>()
            })
            .sum::<f64>()
            * touched
            * 2.0
            / 3.0;
        if fp.bolts > 0.0 {
            fp.reach = fp.reach.max(PLASMA_BOLT_RANGE);
        }
        fp.add_fusion(tables, a, t, n);
        fp.add_waves(tables, a, t, n);
        fp.add_novas(tables, a, t, n);
        fp
    }

    /// Adds `a`'s nova cannons against `t` at Evasion dice index `n`
    /// (reading W63): each die the mean of the face less the Evasion
    /// Points (no screen stops it), times the ships of the target
    /// Formation with `nova_cannon_formation`. Counted as if fired every
    /// Volley: the default commander fires one whenever it outweighs the
    /// ship's other fire (W65).
    fn add_novas(&mut self, tables: &DieTables, a: &Arsenal, t: &Arsenal, n: usize) {
        if a.novas.iter().all(|&c| c == 0) {
            return;
        }
        let touched = if a.nova_cannon_formation {
            f64::from(t.ships.max(1))
        } else {
            1.0
        };
        self.novas = a
            .novas
            .iter()
            .enumerate()
            .map(|(ignored, &count)| f64::from(count) * tables.bolt[n][ignored][0])
            .sum::<f64>()
            * touched;
        self.reach = self.reach.max(NOVA_RANGE);
    }

    /// Adds `a`'s wave guns against `t` at Evasion dice index `n` (reading
    /// W59): a gun plotted every Volley charges from the Exchange's start
    /// and fires once it holds 6, in Volley 2 (a first die of 6) or 3 (two
    /// dice making 6), so 26/36 shots an Exchange, 26/108 a Volley; each
    /// die the mean of the face less `t`'s advanced screen (mass shares)
    /// and the Evasion Points, times the ships of the target Formation with
    /// `wave_gun_formation`.
    fn add_waves(&mut self, tables: &DieTables, a: &Arsenal, t: &Arsenal, n: usize) {
        if a.wave_guns.iter().all(|&c| c == 0) {
            return;
        }
        let total: f64 = t.advanced.iter().sum();
        let shares = if total > 0.0 {
            t.advanced.map(|s| s / total)
        } else {
            [1.0, 0.0, 0.0]
        };
        let touched = if a.wave_gun_formation {
            f64::from(t.ships.max(1))
        } else {
            1.0
        };
        self.waves = a
            .wave_guns
            .iter()
            .enumerate()
            .map(|(ignored, &count)| {
                f64::from(count) * (0..3).map(|s| shares[s] * tables.bolt[n][ignored][s]).sum::<f64>()
            })
            .sum::<f64>()
            * touched
            * WAVE_SHOTS_PER_VOLLEY;
        self.reach = self.reach.max(WAVE_GUN_RANGE);
    }

    /// Adds `a`'s fusion arrays against `t` at Evasion dice index `n`
    /// (reading W57): in each 6 MU band the better mode's to-hit chance
    /// (the Evasion DRM on it) times its beam dice, each rolled without a
    /// DRM against `t`'s advanced screens only (mass shares).
    fn add_fusion(&mut self, tables: &DieTables, a: &Arsenal, t: &Arsenal, n: usize) {
        if a.fusion.iter().all(|&c| c == 0) {
            return;
        }
        let total: f64 = t.advanced.iter().sum();
        let per_die = if total > 0.0 {
            (0..3).map(|s| t.advanced[s] * tables.beam[0][0][s]).sum::<f64>() / total
        } else {
            tables.beam[0][0][0]
        };
        for (k, band) in self.fusion.iter_mut().enumerate() {
            let range = 6 * (k as u32 + 1);
            let Some((needed, dice)) = fusion_array_shot(fusion_array_mode(range), range) else {
                continue;
            };
            let hit = |ignored: usize| {
                if needed <= 1 {
                    1.0
                } else {
                    tables.hit[n][ignored][usize::from(needed)]
                }
            };
            *band = a
                .fusion
                .iter()
                .enumerate()
                .map(|(ignored, &count)| f64::from(count) * hit(ignored))
                .sum::<f64>()
                * f64::from(dice)
                * per_die;
        }
        self.reach = self.reach.max(FUSION_ARRAY_RANGE);
    }

    /// Adds `a`'s beam-family weapons against Units behind `screens` (mass
    /// shares by level, `a`'s own shroud applied, W38), its EMP projectors
    /// behind `emp` (advanced screens only, W43), at Evasion dice index `n`.
    fn add_family(&mut self, tables: &DieTables, a: &Arsenal, screens: &[f64; 3], emp: &[f64; 3], n: usize) {
        for (slot, row) in a.family.iter().enumerate() {
            // Most slots are empty, and an empty one adds nothing (the
            // screens and die means are finite, so its sum is zero).
            if *row == [0; 3] {
                continue;
            }
            let screens = if (25..=30).contains(&slot) { emp } else { screens };
            let per_die: f64 = row
                .iter()
                .enumerate()
                .map(|(ignored, &count)| {
                    let mean: f64 = (0..3)
                        .map(|s| screens[s] * family_die_mean(tables, slot, n, ignored, s))
                        .sum();
                    f64::from(count) * mean
                })
                .sum();
            if per_die <= 0.0 {
                continue;
            }
            let kind = slot_kind(slot);
            for (k, band) in self.family.iter_mut().enumerate() {
                let range = 6 * (k as u32 + 1);
                *band += f64::from(family_dice(&kind, range)) * per_die;
            }
            self.reach = self.reach.max(family_reach(slot));
        }
    }

    /// Expected damage of one Volley at `range`.
    pub fn at(&self, range: u32) -> f64 {
        if range > self.reach {
            return 0.0;
        }
        let mut sum = 0.0;
        for &(class, mean) in &self.beams[..self.beam_kinds] {
            sum += f64::from(beam_dice(class, range)) * mean;
        }
        for (band, by_needed) in &self.torpedoes[..self.torpedo_kinds] {
            if let Some(needed) = projectile_needed(range, *band) {
                sum += by_needed[usize::from(needed.min(6))];
            }
        }
        if range <= 12 {
            sum += self.needles;
        }
        if range <= CRAFT_ATTACK_RANGE {
            sum += self.craft;
        }
        if range <= PLASMA_BOLT_RANGE {
            sum += self.bolts;
        }
        if range <= FUSION_ARRAY_RANGE {
            sum += self.fusion[range_band(range, 6) as usize - 1];
        }
        // Most fleets have neither: their terms are zeros, which change no
        // sum (a sum of terms none below zero is never negative zero).
        if self.waves != 0.0 {
            sum += self.waves * f64::from(wave_gun_dice(range));
        }
        if self.novas != 0.0 {
            sum += self.novas * f64::from(nova_dice(range));
        }
        if let Some(band) = self.family.get(range_band(range, 6) as usize - 1) {
            sum += band;
        }
        sum
    }
}

/// All that one side's sustained fire at another depends on
/// ([`Firepower::new`]) besides the target's Evasion dice: the attacker's
/// weapons and the readings they fire under ([`Attacker`]), the target's
/// screens, advanced screens and ships ([`Defence`]). Hull, armour,
/// thrust, ordnance and point defence are left out: a Formation that took
/// damage but lost no weapon, screen or ship fires as before, and memos
/// keyed by this read that fire back. [`Firepower::new`] weighs what the
/// key keeps and nothing else, so a memo by key is exact.
#[derive(Debug, Clone, Copy)]
pub struct FireKey {
    a: Attacker,
    t: Defence,
}

/// The part of an [`Arsenal`] its sustained fire reads: its weapons and the
/// readings they fire under (everything else left at its default), and a
/// hash of them.
#[derive(Debug, Clone, Copy)]
pub struct Attacker {
    a: Arsenal,
    hash: u64,
}

impl PartialEq for Attacker {
    fn eq(&self, other: &Attacker) -> bool {
        self.hash == other.hash && self.a == other.a
    }
}

/// Its numbers are never NaN (counts, and shares of finite masses); one
/// that were would only never be read back from a memo.
impl Eq for Attacker {}

impl Hash for Attacker {
    /// Its hash, made once ([`weapons_hash`]).
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl Attacker {
    /// `a`'s weapons and readings.
    pub fn of(a: &Arsenal) -> Attacker {
        let a = Arsenal {
            beams: a.beams,
            torpedoes: a.torpedoes,
            k_guns: a.k_guns,
            boarding: a.boarding,
            needles: a.needles,
            craft_dice: a.craft_dice,
            craft_torpedoes: a.craft_torpedoes,
            needle_fb1: a.needle_fb1,
            needle_six_scores: a.needle_six_scores,
            plasma_dice: a.plasma_dice,
            plasma_bolt_formation: a.plasma_bolt_formation,
            emp_advanced_screens: a.emp_advanced_screens,
            fusion: a.fusion,
            wave_guns: a.wave_guns,
            wave_gun_formation: a.wave_gun_formation,
            novas: a.novas,
            nova_cannon_formation: a.nova_cannon_formation,
            shrouded: a.shrouded,
            family: a.family,
            ..Arsenal::default()
        };
        let hash = weapons_hash(&a);
        Attacker { a, hash }
    }

    /// Its weapons and readings, as an arsenal of nothing else.
    pub fn arsenal(&self) -> &Arsenal {
        &self.a
    }

    /// The hash of its weapons and readings ([`weapons_hash`]).
    pub fn hash(&self) -> u64 {
        self.hash
    }
}

/// The part of an [`Arsenal`] that sustained fire at it reads: screens,
/// advanced screens and ships.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Defence {
    screens: [f64; 3],
    advanced: [f64; 3],
    ships: u32,
}

/// Its shares are never NaN (shares of finite masses); one that were would
/// only never be read back from a memo.
impl Eq for Defence {}

impl Hash for Defence {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let bits = |x: f64| x.to_bits() ^ (x.to_bits() >> 32);
        state.write_u32(self.ships);
        for s in [self.screens, self.advanced] {
            state.write_u64(bits(s[0]) ^ bits(s[1]) << 21 ^ bits(s[2]) << 42);
        }
    }
}

impl Defence {
    pub fn of(t: &Arsenal) -> Defence {
        Defence {
            screens: t.screens,
            advanced: t.advanced,
            ships: t.ships,
        }
    }

    /// An arsenal of these defences and nothing else.
    fn arsenal(&self) -> Arsenal {
        Arsenal {
            screens: self.screens,
            advanced: self.advanced,
            ships: self.ships,
            ..Arsenal::default()
        }
    }
}

impl FireKey {
    /// The key of `a`'s fire at `t`.
    pub fn new(a: &Arsenal, t: &Arsenal) -> FireKey {
        FireKey {
            a: Attacker::of(a),
            t: Defence::of(t),
        }
    }

    /// The key of `a`'s fire at `t` (the attacker's part made once for
    /// many targets).
    pub fn of(a: &Attacker, t: &Arsenal) -> FireKey {
        FireKey {
            a: *a,
            t: Defence::of(t),
        }
    }

    /// Its fire, the target rolling `evasion` Evasion dice.
    pub fn firepower(&self, tables: &DieTables, evasion: u32) -> Firepower {
        Firepower::weigh(tables, &self.a.a, &self.t.arsenal(), dice_index(evasion))
    }
}

/// A hash of an attacker's weapons and readings ([`weapon_words`]).
fn weapons_hash(a: &Arsenal) -> u64 {
    let mut h = SlotHasher::default();
    for w in weapon_words(a) {
        h.write_u32(w);
    }
    h.finish()
}

/// An attacker's weapons and readings as a few whole numbers, for a hash:
/// the beam batteries of classes 1-3 and of all, and the count of each
/// other kind of weapon (sums the compiler makes in a few vector
/// instructions; a collision costs only a full comparison).
fn weapon_words(a: &Arsenal) -> [u32; 11] {
    fn total(counts: &[u32]) -> u32 {
        counts.iter().fold(0u32, |s, &c| s.wrapping_add(c))
    }
    let bits = |x: f64| x.to_bits() as u32 ^ (x.to_bits() >> 32) as u32;
    let flags = u32::from(a.needle_fb1)
        | u32::from(a.needle_six_scores) << 1
        | u32::from(a.plasma_bolt_formation) << 2
        | u32::from(a.emp_advanced_screens) << 3
        | u32::from(a.wave_gun_formation) << 4
        | u32::from(a.nova_cannon_formation) << 5;
    let others = [
        a.boarding,
        a.needles,
        a.plasma_dice,
        a.fusion,
        a.wave_guns,
        a.novas,
        a.craft_dice,
    ];
    [
        a.craft_torpedoes,
        bits(a.shrouded),
        flags,
        total(&a.beams[1]),
        total(&a.beams[2]),
        total(&a.beams[3]),
        total(a.beams.as_flattened()),
        total(a.torpedoes.as_flattened()),
        total(a.k_guns.as_flattened().as_flattened()),
        total(others.as_flattened()),
        total(a.family.0.as_flattened()),
    ]
}

/// Expected damage one Volley of `a`'s beams, torpedoes and needle beams
/// deals to `t` at `range` when `t` rolls `evasion` Evasion dice.
pub fn sustained(tables: &DieTables, a: &Arsenal, t: &Arsenal, range: u32, evasion: u32) -> f64 {
    Firepower::new(tables, a, t, evasion).at(range)
}

/// Expected damage of `a`'s submunition packs fired at `t` at `range`
/// (3, 2 or 1 penetrating dice to 6, 12 or 18 MU; standard screens do not
/// stop them).
pub fn submunitions(tables: &DieTables, a: &Arsenal, range: u32, evasion: u32) -> f64 {
    let dice = submunition_dice(range);
    let n = dice_index(evasion);
    a.submunitions
        .iter()
        .enumerate()
        .map(|(ignored, &count)| f64::from(count * dice) * tables.beam[n][ignored][0])
        .sum()
}

/// Expected damage of `a`'s MKP packs fired at `t` at `range`: to 12 MU,
/// one die each needing 4+, a natural 6 two hits, 4 armour-piercing points
/// a hit; screens do not stop them.
pub fn mkps(tables: &DieTables, a: &Arsenal, range: u32, evasion: u32) -> f64 {
    if range > MKP_RANGE_MU {
        return 0.0;
    }
    let n = dice_index(evasion);
    a.mkps
        .iter()
        .enumerate()
        .map(|(ignored, &count)| f64::from(count) * tables.mkp[n][ignored] * f64::from(MKP_HIT_POINTS))
        .sum()
}

/// Expected damage of `a`'s rocket pods fired at `t` at `range` (readings
/// W50-W52): two rockets a pod, each hitting on the band's number under
/// the Evasion DRM; the point defence of the Unit under fire (shared by
/// the pods aimed at its Formation's Units) takes its expected kills off
/// each pod's hits; each rocket left scores 1d3 less the advanced level.
pub fn rockets(tables: &DieTables, a: &Arsenal, t: &Arsenal, range: u32, evasion: u32) -> f64 {
    let Some(needed) = rocket_needed(range) else {
        return 0.0;
    };
    let pods: u32 = a.rocket_pods.iter().sum();
    if pods == 0 {
        return 0.0;
    }
    let n = dice_index(evasion);
    let hits: f64 = a
        .rocket_pods
        .iter()
        .enumerate()
        .map(|(ignored, &count)| f64::from(count * ROCKETS_PER_POD) * tables.hit[n][ignored][usize::from(needed)])
        .sum();
    let pods = f64::from(pods);
    let per_attack = t.pd_kills / (pods / f64::from(t.ships.max(1))).max(1.0);
    pods * (hits / pods - per_attack).max(0.0) * t.d3_through()
}

/// Expected damage of `a`'s antimatter missiles launched at `t` within
/// reach (readings W53-W55): three dice each, less one per expected
/// point-defence kill of the Unit under fire, each die less the screen.
pub fn antimatter(a: &Arsenal, t: &Arsenal) -> f64 {
    if a.antimatter == 0 {
        return 0.0;
    }
    let racks = f64::from(a.antimatter);
    // On the heavy-missile column a PDS die hits with 1/3, not 0.8 (W54).
    let column = if t.antimatter_pd_heavy {
        (1.0 / 3.0) / PDS_KILLS
    } else {
        1.0
    };
    let per_attack = t.pd_kills * column / (racks / f64::from(t.ships.max(1))).max(1.0);
    let dice = (f64::from(ANTIMATTER_DICE) - per_attack).max(0.0);
    racks * dice * t.antimatter_die_through()
}

/// Mean number of Evasion Points one PDS die against missiles can take
/// under reading `r` (W8), with points to spare. Once per die: the initial
/// die misses on 1-3, 1/2. Any miss: a die's last roll (after its chain of
/// 6s) misses with 3/5, and each reroll of it misses again with 3/5, so a
/// miss takes 1/(1 − 3/5) = 5/2 points to clear: 3/5 × 5/2 = 3/2.
fn rerollable_misses(r: PdEvasionReroll) -> f64 {
    match r {
        PdEvasionReroll::AnyMiss => 1.5,
        PdEvasionReroll::OncePerDie => 0.5,
    }
}

/// Expected damage of `salvos` salvo missiles and `heavies` heavy missiles
/// launched in one Volley at Formation `t` (whose Units roll `evasion`
/// Evasion dice and, when `class1_pd`, defend with their class-1 beams
/// too): each salvo puts d6 missiles on target, the point defence of the
/// Unit under fire (shared by the salvos aimed at its Formation's Units)
/// kills some, each one left scores d6; a heavy missile scores 3d6 unless a
/// PDS die kills it on 5-6.
pub fn missiles(tables: &DieTables, salvos: f64, heavies: f64, t: &Arsenal, evasion: u32, class1_pd: bool) -> f64 {
    if salvos + heavies <= 0.0 {
        return 0.0;
    }
    let ships = f64::from(t.ships.max(1));
    let class1 = if class1_pd {
        f64::from(t.class1) / ships * BEAM1_KILLS
    } else {
        0.0
    };
    // Evasion Points reroll missed PD dice, as many as the reading leaves.
    let pd_dice = t.pd_kills / PDS_KILLS + if class1_pd { f64::from(t.class1) / ships } else { 0.0 };
    let rerolls = tables
        .evasion_points(evasion)
        .min(pd_dice * rerollable_misses(t.pd_evasion_reroll))
        * PDS_KILLS;
    let pool = t.pd_kills + class1 + rerolls;
    // The pool of a Unit is spread over the attacks aimed at it.
    let per_attack = pool / (salvos + heavies).div_euclid(ships).max(1.0);
    let through: f64 = (1..=6).map(|m| (f64::from(m) - per_attack).max(0.0)).sum::<f64>() / 6.0;
    // A heavy missile survives each PD die with 2/3.
    let heavy = if heavies > 0.0 {
        heavies * (2.0_f64 / 3.0).powf(per_attack / PDS_KILLS) * HEAVY_MEAN * t.d6_through() / D6_MEAN
    } else {
        0.0
    };
    salvos * through * t.d6_through() + heavy
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every beam-family kind has a slot, and each slot's kind is in it.
    #[test]
    fn every_beam_family_kind_has_the_slot_of_its_dice_and_hits() {
        for slot in 0..FAMILY_SLOTS {
            assert_eq!(family_slot(&slot_kind(slot)), Some(slot), "{:?}", slot_kind(slot));
        }
        let graser = family_slot(&SystemKind::Graser { class: 3 });
        assert_eq!(family_slot(&SystemKind::Phaser { class: 3 }), graser);
        for row in crate::model::registry::ROWS.iter().filter(|r| r.beam.is_some()) {
            let kind = (row.make)(crate::model::registry::Params {
                class: 1,
                ..crate::model::registry::Params::NONE
            });
            assert!(family_slot(&kind).is_some() && is_beam_family(&kind), "{kind:?}");
        }
    }

    /// Behind advanced screens a damage d6 loses the level (W42): 3.5, 2.5
    /// and 10/6 at levels 0-2, mixed by mass share; a K-3 hit doubles on
    /// 1-3, 1-2, 1 (3 · (1 + k/6)); no shares read as unscreened.
    #[test]
    fn advanced_screens_weigh_torpedo_missile_and_k_gun_dice() {
        let mut t = Arsenal::default();
        assert_abs_diff_eq!(t.d6_through(), 3.5);
        assert_abs_diff_eq!(t.k_gun_hit_through(3), 4.5);
        t.advanced = [0.0, 1.0, 0.0];
        assert_abs_diff_eq!(t.d6_through(), 2.5);
        assert_abs_diff_eq!(t.k_gun_hit_through(3), 4.0, epsilon = 1e-12);
        t.advanced = [0.5, 0.0, 0.5];
        assert_abs_diff_eq!(t.d6_through(), (3.5 + 10.0 / 6.0) / 2.0, epsilon = 1e-12);
        assert_abs_diff_eq!(t.k_gun_hit_through(3), (4.5 + 3.5) / 2.0, epsilon = 1e-12);
    }
    use approx::{abs_diff_eq, assert_abs_diff_eq};

    #[test]
    fn a_beam_die_means_what_the_table_reads() {
        // Unscreened, no DRM: (1 + 1 + 2)/6 + 0.8/6 = 0.8.
        assert_abs_diff_eq!(beam_die(0, 0), 0.8, epsilon = 1e-12);
        // −1: 5 reads 4 (1), 6 reads 5 (1) and rerolls: (1 + 1 + 0.8)/6.
        assert_abs_diff_eq!(beam_die(1, 0), 2.8 / 6.0, epsilon = 1e-12);
        // Level-2 screen: 5 scores 1, 6 scores 1 and rerolls.
        assert_abs_diff_eq!(beam_die(0, 2), 2.8 / 6.0, epsilon = 1e-12);
        // −3: only the reroll of a natural 6 scores.
        assert_abs_diff_eq!(beam_die(3, 0), 0.8 / 6.0, epsilon = 1e-12);
    }

    #[test]
    fn the_beam_family_weighs_its_dice_by_range() {
        // One die unscreened, no Evasion: a graser's 0.8 points, 2 each;
        // a heavy graser's (1 + 1 + 2)/6 points, 3.5 each; a plasma die's
        // (1 + 2 + 3 + 4)/6 hits and the reroll chain's 2 on a 6.
        assert_abs_diff_eq!(family_shot(&SystemKind::Graser { class: 1 }, 12), 1.6, epsilon = 1e-12);
        assert_abs_diff_eq!(
            family_shot(&SystemKind::HeavyGraser { class: 1 }, 18),
            3.5 * 4.0 / 6.0,
            epsilon = 1e-12
        );
        assert_abs_diff_eq!(
            family_shot(&SystemKind::PlasmaCannon { class: 1 }, 12),
            2.0,
            epsilon = 1e-12
        );
        assert_abs_diff_eq!(family_shot(&SystemKind::GatlingBattery, 12), 4.8, epsilon = 1e-12);
        assert_abs_diff_eq!(family_shot(&SystemKind::GatlingBattery, 13), 0.0, epsilon = 1e-12);
        // An open Pulser as it would be set: 6, 2, then 1 die.
        let open = SystemKind::Pulser { setting: None };
        let dice: Vec<u32> = [12, 13, 24, 25, 48, 49]
            .iter()
            .map(|&r| family_dice(&open, r))
            .collect();
        assert_eq!(dice, [6, 2, 2, 1, 1, 0]);
        // Firepower: a class-2 heavy graser and a meson projector against
        // an unscreened target: 2 dice to 18 MU, 1 to 36, the meson's one
        // to 48; bands change only at multiples of 6 MU.
        let t = DieTables::new();
        let mut a = Arsenal::default();
        a.family[family_slot(&SystemKind::HeavyGraser { class: 2 }).unwrap()][0] = 1;
        a.family[family_slot(&SystemKind::MesonProjector).unwrap()][0] = 1;
        let target = Arsenal {
            screens: [1.0, 0.0, 0.0],
            ..Arsenal::default()
        };
        let fp = Firepower::new(&t, &a, &target, 0);
        let heavy = 3.5 * 4.0 / 6.0;
        assert_abs_diff_eq!(fp.at(18), 2.0 * heavy + 0.8, epsilon = 1e-12);
        assert_abs_diff_eq!(fp.at(19), heavy + 0.8, epsilon = 1e-12);
        assert_abs_diff_eq!(fp.at(48), 0.8, epsilon = 1e-12);
        assert_abs_diff_eq!(fp.at(49), 0.0, epsilon = 1e-12);
        assert_eq!((fp.reach, a.reach()), (48, 48));
    }

    #[test]
    fn k_guns_and_mkps_weigh_what_their_dice_give() {
        // A K-n hit: n, doubled on a doubling die 1..=n that is not 6.
        for n in 1..=6u32 {
            let exact = (1..=6u32).map(|d| if d <= n && d < 6 { 2 * n } else { n }).sum::<u32>();
            assert_abs_diff_eq!(k_gun_hit_mean(n as usize), f64::from(exact) / 6.0, epsilon = 1e-12);
        }
        let t = DieTables::new();
        let mut a = Arsenal::default();
        a.k_guns[3][0][0] = 1; // one standard K-3, forward arc
        a.mkps[0] = 2;
        let target = Arsenal {
            screens: [0.0, 0.0, 1.0], // standard screens do not matter
            ..Arsenal::default()
        };
        let fp = Firepower::new(&t, &a, &target, 0);
        // 10 MU is the second 6 MU band: 3+ hits, 4/6; a hit means 3 · 1.5.
        assert_abs_diff_eq!(fp.at(10), 4.0 / 6.0 * 4.5, epsilon = 1e-12);
        assert_abs_diff_eq!(fp.at(30), 1.0 / 6.0 * 4.5, epsilon = 1e-12);
        assert_abs_diff_eq!(fp.at(31), 0.0, epsilon = 1e-12);
        assert_eq!((fp.reach, a.reach()), (30, 30));
        // MKPs: hits 0, 1, 1, 2 on 1-3, 4, 5, 6 → 2/3 a pack, 4 points each,
        // to 12 MU only; one Evasion die costs the 4 a third of the time
        // and the 5 a sixth (two points), so 1/2 · 2/3 + 1/3 · 1/2 + 1/6 · 1/3.
        assert_abs_diff_eq!(mkps(&t, &a, 12, 0), 2.0 * 4.0 * 2.0 / 3.0, epsilon = 1e-12);
        assert_abs_diff_eq!(mkps(&t, &a, 13, 0), 0.0, epsilon = 1e-12);
        let one_die = 0.5 * 2.0 / 3.0 + 1.0 / 3.0 * 0.5 + 1.0 / 6.0 * (1.0 / 3.0);
        assert_abs_diff_eq!(mkps(&t, &a, 6, 1), 8.0 * one_die, epsilon = 1e-12);
        assert!(a.has_ordnance());
    }

    #[test]
    fn evasion_points_average_two_thirds_a_die() {
        let t = DieTables::new();
        for n in 0..=6u32 {
            assert_abs_diff_eq!(t.evasion_points(n), f64::from(n) * 2.0 / 3.0, epsilon = 1e-12);
        }
        // One die: no point 1/2, one 1/3, two 1/6.
        let p = points_distribution::<{ 2 * MAX_EVASION_DICE + 1 }>(1);
        assert!(
            abs_diff_eq!(p[0], 0.5, epsilon = 1e-12)
                && abs_diff_eq!(p[1], 1.0 / 3.0, epsilon = 1e-12)
                && abs_diff_eq!(p[2], 1.0 / 6.0, epsilon = 1e-12)
        );
        // Against one Evasion die a 3-arc beam ignores the first point.
        let expect = 0.5 * 0.8 + (1.0 / 3.0) * 0.8 + (1.0 / 6.0) * beam_die(1, 0);
        assert_abs_diff_eq!(t.beam[1][1][0], expect, epsilon = 1e-12);
    }

    /// Speed Points of one die: 1-3 none, 4-5 one, 6 two.
    fn die_points(face: u32) -> i64 {
        match face {
            1..=3 => 0,
            4 | 5 => 1,
            _ => 2,
        }
    }

    #[test]
    fn needle_readings_change_the_expected_needle_damage() {
        // At −3 Continuum scores nothing, a natural 6 scores by the switch;
        // FB1 needs 5+ (2/6 with no DRM), and at −2 only the switch's 6.
        assert_abs_diff_eq!(needle_die(3, needle_rule(false, false)), 0.0, epsilon = 1e-12);
        assert_abs_diff_eq!(needle_die(3, needle_rule(false, true)), 1.0 / 6.0, epsilon = 1e-12);
        assert_abs_diff_eq!(needle_die(0, needle_rule(true, false)), 2.0 / 6.0, epsilon = 1e-12);
        assert_abs_diff_eq!(needle_die(2, needle_rule(true, false)), 0.0, epsilon = 1e-12);
        assert_abs_diff_eq!(needle_die(2, needle_rule(true, true)), 1.0 / 6.0, epsilon = 1e-12);
        // Three Evasion dice, none ignored: 7/36 and 1/4 (the dice tests
        // work both out exactly).
        let t = DieTables::new();
        assert_abs_diff_eq!(t.needle[needle_rule(false, false)][3][0], 7.0 / 36.0, epsilon = 1e-12);
        assert_abs_diff_eq!(t.needle[needle_rule(false, true)][3][0], 0.25, epsilon = 1e-12);
    }

    #[test]
    fn evasion_rerolls_of_pd_follow_the_reading() {
        // One ship with two PDS (1.6 kills), two Evasion dice (4/3 points).
        // Any miss: every point rerolls (up to 3 misses), pool 1.6 + 4/3 ·
        // 0.8 = 8/3; once per die: one missed initial die of the two, pool
        // 2.4. Through: Σ max(0, m − pool)/6 missiles, 3.5 each.
        let t = DieTables::new();
        let target = Arsenal {
            ships: 1,
            pd_kills: 1.6,
            ..Arsenal::default()
        };
        let once = Arsenal {
            pd_evasion_reroll: PdEvasionReroll::OncePerDie,
            ..target
        };
        assert_abs_diff_eq!(missiles(&t, 1.0, 0.0, &target, 2, false), 77.0 / 18.0, epsilon = 1e-9);
        assert_abs_diff_eq!(missiles(&t, 1.0, 0.0, &once, 2, false), 4.9, epsilon = 1e-9);
    }

    #[test]
    fn outpacing_one_die_by_hand() {
        let t = DieTables::new();
        // A beats B by one when (1, 0) or (2, 1), by two when (2, 0):
        // 1/3 · 1/2 + 1/6 · 1/3 + 2 · 1/6 · 1/2 = 7/18.
        assert_abs_diff_eq!(t.outpace(1, false, 1, false), 7.0 / 18.0, epsilon = 1e-12);
        // A secondary maneuver scores one point fewer: only a 6 (one point)
        // against B's nothing: 1/6 · 1/2.
        assert_abs_diff_eq!(t.outpace(1, true, 1, false), 1.0 / 12.0, epsilon = 1e-12);
        // Against no dice at all, the mean: 2/3 a die.
        assert_abs_diff_eq!(t.outpace(3, false, 0, false), 2.0, epsilon = 1e-12);
        // Nothing against something outpaces nothing.
        assert_abs_diff_eq!(t.outpace(0, false, 2, false), 0.0, epsilon = 1e-12);
    }

    #[test]
    fn outpacing_four_dice_against_four_counts_every_face() {
        // Every one of the 6^8 rolls of four dice against four.
        let (mut sum, mut secondary) = (0i64, 0i64);
        let mut rolls = 0i64;
        for code in 0..6u32.pow(8) {
            let (mut a, mut b, mut c) = (0, 0, code);
            for die in 0..8 {
                let p = die_points(c % 6 + 1);
                c /= 6;
                if die < 4 { a += p } else { b += p }
            }
            sum += (a - b).max(0);
            secondary += ((a - 1).max(0) - b).max(0);
            rolls += 1;
        }
        let t = DieTables::new();
        let expect = sum as f64 / rolls as f64;
        assert_abs_diff_eq!(t.outpace(4, false, 4, false), expect, epsilon = 1e-9);
        assert_abs_diff_eq!(
            t.outpace(4, true, 4, false),
            secondary as f64 / rolls as f64,
            epsilon = 1e-9
        );
        // Far from the difference of the means (none): about 2.5 MU a Volley.
        assert!(abs_diff_eq!(3.0 * expect, 2.5, epsilon = 0.1), "{expect}");
    }

    #[test]
    fn outpacing_beyond_the_table_uses_the_means() {
        let t = DieTables::new();
        let n = MAX_SPEED_DICE as u32 + 2;
        assert_abs_diff_eq!(
            t.outpace(n, false, 3, false),
            f64::from(n - 3) * 2.0 / 3.0,
            epsilon = 1e-12
        );
        assert_abs_diff_eq!(t.outpace(3, false, n, true), 0.0, epsilon = 1e-12);
    }
}
