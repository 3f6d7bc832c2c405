//! The `[lifecycle]` section of a target file: which of the real service's
//! operations after submit the target offers (`payment/detail`, capture,
//! cancel, refund), how its shop settles (the real service's "unified":
//! by itself after a while; "separated": when the merchant captures), and
//! optionally a second shop that settles the other way, so that both
//! ways' scenarios run.
//!
//! The section opts in to the `@lifecycle` scenarios (reference profile):
//! the contract says only that other operations exist.

use std::{collections::BTreeSet, time::Duration};

use serde::Deserialize;

use super::{Secret, TargetError, target_error};

/// How long a unified shop may take to settle a payment by itself, unless
/// the target file says.
pub const DEFAULT_SETTLES_WITHIN: Duration = Duration::from_secs(60);
/// The longest `settles_within_secs` a run waits for.
const MAX_SETTLES_WITHIN_SECS: u64 = 600;
/// The variable that gives the second shop's API key outside the file.
pub const SECOND_SHOP_KEY_VARIABLE: &str = "PAYCONF_SECOND_SHOP_API_KEY";

/// An operation after submit.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, PartialOrd, Ord, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LifecycleOperation {
    /// `payment/detail`, by ID and by identifiers.
    Detail,
    /// `payment/capture/`.
    Capture,
    /// `payment/cancel/`.
    Cancel,
    /// `payment/refund/`.
    Refund,
    /// Card tokens: `creditcard.requestToken` at submit, a submit paying
    /// with `creditcard.token` (the real service's, RS-CARD-TOKENS). Not
    /// among the operations a target offers unless it lists it.
    Tokens,
    /// What a shop's own checkout asks after create: `payment/methods`,
    /// `payment/methods/detail`, `payment/dataForBuyer` and `check/DCC/`
    /// (the real service's, RS-METHODS). Not among the operations a target
    /// offers unless it lists it.
    Methods,
}

impl LifecycleOperation {
    /// Every operation, as the target file names them.
    pub const ALL: [Self; 6] = [
        Self::Detail,
        Self::Capture,
        Self::Cancel,
        Self::Refund,
        Self::Tokens,
        Self::Methods,
    ];

    /// What a target offers when `lifecycle.operations` is left out: the
    /// payment's life after submit, not card tokens nor the payment's
    /// methods (a target that has them lists `"tokens"`, `"methods"`).
    pub const DEFAULT: [Self; 4] = [Self::Detail, Self::Capture, Self::Cancel, Self::Refund];

    /// Its name in the target file, and the tag of its scenarios.
    pub fn name(self) -> &'static str {
        match self {
            Self::Detail => "detail",
            Self::Capture => "capture",
            Self::Cancel => "cancel",
            Self::Refund => "refund",
            Self::Tokens => "tokens",
            Self::Methods => "methods",
        }
    }
}

/// How a shop's authorised payments are settled.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SettlementMode {
    /// The service settles each authorised payment by itself.
    Unified,
    /// A payment waits for the merchant's capture or cancel.
    Separated,
}

impl SettlementMode {
    /// Its name in the target file, and the tag of its scenarios.
    pub fn name(self) -> &'static str {
        match self {
            Self::Unified => "unified",
            Self::Separated => "separated",
        }
    }

    fn other(self) -> Self {
        match self {
            Self::Unified => Self::Separated,
            Self::Separated => Self::Unified,
        }
    }
}

/// `[lifecycle]` as written.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LifecycleFile {
    operations: Option<Vec<LifecycleOperation>>,
    settlement: Option<SettlementMode>,
    settles_within_secs: Option<u64>,
    trailing_slash: Option<bool>,
    second_shop: Option<SecondShopFile>,
}

/// `[lifecycle.second_shop]` as written.
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct SecondShopFile {
    shop_login: String,
    api_key: Option<Secret>,
}

/// A shop the lifecycle scenarios pay at.
#[derive(Clone, Debug)]
pub struct LifecycleShop {
    /// Its shop login.
    pub shop_login: String,
    /// Its API key; `None`: the target's own (`api_key`).
    pub api_key: Option<Secret>,
    /// How it settles.
    pub settlement: SettlementMode,
}

/// What the target offers after submit.
#[derive(Clone, Debug)]
pub struct LifecycleSettings {
    /// The operations it offers.
    pub operations: BTreeSet<LifecycleOperation>,
    /// The target's own shop (`shop_login`), and a second one that settles
    /// the other way, when the file names it.
    pub shops: Vec<LifecycleShop>,
    /// How long a unified shop may take to settle a payment by itself.
    pub settles_within: Duration,
    /// How the target spells the operations' paths: `None`, as the real
    /// service's documents write them (`payment/capture/`, `cancel/`,
    /// `refund/` with a trailing slash, `payment/detail` without); `Some`,
    /// every one with (`true`) or without (`false`) it. The real service's
    /// clients disagree (docs/real-service.md, RS-PATHS), so a target says.
    pub trailing_slash: Option<bool>,
}

