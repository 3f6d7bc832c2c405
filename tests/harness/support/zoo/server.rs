//! Serves a [`Journey`] before the reference implementation: the service's
//! issuer address (`/pagam/pagam3d.aspx`) starts the journey, whose pages are
//! `/zoo/{session}/{page}` on the service's host or on another loopback host
//! (`127.0.0.2`). The answer to the code is decided by the reference
//! implementation (the zoo posts it the code typed, or the cancel), which
//! names the merchant's page the buyer is then sent to, by the journey's
//! way out. Everything else passes through to the reference implementation.

use std::{
    collections::{HashMap, HashSet},
    sync::{Arc, Mutex},
    time::Duration,
};

use bytes::Bytes;
use hyper::{Request, body::Incoming};
use payconf_reference::{ReferenceConfig, RunningServer};
use tokio::net::TcpListener;
use url::{Url, form_urlencoded};

use super::{Fault, Host, Journey, Kind, Language, Params, Role, Way, new_session};
use crate::support::front::{Answer, Behind, Front, forward, respond, serve_on};

/// The zoo's journey, served, and the reference implementation behind it.
pub struct Zoo {
    /// Where payconf is pointed.
    pub base: Url,
    _reference: RunningServer,
}

impl Zoo {
    pub async fn start(journey: Journey) -> Self {
        let behind = Behind::start(ReferenceConfig::default()).await;
        let other = TcpListener::bind("127.0.0.2:0")
            .await
            .expect("the other loopback host binds");
        let issuer =
            Url::parse(&format!("http://{}/", other.local_addr().expect("address"))).expect("url");
        let front = Arc::new(ZooFront {
            journey,
            service: behind.base.clone(),
            issuer,
            reference: behind.inner.clone(),
            client: crate::support::front::client(),
            sessions: Mutex::new(HashMap::new()),
        });
        serve_on(other, Arc::clone(&front));
        Self {
            base: behind.base.clone(),
            _reference: behind.serve(front),
        }
    }
}

struct ZooFront {
    journey: Journey,
    service: Url,
    issuer: Url,
    reference: Url,
    client: reqwest::Client,
    sessions: Mutex<HashMap<String, Session>>,
}

/// A buyer on the journey: the payment the reference implementation knows,
/// the hosts that set the session cookie, and the merchant's page the buyer
/// is sent to at the end.
#[derive(Clone, Default)]
struct Session {
    token: String,
    shop: String,
    cookie_hosts: HashSet<&'static str>,
    landing: Option<String>,
}

impl Front for ZooFront {
    async fn answer(&self, request: Request<Incoming>) -> Answer {
        let path = request.uri().path().to_owned();
        let cookie = request
            .headers()
            .get("cookie")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let (parts, body) = crate::support::front::read(request).await;
        let params = Params::of(&parts, &body);
        if path == "/pagam/pagam3d.aspx" && parts.method == "GET" {
            return self.enter(&params);
        }
        let Some(rest) = path.strip_prefix("/zoo/") else {
            return forward(&self.client, &self.reference, &parts, body, &[])
                .await
                .answer();
        };
        let (sid, what) = rest.split_once('/').unwrap_or((rest, ""));
        let Some(session) = self.sessions.lock().expect("lock").get(sid).cloned() else {
            return respond(404, &[], "no such journey");
        };
        let code = self.journey.pages.len();
        match what {
            "loop" => respond(302, &[("location", &format!("/zoo/{sid}/loop"))], ""),
            "done" => match session.landing {
                Some(landing) => respond(303, &[("location", &landing)], ""),
                None => respond(404, &[], "no landing yet"),
            },
            "answer" => self.answer_code(sid, &params, &cookie).await,
            page => match page.parse::<usize>() {
                Ok(at) if at <= code => self.page(sid, at, &params).await,
                _ => respond(404, &[], "no such page"),
            },
        }
    }
}

