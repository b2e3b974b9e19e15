// The editor's node values for Send Request and Render, in plain Node: the bounded memory of node
// results, pins as read back from storage, a value typed as JSON, what a node needs, and where the
// nodes are written (the per-node code lenses).
import assert from 'node:assert/strict';
import { loadAgent } from '../../src/core/engine/agentPlan';
import { indexAgentText } from '../../src/core/language/agentIndex';
import { nodeAt, nodeLocations } from '../../src/core/language/nodeLenses';
import { NodeResultMemory } from '../../src/core/nodeValues/nodeResultMemory';
import { checkPinnable, PIN_LIMITS, pinTimeLabel, readStoredPins } from '../../src/core/nodeValues/pins';
import { parseTypedValue } from '../../src/core/nodeValues/typedValue';
import { agentWithNodes, upstreamOf } from '../../src/core/nodeValues/upstream';

const AGENT = `version: 1
name: Chain
inputs:
  q: { type: string }
nodes:
  login:
    type: api
    method: POST
    url: https://api.example.com/login
    settings: ["Authorization: Bearer {{ secrets.LOGIN_KEY }}"]
  search:
    type: api
    method: GET
    url: "https://api.example.com/search?q={{ inputs.q }}"
    settings: ["X-Token: {{ nodes.login.body.token }}"]
  other:
    type: template
    text: "other"
  summary:
    type: template
    text: "{{ nodes.search.body.hits }} for {{ inputs.q }} with {{ secrets.TONE }}"
`;

describe('node values (Send Request, Render, pins)', () => {
  describe('NodeResultMemory', () => {
    it('keeps the last result of each node of each file, replacing the one before', () => {
      const memory = new NodeResultMemory();
      memory.set('file:a', 'n', { body: 1 }, 'run');
      memory.set('file:a', 'n', { body: 2 }, 'send');
      memory.set('file:b', 'n', { body: 3 }, 'run');
      assert.deepEqual(memory.get('file:a', 'n')?.result, { body: 2 });
      assert.equal(memory.get('file:a', 'n')?.source, 'send');
      assert.deepEqual(memory.nodesOf('file:b'), ['n']);
      assert.equal(memory.size.entries, 2);
    });

    it('drops the oldest results past its bytes and entries, and never keeps one larger than all of them', () => {
      const memory = new NodeResultMemory({ maxBytes: 100, maxEntries: 3 });
      for (const node of ['a', 'b', 'c', 'd']) memory.set('f', node, { body: node }, 'run');
      assert.deepEqual(memory.nodesOf('f'), ['b', 'c', 'd']);
      assert.equal(memory.set('f', 'e', { body: 'x'.repeat(60) }, 'run'), true);
      assert.ok(memory.size.bytes <= 100, `${memory.size.bytes} bytes kept`);
      assert.equal(memory.get('f', 'b'), undefined);
      assert.equal(memory.set('f', 'big', { body: 'x'.repeat(200) }, 'run'), false);
      assert.equal(memory.get('f', 'big'), undefined);
    });
  });

  describe('pins', () => {
    it('reads back only well-formed pins, keyed by their node', () => {
      const pins = readStoredPins({
        good: { node: 'good', result: { status: 200, body: { a: 1 } }, pinnedAt: 5, source: 'send', exchangeId: 'x1' },
        moved: { node: 'other', result: { body: 1 }, pinnedAt: 5, source: 'run' },
        noBody: { node: 'noBody', result: { status: 200 }, pinnedAt: 5, source: 'run' },
        badSource: { node: 'badSource', result: { body: 1 }, pinnedAt: 5, source: 'file' },
        text: 'not a pin',
      });
      assert.deepEqual([...pins.keys()], ['good']);
      assert.deepEqual(readStoredPins(['x']), new Map());
      assert.deepEqual(readStoredPins(undefined), new Map());
    });

    it('refuses a result too large for workspace storage, saying its size', () => {
      assert.deepEqual(checkPinnable({ body: 'small' }), { ok: true });
      const check = checkPinnable({ body: 'x'.repeat(PIN_LIMITS.maxBytes) });
      assert.equal(check.ok, false);
      assert.match(check.ok ? '' : check.reason, /1(\.0)? MiB as JSON, over the 1 MiB/);
    });

    it('labels a pin with its time, and its day when not today', () => {
      const at = new Date(2026, 10, 26, 12, 1).getTime();
      assert.equal(pinTimeLabel(at, new Date(2026, 10, 26, 18, 0).getTime()), '12:01');
      assert.equal(pinTimeLabel(at, new Date(2026, 10, 27, 9, 0).getTime()), '2026-11-26 12:01');
    });
  });

  describe('a value typed as JSON', () => {
    it('is the body of the node, with status 200 for an API node', () => {
      assert.deepEqual(parseTypedValue('{"token": "t"}', 'api'), { ok: true, result: { status: 200, headers: {}, body: { token: 't' } } });
      assert.deepEqual(parseTypedValue('"hello"', 'template'), { ok: true, result: { body: 'hello' } });
    });

    it('says what is wrong and how to write it', () => {
      const notJson = parseTypedValue('hello', 'api');
      assert.equal(notJson.ok, false);
      assert.match(notJson.ok ? '' : notJson.problem, /^Not JSON: .*Strings go in double quotes/);
      assert.match(JSON.stringify(parseTypedValue('  ', 'api')), /Type the body as JSON/);
      assert.match(JSON.stringify(parseTypedValue('['.repeat(300) + ']'.repeat(300), 'api')), /deeper than 256 levels/);
    });
  });

  describe('the nodes to run first', () => {
    it('runs first every node upstream, directly or not, and only those', () => {
      const agent = loadAgent(AGENT, 'chain.agent.yaml');
      const upstream = upstreamOf(agent.plan, ['summary']);
      assert.deepEqual(
        upstream.map((node) => node.id),
        ['login', 'search'],
      );
      const cut = agentWithNodes(agent, upstream);
      assert.deepEqual(cut.plan.secretNames, ['LOGIN_KEY']);
      assert.deepEqual(cut.plan.outputs, []);
      assert.deepEqual(upstreamOf(agent.plan, ['login']), []);
    });
  });

  describe('node locations', () => {
    it('finds each node, its type and its span, and the node at an offset', () => {
      const locations = nodeLocations(indexAgentText(AGENT));
      assert.deepEqual(
        locations.map((location) => `${location.id}:${location.type}`),
        ['login:api', 'search:api', 'other:template', 'summary:template'],
      );
      const search = locations[1]!;
      assert.equal(AGENT.slice(search.keyOffset, search.keyOffset + 7), 'search:');
      assert.equal(nodeAt(locations, AGENT.indexOf('inputs.q }}"'))?.id, 'search');
      assert.equal(nodeAt(locations, AGENT.indexOf('name: Chain')), undefined);
    });

    it('works on a file that does not parse as a whole', () => {
      const broken = AGENT.replace('  other:\n    type: template', '  other:\n    type: [template');
      assert.ok(nodeLocations(indexAgentText(broken)).some((location) => location.id === 'login'));
    });
  });
});
