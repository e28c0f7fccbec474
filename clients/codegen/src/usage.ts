// A small DebtQL client over fetch that takes the generated typed documents:
// the variables a document needs and the data it answers are checked by the
// compiler. check.sh type-checks this file against freshly generated types,
// so a change to the schema or to an example document that breaks a caller
// fails CI. It is never run.
import { print } from 'graphql';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';

import {
  AddDebtPaymentDocument,
  CreateDebtDocument,
  DebtsPageDocument,
  type DebtsPageQuery,
  type PaymentStatus,
} from './generated/graphql';

/** A GraphQL error as DebtQL shapes it: a code, and for input the field. */
export type DebtQLErrorEntry = {
  message: string;
  extensions?: { code?: string; field?: string };
};

/** A refused operation: the HTTP status, the errors and the request id. */
export class DebtQLError extends Error {
  constructor(
    readonly status: number,
    readonly errors: DebtQLErrorEntry[],
    readonly requestId: string | null,
  ) {
    super(errors[0]?.message ?? `HTTP ${status}`);
  }

  get code(): string | undefined {
    return this.errors[0]?.extensions?.code;
  }
}

/** Where and as whom to call DebtQL (a BFF reads the key from its secrets). */
export type Endpoint = { url: string; apiKey: string };

/**
 * Sends one operation and returns its data. A refusal (any error: DebtQL
 * answers a refused single-root operation with its status and no data)
 * throws DebtQLError.
 */
export async function execute<TData, TVariables>(
  endpoint: Endpoint,
  document: TypedDocumentNode<TData, TVariables>,
  variables: TVariables,
  options: { idempotencyKey?: string } = {},
): Promise<TData> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/graphql-response+json',
    Authorization: `Bearer ${endpoint.apiKey}`,
  };
  if (options.idempotencyKey) headers['Idempotency-Key'] = options.idempotencyKey;
  const response = await fetch(endpoint.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ query: print(document), variables }),
  });
  const body = (await response.json()) as { data?: TData | null; errors?: DebtQLErrorEntry[] };
  if (body.errors?.length || body.data == null) {
    throw new DebtQLError(response.status, body.errors ?? [], response.headers.get('X-Request-Id'));
  }
  return body.data;
}

type DebtRow = DebtsPageQuery['debts']['nodes'][number];

/** One page of a client's open debts, as a table shows it. */
export async function openDebts(endpoint: Endpoint, clientId: string, page: number, search = '') {
  const data = await execute(endpoint, DebtsPageDocument, { clientId, page, rowsPerPage: 25, search });
  const rows: DebtRow[] = data.debts.nodes;
  const pages = Math.ceil(data.debts.totalCount / 25);
  // Decimal is an exact string ("1250.00"): format it, never parse it into a float for sums.
  const remaining: string[] = rows.map((debt) => debt.remainingAmount);
  const statuses: PaymentStatus[] = rows.map((debt) => debt.paymentStatus);
  return { rows, pages, remaining, statuses };
}

/** Hands one invoice over for collection; the answer names the item to pay on. */
export async function handOver(endpoint: Endpoint, clientId: string) {
  const data = await execute(endpoint, CreateDebtDocument, {
    clientId,
    input: {
      isCorporation: false,
      identificationNumber: '811228-9874',
      name: 'Sven Svensson',
      address: { address1: 'Vägen 2', zipCode: '123 45', city: 'Malmö', countryCode: 'SE' },
      debts: [
        {
          invoiceNumber: 'F-2026-0042',
          invoiceDate: '2026-09-01T00:00:00+02:00',
          dueDate: '2026-10-01T00:00:00+02:00',
          amount: '1250.00',
        },
      ],
    },
  });
  const debtId: number = data.createDebt.id; // Debt ids are integers; client, debtor and key ids UUIDs.
  const itemId = data.createDebt.invoices[0]?.id;
  return { debtId, itemId };
}

/** Books a payment once, however often the call is retried with the same key. */
export async function bookPayment(
  endpoint: Endpoint,
  clientId: string,
  debtId: number,
  itemId: number,
  amount: string,
  idempotencyKey: string,
) {
  const data = await execute(
    endpoint,
    AddDebtPaymentDocument,
    { clientId, input: { debtId, invoiceId: itemId, amount, transactionDate: '2026-11-02' } },
    { idempotencyKey },
  );
  return data.addDebtPayment.debt.remainingAmount;
}

// What the types refuse: each line below must fail to compile (tsc reports
// an unused @ts-expect-error otherwise). The function is never called.
export function refusedByTheCompiler(endpoint: Endpoint, clientId: string) {
  // @ts-expect-error rowsPerPage is required by DebtsPage.
  void execute(endpoint, DebtsPageDocument, { clientId, page: 1 });
  // @ts-expect-error Decimal is a string, not a float.
  void bookPayment(endpoint, clientId, 1, 2, 300.5, 'key');
  // @ts-expect-error debtId is an Int: a number, not a string.
  void execute(endpoint, AddDebtPaymentDocument, { clientId, input: { debtId: '1', invoiceId: 2, amount: '1.00', transactionDate: '2026-11-02' } });
  void (async () => {
    const data = await execute(endpoint, DebtsPageDocument, { clientId, page: 1, rowsPerPage: 25 });
    // @ts-expect-error the page selects no withdrawComment.
    return data.debts.nodes[0]?.withdrawComment;
  })();
}
