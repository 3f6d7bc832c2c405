//! Reading an issuer page's HTML as a browser without script would: which
//! form holds the fields to fill and what the buyer can do on the page
//! (what a step of `[[acs.steps]]` does there is [`super::served_steps`]).
//! The controls of a form are read in
//! [`super::controls`]; pages that pass the buyer on by themselves in
//! [`super::relay`].
//!
//! Everything here is a pure function of the page's text and address; the
//! form driver ([`super::form`]) sends what it reads.

use std::collections::BTreeMap;

use scraper::{ElementRef, Html};
use url::Url;

use super::controls::{
    FormSubmission, Refusal, Unsendable, clickable, control_label, declares_field, fill_form,
    selector, submitter,
};
use crate::runner::buyer::{
    Choice,
    control_rule::{Role, role},
};

/// What the buyer can do on a page, as read without running its scripts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PageAction {
    /// Answer the issuer: the form holding the configured fields, filled and
    /// confirmed (or the form that cancels, when the buyer cancels).
    Answer(FormSubmission),
    /// The page's only form holds none of the configured fields (a channel
    /// choice, a "continue"): submitted as it stands.
    Walk(FormSubmission),
    /// The page shows its content in a frame: the frame's address.
    Frame(Url),
}

/// Why a page offers nothing the buyer can do without a browser.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unreadable {
    /// The page runs scripts and has no form to use without them.
    NeedsScript,
    /// The page has a form that needs what a script does (a button that is
    /// not a submit button, a form that only cancels).
    FormNeedsScript(ScriptNeeded),
    /// payconf cannot tell which of the form's controls confirms.
    Unclear(String),
    /// Before the buyer answers, the page's only form asks the buyer to type
    /// into fields `acs.fields` does not name: their names.
    UnnamedFields(Vec<String>),
    /// No form holds the configured fields, and nothing leads on.
    NoForm,
    /// The buyer is to cancel, and no control of the page's forms cancels
    /// (or returns to the shop), no frame may hold one and no script may
    /// build one: the scenario's road is not there.
    NoCancel,
}

/// A form the buyer needs that only a script can send.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{form}: {why}")]
pub struct ScriptNeeded {
    /// Which form, in words.
    pub form: &'static str,
    /// What sending it needs.
    pub why: Unsendable,
}

/// The form holding every configured field (or, to cancel, the form with a
/// control that cancels), filled and submitted with the control that does
/// the buyer's choice.
fn answer_form(
    document: &Html,
    page: &Url,
    choice: Choice,
    values: &BTreeMap<String, String>,
) -> Option<Result<FormSubmission, Refusal>> {
    let forms: Vec<ElementRef<'_>> = document.select(&selector("form")).collect();
    let form = match choice {
        Choice::Authenticate if values.is_empty() => forms.first().copied(),
        Choice::Authenticate => forms
            .iter()
            .copied()
            .find(|form| values.keys().all(|name| declares_field(*form, name))),
        Choice::Cancel => forms.iter().copied().find(|form| {
            clickable(*form).iter().any(|c| {
                matches!(
                    role(&control_label(*c)),
                    Role::Cancel | Role::Back | Role::Shop
                )
            })
        }),
    }?;
    Some(
        submitter(form, choice)
            .and_then(|control| fill_form(form, page, control, values).map_err(Refusal::Script)),
    )
}

