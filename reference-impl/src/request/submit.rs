//! A `payment/submit` body validated, and its `paymentToken` header: the
//! buyer (optional, well formed when given), the card with the real
//! service's codes, and the return addresses.

use http::HeaderMap;
use uuid::Uuid;

use crate::{
    card::{CardNumber, CardNumberError, Expiry, ExpiryError, cvv_well_formed},
    error::{ApiError, code},
    json::Json,
    request::{
        Fields,
        response_urls::{ResponseUrls, read_response_urls},
    },
};

/// The buyer of a payment, as a submit's `buyer` or the payment page's
/// form named them (each empty when not given).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Buyer {
    /// Their name (the card holder's, on the payment page).
    pub name: Box<str>,
    /// Their e-mail address.
    pub email: Box<str>,
}

/// The validated card data of a submit request.
pub(crate) struct SubmittedCard {
    /// The card, by its number or by a card token.
    pub card: CardData,
    /// `buyer`, when given.
    pub buyer: Option<Buyer>,
    /// `creditcard.requestToken`: a card token asked for (`MASKEDPAN`, or
    /// the shop's own).
    pub request_token: Option<String>,
}

/// How a submit names its card.
pub(crate) enum CardData {
    /// By its number, expiry and security code.
    Number {
        /// The number.
        number: CardNumber,
        /// Its expiry.
        expiry: Expiry,
    },
    /// By a card token the shop holds (`creditcard.token`, no number).
    Token(String),
}

/// Validates the buyer, the card and the return addresses of a submit body.
pub(crate) fn read_payment_data(
    fields: &Fields<'_>,
) -> Result<(SubmittedCard, ResponseUrls), ApiError> {
    let buyer = read_buyer(fields)?;
    let mut card = read_card(fields)?;
    card.buyer = buyer;
    let redirects = read_response_urls(fields)?;
    Ok((card, redirects))
}

/// The `paymentToken` header: missing is `1171`, like the API key; a value
/// that is no token the service could have issued is `1170`, as one it
/// never issued (docs/real-service.md, RS-TOKEN-ERRORS).
pub(crate) fn payment_token(headers: &HeaderMap) -> Result<Uuid, ApiError> {
    let value = headers
        .get("paymentToken")
        .ok_or(ApiError::MissingPaymentToken)?;
    value
        .to_str()
        .ok()
        .and_then(|v| Uuid::try_parse(v.trim()).ok())
        .ok_or(ApiError::InvalidPaymentToken)
}

/// The buyer is optional, and so are its name and e-mail address: the real
/// service marks only `shopLogin` mandatory, and a widely used client of it
/// sends no `buyer` (docs/real-service.md, RS-SUBMIT-MINIMAL).
/// What is given must be well formed; an empty string is taken as not given.
fn read_buyer(fields: &Fields<'_>) -> Result<Option<Buyer>, ApiError> {
    let Some(buyer) = fields.optional_object("buyer", "buyer")? else {
        return Ok(None);
    };
    let given = |name: &str| -> Result<Option<&str>, ApiError> {
        Ok(buyer.optional_str(name)?.filter(|value| !value.is_empty()))
    };
    if given("name")?.is_some_and(|name| !name_well_formed(name)) {
        return Err(ApiError::field(
            code::INVALID_PARAMETER,
            "buyer.name",
            "must be 1 to 100 characters, without control characters",
        ));
    }
    if given("email")?.is_some_and(|email| !email_well_formed(email)) {
        return Err(ApiError::field(
            code::INVALID_EMAIL,
            "buyer.email",
            "must be an e-mail address",
        ));
    }
    let (name, email) = (given("name")?, given("email")?);
    Ok((name.is_some() || email.is_some()).then(|| Buyer {
        name: name.unwrap_or_default().into(),
        email: email.unwrap_or_default().into(),
    }))
}

/// 1 to 100 characters, not only spaces, without control characters.
pub(crate) fn name_well_formed(name: &str) -> bool {
    !name.trim().is_empty() && name.chars().count() <= 100 && !name.chars().any(char::is_control)
}

