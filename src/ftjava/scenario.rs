//! A `GameEngine` game → a fam scenario: players into sides, each ship a
//! Formation of its own, ranges from the ships' positions, and the
//! `FM.Orders` of each ship (`FM.VolleyOrders`: speed, evasion, maneuvers,
//! fire by Fire Control, point defence) into its Formation's plot.
//!
//! The orders of the example games were written for an unfinished tool and
//! do not always fit their ships; whatever has to be repaired or defaulted
//! to give a plot that fam accepts is said in a warning at the element
//! concerned (readings I17-I27 list the rules).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::ops::Range;

use roxmltree::Node;

use super::limits::{self, exact_whole, widen};
use super::ship::IdTarget;
use super::xml::{Cx, attr_span, elements, tag_span, text_span};
use super::{GameShip, Player};
use crate::engine::plot::Maneuver;
use crate::model::{Activity, DamageState, Ship, SystemKind};
use crate::orders::toml_out::{self, TomlOut, by_maneuver, key, maneuver, numbers, quote};

/// A side: its commander's name, its Formations and what the file says
/// about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side {
    pub name: String,
    pub formations: Vec<usize>,
    pub notes: Vec<String>,
}

/// One Volley of a Formation's plot, with system indices (0-based).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Volley {
    pub speed: u32,
    pub evasion: u32,
    pub primary: Option<(Maneuver, usize)>,
    pub secondary: Vec<(Maneuver, usize)>,
    pub fire: Vec<Fire>,
    pub pd: Vec<usize>,
}

/// One Fire Control's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fire {
    pub fc: usize,
    pub target: usize,
    pub weapons: Vec<usize>,
}

/// The imported scenario (written by [`Scenario::to_toml`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scenario {
    pub title: String,
    pub exchange: u32,
    pub seed: u64,
    pub briefing: Vec<String>,
    pub sides: Vec<Side>,
    /// Formation names; Formation i holds ship `ships[i]`.
    pub formations: Vec<String>,
    pub ships: Vec<String>,
    /// Fighter groups with no carrier listed in Formation i (after its ship).
    pub groups: Vec<Vec<String>>,
    /// Pairs with a known range (others start at 60 MU).
    pub ranges: Vec<(usize, usize, u32)>,
    /// Each Formation's three Volleys, when its ship has `FM.Orders`.
    pub plots: Vec<Option<[Volley; 3]>>,
}

/// Names a Formation cannot have (readings O11, D16).
const RESERVED: &[&str] = &["inactive", "auto", "nearest", "largest", "weakest", "most_dangerous"];

/// The seed the import writes: FTJava keeps none.
pub const SEED: u64 = 1;

/// Players of a game, gathered into sides: the side of each player (`None`
/// for one with no ship) and each side's team and players.
struct Sides {
    side_of: Vec<Option<usize>>,
    sides: Vec<(Option<String>, Vec<usize>)>,
}

/// Builds the scenario of a game with two or more sides; `None` otherwise.
pub(crate) fn build(
    cx: &mut Cx,
    ships: &[GameShip],
    players: &[Player],
    title: &str,
    turn: u32,
    briefing: &[String],
) -> Option<Scenario> {
    let Sides { side_of, sides } = sides(ships, players);
    if sides.len() < 2 {
        return None;
    }
    let mut out = Scenario {
        title: if title.is_empty() {
            "Imported game".into()
        } else {
            title.to_string()
        },
        exchange: turn.max(1),
        seed: SEED,
        briefing: Vec::new(),
        sides: Vec::new(),
        formations: Vec::new(),
        ships: Vec::new(),
        groups: Vec::new(),
        ranges: Vec::new(),
        plots: Vec::new(),
    };
    out.sides = name_sides(cx, players, &sides);
    let formation_of = formations(cx, ships, &side_of, &mut out);
    out.briefing = briefing.to_vec();
    ranges(cx, ships, &formation_of, &mut out);
    plots(cx, ships, &formation_of, &mut out);
    Some(out)
}

/// Sides: players of one team fight together; players with no ship do
/// not fight.
fn sides(ships: &[GameShip], players: &[Player]) -> Sides {
    let mut side_of: Vec<Option<usize>> = vec![None; players.len()];
    let mut sides: Vec<(Option<String>, Vec<usize>)> = Vec::new();
    for (p, player) in players.iter().enumerate() {
        if !ships.iter().any(|s| s.player == Some(p)) {
            continue;
        }
        let found = player
            .team
            .as_ref()
            .and_then(|t| sides.iter().position(|(team, _)| team.as_ref() == Some(t)));
        match found {
            Some(s) => {
                sides[s].1.push(p);
                side_of[p] = Some(s);
            }
            None => {
                side_of[p] = Some(sides.len());
                sides.push((player.team.clone(), vec![p]));
            }
        }
    }
    Sides { side_of, sides }
}

