//! Kinetic guns (K-1 to K-6, standard, long- and short-range) and MKP packs
//! (issue 16): the projectile table by band and variant, the doubling die,
//! armour-piercing damage, the one-shot MKP with its natural-6 double hit,
//! and the records and imports that carry them.
//!
//! Every expected value is worked out here from the rules (ft-rules §1.3,
//! §1.4, §4.6 and `docs/readings.md` W16-W18), never copied from a run.
//! Statistical checks use fixed seeds and a bound of five standard errors
//! taken from the exact variance, so they cannot flake.

use crate::support::{checked, scripted};
use approx::abs_diff_eq;

use fam::diag::SourceFile;
use fam::engine::dice::Dice;
use fam::engine::event::{Damage, KGunAttack, MkpAttack, Recorder};
use fam::engine::plot::{ExchangePlot, FireOrder, FormationPlot, SystemId, VolleyPlot};
use fam::engine::rules::Rules;
use fam::engine::state::{Battle, Formation, RangeTable, Side, Unit};
use fam::engine::volley::{Scratch, ap_damage, run_volley};
use fam::ftjava::{self, Options};
use fam::gzf::{self, ParseOptions, SystemKind, TorpedoRange};

use super::support::{fam, fixtures, repo, text};

// ---- the ships ------------------------------------------------------------------

const VARIANTS: [TorpedoRange; 3] = [TorpedoRange::Standard, TorpedoRange::Long, TorpedoRange::Short];

/// A raider with one Fire Control (#1), a K-gun of every class and variant
/// (#2-#19: standard 1-6, long 1-6, short 1-6), two MKPs (#20, #21), all in
/// the forward arc only (no Evasion ignored); and a target with 4 armour,
/// two screens (level 2) and four rows of 15 hull boxes, so no Volley here
/// completes a row (no threshold dice).
fn records() -> gzf::GzfFile {
    let mut text = String::from(
        "Profile: FB1\n\nShip: Raider\nMass: 100\nThrust-Rating: 6\n\
         Damage-Track: OOOOOOOOOO OOOOOOOOOO OOOOOOOOOO OOOOOOOOOO\n\nSystem: FCS\n\n",
    );
    for variant in ["", " Long Range", " Short Range"] {
        for class in 1..=6 {
            text.push_str(&format!("System: Class {class}{variant} K-Gun\nFiring-Arc: F\n\n"));
        }
    }
    text.push_str("System: MKP\nFiring-Arc: F\nRounds: O\n\nSystem: MKP\nFiring-Arc: F\n\n");
    text.push_str(
        "Ship: Target\nMass: 100\nThrust-Rating: 4\nArmour: O O O O\n\
         Damage-Track: OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO\n\n\
         System: Screen Generator\n\nSystem: Screen Generator\n",
    );
    let parsed = gzf::parse(&text, &ParseOptions::default());
    assert!(!parsed.has_errors(), "the test records read");
    parsed.file
}

const FCS: SystemId = 0;
const MKP: [SystemId; 2] = [19, 20];

/// The system index of the K-gun of `class` and `variant`.
fn k_gun(class: u8, variant: TorpedoRange) -> SystemId {
    let v = VARIANTS.iter().position(|&x| x == variant).unwrap();
    v * 6 + usize::from(class)
}

fn units() -> (Unit, Unit) {
    let file = records();
    let raider = Unit::from_ship(file.ship("Raider").unwrap(), file.profile, 0, 0);
    let target = Unit::from_ship(file.ship("Target").unwrap(), file.profile, 1, 1);
    for variant in VARIANTS {
        for class in 1..=6 {
            assert_eq!(
                raider.systems[k_gun(class, variant)].kind,
                SystemKind::KGun { class, range: variant }
            );
        }
    }
    for m in MKP {
        assert_eq!(raider.systems[m].kind, SystemKind::Mkp);
        assert_eq!(
            raider.systems[m].rounds_left(),
            1,
            "one shot, with or without `Rounds:`"
        );
    }
    assert_eq!((target.armour_total, target.screen_level(), target.rows[0]), (4, 2, 15));
    (raider, target)
}

