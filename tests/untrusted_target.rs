//! payconf pointed at a server it does not control: the hostile target
//! ([`support::hostile`]) carries one attack per test, and each test proves
//! the guarantee that attack tries to break. Every listener is on loopback.

mod support;

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use base64::Engine as _;
use payconf_reference::{DEFAULT_API_KEY, DEFAULT_SHOP_LOGIN, RunningServer};
use support::{
    hostile::{Attack, HostileTarget, PLANTED_CREDENTIAL, grouped},
    runner::{BROWSER_RUNS, RunOutput, TempFile, browser_or_skip, payconf_run_with},
};
use url::Url;

/// The CVV the target file gives every card: rare enough to search for.
const CVV: &str = "917";

/// A target file for the hostile front at `base`, the reference
/// implementation's merchant and cards, with this `[acs]` body.
fn target_file(base: &Url, acs: &str) -> TempFile {
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
struct Artifacts {
    output: RunOutput,
    texts: Vec<(String, String)>,
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
async fn run_with_reports(args: &[&str], env: &[(&str, &str)]) -> Artifacts {
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
    fn holding(&self, needle: &str) -> Vec<&str> {
        self.texts
            .iter()
            .filter(|(_, text)| text.contains(needle))
            .map(|(name, _)| name.as_str())
            .collect()
    }

    fn said(&self) -> String {
        format!(
            "exit {:?}\n{}\n{}",
            self.output.code,
            self.output.stdout,
            &self.output.stderr[self.output.stderr.len().saturating_sub(3000)..]
        )
    }

    /// The message of the scenario at `location` in the results.
    fn message(&self, outcome: &str) -> String {
        self.output.results()["scenarios"]
            .as_array()
            .expect("scenarios")
            .iter()
            .filter(|s| s["outcome"] == outcome)
            .map(|s| s["message"].as_str().unwrap_or_default().to_owned())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// The browser a run would start, with the default settings.
async fn start_chromium() -> payconf::runner::issuer::chromium::Chromium {
    use payconf::runner::issuer::chromium::{BrowserSettings, Chromium, locate};
    let settings = BrowserSettings::default();
    let programs = locate(&settings, |name| std::env::var(name).ok()).expect("browser found");
    Chromium::start(&programs, &settings, Duration::from_secs(10))
        .await
        .expect("the browser starts")
}

/// The form driver's `[acs]` body.
const FORM: &str = "driver = \"form\"\nfields = { otp = \"123456\" }";

/// The browser driver's `[acs]` body.
const BROWSER: &str = "driver = \"browser\"\nfields = { otp = \"123456\" }";

/// Runs the scenarios `tags` selects against the front at `base` with this
/// `[acs]` body, more arguments and environment, every report written.
async fn run_against(
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_issuer_page_can_neither_drive_chromedriver_nor_keep_windows_open() {
    if !browser_or_skip("an_issuer_page_can_neither_drive_chromedriver_nor_keep_windows_open") {
        return;
    }
    let _turn = BROWSER_RUNS.acquire().await.expect("semaphore");
    let marker = std::env::temp_dir().join(format!("payconf-takeover-{}", uuid::Uuid::new_v4()));
    let target = HostileTarget::start(Attack::BrowserTakeover {
        marker: marker.clone(),
    })
    .await;
    let run = run_against(
        &target.base,
        BROWSER,
        "@issuer",
        &["--concurrency", "1"],
        &[],
    )
    .await;

    // The attack ran: the page found ChromeDriver's port and tried it, and
    // so did a process beside it.
    let reports = target.seen.reports.lock().expect("lock").clone();
    assert!(
        !reports.is_empty(),
        "the takeover script never reported\n{}",
        run.said()
    );
    assert!(
        reports
            .iter()
            .any(|r| r.contains("\"ports\":[") && !r.contains("\"ports\":[]")),
        "the script found no ChromeDriver port: {reports:?}"
    );
    // It got nothing and changed nothing.
    for report in &reports {
        assert!(
            !report.contains("sessionId") && !report.contains("ready for new sessions"),
            "a WebDriver answer reached the page: {report}"
        );
    }
    assert!(
        !marker.exists(),
        "a page's WebDriver session ran a command on the machine"
    );
    // The buyer still got through: the page conforms but for its script.
    assert_eq!(run.output.code, Some(0), "{}", run.said());

    // Popups live no longer than their journey: no popup pings after a
    // later journey's issuer page was served.
    let pings = target.seen.pings.lock().expect("lock").clone();
    let pages = target.seen.issuer_pages.lock().expect("lock").clone();
    assert!(
        pings.len() > 1 && pages.len() > 1,
        "the popups never pinged ({} pings, {} journeys): the test proves nothing",
        pings.len(),
        pages.len()
    );
    for (journey, at) in &pages {
        let late: Vec<&String> = pings
            .iter()
            .filter(|(opener, ping)| !opener.contains(journey.as_str()) && ping > at)
            .filter(|(opener, _)| {
                // Only popups of journeys that started before this one.
                pages
                    .iter()
                    .any(|(j, started)| opener.contains(j.as_str()) && started < at)
            })
            .map(|(opener, _)| opener)
            .collect();
        assert!(
            late.is_empty(),
            "popups of earlier journeys still ran during journey {journey}: {late:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_local_process_finds_the_port_but_cannot_drive_the_browser() {
    if !browser_or_skip("another_local_process_finds_the_port_but_cannot_drive_the_browser") {
        return;
    }
    let _turn = BROWSER_RUNS.acquire().await.expect("semaphore");
    let chromium = start_chromium().await;
    let port = chromium.driver_port();
    let profile = chromium.profile().to_path_buf();
    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client");
    let mut answers = Vec::new();
    for path in ["/session", "/wd/hub/session", "/status", "/sessions", "/"] {
        for origin in [None, Some(format!("http://127.0.0.1:{port}"))] {
            let mut request = client
                .post(format!("http://127.0.0.1:{port}{path}"))
                .header("content-type", "text/plain")
                .body(r#"{"capabilities":{}}"#);
            if let Some(origin) = &origin {
                request = request.header("origin", origin);
            }
            let response = request.send().await.expect("ChromeDriver answers");
            let status = response.status().as_u16();
            let text = response.text().await.unwrap_or_default();
            answers.push(format!("{path} {status} {text}"));
        }
    }
    chromium.close().await;
    for answer in &answers {
        assert!(
            !answer.contains("sessionId") && !answer.contains("\"value\""),
            "ChromeDriver took a command without its secret path: {answer}"
        );
    }
    assert!(
        !profile.exists(),
        "the profile folder outlived the browser: {}",
        profile.display()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_a_target_sends_reaches_a_terminal_or_a_ci_log_as_a_command() {
    let target = HostileTarget::start(Attack::LogInjection).await;
    let run = run_against(&target.base, FORM, "@req:CREATE-01", &[], &[]).await;
    // Not JSON: the target is at fault.
    assert_eq!(run.output.code, Some(1), "{}", run.said());
    assert!(
        run.output.stdout.contains("\\x1b]52;c;"),
        "the body is shown, escaped: {}",
        run.said()
    );
    for (name, text) in run
        .texts
        .iter()
        .filter(|(name, _)| matches!(name.as_str(), "stdout" | "stderr" | "junit.xml"))
    {
        for forbidden in ['\u{1b}', '\r', '\u{7}', '\u{9b}', '\u{202e}'] {
            assert!(
                !text.contains(forbidden),
                "{name} holds {forbidden:?}:\n{text}"
            );
        }
        assert!(!text.contains("##["), "{name} holds a ##[ command:\n{text}");
        for line in text.lines() {
            assert!(
                !line.trim_start().starts_with("::"),
                "{name} has a line that is a workflow command: {line}"
            );
            assert!(
                !line.starts_with("result: PASSED"),
                "{name} has a forged verdict: {line}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_nested_without_end_is_refused_at_once_not_parsed() {
    let target = HostileTarget::start(Attack::EndlessNesting).await;
    let run = run_against(&target.base, FORM, "@req:TDS-04", &[], &[]).await;
    // The page is the harness's to read: an error, naming the bound and
    // the driver that reads such a page.
    assert_eq!(run.output.code, Some(2), "{}", run.said());
    let message = run.message("error");
    assert!(
        message.contains("nests its elements more than 512 deep"),
        "{message}\n{}",
        run.said()
    );
    assert!(
        message.contains("driver = \\\"browser\\\"") || message.contains("driver = \"browser\"")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_from_an_address_the_run_was_not_given_is_not_published() {
    let target = HostileTarget::start(Attack::PrivateAddress).await;
    let run = run_against(&target.base, FORM, "@req:TDS-04", &[], &[]).await;
    assert!(
        run.said().contains("not an address the run was given"),
        "{}",
        run.said()
    );
    for secret in [PLANTED_CREDENTIAL, "planted/secret+access=key"] {
        assert_eq!(run.holding(secret), Vec::<&str>::new(), "{secret}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_echoed_in_other_encodings_are_masked_in_every_artifact() {
    let target = HostileTarget::start(Attack::EncodedEcho).await;
    let run = run_against(
        &target.base,
        FORM,
        "@req:SUBMIT-01 or @req:TDS-01",
        &[],
        &[],
    )
    .await;
    assert_eq!(run.output.code, Some(0), "{}", run.said());
    let har = &run
        .texts
        .iter()
        .find(|(n, _)| n == "run.har")
        .expect("HAR")
        .1;
    assert!(
        har.contains(r#"\"echo\":{\"key_url\""#),
        "the echo never reached the HAR, so the test would prove nothing"
    );
    let b64 = |text: &str| {
        [
            base64::engine::general_purpose::STANDARD_NO_PAD.encode(text),
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text),
        ]
    };
    let mut forms: Vec<String> = vec![
        DEFAULT_API_KEY.to_owned(),
        url::form_urlencoded::byte_serialize(DEFAULT_API_KEY.as_bytes()).collect(),
        DEFAULT_API_KEY
            .bytes()
            .map(|b| format!("{b:02x}"))
            .collect(),
        DEFAULT_API_KEY
            .chars()
            .map(|c| format!("&#{};", u32::from(c)))
            .collect(),
        format!("CVV {CVV}"),
        format!("cvv={CVV}"),
        format!("\"cvc_code\":\"{CVV}\""),
        format!("\"cvn\":\"{CVV}\""),
        format!("\"card_security_code\":\"{CVV}\""),
    ];
    forms.extend(b64(DEFAULT_API_KEY));
    forms.extend(b64(&format!("shop:{DEFAULT_API_KEY}")));
    forms.extend(b64(&format!("m:{DEFAULT_API_KEY}")));
    for number in [
        payconf_reference::DEFAULT_FRICTIONLESS_CARD,
        payconf_reference::DEFAULT_THREE_DS_CARD,
    ] {
        forms.push(number.to_owned());
        forms.push(grouped(number, " "));
        forms.push(grouped(number, "-"));
        forms.extend(b64(number));
    }
    let leaks: Vec<String> = forms
        .iter()
        .flat_map(|form| {
            run.holding(form)
                .into_iter()
                .map(move |name| format!("{name}: {form}"))
        })
        .collect();
    assert!(leaks.is_empty(), "secrets leaked: {leaks:#?}");
    // A header named for the CVV is masked too.
    assert!(
        !har.contains(&format!("\"value\": \"{CVV}\""))
            && !har.contains(&format!("\"value\":\"{CVV}\"")),
        "a CVV header leaked"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_over_the_memory_bound_ends_its_journey_as_an_error() {
    if !browser_or_skip("a_page_over_the_memory_bound_ends_its_journey_as_an_error") {
        return;
    }
    let _turn = BROWSER_RUNS.acquire().await.expect("semaphore");
    let target = HostileTarget::start(Attack::MemoryHog).await;
    // Every journey meets the hog, one after the other: each is ended at
    // the bound, and the browser serves the next.
    let run = run_against(
        &target.base,
        &format!("{BROWSER}\nbrowser = {{ memory_mb = 700 }}"),
        "@issuer",
        &["--timeout", "30", "--concurrency", "1"],
        &[],
    )
    .await;
    assert_eq!(run.output.code, Some(2), "{}", run.said());
    let results = run.output.results();
    let scenarios = results["scenarios"].as_array().expect("scenarios");
    assert!(scenarios.len() > 1, "{}", run.said());
    for scenario in scenarios {
        let message = scenario["message"].as_str().unwrap_or_default();
        assert!(
            scenario["outcome"] == "error"
                && message.contains("over its bound of 700 MiB")
                && message.contains("acs.browser.memory_mb"),
            "{scenario}\n{}",
            run.said()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_browser_leaves_no_process_and_no_folder_behind() {
    if !browser_or_skip("a_stalled_browser_leaves_no_process_and_no_folder_behind") {
        return;
    }
    let _turn = BROWSER_RUNS.acquire().await.expect("semaphore");
    let target = HostileTarget::start(Attack::Stall).await;
    let temp = std::env::temp_dir().join(format!("payconf-stall-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&temp).expect("folder");
    let temp_text = temp.display().to_string();
    let run = run_against(
        &target.base,
        BROWSER,
        "@req:TDS-04",
        &[],
        &[("TMPDIR", &temp_text)],
    )
    .await;
    assert_eq!(run.output.code, Some(2), "{}", run.said());
    assert!(
        run.message("error").contains("stopped answering")
            || run.message("error").contains("no answer"),
        "{}",
        run.said()
    );
    let left: Vec<PathBuf> = std::fs::read_dir(&temp)
        .expect("folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.display().to_string().contains("payconf-chromium"))
        .collect();
    assert!(left.is_empty(), "the browser's folder was left: {left:?}");
    assert_eq!(processes_naming(&temp), Vec::<String>::new());
    let _ = std::fs::remove_dir_all(&temp);
}

/// The command lines of live processes that name `path`.
fn processes_naming(path: &Path) -> Vec<String> {
    let needle = path.display().to_string();
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let state = stat
                .rsplit(')')
                .next()?
                .split_whitespace()
                .next()?
                .to_owned();
            if state == "Z" {
                return None;
            }
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            cmdline.contains(&needle).then_some(cmdline)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_in_the_base_url_are_masked_everywhere() {
    let server = RunningServer::start(payconf_reference::ReferenceConfig::default())
        .await
        .expect("reference starts");
    let mut base = server.base_url.clone();
    base.set_username("planted-user").expect("user");
    base.set_password(Some("planted-pass-9x"))
        .expect("password");
    let run = run_against(&base, FORM, "@req:CREATE-01", &[], &[]).await;
    assert!(run.output.results.is_some(), "{}", run.said());
    for secret in ["planted-user", "planted-pass-9x"] {
        assert_eq!(
            run.holding(secret),
            Vec::<&str>::new(),
            "{secret}\n{}",
            run.said()
        );
    }
    assert!(
        run.output
            .stdout
            .contains("target: http://***:***@127.0.0.1"),
        "{}",
        run.said()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn screenshots_blank_every_frame_or_are_left_out_with_the_reason() {
    if !browser_or_skip("screenshots_blank_every_frame_or_are_left_out_with_the_reason") {
        return;
    }
    let _turn = BROWSER_RUNS.acquire().await.expect("semaphore");
    use payconf::runner::issuer::browser::blank_out;
    const CODE: &str = "4321";
    let inner = format!("<input id=code value={CODE}><p id=said>typed {CODE}</p>");
    let other = support::hostile::serve_pages(vec![("/inner", inner.clone())]).await;
    let framed = support::hostile::serve_pages(vec![
        (
            "/",
            format!(
                "<p id=top>code {CODE}</p><iframe id=same src=/inner></iframe>\
                 <iframe id=doc srcdoc='<input id=code value={CODE}>'></iframe>"
            ),
        ),
        ("/inner", inner),
        (
            "/other",
            format!("<p>code {CODE}</p><iframe src={other}inner></iframe>"),
        ),
    ])
    .await;
    let chromium = start_chromium().await;
    let turn = chromium
        .turn(chromium.reserve().await)
        .await
        .expect("a turn");
    let secrets = vec![(CODE.to_owned(), "***".to_owned())];
    // What a script reads of the page, once it can (`""` until then).
    let read = |script: &str| {
        let client = turn.client.clone();
        let script = format!("try {{ {script} }} catch (e) {{ return ''; }}");
        async move {
            client
                .execute(&script, Vec::new())
                .await
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default()
        }
    };
    let settled = |script: &'static str| async move {
        for _ in 0..200 {
            let seen = read(script).await;
            if !seen.is_empty() {
                return seen;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("the page never showed {script}");
    };

    // Same-origin frames, one loaded and one written inline: blanked too.
    turn.client.goto(framed.as_str()).await.expect("page opens");
    const FRAMES: &str = "const s = document.getElementById('same').contentDocument; \
        const d = document.getElementById('doc').contentDocument; \
        return [document.getElementById('top').textContent, \
                s.getElementById('code').value, s.getElementById('said').textContent, \
                d.getElementById('code').value].join('|');";
    assert_eq!(
        settled(FRAMES).await,
        format!("code {CODE}|{CODE}|typed {CODE}|{CODE}")
    );
    blank_out(&turn, &secrets)
        .await
        .expect("every frame is reached");
    assert_eq!(read(FRAMES).await, "code ***|***|typed ***|***");

    // A frame of another origin cannot be reached: no screenshot, and why.
    let other_page = framed.join("other").expect("url");
    turn.client
        .goto(other_page.as_str())
        .await
        .expect("page opens");
    settled(
        "const f = document.querySelector('iframe'); \
         return f && f.contentDocument === null ? 'loaded' : '';",
    )
    .await;
    let refused = blank_out(&turn, &secrets)
        .await
        .expect_err("a frame is out of reach");
    assert!(
        refused.contains("frame payconf cannot reach") && refused.contains(other.as_str()),
        "{refused}"
    );
    drop(turn);
    chromium.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_that_cannot_have_its_sandbox_runs_without_and_the_run_says_so() {
    if !browser_or_skip("a_browser_that_cannot_have_its_sandbox_runs_without_and_the_run_says_so") {
        return;
    }
    let _turn = BROWSER_RUNS.acquire().await.expect("semaphore");
    use std::os::unix::fs::PermissionsExt;
    // A machine whose kernel refuses user namespaces: `unshare` says so.
    let bin = std::env::temp_dir().join(format!("payconf-no-userns-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&bin).expect("folder");
    let unshare = bin.join("unshare");
    std::fs::write(
        &unshare,
        "#!/bin/sh\necho 'unshare: unshare failed: Operation not permitted' >&2\nexit 1\n",
    )
    .expect("script");
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).expect("mode");
    std::fs::set_permissions(&unshare, std::fs::Permissions::from_mode(0o755)).expect("mode");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let server = RunningServer::start(payconf_reference::ReferenceConfig::default())
        .await
        .expect("reference starts");
    let run = run_against(
        &server.base_url,
        BROWSER,
        "@req:TDS-04",
        &[],
        &[("PATH", &path)],
    )
    .await;
    let _ = std::fs::remove_dir_all(&bin);
    assert_eq!(run.output.code, Some(0), "{}", run.said());
    let line = run
        .output
        .stdout
        .lines()
        .find(|line| line.starts_with("browser: "))
        .unwrap_or_default()
        .to_owned();
    assert!(line.contains("WITHOUT its sandbox: "), "{line}");
    assert!(
        line.contains("user namespaces, which Chromium's sandbox needs, are not available")
            && line.contains("Operation not permitted"),
        "{line}"
    );
}
