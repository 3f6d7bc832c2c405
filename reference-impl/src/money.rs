//! Amounts and currencies as the create request carries them.

use std::fmt;

/// The largest amount the reference profile accepts, in minor units.
pub const MAX_AMOUNT_MINOR: u64 = 99_999_999_999;

/// An amount greater than zero, written `N.NN` with a dot and two decimals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Amount {
    minor: u64,
}

/// Why an amount is refused; each maps to one of the service's error codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AmountError {
    /// Not digits, a dot and digits.
    #[error("must be a number written with a dot and two decimals, like 10.00")]
    NotNumeric,
    /// Not exactly two decimals.
    #[error("must have exactly two decimal digits, like 10.00")]
    Decimals,
    /// Zero.
    #[error("must be greater than zero")]
    TooSmall,
    /// Over [`MAX_AMOUNT_MINOR`].
    #[error("must be at most 999999999.99")]
    TooLarge,
}

impl Amount {
    /// Parses the `amount` field.
    pub fn parse(text: &str) -> Result<Self, AmountError> {
        let Some((units, decimals)) = text.split_once('.') else {
            return Err(if is_digits(text) {
                AmountError::Decimals
            } else {
                AmountError::NotNumeric
            });
        };
        if !is_digits(units) || !is_digits(decimals) {
            return Err(AmountError::NotNumeric);
        }
        if decimals.len() != 2 {
            return Err(AmountError::Decimals);
        }
        // No leading zeros beyond a single "0" keeps one spelling per amount.
        if units.len() > 1 && units.starts_with('0') {
            return Err(AmountError::NotNumeric);
        }
        if units.len() > 9 {
            return Err(AmountError::TooLarge);
        }
        let units: u64 = units.parse().map_err(|_| AmountError::NotNumeric)?;
        let decimals: u64 = decimals.parse().map_err(|_| AmountError::NotNumeric)?;
        let minor = units * 100 + decimals;
        match minor {
            0 => Err(AmountError::TooSmall),
            m if m > MAX_AMOUNT_MINOR => Err(AmountError::TooLarge),
            minor => Ok(Self { minor }),
        }
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:02}", self.minor / 100, self.minor % 100)
    }
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// An active ISO 4217 currency code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Currency([u8; 3]);

impl Currency {
    /// Accepts a three-letter upper-case code from ISO 4217's list of active currencies.
    pub fn parse(code: &str) -> Option<Self> {
        let bytes: [u8; 3] = code.as_bytes().try_into().ok()?;
        ISO_4217.binary_search(&code).ok().map(|_| Self(bytes))
    }

    /// The three-letter code.
    pub fn code(&self) -> &str {
        std::str::from_utf8(&self.0).expect("currency codes are ASCII")
    }
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// ISO 4217 active currency codes (list one, 2025), sorted for binary search.
/// Funds codes, precious metals and the testing code XTS are left out: a
/// payment is made in a currency people pay with.
const ISO_4217: &[&str] = &[
    "AED", "AFN", "ALL", "AMD", "AOA", "ARS", "AUD", "AWG", "AZN", "BAM", "BBD", "BDT", "BHD",
    "BIF", "BMD", "BND", "BOB", "BRL", "BSD", "BTN", "BWP", "BYN", "BZD", "CAD", "CDF", "CHF",
    "CLP", "CNY", "COP", "CRC", "CUP", "CVE", "CZK", "DJF", "DKK", "DOP", "DZD", "EGP", "ERN",
    "ETB", "EUR", "FJD", "FKP", "GBP", "GEL", "GHS", "GIP", "GMD", "GNF", "GTQ", "GYD", "HKD",
    "HNL", "HTG", "HUF", "IDR", "ILS", "INR", "IQD", "IRR", "ISK", "JMD", "JOD", "JPY", "KES",
    "KGS", "KHR", "KMF", "KPW", "KRW", "KWD", "KYD", "KZT", "LAK", "LBP", "LKR", "LRD", "LSL",
    "LYD", "MAD", "MDL", "MGA", "MKD", "MMK", "MNT", "MOP", "MRU", "MUR", "MVR", "MWK", "MXN",
    "MYR", "MZN", "NAD", "NGN", "NIO", "NOK", "NPR", "NZD", "OMR", "PAB", "PEN", "PGK", "PHP",
    "PKR", "PLN", "PYG", "QAR", "RON", "RSD", "RUB", "RWF", "SAR", "SBD", "SCR", "SDG", "SEK",
    "SGD", "SHP", "SLE", "SOS", "SRD", "SSP", "STN", "SVC", "SYP", "SZL", "THB", "TJS", "TMT",
    "TND", "TOP", "TRY", "TTD", "TWD", "TZS", "UAH", "UGX", "USD", "UYU", "UZS", "VED", "VES",
    "VND", "VUV", "WST", "XAF", "XCD", "XCG", "XOF", "XPF", "YER", "ZAR", "ZMW", "ZWG",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_4217_list_is_sorted_for_binary_search() {
        assert!(ISO_4217.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn well_formed_amounts_parse_to_minor_units() {
        assert_eq!(Amount::parse("10.00").map(|a| a.minor), Ok(1000));
        assert_eq!(Amount::parse("0.01").map(|a| a.minor), Ok(1));
        assert_eq!(
            Amount::parse("999999999.99").map(|a| a.minor),
            Ok(MAX_AMOUNT_MINOR)
        );
        assert_eq!(
            Amount::parse("1234.50").map(|a| a.to_string()),
            Ok("1234.50".into())
        );
    }

    #[test]
    fn malformed_amounts_name_the_reason() {
        let cases = [
            ("10", AmountError::Decimals),
            ("10.0", AmountError::Decimals),
            ("10.000", AmountError::Decimals),
            ("10,00", AmountError::NotNumeric),
            ("-1.00", AmountError::NotNumeric),
            ("1e3.00", AmountError::NotNumeric),
            ("", AmountError::NotNumeric),
            (".50", AmountError::NotNumeric),
            ("01.00", AmountError::NotNumeric),
            ("0.00", AmountError::TooSmall),
            ("1000000000.00", AmountError::TooLarge),
            ("99999999999999999999999.00", AmountError::TooLarge),
        ];
        for (text, expected) in cases {
            assert_eq!(Amount::parse(text), Err(expected), "{text:?}");
        }
    }

    #[test]
    fn currencies_must_be_active_upper_case_iso_codes() {
        assert_eq!(
            Currency::parse("EUR").map(|c| c.to_string()),
            Some("EUR".into())
        );
        for code in ["eur", "EURO", "EU", "XXX", "ABC", ""] {
            assert!(Currency::parse(code).is_none(), "{code:?}");
        }
    }
}
