// A node's result typed by the user as JSON (Send Request, when an upstream node has no value
// yet): the JSON is the node's body, `{{ nodes.X.body }}`; an API node's status is then 200.
import type { NodeResult } from '../engine/evaluate';
import { JsonTooDeepError, parseJson } from '../json';
import { formatBytes, PIN_LIMITS } from './pins';

export type TypedValue = { readonly ok: true; readonly result: NodeResult } | { readonly ok: false; readonly problem: string };

export function parseTypedValue(text: string, nodeType: string | undefined): TypedValue {
  if (text.trim() === '') return { ok: false, problem: 'Type the body as JSON, e.g. {"id": 42} or "text" (strings in double quotes).' };
  if (Buffer.byteLength(text) > PIN_LIMITS.maxBytes)
    return { ok: false, problem: `The value is longer than ${formatBytes(PIN_LIMITS.maxBytes)}: pin a result of a send or run instead.` };
  let body: unknown;
  try {
    body = parseJson(text);
  } catch (error) {
    if (error instanceof JsonTooDeepError) return { ok: false, problem: `The value ${error.message}.` };
    const detail = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      problem: `Not JSON: ${detail}. Strings go in double quotes ("like this"); objects are {"name": value}.`,
    };
  }
  return { ok: true, result: nodeType === 'template' ? { body } : { status: 200, headers: {}, body } };
}
