// The federation check of docs/federation.md, against a running DebtQL
// that seed.mjs has seeded (check.sh does both):
//
//   1. reads DebtQL's subgraph SDL from `_service { sdl }`;
//   2. starts a second, tiny subgraph ("risk") that adds Debt.riskScore,
//      resolved from the debt's id, and a root field flaggedDebt(id) that
//      returns a reference to a debt, which DebtQL resolves (_entities);
//   3. composes the two with @apollo/composition and serves the supergraph
//      with @apollo/gateway and @apollo/server, forwarding the caller's
//      Authorization header to the subgraphs (willSendRequest);
//   4. runs queries through the gateway with the client's CLIENT key: a page
//      of debts from DebtQL with riskScore from the other subgraph, the
//      client's own flagged debt, and another client's, which DebtQL's
//      _entities resolves to null; then DebtQL's _entities directly, an
//      ADMIN key, and DebtQL's refusals (no key, another client's id)
//      arriving through the gateway with their codes.
//
//   DEBTQL_URL=http://127.0.0.1:8080 ADMIN_KEY=... node check.mjs seed.json
import { readFileSync } from 'node:fs';
import { parse } from 'graphql';
import { composeServices } from '@apollo/composition';
import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema } from '@apollo/subgraph';

const debtqlURL = process.env.DEBTQL_URL;
const adminKey = process.env.ADMIN_KEY;
if (!debtqlURL || !adminKey || !process.argv[2]) {
  console.error('usage: DEBTQL_URL=... ADMIN_KEY=... node check.mjs SEED.json');
  process.exit(2);
}
const seed = JSON.parse(readFileSync(process.argv[2], 'utf8'));

// The whole check must end well within CI's patience.
const deadline = setTimeout(() => {
  console.error('federation check: timed out after 60 s');
  process.exit(1);
}, 60_000);
deadline.unref();

let passed = 0;
let failed = 0;
function check(ok, what, detail) {
  if (ok) {
    passed++;
    console.log(`ok    ${what}`);
  } else {
    failed++;
    console.log(`FAIL  ${what}${detail === undefined ? '' : `: ${JSON.stringify(detail)}`}`);
  }
}

// post sends one GraphQL request and returns its status and parsed body.
async function post(url, key, query, variables) {
  const headers = { 'Content-Type': 'application/json' };
  if (key) headers.Authorization = `Bearer ${key}`;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  return { status: res.status, body: await res.json() };
}

// 1. DebtQL's subgraph SDL. Any key may read it (introspection must be on).
const service = await post(`${debtqlURL}/graphql`, seed.clientKey, '{ _service { sdl } }');
const sdl = service.body.data?._service?.sdl ?? '';
check(service.status === 200 && sdl !== '', '_service { sdl } answers the subgraph SDL', service.body.errors);
for (const type of ['Client', 'Debtor', 'Invoice', 'Debt']) {
  check(sdl.includes(`extend type ${type} @key(fields: "id")`), `the SDL has @key(fields: "id") on ${type}`);
}

// 2. The second subgraph: a made-up risk score for every debt, from its id.
const riskScore = (id) => (id * 37) % 100;
const riskTypeDefs = parse(`
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])

  "A collection case of DebtQL, as the risk service knows it: by its id."
  type Debt @key(fields: "id") {
    "The debt's id (DebtQL's key)."
    id: Int!
    "A risk score from 0 to 99."
    riskScore: Int
  }

  type Query {
    "A debt the risk service flagged: a reference that DebtQL resolves."
    flaggedDebt("The debt's id." id: Int!): Debt
  }
`);
const riskServer = new ApolloServer({
  schema: buildSubgraphSchema({
    typeDefs: riskTypeDefs,
    resolvers: {
      Query: { flaggedDebt: (_, { id }) => ({ id }) },
      Debt: {
        __resolveReference: (ref) => ({ id: ref.id }),
        riskScore: (debt) => riskScore(debt.id),
      },
    },
  }),
  // No usage reporting here: nothing to trace for.
  plugins: [ApolloServerPluginInlineTraceDisabled()],
});
const risk = await startStandaloneServer(riskServer, { listen: { host: '127.0.0.1', port: 0 } });

// 3. Composition, and the gateway that serves the supergraph.
const composed = composeServices([
  { name: 'debtql', typeDefs: parse(sdl), url: `${debtqlURL}/graphql` },
  { name: 'risk', typeDefs: riskTypeDefs, url: risk.url },
]);
check(!composed.errors, "Apollo's composition accepts DebtQL's subgraph with the risk subgraph",
  composed.errors?.map((e) => e.message));
if (composed.errors) {
  await riskServer.stop();
  console.log(`federation check: ${passed} passed, ${failed} failed`);
  process.exit(1);
}

