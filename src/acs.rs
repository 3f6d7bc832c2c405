//! Getting a buyer through the issuer's authentication page (the ACS, access
//! control server, of 3-D Secure), as a browser would.
//!
//! The `form` driver opens the address submit answered, without following
//! redirects automatically; parses the page with a real HTML parser; takes
//! its first form (or, to cancel, the form that cancels); keeps the controls
//! a browser would send (hidden inputs among them); types the configured
//! values into their fields; submits with the form's method to its action,
//! resolved against the page's address; and follows redirects by hand, at
//! most [`MAX_REDIRECTS`] in all. Pages that only pass the buyer on (a
//! refresh, or a form of hidden fields that a script posts on load, as 3-D
//! Secure does between the issuer and the service) are passed through as a
//! browser would, and cookies the pages set are sent back. Where the buyer's
//! browser stops is the
//! landing page: the merchant's page as soon as a redirect points at it (it
//! is not fetched: it belongs to the merchant), or else the address of the
//! first answer that is not a redirect.

use std::collections::BTreeMap;

use reqwest::{
    Method,
    cookie::{CookieStore, Jar},
};
use scraper::{ElementRef, Html, Selector};
use url::Url;

use crate::{
    exchange::RecordedRequest,
    world::{Failure, PaymentWorld},
};

/// The most redirects followed between the issuer address and the landing page.
pub const MAX_REDIRECTS: usize = 10;

/// What a browser asks for when it opens a page.
const BROWSER_ACCEPT: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/// Which form of the issuer page the buyer answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// The first form: authenticate.
    Authenticate,
    /// The form that cancels (a control whose value or text is "cancel").
    Cancel,
}

/// A form, read off a page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormSubmission {
    /// `GET` or `POST`.
    pub method: Method,
    /// The action, resolved against the page's address.
    pub action: Url,
    /// The fields a browser sends, in document order.
    pub fields: Vec<(String, String)>,
}

/// Whether two addresses are the same page: scheme, host, port and path.
pub fn same_page(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme()
        && a.host_str() == b.host_str()
        && a.port_or_known_default() == b.port_or_known_default()
        && a.path().trim_end_matches('/') == b.path().trim_end_matches('/')
}

/// Reads the form a buyer would answer off an HTML page and fills it.
pub fn read_form(
    html: &str,
    page: &Url,
    choice: Choice,
    values: &BTreeMap<String, String>,
) -> Result<FormSubmission, String> {
    form_in(&Html::parse_document(html), page, choice, values)
}

/// [`read_form`] on a parsed page.
fn form_in(
    document: &Html,
    page: &Url,
    choice: Choice,
    values: &BTreeMap<String, String>,
) -> Result<FormSubmission, String> {
    let forms = Selector::parse("form").expect("a valid selector");
    let mut candidates = document.select(&forms);
    let form = match choice {
        Choice::Authenticate => candidates.next(),
        Choice::Cancel => candidates.find(|form| cancels(*form)),
    }
    .ok_or_else(|| match choice {
        Choice::Authenticate => "an HTML page with a form".to_owned(),
        Choice::Cancel => "a form that cancels (a control saying cancel)".to_owned(),
    })?;
    fill_form(form, page, values)
}

/// What a browser sends for `form` on `page`, with `values` typed into it.
fn fill_form(
    form: ElementRef<'_>,
    page: &Url,
    values: &BTreeMap<String, String>,
) -> Result<FormSubmission, String> {
    let method = match form
        .value()
        .attr("method")
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        None | Some("" | "get") => Method::GET,
        Some("post") => Method::POST,
        Some(other) => return Err(format!("a form method GET or POST, not {other:?}")),
    };
    if let Some(enctype) = form.value().attr("enctype") {
        if method == Method::POST
            && !enctype.eq_ignore_ascii_case("application/x-www-form-urlencoded")
        {
            return Err(format!("a URL-encoded form, not {enctype:?}"));
        }
    }
    let action = page
        .join(form.value().attr("action").unwrap_or(""))
        .map_err(|e| format!("a form action that resolves against {page}: {e}"))?;

    let mut fields = successful_controls(form);
    for (name, value) in values {
        match fields.iter_mut().find(|(n, _)| n == name) {
            Some(field) => field.1.clone_from(value),
            None if declares_field(form, name) => fields.push((name.clone(), value.clone())),
            None => return Err(format!("a form field named {name:?} (set in acs.fields)")),
        }
    }
    Ok(FormSubmission {
        method,
        action,
        fields,
    })
}

