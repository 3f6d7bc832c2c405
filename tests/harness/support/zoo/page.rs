//! The payment page's zoo: hosted payment pages composed from a seed, as
//! the issuer's journeys are ([`super::Journey`]), across the dimensions
//! real pages differ in where the contract gives the page no address,
//! fields or look: a full page, an overlay (the lightbox: the form in a
//! frame, 3-D Secure inside it or outside), hosted fields one frame per
//! field; card fields of any names, the expiry split or joined (`MM/YY`);
//! a review step with its confirm and back controls in any order, in the
//! five languages; the alternative method offered as a link (its query
//! carrying a nonce), a form button, or a choice page; delays and redirects
//! between steps. A defective page is the same composition with one
//! [`PageFault`].
//!
//! [`PagePay::compose`] draws the composition; [`super::page_server`]
//! serves it before the reference implementation, which still decides
//! the payment.

use std::fmt;

use super::{Draw, Language};

/// How the page is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// The form is the page.
    Full,
    /// The lightbox: a shop-like page with the form in a frame over it;
    /// `inside`: the issuer's page opens inside the frame, else the card
    /// form sends the whole window on.
    Overlay { inside: bool },
    /// Each card input in a frame of its own, telling the page its value
    /// by `postMessage`; the page sends them with the name.
    HostedFields,
}

/// How the alternative method is offered on the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// A link whose query carries a nonce, which the start needs.
    Link,
    /// A form of its own with a button.
    Button,
    /// A link to a page of methods, where the buyer picks one and goes on.
    ChoicePage,
}

/// How the page sends the buyer on after a step: at once, by a redirect
/// through a page of its own, or by a "processing" page that refreshes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hop {
    Direct,
    Redirect(u16),
    Refresh(u64),
}

/// The review step after the card form: its controls' order and how they
/// are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Review {
    /// Back comes before Confirm.
    pub back_first: bool,
    /// `<input type="submit">` rather than `<button>`.
    pub inputs: bool,
}

/// A fault of the target's, added to a conforming composition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageFault {
    /// A card not enrolled in 3-D Secure, paid, lands on the failure page
    /// (PAGE-01).
    CardLandsOnFailure,
    /// After the issuer's authentication, the buyer lands on the failure
    /// page (PAGE-02).
    IssuerLandsOnFailure,
    /// The alternative method, approved, lands on the failure page (PAGE-03).
    MethodLandsOnFailure,
    /// The method's approval page answers this HTTP error status (PAGE-03).
    ApprovalError(u16),
}

/// The kinds of fault, in the order the fixed seeds cover them.
pub const PAGE_FAULTS: usize = 4;

impl PageFault {
    /// The requirement the fault breaks.
    pub fn requirement(self) -> &'static str {
        match self {
            Self::CardLandsOnFailure => "PAGE-01",
            Self::IssuerLandsOnFailure => "PAGE-02",
            Self::MethodLandsOnFailure | Self::ApprovalError(_) => "PAGE-03",
        }
    }
}

/// A payment page composed from a seed: what [`super::page_server`] serves.
#[derive(Clone, Debug)]
pub struct PagePay {
    pub seed: u64,
    pub style: Style,
    /// The input names of the card fields: number, expiry (joined) or
    /// month and year (split), security code, name.
    pub number: &'static str,
    pub expiry: Expiry,
    pub cvv: &'static str,
    pub holder: &'static str,
    pub language: Language,
    pub review: Option<Review>,
    pub offer: Offer,
    /// The approval page's input for the method's PIN.
    pub pin: &'static str,
    /// Approve before Decline on the approval page.
    pub approve_first: bool,
    /// How the page opens from its address.
    pub entry: Hop,
    /// How the buyer is sent on after the card (or the review) and after
    /// the approval.
    pub out: Hop,
    /// How long each of the page's own answers takes, in milliseconds.
    pub delay_ms: u64,
    /// Whether the hosted fields come from a second origin (a second
    /// loopback address), as real payment pages serve them to keep card
    /// data out of the shop's page: in a browser, each a frame of its own
    /// process.
    pub elsewhere: bool,
    pub fault: Option<PageFault>,
}

