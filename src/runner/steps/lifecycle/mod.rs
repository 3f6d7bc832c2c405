//! The payment's life after submit (`@lifecycle`, reference profile): a
//! payment paid at one of the target's shops (`[lifecycle]`: the one that
//! settles by itself, or the one that waits for the merchant's capture),
//! then captured, cancelled and refunded as the real service's clients do
//! (here), and read with `payment/detail` ([`detail`]).
//!
//! Readings written down (docs/readings.md): `events` is taken flat or
//! with each item wrapped as `{"event": {...}}`, as the real service's two
//! documents write it; an operation the payment does not allow is refused
//! either way a server may say it, with the envelope's `error.code` or with
//! `error.code "0"`, `transactionResult "KO"` and the code in
//! `transactionErrorCode`, as long as the code is one of the real
//! service's for that refusal.

use cucumber::{given, then, when};
use payconf_spec::transaction::TransactionResult;
use serde_json::{Value, json};

use super::{
    card::{CardChoice, card, submit_body, submit_request},
    payment::{create_at, shown},
};
use crate::runner::{
    exchange::RecordedRequest,
    merchant,
    target_file::{LifecycleSettings, SettlementMode, ShopKey},
    world::{Failure, LifecyclePayment, PaymentWorld, Settled},
};

/// This file: its steps pay with card data (see [`super::CARD_DATA_DEFINITIONS`]).
pub const DEFINED_IN: &str = file!();

pub(super) mod detail;
mod methods;
mod outcome;
mod races;

pub use methods::DEFINED_IN as METHODS_DEFINED_IN;
pub use races::DEFINED_IN as RACES_DEFINED_IN;

pub(super) fn lifecycle(world: &PaymentWorld) -> Result<&LifecycleSettings, Failure> {
    world
        .target()
        .lifecycle
        .as_ref()
        .ok_or_else(|| Failure::plain("the target to declare [lifecycle]"))
}

/// The lifecycle payment of the scenario.
pub(super) fn paid(world: &PaymentWorld) -> Result<&LifecyclePayment, Failure> {
    world
        .lifecycle
        .as_ref()
        .ok_or_else(|| Failure::plain("a payment paid earlier in the scenario"))
}

/// An amount in hundredths, as the API writes it.
pub(super) fn written(minor: u64) -> String {
    format!("{}.{:02}", minor / 100, minor % 100)
}

/// An amount as the API writes it, in hundredths: digits, then a dot and
/// one or two digits, or none.
pub(super) fn hundredths(text: &str) -> Option<u64> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let (units, decimals) = match text.split_once('.') {
        Some((units, decimals)) if digits(decimals) => (units, decimals),
        Some(_) => return None,
        None => (text, ""),
    };
    if !digits(units) || decimals.len() > 2 {
        return None;
    }
    let units: u64 = units.parse().ok()?;
    let cents: u64 = format!("{decimals:0<2}").parse().ok()?;
    units.checked_mul(100)?.checked_add(cents)
}

/// The login and API key of `mode`'s shop (the target's own when `None`).
fn shop_at(world: &PaymentWorld, mode: Option<SettlementMode>) -> Result<ShopKey, Failure> {
    let target = world.target();
    Ok(match mode {
        None => ShopKey {
            shop_login: target.shop_login.clone(),
            api_key: target.api_key.clone(),
        },
        Some(mode) => {
            let shop = lifecycle(world)?.shop(mode).ok_or_else(|| {
                Failure::plain(format!(
                    "the target to name a shop that settles \"{}\"",
                    mode.name()
                ))
            })?;
            ShopKey {
                shop_login: shop.shop_login.clone(),
                api_key: shop
                    .api_key
                    .clone()
                    .unwrap_or_else(|| target.api_key.clone()),
            }
        }
    })
}

