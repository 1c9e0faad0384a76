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

use crate::engine::checked::CheckedPlot;
use crate::engine::doctrine::{Doctrine, PlotSource, standing_plot};
use crate::engine::plot::{
    CraftAction, ExchangePlot, FireOrder, FormationId, FormationPlot, Maneuver, NeedleOrder, PdOrder, SystemId, UnitId,
    VolleyPlot,
};
use crate::engine::state::{Battle, Unit};

/// The word for a Fire Control without a target.
const INACTIVE: &str = "inactive";

/// A TOML basic string: `"…"` with quotes, backslashes and control
/// characters escaped, so any name survives the round trip.
pub fn toml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A TOML key: bare when it is only letters, digits, `_` and `-`, quoted
/// ([`toml_string`]) otherwise.
pub fn toml_key(s: &str) -> String {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        s.to_string()
    } else {
        toml_string(s)
    }
}

fn word(m: Maneuver) -> &'static str {
    match m {
        Maneuver::Close => "close",
        Maneuver::Maintain => "maintain",
        Maneuver::Withdraw => "withdraw",
    }
}

/// `[8, 9, 10]`: 0-based system indices as the 1-based numbers of the orders.
fn numbers(systems: &[SystemId]) -> String {
    let n: Vec<String> = systems.iter().map(|s| (s + 1).to_string()).collect();
    format!("[{}]", n.join(", "))
}

/// Text that may stand in a TOML comment, which allows no control character
/// but tab: any other becomes a space.
fn comment_safe(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() && c != '\t' { ' ' } else { c })
        .collect()
}

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
fn array_line(out: &mut String, entry: &str, note: &str) {
    if note.is_empty() {
        let _ = writeln!(out, "  {{ {entry} }},");
    } else {
        let _ = writeln!(out, "  {{ {entry} }},  # {note}");
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
    let mut out = String::new();
    if let Some((commander, scenario)) = header {
        header_keys(&mut out, commander, scenario);
    }
    formations_toml(&mut out, battle, plot, formations, None);
    out
}

/// The `commander` and `scenario` keys of an orders file.
fn header_keys(out: &mut String, commander: &str, scenario: &str) {
    let _ = writeln!(out, "commander = {}", toml_string(commander));
    let _ = writeln!(out, "scenario = {}", toml_string(scenario));
}

/// The tables of [`plot_toml`] for `formations`, each Formation once; with
/// `sources`, a comment under each Formation's heading says who plotted it.
fn formations_toml(
    out: &mut String,
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
            out.push('\n');
        }
        formation_comment(out, battle, f);
        let key = toml_key(&battle.formations[f].name);
        let source = sources.map(|s| s.get(f).copied().unwrap_or(PlotSource::NoPlot));
        if let Some(source) = source {
            let _ = writeln!(out, "{}", source_note(source, &key));
        }
        match plot.formations.get(f).and_then(Option::as_ref) {
            Some(p) => formation_plot_toml(out, battle, &key, p),
            None if source.is_none() => {
                let _ = writeln!(
                    out,
                    "# No plot: it puts its thrust into Speed, maintains and does not fire."
                );
            }
            None => {}
        }
    }
}

/// The comment line saying who plotted a Formation of a template (`key`:
/// the Formation's name as a TOML key).
fn source_note(source: PlotSource, key: &str) -> String {
    match source {
        PlotSource::Explicit => "# Plotted by its commander.".to_string(),
        PlotSource::StandingOrders => format!("# Plotted by its standing orders ([doctrine.{key}])."),
        PlotSource::DefaultDoctrine => "# Plotted by the default doctrine (it has no standing orders).".to_string(),
        PlotSource::NoPlot => "# No plot: it is out of the fight.".to_string(),
    }
}