/// Each side named after its lone player or its team (a second side of
/// one name numbered), with its players and their objectives as notes.
fn name_sides(cx: &mut Cx, players: &[Player], sides: &[(Option<String>, Vec<usize>)]) -> Vec<Side> {
    let mut out = Vec::new();
    let mut names: Vec<String> = Vec::new();
    for (team, members) in sides {
        let base = match (members.len(), team) {
            (1, _) | (_, None) => players[members[0]].name.clone(),
            (_, Some(t)) => t.clone(),
        };
        let mut name = base.clone();
        let mut k = 2;
        while names.contains(&name) {
            name = format!("{base} {k}");
            k += 1;
        }
        if name != base {
            cx.warn(
                players[members[0]].span.clone(),
                format!("a second side named `{base}`"),
                format!("commanders with names of their own (this one is `{name}`)"),
            );
        }
        names.push(name.clone());
        let mut notes = Vec::new();
        for &p in members {
            let pl = &players[p];
            let mut line = format!("Player: {}", pl.name);
            if let Some(t) = &pl.team {
                let _ = write!(line, " (team {t})");
            }
            notes.push(line);
            if !pl.objectives.is_empty() {
                notes.push(format!("Objectives: {}", pl.objectives));
            }
        }
        out.push(Side {
            name,
            formations: Vec::new(),
            notes,
        });
    }
    out
}

/// One Formation per ship of a side, named after it (renamed when its
/// name is reserved); returns each ship's Formation.
fn formations(cx: &mut Cx, ships: &[GameShip], side_of: &[Option<usize>], out: &mut Scenario) -> Vec<Option<usize>> {
    let mut formation_of: Vec<Option<usize>> = vec![None; ships.len()];
    for (i, s) in ships.iter().enumerate() {
        let Some(side) = s.player.and_then(|p| side_of[p]) else {
            continue;
        };
        let ship_name = s.imported.ship.name.clone();
        let mut name = ship_name.clone();
        if RESERVED.iter().any(|r| r.eq_ignore_ascii_case(&name)) || name.is_empty() {
            name = format!("{ship_name} Formation").trim().to_string();
            cx.warn(
                s.imported.span.clone(),
                format!("`{ship_name}` cannot name a Formation"),
                format!("a name fam does not reserve (its Formation is `{name}`)"),
            );
        }
        formation_of[i] = Some(out.formations.len());
        out.sides[side].formations.push(out.formations.len());
        out.formations.push(name);
        out.ships.push(ship_name);
    }
    formation_of
}

/// Each Formation's plot from its ship's `FM.Orders`; a ship in the fight
/// without them is warned of.
fn plots(cx: &mut Cx, ships: &[GameShip], formation_of: &[Option<usize>], out: &mut Scenario) {
    out.plots = vec![None; out.formations.len()];
    for (i, s) in ships.iter().enumerate() {
        let Some(f) = formation_of[i] else { continue };
        if let Some(orders) = elements(s.node).find(|c| c.tag_name().name() == "FM.Orders") {
            out.plots[f] = plot(cx, orders, i, ships, formation_of);
        }
    }
    for (i, s) in ships.iter().enumerate() {
        if formation_of[i].is_some_and(|f| out.plots[f].is_none())
            && in_fight(&s.imported.ship)
            && !elements(s.node).any(|c| c.tag_name().name() == "FM.Orders")
        {
            cx.warn(
                s.imported.span.clone(),
                format!("ship `{}` has no FM.Orders", s.imported.ship.name),
                "FM.Orders (its Formation has no plot: standing orders or fam's no-plot rule apply, docs/orders.md)",
            );
        }
    }
}

fn in_fight(ship: &Ship) -> bool {
    ship.status.damage != Some(DamageState::Destroyed)
        && !ship.status.lifeless
        && ship.status.activity != Some(Activity::Inactive)
        && ship.hull_remaining() > 0
}

/// Ranges between Formations from the ships' `Position`s (MU, rounded half up).
fn ranges(cx: &mut Cx, ships: &[GameShip], formation_of: &[Option<usize>], out: &mut Scenario) {
    let position = |s: &Ship| -> Option<(f64, f64)> {
        let get = |n: &str| s.meta.iter().find(|m| m.name == n)?.lines.first()?.parse::<f64>().ok();
        Some((get("Position-X")?, get("Position-Y")?))
    };
    // Formation, position and the ship's span, of each placed ship.
    let placed: Vec<(usize, (f64, f64), Range<usize>)> = ships
        .iter()
        .enumerate()
        .filter_map(|(i, s)| Some((formation_of[i]?, position(&s.imported.ship)?, s.imported.span.clone())))
        .collect();
    for (i, s) in ships.iter().enumerate() {
        if formation_of[i].is_some() && position(&s.imported.ship).is_none() {
            cx.warn(
                s.imported.span.clone(),
                format!("ship `{}` has no Position", s.imported.ship.name),
                "a Position (its ranges start at 60 MU, F&M's default)",
            );
        }
    }
    for (a, (x1, y1), _) in &placed {
        for (b, (x2, y2), span) in &placed {
            if a >= b {
                continue;
            }
            let d = ((x1 - x2).powi(2) + (y1 - y2).powi(2)).sqrt();
            match range_mu(d) {
                Some(mu) => out.ranges.push((*a, *b, mu)),
                // Positions within the limits keep every range in a u32.
                None => cx.error(
                    span.clone(),
                    format!("a range of {d} MU"),
                    "ships within the position limits (docs/import.md, Limits)",
                ),
            }
        }
    }
}

