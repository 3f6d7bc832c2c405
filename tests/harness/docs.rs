//! `payconf docs`: the site is generated from the spec and the features,
//! shows every operation, field, example, error code and scenario, is valid
//! HTML whose internal links all resolve, and the Markdown checked in under
//! docs/reference/ is what the current spec and features generate.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
};

use payconf::docs::{
    REGENERATE, SPEC_FILE, Site,
    workflows::{EMBEDDED_WORKFLOWS, WORKFLOWS_FILE, Workflows},
};
use payconf_spec::{
    contract::{Contract, EMBEDDED_SPEC},
    features::Features,
    requirements::Requirements,
};
use scraper::{Html, Selector};
use serde_json::Value;

fn site_from(spec: &str) -> Site {
    let contract = Contract::from_yaml(spec).expect("the spec loads");
    let features = Features::embedded().expect("features parse");
    let requirements = Requirements::embedded().expect("requirements load");
    let workflows = Workflows::embedded().expect("workflows read");
    Site::build(&contract, &features, &requirements, &workflows).expect("the site builds")
}

fn checked_in() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/reference")
}

/// The files that differ between a generated Markdown site and docs/reference/.
fn drift(site: &Site) -> Vec<String> {
    let generated = site.markdown_files();
    let mut differing = Vec::new();
    for (path, text) in &generated {
        match std::fs::read_to_string(checked_in().join(path)) {
            Ok(existing) if existing == *text => {}
            Ok(_) => differing.push(format!("{} differs", path.display())),
            Err(_) => differing.push(format!("{} is missing", path.display())),
        }
    }
    let mut on_disk = Vec::new();
    collect_files(&checked_in(), &checked_in(), &mut on_disk);
    for path in on_disk {
        if !generated.contains_key(&path) {
            differing.push(format!("{} is not generated any more", path.display()));
        }
    }
    differing
}

pub(crate) fn collect_files(root: &Path, dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_files(root, &path, found);
        } else if let Ok(relative) = path.strip_prefix(root) {
            found.push(relative.to_owned());
        }
    }
}

#[test]
fn the_checked_in_docs_are_what_the_spec_and_features_generate() {
    let differing = drift(&site_from(EMBEDDED_SPEC));
    assert!(
        differing.is_empty(),
        "docs/reference/ is out of date: {differing:?}\nregenerate it with: {REGENERATE}"
    );
}

#[test]
fn an_edited_spec_without_regeneration_is_drift() {
    let edited = EMBEDDED_SPEC.replacen(
        "summary: Start a payment process",
        "summary: Begin a payment",
        1,
    );
    assert_ne!(edited, EMBEDDED_SPEC, "the edit applies");
    let differing = drift(&site_from(&edited));
    assert!(
        differing.iter().any(|d| d.contains("createPayment.md")),
        "{differing:?}"
    );
}

/// The HTML site, written to a temporary folder: relative path to parsed page.
struct HtmlSite {
    dir: PathBuf,
    pages: BTreeMap<PathBuf, String>,
}

impl HtmlSite {
    fn generate() -> Self {
        let dir = std::env::temp_dir().join(format!("payconf-docs-{}", uuid::Uuid::new_v4()));
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_payconf"))
            .args(["docs", "--out", &dir.display().to_string()])
            .output()
            .expect("payconf docs runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let mut files = Vec::new();
        collect_files(&dir, &dir, &mut files);
        let pages = files
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "html"))
            .map(|p| {
                let text = std::fs::read_to_string(dir.join(&p)).expect("page reads");
                (p, text)
            })
            .collect();
        Self { dir, pages }
    }

    fn text_of(&self, page: &str) -> String {
        let html = self
            .pages
            .get(Path::new(page))
            .unwrap_or_else(|| panic!("no page {page}"));
        Html::parse_document(html).root_element().text().collect()
    }

    fn code_blocks(&self, page: &str) -> Vec<String> {
        let html = Html::parse_document(&self.pages[Path::new(page)]);
        let code = Selector::parse("pre code").expect("selector");
        html.select(&code).map(|c| c.text().collect()).collect()
    }
}

