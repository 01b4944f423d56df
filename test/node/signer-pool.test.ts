// The worker pool recovers the same signers as the inline path, for good and bad signatures.
import { Wallet, Signature } from 'ethers';
import t from 'tap';
import { exchangeDomain, type AuthConfig } from '../../exchange/index.ts';
import { InlineRecovery, WorkerPoolRecovery } from '../../node/index.ts';
import { signRequest } from '../support/signing.ts';

const AUTH: AuthConfig = { domain: exchangeDomain(42069), source: 'b', literalNonceBinding: true };

t.test('pool and inline recovery agree', async (t) => {
  const pool = await WorkerPoolRecovery.start(AUTH, 2);
  t.teardown(() => pool.close());
  const inline = new InlineRecovery(AUTH);
  const wallet = new Wallet(Wallet.createRandom().privateKey);
  const action = { type: 'cancel', cancels: [{ a: 0, o: 1 }] };
  const reqs = await Promise.all(
    Array.from({ length: 24 }, (_, i) => signRequest(wallet, action, 1_767_225_600_000 + i, { binding: i % 3 === 0 ? 'literal' : 'action' })),
  );
  const broken = { ...reqs[0]!, signature: { r: '0x01', s: '0xzz', v: 27 } };
  const tampered = { ...reqs[1]!, nonce: reqs[1]!.nonce + 1 };
  const all = [...reqs, broken, tampered];
  for (const binding of ['action', 'literal'] as const) {
    const fromPool = await Promise.all(all.map((r) => pool.recover(r, binding)));
    const fromInline = await Promise.all(all.map((r) => inline.recover(r, binding)));
    t.same(fromPool, fromInline, `${binding} binding`);
  }
  const signer = wallet.address.toLowerCase();
  t.equal(await pool.recover(reqs[1]!, 'action'), signer);
  t.equal(await pool.recover(reqs[0]!, 'literal'), signer);
  t.equal(await pool.recover(broken, 'action'), null);
  t.not(await pool.recover(tampered, 'action'), signer, 'a changed nonce recovers another address');
  t.ok(Signature.from({ r: reqs[2]!.signature.r, s: reqs[2]!.signature.s, v: reqs[2]!.signature.v }));
});
