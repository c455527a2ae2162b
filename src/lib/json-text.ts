/**
 * Values already serialized as JSON, for answers built from pieces that are
 * serialized once and kept (GET /messages: each message's object). The HTTP
 * layer writes them into the answer as they are (`stringifyAnswer`); to any
 * other JSON.stringify they are the values their text stands for.
 */

/** Marks an answer object that holds a JsonList among its own values. */
export const HAS_JSON_TEXT: unique symbol = Symbol('parley.hasJsonText');

/** A JSON array whose items are JSON texts. */
export class JsonList {
  readonly items: readonly string[];
  constructor(items: readonly string[]) {
    this.items = items;
  }
  get length(): number {
    return this.items.length;
  }
  toJSON(): unknown[] {
    return this.items.map((t) => JSON.parse(t) as unknown);
  }
}

/** JSON.stringify of an answer object, with the items of its JsonList values written as they are. */
export function stringifyAnswer(value: unknown): string {
  if (typeof value !== 'object' || value === null || !(value as { [HAS_JSON_TEXT]?: boolean })[HAS_JSON_TEXT]) return JSON.stringify(value);
  let out = '{';
  for (const [key, v] of Object.entries(value)) {
    let text: string | undefined;
    if (v instanceof JsonList) text = `[${v.items.join(',')}]`;
    else text = JSON.stringify(v) as string | undefined; // undefined and functions are left out, as JSON.stringify does
    if (text === undefined) continue;
    if (out.length > 1) out += ',';
    out += `${JSON.stringify(key)}:${text}`;
  }
  return out + '}';
}
