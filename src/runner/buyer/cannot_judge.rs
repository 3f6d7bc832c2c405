//! What payconf says when a page leaves it unsure whether the target or the
//! target file is at fault: an error of the harness that names the setting
//! that resolves it. Both drivers say it alike.

use std::collections::BTreeMap;

use url::Url;

use super::{Choice, Journey, Page};
use crate::runner::{exchange::Exchange, neutral::inline, result::Failure};

/// The form driver's error of a page with nothing to fill at `stage` of
/// `journey`, shown with `last`, the page's exchange: payconf cannot tell
/// whether the page or the configuration is at fault, so it judges nothing.
pub fn no_form(
    journey: &Journey<'_>,
    stage: usize,
    page: &Url,
    last: Option<&Exchange>,
) -> Failure {
    let answering = journey.answers.get(stage);
    let wanted = match answering {
        None => "a way on".to_owned(),
        Some(answer) if answer.choice == Choice::Cancel => "a control that cancels".to_owned(),
        Some(answer) => {
            let names: Vec<&str> = answer.values.keys().map(String::as_str).collect();
            format!(
                "a form with the fields {} names ({})",
                answer.page.fields_setting(),
                names.join(", ")
            )
        }
    };
    let answering = answering.map_or(Page::Issuer, |answer| answer.page);
    let failure = Failure::harness(format!(
        "payconf could not get the buyer through {} at {page}: it shows no {wanted}; check \
         {} against the page, or describe it with {}",
        answering.name(),
        answering.fields_setting(),
        answering.steps_setting(),
    ));
    match last {
        Some(exchange) => failure.on(exchange.display(journey.redactor)),
        None => failure,
    }
}

/// The error of a page that, after the buyer's answer on `answered`, asks
/// again for what payconf typed: the configured values were not accepted,
/// which payconf cannot tell from a target at fault.
pub fn asked_again(answered: Page, page: &Url, values: &BTreeMap<String, String>) -> Failure {
    let list = |names: Vec<String>| names.join(", ");
    let (typed, check) = match answered {
        Page::Payment | Page::MethodChoice | Page::Shop => (
            format!(
                "the card into {} ({})",
                answered.fields_setting(),
                list(
                    values
                        .keys()
                        .map(|name| inline(name).into_owned())
                        .collect()
                )
            ),
            "the test cards in [cards] against those the target's test environment takes, \
             and buyer_name and buyer_email against what its page accepts",
        ),
        Page::Issuer | Page::MethodApproval => (
            list(
                values
                    .keys()
                    .map(|name| format!("{}.{}", answered.fields_setting(), inline(name)))
                    .collect(),
            ),
            "them against the values the target's test environment takes (a fixed one-time \
             code, for instance)",
        ),
    };
    let many = values.len() != 1 || answered == Page::Payment;
    Failure::harness(format!(
        "after payconf typed {typed} and confirmed, {} at {page} asks for {} again: the \
         configured {} not accepted. Check {check}",
        answered.name(),
        if many { "them" } else { "it" },
        if many { "values were" } else { "value was" },
    ))
}

/// The error of a page that asks the buyer to type into fields the target
/// file does not name: the configuration, not the page, is to be fixed.
pub fn unnamed_fields(
    answering: Page,
    page: &Url,
    asked: &[String],
    values: &BTreeMap<String, String>,
) -> Failure {
    let list = |names: &mut dyn Iterator<Item = &String>| {
        names
            .map(|name| inline(name).into_owned())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let setting = answering.fields_setting();
    let configured = if values.is_empty() {
        format!("the target file names none ({setting} is empty or missing)")
    } else {
        format!("{setting} names {}", list(&mut values.keys()))
    };
    Failure::harness(format!(
        "{} at {page} asks the buyer to type into {} and {configured}: payconf would send \
         it empty. Set the values a buyer types there in {setting} of the target file (for \
         instance {{ {} = \"...\" }}), or describe the page with {}",
        capitalised(answering.name()),
        list(&mut asked.iter()),
        asked
            .first()
            .map_or("otp".to_owned(), |name| inline(name).into_owned()),
        answering.steps_setting(),
    ))
}

/// A page where the buyer is to cancel that offers no control to cancel
/// with: nothing says it must, so the scenario is not judged, its reason
/// naming the control looked for. It is never passed by another road (the
/// page's code form sent empty, which may land on the failure page too).
pub fn no_cancel(answering: Page, page: &Url) -> Failure {
    Failure::not_applicable(format!(
        "{} at {page} offers no control that cancels (a button or link of its forms saying \
         cancel, abort, decline or the like, or returning to the shop), which this scenario's \
         buyer presses; payconf never reaches the end another way. If the page cancels by \
         another control, describe it with {}",
        answering.name(),
        answering.steps_setting(),
    ))
}

/// The error of a page whose controls payconf cannot tell apart: `why`
/// lists them ([`super::control_rule::Choosing::words`]).
pub fn unclear(answering: Page, page: &Url, why: &str) -> Failure {
    Failure::harness(format!(
        "payconf cannot tell how the buyer answers {} at {page}: {why}",
        answering.name()
    ))
}

/// The error of a journey that passed [`super::navigation::MAX_WALKS`]
/// pages without reaching the one the buyer answers.
pub fn too_many_walks(answering: Page, last: &Url) -> Failure {
    Failure::harness(format!(
        "payconf passed {} pages without finding where the buyer answers {} (the fields {} \
         names); the last was {last}",
        super::navigation::MAX_WALKS,
        answering.name(),
        answering.fields_setting(),
    ))
}

/// `text` with its first letter capital, to begin a sentence.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each page's "asked again" error is one clean sentence: no run of
    /// spaces or line break from the source's line continuations.
    #[test]
    fn asked_again_is_said_in_clean_sentences() {
        let page = Url::parse("https://pay.example/card").expect("valid");
        let values: BTreeMap<String, String> = [("otp".to_owned(), "123456".to_owned())].into();
        for answered in [Page::Payment, Page::Issuer, Page::MethodApproval] {
            let said = asked_again(answered, &page, &values).to_string();
            assert!(!said.contains("  "), "{said:?}");
            assert!(!said.contains('\n'), "{said:?}");
        }
        let payment = asked_again(Page::Payment, &page, &values).to_string();
        assert!(
            payment.contains(
                "the test cards in [cards] against those the target's test environment takes, \
                 and buyer_name"
            ),
            "{payment}"
        );
    }
}
