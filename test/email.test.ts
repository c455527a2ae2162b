/** src/lib/email.ts: the emails.log fallback and the SMTP client (against a tiny in-process SMTP server). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sendEmail } from '../src/lib/email.ts';

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

test('with SMTP_URL, the message is sent over SMTP with AUTH PLAIN and dot-stuffing', async () => {
  const commands: string[] = [];
  let data = '';
  const server = net.createServer((sock) => {
    let inData = false;
    let buf = '';
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
            sock.write('250 queued\r\n');
          } else data += line + '\n';
          continue;
        }
        commands.push(line);
        if (line.startsWith('EHLO')) sock.write('250-test\r\n250-AUTH PLAIN LOGIN\r\n250 8BITMIME\r\n');
        else if (line.startsWith('AUTH PLAIN')) sock.write('235 ok\r\n');
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
  try {
    await sendEmail(
      { dataDir: '/nonexistent', smtpUrl: `smtp://me%40example.com:s3cret@127.0.0.1:${port}`, from: 'noreply@example.com' },
      { to: ['x@example.com', 'y@example.com'], subject: 'Héllo', text: 'line one\n.starts with a dot\n', template: 't' },
    );
  } finally {
    server.close();
  }
  assert.equal(commands[0], 'EHLO parley');
  assert.equal(commands[1], `AUTH PLAIN ${Buffer.from('\0me@example.com\0s3cret').toString('base64')}`);
  assert.deepEqual(commands.slice(2), ['MAIL FROM:<noreply@example.com>', 'RCPT TO:<x@example.com>', 'RCPT TO:<y@example.com>', 'DATA', 'QUIT']);
  assert.match(data, /^From: noreply@example.com$/m);
  assert.match(data, /^To: x@example.com, y@example.com$/m);
  assert.match(data, /^Subject: =\?UTF-8\?B\?/m);
  assert.match(data, /^line one$/m);
  assert.match(data, /^\.\.starts with a dot$/m);
});
