//! The content codings payconf accepts, as merchants' HTTP clients do, and
//! their decoding within the answer limit.
//!
//! The contract says nothing of compression. RFC 9110 (12.5.3) lets a
//! server pick any coding when a request names none, so payconf names the
//! ones it decodes (`Accept-Encoding: gzip, deflate, br, zstd`) and decodes
//! them itself, not in the HTTP client: the report keeps the answer's own
//! `Content-Encoding`, and the size limit applies to the decoded bytes, so a
//! small compressed answer that expands without end (a compression bomb) is
//! cut at the limit with a message that says so.

use std::io::Read;

/// The codings payconf asks for, in the order a browser names them.
pub const ACCEPTED: &str = "gzip, deflate, br, zstd";

/// An answer's body decoded: the bytes, and the codings undone.
#[derive(Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The body, decoded.
    pub body: Vec<u8>,
    /// The codings applied by the server, as named in `Content-Encoding`.
    pub codings: Vec<String>,
}

/// Undoes the codings `content_encoding` names (applied in the order given,
/// so undone last first), keeping at most `max` decoded bytes.
pub fn decode(
    content_encoding: Option<&str>,
    body: Vec<u8>,
    max: usize,
) -> Result<Decoded, CodingError> {
    let codings: Vec<String> = content_encoding
        .unwrap_or("")
        .split(',')
        .map(|c| c.trim().to_ascii_lowercase())
        .filter(|c| !c.is_empty() && c != "identity")
        .collect();
    let mut body = body;
    for coding in codings.iter().rev() {
        body = decode_one(coding, &body, max)?;
    }
    Ok(Decoded { body, codings })
}

fn decode_one(coding: &str, body: &[u8], max: usize) -> Result<Vec<u8>, CodingError> {
    let reader: Box<dyn Read + '_> = match coding {
        "gzip" | "x-gzip" => Box::new(flate2::read::MultiGzDecoder::new(body)),
        // HTTP's deflate is zlib; some servers send raw deflate instead.
        "deflate" if zlib_header(body) => Box::new(flate2::read::ZlibDecoder::new(body)),
        "deflate" => Box::new(flate2::read::DeflateDecoder::new(body)),
        "br" => Box::new(brotli_decompressor::Decompressor::new(body, 4096)),
        "zstd" => Box::new(zstd::stream::read::Decoder::with_buffer(body).map_err(|e| {
            CodingError::Broken {
                coding: coding.to_owned(),
                reason: e.to_string(),
            }
        })?),
        other => {
            return Err(CodingError::Unasked(
                crate::runner::neutral::inline(other).into_owned(),
            ));
        }
    };
    let mut decoded = Vec::new();
    reader
        .take(max as u64 + 1)
        .read_to_end(&mut decoded)
        .map_err(|e| CodingError::Broken {
            coding: coding.to_owned(),
            reason: e.to_string(),
        })?;
    if decoded.len() > max {
        return Err(CodingError::Expands {
            coding: coding.to_owned(),
            max,
            wire: body.len(),
        });
    }
    Ok(decoded)
}

/// Why an answer's body could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CodingError {
    /// A coding payconf did not ask for (neutralised for a terminal).
    #[error(
        "the answer is in a content coding payconf did not ask for ({0}); it asked for {ACCEPTED}"
    )]
    Unasked(String),
    /// The bytes are not in the coding the answer names.
    #[error("the answer's {coding} coding is broken: {reason}")]
    Broken {
        /// The coding.
        coding: String,
        /// What the decoder said.
        reason: String,
    },
    /// Decoded, the body grows past the answer limit (a compression bomb).
    #[error(
        "the answer's body is larger than {max} bytes once its {coding} coding is undone \
         ({wire} bytes on the wire): payconf stopped reading it"
    )]
    Expands {
        /// The coding.
        coding: String,
        /// The answer limit, in bytes.
        max: usize,
        /// The bytes that came on the wire.
        wire: usize,
    },
}

/// Whether a deflate body starts with a zlib header (RFC 1950).
fn zlib_header(body: &[u8]) -> bool {
    matches!(body, [cmf, flg, ..] if cmf & 0x0f == 8 && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(data).expect("gzip");
        encoder.finish().expect("gzip")
    }

    #[test]
    fn each_accepted_coding_is_undone() {
        let text = br#"{"error":{"code":"0"}}"#;
        let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        zlib.write_all(text).expect("zlib");
        let mut raw = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        raw.write_all(text).expect("deflate");
        let zstd = zstd::stream::encode_all(&text[..], 3).expect("zstd");
        let mut br = Vec::new();
        brotli::BrotliCompress(&mut &text[..], &mut br, &Default::default()).expect("br");
        for (coding, body) in [
            ("gzip", gzip(text)),
            ("deflate", zlib.finish().expect("zlib")),
            ("deflate", raw.finish().expect("deflate")),
            ("zstd", zstd),
            ("br", br),
            ("identity", text.to_vec()),
        ] {
            let decoded = decode(Some(coding), body, 1024).expect(coding);
            assert_eq!(decoded.body, text, "{coding}");
        }
        let twice = decode(Some("gzip, gzip"), gzip(&gzip(text)), 1024).expect("twice");
        assert_eq!(twice.body, text);
        assert_eq!(twice.codings, ["gzip", "gzip"]);
    }

    #[test]
    fn a_compression_bomb_is_cut_at_the_limit_of_decoded_bytes() {
        let bomb = gzip(&vec![b'0'; 64 * 1024 * 1024]);
        // Small enough to pass the limit on the wire.
        assert!(bomb.len() < 1024 * 1024, "{} bytes", bomb.len());
        let error = decode(Some("gzip"), bomb, 1024 * 1024).expect_err("cut");
        assert!(
            matches!(&error, CodingError::Expands { coding, max: 1_048_576, .. } if coding == "gzip"),
            "{error}"
        );
        assert!(
            error
                .to_string()
                .contains("larger than 1048576 bytes once its gzip"),
            "{error}"
        );
    }

    #[test]
    fn a_coding_not_asked_for_or_broken_is_said() {
        let error = decode(Some("compress"), b"x".to_vec(), 10).expect_err("unknown");
        assert_eq!(error, CodingError::Unasked("compress".to_owned()));
        assert!(
            error.to_string().contains("did not ask for (compress)"),
            "{error}"
        );
        let error = decode(Some("gzip"), b"not gzip".to_vec(), 10).expect_err("broken");
        assert!(
            error.to_string().contains("gzip coding is broken"),
            "{error}"
        );
    }
}
