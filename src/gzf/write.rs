//! The canonical GZF writer.
//!
//! Writing is idempotent, and parse → write → parse gives an equal model for
//! every file that parses without errors. A round trip does NOT preserve:
//! - field order within a block (fields come out in the canonical order below,
//!   with fields fam does not know at the end of their block, in file order);
//! - spacing, alignment, line endings (always LF) and where long values were
//!   folded (except `Log:` and `Orders:`, which keep one entry per line);
//! - spelling variants: `Armor` becomes `Armour`, `Type:`/`Quality:` in a
//!   Fighter-Group become `Fighter-Type:`/`Pilot-Quality:`, keywords take
//!   their canonical case, `0` boxes become `O`, comma-separated lists become
//!   blank-separated, duplicate arcs and status words are dropped and arcs
//!   are sorted;
//! - whether a crossed-off box (`-`) held a crew factor: the profile writes
//!   both as `-`, so the reader cannot tell either;
//! - fields run together on one line (they are written one per line);
//! - the header: fam always writes `Profile:` and drops nothing else.

use std::fmt::Write as _;

use crate::model::*;

/// Column at which values start (field name, colon and padding before it).
const VALUE_COLUMN: usize = 18;
/// Long list values (damage tracks) are folded before this width.
const MAX_WIDTH: usize = 78;

/// Writes a whole file in canonical form.
pub fn write(file: &GzfFile) -> String {
    let mut w = Writer {
        out: String::new(),
        profile: file.profile,
    };
    w.header(&file.header);
    for item in &file.items {
        match item {
            Item::Scenario(s) => w.scenario(s),
            Item::Fleet(f) => w.fleet(f),
            Item::Ship(s) => w.ship(s),
            Item::System(s) => w.system(s),
            Item::FighterGroup(g) => w.fighter_group(g),
            Item::Launched(l) => w.launched(l),
            Item::Base(b) => w.base(b),
            Item::Terrain(t) => w.terrain(t),
        }
    }
    w.out
}

struct Writer {
    out: String,
    profile: Profile,
}

fn boxes_spaced(boxes: &[CheckBox]) -> String {
    let mut s = String::new();
    for b in boxes {
        if !s.is_empty() {
            s.push(' ');
        }
        s.push(b.symbol());
    }
    s
}

fn track_rows(rows: &[Vec<CheckBox>]) -> Vec<String> {
    rows.iter().map(|r| r.iter().map(|b| b.symbol()).collect()).collect()
}

impl Writer {
    fn start_block(&mut self) {
        if !self.out.is_empty() {
            self.out.push('\n');
        }
    }

    fn field(&mut self, name: &str, value: &str) {
        let head = format!("{name}:");
        let line = if value.is_empty() {
            head
        } else {
            format!("{head:<width$}{value}", width = VALUE_COLUMN.max(head.len() + 1))
        };
        self.out.push_str(line.trim_end());
        self.out.push('\n');
    }

    fn opt<T: ToString>(&mut self, name: &str, value: &Option<T>) {
        if let Some(v) = value {
            self.field(name, &v.to_string());
        }
    }

    /// A multi-line text field: continuation lines indented to the value column.
    fn lines(&mut self, name: &str, lines: &[String]) {
        let mut it = lines.iter();
        self.field(name, it.next().map_or("", String::as_str));
        for l in it {
            let _ = writeln!(self.out, "{:width$}{l}", "", width = VALUE_COLUMN);
        }
    }

