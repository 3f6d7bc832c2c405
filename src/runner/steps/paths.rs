//! Requests outside the contract's two operations: a method or a path it
//! does not list, sent as a merchant's server would send a create. A
//! scenario whose requests are only these exercises no operation.

use cucumber::when;
use reqwest::Method;

use super::payment::create_body;
use crate::runner::{
    exchange::RecordedRequest,
    merchant,
    world::{PaymentWorld, Settled},
};

/// Where these definitions are.
pub const DEFINED_IN: &str = file!();

#[when(regex = r#"^the merchant sends a (GET|POST|PUT|DELETE) request to "(/.*)"$"#)]
async fn sends_request_to(
    world: &mut PaymentWorld,
    method: String,
    path: String,
) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let method = Method::from_bytes(method.as_bytes())
                .expect("the pattern allows only valid methods");
            let operation = if path.contains("/submit") {
                "submitPayment"
            } else {
                "createPayment"
            };
            let target = world.target();
            // An operation's own path goes in the target's path form.
            let url = match path.as_str() {
                merchant::CREATE_PATH => merchant::create_url(target),
                merchant::SUBMIT_PATH => merchant::submit_url(target),
                other => target.api_url(other),
            };
            let mut request =
                merchant::with_key(RecordedRequest::new(method.clone(), url), &target.api_key);
            if method != Method::GET {
                let body = create_body(world).to_string();
                request = request
                    .header("Content-Type", "application/json")
                    .body(body);
            }
            world.receive(operation, request).await.map(drop)
        })
        .await
}
