//! What the merchant's server sends, as the contract has it: `payment/create`
//! with the merchant's API key (`Authorization: apikey KEY`) and a JSON body
//! naming the shop, the amount, the currency and a reference of its own;
//! then `payment/submit` with the payment token. The steps, the settings'
//! check of the credentials and the benchmark build their calls from here,
//! so the create the run sends is written once.

use reqwest::Method;
use serde_json::{Value, json};
use url::Url;

use crate::runner::{
    exchange::RecordedRequest,
    target_file::{Secret, TargetConfig},
};

/// Path of the create call, under the target's base address.
pub const CREATE_PATH: &str = "/api/v1/payment/create/";
/// Path of the submit call, under the target's base address.
pub const SUBMIT_PATH: &str = "/api/v1/payment/submit/";

/// The address of `payment/create` at `target`, in its path form.
pub fn create_url(target: &TargetConfig) -> Url {
    target.operation_url(CREATE_PATH)
}

/// The address of `payment/submit` at `target`, in its path form.
pub fn submit_url(target: &TargetConfig) -> Url {
    target.operation_url(SUBMIT_PATH)
}

/// The create body the merchant sends to `target`, with a reference of its
/// own (`shopTransactionID`: the target's prefix and 12 random hex digits).
pub fn create_body(target: &TargetConfig) -> Value {
    json!({
        "shopLogin": target.shop_login,
        "amount": target.amount,
        "currency": target.currency,
        "shopTransactionID": format!(
            "{}{}",
            target.transaction_prefix,
            &uuid::Uuid::new_v4().simple().to_string()[..12]
        ),
    })
}

/// `request` with the merchant's key: `Authorization: apikey KEY`.
pub fn with_key(request: RecordedRequest, key: &Secret) -> RecordedRequest {
    request.header("Authorization", format!("apikey {}", key.expose()))
}

/// A `POST` of the merchant's to `url`, with `key`, carrying `body` as JSON:
/// create, and the operations after submit.
pub fn keyed_post(url: Url, key: &Secret, body: impl Into<Vec<u8>>) -> RecordedRequest {
    with_key(RecordedRequest::new(Method::POST, url), key)
        .header("Content-Type", "application/json")
        .body(body)
}

/// A create of the merchant's to `target`, with its key, carrying `body`
/// as JSON.
pub fn create_request(target: &TargetConfig, body: impl Into<Vec<u8>>) -> RecordedRequest {
    keyed_post(create_url(target), &target.api_key, body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::target_file::tests::COMPLETE;

    fn target() -> TargetConfig {
        crate::runner::target_file::tests::target(COMPLETE)
    }

    #[test]
    fn a_create_carries_the_key_and_json_to_the_create_path_under_the_base() {
        let target = target();
        let request = create_request(&target, "{}");
        assert_eq!(request.method, Method::POST);
        assert_eq!(
            request.url.as_str(),
            "https://sandbox.example/pay/api/v1/payment/create/"
        );
        let header = |name: &str| {
            request
                .headers
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(header("Authorization"), Some("apikey file-key"));
        assert_eq!(header("Content-Type"), Some("application/json"));
    }

    #[test]
    fn each_create_body_names_the_shop_and_a_reference_of_its_own() {
        let target = target();
        let (first, second) = (create_body(&target), create_body(&target));
        assert_eq!(first["shopLogin"], "SHOP");
        assert_eq!(first["amount"], json!(target.amount));
        assert_eq!(first["currency"], json!(target.currency));
        let reference = first["shopTransactionID"].as_str().expect("a reference");
        let digits = reference
            .strip_prefix(target.transaction_prefix.as_str())
            .expect("the target's prefix");
        assert_eq!(digits.len(), 12, "{reference}");
        assert!(digits.bytes().all(|b| b.is_ascii_hexdigit()), "{reference}");
        assert_ne!(first["shopTransactionID"], second["shopTransactionID"]);
    }
}
