// Bundles the extension (and, with --tests, the unit tests) with esbuild.
import { build, context } from 'esbuild';
import { readdirSync } from 'node:fs';

const args = new Set(process.argv.slice(2));
const production = args.has('--production');

/** @type {import('esbuild').BuildOptions} */
const extension = {
  entryPoints: ['client/src/extension.ts'],
  bundle: true,
  platform: 'node',
  target: 'node18',
  format: 'cjs',
  outfile: 'out/extension.js',
  external: ['vscode'],
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
};

if (args.has('--watch')) {
  const ctx = await context(extension);
  await ctx.watch();
} else if (args.has('--tests')) {
  const tests = readdirSync('client/test').filter((name) => name.endsWith('.test.ts'));
  await build({
    entryPoints: tests.map((name) => `client/test/${name}`),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outdir: 'out/test',
    external: ['vscode'],
    logLevel: 'warning',
  });
} else {
  await build(extension);
}
