//! The event log as JSON Lines: a versioned mirror of the engine's events,
//! documented in `docs/events.md`. The first line is a header; every later
//! line is one die (`"type": "roll"`) or one event, in the order they
//! happened, numbered by `seq`. Keys come out in alphabetical order.

use serde_json::{Value, json};

use crate::engine::dice::{Pile, Purpose, Roll};
use crate::engine::event::{Entry, Event, Recorder};
use crate::engine::plot::Maneuver;
use crate::engine::state::Battle;
use crate::report::Header;

/// Version of the log schema; raised whenever a field changes meaning or
/// disappears (new fields may be added without a raise).
pub const SCHEMA_VERSION: u32 = 1;

/// Renders the whole log of one Exchange.
pub fn render(header: &Header, battle: &Battle, rec: &Recorder) -> String {
    let mut out = String::new();
    let head = json!({
        "schema": "fam-events",
        "version": SCHEMA_VERSION,
        "title": header.title,
        "seed": header.seed,
        "exchange": header.exchange,
        "sides": battle.sides.iter().map(|s| &s.name).collect::<Vec<_>>(),
        "formations": battle.formations.iter().enumerate().map(|(i, f)| json!({
            "id": i, "name": f.name, "side": f.side, "units": f.units,
        })).collect::<Vec<_>>(),
        "units": battle.units.iter().enumerate().map(|(i, u)| json!({
            "id": i,
            "name": u.name,
            "formation": u.formation,
            "systems": u.systems.iter().map(|s| s.kind.name(u.profile)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    });
    out.push_str(&head.to_string());
    out.push('\n');
    for (i, entry) in rec.entries.iter().enumerate() {
        let mut v = match entry {
            Entry::Roll(r) => roll(r),
            Entry::Event(e) => event(e),
        };
        if let Value::Object(map) = &mut v {
            map.insert("seq".into(), json!(i + 1));
        }
        out.push_str(&v.to_string());
        out.push('\n');
    }
    out
}

fn purpose(p: Purpose) -> &'static str {
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

fn roll(r: &Roll) -> Value {
    let pile = match r.pile {
        Pile::Initial => "initial",
        Pile::Reroll => "reroll",
        Pile::EvasionReroll => "evasion_reroll",
    };
    let die = if r.purpose == Purpose::Targeting { "d100" } else { "d6" };
    json!({"type": "roll", "die": die, "purpose": purpose(r.purpose), "pile": pile, "face": r.face})
}

fn maneuver(m: &Option<(Maneuver, u32)>) -> Value {
    match m {
        None => Value::Null,
        Some((man, points)) => json!({
            "maneuver": match man {
                Maneuver::Close => "close",
                Maneuver::Maintain => "maintain",
                Maneuver::Withdraw => "withdraw",
            },
            "speed_points": points,
        }),
    }
}

fn event(e: &Event) -> Value {
    match e {
        Event::VolleyStarted { .. }
        | Event::PlotCut { .. }
        | Event::Pools { .. }
        | Event::RangeChanged { .. }
        | Event::NovaArmed { .. } => maneuver_event_json(e),
        Event::Acquired { .. } | Event::FireControlIdle { .. } | Event::WeaponIdle { .. } | Event::PulserSet { .. } => {
            targeting_event_json(e)
        }
        Event::BeamAttack { .. } | Event::PlasmaAttack { .. } => beam_event_json(e),
        Event::GraserAttack { .. } | Event::FusionArrayAttack { .. } => graser_event_json(e),
        Event::EmpAttack { .. }
        | Event::EmpTest { .. }
        | Event::NeedleAttack { .. }
        | Event::SystemKilled { .. }
        | Event::BurnOut { .. }
        | Event::ReflexRaised { .. }
        | Event::Reflex { .. } => emp_needle_event_json(e),
        Event::Launch { .. }
        | Event::OnTarget { .. }
        | Event::PdAssigned { .. }
        | Event::PdRoll { .. }
        | Event::MissileHits { .. } => missile_event_json(e),
        Event::RocketAttack { .. }
        | Event::RocketHits { .. }
        | Event::AntimatterHits { .. }
        | Event::RackExplodes { .. } => rocket_event_json(e),
        Event::TorpedoAttack { .. }
        | Event::KGunAttack { .. }
        | Event::MkpAttack { .. }
        | Event::PlasmaBoltAttack { .. }
        | Event::BoardingTorpedoAttack { .. } => projectile_event_json(e),
        Event::WaveGunCharge { .. }
        | Event::WaveGunAttack { .. }
        | Event::WaveGunBacklash { .. }
        | Event::NovaCannonAttack { .. } => template_event_json(e),
        Event::Damage { .. }
        | Event::ArmourLayers { .. }
        | Event::ThresholdCheck { .. }
        | Event::ThresholdRoll { .. }
        | Event::DriveHit { .. }
        | Event::BridgeLost { .. }
        | Event::LifeSupportLost { .. }
        | Event::CoreBreached { .. } => damage_event_json(e),
        Event::Repair { .. }
        | Event::ReactorRoll { .. }
        | Event::Blast { .. }
        | Event::ControlRegained { .. }
        | Event::Surrendered { .. }
        | Event::ToReserve { .. }
        | Event::Arrived { .. }
        | Event::Abandoned { .. }
        | Event::Destroyed { .. } => aftermath_event_json(e),
        Event::CraftLaunched { .. }
        | Event::CraftRecovered { .. }
        | Event::CraftReady { .. }
        | Event::CraftIdle { .. }
        | Event::SecondaryMove { .. }
        | Event::CraftEngaged { .. } => craft_event_json(e),
        Event::CraftRoll { .. } | Event::GroupShot { .. } | Event::CraftLost { .. } => craft_dice_event_json(e),
    }
}

/// The Maneuver step: pools, plot cuts, ranges, ships firing a nova cannon.
fn maneuver_event_json(e: &Event) -> Value {
    match e {
        Event::VolleyStarted { volley } => json!({"type": "volley", "volley": volley}),
        Event::PlotCut {
            formation,
            thrust,
            speed,
            evasion,
        } => json!({"type": "plot_cut", "formation": formation, "thrust": thrust, "speed": speed, "evasion": evasion}),
        Event::Pools {
            formation,
            thrust,
            speed_dice,
            speed_points,
            evasion_dice,
            evasion_points,
        } => json!({
            "type": "pools", "formation": formation, "thrust": thrust,
            "speed_dice": speed_dice, "speed_points": speed_points,
            "evasion_dice": evasion_dice, "evasion_points": evasion_points,
        }),
        Event::RangeChanged {
            a,
            b,
            start,
            a_move,
            b_move,
            after_close,
            after_withdraw,
            end,
        } => json!({
            "type": "range", "a": a, "b": b, "start": start,
            "a_move": maneuver(a_move), "b_move": maneuver(b_move),
            "after_close": after_close, "after_withdraw": after_withdraw, "end": end,
        }),
        Event::NovaArmed {
            unit,
            weapon,
            formation,
        } => json!({
            "type": "nova_armed", "unit": unit, "weapon": weapon, "formation": formation,
        }),
        _ => unreachable!("`event` routes only these events here"),
    }
}

/// Fire Controls: what each acquired, or why it stayed idle, and weapons that did not fire.
fn targeting_event_json(e: &Event) -> Value {
    match e {
        Event::Acquired {
            unit,
            fire_control,
            formation,
            bands,
            roll,
            target,
        } => json!({
            "type": "acquired", "unit": unit, "fire_control": fire_control, "formation": formation,
            "bands": bands.iter().map(|(u, hi)| json!({"unit": u, "upper": hi})).collect::<Vec<_>>(),
            "roll": roll, "target": target,
        }),
        Event::FireControlIdle {
            unit,
            fire_control,
            reason,
        } => json!({"type": "fire_control_idle", "unit": unit, "fire_control": fire_control, "reason": reason}),
        Event::WeaponIdle { unit, weapon, reason } => {
            json!({"type": "weapon_idle", "unit": unit, "weapon": weapon, "reason": reason})
        }
        Event::PulserSet {
            unit,
            weapon,
            setting,
            range,
        } => json!({
            "type": "pulser_set", "unit": unit, "weapon": weapon, "setting": setting.name(), "range": range,
        }),
        _ => unreachable!("`event` routes only these events here"),
    }
}

/// Beam batteries and plasma cannons: every die and what it scored.
fn beam_event_json(e: &Event) -> Value {
    match e {
        Event::BeamAttack {
            unit,
            weapon,
            target,
            range,
            dice,
            drm,
            screen,
            faces,
            reroll_faces,
            normal,
            penetrating,
        } => json!({
            "type": "beam_attack", "unit": unit, "weapon": weapon, "target": target, "range": range,
            "dice": dice, "drm": drm, "screen": screen, "faces": faces, "reroll_faces": reroll_faces,
            "normal": normal, "penetrating": penetrating,
        }),
        Event::PlasmaAttack {
            unit,
            weapon,
            target,
            range,
            dice,
            drm,
            screen,
            faces,
            reroll_faces,
            normal,
            penetrating,
        } => json!({
            "type": "plasma_attack", "unit": unit, "weapon": weapon, "target": target, "range": range,
            "dice": dice, "drm": drm, "screen": screen, "faces": faces, "reroll_faces": reroll_faces,
            "normal": normal, "penetrating": penetrating,
        }),
        _ => unreachable!("`event` routes only these events here"),
    }
}

/// Grasers, phasers and fusion arrays: every die and what it scored.
fn graser_event_json(e: &Event) -> Value {
    match e {
        Event::GraserAttack {
            unit,
            weapon,
            target,
            range,
            dice,
            drm,
            screen,
            faces,
            reroll_faces,
            damage_faces,
            hits,
            reroll_hits,
        } => json!({
            "type": "graser_attack", "unit": unit, "weapon": weapon, "target": target, "range": range,
            "dice": dice, "drm": drm, "screen": screen, "faces": faces, "reroll_faces": reroll_faces,
            "damage_faces": damage_faces, "hits": hits, "reroll_hits": reroll_hits,
        }),
        Event::FusionArrayAttack {
            unit,
            weapon,
            target,
            range,
            mode,
            needed,
            drm,
            face,
            hit,
            dice,
            screen,
            faces,
            reroll_faces,
            normal,
            penetrating,
        } => json!({
            "type": "fusion_array_attack", "unit": unit, "weapon": weapon, "target": target, "range": range,
            "mode": mode.name(), "needed": needed, "drm": drm, "face": face, "hit": hit, "dice": dice,
            "screen": screen, "faces": faces, "reroll_faces": reroll_faces, "normal": normal,
            "penetrating": penetrating,
        }),
        _ => unreachable!("`event` routes only these events here"),
    }
}

/// EMP projectors and their tests, needle beams and the systems they kill, burn-outs, reflex fields.
fn emp_needle_event_json(e: &Event) -> Value {
    match e {
        Event::EmpAttack {
            unit,
            weapon,
            target,
            range,
            dice,
            drm,
            screen,
            faces,
            reroll_faces,
            hits,
        } => json!({
            "type": "emp_attack", "unit": unit, "weapon": weapon, "target": target, "range": range,
            "dice": dice, "drm": drm, "screen": screen, "faces": faces, "reroll_faces": reroll_faces,
            "hits": hits,
        }),
        Event::EmpTest {
            unit,
            weapon,
            target,
            system,
            face,
            modifier,
            needed,
            lost,
        } => json!({
            "type": "emp_test", "unit": unit, "weapon": weapon, "target": target, "system": system,
            "face": face, "modifier": modifier, "needed": needed, "lost": lost,
        }),
        Event::NeedleAttack {
            unit,
            weapon,
            target,
            system,
            range,
            drm,
            faces,
            damage,
            kill,
        } => json!({
            "type": "needle_attack", "unit": unit, "weapon": weapon, "target": target, "system": system,
            "range": range, "drm": drm, "faces": faces, "damage": damage, "kill": kill,
        }),
        Event::SystemKilled { unit, system } => json!({"type": "system_killed", "unit": unit, "system": system}),
        Event::BurnOut { unit, weapon } => json!({"type": "burn_out", "unit": unit, "weapon": weapon}),
        Event::ReflexRaised { unit } => json!({"type": "reflex_raised", "unit": unit}),
        Event::Reflex {
            unit,
            firer,
            weapon,
            face,
            points,
            through,
            reflected,
        } => json!({
            "type": "reflex", "unit": unit, "firer": firer, "weapon": weapon, "face": face,
            "points": points, "through": through, "reflected": reflected,
        }),
        _ => unreachable!("`event` routes only these events here"),
    }
}

/// Missiles: launches, what reaches its target, point defence, what got through.
fn missile_event_json(e: &Event) -> Value {
    match e {
        Event::Launch {
            unit,
            weapon,
            target,
            range,
            max_range,
            wasted,
        } => json!({
            "type": "launch", "unit": unit, "weapon": weapon, "target": target, "range": range,
            "max_range": max_range, "wasted": wasted,
        }),
        Event::OnTarget { unit, weapon, face } => {
            json!({"type": "on_target", "unit": unit, "weapon": launcher_json(*weapon), "face": face})
        }
        Event::PdAssigned {
            unit,
            weapon,
            defends,
            threat,
            automatic,
        } => json!({
            "type": "pd_assigned", "unit": unit, "weapon": weapon, "defends": defends,
            "threat": threat_json(threat), "automatic": automatic,
        }),
        Event::PdRoll {
            unit,
            weapon,
            threat,
            faces,
            reroll_faces,
            evasion_faces,
            kills,
        } => json!({
            "type": "pd_roll", "unit": unit, "weapon": launcher_json(*weapon), "threat": threat_json(threat),
            "faces": faces, "reroll_faces": reroll_faces, "evasion_faces": evasion_faces, "kills": kills,
        }),
        Event::MissileHits {
            unit,
            weapon,
            target,
            on_target,
            killed,
            faces,
            hits,
        } => json!({
            "type": "missile_hits", "unit": unit, "weapon": launcher_json(*weapon), "target": target,
            "on_target": on_target, "killed": killed, "faces": faces, "hits": hits,
        }),
        _ => unreachable!("`event` routes only these events here"),
    }
}

/// Rockets, antimatter missiles and racks that explode.
fn rocket_event_json(e: &Event) -> Value {
    match e {
        Event::RocketAttack {
            unit,
            weapon,
            target,
            range,
            needed,
            drm,
            faces,
            hits,
        } => json!({
            "type": "rocket_attack", "unit": unit, "weapon": weapon, "target": target, "range": range,
            "needed": needed, "drm": drm, "faces": faces, "hits": hits,
        }),
        Event::RocketHits {
            unit,
            weapon,
            target,
            hit,
            killed,
            advanced,
            faces,
            damage,
        } => json!({
            "type": "rocket_hits", "unit": unit, "weapon": weapon, "target": target, "hit": hit,
            "killed": killed, "advanced": advanced, "faces": faces, "damage": damage,
        }),
        Event::AntimatterHits {
            unit,
            weapon,
            target,
            killed,
            screen,
            faces,
            damage,
        } => json!({
            "type": "antimatter_hits", "unit": unit, "weapon": weapon, "target": target,
            "killed": killed, "screen": screen, "faces": faces, "damage": damage,
        }),
        Event::RackExplodes {
            unit,
            system,
            face,
            hull,
            destroyed,
        } => json!({
            "type": "rack_explodes", "unit": unit, "system": system, "face": face, "hull": hull,
            "destroyed": destroyed,
        }),
        _ => unreachable!("`event` routes only these events here"),
    }
}

/// Torpedoes, kinetic guns, MKPs, plasma bolts, boarding torpedoes.
fn projectile_event_json(e: &Event) -> Value {
    match e {
        Event::TorpedoAttack {
            unit,
            weapon,
            target,
            range,
            needed,
            drm,
            face,
            hit,
            damage,
        } => json!({
            "type": "torpedo_attack", "unit": unit, "weapon": weapon, "target": target, "range": range,
            "needed": needed, "drm": drm, "face": face, "hit": hit, "damage": damage,
        }),
        Event::KGunAttack {
            unit,
            weapon,
            target,
            range,
            needed,
            drm,
            face,
            hit,
            doubling,
            damage,
        } => json!({
            "type": "k_gun_attack", "unit": unit, "weapon": weapon, "target": target, "range": range,
            "needed": needed, "drm": drm, "face": face, "hit": hit, "doubling": doubling, "damage": damage,
        }),
        Event::MkpAttack {
            unit,
            weapon,
            target,
            range,
            drm,
            face,
            hits,
        } => json!({
            "type": "mkp_attack", "unit": unit, "weapon": weapon, "target": target, "range": range,
            "drm": drm, "face": face, "hits": hits,
        }),
        Event::PlasmaBoltAttack {
            unit,
            weapon,
            target,
            range,
            screen,
            drm,
            faces,
            damage,
        } => json!({
            "type": "plasma_bolt_attack", "unit": unit, "weapon": weapon, "target": target, "range": range,
            "screen": screen, "drm": drm, "faces": faces, "damage": damage,
        }),
        Event::BoardingTorpedoAttack {
            unit,
            weapon,
            target,
            range,
            needed,
            drm,
            face,
            hit,
        } => json!({
            "type": "boarding_torpedo_attack", "unit": unit, "weapon": weapon, "target": target,
            "range": range, "needed": needed, "drm": drm, "face": face, "hit": hit,
        }),
        _ => unreachable!("`event` routes only these events here"),
    }
}

/// Wave guns and nova cannons.
fn template_event_json(e: &Event) -> Value {
    match e {
        Event::WaveGunCharge {
            unit,
            weapon,
            face,
            charge,
        } => json!({
            "type": "wave_gun_charge", "unit": unit, "weapon": weapon, "face": face, "charge": charge,
        }),
        Event::WaveGunAttack {
            unit,
            weapon,
            target,
            range,
            screen,
            drm,
            faces,
            damage,
        } => json!({
            "type": "wave_gun_attack", "unit": unit, "weapon": weapon, "target": target, "range": range,
            "screen": screen, "drm": drm, "faces": faces, "damage": damage,
        }),
        Event::WaveGunBacklash {
            unit,
            weapon,
            charge,
            hull,
            destroyed,
        } => json!({
            "type": "wave_gun_backlash", "unit": unit, "weapon": weapon, "charge": charge, "hull": hull,
            "destroyed": destroyed,
        }),
        Event::NovaCannonAttack {
            unit,
            weapon,
            target,
            range,
            drm,
            faces,
            damage,
        } => json!({
            "type": "nova_cannon_attack", "unit": unit, "weapon": weapon, "target": target, "range": range,
            "drm": drm, "faces": faces, "damage": damage,
        }),
        _ => unreachable!("`event` routes only these events here"),
    }
}

/// The Damage step: armour and hull, layers, thresholds and what they take.
fn damage_event_json(e: &Event) -> Value {
    match e {
        Event::Damage {
            unit,
            normal,
            sap,
            ap,
            penetrating,
            armour,
            hull,
            rows_completed,
            crew_lost,
            destroyed,
        } => json!({
            "type": "damage", "unit": unit, "normal": normal, "sap": sap, "ap": ap, "penetrating": penetrating,
            "armour": armour, "hull": hull, "rows_completed": rows_completed,
            "crew_lost": crew_lost, "destroyed": destroyed,
        }),
        Event::ArmourLayers { unit, taken } => json!({"type": "armour_layers", "unit": unit, "taken": taken}),
        Event::ThresholdCheck {
            unit,
            row,
            extra_rows,
            needed,
        } => json!({"type": "threshold_check", "unit": unit, "row": row, "extra_rows": extra_rows, "needed": needed}),
        Event::ThresholdRoll {
            unit,
            system,
            face,
            modifier,
            lost,
        } => json!({
            "type": "threshold_roll", "unit": unit, "system": system, "face": face,
            "modifier": modifier, "lost": lost,
        }),
        Event::DriveHit { unit, thrust } => json!({"type": "drive_hit", "unit": unit, "thrust": thrust}),
        Event::BridgeLost { unit, face, volleys } => {
            json!({"type": "bridge_lost", "unit": unit, "face": face, "volleys": volleys})
        }
        Event::LifeSupportLost { unit, face } => json!({"type": "life_support_lost", "unit": unit, "face": face}),
        Event::CoreBreached { unit } => json!({"type": "core_breached", "unit": unit}),
        _ => unreachable!("`event` routes only these events here"),
    }
}

/// After the damage: repairs, power cores, control, surrender, the Reserve, losses.
fn aftermath_event_json(e: &Event) -> Value {
    match e {
        Event::Repair {
            unit,
            system,
            parties,
            face,
            repaired,
        } => json!({
            "type": "repair", "unit": unit, "system": system, "parties": parties,
            "face": face, "repaired": repaired,
        }),
        Event::ReactorRoll { unit, face, exploded } => {
            json!({"type": "reactor_roll", "unit": unit, "face": face, "exploded": exploded})
        }
        Event::Blast {
            source,
            unit,
            faces,
            damage,
        } => json!({"type": "blast", "source": source, "unit": unit, "faces": faces, "damage": damage}),
        Event::ControlRegained { unit } => json!({"type": "control_regained", "unit": unit}),
        Event::Surrendered { unit, face } => json!({"type": "surrendered", "unit": unit, "face": face}),
        Event::ToReserve { formation } => json!({"type": "to_reserve", "formation": formation}),
        Event::Arrived { formation } => json!({"type": "arrived", "formation": formation}),
        Event::Abandoned { unit } => json!({"type": "abandoned", "unit": unit}),
        Event::Destroyed { unit, cause } => json!({"type": "destroyed", "unit": unit, "cause": cause}),
        _ => unreachable!("`event` routes only these events here"),
    }
}

/// Fighter groups and gunboat squadrons: launches, recoveries, moves and engagements.
fn craft_event_json(e: &Event) -> Value {
    match e {
        Event::CraftLaunched { group, carrier } => {
            json!({"type": "craft_launched", "group": group, "carrier": carrier})
        }
        Event::CraftRecovered {
            group,
            carrier,
            face,
            ready_in,
        } => json!({
            "type": "craft_recovered", "group": group, "carrier": carrier, "face": face, "ready_in": ready_in,
        }),
        Event::CraftReady { group } => json!({"type": "craft_ready", "group": group}),
        Event::CraftIdle { group, reason } => json!({"type": "craft_idle", "group": group, "reason": reason}),
        Event::SecondaryMove {
            formation,
            target,
            maneuver,
            start,
            end,
        } => json!({
            "type": "secondary_move", "formation": formation, "target": target,
            "maneuver": maneuver_key(*maneuver), "start": start, "end": end,
        }),
        Event::CraftEngaged {
            group,
            target,
            action,
            cef_left,
        } => json!({
            "type": "craft_engaged", "group": group, "target": target, "action": action, "cef_left": cef_left,
        }),
        _ => unreachable!("`event` routes only these events here"),
    }
}

/// Small craft's dice: attack runs, dogfights, ships' shots at groups, and losses.
fn craft_dice_event_json(e: &Event) -> Value {
    match e {
        Event::CraftRoll {
            group,
            target,
            action,
            dice,
            drm,
            faces,
            reroll_faces,
            evasion_faces,
            kills,
            normal,
            penetrating,
            sap,
            k_gun,
        } => {
            let mut v = json!({
                "type": "craft_roll", "group": group, "target": target, "action": action, "dice": dice, "drm": drm,
                "faces": faces, "reroll_faces": reroll_faces, "evasion_faces": evasion_faces, "kills": kills,
                "normal": normal, "penetrating": penetrating, "sap": sap,
            });
            // K-gun gunboats only: the doubling dice and their damage.
            if *action == "k-gun attack" {
                v["doubling"] = json!(k_gun.iter().map(|h| h.0).collect::<Vec<_>>());
                v["ap"] = json!(k_gun.iter().map(|h| h.1).collect::<Vec<_>>());
            }
            // Rocket gunboats: each hit's damage die (read as 1d3).
            if *action == "rocket attack" {
                v["damage_faces"] = json!(k_gun.iter().map(|h| h.0).collect::<Vec<_>>());
            }
            v
        }
        Event::GroupShot {
            unit,
            weapon,
            group,
            drm,
            faces,
            kills,
        } => json!({
            "type": "group_shot", "unit": unit, "weapon": weapon, "group": group, "drm": drm,
            "faces": faces, "kills": kills,
        }),
        Event::CraftLost {
            group,
            lost,
            left,
            cause,
        } => json!({"type": "craft_lost", "group": group, "lost": lost, "left": left, "cause": cause}),
        _ => unreachable!("`event` routes only these events here"),
    }
}

fn maneuver_key(m: Maneuver) -> &'static str {
    match m {
        Maneuver::Close => "close",
        Maneuver::Maintain => "maintain",
        Maneuver::Withdraw => "withdraw",
    }
}

/// A salvo's launcher or a PD weapon: its system index, or `"gunboat
/// salvo"` for a missile gunboat's salvo (readings F45), `"gunboat PDS"`
/// for a PDS gunboat squadron's dice (F46).
fn launcher_json(w: usize) -> Value {
    if w == crate::engine::volley::GUNBOAT_SALVO {
        json!("gunboat salvo")
    } else if w == crate::engine::volley::GUNBOAT_PDS {
        json!("gunboat PDS")
    } else {
        json!(w)
    }
}

/// A PD threat: a missile launcher's Unit and weapon, or a group (no weapon).
fn threat_json(t: &(usize, usize)) -> Value {
    if t.1 == crate::engine::volley::CRAFT_THREAT {
        json!({"unit": t.0, "weapon": null})
    } else if t.1 == crate::engine::volley::GUNBOAT_SALVO {
        json!({"unit": t.0, "weapon": "gunboat salvo"})
    } else {
        json!({"unit": t.0, "weapon": t.1})
    }
}
