//! A payment's money on its back-office page: where it stands (authorised,
//! settled, cancelled, refunded) with its money events, and the buttons a
//! merchant settles it with as the API's operations do: capture and cancel
//! (a shop that settles separately, before settlement), refund (of what is
//! left of the settled money). Each is a form of the page's own, under the
//! session's form token and the same-origin rule, and asks the payment's
//! ledger as the API does, as a back-office event (`BOF`). Each form
//! carries the money's version it was shown at (its number of money
//! events): a form sent again, or after the money moved, is refused and
//! changes nothing, so a replayed refund refunds once.

use super::{SignedIn, field, token_field, when};
use crate::{
    ledger::{Environment, Ledger, Refused, Settlement},
    money::Amount,
    pages::escape,
    paths::BACK_OFFICE_PATH,
    state::Service,
    timeline::now_ms,
};

/// A button of the money section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Settle the payment (a separated shop's), wholly or in part.
    Capture,
    /// Delete the authorization, before settlement.
    Cancel,
    /// Refund settled money, wholly or in part.
    Refund,
}

impl Action {
    /// The action a path's last segment names.
    pub fn of(segment: &str) -> Option<Self> {
        match segment {
            "capture" => Some(Self::Capture),
            "cancel" => Some(Self::Cancel),
            "refund" => Some(Self::Refund),
            _ => None,
        }
    }

    fn verb(self) -> &'static str {
        match self {
            Self::Capture => "capture",
            Self::Cancel => "cancel",
            Self::Refund => "refund",
        }
    }
}

/// What the section says after an action.
#[derive(Debug)]
pub enum Outcome {
    /// Done: what was done.
    Done(String),
    /// Refused, with the real service's code.
    Refused(String),
}

