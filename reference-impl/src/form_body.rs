//! A form a buyer's browser posts to the service's pages (the issuer's, the
//! payment page's, the wallet's): URL-encoded, read within the service's
//! time limit and at most [`MAX_FORM_BYTES`]; anything else gets an error
//! page.

use http::{Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;

use crate::{
    pages::error_page,
    state::{Body, Service},
};

/// The largest form body the service's pages read.
pub const MAX_FORM_BYTES: usize = 16 * 1024;

/// The form's name and value pairs, or the error page that refuses it;
/// `what` names the form in that page.
pub async fn read_form(
    service: &Service,
    request: Request<Incoming>,
    what: &str,
) -> Result<Vec<(String, String)>, Response<Body>> {
    let (parts, body) = request.into_parts();
    let is_form = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| {
            v.trim()
                .eq_ignore_ascii_case("application/x-www-form-urlencoded")
        });
    if !is_form {
        return Err(error_page(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported form",
            &format!("The {what} must be sent as application/x-www-form-urlencoded."),
        ));
    }
    match tokio::time::timeout(
        service.config.limits.body_read_timeout,
        Limited::new(body, MAX_FORM_BYTES).collect(),
    )
    .await
    {
        Ok(Ok(collected)) => Ok(form_urlencoded::parse(&collected.to_bytes())
            .into_owned()
            .collect()),
        Ok(Err(_)) | Err(_) => Err(error_page(
            StatusCode::BAD_REQUEST,
            "Form not received",
            &format!("The {what} could not be read."),
        )),
    }
}
