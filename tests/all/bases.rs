//! Bases as Units (readings O40): a GZF `Base:` fights at Thrust 0, one Unit
//! per sector, and its state goes back into its blocks.

use crate::support::{diagnostic_lines as lines, fam, repo, text};
use fam::diag::SourceFile;
use fam::gzf::{self, Item, ParseOptions};
use fam::orders::{self, Loaded, Report};

/// A sectored base: a core with its own hull and bridge, and two sectors,
/// one without `Mass:` (3 mass a hull box) and with layered armour.
const STATION: &str = "Profile: FB1

Ship: MCS Gate Runner
Thrust-Rating: 6
Mass: 30
Damage-Track: OOOO OOO OOO OO

System: FCS

System: Class 2 Battery
Firing-Arc: FP F FS

Base: Cinder Gate
Mass: 120
Cost: 400
Damage-Track: OOOOOO OOOOOO

System: Command Bridge

Base-Sector: 1
Mass: 60
Cost: 150
Armour: O O O O
Damage-Track: OOOOO OOOOO OOOOO OOOOO

System: FCS

System: Class 3 Battery
Firing-Arc: FP F FS AP A AS

System: PDS

Base-Sector: 2
Damage-Track: OOOO OOOO OOOO

System: FCS

System: Class 2 Battery
Firing-Arc: FP F FS AP A AS
";

fn read(p: &str) -> Result<SourceFile, String> {
    match p {
        "station.gzf" => Ok(SourceFile::new(p, STATION)),
        _ => std::fs::read_to_string(repo().join("ssd").join(p))
            .map(|t| SourceFile::new(p, t))
            .map_err(|e| e.to_string()),
    }
}

fn build(scenario: &str) -> Result<Loaded, Vec<Report>> {
    orders::build(
        SourceFile::new("scenario.toml", scenario),
        Vec::new(),
        &mut read,
        &ParseOptions::default(),
    )
}

fn scenario(gzf: &str, defenders: &str) -> String {
    format!(
        r#"gzf = [{gzf}, "vakar-raiders.gzf"]
[sides]
A = ["Hold"]
B = ["Raid"]
[formations]
Hold = [{defenders}]
Raid = ["VKR Quick Spite"]
"#
    )
}

#[test]
fn a_base_fights_as_one_unit_at_thrust_zero() {
    let l = build(&scenario("\"meridian-compact.gzf\"", "\"Waypoint Halcyon\"")).unwrap();
    let b = &l.battle;
    let fort = &b.units[0];
    let Item::Base(record) = &l.records[l.origins[0].record].file.items[l.origins[0].item] else {
        panic!("the fortress comes from its Base block");
    };
    assert_eq!(fort.name, "Waypoint Halcyon");
    assert_eq!((fort.thrust, fort.original_thrust), (0, 0));
    assert_eq!((fort.mass, fort.points), (245, 840));
    assert_eq!(fort.systems.len(), record.systems.len());
    assert_eq!(fort.hull_total, 74);
    assert_eq!(b.formation_thrust(0), 0, "a Formation with a base never moves");
    assert!(!fort.crippled(), "a base has no drive to lose: Thrust 0 is no cripple");
    assert!(fort.fire_controls().count() >= 4);
}

#[test]
fn a_sectored_base_is_one_unit_per_part() {
    let l = build(&scenario("\"station.gzf\"", "\"Cinder Gate\"")).unwrap();
    let names: Vec<&str> = l.battle.formations[0]
        .units
        .iter()
        .map(|&u| l.battle.units[u].name.as_str())
        .collect();
    assert_eq!(names, ["Cinder Gate", "Cinder Gate sector 1", "Cinder Gate sector 2"]);
    let parts: Vec<_> = (0..3).map(|u| &l.battle.units[u]).collect();
    assert_eq!(
        parts
            .iter()
            .map(|u| (u.mass, u.points, u.hull_total, u.armour_total, u.systems.len()))
            .collect::<Vec<_>>(),
        [(120, 400, 12, 0, 1), (60, 150, 20, 4, 3), (36, 61, 12, 0, 2)],
        "a sector without Mass: counts 3 a hull box"
    );
    // Sector 2 gives no Cost: it is priced by the construction rules: the
    // mass its boxes and systems state (12 boxes, no system Mass:), 3 points
    // a hull box on three rows (36), a Fire Control (4) and an all-round
    // Class 2 Battery (3 mass at 3: 9): 12 + 36 + 4 + 9 = 61.
    assert!(parts.iter().all(|u| u.thrust == 0));
    assert_eq!(
        l.origins.iter().take(3).map(|o| o.sector).collect::<Vec<_>>(),
        [None, Some(0), Some(1)]
    );
}

