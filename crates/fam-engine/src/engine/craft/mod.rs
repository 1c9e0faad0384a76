//! Small craft in the Volley: fighter groups and gunboat squadrons
//! (docs/fighters.md; readings F1-F27). The steps here slot into
//! [`super::volley`]'s order, each in its own file:
//!
//! 1. Launch phase ([`launch_phase`], `launch.rs`): re-arming countdowns,
//!    recoveries, launches; carriers that launch or recover roll no Speed
//!    this Volley and give no area defence.
//! 2. After every primary maneuver, the secondary maneuvers of small-craft
//!    Formations ([`secondary_moves`], `secondary.rs`): a fixed distance, 1
//!    endurance each.
//! 3. Engagement ([`engage`](fn@engage), `engage.rs`, no dice): named
//!    dogfights, screens meeting attackers, attack runs, firing back,
//!    interceptions; endurance paid.
//! 4. In the Fire step, Fire Controls aimed at a group ([`fire_at_group`],
//!    `group_fire.rs`).
//! 5. In the point-defence step: interception of missiles by fighters
//!    ([`intercept`](fn@intercept), `intercept.rs`), then ship PD at
//!    missiles and at attacking craft (in `volley`), craft killed by PD
//!    removed at once.
//! 6. Small-craft attacks ([`attacks`](fn@attacks), `attacks.rs`):
//!    dogfights, attack runs, torpedo runs, gunboat attacks, all at once;
//!    damage to ships waits for the Damage step with everything else, craft
//!    lost in dogfights and to ship fire too ([`apply_losses`], `losses.rs`).
//!
//! What the steps share (the reaches and dice of craft, a group's craft and
//! pilots, [`remove_craft`]) is in `common.rs`, below them all. A battle
//! without small craft rolls no die here and changes nothing.

mod attacks;
mod common;
mod engage;
mod group_fire;
mod intercept;
mod launch;
mod losses;
mod secondary;

pub use attacks::attacks;
pub use common::{
    FIGHTER_REACH, GATLING_SHORT_MU, GUNBOAT_K_GUN_CLASS, GUNBOAT_KILL, GUNBOAT_PACKS, GUNBOAT_PDS_DICE, GUNBOAT_REACH,
    GUNBOAT_ROCKETS, GUNBOAT_SALVO_MISSILES, ROCKET_GUNBOAT_SHORT_MU, SIX_KILLS_ONE, SUBMUNITION_GUNBOAT_SHORT_MU,
    expected_per_craft, group_dice, remove_craft,
};
pub use engage::engage;
pub use group_fire::fire_at_group;
pub use intercept::intercept;
pub use launch::launch_phase;
pub use losses::{apply_losses, docked_losses, wrap_up};
pub use secondary::secondary_moves;
