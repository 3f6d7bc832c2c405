//! Every way an API call can be refused, each knowing its HTTP status, its
//! envelope `error.code` and its description: the reference profile's error
//! table, also written into `spec/openapi.yaml`.

use http::StatusCode;

/// Error codes of the reference profile. Those with a counterpart on the real
/// service use its number; the `94xx` family answers HTTP-level problems the
/// real service's documentation does not cover.
pub mod code {
    /// Request correctly processed.
    pub const OK: &str = "0";
    /// Invalid parameter value.
    pub const INVALID_PARAMETER: &str = "1105";
    /// Invalid currency code.
    pub const INVALID_CURRENCY: &str = "1111";
    /// Amount missing.
    pub const AMOUNT_MISSING: &str = "1112";
    /// Amount not numeric.
    pub const AMOUNT_NOT_NUMERIC: &str = "1113";
    /// Amount with more decimal digits than two.
    pub const AMOUNT_DECIMALS: &str = "1114";
    /// Amount with another decimal separator than a dot.
    pub const AMOUNT_SEPARATOR: &str = "1456";
    /// `shopTransactionID` missing.
    pub const SHOP_TRANSACTION_ID_MISSING: &str = "1115";
    /// `shopTransactionID` too long.
    pub const SHOP_TRANSACTION_ID_TOO_LONG: &str = "1116";
    /// Card number not numeric.
    pub const CARD_NOT_NUMERIC: &str = "1118";
    /// Card number of the wrong length.
    pub const CARD_LENGTH: &str = "1119";
    /// Card number failing its check digit.
    pub const CARD_CHECK_DIGIT: &str = "1120";
    /// Invalid expiry month.
    pub const EXPIRY_MONTH: &str = "1124";
    /// Invalid expiry year.
    pub const EXPIRY_YEAR: &str = "1125";
    /// Card expired.
    pub const CARD_EXPIRED: &str = "1126";
    /// Invalid e-mail address.
    pub const INVALID_EMAIL: &str = "1127";
    /// `paymentChannel.channelType` names no channel pay-by-link knows.
    pub const WRONG_CHANNEL_TYPE: &str = "1442";
    /// Shop not recognized.
    pub const SHOP_NOT_RECOGNIZED: &str = "1131";
    /// Transaction already processed.
    pub const ALREADY_PROCESSED: &str = "1137";
    /// Card number or expiry date missing.
    pub const CARD_DATA_INCOMPLETE: &str = "1138";
    /// Amount too small.
    pub const AMOUNT_TOO_SMALL: &str = "1146";
    /// Amount too large.
    pub const AMOUNT_TOO_LARGE: &str = "1147";
    /// Security code missing or wrong.
    pub const CVV: &str = "1149";
    /// Invalid API key.
    pub const INVALID_API_KEY: &str = "1166";
    /// Input not in the correct format.
    pub const INPUT_FORMAT: &str = "1173";
    /// Element not found.
    pub const ELEMENT_NOT_FOUND: &str = "1400";
    /// Invalid paymentToken: not a token the service issued.
    pub const INVALID_PAYMENT_TOKEN: &str = "1170";
    /// Authentication header missing.
    pub const MISSING_AUTH_HEADER: &str = "1171";
    /// Expired paymentToken: issued, and its lifetime is over.
    pub const EXPIRED_PAYMENT_TOKEN: &str = "1457";
    /// Authentication method not allowed: a `paymentToken` past its
    /// `payment/detail` reads.
    pub const AUTHENTICATION_METHOD_NOT_ALLOWED: &str = "1404";
    /// Credit-card data missing: no payment method's details at all.
    pub const CARD_DATA_MISSING: &str = "1461";
    /// Invalid shopTransactionID.
    pub const SHOP_TRANSACTION_ID: &str = "4801";
    /// A `paymentID` that is not one (digits).
    pub const WRONG_PAYMENT_ID: &str = "1413";
    /// No transaction has the identifiers given.
    pub const TRANSACTION_NOT_FOUND: &str = "2011";
    /// Several transactions have the `shopTransactionID` given.
    pub const TRANSACTION_AMBIGUOUS: &str = "2012";
    /// None of `paymentID`, `shopTransactionID`, `bankTransactionID` given.
    pub const TRANSACTION_IDS_EMPTY: &str = "2016";
    /// No such resource.
    pub const NOT_FOUND: &str = "9404";
    /// Method not allowed on this path.
    pub const METHOD_NOT_ALLOWED: &str = "9405";
    /// The request body did not arrive in time.
    pub const REQUEST_TIMEOUT: &str = "9408";
    /// Request body too large.
    pub const PAYLOAD_TOO_LARGE: &str = "9413";
    /// Request body is not JSON.
    pub const UNSUPPORTED_MEDIA_TYPE: &str = "9415";
    /// Request headers too large.
    pub const HEADERS_TOO_LARGE: &str = "9431";
    /// A `Host` the sandbox does not answer to.
    pub const MISDIRECTED: &str = "9421";
    /// Technical error.
    pub const TECHNICAL_ERROR: &str = "9999";
}

