//! The generated documentation as people use it: in Chromium from
//! `file://`, the page being read is marked in the navigation, its contents
//! are in the first screen and lead to their sections, each API operation
//! shows its `curl` and Python samples, and the search finds pages offline;
//! and the samples, run as written, are answered by the sandbox.

use payconf::docs::{Format, Site};

use crate::support::runner::Folder;

#[tokio::test(flavor = "multi_thread")]
async fn the_docs_mark_the_page_list_its_contents_and_search_offline() {
    let test = "the_docs_mark_the_page_list_its_contents_and_search_offline";
    if !crate::support::runner::browser_or_skip(test) {
        return;
    }
    let folder = Folder::new("docs-browser");
    let site = Site::build(
        &payconf_spec::contract::Contract::embedded().expect("the spec"),
        &payconf_spec::features::Features::embedded().expect("features"),
        &payconf_spec::requirements::Requirements::embedded().expect("requirements"),
        &payconf::docs::workflows::Workflows::embedded().expect("workflows"),
    )
    .expect("the site builds");
    site.write(&folder.0, Format::Html).expect("written");
    let chromium = crate::support::runner::start_chromium().await;
    let turn = crate::support::untrusted::turn(&chromium).await;
    let client = turn.client;
    let page = folder.join("operations/createPayment.html");
    client
        .goto(&format!("file://{}", page.display()))
        .await
        .expect("the page loads from file://");
    let run = |script: &'static str| async move {
        client
            .execute(script, Vec::new())
            .await
            .expect("the page answers")
    };

    let current = run(
        "return [...document.querySelectorAll('nav a[aria-current=page]')].map(a => a.textContent)",
    )
    .await;
    assert_eq!(current, serde_json::json!(["Start a payment process"]));

    let contents = run(
        "return [...document.querySelectorAll('nav ol.contents a')].map(a => \
         ({text: a.textContent, bottom: a.getBoundingClientRect().bottom}))",
    )
    .await;
    let contents = contents.as_array().expect("contents").clone();
    let height = run("return window.innerHeight")
        .await
        .as_f64()
        .expect("a height");
    let texts: Vec<&str> = contents.iter().filter_map(|c| c["text"].as_str()).collect();
    for wanted in [
        "Try it",
        "Request body",
        "Responses",
        "Error answers",
        "Behaviour",
    ] {
        assert!(
            texts.contains(&wanted),
            "{wanted} not in the contents: {texts:?}"
        );
    }
    assert!(
        contents
            .iter()
            .all(|c| c["bottom"].as_f64().is_some_and(|b| b < height)),
        "the contents in the first screen ({height} px): {contents:?}"
    );
    let jumped = run(
        "const a = [...document.querySelectorAll('nav ol.contents a')] \
         .find(a => a.textContent === 'Responses'); a.click(); \
         return document.getElementById('responses').getBoundingClientRect().top",
    )
    .await;
    assert!(
        jumped
            .as_f64()
            .is_some_and(|top| (-1.0..2.0).contains(&top)),
        "the section at the top: {jumped}"
    );

    let samples = run(
        "return [...document.querySelectorAll('pre code')].map(c => c.className + ' ' + \
         c.textContent.split('\\n')[0])",
    )
    .await;
    let samples: Vec<&str> = samples
        .as_array()
        .expect("code")
        .iter()
        .filter_map(|s| s.as_str())
        .collect();
    assert!(
        samples.contains(&"language-sh curl -sS -X POST \"$BASE_URL/api/v1/payment/create/\" \\"),
        "{samples:?}"
    );
    assert!(
        samples.contains(&"language-python import os"),
        "{samples:?}"
    );

    let search = |words: &'static str| async move {
        client
            .execute(
                "const input = document.getElementById('search'); input.value = arguments[0]; \
                 input.dispatchEvent(new Event('input')); \
                 const list = document.getElementById('search-results'); \
                 return {shown: !list.hidden, results: [...list.querySelectorAll('li')].map(li => \
                 ({text: li.textContent, href: li.querySelector('a') && li.querySelector('a').getAttribute('href')}))}",
                vec![serde_json::json!(words)],
            )
            .await
            .expect("the search answers")
    };
    let found = search("refund").await;
    assert_eq!(found["shown"], true, "{found}");
    let first = found["results"][0]["href"].as_str().unwrap_or_default();
    assert!(
        first.starts_with("../operations/refundPayment.html"),
        "{found}"
    );
    let found = search("8006 issuer").await;
    assert!(
        found["results"]
            .as_array()
            .is_some_and(|r| r.iter().any(|r| r["href"]
                .as_str()
                .is_some_and(|h| h.contains("submitPayment")))),
        "{found}"
    );
    let found = search("zzzqqqxx").await;
    assert_eq!(found["results"][0]["text"], "Nothing matches.", "{found}");
    // A result opens its page, from file:// as from anywhere.
    run(
        "const input = document.getElementById('search'); input.value = 'refund'; \
         input.dispatchEvent(new Event('input')); \
         document.querySelector('#search-results a').click(); return true",
    )
    .await;
    let opened = client.current_url().await.expect("a URL");
    assert!(
        opened.path().ends_with("/operations/refundPayment.html"),
        "{opened}"
    );
    drop(turn);
    chromium.close().await;
}

/// Every `curl` sample of the checked-in docs, run as written against the
/// sandbox with a payment of its own, is answered with error code 0 (the
/// Python samples run in `.ci/check-clients`, beside the generated client).
#[tokio::test(flavor = "multi_thread")]
async fn every_curl_sample_of_the_docs_is_answered_with_error_code_0() {
    let server =
        payconf_reference::RunningServer::start(payconf_reference::ReferenceConfig::default())
            .await
            .expect("a sandbox");
    let output = tokio::process::Command::new("python3")
        .args([
            ".ci/check-doc-samples.py",
            server.base_url.as_str(),
            "docs/reference/operations",
            "--curl-only",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .await
        .expect("python3 runs");
    let _ = server.shutdown().await;
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        said.contains("21 of 21 answered with error code 0"),
        "{said}"
    );
}
