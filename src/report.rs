//! The report for people: what happened in an Exchange, Volley by Volley,
//! rendered from the engine's events. Plain text by default; Markdown for
//! forums and mail.

use std::fmt::Write as _;

use crate::engine::event::{
    Abandoned, Acquired, AftermathEvent, AntimatterHits, ArmourLayers, Arrived, BeamAttack, BeamEvent, BeamKind, Blast,
    BoardingTorpedoAttack, BridgeLost, BurnOut, ControlRegained, CoreBreached, CraftDiceEvent, CraftEngaged,
    CraftEvent, CraftIdle, CraftLaunched, CraftLost, CraftReady, CraftRecovered, CraftRoll, Damage, DamageEvent,
    Destroyed, DriveHit, EmpAttack, EmpTest, Entry, Event, FireControlIdle, FusionArrayAttack, GraserAttack,
    GraserEvent, GroupShot, KGunAttack, Launch, LifeSupportLost, ManeuverEvent, MissileEvent, MissileHits, MkpAttack,
    NeedleAttack, NovaArmed, NovaCannonAttack, OnTarget, Payload, PdAssigned, PdRoll, PlasmaBoltAttack, PlotCut, Pools,
    ProjectileEvent, PulserSet, RackExplodes, RangeChanged, ReactorRoll, Recorder, Reflex, ReflexRaised, Repair,
    RocketAttack, RocketEvent, RocketHits, SecondaryMove, SpecialEvent, Surrendered, SystemKilled, TargetingEvent,
    TemplateEvent, ThresholdCheck, ThresholdRoll, ToReserve, TorpedoAttack, VolleyStarted, WaveGunAttack,
    WaveGunBacklash, WaveGunCharge, WeaponIdle,
};
use crate::engine::plot::{Maneuver, SystemId, UnitId};
use crate::engine::state::{Battle, Control};
use crate::model::registry::Hit;

/// Output style of the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Style {
    #[default]
    Text,
    Markdown,
}

/// What the report says about the run besides the events.
#[derive(Debug, Clone)]
pub struct Header {
    pub title: String,
    pub seed: u64,
    pub exchange: u32,
}

/// Renders the report of one Exchange: `before` is the battle as it
/// started, `after` as it ended, `rec` what happened in between.
pub fn render(header: &Header, before: &Battle, after: &Battle, rec: &Recorder, style: Style) -> String {
    let mut r = Report::new(after, style);
    r.title(&format!("{} (Exchange {})", header.title, header.exchange));
    r.line(&format!("Seed {}", header.seed));
    r.caveats(before);
    r.heading("Formations");
    for formation in &before.formations {
        let units: Vec<_> = formation
            .units
            .iter()
            .map(|u| &before.units[*u])
            .map(|u| match u.craft {
                Some(c) if c.docked => format!("{} (docked)", u.name),
                _ => u.name.clone(),
            })
            .collect();
        r.item(&format!(
            "{} ({}): {}",
            formation.name,
            before.sides[formation.side].name,
            units.join(", ")
        ));
    }
    r.heading("Ranges at the start (MU)");
    r.ranges(before);
    for entry in &rec.entries {
        let Entry::Event(event) = entry else { continue };
        if WeaponIdle::of(event).is_none() {
            r.flush_idle();
        }
        if RangeChanged::of(event).is_none() {
            r.flush_unchanged();
        }
        r.event(event);
    }
    r.flush_idle();
    r.heading("End of the Exchange");
    r.line("Ranges (MU):");
    r.ranges(after);
    r.status(after);
    r.finish()
}

struct Report<'a> {
    out: String,
    style: Style,
    battle: &'a Battle,
    /// The section of the current Volley being written.
    section: &'static str,
    /// Consecutive idle weapons of one Unit with one reason, shown as one line.
    idle: Vec<(UnitId, SystemId, &'static str)>,
    /// Pairs whose range did not move, counted for one line.
    unchanged: u32,
}

fn maneuver_word(m: Maneuver) -> &'static str {
    match m {
        Maneuver::Close => "close",
        Maneuver::Maintain => "maintain",
        Maneuver::Withdraw => "withdraw",
    }
}

fn faces(f: &[u8]) -> String {
    let v: Vec<String> = f.iter().map(u8::to_string).collect();
    format!("[{}]", v.join(" "))
}