fn cancels(form: ElementRef<'_>) -> bool {
    let controls = Selector::parse("input, button").expect("a valid selector");
    form.select(&controls).any(|control| {
        let value = control.value().attr("value").unwrap_or("");
        let text: String = control.text().collect();
        value.eq_ignore_ascii_case("cancel")
            || text.trim().to_ascii_lowercase().starts_with("cancel")
    })
}

fn declares_field(form: ElementRef<'_>, name: &str) -> bool {
    let named =
        Selector::parse("input[name], select[name], textarea[name]").expect("a valid selector");
    form.select(&named)
        .any(|e| e.value().attr("name") == Some(name))
}

/// The controls a browser submits (HTML's "successful controls"), in
/// document order, plus the first named submit button, as if clicked.
fn successful_controls(form: ElementRef<'_>) -> Vec<(String, String)> {
    let controls = Selector::parse("input, select, textarea, button").expect("a valid selector");
    let options = Selector::parse("option").expect("a valid selector");
    let mut fields = Vec::new();
    let mut clicked = false;
    for control in form.select(&controls) {
        let element = control.value();
        let Some(name) = element.attr("name").filter(|n| !n.is_empty()) else {
            continue;
        };
        if element.attr("disabled").is_some() {
            continue;
        }
        let value = element.attr("value").unwrap_or("").to_owned();
        match element.name() {
            "input" => match element
                .attr("type")
                .unwrap_or("text")
                .to_ascii_lowercase()
                .as_str()
            {
                "submit" | "image" => {
                    if !clicked {
                        clicked = true;
                        fields.push((name.to_owned(), value));
                    }
                }
                "button" | "reset" | "file" => {}
                "checkbox" | "radio" => {
                    if element.attr("checked").is_some() {
                        let value = if value.is_empty() {
                            "on".to_owned()
                        } else {
                            value
                        };
                        fields.push((name.to_owned(), value));
                    }
                }
                _ => fields.push((name.to_owned(), value)),
            },
            "button" => {
                let kind = element
                    .attr("type")
                    .unwrap_or("submit")
                    .to_ascii_lowercase();
                if kind == "submit" && !clicked {
                    clicked = true;
                    fields.push((name.to_owned(), value));
                }
            }
            "select" => {
                let mut chosen = control
                    .select(&options)
                    .find(|o| o.value().attr("selected").is_some());
                if chosen.is_none() {
                    chosen = control.select(&options).next();
                }
                if let Some(option) = chosen {
                    let value = option.value().attr("value").map_or_else(
                        || option.text().collect::<String>().trim().to_owned(),
                        str::to_owned,
                    );
                    fields.push((name.to_owned(), value));
                }
            }
            "textarea" => fields.push((name.to_owned(), control.text().collect())),
            _ => {}
        }
    }
    fields
}

impl FormSubmission {
    /// The request a browser sends for this form.
    fn request(self) -> RecordedRequest {
        let encoded = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(&self.fields)
            .finish();
        if self.method == Method::GET {
            let mut action = self.action;
            action.set_query(Some(&encoded));
            RecordedRequest::new(Method::GET, action)
        } else {
            RecordedRequest::new(Method::POST, self.action)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .body(encoded)
        }
    }
}

/// How a page moves the buyer on without the buyer typing anything, as a
/// browser's script or refresh would.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Relay {
    /// `<meta http-equiv="refresh" content="0; url=...">`: a GET of that address.
    Refresh(Url),
    /// A form of hidden fields only, posted by a script on load (how 3-D
    /// Secure carries its results between the issuer and the service).
    Form(FormSubmission),
}

/// The relay of a page, when it has one.
pub fn read_relay(html: &str, page: &Url) -> Option<Relay> {
    relay_in(&Html::parse_document(html), page)
}

/// [`read_relay`] on a parsed page.
fn relay_in(document: &Html, page: &Url) -> Option<Relay> {
    let metas = Selector::parse("meta[http-equiv]").expect("a valid selector");
    let refresh = document.select(&metas).find_map(|meta| {
        let element = meta.value();
        if !element.attr("http-equiv")?.eq_ignore_ascii_case("refresh") {
            return None;
        }
        let content = element.attr("content")?;
        let (_, target) = content.split_once(';')?;
        let target = target.trim();
        let (key, address) = target.split_once('=')?;
        if !key.trim().eq_ignore_ascii_case("url") {
            return None;
        }
        page.join(address.trim().trim_matches(['\'', '"'])).ok()
    });
    if let Some(address) = refresh {
        return Some(Relay::Refresh(address));
    }
    let forms = Selector::parse("form").expect("a valid selector");
    let form = document.select(&forms).next()?;
    if !is_relay_form(form) {
        return None;
    }
    fill_form(form, page, &BTreeMap::new())
        .ok()
        .map(Relay::Form)
}

