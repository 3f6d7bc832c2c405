//! A notification's page: where it went, its body, each attempt with the
//! merchant server's answer, and a button that sends it again once it is
//! delivered or abandoned (the same event ID and body, signed anew, so a
//! server that takes each event once by its ID takes it once).

use http::{Response, StatusCode};
use uuid::Uuid;

use super::{SignedIn, page, payments::describe, see_other, token_field, when};
use crate::{
    call_log::{KEPT, ResendRefused, Sent, redacted},
    notify,
    pages::escape,
    paths::BACK_OFFICE_PATH,
    state::{Body, Service},
    timeline::Event,
};

/// `GET /payments/{id}/notifications/{event}`.
pub fn show(
    service: &Service,
    signed_in: &SignedIn<'_>,
    id: &str,
    event: &str,
    refused: Option<ResendRefused>,
) -> Response<Body> {
    let merchant = signed_in.session.merchant;
    let Some((id, event_id, events)) = find(service, merchant, id, event) else {
        return not_found(signed_in);
    };
    let sent = service.call_log.notification(merchant, event_id);
    let attempts: Vec<String> = events
        .iter()
        .map(|event| {
            format!(
                "<li><time>{}</time>: {}</li>",
                when(event.at_ms),
                describe(&event.what, id)
            )
        })
        .collect();
    let (state, resend) = delivery_said(sent.as_ref(), signed_in, id, event_id);
    let refusal = match refused {
        Some(ResendRefused::InProgress) => {
            "<p class=\"problem\" role=\"alert\">Not sent again: it is still being delivered.</p>\n"
        }
        Some(ResendRefused::NotKept) => {
            "<p class=\"problem\" role=\"alert\">Not sent again: its body is no longer kept.</p>\n"
        }
        None => "",
    };
    let (to, body) = sent.as_ref().map_or_else(
        || ("not kept".to_owned(), "(no longer kept)".into()),
        |sent| {
            (
                format!("<code>{}</code>", escape(sent.url.as_str())),
                redacted(&sent.body),
            )
        },
    );
    let main = format!(
        r#"{refusal}<dl>
<dt>Payment</dt><dd><a href="{BACK_OFFICE_PATH}/payments/{id}">{id}</a></dd>
<dt>Event ID</dt><dd><code>{event_id}</code></dd>
<dt>Posted to</dt><dd>{to}</dd>
<dt>State</dt><dd>{state}</dd>
</dl>
{resend}
<h2>Attempts (UTC)</h2>
<ol class="timeline">
{attempts}
</ol>
<h2>Body</h2>
<p class="hint">Posted as <code>application/json</code>, with its signature in the headers.</p>
<pre>{body}</pre>"#,
        state = escape(&state),
        attempts = attempts.join("\n"),
        body = escape(&body),
    );
    let status = if refused.is_some() {
        StatusCode::CONFLICT
    } else {
        StatusCode::OK
    };
    page(
        status,
        &format!("Notification of payment {id}"),
        Some(signed_in),
        &main,
    )
}

/// The notification's state, and how (or why not) it is sent again.
fn delivery_said(
    sent: Option<&Sent>,
    signed_in: &SignedIn<'_>,
    id: u64,
    event_id: Uuid,
) -> (String, String) {
    match sent {
        None => (
            "not known: its body is no longer kept".to_owned(),
            format!(
                "<p class=\"hint\">Its body is no longer kept (the sandbox keeps each shop's \
                 last {KEPT} notifications, in memory, since it started), so it cannot be sent \
                 again.</p>"
            ),
        ),
        Some(sent) if !sent.settled => (
            "being delivered: an attempt or a retry is to come".to_owned(),
            "<p class=\"hint\">It can be sent again once it is delivered or abandoned.</p>"
                .to_owned(),
        ),
        Some(sent) => (
            format!("settled after {} attempts", sent.attempts),
            format!(
                r#"<form method="post" action="{BACK_OFFICE_PATH}/payments/{id}/notifications/{event_id}/resend">
{token}
<p class="hint">The same event ID and body, signed anew: a server that takes each event once, by its ID, takes it once.</p>
<button type="submit">Send it again</button>
</form>"#,
                token = token_field(signed_in),
            ),
        ),
    }
}

/// `POST /payments/{id}/notifications/{event}/resend`, its form checked.
pub fn resend(
    service: &Service,
    signed_in: &SignedIn<'_>,
    id: &str,
    event: &str,
) -> Response<Body> {
    let merchant = signed_in.session.merchant;
    let Some((payment_id, event_id, _)) = find(service, merchant, id, event) else {
        return not_found(signed_in);
    };
    match notify::resend(service, merchant, payment_id, event_id) {
        Ok(()) => see_other(
            &format!("{BACK_OFFICE_PATH}/payments/{payment_id}/notifications/{event_id}"),
            None,
        ),
        Err(refused) => show(service, signed_in, id, event, Some(refused)),
    }
}

/// Payment `id` of the shop, the event and the timeline's events about it.
fn find(
    service: &Service,
    merchant: u32,
    id: &str,
    event: &str,
) -> Option<(u64, Uuid, Vec<Event>)> {
    let id = id.parse::<u64>().ok()?;
    let event_id = Uuid::try_parse(event).ok()?;
    let token = service.store.token_of(id)?;
    let events = service
        .store
        .with_payment(&token, |p| {
            (p.merchant == merchant).then(|| {
                p.events()
                    .iter()
                    .filter(|e| e.what.notification() == Some(event_id))
                    .cloned()
                    .collect::<Vec<_>>()
            })
        })
        .ok()??;
    let known = !events.is_empty()
        || service
            .call_log
            .notification(merchant, event_id)
            .is_some_and(|s| s.payment_id == id);
    known.then_some((id, event_id, events))
}

fn not_found(signed_in: &SignedIn<'_>) -> Response<Body> {
    page(
        StatusCode::NOT_FOUND,
        "Notification not found",
        Some(signed_in),
        &format!(
            r#"<p>This shop has no such notification. <a href="{BACK_OFFICE_PATH}/payments">All payments</a>.</p>"#
        ),
    )
}
