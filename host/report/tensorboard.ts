/**
 * Run metrics as TensorBoard event files (`sparring export RUN --tensorboard DIR`, and live with
 * `sparring run --tensorboard DIR`). Written by hand, no TensorFlow and no npm package: a
 * tfevents file is TFRecord framing —
 *
 *   uint64 length (little-endian) · uint32 masked CRC32C(length) · data · uint32 masked CRC32C(data)
 *
 * where masked(c) = ((c >>> 15) | (c << 17)) + 0xa282ead8 (mod 2³²) — around serialized
 * `tensorflow.Event` protobufs: field 1 wall_time (double), 2 step (int64), 3 file_version
 * (string, the first record "brain.Event:2"), 5 summary (Summary: repeated field 1 Value, whose
 * field 1 is tag and field 2 simple_value, a float). TensorBoard's own reader
 * (tensorboard.backend.event_processing) reads them; test/tensorboard.test.ts checks that with the
 * real package.
 *
 * What a run writes, one TensorBoard run (subfolder) per lab run: every stored metric series under
 * its own key (gym losses, KL, rewards: run_metrics, step as stored), and per arena match
 * `arena/W_DA`, `arena/W_CA`, `arena/fraud_rate` and the CA's tactic measures (`tactics/...`) at
 * step = the match's number, and the held-out Table 4 per DA checkpoint at step = the checkpoint's
 * position (DA0 = 0) as `heldout/run_ca/<metric>` and `heldout/scripted/<metric>`.
 */
import { closeSync, mkdirSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { HeldoutReport } from '../../core/arena/heldout-report';
import type { MatchSummary } from '../../core/coevolution/run.machine';

// ----------------------------------------------------------------------------- CRC32C and framing

const CRC32C_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[i] = c >>> 0;
  }
  return t;
})();

/** CRC-32C (Castagnoli), as TFRecord uses it. */
export function crc32c(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC32C_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** TFRecord's masked CRC. */
export function maskedCrc32c(bytes: Uint8Array): number {
  const c = crc32c(bytes);
  return (((c >>> 15) | (c << 17)) + 0xa282ead8) >>> 0;
}

/** One TFRecord: length, its masked CRC, the data, the data's masked CRC. */
export function tfRecord(data: Uint8Array): Buffer {
  const head = Buffer.alloc(12);
  head.writeBigUInt64LE(BigInt(data.length), 0);
  head.writeUInt32LE(maskedCrc32c(head.subarray(0, 8)), 8);
  const tail = Buffer.alloc(4);
  tail.writeUInt32LE(maskedCrc32c(data), 0);
  return Buffer.concat([head, data, tail]);
}

// ----------------------------------------------------------------------------- protobuf, by hand

function varint(n: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return out;
}

const key = (field: number, wire: number) => varint((field << 3) | wire);

function lengthDelimited(field: number, bytes: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(key(field, 2)), Buffer.from(varint(bytes.length)), bytes]);
}

function doubleField(field: number, x: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(x, 0);
  return Buffer.concat([Buffer.from(key(field, 1)), b]);
}

function floatField(field: number, x: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeFloatLE(x, 0);
  return Buffer.concat([Buffer.from(key(field, 5)), b]);
}

/** A serialized `Event` with wall_time, step and either file_version or a summary of scalars. */
export function eventBytes(e: { wallTime: number; step: number; fileVersion?: string; scalars?: readonly { tag: string; value: number }[] }): Buffer {
  const parts = [doubleField(1, e.wallTime), Buffer.from([...key(2, 0), ...varint(e.step)])];
  if (e.fileVersion !== undefined) parts.push(lengthDelimited(3, Buffer.from(e.fileVersion, 'utf8')));
  if (e.scalars?.length) {
    const values = e.scalars.map((s) => lengthDelimited(1, Buffer.concat([lengthDelimited(1, Buffer.from(s.tag, 'utf8')), floatField(2, s.value)])));
    parts.push(lengthDelimited(5, Buffer.concat(values)));
  }
  return Buffer.concat(parts);
}

// ----------------------------------------------------------------------------- the writer