/// One Formation's `[[plot.KEY.volley]]` tables: one when its three Volleys
/// are equal, three otherwise.
fn formation_plot_toml(out: &mut String, battle: &Battle, key: &str, p: &FormationPlot) {
    let v = &p.volleys;
    if v[0] == v[1] && v[1] == v[2] {
        let _ = writeln!(out, "# One table: the same orders in all three Volleys.");
        let _ = writeln!(out, "[[plot.{key}.volley]]");
        volley_toml(out, battle, &v[0]);
        return;
    }
    for (i, vp) in v.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "# Volley {}.", i + 1);
        let _ = writeln!(out, "[[plot.{key}.volley]]");
        volley_toml(out, battle, vp);
    }
}

/// `# Formation Lancers (Ilse), Formation Thrust 6: "MCS Clear Heading" (thrust 6), …`
fn formation_comment(out: &mut String, battle: &Battle, f: FormationId) {
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
            format!("{} ({state})", toml_string(&unit.name))
        })
        .collect();
    let side = battle
        .sides
        .get(formation.side)
        .map_or(String::new(), |s| format!(" of {}", toml_string(&s.name)));
    let _ = writeln!(
        out,
        "# Formation {}{side}, Formation Thrust {}: {}",
        toml_key(&formation.name),
        battle.formation_thrust(f),
        units.join(", ")
    );
}

/// The keys of one `[[plot.F.volley]]` table, in the order [`plot_toml`] gives.
fn volley_toml(out: &mut String, battle: &Battle, v: &VolleyPlot) {
    let _ = writeln!(out, "speed = {}", v.speed);
    let _ = writeln!(out, "evasion = {}", v.evasion);
    maneuvers_toml(out, battle, v);
    fire_toml(out, battle, &v.fire);
    pd_toml(out, battle, &v.point_defence);
    damage_control_toml(out, battle, &v.damage_control);
    craft_toml(out, battle, v);
    reflex_toml(out, battle, &v.reflex);
}

/// `reflex = [ … ]`: the ships raising their reflex field (reading O41).
fn reflex_toml(out: &mut String, battle: &Battle, reflex: &[UnitId]) {
    if !reflex.is_empty() {
        let names: Vec<String> = reflex.iter().map(|&u| toml_string(&battle.units[u].name)).collect();
        let _ = writeln!(out, "reflex = [{}]", names.join(", "));
    }
}

/// `primary`, `secondary` and `shift`.
fn maneuvers_toml(out: &mut String, battle: &Battle, v: &VolleyPlot) {
    let formation = |f: FormationId| toml_string(&battle.formations[f].name);
    if let Some(p) = &v.primary {
        let _ = writeln!(out, "primary = {{ {} = {} }}", word(p.maneuver), formation(p.target));
    }
    if !v.secondary.is_empty() {
        let mut groups: Vec<(Maneuver, Vec<FormationId>)> = Vec::new();
        for m in &v.secondary {
            match groups.iter_mut().find(|g| g.0 == m.maneuver) {
                Some(g) => g.1.push(m.target),
                None => groups.push((m.maneuver, vec![m.target])),
            }
        }
        let parts: Vec<String> = groups
            .iter()
            .map(|(m, targets)| {
                let names: Vec<String> = targets.iter().map(|&t| formation(t)).collect();
                if names.len() == 1 {
                    format!("{} = {}", word(*m), names[0])
                } else {
                    format!("{} = [{}]", word(*m), names.join(", "))
                }
            })
            .collect();
        let _ = writeln!(out, "secondary = {{ {} }}", parts.join(", "));
    }
    if !v.shifts.is_empty() {
        let parts: Vec<String> = v
            .shifts
            .iter()
            .map(|(u, pts)| format!("{} = {pts}", toml_key(&battle.units[*u].name)))
            .collect();
        let _ = writeln!(out, "shift = {{ {} }}", parts.join(", "));
    }
}

