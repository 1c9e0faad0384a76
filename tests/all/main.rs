//! All integration tests build into one binary, grouped by area.

mod bases;
mod batch;
mod batch_formats;
mod battle;
mod beamfamily;
mod cli;
mod cluster;
mod counts;
mod docs_json;
mod doctrine;
mod doctrine_auto;
mod emp;
mod engine;
mod engine_crate;
mod engine_pin;
mod every_event;
mod fighters;
mod fighters_input;
mod fighters_robust;
mod ftjava;
mod fusion;
mod fuzz;
mod generate;
mod golden;
mod gzf_doc;
mod help;
mod higraser;
#[cfg(feature = "serve")]
mod host;
mod hostile;
mod kinetic;
mod kravak;
mod layers;
mod messages;
mod nova;
mod orders;
mod orders_write;
mod ordnance;
mod outputs;
mod plasma;
mod readme;
mod reflex;
mod registry;
mod resolve;
mod roundtrip;
mod screens;
#[cfg(feature = "serve")]
mod serve;
#[cfg(feature = "serve")]
mod serve_net;
mod solve;
mod support;
mod switches;
mod tune;
mod wavegun;
mod weapons;
