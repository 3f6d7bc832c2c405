//! Amounts and currencies as the create request carries them.

use std::fmt;

/// The most characters an amount is written with, as the real service takes
/// it (docs/real-service.md, RS-AMOUNTS): `999999999` and `999999.99` are the
/// largest.
pub const MAX_AMOUNT_CHARS: usize = 9;

/// An amount greater than zero, written with a dot and up to two decimals
/// (`100`, `72.5`, `72.50`), in at most [`MAX_AMOUNT_CHARS`] characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Amount {
    minor: u64,
}

/// Why an amount is refused; each maps to one of the service's error codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AmountError {
    /// Not digits, optionally a dot and digits (`1113`).
    #[error("must be a number written with a dot and at most two decimals, like 10.50")]
    NotNumeric,
    /// More than two decimals (`1114`).
    #[error("must have at most two decimal digits, like 10.50")]
    Decimals,
    /// A comma where the dot belongs (`1456`).
    #[error("must use a dot as the decimal separator, like 10.50")]
    Separator,
    /// Zero (`1146`).
    #[error("must be greater than zero")]
    TooSmall,
    /// More than [`MAX_AMOUNT_CHARS`] characters (`1147`).
    #[error("must be written in at most 9 characters: at most 999999999, or 999999.99")]
    TooLarge,
}

impl Amount {
    /// Parses the `amount` field: digits, then optionally a dot and one or
    /// two digits.
    pub fn parse(text: &str) -> Result<Self, AmountError> {
        let (units, decimals) = match text.split_once('.') {
            Some((units, decimals)) => (units, Some(decimals)),
            None => match text.split_once(',') {
                Some((units, decimals)) if is_digits(units) && is_digits(decimals) => {
                    return Err(AmountError::Separator);
                }
                _ => (text, None),
            },
        };
        if !is_digits(units) || decimals.is_some_and(|d| !is_digits(d)) {
            return Err(AmountError::NotNumeric);
        }
        let decimals = decimals.unwrap_or("");
        if decimals.len() > 2 {
            return Err(AmountError::Decimals);
        }
        // No leading zeros beyond a single "0" keeps one spelling per amount.
        if units.len() > 1 && units.starts_with('0') {
            return Err(AmountError::NotNumeric);
        }
        if text.len() > MAX_AMOUNT_CHARS {
            return Err(AmountError::TooLarge);
        }
        // At most 9 digits in all, so these parse and cannot overflow.
        let units: u64 = units.parse().map_err(|_| AmountError::NotNumeric)?;
        let cents: u64 = format!("{decimals:0<2}")
            .parse()
            .map_err(|_| AmountError::NotNumeric)?;
        match units * 100 + cents {
            0 => Err(AmountError::TooSmall),
            minor => Ok(Self { minor }),
        }
    }

    /// The amount in hundredths.
    pub fn minor(self) -> u64 {
        self.minor
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
        for (text, minor) in [
            ("10.00", 1000),
            ("0.01", 1),
            ("100", 10_000),
            ("72.5", 7250),
            ("72.50", 7250),
            ("0.5", 50),
            ("999999999", 99_999_999_900),
            ("999999.99", 99_999_999),
        ] {
            assert_eq!(Amount::parse(text).map(|a| a.minor), Ok(minor), "{text:?}");
        }
        assert_eq!(
            Amount::parse("1234.5").map(|a| a.to_string()),
            Ok("1234.50".into())
        );
    }

    #[test]
    fn malformed_amounts_name_the_reason() {
        let cases = [
            ("10.000", AmountError::Decimals),
            ("0.125", AmountError::Decimals),
            ("10,00", AmountError::Separator),
            ("10,5", AmountError::Separator),
            ("1,000.00", AmountError::NotNumeric),
            ("10.", AmountError::NotNumeric),
            ("-1.00", AmountError::NotNumeric),
            ("1e3", AmountError::NotNumeric),
            ("ten", AmountError::NotNumeric),
            ("", AmountError::NotNumeric),
            (".50", AmountError::NotNumeric),
            ("01.00", AmountError::NotNumeric),
            (" 10", AmountError::NotNumeric),
            ("0.00", AmountError::TooSmall),
            ("0", AmountError::TooSmall),
            ("1000000000", AmountError::TooLarge),
            ("1000000.00", AmountError::TooLarge),
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
