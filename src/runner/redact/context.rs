//! Secrets found by where they stand: a short code standing alone, a card
//! number written in groups, a security code after its name, the
//! credentials of an address.

use super::MASK;

/// `text` with `secret` replaced where no letter or digit touches it.
pub(super) fn replace_alone(text: &str, secret: &str, replacement: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (at, _) in text.match_indices(secret) {
        if at < last {
            continue;
        }
        let before = text[..at].chars().next_back();
        let after = text[at + secret.len()..].chars().next();
        if before.is_some_and(|c| c.is_alphanumeric()) || after.is_some_and(|c| c.is_alphanumeric())
        {
            continue;
        }
        out.push_str(&text[last..at]);
        out.push_str(replacement);
        last = at + secret.len();
    }
    out.push_str(&text[last..]);
    out
}

/// What reads as a secret by its context, whatever its value: a security
/// code after its name, the credentials of an address.
pub(super) fn by_context(text: String) -> String {
    let text = match mask_named_codes(&text) {
        Some(masked) => masked,
        None => text,
    };
    match mask_userinfo(&text) {
        Some(masked) => masked,
        None => text,
    }
}

/// The words a security code's name begins with, after an optional `card`.
const CODE_NAMES: [&str; 6] = ["cvv", "cvc", "cvn", "csc", "security", "verification"];

/// A 3- or 4-digit code after a name of the security code (`CVV`, `cvc2`,
/// `card_security_code`, `verification value`, each optionally followed by
/// `code`, `number` or `value`) and what people put between them (up to
/// four marks such as `:`, `=`, quotes and spaces, or `is`), masked;
/// `None` when there is none.
fn mask_named_codes(text: &str) -> Option<String> {
    // Most strings redacted (a JSON answer's every value) hold no digit: no
    // code, and no copy of them made to look.
    if !text.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    let lower = text.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut codes: Vec<(usize, usize)> = Vec::new();
    for name in CODE_NAMES {
        for (at, _) in lower.match_indices(name) {
            if !name_starts_at(bytes, at) {
                continue;
            }
            let mut end = at + name.len();
            end = match name {
                "cvv" | "cvc" | "cvn" => end + usize::from(bytes.get(end) == Some(&b'2')),
                "security" => match word_after(bytes, end, &["code"]) {
                    Some(after) => after,
                    None => continue,
                },
                "verification" => match word_after(bytes, end, &["value", "code"]) {
                    Some(after) => after,
                    None => continue,
                },
                _ => end,
            };
            end = word_after(bytes, end, &["code", "number", "value"]).unwrap_or(end);
            if let Some(code) = code_after(bytes, end) {
                codes.push(code);
            }
        }
    }
    if codes.is_empty() {
        return None;
    }
    codes.sort_unstable();
    codes.dedup();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (from, to) in codes {
        if from < last {
            continue;
        }
        out.push_str(&text[last..from]);
        out.push_str(MASK);
        last = to;
    }
    out.push_str(&text[last..]);
    Some(out)
}

