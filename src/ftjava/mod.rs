//! FTJava XML: import of `Ship` files and `GameEngine` documents (with the
//! `FM.Orders` of Fire and Maneuver) into GZF records and a scenario, and
//! export of GZF ships back to FTJava.
//!
//! - [`import`]: one XML document → a [`GzfFile`] (FB1 profile) and, for a
//!   game with two or more sides, a scenario TOML ([`scenario::Scenario`]).
//!   Every element is mapped, left out on purpose (layout, FTJava's own
//!   game state: tallied in [`Import::ignored`]) or reported by name and
//!   position as having no mapping (an error; a warning with
//!   `skip_unmapped`). Every number is checked against [`limits`] and
//!   every text for characters no record can hold, each at its position.
//! - [`export::export`]: a GZF file (or one ship of it) → FTJava XML.
//!
//! The mapping is in `docs/import.md`, the readings in `docs/readings.md`
//! (section I). Like the GZF reader, nothing here touches files.

pub mod export;
pub mod limits;
pub mod scenario;
pub mod ship;
mod xml;

use std::collections::{BTreeMap, BTreeSet};

use roxmltree::Node;

use crate::diag::{Diagnostic, SourceFile};
use crate::gzf;
use crate::model::{self, CheckBox, FighterBase, FighterGroup, FighterModifier, FighterType, GzfFile, Item, Meta};
use xml::{Cx, attr_line, attr_span, elements, tag_span, text, text_span};

/// Import switches.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Leave out elements with no mapping (with a warning each) instead of
    /// refusing the file.
    pub skip_unmapped: bool,
}

/// The result of importing one document.
pub struct Import {
    pub gzf: GzfFile,
    /// A scenario, when the document is a game with two or more sides.
    pub scenario: Option<scenario::Scenario>,
    /// Errors and warnings, with spans into the document.
    pub diagnostics: Vec<Diagnostic>,
    /// What was left out on purpose, one line per kind with its count.
    pub ignored: Vec<String>,
    /// Systems imported as inert (the records need `--inert-unknown-systems`).
    pub inert: usize,
}