impl ZooFront {
    /// The service's issuer address: a journey begins.
    fn enter(&self, params: &Params) -> Answer {
        let sid = new_session();
        let session = Session {
            token: params.get("b").unwrap_or_default().to_owned(),
            shop: params.get("a").unwrap_or_default().to_owned(),
            ..Session::default()
        };
        self.sessions
            .lock()
            .expect("lock")
            .insert(sid.clone(), session);
        respond(302, &[("location", &self.address(&sid, 0))], "")
    }

    /// The absolute address of page `at`.
    fn address(&self, sid: &str, at: usize) -> String {
        let host = self.host_of(at);
        let mut url = match host {
            Host::Service => self.service.clone(),
            Host::Issuer => self.issuer.clone(),
        };
        url.set_path(&format!("/zoo/{sid}/{at}"));
        let mut address = url.to_string();
        if self.journey.fault == Some(Fault::HttpsOnPlain { at }) {
            address = address.replacen("http://", "https://", 1);
        }
        address
    }

    fn host_of(&self, at: usize) -> Host {
        self.journey
            .pages
            .get(at)
            .map_or(self.journey.code.host, |page| page.host)
    }

    /// Page `at` of the journey: a page before the code's, or the code's.
    async fn page(&self, sid: &str, at: usize, params: &Params) -> Answer {
        let journey = &self.journey;
        let code = journey.pages.len();
        let delay = journey
            .pages
            .get(at)
            .map_or(journey.code.delay_ms, |p| p.delay_ms);
        tokio::time::sleep(Duration::from_millis(delay)).await;
        match journey.fault {
            Some(Fault::ErrorStatus { at: wrong, status }) if wrong == at => {
                return error_page(status);
            }
            Some(Fault::RedirectLoop { at: looping }) if looping == at => {
                return respond(302, &[("location", &format!("/zoo/{sid}/loop"))], "");
            }
            _ => {}
        }
        if params.get("x") == Some("cancel") {
            // The cancel control of a channel choice.
            return self.decide(sid, Role::Cancel, "").await;
        }
        let mut headers = self.cookies(sid, self.host_of(at));
        if at == code {
            if journey.fault == Some(Fault::SessionLost) {
                headers.push(("set-cookie", "zsid=lb-node-2; Path=/".to_owned()));
            }
            return html(headers, self.code_page(sid));
        }
        let next = self.address(sid, at + 1);
        let language = journey.code.language;
        match journey.pages[at].way {
            Way::Redirect(status) => {
                headers.push(("location", next));
                reply(status, headers, String::new())
            }
            Way::Channel { post, cancel } => {
                html(headers, channel_page(&next, post, cancel, language))
            }
            way => html(headers, moving_page(way, &next, sid)),
        }
    }

    /// The session's cookies a page of `host` sets, the first time the
    /// buyer comes to that host, with a balancer's cookie beside them.
    fn cookies(&self, sid: &str, host: Host) -> Vec<(&'static str, String)> {
        if !self.journey.cookies {
            return Vec::new();
        }
        let name = host_key(host);
        let mut sessions = self.sessions.lock().expect("lock");
        let session = sessions.get_mut(sid).expect("session");
        if !session.cookie_hosts.insert(name) {
            return Vec::new();
        }
        vec![
            ("set-cookie", format!("zsid={sid}; Path=/; HttpOnly")),
            ("set-cookie", format!("BIGipServer-{name}=node-1; Path=/")),
        ]
    }

