//! The twin's payment page as many real pages build it
//! ([`Variation::ReviewAndLinkedMethod`]): the card form leads to a review
//! step ("Review your payment", *Back* before *Confirm and pay*), the card
//! kept by the twin meanwhile, and the alternative method is offered as a
//! link whose query carries a nonce the start refuses to go without (400).

use std::collections::HashMap;

use wiremock::{Request, ResponseTemplate};

use super::{HTML, Twin, answer, form_fields, page, query};

impl Twin {
    /// The alternative method as a link, its nonce in the query.
    pub(super) fn method_link(token: &str) -> String {
        format!(
            r#"<p>Or pay with <a id="twinpay" href="/checkout/apm/start?t={token}&amp;s={}">TwinPay</a></p>"#,
            nonce(token)
        )
    }

    /// `POST /checkout/pay/charge` in the variation: the card kept, the
    /// review shown.
    pub(super) fn review(&self, request: &Request) -> ResponseTemplate {
        let form = form_fields(request);
        let token = form.get("t").cloned().unwrap_or_default();
        if self.page_payment(&token).is_none_or(|p| p.submitted) {
            return answer(404, HTML, "<p>Unknown order</p>");
        }
        let last4: String = form
            .get("pan")
            .map(|pan| {
                let digits: Vec<char> = pan.chars().filter(char::is_ascii_digit).collect();
                digits[digits.len().saturating_sub(4)..].iter().collect()
            })
            .unwrap_or_default();
        self.state
            .reviews
            .lock()
            .expect("lock")
            .insert(token.clone(), form);
        page(
            "Review your payment",
            &format!(
                r#"<h1>Review your payment</h1><p>42.00 USD with the card ending {last4}.</p>
<form method="post" action="/checkout/pay/confirm">
  <input type="hidden" name="t" value="{token}">
  <button type="submit" name="step" value="back">Back</button>
  <button type="submit" name="step" value="pay">Confirm and pay</button>
</form>"#
            ),
        )
    }

    /// `POST /checkout/pay/confirm`: the kept card paid, or the card form
    /// shown again.
    pub(super) fn confirm_review(&self, request: &Request) -> ResponseTemplate {
        let form = form_fields(request);
        let token = form.get("t").cloned().unwrap_or_default();
        let kept: Option<HashMap<String, String>> =
            self.state.reviews.lock().expect("lock").remove(&token);
        match (form.get("step").map(String::as_str), kept) {
            (Some("pay"), Some(card)) => self.charge_form(&card),
            (Some("back"), Some(card)) => {
                let framed = card.get("framed").map(String::as_str) == Some("1");
                self.card_form(&token, framed)
            }
            _ => answer(409, HTML, "<p>Nothing to confirm</p>"),
        }
    }

    /// `GET /checkout/apm/start`: the linked method, only with its nonce.
    pub(super) fn linked_alternative(&self, request: &Request) -> ResponseTemplate {
        let token = query(request, "t").unwrap_or_default();
        if query(request, "s").as_deref() != Some(nonce(&token).as_str()) {
            return answer(400, HTML, "<p>Bad request: the link has expired</p>");
        }
        self.alternative_for(&token)
    }
}

/// The nonce of a payment's method link.
fn nonce(token: &str) -> String {
    token
        .chars()
        .rev()
        .filter(char::is_ascii_alphanumeric)
        .take(12)
        .collect()
}