/// `fire = [ … ]`: one line per Fire Control, its weapons' kinds beside it.
fn fire_toml(out: &mut String, battle: &Battle, fire: &[FireOrder]) {
    if fire.is_empty() {
        return;
    }
    let formation = |f: FormationId| toml_string(&battle.formations[f].name);
    let unit = |u: UnitId| toml_string(&battle.units[u].name);
    let _ = writeln!(out, "fire = [");
    for o in fire {
        let aim = match o.group {
            Some(g) => format!("group = {}", unit(g)),
            None => format!("target = {}", o.target.map_or_else(|| toml_string(INACTIVE), formation)),
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
    let _ = writeln!(out, "]");
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
            toml_string(&target.name),
            system_name(target, n.system)
        );
    }
    note
}

/// `pd = [ … ]`: consecutive orders of one Unit with one `defend` share an
/// entry; each entry's weapon kinds beside it.
fn pd_toml(out: &mut String, battle: &Battle, pd: &[PdOrder]) {
    if pd.is_empty() {
        return;
    }
    let unit = |u: UnitId| toml_string(&battle.units[u].name);
    let _ = writeln!(out, "pd = [");
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
    let _ = writeln!(out, "]");
}

/// `damage_control = { … }`, an inline table (one line), with each Unit's
/// systems named in a comment after it.
fn damage_control_toml(out: &mut String, battle: &Battle, lists: &[(UnitId, Vec<SystemId>)]) {
    if lists.is_empty() {
        return;
    }
    let parts: Vec<String> = lists
        .iter()
        .map(|(u, systems)| format!("{} = {}", toml_key(&battle.units[*u].name), numbers(systems)))
        .collect();
    let notes: Vec<String> = lists
        .iter()
        .filter(|(_, systems)| !systems.is_empty())
        .map(|(u, systems)| {
            let unit = &battle.units[*u];
            format!("{}: {}", toml_string(&unit.name), kinds(unit, systems))
        })
        .collect();
    let _ = write!(out, "damage_control = {{ {} }}", parts.join(", "));
    if !notes.is_empty() {
        let _ = write!(out, "  # {}", notes.join("; "));
    }
    out.push('\n');
}

/// `launch`, `recover`, `fighters` and `after`.
fn craft_toml(out: &mut String, battle: &Battle, v: &VolleyPlot) {
    let unit = |u: UnitId| toml_string(&battle.units[u].name);
    let names = |list: &[UnitId]| list.iter().map(|&u| unit(u)).collect::<Vec<_>>().join(", ");
    if !v.launch.is_empty() {
        let _ = writeln!(out, "launch = [{}]", names(&v.launch));
    }
    if !v.recover.is_empty() {
        let _ = writeln!(out, "recover = [{}]", names(&v.recover));
    }
    if !v.craft.is_empty() {
        let _ = writeln!(out, "fighters = [");
        for o in &v.craft {
            let action = match o.action {
                CraftAction::Attack(t) => format!("attack = {}", unit(t)),
                CraftAction::Dogfight(t) => format!("dogfight = {}", unit(t)),
                CraftAction::Screen(t) => format!("screen = {}", unit(t)),
                CraftAction::Intercept => "intercept = true".to_string(),
            };
            let _ = writeln!(out, "  {{ group = {}, {action} }},", unit(o.group));
        }
        let _ = writeln!(out, "]");
    }
    if let Some(a) = &v.after {
        let formation = toml_string(&battle.formations[a.target].name);
        let _ = writeln!(out, "after = {{ {} = {formation} }}", word(a.maneuver));
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

/// What an orders template says at its top, before its keys.
const TEMPLATE_HEADER: &str = "\
# Orders template written by fam resolve for the next Exchange.
# Each Formation's plot below is what fam's automated commander would play
# for it: its standing orders ([doctrine.FORMATION]) where it has them, else
# the default doctrine (docs/doctrine.md). Sent back unedited, the orders
# play exactly that. Edit any plot (docs/orders.md). Deleting a Formation's
# plot leaves it to its standing orders; one without standing orders then
# puts its thrust into Speed, maintains and does not fire (with
# `fam resolve --exchanges K`, K > 1: the default doctrine plays it).
";

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
    let mut out = String::from(TEMPLATE_HEADER);
    header_keys(&mut out, commander, scenario);
    formations_toml(&mut out, battle, plot, formations, Some(sources));
    out
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
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Exchange {} of {}: written by fam resolve; plots go in the orders files.",
        next.exchange,
        toml_string(next.title)
    );
    let _ = writeln!(out, "title = {}", toml_string(next.title));
    let _ = writeln!(out, "exchange = {}", next.exchange);
    // A TOML integer holds at most 2^63 − 1: larger seeds go as digits.
    if i64::try_from(next.seed).is_ok() {
        let _ = writeln!(out, "seed = {}", next.seed);
    } else {
        let _ = writeln!(out, "seed = \"{}\"", next.seed);
    }
    let files: Vec<String> = next.gzf.iter().map(|g| toml_string(g)).collect();
    let _ = writeln!(out, "gzf = [{}]", files.join(", "));
    rules_toml(&mut out, &battle.rules);
    tubes_and_reserves_toml(&mut out, battle);
    victory_toml(&mut out, battle, next.victory);
    lists_toml(&mut out, battle);
    out
}

