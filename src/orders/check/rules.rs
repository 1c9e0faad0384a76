//! The scenario's `[rules]` switches, its `seed` and its `exchange` number.

use super::files::Files;
use super::groups::pilot_rule;
use crate::diag::Diagnostic;
use crate::engine::rules::{PdEvasionReroll, RerollDepth, Rules};
use crate::orders::raw::{self, RawPdEvasionReroll, S};

/// The highest Exchange number a scenario may start at (`exchange = N`):
/// with up to 1000 more played, every Exchange number fits.
pub const MAX_EXCHANGE_NUMBER: u32 = 1_000_000;

/// The `[rules]` switches, each left out at its default.
pub(super) fn rules_of(raw_rules: &Option<raw::RawRules>) -> Rules {
    match raw_rules {
        None => Rules::default(),
        Some(r) => {
            let d = Rules::default();
            Rules {
                reactor_blast: r.reactor_blast.unwrap_or(d.reactor_blast),
                repair_permanent_bridge: r.repair_permanent_bridge.unwrap_or(d.repair_permanent_bridge),
                double_drive_check: r.double_drive_check.unwrap_or(d.double_drive_check),
                needle_fb1: r.needle_fb1.unwrap_or(d.needle_fb1),
                strike_colours: r.strike_colours.unwrap_or(d.strike_colours),
                pilot_quality: pilot_rule(r.pilot_quality),
                fighter_evasion_drm: r.fighter_evasion_drm.unwrap_or(d.fighter_evasion_drm),
                pd_evasion_reroll: match r.pd_evasion_reroll {
                    None => d.pd_evasion_reroll,
                    Some(RawPdEvasionReroll::AnyMiss) => PdEvasionReroll::AnyMiss,
                    Some(RawPdEvasionReroll::OncePerDie) => PdEvasionReroll::OncePerDie,
                },
                needle_six_scores: r.needle_six_scores.unwrap_or(d.needle_six_scores),
                plasma_bolt_formation: r.plasma_bolt_formation.unwrap_or(d.plasma_bolt_formation),
                wave_gun_formation: r.wave_gun_formation.unwrap_or(d.wave_gun_formation),
                nova_cannon_formation: r.nova_cannon_formation.unwrap_or(d.nova_cannon_formation),
                vapour_shroud_own_fire: r.vapour_shroud_own_fire.unwrap_or(d.vapour_shroud_own_fire),
                antimatter_pd_heavy: r.antimatter_pd_heavy.unwrap_or(d.antimatter_pd_heavy),
                reroll_depth: match r.reroll_depth {
                    None => d.reroll_depth,
                    Some(raw::RawRerollDepth::PerGeneration) => RerollDepth::PerGeneration,
                    Some(raw::RawRerollDepth::NextLayer) => RerollDepth::NextLayer,
                },
                emp_advanced_screens: r.emp_advanced_screens.unwrap_or(d.emp_advanced_screens),
                ..d
            }
        }
    }
}

/// The scenario's `seed`: an integer, or the digits of one above 2^63 − 1.
pub(super) fn seed_of(files: &mut Files, seed: &Option<S<raw::RawSeed>>) -> Option<u64> {
    const SC: usize = 0;
    seed.as_ref().and_then(|s| {
        let (value, message) = match s.get_ref() {
            raw::RawSeed::Integer(v) => (u64::try_from(*v).ok(), "a seed cannot be negative"),
            raw::RawSeed::Digits(d) => (
                d.parse::<u64>().ok().filter(|_| d.bytes().all(|b| b.is_ascii_digit())),
                "a seed written as a string holds only the digits of a whole number up to 18446744073709551615",
            ),
        };
        if value.is_none() {
            files.push(
                SC,
                Diagnostic::error(
                    s.span(),
                    message,
                    "a whole number from 0 to 9223372036854775807, or its digits in quotes up to 18446744073709551615",
                ),
            );
        }
        value
    })
}

/// The scenario's `exchange` number (1 when left out).
pub(super) fn exchange_of(files: &mut Files, exchange: &Option<S<i64>>) -> u32 {
    const SC: usize = 0;
    match exchange {
        None => 1,
        Some(e) => match u32::try_from(*e.get_ref()) {
            Ok(n) if (1..=MAX_EXCHANGE_NUMBER).contains(&n) => n,
            _ => {
                let message = if *e.get_ref() < 1 {
                    "Exchanges are numbered from 1".to_string()
                } else {
                    format!(
                        "Exchange {} is beyond the last fam numbers ({MAX_EXCHANGE_NUMBER})",
                        e.get_ref()
                    )
                };
                files.push(
                    SC,
                    Diagnostic::error(
                        e.span(),
                        message,
                        format!("a whole number from 1 to {MAX_EXCHANGE_NUMBER}"),
                    ),
                );
                1
            }
        },
    }
}
