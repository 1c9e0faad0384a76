//! GZF ships → FTJava XML, so that a ship fought in fam can go back to an
//! FTJava user with its damage.
//!
//! Importing what this writes gives back the same GZF model for every ship
//! that came from FTJava, and every system of a GZF ship at its number
//! (each system's `id` is its number + 1; systems FTJava has no element for
//! are listed in a log record the import reads back). What FTJava has no
//! place for is said once: a note per ship and one for the file's other
//! blocks (core systems, masses and costs, fleets, bases, gunboats, docked
//! groups), a warning per ship for lost state (switches, failures, fighter
//! types on bays), and an error for what would change a fight (other
//! systems without an element, unless `skip_unmapped`; terrain; FT2
//! records). docs/import.md, "Export".

use std::borrow::Cow;
use std::fmt::Write as _;
use std::ops::Range;

use super::limits::{self, widen};
use super::ship::{
    LEFT_OUT_EVENT, LEFT_OUT_PREFIX, MAGAZINES_PREFIX, Section, hull_track, inert_element, split_class, split_log_line,
};
use crate::diag::Diagnostic;
use crate::gzf::parse::FieldSpans;
use crate::model::registry::FtVariant;
use crate::model::sizes::{crew_factor_boxes, crew_factors_for, hull_boxes_for, row_sizes};
use crate::model::{
    Activity, AmmoType, Arc, Armour, CheckBox, DamageState, FighterBase, FighterGroup, FighterModifier, GzfFile, Item,
    Launch, Meta, PilotQuality, Profile, Ship, ShipType, Status, System, SystemKind, TorpedoRange, Warhead,
};

/// What to export.
pub struct Request<'a> {
    /// The record's text (to point diagnostics at its lines).
    pub text: &'a str,
    pub file: &'a GzfFile,
    /// `Parsed::spans` of the file.
    pub spans: &'a [FieldSpans],
    /// Only this item (a ship), as a `Ship` document.
    pub ship: Option<usize>,
    /// The game's name when the file has no `Scenario:` block.
    pub title: &'a str,
    pub skip_unmapped: bool,
}

/// The XML and the problems found (errors mean the XML must not be used).
pub struct Exported {
    pub xml: String,
    pub diagnostics: Vec<Diagnostic>,
    /// What was left out on purpose, one line per ship (and one for the
    /// file's other blocks): shown as notes, not problems.
    pub notes: Vec<String>,
}

struct Out<'a> {
    req: &'a Request<'a>,
    xml: String,
    diags: Vec<Diagnostic>,
    notes: Vec<String>,
}

/// What one ship loses on the way to FTJava, gathered so that it is said
/// once per ship rather than once per system.
#[derive(Default)]
struct Losses {
    /// Systems without an FTJava element: GZF number and name.
    left_out: Vec<(usize, String)>,
    /// Systems with a `Mass:` or `Cost:` (FTJava keeps neither per system).
    priced: usize,
    /// Systems with notes (`Log:`, unknown fields).
    noted: usize,
    /// State FTJava cannot hold, each naming its system.
    state: Vec<String>,
    /// Magazines whose `Magazine:` id is not their FTJava id: GZF number
    /// and id.
    magazines: Vec<(usize, String)>,
}

/// Escapes text for XML content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// `(FP/F/FS)`, or `(All arcs)` for all six.
fn arcs_text(arcs: &[Arc]) -> String {
    if Arc::FB1.iter().all(|a| arcs.contains(a)) {
        return "(All arcs)".into();
    }
    let codes: Vec<&str> = arcs.iter().map(|a| a.code()).collect();
    format!("({})", codes.join("/"))
}

/// Degrees (GZF `Course:`) as FTJava's clock course.
fn clock_course(degrees: &str) -> Option<String> {
    let d: f64 = degrees.trim().parse().ok()?;
    Some(super::ship::float_text(d / 30.0))
}

/// Exports a file, or one ship of it.
pub fn export(req: &Request<'_>) -> Exported {
    let mut out = Out {
        req,
        xml: String::from("<?xml version=\"1.0\" standalone=\"yes\" ?>\n"),
        diags: Vec::new(),
        notes: Vec::new(),
    };
    if req.file.profile != Profile::Fb1 {
        out.diags.push(ft2_refused(req.text));
        return Exported {
            xml: String::new(),
            diagnostics: out.diags,
            notes: Vec::new(),
        };
    }
    let ships: Vec<usize> = match req.ship {
        Some(i) => vec![i],
        None => (0..req.file.items.len())
            .filter(|&i| matches!(req.file.items[i], Item::Ship(_)))
            .collect(),
    };
    let lone = req.ship.is_some()
        || (ships.len() == 1
            && req
                .file
                .items
                .iter()
                .all(|i| matches!(i, Item::Ship(_) | Item::System(_))));
    if lone {
        if let Some(&i) = ships.first() {
            out.ship(i, 0, None);
        }
    } else {
        out.game(&ships);
    }
    Exported {
        xml: out.xml,
        diagnostics: out.diags,
        notes: out.notes,
    }
}

