//! The defect catalogue (`spec/defects.yaml`) as switches on the twin: each
//! variant breaks exactly one core or robustness requirement, or one of the
//! reference profile's in an area the twin follows it in: the notifications,
//! and taking what clients of the real service send.

/// The scenarios that send what clients of the real service send.
pub const REAL_CLIENT: &str = "@real-client";

/// The scenarios of the payment's life after submit.
pub const LIFECYCLE: &str = "@lifecycle";

/// The scenarios of the 3-D Secure outcomes.
pub const OUTCOME: &str = "@outcome";

/// The scenarios of the lightbox a shop's page opens.
pub const LIGHTBOX: &str = "@lightbox";

/// One entry of the defect catalogue, `spec/defects.yaml`, by the same name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Defect {
    RefusalWithoutEnvelope,
    RefusalCodeAsNumber,
    RefusalPayloadAsString,
    RefusalAsHtml,
    RefusalLabelledTextPlain,
    RefusalHangs,
    RefusalFloods,
    CreateDescriptionEmpty,
    PaymentTokenNotUuid,
    PaymentIdAsNumber,
    PaymentIdNotDigits,
    CreateRedirectNotNull,
    CreateRedirectMissing,
    PaymentIdRepeated,
    AuthorizationNotRequired,
    AnyApiKeyAccepted,
    UnknownTokenPaid,
    TransactionTypeWrongCase,
    TransactionTypeMissing,
    TransactionResultLowerCase,
    SubmitAnswersAnotherPaymentId,
    SuccessRedirectRelative,
    SuccessRedirectElsewhere,
    EnrolledCardWithout8006,
    EnrolledCard8006AsNumber,
    EnrolledCardDescriptionEmpty,
    IssuerAddressRelative,
    IssuerLandsElsewhere,
    IssuerRedirectsForever,
    IssuerResetsConnection,
    IssuerPageServerError,
    IssuerFrameServerError,
    IssuerHttpsOnPlainPort,
    ScriptedIssuerLandsOnFailure,
    ScriptedIssuerRedirectsForever,
    PaidSubmitAsksFor8006,
    IssuerAddressIsSuccessPage,
    UnusableRequestAsHtml,
    UnusableRequestEmpty,
    NonJsonBodyProcessed,
    WrongTokenLocksPayment,
    ConcurrentSubmitsPayTwice,
    TokenClaimedAMillisecondLate,
    PaidTokenPaidAgain,
    PaymentsMixedUnderLoad,
    DeepNestingCrashes,
    NonAsciiCrashes,
    PageWaitsForSubmit,
    PageLandsOnFailure,
    AlternativeLandsElsewhere,
    DoublePressPaysTwice,
    PaidNotifiedAsDeclined,
    NotifiedTwice,
    IssuerPaymentsNotNotified,
    SignatureWithoutTimestamp,
    RefusedNotificationNotRetried,
    BuyerRequired,
    DccStringRefused,
    AmountDecimalsRequired,
    DetailMissesTheAuthorization,
    DetailNotFoundByReference,
    DetailStateStaleAfterCapture,
    CaptureAboveAuthorizedAccepted,
    CancelNotApplied,
    CancelAfterCaptureAccepted,
    RefundAboveBalanceAccepted,
    RefundWithoutSettlementAccepted,
    NeverSettlesByItself,
    ConcurrentRefundsExceedTheBalance,
    CaptureAndCancelBothDone,
    FrictionlessReportedAsNotAuthenticated,
    ChallengeReportedAsFrictionless,
    FailedAuthenticationReportedAsDenied,
    IssuerRejectionAsGenericDecline,
    AcsProblemAsGenericDecline,
    AcsTimeoutPaid,
    AbandonmentReportedAsFailedAuthentication,
    InsufficientCreditAsGenericDecline,
    ExpiredCardPaid,
    LightboxOverlayUnnamed,
    LightboxIssuerBreaksOut,
    LightboxNoCallbackStays,
    LightboxOverlayOnPhone,
    LightboxEmptyTokenOpens,
    LightboxDeclinedToldOk,
    MethodsAddressWithoutPayment,
    MethodDetailOfAnotherPayment,
    DataForBuyerAmountInCents,
    DccOfferUndecided,
    ShopMethodsUnnamed,
}

