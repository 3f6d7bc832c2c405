//! The twin's standard payment page, on the service's origin, in the
//! styles real services build ([`PageStyle`]), with choices of its own
//! everywhere the sandbox makes others: its address takes the payment's ID
//! and token under other names (`/checkout/pay?payment=…&t=…`), the expiry
//! is one `MM/YY` input, the inputs are `pan`, `exp`, `csc` and
//! `cardholder` (no e-mail), the button says "Pay now". An enrolled card
//! goes through the twin's issuer ([`super::issuer`]); its alternative
//! method, TwinPay, is approved on the issuer's origin and comes back
//! through the service to the shop.

use wiremock::{Request, ResponseTemplate};

use crate::support::overlay_checkout;

use super::{
    Defect, FRICTIONLESS_CARD, THREE_DS_CARD, Twin, Variation, answer, form_fields,
    outcomes::{DO_NOT_HONOUR, Ending},
    page, query, redirect,
};

/// How the twin builds its payment page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageStyle {
    /// The form is the whole page; the issuer's page opens in the window.
    FullPage,
    /// The lightbox: the shop-like page opens the form in an iframe over
    /// it; the issuer's page opens inside that frame (3-D Secure inside the
    /// overlay), and the end of the way sends the whole window on.
    Overlay,
    /// Hosted fields: each card input in an iframe of its own, the name
    /// and the button on the page, which gathers the inputs' values by
    /// `postMessage` before it sends them. A browser's page only.
    HostedFields,
}

impl PageStyle {
    /// Every style, the plain one first.
    pub const ALL: [Self; 3] = [Self::FullPage, Self::Overlay, Self::HostedFields];

    /// Whether only a browser gets through it.
    pub fn needs_browser(self) -> bool {
        self != Self::FullPage
    }
}

/// The inputs of the twin's card form.
const FIELDS: &str =
    r#"fields = { number = "pan", expiry = "exp", cvv = "csc", name = "cardholder" }"#;

impl Twin {
    /// The `[payment_page]` section a target file describing the twin has.
    pub(super) fn page_section(service: &str) -> String {
        format!(
            "[payment_page]\naddress = \"{service}/checkout/pay?payment={{paymentID}}&t={{paymentToken}}\"\n\
             {FIELDS}\n[payment_page.alternative]\nchoose = \"#twinpay\"\n\
             [payment_page.lightbox]\nscript = \"/checkout/lightbox.js\"\n"
        )
    }

    /// The token a page request names, if the twin holds its payment.
    pub(super) fn page_payment(&self, token: &str) -> Option<super::Payment> {
        self.state
            .payments
            .lock()
            .expect("lock")
            .get(token)
            .cloned()
    }

    /// `GET /checkout/pay`: the page, in the twin's style.
    pub(super) fn payment_page(&self, request: &Request) -> ResponseTemplate {
        let token = query(request, "t").unwrap_or_default();
        let named = query(request, "payment").unwrap_or_default();
        match self.page_payment(&token) {
            Some(payment) if payment.id == named && !payment.submitted => {}
            Some(payment) if payment.id == named => {
                return page("Already paid", "<h1>This order has already been paid.</h1>");
            }
            _ => {
                return answer(
                    404,
                    super::HTML,
                    "<!DOCTYPE html><html><head><title>Unknown order</title></head>\
                     <body><h1>We cannot find this order.</h1></body></html>",
                );
            }
        }
        match self.page_style {
            PageStyle::FullPage => self.card_form(&token, false),
            PageStyle::Overlay => page(
                "Twin Store checkout",
                &overlay_checkout(
                    "Twin Store",
                    "42.00 USD",
                    "10%",
                    &format!("/checkout/pay/frame?t={token}"),
                ),
            ),
            PageStyle::HostedFields => self.hosted_fields(&token),
        }
    }

