import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { LAYERS, MAY_IMPORT } from './scripts/layers.mjs';

/**
 * The layer picture (../shared/DESIGN.md, as data in scripts/layers.mjs) as lint rules: for a file
 * `depth` folders below src/<layer>/, the relative imports that leave its layer. Other layers go
 * through their index.ts (scripts/layer-imports.mjs rewrites imports that do not); tests may import
 * internals of the layers their layer may use, but never a layer above.
 */
const MAX_DEPTH = 5;

function importRules(layer, depth, isTest) {
  const up = `^(\\.\\./){${depth}}`;
  const others = LAYERS.filter((l) => l !== layer);
  const allowed = MAY_IMPORT[layer];
  const forbidden = others.filter((l) => !allowed.includes(l));
  const patterns = [];
  if (forbidden.length > 0) {
    patterns.push({
      regex: `${up}(${forbidden.join('|')})/`,
      message: `${layer}/ may import only ${allowed.join(', ') || 'the files of src/'} (see scripts/layers.mjs and DESIGN.md).`,
      allowTypeImports: layer === 'ui',
    });
  }
  if (allowed.length > 0 && !isTest) {
    patterns.push({
      regex: `${up}(${allowed.join('|')})/(?!index\\.js$)`,
      message: `Import another layer through its index.ts (node scripts/layer-imports.mjs rewrites this).`,
    });
  }
  patterns.push({ regex: `${up}index\\.js$`, message: 'src/index.ts is the package entry; import the layer instead.' });
  return { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] };
}

function layerConfigs() {
  const configs = [];
  for (const isTest of [false, true]) {
    for (const layer of LAYERS) {
      for (let depth = 1; depth <= MAX_DEPTH; depth++) {
        const files = [`src/${layer}/${'*/'.repeat(depth - 1)}*${isTest ? '.test' : ''}.ts`];
        configs.push({ files, rules: importRules(layer, depth, isTest) });
      }
    }
  }
  return configs;
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  ...layerConfigs(),
  {
    // The files directly in src/ sit below every layer; src/index.ts alone opens the library.
    files: ['src/*.ts'],
    ignores: ['src/index.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ regex: `^\\./(${LAYERS.join('|')})/`, message: 'src/*.ts sit below every layer.' }] },
      ],
    },
  },
);
