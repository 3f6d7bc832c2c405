//! The production guard: whether a target is the real service, and the tag
//! of the scenarios that may run against it (those that send no card data).

use payconf_spec::contract::Contract;

use crate::runner::target_file::{Environment, TargetConfig};

/// The tag of scenarios that send no card data, the only ones run against production.
pub const PRODUCTION_SAFE: &str = "production-safe";

/// Why the target is production, if it is: the target file says so, or its
/// base address is one of the spec's production servers.
pub fn production_reason(target: &TargetConfig, contract: &Contract) -> Option<String> {
    if target.environment == Some(Environment::Production) {
        return Some("the target file declares environment = \"production\"".to_owned());
    }
    contract
        .production_addresses()
        .into_iter()
        .find(|address| address.origin() == target.base_url.origin())
        .map(|address| format!("{address} is the spec's production server"))
}
