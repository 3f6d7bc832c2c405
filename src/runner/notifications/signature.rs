//! A notification's signature, judged as the merchant's server checks it:
//! `Notification-Signature: t=<unix seconds>,v1=<hex>`, `v1` the
//! HMAC-SHA256 with the shop's signing secret of the timestamp, a dot and
//! the raw body (the reference profile's, in `spec/openapi.yaml`). payconf
//! computes it with its own code, not the reference implementation's.
//!
//! A signature that does not verify is the target's fault only when the
//! evidence says so: no header, a header of another form, or the HMAC with
//! the given secret of something other than what the spec names. One
//! that matches nothing may be right under another secret than the one the
//! target file gives, which payconf cannot tell apart.

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// What a signature is, judged against the secret.
#[derive(Debug, PartialEq, Eq)]
pub enum Judged {
    /// It verifies.
    Verified,
    /// No `Notification-Signature` header.
    Missing,
    /// A header not of the form `t=<digits>,v1=<64 lowercase hex digits>`.
    Malformed,
    /// The HMAC with the secret of something else than `t.body`: what.
    Misbuilt(&'static str),
    /// Not the HMAC of anything payconf knows with this secret.
    Unverified,
}

/// Judges `header` on `body` with `secret`.
pub fn judge(secret: &str, header: Option<&str>, body: &[u8]) -> Judged {
    let Some(header) = header else {
        return Judged::Missing;
    };
    let Some((timestamp, given)) = parts(header) else {
        return Judged::Malformed;
    };
    let matches = |pieces: &[&[u8]]| {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes())
            .expect("HMAC takes a key of any length");
        for piece in pieces {
            mac.update(piece);
        }
        mac.verify_slice(&given).is_ok()
    };
    let t = timestamp.as_bytes();
    if matches(&[t, b".", body]) {
        return Judged::Verified;
    }
    let misbuilt: [(&[&[u8]], &'static str); 3] = [
        (&[body], "the HMAC of the body alone, without the timestamp"),
        (
            &[t, body],
            "the HMAC of the timestamp and the body without the dot between them",
        ),
        (
            &[body, b".", t],
            "the HMAC of the body, a dot and the timestamp, in the wrong order",
        ),
    ];
    misbuilt
        .iter()
        .find(|(pieces, _)| matches(pieces))
        .map_or(Judged::Unverified, |(_, what)| Judged::Misbuilt(what))
}

/// The timestamp and the MAC of a header of the spec's form.
fn parts(header: &str) -> Option<(&str, Vec<u8>)> {
    let (t, v1) = header.split_once(',')?;
    let timestamp = t.strip_prefix("t=")?;
    let hex = v1.strip_prefix("v1=")?;
    let digits = !timestamp.is_empty() && timestamp.bytes().all(|b| b.is_ascii_digit());
    let lower_hex = hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    if !digits || !lower_hex {
        return None;
    }
    let mac = (0..64)
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    Some((timestamp, mac))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sign(secret: &str, pieces: &[&[u8]]) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("any key");
        for piece in pieces {
            mac.update(piece);
        }
        mac.finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    #[test]
    fn the_reference_implementations_signature_verifies() {
        let body = br#"{"eventID":"x"}"#;
        let header = payconf_reference::notification::signature("s3cret", 1_764_019_805, body);
        assert_eq!(judge("s3cret", Some(&header), body), Judged::Verified);
        assert_eq!(judge("other", Some(&header), body), Judged::Unverified);
        assert_eq!(
            judge("s3cret", Some(&header), b"{\"eventID\":\"y\"}"),
            Judged::Unverified
        );
    }

    #[test]
    fn a_signature_of_the_wrong_pieces_is_named() {
        let body = b"{}";
        let alone = format!("t=17,v1={}", sign("k", &[body]));
        assert_eq!(
            judge("k", Some(&alone), body),
            Judged::Misbuilt("the HMAC of the body alone, without the timestamp")
        );
        let undotted = format!("t=17,v1={}", sign("k", &[b"17", body]));
        assert!(matches!(
            judge("k", Some(&undotted), body),
            Judged::Misbuilt(_)
        ));
    }

    #[test]
    fn headers_of_another_form_are_malformed() {
        let mac = sign("k", &[b"17", b".", b"{}"]);
        for header in [
            format!("v1={mac},t=17"),
            format!("t=17,v1={}", mac.to_uppercase()),
            format!("t=,v1={mac}"),
            format!("t=17,v1={}", &mac[..62]),
            "sha256=abc".to_owned(),
            String::new(),
        ] {
            assert_eq!(
                judge("k", Some(&header), b"{}"),
                Judged::Malformed,
                "{header}"
            );
        }
        assert_eq!(judge("k", None, b"{}"), Judged::Missing);
    }
}
