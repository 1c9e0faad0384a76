//! Fighter groups and gunboats on the input and output side
//! (docs/fighters.md §6-7): records and scenarios build the right craft
//! Units, plots with the small-craft keys are checked at their positions,
//! groups are written back to their records, and written plots load again.

use crate::support::diagnostic_lines as lines;
use fam::diag::SourceFile;
use fam::engine::plot::{CraftAction, CraftOrder, Maneuver, ManeuverOrder};
use fam::engine::rules::PilotQualityRule;
use fam::engine::state::{CraftKind, GunboatKind, Rearm};
use fam::gzf::{self, FighterBase, FighterModifier, ParseOptions, PilotQuality};
use fam::orders::{self, Loaded, Report};

use crate::support::repo;

/// Groups that are not in the library: a gunboat squadron, a launched group
/// without a carrier, and an FT2 file's drone pod and light fighters.
const GROUPS_GZF: &str = "Profile: FB1

Fighter-Group: Lances
Craft: O O O O O -
Gunboat: Beam
Status: Launched
Position-X: 0.0
Position-Y: 0.0

Fighter-Group: Strays
Craft: O O O O
Fighter-Type: Long Range Standard
Endurance: - - - O O O O O O
Position-X: 0.0
Position-Y: 0.0
";

const FT2_GZF: &str = "Profile: FT2

Ship: OVM Hayloft
Thrust-Rating: 4
Damage-Track: OOOO OOOO

System: Fighter Bay
Fighter-Type: Drone Pod

System: Fighter Bay
Fighter-Type: Long Range Standard

Fighter-Group: Gnats
Craft: O O O O O O O O
Position-X: 0.0
Position-Y: 0.0
";

/// Light fighters (fam extension `Light`, readings F40): a full group of
/// eight without a carrier, and one that fills a bay.
const LIGHT_GZF: &str = "Profile: FB1

Ship: TFP Gnat Nest
Thrust-Rating: 4
Damage-Track: OOOO OOOO

System: Hangar Bay
Fighter-Type: Light Interceptor

Fighter-Group: Midges
Craft: O O O O O O O -
Fighter-Type: Light Fast Attack
Status: Launched
Position-X: 0.0
Position-Y: 0.0
";

fn read_gzf(p: &str) -> Result<SourceFile, String> {
    match p {
        "light.gzf" => Ok(SourceFile::new(p, LIGHT_GZF)),
        "groups.gzf" => Ok(SourceFile::new(p, GROUPS_GZF)),
        "ft2.gzf" => Ok(SourceFile::new(p, FT2_GZF)),
        _ => std::fs::read_to_string(repo().join("ssd").join(p))
            .map(|t| SourceFile::new(p, t))
            .map_err(|e| e.to_string()),
    }
}

fn build(scenario: &str, orders: &[&str]) -> Result<Loaded, Vec<Report>> {
    let orders = orders
        .iter()
        .enumerate()
        .map(|(i, t)| SourceFile::new(format!("orders{}.toml", i + 1), *t))
        .collect();
    orders::build(
        SourceFile::new("scenario.toml", scenario),
        orders,
        &mut read_gzf,
        &ParseOptions::default(),
    )
}

fn ok(scenario: &str) -> Loaded {
    match build(scenario, &[]) {
        Ok(l) => l,
        Err(r) => panic!("did not build:\n{}", lines(&r).join("\n")),
    }
}

fn errors(scenario: &str) -> Vec<String> {
    match build(scenario, &[]) {
        Ok(_) => panic!("built without errors"),
        Err(r) => lines(&r).into_iter().filter(|l| l.contains(": error: ")).collect(),
    }
}

const HEAD: &str = r#"title = "Kiln"
gzf = ["tessaly-carriers.gzf", "meridian-compact.gzf"]

[sides]
Varrow = ["Carrier", "Strike"]
Arranmore = ["Cruisers"]

[formations]
Carrier = ["TFP Ember Kiln", "TFP Lantern Wake"]
Strike = ["Cinder Flight", "TFP Ember Kiln/14"]
Cruisers = ["MCS Clear Heading"]
"#;

