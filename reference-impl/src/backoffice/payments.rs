//! The merchant's payments, newest first and filterable by state, and each
//! payment's timeline. Cards are shown as the service keeps them: first
//! six and last four digits.

use std::{cmp::Reverse, collections::BinaryHeap};

use http::{Response, StatusCode};

use super::{SignedIn, money, page, when};
use crate::{
    pages::escape,
    paths::BACK_OFFICE_PATH,
    state::{Body, Service},
    store::{Payment, PaymentState},
    timeline::{Channel, Event, What},
};

/// The most payments one list shows.
const MAX_ROWS: usize = 200;

/// The states the list filters by: the query value and its label.
const FILTERS: [(&str, &str); 6] = [
    ("", "All payments"),
    ("paid", "Paid"),
    ("declined", "Declined"),
    (
        "awaiting-authentication",
        "Waiting for issuer authentication",
    ),
    ("awaiting-method", "Waiting for the alternative method"),
    ("created", "Created, not yet paid"),
];

/// One payment as the back-office shows it.
#[derive(Debug)]
struct Row {
    id: u64,
    /// Orders the rows: IDs are random.
    created_us: u64,
    created_ms: u64,
    shop_transaction_id: String,
    amount: String,
    currency: String,
    masked_pan: String,
    outcome: String,
    events: Vec<Event>,
}

impl Row {
    fn of(payment: &Payment) -> Self {
        Self {
            id: payment.id,
            created_us: payment.created_us,
            created_ms: payment.created_ms(),
            shop_transaction_id: payment.shop_transaction_id.to_string(),
            amount: payment.amount.to_string(),
            currency: payment.currency.code().to_owned(),
            masked_pan: payment.masked_pan.as_deref().unwrap_or("").to_owned(),
            outcome: outcome(payment),
            events: Vec::new(),
        }
    }
}

