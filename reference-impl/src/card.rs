//! Card data as the service handles it: a validated card number that shows
//! only its first six and last four digits when printed, and the expiry date.

use std::fmt;

/// A card number of 12 to 19 digits with a valid Luhn check digit.
///
/// Its `Debug` and `Display` show the masked form (`477571******2026`), so a
/// full number cannot reach a log by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct CardNumber(String);

/// Why a string is not a card number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CardNumberError {
    /// Not digits only.
    #[error("must be digits only")]
    NotNumeric,
    /// Not 12 to 19 digits.
    #[error("must be 12 to 19 digits")]
    Length,
    /// The digits fail the Luhn check.
    #[error("fails the check digit")]
    CheckDigit,
}

impl CardNumber {
    /// Validates a card number written as digits only.
    pub fn parse(digits: &str) -> Result<Self, CardNumberError> {
        if !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(CardNumberError::NotNumeric);
        }
        if !(12..=19).contains(&digits.len()) {
            return Err(CardNumberError::Length);
        }
        if !luhn_valid(digits) {
            return Err(CardNumberError::CheckDigit);
        }
        Ok(Self(digits.to_owned()))
    }

    /// The first six and last four digits, the rest as `*`.
    pub fn masked(&self) -> String {
        mask_pan(&self.0)
    }

    /// Its company ([`company`]).
    pub fn company(&self) -> &'static str {
        company(&self.0)
    }

    /// Every digit: for the sandbox's own test cards, which are published
    /// (their table in the documentation and on the sandbox's pages), never
    /// for a buyer's card.
    pub fn test_card_digits(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for CardNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CardNumber({})", self.masked())
    }
}

impl fmt::Display for CardNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.masked())
    }
}

/// Masks a primary account number: first six and last four digits kept.
/// Shorter strings are masked whole, so nothing of them shows.
pub fn mask_pan(pan: &str) -> String {
    if pan.is_ascii() {
        // Digits, as every card number the service accepts: byte by byte.
        let n = pan.len();
        if n < 12 {
            return "*".repeat(n);
        }
        let mut masked = String::with_capacity(n);
        masked.push_str(&pan[..6]);
        masked.extend(std::iter::repeat_n('*', n - 10));
        masked.push_str(&pan[n - 4..]);
        return masked;
    }
    let n = pan.chars().count();
    if n < 12 {
        return "*".repeat(n);
    }
    pan.chars()
        .enumerate()
        .map(|(i, c)| if i < 6 || i >= n - 4 { c } else { '*' })
        .collect()
}

/// Whether `digits` (ASCII digits only) pass the card numbers' check digit.
pub(crate) fn luhn_valid(digits: &str) -> bool {
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0');
            if i % 2 == 1 {
                let doubled = d * 2;
                if doubled > 9 { doubled - 9 } else { doubled }
            } else {
                d
            }
        })
        .sum();
    sum % 10 == 0
}

/// A card's expiry: the last month in which it can be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Expiry {
    /// Four-digit year.
    pub year: u16,
    /// Month, 1 to 12.
    pub month: u8,
}

/// Why an expiry date is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExpiryError {
    /// `expMonth` is not two digits from 01 to 12.
    #[error("must be two digits from 01 to 12")]
    Month,
    /// `expYear` is not two digits.
    #[error("must be two digits")]
    Year,
    /// The card expired before the current month.
    #[error("the card has expired")]
    Expired,
}

