//! The ledger's rules, one by one.

use super::*;

fn amount(text: &str) -> Amount {
    Amount::parse(text).expect("an amount")
}

#[test]
fn a_unified_shop_settles_by_itself_when_due_and_refunds_up_to_the_settled_amount() {
    let unified = Settlement::Unified { delay_ms: 1000 };
    let mut ledger = Ledger::authorized(Ending::granted(None), amount("10.00"), unified, 5000);
    assert_eq!(ledger.state(), "AUT");
    assert!(!ledger.settle_due(amount("10.00"), 5999));
    assert_eq!(
        ledger.refund(amount("1.00"), Environment::Online, 5999),
        Err(NO_SETTLEMENT)
    );
    assert_eq!(
        ledger.capture(amount("10.00"), amount("10.00"), Environment::Online, 5999),
        Err(CANNOT_SETTLE),
        "a unified shop does not capture"
    );
    assert!(ledger.settle_due(amount("10.00"), 6000));
    assert_eq!(ledger.state(), "MOV");
    assert_eq!(ledger.events[1].at_ms, 6000);
    assert_eq!(ledger.events[1].environment, Environment::Batch);
    assert_eq!(
        ledger.refund(amount("4.00"), Environment::Online, 7000),
        Ok(())
    );
    assert_eq!(
        ledger.refund(amount("6.01"), Environment::Online, 7001),
        Err(ABOVE_BALANCE)
    );
    assert_eq!(
        ledger.refund(amount("6"), Environment::Online, 7002),
        Ok(())
    );
    assert_eq!(
        ledger.refund(amount("0.01"), Environment::Online, 7003),
        Err(ABOVE_BALANCE)
    );
    assert_eq!(ledger.state(), "STO");
    assert_eq!(ledger.events[2].referred, Some(2));
    assert_eq!(ledger.refunded_minor, 1000);
}

#[test]
fn a_separated_shop_captures_once_never_above_the_authorised_amount_or_cancels_before() {
    let mut ledger = Ledger::authorized(
        Ending::granted(None),
        amount("10.00"),
        Settlement::Separated,
        0,
    );
    assert!(!ledger.settle_due(amount("10.00"), u64::MAX));
    assert_eq!(
        ledger.capture(amount("10.01"), amount("10.00"), Environment::Online, 1),
        Err(ABOVE_AUTHORIZED)
    );
    assert_eq!(
        ledger.capture(amount("7.50"), amount("10.00"), Environment::Online, 2),
        Ok(())
    );
    assert_eq!(ledger.settled_minor, 750);
    assert_eq!(
        ledger.capture(amount("1.00"), amount("10.00"), Environment::Online, 3),
        Err(CANNOT_SETTLE)
    );
    assert_eq!(ledger.cancel(Environment::Online, 4), Err(CANNOT_DELETE));
    assert_eq!(
        ledger.refund(amount("7.51"), Environment::Online, 5),
        Err(ABOVE_BALANCE)
    );

    let mut cancelled = Ledger::authorized(
        Ending::granted(None),
        amount("10.00"),
        Settlement::Separated,
        0,
    );
    assert_eq!(cancelled.cancel(Environment::BackOffice, 1), Ok(()));
    assert_eq!(cancelled.state(), "CAN");
    assert_eq!(cancelled.cancel(Environment::Online, 2), Err(CANNOT_DELETE));
    assert_eq!(
        cancelled.capture(amount("1.00"), amount("10.00"), Environment::Online, 3),
        Err(CANNOT_SETTLE)
    );
    assert_eq!(
        cancelled.refund(amount("1.00"), Environment::Online, 4),
        Err(CANNOT_REFUND)
    );
}

#[test]
fn a_declined_payment_has_a_negative_authorization_and_nothing_after_it() {
    let mut ledger = Ledger::authorized(
        Ending::refused(crate::outcomes::DENIED, None),
        amount("10.00"),
        Settlement::Unified { delay_ms: 0 },
        0,
    );
    assert_eq!(ledger.state(), "AUT");
    assert_eq!(ledger.events[0].minor, 0);
    assert_eq!(ledger.refusal.as_deref(), Some("74"));
    assert!(!ledger.settle_due(amount("10.00"), 10));
    assert_eq!(
        ledger.capture(amount("1.00"), amount("10.00"), Environment::Online, 1),
        Err(NO_AUTHORIZATION)
    );
    assert_eq!(ledger.cancel(Environment::Online, 1), Err(NO_AUTHORIZATION));
    assert_eq!(
        ledger.refund(amount("1.00"), Environment::Online, 1),
        Err(CANNOT_REFUND)
    );
}

#[test]
fn each_event_after_the_authorization_is_taken_for_notification_once() {
    let mut ledger = Ledger::authorized(
        Ending::granted(None),
        amount("10.00"),
        Settlement::Separated,
        0,
    );
    assert!(ledger.take_unnotified().is_empty(), "AUT is the outcome's");
    ledger
        .capture(amount("10.00"), amount("10.00"), Environment::Online, 1)
        .expect("captured");
    ledger
        .refund(amount("1.00"), Environment::Online, 2)
        .expect("refunded");
    let kinds: Vec<_> = ledger.take_unnotified().iter().map(|e| e.kind).collect();
    assert_eq!(kinds, [EventType::Settled, EventType::Refunded]);
    assert!(ledger.take_unnotified().is_empty());
    // A ledger written before it was kept: everything counts as told.
    let mut old: Ledger = serde_json::from_str(
        r#"{"authorized":true,"settles_at_ms":null,"settled_minor":1000,
            "refunded_minor":0,"events":[]}"#,
    )
    .expect("an old ledger reads");
    assert_eq!(old.notified, u32::MAX);
    assert!(old.take_unnotified().is_empty());
}

#[test]
fn refunds_stop_at_the_ledgers_bound_and_are_refused_not_dropped() {
    let mut ledger = Ledger::authorized(
        Ending::granted(None),
        amount("10.00"),
        Settlement::Separated,
        0,
    );
    ledger
        .capture(amount("10.00"), amount("10.00"), Environment::Online, 1)
        .expect("captured");
    let mut taken = 0;
    while ledger
        .refund(amount("0.01"), Environment::Online, 2)
        .is_ok()
    {
        taken += 1;
    }
    assert_eq!(taken, MAX_MONEY_EVENTS - 2);
    assert_eq!(ledger.events.len(), MAX_MONEY_EVENTS);
    assert_eq!(
        ledger.refund(amount("0.01"), Environment::Online, 3),
        Err(CANNOT_REFUND)
    );
}
