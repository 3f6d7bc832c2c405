//! What the tests of payconf against a hostile target share: a target file
//! for the hostile front, a run with every report written and read back,
//! and a turn in a browser as a journey takes one.

use payconf::runner::record::OutcomeKind;
use payconf_reference::{DEFAULT_API_KEY, DEFAULT_SHOP_LOGIN};
use url::Url;

use super::runner::{RunOutput, TempFile, payconf_run_with};

/// The CVV the target file gives every card: rare enough to search for.
pub const CVV: &str = "917";

/// A target file for the hostile front at `base`, the reference
/// implementation's merchant and cards, with this `[acs]` body.
pub fn target_file(base: &Url, acs: &str) -> TempFile {
    let base = base.as_str().trim_end_matches('/');
    let card = |number: &str| {
        format!("number = \"{number}\"\nexp_month = \"12\"\nexp_year = \"99\"\ncvv = \"{CVV}\"\n")
    };
    TempFile::new(
        "target.toml",
        &format!(
            "base_url = \"{base}\"\napi_key = \"{DEFAULT_API_KEY}\"\n\
             shop_login = \"{DEFAULT_SHOP_LOGIN}\"\n\
             success_url = \"{base}/merchant/{DEFAULT_SHOP_LOGIN}/success\"\n\
             failure_url = \"{base}/merchant/{DEFAULT_SHOP_LOGIN}/failure\"\n\
             [cards.frictionless]\n{}[cards.three_ds]\n{}[acs]\n{acs}\n",
            card(payconf_reference::DEFAULT_FRICTIONLESS_CARD),
            card(payconf_reference::DEFAULT_THREE_DS_CARD),
        ),
    )
}

/// Every report of a run, with its console: (name, text).
pub struct Artifacts {
    pub output: RunOutput,
    pub texts: Vec<(String, String)>,
}

const REPORTS: [(&str, &str); 5] = [
    ("--junit", "junit.xml"),
    ("--cucumber-json", "cucumber.json"),
    ("--html", "report.html"),
    ("--results", "results.json"),
    ("--har", "run.har"),
];

/// Runs payconf with every report, in a blocking thread (the test's servers
/// keep serving), and reads what it wrote.
pub async fn run_with_reports(args: &[&str], env: &[(&str, &str)]) -> Artifacts {
    let dir = std::env::temp_dir().join(format!("payconf-untrusted-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).expect("folder");
    let mut all: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    for (flag, name) in REPORTS {
        all.push(flag.to_owned());
        all.push(dir.join(name).display().to_string());
    }
    let env: Vec<(String, String)> = env
        .iter()
        .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
        .collect();
    let output = tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = all.iter().map(String::as_str).collect();
        let env: Vec<(&str, &str)> = env.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        payconf_run_with(&args, &env)
    })
    .await
    .expect("the run thread finishes");
    let mut texts = vec![
        ("stdout".to_owned(), output.stdout.clone()),
        ("stderr".to_owned(), output.stderr.clone()),
    ];
    for (_, name) in REPORTS {
        if let Ok(text) = std::fs::read_to_string(dir.join(name)) {
            texts.push((name.to_owned(), text));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Artifacts { output, texts }
}

impl Artifacts {
    /// The artifacts that hold `needle`.
    pub fn holding(&self, needle: &str) -> Vec<&str> {
        self.texts
            .iter()
            .filter(|(_, text)| text.contains(needle))
            .map(|(name, _)| name.as_str())
            .collect()
    }

    pub fn said(&self) -> String {
        self.output.said()
    }

    /// The message of the scenario at `location` in the results.
    pub fn message(&self, outcome: OutcomeKind) -> String {
        self.output
            .scenarios()
            .iter()
            .filter(|s| s.outcome == outcome)
            .map(|s| s.message.clone().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// A turn in `chromium`'s window, as a journey takes one.
pub async fn turn(
    chromium: &payconf::runner::chromium::Chromium,
) -> payconf::runner::chromium::Turn<'_> {
    chromium
        .turn(chromium.reserve().await)
        .await
        .expect("a turn")
}

/// The form driver's `[acs]` body.
pub const FORM: &str = "driver = \"form\"\nfields = { otp = \"123456\" }";

/// The browser driver's `[acs]` body.
pub const BROWSER: &str = "driver = \"browser\"\nfields = { otp = \"123456\" }";

/// Runs the scenarios `tags` selects against the front at `base` with this
/// `[acs]` body, more arguments and environment, every report written.
pub async fn run_against(
    base: &Url,
    acs: &str,
    tags: &str,
    more: &[&str],
    env: &[(&str, &str)],
) -> Artifacts {
    let file = target_file(base, acs);
    let path = file.0.display().to_string();
    let mut args = vec!["--target", path.as_str(), "--tags", tags];
    args.extend_from_slice(more);
    run_with_reports(&args, env).await
}
