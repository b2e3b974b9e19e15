// The outline of each kind of file (core/language/outline): what the editor and the language server
// list, read from the file's text alone.
import assert from 'node:assert/strict';
import { outlineOf } from '../../src/core/language/outline';

describe('outline', () => {
  it("shows a case's description on one line, cut when long", () => {
    const long = 'Checks the greeting of a person whose title is known, with a description written over several lines';
    const text = `cases:\n  known:\n    description: |\n      ${long}\n      and a second line\n    inputs: { who: Ada }\n`;
    const [cases] = outlineOf('test', text);
    const known = cases!.children[0]!;
    assert.equal(known.detail, `${long.slice(0, 79)}…`);
    assert.deepEqual(
      known.children.map((child) => `${child.name} (${child.detail})`),
      ['inputs (1 entry)'],
    );
  });

  it('lists nothing for a text that is not YAML, whatever the kind', () => {
    for (const kind of ['agent', 'test', 'environments'] as const) assert.deepEqual(outlineOf(kind, '{ [ : ,'), [], kind);
  });
});
