//! Nova cannons (ft-rules §4.5, FTC §7.23; readings W63-W65): the blast
//! lands in the Volley it is fired with 6, 4 or 2 d6 by the turn of its
//! travel that reaches the range, each die less the Evasion Points,
//! straight to the hull through screens and armour; the firing ship has
//! no thrust (its Formation rolls no Speed or Evasion dice), its screens
//! are down and it fires nothing else; the `nova_cannon_formation`
//! switch; the orders and the default commander.
//!
//! Every expected value is worked out here from the reading, never copied
//! from a run; the statistical check uses a fixed seed and a bound of five
//! standard errors from the exact variance.

use std::collections::BTreeMap;

use approx::{abs_diff_eq, assert_abs_diff_eq};

use fam::engine::dice::Dice;
use fam::engine::doctrine::assess::{Arsenal, DieTables, sustained};
use fam::engine::event::{BeamAttack, NovaArmed, NovaCannonAttack, Pools, Recorder, WeaponIdle};
use fam::engine::plot::{ExchangePlot, FireOrder, FormationPlot, SystemId, VolleyPlot};
use fam::engine::rules::Rules;
use fam::engine::state::{Battle, Formation, RangeTable, Side, SysState, Unit};
use fam::engine::volley::{Scratch, run_volley};

use super::support::{checked, fam, text};

const FCS: SystemId = 0;
const NOVA: SystemId = 1;
/// The Novabeam's class-2 battery, PDS and screen generator.
const BATTERY: SystemId = 2;
const SCREEN: SystemId = 4;

/// A nova-cannon ship, one that also carries a beam battery, a PDS and a
/// screen, targets with 4 armour boxes and four rows of 15 hull boxes
/// (unscreened, two standard screens, two advanced screens), and a brawler
/// with a class-2 beam.
const SHIPS: &str = "Profile: FB1\n\n\
    Ship: Nova\nMass: 100\nThrust-Rating: 4\n\
    Damage-Track: OOOOOOOOOO OOOOOOOOOO OOOOOOOOOO\n\n\
    System: FCS\n\n\
    System: Nova Cannon\nFiring-Arc: F\n\n\
    Ship: Novabeam\nMass: 100\nThrust-Rating: 4\n\
    Damage-Track: OOOOOOOOOO OOOOOOOOOO OOOOOOOOOO\n\n\
    System: FCS\n\n\
    System: Nova Cannon\nFiring-Arc: F\n\n\
    System: Class 2 Battery\nFiring-Arc: FP F FS AP A AS\n\n\
    System: PDS\n\n\
    System: Screen Generator\n\n\
    Ship: Plain\nMass: 100\nThrust-Rating: 4\nArmour: O O O O\n\
    Damage-Track: OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO\n\n\
    Ship: Plain2\nMass: 100\nThrust-Rating: 4\nArmour: O O O O\n\
    Damage-Track: OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO\n\n\
    Ship: Screened\nMass: 100\nThrust-Rating: 4\nArmour: O O O O\n\
    Damage-Track: OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO\n\n\
    System: Screen Generator\n\nSystem: Screen Generator\n\n\
    Ship: Advanced2\nMass: 100\nThrust-Rating: 4\nArmour: O O O O\n\
    Damage-Track: OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO\n\n\
    System: Advanced Screen Generator\n\nSystem: Advanced Screen Generator\n\n\
    Ship: Brawler\nMass: 100\nThrust-Rating: 4\n\
    Damage-Track: OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO\n\n\
    System: FCS\n\nSystem: Class 2 Battery\nFiring-Arc: FP F FS AP A AS\n";

/// `firer` (Unit 0, Formation 0) against the Formation of `others` (Units
/// 1 …, Formation 1).
fn battle(range: u32, firer: &str, others: &[&str], rules: Rules) -> Battle {
    let parsed = fam::gzf::parse(SHIPS, &fam::gzf::ParseOptions::default());
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    let file = parsed.file;
    let mut units = vec![Unit::from_ship(file.ship(firer).unwrap(), file.profile, 0, 0)];
    for name in others {
        units.push(Unit::from_ship(file.ship(name).unwrap(), file.profile, 1, 1));
    }
    Battle {
        sides: vec![Side { name: "A".into() }, Side { name: "B".into() }],
        formations: vec![
            Formation {
                name: "F0".into(),
                side: 0,
                units: vec![0],
                reserve: Default::default(),
            },
            Formation {
                name: "F1".into(),
                side: 1,
                units: (1..=others.len()).collect(),
                reserve: Default::default(),
            },
        ],
        units,
        ranges: RangeTable::new(2, range),
        rules,
    }
}