impl LifecycleFile {
    /// Checks every setting; `shop_login` is the target's own shop. The
    /// second shop's key is `PAYCONF_SECOND_SHOP_API_KEY` over the file's.
    pub fn resolve(
        self,
        shop_login: &str,
        second_key: Option<String>,
    ) -> Result<LifecycleSettings, TargetError> {
        let operations: BTreeSet<LifecycleOperation> = match self.operations {
            Some(listed) if listed.is_empty() => {
                return Err(target_error(
                    "lifecycle.operations",
                    "names no operation: list some of \"detail\", \"capture\", \"cancel\", \
                     \"refund\", \"tokens\", or leave the setting out for the first four",
                ));
            }
            Some(listed) => listed.into_iter().collect(),
            None => LifecycleOperation::DEFAULT.into_iter().collect(),
        };
        let settlement = self.settlement.ok_or_else(|| {
            target_error(
                "lifecycle.settlement",
                "is missing: say how the shop settles, \"unified\" (by itself) or \
                 \"separated\" (when the merchant captures)",
            )
        })?;
        let settles_within = match self.settles_within_secs {
            None => DEFAULT_SETTLES_WITHIN,
            Some(secs) if (1..=MAX_SETTLES_WITHIN_SECS).contains(&secs) => {
                Duration::from_secs(secs)
            }
            Some(secs) => {
                return Err(target_error(
                    "lifecycle.settles_within_secs",
                    format!("must be 1 to {MAX_SETTLES_WITHIN_SECS}, not {secs}"),
                ));
            }
        };
        let mut shops = vec![LifecycleShop {
            shop_login: shop_login.to_owned(),
            api_key: None,
            settlement,
        }];
        if let Some(second) = self.second_shop {
            if second.shop_login.is_empty() || second.shop_login == shop_login {
                return Err(target_error(
                    "lifecycle.second_shop.shop_login",
                    "must name another shop than shop_login",
                ));
            }
            let api_key = second_key
                .filter(|key| !key.is_empty())
                .map(Secret::new)
                .or(second.api_key)
                .ok_or_else(|| {
                    target_error(
                        "lifecycle.second_shop.api_key",
                        format!("is missing (or set {SECOND_SHOP_KEY_VARIABLE})"),
                    )
                })?;
            shops.push(LifecycleShop {
                shop_login: second.shop_login,
                api_key: Some(api_key),
                settlement: settlement.other(),
            });
        }
        Ok(LifecycleSettings {
            operations,
            shops,
            settles_within,
            trailing_slash: self.trailing_slash,
        })
    }
}

impl LifecycleSettings {
    /// An operation's path as the target spells it, from the spelling of
    /// the real service's documents.
    pub fn path(&self, documented: &str) -> String {
        let bare = documented.trim_end_matches('/');
        match self.trailing_slash {
            None => documented.to_owned(),
            Some(true) => format!("{bare}/"),
            Some(false) => bare.to_owned(),
        }
    }

    /// The shop that settles `mode`'s way, when the target names one.
    pub fn shop(&self, mode: SettlementMode) -> Option<&LifecycleShop> {
        self.shops.iter().find(|shop| shop.settlement == mode)
    }

    /// Whether the target offers `operation`.
    pub fn offers(&self, operation: LifecycleOperation) -> bool {
        self.operations.contains(&operation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<LifecycleSettings, TargetError> {
        toml::from_str::<LifecycleFile>(text)
            .expect("the section parses")
            .resolve("SHOP", None)
    }

    #[test]
    fn the_settlement_mode_is_required_and_the_operations_default_to_all() {
        let settings = read("settlement = \"separated\"").expect("valid");
        assert_eq!(settings.operations.len(), 4);
        assert_eq!(settings.settles_within, DEFAULT_SETTLES_WITHIN);
        assert!(settings.shop(SettlementMode::Separated).is_some());
        assert!(settings.shop(SettlementMode::Unified).is_none());
        let missing = read("operations = [\"detail\"]").expect_err("no settlement");
        assert!(
            missing.to_string().contains("lifecycle.settlement"),
            "{missing}"
        );
    }

    #[test]
    fn paths_are_spelled_as_documented_unless_the_target_says() {
        let documented = read("settlement = \"unified\"").expect("valid");
        assert_eq!(
            documented.path("/api/v1/payment/capture/"),
            "/api/v1/payment/capture/"
        );
        assert_eq!(
            documented.path("/api/v1/payment/detail"),
            "/api/v1/payment/detail"
        );
        let bare = read("settlement = \"unified\"\ntrailing_slash = false").expect("valid");
        assert_eq!(
            bare.path("/api/v1/payment/refund/"),
            "/api/v1/payment/refund"
        );
        let slashed = read("settlement = \"unified\"\ntrailing_slash = true").expect("valid");
        assert_eq!(
            slashed.path("/api/v1/payment/detail"),
            "/api/v1/payment/detail/"
        );
    }

    #[test]
    fn a_second_shop_settles_the_other_way_with_its_own_key() {
        let settings = read(
            "settlement = \"unified\"\n[second_shop]\nshop_login = \"OTHER\"\napi_key = \"k\"",
        )
        .expect("valid");
        let other = settings
            .shop(SettlementMode::Separated)
            .expect("the second shop");
        assert_eq!(other.shop_login, "OTHER");
        assert_eq!(other.api_key.as_ref().map(Secret::expose), Some("k"));
        for wrong in [
            "settlement = \"unified\"\n[second_shop]\nshop_login = \"SHOP\"\napi_key = \"k\"",
            "settlement = \"unified\"\n[second_shop]\nshop_login = \"OTHER\"",
            "settlement = \"unified\"\nsettles_within_secs = 0",
            "settlement = \"unified\"\noperations = []",
        ] {
            assert!(read(wrong).is_err(), "{wrong}");
        }
    }
}
