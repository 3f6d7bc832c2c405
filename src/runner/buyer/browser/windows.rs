//! The windows a journey's pages open. A page that opens a window (the
//! real service's lightbox on a phone's screen, an issuer's pop-up) puts it
//! in front of the buyer, who goes on there; when it closes, the buyer is
//! back in the window that opened it. The driver follows as the buyer does:
//! each look first asks which windows are open, and a new one is where it
//! looks next. The windows are closed after the journey
//! ([`super::chromium::Turn::one_window`]).

use std::time::Instant;

use serde_json::json;

use super::BrowserJourney;
use crate::runner::buyer::{Screen, browser::chromium::CommandError};

impl BrowserJourney<'_> {
    /// The journey's first window, laid out on `screen`.
    pub(super) async fn first_window(&mut self, screen: Screen) -> Result<(), CommandError> {
        if screen == Screen::Phone {
            let (width, height) = (Screen::PHONE_WIDTH, Screen::PHONE_HEIGHT);
            self.turn
                .cdp(
                    "Emulation.setDeviceMetricsOverride",
                    json!({"width": width, "height": height, "screenWidth": width,
                           "screenHeight": height, "deviceScaleFactor": 1, "mobile": false}),
                )
                .await?;
        }
        self.windows = vec![self.turn.client.window().await?];
        Ok(())
    }

    /// Goes to the window in front: the newest one a page opened, else the
    /// one before it once it closed.
    pub(super) async fn follow_windows(&mut self) -> Result<(), CommandError> {
        let open = self.turn.client.windows().await?;
        let front = self.windows.last().cloned();
        self.windows.retain(|window| open.contains(window));
        for window in open {
            if !self.windows.contains(&window) {
                self.windows.push(window);
            }
        }
        let Some(now) = self.windows.last().cloned() else {
            return Ok(());
        };
        if front.as_ref() == Some(&now) {
            return Ok(());
        }
        self.turn.client.switch_to_window(now).await?;
        self.last_move = Instant::now();
        // The window's own document requests are top-level ones.
        let tree = self.turn.cdp("Page.getFrameTree", json!({})).await?;
        if let Some(id) = tree["frameTree"]["frame"]["id"].as_str() {
            self.window_tops.insert(id.to_owned());
        }
        Ok(())
    }

    /// Back in the journey's first window, every other closed. Closed
    /// meanwhile, it is not there to go back to: `one_window` keeps another.
    pub(super) async fn back_to_the_first_window(&self) -> Result<(), CommandError> {
        if let Some(first) = self.windows.first() {
            let _ = self.turn.client.switch_to_window(first.clone()).await;
        }
        self.turn.one_window().await
    }

    /// Whether `frame` is the top-level frame of a window of the journey's.
    pub(super) fn is_top(&self, frame: Option<&str>) -> bool {
        self.top_frame.is_none()
            || frame == self.top_frame.as_deref()
            || frame.is_some_and(|frame| self.window_tops.contains(frame))
    }
}
