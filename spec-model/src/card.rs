//! Card data as the contract lets it be shown: a card number as its first
//! six and last four digits, nothing of a security code.

/// Masks a primary account number: first six and last four characters
/// kept, the rest as `*`. A string shorter than a card number (12) is
/// masked whole, so nothing of it shows.
pub fn mask_pan(pan: &str) -> String {
    let n = pan.chars().count();
    if n < 12 {
        return "*".repeat(n);
    }
    pan.chars()
        .enumerate()
        .map(|(i, c)| if i < 6 || i >= n - 4 { c } else { '*' })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn six_and_four_are_kept_of_a_card_number() {
        assert_eq!(mask_pan("4349940199004549"), "434994******4549");
        assert_eq!(mask_pan("ééé456789012éé"), "ééé456****12éé");
    }

    #[test]
    fn shorter_strings_are_masked_whole() {
        assert_eq!(mask_pan("12345678901"), "***********");
        assert_eq!(mask_pan(""), "");
    }
}
