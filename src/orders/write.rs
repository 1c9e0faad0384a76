//! Plots back to orders TOML, and the orders template of the next Exchange.
//!
//! [`plot_toml`] writes the `[[plot.FORMATION.volley]]` tables of
//! `docs/orders.md` for a validated [`ExchangePlot`]: reading them back with
//! [`super::build`] against the same scenario gives the same plot. Every
//! weapon list is written out (the default "all" is already expanded in a
//! plot), system numbers are 1-based and every name is quoted as TOML needs;
//! a comment beside each list names the kind of every system in it.
//!
//! [`template`] is the play-by-mail default for the next Exchange: for every
//! Formation, the plot the automated commander (its standing orders, else
//! the default doctrine) would play; [`template_toml`] writes it as one
//! commander's orders file (readings V6).

use std::fmt::Write as _;

use super::toml_out::{self, TomlOut, by_maneuver, comment_safe, key, maneuver, numbers, quote};
use crate::engine::checked::CheckedPlot;
use crate::engine::doctrine::{Doctrine, PlotSource, standing_plot};
use crate::engine::plot::{
    CraftAction, ExchangePlot, FireOrder, FormationId, FormationPlot, NeedleOrder, PdOrder, SystemId, UnitId,
    VolleyPlot,
};
use crate::engine::state::{Battle, Unit};

/// The word for a Fire Control without a target.
const INACTIVE: &str = "inactive";

/// `8 Class 2 Battery, 10 Pulse Torpedo`: each system's 1-based number and
/// its kind as the Unit's profile names it, ready for a comment.
fn kinds(unit: &Unit, systems: &[SystemId]) -> String {
    let named: Vec<String> = systems.iter().map(|&s| system_name(unit, s)).collect();
    named.join(", ")
}

/// `8 Class 2 Battery`: one system's number and kind, ready for a comment.
fn system_name(unit: &Unit, s: SystemId) -> String {
    match unit.systems.get(s) {
        Some(sys) => comment_safe(&format!("{} {}", s + 1, sys.kind.name(unit.profile))),
        None => (s + 1).to_string(),
    }
}

/// One element of a multi-line array, `  { … },`, with `note` as a comment
/// beside it unless it is empty (TOML allows comments inside arrays).
fn array_line(out: &mut TomlOut, entry: &str, note: &str) {
    if note.is_empty() {
        out.line(&format!("  {{ {entry} }},"));
    } else {
        out.line(&format!("  {{ {entry} }},  # {note}"));
    }
}

/// Writes the plots of `formations` as orders TOML (`docs/orders.md`).
///
/// - `header`: `Some((commander, scenario))` starts the text with the
///   `commander` and `scenario` keys of an orders file; `None` writes the
///   tables alone (to paste into a scenario).
/// - Each Formation gets a comment line naming its Units (with their thrust,
///   or why they are out of the fight), then one `[[plot.NAME.volley]]`
///   table when its three Volleys are equal, three otherwise. A Formation
///   without a plot gets only the comment; one listed twice is written once.
/// - Keys come in a fixed order: `speed`, `evasion`, `primary`,
///   `secondary`, `shift`, `fire`, `pd`, `damage_control`, then the small
///   craft's keys and `reflex`; empty ones are
///   left out. Every fire entry names its `unit` and `fc`; a Fire Control
///   with a target lists its `weapons` (possibly `[]`); needle targets go in
///   `needle`; consecutive point-defence orders of one Unit with one
///   `defend` share a `pd` entry. A comment beside each `fire` and `pd`
///   entry and after `damage_control` names the kind of each system listed.
/// - Secondary maneuvers are grouped by word in the order the words first
///   appear (a TOML table has each word once), which is how the orders
///   layer builds them.
///
/// Identifiers must belong to `battle` (it panics otherwise).
pub fn plot_toml(
    battle: &Battle,
    plot: &ExchangePlot,
    formations: &[FormationId],
    header: Option<(&str, &str)>,
) -> String {
    let mut out = TomlOut::new();
    if let Some((commander, scenario)) = header {
        header_keys(&mut out, commander, scenario);
    }
    formations_toml(&mut out, battle, plot, formations, None);
    out.finish()
}

