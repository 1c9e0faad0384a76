//! All integration tests build into one binary, grouped by area.

mod cli;
mod engine;
mod golden;
mod roundtrip;
mod support;
