//! `payconf bench --payment-pages`: the buyer's journey on the standard
//! payment page, measured as users run it, per style of page the sandbox
//! serves: its full page with the form driver and with the browser, and
//! the lightbox (a shop's page of its own, on another origin, opening the
//! page in an overlay with the sandbox's script) with the browser. Each
//! style's `@payment-page` scenarios run in a `payconf run` process of
//! their own, one at a time, and each scenario's time is read from its
//! `--results` file ([`super::issuer_pages`] measures the same way).

use super::error::BenchError;
use bytes::Bytes;
use http_body_util::Full;
use hyper::{body::Incoming, server::conn::http1, service::service_fn};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

use payconf_reference::{ReferenceConfig, RunningServer};

use super::issuer_pages::{measure, slowest_and_mean, target_file};

/// The sandbox's payment page as the shop's page shows it: the shop's Pay
/// button first, then the card form in the overlay. For a page opened by a
/// click, steps describe the way; the lightbox test pastes the documented
/// snippet and pays with these same steps.
pub const LIGHTBOX_STEPS: &str = include_str!("lightbox-steps.toml");

/// The sandbox's own page, its inputs named, and its wallet.
fn page_section(base: &str) -> String {
    format!(
        "[payment_page]\naddress = \"{base}/pagam/pagam.aspx?a={{shopLogin}}&b={{paymentToken}}\"\n\
         fields = {{ number = \"cardNumber\", exp_month = \"expMonth\", exp_year = \"expYear\", cvv = \"cvv\", name = \"holder\", email = \"email\" }}\n\
         [payment_page.alternative]\nchoose = \"#wallet button\"\n"
    )
}

/// Runs the measurement and prints its figures.
pub async fn payment_pages() -> Result<(), BenchError> {
    let server = RunningServer::start(ReferenceConfig::default())
        .await
        .map_err(BenchError::start("the reference implementation"))?;
    let base = server.base_url.as_str().trim_end_matches('/').to_owned();
    let shop = shop_page(&base).await?;
    println!(
        "payconf bench --payment-pages: the sandbox at {base}; {} CPUs",
        std::thread::available_parallelism().map_or(1, usize::from)
    );
    let page = format!("{}{}", target_file(&base), page_section(&base));
    let lightbox = format!(
        "{}[payment_page]\naddress = \"{shop}/checkout?token={{paymentToken}}&id={{paymentID}}\"\n{LIGHTBOX_STEPS}",
        target_file(&base)
    );
    let every = "@payment-page and @core";
    // The lightbox's wallet is behind the shop's button: no step reaches it.
    let cards = "@payment-page and @core and not @alternative-method";
    let styles = [
        ("full page", "form", &page, every),
        ("full page", "browser", &page, every),
        ("lightbox", "browser", &lightbox, cards),
    ];
    for (style, driver, target, tags) in styles {
        let (durations, wall) = measure(target, driver, tags, style).await?;
        let (slowest, mean) = slowest_and_mean(&durations);
        println!(
            "{style:<9} {driver:<7}  {} page scenarios: {slowest:.0} ms the slowest, {mean:.0} ms on average; the run {:.2} s wall{}",
            durations.len(),
            wall.as_secs_f64(),
            if driver == "browser" {
                ", browser start included"
            } else {
                ""
            }
        );
    }
    let _ = server.shutdown().await;
    Ok(())
}

/// A shop's checkout page on a loopback origin of its own: the Pay button
/// and the sandbox's snippet, for the payment the query names. Returns the
/// shop's base address; it serves until the process ends. An HTTP server
/// (hyper), not a read and a write: a browser opens connections ahead of
/// its requests, and a page written to a connection before its request
/// came would be another payment's.
async fn shop_page(sandbox: &str) -> Result<String, BenchError> {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(BenchError::start("the shop's page"))?;
    let address = listener
        .local_addr()
        .map_err(BenchError::start("the shop's page"))?;
    let script = format!("{sandbox}{}", payconf_reference::SCRIPT_PATH);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let script = script.clone();
            let page = service_fn(move |request: http::Request<Incoming>| {
                let body = checkout(&script, request.uri());
                async move {
                    http::Response::builder()
                        .header("content-type", "text/html; charset=utf-8")
                        .body(Full::new(Bytes::from(body)))
                }
            });
            tokio::spawn(http1::Builder::new().serve_connection(TokioIo::new(stream), page));
        }
    });
    Ok(format!("http://{address}"))
}

/// The shop's page for the request for `uri`.
fn checkout(script: &str, uri: &http::Uri) -> String {
    let url = url::Url::parse("http://shop.invalid")
        .and_then(|base| base.join(&uri.to_string()))
        .ok();
    let query = |name: &str| {
        url.as_ref()
            .and_then(|url| url.query_pairs().find(|(key, _)| key == name))
            .map(|(_, value)| value.into_owned())
            .unwrap_or_default()
    };
    let token = uuid::Uuid::try_parse(&query("token")).unwrap_or_default();
    let id = query("id").parse::<u64>().unwrap_or_default();
    let snippet = payconf_reference::checkout_snippet(
        script,
        payconf_reference::DEFAULT_SHOP_LOGIN,
        &token,
        id,
        "bench",
    );
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Shop</title></head><body>\
         <button type=\"button\" id=\"pay\">Pay</button><p id=\"outcome\" role=\"status\"></p>\n{snippet}\n</body></html>"
    )
}
