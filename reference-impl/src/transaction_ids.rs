//! How the operations after submit name a payment: by `paymentID`,
//! `bankTransactionID` or `shopTransactionID`, at least one of them, each
//! given one agreeing with the others (docs/real-service.md, RS-DETAIL: "at
//! least one of the three IDs is required"). A merchant finds only its own
//! payments; one that is not theirs is not found, so nothing tells a
//! stranger it exists.

use uuid::Uuid;

use crate::{
    bank_id::payment_id_of_bank,
    error::{ApiError, code},
    request::Fields,
    state::Service,
};

/// The identifiers a request names a payment by.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct TransactionIds<'a> {
    /// `paymentID` (also read as `paymentId`, as a public client sends it).
    pub payment_id: Option<u64>,
    /// `bankTransactionID`.
    pub bank_transaction_id: Option<u64>,
    /// `shopTransactionID`.
    pub shop_transaction_id: Option<&'a str>,
}

impl<'a> TransactionIds<'a> {
    /// Reads the identifiers of a body; at least one must be given.
    pub fn read(fields: &Fields<'a>) -> Result<Self, ApiError> {
        let digits = |name: &str| -> Result<Option<u64>, ApiError> {
            let Some(text) = fields.optional_str(name)?.filter(|t| !t.is_empty()) else {
                return Ok(None);
            };
            parse_digits(text)
                .map(Some)
                .ok_or_else(|| ApiError::field(code::WRONG_PAYMENT_ID, name, "must be digits"))
        };
        let payment_id = match digits("paymentID")? {
            Some(id) => Some(id),
            None => digits("paymentId")?,
        };
        let ids = Self {
            payment_id,
            bank_transaction_id: digits("bankTransactionID")?,
            shop_transaction_id: fields
                .optional_str("shopTransactionID")?
                .filter(|t| !t.is_empty()),
        };
        if ids == Self::default() {
            return Err(ApiError::NoTransactionId);
        }
        Ok(ids)
    }

    /// The token of the one payment of `merchant` these name.
    pub fn find(&self, service: &Service, merchant: u32) -> Result<Uuid, ApiError> {
        let by_number = self
            .payment_id
            .or(self.bank_transaction_id.map(payment_id_of_bank));
        let token = match (by_number, self.shop_transaction_id) {
            (Some(id), _) => service
                .store
                .token_of(id)
                .ok_or(ApiError::TransactionNotFound)?,
            (None, Some(reference)) => {
                let mut found = Vec::new();
                service.store.for_each(|token, p| {
                    if p.merchant == merchant && &*p.shop_transaction_id == reference {
                        found.push(*token);
                    }
                });
                match found.as_slice() {
                    [] => return Err(ApiError::TransactionNotFound),
                    [token] => *token,
                    _ => return Err(ApiError::TransactionAmbiguous),
                }
            }
            (None, None) => return Err(ApiError::NoTransactionId),
        };
        let agrees = service
            .store
            .with_payment(&token, |p| {
                p.merchant == merchant
                    && self.payment_id.is_none_or(|id| id == p.id)
                    && self
                        .bank_transaction_id
                        .is_none_or(|bank| bank == p.bank_transaction_id())
                    && self
                        .shop_transaction_id
                        .is_none_or(|reference| reference == &*p.shop_transaction_id)
            })
            .unwrap_or(false);
        if agrees {
            Ok(token)
        } else {
            Err(ApiError::TransactionNotFound)
        }
    }
}

/// A string of 1 to 19 ASCII digits as a number.
pub fn parse_digits(text: &str) -> Option<u64> {
    if text.is_empty() || text.len() > 19 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_digits_of_a_number() {
        assert_eq!(parse_digits("123456789012"), Some(123_456_789_012));
        for text in ["", "12a", "-1", " 1", "99999999999999999999"] {
            assert_eq!(parse_digits(text), None, "{text:?}");
        }
    }
}
