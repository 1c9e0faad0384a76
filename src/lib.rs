//! fam: resolves Full Thrust space battles with the Fire and Maneuver rules.
//!
//! The library holds everything; the `fam` binary is a thin shell over
//! [`cli`]. See `ARCHITECTURE.md` for the code map and invariants.

pub use fam_engine::{engine, model};

pub mod batch;
pub mod caveats;
pub mod cli;
pub mod diag;
pub mod files;
pub mod ftjava;
pub mod generate;
pub mod gzf;
#[cfg(feature = "serve")]
pub mod host;
pub mod library;
pub mod log;
pub mod manual;
pub mod orders;
pub mod report;
pub mod resolve;
#[cfg(feature = "serve")]
pub mod serve;
pub mod sheet;
pub mod solve;
pub mod suggest;
pub mod tune;
pub mod turn;
