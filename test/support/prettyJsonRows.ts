// One row of a JSON body with strings holding quotes and brackets, nested values and null: the rows
// of the pretty-printer's unit test and of its benchmark.
export const PRETTY_JSON_ROW = JSON.stringify({ id: 1, name: 'Ada "the first" [x]', tags: ['a', 'b'], nested: { ok: true, n: null } });
