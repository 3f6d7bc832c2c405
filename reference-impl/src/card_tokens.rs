//! Card tokens: how shops pay one-click and recurring payments
//! (docs/real-service.md, RS-CARD-TOKENS). A submit with
//! `creditcard.requestToken` or a `shop/token/` call asks for one; a later
//! submit pays with `creditcard.token` alone; `shop/token/{shopLogin}`
//! lists a shop's and deletes one.
//!
//! A token stands for a card without being it: the sandbox keeps the card's
//! masked number, its expiry and how the sandbox's test cards treat it (its
//! [`CardKind`], none for a card the sandbox does not know), never its
//! number or security code. A `MASKEDPAN` token keeps the number's first
//! six and last four digits around six random letters, as the real
//! service's example does (`541238AFAGHA1118`); any other `requestToken`
//! is the shop's own token. Ours, where the facts give the codes only: a
//! custom token is 16 letters and digits (1160 otherwise, 1162 for another
//! character), with at most ten digits so it can never be a card number
//! (1161), and names one card (1163 when the shop's token is another
//! card's); a token past its card's expiry pays nothing (1164); one the shop
//! does not hold is 1165. A shop holds at most [`MAX_TOKENS_PER_SHOP`]
//! tokens; asked for the same card again, it gets the token it has.

use std::collections::HashMap;

use parking_lot::Mutex;
use payconf_spec::card::CardKind;

use crate::card::{CardNumber, Expiry};

/// The most tokens one shop holds: a shop's runaway loop fills its own
/// share, never the sandbox's memory.
pub const MAX_TOKENS_PER_SHOP: usize = 1000;

/// The length of a token, standard or the shop's own.
pub const TOKEN_LEN: usize = 16;

/// `requestToken`'s value that asks for a standard token.
pub const MASKED_PAN: &str = "MASKEDPAN";

/// The card a token stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenCard {
    /// Its number, first six and last four digits.
    pub masked_pan: Box<str>,
    /// Its expiry.
    pub expiry: Expiry,
    /// How the sandbox's test cards treat it; `None`: not one of them.
    pub kind: Option<CardKind>,
}

impl TokenCard {
    /// The card `number` stands for, as `kinds` tells its treatment.
    pub fn of(number: &CardNumber, expiry: Expiry, kind: Option<CardKind>) -> Self {
        Self {
            masked_pan: number.masked().into(),
            expiry,
            kind,
        }
    }

    /// Its expiry month and year as the API writes them (`05`, `27`).
    pub fn expiry_words(&self) -> (String, String) {
        (
            format!("{:02}", self.expiry.month),
            format!("{:02}", self.expiry.year % 100),
        )
    }
}

/// Why a token was not issued or not used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// A custom token of another length than [`TOKEN_LEN`]: 1160.
    #[error("a custom token must be 16 characters")]
    Length,
    /// A custom token with more than ten digits: 1161.
    #[error("a custom token holds at most ten digits")]
    Digits,
    /// A custom token with another character than a letter or a digit: 1162.
    #[error("a custom token holds letters and digits only")]
    Characters,
    /// The shop's token is another card's: 1163.
    #[error("the token is another card's")]
    OtherCard,
    /// The token's card has expired: 1164.
    #[error("the token's card has expired")]
    Expired,
    /// The shop holds no such token: 1165.
    #[error("no such card token")]
    NotFound,
    /// The shop holds [`MAX_TOKENS_PER_SHOP`] tokens already.
    #[error("the shop holds 1000 card tokens: delete some first")]
    Full,
}

impl TokenError {
    /// The real service's code.
    pub fn code(self) -> &'static str {
        match self {
            Self::Length => "1160",
            Self::Digits => "1161",
            Self::Characters => "1162",
            Self::OtherCard => "1163",
            Self::Expired => "1164",
            Self::NotFound => "1165",
            Self::Full => "1105",
        }
    }
}

