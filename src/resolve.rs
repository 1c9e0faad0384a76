//! One Exchange from loaded input to everything a moderator posts: the
//! report, the event log, the updated ship records and the state the next
//! Exchange starts from. Pure: the CLI does the file I/O.

use std::fmt::Write as _;

use crate::engine::dice::Dice;
use crate::engine::event::Recorder;
use crate::engine::plot::ExchangePlot;
use crate::engine::state::{Battle, Control};
use crate::engine::volley::{Scratch, run_exchange};
use crate::report::{self, Header, Style};

/// What one resolved Exchange produced.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub report: String,
    pub log: String,
    /// The battle after the Exchange.
    pub battle: Battle,
    /// Ranges and statuses as TOML, for the next Exchange's scenario.
    pub state: String,
}

/// Plays one Exchange with every die recorded and renders its outputs.
pub fn resolve(header: &Header, battle: &Battle, plot: &ExchangePlot, style: Style) -> Resolved {
    let mut after = battle.clone();
    let mut rec = Recorder::default();
    let mut dice = Dice::new(header.seed);
    run_exchange(&mut after, plot, &mut dice, &mut rec, &mut Scratch::default());
    Resolved {
        report: report::render(header, battle, &after, &rec, style),
        log: crate::log::render(header, battle, &rec),
        state: state_toml(header, &after),
        battle: after,
    }
}

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The ranges and Unit statuses after an Exchange, as TOML: the `[[range]]`
/// tables have the scenario's own form, so they can be pasted into (or
/// loaded with) the next Exchange's scenario.
pub fn state_toml(header: &Header, battle: &Battle) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# State after Exchange {} of {}.",
        header.exchange,
        quote(&header.title)
    );
    let _ = writeln!(
        s,
        "# The [[range]] tables start the next Exchange; the [[unit]] tables are for reading."
    );
    let _ = writeln!(s, "exchange = {}", header.exchange);
    let _ = writeln!(s, "seed = {}", header.seed);
    let n = battle.formations.len();
    for a in 0..n {
        for b in a + 1..n {
            let _ = writeln!(
                s,
                "\n[[range]]\nbetween = [{}, {}]\nmu = {}",
                quote(&battle.formations[a].name),
                quote(&battle.formations[b].name),
                battle.ranges.get(a, b)
            );
        }
    }
    for u in &battle.units {
        let status = if u.destroyed {
            "destroyed"
        } else if u.derelict {
            "derelict"
        } else if u.crippled() {
            "crippled"
        } else if u.hull_lost > 0 {
            "damaged"
        } else {
            "intact"
        };
        let _ = writeln!(
            s,
            "\n[[unit]]\nname = {}\nformation = {}\nstatus = \"{status}\"\nhull = \"{}/{}\"\narmour = \"{}/{}\"\nthrust = {}\nout_of_control = {}",
            quote(&u.name),
            quote(&battle.formations[u.formation].name),
            u.hull_left(),
            u.hull_total,
            u.armour_left(),
            u.armour_total,
            u.thrust,
            u.control != Control::InControl,
        );
    }
    s
}
