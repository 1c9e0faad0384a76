//! GZF (Ground Zero Format) ship records: reading and writing, both profiles.
//!
//! Layers: [`lines`] (never fails) → [`blocks`] (fields, folding, file order)
//! → [`parse`] (typed records with association) → the ship model
//! ([`crate::model`], which the engine and FTJava share). [`write`] is the
//! canonical writer. [`design`] checks the design rules of ft-rules §6 and §11.
//! This module knows nothing about combat.

pub mod blocks;
pub mod design;
pub mod fields;
pub mod lines;
pub mod parse;
pub mod write;

pub use crate::model::*;
pub use fields::{MAX_FILE_BOXES, MAX_TRACK_BOXES};
pub use parse::{MAX_BLOCKS, ParseOptions, Parsed, parse};
pub use write::write;
