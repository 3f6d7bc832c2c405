//! The reference implementation under concurrency: a token pays once however
//! many submits race for it, and concurrent creates never share a token or
//! an ID.

use crate::support;

use payconf_reference::{DEFAULT_FRICTIONLESS_CARD, DEFAULT_THREE_DS_CARD};
use std::{collections::HashSet, sync::Arc};

use support::{Sandbox, submit_body};
use tokio::{sync::Semaphore, task::JoinSet};

const FRICTIONLESS: &str = DEFAULT_FRICTIONLESS_CARD;
const THREE_DS: &str = DEFAULT_THREE_DS_CARD;

/// Submits the same token `n` times at once; returns (executed, refused with 1137).
async fn race_submits(sandbox: &Arc<Sandbox>, card: &str, n: usize) -> (usize, usize, Vec<String>) {
    let (token, _) = sandbox.create().await;
    let start = Arc::new(tokio::sync::Barrier::new(n));
    let mut submits = JoinSet::new();
    for _ in 0..n {
        let sandbox = Arc::clone(sandbox);
        let token = token.clone();
        let start = Arc::clone(&start);
        let card = card.to_owned();
        submits.spawn(async move {
            start.wait().await;
            sandbox.submit_with(Some(&token), &submit_body(&card)).await
        });
    }
    let (mut executed, mut refused, mut other) = (0, 0, Vec::new());
    while let Some(answer) = submits.join_next().await {
        let answer = answer.expect("a submit task finishes");
        match (answer.status.as_u16(), answer.code()) {
            (200, "0") => executed += 1,
            (400, "1137") => refused += 1,
            (status, code) => other.push(format!("{status} {code}")),
        }
    }
    (executed, refused, other)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_hundred_concurrent_submits_of_one_token_execute_one_payment() {
    let sandbox = Arc::new(Sandbox::start().await);
    for card in [FRICTIONLESS, THREE_DS] {
        let (executed, refused, other) = race_submits(&sandbox, card, 200).await;
        assert_eq!(executed, 1, "{card}: payments executed");
        assert_eq!(
            refused, 199,
            "{card}: refusals as already processed; others: {other:?}"
        );
        assert!(other.is_empty(), "{other:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn ten_thousand_concurrent_creates_get_distinct_tokens_and_ids() {
    let sandbox = Arc::new(Sandbox::start().await);
    let in_flight = Arc::new(Semaphore::new(256));
    let mut creates = JoinSet::new();
    for _ in 0..10_000 {
        let sandbox = Arc::clone(&sandbox);
        let in_flight = Arc::clone(&in_flight);
        creates.spawn(async move {
            let _permit = in_flight.acquire_owned().await.expect("open");
            sandbox.create().await
        });
    }
    let (mut tokens, mut ids) = (HashSet::new(), HashSet::new());
    while let Some(created) = creates.join_next().await {
        let (token, id) = created.expect("a create task finishes");
        assert!(tokens.insert(token.clone()), "token {token} issued twice");
        assert!(ids.insert(id.clone()), "paymentID {id} issued twice");
    }
    assert_eq!((tokens.len(), ids.len()), (10_000, 10_000));
}