fn order(unit: usize, target: usize, weapons: &[SystemId]) -> FireOrder {
    FireOrder {
        unit,
        fire_control: FCS,
        target: Some(target),
        weapons: weapons.to_vec(),
        needles: Vec::new(),
        group: None,
    }
}

/// Formation 0 fires `weapons` at Formation 1 in every Volley with
/// `speed` and `evasion` dice plotted; Formation 1 rolls `evasion1`
/// Evasion dice and its Unit 1 fires `back` (weapon 1) at Formation 0.
fn plot(weapons: &[SystemId], speed: u32, evasion: u32, evasion1: u32, back: bool) -> ExchangePlot {
    let mine = VolleyPlot {
        speed,
        evasion,
        fire: vec![order(0, 1, weapons)],
        ..VolleyPlot::default()
    };
    let theirs = VolleyPlot {
        evasion: evasion1,
        fire: if back { vec![order(1, 0, &[1])] } else { Vec::new() },
        ..VolleyPlot::default()
    };
    ExchangePlot {
        formations: vec![
            Some(FormationPlot {
                volleys: [mine.clone(), mine.clone(), mine],
            }),
            Some(FormationPlot {
                volleys: [theirs.clone(), theirs.clone(), theirs],
            }),
        ],
    }
}

/// Plays Volley 1 of `p` on exactly `faces` (checked).
fn step(b: &mut Battle, p: &ExchangePlot, faces: &[u8]) -> Recorder {
    let mut rec = Recorder::default();
    let mut dice = Dice::from_faces(faces);
    let p = &checked(b, p);
    run_volley(b, p, 0, &mut dice, &mut rec, &mut Scratch::default());
    assert_eq!(dice.count_draws(), faces.len() as u64, "dice used: {faces:?}");
    rec
}

/// (target, faces, damage) of each blast recorded.
fn blasts(rec: &Recorder) -> Vec<(usize, Vec<u8>, u32)> {
    rec.events_of::<NovaCannonAttack>()
        .map(|a| (a.target, a.faces.clone(), a.damage))
        .collect()
}

fn idle_reason(rec: &Recorder, unit: usize, weapon: SystemId) -> Option<&'static str> {
    rec.events_of::<WeaponIdle>().find_map(|e| match e {
        WeaponIdle {
            unit: u,
            weapon: w,
            reason,
        } if (*u, *w) == (unit, weapon) => Some(*reason),
        _ => None,
    })
}

// ---- the blast ------------------------------------------------------------------------

/// 6 dice to 24 MU, 4 to 48, 2 to 72 (bands closed above), nothing beyond;
/// the sum goes to the hull of a target behind two standard or two
/// advanced screens and four armour boxes, the armour untouched.
#[test]
fn the_blast_rolls_six_four_or_two_dice_by_band_straight_to_the_hull() {
    // Sums below 15, so that no hull row completes (no threshold dice).
    let faces = [3u8, 1, 2, 4, 1, 1];
    for (range, n) in [(0u32, 6usize), (24, 6), (25, 4), (48, 4), (49, 2), (72, 2)] {
        for target in ["Plain", "Screened", "Advanced2"] {
            let mut b = battle(range, "Nova", &[target], Rules::default());
            let mut script = vec![50u8];
            script.extend(&faces[..n]);
            let rec = step(&mut b, &plot(&[NOVA], 0, 0, 0, false), &script);
            let expected: u32 = faces[..n].iter().map(|&f| u32::from(f)).sum();
            assert_eq!(
                blasts(&rec),
                vec![(1, faces[..n].to_vec(), expected)],
                "{range} MU, {target}"
            );
            assert_eq!(
                (b.units[1].armour_lost, b.units[1].hull_lost),
                (0, expected),
                "{range} MU, {target}"
            );
        }
    }
    let mut b = battle(73, "Nova", &["Plain"], Rules::default());
    let rec = step(&mut b, &plot(&[NOVA], 0, 0, 0, false), &[50]);
    assert!(blasts(&rec).is_empty());
    assert_eq!(idle_reason(&rec, 0, NOVA), Some("out of range"));
}

