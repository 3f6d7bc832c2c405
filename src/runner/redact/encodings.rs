//! The forms a secret takes when a server or a page re-encodes it.

use base64::Engine as _;

/// The forms servers and pages commonly re-encode a secret in: percent-
/// encoded as forms and as `encodeURIComponent` write it (either case of
/// hex), hexadecimal, HTML's numeric character references, and the runs of
/// base64 (standard and URL-safe) that encode it at
/// each of the three offsets it can stand at inside longer data, so a
/// Basic credential or a base64 blob that holds it is caught too.
pub(super) fn encoded_forms(secret: &str) -> Vec<String> {
    let mut forms = Vec::new();
    let form: String = url::form_urlencoded::byte_serialize(secret.as_bytes()).collect();
    forms.push(form.to_ascii_lowercase_hex());
    forms.push(form);
    let component = uri_component(secret);
    forms.push(component.to_ascii_lowercase_hex());
    forms.push(component);
    // Hexadecimal, and HTML's numeric character references, as pages
    // write what they do not want read at a glance.
    let hex: String = secret.bytes().map(|b| format!("{b:02x}")).collect();
    forms.push(hex.to_ascii_uppercase());
    forms.push(hex);
    forms.push(
        secret
            .chars()
            .map(|c| format!("&#{};", u32::from(c)))
            .collect(),
    );
    forms.push(
        secret
            .chars()
            .map(|c| format!("&#x{:x};", u32::from(c)))
            .collect(),
    );
    for engine in [
        base64::engine::general_purpose::STANDARD_NO_PAD,
        base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ] {
        for offset in 0..3usize {
            let mut bytes = vec![0u8; offset];
            bytes.extend_from_slice(secret.as_bytes());
            let encoded = engine.encode(&bytes);
            // Only the characters every bit of which is the secret's.
            let first = (8 * offset).div_ceil(6);
            let last = 8 * (offset + secret.len()) / 6;
            if last > first {
                forms.push(encoded[first..last].to_owned());
            }
        }
    }
    forms
}

/// `secret` as JavaScript's `encodeURIComponent` writes it.
fn uri_component(secret: &str) -> String {
    let mut out = String::with_capacity(secret.len() * 3);
    for byte in secret.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Percent-encoding's hex digits in lower case (`%2f`), as some encoders write them.
trait LowerHex {
    fn to_ascii_lowercase_hex(&self) -> String;
}

impl LowerHex for String {
    fn to_ascii_lowercase_hex(&self) -> String {
        let mut out = String::with_capacity(self.len());
        let mut rest = self.as_str();
        while let Some(at) = rest.find('%') {
            out.push_str(&rest[..at]);
            let escape = rest.get(at..at + 3).unwrap_or(&rest[at..]);
            out.push_str(&escape.to_ascii_lowercase());
            rest = &rest[at + escape.len()..];
        }
        out.push_str(rest);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;

    #[test]
    fn a_key_is_masked_in_the_forms_servers_re_encode_it_in() {
        use base64::Engine as _;
        let key = "k3y/with+odd=chars";
        let redactor = Redactor::new([key.to_owned()]);
        let hex: String = key.bytes().map(|b| format!("{b:02x}")).collect();
        let entities: String = key
            .chars()
            .map(|c| format!("&#{};", u32::from(c)))
            .collect();
        let encoded = [
            "k3y%2Fwith%2Bodd%3Dchars".to_owned(),
            "k3y%2fwith%2bodd%3dchars".to_owned(),
            hex.to_ascii_uppercase(),
            hex,
            entities,
            base64::engine::general_purpose::STANDARD.encode(key),
            base64::engine::general_purpose::URL_SAFE.encode(key),
        ];
        for form in &encoded {
            let shown = redactor.text(&format!("echo {form} done"));
            assert!(
                !shown.contains(form.trim_end_matches('=')),
                "{form}: {shown}"
            );
        }
        // Inside a Basic credential, at each offset the key can stand at.
        for user in ["s", "sh", "shop"] {
            let basic = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{key}"));
            let shown = redactor.text(&format!("Basic {basic}"));
            let decoded = shown
                .strip_prefix("Basic ")
                .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            assert!(!decoded.contains(key), "{user}: {shown}");
            assert!(shown.contains(MASK), "{user}: {shown}");
        }
    }
}