/** The suffix of the event files Sparring writes (`events.out.tfevents.<time>.<host>.sparring`). */
export const EVENT_FILE_SUFFIX = '.sparring';

export interface Scalar {
  tag: string;
  step: number;
  value: number;
}

/**
 * An event file being written, one TensorBoard run: `dir` is created; with `replace`, Sparring's
 * earlier event files in it (only those: `*.sparring`) are removed first, so an export written
 * twice does not show every point twice. Each `scalars` call is written through at once (a live
 * TensorBoard picks it up on its next reload).
 */
export class TensorBoardWriter {
  readonly file: string;
  private fd: number;
  written = 0;

  constructor(
    readonly dir: string,
    opts: { replace?: boolean } = {},
  ) {
    mkdirSync(dir, { recursive: true });
    if (opts.replace) for (const f of readdirSync(dir)) if (f.startsWith('events.out.tfevents.') && f.endsWith(EVENT_FILE_SUFFIX)) rmSync(path.join(dir, f));
    const now = Date.now() / 1000;
    this.file = path.join(dir, `events.out.tfevents.${Math.floor(now)}.${os.hostname().replace(/[^\w.-]/g, '_')}${EVENT_FILE_SUFFIX}`);
    this.fd = openSync(this.file, 'a');
    this.write(eventBytes({ wallTime: now, step: 0, fileVersion: 'brain.Event:2' }));
  }

  private write(event: Buffer): void {
    writeSync(this.fd, tfRecord(event));
  }

  /** Scalars, one event per step (NaN and infinities are left out: TensorBoard cannot chart them). */
  scalars(points: readonly Scalar[]): void {
    const byStep = new Map<number, { tag: string; value: number }[]>();
    for (const p of points) {
      if (!Number.isFinite(p.value)) continue;
      if (!byStep.has(p.step)) byStep.set(p.step, []);
      byStep.get(p.step)!.push({ tag: p.tag, value: p.value });
    }
    const wallTime = Date.now() / 1000;
    for (const [step, scalars] of [...byStep].sort((a, b) => a[0] - b[0])) {
      this.write(eventBytes({ wallTime, step, scalars }));
      this.written += scalars.length;
    }
  }

  private last = new Map<string, number>();

  /**
   * The points past the last step already written for their tag, written (a followed or live run
   * sees the same stored point from the lab and from an event; it is written once). Returns how many.
   */
  append(points: readonly Scalar[]): number {
    const fresh = points.filter((p) => p.step > (this.last.get(p.tag) ?? -1));
    for (const p of fresh) this.last.set(p.tag, Math.max(p.step, this.last.get(p.tag) ?? -1));
    this.scalars(fresh);
    return fresh.length;
  }

  close(): void {
    closeSync(this.fd);
  }
}

// ----------------------------------------------------------------------------- what a run writes

/** A match's arena figures at step = its number: W_DA, W_CA, the fraud reference rate, the CA's tactic measures. */
export function matchScalars(m: MatchSummary): Scalar[] {
  const s = (tag: string, value: number | null | undefined): Scalar[] => (value === null || value === undefined ? [] : [{ tag, step: m.index, value }]);
  return [
    ...s('arena/W_DA', m.wDa),
    ...s('arena/W_CA', 1 - m.wDa),
    ...s('arena/fraud_rate', m.fraudRate),
    ...s('tactics/mean_tokens', m.tactics.meanTokens),
    ...s('tactics/mean_entity_density', m.tactics.meanEntityDensity),
    ...s('tactics/decoy_rate', m.tactics.decoyRate),
    ...s('tactics/hedge_rate', m.tactics.hedgeRate),
  ];
}

/** Table 4 per DA checkpoint, step = the checkpoint's position (DA0 = 0). */
export function heldoutScalars(report: HeldoutReport | null): Scalar[] {
  if (!report) return [];
  const tables = [['run_ca', report.vsRun] as const, ...(report.vsReference ? [['scripted', report.vsReference] as const] : [])];
  return tables.flatMap(([opponent, t]) =>
    t.rows.flatMap((r) => r.cells.flatMap((c, i) => (c.value === null ? [] : [{ tag: `heldout/${opponent}/${r.key}`, step: i, value: c.value }]))),
  );
}