/// Creates a payment at `mode`'s shop (the target's own when `None`) and
/// pays it with `choice`, as the merchant's server does: create with the
/// shop's key, submit under the token.
pub(super) async fn pay_at(
    world: &mut PaymentWorld,
    mode: Option<SettlementMode>,
    choice: CardChoice,
) -> Result<(), Failure> {
    let target = world.target().clone();
    let shop = shop_at(world, mode)?;
    let amount = hundredths(&target.amount).ok_or_else(|| {
        Failure::plain(format!(
            "the target's amount to be written with a dot and at most two decimals, not {:?}",
            target.amount
        ))
    })?;
    world.shop = Some(shop.clone());
    let (token, payment_id, reference) = create_at(world).await?;
    let card = card(world, choice.0)?.clone();
    let submit = submit_body(world, &card);
    let request = submit_request(world, Some(&token), submit.to_string().into_bytes());
    let answer = world.receive("submitPayment", request).await?;
    let result = answer.at("/payload/transactionResult").cloned();
    if answer.str_at("/error/code") != Some("0")
        || result.as_ref().and_then(Value::as_str) != Some(TransactionResult::Ok.word())
    {
        return Err(world.failure(
            "a paid submit: error.code \"0\", transactionResult \"OK\"",
            &shown(result.as_ref()),
        ));
    }
    world.lifecycle = Some(LifecyclePayment {
        shop_login: shop.shop_login,
        api_key: shop.api_key,
        payment_id,
        shop_transaction_id: reference,
        amount,
        settled: 0,
        refunded: 0,
        last_amount: None,
    });
    Ok(())
}

#[given(expr = "a payment paid with {card}")]
async fn a_paid_payment(world: &mut PaymentWorld, choice: CardChoice) -> Result<(), Settled> {
    let checked = pay_at(world, None, choice).await;
    world.settle(checked)
}

#[given(expr = "a payment paid with {card} at the shop that settles separately")]
async fn a_paid_payment_separated(
    world: &mut PaymentWorld,
    choice: CardChoice,
) -> Result<(), Settled> {
    let checked = pay_at(world, Some(SettlementMode::Separated), choice).await;
    world.settle(checked)
}

#[given(expr = "a payment paid with {card} at the shop that settles by itself")]
async fn a_paid_payment_unified(
    world: &mut PaymentWorld,
    choice: CardChoice,
) -> Result<(), Settled> {
    let checked = pay_at(world, Some(SettlementMode::Unified), choice).await;
    world.settle(checked)
}

/// An operation after submit on the scenario's payment.
#[derive(Clone, Copy)]
pub(super) enum Operation {
    Capture,
    Cancel,
    Refund,
}

/// How much an operation asks for.
#[derive(Clone, Copy)]
pub(super) enum Portion {
    /// Half the payment's amount (at least 0.01).
    Part,
    /// All of it.
    Whole,
    /// 0.01 more than the payment's amount.
    MoreThanTheAmount,
    /// 0.01 more than what is left of the settled money.
    MoreThanIsLeft,
    /// What is left of the settled money.
    WhatIsLeft,
}

impl Operation {
    /// The spec's operation.
    pub(super) fn id(self) -> &'static str {
        match self {
            Self::Capture => "capturePayment",
            Self::Cancel => "cancelPayment",
            Self::Refund => "refundPayment",
        }
    }

    /// Its path, as the real service's documentation writes it.
    fn path(self) -> &'static str {
        match self {
            Self::Capture => "/api/v1/payment/capture/",
            Self::Cancel => "/api/v1/payment/cancel/",
            Self::Refund => "/api/v1/payment/refund/",
        }
    }
}

/// The request of `operation` on the scenario's payment, with its shop's
/// key, naming it by `paymentID` and `shopTransactionID`; `amount` (in
/// hundredths) in the target's currency, for a capture or a refund.
pub(super) fn operation_request(
    world: &PaymentWorld,
    operation: Operation,
    amount: Option<u64>,
) -> Result<RecordedRequest, Failure> {
    let payment = paid(world)?;
    let target = world.target();
    let mut body = json!({
        "shopLogin": payment.shop_login,
        "paymentID": payment.payment_id,
        "shopTransactionID": payment.shop_transaction_id,
    });
    if let Some(amount) = amount {
        body["amount"] = json!(written(amount));
        body["currency"] = json!(target.currency);
    }
    let path = lifecycle(world)?.path(operation.path());
    Ok(merchant::keyed_post(
        target.api_url(&path),
        &payment.api_key,
        body.to_string(),
    ))
}

