/**
 * Zulip's MarkdownRenderingError: the message cannot be rendered (nesting
 * deeper than the renderer goes, or over its time budget). Callers answer
 * "Unable to render message", as Zulip does.
 */
export class MarkdownRenderingError extends Error {}

/**
 * Deepest nesting of block structures (quotes, lists, fenced blocks).
 * Python-Markdown recurses once per level and Zulip fails past Python's
 * recursion limit; a fixed limit keeps the stack and the work per line bounded.
 */
export const MAX_NESTING_DEPTH = 250;
