//! One journey's use of the browser: held for a scenario, reset to one
//! window and a blank page, and the commands fantoccini has no method for
//! (DevTools through ChromeDriver, the performance log, frames).

use std::time::Duration;

use fantoccini::{Client, wd::WebDriverCompatibleCommand};
use serde_json::{Value, json};
use tokio::sync::OwnedMutexGuard;

use super::CommandError;

/// The browser held for one scenario; free again when dropped.
#[derive(Debug)]
pub struct Reservation {
    pub(super) _guard: OwnedMutexGuard<()>,
}

/// One journey's use of the browser.
#[derive(Debug)]
pub struct Turn<'a> {
    /// The WebDriver session, borrowed for one journey and reset after it.
    pub client: &'a Client,
    pub(super) reservation: Reservation,
}

/// The longest the browser may take to answer a command that loads
/// nothing (a reset, a screenshot), however busy the machine.
pub const COMMAND_BOUND: Duration = Duration::from_secs(10);

impl Turn<'_> {
    /// A blank page, scripts allowed, no cookies, an empty performance log.
    /// The last scenario's page may still be loading: it is stopped, and
    /// replaced, before anything else is looked at.
    pub(super) async fn reset(&self) -> Result<(), CommandError> {
        // One window, its page stopped.
        self.one_window().await?;
        self.cdp(
            "Emulation.setScriptExecutionDisabled",
            json!({"value": false}),
        )
        .await?;
        // A journey's phone-sized screen is not the next journey's.
        self.cdp("Emulation.clearDeviceMetricsOverride", json!({}))
            .await?;
        self.top_frame().await?;
        self.client.goto("about:blank").await?;
        self.cdp("Network.clearBrowserCookies", json!({})).await?;
        self.performance_log().await.map(drop)
    }

    /// Closes every window but the journey's own: the popups a page opened
    /// run no script after their journey. A window whose page crashed (a
    /// renderer ended over the memory bound) is replaced by a new one.
    pub async fn one_window(&self) -> Result<(), CommandError> {
        let handles = self.client.windows().await?;
        // The usual case, in one command: the journey's window alone, and
        // its page answering.
        if handles.len() == 1 && self.cdp("Page.stopLoading", json!({})).await.is_ok() {
            return Ok(());
        }
        let mut current = self.client.window().await.ok();
        // A window that closed itself (a pop-up the journey ended in) is
        // no window to keep, nor one a new window can be opened from.
        if let Some(open) = handles
            .first()
            .filter(|_| current.as_ref().is_some_and(|h| !handles.contains(h)))
        {
            self.client.switch_to_window(open.clone()).await?;
            current = Some(open.clone());
        }
        let healthy = match &current {
            Some(handle) if handles.contains(handle) => self
                .cdp("Runtime.evaluate", json!({"expression": "1"}))
                .await
                .is_ok(),
            _ => false,
        };
        let keep = match current {
            Some(handle) if healthy => handle,
            _ => self.client.new_window(true).await?.handle,
        };
        for handle in handles.into_iter().filter(|h| *h != keep) {
            if self.client.switch_to_window(handle).await.is_ok() {
                let _ = self.client.close_window().await;
            }
        }
        Ok(self.client.switch_to_window(keep).await?)
    }

    /// Ends the journey, keeping the browser for the rest of the scenario.
    pub fn end(self) -> Reservation {
        self.reservation
    }

    /// A DevTools command that must answer within two seconds, for evidence
    /// that is worth having but not worth waiting for; `None` otherwise.
    pub async fn cdp_within(&self, method: &str, params: Value) -> Option<Value> {
        self.cdp_bounded(method, params, Duration::from_secs(2))
            .await
    }

    /// A DevTools command that must answer within `bound`; `None` otherwise.
    pub async fn cdp_bounded(&self, method: &str, params: Value, bound: Duration) -> Option<Value> {
        tokio::time::timeout(bound, self.cdp(method, params))
            .await
            .ok()?
            .ok()
    }

    /// Runs a Chrome DevTools Protocol command through ChromeDriver.
    pub async fn cdp(&self, method: &str, params: Value) -> Result<Value, CommandError> {
        self.client
            .issue_cmd(SessionCommand::post(
                "goog/cdp/execute",
                json!({"cmd": method, "params": params}),
            ))
            .await
            .map_err(CommandError::from)
    }

    /// The DevTools events logged since the last call, oldest first.
    pub async fn performance_log(&self) -> Result<Vec<Value>, CommandError> {
        let entries = self
            .client
            .issue_cmd(SessionCommand::post(
                "se/log",
                json!({"type": "performance"}),
            ))
            .await?;
        Ok(entries
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|entry| {
                // Each entry's message is the event as JSON text.
                serde_json::from_str::<Value>(entry.get("message")?.as_str()?)
                    .ok()
                    .map(|mut event| event["message"].take())
            })
            .collect())
    }

    /// Makes the top-level page the context of the next commands.
    pub async fn top_frame(&self) -> Result<(), CommandError> {
        self.client
            .issue_cmd(SessionCommand::post("frame", json!({"id": null})))
            .await
            .map(drop)
            .map_err(CommandError::from)
    }
}

/// A WebDriver command of the session that fantoccini has no method for.
#[derive(Debug)]
struct SessionCommand {
    path: &'static str,
    body: Value,
}

impl SessionCommand {
    fn post(path: &'static str, body: Value) -> Self {
        Self { path, body }
    }
}

impl WebDriverCompatibleCommand for SessionCommand {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!(
            "session/{}/{}",
            session_id.unwrap_or_default(),
            self.path
        ))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(self.body.to_string()))
    }
}
