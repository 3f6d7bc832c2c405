"""A merchant's server confirming, settling, refunding and cancelling
payments with the client openapi-python-client generates, as code written
for the real service does: paths as its documentation writes them, an
amount without decimals, no buyer, and `DCC` as the string "false".

Against `payconf serve --config examples/clients/sandbox-two-shops.toml`
(see .ci/check-clients): DEMO_SHOP settles by itself a second after each
payment; WAREHOUSE waits for the merchant's capture or cancel.

    python payment_lifecycle.py BASE_URL

Exit code 0 when every step went as the real service's documentation says,
1 otherwise.
"""

from __future__ import annotations

import sys
import time

from payments_client import AuthenticatedClient
from payments_client.api.payment_management import (
    cancel_payment,
    capture_payment,
    get_payment_detail,
    refund_payment,
    search_payment_detail,
)
from payments_client.api.payments import create_payment, submit_payment
from payments_client.models import (
    CancelRequest,
    CaptureRequest,
    CreatePaymentRequest,
    CreatePaymentResponse,
    Creditcard,
    PaymentDetailRequest,
    PaymentDetailResponse,
    PaymentEvent,
    PaymentOperationResponse,
    RefundRequest,
    SubmitPaymentRequest,
    SubmitPaymentRequestPaymentTypeDetails,
    SubmitPaymentResponse,
)
from payments_client.types import Unset

FRICTIONLESS_CARD = "4775718800002026"
SHOPS = {"DEMO_SHOP": "demo-api-key", "WAREHOUSE": "warehouse-api-key"}


class Failed(Exception):
    """A step did not go as the documentation says."""


def pay(base_url: str, shop: str, order: str) -> str:
    """Creates and pays 100 EUR at `shop` as the real service's clients do; returns the paymentID."""
    with AuthenticatedClient(base_url=base_url, token=SHOPS[shop], prefix="apikey") as client:
        created = create_payment.sync(
            client=client,
            body=CreatePaymentRequest(shop_login=shop, amount="100", currency="EUR", shop_transaction_id=order),
        )
        if not isinstance(created, CreatePaymentResponse) or isinstance(created.payload, Unset):
            raise Failed(f"create at {shop} was refused")
        card = Creditcard(number=FRICTIONLESS_CARD, exp_month="05", exp_year="30", cvv="999", dcc="false")
        submitted = submit_payment.sync(
            client=client,
            payment_token=str(created.payload.payment_token),
            body=SubmitPaymentRequest(
                shop_login=shop, payment_type_details=SubmitPaymentRequestPaymentTypeDetails(creditcard=card)
            ),
        )
        if not isinstance(submitted, SubmitPaymentResponse) or isinstance(submitted.payload, Unset):
            raise Failed(f"submit at {shop} was refused")
        if submitted.payload.transaction_result != "OK":
            raise Failed(f"submit at {shop}: {submitted.payload.transaction_result!r}")
        return created.payload.payment_id


def state(base_url: str, shop: str, payment_id: str) -> tuple[str, list[str]]:
    """The payment's transactionState and its events' types, by GET payment/detail."""
    with AuthenticatedClient(base_url=base_url, token=SHOPS[shop], prefix="apikey") as client:
        detail = get_payment_detail.sync(client=client, payment_id=payment_id)
    if not isinstance(detail, PaymentDetailResponse):
        raise Failed(f"detail of {payment_id} was refused")
    payload = detail.payload
    # Every field the real service's documents show, read as its generated
    # client reads them: a missing one fails in `from_dict` already.
    fields: list[str] = [
        payload.country, payload.company, payload.buyer.name, payload.buyer.email,
        payload.risk.risk_response_code, payload.risk.risk_response_description,
        payload.alert_code, payload.alert_description, payload.cvv_present,
        payload.dcc.eligible, payload.dcc.currency, payload.product_type, payload.token,
        payload.token_expiry_month, payload.token_expiry_year, payload.vbv.flag, payload.vbv.buyer,
        payload.pay_pal_fee, payload.fraud_prevention.check, payload.fraud_prevention.state,
        payload.fraud_prevention.description, payload.fraud_prevention.order,
        payload.automatic_operation.type_, payload.automatic_operation.date,
        payload.automatic_operation.amount, payload.td_level, payload.masked_pan,
    ]
    if not all(isinstance(field, str) for field in fields) or payload.cvv_present != "Y":
        raise Failed(f"detail of {payment_id}: a field is not what the real service sends")
    kinds = []
    for item in payload.events:
        event = item if isinstance(item, PaymentEvent) else item.event
        kinds.append(event.eventtype.value)
        moved = event.eventtype.value in ("MOV", "STO")
        if moved != (len(event.event_arn) == 23 and event.event_arn.isdigit()):
            raise Failed(f"detail of {payment_id}: {event.eventtype.value} with eventARN {event.event_arn!r}")
    return payload.transaction_state.value, kinds


