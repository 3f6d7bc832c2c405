//! Who calls an operation the real service takes either credential for
//! (`payment/detail`, the checks): a merchant by its API key, or the
//! holder of one payment's token, then bound to that payment. With both
//! headers, the API key decides, as it does for a merchant's server that
//! sends both.

use http::{HeaderMap, header};
use uuid::Uuid;

use crate::{
    create::authenticate, error::ApiError, request::submit::payment_token, state::Service,
};

/// Who asks.
pub(crate) struct Caller {
    /// The merchant asking, or the one whose payment the token is.
    pub merchant: u32,
    /// With a token: the only payment it speaks for.
    pub token: Option<Uuid>,
}

impl Caller {
    /// The caller the headers name.
    pub fn of(service: &Service, headers: &HeaderMap) -> Result<Self, ApiError> {
        if headers.contains_key(header::AUTHORIZATION) || !headers.contains_key("paymentToken") {
            return Ok(Self {
                merchant: authenticate(service, headers)?,
                token: None,
            });
        }
        let token = payment_token(headers)?;
        let merchant = service.store.with_payment(&token, |p| p.merchant)?;
        Ok(Self {
            merchant,
            token: Some(token),
        })
    }
}
