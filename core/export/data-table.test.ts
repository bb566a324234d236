import { describe, expect, it } from 'vitest';
import { csvCell, roundFloat, tableToCsv, tableToJson } from './data-table';

describe('data tables', () => {
  it('rounds binary round-off away and keeps measured digits', () => {
    expect(roundFloat(0.1 + 0.2)).toBe(0.3);
    expect(roundFloat(0.29000000000000004)).toBe(0.29);
    expect(roundFloat(8.316666666666666)).toBe(8.31666666667);
    expect(roundFloat(3)).toBe(3);
    expect(csvCell(Number.NaN)).toBe('');
    expect(csvCell(null)).toBe('');
    expect(csvCell('says "hi", then')).toBe('"says ""hi"", then"');
  });

  it('writes CSV with a header and CRLF rows, and JSON with named cells (NaN as null)', () => {
    const t = {
      name: 't',
      title: 'a table',
      columns: ['a', 'b'],
      rows: [
        [1, 'x,y'],
        [0.1 + 0.2, Number.NaN],
      ],
    };
    expect(tableToCsv(t)).toBe('a,b\r\n1,"x,y"\r\n0.3,\r\n');
    expect(JSON.parse(tableToJson(t))).toEqual({
      name: 't',
      title: 'a table',
      columns: ['a', 'b'],
      rows: [
        { a: 1, b: 'x,y' },
        { a: 0.3, b: null },
      ],
    });
  });
});
