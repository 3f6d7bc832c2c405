//! The twin started on its three loopback origins (the service, the
//! issuer, the shop), conformant, with a defect, in a style or a variation;
//! and the target file that describes it to `payconf run`.

use payconf_spec::card::CardKind;
use std::sync::Arc;

use tokio::{io::AsyncReadExt, net::TcpListener};
use url::Url;
use wiremock::{Mock, MockServer, matchers::any};

use super::{
    API_KEY, DECLINED_CARD, Defect, FRICTIONLESS_CARD, IssuerStyle, Origin, PASSCODE, PageStyle,
    RACE_WINDOW, Route, SECOND_API_KEY, SECOND_SHOP, SHOP, SIGNING_SECRET, State, THREE_DS_CARD,
    Twin, Variation,
};

/// A listener that resets every connection once the request has arrived.
async fn resetting_listener() -> Url {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("an address");
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let mut buffer = [0_u8; 1024];
            let _ = stream.read(&mut buffer).await;
            let _ = stream.set_zero_linger();
            drop(stream);
        }
    });
    Url::parse(&format!("http://{address}/")).expect("an address")
}

/// The twin's three origins.
struct Origins {
    service: MockServer,
    /// The issuer's origin, kept serving for as long as the twin is.
    _issuer: MockServer,
    shop: MockServer,
}

/// The twin on three loopback origins.
pub struct TwinService {
    /// Its three origins; `None` only once dropped.
    servers: Option<Origins>,
    variation: Option<Variation>,
    /// The service's address as payconf is given it: the service itself,
    /// or the front of [`Variation::SmallBacklog`].
    base: Url,
}

impl TwinService {
    /// The twin, conformant (`None`) or with one defect, its issuer page in
    /// the style the defect lives in.
    pub async fn start(defect: Option<Defect>) -> Self {
        let style = defect.map_or(IssuerStyle::Form, Defect::issuer_style);
        Self::start_styled(defect, style).await
    }

    /// The conformant twin with one of its variations switched on.
    pub async fn start_varied(variation: Variation) -> Self {
        Self::start_with(None, IssuerStyle::Form, Some(variation), RACE_WINDOW).await
    }

    /// The twin with its issuer page in a given style.
    pub async fn start_styled(defect: Option<Defect>, style: IssuerStyle) -> Self {
        Self::start_with(defect, style, None, RACE_WINDOW).await
    }

    /// The twin with its payment page in a given style.
    pub async fn start_paging(defect: Option<Defect>, page_style: PageStyle) -> Self {
        Self::start_full(
            defect,
            IssuerStyle::Form,
            page_style,
            None,
            RACE_WINDOW,
            false,
        )
        .await
    }

    /// The twin with a defect that shows one try in two: on the payments
    /// created second, fourth, sixth…, not the others. A run's check of its
    /// credentials creates the first; a scenario that creates one payment,
    /// run alone and again, fails its first try and passes its second.
    pub async fn start_intermittent(defect: Defect) -> Self {
        let style = defect.issuer_style();
        Self::start_full(
            Some(defect),
            style,
            PageStyle::FullPage,
            None,
            RACE_WINDOW,
            true,
        )
        .await
    }

    /// The twin whose submit checks a token and claims it `window` later
    /// ([`Defect::TokenClaimedAMillisecondLate`] with another window).
    pub async fn start_racing(window: std::time::Duration) -> Self {
        Self::start_with(
            Some(Defect::TokenClaimedAMillisecondLate),
            IssuerStyle::Form,
            None,
            window,
        )
        .await
    }

    async fn start_with(
        defect: Option<Defect>,
        style: IssuerStyle,
        variation: Option<Variation>,
        race_window: std::time::Duration,
    ) -> Self {
        // Every defect lives on the plain page.
        Self::start_full(
            defect,
            style,
            PageStyle::FullPage,
            variation,
            race_window,
            false,
        )
        .await
    }

