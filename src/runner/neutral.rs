//! Target text made harmless for terminals and CI logs.
//!
//! Anything a target sends may be printed: a body that is not JSON, an
//! issuer page, a header. A terminal obeys the escape sequences in it (a
//! cursor move, a window title, OSC 52 writing the clipboard), a bare `\r`
//! lets the next text overwrite a line, and a CI system obeys the workflow
//! commands in its log (GitHub Actions reads `::name::` at the start of a
//! line, after any indentation, and `##[name]` anywhere in one). So what
//! payconf prints passes through here first:
//!
//! - every control character, and the invisible characters that reorder or
//!   hide text (bidirectional overrides, zero-width marks, line separators),
//!   is shown escaped: `\x1b`, `\r`, `\n`, `\u{202e}`;
//! - `::` at the start of a line (after spaces and tabs) is shown as
//!   `\x3a:`, and `##[` anywhere as `#\x23[`, so no line can begin a
//!   workflow command.
//!
//! [`inline`] makes target text one safe line; [`block`] keeps a message's
//! own line breaks and makes each line safe.

use std::borrow::Cow;

/// `text` as one line that a terminal and a CI log show as it reads.
pub fn inline(text: &str) -> Cow<'_, str> {
    if !needs_escaping(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x80 && (c.is_ascii_control()) => {
                out.push_str(&format!("\\x{:02x}", u32::from(c)));
            }
            c if is_hidden(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    // Commands, once control characters can no longer break the line.
    let out = out.replace("##[", "#\\x23[");
    Cow::Owned(defuse_start(out))
}

/// `text` with its own line breaks kept and every line made safe as by
/// [`inline`] (a lone `\r` is no line break: it is shown escaped).
pub fn block(text: &str) -> Cow<'_, str> {
    if !needs_escaping(&text.replace('\n', "")) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.split('\n').map(inline).collect::<Vec<_>>().join("\n"))
}

fn needs_escaping(text: &str) -> bool {
    text.chars().any(|c| c.is_control() || is_hidden(c))
        || text.contains("##[")
        || starts_command(text)
}

/// Whether the line, after its indentation, begins with `::`.
fn starts_command(line: &str) -> bool {
    line.trim_start_matches([' ', '\t']).starts_with("::")
}

fn defuse_start(line: String) -> String {
    if !starts_command(&line) {
        return line;
    }
    let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
    format!("{}\\x3a{}", &line[..indent], &line[indent + 1..])
}

/// Characters that change how the text around them shows without showing
/// themselves, and the C1 controls (`\u{9b}` is a terminal's CSI).
fn is_hidden(c: char) -> bool {
    matches!(
        u32::from(c),
        0x80..=0x9f
            | 0x200b..=0x200f
            | 0x2028..=0x202e
            | 0x2060..=0x2069
            | 0xfeff
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_and_carriage_returns_are_shown_not_obeyed() {
        assert_eq!(
            inline("a\x1b]52;c;cGF5Y29uZg==\x07b\rresult: PASSED\n"),
            "a\\x1b]52;c;cGF5Y29uZg==\\x07b\\rresult: PASSED\\n"
        );
        assert_eq!(inline("\u{9b}31m\u{202e}txt"), "\\u{9b}31m\\u{202e}txt");
        assert_eq!(
            inline("plain text: fine"),
            Cow::Borrowed("plain text: fine")
        );
    }

    #[test]
    fn no_line_can_begin_a_workflow_command() {
        assert_eq!(inline("::error::forged"), "\\x3a:error::forged");
        assert_eq!(inline("   ::add-mask::x"), "   \\x3a:add-mask::x");
        // A tab is shown escaped, so what follows it starts no command.
        assert_eq!(inline("\t::add-mask::x"), "\\t::add-mask::x");
        assert_eq!(
            inline("{\"a\":\"##[error]x\"}"),
            "{\"a\":\"#\\x23[error]x\"}"
        );
        assert_eq!(inline("a::b"), Cow::Borrowed("a::b"));
        assert_eq!(
            block("expected: x\n  ::stop-commands::t\nok ##[group]"),
            "expected: x\n  \\x3a:stop-commands::t\nok #\\x23[group]"
        );
        assert_eq!(block("two\nlines"), Cow::Borrowed("two\nlines"));
    }
}