/// Transaction-level codes, carried in the submit payload with `error.code "0"`.
pub mod transaction_code {
    /// The card is enrolled in 3-D Secure: the buyer must authenticate.
    pub const AUTHENTICATION_REQUIRED: &str = "8006";
    /// Description the real service gives with `8006`.
    pub const AUTHENTICATION_REQUIRED_DESCRIPTION: &str = "Verify By Visa";
    /// The issuer declined the authorization.
    pub const DECLINED: &str = crate::outcomes::DENIED.code;
    /// Description of [`DECLINED`].
    pub const DECLINED_DESCRIPTION: &str = crate::outcomes::DENIED.description;
    /// The sandbox does not know the card.
    pub const UNKNOWN_CARD: &str = crate::outcomes::UNKNOWN_CARD.code;
    /// Description of [`UNKNOWN_CARD`].
    pub const UNKNOWN_CARD_DESCRIPTION: &str = crate::outcomes::UNKNOWN_CARD.description;
}

/// A refused API call.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ApiError {
    /// A field is missing, has the wrong type, or an invalid value.
    #[error("{field} {reason}")]
    InvalidField {
        /// Envelope code: `1105` or the specific code of the field's check.
        code: &'static str,
        /// Dotted path of the field in the request body (or the header's name).
        field: String,
        /// What is wrong with it, without echoing the value.
        reason: String,
    },
    /// The body is not well-formed JSON, or not a JSON object.
    #[error("request body is not a JSON object: {0}")]
    MalformedJson(String),
    /// No `Authorization` header on create.
    #[error("authentication header missing: Authorization: apikey <API_KEY>")]
    MissingApiKey,
    /// An `Authorization` header that is not `apikey` and a known key.
    #[error("invalid API key")]
    InvalidApiKey,
    /// No `paymentToken` header on submit.
    #[error("authentication header missing: paymentToken")]
    MissingPaymentToken,
    /// A `paymentToken` the service never issued, or not a token at all.
    #[error("invalid paymentToken")]
    InvalidPaymentToken,
    /// A `paymentToken` the service issued whose lifetime is over.
    #[error("expired paymentToken")]
    ExpiredPaymentToken,
    /// A `paymentToken` that has read its payment's detail as often as it
    /// may (docs/real-service.md, RS-DETAIL: 5 times in the sandbox).
    #[error(
        "authentication method not allowed: this paymentToken has read the payment's detail {0} times; use the API key"
    )]
    TokenReadsSpent(u8),
    /// The shop login does not belong to the key or the payment.
    #[error("shop not recognized: shopLogin {0}")]
    ShopNotRecognized(&'static str),
    /// The payment was already submitted.
    #[error("transaction already processed")]
    AlreadyProcessed,
    /// None of the identifiers a payment is named by after submit.
    #[error("paymentID, shopTransactionID or bankTransactionID is required")]
    NoTransactionId,
    /// No payment of the caller's has the identifiers given.
    #[error("transaction not found")]
    TransactionNotFound,
    /// Several payments of the caller's have the `shopTransactionID` given.
    #[error(
        "transaction ambiguous: several payments have this shopTransactionID; name the paymentID"
    )]
    TransactionAmbiguous,
    /// `Content-Type` is not `application/json`.
    #[error("Content-Type must be application/json")]
    UnsupportedMediaType,
    /// The body is over the size limit.
    #[error("request body is larger than {limit} bytes")]
    PayloadTooLarge {
        /// The limit in bytes, which the refusal names so a client can comply.
        limit: usize,
    },
    /// The client took too long to send its body.
    #[error("request body not received within {seconds} seconds")]
    BodyTimeout {
        /// The time it had, which the refusal names.
        seconds: u64,
    },
    /// The request line and headers are over the size limit.
    #[error("request headers are larger than {limit} bytes")]
    HeadersTooLarge {
        /// The limit in bytes, which the refusal names so a client can comply.
        limit: usize,
    },
    /// No such path.
    #[error("no such resource")]
    NotFound,
    /// The request's `Host` is not a name the sandbox serves.
    #[error("this sandbox does not answer to that host name")]
    UnknownHost,
    /// The path exists, not with this method.
    #[error("method not allowed; use {allow}")]
    MethodNotAllowed {
        /// The methods the path takes.
        allow: &'static str,
    },
    /// Something failed inside the service; nothing of it is shown to the caller.
    #[error("technical error")]
    Internal,
}

