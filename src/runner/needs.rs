//! What a scenario needs, read from its tags: the buyer's browser, the
//! target's settings (a failure page, a declined card, a token lifetime).
//! A scenario whose needs the target does not meet is skipped, saying why.

use payconf_spec::card::CardKind;

use crate::runner::target_file::{AcsDriver, LifecycleOperation, SettlementMode, TargetConfig};

/// The tag of scenarios that go through the issuer's page.
pub const ISSUER_TAG: &str = "issuer";

/// The tag of scenarios where the buyer follows the service's redirect
/// address to the page they land on (which may be a page of the service's
/// own that passes them on).
pub const RESULT_PAGE_TAG: &str = "result-page";

/// The tag of scenarios on the target's standard payment page, which the
/// target file declares (`[payment_page]`).
pub const PAYMENT_PAGE_TAG: &str = "payment-page";

/// The tag of scenarios that pay with the page's alternative method
/// (`[payment_page.alternative]`).
pub const ALTERNATIVE_TAG: &str = "alternative-method";

/// The tag of scenarios that open the target's lightbox from a shop's page,
/// which the target file declares (`[payment_page.lightbox]`): a script,
/// which only the browser driver runs.
pub const LIGHTBOX_TAG: &str = "lightbox";

/// The tag of scenarios that listen for the target's server notifications,
/// which the target file opts in to (`[notifications]`).
pub const NOTIFICATION_TAG: &str = "notification";

/// The tag of scenarios that verify a notification's signature, which needs
/// the shop's signing secret.
pub const SIGNATURE_TAG: &str = "signature";

/// The tag of scenarios of the payment's life after submit, which the
/// target file opts in to (`[lifecycle]`); each also names the operations
/// it calls (`@detail`, `@capture`, `@cancel`, `@refund`) and the way its
/// shop settles (`@unified`, `@separated`).
pub const LIFECYCLE_TAG: &str = "lifecycle";

/// The prefix of the tag naming a test card a scenario pays with, beyond
/// the two every target declares: `@card:acs_timeout` needs
/// `[cards.acs_timeout]`.
pub const CARD_TAG_PREFIX: &str = "card:";

/// The tag of the 3-D Secure outcome scenarios: an area a server may follow
/// the reference profile in while differing elsewhere.
pub const OUTCOME_TAG: &str = "outcome";

/// The tag of the scenario that waits for a token to expire: it needs the
/// target's `token_lifetime`.
pub const TOKEN_LIFETIME_TAG: &str = "token-lifetime";

/// The scenarios whose buyer must land on the merchant's failure page:
/// they need `failure_url`, and a journey of theirs that lands there has
/// gone as it should.
pub const FAILURE_PAGE_TAG: &str = "failure-page";

/// Whether a scenario with these tags may drive the buyer's browser.
pub fn drives_buyer<T: AsRef<str>>(tags: &[T]) -> bool {
    tags.iter()
        .any(|t| matches!(t.as_ref(), ISSUER_TAG | RESULT_PAGE_TAG | PAYMENT_PAGE_TAG))
}

/// Why the target cannot run a scenario, from the tags naming what it needs.
pub fn unmet_need(target: &TargetConfig, tags: &[String]) -> Option<String> {
    let needs = |tag: &str| tags.iter().any(|t| t == tag);
    if needs(PAYMENT_PAGE_TAG) && target.payment_page.is_none() {
        return Some(
            "the target declares no [payment_page]: the contract gives the page no address"
                .to_owned(),
        );
    }
    if needs(ALTERNATIVE_TAG)
        && target
            .payment_page
            .as_ref()
            .is_some_and(|page| page.alternative.is_none())
    {
        return Some("the target declares no [payment_page.alternative]".to_owned());
    }
    if needs(LIGHTBOX_TAG) {
        if target
            .payment_page
            .as_ref()
            .is_some_and(|page| page.lightbox.is_none())
        {
            return Some(
                "the target declares no [payment_page.lightbox]: the script a shop's page \
                 opens the lightbox with"
                    .to_owned(),
            );
        }
        if target.acs.driver != AcsDriver::Browser {
            return Some(format!(
                "the lightbox is a script, which only the browser driver runs: set acs.driver \
                 = \"browser\" (or --acs-driver browser); acs.driver is \"{}\"",
                target.acs.driver
            ));
        }
    }
    if (needs(ISSUER_TAG) || needs(PAYMENT_PAGE_TAG)) && target.acs.driver == AcsDriver::None {
        return Some(
            "acs.driver is none: the buyer's pages (the issuer's, the payment page) cannot be \
             driven"
                .to_owned(),
        );
    }
    if needs(NOTIFICATION_TAG) && target.notifications.is_none() {
        return Some(
            "the target declares no [notifications]: payconf cannot know an address the \
             target reaches it at"
                .to_owned(),
        );
    }
    if needs(SIGNATURE_TAG)
        && target
            .notifications
            .as_ref()
            .is_some_and(|n| n.signing_secret.is_none())
    {
        return Some(format!(
            "the target names no notifications.signing_secret (or {})",
            crate::runner::target_file::SECRET_VARIABLE
        ));
    }
    if let Some(unmet) = unmet_lifecycle_need(target, &needs) {
        return Some(unmet);
    }
    if needs("success-page") && target.success_url.is_none() {
        return Some("the target names no success_url".to_owned());
    }
    if needs(FAILURE_PAGE_TAG) && target.failure_url.is_none() {
        return Some("the target names no failure_url".to_owned());
    }
    if needs("declined-card") && target.cards.declined.is_none() {
        return Some("the target names no cards.declined".to_owned());
    }
    if let Some(card) = tags
        .iter()
        .filter_map(|t| t.strip_prefix(CARD_TAG_PREFIX))
        .find(|name| {
            CardKind::of_target_key(name).is_none_or(|kind| {
                target.cards.named(kind).is_none() && !fails_by_code(target, kind)
            })
        })
    {
        return Some(format!(
            "the target names no cards.{card}: the real service publishes no card for this \
             outcome, so a target declares its own"
        ));
    }
    if needs(TOKEN_LIFETIME_TAG) && target.token_lifetime.is_none() {
        return Some("the target names no token_lifetime_secs".to_owned());
    }
    None
}

