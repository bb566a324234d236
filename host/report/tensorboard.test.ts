import { describe, expect, it } from 'vitest';
import { crc32c, eventBytes, maskedCrc32c, tfRecord } from './tensorboard';

describe('TensorBoard event framing', () => {
  it('computes CRC-32C (Castagnoli) and its TFRecord mask', () => {
    // The standard check value of CRC-32C.
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
    const c = 0xe3069283;
    expect(maskedCrc32c(Buffer.from('123456789'))).toBe((((c >>> 15) | (c << 17)) + 0xa282ead8) >>> 0);
  });

  it('frames a record as length, masked CRC of the length, data, masked CRC of the data', () => {
    const data = eventBytes({ wallTime: 1, step: 300, scalars: [{ tag: 'arena/W_DA', value: 0.5 }] });
    const r = tfRecord(data);
    expect(r.readBigUInt64LE(0)).toBe(BigInt(data.length));
    expect(r.readUInt32LE(8)).toBe(maskedCrc32c(r.subarray(0, 8)));
    expect(r.subarray(12, 12 + data.length).equals(data)).toBe(true);
    expect(r.readUInt32LE(12 + data.length)).toBe(maskedCrc32c(data));
    // step 300 as a varint after field 2's key: 0x10 0xac 0x02
    expect([...data.subarray(9, 12)]).toEqual([0x10, 0xac, 0x02]);
  });
});