/// The `commander` and `scenario` keys of an orders file.
fn header_keys(out: &mut TomlOut, commander: &str, scenario: &str) {
    out.pair("commander", quote(commander));
    out.pair("scenario", quote(scenario));
}

/// The tables of [`plot_toml`] for `formations`, each Formation once; with
/// `sources`, a comment under each Formation's heading says who plotted it.
fn formations_toml(
    out: &mut TomlOut,
    battle: &Battle,
    plot: &ExchangePlot,
    formations: &[FormationId],
    sources: Option<&[PlotSource]>,
) {
    let mut done: Vec<FormationId> = Vec::new();
    for &f in formations {
        if done.contains(&f) {
            continue;
        }
        done.push(f);
        if !out.is_empty() {
            out.blank();
        }
        formation_comment(out, battle, f);
        let name = key(&battle.formations[f].name);
        let source = sources.map(|s| s.get(f).copied().unwrap_or(PlotSource::NoPlot));
        if let Some(source) = source {
            out.comment(&source_note(source, &name));
        }
        match plot.formations.get(f).and_then(Option::as_ref) {
            Some(p) => formation_plot_toml(out, battle, &name, p),
            None if source.is_none() => {
                out.comment("No plot: it puts its thrust into Speed, maintains and does not fire.");
            }
            None => {}
        }
    }
}

/// The comment saying who plotted a Formation of a template (`name`: the
/// Formation's name as a TOML key).
fn source_note(source: PlotSource, name: &str) -> String {
    match source {
        PlotSource::Explicit => "Plotted by its commander.".to_string(),
        PlotSource::StandingOrders => format!("Plotted by its standing orders ([doctrine.{name}])."),
        PlotSource::DefaultDoctrine => "Plotted by the default doctrine (it has no standing orders).".to_string(),
        PlotSource::NoPlot => "No plot: it is out of the fight.".to_string(),
    }
}

/// One Formation's `[[plot.NAME.volley]]` tables (`name` a TOML key): one
/// when its three Volleys are equal, three otherwise.
fn formation_plot_toml(out: &mut TomlOut, battle: &Battle, name: &str, p: &FormationPlot) {
    let v = &p.volleys;
    let table = format!("plot.{name}.volley");
    if v[0] == v[1] && v[1] == v[2] {
        out.comment("One table: the same orders in all three Volleys.");
        out.array_table(&table);
        volley_toml(out, battle, &v[0]);
        return;
    }
    for (i, vp) in v.iter().enumerate() {
        if i > 0 {
            out.blank();
        }
        out.comment(&format!("Volley {}.", i + 1));
        out.array_table(&table);
        volley_toml(out, battle, vp);
    }
}

/// `# Formation Lancers (Ilse), Formation Thrust 6: "MCS Clear Heading" (thrust 6), …`
fn formation_comment(out: &mut TomlOut, battle: &Battle, f: FormationId) {
    let formation = &battle.formations[f];
    let units: Vec<String> = formation
        .units
        .iter()
        .map(|&u| {
            let unit = &battle.units[u];
            let state = if unit.destroyed {
                "destroyed".to_string()
            } else if unit.derelict {
                "derelict".to_string()
            } else {
                format!("thrust {}", unit.thrust)
            };
            format!("{} ({state})", quote(&unit.name))
        })
        .collect();
    let side = battle
        .sides
        .get(formation.side)
        .map_or(String::new(), |s| format!(" of {}", quote(&s.name)));
    out.comment(&format!(
        "Formation {}{side}, Formation Thrust {}: {}",
        key(&formation.name),
        battle.formation_thrust(f),
        units.join(", ")
    ));
}

/// The keys of one `[[plot.F.volley]]` table, in the order [`plot_toml`] gives.
fn volley_toml(out: &mut TomlOut, battle: &Battle, v: &VolleyPlot) {
    out.pair("speed", v.speed);
    out.pair("evasion", v.evasion);
    maneuvers_toml(out, battle, v);
    fire_toml(out, battle, &v.fire);
    pd_toml(out, battle, &v.point_defence);
    damage_control_toml(out, battle, &v.damage_control);
    craft_toml(out, battle, v);
    reflex_toml(out, battle, &v.reflex);
}

