// A merchant's server paying with the types openapi-typescript generates from
// spec/openapi.yaml (generated/payments.ts) and openapi-fetch's typed client.
// It creates a payment with the API key, submits a card under the returned
// token, and tells where the buyer goes next: once with a card not enrolled in
// 3-D Secure ("OK"), once with an enrolled one ("8006", the issuer's address).
//
//     node dist/merchant-flow.js BASE_URL [API_KEY] [SHOP_LOGIN]
//
// .ci/check-clients type-checks it with tsc --strict and runs it against
// payconf serve. Exit code 0 when both payments went as the contract says.
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/payments.js";

type CreatePaymentPayload = components["schemas"]["CreatePaymentPayload"];
type SubmitPaymentPayload = components["schemas"]["SubmitPaymentPayload"];
type Client = ReturnType<typeof createClient<paths>>;

const FRICTIONLESS_CARD = "4775718800002026";
const THREE_D_SECURE_CARD = "5412388800004012";

async function create(client: Client, apiKey: string, shopLogin: string, order: string): Promise<CreatePaymentPayload> {
  const { data, error } = await client.POST("/api/v1/payment/create/", {
    headers: { Authorization: `apikey ${apiKey}` },
    body: { shopLogin, amount: "10.00", currency: "EUR", shopTransactionID: order },
  });
  if (data === undefined || data.error.code !== "0" || data.payload === undefined) {
    throw new Error(`create was refused: ${describe(error)}`);
  }
  if (data.payload.userRedirect.href !== null) {
    throw new Error("create's userRedirect.href is not null");
  }
  return data.payload;
}

async function submit(client: Client, apiKey: string, shopLogin: string, paymentToken: string, card: string): Promise<SubmitPaymentPayload> {
  const { data, error } = await client.POST("/api/v1/payment/submit/", {
    params: { header: { paymentToken } },
    headers: { Authorization: `apikey ${apiKey}` },
    body: {
      shopLogin,
      buyer: { name: "Jane Doe", email: "jane.doe@mail.example" },
      paymentTypeDetails: {
        creditcard: { number: card, expMonth: "05", expYear: "30", CVV: "999", DCC: null },
      },
    },
  });
  if (data === undefined || data.error.code !== "0" || data.payload === undefined) {
    throw new Error(`submit was refused: ${describe(error)}`);
  }
  return data.payload;
}

function describe(error: { error: { code: string; description: string } } | undefined): string {
  return error === undefined ? "no answer the spec declares" : `error.code "${error.error.code}": ${error.error.description}`;
}

async function main(argv: string[]): Promise<number> {
  const [baseUrl, apiKey = "demo-api-key", shopLogin = "DEMO_SHOP"] = argv;
  if (baseUrl === undefined) {
    console.error("usage: node dist/merchant-flow.js BASE_URL [API_KEY] [SHOP_LOGIN]");
    return 2;
  }
  const client = createClient<paths>({ baseUrl });
  let failures = 0;
  const cases: [string, string, string | undefined][] = [
    [FRICTIONLESS_CARD, "OK", undefined],
    [THREE_D_SECURE_CARD, "", "8006"],
  ];
  for (const [card, expectedResult, expectedCode] of cases) {
    const created = await create(client, apiKey, shopLogin, `typescript-client-${card.slice(-4)}`);
    const submitted = await submit(client, apiKey, shopLogin, created.paymentToken, card);
    const asExpected = submitted.transactionResult === expectedResult && submitted.transactionErrorCode === expectedCode;
    if (!asExpected) failures += 1;
    // The address without its query: the issuer's holds the payment token.
    const href = submitted.userRedirect.href.split("?")[0];
    console.log(
      `payment ${created.paymentID}, card ${card.slice(0, 6)}...${card.slice(-4)}: ` +
        `transactionResult "${submitted.transactionResult}", transactionErrorCode ${submitted.transactionErrorCode ?? "none"}, ` +
        `buyer to ${href} (${asExpected ? "as expected" : "NOT as expected"})`,
    );
  }
  return failures === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
