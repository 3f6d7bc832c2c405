//! The twin's issuer, on its own origin: a session cookie at the issuer
//! address, then a challenge page in one of the shapes real issuers build
//! ([`IssuerStyle`]), then a chain back to the shop: a form of hidden fields
//! that a script posts back to the service (3-D Secure's `PaRes`/`MD`), a
//! 303 and a 302 (or, on the scripted page, a script redirect).

use wiremock::{Request, ResponseTemplate};

use super::{Defect, Session, Twin, Variation, cookie, form_fields, page, query, redirect};

/// How the twin's issuer builds its challenge page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IssuerStyle {
    /// One form of other field names (`passcode`, a channel select, a
    /// checkbox, a named button) and a second form that cancels.
    Form,
    /// No form in the HTML: a script builds one a moment after load, Cancel
    /// first; the way back to the shop ends with a script redirect.
    Scripted,
    /// The service shows the issuer's challenge in an iframe from the
    /// issuer's origin; the challenge posts to the top-level page.
    Framed,
    /// A channel choice first, then one form whose first button cancels.
    TwoStep,
    /// The plain challenge, but the way back to the shop ends with a
    /// script redirect.
    ScriptReturn,
    /// Not a way real issuers build pages, and not in [`Self::ALL`]: the
    /// plain challenge with a script that never yields, which freezes the
    /// browser's page. For the harness's own tests: payconf must end such
    /// a journey as its own error, in bounded time.
    Frozen,
}

impl IssuerStyle {
    /// Every style, the plain one first.
    pub const ALL: [Self; 5] = [
        Self::Form,
        Self::Scripted,
        Self::Framed,
        Self::TwoStep,
        Self::ScriptReturn,
    ];
}

/// The challenge form's fields that say which payment it is.
fn hidden(session: &str) -> String {
    format!(
        r#"<input type="hidden" name="txn" value="{session}">
  <input type="hidden" name="nonce" value="n-{session}">"#
    )
}

impl Twin {
    /// The issuer address: a session cookie, then a redirect to the
    /// challenge (on the service's own page, for the framed style).
    pub(super) fn issuer_begin(&self, request: &Request) -> ResponseTemplate {
        let session = query(request, "txn").unwrap_or_default();
        let mut sessions = self.state.sessions.lock().expect("lock");
        let Some(entry) = sessions.get_mut(&session) else {
            return page("Unknown transaction", "<p>This transaction is unknown.</p>");
        };
        let value = uuid::Uuid::new_v4().simple().to_string();
        entry.cookie = Some(value.clone());
        let next = if self.style == IssuerStyle::Framed {
            Self::at(&self.service, &format!("/3ds/frame?txn={session}"))
        } else {
            format!("/acs/challenge/{session}")
        };
        redirect(302, &next).insert_header(
            "Set-Cookie",
            format!("acs_sid={value}; Path=/acs; HttpOnly; SameSite=Lax"),
        )
    }

    /// A new issuer session for the payment `payment_id`: from the payment
    /// page when `framed` says so, inside its overlay or not.
    pub(super) fn new_session(&self, payment_id: &str, from_page: Option<bool>) -> String {
        let session = uuid::Uuid::new_v4().simple().to_string();
        self.state.sessions.lock().expect("lock").insert(
            session.clone(),
            Session {
                payment_id: payment_id.to_owned(),
                cookie: None,
                authenticated: None,
                from_page: from_page.is_some(),
                framed: from_page == Some(true),
                passed_ends: None,
            },
        );
        session
    }

    /// The session of `payment_id`'s issuer authentication begun at submit
    /// that has not ended, if there is one.
    pub(super) fn awaiting_authentication(&self, payment_id: &str) -> Option<String> {
        self.state
            .sessions
            .lock()
            .expect("lock")
            .iter()
            .find(|(_, s)| s.payment_id == payment_id && !s.from_page && s.authenticated.is_none())
            .map(|(session, _)| session.clone())
    }

