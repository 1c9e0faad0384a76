//! Plots back to orders TOML, and the next Exchange's template plot.
//!
//! [`plot_toml`] writes the `[[plot.FORMATION.volley]]` tables of
//! `docs/orders.md` for a validated [`ExchangePlot`]: reading them back with
//! [`super::build`] against the same scenario gives the same plot. Every
//! weapon list is written out (the default "all" is already expanded in a
//! plot), system numbers are 1-based and every name is quoted as TOML needs.
//!
//! [`template`] is the play-by-mail default for the next Exchange (issue 5):
//! every Formation in the fight maintains against its last target and fires
//! everything at it, in a plot that always passes the orders checks.

use std::fmt::Write as _;

use crate::engine::plot::{
    CraftAction, CraftOrder, ExchangePlot, FireOrder, FormationId, FormationPlot, Maneuver, ManeuverOrder, NeedleOrder,
    PdOrder, SystemId, UnitId, VolleyPlot,
};
use crate::engine::state::{Battle, Sys, SysState, Unit};
use crate::gzf::SystemKind;

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
///   `secondary`, `shift`, `fire`, `pd`, `damage_control`; empty ones are
///   left out. Every fire entry names its `unit` and `fc`; a Fire Control
///   with a target lists its `weapons` (possibly `[]`); needle targets go in
///   `needle`; consecutive point-defence orders of one Unit with one
///   `defend` share a `pd` entry.
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
        let _ = writeln!(out, "commander = {}", toml_string(commander));
        let _ = writeln!(out, "scenario = {}", toml_string(scenario));
    }
    let mut done: Vec<FormationId> = Vec::new();
    for &f in formations {
        if done.contains(&f) {
            continue;
        }
        done.push(f);
        if !out.is_empty() {
            out.push('\n');
        }
        formation_comment(&mut out, battle, f);
        let key = toml_key(&battle.formations[f].name);
        let Some(p) = plot.formations.get(f).and_then(Option::as_ref) else {
            let _ = writeln!(
                out,
                "# No plot: it puts its thrust into Speed, maintains and does not fire."
            );
            continue;
        };
        let v = &p.volleys;
        if v[0] == v[1] && v[1] == v[2] {
            let _ = writeln!(out, "# One table: the same orders in all three Volleys.");
            let _ = writeln!(out, "[[plot.{key}.volley]]");
            volley_toml(&mut out, battle, &v[0]);
        } else {
            for (i, vp) in v.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                let _ = writeln!(out, "# Volley {}.", i + 1);
                let _ = writeln!(out, "[[plot.{key}.volley]]");
                volley_toml(&mut out, battle, vp);
            }
        }
    }
    out
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

fn volley_toml(out: &mut String, battle: &Battle, v: &VolleyPlot) {
    let formation = |f: FormationId| toml_string(&battle.formations[f].name);
    let unit = |u: UnitId| toml_string(&battle.units[u].name);
    let _ = writeln!(out, "speed = {}", v.speed);
    let _ = writeln!(out, "evasion = {}", v.evasion);
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
    if !v.fire.is_empty() {
        let _ = writeln!(out, "fire = [");
        for o in &v.fire {
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
            let _ = writeln!(out, "  {{ {entry} }},");
        }
        let _ = writeln!(out, "]");
    }
    if !v.point_defence.is_empty() {
        let _ = writeln!(out, "pd = [");
        let mut i = 0;
        while i < v.point_defence.len() {
            let PdOrder { unit: u, defend, .. } = v.point_defence[i];
            let mut weapons = Vec::new();
            while let Some(p) = v.point_defence.get(i).filter(|p| p.unit == u && p.defend == defend) {
                weapons.push(p.weapon);
                i += 1;
            }
            let defend = defend.map_or(String::new(), |d| format!(", defend = {}", unit(d)));
            let _ = writeln!(
                out,
                "  {{ unit = {}, weapons = {}{defend} }},",
                unit(u),
                numbers(&weapons)
            );
        }
        let _ = writeln!(out, "]");
    }
    if !v.damage_control.is_empty() {
        let parts: Vec<String> = v
            .damage_control
            .iter()
            .map(|(u, systems)| format!("{} = {}", toml_key(&battle.units[*u].name), numbers(systems)))
            .collect();
        let _ = writeln!(out, "damage_control = {{ {} }}", parts.join(", "));
    }
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
        let _ = writeln!(out, "after = {{ {} = {} }}", word(a.maneuver), formation(a.target));
    }
}

