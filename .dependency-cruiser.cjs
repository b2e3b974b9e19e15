// Which folder of src/ may import which: the layers of docs/architecture.md ("Import rules"), and
// no import circle anywhere (type-only imports count: a circle of types is still a knot to untie).
// test/unit/architecture.test.ts runs dependency-cruiser with this file and checks that the
// document's table says the same as scripts/layers.cjs.

const { LAYERS, ALLOWED } = require('./scripts/layers.cjs');

const anyOf = (names) => `(${names.map((name) => LAYERS[name]).join('|')})`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  allowedSeverity: 'error',
  allowed: [
    // Packages, Node's modules and the JSON Schemas (compiled into the bundles) are open to all.
    { from: {}, to: { dependencyTypesNot: ['local'] } },
    { from: { path: '^src/core/' }, to: { path: '^schemas/' } },
    ...Object.entries(ALLOWED).map(([layer, below]) => ({
      from: { path: LAYERS[layer] },
      to: { path: anyOf([layer, ...below]) },
    })),
  ],
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import circle: move the shared types or code into a module both sides import.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-in-a-layer',
      comment: 'Every file of src/ belongs to a layer of docs/architecture.md: add it to LAYERS.',
      severity: 'error',
      from: { path: '^src/', pathNot: Object.values(LAYERS) },
      to: {},
    },
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.generated(\\.d\\.ts)?$' },
  },
};