/// `[rules]`: every switch of the first edition, later ones only when
/// set away from their default.
fn rules_toml(out: &mut String, r: &crate::engine::rules::Rules) {
    let _ = writeln!(
        out,
        "\n[rules]\nreactor_blast = {}\nrepair_permanent_bridge = {}\ndouble_drive_check = {}\nneedle_fb1 = {}\nstrike_colours = {}",
        r.reactor_blast, r.repair_permanent_bridge, r.double_drive_check, r.needle_fb1, r.strike_colours
    );
    let _ = writeln!(
        out,
        "pilot_quality = \"{}\"\nfighter_evasion_drm = {}\npd_evasion_reroll = \"{}\"\nneedle_six_scores = {}\nplasma_bolt_formation = {}\nvapour_shroud_own_fire = {}\nreroll_depth = \"{}\"",
        match r.pilot_quality {
            crate::engine::rules::PilotQualityRule::Off => "off",
            crate::engine::rules::PilotQualityRule::Record => "record",
        },
        r.fighter_evasion_drm,
        r.pd_evasion_reroll.key(),
        r.needle_six_scores,
        r.plasma_bolt_formation,
        r.vapour_shroud_own_fire,
        r.reroll_depth.key()
    );
    // Later switches are written only when set away from their default
    // (the default is what an absent key reads as).
    if r.emp_advanced_screens != crate::engine::rules::Rules::DEFAULT.emp_advanced_screens {
        let _ = writeln!(out, "emp_advanced_screens = {}", r.emp_advanced_screens);
    }
    if r.antimatter_pd_heavy != crate::engine::rules::Rules::DEFAULT.antimatter_pd_heavy {
        let _ = writeln!(out, "antimatter_pd_heavy = {}", r.antimatter_pd_heavy);
    }
    if r.wave_gun_formation != crate::engine::rules::Rules::DEFAULT.wave_gun_formation {
        let _ = writeln!(out, "wave_gun_formation = {}", r.wave_gun_formation);
    }
    if r.nova_cannon_formation != crate::engine::rules::Rules::DEFAULT.nova_cannon_formation {
        let _ = writeln!(out, "nova_cannon_formation = {}", r.nova_cannon_formation);
    }
}

/// `[launch_tubes]` of the Units that have them, and `[reserves]` when
/// the rule is on.
fn tubes_and_reserves_toml(out: &mut String, battle: &Battle) {
    let r = &battle.rules;
    let tubes: Vec<String> = battle
        .units
        .iter()
        .filter_map(|u| u.launch_tubes.map(|t| format!("{} = {t}", toml_key(&u.name))))
        .collect();
    if !tubes.is_empty() {
        let _ = writeln!(out, "\n[launch_tubes]\n{}", tubes.join("\n"));
    }
    if r.reserves {
        let in_reserve: Vec<String> = battle
            .formations
            .iter()
            .filter(|f| f.reserve == crate::engine::state::Reserve::InReserve)
            .map(|f| toml_string(&f.name))
            .collect();
        let _ = writeln!(
            out,
            "\n[reserves]\nenabled = true\nneed_ftl = {}\nin_reserve = [{}]\n# enter = [\"Formation\"]   # bring Formations back: they arrive at 60 MU when the Exchange ends",
            r.reserves_need_ftl,
            in_reserve.join(", ")
        );
    }
}

