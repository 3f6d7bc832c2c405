//! The methods the sandbox's buyers pay with, by the names the API and
//! the hosted page's address give them (`paymentType`): the card, by the
//! real service's name (`CREDITCARD`), and the sandbox's wallet, the
//! alternative method approved by redirect (`WALLET`, ours: the real
//! service names its own methods, `PAYPAL`, `MYBANK`, …).

/// One method the sandbox offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// A card, on the hosted page's card form.
    Card,
    /// The sandbox's wallet.
    Wallet,
}

impl Method {
    /// Every method, as the lists give them.
    pub const ALL: [Self; 2] = [Self::Card, Self::Wallet];

    /// Its type's name (`paymentType`).
    pub fn payment_type(self) -> &'static str {
        match self {
            Self::Card => "CREDITCARD",
            Self::Wallet => "WALLET",
        }
    }

    /// Its name, for the buyer.
    pub fn name(self) -> &'static str {
        match self {
            Self::Card => "Credit card",
            Self::Wallet => "Sandbox wallet",
        }
    }

    /// The method of a `paymentType`, whatever its case and spaces around it.
    pub fn of_type(payment_type: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|method| {
            method
                .payment_type()
                .eq_ignore_ascii_case(payment_type.trim())
        })
    }
}