/// `reflex = [ … ]`: the ships raising their reflex field (reading O41).
fn reflex_toml(out: &mut TomlOut, battle: &Battle, reflex: &[UnitId]) {
    if !reflex.is_empty() {
        out.names("reflex", reflex.iter().map(|&u| &battle.units[u].name));
    }
}

/// `primary`, `secondary` and `shift`.
fn maneuvers_toml(out: &mut TomlOut, battle: &Battle, v: &VolleyPlot) {
    let formation = |f: FormationId| quote(&battle.formations[f].name);
    if let Some(p) = &v.primary {
        out.pair(
            "primary",
            format!("{{ {} = {} }}", maneuver(p.maneuver), formation(p.target)),
        );
    }
    if !v.secondary.is_empty() {
        let parts: Vec<String> = by_maneuver(v.secondary.iter().map(|m| (m.maneuver, m.target)))
            .iter()
            .map(|(m, targets)| match targets.as_slice() {
                [one] => format!("{} = {}", maneuver(*m), formation(*one)),
                many => format!(
                    "{} = {}",
                    maneuver(*m),
                    toml_out::list(many.iter().map(|&t| &battle.formations[t].name))
                ),
            })
            .collect();
        out.pair("secondary", format!("{{ {} }}", parts.join(", ")));
    }
    if !v.shifts.is_empty() {
        let parts: Vec<String> = v
            .shifts
            .iter()
            .map(|(u, pts)| format!("{} = {pts}", key(&battle.units[*u].name)))
            .collect();
        out.pair("shift", format!("{{ {} }}", parts.join(", ")));
    }
}

/// `fire = [ … ]`: one line per Fire Control, its weapons' kinds beside it.
fn fire_toml(out: &mut TomlOut, battle: &Battle, fire: &[FireOrder]) {
    if fire.is_empty() {
        return;
    }
    let formation = |f: FormationId| quote(&battle.formations[f].name);
    let unit = |u: UnitId| quote(&battle.units[u].name);
    out.line("fire = [");
    for o in fire {
        let aim = match o.group {
            Some(g) => format!("group = {}", unit(g)),
            None => format!("target = {}", o.target.map_or_else(|| quote(INACTIVE), formation)),
        };
        let mut entry = format!("unit = {}, fc = {}, {aim}", unit(o.unit), o.fire_control + 1);
        if o.target.is_some() || !o.weapons.is_empty() {
            let _ = write!(entry, ", weapons = {}", numbers(&o.weapons));
        }
        let needle = |n: &NeedleOrder| {
            format!(
                "{{ weapon = {}, unit = {}, system = {} }}",
                n.weapon + 1,
                unit(n.unit),
                n.system + 1
            )
        };
        match o.needles.as_slice() {
            [] => {}
            [one] => {
                let _ = write!(entry, ", needle = {}", needle(one));
            }
            many => {
                let all: Vec<String> = many.iter().map(needle).collect();
                let _ = write!(entry, ", needle = [{}]", all.join(", "));
            }
        }
        array_line(out, &entry, &fire_note(battle, o));
    }
    out.line("]");
}

/// The comment beside a fire entry: each weapon's kind, then where its
/// needle beams aim (`needle 7 at "KRD Long Watch" 8 Class 2 Battery`).
fn fire_note(battle: &Battle, o: &FireOrder) -> String {
    let mut note = kinds(&battle.units[o.unit], &o.weapons);
    for n in &o.needles {
        let target = &battle.units[n.unit];
        let _ = write!(
            note,
            "; needle {} at {} {}",
            n.weapon + 1,
            quote(&target.name),
            system_name(target, n.system)
        );
    }
    note
}

