//! One event of every kind the engine records, and of every shape a kind's
//! log line takes: a craft roll of a K-gun and of a rocket attack (their
//! extra keys) and of a dogfight (without them), point-defence threats by a
//! launcher, a group and a gunboat salvo, a PDS gunboat's dice, a gunboat
//! salvo on target. `docs_json` reads docs/events.md against their lines
//! and asks for one here of every kind of line the document lists.

use fam::engine::event::*;
use fam::engine::plot::Maneuver;
use fam::engine::tables::FusionMode;
use fam::engine::volley::{CRAFT_THREAT, GUNBOAT_PDS, GUNBOAT_SALVO};
use fam::model::PulserSetting;

/// Every kind of event, in the order of the families.
pub fn every_kind() -> Vec<Event> {
    let mut all = Vec::new();
    all.extend(maneuver());
    all.extend(fire());
    all.extend(ordnance());
    all.extend(damage());
    all.extend(craft());
    all
}

fn maneuver() -> Vec<Event> {
    vec![
        VolleyStarted { volley: 2 }.into(),
        PlotCut {
            formation: 1,
            thrust: 3,
            speed: 2,
            evasion: 1,
        }
        .into(),
        Pools {
            formation: 0,
            thrust: 4,
            speed_dice: vec![4, 6],
            speed_points: 3,
            evasion_dice: vec![1],
            evasion_points: 0,
        }
        .into(),
        RangeChanged {
            a: 0,
            b: 1,
            start: 30,
            a_move: Some((Maneuver::Close, 3)),
            b_move: None,
            after_close: 27,
            after_withdraw: 27,
            end: 27,
        }
        .into(),
        NovaArmed {
            unit: 0,
            weapon: 1,
            formation: 0,
        }
        .into(),
        Acquired {
            unit: 0,
            fire_control: 0,
            formation: 1,
            bands: vec![(1, 40), (2, 100)],
            roll: 55,
            target: 2,
        }
        .into(),
        FireControlIdle {
            unit: 0,
            fire_control: 0,
            reason: "no target",
        }
        .into(),
        WeaponIdle {
            unit: 0,
            weapon: 1,
            reason: "out of range",
        }
        .into(),
        PulserSet {
            unit: 0,
            weapon: 1,
            setting: PulserSetting::Medium,
            range: 14,
        }
        .into(),
    ]
}