    /// `GET /checkout/pay/frame`: the card form inside the overlay.
    pub(super) fn payment_frame(&self, request: &Request) -> ResponseTemplate {
        let token = query(request, "t").unwrap_or_default();
        match self.page_payment(&token) {
            Some(payment) if !payment.submitted => {
                self.keep_lightbox(request, &payment.id);
                self.card_form(&token, true)
            }
            _ => answer(404, super::HTML, "<p>Unknown order</p>"),
        }
    }

    /// The card form, and the alternative method's own form beside it (a
    /// link, in the review variation).
    pub(super) fn card_form(&self, token: &str, framed: bool) -> ResponseTemplate {
        let framed = if framed { "1" } else { "0" };
        let method = if self.variation == Some(Variation::ReviewAndLinkedMethod) {
            Self::method_link(token)
        } else {
            format!(
                r#"<form method="post" action="/checkout/apm/start" target="_top">
  <input type="hidden" name="t" value="{token}">
  <button type="submit" id="twinpay">TwinPay</button>
</form>"#
            )
        };
        charge_page(
            token,
            framed,
            r#"  <label>Card number <input name="pan" inputmode="numeric" autocomplete="cc-number"></label>
  <label>Expiry (MM/YY) <input name="exp" autocomplete="cc-exp"></label>
  <label>Security code <input name="csc" autocomplete="cc-csc"></label>"#,
            &method,
        )
    }

    /// The hosted fields: each card input in a frame of its own that tells
    /// the page its value; the page sends them with the name.
    fn hosted_fields(&self, token: &str) -> ResponseTemplate {
        // The fields are the processor's, on another origin than the page.
        let fields = self.issuer.origin().ascii_serialization();
        let own = self.service.origin().ascii_serialization();
        let frame = |name: &str| {
            format!(
                r#"<iframe src="{fields}/checkout/field?name={name}&amp;parent={own}" title="{name}" style="height:3em;border:1px solid #999"></iframe>"#
            )
        };
        let inputs = format!(
            r#"  <input type="hidden" name="pan"><input type="hidden" name="exp"><input type="hidden" name="csc">
  <label>Card number {pan}</label>
  <label>Expiry (MM/YY) {exp}</label>
  <label>Security code {csc}</label>"#,
            pan = frame("pan"),
            exp = frame("exp"),
            csc = frame("csc"),
        );
        let after = format!(
            r#"<form method="post" action="/checkout/apm/start">
  <input type="hidden" name="t" value="{token}">
  <button type="submit" id="twinpay">TwinPay</button>
</form>
<script>
window.addEventListener('message', function (event) {{
  if (event.origin !== {fields:?} || !event.data || !event.data.hostedField) return;
  document.querySelector('#card input[type=hidden][name="' + event.data.hostedField + '"]').value = event.data.value;
}});
</script>"#
        );
        charge_page(token, "0", &inputs, &after)
    }

    /// `GET /checkout/field`: one hosted field, on the processor's origin,
    /// telling the page (of the origin it names) its value.
    pub(super) fn hosted_field(&self, request: &Request) -> ResponseTemplate {
        let name = query(request, "name")
            .filter(|name| ["pan", "exp", "csc"].contains(&name.as_str()))
            .unwrap_or_default();
        let own = self.service.origin().ascii_serialization();
        if query(request, "parent").as_deref() != Some(own.as_str()) {
            return answer(403, super::HTML, "<p>Not embedded by the shop's page</p>");
        }
        page(
            "Card field",
            &format!(
                r#"<input name="{name}" aria-label="{name}" style="width:100%">
<script>
document.querySelector('input').addEventListener('input', function (event) {{
  parent.postMessage({{ hostedField: '{name}', value: event.target.value }}, {own:?});
}});
</script>"#
            ),
        )
    }

    /// `POST /checkout/pay/charge`: the card paid, with no submit from the
    /// merchant.
    pub(super) fn charge(&self, request: &Request) -> ResponseTemplate {
        if self.variation == Some(Variation::ReviewAndLinkedMethod) {
            return self.review(request);
        }
        self.charge_form(&form_fields(request))
    }

