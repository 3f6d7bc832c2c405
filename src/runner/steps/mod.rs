//! Step definitions, one file per domain concept: creating payments
//! ([`payment`]), paying with cards ([`card`]), requests outside the
//! contract's operations ([`paths`]), what an answer says ([`answer`]),
//! where the buyer is sent ([`redirect`]), and the buyer on the standard
//! payment page ([`payment_page`]; pressing pay twice at once, [`page_presses`]; the
//! lightbox a shop's page opens, [`lightbox`]), and the
//! merchant's server hearing the outcome ([`notification`]), and the
//! payment's life after submit ([`lifecycle`]: detail, capture, cancel,
//! refund).
//!
//! A step runs its checks through the world, `world.check(|world| { … })`
//! (or `check_async`), which returns `Result<(), Settled>`: a failure says
//! what was expected, what was seen, and shows the exchange with secrets
//! redacted; the world keeps it whole for the recorder, and only its words
//! travel through cucumber.

mod answer;
mod card;
mod lifecycle;
mod lightbox;
mod notification;
mod page_presses;
mod paths;
pub(crate) mod payment;
mod payment_page;
mod redirect;
pub mod robustness;

/// Every file of step definitions that send card data (a card number and
/// its security code): the cards' own, the lifecycle's payments,
/// robustness's volleys, the payment page's and its presses at once. No
/// definition elsewhere does, so a scenario is safe to run in production
/// when none of its steps is defined in one of these (a test checks
/// `@production-safe` scenarios with cucumber's own step lookup).
pub const CARD_DATA_DEFINITIONS: [&str; 8] = [
    card::DEFINED_IN,
    lifecycle::METHODS_DEFINED_IN,
    lightbox::DEFINED_IN,
    lifecycle::DEFINED_IN,
    lifecycle::RACES_DEFINED_IN,
    robustness::PAYING_DEFINED_IN,
    payment_page::DEFINED_IN,
    page_presses::DEFINED_IN,
];

/// Where the step definitions of requests outside the contract's
/// operations are: a scenario whose requests are only these exercises none.
pub const OFF_OPERATION_DEFINITIONS: [&str; 1] = [paths::DEFINED_IN];

/// The file of the step definition Cucumber runs for `step`, found as
/// Cucumber finds it; none when no definition (or more than one) matches.
pub fn definition_file(step: &cucumber::gherkin::Step) -> Option<&'static str> {
    use cucumber::World as _;
    let (_, _, location, _) = crate::runner::world::PaymentWorld::collection()
        .find(step)
        .ok()??;
    location.map(|location| location.path)
}
