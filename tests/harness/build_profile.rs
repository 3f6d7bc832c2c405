//! Cargo.toml builds unoptimised what only the build runs (proc macros,
//! build scripts and what they alone use): none of the crates it names so
//! may be a dependency of anything that runs, or that code would run
//! unoptimised in every test, unseen.

use std::collections::BTreeSet;
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

/// The packages that run, by name: the workspace's and what they depend
/// on for this machine, normal and dev dependencies, never entering a proc
/// macro (`cargo tree`, offline: the lock file and what is downloaded).
fn running(root: &Path) -> BTreeSet<String> {
    let output = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--workspace",
            "--edges",
            "normal,dev,no-proc-macro",
            "--prefix",
            "none",
            "--format",
            "{p}",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
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
