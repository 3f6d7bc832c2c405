//! The issuer-page zoo: issuer journeys composed from a seed across
//! independent dimensions, the way issuers' servers differ where the
//! contract says only "how the issuer page is built" and "time-outs: not
//! shown". A journey is a row of pages before the page that asks for the
//! code (each sends the buyer on its own way, on one of two loopback hosts,
//! after its own delay), the code page (field name, language, controls of
//! every kind in any order, GET or POST) and the way the buyer is sent on
//! after the answer. A defective journey is the same composition with one
//! [`Fault`] of the target's.
//!
//! [`Journey::compose`] draws the composition; [`server::ZooFront`] serves
//! it before the reference implementation, which still decides the payment.

mod draw;
pub mod page;
pub mod page_html;
pub mod page_server;
pub mod server;

use std::fmt;

pub use draw::Draw;

/// The languages issuer pages are commonly written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    English,
    Italian,
    German,
    French,
    Spanish,
}

impl Language {
    /// Every language, in the order the zoos draw from.
    pub const ALL: [Self; 5] = [
        Self::English,
        Self::Italian,
        Self::German,
        Self::French,
        Self::Spanish,
    ];
}

/// A request's parameters, as a zoo's server reads them: its query and,
/// for a form, its body.
pub struct Params(pub Vec<(String, String)>);

impl Params {
    /// A request's query and, for a form, its body, in that order.
    pub fn of(parts: &hyper::http::request::Parts, body: &[u8]) -> Self {
        let query = parts.uri.query().unwrap_or("").as_bytes();
        Self(
            url::form_urlencoded::parse(query)
                .into_owned()
                .chain(url::form_urlencoded::parse(body).into_owned())
                .collect(),
        )
    }

    /// The first value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A new buyer's session id, as a zoo's server names its pages by it.
pub fn new_session() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// What a control of the code page does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Confirm,
    Cancel,
    Resend,
    BackToShop,
}

/// How a control is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Button,
    Submit,
    Image,
}

/// A control of the code page: its role, how it is written, its label, and
/// the neutral name it is sent under (`b1`, `b2`...: only the label says
/// what it does).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Control {
    pub role: Role,
    pub kind: Kind,
    pub label: &'static str,
    pub name: String,
}

/// How a page sends the buyer on to the next one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// An HTTP redirect: 302, 303 or 307.
    Redirect(u16),
    /// `<meta http-equiv="refresh">` after this many seconds.
    Refresh(u64),
    /// A script that moves the buyer after this many milliseconds.
    Script(u64),
    /// A form of hidden fields a script posts on load.
    AutoPost,
    /// A channel choice (text message or e-mail) the buyer continues from,
    /// by GET or POST, with a cancel control beside the continuing one or not.
    Channel { post: bool, cancel: bool },
    /// The next page shown in a frame (only ever the code page).
    Frame,
}

/// Which of two loopback hosts serves a page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Host {
    /// The service's own host (the front's address).
    Service,
    /// Another loopback host (`127.0.0.2`), as an issuer's server is.
    Issuer,
}

/// A page before the code page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Page {
    pub host: Host,
    /// How long the server takes to answer it, in milliseconds.
    pub delay_ms: u64,
    pub way: Way,
}

/// A fault of the target's, added to a conforming composition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The confirmed code leads to the merchant's failure page.
    FailurePage,
    /// Page `at` (the code page at `pages.len()`, the answer one further)
    /// answers this HTTP status.
    ErrorStatus { at: usize, status: u16 },
    /// Page `at` is linked as `https` on the plain-HTTP port.
    HttpsOnPlain { at: usize },
    /// Page `at` redirects to an address that redirects to itself.
    RedirectLoop { at: usize },
    /// The code page's answer sets the session cookie anew (a balancer's
    /// cookie of the same name), and the answer to the code finds no session.
    SessionLost,
}

/// The kinds of fault, in the order the fixed seeds cover them.
pub const FAULTS: usize = 5;

/// An issuer journey: what [`server::ZooFront`] serves.
#[derive(Clone, Debug)]
pub struct Journey {
    pub seed: u64,
    pub pages: Vec<Page>,
    pub code: CodePage,
    /// How the answer to the code sends the buyer on (`Way::Channel` and
    /// `Way::Frame` are never drawn here).
    pub out: Way,
    /// Session cookies per host, and a balancer's cookie beside them.
    pub cookies: bool,
    pub fault: Option<Fault>,
}

/// The page that asks for the code.
#[derive(Clone, Debug)]
pub struct CodePage {
    pub host: Host,
    pub delay_ms: u64,
    pub field: &'static str,
    pub language: Language,
    pub post: bool,
    pub controls: Vec<Control>,
    /// How long the answer to the code takes, in milliseconds.
    pub answer_delay_ms: u64,
}

/// The names issuers give the code's field.
const FIELDS: [&str; 7] = [
    "otp",
    "code",
    "pin",
    "otpCode",
    "password",
    "one_time_code",
    "challengeDataEntry",
];

