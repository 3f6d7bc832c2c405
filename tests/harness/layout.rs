//! docs/layout.md, the map of the code, names every folder of source, and
//! every source file says what it is in its own opening lines.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::docs::collect_files;

/// The source of the three crates and their tests.
fn sources(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for top in [
        "src",
        "spec-model/src",
        "reference-impl/src",
        "tests",
        "reference-impl/tests",
    ] {
        collect_files(root, &root.join(top), &mut files);
    }
    let sources: Vec<PathBuf> = files
        .into_iter()
        .filter(|f| {
            f.extension()
                .is_some_and(|e| e == "rs" || e == "html" || e == "md")
        })
        .filter(|f| !f.components().any(|c| c.as_os_str() == "testdata"))
        .collect();
    assert!(
        sources.len() > 200,
        "the source files are found: {}",
        sources.len()
    );
    sources
}

/// docs/layout.md is the map of the code by folder: every folder that holds
/// source is named there (as `name/`), so a folder added without its line
/// fails here, naming it.
#[test]
fn the_layout_page_names_every_folder_of_source() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let layout = std::fs::read_to_string(root.join("docs/layout.md")).expect("docs/layout.md");
    let folders: BTreeSet<PathBuf> = sources(root)
        .iter()
        .filter_map(|file| file.parent())
        .map(|folder| folder.strip_prefix(root).unwrap_or(folder).to_path_buf())
        .collect();
    assert!(folders.len() > 30, "the folders are found: {folders:?}");
    let unnamed: Vec<String> = folders
        .iter()
        .filter(|folder| {
            let name = folder
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            !layout.contains(&format!("{name}/"))
        })
        .map(|folder| folder.display().to_string())
        .collect();
    assert!(
        unnamed.is_empty(),
        "docs/layout.md does not name these folders: {unnamed:#?}"
    );
}

/// Every Rust source file opens with its own `//!` lines: what it is,
/// which rustdoc shows and which the folder map leaves to it.
#[test]
fn every_source_file_says_what_it_is_in_its_opening_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let silent: Vec<String> = sources(root)
        .iter()
        .filter(|file| file.extension().is_some_and(|e| e == "rs"))
        .filter(|file| {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            !text.starts_with("//! ") || text.lines().next().is_some_and(|l| l.len() < 12)
        })
        .map(|file| file.display().to_string())
        .collect();
    assert!(
        silent.is_empty(),
        "these files do not open with `//!` lines saying what they are: {silent:#?}"
    );
}
