// GraphQL Code Generator configuration: TypeScript types for DebtQL's
// schema and typed documents (TypedDocumentNode) for the example operations
// in docs/examples, which a Go test runs against the real server. Both paths
// are the repository's own files, so the types follow the contract as
// committed. See docs/frontend.md, "Typed documents with GraphQL Code
// Generator".
import type { CodegenConfig } from '@graphql-codegen/cli';

const config: CodegenConfig = {
  // The API's schema: its types, and the files that extend them
  // (data rights; subscriptions and webhooks).
  schema: ['../../schema.graphqls', '../../datarights.graphqls', '../../events.graphqls'],
  documents: ['../../docs/examples/*.graphql'],
  // A document that does not validate against the schema fails the run.
  ignoreNoDocuments: false,
  generates: {
    'src/generated/graphql.ts': {
      plugins: ['typescript', 'typescript-operations', 'typed-document-node'],
      config: {
        // Every custom scalar travels as a JSON string. strictScalars makes
        // a scalar added to the schema without a mapping here an error
        // instead of a silent `any`.
        strictScalars: true,
        scalars: {
          UUID: 'string',
          Date: 'string', // YYYY-MM-DD
          DateTime: 'string', // RFC 3339 with an offset; UTC (Z) on output
          // Exact decimals: the server also accepts JSON numbers, but a
          // JavaScript number is a binary float, so send strings.
          Decimal: 'string',
          // debtorDataExport's document (api.md §14).
          JSON: 'Record<string, unknown>',
        },
        // Enums as string unions: nothing to import at run time.
        enumsAsTypes: true,
        useTypeImports: true,
      },
    },
  },
};

export default config;
