//! All integration tests build into one binary, grouped by area.

mod batch;
mod batch_formats;
mod battle;
mod cli;
mod cluster;
mod doctrine;
mod doctrine_auto;
mod engine;
mod fighters;
mod fighters_input;
mod fighters_robust;
mod ftjava;
mod fuzz;
mod golden;
mod gzf_doc;
mod hostile;
mod messages;
mod orders;
mod orders_write;
mod outputs;
mod readme;
mod resolve;
mod roundtrip;
mod support;
mod tune;
mod weapons;
