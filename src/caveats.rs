//! What a battle's result may hinge on beyond the rules text, said in the
//! reports: every `[rules]` switch set away from its default, and the
//! disputed readings (docs/readings.md) that apply because of what the
//! Units carry. Pure: it reads the battle and writes sentences.

use crate::engine::rules::{PilotQualityRule, Rules};
use crate::engine::state::Battle;
use crate::model::SystemKind;

/// `key = value (default …)` for every switch of `rules` that differs
/// from the default, in `docs/orders.md` order.
pub fn switches(rules: &Rules) -> Vec<String> {
    let d = Rules::DEFAULT;
    let mut out = Vec::new();
    let mut flag = |key: &str, value: bool, default: bool| {
        if value != default {
            out.push(format!("{key} = {value} (default {default})"));
        }
    };
    flag("reactor_blast", rules.reactor_blast, d.reactor_blast);
    flag(
        "repair_permanent_bridge",
        rules.repair_permanent_bridge,
        d.repair_permanent_bridge,
    );
    flag("double_drive_check", rules.double_drive_check, d.double_drive_check);
    flag("needle_fb1", rules.needle_fb1, d.needle_fb1);
    flag("reserves", rules.reserves, d.reserves);
    flag("reserves_need_ftl", rules.reserves_need_ftl, d.reserves_need_ftl);
    flag("strike_colours", rules.strike_colours, d.strike_colours);
    flag("fighter_evasion_drm", rules.fighter_evasion_drm, d.fighter_evasion_drm);
    flag("needle_six_scores", rules.needle_six_scores, d.needle_six_scores);
    flag(
        "plasma_bolt_formation",
        rules.plasma_bolt_formation,
        d.plasma_bolt_formation,
    );
    flag("wave_gun_formation", rules.wave_gun_formation, d.wave_gun_formation);
    flag(
        "nova_cannon_formation",
        rules.nova_cannon_formation,
        d.nova_cannon_formation,
    );
    flag(
        "vapour_shroud_own_fire",
        rules.vapour_shroud_own_fire,
        d.vapour_shroud_own_fire,
    );
    flag(
        "emp_advanced_screens",
        rules.emp_advanced_screens,
        d.emp_advanced_screens,
    );
    flag("antimatter_pd_heavy", rules.antimatter_pd_heavy, d.antimatter_pd_heavy);
    if rules.pilot_quality != d.pilot_quality {
        let key = |p: PilotQualityRule| match p {
            PilotQualityRule::Off => "off",
            PilotQualityRule::Record => "record",
        };
        out.push(format!(
            "pilot_quality = \"{}\" (default \"{}\")",
            key(rules.pilot_quality),
            key(d.pilot_quality)
        ));
    }
    if rules.pd_evasion_reroll != d.pd_evasion_reroll {
        out.push(format!(
            "pd_evasion_reroll = \"{}\" (default \"{}\")",
            rules.pd_evasion_reroll.key(),
            d.pd_evasion_reroll.key()
        ));
    }
    if rules.reroll_depth != d.reroll_depth {
        out.push(format!(
            "reroll_depth = \"{}\" (default \"{}\")",
            rules.reroll_depth.key(),
            d.reroll_depth.key()
        ));
    }
    out
}

/// A reading the report names when it applies to the battle: when it
/// applies, and its sentence under the battle's switches.
struct Reading {
    when: When,
    text: fn(&Rules) -> String,
}

