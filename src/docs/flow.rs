//! The payment flow as a sequence diagram: buyer, merchant, service and
//! issuer as lifelines, the calls and redirects between them as arrows,
//! laid out here and drawn as SVG from a template. No diagram service.

use minijinja::{Environment, context};
use serde::Serialize;

const TEMPLATE: &str = include_str!("templates/payment-flow.svg");

/// The participants, left to right.
const LIFELINES: [&str; 4] = [
    "Buyer",
    "Merchant",
    "Payment service",
    "Issuer (3-D Secure)",
];

/// The messages: from, to, label, whether it answers an earlier one, and
/// whether it happens only for a card enrolled in 3-D Secure.
const MESSAGES: [(usize, usize, &str, bool, bool); 11] = [
    (0, 1, "checks out", false, false),
    (
        1,
        2,
        "POST /api/v1/payment/create/ (Authorization: apikey)",
        false,
        false,
    ),
    (
        2,
        1,
        "error.code \"0\", paymentToken, paymentID, userRedirect.href null",
        true,
        false,
    ),
    (0, 1, "enters card number, expiry, CVV", false, false),
    (
        1,
        2,
        "POST /api/v1/payment/submit/ (paymentToken header)",
        false,
        false,
    ),
    (
        2,
        1,
        "transactionResult \"OK\", or \"\" with transactionErrorCode \"8006\"; userRedirect.href",
        true,
        false,
    ),
    (1, 0, "redirect to userRedirect.href", true, false),
    (0, 3, "opens the issuer-authentication address", false, true),
    (3, 0, "authentication page", true, true),
    (0, 3, "completes the authentication", false, true),
    (
        3,
        0,
        "redirect to the success page of the back-office",
        true,
        true,
    ),
];

const WIDTH: u32 = 1100;
const MARGIN: u32 = 120;
const TOP: u32 = 70;
const STEP: u32 = 46;

#[derive(Serialize)]
struct Lifeline {
    x: u32,
    name: &'static str,
}

#[derive(Serialize)]
struct Arrow {
    x1: u32,
    x2: u32,
    y: u32,
    label_x: u32,
    label: &'static str,
    reply: bool,
    three_ds: bool,
    number: usize,
}

/// The diagram, as an SVG document.
pub fn payment_flow_svg() -> String {
    let spacing = (WIDTH - 2 * MARGIN) / (LIFELINES.len() as u32 - 1);
    let x = |i: usize| MARGIN + spacing * i as u32;
    let lifelines: Vec<Lifeline> = LIFELINES
        .iter()
        .enumerate()
        .map(|(i, name)| Lifeline { x: x(i), name })
        .collect();
    let arrows: Vec<Arrow> = MESSAGES
        .iter()
        .enumerate()
        .map(|(i, (from, to, label, reply, three_ds))| Arrow {
            x1: x(*from),
            x2: x(*to),
            y: TOP + 30 + STEP * i as u32,
            label_x: (x(*from) + x(*to)) / 2,
            label,
            reply: *reply,
            three_ds: *three_ds,
            number: i + 1,
        })
        .collect();
    let height = TOP + 30 + STEP * MESSAGES.len() as u32 + 30;
    let first_three_ds = arrows.iter().find(|a| a.three_ds).map_or(0, |a| a.y) - 40;
    let mut env = Environment::new();
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::Html);
    env.add_template("payment-flow.svg", TEMPLATE)
        .expect("the flow template parses");
    env.get_template("payment-flow.svg")
        .expect("just added")
        .render(context! {
            width => WIDTH, height => height, top => TOP, bottom => height - 20,
            lifelines => lifelines, arrows => arrows,
            box_y => first_three_ds, box_height => height - 20 - first_three_ds - 6,
        })
        .expect("the flow template renders")
}