/// `pd = [ … ]`: consecutive orders of one Unit with one `defend` share an
/// entry; each entry's weapon kinds beside it.
fn pd_toml(out: &mut TomlOut, battle: &Battle, pd: &[PdOrder]) {
    if pd.is_empty() {
        return;
    }
    let unit = |u: UnitId| quote(&battle.units[u].name);
    out.line("pd = [");
    let mut i = 0;
    while i < pd.len() {
        let PdOrder { unit: u, defend, .. } = pd[i];
        let mut weapons = Vec::new();
        while let Some(p) = pd.get(i).filter(|p| p.unit == u && p.defend == defend) {
            weapons.push(p.weapon);
            i += 1;
        }
        let defend = defend.map_or(String::new(), |d| format!(", defend = {}", unit(d)));
        let entry = format!("unit = {}, weapons = {}{defend}", unit(u), numbers(&weapons));
        array_line(out, &entry, &kinds(&battle.units[u], &weapons));
    }
    out.line("]");
}

/// `damage_control = { … }`, an inline table (one line), with each Unit's
/// systems named in a comment after it.
fn damage_control_toml(out: &mut TomlOut, battle: &Battle, lists: &[(UnitId, Vec<SystemId>)]) {
    if lists.is_empty() {
        return;
    }
    let parts: Vec<String> = lists
        .iter()
        .map(|(u, systems)| format!("{} = {}", key(&battle.units[*u].name), numbers(systems)))
        .collect();
    let notes: Vec<String> = lists
        .iter()
        .filter(|(_, systems)| !systems.is_empty())
        .map(|(u, systems)| {
            let unit = &battle.units[*u];
            format!("{}: {}", quote(&unit.name), kinds(unit, systems))
        })
        .collect();
    let mut line = format!("damage_control = {{ {} }}", parts.join(", "));
    if !notes.is_empty() {
        let _ = write!(line, "  # {}", notes.join("; "));
    }
    out.line(&line);
}

/// `launch`, `recover`, `fighters` and `after`.
fn craft_toml(out: &mut TomlOut, battle: &Battle, v: &VolleyPlot) {
    let unit = |u: UnitId| quote(&battle.units[u].name);
    let names = |list: &[UnitId]| list.iter().map(|&u| &battle.units[u].name).collect::<Vec<_>>();
    if !v.launch.is_empty() {
        out.names("launch", names(&v.launch));
    }
    if !v.recover.is_empty() {
        out.names("recover", names(&v.recover));
    }
    if !v.craft.is_empty() {
        out.line("fighters = [");
        for o in &v.craft {
            let action = match o.action {
                CraftAction::Attack(t) => format!("attack = {}", unit(t)),
                CraftAction::Dogfight(t) => format!("dogfight = {}", unit(t)),
                CraftAction::Screen(t) => format!("screen = {}", unit(t)),
                CraftAction::Intercept => "intercept = true".to_string(),
            };
            out.line(&format!("  {{ group = {}, {action} }},", unit(o.group)));
        }
        out.line("]");
    }
    if let Some(a) = &v.after {
        let formation = quote(&battle.formations[a.target].name);
        out.pair("after", format!("{{ {} = {formation} }}", maneuver(a.maneuver)));
    }
}

// ---- The orders template ------------------------------------------------

/// The next Exchange's orders template, and who plotted each Formation:
/// for every Formation, the plot the automated commander plays for it in an
/// Exchange without explicit plots (readings V6), that is its standing
/// orders (`doctrines[f]`) or, without them, the default doctrine. This is
/// the rule [`crate::resolve::battle_plot`] plays for every Exchange after
/// the first, so a commander who sends the template back unedited gets
/// what `fam resolve --exchanges K` would have played. A Formation out of
/// the fight has no plot ([`PlotSource::NoPlot`]).
///
/// Every plot is the doctrine's own, so it passes the orders checks as the
/// doctrine's plots do (`tests/all/doctrine.rs`, `tests/all/orders_write.rs`).
pub fn template(battle: &Battle, doctrines: &[Option<Doctrine>]) -> (CheckedPlot, Vec<PlotSource>) {
    standing_plot(battle, &CheckedPlot::default(), doctrines, true)
}