/// A distance as whole MU, rounded half up (`None` beyond a `u32`).
fn range_mu(d: f64) -> Option<u32> {
    exact_whole((d + 0.5).floor()).and_then(|mu| u32::try_from(mu).ok())
}

/// Orders as read, before they are fitted to the ship.
#[derive(Clone)]
struct RawVolley {
    span: Range<usize>,
    speed: Option<(u32, Range<usize>)>,
    evasion: Option<(u32, Range<usize>)>,
    maneuvers: Vec<RawManeuver>,
    fires: Vec<RawFire>,
}

#[derive(Clone)]
struct RawManeuver {
    word: Maneuver,
    target: i64,
    primary: Option<bool>,
    span: Range<usize>,
}

#[derive(Clone)]
enum RawTarget {
    Pd,
    Ship(i64),
}

#[derive(Clone)]
struct RawFire {
    fc: Option<(i64, Range<usize>)>,
    target: RawTarget,
    target_span: Range<usize>,
    weapons: Option<Vec<i64>>,
    weapons_span: Range<usize>,
    span: Range<usize>,
}

fn read_volley(cx: &mut Cx, v: Node<'_, '_>) -> RawVolley {
    let mut out = RawVolley {
        span: tag_span(v),
        speed: None,
        evasion: None,
        maneuvers: Vec::new(),
        fires: Vec::new(),
    };
    let mut maneuvers_seen = 0usize;
    let mut fires_seen = 0usize;
    for c in elements(v) {
        match c.tag_name().name() {
            "FM.Speed" => {
                cx.attributes(c, &[]);
                out.speed = cx.uint_text(c, 0..=limits::THRUST).map(|n| (n, text_span(c)));
            }
            "FM.Evasion" => {
                cx.attributes(c, &[]);
                out.evasion = cx.uint_text(c, 0..=limits::THRUST).map(|n| (n, text_span(c)));
            }
            "FM.ManeuveringOrders" => {
                cx.attributes(c, &[]);
                for m in elements(c) {
                    if m.tag_name().name() != "FM.Maneuver" {
                        cx.unmapped(
                            tag_span(m),
                            format!("element `{}` in FM.ManeuveringOrders", m.tag_name().name()),
                            "FM.Maneuver",
                        );
                        continue;
                    }
                    if !cx.counted(m, &mut maneuvers_seen, limits::SHIPS, "maneuvers in a Volley") {
                        continue;
                    }
                    cx.attributes(m, &["type", "target", "priority"]);
                    let word = match m.attribute("type").map(|t| t.trim().to_ascii_lowercase()) {
                        Some(t) if t == "close" => Some(Maneuver::Close),
                        Some(t) if t == "maintain" => Some(Maneuver::Maintain),
                        Some(t) if t == "withdraw" => Some(Maneuver::Withdraw),
                        _ => {
                            cx.error(
                                attr_span(m, "type"),
                                "a maneuver F&M does not have",
                                "type=\"Close\", \"Maintain\" or \"Withdraw\"",
                            );
                            None
                        }
                    };
                    let target = cx.int_attr(m, "target");
                    if m.attribute("target").is_none() {
                        cx.error(tag_span(m), "a maneuver without `target`", "target=\"SHIP ID\"");
                    }
                    let primary = priority(cx, m);
                    if let (Some(word), Some(target)) = (word, target) {
                        out.maneuvers.push(RawManeuver {
                            word,
                            target,
                            primary,
                            span: tag_span(m),
                        });
                    }
                }
            }
            "FM.FiringOrders" => {
                cx.attributes(c, &[]);
                for f in elements(c) {
                    if f.tag_name().name() != "FM.Fire" {
                        cx.unmapped(
                            tag_span(f),
                            format!("element `{}` in FM.FiringOrders", f.tag_name().name()),
                            "FM.Fire",
                        );
                        continue;
                    }
                    if !cx.counted(f, &mut fires_seen, limits::SYSTEMS, "fire orders in a Volley") {
                        continue;
                    }
                    cx.attributes(f, &["fireConID", "target", "priority", "weaponIDs"]);
                    if f.has_attribute("priority") {
                        cx.ignore("`FM.Fire` `priority` (each Fire Control has one target in F&M)");
                    }
                    let target = match f.attribute("target").map(str::trim) {
                        Some(t) if t.eq_ignore_ascii_case("PD") => Some(RawTarget::Pd),
                        Some(_) => cx.int_attr(f, "target").map(RawTarget::Ship),
                        None => {
                            cx.error(
                                tag_span(f),
                                "a fire order without `target`",
                                "target=\"SHIP ID\" or \"PD\"",
                            );
                            None
                        }
                    };
                    let fc = cx.int_attr(f, "fireConID").map(|n| (n, attr_span(f, "fireConID")));
                    let weapons = weapon_ids(cx, f);
                    if let Some(target) = target {
                        out.fires.push(RawFire {
                            fc,
                            target,
                            target_span: attr_span(f, "target"),
                            weapons,
                            weapons_span: attr_span(f, "weaponIDs"),
                            span: tag_span(f),
                        });
                    }
                }
            }
            other => cx.unmapped(
                tag_span(c),
                format!("element `{other}` in FM.VolleyOrders"),
                "FM.Speed, FM.Evasion, FM.ManeuveringOrders or FM.FiringOrders",
            ),
        }
    }
    out
}

