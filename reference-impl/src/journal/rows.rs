//! The data file's rows: a profile, a payment, a notification owed; each
//! made from the sandbox's own value, written with one statement, and read
//! back when the sandbox starts.

use payconf_spec::card::CardKind;
use rusqlite::{Connection, Row, Transaction};
use serde::{Deserialize, Serialize};
use url::Url;
use uuid::Uuid;

use super::file::{BadRow, Unreadable};
use crate::{
    config::Merchant,
    ledger::{Ledger, Settlement},
    money::{Amount, Currency},
    outbox::Delivery,
    outcomes::Challenge,
    profiles::{Profile, SavedProfile},
    secrets::{KeyDigest, PasswordHash},
    card::Expiry,
    card_tokens::TokenCard,
    store::{Buyer, BuyerRedirects, Payment, PaymentState, Trail},
    timeline::{Channel, Event},
};

/// What a data file held when the sandbox started.
#[derive(Debug, Default)]
pub struct Restored {
    /// The key its API keys' digests are made with.
    pub digest_key: [u8; 32],
    /// The profiles as last saved.
    pub profiles: Vec<SavedProfile>,
    /// The payments, with their shop logins and when they expire.
    pub payments: Vec<SavedPayment>,
    /// The notifications still owed, with their shop logins (their
    /// `merchant` index is set once the login is resolved).
    pub notifications: Vec<(String, Delivery)>,
    /// The shops' card tokens, with their shop logins.
    pub card_tokens: Vec<(String, Box<str>, TokenCard)>,
}

/// A payment read back.
#[derive(Debug)]
pub struct SavedPayment {
    /// Its token.
    pub token: Uuid,
    /// Its merchant's shop login (the payment's `merchant` index is set
    /// once the login is resolved).
    pub shop_login: String,
    /// When its token stops working, in milliseconds since the Unix epoch.
    pub expires_unix_ms: u64,
    /// The payment.
    pub payment: Payment,
}

/// A profile's row: its key as a digest, its password as a hash.
#[derive(Debug)]
pub struct ProfileRow {
    merchant: Merchant,
    key: String,
    password: Option<String>,
}

impl ProfileRow {
    pub fn of(profile: &Profile) -> Self {
        Self {
            merchant: profile.merchant.clone(),
            key: profile.key.stored(),
            password: profile
                .password
                .as_ref()
                .map(|p| p.hash().as_str().to_owned()),
        }
    }

    pub fn write(&self, transaction: &Transaction<'_>) -> rusqlite::Result<()> {
        let m = &self.merchant;
        transaction
            .prepare_cached(
                "INSERT OR REPLACE INTO profiles (shop_login, api_key, success_url, failure_url, \
                 notification_url, signing_secret, password, settlement, settlement_delay_ms) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?
            .execute(rusqlite::params![
                &m.shop_login,
                &self.key,
                &m.success_url,
                &m.failure_url,
                m.notification_url.as_ref().map(Url::as_str),
                &m.signing_secret,
                &self.password,
                m.settlement.name(),
                match m.settlement {
                    Settlement::Unified { delay_ms } => millis(delay_ms),
                    Settlement::Separated => 0,
                },
            ])?;
        Ok(())
    }
}

/// The buyer's addresses of a payment, as the data file keeps them.
#[derive(Debug, Serialize, Deserialize)]
struct Redirects {
    ok: Option<Url>,
    ko: Option<Url>,
    framed_by: Option<String>,
    notification: Option<Url>,
    /// Written since the notification address is kept with the payment;
    /// absent from older files, where it is `false`.
    #[serde(default)]
    unnotified: bool,
}

/// A payment's row.
#[derive(Debug)]
pub struct PaymentRow {
    token: String,
    payment_id: i64,
    shop_login: String,
    amount: String,
    currency: String,
    shop_transaction_id: String,
    state: &'static str,
    created_ms: i64,
    expires_ms: i64,
    masked_pan: Option<String>,
    redirects: Option<String>,
    channel: Option<&'static str>,
    authenticated: Option<bool>,
    events: String,
    ledger: Option<String>,
    challenge: Option<&'static str>,
    buyer: Option<String>,
    card_token: Option<String>,
}

/// A payment's card token, as its row keeps it.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct PaymentCardToken {
    token: String,
    month: u8,
    year: u16,
}

