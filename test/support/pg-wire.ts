/**
 * A hostile PostgreSQL server for tests: it speaks enough of the wire protocol (v3) to let a client log
 * in (no password) and open a transaction, then answers the first real query with rows that never end.
 * A real server cannot be made to do that; the client must cut it off before memory runs out.
 */
import { createServer, type Socket } from 'node:net';

export interface HostilePostgres {
  port: number;
  /** Bytes of rows sent so far (all connections). */
  sent(): number;
  close(): Promise<void>;
}

function msg(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const cstr = (s: string) => Buffer.from(`${s}\0`, 'utf8');
const ready = (status: 'I' | 'T') => msg('Z', Buffer.from(status, 'latin1'));
const complete = (tag: string) => msg('C', cstr(tag));

function rowDescription(): Buffer {
  const field = Buffer.concat([cstr('junk'), int32(0), Buffer.from([0, 0]), int32(25), Buffer.from([0xff, 0xff]), int32(-1), Buffer.from([0, 0])]);
  return msg('T', Buffer.concat([Buffer.from([0, 1]), field]));
}

/** `cleartext`: asks for the password in clear text at login (and records what it got). */
export async function startHostilePostgres(opts: { cleartext?: boolean; host?: string } = {}): Promise<HostilePostgres & { passwords(): string[] }> {
  const passwords: string[] = [];
  let sent = 0;
  const sockets = new Set<Socket>();
  const row = (() => {
    const value = Buffer.alloc(64 * 1024, 'x');
    return msg('D', Buffer.concat([Buffer.from([0, 1]), int32(value.length), value]));
  })();

  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    let buf = Buffer.alloc(0);
    let started = false;
    const flood = () => {
      // Rows as fast as the client takes them, until it hangs up.
      while (!socket.destroyed && socket.write(row)) sent += row.length;
      if (!socket.destroyed) socket.once('drain', flood);
    };
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        if (!started) {
          if (buf.length < 8) return;
          const len = buf.readInt32BE(0);
          if (buf.length < len) return;
          const code = buf.readInt32BE(4);
          buf = buf.subarray(len);
          if (code === 80877103) {
            socket.write('N'); // no SSL
            continue;
          }
          started = true;
          if (opts.cleartext) {
            socket.write(msg('R', int32(3)));
            continue;
          }
          socket.write(Buffer.concat([msg('R', int32(0)), msg('S', Buffer.concat([cstr('server_version'), cstr('15.0')])), msg('K', Buffer.concat([int32(1), int32(2)])), ready('I')]));
          continue;
        }
        if (buf.length < 5) return;
        const type = String.fromCharCode(buf[0]!);
        const len = buf.readInt32BE(1);
        if (buf.length < len + 1) return;
        const body = buf.subarray(5, len + 1).toString('utf8').replace(/\0$/, '');
        buf = buf.subarray(len + 1);
        if (type === 'X') return void socket.end();
        if (type === 'p') {
          passwords.push(body);
          socket.write(Buffer.concat([msg('R', int32(0)), ready('I')]));
          continue;
        }
        if (type !== 'Q') continue;
        const sql = body.trim().toUpperCase();
        if (sql.startsWith('BEGIN')) socket.write(Buffer.concat([complete('BEGIN'), ready('T')]));
        else if (sql.startsWith('SET')) socket.write(Buffer.concat([complete('SET'), ready('T')]));
        else if (sql.startsWith('ROLLBACK') || sql.startsWith('COMMIT')) socket.write(Buffer.concat([complete(sql.split(/\s/)[0]!), ready('I')]));
        else {
          socket.write(rowDescription());
          flood();
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, opts.host ?? '127.0.0.1', () => resolve()));
  return {
    passwords: () => [...passwords],
    port: (server.address() as { port: number }).port,
    sent: () => sent,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