fn battle(range: u32) -> Battle {
    let (raider, target) = units();
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
                units: vec![1],
                reserve: Default::default(),
            },
        ],
        units: vec![raider, target],
        ranges: RangeTable::new(2, range),
        rules: Rules::default(),
    }
}

/// The raider fires `weapons` at the target in every Volley; the target's
/// Formation rolls `evasion` Evasion dice.
fn plot(weapons: &[SystemId], evasion: u32) -> ExchangePlot {
    let fire = VolleyPlot {
        fire: vec![FireOrder {
            unit: 0,
            fire_control: FCS,
            target: Some(1),
            weapons: weapons.to_vec(),
            needles: Vec::new(),
            group: None,
        }],
        ..VolleyPlot::default()
    };
    let evade = VolleyPlot {
        evasion,
        ..VolleyPlot::default()
    };
    ExchangePlot {
        formations: vec![
            Some(FormationPlot {
                volleys: [fire.clone(), fire.clone(), fire],
            }),
            Some(FormationPlot {
                volleys: [evade.clone(), evade.clone(), evade],
            }),
        ],
    }
}

// ---- the rules, restated -----------------------------------------------------------

/// Band width of a variant's projectile table (ft-rules §1.3).
fn width(variant: TorpedoRange) -> u32 {
    match variant {
        TorpedoRange::Standard => 6,
        TorpedoRange::Long => 9,
        TorpedoRange::Short => 4,
    }
}

/// The number a K-gun needs at `range`: 2+ in the first band … 6 in the
/// fifth, bands closed above, range 0 in the first; `None` beyond.
fn needed(range: u32, variant: TorpedoRange) -> Option<u32> {
    let w = width(variant);
    (1..=5).find(|k| range <= k * w).map(|k| k + 1)
}

/// Hit chance of one to-hit die needing `needed` with `points` Evasion
/// Points against it: every natural face counted.
fn hit_chance(needed: u32, points: u32) -> f64 {
    (1..=6u32)
        .filter(|f| needed + points <= 6 && *f >= needed + points)
        .count() as f64
        / 6.0
}

/// Points of a K-n hit whose doubling die shows `d`: n, doubled when
/// d ≤ n, never on a 6 (ft-rules §4.6).
fn k_points(n: u32, d: u32) -> u32 {
    if d <= n && d != 6 { 2 * n } else { n }
}

/// Hits of one MKP die: the modified roll (natural − points, clamped)
/// needs 4; a natural 6 that hits is two hits.
fn mkp_hits(face: u32, points: u32) -> u32 {
    let modified = face.saturating_sub(points).max(1);
    match (modified >= 4, face == 6) {
        (false, _) => 0,
        (true, true) => 2,
        (true, false) => 1,
    }
}

/// Armour-piercing hits in turn on `armour_left` boxes: one point of each
/// hit to the armour while it lasts, the rest to the hull.
fn ap(mut armour_left: u32, hits: &[u32]) -> (u32, u32) {
    let (mut armour, mut hull) = (0, 0);
    for &h in hits {
        let a = u32::from(h > 0 && armour_left > 0);
        armour_left -= a;
        armour += a;
        hull += h - a;
    }
    (armour, hull)
}

fn assert_close(what: &str, sample: f64, exact: f64, sd: f64, n: u64) {
    let bound = 5.0 * sd / (n as f64).sqrt();
    assert!(
        abs_diff_eq!(sample, exact, epsilon = bound),
        "{what}: sample {sample:.5}, exact {exact:.5}, bound {bound:.5}"
    );
}

// ---- 1. every face, scripted ------------------------------------------------------

