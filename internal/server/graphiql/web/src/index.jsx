// Entry point of the offline GraphiQL bundle served by internal/server/graphiql.
//
// The Go handler renders a static HTML page without any inline script; the
// GraphQL endpoint is handed over through the data-endpoint attribute of the
// #root element, so a strict Content-Security-Policy (script-src 'self') holds.
import React, { createContext, useContext, useEffect, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import { useEditorContext, useSchemaContext } from '@graphiql/react';
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { getOperationAST, parse } from 'graphql';
import { createClient } from 'graphql-ws';

// Only the GraphiQL stylesheets proper: the web fonts (Roboto, Fira Code,
// ~350 KB of base64) that graphiql/graphiql.css also carries are left out on
// purpose; the CSS falls back to the system sans-serif and monospace fonts.
import '@graphiql/react/dist/style.css';
import 'graphiql/src/style.css';
import './page.css';

const PLACEHOLDER_KEY = 'PASTE-YOUR-API-KEY';

// Short lines: with the docs pane open, the query editor shows about 38
// columns next to its toolbar.
const DEFAULT_QUERY = `# Paste your API key into the
# Headers tab below (replace
# ${PLACEHOLDER_KEY}). The schema
# (docs, autocomplete) loads as
# soon as the key is accepted.
# Run with Ctrl-Enter.
{
  viewer {
    role
  }
}
`;

const DEFAULT_HEADERS = `{"Authorization": "Bearer ${PLACEHOLDER_KEY}"}`;

// Quiet time after the last edit of the headers before the schema is
// fetched again. GraphiQL itself copies the header editor into its tab state
// 100 ms after an edit; this watcher starts counting from there.
const HEADERS_DEBOUNCE_MS = 400;

const root = document.getElementById('root');
const endpoint = root.dataset.endpoint || '/graphql';

const httpFetcher = createGraphiQLFetcher({ url: endpoint });

// Subscriptions run over a WebSocket at the same path (graphql-transport-ws).
// A browser cannot set headers on a WebSocket, so the Authorization header of
// the Headers tab travels in connection_init's payload; a new key opens a
// new connection.
const wsURL = new URL(endpoint, window.location.href);
wsURL.protocol = wsURL.protocol === 'https:' ? 'wss:' : 'ws:';
let ws = null;
let wsAuth = null;

function wsClient(headers) {
  const name = Object.keys(headers || {}).find((k) => k.toLowerCase() === 'authorization');
  const auth = name === undefined ? '' : String(headers[name]);
  if (ws && wsAuth === auth) return ws;
  if (ws) ws.dispose();
  wsAuth = auth;
  ws = createClient({ url: wsURL.href, connectionParams: { Authorization: auth }, lazy: true, retryAttempts: 0 });
  return ws;
}

// The query text decides, not opts.documentAST: the editor parses its text
// a moment after an edit, so the AST can still be the previous document's.
function isSubscription(params) {
  try {
    const doc = parse(params.query);
    return getOperationAST(doc, params.operationName || undefined)?.operation === 'subscription';
  } catch {
    return false;
  }
}

// fetcher sends queries and mutations over HTTP, subscriptions over the
// WebSocket; GraphiQL shows each event of a subscription as it comes.
function fetcher(params, opts) {
  if (!isSubscription(params)) return httpFetcher(params, opts);
  return wsClient(opts?.headers).iterate({
    query: params.query,
    operationName: params.operationName || undefined,
    variables: params.variables ?? undefined,
  });
}

// authKey returns the normalised headers text when it parses as a JSON object
// with a usable Authorization header (any letter case, not the placeholder),
// and null otherwise.
function authKey(headersText) {
  let headers;
  try {
    headers = JSON.parse(headersText || '');
  } catch {
    return null;
  }
  if (!headers || typeof headers !== 'object' || Array.isArray(headers)) return null;
  const name = Object.keys(headers).find((k) => k.toLowerCase() === 'authorization');
  const value = name === undefined ? null : headers[name];
  if (typeof value !== 'string') return null;
  const credentials = value.trim().replace(/^bearer\b/i, '').trim();
  if (credentials === '' || credentials.includes(PLACEHOLDER_KEY)) return null;
  return JSON.stringify(headers);
}

// DebtQL answers every operation, introspection included, with 401 until the
// request carries a valid API key; GraphiQL introspects only once, on load.
// So the page starts without a schema (schema={null}: no introspection, no
// error in the response pane) and SchemaWatcher, rendered inside GraphiQL,
// fetches it once the headers hold a real Authorization value, and again
// whenever that value changes.
const SchemaActivation = createContext(() => {});

function SchemaWatcher() {
  const activateSchema = useContext(SchemaActivation);
  const { tabs, activeTabIndex, responseEditor } = useEditorContext({ nonNull: true });
  const { introspect, schema, fetchError } = useSchemaContext({ nonNull: true });
  const headersText = tabs[activeTabIndex]?.headers ?? '';

  const state = useRef({ activated: false, tried: null, error: null, first: true });
  const introspectRef = useRef(introspect);
  introspectRef.current = introspect;
  const fetchErrorRef = useRef(fetchError);
  fetchErrorRef.current = fetchError;

  // The tab state changes, and re-renders GraphiQL's schema provider (which
  // re-reads the header editor), in the same commit as this effect runs: by
  // the time the timer fires, introspection uses the new headers.
  useEffect(() => {
    const s = state.current;
    const delay = s.first ? 0 : HEADERS_DEBOUNCE_MS;
    s.first = false;
    const timer = setTimeout(() => {
      const key = authKey(headersText);
      if (key === null) return;
      // Same headers as last time: refetch only if that attempt failed.
      if (key === s.tried && !fetchErrorRef.current) return;
      s.tried = key;
      if (!s.activated) {
        // schema null -> undefined makes GraphiQL introspect by itself.
        s.activated = true;
        activateSchema();
      } else {
        introspectRef.current();
      }
    }, delay);
    return () => clearTimeout(timer);
  }, [headersText, activateSchema]);

  // A failed introspection (say, a mistyped key) is written into the response
  // pane; clear it once a schema loads, unless a result replaced it meanwhile.
  useEffect(() => {
    if (fetchError) state.current.error = fetchError;
  }, [fetchError]);
  useEffect(() => {
    const s = state.current;
    if (schema && s.error && responseEditor && responseEditor.getValue() === s.error) {
      responseEditor.setValue('');
    }
    if (schema) s.error = null;
  }, [schema, responseEditor]);

  return null;
}

function App() {
  // null: no schema and no introspection; undefined: GraphiQL introspects.
  const [schema, setSchema] = useState(null);
  const activate = useRef(() => setSchema(undefined)).current;
  return (
    <SchemaActivation.Provider value={activate}>
      {/* shouldPersistHeaders is left unset on purpose: headers (the API
          key) are not kept in localStorage by default, and the settings
          dialog still offers the user the choice to persist them (an
          explicit false would hide that toggle). */}
      <GraphiQL
        fetcher={fetcher}
        schema={schema}
        defaultQuery={DEFAULT_QUERY}
        defaultHeaders={DEFAULT_HEADERS}
        defaultEditorToolsVisibility="headers"
        isHeadersEditorEnabled={true}
        toolbar={{ additionalComponent: SchemaWatcher }}
      />
    </SchemaActivation.Provider>
  );
}

createRoot(root).render(<App />);
