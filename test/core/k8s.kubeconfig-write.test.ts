/** Rewriting a head node's kubeconfig for its public address: every server form keeps TLS verifiable. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { kubeconfigPathFor, rewriteForPublicHost } from '../../engine/core/kubeconfig/kubeconfig-write.js';
import { headNodeKubeconfig } from '../support/ssh-server.js';

test('a private IP server: public IP, same scheme and port, tls-server-name the private IP, CA kept', () => {
  const pub = rewriteForPublicHost(headNodeKubeconfig({ server: 'https://10.0.0.2:6443' }), '203.0.113.7');
  assert.is(pub.server, 'https://203.0.113.7:6443');
  assert.is(pub.cluster['tls-server-name'], '10.0.0.2');
  assert.is(pub.cluster['certificate-authority-data'], 'Q0EtREFUQS1PRi1USEUtQ0xVU1RFUg==');
});

test('a host name, a path, no port, an IPv6 public address', () => {
  const pub = rewriteForPublicHost(headNodeKubeconfig({ server: 'https://k8s-head.internal/api-proxy' }), '2001:db8::7');
  assert.is(pub.server, 'https://[2001:db8::7]/api-proxy');
  assert.is(pub.cluster['tls-server-name'], 'k8s-head.internal');
});

test('a tls-server-name the head node already set is kept; the same host needs none; plain http is refused (credentials in clear)', () => {
  const withName = headNodeKubeconfig().replace('    server:', '    tls-server-name: kubernetes.default\n    server:');
  assert.is(rewriteForPublicHost(withName, '203.0.113.7').cluster['tls-server-name'], 'kubernetes.default');
  assert.not.ok('tls-server-name' in rewriteForPublicHost(headNodeKubeconfig({ server: 'https://203.0.113.7:6443' }), '203.0.113.7').cluster);
  assert.throws(() => rewriteForPublicHost(headNodeKubeconfig({ server: 'http://10.0.0.2:8080' }), '203.0.113.7'), (e: { code?: string; exitCode?: number }) => e.code === 'refused' && e.exitCode === 3);
});

test('the current context picks the cluster and user; garbage is kubeconfig_invalid', () => {
  for (const bad of ['', 'just text', 'clusters: []', '{{{']) {
    assert.throws(() => rewriteForPublicHost(bad, '1.2.3.4'), (e: { code?: string }) => e.code === 'kubeconfig_invalid', JSON.stringify(bad));
  }
});

test('the target: kubernetes.kubeconfig, else the first non-empty KUBECONFIG path, else ~/.kube/config', () => {
  assert.is(kubeconfigPathFor({ kubernetes: { kubeconfig: '~/k/cfg' } } as never, { KUBECONFIG: '/x' }, '/home/u'), '/home/u/k/cfg');
  assert.is(kubeconfigPathFor({} as never, { KUBECONFIG: ':/a/b:/c' }, '/home/u'), '/a/b');
  assert.is(kubeconfigPathFor({} as never, {}, '/home/u'), '/home/u/.kube/config');
});

test.run();
