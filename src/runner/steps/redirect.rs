//! Where the buyer is sent: the redirect address of an answer, the issuer's
//! authentication page, and the page the buyer lands on.

use std::collections::BTreeMap;

use cucumber::{then, when};
use serde_json::Value;
use url::Url;

use super::payment::shown;
use crate::runner::{
    buyer::{Choice, same_page},
    world::{Failure, PaymentWorld, Settled},
};

/// The answer's `userRedirect.href` as an address the merchant can send the
/// buyer to: absolute http(s), or scheme-relative (`//host/path`), which
/// the buyer's browser resolves with the scheme of the page it is on (here
/// the scheme of the service's own address). A path without a host is no
/// such address: the merchant's server is on another host than the service.
fn redirect_address(world: &PaymentWorld) -> Result<Url, Failure> {
    let answer = world.answer()?;
    let href = answer.at("/payload/userRedirect/href");
    let requested = &world.exchange_at(answer.exchange).request.url;
    let address = href
        .and_then(Value::as_str)
        .map(str::trim)
        .and_then(|h| match Url::parse(h) {
            Ok(url) => Some(url),
            Err(url::ParseError::RelativeUrlWithoutBase) if h.starts_with("//") => {
                requested.join(h).ok()
            }
            Err(_) => None,
        })
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.has_host());
    address.ok_or_else(|| {
        world.failure(
            "payload.userRedirect.href, an absolute or scheme-relative http(s) address",
            &shown(href),
        )
    })
}

#[then("the redirect address is null")]
fn redirect_is_null(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        match answer.at("/payload/userRedirect") {
            Some(Value::Object(redirect)) if redirect.get("href") == Some(&Value::Null) => Ok(()),
            other => Err(world.failure(
                "payload.userRedirect.href present and null",
                &format!("payload.userRedirect {}", shown(other)),
            )),
        }
    })
}

#[then("the redirect address is an absolute or scheme-relative http(s) address")]
fn redirect_is_absolute(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| redirect_address(world).map(drop))
}

/// The redirect address resolved against the address of the request it
/// answers, as a browser would: whether it is absolute is a requirement of
/// its own, so a check of *which* page it names does not fail on that.
fn resolved_redirect(world: &PaymentWorld) -> Result<Url, Failure> {
    let answer = world.answer()?;
    let href = answer.at("/payload/userRedirect/href");
    let requested = &world.exchange_at(answer.exchange).request.url;
    href.and_then(Value::as_str)
        .and_then(|h| requested.join(h).ok())
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .ok_or_else(|| world.failure("payload.userRedirect.href, an address", &shown(href)))
}

#[then("the redirect address is the merchant's failure page")]
fn redirect_is_failure_page(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let page = world
            .target()
            .failure_url
            .as_ref()
            .ok_or_else(|| Failure::plain("the target to name its failure_url"))?;
        let href = resolved_redirect(world)?;
        if !same_page(&href, page) {
            return Err(world.failure(
                &format!("the merchant's failure page, {page}"),
                href.as_str(),
            ));
        }
        Ok(())
    })
}

/// Where the buyer sent to the redirect address lands: the address itself
/// when it is one of the merchant's pages, or else wherever the service's
/// pages there (a result page of its own, say) send the buyer on.
#[then("the buyer sent to the redirect address lands on the merchant's success page")]
async fn sent_buyer_lands_on_success_page(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let address = resolved_redirect(world)?;
            let result = world.follow(&address).await;
            world.landing = Some(result?);
            landed_on(world, world.target().success_url.as_ref(), "success_url")
        })
        .await
}

/// The issuer-authentication address is not the merchant's success page:
/// a buyer sent there has authenticated with nobody. A target that names
/// no success page gives nothing to compare, and the check holds.
#[then("the redirect address is not the merchant's success page")]
fn redirect_is_not_success_page(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let Some(success) = world.target().success_url.clone() else {
            return Ok(());
        };
        let href = resolved_redirect(world)?;
        if same_page(&href, &success) {
            return Err(world.failure(
                "the issuer-authentication address, not the merchant's success page",
                href.as_str(),
            ));
        }
        Ok(())
    })
}