impl PaymentRow {
    pub fn of(token: &Uuid, payment: &Payment, shop_login: &str, expires_unix_ms: u64) -> Self {
        let redirects = payment.buyer_redirects.as_deref().map(|r| {
            serde_json::to_string(&Redirects {
                ok: r.ok.clone(),
                ko: r.ko.clone(),
                framed_by: r.framed_by.as_deref().map(str::to_owned),
                notification: r.notification.clone(),
                unnotified: r.unnotified,
            })
            .unwrap_or_default()
        });
        Self {
            token: token.hyphenated().to_string(),
            payment_id: i64::try_from(payment.id).unwrap_or(i64::MAX),
            shop_login: shop_login.to_owned(),
            amount: payment.amount.to_string(),
            currency: payment.currency.code().to_owned(),
            shop_transaction_id: payment.shop_transaction_id.to_string(),
            state: state_name(payment.state),
            created_ms: millis(payment.created_ms()),
            expires_ms: millis(expires_unix_ms),
            masked_pan: payment.masked_pan.as_deref().map(str::to_owned),
            redirects,
            channel: payment.channel().map(Channel::name),
            authenticated: payment.authenticated(),
            events: serde_json::to_string(payment.events()).unwrap_or_else(|_| "[]".to_owned()),
            ledger: payment
                .ledger()
                .and_then(|ledger| serde_json::to_string(ledger).ok()),
            challenge: payment
                .trail
                .as_ref()
                .and_then(|t| t.challenge)
                .map(Challenge::name),
            buyer: payment
                .trail
                .as_ref()
                .and_then(|t| t.buyer.as_ref())
                .and_then(|buyer| serde_json::to_string(buyer).ok()),
            card_token: payment
                .trail
                .as_ref()
                .and_then(|t| t.card_token.as_ref())
                .and_then(|(token, expiry)| {
                    serde_json::to_string(&PaymentCardToken {
                        token: token.to_string(),
                        month: expiry.month,
                        year: expiry.year,
                    })
                    .ok()
                }),
        }
    }

    pub fn write(&self, transaction: &Transaction<'_>) -> rusqlite::Result<()> {
        transaction
            .prepare_cached(
                "INSERT OR REPLACE INTO payments (token, payment_id, shop_login, amount, currency, \
                 shop_transaction_id, state, created_ms, expires_ms, masked_pan, redirects, channel, \
                 authenticated, events, ledger, challenge, buyer, card_token) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, \
                 ?17, ?18)",
            )?
            .execute(rusqlite::params![
                self.token,
                self.payment_id,
                self.shop_login,
                self.amount,
                self.currency,
                self.shop_transaction_id,
                self.state,
                self.created_ms,
                self.expires_ms,
                self.masked_pan,
                self.redirects,
                self.channel,
                self.authenticated,
                self.events,
                self.ledger,
                self.challenge,
                self.buyer,
                self.card_token,
            ])?;
        Ok(())
    }
}

/// A notification owed, as a row.
#[derive(Debug)]
pub struct NotificationRow {
    event_id: String,
    token: String,
    shop_login: String,
    url: String,
    body: Vec<u8>,
    owed_since_ms: i64,
    attempts: u32,
}

impl NotificationRow {
    pub fn of(delivery: &Delivery, shop_login: &str) -> Self {
        Self {
            event_id: delivery.event_id.hyphenated().to_string(),
            token: delivery.token.hyphenated().to_string(),
            shop_login: shop_login.to_owned(),
            url: delivery.url.to_string(),
            body: delivery.body.to_vec(),
            owed_since_ms: millis(delivery.owed_since_ms),
            attempts: delivery.attempts,
        }
    }