/// An `FM.Fire`'s `weaponIDs` (`None` when absent or empty); at most
/// [`limits::SYSTEMS`] ids.
fn weapon_ids(cx: &mut Cx, f: Node<'_, '_>) -> Option<Vec<i64>> {
    let list = f.attribute("weaponIDs")?;
    let span = attr_span(f, "weaponIDs");
    let mut ids = Vec::new();
    for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if ids.len() == limits::SYSTEMS {
            cx.error(
                span,
                format!("more than {} weapon ids", limits::SYSTEMS),
                format!(
                    "at most {} ids, one per system (docs/import.md, Limits)",
                    limits::SYSTEMS
                ),
            );
            return None;
        }
        if let Some(n) = cx.int_value(part, span.clone(), "a weapon id") {
            ids.push(n);
        }
    }
    (!ids.is_empty()).then_some(ids)
}

fn priority(cx: &mut Cx, n: Node<'_, '_>) -> Option<bool> {
    match n.attribute("priority").map(|p| p.trim().to_ascii_lowercase()) {
        None => None,
        Some(p) if p == "primary" => Some(true),
        Some(p) if p == "secondary" => Some(false),
        Some(p) => {
            cx.error(
                attr_span(n, "priority"),
                format!("priority `{p}`"),
                "priority=\"primary\" or \"secondary\"",
            );
            None
        }
    }
}

/// A ship's plot from its `FM.Orders`.
fn plot(
    cx: &mut Cx,
    orders: Node<'_, '_>,
    me: usize,
    ships: &[GameShip],
    formation_of: &[Option<usize>],
) -> Option<[Volley; 3]> {
    cx.attributes(orders, &[]);
    cx.no_text(orders);
    let ship = &ships[me].imported.ship;
    let mut raw: [Option<RawVolley>; 3] = [None, None, None];
    for v in elements(orders) {
        if v.tag_name().name() != "FM.VolleyOrders" {
            cx.unmapped(
                tag_span(v),
                format!("element `{}` in FM.Orders", v.tag_name().name()),
                "FM.VolleyOrders",
            );
            continue;
        }
        cx.attributes(v, &["volley"]);
        let Some(n) = volley_number(cx, v) else { continue };
        let r = read_volley(cx, v);
        if raw[n - 1].is_some() {
            cx.warn(
                tag_span(v),
                format!("a second set of orders for Volley {n}"),
                "one FM.VolleyOrders per Volley (this one is left out)",
            );
            continue;
        }
        raw[n - 1] = Some(r);
    }
    if raw.iter().all(Option::is_none) {
        cx.warn(
            tag_span(orders),
            format!("FM.Orders of `{}` hold no Volley", ship.name),
            "FM.VolleyOrders volley=\"1\" to \"3\" (no plot)",
        );
        return None;
    }
    if !in_fight(ship) {
        cx.warn(
            tag_span(orders),
            format!("`{}` is out of the fight: its FM.Orders are left out", ship.name),
            "orders for ships still in the fight",
        );
        return None;
    }
    // Missing Volleys repeat the one before (or, for Volley 1, the first given).
    for v in 0..3 {
        if raw[v].is_some() {
            continue;
        }
        let from = (0..v)
            .rev()
            .find(|&u| raw[u].is_some())
            .or_else(|| (v + 1..3).find(|&u| raw[u].is_some()));
        if let Some(u) = from {
            cx.warn(
                tag_span(orders),
                format!("FM.Orders of `{}` give no Volley {}", ship.name, v + 1),
                format!("orders for all three Volleys (Volley {}'s are repeated)", u + 1),
            );
            raw[v] = raw[u].clone();
        }
    }
    let mut fitter = Fitter {
        me,
        ships,
        formation_of,
        fired: Vec::new(),
        draws: BTreeMap::new(),
    };
    let volleys: Vec<Volley> = raw
        .iter()
        .enumerate()
        .map(|(v, r)| fitter.volley(cx, v, r.as_ref().expect("every Volley filled")))
        .collect();
    volleys.try_into().ok()
}

/// An `FM.VolleyOrders`' Volley, 1 to 3 (`None`, with an error, otherwise).
fn volley_number(cx: &mut Cx, v: Node<'_, '_>) -> Option<usize> {
    if !v.has_attribute("volley") {
        cx.error(
            tag_span(v),
            "FM.VolleyOrders without `volley`",
            "volley=\"1\", \"2\" or \"3\"",
        );
        return None;
    }
    let n = cx.int_attr(v, "volley")?;
    match usize::try_from(n) {
        Ok(k @ 1..=3) => Some(k),
        _ => {
            cx.error(
                attr_span(v, "volley"),
                format!("Volley {n}"),
                "volley=\"1\", \"2\" or \"3\"",
            );
            None
        }
    }
}

