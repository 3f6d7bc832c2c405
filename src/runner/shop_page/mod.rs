//! The shop's page of the `@lightbox` scenarios: payconf's own checkout
//! page, served for the run on a loopback origin of its own, written as
//! shops written for the real service write theirs
//! (`../shared/contract/real-service-frontend.md` §2): it includes the
//! target's lightbox script (`[payment_page.lightbox]`), sets
//! `axerve.lightBox.shop`, and its Pay button calls
//! `axerve.lightBox.open(paymentID, paymentToken, callback)`, or with no
//! callback for the buyer to be sent to the result's `responseURL`.
//!
//! What the callback is told, and what the lightbox opened on the page
//! (frames in its overlay, windows), the page carries to payconf's page
//! of its own at `/heard/<case>`, where the journey ends; the scenario
//! reads it from that address ([`told`]). The server keeps nothing: every
//! page is made from its address, and each journey's case is a name of its
//! own, so no page of one journey is taken for another's.
//!
//! Only the run's browser opens it; it is bound to loopback, answers `GET`
//! alone, and bounds its connections (how many, their heads, their time).

pub mod told;

pub use told::Told;

use std::{convert::Infallible, sync::Arc, time::Duration};

use bytes::Bytes;
use http_body_util::Full;
use hyper::{Request, Response, body::Incoming};
use tokio::net::TcpListener;
use url::Url;

use crate::runner::served::{self, Bounds};

/// The page, `{script}` standing for the script's address.
const CHECKOUT: &str = include_str!("checkout.html");

/// What the buyer clicks on the shop's page to open the lightbox.
pub const PAY_BUTTON: &str = "#payconf-pay";

/// Connections served at once; more are closed as they come.
const CONNECTIONS: usize = 32;
/// The most a request's head may take, in bytes.
const MAX_HEAD: usize = 16 * 1024;
/// The longest a request's head may take to arrive.
const READ_BOUND: Duration = Duration::from_secs(10);
/// The longest a connection is kept, whatever it does.
const CONNECTION_BOUND: Duration = Duration::from_secs(120);

/// How the shop's page opens the lightbox.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opening {
    /// With a callback, which is told the result.
    Callback,
    /// With none: the script sends the buyer to the result's `responseURL`.
    Redirect,
}

/// What the shop's page opens, for one journey.
#[derive(Clone, Copy, Debug)]
pub struct Checkout<'a> {
    /// The journey's own name, in the page's addresses.
    pub case: &'a str,
    /// The payment's `paymentID`, as create gave it.
    pub payment_id: &'a str,
    /// The payment's token, as create gave it (empty for the scenario that
    /// gives none).
    pub token: &'a str,
    /// The shop's login, set as `axerve.lightBox.shop`.
    pub shop_login: &'a str,
    /// With or without a callback.
    pub opening: Opening,
}

/// The run's shop page server.
#[derive(Debug)]
pub struct ShopPage {
    origin: Url,
    stop: tokio::sync::watch::Sender<bool>,
}

impl ShopPage {
    /// Binds a loopback port and serves the page, with the script at `script`.
    pub async fn start(script: &Url) -> std::io::Result<Arc<Self>> {
        let socket = TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0)).await?;
        let local = socket.local_addr()?;
        let origin =
            Url::parse(&format!("http://{local}/")).expect("a socket address makes an http URL");
        let page = Bytes::from(CHECKOUT.replace("{script}", &attribute(script.as_str())));
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let bounds = Bounds {
            connections: CONNECTIONS,
            max_head: MAX_HEAD,
            head_within: READ_BOUND,
            connection: CONNECTION_BOUND,
        };
        tokio::spawn(served::serve(socket, bounds, stopped, move |request| {
            answer(page.clone(), request)
        }));
        Ok(Arc::new(Self { origin, stop }))
    }

    /// The shop's page for `checkout`.
    pub fn checkout(&self, checkout: Checkout<'_>) -> Url {
        let mut url = self.at(&format!("/checkout/{}", checkout.case));
        url.query_pairs_mut()
            .append_pair("id", checkout.payment_id)
            .append_pair("token", checkout.token)
            .append_pair("shop", checkout.shop_login)
            .append_pair(
                "opening",
                match checkout.opening {
                    Opening::Callback => "callback",
                    Opening::Redirect => "redirect",
                },
            )
            .append_pair("heard", self.heard(checkout.case).as_str());
        url
    }

    /// payconf's page where the journey of `case` ends, told what the shop's
    /// page was told.
    pub fn heard(&self, case: &str) -> Url {
        self.at(&format!("/heard/{case}"))
    }

    /// Stops serving.
    pub fn stop(&self) {
        let _ = self.stop.send(true);
    }

    fn at(&self, path: &str) -> Url {
        let mut url = self.origin.clone();
        url.set_path(path);
        url
    }
}

impl Drop for ShopPage {
    fn drop(&mut self) {
        self.stop();
    }
}

/// `value` as it goes into a double-quoted HTML attribute.
fn attribute(value: &str) -> String {
    value
        .replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

async fn answer(
    page: Bytes,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let html = |status: u16, body: Bytes| {
        Response::builder()
            .status(status)
            .header("content-type", "text/html; charset=utf-8")
            .header("cache-control", "no-store")
            .header("referrer-policy", "strict-origin-when-cross-origin")
            .body(Full::new(body))
            .expect("a fixed response is valid")
    };
    if request.method() != hyper::Method::GET {
        return Ok(html(
            405,
            Bytes::from_static(b"<!DOCTYPE html><title>405</title>"),
        ));
    }
    let path = request.uri().path();
    Ok(if path.starts_with("/checkout/") {
        html(200, page)
    } else if path.starts_with("/heard/") {
        html(
            200,
            Bytes::from_static(
                b"<!DOCTYPE html><html lang=\"en\"><title>payconf heard the lightbox</title>\
                  <p>payconf's shop page was told the lightbox's result.</p></html>",
            ),
        )
    } else {
        html(
            404,
            Bytes::from_static(b"<!DOCTYPE html><title>404</title>"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_page_includes_the_script_escaped_and_names_its_journey() {
        let script = Url::parse("https://sandbox.example/pagam/javascript/axerve.js?v=\"1\"&a=<b>")
            .expect("a URL");
        let shop = ShopPage::start(&script).await.expect("started");
        let url = shop.checkout(Checkout {
            case: "c1",
            payment_id: "42",
            token: "a&b",
            shop_login: "SHOP",
            opening: Opening::Redirect,
        });
        let pairs: std::collections::HashMap<String, String> =
            url.query_pairs().into_owned().collect();
        assert_eq!(pairs["token"], "a&b");
        assert_eq!(pairs["opening"], "redirect");
        assert_eq!(pairs["heard"], shop.heard("c1").as_str());
        let client = payconf_reference::http_client().build().expect("a client");
        let page = client.get(url).send().await.expect("answered");
        assert_eq!(page.status(), 200);
        let body = page.text().await.expect("a body");
        assert!(
            body.contains(
                "src=\"https://sandbox.example/pagam/javascript/axerve.js?v=%221%22&amp;a=%3Cb%3E\""
            ),
            "{body}"
        );
        let posted = client
            .post(shop.heard("c1"))
            .send()
            .await
            .expect("answered");
        assert_eq!(posted.status(), 405);
        let elsewhere = client
            .get(shop.at("/other"))
            .send()
            .await
            .expect("answered");
        assert_eq!(elsewhere.status(), 404);
        shop.stop();
    }
}
