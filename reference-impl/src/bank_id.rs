//! The bank's identifier of a payment's transaction, `bankTransactionID`:
//! made of its `paymentID` by a bijection of the numbers below 10^12, so
//! each payment's is its own, apart from its `paymentID` (a merchant's
//! code that mixes the two up finds nothing), and the store finds the
//! payment again without an index of its own.

/// The multiplier that makes a `bankTransactionID` of a `paymentID`: odd
/// and not a multiple of 5, so a bijection of the numbers below 10^12.
const BANK_ID_FACTOR: u64 = 7_919;
/// Its inverse modulo 10^12: `BANK_ID_FACTOR * BANK_ID_INVERSE ≡ 1`.
const BANK_ID_INVERSE: u64 = 524_940_017_679;
const BANK_ID_MODULUS: u64 = 1_000_000_000_000;

/// The `bankTransactionID` of a `paymentID`: a bijection of the 12-digit
/// numbers, so each payment's is its own and the store finds the payment
/// again without an index ([`payment_id_of_bank`]).
pub fn bank_transaction_id(payment_id: u64) -> u64 {
    let product = u128::from(payment_id % BANK_ID_MODULUS) * u128::from(BANK_ID_FACTOR);
    u64::try_from(product % u128::from(BANK_ID_MODULUS)).unwrap_or(0)
}

/// The `paymentID` a `bankTransactionID` was made of.
pub fn payment_id_of_bank(bank_id: u64) -> u64 {
    let product = u128::from(bank_id % BANK_ID_MODULUS) * u128::from(BANK_ID_INVERSE);
    u64::try_from(product % u128::from(BANK_ID_MODULUS)).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bank_transaction_id_leads_back_to_its_payment_id() {
        for id in [100_000_000_000, 123_456_789_012, 499_999_999_999, 1] {
            let bank = bank_transaction_id(id);
            assert_ne!(bank, id);
            assert_eq!(payment_id_of_bank(bank), id % BANK_ID_MODULUS, "{id}");
        }
    }
}
