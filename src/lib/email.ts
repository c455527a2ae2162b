/**
 * Outgoing email. With SMTP configured (SMTP_URL, e.g.
 * smtp://user:pass@mail.example.com:587, smtp://...?starttls=required or
 * smtps://...:465) messages are sent over SMTP through nodemailer, on pooled
 * connections. Otherwise each message is appended as one JSON line to
 * DATA_DIR/emails.log, which development setups and the tests read.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Transporter } from 'nodemailer';
import { lazyModule } from './lazy.ts';
import { makeDirs } from './make-dirs.js';

const nodemailer = lazyModule<typeof import('nodemailer')>('nodemailer');
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
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
    makeDirs(settings.dataDir, 0o700);
    appendFileSync(join(settings.dataDir, 'emails.log'), JSON.stringify({ ...msg, date: new Date().toISOString() }) + '\n', { mode: 0o600 });
    return;
  }
  await smtpSend(settings.smtpUrl, msg);
}

// ---------------------------------------------------------------------------
// SMTP through nodemailer: one pooled transport per SMTP_URL.

/**
 * Transport options from SMTP_URL: smtp://user:pass@host:587 (STARTTLS when
 * the server offers it), smtp://...?starttls=required (refuses to send
 * without STARTTLS), smtps://...:465 (TLS from the start).
 */
export function transportOptions(url: string): SMTPPool.Options {
  const u = new URL(url);
  const secure = u.protocol === 'smtps:';
  if (!secure && u.protocol !== 'smtp:') throw new Error(`SMTP_URL must be smtp:// or smtps://, not ${u.protocol}`);
  const starttls = (u.searchParams.get('starttls') ?? '').toLowerCase();
  const requireTLS = starttls === 'required' || u.searchParams.get('requireTLS') === 'true';
  return {
    pool: true,
    maxConnections: 3,
    host: u.hostname,
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    secure,
    requireTLS,
    ignoreTLS: starttls === 'off',
    name: u.searchParams.get('helo') ?? 'parley',
    ...(u.username ? { auth: { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } } : {}),
    connectionTimeout: 30_000,
    greetingTimeout: 30_000,
    socketTimeout: 60_000,
  };
}

const transports = new Map<string, Transporter>();

function transport(url: string): Transporter {
  let t = transports.get(url);
  if (!t) {
    t = nodemailer().createTransport(transportOptions(url));
    transports.set(url, t);
  }
  return t;
}

/** Closes the pooled SMTP connections (on shutdown). */
export function closeEmailTransports(): void {
  for (const t of transports.values()) t.close();
  transports.clear();
}

async function smtpSend(url: string, msg: Email): Promise<void> {
  // nodemailer encodes the message (UTF-8 headers as encoded words, long
  // lines folded by quoted-printable), dot-stuffs it and handles the SMTP
  // dialogue (EHLO, STARTTLS, AUTH, pipelining) on pooled connections.
  await transport(url).sendMail({
    from: msg.from,
    to: msg.to,
    subject: msg.subject,
    text: msg.text,
    headers: { 'X-Parley-Template': msg.template },
  });
}
