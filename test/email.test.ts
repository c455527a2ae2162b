/** src/lib/email.ts: the emails.log fallback and SMTP through nodemailer (against a tiny in-process SMTP server). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeEmailTransports, sendEmail, transportOptions } from '../src/lib/email.ts';

test('without SMTP, messages are appended to DATA_DIR/emails.log as JSON lines', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-email-'));
  try {
    const settings = { dataDir: dir, from: 'noreply@example.com' };
    await sendEmail(settings, { to: ['a@example.com'], subject: 'One', text: 'first\n', template: 't1' });
    await sendEmail(settings, { to: ['b@example.com'], subject: 'Two', text: 'second\n', template: 't2' });
    const lines = readFileSync(join(dir, 'emails.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l) => [l.to, l.from, l.subject, l.text, l.template]), [
      [['a@example.com'], 'noreply@example.com', 'One', 'first\n', 't1'],
      [['b@example.com'], 'noreply@example.com', 'Two', 'second\n', 't2'],
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A tiny SMTP server recording commands, message data and connections. */
async function smtpServer(opts: { starttls?: boolean } = {}) {
  const commands: string[] = [];
  const messages: string[] = [];
  let connections = 0;
  const server = net.createServer((sock) => {
    connections++;
    let inData = false;
    let buf = '';
    let data = '';
    sock.write('220 test ESMTP\r\n');
    sock.on('data', (chunk) => {
      buf += chunk.toString('utf8');
      let i: number;
      while ((i = buf.indexOf('\r\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            messages.push(data);
            data = '';
            sock.write('250 queued\r\n');
          } else data += line + '\n';
          continue;
        }
        commands.push(line);
        if (line.startsWith('EHLO')) sock.write(`250-test\r\n250-AUTH PLAIN LOGIN\r\n${opts.starttls ? '250-STARTTLS\r\n' : ''}250 8BITMIME\r\n`);
        else if (line.startsWith('AUTH PLAIN')) sock.write('235 ok\r\n');
        // A server that does not offer STARTTLS refuses it (a client that went on would wait for a TLS answer that never comes).
        else if (line === 'STARTTLS' && !opts.starttls) sock.write('502 5.5.1 STARTTLS not available\r\n');
        else if (line === 'DATA') {
          inData = true;
          sock.write('354 go\r\n');
        } else if (line === 'QUIT') {
          sock.write('221 bye\r\n');
          sock.end();
        } else sock.write('250 ok\r\n');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as net.AddressInfo).port;
  return { commands, messages, port, connections: () => connections, close: () => new Promise((r) => server.close(r)) };
}

test('with SMTP_URL, messages go through nodemailer: AUTH PLAIN, encoded headers, dot-stuffing, pooled connections', async () => {
  const smtp = await smtpServer();
  const settings = { dataDir: '/nonexistent', smtpUrl: `smtp://me%40example.com:s3cret@127.0.0.1:${smtp.port}`, from: 'noreply@example.com' };
  try {
    await sendEmail(settings, { to: ['x@example.com', 'y@example.com'], subject: 'Héllo', text: 'line one\n.starts with a dot\n', template: 't' });
    await sendEmail(settings, { to: ['z@example.com'], subject: 'Second', text: 'again\n', template: 't' });
  } finally {
    closeEmailTransports();
    await smtp.close();
  }
  assert.equal(smtp.commands[0], 'EHLO parley');
  assert.equal(smtp.commands[1], `AUTH PLAIN ${Buffer.from('\0me@example.com\0s3cret').toString('base64')}`);
  assert.deepEqual(
    smtp.commands.filter((c) => /^(MAIL|RCPT|DATA)/.test(c)).map((c) => c.replace(/ (BODY|SIZE)=\S+/g, '')),
    ['MAIL FROM:<noreply@example.com>', 'RCPT TO:<x@example.com>', 'RCPT TO:<y@example.com>', 'DATA', 'MAIL FROM:<noreply@example.com>', 'RCPT TO:<z@example.com>', 'DATA'],
  );
  assert.equal(smtp.connections(), 1, 'both messages on one pooled connection');
  const [first] = smtp.messages;
  assert.match(first!, /^From: noreply@example.com$/m);
  assert.match(first!, /^To: x@example.com, y@example.com$/m);
  assert.match(first!, /^Subject: =\?UTF-8\?[BQ]\?/m);
  assert.match(first!, /^line one$/m);
  assert.match(first!, /^\.\.starts with a dot$/m);
});

test('long lines are folded: no line of the message is over 78 characters', async () => {
  const smtp = await smtpServer();
  try {
    const long = 'word '.repeat(400) + 'ünïcode '.repeat(50);
    await sendEmail({ dataDir: '/nonexistent', smtpUrl: `smtp://127.0.0.1:${smtp.port}`, from: 'noreply@example.com' }, { to: ['x@example.com'], subject: 'Long', text: `${long}\n`, template: 't' });
  } finally {
    closeEmailTransports();
    await smtp.close();
  }
  const lines = smtp.messages[0]!.split('\n');
  assert.ok(lines.length > 20);
  for (const l of lines) assert.ok(l.length <= 78, `line of ${l.length}: ${l.slice(0, 40)}…`);
  assert.match(smtp.messages[0]!, /^Content-Transfer-Encoding: quoted-printable$/m);
});

test('starttls=required: no message is sent to a server without STARTTLS', async () => {
  const smtp = await smtpServer({ starttls: false });
  try {
    await assert.rejects(
      sendEmail({ dataDir: '/nonexistent', smtpUrl: `smtp://127.0.0.1:${smtp.port}?starttls=required`, from: 'noreply@example.com' }, { to: ['x@example.com'], subject: 'S', text: 'secret\n', template: 't' }),
    );
  } finally {
    closeEmailTransports();
    await smtp.close();
  }
  assert.deepEqual(smtp.messages, []);
  assert.ok(!smtp.commands.some((c) => c.startsWith('MAIL')));
  assert.deepEqual(transportOptions('smtp://u:p@mail.example.com?starttls=required'), {
    ...transportOptions('smtp://u:p@mail.example.com'),
    requireTLS: true,
  });
  const smtps = transportOptions('smtps://mail.example.com');
  assert.equal(smtps.secure, true);
  assert.equal(smtps.port, 465);
  assert.equal(transportOptions('smtp://mail.example.com').port, 587);
});
