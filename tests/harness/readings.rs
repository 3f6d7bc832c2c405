//! docs/readings.md names the source of every `@reference` requirement:
//! a row of its table per requirement, saying what `spec/requirements.yaml`
//! says (the kind of source and where it is), and no row for a requirement
//! the catalogue lacks.

use std::{collections::BTreeMap, path::Path};

use payconf_spec::{Profile, requirements::Requirements};

/// The rows of the sources table: requirement id to (source, where).
fn source_rows(readings: &str) -> BTreeMap<String, (String, String)> {
    let table = readings
        .split_once("| requirement | source | where |")
        .map(|(_, rest)| rest)
        .expect("docs/readings.md has the table of the reference requirements' sources");
    table
        .lines()
        .skip_while(|line| !line.starts_with("|---"))
        .skip(1)
        .take_while(|line| line.starts_with('|'))
        .filter_map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            match cells.as_slice() {
                [id, source, place] => Some((
                    (*id).to_owned(),
                    ((*source).to_owned(), (*place).to_owned()),
                )),
                _ => None,
            }
        })
        .collect()
}

#[test]
fn every_reference_requirement_names_its_source_in_the_readings() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/readings.md");
    let readings = std::fs::read_to_string(&path).expect("docs/readings.md reads");
    let rows = source_rows(&readings);
    let requirements = Requirements::embedded().expect("requirements load");
    let mut wrong = Vec::new();
    for requirement in requirements.all() {
        if requirement.profile != Profile::Reference {
            continue;
        }
        let source = requirement
            .source
            .expect("the catalogue refuses a reference requirement without a source");
        let expected = (source.words().to_owned(), requirement.section.clone());
        match rows.get(requirement.id.as_str()) {
            None => wrong.push(format!("{}: no row", requirement.id)),
            Some(row) if *row != expected => wrong.push(format!(
                "{}: the row says {row:?}, the catalogue {expected:?}",
                requirement.id
            )),
            Some(_) => {}
        }
    }
    for id in rows.keys() {
        if requirements
            .get(id)
            .is_none_or(|r| r.profile != Profile::Reference)
        {
            wrong.push(format!("{id}: a row for no reference requirement"));
        }
    }
    assert!(
        wrong.is_empty(),
        "docs/readings.md's table of sources disagrees with spec/requirements.yaml \
         (each reference requirement's `source` and `section`):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_sources_table_is_read_row_by_row() {
    let rows = source_rows(
        "text\n| requirement | source | where |\n|---|---|---|\n| REF-A-1 | our choice | here |\n\nafter\n| X | y | z |\n",
    );
    assert_eq!(rows.len(), 1);
    assert_eq!(
        rows.get("REF-A-1"),
        Some(&("our choice".to_owned(), "here".to_owned()))
    );
}