pub(super) async fn operate(
    world: &mut PaymentWorld,
    operation: Operation,
    portion: Option<Portion>,
) -> Result<(), Failure> {
    let payment = paid(world)?.clone();
    let left = payment.settled.saturating_sub(payment.refunded);
    let amount = portion.map(|portion| match portion {
        Portion::Part => (payment.amount / 2).max(1),
        Portion::Whole => payment.amount,
        Portion::MoreThanTheAmount => payment.amount + 1,
        Portion::MoreThanIsLeft => left + 1,
        Portion::WhatIsLeft => left,
    });
    let request = operation_request(world, operation, amount)?;
    let answer = world.receive(operation.id(), request).await?;
    let done = answer.str_at("/error/code") == Some("0")
        && answer.str_at("/payload/transactionResult") == Some(TransactionResult::Ok.word());
    if let (true, Some(state)) = (done, world.lifecycle.as_mut()) {
        let amount = amount.unwrap_or(0);
        match operation {
            Operation::Capture => state.settled = amount,
            Operation::Refund => state.refunded += amount,
            Operation::Cancel => {}
        }
        state.last_amount = Some(amount);
    }
    Ok(())
}

macro_rules! operation_step {
    ($name:ident, $text:literal, $operation:expr, $portion:expr) => {
        #[when($text)]
        async fn $name(world: &mut PaymentWorld) -> Result<(), Settled> {
            let checked = operate(world, $operation, $portion).await;
            world.settle(checked)
        }
    };
}

operation_step!(
    captures_part,
    "the merchant captures part of the payment",
    Operation::Capture,
    Some(Portion::Part)
);
operation_step!(
    captures_whole,
    "the merchant captures the whole payment",
    Operation::Capture,
    Some(Portion::Whole)
);
operation_step!(
    captures_too_much,
    "the merchant captures more than the payment's amount",
    Operation::Capture,
    Some(Portion::MoreThanTheAmount)
);
operation_step!(
    cancels,
    "the merchant cancels the payment",
    Operation::Cancel,
    None
);
operation_step!(
    refunds_part,
    "the merchant refunds part of the payment",
    Operation::Refund,
    Some(Portion::Part)
);
operation_step!(
    refunds_whole,
    "the merchant refunds the whole payment",
    Operation::Refund,
    Some(Portion::Whole)
);
operation_step!(
    refunds_too_much,
    "the merchant refunds more than is left of the payment",
    Operation::Refund,
    Some(Portion::MoreThanIsLeft)
);
operation_step!(
    refunds_the_rest,
    "the merchant refunds what is left of the payment",
    Operation::Refund,
    Some(Portion::WhatIsLeft)
);

#[then("the operation is done")]
fn operation_done(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        let code = answer.str_at("/error/code");
        let result = answer.str_at("/payload/transactionResult");
        if code != Some("0") || result != Some(TransactionResult::Ok.word()) {
            return Err(world.failure(
                "error.code \"0\" and transactionResult \"OK\"",
                &format!(
                    "error.code {}, transactionResult {}, transactionErrorCode {}",
                    shown(answer.at("/error/code")),
                    shown(answer.at("/payload/transactionResult")),
                    shown(answer.at("/payload/transactionErrorCode")),
                ),
            ));
        }
        Ok(())
    })
}

/// The refusal's code, either way a server may say it: the envelope's, or
/// `transactionErrorCode` beside `transactionResult "KO"`.
fn refusal_code(answer: &crate::runner::world::Answer) -> Option<&str> {
    match answer.str_at("/error/code") {
        Some("0")
            if answer.str_at("/payload/transactionResult")
                == Some(TransactionResult::Ko.word()) =>
        {
            answer.str_at("/payload/transactionErrorCode")
        }
        Some("0") | None => None,
        Some(code) => Some(code),
    }
}

#[then(expr = "the operation is refused with one of the codes {string}")]
fn operation_refused(world: &mut PaymentWorld, codes: String) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        let allowed: Vec<&str> = codes.split(',').map(str::trim).collect();
        match refusal_code(answer) {
            Some(code) if allowed.contains(&code) => Ok(()),
            found => Err(world.failure(
                &format!(
                    "a refusal with one of the codes {} (error.code, or transactionResult \"KO\" \
                     with transactionErrorCode)",
                    allowed.join(", ")
                ),
                &match found {
                    Some(code) => format!("code {code:?}"),
                    None => format!(
                        "no refusal: error.code {}, transactionResult {}",
                        shown(answer.at("/error/code")),
                        shown(answer.at("/payload/transactionResult")),
                    ),
                },
            )),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_read_in_hundredths_as_the_api_writes_them() {
        assert_eq!(hundredths("10.00"), Some(1000));
        assert_eq!(hundredths("72.5"), Some(7250));
        assert_eq!(hundredths("100"), Some(10_000));
        for text in ["", "1.234", "1,00", "-1", ".5", "1."] {
            assert_eq!(hundredths(text), None, "{text:?}");
        }
        assert_eq!(written(7250), "72.50");
    }
}
