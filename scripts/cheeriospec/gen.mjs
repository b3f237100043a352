// gen.mjs writes jsapi/cheerio_spec_*_test.go from the case lists in this folder: each case's
// want is what real cheerio returns for it, never typed by hand.
//
//   npm install --prefix /tmp/cheerio cheerio@1.2.0
//   CHEERIO_DIR=/tmp/cheerio node scripts/cheeriospec/gen.mjs
//
// A case list (traversing.mjs, attributes.mjs, static.mjs, htmltext.mjs) exports groups
//   { file, d: 'describe > path', html: fixtureName | inline HTML, cases: [[it, js, expect, opts]] }
// where js is the body of ($, cheerio) => { ... }, $ = cheerio.load(html), and expect is the
// value the spec's own assertions state (checked against cheerio's actual result, so a port
// that drifts from the spec is caught), or {throws: substring} when the spec expects an error.
// opts.specDisagrees says how cheerio's result differs from its spec (a spec newer than the
// release), with opts.errSub when cheerio throws instead. opts.fx names fixtures the body uses as values; opts.skip (with js null) lists a test left out and why; opts.noSpecCheck marks a case whose
// spec assertion is not a plain value (the reason is the value).
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixtures } from './fixtures.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const dir = process.env.CHEERIO_DIR ?? '/tmp/cheerio';
const require = createRequire(path.join(dir, 'package.json'));
const cheerio = require('cheerio');
const version = require('cheerio/package.json').version;
const specCommit = process.env.CHEERIO_COMMIT ?? '808f8456b38a730497c675f1478d659cc4adfefe';

const lists = [
  ['traversing', 'src/api/traversing.spec.ts', 'cheerioSpecTraversingCases'],
  ['attributes', 'src/api/attributes.spec.ts', 'cheerioSpecAttributesCases'],
  ['static', '', 'cheerioSpecStaticCases', 'src/static.spec.ts, src/cheerio.spec.ts, src/load.spec.ts, src/__tests__/deprecated.spec.ts'],
  ['htmltext', 'src/api/manipulation.spec.ts (.html and .text only)', 'cheerioSpecHTMLTextCases'],
];

function run(html, js) {
  try {
    const v = new Function('$', 'cheerio', js)(cheerio.load(html), cheerio);
    const s = JSON.stringify(v);
    return { ok: s === undefined ? 'undefined' : s };
  } catch (e) {
    return { err: String(e && e.message) };
  }
}

// goStr is s as a Go literal: raw strings, with a backquote spliced in as "`".
const goStr = (s) =>
  s.includes('\r') ? JSON.stringify(s) : s.split('`').map((p) => '`' + p + '`').join(' + "`" + ').replaceAll('`` + ', '').replaceAll(' + ``', '');

