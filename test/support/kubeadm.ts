/**
 * What every `k8s create kubeadm` test expects of the machines it installs, whoever made them (gpucloud,
 * cloud_a): the control plane at 127.0.0.1 and one worker at 127.0.0.2, both answered by the in-test SSH
 * server, and a join token that is a credential.
 */
import * as assert from 'uvu/assert';

export const TOKEN = 'abcdef.0123456789abcdef';

/** The SSH server's answer to a command: `kubeadm token create` prints the join (endpoint, token, CA hash); anything else succeeds. */
export const kubeadmHostExec = (command: string) =>
  command.startsWith('kubeadm token create') ? { stdout: JSON.stringify({ endpoint: '10.1.0.5:6443', token: TOKEN, ca_cert_hash: 'sha256:0f1e2d' }) + '\n', code: 0 } : { code: 0 };

/** The commands a one-worker install sends, host by host and in order, and the join token kept out of what the CLI printed. */
export function assertKubeadmInstall(e: readonly { address: string; command: string }[], output: string): void {
  assert.equal(e.map((x) => x.address), ['127.0.0.1', '127.0.0.1', '127.0.0.2', '127.0.0.1', '127.0.0.2', '127.0.0.1'], e.map((x) => `${x.address} ${x.command.slice(0, 40)}`).join('\n'));
  assert.match(e[0]!.command, /apt-get install -y -q kubelet kubeadm kubectl/);
  assert.match(e[1]!.command, /kubeadm init --pod-network-cidr=10\.244\.0\.0\/16 --apiserver-cert-extra-sans='?127\.0\.0\.1'?\n/);
  assert.match(e[3]!.command, /^kubeadm token create --ttl 30m/);
  assert.is(e[4]!.command, `test -f /etc/kubernetes/kubelet.conf || kubeadm join '10.1.0.5:6443' --token '${TOKEN}' --discovery-token-ca-cert-hash 'sha256:0f1e2d'`);
  assert.is(e[5]!.command, 'cat /root/.kube/config');
  assert.not.ok(output.includes(TOKEN), 'the join token is a credential: never in the output');
}
