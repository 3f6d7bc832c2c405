//! The reference implementation of the hosted payment service contract
//! (*Payment Initiation and Submission Service*), as specified in
//! `spec/openapi.yaml` and numbered in `spec/requirements.yaml`.
//!
//! It is a small payment sandbox on hyper: `payment/create` authenticates a
//! merchant by API key and opens a payment; `payment/submit` takes a card for
//! it and authorizes it, declines it, or sends the buyer to the simulated
//! issuer for 3-D Secure authentication; the issuer's page and the merchant's
//! result pages complete the buyer's journey on the same server. The
//! standard payment page is the other integration: the buyer pays on the
//! service's own page (by card, or with an alternative method approved by
//! redirect), shown alone or in the lightbox a shop's page opens with the
//! service's script, and no `payment/submit` is called. The buyer's pages
//! are at the real service's addresses (`paths`: `/pagam/pagam.aspx`,
//! `/pagam/src/index.html`, `/pagam/pagam3d.aspx`, the script
//! `/pagam/javascript/axerve.js` with its API, `axerve.lightBox`), so a
//! shop written for the real service runs on the sandbox with only its
//! host changed.
//!
//! How the parts fit: [`run`] accepts connections and hands each request to
//! the service's router, which calls the create or submit handler, the issuer
//! simulator, the payment page, or the result pages. A card pays a payment
//! in one place, `execute`, whichever way it came; where the buyer goes
//! when it ends is `landing`'s to say. Handlers read a body's JSON into the
//! light objects of the json module, validate with the types of the
//! card and money modules and refuse with an [`ApiError`], which knows its HTTP
//! status and envelope code. Payments live in a sharded in-memory store that
//! makes each state transition atomic and sweeps expired payments. Where the
//! contract is silent, the service follows the reference profile, written in
//! the spec with `x-conformance: reference`.
//!
//! After submit, the real service's operations: `detail` reads a payment
//! by ID or by its identifiers (`transaction_ids`), and `lifecycle`
//! captures, cancels, refunds and updates it, each asking the payment's
//! `ledger` (its money events `AUT`, `MOV`, `CAN`, `STO` under the shop's
//! settlement mode) and answering `KO` with the real service's code when
//! the payment does not allow it. A payment keeps its shop's addresses
//! for its life (`responseURLs` at create or submit, or its profile's
//! notification address as it was when it was created). Card tokens
//! (`card_tokens`, and `shop_token`'s operations) pay one-click and
//! recurring payments without the card's number. The codes and
//! authentication levels the
//! real service names its 3-D Secure outcomes with are `outcomes`'s; what
//! each test card leads to is `test_cards`'s, whose table the
//! documentation, the payment page and the back-office show.
//!
//! The merchant's side: the back-office (`backoffice`) shows a shop its
//! payments with their timelines (`timeline`) and their money, with the
//! buttons that capture, cancel and refund, and changes its profile
//! (`profiles`: result pages, notification address, signing secret, API
//! key, settlement mode), behind sessions (`sessions`), with each payment's
//! API calls and each notification's page, from which it is sent again
//! (`call_log`: a shop's last calls and notifications, redacted when kept).
//! When a payment ends, `notify` owes
//! the merchant's server a signed notification, queued (`outbox`) so no
//! handler waits for it, and posts it until it is taken or its retry
//! window is over. With a data file, the journal (`journal`) writes every
//! change to SQLite, and an answer leaves only once its changes are
//! committed; the file is read back when the service starts.
//!
//! A sandbox a team shares treats its users as strangers on its network:
//! it answers only to its own names (`site`), posts notifications only
//! where its outbound policy allows (`outbound`), gives each shop and each
//! receiver its own share of the delivery slots (`notify`), keeps API keys
//! and passwords only as digests and hashes (`secrets`), and paces its
//! demo checkout, whose payments are a shop's of its own (`rate_limit`).
//! docs/sandbox.md ("Sharing the sandbox") says what it promises.
//!
//! Everything but the request parsing is behind the `server` feature, on
//! by default. Without it the crate is what the fuzz targets call
//! ([`fuzzing`]): the bodies' and headers' validation and the refusals,
//! with none of hyper, tokio, TLS or SQLite to build.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use payconf_reference::{ReferenceConfig, run};
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! run(listener, ReferenceConfig::default(), async {
//!     let _ = tokio::signal::ctrl_c().await;
//! })
//! .await?;
//! # Ok(()) }
//! ```

// Without the server, much of the vocabulary below has no reader.
#![cfg_attr(not(feature = "server"), allow(dead_code))]

// What a request says and how the service refuses it: the parsing and
// validation of the API's bodies and headers, and the vocabulary they use.
// This is all a build without the `server` feature has (the fuzz targets').
mod card;
mod error;
mod json;
mod money;
pub mod outcomes;
mod request;

/// Items of the service itself, in a build with the `server` feature (the
/// default): what serves, stores, pays, notifies and journals, which the
/// fuzz targets' build leaves out with hyper, tokio, TLS and SQLite.
macro_rules! server {
    ($($item:item)*) => {
        $(
            #[cfg(feature = "server")]
            $item
        )*
    };
}

server! {
    mod backoffice;
    mod bank_id;
    mod call_log;
    mod caller;
    mod card_tokens;
    mod checks;
    mod config;
    mod create;
    mod detail;
    mod envelope;
    mod execute;
    mod form_body;
    mod issuer;
    mod journal;
    mod landing;
    mod ledger;
    mod lifecycle;
    mod methods;
    mod notify;
    mod outbound;
    mod outbox;
    mod pages;
    mod paths;
    mod payment_method;
    mod payment_page;
    mod profiles;
    mod rate_limit;
    mod router;
    mod secrets;
    mod server;
    mod shop_token;
    mod sessions;
    mod site;
    mod state;
    mod store;
    mod submit;
    pub mod test_cards;
    mod timeline;
    mod tls;
    mod transaction_ids;
}

/// Entry points for the fuzz targets (`fuzz/`): the service's request
/// parsing and validation, without a server. Not an API.
#[doc(hidden)]
pub mod fuzzing {
    use crate::{
        ApiError,
        request::{Fields, create::CreateRequest, parse_json_object, submit},
    };

    /// Parses a create body and validates every field.
    pub fn create_body(bytes: &[u8]) -> Result<(), ApiError> {
        let object = parse_json_object(bytes)?;
        CreateRequest::read(&object).map(drop)
    }

    /// Parses a submit body and validates the shop login, buyer, card and return addresses.
    pub fn submit_body(bytes: &[u8]) -> Result<(), ApiError> {
        let object = parse_json_object(bytes)?;
        let fields = Fields::root(&object);
        fields.required_str("shopLogin", crate::code::INVALID_PARAMETER)?;
        submit::read_payment_data(&fields).map(drop)
    }

    /// Reads a `paymentToken` header value.
    pub fn payment_token(value: &[u8]) -> Result<(), ApiError> {
        let mut headers = http::HeaderMap::new();
        let value = http::HeaderValue::from_bytes(value)
            .map_err(|_| ApiError::MalformedJson("not a header value".into()))?;
        headers.insert("paymentToken", value);
        submit::payment_token(&headers).map(drop)
    }
}

pub use card::{CardNumber, mask_pan};
pub use error::{ApiError, code, transaction_code};
pub use request::MAX_BODY_BYTES;

server! {
    pub use backoffice::CONFORMANCE_PREFIX;
    pub use call_log::{KEPT as CALLS_KEPT, KEPT_PER_PAYMENT};
    pub use config::{
        ConfigError, DEFAULT_API_KEY, DEFAULT_DECLINED_CARD, DEFAULT_FRICTIONLESS_CARD,
        DEFAULT_ISSUER_CODE, DEFAULT_PASSWORD, DEFAULT_SETTLEMENT, DEFAULT_SHOP_LOGIN,
        DEFAULT_SIGNING_SECRET, DEFAULT_THREE_DS_CARD, DEFAULT_TOKEN_LIFETIME, IssuerPage, Merchant,
        ReferenceConfig, ServerLimits, TestCard, default_card,
    };
    pub use ledger::Settlement;
    pub use outbound::Cidr;
    /// Server notifications as the merchant's server receives them: the
    /// signature's headers, and its check.
    pub mod notification {
        pub use crate::notify::message::{
            EVENT_ID_HEADER, SIGNATURE_HEADER, TOLERANCE_SECS, signature, verify, verify_at,
        };
    }
    pub use journal::DataError;
    pub use paths::{
        BACK_OFFICE_PATH, DEMO_PATH, FRAMED_PATH, ISSUER_PATH, PAGE_PATH, RESULT_PATH, SCRIPT_PATH,
        WALLET_PATH,
    };
    pub use payment_page::checkout_snippet;
    pub use server::{Prepared, RunningServer, ServeError, run, run_tls};
    pub use tls::{TlsError, crypto_provider, http_client, server_config};
}
