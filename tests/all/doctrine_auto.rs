//! The default doctrine, rule by rule (docs/doctrine.md, "Weapons",
//! "Giving up" and "The default doctrine"; readings D2, D7-D11, D17-D20):
//! each test builds a battle from the ships in `ssd/`, sets ranges and
//! damage by hand, and checks one decision against the rule as the docs
//! state it, with the expected values worked out here from the rules'
//! tables.

use approx::{abs_diff_eq, assert_abs_diff_eq};
use fam::diag::SourceFile;
use fam::engine::checked::CheckedPlot;
use fam::engine::doctrine::assess::{Arsenal, DieTables, missiles, submunitions, sustained};
use fam::engine::doctrine::decide::{Choice, Context, Withdrawal, cannot_fight, decide};
use fam::engine::doctrine::plan::Stance;
use fam::engine::doctrine::{
    Doctrine, EvasionSplit, Movement, Ordnance, PdMode, Selector, WithdrawWhen, default_formation_plot,
    doctrine_formation_plot, standing_plot,
};
use fam::engine::plot::{FormationId, FormationPlot, Maneuver, ManeuverOrder, UnitId};
use fam::engine::state::{Battle, SysState};
use fam::engine::victory::Victory;
use fam::gzf::SystemKind;
use fam::orders::Loaded;

use crate::orders_write::must_build;
use crate::support::repo;

// ---- Helpers ----------------------------------------------------------------

fn read_ssd(p: &str) -> Result<SourceFile, String> {
    std::fs::read_to_string(repo().join("ssd").join(p))
        .map(|t| SourceFile::new(p, t))
        .map_err(|e| e.to_string())
}

fn load(scenario: &str) -> Loaded {
    must_build("test scenario", scenario, &[], &mut read_ssd)
}

/// A battle of Ilse's Formations against Marek's, each `(name, ships)`,
/// every pair of Formations `range` MU apart; `extra` is appended.
fn battle(ilse: &[(&str, &[&str])], marek: &[(&str, &[&str])], range: u32, extra: &str) -> Loaded {
    let names = |fs: &[(&str, &[&str])]| fs.iter().map(|(n, _)| format!("{n:?}")).collect::<Vec<_>>().join(", ");
    let mut text = format!(
        "gzf = [\"meridian-compact.gzf\", \"kestrel-reach.gzf\", \"tessaly-carriers.gzf\"]\nstart_range = {range}\n\n[sides]\nIlse = [{}]\nMarek = [{}]\n\n[formations]\n",
        names(ilse),
        names(marek)
    );
    for (n, ships) in ilse.iter().chain(marek) {
        let ships: Vec<String> = ships.iter().map(|s| format!("{s:?}")).collect();
        text.push_str(&format!("{n:?} = [{}]\n", ships.join(", ")));
    }
    text.push_str(extra);
    load(&text)
}

fn formation(b: &Battle, name: &str) -> FormationId {
    b.formations.iter().position(|f| f.name == name).unwrap()
}

fn unit(b: &Battle, name: &str) -> UnitId {
    b.units.iter().position(|u| u.name == name).unwrap()
}

/// System numbers (0-based) of Unit `u` whose kind `pick` accepts.
fn systems(b: &Battle, u: UnitId, pick: impl Fn(&SystemKind) -> bool) -> Vec<usize> {
    (0..b.units[u].systems.len())
        .filter(|&s| pick(&b.units[u].systems[s].kind))
        .collect()
}

fn beams_of_class(b: &Battle, u: UnitId, class: u8) -> Vec<usize> {
    systems(b, u, |k| *k == SystemKind::Beam { class })
}

fn is_ordnance(k: &SystemKind) -> bool {
    matches!(
        k,
        SystemKind::Sml | SystemKind::Smr | SystemKind::Missile { .. } | SystemKind::SubmunitionPack
    )
}

/// Every Formation's arsenal, as the doctrine sums them up.
fn arsenals(b: &Battle) -> Vec<Arsenal> {
    (0..b.formations.len()).map(|f| Arsenal::of(b, f)).collect()
}

/// What Formation `f` decides under doctrine `d` (default victory rules).
fn choose(b: &Battle, f: FormationId, d: &Doctrine) -> Choice {
    choose_in(b, &Victory::default(), f, d)
}

/// What Formation `f` decides under doctrine `d` and `victory`.
fn choose_in(b: &Battle, victory: &Victory, f: FormationId, d: &Doctrine) -> Choice {
    let tables = DieTables::new();
    let arsenals = arsenals(b);
    let live = fam::engine::doctrine::in_fight(b);
    let enemies = fam::engine::doctrine::enemy_lists(b, &live);
    let ctx = Context {
        battle: b,
        victory,
        tables: &tables,
        arsenals: &arsenals,
        live: &live,
        enemies: (&enemies.0, &enemies.1),
        nearest: &[],
        aims: &[],
        reaches: &[],
        craft: &[],
    };
    decide(&ctx, f, d)
}

fn plot(b: &Battle, f: FormationId, d: &Doctrine) -> FormationPlot {
    doctrine_formation_plot(b, f, d).expect("a Formation in the fight has a plot")
}

/// The weapons Unit `u` fires in each Volley, with every Fire Control.
fn fired(p: &FormationPlot, u: UnitId) -> [Vec<usize>; 3] {
    let w = |v: usize| {
        let mut all: Vec<usize> = p.volleys[v]
            .fire
            .iter()
            .filter(|o| o.unit == u)
            .flat_map(|o| o.weapons.clone())
            .collect();
        all.sort_unstable();
        all
    };
    [w(0), w(1), w(2)]
}

fn auto() -> Doctrine {
    Doctrine::default()
}

// ---- Expected damage worked out from the rules' tables ----------------------

/// The beam table (ft-rules §1.2): damage of a die reading `face` after its
/// DRM, against screen level `screen`.
fn beam_table(face: i32, screen: usize) -> f64 {
    match (face.clamp(1, 6), screen) {
        (6, 2) => 1.0,
        (6, _) => 2.0,
        (5, _) => 1.0,
        (4, 0) => 1.0,
        _ => 0.0,
    }
}

/// A reroll die is read unscreened without DRM and rerolls again on a 6:
/// m = (1 + 1 + 2)/6 + m/6.
fn reroll_mean() -> f64 {
    (1.0 + 1.0 + 2.0) / 6.0 / (1.0 - 1.0 / 6.0)
}

/// Mean damage of one beam die at a DRM of −`penalty` against `screen`: a
/// natural 6 rerolls whatever the DRM.
fn die_mean(penalty: usize, screen: usize) -> f64 {
    (1..=6)
        .map(|face| beam_table(face - penalty as i32, screen) + if face == 6 { reroll_mean() } else { 0.0 })
        .sum::<f64>()
        / 6.0
}

/// Chance of each number of Evasion Points from `n` dice (1-3 none, 4-5
/// one, 6 two).
fn points(n: u32) -> Vec<f64> {
    let mut p = vec![1.0];
    for _ in 0..n {
        let mut next = vec![0.0; p.len() + 2];
        for (k, pk) in p.iter().enumerate() {
            next[k] += pk * 3.0 / 6.0;
            next[k + 1] += pk * 2.0 / 6.0;
            next[k + 2] += pk / 6.0;
        }
        p = next;
    }
    p
}

/// A beam die's mean against a Formation rolling `n` Evasion dice whose
/// mass is behind screens 0, 1, 2 in the shares `screens`, for a weapon
/// whose arcs ignore `ignored` Evasion Points.
fn beam_die(n: u32, ignored: usize, screens: [f64; 3]) -> f64 {
    points(n)
        .iter()
        .enumerate()
        .map(|(k, pk)| {
            pk * (0..3)
                .map(|s| screens[s] * die_mean(k.saturating_sub(ignored), s))
                .sum::<f64>()
        })
        .sum()
}

/// Evasion Points a weapon's arcs ignore (readings E8: 3-4 arcs one, 5-6 two).
fn ignored(arcs: u32) -> usize {
    match arcs {
        0..=2 => 0,
        3 | 4 => 1,
        _ => 2,
    }
}

/// Beam dice of a class-`class` battery at `range` (12 MU bands, closed
/// above; 0 MU is band 1).
fn beam_dice(class: u32, range: u32) -> u32 {
    class.saturating_sub(range.div_ceil(12).max(1) - 1)
}

// ---- 1. Expected damage (assess) ------------------------------------------

/// docs/doctrine.md, "The default doctrine" 1: a beam die's mean is read
/// off the beam table (0.8 unscreened; 2.8/6 at −1 or behind a level-2
/// screen; (1 + 2 + 0.8)/6 behind level 1), averaged over the Evasion
/// Points the target's dice may roll, less what the weapon's arcs ignore.
#[test]
fn a_beam_die_means_what_the_beam_table_reads() {
    assert_abs_diff_eq!(reroll_mean(), 0.8, epsilon = 1e-9);
    assert_abs_diff_eq!(die_mean(0, 0), 0.8, epsilon = 1e-9);
    assert_abs_diff_eq!(die_mean(1, 0), 2.8 / 6.0, epsilon = 1e-9);
    assert_abs_diff_eq!(die_mean(0, 2), 2.8 / 6.0, epsilon = 1e-9);
    assert_abs_diff_eq!(die_mean(0, 1), (1.0 + 2.0 + 0.8) / 6.0, epsilon = 1e-9);
    // One Evasion die: no point 1/2, one 1/3, two 1/6.
    assert!(
        abs_diff_eq!(points(1)[0], 0.5, epsilon = 1e-9)
            && abs_diff_eq!(points(1)[1], 1.0 / 3.0, epsilon = 1e-9)
            && abs_diff_eq!(points(1)[2], 1.0 / 6.0, epsilon = 1e-9)
    );

    let tables = DieTables::new();
    for n in 0..=6u32 {
        assert!(
            abs_diff_eq!(tables.evasion_points(n), f64::from(n) * 2.0 / 3.0, epsilon = 1e-9),
            "{n} Evasion dice average two thirds of a point each"
        );
    }
    // One class-1 battery (one die to 12 MU) by the Evasion Points its arcs
    // ignore, against every screen and every number of Evasion dice.
    for ign in 0..3 {
        let mut one = Arsenal::default();
        one.beams[1][ign] = 1;
        for (screens, what) in [
            ([1.0, 0.0, 0.0], "unscreened"),
            ([0.0, 1.0, 0.0], "level 1"),
            ([0.0, 0.0, 1.0], "level 2"),
            ([0.25, 0.25, 0.5], "mixed by mass"),
        ] {
            let target = Arsenal {
                screens,
                ..Arsenal::default()
            };
            for n in 0..=4 {
                let got = sustained(&tables, &one, &target, 12, n);
                let want = beam_die(n, ign, screens);
                assert!(
                    abs_diff_eq!(got, want, epsilon = 1e-9),
                    "{what}, {n} Evasion dice, {ign} ignored: {got} against {want}"
                );
            }
            assert_eq!(sustained(&tables, &one, &target, 13, 0), 0.0, "class 1 reaches 12 MU");
        }
    }
    // The worked values: unscreened with no Evasion 0.8; a level-2 screen
    // 2.8/6; level 1 3.8/6. At −1: against one Evasion die a 3-arc battery
    // ignores the first point, so only a roll of 6 (two points, a sixth of
    // the time) leaves −1: the doctrine's mean less 5/6 of 0.8, times 6, is
    // the mean at −1, 2.8/6. Against a battery that ignores nothing: half
    // the time 0.8, a third at −1, a sixth at −2 (a 6 reads 4 and rerolls:
    // 1.8/6).
    let at = |ignores: usize, screens: [f64; 3], n: u32| {
        let mut one = Arsenal::default();
        one.beams[1][ignores] = 1;
        let t = Arsenal {
            screens,
            ..Arsenal::default()
        };
        sustained(&tables, &one, &t, 6, n)
    };
    let (open, level1, level2) = ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]);
    assert_abs_diff_eq!(at(0, open, 0), 0.8, epsilon = 1e-9);
    assert_abs_diff_eq!(at(0, level2, 0), 2.8 / 6.0, epsilon = 1e-9);
    assert_abs_diff_eq!(at(0, level1, 0), 3.8 / 6.0, epsilon = 1e-9);
    assert_abs_diff_eq!((at(1, open, 1) - 5.0 / 6.0 * 0.8) * 6.0, 2.8 / 6.0, epsilon = 1e-9);
    assert_abs_diff_eq!(
        at(0, open, 1),
        0.5 * 0.8 + (2.8 / 6.0) / 3.0 + (1.8 / 6.0) / 6.0,
        epsilon = 1e-9
    );
}

/// A Formation's sustained fire at a range is the sum over its working
/// beams of the dice each rolls in its 12 MU band times the mean of a die
/// against the target (its screens by mass, a third of its thrust in
/// Evasion, the Evasion Points each battery's arcs ignore); Units without
/// a working Fire Control add nothing.
#[test]
fn sustained_fire_is_the_hand_sum_over_bands() {
    let l = battle(
        &[("Lancers", &["MCS Clear Heading", "MCS Unhurried Tide"])],
        &[("Wardens", &["KRD Ridge Warden", "KRD Long Watch"])],
        60,
        "",
    );
    let mut b = l.battle;
    let (lancers, wardens) = (formation(&b, "Lancers"), formation(&b, "Wardens"));
    let (warden, watch, tide) = (
        unit(&b, "KRD Ridge Warden"),
        unit(&b, "KRD Long Watch"),
        unit(&b, "MCS Unhurried Tide"),
    );
    let tables = DieTables::new();
    // The target: 40 mass unscreened (Ridge Warden), 60 mass behind one
    // screen (Long Watch); Formation Thrust 6, a third of it in Evasion.
    let theirs = Arsenal::of(&b, wardens);
    assert_eq!(theirs.screens, [0.4, 0.6, 0.0]);
    assert_eq!(theirs.thrust, 6);
    let hull_and_armour = |u: UnitId| b.units[u].hull_left() + b.units[u].armour_left();
    assert_eq!(theirs.durability, hull_and_armour(warden) + hull_and_armour(watch));

    // Our beams, by class and arcs, read from the records.
    let hand = |b: &Battle, range: u32, evasion: u32| -> f64 {
        let mut sum = 0.0;
        for &u in &b.formations[lancers].units {
            let unit = &b.units[u];
            if !unit
                .systems
                .iter()
                .any(|s| s.kind == SystemKind::FireControl && s.operational())
            {
                continue;
            }
            for s in unit.systems.iter().filter(|s| s.operational()) {
                match s.kind {
                    SystemKind::Beam { class } => {
                        sum += f64::from(beam_dice(u32::from(class), range))
                            * beam_die(evasion, ignored(s.arcs), theirs.screens);
                    }
                    // The destroyer's needle beam: one die to 12 MU, 4+
                    // scores one (the Evasion DRM applies, its one arc
                    // ignores nothing).
                    SystemKind::NeedleBeam if range <= 12 => {
                        sum += points(evasion)
                            .iter()
                            .enumerate()
                            .map(|(k, p)| p * (1..=6).filter(|&f| f - k as i32 >= 4).count() as f64 / 6.0)
                            .sum::<f64>();
                    }
                    _ => {}
                }
            }
        }
        sum
    };
    let ours = Arsenal::of(&b, lancers);
    // Clear Heading: Class 3 and two Class 2 on three arcs each, two Class
    // 1 on six; Unhurried Tide: Class 3 on one arc, two Class 2 on three.
    assert_eq!(ours.beams[3], [1, 1, 0]);
    assert_eq!(ours.beams[2], [0, 4, 0]);
    assert_eq!(ours.beams[1], [0, 0, 2]);
    assert_eq!(ours.needles, [1, 0, 0]);
    for range in [0, 6, 12, 13, 18, 24, 25, 30, 36, 37, 60] {
        let got = sustained(&tables, &ours, &theirs, range, 2);
        let want = hand(&b, range, 2);
        assert!(
            abs_diff_eq!(got, want, epsilon = 1e-9),
            "{range} MU: {got} against {want}"
        );
    }
    assert_eq!(
        sustained(&tables, &ours, &theirs, 37, 2),
        0.0,
        "nothing reaches past 36 MU"
    );
    // The destroyer's only Fire Control lost: its weapons drop out.
    let fcs = systems(&b, tide, |k| *k == SystemKind::FireControl);
    assert_eq!(fcs.len(), 1);
    b.units[tide].systems[fcs[0]].state = SysState::Destroyed;
    let fewer = Arsenal::of(&b, lancers);
    assert_eq!(fewer.beams[3], [0, 1, 0]);
    assert_eq!(fewer.needles, [0, 0, 0]);
    for range in [6, 24, 36] {
        let got = sustained(&tables, &fewer, &theirs, range, 2);
        assert!(
            abs_diff_eq!(got, hand(&b, range, 2), epsilon = 1e-9),
            "{range} MU without the destroyer"
        );
        assert!(got < sustained(&tables, &ours, &theirs, range, 2));
    }
}