/// How the page asks for the expiry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expiry {
    Joined(&'static str),
    Split(&'static str, &'static str),
}

/// The PIN the approval page takes.
pub const PIN: &str = "2468";

impl PagePay {
    /// The conforming page of `seed`, with `fault` when one is given.
    pub fn compose(seed: u64, fault: Option<usize>) -> Self {
        let mut draw = Draw::new(seed ^ 0x5041_4745);
        let style = match draw.below(4) {
            0 | 1 => Style::Full,
            2 => Style::Overlay {
                inside: draw.one_in(2),
            },
            _ => Style::HostedFields,
        };
        let expiry = if draw.one_in(2) {
            Expiry::Joined(draw.pick(&["expiry", "cc-exp", "exp"]))
        } else {
            let (month, year) = draw.pick(&[
                ("expMonth", "expYear"),
                ("exp_month", "exp_year"),
                ("month", "year"),
            ]);
            Expiry::Split(month, year)
        };
        let language = draw.pick(&Language::ALL);
        let review = (!draw.one_in(3)).then(|| Review {
            back_first: draw.one_in(2),
            inputs: draw.one_in(2),
        });
        let hop = |draw: &mut Draw| match draw.below(4) {
            0 | 1 => Hop::Direct,
            2 => Hop::Redirect(draw.pick(&[302, 303])),
            _ => Hop::Refresh(draw.pick(&[0, 1])),
        };
        let mut page = Self {
            seed,
            style,
            number: draw.pick(&["cardNumber", "pan", "number", "cc-number"]),
            expiry,
            cvv: draw.pick(&["cvv", "csc", "cvc", "securityCode"]),
            holder: draw.pick(&["holder", "cardholder", "name"]),
            language,
            review,
            offer: draw.pick(&[Offer::Link, Offer::Button, Offer::ChoicePage]),
            pin: draw.pick(&["pin", "walletPin", "passcode"]),
            approve_first: draw.one_in(2),
            entry: hop(&mut draw),
            out: hop(&mut draw),
            delay_ms: draw.pick(&[0, 0, 0, 200, 500, 1000]),
            elsewhere: draw.one_in(2),
            fault: None,
        };
        page.fault = fault.map(|kind| match kind % PAGE_FAULTS {
            0 => PageFault::CardLandsOnFailure,
            1 => PageFault::IssuerLandsOnFailure,
            2 => PageFault::MethodLandsOnFailure,
            _ => PageFault::ApprovalError(draw.pick(&[400, 403, 404, 500, 502, 503])),
        });
        page
    }

    /// Whether only a browser gets through the page: a frame the buyer
    /// must work in, or fields that tell the page their values by script.
    pub fn needs_script(&self) -> bool {
        self.style != Style::Full
    }

    /// The target file's `[acs]` body and `[payment_page]` section for
    /// `driver`, the page at `base`.
    pub fn target(&self, base: &str, driver: &str) -> String {
        let expiry = match self.expiry {
            Expiry::Joined(name) => format!("expiry = \"{name}\""),
            Expiry::Split(month, year) => {
                format!("exp_month = \"{month}\", exp_year = \"{year}\"")
            }
        };
        format!(
            "driver = \"{driver}\"\nfields = {{ otp = \"123456\" }}\n\
             [payment_page]\naddress = \"{base}/zp/start?token={{paymentToken}}&shop={{shopLogin}}\"\n\
             fields = {{ number = \"{}\", {expiry}, cvv = \"{}\", name = \"{}\" }}\n\
             [payment_page.alternative]\nchoose = \"#zoo-method\"\nfields = {{ {} = \"{PIN}\" }}\n",
            self.number, self.cvv, self.holder, self.pin
        )
    }
}

