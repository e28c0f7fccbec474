// Bundles GraphiQL, React and ReactDOM into one JavaScript file and one CSS
// file under ../assets/, which the Go package embeds with go:embed.
//
// Usage (from this directory): npm ci && npm run build
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { readFile, writeFile, stat } from 'node:fs/promises';

const here = path.dirname(fileURLToPath(import.meta.url));
const outdir = path.resolve(here, '..', 'assets');

// react-style-singleton (used by react-remove-scroll in GraphiQL's dialogs)
// injects <style> elements, which CSP style-src 'self' refuses; swap its
// singleton for one using constructed stylesheets (see the file's comment).
const cspSafeStyleSingleton = {
  name: 'csp-safe-style-singleton',
  setup(b) {
    b.onResolve({ filter: /^\.\/singleton(\.js)?$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]react-style-singleton[\\/]/.test(args.importer)) return undefined;
      return { path: path.join(here, 'src', 'csp-safe-stylesheet-singleton.js') };
    });
  },
};

await build({
  absWorkingDir: here,
  entryPoints: { graphiql: 'src/index.jsx' },
  outdir,
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  jsx: 'automatic',
  minify: true,
  legalComments: 'none',
  sourcemap: false,
  define: { 'process.env.NODE_ENV': '"production"' },
  // graphql-ws is bundled (src/index.jsx runs subscriptions with it).
  plugins: [cspSafeStyleSingleton],
  logLevel: 'info',
});

// The bundle must never load anything from a remote origin. Fail the build if
// a well-known CDN host shows up in the output.
const forbidden = ['cdn.jsdelivr', 'unpkg.com', 'esm.sh', 'cdnjs', 'fonts.googleapis', 'fonts.gstatic'];
for (const name of ['graphiql.js', 'graphiql.css']) {
  const file = path.join(outdir, name);
  const text = await readFile(file, 'utf8');
  for (const host of forbidden) {
    if (text.includes(host)) {
      throw new Error(`${name} references ${host}`);
    }
  }
  // Keep a trailing newline so the committed files are tidy text files.
  if (!text.endsWith('\n')) {
    await writeFile(file, text + '\n');
  }
  const { size } = await stat(file);
  console.log(`${name}: ${size} bytes`);
}
