//! The JSON Schemas under `schemas/` (`payconf schemas`): what the Rust
//! types that read the files generate, checked in unchanged; the example
//! target file names its schema as Taplo and Even Better TOML read it, and
//! passes it; a misspelt key, a waiver without its day and a results file
//! with an outcome payconf never writes are refused, as payconf refuses
//! them.

use std::path::Path;

use serde_json::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn schema(name: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(Path::new(ROOT).join("schemas").join(name)).expect(name);
    let schema: Value = serde_json::from_str(&text).expect("a JSON schema");
    jsonschema::meta::validate(&schema).expect("a valid schema");
    jsonschema::validator_for(&schema).expect("a schema that compiles")
}

fn toml_value(text: &str) -> Value {
    serde_json::to_value(toml::from_str::<toml::Value>(text).expect("TOML")).expect("as JSON")
}

/// What the schema says of `instance`, one line an error.
fn errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

#[test]
fn the_checked_in_schemas_are_what_the_types_generate() {
    for (name, text) in payconf::schemas::all() {
        let path = Path::new(ROOT).join("schemas").join(name);
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            checked_in == text,
            "{} is not what the types generate: run `cargo run -- schemas schemas`",
            path.display()
        );
    }
}

#[test]
fn the_example_target_file_names_its_schema_and_passes_it_and_a_misspelt_key_fails() {
    let example =
        std::fs::read_to_string(Path::new(ROOT).join("examples/target.toml")).expect("the example");
    let first = example.lines().next().expect("a first line");
    let named = first
        .strip_prefix("#:schema ")
        .expect("Taplo's schema directive first");
    assert!(
        Path::new(ROOT).join("examples").join(named).is_file(),
        "{named} is not beside the example"
    );
    let validator = schema("target-file.schema.json");
    let value = toml_value(&example);
    assert_eq!(errors(&validator, &value), Vec::<String>::new());
    // A month as a TOML integer, as payconf takes it.
    let month = example.replacen("exp_month = \"05\"", "exp_month = 5", 1);
    assert_ne!(month, example);
    assert_eq!(
        errors(&validator, &toml_value(&month)),
        Vec::<String>::new()
    );

    for (wrong, says) in [
        (
            example.replacen("shop_login =", "shop_logn =", 1),
            "shop_logn",
        ),
        (
            example.replacen("[acs]", "[acs]\ndriverr = \"form\"", 1),
            "driverr",
        ),
        (
            example.replacen("driver = \"form\"", "driver = \"forms\"", 1),
            "forms",
        ),
    ] {
        assert_ne!(wrong, example, "{says}: the example changed");
        let found = errors(&validator, &toml_value(&wrong));
        assert!(found.iter().any(|e| e.contains(says)), "{says}: {found:?}");
    }
}

#[test]
fn waivers_and_results_files_are_held_to_their_schemas() {
    let waivers = schema("waivers.schema.json");
    let good = "[[waivers]]\nrequirement = \"TDS-04\"\nreason = \"issuer page rebuilt\"\nexpires = \"2027-01-31\"\n";
    assert_eq!(errors(&waivers, &toml_value(good)), Vec::<String>::new());
    let undated = good.replace("expires = \"2027-01-31\"\n", "");
    assert!(!errors(&waivers, &toml_value(&undated)).is_empty());
    let misdated = good.replace("2027-01-31", "31/01/2027");
    assert!(!errors(&waivers, &toml_value(&misdated)).is_empty());

    let results = schema("results.schema.json");
    let text = std::fs::read_to_string(
        Path::new(ROOT).join("src/runner/result/record/testdata/results-v1.json"),
    )
    .expect("the results fixture");
    let value: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(errors(&results, &value), Vec::<String>::new());
    let unknown: Value =
        serde_json::from_str(&text.replacen("\"failed\"", "\"fail3d\"", 1)).expect("JSON");
    assert!(!errors(&results, &unknown).is_empty());
}