/// FTJava holds FB1 ships only: an FT2 record is refused by its profile, at
/// its `Profile:` line (docs/import.md, "FT2 records").
fn ft2_refused(text: &str) -> Diagnostic {
    let mut offset = 0;
    let mut span = 0..0;
    for line in text.split_inclusive('\n') {
        if line.trim_start().to_ascii_lowercase().starts_with("profile:") {
            span = offset..offset + line.trim_end().len();
            break;
        }
        offset += line.len();
    }
    Diagnostic::error(
        span,
        "the FT2 profile cannot be exported to FTJava: FTJava holds FB1 ships only",
        "an FB1 record",
    )
    .with_help(
        "FT2's four 90-degree arcs do not divide into FB1's six 60-degree arcs, and FT2 ships have no crew factors; \
         no FTJava ship fights as the FT2 one does (docs/import.md, FT2 records)",
    )
}

impl Out<'_> {
    fn item_span(&self, item: usize) -> Range<usize> {
        self.req
            .spans
            .get(item)
            .and_then(|s| s.values().min_by_key(|r| r.start).cloned())
            .unwrap_or(0..0)
    }

    /// The span of the `k`-th `System:` line after a ship's first line.
    fn system_span(&self, item: usize, k: usize) -> Range<usize> {
        let start = self.item_span(item).start;
        let mut offset = start;
        let mut seen = 0;
        for line in self.req.text[start.min(self.req.text.len())..].split_inclusive('\n') {
            let head = line.trim_start().to_ascii_lowercase();
            if head.starts_with("system:") {
                if seen == k {
                    return offset..offset + line.trim_end().len();
                }
                seen += 1;
            }
            offset += line.len();
        }
        self.item_span(item)
    }

    fn unmapped(&mut self, span: Range<usize>, what: String) {
        if self.req.skip_unmapped {
            self.diags.push(Diagnostic::warning(
                span,
                format!("{what} has no FTJava element: left out (--skip-unmapped)"),
                "a system FTJava knows (docs/import.md)",
            ));
        } else {
            self.diags.push(
                Diagnostic::error(
                    span,
                    format!("{what} has no FTJava element"),
                    "a system FTJava knows (docs/import.md)",
                )
                .with_help("pass --skip-unmapped to export without it"),
            );
        }
    }

    fn lost(&mut self, span: Range<usize>, what: String) {
        self.diags.push(Diagnostic::warning(
            span,
            format!("{what} is not exported"),
            "values FTJava has a place for (docs/import.md)",
        ));
    }

    fn game(&mut self, ships: &[usize]) {
        let file = self.req.file;
        let scenario = file.items.iter().find_map(|i| match i {
            Item::Scenario(s) => Some(s),
            _ => None,
        });
        let (title, turn) = scenario.map_or((self.req.title.to_string(), 0), |s| (s.title.clone(), s.turn));
        let _ = writeln!(
            self.xml,
            "<GameEngine id=\"-1\" name=\"{}\" turn=\"{turn}\">",
            escape(&title)
        );
        if let Some(s) = scenario {
            let lines: Vec<&String> = s
                .meta
                .iter()
                .filter(|m| m.name == "Log")
                .flat_map(|m| &m.lines)
                .collect();
            if !lines.is_empty() {
                let body: Vec<String> = lines.iter().map(|l| escape(l)).collect();
                let _ = writeln!(
                    self.xml,
                    "    <Briefing>\n        {}\n    </Briefing>",
                    body.join("\n        ")
                );
            }
        }
        let _ = writeln!(self.xml, "    <Player id=\"1\" name=\"{}\">", escape("fam"));
        let mut ids: Vec<(String, usize)> = Vec::new();
        for (k, &i) in ships.iter().enumerate() {
            if let Item::Ship(s) = &file.items[i] {
                ids.push((s.name.clone(), k + 1));
            }
            self.ship(i, 2, Some(k + 1));
        }
        // Blocks FTJava has no element for, said in one note.
        let mut skipped: Vec<String> = Vec::new();
        for (i, item) in file.items.iter().enumerate() {
            match item {
                Item::Ship(_) | Item::Scenario(_) | Item::System(_) => {}
                Item::FighterGroup(g) => match group_left_out(g) {
                    Some(why) => skipped.push(format!("fighter group `{}` ({why})", g.id)),
                    None => self.fighter_group(i, g, &ids),
                },
                Item::Fleet(f) => skipped.push(format!(
                    "fleet block `{}` (FTJava keeps a ship's fleet as its `Race`)",
                    f.name
                )),
                Item::Base(b) => skipped.push(format!(
                    "base `{}` (FTJava has no bases, and fam's battles do not use them)",
                    b.name
                )),
                Item::Launched(l) => self.unmapped(self.item_span(i), format!("launched system `{}`", l.id)),
                Item::Terrain(t) => self.unmapped(self.item_span(i), format!("terrain `{}`", t.name)),
            }
        }
        if !skipped.is_empty() {
            self.notes.push(format!(
                "left out, FTJava having no element for them: {}",
                skipped.join("; ")
            ));
        }
        self.xml.push_str("    </Player>\n</GameEngine>\n");
    }

    fn fighter_group(&mut self, item: usize, g: &FighterGroup, ids: &[(String, usize)]) {
        let span = self.item_span(item);
        let _ = writeln!(self.xml, "        <FighterGroup id=\"{}\">", escape(&g.id));
        let meta = |n: &str| {
            g.meta
                .iter()
                .find(|m| m.name == n)
                .and_then(|m| m.lines.first())
                .cloned()
        };
        if let (Some(x), Some(y)) = (meta("Position-X"), meta("Position-Y")) {
            let _ = writeln!(
                self.xml,
                "            <Position x=\"{}\" y=\"{}\"/>",
                escape(&x),
                escape(&y)
            );
        }
        if let Some(h) = meta("Facing") {
            let _ = writeln!(self.xml, "            <Heading heading=\"{}\"/>", escape(&h));
        }
        // Without its own race, a group has its carrier's (else the first ship's).
        let carrier_race = g
            .carrier
            .as_ref()
            .and_then(|c| self.req.file.ship(c))
            .or_else(|| self.req.file.ships().next())
            .and_then(|s| s.fleet.clone());
        if let Some(r) = meta("Fleet").or(carrier_race) {
            let _ = writeln!(self.xml, "            <Race>{}</Race>", escape(&r));
        }
        if let Some(t) = g.fighter_type {
            // FTJava has no light-fighter type: lost by name (readings F40).
            let name = match (t.modifier, t.base) {
                _ if t.light => None,
                (None, FighterBase::Standard) => Some("Standard"),
                (None, FighterBase::Interceptor) => Some("Interceptor"),
                (None, FighterBase::Attack) => Some("Attack"),
                (None, FighterBase::Torpedo) => Some("Torpedo"),
                (Some(FighterModifier::Heavy), FighterBase::Standard) => Some("Heavy"),
                (Some(FighterModifier::Fast), FighterBase::Standard) => Some("Fast"),
                (Some(FighterModifier::LongRange), FighterBase::Standard) => Some("LongRange"),
                _ => None,
            };
            match name {
                Some(n) => {
                    let _ = writeln!(self.xml, "            <Type>{n}</Type>");
                }
                None => self.lost(span.clone(), format!("fighter type `{}`", t.name())),
            }
        }
        let open = |b: &[CheckBox]| b.iter().filter(|x| !x.crossed).count();
        let _ = writeln!(self.xml, "            <Count>{}</Count>", open(&g.craft));
        if let Some(e) = &g.endurance {
            let _ = writeln!(self.xml, "            <Endurance>{}</Endurance>", open(e));
        }
        let quality = match g.pilot_quality {
            None => "Normal",
            Some(PilotQuality::Ace) => "Ace",
            Some(PilotQuality::Turkey) => "Turkey",
        };
        let _ = writeln!(self.xml, "            <PilotQuality>{quality}</PilotQuality>");
        if let Some(c) = &g.carrier {
            match ids.iter().find(|(n, _)| n.eq_ignore_ascii_case(c)) {
                Some((_, id)) => {
                    let _ = writeln!(self.xml, "            <Carrier id=\"{id}\"/>");
                }
                None => self.lost(
                    span.clone(),
                    format!("carrier `{c}` (no ship of that name is exported)"),
                ),
            }
        }
        // `group_left_out` has passed only groups in space; being launched
        // is what an FTJava group with a position is.
        let launched_only = Status {
            launch: Some(Launch::Launched),
            ..Status::default()
        };
        if !(g.status.is_empty() || g.status == launched_only) || g.screening.is_some() {
            self.lost(span.clone(), format!("fighter group `{}`'s status and screening", g.id));
        }
        self.xml.push_str("        </FighterGroup>\n");
    }

    fn ship(&mut self, item: usize, depth: usize, id: Option<usize>) {
        let Item::Ship(s) = &self.req.file.items[item] else {
            return;
        };
        let span = self.item_span(item);
        if !self.within_limits(item, s) {
            return;
        }
        let pad = "    ".repeat(depth);
        let inner = "    ".repeat(depth + 1);
        let open = match id {
            Some(id) => format!("{pad}<Ship id=\"{id}\">"),
            None => format!("{pad}<Ship>"),
        };
        let _ = writeln!(self.xml, "{open}");
        self.ship_record(s, &inner, &span);
        self.main_drive(s, &inner);
        let mut losses = Losses::default();
        let sections = self.ship_systems(item, s, &inner, &mut losses);
        self.armour(s, &inner);
        self.hull(s, &inner, span.clone());
        self.ship_sections(s, &sections, &inner, &span);
        self.ship_log(s, &inner, &losses);
        let st = &s.status;
        if st.activity.is_some() || st.launch.is_some() || st.powerless || st.lifeless || st.uncontrolled {
            let words: Vec<&str> = st.words().into_iter().filter(|w| *w != "Destroyed").collect();
            self.lost(span.clone(), format!("status `{}` of `{}`", words.join(" "), s.name));
        }
        self.say_losses(span, &s.name, &losses);
        let _ = writeln!(self.xml, "{pad}</Ship>");
    }

    /// A ship's leading elements, `Name` to `PointValue`, from its fields and
    /// meta lines; reports meta lines FTJava has no place for.
    fn ship_record(&mut self, s: &Ship, inner: &str, span: &Range<usize>) {
        let el = |xml: &mut String, name: &str, value: &str| element(xml, inner, name, value);
        let first = |n: &str| first_meta(s, n);
        el(&mut self.xml, "Name", &s.name);
        el(&mut self.xml, "Status", &status_word(s));
        if let Some(o) = find_meta(s, "Orders") {
            el(&mut self.xml, "Orders", &o.lines.join("\n"));
        }
        if let (Some(x), Some(y)) = (first("Position-X"), first("Position-Y")) {
            let _ = writeln!(self.xml, "{inner}<Position x=\"{}\" y=\"{}\"/>", escape(&x), escape(&y));
        }
        if let Some(h) = first("Facing") {
            let _ = writeln!(self.xml, "{inner}<Heading heading=\"{}\"/>", escape(&h));
        }
        if let Some(v) = first("Velocity") {
            let _ = writeln!(self.xml, "{inner}<Speed speed=\"{}\"/>", escape(&v));
        }
        if let Some(c) = first("Course").and_then(|c| clock_course(&c)) {
            let _ = writeln!(self.xml, "{inner}<Course course=\"{c}\"/>");
        }
        if let Some(r) = &s.fleet {
            el(&mut self.xml, "Race", r);
        }
        if let Some(c) = &s.class {
            let (name, abbrev, ship_class) = split_class(c);
            if !abbrev.is_empty() || !ship_class.is_empty() {
                el(&mut self.xml, "ClassAbbrev", &abbrev);
            }
            el(&mut self.xml, "ClassName", &name);
            if !abbrev.is_empty() || !ship_class.is_empty() {
                el(&mut self.xml, "ShipClass", &ship_class);
            }
        }
        if let Some(c) = first("Crew") {
            el(&mut self.xml, "CrewQuality", &c);
        }
        if let Some(d) = first("Designer") {
            el(&mut self.xml, "Designer", &d);
        }
        for m in &s.meta {
            if ![
                "Orders",
                "Position-X",
                "Position-Y",
                "Facing",
                "Velocity",
                "Course",
                "Crew",
                "Designer",
                "Log",
                "Payload-Track",
            ]
            .iter()
            .any(|n| m.name.eq_ignore_ascii_case(n))
            {
                self.lost(span.clone(), format!("`{}:` of `{}`", m.name, s.name));
            }
        }
        if let Some(m) = s.mass {
            el(&mut self.xml, "Mass", &m.to_string());
        }
        if let Some(c) = s.cost {
            el(&mut self.xml, "PointValue", &c.to_string());
        }
    }

    /// A ship's `MainDrive` element (system id 1).
    fn main_drive(&mut self, s: &Ship, inner: &str) {
        // System ids: 1 the main drive, then the systems in written order.
        let mut drive = format!(
            "{inner}<MainDrive id=\"1\" type=\"{}\" initialThrust=\"{}\"",
            if s.advanced_drive { "Advanced" } else { "Standard" },
            s.original_thrust
        );
        if s.thrust != s.original_thrust {
            let state = if s.thrust == 0 { "Destroyed" } else { "Damaged" };
            let _ = write!(drive, " currentThrust=\"{}\" status=\"{state}\"", s.thrust);
        }
        drive.push_str("/>\n");
        self.xml.push_str(&drive);
    }

    /// A ship's systems: FTL drives are written at once, the rest returned as
    /// (section, element line) for [`Self::ship_sections`].
    fn ship_systems(&mut self, item: usize, s: &Ship, inner: &str, losses: &mut Losses) -> Vec<(Section, String)> {
        // Each system's id is its GZF number + 1 (the main drive is 1), so
        // that an import puts every system back at its number.
        let magazines: Vec<(String, usize)> = s
            .systems
            .iter()
            .enumerate()
            .filter(|(_, x)| x.kind == SystemKind::Smm)
            .filter_map(|(k, x)| Some((x.magazine.as_ref()?.to_ascii_lowercase(), k + 2)))
            .collect();
        let mut sections: Vec<(Section, String)> = Vec::new();
        for k in sorted_systems(s) {
            let sys = &s.systems[k];
            let sys_span = self.system_span(item, k);
            if let Some((section, line)) = self.system(sys, k + 1, &magazines, sys_span, &s.name, losses) {
                if sys.kind == SystemKind::Ftl || matches!(&sys.kind, SystemKind::Inert(n) if n == "Advanced FTL Drive")
                {
                    let _ = writeln!(self.xml, "{inner}{line}");
                } else {
                    sections.push((section, line));
                }
            }
        }
        sections
    }

    /// A ship's `Armor` element: layer sizes and, when hit, what remains.
    fn armour(&mut self, s: &Ship, inner: &str) {
        let layers = s.armour.as_ref().map(Armour::layers).unwrap_or_default();
        // FTJava lists the layers innermost first (readings I30).
        let total = match layers.len() {
            0 => "0".to_string(),
            _ => layers
                .iter()
                .rev()
                .map(|l| l.len().to_string())
                .collect::<Vec<_>>()
                .join(","),
        };
        let remaining = s.armour_remaining();
        let boxes = s.armour_boxes();
        if boxes == remaining {
            let _ = writeln!(self.xml, "{inner}<Armor totalArmor=\"{total}\"/>");
        } else {
            let _ = writeln!(
                self.xml,
                "{inner}<Armor totalArmor=\"{total}\" remainingArmor=\"{remaining}\"/>"
            );
        }
    }

    /// The four system sections of a ship, with the payload track's boxes as
    /// cargo holds first in `Holds`.
    fn ship_sections(&mut self, s: &Ship, sections: &[(Section, String)], inner: &str, span: &Range<usize>) {
        let payload = first_meta(s, "Payload-Track");
        for section in [
            Section::Electronics,
            Section::Defenses,
            Section::Holds,
            Section::Weapons,
        ] {
            let lines: Vec<&String> = sections.iter().filter(|(x, _)| *x == section).map(|(_, l)| l).collect();
            let mut holds = Vec::new();
            if section == Section::Holds
                && let Some(p) = &payload
            {
                for word in p.split_whitespace() {
                    let (letter, size) = word.split_at(1);
                    let kind = match letter {
                        "H" => Some("Cargo Hold"),
                        "P" => Some("Passenger"),
                        "T" => Some("Troop Transport"),
                        _ => None,
                    };
                    match (kind, size.parse::<u32>()) {
                        (Some(k), Ok(n)) => holds.push(format!("<CargoHold type=\"{k}\" totalSize=\"{n}\"/>")),
                        _ => self.lost(span.clone(), format!("payload box `{word}`")),
                    }
                }
            }
            if lines.is_empty() && holds.is_empty() {
                let _ = writeln!(self.xml, "{inner}<{}/>", section.element());
                continue;
            }
            let _ = writeln!(self.xml, "{inner}<{}>", section.element());
            for l in holds.iter().chain(lines) {
                let _ = writeln!(self.xml, "{inner}    {l}");
            }
            let _ = writeln!(self.xml, "{inner}</{}>", section.element());
        }
    }

    /// A ship's `Log`: its GZF log lines, then fam's records of the systems
    /// left out and the magazines' ids.
    fn ship_log(&mut self, s: &Ship, inner: &str, losses: &Losses) {
        let log_lines: &[String] = find_meta(s, "Log").map_or(&[], |m| &m.lines);
        if !log_lines.is_empty() || !losses.left_out.is_empty() || !losses.magazines.is_empty() {
            let _ = writeln!(self.xml, "{inner}<Log>");
            for line in log_lines {
                match split_log_line(line) {
                    (Some((turn, event, priority)), body) => {
                        let _ = writeln!(
                            self.xml,
                            "{inner}    <Record turn=\"{}\" event=\"{}\" priority=\"{}\">{}</Record>",
                            escape(&turn),
                            escape(&event),
                            escape(&priority),
                            escape(&body)
                        );
                    }
                    (None, body) => {
                        let _ = writeln!(self.xml, "{inner}    <Record>{}</Record>", escape(&body));
                    }
                }
            }
            for (prefix, list) in [
                (LEFT_OUT_PREFIX, &losses.left_out),
                (MAGAZINES_PREFIX, &losses.magazines),
            ] {
                if list.is_empty() {
                    continue;
                }
                let entries: Vec<String> = list.iter().map(|(n, name)| format!("{n} {name}")).collect();
                let _ = writeln!(
                    self.xml,
                    "{inner}    <Record turn=\"0\" event=\"{LEFT_OUT_EVENT}\" priority=\"Low\">{} {}</Record>",
                    escape(prefix),
                    escape(&entries.join("; "))
                );
            }
            let _ = writeln!(self.xml, "{inner}</Log>");
        }
    }

    /// The span of a ship's field (the ship's first line without it).
    fn field_span(&self, item: usize, key: &str) -> Range<usize> {
        self.req
            .spans
            .get(item)
            .and_then(|s| s.get(key))
            .cloned()
            .unwrap_or_else(|| self.item_span(item))
    }

    /// Whether a ship's numbers are within what an import reads back
    /// (docs/import.md, Limits): an error at each field beyond them, and
    /// the ship is not exported.
    fn within_limits(&mut self, item: usize, s: &Ship) -> bool {
        let magazine = s
            .systems
            .iter()
            .filter_map(|x| x.capacity.map(widen).max(x.rounds.as_ref().map(Vec::len)));
        let position = |n: &str| {
            s.meta
                .iter()
                .find(|m| m.name.eq_ignore_ascii_case(n))
                .and_then(|m| m.lines.first()?.trim().parse::<f64>().ok())
                .is_some_and(|v| v.abs() > limits::DISTANCE)
        };
        let sizes = [
            ("mass", "Mass:", s.mass.map_or(0, widen), widen(limits::MASS)),
            ("damage-track", "hull boxes", s.hull_boxes(), widen(limits::HULL_BOXES)),
            ("armour", "armour boxes", s.armour_boxes(), widen(limits::ARMOUR_BOXES)),
            (
                "original-thrust",
                "thrust",
                widen(s.original_thrust.max(s.thrust)),
                widen(limits::THRUST),
            ),
            ("cost", "Cost:", s.cost.map_or(0, widen), widen(limits::POINT_VALUE)),
            ("ship", "systems", s.systems.len(), limits::SYSTEMS),
            (
                "ship",
                "magazine loads",
                magazine.max().unwrap_or(0),
                widen(limits::MAGAZINE_CAPACITY),
            ),
        ];
        let mut ok = true;
        for (key, what, value, max) in sizes {
            if value > max {
                let span = self.field_span(item, key);
                self.beyond_limit(span, format!("{what} {value} of `{}`", s.name), max.to_string());
                ok = false;
            }
        }
        for (key, field) in [
            ("position-x", "Position-X"),
            ("position-y", "Position-Y"),
            ("velocity", "Velocity"),
        ] {
            if position(field) {
                let span = self.field_span(item, key);
                self.beyond_limit(
                    span,
                    format!("`{field}:` of `{}`", s.name),
                    limits::DISTANCE.to_string(),
                );
                ok = false;
            }
        }
        ok
    }

    fn beyond_limit(&mut self, span: Range<usize>, what: String, max: String) {
        self.diags.push(
            Diagnostic::error(
                span,
                format!("{what} is more than an FTJava import reads back"),
                format!("at most {max} (docs/import.md, Limits)"),
            )
            .with_help("fam's import limits are far above any real ship; this one cannot go to FTJava"),
        );
    }

    fn hull(&mut self, s: &Ship, inner: &str, span: Range<usize>) {
        // `within_limits` has checked the hull boxes, so they fit a u32.
        let boxes = s.hull_boxes();
        let mass = s.mass.or_else(|| u32::try_from(boxes).ok()).unwrap_or(limits::MASS);
        let rows = s.damage_track.len();
        let mut line = format!("{inner}<Hull value=\"{mass}\"");
        match s.hull_integrity {
            Some(h) => {
                let _ = write!(line, " type=\"{}\"", h.name());
                if boxes != widen(hull_boxes_for(mass, h)) {
                    let _ = write!(line, " totalHullBoxes=\"{boxes}\"");
                }
            }
            None => {
                let _ = write!(line, " type=\"Custom\" totalHullBoxes=\"{boxes}\"");
            }
        }
        match s.ship_type {
            Some(ShipType::Military) => line.push_str(" class=\"Military\""),
            Some(ShipType::Civilian) => line.push_str(" class=\"Civilian\""),
            Some(ShipType::Merchant) => line.push_str(" class=\"Merchant\""),
            None => {}
        }
        if rows != boxes.min(4) {
            let _ = write!(line, " rows=\"{rows}\"");
        }
        let remaining = s.hull_remaining();
        if remaining != boxes {
            let _ = write!(line, " remainingHullBoxes=\"{remaining}\"");
        }
        line.push_str("/>\n");
        self.xml.push_str(&line);
        // What an import will rebuild: balanced rows, crew factors where the
        // design rules put them, damage from the first box.
        let sizes: Vec<usize> = s.damage_track.iter().map(Vec::len).collect();
        if sizes != row_sizes(boxes, rows) {
            self.lost(span.clone(), format!("the row layout {sizes:?} of `{}`", s.name));
        }
        let crew = crew_factor_boxes(boxes, widen(crew_factors_for(mass, s.ship_type)));
        let rebuilt = hull_track(&sizes, boxes - remaining, &crew);
        let mismatch = s
            .damage_track
            .iter()
            .flatten()
            .zip(rebuilt.iter().flatten())
            .any(|(b, r)| b.crossed != r.crossed || (!b.crossed && b.crew_factor != r.crew_factor));
        if mismatch {
            self.lost(
                span,
                format!(
                    "where `{}`'s crew factors and crossed boxes sit (FTJava keeps counts; an import puts them by the design rules)",
                    s.name
                ),
            );
        }
    }

    /// One note for what a ship leaves out on purpose, and one warning for
    /// the state FTJava cannot hold, if any.
    fn say_losses(&mut self, span: Range<usize>, ship: &str, losses: &Losses) {
        let mut parts: Vec<String> = Vec::new();
        if !losses.left_out.is_empty() {
            let list: Vec<String> = losses.left_out.iter().map(|(n, name)| format!("{n} {name}")).collect();
            parts.push(format!(
                "system{} {} (no FTJava element; listed in its Log, where fam's import finds them)",
                if list.len() == 1 { "" } else { "s" },
                list.join(", ")
            ));
        }
        let systems = |n: usize| format!("{n} system{}", if n == 1 { "" } else { "s" });
        if losses.priced > 0 {
            parts.push(format!("the mass and cost of {}", systems(losses.priced)));
        }
        if losses.noted > 0 {
            parts.push(format!("the notes of {}", systems(losses.noted)));
        }
        if !parts.is_empty() {
            self.notes.push(format!("`{ship}`: not exported: {}", parts.join("; ")));
        }
        if !losses.state.is_empty() {
            self.diags.push(Diagnostic::warning(
                span,
                format!(
                    "what FTJava cannot hold on `{ship}` is not exported: {}",
                    losses.state.join("; ")
                ),
                "values FTJava has a place for (docs/import.md)",
            ));
        }
    }

    /// A system without an FTJava element: core systems (FTJava ships have
    /// none) and, with `skip_unmapped`, any other are left out and listed;
    /// otherwise it is an error.
    fn left_out(&mut self, sys: &System, number: usize, span: Range<usize>, ship: &str, losses: &mut Losses) {
        let name = sys.kind.name(Profile::Fb1);
        if !(sys.kind.is_core() || self.req.skip_unmapped) {
            self.unmapped(span, format!("{name} of `{ship}`"));
            return;
        }
        if !sys.status.is_empty() || sys.failure.is_some() {
            losses.state.push(format!("the status of system {number} ({name})"));
        }
        losses.left_out.push((number, name));
    }

    /// One system (GZF number `number`, FTJava id `number + 1`) as an XML
    /// line (without indentation) in its section; `None` when it has no
    /// FTJava element.
    fn system(
        &mut self,
        sys: &System,
        number: usize,
        magazines: &[(String, usize)],
        span: Range<usize>,
        ship: &str,
        losses: &mut Losses,
    ) -> Option<(Section, String)> {
        // FTJava keeps no Pulser setting (readings I27).
        if let SystemKind::Pulser { setting: Some(_) } = sys.kind {
            losses
                .state
                .push(format!("the Pulser-Setting of system {number} (Pulser)"));
        }
        let Some((section, element, rating)) = element_of(&sys.kind) else {
            self.left_out(sys, number, span, ship, losses);
            return None;
        };
        let mut line = start_tag(sys, number, &element, rating, magazines);
        if sys.kind == SystemKind::Smm
            && let Some(m) = &sys.magazine
            && *m != (number + 1).to_string()
            && !m.contains(';')
        {
            losses.magazines.push((number, m.clone()));
        }
        let children = self.ordnance(sys, number, &mut line, losses);
        self.system_losses(sys, number, losses);
        if children.is_empty() {
            line.push_str("/>");
        } else {
            line.push('>');
            for c in &children {
                let _ = write!(line, "\n                {c}");
            }
            let _ = write!(line, "\n            </{element}>");
        }
        Some((section, line))
    }

    /// A magazine's capacity (on `line`) and loads, a rack's or launcher's
    /// round: the child elements.
    fn ordnance(&mut self, sys: &System, number: usize, line: &mut String, losses: &mut Losses) -> Vec<String> {
        use SystemKind::*;
        let name = sys.kind.name(Profile::Fb1);
        let mut children: Vec<String> = Vec::new();
        match &sys.kind {
            Smm => {
                // `within_limits` has checked capacity and rounds.
                let capacity = sys
                    .capacity
                    .map_or_else(|| sys.rounds.as_ref().map_or(0, Vec::len), widen);
                let _ = write!(line, " maxInRow=\"3\" capacity=\"{capacity}\"");
                let open = sys
                    .rounds
                    .as_ref()
                    .map_or(capacity, |r| r.iter().filter(|b| !b.crossed).count());
                let kind = if sys.ammo == Some(AmmoType::Er) {
                    "Extended Range Salvo"
                } else {
                    "Standard Salvo"
                };
                for k in 0..capacity {
                    let status = if k < capacity - open.min(capacity) {
                        "Expended"
                    } else {
                        "Available"
                    };
                    children.push(format!("<Salvo type=\"{kind}\" status=\"{status}\"/>"));
                }
                if sys.rounds.as_ref().is_some_and(|r| r.len() != capacity) {
                    losses.state.push(format!(
                        "a Rounds track unlike its Capacity on system {number} ({name})"
                    ));
                }
            }
            Smr | Missile { .. } => {
                let spent = sys.rounds.as_ref().is_some_and(|r| r.iter().any(|b| b.crossed));
                let er = sys.ammo == Some(AmmoType::Er);
                if spent || er {
                    let status = if spent { "Expended" } else { "Available" };
                    children.push(match (&sys.kind, er) {
                        (Smr, true) => format!("<Salvo type=\"Extended Range Salvo\" status=\"{status}\"/>"),
                        (Smr, false) => format!("<Salvo type=\"Standard Salvo\" status=\"{status}\"/>"),
                        (_, true) => format!("<HeavyMissile type=\"Extended Range\" status=\"{status}\"/>"),
                        (_, false) => format!("<StandardHeavyMissile status=\"{status}\"/>"),
                    });
                }
            }
            _ => {
                if sys.rounds.is_some() {
                    losses
                        .state
                        .push(format!("the Rounds track of system {number} ({name})"));
                }
                if sys.capacity.is_some() {
                    losses.state.push(format!("the Capacity of system {number} ({name})"));
                }
            }
        }
        children
    }

    /// What an exported system has that FTJava keeps no attribute for.
    fn system_losses(&mut self, sys: &System, number: usize, losses: &mut Losses) {
        let name = sys.kind.name(Profile::Fb1);
        if sys.cost.is_some() || sys.mass.is_some() {
            losses.priced += 1;
        }
        if !sys.meta.is_empty() {
            losses.noted += 1;
        }
        let mut what: Vec<&str> = Vec::new();
        if sys.status.activity == Some(Activity::Inactive) {
            what.push("switched off");
        }
        if sys.status.launch.is_some() {
            what.push("launch state");
        }
        if sys.failure.is_some() {
            what.push("failure");
        }
        if sys.fighter_type.is_some() {
            what.push("fighter type");
        }
        if sys.pilot_quality.is_some() {
            what.push("pilot quality");
        }
        if !what.is_empty() {
            losses
                .state
                .push(format!("{} of system {number} ({name})", what.join(", ")));
        }
    }
}