/// `[victory]`: the Exchange limit, morale, and the triggers by kind.
fn victory_toml(out: &mut String, battle: &Battle, v: &crate::engine::victory::Victory) {
    use crate::engine::victory::Trigger;
    let _ = writeln!(out, "\n[victory]\nmax_exchanges = {}", v.max_exchanges);
    match v.morale_percent {
        Some(p) => {
            let _ = writeln!(out, "morale = {p}");
        }
        None => out.push_str("morale = false\n"),
    }
    let units: Vec<String> = v
        .triggers
        .iter()
        .filter_map(|t| match t {
            Trigger::UnitDestroyed { unit, side } => Some(format!(
                "{{ unit = {}, winner = {} }}",
                toml_string(&battle.units[*unit].name),
                toml_string(&battle.sides[*side].name)
            )),
            _ => None,
        })
        .collect();
    if !units.is_empty() {
        let _ = writeln!(out, "unit_destroyed = [{}]", units.join(", "));
    }
    let escaped: Vec<String> = v
        .triggers
        .iter()
        .filter_map(|t| match t {
            Trigger::UnitEscaped { unit, side } => Some(format!(
                "{{ unit = {}, winner = {} }}",
                toml_string(&battle.units[*unit].name),
                toml_string(&battle.sides[*side].name)
            )),
            _ => None,
        })
        .collect();
    if !escaped.is_empty() {
        let _ = writeln!(out, "unit_escaped = [{}]", escaped.join(", "));
    }
    let points: Vec<String> = v
        .triggers
        .iter()
        .filter_map(|t| match t {
            Trigger::PointsDestroyed { side, points } => Some(format!(
                "{{ winner = {}, points = {points} }}",
                toml_string(&battle.sides[*side].name)
            )),
            _ => None,
        })
        .collect();
    if !points.is_empty() {
        let _ = writeln!(out, "points = [{}]", points.join(", "));
    }
}

/// `[sides]`, `[formations]`, and a `[[range]]` for each pair of Formations.
fn lists_toml(out: &mut String, battle: &Battle) {
    out.push_str("\n[sides]\n");
    for (s, side) in battle.sides.iter().enumerate() {
        let names: Vec<String> = battle
            .formations
            .iter()
            .filter(|f| f.side == s)
            .map(|f| toml_string(&f.name))
            .collect();
        let _ = writeln!(out, "{} = [{}]", toml_key(&side.name), names.join(", "));
    }
    out.push_str("\n[formations]\n");
    for f in &battle.formations {
        let names: Vec<String> = f.units.iter().map(|u| toml_string(&battle.units[*u].name)).collect();
        let _ = writeln!(out, "{} = [{}]", toml_key(&f.name), names.join(", "));
    }
    let n = battle.formations.len();
    for a in 0..n {
        for b in a + 1..n {
            let _ = writeln!(
                out,
                "\n[[range]]\nbetween = [{}, {}]\nmu = {}",
                toml_string(&battle.formations[a].name),
                toml_string(&battle.formations[b].name),
                battle.ranges.get(a, b)
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_quoted_as_toml_needs() {
        assert_eq!(toml_key("Lancers"), "Lancers");
        assert_eq!(toml_key("Pickets_2-a"), "Pickets_2-a");
        assert_eq!(toml_key("Battle Line"), "\"Battle Line\"");
        assert_eq!(toml_key(""), "\"\"");
        assert_eq!(toml_key("a.b"), "\"a.b\"");
        assert_eq!(toml_string("say \"hi\" \\ now"), r#""say \"hi\" \\ now""#);
        assert_eq!(toml_string("a\tb\nc\u{7f}\u{1}é"), r#""a\tb\nc\u007F\u0001é""#);
    }
}
