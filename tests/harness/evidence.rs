//! A verdict earned by evidence: a scenario FAILs only on evidence that the
//! target is at fault, and is an ERROR that names the setting when payconf
//! cannot tell. Each test drives the reference implementation behind a front
//! that builds its issuer journey another way ([`Quirk`]), with each driver:
//! the conforming ways pass, the faults fail, the mistakes of the target
//! file stop the run or err, naming the setting.

use crate::support::{
    journeys::{JourneyFront, Quirk},
    runner::browser_or_skip,
    untrusted::{Artifacts, BROWSER, FORM, run_against},
};

/// The scenario of a buyer who authenticates at the issuer.
const TDS04: &str = "@core and @req:TDS-04";

async fn run(quirk: Quirk, acs: &str, more: &[&str]) -> Artifacts {
    let front = JourneyFront::start(quirk).await;
    run_against(&front.base, acs, TDS04, more, &[]).await
}

/// The drivers a test runs with: the form driver always, the browser
/// driver where Chromium is installed (always in CI).
fn drivers(test: &str) -> Vec<&'static str> {
    let mut drivers = vec![FORM];
    if browser_or_skip(test) {
        drivers.push(BROWSER);
    }
    drivers
}

async fn assert_passes(quirk: Quirk, test: &str) {
    for acs in drivers(test) {
        let run = run(quirk, acs, &[]).await;
        assert_eq!(
            run.output.code,
            Some(0),
            "{quirk:?} with {acs}\n{}",
            run.said()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: waits out a page"]
async fn a_page_that_waits_before_sending_the_buyer_on_is_not_taken_for_the_landing() {
    let test = "a_page_that_waits_before_sending_the_buyer_on_is_not_taken_for_the_landing";
    assert_passes(
        Quirk::WaitPage {
            seconds: 2,
            script: false,
        },
        test,
    )
    .await;
    let script = Quirk::WaitPage {
        seconds: 2,
        script: true,
    };
    if browser_or_skip(test) {
        let run = run(script, BROWSER, &[]).await;
        assert_eq!(run.output.code, Some(0), "{}", run.said());
    }
    // Without a browser, a page whose script may send the buyer on is not judged.
    let run = run(script, FORM, &[]).await;
    assert_eq!(run.output.code, Some(2), "{}", run.said());
    assert!(run.output.says("driver = \"browser\""), "{}", run.said());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn controls_that_resend_the_code_or_return_to_the_shop_are_never_pressed_to_confirm() {
    let test = "controls_that_resend_the_code_or_return_to_the_shop_are_never_pressed_to_confirm";
    assert_passes(Quirk::ResendFirst, test).await;
    assert_passes(Quirk::ShopFirst, test).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: waits out a journey's bound"]
async fn a_slow_bank_is_given_the_journeys_bound_and_a_journey_past_it_fails() {
    let test = "a_slow_bank_is_given_the_journeys_bound_and_a_journey_past_it_fails";
    // Six pages of two seconds: past the browser's old clock of ten.
    assert_passes(Quirk::SlowPages(6), test).await;
    // A slow answer to the code: the form shows until it comes.
    assert_passes(Quirk::SlowAnswer, test).await;
    for acs in drivers(test) {
        let bounded = format!("{acs}\njourney_timeout = 3");
        let run = run(Quirk::SlowPages(6), &bounded, &[]).await;
        assert_eq!(run.output.code, Some(1), "{acs}\n{}", run.said());
        assert!(
            run.output.says("acs.journey_timeout, 3 s"),
            "{acs}\n{}",
            run.said()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_issuer_page_answering_an_http_error_fails_the_target_and_shows_that_page() {
    let test = "an_issuer_page_answering_an_http_error_fails_the_target_and_shows_that_page";
    for acs in drivers(test) {
        let run = run(Quirk::SessionLost, acs, &[]).await;
        assert_eq!(run.output.code, Some(1), "{acs}\n{}", run.said());
        let said = run.output.messages();
        assert!(said.contains("HTTP 403 from"), "{acs}\n{}", run.said());
        // The evidence is the page, not the submit before it.
        assert!(said.contains("response: 403"), "{acs}\n{}", run.said());
        assert!(!said.contains("payment/submit"), "{acs}\n{}", run.said());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_issuer_page_asking_again_for_the_typed_code_is_an_error_naming_the_setting() {
    let test = "an_issuer_page_asking_again_for_the_typed_code_is_an_error_naming_the_setting";
    for acs in drivers(test) {
        let run = run(Quirk::AsksAgain, acs, &[]).await;
        assert_eq!(run.output.code, Some(2), "{acs}\n{}", run.said());
        assert!(
            run.output.says("acs.fields.otp") && run.output.says("was not accepted"),
            "{acs}\n{}",
            run.said()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_file_that_does_not_say_what_the_buyer_types_stops_the_run() {
    let run = run(Quirk::ResendFirst, "driver = \"form\"", &[]).await;
    assert_eq!(run.output.code, Some(2), "{}", run.said());
    assert!(
        run.output.results.is_none(),
        "nothing was judged: {}",
        run.said()
    );
    assert!(run.output.stderr.contains("[acs] fields"), "{}", run.said());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_api_key_stops_the_run_naming_the_setting_and_quoting_the_answer() {
    let run = run(
        Quirk::ResendFirst,
        FORM,
        &["--api-key", "not-the-merchants-key"],
    )
    .await;
    assert_eq!(run.output.code, Some(2), "{}", run.said());
    let said = &run.output.stderr;
    assert!(
        said.contains("refused the configured credentials"),
        "{}",
        run.said()
    );
    assert!(said.contains("api_key"), "{}", run.said());
    assert!(said.contains("response: 403"), "{}", run.said());
    assert!(
        !said.contains("not-the-merchants-key"),
        "the key is masked: {}",
        run.said()
    );
}
