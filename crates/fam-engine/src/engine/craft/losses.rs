//! Craft lost in the Damage step, and at the end of the Volley the groups
//! docked in a lost bay or carrier.

use super::common::remove_craft;
use crate::engine::event::{Destroyed, Sink};
use crate::engine::scratch::Scratch;
use crate::engine::state::{Battle, SysState};

/// Damage step: craft lost in dogfights and to ship fire at fighters.
pub fn apply_losses<S: Sink>(battle: &mut Battle, sink: &mut S, scratch: &mut Scratch) {
    if !scratch.craft.any {
        return;
    }
    for g in 0..battle.units.len() {
        let n = scratch.craft.losses[g];
        if n > 0 && battle.units[g].active() {
            remove_craft(battle, g, n, "dogfights and ship fire", sink);
        }
    }
}

/// End of the Volley: groups docked in a lost bay or a lost carrier are
/// destroyed (a carrier may still blow up in the power-core step);
/// launches stop counting as this Volley's.
pub fn wrap_up<S: Sink>(battle: &mut Battle, sink: &mut S, scratch: &Scratch) {
    if !scratch.craft.any {
        return;
    }
    docked_losses(battle, sink, scratch);
    for u in &mut battle.units {
        if let Some(c) = u.craft.as_mut() {
            c.launched_now = false;
        }
    }
}

/// Groups docked in a lost bay or a lost carrier are destroyed (reading
/// F20). Called right after the threshold checks (docs/fighters.md §2 step
/// 9), so a bay that damage control repairs in the same Volley does not
/// save its group, and again at the end of the Volley.
pub fn docked_losses<S: Sink>(battle: &mut Battle, sink: &mut S, scratch: &Scratch) {
    if !scratch.craft.any {
        return;
    }
    for g in 0..battle.units.len() {
        let Some(c) = battle.units[g].craft else {
            continue;
        };
        let Some((carrier, bay)) = c.carrier else { continue };
        if !c.docked || battle.units[g].destroyed {
            continue;
        }
        let carrier_lost = battle.units[carrier].destroyed;
        let bay_lost = battle.units[carrier]
            .systems
            .get(bay)
            .is_none_or(|s| s.state != SysState::Operational);
        if carrier_lost || bay_lost {
            battle.units[g].destroyed = true;
            if S::RECORDS {
                sink.event(Destroyed {
                    unit: g,
                    cause: if carrier_lost {
                        "lost with its carrier"
                    } else {
                        "lost with its hangar bay"
                    },
                });
            }
        }
    }
}
