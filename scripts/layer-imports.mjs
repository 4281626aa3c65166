#!/usr/bin/env node
/**
 * Codemod: imports between layers go through the imported layer's `index.ts`.
 *
 * For every source file under src/ (tests and the browser code in src/ui excepted: tests may import
 * internals, and the pages are bundled on their own), an `import`/`export … from` whose path leads
 * into another layer folder (src/<layer>/…) is rewritten to `src/<layer>/index.js`, and each name it
 * needs is added to that index as `export { name } from './file.js'` (or `type name` when every
 * importer imports it as a type). Existing lines of an index are kept as they are; only missing
 * names are added, so the script is idempotent: run it again after merging a branch that added
 * direct imports (`node scripts/layer-imports.mjs`, then `npx tsc -p tsconfig.json`).
 * `--check` changes nothing and exits 1 if something would change.
 * The layers and their order are in layers.mjs, shared with eslint.config.js.
 */
import { readFileSync, writeFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { LAYERS } from './layers.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = join(root, 'src');
const checkOnly = process.argv.includes('--check');

/** Every .ts file below a folder. */
function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The layer a path under src/ belongs to, or undefined for src/*.ts and non-layer folders. */
function layerOf(path) {
  const parts = relative(srcDir, path).split(sep);
  return parts.length > 1 && LAYERS.includes(parts[0]) ? parts[0] : undefined;
}

function isIndex(path, layer) {
  return path === join(srcDir, layer, 'index.ts');
}

/** `../store/x.js` as seen from `file`, resolved to the .ts file it names. */
function targetOf(file, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  return resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
}

function relativeSpecifier(fromFile, toFile) {
  let spec = relative(dirname(fromFile), toFile).split(sep).join('/').replace(/\.ts$/, '.js');
  if (!spec.startsWith('.')) spec = `./${spec}`;
  return spec;
}

/** The names a declaration takes from its module: [{ name, type }]; undefined if it takes all. */
function namesOf(node) {
  if (ts.isImportDeclaration(node)) {
    const clause = node.importClause;
    if (!clause || clause.name || !clause.namedBindings || !ts.isNamedImports(clause.namedBindings)) return undefined;
    return clause.namedBindings.elements.map((e) => ({
      name: (e.propertyName ?? e.name).text,
      type: clause.isTypeOnly || e.isTypeOnly,
    }));
  }
  if (!node.exportClause || !ts.isNamedExports(node.exportClause)) return undefined;
  return node.exportClause.elements.map((e) => ({
    name: (e.propertyName ?? e.name).text,
    type: node.isTypeOnly || e.isTypeOnly,
  }));
}

function parse(file) {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

function moduleDeclarations(source) {
  return source.statements.filter(
    (s) => (ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) && s.moduleSpecifier && ts.isStringLiteral(s.moduleSpecifier),
  );
}

const problems = [];
/** layer → Map(target .ts file → Map(name → type-only?)) */
const needed = new Map();
/** file → [{ start, end, text }] */
const edits = new Map();

/** The file that defines `name`, following `export { name } from './x.js'` inside the layer. */
function definingFile(target, name, seen = new Set()) {
  if (seen.has(target) || !existsSync(target)) return target;
  seen.add(target);
  for (const decl of moduleDeclarations(parse(target))) {
    if (!ts.isExportDeclaration(decl) || !decl.exportClause || !ts.isNamedExports(decl.exportClause)) continue;
    const element = decl.exportClause.elements.find((e) => e.name.text === name);
    if (element && (element.propertyName ?? element.name).text === name) {
      return definingFile(targetOf(target, decl.moduleSpecifier.text), name, seen);
    }
  }
  return target;
}

function need(layer, imported, name, type) {
  const target = definingFile(imported, name);
  if (!needed.has(layer)) needed.set(layer, new Map());
  const byFile = needed.get(layer);
  if (!byFile.has(target)) byFile.set(target, new Map());
  const names = byFile.get(target);
  names.set(name, names.has(name) ? names.get(name) && type : type);
  for (const [other, otherNames] of byFile) {
    if (other !== target && otherNames.has(name)) {
      problems.push(`${layer}/: two files export ${name}: ${relative(root, other)} and ${relative(root, target)}; rename one`);
    }
  }
}

for (const file of walk(srcDir)) {
  const from = layerOf(file);
  if (file.endsWith('.test.ts') || from === 'ui' || relative(srcDir, file).split(sep)[0] === 'ui') continue;
  const source = parse(file);
  for (const decl of moduleDeclarations(source)) {
    const target = targetOf(file, decl.moduleSpecifier.text);
    const to = target && layerOf(target);
    if (!to || to === from || isIndex(target, to)) continue;
    const names = namesOf(decl);
    const where = `${relative(root, file)}: ${decl.moduleSpecifier.text}`;
    if (!names) {
      problems.push(`${where}: not a named import; rewrite it by hand`);
      continue;
    }
    for (const { name, type } of names) need(to, target, name, type);
    const spec = decl.moduleSpecifier;
    const quote = source.text[spec.getStart(source)];
    const list = edits.get(file) ?? [];
    list.push({ start: spec.getStart(source), end: spec.getEnd(), text: `${quote}${relativeSpecifier(file, join(srcDir, to, 'index.ts'))}${quote}` });
    edits.set(file, list);
  }
}

/** The names an index already exports, and from which file. */
function indexExports(indexFile) {
  const exported = new Map();
  if (!existsSync(indexFile)) return { exported, source: undefined };
  const source = parse(indexFile);
  for (const decl of moduleDeclarations(source)) {
    if (!ts.isExportDeclaration(decl)) continue;
    const target = targetOf(indexFile, decl.moduleSpecifier.text);
    for (const { name } of namesOf(decl) ?? []) exported.set(name, target);
  }
  return { exported, source };
}

const changed = [];
for (const [layer, byFile] of needed) {
  const indexFile = join(srcDir, layer, 'index.ts');
  const { exported, source } = indexExports(indexFile);
  const lines = [];
  for (const [target, names] of [...byFile].sort(([a], [b]) => a.localeCompare(b))) {
    const missing = [...names].filter(([name]) => {
      if (!exported.has(name)) return true;
      if (exported.get(name) !== target) {
        problems.push(`${layer}/index.ts exports ${name} from ${relative(root, exported.get(name))}, but it is also imported from ${relative(root, target)}`);
      }
      return false;
    });
    if (missing.length === 0) continue;
    const list = missing.sort(([a], [b]) => a.localeCompare(b)).map(([name, type]) => (type ? `type ${name}` : name));
    const from = relativeSpecifier(indexFile, target);
    const oneLine = `export { ${list.join(', ')} } from '${from}';`;
    lines.push(oneLine.length <= 110 ? oneLine : `export {\n${list.map((n) => `  ${n},\n`).join('')}} from '${from}';`);
  }
  if (lines.length === 0) continue;
  const header = source ? '' : `/** What ${layer}/ offers to the layers above it. Kept up to date by scripts/layer-imports.mjs. */\n`;
  const before = source ? source.text.replace(/\n*$/, '\n') : '';
  changed.push(relative(root, indexFile));
  if (!checkOnly) writeFileSync(indexFile, header + before + lines.join('\n') + '\n');
}

for (const [file, list] of edits) {
  let text = readFileSync(file, 'utf8');
  for (const { start, end, text: replacement } of list.sort((a, b) => b.start - a.start)) {
    text = text.slice(0, start) + replacement + text.slice(end);
  }
  changed.push(relative(root, file));
  if (!checkOnly) writeFileSync(file, text);
}

for (const problem of problems) console.error(`layer-imports: ${problem}`);
if (changed.length > 0) console.log(`${checkOnly ? 'would change' : 'changed'}:\n  ${changed.join('\n  ')}`);
else console.log('layer-imports: every import between layers goes through an index.ts');
process.exitCode = problems.length > 0 || (checkOnly && changed.length > 0) ? 1 : 0;
