//! Serves a [`PagePay`] before the reference implementation: the page's
//! address (`/zp/start`) opens a buyer's session, whose pages are
//! `/zp/{session}/…` on the service's host. The card typed, once
//! reviewed, is paid through the reference implementation's own payment
//! page (the zoo posts it the card under that page's names), which names
//! where the buyer goes: the issuer's page (served by the reference
//! implementation, through this front) or the merchant's. The method is
//! chosen and approved the same way. Everything else passes through.

use std::{collections::HashMap, sync::Mutex, time::Duration};

use hyper::{Request, body::Incoming};
use payconf_reference::{ReferenceConfig, RunningServer};
use url::{Url, form_urlencoded};

use super::{
    Params, new_session,
    page::{Expiry, Hop, PageFault, PagePay, Style, words},
    page_html::{Origins, document, hosted_field, nonce, refresh},
};
use crate::support::front::{Answer, Behind, Front, forward, respond};

/// The page, served, and the reference implementation behind it.
pub struct PageZoo {
    /// Where payconf is pointed.
    pub base: Url,
    _reference: RunningServer,
}

impl PageZoo {
    pub async fn start(page: PagePay) -> Self {
        let behind = Behind::start(ReferenceConfig::default()).await;
        let page_origin = behind.base.origin().ascii_serialization();
        // The frames from a second loopback address: the same front
        // answers there, another origin to the buyer's browser.
        let elsewhere = if page.elsewhere {
            let listener = tokio::net::TcpListener::bind("127.0.0.2:0")
                .await
                .expect("the second origin binds (127.0.0.2)");
            let address = listener.local_addr().expect("address");
            Some((listener, format!("http://{address}")))
        } else {
            None
        };
        let frames = elsewhere
            .as_ref()
            .map(|(_, origin)| origin.clone())
            .unwrap_or_default();
        let front = std::sync::Arc::new(PageFront {
            page,
            reference: behind.inner.clone(),
            client: crate::support::front::client(),
            sessions: Mutex::new(HashMap::new()),
            origins: Origins {
                page: page_origin,
                frames,
            },
        });
        if let Some((listener, _)) = elsewhere {
            crate::support::front::serve_on(listener, std::sync::Arc::clone(&front));
        }
        Self {
            base: behind.base.clone(),
            _reference: behind.serve(front),
        }
    }
}

struct PageFront {
    page: PagePay,
    reference: Url,
    client: reqwest::Client,
    sessions: Mutex<HashMap<String, Session>>,
    /// Where the page and its frames are.
    origins: Origins,
}

/// A buyer on the page: the payment, and the card kept for the review.
#[derive(Clone, Default)]
struct Session {
    token: String,
    shop: String,
    card: Option<Vec<(String, String)>>,
}

impl Front for PageFront {
    async fn answer(&self, request: Request<Incoming>) -> Answer {
        let path = request.uri().path().to_owned();
        let (parts, body) = crate::support::front::read(request).await;
        if path == "/pagam/pagam3d.aspx" && parts.method == "POST" {
            let answer = forward(&self.client, &self.reference, &parts, body, &[]).await;
            return match answer.header("location").map(str::to_owned) {
                Some(landing) => self.leave(&landing, true, self.page.inside()),
                None => answer.answer(),
            };
        }
        let Some(rest) = path.strip_prefix("/zp/") else {
            return forward(&self.client, &self.reference, &parts, body, &[])
                .await
                .answer();
        };
        let params = Params::of(&parts, &body);
        tokio::time::sleep(Duration::from_millis(self.page.delay_ms)).await;
        match rest {
            "start" => return self.enter(&params),
            "hop" => {
                return match params.get("to") {
                    Some(to) => respond(303, &[("location", to)], ""),
                    None => respond(400, &[], "no destination"),
                };
            }
            _ => {}
        }
        let (sid, what) = rest.split_once('/').unwrap_or((rest, ""));
        let Some(session) = self.sessions.lock().expect("lock").get(sid).cloned() else {
            return respond(404, &[], "no such payment page");
        };
        match what {
            "page" => html(&self.page.card_page(
                sid,
                params.get("framed") == Some("1"),
                &self.origins,
            )),
            "frame" => html(&self.page.card_form(sid, true)),
            "field" => html(&hosted_field(
                params.get("f").unwrap_or(""),
                &self.origins.page,
            )),
            "card" => self.card(sid, &session, &params).await,
            "review" => self.reviewed(sid, &session, &params).await,
            "methods" => html(&self.page.methods_page(sid)),
            "method" => self.method(sid, &session, &params).await,
            "approve" if parts.method == "GET" => self.approval_page(sid),
            "approve" => self.approved(&session, &params).await,
            _ => respond(404, &[], "no such page"),
        }
    }
}