    /// A list of words, folded onto continuation lines when it is long.
    fn words(&mut self, name: &str, words: &[String]) {
        let head_width = VALUE_COLUMN.max(name.len() + 2);
        let mut line = String::new();
        let mut first = true;
        for word in words {
            if !line.is_empty() && head_width + line.len() + 1 + word.len() > MAX_WIDTH {
                self.flush_words(name, &line, first);
                first = false;
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        self.flush_words(name, &line, first);
    }

    fn flush_words(&mut self, name: &str, line: &str, first: bool) {
        if first {
            self.field(name, line);
        } else {
            let _ = writeln!(self.out, "{:width$}{line}", "", width = VALUE_COLUMN);
        }
    }

    fn meta(&mut self, meta: &[Meta]) {
        for m in meta {
            self.lines(&m.name, &m.lines);
        }
    }

    fn status(&mut self, status: &Status) {
        if !status.is_empty() {
            self.field("Status", &status.words().join(" "));
        }
    }

    fn armour(&mut self, armour: &Option<Armour>) {
        match armour {
            Some(Armour::Boxes(b)) => self.field("Armour", &boxes_spaced(b)),
            Some(Armour::Level(n)) => self.field("Armour", &format!("Level {n}")),
            Some(Armour::Layers(l)) => {
                let rows: Vec<String> = l.iter().map(|b| boxes_spaced(b)).collect();
                self.field("Armour", &rows.join(" / "))
            }
            None => {}
        }
    }

    fn track(&mut self, name: &str, rows: &[Vec<CheckBox>]) {
        if !rows.is_empty() {
            self.words(name, &track_rows(rows));
        }
    }

    fn header(&mut self, h: &Header) {
        self.field("Profile", self.profile.name());
        self.opt("Universe", &h.universe);
        self.opt("Universe-Version", &h.universe_version);
        if let Some(u) = h.units {
            self.field(
                "Units",
                match u {
                    Units::Cm => "cm",
                    Units::Inches => "inches",
                },
            );
        }
        self.meta(&h.meta);
    }

    fn scenario(&mut self, s: &Scenario) {
        self.start_block();
        self.field("Scenario", &s.title);
        self.field("Turn", &s.turn.to_string());
        self.meta(&s.meta);
    }

    fn fleet(&mut self, f: &Fleet) {
        self.start_block();
        self.field("Fleet", &f.name);
        self.field("Admiral", &f.admiral);
        self.opt("Morale", &f.morale.map(|m| format!("{m}%")));
        self.meta(&f.meta);
    }

    fn ship(&mut self, s: &Ship) {
        self.start_block();
        self.field("Ship", &s.name);
        self.opt("Class", &s.class);
        self.opt("Hull-Integrity", &s.hull_integrity.map(HullIntegrity::name));
        let type_field = match self.profile {
            Profile::Fb1 => "Ship-Type",
            Profile::Ft2 => "Hull-Type",
        };
        self.opt(type_field, &s.ship_type.map(ShipType::name));
        self.opt("Hull-Class", &s.hull_class);
        self.opt("Streamlining", &s.streamlining);
        self.opt("Mass", &s.mass);
        self.opt("Cost", &s.cost);
        self.opt("Fleet", &s.fleet);
        self.status(&s.status);
        self.field("Thrust-Rating", &s.thrust.to_string());
        if s.original_thrust != s.thrust {
            self.field("Original-Thrust", &s.original_thrust.to_string());
        }
        if s.advanced_drive {
            self.field("Drive-Type", "Advanced");
        }
        self.armour(&s.armour);
        self.track("Damage-Track", &s.damage_track);
        self.meta(&s.meta);
        for sys in &s.systems {
            self.system(sys);
        }
    }

    fn system(&mut self, s: &System) {
        self.start_block();
        self.field("System", &s.kind.name(self.profile));
        if !s.arcs.is_empty() {
            let arcs: Vec<_> = s.arcs.iter().map(|a| a.code()).collect();
            self.field("Firing-Arc", &arcs.join(" "));
        }
        self.opt("Cost", &s.cost);
        self.opt("Mass", &s.mass);
        self.status(&s.status);
        self.opt("Failure", &s.failure);
        self.opt("Capacity", &s.capacity);
        self.opt("Magazine", &s.magazine);
        if let Some(r) = &s.rounds {
            self.field("Rounds", &boxes_spaced(r));
        }
        self.opt(
            "Ammo-Type",
            &s.ammo.map(|a| match a {
                AmmoType::Standard => "Standard",
                AmmoType::Er => "ER",
            }),
        );
        self.opt("Fighter-Type", &s.fighter_type.map(|t| t.name()));
        self.opt("Pilot-Quality", &s.pilot_quality.map(pilot));
        if let SystemKind::Pulser { setting: Some(p) } = s.kind {
            self.field("Pulser-Setting", p.name());
        }
        self.meta(&s.meta);
    }

    fn fighter_group(&mut self, g: &FighterGroup) {
        self.start_block();
        self.field("Fighter-Group", &g.id);
        self.field("Craft", &boxes_spaced(&g.craft));
        self.opt("Fighter-Type", &g.fighter_type.map(|t| t.name()));
        self.opt("Gunboat", &g.gunboat.map(GunboatType::name));
        self.opt("Pilot-Quality", &g.pilot_quality.map(pilot));
        if let Some(e) = &g.endurance {
            self.field("Endurance", &boxes_spaced(e));
        }
        if let Some(r) = &g.rounds {
            self.field("Rounds", &boxes_spaced(r));
        }
        self.status(&g.status);
        match g.rearm {
            Some(GroupRearm::Volleys(n)) => self.field("Rearm", &n.to_string()),
            Some(GroupRearm::Never) => self.field("Rearm", "Never"),
            None => {}
        }
        self.opt("Carrier", &g.carrier);
        self.opt("Screening", &g.screening);
        self.meta(&g.meta);
    }

    fn launched(&mut self, l: &LaunchedSystem) {
        self.start_block();
        self.field("Launched-System", &l.id);
        self.opt("Type", &l.launched_type);
        self.opt("Detection-Range", &l.detection_range);
        if let Some(e) = &l.endurance {
            self.field("Endurance", &boxes_spaced(e));
        }
        self.status(&l.status);
        self.opt("Carrier", &l.carrier);
        self.meta(&l.meta);
    }

    fn base(&mut self, b: &Base) {
        self.start_block();
        self.field("Base", &b.name);
        self.opt("Class", &b.class);
        self.opt("Hull-Type", &b.ship_type.map(ShipType::name));
        self.opt("Mass", &b.mass);
        self.opt("Cost", &b.cost);
        self.opt("Fleet", &b.fleet);
        self.status(&b.status);
        self.armour(&b.armour);
        self.track("Damage-Track", &b.damage_track);
        self.payload(&b.payload);
        self.meta(&b.meta);
        for sys in &b.systems {
            self.system(sys);
        }
        for sector in &b.sectors {
            self.start_block();
            self.field("Base-Sector", &sector.id.to_string());
            self.opt("Mass", &sector.mass);
            self.opt("Cost", &sector.cost);
            self.armour(&sector.armour);
            self.track("Damage-Track", &sector.damage_track);
            self.payload(&sector.payload);
            self.meta(&sector.meta);
            for sys in &sector.systems {
                self.system(sys);
            }
        }
    }

    fn payload(&mut self, payload: &Option<Vec<PayloadBox>>) {
        if let Some(p) = payload {
            let words: Vec<String> = p
                .iter()
                .map(|b| match b {
                    PayloadBox::Hold(n) => format!("H{n}"),
                    PayloadBox::Passenger(n) => format!("P{n}"),
                    PayloadBox::Special(n) => format!("S{n}"),
                    PayloadBox::Troops(n) => format!("T{n}"),
                    PayloadBox::Lost => "-".to_string(),
                })
                .collect();
            self.words("Payload-Track", &words);
        }
    }

    fn terrain(&mut self, t: &Terrain) {
        self.start_block();
        self.field("Terrain", &t.name);
        self.field("Type", &t.terrain_type);
        self.track("Damage-Track", &t.damage_track);
        self.meta(&t.meta);
    }
}

fn pilot(p: PilotQuality) -> &'static str {
    match p {
        PilotQuality::Ace => "Ace",
        PilotQuality::Turkey => "Turkey",
    }
}
