/**
 * The certificate of local webhook receivers: one self-signed certificate for 127.0.0.1, kept in a
 * folder beside the databases (`data/webhook-tls` by default). `market run` trusts it for loopback
 * webhook URLs (the sandbox-only allowance), and `market webhooks listen` serves with it, so the
 * two agree without the user making a certificate.
 */
import { X509Certificate } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeLoopbackCertificate } from '../shared/loopback-certificate.js';

/** The certificate and its key, in PEM. */
export interface LoopbackTls {
  cert: string;
  key: string;
  /** Path of the certificate, for `market serve --webhook-ca`. */
  certPath: string;
}

/** The certificate kept in `dir`, made (or remade when expired) on first use. */
export async function loopbackTls(dir: string): Promise<LoopbackTls> {
  const certPath = join(dir, 'cert.pem');
  const keyPath = join(dir, 'key.pem');
  const kept = await readKept(certPath, keyPath);
  if (kept) return kept;
  const pems = await makeLoopbackCertificate();
  await mkdir(dir, { recursive: true });
  await writeFile(keyPath, pems.key, { mode: 0o600 });
  await writeFile(certPath, pems.cert);
  return { ...pems, certPath };
}

/** The kept pair, or null when there is none or it expires within a day. */
async function readKept(certPath: string, keyPath: string): Promise<LoopbackTls | null> {
  try {
    const [cert, key] = await Promise.all([readFile(certPath, 'utf8'), readFile(keyPath, 'utf8')]);
    const validTo = Date.parse(new X509Certificate(cert).validTo);
    return validTo - Date.now() > 86_400_000 ? { cert, key, certPath } : null;
  } catch {
    return null;
  }
}
