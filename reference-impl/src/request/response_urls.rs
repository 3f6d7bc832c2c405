//! `responseURLs`, in `payment/create` and in `payment/submit` (the real
//! service takes them in both: docs/real-service.md): where the buyer goes
//! after a successful or a failed payment, and where its outcome is
//! posted, each an absolute http or https address.

use url::Url;

use crate::{
    error::{ApiError, code},
    request::Fields,
};

/// The longest address accepted in `responseURLs`.
const MAX_URL_LEN: usize = 2048;

/// The addresses a create's or a submit's `responseURLs` gave, each an
/// absolute http or https URL.
#[derive(Debug, Default)]
pub(crate) struct ResponseUrls {
    /// `buyerOK`: where the buyer goes after a successful payment.
    pub ok: Option<Url>,
    /// `buyerKO`: where the buyer goes after a failed one.
    pub ko: Option<Url>,
    /// `serverNotificationURL`: where the outcome is posted.
    pub notification: Option<Url>,
}

/// The `responseURLs` of a body, each address checked; none when absent.
pub(crate) fn read_response_urls(fields: &Fields<'_>) -> Result<ResponseUrls, ApiError> {
    let Some(urls) = fields.optional_object("responseURLs", "responseURLs")? else {
        return Ok(ResponseUrls::default());
    };
    let address = |name: &str| -> Result<Option<Url>, ApiError> {
        let Some(text) = urls.optional_str(name)? else {
            return Ok(None);
        };
        let invalid = || {
            ApiError::field(
                code::INVALID_PARAMETER,
                urls.path_of(name),
                "must be an absolute http or https URL of at most 2048 characters",
            )
        };
        if text.len() > MAX_URL_LEN {
            return Err(invalid());
        }
        match Url::parse(text) {
            Ok(url) if matches!(url.scheme(), "http" | "https") && url.has_host() => Ok(Some(url)),
            _ => Err(invalid()),
        }
    };
    let ok = address("buyerOK")?;
    let ko = address("buyerKO")?;
    let notification = address("serverNotificationURL")?;
    Ok(ResponseUrls {
        ok,
        ko,
        notification,
    })
}
