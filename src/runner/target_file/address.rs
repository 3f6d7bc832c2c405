//! The target's addresses as a target file writes them: the base URL once,
//! and every other address of the target's (the merchant's success and
//! failure pages, the payment page) either absolute or written from it, so
//! that pointing a file at another server (`--base-url`,
//! `PAYCONF_BASE_URL`) moves every address with it:
//!
//! - `/merchant/DEMO_SHOP/success`: a path from the base URL's origin, as a
//!   link on a page of the base URL's would go;
//! - `{base_url}/merchant/DEMO_SHOP/success`: the base URL as given (its
//!   last `/` left out), then the rest, for a service under a path
//!   (`https://pay.example/gateway`);
//! - `https://shop.example/done`: absolute, as it is.

use url::Url;

use super::{TargetError, problems::following, target_error};

/// What stands for the base URL at the start of an address.
const BASE_URL_PLACEHOLDER: &str = "{base_url}";

/// The base URL: an absolute http or https URL. One written without its
/// scheme (`localhost:8080`, `pay.example`) is refused with the form to
/// write instead.
pub(super) fn base_url(value: &str) -> Result<Url, TargetError> {
    let setting = "base_url";
    if !value.contains("://") && !value.starts_with('/') && !value.trim().is_empty() {
        let scheme = if value.starts_with("localhost") || value.starts_with("127.") {
            "http"
        } else {
            "https"
        };
        return Err(target_error(
            setting,
            format!("{value:?} has no scheme: write it as \"{scheme}://{value}\""),
        ));
    }
    http_url(setting, value)
}

/// An address of the target's, written out absolute from `base` as the
/// module says. `base` is `None` where the base URL is itself missing or
/// wrong: that problem is named on its own, and this one only follows
/// from it.
pub(super) fn on_base(
    setting: &str,
    value: &str,
    base: Option<&Url>,
) -> Result<String, TargetError> {
    let from_base = value.strip_prefix(BASE_URL_PLACEHOLDER);
    let from_origin = value.starts_with('/') && !value.starts_with("//");
    if value.contains(BASE_URL_PLACEHOLDER) && from_base.is_none() {
        return Err(target_error(
            setting,
            format!("{BASE_URL_PLACEHOLDER} may only begin an address: {value:?}"),
        ));
    }
    if from_base.is_none() && !from_origin {
        return Ok(value.to_owned());
    }
    let Some(base) = base else {
        return Err(following(
            setting,
            "is written from base_url, which is missing or not a URL",
        ));
    };
    Ok(match from_base {
        Some(rest) => format!("{}{rest}", base.as_str().trim_end_matches('/')),
        None => format!("{}{value}", base.origin().ascii_serialization()),
    })
}

/// An absolute http or https URL.
pub(super) fn http_url(setting: &str, value: &str) -> Result<Url, TargetError> {
    let url = Url::parse(value).map_err(|e| target_error(setting, format!("{e}: {value:?}")))?;
    if !matches!(url.scheme(), "http" | "https") || !url.has_host() {
        return Err(target_error(
            setting,
            "must be an absolute http or https URL, a path from base_url's origin \
             (/merchant/success) or {base_url} and a path",
        ));
    }
    Ok(url)
}

/// An address of the target's page: [`on_base`], then [`http_url`].
pub(super) fn page_url(setting: &str, value: &str, base: Option<&Url>) -> Result<Url, TargetError> {
    http_url(setting, &on_base(setting, value, base)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base(text: &str) -> Url {
        Url::parse(text).expect("a URL")
    }

    #[test]
    fn a_path_goes_from_the_base_urls_origin_and_the_placeholder_keeps_its_path() {
        let gateway = base("https://pay.example:8443/gateway/");
        let page = |value: &str| page_url("success_url", value, Some(&gateway)).map(String::from);
        assert_eq!(
            page("/merchant/S/success").expect("resolved"),
            "https://pay.example:8443/merchant/S/success"
        );
        assert_eq!(
            page("{base_url}/merchant/S/success").expect("resolved"),
            "https://pay.example:8443/gateway/merchant/S/success"
        );
        assert_eq!(
            page("https://shop.example/done").expect("as it is"),
            "https://shop.example/done"
        );
    }

    #[test]
    fn an_address_written_from_a_missing_base_url_says_so() {
        let error = page_url("failure_url", "/merchant/S/failure", None).expect_err("no base");
        assert_eq!(error.setting, "failure_url");
        assert!(error.reason.contains("written from base_url"), "{error}");
    }

    #[test]
    fn the_placeholder_begins_an_address_or_is_refused() {
        let error = on_base("success_url", "https://x.example/{base_url}", None)
            .expect_err("in the middle");
        assert!(
            error.reason.contains("may only begin an address"),
            "{error}"
        );
    }

    #[test]
    fn a_protocol_relative_address_is_not_taken_for_a_path() {
        let error = page_url(
            "success_url",
            "//shop.example/done",
            Some(&base("http://a.test")),
        )
        .expect_err("no scheme");
        assert_eq!(error.setting, "success_url");
    }

    #[test]
    fn a_base_url_without_a_scheme_is_refused_with_the_form_to_write() {
        let local = base_url("localhost:8080").expect_err("no scheme");
        assert!(
            local
                .reason
                .contains("write it as \"http://localhost:8080\""),
            "{local}"
        );
        let remote = base_url("pay.example/api").expect_err("no scheme");
        assert!(
            remote
                .reason
                .contains("write it as \"https://pay.example/api\""),
            "{remote}"
        );
        assert!(base_url("http://127.0.0.1:8080").is_ok());
    }
}
