//! JSON Schemas of the files people write for payconf and of the file it
//! writes, generated from the Rust types that read them (schemars), so an
//! editor checks a target file with the very rules `payconf run` applies:
//! the target file (`target-file.schema.json`, which `examples/target.toml`
//! names for Taplo and Even Better TOML), the waivers file
//! (`waivers.schema.json`) and the results file (`results.schema.json`).
//! `payconf schemas DIR` writes them; `schemas/` holds them, checked against
//! the types by a test.

use std::path::{Path, PathBuf};

use schemars::{JsonSchema, generate::SchemaSettings};
use serde_json::Value;

use crate::runner::{TargetFile, WaiversFile, record::RunRecord};

/// Each schema's file name and text.
pub fn all() -> Vec<(&'static str, String)> {
    vec![
        (
            "target-file.schema.json",
            render::<TargetFile>(
                "payconf target file",
                "The server payconf checks and how to reach it (TOML): docs/target-file.md.",
                Form::Toml,
            ),
        ),
        (
            "waivers.schema.json",
            render::<WaiversFile>(
                "payconf waivers file",
                "Requirements whose failure does not fail a run, each with its reason and \
                 its last day (TOML, `--waivers FILE`): docs/reports.md.",
                Form::Toml,
            ),
        ),
        (
            "results.schema.json",
            render::<RunRecord>(
                "payconf results file",
                "One run, as `payconf run --results FILE` writes it (JSON): docs/reports.md.",
                Form::Json,
            ),
        ),
    ]
}

/// The form a file is written in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    /// TOML, which has no null: a setting left out is absent.
    Toml,
    /// JSON, where payconf writes `null` for what is not there.
    Json,
}

/// `T`'s schema, draft 7 (what Taplo, Even Better TOML and most editors
/// read), titled and described, as pretty JSON with a final newline.
fn render<T: JsonSchema>(title: &str, description: &str, form: Form) -> String {
    let mut schema = SchemaSettings::draft07()
        .into_generator()
        .into_root_schema_for::<T>();
    schema.insert("title".to_owned(), title.into());
    schema.insert("description".to_owned(), description.into());
    let mut value = schema.to_value();
    if form == Form::Toml {
        without_null(&mut value);
    }
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

/// An optional setting's schema without its `null`, which TOML cannot
/// write: `"type": ["string", "null"]` is `"type": "string"`, and an
/// `anyOf` of a schema and `{"type": "null"}` is that schema.
fn without_null(value: &mut Value) {
    match value {
        Value::Object(fields) => {
            if let Some(Value::Array(types)) = fields.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    fields.insert("type".to_owned(), only);
                }
            }
            if let Some(Value::Array(choices)) = fields.get("anyOf") {
                let kept: Vec<Value> = choices
                    .iter()
                    .filter(|c| c.get("type").and_then(Value::as_str) != Some("null"))
                    .cloned()
                    .collect();
                if kept.len() == 1 && choices.len() == 2 {
                    fields.remove("anyOf");
                    if let Value::Object(only) = &kept[0] {
                        for (key, inner) in only {
                            fields.entry(key.clone()).or_insert_with(|| inner.clone());
                        }
                    }
                }
            }
            fields.values_mut().for_each(without_null);
        }
        Value::Array(items) => items.iter_mut().for_each(without_null),
        _ => {}
    }
}

/// Writes every schema under `dir`; the files written.
pub fn write(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    all()
        .into_iter()
        .map(|(name, text)| {
            let path = dir.join(name);
            std::fs::write(&path, text).map(|()| path)
        })
        .collect()
}
