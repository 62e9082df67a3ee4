import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../errors/gateway-error.js';

/**
 * Sees each chunk of a body as it arrives, before the next one is read. It
 * refuses the body by throwing a GatewayError: reading stops there, so a
 * hostile body is never buffered whole.
 */
export type ChunkObserver = (chunk: Buffer) => void;

/**
 * A request body read at most once and kept, so that every phase that needs
 * it (JSON threat checks while it streams, regular expressions on its values,
 * the OAuth endpoints, the forwarder) shares one copy. Nothing reads a body
 * unless a phase asks for it: a route without body policies streams it
 * straight upstream.
 */
export class RequestBody {
  private reading?: Promise<Buffer>;
  private bytes?: Buffer;

  constructor(
    private readonly req: IncomingMessage,
    /** Past this many bytes the body is refused (413), announced or not. */
    readonly limit: number,
  ) {}

  /** True once the whole body is in memory; the forwarder then sends the copy. */
  get isBuffered(): boolean {
    return this.bytes !== undefined;
  }

  /** The buffered body, or undefined when no phase has read it. */
  get contents(): Buffer | undefined {
    return this.bytes;
  }

  /**
   * The whole body. `observe` sees every chunk (all of it at once when the
   * body was already read) and may stop the read by throwing.
   */
  async read(observe?: ChunkObserver): Promise<Buffer> {
    if (this.reading) {
      const bytes = await this.reading;
      observe?.(bytes);
      return bytes;
    }
    this.reading = this.readOnce(observe);
    return this.reading;
  }

  /** The body as UTF-8 text. */
  async text(): Promise<string> {
    return (await this.read()).toString('utf8');
  }

  private async readOnce(observe: ChunkObserver | undefined): Promise<Buffer> {
    assertAnnouncedSizeWithin(this.req, this.limit);
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of this.req as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > this.limit) throw new GatewayError('PAYLOAD_TOO_LARGE', { detail: `body passed ${this.limit} bytes` });
        observe?.(chunk);
        chunks.push(chunk);
      }
    } catch (error) {
      if (error instanceof GatewayError) throw error;
      // The client hung up mid-body: its mistake, not a server failure (and nobody is left to answer).
      throw new GatewayError('MALFORMED_REQUEST', { detail: 'client aborted while sending the body', cause: error });
    }
    this.bytes = Buffer.concat(chunks, size);
    return this.bytes;
  }
}

/** A body announced (Content-Length) as larger than `limit` is refused before a byte of it is read. */
export function assertAnnouncedSizeWithin(req: IncomingMessage, limit: number): void {
  const announced = Number(req.headers['content-length'] ?? 0);
  if (announced > limit) throw new GatewayError('PAYLOAD_TOO_LARGE', { detail: `content-length ${announced} > ${limit}` });
}
