//! A form's controls as a browser without script sees them: the one the
//! buyer presses (by the rule of [`super::control_rule`]), and what the form sends
//! when it is clicked.

use std::collections::BTreeMap;

use reqwest::Method;
use scraper::{ElementRef, Selector};
use url::Url;

use crate::runner::buyer::{
    Choice,
    control_rule::{Choosing, choose},
};

/// A form, read off a page and filled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormSubmission {
    /// `GET` or `POST`.
    pub method: Method,
    /// The action, resolved against the page's address.
    pub action: Url,
    /// The fields a browser sends, in document order.
    pub fields: Vec<(String, String)>,
}

pub(super) fn selector(css: &str) -> Selector {
    Selector::parse(css).expect("a valid selector")
}

/// The label a person reads on a control.
pub(super) fn control_label(control: ElementRef<'_>) -> String {
    let element = control.value();
    let mut label = String::new();
    for attribute in ["value", "title", "aria-label", "alt", "name"] {
        if let Some(text) = element.attr(attribute) {
            label.push_str(text);
            label.push(' ');
        }
    }
    label.extend(control.text());
    label
}

/// Whether a control submits its form when clicked: a `button` that is not
/// `type="button"` or `reset`, an `input` of type submit or image.
pub(super) fn submits(control: ElementRef<'_>) -> bool {
    let element = control.value();
    let kind = element.attr("type").unwrap_or("").to_ascii_lowercase();
    match element.name() {
        "button" => !matches!(kind.as_str(), "button" | "reset"),
        "input" => matches!(kind.as_str(), "submit" | "image"),
        _ => false,
    }
}

/// The controls of a form a buyer clicks: submit buttons first, in
/// document order, then the buttons that only a script makes act.
pub(super) fn clickable(form: ElementRef<'_>) -> Vec<ElementRef<'_>> {
    form.select(&selector("button, input[type]"))
        .filter(|c| {
            let kind = c.value().attr("type").unwrap_or("").to_ascii_lowercase();
            c.value().attr("disabled").is_none()
                && (c.value().name() == "button" && kind != "reset"
                    || matches!(kind.as_str(), "submit" | "image" | "button"))
        })
        .collect()
}

/// Why a form offers no control to press without a script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The control to press is one only a script makes act, there is
    /// none, or the form cannot be sent without a script.
    Script(Unsendable),
    /// payconf cannot tell which control confirms.
    Unclear(Choosing),
}

/// The submit control that does `choice` in `form` ([`choose`]), if the form
/// has one that works without a script; `Ok(None)` for a form without any
/// control, which the buyer's Enter key submits.
pub(super) fn submitter(
    form: ElementRef<'_>,
    choice: Choice,
) -> Result<Option<ElementRef<'_>>, Refusal> {
    let controls = clickable(form);
    let labels: Vec<String> = controls.iter().map(|c| control_label(*c)).collect();
    let chosen = match choose(&labels, choice) {
        Ok(chosen) => chosen,
        Err(Choosing::None(why)) => return Err(Refusal::Script(Unsendable::NoControl(why))),
        Err(unclear) => return Err(Refusal::Unclear(unclear)),
    };
    match chosen.map(|i| controls[i]) {
        Some(control) if !submits(control) => Err(Refusal::Script(Unsendable::ScriptButton(
            if choice == Choice::Cancel {
                "cancel"
            } else {
                "confirming"
            },
        ))),
        control => Ok(control),
    }
}