/// A pulse torpedo hits on the projectile table of its band (2+ to 6 in
/// 6 MU bands; long range 9 MU, short 4 MU), the needed number raised by the
/// Evasion DRM (its one arc ignores nothing), and scores a d6 (3.5);
/// screens do not stop it. Submunition packs roll 3, 2, 1 beam dice to 6,
/// 12, 18 MU, screens ignored.
#[test]
fn a_pulse_torpedo_scores_its_chance_to_hit_times_a_d6_at_each_band() {
    let l = battle(
        &[("Ember", &["MCS Patient Ember"])],
        &[("Watch", &["KRD Long Watch"])],
        60,
        "",
    );
    let b = l.battle;
    let tables = DieTables::new();
    let ours = Arsenal::of(&b, formation(&b, "Ember"));
    assert_eq!(ours.torpedoes[0], [1, 0, 0], "a standard torpedo on one arc");
    let torpedo = Arsenal {
        torpedoes: ours.torpedoes,
        ..Arsenal::default()
    };
    let hit = |needed: u32, n: u32| -> f64 {
        points(n)
            .iter()
            .enumerate()
            .map(|(k, p)| {
                p * (1..=6i32)
                    .filter(|&f| (f - k as i32).clamp(1, 6) >= needed as i32)
                    .count() as f64
                    / 6.0
            })
            .sum()
    };
    for screens in [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]] {
        let target = Arsenal {
            screens,
            ..Arsenal::default()
        };
        for n in [0, 1, 2] {
            for range in 0..=32u32 {
                let band = range.div_ceil(6).max(1);
                let want = if band <= 5 { hit(band + 1, n) * 3.5 } else { 0.0 };
                let got = sustained(&tables, &torpedo, &target, range, n);
                assert!(
                    abs_diff_eq!(got, want, epsilon = 1e-9),
                    "{range} MU, {n} Evasion dice: {got} against {want}"
                );
            }
        }
        // With no Evasion: 5/6, 4/6 … 1/6 of 3.5 in bands 1 to 5.
        for (range, sixths) in [(6, 5.0), (12, 4.0), (18, 3.0), (24, 2.0), (30, 1.0), (31, 0.0)] {
            assert_abs_diff_eq!(
                sustained(&tables, &torpedo, &target, range, 0),
                sixths / 6.0 * 3.5,
                epsilon = 1e-9
            );
        }
    }
    // The variants: long range in 9 MU bands (to 45), short in 4 (to 20).
    let target = Arsenal {
        screens: [1.0, 0.0, 0.0],
        ..Arsenal::default()
    };
    for (variant, width) in [(1, 9), (2, 4)] {
        let mut t = Arsenal::default();
        t.torpedoes[variant][0] = 1;
        for range in 0..=50u32 {
            let band = range.div_ceil(width).max(1);
            let want = if band <= 5 { hit(band + 1, 1) * 3.5 } else { 0.0 };
            assert!(
                abs_diff_eq!(sustained(&tables, &t, &target, range, 1), want, epsilon = 1e-9),
                "variant {variant} at {range}"
            );
        }
    }
    // Submunitions: beam dice read unscreened, by 6 MU band.
    let packs = Arsenal {
        submunitions: [2, 0, 0],
        ..Arsenal::default()
    };
    for (range, dice) in [(6, 3.0), (12, 2.0), (18, 1.0), (19, 0.0)] {
        assert_abs_diff_eq!(
            submunitions(&tables, &packs, range, 1),
            2.0 * dice * beam_die(1, 0, [1.0, 0.0, 0.0]),
            epsilon = 1e-9
        );
    }
}

/// A salvo puts d6 missiles on target (3.5) and each scores d6 (3.5): 3.5 ×
/// 3.5 a salvo with no point defence; a heavy missile 3d6 = 10.5. Point
/// defence takes its kills off every salvo (0.8 a PDS die, shared by the
/// attacks on its Unit; Evasion rerolls missed PD dice) and each PD die
/// kills a heavy missile a third of the time.
#[test]
fn missiles_score_three_and_a_half_squared_a_salvo_and_fall_with_point_defence() {
    let tables = DieTables::new();
    let bare = Arsenal {
        ships: 1,
        screens: [0.0, 0.0, 1.0],
        ..Arsenal::default()
    };
    assert_abs_diff_eq!(missiles(&tables, 1.0, 0.0, &bare, 0, false), 3.5 * 3.5, epsilon = 1e-9);
    assert!(
        abs_diff_eq!(
            missiles(&tables, 3.0, 0.0, &bare, 2, true),
            3.0 * 3.5 * 3.5,
            epsilon = 1e-9
        ),
        "nothing to reroll"
    );
    assert_abs_diff_eq!(missiles(&tables, 0.0, 1.0, &bare, 0, false), 10.5, epsilon = 1e-9);
    assert_abs_diff_eq!(
        missiles(&tables, 2.0, 3.0, &bare, 0, false),
        2.0 * 12.25 + 3.0 * 10.5,
        epsilon = 1e-9
    );
    assert_eq!(missiles(&tables, 0.0, 0.0, &bare, 0, false), 0.0);

    // One PDS die (0.8 kills) against one salvo: each count of missiles on
    // target m scores (m − 0.8) missiles.
    let one_pds = Arsenal { pd_kills: 0.8, ..bare };
    let through = |kills: f64| (1..=6).map(|m| (f64::from(m) - kills).max(0.0)).sum::<f64>() / 6.0;
    assert_abs_diff_eq!(
        missiles(&tables, 1.0, 0.0, &one_pds, 0, false),
        through(0.8) * 3.5,
        epsilon = 1e-9
    );
    // Two salvos share the die.
    assert_abs_diff_eq!(
        missiles(&tables, 2.0, 0.0, &one_pds, 0, false),
        2.0 * through(0.4) * 3.5,
        epsilon = 1e-9
    );
    // A heavy missile survives a PDS die two times in three.
    assert_abs_diff_eq!(
        missiles(&tables, 0.0, 1.0, &one_pds, 0, false),
        10.5 * 2.0 / 3.0,
        epsilon = 1e-9
    );
    let two_pds = Arsenal { pd_kills: 1.6, ..bare };
    assert_abs_diff_eq!(
        missiles(&tables, 0.0, 1.0, &two_pds, 0, false),
        10.5 * 4.0 / 9.0,
        epsilon = 1e-9
    );
    // More point defence, less damage; Evasion rerolls and defending
    // class-1 beams take more.
    let mut last = f64::INFINITY;
    for pds in 0..=6 {
        let t = Arsenal {
            pd_kills: 0.8 * f64::from(pds),
            ..bare
        };
        let d = missiles(&tables, 2.0, 1.0, &t, 0, false);
        assert!(d < last, "{pds} PDS: {d}, not less than {last}");
        last = d;
        if pds > 0 {
            assert!(
                missiles(&tables, 2.0, 1.0, &t, 2, false) < d,
                "{pds} PDS: Evasion rerolls"
            );
        }
    }
    // A Formation's point defence is its Units', weighted by mass: the
    // escort destroyer's 3 PDS (40 mass) and the escort cruiser's 4 (60).
    let b = outranged(60);
    let wardens = Arsenal::of(&b, formation(&b, "Wardens"));
    assert_abs_diff_eq!(
        wardens.pd_kills,
        (40.0 * 3.0 * 0.8 + 60.0 * 4.0 * 0.8) / 100.0,
        epsilon = 1e-9
    );
    assert_eq!((wardens.class1, wardens.ships), (3, 2));
    let beams = Arsenal { class1: 2, ..one_pds };
    assert!(missiles(&tables, 1.0, 0.0, &beams, 0, true) < missiles(&tables, 1.0, 0.0, &beams, 0, false));
    assert_abs_diff_eq!(
        missiles(&tables, 1.0, 0.0, &beams, 0, true),
        through(0.8 + 2.0 * 0.4) * 3.5,
        epsilon = 1e-9
    );
}

// ---- 2. Where it wants to be ------------------------------------------------

