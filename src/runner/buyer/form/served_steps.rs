//! A step of `[[acs.steps]]` run by the form driver on a page as served:
//! the name a typed value is sent under, and what a click sends when it
//! needs no script (a submit control in a form, or a link to its own
//! address, query and all, as a browser follows it).

use std::collections::BTreeMap;

use reqwest::Method;
use scraper::{ElementRef, Html, Selector};
use url::Url;

use super::controls::{FormSubmission, Unsendable, fill_form, submits};
use crate::runner::exchange::RecordedRequest;

/// What a click sends, when it needs no script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Clicked {
    /// A submit control: its form, filled and sent with it.
    Form(FormSubmission),
    /// A link: a `GET` of its own address, query and all (a form's `GET`
    /// replaces its action's query with the form's fields; a link's never
    /// does).
    Link(Url),
}

impl Clicked {
    /// The request a browser sends for the click.
    pub fn request(self) -> RecordedRequest {
        match self {
            Self::Form(form) => form.request(),
            Self::Link(mut address) => {
                // The fragment stays in the browser.
                address.set_fragment(None);
                RecordedRequest::new(Method::GET, address)
            }
        }
    }
}

/// A step of `[[acs.steps]]` the form driver cannot run on a page as served.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StepMiss {
    /// The selector does not parse.
    #[error("selector {css:?}: {reason}")]
    Selector {
        /// The selector.
        css: String,
        /// Why it does not parse.
        reason: String,
    },
    /// Nothing on the page matches the selector.
    #[error("nothing on the page matches {0:?}")]
    NoMatch(String),
    /// The element typed into has no name to send the value under.
    #[error("{0:?} is not a named form control")]
    Unnamed(String),
    /// The link clicked does not resolve to an address.
    #[error("the link {css:?} to a valid address: {reason}")]
    LinkAddress {
        /// The selector.
        css: String,
        /// Why its address does not resolve.
        reason: url::ParseError,
    },
    /// The link clicked leads nowhere without a script (`javascript:`).
    #[error("the link {css:?} needs a script ({href})")]
    LinkScript {
        /// The selector.
        css: String,
        /// The link's address.
        href: String,
    },
    /// The element clicked submits nothing by itself.
    #[error("{0:?} is not a submit control: a script makes it act")]
    NotSubmit(String),
    /// The control clicked is in no form.
    #[error("{0:?} is in no form: a script makes it act")]
    NoForm(String),
    /// The form clicked cannot be sent without a script.
    #[error(transparent)]
    Form(#[from] Unsendable),
}

/// The control `css` names, the first on the page.
fn first_match<'a>(document: &'a Html, css: &str) -> Result<ElementRef<'a>, StepMiss> {
    let wanted = Selector::parse(css).map_err(|e| StepMiss::Selector {
        css: css.to_owned(),
        reason: e.to_string(),
    })?;
    document
        .select(&wanted)
        .next()
        .ok_or_else(|| StepMiss::NoMatch(css.to_owned()))
}

/// The name of the form control `css` names: a step that types into it
/// sets the value sent under that name.
pub fn control_name(document: &Html, css: &str) -> Result<String, StepMiss> {
    first_match(document, css)?
        .value()
        .attr("name")
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| StepMiss::Unnamed(css.to_owned()))
}

/// What a click on the control `css` names sends, with `values` typed
/// into its form, when it needs no script: a submit control in a form, or
/// a link.
pub fn click(
    document: &Html,
    page: &Url,
    css: &str,
    values: &BTreeMap<String, String>,
) -> Result<Clicked, StepMiss> {
    let control = first_match(document, css)?;
    if control.value().name() == "a" {
        let href = control.value().attr("href").unwrap_or("");
        let target = page.join(href).map_err(|reason| StepMiss::LinkAddress {
            css: css.to_owned(),
            reason,
        })?;
        if !matches!(target.scheme(), "http" | "https") {
            return Err(StepMiss::LinkScript {
                css: css.to_owned(),
                href: href.to_owned(),
            });
        }
        return Ok(Clicked::Link(target));
    }
    if !submits(control) {
        return Err(StepMiss::NotSubmit(css.to_owned()));
    }
    let form = control
        .ancestors()
        .filter_map(ElementRef::wrap)
        .find(|e| e.value().name() == "form")
        .ok_or_else(|| StepMiss::NoForm(css.to_owned()))?;
    Ok(Clicked::Form(fill_form(form, page, Some(control), values)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<form method="POST" action="../verify">
          <input type="hidden" name="ref" value="abc&amp;1">
          <input type="text" name="code">
          <input type="text" id="unnamed">
          <button type="submit" name="go" value="ok">Confirm</button>
          <button type="submit" name="other" value="no">Other</button>
        </form>
        <button id="loose">Loose</button>
        <a id="script" href="javascript:go()">Go</a>
        <a id="wallet" href="/method/start?s=N%2B1&amp;lang=it#top">Pay with the wallet</a>"#;

    fn page() -> Url {
        Url::parse("https://issuer.example/acs/page?x=1").expect("url")
    }

    #[test]
    fn a_step_click_submits_the_controls_form_with_that_control() {
        let document = Html::parse_document(PAGE);
        let typed = BTreeMap::from([("code".to_owned(), "9".to_owned())]);
        let Ok(Clicked::Form(form)) = click(&document, &page(), "button[name=other]", &typed)
        else {
            panic!("a submit control");
        };
        assert_eq!(form.method, Method::POST);
        assert_eq!(form.action.as_str(), "https://issuer.example/verify");
        assert_eq!(
            form.fields,
            [("ref", "abc&1"), ("code", "9"), ("other", "no")]
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
        );
        assert_eq!(
            control_name(&document, "input[type=text]").as_deref(),
            Ok("code")
        );
    }

    #[test]
    fn a_step_click_on_a_link_follows_its_own_address_query_and_all() {
        let document = Html::parse_document(PAGE);
        let clicked = click(&document, &page(), "#wallet", &BTreeMap::new()).expect("a link");
        let request = clicked.request();
        assert_eq!(request.method, Method::GET);
        assert_eq!(
            request.url.as_str(),
            "https://issuer.example/method/start?s=N%2B1&lang=it"
        );
    }

    #[test]
    fn a_step_the_page_as_served_cannot_take_says_why() {
        let document = Html::parse_document(PAGE);
        let none = BTreeMap::new();
        let missed = |css: &str| {
            click(&document, &page(), css, &none)
                .map(drop)
                .expect_err(css)
        };
        assert_eq!(missed("#missing"), StepMiss::NoMatch("#missing".to_owned()));
        assert_eq!(
            missed("input[name=code]"),
            StepMiss::NotSubmit("input[name=code]".to_owned())
        );
        assert_eq!(missed("#loose"), StepMiss::NoForm("#loose".to_owned()));
        assert!(
            matches!(missed("#script"), StepMiss::LinkScript { href, .. } if href == "javascript:go()")
        );
        assert_eq!(
            control_name(&document, "#unnamed"),
            Err(StepMiss::Unnamed("#unnamed".to_owned()))
        );
    }
}