/// What the buyer can do on a page without running its scripts.
pub fn page_action(
    document: &Html,
    page: &Url,
    choice: Choice,
    values: &BTreeMap<String, String>,
) -> Result<PageAction, Unreadable> {
    if let Some(answer) = answer_form(document, page, choice, values) {
        return answer
            .map(PageAction::Answer)
            .map_err(|refusal| match refusal {
                Refusal::Unclear(unclear) => Unreadable::Unclear(unclear.words()),
                Refusal::Script(why) => Unreadable::FormNeedsScript(ScriptNeeded {
                    form: "the form for the buyer's answer",
                    why,
                }),
            });
    }
    let forms: Vec<ElementRef<'_>> = document.select(&selector("form")).collect();
    if let [form] = forms.as_slice() {
        let configured = values.keys().any(|name| declares_field(*form, name));
        if !configured {
            let asked = typed_fields(*form);
            match choice {
                Choice::Authenticate if !asked.is_empty() => {
                    return Err(Unreadable::UnnamedFields(asked));
                }
                // A buyer who cancels walks on through a page that asks
                // nothing (a step before the issuer's form), but never sends
                // a form that asks for something typed as it stands: a code
                // form sent with an empty code may land on the failure page
                // too, by another road than the scenario's.
                Choice::Cancel if !asked.is_empty() => return Err(Unreadable::NoCancel),
                _ => {}
            }
            return match submitter(*form, Choice::Authenticate) {
                Ok(control) => fill_form(*form, page, control, &BTreeMap::new())
                    .map(PageAction::Walk)
                    .map_err(only_form),
                Err(Refusal::Unclear(unclear)) => Err(Unreadable::Unclear(unclear.words())),
                Err(Refusal::Script(why)) => Err(only_form(why)),
            };
        }
    }
    let frames = selector("iframe[src], frame[src]");
    if let Some(frame) = document
        .select(&frames)
        .filter_map(|f| page.join(f.value().attr("src")?.trim()).ok())
        .find(|url| matches!(url.scheme(), "http" | "https"))
    {
        return Ok(PageAction::Frame(frame));
    }
    if runs_scripts(document) {
        Err(Unreadable::NeedsScript)
    } else if choice == Choice::Cancel {
        Err(Unreadable::NoCancel)
    } else {
        Err(Unreadable::NoForm)
    }
}

fn only_form(why: Unsendable) -> Unreadable {
    Unreadable::FormNeedsScript(ScriptNeeded {
        form: "the page's only form",
        why,
    })
}

/// After the buyer has answered every page: the page's only form, when it
/// asks nothing to be typed and one of its controls goes on (a review
/// step's "Confirm and pay" beside its "Back"), filled as it stands and
/// sent with that control, as the browser driver does. `None` when the
/// page offers no such form: its controls only go back, cancel, send a
/// code again or return to the shop, or it has none, or several forms.
pub fn go_on(document: &Html, page: &Url) -> Result<Option<FormSubmission>, Unsendable> {
    let forms: Vec<ElementRef<'_>> = document
        .select(&selector("form"))
        .filter(|form| !clickable(*form).is_empty())
        .collect();
    let [form] = forms.as_slice() else {
        return Ok(None);
    };
    if !typed_fields(*form).is_empty() {
        return Ok(None);
    }
    match submitter(*form, Choice::Authenticate) {
        Ok(Some(control)) => fill_form(*form, page, Some(control), &BTreeMap::new()).map(Some),
        // No control confirms, or several may and none says so: the buyer
        // stays, as in the browser.
        Ok(None) | Err(Refusal::Unclear(_) | Refusal::Script(Unsendable::NoControl(_))) => Ok(None),
        Err(Refusal::Script(why)) => Err(why),
    }
}

/// The names of the fields of `form` a buyer types into (text, password,
/// number and the like, and text areas), empty or not.
pub fn typed_fields(form: ElementRef<'_>) -> Vec<String> {
    form.select(&selector("input[name], textarea[name]"))
        .filter(|e| {
            let kind = e
                .value()
                .attr("type")
                .unwrap_or("text")
                .to_ascii_lowercase();
            e.value().name() == "textarea"
                || matches!(
                    kind.as_str(),
                    "text" | "password" | "email" | "tel" | "number" | "search" | "url" | ""
                )
        })
        .filter(|e| e.value().attr("disabled").is_none() && e.value().attr("readonly").is_none())
        .filter_map(|e| e.value().attr("name").map(str::to_owned))
        .collect()
}

/// Whether a page has a form that asks for every configured field again.
pub fn asks_again(document: &Html, values: &BTreeMap<String, String>) -> bool {
    !values.is_empty()
        && document
            .select(&selector("form"))
            .any(|form| values.keys().all(|name| declares_field(form, name)))
}

/// Whether a page runs scripts, which may move the buyer on by themselves.
pub fn runs_scripts(document: &Html) -> bool {
    document.select(&selector("script")).next().is_some()
}

#[cfg(test)]
mod tests {
    use reqwest::Method;

    use super::*;