/// One Evasion die showing 6 gives 2 Evasion Points: each blast die loses
/// 2, not below 0 (a nova cannon's single arc ignores none).
#[test]
fn evasion_takes_its_points_off_each_die() {
    let mut b = battle(20, "Nova", &["Plain"], Rules::default());
    let rec = step(&mut b, &plot(&[NOVA], 0, 0, 1, false), &[6, 50, 1, 4, 6, 5, 3, 2]);
    // 0 + 2 + 4 + 3 + 1 + 0.
    assert_eq!(blasts(&rec)[0].2, 10);
    assert_eq!(b.units[1].hull_lost, 10);
}

/// Without the switch the blast touches the acquired Unit only; with
/// `nova_cannon_formation` every ship of the target Formation rolls its
/// own dice (here 2 each at 60 MU).
#[test]
fn the_formation_switch_spreads_the_blast_over_every_ship() {
    for (switch, faces, hit) in [
        (false, vec![1u8, 1, 2], vec![(1usize, vec![1u8, 2], 3u32)]),
        (true, vec![1, 1, 2, 6, 5], vec![(1, vec![1, 2], 3), (2, vec![6, 5], 11)]),
    ] {
        let rules = Rules {
            nova_cannon_formation: switch,
            ..Rules::default()
        };
        let mut b = battle(60, "Nova", &["Plain", "Plain2"], rules);
        // The d100 of 1 picks the first Unit.
        let rec = step(&mut b, &plot(&[NOVA], 0, 0, 0, false), &faces);
        assert_eq!(blasts(&rec), hit, "switch {switch}");
    }
}

// ---- what firing costs the ship -----------------------------------------------------

/// The Volley a ship fires its nova cannon: its Formation rolls none of
/// its plotted Speed and Evasion dice, its screen is down against the
/// brawler's beam, its battery listed with the cannon does not fire, and
/// its screen is back up after the Volley. The next Volley, without the
/// cannon, rolls all of them and meets the screen.
#[test]
fn firing_it_costs_the_ship_its_thrust_its_screens_and_its_other_fire() {
    let mut b = battle(12, "Novabeam", &["Brawler"], Rules::default());
    // Formation 0 plots Speed 2 and Evasion 2 (Thrust 4): no die of them
    // is rolled. Its fire: the d100, six blast dice (the battery rolls
    // none). The brawler's: the d100 and its two class-2 dice at 12 MU.
    let p = plot(&[NOVA, BATTERY], 2, 2, 0, true);
    let rec = step(&mut b, &p, &[50, 1, 1, 1, 1, 1, 1, 50, 5, 4]);
    assert!(rec.events_of::<NovaArmed>().any(|e| matches!(
        e,
        NovaArmed {
            unit: 0,
            weapon: NOVA,
            formation: 0
        }
    )));
    assert!(rec.events_of::<Pools>().any(|e| matches!(
        e,
        Pools { formation: 0, speed_dice, evasion_dice, .. } if speed_dice.is_empty() && evasion_dice.is_empty()
    )));
    assert_eq!(
        idle_reason(&rec, 0, BATTERY),
        Some("its ship fires a nova cannon this Volley")
    );
    let beam = |rec: &Recorder| {
        rec.events_of::<BeamAttack>()
            .find_map(|e| match e {
                BeamAttack {
                    unit: 1,
                    screen,
                    normal,
                    ..
                } => Some((*screen, *normal)),
                _ => None,
            })
            .unwrap()
    };
    // Unscreened, a 5 and a 4 score one point each.
    assert_eq!(beam(&rec), (0, 2));
    assert_eq!(b.units[0].hull_lost, 2);
    assert_eq!(b.units[0].screen_level(), 1, "the screen is back up after the Volley");

    // Without the cannon: four maneuver dice (all 1s: no point), the
    // battery's d100 and two dice, the brawler's d100 and two dice; behind
    // the screen a 4 misses and a 5 scores one.
    let mut b = battle(12, "Novabeam", &["Brawler"], Rules::default());
    let rec = step(
        &mut b,
        &plot(&[BATTERY], 2, 2, 0, true),
        &[1, 1, 1, 1, 50, 1, 1, 50, 5, 4],
    );
    assert!(!rec.events_of::<NovaArmed>().any(|e| matches!(e, NovaArmed { .. })));
    assert_eq!(beam(&rec), (1, 1));
}

