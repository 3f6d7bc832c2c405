//! What a shop's own checkout asks the twin after create, with the
//! payment's token: its methods (`payment/methods/{id}/{language}`), one
//! method's detail, the data for the buyer, and `check/DCC/`. The twin's
//! own choices: its methods are the card (`CREDITCARD`) and TwinPay
//! (`TWINPAY`), each sent to its page at `/checkout/pay?payment=&t=` with
//! `method=`; the detail's banks are one of its own; any language is taken;
//! the amount is written as create was sent it; the conversion is offered
//! at a rate of its own for a card not from the payment's country
//! (`eligible` `True`), never in the payment's own currency.

use serde_json::{Value, json};
use wiremock::{Request, ResponseTemplate};

use super::{Defect, Twin};

/// The twin's methods, by type: its name for the buyer.
const METHODS: [(&str, &str); 2] = [("CREDITCARD", "Card"), ("TWINPAY", "TwinPay")];

impl Twin {
    /// The payment the request's token names, with its `paymentID`, if it
    /// is `id`.
    fn token_payment(&self, request: &Request, id: &str) -> Option<(String, String)> {
        let token = super::payment_token(request);
        let payment = self.page_payment(&token)?;
        (payment.id == id).then_some((token, payment.id))
    }

    /// The page that pays the payment with `method` (without its token,
    /// `unnamed`).
    fn paying_with(token: &str, id: &str, method: &str, unnamed: bool, twin: &Self) -> String {
        let token = if unnamed {
            String::new()
        } else {
            format!("&t={token}")
        };
        Self::at(
            &twin.service,
            &format!(
                "/checkout/pay?payment={id}{token}&method={method}&shop={}",
                super::SHOP
            ),
        )
    }

    /// `GET /api/v1/payment/methods/{id}/{language}`.
    pub(super) fn payment_methods(&self, request: &Request, id: &str) -> ResponseTemplate {
        let Some((token, id)) = self.token_payment(request, id) else {
            return self.refusal("TXN_NOT_FOUND", "no such transaction for this token");
        };
        let methods: Vec<Value> = METHODS
            .iter()
            .map(|(kind, name)| {
                json!({
                    "name": name,
                    "logo": {"large": "", "mobile": "", "vector": ""},
                    "paymentType": kind,
                    "paymentTypeDetail": {"href": format!("/api/v1/payment/methods/detail/{id}/{kind}")},
                    "userRedirect": {"href": Self::paying_with(&token, &id, kind, self.has(Defect::MethodsAddressWithoutPayment), self)},
                })
            })
            .collect();
        self.processed(
            "Request processed successfully",
            json!({"paymentMethod": methods, "paymentID": id}),
        )
    }

    /// `GET /api/v1/payment/methods/detail/{id}/{type}`.
    pub(super) fn method_detail(
        &self,
        request: &Request,
        id: &str,
        kind: &str,
    ) -> ResponseTemplate {
        let Some((token, id)) = self.token_payment(request, id) else {
            return self.refusal("TXN_NOT_FOUND", "no such transaction for this token");
        };
        if !METHODS
            .iter()
            .any(|(known, _)| known.eq_ignore_ascii_case(kind))
        {
            return self.refusal("METHOD_UNKNOWN", "no such method");
        }
        let named = if self.has(Defect::MethodDetailOfAnotherPayment) {
            id.parse::<u64>()
                .map_or_else(|_| id.clone(), |n| (n + 1).to_string())
        } else {
            id.clone()
        };
        self.processed(
            "Request processed successfully",
            json!({
                "paymentTypeDetail": {"bank": [{"bankCode": "TWIN", "bankName": "Twin Bank", "userRedirect": {"href": Self::paying_with(&token, &id, kind, false, self)}}]},
                "userRedirect": {"href": Self::paying_with(&token, &id, kind, false, self)},
                "paymentID": named,
            }),
        )
    }

    /// `GET /api/v1/payment/dataForBuyer/{id}`.
    pub(super) fn data_for_buyer(&self, request: &Request, id: &str) -> ResponseTemplate {
        let Some((_, id)) = self.token_payment(request, id) else {
            return self.refusal("TXN_NOT_FOUND", "no such transaction for this token");
        };
        let (amount, currency) = self
            .state
            .orders
            .lock()
            .expect("lock")
            .get(&id)
            .map(|order| (order.amount.clone(), order.currency.clone()))
            .unwrap_or_default();
        let amount = if self.has(Defect::DataForBuyerAmountInCents) {
            amount.replace('.', "")
        } else {
            amount
        };
        self.processed(
            "Request processed successfully",
            json!({
                "merchantLogo": "", "sign": "Twin Store", "amount": amount, "languageID": "2",
                "currency": currency, "visibleCustomFields": [], "paymentID": id,
            }),
        )
    }

    /// `GET /api/v1/shop/methods/{shopLogin}`, with the API key.
    pub(super) fn shop_methods(&self, request: &Request, shop_login: &str) -> ResponseTemplate {
        if Self::caller(request) != Some(shop_login) {
            return self.refusal("AUTH_INVALID", "API key not recognised for this shop");
        }
        let methods: Vec<Value> = METHODS
            .iter()
            .map(|(kind, name)| {
                let name = if self.has(Defect::ShopMethodsUnnamed) {
                    ""
                } else {
                    name
                };
                json!({"name": name, "paymentType": kind})
            })
            .collect();
        self.processed(
            "Request processed successfully",
            json!({"paymentMethod": methods}),
        )
    }

    /// `POST /api/v1/check/DCC/`.
    pub(super) fn check_dcc(&self, request: &Request) -> ResponseTemplate {
        let Some(payment) = self.page_payment(&super::payment_token(request)) else {
            return self.refusal("TOKEN_UNKNOWN", "no such payment token");
        };
        let Some(body) = self.read(&request.body) else {
            return self.unusable(400, "BAD_JSON", "request body is not JSON");
        };
        if !body["creditcard"]["number"].is_string() {
            return self.refusal("CARD_MISSING", "creditcard.number is required");
        }
        let eligible = if self.has(Defect::DccOfferUndecided) {
            "Maybe"
        } else {
            "True"
        };
        self.processed(
            "Request processed successfully",
            json!({
                "DCC": {"eligible": eligible, "currency": "EUR", "amount": "39.10", "disclaimer": "Rate of Twin Bank", "exchangeRate": "0.9310", "source": "Twin Bank"},
                "paymentID": payment.id,
            }),
        )
    }
}