    /// Reads the form a buyer would answer off an HTML page and fills it.
    fn read_form(
        html: &str,
        page: &Url,
        choice: Choice,
        values: &BTreeMap<String, String>,
    ) -> Result<FormSubmission, String> {
        let document =
            crate::runner::buyer::form::parse::document(html).map_err(|why| why.to_string())?;
        match answer_form(&document, page, choice, values) {
            Some(result) => result.map_err(|refusal| match refusal {
                Refusal::Script(why) => why.to_string(),
                Refusal::Unclear(choosing) => choosing.words(),
            }),
            None => Err(match choice {
                Choice::Authenticate => "an HTML page with a form holding the configured fields",
                Choice::Cancel => "a form that cancels (a control saying cancel)",
            }
            .to_owned()),
        }
    }

    fn page() -> Url {
        Url::parse("https://issuer.example/acs/page?x=1").expect("url")
    }

    fn values(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
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
    fn the_form_with_the_fields_is_filled_as_a_browser_would() {
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
            pairs(&[
                ("ref", "abc&1"),
                ("code", "123456"),
                ("lang", "it"),
                ("go", "ok")
            ])
        );
    }

    #[test]
    fn the_form_holding_the_fields_is_chosen_not_the_first() {
        let html = r#"<form action="/search"><input name="q"><button>Search</button></form>
            <form method="post" action="/verify"><input name="code"><button>Verify</button></form>"#;
        let form = read_form(
            html,
            &page(),
            Choice::Authenticate,
            &values(&[("code", "1")]),
        )
        .expect("a form");
        assert_eq!(form.action.as_str(), "https://issuer.example/verify");
    }

    /// A buyer who cancels on a page whose only form asks for the code and
    /// confirms has no road: the form is never sent empty (it may land on
    /// the failure page too, by the wrong code's road), and a page asking
    /// nothing is walked on.
    #[test]
    fn a_buyer_who_cancels_never_sends_the_code_form_as_it_stands() {
        let document =
            |html: &str| crate::runner::buyer::form::parse::document(html).expect("HTML");
        let code_only = r#"<form method="post" action="/answer"><input name="code">
            <button>Confirm</button></form>"#;
        for values in [BTreeMap::new(), values(&[("code", "1")])] {
            let action = page_action(&document(code_only), &page(), Choice::Cancel, &values);
            assert!(matches!(action, Err(Unreadable::NoCancel)), "{action:?}");
        }
        let asks_nothing = r#"<form method="post" action="/next"><button>Continue</button></form>"#;
        let action = page_action(
            &document(asks_nothing),
            &page(),
            Choice::Cancel,
            &BTreeMap::new(),
        );
        assert!(matches!(action, Ok(PageAction::Walk(_))), "{action:?}");
    }

    #[test]
    fn a_cancel_button_before_the_confirming_one_is_not_clicked() {
        let html = r#"<form method="post" action="/answer"><input name="code">
            <button name="action" value="cancel">Cancel</button>
            <button name="action" value="confirm">Confirm</button></form>"#;
        let confirm = read_form(
            html,
            &page(),
            Choice::Authenticate,
            &values(&[("code", "1")]),
        )
        .expect("a form");
        assert_eq!(
            confirm.fields,
            pairs(&[("code", "1"), ("action", "confirm")])
        );
        let cancel = read_form(html, &page(), Choice::Cancel, &BTreeMap::new()).expect("a form");
        assert_eq!(cancel.fields, pairs(&[("code", ""), ("action", "cancel")]));
    }

    #[test]
    fn cancel_takes_the_form_that_cancels() {
        let form = read_form(PAGE, &page(), Choice::Cancel, &BTreeMap::new()).expect("a form");
        assert_eq!(form.action.as_str(), "https://issuer.example/cancel");
    }

    #[test]
    fn a_configured_field_no_form_has_is_no_answer() {
        assert!(
            read_form(
                PAGE,
                &page(),
                Choice::Authenticate,
                &values(&[("otp", "1")]),
            )
            .is_err()
        );
    }

