//! The target's lightbox script, when it declares one
//! (`[payment_page.lightbox]`): the script a shop's page includes to open
//! the payment page over itself. payconf's own shop page includes it as
//! shops written for the real service do, and calls it with the real
//! service's API (`axerve.lightBox.shop`, then
//! `axerve.lightBox.open(paymentID, paymentToken, callback)`;
//! `../shared/contract/real-service-frontend.md` §2): the
//! `@lightbox` scenarios then pay there, in the browser.
//!
//! ```toml
//! [payment_page.lightbox]
//! script = "/pagam/javascript/axerve.js"   # from base_url's origin, or absolute
//! ```
//!
//! The page the script opens is the payment page: the card is typed into
//! the inputs `payment_page.fields` names (or by `[[payment_page.steps]]`),
//! inside the lightbox's frame or window.

use serde::Deserialize;
use url::Url;

use super::{TargetError, address::page_url, target_error};

/// The setting the script's address is given in.
pub const SCRIPT_SETTING: &str = "payment_page.lightbox.script";

/// `[payment_page.lightbox]` as the target file writes it.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LightboxFile {
    /// The script's address: a path from base_url's origin
    /// (`/pagam/javascript/axerve.js`), `{base_url}` and a path, or absolute.
    script: Option<String>,
}

/// The target's lightbox script, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lightbox {
    /// Where a shop's page loads the script from.
    pub script: Url,
}

impl LightboxFile {
    /// Checks the section; the script's address may be written from
    /// `base`, the target's base URL.
    pub fn resolve(self, base: Option<&Url>) -> Result<Lightbox, TargetError> {
        let script = self.script.ok_or_else(|| {
            target_error(
                SCRIPT_SETTING,
                "missing: the address of the script a shop's page includes to open the \
                 lightbox (the real service's is /pagam/javascript/axerve.js)",
            )
        })?;
        let script = page_url(SCRIPT_SETTING, &script, base)?;
        if script.fragment().is_some() {
            return Err(target_error(
                SCRIPT_SETTING,
                "must not carry a fragment (#...): a page loads the script from the address \
                 before it",
            ));
        }
        Ok(Lightbox { script })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(text: &str, base: Option<&str>) -> Result<Lightbox, String> {
        #[derive(Deserialize)]
        struct File {
            lightbox: LightboxFile,
        }
        let base = base.map(|b| Url::parse(b).expect("a URL"));
        toml::from_str::<File>(text)
            .map_err(|e| e.to_string())?
            .lightbox
            .resolve(base.as_ref())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn the_script_is_written_from_the_base_urls_origin_or_absolute() {
        let on_base = resolve(
            "[lightbox]\nscript = \"/pagam/javascript/axerve.js\"",
            Some("https://sandbox.example/api/"),
        )
        .expect("valid");
        assert_eq!(
            on_base.script.as_str(),
            "https://sandbox.example/pagam/javascript/axerve.js"
        );
        let absolute = resolve(
            "[lightbox]\nscript = \"https://cdn.example/lightbox.js\"",
            None,
        )
        .expect("valid");
        assert_eq!(absolute.script.as_str(), "https://cdn.example/lightbox.js");
    }

    #[test]
    fn a_missing_or_wrong_script_is_named_with_what_to_write() {
        for (text, said) in [
            ("[lightbox]", "payment_page.lightbox.script: missing"),
            (
                "[lightbox]\nscript = \"ftp://x.example/a.js\"",
                "absolute http or https URL",
            ),
            (
                "[lightbox]\nscript = \"https://x.example/a.js#v2\"",
                "must not carry a fragment",
            ),
            ("[lightbox]\nsrc = \"/a.js\"", "unknown field `src`"),
        ] {
            let error = resolve(text, Some("https://sandbox.example/")).expect_err(text);
            assert!(error.contains(said), "{text}: {error}");
        }
    }
}
