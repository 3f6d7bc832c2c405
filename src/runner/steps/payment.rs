//! Creating payments: the merchant's `payment/create` calls, and what their
//! answers must hold.

use cucumber::{gherkin::Step, given, then, when};
use reqwest::Method;
use serde_json::{Value, json};

use crate::runner::{
    exchange::RecordedRequest,
    merchant,
    world::{CreatedPayment, Failure, PaymentWorld, Settled},
};

/// The create body the merchant sends, with a reference of its own.
pub fn create_body(world: &PaymentWorld) -> Value {
    merchant::create_body(world.target())
}

/// How the merchant authenticates a create.
enum Credentials {
    /// `Authorization: apikey <the target's key>`.
    MerchantKey,
    /// This exact `Authorization` value.
    Header(String),
    /// No `Authorization` header.
    Nothing,
}

async fn send_create(
    world: &mut PaymentWorld,
    credentials: Credentials,
    content_type: &str,
    body: Vec<u8>,
) -> Result<(), Failure> {
    let target = world.target();
    let request_body = body.clone();
    let mut request = RecordedRequest::new(Method::POST, merchant::create_url(target))
        .header("Content-Type", content_type)
        .body(body);
    match credentials {
        Credentials::MerchantKey => request = merchant::with_key(request, &target.api_key),
        Credentials::Header(value) => request = request.header("Authorization", value),
        Credentials::Nothing => {}
    }
    let answer = world.receive("createPayment", request).await?;
    let processed = answer.str_at("/error/code") == Some("0");
    let token = answer.str_at("/payload/paymentToken").map(str::to_owned);
    // Held as text whatever its JSON type: whether it is a string is
    // CREATE-03's business; whether it names the payment is the others'.
    let payment_id = match answer.at("/payload/paymentID") {
        Some(Value::String(id)) => Some(id.clone()),
        Some(Value::Number(id)) => Some(id.to_string()),
        _ => None,
    };
    if let Some(token) = &token {
        world.ctx.redactor.add_payment_token(token);
    }
    if let (true, Some(token)) = (processed, token) {
        let shop_transaction_id = crate::runner::json::parse(&request_body)
            .ok()
            .and_then(|sent| sent.get("shopTransactionID")?.as_str().map(str::to_owned));
        world.payments.push(CreatedPayment {
            token,
            payment_id,
            shop_transaction_id,
        });
    }
    Ok(())
}

async fn create_json(
    world: &mut PaymentWorld,
    credentials: Credentials,
    body: &Value,
) -> Result<(), Failure> {
    send_create(
        world,
        credentials,
        "application/json",
        body.to_string().into_bytes(),
    )
    .await
}

#[given("a payment created by the merchant")]
async fn a_payment_created(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let body = create_body(world);
            create_json(world, Credentials::MerchantKey, &body).await?;
            if world.payments.is_empty() {
                return Err(world.failure(
                    "a created payment: error.code \"0\" and a paymentToken",
                    "create did not answer a payment",
                ));
            }
            Ok(())
        })
        .await
}

#[when("the merchant creates a payment")]
async fn creates_a_payment(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let body = create_body(world);
            create_json(world, Credentials::MerchantKey, &body).await
        })
        .await
}

/// A create naming the buyer's return addresses itself (`responseURLs`,
/// which the real service takes at create as at submit).
#[when(expr = "the merchant creates a payment returning to {string} or {string}")]
async fn creates_returning_to(
    world: &mut PaymentWorld,
    ok: String,
    ko: String,
) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let mut body = create_body(world);
            body["responseURLs"] = json!({"buyerOK": ok, "buyerKO": ko});
            create_json(world, Credentials::MerchantKey, &body).await
        })
        .await
}

/// A create for pay-by-link: the payment page's address is sent to the
/// buyer by `channel` (`paymentChannel.channelType`).
#[when(expr = "the merchant creates a payment to be paid by link, sent by {string}")]
async fn creates_pay_by_link(world: &mut PaymentWorld, channel: String) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let mut body = create_body(world);
            body["paymentChannel"] = json!({"channelType": [channel]});
            create_json(world, Credentials::MerchantKey, &body).await
        })
        .await
}

#[when("the merchant creates two payments")]
async fn creates_two_payments(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            for _ in 0..2 {
                let body = create_body(world);
                create_json(world, Credentials::MerchantKey, &body).await?;
            }
            Ok(())
        })
        .await
}

