//! What an answer says: the envelope, whether the request was processed, the
//! reference profile's statuses and codes, and the submit payload's
//! transaction fields.

use cucumber::then;
use payconf_spec::transaction::TransactionResult;
use serde_json::Value;

use super::payment::shown;
use crate::runner::world::{Failure, PaymentWorld, Settled, is_json_media_type};

#[then("the request is correctly processed")]
fn correctly_processed(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        let code = answer.str_at("/error/code");
        let description = answer.str_at("/error/description").unwrap_or("");
        if code != Some("0") || description.trim().is_empty() {
            return Err(world.failure(
                "error.code \"0\" and an error.description saying so",
                &format!(
                    "error.code {}, error.description {}",
                    shown(answer.at("/error/code")),
                    shown(answer.at("/error/description"))
                ),
            ));
        }
        Ok(())
    })
}

#[then("the request is not correctly processed")]
fn not_processed(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        match answer.str_at("/error/code") {
            Some(code) if code != "0" => Ok(()),
            _ => Err(world.failure(
                "an error.code other than \"0\"",
                &shown(answer.at("/error/code")),
            )),
        }
    })
}

#[then("the answer carries the envelope")]
fn carries_envelope(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        let error = answer.at("/error");
        let processed = answer.str_at("/error/code") == Some("0");
        // On a refusal the contract says nothing of the payload: null is how
        // most serialisers write "none", as good as leaving it out.
        let payload_ok = match answer.at("/payload") {
            None => true,
            Some(Value::Null) => !processed,
            Some(payload) => payload.is_object(),
        };
        let ok = error.is_some_and(|e| {
            e.get("code").is_some_and(Value::is_string)
                && e.get("description").is_some_and(Value::is_string)
        }) && payload_ok;
        if !ok {
            return Err(world.failure(
                "the envelope: an error object with string code and description; payload an \
                 object (absent or null allowed on a refusal)",
                &format!(
                    "error {}, payload {}",
                    shown(error),
                    shown(answer.at("/payload"))
                ),
            ));
        }
        Ok(())
    })
}

#[then("the answer is JSON")]
fn answer_is_json(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        let response = world
            .exchange_at(answer.exchange)
            .response
            .as_ref()
            .map_err(|e| world.failure("an answer", &e.to_string()))?;
        let media_type = response.header("content-type").unwrap_or("");
        if !is_json_media_type(media_type) || answer.json.is_none() {
            return Err(world.failure(
                "a JSON media type and a body that parses as JSON",
                &format!(
                    "media type {media_type:?}, body {}",
                    if answer.json.is_some() {
                        "parses"
                    } else {
                        "does not parse"
                    }
                ),
            ));
        }
        Ok(())
    })
}

#[then(expr = "the answer has HTTP status {int}")]
fn has_status(world: &mut PaymentWorld, status: u16) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        if answer.status != status {
            return Err(world.failure(
                &format!("HTTP {status}"),
                &format!("HTTP {}", answer.status),
            ));
        }
        Ok(())
    })
}

#[then(expr = "the request is refused with HTTP {int} and code {string}")]
fn refused_with(world: &mut PaymentWorld, status: u16, code: String) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        let seen_code = answer.str_at("/error/code");
        let empty_payload = answer
            .at("/payload")
            .and_then(Value::as_object)
            .is_some_and(|p| p.is_empty());
        if answer.status != status || seen_code != Some(code.as_str()) || !empty_payload {
            return Err(world.failure(
                &format!("HTTP {status}, error.code {code:?}, an empty payload"),
                &format!(
                    "HTTP {}, error.code {}, payload {}",
                    answer.status,
                    shown(answer.at("/error/code")),
                    shown(answer.at("/payload"))
                ),
            ));
        }
        Ok(())
    })
}

/// A description the real service is recorded to give (docs/real-service.md):
/// held by its words, in any order and case, since a description is the
/// service's prose (the recorded "missing authentication header" and the
/// documents' "authentication header missing" are one description).
/// Descriptions no fact gives are never held.
#[then(expr = "the error description says {string}, in any order of its words")]
fn description_says(world: &mut PaymentWorld, recorded: String) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        let description = answer.str_at("/error/description").unwrap_or("");
        if !says_in_words(description, &recorded) {
            return Err(world.failure(
                &format!("an error.description with the words of {recorded:?}"),
                &format!("{description:?}"),
            ));
        }
        Ok(())
    })
}

/// Whether `text` has every word of `recorded`, in any order and case.
fn says_in_words(text: &str, recorded: &str) -> bool {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .collect();
    recorded
        .split_whitespace()
        .all(|word| words.contains(&word.to_lowercase()))
}