#[test]
fn a_base_parts_state_goes_back_into_its_blocks() {
    let mut l = build(&scenario("\"station.gzf\"", "\"Cinder Gate\"")).unwrap();
    let mut after = l.battle.clone();
    after.units[0].hull_lost = 5;
    after.units[1].hull_lost = 7;
    after.units[1].armour_lost = 3;
    after.units[1].systems[1].state = fam::engine::state::SysState::Destroyed;
    after.units[2].destroyed = true;
    l.write_back(&after);
    let written = gzf::write(&l.records[0].file);
    let back = gzf::parse(&written, &ParseOptions::default());
    assert!(!back.has_errors(), "{written}");
    let base = back
        .file
        .items
        .iter()
        .find_map(|i| match i {
            Item::Base(b) => Some(b),
            _ => None,
        })
        .unwrap();
    let crossed = |t: &[Vec<gzf::CheckBox>]| t.iter().flatten().filter(|b| b.crossed).count();
    assert_eq!(crossed(&base.damage_track), 5);
    assert_eq!(crossed(&base.sectors[0].damage_track), 7);
    assert_eq!(
        base.sectors[0].systems[1].status.damage,
        Some(gzf::DamageState::Destroyed)
    );
    assert_eq!(
        crossed(&base.sectors[1].damage_track),
        12,
        "a lost sector has every box crossed"
    );
    match &base.sectors[0].armour {
        Some(gzf::Armour::Boxes(b)) => assert_eq!(b.iter().filter(|x| x.crossed).count(), 3),
        other => panic!("armour {other:?}"),
    }
    // Loaded again, the parts start where they were left.
    let again = gzf::parse(&written, &ParseOptions::default());
    assert!(!again.has_errors());
}

#[test]
fn bases_that_cannot_fight_are_refused_at_their_name() {
    let bad = STATION
        .replace("Base-Sector: 2\nDamage-Track: OOOO OOOO OOOO\n", "Base-Sector: 2\n")
        .replace(
            "Base: Cinder Gate\nMass: 120\nCost: 400\nDamage-Track: OOOOOO OOOOOO\n",
            "Base: Cinder Gate\nMass: 120\n",
        );
    let mut read_bad = |p: &str| match p {
        "station.gzf" => Ok(SourceFile::new(p, bad.clone())),
        _ => read(p),
    };
    let r = orders::build(
        SourceFile::new("scenario.toml", scenario("\"station.gzf\"", "\"Cinder Gate\"")),
        Vec::new(),
        &mut read_bad,
        &ParseOptions::default(),
    )
    .unwrap_err();
    let errors: Vec<String> = lines(&r).into_iter().filter(|l| l.contains(": error: ")).collect();
    assert_eq!(
        errors,
        [
            "scenario.toml:6:9: error: base `Cinder Gate` has sectors and systems of its own but no `Damage-Track:` to hold them"
        ]
    );
}