fn plural(n: u32, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

impl<'a> Report<'a> {
    fn new(battle: &'a Battle, style: Style) -> Report<'a> {
        Report {
            out: String::new(),
            style,
            battle,
            section: "",
            idle: Vec::new(),
            unchanged: 0,
        }
    }
}

impl Report<'_> {
    fn finish(self) -> String {
        // Trailing blanks off, runs of blank lines folded to one.
        let mut s = String::new();
        let mut blank = false;
        for line in self.out.lines().map(str::trim_end) {
            if line.is_empty() && (blank || s.is_empty()) {
                continue;
            }
            blank = line.is_empty();
            s.push_str(line);
            s.push('\n');
        }
        s
    }

    fn title(&mut self, t: &str) {
        match self.style {
            Style::Text => {
                let _ = writeln!(self.out, "{t}\n{}", "=".repeat(t.chars().count()));
            }
            Style::Markdown => {
                let _ = writeln!(self.out, "# {t}\n");
            }
        }
    }

    fn heading(&mut self, t: &str) {
        match self.style {
            Style::Text => {
                let _ = writeln!(self.out, "\n{t}\n{}", "-".repeat(t.chars().count()));
            }
            Style::Markdown => {
                let _ = writeln!(self.out, "\n## {t}\n");
            }
        }
    }

    fn subheading(&mut self, t: &str) {
        match self.style {
            Style::Text => {
                let _ = writeln!(self.out, "\n{t}:");
            }
            Style::Markdown => {
                let _ = writeln!(self.out, "\n### {t}\n");
            }
        }
    }

    fn flush_idle(&mut self) {
        if self.idle.is_empty() {
            return;
        }
        let (u, _, reason) = self.idle[0];
        let names: Vec<String> = self.idle.iter().map(|(u, w, _)| self.system(*u, Some(*w))).collect();
        let _ = u;
        self.detail(&format!("{}: {reason}", names.join(", ")));
        self.idle.clear();
    }

    fn flush_unchanged(&mut self) {
        if self.unchanged > 0 {
            let n = self.unchanged;
            self.unchanged = 0;
            self.item(&format!(
                "{} other {} unchanged",
                n,
                if n == 1 { "pair" } else { "pairs" }
            ));
        }
    }

    /// Opens a section of the current Volley unless it is already open.
    fn section(&mut self, name: &'static str) {
        if self.section != name {
            self.section = name;
            self.subheading(name);
        }
    }

    fn line(&mut self, t: &str) {
        let _ = writeln!(self.out, "{t}");
    }

    /// The switches set away from their defaults and the disputed
    /// readings this battle brings in (`caveats`), when there are any.
    fn caveats(&mut self, b: &Battle) {
        let switches = crate::caveats::switches(&b.rules);
        if !switches.is_empty() {
            self.line(&format!("Rules switched: {}.", switches.join("; ")));
        }
        let readings = crate::caveats::readings(b);
        if !readings.is_empty() {
            self.line("Readings this result may hinge on (docs/readings.md):");
            for r in &readings {
                self.item(r);
            }
        }
    }

    fn item(&mut self, t: &str) {
        let _ = writeln!(
            self.out,
            "{}{t}",
            if self.style == Style::Markdown { "- " } else { "  " }
        );
    }

    fn detail(&mut self, t: &str) {
        let _ = writeln!(
            self.out,
            "{}{t}",
            if self.style == Style::Markdown {
                "  - "
            } else {
                "      "
            }
        );
    }

    fn unit(&self, u: UnitId) -> &str {
        &self.battle.units[u].name
    }

    fn system(&self, u: UnitId, s: Option<SystemId>) -> String {
        match s {
            None => "main drive".to_string(),
            Some(crate::engine::volley::CRAFT_THREAT) => "attack run".to_string(),
            Some(crate::engine::volley::GUNBOAT_SALVO) => "boat's salvo".to_string(),
            Some(crate::engine::volley::GUNBOAT_PDS) => "boats' PDS".to_string(),
            Some(s) => {
                let unit = &self.battle.units[u];
                format!("{} #{}", unit.systems[s].kind.name(unit.profile), s + 1)
            }
        }
    }

    fn kind(&self, u: UnitId, s: SystemId) -> Option<&crate::model::SystemKind> {
        self.battle.units[u].systems.get(s).map(|s| &s.kind)
    }

    fn formation(&self, f: usize) -> &str {
        &self.battle.formations[f].name
    }

    fn table(&mut self, header: &[String], rows: &[Vec<String>]) {
        match self.style {
            Style::Markdown => {
                let _ = writeln!(self.out, "\n| {} |", header.join(" | "));
                let _ = writeln!(self.out, "|{}", "---|".repeat(header.len()));
                for row in rows {
                    let _ = writeln!(self.out, "| {} |", row.join(" | "));
                }
                let _ = writeln!(self.out);
            }
            Style::Text => {
                let widths: Vec<usize> = (0..header.len())
                    .map(|c| {
                        rows.iter()
                            .map(|r| r[c].chars().count())
                            .chain([header[c].chars().count()])
                            .max()
                            .unwrap_or(0)
                    })
                    .collect();
                let fmt_row = |row: &[String]| {
                    let cells: Vec<String> = row
                        .iter()
                        .zip(&widths)
                        .map(|(cell, w)| format!("{cell:<w$}", w = *w))
                        .collect();
                    format!("  {}", cells.join("  "))
                };
                let _ = writeln!(self.out, "{}", fmt_row(header));
                for row in rows {
                    let _ = writeln!(self.out, "{}", fmt_row(row));
                }
            }
        }
    }

    pub(crate) fn ranges(&mut self, battle: &Battle) {
        let n = battle.formations.len();
        let mut header = vec![String::new()];
        header.extend(battle.formations.iter().map(|f| f.name.clone()));
        let rows: Vec<Vec<String>> = (0..n)
            .map(|a| {
                let mut row = vec![battle.formations[a].name.clone()];
                row.extend((0..n).map(|b| {
                    if a == b {
                        "-".to_string()
                    } else {
                        battle.ranges.get(a, b).to_string()
                    }
                }));
                row
            })
            .collect();
        self.table(&header, &rows);
    }

    fn status(&mut self, battle: &Battle) {
        let header: Vec<String> = ["Unit", "Formation", "Hull", "Armour", "Thrust", "DC parties", "Status"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let rows: Vec<Vec<String>> = battle
            .units
            .iter()
            .filter(|u| !u.is_craft())
            .map(|u| {
                let state = if u.destroyed {
                    "destroyed".to_string()
                } else if u.surrendered {
                    "surrendered (struck its colours)".to_string()
                } else if battle.formations[u.formation].reserve == crate::engine::state::Reserve::InReserve {
                    "in the Reserve".to_string()
                } else if u.derelict {
                    "derelict (crew abandoned ship)".to_string()
                } else {
                    let mut words = vec![if u.crippled() {
                        "crippled"
                    } else if u.hull_lost > 0 {
                        "damaged"
                    } else {
                        "intact"
                    }];
                    match u.control {
                        Control::InControl => {}
                        Control::OutFor(_) => words.push("out of control"),
                        Control::Permanent => words.push("out of control for good"),
                    }
                    words.join(", ")
                };
                vec![
                    u.name.clone(),
                    battle.formations[u.formation].name.clone(),
                    format!("{}/{}", u.hull_left(), u.hull_total),
                    u.armour_text(),
                    format!("{}/{}", u.thrust, u.original_thrust),
                    u.damage_control_parties().to_string(),
                    state,
                ]
            })
            .collect();
        self.line("");
        self.line("Units:");
        self.table(&header, &rows);
        self.craft_status(battle);
    }

    /// Fighter groups and gunboat squadrons: craft, endurance, where.
    fn craft_status(&mut self, battle: &Battle) {
        use crate::engine::state::{CraftKind, GunboatKind, Rearm};
        let rows: Vec<Vec<String>> = battle
            .units
            .iter()
            .filter_map(|u| u.craft.map(|c| (u, c)))
            .map(|(u, c)| {
                let kind = match c.kind {
                    CraftKind::Fighter(t) => t.name(),
                    CraftKind::Gunboat(GunboatKind::Beam) => "Beam gunboats".to_string(),
                    CraftKind::Gunboat(GunboatKind::Torpedo) => "Torpedo gunboats".to_string(),
                    CraftKind::Gunboat(GunboatKind::Gatling) => "Gatling gunboats".to_string(),
                    CraftKind::Gunboat(GunboatKind::KGun) => "K-gun gunboats".to_string(),
                    CraftKind::Gunboat(GunboatKind::Rocket) if c.torpedoes_spent => {
                        "Rocket gunboats (rockets spent)".to_string()
                    }
                    CraftKind::Gunboat(GunboatKind::Rocket) => "Rocket gunboats".to_string(),
                    CraftKind::Gunboat(GunboatKind::Submunition) if c.torpedoes_spent => {
                        "Submunition gunboats (packs spent)".to_string()
                    }
                    CraftKind::Gunboat(GunboatKind::Submunition) => "Submunition gunboats".to_string(),
                    CraftKind::Gunboat(GunboatKind::Missile) if c.torpedoes_spent => {
                        "Missile gunboats (salvos spent)".to_string()
                    }
                    CraftKind::Gunboat(GunboatKind::Missile) => "Missile gunboats".to_string(),
                    CraftKind::Gunboat(GunboatKind::Pds) => "PDS gunboats".to_string(),
                };
                let state = if u.destroyed {
                    "destroyed".to_string()
                } else if c.docked {
                    match c.rearm {
                        Rearm::Ready => "docked, ready".to_string(),
                        Rearm::In(1) => "docked, re-arming (1 Volley)".to_string(),
                        Rearm::In(n) => format!("docked, re-arming ({n} Volleys)"),
                        Rearm::Never => "docked, cannot fly again".to_string(),
                    }
                } else if c.cef == 0 {
                    "in flight, exhausted".to_string()
                } else {
                    "in flight".to_string()
                };
                vec![
                    u.name.clone(),
                    battle.formations[u.formation].name.clone(),
                    kind,
                    format!("{}/{}", c.craft, c.boxes),
                    format!("{}/{}", c.cef, c.cef_max),
                    state,
                ]
            })
            .collect();
        if rows.is_empty() {
            return;
        }
        let header: Vec<String> = ["Group", "Formation", "Type", "Craft", "Endurance", "Status"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        self.line("");
        self.line("Small craft:");
        self.table(&header, &rows);
    }

    fn event(&mut self, event: &Event) {
        match event {
            Event::Maneuver(e) => self.maneuver_event(e),
            Event::Targeting(e) => self.targeting_event(e),
            Event::Beam(e) => self.beam_event(e),
            Event::Graser(e) => self.graser_event(e),
            Event::Special(e) => self.special_event(e),
            Event::Missile(e) => self.missile_event(e),
            Event::Rocket(e) => self.rocket_event(e),
            Event::Projectile(e) => self.projectile_event(e),
            Event::Template(e) => self.template_event(e),
            Event::Damage(e) => self.damage_event(e),
            Event::Aftermath(e) => self.aftermath_event(e),
            Event::Craft(e) => self.craft_event(e),
            Event::CraftDice(e) => self.craft_dice_event(e),
        }
    }

    /// The Maneuver step: pools, plot cuts, ranges, ships firing a nova cannon.
    fn maneuver_event(&mut self, event: &ManeuverEvent) {
        match event {
            ManeuverEvent::VolleyStarted(VolleyStarted { volley }) => {
                self.heading(&format!("Volley {volley}"));
                self.section = "";
            }
            ManeuverEvent::PlotCut(PlotCut {
                formation,
                thrust,
                speed,
                evasion,
            }) => {
                self.section("Maneuver");
                self.item(&format!(
                    "{}: thrust fell to {thrust}; plot cut to speed {speed}, evasion {evasion}",
                    self.formation(*formation)
                ))
            }
            ManeuverEvent::Pools(Pools {
                formation,
                thrust,
                speed_dice,
                speed_points,
                evasion_dice,
                evasion_points,
            }) => {
                self.section("Maneuver");
                self.item(&format!(
                    "{}: thrust {thrust}; speed {} {} = {}; evasion {} {} = {}",
                    self.formation(*formation),
                    speed_dice.len(),
                    faces(speed_dice),
                    plural(*speed_points, "point"),
                    evasion_dice.len(),
                    faces(evasion_dice),
                    plural(*evasion_points, "point"),
                ))
            }
            ManeuverEvent::RangeChanged(RangeChanged {
                a,
                b,
                start,
                a_move,
                b_move,
                after_close,
                after_withdraw,
                end,
            }) => {
                if start == after_close && start == after_withdraw && start == end {
                    self.unchanged += 1;
                    return;
                }
                self.section("Maneuver");
                let mv = |f: usize, m: &Option<(Maneuver, u32)>| match m {
                    Some((man, p)) => format!("{} {} {p} SP", self.formation(f), maneuver_word(*man)),
                    None => format!("{} no move", self.formation(f)),
                };
                self.item(&format!(
                    "{} and {}: {start} MU; close → {after_close}, withdraw → {after_withdraw}, maintain → {end} MU ({}, {})",
                    self.formation(*a),
                    self.formation(*b),
                    mv(*a, a_move),
                    mv(*b, b_move),
                ));
            }
            ManeuverEvent::NovaArmed(NovaArmed {
                unit,
                weapon,
                formation,
            }) => {
                self.section("Maneuver");
                self.item(&format!(
                    "{} fires its {} this Volley: no thrust ({} rolls no Speed or Evasion dice), screens down, no other fire",
                    self.unit(*unit),
                    self.system(*unit, Some(*weapon)),
                    self.formation(*formation)
                ));
            }
        }
    }

    /// Fire Controls: what each acquired, or why it stayed idle, and weapons that did not fire.
    fn targeting_event(&mut self, event: &TargetingEvent) {
        match event {
            TargetingEvent::Acquired(Acquired {
                unit,
                fire_control,
                formation,
                bands,
                roll,
                target,
            }) => {
                self.section("Fire");
                let mut lo = 1;
                let spread: Vec<String> = bands
                    .iter()
                    .map(|(u, hi)| {
                        let s = format!("{} {:02}-{:02}", self.unit(*u), lo, hi);
                        lo = hi + 1;
                        s
                    })
                    .collect();
                self.item(&format!(
                    "{} {} at {}: d100 {roll} → {} ({})",
                    self.unit(*unit),
                    self.system(*unit, Some(*fire_control)),
                    self.formation(*formation),
                    self.unit(*target),
                    spread.join(", "),
                ));
            }
            TargetingEvent::FireControlIdle(FireControlIdle {
                unit,
                fire_control,
                reason,
            }) => {
                self.section("Fire");
                self.item(&format!(
                    "{} {}: does not fire ({reason})",
                    self.unit(*unit),
                    self.system(*unit, Some(*fire_control))
                ));
            }
            TargetingEvent::WeaponIdle(WeaponIdle { unit, weapon, reason }) => {
                if self.idle.first().is_some_and(|(u, _, r)| u != unit || r != reason) {
                    self.flush_idle();
                }
                self.idle.push((*unit, *weapon, reason));
            }
            TargetingEvent::PulserSet(PulserSet {
                unit,
                weapon,
                setting,
                range,
            }) => {
                self.detail(&format!(
                    "{} set to {} range for the battle (first fired at {range} MU)",
                    self.system(*unit, Some(*weapon)),
                    setting.name().to_ascii_lowercase()
                ));
            }
        }
    }

    /// Beam batteries and plasma cannons: every die and what it scored.
    fn beam_event(&mut self, event: &BeamEvent) {
        match event {
            BeamEvent::BeamAttack(BeamAttack {
                kind,
                unit,
                weapon,
                target: _,
                range,
                dice,
                drm,
                screen,
                faces: f,
                reroll_faces,
                normal,
                penetrating,
            }) => {
                let mut s = format!(
                    "{} at {range} MU: {} {}, DRM {drm}, screen {screen} → {normal}",
                    self.system(*unit, Some(*weapon)),
                    if *dice == 1 {
                        "1 die".to_string()
                    } else {
                        format!("{dice} dice")
                    },
                    faces(f),
                );
                match kind {
                    BeamKind::Beam => {}
                    BeamKind::Plasma => {
                        let _ = write!(s, " (each die less {})", 2 + screen);
                    }
                }
                if !reroll_faces.is_empty() {
                    let _ = write!(s, "; rerolls {} → {penetrating} penetrating", faces(reroll_faces));
                }
                self.detail(&s);
            }
        }
    }

    /// Grasers, phasers and fusion arrays: every die and what it scored.
    fn graser_event(&mut self, event: &GraserEvent) {
        match event {
            GraserEvent::GraserAttack(GraserAttack {
                unit,
                weapon,
                target: _,
                range,
                dice,
                drm,
                screen,
                faces: f,
                reroll_faces,
                damage_faces: _,
                hits,
                reroll_hits,
            }) => {
                // 1d6 a hit for heavy and high-intensity grasers.
                let heavy = self
                    .kind(*unit, *weapon)
                    .and_then(|k| k.row().beam)
                    .is_some_and(|b| matches!(b.hit, Hit::HeavyGraser { .. }));
                let (die, kind) = if heavy {
                    ("1d6", "")
                } else {
                    ("1d3", " semi-armour-piercing")
                };
                let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
                let mut s = format!(
                    "{} at {range} MU: {} {}, DRM {drm}, screen {screen} → {} hit{}",
                    self.system(*unit, Some(*weapon)),
                    if *dice == 1 {
                        "1 die".to_string()
                    } else {
                        format!("{dice} dice")
                    },
                    faces(f),
                    hits.len(),
                    if hits.len() == 1 { "" } else { "s" },
                );
                if !hits.is_empty() {
                    let _ = write!(s, " of {die}: {}{kind}", list(hits));
                }
                if !reroll_faces.is_empty() {
                    let _ = write!(s, "; rerolls {} → {} hit", faces(reroll_faces), reroll_hits.len());
                    if reroll_hits.len() != 1 {
                        s.push('s');
                    }
                    if !reroll_hits.is_empty() {
                        let _ = write!(s, ": {} penetrating", list(reroll_hits));
                    }
                }
                self.detail(&s);
            }
            GraserEvent::FusionArrayAttack(FusionArrayAttack {
                unit,
                weapon,
                target: _,
                range,
                mode,
                needed,
                drm,
                face,
                hit,
                dice,
                screen,
                faces: f,
                reroll_faces,
                normal,
                penetrating,
            }) => {
                let mut s = format!(
                    "{} at {range} MU ({} mode): needs {needed}+ with DRM {drm}, rolled {face} → {}",
                    self.system(*unit, Some(*weapon)),
                    mode.name(),
                    if *hit { "hit" } else { "miss" }
                );
                if *hit {
                    let _ = write!(
                        s,
                        "; {dice} beam {} {}, advanced screen {screen} → {normal}",
                        if *dice == 1 { "die" } else { "dice" },
                        faces(f)
                    );
                }
                if !reroll_faces.is_empty() {
                    let _ = write!(s, "; rerolls {} → {penetrating} penetrating", faces(reroll_faces));
                }
                self.detail(&s);
            }
        }
    }

    /// EMP projectors and their tests, needle beams and the systems they kill, burn-outs, reflex fields.
    fn special_event(&mut self, event: &SpecialEvent) {
        match event {
            SpecialEvent::EmpAttack(EmpAttack {
                unit,
                weapon,
                target: _,
                range,
                dice,
                drm,
                screen,
                faces: f,
                reroll_faces,
                hits,
            }) => {
                let mut s = format!(
                    "{} at {range} MU: {} {}, DRM {drm}, advanced screen {screen}",
                    self.system(*unit, Some(*weapon)),
                    if *dice == 1 {
                        "1 die".to_string()
                    } else {
                        format!("{dice} dice")
                    },
                    faces(f),
                );
                if !reroll_faces.is_empty() {
                    let _ = write!(s, "; rerolls {}", faces(reroll_faces));
                }
                if *hits == 0 {
                    s.push_str(" → no EMP hit");
                } else {
                    let _ = write!(
                        s,
                        " → {} (no damage; threshold tests on {}+)",
                        plural(*hits, "EMP hit"),
                        crate::engine::volley::emp_needed(*hits)
                    );
                }
                self.detail(&s);
            }
            SpecialEvent::EmpTest(EmpTest {
                unit,
                weapon,
                target,
                system,
                face,
                modifier,
                needed,
                lost,
            }) => {
                if self.section != "Power cores" {
                    self.section("Thresholds");
                }
                let m = if *modifier == 0 {
                    String::new()
                } else {
                    format!(" ({modifier:+} for hull rows lost this Volley)")
                };
                self.item(&format!(
                    "{}: EMP test from {}'s {}: {} d6 {face}{m}, lost on {needed}+{}",
                    self.unit(*target),
                    self.unit(*unit),
                    self.system(*unit, Some(*weapon)),
                    self.system(*target, *system),
                    if *lost { " LOST" } else { "" }
                ));
            }
            SpecialEvent::NeedleAttack(NeedleAttack {
                unit,
                weapon,
                target,
                system,
                range,
                drm,
                faces: f,
                damage,
                kill,
            }) => self.detail(&format!(
                "{} at {}'s {} ({range} MU): {} DRM {drm} → {damage} damage{}",
                self.system(*unit, Some(*weapon)),
                self.unit(*target),
                self.system(*target, Some(*system)),
                faces(f),
                if *kill { ", system destroyed" } else { "" }
            )),
            SpecialEvent::SystemKilled(SystemKilled { unit, system }) => {
                self.section("Damage");
                self.item(&format!(
                    "{}: {} destroyed by a needle beam (cannot be repaired)",
                    self.unit(*unit),
                    self.system(*unit, Some(*system))
                ));
            }
            SpecialEvent::BurnOut(BurnOut { unit, weapon }) => self.detail(&format!(
                "{}: two or more ones — the battery burns out",
                self.system(*unit, Some(*weapon))
            )),
            SpecialEvent::ReflexRaised(ReflexRaised { unit }) => self.detail(&format!(
                "{} raises its reflex field (it does not fire)",
                self.unit(*unit)
            )),
            SpecialEvent::Reflex(Reflex {
                unit,
                firer,
                weapon,
                face,
                points,
                through,
                reflected,
            }) => self.detail(&format!(
                "{}'s reflex field against {}'s {} ({points}-point hit): rolled {face} → {}",
                self.unit(*unit),
                self.unit(*firer),
                self.system(*firer, Some(*weapon)),
                reflex_outcome(*face, *through, *reflected)
            )),
        }
    }

    /// Missiles: launches, what reaches its target, point defence, what got through.
    fn missile_event(&mut self, event: &MissileEvent) {
        match event {
            MissileEvent::Launch(Launch {
                unit,
                weapon,
                target,
                range,
                max_range,
                wasted,
            }) => {
                let tail = match wasted {
                    Some(why) => format!(" — {why}"),
                    None => String::new(),
                };
                self.detail(&format!(
                    "{} launches at {} ({range} MU, reach {max_range} MU){tail}",
                    self.system(*unit, Some(*weapon)),
                    self.unit(*target)
                ));
            }
            MissileEvent::OnTarget(OnTarget { unit, weapon, face }) => {
                self.section("Point defence");
                self.item(&format!(
                    "{}'s salvo from {}: d6 {face} missiles on target{}",
                    self.unit(*unit),
                    if *weapon == crate::engine::volley::GUNBOAT_SALVO {
                        "a boat".to_string()
                    } else {
                        self.system(*unit, Some(*weapon))
                    },
                    if *weapon == crate::engine::volley::GUNBOAT_SALVO && *face > 4 {
                        " (at most 4)"
                    } else {
                        ""
                    }
                ));
            }
            MissileEvent::PdAssigned(PdAssigned {
                unit,
                weapon,
                defends,
                threat,
                automatic,
            }) => {
                self.section("Point defence");
                self.item(&format!(
                    "{} {} defends {} against {}'s {}{}",
                    self.unit(*unit),
                    self.system(*unit, Some(*weapon)),
                    self.unit(*defends),
                    self.unit(threat.0),
                    self.system(threat.0, Some(threat.1)),
                    if *automatic { " (automatic)" } else { " (plotted)" }
                ));
            }
            MissileEvent::PdRoll(PdRoll {
                unit,
                weapon,
                threat,
                faces: f,
                reroll_faces,
                evasion_faces,
                kills,
            }) => {
                let mut s = format!(
                    "{} {} vs {}'s {}: {}",
                    self.unit(*unit),
                    self.system(*unit, Some(*weapon)),
                    self.unit(threat.0),
                    self.system(threat.0, Some(threat.1)),
                    faces(f)
                );
                if !reroll_faces.is_empty() {
                    let _ = write!(s, ", extra dice {}", faces(reroll_faces));
                }
                if !evasion_faces.is_empty() {
                    let _ = write!(s, ", evasion rerolls {}", faces(evasion_faces));
                }
                let _ = write!(s, " → {}", plural(*kills, "kill"));
                self.detail(&s);
            }
            MissileEvent::MissileHits(MissileHits {
                unit,
                weapon,
                target,
                on_target,
                killed,
                faces: f,
                hits,
            }) => {
                self.section("Missile attacks");
                let through = on_target.saturating_sub(*killed);
                let mut s = format!(
                    "{} {} at {}: {on_target} on target, {killed} shot down, {through} through",
                    self.unit(*unit),
                    self.system(*unit, Some(*weapon)),
                    self.unit(*target)
                );
                if !hits.is_empty() {
                    let v: Vec<String> = hits.iter().map(u32::to_string).collect();
                    let _ = write!(s, ": {} → hits of {} (semi-armour-piercing)", faces(f), v.join(", "));
                }
                self.item(&s);
            }
        }
    }

    /// Rockets, antimatter missiles and racks that explode.
    fn rocket_event(&mut self, event: &RocketEvent) {
        match event {
            RocketEvent::RocketAttack(RocketAttack {
                unit,
                weapon,
                target,
                range,
                needed,
                drm,
                faces: f,
                hits,
            }) => {
                let s = match needed {
                    Some(n) => format!(
                        "{} at {} ({range} MU, one shot): 2 rockets need {n}+ with DRM {drm}, rolled {} → {} (point defence may still shoot them down)",
                        self.system(*unit, Some(*weapon)),
                        self.unit(*target),
                        faces(f),
                        plural(*hits, "hit")
                    ),
                    None => format!(
                        "{} at {range} MU: beyond 18 MU, the pod is spent and lost",
                        self.system(*unit, Some(*weapon))
                    ),
                };
                self.detail(&s);
            }
            RocketEvent::RocketHits(RocketHits {
                unit,
                weapon,
                target,
                hit,
                killed,
                advanced,
                faces: f,
                damage,
            }) => {
                self.section("Missile attacks");
                let through = hit.saturating_sub(*killed);
                let mut s = format!(
                    "{} {} at {}: {} hit, {killed} shot down, {through} through",
                    self.unit(*unit),
                    self.system(*unit, Some(*weapon)),
                    self.unit(*target),
                    plural(*hit, "rocket")
                );
                if !damage.is_empty() {
                    let v: Vec<String> = damage.iter().map(u32::to_string).collect();
                    let _ = write!(
                        s,
                        ": d6 {} read as d3, less {advanced} (advanced screen) → hits of {} (semi-armour-piercing)",
                        faces(f),
                        v.join(", ")
                    );
                }
                self.item(&s);
            }
            RocketEvent::AntimatterHits(AntimatterHits {
                unit,
                weapon,
                target,
                killed,
                screen,
                faces: f,
                damage,
            }) => {
                self.section("Missile attacks");
                let left = crate::engine::tables::ANTIMATTER_DICE.saturating_sub(*killed);
                let s = if left == 0 {
                    format!(
                        "{} {} at {}: 3 point-defence hits neutralise it",
                        self.unit(*unit),
                        self.system(*unit, Some(*weapon)),
                        self.unit(*target)
                    )
                } else {
                    format!(
                        "{} {} at {}: {} by point defence, detonates with {left}d6 {}, each less {screen} (screen) → {damage}",
                        self.unit(*unit),
                        self.system(*unit, Some(*weapon)),
                        self.unit(*target),
                        plural(*killed, "hit"),
                        faces(f)
                    )
                };
                self.item(&s);
            }
            RocketEvent::RackExplodes(RackExplodes {
                unit,
                system,
                face,
                hull,
                destroyed,
            }) => self.detail(&format!(
                "{} explodes on the rack: d6 {face} → {hull} hull (screens and armour ignored){}",
                self.system(*unit, Some(*system)),
                if *destroyed { ", the ship is destroyed" } else { "" }
            )),
        }
    }

    /// Torpedoes, kinetic guns, MKPs, plasma bolts, boarding torpedoes.
    fn projectile_event(&mut self, event: &ProjectileEvent) {
        match event {
            ProjectileEvent::TorpedoAttack(TorpedoAttack {
                unit,
                weapon,
                target: _,
                range,
                needed,
                drm,
                face,
                hit,
                damage,
            }) => {
                let mut s = format!(
                    "{} at {range} MU: needs {needed}+ with DRM {drm}, rolled {face} → {}",
                    self.system(*unit, Some(*weapon)),
                    if *hit { "hit" } else { "miss" }
                );
                if let Some(d) = damage {
                    let _ = write!(s, ", 1d6 damage {d} (semi-armour-piercing, screens ignored)");
                }
                self.detail(&s);
            }
            ProjectileEvent::KGunAttack(attack) => self.k_gun_event(attack),
            ProjectileEvent::MkpAttack(attack) => self.mkp_event(attack),
            ProjectileEvent::PlasmaBoltAttack(PlasmaBoltAttack {
                unit,
                weapon,
                target,
                range,
                screen,
                drm,
                faces,
                damage,
            }) => {
                let faces: Vec<String> = faces.iter().map(u8::to_string).collect();
                self.detail(&format!(
                    "{} at {range} MU bursts on {}: rolled {}, each less {screen} (screen) and {} (Evasion) → {damage}",
                    self.system(*unit, Some(*weapon)),
                    self.unit(*target),
                    faces.join(", "),
                    -drm
                ));
            }
            ProjectileEvent::BoardingTorpedoAttack(BoardingTorpedoAttack {
                unit,
                weapon,
                target: _,
                range,
                needed,
                drm,
                face,
                hit,
            }) => {
                self.detail(&format!(
                    "{} at {range} MU: needs {needed}+ with DRM {drm}, rolled {face} → {}",
                    self.system(*unit, Some(*weapon)),
                    if *hit {
                        "hit: 1 hull point, armour bypassed (its 2 marines are not played)"
                    } else {
                        "miss"
                    }
                ));
            }
        }
    }

    /// A K-gun attack: its roll, and its doubling die on a hit.
    fn k_gun_event(&mut self, attack: &KGunAttack) {
        let KGunAttack {
            unit,
            weapon,
            target: _,
            range,
            needed,
            drm,
            face,
            hit,
            doubling,
            damage,
        } = attack;
        let mut s = format!(
            "{} at {range} MU: needs {needed}+ with DRM {drm}, rolled {face} → {}",
            self.system(*unit, Some(*weapon)),
            if *hit { "hit" } else { "miss" }
        );
        if let Some(d) = doubling {
            let doubled = if *damage > 0 && u32::from(*d) <= *damage / 2 && *d < 6 {
                "doubled"
            } else {
                "not doubled"
            };
            let _ = write!(
                s,
                ", doubling die {d} ({doubled}): {damage} armour-piercing (screens ignored)"
            );
        }
        self.detail(&s);
    }

    /// A one-shot MKP pack: its roll and hits, or the pack lost beyond 12 MU.
    fn mkp_event(&mut self, attack: &MkpAttack) {
        let MkpAttack {
            unit,
            weapon,
            target: _,
            range,
            drm,
            face,
            hits,
        } = attack;
        let s = match face {
            Some(f) => format!(
                "{} at {range} MU (one shot): needs 4+ with DRM {drm}, rolled {f} → {}",
                self.system(*unit, Some(*weapon)),
                match hits {
                    0 => "miss".to_string(),
                    1 => "1 hit of 4 armour-piercing".to_string(),
                    n => format!("{n} hits of 4 armour-piercing (natural 6)"),
                }
            ),
            None => format!(
                "{} at {range} MU: beyond 12 MU, the pack is spent and lost",
                self.system(*unit, Some(*weapon))
            ),
        };
        self.detail(&s);
    }

    /// Wave guns and nova cannons.
    fn template_event(&mut self, event: &TemplateEvent) {
        match event {
            TemplateEvent::WaveGunCharge(WaveGunCharge {
                unit,
                weapon,
                face,
                charge,
            }) => {
                self.detail(&format!(
                    "{} charges: rolled {face}, charge {charge}{}",
                    self.system(*unit, Some(*weapon)),
                    if *charge >= 6 { " (charged)" } else { "" }
                ));
            }
            TemplateEvent::WaveGunAttack(WaveGunAttack {
                unit,
                weapon,
                target,
                range,
                screen,
                drm,
                faces,
                damage,
            }) => {
                let faces: Vec<String> = faces.iter().map(u8::to_string).collect();
                self.detail(&format!(
                    "{} at {range} MU fires on {}: rolled {}, each less {screen} (advanced screen) and {} (Evasion) → {damage} to the hull",
                    self.system(*unit, Some(*weapon)),
                    self.unit(*target),
                    faces.join(", "),
                    -drm
                ));
            }
            TemplateEvent::WaveGunBacklash(WaveGunBacklash {
                unit,
                weapon,
                charge,
                hull,
                destroyed: _,
            }) => {
                self.detail(&format!(
                    "{} knocked out holding a charge of {charge}: {hull} damage to its own hull",
                    self.system(*unit, Some(*weapon))
                ));
            }
            TemplateEvent::NovaCannonAttack(NovaCannonAttack {
                unit,
                weapon,
                target,
                range,
                drm,
                faces,
                damage,
            }) => {
                let faces: Vec<String> = faces.iter().map(u8::to_string).collect();
                self.detail(&format!(
                    "{} at {range} MU: the blast reaches {}: rolled {}, each less {} (Evasion) → {damage} to the hull",
                    self.system(*unit, Some(*weapon)),
                    self.unit(*target),
                    faces.join(", "),
                    -drm
                ));
            }
        }
    }

    /// The Damage step: armour and hull, layers, thresholds and what they take.
    fn damage_event(&mut self, event: &DamageEvent) {
        match event {
            DamageEvent::Damage(Damage {
                unit,
                normal,
                sap,
                ap,
                penetrating,
                armour,
                hull,
                rows_completed,
                crew_lost,
                destroyed,
            }) => {
                if self.section != "Power cores" {
                    self.section("Damage");
                }
                let sap_text = if sap.is_empty() {
                    String::new()
                } else {
                    let v: Vec<String> = sap.iter().map(u32::to_string).collect();
                    format!(" + semi-armour-piercing hits {}", v.join(", "))
                };
                let ap_text = if ap.is_empty() {
                    String::new()
                } else {
                    let v: Vec<String> = ap.iter().map(u32::to_string).collect();
                    format!(" + armour-piercing hits {}", v.join(", "))
                };
                let mut s = format!(
                    "{}: {normal} normal{sap_text}{ap_text} + {penetrating} penetrating → {armour} armour, {hull} hull",
                    self.unit(*unit)
                );
                if *rows_completed > 0 {
                    let _ = write!(s, ", {} completed", plural(*rows_completed, "row"));
                }
                if *crew_lost > 0 {
                    let _ = write!(s, ", {} lost", plural(*crew_lost, "crew factor"));
                }
                if *destroyed {
                    s.push_str(", DESTROYED");
                }
                self.item(&s);
            }
            DamageEvent::ArmourLayers(ArmourLayers { unit, taken }) => {
                let v: Vec<String> = taken.iter().map(u32::to_string).collect();
                let s = format!(
                    "{}: armour by layer, outermost first: {}",
                    self.unit(*unit),
                    v.join(" / ")
                );
                self.item(&s);
            }
            DamageEvent::ThresholdCheck(ThresholdCheck {
                unit,
                row,
                extra_rows,
                needed,
            }) => {
                if self.section != "Power cores" {
                    self.section("Thresholds");
                }
                let extra = if *extra_rows > 0 {
                    format!(", +{extra_rows} per die for extra rows")
                } else {
                    String::new()
                };
                self.item(&format!(
                    "{}: row {row} complete, systems lost on {needed}+{extra}",
                    self.unit(*unit)
                ));
            }
            DamageEvent::ThresholdRoll(ThresholdRoll {
                unit,
                system,
                face,
                modifier,
                lost,
            }) => {
                let m = if *modifier == 0 {
                    String::new()
                } else {
                    format!(" ({modifier:+})")
                };
                self.detail(&format!(
                    "{}: {face}{m}{}",
                    self.system(*unit, *system),
                    if *lost { " LOST" } else { "" }
                ));
            }
            DamageEvent::DriveHit(DriveHit { unit, thrust }) => {
                self.detail(&format!("{}: drive hit, thrust now {thrust}", self.unit(*unit)));
            }
            DamageEvent::BridgeLost(BridgeLost { unit, face, volleys }) => self.detail(&format!(
                "{}: bridge lost, d6 {face}: out of control {}",
                self.unit(*unit),
                volleys.map_or("permanently".to_string(), |n| format!(
                    "for {}",
                    plural(u32::from(n), "Volley")
                ))
            )),
            DamageEvent::LifeSupportLost(LifeSupportLost { unit, face }) => self.detail(&format!(
                "{}: life support lost, d6 {face}: it fails in {}",
                self.unit(*unit),
                plural(u32::from(*face), "Volley")
            )),
            DamageEvent::CoreBreached(CoreBreached { unit }) => {
                self.detail(&format!("{}: power core breached", self.unit(*unit)));
            }
        }
    }

    /// After the damage: repairs, power cores, control, surrender, the Reserve, losses.
    fn aftermath_event(&mut self, event: &AftermathEvent) {
        match event {
            AftermathEvent::Repair(Repair {
                unit,
                system,
                parties,
                face,
                repaired,
            }) => {
                self.section("Damage control");
                self.item(&format!(
                    "{}: {} on {}: d6 {face} (needs {parties} or less) → {}",
                    self.unit(*unit),
                    if *parties == 1 {
                        "1 party".to_string()
                    } else {
                        format!("{parties} parties")
                    },
                    self.system(*unit, *system),
                    if *repaired { "repaired" } else { "not repaired" }
                ));
            }
            AftermathEvent::ReactorRoll(ReactorRoll { unit, face, exploded }) => {
                self.section("Power cores");
                self.item(&format!(
                    "{}: breached core d6 {face} → {}",
                    self.unit(*unit),
                    if *exploded { "EXPLODES" } else { "holds" }
                ));
            }
            AftermathEvent::Blast(Blast {
                source,
                unit,
                faces: f,
                damage,
            }) => self.item(&format!(
                "blast of {} hits {}: {} = {damage} (semi-armour-piercing)",
                self.unit(*source),
                self.unit(*unit),
                faces(f)
            )),
            AftermathEvent::ControlRegained(ControlRegained { unit }) => {
                self.item(&format!("{}: back under control", self.unit(*unit)))
            }
            AftermathEvent::Surrendered(Surrendered { unit, face }) => self.detail(&format!(
                "{}: colours roll {face} — the ship STRIKES ITS COLOURS",
                self.unit(*unit)
            )),
            AftermathEvent::ToReserve(ToReserve { formation }) => {
                self.heading("Reserves");
                self.item(&format!(
                    "{} is 65 MU or more from every enemy Formation: it withdraws to the Reserve",
                    self.formation(*formation)
                ));
            }
            AftermathEvent::Arrived(Arrived { formation }) => {
                self.heading("Reserves");
                self.item(&format!(
                    "{} arrives from the Reserve, 60 MU from every enemy Formation",
                    self.formation(*formation)
                ));
            }
            AftermathEvent::Abandoned(Abandoned { unit }) => self.item(&format!(
                "{}: life support failed; the crew abandons ship",
                self.unit(*unit)
            )),
            // The Damage step already said so of a hull destroyed.
            AftermathEvent::Destroyed(Destroyed { unit, cause }) => {
                if *cause != "hull destroyed" {
                    self.item(&format!("{} is destroyed ({cause})", self.unit(*unit)));
                }
            }
        }
    }

    /// Fighter groups and gunboat squadrons: launches, recoveries, moves and engagements.
    fn craft_event(&mut self, event: &CraftEvent) {
        match event {
            CraftEvent::CraftLaunched(CraftLaunched { group, carrier }) => {
                self.section("Launch");
                self.item(&format!("{} launches from {}", self.unit(*group), self.unit(*carrier)));
            }
            CraftEvent::CraftRecovered(CraftRecovered {
                group,
                carrier,
                face,
                ready_in,
            }) => {
                self.section("Launch");
                let ready = match ready_in {
                    Some(1) => "ready next Volley".to_string(),
                    Some(n) => format!("ready in {n} Volleys"),
                    None => "cannot fly again this battle".to_string(),
                };
                self.item(&format!(
                    "{} lands on {}: re-arming die {face}, {ready}",
                    self.unit(*group),
                    self.unit(*carrier)
                ));
            }
            CraftEvent::CraftReady(CraftReady { group }) => {
                self.section("Launch");
                self.item(&format!("{} has re-armed", self.unit(*group)));
            }
            CraftEvent::CraftIdle(CraftIdle { group, reason }) => {
                if self.section != "Launch" {
                    self.section("Engagement");
                }
                self.item(&format!("{}: {reason}", self.unit(*group)));
            }
            CraftEvent::SecondaryMove(SecondaryMove {
                formation,
                target,
                maneuver,
                start,
                end,
            }) => {
                self.section("Maneuver");
                let how = match maneuver {
                    Maneuver::Close => "closes on",
                    Maneuver::Withdraw => "withdraws from",
                    Maneuver::Maintain => "holds against",
                };
                self.item(&format!(
                    "{} (secondary maneuver) {how} {}: {start} → {end} MU",
                    self.formation(*formation),
                    self.formation(*target)
                ));
            }
            CraftEvent::CraftEngaged(CraftEngaged {
                group,
                target,
                action,
                cef_left,
            }) => {
                self.section("Engagement");
                let at = target.map_or_else(|| "its Formation".to_string(), |t| self.unit(t).to_string());
                self.item(&format!(
                    "{}: {action} at {at} (endurance left {cef_left})",
                    self.unit(*group)
                ));
            }
        }
    }

    /// Small craft's dice: attack runs, dogfights, ships' shots at groups, and losses.
    fn craft_dice_event(&mut self, event: &CraftDiceEvent) {
        match event {
            CraftDiceEvent::CraftRoll(CraftRoll {
                group,
                target,
                action,
                dice,
                drm,
                faces: f,
                reroll_faces,
                evasion_faces,
                kills,
                normal,
                penetrating,
                sap,
                k_gun,
            }) => {
                self.section("Small-craft attacks");
                let at = target.map_or_else(String::new, |t| format!(" at {}", self.unit(t)));
                let mut line = format!("{} {action}{at}: {dice} dice", self.unit(*group));
                if *drm != 0 {
                    let _ = write!(line, " (DRM {drm:+})");
                }
                let _ = write!(line, " {}", faces(f));
                if !reroll_faces.is_empty() {
                    let _ = write!(line, ", extra dice {}", faces(reroll_faces));
                }
                if !evasion_faces.is_empty() {
                    let _ = write!(line, ", evasion rerolls {}", faces(evasion_faces));
                }
                match *action {
                    "attack run" | "gunboat attack" | "submunition attack" => {
                        let _ = write!(line, " → {normal} damage, {penetrating} penetrating");
                    }
                    "torpedo run" | "torpedo attack" => {
                        let hits: Vec<String> = sap.iter().map(u32::to_string).collect();
                        let _ = write!(
                            line,
                            " → hits {}",
                            if hits.is_empty() {
                                "none".into()
                            } else {
                                hits.join(", ")
                            }
                        );
                    }
                    "k-gun attack" => {
                        let hits: Vec<String> = k_gun.iter().map(|(d, p)| format!("{p} (doubling die {d})")).collect();
                        let _ = write!(
                            line,
                            " → armour-piercing hits {}",
                            if hits.is_empty() {
                                "none".into()
                            } else {
                                hits.join(", ")
                            }
                        );
                    }
                    "rocket attack" => {
                        let hits: Vec<String> = k_gun.iter().map(|(d, p)| format!("{p} (d6 {d} as 1d3)")).collect();
                        let _ = write!(
                            line,
                            " → rockets hit {}: semi-armour-piercing {}",
                            k_gun.len(),
                            if hits.is_empty() {
                                "none".into()
                            } else {
                                hits.join(", ")
                            }
                        );
                    }
                    _ => {
                        let _ = write!(line, " → {kills} killed");
                    }
                }
                self.item(&line);
            }
            CraftDiceEvent::GroupShot(GroupShot {
                unit,
                weapon,
                group,
                drm,
                faces: f,
                kills,
            }) => {
                self.section("Fire");
                let mut line = format!(
                    "{} {} at {}",
                    self.unit(*unit),
                    self.system(*unit, Some(*weapon)),
                    self.unit(*group)
                );
                if *drm != 0 {
                    let _ = write!(line, " (DRM {drm:+})");
                }
                let _ = write!(line, ": {} → {kills} killed", faces(f));
                self.item(&line);
            }
            CraftDiceEvent::CraftLost(CraftLost {
                group,
                lost,
                left,
                cause,
            }) => {
                self.item(&format!(
                    "{} loses {lost} craft to {cause}, {left} left",
                    self.unit(*group)
                ));
            }
        }
    }
}

/// A short account of one Exchange in a multi-Exchange report: the ranges
/// after it and what changed for each Unit.
pub fn summary(
    header: &Header,
    before: &Battle,
    after: &Battle,
    plots: &[crate::engine::doctrine::PlotSource],
    choices: &[Option<crate::engine::doctrine::Choice>],
    style: Style,
) -> String {
    let mut r = Report::new(after, style);
    r.heading(&format!(
        "Exchange {} (seed {}){}",
        header.exchange,
        header.seed,
        if plots.iter().any(|p| p.generated()) {
            ", plots generated"
        } else {
            ""
        }
    ));
    let sources = plot_sources(before, plots);
    if !sources.is_empty() {
        r.line(&sources);
        for line in doctrine_lines(before, choices) {
            r.item(&line);
        }
        r.line("");
    }
    let mut lines = Vec::new();
    for (b, a) in before.units.iter().zip(&after.units) {
        if !b.active() {
            continue;
        }
        let mut what = Vec::new();
        if a.destroyed {
            what.push("destroyed".to_string());
        } else if a.surrendered {
            what.push("struck its colours".to_string());
        } else if a.derelict {
            what.push("abandoned".to_string());
        } else {
            let hull = a.hull_lost - b.hull_lost;
            let armour = a.armour_lost - b.armour_lost;
            if hull + armour > 0 {
                what.push(format!("{hull} hull and {armour} armour lost"));
            }
            if a.crippled() && !b.crippled() {
                what.push("crippled".to_string());
            }
            if a.thrust != b.thrust {
                what.push(format!("thrust {} → {}", b.thrust, a.thrust));
            }
        }
        if !what.is_empty() {
            lines.push(format!("{}: {}", a.name, what.join(", ")));
        }
    }
    if lines.is_empty() {
        r.item("no damage");
    }
    for l in &lines {
        r.item(l);
    }
    r.line("");
    r.line("Ranges (MU):");
    r.ranges(after);
    r.finish()
}

/// Where the plots of an Exchange came from, for the Formations in the
/// fight at its start: `Plots: explicit (A, B); standing orders (C);
/// default doctrine (D)`. Empty when there is no such Formation.
pub fn plot_sources(before: &Battle, plots: &[crate::engine::doctrine::PlotSource]) -> String {
    use crate::engine::doctrine::PlotSource;
    let groups: Vec<String> = [
        PlotSource::Explicit,
        PlotSource::StandingOrders,
        PlotSource::DefaultDoctrine,
        PlotSource::NoPlot,
    ]
    .iter()
    .filter_map(|&source| {
        let names: Vec<&str> = (0..before.formations.len())
            .filter(|&f| before.formation_active(f) && plots.get(f).copied().unwrap_or(PlotSource::NoPlot) == source)
            .map(|f| before.formations[f].name.as_str())
            .collect();
        (!names.is_empty()).then(|| format!("{} ({})", source.describe(), names.join(", ")))
    })
    .collect();
    if groups.is_empty() {
        String::new()
    } else {
        format!("Plots: {}", groups.join("; "))
    }
}

/// [`plot_sources`] followed by what each generated plot chose
/// ([`doctrine_lines`]), one line each.
pub fn plot_account(
    before: &Battle,
    plots: &[crate::engine::doctrine::PlotSource],
    choices: &[Option<crate::engine::doctrine::Choice>],
) -> String {
    let mut out = plot_sources(before, plots);
    for line in doctrine_lines(before, choices) {
        out.push_str("\n  ");
        out.push_str(&line);
    }
    out
}

/// Volleys as words: "Volley 2", "Volleys 1-2", "Volleys 1 and 3", or
/// "every Volley".
fn volleys_text(on: [bool; 3]) -> String {
    let list: Vec<usize> = (0..3).filter(|&v| on[v]).map(|v| v + 1).collect();
    match list.as_slice() {
        [] => String::new(),
        [one] => format!("Volley {one}"),
        [1, 2, 3] => "every Volley".to_string(),
        [a, b] if b - a == 1 => format!("Volleys {a}-{b}"),
        [a, b] => format!("Volleys {a} and {b}"),
        _ => String::new(),
    }
}

/// What each Formation with a generated plot chose and why, in a few
/// words (docs/doctrine.md): `Pickets: closes on Gale, seeking 24 MU where
/// it outguns it (3.1 against 1.2 damage a Volley); Speed 4, Evasion 2;
/// missiles in Volley 2; class-1 beams on point defence in every Volley`.
pub fn doctrine_lines(before: &Battle, choices: &[Option<crate::engine::doctrine::Choice>]) -> Vec<String> {
    choices
        .iter()
        .enumerate()
        .filter_map(|(f, c)| c.as_ref().map(|c| (f, c)))
        .filter(|(f, _)| before.formation_active(*f))
        .map(|(f, c)| format!("{}: {}.", before.formations[f].name, choice_text(before, c, f)))
        .collect()
}

fn choice_text(b: &Battle, c: &crate::engine::doctrine::Choice, f: usize) -> String {
    let name = |f: usize| b.formations[f].name.clone();
    let mut parts = vec![maneuver_text(b, c, f)];
    parts.push(format!("Speed {}, Evasion {}", c.speed, c.evasion));
    if let Some(t) = c.fire_at {
        let mut fire = format!("fires at {}", name(t));
        if let Some(s) = c.second {
            fire.push_str(&format!(
                ", with second Fire Controls at {} for what cannot reach it",
                name(s)
            ));
        }
        parts.push(fire);
    }
    parts.extend(weapon_use_texts(b, c, f));
    parts.join("; ")
}

/// What a generated plot does with its thrust: withdraws, holds, or closes,
/// keeps or opens the range to its target, with the plan behind it.
fn maneuver_text(b: &Battle, c: &crate::engine::doctrine::Choice, f: usize) -> String {
    use crate::engine::doctrine::Withdrawal;
    let name = |f: usize| b.formations[f].name.clone();
    match (c.withdrawing, c.target) {
        (Some(why), _) => format!(
            "withdraws from every enemy ({}), all thrust to Speed",
            match why {
                Withdrawal::Trigger => "its withdraw_when trigger fired".to_string(),
                Withdrawal::CannotFight => "it can no longer do damage at any range".to_string(),
                Withdrawal::Escape(u) => format!(
                    "it runs for the Reserve: {} reaching it wins the battle for its side",
                    b.units[u].name
                ),
            }
        ),
        // A base (or a Formation left without thrust) cannot maneuver: the
        // enemy chooses the range (readings O40).
        (None, Some(t)) if b.formation_thrust(f) == 0 => format!(
            "holds its position against {} (Thrust 0: the enemy chooses the range)",
            name(t)
        ),
        (None, Some(t)) => {
            let word = |m: Maneuver| match m {
                Maneuver::Close => "closes on",
                Maintain => "keeps its range to",
                Maneuver::Withdraw => "opens the range from",
            };
            use Maneuver::Maintain;
            let m = c.maneuvers;
            let goal = if c.objective { " (its side's objective)" } else { "" };
            let mut move_text = if m[0] == m[1] && m[1] == m[2] {
                format!("{} {}{goal}", word(m[0]), name(t))
            } else {
                let last = (1..3).find(|&v| m[v] != m[0]).unwrap_or(2);
                format!(
                    "{} {}{goal} in {}, then {}",
                    word(m[0]),
                    name(t),
                    volleys_text([true, last > 1, false]),
                    word(m[last]).replace(" to", "").replace(" from", "").replace(" on", "")
                )
            };
            if let Some(p) = c.plan {
                move_text.push_str(&plan_text(&p));
            }
            move_text
        }
        (None, None) => "no enemy to maneuver against".to_string(),
    }
}

/// Why a generated plot seeks the range it seeks, and the ranges expected.
fn plan_text(p: &crate::engine::doctrine::plan::Plan) -> String {
    use crate::engine::doctrine::plan::Stance;
    let (ours, theirs) = p.ordnance_at_seek;
    let ordnance = if ours > 0.0 || theirs > 0.0 {
        format!(", and {ours:.1} against {theirs:.1} of ordnance")
    } else {
        String::new()
    };
    let allies = if p.with_allies {
        " with the allied Formations that face it too"
    } else {
        ""
    };
    let why = match p.stance {
        Stance::Outgun => format!(
            "where it outguns it{allies} ({:.1} against {:.1} damage a Volley{ordnance})",
            p.at_seek.0, p.at_seek.1
        ),
        Stance::LeastBad => format!(
            "where it is outgunned least{allies} ({:.1} against {:.1} damage a Volley{ordnance})",
            p.at_seek.0, p.at_seek.1
        ),
        Stance::Avoid => "out of its reach: it is outgunned more than tenfold at every range".to_string(),
        Stance::NoFight => "though neither can reach the other".to_string(),
    };
    format!(
        ", seeking {} MU {why}; expected range {:.0}, {:.0}, {:.0} MU",
        p.seek, p.range[0], p.range[1], p.range[2]
    )
}

/// The plot's weapon uses beyond its main fire: missiles, submunitions,
/// point defence, PDS modes, reflex fields, nova cannons and needle beams.
fn weapon_use_texts(b: &Battle, c: &crate::engine::doctrine::Choice, f: usize) -> Vec<String> {
    let mut parts = Vec::new();
    let l = &c.launches;
    let missiles = [0, 1, 2].map(|v| l.salvos[v].iter().any(|&x| x) || l.racks.contains(&Some(v)));
    if missiles.iter().any(|&x| x) {
        parts.push(format!("missiles in {}", volleys_text(missiles)));
    }
    if let Some(v) = l.submunitions {
        let mut on = [false; 3];
        on[v] = true;
        parts.push(format!("submunitions in {}", volleys_text(on)));
    }
    if c.pd.iter().any(|&x| x) {
        parts.push(format!(
            "class-1 beams on point defence in {}{}",
            volleys_text(c.pd),
            if c.threat.iter().any(|&x| x) {
                " (enemy missiles or small craft may reach it)"
            } else {
                ""
            }
        ));
    }
    let family_pd = b.formations[f]
        .units
        .iter()
        .any(|&u| b.units[u].systems.iter().any(|s| s.kind.fires_as_pds()));
    if family_pd && c.pds_mode.iter().any(|&x| x > 0.0) {
        parts.push(format!(
            "PD-capable beam-family weapons defend as PDS where that saves more than they score, in {}",
            volleys_text(c.pds_mode.map(|x| x > 0.0))
        ));
    }
    if c.pds_at_ships.iter().any(|&x| x) {
        parts.push(format!("PDS at ships in {}", volleys_text(c.pds_at_ships)));
    }
    if c.reflex.iter().any(|&x| x) {
        parts.push(format!(
            "reflex fields raised where nothing would fire, in {}",
            volleys_text(c.reflex)
        ));
    }
    if c.nova.iter().any(|&x| x) {
        parts.push(format!(
            "nova cannons fired alone where the blast outweighs the ship's other fire, in {}",
            volleys_text(c.nova)
        ));
    }
    if let Some((u, s)) = c.needles {
        let unit = &b.units[u];
        parts.push(format!(
            "needle beams at {}'s {} (system {})",
            unit.name,
            unit.systems[s].kind.name(unit.profile),
            s + 1
        ));
    }
    parts
}

/// The decision in one sentence: `Ilse wins: fleet morale: …`.
pub fn outcome_text(end: &Battle, outcome: &crate::engine::victory::Outcome) -> String {
    use crate::engine::victory::{Outcome, Reason};
    let why = |reason: &Reason| match reason {
        Reason::Annihilation => "no enemy Formation is left in combat".to_string(),
        Reason::UnitDestroyed(u) => format!("{} was destroyed", end.units[*u].name),
        Reason::UnitEscaped(u) => format!("{} escaped to the Reserve", end.units[*u].name),
        Reason::Morale => "fleet morale: the enemy lost half its starting mass".to_string(),
        Reason::PointsDestroyed => "enough enemy points were destroyed".to_string(),
        Reason::ExchangeLimit => "the Exchange limit was reached".to_string(),
    };
    match outcome {
        Outcome::Winner { side, reason } => format!("{} wins: {}.", end.sides[*side].name, why(reason)),
        Outcome::Draw { reason } => format!("A draw: {}.", why(reason)),
    }
}

/// The result block of a battle: the decision, each Unit's fate and the
/// points each side lost.
pub fn result(start: &Battle, end: &Battle, outcome: Option<&crate::engine::victory::Outcome>, style: Style) -> String {
    let mut r = Report::new(end, style);
    r.heading("Result");
    match outcome {
        Some(o) => r.line(&outcome_text(end, o)),
        None => r.line("No decision yet: the battle goes on."),
    }
    r.status(end);
    r.line("");
    r.line("Losses by side (Units destroyed or abandoned):");
    for (s, side) in end.sides.iter().enumerate() {
        let (mut mass, mut points, mut total_mass) = (0, 0, 0);
        for (a, b) in start.units.iter().zip(&end.units) {
            if b.side != s {
                continue;
            }
            total_mass += a.mass;
            if !a.lost() && b.lost() {
                mass += b.mass;
                points += b.points;
            }
        }
        r.item(&format!("{}: {mass} of {total_mass} mass, {points} points", side.name));
    }
    r.finish()
}

/// The title block of a multi-Exchange report.
pub fn battle_title(title: &str, first_exchange: u32, base_seed: u64, battle: &Battle, style: Style) -> String {
    let mut r = Report::new(&EMPTY, style);
    r.title(&format!("{title} (from Exchange {first_exchange})"));
    r.line(&format!("Battle seed {base_seed}"));
    r.caveats(battle);
    r.finish()
}

static EMPTY: Battle = Battle {
    sides: Vec::new(),
    formations: Vec::new(),
    units: Vec::new(),
    ranges: crate::engine::state::RangeTable::EMPTY,
    rules: crate::engine::rules::Rules::DEFAULT,
};

/// A reflex die's outcome in words (reading W60).
fn reflex_outcome(face: u8, through: u32, reflected: u32) -> String {
    match face {
        1 => format!("full damage ({through})"),
        2 => format!("half damage ({through})"),
        3 | 4 => "no damage".to_string(),
        5 => format!("no damage, {reflected} reflected"),
        _ => format!("no damage, all {reflected} reflected"),
    }
}