    /// Sets what the card's challenge ends with when passed.
    pub(super) fn challenge_ends(&self, session: &str, passed_ends: Option<&'static str>) {
        if let Some(entry) = self.state.sessions.lock().expect("lock").get_mut(session) {
            entry.passed_ends = passed_ends;
        }
    }

    /// Whether the twin has `defect` on the way of `session`: the issuer
    /// defects break the way a submit begins (TDS-04's), not the one the
    /// payment page begins, so that each fails exactly its requirement.
    fn submit_has(&self, session: &str, defect: Defect) -> bool {
        self.has(defect)
            && self
                .state
                .sessions
                .lock()
                .expect("lock")
                .get(session)
                .is_some_and(|entry| !entry.from_page)
    }

    pub(super) fn session_of(&self, request: &Request, session: &str) -> Option<Session> {
        let sessions = self.state.sessions.lock().expect("lock");
        let entry = sessions.get(session)?;
        (entry.cookie.is_some() && entry.cookie == cookie(request, "acs_sid"))
            .then(|| entry.clone())
    }

    /// The service's page that shows the issuer's challenge in a frame.
    pub(super) fn frame_host(&self, request: &Request) -> ResponseTemplate {
        let session = query(request, "txn").unwrap_or_default();
        let challenge = Self::at(&self.issuer, &format!("/acs/challenge/{session}"));
        page(
            "Twin checkout: verify your card",
            &format!(
                r#"<h1>Verify your card</h1><p>Your bank's page:</p>
<iframe src="{challenge}" title="Twin Bank" width="480" height="360"></iframe>"#
            ),
        )
    }