/// Every K-gun class and variant at the edges of its bands, every to-hit
/// face, and on a hit every doubling face: hit or miss as the table says,
/// the class doubled on a doubling die at or under it (not 6), one point to
/// armour and the rest to the hull, the level-2 screen ignored; beyond the
/// fifth band no die is rolled.
#[test]
fn k_guns_hit_by_band_and_variant_and_double_on_a_low_die() {
    for variant in VARIANTS {
        let w = width(variant);
        for range in [0, w, w + 1, 2 * w, 3 * w, 4 * w, 5 * w - 1, 5 * w, 5 * w + 1] {
            for class in 1..=6u8 {
                let gun = k_gun(class, variant);
                let Some(need) = needed(range, variant) else {
                    let mut b = battle(range);
                    let rec = scripted(&mut b, &plot(&[gun], 0), &[50]);
                    assert!(!rec.events_of::<KGunAttack>().any(|e| matches!(e, KGunAttack { .. })));
                    assert_eq!(b.units[1].hull_lost, 0);
                    continue;
                };
                for face in 1..=6u8 {
                    let hit = u32::from(face) >= need;
                    let doubling: Vec<u8> = if hit { (1..=6).collect() } else { vec![0] };
                    for d in doubling {
                        let mut b = battle(range);
                        let mut faces = vec![50, face];
                        if hit {
                            faces.push(d);
                        }
                        let rec = scripted(&mut b, &plot(&[gun], 0), &faces);
                        let points = if hit {
                            k_points(u32::from(class), u32::from(d))
                        } else {
                            0
                        };
                        let expect = if hit { ap(4, &[points]) } else { (0, 0) };
                        let t = &b.units[1];
                        let case = format!("K-{class} {variant:?} at {range} MU, face {face}, doubling {d}");
                        assert_eq!((t.armour_lost, t.hull_lost), expect, "{case}");
                        assert!(
                            rec.events_of::<KGunAttack>().any(|e| matches!(
                                e,
                                KGunAttack { hit: h, damage, needed: n, .. }
                                    if *h == hit && *damage == points && u32::from(*n) == need
                            )),
                            "{case}"
                        );
                    }
                }
            }
        }
    }
}

/// Evasion raises the number a K-gun needs (the doubling die takes no
/// DRM): one Evasion Point (a 5) turns a 3+ band into 4+.
#[test]
fn evasion_shifts_the_k_gun_to_hit_number_but_not_the_doubling_die() {
    let gun = k_gun(3, TorpedoRange::Standard);
    // 12 MU: 3+; one point from the Evasion die 5: 4+.
    for (face, hit) in [(3u8, false), (4, true)] {
        let mut b = battle(12);
        let mut faces = vec![5, 50, face];
        if hit {
            faces.push(3); // 3 ≤ 3: doubled, no DRM on it
        }
        scripted(&mut b, &plot(&[gun], 1), &faces);
        let expect = if hit { ap(4, &[6]) } else { (0, 0) };
        assert_eq!((b.units[1].armour_lost, b.units[1].hull_lost), expect, "face {face}");
    }
}

// ---- 2. armour-piercing damage: worked examples ----------------------------------------

/// FTC §4.9, §7.7: an AP hit sends one point to the armour layer, the rest
/// to the hull; each hit on its own, so two MKP hits strip two boxes.
#[test]
fn armour_piercing_hits_take_one_armour_box_each() {
    // A K-5 doubled (10) on 4 armour: 1 armour, 9 hull.
    let (_, mut t) = units();
    assert_eq!(ap_damage(&mut t, 10), (1, 9, 0, 0));
    assert_eq!((t.armour_lost, t.hull_lost), (1, 9));
    // Two MKP hits (4 each) on the 3 boxes left: 1 + 3, 1 + 3.
    let (a1, h1, _, _) = ap_damage(&mut t, 4);
    let (a2, h2, _, _) = ap_damage(&mut t, 4);
    assert_eq!((a1 + a2, h1 + h2), ap(3, &[4, 4]));
    assert_eq!((t.armour_lost, t.hull_lost), (3, 15));
    // The last box, then none: 1 + 0 for a K-1, then all to the hull.
    assert_eq!(ap_damage(&mut t, 1), (1, 0, 0, 0));
    assert_eq!(ap_damage(&mut t, 6), (0, 6, 0, 0));
    assert_eq!(t.armour_left(), 0);
}

