//! What a browser journey leaves for the report: a screenshot of the last
//! page, taken through the DevTools protocol after the page is frozen and
//! every secret on it blanked out.

use serde_json::{Value, json};

use super::BrowserJourney;
use crate::runner::buyer::browser::chromium::{Turn, WINDOW, Window};
use crate::runner::target_file::TargetConfig;

/// How long each command of the capture may take (the page stopped, its
/// scripts paused, its secrets blanked, the picture painted): painting a
/// page with its frames takes a busy two-core machine more than two
/// seconds (measured: a report without its screenshot in one full test
/// run of two), and stopping a page while three other browsers run, too
/// (one default-tier run in three). The evidence is taken after the
/// verdict: a slow capture delays the report, a missing one loses it.
const EVIDENCE_BOUND: std::time::Duration = std::time::Duration::from_secs(6);

impl BrowserJourney<'_> {
    /// A screenshot of the top-level page with every secret on it blanked
    /// out first, in every frame; or why there is none (the browser cannot
    /// take one, or a frame could not be blanked). Through the DevTools
    /// protocol, which does not wait for a page that never stops loading,
    /// after the page is stopped.
    pub(super) async fn screenshot(&self, target: &TargetConfig) -> Result<Vec<u8>, NoScreenshot> {
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
            .turn
            .cdp_bounded("Page.stopLoading", json!({}), EVIDENCE_BOUND)
            .await
            .is_some()
            && self
                .turn
                .cdp_bounded(
                    "Emulation.setScriptExecutionDisabled",
                    json!({"value": true}),
                    EVIDENCE_BOUND,
                )
                .await
                .is_some();
        let shot = if frozen {
            // A page that cannot be blanked out is not photographed.
            match blank_out(&self.turn, &secrets).await {
                Ok(()) => capture(&self.turn).await,
                Err(why) => Err(why),
            }
        } else {
            Err(NoScreenshot::Moving)
        };
        self.turn
            .cdp_bounded(
                "Emulation.setScriptExecutionDisabled",
                json!({"value": false}),
                EVIDENCE_BOUND,
            )
            .await;
        shot
    }
}

/// A picture of the page on `turn`, as it is (its secrets blanked out
/// first with [`blank_out`]): the whole page, or its top left as much of
/// it as [`SHOT_BOUND`] holds. Laid out beyond the viewport for it (what
/// `captureBeyondViewport` asks): a copy of the viewport alone, in the
/// headless shell, went unanswered on a landing reached from a
/// frame's form posted to the top, and ChromeDriver answers nothing
/// else while a command waits (six runs at once of every reference
/// issuer style, measured: 13 stalls in 54 runs; none in 54 laid out,
/// and 5 in 36 laid out with a clip inside the window, so a page
/// within the bound is taken unclipped).
pub async fn capture(turn: &Turn<'_>) -> Result<Vec<u8>, NoScreenshot> {
    use base64::Engine as _;
    let metrics = turn
        .cdp_bounded("Page.getLayoutMetrics", json!({}), EVIDENCE_BOUND)
        .await
        .ok_or(NoScreenshot::NotTaken)?;
    let size = &metrics["cssContentSize"];
    let (width, height) = (
        size["width"].as_f64().unwrap_or(f64::INFINITY),
        size["height"].as_f64().unwrap_or(f64::INFINITY),
    );
    let mut params = json!({"format": "png", "captureBeyondViewport": true});
    if width > f64::from(SHOT_BOUND.width) || height > f64::from(SHOT_BOUND.height) {
        params["clip"] = json!({
            "x": 0,
            "y": 0,
            "width": width.min(f64::from(SHOT_BOUND.width)),
            "height": height.min(f64::from(SHOT_BOUND.height)),
            "scale": 1,
        });
    }
    let shot = turn
        .cdp_bounded("Page.captureScreenshot", params, EVIDENCE_BOUND)
        .await
        .ok_or(NoScreenshot::NotTaken)?;
    shot["data"]
        .as_str()
        .and_then(|data| base64::engine::general_purpose::STANDARD.decode(data).ok())
        .ok_or(NoScreenshot::NotAnImage)
}

