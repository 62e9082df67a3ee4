import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface SelfSigned {
  /** Paths of the PEM files. */
  cert: string;
  key: string;
  /** The certificate itself, to trust it as a CA. */
  pem: string;
  fingerprint256: string;
}

/** A self-signed P-256 certificate for 127.0.0.1 and localhost, made with the openssl CLI into `dir`. */
export async function selfSignedCertificate(dir: string, name: string): Promise<SelfSigned> {
  const cert = join(dir, `${name}.pem`);
  const key = join(dir, `${name}.key`);
  await promisify(execFile)('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', `/CN=${name}`, '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', key, '-out', cert,
  ]);
  const pem = await readFile(cert, 'utf8');
  return { cert, key, pem, fingerprint256: new X509Certificate(pem).fingerprint256 };
}