impl Expiry {
    /// Parses the two-digit month and year of the submit request and checks
    /// the card has not expired by `today` (year, month).
    pub fn parse(month: &str, year: &str, today: (u16, u8)) -> Result<Self, ExpiryError> {
        let two_digits = |s: &str| s.len() == 2 && s.bytes().all(|b| b.is_ascii_digit());
        if !two_digits(month) {
            return Err(ExpiryError::Month);
        }
        let month: u8 = month.parse().map_err(|_| ExpiryError::Month)?;
        if !(1..=12).contains(&month) {
            return Err(ExpiryError::Month);
        }
        if !two_digits(year) {
            return Err(ExpiryError::Year);
        }
        let year: u16 = year.parse().map_err(|_| ExpiryError::Year)?;
        let expiry = Self {
            year: 2000 + year,
            month,
        };
        let (this_year, this_month) = today;
        if expiry
            < (Self {
                year: this_year,
                month: this_month,
            })
        {
            return Err(ExpiryError::Expired);
        }
        Ok(expiry)
    }
}

/// Whether a security code has the shape of one: 3 or 4 digits.
/// A card's company by its first digit, for a number or a masked one
/// (`477571******2026`): `VISA`, `MASTERCARD`, else `CREDITCARD`.
pub fn company(card: &str) -> &'static str {
    match card.as_bytes().first() {
        Some(b'4') => "VISA",
        Some(b'5' | b'2') => "MASTERCARD",
        _ => "CREDITCARD",
    }
}

pub fn cvv_well_formed(cvv: &str) -> bool {
    (3..=4).contains(&cvv.len()) && cvv.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_digit_fails_the_check_digit() {
        assert_eq!(
            CardNumber::parse("4775718800002027"),
            Err(CardNumberError::CheckDigit)
        );
    }

    #[test]
    fn short_and_long_numbers_have_the_wrong_length() {
        for pan in ["42424242424", "42424242424242424242", ""] {
            assert_eq!(
                CardNumber::parse(pan),
                Err(CardNumberError::Length),
                "{pan:?}"
            );
        }
    }

    #[test]
    fn numbers_with_other_characters_than_digits_are_not_numeric() {
        for pan in [
            "4242 4242 4242 4242",
            "4242-4242-4242-4242",
            "42424242424242a",
        ] {
            assert_eq!(
                CardNumber::parse(pan),
                Err(CardNumberError::NotNumeric),
                "{pan:?}"
            );
        }
    }

    #[test]
    fn debug_and_display_show_first_six_and_last_four() {
        let card = CardNumber::parse("4775718800002026").expect("valid");
        assert_eq!(card.to_string(), "477571******2026");
        assert_eq!(format!("{card:?}"), "CardNumber(477571******2026)");
    }

    #[test]
    fn short_strings_are_masked_whole() {
        assert_eq!(mask_pan("12345"), "*****");
        assert_eq!(mask_pan("1234é"), "*****");
    }

    #[test]
    fn digits_and_other_characters_keep_six_and_four() {
        assert_eq!(mask_pan("123456789012"), "123456**9012");
        assert_eq!(mask_pan("1234567890123456789"), "123456*********6789");
        assert_eq!(mask_pan("ééé456789012éé"), "ééé456****12éé");
    }

    #[test]
    fn expiry_in_the_current_month_is_accepted_and_the_month_before_is_not() {
        assert!(Expiry::parse("11", "26", (2026, 11)).is_ok());
        assert_eq!(
            Expiry::parse("10", "26", (2026, 11)),
            Err(ExpiryError::Expired)
        );
        assert_eq!(
            Expiry::parse("12", "25", (2026, 11)),
            Err(ExpiryError::Expired)
        );
    }

    #[test]
    fn malformed_months_and_years_are_refused() {
        for month in ["00", "13", "1", "ab", "011"] {
            assert_eq!(
                Expiry::parse(month, "30", (2026, 1)),
                Err(ExpiryError::Month)
            );
        }
        for year in ["2030", "3", "x0"] {
            assert_eq!(Expiry::parse("01", year, (2026, 1)), Err(ExpiryError::Year));
        }
    }

    #[test]
    fn cvv_is_three_or_four_digits() {
        assert!(cvv_well_formed("123"));
        assert!(cvv_well_formed("1234"));
        for cvv in ["12", "12345", "12a", ""] {
            assert!(!cvv_well_formed(cvv), "{cvv:?}");
        }
    }
}
