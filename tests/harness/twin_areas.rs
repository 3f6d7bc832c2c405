//! The areas where the twin follows the reference profile beside the
//! notifications: what clients of the real service send (`@real-client`),
//! the payment's life after submit (`@lifecycle`), and the 3-D Secure
//! outcomes (`@outcome`). The conformant twin,
//! in its own ways, passes every scenario of each; the defect catalogue
//! (`defect_catalogue.rs`) proves that each defect of these areas fails
//! exactly its requirement.

use crate::{
    defect_catalogue::run_against,
    support::{
        runner::scenarios_where,
        twin::{LIFECYCLE, OUTCOME, REAL_CLIENT, TwinService, Variation},
    },
};

/// What clients of the real service send (no `buyer`, `DCC` as a string,
/// an amount without two decimals) the twin takes, as the real service
/// does: the reference scenarios of that area pass, and each of its three
/// defects fails exactly its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_conformant_twin_takes_what_clients_of_the_real_service_send() {
    let twin = TwinService::start(None).await;
    let output = run_against(twin, "form", Some(REAL_CLIENT)).await;
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    let expected = scenarios_where(|s| s.tags.iter().any(|t| format!("@{t}") == REAL_CLIENT));
    assert!(expected.len() >= 3, "{expected:?}");
    assert_eq!(output.passed(), expected, "{}", output.stdout);
}

/// The twin's payment life after submit, in its own ways (events flat,
/// refusals as envelope codes, its shop settling at once), passes every
/// lifecycle scenario of the operations it offers (card tokens, which it
/// has not, are skipped, saying so), and so it does with events wrapped and
/// with its settlement two seconds late.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: every lifecycle way of the twin"]
async fn the_conformant_twin_passes_the_lifecycle_in_each_of_its_ways() {
    let expected = scenarios_where(|s| {
        s.tags.iter().any(|t| format!("@{t}") == LIFECYCLE) && !s.has_tag("tokens")
    });
    assert!(expected.len() >= 9, "{expected:?}");
    let plain = TwinService::start(None).await;
    let mut runs = vec![(
        "plain".to_owned(),
        run_against(plain, "form", Some(LIFECYCLE)).await,
    )];
    for variation in Variation::LIFECYCLE {
        let twin = TwinService::start_varied(variation).await;
        runs.push((
            format!("{variation:?}"),
            run_against(twin, "form", Some(LIFECYCLE)).await,
        ));
    }
    for (way, output) in runs {
        assert_eq!(
            output.code,
            Some(0),
            "{way}:\n{}\n{}",
            output.stdout,
            output.stderr
        );
        assert_eq!(output.passed(), expected, "{way}:\n{}", output.stdout);
    }
}

/// The twin's 3-D Secure outcomes, in its own ways (its own cards, a
/// declined payment's detail saying `DECLINED`, `threeDS` with
/// `AuthenticationResult` capitalised as the real service's prose writes
/// it), pass every outcome scenario: the readings that take either word
/// hold against a server that writes the other one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_conformant_twin_names_the_3d_secure_outcomes_its_own_way() {
    let expected = scenarios_where(|s| s.tags.iter().any(|t| format!("@{t}") == OUTCOME));
    assert_eq!(expected.len(), 9, "{expected:?}");
    let twin = TwinService::start(None).await;
    let output = run_against(twin, "form", Some(OUTCOME)).await;
    assert_eq!(output.code, Some(0), "{}\n{}", output.stdout, output.stderr);
    assert_eq!(output.passed(), expected, "{}", output.stdout);
    // A twin whose road to 8027 is a wrong code, declared, passes them all too.
    for variation in Variation::OUTCOME {
        varied_twin_passes(variation, OUTCOME, &expected).await;
    }
}

/// The twin in `variation` passes every scenario `tags` select: `expected`.
async fn varied_twin_passes(
    variation: Variation,
    tags: &str,
    expected: &std::collections::BTreeSet<String>,
) {
    let twin = TwinService::start_varied(variation).await;
    let output = run_against(twin, "form", Some(tags)).await;
    assert_eq!(
        output.code,
        Some(0),
        "{variation:?}:\n{}\n{}",
        output.stdout,
        output.stderr
    );
    assert_eq!(
        &output.passed(),
        expected,
        "{variation:?}:\n{}",
        output.stdout
    );
}

/// The twin keeping its tokens as the real service does, valid until the
/// payment is authorised: a token waiting for issuer authentication,
/// submitted again, is answered `8006` again (the same authentication); a
/// declined press on the page leaves the token to a press that pays. The
/// robustness profile passes both: ROB-02 judges what a second submit
/// makes, ROB-05 what the service records, never a second `8006` or two
/// landings.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: a robustness run"]
async fn a_twin_keeping_tokens_valid_until_authorised_passes_the_robustness_profile() {
    let expected = scenarios_where(|s| s.profile == Some(payconf_spec::Profile::Robustness));
    for variation in [Variation::ResubmitWhileWaiting, Variation::DeclineThenPay] {
        varied_twin_passes(variation, "@robustness", &expected).await;
    }
}

/// An issuer page with no control to cancel: the scenario whose buyer
/// cancels (REF-OUT-07, 1143 abandoned) is not judged, its reason naming
/// the control payconf looked for, never passed by the empty passcode's
/// road to the failure page; every other outcome scenario passes. Both
/// drivers say so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: the browser on a page without cancel"]
async fn a_buyer_who_cancels_is_not_judged_where_the_issuer_page_cannot_cancel() {
    let cancelling = scenarios_where(|s| s.checks("REF-OUT-07"));
    assert_eq!(cancelling.len(), 1, "{cancelling:?}");
    let outcomes = scenarios_where(|s| s.tags.iter().any(|t| format!("@{t}") == OUTCOME));
    let mut drivers = vec!["form"];
    if crate::support::runner::browser_or_skip(
        "a_buyer_who_cancels_is_not_judged_where_the_issuer_page_cannot_cancel",
    ) {
        drivers.push("browser");
    }
    for driver in drivers {
        let twin = TwinService::start_varied(Variation::NoCancelControl).await;
        let output = run_against(twin, driver, Some(OUTCOME)).await;
        assert_eq!(
            output.code,
            Some(0),
            "{driver}:\n{}\n{}",
            output.stdout,
            output.stderr
        );
        assert_eq!(output.skipped(), cancelling, "{driver}:\n{}", output.stdout);
        assert_eq!(
            output.passed(),
            outcomes.difference(&cancelling).cloned().collect(),
            "{driver}:\n{}",
            output.stdout
        );
        let location = cancelling.first().expect("one scenario");
        let reason = output
            .scenarios()
            .iter()
            .find(|s| &s.location == location)
            .and_then(|s| s.reason.clone())
            .unwrap_or_default();
        assert!(
            reason.starts_with("not judged: the issuer page at ")
                && reason.contains("offers no control that cancels"),
            "{driver}: {reason}"
        );
    }
}
