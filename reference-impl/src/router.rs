//! The service's routing: which handler answers which method and path,
//! the envelope on every API answer, and the bound on a request's head.

use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;

use crate::{
    backoffice,
    call_log::Exchange,
    checks::{self, Check},
    create, detail, envelope, methods,
    error::ApiError,
    issuer,
    lifecycle::{self, Operation},
    pages, paths, payment_page, shop_token,
    state::{Body, Service},
    submit,
};

/// Answers one request.
pub async fn handle(service: &Service, request: Request<Incoming>) -> Response<Body> {
    let head_bytes = request
        .uri()
        .path_and_query()
        .map_or(0, |target| target.as_str().len())
        + request
            .headers()
            .iter()
            .map(|(name, value)| name.as_str().len() + value.len() + 4)
            .sum::<usize>();
    if head_bytes > MAX_HEADER_BYTES {
        return envelope::refusal(&ApiError::HeadersTooLarge {
            limit: MAX_HEADER_BYTES,
        });
    }
    // A name the sandbox does not serve: a page of another site whose name
    // was made to resolve here (DNS rebinding). Nothing of it is read.
    let host = request
        .headers()
        .get(header::HOST)
        .map(|host| host.to_str().unwrap_or(""))
        .or_else(|| request.uri().authority().map(http::uri::Authority::as_str));
    let reached = crate::site::Reached::of(&request);
    if let Some(host) = host.filter(|host| !service.site.serves(host, reached)) {
        tracing::debug!(host, "refused: a name the sandbox does not serve");
        return envelope::refusal(&ApiError::UnknownHost);
    }
    let announces_body = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .is_some_and(|length| length.as_bytes() != b"0")
        || request.headers().contains_key(header::TRANSFER_ENCODING);
    let mut response = route_request(service, request).await;
    // A refusal may leave the request's body unread, and then the HTTP
    // layer closes the connection after answering: said in the answer,
    // so that the client does not send its next request on it.
    if announces_body && !response.status().is_success() && !response.status().is_redirection() {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// Sends a request to its handler.
async fn route_request(service: &Service, request: Request<Incoming>) -> Response<Body> {
    let path = request.uri().path();
    let method = request.method();
    match route(path) {
        Some(Route::Create) if method == Method::POST => {
            let mut exchange = Exchange::default();
            let answer = create::create(service, request, &mut exchange).await;
            kept(service, "POST /api/v1/payment/create", exchange, answer).await
        }
        Some(Route::Submit) if method == Method::POST => {
            let mut exchange = Exchange::default();
            let answer = submit::submit(service, request, &mut exchange).await;
            kept(service, "POST /api/v1/payment/submit", exchange, answer).await
        }
        Some(Route::Detail) if method == Method::POST => {
            let mut exchange = Exchange::default();
            let answer = detail::search(service, request, &mut exchange).await;
            kept(service, "POST /api/v1/payment/detail", exchange, answer).await
        }
        Some(Route::DetailById(id)) if method == Method::GET => {
            let mut exchange = Exchange::default();
            let answer = detail::by_id(service, &request, id, &mut exchange);
            kept(service, "GET /api/v1/payment/detail/{id}", exchange, answer).await
        }
        Some(Route::Operation(operation)) if method == Method::POST => {
            let mut exchange = Exchange::default();
            let answer = lifecycle::handle(service, operation, request, &mut exchange).await;
            kept(service, operation.path(), exchange, answer).await
        }
        Some(Route::Check(check)) if method == Method::POST => {
            let mut exchange = Exchange::default();
            api_answer(checks::check(service, check, request, &mut exchange).await)
        }
        Some(Route::ShopToken) if method == Method::POST => {
            let mut exchange = Exchange::default();
            api_answer(shop_token::request(service, request, &mut exchange).await)
        }
        Some(Route::ShopTokens(shop_login)) if method == Method::GET => {
            api_answer(shop_token::list(service, &request, shop_login))
        }
        Some(Route::ShopTokenOf(shop_login, token)) if method == Method::DELETE => {
            api_answer(shop_token::delete(service, &request, shop_login, token))
        }
        Some(Route::Methods(id, language)) if method == Method::GET => {
            api_answer(methods::payment_methods(service, &request, id, language))
        }
        Some(Route::MethodDetail(id, payment_type)) if method == Method::GET => {
            api_answer(methods::method_detail(service, &request, id, payment_type))
        }
        Some(Route::DataForBuyer(id)) if method == Method::GET => {
            api_answer(methods::data_for_buyer(service, &request, id))
        }
        Some(Route::ShopMethods(shop_login)) if method == Method::GET => {
            api_answer(methods::shop_methods(service, &request, shop_login))
        }
        Some(
            Route::ShopTokens(_)
            | Route::Methods(..)
            | Route::MethodDetail(..)
            | Route::DataForBuyer(_)
            | Route::ShopMethods(_),
        ) => envelope::refusal(&ApiError::MethodNotAllowed { allow: "GET" }),
        Some(Route::ShopTokenOf(..)) => {
            envelope::refusal(&ApiError::MethodNotAllowed { allow: "DELETE" })
        }
        Some(
            Route::Create
            | Route::Submit
            | Route::Detail
            | Route::Operation(_)
            | Route::ShopToken
            | Route::Check(_),
        ) => {
            envelope::refusal(&ApiError::MethodNotAllowed { allow: "POST" })
        }
        Some(Route::DetailById(_)) => {
            envelope::refusal(&ApiError::MethodNotAllowed { allow: "GET" })
        }
        Some(Route::Page(page)) => page_request(service, page, request).await,
        Some(Route::MerchantPage {
            shop_login,
            success,
        }) if method == Method::GET && shop_login_shaped(shop_login) => {
            pages::merchant_result(success)
        }
        Some(Route::MerchantPage { shop_login, .. }) if shop_login_shaped(shop_login) => {
            envelope::refusal(&ApiError::MethodNotAllowed { allow: "GET" })
        }
        Some(Route::MerchantPage { .. }) => pages::error_page(
            StatusCode::NOT_FOUND,
            "Page not found",
            "This address names no shop.",
        ),
        Some(Route::BackOffice) => backoffice::handle(service, request).await,
        None => envelope::refusal(&ApiError::NotFound),
    }
}

/// Sends a request for one of the buyer's pages (or the demo checkout) to
/// its handler.
async fn page_request(service: &Service, page: Page, request: Request<Incoming>) -> Response<Body> {
    let method = request.method();
    match page {
    Page::Issuer if method == Method::GET => issuer::page(service, &request),
    Page::Issuer if method == Method::POST => issuer::answer(service, request).await,
    Page::Issuer => {
        envelope::refusal(&ApiError::MethodNotAllowed { allow: "GET, POST" })
    }
    Page::Hosted if method == Method::GET => payment_page::page(service, &request),
    Page::Hosted if method == Method::POST => {
        payment_page::pay(service, request).await
    }
    Page::Wallet if method == Method::GET => {
        payment_page::wallet_page(service, &request)
    }
    Page::Wallet if method == Method::POST => {
        payment_page::wallet_decide(service, request).await
    }
    Page::Framed if method == Method::GET => {
        payment_page::framed(service, &request)
    }
    Page::Hosted | Page::Wallet => {
        envelope::refusal(&ApiError::MethodNotAllowed { allow: "GET, POST" })
    }
    Page::LightboxScript if method == Method::GET => payment_page::script(service),
    Page::PaymentResult if method == Method::GET => {
        payment_page::result(service, &request)
    }
    Page::DemoCheckout if method == Method::GET => payment_page::demo(service, &request),
    Page::LightboxScript | Page::PaymentResult | Page::DemoCheckout | Page::Framed => {
        envelope::refusal(&ApiError::MethodNotAllowed { allow: "GET" })
    }
    }
}

/// Whether a path segment could be a shop login (1 to 64 letters, digits,
/// `_`, `-` or `.`): a merchant page's address names one, known or not.
fn shop_login_shaped(segment: &str) -> bool {
    (1..=64).contains(&segment.len())
        && segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

fn api_answer(result: Result<Response<Body>, ApiError>) -> Response<Body> {
    result.unwrap_or_else(|error| {
        tracing::debug!(code = error.code(), %error, "refused");
        envelope::refusal(&error)
    })
}

/// The answer of an API call, kept in the shop's call log when the call
/// was about one of its payments (`call_log`).
async fn kept(
    service: &Service,
    operation: &'static str,
    exchange: Exchange,
    result: Result<Response<Body>, ApiError>,
) -> Response<Body> {
    let response = api_answer(result);
    if !exchange.is_about_a_payment() {
        return response;
    }
    let (parts, body) = response.into_parts();
    // A whole body in memory: collecting it takes the bytes, copying none.
    let bytes = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(never) => match never {},
    };
    service
        .call_log
        .keep(exchange, operation, parts.status.as_u16(), &bytes);
    Response::from_parts(parts, Full::new(bytes))
}

/// The most bytes of request line and headers the service takes.
pub const MAX_HEADER_BYTES: usize = 32 * 1024;

#[derive(Debug, PartialEq, Eq)]
enum Route<'a> {
    Create,
    Submit,
    /// `POST payment/detail`.
    Detail,
    /// `GET payment/detail/{paymentID}`, with the ID as the path has it.
    DetailById(&'a str),
    /// Capture, cancel, refund, update.
    Operation(Operation),
    /// `POST check/…`.
    Check(Check),
    /// `POST shop/token/`.
    ShopToken,
    /// `GET shop/token/{shopLogin}`.
    ShopTokens(&'a str),
    /// `DELETE shop/token/{shopLogin}/{token}`.
    ShopTokenOf(&'a str, &'a str),
    /// `GET payment/methods/{paymentID}/{languageID}`.
    Methods(&'a str, &'a str),
    /// `GET payment/methods/detail/{paymentID}/{paymentType}`.
    MethodDetail(&'a str, &'a str),
    /// `GET payment/dataForBuyer/{paymentID}`.
    DataForBuyer(&'a str),
    /// `GET shop/methods/{shopLogin}`.
    ShopMethods(&'a str),
    /// A buyer's page, or the demo checkout.
    Page(Page),
    BackOffice,
    MerchantPage {
        shop_login: &'a str,
        success: bool,
    },
}

/// The buyer's pages, and the demo checkout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Page {
    Issuer,
    /// The hosted payment page.
    Hosted,
    /// The page the lightbox frames (and pay-by-link's).
    Framed,
    Wallet,
    LightboxScript,
    PaymentResult,
    DemoCheckout,
}

/// The API paths are taken with or without their trailing slash: the real
/// service's documentation and its clients write them both ways. The
/// buyer's pages (`paths::BUYER_PREFIX`) whatever the case of their letters.
fn route(path: &str) -> Option<Route<'_>> {
    let prefix = paths::BUYER_PREFIX.len();
    if path
        .get(..prefix)
        .is_some_and(|start| start.eq_ignore_ascii_case(paths::BUYER_PREFIX))
    {
        return buyer_page(&path.to_ascii_lowercase());
    }
    match path.strip_suffix('/').unwrap_or(path) {
        "/api/v1/payment/create" => Some(Route::Create),
        "/api/v1/payment/submit" => Some(Route::Submit),
        "/api/v1/payment/detail" => Some(Route::Detail),
        "/api/v1/payment/capture" => Some(Route::Operation(Operation::Capture)),
        "/api/v1/payment/cancel" => Some(Route::Operation(Operation::Cancel)),
        "/api/v1/payment/refund" => Some(Route::Operation(Operation::Refund)),
        "/api/v1/payment/update" => Some(Route::Operation(Operation::Update)),
        paths::DEMO_PATH => Some(Route::Page(Page::DemoCheckout)),
        other
            if other == paths::BACK_OFFICE_PATH
                || other.starts_with(&format!("{}/", paths::BACK_OFFICE_PATH)) =>
        {
            Some(Route::BackOffice)
        }
        "/api/v1/shop/token" => Some(Route::ShopToken),
        "/api/v1/check/pan" => Some(Route::Check(Check::Pan)),
        "/api/v1/check/cvv" => Some(Route::Check(Check::Cvv)),
        "/api/v1/check/expirydate" => Some(Route::Check(Check::ExpiryDate)),
        "/api/v1/check/email" => Some(Route::Check(Check::Email)),
        "/api/v1/check/creditCard" => Some(Route::Check(Check::CreditCard)),
        "/api/v1/check/DCC" => Some(Route::Check(Check::Dcc)),
        other if other.starts_with("/api/v1/shop/token/") => {
            let rest = other.strip_prefix("/api/v1/shop/token/")?;
            match rest.split_once('/') {
                None if !rest.is_empty() => Some(Route::ShopTokens(rest)),
                Some((shop, token)) if !shop.is_empty() && !token.is_empty() && !token.contains('/') => {
                    Some(Route::ShopTokenOf(shop, token))
                }
                _ => None,
            }
        }
        other if other.starts_with("/api/v1/payment/methods/detail/") => {
            two_segments(other.strip_prefix("/api/v1/payment/methods/detail/")?)
                .map(|(id, kind)| Route::MethodDetail(id, kind))
        }
        other if other.starts_with("/api/v1/payment/methods/") => {
            two_segments(other.strip_prefix("/api/v1/payment/methods/")?)
                .filter(|(id, _)| *id != "detail")
                .map(|(id, language)| Route::Methods(id, language))
        }
        other if other.starts_with("/api/v1/payment/dataForBuyer/") => other
            .strip_prefix("/api/v1/payment/dataForBuyer/")
            .filter(|id| !id.is_empty() && !id.contains('/'))
            .map(Route::DataForBuyer),
        other if other.starts_with("/api/v1/shop/methods/") => other
            .strip_prefix("/api/v1/shop/methods/")
            .filter(|shop| !shop.is_empty() && !shop.contains('/'))
            .map(Route::ShopMethods),
        other if other.starts_with("/api/v1/payment/detail/") => other
            .strip_prefix("/api/v1/payment/detail/")
            .filter(|id| !id.is_empty() && !id.contains('/'))
            .map(Route::DetailById),
        other => {
            let rest = other.strip_prefix("/merchant/")?;
            let (shop_login, page) = rest.split_once('/')?;
            let success = match page {
                "success" => true,
                "failure" => false,
                _ => return None,
            };
            Some(Route::MerchantPage {
                shop_login,
                success,
            })
        }
    }
}

/// A buyer page's route, its path in lower case.
fn buyer_page(path: &str) -> Option<Route<'static>> {
    match path {
        paths::ISSUER_PATH => Some(Route::Page(Page::Issuer)),
        paths::PAGE_PATH => Some(Route::Page(Page::Hosted)),
        paths::FRAMED_PATH => Some(Route::Page(Page::Framed)),
        paths::WALLET_PATH => Some(Route::Page(Page::Wallet)),
        paths::SCRIPT_PATH => Some(Route::Page(Page::LightboxScript)),
        paths::RESULT_PATH => Some(Route::Page(Page::PaymentResult)),
        _ => None,
    }
}

/// `a/b`, two path segments neither empty.
fn two_segments(rest: &str) -> Option<(&str, &str)> {
    let (a, b) = rest.split_once('/')?;
    (!a.is_empty() && !b.is_empty() && !b.contains('/')).then_some((a, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_paths_route_with_and_without_trailing_slash() {
        assert_eq!(route("/api/v1/payment/create/"), Some(Route::Create));
        assert_eq!(route("/api/v1/payment/create"), Some(Route::Create));
        assert_eq!(route("/api/v1/payment/submit"), Some(Route::Submit));
        assert_eq!(route("/api/v2/payment/create/"), None);
        assert_eq!(route("/api/v1/payment/create//"), None);
        assert_eq!(
            route("/api/v1/payment/refund/"),
            Some(Route::Operation(Operation::Refund))
        );
        assert_eq!(
            route("/api/v1/payment/capture"),
            Some(Route::Operation(Operation::Capture))
        );
        assert_eq!(route("/api/v1/payment/detail"), Some(Route::Detail));
        assert_eq!(
            route("/api/v1/payment/detail/123456789012"),
            Some(Route::DetailById("123456789012"))
        );
        assert_eq!(route("/api/v1/payment/detail/1/2"), None);
        assert_eq!(route("/api/v1/shop/token/"), Some(Route::ShopToken));
        assert_eq!(route("/api/v1/shop/token/SHOP"), Some(Route::ShopTokens("SHOP")));
        assert_eq!(
            route("/api/v1/shop/token/SHOP/477571ABCDEF2026"),
            Some(Route::ShopTokenOf("SHOP", "477571ABCDEF2026"))
        );
        assert_eq!(route("/api/v1/shop/token/SHOP/a/b"), None);
        assert_eq!(
            route("/api/v1/payment/methods/123/2"),
            Some(Route::Methods("123", "2"))
        );
        assert_eq!(
            route("/api/v1/payment/methods/detail/123/WALLET/"),
            Some(Route::MethodDetail("123", "WALLET"))
        );
        assert_eq!(route("/api/v1/payment/methods/123"), None);
        assert_eq!(route("/api/v1/payment/methods/detail/123"), None);
        assert_eq!(route("/api/v1/check/DCC/"), Some(Route::Check(Check::Dcc)));
        assert_eq!(
            route("/api/v1/payment/dataForBuyer/123"),
            Some(Route::DataForBuyer("123"))
        );
        assert_eq!(route("/api/v1/shop/methods/SHOP"), Some(Route::ShopMethods("SHOP")));
        assert_eq!(route("/api/v1/shop/methods/"), None);
    }

    #[test]
    fn merchant_pages_route_by_shop_and_outcome() {
        assert_eq!(
            route("/merchant/ACME/failure"),
            Some(Route::MerchantPage {
                shop_login: "ACME",
                success: false
            })
        );
        assert_eq!(route("/merchant/ACME/other"), None);
        assert_eq!(route("/merchant/ACME"), None);
    }

    #[test]
    fn the_buyer_pages_route_whatever_the_case_of_their_letters() {
        assert_eq!(route("/pagam/javascript/axerve.js"), Some(Route::Page(Page::LightboxScript)));
        assert_eq!(route("/pagam/JavaScript/axerve.js"), Some(Route::Page(Page::LightboxScript)));
        assert_eq!(route("/PAGAM/PAGAM.ASPX"), Some(Route::Page(Page::Hosted)));
        assert_eq!(route("/pagam/pagam3d.aspx"), Some(Route::Page(Page::Issuer)));
        assert_eq!(route("/pagam/src/index.html"), Some(Route::Page(Page::Framed)));
        assert_eq!(route("/pagam/pagam.aspx/"), None);
        assert_eq!(route("/pagam/"), None);
        assert_eq!(route("/pay"), None, "the sandbox's old page is gone");
        assert_eq!(route("/pay/lightbox.js"), None);
        assert_eq!(route("/acs/authenticate"), None);
    }
}
