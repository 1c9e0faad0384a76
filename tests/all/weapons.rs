//! Weapons and point defence (issue 4) on battles built in code from the
//! `ssd/` records: worked examples with scripted dice, exact probabilities
//! against seeded samples, and determinism with missiles and PD in play.
//!
//! Every expected value is worked out here from the rules (ft-rules §1.3-1.4,
//! §3-5, the F&M text and `docs/readings.md`), not copied from a run.
//! Statistical checks use fixed seeds and a bound of five standard errors
//! taken from the exact variance, so they cannot flake.
//!
//! System indices in plots are 0-based; `fam ssd show` numbers them from 1.

use approx::{abs_diff_eq, assert_abs_diff_eq};
use std::sync::OnceLock;

use fam::engine::dice::{Dice, Purpose, Roll, RollSink};
use fam::engine::event::{
    BeamAttack, BeamKind, Entry, Event, Launch, MissileHits, PdRoll, Recorder, Repair, Sink, TorpedoAttack, WeaponIdle,
};
use fam::engine::plot::{
    ExchangePlot, FireOrder, FormationPlot, Maneuver, ManeuverOrder, NeedleOrder, PdOrder, SystemId, UnitId, VolleyPlot,
};
use fam::engine::rules::Rules;
use fam::engine::state::{Battle, Formation, RangeTable, Side, SysState, Unit};
use fam::engine::tables::beam_dice;
use fam::engine::volley::{Scratch, run_exchange, run_volley};
use fam::gzf::{self, ParseOptions, SystemKind, TorpedoRange};

use crate::support::{checked, repo};

// ---- building battles -------------------------------------------------------

fn ssd(name: &str) -> &'static gzf::GzfFile {
    static KESTREL: OnceLock<gzf::GzfFile> = OnceLock::new();
    static MERIDIAN: OnceLock<gzf::GzfFile> = OnceLock::new();
    let cell = match name {
        "kestrel-reach.gzf" => &KESTREL,
        "meridian-compact.gzf" => &MERIDIAN,
        _ => panic!("no ssd file {name}"),
    };
    cell.get_or_init(|| {
        let text = std::fs::read_to_string(repo().join("ssd").join(name)).unwrap();
        let parsed = gzf::parse(&text, &ParseOptions::default());
        assert!(!parsed.has_errors(), "{name} parses");
        parsed.file
    })
}

/// A Unit from the ssd records (KRD ships are in kestrel-reach.gzf, MCS
/// ships in meridian-compact.gzf).
fn ship(name: &str) -> Unit {
    let file = ssd(if name.starts_with("KRD") {
        "kestrel-reach.gzf"
    } else {
        "meridian-compact.gzf"
    });
    Unit::from_ship(file.ship(name).unwrap(), file.profile, 0, 0)
}

/// Checks that system `index` (0-based) of `unit` is of `kind`, so a change
/// in the records cannot silently move a test onto another system.
fn expect_kind(unit: &Unit, index: SystemId, kind: SystemKind) {
    assert_eq!(
        unit.systems[index].kind,
        kind,
        "{}: system #{} is not {kind:?}",
        unit.name,
        index + 1
    );
}

const PULSE_TORPEDO: SystemKind = SystemKind::PulseTorpedo {
    range: TorpedoRange::Standard,
};

/// Keeps the first `n` PDS of a Unit and drops the others.
fn keep_pds(unit: &mut Unit, n: usize) {
    let mut seen = 0;
    unit.systems.retain(|s| {
        if s.kind == SystemKind::Pds {
            seen += 1;
            seen <= n
        } else {
            true
        }
    });
    assert_eq!(unit.systems.iter().filter(|s| s.kind == SystemKind::Pds).count(), n);
}

/// Appends `copies` copies of system `index` (more tubes or beams of the
/// same kind and arcs); returns the indices of the original and the copies.
fn multiply(unit: &mut Unit, index: SystemId, copies: usize) -> Vec<SystemId> {
    let mut out = vec![index];
    for _ in 0..copies {
        out.push(unit.systems.len());
        unit.systems.push(unit.systems[index].clone());
    }
    out
}

/// One Formation (and side) per entry, all pairs `range` MU apart.
fn battle(formations: Vec<Vec<Unit>>, range: u32) -> Battle {
    let mut units = Vec::new();
    let mut list = Vec::new();
    for (f, members) in formations.into_iter().enumerate() {
        let mut ids = Vec::new();
        for mut u in members {
            u.side = f;
            u.formation = f;
            ids.push(units.len());
            units.push(u);
        }
        list.push(Formation {
            name: format!("F{f}"),
            side: f,
            units: ids,
            reserve: Default::default(),
        });
    }
    let n = list.len();
    Battle {
        sides: (0..n).map(|i| Side { name: format!("S{i}") }).collect(),
        formations: list,
        units,
        ranges: RangeTable::new(n, range),
        rules: Rules::default(),
    }
}

fn fire(unit: UnitId, fire_control: SystemId, target: usize, weapons: &[SystemId]) -> FireOrder {
    FireOrder {
        unit,
        fire_control,
        target: Some(target),
        weapons: weapons.to_vec(),
        needles: Vec::new(),
        group: None,
    }
}

/// A Volley plot with no Speed, `evasion` Evasion dice and these fire orders.
fn volley(evasion: u32, orders: Vec<FireOrder>) -> VolleyPlot {
    VolleyPlot {
        evasion,
        fire: orders,
        ..VolleyPlot::default()
    }
}

/// The same Volley plot three times.
fn every(v: VolleyPlot) -> Option<FormationPlot> {
    Some(FormationPlot {
        volleys: [v.clone(), v.clone(), v],
    })
}

/// Volley plots for the three Volleys.
fn volleys(a: VolleyPlot, b: VolleyPlot, c: VolleyPlot) -> Option<FormationPlot> {
    Some(FormationPlot { volleys: [a, b, c] })
}

fn plot(formations: Vec<Option<FormationPlot>>) -> ExchangePlot {
    ExchangePlot { formations }
}

/// Plays `faces` through the first Volley (recorded) and checks that the
/// engine used exactly those dice.
fn scripted_volley(battle: &mut Battle, plot: &ExchangePlot, faces: &[u8]) -> Recorder {
    let mut rec = Recorder::default();
    let mut dice = Dice::from_faces(faces);
    let plot = &checked(battle, plot);
    run_volley(battle, plot, 0, &mut dice, &mut rec, &mut Scratch::default());
    assert_eq!(dice.count_draws(), faces.len() as u64, "dice used in the Volley");
    rec
}

/// Plays a whole Exchange on `faces` followed by `spare` faces of 1 (so an
/// engine that rolls too much shows in the count rather than a panic), and
/// checks that exactly `faces` were used.
fn scripted_exchange(battle: &mut Battle, plot: &ExchangePlot, faces: &[u8], spare: usize) -> Recorder {
    let mut script = faces.to_vec();
    script.extend(std::iter::repeat_n(1, spare));
    let mut rec = Recorder::default();
    let mut dice = Dice::from_faces(&script);
    let plot = &checked(battle, plot);
    run_exchange(battle, plot, &mut dice, &mut rec, &mut Scratch::default());
    assert_eq!(
        dice.count_draws(),
        faces.len() as u64,
        "dice used in the Exchange: expected exactly {faces:?}"
    );
    rec
}

// ---- the rules, restated for the expectations ---------------------------------

