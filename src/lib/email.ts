/**
 * Outgoing email. With SMTP configured (SMTP_URL, e.g.
 * smtp://user:pass@mail.example.com:587 or smtps://…:465) messages are sent
 * over SMTP (STARTTLS when the server offers it, AUTH PLAIN/LOGIN when a user
 * is given). Otherwise each message is appended as one JSON line to
 * DATA_DIR/emails.log, which development setups and the tests read.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import net from 'node:net';
import tls from 'node:tls';
import { randomBytes } from 'node:crypto';
import type { Config } from '../config.ts';

export interface Email {
  to: string[];
  from: string;
  subject: string;
  text: string;
  /** Template name, for logs and tests (e.g. 'deactivate'). */
  template: string;
}

export interface EmailSettings {
  dataDir: string;
  smtpUrl?: string;
  /** The noreply sender address. */
  from: string;
}

/** Email settings from the server configuration (SMTP_URL / PARLEY_NOREPLY_EMAIL are read from the environment). */
export function emailSettings(config: Config, env: NodeJS.ProcessEnv = process.env): EmailSettings {
  const host = new URL(config.externalUrl).hostname;
  return {
    dataDir: config.dataDir,
    smtpUrl: env.SMTP_URL || undefined,
    from: env.PARLEY_NOREPLY_EMAIL || `noreply@${host.includes('.') && !/^[\d.]+$/.test(host) ? host : 'parley.local'}`,
  };
}

/** Sends (or logs) one message. Errors are thrown to the caller. */
export async function sendEmail(settings: EmailSettings, email: Omit<Email, 'from'> & { from?: string }): Promise<void> {
  const msg: Email = { ...email, from: email.from ?? settings.from };
  if (!settings.smtpUrl) {
    mkdirSync(settings.dataDir, { recursive: true, mode: 0o700 });
    appendFileSync(join(settings.dataDir, 'emails.log'), JSON.stringify({ ...msg, date: new Date().toISOString() }) + '\n', { mode: 0o600 });
    return;
  }
  await smtpSend(settings.smtpUrl, msg);
}

// ---------------------------------------------------------------------------
// A small SMTP client (RFC 5321): enough for a relay/submission server.

function headerValue(s: string): string {
  // RFC 2047 encoded-word for non-ASCII header text.
  // eslint-disable-next-line no-control-regex
  return /^[\x20-\x7e]*$/.test(s) ? s : `=?UTF-8?B?${Buffer.from(s, 'utf8').toString('base64')}?=`;
}

export function formatMessage(msg: Email, host: string): string {
  const body = msg.text.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..');
  return [
    `From: ${msg.from}`,
    `To: ${msg.to.join(', ')}`,
    `Subject: ${headerValue(msg.subject)}`,
    `Date: ${new Date().toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: <${randomBytes(12).toString('hex')}@${host}>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    body,
  ].join('\r\n');
}

class SmtpConnection {
  private socket: net.Socket | tls.TLSSocket;
  private buffer = '';
  private waiting: ((reply: { code: number; lines: string[] }) => void) | null = null;
  private failed: ((err: Error) => void) | null = null;
  private lines: string[] = [];

  constructor(socket: net.Socket | tls.TLSSocket) {
    this.socket = socket;
    this.attach();
  }

  private attach(): void {
    this.socket.setEncoding('utf8');
    this.socket.on('data', (chunk: string) => this.onData(chunk));
    this.socket.on('error', (err) => this.failed?.(err));
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let idx: number;
    while ((idx = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, idx).replace(/\r$/, '');
      this.buffer = this.buffer.slice(idx + 1);
      this.lines.push(line);
      if (/^\d{3} /.test(line) || /^\d{3}$/.test(line)) {
        const reply = { code: Number(line.slice(0, 3)), lines: this.lines.map((l) => l.slice(4)) };
        this.lines = [];
        const w = this.waiting;
        this.waiting = null;
        w?.(reply);
      }
    }
  }

  read(): Promise<{ code: number; lines: string[] }> {
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.failed = reject;
    });
  }

  async command(line: string, expect: number[]): Promise<{ code: number; lines: string[] }> {
    const p = this.read();
    this.socket.write(line + '\r\n');
    const reply = await p;
    if (!expect.includes(reply.code)) {
      throw new Error(`SMTP ${line.split(' ')[0]} failed: ${reply.code} ${reply.lines.join(' ')}`);
    }
    return reply;
  }

  async startTls(host: string): Promise<void> {
    this.socket.removeAllListeners('data');
    this.socket = await new Promise<tls.TLSSocket>((resolve, reject) => {
      const s = tls.connect({ socket: this.socket as net.Socket, servername: host }, () => resolve(s));
      s.once('error', reject);
    });
    this.attach();
  }

  end(): void {
    this.socket.end();
  }
}

async function smtpSend(url: string, msg: Email): Promise<void> {
  const u = new URL(url);
  const secure = u.protocol === 'smtps:';
  const host = u.hostname;
  const port = Number(u.port || (secure ? 465 : 587));
  const socket = await new Promise<net.Socket | tls.TLSSocket>((resolve, reject) => {
    const s = secure ? tls.connect({ host, port, servername: host }, () => resolve(s)) : net.connect({ host, port }, () => resolve(s));
    s.once('error', reject);
    s.setTimeout(30_000, () => s.destroy(new Error('SMTP timeout')));
  });
  const conn = new SmtpConnection(socket);
  try {
    const greeting = await conn.read();
    if (greeting.code !== 220) throw new Error(`SMTP greeting: ${greeting.code}`);
    const me = 'parley';
    let ehlo = await conn.command(`EHLO ${me}`, [250]);
    if (!secure && ehlo.lines.some((l) => /^STARTTLS\b/i.test(l))) {
      await conn.command('STARTTLS', [220]);
      await conn.startTls(host);
      ehlo = await conn.command(`EHLO ${me}`, [250]);
    }
    if (u.username) {
      const user = decodeURIComponent(u.username);
      const pass = decodeURIComponent(u.password);
      const auth = ehlo.lines.find((l) => /^AUTH\b/i.test(l)) ?? '';
      if (/\bLOGIN\b/i.test(auth) && !/\bPLAIN\b/i.test(auth)) {
        await conn.command('AUTH LOGIN', [334]);
        await conn.command(Buffer.from(user).toString('base64'), [334]);
        await conn.command(Buffer.from(pass).toString('base64'), [235]);
      } else {
        await conn.command(`AUTH PLAIN ${Buffer.from(`\0${user}\0${pass}`).toString('base64')}`, [235]);
      }
    }
    await conn.command(`MAIL FROM:<${msg.from}>`, [250]);
    for (const rcpt of msg.to) await conn.command(`RCPT TO:<${rcpt}>`, [250, 251]);
    await conn.command('DATA', [354]);
    await conn.command(formatMessage(msg, me) + '\r\n.', [250]);
    await conn.command('QUIT', [221]).catch(() => undefined);
  } finally {
    conn.end();
  }
}
