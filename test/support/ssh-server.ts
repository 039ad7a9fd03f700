/**
 * An SSH server inside the test (ssh2's `Server`): accepts root with one public key, records every exec
 * command, serves files for `cat <path>`, can drop the first N connections (sshd not up yet on a fresh
 * node) and can switch its host key (a rebuilt host, or a man in the middle).
 */
import { createServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import { kubeadmKubeconfig } from '../../engine/producers/sandbox/head-node.js';
import { ed25519KeyPair, rootWithKey } from '../../engine/producers/sandbox/ssh-keys.js';
import { tempHome } from './cli.js';
import { tempDir } from './temp.js';

const { Server, utils } = ssh2;

export interface ExecAnswer {
  stdout?: string;
  stderr?: string;
  code?: number;
}

export interface SshTestServerOptions {
  /** Files `cat <path>` prints (e.g. `/root/.kube/config`); a missing one answers like cat does. */
  files?: Record<string, string>;
  /** Answers for other commands; default: exit 0, no output. */
  exec?: (command: string) => ExecAnswer;
  /** Drop this many connections before answering the first one. */
  refuseFirst?: number;
  /** More loopback addresses to answer on, same port (`127.0.0.2`): several "hosts" for one test. */
  alsoOn?: string[];
  /** Files per address a connection came to (one of alsoOn, or 127.0.0.1): each "host" its own; others get `files`. */
  filesAt?: Record<string, Record<string, string>>;
}

export interface SshTestServer {
  port: number;
  /** Every exec command, in order, as the client sent it. */
  commands: string[];
  /** Every exec command with the address it came to. */
  execs: { address: string; command: string }[];
  /** Users that authenticated. */
  users: string[];
  /** TCP connections seen (dropped ones included). */
  connections(): number;
  files: Record<string, string>;
  /** The files of each address of `filesAt` (change them to change what a host answers). */
  filesAt: Record<string, Record<string, string>>;
  /** Switch to another host key (new connections present it). */
  rotateHostKey(): void;
  /** The private key file a client should use (written 0600 in `dir`). */
  clientKeyPath: string;
  close(): Promise<void>;
}

function newHostServer(opts: {
  hostKey: string;
  allowed: ReturnType<typeof utils.parseKey>;
  address?: string;
  state: { commands: string[]; execs: { address: string; command: string }[]; users: string[]; files: Record<string, string>; exec?: SshTestServerOptions['exec'] };
}) {
  return new Server({ hostKeys: [opts.hostKey] }, (client) => {
    client.on('error', () => undefined);
    client.on('authentication', rootWithKey(opts.allowed as ssh2.ParsedKey, (user) => opts.state.users.push(user)));
    client.on('ready', () => {
      client.on('session', (accept) => {
        const session = accept();
        session.on('exec', (acceptExec, _reject, info) => {
          opts.state.commands.push(info.command);
          opts.state.execs.push({ address: opts.address ?? '127.0.0.1', command: info.command });
          const stream = acceptExec();
          const cat = /^cat (\S+)$/.exec(info.command);
          let answer: ExecAnswer;
          if (cat) {
            const content = opts.state.files[cat[1]!];
            answer = content === undefined ? { stderr: `cat: ${cat[1]}: No such file or directory\n`, code: 1 } : { stdout: content, code: 0 };
          } else answer = opts.state.exec?.(info.command) ?? { code: 0 };
          if (answer.stdout) stream.write(answer.stdout);
          if (answer.stderr) stream.stderr.write(answer.stderr);
          stream.exit(answer.code ?? 0);
          stream.end();
        });
      });
    });
  });
}

export async function startSshServer(dir: string, opts: SshTestServerOptions = {}): Promise<SshTestServer> {
  const clientKeys = ed25519KeyPair();
  const clientKeyPath = join(dir, 'id_ed25519');
  writeFileSync(clientKeyPath, clientKeys.private, { mode: 0o600 });
  chmodSync(clientKeyPath, 0o600);
  const allowed = utils.parseKey(clientKeys.public);
  if (allowed instanceof Error) throw allowed;
  const state = { commands: [] as string[], execs: [] as { address: string; command: string }[], users: [] as string[], files: { ...(opts.files ?? {}) }, exec: opts.exec };
  const filesAt: Record<string, Record<string, string>> = Object.fromEntries(Object.entries(opts.filesAt ?? {}).map(([a, f]) => [a, { ...f }]));
  let hostKey = ed25519KeyPair().private;
  let current = newHostServer({ hostKey, allowed, state });
  // An address with files of its own is a host of its own: its own server over the same host key.
  let perAddress = new Map<string, ReturnType<typeof newHostServer>>();
  const serverFor = (address: string | undefined) => {
    const a = (address ?? '').replace(/^::ffff:/, '');
    if (!filesAt[a]) return current;
    let srv = perAddress.get(a);
    if (!srv) perAddress.set(a, (srv = newHostServer({ hostKey, allowed, address: a, state: { ...state, files: filesAt[a]! } })));
    return srv;
  };
  let refuse = opts.refuseFirst ?? 0;
  let connections = 0;
  const sockets = new Set<Socket>();
  // A plain TCP front: it can drop connections (sshd not up yet) and hands the rest to the SSH server
  // of the current host key.
  const front: NetServer = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    if (refuse > 0) {
      refuse--;
      socket.destroy();
      return;
    }
    serverFor(socket.localAddress).injectSocket(socket);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const port = (front.address() as AddressInfo).port;
  const extra: NetServer[] = [];
  for (const address of opts.alsoOn ?? []) {
    const more = createServer((socket) => front.emit('connection', socket));
    await new Promise<void>((resolve, reject) => more.once('error', reject).listen(port, address, resolve));
    extra.push(more);
  }
  return {
    port,
    commands: state.commands,
    execs: state.execs,
    users: state.users,
    files: state.files,
    filesAt,
    connections: () => connections,
    rotateHostKey() {
      hostKey = ed25519KeyPair().private;
      current = newHostServer({ hostKey, allowed, state });
      perAddress = new Map();
    },
    clientKeyPath,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        for (const more of extra) more.close();
        front.close(() => resolve());
      }),
  };
}

