//! The lightbox: the service's script a shop's page includes to open the
//! payment page over it (`/pagam/javascript/axerve.js`, with the real
//! service's API: `axerve.lightBox.shop`, `axerve.lightBox.open(paymentID,
//! paymentToken, callback[, window])`), and the result page that tells the
//! shop's page how the payment ended (the sandbox's demo checkout, `demo`,
//! is a shop page that uses both).
//!
//! As the real script does (`../shared/contract/real-service-frontend.md`
//! §2): on a desktop it lays an overlay (`#axerve_lightBox`) over the page,
//! holding a frame (`allow="payment"`) on the framed page and a footer; on a
//! mobile (a mobile user agent or a screen under 500 px wide) it opens the
//! framed page in a window, or in the window the shop passes as the fourth
//! argument; opened while one is open, it asks the buyer whether to drop
//! the current payment; `axerve.debug` logs its steps (`[Axerve.JS]`); an
//! empty token is error `1134`, a frame it cannot make `9992`, a browser
//! without what it needs `9991`, each given to the callback as
//! `{error: {code, description}, payLoad: null}`. It takes messages from
//! the service's origin only: `status` `hide` or `show` hides or shows the
//! overlay, anything else closes it and is the result: the callback gets
//! it, or, without a callback, the window goes to its `responseURL`.
//!
//! Ours, where the facts stop: the result message's other fields
//! (`transactionResult`, `paymentID`, `paymentToken`, beside `status` `OK`
//! or `KO` and `responseURL`, the buyer's return address with `a` and `b`);
//! the script takes results only from the frame or window it opened and
//! only for the payment it opened; the footer's Close gives the callback
//! `status` `KO` with error `1143` (the buyer abandoned) and leaves the
//! payment payable; in a window, the result page closes the window once it
//! has told the shop's page. Opened as a page of its own (no lightbox), the
//! result page sends the buyer on with a `303`.

use http::{HeaderValue, Request, Response, StatusCode, header};
use hyper::body::Incoming;
use payconf_spec::transaction::TransactionResult;
use uuid::Uuid;

use super::{already_processed, payment_of, query_pairs, unknown_payment};
use crate::{
    landing::destination,
    pages::{escape, html_with_policy, layout, see_other},
    paths::FRAMED_PATH,
    state::{Body, Service},
    store::PaymentState,
};

/// The code and description of the callback's result when the buyer
/// closes the lightbox (ours: the real service's "buyer abandoned").
const ABANDONED: (&str, &str) = ("1143", "Transaction abandoned by the buyer");