fn fire() -> Vec<Event> {
    let beam = |kind| BeamAttack {
        kind,
        unit: 0,
        weapon: 1,
        target: 2,
        range: 12,
        dice: 3,
        drm: -1,
        screen: 1,
        faces: vec![6, 4, 2],
        reroll_faces: vec![5],
        normal: 2,
        penetrating: 1,
    };
    vec![
        beam(BeamKind::Beam).into(),
        beam(BeamKind::Plasma).into(),
        GraserAttack {
            unit: 0,
            weapon: 1,
            target: 2,
            range: 10,
            dice: 2,
            drm: -1,
            screen: 2,
            faces: vec![6, 5],
            reroll_faces: vec![6, 1],
            damage_faces: vec![3, 5, 6],
            hits: vec![2, 3],
            reroll_hits: vec![3],
        }
        .into(),
        FusionArrayAttack {
            unit: 0,
            weapon: 1,
            target: 2,
            range: 8,
            mode: FusionMode::Flare,
            needed: 4,
            drm: -1,
            face: 5,
            hit: true,
            dice: 2,
            screen: 1,
            faces: vec![6, 3],
            reroll_faces: vec![5],
            normal: 1,
            penetrating: 2,
        }
        .into(),
        EmpAttack {
            unit: 0,
            weapon: 1,
            target: 2,
            range: 11,
            dice: 2,
            drm: -1,
            screen: 1,
            faces: vec![6, 5],
            reroll_faces: vec![6],
            hits: 3,
        }
        .into(),
        EmpTest {
            unit: 0,
            weapon: 1,
            target: 2,
            system: None,
            face: 5,
            modifier: 1,
            needed: 5,
            lost: true,
        }
        .into(),
        NeedleAttack {
            unit: 0,
            weapon: 1,
            target: 2,
            system: 1,
            range: 7,
            drm: -1,
            faces: vec![6],
            damage: 1,
            kill: true,
        }
        .into(),
        SystemKilled { unit: 2, system: 1 }.into(),
        BurnOut { unit: 0, weapon: 1 }.into(),
        ReflexRaised { unit: 1 }.into(),
        Reflex {
            unit: 1,
            firer: 0,
            weapon: 1,
            face: 4,
            points: 3,
            through: 1,
            reflected: 2,
        }
        .into(),
        TorpedoAttack {
            unit: 0,
            weapon: 1,
            target: 2,
            range: 14,
            needed: 4,
            drm: -1,
            face: 6,
            hit: true,
            damage: Some(5),
        }
        .into(),
        KGunAttack {
            unit: 0,
            weapon: 1,
            target: 2,
            range: 6,
            needed: 3,
            drm: -1,
            face: 5,
            hit: true,
            doubling: Some(2),
            damage: 8,
        }
        .into(),
        MkpAttack {
            unit: 0,
            weapon: 1,
            target: 2,
            range: 6,
            drm: -1,
            face: Some(6),
            hits: 2,
        }
        .into(),
        PlasmaBoltAttack {
            unit: 0,
            weapon: 1,
            target: 2,
            range: 12,
            screen: 1,
            drm: -1,
            faces: vec![6, 2],
            damage: 4,
        }
        .into(),
        BoardingTorpedoAttack {
            unit: 0,
            weapon: 1,
            target: 2,
            range: 6,
            needed: 4,
            drm: -1,
            face: 5,
            hit: true,
        }
        .into(),
        WaveGunCharge {
            unit: 0,
            weapon: 1,
            face: 4,
            charge: 7,
        }
        .into(),
        WaveGunAttack {
            unit: 0,
            weapon: 1,
            target: 2,
            range: 20,
            screen: 1,
            drm: -1,
            faces: vec![6, 5, 1],
            damage: 7,
        }
        .into(),
        WaveGunBacklash {
            unit: 0,
            weapon: 1,
            charge: 7,
            hull: 7,
            destroyed: true,
        }
        .into(),
        NovaCannonAttack {
            unit: 0,
            weapon: 1,
            target: 2,
            range: 20,
            drm: -2,
            faces: vec![6, 3],
            damage: 5,
        }
        .into(),
    ]
}

fn ordnance() -> Vec<Event> {
    let pd_assigned = |threat| PdAssigned {
        unit: 2,
        weapon: 1,
        defends: 2,
        threat,
        automatic: true,
    };
    let pd_roll = |weapon, threat| PdRoll {
        unit: 2,
        weapon,
        threat,
        faces: vec![5, 6],
        reroll_faces: vec![4],
        evasion_faces: vec![2],
        kills: 2,
    };
    vec![
        Launch {
            unit: 0,
            weapon: 1,
            target: 2,
            range: 30,
            max_range: 24,
            wasted: Some("out of reach"),
        }
        .into(),
        OnTarget {
            unit: 0,
            weapon: 1,
            face: 5,
        }
        .into(),
        OnTarget {
            unit: 0,
            weapon: GUNBOAT_SALVO,
            face: 6,
        }
        .into(),
        pd_assigned((0, 1)).into(),
        pd_assigned((0, CRAFT_THREAT)).into(),
        pd_assigned((0, GUNBOAT_SALVO)).into(),
        pd_roll(1, (0, 1)).into(),
        pd_roll(GUNBOAT_PDS, (0, CRAFT_THREAT)).into(),
        MissileHits {
            unit: 0,
            weapon: 1,
            target: 2,
            on_target: 5,
            killed: 2,
            faces: vec![1, 2, 3],
            hits: vec![1, 2, 3],
        }
        .into(),
        RocketAttack {
            unit: 0,
            weapon: 1,
            target: 2,
            range: 10,
            needed: Some(3),
            drm: -1,
            faces: vec![4, 2],
            hits: 1,
        }
        .into(),
        RocketHits {
            unit: 0,
            weapon: 1,
            target: 2,
            hit: 2,
            killed: 1,
            advanced: 1,
            faces: vec![5],
            damage: vec![2],
        }
        .into(),
        AntimatterHits {
            unit: 0,
            weapon: 1,
            target: 2,
            killed: 1,
            screen: 1,
            faces: vec![5, 3],
            damage: 6,
        }
        .into(),
        RackExplodes {
            unit: 0,
            system: 1,
            face: 4,
            hull: 4,
            destroyed: false,
        }
        .into(),
    ]
}