/// K-guns and an MKP in one Volley: every AP hit split on its own in the
/// Damage step; the report's damage line lists them.
#[test]
fn a_volley_of_kinetic_hits_splits_each_on_its_own() {
    let mut b = battle(6);
    let k6 = k_gun(6, TorpedoRange::Standard);
    let k2 = k_gun(2, TorpedoRange::Short);
    // K-6 at 6 MU (2+): 2 hits, doubling 6 fails → 6. Short K-2 at 6 MU
    // (3+): 3 hits, doubling 2 → 4. MKP: 6 → two hits of 4.
    let faces = [50, 2, 6, 3, 2, 6];
    let rec = scripted(&mut b, &plot(&[k6, k2, MKP[0]], 0), &faces);
    let hits = [6, 4, 4, 4];
    assert_eq!((b.units[1].armour_lost, b.units[1].hull_lost), ap(4, &hits));
    assert!(
        rec.events_of::<Damage>()
            .any(|e| matches!(e, Damage { ap, .. } if *ap == hits))
    );
    assert!(rec.events_of::<MkpAttack>().any(|e| matches!(
        e,
        MkpAttack {
            face: Some(6),
            hits: 2,
            ..
        }
    )));
    assert_eq!(b.units[0].systems[MKP[0]].rounds_left(), 0, "the pack is spent");
}

// ---- 3. the MKP ------------------------------------------------------------------------------

/// Every face against 0 to 3 Evasion Points: 4+ on the modified roll hits,
/// a natural 6 that hits is two hits of 4 AP; at 13 MU the pack is spent
/// with no die; plotted again it idles as already fired.
#[test]
fn mkp_hits_on_four_doubles_on_a_natural_six_and_fires_once() {
    for (die, points) in [(None, 0u32), (Some(4u8), 1), (Some(6), 2)] {
        for face in 1..=6u8 {
            let mut b = battle(12);
            let mut faces: Vec<u8> = die.into_iter().collect();
            faces.extend([50, face]);
            scripted(&mut b, &plot(&[MKP[0]], u32::from(die.is_some())), &faces);
            let hits = mkp_hits(u32::from(face), points);
            let expect = ap(4, &vec![4; hits as usize]);
            assert_eq!(
                (b.units[1].armour_lost, b.units[1].hull_lost),
                expect,
                "face {face}, {points} points"
            );
        }
    }
    // Three points: even a natural 6 reads 3 and misses.
    assert_eq!(mkp_hits(6, 3), 0);
    // Beyond 12 MU: spent, no die.
    let mut b = battle(13);
    let rec = scripted(&mut b, &plot(&[MKP[1]], 0), &[50]);
    assert_eq!(b.units[0].systems[MKP[1]].rounds_left(), 0);
    assert!(rec.events_of::<MkpAttack>().any(|e| matches!(
        e,
        MkpAttack {
            face: None,
            hits: 0,
            ..
        }
    )));
    // Fired in Volley 1, it has nothing in Volley 2.
    let mut b = battle(12);
    let p = checked(&b, &plot(&[MKP[0]], 0));
    let mut rec = Recorder::default();
    let mut dice = Dice::from_faces(&[50, 4, 50]);
    run_volley(&mut b, &p, 0, &mut dice, &mut rec, &mut Scratch::default());
    run_volley(&mut b, &p, 1, &mut dice, &mut rec, &mut Scratch::default());
    assert_eq!(dice.count_draws(), 3, "no die for the spent pack");
    assert_eq!(b.units[1].hull_lost, 3);
}

// ---- 4. engine samples against exact values ---------------------------------------------------

