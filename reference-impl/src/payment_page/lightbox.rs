//! The lightbox: the service's script a shop's page includes to open the
//! payment page as an overlay (an iframe over the shop's page), and the
//! result page that tells the shop's page how the payment ended (the
//! sandbox's demo checkout, `demo`, is a shop page that uses both).
//!
//! The script opens the payment page with the shop page's origin; a payment
//! paid there ends, in the frame, on the result page, which posts the
//! outcome to that origin only (`payconf:payment-result`: `transactionResult`
//! `OK` or `KO`, `paymentID`, and `redirect`, the back-office page). The
//! script takes messages from the frame's own page on the service's origin
//! only, and only a result that names the payment it opened; it closes
//! the overlay, calls the shop's `onResult`, and sends the
//! buyer on to `redirect` unless `onResult` returns `false`. Opened as a
//! page of its own (no shop origin), the result page sends the buyer on
//! with a `303`.

use http::{HeaderValue, Request, Response, StatusCode, header};
use hyper::body::Incoming;
use payconf_spec::transaction::TransactionResult;
use uuid::Uuid;

use super::{already_processed, payment_of, query_pairs, unknown_payment};
use crate::{
    landing::destination,
    pages::{escape, html_with_policy, layout, see_other},
    paths::PAGE_PATH,
    state::{Body, Service},
    store::PaymentState,
};

/// The type of the message that tells the shop's page the outcome.
pub const RESULT_MESSAGE: &str = "payconf:payment-result";