const gateway = new ApolloGateway({
  supergraphSdl: composed.supergraphSdl,
  buildService: ({ url }) =>
    new RemoteGraphQLDataSource({
      url,
      // DebtQL authenticates every request: pass the caller's key on.
      willSendRequest({ request, context }) {
        if (context.authorization) request.http.headers.set('authorization', context.authorization);
      },
    }),
});
const gatewayServer = new ApolloServer({ gateway });
const gw = await startStandaloneServer(gatewayServer, {
  listen: { host: '127.0.0.1', port: 0 },
  context: async ({ req }) => ({ authorization: req.headers.authorization }),
});

try {
  // 4a. A page of debts from DebtQL with riskScore from the risk subgraph.
  const page = await post(gw.url, seed.clientKey, `query Page($c: UUID!) {
    debts(clientId: $c, orderBy: { field: ID, direction: ASC }) {
      totalCount
      nodes { id originalAmount mainStatus debtor { name } riskScore }
    } }`, { c: seed.clientId });
  const nodes = page.body.data?.debts?.nodes ?? [];
  check(page.status === 200 && !page.body.errors, 'the page of debts across both subgraphs has no error', page.body.errors);
  check(page.body.data?.debts?.totalCount === seed.debts.length && nodes.length === seed.debts.length,
    `the page holds the client's ${seed.debts.length} debts`, page.body.data);
  check(seed.debts.every((d, i) => nodes[i]?.id === d.id && nodes[i]?.originalAmount === d.originalAmount
    && nodes[i]?.mainStatus === 'COLLECTION' && nodes[i]?.debtor?.name),
  "each debt's DebtQL fields are the seeded ones", nodes);
  check(nodes.length > 0 && nodes.every((n) => n.riskScore === riskScore(n.id)),
    "each debt's riskScore comes from the risk subgraph", nodes.map((n) => [n.id, n.riskScore]));

  // 4b. References the risk subgraph returns, which DebtQL resolves with
  // _entities under the caller's key: the client's own debt, another
  // client's (null), and one that does not exist (null).
  const flagged = `query Flagged($own: Int!, $theirs: Int!, $missing: Int!) {
    own: flaggedDebt(id: $own) { id originalAmount riskScore }
    theirs: flaggedDebt(id: $theirs) { id originalAmount riskScore }
    missing: flaggedDebt(id: $missing) { id originalAmount riskScore } }`;
  const ids = { own: seed.debts[0].id, theirs: seed.otherDebtId, missing: 2_000_000_000 };
  const asClient = await post(gw.url, seed.clientKey, flagged, ids);
  const d = asClient.body.data ?? {};
  check(d.own?.id === ids.own && d.own?.originalAmount === seed.debts[0].originalAmount
    && d.own?.riskScore === riskScore(ids.own), "the client's own flagged debt resolves through DebtQL's _entities", asClient.body);
  check(asClient.status === 200 && !asClient.body.errors && d.theirs === null && d.missing === null,
    "another client's flagged debt and a missing one are null, without an error", asClient.body);
  check(!JSON.stringify(asClient.body).includes('777.00'), "another client's amount appears nowhere in the answer", asClient.body);

  // The same representations sent to DebtQL's _entities directly, as the
  // gateway does: null for another client's debt and for a missing one,
  // without an error.
  const entitiesQuery = `query($r: [_Any!]!) { _entities(representations: $r) { ... on Debt { id originalAmount } } }`;
  const reps = [ids.own, ids.theirs, ids.missing].map((id) => ({ __typename: 'Debt', id }));
  const direct = await post(`${debtqlURL}/graphql`, seed.clientKey, entitiesQuery, { r: reps });
  const entities = direct.body.data?._entities;
  check(direct.status === 200 && !direct.body.errors && entities?.length === 3
    && entities[0]?.id === ids.own && entities[1] === null && entities[2] === null,
  "DebtQL's _entities with the CLIENT key: own debt found; another client's and a missing one null, no error", direct.body);

  // An ADMIN key sees every client's debt: the null above is the tenancy.
  const asAdmin = await post(gw.url, adminKey, flagged, ids);
  check(asAdmin.body.data?.theirs?.id === ids.theirs && asAdmin.body.data?.theirs?.originalAmount === '777.00',
    "with an ADMIN key the other client's flagged debt resolves", asAdmin.body);

  // DebtQL's refusals reach the caller with their codes, and no data.
  const count = `query($c: UUID!) { debts(clientId: $c) { totalCount } }`;
  const anonymous = await post(gw.url, '', count, { c: seed.clientId });
  check(anonymous.body.errors?.[0]?.extensions?.code === 'UNAUTHENTICATED' && !anonymous.body.data?.debts,
    'without a key the gateway answers UNAUTHENTICATED and no debts', anonymous.body.errors?.[0]?.message);
  const forbidden = await post(gw.url, seed.clientKey, count, { c: seed.otherClientId });
  check(forbidden.body.errors?.[0]?.extensions?.code === 'FORBIDDEN' && !forbidden.body.data?.debts,
    "the CLIENT key naming another client gets FORBIDDEN through the gateway", forbidden.body.errors?.[0]);
} finally {
  await gatewayServer.stop();
  await riskServer.stop();
}

console.log(`federation check: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