/// Damage of one K-gun shot over many seeded Volleys: the mean and the
/// chance of each outcome (miss, single, doubled) against the exact values
/// `p(1 − q)` and `pq` with p the hit chance and q = min(n, 5)/6.
#[test]
fn k_gun_damage_samples_match_the_exact_distribution() {
    const N: u64 = 20_000;
    for (class, variant, range, evasion) in [
        (3u8, TorpedoRange::Standard, 10u32, 0u32),
        (6, TorpedoRange::Long, 30, 0),
        (1, TorpedoRange::Short, 4, 1),
    ] {
        let gun = k_gun(class, variant);
        let n = u32::from(class);
        let start = battle(range);
        let p_plot = checked(&start, &plot(&[gun], evasion));
        let mut counts = [0u64; 3];
        let mut dice = Dice::new(0x4b47 + u64::from(class));
        let mut scratch = Scratch::default();
        let mut b = start.clone();
        for _ in 0..N {
            b.reset_to(&start);
            run_volley(&mut b, &p_plot, 0, &mut dice, &mut (), &mut scratch);
            let dealt = b.units[1].armour_lost + b.units[1].hull_lost;
            counts[usize::from(dealt == n) + 2 * usize::from(dealt == 2 * n)] += 1;
        }
        // Exact: the Evasion dice of the target's Formation (1-3 none, 4-5
        // one point, 6 two) against the shifted number.
        let need = needed(range, variant).unwrap();
        let p: f64 = if evasion == 0 {
            hit_chance(need, 0)
        } else {
            hit_chance(need, 0) / 2.0 + hit_chance(need, 1) / 3.0 + hit_chance(need, 2) / 6.0
        };
        let q = f64::from(n.min(5)) / 6.0;
        let exact = [1.0 - p, p * (1.0 - q), p * q];
        for (k, (&c, &e)) in counts.iter().zip(&exact).enumerate() {
            let rate = c as f64 / N as f64;
            assert_close(
                &format!("K-{class} {variant:?} outcome {k}"),
                rate,
                e,
                (e * (1.0 - e)).sqrt(),
                N,
            );
        }
        let mean = exact[1] * f64::from(n) + exact[2] * f64::from(2 * n);
        let var = exact[1] * f64::from(n * n) + exact[2] * f64::from(4 * n * n) - mean * mean;
        let sample = (counts[1] * u64::from(n) + counts[2] * u64::from(2 * n)) as f64 / N as f64;
        assert_close(
            &format!("K-{class} {variant:?} mean damage"),
            sample,
            mean,
            var.sqrt(),
            N,
        );
    }
}

/// MKP hits over many seeded Volleys (no Evasion): 0, 1 or 2 hits with the
/// exact chances 1/2, 1/3, 1/6.
#[test]
fn mkp_hit_samples_match_the_exact_distribution() {
    const N: u64 = 20_000;
    let start = battle(12);
    let p = checked(&start, &plot(&[MKP[0]], 0));
    let exact: Vec<f64> = (0..=2)
        .map(|h| (1..=6).filter(|&f| mkp_hits(f, 0) == h).count() as f64 / 6.0)
        .collect();
    assert_eq!(exact, [0.5, 1.0 / 3.0, 1.0 / 6.0]);
    let mut counts = [0u64; 3];
    let mut dice = Dice::new(0x4d4b50);
    let mut scratch = Scratch::default();
    let mut b = start.clone();
    for _ in 0..N {
        b.reset_to(&start);
        run_volley(&mut b, &p, 0, &mut dice, &mut (), &mut scratch);
        let dealt = b.units[1].armour_lost + b.units[1].hull_lost;
        counts[(dealt / 4) as usize] += 1;
    }
    for (h, (&c, &e)) in counts.iter().zip(&exact).enumerate() {
        assert_close(
            &format!("P({h} hits)"),
            c as f64 / N as f64,
            e,
            (e * (1.0 - e)).sqrt(),
            N,
        );
    }
}

// ---- 5. records and imports ------------------------------------------------------------------

