// The words a language model tool's call is confirmed with (core/tools/toolConfirmations.ts): the
// agent file, the inputs by name only, and where requests go — the hosts its API nodes call for a
// local run, the service's origin, account and environment for a deployed one.
import assert from 'node:assert/strict';
import { calledHosts, runConfirmation, sendConfirmation, testsConfirmation } from '../../src/core/tools/toolConfirmations';
import { validateAgentText } from '../../src/core/validation/validate';

const AGENT = `version: 1
name: "Weather\\u202e agent"
inputs:
  city: { type: string, required: true }
nodes:
  forecast:
    type: api
    method: GET
    url: "https://api.weather.example/v1?q={{ inputs.city }}"
    settings: ["Authorization: Bearer {{ secrets.WEATHER_TOKEN }}"]
  geo:
    type: api
    method: POST
    url: "https://user:pw@geo.example:8443/find"
  dynamic:
    type: api
    method: GET
    url: "{{ inputs.city }}"
outputs:
  temperature: { from: "{{ nodes.forecast.body.temp }}" }
`;

describe('tool confirmations', () => {
  it('a local run names the file, the inputs and the hosts its API nodes call, without user info', () => {
    const { model } = validateAgentText(AGENT);
    assert.ok(model);
    const hosts = calledHosts(model);
    assert.deepEqual(hosts, ['api.weather.example', 'geo.example:8443']);
    const confirmation = runConfirmation('agents/weather.agent.yaml', ['city'], { kind: 'local', hosts });
    assert.equal(confirmation.title, 'Run the agent on this machine?');
    assert.match(
      confirmation.message,
      /^Runs "agents\/weather\.agent\.yaml" with the inputs "city" on this machine; its API nodes call api\.weather\.example, geo\.example:8443\./,
    );
    assert.doesNotMatch(confirmation.message, /pw|user/);
  });

  it('a deployed run names the origin, the account and the environment, and says when it is protected', () => {
    const confirmation = runConfirmation('weather.agent.yaml', [], {
      kind: 'deployed',
      origin: 'https://agents.example.com',
      account: 'acme',
      environment: 'production',
      protected: true,
    });
    assert.equal(confirmation.title, 'Run the agent on https://agents.example.com?');
    assert.equal(
      confirmation.message,
      'Runs "weather.agent.yaml" with no inputs on https://agents.example.com, account acme, environment "production" (protected). The API key of that service comes from VS Code\'s secret storage.',
    );
  });

  it("names many hosts up to a bound, and the file's text without control characters", () => {
    const hosts = Array.from({ length: 12 }, (_, index) => `h${index}.example`);
    const confirmation = runConfirmation('a\u0007\u202eb.agent.yaml', ['x'], { kind: 'local', hosts });
    assert.match(confirmation.message, /h7\.example and 4 more\./);
    assert.match(confirmation.message, /"a b\.agent\.yaml"/);
  });

  it('a send names the node, its method and host; tests say they run with mocks', () => {
    assert.equal(
      sendConfirmation('w.agent.yaml', 'forecast', 'GET', 'api.weather.example').message,
      'Sends the request of node "forecast" of "w.agent.yaml" (GET) to api.weather.example, with the secrets it uses from VS Code\'s secret storage.',
    );
    assert.match(sendConfirmation('w.agent.yaml', 'dynamic', 'GET', undefined).message, /to the URL the node builds/);
    assert.match(
      testsConfirmation('w.agent.test.yaml', 'smoke').message,
      /whose name contains "smoke" on this machine; API nodes are answered by the cases' mocks/,
    );
  });
});