/// A token issued: `created` when it is new, `false` when the shop held it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issued {
    /// The token.
    pub token: Box<str>,
    /// The card it stands for.
    pub card: TokenCard,
    /// Whether it is new.
    pub created: bool,
}

/// Every shop's card tokens, by shop (its profile's index) and token.
#[derive(Debug, Default)]
pub struct CardTokens {
    shops: Mutex<HashMap<u32, HashMap<Box<str>, TokenCard>>>,
}

impl CardTokens {
    /// Issues the token `request` asks for (`MASKEDPAN`, or the shop's
    /// own) for `card` at `merchant`; the token the shop holds for the same
    /// card when it asks for a standard one.
    pub fn issue(&self, merchant: u32, request: &str, card: TokenCard) -> Result<Issued, TokenError> {
        let mut shops = self.shops.lock();
        let tokens = shops.entry(merchant).or_default();
        let token: Box<str> = if request == MASKED_PAN {
            if let Some((token, _)) = tokens.iter().find(|(_, held)| same_card(held, &card)) {
                let token = token.clone();
                tokens.insert(token.clone(), card.clone());
                return Ok(Issued {
                    token,
                    card,
                    created: false,
                });
            }
            standard_token(&card.masked_pan, |t| tokens.contains_key(t))
        } else {
            check_custom(request)?;
            match tokens.get(request) {
                Some(held) if !same_card(held, &card) => return Err(TokenError::OtherCard),
                _ => request.into(),
            }
        };
        let created = !tokens.contains_key(&token);
        if created && tokens.len() >= MAX_TOKENS_PER_SHOP {
            return Err(TokenError::Full);
        }
        tokens.insert(token.clone(), card.clone());
        Ok(Issued {
            token,
            card,
            created,
        })
    }

    /// The card `token` stands for at `merchant`, when it may still pay
    /// (`today`: year and month).
    pub fn card(&self, merchant: u32, token: &str, today: (u16, u8)) -> Result<TokenCard, TokenError> {
        let card = self
            .shops
            .lock()
            .get(&merchant)
            .and_then(|tokens| tokens.get(token))
            .cloned()
            .ok_or(TokenError::NotFound)?;
        if (card.expiry.year, card.expiry.month) < today {
            return Err(TokenError::Expired);
        }
        Ok(card)
    }

    /// A shop's tokens, in the order of their names.
    pub fn list(&self, merchant: u32) -> Vec<(Box<str>, TokenCard)> {
        let mut tokens: Vec<_> = self
            .shops
            .lock()
            .get(&merchant)
            .map(|tokens| {
                tokens
                    .iter()
                    .map(|(token, card)| (token.clone(), card.clone()))
                    .collect()
            })
            .unwrap_or_default();
        tokens.sort_by(|a, b| a.0.cmp(&b.0));
        tokens
    }

    /// Deletes a shop's token.
    pub fn delete(&self, merchant: u32, token: &str) -> Result<(), TokenError> {
        self.shops
            .lock()
            .get_mut(&merchant)
            .and_then(|tokens| tokens.remove(token))
            .map(drop)
            .ok_or(TokenError::NotFound)
    }

    /// Puts back a token read from the data file.
    pub fn restore(&self, merchant: u32, token: Box<str>, card: TokenCard) {
        self.shops
            .lock()
            .entry(merchant)
            .or_default()
            .insert(token, card);
    }
}

/// Whether two tokens stand for the same card: the same masked number and
/// treatment (the sandbox keeps nothing more of a card to tell them apart).
fn same_card(a: &TokenCard, b: &TokenCard) -> bool {
    a.masked_pan == b.masked_pan && a.kind == b.kind
}

/// A standard token for a card: its first six digits, six random capital
/// letters, its last four (`541238AFAGHA1118`), drawn again while `taken`.
fn standard_token(masked_pan: &str, taken: impl Fn(&str) -> bool) -> Box<str> {
    let digits: Vec<char> = masked_pan.chars().filter(char::is_ascii_digit).collect();
    let (first, last) = (
        digits.iter().take(6).collect::<String>(),
        digits.iter().rev().take(4).collect::<Vec<_>>(),
    );
    let last: String = last.into_iter().rev().collect();
    loop {
        let random = uuid::Uuid::new_v4();
        let middle: String = random.as_bytes()[..6]
            .iter()
            .map(|byte| char::from(b'A' + byte % 26))
            .collect();
        let token = format!("{first}{middle}{last}");
        if !taken(&token) {
            return token.into();
        }
    }
}