/// The FTJava element of a system kind: its section, element name and
/// rating, from its registry row (an inert system's from the list of
/// FTJava systems fam has no kind for); `None` when FTJava has none.
fn element_of(kind: &SystemKind) -> Option<(Section, Cow<'static, str>, Option<u32>)> {
    if let SystemKind::Inert(name) = kind {
        let (element, section, rating) = inert_element(name)?;
        return Some((section, Cow::Borrowed(element), rating));
    }
    let (row, params) = kind.entry();
    let ft = row.ftjava?;
    let element = match (ft.variant, params.range) {
        (FtVariant::StandardOnly, _) if params.warhead != Warhead::Standard => return None,
        (FtVariant::RangeInName, TorpedoRange::Long) => Cow::Owned(format!("LongRange{}", ft.element)),
        (FtVariant::RangeInName, TorpedoRange::Short) => Cow::Owned(format!("ShortRange{}", ft.element)),
        _ => Cow::Borrowed(ft.element),
    };
    let rating = ft.rating.map(|_| u32::from(params.class));
    // The FTL drive is a child of the ship, written before the sections.
    Some((Section::of(ft.section).unwrap_or(Section::Electronics), element, rating))
}

/// A system's start tag, left open: its id, rating, arcs, range bands,
/// magazine and damage.
fn start_tag(sys: &System, number: usize, element: &str, rating: Option<u32>, magazines: &[(String, usize)]) -> String {
    use SystemKind::*;
    let mut line = format!("<{element} id=\"{}\"", number + 1);
    if let Some(r) = rating {
        let _ = write!(line, " rating=\"{r}\"");
    }
    if sys.kind.is_weapon() && sys.kind != Pds && !sys.arcs.is_empty()
        || matches!(sys.kind, Inert(_)) && !sys.arcs.is_empty()
    {
        let _ = write!(line, " arcs=\"{}\"", arcs_text(&sys.arcs));
    }
    if let KGun { range, .. } = sys.kind {
        match range {
            TorpedoRange::Standard => {}
            TorpedoRange::Long => line.push_str(" rangeIncrement=\"9\""),
            TorpedoRange::Short => line.push_str(" rangeIncrement=\"4\""),
        }
    }
    let magazine = sys.magazine.as_ref().and_then(|m| {
        magazines
            .iter()
            .find(|(k, _)| *k == m.to_ascii_lowercase())
            .map(|(_, v)| *v)
    });
    if sys.kind == Sml
        && let Some(m) = magazine
    {
        let _ = write!(line, " smmId=\"{m}\"");
    }
    match sys.status.damage {
        Some(DamageState::Damaged) => line.push_str(" status=\"Damaged\""),
        Some(DamageState::Destroyed) => line.push_str(" status=\"Destroyed\""),
        Some(DamageState::Repaired) => line.push_str(" status=\"Repaired\""),
        None => {}
    }
    line
}

