/**
 * The fan-out figure's long-polling clients: each one keeps its own
 * keep-alive TCP connection and speaks just enough HTTP/1.1 to send
 * GET /api/v1/events and read a Content-Length answer.
 *
 * Why not node:http's client: with 1,000 pollers on this 2-core machine it
 * cost the benchmark process 100–130 ms of CPU per message (over 100 µs a
 * delivery), so the figure measured the load generator more than the server.
 * Like autocannon for the request scenarios, this client writes each request
 * as one prebuilt string and parses only the status line, Content-Length and
 * the JSON body. The measured interval is unchanged: from the start of the
 * send to the arrival of the whole answer to the poll.
 */
import { connect, type Socket } from 'node:net';

export interface PollAnswer {
  events: Array<Record<string, unknown>>;
}

/**
 * One client's connection. `poll(path)` sends one GET and resolves with the
 * parsed JSON body; one request at a time, as a long-polling client does.
 */
export class LongPoller {
  private readonly socket: Socket;
  private buffer: Buffer = Buffer.alloc(0);
  private pending: { resolve: (body: PollAnswer) => void; reject: (e: Error) => void } | null = null;
  private readonly head: string;
  private closed = false;

  constructor(base: string, authorization: string) {
    const url = new URL(base);
    this.head = `Host: ${url.host}\r\nAuthorization: ${authorization}\r\nUser-Agent: ZulipPython/0.9.0 (parley bench)\r\nConnection: keep-alive\r\n\r\n`;
    this.socket = connect(Number(url.port), url.hostname);
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', (e) => this.fail(e));
    this.socket.on('close', () => this.fail(new Error('connection closed')));
  }

  poll(path: string): Promise<PollAnswer> {
    if (this.closed) return Promise.reject(new Error('connection closed'));
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.socket.write(`GET ${path} HTTP/1.1\r\n${this.head}`);
    });
  }

  close(): void {
    this.closed = true;
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end < 0) return;
    const header = this.buffer.toString('latin1', 0, end);
    const length = /\r\ncontent-length: *(\d+)/i.exec(header);
    if (!length) return this.fail(new Error(`no Content-Length in ${JSON.stringify(header)}`));
    const total = end + 4 + Number(length[1]);
    if (this.buffer.length < total) return;
    const status = Number(header.slice(9, 12));
    const body = this.buffer.toString('utf8', end + 4, total);
    this.buffer = this.buffer.subarray(total);
    const p = this.pending;
    this.pending = null;
    if (!p) return;
    if (status !== 200) p.reject(new Error(`GET /events: ${status} ${body}`));
    else p.resolve(JSON.parse(body) as PollAnswer);
  }

  private fail(e: Error): void {
    this.closed = true;
    const p = this.pending;
    this.pending = null;
    p?.reject(e);
  }
}
