//! The twin's API on the service's origin: create and submit, with the
//! twin's own choices where the contract is silent, and the defect and
//! variation switches that change them.

use std::{sync::atomic::Ordering, time::Duration};

use serde_json::{Value, json};
use wiremock::{Request, ResponseTemplate};

use super::{
    API_KEY, Defect, FRICTIONLESS_CARD, Payment, SHOP, THREE_DS_CARD, Twin, Variation,
    notify::{self, Reached},
    outcomes::{AtSubmit, DO_NOT_HONOUR, Ending},
    page, query, scheme_relative,
};

impl Twin {
    pub(super) fn create(&self, request: &Request) -> ResponseTemplate {
        let credentials = request
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok());
        match credentials {
            None if !self.has(Defect::AuthorizationNotRequired) => {
                return self.refusal("AUTH_REQUIRED", "Authorization header required");
            }
            Some(value)
                if !self.has(Defect::AnyApiKeyAccepted)
                    && value.split_once(' ').is_none_or(|(scheme, key)| {
                        !scheme.eq_ignore_ascii_case("apikey") || Self::shop_of_key(key).is_none()
                    }) =>
            {
                return self.refusal("AUTH_INVALID", "API key not recognised");
            }
            _ => {}
        }
        let media_type = request
            .headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        // The twin reads any body as JSON; a framework in front refuses the rest.
        if self.defect.is_some_and(Defect::framework_refuses) && !media_type.contains("json") {
            return self.unusable(415, "MEDIA_TYPE", "send application/json");
        }
        let body = match self.read(&request.body) {
            Some(body) => body,
            // Taken for a payment of the shop's defaults.
            None if self.has(Defect::NonJsonBodyProcessed) => json!({
                "shopLogin": SHOP, "amount": "1.00", "currency": "USD", "shopTransactionID": "default",
            }),
            None => return self.unusable(400, "BAD_JSON", "request body is not JSON"),
        };
        let lenient = self.variation == Some(Variation::EchoesRequest);
        // The key's shop; with any key taken (a defect), the twin's own.
        let shop = credentials
            .and_then(|value| value.split_once(' '))
            .and_then(|(_, key)| Self::shop_of_key(key))
            .unwrap_or(SHOP);
        if body["shopLogin"] != shop {
            return self.refusal("SHOP_UNKNOWN", "unknown shop");
        }
        for field in ["amount", "currency", "shopTransactionID"] {
            let taken = body[field].is_string() || (lenient && body.get(field).is_some());
            if !taken {
                return self.unusable(400, "FIELD_MISSING", &format!("{field} is required"));
            }
        }
        let two_decimals = body["amount"]
            .as_str()
            .and_then(|amount| amount.split_once('.'))
            .is_some_and(|(_, decimals)| decimals.len() == 2);
        if self.has(Defect::AmountDecimalsRequired) && !two_decimals {
            return self.refusal("AMOUNT_FORMAT", "amount must have two decimals");
        }