/// Successes of one Speed/Evasion die (F&M Definitions): 4-5 one, 6 two.
fn successes(face: u8) -> u32 {
    match face {
        6 => 2,
        4 | 5 => 1,
        _ => 0,
    }
}

/// Semi-armour-piercing hits (ft-rules §1.4): each hit on its own sends
/// half, rounded up, to the armour left, the rest and any excess to the
/// hull. Returns (armour boxes, hull boxes).
fn sap(mut armour_left: u32, hits: &[u32]) -> (u32, u32) {
    let (mut armour, mut hull) = (0, 0);
    for &h in hits {
        let a = h.div_ceil(2).min(armour_left);
        armour_left -= a;
        armour += a;
        hull += h - a;
    }
    (armour, hull)
}

/// The number a standard pulse torpedo needs at `range` (ft-rules §1.3:
/// 2+ to 6 MU, 3+ to 12, 4+ to 18, 5+ to 24, 6 to 30, bands closed above),
/// `None` beyond 30 MU.
fn torpedo_needed(range: u32) -> Option<u32> {
    [(6, 2), (12, 3), (18, 4), (24, 5), (30, 6)]
        .iter()
        .find(|(upper, _)| range <= *upper)
        .map(|(_, needed)| *needed)
}

/// Whether a natural `face` hits with `needed` and `evasion` Evasion Points
/// not ignored: the −1 per point raises the number, above 6 no face hits
/// (F&M, ft-rules §3 and A4).
fn torpedo_hits(face: u8, needed: u32, evasion: u32) -> bool {
    needed + evasion <= 6 && u32::from(face) >= needed + evasion
}

// ---- exact distributions --------------------------------------------------------

/// Kills of one PDS die against salvo missiles (ft-rules §5.1: 1-3 none,
/// 4-5 one, 6 two and one more die, chaining), with `evasion` Evasion
/// rerolls: each point rolls a die that missed again (F&M Point Defense 3;
/// a die that misses again may take the next point). Entry `j` is P(kills
/// = j) for `j < cap`; the last entry lumps every count from `cap` up.
///
/// With one initial die there is at most one missed die at a time, so the
/// fire is a run of segments: a segment rolls dice while they show 6 (two
/// kills each) and ends on 4-5 (one kill, no miss) or on 1-3 (a miss,
/// which the next Evasion Point turns into a new segment).
fn pds_kills(evasion: u32, cap: usize) -> Vec<f64> {
    let mut after_miss = vec![0.0; cap + 1];
    after_miss[0] = 1.0; // no points left: the miss stands
    for _ in 0..=evasion {
        let mut f = vec![0.0; cap + 1];
        for j in 0..cap {
            let six = if j >= 2 { f[j - 2] } else { 0.0 };
            f[j] = after_miss[j] / 2.0 + if j == 1 { 1.0 / 3.0 } else { 0.0 } + six / 6.0;
        }
        f[cap] = 1.0 - f[..cap].iter().sum::<f64>();
        after_miss = f;
    }
    after_miss
}

/// Distribution of the sum of independent kill counts, lumped at `cap`.
fn convolve(a: &[f64], b: &[f64]) -> Vec<f64> {
    let cap = a.len() - 1;
    let mut out = vec![0.0; cap + 1];
    for (i, pa) in a.iter().enumerate() {
        for (j, pb) in b.iter().enumerate() {
            out[(i + j).min(cap)] += pa * pb;
        }
    }
    out
}

/// Salvo missiles that get through (index 0..=6): d6 on target minus the
/// kills distributed as `kills` (lumped at 6), never below 0.
fn survivors(kills: &[f64]) -> Vec<f64> {
    assert_eq!(kills.len(), 7);
    let mut out = vec![0.0; 7];
    for on_target in 1..=6usize {
        for (k, p) in kills.iter().enumerate() {
            out[on_target.saturating_sub(k)] += p / 6.0;
        }
    }
    out
}

/// The sample rate `hits / n` lies within five standard errors of the exact
/// probability `p`, the error from the exact variance p(1 − p)/n.
fn assert_rate(what: &str, hits: u64, n: u64, p: f64) {
    assert!(n >= 20_000, "{what}: only {n} samples");
    let rate = hits as f64 / n as f64;
    let bound = 5.0 * (p * (1.0 - p) / n as f64).sqrt();
    assert!(
        abs_diff_eq!(rate, p, epsilon = bound),
        "{what}: sample rate {rate:.5} over {n} samples, exact {p:.5}, |diff| {:.5} > 5 SE {bound:.5}",
        (rate - p).abs()
    );
}

/// Every value of an observed distribution (counts) within five standard
/// errors of the exact one, and the mean within five standard errors too.
fn assert_distribution(what: &str, counts: &[u64], exact: &[f64]) {
    let n: u64 = counts.iter().sum();
    for (v, (&c, &p)) in counts.iter().zip(exact).enumerate() {
        assert_rate(&format!("{what}, P(value = {v})"), c, n, p);
    }
    let mean: f64 = exact.iter().enumerate().map(|(v, p)| v as f64 * p).sum();
    let var: f64 = exact
        .iter()
        .enumerate()
        .map(|(v, p)| (v as f64 - mean).powi(2) * p)
        .sum();
    let sample = counts
        .iter()
        .enumerate()
        .map(|(v, c)| v as f64 * *c as f64)
        .sum::<f64>()
        / n as f64;
    let bound = 5.0 * (var / n as f64).sqrt();
    assert!(
        abs_diff_eq!(sample, mean, epsilon = bound),
        "{what}: sample mean {sample:.4}, exact {mean:.4}, bound {bound:.4}"
    );
}

/// A sink that records nothing (so the engine builds no events) and reads
/// the dice as they fall: the Evasion Points rolled, and the damage dice
/// rolled before the Damage step (one per torpedo hit or salvo missile
/// through; threshold and repair dice end that count).
#[derive(Default)]
struct Tally {
    evasion_points: u32,
    hits: u64,
    damage_step: bool,
}

impl RollSink for Tally {
    fn roll(&mut self, roll: Roll) {
        match roll.purpose {
            Purpose::Evasion => self.evasion_points += successes(roll.face),
            Purpose::Threshold | Purpose::DamageControl => self.damage_step = true,
            Purpose::Damage if !self.damage_step => self.hits += 1,
            _ => {}
        }
    }
}

impl Sink for Tally {
    const RECORDS: bool = false;
    fn event(&mut self, _event: impl Into<Event>) {}
}

// ---- ship layouts (0-based indices) ---------------------------------------------