/// Fits orders to the ship Volley by Volley, remembering spent one-shots
/// and magazine loads.
struct Fitter<'s, 'a, 'i> {
    me: usize,
    ships: &'s [GameShip<'a, 'i>],
    formation_of: &'s [Option<usize>],
    fired: Vec<usize>,
    draws: BTreeMap<String, usize>,
}

impl Fitter<'_, '_, '_> {
    fn ship(&self) -> &Ship {
        &self.ships[self.me].imported.ship
    }

    /// The Formation of the ship with this FTJava id.
    fn formation(&self, id: i64) -> Option<(usize, &Ship)> {
        let i = self.ships.iter().position(|s| s.imported.xml_id == Some(id))?;
        Some((self.formation_of[i]?, &self.ships[i].imported.ship))
    }

    /// What an FTJava system id names on this ship (`None`: nothing or ambiguous).
    fn system(&self, id: i64) -> Result<IdTarget, String> {
        let found: Vec<IdTarget> = self.ships[self.me]
            .imported
            .ids
            .iter()
            .filter(|(i, ..)| *i == id)
            .map(|(_, t, _)| *t)
            .collect();
        match found.as_slice() {
            [] => Err(format!("`{}` has no system with id {id}", self.ship().name)),
            [t] => Ok(*t),
            _ => Err(format!(
                "`{}` has {} systems with id {id}",
                self.ship().name,
                found.len()
            )),
        }
    }

    fn label(&self, s: usize) -> String {
        format!(
            "system {} ({})",
            s + 1,
            self.ship().systems[s].kind.name(crate::model::Profile::Fb1)
        )
    }

    fn volley(&mut self, cx: &mut Cx, v: usize, raw: &RawVolley) -> Volley {
        let name = self.ship().name.clone();
        let thrust = self.ship().thrust;
        let mut out = Volley::default();
        // Speed and Evasion add up to the thrust; Evasion at most half (all
        // of it with an advanced drive: one ship is one Formation, I13).
        let max_e = if self.ship().advanced_drive { thrust } else { thrust / 2 };
        let mut speed = raw.speed.as_ref().map(|s| s.0);
        let mut evasion = raw.evasion.as_ref().map(|e| e.0);
        let span = |o: &Option<(u32, Range<usize>)>| o.as_ref().map_or(raw.span.clone(), |x| x.1.clone());
        if speed.is_none() && evasion.is_none() {
            cx.warn(
                raw.span.clone(),
                format!("no FM.Speed or FM.Evasion for `{name}` in Volley {}", v + 1),
                format!("Speed + Evasion = thrust {thrust} (all of it put into Speed)"),
            );
            speed = Some(thrust);
            evasion = Some(0);
        }
        let mut e = evasion.unwrap_or_else(|| thrust.saturating_sub(speed.unwrap_or(0)));
        if e > max_e {
            cx.warn(
                span(&raw.evasion),
                format!("Evasion {e} for `{name}` (thrust {thrust}) in Volley {}", v + 1),
                format!("Evasion at most {max_e} (cut to {max_e})"),
            );
            e = max_e;
        }
        let s = thrust - e;
        if let Some(given) = speed
            && given != s
        {
            cx.warn(
                span(&raw.speed),
                format!("Speed {given} + Evasion {e} for `{name}` in Volley {}", v + 1),
                format!("Speed + Evasion = thrust {thrust} (Speed set to {s})"),
            );
        }
        out.speed = s;
        out.evasion = e;
        self.maneuvers(cx, raw, &mut out);
        self.fire(cx, v, raw, &mut out);
        out
    }

    fn maneuvers(&self, cx: &mut Cx, raw: &RawVolley, out: &mut Volley) {
        let mine = self.formation_of[self.me].expect("a plotted ship has a Formation");
        let mut taken: Vec<usize> = Vec::new();
        let mut list: Vec<(Maneuver, usize, bool, Range<usize>)> = Vec::new();
        for m in &raw.maneuvers {
            let Some((f, target)) = self.formation(m.target) else {
                cx.warn(
                    attr_span_of(m),
                    format!("maneuver target {} is no ship of this game", m.target),
                    "the id of a Ship (the maneuver is left out)",
                );
                continue;
            };
            if f == mine {
                cx.warn(
                    m.span.clone(),
                    format!("`{}` maneuvers against itself", target.name),
                    "another ship (left out)",
                );
                continue;
            }
            if taken.contains(&f) {
                cx.warn(
                    m.span.clone(),
                    format!("a second maneuver against `{}`", target.name),
                    "one maneuver per target (left out)",
                );
                continue;
            }
            taken.push(f);
            list.push((m.word, f, m.primary.unwrap_or(false), m.span.clone()));
        }
        // One primary: the first marked so, else the first maneuver.
        let primary_at = list
            .iter()
            .position(|m| m.2)
            .or(if list.is_empty() { None } else { Some(0) });
        if let Some(p) = primary_at {
            if !list[p].2 {
                cx.warn(
                    list[p].3.clone(),
                    "no primary maneuver",
                    "priority=\"primary\" on one maneuver (this one is taken)",
                );
            }
            for (i, m) in list.iter().enumerate() {
                if i != p && m.2 {
                    cx.warn(
                        m.3.clone(),
                        "a second primary maneuver",
                        "one primary maneuver (this one is read as secondary)",
                    );
                }
            }
            let (word, f, ..) = list[p];
            out.primary = Some((word, f));
            let mut direction = match word {
                Maneuver::Maintain => None,
                w => Some(w),
            };
            for (i, m) in list.iter().enumerate() {
                if i == p {
                    continue;
                }
                let conflicts = matches!(
                    (direction, m.0),
                    (Some(Maneuver::Close), Maneuver::Withdraw) | (Some(Maneuver::Withdraw), Maneuver::Close)
                );
                if conflicts {
                    cx.warn(
                        m.3.clone(),
                        "Close and Withdraw in one Volley",
                        "not both in one Volley (F&M; this maneuver is left out)",
                    );
                    continue;
                }
                if m.0 != Maneuver::Maintain {
                    direction = Some(m.0);
                }
                out.secondary.push((m.0, m.1));
            }
        }
    }

    fn fire(&mut self, cx: &mut Cx, v: usize, raw: &RawVolley, out: &mut Volley) {
        let ship = self.ship().clone();
        let mine = self.formation_of[self.me].expect("a plotted ship has a Formation");
        let mut assigned: Vec<usize> = Vec::new();
        let mut used_fc: Vec<usize> = Vec::new();
        let mut defaults: Vec<(usize, usize, Range<usize>)> = Vec::new();
        for f in &raw.fires {
            let t = match f.target {
                RawTarget::Pd => {
                    self.pd_order(cx, &ship, f, &mut assigned, out);
                    continue;
                }
                RawTarget::Ship(t) => t,
            };
            let Some(target) = self.fire_target(cx, &ship, mine, f, t) else {
                continue;
            };
            let Some(fc) = self.fire_control(cx, v, &ship, f, &used_fc) else {
                continue;
            };
            used_fc.push(fc);
            let Some(ids) = &f.weapons else {
                defaults.push((fc, target, f.span.clone()));
                continue;
            };
            let weapons = self.listed_weapons(cx, v, &ship, f, ids, &mut assigned);
            if weapons.is_empty() {
                cx.warn(
                    f.span.clone(),
                    format!(
                        "nothing left for this Fire Control of `{}` to fire in Volley {}",
                        ship.name,
                        v + 1
                    ),
                    "at least one weapon (the order is left out)",
                );
                used_fc.pop();
                continue;
            }
            out.fire.push(Fire { fc, target, weapons });
        }
        self.default_orders(cx, v, &ship, defaults, &mut assigned, out);
    }

    /// An order for point defence: each weapon listed that can defend and
    /// is not yet assigned.
    fn pd_order(&self, cx: &mut Cx, ship: &Ship, f: &RawFire, assigned: &mut Vec<usize>, out: &mut Volley) {
        for &id in f.weapons.iter().flatten() {
            match self.system(id) {
                Ok(IdTarget::System(s))
                    if ship.systems[s].kind.may_point_defend()
                        && ship.systems[s].status.damage != Some(DamageState::Destroyed)
                        && !assigned.contains(&s) =>
                {
                    assigned.push(s);
                    out.pd.push(s);
                }
                Ok(IdTarget::System(s)) => cx.warn(
                    f.weapons_span.clone(),
                    format!("PD weapon id {id} of `{}` is {}", ship.name, self.label(s)),
                    "a weapon that may defend (PDS, ADAF, scattergun, class-1 beam or EMP projector, PD-capable beam family) not destroyed and not yet assigned in this Volley (left out)",
                ),
                Ok(_) => cx.warn(
                    f.weapons_span.clone(),
                    format!("PD weapon id {id} of `{}` is no weapon", ship.name),
                    "a PDS or class-1 beam (left out)",
                ),
                Err(why) => cx.warn(f.weapons_span.clone(), why, "a weapon id of this ship (left out)"),
            }
        }
    }

    /// The Formation a fire order's target ship `t` is in; `None` (with a
    /// warning) for no ship, the firer itself or a ship out of the fight.
    fn fire_target(&self, cx: &mut Cx, ship: &Ship, mine: usize, f: &RawFire, t: i64) -> Option<usize> {
        let Some((target, target_ship)) = self.formation(t) else {
            cx.warn(
                f.target_span.clone(),
                format!("fire target {t} is no ship of this game"),
                "the id of a Ship (the order is left out)",
            );
            return None;
        };
        if target == mine {
            cx.warn(
                f.target_span.clone(),
                format!("`{}` fires at itself", ship.name),
                "another ship (left out)",
            );
            return None;
        }
        if !in_fight(target_ship) {
            cx.warn(
                f.target_span.clone(),
                format!("fire target `{}` is out of the fight", target_ship.name),
                "a ship still in the fight (left out)",
            );
            return None;
        }
        Some(target)
    }

    /// The Fire Control of an order: the one named, else the first free
    /// one (with a warning saying why); `None` when none is free.
    fn fire_control(&self, cx: &mut Cx, v: usize, ship: &Ship, f: &RawFire, used_fc: &[usize]) -> Option<usize> {
        let working_fc = |s: usize| {
            let sys = &ship.systems[s];
            sys.kind == SystemKind::FireControl && sys.status.operational()
        };
        let named = f.fc.as_ref().map(|(id, _)| self.system(*id));
        let other = match named {
            Some(Ok(IdTarget::System(s))) if working_fc(s) && !used_fc.contains(&s) => return Some(s),
            other => other,
        };
        let free = (0..ship.systems.len()).find(|&s| working_fc(s) && !used_fc.contains(&s));
        let what = match other {
            None => "no fireConID".to_string(),
            Some(Err(why)) => why,
            Some(Ok(IdTarget::System(s))) if working_fc(s) => {
                format!("{} already has an order in this Volley", self.label(s))
            }
            Some(Ok(IdTarget::System(s))) => {
                format!("fireConID names {}, not a working Fire Control", self.label(s))
            }
            Some(Ok(IdTarget::Drive)) => "fireConID names the main drive".to_string(),
            Some(Ok(IdTarget::Other)) => "fireConID names no system".to_string(),
        };
        let span = f.fc.as_ref().map_or(f.span.clone(), |x| x.1.clone());
        match free {
            Some(s) => cx.warn(
                span,
                format!("{what} (`{}`, Volley {})", ship.name, v + 1),
                format!("a working Fire Control of the ship (using {})", self.label(s)),
            ),
            None => cx.warn(
                span,
                format!("{what} (`{}`, Volley {})", ship.name, v + 1),
                "a working Fire Control, and the ship has none free (the order is left out)",
            ),
        }
        free
    }

    /// The weapons of an order's weaponIDs that can fire now, each spent
    /// and assigned; the others left out with a warning.
    fn listed_weapons(
        &mut self,
        cx: &mut Cx,
        v: usize,
        ship: &Ship,
        f: &RawFire,
        ids: &[i64],
        assigned: &mut Vec<usize>,
    ) -> Vec<usize> {
        let mut weapons = Vec::new();
        for &id in ids {
            match self.system(id) {
                Ok(IdTarget::System(s)) => match self.can_fire(s, assigned) {
                    Ok(()) => {
                        self.spend(s);
                        assigned.push(s);
                        weapons.push(s);
                    }
                    Err(why) => cx.warn(
                        f.weapons_span.clone(),
                        format!("weapon id {id} of `{}`: {} {why}", ship.name, self.label(s)),
                        format!("a weapon that can fire in Volley {} (left out)", v + 1),
                    ),
                },
                Ok(_) => cx.warn(
                    f.weapons_span.clone(),
                    format!("weapon id {id} of `{}` is no weapon", ship.name),
                    "a weapon id (left out)",
                ),
                Err(why) => cx.warn(f.weapons_span.clone(), why, "a weapon id of this ship (left out)"),
            }
        }
        weapons
    }

    /// Orders without weaponIDs take every weapon nothing else took
    /// (one such order per Volley, as fam's default "all").
    fn default_orders(
        &mut self,
        cx: &mut Cx,
        v: usize,
        ship: &Ship,
        defaults: Vec<(usize, usize, Range<usize>)>,
        assigned: &mut Vec<usize>,
        out: &mut Volley,
    ) {
        for (k, (fc, target, span)) in defaults.into_iter().enumerate() {
            if k > 0 {
                cx.warn(
                    span,
                    "a second fire order without weaponIDs",
                    "weaponIDs on all but one order (left out)",
                );
                continue;
            }
            let mut weapons = Vec::new();
            for s in 0..ship.systems.len() {
                if ship.systems[s].kind != SystemKind::Pds && self.can_fire(s, assigned).is_ok() {
                    self.spend(s);
                    assigned.push(s);
                    weapons.push(s);
                }
            }
            if weapons.is_empty() {
                cx.warn(
                    span,
                    format!("`{}` has nothing left to fire in Volley {}", ship.name, v + 1),
                    "weapons (the order is left out)",
                );
                continue;
            }
            out.fire.push(Fire { fc, target, weapons });
        }
    }

    /// Whether a weapon may be fired now; why not otherwise.
    fn can_fire(&self, s: usize, assigned: &[usize]) -> Result<(), String> {
        let sys = &self.ship().systems[s];
        if !sys.kind.fm_fire() {
            return Err(if sys.kind == SystemKind::NeedleBeam {
                "needs a system to aim at, which FM.Fire does not give".into()
            } else if sys.kind.is_weapon() {
                "cannot fire at ships in fam".into()
            } else {
                "is not a weapon".into()
            });
        }
        if assigned.contains(&s) {
            return Err("is already assigned in this Volley".into());
        }
        if sys.status.damage == Some(DamageState::Destroyed) {
            return Err("is destroyed".into());
        }
        if sys.kind.is_one_shot() {
            if self.fired.contains(&s) {
                return Err("is a one-shot that has already fired".into());
            }
            if sys.rounds.as_ref().is_some_and(|r| r.iter().all(|b| b.crossed)) {
                return Err("is spent".into());
            }
        }
        if sys.kind == SystemKind::Sml {
            let id = sys.magazine.clone().unwrap_or_default();
            let loads = self
                .ship()
                .systems
                .iter()
                .find(|m| m.kind == SystemKind::Smm && m.magazine.as_deref() == Some(id.as_str()))
                .filter(|m| m.status.damage.is_none() || m.status.damage == Some(DamageState::Repaired))
                .map_or(0, |m| match &m.rounds {
                    Some(r) => r.iter().filter(|b| !b.crossed).count(),
                    None => m.capacity.map_or(0, widen),
                });
            if self.draws.get(&id).copied().unwrap_or(0) >= loads {
                return Err(format!("has no loads left in magazine {id}"));
            }
        }
        Ok(())
    }

    fn spend(&mut self, s: usize) {
        let sys = &self.ships[self.me].imported.ship.systems[s];
        if sys.kind.is_one_shot() {
            self.fired.push(s);
        }
        if sys.kind == SystemKind::Sml {
            *self.draws.entry(sys.magazine.clone().unwrap_or_default()).or_default() += 1;
        }
    }
}

