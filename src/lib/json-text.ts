/**
 * Values already serialized as JSON, for answers built from pieces that are
 * serialized once and kept (GET /messages: each message's object). The
 * pieces are UTF-8 bytes: the HTTP layer copies them into the answer as they
 * are (`serializeAnswer`), so a large answer is never a JavaScript string
 * that Node must measure and encode again when writing it (which costs the
 * most when any message has a character outside Latin-1). To any other
 * JSON.stringify they are the values their text stands for.
 */

/** Marks an answer object that holds a JsonList among its own values. */
export const HAS_JSON_TEXT: unique symbol = Symbol('parley.hasJsonText');

/** A JSON array whose items are JSON texts in UTF-8, each given as consecutive pieces. */
export class JsonList {
  readonly items: ReadonlyArray<readonly Uint8Array[]>;
  constructor(items: ReadonlyArray<readonly Uint8Array[]>) {
    this.items = items;
  }
  get length(): number {
    return this.items.length;
  }
  toJSON(): unknown[] {
    return this.items.map((pieces) => JSON.parse(Buffer.concat(pieces).toString('utf8')) as unknown);
  }
}

const COMMA = Buffer.from(',');

/**
 * The JSON of an answer object, in UTF-8: a JsonList's items are copied in
 * as they are. Answers without a JsonList are serialized as JSON.stringify
 * does (a string).
 */
export function serializeAnswer(value: unknown): string | Buffer {
  if (typeof value !== 'object' || value === null || !(value as { [HAS_JSON_TEXT]?: boolean })[HAS_JSON_TEXT]) return JSON.stringify(value);
  const pieces: Uint8Array[] = [];
  // Text not yet in `pieces`.
  let text = '{';
  let first = true;
  for (const [key, v] of Object.entries(value)) {
    const json = v instanceof JsonList ? null : (JSON.stringify(v) as string | undefined);
    if (json === undefined) continue; // undefined and functions are left out, as JSON.stringify does
    text += `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    if (json !== null) {
      text += json;
      continue;
    }
    pieces.push(Buffer.from(`${text}[`));
    (v as JsonList).items.forEach((item, n) => {
      if (n > 0) pieces.push(COMMA);
      pieces.push(...item);
    });
    text = ']';
  }
  pieces.push(Buffer.from(`${text}}`));
  return Buffer.concat(pieces);
}
