// Builds the replay template: bundles src/main.js with three.js and uPlot (esbuild, from
// node_modules installed by `npm ci` from package-lock.json), and inlines the bundle, uPlot's
// stylesheet and src/style.css into src/template.html. `coulomb view` later puts a run's data
// where the template says <!--COULOMB_REPLAY_DATA-->, so the page needs no network.
//
//   node build.mjs NODE_MODULES_DIR OUTPUT_HTML
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
const [modulesArg, outputArg] = process.argv.slice(2);
if (!modulesArg || !outputArg) {
  console.error('usage: node build.mjs NODE_MODULES_DIR OUTPUT_HTML');
  process.exit(2);
}
const modules = resolve(modulesArg), output = resolve(outputArg);
const require = createRequire(join(modules, 'noop.js'));
const esbuild = require('esbuild');

const result = await esbuild.build({
  entryPoints: [join(here, 'src/main.js')],
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['es2020'],
  nodePaths: [modules],
  write: false,
  legalComments: 'inline',
  logLevel: 'warning',
});
// the MIT licences of the bundled libraries go with them, as a comment at the top of the script
const licences = ['three', 'uplot'].map((name) => {
  const { version } = JSON.parse(readFileSync(join(modules, name, 'package.json'), 'utf8'));
  return `${name} ${version}:\n${readFileSync(join(modules, name, 'LICENSE'), 'utf8').trim()}`;
});
let script = `/*!\n${licences.join('\n\n').replace(/\*\//g, '* /')}\n*/\n` + result.outputFiles[0].text;
// the bundle sits inside <script>: no "</script" may appear in it
script = script.replace(/<\/script/gi, '<\\/script');
const style = readFileSync(join(modules, 'uplot/dist/uPlot.min.css'), 'utf8') + '\n' + readFileSync(join(here, 'src/style.css'), 'utf8');
const template = readFileSync(join(here, 'src/template.html'), 'utf8');
for (const marker of ['/*COULOMB_SCRIPT*/', '/*COULOMB_STYLE*/', '<!--COULOMB_REPLAY_DATA-->'])
  if (template.split(marker).length !== 2) throw new Error(`template: ${marker} must appear exactly once`);
// functions as replacements: the bundle contains "$&" and similar patterns
const html = template.replace('/*COULOMB_STYLE*/', () => style).replace('/*COULOMB_SCRIPT*/', () => script);
if (html.split('<!--COULOMB_REPLAY_DATA-->').length !== 2) throw new Error('the bundle contains the data marker');
mkdirSync(dirname(output), { recursive: true });
writeFileSync(output, html);
console.log(`viewer: ${output} (${(html.length / 1024).toFixed(0)} KiB, script ${(script.length / 1024).toFixed(0)} KiB)`);