/// The redirect address is the page `expected` names, its own parameters
/// kept, with whatever parameters the service appends: the real service
/// appends its own to the buyer's return addresses (docs/real-service.md,
/// the buyer's return), so an address is judged by its page, never to the
/// letter.
#[then(expr = "the redirect address is the page {string}, with any parameters the service appends")]
fn redirect_is_page(world: &mut PaymentWorld, expected: String) -> Result<(), Settled> {
    world.check(|world| {
        let page = Url::parse(&expected)
            .map_err(|e| Failure::plain(format!("a valid address in the scenario: {e}")))?;
        let href = resolved_redirect(world)?;
        if !returns_to(&href, &page) {
            return Err(world.failure(
                &format!(
                    "payload.userRedirect.href the page {page}, its own parameters kept, with any \
                     the service appends"
                ),
                href.as_str(),
            ));
        }
        Ok(())
    })
}

/// Whether `href` returns the buyer to `page`: the same page, with every
/// parameter of `page`'s own query among `href`'s.
fn returns_to(href: &Url, page: &Url) -> bool {
    let given: Vec<(String, String)> = href.query_pairs().into_owned().collect();
    same_page(href, page)
        && page
            .query_pairs()
            .into_owned()
            .all(|pair| given.contains(&pair))
}

#[then("the redirect address is on the service's own host")]
fn redirect_on_service_host(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let href = redirect_address(world)?;
        let base = &world.target().base_url;
        if href.origin() != base.origin() {
            return Err(world.failure(
                &format!("an address on {}", base.origin().ascii_serialization()),
                href.as_str(),
            ));
        }
        Ok(())
    })
}

/// Whether one of `href`'s query values is the shop login and another the
/// token, each whole, whatever their names.
pub(super) fn carries_payment(href: &Url, shop_login: &str, token: &str) -> bool {
    let values: Vec<String> = href.query_pairs().map(|(_, v)| v.into_owned()).collect();
    let carries = |wanted: &str| values.iter().any(|v| v == wanted);
    carries(shop_login) && carries(token)
}

/// The real service's address is `/pagam/pagam3d.aspx?a=<shop>&b=<token>`
/// (docs/real-service.md, RS-PATHS): the shop login and the token are the
/// values of query parameters whose names are the service's own. So any
/// names pass, as long as one parameter's value is the shop login and
/// another's the token, each whole.
#[then("the redirect address carries the shop login and the payment token as query values")]
fn redirect_carries_references(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let href = redirect_address(world)?;
        let token = world.submitted_token.clone().unwrap_or_default();
        if !carries_payment(&href, &world.target().shop_login, &token) {
            return Err(world.failure(
                "query parameters whose values are this payment's shop login and token",
                href.as_str(),
            ));
        }
        Ok(())
    })
}

/// Pay-by-link's address as the real service answers it (docs/real-service.md,
/// RS-PAY-BY-LINK): the service's framed payment page of its own,
/// `/pagam/src/index.html?paymentID=…&paymentToken=…&shopLogin=…&lightbox=false`,
/// on its own host, naming the payment create answered (the parameters'
/// names whatever their case, as the real service writes `lightBox` and
/// `lightbox`).
#[then("the redirect address is the payment's pay-by-link page")]
fn redirect_is_pay_by_link(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let href = redirect_address(world)?;
        let payment = world.payment()?;
        let base = &world.target().base_url;
        let value = |name: &str| {
            href.query_pairs()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.into_owned())
        };
        let names_it = href.origin() == base.origin()
            && href.path().eq_ignore_ascii_case("/pagam/src/index.html")
            && value("paymentToken").as_deref() == Some(payment.token.as_str())
            && value("paymentID") == payment.payment_id
            && value("shopLogin").as_deref() == Some(world.target().shop_login.as_str())
            && value("lightbox").is_some_and(|v| v.eq_ignore_ascii_case("false"));
        if !names_it {
            return Err(world.failure(
                &format!(
                    "{}/pagam/src/index.html with this payment's paymentID, paymentToken and \
                     shopLogin, and lightbox=false",
                    base.origin().ascii_serialization()
                ),
                href.as_str(),
            ));
        }
        Ok(())
    })
}

/// The values `acs.fields` gives the issuer page.
/// What the buyer types on the issuer's page: `acs.fields`, or, for a
/// payment whose road to a failed authentication is a wrong code,
/// `acs.failing_fields`.
pub(super) fn configured_values(world: &PaymentWorld) -> BTreeMap<String, String> {
    let acs = &world.target().acs;
    let fields = if world.fails_at_issuer {
        &acs.failing_fields
    } else {
        &acs.fields
    };
    fields
        .iter()
        .map(|(name, value)| (name.clone(), value.expose().to_owned()))
        .collect()
}

