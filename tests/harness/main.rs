//! The harness's integration tests, in one binary so that the harness
//! links once (as ripgrep keeps its tests): one module per concern, over
//! real sockets on 127.0.0.1, with [`support`] shared by all of them.
//!
//! Run one module's tests with `cargo test --test harness <module>::`, one
//! test by its name: `cargo test --test harness the_defect_page`.

mod support;

mod back_office_browser;
mod bench_command;
mod build_profile;
mod bundle;
mod bundle_refused;
mod buyer_zoo;
mod catalogue;
mod ci_install;
mod defect_catalogue;
mod docs;
mod docs_in_use;
mod evidence;
mod first_hour;
mod flaky;
mod github;
mod har;
mod issuer_drivers;
mod layers;
mod layout;
mod library;
mod lightbox;
mod notifications;
mod plan;
mod production_guard;
mod proxy;
mod readings;
mod real_service;
mod real_shop_page;
mod redaction;
mod release_gate;
mod reports;
mod robustness;
mod runs_not_carried_out;
mod schemas;
mod serve_command;
mod serve_data;
mod share;
mod spec;
mod spec_for_tools;
mod spec_request_rules;
mod suite_vs_reference;
mod transport;
mod twin_areas;
mod untrusted_browser;
mod untrusted_target;