// ---- The template -------------------------------------------------------

use super::build::{dedicated_pd, fire_refusal, fires_once, spent};

/// Weapons the orders layer refuses to fire at a Formation.
fn refused(kind: &SystemKind) -> bool {
    fire_refusal(kind).is_some()
}

/// Loads a magazine can still give (none when damaged or destroyed).
fn loads(unit: &Unit, magazine: SystemId) -> u32 {
    unit.systems
        .get(magazine)
        .filter(|m| m.state == SysState::Operational)
        .map_or(0, Sys::rounds_left)
}

/// Speed and Evasion of the last plot fitted to `thrust`: Speed is cut
/// first, then Evasion, and Evasion is capped at half the thrust with the
/// rest going to Speed (readings E4, as the engine cuts a plot); thrust
/// gained since goes to Speed.
fn fit(speed: u32, evasion: u32, thrust: u32) -> (u32, u32) {
    // Evasion loses only what Speed cannot give up.
    let cut = (speed + evasion).saturating_sub(thrust);
    let evasion = evasion.saturating_sub(cut.saturating_sub(speed)).min(thrust / 2);
    (thrust - evasion, evasion)
}

/// An enemy Formation still in the fight.
fn live_enemy(battle: &Battle, f: FormationId, t: FormationId) -> bool {
    t != f
        && t < battle.formations.len()
        && battle.formations[t].side != battle.formations[f].side
        && battle.formation_active(t)
}

/// An enemy Formation a Fire Control may aim at: in the fight and not of
/// small craft only (those are engaged group by group, reading F1).
fn fire_enemy(battle: &Battle, f: FormationId, t: FormationId) -> bool {
    live_enemy(battle, f, t) && !battle.craft_only(t)
}

/// The target most of `f`'s Fire Controls fired at in the last Volley of
/// its plot (the first such order breaks a tie), if it is an enemy still in
/// the fight.
fn last_target(battle: &Battle, f: FormationId, last: Option<&FormationPlot>) -> Option<FormationId> {
    let fire = &last?.volleys[2].fire;
    let mut best: Option<(FormationId, usize)> = None;
    for o in fire {
        let Some(t) = o.target.filter(|&t| fire_enemy(battle, f, t)) else {
            continue;
        };
        let n = fire.iter().filter(|x| x.target == Some(t)).count();
        if best.is_none_or(|(_, m)| n > m) {
            best = Some((t, n));
        }
    }
    best.map(|b| b.0)
}

/// The nearest enemy Formation in the fight (the first one listed on a tie).
fn nearest_enemy(battle: &Battle, f: FormationId) -> Option<FormationId> {
    (0..battle.formations.len())
        .filter(|&t| live_enemy(battle, f, t))
        .min_by_key(|&t| battle.ranges.get(f, t))
}

/// Where the Unit's needle beams aimed last (latest Volley first), if that
/// is still a legal aim at Formation `t`: a Unit of it in the fight, at a
/// system that is not core and not destroyed.
fn needle_aim(battle: &Battle, u: UnitId, t: FormationId, last: Option<&FormationPlot>) -> Option<(UnitId, SystemId)> {
    let last = last?;
    last.volleys
        .iter()
        .rev()
        .flat_map(|v| &v.fire)
        .filter(|o| o.unit == u)
        .flat_map(|o| &o.needles)
        .map(|n| (n.unit, n.system))
        .find(|&(tu, ts)| {
            battle.formations[t].units.contains(&tu)
                && battle.units[tu].active()
                && battle.units[tu]
                    .systems
                    .get(ts)
                    .is_some_and(|s| !s.kind.is_core() && s.state != SysState::Destroyed)
        })
}

