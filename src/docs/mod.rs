//! `payconf docs`: the service's documentation, generated from the spec and
//! the features, so it cannot disagree with what `payconf run` checks.
//!
//! [`Site::build`] reads the spec ([`model`]) and the scenarios
//! ([`behaviour`]) and renders Markdown pages from minijinja templates
//! (`templates/*.md`): the overview with the payment flow ([`flow`], an SVG
//! drawn here), a page per operation with its fields, examples, error
//! answers and scenarios, the requirements with links to their scenarios
//! and back, and the reference implementation's defaults. The HTML site is
//! the same Markdown rendered by pulldown-cmark into a layout, links turned
//! from `.md` to `.html` and the diagram inlined: self-contained pages that
//! work from `file://`. The Markdown is checked in under `docs/reference/`.

pub mod behaviour;
pub mod fields;
pub mod flow;
mod html_page;
pub mod model;
pub mod samples;
pub mod workflows;

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use minijinja::{Environment, context, value::Value as TemplateValue};

use serde::Serialize;

pub use self::html_page::{Heading, markdown_to_html};
use self::{
    behaviour::ScenarioDoc,
    model::OperationDoc,
    workflows::{WORKFLOWS_FILE, Workflows},
};
use payconf_spec::{contract::Contract, features::Features, requirements::Requirements};

/// The command that regenerates the checked-in Markdown.
pub const REGENERATE: &str = "cargo run -- docs --out docs/reference --format markdown";

/// The diagram's file name beside the Markdown pages.
pub const FLOW_FILE: &str = "payment-flow.svg";

/// The spec's file name in the site, beside the workflows that point at it.
pub const SPEC_FILE: &str = "openapi.yaml";

/// The site's search index, a script (pages opened from `file://` can load
/// scripts, not fetch JSON), and the script that searches it.
pub const SEARCH_INDEX_FILE: &str = "search-index.js";
/// The search's script.
pub const SEARCH_SCRIPT_FILE: &str = "search.js";
/// The most characters of a page's text the search index holds.
const SEARCH_TEXT: usize = 20_000;

/// A page as the search knows it.
#[derive(Serialize)]
struct SearchEntry {
    path: String,
    title: String,
    headings: Vec<Heading>,
    text: String,
}

/// What `payconf docs` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The HTML site and the Markdown.
    Both,
    /// The HTML site only.
    Html,
    /// The Markdown (and the diagram) only: what `docs/reference/` holds.
    Markdown,
}

/// One page: where it goes (without extension) and its Markdown.
#[derive(Clone, Debug)]
pub struct Page {
    /// `index`, `operations/createPayment`.
    pub path: String,
    /// Its title, for the navigation and the HTML page's `<title>`.
    pub title: String,
    /// Its Markdown, written as is and rendered to HTML.
    pub markdown: String,
}

