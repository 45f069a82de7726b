import { describe, expect, it } from 'vitest';
import { parseCsv, toCsv } from './csv.ts';

describe('toCsv', () => {
  it.each([
    ['plain', 'plain'],
    ['with, comma', '"with, comma"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['=HYPERLINK("x")', '"\'=HYPERLINK(""x"")"'],
    ['@cmd', "'@cmd"],
    [null, ''],
    [true, 'true'],
    [3, '3'],
  ])('%j -> %s', (cell, expected) => {
    expect(toCsv(['h'], [[cell]])).toBe(`h\r\n${expected}\r\n`);
  });

  it('ends every record with CRLF', () => {
    expect(toCsv(['a', 'b'], [])).toBe('a,b\r\n');
    expect(
      toCsv(
        ['a', 'b'],
        [
          [1, 2],
          [3, null],
        ],
      ),
    ).toBe('a,b\r\n1,2\r\n3,\r\n');
  });
});

describe('parseCsv', () => {
  it('reads back what toCsv writes', () => {
    const rows = [
      ['a,b', 'say "x"', 'line\r\nbreak', ''],
      ['1', '2', '3', '4'],
    ];
    expect(parseCsv(toCsv(['w', 'x', 'y', 'z'], rows))).toEqual([['w', 'x', 'y', 'z'], ...rows]);
  });
});
