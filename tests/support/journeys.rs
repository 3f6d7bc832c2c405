//! Issuer journeys as other servers build them: the reference
//! implementation behind a front that changes one thing of the way through
//! the issuer's pages ([`Quirk`]). The conforming quirks are choices the
//! contract leaves open ("how the issuer page is built", "time-outs: not
//! shown"); the others are faults of the target or mistakes of the target
//! file. Every listener is on loopback.

use std::{
    convert::Infallible,
    sync::{Arc, Mutex},
    time::Duration,
};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Request, Response, body::Incoming, service::service_fn};
use hyper_util::rt::TokioIo;
use payconf_reference::{ReferenceConfig, RunningServer};
use tokio::net::TcpListener;
use url::Url;

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
    /// The answer to the issuer's form is HTTP 403: a balancer's cookie
    /// replaced the issuer's session. A fault of the target.
    SessionLost,
    /// The answer to the issuer's form is the same page again, whatever was
    /// typed: the issuer did not take the code.
    AsksAgain,
}

type Answer = Response<Full<Bytes>>;

fn respond(status: u16, headers: &[(&str, &str)], body: impl Into<Bytes>) -> Answer {
    let mut response = Response::builder().status(status);
    for (name, value) in headers {
        response = response.header(*name, *value);
    }
    response
        .body(Full::new(body.into()))
        .expect("a valid response")
}

/// The front and the reference implementation behind it.
pub struct JourneyFront {
    pub base: Url,
    _reference: RunningServer,
}

struct Front {
    quirk: Quirk,
    reference: Url,
    client: reqwest::Client,
    /// The last issuer page served, to serve again.
    last_page: Mutex<String>,
}

impl JourneyFront {
    /// The front with `quirk`, over a reference implementation of its own.
    pub async fn start(quirk: Quirk) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("binds");
        let address = listener.local_addr().expect("address");
        let base = Url::parse(&format!("http://{address}/")).expect("url");
        // The service's pages are addressed through the front.
        let config = ReferenceConfig {
            public_url: Some(base.clone()),
            ..ReferenceConfig::default()
        };
        let inner = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("reference binds");
        let inner_url =
            Url::parse(&format!("http://{}/", inner.local_addr().expect("address"))).expect("url");
        let reference = RunningServer::start_on(inner, config).expect("reference starts");
        let front = Arc::new(Front {
            quirk,
            reference: inner_url,
            client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .no_proxy()
                .build()
                .expect("client"),
            last_page: Mutex::new(String::new()),
        });
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let front = Arc::clone(&front);
                tokio::spawn(async move {
                    let service = service_fn(move |request: Request<Incoming>| {
                        let front = Arc::clone(&front);
                        async move { Ok::<_, Infallible>(front.answer(request).await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Self {
            base,
            _reference: reference,
        }
    }
}

impl Front {
    async fn answer(&self, request: Request<Incoming>) -> Answer {
        let path = request.uri().path().to_owned();
        let query = request.uri().query().unwrap_or("").to_owned();
        let method = request.method().clone();
        let (parts, body) = request.into_parts();
        let mut body = body
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        let issuer = path == "/acs/authenticate";
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
                    let next = format!("/acs/authenticate?{}&hop={}", rest.join("&"), hop + 1);
                    return respond(302, &[("location", &next)], "");
                }
            }
        }
        if issuer && method == "POST" {
            let form = String::from_utf8_lossy(&body).into_owned();
            match self.quirk {
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
        let (status, headers, answer) = self.forward(&parts, body).await;
        let html = String::from_utf8_lossy(&answer).into_owned();
        if issuer && method == "GET" && status == 200 {
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
            let to = headers
                .iter()
                .find(|(n, _)| n == "location")
                .map(|(_, v)| v.clone())
                .unwrap_or_default();
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
        let pairs: Vec<(&str, &str)> = headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        respond(status, &pairs, answer)
    }

    fn page_again(&self) -> Answer {
        let page = self.last_page.lock().expect("lock").clone();
        respond(200, &[("content-type", "text/html")], page)
    }

    async fn forward(
        &self,
        parts: &hyper::http::request::Parts,
        body: Bytes,
    ) -> (u16, Vec<(String, String)>, Bytes) {
        let path = parts
            .uri
            .path_and_query()
            .map_or("/", |p| p.as_str())
            .trim_start_matches('/');
        let url = self.reference.join(path).expect("url");
        let mut forwarded = self.client.request(parts.method.clone(), url);
        for (name, value) in &parts.headers {
            if name != "host" && name != "content-length" {
                forwarded = forwarded.header(name, value);
            }
        }
        match forwarded.body(body).send().await {
            Ok(response) => {
                let status = response.status().as_u16();
                let headers = response
                    .headers()
                    .iter()
                    .filter(|(n, _)| {
                        !matches!(
                            n.as_str(),
                            "content-length" | "transfer-encoding" | "connection"
                        )
                    })
                    .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("").to_owned()))
                    .collect();
                (status, headers, response.bytes().await.unwrap_or_default())
            }
            Err(e) => (502, Vec::new(), Bytes::from(e.to_string())),
        }
    }
}
