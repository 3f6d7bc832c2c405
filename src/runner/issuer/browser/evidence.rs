//! What a browser journey leaves for the report: a screenshot of the last
//! page, taken through the DevTools protocol after the page is frozen and
//! every secret on it blanked out.

use std::time::Duration;

use serde_json::{Value, json};

use super::BrowserJourney;
use crate::runner::world::PaymentWorld;

impl BrowserJourney<'_> {
    /// A screenshot of the top-level page with every secret on it blanked
    /// out first; `None` when the browser cannot take one. Through the
    /// DevTools protocol, which does not wait for a page that never stops
    /// loading, after the page is stopped.
    pub(super) async fn screenshot(&self, world: &PaymentWorld) -> Option<Vec<u8>> {
        use base64::Engine as _;
        let target = world.target();
        let mut secrets: Vec<(String, String)> = target
            .secrets()
            .into_iter()
            .map(|s| (s, crate::runner::redact::MASK.to_owned()))
            .collect();
        for number in target.card_numbers() {
            let shown = payconf_spec::card::mask_pan(&number);
            secrets.push((number, shown));
        }
        // Frozen first: a page that moves on by script would not hold still.
        let frozen = self
            .cdp_within("Page.stopLoading", json!({}))
            .await
            .is_some()
            && self
                .cdp_within(
                    "Emulation.setScriptExecutionDisabled",
                    json!({"value": true}),
                )
                .await
                .is_some();
        let shot = if frozen {
            let blanked = self
                .cdp_within(
                    "Runtime.evaluate",
                    json!({
                        "expression": format!("({BLANK_SECRETS})({})", json!(secrets)),
                        "returnByValue": true,
                    }),
                )
                .await;
            // A page that cannot be blanked out is not photographed.
            match blanked {
                Some(blanked) if blanked["result"]["value"] == true => {
                    self.cdp_within("Page.captureScreenshot", json!({"format": "png"}))
                        .await
                }
                _ => None,
            }
        } else {
            None
        };
        self.cdp_within(
            "Emulation.setScriptExecutionDisabled",
            json!({"value": false}),
        )
        .await;
        base64::engine::general_purpose::STANDARD
            .decode(shot?["data"].as_str()?)
            .ok()
    }

    /// A DevTools command that must answer within two seconds, for evidence
    /// that is worth having but not worth waiting for.
    async fn cdp_within(&self, method: &str, params: Value) -> Option<Value> {
        tokio::time::timeout(Duration::from_secs(2), self.turn.cdp(method, params))
            .await
            .ok()?
            .ok()
    }
}

/// Replaces every secret in the page's text and fields before a
/// screenshot: a function of pairs of (secret, what is shown instead).
const BLANK_SECRETS: &str = r#"function (secrets) {
  const blank = (text) => secrets.reduce((t, [secret, shown]) => t.split(secret).join(shown), text);
  const root = document.body || document.documentElement;
  if (!root) { return true; }
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = blank(node.nodeValue);
    if (text !== node.nodeValue) { node.nodeValue = text; }
  }
  for (const input of document.querySelectorAll('input, textarea')) {
    if (input.type === 'password' || input.value === '') { continue; }
    const value = blank(input.value);
    if (value !== input.value) { input.value = value; }
  }
  return true;
}"#;
