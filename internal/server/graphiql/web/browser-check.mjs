// Browser check of the offline GraphiQL page, run by
// scripts/graphiql-browser-check.sh (which installs Chromium and the npm
// packages first).
//
//   [CHECK_KEY=<api key>] node browser-check.mjs [URL] [SCREENSHOT]
//
// URL defaults to http://127.0.0.1:8080/ and SCREENSHOT to /tmp/graphiql.png.
// It drives Debian's Chromium (CHROMIUM, default /usr/bin/chromium) headless
// through playwright-core and fails when:
//   - any request goes to an origin other than the page's own;
//   - GraphiQL does not render its query editor, or the Headers tab is not
//     shown with the default Authorization header;
//   - the page sends an introspection request, or shows anything in the
//     response pane, while the headers still hold the placeholder key;
//   - headers typed into the header editor are not sent with the query;
//   - the page reports a Content-Security-Policy violation (the page is
//     loaded under whatever CSP the server sends; the DebtQL handler sends
//     graphiql.ContentSecurityPolicy()).
//
// With CHECK_KEY set to an API key the server accepts, it then also types
// that key into the header editor (after a rejected one, see testKey) and
// fails unless the schema is fetched again by itself: an introspection
// request carrying the key must succeed, the documentation explorer must
// show Query.viewer, autocompletion must offer "viewer", and running
// { viewer { role } } must show a response with data and no errors, and a
// subscription (auditEvents after 0) must open a WebSocket to the page's own
// /graphql and show an event (the check creates and revokes an ADMIN key named
// "graphiql browser check" for it). That part writes a screenshot to
// CHECK_KEY_SCREENSHOT (/tmp/graphiql-auth.png).
import { chromium } from 'playwright-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const pageURL = new URL(process.argv[2] || 'http://127.0.0.1:8080/');
const screenshot = process.argv[3] || '/tmp/graphiql.png';
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
const timeout = 30_000;
const testKey = 'browser-check-key';
const checkKey = process.env.CHECK_KEY || '';
const authScreenshot = process.env.CHECK_KEY_SCREENSHOT || '/tmp/graphiql-auth.png';

const failures = [];
const fail = (msg) => {
  failures.push(msg);
  console.error(`FAIL: ${msg}`);
};

const responseText = (page) =>
  page.evaluate(() => {
    const cm = document.querySelector('.graphiql-response .CodeMirror');
    return cm ? cm.CodeMirror.getValue() : '';
  });

// setEditor replaces the content of a CodeMirror editor by typing, like a user.
async function setEditor(page, editor, text) {
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.insertText(text);
}