/// KRD Ninefold Gale: FCS #5, SML #7 fed by SMM #8 (3 standard loads), PDS #12-13.
const GALE_FCS: SystemId = 4;
const GALE_SML: SystemId = 6;
const GALE_SMM: SystemId = 7;
/// KRD High Fell Thunder: FCS #5-7, heavy missiles #8-10, SML #11 and SMM #12
/// (2 loads), PDS #15-16; 5 armour, 30 hull (rows of 8/8/7/7).
const THUNDER_FCS: SystemId = 4;
const THUNDER_MISSILES: [SystemId; 3] = [7, 8, 9];
const THUNDER_SML: SystemId = 10;
const THUNDER_SMM: SystemId = 11;
const THUNDER_PDS: [SystemId; 2] = [14, 15];
/// KRD Sharp Descent: FCS #5, SMR #6, PDS #7.
const DESCENT_FCS: SystemId = 4;
const DESCENT_SMR: SystemId = 5;
const DESCENT_PDS: SystemId = 6;
/// KRD Bitter Updraft: FCS #5, SMR #6, submunition packs #7 (F) and #8 (FP).
const UPDRAFT_FCS: SystemId = 4;
const UPDRAFT_PACKS: [SystemId; 2] = [6, 7];
/// KRD Stone Patience: FCS #5-7, SML #8 and #9 fed by SMM #10 (2 ER loads).
const PATIENCE_FCS: SystemId = 4;
const PATIENCE_SML: [SystemId; 2] = [7, 8];
const PATIENCE_SMM: SystemId = 9;
/// MCS Patient Ember: FCS #6, pulse torpedo #7 (one arc).
const EMBER_FCS: SystemId = 5;
const EMBER_TORPEDO: SystemId = 6;
/// MCS Unhurried Tide: FCS #5, needle beam #7 (one arc).
const TIDE_FCS: SystemId = 4;
const TIDE_NEEDLE: SystemId = 6;
/// MCS Harrow of Stars: screen #5, ADFC #8, class-2 beams #10-12, PDS #16-21;
/// 4 armour, 42 hull (first row 11 boxes), 7 crew factors.
const HARROW_SCREEN: SystemId = 4;
const HARROW_BEAM: SystemId = 9;
/// MCS Clear Heading: screen #5, class-1 beams #11-12, PDS #13; no armour.
const CLEAR_SCREEN: SystemId = 4;

fn gale() -> Unit {
    let u = ship("KRD Ninefold Gale");
    expect_kind(&u, GALE_FCS, SystemKind::FireControl);
    expect_kind(&u, GALE_SML, SystemKind::Sml);
    expect_kind(&u, GALE_SMM, SystemKind::Smm);
    assert_eq!(u.systems[GALE_SML].magazine, Some(GALE_SMM));
    u
}

fn thunder() -> Unit {
    let u = ship("KRD High Fell Thunder");
    expect_kind(&u, THUNDER_FCS, SystemKind::FireControl);
    for m in THUNDER_MISSILES {
        assert!(
            matches!(u.systems[m].kind, SystemKind::Missile { .. }),
            "#{} is a missile",
            m + 1
        );
    }
    expect_kind(&u, THUNDER_SML, SystemKind::Sml);
    expect_kind(&u, THUNDER_SMM, SystemKind::Smm);
    for p in THUNDER_PDS {
        expect_kind(&u, p, SystemKind::Pds);
    }
    assert_eq!((u.armour_total, u.hull_total, u.rows[0]), (5, 30, 8));
    u
}

fn descent() -> Unit {
    let u = ship("KRD Sharp Descent");
    expect_kind(&u, DESCENT_FCS, SystemKind::FireControl);
    expect_kind(&u, DESCENT_SMR, SystemKind::Smr);
    expect_kind(&u, DESCENT_PDS, SystemKind::Pds);
    u
}

fn updraft() -> Unit {
    let u = ship("KRD Bitter Updraft");
    expect_kind(&u, UPDRAFT_FCS, SystemKind::FireControl);
    for p in UPDRAFT_PACKS {
        expect_kind(&u, p, SystemKind::SubmunitionPack);
        assert_eq!(u.systems[p].arcs, 1);
    }
    u
}

fn patience() -> Unit {
    let u = ship("KRD Stone Patience");
    expect_kind(&u, PATIENCE_FCS, SystemKind::FireControl);
    for l in PATIENCE_SML {
        expect_kind(&u, l, SystemKind::Sml);
        assert_eq!(u.systems[l].magazine, Some(PATIENCE_SMM));
        assert!(u.systems[l].er, "fed extended-range loads");
    }
    u
}

fn ember() -> Unit {
    let u = ship("MCS Patient Ember");
    expect_kind(&u, EMBER_FCS, SystemKind::FireControl);
    expect_kind(&u, EMBER_TORPEDO, PULSE_TORPEDO);
    assert!(
        u.systems[EMBER_TORPEDO].arcs <= 2,
        "the torpedo's arcs ignore no Evasion"
    );
    u
}

fn tide() -> Unit {
    let u = ship("MCS Unhurried Tide");
    expect_kind(&u, TIDE_FCS, SystemKind::FireControl);
    expect_kind(&u, TIDE_NEEDLE, SystemKind::NeedleBeam);
    assert!(u.systems[TIDE_NEEDLE].arcs <= 2, "the needle's arcs ignore no Evasion");
    u
}

fn harrow() -> Unit {
    let u = ship("MCS Harrow of Stars");
    expect_kind(&u, HARROW_SCREEN, SystemKind::ScreenGenerator);
    expect_kind(&u, HARROW_BEAM, SystemKind::Beam { class: 2 });
    assert_eq!(u.systems.iter().filter(|s| s.kind == SystemKind::Pds).count(), 6);
    assert_eq!(
        (u.armour_total, u.hull_total, u.rows[0], u.screen_level()),
        (4, 42, 11, 1)
    );
    u
}

fn clear_heading() -> Unit {
    let u = ship("MCS Clear Heading");
    expect_kind(&u, CLEAR_SCREEN, SystemKind::ScreenGenerator);
    assert_eq!(
        (u.armour_total, u.hull_total, u.rows[0], u.screen_level()),
        (0, 18, 5, 1)
    );
    u
}

// ---- 1. worked examples with scripted dice -------------------------------------

/// A salvo from an SML at 24 MU against a ship with two PDS whose Formation
/// rolled one Evasion Point: d6 on target, a PDS 6 that kills two and
/// rolls again, an Evasion reroll of the missed extra die, the second PDS
/// with no point left, then 1d6 per surviving missile, each its own SAP hit.
#[test]
fn salvo_worked_example_pd_six_rerolls_evasion_reroll_and_sap_per_missile() {
    let mut b = battle(vec![vec![gale()], vec![thunder()]], 24);
    let p = plot(vec![
        every(volley(0, vec![fire(0, GALE_FCS, 1, &[GALE_SML])])),
        every(volley(1, vec![])),
    ]);
    let evasion_die = 5;
    let on_target = 5u8;
    let pds1 = [6, 2, 4]; // initial 6, its extra die 2 (miss), the Evasion reroll 4
    let pds2 = [3]; // miss, no Evasion Point left
    let damage = [5u8, 1];
    let mut faces = vec![evasion_die, 40, on_target];
    faces.extend(pds1);
    faces.extend(pds2);
    faces.extend(damage);

    // The rules: one Evasion Point (5 is a success); PDS 6 = 2 kills and a
    // die, 2 misses, the point rerolls it: 4 = 1 kill; 3 misses.
    assert_eq!(successes(evasion_die), 1);
    let kills = [2, 0, 1, 0].iter().sum::<u32>();
    let through = u32::from(on_target) - kills;
    assert_eq!(through as usize, damage.len());
    let hits: Vec<u32> = damage.iter().map(|d| u32::from(*d)).collect();
    let (armour, hull) = sap(5, &hits);
    assert_eq!((armour, hull), (4, 2), "5 → 3 armour + 2 hull, 1 → 1 armour");

    let rec = scripted_volley(&mut b, &p, &faces);
    let t = &b.units[1];
    assert_eq!((t.armour_lost, t.hull_lost), (armour, hull), "SAP per missile");
    assert_eq!(b.units[0].systems[GALE_SMM].rounds_left(), 2, "one of 3 loads spent");
    let pd: Vec<_> = rec
        .events_of::<PdRoll>()
        .map(|r| {
            (
                r.unit,
                r.weapon,
                r.faces.clone(),
                r.reroll_faces.clone(),
                r.evasion_faces.clone(),
                r.kills,
            )
        })
        .collect();
    assert_eq!(
        pd,
        [
            (1, THUNDER_PDS[0], vec![6], vec![2], vec![4], 3),
            (1, THUNDER_PDS[1], vec![3], vec![], vec![], 0)
        ]
    );
    assert!(rec.events_of::<MissileHits>().any(|e| matches!(
        e,
        MissileHits { on_target: 5, killed: 3, hits, .. } if *hits == [5, 1]
    )));
}