impl ApiError {
    /// A field-level refusal.
    pub fn field(code: &'static str, field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::InvalidField {
            code,
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// The HTTP status the reference profile answers with.
    pub fn status(&self) -> StatusCode {
        match self {
            Self::InvalidField { .. }
            | Self::MalformedJson(_)
            | Self::ShopNotRecognized(_)
            | Self::AlreadyProcessed
            | Self::NoTransactionId
            | Self::TransactionNotFound
            | Self::TransactionAmbiguous => StatusCode::BAD_REQUEST,
            Self::MissingApiKey
            | Self::InvalidApiKey
            | Self::MissingPaymentToken
            | Self::InvalidPaymentToken
            | Self::ExpiredPaymentToken
            | Self::TokenReadsSpent(_) => StatusCode::FORBIDDEN,
            Self::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            Self::BodyTimeout { .. } => StatusCode::REQUEST_TIMEOUT,
            Self::HeadersTooLarge { .. } => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::UnknownHost => StatusCode::MISDIRECTED_REQUEST,
            Self::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            Self::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The envelope's `error.code`.
    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidField { code, .. } => code,
            Self::MalformedJson(_) => code::INVALID_PARAMETER,
            Self::MissingApiKey | Self::MissingPaymentToken => code::MISSING_AUTH_HEADER,
            Self::InvalidApiKey => code::INVALID_API_KEY,
            Self::InvalidPaymentToken => code::INVALID_PAYMENT_TOKEN,
            Self::ExpiredPaymentToken => code::EXPIRED_PAYMENT_TOKEN,
            Self::TokenReadsSpent(_) => code::AUTHENTICATION_METHOD_NOT_ALLOWED,
            Self::ShopNotRecognized(_) => code::SHOP_NOT_RECOGNIZED,
            Self::AlreadyProcessed => code::ALREADY_PROCESSED,
            Self::NoTransactionId => code::TRANSACTION_IDS_EMPTY,
            Self::TransactionNotFound => code::TRANSACTION_NOT_FOUND,
            Self::TransactionAmbiguous => code::TRANSACTION_AMBIGUOUS,
            Self::UnsupportedMediaType => code::UNSUPPORTED_MEDIA_TYPE,
            Self::PayloadTooLarge { .. } => code::PAYLOAD_TOO_LARGE,
            Self::BodyTimeout { .. } => code::REQUEST_TIMEOUT,
            Self::HeadersTooLarge { .. } => code::HEADERS_TOO_LARGE,
            Self::NotFound => code::NOT_FOUND,
            Self::UnknownHost => code::MISDIRECTED,
            Self::MethodNotAllowed { .. } => code::METHOD_NOT_ALLOWED,
            Self::Internal => code::TECHNICAL_ERROR,
        }
    }
}
