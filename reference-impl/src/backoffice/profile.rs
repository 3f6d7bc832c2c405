//! The merchant's profile page: result pages, notification address and
//! signing secret, changed together by one form; the API key, shown
//! masked and rotated by its own button; the shop's payment methods and the
//! card tokens it holds, listed. A field that is refused is named
//! in the answer, and the profile keeps every previous value.

use http::{Response, StatusCode};

use super::{SignedIn, field, page, token_field};
use crate::{
    card_tokens::MAX_TOKENS_PER_SHOP,
    payment_method::Method,
    config::{MAX_SETTLEMENT_DELAY_SECS, absolute_address, check_signing_secret, random_secret},
    ledger::Settlement,
    pages::escape,
    paths::BACK_OFFICE_PATH,
    profiles::UpdateError,
    state::{Body, Service},
};

/// What the page says above the form.
#[derive(Debug)]
pub enum Notice<'a> {
    /// The change was made.
    Saved,
    /// A field was refused: its label and why.
    Refused {
        /// The field's label.
        field: &'a str,
        /// The field's input name, to point the browser at it.
        name: &'a str,
        /// Why.
        reason: String,
    },
}

/// The profile form; `new_key` is shown once, right after a rotation.
pub fn show_with(
    service: &Service,
    signed_in: &SignedIn<'_>,
    notice: Option<Notice<'_>>,
    status: StatusCode,
    new_key: Option<&str>,
) -> Response<Body> {
    let profile = service.merchant(signed_in.session.merchant);
    let merchant = &profile.merchant;
    let (notice_html, refused_name) = notice_said(notice.as_ref());
    let invalid = |name: &str| {
        if refused_name == Some(name) {
            r#" aria-invalid="true" aria-describedby="problem""#
        } else {
            ""
        }
    };
    let key_html = new_key.map(new_key_said).unwrap_or_default();
    let main = format!(
        r#"{notice_html}
<dl>
<dt>Shop login</dt><dd>{shop}</dd>
</dl>
<form method="post" action="{BACK_OFFICE_PATH}/profile">
{token}
<label for="successUrl">Success page</label>
<input id="successUrl" name="successUrl" type="url" required value="{success}"{success_invalid}>
<p class="hint">Where the buyer lands after a successful payment, unless a submit names another address.</p>
<label for="failureUrl">Failure page</label>
<input id="failureUrl" name="failureUrl" type="url" required value="{failure}"{failure_invalid}>
<p class="hint">Where the buyer lands after a declined or cancelled payment.</p>
<label for="notificationUrl">Notification address</label>
<input id="notificationUrl" name="notificationUrl" type="url" value="{notification}"{notification_invalid}>
<p class="hint">Your server's address: the sandbox posts each payment's outcome there. Empty: no notifications, unless a submit names an address.</p>
<label for="signingSecret">Notification signing secret</label>
<input id="signingSecret" name="signingSecret" type="text" autocomplete="off" value="" placeholder="{secret}"{secret_invalid}>
<p class="hint">Each notification is signed with it (HMAC-SHA256, in the Notification-Signature header): 16 to 128 characters. Once saved it is shown only by its last four characters; leave the field empty to keep it.</p>
<label for="settlement">Settlement</label>
<select id="settlement" name="settlement">
<option value="unified"{unified}>Unified: the sandbox settles each paid payment by itself</option>
<option value="separated"{separated}>Separated: a paid payment waits for your capture or cancel</option>
</select>
<label for="settlementDelaySecs">Unified settlement delay (seconds)</label>
<input id="settlementDelaySecs" name="settlementDelaySecs" type="number" min="0" max="2592000" required value="{delay}"{delay_invalid}>
<p class="hint">How long after a unified shop's payment the sandbox settles it (the real service takes hours). Payments already paid keep the way they were paid under.</p>
<button type="submit">Save the profile</button>
</form>
<h2>API key</h2>
{key_html}
<dl><dt>Current key</dt><dd><code>{masked}</code></dd></dl>
<form method="post" action="{BACK_OFFICE_PATH}/api-key">
{token}
<button type="submit">Rotate the API key</button>
<p class="hint">A new key is made and the current one stops working at once.</p>
</form>
{held}"#,
        shop = escape(&merchant.shop_login),
        token = token_field(signed_in),
        success = escape(profile.pages.success.as_str()),
        failure = escape(profile.pages.failure.as_str()),
        notification = escape(
            merchant
                .notification_url
                .as_ref()
                .map_or("", |u| u.as_str())
        ),
        secret = escape(&masked(last_four(&merchant.signing_secret))),
        masked = escape(&masked(profile.key.hint())),
        success_invalid = invalid("successUrl"),
        failure_invalid = invalid("failureUrl"),
        notification_invalid = invalid("notificationUrl"),
        secret_invalid = invalid("signingSecret"),
        unified = if merchant.settlement == Settlement::Separated {
            ""
        } else {
            " selected"
        },
        separated = if merchant.settlement == Settlement::Separated {
            " selected"
        } else {
            ""
        },
        delay = match merchant.settlement {
            Settlement::Unified { delay_ms } => delay_ms / 1000,
            Settlement::Separated => crate::config::DEFAULT_SETTLEMENT_DELAY_SECS,
        },
        delay_invalid = invalid("settlementDelaySecs"),
        held = methods_and_tokens(service, signed_in.session.merchant),
    );
    page(status, "Merchant profile", Some(signed_in), &main)
}