/// The shipped base scenario resolves, the fortress fires and takes fire,
/// and the next turn's record carries its damage.
#[test]
fn the_anchorage_raid_resolves_and_writes_the_fortress_back() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("next");
    let run = fam(&[
        "resolve",
        "scenarios/anchorage-raid.toml",
        "--seed",
        "5",
        "--exchanges",
        "4",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let report = text(&run.stdout);
    assert!(
        report.contains("Anchorage: holds its position against Talon (Thrust 0: the enemy chooses the range); Speed 0, Evasion 0; fires at Talon"),
        "{report}"
    );
    let written = std::fs::read_to_string(out.join("meridian-compact.gzf")).unwrap();
    let parsed = gzf::parse(&written, &ParseOptions::default());
    assert!(!parsed.has_errors());
    let base = parsed
        .file
        .items
        .iter()
        .find_map(|i| match i {
            Item::Base(b) => Some(b),
            _ => None,
        })
        .unwrap();
    let lost = base.damage_track.iter().flatten().filter(|b| b.crossed).count()
        + match &base.armour {
            Some(gzf::Armour::Boxes(b)) => b.iter().filter(|x| x.crossed).count(),
            _ => 0,
        };
    assert!(lost > 0, "four Exchanges of raiders leave a mark on the fortress");
    // The fortress and its fighters are their side's only Units.
    let raiders = report
        .lines()
        .find(|l| l.trim_start().starts_with("Raiders:") && l.contains("mass"))
        .unwrap_or_else(|| panic!("no losses line in\n{report}"));
    assert!(!raiders.contains(": 0 of"), "the fortress fires: {raiders}");
}

/// The station with hangar bays: one (interceptors) in sector 1, two
/// (standard fighters) in sector 2, and a group block naming `who` as its
/// carrier.
fn carrier_station(who: &str) -> String {
    STATION
        .replace(
            "System: PDS\n",
            "System: PDS\n\nSystem: Hangar Bay\nFighter-Type: Interceptor\n",
        )
        .replace(
            "System: Class 2 Battery\nFiring-Arc: FP F FS AP A AS\n",
            "System: Class 2 Battery\nFiring-Arc: FP F FS AP A AS\n\nSystem: Hangar Bay\nFighter-Type: Standard\n\n\
             System: Hangar Bay\nFighter-Type: Standard\n",
        )
        + &format!("\nFighter-Group: Wasps\nCraft: O O O O O O\nStatus: Docked\nCarrier: {who}\n")
}

fn build_station(text: &str) -> Result<Loaded, Vec<Report>> {
    let text = text.to_string();
    let mut read = |p: &str| match p {
        "station.gzf" => Ok(SourceFile::new(p, text.clone())),
        _ => read(p),
    };
    orders::build(
        SourceFile::new("scenario.toml", scenario("\"station.gzf\"", "\"Cinder Gate\"")),
        Vec::new(),
        &mut read,
        &ParseOptions::default(),
    )
}

/// (name, carrier Unit name, bay system number, docked) of every group.
fn groups(l: &Loaded) -> Vec<(String, String, usize, bool)> {
    l.battle
        .units
        .iter()
        .filter_map(|u| {
            let c = u.craft?;
            let (cu, bay) = c.carrier?;
            Some((u.name.clone(), l.battle.units[cu].name.clone(), bay + 1, c.docked))
        })
        .collect()
}

/// A base's hangar bays are carriers (readings F50): a block naming a
/// sector sits in that sector's first free bay, the other bays bring their
/// implied groups, named after the part that holds them, all docked and
/// flying with the base's Formation; a block naming the base takes the
/// first free bay of its parts in Unit order.
#[test]
fn a_bases_hangar_bays_are_carriers() {
    let l = build_station(&carrier_station("Cinder Gate sector 2")).unwrap_or_else(|r| panic!("{:?}", lines(&r)));
    let g = |n: &str, c: &str, bay: usize| (n.to_string(), c.to_string(), bay, true);
    assert_eq!(
        groups(&l),
        [
            g("Wasps", "Cinder Gate sector 2", 3),
            g("Cinder Gate sector 1/4", "Cinder Gate sector 1", 4),
            g("Cinder Gate sector 2/4", "Cinder Gate sector 2", 4),
        ]
    );
    let hold = &l.battle.formations[0].units;
    assert_eq!(hold.len(), 6, "three parts and three groups in the base's Formation");

    let l = build_station(&carrier_station("Cinder Gate")).unwrap_or_else(|r| panic!("{:?}", lines(&r)));
    assert_eq!(
        groups(&l),
        [
            g("Wasps", "Cinder Gate sector 1", 4),
            g("Cinder Gate sector 2/3", "Cinder Gate sector 2", 3),
            g("Cinder Gate sector 2/4", "Cinder Gate sector 2", 4),
        ]
    );
}

/// A sector's bays hold as many groups as it has: a second block naming
/// sector 1 (one bay) is refused at its `Carrier:`.
#[test]
fn a_sector_holds_no_more_groups_than_its_bays() {
    let text = carrier_station("Cinder Gate sector 1")
        + "\nFighter-Group: Hornets\nCraft: O O O O O O\nStatus: Docked\nCarrier: Cinder Gate sector 1\n";
    let r = build_station(&text).expect_err("refused");
    let found = lines(&r);
    assert!(
        found.iter().any(|l| l.contains(
            "error: `Cinder Gate sector 1` has 1 hangar bay, and group `Hornets` is group 2 naming it as carrier"
        )),
        "{found:?}"
    );
}

/// A bay group that launched goes back as a block named after its bay and
/// naming the sector as carrier; read again, it sits in the same bay.
#[test]
fn a_base_bay_group_is_written_back_into_its_bay() {
    let mut l = build_station(&carrier_station("Cinder Gate sector 2")).unwrap();
    let mut after = l.battle.clone();
    let u = after
        .units
        .iter()
        .position(|u| u.name == "Cinder Gate sector 1/4")
        .unwrap();
    {
        let c = after.units[u].craft.as_mut().unwrap();
        c.docked = false;
        c.craft = 5;
    }
    l.write_back(&after);
    let written = gzf::write(&l.records[0].file);
    assert!(
        written.contains("Fighter-Group:    Cinder Gate sector 1/4")
            && written.contains("Carrier:          Cinder Gate sector 1\n"),
        "{written}"
    );
    let again = build_station(&written).unwrap_or_else(|r| panic!("{:?}", lines(&r)));
    let g = groups(&again);
    assert!(
        g.contains(&(
            "Cinder Gate sector 1/4".to_string(),
            "Cinder Gate sector 1".to_string(),
            4,
            false
        )),
        "{g:?}"
    );
    assert_eq!(g.len(), 3, "no second group in the bay: {g:?}");
}