impl Defect {
    /// Every defect the twin can be switched to.
    pub const ALL: [Self; 90] = [
        Self::RefusalWithoutEnvelope,
        Self::RefusalCodeAsNumber,
        Self::RefusalPayloadAsString,
        Self::RefusalAsHtml,
        Self::RefusalLabelledTextPlain,
        Self::RefusalHangs,
        Self::RefusalFloods,
        Self::CreateDescriptionEmpty,
        Self::PaymentTokenNotUuid,
        Self::PaymentIdAsNumber,
        Self::PaymentIdNotDigits,
        Self::CreateRedirectNotNull,
        Self::CreateRedirectMissing,
        Self::PaymentIdRepeated,
        Self::AuthorizationNotRequired,
        Self::AnyApiKeyAccepted,
        Self::UnknownTokenPaid,
        Self::TransactionTypeWrongCase,
        Self::TransactionTypeMissing,
        Self::TransactionResultLowerCase,
        Self::SubmitAnswersAnotherPaymentId,
        Self::SuccessRedirectRelative,
        Self::SuccessRedirectElsewhere,
        Self::EnrolledCardWithout8006,
        Self::EnrolledCard8006AsNumber,
        Self::EnrolledCardDescriptionEmpty,
        Self::IssuerAddressRelative,
        Self::IssuerLandsElsewhere,
        Self::IssuerRedirectsForever,
        Self::IssuerResetsConnection,
        Self::IssuerPageServerError,
        Self::IssuerFrameServerError,
        Self::IssuerHttpsOnPlainPort,
        Self::ScriptedIssuerLandsOnFailure,
        Self::ScriptedIssuerRedirectsForever,
        Self::PaidSubmitAsksFor8006,
        Self::IssuerAddressIsSuccessPage,
        Self::UnusableRequestAsHtml,
        Self::UnusableRequestEmpty,
        Self::NonJsonBodyProcessed,
        Self::WrongTokenLocksPayment,
        Self::ConcurrentSubmitsPayTwice,
        Self::TokenClaimedAMillisecondLate,
        Self::PaidTokenPaidAgain,
        Self::PaymentsMixedUnderLoad,
        Self::DeepNestingCrashes,
        Self::NonAsciiCrashes,
        Self::PageWaitsForSubmit,
        Self::PageLandsOnFailure,
        Self::AlternativeLandsElsewhere,
        Self::DoublePressPaysTwice,
        Self::PaidNotifiedAsDeclined,
        Self::NotifiedTwice,
        Self::IssuerPaymentsNotNotified,
        Self::SignatureWithoutTimestamp,
        Self::RefusedNotificationNotRetried,
        Self::BuyerRequired,
        Self::DccStringRefused,
        Self::AmountDecimalsRequired,
        Self::DetailMissesTheAuthorization,
        Self::DetailNotFoundByReference,
        Self::DetailStateStaleAfterCapture,
        Self::CaptureAboveAuthorizedAccepted,
        Self::CancelNotApplied,
        Self::CancelAfterCaptureAccepted,
        Self::RefundAboveBalanceAccepted,
        Self::RefundWithoutSettlementAccepted,
        Self::NeverSettlesByItself,
        Self::ConcurrentRefundsExceedTheBalance,
        Self::CaptureAndCancelBothDone,
        Self::FrictionlessReportedAsNotAuthenticated,
        Self::ChallengeReportedAsFrictionless,
        Self::FailedAuthenticationReportedAsDenied,
        Self::IssuerRejectionAsGenericDecline,
        Self::AcsProblemAsGenericDecline,
        Self::AcsTimeoutPaid,
        Self::AbandonmentReportedAsFailedAuthentication,
        Self::InsufficientCreditAsGenericDecline,
        Self::ExpiredCardPaid,
        Self::LightboxOverlayUnnamed,
        Self::LightboxIssuerBreaksOut,
        Self::LightboxNoCallbackStays,
        Self::LightboxOverlayOnPhone,
        Self::LightboxEmptyTokenOpens,
        Self::LightboxDeclinedToldOk,
        Self::MethodsAddressWithoutPayment,
        Self::MethodDetailOfAnotherPayment,
        Self::DataForBuyerAmountInCents,
        Self::DccOfferUndecided,
        Self::ShopMethodsUnnamed,
    ];

    /// Its id in the catalogue: the variant's name in kebab case.
    pub fn id(self) -> String {
        let name = format!("{self:?}");
        let mut id = String::new();
        for (i, c) in name.char_indices() {
            let after_letter = name[..i].chars().last().is_some_and(char::is_alphabetic);
            if i > 0 && (c.is_ascii_uppercase() || (c.is_ascii_digit() && after_letter)) {
                id.push('-');
            }
            id.push(c.to_ascii_lowercase());
        }
        id
    }