fn unit(l: &Loaded, name: &str) -> usize {
    l.battle
        .units
        .iter()
        .position(|u| u.name == name)
        .unwrap_or_else(|| panic!("no Unit {name}"))
}

#[test]
fn groups_come_from_blocks_and_bays_into_their_formations() {
    let l = ok(HEAD);
    let b = &l.battle;
    // Ships keep their numbers; groups follow, Formation by Formation.
    let names: Vec<&str> = b.units.iter().map(|u| u.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "TFP Ember Kiln",
            "TFP Lantern Wake",
            "MCS Clear Heading",
            "TFP Ember Kiln/15",
            "Cinder Flight",
            "TFP Ember Kiln/14"
        ]
    );
    let kiln = unit(&l, "TFP Ember Kiln");
    // The listed groups fly in Strike; the unlisted bay group with its carrier.
    assert_eq!(b.formations[1].units, [4, 5]);
    assert_eq!(b.formations[0].units, [0, 1, 3]);
    let cinder = b.units[4].craft.unwrap();
    assert_eq!(
        cinder.kind,
        CraftKind::Fighter(gzf::FighterType {
            modifier: None,
            base: FighterBase::Attack,
            light: false,
        })
    );
    assert_eq!((cinder.craft, cinder.boxes, cinder.cef, cinder.cef_max), (6, 6, 6, 6));
    assert!(cinder.docked);
    assert_eq!(
        cinder.carrier,
        Some((kiln, 12)),
        "the first block naming the carrier sits in bay 1 (system 13)"
    );
    assert_eq!(cinder.quality, None, "pilot quality is off by default");
    assert_eq!(cinder.rearm, Rearm::Ready);
    let standard = b.units[5].craft.unwrap();
    assert_eq!(standard.carrier, Some((kiln, 13)));
    assert!(standard.docked);
    let fast = &b.units[3];
    assert_eq!(fast.thrust, 18, "Fast groups have thrust equivalent 18");
    assert_eq!(b.units[5].thrust, 12);
    assert_eq!(fast.craft.unwrap().carrier, Some((kiln, 14)));
    assert_eq!(
        (fast.mass, fast.points, fast.systems.len(), fast.hull_total),
        (0, 0, 0, 0)
    );
    // Docked groups are out of the fight, and so is a Formation of them.
    assert!(!b.formation_active(1));
    assert_eq!(
        b.formation_thrust(0),
        4,
        "groups do not count for a Formation with ships"
    );
}

#[test]
fn rules_and_launch_tubes_are_read() {
    let l = ok(&format!(
        "{HEAD}\n[rules]\npilot_quality = \"record\"\nfighter_evasion_drm = true\n\n[launch_tubes]\n\"TFP Ember Kiln\" = 1\n"
    ));
    assert_eq!(l.battle.rules.pilot_quality, PilotQualityRule::Record);
    assert!(l.battle.rules.fighter_evasion_drm);
    let cinder = unit(&l, "Cinder Flight");
    assert_eq!(l.battle.units[cinder].craft.unwrap().quality, Some(PilotQuality::Ace));
    assert_eq!(l.battle.units[unit(&l, "TFP Ember Kiln")].launch_tubes, Some(1));
    let e = errors(&format!(
        "{HEAD}\n[rules]\npilot_quality = \"roll\"\n\n[launch_tubes]\n\"TFP Lantern Wake\" = 1\n\"TFP Ember Kiln\" = -1\n"
    ));
    assert_eq!(
        e,
        [
            "scenario.toml:14:17: error: unknown variant `roll`",
            "scenario.toml:17:1: error: `TFP Lantern Wake` has no hangar bays",
            "scenario.toml:18:20: error: a number of launch tubes cannot be negative",
        ]
    );
}