/// A form whose fields are all hidden (at least one), with nothing for the
/// buyer to type or choose, and no way to cancel.
fn is_relay_form(form: ElementRef<'_>) -> bool {
    let controls = Selector::parse("input, select, textarea").expect("a valid selector");
    let mut hidden = 0;
    for control in form.select(&controls) {
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
    hidden > 0 && !cancels(form)
}

/// Drives the buyer from the issuer address to wherever they land.
///
/// Pages that only relay the buyer (a refresh, a form of hidden fields a
/// script posts on load) are passed through as a browser would, before and
/// after the buyer answers the issuer's form; cookies set on the way are
/// sent back, as a browser would. Redirects and relays count together
/// toward [`MAX_REDIRECTS`].
pub async fn authenticate(
    world: &mut PaymentWorld,
    issuer: Url,
    choice: Choice,
    values: &BTreeMap<String, String>,
) -> Result<Url, Failure> {
    let mut journey = Journey::default();
    let mut request = RecordedRequest::new(Method::GET, issuer);
    let mut answered = false;
    loop {
        let (page, html) = match journey.follow(world, request).await? {
            Stop::Landed(url) => return Ok(url),
            Stop::Page(url, html) => (url, html),
        };
        // Parsed once, and dropped before the next request is awaited.
        let (relay, form) = {
            let document = Html::parse_document(&html);
            let relay = relay_in(&document, &page).filter(|relay| {
                // Before the buyer answers, a form naming a configured field,
                // or any form when the buyer cancels, is the issuer's own.
                answered
                    || match relay {
                        Relay::Refresh(_) => true,
                        Relay::Form(form) => {
                            choice == Choice::Authenticate
                                && !values.is_empty()
                                && !values
                                    .keys()
                                    .any(|name| form.fields.iter().any(|(n, _)| n == name))
                        }
                    }
            });
            let form =
                (relay.is_none() && !answered).then(|| form_in(&document, &page, choice, values));
            (relay, form)
        };
        request = match (relay, form) {
            (Some(relay), _) => {
                journey.hop(world)?;
                match relay {
                    Relay::Refresh(address) => RecordedRequest::new(Method::GET, address),
                    Relay::Form(form) => form.request(),
                }
            }
            (None, None) => return Ok(page),
            (None, Some(form)) => {
                answered = true;
                form.map_err(|expected| {
                    world.failure(
                        &format!("the issuer page to offer {expected}"),
                        "the page does not",
                    )
                })?
                .request()
            }
        };
    }
}

/// The merchant's pages a buyer can be sent to: the back-office ones and the
/// return addresses the last submit passed.
fn merchant_pages(world: &PaymentWorld) -> Vec<Url> {
    let target = world.target();
    let passed = world
        .last_submit_body
        .as_ref()
        .map(|body| &body["responseURLs"]);
    let passed = ["buyerOK", "buyerKO"]
        .into_iter()
        .filter_map(|name| passed?.get(name)?.as_str())
        .filter_map(|address| Url::parse(address).ok());
    [&target.success_url, &target.failure_url]
        .into_iter()
        .flatten()
        .cloned()
        .chain(passed)
        .collect()
}

/// Where following a request's redirects stopped.
enum Stop {
    /// A redirect pointed at one of the merchant's pages.
    Landed(Url),
    /// An answer that is not a redirect: its address and body.
    Page(Url, String),
}

/// A buyer's browser on its way through the issuer's pages: the hops taken
/// and the cookies the pages set.
#[derive(Default)]
struct Journey {
    /// Redirects and relays followed so far.
    hops: usize,
    /// Cookies set by the pages, sent back where they belong.
    cookies: Jar,
}

impl Journey {
    /// Counts one more hop; fails past [`MAX_REDIRECTS`].
    fn hop(&mut self, world: &PaymentWorld) -> Result<(), Failure> {
        self.hops += 1;
        if self.hops > MAX_REDIRECTS {
            return Err(world.failure(
                &format!("the buyer to land within {MAX_REDIRECTS} redirects"),
                "the redirects go on",
            ));
        }
        Ok(())
    }

    /// Sends a request with the journey's cookies and keeps those it sets.
    async fn send(
        &self,
        world: &mut PaymentWorld,
        mut request: RecordedRequest,
    ) -> Result<usize, Failure> {
        request.headers.retain(|(name, _)| {
            !name.eq_ignore_ascii_case("cookie") && !name.eq_ignore_ascii_case("accept")
        });
        request = request.header("Accept", BROWSER_ACCEPT);
        if let Some(cookies) = self.cookies.cookies(&request.url) {
            if let Ok(cookies) = cookies.to_str() {
                request = request.header("Cookie", cookies);
            }
        }
        let url = request.url.clone();
        let index = world.exchange(request).await?;
        let response = world.exchanges[index]
            .response
            .as_ref()
            .expect("exchange() returned Ok only for a response");
        for (name, value) in &response.headers {
            if name.eq_ignore_ascii_case("set-cookie") {
                self.cookies.add_cookie_str(value, &url);
            }
        }
        Ok(index)
    }

    /// Follows a request's redirects to the first page that is not one, or
    /// to the merchant's page a redirect points at.
    async fn follow(
        &mut self,
        world: &mut PaymentWorld,
        mut request: RecordedRequest,
    ) -> Result<Stop, Failure> {
        loop {
            let url = request.url.clone();
            let index = self.send(world, request.clone()).await?;
            let response = world.exchanges[index]
                .response
                .as_ref()
                .expect("exchange() returned Ok only for a response");
            let status = response.status;
            if !(300..400).contains(&status) || status == 304 {
                let body = String::from_utf8_lossy(&response.body).into_owned();
                return Ok(Stop::Page(url, body));
            }
            let location = response.header("location").map(str::to_owned);
            let Some(location) = location else {
                return Err(world.failure(
                    "a Location header on a redirect",
                    &format!("HTTP {status} without one"),
                ));
            };
            let next = url.join(&location).map_err(|e| {
                world.failure(
                    "a redirect to a valid address",
                    &format!("{location:?}: {e}"),
                )
            })?;
            self.hop(world)?;
            if merchant_pages(world)
                .iter()
                .any(|page| same_page(page, &next))
            {
                return Ok(Stop::Landed(next));
            }
            // 307 and 308 repeat the request; the others turn it into a GET.
            request = if matches!(status, 307 | 308) {
                RecordedRequest {
                    url: next,
                    ..request
                }
            } else {
                RecordedRequest::new(Method::GET, next)
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page() -> Url {
        Url::parse("https://issuer.example/acs/page?x=1").expect("url")
    }

    fn values(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    const PAGE: &str = r#"<html><body>
        <form method="POST" action="../verify">
          <input type="hidden" name="ref" value="abc&amp;1">
          <input type="text" name="code">
          <input type="checkbox" name="remember" value="yes">
          <select name="lang"><option value="en">English</option><option value="it" selected>Italiano</option></select>
          <button type="submit" name="go" value="ok">Confirm</button>
          <button type="submit" name="other" value="no">Other</button>
        </form>
        <form method="post" action="/cancel"><input type="hidden" name="ref" value="abc"><button>Cancel</button></form>
    </body></html>"#;

    #[test]
    fn the_first_form_is_filled_as_a_browser_would() {
        let form = read_form(
            PAGE,
            &page(),
            Choice::Authenticate,
            &values(&[("code", "123456")]),
        )
        .expect("a form");
        assert_eq!(form.method, Method::POST);
        assert_eq!(form.action.as_str(), "https://issuer.example/verify");
        assert_eq!(
            form.fields,
            [
                ("ref", "abc&1"),
                ("code", "123456"),
                ("lang", "it"),
                ("go", "ok")
            ]
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
        );
    }

    #[test]
    fn cancel_takes_the_form_that_cancels() {
        let form = read_form(PAGE, &page(), Choice::Cancel, &BTreeMap::new()).expect("a form");
        assert_eq!(form.action.as_str(), "https://issuer.example/cancel");
    }

    #[test]
    fn a_configured_field_the_form_lacks_is_an_error() {
        let err = read_form(
            PAGE,
            &page(),
            Choice::Authenticate,
            &values(&[("otp", "1")]),
        )
        .expect_err("no otp field");
        assert!(err.contains("otp"), "{err}");
    }

    #[test]
    fn a_page_without_a_form_is_an_error() {
        assert!(
            read_form(
                "<p>hello</p>",
                &page(),
                Choice::Authenticate,
                &BTreeMap::new()
            )
            .is_err()
        );
    }

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
        assert_eq!(
            form.fields,
            [("PaRes", "eJzt"), ("MD", "42")].map(|(k, v)| (k.to_owned(), v.to_owned()))
        );
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

    #[test]
    fn same_page_compares_scheme_host_port_and_path_only() {
        let a = Url::parse("https://shop.example:443/thanks?order=1").expect("url");
        let b = Url::parse("https://shop.example/thanks/").expect("url");
        let c = Url::parse("http://shop.example/thanks").expect("url");
        assert!(same_page(&a, &b));
        assert!(!same_page(&a, &c));
    }
}