    /// The card of `form` paid.
    pub(super) fn charge_form(
        &self,
        form: &std::collections::HashMap<String, String>,
    ) -> ResponseTemplate {
        let token = form.get("t").cloned().unwrap_or_default();
        let framed = form.get("framed").map(String::as_str) == Some("1");
        let number: String = form
            .get("pan")
            .map(|pan| pan.chars().filter(char::is_ascii_digit).collect())
            .unwrap_or_default();
        let valid = form
            .get("exp")
            .is_some_and(|exp| exp.len() == 5 && exp.as_bytes()[2] == b'/')
            && form.get("csc").is_some_and(|csc| !csc.is_empty());
        // Where the card sends the buyer once charged: a shop's page, or
        // (none) the issuer's or a page of the twin's own.
        let outcome = |order: &str| match number.as_str() {
            _ if !valid => Some(format!("/sorry?order={order}")),
            FRICTIONLESS_CARD if self.has(Defect::PageWaitsForSubmit) => None,
            FRICTIONLESS_CARD => Some(format!("/thank-you?order={order}")),
            THREE_DS_CARD => None,
            _ => Some(format!("/sorry?order={order}")),
        };
        let now = std::time::Instant::now();
        let racing = self.has(Defect::DoublePressPaysTwice);
        // With the variation, a declined card leaves the token valid, as the
        // real service's does until the payment is authorised: the press
        // records nothing, and a press after it may pay.
        let declined_leaves_token = self.variation == Some(Variation::DeclineThenPay)
            && outcome("").is_some_and(|path| path.starts_with("/sorry"));
        let payment = {
            let mut payments = self.state.payments.lock().expect("lock");
            match payments.get_mut(&token) {
                Some(payment) if declined_leaves_token && !payment.submitted => {
                    let path = outcome(&payment.id).expect("a declined card's page");
                    return self.leave_page(framed, &payment.id, &path);
                }
                // With the defect, the claim lands a second after the check:
                // a press within that second finds the payment unpaid.
                Some(payment) if racing && payment.claim_pending(now) => payment.clone(),
                Some(payment) if !payment.submitted => {
                    payment.submitted = true;
                    payment.answered_at = racing.then(|| now + super::api::LATE);
                    if let Some(path) = outcome(&payment.id) {
                        let mut outcomes = self.state.page_outcomes.lock().expect("lock");
                        outcomes.insert(token.clone(), path);
                    }
                    payment.clone()
                }
                Some(paid) => {
                    let order = paid.id.clone();
                    let shown = self
                        .state
                        .page_outcomes
                        .lock()
                        .expect("lock")
                        .get(&token)
                        .cloned();
                    return match shown {
                        Some(path) if self.variation == Some(Variation::PressAgainShowsResult) => {
                            self.leave_page(framed, &order, &path)
                        }
                        _ => page("Already paid", "<h1>This order has already been paid.</h1>"),
                    };
                }
                None => return answer(404, super::HTML, "<p>Unknown order</p>"),
            }
        };
        let order = &payment.id;
        if let Some(path) = outcome(order) {
            // The page's payment ends as the card says, and is recorded so:
            // its detail holds its authorization, as a submitted one's.
            let ending = if path.starts_with("/thank-you") {
                Ending::paid("NA")
            } else {
                Ending::refused(DO_NOT_HONOUR, "NA")
            };
            self.end(order, ending);
            return self.leave_page(framed, order, &path);
        }
        match number.as_str() {
            THREE_DS_CARD => {
                let session = self.new_session(order, Some(framed));
                redirect(
                    303,
                    &Self::at(&self.issuer, &format!("/acs/begin?txn={session}")),
                )
            }
            _ => page(
                "Processing",
                "<h1>Your payment is being processed</h1><p>The shop confirms it shortly.</p>",
            ),
        }
    }