/// What an orders template says at its top, before its keys: one comment
/// line each.
const TEMPLATE_HEADER: &[&str] = &[
    "Orders template written by fam resolve for the next Exchange.",
    "Each Formation's plot below is what fam's automated commander would play",
    "for it: its standing orders ([doctrine.FORMATION]) where it has them, else",
    "the default doctrine (docs/doctrine.md). Sent back unedited, the orders",
    "play exactly that. Edit any plot (docs/orders.md). Deleting a Formation's",
    "plot leaves it to its standing orders; one without standing orders then",
    "puts its thrust into Speed, maintains and does not fire (with",
    "`fam resolve --exchanges K`, K > 1: the default doctrine plays it).",
];

/// `commander`'s orders file of the template `plot` (from [`template`],
/// `sources` saying who plotted each Formation): the [`TEMPLATE_HEADER`]
/// comment, the `commander` and `scenario` keys, then the plots of
/// `formations` as [`plot_toml`] writes them, each Formation's with a
/// comment naming its plotter.
pub fn template_toml(
    battle: &Battle,
    plot: &ExchangePlot,
    sources: &[PlotSource],
    formations: &[FormationId],
    commander: &str,
    scenario: &str,
) -> String {
    let mut out = TomlOut::new();
    for line in TEMPLATE_HEADER {
        out.comment(line);
    }
    header_keys(&mut out, commander, scenario);
    formations_toml(&mut out, battle, plot, formations, Some(sources));
    out.finish()
}

/// What the next Exchange's scenario file needs besides the battle state.
#[derive(Debug, Clone)]
pub struct NextScenario<'a> {
    pub title: &'a str,
    /// The Exchange the file starts (the one after the resolved one).
    pub exchange: u32,
    /// The battle seed (Exchange seeds derive from it and the Exchange).
    pub seed: u64,
    /// The ship record files, relative to the scenario file.
    pub gzf: &'a [String],
    pub victory: &'a crate::engine::victory::Victory,
}

/// The scenario of the next Exchange: the same sides, Formations, rules and
/// victory conditions, the written-back records, and the ranges the battle
/// ended with. Plots come in the commanders' orders files.
pub fn scenario_toml(battle: &Battle, next: &NextScenario<'_>) -> String {
    let mut out = TomlOut::new();
    out.comment(&format!(
        "Exchange {} of {}: written by fam resolve; plots go in the orders files.",
        next.exchange,
        quote(next.title)
    ));
    out.pair("title", quote(next.title));
    out.pair("exchange", next.exchange);
    // A TOML integer holds at most 2^63 − 1: larger seeds go as digits.
    if i64::try_from(next.seed).is_ok() {
        out.pair("seed", next.seed);
    } else {
        out.pair("seed", quote(&next.seed.to_string()));
    }
    out.names("gzf", next.gzf);
    rules_toml(&mut out, &battle.rules);
    tubes_and_reserves_toml(&mut out, battle);
    victory_toml(&mut out, battle, next.victory);
    lists_toml(&mut out, battle);
    out.finish()
}

/// `[rules]`: every switch of the first edition, later ones only when
/// set away from their default.
fn rules_toml(out: &mut TomlOut, r: &crate::engine::rules::Rules) {
    use crate::engine::rules::{PilotQualityRule, Rules};
    out.blank();
    out.table("rules");
    out.pair("reactor_blast", r.reactor_blast);
    out.pair("repair_permanent_bridge", r.repair_permanent_bridge);
    out.pair("double_drive_check", r.double_drive_check);
    out.pair("needle_fb1", r.needle_fb1);
    out.pair("strike_colours", r.strike_colours);
    let pilot_quality = match r.pilot_quality {
        PilotQualityRule::Off => "off",
        PilotQualityRule::Record => "record",
    };
    out.pair("pilot_quality", quote(pilot_quality));
    out.pair("fighter_evasion_drm", r.fighter_evasion_drm);
    out.pair("pd_evasion_reroll", quote(r.pd_evasion_reroll.key()));
    out.pair("needle_six_scores", r.needle_six_scores);
    out.pair("plasma_bolt_formation", r.plasma_bolt_formation);
    out.pair("vapour_shroud_own_fire", r.vapour_shroud_own_fire);
    out.pair("reroll_depth", quote(r.reroll_depth.key()));
    // Later switches are written only when set away from their default
    // (the default is what an absent key reads as).
    let later = [
        (
            "emp_advanced_screens",
            r.emp_advanced_screens,
            Rules::DEFAULT.emp_advanced_screens,
        ),
        (
            "antimatter_pd_heavy",
            r.antimatter_pd_heavy,
            Rules::DEFAULT.antimatter_pd_heavy,
        ),
        (
            "wave_gun_formation",
            r.wave_gun_formation,
            Rules::DEFAULT.wave_gun_formation,
        ),
        (
            "nova_cannon_formation",
            r.nova_cannon_formation,
            Rules::DEFAULT.nova_cannon_formation,
        ),
    ];
    for (name, set, default) in later {
        if set != default {
            out.pair(name, set);
        }
    }
}

