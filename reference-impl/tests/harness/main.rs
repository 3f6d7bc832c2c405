//! The reference implementation's integration tests, in one binary so that
//! they link once (as ripgrep keeps its tests): one module per concern, each
//! over real sockets on 127.0.0.1, with [`support`] shared by all of them
//! (the sandbox on a loopback port, and every JSON answer checked against
//! `spec/openapi.yaml` in both profiles). The service's log has a binary of
//! its own, `tests/payment_page_log.rs`, which says why.
//!
//! Run one module's tests with `cargo test -p payconf-reference --test
//! harness <module>::`, one test by its name: `cargo test -p
//! payconf-reference --test harness
//! two_hundred_concurrent_submits_of_one_token_execute_one_payment`.

mod support;

mod back_office;
mod back_office_log;
mod card_tokens;
mod checks;
mod data_file;
mod errors;
mod hostile;
mod journeys;
mod lifecycle;
mod methods;
mod notifications;
mod outcomes;
mod payment_page;
mod races;
mod shared_sandbox;
mod shop_addresses;
mod shutdown;
mod strangers;