/// `GET`: the merchant's payments, newest first; `?state=` filters.
pub fn list(service: &Service, signed_in: &SignedIn<'_>, query: Option<&str>) -> Response<Body> {
    let wanted = query
        .into_iter()
        .flat_map(|q| form_urlencoded::parse(q.as_bytes()))
        .find(|(name, _)| name == "state")
        .map(|(_, value)| value.into_owned())
        .unwrap_or_default();
    let Some(&(wanted, wanted_label)) = FILTERS.iter().find(|(value, _)| *value == wanted) else {
        return page(
            StatusCode::BAD_REQUEST,
            "Payments",
            Some(signed_in),
            &format!(
                r#"<p class="problem">There is no such state to filter by. <a href="{BACK_OFFICE_PATH}/payments">All payments</a>.</p>"#
            ),
        );
    };
    let merchant = signed_in.session.merchant;
    let (rows, total) = newest(service, |p| {
        p.merchant == merchant && (wanted.is_empty() || filter_of(p.state) == wanted)
    });
    let options: String = FILTERS
        .iter()
        .map(|(value, label)| {
            let selected = if *value == wanted { " selected" } else { "" };
            format!(r#"<option value="{value}"{selected}>{label}</option>"#)
        })
        .collect();
    let body: String = rows
        .iter()
        .map(|row| {
            format!(
                r#"<tr><td>{created}</td><td><a href="{BACK_OFFICE_PATH}/payments/{id}">{id}</a></td><td>{reference}</td><td class="num">{amount}</td><td>{currency}</td><td>{card}</td><td>{outcome}</td></tr>"#,
                created = when(row.created_ms),
                id = row.id,
                reference = escape(&row.shop_transaction_id),
                amount = escape(&row.amount),
                currency = escape(&row.currency),
                card = escape(&row.masked_pan),
                outcome = escape(&row.outcome),
            )
        })
        .collect();
    let shown = if total > rows.len() {
        format!("The newest {} of {total} payments.", rows.len())
    } else {
        format!("{total} payment{}.", if total == 1 { "" } else { "s" })
    };
    let table = if rows.is_empty() {
        "<p>No payment yet. Create one with <code>payment/create</code> and this shop's API key.</p>".to_owned()
    } else {
        format!(
            r#"<table>
<caption>{caption}. {shown}</caption>
<thead><tr><th scope="col">Created (UTC)</th><th scope="col">Payment ID</th><th scope="col">Shop transaction ID</th><th scope="col">Amount</th><th scope="col">Currency</th><th scope="col">Card</th><th scope="col">Outcome</th></tr></thead>
<tbody>
{body}
</tbody>
</table>"#,
            caption = escape(wanted_label),
        )
    };
    let main = format!(
        r#"<form method="get" action="{BACK_OFFICE_PATH}/payments">
<label for="state">State</label>
<select id="state" name="state">{options}</select>
<button type="submit">Filter</button>
</form>
{table}"#
    );
    page(StatusCode::OK, "Payments", Some(signed_in), &main)
}

/// The newest [`MAX_ROWS`] payments `matches` keeps, newest first, and how
/// many it keeps in all. Payment IDs count up, so the highest is the
/// newest; a heap of the newest so far means that of a sandbox's million
/// payments only the few that may be shown are copied out, and nothing is
/// sorted but them.
fn newest(service: &Service, matches: impl Fn(&Payment) -> bool) -> (Vec<Row>, usize) {
    let mut kept: BinaryHeap<Reverse<NewestFirst>> = BinaryHeap::with_capacity(MAX_ROWS + 1);
    let mut total = 0;
    service.store.for_each(|_, p| {
        if !matches(p) {
            return;
        }
        total += 1;
        let older_than_all_kept = kept.len() == MAX_ROWS
            && kept
                .peek()
                .is_some_and(|Reverse(oldest)| p.created_us < oldest.0.created_us);
        if !older_than_all_kept {
            kept.push(Reverse(NewestFirst(Row::of(p))));
            if kept.len() > MAX_ROWS {
                kept.pop();
            }
        }
    });
    let mut rows: Vec<Row> = kept.into_iter().map(|Reverse(row)| row.0).collect();
    rows.sort_unstable_by_key(|row| Reverse(row.created_us));
    (rows, total)
}

/// A row ordered by its payment's creation.
#[derive(Debug)]
struct NewestFirst(Row);

impl PartialEq for NewestFirst {
    fn eq(&self, other: &Self) -> bool {
        self.0.created_us == other.0.created_us
    }
}

impl Eq for NewestFirst {}

impl PartialOrd for NewestFirst {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for NewestFirst {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.created_us.cmp(&other.0.created_us)
    }
}

/// `GET`: one payment and its timeline.
pub fn detail(service: &Service, signed_in: &SignedIn<'_>, id: &str) -> Response<Body> {
    show(service, signed_in, id, None)
}

/// A payment's page, with what came of a money button when one was pressed.
pub fn show(
    service: &Service,
    signed_in: &SignedIn<'_>,
    id: &str,
    outcome: Option<&money::Outcome>,
) -> Response<Body> {
    let merchant = signed_in.session.merchant;
    let now = crate::timeline::now_ms();
    let found = id
        .parse::<u64>()
        .ok()
        .and_then(|id| service.store.token_of(id))
        .and_then(|token| {
            service
                .store
                .with_payment(&token, |p| {
                    (p.merchant == merchant).then(|| {
                        crate::notify::money_now(service, &token, p, now);
                        let mut row = Row::of(p);
                        row.events = p.events().to_vec();
                        (row, p.ledger().cloned())
                    })
                })
                .ok()
                .flatten()
        });
    let Some((row, ledger)) = found else {
        return page(
            StatusCode::NOT_FOUND,
            "Payment not found",
            Some(signed_in),
            &format!(
                r#"<p>This shop has no payment with this ID. <a href="{BACK_OFFICE_PATH}/payments">All payments</a>.</p>"#
            ),
        );
    };
    let mut timeline = vec![format!(
        "<li><time>{}</time>: created by <code>payment/create</code>.</li>",
        when(row.created_ms)
    )];
    timeline.extend(row.events.iter().map(|event| {
        format!(
            "<li><time>{}</time>: {}</li>",
            when(event.at_ms),
            describe(&event.what)
        )
    }));
    let main = format!(
        r#"<dl>
<dt>Payment ID</dt><dd>{id}</dd>
<dt>Shop transaction ID</dt><dd>{reference}</dd>
<dt>Amount</dt><dd>{amount} {currency}</dd>
<dt>Card</dt><dd>{card}</dd>
<dt>Outcome</dt><dd>{outcome}</dd>
</dl>
{money}
<h2>Timeline (UTC)</h2>
<ol class="timeline">
{timeline}
</ol>
<p><a href="{BACK_OFFICE_PATH}/payments">All payments</a></p>"#,
        money = money::section(
            signed_in,
            row.id,
            ledger.as_ref(),
            service.merchant(merchant).merchant.settlement,
            outcome,
        ),
        id = row.id,
        reference = escape(&row.shop_transaction_id),
        amount = escape(&row.amount),
        currency = escape(&row.currency),
        card = if row.masked_pan.is_empty() {
            "none".to_owned()
        } else {
            escape(&row.masked_pan)
        },
        outcome = escape(&row.outcome),
        timeline = timeline.join("\n"),
    );
    page(
        StatusCode::OK,
        &format!("Payment {}", row.id),
        Some(signed_in),
        &main,
    )
}

/// The filter a state falls under.
fn filter_of(state: PaymentState) -> &'static str {
    match state {
        PaymentState::Created => "created",
        PaymentState::AwaitingAuthentication => "awaiting-authentication",
        PaymentState::AwaitingMethod => "awaiting-method",
        PaymentState::Authorized => "paid",
        PaymentState::Declined => "declined",
    }
}