/// A nova cannon knocked out before the Volley does not fire, and its ship
/// keeps its thrust, screens and other fire.
#[test]
fn a_damaged_cannon_costs_nothing() {
    let mut b = battle(12, "Novabeam", &["Brawler"], Rules::default());
    b.units[0].systems[NOVA].state = SysState::Damaged;
    let rec = step(&mut b, &plot(&[NOVA, BATTERY], 2, 2, 0, false), &[1, 1, 1, 1, 50, 1, 1]);
    assert!(!rec.events_of::<NovaArmed>().any(|e| matches!(e, NovaArmed { .. })));
    assert_eq!(idle_reason(&rec, 0, NOVA), Some("knocked out"));
    assert_eq!(b.units[0].systems[SCREEN].state, SysState::Operational);
}

type Dist = BTreeMap<u32, f64>;

/// The sum of `n` d6.
fn dice_sum(n: u32) -> Dist {
    let mut out = Dist::from([(0, 1.0)]);
    for _ in 0..n {
        let mut next = Dist::new();
        for (x, p) in &out {
            for f in 1..=6u32 {
                *next.entry(x + f).or_default() += p / 6.0;
            }
        }
        out = next;
    }
    out
}

/// At 30 MU the blast is 4d6 to the hull whatever the screens: samples
/// of a Volley's damage match the exact distribution's mean, and the
/// commander's estimate is that mean.
#[test]
fn blast_damage_matches_the_exact_distribution() {
    let exact = dice_sum(4);
    let mean: f64 = exact.iter().map(|(x, p)| f64::from(*x) * p).sum();
    let var: f64 = exact.iter().map(|(x, p)| (f64::from(*x) - mean).powi(2) * p).sum();
    assert_abs_diff_eq!(mean, 14.0, epsilon = 1e-12);
    const N: u64 = 20_000;
    let start = battle(30, "Nova", &["Screened"], Rules::default());
    let p = checked(&start, &plot(&[NOVA], 0, 0, 0, false));
    let mut dice = Dice::new(0x4e6f);
    let mut scratch = Scratch::default();
    let mut b = start.clone();
    let mut sum = 0u64;
    for _ in 0..N {
        b.reset_to(&start);
        run_volley(&mut b, &p, 0, &mut dice, &mut (), &mut scratch);
        assert_eq!(b.units[1].armour_lost, 0);
        sum += u64::from(b.units[1].hull_lost);
    }
    let sample = sum as f64 / N as f64;
    let bound = 5.0 * var.sqrt() / (N as f64).sqrt();
    assert!(
        abs_diff_eq!(sample, mean, epsilon = bound),
        "sample {sample:.4}, exact {mean:.4}, bound {bound:.4}"
    );
    let tables = DieTables::new();
    let (a, t) = (Arsenal::of(&start, 0), Arsenal::of(&start, 1));
    assert_abs_diff_eq!(sustained(&tables, &a, &t, 30, 0), mean, epsilon = 1e-9);
}

// ---- orders, the commander and the records -----------------------------------------------

fn scenario(dir: &std::path::Path, extra: &str) -> std::path::PathBuf {
    std::fs::write(dir.join("ships.gzf"), SHIPS).unwrap();
    let path = dir.join("s.toml");
    std::fs::write(
        &path,
        format!(
            "title = \"Nova\"\ngzf = [\"ships.gzf\"]\nseed = 5\n\n[sides]\nA = [\"N\"]\nB = [\"T\"]\n\n\
             [formations]\nN = [\"Novabeam\"]\nT = [\"Brawler\"]\n\n\
             [[range]]\nbetween = [\"N\", \"T\"]\nmu = 20\n\n[victory]\nmax_exchanges = 4\n{extra}"
        ),
    )
    .unwrap();
    path
}

/// Where a line of `path` starts with `what`: its 1-based number.
fn line_of(path: &std::path::Path, what: &str) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    1 + text.lines().position(|l| l.starts_with(what)).unwrap()
}