    /// The issuer page the twin shows with this defect: the scripted
    /// defects live on a scripted page; the others on the plain one.
    pub fn issuer_style(self) -> super::IssuerStyle {
        match self {
            Self::ScriptedIssuerLandsOnFailure | Self::ScriptedIssuerRedirectsForever => {
                super::IssuerStyle::Scripted
            }
            Self::IssuerFrameServerError => super::IssuerStyle::Framed,
            _ => super::IssuerStyle::Form,
        }
    }

    /// Whether the twin has a web framework in front of it that refuses, with
    /// its own error pages, what it cannot use: a body not labelled JSON
    /// among them.
    pub fn framework_refuses(self) -> bool {
        matches!(
            self,
            Self::UnusableRequestAsHtml | Self::UnusableRequestEmpty
        )
    }

    /// Whether the defect breaks a requirement of the opt-in robustness
    /// profile: its runs select `@robustness` too.
    pub fn robustness(self) -> bool {
        matches!(
            self,
            Self::ConcurrentSubmitsPayTwice
                | Self::TokenClaimedAMillisecondLate
                | Self::PaidTokenPaidAgain
                | Self::PaymentsMixedUnderLoad
                | Self::DeepNestingCrashes
                | Self::NonAsciiCrashes
                | Self::DoublePressPaysTwice
                | Self::ConcurrentRefundsExceedTheBalance
                | Self::CaptureAndCancelBothDone
        )
    }

    /// Whether the defect breaks the reference profile's notifications,
    /// which the twin follows: its runs select `@notification`.
    pub fn notification(self) -> bool {
        matches!(
            self,
            Self::PaidNotifiedAsDeclined
                | Self::NotifiedTwice
                | Self::IssuerPaymentsNotNotified
                | Self::SignatureWithoutTimestamp
                | Self::RefusedNotificationNotRetried
        )
    }

    /// Whether the defect refuses what clients of the real service send,
    /// which the twin takes: its runs select `@real-client`.
    pub fn real_client(self) -> bool {
        matches!(
            self,
            Self::BuyerRequired | Self::DccStringRefused | Self::AmountDecimalsRequired
        )
    }

    /// Whether the defect breaks the payment's life after submit, which the
    /// twin follows: its runs select `@lifecycle`.
    pub fn lifecycle(self) -> bool {
        matches!(
            self,
            Self::DetailMissesTheAuthorization
                | Self::DetailNotFoundByReference
                | Self::DetailStateStaleAfterCapture
                | Self::CaptureAboveAuthorizedAccepted
                | Self::CancelNotApplied
                | Self::CancelAfterCaptureAccepted
                | Self::RefundAboveBalanceAccepted
                | Self::RefundWithoutSettlementAccepted
                | Self::NeverSettlesByItself
                | Self::MethodsAddressWithoutPayment
                | Self::MethodDetailOfAnotherPayment
                | Self::DataForBuyerAmountInCents
                | Self::DccOfferUndecided
                | Self::ShopMethodsUnnamed
        )
    }

    /// Whether the defect misnames a 3-D Secure outcome, which the twin
    /// follows: its runs select `@outcome`.
    pub fn outcome(self) -> bool {
        matches!(
            self,
            Self::FrictionlessReportedAsNotAuthenticated
                | Self::ChallengeReportedAsFrictionless
                | Self::FailedAuthenticationReportedAsDenied
                | Self::IssuerRejectionAsGenericDecline
                | Self::AcsProblemAsGenericDecline
                | Self::AcsTimeoutPaid
                | Self::AbandonmentReportedAsFailedAuthentication
                | Self::InsufficientCreditAsGenericDecline
                | Self::ExpiredCardPaid
        )
    }

    /// The tag expression a run judging it selects: none (the core
    /// scenarios), or its opt-in area's.
    /// A defect of the lightbox's script or its pages, judged on the
    /// `@lightbox` scenarios with the browser.
    pub fn lightbox(self) -> bool {
        matches!(
            self,
            Self::LightboxOverlayUnnamed
                | Self::LightboxIssuerBreaksOut
                | Self::LightboxNoCallbackStays
                | Self::LightboxOverlayOnPhone
                | Self::LightboxEmptyTokenOpens
                | Self::LightboxDeclinedToldOk
        )
    }

    pub fn selects(self) -> Option<&'static str> {
        if self.outcome() {
            Some(OUTCOME)
        } else if self.lightbox() {
            Some(LIGHTBOX)
        } else if self.robustness() {
            Some("@robustness")
        } else if self.notification() {
            Some("@notification")
        } else if self.real_client() {
            Some(REAL_CLIENT)
        } else if self.lifecycle() {
            // The reference scenarios of the area: its races are the
            // robustness profile's, judged with its defects.
            Some("@lifecycle and @reference")
        } else {
            None
        }
    }

    /// The defect with this catalogue id.
    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.id() == id)
    }
}
