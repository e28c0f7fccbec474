// PostGraphile 5 in library mode on Node's own http server (grafserv/node),
// as its documentation recommends for production. bench/pgl.sh starts it.
import { createServer } from "node:http";
import { postgraphile } from "postgraphile";
import { grafserv } from "postgraphile/grafserv/node";
import preset from "./graphile.config.mjs";

const { host, port } = preset.grafserv;
const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
const server = createServer();
server.on("error", (err) => {
  console.error(err);
  process.exit(1);
});
await serv.addTo(server);
// Build the schema before listening: the warm-up should not include it.
await pgl.getSchema();
server.listen(port, host, () => {
  console.log(`PostGraphile listening on http://${host}:${port}/graphql (pid ${process.pid}, node ${process.version})`);
});

async function shutdown(signal) {
  console.log(`${signal}: shutting down`);
  server.close();
  server.closeAllConnections?.();
  await pgl.release(); // the grafserv instance and the pg pool with it
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
