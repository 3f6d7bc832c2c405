//! The sandbox's alternative payment method, a wallet that approves by
//! redirect: on the payment page the buyer chooses it, the page sends them
//! to the wallet's approval page, and there they approve or decline; the
//! payment ends as they chose, on the merchant's success or failure page.
//! No `payment/submit` is involved (the contract: "when the buyer pays with
//! an alternative payment method, `payment/submit` is not needed").

use http::{Request, Response, StatusCode};
use hyper::body::Incoming;
use uuid::Uuid;

use super::{already_processed, form_policy, payment_of, query_pairs, unknown_payment};
use crate::{
    form_body::read_form,
    landing::landing,
    ledger::Ending,
    notify, outcomes,
    pages::{escape, html_with_policy, layout, see_other},
    paths::WALLET_PATH,
    state::{Body, Service},
    store::{BuyerRedirects, PaymentState},
    timeline::{Channel, What},
};

/// The `method` the payment page's wallet button sends.
pub const METHOD: &str = "wallet";

/// The payment page's form that chooses the wallet, posted to `action`.
pub fn choice_form(action: &str, hidden: &str) -> String {
    format!(
        r#"<form method="post" action="{action}" id="wallet">
{hidden}
<button type="submit" name="method" value="{METHOD}" class="secondary">Pay with Sandbox Wallet</button>
</form>"#
    )
}

/// The buyer chose the wallet: the payment waits for them there, and no
/// card can pay it meanwhile.
pub fn choose(
    service: &Service,
    token: &Uuid,
    shop_login: &str,
    origin: Option<Box<str>>,
) -> Response<Body> {
    let chosen = service.store.with_payment(token, |p| {
        if p.state != PaymentState::Created {
            return Err(p.state);
        }
        p.state = PaymentState::AwaitingMethod;
        p.trail_mut().channel = Some(Channel::Alternative);
        p.record(What::MethodChosen);
        service.store.keep_submitted(p);
        p.redirect_buyer(BuyerRedirects {
            framed_by: origin,
            ..BuyerRedirects::default()
        });
        Ok(p.id)
    });
    match chosen {
        Ok(Ok(payment_id)) => {
            tracing::info!(payment_id, method = METHOD, "alternative method chosen");
            see_other(&service.own_page(WALLET_PATH, shop_login, token))
        }
        Ok(Err(state)) => already_processed(state),
        Err(_) => unknown_payment(),
    }
}

/// `GET`: the wallet's approval page.
pub fn page(service: &Service, request: &Request<Incoming>) -> Response<Body> {
    let pairs = query_pairs(request);
    let Some((token, shop_login)) = payment_of(&pairs) else {
        return unknown_payment();
    };
    let found = service.store.with_payment(&token, |p| {
        let profile = service.merchant(p.merchant);
        let merchant = &profile.merchant;
        (merchant.shop_login == shop_login).then(|| {
            let framed_by = p.framed_by().map(str::to_owned);
            (p.state, format!("{} {}", p.amount, p.currency), framed_by)
        })
    });
    match found {
        Ok(Some((PaymentState::AwaitingMethod, amount, framed_by))) => {
            let main = format!(
                r#"<p>Approve the payment of <strong>{amount}</strong> to <strong>{shop}</strong> from your Sandbox Wallet?</p>
<form method="post" action="wallet.aspx" id="approval">
<input type="hidden" name="a" value="{shop}">
<input type="hidden" name="b" value="{token}">
<div><button type="submit" name="decision" value="decline" class="secondary">Decline</button>
<button type="submit" name="decision" value="approve">Approve payment</button></div>
</form>
<p class="note">Sandbox Wallet: this page stands in for the alternative method's own.</p>"#,
                amount = escape(&amount),
                shop = escape(shop_login),
                token = token.hyphenated(),
            );
            // Framed only by the shop page whose lightbox the buyer chose
            // the wallet in.
            html_with_policy(
                StatusCode::OK,
                layout("Sandbox Wallet", &main),
                &form_policy(framed_by.as_deref()),
            )
        }
        Ok(Some((state, ..))) => already_processed(state),
        Ok(None) | Err(_) => unknown_payment(),
    }
}

/// `POST`: the buyer approves or declines; the payment ends so, and the
/// buyer goes where it ends.
pub async fn decide(service: &Service, request: Request<Incoming>) -> Response<Body> {
    let pairs = match read_form(service, request, "approval form").await {
        Ok(pairs) => pairs,
        Err(refused) => return refused,
    };
    let Some((token, shop_login)) = payment_of(&pairs) else {
        return unknown_payment();
    };
    let approved = pairs
        .iter()
        .any(|(name, value)| name == "decision" && value == "approve");
    let decided = service.store.with_payment(&token, |p| {
        let profile = service.merchant(p.merchant);
        let (merchant, pages) = (&profile.merchant, &profile.pages);
        if merchant.shop_login != shop_login {
            return None;
        }
        if p.state != PaymentState::AwaitingMethod {
            return Some(Err(p.state));
        }
        p.end(
            if approved {
                Ending::granted(None)
            } else {
                Ending::refused(outcomes::ABANDONED, None)
            },
            merchant.settlement,
        );
        p.record(What::MethodDecided { approved });
        let redirects = p.buyer_redirects.as_deref();
        let to = landing(service, &token, shop_login, pages, redirects, approved);
        p.record(What::BuyerSent {
            to: to.as_str().into(),
        });
        notify::outcome(service, &token, p);
        Some(Ok((p.id, to)))
    });
    match decided {
        Ok(Some(Ok((payment_id, url)))) => {
            tracing::info!(
                payment_id,
                method = METHOD,
                approved,
                "alternative method finished"
            );
            see_other(&url)
        }
        Ok(Some(Err(state))) => already_processed(state),
        Ok(None) | Err(_) => unknown_payment(),
    }
}