    pub(super) fn challenge_page(&self, request: &Request, session: &str) -> ResponseTemplate {
        if self.session_of(request, session).is_none() {
            return page("Session expired", "<p>Your session has expired.</p>");
        }
        if self.submit_has(session, Defect::IssuerPageServerError)
            || self.submit_has(session, Defect::IssuerFrameServerError)
        {
            // A page whose body still shows the form: only the status says it broke.
            return super::answer(
                500,
                super::HTML,
                "<!DOCTYPE html><html><head><title>Twin Bank</title></head>\
                 <body><h1>Something went wrong</h1><p>Please try again later.</p></body></html>",
            );
        }
        let hidden = hidden(session);
        match self.style {
            IssuerStyle::Form | IssuerStyle::ScriptReturn | IssuerStyle::Frozen => page(
                "Twin Bank SecureCode",
                &format!(
                    r#"{freeze}{decoration}<h1>Confirm your purchase</h1>
<form id="challenge" method="POST" action="{session}/confirm">
  {hidden}
  <label>Send the code by <select name="channel"><option value="sms" selected>SMS</option><option value="app">App</option></select></label>
  <label>Passcode <input type="password" name="passcode" autocomplete="one-time-code"></label>
  <label><input type="checkbox" name="trust_device" value="1"> Trust this device</label>
  <button type="submit" name="decision" value="approve">Confirm</button>
</form>{cancel}"#,
                    cancel = if self.variation == Some(Variation::NoCancelControl) {
                        String::new()
                    } else {
                        format!(
                            r#"
<form method="POST" action="{session}/abort">
  <input type="hidden" name="txn" value="{session}">
  <button type="submit">Cancel payment</button>
</form>"#
                        )
                    },
                    decoration = if self.variation == Some(Variation::BrokenDecorativeFrame) {
                        r#"<iframe src="/acs/analytics/pixel" title="analytics" width="1" height="1"></iframe>"#
                    } else {
                        ""
                    },
                    freeze = if self.style == IssuerStyle::Frozen {
                        "<script>for (;;) {}</script>"
                    } else {
                        ""
                    }
                ),
            ),
            IssuerStyle::Framed => page(
                "Twin Bank SecureCode",
                &format!(
                    r#"<form id="challenge" method="POST" action="/acs/challenge/{session}/confirm" target="_top">
  {hidden}
  <label>Passcode <input type="password" name="passcode"></label>
  <button type="submit" name="decision" value="approve">Verify</button>
  <button type="submit" name="decision" value="abort">Cancel</button>
</form>"#
                ),
            ),
            IssuerStyle::TwoStep => match query(request, "via").as_deref() {
                Some("sms" | "email") => page(
                    "Twin Bank SecureCode",
                    &format!(
                        r#"<h1>Enter the code we sent you</h1>
<form method="POST" action="{session}/confirm">
  {hidden}
  <label>Passcode <input type="text" name="passcode" inputmode="numeric"></label>
  <button type="submit" name="decision" value="abort">Cancel</button>
  <button type="submit" name="decision" value="approve">Submit code</button>
</form>"#
                    ),
                ),
                _ => page(
                    "Twin Bank SecureCode",
                    &format!(
                        r#"<h1>How should we send your code?</h1>
<form method="GET" action="{session}">
  <label><input type="radio" name="via" value="sms" checked> SMS</label>
  <label><input type="radio" name="via" value="email"> E-mail</label>
  <input type="submit" value="Next">
</form>"#
                    ),
                ),
            },
            IssuerStyle::Scripted => {
                // The lands-on-failure defect's script sends a cancel for Confirm.
                let confirm = if self.submit_has(session, Defect::ScriptedIssuerLandsOnFailure) {
                    "abort"
                } else {
                    "approve"
                };
                page(
                    "Twin Bank SecureCode",
                    &format!(
                        r#"<h1>Confirm your purchase</h1><div id="app">Loading…</div>
<script>
window.addEventListener('load', function () {{
  setTimeout(function () {{
    var app = document.getElementById('app');
    app.innerHTML = '<p><label>Passcode <input type="password" name="passcode"></label></p>'
      + '<p><button type="button" id="no">Cancel</button> <button type="button" id="yes">Confirm</button></p>';
    function send(decision) {{
      var form = document.createElement('form');
      form.method = 'POST';
      form.action = '{session}/confirm';
      var fields = {{ txn: '{session}', nonce: 'n-{session}', decision: decision,
                      passcode: app.querySelector('[name=passcode]').value }};
      Object.keys(fields).forEach(function (name) {{
        var input = document.createElement('input');
        input.type = 'hidden'; input.name = name; input.value = fields[name];
        form.appendChild(input);
      }});
      document.body.appendChild(form);
      form.submit();
    }}
    document.getElementById('no').onclick = function () {{ send('abort'); }};
    document.getElementById('yes').onclick = function () {{ send('{confirm}'); }};
  }}, 120);
}});
</script>"#
                    ),
                )
            }
        }
    }

    /// The page a script posts back to the service at once: 3-D Secure's
    /// result, `Y` authenticated, `N` not, `A` abandoned.
    fn relay_to_service(&self, session: &str, result: char) -> ResponseTemplate {
        let action = Self::at(&self.service, "/3ds/return");
        page(
            "Returning to the shop",
            &format!(
                r#"<script>window.onload = function () {{ document.forms[0].submit(); }};</script>
<form method="post" action="{action}">
  <input type="hidden" name="PaRes" value="{result}-{session}">
  <input type="hidden" name="MD" value="{session}">
  <noscript><button type="submit">Continue</button></noscript>
</form>"#
            ),
        )
    }

    pub(super) fn confirm(&self, request: &Request, session: &str) -> ResponseTemplate {
        if self.session_of(request, session).is_none() {
            return page("Session expired", "<p>Your session has expired.</p>");
        }
        let form = form_fields(request);
        let authenticated = form.get("txn").map(String::as_str) == Some(session)
            && form.get("decision").map(String::as_str) == Some("approve")
            && form.get("passcode").map(String::as_str) == Some(super::PASSCODE);
        if self.submit_has(session, Defect::IssuerRedirectsForever) {
            return redirect(302, &format!("/acs/challenge/{session}/wait?n=1"));
        }
        self.relay_to_service(session, if authenticated { 'Y' } else { 'N' })
    }

