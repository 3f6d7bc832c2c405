//! Step definitions, one file per domain concept: creating payments
//! ([`payment`]), paying with cards ([`card`]), what an answer says
//! ([`answer`]), and where the buyer is sent ([`redirect`]). Steps return
//! `Result<(), Failure>`; a failure says what was expected, what was seen,
//! and shows the exchange with secrets redacted.

mod answer;
mod card;
pub(crate) mod payment;
mod redirect;
pub mod robustness;

pub use card::CARD_DATA_DEFINITIONS;

/// Path of the create call, under the target's base address.
pub const CREATE_PATH: &str = "/api/v1/payment/create/";
/// Path of the submit call, under the target's base address.
pub const SUBMIT_PATH: &str = "/api/v1/payment/submit/";
