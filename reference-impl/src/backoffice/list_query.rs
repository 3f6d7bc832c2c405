//! What the back-office's list of payments was asked for: the state it
//! filters by, whose payments (the shop's own or payconf's conformance
//! runs'), a search by payment ID or shop transaction ID, and the page;
//! each read from the query and checked, and whether a payment is one the
//! list keeps.

use crate::{
    paths::BACK_OFFICE_PATH,
    store::{Payment, PaymentState},
};

/// Payments a page of the list shows.
pub(super) const PER_PAGE: usize = 50;

/// The last page the list goes to: what a page keeps grows with its number.
pub(super) const MAX_PAGE: usize = 2_000;

/// The longest search the list takes.
pub(super) const MAX_SEARCH: usize = 64;

/// What payconf's conformance runs begin their shop transaction IDs with
/// (its `transaction_prefix` by default): the list tells their payments
/// from the merchant's own.
pub const CONFORMANCE_PREFIX: &str = "payconf-";

/// Whose payments the list shows: the query value and its label.
pub(super) const SOURCES: [(&str, &str); 3] = [
    ("", "everyone's"),
    ("own", "the shop's own"),
    ("conformance", "payconf's conformance runs"),
];

/// The states the list filters by: the query value and its label.
pub(super) const FILTERS: [(&str, &str); 6] = [
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

/// What the list was asked for: `?state=` (a filter), `?q=` (a payment ID,
/// or part of a shop transaction ID), `?page=` (from 1).
pub(super) struct Asked {
    pub(super) state: &'static str,
    pub(super) label: &'static str,
    /// Whose: `own` (not a conformance run's), `conformance`, or everyone's.
    pub(super) source: &'static str,
    pub(super) search: String,
    pub(super) page: usize,
}

impl Asked {
    /// The query read, or the problem to show.
    pub(super) fn of(query: Option<&str>) -> Result<Self, &'static str> {
        let pairs: Vec<(String, String)> = query
            .into_iter()
            .flat_map(|q| form_urlencoded::parse(q.as_bytes()))
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        let value = |name: &str| {
            pairs
                .iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.trim().to_owned())
                .unwrap_or_default()
        };
        let wanted = value("state");
        let &(state, label) = FILTERS
            .iter()
            .find(|(value, _)| *value == wanted)
            .ok_or("There is no such state to filter by.")?;
        let wanted = value("source");
        let &(source, _) = SOURCES
            .iter()
            .find(|(value, _)| *value == wanted)
            .ok_or("There is no such source of payments.")?;
        let search = value("q");
        if search.chars().count() > MAX_SEARCH {
            return Err("A search is at most 64 characters.");
        }
        let page = match value("page").as_str() {
            "" => 1,
            number => number
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=MAX_PAGE).contains(n))
                .ok_or("There is no such page.")?,
        };
        Ok(Self {
            state,
            label,
            source,
            search,
            page,
        })
    }

    /// Whether `payment` is one the list shows: the filter's state, and
    /// the search's payment ID or part of its shop transaction ID.
    pub(super) fn keeps(&self, payment: &Payment) -> bool {
        let conformance = payment.shop_transaction_id.starts_with(CONFORMANCE_PREFIX);
        let whose = match self.source {
            "own" => !conformance,
            "conformance" => conformance,
            _ => true,
        };
        whose
            && (self.state.is_empty() || filter_of(payment.state) == self.state)
            && (self.search.is_empty()
                || payment.id.to_string() == self.search
                || payment.shop_transaction_id.contains(self.search.as_str()))
    }

    /// The list's address for another page.
    pub(super) fn page_link(&self, page: usize) -> String {
        let query: String = form_urlencoded::Serializer::new(String::new())
            .append_pair("state", self.state)
            .append_pair("source", self.source)
            .append_pair("q", &self.search)
            .append_pair("page", &page.to_string())
            .finish();
        format!("{BACK_OFFICE_PATH}/payments?{query}")
    }
}

/// The filter a state falls under.
pub(super) fn filter_of(state: PaymentState) -> &'static str {
    match state {
        PaymentState::Created => "created",
        PaymentState::AwaitingAuthentication => "awaiting-authentication",
        PaymentState::AwaitingMethod => "awaiting-method",
        PaymentState::Authorized => "paid",
        PaymentState::Declined => "declined",
    }
}
