//! Where the service's pages are: the paths the buyer's browser is sent to
//! and the shop's page includes, in one place that imports nothing, so the
//! handlers that send the buyer somewhere need not import each other.
//!
//! The buyer's pages are the real service's (`../shared/contract/
//! real-service-frontend.md` §1, docs/real-service.md): every one under
//! `/pagam/`, matched whatever the case of its letters, as the real
//! service's are written both ways by shops (`/pagam/javascript/axerve.js`,
//! `/pagam/JavaScript/js_GestPay.js`) and served by a server that takes
//! both (ours: the facts leave the matching unknown). The wallet's and the
//! result's addresses are the sandbox's own (the real service has no such
//! page that is known).

/// Where every buyer page is.
pub const BUYER_PREFIX: &str = "/pagam/";

/// The issuer-authentication page (3-D Secure): submit's 8006 address,
/// `?a=<shopLogin>&b=<paymentToken>` (real).
pub const ISSUER_PATH: &str = "/pagam/pagam3d.aspx";

/// The hosted payment page, `?a=<shopLogin>&b=<paymentToken>`, with an
/// optional `paymentType` (real).
pub const PAGE_PATH: &str = "/pagam/pagam.aspx";

/// The page the lightbox frames, and the pay-by-link address:
/// `?paymentID=…&paymentToken=…&shopLogin=…&lightBox=true|false` (real).
pub const FRAMED_PATH: &str = "/pagam/src/index.html";

/// The lightbox script a shop's page includes (real).
pub const SCRIPT_PATH: &str = "/pagam/javascript/axerve.js";

/// The alternative method's approval page (ours).
pub const WALLET_PATH: &str = "/pagam/wallet.aspx";

/// Where a payment paid in the lightbox ends, in its frame (ours).
pub const RESULT_PATH: &str = "/pagam/result.aspx";

/// The merchant back-office: every page of it is under this path (real).
pub const BACK_OFFICE_PATH: &str = "/backoffice";

/// The sandbox's demo checkout, a shop page that opens the lightbox.
pub const DEMO_PATH: &str = "/demo/checkout";
