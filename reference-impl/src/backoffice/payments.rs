//! The merchant's payments, newest first and filterable by state, and each
//! payment's timeline. Cards are shown as the service keeps them: first
//! six and last four digits.

use payconf_spec::transaction::TransactionResult;
use std::{cmp::Reverse, collections::BinaryHeap};

use http::{Response, StatusCode};

use super::{
    SignedIn,
    list_query::{Asked, FILTERS, MAX_PAGE, MAX_SEARCH, PER_PAGE, SOURCES},
    money, page, when,
};
use crate::{
    ledger::Ledger,
    pages::escape,
    paths::BACK_OFFICE_PATH,
    state::{Body, Service},
    store::{Payment, PaymentState},
    timeline::{Channel, Event, What},
};

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

/// `GET`: the merchant's payments, newest first, a page at a time;
/// filtered by state and searched by payment ID or shop transaction ID.
pub fn list(service: &Service, signed_in: &SignedIn<'_>, query: Option<&str>) -> Response<Body> {
    let asked = match Asked::of(query) {
        Ok(asked) => asked,
        Err(problem) => {
            return page(
                StatusCode::BAD_REQUEST,
                "Payments",
                Some(signed_in),
                &format!(
                    r#"<p class="problem">{problem} <a href="{BACK_OFFICE_PATH}/payments">All payments</a>.</p>"#
                ),
            );
        }
    };
    let merchant = signed_in.session.merchant;
    let (rows, total) = newest(service, asked.page * PER_PAGE, |p| {
        p.merchant == merchant && asked.keeps(p)
    });
    let skipped = (asked.page - 1) * PER_PAGE;
    let rows: Vec<&Row> = rows.iter().skip(skipped).collect();
    let options = select_options(FILTERS.as_slice(), asked.state);
    let sources = select_options(SOURCES.as_slice(), asked.source);
    let body: String = rows.iter().map(|row| row.html()).collect();
    let shown = how_many(rows.len(), skipped, total);
    let pages = page_links(&asked, skipped + rows.len() < total);
    let unfiltered = asked.search.is_empty() && asked.state.is_empty() && asked.source.is_empty();
    let table = if rows.is_empty() && total == 0 && unfiltered {
        "<p>No payment yet. Create one with <code>payment/create</code> and this shop's API key.</p>".to_owned()
    } else if rows.is_empty() {
        format!("<p>{}</p>", escape(&shown))
    } else {
        format!(
            r#"<table>
<caption>{caption}. {shown}</caption>
<thead><tr><th scope="col">Created (UTC)</th><th scope="col">Payment ID</th><th scope="col">Shop transaction ID</th><th scope="col">Amount</th><th scope="col">Currency</th><th scope="col">Card</th><th scope="col">Outcome</th></tr></thead>
<tbody>
{body}
</tbody>
</table>
{pages}"#,
            caption = escape(asked.label),
        )
    };
    let main = format!(
        r#"<form method="get" action="{BACK_OFFICE_PATH}/payments">
<label for="state">State</label>
<select id="state" name="state">{options}</select>
<label for="source">Whose</label>
<select id="source" name="source">{sources}</select>
<label for="q">Payment ID or shop transaction ID</label>
<input id="q" name="q" type="text" maxlength="{MAX_SEARCH}" value="{search}">
<button type="submit">Show</button>
</form>
{table}"#,
        search = escape(&asked.search),
    );
    page(StatusCode::OK, "Payments", Some(signed_in), &main)
}

/// How many payments the page shows (`on_page`, after `skipped`), of `total`.
fn how_many(on_page: usize, skipped: usize, total: usize) -> String {
    if on_page == 0 {
        format!("None of {total} payments.")
    } else if total > on_page {
        format!(
            "Payments {} to {} of {total}.",
            skipped + 1,
            skipped + on_page
        )
    } else {
        format!("{total} payment{}.", if total == 1 { "" } else { "s" })
    }
}

impl Row {
    /// The payment as a row of the list's table.
    fn html(&self) -> String {
        format!(
            r#"<tr><td>{created}</td><td><a href="{BACK_OFFICE_PATH}/payments/{id}">{id}</a></td><td>{reference}</td><td class="num">{amount}</td><td>{currency}</td><td>{card}</td><td>{outcome}</td></tr>"#,
            created = when(self.created_ms),
            id = self.id,
            reference = escape(&self.shop_transaction_id),
            amount = escape(&self.amount),
            currency = escape(&self.currency),
            card = escape(&self.masked_pan),
            outcome = escape(&self.outcome),
        )
    }
}

