// Hostile agent files of a chosen size, each the shape of one super-linear case found in issue 9
// (validation must stay linear in the file size and stop at the problem cap). Shared by the unit
// tests and `npm run bench`.

import { MAX_FILE_BYTES } from '../../src/core/limits';

export interface HostileShape {
  readonly name: string;
  /** The file for a given count of repeated units (references, nodes, brackets…). */
  readonly generate: (count: number) => string;
  /** The count that gives a file of about the size reported in the issue. */
  readonly issueCount: number;
}

const HEADER = ['version: 1', 'name: Hostile'];

/** The generated file with the most units that validation still reads (within MAX_FILE_BYTES). */
export function largestUnderLimit(generate: (count: number) => string, start = 1): string {
  let low = 1;
  let high = Math.max(2, start);
  while (generate(high).length <= MAX_FILE_BYTES) high *= 2;
  while (low < high - 1) {
    const middle = Math.floor((low + high) / 2);
    if (generate(middle).length <= MAX_FILE_BYTES) low = middle;
    else high = middle;
  }
  return generate(low);
}

/** The shape's file at the size the issue reported, or as large as validation reads when that is smaller. */
export function issueSizedFile(shape: HostileShape): string {
  const text = shape.generate(shape.issueCount);
  return text.length <= MAX_FILE_BYTES ? text : largestUnderLimit(shape.generate, 1);
}

export const HOSTILE_SHAPES: readonly HostileShape[] = [
  {
    // 4,000 references to an input that is not declared, in one template text (28 KB).
    name: 'template with many {{ inputs.a }}',
    issueCount: 4000,
    generate: (count) =>
      [
        ...HEADER,
        'inputs:',
        '  b: { type: string }',
        'nodes:',
        '  t:',
        '    type: template',
        `    text: "${'{{ inputs.a }}'.repeat(count)}"`,
        'outputs:',
        '  o: { from: "{{ nodes.t.body }}" }',
        '',
      ].join('\n'),
  },
  {
    // 8,000 unterminated "{{ " in one string (24 KB).
    name: 'unterminated {{',
    issueCount: 8000,
    generate: (count) =>
      [
        ...HEADER,
        'nodes:',
        '  t:',
        '    type: template',
        `    text: "${'{{ '.repeat(count)}"`,
        'outputs:',
        '  o: { from: "{{ nodes.t.body }}" }',
        '',
      ].join('\n'),
  },
  {
    // The same in a literal block scalar, where offsets are not one-to-one with the source.
    name: 'unterminated {{ in a block scalar',
    issueCount: 8000,
    generate: (count) => {
      const lines: string[] = [];
      for (let i = 0; i < count; i += 20) lines.push(`      ${'{{ '.repeat(Math.min(20, count - i))}`);
      return [
        ...HEADER,
        'nodes:',
        '  t:',
        '    type: template',
        '    text: |',
        ...lines,
        'outputs:',
        '  o: { from: "{{ nodes.t.body }}" }',
        '',
      ].join('\n');
    },
  },
  {
    // 3,000 nodes, each referencing a node that does not exist (190 KB).
    name: 'nodes referencing missing nodes',
    issueCount: 3000,
    generate: (count) => {
      const lines = [...HEADER, 'nodes:'];
      for (let i = 0; i < count; i++) lines.push(`  node_${i}:`, '    type: template', `    text: "{{ nodes.missing_${i}.body }}"`);
      lines.push('outputs:', '  o: { from: "{{ nodes.node_0.body }}" }', '');
      return lines.join('\n');
    },
  },
  {
    // 3,000 inputs and 3,000 misspelled references to them (151 KB).
    name: 'misspelled input references',
    issueCount: 3000,
    generate: (count) => {
      const lines = [...HEADER, 'inputs:'];
      for (let i = 0; i < count; i++) lines.push(`  input_${i}: { type: string }`);
      lines.push('nodes:', '  t:', '    type: template', '    text: |');
      for (let i = 0; i < count; i++) lines.push(`      {{ inputs.inptu_${i} }}`);
      lines.push('outputs:', '  o: { from: "{{ nodes.t.body }}" }', '');
      return lines.join('\n');
    },
  },
  {
    // A cycle through 2,000 nodes (124 KB).
    name: 'one long cycle',
    issueCount: 2000,
    generate: (count) => {
      const lines = [...HEADER, 'nodes:'];
      for (let i = 0; i < count; i++) lines.push(`  n${i}:`, '    type: template', `    text: "{{ nodes.n${(i + 1) % count}.body }}"`);
      lines.push('outputs:', '  o: { from: "{{ nodes.n0.body }}" }', '');
      return lines.join('\n');
    },
  },
  {
    // Open brackets only (1 MB in the issue: 951 MB and 5.9 s in the YAML parser).
    name: 'deep [ nesting',
    issueCount: 1024 * 1024,
    generate: (count) => '['.repeat(count),
  },
  {
    // Deep block nesting by indentation.
    name: 'deep indentation nesting',
    issueCount: 1400,
    generate: (count) => {
      const lines: string[] = [];
      for (let i = 0; i < count; i++) lines.push(`${' '.repeat(i)}k${i}:`);
      return `${lines.join('\n')} x\n`;
    },
  },
  {
    // Many keys in one mapping: duplicate-key detection must not compare every pair.
    name: 'many inputs, all unused',
    issueCount: 20000,
    generate: (count) => {
      const lines = [...HEADER, 'inputs:'];
      for (let i = 0; i < count; i++) lines.push(`  in_${i}: { type: string }`);
      lines.push('nodes:', '  t: { type: template, text: hi }', 'outputs:', '  o: { from: "{{ nodes.t.body }}" }', '');
      return lines.join('\n');
    },
  },
  {
    // Many token-like literals in one string: secret scanning must not compare every pair.
    name: 'many token-like literals',
    issueCount: 20000,
    generate: (count) =>
      [
        ...HEADER,
        'nodes:',
        '  t:',
        '    type: template',
        `    text: "${Array.from({ length: count }, (_, i) => `ghp_${String(i).padStart(36, 'A')}`).join(' ')}"`,
        'outputs:',
        '  o: { from: "{{ nodes.t.body }}" }',
        '',
      ].join('\n'),
  },
];
