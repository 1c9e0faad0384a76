//! Kra'Vak ships beyond their guns (issue 16): the advanced main drive
//! FTJava writes as `MainDrive type="Advanced"`, carried in the GZF record
//! as `Drive-Type: Advanced` (docs/readings.md I25) and written back.

use fam::diag::SourceFile;
use fam::ftjava::{self, Options};
use fam::gzf::{self, ParseOptions};

use super::support::{fam, fixtures, text};

fn import(xml: &str) -> ftjava::Import {
    ftjava::import(&SourceFile::new("x.xml", xml), &Options::default())
}

fn export(gzf_text: &str) -> String {
    let parsed = gzf::parse(gzf_text, &ParseOptions::default());
    assert!(!parsed.has_errors(), "{gzf_text}");
    let request = ftjava::export::Request {
        text: gzf_text,
        file: &parsed.file,
        spans: &parsed.spans,
        ship: None,
        title: "kravak",
        skip_unmapped: false,
    };
    let exported = ftjava::export::export(&request);
    assert!(
        !exported.diagnostics.iter().any(|d| d.is_error()),
        "{:?}",
        exported.diagnostics
    );
    exported.xml
}

/// An advanced drive imports without `--skip-unmapped`, is written as
/// `Drive-Type: Advanced`, reads back the same, and exports as an advanced
/// `MainDrive` that imports to the same record again.
#[test]
fn advanced_drive_imports_writes_and_round_trips() {
    let path = fixtures("ftjava").join("kravak-striker.xml");
    let bytes = std::fs::read(&path).unwrap();
    let source = SourceFile::from_bytes(path.display().to_string(), &bytes);
    let imported = ftjava::import(&source, &Options::default());
    let errors: Vec<_> = imported.diagnostics.iter().filter(|d| d.is_error()).cloned().collect();
    assert!(errors.is_empty(), "{}", source.render(&errors, 20));
    let ship = imported.gzf.ship("Tir Striker").unwrap();
    assert!(ship.advanced_drive);
    assert_eq!((ship.thrust, ship.original_thrust), (6, 6));
    let written = gzf::write(&imported.gzf);
    assert!(
        written.contains("Drive-Type:") && written.contains("Advanced"),
        "{written}"
    );
    let parsed = gzf::parse(&written, &ParseOptions::default());
    assert!(!parsed.has_errors());
    assert_eq!(parsed.file, imported.gzf);
    let xml = export(&written);
    assert!(
        xml.contains("<MainDrive id=\"1\" type=\"Advanced\" initialThrust=\"6\""),
        "{xml}"
    );
    let back = import(&xml);
    assert_eq!(back.gzf, imported.gzf, "FTJava → GZF → FTJava → GZF");
}

/// A standard drive stays standard: no `Drive-Type:` line is written, and
/// the export says `type="Standard"`.
#[test]
fn standard_drive_writes_no_drive_type() {
    let imported = import(
        "<Ship><Name>X</Name><Mass>20</Mass><MainDrive type=\"Standard\" initialThrust=\"4\"/>\
         <Hull totalHullBoxes=\"6\" type=\"Custom\" value=\"20\"/></Ship>",
    );
    assert!(
        !imported.diagnostics.iter().any(|d| d.is_error()),
        "{:?}",
        imported.diagnostics
    );
    let ship = imported.gzf.ship("X").unwrap();
    assert!(!ship.advanced_drive);
    let written = gzf::write(&imported.gzf);
    assert!(!written.contains("Drive-Type"), "{written}");
    assert!(export(&written).contains("type=\"Standard\""));
}

/// A drive type fam does not know is still refused at its attribute.
#[test]
fn unknown_drive_type_is_refused() {
    let imported = import(
        "<Ship><Name>X</Name><Mass>20</Mass><MainDrive type=\"Warp\" initialThrust=\"4\"/>\
         <Hull totalHullBoxes=\"6\" type=\"Custom\" value=\"20\"/></Ship>",
    );
    assert!(
        imported
            .diagnostics
            .iter()
            .any(|d| d.is_error() && d.message.contains("main drive of type `Warp`")),
        "{:?}",
        imported.diagnostics
    );
}

/// In a GZF record, `Drive-Type:` takes `Standard` or `Advanced` only.
#[test]
fn drive_type_field_reads_its_two_words() {
    let record = |word: &str| {
        format!("Profile: FB1\n\nShip: Tir\nThrust-Rating: 6\nDrive-Type: {word}\nDamage-Track: OOO* OOO*\n")
    };
    let advanced = gzf::parse(&record("advanced"), &ParseOptions::default());
    assert!(!advanced.has_errors());
    assert!(advanced.file.ship("Tir").unwrap().advanced_drive);
    let standard = gzf::parse(&record("Standard"), &ParseOptions::default());
    assert!(!standard.has_errors());
    assert!(!standard.file.ship("Tir").unwrap().advanced_drive);
    assert!(gzf::parse(&record("Warp"), &ParseOptions::default()).has_errors());
}

// ---- the advanced drive in play ------------------------------------------------------