#[test]
fn gunboats_and_carrierless_groups_start_launched_with_their_endurance() {
    let l = ok(r#"gzf = ["groups.gzf", "meridian-compact.gzf"]
[sides]
A = ["Boats"]
B = ["Cruisers"]
[formations]
Boats = ["Lances", "Strays"]
Cruisers = ["MCS Clear Heading"]
"#);
    let lances = &l.battle.units[unit(&l, "Lances")];
    let c = lances.craft.unwrap();
    assert_eq!(c.kind, CraftKind::Gunboat(GunboatKind::Beam));
    assert_eq!((c.craft, c.boxes, c.cef, c.cef_max), (5, 6, 6, 6));
    assert!(!c.docked && c.carrier.is_none());
    assert_eq!(lances.thrust, 9);
    let strays = l.battle.units[unit(&l, "Strays")].craft.unwrap();
    assert_eq!(
        (strays.craft, strays.cef, strays.cef_max),
        (4, 6, 9),
        "open endurance boxes are CEF left"
    );
    assert!(!strays.docked);
    assert!(l.battle.craft_only(0));
    assert_eq!(l.battle.formation_thrust(0), 9, "the lowest thrust equivalent");
}

#[test]
fn records_refuse_what_fam_cannot_fly_at_the_record() {
    // Drone pods and light fighters only when they take part (a group with
    // neither carrier nor listing takes none: `Lances` and `Strays`).
    let e = errors(
        r#"gzf = ["groups.gzf", "ft2.gzf", "meridian-compact.gzf"]
[sides]
A = ["Hay"]
B = ["Cruisers"]
[formations]
Hay = ["OVM Hayloft", "Gnats"]
Cruisers = ["MCS Clear Heading"]
"#,
    );
    assert_eq!(
        e,
        [
            "ft2.gzf:3:1: error: group `OVM Hayloft/1` is a drone pod: fam has no rules for drone pods",
            "ft2.gzf:14:1: error: group `Gnats` has 8 craft boxes",
        ]
    );
    // The record itself loads: GZF has drone pods and light fighters.
    let parsed = gzf::parse(FT2_GZF, &ParseOptions::default());
    assert!(!parsed.has_errors());
}

#[test]
fn light_fighters_fly_eight_to_a_group_with_four_endurance() {
    let l = ok(r#"gzf = ["light.gzf", "meridian-compact.gzf"]
[sides]
A = ["Nest", "Swarm"]
B = ["Cruisers"]
[formations]
Nest = ["TFP Gnat Nest"]
Swarm = ["Midges"]
Cruisers = ["MCS Clear Heading"]
"#);
    let midges = l.battle.units[unit(&l, "Midges")].craft.unwrap();
    assert_eq!(
        midges.kind,
        CraftKind::Fighter(gzf::FighterType {
            modifier: Some(FighterModifier::Fast),
            base: FighterBase::Attack,
            light: true,
        })
    );
    assert_eq!((midges.craft, midges.boxes, midges.cef, midges.cef_max), (7, 8, 4, 4));
    assert_eq!(l.battle.units[unit(&l, "Midges")].thrust, 18, "fast light fighters");
    let bay = l.battle.units[unit(&l, "TFP Gnat Nest/1")].craft.unwrap();
    assert_eq!((bay.craft, bay.boxes, bay.cef), (8, 8, 4), "a light bay group is eight");
    assert!(bay.docked);
}

#[test]
fn light_fighter_types_and_endurance_are_checked_at_their_place() {
    let text = "Profile: FB1

Fighter-Group: A
Craft: O O O O O O O O
Fighter-Type: Light Torpedo
Position-X: 0.0
Position-Y: 0.0

Fighter-Group: B
Craft: O O O O O O O O
Endurance: O O O O O O
Fighter-Type: Light Interceptor
Position-X: 0.0
Position-Y: 0.0

Fighter-Group: C
Craft: O O O O O O O O
Fighter-Type: Light Heavy Standard
Position-X: 0.0
Position-Y: 0.0
";
    let parsed = gzf::parse(text, &ParseOptions::default());
    let src = SourceFile::new("light.gzf", text);
    let got: Vec<String> = parsed
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| {
            let (l, c) = src.line_col(d.span.start);
            format!("{l}:{c}: {}", d.message)
        })
        .collect();
    assert_eq!(
        got,
        [
            "5:15: `Light Torpedo`: light fighters come only as fast, interceptor or attack fighters",
            "11:12: 6 endurance boxes",
            "18:15: `Light Heavy Standard`: light fighters come only as fast, interceptor or attack fighters",
        ]
    );
    let ft2 = gzf::parse(
        "Profile: FT2\n\nFighter-Group: D\nCraft: O O O O O O O O\nFighter-Type: Light Interceptor\nPosition-X: 0.0\nPosition-Y: 0.0\n",
        &ParseOptions::default(),
    );
    assert!(
        ft2.diagnostics
            .iter()
            .any(|d| d.is_error() && d.message.contains("belongs to the FB1 profile")),
        "light fighters are an FB1-profile extension"
    );
}

/// Every new plot key, legal: launches over two Volleys, a recovery, a
/// screen, an interception, attack runs, a secondary maneuver and a Fire
/// Control aimed at a group.
const PLOTS: &str = r#"
[[plot.Carrier.volley]]
speed = 2
evasion = 2
primary = { maintain = "Cruisers" }
launch = ["Cinder Flight", "TFP Ember Kiln/14"]
fighters = [{ group = "TFP Ember Kiln/15", screen = "TFP Ember Kiln" }]

[[plot.Carrier.volley]]
speed = 2
evasion = 2
primary = { maintain = "Cruisers" }
launch = ["TFP Ember Kiln/15"]
fighters = [{ group = "TFP Ember Kiln/15", intercept = true }]

[[plot.Carrier.volley]]
speed = 4
evasion = 0
primary = { maintain = "Cruisers" }
recover = ["Cinder Flight"]

[[plot.Strike.volley]]
speed = 4
evasion = 2
primary = { close = "Cruisers" }
fighters = [
  { group = "TFP Ember Kiln/14", attack = "MCS Clear Heading" },
  { group = "Cinder Flight", attack = "MCS Clear Heading" },
]

[[plot.Strike.volley]]
speed = 9
evasion = 3
primary = { close = "Cruisers" }
after = { close = "Cruisers" }
fighters = [{ group = "Cinder Flight", attack = "MCS Clear Heading" }]

[[plot.Strike.volley]]
speed = 12
evasion = 0
primary = { withdraw = "Cruisers" }
after = { withdraw = "Cruisers" }

[[plot.Cruisers.volley]]
speed = 4
evasion = 2
primary = { maintain = "Carrier" }
fire = [{ unit = "MCS Clear Heading", fc = 6, group = "Cinder Flight", weapons = [12] }]
"#;

#[test]
fn every_small_craft_key_builds_its_plot() {
    let l = ok(&format!("{HEAD}{PLOTS}"));
    let g = |n: &str| unit(&l, n);
    let carrier = l.plot.formations[0].as_ref().unwrap();
    assert_eq!(carrier.volleys[0].launch, [g("Cinder Flight"), g("TFP Ember Kiln/14")]);
    assert_eq!(carrier.volleys[1].launch, [g("TFP Ember Kiln/15")]);
    assert_eq!(carrier.volleys[2].recover, [g("Cinder Flight")]);
    assert_eq!(
        carrier.volleys[0].craft,
        [CraftOrder {
            group: g("TFP Ember Kiln/15"),
            action: CraftAction::Screen(g("TFP Ember Kiln"))
        }]
    );
    assert_eq!(carrier.volleys[1].craft[0].action, CraftAction::Intercept);
    let strike = l.plot.formations[1].as_ref().unwrap();
    assert_eq!(
        (strike.volleys[0].speed, strike.volleys[0].evasion),
        (4, 2),
        "half thrust in the launch Volley"
    );
    assert_eq!(
        strike.volleys[0].craft[1].action,
        CraftAction::Attack(g("MCS Clear Heading"))
    );
    assert_eq!(
        strike.volleys[1].after,
        Some(ManeuverOrder {
            target: 2,
            maneuver: Maneuver::Close
        })
    );
    let fire = &l.plot.formations[2].as_ref().unwrap().volleys[0].fire[0];
    assert_eq!((fire.group, fire.target), (Some(g("Cinder Flight")), Some(1)));
}

#[test]
fn a_one_table_plot_at_full_thrust_serves_the_launch_volley() {
    let plots = r#"
[[plot.Carrier.volley]]
speed = 2
evasion = 2
launch = ["Cinder Flight"]

[[plot.Carrier.volley]]
speed = 2
evasion = 2

[[plot.Carrier.volley]]
speed = 2
evasion = 2

[[plot.Strike.volley]]
speed = 8
evasion = 4
primary = { close = "Cruisers" }
"#;
    let l = ok(&format!("{HEAD}{plots}"));
    // The engine cuts the launch Volley's plot to the halved thrust (E4).
    assert_eq!(l.plot.formations[1].as_ref().unwrap().volleys[0].speed, 8);
}

#[test]
fn written_plots_with_every_small_craft_key_load_back_equal() {
    let l = ok(&format!("{HEAD}{PLOTS}"));
    let text = orders::write::plot_toml(&l.battle, &l.plot, &[0, 1, 2], None);
    for key in [
        "launch = [",
        "recover = [",
        "fighters = [",
        "after = {",
        "group = \"Cinder Flight\", weapons",
    ] {
        assert!(text.contains(key), "{key} missing in:\n{text}");
    }
    let again = ok(&format!("{HEAD}\n{text}"));
    assert_eq!(again.plot, l.plot);
}

#[test]
fn small_craft_plot_errors_are_reported_at_their_place() {
    let plots = r#"
[[plot.Carrier.volley]]
speed = 2
evasion = 2
launch = ["Nobody", "Cinder Flight", "TFP Ember Kiln/15", "Cinder Flight"]
recover = ["MCS Clear Heading"]
fighters = [
  { group = "Cinder Flight", attack = "MCS Clear Heading" },
  { group = "TFP Ember Kiln/15", screen = "MCS Clear Heading" },
  { group = "TFP Ember Kiln/15", intercept = true },
]
after = { close = "Cruisers" }

[[plot.Strike.volley]]
speed = 12
evasion = 0
fighters = [
  { group = "Cinder Flight", intercept = true },
  { group = "TFP Ember Kiln/14", attack = "TFP Lantern Wake", dogfight = "Cinder Flight" },
  { group = "TFP Ember Kiln/14", dogfight = "MCS Clear Heading" },
]

[[plot.Cruisers.volley]]
speed = 4
evasion = 2
fire = [
  { unit = "MCS Clear Heading", fc = 6, group = "TFP Lantern Wake" },
  { unit = "MCS Clear Heading", fc = 7, target = "Strike" },
]
"#;
    let e = errors(&format!("{HEAD}{plots}"));
    let expected: Vec<String> = [
        "scenario.toml:16:11: error: no group named `Nobody` in this battle",
        "scenario.toml:16:21: error: `Cinder Flight` is launched in Volley 1 and again in Volley 2",
        "scenario.toml:16:21: error: `Cinder Flight` is launched in Volley 1 and again in Volley 3",
        "scenario.toml:16:38: error: `TFP Ember Kiln/15` is launched in Volley 1 and again in Volley 2",
        "scenario.toml:16:38: error: `TFP Ember Kiln/15` is launched in Volley 1 and again in Volley 3",
        "scenario.toml:16:59: error: `Cinder Flight` is launched twice in this Volley",
        "scenario.toml:17:12: error: `MCS Clear Heading` is a ship, not a fighter group or gunboat squadron",
        "scenario.toml:19:13: error: `Cinder Flight` is in Formation `Strike`, not in `Carrier`",
        "scenario.toml:20:43: error: `MCS Clear Heading` is in Formation `Cruisers`, not in `Carrier`",
        "scenario.toml:21:13: error: `TFP Ember Kiln/15` already has an action in this Volley (line 20)",
        "scenario.toml:23:9: error: `Carrier` holds a ship (`TFP Ember Kiln`): only Formations of small craft make a secondary maneuver",
        "scenario.toml:29:42: error: `Cinder Flight` is an attack group and cannot intercept missiles",
        "scenario.toml:30:74: error: 2 actions for `TFP Ember Kiln/14` in one entry",
        "scenario.toml:31:45: error: `MCS Clear Heading` is a ship: make an attack run with attack = \"…\"",
        "scenario.toml:38:49: error: `TFP Lantern Wake` is a ship, not a fighter group or gunboat squadron",
        "scenario.toml:39:50: error: Formation `Strike` holds only small craft, which take no share of fire at a Formation",
    ]
    .map(String::from)
    .to_vec();
    assert_eq!(e, expected);
}

#[test]
fn launches_are_held_to_thrust_bays_tubes_and_rearming() {
    let plots = r#"
[launch_tubes]
"TFP Ember Kiln" = 1

[[plot.Carrier.volley]]
speed = 2
evasion = 2
launch = ["Cinder Flight", "TFP Ember Kiln/14"]

[[plot.Carrier.volley]]
speed = 2
evasion = 2

[[plot.Carrier.volley]]
speed = 2
evasion = 2

[[plot.Strike.volley]]
speed = 5
evasion = 2

[[plot.Strike.volley]]
speed = 5
evasion = 7

[[plot.Strike.volley]]
speed = 12
evasion = 0
"#;
    assert_eq!(
        errors(&format!("{HEAD}{plots}")),
        [
            "scenario.toml:19:28: error: `TFP Ember Kiln` launches or recovers 2 groups in Volley 1, but has 1 launch tubes (`[launch_tubes]`)",
            "scenario.toml:30:9: error: Speed 5 + Evasion 2 = 7, but the Formation Thrust of `Strike` in Volley 1 is 6: the thrust equivalent 12, halved in the Volley its groups launch",
            "scenario.toml:35:11: error: Evasion 7 is more than half the Formation Thrust of `Strike` in Volley 2 (12 (the lowest thrust equivalent of its groups out), so at most 6)",
        ]
    );
    // Re-arming, and groups that are already out.
    let gzf = std::fs::read_to_string(repo().join("ssd/tessaly-carriers.gzf"))
        .unwrap()
        .replace(
            "Status:           Docked",
            "Status:           Docked\nRearm:            2",
        );
    let mut read = |p: &str| -> Result<SourceFile, String> {
        if p == "tessaly-carriers.gzf" {
            Ok(SourceFile::new(p, gzf.clone()))
        } else {
            read_gzf(p)
        }
    };
    let scenario = format!(
        "{HEAD}{}",
        r#"
[[plot.Carrier.volley]]
speed = 2
evasion = 2
launch = ["Cinder Flight"]

[[plot.Carrier.volley]]
speed = 2
evasion = 2

[[plot.Carrier.volley]]
speed = 2
evasion = 2
"#
    );
    let r = orders::build(
        SourceFile::new("scenario.toml", scenario),
        Vec::new(),
        &mut read,
        &ParseOptions::default(),
    )
    .expect_err("refused");
    assert_eq!(
        lines(&r),
        [
            "scenario.toml:16:11: error: `Cinder Flight` is re-arming: it may launch from Volley 3 of this Exchange (`Rearm: 2`)"
        ]
    );
}

#[test]
fn carriers_must_exist_and_have_a_bay_for_each_group() {
    let extra = "Profile: FB1

Fighter-Group: Orphans
Craft: O O O O O O
Status: Docked
Carrier: TFP Nowhere

Fighter-Group: Crowd 1
Craft: O O O O O O
Status: Docked
Carrier: TFP Lantern Wake

Fighter-Group: Base Wing
Craft: O O O O O O
Status: Docked
Carrier: Waypoint Halcyon
";
    // A base with hangar bays is a carrier (readings F50): the Base Wing
    // takes one of Waypoint Halcyon's bays and is no error.
    let mut read = |p: &str| -> Result<SourceFile, String> {
        if p == "extra.gzf" {
            Ok(SourceFile::new(p, extra))
        } else {
            read_gzf(p)
        }
    };
    let scenario = HEAD.replace("\"meridian-compact.gzf\"]", "\"meridian-compact.gzf\", \"extra.gzf\"]");
    let r = orders::build(
        SourceFile::new("scenario.toml", scenario),
        Vec::new(),
        &mut read,
        &ParseOptions::default(),
    )
    .expect_err("refused");
    assert_eq!(
        lines(&r),
        [
            "extra.gzf:6:1: error: group `Orphans` names `TFP Nowhere` as its carrier, and no loaded record holds that ship or base",
            "extra.gzf:11:1: error: `TFP Lantern Wake` has 0 hangar bays, and group `Crowd 1` is group 1 naming it as carrier",
        ]
    );
}

#[test]
fn groups_are_written_back_and_changed_bay_groups_get_blocks() {
    let mut l = ok(HEAD);
    let mut after = l.battle.clone();
    let cinder = unit(&l, "Cinder Flight");
    let fast = unit(&l, "TFP Ember Kiln/15");
    {
        let c = after.units[cinder].craft.as_mut().unwrap();
        c.craft = 4;
        c.cef = 3;
        c.docked = false;
        c.rearm = Rearm::In(2);
        let f = after.units[fast].craft.as_mut().unwrap();
        f.craft = 0;
        f.docked = false;
        after.units[fast].destroyed = true;
    }
    l.write_back(&after);
    let text = gzf::write(&l.records[0].file);
    let tail = &text[text
        .find("Fighter-Group:    Cinder Flight")
        .expect("Cinder Flight's block")..];
    assert_eq!(
        tail,
        "Fighter-Group:    Cinder Flight
Craft:            - - O O O O
Fighter-Type:     Attack
Pilot-Quality:    Ace
Endurance:        - - - O O O
Status:           Launched
Rearm:            2
Carrier:          TFP Ember Kiln
Log:              The Ember Kiln's attack group, in its first hangar bay.

Fighter-Group:    TFP Ember Kiln/15
Craft:            - - - - - -
Fighter-Type:     Fast Interceptor
Status:           Launched Destroyed
Carrier:          TFP Ember Kiln
"
    );
    // The written records load again, the groups by their new blocks, in
    // the same bays.
    let written = text.clone();
    let mut read = |p: &str| -> Result<SourceFile, String> {
        if p == "tessaly-carriers.gzf" {
            Ok(SourceFile::new(p, written.clone()))
        } else {
            read_gzf(p)
        }
    };
    let again = orders::build(
        SourceFile::new("scenario.toml", HEAD),
        Vec::new(),
        &mut read,
        &ParseOptions::default(),
    )
    .unwrap_or_else(|r| panic!("{}", lines(&r).join("\n")));
    let c = again.battle.units[unit(&again, "Cinder Flight")].craft.unwrap();
    assert_eq!((c.craft, c.cef, c.docked, c.rearm), (4, 3, false, Rearm::In(2)));
    let f = &again.battle.units[unit(&again, "TFP Ember Kiln/15")];
    assert!(f.destroyed);
    assert_eq!(f.craft.unwrap().carrier.map(|c| c.1), Some(14));
    assert_eq!(
        again.battle.units[unit(&again, "TFP Ember Kiln/14")]
            .craft
            .unwrap()
            .carrier
            .map(|c| c.1),
        Some(13)
    );
}

#[test]
fn the_fam_extension_fields_round_trip() {
    let text = "Profile: FB1

Fighter-Group: Wasps
Craft: - O O O O O
Type: Torpedo
Rounds: -
Status: Docked
Rearm: never
Carrier: KRD Caldera

Fighter-Group: Lances
Craft: O O O O O O
Gunboat: torpedo
Status: Launched
Position-X: 1.0
Position-Y: 2.0
";
    let parsed = gzf::parse(text, &ParseOptions::default());
    assert!(!parsed.has_errors());
    let written = gzf::write(&parsed.file);
    assert!(
        written.contains("Rounds:           -\nStatus:           Docked\nRearm:            Never\n"),
        "{written}"
    );
    assert!(written.contains("Gunboat:          Torpedo\n"), "{written}");
    let again = gzf::parse(&written, &ParseOptions::default());
    assert_eq!(again.file, parsed.file);
    let gzf::Item::FighterGroup(w) = &again.file.items[0] else {
        panic!("a group")
    };
    assert_eq!(w.rearm, Some(gzf::GroupRearm::Never));
    assert_eq!(w.fighter_type.map(|t| t.modifier), Some(None::<FighterModifier>));
}

/// The Kiln scenario with Lantern Wake flying in Strike with the two groups
/// its carrier launches in Volley 1 (read with [`read_wreck`], Lantern Wake
/// is destroyed); `strike` is Strike's plot.
fn wreck_scenario(strike: &str) -> String {
    format!(
        r#"title = "Kiln"
gzf = ["tessaly-carriers.gzf", "meridian-compact.gzf"]

[sides]
Varrow = ["Carrier", "Strike"]
Arranmore = ["Cruisers"]

[formations]
Carrier = ["TFP Ember Kiln"]
Strike = ["TFP Lantern Wake", "Cinder Flight", "TFP Ember Kiln/14"]
Cruisers = ["MCS Clear Heading"]

[[plot.Carrier.volley]]
speed = 2
evasion = 2
primary = {{ maintain = "Cruisers" }}
launch = ["Cinder Flight", "TFP Ember Kiln/14"]

[[plot.Carrier.volley]]
speed = 2
evasion = 2
primary = {{ maintain = "Cruisers" }}

[[plot.Carrier.volley]]
speed = 2
evasion = 2
primary = {{ maintain = "Cruisers" }}
{strike}"#
    )
}

/// The records of [`read_gzf`], with TFP Lantern Wake destroyed.
fn read_wreck(p: &str) -> Result<SourceFile, String> {
    if p != "tessaly-carriers.gzf" {
        return read_gzf(p);
    }
    let text = std::fs::read_to_string(repo().join("ssd").join(p)).map_err(|e| e.to_string())?;
    let wake = text.find("Ship:             TFP Lantern Wake").expect("Lantern Wake");
    let at = wake + text[wake..].find("Thrust-Rating:").expect("its thrust");
    Ok(SourceFile::new(
        p,
        format!("{}Status:           Destroyed\n{}", &text[..at], &text[at..]),
    ))
}

/// Builds `scenario` and `orders` with the records of [`read_wreck`].
fn build_wreck(scenario: &str, orders: Vec<SourceFile>) -> Result<Loaded, Vec<Report>> {
    orders::build(
        SourceFile::new("scenario.toml", scenario),
        orders,
        &mut read_wreck,
        &ParseOptions::default(),
    )
}

/// A Formation whose ships are all out of the fight flies on its groups'
/// thrust, as the engine reckons its Formation Thrust: its Speed and
/// Evasion are checked Volley by Volley like a Formation of small craft
/// only (halved in the launch Volley, tables before a launch unused), not
/// against the Formation Thrust 0 of a Formation with nothing in the fight.
#[test]
fn a_formation_whose_ships_are_lost_is_plotted_on_its_groups_thrust() {
    let strike = r#"
[[plot.Strike.volley]]
speed = 4
evasion = 2
primary = { close = "Cruisers" }

[[plot.Strike.volley]]
speed = 8
evasion = 4
primary = { close = "Cruisers" }

[[plot.Strike.volley]]
speed = 10
evasion = 4
primary = { close = "Cruisers" }
"#;
    let refused = match build_wreck(&wreck_scenario(strike), Vec::new()) {
        Ok(_) => panic!("Volley 3 is 2 over the thrust"),
        Err(r) => lines(&r),
    };
    assert_eq!(refused.len(), 1, "{refused:#?}");
    assert!(
        refused[0].contains("Formation Thrust of `Strike` in Volley 3 is 12"),
        "{refused:#?}"
    );
    let scenario = wreck_scenario(&strike.replace("speed = 10", "speed = 8"));
    let l = build_wreck(&scenario, Vec::new()).unwrap_or_else(|r| panic!("{}", lines(&r).join("\n")));
    let p = l.plot.formations[1].as_ref().unwrap();
    assert_eq!((p.volleys[0].speed, p.volleys[0].evasion), (4, 2));
    // The automated commander's plot for the same battle, which plots
    // Strike on its groups' thrust, loads as orders without a word.
    let t = fam::engine::doctrine::doctrine_plot(&l.battle, &l.doctrine);
    assert!(t.formations[1].is_some(), "the doctrine plots Strike");
    let text = orders::write::plot_toml(&l.battle, &t, &[0, 1], Some(("Varrow", "scenario.toml")));
    let bare = scenario[..scenario.find("[[plot.").unwrap()].to_string();
    let again = build_wreck(&bare, vec![SourceFile::new("orders.toml", text)])
        .unwrap_or_else(|r| panic!("{}", lines(&r).join("\n")));
    assert!(again.warnings.is_empty(), "{}", lines(&again.warnings).join("\n"));
    assert_eq!(again.plot.formations[1], t.formations[1]);
}