/// The most of a page a screenshot shows: a window's width, four of its
/// heights (a picture of at most 20 MiB before it is compressed, whatever
/// a page's length).
const SHOT_BOUND: Window = Window {
    width: WINDOW.width,
    height: WINDOW.height * 4,
};

/// Replaces every secret (pairs of the secret and what is shown instead)
/// in the text and fields of the page on `turn`, of each of its frames and
/// of each open shadow root; says why not when a frame could not be
/// reached (another origin's), whose content a screenshot would show.
pub async fn blank_out(turn: &Turn<'_>, secrets: &[(String, String)]) -> Result<(), NoScreenshot> {
    let evaluated = turn
        .cdp_bounded(
            "Runtime.evaluate",
            json!({
                "expression": format!("({BLANK_SECRETS})({})", json!(secrets)),
                "returnByValue": true,
            }),
            EVIDENCE_BOUND,
        )
        .await;
    let value = evaluated.as_ref().map(|answer| &answer["result"]["value"]);
    match value {
        Some(value) if value["blanked"] == true => Ok(()),
        Some(value) if value["frames"].is_array() => Err(NoScreenshot::Unreachable(
            value["frames"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .take(3)
                .map(|frame| crate::runner::neutral::inline(frame).into_owned())
                .collect::<Vec<_>>()
                .join(", "),
        )),
        _ => Err(NoScreenshot::Unblanked),
    }
}

/// Why a journey left no screenshot of its last page.
#[derive(Debug, thiserror::Error)]
pub enum NoScreenshot {
    /// The page could not be stopped (and its scripts held) to be
    /// photographed.
    #[error("the page could not be stopped to be photographed")]
    Moving,
    /// The script that blanks the page's secrets out did not answer.
    #[error("the page's secrets could not be blanked out")]
    Unblanked,
    /// A frame of another origin, whose content a screenshot would show
    /// unblanked: the first three, neutralised.
    #[error("the page shows a frame payconf cannot reach to blank its secrets out ({0})")]
    Unreachable(String),
    /// The browser took none.
    #[error("the browser took no screenshot")]
    NotTaken,
    /// What the browser gave was not an image.
    #[error("the browser's screenshot was not an image")]
    NotAnImage,
    /// The page was ended over the browser's memory bound.
    #[error("the page was ended over the browser's memory bound")]
    OverMemory,
    /// The browser stopped answering during the journey.
    #[error("the browser stopped answering")]
    Stalled,
    /// The screenshot took longer than a command's bound.
    #[error("the browser took no screenshot within its bound")]
    Late,
}

/// Replaces every secret in the text and fields of the page, of each of
/// its frames and of each open shadow root, before a screenshot: a
/// function of pairs of (secret, what is shown instead). It answers
/// `{blanked: true}`, or the frames it could not reach (another origin's),
/// whose content would be photographed unblanked.
const BLANK_SECRETS: &str = r#"function (secrets) {
  const blank = (text) => secrets.reduce((t, [secret, shown]) => t.split(secret).join(shown), text);
  const unreachable = [];
  const visit = (root) => {
    const doc = root.ownerDocument || root;
    const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = blank(node.nodeValue);
      if (text !== node.nodeValue) { node.nodeValue = text; }
    }
    for (const input of root.querySelectorAll('input, textarea')) {
      if (input.type === 'password' || input.value === '') { continue; }
      const value = blank(input.value);
      if (value !== input.value) { input.value = value; }
    }
    for (const element of root.querySelectorAll('*')) {
      if (element.shadowRoot) { visit(element.shadowRoot); }
    }
    for (const frame of root.querySelectorAll('iframe, frame')) {
      let inner = null;
      try { inner = frame.contentDocument; } catch (e) { inner = null; }
      const body = inner && (inner.body || inner.documentElement);
      if (body) { visit(body); }
      else if (!inner) { unreachable.push(frame.src || frame.name || 'a frame'); }
    }
  };
  const root = document.body || document.documentElement;
  if (root) { visit(root); }
  return unreachable.length ? {frames: unreachable} : {blanked: true};
}"#;
