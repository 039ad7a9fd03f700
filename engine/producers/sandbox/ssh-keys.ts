/**
 * What the SSH stand-ins (the sandbox's head node, head-node.ts, and the tests' SSH server,
 * test/support/ssh-server.ts) share: a key pair ssh2 can read back, and the one login they let in, root
 * with one public key.
 */
import ssh2 from 'ssh2';

const { utils } = ssh2;

/**
 * An ed25519 key pair ssh2 reads back: about 1 in 250 pairs from ssh2's own generateKeyPairSync is one
 * its parseKey rejects ("Malformed OpenSSH public key"), so a pair is checked before it is kept.
 */
export function ed25519KeyPair(): { private: string; public: string } {
  for (;;) {
    const pair = utils.generateKeyPairSync('ed25519');
    if (!(utils.parseKey(pair.private) instanceof Error) && !(utils.parseKey(pair.public) instanceof Error)) return pair;
  }
}

/** An `authentication` handler that lets in root with `allowed` only (a signed public-key login); `onLogin` hears each one. */
export function rootWithKey(allowed: ssh2.ParsedKey, onLogin: (username: string) => void = () => undefined): (auth: ssh2.AuthContext) => void {
  return (auth) => {
    if (auth.method !== 'publickey' || auth.username !== 'root') return auth.reject(['publickey']);
    if (auth.key.algo !== allowed.type || !auth.key.data.equals(allowed.getPublicSSH())) return auth.reject(['publickey']);
    if (!auth.signature) return auth.accept(); // the "would this key do?" probe
    if (!allowed.verify(auth.blob!, auth.signature, auth.hashAlgo)) return auth.reject(['publickey']);
    onLogin(auth.username);
    auth.accept();
  };
}