        let number = if self.has(Defect::PaymentIdRepeated) {
            4_210_000_000_000
        } else {
            4_210_000_000_000 + self.state.next_id.fetch_add(1, Ordering::Relaxed)
        };
        let id = if self.has(Defect::PaymentIdNotDigits) {
            format!("PAY-{number}")
        } else {
            number.to_string()
        };
        let token = if self.has(Defect::PaymentTokenNotUuid) {
            format!("tok_{}", uuid::Uuid::new_v4().simple())
        } else {
            uuid::Uuid::new_v4().to_string()
        };
        let text = |field: &str| match &body[field] {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        self.keep_order(
            &id,
            notify::Order {
                shop,
                shop_transaction_id: text("shopTransactionID"),
                amount: text("amount"),
                currency: text("currency"),
                notify: None,
                notified: false,
            },
        );
        self.state.payments.lock().expect("lock").insert(
            token.clone(),
            Payment {
                id: id.clone(),
                order: self.state.created.fetch_add(1, Ordering::Relaxed) + 1,
                submitted: false,
                answered_at: None,
            },
        );

        let mut payload = json!({
            "paymentToken": token,
            "paymentID": if self.has(Defect::PaymentIdAsNumber) { json!(number) } else { json!(id) },
            "userRedirect": {"href": null},
            "createdAt": "2026-11-22T10:00:00Z",
            "expiresInSeconds": 1800,
            "links": {"status": Self::at(&self.service, &format!("/payments/{id}"))},
        });
        if self.has(Defect::CreateRedirectNotNull) {
            payload["userRedirect"]["href"] = json!(Self::at(&self.service, "/pay"));
        }
        if self.has(Defect::CreateRedirectMissing) {
            payload
                .as_object_mut()
                .expect("an object")
                .remove("userRedirect");
        }
        let description = if self.has(Defect::CreateDescriptionEmpty) {
            ""
        } else {
            "Request processed successfully"
        };
        self.processed_for(request, description, payload)
    }

    /// A request's body as JSON, `None` when it is none. In the lenient
    /// variation any depth is read: each top-level field is taken as it
    /// came, and one nested past serde_json's limit stands as `null` for
    /// the twin's own decisions (it is echoed whole all the same).
    pub(super) fn read(&self, body: &[u8]) -> Option<Value> {
        if self.variation != Some(Variation::EchoesRequest) {
            return serde_json::from_slice(body).ok();
        }
        type Fields = std::collections::BTreeMap<String, Box<serde_json::value::RawValue>>;
        let fields: serde_json::Map<String, Value> = serde_json::from_slice::<Fields>(body)
            .ok()?
            .into_iter()
            .map(|(name, raw)| {
                let value = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
                (name, value)
            })
            .collect();
        Some(Value::Object(fields))
    }

    /// A processed answer; in the lenient variation it echoes the request
    /// (`payload.received`) byte for byte.
    fn processed_for(
        &self,
        request: &Request,
        description: &str,
        payload: Value,
    ) -> ResponseTemplate {
        let echo = std::str::from_utf8(&request.body)
            .ok()
            .filter(|_| self.variation == Some(Variation::EchoesRequest));
        let Some(echo) = echo else {
            return self.processed(description, payload);
        };
        let mut payload = payload;
        payload["received"] = json!(ECHO);
        let body = json!({
            "requestId": uuid::Uuid::new_v4().to_string(),
            "error": {"code": "0", "description": description},
            "payload": payload,
        })
        .to_string()
        .replace(&json!(ECHO).to_string(), echo.trim());
        self.json(200, body)
    }