/** `home` with a config that points gpucloud's SSH steps at `srv` (its client key and port), then `more` config. */
export function sshHome(srv: Pick<SshTestServer, 'clientKeyPath' | 'port'>, home: string, more = ''): string {
  writeFileSync(join(home, '.assistant.yaml'), `gpucloud:\n  ssh_key_path: ${srv.clientKeyPath}\n  ssh_port: ${srv.port}\n${more}`, { mode: 0o600 });
  return home;
}

/** An SSH server that serves a head node's kubeconfig (and `opts`), and a HOME (`home`, or a new one) that reaches it: `fn` runs with both, the server is closed after. */
export async function withSshServer(fn: (srv: SshTestServer, home: string) => Promise<void>, opts: SshTestServerOptions = {}, home = tempHome()): Promise<void> {
  const srv = await startSshServer(tempDir('assistant-ssh-'), { files: { '/root/.kube/config': headNodeKubeconfig() }, ...opts });
  try {
    await fn(srv, sshHome(srv, home));
  } finally {
    await srv.close();
  }
}

/**
 * A head node's kubeconfig as kubeadm writes /etc/kubernetes/admin.conf (what /root/.kube/config holds
 * there), with a client certificate (placeholders unless given).
 */
export function headNodeKubeconfig(opts: { server?: string; ca?: string; cert?: string; key?: string } = {}): string {
  return kubeadmKubeconfig({
    server: opts.server,
    ca: opts.ca ?? 'Q0EtREFUQS1PRi1USEUtQ0xVU1RFUg==',
    user: [`client-certificate-data: ${opts.cert ?? 'Q0xJRU5ULUNFUlQtU0VDUkVU'}`, `client-key-data: ${opts.key ?? 'Q0xJRU5ULUtFWS1TRUNSRVQtUEFZTE9BRA=='}`],
  });
}
