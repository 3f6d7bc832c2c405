//! Where the buyer goes when a payment ends: the address a submit call
//! passed (`responseURLs`), else the merchant's back-office page; and, for
//! a payment paid in the lightbox on a shop's page, the service's result
//! page in the lightbox's frame, which tells the shop's page the outcome
//! and sends the buyer on to that address (see `payment_page::lightbox`).

use url::Url;
use uuid::Uuid;

use crate::{paths::RESULT_PATH, profiles::MerchantPages, state::Service, store::BuyerRedirects};

/// Where the buyer ends, once the payment has ended (`success` or not).
pub fn destination(
    pages: &MerchantPages,
    redirects: Option<&BuyerRedirects>,
    success: bool,
) -> Url {
    let chosen = redirects.and_then(|r| if success { r.ok.clone() } else { r.ko.clone() });
    chosen.unwrap_or_else(|| {
        if success {
            pages.success.clone()
        } else {
            pages.failure.clone()
        }
    })
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
    destination(pages, redirects, success)
}