    pub fn write(&self, transaction: &Transaction<'_>) -> rusqlite::Result<()> {
        transaction
            .prepare_cached(
                "INSERT OR REPLACE INTO notifications (event_id, token, shop_login, url, body, \
                 owed_since_ms, attempts) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute((
                &self.event_id,
                &self.token,
                &self.shop_login,
                &self.url,
                &self.body,
                self.owed_since_ms,
                self.attempts,
            ))?;
        Ok(())
    }
}

/// A card token's row.
#[derive(Debug)]
pub struct CardTokenRow {
    shop_login: String,
    token: String,
    masked_pan: String,
    exp_month: u8,
    exp_year: u16,
    kind: Option<&'static str>,
}

impl CardTokenRow {
    pub fn of(shop_login: &str, token: &str, card: &TokenCard) -> Self {
        Self {
            shop_login: shop_login.to_owned(),
            token: token.to_owned(),
            masked_pan: card.masked_pan.to_string(),
            exp_month: card.expiry.month,
            exp_year: card.expiry.year,
            kind: card.kind.map(CardKind::name),
        }
    }

    pub fn write(&self, transaction: &Transaction<'_>) -> rusqlite::Result<()> {
        transaction
            .prepare_cached(
                "INSERT OR REPLACE INTO card_tokens (shop_login, token, masked_pan, exp_month, \
                 exp_year, kind) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute((
                &self.shop_login,
                &self.token,
                &self.masked_pan,
                self.exp_month,
                self.exp_year,
                self.kind,
            ))?;
        Ok(())
    }
}

fn card_token(row: &Row<'_>) -> Read<(String, Box<str>, TokenCard)> {
    let shop_login: String = row.get(0)?;
    let token: String = row.get(1)?;
    let kind: Option<String> = row.get(5)?;
    let kind = match kind {
        None => None,
        Some(name) => match CardKind::ALL.into_iter().find(|k| k.name() == name) {
            Some(kind) => Some(kind),
            None => return Ok(Err(BadRow(format!("card token {token}: kind unreadable")))),
        },
    };
    let card = TokenCard {
        masked_pan: row.get::<_, String>(2)?.into_boxed_str(),
        expiry: Expiry {
            month: row.get(3)?,
            year: row.get(4)?,
        },
        kind,
    };
    Ok(Ok((shop_login, token.into_boxed_str(), card)))
}

/// Reads back everything the file holds.
pub fn read(connection: &Connection) -> Result<Restored, Unreadable> {
    Ok(Restored {
        digest_key: super::file::digest_key(connection).map_err(|error| Unreadable::Table {
            table: "secrets",
            error,
        })?,
        profiles: all(
            connection,
            "profiles",
            "SELECT shop_login, api_key, success_url, failure_url, notification_url, \
             signing_secret, password, settlement, settlement_delay_ms FROM profiles",
            profile,
        )?,
        payments: all(
            connection,
            "payments",
            "SELECT token, payment_id, shop_login, amount, currency, shop_transaction_id, state, \
             created_ms, expires_ms, masked_pan, redirects, channel, authenticated, events, \
             ledger, challenge, buyer, card_token FROM payments ORDER BY payment_id",
            payment,
        )?,
        card_tokens: all(
            connection,
            "card_tokens",
            "SELECT shop_login, token, masked_pan, exp_month, exp_year, kind FROM card_tokens \
             ORDER BY shop_login, token",
            card_token,
        )?,
        notifications: all(
            connection,
            "notifications",
            "SELECT event_id, token, shop_login, url, body, owed_since_ms, attempts \
             FROM notifications ORDER BY owed_since_ms",
            notification,
        )?,
    })
}