/// Two heavy missiles at a ship with two PDS: always on target, one PDS
/// each; a 6 kills the first (no extra die against a heavy missile), a 4
/// misses the second (PDS needs 5-6), which scores 3d6 as one SAP hit. The
/// racks are spent: plotted again in Volley 2 the first one idles.
#[test]
fn heavy_missile_is_one_3d6_sap_hit_and_its_rack_fires_once() {
    let mut b = battle(vec![vec![thunder()], vec![thunder()]], 24);
    let [m1, m2, _] = THUNDER_MISSILES;
    let p = plot(vec![
        volleys(
            volley(0, vec![fire(0, THUNDER_FCS, 1, &[m1, m2])]),
            volley(0, vec![fire(0, THUNDER_FCS, 1, &[m1])]),
            volley(0, vec![]),
        ),
        every(volley(0, vec![])),
    ]);
    let damage = [1u8, 1, 3];
    let mut faces = vec![50, 6, 4];
    faces.extend(damage);
    faces.push(50); // Volley 2: the Fire Control still acquires; the rack is empty
    let total: u32 = damage.iter().map(|d| u32::from(*d)).sum();
    let (armour, hull) = sap(5, &[total]);
    assert_eq!((armour, hull), (3, 2), "5 SAP: 3 armour, 2 hull");
    assert_ne!(sap(5, &[1, 1, 3]), (armour, hull), "three separate hits would differ");

    let rec = scripted_exchange(&mut b, &p, &faces, 8);
    let t = &b.units[1];
    assert_eq!((t.armour_lost, t.hull_lost), (armour, hull));
    let racks: Vec<u32> = THUNDER_MISSILES
        .iter()
        .map(|m| b.units[0].systems[*m].rounds_left())
        .collect();
    assert_eq!(racks, [0, 0, 1], "racks fired are spent, the third is not");
    let launches = rec.events_of::<Launch>().filter(|l| l.unit == 0).count();
    assert_eq!(launches, 2, "the empty rack does not launch again");
    assert!(
        rec.events_of::<WeaponIdle>()
            .any(|e| matches!(e, WeaponIdle { unit: 0, weapon, .. } if *weapon == m1))
    );
}

/// A pulse torpedo at bands of the projectile table, with and without
/// Evasion: hit or miss as the table and the shifted number say, 1d6 SAP on
/// a hit, the target's screen ignored. Beyond 30 MU no die is rolled.
#[test]
fn torpedo_hits_and_misses_by_band_and_evasion() {
    // (range, Evasion die of the target's Formation, to-hit face, damage face)
    let cases: [(u32, Option<u8>, u8, u8); 10] = [
        (6, None, 2, 4),     // 2+ : hit
        (7, None, 2, 4),     // 3+ : miss
        (12, Some(5), 4, 5), // 3+ and 1 point: 4+ : hit
        (18, None, 4, 6),    // 4+ : hit
        (18, Some(4), 4, 6), // 4+ and 1 point: 5+ : miss
        (24, Some(6), 6, 3), // 5+ and 2 points: 7 : no face hits
        (24, Some(1), 5, 3), // 5+, no point from a 1: hit
        (30, None, 6, 6),    // 6 : hit
        (30, Some(4), 6, 6), // 6 and 1 point: miss (A4)
        (13, Some(6), 5, 2), // 4+ and 2 points: 6 : miss
    ];
    for (range, evasion_die, face, damage) in cases {
        let mut b = battle(vec![vec![ember()], vec![harrow()]], range);
        let p = plot(vec![
            every(volley(0, vec![fire(0, EMBER_FCS, 1, &[EMBER_TORPEDO])])),
            every(volley(u32::from(evasion_die.is_some()), vec![])),
        ]);
        let points = evasion_die.map_or(0, successes);
        let needed = torpedo_needed(range).unwrap();
        let hit = torpedo_hits(face, needed, points);
        let mut faces: Vec<u8> = evasion_die.into_iter().collect();
        faces.extend([60, face]);
        if hit {
            faces.push(damage);
        }
        let rec = scripted_volley(&mut b, &p, &faces);
        let expected = if hit { sap(4, &[u32::from(damage)]) } else { (0, 0) };
        let t = &b.units[1];
        let case = format!("range {range}, {points} Evasion Points, face {face}");
        assert_eq!((t.armour_lost, t.hull_lost), expected, "{case}");
        assert!(rec.events_of::<TorpedoAttack>().any(|t| t.hit == hit), "{case}");
    }
    // Out of range: the Fire Control acquires, the torpedo rolls nothing.
    assert_eq!(torpedo_needed(31), None);
    let mut b = battle(vec![vec![ember()], vec![harrow()]], 31);
    let p = plot(vec![
        every(volley(0, vec![fire(0, EMBER_FCS, 1, &[EMBER_TORPEDO])])),
        every(volley(0, vec![])),
    ]);
    scripted_volley(&mut b, &p, &[60]);
    assert_eq!((b.units[1].armour_lost, b.units[1].hull_lost), (0, 0));
}

/// (FB1 reading?, Evasion die, needle face, expected (armour, hull), kill)
type NeedleCase = (bool, Option<u8>, u8, (u32, u32), bool);

/// A needle beam at Harrow of Stars' class-2 beam #10 at 12 MU, under
/// Continuum (default) and FB1 (`needle_fb1`). The Exchange runs on, with the
/// killed system first in the defender's damage-control priority and spare
/// dice of 1 (a repair with any party) available: a needle kill stays.
#[test]
fn needle_beam_kills_under_both_readings_and_the_kill_is_not_repaired() {
    // Continuum: 4+ = 1 damage point, normal damage (armour first), the
    // screen does not matter; a natural 6 also destroys the system.
    // FB1: 5 = 1 hull point, 6 = 1 hull point and the system, past armour.
    let cases: [NeedleCase; 8] = [
        (false, None, 6, (1, 0), true),
        (false, None, 4, (1, 0), false),
        (false, None, 3, (0, 0), false),
        (false, Some(4), 6, (1, 0), true),  // −1: reads 5, still a natural 6
        (false, Some(4), 4, (0, 0), false), // −1: reads 3
        (true, None, 6, (0, 1), true),
        (true, None, 5, (0, 1), false),
        (true, None, 4, (0, 0), false),
    ];
    for (fb1, evasion_die, face, damage, kill) in cases {
        let mut b = battle(vec![vec![tide()], vec![harrow()]], 12);
        b.rules.needle_fb1 = fb1;
        let mut order = fire(0, TIDE_FCS, 1, &[TIDE_NEEDLE]);
        order.needles.push(NeedleOrder {
            weapon: TIDE_NEEDLE,
            unit: 1,
            system: HARROW_BEAM,
        });
        let defend = VolleyPlot {
            damage_control: vec![(1, vec![HARROW_BEAM])],
            ..volley(u32::from(evasion_die.is_some()), vec![])
        };
        let p = plot(vec![
            volleys(volley(0, vec![order]), volley(0, vec![]), volley(0, vec![])),
            volleys(
                defend.clone(),
                VolleyPlot {
                    evasion: 0,
                    ..defend.clone()
                },
                VolleyPlot { evasion: 0, ..defend },
            ),
        ]);
        let mut faces: Vec<u8> = evasion_die.into_iter().collect();
        faces.extend([30, face]);
        let rec = scripted_exchange(&mut b, &p, &faces, 6);
        let t = &b.units[1];
        let case = format!("fb1 {fb1}, Evasion die {evasion_die:?}, face {face}");
        assert_eq!((t.armour_lost, t.hull_lost), damage, "{case}");
        let state = if kill {
            SysState::Destroyed
        } else {
            SysState::Operational
        };
        assert_eq!(t.systems[HARROW_BEAM].state, state, "{case}");
        assert!(
            rec.events_of::<Repair>().next().is_none(),
            "{case}: no repair attempted"
        );
    }
}

