//! A `payment/create` body validated: the shop login (checked against the
//! key by the handler), the amount, the currency and the shop's own
//! reference, each refusal with the real service's code; the shop's
//! addresses for this payment (`responseURLs`) and pay-by-link's channel
//! (`paymentChannel`).

use crate::{
    error::{ApiError, code},
    json::Json,
    money::{Amount, AmountError, Currency},
    request::{
        Fields,
        response_urls::{ResponseUrls, read_response_urls},
    },
};

/// The channels pay-by-link sends its address by (`paymentChannel.
/// channelType`, docs/real-service.md RS-PAY-BY-LINK).
pub const CHANNEL_TYPES: [&str; 2] = ["EMAIL", "QRCODE"];

/// The longest `shopTransactionID` the reference profile accepts.
pub const MAX_SHOP_TRANSACTION_ID: usize = 50;

/// A create body that passed validation.
pub(crate) struct CreateRequest<'a> {
    /// `shopLogin`, not yet checked against the key.
    pub shop_login: &'a str,
    /// `amount`.
    pub amount: Amount,
    /// `currency`.
    pub currency: Currency,
    /// `shopTransactionID`.
    pub shop_transaction_id: &'a str,
    /// `responseURLs`: the shop's addresses for this payment.
    pub response_urls: ResponseUrls,
    /// Whether `paymentChannel` asks for pay-by-link (the payment page's
    /// address in the answer).
    pub pay_by_link: bool,
}

impl<'a> CreateRequest<'a> {
    /// Validates every field of a create body, each refusal naming its field.
    pub(crate) fn read(object: &'a crate::json::Object<'a>) -> Result<Self, ApiError> {
        let fields = Fields::root(object);
        let shop_login = fields.required_str("shopLogin", code::INVALID_PARAMETER)?;
        let amount = read_amount(&fields)?;
        let currency = read_currency(&fields)?;
        let shop_transaction_id = fields.required_str_coded(
            "shopTransactionID",
            code::SHOP_TRANSACTION_ID_MISSING,
            code::SHOP_TRANSACTION_ID,
        )?;
        check_shop_transaction_id(shop_transaction_id)?;
        let response_urls = read_response_urls(&fields)?;
        let pay_by_link = read_channel(&fields)?;
        Ok(Self {
            shop_login,
            amount,
            currency,
            shop_transaction_id,
            response_urls,
            pay_by_link,
        })
    }
}

/// `paymentChannel`: absent, or `channelType` a list of the channels
/// pay-by-link knows (a single name taken as a list of one); another name
/// is the real service's 1442, "wrong channelType".
fn read_channel(fields: &Fields<'_>) -> Result<bool, ApiError> {
    let Some(channel) = fields.optional_object("paymentChannel", "paymentChannel")? else {
        return Ok(false);
    };
    let wrong = |why: &str| {
        ApiError::field(
            code::WRONG_CHANNEL_TYPE,
            channel.path_of("channelType"),
            why.to_owned(),
        )
    };
    let names: Vec<&str> = match channel.get("channelType") {
        None | Some(Json::Null) => return Err(wrong("is required")),
        Some(Json::String(name)) => vec![name],
        Some(Json::Array(items)) => items
            .iter()
            .map(|item| match item {
                Json::String(name) => Ok(&**name),
                _ => Err(wrong("must list channel names")),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(wrong("must list channel names")),
    };
    if names.is_empty() {
        return Err(wrong("must name a channel"));
    }
    match names.iter().find(|name| !CHANNEL_TYPES.contains(name)) {
        Some(_) => Err(wrong("must be EMAIL or QRCODE")),
        None => Ok(true),
    }
}

/// An amount, each refusal with the real service's code.
pub(crate) fn parse_amount(text: &str) -> Result<Amount, ApiError> {
    Amount::parse(text).map_err(|e| {
        let code = match e {
            AmountError::NotNumeric => code::AMOUNT_NOT_NUMERIC,
            AmountError::Decimals => code::AMOUNT_DECIMALS,
            AmountError::Separator => code::AMOUNT_SEPARATOR,
            AmountError::TooSmall => code::AMOUNT_TOO_SMALL,
            AmountError::TooLarge => code::AMOUNT_TOO_LARGE,
        };
        ApiError::field(code, "amount", e.to_string())
    })
}

/// The `amount` field: missing is 1112, another type than a string 1113.
pub(crate) fn read_amount(fields: &Fields<'_>) -> Result<Amount, ApiError> {
    parse_amount(fields.required_str_coded(
        "amount",
        code::AMOUNT_MISSING,
        code::AMOUNT_NOT_NUMERIC,
    )?)
}

/// The `currency` field, with the real service's code.
pub(crate) fn read_currency(fields: &Fields<'_>) -> Result<Currency, ApiError> {
    Currency::parse(fields.required_str("currency", code::INVALID_CURRENCY)?).ok_or_else(|| {
        ApiError::field(
            code::INVALID_CURRENCY,
            "currency",
            "must be a three-letter upper-case ISO 4217 code",
        )
    })
}

/// Missing or empty is 1115, too long 1116 (the real service's codes);
/// a control character 4801, invalid.
fn check_shop_transaction_id(id: &str) -> Result<(), ApiError> {
    let (code, reason) = if id.is_empty() {
        (code::SHOP_TRANSACTION_ID_MISSING, "must not be empty")
    } else if id.chars().count() > MAX_SHOP_TRANSACTION_ID {
        (
            code::SHOP_TRANSACTION_ID_TOO_LONG,
            "must be at most 50 characters",
        )
    } else if id.chars().any(char::is_control) {
        (
            code::SHOP_TRANSACTION_ID,
            "must not contain control characters",
        )
    } else {
        return Ok(());
    };
    Err(ApiError::field(code, "shopTransactionID", reason))
}