/// Why a GZF group has no FTJava `FighterGroup`, if it has none: FTJava
/// has no gunboats, and its groups are in space (an import needs a
/// `Position`), so a docked group goes only as its carrier's bay.
fn group_left_out(g: &FighterGroup) -> Option<&'static str> {
    let has = |n: &str| g.meta.iter().any(|m| m.name.eq_ignore_ascii_case(n));
    if g.gunboat.is_some() {
        Some("gunboats: FTJava has none")
    } else if g.status.launch == Some(Launch::Docked) {
        Some("docked: FTJava groups are in space; its carrier's bay is exported")
    } else if !(has("Position-X") && has("Position-Y")) {
        Some("no position: an FTJava group is in space at one")
    } else {
        None
    }
}

/// Systems in the order an import will read them back: FTL drives, then
/// Electronics, Defenses and Weapons, each in record order.
fn sorted_systems(s: &Ship) -> Vec<usize> {
    use SystemKind::*;
    let rank = |sys: &System| match &sys.kind {
        Ftl => 0,
        Inert(n) => match inert_element(n) {
            Some(("AdvancedFTLDrive", ..)) => 0,
            Some((_, Section::Electronics, _)) => 1,
            Some((_, Section::Defenses, _)) => 2,
            _ => 4,
        },
        FireControl | Adfc | EnhancedSensors | SuperiorSensors => 1,
        ScreenGenerator | IndividualEcm | AreaEcm | CloakingField => 2,
        _ => 4,
    };
    let mut order: Vec<usize> = (0..s.systems.len()).collect();
    order.sort_by_key(|&i| rank(&s.systems[i]));
    order
}