/// `local@domain.tld`, at most 254 characters, no spaces or control characters.
pub(crate) fn email_well_formed(email: &str) -> bool {
    let Some((local, domain)) = email.rsplit_once('@') else {
        return false;
    };
    email.len() <= 254
        && !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !email.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// The card's fields with the real service's codes (docs/real-service.md,
/// §3): no card at all is 1461, its number or expiry missing 1138, a number
/// of other characters than digits 1118. A card token without a number
/// (`token`) names the card instead; `requestToken` asks for one.
fn read_card(fields: &Fields<'_>) -> Result<SubmittedCard, ApiError> {
    let details = fields.required_object(
        "paymentTypeDetails",
        "paymentTypeDetails",
        code::CARD_DATA_MISSING,
    )?;
    let card = details.required_object(
        "creditcard",
        "paymentTypeDetails.creditcard",
        code::CARD_DATA_MISSING,
    )?;
    let given = |name: &str| -> Result<Option<&str>, ApiError> {
        Ok(card
            .optional_str(name)?
            .map(str::trim)
            .filter(|v| !v.is_empty()))
    };
    let request_token = given("requestToken")?.map(str::to_owned);
    let number_given = !matches!(card.get("number"), None | Some(Json::Null));
    if !number_given && let Some(token) = given("token")? {
        return Ok(SubmittedCard {
            card: CardData::Token(token.to_owned()),
            buyer: None,
            request_token,
        });
    }
    let number = read_number(&card)?;
    let expiry = read_expiry(&card)?;
    let cvv = card.required_str("CVV", code::CVV)?;
    if !cvv_well_formed(cvv) {
        return Err(ApiError::field(
            code::CVV,
            card.path_of("CVV"),
            "must be 3 or 4 digits",
        ));
    }
    Ok(SubmittedCard {
        card: CardData::Number { number, expiry },
        buyer: None,
        request_token,
    })
}

/// A card object's `number`, with the real service's codes: missing 1138,
/// another type or length 1119, not digits 1118, a wrong check digit 1120.
pub(crate) fn read_number(card: &Fields<'_>) -> Result<CardNumber, ApiError> {
    CardNumber::parse(card.required_str_coded(
        "number",
        code::CARD_DATA_INCOMPLETE,
        code::CARD_LENGTH,
    )?)
    .map_err(|e| {
        let code = match e {
            CardNumberError::NotNumeric => code::CARD_NOT_NUMERIC,
            CardNumberError::Length => code::CARD_LENGTH,
            CardNumberError::CheckDigit => code::CARD_CHECK_DIGIT,
        };
        ApiError::field(code, card.path_of("number"), e.to_string())
    })
}

/// A card object's `expMonth` and `expYear`, with the real service's
/// codes: missing 1138, a wrong month 1124, year 1125, expired 1126.
pub(crate) fn read_expiry(card: &Fields<'_>) -> Result<Expiry, ApiError> {
    let month =
        card.required_str_coded("expMonth", code::CARD_DATA_INCOMPLETE, code::EXPIRY_MONTH)?;
    let year = card.required_str_coded("expYear", code::CARD_DATA_INCOMPLETE, code::EXPIRY_YEAR)?;
    Expiry::parse(month, year, current_year_month()).map_err(|e| {
        let (code, field) = match e {
            ExpiryError::Month => (code::EXPIRY_MONTH, "expMonth"),
            ExpiryError::Year => (code::EXPIRY_YEAR, "expYear"),
            ExpiryError::Expired => (code::CARD_EXPIRED, "expYear"),
        };
        ApiError::field(code, card.path_of(field), e.to_string())
    })
}

/// Today's year and month, UTC.
pub(crate) fn current_year_month() -> (u16, u8) {
    let now = time::OffsetDateTime::now_utc();
    (
        u16::try_from(now.year()).unwrap_or(u16::MAX),
        u8::from(now.month()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn email_addresses_need_a_local_part_and_a_dotted_domain() {
        assert!(email_well_formed("buyer@example.com"));
        for email in [
            "buyer",
            "@example.com",
            "buyer@example",
            "a b@example.com",
            "b@.com",
        ] {
            assert!(!email_well_formed(email), "{email:?}");
        }
    }
}