    pub(super) fn wait(&self, request: &Request, session: &str) -> ResponseTemplate {
        let n: u64 = query(request, "n")
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        redirect(302, &format!("/acs/challenge/{session}/wait?n={}", n + 1))
    }

    pub(super) fn abort(&self, request: &Request, session: &str) -> ResponseTemplate {
        if self.session_of(request, session).is_none() {
            return page("Session expired", "<p>Your session has expired.</p>");
        }
        self.relay_to_service(session, 'A')
    }

    /// The service receives the issuer's result and sends the buyer on.
    pub(super) fn three_ds_return(&self, request: &Request) -> ResponseTemplate {
        let form = form_fields(request);
        let session = form.get("MD").cloned().unwrap_or_default();
        let result = form
            .get("PaRes")
            .and_then(|r| r.strip_suffix(&format!("-{session}")))
            .and_then(|r| r.chars().next())
            .unwrap_or('N');
        let mut sessions = self.state.sessions.lock().expect("lock");
        let Some(entry) = sessions.get_mut(&session) else {
            return page("Unknown transaction", "<p>This transaction is unknown.</p>");
        };
        let ending = self.challenge_ending(result, entry.passed_ends);
        let authenticated = ending.refusal.is_none();
        let first = entry.authenticated.is_none();
        entry.authenticated = Some(authenticated);
        let payment_id = entry.payment_id.clone();
        drop(sessions);
        if first {
            self.end(&payment_id, ending);
            self.notify(&payment_id, authenticated, super::notify::Reached::Issuer);
        }
        redirect(303, &format!("/checkout/complete?txn={session}"))
    }

    /// The end of the way back: a redirect to the shop (a script redirect,
    /// on the scripted style).
    pub(super) fn complete(&self, request: &Request) -> ResponseTemplate {
        let session = query(request, "txn").unwrap_or_default();
        let sessions = self.state.sessions.lock().expect("lock");
        let Some(entry) = sessions.get(&session) else {
            return page("Unknown transaction", "<p>This transaction is unknown.</p>");
        };
        let order = &entry.payment_id;
        let landing = match entry.authenticated {
            _ if !entry.from_page && self.has(Defect::IssuerLandsElsewhere) => {
                format!("/order-status?order={order}")
            }
            Some(true) if entry.from_page && self.has(Defect::PageLandsOnFailure) => {
                format!("/sorry?order={order}")
            }
            Some(true) => format!("/thank-you?order={order}"),
            _ => format!("/sorry?order={order}"),
        };
        if entry.framed && !self.has(Defect::LightboxIssuerBreaksOut) {
            return self.leave_page(true, order, &landing);
        }
        if entry.framed {
            // The defect's issuer leaves the lightbox for the whole window,
            // as the twin's own overlay does, telling the shop's page nothing.
            let landing = Self::at(&self.shop, &landing);
            return page(
                "Payment complete",
                &format!(
                    r#"<p>Taking you back to the shop…</p>
<script>window.top.location.replace({landing:?});</script>"#
                ),
            );
        }
        let landing = Self::at(&self.shop, &landing);
        if !matches!(
            self.style,
            IssuerStyle::Scripted | IssuerStyle::ScriptReturn
        ) {
            return redirect(302, &landing);
        }
        let next = if !entry.from_page && self.has(Defect::ScriptedIssuerRedirectsForever) {
            let n: u64 = query(request, "n")
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            format!("/checkout/complete?txn={session}&n={}", n + 1)
        } else {
            landing
        };
        page(
            "Payment complete",
            &format!(
                r#"<p>Taking you back to the shop…</p>
<script>setTimeout(function () {{ location.replace({next:?}); }}, 30);</script>"#
            ),
        )
    }
}
