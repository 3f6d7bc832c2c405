//! `shop/token`: a shop's card tokens, with its API key
//! (docs/real-service.md, RS-CARD-TOKENS). `POST shop/token/` asks for a
//! token for a card (`requestToken`: `MASKEDPAN`, or the shop's own) or,
//! naming one (`creditCard.token`), updates its card's expiry;
//! `GET shop/token/{shopLogin}` lists the shop's; `DELETE
//! shop/token/{shopLogin}/{token}` deletes one. See [`crate::card_tokens`]
//! for what a token keeps.

use http::{Request, Response};
use hyper::body::Incoming;
use serde::Serialize;

use crate::{
    call_log::Exchange,
    card_tokens::{TokenCard, TokenError},
    create::{authenticate_shop, merchant_call},
    envelope,
    error::{ApiError, code},
    request::{
        Fields, parse_json_object,
        submit::{read_expiry, read_number},
    },
    state::{Body, Service},
};

/// `POST shop/token/`'s answer.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Issued {
    transaction_type: &'static str,
    transaction_result: &'static str,
    token: String,
    token_expiry_month: String,
    token_expiry_year: String,
    #[serde(rename = "cardBIN")]
    card_bin: String,
}

/// One token of `GET shop/token/{shopLogin}`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Listed {
    token: String,
    token_expiry_month: String,
    token_expiry_year: String,
    #[serde(rename = "maskedPAN")]
    masked_pan: String,
}

#[derive(Serialize)]
struct Tokens {
    tokens: Vec<Listed>,
}

#[derive(Serialize)]
struct Deleted {
    result: &'static str,
    token: String,
}

/// `POST shop/token/`: a token asked for, or updated.
pub(crate) async fn request(
    service: &Service,
    request: Request<Incoming>,
    exchange: &mut Exchange,
) -> Result<Response<Body>, ApiError> {
    let (merchant, body) = merchant_call(service, request, exchange).await?;
    let object = parse_json_object(&body)?;
    let fields = Fields::root(&object);
    service
        .profiles
        .shop_of(&fields, merchant, "does not belong to this API key")?;
    let asked = fields.required_str("requestToken", code::INVALID_PARAMETER)?;
    let card = fields.required_object("creditCard", "creditCard", code::CARD_DATA_MISSING)?;
    let number = read_number(&card)?;
    let expiry = read_expiry(&card)?;
    let tokened = TokenCard::of(&number, expiry, service.config.card_kind(&number));
    let updated = card.optional_str("token")?.filter(|t| !t.trim().is_empty());
    let refused = |error: TokenError, field: &str| {
        ApiError::field(error.code(), field.to_owned(), error.to_string())
    };
    let (kind, issued) = match updated {
        Some(token) => {
            // A token the shop holds (1165 otherwise); another card's is
            // refused by the issuing itself (1163).
            service
                .card_tokens
                .card(merchant, token.trim(), (0, 0))
                .map_err(|e| refused(e, "creditCard.token"))?;
            let issued = service
                .card_tokens
                .issue(merchant, token.trim(), tokened)
                .map_err(|e| refused(e, "creditCard.token"))?;
            ("UPDATETOKEN", issued)
        }
        None => {
            let issued = service
                .card_tokens
                .issue(merchant, asked.trim(), tokened)
                .map_err(|e| refused(e, "requestToken"))?;
            ("REQUESTTOKEN", issued)
        }
    };
    if let Some(journal) = &service.journal {
        journal.card_token(merchant, &issued.token, &issued.card);
    }
    let (month, year) = issued.card.expiry_words();
    tracing::info!(card = &*issued.card.masked_pan, "{kind}: a card token");
    Ok(envelope::ok(&Issued {
        transaction_type: kind,
        transaction_result: "OK",
        token: issued.token.to_string(),
        token_expiry_month: month,
        token_expiry_year: year,
        card_bin: issued.card.masked_pan.chars().take(6).collect(),
    }))
}

/// `GET shop/token/{shopLogin}`: the shop's tokens.
pub(crate) fn list(
    service: &Service,
    request: &Request<Incoming>,
    shop_login: &str,
) -> Result<Response<Body>, ApiError> {
    let merchant = authenticate_shop(service, request.headers(), shop_login)?;
    let tokens = service
        .card_tokens
        .list(merchant)
        .into_iter()
        .map(|(token, card)| {
            let (month, year) = card.expiry_words();
            Listed {
                token: token.to_string(),
                token_expiry_month: month,
                token_expiry_year: year,
                masked_pan: card.masked_pan.to_string(),
            }
        })
        .collect();
    Ok(envelope::ok(&Tokens { tokens }))
}

/// `DELETE shop/token/{shopLogin}/{token}`: a token deleted.
pub(crate) fn delete(
    service: &Service,
    request: &Request<Incoming>,
    shop_login: &str,
    token: &str,
) -> Result<Response<Body>, ApiError> {
    let merchant = authenticate_shop(service, request.headers(), shop_login)?;
    service
        .card_tokens
        .delete(merchant, token)
        .map_err(|e| ApiError::field(e.code(), "token", e.to_string()))?;
    if let Some(journal) = &service.journal {
        journal.forget_card_token(merchant, token);
    }
    Ok(envelope::ok(&Deleted {
        result: "OK",
        token: token.to_owned(),
    }))
}