    /// Whether a request carries `Authorization: apikey <the merchant's key>`.
    fn has_api_key(request: &Request) -> bool {
        request
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|value| value.split_once(' '))
            .is_some_and(|(scheme, key)| scheme.eq_ignore_ascii_case("apikey") && key == API_KEY)
    }

    pub(super) fn submit(&self, request: &Request) -> ResponseTemplate {
        if self.variation == Some(Variation::ApiKeyRequiredOnSubmit) && !Self::has_api_key(request)
        {
            return self.refusal("AUTH_REQUIRED", "Authorization header required");
        }
        let token = super::payment_token(request);
        let Some(body) = self.read(&request.body) else {
            return self.unusable(400, "BAD_JSON", "request body is not JSON");
        };
        if self.has(Defect::BuyerRequired) && !body["buyer"].is_object() {
            return self.refusal("BUYER_REQUIRED", "buyer is required");
        }
        if self.has(Defect::DccStringRefused)
            && body
                .pointer("/paymentTypeDetails/creditcard/DCC")
                .is_some_and(Value::is_string)
        {
            return self.refusal("DCC_TYPE", "DCC must be null or an object");
        }
        let now = std::time::Instant::now();
        // The defects that claim a token in two steps answer late, so that
        // submits at once and a submit again tell apart.
        let late =
            self.has(Defect::ConcurrentSubmitsPayTwice) || self.has(Defect::PaidTokenPaidAgain);
        // The race: a check, then the claim written `race_window` later with
        // no lock between, as a handler that reads the payment, awaits its
        // work (a database, a call to the bank) and then writes it. The twin
        // answers one request at a time, so the write that has not landed
        // yet is kept as the time it lands.
        let claim_after = if self.has(Defect::TokenClaimedAMillisecondLate) {
            self.race_window
        } else {
            LATE
        };
        let racing = self.has(Defect::ConcurrentSubmitsPayTwice)
            || self.has(Defect::TokenClaimedAMillisecondLate);
        // A submit of a token whose first submit already asked for the
        // issuer's authentication, which has not ended: the real service
        // keeps the token valid until the payment is authorised, and asks
        // again (the variation); the defect pays at once.
        let mut again_while_waiting = false;
        let payment = {
            let mut payments = self.state.payments.lock().expect("lock");
            match payments.get_mut(&token) {
                Some(payment)
                    if payment.submitted
                        && (self.variation == Some(Variation::ResubmitWhileWaiting)
                            || self.has(Defect::PaidTokenPaidAgain))
                        && self.awaiting_authentication(&payment.id).is_some()
                        && (!self.has(Defect::PaidTokenPaidAgain)
                            || payment.answered_at.is_none_or(|at| at <= now)) =>
                {
                    again_while_waiting = true;
                    payment.clone()
                }
                // Checked, but its claim has not landed yet.
                Some(payment) if racing && payment.claim_pending(now) => payment.clone(),
                // Free again once its answer went out.
                Some(payment)
                    if payment.submitted
                        && self.has(Defect::PaidTokenPaidAgain)
                        && payment.answered_at.is_some_and(|at| at <= now) =>
                {
                    payment.clone()
                }
                Some(payment) if payment.submitted => {
                    return self.refusal("ALREADY_SUBMITTED", "payment already submitted");
                }
                Some(payment) => {
                    payment.submitted = true;
                    payment.answered_at = Some(now + claim_after);
                    payment.clone()
                }
                None if self.has(Defect::UnknownTokenPaid) => Payment {
                    id: "4219999999999".to_owned(),
                    order: 0,
                    submitted: true,
                    answered_at: None,
                },
                None if self.has(Defect::WrongTokenLocksPayment) => {
                    // The first four groups name the payment; a wrong last
                    // group locks it against guessing, for good.
                    let named = token.get(..24).unwrap_or("-");
                    if let Some((_, payment)) =
                        payments.iter_mut().find(|(t, _)| t.starts_with(named))
                    {
                        payment.submitted = true;
                    }
                    return self.refusal("TOKEN_UNKNOWN", "no payment for this token");
                }
                None => return self.refusal("TOKEN_UNKNOWN", "no payment for this token"),
            }
        };
        let shop = self
            .state
            .orders
            .lock()
            .expect("lock")
            .get(&payment.id)
            .map_or(SHOP, |order| order.shop);
        if body["shopLogin"] != shop {
            return self.refusal("SHOP_MISMATCH", "shop does not own this payment");
        }
        let email = body
            .pointer("/buyer/email")
            .and_then(Value::as_str)
            .unwrap_or("");
        let reserved = [".example", ".test", ".invalid", ".localhost"]
            .iter()
            .any(|tld| email.ends_with(tld));
        if self.variation == Some(Variation::RefusesReservedDomains) && reserved {
            return self.refusal("EMAIL_DOMAIN", "buyer.email must be a deliverable address");
        }
        let number = body
            .pointer("/paymentTypeDetails/creditcard/number")
            .and_then(Value::as_str)
            .unwrap_or("");
        let masked = if number.len() >= 10 {
            format!("{}******{}", &number[..6], &number[number.len() - 4..])
        } else {
            String::new()
        };
        let payment_id = if self.has(Defect::SubmitAnswersAnotherPaymentId) {
            "4218888888888".to_owned()
        } else if let Some(other) = (number == FRICTIONLESS_CARD)
            .then(|| self.mixed_up_under_load(&payment))
            .flatten()
        {
            other
        } else {
            payment.id.clone()
        };
        self.notify_at(
            &payment.id,
            body.pointer("/responseURLs/serverNotificationURL")
                .and_then(Value::as_str),
        );
        let mut payload = json!({
            "transactionType": if self.has(Defect::TransactionTypeWrongCase) { "Submit" } else { "submit" },
            "paymentID": payment_id,
            "bankTransactionID": format!("BT{}", payment.id),
            "maskedPAN": masked,
            "authorizationCode": null,
        });
        let at_submit = match number {
            // The defect takes the token waiting for authentication for a
            // new payment, and pays it at once.
            THREE_DS_CARD if again_while_waiting && self.has(Defect::PaidTokenPaidAgain) => {
                AtSubmit::Paid(Ending::paid("NA"))
            }
            FRICTIONLESS_CARD => AtSubmit::Paid(Ending::paid("NA")),
            THREE_DS_CARD => AtSubmit::Challenge(None),
            _ => self
                .outcome_at_submit(number)
                .unwrap_or(AtSubmit::Refused(Ending::refused(DO_NOT_HONOUR, "NA"))),
        };
        match at_submit {
            AtSubmit::Paid(ending) => {
                let thanks = format!("/thank-you?order={}", payment.id);
                payload["transactionResult"] =
                    json!(if self.has(Defect::TransactionResultLowerCase) {
                        "ok"
                    } else {
                        "OK"
                    });
                payload["authorizationCode"] = json!("A7B9Q2");
                self.end(&payment.id, ending);
                self.notify(&payment.id, true, Reached::Submit);
                if self.has(Defect::PaidSubmitAsksFor8006) {
                    payload["transactionErrorCode"] = json!("8006");
                    payload["transactionErrorDescription"] = json!("Authentication required");
                }
                let result = format!("/result?order={}", payment.id);
                payload["userRedirect"] = json!({"href": if self.has(Defect::SuccessRedirectRelative) {
                    // A path: the merchant's redirect would resolve it on the merchant's host.
                    result
                } else if self.has(Defect::SuccessRedirectElsewhere) {
                    Self::at(&self.shop, &format!("/order-status?order={}", payment.id))
                } else if self.variation == Some(Variation::OwnResultPage) {
                    Self::at(&self.service, &result)
                } else {
                    self.address(&self.shop, &thanks)
                }});
            }
            AtSubmit::Challenge(passed_ends) => {
                // Asked again, the same authentication: its session, not a
                // second one.
                let session = match self.awaiting_authentication(&payment.id) {
                    Some(session) if again_while_waiting => session,
                    _ => {
                        let session = self.new_session(&payment.id, None);
                        self.challenge_ends(&session, passed_ends);
                        session
                    }
                };
                let begin = format!("/acs/begin?txn={session}");
                let href = match (&self.resetting, self.defect) {
                    (Some(resetting), _) => Self::at(resetting, &begin),
                    (None, Some(Defect::IssuerAddressIsSuccessPage)) => {
                        Self::at(&self.shop, &format!("/thank-you?order={}", payment.id))
                    }
                    // A path: the merchant's redirect would resolve it on the merchant's host.
                    (None, Some(Defect::IssuerAddressRelative)) => begin,
                    // The issuer's plain HTTP port, named as https.
                    (None, Some(Defect::IssuerHttpsOnPlainPort)) => {
                        let mut https = self.issuer.join(&begin).expect("joins");
                        https.set_scheme("https").expect("https");
                        https.to_string()
                    }
                    _ => self.address(&self.issuer, &begin),
                };
                payload["transactionResult"] = json!("");
                payload["transactionErrorCode"] = if self.has(Defect::EnrolledCard8006AsNumber) {
                    json!(8006)
                } else {
                    json!("8006")
                };
                payload["transactionErrorDescription"] =
                    json!(if self.has(Defect::EnrolledCardDescriptionEmpty) {
                        ""
                    } else {
                        "Cardholder authentication required by the issuer"
                    });
                if self.has(Defect::EnrolledCardWithout8006) {
                    payload
                        .as_object_mut()
                        .expect("an object")
                        .remove("transactionErrorCode");
                }
                payload["userRedirect"] = json!({ "href": href });
            }
            AtSubmit::Refused(ending) => {
                payload["transactionResult"] = json!("KO");
                payload["transactionErrorCode"] = json!(ending.refusal);
                payload["transactionErrorDescription"] = json!("Do not honour");
                self.end(&payment.id, ending);
                self.notify(&payment.id, false, Reached::Submit);
                payload["userRedirect"] =
                    json!({"href": Self::at(&self.shop, &format!("/sorry?order={}", payment.id))});
            }
        }
        if self.has(Defect::TransactionTypeMissing) {
            payload
                .as_object_mut()
                .expect("an object")
                .remove("transactionType");
        }
        let answer = self.processed_for(request, "Request processed successfully", payload);
        // Only payments the twin executes answer late.
        if late && matches!(number, FRICTIONLESS_CARD | THREE_DS_CARD) {
            answer.set_delay(LATE)
        } else {
            answer
        }
    }

    /// With the defect, the ID this pay answers instead of its own: that of
    /// the latest payment created after this one that still awaits its
    /// submit. Defined by order, not by time: a handler that keeps "the
    /// current payment" in one shared place is right while payments come
    /// one at a time (create, then pay) and wrong once they overlap, as
    /// when many buyers create their payments and then pay them.
    fn mixed_up_under_load(&self, paying: &Payment) -> Option<String> {
        if !self.has(Defect::PaymentsMixedUnderLoad) {
            return None;
        }
        let payments = self.state.payments.lock().expect("lock");
        payments
            .values()
            .filter(|other| other.order > paying.order && !other.submitted)
            .max_by_key(|other| other.order)
            .map(|other| other.id.clone())
    }

    /// An address the API answers: absolute, or scheme-relative in the
    /// variation that writes them so.
    fn address(&self, base: &url::Url, path: &str) -> String {
        let address = Self::at(base, path);
        if self.variation == Some(Variation::SchemeRelativeRedirects) {
            scheme_relative(&address)
        } else {
            address
        }
    }

    /// The service's own result page: it tells the buyer the payment went
    /// through and passes them on to the shop's success page.
    pub(super) fn result_page(&self, request: &Request) -> ResponseTemplate {
        let order = query(request, "order").unwrap_or_default();
        let thanks = Self::at(&self.shop, &format!("/thank-you?order={order}"));
        page(
            "Payment accepted",
            &format!(
                "<meta http-equiv=\"refresh\" content=\"0; url={thanks}\">\
                 <p>Payment accepted. Taking you back to the shop\u{2026}</p>\
                 <p><a href=\"{thanks}\">Back to the shop</a></p>"
            ),
        )
    }
}

/// What stands for the echoed request until the answer is written.
const ECHO: &str = "\u{0}received";

/// How late the two-step-claim defects answer a submit. Their claim lands
/// as the answer goes out, so what they tell apart is an order, not a time:
/// a submit sent again (after its answer) finds the claim, and submits at
/// once (which all arrive before the first answer leaves) do not. The
/// delay need only outlast a volley's spread, which payconf measures in
/// fractions of a millisecond (0.8 ms at most in the catalogue's runs): a
/// quarter of a second is hundreds of times over. It is what the runs of
/// these defects wait on, every executed submit; at a second, the
/// catalogue's robustness runs took 57 s, at a quarter 21 s.
pub(super) const LATE: Duration = Duration::from_millis(250);