/// Whether the target's road to the outcome `card` names is a wrong code
/// typed at the issuer (`acs.failing_fields`), not a card of its own.
pub fn fails_by_code(target: &TargetConfig, card: CardKind) -> bool {
    card == CardKind::AuthenticationFailed
        && target.cards.authentication_failed.is_none()
        && !target.acs.failing_fields.is_empty()
}

/// What a `@lifecycle` scenario needs of `[lifecycle]`: the section, each
/// operation it calls, and a shop that settles its way.
fn unmet_lifecycle_need(target: &TargetConfig, needs: &impl Fn(&str) -> bool) -> Option<String> {
    if !needs(LIFECYCLE_TAG) {
        return None;
    }
    let Some(lifecycle) = &target.lifecycle else {
        return Some(
            "the target declares no [lifecycle]: the contract says only that operations after \
             submit exist"
                .to_owned(),
        );
    };
    for operation in LifecycleOperation::ALL {
        if needs(operation.name()) && !lifecycle.offers(operation) {
            return Some(format!(
                "the target's lifecycle.operations does not list \"{}\"",
                operation.name()
            ));
        }
    }
    for mode in [SettlementMode::Unified, SettlementMode::Separated] {
        if needs(mode.name()) && lifecycle.shop(mode).is_none() {
            return Some(format!(
                "the target names no shop that settles {} (lifecycle.settlement, or \
                 [lifecycle.second_shop] for a shop that settles the other way)",
                match mode {
                    SettlementMode::Unified => "by itself (\"unified\")",
                    SettlementMode::Separated => "when the merchant captures (\"separated\")",
                }
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::runner::target_file::tests::target;

    /// A target with what every run needs and no browser driver.
    fn bare() -> String {
        crate::runner::target_file::tests::COMPLETE
            .replace("driver = \"form\"", "driver = \"none\"")
    }

    fn unmet(text: &str, tags: &[&str]) -> Option<String> {
        let tags: Vec<String> = tags.iter().map(|t| (*t).to_owned()).collect();
        unmet_need(&target(text), &tags)
    }

    #[test]
    fn each_need_a_target_leaves_unmet_is_said_in_one_clean_sentence() {
        let said: Vec<String> = [
            vec![NOTIFICATION_TAG],
            vec![ISSUER_TAG],
            vec![LIFECYCLE_TAG],
            vec!["success-page"],
            vec![FAILURE_PAGE_TAG],
            vec!["declined-card"],
            vec!["card:insufficient_credit"],
            vec![TOKEN_LIFETIME_TAG],
        ]
        .iter()
        .map(|tags| unmet(&bare(), tags).unwrap_or_else(|| panic!("{tags:?} is unmet")))
        .collect();
        assert_eq!(
            said[0],
            "the target declares no [notifications]: payconf cannot know an address the \
             target reaches it at"
        );
        assert_eq!(
            said[1],
            "acs.driver is none: the buyer's pages (the issuer's, the payment page) cannot be driven"
        );
        for sentence in &said {
            assert!(!sentence.contains("  "), "a run of spaces: {sentence:?}");
            assert!(!sentence.contains('\n'), "a line break: {sentence:?}");
        }
    }

    #[test]
    fn a_scenario_whose_needs_are_met_or_that_needs_nothing_runs() {
        assert_eq!(unmet(&bare(), &["core", "create"]), None);
        let declined = bare().replace(
            "[acs]",
            "[cards.declined]\nnumber = \"4000000000000002\"\nexp_month = \"05\"\n\
             exp_year = \"30\"\ncvv = \"999\"\n[acs]",
        );
        assert_eq!(unmet(&declined, &["declined-card"]), None);
    }
}