impl PageFront {
    /// The page's address: a buyer's session begins, and the page opens.
    fn enter(&self, params: &Params) -> Answer {
        let sid = new_session();
        let session = Session {
            token: params.get("token").unwrap_or_default().to_owned(),
            shop: params.get("shop").unwrap_or_default().to_owned(),
            card: None,
        };
        self.sessions
            .lock()
            .expect("lock")
            .insert(sid.clone(), session);
        match self.page.entry {
            Hop::Direct => html(&self.page.card_page(&sid, false, &self.origins)),
            Hop::Redirect(status) => {
                respond(status, &[("location", &format!("/zp/{sid}/page"))], "")
            }
            Hop::Refresh(seconds) => html(&refresh(seconds, &format!("/zp/{sid}/page"))),
        }
    }

    /// The card posted: kept for the review, or paid.
    async fn card(&self, sid: &str, session: &Session, params: &Params) -> Answer {
        let page = &self.page;
        let hosted = page.style == Style::HostedFields;
        let value = |name: &str| {
            let name = if hosted && name != page.holder {
                format!("h_{name}")
            } else {
                name.to_owned()
            };
            params.get(&name).unwrap_or_default().to_owned()
        };
        let (month, year) = match page.expiry {
            Expiry::Joined(name) => {
                let joined = value(name);
                let (month, year) = joined.split_once('/').unwrap_or((&joined, ""));
                (month.trim().to_owned(), year.trim().to_owned())
            }
            Expiry::Split(month, year) => (value(month), value(year)),
        };
        let card = vec![
            ("cardNumber".to_owned(), value(page.number)),
            ("expMonth".to_owned(), month),
            ("expYear".to_owned(), year),
            ("cvv".to_owned(), value(page.cvv)),
            ("holder".to_owned(), value(page.holder)),
        ];
        let Some(review) = page.review else {
            return self.pay(sid, session, card).await;
        };
        if let Some(kept) = self.sessions.lock().expect("lock").get_mut(sid) {
            kept.card = Some(card);
        }
        let said = words(page.language);
        let control = |value: &str, label: &str| {
            if review.inputs {
                format!(r#"<input type="submit" name="step" value="{label}">"#)
            } else {
                format!(r#"<button type="submit" name="step" value="{value}">{label}</button>"#)
            }
        };
        let (confirm, back) = (control("pay", said.confirm), control("back", said.back));
        let controls = if review.back_first {
            format!("{back}\n{confirm}")
        } else {
            format!("{confirm}\n{back}")
        };
        html(&document(
            said.review,
            &format!(
                r#"<h1>{title}</h1><p>10.00 EUR, Zoo Shop.</p>
<form method="post" action="/zp/{sid}/review">
{controls}
</form>"#,
                title = said.review,
            ),
        ))
    }

    /// The review's answer: the kept card paid, or the card form again.
    async fn reviewed(&self, sid: &str, session: &Session, params: &Params) -> Answer {
        let said = words(self.page.language);
        let step = params.get("step").unwrap_or_default();
        let paying = step == "pay" || step == said.confirm;
        match (&session.card, paying) {
            (Some(card), true) => self.pay(sid, session, card.clone()).await,
            _ => html(&self.page.card_page(sid, false, &self.origins)),
        }
    }

    /// Pays the card through the reference implementation's page, and
    /// sends the buyer where it says.
    async fn pay(&self, sid: &str, session: &Session, card: Vec<(String, String)>) -> Answer {
        let mut form = vec![
            ("a".to_owned(), session.shop.clone()),
            ("b".to_owned(), session.token.clone()),
            ("email".to_owned(), "buyer@zoo.example.com".to_owned()),
            ("method".to_owned(), "card".to_owned()),
        ];
        form.extend(card);
        let Some(landing) = self.reference_post("pagam/pagam.aspx", &form).await else {
            // The card refused: the form again.
            return html(&self.page.card_page(sid, false, &self.origins));
        };
        let merchant = landing.contains("/merchant/");
        let landing = if merchant && self.page.fault == Some(PageFault::CardLandsOnFailure) {
            landing.replace("/success", "/failure")
        } else {
            landing
        };
        if merchant {
            self.leave(&landing, false, self.page.inside())
        } else {
            // The issuer's page: in the frame, or the window, as the card
            // form was.
            respond(303, &[("location", &landing)], "")
        }
    }

    /// Sends the buyer on to the merchant's `landing` (after the issuer
    /// when `issuer`): by the composition's hop, or from inside the
    /// overlay, a page that sends the whole window.
    fn leave(&self, landing: &str, issuer: bool, framed: bool) -> Answer {
        let landing = if issuer && self.page.fault == Some(PageFault::IssuerLandsOnFailure) {
            landing.replace("/success", "/failure")
        } else {
            landing.to_owned()
        };
        if framed {
            return html(&document(
                "Payment complete",
                &format!(
                    r#"<p>Payment complete. Taking you back to the shop…</p>
<script>window.top.location.replace({landing:?});</script>"#
                ),
            ));
        }
        self.hop_to(&landing)
    }

    /// The composition's way out to `landing`.
    fn hop_to(&self, landing: &str) -> Answer {
        let through = format!(
            "/zp/hop?to={}",
            form_urlencoded::byte_serialize(landing.as_bytes()).collect::<String>()
        );
        match self.page.out {
            Hop::Direct => respond(303, &[("location", landing)], ""),
            Hop::Redirect(status) => respond(status, &[("location", &through)], ""),
            Hop::Refresh(seconds) => html(&refresh(seconds, landing)),
        }
    }

    /// The method chosen: with its nonce, the reference implementation's
    /// method begun and the buyer on to the approval page.
    async fn method(&self, sid: &str, session: &Session, params: &Params) -> Answer {
        if params.get("n") != Some(nonce(sid).as_str()) {
            return respond(
                400,
                &[("content-type", "text/html")],
                "<h1>Bad request</h1>",
            );
        }
        let form = [
            ("a".to_owned(), session.shop.clone()),
            ("b".to_owned(), session.token.clone()),
            ("method".to_owned(), "wallet".to_owned()),
        ];
        if self
            .reference_post("pagam/pagam.aspx", &form)
            .await
            .is_none()
        {
            return respond(409, &[("content-type", "text/html")], "<h1>Closed</h1>");
        }
        respond(303, &[("location", &format!("/zp/{sid}/approve"))], "")
    }

    /// The method's approval page: the PIN, approve and decline.
    fn approval_page(&self, sid: &str) -> Answer {
        if let Some(PageFault::ApprovalError(status)) = self.page.fault {
            return respond(
                status,
                &[("content-type", "text/html")],
                format!("<h1>Error {status}</h1>"),
            );
        }
        let said = words(self.page.language);
        let approve = format!(
            r#"<button type="submit" name="decision" value="approve">{}</button>"#,
            said.approve
        );
        let decline = format!(
            r#"<button type="submit" name="decision" value="decline">{}</button>"#,
            said.decline
        );
        let controls = if self.page.approve_first {
            format!("{approve}{decline}")
        } else {
            format!("{decline}{approve}")
        };
        html(&document(
            "ZooWallet",
            &format!(
                r#"<h1>ZooWallet</h1><p>Zoo Shop asks you to pay 10.00 EUR.</p>
<form method="post" action="/zp/{sid}/approve">
<label>PIN <input type="password" name="{pin}"></label>
{controls}
</form>"#,
                pin = self.page.pin,
            ),
        ))
    }

    /// The method's approval: the PIN checked, the payment ended by the
    /// reference implementation, the buyer on to the merchant's page.
    async fn approved(&self, session: &Session, params: &Params) -> Answer {
        let approved = params.get("decision") == Some("approve")
            && params.get(self.page.pin) == Some(super::page::PIN);
        let form = [
            ("a".to_owned(), session.shop.clone()),
            ("b".to_owned(), session.token.clone()),
            (
                "decision".to_owned(),
                if approved { "approve" } else { "decline" }.to_owned(),
            ),
        ];
        let Some(landing) = self.reference_post("pagam/wallet.aspx", &form).await else {
            return respond(409, &[("content-type", "text/html")], "<h1>Closed</h1>");
        };
        let landing = if self.page.fault == Some(PageFault::MethodLandsOnFailure) {
            landing.replace("/success", "/failure")
        } else {
            landing
        };
        self.hop_to(&landing)
    }

    /// Posts `form` to the reference implementation's `path`; where it
    /// sends the buyer, if it does.
    async fn reference_post(&self, path: &str, form: &[(String, String)]) -> Option<String> {
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let response = self
            .client
            .post(self.reference.join(path).expect("url"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .ok()?;
        response
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    }
}

fn html(page: &str) -> Answer {
    respond(
        200,
        &[("content-type", "text/html; charset=utf-8")],
        page.to_owned(),
    )
}