async fn drive(
    world: &mut PaymentWorld,
    choice: Choice,
    values: BTreeMap<String, String>,
) -> Result<(), Failure> {
    // With acs.driver = "none", the run's driver fails the journey saying so.
    let address = resolved_redirect(world)?;
    let result = world.authenticate(&address, choice, &values).await;
    world.landing = Some(result?);
    Ok(())
}

/// The buyer goes through the issuer's page with the values `acs.fields`
/// gives. Unless the scenario's buyer is to land on the failure page, a
/// journey that lands there has not completed the authentication: the
/// step fails, saying the values were typed right before, and naming the
/// setting (the issuer page may refuse values that are not its own: a
/// wrong code in the target file reads, step by step, as what it is).
#[when("the buyer completes the issuer authentication")]
async fn completes_authentication(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let values = configured_values(world);
            let names: Vec<String> = values.keys().cloned().collect();
            drive(world, Choice::Authenticate, values).await?;
            landed_on_failure_after_typing(world, &names)
        })
        .await
}

/// A journey of a scenario whose buyer is not to land on the failure page,
/// that landed there right after payconf typed the `names` of
/// `acs.fields`: a failure that says so.
fn landed_on_failure_after_typing(world: &PaymentWorld, names: &[String]) -> Result<(), Failure> {
    if world.held.failure_page_expected {
        return Ok(());
    }
    let (Some(failure_page), Some(landing)) = (&world.target().failure_url, &world.landing) else {
        return Ok(());
    };
    if !same_page(landing, failure_page) {
        return Ok(());
    }
    Err(world.failure(
        "the buyer to complete the issuer authentication",
        &format!(
            "the buyer landed on the merchant's failure page (failure_url) right after payconf \
             typed the values acs.fields gives ({}) on the issuer's page: the page did not \
             accept them, or the target failed a buyer who authenticated. If they are not the \
             values this issuer accepts, set them in acs.fields",
            names.join(", ")
        ),
    ))
}

/// Types `code` into every field `acs.fields` names.
#[when(expr = "the buyer answers the issuer authentication with the one-time code {string}")]
async fn answers_with_code(world: &mut PaymentWorld, code: String) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let values = configured_values(world)
                .into_keys()
                .map(|name| (name, code.clone()))
                .collect();
            drive(world, Choice::Authenticate, values).await
        })
        .await
}

#[when("the buyer cancels the issuer authentication")]
async fn cancels_authentication(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| drive(world, Choice::Cancel, BTreeMap::new()).await)
        .await
}

fn landed_on(world: &PaymentWorld, page: Option<&Url>, what: &str) -> Result<(), Failure> {
    let page = page.ok_or_else(|| Failure::plain(format!("the target to name its {what}")))?;
    let landing = world
        .landing
        .as_ref()
        .ok_or_else(|| Failure::plain("the buyer to have gone through the issuer page"))?;
    if !same_page(landing, page) {
        return Err(world.failure(
            &format!("the buyer to land on {what}, {page}"),
            landing.as_str(),
        ));
    }
    Ok(())
}

#[then("the buyer lands on the merchant's success page")]
fn lands_on_success_page(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| landed_on(world, world.target().success_url.as_ref(), "success_url"))
}

#[then("the buyer lands on the merchant's failure page")]
fn lands_on_failure_page(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| landed_on(world, world.target().failure_url.as_ref(), "failure_url"))
}

#[then(expr = "the buyer lands on {string}")]
fn lands_on(world: &mut PaymentWorld, address: String) -> Result<(), Settled> {
    world.check(|world| {
        let page = Url::parse(&address)
            .map_err(|e| Failure::plain(format!("a valid address in the scenario: {e}")))?;
        landed_on(world, Some(&page), &address)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).expect("a URL")
    }

    #[test]
    fn a_return_address_is_its_page_with_its_own_parameters_and_any_the_service_appends() {
        let page = url("https://shop.example/thanks?order=7");
        for href in [
            "https://shop.example/thanks?order=7",
            "https://shop.example/thanks?order=7&a=SHOP&b=4d6a",
            "https://shop.example/thanks/?a=SHOP&order=7",
        ] {
            assert!(returns_to(&url(href), &page), "{href}");
        }
        for href in [
            "https://shop.example/thanks?a=SHOP",
            "https://shop.example/thanks?order=8&a=SHOP",
            "https://shop.example/sorry?order=7",
            "http://shop.example/thanks?order=7",
        ] {
            assert!(!returns_to(&url(href), &page), "{href}");
        }
    }
}
