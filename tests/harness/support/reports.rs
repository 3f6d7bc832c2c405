//! Reading the reports a run writes: a folder for them, JUnit XML through an
//! XML parser, Cucumber JSON, and the HTML report's self-containment.

use std::collections::BTreeSet;

use quick_xml::{Reader, events::Event};
use serde_json::Value;

/// A folder for one test's reports, removed afterwards.
pub struct ReportDir(std::path::PathBuf);

impl ReportDir {
    pub fn new() -> Self {
        let dir = std::env::temp_dir().join(format!("payconf-reports-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).expect("report folder");
        Self(dir)
    }

    pub fn path(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }

    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.0.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    /// The results file the run wrote here, read back typed.
    pub fn record(&self) -> payconf::runner::record::RunRecord {
        payconf::runner::record::RunRecord::load(&self.0.join("results.json"))
            .unwrap_or_else(|e| panic!("the results read back: {e}"))
    }

    pub fn args(&self) -> Vec<String> {
        [
            ("--junit", "junit.xml"),
            ("--cucumber-json", "cucumber.json"),
            ("--html", "report.html"),
            ("--results", "results.json"),
        ]
        .into_iter()
        .flat_map(|(flag, name)| [flag.to_owned(), self.path(name)])
        .collect()
    }
}

impl Drop for ReportDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// (testcases, failures) of a JUnit file, read by an XML parser.
pub fn junit_cases(xml: &str) -> (usize, Vec<(String, String)>) {
    let cases = junit_elements(xml, b"testcase").len();
    (cases, junit_elements(xml, b"failure"))
}

/// The `<error>` elements of a JUnit file: (type, message).
pub fn junit_errors(xml: &str) -> Vec<(String, String)> {
    junit_elements(xml, b"error")
}

/// Every element named `name` of a JUnit file: its (type, message).
fn junit_elements(xml: &str, name: &[u8]) -> Vec<(String, String)> {
    let mut reader = Reader::from_str(xml);
    let mut found = Vec::new();
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Start(e) | Event::Empty(e) if e.name().as_ref() == name => {
                let attr = |key: &[u8]| {
                    e.attributes()
                        .filter_map(Result::ok)
                        .find(|a| a.key.as_ref() == key)
                        .map(|a| a.unescape_value().expect("attribute").into_owned())
                        .unwrap_or_default()
                };
                found.push((attr(b"type"), attr(b"message")));
            }
            Event::Eof => break,
            _ => {}
        }
    }
    found
}

pub fn cucumber_scenarios(json: &str) -> Vec<(String, Vec<String>)> {
    let features: Value = serde_json::from_str(json).expect("Cucumber JSON parses");
    let mut scenarios = Vec::new();
    for feature in features.as_array().expect("an array of features") {
        for key in ["uri", "id", "keyword", "name", "line", "elements"] {
            assert!(feature.get(key).is_some(), "feature without {key}");
        }
        for element in feature["elements"].as_array().expect("elements") {
            assert_eq!(element["type"], "scenario");
            assert_eq!(element["keyword"], "Scenario");
            let statuses = element["steps"]
                .as_array()
                .expect("steps")
                .iter()
                .map(|step| {
                    for key in ["keyword", "name", "line", "result"] {
                        assert!(step.get(key).is_some(), "step without {key}");
                    }
                    let status = step["result"]["status"]
                        .as_str()
                        .expect("status")
                        .to_owned();
                    assert!(
                        ["passed", "failed", "skipped", "undefined", "pending"]
                            .contains(&status.as_str())
                    );
                    if status == "failed" {
                        assert!(step["result"]["error_message"].is_string());
                    }
                    status
                })
                .collect();
            scenarios.push((element["name"].as_str().expect("name").to_owned(), statuses));
        }
    }
    scenarios
}

/// Every `href="#x"` of a page has an element with id `x`; nothing is fetched from elsewhere.
pub fn assert_self_contained(html: &str) {
    let document = scraper::Html::parse_document(html);
    assert!(
        document.errors.is_empty(),
        "HTML parse errors: {:?}",
        document.errors
    );
    let select = |s: &str| scraper::Selector::parse(s).expect("selector");
    let ids: BTreeSet<&str> = document
        .select(&select("[id]"))
        .filter_map(|e| e.value().attr("id"))
        .collect();
    for link in document.select(&select("a[href]")) {
        let href = link.value().attr("href").expect("href");
        let target = href
            .strip_prefix('#')
            .unwrap_or_else(|| panic!("external link {href}"));
        assert!(ids.contains(target), "link to #{target} resolves nowhere");
    }
    for external in ["script", "link", "img", "iframe", "object", "embed"] {
        assert_eq!(
            document.select(&select(external)).count(),
            0,
            "{external} in the report"
        );
    }
}