/// The next Exchange's editable default plot (issue 5: "maintain, all
/// weapons at the plotted target"), for `battle` as the last Exchange left
/// it and `last`, the plot that Exchange was resolved with.
///
/// For every Formation still in the fight, the same in all three Volleys
/// except for ordnance:
/// - Speed and Evasion of the last Volley of `last` (all thrust in Speed
///   for a Formation that had no plot), fitted to the current Formation
///   Thrust as the engine cuts a plot (Speed first, Evasion at most half).
/// - Primary Maintain against the target: the enemy Formation most of its
///   Fire Controls fired at in the last Volley of `last`, or, when there is
///   none or it is out of the fight, the nearest enemy Formation in the
///   fight (`battle.ranges`). No secondary maneuvers.
/// - Each Unit in the fight with a working Fire Control: its first working
///   Fire Control fires at the target with what the default "all" would
///   take (every weapon but dedicated point defence, destroyed weapons,
///   spent one-shots and weapons fam refuses; a rack, heavy missile or
///   submunition pack in Volley 1 only, salvo launchers while their
///   magazine has loads), its other working Fire Controls are inactive.
///   Needle beams fire only when the Unit's last needle aim is still legal
///   at a Unit of the target, and then all aim there; otherwise they are
///   left out. With no enemy left every Fire Control is inactive.
/// - No shifts, no point-defence orders, no damage-control lists.
///
/// Formations out of the fight get no plot. Every weapon list is explicit,
/// so [`plot_toml`] writes a plot that passes the orders checks.
pub fn template(battle: &Battle, last: &ExchangePlot) -> ExchangePlot {
    let n = battle.formations.len();
    let mut out = ExchangePlot {
        formations: vec![None; n],
    };
    for f in 0..n {
        if !battle.formation_active(f) {
            continue;
        }
        let prev = last.formations.get(f).and_then(Option::as_ref);
        let thrust = battle.formation_thrust(f);
        let (speed, evasion) = match prev {
            Some(p) => fit(p.volleys[2].speed, p.volleys[2].evasion, thrust),
            None => (thrust, 0),
        };
        let target = last_target(battle, f, prev).or_else(|| nearest_enemy(battle, f));
        let fire_at = target.filter(|&t| fire_enemy(battle, f, t)).or_else(|| {
            (0..n)
                .filter(|&t| fire_enemy(battle, f, t))
                .min_by_key(|&t| battle.ranges.get(f, t))
        });
        let base = VolleyPlot {
            speed,
            evasion,
            primary: target.map(|t| ManeuverOrder {
                target: t,
                maneuver: Maneuver::Maintain,
            }),
            ..VolleyPlot::default()
        };
        let mut volleys = [base.clone(), base.clone(), base];
        for &u in &battle.formations[f].units {
            let unit = &battle.units[u];
            if !unit.active() {
                continue;
            }
            let fcs: Vec<SystemId> = unit.fire_controls().collect();
            let Some(&first) = fcs.first() else { continue };
            let aim = fire_at.and_then(|t| needle_aim(battle, u, t, prev));
            let mut fired: Vec<SystemId> = Vec::new();
            let mut drawn: Vec<(SystemId, u32)> = Vec::new();
            for v in &mut volleys {
                for &fc in &fcs {
                    let aimed = if fc == first { fire_at } else { None };
                    let mut weapons = Vec::new();
                    if aimed.is_some() {
                        for (i, sys) in unit.systems.iter().enumerate() {
                            if !sys.kind.is_weapon()
                                || dedicated_pd(&sys.kind)
                                || refused(&sys.kind)
                                || sys.state == SysState::Destroyed
                                || spent(sys).is_some()
                                || (sys.kind == SystemKind::NeedleBeam && aim.is_none())
                            {
                                continue;
                            }
                            if fires_once(&sys.kind) {
                                if fired.contains(&i) {
                                    continue;
                                }
                                fired.push(i);
                            } else if sys.kind == SystemKind::Sml {
                                let Some(m) = sys.magazine else { continue };
                                let d = match drawn.iter_mut().find(|x| x.0 == m) {
                                    Some(x) => &mut x.1,
                                    None => {
                                        drawn.push((m, 0));
                                        &mut drawn.last_mut().expect("just pushed").1
                                    }
                                };
                                if *d >= loads(unit, m) {
                                    continue;
                                }
                                *d += 1;
                            }
                            weapons.push(i);
                        }
                    }
                    let needles = match aim {
                        Some((tu, ts)) => weapons
                            .iter()
                            .filter(|&&w| unit.systems[w].kind == SystemKind::NeedleBeam)
                            .map(|&w| NeedleOrder {
                                weapon: w,
                                unit: tu,
                                system: ts,
                            })
                            .collect(),
                        None => Vec::new(),
                    };
                    v.fire.push(FireOrder {
                        unit: u,
                        fire_control: fc,
                        target: aimed,
                        weapons,
                        needles,
                        group: None,
                    });
                }
            }
        }
        // Small craft keep their last orders while these still make sense;
        // launches and recoveries are one-off and are not repeated.
        if let Some(p) = prev {
            let last = &p.volleys[2];
            let live = |u: UnitId| battle.units[u].active();
            let enemy = |u: UnitId| battle.units[u].side != battle.formations[f].side;
            let keep: Vec<CraftOrder> = last
                .craft
                .iter()
                .copied()
                .filter(|o| live(o.group) && battle.units[o.group].formation == f)
                .filter(|o| match o.action {
                    CraftAction::Attack(t) => live(t) && enemy(t),
                    CraftAction::Dogfight(t) => live(t) && enemy(t) && battle.units[t].is_craft(),
                    CraftAction::Screen(t) => live(t) && battle.units[t].formation == f && !battle.units[t].is_craft(),
                    CraftAction::Intercept => true,
                })
                .collect();
            let all_craft = battle.formations[f].units.iter().all(|&u| battle.units[u].is_craft());
            let after = last
                .after
                .filter(|m| all_craft && battle.formation_active(m.target) && m.target != f);
            for v in &mut volleys {
                v.craft.clone_from(&keep);
                v.after = after;
            }
        }
        out.formations[f] = Some(FormationPlot { volleys });
    }
    out
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

    #[test]
    fn speed_and_evasion_are_cut_like_the_engine_cuts_a_plot() {
        assert_eq!(fit(4, 2, 6), (4, 2));
        assert_eq!(fit(4, 2, 3), (2, 1));
        assert_eq!(fit(4, 2, 2), (1, 1));
        assert_eq!(fit(3, 3, 4), (2, 2));
        assert_eq!(fit(1, 3, 2), (1, 1));
        assert_eq!(fit(2, 2, 0), (0, 0));
        // Thrust gained goes to Speed.
        assert_eq!(fit(2, 1, 6), (5, 1));
    }
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
    use crate::engine::victory::Trigger;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Exchange {} of {}: written by fam resolve; plots go in the orders files.",
        next.exchange,
        toml_string(next.title)
    );
    let _ = writeln!(out, "title = {}", toml_string(next.title));
    let _ = writeln!(out, "exchange = {}", next.exchange);
    let _ = writeln!(out, "seed = {}", next.seed);
    let files: Vec<String> = next.gzf.iter().map(|g| toml_string(g)).collect();
    let _ = writeln!(out, "gzf = [{}]", files.join(", "));
    let r = &battle.rules;
    let _ = writeln!(
        out,
        "\n[rules]\nreactor_blast = {}\nrepair_permanent_bridge = {}\ndouble_drive_check = {}\nneedle_fb1 = {}\nstrike_colours = {}",
        r.reactor_blast, r.repair_permanent_bridge, r.double_drive_check, r.needle_fb1, r.strike_colours
    );
    let _ = writeln!(
        out,
        "pilot_quality = \"{}\"\nfighter_evasion_drm = {}",
        match r.pilot_quality {
            crate::engine::rules::PilotQualityRule::Off => "off",
            crate::engine::rules::PilotQualityRule::Record => "record",
        },
        r.fighter_evasion_drm
    );
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
    let v = next.victory;
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
    out
}
