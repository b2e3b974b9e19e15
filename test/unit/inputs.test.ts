// The one input check (src/core/inputs/inputValues.ts) as its two users see it: a request to the
// agent service (prepareInputs) and the workflow engine (resolveInputs), and the command line's
// local run, which now says how to give an input with its own flags.
import assert from 'node:assert/strict';
import { runCliCaptured } from '../support/cli';
import { loadAgent } from '../../src/core/engine/agentPlan';
import { resolveInputs } from '../../src/core/engine/inputs';
import { InputError, prepareInputs } from '../../src/core/inputs/inputValues';
import type { InputHints } from '../../src/core/inputs/inputValues';
import { makeTempDir } from '../support/tempDir';

const YAML = `version: 1
name: Inputs
inputs:
  ticket: { type: string, required: true, description: Ticket text }
  count: { type: number, default: 10 }
  urgent: { type: boolean }
  priority: { type: string, enum: [low, high], default: low }
  shot: { type: file, accept: [image/png, .jpg] }
nodes:
  show:
    type: template
    text: "{{ inputs.ticket }}|{{ inputs.count }}"
outputs:
  text: { from: "{{ nodes.show.body }}" }
`;
const model = loadAgent(YAML).model;
const FLAGS: InputHints = { value: (name) => `give --input ${name}=VALUE`, file: (name) => `give --file ${name}=PATH` };

function problemsOf(check: () => unknown): readonly string[] {
  try {
    check();
  } catch (error) {
    if (error instanceof InputError) return error.problems;
    throw error;
  }
  assert.fail('expected an InputError');
}

describe('input check', () => {
  it('converts and defaults the same way for a service request and for the engine', () => {
    const given = { values: { ticket: 'Printer', count: '3', urgent: 'yes' } };
    assert.deepEqual(prepareInputs(model, given), { inputs: { ticket: 'Printer', count: 3, urgent: true, priority: 'low' }, files: [] });
    assert.deepEqual(resolveInputs(model, given).values, { ticket: 'Printer', count: 3, urgent: true, priority: 'low', shot: null });
  });

  it('finds the same problems for a service request and for the engine, each saying how to give an input its own way', () => {
    const given = { values: { tickt: 'x', count: 'many', priority: 'urgent' } };
    const common = [
      'The agent has no input "tickt". Did you mean "ticket"?',
      'Input "count" must be a number, not "many".',
      'Input "priority" must be one of "low", "high", not "urgent".',
    ];
    assert.deepEqual(
      problemsOf(() => prepareInputs(model, given, FLAGS)),
      [...common, 'Input "ticket" is required: give --input ticket=VALUE. (Ticket text)'],
    );
    assert.deepEqual(
      problemsOf(() => resolveInputs(model, given)),
      [...common, 'Input "ticket" is required: give it in "inputs". (Ticket text)'],
    );
  });

  it('says which input each problem is about, beside its message', () => {
    try {
      prepareInputs(model, { values: { tickt: 'x', count: 'many', shot: 'a.png' }, files: { urgent: 'b.png' } });
      assert.fail('expected an InputError');
    } catch (error) {
      assert.ok(error instanceof InputError, String(error));
      assert.deepEqual(error.inputs, ['tickt', 'count', 'shot', 'urgent', 'ticket']);
      assert.equal(error.inputs.length, error.problems.length);
    }
  });

  it('names the flag to use for a value given to a file input and a file given to a value input', () => {
    assert.deepEqual(
      problemsOf(() => prepareInputs(model, { values: { ticket: 'x', shot: 'a.png' }, files: { count: '/tmp/a.png' } }, FLAGS)),
      [
        'Input "shot" is a file input: give --file shot=PATH instead of a value.',
        'Input "count" is a number input, not a file: give --input count=VALUE instead.',
      ],
    );
    assert.deepEqual(
      problemsOf(() => prepareInputs(model, { values: { ticket: 'x' }, files: { shot: '/tmp/a.gif' } }, FLAGS)),
      ['The file for input "shot" (/tmp/a.gif) is not of an accepted type: image/png, .jpg.'],
    );
    assert.deepEqual(prepareInputs(model, { values: { ticket: 'x' }, files: { shot: '/tmp/a.JPG' } }, FLAGS).files, [
      { field: 'shot', path: '/tmp/a.JPG' },
    ]);
  });

  it('takes input names such as "constructor" for a service request too', () => {
    const named = loadAgent(
      'version: 1\nname: P\ninputs:\n  constructor: { type: string, default: built }\n  toString: { type: string, required: true }\nnodes:\n  a: { type: template, text: hi }\n',
    ).model;
    assert.deepEqual(prepareInputs(named, { values: { toString: 'given' } }).inputs, { constructor: 'built', toString: 'given' });
    assert.deepEqual(
      problemsOf(() => prepareInputs(named, {}, FLAGS)),
      ['Input "toString" is required: give --input toString=VALUE.'],
    );
  });

  it('tells a local run on the command line to use --input, not a request payload', async () => {
    const dir = makeTempDir();
    try {
      dir.write('inputs.agent.yaml', YAML);
      const { code, stderr } = await runCliCaptured(['run', '--local', 'inputs.agent.yaml', '--input', 'shot=a.png'], {
        cwd: dir.path,
        env: {},
      });
      assert.equal(code, 2);
      assert.match(stderr, /Input "shot" is a file input: give --file shot=PATH instead of a value\./);
      assert.match(stderr, /Input "ticket" is required: give --input ticket=VALUE\. \(Ticket text\)/);
    } finally {
      dir.remove();
    }
  });
});
