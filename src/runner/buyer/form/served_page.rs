//! A page as served, read as the form driver reads it (a real HTML parser,
//! within its bounds): what a step asks of a page without a browser, the
//! form a buyer answering it would send, and whether an input is there.
//! The steps talk to the page through it, never to the parser.

use std::collections::BTreeMap;

use url::Url;

use super::{
    controls::FormSubmission,
    html::{self, PageAction},
    parse::{self, TooComplex},
};
use crate::runner::buyer::Choice;

/// A page as served.
pub struct ServedPage {
    document: scraper::Html,
    url: Url,
}

impl ServedPage {
    /// Reads the page at `url` whose body is `body`; a page past the
    /// parser's bounds is not read.
    pub fn read(body: &[u8], url: &Url) -> Result<Self, TooComplex> {
        Ok(Self {
            document: parse::document(&String::from_utf8_lossy(body))?,
            url: url.clone(),
        })
    }

    /// The form a buyer answering with `values` sends (its fields typed,
    /// the control that confirms, or cancels, pressed), when the page as
    /// served holds one.
    pub fn answer(
        &self,
        choice: Choice,
        values: &BTreeMap<String, String>,
    ) -> Option<FormSubmission> {
        match html::page_action(&self.document, &self.url, choice, values) {
            Ok(PageAction::Answer(form)) => Some(form),
            _ => None,
        }
    }

    /// Whether the page holds an element `css` selects (a selector that
    /// does not parse selects nothing).
    pub fn has(&self, css: &str) -> bool {
        scraper::Selector::parse(css)
            .is_ok_and(|selector| self.document.select(&selector).next().is_some())
    }
}