/// A submunition pack at 6 MU: three beam dice with rerolls, read as if
/// the target had no screen (Clear Heading has one). One shot: plotted
/// again in Volley 2 it does not fire.
#[test]
fn submunition_pack_ignores_screens_and_fires_once() {
    let mut b = battle(vec![vec![updraft()], vec![clear_heading()]], 6);
    let pack = UPDRAFT_PACKS[0];
    let p = plot(vec![
        volleys(
            volley(0, vec![fire(0, UPDRAFT_FCS, 1, &[pack])]),
            volley(0, vec![fire(0, UPDRAFT_FCS, 1, &[pack])]),
            volley(0, vec![]),
        ),
        every(volley(0, vec![])),
    ]);
    // Beam table unscreened: 4 → 1, 5 → 1, 6 → 2 and a reroll; reroll 3 → 0.
    // (Against the level-1 screen the 4 would score nothing.)
    let faces = [50, 4, 5, 6, 3, 50];
    let rec = scripted_exchange(&mut b, &p, &faces, 6);
    assert_eq!((b.units[1].armour_lost, b.units[1].hull_lost), (0, 4));
    assert_eq!(b.units[0].systems[pack].rounds_left(), 0, "the pack is spent");
    let attacks = rec
        .events_of::<BeamAttack>()
        .filter(|a| a.unit == 0 && a.kind == BeamKind::Beam)
        .count();
    assert_eq!(attacks, 1, "a spent pack does not attack again");
}

/// Launches out of range still spend their ordnance (fm-readings 15): an
/// SML's magazine load, an SMR, a heavy missile rack, a submunition pack,
/// and both ER launchers of one magazine. Within range, ER reaches 42 MU.
#[test]
fn ordnance_is_spent_even_when_the_launch_is_out_of_range() {
    // Standard salvo and heavy missiles reach 30 MU, ER 42, packs 18.
    let mut b = battle(
        vec![
            vec![gale(), thunder(), descent(), updraft(), patience()],
            vec![clear_heading()],
        ],
        43,
    );
    let p = plot(vec![
        volleys(
            volley(
                0,
                vec![
                    fire(0, GALE_FCS, 1, &[GALE_SML]),
                    fire(1, THUNDER_FCS, 1, &[THUNDER_MISSILES[0], THUNDER_SML]),
                    fire(2, DESCENT_FCS, 1, &[DESCENT_SMR]),
                    fire(3, UPDRAFT_FCS, 1, &[UPDRAFT_PACKS[1]]),
                    fire(4, PATIENCE_FCS, 1, &PATIENCE_SML),
                ],
            ),
            volley(0, vec![fire(4, PATIENCE_FCS, 1, &[PATIENCE_SML[0]])]),
            volley(0, vec![]),
        ),
        every(volley(0, vec![])),
    ]);
    // Volley 1: five acquisitions, nothing else; Volley 2: one acquisition,
    // the magazine is empty.
    let rec = scripted_exchange(&mut b, &p, &[10, 20, 30, 40, 50, 60], 6);
    let u = &b.units;
    assert_eq!(u[0].systems[GALE_SMM].rounds_left(), 2, "Gale: 3 loads, 1 spent");
    assert_eq!(u[1].systems[THUNDER_SMM].rounds_left(), 1, "Thunder: 2 loads, 1 spent");
    assert_eq!(u[1].systems[THUNDER_MISSILES[0]].rounds_left(), 0);
    assert_eq!(u[2].systems[DESCENT_SMR].rounds_left(), 0);
    assert_eq!(u[3].systems[UPDRAFT_PACKS[1]].rounds_left(), 0);
    assert_eq!(u[4].systems[PATIENCE_SMM].rounds_left(), 0, "both ER loads spent");
    assert_eq!((u[5].armour_lost, u[5].hull_lost), (0, 0));
    let wasted = rec.events_of::<Launch>().filter(|l| l.wasted.is_some()).count();
    assert_eq!(wasted, 6, "six launches, all wasted");

    // At 42 MU the ER salvo is in range: on target 2, no PD (removed), 2 dice.
    let mut target = clear_heading();
    keep_pds(&mut target, 0);
    let mut b = battle(vec![vec![patience()], vec![target]], 42);
    let p = plot(vec![
        every(volley(0, vec![fire(0, PATIENCE_FCS, 1, &[PATIENCE_SML[0]])])),
        every(volley(0, vec![])),
    ]);
    scripted_volley(&mut b, &p, &[50, 2, 1, 3]);
    assert_eq!(b.units[1].hull_lost, 1 + 3, "no armour: SAP all to the hull");
    assert_eq!(b.units[0].systems[PATIENCE_SMM].rounds_left(), 1);
}

/// (target, range, PDS face if it fires, expected hull)
type PdsCase = (fn() -> Unit, u32, Option<u8>, u32);

/// PDS fired at a ship (ft-rules §5.1): to 6 MU, only at a Unit with no
/// working screen and no armour left; one die, a 6 scores 1, no extra die.
#[test]
fn pds_fires_at_ships_only_close_and_only_at_bare_hulls() {
    let bare = gale;
    let screened = clear_heading;
    let armoured = || ship("KRD Bitter Updraft");
    let stripped = || {
        let mut u = ship("KRD Bitter Updraft");
        u.armour_lost = u.armour_total;
        u
    };
    let screen_down = || {
        let mut u = clear_heading();
        u.systems[CLEAR_SCREEN].state = SysState::Destroyed;
        u
    };
    let cases: [PdsCase; 8] = [
        (bare, 6, Some(6), 1),
        (bare, 6, Some(5), 0),
        (bare, 0, Some(6), 1),
        (bare, 7, None, 0),
        (screened, 6, None, 0),
        (armoured, 6, None, 0),
        (stripped, 3, Some(6), 1),
        (screen_down, 6, Some(6), 1),
    ];
    for (i, (target, range, face, hull)) in cases.into_iter().enumerate() {
        let t = target();
        let armour_before = t.armour_lost;
        let mut b = battle(vec![vec![descent()], vec![t]], range);
        let p = plot(vec![
            every(volley(0, vec![fire(0, DESCENT_FCS, 1, &[DESCENT_PDS])])),
            every(volley(0, vec![])),
        ]);
        let mut faces = vec![50];
        faces.extend(face);
        let mut script = faces.clone();
        script.extend([6, 6]); // spare: an extra die would show in the count
        let mut dice = Dice::from_faces(&script);
        let p = checked(&b, &p);
        run_volley(&mut b, &p, 0, &mut dice, &mut (), &mut Scratch::default());
        assert_eq!(dice.count_draws(), faces.len() as u64, "case {i}: dice used");
        let u = &b.units[1];
        assert_eq!((u.armour_lost - armour_before, u.hull_lost), (0, hull), "case {i}");
    }
}