fn is_word(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// Whether a name that begins at `at` stands at the start of a word, or
/// after `card` (`card_security_code`, `cardCvv`) that does.
fn name_starts_at(bytes: &[u8], at: usize) -> bool {
    let before = &bytes[..at];
    let alone = |end: usize| end == 0 || !bytes[end - 1].is_ascii_alphanumeric();
    if alone(at) {
        return true;
    }
    let without_separator = before
        .strip_suffix(b"_")
        .or_else(|| before.strip_suffix(b"-"))
        .or_else(|| before.strip_suffix(b" "))
        .unwrap_or(before);
    without_separator
        .strip_suffix(b"card")
        .is_some_and(|card| alone(card.len()))
}

/// Where one of `words` ends, after an optional ` `, `_` or `-` at `from`.
fn word_after(bytes: &[u8], from: usize, words: &[&str]) -> Option<usize> {
    let start = from + usize::from(matches!(bytes.get(from), Some(b' ' | b'_' | b'-')));
    words
        .iter()
        .find(|word| bytes[start.min(bytes.len())..].starts_with(word.as_bytes()))
        .map(|word| start + word.len())
}

/// The span of a 3- or 4-digit code that follows a name ending at `from`.
fn code_after(bytes: &[u8], from: usize) -> Option<(usize, usize)> {
    if bytes.get(from).copied().is_some_and(is_word) && !bytes[from].is_ascii_digit() {
        return None;
    }
    let marks = |from: usize, most: usize| {
        bytes[from..]
            .iter()
            .take(most)
            .take_while(|b| !b.is_ascii_alphanumeric())
            .count()
    };
    let mut at = from + marks(from, 4);
    if bytes[at..].starts_with(b"is") {
        let gap = marks(at + 2, 3);
        if gap > 0 {
            at += 2 + gap;
        }
    }
    let digits = bytes[at..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let ends_word = bytes.get(at + digits).is_none_or(|b| !is_word(*b));
    ((3..=4).contains(&digits) && ends_word).then_some((at, at + digits))
}

/// Every address's credentials (`scheme://user:pass@`) masked; `None`
/// when no address holds any.
fn mask_userinfo(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    for (at, _) in text.match_indices("://") {
        let scheme = bytes[..at]
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-'))
            .count();
        if scheme == 0 || !bytes[at - scheme].is_ascii_alphabetic() {
            continue;
        }
        let from = at + 3;
        let length = bytes[from..]
            .iter()
            .take_while(|b| !b.is_ascii_whitespace() && !b"/?#@\"'<>".contains(b))
            .count();
        if length > 0 && bytes.get(from + length) == Some(&b'@') {
            spans.push((from, from + length));
        }
    }
    if spans.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (from, to) in spans {
        out.push_str(&text[last..from]);
        out.push_str(MASK);
        last = to;
    }
    out.push_str(&text[last..]);
    Some(out)
}

/// `text` with a card number written in groups (`4111 1111-1111 1111`:
/// its digits, one space, dash or dot at most between two) replaced by
/// `shown`, where no letter or digit touches it.
pub(super) fn mask_grouped(text: &str, digits: &[u8], shown: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let first = *digits.first()?;
    let mut out = String::new();
    let mut last = 0;
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] != first || (at > 0 && bytes[at - 1].is_ascii_alphanumeric()) {
            at += 1;
            continue;
        }
        let mut i = at;
        let mut matched = 0;
        while matched < digits.len() && i < bytes.len() {
            if bytes[i] == digits[matched] {
                matched += 1;
                i += 1;
            } else if matched > 0
                && matches!(bytes[i], b' ' | b'-' | b'.')
                && bytes.get(i + 1) == Some(&digits[matched])
            {
                i += 1;
            } else {
                break;
            }
        }
        if matched == digits.len() && bytes.get(i).is_none_or(|b| !b.is_ascii_alphanumeric()) {
            out.push_str(&text[last..at]);
            out.push_str(shown);
            last = i;
            at = i;
        } else {
            at += 1;
        }
    }
    if last == 0 {
        return None;
    }
    out.push_str(&text[last..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::super::*;

    #[test]
    fn a_short_issuer_code_is_masked_where_it_stands_alone() {
        let redactor = Redactor::new(["4321".to_owned()]);
        assert_eq!(
            redactor.text("otp=4321&order=14321&code 4321."),
            "otp=***&order=14321&code ***."
        );
    }

    #[test]
    fn a_card_number_is_masked_in_groups_and_in_base64() {
        use base64::Engine as _;
        let redactor = Redactor::default();
        redactor.add_card_number("4111111111111111");
        for form in [
            "4111 1111 1111 1111",
            "4111-1111-1111-1111",
            "4111.1111.1111.1111",
        ] {
            assert_eq!(
                redactor.text(&format!("card {form}.")),
                "card 411111******1111."
            );
        }
        let encoded = base64::engine::general_purpose::STANDARD.encode("pan=4111111111111111");
        assert!(redactor.text(&encoded).contains(MASK), "{encoded}");
    }

    #[test]
    fn a_security_code_is_masked_by_its_names_and_the_words_before_it() {
        let redactor = Redactor::default();
        for (text, shown) in [
            ("CVV 917 was wrong", "CVV *** was wrong"),
            ("cvv=917&x=1", "cvv=***&x=1"),
            ("card security code: 917", "card security code: ***"),
            ("{\"cvc_code\":\"917\"}", "{\"cvc_code\":\"***\"}"),
            ("the CVC is 0428", "the CVC is ***"),
            ("order 917 shipped", "order 917 shipped"),
        ] {
            assert_eq!(redactor.text(text), shown, "{text}");
        }
        let body = serde_json::json!({"cvn": "917", "card_security_code": 917, "cvcCode": "917"});
        assert!(!redactor.json(&body).to_string().contains("917"));
        assert_eq!(redactor.header("X-CVV", "917"), MASK);
    }

    #[test]
    fn credentials_in_any_address_are_masked() {
        let redactor = Redactor::default();
        assert_eq!(
            redactor.text("GET http://user:pa55@127.0.0.1:8080/x and https://k@h/"),
            "GET http://***@127.0.0.1:8080/x and https://***@h/"
        );
        assert_eq!(redactor.text("mail a@b.example"), "mail a@b.example");
    }
}
