//! The `@notification` scenarios against servers written apart: the
//! conformant twin, which follows the reference profile's notifications,
//! passes them, and so does its variation that delivers late and twice; a
//! target that cannot reach payconf is an error of the run naming
//! `notifications.url`, never a failure; a run without `[notifications]`
//! sets the scenarios aside, saying why. (Each defect of the area is in
//! `spec/defects.yaml`, judged by `defect_catalogue.rs`.)

use payconf::runner::record::OutcomeKind;
use std::collections::BTreeSet;

use crate::support::{
    runner::{
        RunOutput, TempFile, assert_one_error_saying, assert_stopped, payconf_run_async,
        scenarios_where,
    },
    twin::{TwinService, Variation},
};

fn notification_scenarios() -> BTreeSet<String> {
    scenarios_where(|s| s.has_tag("notification"))
}

/// `payconf run --tags @notification` with this target file (the twin it
/// describes serving meanwhile).
async fn run(target: &str) -> RunOutput {
    let file = TempFile::new("notifying-twin.toml", target);
    payconf_run_async(vec![
        "--target".to_owned(),
        file.0.display().to_string(),
        "--tags".to_owned(),
        "@notification".to_owned(),
    ])
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_twin_passes_every_notification_scenario_and_so_does_its_late_variation() {
    let conformant = TwinService::start(None).await;
    let late = TwinService::start_varied(Variation::LateNotifications).await;
    let (conformant, late) = (conformant.target_toml(), late.target_toml());
    let (on_time, delayed) = tokio::join!(run(&conformant), run(&late));
    for (what, output) in [("conformant", &on_time), ("late and twice", &delayed)] {
        output.assert_exit(0, what);
        assert_eq!(
            output.passed(),
            notification_scenarios(),
            "{what}: {}",
            output.stdout
        );
    }
    // The late twin's retry came after the reference's 2 s, and was waited for.
    assert!(
        delayed
            .stdout
            .contains("the refused notification was posted again 3."),
        "{}",
        delayed.stdout
    );
}

/// A target posting to an address where payconf is not: nothing reaches
/// the listener in the whole run, so no scenario can say the target sends
/// nothing. Each is an error naming the setting, and the run exits 2.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_that_cannot_reach_payconf_is_an_error_naming_the_url_not_a_failure() {
    let twin = TwinService::start(None).await;
    // A port that was free a moment ago, and closed now.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port");
    let target = twin.target_toml().replace(
        "[notifications]\n",
        &format!("[notifications]\nlisten = \"127.0.0.1:0\"\nurl = \"http://{closed}/\"\n"),
    );
    // listen port 0 with a url is refused (the url could not name the
    // port), so payconf listens on a port of its own choosing.
    let own = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port");
    let target = target.replace("listen = \"127.0.0.1:0\"", &format!("listen = \"{own}\""));
    let output = run(&target).await;
    assert_eq!(output.code, Some(2), "{}\n{}", output.stdout, output.stderr);
    assert!(output.failed().is_empty(), "{}", output.stdout);
    // The scenarios that wait for a notification are errors; the others
    // stop at their first wait too.
    assert_eq!(
        output.errors(),
        notification_scenarios(),
        "{}",
        output.stdout
    );
    assert!(output.says("notifications.url"), "{}", output.messages());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_notifications_section_the_scenarios_are_set_aside_saying_why() {
    let twin = TwinService::start(None).await;
    let target = twin.target_toml();
    let cut = target.find("[notifications]").expect("the section");
    let output = run(&target[..cut]).await;
    let skipped = output.scenarios_with_outcome(OutcomeKind::Skipped);
    assert_eq!(skipped, notification_scenarios(), "{}", output.stdout);
    assert!(
        output.stdout.contains("declares no [notifications]"),
        "{}",
        output.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_signature_scenario_needs_the_secret_and_a_wrong_one_is_an_error_not_a_failure() {
    let twin = TwinService::start(None).await;
    let target = twin.target_toml();
    let secret = format!(
        "signing_secret = \"{}\"\n",
        crate::support::twin::SIGNING_SECRET
    );
    let without = target.replace(&secret, "");
    let output = run(&without).await;
    let skipped = output.scenarios_with_outcome(OutcomeKind::Skipped);
    assert_eq!(skipped.len(), 1, "{}", output.stdout);
    assert!(
        output
            .stdout
            .contains("names no notifications.signing_secret"),
        "{}",
        output.stdout
    );

    let wrong = target.replace(&secret, "signing_secret = \"not-the-shops-secret\"\n");
    let output = run(&wrong).await;
    assert_one_error_saying(&output, "notifications.signing_secret");
    assert!(
        !output.stdout.contains("not-the-shops-secret"),
        "the secret given is a secret:\n{}",
        output.stdout
    );
}

/// A listening address already taken stops the run before any scenario,
/// naming the setting; nothing is judged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listening_address_already_taken_stops_the_run_naming_it() {
    let twin = TwinService::start(None).await;
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let address = taken.local_addr().expect("its address");
    let target = twin.target_toml().replace(
        "[notifications]\n",
        &format!("[notifications]\nlisten = \"{address}\"\n"),
    );
    let output = run(&target).await;
    assert_stopped(
        &output,
        &[
            "notifications.listen",
            &format!("cannot listen on {address}"),
        ],
    );
}
