//! payconf's browser pointed at a server it does not control: an issuer
//! page that tries to drive ChromeDriver, keeps windows open, eats memory or
//! hangs; frames a screenshot cannot blank; a machine with no sandbox. Each
//! test carries one attack of the hostile target ([`crate::support::hostile`]).
//! Every listener is on loopback.

use payconf::runner::record::OutcomeKind;
use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use crate::support::{
    hostile::{Attack, HostileTarget},
    runner::start_chromium,
    untrusted::{BROWSER, run_against},
};
use payconf_reference::RunningServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: browser attacks"]
async fn an_issuer_page_can_neither_drive_chromedriver_nor_keep_windows_open() {
    if !crate::support::runner::browser_or_skip(
        "an_issuer_page_can_neither_drive_chromedriver_nor_keep_windows_open",
    ) {
        return;
    }
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
    if !crate::support::runner::browser_or_skip(
        "another_local_process_finds_the_port_but_cannot_drive_the_browser",
    ) {
        return;
    }
    let chromium = start_chromium().await;
    let port = chromium.driver_port();
    let profile = chromium.profile().to_path_buf();
    let client = payconf_reference::http_client()
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
#[ignore = "full tier: a page filling the memory bound"]
async fn a_page_over_the_memory_bound_ends_its_journey_as_an_error() {
    if !crate::support::runner::browser_or_skip(
        "a_page_over_the_memory_bound_ends_its_journey_as_an_error",
    ) {
        return;
    }
    let target = HostileTarget::start(Attack::MemoryHog).await;
    // Every journey meets the hog, one after the other: each is ended at
    // the bound, and the browser serves the next.
    let run = run_against(
        &target.base,
        &format!("{BROWSER}\nbrowser = {{ memory_mb = 700 }}"),
        // The hostile target declares no payment page, nor notifications,
        // nor the operations after submit.
        "@issuer and not @payment-page and not @notification and not @lifecycle",
        &["--timeout", "30", "--concurrency", "1"],
        &[],
    )
    .await;
    assert_eq!(run.output.code, Some(2), "{}", run.said());
    let results = run.output.results();
    let scenarios = &results.scenarios;
    assert!(scenarios.len() > 1, "{}", run.said());
    for scenario in scenarios {
        let message = scenario.message.as_deref().unwrap_or_default();
        assert!(
            scenario.outcome == OutcomeKind::Error
                && message.contains("over its bound of 700 MiB")
                && message.contains("acs.browser.memory_mb"),
            "{scenario:?}\n{}",
            run.said()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: a stalled browser waited out"]
async fn a_stalled_browser_leaves_no_process_and_no_folder_behind() {
    if !crate::support::runner::browser_or_skip(
        "a_stalled_browser_leaves_no_process_and_no_folder_behind",
    ) {
        return;
    }
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
        run.message(OutcomeKind::Error)
            .contains("stopped answering")
            || run.message(OutcomeKind::Error).contains("no answer"),
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
async fn screenshots_blank_every_frame_or_are_left_out_with_the_reason() {
    if !crate::support::runner::browser_or_skip(
        "screenshots_blank_every_frame_or_are_left_out_with_the_reason",
    ) {
        return;
    }
    use payconf::runner::{NoScreenshot, blank_out};
    const CODE: &str = "4321";
    let inner = format!("<input id=code value={CODE}><p id=said>typed {CODE}</p>");
    let other =
        crate::support::hostile::loopback::serve_pages(vec![("/inner", inner.clone())]).await;
    let framed = crate::support::hostile::loopback::serve_pages(vec![
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
    let turn = crate::support::untrusted::turn(&chromium).await;
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
        matches!(&refused, NoScreenshot::Unreachable(frames) if frames.contains(other.as_str())),
        "{refused}"
    );
    assert!(
        refused.to_string().contains("frame payconf cannot reach"),
        "{refused}"
    );
    drop(turn);
    chromium.close().await;
}

/// The width and height a PNG's header gives.
fn png_size(png: &[u8]) -> (u32, u32) {
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG image");
    let word = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().expect("four bytes"));
    (word(16), word(20))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_screenshot_is_the_whole_page_up_to_four_windows_of_it() {
    if !crate::support::runner::browser_or_skip(
        "a_screenshot_is_the_whole_page_up_to_four_windows_of_it",
    ) {
        return;
    }
    use payconf::runner::capture;
    let pages = crate::support::hostile::loopback::serve_pages(vec![
        ("/short", "<p>paid</p>".to_owned()),
        (
            "/tall",
            "<div style='height:3000px;background:#eee'>paid</div>".to_owned(),
        ),
        // A page a hundred windows long, and one too wide: a picture of
        // it whole would be hundreds of MiB.
        (
            "/endless",
            "<div style='height:102400px;background:repeating-linear-gradient(#000,#fff 7px)'>\
             paid</div>"
                .to_owned(),
        ),
        (
            "/wide",
            "<div style='width:40000px;height:200px'>paid</div>".to_owned(),
        ),
    ])
    .await;
    let chromium = start_chromium().await;
    let turn = crate::support::untrusted::turn(&chromium).await;
    let mut sizes = Vec::new();
    for page in ["short", "tall", "endless", "wide"] {
        let url = pages.join(page).expect("url");
        turn.client.goto(url.as_str()).await.expect("page opens");
        // Loaded, and the viewport's size (the whole browser's window
        // holds less of it than the headless shell's).
        let mut viewport = None;
        for _ in 0..200 {
            let seen = turn
                .client
                .execute(
                    "return document.readyState === 'complete' && document.body \
                     ? [innerWidth, innerHeight] : null;",
                    Vec::new(),
                )
                .await
                .ok()
                .and_then(|v| serde_json::from_value::<(u32, u32)>(v).ok());
            if seen.is_some() {
                viewport = seen;
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        let viewport = viewport.expect("the page loads");
        let png = capture(&turn).await.expect("a screenshot");
        sizes.push((page, viewport, png_size(&png)));
    }
    drop(turn);
    chromium.close().await;
    for (page, (width, height), shot) in sizes {
        let (shot_width, shot_height) = shot;
        // A scroll bar, where the page is taller than the window, takes
        // a little of the width.
        let fits = |w: u32| w <= width && w + 20 >= width;
        let ok = match page {
            "short" => shot == (width, height),
            "tall" => fits(shot_width) && shot_height == 3016,
            "endless" => fits(shot_width) && shot_height == 4096,
            _ => shot_width == 1280 && shot_height <= height,
        };
        assert!(
            ok,
            "{page}: a picture of {shot_width}x{shot_height} in a viewport of {width}x{height}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_that_cannot_have_its_sandbox_runs_without_and_the_run_says_so() {
    if !crate::support::runner::browser_or_skip(
        "a_browser_that_cannot_have_its_sandbox_runs_without_and_the_run_says_so",
    ) {
        return;
    }
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