/// At most this much waiting (server delays, refreshes, timers) in one
/// journey, in milliseconds: a slow bank, not a stalled suite.
const PATIENCE_MS: u64 = 8_000;

impl Journey {
    /// The conforming journey of `seed`, with `fault` when one is given
    /// (its place in the journey drawn from the seed too).
    pub fn compose(seed: u64, fault: Option<usize>) -> Self {
        let mut draw = Draw::new(seed);
        let mut budget = PATIENCE_MS;
        let mut wait = |ms: u64| {
            let ms = ms.min(budget);
            budget -= ms;
            ms
        };
        let before = draw.below(6);
        let mut pages = Vec::new();
        for i in 0..before {
            let last = i + 1 == before;
            let way = match draw.below(if last { 7 } else { 6 }) {
                0 => Way::Redirect(draw.pick(&[302, 303, 307])),
                1 => Way::Refresh(wait(draw_seconds(&mut draw))),
                2 => Way::Script(wait(draw_seconds(&mut draw) * 1000 / 2)),
                3 => Way::AutoPost,
                4 | 5 => Way::Channel {
                    post: draw.one_in(2),
                    cancel: draw.one_in(2),
                },
                _ => Way::Frame,
            };
            let delay_ms = wait(draw_delay(&mut draw));
            pages.push(Page {
                host: draw_host(&mut draw),
                delay_ms,
                way,
            });
        }
        let language = draw.pick(&Language::ALL);
        let code = CodePage {
            host: draw_host(&mut draw),
            delay_ms: wait(draw_delay(&mut draw)),
            field: draw.pick(&FIELDS),
            language,
            post: !draw.one_in(3),
            controls: draw_controls(&mut draw, language),
            answer_delay_ms: wait(draw_delay(&mut draw)),
        };
        let out = match draw.below(5) {
            0 => Way::Redirect(draw.pick(&[302, 303])),
            1 | 2 => Way::Refresh(wait(draw_seconds(&mut draw))),
            3 => Way::Script(wait(draw_seconds(&mut draw) * 1000 / 2)),
            _ => Way::AutoPost,
        };
        let cookies = !draw.one_in(3);
        let mut journey = Self {
            seed,
            pages,
            code,
            out,
            cookies,
            fault: None,
        };
        journey.fault = fault.map(|kind| journey.draw_fault(&mut draw, kind % FAULTS));
        if let (
            true,
            Some(&Page {
                host,
                way: Way::Frame,
                ..
            }),
        ) = (journey.cookies, journey.pages.last())
        {
            // A browser keeps no cookie a frame of another site sets
            // (SameSite): a server with a session frames its own host.
            journey.code.host = host;
        }
        journey
    }

    fn draw_fault(&mut self, draw: &mut Draw, kind: usize) -> Fault {
        let code = self.pages.len();
        match kind {
            0 => Fault::FailurePage,
            1 => Fault::ErrorStatus {
                at: draw.below(code + 2),
                status: draw.pick(&[400, 403, 404, 500, 502, 503]),
            },
            2 => {
                // A page linked by a redirect, a refresh or a form: not
                // the one in a frame, whose failure the top page outlives.
                let linked: Vec<usize> = (0..=code)
                    .filter(|&at| at == 0 || self.pages[at - 1].way != Way::Frame)
                    .collect();
                Fault::HttpsOnPlain {
                    at: draw.pick(&linked),
                }
            }
            3 => Fault::RedirectLoop {
                at: draw.below(code + 1),
            },
            _ => {
                self.cookies = true;
                Fault::SessionLost
            }
        }
    }

    /// How many of the ways (the pages' and then the answer's) the buyer
    /// takes before the fault shows itself, or, without one, before the
    /// merchant's page.
    fn ways_before_fault(&self) -> usize {
        let code = self.pages.len();
        match self.fault {
            Some(Fault::ErrorStatus { at, .. }) => at.min(code),
            Some(Fault::HttpsOnPlain { at }) | Some(Fault::RedirectLoop { at }) => at,
            Some(Fault::SessionLost) => code,
            Some(Fault::FailurePage) | None => code + 1,
        }
    }

    /// Whether a buyer without script stops before the fault (or, for a
    /// conforming journey, before the merchant's page): a page on the way
    /// moves on only by script.
    pub fn needs_script(&self) -> bool {
        let ways = self.pages.iter().map(|p| p.way).chain([self.out]);
        ways.take(self.ways_before_fault())
            .any(|way| matches!(way, Way::Script(_)))
    }

    /// The `[acs]` body that tells `driver` what the buyer types.
    pub fn acs(&self, driver: &str) -> String {
        format!(
            "driver = \"{driver}\"\nfields = {{ {} = \"123456\" }}",
            self.code.field
        )
    }
}

fn draw_host(draw: &mut Draw) -> Host {
    if draw.one_in(3) {
        Host::Issuer
    } else {
        Host::Service
    }
}

