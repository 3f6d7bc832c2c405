//! payconf-spec: the payment service contract as data, and nothing else of
//! payconf. Everything here reads files under `spec/` and `features/` (or
//! the copies compiled in) and knows nothing of servers, runs or reports;
//! the runner, the docs generator and the tests build on it.
//!
//! - [`contract`]: `spec/openapi.yaml` loaded with `openapiv3` and each
//!   answer's schema compiled to a JSON Schema validator, in two views: the
//!   contract's statements alone, and the reference profile's choices too.
//! - [`features`]: the Gherkin features, parsed and expanded, listed
//!   scenario by scenario with their tags read once ([`features::ScenarioEntry`]).
//! - [`requirements`]: `spec/requirements.yaml`, the contract's statements
//!   numbered ([`requirements::RequirementId`]), and the ids the harness
//!   names in code ([`requirements::ids`]).
//! - [`defects`]: `spec/defects.yaml`, servers broken on purpose, one
//!   requirement each.
//! - [`real_service`]: `spec/real-service.yaml`, what is known of the real
//!   service where the contract is silent, each fact with its public
//!   sources; the reference and robustness requirements name theirs.
//! - [`Profile`]: the one word for core, reference and robustness, used by
//!   all of the above.
//! - [`card`]: the kinds of test card ([`card::CardKind`]), and card
//!   numbers masked as the contract lets them be shown; [`transaction`]:
//!   `transactionResult` in the service's words; [`json_ref`] resolves
//!   `$ref`s; [`digest`] names a text by its SHA-256; [`driver`]: how the
//!   buyer gets through the issuer's page ([`driver::AcsDriver`]).
//!
//! Without its default feature `contract`, the crate is [`card`] and
//! [`transaction`] alone: the vocabulary the reference implementation
//! shares with the runner, with nothing to load.
//!
//! The contract itself is the document *Payment Initiation and Submission
//! Service*;
//! `spec/requirements.yaml` cites its sections by title.

pub mod card;
#[cfg(feature = "contract")]
pub mod contract;
#[cfg(feature = "contract")]
pub mod defects;
#[cfg(feature = "contract")]
pub mod digest;
#[cfg(feature = "contract")]
pub mod driver;
#[cfg(feature = "contract")]
pub mod features;
#[cfg(feature = "contract")]
pub mod json_ref;
#[cfg(feature = "contract")]
mod profile;
#[cfg(feature = "contract")]
pub mod real_service;
#[cfg(feature = "contract")]
pub mod requirements;
pub mod transaction;

#[cfg(feature = "contract")]
pub use profile::Profile;
