// The agent's own address, pasted: the execute URL the service's editor lists for a deployed agent
// (or its docs' curl command for it) read back into the file's `deployment:` fields. A status URL
// gives the base URL and account only (its agent segment is an execution id). The API key in a
// pasted command is handed back for secret storage, never written into the file.
import type { CurlRequest } from './curlCommand';

export interface ImportedDeployment {
  readonly baseUrl: string;
  readonly account: string;
  /** Absent for a status URL. */
  readonly agent?: string;
  readonly kind: 'execute' | 'status';
  /** The Bearer key of a pasted command (for the origin's key store), when it held a real one. */
  readonly apiKey?: string;
  /** Inputs the pasted start request gives (its JSON's `inputs`, a multipart form's parts). */
  readonly inputs: readonly { readonly name: string; readonly type: 'string' | 'number' | 'boolean' | 'file' }[];
}

const EXECUTE = /^(.*)\/api\/([^/]+)\/agent\/([^/]+)\/execute(?:\/multipart)?\/?$/;
const STATUS = /^(.*)\/api\/([^/]+)\/agent\/([^/]+)\/status\/?$/;

/** The deployment an execute or status URL of the service names; undefined for any other URL. */
export function deploymentFromUrl(text: string): Omit<ImportedDeployment, 'inputs'> | undefined {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  const execute = EXECUTE.exec(url.pathname);
  const status = execute ? undefined : STATUS.exec(url.pathname);
  const match = execute ?? status;
  if (!match) return undefined;
  const decode = (segment: string): string => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return segment;
    }
  };
  const baseUrl = `${url.origin}${match[1]!}`;
  return {
    baseUrl,
    account: decode(match[2]!),
    ...(execute ? { agent: decode(match[3]!) } : {}),
    kind: execute ? 'execute' : 'status',
  };
}

/** The deployment a pasted curl command of the service starts or polls; undefined for any other command. */
export function deploymentFromCurl(request: CurlRequest): ImportedDeployment | undefined {
  const deployment = deploymentFromUrl(request.url);
  if (!deployment) return undefined;
  const authorization = request.headers
    .map((header) => /^authorization\s*:\s*bearer\s+(\S+)\s*$/i.exec(header)?.[1])
    .find((token) => token !== undefined);
  const apiKey = authorization !== undefined && !/^\$|^<|^\{|^your/i.test(authorization) ? authorization : undefined;
  return { ...deployment, ...(apiKey !== undefined ? { apiKey } : {}), inputs: startInputs(request) };
}

function startInputs(request: CurlRequest): ImportedDeployment['inputs'] {
  const inputs: { name: string; type: 'string' | 'number' | 'boolean' | 'file' }[] = [];
  const payloadTexts = [
    ...request.data.map((part) => part.value),
    ...request.form.filter((part) => part.name === 'payload' && part.value !== undefined).map((part) => part.value!),
  ];
  for (const text of payloadTexts) {
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      continue;
    }
    const given = (payload as { inputs?: unknown } | null)?.inputs;
    if (given === null || typeof given !== 'object' || Array.isArray(given)) continue;
    for (const [name, value] of Object.entries(given)) {
      const type = typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'boolean' : 'string';
      if (!inputs.some((input) => input.name === name)) inputs.push({ name, type });
    }
  }
  for (const part of request.form)
    if (part.file !== undefined && !inputs.some((input) => input.name === part.name)) inputs.push({ name: part.name, type: 'file' });
  return inputs;
}
