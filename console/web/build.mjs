// Bundles src/ into ../dist with esbuild (pinned in package-lock.json):
// one script, one stylesheet, index.html, and the licenses of the
// bundled packages. `make console` runs it; go:embed serves the output.
import { build } from 'esbuild';
import { readFileSync, writeFileSync, mkdirSync, copyFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';

const dist = '../dist';
mkdirSync(dist, { recursive: true });
const common = { bundle: true, minify: true, legalComments: 'none', logLevel: 'warning' };
await build({ ...common, entryPoints: ['src/main.js'], outfile: join(dist, 'app.js'), format: 'iife', target: 'es2020' });
await build({ ...common, entryPoints: ['src/style.css'], outfile: join(dist, 'app.css') });
copyFileSync('src/index.html', join(dist, 'index.html'));
// Gzipped copies, served to clients that accept gzip (most of the bytes
// are CodeMirror's).
for (const f of ['app.js', 'app.css']) writeFileSync(join(dist, f + '.gz'), gzipSync(readFileSync(join(dist, f)), { level: 9 }));

// The bundled packages' licenses, in one file beside the bundle.
const pkg = JSON.parse(readFileSync('package-lock.json', 'utf8')).packages;
let notice = 'Third-party packages bundled into app.js and app.css, with their licenses.\n';
for (const [path, meta] of Object.entries(pkg).sort()) {
  if (!path.startsWith('node_modules/') || meta.dev || path.includes('esbuild')) continue;
  const dir = path;
  const file = existsSync(dir) ? readdirSync(dir).find((f) => /^licen[sc]e/i.test(f)) : undefined;
  notice += `\n==== ${path.slice('node_modules/'.length)} ${meta.version} (${meta.license})\n`;
  if (file) notice += readFileSync(join(dir, file), 'utf8').trim() + '\n';
}
writeFileSync(join(dist, 'THIRD_PARTY_LICENSES.txt'), notice);

// The sources this bundle was built from, by SHA-256: console's Go test
// compares them with web/ so a change not rebuilt with `make console`
// fails the build's tests.
const inputs = ['package.json', 'package-lock.json', 'build.mjs', ...readdirSync('src').sort().map((f) => 'src/' + f)];
const sums = inputs.map((f) => `${createHash('sha256').update(readFileSync(f)).digest('hex')}  ${f}`);
writeFileSync(join(dist, 'SOURCES.sha256'), sums.join('\n') + '\n');
