/**
 * A minimal OpenEnv WebSocket client (one session per connection, one answer per message), for
 * the server's tests, the bench and scripts/env-load.ts.
 */
import WebSocket from 'ws';

export interface EnvMessage {
  type: 'observation' | 'state' | 'error';
  data: Record<string, unknown>;
}

export class EnvWsClient {
  private waiting: ((m: EnvMessage) => void)[] = [];
  private early: EnvMessage[] = [];
  closed: { code: number; reason: string } | null = null;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const m = JSON.parse((Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data)).toString('utf8')) as EnvMessage;
      const w = this.waiting.shift();
      if (w) w(m);
      else this.early.push(m);
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: String(reason) };
    });
  }

  static connect(url: string, headers: Record<string, string> = {}): Promise<EnvWsClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      ws.once('open', () => resolve(new EnvWsClient(ws)));
      ws.once('error', reject);
    });
  }

  /** The next message from the server. */
  next(): Promise<EnvMessage> {
    const m = this.early.shift();
    if (m) return Promise.resolve(m);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Send raw text and wait for the answer. */
  sendRaw(text: string | Buffer): Promise<EnvMessage> {
    this.ws.send(text);
    return this.next();
  }

  send(type: string, data?: unknown): Promise<EnvMessage> {
    return this.sendRaw(JSON.stringify(data === undefined ? { type } : { type, data }));
  }

  /** Resolves when the socket is closed (by either side). */
  whenClosed(): Promise<{ code: number; reason: string }> {
    if (this.closed) return Promise.resolve(this.closed);
    return new Promise((resolve) => this.ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
  }

  close(): void {
    this.ws.close();
  }
}