/// Two ships, one with an advanced drive (thrust 6), one without (thrust
/// 6), and a scenario placing them in Formations as `formation` says.
fn drive_check(formations: &str, plot: &str) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let gzf_path = dir.path().join("ships.gzf");
    std::fs::write(
        &gzf_path,
        "Profile: FB1\n\nShip: Tir\nThrust-Rating: 6\nDrive-Type: Advanced\nDamage-Track: OOO* OOO*\n\n\
         Ship: Kel\nThrust-Rating: 6\nDrive-Type: Advanced\nDamage-Track: OOO* OOO*\n\n\
         Ship: Plain\nThrust-Rating: 6\nDamage-Track: OOO* OOO*\n",
    )
    .unwrap();
    let path = dir.path().join("s.toml");
    std::fs::write(
        &path,
        format!(
            "gzf = [{:?}]\n[sides]\nA = [\"X\"]\nB = [\"Y\"]\n[formations]\n{formations}\n{plot}",
            gzf_path.display().to_string()
        ),
    )
    .unwrap();
    let out = fam(&["check", &path.display().to_string()]);
    (out.status.code(), text(&out.stderr))
}

/// fm-readings 7: a Formation whose every ship has an advanced drive may
/// put all its thrust into Evasion; one standard drive keeps the half.
#[test]
fn advanced_drives_lift_the_evasion_limit_only_when_every_ship_has_one() {
    let all_evasion = "[[plot.X.volley]]\nspeed = 0\nevasion = 6\n";
    let (code, stderr) = drive_check("X = [\"Tir\", \"Kel\"]\nY = [\"Plain\"]", all_evasion);
    assert_eq!(code, Some(0), "{stderr}");
    let (code, stderr) = drive_check("X = [\"Tir\", \"Plain\"]\nY = [\"Kel\"]", all_evasion);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("Evasion 6 is more than half the Formation Thrust of `X` (6, so at most 3)"),
        "{stderr}"
    );
}

/// FTJava `Scattergun`s import as the FB1 record's `Scattergun` (a fam
/// extension there, readings I26), with their status, and export back as
/// the same elements.
#[test]
fn scatterguns_import_write_and_export() {
    let path = fixtures("ftjava").join("vakar-warden.xml");
    let imported = import(&std::fs::read_to_string(&path).unwrap());
    assert!(
        !imported.diagnostics.iter().any(|d| d.is_error()),
        "{:?}",
        imported.diagnostics
    );
    let ship = imported.gzf.ship("Vakar Warden").unwrap();
    let scatterguns: Vec<_> = ship
        .systems
        .iter()
        .filter(|s| s.kind == gzf::SystemKind::Scattergun)
        .collect();
    assert_eq!(scatterguns.len(), 3);
    assert_eq!(
        scatterguns.iter().map(|s| s.status.operational()).collect::<Vec<_>>(),
        [true, true, false]
    );
    let written = gzf::write(&imported.gzf);
    let parsed = gzf::parse(&written, &ParseOptions::default());
    assert!(!parsed.has_errors(), "{written}");
    assert_eq!(parsed.file, imported.gzf);
    let xml = export(&written);
    assert_eq!(xml.matches("<Scattergun ").count(), 3, "{xml}");
    let again = import(&xml);
    assert_eq!(
        again
            .gzf
            .ship("Vakar Warden")
            .unwrap()
            .systems
            .iter()
            .filter(|s| s.kind == gzf::SystemKind::Scattergun)
            .count(),
        3
    );
}

/// An imported Kra'Vak ship fights in a batch under the default doctrine,
/// and its scatterguns are not idle: the doctrine keeps them ready in
/// point defence, so they fire at the salvo missiles of the Kestrel
/// missile cruisers in most runs.
#[test]
fn an_imported_kravak_escort_fights_and_its_scatterguns_fire() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ships");
    let xml = fixtures("ftjava").join("vakar-warden.xml");
    let r = fam(&[
        "import",
        "ftjava",
        "--out",
        out.to_str().unwrap(),
        xml.to_str().unwrap(),
    ]);
    assert_eq!(r.status.code(), Some(0), "{}", text(&r.stderr));
    // Point defence fires through every arc: no Firing-Arc warning.
    let check = fam(&["check", out.join("vakar-warden.gzf").to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));
    assert!(!text(&check.stderr).contains("Firing-Arc"), "{}", text(&check.stderr));
    let kestrel = super::support::repo().join("ssd").join("kestrel-reach.gzf");
    let scenario = dir.path().join("guard.toml");
    std::fs::write(
        &scenario,
        format!(
            "title = \"Warden against missiles\"\ngzf = [\"ships/vakar-warden.gzf\", {:?}]\nseed = 3\n\
             [sides]\nVakar = [\"Talon\"]\nKestrel = [\"Missiles\"]\n\
             [formations]\nTalon = [\"Vakar Warden\"]\nMissiles = [\"KRD Ninefold Gale\"]\n\
             [[range]]\nbetween = [\"Talon\", \"Missiles\"]\nmu = 24\n[victory]\nmax_exchanges = 6\n",
            kestrel.to_str().unwrap()
        ),
    )
    .unwrap();
    let r = fam(&["batch", scenario.to_str().unwrap(), "--runs", "200", "--format", "json"]);
    assert_eq!(r.status.code(), Some(0), "{}", text(&r.stderr));
    let json: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    let scatterguns: Vec<&serde_json::Value> = json["weapons"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["kind"] == "Scattergun" && w["unit"] == "Vakar Warden")
        .collect();
    // The destroyed third one is not followed.
    assert_eq!(scatterguns.len(), 2, "{}", json["weapons"]);
    let fired: Vec<f64> = scatterguns.iter().map(|w| w["fired_share"].as_f64().unwrap()).collect();
    assert!(fired.iter().all(|&f| f > 0.5), "working scatterguns fire: {fired:?}");
    let kinetic = json["sides"][0]["damage_by_kind"]["kinetic"].as_f64().unwrap();
    assert!(kinetic > 0.0, "the Warden's K-guns score");
}
