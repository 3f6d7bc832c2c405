//! The twin's conforming variations: choices the contract leaves open,
//! each made the way some real servers make it.

/// A conforming variation of the twin: a choice the contract leaves open,
/// made the way some real servers make it. Each stands for a reading of the
/// contract the suite takes; the twin with any of them passes every `@core`
/// scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variation {
    /// Refusals answer `"payload": null`: the contract says nothing of the
    /// payload of a refusal, and null is how most serialisers write "none".
    NullPayloadOnRefusals,
    /// Submit needs the merchant's API key as well as the payment token:
    /// whether it does, the contract does not say.
    ApiKeyRequiredOnSubmit,
    /// Submit refuses buyers' e-mail addresses in the reserved example
    /// domains (`.example`, `.test`, `.invalid`, `.localhost`); its target
    /// file names another address.
    RefusesReservedDomains,
    /// A paid submit sends the buyer to a result page of the service's own,
    /// which passes them on to the shop's success page: the contract says
    /// the address comes from the back-office configuration, not that it is
    /// that page.
    OwnResultPage,
    /// Redirect addresses are scheme-relative (`//host/path`): the buyer's
    /// browser completes them with the scheme of the page it is on.
    SchemeRelativeRedirects,
    /// Over 20 API requests a second are answered `429 Too Many Requests`
    /// with the envelope and `Retry-After: 1`: the contract shows no rate
    /// limits ("not shown"), so a server may have one, and a client that
    /// waits as asked is served.
    RateLimited,
    /// Every JSON answer is gzip-compressed, whatever the request's
    /// `Accept-Encoding`: a request that names none accepts any coding
    /// (RFC 9110 12.5.3), and the contract says nothing of compression.
    GzipAlways,
    /// The issuer page holds a decorative frame (analytics) whose address
    /// answers 404: a frame that fails is the target's fault only when the
    /// buyer's way stops on it, and here the form beside it works.
    BrokenDecorativeFrame,
    /// Lenient: create takes any JSON type for `amount`, `currency` and
    /// `shopTransactionID`, values of any depth are read, and every
    /// processed answer echoes the request it answers (`payload.received`),
    /// as it came: an answer is as deep as what it was sent. The contract
    /// states no validation rules, and the submit payload's "other fields
    /// are present".
    EchoesRequest,
    /// A press of pay on a payment the page has already paid sends the
    /// buyer where the payment's outcome sent them (the shop's success or
    /// failure page) instead of an "already paid" page: a double press
    /// shows the result again. The contract says what one payment process
    /// does, not what a second press answers.
    PressAgainShowsResult,
    /// Notifications leave 1.5 s after the outcome, a refused one is posted
    /// again 3.5 s later, and every acknowledged delivery is sent once more,
    /// under the same event ID: the notification scenarios wait for what comes within
    /// their bounds, and read "one notification" as one event (delivery at
    /// least once, as every webhook sender's), not one request.
    LateNotifications,
    /// `payment/detail` wraps each event as `{"event": {...}}`, as the real
    /// service's document of the GET call writes it (the POST call's lists
    /// them flat): the lifecycle scenarios take both shapes.
    WrappedEvents,
    /// The twin's own shop settles a payment two seconds after its
    /// authorization, not at once: the unified shop's settlement is awaited
    /// within `lifecycle.settles_within_secs`.
    SettlesAfterADelay,
    /// The operations after submit are served without a trailing slash
    /// only (`payment/capture`, `payment/refund`), as some of the real
    /// service's clients call them; the documents write `capture/`. Its
    /// target file says so (`lifecycle.trailing_slash = false`).
    NoTrailingSlash,
    /// The payment page as many real pages build it: the card form leads
    /// to a review step (*Back* before *Confirm and pay*), and the
    /// alternative method is a link whose query carries a nonce
    /// ([`super::review`]). The contract says nothing of how the page is
    /// built: a buyer's browser follows the link as it is written and
    /// confirms, never goes back.
    ReviewAndLinkedMethod,
    /// The service is served as Python's standard library serves
    /// (`ThreadingHTTPServer`): a listen backlog of 5, a thread per
    /// connection, one request per connection; and at most 16 connections
    /// at once, a connection past them closed unanswered, as Node's
    /// `server.maxConnections` closes it ([`super::backlog`]). The
    /// contract states no capacity: connections payconf's own volleys
    /// open past the backlog or the limit are payconf's load, and a
    /// requirement that is not about capacity (buyers kept apart, hostile
    /// bodies answered) is judged on the answers the server gives each
    /// request alone.
    SmallBacklog,
    /// A token whose payment waits for the issuer's authentication,
    /// submitted again, is answered `8006` again, with the address of the
    /// same authentication, and nothing is recorded: the real service keeps
    /// a token valid until the payment is submitted and authorised
    /// (docs/real-service.md, the payment token). ROB-02 reads that as no
    /// execution.
    ResubmitWhileWaiting,
    /// On the payment page, a declined card leaves the token valid (the
    /// real service's token stays valid until the payment is authorised:
    /// docs/real-service.md, the payment token): the press records nothing,
    /// and a press after it with a card that pays pays. Two presses at once,
    /// a declined card's processed first, land on the failure page and on
    /// the success page, and the payment is authorised once: ROB-05 judges
    /// executions by what the service records, never by landings.
    DeclineThenPay,
    /// The issuer page offers no control to cancel: its one form asks for
    /// the passcode and confirms; a passcode sent empty fails the
    /// authentication. The contract shows no cancel, so nothing says a page
    /// must have one: the scenarios whose buyer cancels are not judged, and
    /// never passed by the empty passcode's road to the failure page.
    NoCancelControl,
    /// `payment/create` and `payment/submit` are served without their
    /// trailing slash only, as some of the real service's clients call
    /// them (the contract writes them with it); its target file says so
    /// (`trailing_slash = false`), and every request goes that way.
    SlashlessOperations,
    /// The twin has no card of its own whose authentication fails: any
    /// wrong passcode fails it (8027), and its target file says so
    /// (`acs.failing_fields`), the road REF-OUT-03 then takes with the card
    /// enrolled in 3-D Secure. Judged on the `@outcome` scenarios.
    WrongCodeFailsAuthentication,
    /// The lightbox in other words than the twin's own: its result posted
    /// as an object (not JSON text), a declined payment's status
    /// `DECLINED` (not `KO`), the empty token's 1134 as text (not a
    /// number), and on a phone the page loaded into a window the script
    /// opens blank first. The facts leave each open (a message "JSON text
    /// or an object"; shops test only `status === "OK"`): judged on the
    /// `@lightbox` scenarios, with the browser.
    LightboxInOtherWords,
}