/// `[launch_tubes]` of the Units that have them, and `[reserves]` when
/// the rule is on.
fn tubes_and_reserves_toml(out: &mut TomlOut, battle: &Battle) {
    let r = &battle.rules;
    let tubes: Vec<(&str, u32)> = battle
        .units
        .iter()
        .filter_map(|u| u.launch_tubes.map(|t| (u.name.as_str(), t)))
        .collect();
    if !tubes.is_empty() {
        out.blank();
        out.table("launch_tubes");
        for (unit, t) in tubes {
            out.pair(unit, t);
        }
    }
    if r.reserves {
        let in_reserve = battle
            .formations
            .iter()
            .filter(|f| f.reserve == crate::engine::state::Reserve::InReserve)
            .map(|f| &f.name);
        out.blank();
        out.table("reserves");
        out.pair("enabled", true);
        out.pair("need_ftl", r.reserves_need_ftl);
        out.names("in_reserve", in_reserve);
        out.comment("enter = [\"Formation\"]   # bring Formations back: they arrive at 60 MU when the Exchange ends");
    }
}

/// `[victory]`: the Exchange limit, morale, and the triggers by kind.
fn victory_toml(out: &mut TomlOut, battle: &Battle, v: &crate::engine::victory::Victory) {
    use crate::engine::victory::Trigger;
    out.blank();
    out.table("victory");
    out.pair("max_exchanges", v.max_exchanges);
    match v.morale_percent {
        Some(p) => out.pair("morale", p),
        None => out.pair("morale", false),
    }
    let unit_won = |unit: UnitId, side: usize| {
        format!(
            "{{ unit = {}, winner = {} }}",
            quote(&battle.units[unit].name),
            quote(&battle.sides[side].name)
        )
    };
    let units: Vec<String> = v
        .triggers
        .iter()
        .filter_map(|t| match t {
            Trigger::UnitDestroyed { unit, side } => Some(unit_won(*unit, *side)),
            _ => None,
        })
        .collect();
    if !units.is_empty() {
        out.pair("unit_destroyed", format!("[{}]", units.join(", ")));
    }
    let escaped: Vec<String> = v
        .triggers
        .iter()
        .filter_map(|t| match t {
            Trigger::UnitEscaped { unit, side } => Some(unit_won(*unit, *side)),
            _ => None,
        })
        .collect();
    if !escaped.is_empty() {
        out.pair("unit_escaped", format!("[{}]", escaped.join(", ")));
    }
    let points: Vec<String> = v
        .triggers
        .iter()
        .filter_map(|t| match t {
            Trigger::PointsDestroyed { side, points } => Some(format!(
                "{{ winner = {}, points = {points} }}",
                quote(&battle.sides[*side].name)
            )),
            _ => None,
        })
        .collect();
    if !points.is_empty() {
        out.pair("points", format!("[{}]", points.join(", ")));
    }
}

/// `[sides]`, `[formations]`, and a `[[range]]` for each pair of Formations.
fn lists_toml(out: &mut TomlOut, battle: &Battle) {
    out.blank();
    out.table("sides");
    for (s, side) in battle.sides.iter().enumerate() {
        out.names(
            &side.name,
            battle.formations.iter().filter(|f| f.side == s).map(|f| &f.name),
        );
    }
    out.blank();
    out.table("formations");
    for f in &battle.formations {
        out.names(&f.name, f.units.iter().map(|u| &battle.units[*u].name));
    }
    out.ranges(battle);
}
