// PostGraphile 5 as a team would configure it for this schema: the anchor
// DebtQL's figures are compared with (docs/performance.md).
//
// Amber is the base preset the PostGraphile documentation recommends; its
// collections are Relay cursor connections (edges, pageInfo, totalCount).
// "+connection -list" pins that, so an upgrade cannot turn them into lists.
// The Relay preset is left out: it replaces primary and foreign keys with
// global node ids, and the operations compare plain ids with DebtQL's.
// The connection-filter plugin gives the searches their ILIKE
// (includesInsensitive), limited to the operators a list screen uses.
// The server reaches nothing but PostgreSQL on loopback: no GraphiQL (Ruru)
// and no watch mode.
import { makePgService } from "postgraphile/adaptors/pg";
import { PostGraphileAmberPreset } from "postgraphile/presets/amber";
import { PostGraphileConnectionFilterPreset } from "postgraphile-plugin-connection-filter";

const env = process.env;

/** @type {GraphileConfig.Preset} */
const preset = {
  extends: [PostGraphileAmberPreset, PostGraphileConnectionFilterPreset],
  pgServices: [
    makePgService({
      connectionString: env.DATABASE_URL ?? "postgres://bench@127.0.0.1:55432/debtbench",
      schemas: ["public"],
      // node-postgres's default pool is 10 connections: what a deployment
      // gets unless it tunes it. PGL_POOL_MAX changes it for an experiment.
      poolConfig: env.PGL_POOL_MAX ? { max: Number(env.PGL_POOL_MAX) } : undefined,
    }),
  ],
  schema: {
    defaultBehavior: "+connection -list",
    connectionFilterAllowedOperators: [
      "equalTo",
      "notEqualTo",
      "in",
      "lessThan",
      "greaterThan",
      "includes",
      "includesInsensitive",
      "startsWithInsensitive",
    ],
    connectionFilterComputedColumns: false,
    connectionFilterSetofFunctions: false,
    connectionFilterArrays: false,
    // bench/pgl.sh schema writes the generated SDL, to read the API from.
    ...(env.PGL_EXPORT_SDL ? { exportSchemaSDLPath: env.PGL_EXPORT_SDL, sortExport: true } : {}),
  },
  grafserv: {
    host: env.PGL_HOST ?? "127.0.0.1",
    port: Number(env.PGL_PORT ?? 5678),
    graphqlPath: "/graphql",
    graphiql: false,
    watch: false,
  },
  grafast: {
    explain: false,
  },
};

export default preset;