/// The cannon listed alone is taken; the default "all" never sweeps it
/// in; another weapon of the same ship in a fire order, or a `pd` entry,
/// in the Volley it fires is refused where it is assigned.
#[test]
fn orders_let_a_ship_firing_its_nova_cannon_fire_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let head = "\n[[plot.N.volley]]\nspeed = 4\nevasion = 0\nprimary = { close = \"T\" }\n";
    for fire in [
        "fire = [{ unit = \"Novabeam\", target = \"T\", weapons = [2] }]\n",
        "fire = [{ unit = \"Novabeam\", target = \"T\" }]\n",
    ] {
        let ok = scenario(dir.path(), &format!("{head}{fire}"));
        let out = fam(&["check", ok.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{fire}: {}", text(&out.stderr));
    }

    let bad = scenario(
        dir.path(),
        &format!("{head}fire = [{{ unit = \"Novabeam\", target = \"T\", weapons = [2, 3] }}]\n"),
    );
    let at = line_of(&bad, "fire = ");
    let out = fam(&["check", bad.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    // The `3` after `fire = [{ unit = "Novabeam", target = "T", weapons = [2, ` (57 characters).
    assert!(
        err.contains(&format!("s.toml:{at}:58"))
            && err.contains(&format!("`Novabeam` fires its nova cannon in this Volley (line {at}"))
            && err.contains("Class 2 Battery"),
        "{err}"
    );

    let bad = scenario(
        dir.path(),
        &format!(
            "{head}fire = [{{ unit = \"Novabeam\", target = \"T\", weapons = [2] }}]\npd = [{{ unit = \"Novabeam\", weapons = [4] }}]\n"
        ),
    );
    let at = line_of(&bad, "pd = ");
    let out = fam(&["check", bad.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("s.toml:{at}:")) && err.contains("may fire nothing else: system 4 of `Novabeam` (PDS)"),
        "{err}"
    );
}

/// With no plots (the default commander plays from the second Exchange)
/// it fires the nova cannon at 20 MU
/// (6d6 to the hull against one class-2 die); the report names the cost
/// and every die, and the reading; FTJava has no nova cannon, so export
/// refuses it by name.
#[test]
fn the_default_commander_fires_its_nova_cannon() {
    let dir = tempfile::tempdir().unwrap();
    let path = scenario(dir.path(), "");
    let o = fam(&["resolve", path.to_str().unwrap(), "--exchanges", "2", "--detail"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let report = text(&o.stdout);
    assert!(
        report.contains("Novabeam fires its Nova Cannon #2 this Volley: no thrust"),
        "{report}"
    );
    assert!(report.contains("the blast reaches Brawler: rolled "), "{report}");
    assert!(report.contains("readings W63"), "{report}");
    let record = dir.path().join("ships.gzf");
    let o = fam(&["export", "ftjava", record.to_str().unwrap(), "--ship", "Nova"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("Nova Cannon of `Nova` has no FTJava element"),
        "{}",
        text(&o.stderr)
    );
}

/// `nova_cannon_formation = true` in `[rules]` is named among the readings
/// the result hinges on and written back into the next turn's scenario.
#[test]
fn the_switch_is_reported_and_written_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = scenario(dir.path(), "\n[rules]\nnova_cannon_formation = true\n");
    let out = dir.path().join("next");
    let o = fam(&["resolve", path.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let report = text(&o.stdout);
    assert!(
        report.contains("nova_cannon_formation") && report.contains("touches every ship of the target Formation"),
        "{report}"
    );
    let written = std::fs::read_to_string(out.join("scenario.toml")).unwrap();
    assert!(written.contains("nova_cannon_formation = true"), "{written}");
}

/// A ship whose only weapon is a nova cannon can fight: its reach is the
/// cannon's 72 MU, so the default commander neither withdraws it as unable
/// to do damage nor looks past its target as out of reach.
#[test]
fn a_nova_cannon_alone_is_a_weapon_the_commander_counts() {
    use fam::engine::doctrine::Doctrine;
    use fam::engine::doctrine::decide::{Context, decide};
    let b = battle(60, "Nova", &["Brawler"], Rules::default());
    let ours = Arsenal::of(&b, 0);
    assert_eq!(ours.reach(), fam::engine::tables::NOVA_RANGE);
    assert!(ours.can_fight());
    let arsenals = [ours, Arsenal::of(&b, 1)];
    let victory = fam::engine::victory::Victory::default();
    let live = fam::engine::doctrine::in_fight(&b);
    let enemies = fam::engine::doctrine::enemy_lists(&b, &live);
    let ctx = Context {
        battle: &b,
        victory: &victory,
        tables: fam::engine::doctrine::assess::tables(),
        arsenals: &arsenals,
        live: &live,
        enemies: (&enemies.0, &enemies.1),
        nearest: &[],
        aims: &[],
        reaches: &[],
        craft: &[],
    };
    let c = decide(&ctx, 0, &Doctrine::default());
    assert_eq!(c.withdrawing, None, "{c:?}");
    assert_eq!(c.fire_at, Some(1), "{c:?}");
}