impl Drop for HtmlSite {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn the_site_is_entered_at_index_html_and_every_page_is_valid_with_links_that_resolve() {
    let site = HtmlSite::generate();
    assert!(site.pages.contains_key(Path::new("index.html")));
    let select = |s: &str| Selector::parse(s).expect("selector");
    let ids: BTreeMap<&PathBuf, BTreeSet<String>> = site
        .pages
        .iter()
        .map(|(path, html)| {
            let document = Html::parse_document(html);
            let ids = document
                .select(&select("[id]"))
                .filter_map(|e| e.value().attr("id").map(str::to_owned))
                .collect();
            (path, ids)
        })
        .collect();
    let mut problems = Vec::new();
    for (path, html) in &site.pages {
        let document = Html::parse_document(html);
        if !document.errors.is_empty() {
            problems.push(format!("{}: {:?}", path.display(), document.errors));
        }
        for external in ["link", "img", "iframe"] {
            if document.select(&select(external)).next().is_some() {
                problems.push(format!("{}: has a <{external}>", path.display()));
            }
        }
        // Scripts only of the site's own (the offline search), none inline.
        for script in document.select(&select("script")) {
            let own = script.value().attr("src").is_some_and(|src| {
                !src.contains("://")
                    && site
                        .dir
                        .join(normalize(&path.parent().unwrap_or(Path::new("")).join(src)))
                        .is_file()
            });
            if !own {
                problems.push(format!(
                    "{}: a script not of the site's own",
                    path.display()
                ));
            }
        }
        for link in document.select(&select("a[href]")) {
            let href = link.value().attr("href").expect("href");
            if href.contains("://") {
                problems.push(format!("{}: external link {href}", path.display()));
                continue;
            }
            let (file, fragment) = href.split_once('#').unwrap_or((href, ""));
            let target = if file.is_empty() {
                (*path).clone()
            } else {
                normalize(&path.parent().unwrap_or(Path::new("")).join(file))
            };
            match ids.get(&target) {
                // A file the site publishes beside its pages (the spec, the workflows).
                None if fragment.is_empty() && site.dir.join(&target).is_file() => {}
                None => problems.push(format!("{}: {href} leads to no page", path.display())),
                Some(found) if !fragment.is_empty() && !found.contains(fragment) => {
                    problems.push(format!("{}: {href} names no element", path.display()));
                }
                _ => {}
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

fn normalize(path: &Path) -> PathBuf {
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for component in path.components() {
        match component {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::Normal(part) => parts.push(part),
            _ => {}
        }
    }
    parts.iter().collect()
}

/// Follows `$ref` in the raw spec.
fn resolve<'a>(document: &'a Value, value: &'a Value) -> &'a Value {
    match value.get("$ref").and_then(Value::as_str) {
        Some(reference) => resolve(
            document,
            document
                .pointer(reference.trim_start_matches('#'))
                .expect("a resolvable $ref"),
        ),
        None => value,
    }
}

/// Every property name of a schema, at any depth.
fn property_names(document: &Value, schema: &Value, names: &mut BTreeSet<String>) {
    let schema = resolve(document, schema);
    for (name, property) in schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        names.insert(name.clone());
        property_names(document, property, names);
    }
    for part in schema
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        property_names(document, part, names);
    }
    if let Some(items) = schema.get("items") {
        property_names(document, items, names);
    }
}

#[test]
fn every_operation_field_example_error_code_and_scenario_of_the_spec_and_features_appears() {
    let site = HtmlSite::generate();
    let document: Value = serde_yaml_ng::from_str(EMBEDDED_SPEC).expect("spec parses");
    let mut missing = Vec::new();
    for (_, item) in document["paths"].as_object().expect("paths") {
        for (_, operation) in item.as_object().expect("path item") {
            let Some(id) = operation.get("operationId").and_then(Value::as_str) else {
                continue;
            };
            let page = format!("operations/{id}.html");
            let text = site.text_of(&page);
            let blocks = site.code_blocks(&page).join("\n");
            if !text.contains(id) {
                missing.push(format!("operation {id}"));
            }
            let mut contents = Vec::new();
            if let Some(body) = operation.get("requestBody") {
                contents.extend(resolve(&document, body)["content"].as_object().cloned());
            }
            for (status, response) in operation["responses"].as_object().expect("responses") {
                let response = resolve(&document, response);
                if !text.contains(&format!("HTTP {status}")) {
                    missing.push(format!("{id}: response {status}"));
                }
                contents.extend(response.get("content").and_then(Value::as_object).cloned());
            }
            for content in contents {
                for (_, media) in content {
                    let mut names = BTreeSet::new();
                    if let Some(schema) = media.get("schema") {
                        property_names(&document, schema, &mut names);
                    }
                    for name in names {
                        if !text.contains(&name) {
                            missing.push(format!("{id}: field {name}"));
                        }
                    }
                    for (name, example) in media
                        .get("examples")
                        .and_then(Value::as_object)
                        .into_iter()
                        .flatten()
                    {
                        let value = &resolve(&document, example)["value"];
                        let shown = match value {
                            Value::String(s) => s.clone(),
                            other => serde_json::to_string_pretty(other).expect("JSON"),
                        };
                        if !blocks.contains(shown.trim()) {
                            missing.push(format!("{id}: example {name}"));
                        }
                        if let Some(code) = value.pointer("/error/code").and_then(Value::as_str) {
                            if !text.contains(code) {
                                missing.push(format!("{id}: error code {code}"));
                            }
                        }
                    }
                }
            }
        }
    }
    let all_text: String = site
        .pages
        .keys()
        .map(|p| site.text_of(&p.display().to_string()))
        .collect();
    for feature in Features::embedded().expect("features").as_written() {
        for scenario in &feature.scenarios {
            if !all_text.contains(&scenario.name) {
                missing.push(format!("scenario {}", scenario.name));
            }
        }
    }
    for requirement in Requirements::embedded().expect("requirements").all() {
        if !site
            .text_of("requirements.html")
            .contains(requirement.id.as_str())
        {
            missing.push(format!("requirement {}", requirement.id));
        }
    }
    assert!(missing.is_empty(), "not in the site: {missing:#?}");
}

#[test]
fn the_reference_implementations_defaults_are_documented() {
    let site = HtmlSite::generate();
    let text = site.text_of("reference-implementation.html");
    for value in [
        payconf_reference::DEFAULT_SHOP_LOGIN,
        payconf_reference::DEFAULT_API_KEY,
        payconf_reference::DEFAULT_FRICTIONLESS_CARD,
        payconf_reference::DEFAULT_THREE_DS_CARD,
        payconf_reference::DEFAULT_DECLINED_CARD,
        payconf_reference::DEFAULT_ISSUER_CODE,
    ] {
        assert!(text.contains(value), "{value}");
    }
    assert!(site.text_of("index.html").contains("The payment flow"));
    assert!(site.pages[Path::new("index.html")].contains("<svg"));
}

#[test]
fn the_site_publishes_the_spec_and_the_workflows_whose_source_resolves_beside_it() {
    let site = HtmlSite::generate();
    let published = |name: &str| {
        std::fs::read_to_string(site.dir.join(name))
            .unwrap_or_else(|e| panic!("the site has no {name}: {e}"))
    };
    assert_eq!(published(SPEC_FILE), EMBEDDED_SPEC);
    assert_eq!(published(WORKFLOWS_FILE), EMBEDDED_WORKFLOWS);
    let workflows: Value =
        serde_yaml_ng::from_str(EMBEDDED_WORKFLOWS).expect("the workflows are YAML");
    let source = workflows
        .pointer("/sourceDescriptions/0/url")
        .and_then(Value::as_str)
        .expect("a source description");
    assert!(
        site.dir.join(source).is_file(),
        "{source} is not beside the published workflows"
    );
    let text = site.text_of("workflows.html");
    for id in [
        "frictionlessPayment",
        "threeDSecurePayment",
        "unknownTokenRefused",
    ] {
        assert!(text.contains(id), "workflows.html lacks {id}");
    }
    assert!(
        site.text_of("operations/submitPayment.html")
            .contains("submitUnknownToken"),
        "submit's page shows the workflow steps that call it"
    );
}

#[test]
fn workflows_that_call_an_operation_the_spec_lacks_are_refused() {
    let contract = Contract::embedded().expect("the spec loads");
    let features = Features::embedded().expect("features parse");
    let requirements = Requirements::embedded().expect("requirements load");
    let workflows = Workflows::from_yaml(
        &EMBEDDED_WORKFLOWS.replace("payments.submitPayment", "payments.voidPayment"),
    )
    .expect("workflows read");
    let error = Site::build(&contract, &features, &requirements, &workflows).expect_err("refused");
    assert!(
        error.to_string().contains("step `submit`: `voidPayment`"),
        "{error}"
    );
}

/// Every relative link of the hand-written pages (the README, CONTRIBUTING,
/// docs/*.md) names a file that exists, and every `#anchor` into a page
/// names one of its headings: pages move, and links must move with them.
#[test]
fn the_hand_written_pages_link_only_to_what_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md"), root.join("CONTRIBUTING.md")];
    for entry in std::fs::read_dir(root.join("docs")).expect("docs/ reads") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    let anchors = |page: &Path| -> BTreeSet<String> {
        let text = std::fs::read_to_string(page).unwrap_or_default();
        text.lines()
            .filter_map(|l| l.strip_prefix('#'))
            .map(|heading| {
                heading
                    .trim_start_matches('#')
                    .trim()
                    .to_lowercase()
                    .chars()
                    .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
                    .map(|c| if c == ' ' { '-' } else { c })
                    .collect()
            })
            .collect()
    };
    let mut broken = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).expect("a page reads");
        for event in pulldown_cmark::Parser::new(&text) {
            let pulldown_cmark::Event::Start(pulldown_cmark::Tag::Link { dest_url, .. }) = event
            else {
                continue;
            };
            if dest_url.contains("://") || dest_url.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = dest_url.split_once('#').unwrap_or((&dest_url, ""));
            let target = if file.is_empty() {
                page.clone()
            } else {
                page.parent().expect("a folder").join(file)
            };
            if !target.exists() {
                broken.push(format!("{}: {dest_url} (no such file)", page.display()));
            } else if !anchor.is_empty()
                && target.extension().is_some_and(|e| e == "md")
                && !anchors(&target).contains(anchor)
            {
                broken.push(format!("{}: {dest_url} (no such heading)", page.display()));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}
