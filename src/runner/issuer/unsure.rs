//! What payconf says when a page leaves it unsure whether the target or the
//! target file is at fault: an error of the harness that names the setting
//! that resolves it. Both drivers say it alike.

use std::collections::BTreeMap;

use url::Url;

use crate::runner::result::Failure;

/// The error of a page that, after the buyer's answer, asks again for what
/// payconf typed: the configured values were not accepted, which payconf
/// cannot tell from a target at fault.
pub fn asked_again(page: &Url, values: &BTreeMap<String, String>) -> Failure {
    let names: Vec<String> = values
        .keys()
        .map(|name| format!("acs.fields.{}", crate::runner::neutral::inline(name)))
        .collect();
    Failure::harness(format!(
        "after payconf typed {} and confirmed, the issuer page at {page} asks for {} \
         again: the configured value was not accepted. Check it against the values the \
         target's test environment takes (a fixed one-time code, for instance)",
        names.join(", "),
        if names.len() == 1 { "it" } else { "them" },
    ))
}

/// The error of a page that asks the buyer to type into fields the target
/// file does not name: the configuration, not the page, is to be fixed.
pub fn unnamed_fields(page: &Url, asked: &[String], values: &BTreeMap<String, String>) -> Failure {
    let list = |names: &mut dyn Iterator<Item = &String>| {
        names
            .map(|name| crate::runner::neutral::inline(name).into_owned())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let configured = if values.is_empty() {
        "the target file names none ([acs] fields is empty or missing)".to_owned()
    } else {
        format!("acs.fields names {}", list(&mut values.keys()))
    };
    Failure::harness(format!(
        "the issuer page at {page} asks the buyer to type into {} and {configured}: payconf \
         would send it empty. Set the values a buyer types there in [acs] fields of the \
         target file (for instance fields = {{ {} = \"...\" }}), or describe the page with \
         [[acs.steps]]",
        list(&mut asked.iter()),
        asked
            .first()
            .map_or("otp".to_owned(), |name| crate::runner::neutral::inline(
                name
            )
            .into_owned()),
    ))
}

/// The error of a page whose controls payconf cannot tell apart: `why`
/// lists them ([`super::words::Choosing::words`]).
pub fn unclear(page: &Url, why: &str) -> Failure {
    Failure::harness(format!(
        "payconf cannot tell how the buyer answers the issuer page at {page}: {why}"
    ))
}