    /// Sends the buyer from the page to the shop's `path`: a 303, or, from
    /// inside the overlay, a page that sends the whole window; from a
    /// lightbox a shop's page opened, the result told to that page
    /// ([`super::lightbox`]).
    pub(super) fn leave_page(&self, framed: bool, order: &str, path: &str) -> ResponseTemplate {
        let landing = Self::at(&self.shop, path);
        if !framed {
            return redirect(303, &landing);
        }
        let lightbox = self
            .state
            .lightboxes
            .lock()
            .expect("lock")
            .get(order)
            .cloned();
        if let Some(origin) = lightbox {
            return self.lightbox_result(&origin, order, path);
        }
        page(
            "Payment complete",
            &format!(
                r#"<p>Payment complete. Taking you back to the shop…</p>
<script>window.top.location.replace({landing:?});</script>"#
            ),
        )
    }

    /// `POST /checkout/apm/start`: to TwinPay's approval, on the issuer's origin.
    pub(super) fn alternative_start(&self, request: &Request) -> ResponseTemplate {
        let token = form_fields(request).get("t").cloned().unwrap_or_default();
        self.alternative_for(&token)
    }

    /// To TwinPay's approval of the payment of `token`.
    pub(super) fn alternative_for(&self, token: &str) -> ResponseTemplate {
        let token = token.to_owned();
        if self
            .page_payment(&token)
            .is_none_or(|payment| payment.submitted)
        {
            return answer(404, super::HTML, "<p>Unknown order</p>");
        }
        redirect(
            303,
            &Self::at(&self.issuer, &format!("/twinpay/approve?ref={token}")),
        )
    }

    /// `GET /twinpay/approve`: the method's approval page.
    pub(super) fn alternative_approval(&self, request: &Request) -> ResponseTemplate {
        let reference = query(request, "ref").unwrap_or_default();
        page(
            "TwinPay",
            &format!(
                r#"<h1>TwinPay</h1><p>Twin Store asks you to pay 42.00 USD.</p>
<form method="post" action="/twinpay/approve/decide">
  <input type="hidden" name="ref" value="{reference}">
  <button type="submit" name="decision" value="no">Cancel</button>
  <button type="submit" name="decision" value="yes">Authorize payment</button>
</form>"#
            ),
        )
    }

    /// `POST /twinpay/approve/decide`: back to the service with the decision.
    pub(super) fn alternative_decision(&self, request: &Request) -> ResponseTemplate {
        let form = form_fields(request);
        let reference = form.get("ref").cloned().unwrap_or_default();
        let approved = form.get("decision").map(String::as_str) == Some("yes");
        redirect(
            302,
            &Self::at(
                &self.service,
                &format!("/checkout/apm/return?ref={reference}&approved={approved}"),
            ),
        )
    }

    /// `GET /checkout/apm/return`: the method's answer, the payment paid
    /// or not, the buyer on to the shop.
    pub(super) fn alternative_return(&self, request: &Request) -> ResponseTemplate {
        let token = query(request, "ref").unwrap_or_default();
        let approved = query(request, "approved").as_deref() == Some("true");
        let order = {
            let mut payments = self.state.payments.lock().expect("lock");
            match payments.get_mut(&token) {
                Some(payment) if !payment.submitted => {
                    payment.submitted = approved;
                    payment.id.clone()
                }
                _ => return answer(409, super::HTML, "<p>This order is closed.</p>"),
            }
        };
        let path = match approved {
            true if self.has(Defect::AlternativeLandsElsewhere) => {
                format!("/order-status?order={order}")
            }
            true => format!("/thank-you?order={order}"),
            false => format!("/sorry?order={order}"),
        };
        redirect(302, &Self::at(&self.shop, &path))
    }
}

/// The page of the card form: the charge form around `inputs` (the card's
/// inputs, plain or hosted), the name and the pay button, then `after`.
fn charge_page(token: &str, framed: &str, inputs: &str, after: &str) -> ResponseTemplate {
    page(
        "Twin Store: pay",
        &format!(
            r#"<h1>Pay 42.00 USD</h1>
<form method="post" action="/checkout/pay/charge" id="card">
  <input type="hidden" name="t" value="{token}"><input type="hidden" name="framed" value="{framed}">
{inputs}
  <label>Name on card <input name="cardholder" autocomplete="cc-name"></label>
  <button type="submit">Pay now</button>
</form>
{after}"#
        ),
    )
}