/// The names read in either profile, abbreviations included, and are
/// written canonically; a class beyond 6 is no K-gun.
#[test]
fn k_gun_and_mkp_names_read_and_write_canonically() {
    for profile in ["FB1", "FT2"] {
        let text = format!(
            "Profile: {profile}\n\nShip: S\nThrust-Rating: 4\nDamage-Track: OOO OOO OO OO\n\n\
             System: class 2 lr k-gun\nFiring-Arc: F\n\nSystem: Class 4 SR K-Gun\nFiring-Arc: F\n\n\
             System: Multiple Kinetic Penetrator Pack\nFiring-Arc: F\nRounds: -\n"
        );
        let parsed = gzf::parse(&text, &ParseOptions::default());
        assert!(!parsed.has_errors(), "{profile}");
        let written = gzf::write(&parsed.file);
        for line in [
            "System:           Class 2 Long Range K-Gun",
            "System:           Class 4 Short Range K-Gun",
            "System:           MKP",
            "Rounds:           -",
        ] {
            assert!(written.contains(line), "{profile}: `{line}` in\n{written}");
        }
        let again = gzf::parse(&written, &ParseOptions::default());
        assert_eq!(again.file, parsed.file, "{profile}: round trip");
        assert_eq!(gzf::write(&again.file), written, "{profile}: idempotent");
    }
    let bad = gzf::parse(
        "Profile: FB1\n\nShip: S\nThrust-Rating: 4\nDamage-Track: OOO OOO OO OO\n\nSystem: Class 7 K-Gun\n",
        &ParseOptions::default(),
    );
    assert!(bad.has_errors(), "no K-7");
}

/// An FTJava ship with every K-gun form and MKPs imports without inert
/// systems, reads back from its GZF, exports and imports again unchanged.
#[test]
fn ftjava_kinetic_guns_import_and_round_trip() {
    let path = fixtures("ftjava").join("vakar-lancer.xml");
    let bytes = std::fs::read(&path).unwrap();
    let source = SourceFile::from_bytes(path.display().to_string(), &bytes);
    let imported = ftjava::import(&source, &Options::default());
    let errors: Vec<_> = imported.diagnostics.iter().filter(|d| d.is_error()).cloned().collect();
    assert!(errors.is_empty(), "{}", source.render(&errors, 20));
    assert_eq!(imported.inert, 0);
    let ship = imported.gzf.ship("Vakar Lancer").unwrap();
    let kinds: Vec<&SystemKind> = ship.systems.iter().map(|s| &s.kind).collect();
    let k = |class, range| SystemKind::KGun { class, range };
    assert!(kinds.contains(&&k(5, TorpedoRange::Standard)));
    assert!(kinds.contains(&&k(3, TorpedoRange::Long)));
    assert!(kinds.contains(&&k(2, TorpedoRange::Short)));
    assert_eq!(kinds.iter().filter(|k| ***k == SystemKind::Mkp).count(), 2);
    // A K-1 without arcs fires all round; a K-5 without arcs forward.
    let arcs = |kind: SystemKind| ship.systems.iter().find(|s| s.kind == kind).unwrap().arcs.len();
    assert_eq!(arcs(k(1, TorpedoRange::Standard)), 6);
    assert_eq!(arcs(k(5, TorpedoRange::Standard)), 1);
    // The GZF reads back as `fam check` reads it: no inert systems needed.
    let written = gzf::write(&imported.gzf);
    let parsed = gzf::parse(&written, &ParseOptions::default());
    assert!(!parsed.has_errors());
    assert_eq!(parsed.file, imported.gzf);
    let request = ftjava::export::Request {
        text: &written,
        file: &parsed.file,
        spans: &parsed.spans,
        ship: None,
        title: "kinetic",
        skip_unmapped: false,
    };
    let exported = ftjava::export::export(&request);
    assert!(
        !exported.diagnostics.iter().any(|d| d.is_error()),
        "{:?}",
        exported.diagnostics
    );
    let xml = exported.xml;
    assert!(
        xml.contains("rating=\"3\"") && xml.contains("rangeIncrement=\"9\""),
        "{xml}"
    );
    assert!(xml.contains("rangeIncrement=\"4\"") && xml.contains("<MultipleKineticPenetratorPack"));
    let back = ftjava::import(&SourceFile::new("back.xml", xml.as_str()), &Options::default());
    assert_eq!(back.gzf, imported.gzf, "FTJava → GZF → FTJava → GZF");
}