/// The words of the page's controls in `language`: pay, the review's
/// title, confirm and back, the method's offer, continue, approve and
/// decline.
pub struct Words {
    pub pay: &'static str,
    pub review: &'static str,
    pub confirm: &'static str,
    pub back: &'static str,
    pub method: &'static str,
    pub more: &'static str,
    pub go_on: &'static str,
    pub approve: &'static str,
    pub decline: &'static str,
}

/// The page's words in `language`.
pub fn words(language: Language) -> Words {
    match language {
        Language::English => Words {
            pay: "Pay 10.00 EUR",
            review: "Review your payment",
            confirm: "Confirm and pay",
            back: "Back",
            method: "Pay with ZooWallet",
            more: "Other ways to pay",
            go_on: "Continue",
            approve: "Approve payment",
            decline: "Decline",
        },
        Language::Italian => Words {
            pay: "Paga 10,00 EUR",
            review: "Riepilogo del pagamento",
            confirm: "Conferma e paga",
            back: "Indietro",
            method: "Paga con ZooWallet",
            more: "Altri metodi di pagamento",
            go_on: "Continua",
            approve: "Autorizza il pagamento",
            decline: "Rifiuta",
        },
        Language::German => Words {
            pay: "10,00 EUR bezahlen",
            review: "Zahlung prüfen",
            confirm: "Bestätigen und bezahlen",
            back: "Zurück",
            method: "Mit ZooWallet bezahlen",
            more: "Andere Zahlungsarten",
            go_on: "Weiter",
            approve: "Zahlung freigeben",
            decline: "Ablehnen",
        },
        Language::French => Words {
            pay: "Payer 10,00 EUR",
            review: "Vérifiez votre paiement",
            confirm: "Confirmer et payer",
            back: "Retour",
            method: "Payer avec ZooWallet",
            more: "Autres moyens de paiement",
            go_on: "Continuer",
            approve: "Valider le paiement",
            decline: "Refuser",
        },
        Language::Spanish => Words {
            pay: "Pagar 10,00 EUR",
            review: "Revise su pago",
            confirm: "Confirmar y pagar",
            back: "Volver",
            method: "Pagar con ZooWallet",
            more: "Otros medios de pago",
            go_on: "Continuar",
            approve: "Autorizar el pago",
            decline: "Rechazar",
        },
    }
}

impl fmt::Display for PagePay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let style = match self.style {
            Style::Full => "full page".to_owned(),
            Style::Overlay { inside } => format!(
                "overlay, 3-D Secure {}",
                if inside { "inside" } else { "outside" }
            ),
            Style::HostedFields => "hosted fields".to_owned(),
        };
        let expiry = match self.expiry {
            Expiry::Joined(name) => format!("{name} (MM/YY)"),
            Expiry::Split(month, year) => format!("{month} + {year}"),
        };
        write!(
            f,
            "seed {}: {style}, {:?}, fields {} {expiry} {} {}, ",
            self.seed, self.language, self.number, self.cvv, self.holder
        )?;
        match self.review {
            Some(review) => write!(
                f,
                "review ({}, {}), ",
                if review.back_first {
                    "back first"
                } else {
                    "confirm first"
                },
                if review.inputs { "inputs" } else { "buttons" }
            )?,
            None => write!(f, "no review, ")?,
        }
        write!(
            f,
            "method as {:?} (PIN {}, {}), entry {:?}, out {:?}, {} ms a page, frames {}",
            self.offer,
            self.pin,
            if self.approve_first {
                "approve first"
            } else {
                "decline first"
            },
            self.entry,
            self.out,
            self.delay_ms,
            if self.elsewhere {
                "from a second origin"
            } else {
                "from the page's origin"
            }
        )?;
        if let Some(fault) = self.fault {
            write!(f, "; fault: {fault:?}")?;
        }
        Ok(())
    }
}
