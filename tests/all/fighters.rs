//! Fighter groups and gunboat squadrons in the Volley (docs/fighters.md):
//! worked examples with scripted dice and exact probabilities against
//! seeded samples, on battles built in code.
//!
//! Every expected value is derived here from the rules text (docs/fighters.md
//! §2, §3, §5, §8, §9; ft-rules §1.2, §5.1), with this file's own copies of
//! the beam and PD tables, not from the engine's tables or from a run.
//! Statistical checks use fixed seeds and a bound of five standard errors
//! taken from the exact variance, so they cannot flake.

use approx::{abs_diff_eq, assert_abs_diff_eq};
use std::sync::OnceLock;

use fam::engine::dice::Dice;
use fam::engine::event::{
    CraftDiceEvent, CraftEngaged, CraftIdle, CraftLaunched, CraftLost, CraftRoll, Destroyed, Event, GroupShot,
    MissileHits, Payload, PdRoll, Pools, Recorder, SecondaryMove, VolleyStarted, WeaponIdle,
};
use fam::engine::plot::{
    CraftAction, CraftOrder, ExchangePlot, FireOrder, FormationPlot, Maneuver, ManeuverOrder, PdOrder, UnitId,
    VolleyPlot,
};
use fam::engine::rules::{PilotQualityRule, Rules};
use fam::engine::state::{
    Battle, Control, Craft, CraftKind, Formation, GunboatKind, RangeTable, Rearm, Side, Sys, SysState, Unit,
};
use fam::engine::volley::{Scratch, run_exchange, run_volley};
use fam::gzf::{
    self, FighterBase, FighterModifier, FighterType, ParseOptions, PilotQuality, Profile, SystemKind, TorpedoRange,
};

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

/// A record Unit, only as a template for the fields a test does not set
/// (so a new field on `Unit` does not break these tests).
fn template() -> Unit {
    let file = ssd("meridian-compact.gzf");
    Unit::from_ship(file.ship("MCS Clear Heading").unwrap(), file.profile, 0, 0)
}

fn sys(kind: SystemKind, arcs: u32) -> Sys {
    Sys {
        rounds: u32::from(kind == SystemKind::Scattergun),
        kind,
        arcs,
        state: SysState::Operational,
        inactive: false,
        repaired: false,
        spent: 0,
        magazine: None,
        er: false,
    }
}

/// A ship with these systems, 1000 hull boxes in rows of 250 (no row is
/// completed by a Volley's attacks, so no threshold die), no armour, no
/// crew factors (no damage-control die), thrust 4.
fn hulk(name: &str, systems: Vec<Sys>) -> Unit {
    Unit {
        name: name.to_string(),
        mass: 100,
        points: 0,
        original_thrust: 4,
        thrust: 4,
        drive_hits: 0,
        drive_damaged: false,
        armour_total: 0,
        armour_lost: 0,
        armour_layers: Vec::new(),
        rows: vec![250; 4],
        hull_total: 1000,
        hull_lost: 0,
        crew_boxes: Vec::new(),
        systems,
        destroyed: false,
        surrendered: false,
        control: Control::InControl,
        life_support_failing: None,
        derelict: false,
        craft: None,
        launch_tubes: None,
        screens_down: false,
        ..template()
    }
}

fn screens(n: usize) -> Vec<Sys> {
    (0..n).map(|_| sys(SystemKind::ScreenGenerator, 0)).collect()
}

fn craft_unit(name: &str, kind: CraftKind, n: u32) -> Unit {
    Unit::from_craft(
        name,
        Profile::Fb1,
        0,
        0,
        Craft {
            kind,
            quality: None,
            craft: n,
            boxes: 6,
            cef: 6,
            cef_max: 6,
            torpedoes_spent: false,
            carrier: None,
            docked: false,
            rearm: Rearm::Ready,
            launched_now: false,
        },
    )
}

fn fighters(name: &str, base: FighterBase, modifier: Option<FighterModifier>, n: u32) -> Unit {
    craft_unit(
        name,
        CraftKind::Fighter(FighterType {
            modifier,
            base,
            light: false,
        }),
        n,
    )
}

/// A group of `n` light fighters (8 a group, 4 endurance).
fn light(name: &str, base: FighterBase, modifier: Option<FighterModifier>, n: u32) -> Unit {
    let mut u = fighters(name, base, modifier, n);
    let c = u.craft.as_mut().unwrap();
    if let CraftKind::Fighter(t) = &mut c.kind {
        t.light = true;
    }
    (c.boxes, c.cef, c.cef_max) = (8, 4, 4);
    u
}

fn standard(name: &str, n: u32) -> Unit {
    fighters(name, FighterBase::Standard, None, n)
}

fn gunboats(name: &str, kind: GunboatKind, n: u32) -> Unit {
    craft_unit(name, CraftKind::Gunboat(kind), n)
}

fn quality(mut u: Unit, q: PilotQuality) -> Unit {
    u.craft.as_mut().unwrap().quality = Some(q);
    u
}

fn cef(mut u: Unit, n: u32) -> Unit {
    u.craft.as_mut().unwrap().cef = n;
    u
}

/// Formations given as (side, members); every pair `range` MU apart.
/// Aces and turkeys count (`pilot_quality = "record"`).
fn battle(formations: Vec<(usize, Vec<Unit>)>, range: u32) -> Battle {
    let mut units = Vec::new();
    let mut list = Vec::new();
    let mut sides = 0;
    for (f, (side, members)) in formations.into_iter().enumerate() {
        sides = sides.max(side + 1);
        let mut ids = Vec::new();
        for mut u in members {
            u.side = side;
            u.formation = f;
            ids.push(units.len());
            units.push(u);
        }
        list.push(Formation {
            name: format!("F{f}"),
            side,
            units: ids,
            reserve: Default::default(),
        });
    }
    let n = list.len();
    Battle {
        sides: (0..sides).map(|i| Side { name: format!("S{i}") }).collect(),
        formations: list,
        units,
        ranges: RangeTable::new(n, range),
        rules: Rules {
            pilot_quality: PilotQualityRule::Record,
            ..Rules::default()
        },
    }
}

fn order(group: UnitId, action: CraftAction) -> CraftOrder {
    CraftOrder { group, action }
}

/// A Volley plot: no Speed, `evasion` Evasion dice, these craft orders.
fn craft_plot(evasion: u32, craft: Vec<CraftOrder>) -> VolleyPlot {
    VolleyPlot {
        evasion,
        craft,
        ..VolleyPlot::default()
    }
}

fn every(v: VolleyPlot) -> Option<FormationPlot> {
    Some(FormationPlot {
        volleys: [v.clone(), v.clone(), v],
    })
}

fn first_only(v: VolleyPlot) -> Option<FormationPlot> {
    Some(FormationPlot {
        volleys: [v, VolleyPlot::default(), VolleyPlot::default()],
    })
}

fn plot(formations: Vec<Option<FormationPlot>>) -> ExchangePlot {
    ExchangePlot { formations }
}

