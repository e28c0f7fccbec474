// Seeds a running DebtQL through its API for the federation check
// (check.sh): a client with a CLIENT key and three debts, and another
// client with one debt. Writes what check.mjs needs as JSON to the file
// given as its argument.
//
//   DEBTQL_URL=http://127.0.0.1:8080 ADMIN_KEY=... node seed.mjs seed.json
import { writeFileSync } from 'node:fs';

const url = process.env.DEBTQL_URL;
const adminKey = process.env.ADMIN_KEY;
const out = process.argv[2];
if (!url || !adminKey || !out) {
  console.error('usage: DEBTQL_URL=... ADMIN_KEY=... node seed.mjs OUT.json');
  process.exit(2);
}

// graphql posts one operation to DebtQL and returns its data, failing on
// any error.
async function graphql(key, query, variables) {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = await res.json();
  if (res.status !== 200 || body.errors) {
    throw new Error(`DebtQL answered ${res.status}: ${JSON.stringify(body)}`);
  }
  return body.data;
}

// A valid Swedish client (the fixtures of internal/apitest).
const clientInput = (name) => ({
  name,
  organizationNumber: '556036-0793',
  adress1: 'Storgatan 1',
  address2: 'Box 12',
  zipCode: '111 22',
  city: 'Stockholm',
  countryCode: 'SE',
  bankNumber: '5050-1055',
  email: 'faktura@example.se',
  contactName: 'Anna Andersson',
  contactEmail: 'anna@example.se',
  contactPhone: '+46 8 123 456',
});

// A Norwegian debtor (free-form identification number) with one item.
const debtInput = (n, amount) => ({
  isCorporation: false,
  identificationNumber: `NO-${n}`,
  name: `Debitor ${n}`,
  address: { address1: 'Storgata 1', zipCode: '0150', city: 'Oslo', countryCode: 'NO' },
  debts: [
    {
      invoiceNumber: `F-${n}`,
      invoiceDate: '2026-09-01T10:00:00+02:00',
      dueDate: '2026-10-01T10:00:00+02:00',
      amount,
    },
  ],
});

const createClient = `mutation($input: ClientInput!) { createClient(input: $input) { id } }`;
const createDebt = `mutation($c: UUID!, $input: DebtorWithDebtsInput!) {
  createDebt(clientId: $c, input: $input) { id originalAmount } }`;

const own = (await graphql(adminKey, createClient, { input: clientInput('Federation AB') })).createClient.id;
const other = (await graphql(adminKey, createClient, { input: clientInput('Other AB') })).createClient.id;
const key = await graphql(
  adminKey,
  `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret } }`,
  { input: { name: 'federation check', role: 'CLIENT', clientId: own } },
);
const clientKey = key.createApiKey.secret;

// The client's own debts, created with its own key.
const debts = [];
for (const [n, amount] of [[1, '1250.00'], [2, '99.50'], [3, '40000.00']]) {
  debts.push((await graphql(clientKey, createDebt, { c: own, input: debtInput(n, amount) })).createDebt);
}
const otherDebt = (await graphql(adminKey, createDebt, { c: other, input: debtInput(9, '777.00') })).createDebt;

writeFileSync(out, JSON.stringify({ clientId: own, clientKey, debts, otherClientId: other, otherDebtId: otherDebt.id }, null, 2));
console.log(`seeded client ${own} with ${debts.length} debts and a CLIENT key; another client's debt ${otherDebt.id}`);
