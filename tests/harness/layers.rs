//! The arrows point one way: no module of the runner imports, directly or
//! through others, a module that imports it; nor does one top-level module
//! of the harness or of the reference implementation. Read from the source
//! as written (`crate::runner::world`, `crate::{a, b::c}`), tests and
//! comments left out.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::Path,
};

/// Each module's imports of its siblings under `root`, whose paths in the
/// code start with `prefix` (`crate::runner::`, or `crate::`).
fn imports(root: &Path, prefix: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut files = vec![root.to_owned()];
    while let Some(path) = files.pop() {
        if path.is_dir() {
            for entry in std::fs::read_dir(&path).expect("a readable folder") {
                files.push(entry.expect("an entry").path());
            }
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let relative = path.strip_prefix(root).expect("under the root");
        let first = relative
            .components()
            .next()
            .expect("a component")
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_owned();
        let module = if relative.components().count() == 1
            && ["mod", "lib", "main"].contains(&first.as_str())
        {
            continue;
        } else {
            first
        };
        let text = std::fs::read_to_string(&path).expect("a readable file");
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        let code: String = code
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let entry = graph.entry(module.clone()).or_default();
        for (at, _) in code.match_indices(prefix) {
            for name in named(&code[at + prefix.len()..]) {
                if name != module {
                    entry.insert(name);
                }
            }
        }
    }
    graph
}

/// The modules a path names right after the prefix: `world::X` names
/// `world`; `{world::X, steps}` names both.
fn named(rest: &str) -> Vec<String> {
    let ident = |text: &str| -> String {
        text.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let Some(group) = rest.strip_prefix('{') else {
        return vec![ident(rest)];
    };
    let mut depth = 0;
    let mut names = Vec::new();
    let mut start = true;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => start = true,
            c if start && !c.is_whitespace() => {
                names.push(ident(&group[i..]));
                start = false;
            }
            _ => {}
        }
    }
    names.retain(|n| !n.is_empty() && n != "self");
    names
}

/// A cycle of the graph, if it has one, as the modules along it.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_owned());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

fn assert_one_way(folder: &str, prefix: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
    let graph = imports(&root, prefix);
    assert!(graph.len() > 3, "{folder}: too few modules read: {graph:?}");
    if let Some(found) = cycle(&graph) {
        panic!("{folder}: the imports go round: {}", found.join(" -> "));
    }
}

#[test]
fn the_runners_modules_import_one_way() {
    assert_one_way("src/runner", "crate::runner::");
}

#[test]
fn the_harnesss_modules_import_one_way() {
    assert_one_way("src", "crate::");
}

#[test]
fn the_reference_implementations_modules_import_one_way() {
    assert_one_way("reference-impl/src", "crate::");
}

/// The check can fail: a circle of three is found, and a one-way chain is not.
#[test]
fn a_circle_of_imports_is_found() {
    let graph = |edges: &[(&str, &str)]| {
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, to) in edges {
            graph
                .entry((*from).to_owned())
                .or_default()
                .insert((*to).to_owned());
        }
        graph
    };
    let circle = graph(&[("world", "steps"), ("steps", "issuer"), ("issuer", "world")]);
    let found = cycle(&circle).expect("a cycle");
    assert_eq!(found.first(), found.last(), "{found:?}");
    assert_eq!(found.len(), 4, "{found:?}");
    assert_eq!(
        cycle(&graph(&[("steps", "world"), ("world", "issuer")])),
        None
    );
    assert_eq!(
        named("{world::{Failure, PaymentWorld}, issuer::Choice, self}"),
        ["world", "issuer"]
    );
}

/// The code of a Rust file as the checks read it: its tests and comments
/// left out.
fn code_of(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("a readable file");
    text.split("#[cfg(test)]")
        .next()
        .unwrap_or_default()
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, found: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable folder").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// What the runner's modules take from the runner's own `mod.rs` instead of
/// from the sibling that holds it: `super::NotRun` in a child of the runner,
/// or `crate::runner::Suite` anywhere in it. Each is written `file: path`.
fn taken_from_the_top(runner: &Path) -> Vec<String> {
    let modules: BTreeSet<String> = std::fs::read_dir(runner)
        .expect("the runner's folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() || p.file_name().is_some_and(|n| n != "mod.rs"))
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    let mut files = Vec::new();
    rust_files(runner, &mut files);
    let mut taken = Vec::new();
    for path in files {
        let relative = path.strip_prefix(runner).expect("under the runner");
        if relative == Path::new("mod.rs") {
            continue;
        }
        // `super::` is the runner in its children: `x.rs` and `x/mod.rs`.
        let child = relative.components().count() == 1
            || relative.ends_with("mod.rs") && relative.components().count() == 2;
        let code = code_of(&path);
        let mut prefixes = vec!["crate::runner::"];
        if child {
            prefixes.push("super::");
        }
        for prefix in prefixes {
            for (at, _) in code.match_indices(prefix) {
                // `super::super::` is read at its last `super::`.
                if code[at + prefix.len()..].starts_with("super::") {
                    continue;
                }
                for name in named(&code[at + prefix.len()..]) {
                    if !modules.contains(&name)
                        && name != "super"
                        && name != "*"
                        && !name.is_empty()
                    {
                        taken.push(format!("{}: {prefix}{name}", relative.display()));
                    }
                }
            }
        }
    }
    taken.sort();
    taken.dedup();
    taken
}

/// `runner/mod.rs` is the runner's top: it runs a run and re-exports for
/// the other commands. Its modules take what they need from the sibling
/// that holds it (`super::plan::Plan`, `crate::runner::options::RunOptions`),
/// never from the top, so no arrow runs back up to it.
#[test]
fn the_runners_modules_take_nothing_from_its_top() {
    let runner = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/runner");
    let taken = taken_from_the_top(&runner);
    assert!(
        taken.is_empty(),
        "taken from runner/mod.rs rather than from the module that holds it: {taken:#?}"
    );
}
