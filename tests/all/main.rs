//! All integration tests build into one binary, grouped by area.

mod cli;
mod engine;
mod golden;
mod orders;
mod resolve;
mod roundtrip;
mod support;
mod weapons;
