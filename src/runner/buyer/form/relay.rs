//! Pages that pass the buyer on without the buyer doing anything, as a
//! browser's refresh or a script on load would: a meta refresh, or a form
//! of hidden fields posted on load (how 3-D Secure carries its results
//! between the issuer and the service).

use std::collections::BTreeMap;

use scraper::{ElementRef, Html};
use url::Url;

use super::controls::{FormSubmission, clickable, control_label, fill_form, selector};
use crate::runner::buyer::control_rule::role;

/// How a page moves the buyer on without the buyer doing anything, as a
/// browser's script or refresh would.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Relay {
    /// `<meta http-equiv="refresh" content="0; url=...">`: a GET of that address.
    Refresh(Url),
    /// A form of hidden fields only, posted by a script on load (how 3-D
    /// Secure carries its results between the issuer and the service).
    Form(FormSubmission),
}

/// The relay of a parsed page, when it has one.
pub fn relay_in(document: &Html, page: &Url) -> Option<Relay> {
    let refresh = document
        .select(&selector("meta[http-equiv]"))
        .find_map(|meta| {
            let element = meta.value();
            if !element.attr("http-equiv")?.eq_ignore_ascii_case("refresh") {
                return None;
            }
            let content = element.attr("content")?;
            let (_, target) = content.split_once(';')?;
            let (key, address) = target.trim().split_once('=')?;
            if !key.trim().eq_ignore_ascii_case("url") {
                return None;
            }
            page.join(address.trim().trim_matches(['\'', '"'])).ok()
        });
    if let Some(address) = refresh {
        return Some(Relay::Refresh(address));
    }
    let form = document.select(&selector("form")).next()?;
    if !is_relay_form(form) {
        return None;
    }
    fill_form(form, page, None, &BTreeMap::new())
        .ok()
        .map(Relay::Form)
}

/// A form whose fields are all hidden (at least one), with nothing for the
/// buyer to type or choose, and no way to cancel.
fn is_relay_form(form: ElementRef<'_>) -> bool {
    let mut hidden = 0;
    for control in form.select(&selector("input, select, textarea")) {
        let element = control.value();
        if element.name() != "input" {
            return false;
        }
        match element
            .attr("type")
            .unwrap_or("text")
            .to_ascii_lowercase()
            .as_str()
        {
            "hidden" => hidden += 1,
            "submit" | "button" | "image" | "reset" => {}
            _ => return false,
        }
    }
    hidden > 0
        && !clickable(form)
            .iter()
            .any(|c| role(&control_label(*c)).holds_back())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The relay of a page, when it has one.
    fn read_relay(html: &str, page: &Url) -> Option<Relay> {
        let document = crate::runner::buyer::form::parse::document(html).ok()?;
        relay_in(&document, page)
    }

    fn page() -> Url {
        Url::parse("https://issuer.example/acs/page?x=1").expect("url")
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    const PAGE: &str = r#"<form method="post" action="/verify"><input type="text" name="code"><button>Confirm</button></form>"#;

    const RELAY: &str = r#"<html><body onload="document.forms[0].submit()">
        <form method="post" action="https://service.example/3ds/return">
          <input type="hidden" name="PaRes" value="eJzt">
          <input type="hidden" name="MD" value="42">
          <noscript><input type="submit" value="Continue"></noscript>
        </form></body></html>"#;

    #[test]
    fn a_form_of_hidden_fields_is_a_relay() {
        let Some(Relay::Form(form)) = read_relay(RELAY, &page()) else {
            panic!("a relay form");
        };
        assert_eq!(form.action.as_str(), "https://service.example/3ds/return");
        assert_eq!(form.fields, pairs(&[("PaRes", "eJzt"), ("MD", "42")]));
    }

    #[test]
    fn a_meta_refresh_is_a_relay_to_its_address() {
        let html = r#"<html><head><meta http-equiv="Refresh" content="0; URL='../next?a=1'"></head></html>"#;
        assert_eq!(
            read_relay(html, &page()),
            Some(Relay::Refresh(
                Url::parse("https://issuer.example/next?a=1").expect("url")
            ))
        );
    }

    #[test]
    fn a_page_asking_the_buyer_something_is_not_a_relay() {
        assert_eq!(read_relay(PAGE, &page()), None);
        let cancel_only = r#"<form method="post" action="/x"><input type="hidden" name="ref" value="1"><button>Cancel</button></form>"#;
        assert_eq!(read_relay(cancel_only, &page()), None);
        assert_eq!(read_relay("<p>Thank you</p>", &page()), None);
    }
}