#[then(expr = "the answer's Allow header is {string}")]
fn allow_header(world: &mut PaymentWorld, allow: String) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        let seen = world
            .exchange_at(answer.exchange)
            .response
            .as_ref()
            .ok()
            .and_then(|r| r.header("allow"))
            .unwrap_or("")
            .to_owned();
        if seen != allow {
            return Err(world.failure(&format!("Allow: {allow}"), &format!("Allow: {seen}")));
        }
        Ok(())
    })
}

fn payload_string_is(world: &PaymentWorld, field: &str, expected: &str) -> Result<(), Failure> {
    let answer = world.answer()?;
    let pointer = format!("/payload/{field}");
    if answer.str_at(&pointer) != Some(expected) {
        return Err(world.failure(
            &format!("payload.{field} {expected:?}"),
            &shown(answer.at(&pointer)),
        ));
    }
    Ok(())
}

#[then(expr = "the transaction type is {string}")]
fn transaction_type(world: &mut PaymentWorld, expected: String) -> Result<(), Settled> {
    world.check(|world| payload_string_is(world, "transactionType", &expected))
}

#[then(expr = "the transaction result is {string}")]
fn transaction_result(world: &mut PaymentWorld, expected: String) -> Result<(), Settled> {
    world.check(|world| payload_string_is(world, "transactionResult", &expected))
}

#[then("the transaction result is empty")]
fn transaction_result_empty(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| payload_string_is(world, "transactionResult", ""))
}

#[then(expr = "the transaction error code is {string}")]
fn transaction_error_code(world: &mut PaymentWorld, expected: String) -> Result<(), Settled> {
    world.check(|world| payload_string_is(world, "transactionErrorCode", &expected))
}

/// A paid submit that also asks for issuer authentication contradicts
/// itself: "OK" says the payment is executed, 8006 that it waits for the
/// issuer (States and transitions).
#[then("no issuer authentication is asked for")]
fn no_authentication_asked(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        if answer.str_at("/payload/transactionErrorCode") == Some("8006") {
            return Err(world.failure(
                "no payload.transactionErrorCode \"8006\" beside a paid transaction",
                "transactionErrorCode \"8006\": the answer asks for issuer authentication too",
            ));
        }
        Ok(())
    })
}

#[then(expr = "the transaction error description is {string}")]
fn transaction_error_description(
    world: &mut PaymentWorld,
    expected: String,
) -> Result<(), Settled> {
    world.check(|world| payload_string_is(world, "transactionErrorDescription", &expected))
}

#[then("the transaction error description is not empty")]
fn transaction_error_description_not_empty(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        match answer.str_at("/payload/transactionErrorDescription") {
            Some(text) if !text.trim().is_empty() => Ok(()),
            _ => Err(world.failure(
                "payload.transactionErrorDescription, a non-empty text",
                &shown(answer.at("/payload/transactionErrorDescription")),
            )),
        }
    })
}

#[then("the payment ID is the one create returned")]
fn same_payment_id(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        let created = world.payment()?.payment_id.clone();
        let seen = answer.str_at("/payload/paymentID");
        if created.is_none() || seen != created.as_deref() {
            return Err(world.failure(
                &format!(
                    "payload.paymentID {:?}, the one create returned",
                    created.unwrap_or_default()
                ),
                &shown(answer.at("/payload/paymentID")),
            ));
        }
        Ok(())
    })
}

#[then("no payment is executed")]
fn no_payment_executed(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        let executed = answer.str_at("/error/code") == Some("0")
            && answer.str_at("/payload/transactionResult") == Some(TransactionResult::Ok.word());
        if executed {
            return Err(world.failure(
                "no executed payment (not error.code \"0\" with transactionResult \"OK\")",
                "the payment was executed: error.code \"0\", transactionResult \"OK\"",
            ));
        }
        Ok(())
    })
}

/// The payment went through: `error.code` "0" and `transactionResult` "OK".
/// Only whether it went through counts here, so "OK" is compared in any
/// case; its exact spelling is SUBMIT-03's to judge.
#[then("the payment is executed")]
fn payment_executed(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        let result = answer.str_at("/payload/transactionResult");
        if answer.str_at("/error/code") != Some("0")
            || !result.is_some_and(|r| r.eq_ignore_ascii_case(TransactionResult::Ok.word()))
        {
            return Err(world.failure(
                "the payment executed: error.code \"0\" and transactionResult \"OK\"",
                &format!(
                    "error.code {}, transactionResult {}",
                    shown(answer.at("/error/code")),
                    shown(answer.at("/payload/transactionResult"))
                ),
            ));
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::says_in_words;

    #[test]
    fn a_recorded_description_is_held_by_its_words_in_any_order_and_case() {
        for text in [
            "missing authentication header",
            "Authentication header missing: paymentToken",
        ] {
            assert!(
                says_in_words(text, "missing authentication header"),
                "{text}"
            );
        }
        for text in ["invalid paymentToken", "authentication headers missing", ""] {
            assert!(
                !says_in_words(text, "missing authentication header"),
                "{text}"
            );
        }
    }
}