/// The shop's payment methods, as `shop/methods` lists them, and the card
/// tokens it holds, as `shop/token/{shopLogin}` lists them.
fn methods_and_tokens(service: &Service, merchant: u32) -> String {
    let methods: String = Method::ALL
        .into_iter()
        .map(|method| {
            format!(
                "<li>{} (<code>{}</code>)</li>",
                escape(method.name()),
                escape(method.payment_type())
            )
        })
        .collect();
    let tokens = service.card_tokens.list(merchant);
    let held = if tokens.is_empty() {
        "<p>The shop holds no card token: a submit with <code>requestToken</code>, or \
         <code>shop/token/</code>, asks for one.</p>"
            .to_owned()
    } else {
        let rows: String = tokens
            .iter()
            .map(|(token, card)| {
                let (month, year) = card.expiry_words();
                format!(
                    "<tr><td><code>{}</code></td><td><code>{}</code></td><td>{}/{}</td></tr>",
                    escape(token),
                    escape(&card.masked_pan),
                    escape(&month),
                    escape(&year)
                )
            })
            .collect();
        format!(
            "<table>\n<caption>{} of at most {MAX_TOKENS_PER_SHOP}</caption>\n<thead><tr><th scope=\"col\">Token</th><th scope=\"col\">Card</th><th scope=\"col\">Expiry</th></tr></thead>\n<tbody>{rows}</tbody>\n</table>",
            tokens.len()
        )
    };
    format!(
        "<h2>Payment methods</h2>\n<p>What the shop's buyers may pay with (<code>shop/methods</code>).</p>\n<ul>{methods}</ul>\n<h2>Card tokens</h2>\n{held}"
    )
}

/// The notice above the form, and the field a refusal names.
fn notice_said<'a>(notice: Option<&Notice<'a>>) -> (String, Option<&'a str>) {
    match notice {
        None => (String::new(), None),
        Some(Notice::Saved) => (
            r#"<p class="done" role="status">The profile was saved.</p>"#.to_owned(),
            None,
        ),
        Some(Notice::Refused {
            field,
            name,
            reason,
        }) => (
            format!(
                r#"<p class="problem" role="alert" id="problem">{}: {}. Nothing was changed.</p>"#,
                escape(field),
                escape(reason)
            ),
            Some(*name),
        ),
    }
}

/// A new key, shown this once after a rotation.
fn new_key_said(key: &str) -> String {
    format!(
        r#"<p class="done" role="status">The API key was rotated: the previous key no longer works. Copy the new key now; the back-office shows it only this once.</p>
<p><code id="new-key">{}</code></p>"#,
        escape(key)
    )
}

/// `GET`: the profile form, with a notice when given.
pub fn show(
    service: &Service,
    signed_in: &SignedIn<'_>,
    notice: Option<Notice<'_>>,
    status: StatusCode,
) -> Response<Body> {
    show_with(service, signed_in, notice, status, None)
}