// jsStr is s as a JS literal, quoted the way that needs fewest escapes.
const jsStr = (s) => {
  if (!/['\n\\]/.test(s)) return `'${s}'`;
  if (!/[`\\]|\$\{/.test(s)) return '`' + s + '`';
  return JSON.stringify(s);
};

let failures = 0;
const names = new Set();
const usedFixtures = new Set();
for (const [base, defSrc, varName, files] of lists) {
  const groups = (await import(`./${base}.mjs`)).default;
  const out = [];
  const skipped = [];
  for (const g of groups) {
    const src = g.src ?? defSrc;
    for (let [it, js, expect, opts = {}] of g.cases) {
      const full = `${g.d} > ${it}`;
      if (opts.skip) {
        skipped.push(`${src}: ${full}: ${opts.skip}`);
        continue;
      }
      let name = `${base}: ${full}`;
      for (let n = 2; names.has(name); n++) name = `${base}: ${full} #${n}`;
      names.add(name);
      const htmlKey = opts.html ?? g.html ?? '';
      const isFixture = Object.hasOwn(fixtures, htmlKey);
      if (isFixture) usedFixtures.add(htmlKey);
      const html = isFixture ? fixtures[htmlKey] : htmlKey;
      // Fixtures the spec uses as values inside a test (context strings, fruits.replace(...)) are
      // declared at the top of the body, so each case's js stands alone.
      for (const f of [].concat(opts.fx ?? g.fx ?? [])) js = `const ${f} = ${jsStr(fixtures[f])};\n` + js;
      const r = run(html, js);
      const c = { name, src: `${src}: ${full}`, html: isFixture ? 'cheerioFixture' + htmlKey[0].toUpperCase() + htmlKey.slice(1) : goStr(html), js };
      if (expect && typeof expect === 'object' && 'throws' in expect) {
        if (r.err === undefined || !r.err.includes(expect.throws)) {
          console.error(`${name}: spec expects a throw containing ${JSON.stringify(expect.throws)}, cheerio gave ${JSON.stringify(r)}`);
          failures++;
        }
        c.wantErr = expect.throws;
      } else {
        if (r.err !== undefined && opts.specDisagrees && opts.errSub && r.err.includes(opts.errSub)) {
          // cheerio throws where its spec expects a value: want the throw (errSub is the part
          // of cheerio's message that does not depend on the JS engine).
          console.error(`${name}: spec says ${JSON.stringify(expect)}, cheerio throws ${r.err}`);
          c.wantErr = opts.errSub;
        } else if (r.err !== undefined) {
          console.error(`${name}: cheerio threw ${r.err}`);
          failures++;
          continue;
        } else if (!opts.noSpecCheck && JSON.stringify(expect) !== r.ok && !(expect === undefined && r.ok === 'undefined')) {
          console.error(`${name}: spec says ${JSON.stringify(expect)}, cheerio gives ${r.ok}`);
          if (!opts.specDisagrees) failures++;
        }
        if (c.wantErr === undefined) c.want = r.ok;
      }
      if (opts.specDisagrees) c.note = 'cheerio ' + version + ' disagrees with its spec: ' + opts.specDisagrees;
      out.push(c);
    }
  }
  let go = `// Code generated by scripts/cheeriospec/gen.mjs from cheerio ${version}; DO NOT EDIT.\n\n`;
  go += `package jsapi_test\n\n`;
  go += `// ${varName} are cheerio's own tests (${files ?? defSrc}\n`;
  go += `// at cheeriojs/cheerio@${specCommit}) ported as cases; each want is what cheerio ${version} returns.\n`;
  if (skipped.length) {
    go += `//\n// Left out:\n`;
    for (const s of skipped) go += `//   - ${s}\n`;
  }
  go += `var ${varName} = []cheerioSpecCase{\n`;
  for (const c of out) {
    go += `\t{\n\t\tname: ${goStr(c.name)},\n\t\tsrc:  ${goStr(c.src)},\n\t\thtml: ${c.html},\n\t\tjs:   ${goStr(c.js)},\n`;
    if (c.wantErr !== undefined) go += `\t\twantErr: ${goStr(c.wantErr)},\n`;
    else go += `\t\twant: ${goStr(c.want)},\n`;
    if (c.note) go += `\t\tnote: ${goStr(c.note)},\n`;
    go += `\t},\n`;
  }
  go += `}\n`;
  fs.writeFileSync(path.join(root, `jsapi/cheerio_spec_${base}_test.go`), go);
  console.log(`${base}: ${out.length} cases, ${skipped.length} left out`);
}

let fx = `// Code generated by scripts/cheeriospec/gen.mjs; DO NOT EDIT.\n\npackage jsapi_test\n\n`;
fx += `// cheerio's test fixtures (src/__fixtures__/fixtures.ts at cheeriojs/cheerio@${specCommit}).\nconst (\n`;
for (const [k, v] of Object.entries(fixtures)) if (usedFixtures.has(k)) fx += `\tcheerioFixture${k[0].toUpperCase() + k.slice(1)} = ${goStr(v)}\n`;
fx += `)\n`;
fs.writeFileSync(path.join(root, 'jsapi/cheerio_spec_fixtures_test.go'), fx);
execFileSync('gofmt', ['-w', ...['fixtures', ...lists.map((l) => l[0])].map((b) => path.join(root, `jsapi/cheerio_spec_${b}_test.go`))]);
if (failures) {
  console.error(`${failures} cases disagree with their spec`);
  process.exit(1);
}