/// A payment's outcome in words.
fn outcome(payment: &Payment) -> String {
    let by = match payment.channel() {
        Some(Channel::PaymentPage) => " on the payment page",
        Some(Channel::Alternative) => " by an alternative method",
        Some(Channel::Submit) | None => "",
    };
    let issuer = match payment.authenticated() {
        Some(true) => ", authenticated by the issuer",
        Some(false) => ", issuer authentication failed",
        None => "",
    };
    match payment.state {
        PaymentState::Created => "created, not yet paid".to_owned(),
        PaymentState::AwaitingAuthentication => "waiting for issuer authentication".to_owned(),
        PaymentState::AwaitingMethod => {
            "waiting for the buyer at the alternative method".to_owned()
        }
        PaymentState::Authorized => format!("paid{by}{issuer}"),
        PaymentState::Declined => format!("declined{by}{issuer}"),
    }
}

/// A timeline event in words, escaped.
fn describe(what: &What) -> String {
    match what {
        What::Paid {
            channel,
            masked_pan,
            answer,
        } => {
            let how = match channel {
                Channel::Submit => "submitted by <code>payment/submit</code>",
                Channel::PaymentPage => "entered on the payment page",
                Channel::Alternative => "taken by the alternative method",
            };
            let result = match answer.as_ref() {
                "OK" => "authorized (OK)".to_owned(),
                "KO" => "declined (KO)".to_owned(),
                code => format!("the issuer's authentication is needed ({})", escape(code)),
            };
            format!("card {} {how}: {result}.", escape(masked_pan))
        }
        What::SubmitRefused { code } => format!(
            "a <code>payment/submit</code> was refused with error code {}.",
            escape(code)
        ),
        What::IssuerPageShown => {
            "the issuer's authentication page was shown to the buyer.".to_owned()
        }
        What::IssuerAnswered {
            authenticated: true,
        } => "the buyer authenticated with the issuer.".to_owned(),
        What::IssuerAnswered {
            authenticated: false,
        } => "the buyer did not authenticate with the issuer (wrong code or cancelled).".to_owned(),
        What::MethodChosen => {
            "the buyer chose the alternative method on the payment page.".to_owned()
        }
        What::MethodDecided { approved } => format!(
            "the buyer {} the payment at the alternative method.",
            if *approved { "approved" } else { "refused" }
        ),
        What::BuyerSent { to } => format!("the buyer was sent to <code>{}</code>.", escape(to)),
        What::Notification {
            event_id,
            attempt,
            to,
            answer,
            delivered,
        } => format!(
            "notification {event_id}, attempt {attempt}, posted to <code>{}</code>: {} ({}).",
            escape(to),
            escape(answer),
            if *delivered {
                "delivered"
            } else {
                "not delivered"
            }
        ),
        What::NotificationDelayed { event_id, attempt } => format!(
            "notification {event_id}, attempt {attempt}: delayed by the receiver \
             (its earlier notifications were still waiting for an answer)."
        ),
        What::NotificationAbandoned { event_id } => {
            format!("notification {event_id} abandoned: its retry time ran out.")
        }
        What::Truncated => "later events were not kept (too many for one payment).".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        config::ReferenceConfig,
        money::{Amount, Currency},
        store::NewPayment,
    };

    #[test]
    fn the_list_keeps_the_newest_payments_newest_first_and_counts_them_all() {
        let service = Service::new(
            ReferenceConfig::default(),
            crate::site::Site::new(
                ([127, 0, 0, 1], 1).into(),
                false,
                url::Url::parse("http://127.0.0.1:1/").expect("valid"),
            ),
        )
        .expect("a service");
        // Created in this order: the list shows the newest first, whatever
        // their random IDs.
        let ids: Vec<u64> = (0..MAX_ROWS + 57)
            .map(|n| {
                service
                    .store
                    .create(NewPayment {
                        merchant: 0,
                        amount: Amount::parse("1.00").expect("valid"),
                        currency: Currency::parse("EUR").expect("valid"),
                        shop_transaction_id: format!("order-{n}").into(),
                    })
                    .1
            })
            .collect();
        let (rows, total) = newest(&service, |_| true);
        assert_eq!(total, MAX_ROWS + 57);
        let shown: Vec<u64> = rows.iter().map(|r| r.id).collect();
        let mut expected = ids.clone();
        expected.reverse();
        expected.truncate(MAX_ROWS);
        assert_eq!(shown, expected);
        let (none, zero) = newest(&service, |_| false);
        assert!(none.is_empty());
        assert_eq!(zero, 0);
    }
}