/// `POST`: changes the profile's pages, notification address and secret,
/// all or none.
pub async fn update(
    service: &Service,
    signed_in: &SignedIn<'_>,
    form: &[(String, String)],
) -> Response<Body> {
    let value = |name: &str| field(form, name).unwrap_or("").trim();
    // Where the sandbox may post (see `outbound`), judged before anything
    // is changed, so a refused address is never saved nor sent to.
    if let Ok(notification) = absolute_address(value("notificationUrl")) {
        if let Err(reason) = service.outbound.judge(&notification).await {
            return show(
                service,
                signed_in,
                Some(Notice::Refused {
                    field: "Notification address",
                    name: "notificationUrl",
                    reason: reason.to_owned(),
                }),
                StatusCode::UNPROCESSABLE_ENTITY,
            );
        }
    }
    let changed = change(service, signed_in, "profile changed", |m| {
        let address = |label: &'static str, name: &'static str| {
            absolute_address(value(name)).map_err(|reason| (label, name, reason.to_owned()))
        };
        let success = address("Success page", "successUrl")?;
        let failure = address("Failure page", "failureUrl")?;
        let notification = match value("notificationUrl") {
            "" => None,
            _ => Some(address("Notification address", "notificationUrl")?),
        };
        // Empty: the secret saved is kept (the page never shows it whole).
        let secret = match value("signingSecret") {
            "" => m.signing_secret.clone(),
            given => {
                check_signing_secret(given).map_err(|reason| {
                    (
                        "Notification signing secret",
                        "signingSecret",
                        reason.to_owned(),
                    )
                })?;
                given.to_owned()
            }
        };
        let settlement = settlement_asked(form, m.settlement)?;
        m.success_url = success.into();
        m.failure_url = failure.into();
        m.notification_url = notification;
        m.signing_secret = secret;
        m.settlement = settlement;
        Ok(())
    });
    match changed {
        Ok(()) => show(service, signed_in, Some(Notice::Saved), StatusCode::OK),
        Err(UpdateError::Refused((field, name, reason))) => show(
            service,
            signed_in,
            Some(Notice::Refused {
                field,
                name,
                reason,
            }),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        Err(_) => not_changed(service, signed_in, "Profile", "could not be saved"),
    }
}

/// The settlement the form asks for; a form without one (an older
/// page's) keeps the shop's (`kept`). A refusal names the field.
fn settlement_asked(
    form: &[(String, String)],
    kept: Settlement,
) -> Result<Settlement, (&'static str, &'static str, String)> {
    Ok(match field(form, "settlement").map(str::trim) {
        None => kept,
        Some("separated") => Settlement::Separated,
        Some("unified") => {
            let delay = field(form, "settlementDelaySecs")
                .unwrap_or("")
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|secs| *secs <= MAX_SETTLEMENT_DELAY_SECS)
                .ok_or((
                    "Unified settlement delay",
                    "settlementDelaySecs",
                    "must be a whole number of seconds, at most 2592000 (30 days)".to_owned(),
                ))?;
            Settlement::Unified {
                delay_ms: delay * 1000,
            }
        }
        Some(_) => {
            return Err((
                "Settlement",
                "settlement",
                "must be unified or separated".to_owned(),
            ));
        }
    })
}

/// `POST`: a new API key; the previous one stops working at once.
pub fn rotate_key(service: &Service, signed_in: &SignedIn<'_>) -> Response<Body> {
    let key = format!("sk_sandbox_{}", random_secret());
    let rotated = change(service, signed_in, "API key rotated", |m| {
        m.api_key.clone_from(&key);
        Ok::<_, ()>(())
    });
    match rotated {
        Ok(()) => show_with(service, signed_in, None, StatusCode::OK, Some(&key)),
        Err(_) => not_changed(service, signed_in, "API key", "could not be rotated"),
    }
}

/// Changes the signed-in merchant's profile with `change`: written to the
/// data file when there is one, and logged as `what`.
fn change<E>(
    service: &Service,
    signed_in: &SignedIn<'_>,
    what: &'static str,
    change: impl FnOnce(&mut crate::config::Merchant) -> Result<(), E>,
) -> Result<(), UpdateError<E>> {
    let merchant = signed_in.session.merchant;
    let before = service.profiles.get(merchant);
    let changed_at = service.store.created_now();
    let profile = service.profiles.update(merchant, change)?;
    if let Some(journal) = &service.journal {
        journal.profile(&profile);
    }
    // A payment's notifications go where its profile said when it was
    // created: the payments before the change keep the old address.
    let address = &before.merchant.notification_url;
    if *address != profile.merchant.notification_url {
        let kept = service.store.keep_notification_addresses(
            merchant,
            changed_at,
            address.as_ref(),
        );
        tracing::info!(
            shop = profile.merchant.shop_login,
            payments = kept,
            "the earlier payments keep their notification address"
        );
    }
    tracing::info!(
        shop = profile.merchant.shop_login,
        "{what} in the back-office"
    );
    Ok(())
}

/// The profile form, saying that `field` was not changed, and why.
fn not_changed(
    service: &Service,
    signed_in: &SignedIn<'_>,
    field: &'static str,
    reason: &str,
) -> Response<Body> {
    show(
        service,
        signed_in,
        Some(Notice::Refused {
            field,
            name: "",
            reason: reason.to_owned(),
        }),
        StatusCode::INTERNAL_SERVER_ERROR,
    )
}

/// A secret as the back-office shows it: eight bullets, then the part of
/// it that may be shown (its last four characters, or nothing).
pub fn masked(shown: &str) -> String {
    format!("{}{shown}", "•".repeat(8))
}

/// A secret's last four characters when it has at least twelve.
fn last_four(secret: &str) -> &str {
    match secret.chars().count() {
        ..12 => "",
        _ => secret
            .char_indices()
            .rev()
            .nth(3)
            .map_or("", |(i, _)| &secret[i..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_shows_only_its_last_four_characters() {
        assert_eq!(masked(last_four("demo-signing-secret")), "••••••••cret");
        assert_eq!(masked(last_four("short")), "••••••••");
        assert!(!masked(last_four("sk_sandbox_0123456789abcdef")).contains("sandbox"));
    }
}
