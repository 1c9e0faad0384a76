//! All integration tests build into one binary, grouped by area.

mod cli;
mod golden;
mod roundtrip;
mod support;