/// Hull rows wholly crossed by `lost` boxes from the first, as the engine
/// counts them (`engine::state::rows_completed`; empty rows do not count).
fn rows_lost(s: &Ship, lost: usize) -> usize {
    let mut end = 0;
    let mut done = 0;
    for len in s.damage_track.iter().map(Vec::len).filter(|&len| len > 0) {
        end += len;
        if lost < end {
            break;
        }
        done += 1;
    }
    done
}

/// FTJava's damage word for a ship: Destroyed, Ok (no hull lost), or by
/// hull rows lost: Light (none), Moderate (1), Heavy (2), Crippled (3+).
pub fn status_word(s: &Ship) -> String {
    if s.status.damage == Some(DamageState::Destroyed) {
        return "Destroyed".into();
    }
    let lost = s.hull_boxes() - s.hull_remaining();
    if lost == 0 {
        return "Ok".into();
    }
    match rows_lost(s, lost) {
        0 => "Light",
        1 => "Moderate",
        2 => "Heavy",
        _ => "Crippled",
    }
    .into()
}

/// Writes `<name>value</name>` on its own line at indent `inner`.
fn element(xml: &mut String, inner: &str, name: &str, value: &str) {
    let _ = writeln!(xml, "{inner}<{name}>{}</{name}>", escape(value));
}

/// A ship's meta field `name` (case-blind).
fn find_meta<'s>(s: &'s Ship, name: &str) -> Option<&'s Meta> {
    s.meta.iter().find(|m| m.name.eq_ignore_ascii_case(name))
}

/// The first line of a ship's meta field `name`.
fn first_meta(s: &Ship, name: &str) -> Option<String> {
    find_meta(s, name).and_then(|m| m.lines.first()).cloned()
}
