// How deeply a YAML text nests, watched while it is parsed: the YAML parser (and every recursive
// walk after it) needs time, memory and stack in proportion to the depth, so 1 MB of "[" took
// 951 MB and 6 s, and deeper still overflowed the stack. An agent file nests a few levels; a text
// nesting deeper than the limit is reported instead of parsed to its end.
//
// The parser's own stack is the measure: it holds the document and each list and mapping open at
// that point (and for a moment a scalar about to become a key), so brackets in strings, comments
// and block scalars, which are text, are never counted. A separate scan of the text before the
// parse cost a twentieth of the parse itself, in code that runs once and cold.
import { Composer, Lexer, Parser } from 'yaml';
import type { CST, Document, DocumentOptions, ParseOptions, SchemaOptions } from 'yaml';

/** The deepest nesting of lists and mappings an agent file may have. */
export const MAX_NESTING_DEPTH = 100;

export interface DepthLimitedParse {
  /** Every document of the text, as yaml's parseAllDocuments gives them; none when it nests too deeply. */
  readonly documents: Document.Parsed[];
  /** The offset where the text first nests deeper than the limit. */
  readonly tooDeepAt?: number;
}

/**
 * parseAllDocuments, given up where the text first nests deeper than `max` levels: the parse
 * stops there, so its cost stays linear in the text.
 */
export function parseWithinDepth(
  text: string,
  options: ParseOptions & DocumentOptions & SchemaOptions,
  max = MAX_NESTING_DEPTH,
): DepthLimitedParse {
  const watch: { tooDeepAt?: number } = {};
  const documents = Array.from(new Composer(options).compose(tokensWithinDepth(text, max, watch)));
  return watch.tooDeepAt === undefined ? { documents } : { documents: [], tooDeepAt: watch.tooDeepAt };
}

function* tokensWithinDepth(text: string, max: number, watch: { tooDeepAt?: number }): Generator<CST.Token> {
  const parser = new Parser();
  for (const lexeme of new Lexer().lex(text)) {
    yield* parser.next(lexeme);
    // Two places on the stack are not nesting: the document's own, and a key being read.
    if (parser.stack.length > max + 2) {
      watch.tooDeepAt = parser.offset;
      return;
    }
  }
  yield* parser.end();
}