    #[test]
    fn a_lone_form_without_the_fields_is_walked_as_it_stands() {
        let html = r#"<form action="step2"><input type="hidden" name="t" value="9">
            <label><input type="radio" name="channel" value="sms" checked> SMS</label>
            <label><input type="radio" name="channel" value="app"> App</label>
            <button>Send the code</button></form>"#;
        let document = Html::parse_document(html);
        let action = page_action(
            &document,
            &page(),
            Choice::Authenticate,
            &values(&[("otp", "1")]),
        );
        let Ok(PageAction::Walk(form)) = action else {
            panic!("a walk, not {action:?}");
        };
        assert_eq!(form.method, Method::GET);
        assert_eq!(form.action.as_str(), "https://issuer.example/acs/step2");
        assert_eq!(form.fields, pairs(&[("t", "9"), ("channel", "sms")]));
    }

    #[test]
    fn a_page_with_a_frame_and_no_form_leads_to_the_frame() {
        let html = r#"<p>Your bank</p><iframe src="/challenge?t=1"></iframe>"#;
        let action = page_action(
            &Html::parse_document(html),
            &page(),
            Choice::Authenticate,
            &values(&[("otp", "1")]),
        );
        assert_eq!(
            action,
            Ok(PageAction::Frame(
                Url::parse("https://issuer.example/challenge?t=1").expect("url")
            ))
        );
    }

    #[test]
    fn a_page_of_scripts_without_a_form_needs_a_browser() {
        let html = r#"<div id="challenge">Loading…</div><script>build()</script>"#;
        let action = page_action(
            &Html::parse_document(html),
            &page(),
            Choice::Authenticate,
            &values(&[("otp", "1")]),
        );
        assert_eq!(action, Err(Unreadable::NeedsScript));
        let plain = page_action(
            &Html::parse_document("<p>Unknown transaction</p>"),
            &page(),
            Choice::Authenticate,
            &values(&[("otp", "1")]),
        );
        assert_eq!(plain, Err(Unreadable::NoForm));
    }

    #[test]
    fn after_the_answer_a_review_is_confirmed_and_never_gone_back_from() {
        let review = |controls: &str| {
            format!(
                r#"<h1>Review your payment</h1><p>42.00 EUR</p>
                <form method="post" action="/review?s=1"><input type="hidden" name="s" value="9">{controls}</form>"#
            )
        };
        let go = |html: &str| go_on(&Html::parse_document(html), &page());
        for controls in [
            r#"<button name="do" value="back">Back</button><button name="do" value="pay">Confirm and pay</button>"#,
            r#"<button name="do" value="pay">Conferma e paga</button><button name="do" value="back">Indietro</button>"#,
            r#"<input type="submit" name="do" value="Zurück"><input type="submit" name="pay" value="Bestätigen und bezahlen">"#,
        ] {
            let form = go(&review(controls)).expect("sendable").expect("confirmed");
            assert_eq!(form.method, Method::POST);
            assert_eq!(form.action.as_str(), "https://issuer.example/review?s=1");
            assert!(
                form.fields
                    .iter()
                    .any(|(_, v)| v == "pay" || v.contains("ezahlen")),
                "{controls}: {:?}",
                form.fields
            );
        }
        // Only ways back, a form that asks to type, or two forms: the buyer stays.
        for stays in [
            review(r#"<button>Back</button><button>Return to the shop</button>"#),
            review(r#"<input name="note"><button>Confirm</button>"#),
            format!(
                "{}<form action=\"/other\"><button>Continue</button></form>",
                review("<button>Pay</button>")
            ),
            "<p>Thank you</p>".to_owned(),
        ] {
            assert_eq!(go(&stays), Ok(None), "{stays}");
        }
        let scripted = review(r#"<button type="button" onclick="pay()">Confirm and pay</button>"#);
        assert!(matches!(go(&scripted), Err(Unsendable::ScriptButton(_))));
    }

    #[test]
    fn a_confirming_button_that_only_a_script_moves_needs_a_browser() {
        let html = r#"<form action="/a"><input name="otp">
            <button type="button" onclick="go()">Confirm</button></form>"#;
        let action = page_action(
            &Html::parse_document(html),
            &page(),
            Choice::Authenticate,
            &values(&[("otp", "1")]),
        );
        assert!(
            matches!(action, Err(Unreadable::FormNeedsScript(_))),
            "{action:?}"
        );
    }
}
