//! The payment page's zoo as HTML: the pages a [`PagePay`] shows, each a
//! pure function of the composition and the buyer's session, which
//! [`super::page_server`] serves.

use super::page::{Expiry, Offer, PagePay, Style, words};
use crate::support::overlay_checkout;

impl PagePay {
    /// Whether 3-D Secure opens inside the overlay's frame.
    pub fn inside(&self) -> bool {
        self.style == Style::Overlay { inside: true }
    }

    /// The page as it opens, in the composition's style; the hosted
    /// fields come from `origins.frames` (the overlay's frame, which sends
    /// the whole window on by a script a frame of another origin may not
    /// run without the buyer's gesture, from the page's own).
    pub fn card_page(&self, sid: &str, framed: bool, origins: &Origins) -> String {
        match self.style {
            Style::Full => self.card_form(sid, framed),
            Style::Overlay { .. } => document(
                "Zoo Shop checkout",
                &overlay_checkout("Zoo Shop", "10.00 EUR", "5%", &format!("/zp/{sid}/frame")),
            ),
            Style::HostedFields => self.hosted_page(sid, origins),
        }
    }

    /// The card form and the method's offer: the page, or the overlay's frame.
    pub fn card_form(&self, sid: &str, framed: bool) -> String {
        let page = self;
        let said = words(page.language);
        let field = |name: &str, label: &str| {
            format!(
                r#"<label>{label} <input type="text" name="{name}" autocomplete="off"></label>"#
            )
        };
        let expiry = match page.expiry {
            Expiry::Joined(name) => field(name, "MM/YY"),
            Expiry::Split(month, year) => format!("{} {}", field(month, "MM"), field(year, "YY")),
        };
        // Outside the overlay, the card form sends the whole window on.
        let target = if framed && !self.inside() {
            r#" target="_top""#
        } else {
            ""
        };
        document(
            said.pay,
            &format!(
                r#"<h1>{pay}</h1>
<form method="post" action="/zp/{sid}/card"{target}>
{number}
{expiry}
{cvv}
{holder}
<button type="submit">{pay}</button>
</form>
{offer}"#,
                pay = said.pay,
                number = field(page.number, "Card number"),
                cvv = field(page.cvv, "CVV"),
                holder = field(page.holder, "Name"),
                offer = self.offer(sid),
            ),
        )
    }

    /// The hosted fields: each card input in a frame of its own that tells
    /// the page its value; the page sends them under names of its own.
    pub fn hosted_page(&self, sid: &str, origins: &Origins) -> String {
        let frames = &origins.frames;
        let page = self;
        let said = words(page.language);
        let mut names = vec![page.number];
        match page.expiry {
            Expiry::Joined(name) => names.push(name),
            Expiry::Split(month, year) => names.extend([month, year]),
        }
        names.push(page.cvv);
        let frames: String = names
            .iter()
            .map(|name| {
                format!(
                    r#"<iframe src="{frames}/zp/{sid}/field?f={name}" title="{name}" style="height:3em;border:1px solid #999"></iframe>
<input type="hidden" name="h_{name}">"#
                )
            })
            .collect();
        document(
            said.pay,
            &format!(
                r#"<h1>{pay}</h1>
<form method="post" action="/zp/{sid}/card" id="card">
{frames}
<label>Name <input type="text" name="{holder}"></label>
<button type="submit">{pay}</button>
</form>
{offer}
<script>
window.addEventListener('message', function (event) {{
  if (event.origin !== '{fields_origin}' || !event.data || !event.data.zooField) return;
  document.querySelector('#card input[name="h_' + event.data.zooField + '"]').value = event.data.value;
}});
</script>"#,
                pay = said.pay,
                holder = page.holder,
                offer = self.offer(sid),
                fields_origin = origins.frames_origin(),
            ),
        )
    }

    /// How the alternative method is offered on the page, always to the
    /// whole window.
    pub fn offer(&self, sid: &str) -> String {
        let said = words(self.language);
        let nonce = nonce(sid);
        match self.offer {
            Offer::Link => format!(
                r#"<p><a id="zoo-method" href="/zp/{sid}/method?n={nonce}&amp;lang=x" target="_top">{}</a></p>"#,
                said.method
            ),
            Offer::Button => format!(
                r#"<form method="post" action="/zp/{sid}/method" target="_top"><input type="hidden" name="n" value="{nonce}">
<button type="submit" id="zoo-method">{}</button></form>"#,
                said.method
            ),
            Offer::ChoicePage => format!(
                r#"<p><a id="zoo-method" href="/zp/{sid}/methods" target="_top">{}</a></p>"#,
                said.more
            ),
        }
    }

    /// The page of methods: one picked, and on.
    pub fn methods_page(&self, sid: &str) -> String {
        let said = words(self.language);
        document(
            said.more,
            &format!(
                r#"<h1>{more}</h1>
<form method="post" action="/zp/{sid}/method"><input type="hidden" name="n" value="{nonce}">
<label><input type="radio" name="m" value="zoowallet" checked> ZooWallet</label>
<label><input type="radio" name="m" value="transfer"> Bank transfer</label>
<button type="submit">{go_on}</button>
</form>"#,
                more = said.more,
                go_on = said.go_on,
                nonce = nonce(sid),
            ),
        )
    }
}

/// A session's method nonce.
pub fn nonce(sid: &str) -> String {
    sid.chars().rev().take(16).collect()
}

/// Where a page's frames come from, and the page itself.
pub struct Origins {
    /// The page's origin (`http://127.0.0.1:PORT`).
    pub page: String,
    /// What the frames' addresses begin with: empty, the page's own
    /// origin; else a second origin's.
    pub frames: String,
}

impl Origins {
    /// The frames' origin, as a message from them names it.
    pub fn frames_origin(&self) -> &str {
        if self.frames.is_empty() {
            &self.page
        } else {
            &self.frames
        }
    }
}

/// One hosted field: an input that tells the page (of `page_origin`) its
/// value.
pub fn hosted_field(name: &str, page_origin: &str) -> String {
    let name: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    document(
        "Card field",
        &format!(
            r#"<input type="text" name="{name}" aria-label="{name}" style="width:100%">
<script>
document.querySelector('input').addEventListener('input', function (event) {{
  parent.postMessage({{ zooField: '{name}', value: event.target.value }}, '{page_origin}');
}});
</script>"#
        ),
    )
}

/// A page that refreshes to `next` after `seconds`.
pub fn refresh(seconds: u64, next: &str) -> String {
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Processing</title>\
         <meta http-equiv=\"refresh\" content=\"{seconds}; url={next}\"></head>\
         <body><p>Processing your payment…</p></body></html>"
    )
}

pub fn document(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{title}</title></head><body>\n{body}\n</body></html>"
    )
}