/// What a browser sends for `form` on `page`, submitted by `control` (or
/// by the Enter key, with none), with `values` typed into it.
pub(super) fn fill_form(
    form: ElementRef<'_>,
    page: &Url,
    control: Option<ElementRef<'_>>,
    values: &BTreeMap<String, String>,
) -> Result<FormSubmission, Unsendable> {
    let attr = |name: &str| {
        control
            .and_then(|c| c.value().attr(&format!("form{name}")))
            .or_else(|| form.value().attr(name))
    };
    let method = match attr("method").map(str::to_ascii_lowercase).as_deref() {
        None | Some("" | "get") => Method::GET,
        Some("post") => Method::POST,
        Some(other) => return Err(Unsendable::Method(other.to_owned())),
    };
    if let Some(enctype) = attr("enctype") {
        if method == Method::POST
            && !enctype.eq_ignore_ascii_case("application/x-www-form-urlencoded")
        {
            return Err(Unsendable::Encoding(enctype.to_owned()));
        }
    }
    let action = page
        .join(attr("action").unwrap_or(""))
        .map_err(|reason| Unsendable::Action {
            page: page.clone(),
            reason,
        })?;

    let mut fields = successful_controls(form, control);
    for (name, value) in values {
        match fields.iter_mut().find(|(n, _)| n == name) {
            Some(field) => field.1.clone_from(value),
            None if declares_field(form, name) => fields.push((name.clone(), value.clone())),
            None => return Err(Unsendable::Field(name.clone())),
        }
    }
    Ok(FormSubmission {
        method,
        action,
        fields,
    })
}

/// Why a form cannot be sent as a browser that runs no script sends it,
/// in the words of what payconf would need.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unsendable {
    /// No control does the buyer's choice: why, in [`choose`]'s words.
    #[error("{0}")]
    NoControl(&'static str),
    /// The control that does it (`cancel` or `confirming`) is a button
    /// only a script makes act.
    #[error("its {0} control is a button only a script makes act")]
    ScriptButton(&'static str),
    /// The form's method is neither GET nor POST.
    #[error("a form method GET or POST, not {0:?}")]
    Method(String),
    /// The form posts another encoding than URL-encoded fields.
    #[error("a URL-encoded form, not {0:?}")]
    Encoding(String),
    /// The form's action is no address against the page's.
    #[error("a form action that resolves against {page}: {reason}")]
    Action {
        /// The page the form is on.
        page: Url,
        /// Why the action does not resolve.
        reason: url::ParseError,
    },
    /// A field `acs.fields` names is not in the form.
    #[error("a form field named {0:?} (set in acs.fields)")]
    Field(String),
}

/// Whether `form` has a control named `name`.
pub fn declares_field(form: ElementRef<'_>, name: &str) -> bool {
    form.select(&selector("input[name], select[name], textarea[name]"))
        .any(|e| e.value().attr("name") == Some(name))
}

/// The controls a browser submits (HTML's "successful controls"), in
/// document order, with the clicked submit control's own name and value.
fn successful_controls(
    form: ElementRef<'_>,
    clicked: Option<ElementRef<'_>>,
) -> Vec<(String, String)> {
    let options = selector("option");
    let mut fields = Vec::new();
    for control in form.select(&selector("input, select, textarea, button")) {
        let element = control.value();
        let Some(name) = element.attr("name").filter(|n| !n.is_empty()) else {
            continue;
        };
        if element.attr("disabled").is_some() {
            continue;
        }
        let value = element.attr("value").unwrap_or("").to_owned();
        if submits(control) || element.name() == "button" {
            if clicked.is_some_and(|c| c.id() == control.id()) {
                fields.push((name.to_owned(), value));
            }
            continue;
        }
        match element.name() {
            "input" => match element
                .attr("type")
                .unwrap_or("text")
                .to_ascii_lowercase()
                .as_str()
            {
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
            "select" => {
                let chosen = control
                    .select(&options)
                    .find(|o| o.value().attr("selected").is_some())
                    .or_else(|| control.select(&options).next());
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
    pub fn request(self) -> crate::runner::exchange::RecordedRequest {
        use crate::runner::exchange::RecordedRequest;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_input_is_labelled_by_its_alt_text_and_submits() {
        let html = scraper::Html::parse_fragment(
            r#"<form><input type="image" src="b.png" alt="Resend"><input type="submit" value="Conferma"></form>"#,
        );
        let form = html.select(&selector("form")).next().expect("form");
        let chosen = submitter(form, Choice::Authenticate)
            .expect("chosen")
            .expect("one");
        assert_eq!(chosen.value().attr("value"), Some("Conferma"));
    }
}
