//! `POST /api/v1/payment/submit/`: takes the card for the payment a
//! `paymentToken` names and executes it. A card not enrolled in 3-D Secure is
//! authorized at once; an enrolled one sends the buyer to the issuer's page
//! (`8006`); a declined one ends the payment (`KO`).

use http::{Request, Response};
use hyper::body::Incoming;
use payconf_spec::transaction::TransactionResult;
use serde::Serialize;
use uuid::Uuid;

use crate::{
    call_log::Exchange,
    envelope::{self, UserRedirect},
    error::{ApiError, code, transaction_code},
    card_tokens::{TokenCard, TokenError},
    execute::{Outcome, PaidCard, execute},
    request::{
        Fields, parse_json_object,
        submit::{CardData, SubmittedCard, current_year_month, payment_token, read_payment_data},
    },
    state::{Body, Service},
    store::PaymentState,
    timeline::{Channel, What},
};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SubmitPayload<'a> {
    #[serde(flatten)]
    transaction: envelope::Transaction,
    #[serde(rename = "paymentID")]
    payment_id: String,
    #[serde(rename = "shopTransactionID")]
    shop_transaction_id: &'a str,
    currency: &'a str,
    #[serde(rename = "maskedPAN")]
    masked_pan: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    authorization_code: Option<String>,
    user_redirect: UserRedirect,
}

/// The card a submit pays with: its number (and the card token it asks
/// for, issued now), or the card a token it names stands for.
fn paid_card(
    service: &Service,
    merchant: u32,
    submitted: &SubmittedCard,
) -> Result<PaidCard, ApiError> {
    let field = "paymentTypeDetails.creditcard.token";
    let refused = |error: TokenError| ApiError::field(error.code(), field, error.to_string());
    match &submitted.card {
        CardData::Number { number, expiry } => {
            let mut paid = PaidCard::of(service, number);
            if let Some(request) = &submitted.request_token {
                let card = TokenCard::of(number, *expiry, paid.kind);
                let issued = service
                    .card_tokens
                    .issue(merchant, request, card)
                    .map_err(|error| {
                        ApiError::field(
                            error.code(),
                            "paymentTypeDetails.creditcard.requestToken",
                            error.to_string(),
                        )
                    })?;
                if issued.created
                    && let Some(journal) = &service.journal
                {
                    journal.card_token(merchant, &issued.token, &issued.card);
                }
                paid.token = Some((issued.token, *expiry));
            }
            Ok(paid)
        }
        CardData::Token(token) => {
            let card = service
                .card_tokens
                .card(merchant, token, current_year_month())
                .map_err(refused)?;
            Ok(PaidCard {
                masked_pan: card.masked_pan.to_string(),
                kind: card.kind,
                token: Some((token.as_str().into(), card.expiry)),
            })
        }
    }
}

pub(crate) async fn submit(
    service: &Service,
    request: Request<Incoming>,
    exchange: &mut Exchange,
) -> Result<Response<Body>, ApiError> {
    let (parts, body) = request.into_parts();
    let token = payment_token(&parts.headers)?;
    let answered = submit_payment(service, &token, parts, body, exchange).await;
    if let Err(error) = &answered {
        // On the payment's timeline, when the token names one.
        let _ = service.store.with_payment(&token, |p| {
            p.record(What::SubmitRefused {
                code: error.code().into(),
            });
        });
    }
    answered
}

/// Submits the card of a request for the payment `token` names.
async fn submit_payment(
    service: &Service,
    token: &Uuid,
    parts: http::request::Parts,
    body: Incoming,
    exchange: &mut Exchange,
) -> Result<Response<Body>, ApiError> {
    let token = *token;
    // Refuse an unknown or expired token before reading card data for it.
    let (merchant, id) = service.store.with_payment(&token, |p| (p.merchant, p.id))?;
    exchange.about(merchant, id);
    let body = service.json_body(&parts, body, exchange).await?;
    let object = parse_json_object(&body)?;
    let fields = Fields::root(&object);

    let shop_login = service
        .profiles
        .shop_of(&fields, merchant, "does not match the payment")?;
    let already_processed = service
        .store
        .with_payment(&token, |p| p.state != PaymentState::Created)?;
    if already_processed {
        return Err(ApiError::AlreadyProcessed);
    }
    let (card, redirects) = read_payment_data(&fields)?;
    if let Some(notify) = &redirects.notification {
        // Refused when given, so nothing is ever sent where the sandbox
        // may not send (see `outbound`).
        service.outbound.judge(notify).await.map_err(|reason| {
            ApiError::field(
                code::INVALID_PARAMETER,
                "responseURLs.serverNotificationURL",
                reason,
            )
        })?;
    }
    let paid = paid_card(service, merchant, &card)?;
    let executed = execute(
        service,
        &token,
        shop_login,
        &paid,
        card.buyer,
        redirects.into(),
        Channel::Submit,
    )?;

    let (result, error_code, error_description) = match &executed.outcome {
        Outcome::Authorized { .. } => (TransactionResult::Ok, None, None),
        Outcome::Challenge(_) => (
            TransactionResult::Undecided,
            Some(transaction_code::AUTHENTICATION_REQUIRED),
            Some(transaction_code::AUTHENTICATION_REQUIRED_DESCRIPTION),
        ),
        Outcome::Declined { decline, .. } => (
            TransactionResult::Ko,
            Some(decline.code),
            Some(decline.description),
        ),
    };
    Ok(envelope::ok(&SubmitPayload {
        transaction: envelope::Transaction {
            transaction_type: "submit",
            transaction_result: result,
            transaction_error_code: error_code,
            transaction_error_description: error_description,
        },
        payment_id: executed.payment_id.to_string(),
        shop_transaction_id: &executed.shop_transaction_id,
        currency: executed.currency.code(),
        masked_pan: &executed.masked_pan,
        authorization_code: executed
            .outcome
            .paid()
            .then(|| format!("{:06}", executed.payment_id % 1_000_000)),
        user_redirect: UserRedirect {
            href: Some(executed.href.into()),
        },
    }))
}