/// A shop's own token, checked ([`TokenError`]'s first three).
fn check_custom(token: &str) -> Result<(), TokenError> {
    if !token.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(TokenError::Characters);
    }
    if token.len() != TOKEN_LEN {
        return Err(TokenError::Length);
    }
    if token.bytes().filter(u8::is_ascii_digit).count() > 10 {
        return Err(TokenError::Digits);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(number: &str, kind: Option<CardKind>) -> TokenCard {
        TokenCard::of(
            &CardNumber::parse(number).expect("a card"),
            Expiry {
                year: 2099,
                month: 5,
            },
            kind,
        )
    }

    #[test]
    fn a_standard_token_keeps_the_first_six_and_last_four_digits_and_is_issued_once_a_card() {
        let tokens = CardTokens::default();
        let visa = card("4775718800002026", Some(CardKind::NotEnrolled));
        let issued = tokens.issue(0, MASKED_PAN, visa.clone()).expect("issued");
        assert!(issued.created);
        assert_eq!(issued.token.len(), TOKEN_LEN);
        assert!(issued.token.starts_with("477571") && issued.token.ends_with("2026"));
        assert!(issued.token[6..12].bytes().all(|b| b.is_ascii_uppercase()));
        let again = tokens.issue(0, MASKED_PAN, visa.clone()).expect("issued");
        assert_eq!((again.token.clone(), again.created), (issued.token.clone(), false));
        // Another shop's tokens are its own.
        assert_eq!(
            tokens.card(1, &issued.token, (2026, 1)),
            Err(TokenError::NotFound)
        );
        assert_eq!(tokens.card(0, &issued.token, (2026, 1)), Ok(visa));
        assert_eq!(
            tokens.card(0, &issued.token, (2100, 1)),
            Err(TokenError::Expired)
        );
        tokens.delete(0, &issued.token).expect("deleted");
        assert_eq!(tokens.delete(0, &issued.token), Err(TokenError::NotFound));
    }

    #[test]
    fn a_custom_token_is_sixteen_letters_and_digits_with_at_most_ten_digits_for_one_card() {
        let tokens = CardTokens::default();
        let visa = card("4775718800002026", Some(CardKind::NotEnrolled));
        let master = card("5412388800004012", Some(CardKind::Challenge));
        for (token, error) in [
            ("SHORT", TokenError::Length),
            ("ABCDEFGHIJKLMNOPQ", TokenError::Length),
            ("4775718800002026", TokenError::Digits),
            ("CUSTOMER-0000042", TokenError::Characters),
        ] {
            assert_eq!(tokens.issue(0, token, visa.clone()), Err(error), "{token}");
        }
        let issued = tokens.issue(0, "CUSTOMER00000042", visa.clone()).expect("issued");
        assert_eq!(&*issued.token, "CUSTOMER00000042");
        assert_eq!(
            tokens.issue(0, "CUSTOMER00000042", master),
            Err(TokenError::OtherCard)
        );
    }

    #[test]
    fn a_shop_holds_a_bounded_number_of_tokens() {
        let tokens = CardTokens::default();
        for i in 0..MAX_TOKENS_PER_SHOP {
            tokens
                .issue(0, &format!("SHOPAB{i:010}"), card("4775718800002026", None))
                .expect("room");
        }
        assert_eq!(
            tokens.issue(0, "SHOPZZZZZZZZZZZZ", card("4775718800002026", None)),
            Err(TokenError::Full)
        );
        assert!(tokens.issue(1, "SHOPZZZZZZZZZZZZ", card("4775718800002026", None)).is_ok());
    }
}
