//! The HTML the service shows buyers: one layout, the merchant's result pages,
//! and error pages. Every value is escaped where it is placed.

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header};
use http_body_util::Full;
use url::Url;

use crate::state::Body;

/// Escapes text for an HTML element's content or a double-quoted attribute.
pub fn escape(text: &str) -> String {
    html_escape::encode_quoted_attribute(text).into_owned()
}

/// A complete page: `title` is text, `main` is HTML already escaped.
pub fn layout(title: &str, main: &str) -> String {
    let title = escape(title);
    document(&title, LAYOUT_STYLE, "", &title, main)
}

/// The buyer's pages' style sheet.
const LAYOUT_STYLE: &str = "\
body { font-family: system-ui, sans-serif; background: #f4f5f7; color: #1d2433; margin: 0; }
main { max-width: 28rem; margin: 3rem auto; background: #fff; padding: 2rem; border-radius: 8px; box-shadow: 0 1px 4px rgba(0,0,0,.12); }
h1 { font-size: 1.4rem; margin-top: 0; }
dl { display: grid; grid-template-columns: auto 1fr; gap: .3rem 1rem; }
dt { color: #5a6275; } dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }
label { display: block; margin: 1rem 0 .3rem; }
input[type=text] { font-size: 1.2rem; padding: .4rem; width: 10rem; letter-spacing: .2rem; }
button { font-size: 1rem; padding: .5rem 1.2rem; margin-top: 1rem; border-radius: 4px; border: 1px solid #1d4ed8; background: #1d4ed8; color: #fff; cursor: pointer; }
button.secondary { background: #fff; color: #1d4ed8; }
.note { color: #5a6275; font-size: .85rem; margin-top: 1.5rem; }";

/// A complete HTML document, every text escaped by the caller: its
/// `<title>`, its style sheet, what stands before `<main>` (a header),
/// and `main` under a heading.
pub fn document(title: &str, style: &str, before_main: &str, heading: &str, main: &str) -> String {
    format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
{style}
</style>
</head>
<body>
{before_main}<main>
<h1>{heading}</h1>
{main}
</main>
</body>
</html>
"#
    )
}

/// The content security policy of a page with no script and no frame.
const STATIC_PAGE_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'";

/// An HTML answer. Pages carry payment references in their address, so they
/// are neither cached nor passed on as referrer.
pub fn html(status: StatusCode, page: String) -> Response<Body> {
    html_with_policy(status, page, STATIC_PAGE_POLICY)
}

/// An HTML answer under its own content security policy (a page with a
/// script or a frame). A policy that does not say who may frame the page
/// says no one may (`frame-ancestors 'none'`): a page of the sandbox's is
/// never shown inside another site's unless it says so.
pub fn html_with_policy(status: StatusCode, page: String, policy: &str) -> Response<Body> {
    let policy = if policy.contains("frame-ancestors") {
        policy.to_owned()
    } else {
        format!("{policy}; frame-ancestors 'none'")
    };
    let mut response = Response::new(Full::new(Bytes::from(page)));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    match HeaderValue::from_str(&policy) {
        Ok(policy) => {
            headers.insert(header::CONTENT_SECURITY_POLICY, policy);
        }
        // The policies are the service's own text: always valid header values.
        Err(_) => {
            headers.insert(
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(STATIC_PAGE_POLICY),
            );
        }
    }
    response
}

/// `response` with its policy's `frame-ancestors` set to `ancestors` (the
/// sources that may frame it, e.g. `'self' https://shop.example`).
pub fn framed_by(mut response: Response<Body>, ancestors: &str) -> Response<Body> {
    let policy = response
        .headers()
        .get(header::CONTENT_SECURITY_POLICY)
        .and_then(|p| p.to_str().ok())
        .unwrap_or(STATIC_PAGE_POLICY);
    let mut directives: Vec<String> = policy
        .split(';')
        .map(str::trim)
        .filter(|d| !d.is_empty() && !d.starts_with("frame-ancestors"))
        .map(str::to_owned)
        .collect();
    directives.push(format!("frame-ancestors {ancestors}"));
    if let Ok(value) = HeaderValue::from_str(&directives.join("; ")) {
        response
            .headers_mut()
            .insert(header::CONTENT_SECURITY_POLICY, value);
    }
    response
}

/// A `303 See Other` to `url`: where the buyer goes after a form.
pub fn see_other(url: &Url) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = StatusCode::SEE_OTHER;
    match HeaderValue::from_str(url.as_str()) {
        Ok(location) => {
            response.headers_mut().insert(header::LOCATION, location);
            response
        }
        // A parsed URL is always a valid header value; refuse rather than panic.
        Err(_) => error_page(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Technical error",
            "The merchant's page could not be reached.",
        ),
    }
}

/// An error page with a title and one explaining sentence.
pub fn error_page(status: StatusCode, title: &str, message: &str) -> Response<Body> {
    error_page_under(status, title, message, STATIC_PAGE_POLICY)
}

/// An error page under its own content security policy (one a shop's
/// lightbox may frame).
pub fn error_page_under(
    status: StatusCode,
    title: &str,
    message: &str,
    policy: &str,
) -> Response<Body> {
    html_with_policy(
        status,
        layout(title, &format!("<p>{}</p>", escape(message))),
        policy,
    )
}

/// The success or failure page the sandbox serves for its merchants'
/// shops (`/merchant/{shopLogin}/success|failure`, the built-in merchant's
/// by default). The page is the same whichever shop login the address
/// names, known or not, so it tells no one which shops exist (sign-in
/// hides it too); the address is still the shop's, so each shop lands on
/// its own.
pub fn merchant_result(success: bool) -> Response<Body> {
    let (title, text) = if success {
        (
            "Payment successful",
            "<p>Thank you. Your payment has been authorized.</p>",
        )
    } else {
        (
            "Payment not completed",
            "<p>Your payment was not authorized. No money has been taken.</p>",
        )
    };
    html(StatusCode::OK, layout(title, text))
}
