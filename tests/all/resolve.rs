//! `fam resolve`: the report, the log and the written-back records.

use crate::support::{fam, fixtures, golden, repo, text};

/// The duel's report at seed 1, checked by hand against the rules: bands,
/// beam dice by range band, screen-1 readings, rerolls, armour then hull,
/// crew factor in box 6 of 18, row-1 threshold at 6+ (core −1), drive halved
/// then repaired by both parties on a d6 of 1.
#[test]
fn the_duel_report_at_seed_1_is_the_one_checked_by_hand() {
    let out = fam(&["resolve", "scenarios/duel.toml", "--seed", "1"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    golden(&fixtures("reports"), "duel-seed1", &text(&out.stdout));
}

/// The squadron action's report at seed 3, checked by hand line by line
/// against the rules and the scenario's plots. Checked: every Speed and
/// Evasion pool (4-5 one point, 6 two) and its split against the plot, the
/// single plot entry of Anvil and Homestead standing for all three Volleys;
/// Formation Thrust as the slowest Unit (Homestead 2); all 30 pair ranges
/// through close → withdraw → maintain, with primary, secondary (−1 SP) and
/// unplotted (secondary Maintain) targets, Maintain stopping at the Volley's
/// start (Lancers/Furrow 30 → 27 → 30); percentile bands by mass, largest
/// first, with the plotted +10 shifts (Lancers 01-65/66-100, Homestead
/// 01-61/62-100) and every d100 → Unit; default weapon lists (PDS and PDAF
/// left out); out of range by closed 12 MU bands; the six beam attacks at
/// 30 MU (one die each), DRM from the target Formation's Evasion less the
/// arcs ignored (FB1 three-arc battery ignores one, FT2 one-arc battery
/// none), screen level of the Unit hit (Long Furrow and Clear Heading 1,
/// Thorn Hedge and Small Hours 0), a 4 scoring nothing against a screen;
/// Steadfast Reckoning's damaged battery knocked out in Volley 1, repaired
/// by its 3 crew-factor parties on a d6 of 3, then firing (out of range);
/// the end ranges and the status table (damage carried in from the records:
/// "damaged", not crippled). No hit lands, so damage, thresholds and core
/// rolls are not exercised here.
#[test]
fn the_squadron_report_at_seed_3_is_the_one_checked_by_hand() {
    let out = fam(&["resolve", "scenarios/squadron-action.toml", "--seed", "3"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    golden(&fixtures("reports"), "squadron-seed3", &text(&out.stdout));
}

/// The carrier strike's report at seed 4, checked by hand line by line
/// against the rules, docs/fighters.md and the scenario's plots. Checked:
/// the three launches in the Launch phase before any maneuver die, the
/// carrier's Formation rolling no Speed while it launches (evasion only),
/// Strike at half thrust (6) in Volley 1 and 12 after, Strike taking the
/// Carrier's range (36) to Line at launch; every pool and pair range,
/// including Strike closing through 0 to 18 and Line's Maintain pulling
/// back to 6 in Volley 3; the secondary close of 12 MU (33 → 21, 12 → 0),
/// skipped at 6 MU; attack runs idle beyond 6 MU at no endurance cost;
/// endurance 6 → 5 → 3 → 2 (one per secondary move, one per Volley of
/// combat); targeting bands by ship mass only (86/14, 77/23: the groups take
/// no share); beam dice by range band with the Evasion DRM less the arcs
/// ignored (the one-arc Class 4 at −3); the Class 1 batteries aimed at
/// Cinder Flight by name: one die each, −1 against 3 Evasion Points (so no
/// kill possible), a 6 killing one craft at 2 Evasion Points, applied at
/// the Damage step; the single PDS allocated to the Attack group (more
/// expected damage than the standard group), 5 → 1 kill, and a 3 rerolled
/// by Line's one Evasion Point into a 5; craft lost to PD not attacking;
/// the attack runs against the Long Meridian's level-2 screens (Attack
/// +1 on the initial dice only: a natural 5 reads 6 but rolls no extra die;
/// natural 6s rolling unscreened penetrating extra dice), no ace die with
/// `pilot_quality` off; armour taking normal damage first; the Lantern
/// Wake's first row and its threshold rolls (core −1); the end tables with
/// the small craft's craft and endurance.
#[test]
fn the_carrier_report_at_seed_4_is_the_one_checked_by_hand() {
    let out = fam(&["resolve", "scenarios/carrier-strike.toml", "--seed", "4"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    golden(&fixtures("reports"), "carrier-seed4", &text(&out.stdout));
}

/// The fleet action's report at seed 5, checked by hand line by line against
/// the rules and the scenario's plots. Checked: every Speed and Evasion pool
/// and its split (Convoy's empty Evasion pool, Gale's 6 6 6 = 6 points);
/// Formation Thrust as the slowest Unit (Thunder 4 under High Fell Thunder's
/// 5); all 108 pair ranges through close → withdraw → maintain, with
/// primary, secondary (−1 SP, floor 0) and unplotted targets, Maintain
/// stopping at the Volley's start (Screen/Convoy 60 → 66 → 60,
/// Cruisers/Gale 42 → 39 → 42) and ranges above 60 (Battle Line/Convoy 63);
/// percentile bands by mass with rounding of the cumulative share (Thunder
/// 01-56, Carrier Group 01-64, Pickets' frigate 01-67 first though listed
/// second) and Screen's +10 shift (01-57/58-100); every d100 → Unit; the inactive
/// Fire Control left out; default weapon lists; class-4 batteries at 42 MU
/// rolling one die, DRM −1 for a three-arc and −2 for a one-arc battery
/// against Thunder's 2 Evasion Points, unscreened targets; Steadfast
/// Reckoning's three failed repairs (d6 5, 5, 6 against 3 parties); the end
/// ranges and the status table, Sharp Descent crippled from the start (its
/// only weapons are a one-shot rack and a PDS, E15). No hit lands, so damage,
/// thresholds and core rolls are not exercised here.
#[test]
fn the_fleet_report_at_seed_5_is_the_one_checked_by_hand() {
    let out = fam(&["resolve", "scenarios/fleet-action.toml", "--seed", "5"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    golden(&fixtures("reports"), "fleet-seed5", &text(&out.stdout));
}

/// The missile strike's report at seed 32, checked by hand line by line
/// against the rules, the readings and the scenario's plots (first in full,
/// then again from the Volley 1 thresholds on after the fixes to spent
/// one-shots, area PD, ordnance and needles at lost targets, and cut plots:
/// one die fewer there shifts every roll after it). Checked: every Speed and
/// Evasion pool and its split; Formation Thrust as the slowest Unit (Heavies
/// 4 under High Fell Thunder's 5); the plot cut when it falls (Needle 3 after
/// Patient Ember's drive hit, Volleys 2 and 3: 3/3 cut to speed 0, evasion
/// 3, then Evasion capped at half the thrust, 1, the other 2 back to Speed,
/// E4); Pickets at thrust 8 once Bitter Updraft is gone still rolling its
/// plotted 3/3 (E4a); pair ranges through close → withdraw → maintain,
/// Maintain stopping at the Volley's start (Heavies/Carrier 36 → 33 → 36),
/// Pickets/Needle closing to 0, all ten pairs held in Volley 3; percentile
/// bands by mass with Sharp Descent's +10 shift (Bitter Updraft 01-57, a d100
/// of 57 on it) and the single Unit left (01-100); launch ranges after the
/// maneuver: Stone Patience's ER salvos at 36 MU (reach 42 from magazine
/// SP-1, both loads in Volley 1), Ninefold Gale's standard salvo at exactly
/// 30 MU (closed bound, one NG-1 load a Volley), High Fell Thunder's heavy
/// missiles and salvos at 36 MU wasted but spent (fm-readings 15), the racks
/// at 6 MU; missiles on target rolled before PD; PD allocation (W6): plotted
/// class-1 beams first, then automatic PDS to the most expected damage not
/// yet covered (PDS #20 to Stone Patience's SML #9 at 10.5 against 8.4 left
/// on Ninefold Gale's SML #7), own Unit only for a PDS without ADFC, the PDS
/// plotted to cover Clear Heading idle while it is not attacked (and without
/// Harrow's ADFC, lost in Volley 2, in Volley 3), weapons lost in Volley 2
/// (class-1 #13, PDS #16, #18, #21) out in Volley 3, nothing from Clear
/// Heading for Harrow (no ADFC); PD dice: PDS 4-5 one kill, class-1 beam 5-6
/// one kill and a natural 6 an extra die, threats rolled in launch order,
/// Evasion rerolls from the defending Formation's pool after each weapon's
/// own dice (W8: the Carrier's one point on PDS #20's miss in Volley 1; in
/// Volley 2 both points on class-1 #13's 4, rerolled 4 then 6, whose extra
/// die 5 makes 2 kills; in Volley 3 both on PDS #19's 2, rerolled 3 then 4),
/// PDS #20 left unrolled in Volley 3 once both missiles are down (W2);
/// surviving missiles 1d6 each as separate semi-armour-piercing hits, half
/// rounded up to armour (Harrow's 4 armour taking 1 normal then 2 and 1 from
/// the first two hits of 4); beam dice by closed 12 MU bands, Evasion DRM
/// less the arcs ignored (one-arc needle, torpedo and Unhurried Tide's
/// class-3 none, three-arc batteries one, class-1 two), screens 0/1, a
/// natural 6 under −1 still rerolling, rerolls without DRM and penetrating;
/// the torpedo's 2+ at 6 MU with DRM −2 hitting on a 6 for 1d6
/// semi-armour-piercing; the needle's natural 6 under DRM −2 scoring 1
/// normal point and destroying Bitter Updraft's FCS #5 (not rolled again,
/// not repaired, its Fire Control idle afterwards), a 3 at the dead FCS in
/// Volley 2 and a 5 − 2 at Sharp Descent's in Volley 3 scoring nothing;
/// knocked-out weapons listed as such (Patient Ember's, Harrow's #11); damage
/// and rows (Bitter Updraft 2 armour then 5 hull, then 8 normal + 1
/// penetrating on its last 7 boxes: rows 2-4, both crew factors, destroyed;
/// Harrow 4 armour and 18 hull with three crew factors, then 9 hull to box
/// 27: row 2 and the crew factor in box 24; Patient Ember three rows at once;
/// Sharp Descent 1 + 1 penetrating, two rows); thresholds at the deepest row
/// with +1 per extra row, core systems −1, sensors +1 (Harrow's 5 + 1 lost,
/// damaged but not destroyed: no natural 6), damaged and destroyed systems
/// not rolled again, spent one-shots not rolled at all (Bitter Updraft's and
/// Sharp Descent's fired SMR #6, E10a) while an unfired submunition pack
/// still rolls, drive halved (6 → 3, 8 → 4); bridge and life-support rolls
/// and their countdowns counting the current Volley (Patient Ember out of
/// control for Volley 1 only, back in control at its end; Sharp Descent out
/// for 2 from Volley 3); damage control with one party per crew factor left
/// (Harrow 4, then 3), up to three on a job and one d6 ≤ parties: the plotted
/// order first (ADFC #8: 5 fails, 3 repairs), then the default one (power
/// core, life support, bridge, …, beams by class, other weapons, the rest:
/// Harrow's 3 on class-1 #14 then 1 on the sensors, none left for Hangar Bay
/// #22; Bitter Updraft's needle-killed FCS skipped, its pack #7 before PDS
/// #10); Patient Ember's breached core rolling after damage control, holding
/// on 2, then repaired on a 1 and rolling no more; the end ranges and the
/// status table (Sharp Descent crippled and out of control, Harrow crippled
/// at 15/42, Unhurried Tide untouched). Not exercised: a PDS rolling a 6, PD
/// against heavy missiles, a core explosion and its blast, a rack or magazine
/// lost to a threshold, a needle or ordnance at a target already out of the
/// fight.
#[test]
fn the_missile_strike_report_at_seed_32_is_the_one_checked_by_hand() {
    let out = fam(&["resolve", "scenarios/missile-strike.toml", "--seed", "32"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    golden(&fixtures("reports"), "missile-strike-seed32", &text(&out.stdout));
}

/// The records written after the hand-checked missile strike (seed 32),
/// checked by hand against the report and the readings: spent ordnance as
/// crossed `Rounds:` boxes (W14), every magazine load and rack fired, out of
/// range or not (fm-readings 15); a spent rack rolls no threshold check, so
/// it is only crossed off, never `Destroyed` (E10a: Bitter Updraft's in Volley
/// 1, Sharp Descent's in Volley 3); the needle kill as the one `Destroyed`
/// system (no rack or magazine is lost to a threshold in this run);
/// threshold losses as `Damaged` (an unfired submunition pack among them)
/// and repairs as `Repaired`; sensors lost on a 5 + 1, damaged not destroyed;
/// hull, armour, crew factors and thrust (with `Original-Thrust:`) after
/// the damage; the bridge and life-support countdowns left in `Failure:` and
/// `Status: Uncontrolled` (V5).
#[test]
fn the_missile_strike_records_show_spent_ordnance_and_kills() {
    use fam::gzf::DamageState::{Damaged, Destroyed, Repaired};
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("next");
    let run = fam(&[
        "resolve",
        "scenarios/missile-strike.toml",
        "--seed",
        "32",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let read = |file: &str| {
        let written = std::fs::read_to_string(out.join(file)).unwrap();
        let parsed = fam::gzf::parse(&written, &fam::gzf::ParseOptions::default());
        assert!(!parsed.has_errors(), "{file}");
        parsed.file
    };
    // (open, crossed) `Rounds:` boxes of system `n` (1-based).
    let rounds = |ship: &fam::gzf::Ship, n: usize| {
        let boxes = ship.systems[n - 1].rounds.as_deref().unwrap_or_default();
        let crossed = boxes.iter().filter(|b| b.crossed).count();
        (boxes.len() - crossed, crossed)
    };
    // Damage state of system `n` (1-based).
    let state = |ship: &fam::gzf::Ship, n: usize| ship.systems[n - 1].status.damage;
    let kestrel = read("kestrel-reach.gzf");
    // Every magazine load drawn: SP-1 (both ER loads in Volley 1), HF-1 (two
    // salvos out of range, spent all the same), NG-1 (one a Volley).
    let thunder = kestrel.ship("KRD High Fell Thunder").unwrap();
    assert_eq!(rounds(thunder, 12), (0, 2));
    for rack in [8, 9, 10] {
        assert_eq!(
            rounds(thunder, rack),
            (0, 1),
            "heavy missile #{rack} spent out of range"
        );
        assert_eq!(state(thunder, rack), None);
    }
    assert_eq!(
        (
            thunder.hull_boxes() - thunder.hull_remaining(),
            thunder.armour_remaining()
        ),
        (1, 3)
    );
    assert_eq!(rounds(kestrel.ship("KRD Stone Patience").unwrap(), 10), (0, 2));
    assert_eq!(rounds(kestrel.ship("KRD Ninefold Gale").unwrap(), 8), (0, 3));

    // Sharp Descent: rack fired in Volley 1, then two rows in Volley 3: the
    // bridge (out of control for 2 Volleys, 1 left), FTL, PDS and drive lost;
    // the spent rack did not roll.
    let descent = kestrel.ship("KRD Sharp Descent").unwrap();
    assert_eq!(rounds(descent, 6), (0, 1));
    assert_eq!(state(descent, 6), None, "a spent rack rolls no threshold check");
    assert!(descent.status.uncontrolled);
    assert_eq!(state(descent, 1), Some(Damaged));
    assert_eq!(descent.systems[0].failure, Some(1), "one Volley out of control left");
    assert_eq!(state(descent, 4), Some(Damaged));
    assert_eq!(state(descent, 5), None, "the needle missed its FCS");
    assert_eq!(state(descent, 7), Some(Damaged));
    assert_eq!((descent.thrust, descent.original_thrust), (4, 8));
    assert_eq!(descent.hull_remaining(), 2);

    // Bitter Updraft: rack fired in Volley 1 (not rolled at the threshold),
    // FCS #5 killed by the needle, pack #7 and PDS #10 lost at row 1 and
    // not repaired, destroyed in Volley 2 before its packs could fire.
    let updraft = kestrel.ship("KRD Bitter Updraft").unwrap();
    assert_eq!(updraft.status.damage, Some(Destroyed));
    assert_eq!(updraft.hull_remaining(), 0);
    assert_eq!(rounds(updraft, 6), (0, 1));
    assert_eq!(state(updraft, 6), None, "a spent rack rolls no threshold check");
    assert_eq!(state(updraft, 5), Some(Destroyed), "FCS #5 killed by the needle");
    assert_eq!(state(updraft, 7), Some(Damaged), "an unfired pack lost on a 6");
    assert_eq!(state(updraft, 8), None);
    assert_eq!(state(updraft, 9), None);
    assert_eq!(state(updraft, 10), Some(Damaged));
    assert_eq!(updraft.systems[6].rounds, None);
    assert_eq!(updraft.systems[7].rounds, None);

    let meridian = read("meridian-compact.gzf");
    let harrow = meridian.ship("MCS Harrow of Stars").unwrap();
    assert_eq!(state(harrow, 2), None, "the core held at both thresholds");
    assert_eq!(state(harrow, 3), Some(Damaged));
    assert_eq!(
        harrow.systems[2].failure,
        Some(2),
        "life support: 4 Volleys from Volley 2"
    );
    assert_eq!(state(harrow, 8), Some(Repaired), "ADFC lost in Volley 2, repaired in 3");
    assert_eq!(
        state(harrow, 9),
        Some(Damaged),
        "sensors lost on 5 + 1, not a natural 6"
    );
    assert_eq!(state(harrow, 11), Some(Damaged));
    assert_eq!(state(harrow, 13), Some(Damaged));
    assert_eq!(state(harrow, 14), Some(Repaired), "lost and repaired in Volley 1");
    for pds in [16, 18, 21] {
        assert_eq!(state(harrow, pds), Some(Damaged), "PDS #{pds}");
    }
    assert_eq!(state(harrow, 22), Some(Damaged));
    assert_eq!((harrow.thrust, harrow.original_thrust), (4, 4));
    assert_eq!(harrow.hull_boxes() - harrow.hull_remaining(), 27);
    assert_eq!(harrow.armour_remaining(), 0);
    assert_eq!(harrow.crew_factors(), 3);
    assert!(!harrow.status.uncontrolled);

    // Patient Ember: three rows in Volley 1; its breached core held on a 2
    // and was repaired in Volley 2; back in control after Volley 1.
    let ember = meridian.ship("MCS Patient Ember").unwrap();
    assert_eq!(ember.status.damage, None, "no core explosion");
    assert!(!ember.status.uncontrolled);
    assert_eq!(state(ember, 1), Some(Damaged));
    assert_eq!(ember.systems[0].failure, None);
    assert_eq!(state(ember, 2), Some(Repaired));
    assert_eq!(state(ember, 3), Some(Damaged));
    assert_eq!(
        ember.systems[2].failure,
        Some(2),
        "life support: 5 Volleys from Volley 1"
    );
    assert_eq!(state(ember, 6), None);
    assert_eq!((ember.thrust, ember.original_thrust), (3, 6));
    assert_eq!(ember.hull_remaining(), 2);
    assert_eq!(ember.crew_factors(), 1);
    let tide = meridian.ship("MCS Unhurried Tide").unwrap();
    assert_eq!(
        (tide.hull_remaining(), tide.armour_remaining()),
        (8, 2),
        "no reactor blast"
    );

    // The needle's kill is the only system destroyed for good.
    let destroyed: Vec<(String, usize)> = kestrel
        .ships()
        .chain(meridian.ships())
        .flat_map(|ship| {
            ship.systems
                .iter()
                .enumerate()
                .filter(|(_, s)| s.status.damage == Some(Destroyed))
                .map(|(i, _)| (ship.name.clone(), i + 1))
        })
        .collect();
    assert_eq!(destroyed, [("KRD Bitter Updraft".to_string(), 5)]);
}

#[test]
fn every_shipped_scenario_resolves_the_same_way_twice() {
    for s in ["duel", "squadron-action", "fleet-action", "missile-strike"] {
        let p = format!("scenarios/{s}.toml");
        let a = fam(&["resolve", &p, "--seed", "99", "--format", "markdown"]);
        assert!(a.status.success(), "{s}: {}", text(&a.stderr));
        let b = fam(&["resolve", &p, "--seed", "99", "--format", "markdown"]);
        assert_eq!(a.stdout, b.stdout, "{s}: same seed, different report");
        assert!(text(&a.stdout).contains("Seed 99"));
        let c = fam(&["resolve", &p, "--seed", "100"]);
        assert_ne!(a.stdout, c.stdout, "{s}: the seed is not used");
    }
}

#[test]
fn log_and_records_are_written_atomically_and_inputs_stay_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("duel.jsonl");
    let out = dir.path().join("next");
    let before = std::fs::read(repo().join("ssd/kestrel-reach.gzf")).unwrap();
    let run = fam(&[
        "resolve",
        "scenarios/duel.toml",
        "--seed",
        "1",
        "--log",
        log.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert_eq!(std::fs::read(repo().join("ssd/kestrel-reach.gzf")).unwrap(), before);

    // The log: a header, then one JSON object per die and event.
    let log_text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<serde_json::Value> = log_text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines[0]["schema"], "fam-events");
    assert_eq!(lines[0]["version"], 1);
    assert_eq!(lines[0]["seed"], 1);
    let rolls = lines.iter().filter(|l| l["type"] == "roll").count();
    assert!(rolls > 20);
    for (i, l) in lines.iter().enumerate().skip(1) {
        assert_eq!(l["seq"], i as u64);
    }

    // The records: Long Watch comes back with 6 hull boxes crossed, 3 armour
    // gone, its FCS damaged (as in the hand-checked report), and loads again.
    let written = std::fs::read_to_string(out.join("kestrel-reach.gzf")).unwrap();
    let parsed = fam::gzf::parse(&written, &fam::gzf::ParseOptions::default());
    assert!(!parsed.has_errors());
    let watch = parsed.file.ship("KRD Long Watch").unwrap();
    assert_eq!(watch.hull_boxes() - watch.hull_remaining(), 6);
    assert_eq!(watch.armour_remaining(), 0);
    assert_eq!(watch.crew_factors(), 2);
    let fcs = &watch.systems[5];
    assert_eq!(fcs.status.damage, Some(fam::gzf::DamageState::Damaged));
    assert!(out.join("meridian-compact.gzf").exists());
    let state = std::fs::read_to_string(out.join("state.toml")).unwrap();
    let state: toml::Table = state.parse().unwrap();
    assert_eq!(state["range"][0]["mu"].as_integer(), Some(21));
    // The next Exchange: its scenario and one orders template per commander.
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "kestrel-reach.gzf",
            "meridian-compact.gzf",
            "orders-Ilse.toml",
            "orders-Marek.toml",
            "scenario.toml",
            "state.toml"
        ],
        "nothing else (no temporaries) in the output directory"
    );
}

/// The play-by-mail cycle: Exchange 2 resolved from the files Exchange 1
/// wrote (its scenario and the unedited orders templates) is the same as
/// Exchange 2 of `fam resolve --exchanges 2`, which the automated commander
/// plays.
#[test]
fn resuming_from_the_written_files_matches_one_continuous_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("turn2");
    let o = out.to_str().unwrap();
    let first = fam(&["resolve", "scenarios/duel.toml", "--seed", "9", "--out", o]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let scenario = out.join("scenario.toml");
    let ilse = out.join("orders-Ilse.toml");
    let marek = out.join("orders-Marek.toml");
    let check = fam(&[
        "check",
        scenario.to_str().unwrap(),
        ilse.to_str().unwrap(),
        marek.to_str().unwrap(),
    ]);
    assert!(check.status.success(), "{}{}", text(&check.stdout), text(&check.stderr));
    let second = fam(&[
        "resolve",
        scenario.to_str().unwrap(),
        "--orders",
        ilse.to_str().unwrap(),
        "--orders",
        marek.to_str().unwrap(),
    ]);
    assert!(second.status.success(), "{}", text(&second.stderr));
    let report = text(&second.stdout);
    let seed2 = fam::engine::victory::exchange_seed(9, 2);
    assert!(report.contains("(Exchange 2)"), "{report}");
    assert!(report.contains(&format!("Seed {seed2}")), "{report}");

    // The same two Exchanges in one run, Exchange 2 played by the doctrine.
    let loaded = fam::orders::load_scenario(
        &repo().join("scenarios/duel.toml"),
        &[],
        &fam::gzf::ParseOptions::default(),
    )
    .unwrap();
    let header = fam::report::Header {
        title: loaded.title.clone().unwrap(),
        seed: 9,
        exchange: 1,
    };
    let both = fam::resolve::resolve_battle(
        &header,
        9,
        &loaded.battle,
        &fam::resolve::Plotted {
            plot: loaded.plot.clone(),
            sources: vec![fam::engine::doctrine::PlotSource::Explicit; 2],
            choices: vec![None; 2],
        },
        &fam::engine::victory::Victory {
            max_exchanges: 100,
            morale_percent: None,
            triggers: Vec::new(),
        },
        2,
        fam::report::Style::Text,
        true,
        &|b| fam::resolve::battle_plot(&loaded, b, 1, 2),
    );
    let start = both.report.find("Volley 1").unwrap();
    let second_start = both.report[start..].find("(Exchange 2)").map(|i| i + start).unwrap();
    let continuous = &both.report[second_start..];
    let from_files = &report[report.find("Volley 1").unwrap()..report.find("End of the Exchange").unwrap()];
    assert!(
        continuous.contains(from_files),
        "Exchange 2 differs between the two ways"
    );
}

#[test]
fn a_bad_scenario_writes_nothing_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("bad.toml");
    let ssd = repo().join("ssd/meridian-compact.gzf");
    std::fs::write(
        &scenario,
        format!(
            "gzf = [{:?}]\nseed = 1\n[sides]\nA = [\"F\"]\n[formations]\nF = [\"MCS Nowhere\"]\n",
            ssd.display().to_string()
        ),
    )
    .unwrap();
    let log = dir.path().join("log.jsonl");
    let run = fam(&["resolve", scenario.to_str().unwrap(), "--log", log.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
    assert!(text(&run.stderr).contains("MCS Nowhere"), "{}", text(&run.stderr));
    assert!(!log.exists());
    assert!(run.stdout.is_empty());
}

#[test]
fn a_scenario_without_a_seed_needs_one_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let text_in = std::fs::read_to_string(repo().join("scenarios/duel.toml")).unwrap();
    let unseeded: String = text_in
        .lines()
        .filter(|l| !l.starts_with("seed"))
        .map(|l| l.replace("../ssd/", &format!("{}/ssd/", repo().display())) + "\n")
        .collect();
    let path = dir.path().join("duel.toml");
    std::fs::write(&path, unseeded).unwrap();
    let run = fam(&["resolve", path.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
    assert!(text(&run.stderr).contains("--seed"));
    let seeded = fam(&["resolve", path.to_str().unwrap(), "--seed", "1"]);
    assert!(seeded.status.success(), "{}", text(&seeded.stderr));
}

/// The orders templates of a carrier battle carry the automated
/// commander's small-craft orders (launches, recoveries, tasks, the
/// secondary maneuver of a Formation of groups) for the next Exchange.
#[test]
fn carrier_templates_carry_the_doctrines_small_craft_orders() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("next");
    let o = fam(&[
        "resolve",
        "scenarios/carrier-strike.toml",
        "--seed",
        "4",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let orders: Vec<std::path::PathBuf> = ["orders-Oyelaran.toml", "orders-Ilse.toml"]
        .iter()
        .map(|n| out.join(n))
        .collect();
    let next = fam::orders::load_scenario(&out.join("scenario.toml"), &orders, &fam::gzf::ParseOptions::default())
        .unwrap_or_else(|r| panic!("{}", crate::support::diagnostic_lines(&r).join("\n")));
    let doctrine = fam::resolve::battle_plot(&next, &next.battle, 1, 2).plot;
    let craft = |p: &fam::engine::plot::ExchangePlot| -> Vec<_> {
        p.formations
            .iter()
            .flatten()
            .flat_map(|f| &f.volleys)
            .map(|v| (v.launch.clone(), v.recover.clone(), v.craft.clone(), v.after))
            .collect()
    };
    assert_eq!(craft(&next.plot), craft(&doctrine));
    assert!(
        craft(&doctrine)
            .iter()
            .any(|(l, r, c, _)| !l.is_empty() || !r.is_empty() || !c.is_empty()),
        "no small-craft orders to compare"
    );
}
