"""A merchant's server paying with the client openapi-python-client generates.

The client is generated from spec/openapi.yaml into the package
`payments_client` (see .ci/check-clients). The flow creates a payment with
the API key, submits a card under the returned token, and tells where the
buyer goes next; once with a card not enrolled in 3-D Secure ("OK") and once
with an enrolled one ("8006", the issuer's address). The first is sent as
clients of the real service send it: an amount without decimals, no buyer,
and `DCC` as the string "false".

    python merchant_flow.py BASE_URL [API_KEY] [SHOP_LOGIN]

Exit code 0 when both payments went as the contract says, 1 otherwise.
"""

from __future__ import annotations

import sys
from uuid import UUID

from payments_client import AuthenticatedClient
from payments_client.api.payments import create_payment, submit_payment
from payments_client.models import (
    Buyer,
    CreatePaymentRequest,
    CreatePaymentResponse,
    Creditcard,
    SubmitPaymentRequest,
    SubmitPaymentRequestPaymentTypeDetails,
    SubmitPaymentResponse,
)
from payments_client.types import Unset

FRICTIONLESS_CARD = "4775718800002026"
THREE_D_SECURE_CARD = "5412388800004012"


def create(client: AuthenticatedClient, shop_login: str, order: str, amount: str) -> tuple[UUID, str]:
    """Creates a payment; returns its token and its ID."""
    answer = create_payment.sync(
        client=client,
        body=CreatePaymentRequest(
            shop_login=shop_login, amount=amount, currency="EUR", shop_transaction_id=order
        ),
    )
    if not isinstance(answer, CreatePaymentResponse) or answer.error.code != "0":
        raise SystemExit(f"create was refused: {describe(answer)}")
    if isinstance(answer.payload, Unset):
        raise SystemExit("create answered without a payload")
    payload = answer.payload
    if payload.user_redirect.href is not None:
        raise SystemExit("create's userRedirect.href is not null")
    return payload.payment_token, payload.payment_id


def submit(
    client: AuthenticatedClient, shop_login: str, token: UUID, card: str, as_real_clients: bool
) -> tuple[str, str | None, str]:
    """Submits a card; returns transactionResult, transactionErrorCode and userRedirect.href.

    As clients of the real service send it: no buyer, and DCC as "false".
    """
    creditcard = Creditcard(
        number=card, exp_month="05", exp_year="30", cvv="999", dcc="false" if as_real_clients else None
    )
    details = SubmitPaymentRequestPaymentTypeDetails(creditcard=creditcard)
    body = (
        SubmitPaymentRequest(shop_login=shop_login, payment_type_details=details)
        if as_real_clients
        else SubmitPaymentRequest(
            shop_login=shop_login,
            buyer=Buyer(name="Jane Doe", email="jane.doe@mail.example"),
            payment_type_details=details,
        )
    )
    answer = submit_payment.sync(client=client, payment_token=str(token), body=body)
    if not isinstance(answer, SubmitPaymentResponse) or answer.error.code != "0":
        raise SystemExit(f"submit was refused: {describe(answer)}")
    if isinstance(answer.payload, Unset):
        raise SystemExit("submit answered without a payload")
    payload = answer.payload
    error_code = None if isinstance(payload.transaction_error_code, Unset) else payload.transaction_error_code
    return payload.transaction_result, error_code, payload.user_redirect.href


def describe(answer: object) -> str:
    error = getattr(answer, "error", None)
    if error is None:
        return "no answer the spec declares"
    return f"error.code {error.code!r}: {error.description}"


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    base_url = argv[1]
    api_key = argv[2] if len(argv) > 2 else "demo-api-key"
    shop_login = argv[3] if len(argv) > 3 else "DEMO_SHOP"
    failures = 0
    with AuthenticatedClient(base_url=base_url, token=api_key, prefix="apikey") as client:
        for card, amount, as_real_clients, expected_result, expected_code in (
            (FRICTIONLESS_CARD, "100", True, "OK", None),
            (THREE_D_SECURE_CARD, "10.00", False, "", "8006"),
        ):
            token, payment_id = create(client, shop_login, f"python-client-{card[-4:]}", amount)
            result, error_code, href = submit(client, shop_login, token, card, as_real_clients)
            as_expected = result == expected_result and error_code == expected_code
            failures += not as_expected
            # The address without its query: the issuer's holds the payment token.
            print(
                f"payment {payment_id}, card {card[:6]}...{card[-4:]}: "
                f"transactionResult {result!r}, transactionErrorCode {error_code or 'none'}, "
                f"buyer to {href.split('?')[0]} ({'as expected' if as_expected else 'NOT as expected'})"
            )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
