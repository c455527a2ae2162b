/**
 * node:http, loaded with require(): importing it as an ES module builds its
 * ES-module facade, which reads every export and so loads Node's bundled
 * fetch implementation (about 0.2 s of start-up) that Parley never uses.
 */
import { createRequire } from 'node:module';

const http = createRequire(import.meta.url)('node:http') as typeof import('node:http');

export const { createServer, STATUS_CODES } = http;
