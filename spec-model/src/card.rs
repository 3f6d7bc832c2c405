//! Card data as the contract lets it be shown: a card number as its first
//! six and last four digits, nothing of a security code.

/// Masks a primary account number: first six and last four characters
/// kept, the rest as `*`. A string shorter than a card number (12) is
/// masked whole, so nothing of it shows.
pub fn mask_pan(pan: &str) -> String {
    let chars: Vec<char> = pan.chars().collect();
    match chars.len() {
        short @ 0..12 => "*".repeat(short),
        n => {
            let first: String = chars[..6].iter().collect();
            let last: String = chars[n - 4..].iter().collect();
            format!("{first}{}{last}", "*".repeat(n - 10))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Card numbers keep six and four; anything shorter than a card number
    /// shows nothing; characters count, not bytes.
    #[test]
    fn masking_keeps_six_and_four_of_a_card_number_and_nothing_of_less() {
        let cases = [
            ("4349940199004549", "434994******4549"),
            ("ééé456789012éé", "ééé456****12éé"),
            ("12345678901", "***********"),
            ("", ""),
        ];
        for (pan, shown) in cases {
            assert_eq!(mask_pan(pan), shown, "{pan}");
        }
    }
}
