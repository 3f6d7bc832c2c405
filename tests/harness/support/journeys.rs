//! Issuer journeys as other servers build them: the reference
//! implementation behind a front that changes one thing of the way through
//! the issuer's pages ([`Quirk`]). The conforming quirks are choices the
//! contract leaves open ("how the issuer page is built", "time-outs: not
//! shown"); the others are faults of the target or mistakes of the target
//! file. Every listener is on loopback.

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use bytes::Bytes;
use hyper::{Request, body::Incoming};
use payconf_reference::{ReferenceConfig, RunningServer};
use url::Url;

use super::front::{Answer, Behind, Front, forward, respond};

/// One change to the way through the issuer's pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quirk {
    /// After the code is accepted, a "please wait" page that sends the
    /// buyer on after this many seconds: by a meta refresh, or by a script.
    WaitPage { seconds: u64, script: bool },
    /// A "Resend the code" submit control before the confirming one; pressed,
    /// it shows the same page again.
    ResendFirst,
    /// An `<input type=submit value="Torna al negozio">` before the
    /// confirming control; pressed, it leaves for the shop's failure page.
    ShopFirst,
    /// This many pages, each answered after two seconds, before the issuer page.
    SlowPages(u32),
    /// The answer to the issuer's form comes after two seconds, the form
    /// showing meanwhile.
    SlowAnswer,
    /// The answer to the issuer's form is HTTP 403: a balancer's cookie
    /// replaced the issuer's session. A fault of the target.
    SessionLost,
    /// The answer to the issuer's form is the same page again, whatever was
    /// typed: the issuer did not take the code.
    AsksAgain,
}

/// The front and the reference implementation behind it.
pub struct JourneyFront {
    pub base: Url,
    _reference: RunningServer,
}

struct QuirkFront {
    quirk: Quirk,
    reference: Url,
    client: reqwest::Client,
    /// The last issuer page served, to serve again.
    last_page: Mutex<String>,
}

impl JourneyFront {
    /// The front with `quirk`, over a reference implementation of its own.
    pub async fn start(quirk: Quirk) -> Self {
        let behind = Behind::start(ReferenceConfig::default()).await;
        let base = behind.base.clone();
        let front = Arc::new(QuirkFront {
            quirk,
            reference: behind.inner.clone(),
            client: super::front::client(),
            last_page: Mutex::new(String::new()),
        });
        Self {
            base,
            _reference: behind.serve(front),
        }
    }
}

impl Front for QuirkFront {
    async fn answer(&self, request: Request<Incoming>) -> Answer {
        let path = request.uri().path().to_owned();
        let query = request.uri().query().unwrap_or("").to_owned();
        let method = request.method().clone();
        let (parts, mut body) = super::front::read(request).await;
        let issuer = path == "/pagam/pagam3d.aspx";
        if issuer && method == "GET" {
            if let Quirk::SlowPages(pages) = self.quirk {
                let hop: u32 = query
                    .split('&')
                    .find_map(|pair| pair.strip_prefix("hop="))
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(0);
                if hop < pages {
                    tokio::time::sleep(Duration::from_secs(2)).await;
                    let rest: Vec<&str> = query
                        .split('&')
                        .filter(|p| !p.starts_with("hop="))
                        .collect();
                    let next = format!("/pagam/pagam3d.aspx?{}&hop={}", rest.join("&"), hop + 1);
                    return respond(302, &[("location", &next)], "");
                }
            }
        }
        if issuer && method == "POST" {
            let form = String::from_utf8_lossy(&body).into_owned();
            match self.quirk {
                Quirk::SlowAnswer => tokio::time::sleep(Duration::from_secs(2)).await,
                Quirk::SessionLost => {
                    return respond(
                        403,
                        &[("content-type", "text/html")],
                        "<!doctype html><title>Forbidden</title><h1>Forbidden</h1>",
                    );
                }
                Quirk::AsksAgain => return self.page_again(),
                Quirk::ResendFirst if form.contains("resend=") => return self.page_again(),
                Quirk::ShopFirst if form.contains("leave=") => {
                    body = Bytes::from(form.replace("action=authenticate", "") + "&action=cancel");
                }
                _ => {}
            }
        }
        let forwarded = forward(&self.client, &self.reference, &parts, body, &[]).await;
        let status = forwarded.status;
        if issuer && method == "GET" && status == 200 {
            let html = String::from_utf8_lossy(&forwarded.body).into_owned();
            let page = match self.quirk {
                Quirk::ResendFirst => html.replacen(
                    r#"<button type="submit" name="action" value="authenticate">"#,
                    r#"<input type="submit" name="resend" value="Resend the code"> <button type="submit" name="action" value="authenticate">"#,
                    1,
                ),
                Quirk::ShopFirst => html.replacen(
                    r#"<button type="submit" name="action" value="authenticate">"#,
                    r#"<input type="submit" name="leave" value="Torna al negozio"> <input type="submit" value="Conferma"><button hidden type="submit" name="action" value="authenticate">"#,
                    1,
                ),
                _ => html,
            };
            *self.last_page.lock().expect("lock") = page.clone();
            return respond(200, &[("content-type", "text/html")], page);
        }
        if let (Quirk::WaitPage { seconds, script }, true, 303) = (self.quirk, issuer, status) {
            let to = forwarded.header("location").unwrap_or_default();
            let page = if script {
                format!(
                    "<!doctype html><title>Please wait</title><p>Please wait…</p>\
                     <script>setTimeout(function () {{ location.replace({to:?}); }}, {});</script>",
                    seconds * 1000
                )
            } else {
                format!(
                    "<!doctype html><title>Please wait</title>\
                     <meta http-equiv=\"refresh\" content=\"{seconds}; url={to}\"><p>Please wait…</p>"
                )
            };
            return respond(200, &[("content-type", "text/html")], page);
        }
        forwarded.answer()
    }
}

impl QuirkFront {
    fn page_again(&self) -> Answer {
        let page = self.last_page.lock().expect("lock").clone();
        respond(200, &[("content-type", "text/html")], page)
    }
}
