//! Reading a target's page within bounds. An HTML parser builds a tree as
//! deep as the page nests its elements, and html5ever's work on a page of a
//! hundred thousand unclosed `<div>` grows with the square of that depth: a
//! 1 MB page kept one journey busy for minutes. So a page is first measured
//! by a linear scan of its tags, and one that nests deeper than
//! [`MAX_DEPTH`] (Chromium's own parser stops there too) or holds more than
//! [`MAX_ELEMENTS`] elements is not parsed: the form driver says so, and
//! names the browser driver. What is parsed is parsed off the async runtime
//! ([`off_runtime`]), within the journey's time, so no page holds up the
//! other scenarios or outlives its bound.

use std::time::Duration;

use scraper::Html;

/// The deepest nesting read: Chromium's HTML parser nests no deeper either.
pub const MAX_DEPTH: usize = 512;

/// The most elements read on one page: a payment page has a few hundred.
pub const MAX_ELEMENTS: usize = 50_000;

/// Why a page was not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TooComplex {
    /// It nests elements deeper than [`MAX_DEPTH`].
    Deep,
    /// It holds more than [`MAX_ELEMENTS`] elements.
    Large,
}

impl std::fmt::Display for TooComplex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Deep => write!(
                f,
                "the page nests its elements more than {MAX_DEPTH} deep, past what the form \
                 driver reads"
            ),
            Self::Large => write!(
                f,
                "the page holds more than {MAX_ELEMENTS} elements, past what the form driver \
                 reads"
            ),
        }
    }
}

/// The page parsed, when its shape is within bounds.
pub fn document(html: &str) -> Result<Html, TooComplex> {
    within_bounds(html)?;
    Ok(Html::parse_document(html))
}

/// Measures the page's nesting and elements by its tags, in one pass that
/// stops at the first bound passed. Elements that never nest (void ones,
/// `<br>`) or that the parser closes by itself (`<p>`, `<li>`, `<td>`) do
/// not deepen; comments and the text of scripts and styles hold no tags.
pub fn within_bounds(html: &str) -> Result<(), TooComplex> {
    let bytes = html.as_bytes();
    let mut depth = 0usize;
    let mut elements = 0usize;
    let mut at = 0;
    while let Some(offset) = memchr(b'<', &bytes[at..]) {
        at += offset + 1;
        let rest = &bytes[at..];
        if rest.starts_with(b"!--") {
            at += find(rest, b"-->").map_or(rest.len(), |end| end + 3);
            continue;
        }
        let closing = rest.first() == Some(&b'/');
        let name_start = usize::from(closing);
        let name_len = rest[name_start..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric())
            .count();
        if name_len == 0 || !rest[name_start].is_ascii_alphabetic() {
            continue;
        }
        let name = rest[name_start..name_start + name_len].to_ascii_lowercase();
        let end = memchr(b'>', rest).map_or(rest.len(), |end| end + 1);
        at += end;
        if closing {
            depth = depth.saturating_sub(usize::from(!never_deepens(&name)));
            continue;
        }
        elements += 1;
        if elements > MAX_ELEMENTS {
            return Err(TooComplex::Large);
        }
        let self_closing = rest[..end].ends_with(b"/>");
        if !self_closing && !never_deepens(&name) {
            depth += 1;
            if depth > MAX_DEPTH {
                return Err(TooComplex::Deep);
            }
        }
        if matches!(
            name.as_slice(),
            b"script" | b"style" | b"textarea" | b"title" | b"xmp" | b"noscript"
        ) {
            // Raw text up to its own end tag.
            let mut close = b"</".to_vec();
            close.extend_from_slice(&name);
            match find_ignoring_case(&bytes[at..], &close) {
                Some(found) => at += found,
                None => return Ok(()),
            }
        }
    }
    Ok(())
}

/// Elements that hold nothing, or that the parser closes when the next one
/// of their kind starts.
fn never_deepens(name: &[u8]) -> bool {
    matches!(
        name,
        b"area"
            | b"base"
            | b"br"
            | b"col"
            | b"embed"
            | b"hr"
            | b"img"
            | b"input"
            | b"link"
            | b"meta"
            | b"param"
            | b"source"
            | b"track"
            | b"wbr"
            | b"p"
            | b"li"
            | b"dt"
            | b"dd"
            | b"option"
            | b"optgroup"
            | b"tr"
            | b"td"
            | b"th"
            | b"rp"
            | b"rt"
    )
}

fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|b| *b == needle)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn find_ignoring_case(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

/// Runs CPU-bound work on the runtime's blocking threads, so no scenario
/// waits on it, and gives up waiting after `bound`.
pub async fn off_runtime<T: Send + 'static>(
    bound: Duration,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ReadingFailed> {
    match tokio::time::timeout(bound, tokio::task::spawn_blocking(work)).await {
        Ok(done) => Ok(done?),
        Err(_) => Err(ReadingFailed::Late(bound)),
    }
}

/// Why reading a page on the blocking threads came to nothing.
#[derive(Debug, thiserror::Error)]
pub enum ReadingFailed {
    /// The reading ended before it finished (it panicked).
    #[error("reading the page failed: {0}")]
    Ended(#[from] tokio::task::JoinError),
    /// It took longer than the journey allows.
    #[error("reading the page took over {} s", .0.as_secs_f64())]
    Late(Duration),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_of_unclosed_elements_past_the_depth_is_not_parsed() {
        let deep = "<div>".repeat(MAX_DEPTH + 1);
        assert_eq!(within_bounds(&deep), Err(TooComplex::Deep));
        let just = "<div>".repeat(MAX_DEPTH);
        assert_eq!(within_bounds(&just), Ok(()));
        let closed = "<div></div>".repeat(MAX_DEPTH * 4);
        assert_eq!(within_bounds(&closed), Ok(()));
    }

    #[test]
    fn elements_the_parser_closes_itself_and_void_ones_do_not_deepen() {
        let list = format!("<ul>{}</ul>", "<li>item<br><input name=x>".repeat(2000));
        assert_eq!(within_bounds(&list), Ok(()));
        let many = "<b></b>".repeat(MAX_ELEMENTS + 1);
        assert_eq!(within_bounds(&many), Err(TooComplex::Large));
    }

    #[test]
    fn tags_in_comments_and_scripts_are_not_counted() {
        let script = format!("<script>{}</script><p>ok", "<div>".repeat(MAX_DEPTH * 2));
        assert_eq!(within_bounds(&script), Ok(()));
        let comment = format!("<!--{}--><p>ok", "<div>".repeat(MAX_DEPTH * 2));
        assert_eq!(within_bounds(&comment), Ok(()));
        assert!(document("<form><input name=otp></form>").is_ok());
    }
}