async function checkSchemaAfterKey(page, headerEditor, isIntrospection, wrongKeyIntrospection) {
  // testKey, typed above, is expected to be refused; its introspection failed
  // (or the server accepts any key). Either way the page must recover below.
  const wrong = await wrongKeyIntrospection;
  console.log(
    wrong
      ? `introspection with "${testKey}": HTTP ${wrong.status()}`
      : `no introspection request for "${testKey}" within 10s`,
  );
  if (!wrong) fail(`typing "Bearer ${testKey}" did not trigger an introspection request`);

  const want = `Bearer ${checkKey}`;
  const introspected = page.waitForResponse(
    async (r) => isIntrospection(r.request()) && (await r.request().headerValue('authorization')) === want,
    { timeout },
  );
  const typedAt = Date.now();
  await setEditor(page, headerEditor, `{"Authorization": "${want}"}`);
  console.log('headers typed: {"Authorization": "Bearer <CHECK_KEY>"}');
  const intro = await introspected;
  const introBody = await intro.json().catch(() => null);
  if (!intro.ok() || !introBody?.data?.__schema) {
    fail(`introspection with CHECK_KEY answered HTTP ${intro.status()}: ${JSON.stringify(introBody).slice(0, 200)}`);
    return;
  }
  console.log(`introspection with CHECK_KEY sent ${Date.now() - typedAt} ms after typing: HTTP ${intro.status()}, schema received`);

  // Documentation explorer: root type Query, field viewer.
  await page.click('[aria-label="Show Documentation Explorer"]');
  const docs = page.locator('.graphiql-doc-explorer');
  await docs.waitFor({ state: 'visible', timeout });
  await docs.locator('a.graphiql-doc-explorer-type-name', { hasText: /^Query$/ }).first().click({ timeout });
  await docs.locator('.graphiql-doc-explorer-field-name', { hasText: /^viewer$/ }).first().waitFor({ timeout });
  console.log('documentation explorer shows Query.viewer');

  // Autocompletion from the schema: "viewer" is the only field starting with
  // "vi", which CodeMirror inserts directly; with more candidates it would
  // list them in .CodeMirror-hints instead.
  const queryEditor = page.locator('.graphiql-query-editor .CodeMirror');
  await setEditor(page, queryEditor, '{ vi');
  await page.keyboard.press('Control+Space');
  try {
    const how = await page.waitForFunction(
      () => {
        const text = document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.getValue();
        if (/^\{ viewer\b/.test(text)) return 'completed to';
        const hints = [...document.querySelectorAll('.CodeMirror-hints .CodeMirror-hint')];
        return hints.some((h) => h.textContent.trim() === 'viewer') ? 'lists' : false;
      },
      null,
      { timeout: 10_000 },
    );
    console.log(`autocompletion of "{ vi" ${await how.jsonValue()} "viewer"`);
  } catch {
    fail('autocompletion does not offer "viewer" after the key was entered');
  }
  await page.keyboard.press('Escape');

  // Run { viewer { role } } with the key.
  await setEditor(page, queryEditor, '{ viewer { role } }');
  const executed = page.waitForResponse(
    (r) => r.request().method() === 'POST' && /viewer\s*\{\s*role/.test(r.request().postData() || '') &&
      !(r.request().postData() || '').includes('__schema'),
    { timeout },
  );
  await page.click('.graphiql-execute-button');
  const exec = await executed;
  console.log(`query { viewer { role } } answered HTTP ${exec.status()}`);
  try {
    await page.waitForFunction(
      () => {
        const cm = document.querySelector('.graphiql-response .CodeMirror');
        return cm && /"role"/.test(cm.CodeMirror.getValue());
      },
      null,
      { timeout },
    );
  } catch {
    fail(`response pane does not show viewer.role: ${JSON.stringify((await responseText(page)).slice(0, 200))}`);
  }
  const shown = await responseText(page);
  let parsed = null;
  try {
    parsed = JSON.parse(shown);
  } catch {
    fail(`response pane does not hold JSON: ${JSON.stringify(shown.slice(0, 200))}`);
  }
  if (parsed && (parsed.errors || typeof parsed.data?.viewer?.role !== 'string')) {
    fail(`unexpected response: ${JSON.stringify(parsed).slice(0, 200)}`);
  } else if (parsed) {
    console.log(`response shown: ${JSON.stringify(parsed)}`);
  }
  await page.screenshot({ path: authScreenshot });
  console.log(`screenshot: ${authScreenshot}`);

  await checkSubscription(page);
}

// checkSubscription runs `subscription { auditEvents(after: 0) { id operation } }`
// in the editor: GraphiQL must open the WebSocket at /graphql with the key of
// the Headers tab in connection_init, and show events from the trail (the key
// creates and revokes a key through the API meanwhile, so there are events).
async function checkSubscription(page) {
  const queryEditor = page.locator('.graphiql-query-editor .CodeMirror');
  const opened = page.waitForEvent('websocket', { timeout });
  await setEditor(page, queryEditor, 'subscription { auditEvents(after: 0) { id operation } }');
  await page.click('.graphiql-execute-button');
  let socket;
  try {
    socket = await opened;
  } catch {
    fail('running a subscription opened no WebSocket');
    return;
  }
  const wsURL = new URL(socket.url());
  if (wsURL.host !== pageURL.host || wsURL.pathname !== '/graphql') {
    fail(`the subscription's WebSocket went to ${socket.url()}`);
  }
  console.log(`subscription: WebSocket opened at ${socket.url()}`);
  // Something to report, whatever the trail held: a key created and revoked
  // at once (two events), over HTTP with CHECK_KEY.
  const gql = async (query, variables) => {
    const r = await page.request.post(new URL('/graphql', pageURL).href, {
      headers: { Authorization: `Bearer ${checkKey}`, 'Content-Type': 'application/json' },
      data: { query, variables },
    });
    return (await r.json()).data;
  };
  const made = await gql('mutation { createApiKey(input: {name: "graphiql browser check", role: ADMIN}) { apiKey { id } } }');
  if (made?.createApiKey) {
    await gql('mutation($id: UUID!) { revokeApiKey(id: $id) { id } }', { id: made.createApiKey.apiKey.id });
  }
  try {
    await page.waitForFunction(
      () => {
        const cm = document.querySelector('.graphiql-response .CodeMirror');
        return cm && /"auditEvents"/.test(cm.CodeMirror.getValue()) && /"operation"/.test(cm.CodeMirror.getValue());
      },
      null,
      { timeout },
    );
    const shown = await responseText(page);
    console.log(`subscription event shown: ${JSON.stringify(JSON.parse(shown))}`);
  } catch {
    fail(`response pane shows no event of the subscription: ${JSON.stringify((await responseText(page)).slice(0, 200))}`);
  }
  // Stop it (the execute button toggles), so the socket closes.
  await page.click('.graphiql-execute-button').catch(() => {});
}

const userDataDir = await mkdtemp(path.join(tmpdir(), 'graphiql-check-'));
let context;
try {
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1400, height: 900 },
    timeout,
  });

  // Every request of every page and worker of the context, from the start.
  const requests = [];
  context.on('request', (req) => requests.push(req));

  // Collected in the page, before any of its own scripts run. Init scripts
  // are injected by the browser itself, so the page's CSP does not stop them.
  await context.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations.push({
        directive: e.effectiveDirective || e.violatedDirective,
        blocked: e.blockedURI,
        sample: e.sample,
        source: e.sourceFile ? `${e.sourceFile}:${e.lineNumber}` : '',
      });
    });
  });

  const page = context.pages()[0] || (await context.newPage());
  const consoleErrors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (err) => fail(`uncaught page error: ${err.message}`));

  const resp = await page.goto(pageURL.href, { waitUntil: 'load', timeout });
  if (!resp || !resp.ok()) {
    fail(`GET ${pageURL.href} answered ${resp ? resp.status() : 'nothing'}`);
  }
  const csp = resp ? await resp.headerValue('content-security-policy') : null;
  console.log(`page: ${pageURL.href} (${resp && resp.status()})`);
  console.log(`Content-Security-Policy: ${csp || '(none sent by the server)'}`);

  // GraphiQL renders: container, query editor, editor tools with Headers.
  await page.waitForSelector('.graphiql-container', { timeout });
  await page.waitForSelector('.graphiql-query-editor .CodeMirror', { timeout });
  const queryText = await page.evaluate(
    () => document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.getValue(),
  );
  if (!/viewer\s*\{\s*role\s*\}/.test(queryText)) {
    fail(`default query lacks "{ viewer { role } }": ${JSON.stringify(queryText)}`);
  }

  const headersTab = page.locator('.graphiql-editor-tools button[data-name="headers"]');
  await headersTab.waitFor({ state: 'visible', timeout });
  if (!(await headersTab.evaluate((b) => b.classList.contains('active')))) {
    await headersTab.click();
  }
  const headerEditor = page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror');
  await headerEditor.waitFor({ state: 'visible', timeout });
  const defaultHeaders = await headerEditor.evaluate((el) => el.CodeMirror.getValue());
  if (!defaultHeaders.includes('"Authorization": "Bearer PASTE-YOUR-API-KEY"')) {
    fail(`header editor does not show the default Authorization header: ${JSON.stringify(defaultHeaders)}`);
  }

  const endpoint = new URL(
    (await page.getAttribute('#root', 'data-endpoint')) || '/graphql',
    pageURL,
  ).href;
  const isIntrospection = (req) =>
    req.url() === endpoint && req.method() === 'POST' && (req.postData() || '').includes('__schema');

  // With only the placeholder key, the page must stay quiet: no introspection
  // request (it could only fail) and nothing in the response pane.
  await page.waitForTimeout(1500);
  const earlyIntrospections = requests.filter(isIntrospection);
  if (earlyIntrospections.length) {
    fail(`${earlyIntrospections.length} introspection request(s) sent with the placeholder key`);
  }
  const earlyResponse = await responseText(page);
  if (earlyResponse.trim() !== '') {
    fail(`response pane not empty before any key was entered: ${JSON.stringify(earlyResponse.slice(0, 200))}`);
  } else {
    console.log('placeholder key: no introspection request, response pane empty');
  }

  // Type a header like a user pasting an API key, then run the query.
  const wrongKeyIntrospection = page
    .waitForResponse((r) => isIntrospection(r.request()), { timeout: 10_000 })
    .catch(() => null);
  await headerEditor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.insertText(`{"Authorization": "Bearer ${testKey}"}`);
  const typedHeaders = await headerEditor.evaluate((el) => el.CodeMirror.getValue());
  console.log(`headers typed: ${typedHeaders}`);

  const sent = page.waitForRequest(
    (req) => req.url() === endpoint && req.method() === 'POST' && (req.postData() || '').includes('viewer'),
    { timeout },
  );
  await page.click('.graphiql-execute-button');
  const queryReq = await sent;
  const auth = (await queryReq.allHeaders())['authorization'];
  if (auth !== `Bearer ${testKey}`) {
    fail(`query sent with Authorization ${JSON.stringify(auth)}, want "Bearer ${testKey}"`);
  } else {
    console.log(`query sent to ${endpoint} with the typed Authorization header`);
  }
  await page.waitForFunction(
    () => {
      const cm = document.querySelector('.graphiql-response .CodeMirror');
      return cm && cm.CodeMirror.getValue().trim() !== '';
    },
    null,
    { timeout },
  );
  const shown = await responseText(page);
  console.log(`response shown: ${shown.replace(/\s+/g, ' ').slice(0, 200)}`);

  // Open and close the settings dialog: GraphiQL's dialogs lock scrolling
  // with an injected stylesheet, the classic trip-wire of a strict CSP.
  await page.click('[aria-label="Open settings dialog"]');
  await page.waitForSelector('.graphiql-dialog', { state: 'visible', timeout });
  await page.keyboard.press('Escape');
  await page.waitForSelector('.graphiql-dialog', { state: 'detached', timeout });

  // Let late requests (fonts, images) settle before judging them.
  await page.waitForLoadState('networkidle', { timeout }).catch(() => {});
  await page.screenshot({ path: screenshot });
  console.log(`screenshot: ${screenshot}`);

  // A real key refetches the schema by itself.
  if (checkKey) {
    await checkSchemaAfterKey(page, headerEditor, isIntrospection, wrongKeyIntrospection);
  }

  console.log(`requests (${requests.length}):`);
  for (const req of requests) {
    const u = new URL(req.url());
    const local = u.protocol === 'data:' || u.protocol === 'blob:' || u.origin === pageURL.origin;
    console.log(`  ${local ? 'ok     ' : 'FOREIGN'} ${req.method()} ${req.url().slice(0, 120)}`);
    if (!local) fail(`request to a foreign origin: ${req.url()}`);
  }

  const violations = await page.evaluate(() => window.__cspViolations);
  for (const v of violations) {
    fail(`CSP violation: ${v.directive} blocked ${v.blocked} ${v.sample || ''} ${v.source}`);
  }
  for (const text of consoleErrors) {
    console.log(`console error: ${text}`);
  }
} catch (err) {
  fail(err.stack || String(err));
} finally {
  if (context) await context.close().catch(() => {});
  await rm(userDataDir, { recursive: true, force: true });
}

if (failures.length) {
  console.error(`graphiql browser check: ${failures.length} failure(s)`);
  process.exit(1);
}
console.log('graphiql browser check: OK');