def operate(base_url: str, shop: str, operation: str, payment_id: str, amount: str | None) -> tuple[str, str]:
    """Capture, cancel or refund; returns transactionResult and transactionErrorCode."""
    with AuthenticatedClient(base_url=base_url, token=SHOPS[shop], prefix="apikey") as client:
        if operation == "capture" and amount is not None:
            answer = capture_payment.sync(
                client=client, body=CaptureRequest(shop_login=shop, amount=amount, currency="EUR", payment_id=payment_id)
            )
        elif operation == "refund" and amount is not None:
            answer = refund_payment.sync(
                client=client, body=RefundRequest(shop_login=shop, amount=amount, currency="EUR", payment_id=payment_id)
            )
        else:
            answer = cancel_payment.sync(client=client, body=CancelRequest(shop_login=shop, payment_id=payment_id))
    if not isinstance(answer, PaymentOperationResponse):
        raise Failed(f"{operation} of {payment_id} was refused")
    code = answer.payload.transaction_error_code
    return answer.payload.transaction_result.value, "" if isinstance(code, Unset) else code


def expect(what: str, found: object, wanted: object) -> None:
    print(f"{what}: {found!r}{'' if found == wanted else f' (NOT {wanted!r})'}")
    if found != wanted:
        raise Failed(what)


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    base_url = argv[1]
    try:
        # DEMO_SHOP settles by itself; the settled money is refunded in two parts.
        paid = pay(base_url, "DEMO_SHOP", "python-lifecycle-unified")
        for _ in range(40):
            if state(base_url, "DEMO_SHOP", paid)[0] == "MOV":
                break
            time.sleep(0.25)
        expect("DEMO_SHOP settled by itself", state(base_url, "DEMO_SHOP", paid), ("MOV", ["AUT", "MOV"]))
        expect("refund 40.00", operate(base_url, "DEMO_SHOP", "refund", paid, "40.00"), ("OK", ""))
        expect("refund 60.01", operate(base_url, "DEMO_SHOP", "refund", paid, "60.01"), ("KO", "2014"))
        expect("refund 60", operate(base_url, "DEMO_SHOP", "refund", paid, "60"), ("OK", ""))
        with AuthenticatedClient(base_url=base_url, token=SHOPS["DEMO_SHOP"], prefix="apikey") as client:
            found = search_payment_detail.sync(
                client=client,
                body=PaymentDetailRequest(shop_login="DEMO_SHOP", shop_transaction_id="python-lifecycle-unified"),
            )
        if not isinstance(found, PaymentDetailResponse):
            raise Failed("detail by shopTransactionID was refused")
        expect("found by shopTransactionID", (found.payload.payment_id, found.payload.transaction_state.value), (paid, "STO"))

        # WAREHOUSE waits for the merchant: a partial capture, then no cancel.
        captured = pay(base_url, "WAREHOUSE", "python-lifecycle-capture")
        expect("capture 100.01", operate(base_url, "WAREHOUSE", "capture", captured, "100.01"), ("KO", "8014"))
        expect("capture 75", operate(base_url, "WAREHOUSE", "capture", captured, "75"), ("OK", ""))
        expect("cancel after capture", operate(base_url, "WAREHOUSE", "cancel", captured, None), ("KO", "2017"))
        expect("WAREHOUSE captured", state(base_url, "WAREHOUSE", captured), ("MOV", ["AUT", "MOV"]))
        cancelled = pay(base_url, "WAREHOUSE", "python-lifecycle-cancel")
        expect("cancel before capture", operate(base_url, "WAREHOUSE", "cancel", cancelled, None), ("OK", ""))
        expect("WAREHOUSE cancelled", state(base_url, "WAREHOUSE", cancelled), ("CAN", ["AUT", "CAN"]))
    except Failed as failed:
        print(f"not as the documentation says: {failed}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