/// The longest reach of a Formation's working beams: 12 MU a class.
fn beam_reach(b: &Battle, f: FormationId) -> u32 {
    b.formations[f]
        .units
        .iter()
        .flat_map(|&u| b.units[u].systems.iter())
        .filter(|s| s.operational())
        .filter_map(|s| match s.kind {
            SystemKind::Beam { class } => Some(12 * u32::from(class)),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// A destroyer with a Class 3 battery (36 MU) against two escorts with
/// Class 2 and Class 1 batteries only (24 MU).
fn outranged(range: u32) -> Battle {
    battle(
        &[("Tide", &["MCS Unhurried Tide"])],
        &[("Wardens", &["KRD Ridge Warden", "KRD Long Watch"])],
        range,
        "",
    )
    .battle
}

/// docs/doctrine.md, "The default doctrine" 3: where its share of the
/// target beats the target's share of it, it outguns it and seeks the range
/// where it does so by the most, ties going to the range nearest today's.
/// Between 25 and 36 MU only the destroyer's Class 3 battery rolls (one
/// die), and inside 24 MU the escorts' six batteries outweigh its fire: it
/// seeks the edge of its reach nearest today's range, beyond theirs, and
/// closes to it from 60 MU without coming within their reach.
#[test]
fn a_formation_that_outranges_its_target_seeks_a_range_beyond_the_targets_reach() {
    let b = outranged(60);
    let (tide, wardens) = (formation(&b, "Tide"), formation(&b, "Wardens"));
    assert_eq!((beam_reach(&b, tide), beam_reach(&b, wardens)), (36, 24));
    let c = choose(&b, tide, &auto());
    assert_eq!(c.target, Some(wardens));
    let p = c.plan.expect("an auto maneuver against an enemy is planned");
    assert_eq!(p.stance, Stance::Outgun);
    // 25-36 MU tie (one die, nothing back): the grid range nearest 60 MU.
    assert_eq!(p.seek, 36);
    // What it expects there: one Class 3 die (one arc: it ignores no
    // Evasion Point) against two Evasion dice (a third of the escorts'
    // thrust 6) and their screens by mass (40 unscreened, 60 behind one);
    // nothing comes back.
    let arsenal = Arsenal::of(&b, wardens);
    assert_eq!(arsenal.thrust, 6);
    assert!(
        abs_diff_eq!(p.at_seek.0, beam_die(2, 0, [0.4, 0.6, 0.0]), epsilon = 1e-9),
        "{:?}",
        p.at_seek
    );
    assert_eq!(p.at_seek.1, 0.0);
    assert_eq!(c.maneuvers[0], Maneuver::Close, "from 60 MU it closes");
    assert!(
        p.range.iter().all(|&r| r > 24.0 && r <= 60.0),
        "it never plans to come within their reach: {:?}",
        p.range
    );
    // At the range it seeks it stays.
    let mut there = b.clone();
    there.ranges.set(tide, wardens, 36);
    let c = choose(&there, tide, &auto());
    assert_eq!(c.plan.unwrap().seek, 36);
    assert_eq!(c.maneuvers, [Maneuver::Maintain; 3]);
}

/// The out-ranged side of the same pair: the escorts outgun the destroyer
/// only within their own reach, so they seek a range there and close.
#[test]
fn a_formation_out_ranged_by_its_target_closes() {
    for range in [60, 36, 30] {
        let b = outranged(range);
        let (tide, wardens) = (formation(&b, "Tide"), formation(&b, "Wardens"));
        let c = choose(&b, wardens, &auto());
        assert_eq!(c.target, Some(tide));
        let p = c.plan.unwrap();
        assert_eq!(p.stance, Stance::Outgun, "at {range} MU");
        assert!(
            p.seek <= beam_reach(&b, wardens),
            "at {range} MU it seeks {} MU",
            p.seek
        );
        assert_eq!(c.maneuvers[0], Maneuver::Close, "at {range} MU: {:?}", c.maneuvers);
        assert!(!c.maneuvers.contains(&Maneuver::Withdraw));
    }
}

/// An armed freighter (one Class 1 battery, thrust 2) against a dreadnought
/// (two Class 4 batteries, two screens): outgunned more than tenfold at
/// every range, it avoids it, seeking a range beyond the dreadnought's
/// reach (48 MU) no nearer than today's, and still counts as able to fight.
#[test]
fn a_freighter_outgunned_tenfold_avoids_the_battleship() {
    let l = battle(
        &[("Line", &["MCS Sovereign Bearing"])],
        &[("Convoy", &["Honest Weight"])],
        30,
        "",
    );
    let b = l.battle;
    let (line, convoy) = (formation(&b, "Line"), formation(&b, "Convoy"));
    assert_eq!(beam_reach(&b, line), 48);
    // The ratio of the shares at 12 MU, where the freighter does best.
    let tables = DieTables::new();
    let (ours, theirs) = (Arsenal::of(&b, convoy), Arsenal::of(&b, line));
    let dealt = sustained(&tables, &ours, &theirs, 12, theirs.thrust / 3) / f64::from(theirs.durability);
    let taken = sustained(&tables, &theirs, &ours, 12, ours.thrust / 3) / f64::from(ours.durability);
    assert!(dealt / taken < 0.1, "{dealt} against {taken}");
    for range in [30, 60, 80] {
        let mut b = b.clone();
        b.ranges.set(line, convoy, range);
        let c = choose(&b, convoy, &auto());
        let p = c.plan.unwrap();
        assert_eq!(p.stance, Stance::Avoid, "at {range} MU");
        assert!(p.seek > 48 && p.seek >= range, "at {range} MU it seeks {}", p.seek);
        assert_eq!(
            c.withdrawing, None,
            "it can still fight: it avoids, it does not give up"
        );
    }
}

/// docs/doctrine.md, "The default doctrine" 3: "Outgunned more than
/// tenfold at every range, it avoids the target: it keeps out of its reach
/// as far as it can (a freighter does not close on a battle line)".
#[test]
fn an_avoiding_formation_never_closes_on_its_target() {
    let l = battle(
        &[
            ("Line", &["MCS Sovereign Bearing"]),
            ("Cruiser", &["MCS Clear Heading"]),
        ],
        &[("Convoy", &["Honest Weight"])],
        60,
        "",
    );
    let mut bad = Vec::new();
    for (enemy, ranges) in [("Line", [12, 30, 60, 80]), ("Cruiser", [12, 24, 60, 80])] {
        for range in ranges {
            let mut b = l.battle.clone();
            let (e, convoy) = (formation(&b, enemy), formation(&b, "Convoy"));
            b.ranges.set(e, convoy, range);
            let other = formation(&b, if enemy == "Line" { "Cruiser" } else { "Line" });
            b.ranges.set(other, convoy, 120);
            let c = choose(&b, convoy, &auto());
            assert_eq!(c.target, Some(e));
            assert_eq!(c.plan.unwrap().stance, Stance::Avoid, "{enemy} at {range} MU");
            if c.maneuvers.contains(&Maneuver::Close) {
                bad.push(format!("{enemy} at {range} MU: {:?}", c.maneuvers));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "the freighter closes on a ship that outguns it tenfold:\n{}",
        bad.join("\n")
    );
}

/// docs/doctrine.md, "The default doctrine" 3-4: a Formation seeks the range
/// where it outguns its target by the most, with "a hair of score to ending
/// nearer the range it seeks". The destroyer 6-18 MU from the escorts (inside
/// their reach, where they outgun it) seeks 27 MU or more: it must not plot
/// Close.
///
/// At 18 MU the escorts are foreseen to charge at full speed (their
/// answer), and the F&M overshoot rule lets a Formation that closes too
/// pass through them and come out the other side: that is allowed there.
#[test]
fn a_formation_nearer_than_the_range_it_seeks_does_not_close() {
    for range in [6, 12] {
        let b = outranged(range);
        let tide = formation(&b, "Tide");
        let c = choose(&b, tide, &auto());
        let p = c.plan.unwrap();
        assert!(p.seek > range + 3, "at {range} MU it seeks {}", p.seek);
        assert_eq!(p.stance, Stance::Outgun);
        assert!(
            !c.maneuvers.contains(&Maneuver::Close),
            "at {range} MU, seeking {} MU: {:?}",
            p.seek,
            c.maneuvers
        );
    }
}

/// A missile corvette (one salvo rack, no beam) against a corvette whose
/// point defence is gone, `range` MU apart.
fn rack_against_open_corvette(range: u32) -> Battle {
    let mut b = battle(
        &[("Hours", &["MCS Small Hours"])],
        &[("Descent", &["KRD Sharp Descent"])],
        range,
        "",
    )
    .battle;
    let hours = unit(&b, "MCS Small Hours");
    for s in systems(&b, hours, |k| *k == SystemKind::Pds) {
        b.units[hours].systems[s].state = SysState::Destroyed;
    }
    let descent = formation(&b, "Descent");
    let a = Arsenal::of(&b, descent);
    assert_eq!((a.racks, a.missile_reach()), ([1, 0], 30));
    assert_eq!(Arsenal::of(&b, formation(&b, "Hours")).pd_kills, 0.0);
    b
}

/// docs/doctrine.md, "The default doctrine" 3: "a missile Formation whose
/// target cannot stop its salvos closes to their reach". The corvette's
/// rack reaches 30 MU: from 60 MU it closes; from 45 MU, where the target
/// (thrust 8, wanting 12 MU) is foreseen to come on at full speed and be in
/// reach within a Volley, it may close or wait for it, but never opens the
/// range.
#[test]
fn a_missile_formation_whose_target_cannot_stop_its_salvos_closes_to_their_reach() {
    for range in [45, 60] {
        let b = rack_against_open_corvette(range);
        let c = choose(&b, formation(&b, "Descent"), &auto());
        if range == 60 {
            assert_eq!(c.maneuvers[0], Maneuver::Close, "at {range} MU: {:?}", c.maneuvers);
        }
        assert!(
            !c.maneuvers.contains(&Maneuver::Withdraw),
            "at {range} MU: {:?}",
            c.maneuvers
        );
    }
}

/// The same 33 and 36 MU away, just beyond the rack's 30 MU, against a
/// corvette that wants 12 MU and so comes on: the plan may close or wait
/// for it (readings D18 weighs both the target's foreseen answer and a
/// target that keeps its range). At 33 MU it never opens the range; at
/// 36 MU, against a gun corvette foreseen to charge at full speed, it may
/// give ground to hold it at the rack's edge (a missile boat's kiting). A
/// rack it plots is plotted where its own maneuvers bring the target surely
/// within 30 MU.
#[test]
fn a_missile_formation_just_out_of_reach_of_an_open_target_never_opens_the_range() {
    for range in [33, 36] {
        let b = rack_against_open_corvette(range);
        let c = choose(&b, formation(&b, "Descent"), &auto());
        assert!(
            range > 33 || !c.maneuvers.contains(&Maneuver::Withdraw),
            "at {range} MU: {:?}",
            c.maneuvers
        );
        if let Some(v) = c.launches.racks[0] {
            assert!(c.fire_range[v] <= 30.0, "at {range} MU: {:?}", c.fire_range);
        }
    }
}

/// The battleship against the two missile cruisers of
/// `battleship-vs-missiles.toml`, `range` MU apart.
fn battleship_and_missiles(range: u32) -> Battle {
    battle(
        &[("Battleship", &["MCS Long Meridian"])],
        &[("Missiles", &["KRD Ninefold Gale", "KRD Stone Patience"])],
        range,
        "",
    )
    .battle
}

/// docs/doctrine.md, "The default doctrine" 3: ordnance strikes first and
/// takes its share off the other side's sustained fire. The cruisers'
/// salvos (standard 30 MU, extended 42 MU) are expected to destroy most of
/// the battleship wherever they reach, so the range that pays is the one
/// where their beams finish it, not the salvos' reach where their beams
/// roll nothing; and the battleship, whose guns would be crippled by those
/// salvos before they told, keeps beyond the extended salvos' 42 MU while
/// its own Class 3 batteries (48 MU) still reach.
#[test]
fn a_missile_formation_that_would_cripple_its_target_seeks_its_beams_range() {
    let b = battleship_and_missiles(60);
    let (battleship, missiles) = (formation(&b, "Battleship"), formation(&b, "Missiles"));
    let arsenal = Arsenal::of(&b, missiles);
    assert_eq!(arsenal.missile_reach(), 42);
    let reach = beam_reach(&b, missiles);
    assert!(reach < 30, "the cruisers' beams reach {reach} MU");
    let c = choose(&b, missiles, &auto());
    let p = c.plan.expect("planned");
    assert!(
        p.seek <= reach,
        "the cruisers seek {} MU, beyond their beams' {reach}",
        p.seek
    );
    assert!(p.at_seek.0 > 0.0, "their beams roll where they seek: {:?}", p.at_seek);
    let hull_and_armour = f64::from(Arsenal::of(&b, battleship).durability);
    assert!(
        p.ordnance_at_seek.0 > 0.5 * hull_and_armour,
        "their salvos are expected to take more than half the battleship: {:?} of {hull_and_armour}",
        p.ordnance_at_seek
    );
    let c = choose(&b, battleship, &auto());
    let p = c.plan.expect("planned");
    assert!(
        p.seek > 42 && p.seek <= beam_reach(&b, battleship),
        "the battleship seeks {} MU",
        p.seek
    );
    assert_eq!(p.ordnance_at_seek, (0.0, 0.0));
}

// ---- 3. Thrust: Speed and Evasion -------------------------------------------

/// A light cruiser against an escort destroyer: both outgun or are
/// outgunned least at 12 MU, where their beams all roll.
fn cruiser_and_escort(range: u32) -> Battle {
    battle(
        &[("Heading", &["MCS Clear Heading"])],
        &[("Warden", &["KRD Ridge Warden"])],
        range,
        "",
    )
    .battle
}

/// docs/doctrine.md, "The default doctrine" 4: the split of thrust follows
/// the threat, "Evasion where fire comes in, Speed where the range must
/// change". At the range each side seeks, under the other's fire, at least
/// a third of the thrust goes to Evasion; at 120 MU, far out of both
/// sides' reach, Speed takes most of it.
#[test]
fn evasion_where_fire_comes_in_speed_where_the_range_must_change() {
    for who in ["Heading", "Warden"] {
        let b = cruiser_and_escort(60);
        let (f, other) = (
            formation(&b, who),
            formation(&b, if who == "Heading" { "Warden" } else { "Heading" }),
        );
        let thrust = b.formation_thrust(f);
        let seek = choose(&b, f, &auto()).plan.unwrap().seek;
        let mut at = b.clone();
        at.ranges.set(f, other, seek);
        let c = choose(&at, f, &auto());
        let p = c.plan.unwrap();
        assert_eq!(p.seek, seek);
        assert!(p.at_seek.1 > 0.0, "{who} is under fire at {seek} MU");
        assert!(
            c.evasion >= thrust / 3 && c.evasion <= thrust / 2,
            "{who} at {seek} MU: Speed {}, Evasion {}",
            c.speed,
            c.evasion
        );
        assert_eq!(c.speed + c.evasion, thrust);
        let mut far = b.clone();
        far.ranges.set(f, other, 120);
        let c = choose(&far, f, &auto());
        assert_eq!(c.maneuvers[0], Maneuver::Close, "{who} at 120 MU");
        assert!(
            c.speed > c.evasion,
            "{who} at 120 MU: Speed {}, Evasion {}",
            c.speed,
            c.evasion
        );
    }
}

/// docs/doctrine.md, "The default doctrine": "a fixed `evasion` plans only
/// the maneuvers" and "a fixed `maneuver` plans only the Evasion".
#[test]
fn a_fixed_evasion_or_maneuver_is_kept_and_the_rest_still_planned() {
    let max = Doctrine {
        evasion: EvasionSplit::Max,
        ..auto()
    };
    let closing = Doctrine {
        maneuver: Movement::Close,
        ..auto()
    };
    // Evasion "max": half the destroyer's thrust 6, at any range; the
    // maneuvers still follow its plan: it closes from 60 MU to the 36 MU it
    // seeks and keeps that range once there.
    for (range, first) in [(60, Maneuver::Close), (36, Maneuver::Maintain)] {
        let b = outranged(range);
        let tide = formation(&b, "Tide");
        let c = choose(&b, tide, &max);
        assert_eq!((c.speed, c.evasion), (3, 3), "at {range} MU");
        let p = c.plan.expect("the maneuvers are still planned");
        assert_eq!((p.speed, p.evasion), (3, 3));
        assert_eq!(c.maneuvers, p.maneuvers);
        assert_eq!(c.maneuvers[0], first, "at {range} MU: {:?}", c.maneuvers);
        let written = plot(&b, tide, &max);
        for (v, vp) in written.volleys.iter().enumerate() {
            assert_eq!((vp.speed, vp.evasion), (3, 3));
            assert_eq!(vp.primary.map(|m| m.maneuver), Some(c.maneuvers[v]));
        }
    }
    // Maneuver "close": Close in every Volley; the Evasion is planned: all
    // to Speed at 120 MU, where nothing reaches, and at least a third under
    // the escorts' fire at 24 MU.
    let mut split = Vec::new();
    for range in [120, 24] {
        let b = outranged(range);
        let tide = formation(&b, "Tide");
        let c = choose(&b, tide, &closing);
        assert_eq!(c.maneuvers, [Maneuver::Close; 3], "at {range} MU");
        let p = c.plan.expect("the Evasion is still planned");
        assert_eq!(p.maneuvers, [Maneuver::Close; 3]);
        assert_eq!((c.speed, c.evasion), (p.speed, p.evasion));
        split.push((c.speed, c.evasion));
    }
    assert_eq!(split[0], (6, 0), "nothing reaches at 120 MU: all to Speed");
    assert!(split[1].1 >= 2, "under fire at 24 MU: {:?}", split[1]);
}

// ---- 4. Ordnance: use_ordnance = "auto" -------------------------------------

/// The Volley one-shot ordnance of reach `reach` fires in (docs/doctrine.md,
/// "Weapons"): the first whose expected range plus 0.674 spreads is within
/// reach (three chances in four); else the Volley likeliest in reach (the
/// largest margin of reach over range plus 0.674 spreads, the earliest on
/// ties) among those whose expected range is within reach; else none.
fn one_shot_volley(range: &[f64; 3], spread: &[f64; 3], reach: f64) -> Option<usize> {
    let sure = |v: usize| range[v] + 0.674 * spread[v];
    if let Some(v) = (0..3).find(|&v| sure(v) <= reach) {
        return Some(v);
    }
    let mut best: Option<usize> = None;
    for v in (0..3).filter(|&v| range[v] <= reach) {
        if best.is_none_or(|b| reach - sure(v) > reach - sure(b)) {
            best = Some(v);
        }
    }
    best
}

/// Missile ships against an armed freighter (thrust 2), which cannot keep
/// its range: the missile ships close and the expected range falls Volley
/// by Volley.
fn missiles_against_freighter(ships: &[&str], range: u32) -> Battle {
    battle(&[("Convoy", &["Honest Weight"])], &[("Missiles", ships)], range, "").battle
}

/// A salvo launcher fires one load in every Volley when the target is in
/// reach (30 MU, 42 MU for extended range) at the start of the Exchange,
/// else in every Volley whose range (after that Volley's maneuver) is
/// surely within reach: its expected range plus 0.674 of its spread (three
/// chances in four), since a salvo plotted out of reach is spent all the
/// same (F&M Launch Ordnance). Loads last as long as the magazine has them;
/// launchers on one magazine share them, so two launchers on a magazine of
/// 2 loads fire 2 salvos in all.
#[test]
fn salvo_launchers_fire_in_every_volley_in_reach_while_loads_last() {
    let mut mixed = 0;
    for (ship, reach) in [("KRD Ninefold Gale", 30.0), ("KRD Stone Patience", 42.0)] {
        for range in (12..=66).step_by(3) {
            let b = missiles_against_freighter(&[ship], range);
            let (m, convoy) = (formation(&b, "Missiles"), formation(&b, "Convoy"));
            let u = unit(&b, ship);
            let launchers = systems(&b, u, |k| *k == SystemKind::Sml);
            let magazine = b.units[u].systems[launchers[0]].magazine.unwrap();
            assert!(
                launchers
                    .iter()
                    .all(|&l| b.units[u].systems[l].magazine == Some(magazine))
            );
            let loads = b.units[u].systems[magazine].rounds_left() as usize;
            let c = choose(&b, m, &auto());
            assert_eq!(c.fire_at, Some(convoy));
            let p = plot(&b, m, &auto());
            let mut drawn = 0;
            let now = f64::from(range) <= reach;
            let in_reach: [bool; 3] =
                std::array::from_fn(|v| now || c.fire_range[v] + 0.674 * c.fire_spread[v] <= reach);
            for (v, &reachable) in in_reach.iter().enumerate() {
                let fired_now: Vec<usize> = fired(&p, u)[v]
                    .iter()
                    .copied()
                    .filter(|w| launchers.contains(w))
                    .collect();
                let want = if reachable {
                    launchers.len().min(loads - drawn)
                } else {
                    0
                };
                assert_eq!(
                    fired_now.len(),
                    want,
                    "{ship} from {range} MU, Volley {}: expected range {:.1}, {drawn} of {loads} loads drawn",
                    v + 1,
                    c.fire_range[v]
                );
                drawn += fired_now.len();
            }
            assert!(drawn <= loads, "{ship} from {range} MU overdraws its magazine");
            if in_reach.iter().any(|&x| x) && !in_reach.iter().all(|&x| x) {
                mixed += 1;
            }
        }
    }
    assert!(mixed >= 2, "some Exchange comes into reach only in a later Volley");
}

/// One-shot racks and heavy missiles fire once, all together (their salvos
/// meet the target's point defence at once), in the Volley the rule gives;
/// never at an expected range beyond 30 MU; submunition packs the same way
/// within 12 MU.
#[test]
fn racks_and_heavy_missiles_fire_once_all_together_in_the_first_volley_surely_in_reach() {
    let ships = ["KRD High Fell Thunder", "KRD Bitter Updraft"];
    let mut seen = std::collections::BTreeSet::new();
    for range in (6..=90).step_by(3) {
        let b = missiles_against_freighter(&ships, range);
        let m = formation(&b, "Missiles");
        let c = choose(&b, m, &auto());
        let p = plot(&b, m, &auto());
        let one_shots: Vec<(UnitId, usize)> = ships
            .iter()
            .map(|n| unit(&b, n))
            .flat_map(|u| {
                systems(&b, u, |k| matches!(k, SystemKind::Smr | SystemKind::Missile { .. }))
                    .into_iter()
                    .map(move |s| (u, s))
            })
            .collect();
        assert_eq!(one_shots.len(), 4, "three heavy missiles and a rack");
        let packs: Vec<(UnitId, usize)> = {
            let u = unit(&b, "KRD Bitter Updraft");
            systems(&b, u, |k| *k == SystemKind::SubmunitionPack)
                .into_iter()
                .map(|s| (u, s))
                .collect()
        };
        let volleys_of = |list: &[(UnitId, usize)]| -> Vec<Vec<usize>> {
            list.iter()
                .map(|&(u, s)| (0..3).filter(|&v| fired(&p, u)[v].contains(&s)).collect())
                .collect()
        };
        // In reach at the start (30 MU; packs 18 MU): at once, in Volley 1.
        let start = f64::from(range);
        let now = |reach: f64| (start <= reach).then_some(0);
        let want = now(30.0).or(one_shot_volley(&c.fire_range, &c.fire_spread, 30.0));
        for (what, list, want, reach) in [
            ("rack or heavy missile", &one_shots, want, 30.0),
            (
                "submunition pack",
                &packs,
                now(18.0).or(one_shot_volley(&c.fire_range, &c.fire_spread, 12.0)),
                18.0,
            ),
        ] {
            for (i, vs) in volleys_of(list).iter().enumerate() {
                assert!(vs.len() <= 1, "{what} {i} fires twice from {range} MU");
                assert_eq!(
                    vs.first().copied(),
                    want,
                    "{what} {i} from {range} MU: ranges {:?} spreads {:?}",
                    c.fire_range,
                    c.fire_spread
                );
                if let Some(&v) = vs.first() {
                    assert!(c.fire_range[v] <= reach, "{what} beyond reach");
                }
            }
        }
        seen.insert(want);
    }
    // Volley 1, a later Volley, and not at all were all seen.
    assert!(seen.contains(&Some(0)) && seen.contains(&None), "{seen:?}");
    assert!(seen.contains(&Some(1)) || seen.contains(&Some(2)), "{seen:?}");
}

/// `use_ordnance = false` fires none; `true` keeps the old rule: in reach
/// at the start of the Exchange, racks and heavy missiles in Volley 1 and
/// each launcher a load a Volley while loads last; out of reach at the
/// start, nothing, even where `auto` fires once the range falls.
#[test]
fn use_ordnance_false_fires_none_and_true_fires_when_in_reach_at_the_start() {
    let ships = ["KRD High Fell Thunder", "KRD Bitter Updraft"];
    let never = Doctrine {
        use_ordnance: Ordnance::Never,
        ..auto()
    };
    let always = Doctrine {
        use_ordnance: Ordnance::Always,
        ..auto()
    };
    let ordnance = |b: &Battle, p: &FormationPlot| -> [Vec<(UnitId, usize)>; 3] {
        let m = formation(b, "Missiles");
        [0, 1, 2].map(|v| {
            b.formations[m]
                .units
                .iter()
                .flat_map(|&u| fired(p, u)[v].iter().map(move |&s| (u, s)).collect::<Vec<_>>())
                .filter(|&(u, s)| is_ordnance(&b.units[u].systems[s].kind))
                .collect()
        })
    };
    for range in [12, 24, 30, 33, 40] {
        let b = missiles_against_freighter(&ships, range);
        let m = formation(&b, "Missiles");
        assert!(
            ordnance(&b, &plot(&b, m, &never)).iter().all(Vec::is_empty),
            "{range} MU"
        );
    }
    // In reach at the start (30 MU): the rack and the three heavy missiles
    // in Volley 1, the launcher's 2 loads in Volleys 1 and 2; the packs
    // (18 MU) stay.
    let b = missiles_against_freighter(&ships, 30);
    let m = formation(&b, "Missiles");
    let (th, up) = (unit(&b, "KRD High Fell Thunder"), unit(&b, "KRD Bitter Updraft"));
    let heavies = systems(&b, th, |k| matches!(k, SystemKind::Missile { .. }));
    let sml = systems(&b, th, |k| *k == SystemKind::Sml);
    let rack = systems(&b, up, |k| *k == SystemKind::Smr);
    let got = ordnance(&b, &plot(&b, m, &always));
    let mut v1: Vec<(UnitId, usize)> = heavies.iter().chain(&sml).map(|&s| (th, s)).collect();
    v1.extend(rack.iter().map(|&s| (up, s)));
    v1.sort_unstable();
    let mut first = got[0].clone();
    first.sort_unstable();
    assert_eq!(first, v1);
    assert_eq!(got[1], vec![(th, sml[0])]);
    assert!(got[2].is_empty(), "the magazine holds 2 loads");
    // Out of reach at the start (33 MU): nothing with `true`, though `auto`
    // expects the range to fall within reach and fires.
    let b = missiles_against_freighter(&ships, 33);
    let m = formation(&b, "Missiles");
    assert!(ordnance(&b, &plot(&b, m, &always)).iter().all(Vec::is_empty));
    assert!(ordnance(&b, &plot(&b, m, &auto())).iter().any(|v| !v.is_empty()));
}

/// docs/doctrine.md, "The default doctrine" 1: the arsenal counts "salvo
/// launchers with the loads their magazines hold"; "launchers on one
/// magazine share them". The heavy cruiser's two launchers draw on one
/// magazine of 2 loads: 2 loads, not 4; and what the doctrine says it chose
/// (`Choice::launches`, which the report prints as "missiles in Volleys
/// ...") must be the Volleys its launchers fire in.
#[test]
fn launchers_sharing_a_magazine_count_its_loads_once() {
    let b = missiles_against_freighter(&["KRD Stone Patience"], 24);
    let m = formation(&b, "Missiles");
    let u = unit(&b, "KRD Stone Patience");
    let launchers = systems(&b, u, |k| *k == SystemKind::Sml);
    assert_eq!(launchers.len(), 2);
    let magazine = b.units[u].systems[launchers[0]].magazine.unwrap();
    assert_eq!(b.units[u].systems[launchers[1]].magazine, Some(magazine));
    assert_eq!(b.units[u].systems[magazine].rounds_left(), 2);
    let p = plot(&b, m, &auto());
    let volleys_firing: Vec<bool> = (0..3)
        .map(|v| fired(&p, u)[v].iter().any(|w| launchers.contains(w)))
        .collect();
    assert_eq!(volleys_firing, [true, false, false], "both loads go in Volley 1");
    let c = choose(&b, m, &auto());
    let said: Vec<bool> = (0..3).map(|v| c.launches.salvos[v].iter().any(|&x| x)).collect();
    assert_eq!(
        said, volleys_firing,
        "the choice (and the report) names Volleys no launcher fires in"
    );
    let a = Arsenal::of(&b, m);
    assert_eq!(
        (a.salvos[1].launchers, a.salvos[1].loads),
        (2, 2),
        "two extended-range launchers on one magazine of 2 loads"
    );
}

// ---- 5. Point defence: pd = "auto" ------------------------------------------

/// Weapons (Unit, system) by Volley.
type ByVolley = [Vec<(UnitId, usize)>; 3];

/// The class-1 beams and PDS a Formation plots in `pd`, and the PDS in its
/// fire orders, by Volley.
fn defence_of(b: &Battle, f: FormationId, p: &FormationPlot) -> (ByVolley, ByVolley) {
    let pd = [0, 1, 2].map(|v| p.volleys[v].point_defence.iter().map(|o| (o.unit, o.weapon)).collect());
    let pds = [0, 1, 2].map(|v| {
        b.formations[f]
            .units
            .iter()
            .flat_map(|&u| fired(p, u)[v].iter().map(move |&s| (u, s)).collect::<Vec<_>>())
            .filter(|&(u, s)| b.units[u].systems[s].kind == SystemKind::Pds)
            .collect()
    });
    (pd, pds)
}

/// A light cruiser (two class-1 beams) against a missile light cruiser and
/// a missile corvette.
fn cruiser_against_missiles(gale: u32, descent: u32) -> Battle {
    let mut b = battle(
        &[("Home", &["MCS Clear Heading"])],
        &[("Gale", &["KRD Ninefold Gale"]), ("Descent", &["KRD Sharp Descent"])],
        60,
        "",
    )
    .battle;
    let (h, g, d) = (formation(&b, "Home"), formation(&b, "Gale"), formation(&b, "Descent"));
    b.ranges.set(h, g, gale);
    b.ranges.set(h, d, descent);
    b
}

/// docs/doctrine.md, "Weapons": class-1 beams defend in a Volley when enemy
/// missiles may reach the Formation (an enemy Formation with missiles whose
/// range, closing at its full Speed, is within their reach) and a beam
/// saves more than it scores. The corvette's rack reaches 30 MU and it
/// closes at most 16 MU a Volley (all 8 thrust as Speed, 2 MU a die): from
/// 80 MU it cannot reach the cruiser in this Exchange, from 40 MU it may in
/// every Volley. Once it may, it may in every later Volley. PD mode takes
/// every class-1 beam not destroyed, for its own Unit, and they do not also
/// fire at ships.
#[test]
fn class_1_beams_defend_in_the_volleys_enemy_missiles_may_reach_the_formation() {
    let heading = |b: &Battle| unit(b, "MCS Clear Heading");
    // The missile light cruiser 20 MU off (the nearest: the maneuver
    // target) has lost its magazine, so the corvette is the only threat.
    let setup = |descent: u32| {
        let mut b = cruiser_against_missiles(20, descent);
        let g = unit(&b, "KRD Ninefold Gale");
        let smm = systems(&b, g, |k| *k == SystemKind::Smm)[0];
        b.units[g].systems[smm].state = SysState::Destroyed;
        b
    };
    for (descent, want) in [(80, [false; 3]), (90, [false; 3]), (40, [true; 3]), (30, [true; 3])] {
        let b = setup(descent);
        let h = formation(&b, "Home");
        let c = choose(&b, h, &auto());
        assert_eq!(c.target, Some(formation(&b, "Gale")));
        assert_eq!(c.threat, want, "the corvette at {descent} MU");
        assert_eq!(c.pd, want, "the corvette at {descent} MU");
    }
    let mut seen_partial = false;
    for descent in (30..=90).step_by(3) {
        let b = setup(descent);
        let h = formation(&b, "Home");
        let c = choose(&b, h, &auto());
        assert!(
            c.threat[0] <= c.threat[1] && c.threat[1] <= c.threat[2],
            "{descent} MU: {:?}",
            c.threat
        );
        seen_partial |= c.threat[2] && !c.threat[0];
        // The written plot: both class-1 beams in PD exactly in those
        // Volleys, and then not among the weapons fired at ships.
        let p = plot(&b, h, &auto());
        let (pd, _) = defence_of(&b, h, &p);
        let u = heading(&b);
        let beams1: Vec<(UnitId, usize)> = beams_of_class(&b, u, 1).into_iter().map(|s| (u, s)).collect();
        for (v, listed) in pd.iter().enumerate() {
            let want: Vec<(UnitId, usize)> = if c.pd[v] { beams1.clone() } else { vec![] };
            assert_eq!(*listed, want, "{descent} MU, Volley {}", v + 1);
            assert!(p.volleys[v].point_defence.iter().all(|o| o.defend.is_none()));
            for &(_, s) in &beams1 {
                assert_eq!(fired(&p, u)[v].contains(&s), !c.pd[v], "{descent} MU, Volley {}", v + 1);
            }
        }
    }
    assert!(
        seen_partial,
        "some range puts the corvette in reach only in a later Volley"
    );
    // No enemy with missiles or small craft: no point defence at all.
    let mut b = setup(30);
    let d = unit(&b, "KRD Sharp Descent");
    let rack = systems(&b, d, |k| *k == SystemKind::Smr)[0];
    b.units[d].systems[rack].spent = 1;
    let h = formation(&b, "Home");
    let c = choose(&b, h, &auto());
    assert_eq!((c.threat, c.pd), ([false; 3], [false; 3]));
    assert!(plot(&b, h, &auto()).volleys.iter().all(|v| v.point_defence.is_empty()));
}

/// The same rule for the Formation's own maneuver target: the missile
/// light cruiser (thrust 6: 4 Speed dice with a third in Evasion, 8 MU a
/// Volley) 36 MU away may close within its missiles' 30 MU in Volley 1,
/// exactly as it may when another Formation is the target.
#[test]
fn the_maneuver_targets_missiles_threaten_like_any_enemys() {
    // Gale alone, 36 MU away: it is the target.
    let mut b = cruiser_against_missiles(36, 36);
    let d = unit(&b, "KRD Sharp Descent");
    b.units[d].destroyed = true;
    let h = formation(&b, "Home");
    let as_target = choose(&b, h, &auto());
    assert_eq!(as_target.target, Some(formation(&b, "Gale")));
    // Gale 36 MU away, a nearer corvette (its rack spent) as the target.
    let mut other = cruiser_against_missiles(36, 20);
    let d = unit(&other, "KRD Sharp Descent");
    let rack = systems(&other, d, |k| *k == SystemKind::Smr)[0];
    other.units[d].systems[rack].spent = 1;
    let not_target = choose(&other, h, &auto());
    assert_eq!(not_target.target, Some(formation(&other, "Descent")));
    assert!(not_target.threat[0], "36 MU less 8 MU is within 30 MU");
    assert_eq!(
        as_target.threat, not_target.threat,
        "the same missile ship at the same range threatens the same, target or not"
    );
}

/// A class-1 beam defends only when it saves more than it scores: 0.4
/// missiles (1.4 points) of every enemy salvo that may be aimed at its
/// Unit, the enemy's launchers spread over our ships, against the beam's
/// mean damage at the fire target. One rack against one ship: 1.4 saved;
/// against two ships: 0.7 each, less than a class-1 die scores at the
/// corvette within 12 MU.
#[test]
fn class_1_beams_defend_only_when_they_save_more_than_they_score() {
    let one = battle(
        &[("Home", &["MCS Clear Heading"])],
        &[("Descent", &["KRD Sharp Descent"])],
        10,
        "",
    )
    .battle;
    let two = battle(
        &[("Home", &["MCS Clear Heading", "MCS Small Hours"])],
        &[("Descent", &["KRD Sharp Descent"])],
        10,
        "",
    )
    .battle;
    let saved = |ships: f64| 1.0 * 0.4 * 3.5 / ships;
    for (b, ships) in [(&one, 1.0), (&two, 2.0)] {
        let h = formation(b, "Home");
        let d = formation(b, "Descent");
        let c = choose(b, h, &auto());
        assert_eq!(c.fire_at, Some(d));
        let target = Arsenal::of(b, d);
        for v in 0..3 {
            assert!(c.threat[v], "{ships} ships, Volley {}", v + 1);
            let r = c.fire_range[v].round() as u32;
            // A class-1 battery on six arcs ignores two Evasion Points.
            let scores = if r <= 12 {
                beam_die(target.thrust / 3, 2, target.screens)
            } else {
                0.0
            };
            assert_eq!(
                c.pd[v],
                saved(ships) >= scores,
                "{ships} ships, Volley {}: {scores}",
                v + 1
            );
        }
    }
    assert!(choose(&one, formation(&one, "Home"), &auto()).pd.iter().any(|&x| x));
    assert!(!choose(&two, formation(&two, "Home"), &auto()).pd.iter().any(|&x| x));
}

/// `pd = "never"`: class-1 beams always fire at ships, even under missile
/// threat; `"always"`: they defend in every Volley, even with no enemy
/// missile left. Neither fires PDS at ships.
#[test]
fn pd_never_and_always_override_the_threat() {
    let never = Doctrine {
        pd: PdMode::Never,
        ..auto()
    };
    let always = Doctrine {
        pd: PdMode::Always,
        ..auto()
    };
    let threatened = cruiser_against_missiles(24, 24);
    let h = formation(&threatened, "Home");
    assert_eq!(choose(&threatened, h, &auto()).pd, [true; 3]);
    assert_eq!(choose(&threatened, h, &never).pd, [false; 3]);
    assert!(
        plot(&threatened, h, &never)
            .volleys
            .iter()
            .all(|v| v.point_defence.is_empty())
    );
    let mut quiet = cruiser_against_missiles(24, 24);
    for name in ["KRD Ninefold Gale", "KRD Sharp Descent"] {
        let u = unit(&quiet, name);
        for s in systems(&quiet, u, |k| matches!(k, SystemKind::Smr | SystemKind::Smm)) {
            quiet.units[u].systems[s].state = SysState::Destroyed;
        }
    }
    assert_eq!(choose(&quiet, h, &auto()).pd, [false; 3]);
    assert_eq!(choose(&quiet, h, &always).pd, [true; 3]);
    let u = unit(&quiet, "MCS Clear Heading");
    let p = plot(&quiet, h, &always);
    for v in &p.volleys {
        let mut listed: Vec<usize> = v.point_defence.iter().map(|o| o.weapon).collect();
        listed.sort_unstable();
        assert_eq!(listed, beams_of_class(&quiet, u, 1));
    }
}

/// docs/doctrine.md, "Weapons": with `pd = "auto"` PDS also fire at ships
/// in a Volley when nothing threatens, the fire target's expected range
/// plus half a spread is within 6 MU, and the target has a ship with no
/// working screen and no armour left (ft-rules §5.1).
#[test]
fn pds_fire_at_ships_only_at_an_open_ship_within_6_mu_when_nothing_threatens() {
    // The light cruiser (one PDS) against an escort destroyer (2 armour,
    // no screen) or an escort cruiser (3 armour, one screen).
    let case = |target: &str, range: u32, tweak: &dyn Fn(&mut Battle)| {
        let mut b = battle(&[("Home", &["MCS Clear Heading"])], &[("T", &[target])], range, "").battle;
        tweak(&mut b);
        let h = formation(&b, "Home");
        let c = choose(&b, h, &auto());
        let p = plot(&b, h, &auto());
        let (_, pds) = defence_of(&b, h, &p);
        let u = unit(&b, "MCS Clear Heading");
        let own: Vec<(UnitId, usize)> = systems(&b, u, |k| *k == SystemKind::Pds)
            .into_iter()
            .map(|s| (u, s))
            .collect();
        for (v, listed) in pds.iter().enumerate() {
            let want: Vec<(UnitId, usize)> = if c.pds_at_ships[v] { own.clone() } else { vec![] };
            assert_eq!(*listed, want, "{target} at {range} MU, Volley {}", v + 1);
        }
        (c, b)
    };
    let no_armour = |name: &'static str| {
        move |b: &mut Battle| {
            let t = unit(b, name);
            b.units[t].armour_lost = b.units[t].armour_total;
        }
    };
    let open_rule = |c: &Choice, open: bool| -> [bool; 3] {
        [0, 1, 2].map(|v| open && !c.threat[v] && c.fire_range[v] + 0.5 * c.fire_spread[v] <= 6.0)
    };
    // Armour left: never. Armour gone: where the rule says, and somewhere.
    let mut any = false;
    for range in [0, 3, 6, 12] {
        let (c, _) = case("KRD Ridge Warden", range, &|_| {});
        assert_eq!(c.pds_at_ships, [false; 3], "armour left, {range} MU");
        let (c, _) = case("KRD Ridge Warden", range, &no_armour("KRD Ridge Warden"));
        assert_eq!(
            c.pds_at_ships,
            open_rule(&c, true),
            "{range} MU: {:?} {:?}",
            c.fire_range,
            c.fire_spread
        );
        any |= c.pds_at_ships.iter().any(|&x| x);
    }
    assert!(any, "an open ship within 6 MU draws PDS fire");
    // A working screen keeps them off; a damaged generator does not.
    let (c, _) = case("KRD Long Watch", 0, &no_armour("KRD Long Watch"));
    assert_eq!(c.pds_at_ships, [false; 3]);
    let (c, _) = case("KRD Long Watch", 0, &|b: &mut Battle| {
        no_armour("KRD Long Watch")(b);
        let t = unit(b, "KRD Long Watch");
        let screen = systems(b, t, |k| *k == SystemKind::ScreenGenerator)[0];
        b.units[t].systems[screen].state = SysState::Damaged;
    });
    assert_eq!(c.pds_at_ships, open_rule(&c, true), "{:?}", c.fire_range);
    // A threat keeps them on defence: a missile corvette 20 MU off.
    let mut b = battle(
        &[("Home", &["MCS Clear Heading"])],
        &[("T", &["KRD Ridge Warden"]), ("Descent", &["KRD Sharp Descent"])],
        0,
        "",
    )
    .battle;
    no_armour("KRD Ridge Warden")(&mut b);
    let (h, d) = (formation(&b, "Home"), formation(&b, "Descent"));
    b.ranges.set(h, d, 20);
    let c = choose(&b, h, &auto());
    assert_eq!(c.fire_at, Some(formation(&b, "T")));
    assert_eq!(c.threat, [true; 3]);
    assert_eq!(c.pds_at_ships, [false; 3]);
    // Fixed modes do not fire PDS at ships.
    b.ranges.set(h, d, 120);
    let c = choose(&b, h, &auto());
    assert_eq!(c.pds_at_ships, open_rule(&c, true), "{:?}", c.fire_range);
    for pd in [PdMode::Never, PdMode::Always] {
        let d = Doctrine { pd, ..auto() };
        assert_eq!(choose(&b, h, &d).pds_at_ships, [false; 3], "{pd:?}");
    }
}

// ---- 6. A second Fire Control ------------------------------------------------

/// Whether a beam of class `class` rolls any die at `range`.
fn beam_reaches(class: u8, range: u32) -> bool {
    beam_dice(u32::from(class), range) > 0
}

/// docs/doctrine.md, "Weapons": with `fire_at` left out, a second working
/// Fire Control aims at the nearest other enemy Formation with ships that
/// is nearer than the fire target will be, with every weapon of the Unit
/// that cannot reach the fire target in that Volley but reaches the second
/// one. The light cruiser (two Fire Controls) maneuvers against an escort
/// cruiser 30 MU away (its Class 3 battery reaches it, its Class 2 and
/// Class 1 batteries do not) with an escort destroyer 10 MU away.
#[test]
fn a_second_fire_control_takes_what_cannot_reach_the_fire_target_to_a_nearer_enemy() {
    let l = battle(
        &[("Home", &["MCS Clear Heading"]), ("Tide", &["MCS Unhurried Tide"])],
        &[("Far", &["KRD Long Watch"]), ("Near", &["KRD Ridge Warden"])],
        60,
        "",
    );
    let mut b = l.battle;
    let (home, tide, far, near) = (
        formation(&b, "Home"),
        formation(&b, "Tide"),
        formation(&b, "Far"),
        formation(&b, "Near"),
    );
    for f in [home, tide] {
        b.ranges.set(f, far, 30);
        b.ranges.set(f, near, 10);
    }
    let d = Doctrine {
        target: Selector::Formation(far),
        ..auto()
    };
    let heading = unit(&b, "MCS Clear Heading");
    let fcs = systems(&b, heading, |k| *k == SystemKind::FireControl);
    assert_eq!(fcs.len(), 2);
    let c = choose(&b, home, &d);
    assert_eq!((c.target, c.fire_at, c.second), (Some(far), Some(far), Some(near)));
    let p = plot(&b, home, &d);
    let mut sent = 0;
    for v in 0..3 {
        let range = c.fire_range[v].round() as u32;
        let orders: Vec<_> = p.volleys[v].fire.iter().filter(|o| o.unit == heading).collect();
        let first = orders
            .iter()
            .find(|o| o.fire_control == fcs[0])
            .expect("the first Fire Control fires");
        assert_eq!(first.target, Some(far));
        let second: Vec<usize> = orders
            .iter()
            .find(|o| o.fire_control == fcs[1])
            .map(|o| {
                assert_eq!(o.target, Some(near));
                o.weapons.clone()
            })
            .unwrap_or_default();
        for (s, sys) in b.units[heading].systems.iter().enumerate() {
            let SystemKind::Beam { class } = sys.kind else { continue };
            let elsewhere = !beam_reaches(class, range) && beam_reaches(class, 10);
            assert_eq!(
                second.contains(&s),
                elsewhere,
                "Volley {}: class {class} at {range} MU from the fire target",
                v + 1
            );
            assert_eq!(
                first.weapons.contains(&s),
                !elsewhere,
                "Volley {}: class {class}",
                v + 1
            );
        }
        sent += second.len();
    }
    assert!(sent > 0, "the Class 2 and Class 1 batteries go to the nearer enemy");
    // The destroyer has one Fire Control: everything at the fire target.
    let u = unit(&b, "MCS Unhurried Tide");
    let one = systems(&b, u, |k| *k == SystemKind::FireControl);
    assert_eq!(one.len(), 1);
    let p = plot(&b, tide, &d);
    for v in &p.volleys {
        assert!(v.fire.iter().all(|o| o.fire_control == one[0] && o.target == Some(far)));
    }
    // The cruiser with its second Fire Control damaged: the same.
    b.units[heading].systems[fcs[1]].state = SysState::Damaged;
    let p = plot(&b, home, &d);
    for v in &p.volleys {
        assert!(v.fire.iter().all(|o| o.fire_control == fcs[0] && o.target == Some(far)));
    }
}

// ---- 7. Giving up: withdraw_when = "auto" -------------------------------------

/// docs/doctrine.md, "Giving up": `auto` withdraws a Formation that can no
/// longer do damage at any range (no Unit in control with a working Fire
/// Control and a working weapon, ordnance spent) and can still move: all
/// thrust to Speed, Withdraw from every enemy Formation in the fight,
/// primary from the nearest, secondary from the others.
#[test]
fn a_formation_that_can_no_longer_do_damage_withdraws_from_every_enemy() {
    let l = battle(
        &[
            ("Home", &["MCS Clear Heading", "MCS Small Hours"]),
            ("Rack", &["KRD Sharp Descent"]),
        ],
        &[
            ("Near", &["KRD Ridge Warden"]),
            ("Mid", &["KRD Long Watch"]),
            ("Far", &["KRD Ninefold Gale"]),
        ],
        60,
        "",
    );
    // Kestrel and Meridian ships on both sides would do; the corvette with
    // a rack sits with Ilse here only to test spent ordnance.
    let mut b = l.battle;
    let f = |b: &Battle, n| formation(b, n);
    let (home, near, mid, far) = (f(&b, "Home"), f(&b, "Near"), f(&b, "Mid"), f(&b, "Far"));
    b.ranges.set(home, near, 20);
    b.ranges.set(home, mid, 30);
    b.ranges.set(home, far, 40);
    let tables = DieTables::new();
    let victory = Victory::default();
    let can_fight = |b: &Battle, g: FormationId| {
        let arsenals = arsenals(b);
        let live = fam::engine::doctrine::in_fight(b);
        let enemies = fam::engine::doctrine::enemy_lists(b, &live);
        let ctx = Context {
            battle: b,
            victory: &victory,
            tables: &tables,
            arsenals: &arsenals,
            live: &live,
            enemies: (&enemies.0, &enemies.1),
            nearest: &[],
            aims: &[],
            reaches: &[],
            craft: &[],
        };
        !cannot_fight(&ctx, g)
    };
    let (heading, hours) = (unit(&b, "MCS Clear Heading"), unit(&b, "MCS Small Hours"));
    assert!(can_fight(&b, home));
    assert_eq!(choose(&b, home, &auto()).withdrawing, None);
    // Every Fire Control but one destroyed: it can still fight.
    for u in [heading, hours] {
        for s in systems(&b, u, |k| *k == SystemKind::FireControl) {
            b.units[u].systems[s].state = SysState::Destroyed;
        }
    }
    let last = systems(&b, hours, |k| *k == SystemKind::FireControl)[0];
    b.units[hours].systems[last].state = SysState::Operational;
    assert!(can_fight(&b, home));
    assert_eq!(choose(&b, home, &auto()).withdrawing, None);
    // Every Fire Control gone: it gives up.
    b.units[hours].systems[last].state = SysState::Destroyed;
    assert!(!can_fight(&b, home));
    let c = choose(&b, home, &auto());
    assert_eq!(c.withdrawing, Some(Withdrawal::CannotFight));
    let thrust = b.formation_thrust(home);
    assert_eq!((c.speed, c.evasion), (thrust, 0));
    let p = plot(&b, home, &auto());
    for v in &p.volleys {
        assert_eq!((v.speed, v.evasion), (thrust, 0));
        assert_eq!(
            v.primary,
            Some(ManeuverOrder {
                target: near,
                maneuver: Maneuver::Withdraw
            })
        );
        assert_eq!(
            v.secondary,
            vec![
                ManeuverOrder {
                    target: mid,
                    maneuver: Maneuver::Withdraw
                },
                ManeuverOrder {
                    target: far,
                    maneuver: Maneuver::Withdraw
                }
            ],
            "secondary from the others, nearest first"
        );
    }
    // A Formation that cannot move stays.
    let mut stuck = b.clone();
    for u in [heading, hours] {
        stuck.units[u].thrust = 0;
    }
    assert_eq!(choose(&stuck, home, &auto()).withdrawing, None);
    // Ordnance spent: the rack corvette has no other weapon.
    let rack = f(&b, "Rack");
    let descent = unit(&b, "KRD Sharp Descent");
    assert_eq!(choose(&b, rack, &auto()).withdrawing, None);
    let smr = systems(&b, descent, |k| *k == SystemKind::Smr)[0];
    b.units[descent].systems[smr].spent = 1;
    assert_eq!(choose(&b, rack, &auto()).withdrawing, Some(Withdrawal::CannotFight));
    // `never` keeps it in the fight.
    let never = Doctrine {
        withdraw_when: fam::engine::doctrine::WithdrawWhen::Never,
        ..auto()
    };
    assert_eq!(choose(&b, rack, &never).withdrawing, None);
}

/// Readings D20: with reserves, a side's last Formation with ships does not
/// withdraw when it cannot fight (at the Reserve its side would have no
/// one in combat and lose); while another Formation of its side with ships
/// is in the fight, it does.
#[test]
fn with_reserves_the_last_formation_of_a_side_does_not_give_up() {
    let l = battle(
        &[("Home", &["MCS Clear Heading"]), ("Other", &["MCS Small Hours"])],
        &[("Enemy", &["KRD Ridge Warden"])],
        30,
        "\n[reserves]\nenabled = true\n",
    );
    let mut b = l.battle;
    assert!(b.rules.reserves);
    let (home, other) = (formation(&b, "Home"), formation(&b, "Other"));
    let heading = unit(&b, "MCS Clear Heading");
    for s in systems(&b, heading, |k| *k == SystemKind::FireControl) {
        b.units[heading].systems[s].state = SysState::Destroyed;
    }
    assert_eq!(
        choose(&b, home, &auto()).withdrawing,
        Some(Withdrawal::CannotFight),
        "another Formation of its side fights on"
    );
    let hours = unit(&b, "MCS Small Hours");
    b.units[hours].destroyed = true;
    assert!(!b.formation_active(other));
    let c = choose(&b, home, &auto());
    assert_eq!(c.withdrawing, None, "its side's last Formation stays");
    // Without reserves it withdraws (no Reserve to lose the battle at).
    b.rules.reserves = false;
    assert_eq!(choose(&b, home, &auto()).withdrawing, Some(Withdrawal::CannotFight));
}

// ---- 8. Targets ----------------------------------------------------------------

/// The carrier strike scenario without its plots and standing orders, the
/// strike groups launched and 6 MU from the gun line, the carrier 36 MU
/// from it.
fn launched_strike() -> Battle {
    let text = std::fs::read_to_string(repo().join("scenarios/carrier-strike.toml")).unwrap();
    let text = crate::orders_write::without_tables(&text, &["plot", "doctrine"]).replace("../ssd/", "");
    let mut b = load(&text).battle;
    for g in ["Cinder Flight", "TFP Ember Kiln/14"] {
        let u = unit(&b, g);
        b.units[u].craft.as_mut().unwrap().docked = false;
    }
    let (carrier, strike, line) = (formation(&b, "Carrier"), formation(&b, "Strike"), formation(&b, "Line"));
    assert!(b.craft_only(strike) && b.formation_active(strike));
    b.ranges.set(line, strike, 6);
    b.ranges.set(line, carrier, 36);
    b.ranges.set(carrier, strike, 30);
    b
}

/// Readings D2: `target = "nearest"` (the default) passes over a Formation
/// of small craft only while an enemy Formation with ships is in the fight
/// (small craft come to the ships, and the ships fight ships); Fire
/// Controls never aim at small craft.
#[test]
fn the_default_target_passes_over_small_craft_for_the_nearest_ships() {
    let mut b = launched_strike();
    let (carrier, strike, line) = (formation(&b, "Carrier"), formation(&b, "Strike"), formation(&b, "Line"));
    assert_eq!(
        fam::engine::doctrine::select_enemy(&b, line, Selector::Nearest),
        Some(strike)
    );
    let c = choose(&b, line, &auto());
    assert_eq!(c.target, Some(carrier));
    assert_eq!(c.fire_at, Some(carrier));
    let p = plot(&b, line, &auto());
    for v in &p.volleys {
        assert_eq!(v.primary.map(|m| m.target), Some(carrier));
        assert!(v.fire.iter().all(|o| o.target == Some(carrier) && o.group.is_none()));
    }
    // The groups' attack threatens the line: within 30 MU, in flight.
    assert_eq!(c.threat, [true; 3]);
    // With no ships left on the other side the groups are the target, but
    // nothing fires at them.
    for u in ["TFP Ember Kiln", "TFP Lantern Wake"] {
        let u = unit(&b, u);
        b.units[u].destroyed = true;
    }
    let c = choose(&b, line, &auto());
    assert_eq!(c.target, Some(strike));
    assert_eq!(c.fire_at, None);
    assert!(plot(&b, line, &auto()).volleys.iter().all(|v| v.fire.is_empty()));
}

/// docs/doctrine.md, "Which Formation": with `fire_at` left out, a
/// Formation fires at its `target` while some weapon of its reaches it in
/// the Exchange (by the plan's expected ranges), else at the enemy
/// Formation with ships its fire hurts most, as a share of the hull and
/// armour it has left, at today's range.
#[test]
fn fire_goes_to_the_target_in_reach_else_to_the_enemy_hurt_most() {
    let l = battle(
        &[("Home", &["MCS Clear Heading"])],
        &[
            ("Big", &["KRD High Fell Thunder"]),
            ("Small", &["KRD Sharp Descent"]),
            ("Tough", &["KRD Long Watch"]),
        ],
        60,
        "",
    );
    let mut b = l.battle;
    let f = |b: &Battle, n| formation(b, n);
    let (home, big, small, tough) = (f(&b, "Home"), f(&b, "Big"), f(&b, "Small"), f(&b, "Tough"));
    b.ranges.set(home, big, 100);
    b.ranges.set(home, small, 20);
    b.ranges.set(home, tough, 12);
    let largest = Doctrine {
        target: Selector::Largest,
        ..auto()
    };
    let c = choose(&b, home, &largest);
    assert_eq!(c.target, Some(big), "the largest");
    let to_target = c.plan.unwrap().range;
    assert!(
        to_target.iter().all(|&r| r > 36.0),
        "out of reach all Exchange: {to_target:?}"
    );
    // The share of each enemy's hull and armour the cruiser's beams take a
    // Volley at today's range (a third of its thrust in Evasion).
    let heading = unit(&b, "MCS Clear Heading");
    let hurt = |b: &Battle, e: FormationId| {
        let t = Arsenal::of(b, e);
        let range = b.ranges.get(home, e);
        let dealt: f64 = b.units[heading]
            .systems
            .iter()
            .filter_map(|s| match s.kind {
                SystemKind::Beam { class } => Some(
                    f64::from(beam_dice(u32::from(class), range)) * beam_die(t.thrust / 3, ignored(s.arcs), t.screens),
                ),
                _ => None,
            })
            .sum();
        dealt / f64::from(t.durability)
    };
    let (h_small, h_tough) = (hurt(&b, small), hurt(&b, tough));
    assert_eq!(hurt(&b, big), 0.0);
    assert!(
        h_small > h_tough,
        "{h_small} against {h_tough}: the corvette, though further"
    );
    assert_eq!(c.fire_at, Some(small));
    let p = plot(&b, home, &largest);
    assert!(p.volleys.iter().all(|v| v.fire.iter().any(|o| o.target == Some(small))));
    // The largest 30 MU away: its Class 3 battery reaches it.
    b.ranges.set(home, big, 30);
    let c = choose(&b, home, &largest);
    assert_eq!((c.target, c.fire_at), (Some(big), Some(big)));
    // The default target, the nearest: fire at it.
    let c = choose(&b, home, &auto());
    assert_eq!((c.target, c.fire_at), (Some(tough), Some(tough)));
}

// ---- 9. Pure and legal ------------------------------------------------------------

/// Readings D1: plotting is a pure function of the battle state. The same
/// state gives the same plots and choices: twice in a row, from a copy, and
/// from a work area warmed up on another battle first.
#[test]
fn the_same_battle_gives_the_same_plot_every_time() {
    use fam::engine::doctrine::{PlotWork, standing_plot_into};
    let shipped: Vec<Loaded> = crate::orders_write::scenarios()
        .iter()
        .map(|(name, text)| must_build(name, text, &[], &mut crate::orders_write::read_shipped))
        .collect();
    let mut warm = PlotWork::default();
    for (i, l) in shipped.iter().enumerate() {
        let b = &l.battle;
        let none = vec![None; b.formations.len()];
        let fresh = standing_plot(b, &CheckedPlot::default(), &none, true);
        let copy = b.clone();
        assert_eq!(standing_plot(&copy, &CheckedPlot::default(), &none, true), fresh);
        for f in 0..b.formations.len() {
            assert_eq!(default_formation_plot(b, f), default_formation_plot(b, f));
            assert_eq!(fresh.0.formations[f], default_formation_plot(b, f), "{}", l.scenario);
        }
        // A work area last used on another battle.
        let other = &shipped[(i + 1) % shipped.len()].battle;
        let (mut plot, mut sources) = (CheckedPlot::default(), Vec::new());
        let none_other = vec![None; other.formations.len()];
        standing_plot_into(
            other,
            &Victory::default(),
            &CheckedPlot::default(),
            &none_other,
            true,
            &mut plot,
            &mut sources,
            &mut warm,
        );
        standing_plot_into(
            b,
            &Victory::default(),
            &CheckedPlot::default(),
            &none,
            true,
            &mut plot,
            &mut sources,
            &mut warm,
        );
        assert_eq!((plot, sources), fresh, "{}", l.scenario);
        let choices: Vec<Option<Choice>> = (0..b.formations.len())
            .map(|f| (b.formation_active(f) && !b.craft_only(f)).then(|| choose(b, f, &auto())))
            .collect();
        for (f, c) in choices.iter().enumerate() {
            if let Some(c) = c {
                assert_eq!(warm.choice(f), Some(c), "{}: Formation {f}", l.scenario);
            }
        }
    }
}

/// Every default-doctrine plot, written as orders files, builds against its
/// scenario without a warning (not just without an error) and reads back
/// the same, in battles the default doctrine plays for every Formation from
/// the first Exchange (the scenario's own plots and standing orders left
/// out), over every shipped scenario, seeds 1 to 6, four Exchanges each.
#[test]
fn default_doctrine_plots_build_without_a_warning_in_every_scenario() {
    use crate::orders_write::{orders_per_side, read_shipped, scenarios, without_tables};
    use fam::engine::doctrine::default_plot;
    use std::collections::BTreeMap;
    let mut plotted = 0;
    for (name, text) in scenarios() {
        let first = without_tables(&text, &["plot", "doctrine"]);
        let bare = without_tables(&text, &["plot", "doctrine", "range"]);
        for seed in 1..=6u64 {
            let mut scenario = first.clone();
            let mut records: Option<BTreeMap<String, String>> = None;
            for exchange in 1..=4u32 {
                let what = format!("{name} at seed {seed}, Exchange {exchange}");
                let mut read = |p: &str| match &records {
                    None => read_shipped(p),
                    Some(r) => r
                        .get(p)
                        .map(|t| SourceFile::new(p, t.clone()))
                        .ok_or_else(|| format!("{p} was not written back")),
                };
                let loaded = must_build(&what, &scenario, &[], &mut read);
                let plot = default_plot(&loaded.battle);
                assert_eq!(default_plot(&loaded.battle), plot, "{what}: not pure");
                plotted += plot.formations.iter().flatten().count();
                let built = must_build(&what, &scenario, &orders_per_side(&loaded.battle, &plot), &mut read);
                assert!(
                    built.warnings.is_empty(),
                    "{what}: the default doctrine's plot draws warnings:\n{}",
                    crate::orders_write::lines(&built.warnings)
                );
                assert_eq!(built.plot, plot, "{what}: reads back differently");
                let header = fam::report::Header {
                    title: name.clone(),
                    seed: seed * 1000 + u64::from(exchange),
                    exchange: loaded.exchange,
                };
                let resolved = fam::resolve::resolve(&header, &loaded.battle, &plot, fam::report::Style::Text);
                let mut after = loaded.clone();
                after.write_back(&resolved.battle);
                records = Some(
                    after
                        .records
                        .iter()
                        .map(|r| (r.path.clone(), fam::gzf::write(&r.file)))
                        .collect(),
                );
                let state = &resolved.state;
                let ranges = &state[state.find("\n[[range]]").expect("ranges in the state")..];
                let ranges = &ranges[..ranges.find("\n[[unit]]").unwrap_or(ranges.len())];
                scenario = format!("exchange = {}\n{bare}\n{ranges}", loaded.exchange + 1);
            }
        }
    }
    assert!(plotted > 500, "{plotted} Formation plots checked");
}

// ---- 10. The report says what each Formation chose ---------------------------------

/// `fam resolve scenarios/fleet-action.toml --exchanges 3 --seed 3`: every
/// Exchange after the first is plotted by the default doctrine, and its
/// summary lists one line per Formation saying what it chose. Each line
/// agrees with the `Choice` `resolve::battle_plot` makes from the state at
/// the start of that Exchange (played here from the same seed): the
/// target and the maneuver, the range it seeks and why, the expected
/// ranges, Speed and Evasion, and the fire target.
#[test]
fn the_report_says_what_each_formation_chose() {
    use fam::engine::doctrine::PlotSource;
    use fam::resolve::{Plotted, battle_plot, resolve_battle};
    use std::cell::RefCell;
    let out = crate::support::fam(&[
        "resolve",
        "scenarios/fleet-action.toml",
        "--exchanges",
        "3",
        "--seed",
        "3",
    ]);
    assert!(out.status.success(), "{}", crate::support::text(&out.stderr));
    let report = crate::support::text(&out.stdout);

    let loaded = fam::orders::load_scenario(
        &repo().join("scenarios/fleet-action.toml"),
        &[],
        &fam::gzf::ParseOptions::default(),
    )
    .unwrap();
    let first = battle_plot(&loaded, &loaded.battle, 0, 3);
    let header = fam::report::Header {
        title: loaded.title.clone().unwrap(),
        seed: fam::engine::victory::exchange_seed(3, loaded.exchange),
        exchange: loaded.exchange,
    };
    let later: RefCell<Vec<(Battle, Plotted)>> = RefCell::new(Vec::new());
    let played = resolve_battle(
        &header,
        3,
        &loaded.battle,
        &first,
        &loaded.victory,
        3,
        fam::report::Style::Text,
        false,
        &|b| {
            let p = battle_plot(&loaded, b, 1, 3);
            later.borrow_mut().push((b.clone(), p.clone()));
            p
        },
    );
    assert_eq!(played.exchanges, 3);
    let later = later.into_inner();
    assert_eq!(later.len(), 2, "Exchanges 2 and 3 are generated");
    let mut checked = 0;
    for (k, (state, plotted)) in later.iter().enumerate() {
        let exchange = k as u32 + 2;
        let start = report
            .find(&format!("\nExchange {exchange} (seed "))
            .unwrap_or_else(|| panic!("no Exchange {exchange}:\n{report}"));
        let section = &report[start..];
        let section = &section[..section[1..].find("\nExchange ").map_or(section.len(), |i| i + 1)];
        assert!(section.contains("plots generated"), "{section}");
        let name = |f: FormationId| state.formations[f].name.as_str();
        for f in 0..state.formations.len() {
            if !state.formation_active(f) {
                continue;
            }
            assert_eq!(plotted.sources[f], PlotSource::DefaultDoctrine);
            let c = plotted.choices[f]
                .as_ref()
                .expect("a generated plot says what it chose");
            let line = section
                .lines()
                .find(|l| l.starts_with(&format!("  {}: ", name(f))))
                .unwrap_or_else(|| panic!("Exchange {exchange}: no line for {}:\n{section}", name(f)));
            let has = |s: &str| assert!(line.contains(s), "Exchange {exchange}: {s:?} not in\n{line}");
            has(&format!("Speed {}, Evasion {}", c.speed, c.evasion));
            let thrust = state.formation_thrust(f);
            assert_eq!(c.speed + c.evasion, thrust);
            // The plot played is the one the choice describes.
            let p = plotted.plot.formations[f].as_ref().unwrap();
            for (v, vp) in p.volleys.iter().enumerate() {
                assert_eq!((vp.speed, vp.evasion), (c.speed, c.evasion));
                assert_eq!(
                    vp.primary.map(|m| (m.target, m.maneuver)),
                    c.target.map(|t| (t, c.maneuvers[v]))
                );
            }
            if c.withdrawing.is_some() {
                has("withdraws from every enemy");
                continue;
            }
            let t = c.target.expect("an enemy to maneuver against");
            let word = match c.maneuvers[0] {
                Maneuver::Close => "closes on",
                Maneuver::Maintain => "keeps its range to",
                Maneuver::Withdraw => "opens the range from",
            };
            has(&format!("{word} {}", name(t)));
            let plan = c.plan.expect("the default doctrine plans against an enemy");
            has(&format!("seeking {} MU ", plan.seek));
            let (ours, theirs) = plan.ordnance_at_seek;
            let ordnance = if ours > 0.0 || theirs > 0.0 {
                format!(", and {ours:.1} against {theirs:.1} of ordnance)")
            } else {
                ")".to_string()
            };
            // Readings D24: a plan weighed with allies says so.
            let allies = if plan.with_allies {
                " with the allied Formations that face it too"
            } else {
                ""
            };
            match plan.stance {
                Stance::Outgun => has(&format!(
                    "where it outguns it{allies} ({:.1} against {:.1} damage a Volley{ordnance}",
                    plan.at_seek.0, plan.at_seek.1
                )),
                Stance::LeastBad => has(&format!(
                    "where it is outgunned least{allies} ({:.1} against {:.1} damage a Volley{ordnance}",
                    plan.at_seek.0, plan.at_seek.1
                )),
                Stance::Avoid => has("out of its reach"),
                Stance::NoFight => has("neither can reach the other"),
            }
            has(&format!(
                "expected range {:.0}, {:.0}, {:.0} MU",
                plan.range[0], plan.range[1], plan.range[2]
            ));
            if let Some(ft) = c.fire_at {
                has(&format!("fires at {}", name(ft)));
            }
            checked += 1;
        }
    }
    assert!(checked >= 12, "{checked} lines checked");
}

/// docs/doctrine.md, "The default doctrine" 4: the plan moves the range by
/// the Movement Phase's arithmetic in expectation. A Maintain only cancels
/// the other side's Speed Points, so against it a Close or Withdraw gains
/// what it is expected to outpace it by (counted here over every roll of
/// the dice), not the difference of the means; Close against Close or
/// Withdraw moves by the mean Speed Points.
#[test]
fn the_plan_moves_the_range_by_what_a_mover_outpaces_a_maintain_by() {
    use fam::engine::doctrine::plan::{Move, step};
    let t = DieTables::new();
    let mv = |maneuver, dice, secondary| Move {
        maneuver,
        dice,
        secondary,
    };
    // E[max(0, A − B)] for three dice against two, over all 6^5 rolls.
    let points = |face: u32| match face {
        1..=3 => 0i64,
        4 | 5 => 1,
        _ => 2,
    };
    let mut excess = 0i64;
    for code in 0..6u32.pow(5) {
        let (mut a, mut b, mut c) = (0, 0, code);
        for die in 0..5 {
            let p = points(c % 6 + 1);
            c /= 6;
            if die < 3 { a += p } else { b += p }
        }
        excess += (a - b).max(0);
    }
    let excess = excess as f64 / f64::from(6u32.pow(5));
    let close = step(
        &t,
        30.0,
        mv(Maneuver::Close, 3, false),
        mv(Maneuver::Maintain, 2, false),
    );
    assert!(abs_diff_eq!(close, 30.0 - 3.0 * excess, epsilon = 1e-9), "{close}");
    // The same from either side of the pair.
    let swapped = step(
        &t,
        30.0,
        mv(Maneuver::Maintain, 2, false),
        mv(Maneuver::Close, 3, false),
    );
    assert_abs_diff_eq!(swapped, close, epsilon = 1e-9);
    let opened = step(
        &t,
        30.0,
        mv(Maneuver::Withdraw, 3, false),
        mv(Maneuver::Maintain, 2, false),
    );
    assert!(abs_diff_eq!(opened, 30.0 + 3.0 * excess, epsilon = 1e-9), "{opened}");
    // Equal dice: the difference of the means would leave the range at 30.
    let equal = step(
        &t,
        30.0,
        mv(Maneuver::Close, 4, false),
        mv(Maneuver::Maintain, 4, false),
    );
    assert!(equal < 28.0, "{equal}");
    // Close against Close: both sides' mean Speed Points, 3 MU a point.
    let both = step(&t, 30.0, mv(Maneuver::Close, 3, false), mv(Maneuver::Close, 3, false));
    assert!(abs_diff_eq!(both, 30.0 - 3.0 * 4.0, epsilon = 1e-9), "{both}");
    // Close against Withdraw: the difference of the means.
    let chase = step(
        &t,
        30.0,
        mv(Maneuver::Close, 6, false),
        mv(Maneuver::Withdraw, 3, false),
    );
    assert!(abs_diff_eq!(chase, 30.0 - 3.0 * 2.0, epsilon = 1e-9), "{chase}");
    // A secondary maneuver scores one point fewer.
    let second = step(&t, 30.0, mv(Maneuver::Close, 3, true), mv(Maneuver::Maintain, 2, false));
    assert!(second > close, "{second} against {close}");
}

#[test]
fn no_formation_deals_sustained_fire_beyond_its_sustained_reach() {
    // The target search skips enemies beyond `sustained_reach` without
    // weighing them: that is only the same answer if the fire weighed
    // there is nothing. Every pair of Formations of every shipped
    // scenario, at every Evasion, and a nova cannon (no shipped ship
    // carries one).
    let tables = DieTables::new();
    let mut scenarios: Vec<_> = std::fs::read_dir(repo().join("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    scenarios.sort();
    let mut pairs = 0;
    for name in scenarios {
        let path = repo().join("scenarios").join(&name);
        let b = fam::orders::load_scenario(&path, &[], &Default::default())
            .unwrap_or_else(|_| panic!("{name} loads"))
            .battle;
        let arsenals: Vec<Arsenal> = (0..b.formations.len()).map(|f| Arsenal::of(&b, f)).collect();
        for a in &arsenals {
            for t in &arsenals {
                for e in 0..=3 {
                    let fp = fam::engine::doctrine::assess::Firepower::new(&tables, a, t, e);
                    let beyond = a.sustained_reach() + 1;
                    assert_eq!(fp.at(beyond), 0.0, "{name}: fire beyond {beyond} MU");
                    assert!(fp.reach <= a.sustained_reach(), "{name}");
                    pairs += 1;
                }
            }
        }
    }
    assert!(pairs > 100);
    let nova = Arsenal {
        novas: [1, 0, 0],
        ..Arsenal::default()
    };
    let target = Arsenal {
        screens: [1.0, 0.0, 0.0],
        ..Arsenal::default()
    };
    let fp = fam::engine::doctrine::assess::Firepower::new(&tables, &nova, &target, 0);
    assert!(
        fp.at(fam::engine::tables::NOVA_RANGE) > 0.0,
        "a nova cannon reaches its range"
    );
    assert_eq!(nova.sustained_reach(), fam::engine::tables::NOVA_RANGE);
}

#[test]
fn a_plan_read_back_from_the_memo_is_the_plan_made_afresh() {
    // Every Formation of every shipped scenario decides under the default
    // doctrine three times: without the memo, with it (made and kept), and
    // with it again (read back). All three agree, and the memo is read.
    use fam::engine::doctrine::decide::decide_with;
    use fam::engine::doctrine::plan::PlanMemo;
    let tables = DieTables::new();
    let victory = Victory::default();
    let mut scenarios: Vec<_> = std::fs::read_dir(repo().join("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    scenarios.sort();
    let mut memo = PlanMemo::default();
    let mut planned = 0;
    for path in scenarios {
        let b = fam::orders::load_scenario(&path, &[], &Default::default())
            .unwrap_or_else(|_| panic!("{} loads", path.display()))
            .battle;
        let arsenals = arsenals(&b);
        let live = fam::engine::doctrine::in_fight(&b);
        let enemies = fam::engine::doctrine::enemy_lists(&b, &live);
        let ctx = Context {
            battle: &b,
            victory: &victory,
            tables: &tables,
            arsenals: &arsenals,
            live: &live,
            enemies: (&enemies.0, &enemies.1),
            nearest: &[],
            aims: &[],
            reaches: &[],
            craft: &[],
        };
        for f in 0..b.formations.len() {
            if !b.formation_active(f) || b.craft_only(f) {
                continue;
            }
            let d = Doctrine::default();
            let fresh = decide(&ctx, f, &d);
            let made = decide_with(&ctx, &mut memo, f, &d);
            let read = decide_with(&ctx, &mut memo, f, &d);
            assert_eq!(fresh, made, "{}: Formation {f}", path.display());
            assert_eq!(fresh, read, "{}: Formation {f}", path.display());
            planned += usize::from(fresh.plan.is_some());
        }
    }
    assert!(planned > 20, "the scenarios have plans to remember ({planned})");
    assert!(memo.hits() >= planned as u64, "every second plan is read back");
}

/// What the commander keeps of what it weighed changes no plot: whole
/// battles of shipped scenarios, every Exchange plotted by their standing
/// orders or the default doctrine, give the same plots, sources and
/// choices Exchange after Exchange with the memo a batch worker keeps,
/// with one of a single slot a cache (each key pushing the last out, every
/// arsenal numbered anew) and with one that keeps nothing. Each work area
/// plays every battle, so the memos carry what they kept from battle to
/// battle, as a batch worker's do.
#[test]
fn what_the_commander_keeps_changes_no_plot() {
    use fam::engine::dice::Dice;
    use fam::engine::doctrine::plan::PlanMemo;
    use fam::engine::doctrine::{PlotWork, standing_plot_into};
    use fam::engine::victory::{decide as outcome, exchange_seed, side_masses};
    use fam::engine::volley::{Scratch, run_exchange};
    let mut works = [
        PlotWork::default(),
        PlotWork::with_memo(PlanMemo::with_slots(1)),
        PlotWork::with_memo(PlanMemo::off()),
    ];
    let mut plotted = 0;
    for name in [
        "fleet-action",
        "missile-strike",
        "carrier-strike",
        "squadron-action",
        "standing-orders",
    ] {
        let path = repo().join(format!("scenarios/{name}.toml"));
        let l = fam::orders::load_scenario(&path, &[], &Default::default()).unwrap_or_else(|_| panic!("{name} loads"));
        let start = side_masses(&l.battle);
        for run in 0..4 {
            let mut b = l.battle.clone();
            let mut scratch = Scratch::default();
            for k in l.exchange..l.exchange + 8 {
                let plots: Vec<_> = works
                    .iter_mut()
                    .map(|w| {
                        let (mut plot, mut sources) = (CheckedPlot::default(), Vec::new());
                        let none = CheckedPlot::default();
                        standing_plot_into(&b, &l.victory, &none, &l.doctrine, true, &mut plot, &mut sources, w);
                        (plot, sources, w.choices().to_vec())
                    })
                    .collect();
                assert!(plots[1] == plots[0], "{name}, run {run}, Exchange {k}: one slot");
                assert!(plots[2] == plots[0], "{name}, run {run}, Exchange {k}: nothing kept");
                plotted += 1;
                let mut dice = Dice::new(exchange_seed(run, k));
                run_exchange(&mut b, &plots[0].0, &mut dice, &mut (), &mut scratch);
                if outcome(&b, &start, &l.victory, k).is_some() {
                    break;
                }
            }
        }
    }
    assert!(plotted > 40, "{plotted} plots");
}

// ---- Small craft, targets that cannot move, ordnance spent where it pays --

/// Mean damage of one attack-run die of a fighter at DRM `drm` against
/// `screen` (docs/fighters.md §3.2): the beam table after the DRM, no
/// Evasion DRM, a natural 6 rerolling.
fn craft_die_mean(drm: i32, screen: usize) -> f64 {
    (1..=6)
        .map(|face| beam_table(face + drm, screen) + if face == 6 { reroll_mean() } else { 0.0 })
        .sum::<f64>()
        / 6.0
}

/// The Ember Kiln (a light carrier whose Attack group, Cinder Flight, is
/// docked and ready, and which carries a Standard and a Fast Interceptor
/// group) against the Patient Ember (one screen).
fn carrier_and_frigate(range: u32) -> Battle {
    battle(
        &[("Carrier", &["TFP Ember Kiln"])],
        &[("Frigate", &["MCS Patient Ember"])],
        range,
        "",
    )
    .battle
}

/// docs/doctrine.md, "The default doctrine" 1: the attack runs of the small
/// craft that fly with a Formation's ships are in its sustained fire within
/// 6 MU, one die a craft on the beam table at the group's DRM (Attack +1),
/// no Evasion DRM; fighters that screen (the Standard and interceptor
/// groups) add nothing. Behind the frigate's one screen an Attack die reads
/// 0, 0, 0, 1, 2, 2 and a reroll: 5.8/6.
#[test]
fn a_carriers_attack_group_strikes_within_six_mu_in_the_plan() {
    let b = carrier_and_frigate(30);
    let (carrier, frigate) = (formation(&b, "Carrier"), formation(&b, "Frigate"));
    let group = unit(&b, "Cinder Flight");
    let craft = b.units[group].craft.expect("a fighter group").craft;
    let ours = Arsenal::of(&b, carrier);
    assert_eq!(ours.craft_dice, [0, 0, craft], "the Attack group alone attacks");
    assert_eq!(ours.craft_torpedoes, 0);
    let theirs = Arsenal::of(&b, frigate);
    assert_eq!(theirs.screens, [0.0, 1.0, 0.0]);
    let tables = DieTables::new();
    for evasion in [0, 1, 2] {
        let strike = sustained(&tables, &ours, &theirs, 6, evasion) - sustained(&tables, &ours, &theirs, 7, evasion);
        assert_abs_diff_eq!(strike, f64::from(craft) * craft_die_mean(1, 1), epsilon = 1e-9);
    }
    assert_abs_diff_eq!(craft_die_mean(1, 1), 5.8 / 6.0, epsilon = 1e-9);
    // A group that is spent, or a carrier that lost the bay, strikes no more.
    let mut spent = b.clone();
    if let Some(c) = spent.units[group].craft.as_mut() {
        c.cef = 0;
    }
    assert_eq!(Arsenal::of(&spent, carrier).craft_dice, [0; 3]);
}

/// The frigate's class-1 beams stay on its targets while the carrier whose
/// Attack group rides with it is far off (the group attacks only from
/// within 6 MU of its carrier's Formation), and defend once the carrier
/// may come within 6 MU (docs/doctrine.md, `pd`).
#[test]
fn class1_beams_defend_against_riding_groups_only_where_their_carrier_may_come() {
    let far = carrier_and_frigate(48);
    let c = choose(&far, formation(&far, "Frigate"), &auto());
    assert_eq!(c.threat, [false; 3], "48 MU away the group cannot attack");
    let near = carrier_and_frigate(6);
    let c = choose(&near, formation(&near, "Frigate"), &auto());
    assert!(c.threat[0], "at 6 MU the group may attack at once: {:?}", c.threat);
}

/// docs/doctrine.md, "The default doctrine" 4: a Formation that fights a
/// target that cannot move (a base, Thrust 0) from beyond the range it
/// seeks closes on it at once; waiting only runs the clock out. Every ship
/// of the library's navies here, against the anchorage, from 60 MU.
#[test]
fn a_formation_that_fights_a_target_that_cannot_move_heads_for_its_range() {
    let attackers = [
        "MCS Long Meridian",
        "MCS Sovereign Bearing",
        "MCS Clear Heading",
        "KRD High Fell Thunder",
        "KRD Stone Patience",
        "TFP Lantern Wake",
    ];
    let mut fighting = 0;
    for ship in attackers {
        let b = battle(&[("Attack", &[ship])], &[("Base", &["Waypoint Halcyon"])], 60, "").battle;
        let (attack, base) = (formation(&b, "Attack"), formation(&b, "Base"));
        assert_eq!(Arsenal::of(&b, base).thrust, 0);
        let c = choose(&b, attack, &auto());
        let p = c.plan.expect("planned");
        if matches!(p.stance, Stance::Outgun | Stance::LeastBad) && 60 > p.seek + 3 {
            fighting += 1;
            assert_eq!(
                c.maneuvers[0],
                Maneuver::Close,
                "{ship} seeking {} MU: {:?}",
                p.seek,
                c.maneuvers
            );
        }
    }
    assert!(fighting > 0, "some attacker fights the base");
}

/// docs/doctrine.md, `use_ordnance`: salvo launchers hold their later
/// Volleys once the salvos launched are expected to deal 1.5 times the
/// hull and armour the target has left: a missile cruiser in reach of a
/// corvette launches only until that much is on its way, and empties its
/// magazine (three loads, one a Volley) into a dreadnought.
#[test]
fn salvo_launchers_hold_loads_the_target_cannot_absorb() {
    let tables = DieTables::new();
    let launched = |target: &str| {
        let b = battle(
            &[("Missiles", &["KRD Ninefold Gale"])],
            &[("Target", &[target])],
            18,
            "",
        )
        .battle;
        let (m, t) = (formation(&b, "Missiles"), formation(&b, "Target"));
        let ours = Arsenal::of(&b, m);
        assert_eq!((ours.salvos[0].launchers, ours.salvos[0].loads), (1, 3));
        let theirs = Arsenal::of(&b, t);
        let c = choose(&b, m, &auto());
        assert_eq!(c.fire_at, Some(t));
        let volleys = (0..3).filter(|&v| c.launches.salvos[v][0]).count();
        // Salvos needed: launched one a Volley until the expected damage
        // reaches 1.5 times the target's hull and armour left.
        let one = missiles(&tables, 1.0, 0.0, &theirs, theirs.thrust / 3, true);
        let enough = 1.5 * f64::from(theirs.durability);
        let needed = (1..=3u32).find(|&k| f64::from(k) * one >= enough).unwrap_or(3) as usize;
        (
            volleys,
            needed,
            [
                c.launches.salvos[0][0],
                c.launches.salvos[1][0],
                c.launches.salvos[2][0],
            ],
        )
    };
    let (volleys, needed, which) = launched("MCS Small Hours");
    assert_eq!(volleys, needed);
    assert!(needed < 3, "a corvette cannot absorb three salvos");
    assert!(which[0], "the first Volley launches: {which:?}");
    let (volleys, needed, _) = launched("MCS Sovereign Bearing");
    assert_eq!((volleys, needed), (3, 3));
}

/// Readings D24: a Formation's plan weighs with it the allied Formations
/// whose nearest enemy is its target too, and only those; the plan says so.
#[test]
fn allies_facing_the_same_target_are_weighed_with_the_plan_and_no_others() {
    let alone = battle(
        &[("A", &["MCS Clear Heading"])],
        &[("Big", &["KRD Kettle of Hawks"])],
        36,
        "",
    )
    .battle;
    let p = choose(&alone, formation(&alone, "A"), &auto()).plan.expect("planned");
    assert!(!p.with_allies, "alone: no allies");

    let allied = battle(
        &[("A", &["MCS Clear Heading"]), ("B", &["MCS Long Meridian"])],
        &[("Big", &["KRD Kettle of Hawks"])],
        36,
        "",
    )
    .battle;
    let q = choose(&allied, formation(&allied, "A"), &auto()).plan.expect("planned");
    assert!(q.with_allies, "B's nearest enemy is Big too");
    // With B's fire added, A's side of the trade at any range it may seek
    // is more than A's alone at the same range.
    assert!(
        q.at_seek.0 > 0.0 && (q.seek != p.seek || q.at_seek.0 > p.at_seek.0),
        "{q:?} against {p:?}"
    );

    // B's nearest enemy is another Formation: A faces Big alone.
    let apart = battle(
        &[("A", &["MCS Clear Heading"]), ("B", &["MCS Long Meridian"])],
        &[("Big", &["KRD Kettle of Hawks"]), ("Far", &["KRD Sharp Descent"])],
        36,
        "\n[[range]]\nbetween = [\"A\", \"Far\"]\nmu = 60\n\n[[range]]\nbetween = [\"B\", \"Far\"]\nmu = 12\n\n[[range]]\nbetween = [\"B\", \"Big\"]\nmu = 50\n",
    )
    .battle;
    let r = choose(&apart, formation(&apart, "A"), &auto()).plan.expect("planned");
    assert_eq!(apart.ranges.get(formation(&apart, "A"), formation(&apart, "Big")), 36);
    assert!(!r.with_allies, "B fights Far, not Big");
}

/// What Formation `f` decides under doctrine `d` and the scenario's own
/// victory rules.
fn choose_under(l: &Loaded, f: FormationId, d: &Doctrine) -> Choice {
    choose_in(&l.battle, &l.victory, f, d)
}

#[test]
fn the_default_target_is_the_objective_the_side_wins_by() {
    // Readings D25: Ilse wins by destroying KRD Stone Patience, 40 MU off
    // behind a picket 12 MU off. The default goes for the objective; the
    // word "nearest" still means the nearest; Marek, holding the objective,
    // has none of his own and takes the nearest.
    let extra = "\n[[range]]\nbetween = [\"Raiders\", \"Station\"]\nmu = 40\n\n[[range]]\nbetween = [\"Raiders\", \"Picket\"]\nmu = 12\n\n[victory]\nunit_destroyed = [{ unit = \"KRD Stone Patience\", winner = \"Ilse\" }]\n";
    let l = battle(
        &[("Raiders", &["MCS Long Meridian", "MCS Clear Heading"])],
        &[("Picket", &["KRD Sharp Descent"]), ("Station", &["KRD Stone Patience"])],
        20,
        extra,
    );
    let b = &l.battle;
    let (raiders, picket, station) = (formation(b, "Raiders"), formation(b, "Picket"), formation(b, "Station"));
    let c = choose_under(&l, raiders, &Doctrine::default());
    assert_eq!((c.target, c.objective), (Some(station), true));
    let nearest = Doctrine {
        target: Selector::Nearest,
        ..Doctrine::default()
    };
    let c = choose_under(&l, raiders, &nearest);
    assert_eq!((c.target, c.objective), (Some(picket), false));
    for f in [picket, station] {
        let c = choose_under(&l, f, &Doctrine::default());
        assert_eq!(
            (c.target, c.objective),
            (Some(raiders), false),
            "{}",
            b.formations[f].name
        );
    }
    // The report's plan line names it.
    let plot = standing_plot_under(&l);
    let line = plot
        .iter()
        .find(|l| l.starts_with("Raiders:"))
        .expect("a line for Raiders");
    assert!(line.contains("Station (its side's objective)"), "{line}");

    // The objective's Unit out of the fight: the nearest again.
    let mut gone = l.clone();
    let stone = unit(&gone.battle, "KRD Stone Patience");
    gone.battle.units[stone].destroyed = true;
    let c = choose_under(&gone, raiders, &Doctrine::default());
    assert_eq!((c.target, c.objective), (Some(picket), false));

    // An objective of the other side's (Marek wins by destroying one of
    // Ilse's Units) changes nothing for Ilse.
    let theirs = battle(
        &[("Raiders", &["MCS Long Meridian", "MCS Clear Heading"])],
        &[("Picket", &["KRD Sharp Descent"]), ("Station", &["KRD Stone Patience"])],
        20,
        &extra.replace("winner = \"Ilse\"", "winner = \"Marek\""),
    );
    let c = choose_under(&theirs, raiders, &Doctrine::default());
    assert_eq!((c.target, c.objective), (Some(picket), false));
}

/// The report's plan lines of the first Exchange of `l` played by the
/// default doctrine under its victory rules.
fn standing_plot_under(l: &Loaded) -> Vec<String> {
    let mut plot = CheckedPlot::default();
    let mut sources = Vec::new();
    let mut work = fam::engine::doctrine::PlotWork::default();
    let explicit = CheckedPlot::default();
    fam::engine::doctrine::standing_plot_into(
        &l.battle,
        &l.victory,
        &explicit,
        &[],
        true,
        &mut plot,
        &mut sources,
        &mut work,
    );
    fam::report::doctrine_lines(&l.battle, work.choices())
}

#[test]
fn a_unit_that_wins_by_escaping_runs_for_the_reserve_and_the_enemy_goes_for_it() {
    // Readings D26: Ilse wins when MCS Clear Heading reaches the Reserve.
    // Its Formation runs for it (all thrust to Speed, away from every
    // enemy) while the escort fights on; Marek's Formations turn on the
    // runner, 40 MU off behind an escort 12 MU off.
    let extra = "\n[[range]]\nbetween = [\"Runner\", \"Hunters\"]\nmu = 40\n\n[[range]]\nbetween = [\"Runner\", \"Picket\"]\nmu = 40\n\n[[range]]\nbetween = [\"Escort\", \"Hunters\"]\nmu = 12\n\n[[range]]\nbetween = [\"Escort\", \"Picket\"]\nmu = 12\n\n[reserves]\nenabled = true\n\n[victory]\nunit_escaped = [{ unit = \"MCS Clear Heading\", winner = \"Ilse\" }]\n";
    let ilse: &[(&str, &[&str])] = &[("Runner", &["MCS Clear Heading"]), ("Escort", &["MCS Long Meridian"])];
    let marek: &[(&str, &[&str])] = &[("Picket", &["KRD Sharp Descent"]), ("Hunters", &["KRD Ninefold Gale"])];
    let l = battle(ilse, marek, 20, extra);
    let b = &l.battle;
    let [runner, escort, picket, hunters] = ["Runner", "Escort", "Picket", "Hunters"].map(|n| formation(b, n));
    let heading = unit(b, "MCS Clear Heading");
    let c = choose_under(&l, runner, &Doctrine::default());
    assert_eq!(c.withdrawing, Some(Withdrawal::Escape(heading)));
    assert_eq!(c.maneuvers, [Maneuver::Withdraw; 3]);
    assert_eq!((c.speed, c.evasion), (b.formation_thrust(runner), 0));
    // The escort has no escape of its own: it fights the nearest.
    let c = choose_under(&l, escort, &Doctrine::default());
    assert_eq!(c.withdrawing, None);
    for f in [picket, hunters] {
        let c = choose_under(&l, f, &Doctrine::default());
        assert_eq!(
            (c.target, c.objective),
            (Some(runner), true),
            "{}",
            b.formations[f].name
        );
        // The word "nearest" still means the nearest.
        let nearest = Doctrine {
            target: Selector::Nearest,
            ..Doctrine::default()
        };
        assert_eq!(choose_under(&l, f, &nearest).target, Some(escort));
    }
    // Standing orders that never withdraw keep the runner in the fight.
    let never = Doctrine {
        withdraw_when: WithdrawWhen::Never,
        ..Doctrine::default()
    };
    assert_eq!(choose_under(&l, runner, &never).withdrawing, None);
    // The report says why it runs.
    let plot = standing_plot_under(&l);
    let line = plot
        .iter()
        .find(|l| l.starts_with("Runner:"))
        .expect("a line for Runner");
    assert!(
        line.contains("it runs for the Reserve: MCS Clear Heading reaching it wins the battle for its side"),
        "{line}"
    );

    // Without the Reserve there is no escape; nor when the runner's side
    // would have no one left in combat once it escaped (it would lose first,
    // readings V8): then every Formation fights as it would without it.
    let no_reserve = battle(ilse, marek, 20, &extra.replace("enabled = true", "enabled = false"));
    let alone = battle(
        &ilse[..1],
        marek,
        20,
        &extra
            .split("[reserves]")
            .nth(1)
            .map(|rest| format!("\n[reserves]{rest}"))
            .expect("the reserves table"),
    );
    for l in [&no_reserve, &alone] {
        let b = &l.battle;
        let runner = formation(b, "Runner");
        assert_eq!(choose_under(l, runner, &Doctrine::default()).withdrawing, None);
        for f in [formation(b, "Picket"), formation(b, "Hunters")] {
            assert!(!choose_under(l, f, &Doctrine::default()).objective);
        }
    }
}
