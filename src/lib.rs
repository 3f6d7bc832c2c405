//! payconf: a conformance harness for the hosted payment service contract.
//!
//! The workspace has three crates, and inside this one the dependencies
//! point one way:
//!
//! ```text
//! payconf-spec (spec-model/)        the contract as data: validators, features,
//!      ^                            requirements, defects, Profile, card masking
//!      |
//! runner  (src/runner/)             `payconf run`: target, transport, world, steps,
//!      ^                            issuer drivers, exchange, result model,
//!      |                            console, reports, waivers, redaction,
//!      |                            neutralisation of target text, --list
//!      |
//! docs (src/docs/), serve, bench,   commands that use the spec (and, for bench and
//! diff, verify, cli, main           diff and verify, the runner's pieces); main only parses flags
//!
//! payconf-reference (reference-impl/)  the reference implementation, which the
//!                                   runner embeds and `serve` runs
//! ```
//!
//! - [`runner`]: `payconf run`. It loads the suite from `payconf_spec`,
//!   resolves the `runner::target_file`, and runs the scenarios with cucumber:
//!   the `runner::steps` act on a `runner::world` that sends every request
//!   as an `runner::exchange` and judges every answer against the contract;
//!   the buyer goes through the payment page and the issuer's page with one
//!   of the drivers of `runner::buyer`, which is given a journey and brings back a landing
//!   (it never sees the world). Inside the runner the arrows point one
//!   way: steps over the world, the world over the drivers and the
//!   exchange, all of them over the result model. Cucumber's events are
//!   recorded into the result model, `runner::result` (its recorder puts
//!   each failure on the requirements at fault and asks the
//!   `runner::waivers`), whose
//!   `runner::result::Verdict` is the run's exit code; the
//!   `runner::console` prints it as it comes, the `runner::reports` are
//!   written from it, `runner::redact` keeps secrets out of all of it, and
//!   `runner::neutral` keeps what a target sends from commanding the
//!   terminal or the CI log it is printed to.
//! - [`docs`]: `payconf docs`, the documentation generated from the spec, the
//!   features and the Arazzo workflows.
//! - [`serve`] and [`bench`](mod@bench): the reference implementation as a sandbox, and
//!   measured under load.
//! - [`diff`]: `payconf diff`, two runs' results compared requirement by
//!   requirement (it reads them with `runner::result::past`).
//! - [`verify`]: `payconf verify`, an evidence bundle (`runner::bundle`)
//!   checked offline: signature, hashes, the verdict recomputed.
//! - [`cli`] parses the command line and dispatches; [`interruption`] is how
//!   `run` and `serve` hear Ctrl-C and SIGTERM; [`logging`] how each command
//!   logs (`serve` off its request path).

pub mod bench;
pub mod cli;
pub mod diff;
pub mod docs;
pub mod interruption;
pub mod logging;
pub mod runner;
pub mod schemas;
pub mod serve;
pub mod share;
pub mod stdout;
pub mod verify;
