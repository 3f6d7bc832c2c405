//! `check/*`: the real service's checks of a buyer's data before a shop
//! pays with it (docs/real-service.md, RS-CHECKS), with the API key or a
//! payment token of the shop's: `check/pan/` (the number's check digit and
//! company), `check/cvv/`, `check/expirydate/`, `check/email/` (each
//! `result` `OK` or `KO`), and `check/creditCard/`, every field of a card
//! at once (its check digit, expiry and security code, its company, whether
//! it is enrolled in 3-D Secure) and, `withAuth` `TRUE`, whether the
//! sandbox would authorise it.
//!
//! Ours, where the facts give only the fields: a check answers what it
//! finds, `KO` for data that fails it, and refuses only a body without what
//! it checks (1138 no card number, 1105 another field); the card's country,
//! its product's description and `logo` are empty (the sandbox knows no
//! issuer), `productType` is `Credit`, `commercial` and `prepaid` `N`; the
//! `3DS` answer is the test card's: `Y` for the cards the sandbox sends to
//! the issuer or authenticates, `N` for the others and `U` for a card it
//! does not know. A check authorises nothing and keeps nothing.
//! `check/DCC/` offers no conversion: the sandbox converts no currency
//! (`eligible` `False`, the payment's own amount and currency at a rate of
//! 1). A submit asking for the conversion without the check is not refused
//! (1172, "check/DCC call missing", is the real service's code, but clients
//! of it send `DCC` `"true"` without the check and are paid: REF-VAL-11).

use http::{Request, Response};
use hyper::body::Incoming;
use payconf_spec::card::CardKind;
use serde::Serialize;

use crate::{
    call_log::Exchange,
    card::{CardNumber, Expiry, company, cvv_well_formed},
    caller::Caller,
    envelope,
    error::{ApiError, code},
    execute::Outcome,
    request::{
        Fields, parse_json_object,
        submit::{current_year_month, email_well_formed},
    },
    state::{Body, Service},
};

/// Which check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// `check/pan/`.
    Pan,
    /// `check/cvv/`.
    Cvv,
    /// `check/expirydate/`.
    ExpiryDate,
    /// `check/email/`.
    Email,
    /// `check/creditCard/`.
    CreditCard,
    /// `check/DCC/`: whether the card's payment may be converted into the
    /// card's own currency.
    Dcc,
}

/// `check/DCC/`'s answer.
#[derive(Serialize)]
struct DccAnswer {
    #[serde(rename = "DCC")]
    dcc: DccOffer,
    #[serde(rename = "paymentID")]
    payment_id: String,
}

/// `DCC`: the sandbox converts no currency, so the offer is the payment's
/// own amount in its own currency, at a rate of 1.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DccOffer {
    eligible: &'static str,
    currency: String,
    amount: String,
    disclaimer: &'static str,
    exchange_rate: &'static str,
    source: &'static str,
}

/// `result`: `OK` or `KO`.
#[derive(Serialize)]
struct Verdict {
    result: &'static str,
}

/// `check/pan/`'s answer.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PanAnswer {
    check_digit: &'static str,
    company: &'static str,
    logo: &'static str,
}

/// `check/creditCard/`'s answer.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CardAnswer {
    transaction_type: &'static str,
    transaction_result: &'static str,
    authorization_result: &'static str,
    authorization_error_code: &'static str,
    authorization_code_description: &'static str,
    country: &'static str,
    country_code: &'static str,
    issuer_country: &'static str,
    issuer_country_code: &'static str,
    cvv: &'static str,
    cvv_description: &'static str,
    company: &'static str,
    company_code: &'static str,
    commercial: &'static str,
    product_description: &'static str,
    product_type: &'static str,
    check_digit: &'static str,
    check_digit_description: &'static str,
    expiry_date: &'static str,
    expiry_date_description: &'static str,
    #[serde(rename = "3DS")]
    three_ds: &'static str,
    #[serde(rename = "3DSDescription")]
    three_ds_description: &'static str,
    prepaid: &'static str,
}

/// `POST check/…`: one check.
pub(crate) async fn check(
    service: &Service,
    check: Check,
    request: Request<Incoming>,
    exchange: &mut Exchange,
) -> Result<Response<Body>, ApiError> {
    let (parts, body) = request.into_parts();
    // The merchant a check is for: by its API key, or by the payment token
    // of one of its payments (the real service takes either).
    let caller = Caller::of(service, &parts.headers)?;
    let merchant = caller.merchant;
    let body = service.json_body(&parts, body, exchange).await?;
    let object = parse_json_object(&body)?;
    let fields = Fields::root(&object);
    service
        .profiles
        .shop_of(&fields, merchant, "does not belong to the caller")?;
    let card = || fields.required_object("creditcard", "creditcard", code::CARD_DATA_MISSING);
    let ok = |passed: bool| if passed { "OK" } else { "KO" };
    match check {
        Check::Pan => {
            let number = card()?.required_str("number", code::CARD_DATA_INCOMPLETE)?;
            let parsed = CardNumber::parse(number.trim()).ok();
            Ok(envelope::ok(&PanAnswer {
                check_digit: ok(parsed.is_some()),
                company: parsed.as_ref().map_or("", CardNumber::company),
                logo: "",
            }))
        }
        Check::Cvv => {
            let cvv = card()?.required_str("cvv", code::CVV)?;
            Ok(envelope::ok(&Verdict {
                result: ok(cvv_well_formed(cvv.trim())),
            }))
        }
        Check::ExpiryDate => {
            let card = card()?;
            let month = card.required_str("expMonth", code::CARD_DATA_INCOMPLETE)?;
            let year = card.required_str("expYear", code::CARD_DATA_INCOMPLETE)?;
            Ok(envelope::ok(&Verdict {
                result: ok(Expiry::parse(month, year, current_year_month()).is_ok()),
            }))
        }
        Check::Email => {
            let email = fields.required_str("email", code::INVALID_PARAMETER)?;
            Ok(envelope::ok(&Verdict {
                result: ok(email_well_formed(email.trim())),
            }))
        }
        Check::CreditCard => credit_card(service, merchant, &fields),
        Check::Dcc => {
            card()?.required_str("number", code::CARD_DATA_INCOMPLETE)?;
            // The offer is for the payment the token names.
            let payment = caller
                .token
                .map(|token| {
                    service.store.with_payment(&token, |p| {
                        (p.id.to_string(), p.amount.to_string(), p.currency.to_string())
                    })
                })
                .transpose()?;
            let (payment_id, amount, currency) = payment.unwrap_or_default();
            Ok(envelope::ok(&DccAnswer {
                dcc: DccOffer {
                    eligible: "False",
                    currency,
                    amount,
                    disclaimer: "",
                    exchange_rate: "1",
                    source: "",
                },
                payment_id,
            }))
        }
    }
}