impl Import {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// A ship read from a game, with its player.
pub(crate) struct GameShip<'a, 'i> {
    pub node: Node<'a, 'i>,
    pub imported: ship::Imported,
    /// Index into the players (`None` for a lone Ship document).
    pub player: Option<usize>,
}

/// A `Player` of a game.
pub(crate) struct Player {
    pub name: String,
    pub team: Option<String>,
    pub objectives: String,
    pub span: std::ops::Range<usize>,
}

/// A fighter group read from a game: its element, the group, the ship id
/// of its carrier and the index of its player.
type GameGroup<'a, 'i> = (Node<'a, 'i>, FighterGroup, Option<i64>, usize);

/// What a `GameEngine` holds besides its ships and groups.
struct Game {
    title: String,
    turn: u32,
    briefing: Vec<String>,
}

/// Imports one FTJava document: a `Ship`, or a `GameEngine` (a faction
/// bundle, a scenario or a game turn).
pub fn import(source: &SourceFile, options: &Options) -> Import {
    let mut cx = Cx::new(options.skip_unmapped);
    let mut out = Import {
        gzf: GzfFile::default(),
        scenario: None,
        diagnostics: Vec::new(),
        ignored: Vec::new(),
        inert: 0,
    };
    let doc = match xml::parse(&source.text) {
        Ok(d) => d,
        Err(d) => {
            out.diagnostics.push(d);
            return out;
        }
    };
    xml::unwritable_characters(&mut cx, &doc, &source.text);
    if cx.has_errors() {
        out.diagnostics = cx.finish(&source.name);
        return out;
    }
    let root = doc.root_element();
    let mut ships: Vec<GameShip> = Vec::new();
    let mut players: Vec<Player> = Vec::new();
    let mut groups: Vec<GameGroup> = Vec::new();
    let mut game: Option<Game> = None;
    match root.tag_name().name() {
        "Ship" => ships.push(GameShip {
            node: root,
            imported: ship::import(&mut cx, root, false),
            player: None,
        }),
        "GameEngine" => game = Some(game_engine(&mut cx, root, &mut players, &mut ships, &mut groups)),
        other => {
            cx.error(
                tag_span(root),
                format!("an FTJava document starts with `{other}`"),
                "a `Ship` or `GameEngine` document",
            );
        }
    }
    unique_names(&mut cx, &mut ships);
    dock_groups(&mut cx, &ships, &mut groups);
    within_record_limits(&mut cx, &ships, &groups, game.is_some());
    if let Some(game) = &game {
        out.gzf.items.push(Item::Scenario(scenario_record(game)));
    }
    if let Some(Game { title, turn, briefing }) = &game
        && !cx.has_errors()
    {
        out.scenario = scenario::build(&mut cx, &ships, &players, title, *turn, briefing);
        if let Some(sc) = out.scenario.as_mut() {
            place_uncarried_groups(&mut cx, sc, &ships, &groups);
        }
    }
    for s in &ships {
        out.inert += s.imported.inert;
        out.gzf.items.push(Item::Ship(s.imported.ship.clone()));
    }
    for (_, g, ..) in groups {
        out.gzf.items.push(Item::FighterGroup(g));
    }
    out.diagnostics = cx.finish(&source.name);
    out.ignored = cx.ignored.iter().map(|(what, n)| format!("{what} ×{n}")).collect();
    out
}

/// Reads a `GameEngine`: its own attributes, then its briefing, players
/// (with their ships and groups) and what is left out.
fn game_engine<'a, 'i>(
    cx: &mut Cx,
    root: Node<'a, 'i>,
    players: &mut Vec<Player>,
    ships: &mut Vec<GameShip<'a, 'i>>,
    groups: &mut Vec<GameGroup<'a, 'i>>,
) -> Game {
    cx.attributes(root, &["id", "name", "turn", "combat"]);
    if root.has_attribute("id") {
        cx.ignore("`GameEngine` `id` (FTJava's game number)");
    }
    if root.has_attribute("combat") {
        cx.ignore("`GameEngine` `combat` (FTJava's phase flag)");
    }
    cx.no_text(root);
    let turn = cx.uint_attr(root, "turn", 0..=limits::TURN).unwrap_or(0);
    let title = root
        .attribute("name")
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let mut briefing = Vec::new();
    for c in elements(root) {
        match c.tag_name().name() {
            "Briefing" => {
                cx.attributes(c, &[]);
                briefing = xml::lines(c);
            }
            "GameOptions" => {
                for _ in elements(c) {
                    cx.ignore("`GameOptions` (FTJava's table-top options; F&M has its own rules)");
                }
            }
            "Report" => {
                if elements(c).next().is_some() || !text(c).is_empty() {
                    cx.ignore("`Report` (FTJava's turn report)");
                }
            }
            "Player" => {
                if cx.room(c, "players in a game", limits::SHIPS) {
                    player(cx, c, players, ships, groups);
                }
            }
            other => cx.unmapped(
                tag_span(c),
                format!("element `{other}` in a GameEngine"),
                "Briefing, GameOptions, Report or Player",
            ),
        }
    }
    Game { title, turn, briefing }
}

/// The record an import writes must read back: its blocks and check boxes
/// within what the GZF reader takes ([`gzf::MAX_BLOCKS`],
/// [`gzf::MAX_FILE_BOXES`]). The ship or group whose record goes past
/// either is an error at its element (the per-element limits alone let a
/// thousand ships of a thousand systems through, to fail the read-back).
fn within_record_limits(cx: &mut Cx, ships: &[GameShip], groups: &[GameGroup], scenario: bool) {
    // The header block, and a game's Scenario block.
    let mut blocks = 1 + usize::from(scenario);
    let mut boxes = 0;
    let ship_items = ships.iter().map(|s| {
        let ship = &s.imported.ship;
        let rounds: usize = ship
            .systems
            .iter()
            .filter_map(|x| x.rounds.as_ref())
            .map(Vec::len)
            .sum();
        // The reader counts an armour layer's `/` with the boxes.
        let slashes = ship.armour.as_ref().map_or(0, |a| a.layers().len().saturating_sub(1));
        (
            s.node,
            1 + ship.systems.len(),
            ship.hull_boxes() + ship.armour_boxes() + slashes + rounds,
        )
    });
    let group_items = groups.iter().map(|(node, g, ..)| {
        let boxes = [g.endurance.as_ref(), g.rounds.as_ref()]
            .into_iter()
            .flatten()
            .map(Vec::len)
            .sum::<usize>();
        (*node, 1, g.craft.len() + boxes)
    });
    for (node, its_blocks, its_boxes) in ship_items.chain(group_items) {
        blocks += its_blocks;
        boxes += its_boxes;
        let beyond = if blocks > gzf::MAX_BLOCKS {
            format!("{} blocks (ships and their systems)", gzf::MAX_BLOCKS)
        } else if boxes > gzf::MAX_FILE_BOXES {
            format!("{} check boxes (hull, armour and rounds)", gzf::MAX_FILE_BOXES)
        } else {
            continue;
        };
        cx.error(
            tag_span(node),
            format!("with this element the GZF record would hold more than {beyond}, the most fam reads in one file"),
            "a document whose ships fit in one GZF file (docs/limits.md): split it",
        );
        return;
    }
}

/// Fighter groups name their carrier by ship id; a carrier holds one
/// group per hangar bay.
fn dock_groups(cx: &mut Cx, ships: &[GameShip], groups: &mut [GameGroup]) {
    let mut docked: Vec<(String, usize)> = Vec::new();
    for (node, g, carrier, player) in groups {
        let mut race = ships
            .iter()
            .find(|s| s.player == Some(*player))
            .and_then(|s| s.imported.ship.fleet.clone());
        if let Some(id) = carrier {
            match ships.iter().find(|s| s.imported.xml_id == Some(*id)) {
                Some(s) => {
                    dock(cx, &mut docked, s, *node, g);
                    race = s.imported.ship.fleet.clone();
                }
                None => cx.warn(
                    tag_span(*node),
                    format!("fighter group `{}` names carrier {id}, which is no ship here", g.id),
                    "the id of a Ship of this game (the carrier is left out)",
                ),
            }
        }
        // A group's race is kept only when it is not its carrier's (or, without
        // a carrier, its player's first ship's): GZF groups have no `Fleet:`.
        if race.is_some() && g.meta.iter().find(|m| m.name == "Fleet").map(|m| m.lines.first()) == Some(race.as_ref()) {
            g.meta.retain(|m| m.name != "Fleet");
        }
    }
}

/// Gives group `g` carrier `s` when `s` has a hangar bay left (`docked`
/// counts the bays taken, by carrier name).
fn dock(cx: &mut Cx, docked: &mut Vec<(String, usize)>, s: &GameShip, node: Node, g: &mut FighterGroup) {
    let name = &s.imported.ship.name;
    let bays = s
        .imported
        .ship
        .systems
        .iter()
        .filter(|x| x.kind == model::SystemKind::HangarBay)
        .count();
    let used = match docked.iter_mut().find(|(n, _)| n == name) {
        Some((_, k)) => k,
        None => {
            docked.push((name.clone(), 0));
            &mut docked.last_mut().expect("just pushed").1
        }
    };
    if *used < bays {
        *used += 1;
        g.carrier = Some(name.clone());
    } else {
        cx.warn(
            tag_span(node),
            format!(
                "fighter group `{}` names carrier `{name}`, which has no free hangar bay ({bays} bays)",
                g.id
            ),
            "a carrier with a hangar bay for each of its groups (the carrier is left out: the group flies but cannot land)",
        );
    }
}

/// The GZF scenario record of a game: its title, turn and briefing.
fn scenario_record(game: &Game) -> model::Scenario {
    let mut meta = Vec::new();
    if !game.briefing.is_empty() {
        meta.push(Meta {
            name: "Log".into(),
            lines: game.briefing.clone(),
        });
    }
    model::Scenario {
        title: game.title.clone(),
        turn: i64::from(game.turn),
        meta,
    }
}

/// A group with no carrier flies with its player's first ship.
fn place_uncarried_groups(cx: &mut Cx, sc: &mut scenario::Scenario, ships: &[GameShip], groups: &[GameGroup]) {
    sc.groups = vec![Vec::new(); sc.formations.len()];
    for (node, g, _, player) in groups {
        if g.carrier.is_some() {
            continue;
        }
        let first = ships
            .iter()
            .filter(|s| s.player == Some(*player))
            .find_map(|s| sc.ships.iter().position(|n| *n == s.imported.ship.name));
        if let Some(f) = first {
            sc.groups[f].push(g.id.clone());
            cx.warn(
                tag_span(*node),
                format!(
                    "fighter group `{}` has no carrier: it flies with Formation `{}`",
                    g.id, sc.formations[f]
                ),
                "a carrier for the group (without one it joins its player's first ship's Formation)",
            );
        }
    }
}

fn player<'a, 'i>(
    cx: &mut Cx,
    p: Node<'a, 'i>,
    players: &mut Vec<Player>,
    ships: &mut Vec<GameShip<'a, 'i>>,
    groups: &mut Vec<GameGroup<'a, 'i>>,
) {
    cx.attributes(p, &["id", "name", "email", "team", "key"]);
    if p.has_attribute("key") {
        cx.ignore("`Player` `key` (FTJava's password)");
    }
    cx.no_text(p);
    let index = players.len();
    let id = attr_line(p, "id").unwrap_or_default();
    let mut name = attr_line(p, "name").unwrap_or_default();
    if name.is_empty() {
        name = if id.is_empty() {
            format!("Player {}", index + 1)
        } else {
            format!("Player {id}")
        };
    }
    if let Some(email) = attr_line(p, "email").filter(|e| !e.is_empty())
        && !name.contains(&email)
    {
        cx.ignore("`Player` `email`");
    }
    let team = attr_line(p, "team").filter(|t| !t.is_empty());
    let mut objectives = String::new();
    for c in elements(p) {
        match c.tag_name().name() {
            "Objectives" => {
                cx.attributes(c, &[]);
                objectives = text(c).split_whitespace().collect::<Vec<_>>().join(" ");
            }
            "Ship" => {
                if cx.room(c, "ships in a game", limits::SHIPS) {
                    ships.push(GameShip {
                        node: c,
                        imported: ship::import(cx, c, true),
                        player: Some(index),
                    });
                }
            }
            "FighterGroup" => {
                if cx.room(c, "fighter groups in a game", limits::SHIPS) {
                    let (g, carrier) = fighter_group(cx, c);
                    groups.push((c, g, carrier, index));
                }
            }
            other => cx.unmapped(
                tag_span(c),
                format!("element `{other}` in a Player"),
                "Objectives, Ship or FighterGroup",
            ),
        }
    }
    players.push(Player {
        name,
        team,
        objectives,
        span: tag_span(p),
    });
}

/// Ship names must be unique within a GZF file (readings G16): a repeated
/// name gets the first free ` 2`, ` 3` … among the names before it.
fn unique_names(cx: &mut Cx, ships: &mut [GameShip]) {
    let key = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ").to_ascii_lowercase();
    let mut taken: BTreeSet<String> = BTreeSet::new();
    // Per repeated name, the number to try next: those below it are taken
    // (and stay so), which keeps a thousand ships of one name linear.
    let mut next: BTreeMap<String, usize> = BTreeMap::new();
    for s in ships.iter_mut() {
        let name = s.imported.ship.name.clone();
        if taken.insert(key(&name)) {
            continue;
        }
        let k = next.entry(key(&name)).or_insert(2);
        while taken.contains(&key(&format!("{name} {k}"))) {
            *k += 1;
        }
        let new = format!("{name} {k}");
        cx.warn(
            s.imported.span.clone(),
            format!("a second ship named `{name}`"),
            format!("a name of its own (imported as `{new}`)"),
        );
        taken.insert(key(&new));
        s.imported.ship.name = new;
    }
}

/// A `FighterGroup` → a GZF Fighter-Group; also returns its carrier's id.
fn fighter_group(cx: &mut Cx, n: Node<'_, '_>) -> (FighterGroup, Option<i64>) {
    cx.attributes(n, &["id"]);
    cx.no_text(n);
    let mut g = FighterGroup::new(attr_line(n, "id").unwrap_or_default());
    let mut carrier = None;
    let mut count = None;
    for c in elements(n) {
        let name = c.tag_name().name();
        match name {
            "Position" => {
                cx.attributes(c, &["x", "y"]);
                ship::position(cx, c, &mut g.meta);
            }
            "Heading" => {
                cx.attributes(c, &["heading"]);
                if let Some(h) = cx.int_attr(c, "heading") {
                    if (1..=12).contains(&h) {
                        g.meta.push(Meta::new("Facing", h.to_string()));
                    } else {
                        cx.error(
                            attr_span(c, "heading"),
                            format!("heading {h}"),
                            "a clock facing from 1 to 12",
                        );
                    }
                }
            }
            "Race" => {
                cx.attributes(c, &[]);
                let t = xml::line(c);
                if !t.is_empty() {
                    g.meta.push(Meta::new("Fleet", t));
                }
            }
            "Type" => {
                cx.attributes(c, &[]);
                let t = text(c);
                let ty = match t.to_ascii_lowercase().replace(' ', "").as_str() {
                    "standard" => Some((None, FighterBase::Standard)),
                    "interceptor" => Some((None, FighterBase::Interceptor)),
                    "attack" => Some((None, FighterBase::Attack)),
                    "torpedo" => Some((None, FighterBase::Torpedo)),
                    "heavy" => Some((Some(FighterModifier::Heavy), FighterBase::Standard)),
                    "fast" => Some((Some(FighterModifier::Fast), FighterBase::Standard)),
                    "longrange" => Some((Some(FighterModifier::LongRange), FighterBase::Standard)),
                    _ => None,
                };
                match ty {
                    Some((modifier, base)) => {
                        g.fighter_type = Some(FighterType {
                            modifier,
                            base,
                            light: false,
                        })
                    }
                    None => cx.unmapped(
                        text_span(c),
                        format!("fighter type `{t}`"),
                        "Standard, Interceptor, Attack, Torpedo, Heavy, Fast or LongRange",
                    ),
                }
            }
            "Count" => {
                cx.attributes(c, &[]);
                count = Some(cx.uint_text(c, limits::CRAFT));
            }
            "Endurance" => {
                cx.attributes(c, &[]);
                if let Some(e) = cx.uint_text(c, limits::ENDURANCE) {
                    g.endurance = Some(padded(e, 6));
                }
            }
            "PilotQuality" => {
                cx.attributes(c, &[]);
                let t = text(c);
                g.pilot_quality = match t.to_ascii_lowercase().as_str() {
                    "normal" | "" => None,
                    "ace" => Some(model::PilotQuality::Ace),
                    "turkey" => Some(model::PilotQuality::Turkey),
                    _ => {
                        cx.error(text_span(c), format!("pilot quality `{t}`"), "Normal, Ace or Turkey");
                        None
                    }
                };
            }
            "Carrier" => {
                cx.attributes(c, &["id"]);
                carrier = cx.int_attr(c, "id");
            }
            "FTL" | "Robot" => cx.unmapped(tag_span(c), format!("a fighter group's `{name}`"), "no such element"),
            _ => cx.unmapped(
                tag_span(c),
                format!("element `{name}` in a FighterGroup"),
                "Position, Heading, Race, Type, Count, Endurance, PilotQuality or Carrier",
            ),
        }
    }
    match count {
        Some(Some(c)) => g.craft = padded(c, 6),
        Some(None) => {} // reported at the number
        None => cx.error(tag_span(n), "a FighterGroup without `Count`", "<Count>6</Count>"),
    }
    // A group in space has a place: its record (Position-X/-Y) needs one.
    if !elements(n).any(|c| c.tag_name().name() == "Position") {
        cx.error(
            tag_span(n),
            "a FighterGroup without `Position`",
            "<Position x=\"0.0\" y=\"0.0\"/>",
        );
    }
    (g, carrier)
}

/// `open` open boxes after enough crossed ones to make at least `min`.
fn padded(open: u32, min: u32) -> Vec<CheckBox> {
    let crossed = min.saturating_sub(open);
    (0..crossed)
        .map(|_| CheckBox::CROSSED)
        .chain((0..open).map(|_| CheckBox::OPEN))
        .collect()
}
