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
/// lifecycle scenario, and so it does with events wrapped and with its
/// settlement two seconds late.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_conformant_twin_passes_the_lifecycle_in_each_of_its_ways() {
    let expected = scenarios_where(|s| s.tags.iter().any(|t| format!("@{t}") == LIFECYCLE));
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
}
