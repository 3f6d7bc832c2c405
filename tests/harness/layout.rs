//! docs/layout.md, the map of the code, names every source file.

use std::path::{Path, PathBuf};

use crate::docs::collect_files;

/// docs/layout.md is the map of the code: every source file of the three
/// crates and their tests is named there (a file by its name, one in a
/// folder with its folder as `folder/`), so a file added without its line
/// fails here, naming it.
#[test]
fn the_layout_page_names_every_source_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let layout = std::fs::read_to_string(root.join("docs/layout.md")).expect("docs/layout.md");
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
    let sources: Vec<&PathBuf> = files
        .iter()
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
    let unnamed: Vec<String> = sources
        .iter()
        .filter(|path| {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            let folder = path
                .parent()
                .and_then(Path::file_name)
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            !layout.contains(name) || !layout.contains(&format!("{folder}/"))
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(
        unnamed.is_empty(),
        "docs/layout.md does not name these files (or their folders): {unnamed:#?}"
    );
}
