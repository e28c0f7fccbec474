// DebtQL's events with the reference clients (docs/frontend.md,
// docs/webhooks.md): a graphql-ws client subscribes over graphql-transport-ws
// with the API key in connectionParams, receives the events of mutations in
// order, resumes with `after` and gets exactly the events it missed; a
// receiver built on the standardwebhooks package verifies every webhook
// delivery of the same events. Exits non-zero on any failure.
//
// Environment: DEBTQL_URL (http://127.0.0.1:PORT), ADMIN_KEY.
import http from "node:http";
import assert from "node:assert/strict";
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import { Webhook } from "standardwebhooks";

const url = process.env.DEBTQL_URL;
const adminKey = process.env.ADMIN_KEY;
assert.ok(url && adminKey, "DEBTQL_URL and ADMIN_KEY are required");
const deadline = (ms, what) =>
  new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms).unref());

async function gql(query, variables, key = adminKey) {
  const res = await fetch(`${url}/graphql`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${key}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = await res.json();
  if (body.errors) throw new Error(`${query.slice(0, 40)}…: ${JSON.stringify(body.errors)}`);
  return body.data;
}

const clientInput = {
  name: "Events Check AB", organizationNumber: "556036-0793", adress1: "Storgatan 1", address2: "Box 12",
  zipCode: "111 22", city: "Stockholm", countryCode: "SE", email: "events@example.se",
  contactName: "Eva", contactEmail: "eva@example.se", contactPhone: "08-123 45 67", bankNumber: "5050-1055",
};

// A client, and a CLIENT key for it: the subscriber and the endpoint are
// the client's, as a creditor's system would have them.
const { createClient: client } = await gql(
  `mutation($in: ClientInput!) { createClient(input: $in) { id } }`, { in: clientInput });
const { createApiKey } = await gql(
  `mutation($in: CreateApiKeyInput!) { createApiKey(input: $in) { secret } }`,
  { in: { name: "events check", role: "CLIENT", clientId: client.id } });
const key = createApiKey.secret;

// The webhook receiver, verifying with standardwebhooks.
let webhook;
const deliveries = new Map(); // webhook-id → body
let wakeDeliveries = () => {};
const receiver = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const payload = Buffer.concat(chunks).toString("utf8");
    try {
      const event = webhook.verify(payload, req.headers);
      assert.equal(req.headers["webhook-id"], String(event.id), "webhook-id is the event id");
      deliveries.set(req.headers["webhook-id"], event);
      res.writeHead(204).end();
      wakeDeliveries();
    } catch (err) {
      console.error("a delivery did not verify:", err.message);
      res.writeHead(400).end();
      process.exitCode = 1;
    }
  });
});
await new Promise((r) => receiver.listen(0, "127.0.0.1", r));
const hookURL = `http://127.0.0.1:${receiver.address().port}/debtql`;
const { createWebhookEndpoint } = await gql(
  `mutation($in: WebhookEndpointInput!) { createWebhookEndpoint(input: $in) { secret endpoint { id } } }`,
  { in: { url: hookURL, operations: ["createDebt", "addDebtPayment"] } }, key);
assert.match(createWebhookEndpoint.secret, /^whsec_/);
webhook = new Webhook(createWebhookEndpoint.secret);

// The subscriber: graphql-ws, the key in connectionParams.
const wsURL = url.replace(/^http/, "ws") + "/graphql";
const ws = createClient({
  url: wsURL,
  webSocketImpl: WebSocket,
  connectionParams: { Authorization: `Bearer ${key}` },
  retryAttempts: 0,
});
const eventsQuery = `subscription($after: Int) { auditEvents(after: $after) { id operation clientId records { recordType recordId } } }`;

// subscribe collects events until n have come.
function subscribe(variables, n) {
  const got = [];
  let done, fail;
  const finished = new Promise((res, rej) => { done = res; fail = rej; });
  const stop = ws.subscribe({ query: eventsQuery, variables }, {
    next: (m) => {
      if (m.errors) return fail(new Error(JSON.stringify(m.errors)));
      got.push(m.data.auditEvents);
      if (got.length === n) done(got);
    },
    error: (e) => fail(e instanceof Error ? e : new Error(JSON.stringify(e))),
    complete: () => {},
  });
  return { finished: Promise.race([finished, deadline(20000, `${n} events`)]), stop };
}

// The last event so far (the endpoint's creation), to subscribe after it:
// a subscription with after misses nothing that commits later.
const { auditEvents } = await gql(`{ auditEvents(first: 1) { nodes { id } } }`, {}, key);
const start = auditEvents.nodes[0].id;
const live = subscribe({ after: start }, 3);

const debtInput = {
  isCorporation: false, identificationNumber: "811228-9874", name: "Sven Svensson",
  address: { address1: "Vägen 1", zipCode: "111 22", city: "Stockholm", countryCode: "SE" },
  debts: [{ invoiceNumber: "EV-1", invoiceDate: "2026-01-01T00:00:00+01:00", dueDate: "2026-01-31T00:00:00+01:00", amount: "100.00" }],
};
const { createDebt } = await gql(
  `mutation($c: UUID!, $in: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $in) { id invoices { id } } }`,
  { c: client.id, in: debtInput }, key);
for (const amount of ["10.00", "15.50"]) {
  await gql(`mutation($c: UUID!, $in: DebtPaymentInput!) { addDebtPayment(clientId: $c, input: $in) { id } }`,
    { c: client.id, in: { debtId: createDebt.id, invoiceId: createDebt.invoices[0].id, amount, transactionDate: "2026-11-20" } }, key);
}
const first = await live.finished;
live.stop();
assert.deepEqual(first.map((e) => e.operation), ["createDebt", "addDebtPayment", "addDebtPayment"]);
for (let i = 1; i < first.length; i++) assert.ok(first[i].id > first[i - 1].id, "ids grow");
for (const e of first) assert.equal(e.clientId, client.id);
console.log(`subscription: ${first.length} events in order (${first.map((e) => e.id).join(", ")})`);

// Resuming after the first: exactly the two after it, none twice.
const resumed = subscribe({ after: first[0].id }, 2);
const again = await resumed.finished;
resumed.stop();
assert.deepEqual(again.map((e) => e.id), first.slice(1).map((e) => e.id));
console.log(`resumed after ${first[0].id}: ${again.map((e) => e.id).join(", ")}`);

// Another client's events are refused: FORBIDDEN.
const forbidden = await new Promise((resolve) => {
  ws.subscribe({ query: `subscription($c: UUID) { auditEvents(clientId: $c) { id } }`, variables: { c: "00000000-0000-4000-8000-000000000000" } }, {
    next: () => resolve("data"), error: (e) => resolve(JSON.stringify(e)), complete: () => resolve("complete"),
  });
});
assert.match(forbidden, /FORBIDDEN/);
await ws.dispose();

// Every event the endpoint wants was delivered, signed.
await Promise.race([
  new Promise((res) => {
    wakeDeliveries = () => { if (first.every((e) => deliveries.has(String(e.id)))) res(); };
    wakeDeliveries();
  }),
  deadline(30000, "webhook deliveries"),
]);
for (const e of first) assert.equal(deliveries.get(String(e.id)).operation, e.operation);
console.log(`webhooks: ${first.length} deliveries verified by standardwebhooks`);
receiver.close();
console.log("events check passed");
process.exit(process.exitCode ?? 0);