/// `check/creditCard/`: every field of the card at once.
fn credit_card(
    service: &Service,
    merchant: u32,
    fields: &Fields<'_>,
) -> Result<Response<Body>, ApiError> {
    fields.required_str_coded(
        "shopTransactionID",
        code::SHOP_TRANSACTION_ID_MISSING,
        code::SHOP_TRANSACTION_ID,
    )?;
    let with_auth = fields
        .optional_str("withAuth")?
        .is_some_and(|w| w.trim().eq_ignore_ascii_case("true"));
    let card = fields.required_object("creditcard", "creditcard", code::CARD_DATA_MISSING)?;
    let token = card.optional_str("token")?.filter(|t| !t.trim().is_empty());
    let (number_ok, kind, company_name, expiry_ok) = match (card.optional_str("number")?, token) {
        (Some(number), _) => {
            let parsed = CardNumber::parse(number.trim()).ok();
            let expiry = match (card.optional_str("expMonth")?, card.optional_str("expYear")?) {
                (Some(month), Some(year)) => {
                    Some(Expiry::parse(month, year, current_year_month()).is_ok())
                }
                _ => None,
            };
            let kind = parsed.as_ref().and_then(|n| service.config.card_kind(n));
            (
                parsed.is_some(),
                kind,
                parsed.as_ref().map_or("", CardNumber::company),
                expiry,
            )
        }
        (None, Some(token)) => {
            let held = service
                .card_tokens
                .card(merchant, token.trim(), (0, 0))
                .map_err(|e| ApiError::field(e.code(), "creditcard.token", e.to_string()))?;
            let fresh = (held.expiry.year, held.expiry.month) >= current_year_month();
            (true, held.kind, company(&held.masked_pan), Some(fresh))
        }
        (None, None) => {
            return Err(ApiError::field(
                code::CARD_DATA_INCOMPLETE,
                "creditcard.number",
                "is required",
            ));
        }
    };
    let cvv = card
        .optional_str("CVV")?
        .map(|cvv| cvv_well_formed(cvv.trim()));
    let (three_ds, three_ds_description) = match kind {
        None => ("U", "Unverifiable"),
        Some(
            CardKind::Challenge
            | CardKind::AuthenticationFailed
            | CardKind::AcsTimeout
            | CardKind::FrictionlessAuthenticated
            | CardKind::InsufficientCredit
            | CardKind::CardExpired
            | CardKind::IssuerRejected
            | CardKind::AcsTechnicalProblem,
        ) => ("Y", "Enrolled"),
        Some(CardKind::NotEnrolled | CardKind::Declined) => ("N", "Not enrolled"),
    };
    let usable = number_ok && expiry_ok != Some(false) && cvv != Some(false);
    let (authorization, error_code, error_description) = if !with_auth {
        ("NULL", "", "")
    } else if !usable {
        ("KO", "", "The card's data is not valid")
    } else {
        match Outcome::of(kind) {
            Outcome::Declined { decline, .. } => ("KO", decline.code, decline.description),
            Outcome::Authorized { .. } | Outcome::Challenge(_) => ("OK", "", ""),
        }
    };
    let said = |passed: Option<bool>| match passed {
        Some(true) => ("OK", "Valid"),
        Some(false) => ("KO", "Not valid"),
        None => ("NULL", "Not checked"),
    };
    let (cvv, cvv_description) = said(cvv);
    let (expiry_date, expiry_date_description) = said(expiry_ok);
    let (check_digit, check_digit_description) = said(Some(number_ok));
    Ok(envelope::ok(&CardAnswer {
        transaction_type: "creditcard",
        transaction_result: "OK",
        authorization_result: authorization,
        authorization_error_code: error_code,
        authorization_code_description: error_description,
        country: "",
        country_code: "",
        issuer_country: "",
        issuer_country_code: "",
        cvv,
        cvv_description,
        company: company_name,
        company_code: company_name,
        commercial: "N",
        product_description: "",
        product_type: "Credit",
        check_digit,
        check_digit_description,
        expiry_date,
        expiry_date_description,
        three_ds,
        three_ds_description,
        prepaid: "N",
    }))
}
