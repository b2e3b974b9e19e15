// The words of agent tests' expectations, apart from the matchers that check them: completion and
// hover in test files use them without the matching code (its regular-expression sandbox needs Node).
export const VALUE_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'] as const;
export type ValueType = (typeof VALUE_TYPES)[number];

/** Every operator, with what it checks: for completion, hover and docs/testing-agents.md. */
export const MATCHER_OPERATORS = {
  $eq: 'equals the value exactly, read literally (keys starting with $ are not operators)',
  $subset: 'a mapping with at least these keys, each matching (lists: the same length, each item matching)',
  $contains: 'text containing this text, or a list with an item matching this',
  $match: 'text matching this regular expression (write /pattern/flags for flags)',
  $type: `a value of this type: ${VALUE_TYPES.join(', ')}`,
  $length: 'text or a list of this length (a number, or a matcher such as { $gte: 1 })',
  $gt: 'a number greater than this',
  $gte: 'a number greater than or equal to this',
  $lt: 'a number less than this',
  $lte: 'a number less than or equal to this',
  $absent: 'true: the value is absent; false: it is present, whatever it is',
  $not: 'a value that does not match this expectation',
} as const;
export type MatcherOperator = keyof typeof MATCHER_OPERATORS;