fn fire_at_group(unit: UnitId, fire_control: usize, formation: usize, group: UnitId, weapons: &[usize]) -> FireOrder {
    FireOrder {
        unit,
        fire_control,
        target: Some(formation),
        weapons: weapons.to_vec(),
        needles: Vec::new(),
        group: Some(group),
    }
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

/// Plays a whole Exchange on `faces` and 20 spare faces of 1, and checks
/// that exactly `faces` were used.
fn scripted_exchange(battle: &mut Battle, plot: &ExchangePlot, faces: &[u8]) -> Recorder {
    let mut script = faces.to_vec();
    script.extend(std::iter::repeat_n(1, 20));
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

fn events(rec: &Recorder) -> Vec<&Event> {
    rec.events().collect()
}

/// (group, target, action, cef left) of every `CraftEngaged` event.
fn engaged(rec: &Recorder) -> Vec<(UnitId, Option<UnitId>, &'static str, u32)> {
    rec.events_of::<CraftEngaged>()
        .map(
            |CraftEngaged {
                 group,
                 target,
                 action,
                 cef_left,
             }| (*group, *target, *action, *cef_left),
        )
        .collect()
}

/// (group, action, faces, reroll faces, kills) of one `CraftRoll` event.
type RollSummary = (UnitId, &'static str, Vec<u8>, Vec<u8>, u32);

/// Every `CraftRoll` event, as [`RollSummary`]s.
fn craft_rolls(rec: &Recorder) -> Vec<RollSummary> {
    rec.events_of::<CraftRoll>()
        .map(|r| (r.group, r.action, r.faces.clone(), r.reroll_faces.clone(), r.kills))
        .collect()
}

fn idles(rec: &Recorder) -> Vec<(UnitId, &'static str)> {
    rec.events_of::<CraftIdle>()
        .map(|CraftIdle { group, reason }| (*group, *reason))
        .collect()
}

fn craft_left(b: &Battle, g: UnitId) -> u32 {
    b.units[g].craft.unwrap().craft
}

fn cef_left(b: &Battle, g: UnitId) -> u32 {
    b.units[g].craft.unwrap().cef
}

/// Runs `n` Volleys of `plot` from `start` with seeded dice, each Volley
/// from the start state, and hands each end state to `observe`. With a
/// `prefix`, every Volley starts with those faces (Evasion dice fixed so
/// the defending Formations hold a known number of points) and goes on
/// with seeded faces.
fn sample(start: &Battle, plot: &ExchangePlot, prefix: &[u8], seed: u64, n: usize, mut observe: impl FnMut(&Battle)) {
    let mut b = start.clone();
    let mut scratch = Scratch::default();
    let mut dice = Dice::new(seed);
    let mut script = Vec::with_capacity(prefix.len() + 100);
    let plot = &checked(start, plot);
    for _ in 0..n {
        b.reset_to(start);
        if prefix.is_empty() {
            run_volley(&mut b, plot, 0, &mut dice, &mut (), &mut scratch);
        } else {
            script.clear();
            script.extend_from_slice(prefix);
            script.extend((0..100).map(|_| dice.d6()));
            let mut scripted = Dice::from_faces(&script);
            run_volley(&mut b, plot, 0, &mut scripted, &mut (), &mut scratch);
        }
        observe(&b);
    }
}

// ---- the rules, restated for the expectations ---------------------------------

/// A die face after a DRM, clamped to 1-6 (ft-rules §1.1).
fn modified(face: u8, drm: i32) -> u8 {
    (i32::from(face) + drm).clamp(1, 6) as u8
}

/// Beam table (ft-rules §1.2): no screen 4-5 one, 6 two; level 1: 5 one,
/// 6 two; level 2: 5 one, 6 one.
fn beam_points(face: u8, screen: u8) -> usize {
    match (face, screen) {
        (6, 2) => 1,
        (6, _) => 2,
        (5, _) => 1,
        (4, 0) => 1,
        _ => 0,
    }
}

/// PDS table against fighters and salvo missiles (ft-rules §5.1; also
/// dogfights, FTC §8.10): 4-5 one kill, 6 two.
fn pds_kills(face: u8) -> usize {
    match face {
        6 => 2,
        4 | 5 => 1,
        _ => 0,
    }
}

/// Class-1 beam against fighters or missiles (and interception, A6): 5-6 one.
fn beam1_kills(face: u8) -> usize {
    usize::from(face >= 5)
}

/// Distribution, lumped at `cap`, of one die read by `first` on its
/// modified face, a natural 6 adding a chain of extra dice (no DRM) each
/// read by `extra`, a natural 6 chaining again.
fn die_distribution(drm: i32, first: impl Fn(u8) -> usize, extra: impl Fn(u8) -> usize, cap: usize) -> Vec<f64> {
    // The chain: C = extra(f) for f < 6, extra(6) + C for a 6.
    let mut chain = vec![0.0; cap + 1];
    for _ in 0..60 {
        let mut next = vec![0.0; cap + 1];
        for f in 1..=5u8 {
            next[extra(f).min(cap)] += 1.0 / 6.0;
        }
        for (v, p) in chain.iter().enumerate() {
            next[(v + extra(6)).min(cap)] += p / 6.0;
        }
        chain = next;
    }
    let mut out = vec![0.0; cap + 1];
    for f in 1..=6u8 {
        let base = first(modified(f, drm));
        if f == 6 {
            for (v, p) in chain.iter().enumerate() {
                out[(base + v).min(cap)] += p / 6.0;
            }
        } else {
            out[base.min(cap)] += 1.0 / 6.0;
        }
    }
    out
}

/// The sum of independent counts, lumped at `cap` (the last index).
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

fn dice_sum(one: &[f64], n: usize) -> Vec<f64> {
    let mut out = vec![0.0; one.len()];
    out[0] = 1.0;
    for _ in 0..n {
        out = convolve(&out, one);
    }
    out
}

fn mean(dist: &[f64]) -> f64 {
    dist.iter().enumerate().map(|(v, p)| v as f64 * p).sum()
}

/// The sample rate `hits / n` lies within five standard errors of the exact
/// probability `p`, the error from the exact variance p(1 − p)/n.
fn assert_rate(what: &str, hits: u64, n: u64, p: f64) {
    assert!(n >= 10_000, "{what}: only {n} samples");
    let rate = hits as f64 / n as f64;
    let bound = 5.0 * (p * (1.0 - p) / n as f64).sqrt();
    assert!(
        abs_diff_eq!(rate, p, epsilon = bound),
        "{what}: sample rate {rate:.5} over {n} samples, exact {p:.5}, |diff| {:.5} > 5 SE {bound:.5}",
        (rate - p).abs()
    );
}

/// Every value of an observed distribution (counts) within five standard
/// errors of the exact one, and the mean too.
fn assert_distribution(what: &str, counts: &[u64], exact: &[f64]) {
    assert_eq!(counts.len(), exact.len());
    assert!(
        abs_diff_eq!(exact.iter().sum::<f64>(), 1.0, epsilon = 1e-9),
        "{what}: exact sums to 1"
    );
    let n: u64 = counts.iter().sum();
    for (v, (&c, &p)) in counts.iter().zip(exact).enumerate() {
        assert_rate(&format!("{what}, P(value = {v})"), c, n, p);
    }
    let m = mean(exact);
    let var: f64 = exact.iter().enumerate().map(|(v, p)| (v as f64 - m).powi(2) * p).sum();
    let sample = counts
        .iter()
        .enumerate()
        .map(|(v, c)| v as f64 * *c as f64)
        .sum::<f64>()
        / n as f64;
    let bound = 5.0 * (var / n as f64).sqrt();
    assert!(
        abs_diff_eq!(sample, m, epsilon = bound),
        "{what}: sample mean {sample:.4}, exact {m:.4}, bound {bound:.4}"
    );
}

// ---- 1. attack runs -------------------------------------------------------------

/// Expected points per attack-run die (docs/fighters.md §9) match the
/// distributions restated here, so the table in the design is right.
#[test]
fn design_table_of_attack_run_damage_per_die_is_right() {
    let run = |drm: i32, screen: u8| {
        mean(&die_distribution(
            drm,
            |f| beam_points(f, screen),
            |f| beam_points(f, 0),
            80,
        ))
    };
    let table = [
        (0, [4.0 / 5.0, 19.0 / 30.0, 7.0 / 15.0]),
        (1, [17.0 / 15.0, 29.0 / 30.0, 19.0 / 30.0]),
        (-2, [3.0 / 10.0, 2.0 / 15.0, 2.0 / 15.0]),
    ];
    for (drm, row) in table {
        for (screen, want) in row.iter().enumerate() {
            let got = run(drm, screen as u8);
            assert!(
                abs_diff_eq!(got, *want, epsilon = 1e-9),
                "DRM {drm}, screen {screen}: {got} vs design {want}"
            );
        }
    }
    // One standard die, unscreened: P(2j) = (1/6)^j / 2, P(2j+1) = (1/6)^j / 3.
    let one = die_distribution(0, |f| beam_points(f, 0), |f| beam_points(f, 0), 12);
    for (v, p) in one.iter().enumerate().take(12) {
        let j = (v / 2) as i32;
        let want = (1.0f64 / 6.0).powi(j) * if v % 2 == 0 { 0.5 } else { 1.0 / 3.0 };
        assert!(abs_diff_eq!(*p, want, epsilon = 1e-9), "P({v}) = {p} vs {want}");
    }
    // Dogfights on the PDS table: standard 4/5, interceptor 17/15, attack
    // 3/10, −1 7/15; exhausted (a modified 6 kills one) 1/6, interceptor 1/3.
    let dog = |drm: i32| mean(&die_distribution(drm, pds_kills, pds_kills, 80));
    for (drm, want) in [(0, 0.8), (1, 17.0 / 15.0), (-2, 0.3), (-1, 7.0 / 15.0)] {
        assert!(abs_diff_eq!(dog(drm), want, epsilon = 1e-9), "dogfight DRM {drm}");
    }
    // Interception on the class-1 table: 2/5 a die, interceptor 17/30.
    let int = |drm: i32| mean(&die_distribution(drm, beam1_kills, beam1_kills, 80));
    assert!(abs_diff_eq!(int(0), 0.4, epsilon = 1e-9) && abs_diff_eq!(int(1), 17.0 / 30.0, epsilon = 1e-9));
    // A ship beam die at gunboats (4+ kills one, a 6 rolls again): 3/5.
    let gb = |f: u8| usize::from(f >= 4);
    assert_abs_diff_eq!(mean(&die_distribution(0, gb, gb, 80)), 0.6, epsilon = 1e-9);
}

/// One-craft groups of each type at ships with 0, 1 and 2 screens: the
/// damage of each run follows the beam table with the type's DRM (standard
/// and heavy 0, attack +1, interceptor −2), natural 6s rerolling unscreened
/// and penetrating; an ace rolls one more die (two in all).
#[test]
fn attack_run_damage_by_type_and_screen_level() {
    // (name, type, modifier, ace, screen level, DRM)
    type Config = (&'static str, FighterBase, Option<FighterModifier>, bool, u8, i32);
    let configs: Vec<Config> = vec![
        ("standard", FighterBase::Standard, None, false, 0, 0),
        ("standard", FighterBase::Standard, None, false, 1, 0),
        ("standard", FighterBase::Standard, None, false, 2, 0),
        ("attack", FighterBase::Attack, None, false, 0, 1),
        ("attack", FighterBase::Attack, None, false, 1, 1),
        ("attack", FighterBase::Attack, None, false, 2, 1),
        ("interceptor", FighterBase::Interceptor, None, false, 0, -2),
        ("interceptor", FighterBase::Interceptor, None, false, 1, -2),
        ("interceptor", FighterBase::Interceptor, None, false, 2, -2),
        (
            "heavy",
            FighterBase::Standard,
            Some(FighterModifier::Heavy),
            false,
            0,
            0,
        ),
        ("ace standard", FighterBase::Standard, None, true, 1, 0),
    ];
    let k = configs.len();
    let ships: Vec<Unit> = configs
        .iter()
        .map(|c| hulk("target", screens(usize::from(c.4))))
        .collect();
    let groups: Vec<Unit> = configs
        .iter()
        .map(|c| {
            let g = fighters(c.0, c.1, c.2, 1);
            if c.3 { quality(g, PilotQuality::Ace) } else { g }
        })
        .collect();
    let start = battle(vec![(0, ships), (1, groups)], 6);
    let orders = (0..k).map(|i| order(k + i, CraftAction::Attack(i))).collect();
    let p = plot(vec![every(craft_plot(0, vec![])), every(craft_plot(0, orders))]);
    const CAP: usize = 6;
    let mut counts = vec![vec![0u64; CAP + 1]; k];
    sample(&start, &p, &[], 0xF1_0001, 20_000, |b| {
        for (i, c) in counts.iter_mut().enumerate() {
            c[(b.units[i].hull_lost as usize).min(CAP)] += 1;
        }
    });
    for (i, (name, _, _, ace, screen, drm)) in configs.iter().enumerate() {
        let one = die_distribution(*drm, |f| beam_points(f, *screen), |f| beam_points(f, 0), CAP);
        let exact = dice_sum(&one, if *ace { 2 } else { 1 });
        assert_distribution(&format!("{name} run at screen {screen}"), &counts[i], &exact);
    }
}

/// With the switch off, an ace's record quality is ignored: two craft roll
/// two dice; with `record` they roll three (reading F18).
#[test]
fn an_ace_rolls_one_more_die_only_under_the_record_switch() {
    for (rule, faces) in [
        (PilotQualityRule::Off, vec![4u8, 5]),
        (PilotQualityRule::Record, vec![4, 5, 4]),
    ] {
        let mut b = battle(
            vec![
                (0, vec![hulk("target", vec![])]),
                (1, vec![quality(standard("aces", 2), PilotQuality::Ace)]),
            ],
            6,
        );
        b.rules.pilot_quality = rule;
        let p = plot(vec![
            every(craft_plot(0, vec![])),
            first_only(craft_plot(0, vec![order(1, CraftAction::Attack(0))])),
        ]);
        scripted_volley(&mut b, &p, &faces);
        assert_eq!(b.units[0].hull_lost as usize, faces.len(), "{rule:?}: one point a die");
    }
}

/// Torpedo fighters (reading F26): one torpedo a craft, 4-6 hits for the
/// face as semi-armour-piercing damage, screens ignored; then the
/// torpedoes are spent and the group attacks with guns at −2.
#[test]
fn torpedo_run_once_then_guns_at_minus_two() {
    let mut ship = hulk("target", screens(1));
    ship.armour_total = 10;
    let mut b = battle(
        vec![
            (0, vec![ship]),
            (1, vec![fighters("torps", FighterBase::Torpedo, None, 3)]),
        ],
        6,
    );
    let attack = craft_plot(0, vec![order(1, CraftAction::Attack(0))]);
    let p = plot(vec![
        every(craft_plot(0, vec![])),
        Some(FormationPlot {
            volleys: [attack.clone(), attack, VolleyPlot::default()],
        }),
    ]);
    // Volley 1: torpedoes 4 (hit), 3 (miss), 6 (hit): SAP 4 → 2 armour 2
    // hull, SAP 6 → 3 armour 3 hull. Volley 2: guns at −2 on screen 1:
    // 6 → 4 (nothing through a screen) and a reroll 4 (one penetrating),
    // 5 → 3, 2 → 1: one hull box.
    let rec = scripted_exchange(&mut b, &p, &[4, 3, 6, 6, 5, 2, 4]);
    assert_eq!((b.units[0].armour_lost, b.units[0].hull_lost), (5, 6));
    let c = b.units[1].craft.unwrap();
    assert!(c.torpedoes_spent);
    assert_eq!(c.cef, 4, "one endurance a Volley of combat");
    let rolls = craft_rolls(&rec);
    assert_eq!(
        rolls,
        [
            (1, "torpedo run", vec![4, 3, 6], vec![], 0),
            (1, "attack run", vec![6, 5, 2], vec![4], 0)
        ]
    );
    assert!(
        rec.events_of::<CraftRoll>()
            .any(|e| matches!(e, CraftRoll { sap, .. } if *sap == [4, 6]))
    );
    assert!(rec.events_of::<CraftRoll>().any(|e| matches!(
        e,
        CraftRoll {
            drm: -2,
            penetrating: 1,
            ..
        }
    )));
}

/// Six torpedo craft: each hits on 4-6 for the face: P(no damage) = 1/64,
/// mean 6 × 5/2 = 15.
#[test]
fn torpedo_run_hits_half_the_time_for_the_face() {
    let pairs = 4;
    let ships = (0..pairs).map(|_| hulk("target", screens(2))).collect();
    let groups = (0..pairs)
        .map(|_| fighters("torps", FighterBase::Torpedo, None, 6))
        .collect();
    let start = battle(vec![(0, ships), (1, groups)], 6);
    let orders = (0..pairs).map(|i| order(pairs + i, CraftAction::Attack(i))).collect();
    let p = plot(vec![every(craft_plot(0, vec![])), every(craft_plot(0, orders))]);
    let (mut none, mut sum, mut n) = (0u64, 0u64, 0u64);
    sample(&start, &p, &[], 0xF1_0002, 10_000, |b| {
        for i in 0..pairs {
            let d = u64::from(b.units[i].hull_lost);
            none += u64::from(d == 0);
            sum += d;
            n += 1;
        }
    });
    assert_rate("six torpedoes all miss", none, n, 1.0 / 64.0);
    // Per craft: 0 with 1/2, 4, 5, 6 with 1/6 each: E 5/2, E[X²] 77/6.
    let var = 6.0 * (77.0 / 6.0 - 6.25);
    let m = sum as f64 / n as f64;
    let bound = 5.0 * (var / n as f64).sqrt();
    assert!(
        abs_diff_eq!(m, 15.0, epsilon = bound),
        "mean torpedo damage {m} vs 15 (bound {bound})"
    );
}

// ---- 2. dogfights ------------------------------------------------------------------

/// Dogfights (§3.4) on the PDS table, one die a craft, kills capped at the
/// target's craft, with the DRMs: interceptor +1, attack and torpedo −2,
/// heavy target −1, turkey −1, interceptor at heavy 0. Targets fire back
/// (all at once), so a shooter shot down still scores: one craft against one
/// craft, each dies with 1/2 on its own. An exhausted group fires back
/// reading only a modified 6, as one kill.
#[test]
fn dogfight_kills_by_type_pilot_and_exhaustion() {
    let std1 = || standard("s", 1);
    let heavy = |n| fighters("h", FighterBase::Standard, Some(FighterModifier::Heavy), n);
    // (shooter, target, DRM of the shooter's die, shooter's craft)
    let pairs: Vec<(Unit, Unit, i32)> = vec![
        (std1(), standard("t", 6), 0),
        (fighters("i", FighterBase::Interceptor, None, 1), standard("t", 6), 1),
        (fighters("a", FighterBase::Attack, None, 1), standard("t", 6), -2),
        (fighters("x", FighterBase::Torpedo, None, 1), standard("t", 6), -2),
        (std1(), heavy(6), -1),
        (quality(std1(), PilotQuality::Turkey), standard("t", 6), -1),
        (fighters("i", FighterBase::Interceptor, None, 1), heavy(6), 0),
        (standard("s", 2), standard("t", 2), 0),
        (std1(), std1(), 0),
        // The exhausted targets: only their fire back is measured.
        (standard("s", 6), cef(std1(), 0), 0),
        (
            standard("s", 6),
            cef(fighters("i", FighterBase::Interceptor, None, 1), 0),
            1,
        ),
        (
            standard("s", 6),
            cef(fighters("a", FighterBase::Attack, None, 1), 0),
            -2,
        ),
    ];
    let k = pairs.len();
    let (shooters, targets): (Vec<Unit>, Vec<Unit>) = pairs.iter().map(|(s, t, _)| (s.clone(), t.clone())).unzip();
    let target_craft: Vec<u32> = targets.iter().map(|t| t.craft.unwrap().craft).collect();
    let start = battle(vec![(0, targets), (1, shooters)], 6);
    let orders = (0..k).map(|i| order(k + i, CraftAction::Dogfight(i))).collect();
    let p = plot(vec![every(craft_plot(0, vec![])), every(craft_plot(0, orders))]);
    let mut lost = vec![vec![0u64; 7]; k];
    let mut shooter_lost = vec![vec![0u64; 7]; k];
    let mut joint = [0u64; 4];
    let samples = 15_000;
    sample(&start, &p, &[], 0xF1_0003, samples, |b| {
        for i in 0..k {
            lost[i][(target_craft[i] - craft_left(b, i)) as usize] += 1;
            let s = b.units[k + i].craft.unwrap();
            shooter_lost[i][(pairs[i].0.craft.unwrap().craft - s.craft) as usize] += 1;
        }
        let (a, t) = (craft_left(b, k + 8), craft_left(b, 8));
        joint[usize::from(a == 0) * 2 + usize::from(t == 0)] += 1;
    });
    for (i, (_, _, drm)) in pairs.iter().enumerate().take(7) {
        let exact = die_distribution(*drm, pds_kills, pds_kills, 6);
        assert_distribution(&format!("pair {i}: one craft (DRM {drm}) at six"), &lost[i], &exact);
    }
    // Design §9: one craft at six: 1/2, 1/3, 1/12, 1/18, 1/72, 1/108, 1/216.
    let design = [
        1.0 / 2.0,
        1.0 / 3.0,
        1.0 / 12.0,
        1.0 / 18.0,
        1.0 / 72.0,
        1.0 / 108.0,
        1.0 / 216.0,
    ];
    let exact = die_distribution(0, pds_kills, pds_kills, 6);
    assert!(
        exact
            .iter()
            .zip(design)
            .all(|(a, b)| abs_diff_eq!(*a, b, epsilon = 1e-9))
    );
    // Six standard dice at one craft: it survives only if all six miss.
    assert_rate(
        "one craft survives six dice",
        shooter_lost[0][0],
        samples as u64,
        1.0 / 64.0,
    );
    // Two craft at two: 1/4, 1/3, 5/12.
    let two = dice_sum(&die_distribution(0, pds_kills, pds_kills, 2), 2);
    assert!(
        abs_diff_eq!(two[0], 0.25, epsilon = 1e-9)
            && abs_diff_eq!(two[1], 1.0 / 3.0, epsilon = 1e-9)
            && abs_diff_eq!(two[2], 5.0 / 12.0, epsilon = 1e-9)
    );
    assert_distribution("two craft at two", &lost[7][..3], &two);
    // One against one, simultaneous: neither, target only, shooter only, both.
    assert_distribution("one against one", &joint, &[0.25; 4]);
    // Exhausted groups firing back: a modified 6 is one kill, no extra die.
    for (i, p) in [(9, 1.0 / 6.0), (10, 1.0 / 3.0), (11, 0.0)] {
        assert_eq!(
            shooter_lost[i][2..].iter().sum::<u64>(),
            0,
            "pair {i}: at most one kill"
        );
        assert_rate(
            &format!("pair {i}: exhausted fire back"),
            shooter_lost[i][1],
            samples as u64,
            p,
        );
    }
}

/// A worked dogfight: two craft name one exhausted craft. Losses wait for
/// the Damage step, so the exhausted group, shot down, still fires back; it
/// kills only on a 6, one craft, with no extra die; endurance is paid by
/// the group that fights and not below 0.
#[test]
fn dogfight_worked_example_simultaneous_and_exhausted() {
    for (faces, attackers_left) in [(vec![4u8, 1, 5], 2), (vec![6, 1, 3, 6], 1)] {
        let mut b = battle(
            vec![(0, vec![standard("pair", 2)]), (1, vec![cef(standard("tired", 1), 0)])],
            6,
        );
        let p = plot(vec![
            every(craft_plot(0, vec![order(0, CraftAction::Dogfight(1))])),
            every(craft_plot(0, vec![])),
        ]);
        let rec = scripted_volley(&mut b, &p, &faces);
        assert!(b.units[1].destroyed, "{faces:?}: the tired craft is shot down");
        assert_eq!(craft_left(&b, 0), attackers_left, "{faces:?}");
        assert_eq!(
            engaged(&rec),
            [(0, Some(1), "dogfight", 5), (1, Some(0), "dogfight", 0)]
        );
        // Both rolls come before any loss.
        let kinds: Vec<&str> = events(&rec)
            .into_iter()
            .filter_map(|e| match e {
                Event::CraftDice(CraftDiceEvent::CraftRoll(_)) => Some("roll"),
                Event::CraftDice(CraftDiceEvent::CraftLost(_)) => Some("lost"),
                _ => None,
            })
            .collect();
        let first_loss = kinds.iter().position(|k| *k == "lost").unwrap();
        assert!(kinds[..first_loss].len() == 2 && kinds[first_loss..].iter().all(|k| *k == "lost"));
    }
}

// ---- 3. point defence against attacking craft -------------------------------------

/// PD at a one-craft group making an attack run, with 0, 1 and 2 Evasion
/// Points of the defending Formation (each rerolls one missed PD die): PDS
/// 1/2, 3/4, 7/8; PDS at a heavy fighter (−1 on the first die, rerolls
/// without DRM) 1/3, 2/3, 5/6; a class-1 beam plotted as PD 1/3, 5/9, 19/27.
/// A craft killed by PD makes no attack. And a PDS at a group of six with one
/// point: P(no kill) = 1/4.
#[test]
fn pd_against_attacking_craft_with_evasion_rerolls() {
    let pds = || hulk("pds", vec![sys(SystemKind::Pds, 6)]);
    let beam1 = || hulk("beam", vec![sys(SystemKind::Beam { class: 1 }, 6)]);
    let heavy = || fighters("h", FighterBase::Standard, Some(FighterModifier::Heavy), 1);
    // (defender, attacker, Evasion Points, exact P(kill))
    let cases: Vec<(Unit, Unit, u32, f64)> = vec![
        (pds(), standard("s", 1), 0, 1.0 / 2.0),
        (pds(), standard("s", 1), 1, 3.0 / 4.0),
        (pds(), standard("s", 1), 2, 7.0 / 8.0),
        (pds(), heavy(), 0, 1.0 / 3.0),
        (pds(), heavy(), 1, 2.0 / 3.0),
        (pds(), heavy(), 2, 5.0 / 6.0),
        (beam1(), standard("s", 1), 0, 1.0 / 3.0),
        (beam1(), standard("s", 1), 1, 5.0 / 9.0),
        (beam1(), standard("s", 1), 2, 19.0 / 27.0),
        (pds(), standard("six", 6), 1, f64::NAN),
    ];
    // The closed forms from the tables: 1 − P(first misses) · P(reroll misses)^EP.
    for (i, (ship, att, ep, p)) in cases.iter().enumerate().take(9) {
        let heavy = att.craft.unwrap().kind
            == CraftKind::Fighter(FighterType {
                modifier: Some(FighterModifier::Heavy),
                base: FighterBase::Standard,
                light: false,
            });
        let is_pds = ship.systems[0].kind == SystemKind::Pds;
        let kills = |f: u8| if is_pds { pds_kills(f) } else { beam1_kills(f) };
        let drm = if heavy && is_pds { -1 } else { 0 };
        let first_miss = (1..=6u8).filter(|f| kills(modified(*f, drm)) == 0).count() as f64 / 6.0;
        let reroll_miss = (1..=6u8).filter(|f| kills(*f) == 0).count() as f64 / 6.0;
        let want = 1.0 - first_miss * reroll_miss.powi(*ep as i32);
        assert!(
            abs_diff_eq!(want, *p, epsilon = 1e-9),
            "case {i}: design {p} vs tables {want}"
        );
    }
    let n = cases.len();
    let mut formations: Vec<(usize, Vec<Unit>)> = cases.iter().map(|c| (0, vec![c.0.clone()])).collect();
    formations.push((1, cases.iter().map(|c| c.1.clone()).collect()));
    let start = battle(formations, 6);
    let mut plots: Vec<Option<FormationPlot>> = Vec::new();
    let mut prefix = Vec::new();
    for (i, (ship, _, ep, _)) in cases.iter().enumerate() {
        let mut v = craft_plot(u32::from(*ep > 0), vec![]);
        if matches!(ship.systems[0].kind, SystemKind::Beam { .. }) {
            v.point_defence = vec![PdOrder {
                unit: i,
                weapon: 0,
                defend: None,
            }];
        }
        plots.push(every(v));
        // One Evasion die: 4 is one point, 6 two.
        match ep {
            1 => prefix.push(4),
            2 => prefix.push(6),
            _ => {}
        }
    }
    plots.push(every(craft_plot(
        0,
        (0..n).map(|i| order(n + i, CraftAction::Attack(i))).collect(),
    )));
    let p = plot(plots);
    let samples = 12_000;
    let mut killed = vec![0u64; n];
    let mut six = [0u64; 7];
    sample(&start, &p, &prefix, 0xF1_0004, samples, |b| {
        for (i, k) in killed.iter_mut().enumerate() {
            let left = craft_left(b, n + i);
            if left == 0 {
                *k += 1;
                assert_eq!(
                    b.units[i].hull_lost, 0,
                    "case {i}: a craft killed by PD does not attack"
                );
            }
        }
        six[(6 - craft_left(b, 2 * n - 1)) as usize] += 1;
    });
    for (i, (_, _, ep, p)) in cases.iter().enumerate().take(9) {
        assert_rate(&format!("case {i}, {ep} Evasion Points"), killed[i], samples as u64, *p);
    }
    assert_rate("PDS at six craft, one point: no kill", six[0], samples as u64, 0.25);
}

/// PD kills craft before they attack: a PDS 6 kills both craft of a group
/// (its extra die rolls all the same), which then rolls no attack die; a 4
/// kills one, and the other makes its run.
#[test]
fn craft_killed_by_pd_make_no_attack() {
    for (faces, left, damage) in [(vec![6u8, 3], 0, 0), (vec![4, 5], 1, 1)] {
        let mut b = battle(
            vec![
                (0, vec![hulk("pds", vec![sys(SystemKind::Pds, 6)])]),
                (1, vec![standard("s", 2)]),
            ],
            6,
        );
        let p = plot(vec![
            every(craft_plot(0, vec![])),
            every(craft_plot(0, vec![order(1, CraftAction::Attack(0))])),
        ]);
        let rec = scripted_volley(&mut b, &p, &faces);
        assert_eq!(craft_left(&b, 1), left, "{faces:?}");
        assert_eq!(b.units[0].hull_lost, damage, "{faces:?}");
        assert!(rec.events_of::<CraftLost>().any(|e| matches!(
            e,
            CraftLost {
                cause: "point defence",
                ..
            }
        )));
    }
}

// ---- 4. screens and interception ---------------------------------------------------

/// A screen meets the first attacker of its ship one to one (they fire at
/// each other); the second attacker makes its run (§3.5).
#[test]
fn a_screen_meets_one_attacker_and_the_next_makes_its_run() {
    let mut b = battle(
        vec![
            (0, vec![hulk("carrier", vec![]), standard("screen", 1)]),
            (1, vec![standard("a1", 1), standard("a2", 1)]),
        ],
        6,
    );
    let p = plot(vec![
        every(craft_plot(0, vec![order(1, CraftAction::Screen(0))])),
        every(craft_plot(
            0,
            vec![order(2, CraftAction::Attack(0)), order(3, CraftAction::Attack(0))],
        )),
    ]);
    // Unit order: the screen kills a1 (4), a1 misses (2), a2 scores 1 (5).
    let rec = scripted_volley(&mut b, &p, &[4, 2, 5]);
    assert_eq!(
        engaged(&rec),
        [
            (1, Some(2), "dogfight", 5),
            (2, Some(1), "dogfight", 5),
            (3, Some(0), "attack run", 5)
        ]
    );
    assert_eq!(b.units[0].hull_lost, 1);
    assert!(b.units[2].destroyed && !b.units[1].destroyed);
}

/// Two screens, one attacker: the first screen and the attacker fire at
/// each other, the extra screen fires at the attacker too (a furball); the
/// ship is not attacked.
#[test]
fn extra_screens_join_the_furball() {
    let mut b = battle(
        vec![
            (0, vec![hulk("carrier", vec![]), standard("sc1", 1), standard("sc2", 1)]),
            (1, vec![standard("a1", 2)]),
        ],
        6,
    );
    let p = plot(vec![
        every(craft_plot(
            0,
            vec![order(1, CraftAction::Screen(0)), order(2, CraftAction::Screen(0))],
        )),
        every(craft_plot(0, vec![order(3, CraftAction::Attack(0))])),
    ]);
    // sc1 at a1 (5, one kill), sc2 at a1 (4, one kill), a1 at sc1 (1, 2).
    let rec = scripted_volley(&mut b, &p, &[5, 4, 1, 2]);
    assert_eq!(
        engaged(&rec),
        [
            (1, Some(3), "dogfight", 5),
            (2, Some(3), "dogfight", 5),
            (3, Some(1), "dogfight", 5)
        ]
    );
    assert!(b.units[3].destroyed);
    assert_eq!(b.units[0].hull_lost, 0);
}

/// A salvo at a screened ship: the unengaged interceptor screen rolls on
/// the class-1 table at +1 (extra dice without DRM), a standard group
/// plotted to intercept reads a 4 as a miss; each missile killed costs a
/// craft on a 6; ship PD and the missile damage follow.
#[test]
fn unengaged_screens_and_interceptors_intercept_missiles() {
    let file = ssd("kestrel-reach.gzf");
    let gale = Unit::from_ship(file.ship("KRD Ninefold Gale").unwrap(), file.profile, 0, 0);
    assert_eq!(gale.systems[4].kind, SystemKind::FireControl);
    assert_eq!(gale.systems[6].kind, SystemKind::Sml);
    let mut b = battle(
        vec![
            (0, vec![gale]),
            (
                1,
                vec![
                    hulk("carrier", vec![]),
                    fighters("screen", FighterBase::Interceptor, None, 2),
                    standard("cap", 1),
                ],
            ),
        ],
        24,
    );
    let mut fire = fire_at_group(0, 4, 1, 0, &[6]);
    fire.group = None;
    let p = plot(vec![
        every(VolleyPlot {
            fire: vec![fire],
            ..VolleyPlot::default()
        }),
        every(craft_plot(
            0,
            vec![order(2, CraftAction::Screen(1)), order(3, CraftAction::Intercept)],
        )),
    ]);
    let faces = [
        40, // targeting: the only ship of the Formation
        5,  // five missiles on target
        4, 6, 4, // screen: 4+1 kills, 6 kills and rolls again, extra 4 (no DRM) misses
        6, 2, // its two kills: a 6 loses a craft, a 2 does not
        4, // the standard group: a 4 misses on the class-1 table
        3, 2, 1, // three missiles through: 1d6 each
    ];
    let rec = scripted_volley(&mut b, &p, &faces);
    assert_eq!(b.units[1].hull_lost, 6);
    assert_eq!(craft_left(&b, 2), 1, "one craft lost intercepting");
    assert_eq!((cef_left(&b, 2), cef_left(&b, 3)), (5, 5), "each pays for the Volley");
    let rolls = craft_rolls(&rec);
    assert_eq!(
        rolls,
        [
            (2, "intercept", vec![4, 6], vec![4], 2),
            (3, "intercept", vec![4], vec![], 0)
        ]
    );
}

// ---- 5. endurance and secondary maneuvers ------------------------------------------

/// Secondary maneuvers (reading F4): fighters close 12 MU for 1 CEF and
/// attack in the same Volley for another; gunboats close 9 MU and attack at
/// up to 12 MU; a Close at 6 MU or less is skipped at no cost; a Withdraw
/// opens 12 MU. The next Volley the fighters are exhausted and cannot
/// attack.
#[test]
fn endurance_and_secondary_maneuvers() {
    let mut b = battle(
        vec![
            (0, vec![hulk("target", vec![])]),
            (1, vec![cef(standard("g1", 1), 2)]),
            (1, vec![gunboats("boats", GunboatKind::Beam, 1)]),
            (1, vec![standard("g3", 1)]),
            (1, vec![standard("g4", 1)]),
        ],
        18,
    );
    b.ranges.set(0, 3, 6);
    b.ranges.set(0, 4, 10);
    let close = Some(ManeuverOrder {
        target: 0,
        maneuver: Maneuver::Close,
    });
    let attack = |g| craft_plot(0, vec![order(g, CraftAction::Attack(0))]);
    let p = plot(vec![
        every(craft_plot(0, vec![])),
        Some(FormationPlot {
            volleys: [
                VolleyPlot {
                    after: close,
                    ..attack(1)
                },
                attack(1),
                VolleyPlot::default(),
            ],
        }),
        first_only(VolleyPlot {
            after: close,
            ..attack(2)
        }),
        first_only(VolleyPlot {
            after: close,
            ..VolleyPlot::default()
        }),
        first_only(VolleyPlot {
            after: Some(ManeuverOrder {
                target: 0,
                maneuver: Maneuver::Withdraw,
            }),
            ..VolleyPlot::default()
        }),
    ]);
    // Volley 1: g1 one die (4: 1), the boat two dice (5: 1, 1: 0).
    let rec = scripted_exchange(&mut b, &p, &[4, 5, 1]);
    assert_eq!(
        (
            b.ranges.get(0, 1),
            b.ranges.get(0, 2),
            b.ranges.get(0, 3),
            b.ranges.get(0, 4)
        ),
        (6, 9, 6, 22)
    );
    assert_eq!(b.units[0].hull_lost, 2);
    assert_eq!(cef_left(&b, 1), 0, "g1: 2 − move − attack");
    assert_eq!(cef_left(&b, 2), 4, "boats: 6 − move − attack");
    assert_eq!(cef_left(&b, 3), 6, "g3: no move, no cost");
    assert_eq!(cef_left(&b, 4), 5, "g4: withdrew");
    assert!(idles(&rec).contains(&(1, "exhausted: no attack run")));
    let moves = rec
        .events_of::<SecondaryMove>()
        .filter(|e| matches!(e, SecondaryMove { .. }))
        .count();
    assert_eq!(moves, 3);
}

// ---- 6. launch, recovery, re-arming, lost bays -------------------------------------

fn carrier(bays: usize) -> Unit {
    hulk("carrier", (0..bays).map(|_| sys(SystemKind::HangarBay, 0)).collect())
}

fn docked(mut g: Unit, carrier: UnitId, bay: usize) -> Unit {
    let c = g.craft.as_mut().unwrap();
    c.carrier = Some((carrier, bay));
    c.docked = true;
    g
}

/// A carrier launching rolls no Speed dice that Volley (reading F15); its
/// Evasion dice roll as plotted.
#[test]
fn a_launching_carrier_rolls_no_speed() {
    let mut b = battle(
        vec![
            (0, vec![carrier(1), docked(standard("g", 6), 0, 0)]),
            (1, vec![hulk("foe", vec![])]),
        ],
        30,
    );
    let launch = VolleyPlot {
        speed: 2,
        evasion: 1,
        launch: vec![1],
        ..VolleyPlot::default()
    };
    let p = plot(vec![
        Some(FormationPlot {
            volleys: [launch, VolleyPlot::default(), VolleyPlot::default()],
        }),
        every(VolleyPlot::default()),
    ]);
    let rec = scripted_volley(&mut b, &p, &[4]);
    assert!(!b.units[1].craft.unwrap().docked);
    assert!(
        rec.events_of::<CraftLaunched>()
            .any(|e| matches!(e, CraftLaunched { group: 1, carrier: 0 }))
    );
    assert!(rec.events_of::<Pools>().any(|e| matches!(
        e,
        Pools { formation: 0, speed_dice, evasion_points: 1, .. } if speed_dice.is_empty()
    )));
}

/// Recovery in Volley 1 rolls the re-arm die: 6 → may launch in Volley 2;
/// 2-5 → in Volley 3; 1 → never again. The group launched again is full of
/// endurance, into its own Formation, which starts at its carrier's place.
#[test]
fn recovery_and_rearming() {
    for face in 1..=6u8 {
        let mut g = cef(standard("g", 4), 1);
        g.craft.as_mut().unwrap().carrier = Some((0, 0));
        let mut b = battle(
            vec![(0, vec![carrier(1)]), (0, vec![g]), (1, vec![hulk("foe", vec![])])],
            6,
        );
        b.ranges.set(1, 2, 30);
        let launch = VolleyPlot {
            launch: vec![1],
            ..VolleyPlot::default()
        };
        let p = plot(vec![
            Some(FormationPlot {
                volleys: [VolleyPlot::default(), launch.clone(), launch],
            }),
            first_only(VolleyPlot {
                recover: vec![1],
                ..VolleyPlot::default()
            }),
            every(VolleyPlot::default()),
        ]);
        let rec = scripted_exchange(&mut b, &p, &[face]);
        let launched_in: Vec<u8> = {
            let mut volley = 0;
            let mut out = Vec::new();
            for e in rec.events() {
                if let Some(started) = VolleyStarted::of(e) {
                    volley = started.volley;
                }
                if CraftLaunched::of(e).is_some_and(|l| l.group == 1) {
                    out.push(volley);
                }
            }
            out
        };
        let c = b.units[1].craft.unwrap();
        match face {
            6 => assert_eq!(launched_in, [2], "face 6"),
            2..=5 => {
                assert_eq!(launched_in, [3], "face {face}");
                assert!(idles(&rec).contains(&(1, "the group is still re-arming")));
            }
            _ => {
                assert!(launched_in.is_empty(), "face 1");
                assert_eq!(c.rearm, Rearm::Never);
                assert!(c.docked);
            }
        }
        if face > 1 {
            assert!(!c.docked);
            assert_eq!((c.cef, c.craft), (6, 4), "endurance refilled, lost craft stay lost");
            assert_eq!(b.ranges.get(0, 1), 0, "launched at its carrier's place");
            assert_eq!(b.ranges.get(1, 2), 6, "with its carrier's ranges");
        }
    }
}

/// A group whose Formation is in the off-board Reserve neither lands nor
/// launches: its Formation is out of the battle until it comes back.
#[test]
fn groups_in_the_reserve_neither_land_nor_launch() {
    let mut g = cef(standard("g", 4), 1);
    g.craft.as_mut().unwrap().carrier = Some((0, 0));
    let mut b = battle(
        vec![(0, vec![carrier(1)]), (0, vec![g]), (1, vec![hulk("foe", vec![])])],
        6,
    );
    b.formations[1].reserve = fam::engine::state::Reserve::InReserve;
    let p = plot(vec![
        first_only(VolleyPlot {
            recover: vec![1],
            ..VolleyPlot::default()
        }),
        None,
        None,
    ]);
    let rec = scripted_volley(&mut b, &p, &[1; 4]);
    assert!(idles(&rec).contains(&(1, "the group's Formation is in the Reserve")));
    assert!(!b.units[1].craft.unwrap().docked, "still out, not landed");

    // Docked, its Formation in the Reserve: no launch either.
    b.units[1].craft.as_mut().unwrap().docked = true;
    let p = plot(vec![
        first_only(VolleyPlot {
            launch: vec![1],
            ..VolleyPlot::default()
        }),
        None,
        None,
    ]);
    let rec = scripted_volley(&mut b, &p, &[1; 4]);
    assert!(idles(&rec).contains(&(1, "the group's Formation is in the Reserve")));
    assert!(b.units[1].craft.unwrap().docked);
}

/// A group docked in a bay lost to a threshold is destroyed with it
/// (reading F20; §2 step 9: at the threshold step, before damage control),
/// even when damage control repairs the bay in the same Volley.
#[test]
fn a_group_docked_in_a_bay_lost_to_a_threshold_is_destroyed() {
    let mut c = carrier(1);
    c.rows = vec![2, 3];
    c.hull_total = 5;
    c.crew_boxes = vec![5];
    let mut b = battle(
        vec![
            (0, vec![c, docked(standard("g", 6), 0, 0)]),
            (1, vec![standard("a", 2)]),
        ],
        6,
    );
    let p = plot(vec![
        every(VolleyPlot::default()),
        first_only(craft_plot(0, vec![order(2, CraftAction::Attack(0))])),
    ]);
    // Two points complete the first row; the bay fails its threshold (6),
    // the drive holds (1); one damage-control party repairs the bay (1).
    let rec = scripted_volley(&mut b, &p, &[5, 5, 6, 1, 1]);
    assert_eq!(b.units[0].systems[0].state, SysState::Operational, "repaired");
    assert!(b.units[1].destroyed, "the docked group went with its bay");
    assert!(rec.events_of::<Destroyed>().any(|e| matches!(
        e,
        Destroyed {
            unit: 1,
            cause: "lost with its hangar bay"
        }
    )));
}

/// The groups docked in a destroyed carrier are destroyed with it.
#[test]
fn a_group_docked_in_a_destroyed_carrier_is_destroyed() {
    let mut c = carrier(1);
    c.rows = vec![2];
    c.hull_total = 2;
    let mut b = battle(
        vec![
            (0, vec![c, docked(standard("g", 6), 0, 0)]),
            (1, vec![standard("a", 2)]),
        ],
        6,
    );
    let p = plot(vec![
        every(VolleyPlot::default()),
        first_only(craft_plot(0, vec![order(2, CraftAction::Attack(0))])),
    ]);
    scripted_volley(&mut b, &p, &[5, 4]);
    assert!(b.units[0].destroyed && b.units[1].destroyed);
}

// ---- 7. ship weapons at groups, gunboats ---------------------------------------------

/// Ship weapons at a named group (readings F7, F14): one d6 per beam
/// battery in reach whatever its class, a modified 6 kills one, the DRM the
/// group Formation's Evasion not ignored by the arcs; other weapons idle.
/// Kills wait for the Damage step: the group still makes its run with every
/// craft.
#[test]
fn ship_beams_at_a_named_group() {
    let ship = hulk(
        "gunship",
        vec![
            sys(SystemKind::FireControl, 0),
            sys(SystemKind::Beam { class: 2 }, 3),
            sys(SystemKind::Beam { class: 3 }, 1),
            sys(SystemKind::Beam { class: 1 }, 6),
            sys(
                SystemKind::PulseTorpedo {
                    range: TorpedoRange::Standard,
                },
                1,
            ),
        ],
    );
    let mut b = battle(vec![(0, vec![ship]), (1, vec![standard("g", 3)])], 6);
    let p = plot(vec![
        every(VolleyPlot {
            fire: vec![fire_at_group(0, 0, 1, 1, &[1, 2, 3, 4])],
            ..VolleyPlot::default()
        }),
        every(craft_plot(1, vec![order(1, CraftAction::Attack(0))])),
    ]);
    // Evasion die 4: one point. Class-2, three arcs (ignores 1): 6 kills.
    // Class-3, one arc (−1): a 6 reads 5, no kill. Class-1, six arcs: 5 no
    // kill. The torpedo idles. The group runs with all three craft: 1, 1, 4.
    let rec = scripted_volley(&mut b, &p, &[4, 6, 6, 5, 1, 1, 4]);
    let shots: Vec<_> = rec
        .events_of::<GroupShot>()
        .map(
            |GroupShot {
                 weapon,
                 drm,
                 faces,
                 kills,
                 ..
             }| (*weapon, *drm, faces.clone(), *kills),
        )
        .collect();
    assert_eq!(shots, [(1, 0, vec![6], 1), (2, -1, vec![6], 0), (3, 0, vec![5], 0)]);
    assert!(
        rec.events_of::<WeaponIdle>()
            .any(|e| matches!(e, WeaponIdle { unit: 0, weapon: 4, .. }))
    );
    assert_eq!(craft_rolls(&rec), [(1, "attack run", vec![1, 1, 4], vec![], 0)]);
    assert_eq!(b.units[0].hull_lost, 1);
    assert_eq!(craft_left(&b, 1), 2);
}

/// Gunboats (§5): ship beams roll their dice at a squadron and every
/// scoring die kills a boat at once, before it attacks; a PDS kills a boat
/// only on a 6; a beam gunboat rolls two beam dice a boat, at up to 12 MU.
#[test]
fn gunboats_worked_example() {
    let ship = hulk(
        "gunship",
        vec![
            sys(SystemKind::FireControl, 0),
            sys(SystemKind::Beam { class: 3 }, 6),
            sys(SystemKind::Pds, 6),
        ],
    );
    let mut b = battle(
        vec![(0, vec![ship]), (1, vec![gunboats("boats", GunboatKind::Beam, 3)])],
        12,
    );
    let p = plot(vec![
        every(VolleyPlot {
            fire: vec![fire_at_group(0, 0, 1, 1, &[1])],
            ..VolleyPlot::default()
        }),
        every(craft_plot(0, vec![order(1, CraftAction::Attack(0))])),
    ]);
    // Class-3 at 12 MU: 3 dice 4, 6, 1 and the 6's extra die 2: two kills.
    // PDS: a 5 kills no gunboat. One boat: two dice 4, 6 and a reroll 3: 3.
    let rec = scripted_volley(&mut b, &p, &[4, 6, 1, 2, 5, 4, 6, 3]);
    assert!(
        rec.events_of::<GroupShot>()
            .any(|e| matches!(e, GroupShot { kills: 2, .. }))
    );
    assert_eq!(craft_left(&b, 1), 1);
    assert_eq!(b.units[0].hull_lost, 3);
    assert_eq!(craft_rolls(&rec), [(1, "gunboat attack", vec![4, 6], vec![3], 0)]);
}

/// Torpedo gunboats: every boat's short-range torpedo rolls to hit first
/// (at 5-8 MU, the second band of 4 MU, a 3+), then a d6 of semi-armour-
/// piercing damage for each hit; screens do not count. The event shows the
/// to-hit faces and the damage apart. The target's PDS kills a boat only on
/// a 6.
#[test]
fn torpedo_gunboats_roll_to_hit_then_damage() {
    let ship = hulk("target", vec![sys(SystemKind::Pds, 6)]);
    let mut b = battle(
        vec![(0, vec![ship]), (1, vec![gunboats("darts", GunboatKind::Torpedo, 3)])],
        7,
    );
    let p = plot(vec![
        every(VolleyPlot::default()),
        every(craft_plot(0, vec![order(1, CraftAction::Attack(0))])),
    ]);
    // PDS: a 5, no kill. To hit: 3, 2, 6 (two hits); damage 4 and 6.
    let rec = scripted_volley(&mut b, &p, &[5, 3, 2, 6, 4, 6]);
    let sap: Vec<Vec<u32>> = rec
        .events_of::<CraftRoll>()
        .map(|CraftRoll { sap, .. }| sap.clone())
        .collect();
    assert_eq!(craft_rolls(&rec), [(1, "torpedo attack", vec![3, 2, 6], vec![], 0)]);
    assert_eq!(sap, [vec![4, 6]]);
    assert_eq!(b.units[0].hull_lost, 10);
    assert_eq!(craft_left(&b, 1), 3);
}

/// Gatling gunboats (ft-rules §9.2, readings F41): six beam dice a boat
/// within 6 MU, two within 12, on the beam table with natural 6s rolling
/// again; two boats at 6 MU roll twelve dice, at 10 MU four.
#[test]
fn gatling_gunboats_roll_six_dice_a_boat_close_in_and_two_beyond() {
    let points = |faces: &[u8]| -> u32 { faces.iter().map(|f| beam_points(*f, 0) as u32).sum() };
    for (range, dice) in [(6, 12usize), (10, 4)] {
        let mut b = battle(
            vec![
                (0, vec![hulk("target", vec![])]),
                (1, vec![gunboats("saws", GunboatKind::Gatling, 2)]),
            ],
            range,
        );
        let p = plot(vec![
            every(VolleyPlot::default()),
            every(craft_plot(0, vec![order(1, CraftAction::Attack(0))])),
        ]);
        // The first dice: 4, 5, 6 (its extra die a 3), then ones.
        let mut script = vec![4, 5, 6];
        script.extend(std::iter::repeat_n(1, dice - 3));
        script.push(3);
        let rec = scripted_volley(&mut b, &p, &script);
        let rolls = craft_rolls(&rec);
        assert_eq!(rolls.len(), 1);
        assert_eq!(
            (rolls[0].1, rolls[0].2.len()),
            ("gunboat attack", dice),
            "at {range} MU"
        );
        let want = points(&script[..dice]) + points(&[3]);
        assert_eq!(want, 4);
        assert_eq!(b.units[0].hull_lost, want, "at {range} MU");
    }
}

/// A secondary close takes Gatling gunboats within 6 MU, where they roll
/// six dice a boat (F38, F41); beam gunboats already within their 12 MU stay.
#[test]
fn gatling_gunboats_close_to_six_beam_gunboats_stop_at_twelve() {
    let mut b = battle(
        vec![
            (0, vec![hulk("target", vec![])]),
            (1, vec![gunboats("saws", GunboatKind::Gatling, 1)]),
            (1, vec![gunboats("boats", GunboatKind::Beam, 1)]),
        ],
        10,
    );
    let close = Some(ManeuverOrder {
        target: 0,
        maneuver: Maneuver::Close,
    });
    let p = plot(vec![
        every(craft_plot(0, vec![])),
        first_only(VolleyPlot {
            after: close,
            ..VolleyPlot::default()
        }),
        first_only(VolleyPlot {
            after: close,
            ..VolleyPlot::default()
        }),
    ]);
    scripted_exchange(&mut b, &p, &[]);
    assert_eq!((b.ranges.get(0, 1), b.ranges.get(0, 2)), (1, 10));
    assert_eq!((cef_left(&b, 1), cef_left(&b, 2)), (5, 6));
}

/// K-gun gunboats (ft-rules §9.2, readings F42): a K-2 a boat on the
/// short-range projectile table (at 5-8 MU a 3+), then each hit's doubling
/// die: 2 armour-piercing points, 4 on a 1 or 2. The event shows the to-hit
/// faces, the doubling dice and the damage apart.
#[test]
fn k_gun_gunboats_roll_to_hit_then_double() {
    let mut b = battle(
        vec![
            (0, vec![hulk("target", vec![])]),
            (1, vec![gunboats("spikes", GunboatKind::KGun, 3)]),
        ],
        7,
    );
    let p = plot(vec![
        every(VolleyPlot::default()),
        every(craft_plot(0, vec![order(1, CraftAction::Attack(0))])),
    ]);
    // To hit: 3, 2, 6 (two hits); doubling dice 1 (4 points) and 5 (2).
    let rec = scripted_volley(&mut b, &p, &[3, 2, 6, 1, 5]);
    assert_eq!(craft_rolls(&rec), [(1, "k-gun attack", vec![3, 2, 6], vec![], 0)]);
    let extra: Vec<Vec<(u8, u32)>> = rec
        .events_of::<CraftRoll>()
        .map(|CraftRoll { k_gun, .. }| k_gun.clone())
        .collect();
    assert_eq!(extra, [vec![(1, 4), (5, 2)]]);
    assert_eq!(b.units[0].hull_lost, 6);

    // One boat at 3 MU (2+): no damage 1/6; 2 points 5/6 × 4/6; 4 points
    // 5/6 × 2/6, the doubling die at or under 2.
    let start = battle(
        vec![
            (0, vec![hulk("target", vec![])]),
            (1, vec![gunboats("spike", GunboatKind::KGun, 1)]),
        ],
        3,
    );
    let hit = (2..=6).count() as f64 / 6.0;
    let doubles = (1..=6u8).filter(|f| *f <= 2).count() as f64 / 6.0;
    let exact = [1.0 - hit, 0.0, hit * (1.0 - doubles), 0.0, hit * doubles];
    let mut seen = [0u64; 5];
    sample(&start, &p, &[], 0xF1_0042_0001, 12_000, |b| {
        seen[b.units[0].hull_lost as usize] += 1;
    });
    assert_distribution("one K-gun boat at 3 MU", &seen, &exact);
}

/// Rocket gunboats (ft-rules §9.2, readings F43): four rockets a boat,
/// 3+ to hit at 7-12 MU; each rocket that hits rolls a d6 read as 1d3
/// (1-2 → 1, 3-4 → 2, 5-6 → 3), one semi-armour-piercing hit. The rockets
/// are spent: the next Volley the squadron idles and pays no endurance,
/// and its record's `Rounds:` box is crossed off.
#[test]
fn rocket_gunboats_fire_four_rockets_a_boat_once() {
    let mut b = battle(
        vec![
            (0, vec![hulk("target", vec![])]),
            (1, vec![gunboats("hail", GunboatKind::Rocket, 1)]),
        ],
        7,
    );
    let p = plot(vec![
        every(VolleyPlot::default()),
        every(craft_plot(0, vec![order(1, CraftAction::Attack(0))])),
    ]);
    // To hit at 3+: 3, 2, 6, 1 (two hits); damage dice 1 (1 point), 6 (3).
    let rec = scripted_volley(&mut b, &p, &[3, 2, 6, 1, 1, 6]);
    assert_eq!(craft_rolls(&rec), [(1, "rocket attack", vec![3, 2, 6, 1], vec![], 0)]);
    let dice_and_points: Vec<Vec<(u8, u32)>> = rec
        .events_of::<CraftRoll>()
        .map(|CraftRoll { k_gun, .. }| k_gun.clone())
        .collect();
    assert_eq!(dice_and_points, [vec![(1, 1), (6, 3)]]);
    let sap: Vec<Vec<u32>> = rec
        .events_of::<CraftRoll>()
        .map(|CraftRoll { sap, .. }| sap.clone())
        .collect();
    assert_eq!(sap, [vec![1, 3]]);
    assert_eq!(b.units[0].hull_lost, 4);
    assert_eq!(cef_left(&b, 1), 5);

    // Volley 2: nothing left to fire, no die, no endurance.
    let mut rec = Recorder::default();
    let mut dice = Dice::from_faces(&[]);
    let p = checked(&b, &p);
    run_volley(&mut b, &p, 1, &mut dice, &mut rec, &mut Scratch::default());
    assert_eq!(dice.count_draws(), 0);
    assert_eq!(idles(&rec), [(1, "its rockets are spent")]);
    assert!(craft_rolls(&rec).is_empty());
    assert_eq!((b.units[0].hull_lost, cef_left(&b, 1)), (4, 5));

    // The record keeps it: `Rounds: -` written back, read again.
    let text = "Profile: FB1\n\nFighter-Group: hail\nCraft: O O O O O O\nGunboat: Rocket\nRounds: O\n\
                Status: Launched\nPosition-X: 1.0\nPosition-Y: 2.0\n";
    let parsed = gzf::parse(text, &ParseOptions::default());
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    let mut file = parsed.file;
    let gzf::Item::FighterGroup(g) = &mut file.items[0] else {
        panic!("a group")
    };
    assert_eq!(g.gunboat, Some(gzf::GunboatType::Rocket));
    b.units[1].write_back_group(g);
    let written = gzf::write(&file);
    assert!(written.contains("Gunboat:          Rocket\n"), "{written}");
    assert!(written.contains("Rounds:           -\n"), "{written}");
    assert_eq!(gzf::parse(&written, &ParseOptions::default()).file, file);
}

/// One rocket boat at 3 MU against an unarmoured, unscreened hull: k of
/// its four rockets hit (2+, binomial), each doing 1d3; with an advanced
/// screen (level 1) each rocket does one point less.
#[test]
fn rocket_gunboat_damage_matches_the_dice() {
    let p = plot(vec![
        every(VolleyPlot::default()),
        every(craft_plot(0, vec![order(1, CraftAction::Attack(0))])),
    ]);
    let hit = (2..=6).count() as f64 / 6.0;
    let choose = |n: usize, k: usize| (0..k).fold(1.0, |a, i| a * (n - i) as f64 / (i + 1) as f64);
    for (screen, name) in [(false, "no screen"), (true, "an advanced screen")] {
        // One rocket's damage, padded to the most four can do (12).
        let d3: Vec<f64> = (0..=12)
            .map(|v| {
                let points = |face: u8| face.div_ceil(2).saturating_sub(u8::from(screen));
                (1..=6u8).filter(|f| usize::from(points(*f)) == v).count() as f64 / 6.0
            })
            .collect();
        let mut exact = vec![0.0; 13];
        for k in 0..=4 {
            let pk = choose(4, k) * hit.powi(k as i32) * (1.0 - hit).powi(4 - k as i32);
            for (v, q) in dice_sum(&d3, k).iter().enumerate() {
                exact[v] += pk * q;
            }
        }
        let systems = if screen {
            vec![sys(SystemKind::AdvancedScreen, 0)]
        } else {
            vec![]
        };
        let start = battle(
            vec![
                (0, vec![hulk("target", systems)]),
                (1, vec![gunboats("hail", GunboatKind::Rocket, 1)]),
            ],
            3,
        );
        let mut seen = vec![0u64; 13];
        sample(&start, &p, &[], 0xF1_0043_0001, 12_000, |b| {
            seen[b.units[0].hull_lost as usize] += 1;
        });
        assert_distribution(&format!("one rocket boat at 3 MU, {name}"), &seen, &exact);
    }
}

/// Submunition gunboats (ft-rules §9.2, §4.1, readings F44): both packs
/// of a boat at once, each 3 beam dice within 6 MU and 2 within 12, BD*;
/// a level-2 standard screen does not stop them. The packs are spent: the
/// next Volley the squadron idles and pays no endurance.
#[test]
fn submunition_gunboats_fire_both_packs_once() {
    let points = |faces: &[u8]| -> u32 { faces.iter().map(|f| beam_points(*f, 0) as u32).sum() };
    for (range, dice) in [(6, 6usize), (10, 4)] {
        let mut b = battle(
            vec![
                (0, vec![hulk("target", screens(2))]),
                (1, vec![gunboats("sleet", GunboatKind::Submunition, 1)]),
            ],
            range,
        );
        let p = plot(vec![
            every(VolleyPlot::default()),
            every(craft_plot(0, vec![order(1, CraftAction::Attack(0))])),
        ]);
        // 4, 5, 6 (its extra die a 3), then ones: 1 + 1 + 2 + 0 points.
        let mut script = vec![4, 5, 6];
        script.extend(std::iter::repeat_n(1, dice - 3));
        script.push(3);
        let rec = scripted_volley(&mut b, &p, &script);
        let rolls = craft_rolls(&rec);
        assert_eq!(rolls.len(), 1);
        assert_eq!(
            (rolls[0].1, rolls[0].2.len(), rolls[0].3.clone()),
            ("submunition attack", dice, vec![3]),
            "at {range} MU"
        );
        let want = points(&script[..dice]) + points(&[3]);
        assert_eq!(want, 4);
        assert_eq!(b.units[0].hull_lost, want, "at {range} MU");

        let mut rec = Recorder::default();
        let mut none = Dice::from_faces(&[]);
        let p = checked(&b, &p);
        run_volley(&mut b, &p, 1, &mut none, &mut rec, &mut Scratch::default());
        assert_eq!(none.count_draws(), 0);
        assert_eq!(idles(&rec), [(1, "its submunition packs are spent")]);
        assert_eq!((b.units[0].hull_lost, cef_left(&b, 1)), (4, 5));
    }
}

/// One submunition boat at 10 MU rolls four beam dice: against standard
/// screens the beam table unscreened; behind an advanced screen (level 1)
/// the first die of each chain reads as at screen 1, extra dice unscreened.
#[test]
fn submunition_gunboat_damage_matches_the_dice() {
    let p = plot(vec![
        every(VolleyPlot::default()),
        every(craft_plot(0, vec![order(1, CraftAction::Attack(0))])),
    ]);
    const CAP: usize = 12;
    for (systems, screen, name) in [
        (screens(2), 0u8, "two standard screens"),
        (vec![sys(SystemKind::AdvancedScreen, 0)], 1, "an advanced screen"),
    ] {
        let start = battle(
            vec![
                (0, vec![hulk("target", systems)]),
                (1, vec![gunboats("sleet", GunboatKind::Submunition, 1)]),
            ],
            10,
        );
        let one = die_distribution(0, |f| beam_points(f, screen), |f| beam_points(f, 0), CAP);
        let exact = dice_sum(&one, 4);
        let mut seen = vec![0u64; CAP + 1];
        sample(&start, &p, &[], 0xF1_0044_0001, 12_000, |b| {
            seen[(b.units[0].hull_lost as usize).min(CAP)] += 1;
        });
        assert_distribution(&format!("one submunition boat at 10 MU, {name}"), &seen, &exact);
    }
}

/// A secondary close takes rocket and submunition gunboats within 6 MU,
/// where their rockets hit on 2+ and their packs roll three dice (F38,
/// F43, F44); once spent they no longer count (doctrine flies them home).
#[test]
fn rocket_and_submunition_gunboats_close_to_six() {
    for kind in [GunboatKind::Rocket, GunboatKind::Submunition] {
        let mut b = battle(
            vec![(0, vec![hulk("target", vec![])]), (1, vec![gunboats("boats", kind, 1)])],
            10,
        );
        let close = Some(ManeuverOrder {
            target: 0,
            maneuver: Maneuver::Close,
        });
        let p = plot(vec![
            every(craft_plot(0, vec![])),
            first_only(VolleyPlot {
                after: close,
                ..VolleyPlot::default()
            }),
        ]);
        scripted_exchange(&mut b, &p, &[]);
        assert_eq!((b.ranges.get(0, 1), cef_left(&b, 1)), (1, 5), "{kind:?}");
    }
}

/// Missile gunboats (ft-rules §9.2, §14 A27, readings F45): each boat's
/// salvo comes on target with a d6 capped at 4, in the point-defence step
/// as a ship's salvo; each missile left does 1d6 semi-armour-piercing. The
/// salvos are spent: the next Volley the squadron idles.
#[test]
fn missile_gunboats_launch_one_salvo_a_boat_capped_at_four() {
    let mut b = battle(
        vec![
            (0, vec![hulk("target", vec![])]),
            (1, vec![gunboats("darts", GunboatKind::Missile, 2)]),
        ],
        10,
    );
    let p = plot(vec![
        every(VolleyPlot::default()),
        every(craft_plot(0, vec![order(1, CraftAction::Attack(0))])),
    ]);
    // On target: 6 (capped at 4) and 2; damage 1, 2, 3, 4 and 5, 6.
    let rec = scripted_volley(&mut b, &p, &[6, 2, 1, 2, 3, 4, 5, 6]);
    let hits: Vec<(u32, Vec<u32>)> = rec
        .events_of::<MissileHits>()
        .filter_map(|e| match e {
            MissileHits {
                unit: 1,
                on_target,
                hits,
                ..
            } => Some((*on_target, hits.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(hits, [(4, vec![1, 2, 3, 4]), (2, vec![5, 6])]);
    assert!(craft_rolls(&rec).is_empty());
    assert_eq!(engaged(&rec), [(1, Some(0), "missile attack", 5)]);
    assert_eq!(b.units[0].hull_lost, 21);

    let mut rec = Recorder::default();
    let mut none = Dice::from_faces(&[]);
    let p = checked(&b, &p);
    run_volley(&mut b, &p, 1, &mut none, &mut rec, &mut Scratch::default());
    assert_eq!(none.count_draws(), 0);
    assert_eq!(idles(&rec), [(1, "its missiles are spent")]);
    assert_eq!((b.units[0].hull_lost, cef_left(&b, 1)), (21, 5));
}

/// One missile boat at a ship with a PDS: N = min(d6, 4) missiles on
/// target; the PDS (salvo column: 4-5 one, 6 two and again) kills up to
/// N; each missile left does 1d6.
#[test]
fn a_missile_gunboat_salvo_meets_point_defence() {
    let p = plot(vec![
        every(VolleyPlot::default()),
        every(craft_plot(0, vec![order(1, CraftAction::Attack(0))])),
    ]);
    const CAP: usize = 24;
    let d6: Vec<f64> = (0..=CAP)
        .map(|v| if (1..=6).contains(&v) { 1.0 / 6.0 } else { 0.0 })
        .collect();
    let mut exact = vec![0.0; CAP + 1];
    for face in 1..=6usize {
        let n = face.min(4);
        let kills = die_distribution(0, pds_kills, pds_kills, n);
        for (k, pk) in kills.iter().enumerate() {
            for (v, q) in dice_sum(&d6, n - k).iter().enumerate() {
                exact[v] += pk * q / 6.0;
            }
        }
    }
    let start = battle(
        vec![
            (0, vec![hulk("target", vec![sys(SystemKind::Pds, 6)])]),
            (1, vec![gunboats("dart", GunboatKind::Missile, 1)]),
        ],
        10,
    );
    let mut seen = vec![0u64; CAP + 1];
    sample(&start, &p, &[], 0xF1_0045_0001, 20_000, |b| {
        seen[b.units[0].hull_lost as usize] += 1;
    });
    assert_distribution("one missile boat at a PDS", &seen, &exact);
}

/// PDS gunboats (ft-rules §9.2, readings F46) riding with a ship roll two
/// PDS dice a boat at the threats to the ships of their Formation, on the
/// ship PDS's salvo column: a 6 kills two and rolls again, 4-5 kill one.
/// They pay one endurance for it, and refuse an order to attack.
#[test]
fn pds_gunboats_shoot_down_a_salvo_at_their_formation() {
    let mut b = battle(
        vec![
            (0, vec![hulk("target", vec![]), gunboats("guard", GunboatKind::Pds, 1)]),
            (
                1,
                vec![gunboats("darts", GunboatKind::Missile, 1), hulk("raider", vec![])],
            ),
        ],
        10,
    );
    let p = plot(vec![
        every(craft_plot(0, vec![order(1, CraftAction::Attack(3))])),
        every(craft_plot(0, vec![order(2, CraftAction::Attack(0))])),
    ]);
    // On target 4; the guard's first die 6 (two) and its extra die 4
    // (one), its second die 5 (the last): nothing gets through.
    let rec = scripted_volley(&mut b, &p, &[4, 6, 4, 5]);
    let pd: Vec<(UnitId, Vec<u8>, Vec<u8>, u32)> = rec
        .events_of::<PdRoll>()
        .map(
            |PdRoll {
                 unit,
                 faces,
                 reroll_faces,
                 kills,
                 ..
             }| (*unit, faces.clone(), reroll_faces.clone(), *kills),
        )
        .collect();
    assert_eq!(pd, [(1, vec![6], vec![4], 3), (1, vec![5], vec![], 1)]);
    assert_eq!(b.units[0].hull_lost, 0);
    assert_eq!(cef_left(&b, 1), 5);
    assert_eq!(
        idles(&rec),
        [(1, "PDS gunboats defend their Formation; they attack nothing")]
    );
}

/// One missile boat's salvo (min(d6, 4) on target) at a ship guarded by
/// one PDS boat: two PDS dice kill min(K1 + K2, N); each missile left 1d6.
#[test]
fn a_pds_gunboat_thins_a_salvo_as_the_dice_say() {
    let p = plot(vec![
        every(VolleyPlot::default()),
        every(craft_plot(0, vec![order(2, CraftAction::Attack(0))])),
    ]);
    const CAP: usize = 24;
    let d6: Vec<f64> = (0..=CAP)
        .map(|v| if (1..=6).contains(&v) { 1.0 / 6.0 } else { 0.0 })
        .collect();
    let mut exact = vec![0.0; CAP + 1];
    for face in 1..=6usize {
        let n = face.min(4);
        let one = die_distribution(0, pds_kills, pds_kills, n);
        let kills = convolve(&one, &one);
        for (k, pk) in kills.iter().enumerate() {
            for (v, q) in dice_sum(&d6, n - k).iter().enumerate() {
                exact[v] += pk * q / 6.0;
            }
        }
    }
    let start = battle(
        vec![
            (0, vec![hulk("target", vec![]), gunboats("guard", GunboatKind::Pds, 1)]),
            (1, vec![gunboats("dart", GunboatKind::Missile, 1)]),
        ],
        10,
    );
    let mut seen = vec![0u64; CAP + 1];
    sample(&start, &p, &[], 0xF1_0046_0001, 20_000, |b| {
        seen[b.units[0].hull_lost as usize] += 1;
    });
    assert_distribution("one missile boat at a ship and a PDS boat", &seen, &exact);
}

/// A scattergun at a gunboat squadron: one beam die, each scoring die
/// kills one boat (§3.7 table): a 4 kills one.
#[test]
fn a_scattergun_at_gunboats_rolls_one_beam_die() {
    let ship = hulk("scatter", vec![sys(SystemKind::Scattergun, 6)]);
    let mut b = battle(
        vec![(0, vec![ship]), (1, vec![gunboats("boats", GunboatKind::Beam, 3)])],
        12,
    );
    let p = plot(vec![
        every(VolleyPlot {
            point_defence: vec![PdOrder {
                unit: 0,
                weapon: 0,
                defend: None,
            }],
            ..VolleyPlot::default()
        }),
        every(craft_plot(0, vec![order(1, CraftAction::Attack(0))])),
    ]);
    // Scattergun 4: one boat. Two boats: four dice 1, 1, 1, 1.
    scripted_volley(&mut b, &p, &[4, 1, 1, 1, 1]);
    assert_eq!(craft_left(&b, 1), 2);
}

/// A scattergun is its own area-defence mount (ft-rules §5.1 "own ADFC",
/// reading O20): with no ADFC aboard it still defends another Unit of its
/// Formation. The 4 kills four of six fighters; the two left roll 5 and 4
/// on the beam table: 2 points on the defended Unit.
#[test]
fn a_scattergun_defends_another_unit_without_an_adfc() {
    let guard = hulk("guard", vec![sys(SystemKind::Scattergun, 0)]);
    let mut b = battle(
        vec![(0, vec![guard, hulk("ward", vec![])]), (1, vec![standard("wing", 6)])],
        6,
    );
    let p = plot(vec![
        every(VolleyPlot {
            point_defence: vec![PdOrder {
                unit: 0,
                weapon: 0,
                defend: Some(1),
            }],
            ..VolleyPlot::default()
        }),
        every(craft_plot(0, vec![order(2, CraftAction::Attack(1))])),
    ]);
    scripted_volley(&mut b, &p, &[4, 5, 4]);
    assert_eq!(craft_left(&b, 2), 2);
    assert_eq!(b.units[1].hull_lost, 2);
    assert_eq!(b.units[0].systems[0].rounds_left(), 0, "the scattergun is spent");
}

/// A K-1 in point-defence mode fires as a PDS at −1 (ft-rules §5.1,
/// readings W41): a natural 6 reads 5, one kill, and still rerolls; the
/// reroll takes no DRM (a 4 kills one). Four fighters are left; their four
/// 1s score nothing.
#[test]
fn a_k1_defends_as_a_pds_at_minus_one() {
    let k1 = SystemKind::KGun {
        class: 1,
        range: TorpedoRange::Standard,
    };
    let mut b = battle(
        vec![
            (0, vec![hulk("kinetic", vec![sys(k1.clone(), 6)])]),
            (1, vec![standard("wing", 6)]),
        ],
        6,
    );
    let p = plot(vec![
        every(VolleyPlot {
            point_defence: vec![PdOrder {
                unit: 0,
                weapon: 0,
                defend: None,
            }],
            ..VolleyPlot::default()
        }),
        every(craft_plot(0, vec![order(1, CraftAction::Attack(0))])),
    ]);
    scripted_volley(&mut b, &p, &[6, 4, 1, 1, 1, 1]);
    assert_eq!(craft_left(&b, 1), 4);
    // Against heavy fighters the K-1 stays at −1 (A35), not −2: a natural 5
    // reads 4 and kills one (at −2 it would read 3 and miss).
    let heavy = fighters("heavy", FighterBase::Standard, Some(FighterModifier::Heavy), 6);
    let mut b = battle(vec![(0, vec![hulk("kinetic", vec![sys(k1, 6)])]), (1, vec![heavy])], 6);
    scripted_volley(&mut b, &p, &[5, 1, 1, 1, 1, 1]);
    assert_eq!(craft_left(&b, 1), 5);
}

/// Fighters at gunboats (reading F24): attack-run dice (attack +1), each
/// scoring die kills a boat, losses at the Damage step; the squadron is
/// not engaged and makes its own attack with every boat.
#[test]
fn fighters_attack_gunboats_with_run_dice() {
    let mut b = battle(
        vec![
            (
                0,
                vec![hulk("target", vec![]), fighters("a", FighterBase::Attack, None, 2)],
            ),
            (1, vec![gunboats("boats", GunboatKind::Beam, 2)]),
        ],
        6,
    );
    let p = plot(vec![
        every(craft_plot(0, vec![order(1, CraftAction::Dogfight(2))])),
        every(craft_plot(0, vec![order(2, CraftAction::Attack(0))])),
    ]);
    // The fighters: 3 + 1 = 4 kills a boat, 2 + 1 = 3 does not. The boats,
    // both still there: four dice 1, 1, 1, 4: one point.
    let rec = scripted_volley(&mut b, &p, &[3, 2, 1, 1, 1, 4]);
    assert_eq!(
        craft_rolls(&rec),
        [
            (1, "attack on gunboats", vec![3, 2], vec![], 1),
            (2, "gunboat attack", vec![1, 1, 1, 4], vec![], 0)
        ]
    );
    assert_eq!(craft_left(&b, 2), 1);
    assert_eq!(b.units[0].hull_lost, 1);
}

// ---- victory with small craft (reading F23) -----------------------------------

/// A side that had ships is annihilated when only its small craft are left;
/// a side of small craft only (gunboats) fights on while it has craft.
#[test]
fn small_craft_hold_the_field_only_for_a_side_without_ships() {
    use fam::engine::victory::{Outcome, Reason, Victory, decide, side_masses};
    let victory = Victory {
        morale_percent: None,
        ..Victory::default()
    };
    // Gunboats against a ship: both sides fight on.
    let mut b = battle(
        vec![
            (0, vec![hulk("ship", vec![])]),
            (1, vec![gunboats("boats", GunboatKind::Beam, 6)]),
        ],
        12,
    );
    let start = side_masses(&b);
    assert_eq!(decide(&b, &start, &victory, 1), None);
    // The gunboats gone: the ship's side wins.
    b.units[1].destroyed = true;
    assert_eq!(
        decide(&b, &start, &victory, 1),
        Some(Outcome::Winner {
            side: 0,
            reason: Reason::Annihilation
        })
    );
    // A carrier's side with only its fighters left loses to the other ship.
    let mut b = battle(
        vec![
            (0, vec![hulk("carrier", vec![]), standard("wing", 6)]),
            (1, vec![hulk("ship", vec![])]),
        ],
        12,
    );
    let start = side_masses(&b);
    assert_eq!(decide(&b, &start, &victory, 1), None);
    b.units[0].destroyed = true;
    assert_eq!(
        decide(&b, &start, &victory, 1),
        Some(Outcome::Winner {
            side: 1,
            reason: Reason::Annihilation
        })
    );
}

// ---- light fighters (readings F40) -------------------------------------------------

/// Every attack on light fighters takes +1 on its first die (ft-rules
/// §9.1): a PDS at a one-craft light group kills with a natural 3 or more
/// (2/3; with one Evasion reroll, which reads unmodified, 1 − 1/3 · 1/2);
/// a class-1 beam in PD mode with a natural 4 or more; a dogfight die at a
/// group of eight light fighters reads the PDS table one higher; a ship's
/// beam at the group kills on a natural 5 or 6 (a modified 6).
#[test]
fn attacks_on_light_fighters_take_plus_one() {
    let lf = |n| light("l", FighterBase::Interceptor, None, n);
    let pds = || hulk("pds", vec![sys(SystemKind::Pds, 6)]);
    let beam1 = || hulk("beam", vec![sys(SystemKind::Beam { class: 1 }, 6)]);
    // (defender, Evasion Points, first-die table, exact P(kill))
    let first_miss = |kills: fn(u8) -> usize| (1..=6u8).filter(|f| kills(modified(*f, 1)) == 0).count() as f64 / 6.0;
    let pds_first = first_miss(pds_kills);
    let beam_first = first_miss(beam1_kills);
    let cases: Vec<(Unit, u32, f64)> = vec![
        (pds(), 0, 1.0 - pds_first),
        (pds(), 1, 1.0 - pds_first * 0.5),
        (beam1(), 0, 1.0 - beam_first),
    ];
    assert!(abs_diff_eq!(cases[0].2, 2.0 / 3.0, epsilon = 1e-12));
    assert!(abs_diff_eq!(cases[1].2, 5.0 / 6.0, epsilon = 1e-12));
    assert!(abs_diff_eq!(cases[2].2, 1.0 / 2.0, epsilon = 1e-12));
    let n = cases.len();
    let mut formations: Vec<(usize, Vec<Unit>)> = cases.iter().map(|c| (0, vec![c.0.clone()])).collect();
    formations.push((1, (0..n).map(|_| lf(1)).collect()));
    let start = battle(formations, 6);
    let mut plots: Vec<Option<FormationPlot>> = Vec::new();
    let mut prefix = Vec::new();
    for (i, (ship, ep, _)) in cases.iter().enumerate() {
        let mut v = craft_plot(u32::from(*ep > 0), vec![]);
        if matches!(ship.systems[0].kind, SystemKind::Beam { .. }) {
            v.point_defence = vec![PdOrder {
                unit: i,
                weapon: 0,
                defend: None,
            }];
        }
        plots.push(every(v));
        if *ep == 1 {
            prefix.push(4);
        }
    }
    plots.push(every(craft_plot(
        0,
        (0..n).map(|i| order(n + i, CraftAction::Attack(i))).collect(),
    )));
    let p = plot(plots);
    let samples = 12_000;
    let mut killed = vec![0u64; n];
    sample(&start, &p, &prefix, 0xF1_0040, samples, |b| {
        for (i, k) in killed.iter_mut().enumerate() {
            *k += u64::from(craft_left(b, n + i) == 0);
        }
    });
    for (i, (_, _, want)) in cases.iter().enumerate() {
        assert_rate(
            &format!("PD case {i} at a light fighter"),
            killed[i],
            samples as u64,
            *want,
        );
    }

    // A standard fighter's dogfight die at eight light fighters: DRM +1.
    let start = battle(vec![(0, vec![lf(8)]), (1, vec![standard("s", 1)])], 6);
    let p = plot(vec![
        every(craft_plot(0, vec![])),
        every(craft_plot(0, vec![order(1, CraftAction::Dogfight(0))])),
    ]);
    let mut lost = vec![0u64; 9];
    sample(&start, &p, &[], 0xF1_0041, 15_000, |b| {
        lost[(8 - craft_left(b, 0)) as usize] += 1
    });
    let exact = die_distribution(1, pds_kills, pds_kills, 8);
    assert_distribution("one dogfight die at light fighters", &lost, &exact);

    // A ship's class-2 beam at a light group: one die, a modified 6 kills.
    let ship = hulk(
        "gunship",
        vec![sys(SystemKind::FireControl, 0), sys(SystemKind::Beam { class: 2 }, 3)],
    );
    let start = battle(vec![(0, vec![ship]), (1, vec![lf(8)])], 6);
    let p = plot(vec![
        every(VolleyPlot {
            fire: vec![fire_at_group(0, 0, 1, 1, &[1])],
            ..VolleyPlot::default()
        }),
        every(craft_plot(0, vec![])),
    ]);
    let want = (1..=6u8).filter(|f| modified(*f, 1) == 6).count() as f64 / 6.0;
    let mut kills = 0u64;
    sample(&start, &p, &[], 0xF1_0042, 12_000, |b| {
        kills += u64::from(craft_left(b, 1) == 7)
    });
    assert_rate("ship beam at a light group", kills, 12_000, want);
}
