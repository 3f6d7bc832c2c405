//! What the shop's page was told, read back from the address of payconf's
//! page it went to (`/heard/<case>?told=<JSON>`). The page writes it, but
//! what is in it comes from the target's script, which runs on that page
//! and could go there itself: it is read as hostile, bounded, and a part
//! that is not as the page writes it is said as such.

use serde_json::Value;
use url::Url;

/// The most of it payconf reads, in bytes (the page sends at most 16 KiB).
const MAX_TOLD: usize = 64 * 1024;

/// What the shop's page was told, and what the lightbox opened on it.
#[derive(Clone, Debug, PartialEq)]
pub struct Told {
    /// How it ended.
    pub outcome: Outcome,
    /// The frames the lightbox added to the shop's page.
    pub frames: Vec<Frame>,
    /// The addresses of the windows it opened (`window.open`).
    pub windows: Vec<String>,
}

/// How the shop's page's call of the lightbox ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The callback was called with this message.
    Called(Value),
    /// The script does not define what a shop calls: `script` (it did not
    /// load), `axerve`, `axerve.lightBox` or `axerve.lightBox.open`.
    Missing(String),
    /// `axerve.lightBox.open` threw this.
    Threw(String),
    /// The callback's message could not be written as JSON, or was over
    /// 16 KiB: why.
    Unwritable(String),
}

/// A frame the lightbox added to the shop's page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Its address.
    pub src: String,
    /// Whether it is inside the overlay (`#axerve_lightBox`).
    pub overlay: bool,
}

impl Told {
    /// What `landed` (payconf's page) carries; why not, in words, when it
    /// carries nothing the shop's page writes.
    pub fn read(landed: &Url) -> Result<Self, String> {
        let text = landed
            .query_pairs()
            .find(|(name, _)| name == "told")
            .map(|(_, value)| value.into_owned())
            .ok_or("an address with nothing of what the shop's page was told")?;
        if text.len() > MAX_TOLD {
            return Err(format!(
                "{} KiB of what the shop's page was told, over the {} KiB its page sends",
                text.len() / 1024,
                MAX_TOLD / 1024
            ));
        }
        let told: Value = serde_json::from_str(&text).map_err(|e| {
            format!("what the shop's page was told, not as its page writes it ({e})")
        })?;
        let text_of = |name: &str| told[name].as_str().map(str::to_owned);
        let outcome = if told["called"] == true {
            Outcome::Called(told["response"].clone())
        } else if let Some(missing) = text_of("missing") {
            Outcome::Missing(missing)
        } else if let Some(threw) = text_of("threw") {
            Outcome::Threw(threw)
        } else if let Some(why) = text_of("unreadable") {
            Outcome::Unwritable(why)
        } else if let Some(length) = told["tooLong"].as_u64() {
            Outcome::Unwritable(format!("a message of {length} characters"))
        } else {
            return Err("what the shop's page was told, not as its page writes it".to_owned());
        };
        let frames = told["frames"]
            .as_array()
            .map(|frames| {
                frames
                    .iter()
                    .map(|frame| Frame {
                        src: frame["src"].as_str().unwrap_or_default().to_owned(),
                        overlay: frame["overlay"] == true,
                    })
                    .collect()
            })
            .unwrap_or_default();
        let windows = told["windows"]
            .as_array()
            .map(|windows| {
                windows
                    .iter()
                    .filter_map(|w| w.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        Ok(Self {
            outcome,
            frames,
            windows,
        })
    }

    /// The callback's message, when the callback was called.
    pub fn message(&self) -> Option<&Value> {
        match &self.outcome {
            Outcome::Called(message) => Some(message),
            Outcome::Missing(_) | Outcome::Threw(_) | Outcome::Unwritable(_) => None,
        }
    }

    /// Whether the lightbox opened nothing: no frame, no window.
    pub fn opened_nothing(&self) -> bool {
        self.frames.is_empty() && self.windows.is_empty()
    }

    /// How it ended, in words, for a step that wanted the callback called.
    pub fn said(&self) -> String {
        match &self.outcome {
            Outcome::Called(message) => format!("the callback told {}", shown(message)),
            Outcome::Missing(missing) if missing == "script" => {
                "the script did not load on the shop's page".to_owned()
            }
            Outcome::Missing(missing) => {
                format!("the script defines no {missing}, which a shop's page calls")
            }
            Outcome::Threw(threw) => format!(
                "axerve.lightBox.open threw: {}",
                crate::runner::neutral::inline(threw)
            ),
            Outcome::Unwritable(why) => {
                format!(
                    "the callback was called with what its page could not write as JSON ({why})"
                )
            }
        }
    }
}

/// A message as it is shown: JSON, on one line, at most 400 characters.
pub fn shown(message: &Value) -> String {
    let text = message.to_string();
    match text.char_indices().nth(400) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn landed(told: &str) -> Url {
        let mut url = Url::parse("http://127.0.0.1:9/heard/c1").expect("a URL");
        url.query_pairs_mut().append_pair("told", told);
        url
    }

    #[test]
    fn the_callbacks_message_and_what_opened_are_read() {
        let told = Told::read(&landed(
            r#"{"called":true,"response":{"status":"OK"},"frames":[{"src":"https://s.example/pagam/src/index.html","overlay":true}],"windows":[]}"#,
        ))
        .expect("read");
        assert_eq!(told.message().expect("called")["status"], "OK");
        assert_eq!(
            told.frames,
            [Frame {
                src: "https://s.example/pagam/src/index.html".to_owned(),
                overlay: true
            }]
        );
        assert!(!told.opened_nothing());
    }

    #[test]
    fn each_other_ending_is_said_in_words() {
        for (told, said) in [
            (r#"{"missing":"script"}"#, "the script did not load"),
            (
                r#"{"missing":"axerve.lightBox.open"}"#,
                "defines no axerve.lightBox.open",
            ),
            (r#"{"threw":"boom\u001b[31m"}"#, "threw: boom"),
            (r#"{"tooLong":20000}"#, "a message of 20000 characters"),
        ] {
            let read = Told::read(&landed(told)).expect(told);
            assert!(read.message().is_none());
            assert!(read.said().contains(said), "{told}: {}", read.said());
            assert!(!read.said().contains('\u{1b}'), "{}", read.said());
        }
    }

    #[test]
    fn what_the_page_does_not_write_is_refused_in_words() {
        let plain = Url::parse("http://127.0.0.1:9/heard/c1").expect("a URL");
        assert!(
            Told::read(&plain)
                .expect_err("nothing")
                .contains("nothing of what")
        );
        assert!(
            Told::read(&landed("{not json"))
                .expect_err("not JSON")
                .contains("not as its page writes it")
        );
        assert!(
            Told::read(&landed("{}"))
                .expect_err("empty")
                .contains("not as its page writes it")
        );
        let huge = format!(
            "{{\"called\":true,\"response\":\"{}\"}}",
            "x".repeat(70_000)
        );
        assert!(
            Told::read(&landed(&huge))
                .expect_err("huge")
                .contains("over the 64 KiB")
        );
    }

    #[test]
    fn a_long_message_is_cut_where_shown() {
        let shown = shown(&Value::String("é".repeat(1000)));
        assert!(shown.ends_with('…'));
        assert!(shown.chars().count() <= 401);
    }
}