/// Every row a query gives, each read with `read`; the first that cannot
/// be read stops it, named with `table`.
fn all<T>(
    connection: &Connection,
    table: &'static str,
    sql: &str,
    read: fn(&Row<'_>) -> Read<T>,
) -> Result<Vec<T>, Unreadable> {
    let failed = |error: rusqlite::Error| Unreadable::Table { table, error };
    let mut statement = connection.prepare(sql).map_err(failed)?;
    let rows = statement.query_map([], read).map_err(failed)?;
    let mut found = Vec::new();
    for row in rows {
        found.push(
            row.map_err(failed)?
                .map_err(|row| Unreadable::Row { table, row })?,
        );
    }
    Ok(found)
}

type Read<T> = rusqlite::Result<Result<T, BadRow>>;

fn profile(row: &Row<'_>) -> Read<SavedProfile> {
    let notification: Option<String> = row.get(4)?;
    let notification_url = match notification.map(|u| Url::parse(&u)) {
        None => None,
        Some(Ok(url)) => Some(url),
        Some(Err(e)) => {
            return Ok(Err(BadRow(format!(
                "a profile's notification address: {e}"
            ))));
        }
    };
    let settlement: String = row.get(7)?;
    let delay_ms: i64 = row.get(8)?;
    let settlement = match (settlement.as_str(), u64::try_from(delay_ms)) {
        ("unified", Ok(delay_ms)) => Settlement::Unified { delay_ms },
        ("separated", _) => Settlement::Separated,
        _ => {
            return Ok(Err(BadRow(format!(
                "a profile's settlement mode {settlement:?}"
            ))));
        }
    };
    // A file written before keys and passwords were kept digested holds
    // them in plain text: they are digested as the profile is made, and
    // the row written again at once.
    let api_key: String = row.get(1)?;
    let key = KeyDigest::parse_stored(&api_key);
    let password: Option<String> = row.get(6)?;
    let hash = password.as_deref().and_then(PasswordHash::parse);
    Ok(Ok(SavedProfile {
        merchant: Merchant {
            shop_login: row.get(0)?,
            api_key: if key.is_some() {
                String::new()
            } else {
                api_key
            },
            success_url: row.get(2)?,
            failure_url: row.get(3)?,
            notification_url,
            signing_secret: row.get(5)?,
            password: if hash.is_some() { None } else { password },
            settlement,
        },
        key,
        password: hash,
    }))
}

fn payment(row: &Row<'_>) -> Read<SavedPayment> {
    let token: String = row.get(0)?;
    let shop_login: String = row.get(2)?;
    let amount: String = row.get(3)?;
    let currency: String = row.get(4)?;
    let state: String = row.get(6)?;
    let redirects: Option<String> = row.get(10)?;
    let channel: Option<String> = row.get(11)?;
    let events: String = row.get(13)?;
    let bad = |what: &str| Ok(Err(BadRow(format!("payment {token}: {what}"))));
    let (Ok(parsed_token), Ok(amount), Some(currency), Some(state)) = (
        Uuid::try_parse(&token),
        Amount::parse(&amount),
        Currency::parse(&currency),
        state_of(&state),
    ) else {
        return bad("token, amount, currency or state unreadable");
    };
    let Ok(events) = serde_json::from_str::<Vec<Event>>(&events) else {
        return bad("timeline unreadable");
    };
    let ledger: Option<String> = row.get(14)?;
    let ledger = match ledger.map(|l| serde_json::from_str::<Ledger>(&l)) {
        None => None,
        Some(Ok(ledger)) => Some(ledger),
        Some(Err(_)) => return bad("money unreadable"),
    };
    let buyer_redirects = match redirects.map(|r| serde_json::from_str::<Redirects>(&r)) {
        None => None,
        Some(Ok(r)) => Some(Box::new(BuyerRedirects {
            ok: r.ok,
            ko: r.ko,
            framed_by: r.framed_by.map(String::into_boxed_str),
            notification: r.notification,
            unnotified: r.unnotified,
        })),
        Some(Err(_)) => return bad("buyer addresses unreadable"),
    };
    let channel = match channel.as_deref().map(Channel::from_name) {
        None => None,
        Some(Some(channel)) => Some(channel),
        Some(None) => return bad("channel unreadable"),
    };
    let challenge: Option<String> = row.get(15)?;
    let challenge = match challenge.as_deref().map(Challenge::from_name) {
        None => None,
        Some(Some(challenge)) => Some(challenge),
        Some(None) => return bad("challenge unreadable"),
    };
    let buyer: Option<String> = row.get(16)?;
    let buyer = match buyer.map(|b| serde_json::from_str::<Buyer>(&b)) {
        None => None,
        Some(Ok(buyer)) => Some(buyer),
        Some(Err(_)) => return bad("buyer unreadable"),
    };
    let card_token: Option<String> = row.get(17)?;
    let card_token = match card_token.map(|t| serde_json::from_str::<PaymentCardToken>(&t)) {
        None => None,
        Some(Ok(t)) => Some((
            t.token.into_boxed_str(),
            Expiry {
                year: t.year,
                month: t.month,
            },
        )),
        Some(Err(_)) => return bad("card token unreadable"),
    };
    let payment_id: i64 = row.get(1)?;
    let created_ms: i64 = row.get(7)?;
    let expires_ms: i64 = row.get(8)?;
    let masked_pan: Option<String> = row.get(9)?;
    let shop_transaction_id: String = row.get(5)?;
    Ok(Ok(SavedPayment {
        token: parsed_token,
        shop_login,
        expires_unix_ms: u64::try_from(expires_ms).unwrap_or(0),
        payment: Payment {
            id: u64::try_from(payment_id).unwrap_or(0),
            merchant: 0,
            amount,
            currency,
            shop_transaction_id: shop_transaction_id.into(),
            state,
            expires_at_ms: 0,
            masked_pan: masked_pan.map(String::into_boxed_str),
            buyer_redirects,
            created_us: u64::try_from(created_ms).unwrap_or(0).saturating_mul(1000),
            trail: Some(Box::new(Trail {
                channel,
                authenticated: row.get(12)?,
                challenge,
                token_reads: 0,
                events,
                ledger,
                buyer,
                card_token,
            })),
        },
    }))
}

fn notification(row: &Row<'_>) -> Read<(String, Delivery)> {
    let event_id: String = row.get(0)?;
    let token: String = row.get(1)?;
    let url: String = row.get(3)?;
    let body: Vec<u8> = row.get(4)?;
    let owed_since_ms: i64 = row.get(5)?;
    let (Ok(event_id), Ok(token), Ok(url)) = (
        Uuid::try_parse(&event_id),
        Uuid::try_parse(&token),
        Url::parse(&url),
    ) else {
        return Ok(Err(BadRow(format!("notification {event_id}: unreadable"))));
    };
    Ok(Ok((
        row.get(2)?,
        Delivery {
            event_id,
            token,
            merchant: 0,
            url,
            body: body.into(),
            owed_since_ms: u64::try_from(owed_since_ms).unwrap_or(0),
            attempts: row.get(6)?,
        },
    )))
}

fn state_name(state: PaymentState) -> &'static str {
    match state {
        PaymentState::Created => "created",
        PaymentState::AwaitingAuthentication => "awaiting-authentication",
        PaymentState::AwaitingMethod => "awaiting-method",
        PaymentState::Authorized => "authorized",
        PaymentState::Declined => "declined",
    }
}

fn state_of(name: &str) -> Option<PaymentState> {
    [
        PaymentState::Created,
        PaymentState::AwaitingAuthentication,
        PaymentState::AwaitingMethod,
        PaymentState::Authorized,
        PaymentState::Declined,
    ]
    .into_iter()
    .find(|s| state_name(*s) == name)
}

fn millis(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}