/// When a reading applies.
enum When {
    /// A Unit carries a kind whose registry row names this reading
    /// ([`SystemKind::caveat`]).
    Carried(&'static str),
    /// A Unit has armour of several layers.
    Layered,
}

impl When {
    fn applies(&self, b: &Battle) -> bool {
        match self {
            When::Carried(code) => carried(b, |k| k.caveat() == Some(*code)),
            When::Layered => b.units.iter().any(|u| u.armour_layers.len() > 1),
        }
    }
}

/// Whether any Unit carries a system of a kind.
fn carried(b: &Battle, f: impl Fn(&SystemKind) -> bool) -> bool {
    b.units.iter().any(|u| u.systems.iter().any(|s| f(&s.kind)))
}

/// The disputed or second-hand readings, in the order the report names them.
const READINGS: &[Reading] = &[
    Reading {
        when: When::Carried("W38"),
        text: |r| {
            format!(
                "vapour shrouds screen their ships at level 2{} (readings W38: second-hand sources; switch vapour_shroud_own_fire)",
                if r.vapour_shroud_own_fire {
                    " and their own fire too"
                } else {
                    ", not their own fire"
                }
            )
        },
    },
    Reading {
        when: When::Carried("W37"),
        text: |r| {
            format!(
                "a plasma bolt bursts on {} (readings W37, switch plasma_bolt_formation), reaches 36 MU and recharges through the next Volley (W35)",
                if r.plasma_bolt_formation {
                    "every ship of the target Formation"
                } else {
                    "the acquired Unit only"
                }
            )
        },
    },
    Reading {
        when: When::Carried("W50"),
        text: |_| {
            "rocket pods roll to hit before point defence shoots at the rockets that hit, as at salvo missiles (readings W50, W51)"
                .to_string()
        },
    },
    Reading {
        when: When::Carried("W54"),
        text: |r| {
            format!(
                "an antimatter missile loses a die per point-defence hit on the {} column (readings W54, switch antimatter_pd_heavy), each die less standard and advanced screens; a rack exploding on a threshold hurts only its own ship (W55)",
                if r.antimatter_pd_heavy {
                    "heavy-missile"
                } else {
                    "salvo-missile"
                }
            )
        },
    },
    Reading {
        when: When::Carried("W56"),
        text: |_| {
            "boarding torpedoes score their hull point only: the marines they land are ignored, as fam plays no boarding (readings W56)"
                .to_string()
        },
    },
    Reading {
        when: When::Layered,
        text: |r| {
            format!(
                "beam rerolls go {} into layered armour (readings W33, switch reroll_depth)",
                match r.reroll_depth {
                    crate::engine::rules::RerollDepth::PerGeneration => "one layer deeper each generation",
                    crate::engine::rules::RerollDepth::NextLayer => "to the next layer",
                }
            )
        },
    },
    Reading {
        when: When::Carried("W20"),
        text: |_| {
            "every point a graser or phaser die scores is a hit of 1d3 (readings W20: a third more than one hit per scoring die)"
                .to_string()
        },
    },
    Reading {
        when: When::Carried("W59"),
        text: |r| {
            format!(
                "a wave gun charges a d6 a Volley it is plotted and holds the charge only through the Exchange (readings W59), and its template touches {} (W59, switch wave_gun_formation)",
                if r.wave_gun_formation {
                    "every ship of the target Formation"
                } else {
                    "the acquired Unit only"
                }
            )
        },
    },
    Reading {
        when: When::Carried("W63"),
        text: |r| {
            format!(
                "a nova cannon's blast lands in the Volley it is fired, 6/4/2 d6 by the turn of its travel that reaches the range, and touches {} (readings W63, W64, switch nova_cannon_formation)",
                if r.nova_cannon_formation {
                    "every ship of the target Formation"
                } else {
                    "the acquired Unit only"
                }
            )
        },
    },
    Reading {
        when: When::Carried("W58"),
        text: |_| {
            "a high-intensity graser is read as a heavy graser whose natural 6s reroll into penetrating hits of 1d6 (readings W58)"
                .to_string()
        },
    },
    Reading {
        when: When::Carried("W57"),
        text: |_| {
            "a fusion array needs 1+ with 6 beam dice near and 6 with 1 die at 31-36 MU in flare mode, the reverse in torpedo mode, and fires in the better one (readings W57)"
                .to_string()
        },
    },
    Reading {
        when: When::Carried("W26"),
        text: |_| "Pulsers with no setting are set by the commander when they first fire (readings W26)".to_string(),
    },
    Reading {
        when: When::Carried("W43"),
        text: |r| {
            format!(
                "each EMP hit forces one threshold test, on another system each, chosen by a fixed priority, \
             at +1 per hull row lost this Volley; {} (readings W43-W46, switch emp_advanced_screens)",
                if r.emp_advanced_screens {
                    "advanced screens stop EMP dice as beam screens"
                } else {
                    "no screen stops EMP dice"
                }
            )
        },
    },
    Reading {
        when: When::Carried("W60"),
        text: |_| {
            "a raised reflex field rolls one d6 per energy-weapon shot that scores (its dice and rerolls together), \
             not per die; it stops beam batteries, AA megabatteries, the beam family and fusion arrays, not \
             submunitions, EMP, needle beams, fighters, kinetic or missile weapons; a ship behind it fires no \
             weapon, point defence included (readings W60-W61, O41)"
                .to_string()
        },
    },
];

/// What a batch's odds may hinge on: the switches set away from their
/// defaults, then the readings that apply to this battle.
pub fn of_battle(b: &Battle) -> Vec<String> {
    let mut out = switches(&b.rules);
    out.extend(readings(b));
    out
}

/// The disputed or second-hand readings that apply to this battle, one
/// sentence each, naming the reading and its switch where it has one.
pub fn readings(b: &Battle) -> Vec<String> {
    let mut out: Vec<String> = READINGS
        .iter()
        .filter(|r| r.when.applies(b))
        .map(|r| (r.text)(&b.rules))
        .collect();
    let inert = b
        .units
        .iter()
        .flat_map(|u| &u.systems)
        .filter(|s| s.kind.is_inert())
        .count();
    if inert > 0 {
        out.push(format!(
            "{inert} inert system{} (loaded with --inert-unknown-systems) play no part",
            if inert == 1 { "" } else { "s" }
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::registry::ROWS;

    #[test]
    fn every_reading_a_row_names_has_its_sentence_and_every_sentence_a_row() {
        let carried: Vec<&str> = READINGS
            .iter()
            .filter_map(|r| match r.when {
                When::Carried(code) => Some(code),
                When::Layered => None,
            })
            .collect();
        for row in ROWS {
            if let Some(code) = row.caveat {
                assert!(carried.contains(&code), "{code} of {:?} has no sentence", row.family);
            }
        }
        for code in carried {
            assert!(
                ROWS.iter().any(|r| r.caveat == Some(code)),
                "{code}: no kind brings it in"
            );
        }
    }
}
