//! Standard output for what commands print to be piped or redirected
//! (`payconf completions bash | head`, `payconf diff A B > summary.md`): a
//! reader that has gone ends the printing, never the process.

use std::io::Write as _;

/// Prints `text` on standard output, and nothing more once nobody reads it.
pub fn say(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}
