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