/// `GET`: the lightbox script, with the framed page's address written in.
pub fn script(service: &Service) -> Response<Body> {
    let framed = service
        .public_url
        .join(FRAMED_PATH.trim_start_matches('/'))
        .map_or_else(|_| service.public_url.to_string(), |url| url.to_string());
    let body = LIGHTBOX_SCRIPT
        .replace("__FRAMED__", &script_string(&framed))
        .replace("__ABANDONED_CODE__", &script_string(ABANDONED.0))
        .replace("__ABANDONED__", &script_string(ABANDONED.1));
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
            p.framed_by().map(str::to_owned),
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
    let word = TransactionResult::of(success);
    let message = serde_json::json!({
        "status": word,
        "transactionResult": word,
        "paymentID": payment_id.to_string(),
        "paymentToken": token.hyphenated().to_string(),
        "responseURL": destination.as_str(),
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
<script nonce="{nonce}">
(function () {{
  var message = {message};
  var shop = window.parent !== window ? window.parent : window.opener;
  if (!shop) {{ window.location.replace(message.responseURL); return; }}
  shop.postMessage(message, {origin});
  if (shop === window.opener) {{ window.close(); }}
}})();
</script>"#,
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

/// What a shop pastes into its checkout page, as shops write it for the
/// real service: the service's script, the shop's login, and a button
/// (`#pay`) that opens the payment its server created; the callback writes
/// the outcome into `#outcome` and sends the buyer on to `responseURL`.
/// `script` is the script's address as the shop's page reaches it.
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
axerve.lightBox.shop = {shop};
document.getElementById('pay').addEventListener('click', function () {{
  axerve.lightBox.open({payment_id}, {token}, function (response) {{
    var outcome = document.getElementById('outcome');
    if (response.status === 'OK') {{
      outcome.textContent = 'Payment ' + response.paymentID + ': OK';
    }} else if (response.error) {{
      outcome.textContent = 'Payment not opened: ' + response.error.code + ' ' + response.error.description;
    }} else {{
      outcome.textContent = 'Payment ' + response.paymentID + ': ' + response.status;
    }}
    if (response.responseURL) {{ window.location.assign(response.responseURL); }}
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

/// The lightbox script; `__FRAMED__` is the framed page's address, and
/// `__ABANDONED_CODE__` and `__ABANDONED__` the Close button's error, each
/// as a string literal.
const LIGHTBOX_SCRIPT: &str = r#"/* The sandbox's lightbox, with the real service's API: axerve.lightBox. */
(function () {
  'use strict';
  var FRAMED = __FRAMED__;
  var MOBILE = /Android|webOS|iPhone|iPad|iPod|BlackBerry|IEMobile|Opera Mini|Mobile/i;
  var axerve = window.axerve || {};
  var lightBox = axerve.lightBox || {};
  var current = null;

  function log() {
    if (!axerve.debug || !window.console) { return; }
    console.log.apply(console, ['[Axerve.JS]'].concat(Array.prototype.slice.call(arguments)));
  }

  function supported() {
    return typeof window.postMessage === 'function' && typeof window.URL === 'function' &&
      typeof window.URLSearchParams === 'function' && typeof JSON === 'object';
  }

  function refuse(callback, code, description) {
    log('error', code, description);
    var response = { error: { code: code, description: description }, payLoad: null };
    if (typeof callback === 'function') { callback(response); return; }
    if (window.console) { console.error('[Axerve.JS] ' + code + ': ' + description); }
  }

  function mobile() {
    return MOBILE.test(navigator.userAgent || '') || (window.screen && window.screen.width < 500);
  }

  function close() {
    if (!current) { return; }
    var open = current;
    current = null;
    window.removeEventListener('message', open.listener);
    if (open.overlay) { open.overlay.remove(); }
    if (open.opened && !open.opened.closed) { open.opened.close(); }
    log('closed');
  }

  function overlay(address, open) {
    var shade = document.createElement('div');
    shade.id = 'axerve_lightBox';
    shade.setAttribute('role', 'dialog');
    shade.setAttribute('aria-modal', 'true');
    shade.setAttribute('aria-label', 'Payment');
    shade.style.cssText = 'position:fixed;inset:0;z-index:2147483647;display:flex;flex-direction:column;' +
      'align-items:center;justify-content:center;background:rgba(15,23,42,.6);';
    var frame = document.createElement('iframe');
    frame.title = 'Payment';
    frame.name = 'axerve_lightBox_frame';
    frame.setAttribute('allow', 'payment');
    // The service keeps the page's origin from the frame's Referer.
    frame.referrerPolicy = 'origin';
    frame.src = address;
    frame.style.cssText = 'width:min(32rem,100vw);height:min(44rem,calc(100vh - 4rem));border:0;' +
      'border-radius:8px 8px 0 0;background:#fff;box-shadow:0 8px 32px rgba(0,0,0,.35);';
    var footer = document.createElement('div');
    footer.className = 'axerve_lightBox_footer';
    footer.style.cssText = 'width:min(32rem,100vw);display:flex;justify-content:space-between;align-items:center;' +
      'box-sizing:border-box;padding:.5rem 1rem;background:#f1f3f9;border-radius:0 0 8px 8px;' +
      'font:14px system-ui,sans-serif;color:#333;';
    var note = document.createElement('span');
    note.textContent = 'Sandbox payment: nothing is charged.';
    var shut = document.createElement('button');
    shut.type = 'button';
    shut.textContent = 'Close';
    shut.addEventListener('click', function () {
      log('closed by the buyer');
      var callback = open.callback;
      close();
      if (typeof callback === 'function') {
        callback({ status: 'KO', paymentID: open.paymentID,
          error: { code: __ABANDONED_CODE__, description: __ABANDONED__ } });
      }
    });
    footer.appendChild(note);
    footer.appendChild(shut);
    shade.appendChild(frame);
    shade.appendChild(footer);
    document.body.appendChild(shade);
    frame.focus();
    open.overlay = shade;
    open.frame = frame;
  }

  function open(paymentID, paymentToken, callback, target) {
    if (!supported()) { refuse(callback, '9991', 'Browser Not Supported'); return; }
    if (paymentToken === undefined || paymentToken === null || String(paymentToken).trim() === '') {
      refuse(callback, '1134', 'Not accepted call: empty parameter paymentToken');
      return;
    }
    if (current) {
      if (!window.confirm('A payment is open. Do you want to abort it and start the new one?')) {
        log('the open payment is kept');
        return;
      }
      close();
    }
    var address = FRAMED + '?' + new URLSearchParams({
      paymentID: paymentID === undefined || paymentID === null ? '' : String(paymentID),
      paymentToken: String(paymentToken).trim(),
      shopLogin: lightBox.shop === undefined || lightBox.shop === null ? '' : String(lightBox.shop),
      lightBox: 'true'
    }).toString();
    var state = { callback: callback, paymentID: String(paymentID), overlay: null, frame: null, opened: null, window: null };
    var service = new URL(FRAMED).origin;
    state.listener = function (event) {
      if (event.origin !== service) { return; }
      var from = state.frame ? state.frame.contentWindow : state.window;
      if (event.source !== from) { return; }
      var data = event.data;
      if (typeof data === 'string') {
        try { data = JSON.parse(data); } catch (e) { return; }
      }
      if (!data || typeof data !== 'object') { return; }
      if (data.status === 'hide' || data.status === 'show') {
        if (state.overlay) { state.overlay.style.display = data.status === 'hide' ? 'none' : 'flex'; }
        log(data.status);
        return;
      }
      // A result of another payment's (an old frame's) is not this one's.
      if (data.paymentID !== undefined && String(data.paymentID) !== state.paymentID) { return; }
      log('result', data.status);
      close();
      if (typeof state.callback === 'function') {
        state.callback(data);
      } else if (typeof data.responseURL === 'string' && /^https?:\/\//i.test(data.responseURL)) {
        window.location.replace(data.responseURL);
      }
    };
    if (target || mobile()) {
      log('opening in a window', address);
      if (target) {
        target.location.replace(address);
        state.window = target;
      } else {
        state.window = window.open(address, 'axerve_lightBox');
        state.opened = state.window;
      }
      if (!state.window) { refuse(callback, '9992', 'Error Creating Iframe'); return; }
    } else {
      log('opening the lightbox', address);
      try {
        overlay(address, state);
      } catch (e) {
        if (state.overlay) { state.overlay.remove(); }
        refuse(callback, '9992', 'Error Creating Iframe');
        return;
      }
    }
    window.addEventListener('message', state.listener);
    current = state;
  }

  lightBox.open = open;
  axerve.lightBox = lightBox;
  window.axerve = axerve;
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