/// Harrow of Stars with three PDS against a one-missile salvo: the PDS
/// indices, the battle and the plot (PD plotted to defend the ship or not).
fn three_pds_against_one_missile(plotted: bool) -> (Battle, ExchangePlot, Vec<SystemId>) {
    let mut target = harrow();
    keep_pds(&mut target, 3);
    let pds: Vec<SystemId> = (0..target.systems.len())
        .filter(|i| target.systems[*i].kind == SystemKind::Pds)
        .collect();
    let mut defend = volley(0, vec![]);
    if plotted {
        defend.point_defence = pds
            .iter()
            .map(|w| PdOrder {
                unit: 1,
                weapon: *w,
                defend: Some(1),
            })
            .collect();
    }
    let b = battle(vec![vec![gale()], vec![target]], 24);
    let p = plot(vec![
        every(volley(0, vec![fire(0, GALE_FCS, 1, &[GALE_SML])])),
        every(defend),
    ]);
    (b, p, pds)
}

/// Each PDS defends its own Unit (F&M: dedicated PD systems contribute;
/// fm-readings 17: unplotted PD is allocated to the largest threat), so all
/// three PDS roll against the only salvo, even when it has one missile on
/// target: on target 1, PDS 1, 1, 1 (no kill), the missile scores 2.
fn every_pds_rolls(plotted: bool) {
    let (mut b, p, pds) = three_pds_against_one_missile(plotted);
    let faces = [50, 1, 1, 1, 1, 2];
    let mut script = faces.to_vec();
    script.extend([6; 4]);
    let mut dice = Dice::from_faces(&script);
    let mut rec = Recorder::default();
    let p = checked(&b, &p);
    run_volley(&mut b, &p, 0, &mut dice, &mut rec, &mut Scratch::default());
    let rolled: Vec<SystemId> = rec.events_of::<PdRoll>().map(|r| r.weapon).collect();
    assert_eq!(rolled, pds, "plotted {plotted}: every PDS rolls against the salvo");
    assert_eq!(dice.count_draws(), faces.len() as u64, "plotted {plotted}: dice used");
    assert_eq!((b.units[1].armour_lost, b.units[1].hull_lost), sap(4, &[2]));
}

#[test]
fn every_automatic_pds_rolls_against_a_one_missile_salvo() {
    every_pds_rolls(false);
}

#[test]
fn every_plotted_pds_rolls_against_a_one_missile_salvo() {
    every_pds_rolls(true);
}

// ---- 2. exact probabilities ---------------------------------------------------

/// Pulse torpedo hit chance at the upper edge of each 6 MU band against a
/// Formation with 0, 1 and 2 Evasion Points (the tube has one arc, so it
/// ignores none): P = (7 − needed − points) / 6, never below 0. Twenty
/// tubes fire per Volley; the Evasion Points are read from the dice.
#[test]
fn torpedo_hit_chance_by_band_and_evasion_points() {
    let mut shooter = ember();
    let tubes = multiply(&mut shooter, EMBER_TORPEDO, 19);
    let mut scratch = Scratch::default();
    for band in 1..=5u32 {
        let range = 6 * band;
        let base = battle(vec![vec![shooter.clone()], vec![clear_heading()]], range);
        let needed = torpedo_needed(range).unwrap();
        assert_eq!(needed, band + 1);
        // (hits, shots) by Evasion Points 0, 1, 2
        let mut tally = [(0u64, 0u64); 3];
        // 0 Evasion dice for 0 points; 2 dice give 1 point with chance 1/3
        // and 2 points with chance 5/18.
        for (dice_in_pool, volleys) in [(0u32, 1000), (2, 4000)] {
            let p = checked(
                &base,
                &plot(vec![
                    every(volley(0, vec![fire(0, EMBER_FCS, 1, &tubes)])),
                    every(volley(dice_in_pool, vec![])),
                ]),
            );
            let mut dice = Dice::new(0x7019 + u64::from(band) * 10 + u64::from(dice_in_pool));
            for _ in 0..volleys {
                let mut b = base.clone();
                let mut sink = Tally::default();
                run_volley(&mut b, &p, 0, &mut dice, &mut sink, &mut scratch);
                if let Some(t) = tally.get_mut(sink.evasion_points as usize) {
                    t.0 += sink.hits;
                    t.1 += tubes.len() as u64;
                }
            }
        }
        for (points, (hits, shots)) in tally.into_iter().enumerate() {
            let faces = 7i64 - i64::from(needed) - points as i64;
            let p = faces.max(0) as f64 / 6.0;
            assert_rate(
                &format!("torpedo at {range} MU, {points} Evasion Points"),
                hits,
                shots,
                p,
            );
        }
    }
}

/// A heavy missile against n PDS (n = 1 … 4), no Evasion: each PDS kills on
/// 5-6, so it gets through with probability (2/3)^n. Through = any damage.
#[test]
fn heavy_missile_survives_n_pds_with_two_thirds_to_the_n() {
    let mut scratch = Scratch::default();
    for n in 1..=4usize {
        let mut target = harrow();
        keep_pds(&mut target, n);
        let base = battle(vec![vec![thunder()], vec![target]], 24);
        let p = checked(
            &base,
            &plot(vec![
                every(volley(0, vec![fire(0, THUNDER_FCS, 1, &[THUNDER_MISSILES[0]])])),
                every(volley(0, vec![])),
            ]),
        );
        let mut dice = Dice::new(0x4EA7 + n as u64);
        let runs = 20_000u64;
        let mut through = 0;
        for _ in 0..runs {
            let mut b = base.clone();
            run_volley(&mut b, &p, 0, &mut dice, &mut (), &mut scratch);
            let t = &b.units[1];
            through += u64::from(t.armour_lost + t.hull_lost > 0);
        }
        let exact = (2.0f64 / 3.0).powi(n as i32);
        assert_rate(&format!("heavy missile through {n} PDS"), through, runs, exact);
    }
}