#[when(
    regex = r#"^the merchant creates a payment with (shopLogin|amount|currency|shopTransactionID) "(.*)"$"#
)]
async fn creates_with_field(
    world: &mut PaymentWorld,
    field: String,
    value: String,
) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let mut body = create_body(world);
            body[field.as_str()] = Value::String(value);
            create_json(world, Credentials::MerchantKey, &body).await
        })
        .await
}

/// A field written as JSON rather than as a string: `10.00`, `null`, `true`.
#[when(
    regex = r"^the merchant creates a payment with (shopLogin|amount|currency|shopTransactionID) as the JSON value (.*)$"
)]
async fn creates_with_json_field(
    world: &mut PaymentWorld,
    field: String,
    json: String,
) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let value: Value = serde_json::from_str(&json).map_err(|e| {
                Failure::plain(format!("a JSON value in the scenario, not {json:?}: {e}"))
            })?;
            let mut body = create_body(world);
            body[field.as_str()] = value;
            create_json(world, Credentials::MerchantKey, &body).await
        })
        .await
}

#[when(
    regex = r"^the merchant creates a payment without (shopLogin|amount|currency|shopTransactionID)$"
)]
async fn creates_without_field(world: &mut PaymentWorld, field: String) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let mut body = create_body(world);
            if let Some(object) = body.as_object_mut() {
                object.remove(&field);
            }
            create_json(world, Credentials::MerchantKey, &body).await
        })
        .await
}

#[when("the merchant creates a payment without the Authorization header")]
async fn creates_without_authorization(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let body = create_body(world);
            create_json(world, Credentials::Nothing, &body).await
        })
        .await
}

#[when(expr = "the merchant creates a payment with the API key {string}")]
async fn creates_with_api_key(world: &mut PaymentWorld, key: String) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let body = create_body(world);
            create_json(world, Credentials::Header(format!("apikey {key}")), &body).await
        })
        .await
}

/// `{api_key}` in the header stands for the target's own key.
#[when(expr = "the merchant creates a payment with the Authorization header {string}")]
async fn creates_with_authorization(
    world: &mut PaymentWorld,
    header: String,
) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let header = header.replace("{api_key}", world.target().api_key.expose());
            let body = create_body(world);
            create_json(world, Credentials::Header(header), &body).await
        })
        .await
}

/// The body as written, `{shopLogin}` standing for the target's shop: a
/// body that is refused must be refused for what it is, not for its shop.
#[when("the merchant sends this body to create:")]
async fn sends_body_to_create(world: &mut PaymentWorld, step: &Step) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let body = step
                .docstring
                .as_deref()
                .unwrap_or("")
                .trim()
                .replace("{shopLogin}", &world.target().shop_login);
            send_create(
                world,
                Credentials::MerchantKey,
                "application/json",
                body.into_bytes(),
            )
            .await
        })
        .await
}

#[when(expr = "the merchant creates a payment sent as {string}")]
async fn creates_sent_as(world: &mut PaymentWorld, media_type: String) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let body = create_body(world).to_string().into_bytes();
            send_create(world, Credentials::MerchantKey, &media_type, body).await
        })
        .await
}

#[when(expr = "the merchant creates a payment with a body of {int} bytes")]
async fn creates_with_body_of(world: &mut PaymentWorld, size: usize) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let mut body = create_body(world);
            body["shopTransactionID"] = Value::String(String::new());
            let padding = size.saturating_sub(body.to_string().len());
            body["shopTransactionID"] = Value::String("x".repeat(padding));
            send_create(
                world,
                Credentials::MerchantKey,
                "application/json",
                body.to_string().into_bytes(),
            )
            .await
        })
        .await
}

#[then("the payment token is a UUID")]
fn token_is_uuid(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        let token = answer.str_at("/payload/paymentToken");
        match token.map(uuid::Uuid::try_parse) {
            Some(Ok(_)) => Ok(()),
            _ => Err(world.failure(
                "payload.paymentToken, a string in UUID format",
                &shown(answer.at("/payload/paymentToken")),
            )),
        }
    })
}

#[then("the payment ID is a string of digits")]
fn id_is_digits(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        match answer.str_at("/payload/paymentID") {
            Some(id) if !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) => Ok(()),
            _ => Err(world.failure(
                "payload.paymentID, a string of digits",
                &shown(answer.at("/payload/paymentID")),
            )),
        }
    })
}

#[then("the payment ID has 10 to 12 digits")]
fn id_has_ten_to_twelve_digits(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        match answer.str_at("/payload/paymentID") {
            Some(id) if (10..=12).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_digit()) => {
                Ok(())
            }
            _ => Err(world.failure(
                "payload.paymentID of 10 to 12 digits",
                &shown(answer.at("/payload/paymentID")),
            )),
        }
    })
}