/// `GET`: the lightbox script, with the payment page's address written in.
pub fn script(service: &Service) -> Response<Body> {
    let page = service
        .public_url
        .join(PAGE_PATH.trim_start_matches('/'))
        .map_or_else(|_| service.public_url.to_string(), |url| url.to_string());
    let body = LIGHTBOX_SCRIPT
        .replace("__PAGE__", &script_string(&page))
        .replace("__MESSAGE__", &script_string(RESULT_MESSAGE));
    let mut response = Response::new(body.into());
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/javascript; charset=utf-8"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// `GET`: where a payment paid in the lightbox ends; it tells the shop's
/// page the outcome, or sends the buyer on.
pub fn result(service: &Service, request: &Request<Incoming>) -> Response<Body> {
    let pairs = query_pairs(request);
    let Some((token, shop_login)) = payment_of(&pairs) else {
        return unknown_payment();
    };
    let ended = service.store.with_payment(&token, |p| {
        let profile = service.merchant(p.merchant);
        let (merchant, pages) = (&profile.merchant, &profile.pages);
        if merchant.shop_login != shop_login {
            return None;
        }
        let success = match p.state {
            PaymentState::Authorized => true,
            PaymentState::Declined => false,
            other => return Some(Err(other)),
        };
        let redirects = p.buyer_redirects.as_deref();
        Some(Ok((
            success,
            p.id,
            destination(pages, redirects, success, shop_login, &token),
            redirects.and_then(|r| r.framed_by.clone()),
        )))
    });
    let (success, payment_id, destination, origin) = match ended {
        Ok(Some(Ok(ended))) => ended,
        Ok(Some(Err(state))) => return already_processed(state),
        Ok(None) | Err(_) => return unknown_payment(),
    };
    let Some(origin) = origin else {
        return see_other(&destination);
    };
    let message = serde_json::json!({
        "type": RESULT_MESSAGE,
        "transactionResult": TransactionResult::of(success),
        "paymentID": payment_id.to_string(),
        "redirect": destination.as_str(),
    });
    let nonce = Uuid::new_v4().simple().to_string();
    let said = if success {
        "Your payment has been authorized."
    } else {
        "Your payment was not authorized. No money has been taken."
    };
    let main = format!(
        r#"<p>{said}</p>
<p><a href="{href}" target="_top">Continue to the shop</a></p>
<script nonce="{nonce}">window.parent.postMessage({message}, {origin});</script>"#,
        href = escape(destination.as_str()),
        message = script_value(&message),
        origin = script_string(&origin),
    );
    html_with_policy(
        StatusCode::OK,
        layout(
            if success {
                "Payment successful"
            } else {
                "Payment not completed"
            },
            &main,
        ),
        &format!(
            "default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-{nonce}'; \
             frame-ancestors {origin}"
        ),
    )
}

/// What a shop pastes into its checkout page: the service's script, and a
/// button (`#pay`) that opens the payment it created; the outcome is
/// written into `#outcome` before the buyer is sent on. `script` is the
/// script's address as the shop's page reaches it.
pub fn checkout_snippet(
    script: &str,
    shop_login: &str,
    token: &Uuid,
    payment_id: u64,
    nonce: &str,
) -> String {
    format!(
        r#"<script src="{script}"></script>
<script nonce="{nonce}">
document.getElementById('pay').addEventListener('click', function () {{
  PayconfLightbox.open({{
    shopLogin: {shop},
    paymentToken: {token},
    paymentID: {payment_id},
    onResult: function (result) {{
      document.getElementById('outcome').textContent =
        'Payment ' + result.paymentID + ': ' + result.transactionResult;
    }}
  }});
}});
</script>"#,
        script = escape(script),
        shop = script_string(shop_login),
        token = script_string(&token.hyphenated().to_string()),
        payment_id = script_string(&payment_id.to_string()),
    )
}

/// Text as a JavaScript string literal that is safe inside a `<script>`
/// element.
pub(super) fn script_string(text: &str) -> String {
    script_value(&serde_json::Value::String(text.to_owned()))
}

/// A JSON value as JavaScript that is safe inside a `<script>` element: no
/// `<` (so no `</script>`), and no line or paragraph separator.
fn script_value(value: &serde_json::Value) -> String {
    value
        .to_string()
        .replace('<', "\\u003c")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// The lightbox script; `__PAGE__` is the payment page's address and
/// `__MESSAGE__` the outcome message's type, both as string literals.
const LIGHTBOX_SCRIPT: &str = r#"/* The sandbox's lightbox: opens the standard payment page over the shop's page. */
(function () {
  'use strict';
  var PAGE = __PAGE__;
  var MESSAGE = __MESSAGE__;
  var SERVICE = new URL(PAGE).origin;
  var current = null;

  function close() {
    if (!current) { return; }
    window.removeEventListener('message', current.listener);
    document.removeEventListener('keydown', current.escape);
    current.overlay.remove();
    current = null;
  }

  function open(options) {
    close();
    var query = new URLSearchParams({
      shopLogin: String(options.shopLogin),
      paymentToken: String(options.paymentToken),
      paymentID: String(options.paymentID),
      origin: window.location.origin
    });
    var overlay = document.createElement('div');
    overlay.setAttribute('role', 'dialog');
    overlay.setAttribute('aria-modal', 'true');
    overlay.setAttribute('aria-label', 'Payment');
    overlay.style.cssText = 'position:fixed;inset:0;z-index:2147483647;display:flex;' +
      'align-items:center;justify-content:center;background:rgba(15,23,42,.6);';
    var frame = document.createElement('iframe');
    frame.title = 'Payment';
    frame.name = 'payconf-lightbox';
    frame.src = PAGE + '?' + query.toString();
    frame.style.cssText = 'width:min(32rem,100vw);height:min(46rem,100vh);border:0;' +
      'border-radius:8px;background:#fff;box-shadow:0 8px 32px rgba(0,0,0,.35);';
    var shut = document.createElement('button');
    shut.type = 'button';
    shut.textContent = '\u00d7';
    shut.setAttribute('aria-label', 'Close the payment');
    shut.style.cssText = 'position:absolute;top:.5rem;right:.75rem;font-size:2rem;' +
      'background:none;border:0;color:#fff;cursor:pointer;';
    shut.addEventListener('click', close);
    overlay.appendChild(frame);
    overlay.appendChild(shut);
    var listener = function (event) {
      if (event.origin !== SERVICE || event.source !== frame.contentWindow) { return; }
      var data = event.data;
      if (!data || data.type !== MESSAGE) { return; }
      // A result of another payment's (another frame's, an old one's) is not this one's.
      if (String(data.paymentID) !== String(options.paymentID)) { return; }
      close();
      var result = {
        transactionResult: data.transactionResult,
        paymentID: data.paymentID,
        redirect: data.redirect
      };
      var stay = typeof options.onResult === 'function' && options.onResult(result) === false;
      if (!stay && typeof result.redirect === 'string' && /^https?:\/\//.test(result.redirect)) {
        window.location.assign(result.redirect);
      }
    };
    var escape = function (event) { if (event.key === 'Escape') { close(); } };
    window.addEventListener('message', listener);
    document.addEventListener('keydown', escape);
    document.body.appendChild(overlay);
    current = { overlay: overlay, listener: listener, escape: escape };
    frame.focus();
    return { close: close };
  }

  window.PayconfLightbox = { open: open, close: close };
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_in_a_script_cannot_end_it() {
        let said = script_string("</script><script>alert(1)</script>\u{2028}");
        assert!(!said.contains('<'), "{said}");
        assert!(!said.contains('\u{2028}'), "{said}");
        assert!(said.starts_with('"') && said.ends_with('"'));
    }
}
