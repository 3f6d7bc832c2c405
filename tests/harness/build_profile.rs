//! Cargo.toml's debug profile optimises the dependencies a test run spends
//! its time in, and nothing that only the build runs (proc macros, build
//! scripts and what they alone use: `build-override`); the few
//! dependencies it leaves unoptimised are named, and none of them is one
//! that every run spends its time in. And `cargo build` builds each
//! package it shares with `cargo test` with the same features, so that
//! neither builds it again.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// The dependencies a `payconf run` and the servers it checks spend their
/// time in (measured with perf on an unoptimised build: compiling the
/// spec's schemas, regular expressions, YAML and JSON, HTTP, TLS's
/// certificates and crypto, SQLite, the buyer pages' HTML, the features'
/// Gherkin). Unoptimised, a one-scenario run took 0.35 s of CPU instead
/// of 0.11, the default tier 267 CPU-seconds instead of 165.
const HOT: &[&str] = &[
    "jsonschema",
    "referencing",
    "fluent-uri",
    "fancy-regex",
    "regex",
    "regex-automata",
    "regex-syntax",
    "aho-corasick",
    "memchr",
    "hashbrown",
    "ahash",
    "indexmap",
    "serde",
    "serde_json",
    "serde_yaml_ng",
    "unsafe-libyaml",
    "tokio",
    "futures-util",
    "bytes",
    "http",
    "hyper",
    "hyper-util",
    "h2",
    "rustls-pki-types",
    "rustls-webpki",
    "ring",
    "libsqlite3-sys",
    "rusqlite",
    "html5ever",
    "scraper",
    "gherkin",
    "cucumber",
    "url",
];

/// Cargo.toml's `[profile.dev]` and the packages its
/// `[profile.dev.package]` builds at opt-level 0.
fn profile(root: &Path) -> (toml::Table, Vec<String>) {
    let text = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let manifest: toml::Table = toml::from_str(&text).expect("Cargo.toml parses");
    let dev = manifest["profile"]["dev"]
        .as_table()
        .expect("[profile.dev]")
        .clone();
    let unoptimised = dev
        .get("package")
        .and_then(toml::Value::as_table)
        .expect("[profile.dev.package]")
        .iter()
        .filter(|(_, settings)| {
            settings.get("opt-level").and_then(toml::Value::as_integer) == Some(0)
        })
        .map(|(name, _)| name.clone())
        .collect();
    (dev, unoptimised)
}

/// What `cargo tree` prints of the tree `args` name, a line a package in
/// `format`, offline: the lock file and what is downloaded.
fn cargo_tree(root: &Path, format: &str, args: &[&str]) -> String {
    let output = Command::new(env!("CARGO"))
        .args(["tree", "--prefix", "none", "--offline", "--format", format])
        .args(args)
        .current_dir(root)
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The packages that run, by name: the workspace's and what they depend
/// on for this machine, normal and dev dependencies, never entering a proc
/// macro.
fn running(root: &Path) -> BTreeSet<String> {
    let tree = cargo_tree(
        root,
        "{p}",
        &["--workspace", "--edges", "normal,dev,no-proc-macro"],
    );
    tree.lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_dependencies_every_run_spends_its_time_in_are_optimised_and_the_build_alone_is_not() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (dev, unoptimised) = profile(root);
    let level = |table: Option<&toml::Value>| {
        table
            .and_then(|t| t.get("opt-level"))
            .and_then(toml::Value::as_integer)
    };
    assert_eq!(
        level(Some(&toml::Value::Table(dev.clone()))),
        Some(1),
        "[profile.dev] optimises the dependencies"
    );
    assert_eq!(
        level(dev.get("build-override")),
        Some(0),
        "[profile.dev.build-override] leaves what only the build runs unoptimised"
    );
    let packages = dev["package"].as_table().expect("[profile.dev.package]");
    assert!(
        !packages.contains_key("*"),
        "`\"*\"` would rank above build-override and optimise the proc macros and build scripts"
    );
    for member in ["payconf", "payconf-spec", "payconf-reference"] {
        assert!(
            unoptimised.iter().any(|name| name == member),
            "our own crate {member} stays unoptimised, quick to build again"
        );
    }
    let running = running(root);
    assert!(
        running.contains("tokio") && running.contains("payconf-reference"),
        "the running packages are found: {running:?}"
    );
    let hot_unoptimised: Vec<&String> = unoptimised
        .iter()
        .filter(|name| HOT.contains(&name.as_str()))
        .collect();
    assert!(
        hot_unoptimised.is_empty(),
        "Cargo.toml builds these unoptimised, but every run spends its time in them: {hot_unoptimised:?}"
    );
    let missing: Vec<&&str> = HOT
        .iter()
        .filter(|name| !running.contains(**name))
        .collect();
    assert!(
        missing.is_empty(),
        "the hot crates named here are no longer dependencies (rename or drop them): {missing:?}"
    );
    // Cargo only warns of a package it does not know: a misspelt name
    // would leave the crate optimised, unseen.
    let not_running: Vec<&String> = unoptimised
        .iter()
        .filter(|name| !running.contains(name.as_str()))
        .collect();
    assert!(
        not_running.is_empty(),
        "Cargo.toml names these in [profile.dev.package], but nothing runs them: {not_running:?}"
    );
}

/// Each package of the tree `args` name with its features: `{name}
/// {version}` to the features it is built with.
fn features(root: &Path, args: &[&str]) -> BTreeMap<String, String> {
    cargo_tree(root, "{p}|{f}", args)
        .lines()
        .filter_map(|line| line.split_once('|'))
        .map(|(package, features)| {
            let package = package.trim_end_matches(" (*)");
            let id = package.split(" (").next().unwrap_or(package).to_owned();
            (id, features.trim_end_matches(" (*)").to_owned())
        })
        .collect()
}

/// `cargo build` (the command, as CI's checks and `payconf serve` users
/// build it) and `cargo test --workspace` build every package they share
/// with the same features, so the one reuses what the other built: a test
/// build's features (a member's `default`, a dev-dependency's asking) that
/// the build lacked made CI's checks rebuild 22 crates, two minutes.
#[test]
fn the_build_and_the_tests_build_each_package_alike() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let built = features(root, &["--package", "payconf", "--edges", "normal,build"]);
    let tested = features(root, &["--workspace", "--edges", "normal,build,dev"]);
    assert!(
        built.keys().any(|id| id.starts_with("tokio v")),
        "the build's packages are read: {built:?}"
    );
    let apart: Vec<String> = built
        .iter()
        .filter_map(|(id, features)| {
            let in_tests = tested.get(id)?;
            (in_tests != features)
                .then(|| format!("{id}: built with [{features}], tested with [{in_tests}]"))
        })
        .collect();
    assert!(
        apart.is_empty(),
        "Cargo.toml's [dependencies] must ask for what the tests' build unifies in:\n{}",
        apart.join("\n")
    );
}
