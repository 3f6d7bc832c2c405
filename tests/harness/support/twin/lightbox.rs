//! The twin's lightbox script, `/checkout/lightbox.js`: the real service's
//! API (`axerve.lightBox.shop`, `axerve.lightBox.open(paymentID,
//! paymentToken, callback[, window])`) with choices of its own where the
//! facts stop: the framed page is the twin's card form
//! (`/checkout/pay/frame`), told the shop page's origin by the script; the
//! result comes by `postMessage` as JSON text (`{"status": "OK"|"KO",
//! "responseURL", "order"}`), only from the twin's own origin; the empty
//! token's 1134 is a number; a phone is a screen under 500 px or a mobile
//! user agent. With its variation it writes other words (objects, the code
//! as text, `DECLINED`, the window given as the fourth argument).

use wiremock::{Request, ResponseTemplate};

use super::{Defect, Twin, Variation, answer, page, query};

impl Twin {
    /// `GET /checkout/lightbox.js`: the script.
    pub(super) fn lightbox_script(&self) -> ResponseTemplate {
        let service = self.service.origin().ascii_serialization();
        let other_words = self.variation == Some(Variation::LightboxInOtherWords);
        let flag = |on: bool| if on { "true" } else { "false" };
        let script = format!(
            r#"(function () {{
  var service = {service:?};
  var overlayId = {overlay:?};
  var emptyTokenOpens = {empty};
  var overlayOnPhone = {phone};
  var noCallbackStays = {stays};
  var otherWords = {words};
  var current = null;
  function close() {{
    if (!current) return;
    if (current.overlay && current.overlay.parentNode) current.overlay.parentNode.removeChild(current.overlay);
    window.removeEventListener('message', current.listen);
    current = null;
  }}
  function open(paymentID, paymentToken, callback, win) {{
    if (!paymentToken && !emptyTokenOpens) {{
      if (callback) callback({{ error: {{ code: otherWords ? '1134' : 1134, description: 'The payment token is empty' }}, payLoad: null }});
      return;
    }}
    close();
    var address = service + '/checkout/pay/frame?t=' + encodeURIComponent(paymentToken || '') +
      '&lb=' + encodeURIComponent(window.location.origin);
    var phone = !overlayOnPhone && (window.screen.width < 500 || /Mobi|Android|iPhone/.test(navigator.userAgent));
    current = {{}};
    current.listen = function (event) {{
      if (event.origin !== service) return;
      var data = event.data;
      if (typeof data === 'string') {{
        try {{ data = JSON.parse(data); }} catch (e) {{ return; }}
      }}
      if (!data || typeof data.status !== 'string') return;
      close();
      if (callback) callback(data);
      else if (!noCallbackStays) window.location.replace(data.responseURL);
    }};
    window.addEventListener('message', current.listen);
    if (phone) {{
      if (otherWords) {{
        var named = win || window.open('', 'twin-pay');
        named.location.href = address;
      }} else if (win) {{
        win.location.href = address;
      }} else {{
        window.open(address, 'twin-pay');
      }}
      return;
    }}
    var overlay = document.createElement('div');
    overlay.id = overlayId;
    overlay.setAttribute('style', 'position:fixed;top:0;left:0;right:0;bottom:0;background:rgba(0,0,0,.5);z-index:1000');
    var frame = document.createElement('iframe');
    frame.src = address;
    frame.title = 'Twin Store payment';
    frame.setAttribute('allow', 'payment');
    frame.setAttribute('style', 'display:block;width:480px;height:640px;margin:5vh auto;background:#fff;border:0');
    overlay.appendChild(frame);
    document.body.appendChild(overlay);
    current.overlay = overlay;
  }}
  window.axerve = {{ lightBox: {{ shop: null, open: open }} }};
}})();
"#,
            overlay = if self.has(Defect::LightboxOverlayUnnamed) {
                "twin-lightbox"
            } else {
                "axerve_lightBox"
            },
            empty = flag(self.has(Defect::LightboxEmptyTokenOpens)),
            phone = flag(self.has(Defect::LightboxOverlayOnPhone)),
            stays = flag(self.has(Defect::LightboxNoCallbackStays)),
            words = flag(other_words),
        );
        answer(200, "text/javascript; charset=utf-8", script)
    }

    /// The shop page's origin a lightbox's frame was opened for, kept for
    /// the payment `order` when the frame's address names one.
    pub(super) fn keep_lightbox(&self, request: &Request, order: &str) {
        let Some(origin) = query(request, "lb")
            .and_then(|lb| url::Url::parse(&lb).ok())
            .filter(|lb| matches!(lb.scheme(), "http" | "https"))
            .map(|lb| lb.origin().ascii_serialization())
        else {
            return;
        };
        self.state
            .lightboxes
            .lock()
            .expect("lock")
            .insert(order.to_owned(), origin);
    }

    /// The end of a payment opened in the lightbox for the shop page at
    /// `origin`: the result told to that page (the frame's parent, or the
    /// window's opener, which it then closes).
    pub(super) fn lightbox_result(
        &self,
        origin: &str,
        order: &str,
        path: &str,
    ) -> ResponseTemplate {
        let paid = path.starts_with("/thank-you") || self.has(Defect::LightboxDeclinedToldOk);
        let status = match (
            paid,
            self.variation == Some(Variation::LightboxInOtherWords),
        ) {
            (true, _) => "OK",
            (false, false) => "KO",
            (false, true) => "DECLINED",
        };
        let landing = Self::at(&self.shop, path);
        let result = serde_json::json!({"status": status, "responseURL": landing, "order": order});
        let message = if self.variation == Some(Variation::LightboxInOtherWords) {
            result.to_string()
        } else {
            serde_json::to_string(&result.to_string()).expect("a string is JSON")
        };
        page(
            "Payment complete",
            &format!(
                r#"<p>Payment complete.</p>
<script>
var shop = window.opener || window.parent;
shop.postMessage({message}, {origin:?});
if (window.opener) setTimeout(function () {{ window.close(); }}, 50);
</script>"#
            ),
        )
    }
}
