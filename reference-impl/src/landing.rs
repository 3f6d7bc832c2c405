//! Where the buyer goes when a payment ends: the address a submit call
//! passed (`responseURLs`), else the merchant's back-office page; and, for
//! a payment paid in the lightbox on a shop's page, the service's result
//! page in the lightbox's frame, which tells the shop's page the outcome
//! and sends the buyer on to that address (see `payment_page::lightbox`).
//!
//! The real service appends its parameters to the buyer's return
//! addresses (docs/real-service.md: the REST documentation says it "adds
//! these parameters to the url", its stored copy stops before the list;
//! the older documents name them `a`, the shop login, and `b`). The
//! sandbox appends `a` (the shop login) and `b` (the payment token), after
//! the address's own parameters, which it keeps: our reading where the
//! facts stop, so that a shop tells which payment came back.

use url::Url;
use uuid::Uuid;

use crate::{paths::RESULT_PATH, profiles::MerchantPages, state::Service, store::BuyerRedirects};

/// Where the buyer ends, once the payment of `token` at `shop_login` has
/// ended (`success` or not), the service's parameters appended.
pub fn destination(
    pages: &MerchantPages,
    redirects: Option<&BuyerRedirects>,
    success: bool,
    shop_login: &str,
    token: &Uuid,
) -> Url {
    let chosen = redirects.and_then(|r| if success { r.ok.clone() } else { r.ko.clone() });
    let mut address = chosen.unwrap_or_else(|| {
        if success {
            pages.success.clone()
        } else {
            pages.failure.clone()
        }
    });
    let mut written = Uuid::encode_buffer();
    address
        .query_pairs_mut()
        .append_pair("a", shop_login)
        .append_pair("b", token.hyphenated().encode_lower(&mut written));
    address
}

/// Where the service sends the buyer when the payment ends: the result page
/// in the lightbox's frame for a payment paid there, else its
/// [`destination`].
pub fn landing(
    service: &Service,
    token: &Uuid,
    shop_login: &str,
    pages: &MerchantPages,
    redirects: Option<&BuyerRedirects>,
    success: bool,
) -> Url {
    if redirects.is_some_and(|r| r.framed_by.is_some()) {
        return service.own_page(RESULT_PATH, shop_login, token);
    }
    destination(pages, redirects, success, shop_login, token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_return_address_keeps_its_own_parameters_and_gets_the_shop_and_the_token() {
        let token = Uuid::nil();
        let pages = MerchantPages {
            success: Url::parse("https://shop.example/thanks").expect("url"),
            failure: Url::parse("https://shop.example/sorry").expect("url"),
        };
        let redirects = BuyerRedirects {
            ok: Some(Url::parse("https://shop.example/order?id=7").expect("url")),
            ..BuyerRedirects::default()
        };
        assert_eq!(
            destination(&pages, Some(&redirects), true, "SHOP", &token).as_str(),
            "https://shop.example/order?id=7&a=SHOP&b=00000000-0000-0000-0000-000000000000"
        );
        assert_eq!(
            destination(&pages, None, false, "A&B", &token).as_str(),
            "https://shop.example/sorry?a=A%26B&b=00000000-0000-0000-0000-000000000000"
        );
    }
}
