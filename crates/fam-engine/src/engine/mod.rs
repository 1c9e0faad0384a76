//! The combat engine. Pure: no I/O, no clock, no threads, no `serde`, no
//! `clap`; randomness enters only through [`Dice`].
//!
//! * [`dice`]: the seeded [`Dice`], the [`RollSink`] that sees every die,
//!   and the rolls that read dice (pools, beams, projectiles, PD).
//! * [`tables`]: the pure readings of die faces, ranges and modifiers.

pub mod checked;
pub mod craft;
pub mod dice;
pub mod doctrine;
pub mod event;
pub mod plot;
pub mod reflex;
pub mod rules;
pub mod scratch;
pub mod state;
pub mod tables;
pub mod victory;
pub mod volley;

pub use dice::{
    BeamAttack, BeamResult, Dice, PdFire, PdResult, Pile, Purpose, Roll, RollSink, beam_attack, point_defence,
    projectile_shot, successes,
};
pub use tables::PdTable;