/// FTJava values fam cannot place are refused at their attribute.
#[test]
fn ftjava_kinetic_guns_with_impossible_values_are_refused() {
    for (attrs, what) in [
        ("rating=\"7\"", "rating"),
        ("rating=\"2\" rangeIncrement=\"5\"", "range bands"),
        ("arcs=\"(F)\"", "without `rating`"),
    ] {
        let xml = format!(
            "<Ship><Name>X</Name><Mass>20</Mass><MainDrive initialThrust=\"4\"/>\
             <Hull totalHullBoxes=\"6\" type=\"Custom\" value=\"20\"/>\
             <Weapons><KineticGun {attrs}/></Weapons></Ship>"
        );
        let imported = ftjava::import(&SourceFile::new("x.xml", xml.as_str()), &Options::default());
        assert!(
            imported
                .diagnostics
                .iter()
                .any(|d| d.is_error() && d.message.contains(what)),
            "{attrs}: {:?}",
            imported.diagnostics
        );
    }
}

// ---- 6. they fight ------------------------------------------------------------------------------

fn batch_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["batch"];
    all.extend_from_slice(args);
    let out = fam(&all);
    assert!(out.status.success(), "fam {all:?}: {}", text(&out.stderr));
    serde_json::from_str(&text(&out.stdout)).expect("batch JSON")
}

/// The shipped kinetic raid, played by the default doctrine: the raiders
/// score with their kinetic weapons (K-guns and MKPs) and nothing else, and
/// every one of their weapons fires in some run.
#[test]
fn the_kinetic_raid_is_fought_with_kinetic_weapons() {
    let v = batch_json(&["scenarios/kinetic-raid.toml", "--runs", "200", "--json"]);
    let raiders = v["sides"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "Rhaav")
        .unwrap();
    let d = &raiders["damage_by_kind"];
    assert!(d["kinetic"].as_f64().unwrap() > 10.0, "{d}");
    for kind in ["beam", "torpedo", "salvo_missile", "needle"] {
        assert_eq!(d[kind].as_f64(), Some(0.0), "{kind}: {d}");
    }
    let idle = raiders["idle_weapons"].as_array().unwrap();
    assert!(
        idle.iter().all(|w| w["fired_runs"].as_u64().unwrap() > 0),
        "every raider weapon fires: {idle:?}"
    );
}

/// A ship imported from FTJava (the fixture's Vakar Lancer) fights a
/// shipped record in a batch without `--inert-unknown-systems`.
#[test]
fn an_imported_kinetic_ship_fights_in_a_batch() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gzf");
    let xml = fixtures("ftjava").join("vakar-lancer.xml");
    let o = fam(&[
        "import",
        "ftjava",
        "--out",
        out.to_str().unwrap(),
        xml.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let record = out.join("vakar-lancer.gzf");
    let check = fam(&["check", record.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));
    let scenario = dir.path().join("lancer.toml");
    let meridian = repo().join("ssd/meridian-compact.gzf");
    std::fs::write(
        &scenario,
        format!(
            "title = \"Lancer\"\ngzf = [{:?}, {:?}]\nseed = 3\n\n[sides]\nA = [\"Lancer\"]\nB = [\"Heading\"]\n\n\
             [formations]\nLancer = [\"Vakar Lancer\"]\nHeading = [\"MCS Clear Heading\"]\n\n\
             [[range]]\nbetween = [\"Lancer\", \"Heading\"]\nmu = 36\n\n[victory]\nmax_exchanges = 8\n",
            record.to_str().unwrap(),
            meridian.to_str().unwrap()
        ),
    )
    .unwrap();
    let v = batch_json(&[scenario.to_str().unwrap(), "--runs", "100", "--json"]);
    let a = v["sides"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "A")
        .unwrap();
    assert!(a["damage_by_kind"]["kinetic"].as_f64().unwrap() > 0.0, "{a}");
}
