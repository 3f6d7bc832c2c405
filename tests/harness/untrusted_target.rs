//! payconf pointed at a server it does not control, through the API and the
//! form driver: the hostile target ([`crate::support::hostile`]) carries one attack
//! per test, and each test proves the guarantee that attack tries to break.
//! The browser's attacks are in `untrusted_browser.rs`. Every listener is on
//! loopback.

use crate::support::{
    hostile::{Attack, HostileTarget, PLANTED_CREDENTIAL, attacks::grouped},
    untrusted::{CVV, FORM, run_against},
};
use base64::Engine as _;
use payconf::runner::record::OutcomeKind;
use payconf_reference::{DEFAULT_API_KEY, RunningServer};

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
    let message = run.message(OutcomeKind::Error);
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
async fn credentials_in_the_base_url_are_masked_everywhere() {
    let server = RunningServer::start(payconf_reference::ReferenceConfig::default())
        .await
        .expect("reference starts");
    let mut base = server.base_url.clone();
    base.set_username("planted-user").expect("user");
    base.set_password(Some("planted-pass-9x"))
        .expect("password");
    let run = run_against(&base, FORM, "@req:CREATE-01", &[], &[]).await;
    // The credentials go with every request as Basic authentication, which
    // the target takes for the merchant's key and refuses: the run stops
    // before any scenario, saying so, and what it says is masked too.
    assert_eq!(run.output.code, Some(2), "{}", run.said());
    assert!(
        run.output
            .stderr
            .contains("the target refused the configured credentials"),
        "{}",
        run.said()
    );
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