    /// The code page, with its controls in the journey's order.
    fn code_page(&self, sid: &str) -> String {
        let code = &self.journey.code;
        let framed = self
            .journey
            .pages
            .last()
            .is_some_and(|p| p.way == Way::Frame);
        let controls: String = code
            .controls
            .iter()
            .map(|c| match c.kind {
                Kind::Button => format!(
                    r#"<button type="submit" name="{}" value="1">{}</button>"#,
                    c.name, c.label
                ),
                Kind::Submit => {
                    format!(r#"<input type="submit" name="{}" value="{}">"#, c.name, c.label)
                }
                Kind::Image => format!(
                    r#"<input type="image" name="{}" alt="{}" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">"#,
                    c.name, c.label
                ),
            })
            .collect::<Vec<_>>()
            .join("\n");
        let (title, prompt) = words(code.language);
        format!(
            r#"<!doctype html><html><head><meta charset="utf-8"><title>{title}</title></head><body>
<h1>{title}</h1>
<form method="{method}" action="/zoo/{sid}/answer"{target}>
<input type="hidden" name="txn" value="{sid}">
<label for="f">{prompt}</label>
<input type="{kind}" id="f" name="{field}" autocomplete="one-time-code">
{controls}
</form></body></html>"#,
            method = if code.post { "post" } else { "get" },
            target = if framed { r#" target="_top""# } else { "" },
            kind = if code.field == "password" {
                "password"
            } else {
                "text"
            },
            field = code.field,
        )
    }

    /// The answer to the code page.
    async fn answer_code(&self, sid: &str, params: &Params, cookie: &str) -> Answer {
        let journey = &self.journey;
        tokio::time::sleep(Duration::from_millis(journey.code.answer_delay_ms)).await;
        if let Some(Fault::ErrorStatus { at, status }) = journey.fault {
            if at == journey.pages.len() + 1 {
                return error_page(status);
            }
        }
        let own = format!("zsid={sid}");
        if journey.cookies && !cookie.split(';').any(|c| c.trim() == own) {
            return html(Vec::new(), expired_page());
        }
        let pressed = journey
            .code
            .controls
            .iter()
            .find(|c| {
                params.get(&c.name).is_some() || params.get(&format!("{}.x", c.name)).is_some()
            })
            .map_or(Role::Confirm, |c| c.role);
        if pressed == Role::Resend {
            return html(Vec::new(), self.code_page(sid));
        }
        let typed = params.get(journey.code.field).unwrap_or_default();
        self.decide(sid, pressed, typed).await
    }

    /// Asks the reference implementation to end the payment (authenticated
    /// with the code typed, or cancelled) and sends the buyer on to the
    /// merchant's page it names, the journey's way out.
    async fn decide(&self, sid: &str, role: Role, typed: &str) -> Answer {
        let session = self
            .sessions
            .lock()
            .expect("lock")
            .get(sid)
            .cloned()
            .expect("session");
        let confirmed = role == Role::Confirm && self.journey.fault != Some(Fault::FailurePage);
        let form = [
            ("b", session.token.as_str()),
            ("a", session.shop.as_str()),
            ("otp", typed),
            ("action", if confirmed { "authenticate" } else { "cancel" }),
        ];
        let url = self.reference.join("pagam/pagam3d.aspx").expect("url");
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let request = self
            .client
            .post(url)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body);
        let response = match request.send().await {
            Ok(response) => response,
            Err(e) => return respond(502, &[], e.to_string()),
        };
        let status = response.status().as_u16();
        let Some(landing) = response
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
        else {
            let body = response.bytes().await.unwrap_or_default();
            return respond(status, &[("content-type", "text/html")], body);
        };
        if let Some(session) = self.sessions.lock().expect("lock").get_mut(sid) {
            session.landing = Some(landing.clone());
        }
        match self.journey.out {
            Way::Redirect(status) => respond(status, &[("location", &landing)], ""),
            Way::AutoPost => html(
                Vec::new(),
                moving_page(Way::AutoPost, &format!("/zoo/{sid}/done"), sid),
            ),
            way => html(Vec::new(), moving_page(way, &landing, sid)),
        }
    }
}

fn host_key(host: Host) -> &'static str {
    match host {
        Host::Service => "service",
        Host::Issuer => "issuer",
    }
}