    async fn start_full(
        defect: Option<Defect>,
        style: IssuerStyle,
        page_style: PageStyle,
        variation: Option<Variation>,
        race_window: std::time::Duration,
        intermittent: bool,
    ) -> Self {
        let (service, issuer, shop) = tokio::join!(
            MockServer::start(),
            MockServer::start(),
            MockServer::start()
        );
        let base = |server: &MockServer| Url::parse(&server.uri()).expect("a server address");
        let front = if variation == Some(Variation::SmallBacklog) {
            super::backlog::front(*service.address())
        } else {
            base(&service)
        };
        let resetting = if defect == Some(Defect::IssuerResetsConnection) {
            Some(resetting_listener().await)
        } else {
            None
        };
        let twin = Arc::new(Twin {
            defect,
            intermittent,
            style,
            page_style,
            variation,
            service: front.clone(),
            issuer: base(&issuer),
            shop: base(&shop),
            resetting,
            race_window,
            state: State::default(),
            outbox: super::notify::start(defect, variation),
        });
        for (server, origin) in [
            (&service, Origin::Service),
            (&issuer, Origin::Issuer),
            (&shop, Origin::Shop),
        ] {
            Mock::given(any())
                .respond_with(Route(Arc::clone(&twin), origin))
                .mount(server)
                .await;
        }
        Self {
            servers: Some(Origins {
                service,
                _issuer: issuer,
                shop,
            }),
            variation,
            base: front,
        }
    }

    /// The service's origin, with the requests it received.
    pub fn service(&self) -> &MockServer {
        &self.origins().service
    }

    fn origins(&self) -> &Origins {
        self.servers
            .as_ref()
            .expect("a twin's origins live as long as it")
    }

    /// A target file describing the twin, for the form driver.
    pub fn target_toml(&self) -> String {
        self.target_toml_for("form")
    }

    /// A target file describing the twin, for an issuer driver.
    pub fn target_toml_for(&self, driver: &str) -> String {
        let base = self.base.as_str().trim_end_matches('/').to_owned();
        let shop = self.origins().shop.uri();
        // The buyer the reserved-domain variation takes.
        let buyer = if self.variation == Some(Variation::RefusesReservedDomains) {
            "buyer_email = \"buyer@mail.twin-store.com\"\n"
        } else {
            ""
        };
        let page = Twin::page_section(&base);
        let trailing_slash = if self.variation == Some(Variation::NoTrailingSlash) {
            "trailing_slash = false\n"
        } else {
            ""
        };
        let operations_slash = if self.variation == Some(Variation::SlashlessOperations) {
            "trailing_slash = false\n"
        } else {
            ""
        };
        let by_code = self.variation == Some(Variation::WrongCodeFailsAuthentication);
        let outcome_cards: String = CardKind::outcomes()
            .filter(|kind| !(by_code && *kind == CardKind::AuthenticationFailed))
            .filter_map(|kind| {
                let number = super::outcomes::outcome_card(kind)?;
                Some(format!(
                    "[cards.{}]\nnumber = \"{number}\"\nexp_month = \"03\"\n\
                     exp_year = \"31\"\ncvv = \"737\"\n",
                    kind.target_key()
                ))
            })
            .collect();
        // A wrong passcode fails the twin's authentication (8027).
        let failing = if by_code {
            "failing_fields = { passcode = \"000000\" }\n"
        } else {
            ""
        };
        format!(
            r#"base_url = "{base}"
api_key = "{API_KEY}"
shop_login = "{SHOP}"
currency = "USD"
amount = "42.00"
{operations_slash}{buyer}success_url = "{shop}/thank-you"
failure_url = "{shop}/sorry"
[cards.frictionless]
number = "{FRICTIONLESS_CARD}"
exp_month = "03"
exp_year = "31"
cvv = "737"
[cards.three_ds]
number = "{THREE_DS_CARD}"
exp_month = "03"
exp_year = "31"
cvv = "737"
[cards.declined]
number = "{DECLINED_CARD}"
exp_month = "03"
exp_year = "31"
cvv = "737"
{outcome_cards}[acs]
driver = "{driver}"
fields = {{ passcode = "{PASSCODE}" }}
{failing}{page}
[notifications]
signing_secret = "{SIGNING_SECRET}"
within_secs = 4
retry_within_secs = 8
[lifecycle]
operations = ["detail", "capture", "cancel", "refund", "methods"]
settlement = "unified"
settles_within_secs = 4
{trailing_slash}[lifecycle.second_shop]
shop_login = "{SECOND_SHOP}"
api_key = "{SECOND_API_KEY}"
"#
        )
    }
}

/// A wiremock server's drop waits, by a blocking executor, on a lock of
/// tokio's. On a thread of tokio's runtime whose task has spent its
/// cooperative budget (a test that ran a whole `payconf run` as a library
/// call in the same poll), that lock only ever answers "later", and the
/// drop spun forever at 100 % of a core. Dropped on a thread of their own,
/// outside the runtime, the servers have no budget to spend.
impl Drop for TwinService {
    fn drop(&mut self) {
        if let Some(origins) = self.servers.take() {
            std::thread::scope(|scope| {
                scope.spawn(move || drop(origins));
            });
        }
    }
}