impl Variation {
    /// Every variation.
    pub const ALL: [Self; 16] = [
        Self::NullPayloadOnRefusals,
        Self::ApiKeyRequiredOnSubmit,
        Self::RefusesReservedDomains,
        Self::OwnResultPage,
        Self::SchemeRelativeRedirects,
        Self::RateLimited,
        Self::GzipAlways,
        Self::BrokenDecorativeFrame,
        Self::EchoesRequest,
        Self::PressAgainShowsResult,
        Self::LateNotifications,
        Self::ReviewAndLinkedMethod,
        Self::ResubmitWhileWaiting,
        Self::DeclineThenPay,
        Self::NoCancelControl,
        Self::SlashlessOperations,
    ];

    /// The variations of the 3-D Secure outcomes alone, judged on the
    /// `@outcome` scenarios.
    pub const OUTCOME: [Self; 1] = [Self::WrongCodeFailsAuthentication];

    /// The variations of the lightbox alone, judged on the `@lightbox`
    /// scenarios with the browser.
    pub const LIGHTBOX: [Self; 1] = [Self::LightboxInOtherWords];

    /// The variations of the payment's life after submit alone: with either,
    /// the twin answers every core scenario as it does without, so they are
    /// judged on the `@lifecycle` scenarios only.
    pub const LIFECYCLE: [Self; 3] = [
        Self::WrappedEvents,
        Self::SettlesAfterADelay,
        Self::NoTrailingSlash,
    ];
}
