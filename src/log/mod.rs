//! The event log as JSON Lines: a versioned mirror of the engine's events,
//! documented in `docs/events.md`. The first line is a header; every later
//! line is one die (`"type": "roll"`) or one event, in the order they
//! happened, numbered by `seq`.
//!
//! Every kind of line is a `Serialize` struct, built from the engine's
//! payload (destructured whole, so a new field cannot be left out unseen)
//! and written by `serde_json`. A struct's fields are declared in
//! alphabetical order, `seq` and `type` among them: that is the order of
//! the keys in the line, as the document promises. The children mirror the
//! engine's event families: `maneuver` (the Maneuver step, Fire Controls),
//! `fire` (beams, grasers, EMP and needles, projectiles, templates),
//! `ordnance` (missiles, rockets), `damage` (damage and its aftermath),
//! `craft` (small craft and their dice), over `line` (what they share).

mod craft;
mod damage;
mod fire;
mod line;
mod maneuver;
mod ordnance;

use serde::Serialize;

use crate::engine::dice::{Pile, Purpose, Roll};
use crate::engine::event::{Entry, Event, Recorder};
use crate::engine::plot::{FormationId, UnitId};
use crate::engine::state::Battle;
use crate::report::Header;
use line::to_line;

/// Version of the log schema; raised whenever a field changes meaning or
/// disappears (new fields may be added without a raise).
pub const SCHEMA_VERSION: u32 = 1;

/// Renders the whole log of one Exchange.
pub fn render(header: &Header, battle: &Battle, rec: &Recorder) -> String {
    let mut out = to_line(&HeaderLine::new(header, battle));
    for (i, entry) in rec.entries.iter().enumerate() {
        let seq = i + 1;
        out.push_str(&match entry {
            Entry::Roll(r) => roll_line(r, seq),
            Entry::Event(e) => event_line(e, seq),
        });
    }
    out
}

/// One event's line, numbered `seq`, with its newline.
fn event_line(event: &Event, seq: usize) -> String {
    match event {
        Event::Maneuver(e) => maneuver::maneuver(e, seq),
        Event::Targeting(e) => maneuver::targeting(e, seq),
        Event::Beam(e) => fire::beam(e, seq),
        Event::Graser(e) => fire::graser(e, seq),
        Event::Special(e) => fire::special(e, seq),
        Event::Missile(e) => ordnance::missile(e, seq),
        Event::Rocket(e) => ordnance::rocket(e, seq),
        Event::Projectile(e) => fire::projectile(e, seq),
        Event::Template(e) => fire::template(e, seq),
        Event::Damage(e) => damage::damage(e, seq),
        Event::Aftermath(e) => damage::aftermath(e, seq),
        Event::Craft(e) => craft::craft(e, seq),
        Event::CraftDice(e) => craft::craft_dice(e, seq),
    }
}

/// Line 1: what the ids of every later line refer to.
#[derive(Serialize)]
struct HeaderLine<'a> {
    exchange: u32,
    formations: Vec<FormationEntry<'a>>,
    schema: &'static str,
    seed: u64,
    sides: Vec<&'a str>,
    title: &'a str,
    units: Vec<UnitEntry<'a>>,
    version: u32,
}

/// A Formation of the header.
#[derive(Serialize)]
struct FormationEntry<'a> {
    id: FormationId,
    name: &'a str,
    side: usize,
    units: &'a [UnitId],
}

/// A Unit of the header; a system id is its index in `systems`.
#[derive(Serialize)]
struct UnitEntry<'a> {
    formation: FormationId,
    id: UnitId,
    name: &'a str,
    systems: Vec<String>,
}

impl<'a> HeaderLine<'a> {
    fn new(header: &'a Header, battle: &'a Battle) -> HeaderLine<'a> {
        HeaderLine {
            exchange: header.exchange,
            formations: battle
                .formations
                .iter()
                .enumerate()
                .map(|(id, f)| FormationEntry {
                    id,
                    name: &f.name,
                    side: f.side,
                    units: &f.units,
                })
                .collect(),
            schema: "fam-events",
            seed: header.seed,
            sides: battle.sides.iter().map(|s| s.name.as_str()).collect(),
            title: &header.title,
            units: battle
                .units
                .iter()
                .enumerate()
                .map(|(id, u)| UnitEntry {
                    formation: u.formation,
                    id,
                    name: &u.name,
                    systems: u.systems.iter().map(|s| s.kind.name(u.profile)).collect(),
                })
                .collect(),
            version: SCHEMA_VERSION,
        }
    }
}

/// One die.
#[derive(Serialize)]
struct RollLine {
    die: &'static str,
    face: u8,
    pile: &'static str,
    purpose: &'static str,
    seq: usize,
    r#type: &'static str,
}

fn roll_line(r: &Roll, seq: usize) -> String {
    let Roll { purpose, pile, face } = *r;
    to_line(&RollLine {
        die: if purpose == Purpose::Targeting { "d100" } else { "d6" },
        face,
        pile: match pile {
            Pile::Initial => "initial",
            Pile::Reroll => "reroll",
            Pile::EvasionReroll => "evasion_reroll",
        },
        purpose: purpose_key(purpose),
        seq,
        r#type: "roll",
    })
}

fn purpose_key(p: Purpose) -> &'static str {
    match p {
        Purpose::Speed => "speed",
        Purpose::Evasion => "evasion",
        Purpose::Targeting => "targeting",
        Purpose::Beam => "beam",
        Purpose::ToHit => "to_hit",
        Purpose::PointDefence => "point_defence",
        Purpose::Damage => "damage",
        Purpose::MissilesOnTarget => "missiles_on_target",
        Purpose::Threshold => "threshold",
        Purpose::DamageControl => "damage_control",
        Purpose::Reflex => "reflex",
    }
}