/// An HTML page, with the session's cookies when they are set.
fn html(mut headers: Vec<(&'static str, String)>, page: String) -> Answer {
    headers.push(("content-type", "text/html; charset=utf-8".to_owned()));
    reply(200, headers, page)
}

fn reply(status: u16, headers: Vec<(&'static str, String)>, body: String) -> Answer {
    let pairs: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    respond(status, &pairs, Bytes::from(body))
}

fn error_page(status: u16) -> Answer {
    respond(
        status,
        &[("content-type", "text/html")],
        format!(
            "<!doctype html><title>Error {status}</title><h1>Error {status}</h1><p>Something went wrong.</p>"
        ),
    )
}

fn expired_page() -> String {
    "<!doctype html><title>Session expired</title><h1>Your session has expired</h1>\
     <p>Please return to the shop and try again.</p>"
        .to_owned()
}

/// A page that moves the buyer on by itself: a refresh, a script, a form
/// posted on load, or a frame.
fn moving_page(way: Way, next: &str, sid: &str) -> String {
    let wait = "<!doctype html><html><head><meta charset=\"utf-8\"><title>Please wait</title>";
    match way {
        Way::Refresh(seconds) => format!(
            "{wait}<meta http-equiv=\"refresh\" content=\"{seconds}; url={next}\"></head>\
             <body><p>Please wait…</p></body></html>"
        ),
        Way::Script(ms) => format!(
            "{wait}</head><body><p>Please wait…</p>\
             <script>setTimeout(function () {{ window.location.assign({next:?}); }}, {ms});</script></body></html>"
        ),
        Way::AutoPost => format!(
            "{wait}</head><body onload=\"document.forms[0].submit()\">\
             <form method=\"post\" action=\"{next}\"><input type=\"hidden\" name=\"MD\" value=\"{sid}\">\
             <input type=\"hidden\" name=\"PaRes\" value=\"eJzLSM3JyVcozy/KSQEAGgsEXQ==\"></form></body></html>"
        ),
        Way::Frame => format!(
            "{wait}</head><body><h1>Secure payment</h1>\
             <iframe src=\"{next}\" title=\"3-D Secure\" width=\"420\" height=\"600\"></iframe></body></html>"
        ),
        Way::Redirect(_) | Way::Channel { .. } => unreachable!("not a page that moves by itself"),
    }
}

/// A channel choice the buyer continues from (or cancels at).
fn channel_page(next: &str, post: bool, cancel: bool, language: Language) -> String {
    let (go, stop, title) = match language {
        Language::English => ("Continue", "Cancel", "How should we send your code?"),
        Language::Italian => ("Continua", "Annulla", "Come vuoi ricevere il codice?"),
        Language::German => ("Weiter", "Abbrechen", "Wie möchten Sie den Code erhalten?"),
        Language::French => ("Continuer", "Annuler", "Comment recevoir votre code ?"),
        Language::Spanish => ("Continuar", "Cancelar", "¿Cómo quiere recibir el código?"),
    };
    let cancel = if cancel {
        format!(r#"<button type="submit" name="x" value="cancel">{stop}</button>"#)
    } else {
        String::new()
    };
    format!(
        r#"<!doctype html><html><head><meta charset="utf-8"><title>{title}</title></head><body>
<form method="{method}" action="{next}"><p>{title}</p>
<label><input type="radio" name="channel" value="sms" checked> SMS</label>
<label><input type="radio" name="channel" value="email"> E-mail</label>
{cancel}<button type="submit" name="x" value="go">{go}</button>
</form></body></html>"#,
        method = if post { "post" } else { "get" },
    )
}

/// The code page's title and prompt in `language`.
fn words(language: Language) -> (&'static str, &'static str) {
    match language {
        Language::English => ("Verify your payment", "Enter the code we sent you"),
        Language::Italian => ("Verifica il pagamento", "Inserisci il codice ricevuto"),
        Language::German => ("Zahlung bestätigen", "Geben Sie den erhaltenen Code ein"),
        Language::French => ("Vérifiez votre paiement", "Saisissez le code reçu"),
        Language::Spanish => ("Verifique su pago", "Introduzca el código recibido"),
    }
}
