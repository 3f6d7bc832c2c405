//! The target's other addresses, checked before any scenario: the
//! merchant's pages and the payment page a run sends its buyer to, each
//! on an origin that answers. A page on a host that is not there would
//! otherwise be met mid-journey and read as the target's failure; it is a
//! setting to fix, and every one is named at once.
//!
//! One `GET` to each origin's root, nothing to the target's API; any HTTP
//! answer will do. The base URL's own origin is the preflight's.

use std::{collections::BTreeMap, time::Duration};

use payconf_spec::features::ScenarioEntry;
use reqwest::Client;
use url::Url;

use super::source_chain;
use crate::runner::{
    needs::{PAYMENT_PAGE_TAG, drives_buyer},
    target_file::{TargetConfig, TargetError},
};

/// Checks the origin of every address the `selected` scenarios send the
/// buyer to (other than the base URL's), all at once; the error names
/// each origin that did not answer with the settings on it.
pub async fn check(
    client: &Client,
    target: &TargetConfig,
    selected: &[ScenarioEntry],
    timeout: Duration,
) -> Result<(), TargetError> {
    let mut answers = tokio::task::JoinSet::new();
    for (order, (origin, (root, settings))) in depended_on(target, selected).into_iter().enumerate()
    {
        let client = client.clone();
        answers.spawn(async move {
            let failure = match tokio::time::timeout(timeout, client.get(root).send()).await {
                Ok(Ok(_)) => return None,
                Ok(Err(error)) => in_words(&error),
                Err(_) => format!("no answer within {} s", timeout.as_secs()),
            };
            Some((
                order,
                TargetError::new(
                    &settings.join(", "),
                    format!(
                        "its origin {origin} does not answer ({failure}): start the server \
                         there, or write the address from base_url (\"/path\" or \
                         \"{{base_url}}/path\")"
                    ),
                ),
            ))
        });
    }
    let mut problems = Vec::new();
    while let Some(answer) = answers.join_next().await {
        problems.extend(answer.ok().flatten());
    }
    problems.sort_by_key(|(order, _)| *order);
    TargetError::all(problems.into_iter().map(|(_, problem)| problem).collect())
}

/// The origins (as text) other than the base URL's that the `selected`
/// scenarios depend on: each with its root and the settings on it.
fn depended_on(
    target: &TargetConfig,
    selected: &[ScenarioEntry],
) -> BTreeMap<String, (Url, Vec<&'static str>)> {
    let buyer = selected.iter().any(|s| drives_buyer(&s.tags));
    let page = selected
        .iter()
        .any(|s| s.tags.iter().any(|t| t == PAYMENT_PAGE_TAG));
    let mut addresses: Vec<(&'static str, Url)> = Vec::new();
    if buyer {
        addresses.extend(target.success_url.clone().map(|u| ("success_url", u)));
        addresses.extend(target.failure_url.clone().map(|u| ("failure_url", u)));
    }
    if page {
        let sample = target
            .payment_page
            .as_ref()
            .and_then(|p| p.sample_address());
        addresses.extend(sample.map(|u| ("payment_page.address", u)));
    }
    let base = target.base_url.origin().ascii_serialization();
    let mut origins: BTreeMap<String, (Url, Vec<&'static str>)> = BTreeMap::new();
    for (setting, url) in addresses {
        let origin = url.origin().ascii_serialization();
        if origin == base {
            continue;
        }
        let Ok(root) = Url::parse(&format!("{origin}/")) else {
            continue;
        };
        let entry = origins.entry(origin).or_insert_with(|| (root, Vec::new()));
        if !entry.1.contains(&setting) {
            entry.1.push(setting);
        }
    }
    origins
}

/// Why a request got no answer, in words: its innermost causes, each once.
fn in_words(error: &reqwest::Error) -> String {
    match source_chain(error) {
        chain if chain.is_empty() => error.to_string(),
        chain => chain,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::target_file::tests::{COMPLETE, target};

    #[test]
    fn only_the_pages_the_selected_scenarios_reach_are_checked_each_origin_once() {
        let on = |tags: &[&str]| ScenarioEntry {
            file: "f.feature".to_owned(),
            feature: "F".to_owned(),
            name: "S".to_owned(),
            line: 1,
            tags: tags.iter().map(|t| (*t).to_owned()).collect(),
            profile: None,
        };
        let target = target(&COMPLETE.replace(
            "shop_login = \"SHOP\"",
            "shop_login = \"SHOP\"\nsuccess_url = \"http://shop.test:81/ok\"\n\
             failure_url = \"http://shop.test:81/ko\"",
        ));
        assert!(depended_on(&target, &[on(&["core"])]).is_empty());
        let on_base = target.base_url.join("/merchant/ok").expect("url");
        let mut same_origin = target.clone();
        same_origin.success_url = Some(on_base);
        same_origin.failure_url = None;
        assert!(
            depended_on(&same_origin, &[on(&["core", "issuer"])]).is_empty(),
            "the base URL's origin is the preflight's"
        );
        let journeys = depended_on(&target, &[on(&["core", "issuer"])]);
        assert_eq!(
            journeys.into_iter().collect::<Vec<_>>(),
            vec![(
                "http://shop.test:81".to_owned(),
                (
                    Url::parse("http://shop.test:81/").expect("url"),
                    vec!["success_url", "failure_url"]
                )
            )]
        );
    }
}