/// Salvo missiles through k PDS (k = 1, 2, 3), no Evasion: the distribution
/// of d6 on target minus the kills of k PDS dice with their chains of extra
/// dice, worked out exactly here; missiles through = damage dice rolled.
#[test]
fn salvo_missiles_through_k_pds_follow_the_exact_distribution() {
    let one = pds_kills(0, 6);
    assert!(abs_diff_eq!(one[0], 0.5, epsilon = 1e-12) && abs_diff_eq!(one[1], 1.0 / 3.0, epsilon = 1e-12));
    assert!(abs_diff_eq!(one[2], 1.0 / 12.0, epsilon = 1e-12), "a 6 then a miss");
    let mut scratch = Scratch::default();
    let mut kills = vec![1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    for k in 1..=3usize {
        kills = convolve(&kills, &one);
        let exact = survivors(&kills);
        let mut target = harrow();
        keep_pds(&mut target, k);
        let base = battle(vec![vec![gale()], vec![target]], 24);
        let p = checked(
            &base,
            &plot(vec![
                every(volley(0, vec![fire(0, GALE_FCS, 1, &[GALE_SML])])),
                every(volley(0, vec![])),
            ]),
        );
        let mut dice = Dice::new(0x5A1F0 + k as u64);
        let mut counts = [0u64; 7];
        for _ in 0..20_000 {
            let mut b = base.clone();
            let mut sink = Tally::default();
            run_volley(&mut b, &p, 0, &mut dice, &mut sink, &mut scratch);
            counts[sink.hits as usize] += 1;
        }
        assert_distribution(&format!("salvo missiles through {k} PDS"), &counts, &exact);
    }
}

/// Needle beams at 0 Evasion under Continuum: a natural 6 destroys the
/// named system (1/6), 4+ scores a damage point (1/2). Ten needles per
/// Volley, each at its own system of Harrow of Stars.
#[test]
fn needle_kill_chance_is_one_sixth() {
    let mut shooter = tide();
    let needles = multiply(&mut shooter, TIDE_NEEDLE, 9);
    // Non-core systems #4-13 of Harrow of Stars (FTL … class-1 beam).
    let systems: Vec<SystemId> = (3..13).collect();
    let target = harrow();
    for s in &systems {
        assert!(!target.systems[*s].kind.is_core());
    }
    let mut order = fire(0, TIDE_FCS, 1, &needles);
    order.needles = needles
        .iter()
        .zip(&systems)
        .map(|(w, s)| NeedleOrder {
            weapon: *w,
            unit: 1,
            system: *s,
        })
        .collect();
    let base = battle(vec![vec![shooter], vec![target]], 12);
    let p = checked(
        &base,
        &plot(vec![every(volley(0, vec![order])), every(volley(0, vec![]))]),
    );
    let mut dice = Dice::new(0x6EED);
    let mut scratch = Scratch::default();
    let (mut kills, mut damage, mut shots) = (0u64, 0u64, 0u64);
    for _ in 0..2_000 {
        let mut b = base.clone();
        run_volley(&mut b, &p, 0, &mut dice, &mut (), &mut scratch);
        let t = &b.units[1];
        kills += systems
            .iter()
            .filter(|s| t.systems[**s].state == SysState::Destroyed)
            .count() as u64;
        damage += u64::from(t.armour_lost + t.hull_lost);
        shots += needles.len() as u64;
    }
    assert_rate("needle kill", kills, shots, 1.0 / 6.0);
    assert_rate("needle damage point", damage, shots, 0.5);
}

/// One PDS against one salvo, the defending Formation rolling two Evasion
/// dice: given E Evasion Points (0, 1, 2), missiles through follow d6 minus
/// the kills of one PDS die that may be rolled again E times after a miss.
/// Closed-form anchor: the PDS kills nothing with probability (1/2)^(E+1).
#[test]
fn pd_evasion_rerolls_match_the_closed_form() {
    for e in 0..=2u32 {
        let no_kill = pds_kills(e, 6)[0];
        assert_abs_diff_eq!(no_kill, 0.5f64.powi(e as i32 + 1), epsilon = 1e-12);
    }
    let mut target = harrow();
    keep_pds(&mut target, 1);
    let base = battle(vec![vec![gale()], vec![target]], 24);
    let p = checked(
        &base,
        &plot(vec![
            every(volley(0, vec![fire(0, GALE_FCS, 1, &[GALE_SML])])),
            every(volley(2, vec![])),
        ]),
    );
    let mut dice = Dice::new(0xE7A5);
    let mut scratch = Scratch::default();
    let mut counts = [[0u64; 7]; 3];
    for _ in 0..80_000 {
        let mut b = base.clone();
        let mut sink = Tally::default();
        run_volley(&mut b, &p, 0, &mut dice, &mut sink, &mut scratch);
        if let Some(c) = counts.get_mut(sink.evasion_points as usize) {
            c[sink.hits as usize] += 1;
        }
    }
    for (e, c) in counts.iter().enumerate() {
        let exact = survivors(&pds_kills(e as u32, 6));
        assert_distribution(&format!("salvo through one PDS with {e} Evasion Points"), c, &exact);
    }
}

// ---- 3. determinism -------------------------------------------------------------

/// A missile squadron against a PD-heavy group: salvo launchers, racks,
/// heavy missiles, packs and beams against PDS (one plotted to cover
/// another Unit through the ADFC), class-1 beams in PD mode, a torpedo.
fn missiles_against_escorts() -> (Battle, ExchangePlot) {
    let b = battle(
        vec![
            vec![gale(), thunder(), descent(), updraft()],
            vec![harrow(), clear_heading(), ember()],
        ],
        30,
    );
    let attack = VolleyPlot {
        speed: 3,
        evasion: 2,
        primary: Some(ManeuverOrder {
            target: 1,
            maneuver: Maneuver::Close,
        }),
        fire: vec![
            fire(0, GALE_FCS, 1, &[GALE_SML]),
            fire(0, GALE_FCS + 1, 1, &[8, 9, 10]),
            fire(1, THUNDER_FCS, 1, &THUNDER_MISSILES),
            fire(1, THUNDER_FCS + 1, 1, &[THUNDER_SML]),
            fire(1, THUNDER_FCS + 2, 1, &[12, 13]),
            fire(2, DESCENT_FCS, 1, &[DESCENT_SMR]),
            fire(3, UPDRAFT_FCS, 1, &[5, 6, 7, 8]),
        ],
        ..VolleyPlot::default()
    };
    let defend = VolleyPlot {
        speed: 2,
        evasion: 2,
        primary: Some(ManeuverOrder {
            target: 0,
            maneuver: Maneuver::Close,
        }),
        fire: vec![
            fire(4, 5, 0, &[9, 10, 11]),
            fire(4, 6, 0, &[12]),
            fire(6, EMBER_FCS, 0, &[EMBER_TORPEDO, 7]),
        ],
        point_defence: vec![
            PdOrder {
                unit: 5,
                weapon: 10,
                defend: None,
            },
            PdOrder {
                unit: 5,
                weapon: 11,
                defend: None,
            },
            PdOrder {
                unit: 4,
                weapon: 15,
                defend: Some(5),
            },
        ],
        ..VolleyPlot::default()
    };
    expect_kind(&b.units[5], 10, SystemKind::Beam { class: 1 });
    expect_kind(&b.units[5], 11, SystemKind::Beam { class: 1 });
    expect_kind(&b.units[4], 15, SystemKind::Pds);
    expect_kind(&b.units[4], 7, SystemKind::Adfc);
    (b, plot(vec![every(attack), every(defend)]))
}

#[test]
fn same_seed_same_battle_with_and_without_recording_missiles_and_pd_in_play() {
    let (b0, p) = missiles_against_escorts();
    let (mut pd_kills, mut evasion_rerolls, mut missiles_through, mut beam_pd) = (0, 0, 0, 0);
    for seed in 0..24u64 {
        let mut recorded = b0.clone();
        let mut rec = Recorder::default();
        let mut dice = Dice::new(seed);
        let p = checked(&recorded, &p);
        run_exchange(&mut recorded, &p, &mut dice, &mut rec, &mut Scratch::default());
        let rolls = rec.entries.iter().filter(|e| matches!(e, Entry::Roll(_))).count() as u64;
        assert_eq!(dice.count_draws(), rolls, "seed {seed}: every die recorded once");

        let mut silent = b0.clone();
        let mut dice2 = Dice::new(seed);
        let p = checked(&silent, &p);
        run_exchange(&mut silent, &p, &mut dice2, &mut (), &mut Scratch::default());
        assert_eq!(recorded, silent, "seed {seed}: recording changes nothing");
        assert_eq!(dice.count_draws(), dice2.count_draws(), "seed {seed}");

        let mut again = b0.clone();
        let mut rec2 = Recorder::default();
        let p = checked(&again, &p);
        run_exchange(&mut again, &p, &mut Dice::new(seed), &mut rec2, &mut Scratch::default());
        assert_eq!(rec.entries, rec2.entries, "seed {seed}: same events");

        for roll in rec.events_of::<PdRoll>() {
            pd_kills += roll.kills;
            evasion_rerolls += roll.evasion_faces.len();
            beam_pd += usize::from(roll.unit == 5 && (roll.weapon == 10 || roll.weapon == 11) && roll.kills > 0);
        }
        for hits in rec.events_of::<MissileHits>() {
            missiles_through += hits.hits.len();
        }
    }
    assert!(pd_kills > 0, "PD killed missiles");
    assert!(evasion_rerolls > 0, "Evasion rerolled PD dice");
    assert!(missiles_through > 0, "missiles got through");
    assert!(beam_pd > 0, "class-1 beams in PD mode killed missiles");
}

// ---- 4. the weapon-use record a batch reads ------------------------------------

/// The weapon-use record (`Scratch::weapon_use`) notes, without events,
/// what each weapon did: an SML launching within reach fired; PDS that roll
/// against its salvo fired, plotted or not (plotted ones in point-defence
/// mode); PDS with nothing to shoot at and weapons no plot names did
/// nothing. The same faces as `every_pds_rolls`: noting uses no die.
fn weapon_use_of_a_salvo_against_pds(plotted: bool) {
    let (mut b, p, pds) = three_pds_against_one_missile(plotted);
    let faces = [50, 1, 1, 1, 1, 2];
    let mut dice = Dice::from_faces(&faces);
    let mut scratch = Scratch::default();
    scratch.clear_weapon_use(&b);
    let p = checked(&b, &p);
    run_volley(&mut b, &p, 0, &mut dice, &mut (), &mut scratch);
    assert_eq!(dice.count_draws(), faces.len() as u64, "plotted {plotted}: dice used");
    let uses = scratch.weapon_use();
    let sml = uses.get(0, GALE_SML);
    assert!(sml.plotted() && sml.fired(), "plotted {plotted}: the SML launched");
    assert!(!sml.out_of_range() && !sml.stopped() && !sml.point_defence());
    for &w in &pds {
        let u = uses.get(1, w);
        assert!(u.fired(), "plotted {plotted}: PDS #{} rolled", w + 1);
        assert_eq!((u.plotted(), u.point_defence()), (plotted, plotted), "PDS #{}", w + 1);
    }
    let gale_pds: Vec<SystemId> = (0..b.units[0].systems.len())
        .filter(|i| b.units[0].systems[*i].kind == SystemKind::Pds)
        .collect();
    assert!(!gale_pds.is_empty());
    for w in gale_pds {
        assert_eq!(
            uses.get(0, w),
            Default::default(),
            "Gale's PDS #{} had nothing to do",
            w + 1
        );
    }
    assert_eq!(uses.get(1, HARROW_BEAM), Default::default(), "no plot named the beam");
    assert_eq!(uses.get(2, 0), Default::default(), "no such Unit: nothing, no panic");
    assert_eq!(
        uses.get(1, 999),
        Default::default(),
        "no such system: nothing, no panic"
    );
}

#[test]
fn the_weapon_use_record_notes_launches_and_automatic_pd() {
    weapon_use_of_a_salvo_against_pds(false);
}

#[test]
fn the_weapon_use_record_notes_plotted_pd() {
    weapon_use_of_a_salvo_against_pds(true);
}

/// Ordnance launched beyond its reach is out of range and did not fire;
/// a launcher whose magazine ran dry in Volley 1 is stopped in Volley 2; a
/// beam beyond its range is out of range; a knocked-out beam is stopped.
/// The record spans the Exchange (run_exchange lays it out for the battle)
/// and is the same with and without recording.
#[test]
fn the_weapon_use_record_notes_out_of_range_and_stopped_weapons() {
    let mut tide = tide();
    let tide_beams: Vec<SystemId> = (0..tide.systems.len())
        .filter(|i| matches!(tide.systems[*i].kind, SystemKind::Beam { .. }))
        .collect();
    assert!(tide_beams.len() >= 2, "Unhurried Tide has beams");
    tide.systems[tide_beams[1]].state = SysState::Destroyed;
    let b0 = battle(vec![vec![gale(), patience(), tide], vec![clear_heading()]], 43);
    let p = plot(vec![
        volleys(
            volley(
                0,
                vec![
                    fire(0, GALE_FCS, 1, &[GALE_SML]),
                    fire(1, PATIENCE_FCS, 1, &PATIENCE_SML),
                    fire(2, TIDE_FCS, 1, &tide_beams),
                ],
            ),
            volley(0, vec![fire(1, PATIENCE_FCS, 1, &[PATIENCE_SML[0]])]),
            volley(0, vec![]),
        ),
        every(volley(0, vec![])),
    ]);
    let (mut silent, mut recorded) = (b0.clone(), b0);
    let (mut quiet, mut loud) = (Scratch::default(), Scratch::default());
    let p = checked(&silent, &p);
    run_exchange(&mut silent, &p, &mut Dice::new(5), &mut (), &mut quiet);
    run_exchange(
        &mut recorded,
        &p,
        &mut Dice::new(5),
        &mut Recorder::default(),
        &mut loud,
    );
    for (unit, u) in silent.units.iter().enumerate() {
        for w in 0..u.systems.len() {
            assert_eq!(
                quiet.weapon_use().get(unit, w),
                loud.weapon_use().get(unit, w),
                "{} #{}: recording changes nothing",
                u.name,
                w + 1
            );
        }
    }
    let uses = quiet.weapon_use();
    let gale = uses.get(0, GALE_SML);
    assert!(
        gale.plotted() && gale.out_of_range() && !gale.fired(),
        "43 MU is beyond 30"
    );
    let first = uses.get(1, PATIENCE_SML[0]);
    assert!(
        first.out_of_range() && first.stopped() && !first.fired(),
        "beyond 42, then dry"
    );
    let second = uses.get(1, PATIENCE_SML[1]);
    assert!(second.out_of_range() && !second.stopped(), "plotted in Volley 1 only");
    let working = uses.get(2, tide_beams[0]);
    let class = match silent.units[2].systems[tide_beams[0]].kind {
        SystemKind::Beam { class } => u32::from(class),
        _ => unreachable!(),
    };
    assert_eq!(
        working.fired(),
        beam_dice(class, 43) > 0,
        "a beam fires when it rolls dice"
    );
    assert_eq!(working.out_of_range(), beam_dice(class, 43) == 0);
    let destroyed = uses.get(2, tide_beams[1]);
    assert!(destroyed.plotted() && destroyed.stopped() && !destroyed.fired());
    // Laid out afresh: nothing noted.
    quiet.clear_weapon_use(&silent);
    assert_eq!(quiet.weapon_use().get(0, GALE_SML), Default::default());
}
