#!/usr/bin/env python3
"""Runs every request sample of the generated documentation against a sandbox.

Each API operation's page has a "Try it" section with a `curl` command and a
Python script on the client openapi-python-client generates. This runs both
(or the curl ones alone, with --curl-only) against `payconf serve` at
BASE_URL, each with a payment of its own, and fails unless every one is
answered with the envelope and error code "0".

    check-doc-samples.py BASE_URL OPERATIONS_DIR [--curl-only] [--python PYTHON]

PYTHON runs the Python samples (with the generated `payments_client` on its
PYTHONPATH); exit code 0 when every sample worked, 1 otherwise.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

API_KEY = "demo-api-key"
SHOP_LOGIN = "DEMO_SHOP"
FRICTIONLESS_CARD = "4775718800002026"
# A payment still to be paid for submit; a paid one for everything after it.
UNPAID = {"submitPayment"}


def call(base: str, path: str, body: dict[str, object], headers: dict[str, str]) -> dict[str, object]:
    request = urllib.request.Request(
        base.rstrip("/") + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **headers},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def payment(base: str, paid: bool, order: str) -> tuple[str, str]:
    """A fresh payment: its token and its ID; paid with a frictionless card when asked."""
    created = call(
        base,
        "/api/v1/payment/create/",
        {"shopLogin": SHOP_LOGIN, "amount": "10.00", "currency": "EUR", "shopTransactionID": order},
        {"Authorization": f"apikey {API_KEY}"},
    )
    token, payment_id = created["payload"]["paymentToken"], created["payload"]["paymentID"]
    if paid:
        card = {"number": FRICTIONLESS_CARD, "expMonth": "05", "expYear": "30", "CVV": "999"}
        call(
            base,
            "/api/v1/payment/submit/",
            {"shopLogin": SHOP_LOGIN, "paymentTypeDetails": {"creditcard": card}},
            {"paymentToken": token},
        )
    return token, payment_id


def card_token(base: str) -> str:
    """A card token of the shop's, for the card-token samples."""
    issued = call(
        base,
        "/api/v1/shop/token/",
        {
            "shopLogin": SHOP_LOGIN,
            "requestToken": "MASKEDPAN",
            "creditCard": {"number": FRICTIONLESS_CARD, "expMonth": "05", "expYear": "30", "CVV": "999"},
        },
        {"Authorization": f"apikey {API_KEY}"},
    )
    return str(issued["payload"]["token"])


def samples(page: str) -> dict[str, str]:
    """The code blocks of the page's "Try it" section, by language."""
    section = page.split("## Try it", 1)
    if len(section) < 2:
        return {}
    section = section[1].split("\n## ", 1)[0]
    return {m.group(1): m.group(2) for m in re.finditer(r"```(sh|python)\n(.*?)\n```", section, re.S)}


def main() -> int:
    args = sys.argv[1:]
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    base, folder = args[0], Path(args[1])
    curl_only = "--curl-only" in args
    python = args[args.index("--python") + 1] if "--python" in args else sys.executable
    problems, ran = [], 0
    for path in sorted(folder.glob("*.md")):
        operation = path.stem
        blocks = samples(path.read_text())
        if not blocks:
            continue
        for language, code in blocks.items():
            if language == "python" and curl_only:
                continue
            token, payment_id = payment(base, operation not in UNPAID, f"docs-{operation}-{language}")
            env = {
                **os.environ,
                "BASE_URL": base.rstrip("/"),
                "API_KEY": API_KEY,
                "SHOP_LOGIN": SHOP_LOGIN,
                "PAYMENT_TOKEN": token,
                "PAYMENT_ID": payment_id,
                "CARD_TOKEN": card_token(base),
                "SHOP_TRANSACTION_ID": f"docs-{operation}-{language}",
            }
            command = ["bash", "-c", code] if language == "sh" else [python, "-c", code]
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=30)
            ran += 1
            said = f"{operation} ({language})"
            if done.returncode != 0:
                problems.append(f"{said}: exit {done.returncode}: {done.stderr.strip()[-600:]}")
                continue
            if language == "sh":
                try:
                    code_answered = json.loads(done.stdout)["error"]["code"]
                except (ValueError, KeyError, TypeError):
                    problems.append(f"{said}: not the envelope: {done.stdout[:300]}")
                    continue
            else:
                match = re.search(r"'error': \{'code': '([^']*)'", done.stdout)
                code_answered = match.group(1) if match else f"no envelope in {done.stdout[:300]!r}"
            if code_answered != "0":
                problems.append(f"{said}: error code {code_answered}: {done.stdout[:300]}")
    for problem in problems:
        print(f"doc sample: {problem}", file=sys.stderr)
    if ran == 0:
        print(f"doc samples: none found under {folder}", file=sys.stderr)
        return 1
    print(f"doc samples: {ran - len(problems)} of {ran} answered with error code 0")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