#[then("their payment tokens differ")]
fn tokens_differ(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let [.., first, second] = world.payments.as_slice() else {
            return Err(world.failure(
                "two created payments",
                &format!("{} created", world.payments.len()),
            ));
        };
        if first.token == second.token {
            return Err(world.failure("two different payment tokens", "the same token twice"));
        }
        Ok(())
    })
}

#[then("their payment IDs differ")]
fn ids_differ(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let [.., first, second] = world.payments.as_slice() else {
            return Err(world.failure(
                "two created payments",
                &format!("{} created", world.payments.len()),
            ));
        };
        if first.payment_id.is_none() || first.payment_id == second.payment_id {
            return Err(world.failure(
                "two different payment IDs",
                &format!(
                    "{} and {}",
                    shown_id(first.payment_id.as_deref()),
                    shown_id(second.payment_id.as_deref())
                ),
            ));
        }
        Ok(())
    })
}

#[then("no payment token is issued")]
fn no_token(world: &mut PaymentWorld) -> Result<(), Settled> {
    world.check(|world| {
        let answer = world.answer()?;
        match answer.at("/payload/paymentToken") {
            None | Some(Value::Null) => Ok(()),
            Some(Value::String(s)) if s.is_empty() => Ok(()),
            Some(other) => Err(world.failure(
                "no payload.paymentToken",
                &format!("a token: {}", shown(Some(other))),
            )),
        }
    })
}

/// A payment ID as shown in a failure: quoted, or said to be missing.
fn shown_id(id: Option<&str>) -> String {
    id.map_or_else(|| "no paymentID".to_owned(), |id| format!("\"{id}\""))
}

/// A JSON value as shown in a failure.
pub fn shown(value: Option<&Value>) -> String {
    match value {
        None => "nothing (the field is absent)".to_owned(),
        Some(v) => v.to_string(),
    }
}

/// Creates a payment at the shop the buyer pays at ([`PaymentWorld::shop`],
/// the target's own without) as its merchant's server does, judged as the
/// contract states it, and keeps it as the scenario's latest payment;
/// returns its token, its identifier and the shop's reference for it.
pub(super) async fn create_at(
    world: &mut PaymentWorld,
) -> Result<(String, String, String), Failure> {
    let target = world.target().clone();
    let (shop_login, api_key) = (world.shop_login().to_owned(), world.api_key().clone());
    let mut body = create_body(world);
    body["shopLogin"] = json!(shop_login);
    let reference = body["shopTransactionID"].as_str().unwrap_or("").to_owned();
    let request = merchant::keyed_post(merchant::create_url(&target), &api_key, body.to_string());
    let answer = world.receive("createPayment", request).await?;
    // The create is judged as the contract states it: processed (`error.code`
    // "0") with a token and an identifier; a token beside another code is
    // no payment created.
    let code = answer.at("/error/code").cloned();
    let created = (
        answer.str_at("/payload/paymentToken").map(str::to_owned),
        answer.str_at("/payload/paymentID").map(str::to_owned),
    );
    let seen = format!(
        "error.code {}, payload.paymentToken {}, payload.paymentID {}",
        shown(code.as_ref()),
        shown(answer.at("/payload/paymentToken")),
        shown(answer.at("/payload/paymentID"))
    );
    let (Some("0"), (Some(token), Some(payment_id))) =
        (code.as_ref().and_then(Value::as_str), created)
    else {
        return Err(world.failure(
            "a created payment: error.code \"0\", a paymentToken and a paymentID",
            &seen,
        ));
    };
    world.ctx.redactor.add_payment_token(&token);
    world.payments.push(CreatedPayment {
        token: token.clone(),
        payment_id: Some(payment_id.clone()),
        shop_transaction_id: Some(reference.clone()),
    });
    Ok((token, payment_id, reference))
}

#[given("a payment whose token has expired")]
async fn a_payment_whose_token_has_expired(world: &mut PaymentWorld) -> Result<(), Settled> {
    world
        .check_async(async |world| {
            let tokens = world
                .target()
                .token_lifetime
                .clone()
                .ok_or_else(|| Failure::plain("the target to name token_lifetime_secs"))?;
            // Created and paid at the shop whose tokens live that long: the
            // target's own unless it names another.
            world.shop = tokens.shop;
            create_at(world).await?;
            tokio::time::sleep(tokens.lifetime + std::time::Duration::from_millis(100)).await;
            Ok(())
        })
        .await
}
