//! Cargo.toml builds unoptimised what only the build runs (proc macros,
//! build scripts and what they alone use): none of the crates it names so
//! may be a dependency of anything that runs, or that code would run
//! unoptimised in every test, unseen. And `cargo build` builds each package
//! it shares with `cargo test` with the same features, so that neither
//! builds it again.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// The packages Cargo.toml's `[profile.dev.package]` builds at opt-level 0.
fn unoptimised(root: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let manifest: toml::Table = toml::from_str(&text).expect("Cargo.toml parses");
    let packages = manifest["profile"]["dev"]["package"]
        .as_table()
        .expect("[profile.dev.package]");
    packages
        .iter()
        .filter(|(name, settings)| {
            *name != "*" && settings.get("opt-level").and_then(toml::Value::as_integer) == Some(0)
        })
        .map(|(name, _)| name.clone())
        .collect()
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
fn the_crates_built_unoptimised_are_run_only_by_the_build() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let unoptimised = unoptimised(root);
    assert!(
        unoptimised.len() > 20,
        "the unoptimised crates are read: {unoptimised:?}"
    );
    let running = running(root);
    assert!(
        running.contains("tokio") && running.contains("payconf-reference"),
        "the running packages are found: {running:?}"
    );
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).expect("Cargo.lock");
    let locked: BTreeSet<&str> = lock
        .lines()
        .filter_map(|line| line.strip_prefix("name = \""))
        .filter_map(|rest| rest.strip_suffix('"'))
        .collect();
    let wrong: Vec<&String> = unoptimised
        .iter()
        .filter(|name| running.contains(name.as_str()) || !locked.contains(name.as_str()))
        .collect();
    assert!(
        wrong.is_empty(),
        "Cargo.toml builds these unoptimised, but they run, or are no dependency at all: {wrong:?}"
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
