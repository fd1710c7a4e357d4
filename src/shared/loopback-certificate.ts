/** A self-signed certificate for 127.0.0.1 that is its own CA, for webhook receivers on this machine. */
import { generate } from 'selfsigned';

/** A certificate and its key, in PEM. */
export interface LoopbackCertificate {
  cert: string;
  key: string;
}

/**
 * A new self-signed certificate for 127.0.0.1, its own CA, so a client can trust exactly it. Give
 * it a `commonName` of its own when it is trusted beside another such CA: TLS looks a CA up by its
 * name, and of two of the same name it may try the wrong one.
 */
export async function makeLoopbackCertificate(commonName = '127.0.0.1'): Promise<LoopbackCertificate> {
  const pems = await generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}