/// The money section of a payment's page: its state, events and the
/// buttons its state allows.
pub fn section(
    signed_in: &SignedIn<'_>,
    payment_id: u64,
    ledger: Option<&Ledger>,
    settlement: Settlement,
    outcome: Option<&Outcome>,
) -> String {
    let notice = match outcome {
        None => String::new(),
        Some(Outcome::Done(what)) => {
            format!(r#"<p class="done" role="status">{}</p>"#, escape(what))
        }
        Some(Outcome::Refused(why)) => format!(
            r#"<p class="problem" role="alert">{}. Nothing was changed.</p>"#,
            escape(why)
        ),
    };
    let Some(ledger) = ledger else {
        return format!(
            "{notice}<h2>Money</h2>\n<p>No money has moved: the payment was not paid.</p>"
        );
    };
    let state = state_said(ledger, settlement);
    let events: Vec<String> = ledger
        .events
        .iter()
        .map(|e| {
            format!(
                "<li><code>{}</code> {}.{:02} ({}), <time>{}</time></li>",
                e.kind.code(),
                e.minor / 100,
                e.minor % 100,
                e.environment.code(),
                when(e.at_ms)
            )
        })
        .collect();
    let open = ledger.authorized
        && ledger.settled_minor == 0
        && !ledger.cancelled()
        && ledger.settles_at_ms.is_none();
    let left = ledger.settled_minor.saturating_sub(ledger.refunded_minor);
    let token = token_field(signed_in);
    let version = ledger.events.len();
    let form = |action: Action, label: &str, amount: Option<u64>| {
        button(&token, payment_id, version, action, label, amount)
    };
    let mut buttons = Vec::new();
    if open {
        let authorized = ledger.events.first().map_or(0, |e| e.minor);
        buttons.push(form(Action::Capture, "Capture", Some(authorized)));
        buttons.push(form(Action::Cancel, "Cancel the payment", None));
    }
    if left > 0 {
        buttons.push(form(Action::Refund, "Refund", Some(left)));
    }
    format!(
        "{notice}<h2>Money</h2>\n<p>{}: settled {}.{:02}, refunded {}.{:02}.</p>\n<ol class=\"timeline money\">\n{}\n</ol>\n{}",
        escape(&state),
        ledger.settled_minor / 100,
        ledger.settled_minor % 100,
        ledger.refunded_minor / 100,
        ledger.refunded_minor % 100,
        events.join("\n"),
        buttons.join("\n")
    )
}

/// The payment's money state, in words.
fn state_said(ledger: &Ledger, settlement: Settlement) -> String {
    match ledger.state() {
        "AUT" if !ledger.authorized => "declined".to_owned(),
        "AUT" => match (settlement, ledger.settles_at_ms) {
            (_, Some(at)) => format!("authorised; the service settles it at {}", when(at)),
            _ => "authorised, waiting for a capture or a cancel".to_owned(),
        },
        "MOV" => "settled".to_owned(),
        "CAN" => "cancelled".to_owned(),
        "STO" => "refunded in part or whole".to_owned(),
        other => other.to_owned(),
    }
}

/// A button of the section: `action` on the payment, its form carrying the
/// session's `token` field and the money's `version`, with the amount
/// field filled in with `amount` where the action takes one.
fn button(
    token: &str,
    payment_id: u64,
    version: usize,
    action: Action,
    label: &str,
    amount: Option<u64>,
) -> String {
    let verb = action.verb();
    let amount_input = amount.map_or(String::new(), |minor| {
        format!(
            r#"<label for="{verb}-amount">Amount</label>
<input id="{verb}-amount" name="amount" inputmode="decimal" value="{}.{:02}" required>
"#,
            minor / 100,
            minor % 100
        )
    });
    format!(
        r#"<form method="post" action="{BACK_OFFICE_PATH}/payments/{payment_id}/{verb}">
{token}
<input type="hidden" name="version" value="{version}">
{amount_input}<button type="submit">{label}</button>
</form>"#
    )
}

/// Applies a button of the section to the merchant's payment `id`; what
/// came of it, which the payment's page then says, or `None` when the
/// merchant has no payment of that ID (the page says so).
pub fn act(
    service: &Service,
    signed_in: &SignedIn<'_>,
    id: &str,
    action: Action,
    form: &[(String, String)],
) -> Option<Outcome> {
    let amount = match action {
        Action::Cancel => None,
        Action::Capture | Action::Refund => {
            match Amount::parse(field(form, "amount").unwrap_or("").trim()) {
                Ok(amount) => Some(amount),
                Err(reason) => return Some(Outcome::Refused(format!("Amount: {reason}"))),
            }
        }
    };
    let merchant = signed_in.session.merchant;
    let version = field(form, "version").and_then(|v| v.trim().parse::<usize>().ok());
    let token = id
        .parse::<u64>()
        .ok()
        .and_then(|id| service.store.token_of(id))?;
    let now = now_ms();
    let acted = service
        .store
        .with_payment(&token, |p| {
            if p.merchant != merchant {
                return None;
            }
            let authorized = p.amount;
            let Some(ledger) = p.ledger_now(now) else {
                return Some(Acted::NotPaid);
            };
            if version != Some(ledger.events.len()) {
                return Some(Acted::Stale);
            }
            let done = match (action, amount) {
                (Action::Capture, Some(amount)) => {
                    ledger.capture(amount, authorized, Environment::BackOffice, now)
                }
                (Action::Refund, Some(amount)) => {
                    ledger.refund(amount, Environment::BackOffice, now)
                }
                _ => ledger.cancel(Environment::BackOffice, now),
            };
            crate::notify::money(service, &token, p);
            Some(Acted::Asked(done))
        })
        .ok()
        .flatten()?;
    Some(match acted {
        Acted::Asked(Ok(())) => {
            tracing::info!(
                payment_id = id,
                operation = action.verb(),
                "payment operation from the back-office"
            );
            Outcome::Done(match (action, amount) {
                (Action::Capture, Some(amount)) => format!("Captured {amount}."),
                (Action::Refund, Some(amount)) => format!("Refunded {amount}."),
                _ => "The payment was cancelled.".to_owned(),
            })
        }
        Acted::Asked(Err(Refused { code, description })) => {
            Outcome::Refused(format!("Refused ({code}): {description}"))
        }
        Acted::NotPaid => Outcome::Refused("Refused: this payment was not paid".to_owned()),
        Acted::Stale => Outcome::Refused(
            "Refused: the payment's money changed since this form was shown (a form sent \
             twice, or another change first); look at it again below"
                .to_owned(),
        ),
    })
}

/// What came of a button under the payment's lock.
enum Acted {
    /// The ledger was asked: its answer.
    Asked(Result<(), Refused>),
    /// The payment has no money: it was not paid.
    NotPaid,
    /// The form was shown at another version of the money than its own.
    Stale,
}