/// The whole documentation.
#[derive(Clone, Debug)]
pub struct Site {
    /// Every page.
    pub pages: Vec<Page>,
    /// The payment flow diagram, SVG.
    pub flow_svg: String,
    operations: Vec<OperationDoc>,
    /// The spec and the workflows, published beside the pages.
    sources: [(&'static str, String); 2],
}

/// Why the documentation could not be made or written.
#[derive(Debug, thiserror::Error)]
pub enum DocsError {
    /// A template failed.
    #[error("docs template: {0:#}")]
    Template(#[from] minijinja::Error),
    /// The workflows name an operation the spec does not declare.
    #[error("the workflows call operations the spec does not declare: {}", .0.join("; "))]
    Workflows(Vec<String>),
    /// A file could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The page that could not be written, under the output folder.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Markdown text that shows as written: `<placeholder>` and emphasis marks escaped.
fn md(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '*' | '_' | '`' | '[' | ']' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A table cell: one line, pipes escaped.
fn cell(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

/// An example as a fenced code block long enough for what it holds.
fn codeblock(example: TemplateValue) -> Result<String, minijinja::Error> {
    let text = example
        .get_attr("text")?
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let language = example
        .get_attr("language")?
        .as_str()
        .unwrap_or("text")
        .to_owned();
    let mut fence = "```".to_owned();
    while text.contains(&fence) {
        fence.push('`');
    }
    Ok(format!("{fence}{language}\n{text}\n{fence}"))
}

fn environment() -> Result<Environment<'static>, minijinja::Error> {
    let mut env = Environment::new();
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
    env.set_keep_trailing_newline(true);
    for (name, text) in [
        ("index.md", include_str!("templates/index.md")),
        ("operation.md", include_str!("templates/operation.md")),
        ("requirements.md", include_str!("templates/requirements.md")),
        (
            "reference-implementation.md",
            include_str!("templates/reference-implementation.md"),
        ),
        ("scenario.md", include_str!("templates/scenario.md")),
        ("workflows.md", include_str!("templates/workflows.md")),
    ] {
        env.add_template(name, text)?;
    }
    env.add_filter("md", |text: String| md(&text));
    env.add_filter("cell", |text: String| cell(&text));
    env.add_filter("codeblock", codeblock);
    Ok(env)
}

/// Blank lines squeezed to one, trailing spaces dropped, one final newline.
fn tidy(markdown: &str) -> String {
    let mut out = String::new();
    let mut blank = 0;
    for line in markdown.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            if blank > 1 || out.is_empty() {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

#[derive(Serialize)]
struct RequirementView {
    id: payconf_spec::requirements::RequirementId,
    profile: &'static str,
    summary: String,
    /// For a reference requirement, what it rests on, in words.
    source: Option<&'static str>,
    section: String,
    scenarios: Vec<ScenarioLink>,
}

#[derive(Serialize)]
struct ScenarioLink {
    name: String,
    page: String,
    anchor: String,
    file: String,
    line: usize,
}

#[derive(Serialize)]
struct AuthenticationView {
    name: String,
    used_by: String,
    conformance: String,
    description: String,
}

/// The page a scenario is shown on.
fn page_of(scenario: &ScenarioDoc) -> String {
    match &scenario.operation {
        Some(operation) => format!("operations/{operation}"),
        None => "index".to_owned(),
    }
}

/// The index: the service, its calls, pages and callbacks, the credentials
/// each call takes, the envelope, the workflows, the scenarios of any request.
fn index_page(
    env: &Environment<'_>,
    document: &serde_json::Value,
    operations: &[OperationDoc],
    scenarios: &[ScenarioDoc],
    workflows: &Workflows,
) -> Result<Page, DocsError> {
    let (callbacks, operations_called): (Vec<&OperationDoc>, Vec<&OperationDoc>) =
        operations.iter().partition(|op| !op.callback_of.is_empty());
    let (api_calls, browser_pages): (Vec<&OperationDoc>, Vec<&OperationDoc>) = operations_called
        .into_iter()
        .partition(|op| op.path.starts_with("/api/"));
    // The contract's two calls, and the reference profile's operations
    // after submit (detail, capture, cancel, refund, update).
    let (calls, management): (Vec<&OperationDoc>, Vec<&OperationDoc>) =
        api_calls.iter().partition(|op| op.conformance == "core");
    let envelope = model::fields(
        document,
        &serde_json::json!({"$ref": "#/components/schemas/Envelope"}),
    );
    let any_request: Vec<&ScenarioDoc> =
        scenarios.iter().filter(|s| s.operation.is_none()).collect();
    let info = |key: &str| {
        document
            .pointer(&format!("/info/{key}"))
            .and_then(serde_json::Value::as_str)
            .unwrap_or("")
            .trim()
            .to_owned()
    };
    Ok(Page {
        path: "index".to_owned(),
        title: info("title"),
        markdown: env.get_template("index.md")?.render(context! {
            title => info("title"), description => info("description"),
            version => info("version"), calls => calls, management => management,
            pages => browser_pages,
            callbacks => callbacks,
            servers => model::servers(document), authentication => authentication(&api_calls),
            envelope => envelope, workflows => workflows.all(),
            workflows_file => WORKFLOWS_FILE, spec_file => SPEC_FILE,
            any_request => any_request, root => "",
        })?,
    })
}

/// The credentials the API's calls take, a header each.
fn authentication(api_calls: &[&OperationDoc]) -> Vec<AuthenticationView> {
    api_calls
        .iter()
        .flat_map(|op| {
            op.parameters
                .iter()
                .filter(|p| p.location == "header")
                .map(|p| AuthenticationView {
                    name: p.name.clone(),
                    used_by: format!("`{}`", op.id),
                    // A credential of a reference operation is the
                    // reference profile's, whatever its scheme says.
                    conformance: if op.conformance == "core" {
                        p.conformance.clone()
                    } else {
                        op.conformance.clone()
                    },
                    description: p.description.clone(),
                })
        })
        .collect()
}

/// An operation's page: its fields and answers, its samples, its scenarios
/// and the workflows that use it.
fn operation_page(
    env: &Environment<'_>,
    document: &serde_json::Value,
    op: &OperationDoc,
    scenarios: &[ScenarioDoc],
    workflows: &Workflows,
) -> Result<Page, DocsError> {
    let pointer = format!(
        "/paths/{}/{}",
        op.path.replace('~', "~0").replace('/', "~1"),
        op.method.to_ascii_lowercase()
    );
    let samples = document
        .pointer(&pointer)
        .and_then(|raw| samples::samples(document, &op.path, &op.method.to_ascii_lowercase(), raw));
    let mine: Vec<&ScenarioDoc> = scenarios
        .iter()
        .filter(|s| s.operation.as_deref() == Some(op.id.as_str()))
        .collect();
    Ok(Page {
        path: format!("operations/{}", op.id),
        title: op.summary.clone(),
        markdown: env.get_template("operation.md")?.render(context! {
            op => op, scenarios => mine, workflows => workflows.using(&op.id),
            samples => samples, root => "../",
        })?,
    })
}

/// The requirements, each with the scenarios that check it.
fn requirements_page(
    env: &Environment<'_>,
    requirements: &Requirements,
    scenarios: &[ScenarioDoc],
) -> Result<Page, DocsError> {
    let views: Vec<RequirementView> = requirements
        .all()
        .iter()
        .map(|r| RequirementView {
            id: r.id.clone(),
            profile: r.profile.name(),
            summary: r.summary.clone(),
            source: r.source.map(|source| source.words()),
            section: r.section.clone(),
            scenarios: scenarios
                .iter()
                .filter(|s| s.requirements.contains(&r.id))
                .map(|s| ScenarioLink {
                    name: md(&s.name),
                    page: format!("{}.md", page_of(s)),
                    anchor: s.anchor.clone(),
                    file: s.file.clone(),
                    line: s.line,
                })
                .collect(),
        })
        .collect();
    Ok(Page {
        path: "requirements".to_owned(),
        title: "Requirements".to_owned(),
        markdown: env
            .get_template("requirements.md")?
            .render(context! { requirements => views })?,
    })
}

/// The sandbox's defaults: its shop, key, password, secret and test cards.
fn defaults_page(env: &Environment<'_>) -> Result<Page, DocsError> {
    use payconf_reference as reference;
    Ok(Page {
        path: "reference-implementation".to_owned(),
        title: "The reference implementation's defaults".to_owned(),
        markdown: env
            .get_template("reference-implementation.md")?
            .render(context! {
                shop_login => reference::DEFAULT_SHOP_LOGIN,
                api_key => reference::DEFAULT_API_KEY,
                password => reference::DEFAULT_PASSWORD,
                signing_secret => reference::DEFAULT_SIGNING_SECRET,
                cards => reference::test_cards::table(&reference::ReferenceConfig::default()),
                issuer_code => reference::DEFAULT_ISSUER_CODE,
                token_minutes => reference::DEFAULT_TOKEN_LIFETIME.as_secs() / 60,
                max_body_kib => reference::MAX_BODY_BYTES / 1024,
            })?,
    })
}

impl Site {
    /// Builds every page from the spec, the features, the requirements and
    /// the workflows: the index, a page an operation, the workflows, the
    /// requirements and the sandbox's defaults.
    pub fn build(
        contract: &Contract,
        features: &Features,
        requirements: &Requirements,
        workflows: &Workflows,
    ) -> Result<Self, DocsError> {
        let document = contract.document();
        let operations = model::operations(document);
        let operation_ids: Vec<&str> = operations.iter().map(|op| op.id.as_str()).collect();
        let unknown = workflows.unknown_operations(&operation_ids);
        if !unknown.is_empty() {
            return Err(DocsError::Workflows(unknown));
        }
        let scenarios = behaviour::scenarios(features);
        let env = environment()?;
        let mut pages = vec![index_page(
            &env,
            document,
            &operations,
            &scenarios,
            workflows,
        )?];
        for op in &operations {
            pages.push(operation_page(&env, document, op, &scenarios, workflows)?);
        }
        pages.push(Page {
            path: "workflows".to_owned(),
            title: "Payment flows as Arazzo workflows".to_owned(),
            markdown: env.get_template("workflows.md")?.render(context! {
                workflows => workflows.all(), workflows_file => WORKFLOWS_FILE,
            })?,
        });
        pages.push(requirements_page(&env, requirements, &scenarios)?);
        pages.push(defaults_page(&env)?);
        for page in &mut pages {
            page.markdown = tidy(&page.markdown);
        }
        Ok(Self {
            pages,
            flow_svg: flow::payment_flow_svg(),
            operations,
            sources: [
                (SPEC_FILE, contract.text().to_owned()),
                (WORKFLOWS_FILE, workflows.text().to_owned()),
            ],
        })
    }

    /// Every file of the Markdown form: relative path and contents.
    pub fn markdown_files(&self) -> BTreeMap<PathBuf, String> {
        let mut files: BTreeMap<PathBuf, String> = self
            .pages
            .iter()
            .map(|p| (PathBuf::from(format!("{}.md", p.path)), p.markdown.clone()))
            .collect();
        files.insert(
            PathBuf::from(FLOW_FILE),
            format!("{}\n", self.flow_svg.trim_end()),
        );
        files.extend(self.source_files());
        files
    }

    /// The spec and the workflows, as read, so that the site's links to
    /// them work and the workflows' source description resolves.
    fn source_files(&self) -> impl Iterator<Item = (PathBuf, String)> + '_ {
        self.sources
            .iter()
            .map(|(name, text)| (PathBuf::from(name), text.clone()))
    }

    /// Every file of the HTML form: relative path and contents.
    pub fn html_files(&self) -> Result<BTreeMap<PathBuf, String>, DocsError> {
        let mut env = Environment::new();
        env.set_auto_escape_callback(|_| minijinja::AutoEscape::Html);
        env.add_template("layout.html", include_str!("templates/layout.html"))?;
        let layout = env.get_template("layout.html")?;
        let mut files = BTreeMap::new();
        let mut index = Vec::new();
        for page in &self.pages {
            let root = "../".repeat(page.path.matches('/').count());
            let rendered = html_page::render(&page.markdown, &self.flow_svg);
            let contents: Vec<&Heading> =
                rendered.headings.iter().filter(|h| h.level == 2).collect();
            let text = layout.render(context! {
                title => page.title, root => root, operations => self.operations,
                content => rendered.html, current => page.path, contents => contents,
            })?;
            files.insert(PathBuf::from(format!("{}.html", page.path)), text);
            index.push(SearchEntry {
                path: page.path.clone(),
                title: page.title.clone(),
                text: rendered.text.chars().take(SEARCH_TEXT).collect(),
                headings: rendered.headings,
            });
        }
        let index = serde_json::to_string(&index).unwrap_or_else(|_| "[]".to_owned());
        files.insert(
            PathBuf::from(SEARCH_INDEX_FILE),
            format!("window.PAYCONF_SEARCH = {index};\n"),
        );
        files.insert(
            PathBuf::from(SEARCH_SCRIPT_FILE),
            include_str!("templates/search.js").to_owned(),
        );
        files.extend(self.source_files());
        Ok(files)
    }

    /// Writes the site under `out`.
    pub fn write(&self, out: &Path, format: Format) -> Result<Vec<PathBuf>, DocsError> {
        let mut files = BTreeMap::new();
        if format != Format::Html {
            files.extend(self.markdown_files());
        }
        if format != Format::Markdown {
            files.extend(self.html_files()?);
        }
        let mut written = Vec::new();
        for (relative, text) in files {
            let path = out.join(&relative);
            let write_error = |source| DocsError::Write {
                path: path.display().to_string(),
                source,
            };
            if let Some(folder) = path.parent() {
                std::fs::create_dir_all(folder).map_err(write_error)?;
            }
            std::fs::write(&path, text).map_err(write_error)?;
            written.push(relative);
        }
        Ok(written)
    }
}