fn attr_span_of(m: &RawManeuver) -> Range<usize> {
    m.span.clone()
}

impl Scenario {
    /// The scenario file (`docs/orders.md`); `source` names the XML file,
    /// `gzf` the records file next to it.
    pub fn to_toml(&self, source: &str, gzf: &str) -> String {
        let mut out = TomlOut::new();
        out.comment(&format!(
            "Imported from {source} by `fam import ftjava` (docs/import.md)."
        ));
        for line in &self.briefing {
            out.wrapped_comment(line);
        }
        out.pair("title", quote(&self.title));
        out.names("gzf", [gzf]);
        out.pair("exchange", self.exchange);
        out.pair("seed", self.seed);
        out.note("FTJava keeps no seed: change it at will");
        self.lists_toml(&mut out);
        self.ranges_toml(&mut out);
        for (f, plot) in self.plots.iter().enumerate() {
            if let Some(volleys) = plot {
                self.plot_toml(&mut out, f, volleys);
            }
        }
        out.trim_blank_end();
        out.finish()
    }

    /// `[sides]`, each side's notes above it, and `[formations]`.
    fn lists_toml(&self, out: &mut TomlOut) {
        out.blank();
        out.table("sides");
        for side in &self.sides {
            for note in &side.notes {
                out.wrapped_comment(note);
            }
            out.names(&side.name, side.formations.iter().map(|&f| &self.formations[f]));
        }
        out.blank();
        out.table("formations");
        out.note("one Formation per ship");
        for (f, name) in self.formations.iter().enumerate() {
            let groups = self.groups.get(f).into_iter().flatten();
            out.names(name, std::iter::once(&self.ships[f]).chain(groups));
        }
    }

