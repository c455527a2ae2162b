/**
 * The benchmark's baseline: a bare node:http server on loopback that reads
 * the request body and answers every request with a small JSON body shaped
 * like a Zulip success response. Prints `listening <port>` once ready and
 * exits on SIGTERM/SIGINT.
 *
 * Plain JavaScript on purpose: a baseline without type stripping.
 */
import { createServer } from 'node:http';

const body = JSON.stringify({ result: 'success', msg: '', user_id: 8, email: 'owner@parley.local', full_name: 'Owner' });

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
});

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const addr = server.address();
  if (addr && typeof addr === 'object') console.log(`listening ${addr.port}`);
});

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
