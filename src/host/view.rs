//! What the host shows: the public display of a game, a battle's state in
//! a few numbers (for the display's table and picture), and what a
//! commander's form may name. Serde structs, written as JSON.

use serde::Serialize;

use crate::engine::state::Battle;

use super::store::{self, Game, Side, Turn};

/// A battle as it stands: the ranges between Formations and each Unit's
/// state.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct Summary {
    pub ranges: Vec<Range>,
    pub units: Vec<UnitState>,
}

#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct Range {
    pub between: [String; 2],
    pub mu: u32,
}

#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct UnitState {
    pub name: String,
    pub side: String,
    pub formation: String,
    pub status: String,
    /// Hull boxes left of the whole, `left/total`.
    pub hull: String,
    /// Out of the fight (destroyed, derelict, surrendered).
    pub lost: bool,
}

/// The state of `battle`.
pub fn summary(battle: &Battle) -> Summary {
    let n = battle.formations.len();
    let mut ranges = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            ranges.push(Range {
                between: [battle.formations[a].name.clone(), battle.formations[b].name.clone()],
                mu: battle.ranges.get(a, b),
            });
        }
    }
    let units = battle
        .units
        .iter()
        .map(|u| UnitState {
            name: u.name.clone(),
            side: battle.sides[u.side].name.clone(),
            formation: battle.formations[u.formation].name.clone(),
            status: crate::resolve::unit_status(u).to_string(),
            hull: format!("{}/{}", u.hull_left(), u.hull_total),
            lost: !u.active(),
        })
        .collect();
    Summary { ranges, units }
}

/// The public display of a game (docs/host.md): who plays, who has
/// plotted (never what), the deadline, the battle as it stands and every
/// resolved Exchange's report.
#[derive(Debug, Clone, Serialize)]
pub struct Display {
    pub id: String,
    pub title: String,
    pub status: &'static str,
    /// The Exchange being plotted (the last one played, once completed).
    pub exchange: u32,
    /// When the Exchange being plotted resolves with what is in (RFC 3339).
    pub deadline: Option<String>,
    /// The time each Exchange allows (`24h`), or null: until all plots are in.
    pub deadline_rule: Option<String>,
    pub outcome: Option<String>,
    pub sides: Vec<SideView>,
    pub turns: Vec<TurnView>,
    /// The battle before the first Exchange.
    pub start: Summary,
    /// The battle as the Exchange being plotted starts (after the last one
    /// played, once completed).
    pub state: Summary,
}

#[derive(Debug, Clone, Serialize)]
pub struct SideView {
    pub side: usize,
    pub name: String,
    pub commander: Option<String>,
    /// Whether this side's plot for the Exchange being plotted is in.
    pub submitted: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct TurnView {
    pub exchange: u32,
    pub trigger: String,
    pub resolved_at: String,
    pub report: String,
    /// The sides that played their orders template, having sent no plot.
    pub templates_played: Vec<String>,
    pub summary: Summary,
}

/// One side's orders as an Exchange played them (`turns.orders`).
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct Played {
    pub side: usize,
    pub name: String,
    /// The file's name in the turn directory.
    pub file: String,
    pub text: String,
    /// The commander's plot (else the side played its template).
    pub submitted: bool,
}

/// A unix time as RFC 3339, in UTC.
pub fn rfc3339(unix: i64) -> String {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(unix.max(0) as u64);
    humantime::format_rfc3339_seconds(t).to_string()
}

/// A duration in seconds as the host reads it back (`90s`, `10m`, `24h`).
pub fn duration_text(seconds: u64) -> String {
    humantime::format_duration(std::time::Duration::from_secs(seconds)).to_string()
}

/// The display of `game`, its sides, the plots in and its turns; `opening`
/// is the battle before the first Exchange.
pub fn display(game: &Game, sides: &[Side], plotted: &[usize], turns: &[Turn], opening: &Summary) -> Display {
    let turns: Vec<TurnView> = turns
        .iter()
        .map(|t| {
            let played: Vec<Played> = serde_json::from_str(&t.orders).unwrap_or_default();
            TurnView {
                exchange: t.exchange,
                trigger: t.trigger.clone(),
                resolved_at: rfc3339(t.resolved_at),
                report: t.report.clone(),
                templates_played: played.into_iter().filter(|p| !p.submitted).map(|p| p.name).collect(),
                summary: serde_json::from_str(&t.summary).unwrap_or_else(|_| opening.clone()),
            }
        })
        .collect();
    let state = turns.last().map_or_else(|| opening.clone(), |t| t.summary.clone());
    Display {
        id: game.id.clone(),
        title: game.title.clone(),
        status: game.status.key(),
        exchange: game.exchange,
        deadline: game.deadline_at.map(rfc3339),
        deadline_rule: game.deadline_seconds.map(duration_text),
        outcome: game.outcome.clone(),
        sides: sides
            .iter()
            .map(|s| SideView {
                side: s.side,
                name: s.name.clone(),
                commander: s.commander.clone(),
                submitted: game.status == store::Status::Progress && plotted.contains(&s.side),
            })
            .collect(),
        turns,
        start: opening.clone(),
        state,
    }
}

/// What a side's orders may name, for the page's form.
#[derive(Debug, Clone, Serialize)]
pub struct Form {
    pub formations: Vec<FormationForm>,
    /// The enemy Formations, by name.
    pub targets: Vec<String>,
    /// The side's own Formations, by name.
    pub own: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FormationForm {
    pub name: String,
    /// Formation Thrust: Speed + Evasion.
    pub thrust: u32,
    /// Evasion may be at most this.
    pub evasion_max: u32,
    pub active: bool,
    pub units: Vec<UnitForm>,
}

#[derive(Debug, Clone, Serialize)]
pub struct UnitForm {
    pub name: String,
    /// The numbers of its working Fire Controls.
    pub fire_controls: Vec<usize>,
    pub weapons: Vec<WeaponForm>,
}

#[derive(Debug, Clone, Serialize)]
pub struct WeaponForm {
    /// The system's 1-based number, as orders name it.
    pub number: usize,
    pub name: String,
    /// May be put on point defence.
    pub pd: bool,
}

/// The form of side `side` in `battle`.
pub fn form(battle: &Battle, side: usize) -> Form {
    let name_of = |f: usize| battle.formations[f].name.clone();
    let fs = 0..battle.formations.len();
    let own: Vec<usize> = fs.clone().filter(|f| battle.formations[*f].side == side).collect();
    Form {
        formations: own
            .iter()
            .map(|&f| {
                let thrust = battle.formation_thrust(f);
                FormationForm {
                    name: name_of(f),
                    thrust,
                    evasion_max: battle.evasion_cap(f, thrust),
                    active: battle.formation_active(f),
                    units: battle.formations[f]
                        .units
                        .iter()
                        .map(|&u| unit_form(battle, u))
                        .collect(),
                }
            })
            .collect(),
        targets: fs.filter(|f| battle.formations[*f].side != side).map(name_of).collect(),
        own: own.iter().map(|&f| name_of(f)).collect(),
    }
}

fn unit_form(battle: &Battle, u: usize) -> UnitForm {
    let unit = &battle.units[u];
    UnitForm {
        name: unit.name.clone(),
        fire_controls: unit.fire_controls().map(|s| s + 1).collect(),
        weapons: unit
            .systems
            .iter()
            .enumerate()
            .filter(|(_, s)| s.kind.is_weapon() && s.operational())
            .map(|(i, s)| WeaponForm {
                number: i + 1,
                name: s.kind.name(unit.profile),
                pd: s.kind.may_point_defend(),
            })
            .collect(),
    }
}