    /// The `[[range]]` tables of the pairs with a known range, each
    /// followed by a blank line.
    fn ranges_toml(&self, out: &mut TomlOut) {
        if !self.ranges.is_empty() {
            out.blank();
            out.comment("Ranges from the ships' positions (MU); pairs not listed start at 60 MU.");
        }
        for (a, b, mu) in &self.ranges {
            out.range(&self.formations[*a], &self.formations[*b], mu);
            out.blank();
        }
    }

    /// Formation `f`'s three `[[plot.F.volley]]` tables, each followed by a
    /// blank line.
    fn plot_toml(&self, out: &mut TomlOut, f: usize, volleys: &[Volley; 3]) {
        let table = format!("plot.{}.volley", key(&self.formations[f]));
        out.comment(&format!("{}: from its FM.Orders.", self.formations[f]));
        for (i, v) in volleys.iter().enumerate() {
            out.array_table(&table);
            out.note(&format!("Volley {}", i + 1));
            self.volley_toml(out, &self.ships[f], v);
            out.blank();
        }
    }

    /// One Volley's keys: `unit` is the Formation's ship.
    fn volley_toml(&self, out: &mut TomlOut, unit: &str, v: &Volley) {
        let formation = |t: usize| quote(&self.formations[t]);
        let unit = quote(unit);
        out.pair("speed", v.speed);
        out.pair("evasion", v.evasion);
        if let Some((m, t)) = v.primary {
            out.pair("primary", format!("{{ {} = {} }}", maneuver(m), formation(t)));
        }
        if !v.secondary.is_empty() {
            let parts: Vec<String> = by_maneuver(v.secondary.iter().copied())
                .iter()
                .map(|(m, targets)| {
                    let names = targets.iter().map(|&t| &self.formations[t]);
                    format!("{} = {}", maneuver(*m), toml_out::list(names))
                })
                .collect();
            out.pair("secondary", format!("{{ {} }}", parts.join(", ")));
        }
        if !v.fire.is_empty() {
            out.line("fire = [");
            for fire in &v.fire {
                out.line(&format!(
                    "  {{ unit = {unit}, fc = {}, target = {}, weapons = {} }},",
                    fire.fc + 1,
                    formation(fire.target),
                    numbers(&fire.weapons)
                ));
            }
            out.line("]");
        }
        if !v.pd.is_empty() {
            out.pair("pd", format!("[{{ unit = {unit}, weapons = {} }}]", numbers(&v.pd)));
        }
    }
}