fn damage() -> Vec<Event> {
    vec![
        Damage {
            unit: 2,
            normal: 3,
            sap: vec![2, 1],
            ap: vec![4],
            penetrating: 1,
            armour: 2,
            hull: 5,
            rows_completed: 1,
            crew_lost: 2,
            destroyed: true,
        }
        .into(),
        ArmourLayers {
            unit: 2,
            taken: vec![2, 1],
        }
        .into(),
        ThresholdCheck {
            unit: 2,
            row: 1,
            extra_rows: 1,
            needed: 6,
        }
        .into(),
        ThresholdRoll {
            unit: 2,
            system: Some(1),
            face: 6,
            modifier: 1,
            lost: true,
        }
        .into(),
        DriveHit { unit: 2, thrust: 2 }.into(),
        BridgeLost {
            unit: 2,
            face: 3,
            volleys: Some(2),
        }
        .into(),
        LifeSupportLost { unit: 2, face: 1 }.into(),
        CoreBreached { unit: 2 }.into(),
        Repair {
            unit: 2,
            system: None,
            parties: 2,
            face: 1,
            repaired: true,
        }
        .into(),
        ReactorRoll {
            unit: 2,
            face: 6,
            exploded: true,
        }
        .into(),
        Blast {
            source: 2,
            unit: 3,
            faces: vec![3, 4],
            damage: 7,
        }
        .into(),
        ControlRegained { unit: 2 }.into(),
        Surrendered { unit: 2, face: 1 }.into(),
        ToReserve { formation: 1 }.into(),
        Arrived { formation: 0 }.into(),
        Abandoned { unit: 3 }.into(),
        Destroyed {
            unit: 3,
            cause: "reactor explosion",
        }
        .into(),
    ]
}

fn craft() -> Vec<Event> {
    let roll = |action| CraftRoll {
        group: 3,
        target: Some(1),
        action,
        dice: 4,
        drm: -1,
        faces: vec![6, 5, 4, 1],
        reroll_faces: vec![3],
        evasion_faces: vec![2],
        kills: 2,
        normal: 3,
        penetrating: 1,
        sap: vec![4, 2],
        k_gun: vec![(2, 8), (6, 4)],
    };
    vec![
        CraftLaunched { group: 3, carrier: 0 }.into(),
        CraftRecovered {
            group: 3,
            carrier: 0,
            face: 4,
            ready_in: Some(1),
        }
        .into(),
        CraftReady { group: 3 }.into(),
        CraftIdle {
            group: 3,
            reason: "no endurance",
        }
        .into(),
        SecondaryMove {
            formation: 1,
            target: 0,
            maneuver: Maneuver::Withdraw,
            start: 20,
            end: 28,
        }
        .into(),
        CraftEngaged {
            group: 3,
            target: None,
            action: "intercept",
            cef_left: 2,
        }
        .into(),
        roll("dogfight").into(),
        roll("k-gun attack").into(),
        roll("rocket attack").into(),
        GroupShot {
            unit: 0,
            weapon: 1,
            group: 3,
            drm: -1,
            faces: vec![5, 6],
            kills: 2,
        }
        .into(),
        CraftLost {
            group: 3,
            lost: 2,
            left: 4,
            cause: "point defence",
        }
        .into(),
    ]
}