/// A server's delay: mostly none, up to 3 s.
fn draw_delay(draw: &mut Draw) -> u64 {
    draw.pick(&[0, 0, 0, 0, 200, 500, 1000, 2000, 3000])
}

/// A refresh's or a timer's delay in seconds: 0 to 3.
fn draw_seconds(draw: &mut Draw) -> u64 {
    draw.pick(&[0, 1, 2, 3])
}

fn draw_controls(draw: &mut Draw, language: Language) -> Vec<Control> {
    let mut roles = vec![Role::Confirm];
    for role in [Role::Cancel, Role::Resend, Role::BackToShop] {
        if draw.one_in(2) {
            roles.push(role);
        }
    }
    // Shuffled (Fisher-Yates), so the confirming control is anywhere.
    for i in (1..roles.len()).rev() {
        let j = draw.below(i + 1);
        roles.swap(i, j);
    }
    roles
        .into_iter()
        .enumerate()
        .map(|(i, role)| Control {
            role,
            kind: draw.pick(&[Kind::Button, Kind::Submit, Kind::Image]),
            label: draw.pick(labels(language, role)),
            name: format!("b{}", i + 1),
        })
        .collect()
}

/// The labels issuers give a control of this role in this language.
pub fn labels(language: Language, role: Role) -> &'static [&'static str] {
    use Language::*;
    use Role::*;
    match (language, role) {
        (English, Confirm) => &["Confirm", "Submit", "Verify", "Authenticate"],
        (English, Cancel) => &["Cancel", "Cancel payment"],
        (English, Resend) => &["Resend code", "Send a new code", "Didn't get it? Resend"],
        (English, BackToShop) => &["Return to merchant", "Back to the shop"],
        (Italian, Confirm) => &["Conferma", "Invia", "Verifica", "Prosegui"],
        (Italian, Cancel) => &["Annulla", "Annulla pagamento"],
        (Italian, Resend) => &["Invia di nuovo il codice", "Richiedi un nuovo codice"],
        (Italian, BackToShop) => &["Torna al negozio", "Torna al sito dell'esercente"],
        (German, Confirm) => &["Bestätigen", "Absenden", "Freigeben", "Weiter"],
        (German, Cancel) => &["Abbrechen", "Zahlung abbrechen"],
        (German, Resend) => &["Code erneut senden", "Neuen Code anfordern"],
        (German, BackToShop) => &["Zurück zum Shop", "Zurück zum Händler"],
        (French, Confirm) => &["Confirmer", "Valider", "Envoyer"],
        (French, Cancel) => &["Annuler", "Annuler le paiement"],
        (French, Resend) => &["Renvoyer le code", "Recevoir un nouveau code"],
        (French, BackToShop) => &["Retour au site marchand", "Retour à la boutique"],
        (Spanish, Confirm) => &["Confirmar", "Enviar", "Verificar", "Aceptar"],
        (Spanish, Cancel) => &["Cancelar", "Cancelar pago"],
        (Spanish, Resend) => &["Reenviar código", "Enviar un nuevo código"],
        (Spanish, BackToShop) => &["Volver al comercio", "Volver a la tienda"],
    }
}

impl fmt::Display for Journey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seed {}:", self.seed)?;
        for page in &self.pages {
            write!(f, " {} ->", PageShown(page.host, page.delay_ms, page.way))?;
        }
        let code = &self.code;
        write!(
            f,
            " code page ({}, {} ms, field {}, {:?}, {}, controls",
            host_name(code.host),
            code.delay_ms,
            code.field,
            code.language,
            if code.post { "POST" } else { "GET" },
        )?;
        for control in &code.controls {
            write!(
                f,
                " [{:?} {:?} {:?}]",
                control.role, control.kind, control.label
            )?;
        }
        write!(
            f,
            ") answered in {} ms -> {}",
            code.answer_delay_ms,
            way_name(self.out)
        )?;
        if self.cookies {
            write!(f, "; session and balancer cookies")?;
        }
        if let Some(fault) = self.fault {
            write!(f, "; fault: {fault:?}")?;
        }
        Ok(())
    }
}

struct PageShown(Host, u64, Way);

impl fmt::Display for PageShown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}, {} ms)",
            way_name(self.2),
            host_name(self.0),
            self.1
        )
    }
}

fn host_name(host: Host) -> &'static str {
    match host {
        Host::Service => "service host",
        Host::Issuer => "other host",
    }
}

fn way_name(way: Way) -> String {
    match way {
        Way::Redirect(status) => format!("redirect {status}"),
        Way::Refresh(s) => format!("refresh after {s} s"),
        Way::Script(ms) => format!("script after {ms} ms"),
        Way::AutoPost => "auto-posted form".to_owned(),
        Way::Channel { post, cancel } => format!(
            "channel choice ({}{})",
            if post { "POST" } else { "GET" },
            if cancel { ", with cancel" } else { "" }
        ),
        Way::Frame => "frame".to_owned(),
    }
}
