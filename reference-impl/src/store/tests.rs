//! The store's own tests: tokens and IDs, lifetimes, what is remembered
//! and swept.

use super::*;
use crate::money::{Amount, Currency};

fn new_payment() -> NewPayment {
    NewPayment {
        merchant: 0,
        amount: Amount::parse("1.00").expect("valid"),
        currency: Currency::parse("EUR").expect("valid"),
        shop_transaction_id: "order-1".into(),
        lifetime: None,
        redirects: None,
    }
}

#[test]
fn created_payments_get_distinct_tokens_and_twelve_digit_ids() {
    let store = PaymentStore::new(Duration::from_secs(60));
    let (t1, id1) = store.create(new_payment());
    let (t2, id2) = store.create(new_payment());
    assert_ne!(t1, t2);
    assert_ne!(id1, id2);
    assert_eq!(id1.to_string().len(), 12);
    assert_eq!(store.len(), 2);
}

#[test]
fn a_payment_past_its_lifetime_is_expired_while_remembered_then_swept() {
    let store = PaymentStore::remembering(Duration::ZERO, Duration::from_millis(40));
    let (token, _) = store.create(new_payment());
    let never_issued = Uuid::new_v4();
    assert_eq!(
        store.with_payment(&token, |p| p.id),
        Err(NoSuchPayment::Expired)
    );
    assert_eq!(
        store.with_payment(&never_issued, |p| p.id),
        Err(NoSuchPayment::Unknown)
    );
    assert_eq!(store.sweep(), 0, "remembered, so kept");
    std::thread::sleep(Duration::from_millis(60));
    assert_eq!(
        store.with_payment(&token, |p| p.id),
        Err(NoSuchPayment::Unknown)
    );
    assert_eq!(store.sweep(), 1);
    assert_eq!(store.len(), 0);
}

#[test]
fn a_payment_given_its_own_lifetime_expires_by_it_and_not_by_the_store_s() {
    let store = PaymentStore::remembering(Duration::from_secs(60), Duration::from_secs(60));
    let (short, _) = store.create(NewPayment {
        lifetime: Some(Duration::ZERO),
        redirects: None,
        ..new_payment()
    });
    let (long, long_id) = store.create(new_payment());
    assert_eq!(
        store.with_payment(&short, |p| p.id),
        Err(NoSuchPayment::Expired)
    );
    assert_eq!(store.with_payment(&long, |p| p.id), Ok(long_id));
    let store = PaymentStore::remembering(Duration::ZERO, Duration::from_secs(60));
    let (outliving, id) = store.create(NewPayment {
        lifetime: Some(Duration::from_secs(60)),
        redirects: None,
        ..new_payment()
    });
    assert_eq!(store.with_payment(&outliving, |p| p.id), Ok(id));
}

#[test]
fn a_payment_is_found_by_its_id_until_it_is_swept() {
    let store = PaymentStore::remembering(Duration::ZERO, Duration::ZERO);
    let (token, id) = store.create(new_payment());
    assert_eq!(store.token_of(id), Some(token));
    assert_eq!(store.sweep(), 1);
    assert_eq!(store.token_of(id), None);
}

#[test]
fn a_live_payment_survives_the_sweep() {
    let store = PaymentStore::new(Duration::from_secs(60));
    let (token, id) = store.create(new_payment());
    assert_eq!(store.sweep(), 0);
    assert_eq!(store.with_payment(&token, |p| p.id), Ok(id));
}

#[test]
fn a_submitted_payment_outlives_its_token_lifetime() {
    let store = PaymentStore::remembering(Duration::from_millis(30), Duration::ZERO);
    let (submitted, id) = store.create(new_payment());
    let (waiting, _) = store.create(new_payment());
    store
        .with_payment(&submitted, |p| store.keep_submitted(p))
        .expect("live when submitted");
    std::thread::sleep(Duration::from_millis(60));
    assert_eq!(
        store.with_payment(&waiting, |p| p.id),
        Err(NoSuchPayment::Unknown)
    );
    assert_eq!(store.with_payment(&submitted, |p| p.id), Ok(id));
    assert_eq!(store.sweep(), 1, "only the unsubmitted payment is swept");
}
