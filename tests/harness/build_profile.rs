//! Cargo.toml builds unoptimised what only the build runs (proc macros,
//! build scripts and what they alone use): none of the crates it names so
//! may be a dependency of anything that runs, or that code would run
//! unoptimised in every test, unseen.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use serde_json::Value;

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

/// The names of the packages that run: the workspace's, and what they
/// depend on (normal and dev dependencies) without entering a proc macro.
fn running_packages(metadata: &Value) -> BTreeSet<String> {
    let packages: BTreeMap<&str, &Value> = metadata["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| (p["id"].as_str().unwrap_or_default(), p))
        .collect();
    let nodes: BTreeMap<&str, &Value> = metadata["resolve"]["nodes"]
        .as_array()
        .expect("resolve")
        .iter()
        .map(|n| (n["id"].as_str().unwrap_or_default(), n))
        .collect();
    let proc_macro = |id: &str| {
        packages[id]["targets"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|t| {
                t["kind"]
                    .as_array()
                    .is_some_and(|k| k.iter().any(|k| k == "proc-macro"))
            })
    };
    let mut seen = BTreeSet::new();
    let mut stack: Vec<&str> = metadata["workspace_members"]
        .as_array()
        .expect("members")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        for dependency in nodes[id]["deps"].as_array().into_iter().flatten() {
            let at_run = dependency["dep_kinds"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|kind| kind["kind"].is_null() || kind["kind"] == "dev");
            let target = dependency["pkg"].as_str().unwrap_or_default();
            if at_run && !proc_macro(target) {
                stack.push(target);
            }
        }
    }
    seen.iter()
        .map(|id| packages[id]["name"].as_str().unwrap_or_default().to_owned())
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
    let output = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--offline"])
        .current_dir(root)
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: Value = serde_json::from_slice(&output.stdout).expect("cargo metadata's JSON");
    let running = running_packages(&metadata);
    assert!(
        running.contains("tokio") && running.contains("payconf-reference"),
        "the running packages are found: {running:?}"
    );
    let known: BTreeSet<&str> = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["name"].as_str())
        .collect();
    let wrong: Vec<&String> = unoptimised
        .iter()
        .filter(|name| running.contains(name.as_str()) || !known.contains(name.as_str()))
        .collect();
    assert!(
        wrong.is_empty(),
        "Cargo.toml builds these unoptimised, but they run (or are no dependency at all): {wrong:?}"
    );
}
