//! payconf: a conformance harness for the hosted payment service contract.
//!
//! The contract lives as data in `spec/openapi.yaml`; the reference
//! implementation (crate `payconf-reference`) serves it. This crate is the
//! `payconf` command: [`cli`] parses the command line and dispatches to the
//! subcommands, [`serve`] runs the reference implementation as a sandbox.
//!
//! `payconf run` ([`run`]) loads the suite ([`contract`], [`features`],
//! [`requirements`], [`defects`]), resolves the [`target`], and runs the
//! scenarios with cucumber: the [`steps`] act on a [`world`] that sends every
//! request as an [`exchange`] and judges every answer against the contract;
//! the buyer goes through the issuer's page with one of the drivers of
//! [`issuer`]. The [`console`] prints and records each result, the
//! [`reports`] and [`waivers`] read that record, and [`redact`] keeps secrets
//! out of all of it. [`docs`] and [`bench`] are commands of their own;
//! [`interruption`] is how `run` and `serve` hear Ctrl-C and SIGTERM, and
//! [`logging`] how each command logs (`serve` off its request path).

pub mod bench;
pub mod cli;
pub mod console;
pub mod contract;
pub mod defects;
pub mod docs;
pub mod exchange;
pub mod features;
pub mod hostile;
pub mod interruption;
pub mod issuer;
pub mod list;
pub mod logging;
pub mod redact;
pub mod reports;
pub mod requirements;
pub mod run;
pub mod serve;
pub mod steps;
pub mod target;
pub mod transport;
pub mod waivers;
pub mod world;
