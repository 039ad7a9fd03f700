/**
 * The sandbox's stand-in for an Instant Cluster's head node and for every instance: an SSH server
 * (ssh2's Server, in this process, on a loopback port; sandbox.ts reaches every host there) that lets
 * in root with the sandbox's own key and answers two fixed commands: `cat /root/.kube/config`, sent by
 * `k8s create gpucloud`, with a kubeconfig as kubeadm writes it (its token is the one the Kubernetes
 * API stand-in, kube-api.ts, accepts), and the auto-stop watcher's record, read by `autostop check`.
 * Nothing else runs: any other command exits 127. Keys live under ~/.assistant/sandbox/ssh/ so
 * the host key stays the same from one run to the next.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import { AUTOSTOP_READ_COMMAND } from '../../core/kits/autostop/template.js';
import { sandboxKubeToken } from './kube-api.js';
import { ed25519KeyPair, rootWithKey } from './ssh-keys.js';

const { Server, utils } = ssh2;

export const HEAD_NODE_KUBECONFIG_PATH = '/root/.kube/config';

export interface HeadNode {
  /** The loopback port it answers on (the sandbox's clusters get 127.0.0.1 as their IP). */
  port: number;
  /** The private key that gets in as root. */
  clientKeyPath: string;
  close(): Promise<void>;
}

/**
 * The private key kept in `dir/name`, made on first use. Only the private key is stored (the public half
 * is derived from it), written to a temp file and renamed, so two sandbox runs starting at once never
 * leave a private key that does not match its public half.
 */
function keptKey(dir: string, name: string): ssh2.ParsedKey & { pem: string } {
  const file = join(dir, name);
  if (existsSync(file)) {
    const pem = readFileSync(file, 'utf8');
    const parsed = utils.parseKey(pem);
    if (!(parsed instanceof Error)) return Object.assign(parsed as ssh2.ParsedKey, { pem });
  }
  const pem = ed25519KeyPair().private;
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, pem, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
  // Another run may have renamed its key in between: use whatever the file holds now.
  const kept = readFileSync(file, 'utf8');
  return Object.assign(utils.parseKey(kept) as ssh2.ParsedKey, { pem: kept });
}

/**
 * What /root/.kube/config holds on a kubeadm head node (its admin context): the API server, on the
 * private network unless said, its CA, and the lines under the admin's `user:` (a token, or a client
 * certificate and key).
 */
export function kubeadmKubeconfig(o: { server?: string; ca: string; user: string[] }): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${o.ca}`,
    `    server: ${o.server ?? 'https://10.0.0.2:6443'}`,
    '  name: kubernetes',
    'contexts:',
    '- context:',
    '    cluster: kubernetes',
    '    user: kubernetes-admin',
    '  name: kubernetes-admin@kubernetes',
    'current-context: kubernetes-admin@kubernetes',
    'preferences: {}',
    'users:',
    '- name: kubernetes-admin',
    '  user:',
    ...o.user.map((line) => `    ${line}`),
    '',
  ].join('\n');
}

/** The sandbox's: its token is the one the Kubernetes API stand-in (kube-api.ts) accepts. */
function headNodeKubeconfig(token: string): string {
  const fake = (text: string) => Buffer.from(`sandbox stand-in: ${text}`).toString('base64');
  return kubeadmKubeconfig({ ca: fake('no real certificate authority'), user: [`token: ${token}`] });
}

/**
 * What the auto-stop watcher (engine/core/kits/autostop/watcher.ts) would have written on a machine that
 * just booted and is not in use: idle for 0 minutes, so `autostop check` reads it and keeps the instance.
 */
function watcherRecord(): string {
  const now = Math.floor(Date.now() / 1000);
  return `${JSON.stringify({ version: 1, updated: now, last_activity: now, boot: now, busy: false, gpu_util_max: 0, logins: 0 })}\n`;
}

/** `kubeApiDir`: where the Kubernetes API stand-in keeps the token its clusters accept. */
export async function startHeadNode(sshDir: string, kubeApiDir: string): Promise<HeadNode> {
  mkdirSync(sshDir, { recursive: true, mode: 0o700 });
  const allowed = keptKey(sshDir, 'id_ed25519');
  const host = keptKey(sshDir, 'host_ed25519');
  const kubeconfig = headNodeKubeconfig(sandboxKubeToken(kubeApiDir));
  const server = new Server({ hostKeys: [host.pem] }, (conn) => {
    conn.on('error', () => undefined);
    conn.on('authentication', rootWithKey(allowed));
    conn.on('ready', () => {
      conn.on('session', (accept) => {
        const session = accept();
        session.on('exec', (acceptExec, _reject, info) => {
          const stream = acceptExec();
          const answer = info.command === `cat ${HEAD_NODE_KUBECONFIG_PATH}` ? kubeconfig : info.command === AUTOSTOP_READ_COMMAND ? watcherRecord() : undefined;
          if (answer !== undefined) {
            stream.write(answer);
            stream.exit(0);
          } else {
            stream.stderr.write(`sandbox stand-in head node: only "cat ${HEAD_NODE_KUBECONFIG_PATH}" and "${AUTOSTOP_READ_COMMAND}" are served\n`);
            stream.exit(127);
          }
          stream.end();
        });
      });
    });
  });
  // A plain TCP listener hands each connection to the SSH server, so close() can end them all at once.
  const sockets = new Set<Socket>();
  const front = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    server.injectSocket(socket);
  });
  await new Promise<void>((resolve, reject) => front.once('error', reject).listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (front.address() as AddressInfo).port,
    clientKeyPath: join(sshDir, 'id_ed25519'),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        front.close(() => resolve());
      }),
  };
}
