import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import { createSecureContext } from 'node:tls';
import { StartupError } from '../config/errors.js';
import type { GatewayConfig } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import { watchFiles, type FileWatch } from '../config/file-watch.js';
import { serverOptionsOf } from './server-limits.js';

export type TlsConfig = NonNullable<GatewayConfig['tls']>;

export interface TlsCredentials {
  readonly cert: Buffer;
  readonly key: Buffer;
}

/**
 * Reads the certificate and key files and proves that they make a usable
 * pair (`createSecureContext` refuses a key that does not belong to the
 * certificate). Every failure is a StartupError naming the key and the file;
 * the message never holds key material.
 */
export async function readTlsCredentials(tls: TlsConfig): Promise<TlsCredentials> {
  const [cert, key] = await Promise.all([readPem('tls.cert_file', tls.cert_file), readPem('tls.key_file', tls.key_file)]);
  try {
    createSecureContext({ cert, key });
    new X509Certificate(cert);
  } catch (error) {
    throw new StartupError(`tls: ${tls.cert_file} and ${tls.key_file} are not a usable certificate and key (${(error as Error).message})`);
  }
  return { cert, key };
}

function readPem(key: string, file: string): Promise<Buffer> {
  return readFile(file).catch((error: NodeJS.ErrnoException) => {
    throw new StartupError(`${key}: cannot read ${file} (${error.code ?? error.message})`);
  });
}

/** The HTTPS listener: the same limits as the plain one; a slow TLS handshake counts against `headers_timeout`. */
export function createTlsServer(credentials: TlsCredentials, limits: GatewayConfig['limits']): Server {
  return createServer({ ...credentials, ...serverOptionsOf(limits), handshakeTimeout: limits.headers_timeout });
}

/**
 * Keeps the HTTPS listener's certificate current: when either file changes
 * (or on SIGHUP), both are read and checked, then installed for new
 * connections; a broken or mismatched pair leaves the current certificate
 * in place and is logged. Reloads run one after another, so an older read
 * never replaces a newer one.
 */
export class CertificateReloader {
  private readonly watch?: FileWatch;
  private queue: Promise<boolean> = Promise.resolve(true);

  constructor(
    private readonly server: Server,
    private readonly tls: TlsConfig,
    private readonly logger: Logger,
    watch: boolean,
  ) {
    if (watch) this.watch = watchFiles([tls.cert_file, tls.key_file], () => void this.reload('files changed'), logger, 'TLS certificate folder');
  }

  /** Resolves true when the files were installed, false when the current certificate stays. */
  reload(reason: string): Promise<boolean> {
    this.queue = this.queue.then(() => this.reloadOnce(reason));
    return this.queue;
  }

  close(): void {
    this.watch?.close();
  }

  private async reloadOnce(reason: string): Promise<boolean> {
    try {
      const credentials = await readTlsCredentials(this.tls);
      this.server.setSecureContext(credentials);
      this.logger.info({ reason, ...describeCertificate(credentials.cert) }, 'TLS certificate reloaded');
      return true;
    } catch (error) {
      this.logger.error({ reason, problem: (error as Error).message }, 'TLS certificate reload rejected; the current certificate stays');
      return false;
    }
  }
}

/** What an operator wants to see of a certificate in the log: which one it is and until when. */
export function describeCertificate(cert: Buffer): { fingerprint256: string; subject: string; validTo: string } {
  const x509 = new X509Certificate(cert);
  return { fingerprint256: x509.fingerprint256, subject: x509.subject, validTo: x509.validTo };
}
