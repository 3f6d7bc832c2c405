//! A payment's API calls on its back-office page: each call the sandbox
//! still keeps about it (`call_log`), newest last, with the request's and
//! the answer's bodies as they were kept, redacted.

use super::when;
use crate::{
    call_log::{Call, KEPT, KEPT_PER_PAYMENT},
    pages::escape,
    state::Service,
};

/// The section of payment `id` of shop `merchant`.
pub fn section(service: &Service, merchant: u32, id: u64) -> String {
    let calls = service.call_log.calls(merchant, id);
    let body = if calls.is_empty() {
        format!(
            "<p class=\"hint\">No API call about this payment is kept. The sandbox keeps each \
             shop's last {KEPT} calls about its payments ({KEPT_PER_PAYMENT} at most for one), in \
             memory, since it started.</p>"
        )
    } else {
        let items: Vec<String> = calls.iter().map(item).collect();
        format!(
            "<p class=\"hint\">Request and answer bodies as the sandbox kept them: card numbers \
             masked, security codes, tokens and keys hidden. Headers are not kept.</p>\n\
             <ol class=\"calls\">\n{}\n</ol>",
            items.join("\n")
        )
    };
    format!("<h2 id=\"calls\">API calls (UTC)</h2>\n{body}")
}

fn item(call: &Call) -> String {
    format!(
        r#"<li><details><summary><time>{at}</time> <code>{operation}</code>: HTTP {status}{code}</summary>
<h3>Request</h3>
<pre>{request}</pre>
<h3>Answer</h3>
<pre>{answer}</pre>
</details></li>"#,
        at = when(call.at_ms),
        operation = escape(call.operation),
        status = call.status,
        code = envelope_code(&call.answer)
            .map(|code| format!(", error code {}", escape(&code)))
            .unwrap_or_default(),
        request = escape(&call.request),
        answer = escape(&call.answer),
    )
}

/// The envelope's `error.code` of an answer as it was kept.
fn envelope_code(answer: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(answer).ok()?;
    Some(value.get("error")?.get("code")?.as_str()?.to_owned())
}
