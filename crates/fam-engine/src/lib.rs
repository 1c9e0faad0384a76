//! fam's engine: the ship model and the Fire and Maneuver engine that
//! plays it, apart from every file format and from I/O, clocks and threads.
//!
//! * [`model`]: ships, bases, their systems and state, fighter groups, and a
//!   file of such records, whatever format they came from.
//! * [`engine`]: the seeded dice, the battle state, validated plots, the
//!   Exchange's three Volleys, victory, and the automated commander.
//!
//! The `fam` crate re-exports both (`fam::engine`, `fam::model`) and holds
//! the formats, orders, batch, reports, command line and server.

pub mod engine;
pub mod model;