/// The `<option>`s of a filter's `choices`, the `chosen` one selected.
fn select_options(choices: &[(&str, &str)], chosen: &str) -> String {
    choices
        .iter()
        .map(|(value, label)| {
            let selected = if *value == chosen { " selected" } else { "" };
            format!(r#"<option value="{value}"{selected}>{label}</option>"#)
        })
        .collect()
}

/// The links to the newer page and, when `older` payments are left, the
/// older one; nothing when there is neither.
fn page_links(asked: &Asked, older: bool) -> String {
    let mut pages = Vec::new();
    if asked.page > 1 {
        pages.push(format!(
            r#"<a rel="prev" href="{}">Newer payments</a>"#,
            escape(&asked.page_link(asked.page - 1))
        ));
    }
    if older && asked.page < MAX_PAGE {
        pages.push(format!(
            r#"<a rel="next" href="{}">Older payments</a>"#,
            escape(&asked.page_link(asked.page + 1))
        ));
    }
    if pages.is_empty() {
        String::new()
    } else {
        format!(
            r#"<nav aria-label="Pages of payments" class="pages">{}</nav>"#,
            pages.join(" ")
        )
    }
}

/// The newest `keep` payments `matches` keeps, newest first, and how many
/// it keeps in all. Payment IDs count up, so the highest is the
/// newest; a heap of the newest so far means that of a sandbox's million
/// payments only the few that may be shown are copied out, and nothing is
/// sorted but them.
fn newest(service: &Service, keep: usize, matches: impl Fn(&Payment) -> bool) -> (Vec<Row>, usize) {
    let mut kept: BinaryHeap<Reverse<NewestFirst>> = BinaryHeap::with_capacity(keep + 1);
    let mut total = 0;
    service.store.for_each(|_, p| {
        if !matches(p) {
            return;
        }
        total += 1;
        let older_than_all_kept = kept.len() == keep
            && kept
                .peek()
                .is_some_and(|Reverse(oldest)| p.created_us < oldest.0.created_us);
        if !older_than_all_kept {
            kept.push(Reverse(NewestFirst(Row::of(p))));
            if kept.len() > keep {
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
    let found = merchants_payment(service, merchant, id);
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
    let timeline = timeline(&row);
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
{calls}
<p><a href="{BACK_OFFICE_PATH}/payments">All payments</a></p>"#,
        calls = super::calls::section(service, merchant, row.id),
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

/// The merchant's payment `id` as a row with its events, and its ledger
/// (the money brought up to now first); `None` when the merchant has no
/// such payment.
fn merchants_payment(service: &Service, merchant: u32, id: &str) -> Option<(Row, Option<Ledger>)> {
    let now = crate::timeline::now_ms();
    id.parse::<u64>()
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
        })
}

/// The payment's timeline, one item an event, its creation first.
fn timeline(row: &Row) -> Vec<String> {
    let mut timeline = vec![format!(
        "<li><time>{}</time>: created by <code>payment/create</code>.</li>",
        when(row.created_ms)
    )];
    timeline.extend(row.events.iter().map(|event| {
        format!(
            "<li><time>{}</time>: {}</li>",
            when(event.at_ms),
            describe(&event.what, row.id)
        )
    }));
    timeline
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

/// A timeline event of payment `id` in words, escaped; a notification's
/// ID links to its page.
pub(super) fn describe(what: &What, id: u64) -> String {
    let notification = |event_id: &uuid::Uuid| {
        format!(
            r#"notification <a href="{BACK_OFFICE_PATH}/payments/{id}/notifications/{event_id}">{event_id}</a>"#
        )
    };
    match what {
        What::Paid {
            channel,
            masked_pan,
            answer,
        } => paid(*channel, masked_pan, answer),
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
        // The address carries the payment's token (`b`): shown as the
        // call log shows it, its last four characters.
        What::BuyerSent { to } => format!(
            "the buyer was sent to <code>{}</code>.",
            escape(&crate::call_log::address_masked(to).unwrap_or_else(|| to.to_string()))
        ),
        What::Notification {
            event_id,
            attempt,
            to,
            answer,
            delivered,
        } => format!(
            "{}, attempt {attempt}, posted to <code>{}</code>: {} ({}).",
            notification(event_id),
            escape(to),
            escape(answer),
            if *delivered {
                "delivered"
            } else {
                "not delivered"
            }
        ),
        What::NotificationDelayed { event_id, attempt } => format!(
            "{}, attempt {attempt}: delayed by the receiver \
             (its earlier notifications were still waiting for an answer).",
            notification(event_id)
        ),
        What::NotificationAbandoned { event_id } => {
            format!(
                "{} abandoned: its retry time ran out.",
                notification(event_id)
            )
        }
        What::NotificationResent { event_id } => {
            format!(
                "{} sent again from the back-office.",
                notification(event_id)
            )
        }
        What::Truncated => "later events were not kept (too many for one payment).".to_owned(),
    }
}

/// A card payment: the card, where it was entered, and the answer.
fn paid(channel: Channel, masked_pan: &str, answer: &str) -> String {
    let how = match channel {
        Channel::Submit => "submitted by <code>payment/submit</code>",
        Channel::PaymentPage => "entered on the payment page",
        Channel::Alternative => "taken by the alternative method",
    };
    let result = match TransactionResult::of_word(answer) {
        Some(TransactionResult::Ok) => "authorized (OK)".to_owned(),
        Some(TransactionResult::Ko) => "declined (KO)".to_owned(),
        _ => format!("the issuer's authentication is needed ({})", escape(answer)),
    };
    format!("card {} {how}: {result}.", escape(masked_pan))
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
        let ids: Vec<u64> = (0..PER_PAGE + 57)
            .map(|n| {
                service
                    .store
                    .create(NewPayment {
                        merchant: 0,
                        amount: Amount::parse("1.00").expect("valid"),
                        currency: Currency::parse("EUR").expect("valid"),
                        shop_transaction_id: format!("order-{n}").into(),
                        lifetime: None,
                        redirects: None,
                    })
                    .1
            })
            .collect();
        let (rows, total) = newest(&service, PER_PAGE, |_| true);
        assert_eq!(total, PER_PAGE + 57);
        let shown: Vec<u64> = rows.iter().map(|r| r.id).collect();
        let mut expected = ids.clone();
        expected.reverse();
        expected.truncate(PER_PAGE);
        assert_eq!(shown, expected);
        let (none, zero) = newest(&service, PER_PAGE, |_| false);
        assert!(none.is_empty());
        assert_eq!(zero, 0);
    }
}
