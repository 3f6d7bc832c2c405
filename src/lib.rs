//! payconf: a conformance harness for the hosted payment service contract.
//!
//! The contract lives as data in `spec/openapi.yaml`; the reference
//! implementation (crate `payconf-reference`) serves it. This crate is the
//! `payconf` command: [`cli`] parses the command line and dispatches to the
//! subcommands, [`serve`] runs the reference implementation as a sandbox.

pub mod acs;
pub mod bench;
pub mod cli;
pub mod console;
pub mod contract;
pub mod defects;
pub mod docs;
pub mod exchange;
pub mod features;
pub mod list;
pub mod redact;
pub mod reports;
pub mod requirements;
pub mod run;
pub mod serve;
pub mod steps;
pub mod target;
pub mod waivers;
pub mod world;
