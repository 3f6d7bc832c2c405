//! Where the service's pages are: the paths the buyer's browser is sent to
//! and the shop's page includes, in one place that imports nothing, so the
//! handlers that send the buyer somewhere need not import each other.

/// The issuer-authentication page (3-D Secure).
pub const ISSUER_PATH: &str = "/acs/authenticate";

/// The standard payment page.
pub const PAGE_PATH: &str = "/pay";

/// The alternative method's approval page.
pub const WALLET_PATH: &str = "/pay/wallet";

/// The lightbox script a shop's page includes.
pub const SCRIPT_PATH: &str = "/pay/lightbox.js";

/// Where a payment paid in the lightbox ends, in its frame.
pub const RESULT_PATH: &str = "/pay/result";

/// The merchant back-office: every page of it is under this path.
pub const BACK_OFFICE_PATH: &str = "/back-office";

/// The sandbox's demo checkout, a shop page that opens the lightbox.
pub const DEMO_PATH: &str = "/demo/checkout";
